//! The analysis service behind every Pentago hint: the command line's
//! `endgame hint pentago` and the web's `/api/pentago/hints` both print
//! what [`Service::analyze`] returns.
//!
//! An analysis values every legal move: the full moves (`c4 ur cw`, or
//! `c4` alone for a placement that wins at once) of a position due to
//! place, the eight rotations (`ur cw`) of one due to rotate (`…m`). In
//! three stages:
//!
//! 1. Without search: a move that ends the game (a five, a full board) and
//!    a move after which the opponent wins at once (the line tables'
//!    "wins this turn" test) are decided first, so no hard move can leave
//!    an easy one unknown.
//! 2. Exact: the other moves by the solver of [`crate::solve`], one solver
//!    (one table, one retrograde solution) for all of them. From
//!    [`LATE_STONES`] stones the retrograde solver answers every move at
//!    once when the alpha-beta's first share does not; before, the
//!    alpha-beta asks every move in rounds of growing node limits.
//! 3. Estimates: a move still undecided carries the `strong` player's
//!    evaluation one reply deep, as a score in −1..1 for the mover, marked
//!    as an estimate (its colour stays blue); the analysis says in
//!    `reason` why it stayed undecided.

use crate::game::{Move, Pentago, Position, NONE};
use crate::mid;
use crate::notation::{format_cell, format_move, format_position, QUADRANTS};
use crate::player::StrongEval;
use crate::solve::{self, can_win, Solver};
use crate::PentagoError;
use endgame_core::alphabeta::{AlphaBeta, Limits, WIN};
use endgame_core::analysis::{Analysis, Colour, Decided, Estimate, MoveAnalysis};
use endgame_core::budget::{Budget, Cancel};
use endgame_core::{Rules, Value};
use serde::{Deserialize, Serialize};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Default time of a hint: enough for the retrograde solver at 18 stones
/// (about 1–1.5 s on the 2-core machine, see the README), where the
/// exact values end.
pub const DEFAULT_TIME: Duration = Duration::from_secs(2);

/// Default node limit of a hint's alpha-beta searches (about 4.5 s of
/// them, so the time decides first). The retrograde solver is bounded by
/// the time alone: its cost is known before it starts.
pub const DEFAULT_NODES: u64 = 10_000_000;

/// From this many stones every position is in the retrograde solver's
/// range ([`mid::MAX_EMPTY`] empty cells): exact within the default time.
pub const LATE_STONES: u32 = 36 - mid::MAX_EMPTY;

/// Table size of the service's solvers: 2^22 slots of 16 bytes (64 MiB),
/// which with the retrograde solver's layers (about 0.62 GB at 18
/// stones) keeps a hint under 1 GB.
pub const TABLE_BITS: u32 = 22;

/// Alpha-beta nodes the best line may spend after the moves are valued
/// (about 50 ms): the line is a help, the move values are the answer.
pub const LINE_NODES: u64 = 100_000;

/// Solvers (tables) the service keeps between hints.
const KEEP_SOLVERS: usize = 2;

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

/// A position from the interchange notation, validated (a one-line error
/// naming what is wrong otherwise).
pub fn parse(text: &str) -> Result<Position, PentagoError> {
    crate::notation::parse_position(text)
}

/// [`Service::analyze`] on a fresh service.
pub fn analyze(pos: &Position, budget: &Budget) -> PentagoAnalysis {
    Service::new().analyze(pos, budget)
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

    fn take(&self) -> Solver {
        let kept = self.solvers.lock().ok().and_then(|mut v| v.pop());
        kept.unwrap_or_else(|| Solver::new(TABLE_BITS))
    }

    fn give_back(&self, mut s: Solver) {
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
        let t0 = Instant::now();
        let given = budget.remaining();
        let game = Pentago;
        let mut a = PentagoAnalysis {
            game: "pentago".into(),
            position: format_position(pos),
            to_move: Some(side(pos.black_to_move()).into()),
            over: false,
            value: None,
            result: None,
            remoteness: None,
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
        };
        if let Some(v) = pos.outcome() {
            a.over = true;
            a.value = Some(v);
            a.remoteness = Some(0);
            a.time_ms = ms(t0);
            return a;
        }
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
        // 1. Decided without search: the game ends, or the opponent ends
        // it at once.
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
        // 2. Exact values, one solver for every move.
        let late = mid::cost(pos).is_some();
        let mut solver = self.take();
        solver.set_cancel(budget.cancel.clone());
        let nodes0 = solver.nodes();
        let open: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].value == Value::Unknown)
            .collect();
        if !open.is_empty() && !budget.stop() {
            let moves: Vec<Move> = open.iter().map(|&i| rows[i].mv).collect();
            let sb = solve::Budget::exact(pos, budget.nodes, budget.remaining());
            let values = solve::move_values_shared(&mut solver, pos, &moves, sb);
            for (&i, v) in open.iter().zip(values) {
                if v != Value::Unknown {
                    rows[i].value = v;
                    rows[i].decided = Decided::Search;
                }
            }
            a.detail.method = Some(
                if solver.last_was_retrograde() {
                    "retrograde"
                } else {
                    "alpha-beta"
                }
                .into(),
            );
        }
        let nodes_spent = budget
            .nodes
            .is_some_and(|n| !late && solver.nodes() - nodes0 >= n);
        // 3. Estimates for what stays undecided.
        estimate(&mut rows);
        rows.sort_by(|x, y| order_key(x).total_cmp_key(&order_key(y)));
        let value = value_of(&rows);
        a.value = Some(value);
        a.remoteness = remoteness_of(value, &rows);
        if value == Value::Unknown {
            a.decided_by = Decided::Heuristic;
            a.estimate = rows
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
            if a.estimate.is_none() {
                a.decided_by = Decided::Undecided;
            }
        } else if let Some(best) = rows.first() {
            a.line = line(&mut solver, best, budget, nodes0);
        }
        let undecided = rows.iter().filter(|r| r.value == Value::Unknown).count();
        if undecided > 0 {
            let where_ = if late {
                format!("{} stones", pos.stones())
            } else {
                format!("below {LATE_STONES} stones")
            };
            let what = if value == Value::Unknown {
                "no exact value".to_string()
            } else {
                format!("{undecided} of {} moves undecided", rows.len())
            };
            let why = if budget.cancelled() {
                "(cancelled)".to_string()
            } else if nodes_spent {
                format!("within {} nodes", budget.nodes.unwrap_or(0))
            } else {
                match given {
                    Some(t) => format!("within {}", duration_text(t)),
                    None => "within the budget".to_string(),
                }
            };
            a.reason = Some(format!("{where_}: {what} {why}"));
        }
        self.give_back(solver);
        a.moves = rows.into_iter().map(move_analysis).collect();
        a.time_ms = ms(t0);
        a
    }
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

/// A duration as the reason says it: `2 s`, `1.5 s`, `500 ms` (rounded so
/// that the command line and the web, whose clocks start a moment apart,
/// say the same).
fn duration_text(d: Duration) -> String {
    let ms = d.as_millis() as u64;
    if ms >= 1000 {
        let tenths = (ms + 50) / 100;
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else {
        format!("{} ms", (ms + 5) / 10 * 10)
    }
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
        // Unknown remoteness first: slower than any known so far (2).
        Value::Loss => (3, r.remoteness.map_or(i64::MIN, |x| -i64::from(x))),
    };
    Key {
        rank,
        remote,
        estimate: r.estimate.as_ref().map_or(0.0, |e| e.score),
    }
}

/// The position's value from its moves' (each for the mover).
fn value_of(rows: &[Row]) -> Value {
    if rows.iter().any(|r| r.value == Value::Win) {
        Value::Win
    } else if rows.iter().any(|r| r.value == Value::Unknown) {
        Value::Unknown
    } else if rows.iter().any(|r| r.value == Value::Draw) {
        Value::Draw
    } else {
        Value::Loss
    }
}

/// The position's remoteness where the moves' give it: a win at once is
/// the fastest; a loss whose every move's remoteness is known takes the
/// slowest.
fn remoteness_of(value: Value, rows: &[Row]) -> Option<u32> {
    match value {
        Value::Win => rows
            .iter()
            .filter(|r| r.value == Value::Win)
            .filter_map(|r| r.remoteness)
            .min()
            .filter(|&m| m == 1),
        Value::Loss => rows
            .iter()
            .map(|r| r.remoteness)
            .collect::<Option<Vec<u32>>>()
            .and_then(|v| v.into_iter().max()),
        _ => None,
    }
}

/// A best line from the position: the best move, then moves keeping the
/// value (a move that wins at once, else the solver's keeper) as far as
/// [`LINE_NODES`] of alpha-beta and the budget reach.
fn line(solver: &mut Solver, best: &Row, budget: &Budget, nodes0: u64) -> Vec<String> {
    let game = Pentago;
    let mut line = vec![format_move(best.mv)];
    let mut p = best.child;
    // A node limit of at most LINE_NODES also keeps the retrograde
    // solver to the last dozen empty cells, where it costs little.
    let start = solver.nodes();
    let cap = budget.nodes.map_or(LINE_NODES, |n| {
        n.saturating_sub(start - nodes0).min(LINE_NODES)
    });
    while p.outcome().is_none() && !budget.stop() {
        let moves = game.moves(&p);
        let now = moves
            .iter()
            .find(|&&m| game.play_unchecked(&p, m).outcome() == Some(Value::Loss));
        let m = match now {
            Some(&m) => m,
            None => {
                let left = cap.saturating_sub(solver.nodes() - start);
                if left == 0 {
                    break;
                }
                let b = solve::Budget {
                    nodes: Some(left),
                    time: budget.remaining(),
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
    line
}

fn move_analysis(r: Row) -> MoveAnalysis<MoveDetail> {
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
        estimate: r.estimate,
        detail,
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
        assert_eq!(duration_text(Duration::from_millis(49)), "50 ms");
    }
}
