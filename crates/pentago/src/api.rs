//! The Pentago service behind both front ends: the command line
//! (`endgame hint|solve|play pentago`) and the web (`/api/pentago/…`) only
//! parse their input and print what the functions here return.
//!
//! - [`Service::analyze`]: every hint (`endgame hint pentago`,
//!   `/api/pentago/hints`, the same JSON).
//! - [`Service::solve`]: the value of a position, of each child as the
//!   public solver lists them, and a line to the end of the game
//!   (`endgame solve pentago`, `/api/pentago/solve`). The children are
//!   decided as the hints decide the moves (the same stages below).
//! - [`Ai`]: the AI's move (`/api/pentago/ai`, the AIs of `endgame play
//!   pentago`).
//! - [`position_after`], [`play`], [`state`]: positions from the front
//!   ends' text, checked, and what a board shows.
//!
//! An analysis values every legal move: the full moves (`c4 ur cw`, or
//! `c4` alone for a placement that wins at once) of a position due to
//! place, the eight rotations (`ur cw`) of one due to rotate (`…m`). In
//! three stages:
//!
//! 1. Without search: a move that ends the game (a five, a full board) and
//!    a move after which the opponent wins at once (the line tables'
//!    "wins this turn" test) are decided first, so no hard move can leave
//!    an easy one unknown. Then, while the budget lasts, short forced
//!    ends by the same test a few plies deep (`Short`): a move after
//!    which the opponent loses within two plies whatever they do, or wins
//!    within three, is decided with its remoteness.
//! 2. Exact: the other moves by the solver of [`crate::solve`], one solver
//!    (one table, one retrograde solution) for all of them. From
//!    [`LATE_STONES`] stones the retrograde solver answers every move at
//!    once when the alpha-beta's first share does not; before, the
//!    alpha-beta asks every move in rounds of growing node limits.
//! 3. Estimates (hints only): a move still undecided carries the `strong`
//!    player's evaluation one reply deep, as a score in −1..1 for the
//!    mover, marked as an estimate (its colour stays blue); the analysis
//!    says in `reason` why it stayed undecided.
//!
//! Remoteness (moves to the end with the winner hurrying and the loser
//! delaying) is known only where stage 1 proves it: both exact solvers
//! answer values alone. The alpha-beta of [`crate::solve`] is a negamax
//! over {−1, 0, 1} with a table of value bounds (no distance in its
//! scores, unlike core's `alphabeta`, whose `WIN − ply` scores the
//! heuristic players use), and the retrograde solver of [`crate::mid`]
//! keeps one "win" and one "not lose" bit per position and rotation
//! state. Carrying a distance would cost the alpha-beta its null-window
//! questions over three values and the retrograde solver several times
//! its memory (a distance per state instead of a bit), so a move they
//! decide keeps `remoteness: null` unless stage 1 proved a short end.

use crate::board::{bit_index, bits_of, can_win};
use crate::game::{Move, NONE};
use crate::mid;
use crate::notation::{format_cell, parse_move, QUADRANTS};
use crate::player::{by_name, StrongEval, StrongSearch};
use crate::solve::{self, Solver};
use crate::PentagoError;
use endgame_core::alphabeta::{AlphaBeta, Limits, WIN};
use endgame_core::analysis::{Analysis, Colour, Decided, Estimate, MoveAnalysis};
use endgame_core::budget::{Budget, Cancel};
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Rules, Value};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The retrograde solver's pooled layer memory, which a server hands back
/// when idle.
pub use crate::mid::{free_pool, pool_bytes, set_memory_limit, set_pool_limit, DEFAULT_POOL_BYTES};
pub use crate::notation::{draw, format_move, format_position};
/// The players of battles and terminal play, by name (`strong`, `reference`, …).
pub use crate::player::by_name as player;
pub use crate::player::NAMES as PLAYER_NAMES;
pub use crate::{Pentago, Position};

/// Default time of a hint: enough for the retrograde solver at 18 stones
/// (about 1–1.5 s on the 2-core machine, see the README), where the
/// exact values end.
pub const DEFAULT_TIME: Duration = Duration::from_secs(2);

/// Default node limit of a hint's alpha-beta searches (about 4.5 s of
/// them, so the time decides first). The retrograde solver is bounded by
/// the time alone: its cost is known before it starts.
pub const DEFAULT_NODES: u64 = 10_000_000;

/// Default time of a solve before [`LATE_STONES`] stones, where it may
/// not finish ([`solve_budget`]); from there a solve gets no limit.
pub const SOLVE_EARLY_TIME: Duration = Duration::from_secs(10);

/// From this many stones (18 empty cells) the retrograde solver answers
/// within a hint's default time ([`DEFAULT_TIME`]) and 1 GB. Its range
/// reaches further ([`mid::MAX_EMPTY`] = 21 empty cells, 15 stones: about
/// 1.6 GiB at 17 stones, 4.3 GiB at 16, 7.2 GiB at 15 a sweep per
/// question, over the default limit, so spilled to disk), where a longer
/// budget ("think longer" from 16 stones, see [`mid::predicted_time`])
/// or a solve without a time limit uses it ([`mid::reaches`]).
pub const LATE_STONES: u32 = 18;

/// Table size of the service's solvers: 2^22 slots of 16 bytes (64 MiB),
/// which with the retrograde solver's layers (about 0.62 GB at 18
/// stones) keeps a hint under 1 GB.
pub const TABLE_BITS: u32 = 22;

/// Alpha-beta nodes the best line of a hint may spend after the moves are
/// valued (about 50 ms): the line is a help, the move values are the
/// answer. A solve's line has no such cap (see [`Service::solve`]).
pub const LINE_NODES: u64 = 100_000;

/// Table size of the AI's exact stage: 2^20 slots (16 MiB).
const AI_TABLE_BITS: u32 = 20;

/// Solvers (tables) the service keeps between hints.
const KEEP_SOLVERS: usize = 2;

/// Positions the short-end proofs of stage 1 may play over one analysis
/// (a few tens of ms at most; on most positions they stop after a few
/// thousand, every proof failing at its first escape).
const SHORT_WORK: u64 = 2_000_000;

/// Who made the estimates, as the analysis says it.
pub const ESTIMATE_BY: &str = "strong evaluation, one reply deep";

/// The evaluation's scale: a score of this many line points maps to
/// tanh(1) ≈ 0.76.
const ESTIMATE_SCALE: f64 = 100.0;

/// What a move adds to the core's [`MoveAnalysis`]: its parts as the board
/// draws them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveDetail {
    /// The cell placed on (`c4`); null for a rotation alone.
    pub cell: Option<String>,
    /// The quadrant turned (`ll`, `ul`, `lr`, `ur`); null for a placement
    /// that wins at once.
    pub quadrant: Option<String>,
    /// `cw` or `ccw` (as seen on the drawn board); null with no rotation.
    pub direction: Option<String>,
}

/// What a position adds to the core's [`Analysis`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PosDetail {
    /// Stones on the board.
    pub stones: u32,
    /// Whether the player to move has placed and must rotate (the `m`).
    pub must_rotate: bool,
    /// The exact method that answered last: `alpha-beta` or `retrograde`;
    /// null when no search ran.
    pub method: Option<String>,
}

/// A Pentago analysis.
pub type PentagoAnalysis = Analysis<MoveDetail, PosDetail>;

/// What a front end's request can get wrong: the notation's and the
/// rules' errors, and what the service itself refuses. One line each.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A bad position or move, an illegal move, an unknown player.
    #[error(transparent)]
    Pentago(#[from] PentagoError),
    /// A pending placement given where a rotation is due or the game is
    /// over.
    #[error("place: no placement is due")]
    NoPlacementDue,
    /// A pending placement that is not one empty cell.
    #[error("place {0}: give one empty cell")]
    BadPlacement(String),
    /// An AI move asked for a finished game.
    #[error("the game is over")]
    GameOver,
    /// An AI move asked with a placement pending.
    #[error("the AI plays whole moves: give no pending placement")]
    RotationDue,
}

/// A position from the interchange notation, validated (a one-line error
/// naming what is wrong otherwise).
pub fn parse(text: &str) -> Result<Position, PentagoError> {
    crate::notation::parse_position(text)
}

/// The position a front end describes: `start` (the interchange notation;
/// absent or blank: the empty board), then `moves` (full moves such as
/// `c4 ur cw`, each checked), then optionally a pending placement `place`
/// (a cell such as `c4`: the position then has its `m`, a rotation due).
pub fn position_after<S: AsRef<str>>(
    start: Option<&str>,
    moves: &[S],
    place: Option<&str>,
) -> Result<Position, Error> {
    let mut pos = match start {
        Some(s) if !s.trim().is_empty() => parse(s)?,
        _ => Pentago.start(),
    };
    for m in moves {
        pos = play(&pos, m.as_ref())?.0;
    }
    if let Some(c) = place.filter(|c| !c.trim().is_empty()) {
        let mv = parse_move(c)?;
        if pos.must_rotate() || pos.outcome().is_some() {
            return Err(Error::NoPlacementDue);
        }
        if mv.rot != NONE || pos.empty() >> mv.cell & 1 == 0 {
            return Err(Error::BadPlacement(c.to_string()));
        }
        pos = pos.place(mv.cell);
    }
    Ok(pos)
}

/// `pos` after the move written `text` (checked), and the move as the
/// notation writes it.
pub fn play(pos: &Position, text: &str) -> Result<(Position, String), PentagoError> {
    let mv = parse_move(text)?;
    let next = Pentago.play_checked(pos, mv)?;
    Ok((next, format_move(mv)))
}

/// `black` or `white`: who moves in `pos`.
pub fn side_to_move(pos: &Position) -> &'static str {
    side(pos.black_to_move())
}

/// Who won a finished game: `black`, `white`, or `none` for a draw; `None`
/// while it goes on.
pub fn winner(pos: &Position) -> Option<&'static str> {
    pos.outcome().map(|v| match v {
        Value::Win => side(pos.black_to_move()),
        Value::Loss => side(!pos.black_to_move()),
        _ => "none",
    })
}

/// What the board of a position shows (`/api/pentago/state`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The interchange notation.
    pub position: String,
    /// `cells[y][x]`, y = 0 the bottom row: `b`, `w` or `.`.
    pub cells: Vec<String>,
    /// `black` or `white`.
    pub to_move: String,
    /// Whether a rotation is due (the `m`).
    pub must_rotate: bool,
    /// Whether the game is over.
    pub over: bool,
    /// `black`, `white` or `none` (a draw) once over.
    pub winner: Option<String>,
    /// The legal moves, in the rules' order.
    pub moves: Vec<String>,
    /// The moves played to get here, as the request gave them.
    pub played: Vec<String>,
}

/// The board of `pos`, reached by `played`.
pub fn state(pos: &Position, played: Vec<String>) -> State {
    let cells = (0..6)
        .map(|y| {
            (0..6)
                .map(|x| {
                    let b = bit_index(x, y);
                    if pos.black() >> b & 1 == 1 {
                        'b'
                    } else if pos.white() >> b & 1 == 1 {
                        'w'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    State {
        position: format_position(pos),
        cells,
        to_move: side_to_move(pos).into(),
        must_rotate: pos.must_rotate(),
        over: pos.outcome().is_some(),
        winner: winner(pos).map(String::from),
        moves: Pentago.moves(pos).into_iter().map(format_move).collect(),
        played,
    }
}

/// The budget of a hint: `time` and `nodes` where given, else
/// [`DEFAULT_TIME`] and [`DEFAULT_NODES`] (the web's defaults too).
pub fn hint_budget(time: Option<Duration>, nodes: Option<u64>) -> Budget {
    Budget::time(time.unwrap_or(DEFAULT_TIME)).with_nodes(nodes.unwrap_or(DEFAULT_NODES))
}

/// The budget of a one-shot solve (`endgame solve pentago`): `time` and
/// `nodes` where given; with neither, [`SOLVE_EARLY_TIME`] before
/// [`LATE_STONES`] stones and no limit from there. Before
/// [`LATE_STONES`] stones its memory allows the solver's large table
/// ([`solve::EARLY_TABLE_BITS`], 512 MiB touched only as used: on hard
/// positions it saves 10 to 50 % of the nodes).
pub fn solve_budget(pos: &Position, time: Option<Duration>, nodes: Option<u64>) -> Budget {
    let early = !mid::reaches(pos);
    let time = match (time, nodes) {
        (None, None) if early => Some(SOLVE_EARLY_TIME),
        _ => time,
    };
    let mut b = Budget::unlimited();
    if let Some(t) = time {
        b = b.with_time(t);
    }
    b.nodes = nodes;
    if early {
        b = b.with_memory(table_bytes(solve::EARLY_TABLE_BITS));
    }
    b
}

/// Bytes of a solver table of `2^bits` slots.
fn table_bytes(bits: u32) -> usize {
    16 << bits
}

/// [`Service::analyze`] on a fresh service.
pub fn analyze(pos: &Position, budget: &Budget) -> PentagoAnalysis {
    Service::new().analyze(pos, budget)
}

/// [`Service::solve`] on a fresh service (the command line's one-shot
/// solve; see [`solve_budget`]).
pub fn solve(pos: &Position, budget: &Budget) -> SolveReport {
    Service::new().solve(pos, budget)
}

/// The move of the AI `strength` (blank: `strong`) in `pos`: [`Ai::new`]
/// with seed 1, then [`Ai::choose`].
pub fn ai_move(pos: &Position, strength: &str, budget: &Budget) -> Result<Option<AiMove>, Error> {
    Ai::new(strength, 1)?.choose(pos, budget)
}

/// The analysis service: it keeps solvers (their tables of proven bounds,
/// and the last retrograde solution) between hints, so a server answering
/// one position after another reuses what earlier hints proved.
#[derive(Default)]
pub struct Service {
    solvers: Mutex<Vec<Solver>>,
}

/// One move while it is being analysed.
struct Row {
    mv: Move,
    child: Position,
    value: Value,
    remoteness: Option<u32>,
    decided: Decided,
    estimate: Option<Estimate>,
}

impl Service {
    /// A service with no solver yet (each is made on first use).
    pub fn new() -> Service {
        Service::default()
    }

    /// A solver for `pos` within `budget`: a kept one (or a new one of
    /// [`TABLE_BITS`]); a fresh large one ([`solve::EARLY_TABLE_BITS`])
    /// when the position is before the retrograde solver's range and the
    /// budget's memory allows it.
    fn take(&self, pos: &Position, budget: &Budget) -> Solver {
        let big = table_bytes(solve::EARLY_TABLE_BITS);
        if !mid::reaches(pos) && budget.memory.is_some_and(|m| m >= big) {
            return Solver::new(solve::EARLY_TABLE_BITS);
        }
        let kept = self.solvers.lock().ok().and_then(|mut v| v.pop());
        kept.unwrap_or_else(|| Solver::new(TABLE_BITS))
    }

    fn give_back(&self, mut s: Solver) {
        if s.table_bytes() != table_bytes(TABLE_BITS) {
            return;
        }
        s.set_cancel(Cancel::new());
        if let Ok(mut v) = self.solvers.lock() {
            if v.len() < KEEP_SOLVERS {
                v.push(s);
            }
        }
    }

    /// The analysis of `pos` within `budget`: the position's value for the
    /// player to move, every legal move with its value for the mover,
    /// remoteness where known, colour and how it was decided, a best line
    /// when the value is known, and the reason when something stays
    /// undecided. The budget's node limit bounds the alpha-beta searches,
    /// its deadline and cancel token every search (each checks them
    /// itself).
    pub fn analyze(&self, pos: &Position, budget: &Budget) -> PentagoAnalysis {
        let mut solver = self.take(pos, budget);
        solver.set_cancel(budget.cancel.clone());
        let a = hint(&mut solver, pos, budget);
        self.give_back(solver);
        a
    }

    /// The solve of `pos` within `budget` (`endgame solve pentago`,
    /// `/api/pentago/solve`): the position's value, the value of each
    /// child as the public solver lists them (see [`SolveReport`]), and a
    /// line to the end of the game. The children come from the moves'
    /// values, decided by the same stages as a hint's
    /// ([`Service::analyze`], without the estimates). The moves' values
    /// first get two thirds of the budget's time, then the line (each step
    /// an exact search, bounded by the time and, before the retrograde
    /// solver's range, by the node limit each) what it needs of the rest,
    /// then the moves still undecided whatever the line left.
    pub fn solve(&self, pos: &Position, budget: &Budget) -> SolveReport {
        let t0 = Instant::now();
        let given = budget.remaining();
        let mut solver = self.take(pos, budget);
        solver.set_cancel(budget.cancel.clone());
        let nodes0 = solver.nodes();
        let mut line = Vec::new();
        let mut line_complete = pos.outcome().is_some();
        let (a, kids) = if pos.outcome().is_some() {
            (empty_analysis(pos), Children::default())
        } else {
            let values = Budget {
                deadline: given.and_then(|t| Instant::now().checked_add(t * 2 / 3)),
                ..budget.clone()
            };
            let mut st = Stages::new(pos, &values);
            st.exact(&mut solver, pos, &values);
            st.sort();
            if st.value() != Value::Unknown {
                (line, line_complete) = solve_line(&mut solver, &st, budget);
            }
            if st.undecided() > 0 && !budget.stop() {
                st.exact(&mut solver, pos, budget);
                st.sort();
                if line.is_empty() && st.value() != Value::Unknown {
                    (line, line_complete) = solve_line(&mut solver, &st, budget);
                }
            }
            (st.analysis(pos, budget, given), children(pos, &st.rows))
        };
        let result = a.value.unwrap_or(Value::Unknown);
        let report = SolveReport {
            position: a.position,
            stones: pos.stones(),
            to_move: side_to_move(pos).into(),
            must_rotate: pos.must_rotate(),
            value: number(result),
            result,
            remoteness: a.remoteness,
            decided_by: a.decided_by,
            reason: a.reason,
            children: kids,
            line,
            line_complete,
            nodes: solver.nodes() - nodes0,
            method: a.detail.method.unwrap_or_else(|| "alpha-beta".into()),
            time_ms: ms(t0),
            table_bytes: solver.table_bytes(),
            complete: result != Value::Unknown,
        };
        self.give_back(solver);
        report
    }
}

/// A solve's line: the best move, then moves keeping the value, each an
/// exact search within `budget`; and whether it reaches the end.
fn solve_line(solver: &mut Solver, st: &Stages, budget: &Budget) -> (Vec<String>, bool) {
    let Some(best) = st.rows.first() else {
        return (Vec::new(), false);
    };
    let mut line = vec![format_move(best.mv)];
    let (rest, end) = extend_line(solver, best.child, budget, None);
    line.extend(rest);
    (line, end.outcome().is_some())
}

/// The moves of a position as the stages decide them.
struct Stages {
    /// Every legal move (best first once sorted).
    rows: Vec<Row>,
    /// Whether stage 1's short ends examined every move.
    short_complete: bool,
    /// The method of the last exact stage, if one ran.
    method: Option<&'static str>,
    /// Nodes the exact stages spent (alpha-beta nodes, plus the positions
    /// of a retrograde solve).
    nodes: u64,
    /// Whether the position is in the retrograde solver's range (and its
    /// memory limit).
    late: bool,
    /// Why the retrograde solver did not answer although the position is
    /// in its range by empty cells: its memory over the limit, or the
    /// deadline passed while it ran.
    refusal: Option<mid::Refusal>,
}

impl Stages {
    /// Stage 1 on `pos` (not over): every move, decided where no search
    /// is needed, then the short ends while `budget` lasts.
    fn new(pos: &Position, budget: &Budget) -> Stages {
        let game = Pentago;
        let mut rows: Vec<Row> = game
            .moves(pos)
            .into_iter()
            .map(|mv| Row {
                mv,
                child: game.play_unchecked(pos, mv),
                value: Value::Unknown,
                remoteness: None,
                decided: Decided::Undecided,
                estimate: None,
            })
            .collect();
        // The game ends, or the opponent ends it at once.
        for r in &mut rows {
            if let Some(v) = r.child.outcome() {
                r.value = v.flip();
                r.remoteness = Some(1);
                r.decided = Decided::Search;
            } else if can_win(r.child.mine(), r.child.theirs()) {
                r.value = Value::Loss;
                r.remoteness = Some(2);
                r.decided = Decided::Search;
            }
        }
        let short_complete = short_ends(&mut rows, budget);
        Stages {
            rows,
            short_complete,
            method: None,
            nodes: 0,
            late: mid::reaches(pos),
            refusal: None,
        }
    }

    /// Stage 2: the exact values of the undecided moves by `solver`
    /// within `budget` (its node limit counting what earlier exact stages
    /// spent).
    fn exact(&mut self, solver: &mut Solver, pos: &Position, budget: &Budget) {
        let open: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].value == Value::Unknown)
            .collect();
        if open.is_empty() || budget.stop() || self.nodes_spent(budget) {
            return;
        }
        solver.set_cancel(budget.cancel.clone());
        let nodes0 = solver.nodes();
        let moves: Vec<Move> = open.iter().map(|&i| self.rows[i].mv).collect();
        let nodes = budget.nodes_left(self.nodes);
        let sb = solve::Budget::exact(pos, nodes, budget.remaining());
        let values = solve::move_values_shared(solver, pos, &moves, sb);
        for (&i, v) in open.iter().zip(values) {
            if v != Value::Unknown {
                self.rows[i].value = v;
                self.rows[i].decided = Decided::Search;
            }
        }
        self.nodes += solver.nodes() - nodes0;
        // Why the retrograde solver, in range, gave no answer: its memory,
        // or the deadline passing while it ran (not when cancelled: the
        // reason says so already).
        self.refusal = match solver.retrograde_refusal() {
            Some(r @ mid::Refusal::TooLarge { .. }) => Some(r),
            Some(r @ mid::Refusal::OutOfTime) if !budget.cancelled() => Some(r),
            _ => self.refusal,
        };
        self.method = Some(if solver.last_was_retrograde() {
            "retrograde"
        } else {
            "alpha-beta"
        });
    }

    /// Whether the exact stages used up the budget's node limit (which
    /// bounds the alpha-beta only).
    fn nodes_spent(&self, budget: &Budget) -> bool {
        budget.nodes.is_some_and(|n| !self.late && self.nodes >= n)
    }

    /// Best first: wins (fastest first), draws, undecided (best estimate
    /// first), losses (slowest first); then the rules' order.
    fn sort(&mut self) {
        self.rows
            .sort_by(|x, y| order_key(x).total_cmp_key(&order_key(y)));
    }

    /// The position's value from its moves' (each for the mover).
    fn value(&self) -> Value {
        best_of(self.rows.iter().map(|r| r.value))
    }

    fn remoteness(&self) -> Option<u32> {
        let proven = if self.short_complete { 3 } else { 1 };
        remoteness_of(self.value(), &self.rows, proven)
    }

    fn undecided(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.value == Value::Unknown)
            .count()
    }

    /// Why moves stayed undecided, if any did, within `budget` of `given`
    /// time.
    fn reason(&self, pos: &Position, budget: &Budget, given: Option<Duration>) -> Option<String> {
        let undecided = self.undecided();
        if undecided == 0 {
            return None;
        }
        let where_ = if pos.stones() >= LATE_STONES {
            format!("{} stones", pos.stones())
        } else {
            format!("below {LATE_STONES} stones")
        };
        let what = if self.value() == Value::Unknown {
            "no exact value".to_string()
        } else {
            format!("{undecided} of {} moves undecided", self.rows.len())
        };
        let why = if budget.cancelled() {
            "(cancelled)".to_string()
        } else if self.nodes_spent(budget) {
            format!("within {} nodes", budget.nodes.unwrap_or(0))
        } else {
            match given {
                Some(t) => format!("within {}", duration_text(t)),
                None => "within the budget".to_string(),
            }
        };
        Some(match self.refusal {
            Some(r) => format!("{where_}: {what} {why} ({r})"),
            None => format!("{where_}: {what} {why}"),
        })
    }

    /// The analysis of `pos` as the stages left it (sorted), without a
    /// line.
    fn analysis(
        &self,
        pos: &Position,
        budget: &Budget,
        given: Option<Duration>,
    ) -> PentagoAnalysis {
        let mut a = empty_analysis(pos);
        let value = self.value();
        a.value = Some(value);
        a.remoteness = self.remoteness();
        a.detail.method = self.method.map(String::from);
        if value == Value::Unknown {
            a.decided_by = Decided::Undecided;
            a.estimate = self
                .rows
                .iter()
                .filter_map(|r| match (r.value, &r.estimate) {
                    (Value::Draw, _) => Some(0.0),
                    (Value::Loss, _) => Some(-1.0),
                    (_, Some(e)) => Some(e.score),
                    _ => None,
                })
                .max_by(f64::total_cmp)
                .map(|score| Estimate {
                    score,
                    by: ESTIMATE_BY.into(),
                });
            if a.estimate.is_some() {
                a.decided_by = Decided::Heuristic;
            }
        }
        a.reason = self.reason(pos, budget, given);
        a.moves = self.rows.iter().map(move_analysis).collect();
        a
    }
}

/// The analysis of `pos` before any move is looked at (a finished game's
/// whole analysis).
fn empty_analysis(pos: &Position) -> PentagoAnalysis {
    let over = pos.outcome();
    PentagoAnalysis {
        game: "pentago".into(),
        position: format_position(pos),
        to_move: Some(side_to_move(pos).into()),
        over: over.is_some(),
        value: over,
        result: None,
        remoteness: over.map(|_| 0),
        decided_by: Decided::Search,
        reason: None,
        estimate: None,
        moves: Vec::new(),
        line: Vec::new(),
        detail: PosDetail {
            stones: pos.stones(),
            must_rotate: pos.must_rotate(),
            method: None,
        },
        time_ms: 0.0,
    }
}

/// A hint: the three stages (see the module documentation) on `pos` with
/// `solver`, and a best line within [`LINE_NODES`].
fn hint(solver: &mut Solver, pos: &Position, budget: &Budget) -> PentagoAnalysis {
    let t0 = Instant::now();
    let given = budget.remaining();
    if pos.outcome().is_some() {
        let mut a = empty_analysis(pos);
        a.time_ms = ms(t0);
        return a;
    }
    let mut st = Stages::new(pos, budget);
    st.exact(solver, pos, budget);
    // 3. Estimates for what stays undecided.
    estimate(&mut st.rows);
    st.sort();
    let mut a = st.analysis(pos, budget, given);
    if let (Some(best), false) = (st.rows.first(), st.value() == Value::Unknown) {
        // A node limit of at most LINE_NODES also keeps the retrograde
        // solver to the last dozen empty cells, where it costs little.
        let cap = budget
            .nodes_left(st.nodes)
            .map_or(LINE_NODES, |n| n.min(LINE_NODES));
        a.line = vec![format_move(best.mv)];
        a.line
            .extend(extend_line(solver, best.child, budget, Some(cap)).0);
    }
    a.time_ms = ms(t0);
    a
}

fn side(black: bool) -> &'static str {
    if black {
        "black"
    } else {
        "white"
    }
}

fn ms(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

/// A duration as the reason says it: `2 s`, `1.5 s`, `500 ms`: the time
/// left when the analysis started, rounded up to a tenth of a second, so
/// that the command line and the web (whose budgets start a few
/// milliseconds, on a loaded machine tens of milliseconds, before the
/// analysis) say the same.
fn duration_text(d: Duration) -> String {
    let tenths = (d.as_millis() as u64).div_ceil(100).max(1);
    if tenths >= 10 {
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else {
        format!("{} ms", tenths * 100)
    }
}

/// Short forced ends, proven by the line tables' "wins this turn" test
/// ([`can_win`]) a few plies deep, exactly: where the winner hurries and
/// the loser delays, a proof that the end comes within `d` plies whatever
/// the loser does gives the remoteness as the least such `d`. The work is
/// bounded by [`SHORT_WORK`] positions and the budget; once either runs
/// out every open proof fails (never a false proof).
struct Short<'a> {
    budget: &'a Budget,
    work: u64,
    out: bool,
}

impl Short<'_> {
    /// Counts one position played; whether the work must stop.
    fn tick(&mut self) -> bool {
        self.work += 1;
        if self.work >= SHORT_WORK || (self.work & 255 == 0 && self.budget.stop()) {
            self.out = true;
        }
        self.out
    }

    /// Whether the player to move in `p` (due to place, not over) wins
    /// within `d` plies whatever the opponent does.
    fn wins_within(&mut self, p: &Position, d: u32) -> bool {
        // Five stones are needed, and the mover places one every other
        // ply.
        if d == 0 || self.out || p.mine().count_ones() + d.div_ceil(2) < 5 {
            return false;
        }
        if can_win(p.mine(), p.theirs()) {
            return true;
        }
        if d == 1 {
            return false;
        }
        for m in Pentago.moves(p) {
            if self.tick() {
                return false;
            }
            let c = Pentago.play_unchecked(p, m);
            // A move ending the game at once was found by `can_win`.
            if c.outcome().is_none() && self.loses_within(&c, d - 1) {
                return true;
            }
        }
        false
    }

    /// Whether the player to move in `c` (due to place, not over) loses
    /// within `d` plies whatever they do.
    fn loses_within(&mut self, c: &Position, d: u32) -> bool {
        // The winner needs five stones and places one every other ply.
        if d == 0 || self.out || c.theirs().count_ones() + d / 2 < 5 {
            return false;
        }
        // A mover that wins at once does not lose.
        if can_win(c.mine(), c.theirs()) {
            return false;
        }
        for m in Pentago.moves(c) {
            if self.tick() {
                return false;
            }
            let r = Pentago.play_unchecked(c, m);
            let lost = match r.outcome() {
                // For the winner, now to move.
                Some(v) => v == Value::Win,
                None => d >= 2 && self.wins_within(&r, d - 1),
            };
            if !lost {
                return false;
            }
        }
        true
    }
}

/// Stage 1's short ends: each move not decided at once that leaves the
/// opponent lost within two plies (a win in 2 or 3) or winning within
/// three (a loss in 3 or 4) is decided with that remoteness. Whether every
/// move was examined (then every win in at most 3 is known).
fn short_ends(rows: &mut [Row], budget: &Budget) -> bool {
    if budget.stop() {
        return false;
    }
    let mut s = Short {
        budget,
        work: 0,
        out: false,
    };
    for r in rows.iter_mut() {
        if r.remoteness.is_some() || r.child.outcome().is_some() {
            continue;
        }
        if let Some(d) = (1..=2).find(|&d| s.loses_within(&r.child, d)) {
            r.value = Value::Win;
            r.remoteness = Some(1 + d);
            r.decided = Decided::Search;
        } else if let Some(d) = (2..=3).find(|&d| s.wins_within(&r.child, d)) {
            // (d = 1, the opponent winning at once, was decided before.)
            r.value = Value::Loss;
            r.remoteness = Some(1 + d);
            r.decided = Decided::Search;
        }
        if s.out {
            return false;
        }
    }
    true
}

/// The estimate of each undecided move: the `strong` player's evaluation
/// of the position after it, one reply deep (the opponent's best reply by
/// the evaluation), as a score for the mover squashed into −1..1. A
/// search that proves the reply's result (every reply gives the mover
/// five) decides the move exactly instead.
fn estimate(rows: &mut [Row]) {
    let game = Pentago;
    // Depth one never reaches the table: a small one.
    let mut ab: AlphaBeta<Pentago> = AlphaBeta::new(4);
    let limits = Limits {
        max_depth: 1,
        time: None,
        nodes: None,
    };
    for r in rows.iter_mut().filter(|r| r.value == Value::Unknown) {
        let s = ab.search(&game, &r.child, &mut StrongEval, limits);
        match s.proven {
            // The opponent loses at their move whatever they do.
            Value::Loss => {
                r.value = Value::Win;
                r.remoteness = Some(2);
                r.decided = Decided::Search;
            }
            Value::Win => {
                r.value = Value::Loss;
                r.remoteness = Some(2);
                r.decided = Decided::Search;
            }
            _ => {
                let score = -s.score.clamp(-WIN, WIN);
                let x = (f64::from(score) / ESTIMATE_SCALE).tanh();
                r.estimate = Some(Estimate {
                    score: (x * 1000.0).round() / 1000.0,
                    by: ESTIMATE_BY.into(),
                });
                r.decided = Decided::Heuristic;
            }
        }
    }
}

/// Sort key of a move, best first: wins (fastest first), draws,
/// undecided (best estimate first), losses (slowest first); then the
/// rules' order.
struct Key {
    rank: u8,
    remote: i64,
    estimate: f64,
}

impl Key {
    fn total_cmp_key(&self, other: &Key) -> std::cmp::Ordering {
        self.rank
            .cmp(&other.rank)
            .then(self.remote.cmp(&other.remote))
            .then(other.estimate.total_cmp(&self.estimate))
    }
}

fn order_key(r: &Row) -> Key {
    let (rank, remote) = match r.value {
        Value::Win => (0, r.remoteness.map_or(i64::MAX, i64::from)),
        Value::Draw => (1, 0),
        Value::Unknown => (2, 0),
        // Unknown remoteness first: slower than any stage 1 proves (4).
        Value::Loss => (3, r.remoteness.map_or(i64::MIN, |x| -i64::from(x))),
    };
    Key {
        rank,
        remote,
        estimate: r.estimate.as_ref().map_or(0.0, |e| e.score),
    }
}

/// The best of values for one player: a win, else unknown if any, else a
/// draw, else a loss (also for no value at all).
fn best_of(values: impl Iterator<Item = Value> + Clone) -> Value {
    let any = |v: Value| values.clone().any(|x| x == v);
    if any(Value::Win) {
        Value::Win
    } else if any(Value::Unknown) {
        Value::Unknown
    } else if any(Value::Draw) {
        Value::Draw
    } else {
        Value::Loss
    }
}

/// The position's remoteness where the moves' give it: a win takes its
/// fastest winning move's when every win that fast is known (`proven`:
/// every move was examined for wins within that many moves); a loss
/// whose every move's remoteness is known takes the slowest.
fn remoteness_of(value: Value, rows: &[Row], proven: u32) -> Option<u32> {
    match value {
        Value::Win => rows
            .iter()
            .filter(|r| r.value == Value::Win)
            .filter_map(|r| r.remoteness)
            .min()
            .filter(|&m| m <= proven),
        Value::Loss => rows
            .iter()
            .map(|r| r.remoteness)
            .collect::<Option<Vec<u32>>>()
            .and_then(|v| v.into_iter().max()),
        _ => None,
    }
}

/// A line from `p` on, moves keeping the value: a move that wins at once,
/// else the solver's keeper. `cap`: alpha-beta nodes the whole line may
/// spend (a hint's); `None`: each step an exact search within the
/// budget's time and, before the retrograde solver's range, its node
/// limit (a solve's). Returns the moves and the position reached.
fn extend_line(
    solver: &mut Solver,
    mut p: Position,
    budget: &Budget,
    cap: Option<u64>,
) -> (Vec<String>, Position) {
    let game = Pentago;
    let mut line = Vec::new();
    let start = solver.nodes();
    while p.outcome().is_none() && !budget.stop() {
        let moves = game.moves(&p);
        let now = moves
            .iter()
            .find(|&&m| game.play_unchecked(&p, m).outcome() == Some(Value::Loss));
        let m = match now {
            Some(&m) => m,
            None => {
                let b = match cap {
                    Some(cap) => {
                        let left = cap.saturating_sub(solver.nodes() - start);
                        if left == 0 {
                            break;
                        }
                        solve::Budget {
                            nodes: Some(left),
                            time: budget.remaining(),
                        }
                    }
                    None => solve::Budget::exact(&p, budget.nodes, budget.remaining()),
                };
                match solve::best_move(solver, &p, b) {
                    Some((m, _)) => m,
                    None => break,
                }
            }
        };
        line.push(format_move(m));
        p = game.play_unchecked(&p, m);
    }
    (line, p)
}

fn move_analysis(r: &Row) -> MoveAnalysis<MoveDetail> {
    let detail = MoveDetail {
        cell: (r.mv.cell != NONE).then(|| format_cell(r.mv.cell)),
        quadrant: (r.mv.rot != NONE).then(|| QUADRANTS[(r.mv.rot >> 1) as usize].to_string()),
        direction: (r.mv.rot != NONE).then(|| if r.mv.rot & 1 == 0 { "cw" } else { "ccw" }.into()),
    };
    MoveAnalysis {
        mv: format_move(r.mv),
        after: format_position(&r.child),
        value: Some(r.value),
        result: None,
        remoteness: r.remoteness,
        colour: Colour::of_value(r.value),
        decided_by: r.decided,
        estimate: r.estimate.clone(),
        detail,
    }
}

/// A value as the public solver writes it: 1, 0, -1; `None` when unknown.
pub fn number(v: Value) -> Option<i8> {
    match v {
        Value::Win => Some(1),
        Value::Draw => Some(0),
        Value::Loss => Some(-1),
        Value::Unknown => None,
    }
}

/// A solve's answer ([`Service::solve`]): what `endgame solve pentago
/// --json` prints, and what `/api/pentago/solve` takes its fields from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveReport {
    /// The position, normalised.
    pub position: String,
    /// Stones on the board.
    pub stones: u32,
    /// `black` or `white`.
    pub to_move: String,
    /// Whether the player to move must rotate (the `m`).
    pub must_rotate: bool,
    /// 1 win, 0 draw, -1 loss for the player to move; null if unknown.
    pub value: Option<i8>,
    /// The same as a word (`win`, `draw`, `loss`, `unknown`).
    pub result: Value,
    /// Moves to the end when known (see the module documentation).
    pub remoteness: Option<u32>,
    /// `search` when the value is known, else `undecided`.
    pub decided_by: Decided,
    /// Why something stayed undecided (as a hint says it), if it did.
    pub reason: Option<String>,
    /// Child notation → value for the child's player to move, in the
    /// rules' order: the placements (`…m`, the same player to move) of a
    /// position due to place, the eight rotations (the other player to
    /// move) of a `…m` one; null where unknown.
    pub children: Children,
    /// A line keeping the value, from the position on, when it is known:
    /// its first move the best (the fastest win, a draw, the slowest
    /// loss); a rotation alone first when a placement is pending.
    pub line: Vec<String>,
    /// Whether the line reaches the end of the game.
    pub line_complete: bool,
    /// Nodes searched (alpha-beta nodes, plus the positions of a
    /// retrograde solve).
    pub nodes: u64,
    /// `alpha-beta` or `retrograde`: what valued the moves (`alpha-beta`
    /// also when no search was needed).
    pub method: String,
    /// Wall time in milliseconds.
    pub time_ms: f64,
    /// Bytes of the alpha-beta's table.
    pub table_bytes: usize,
    /// Whether the position's value is known (false: the budget ran out
    /// first; `endgame solve` then exits with status 3).
    pub complete: bool,
}

impl SolveReport {
    /// The report of a solve that gave no answer in time (the web's, when
    /// the work did not come back): every value unknown.
    pub fn unsolved(pos: &Position) -> SolveReport {
        let rows: Vec<Row> = Pentago
            .moves(pos)
            .into_iter()
            .map(|mv| Row {
                mv,
                child: Pentago.play_unchecked(pos, mv),
                value: Value::Unknown,
                remoteness: None,
                decided: Decided::Undecided,
                estimate: None,
            })
            .collect();
        SolveReport {
            position: format_position(pos),
            stones: pos.stones(),
            to_move: side_to_move(pos).into(),
            must_rotate: pos.must_rotate(),
            value: None,
            result: Value::Unknown,
            remoteness: None,
            decided_by: Decided::Undecided,
            reason: Some("the solve did not finish within its time".into()),
            children: children(pos, &rows),
            line: Vec::new(),
            line_complete: false,
            nodes: 0,
            method: "alpha-beta".into(),
            time_ms: 0.0,
            table_bytes: 0,
            complete: false,
        }
    }
}

/// One child of a solved position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    /// The child in the interchange notation.
    pub position: String,
    /// Its value for its player to move.
    pub value: Value,
    /// The move to it: the cell (`c4`) of a placement, the rotation
    /// (`ul cw`) of a `…m` position.
    pub by: String,
}

/// The children of a solved position, in the rules' order; written in
/// JSON as an object, child notation → 1, 0, -1 or null.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Children(pub Vec<Child>);

impl Serialize for Children {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for c in &self.0 {
            m.serialize_entry(&c.position, &number(c.value))?;
        }
        m.end()
    }
}

/// The children of `pos` from its moves' values (for the mover): a
/// rotation's child takes the flipped value; a placement's child (the
/// same player, to rotate) the best of its full moves'.
fn children(pos: &Position, rows: &[Row]) -> Children {
    if pos.outcome().is_some() {
        return Children::default();
    }
    let list = if pos.must_rotate() {
        (0..8)
            .map(|r| {
                let v = rows
                    .iter()
                    .find(|x| x.mv.rot == r)
                    .map_or(Value::Unknown, |x| x.value.flip());
                Child {
                    position: format_position(&pos.rotated(r)),
                    value: v,
                    by: format_move(Move { cell: NONE, rot: r }),
                }
            })
            .collect()
    } else {
        bits_of(pos.empty())
            .map(|cell| {
                let mine = rows.iter().filter(|x| x.mv.cell == cell).map(|x| x.value);
                Child {
                    position: format_position(&pos.place(cell)),
                    value: best_of(mine),
                    by: format_cell(cell),
                }
            })
            .collect()
    };
    Children(list)
}

/// The AI's answer (`/api/pentago/ai`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AiMove {
    /// The full move (`c4 ur cw`, or `c4` for a placement that wins).
    #[serde(rename = "move")]
    pub mv: String,
    /// The AI that chose it.
    pub strength: String,
    /// The position's exact value for the mover when the exact stage
    /// found it, else null.
    pub value: Option<Value>,
}

/// An AI of the front ends (`strong`, `reference`, `random`, as
/// [`crate::player::by_name`] knows them), keeping its tables between
/// moves (a game of `endgame play pentago` uses one per AI side; the web
/// one per request).
///
/// `strong` first gives the exact solver half the budget: a proven win is
/// played by a winning move; in a proven draw (or loss) its search picks
/// among the moves keeping the value the one leaving a fallible opponent
/// the most chances to go wrong, as `strong` does in its own games. When
/// the exact stage does not finish, the player itself moves with the
/// other half. The others just move.
pub struct Ai {
    strength: String,
    player: Box<dyn Player<Pentago>>,
    exact: Option<(Solver, StrongSearch)>,
}

impl Ai {
    /// The AI called `strength` (blank: `strong`), seeded with `seed`
    /// where it uses chance.
    pub fn new(strength: &str, seed: u64) -> Result<Ai, PentagoError> {
        let strength = if strength.trim().is_empty() {
            "strong"
        } else {
            strength
        };
        let player = by_name(strength, seed)?;
        let exact =
            (strength == "strong").then(|| (Solver::new(AI_TABLE_BITS), StrongSearch::new()));
        Ok(Ai {
            // The player's own name: an old name given (`seed`) reports as
            // the current one (`reference`).
            strength: player.name(),
            player,
            exact,
        })
    }

    /// The AI's name.
    pub fn strength(&self) -> &str {
        &self.strength
    }

    /// Whether an AI may move in `pos`: the game goes on and no placement
    /// is pending (the AI plays whole moves).
    pub fn check(pos: &Position) -> Result<(), Error> {
        if pos.outcome().is_some() {
            Err(Error::GameOver)
        } else if pos.must_rotate() {
            Err(Error::RotationDue)
        } else {
            Ok(())
        }
    }

    /// The AI's move in `pos` within `budget` (its time and nodes split
    /// in halves between the exact stage and the player); `None` when the
    /// budget was cancelled during the exact stage.
    pub fn choose(&mut self, pos: &Position, budget: &Budget) -> Result<Option<AiMove>, Error> {
        Ai::check(pos)?;
        let time = budget.remaining().map(|t| t / 2);
        let nodes = budget.nodes.map(|n| n / 2);
        let mut chosen = None;
        // With neither a time nor a node limit the exact stage could run
        // for hours before the retrograde solver's range: there it waits.
        let bounded = time.is_some() || nodes.is_some() || mid::reaches(pos);
        if let (Some((solver, search)), true) = (self.exact.as_mut(), bounded) {
            solver.set_cancel(budget.cancel.clone());
            let solved = solve::keeping_moves(solver, pos, solve::Budget::exact(pos, nodes, time));
            solver.set_cancel(Cancel::new());
            // The budget was cancelled during the exact stage: no second
            // half.
            if budget.cancelled() {
                return Ok(None);
            }
            chosen = match solved {
                Some((v, moves)) if v == Value::Win || moves.len() == 1 => Some((moves[0], v)),
                Some((v, moves)) => Some((search.among(pos, time, nodes, Some(&moves)), v)),
                None => None,
            };
        }
        let (mv, value) = match chosen {
            Some((m, v)) => (m, Some(v)),
            None => {
                let limits = MoveLimits {
                    time,
                    nodes,
                    memory: None,
                };
                (self.player.choose(&Pentago, pos, &limits), None)
            }
        };
        Ok(Some(AiMove {
            mv: format_move(mv),
            strength: self.strength.clone(),
            value,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_alike_a_moment_apart() {
        assert_eq!(duration_text(Duration::from_millis(1999)), "2 s");
        assert_eq!(duration_text(Duration::from_millis(2000)), "2 s");
        assert_eq!(duration_text(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(duration_text(Duration::from_millis(49)), "100 ms");
        assert_eq!(duration_text(Duration::from_millis(460)), "500 ms");
        assert_eq!(duration_text(Duration::from_millis(1901)), "2 s");
    }

    /// A retrograde solve that the time model lets start but that cannot
    /// finish (its prediction scaled to nothing, a 17-stone root: about
    /// 5 s of CPU, 200 ms given) stops at the deadline: the hint comes
    /// back at once, undecided, saying the retrograde solver ran out of
    /// time and that the alpha-beta answered.
    #[test]
    fn an_overrun_stops_at_the_deadline_and_says_so() {
        use endgame_core::conformance::random_game_positions;
        let ps = random_game_positions(&Pentago, 5, 40);
        // A position the alpha-beta's first share does not settle.
        let p = ps
            .iter()
            .filter(|p| p.stones() == 17 && !p.must_rotate() && p.outcome().is_none())
            .find(|p| {
                let mut ab = Solver::new(16);
                ab.set_retrograde(false);
                let share = mid::cost(p).unwrap() / solve::AB_SHARE;
                let b = solve::Budget {
                    nodes: Some(share),
                    time: None,
                };
                ab.value(p, b) == Value::Unknown
            })
            .expect("a 17-stone position the share does not settle");
        let mut solver = Solver::new(16);
        solver.set_time_scale(0.0);
        let given = Duration::from_millis(200);
        let t = Instant::now();
        let a = hint(&mut solver, p, &Budget::time(given));
        let took = t.elapsed();
        assert!(took < Duration::from_millis(1200), "{took:?}");
        assert_eq!(solver.retrograde_refusal(), Some(mid::Refusal::OutOfTime));
        assert!(a.moves.iter().any(|m| m.colour == Colour::Blue));
        assert_eq!(a.detail.method.as_deref(), Some("alpha-beta"));
        let reason = a.reason.expect("undecided moves say why");
        assert!(
            reason.starts_with("below 18 stones: ")
                && reason.ends_with("within 200 ms (the retrograde solver ran out of time)"),
            "{reason}"
        );
    }
}
