//! The operations of the command line and the web, on problems described
//! by text (board name or art, vacancies, goal): solve, count, the
//! single-vacancy study, the built-in boards, and the analysis service
//! behind every hint ([`Service`]). Reports are plain data with serde, so
//! the front ends only print them.

use crate::bits::Bits;
use crate::error::PegError;
use crate::heuristics;
use crate::problem::{bits_needed, Goal, PegSolitaire};
use endgame_core::astar::{self, AstarOptions};
use endgame_core::budget::Cancel;
use endgame_core::dfs::{self, DfsOptions, DfsReport};
use endgame_core::genetic::{self, GeneticOptions};
use endgame_core::layered::{self, LayeredOptions, LayeredReport, Progress};
use endgame_core::memory::peak_rss_bytes;
use endgame_core::{Notation, Puzzle, Rules, Symmetric};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

pub use crate::board::{Board, Lattice};
pub use crate::counts::{extra as extra_counts, Extra, ExtraOptions};
pub use crate::notation::parse_position;
pub use crate::problem::{Pruning, PAGODA_TIME};
pub use crate::service::{
    MoveDetail, PegAnalysis, PosDetail, Service, DEFAULT_COUNT_LIMIT, DEFAULT_NODES, DEFAULT_TIME,
};
pub use crate::study::{single_vacancy, StudyRow};
pub use crate::with_problem;

/// One built-in board, as `endgame boards` and the web's `/api/games`
/// list it.
#[derive(Clone, Debug, Serialize)]
pub struct BoardInfo {
    /// The name `--board` and [`Spec::named`] take.
    pub name: String,
    /// What it is.
    pub description: String,
    /// Number of holes.
    pub holes: usize,
    /// Size of its symmetry group.
    pub symmetries: usize,
    /// Holes empty at the start by default.
    pub default_vacancies: Vec<String>,
    /// The board drawn with its default start.
    pub art: String,
}

/// The built-in boards (besides `triangleN`), in the order the front ends
/// list them.
pub fn boards() -> Vec<BoardInfo> {
    crate::board::BUILT_IN
        .iter()
        .map(|&(name, description, _)| {
            let b = Board::named(name, false).expect("the built-in boards are valid art");
            let drawn = b.drawn_pegs();
            BoardInfo {
                name: name.to_string(),
                description: description.to_string(),
                holes: b.holes(),
                symmetries: b.symmetries().len(),
                default_vacancies: (0..b.holes())
                    .filter(|&h| !drawn[h])
                    .map(|h| b.hole_name(h).to_string())
                    .collect(),
                art: b.draw(|h| drawn[h]),
            }
        })
        .collect()
}

/// The goal of a problem in words (e.g. `one peg in d4`).
pub fn goal(problem: &AnyProblem) -> String {
    crate::with_problem!(problem, p => goal_text(p))
}

/// The start position of a problem in notation.
pub fn start_notation(problem: &AnyProblem) -> String {
    crate::with_problem!(problem, p => p.format_position(&p.start()))
}

/// The position after playing `moves` (jump notation) from the start of
/// `problem`, in notation; an unreadable or illegal move is an error
/// naming it.
pub fn position_after<M: AsRef<str>>(problem: &AnyProblem, moves: &[M]) -> Result<String, String> {
    crate::with_problem!(problem, p => {
        let mut pos = p.start();
        for m in moves {
            let m = m.as_ref();
            let mv = p.parse_move(m).map_err(|e| e.to_string())?;
            pos = p.play(&pos, mv).map_err(|e| format!("move {m}: {e}"))?;
        }
        Ok(p.format_position(&pos))
    })
}

/// One hole of a position, as a front end draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HoleView {
    /// The hole's name in the notation.
    pub name: String,
    /// Column of the board's drawing.
    pub x: i32,
    /// Row of the board's drawing.
    pub y: i32,
    /// Whether it holds a peg.
    pub peg: bool,
}

/// One legal jump of a position, named for a front end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JumpView {
    /// The jump in the notation (`from-to`), as moves are played.
    #[serde(rename = "move")]
    pub name: String,
    /// The hole the peg leaves.
    pub from: String,
    /// The hole whose peg is taken.
    pub over: String,
    /// The hole it lands in.
    pub to: String,
}

/// The start position of a problem as a front end shows it: its holes,
/// its legal jumps, and whether play is over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionView {
    /// The position in notation.
    pub position: String,
    /// Every hole of the board with its peg.
    pub holes: Vec<HoleView>,
    /// Pegs on the board.
    pub pegs: usize,
    /// The legal jumps, in move order.
    pub moves: Vec<JumpView>,
    /// No jump is left.
    pub over: bool,
    /// The position is the goal.
    pub solved: bool,
}

/// [`PositionView`] of the start of `problem` (play moves first with
/// [`position_after`] and build the problem from that position).
pub fn view(problem: &AnyProblem) -> PositionView {
    crate::with_problem!(problem, p => {
        let pos = p.start();
        let board = p.board();
        let name = |h: usize| board.hole_name(h).to_string();
        let moves: Vec<JumpView> = p
            .moves(&pos)
            .into_iter()
            .map(|m| {
                let j = board.jumps()[m as usize];
                JumpView { name: p.move_name(m), from: name(j.from), over: name(j.over), to: name(j.to) }
            })
            .collect();
        let holes = (0..board.holes())
            .map(|h| {
                let (x, y) = board.coords(h);
                HoleView { name: name(h), x, y, peg: p.has_peg(pos, h) }
            })
            .collect();
        PositionView {
            position: p.format_position(&pos),
            holes,
            pegs: p.peg_count(pos) as usize,
            over: moves.is_empty(),
            solved: p.is_goal(&pos),
            moves,
        }
    })
}

/// Where the board comes from.
#[derive(Clone, Debug)]
pub enum BoardSource {
    /// A built-in board by name.
    Named(String),
    /// ASCII art (its `.` holes are the default vacancies).
    Art(String),
}

/// How the problem ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The default: in the vacated hole if exactly one, else anywhere.
    Default,
    /// One peg in this hole.
    Hole(String),
    /// Pegs exactly on these holes.
    Pattern(Vec<String>),
    /// One peg anywhere.
    Any,
}

/// A problem as the user states it.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The board.
    pub board: BoardSource,
    /// Allow diagonal jumps (square boards).
    pub diagonal: bool,
    /// Holes to empty at the start (others full); `None`: the board's
    /// drawn vacancies.
    pub vacate: Option<Vec<String>>,
    /// A whole start position in the position notation (overrides
    /// `vacate`).
    pub position: Option<String>,
    /// The goal.
    pub finish: Finish,
    /// Pruning switches.
    pub pruning: Pruning,
}

impl Spec {
    /// The classic problem on a built-in board: its default vacancy, the
    /// default finish.
    pub fn named(board: &str) -> Spec {
        Spec {
            board: BoardSource::Named(board.to_string()),
            diagonal: false,
            vacate: None,
            position: None,
            finish: Finish::Default,
            pruning: Pruning::default(),
        }
    }
}

/// A problem with the bitboard width its board needs.
// One is built per command, so the variants' sizes do not matter, and a
// box would only add an indirection to every use.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyProblem {
    /// Boards whose grid fits 64 bits.
    Small(PegSolitaire<u64>),
    /// Larger boards (up to 128 grid bits).
    Large(PegSolitaire<u128>),
}

/// Runs `$body` with `$p` bound to the concrete problem.
#[macro_export]
macro_rules! with_problem {
    ($any:expr, $p:ident => $body:expr) => {
        match $any {
            $crate::api::AnyProblem::Small($p) => $body,
            $crate::api::AnyProblem::Large($p) => $body,
        }
    };
}

/// Builds the board of a spec.
pub fn board_of(spec: &Spec) -> Result<Board, PegError> {
    match &spec.board {
        BoardSource::Named(n) => Board::named(n, spec.diagonal),
        BoardSource::Art(a) => Board::from_art("custom", a, spec.diagonal),
    }
}

/// Builds and validates the problem a spec describes, with the pagoda
/// functions derived within [`crate::problem::PAGODA_TIME`].
pub fn build(spec: &Spec) -> Result<AnyProblem, PegError> {
    build_within(spec, Some(Instant::now() + crate::problem::PAGODA_TIME))
}

/// [`build`] with the pagoda functions ready by `deadline` (all of them
/// when `None`): a large custom board's are derived over several calls.
pub fn build_within(spec: &Spec, deadline: Option<Instant>) -> Result<AnyProblem, PegError> {
    let board = Arc::new(board_of(spec)?);
    let n = board.holes();
    let start: Vec<bool> = if let Some(pos) = &spec.position {
        crate::notation::parse_position(&board, pos)?
    } else if let Some(v) = &spec.vacate {
        let mut s = vec![true; n];
        for name in v {
            s[board.hole(name)?] = false;
        }
        s
    } else {
        board.drawn_pegs().to_vec()
    };
    let empty: Vec<usize> = (0..n).filter(|&h| !start[h]).collect();
    // The vacancies that name the default goal: the ones asked for, else
    // the board's own (so a mid-game position on the English board still
    // aims for d4).
    let vacancies: Vec<usize> = match (&spec.vacate, &spec.position) {
        (Some(_), None) => empty.clone(),
        _ => (0..n).filter(|&h| !board.drawn_pegs()[h]).collect(),
    };
    if empty.is_empty() {
        return Err(PegError::BadPosition(
            "the start has no empty hole, so no jump is possible".into(),
        ));
    }
    if start.iter().all(|&p| !p) {
        return Err(PegError::BadPosition("the start has no pegs".into()));
    }
    let goal = match &spec.finish {
        Finish::Default if vacancies.len() == 1 => Goal::Pattern(vec![vacancies[0]]),
        Finish::Default | Finish::Any => Goal::AnyOne,
        Finish::Hole(h) => Goal::Pattern(vec![board.hole(h)?]),
        Finish::Pattern(hs) => {
            let mut v = hs
                .iter()
                .map(|h| board.hole(h))
                .collect::<Result<Vec<_>, _>>()?;
            v.sort_unstable();
            v.dedup();
            Goal::Pattern(v)
        }
    };
    if bits_needed(&board) <= 64 {
        Ok(AnyProblem::Small(PegSolitaire::new_within(
            board,
            &start,
            goal,
            spec.pruning,
            deadline,
        )?))
    } else {
        Ok(AnyProblem::Large(PegSolitaire::new_within(
            board,
            &start,
            goal,
            spec.pruning,
            deadline,
        )?))
    }
}

/// The goal of a problem in words.
pub(crate) fn goal_text(p: &PegSolitaire<impl Bits>) -> String {
    match p.goal() {
        Goal::AnyOne => "one peg anywhere".into(),
        Goal::Pattern(h) if h.len() == 1 => format!("one peg in {}", p.board().hole_name(h[0])),
        Goal::Pattern(h) => format!(
            "pegs exactly on {}",
            h.iter()
                .map(|&x| p.board().hole_name(x))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

/// Search methods of `solve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Memoised depth-first search (exact).
    Dfs,
    /// Best-first search with the weighted-cost heuristic.
    Astar,
    /// Best-first search with the Manhattan heuristic.
    AstarManhattan,
    /// The applet's genetic search (heuristic: cannot prove impossibility).
    Genetic,
}

/// Budgets of `solve`.
///
/// Every search checks it itself: the depth-first searches the
/// expansions, the memo entries, the deadline and the cancel token (every
/// [`endgame_core::restarts::CHECK_EVERY`] expansions); the best-first
/// search the expansions, the deadline, the token and `max_memory`; the
/// genetic search the deadline and the token.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Most positions expanded.
    pub max_expansions: u64,
    /// Most entries in memo tables.
    pub max_memo_entries: usize,
    /// Most bytes of the best-first search's stores (`None`: no limit
    /// but the expansions); it stops before they would outgrow it.
    pub max_memory: Option<usize>,
    /// Random seed (genetic search).
    pub seed: u64,
    /// The instant after which the search stops, undecided (`None`: no
    /// deadline).
    pub deadline: Option<Instant>,
    /// Stops the search, undecided, when set (the web sets it when the
    /// client goes away).
    pub cancel: Cancel,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_expansions: 200_000_000,
            max_memo_entries: 100_000_000,
            max_memory: None,
            seed: 1,
            deadline: None,
            cancel: Cancel::new(),
        }
    }
}

/// Memo bytes per entry a core budget's `memory` is divided by (as the
/// analysis service counts them).
const MEMO_ENTRY_BYTES: usize = 32;

impl From<&endgame_core::budget::Budget> for Budget {
    /// The core budget as `solve`'s: its nodes are the expansions, its
    /// memory the memo entries (the defaults where it names none), its
    /// deadline and cancel token the same; the random seed is the default.
    fn from(b: &endgame_core::budget::Budget) -> Budget {
        let d = Budget::default();
        Budget {
            max_expansions: b.nodes.unwrap_or(d.max_expansions),
            max_memo_entries: b
                .memory
                .map_or(d.max_memo_entries, |m| (m / MEMO_ENTRY_BYTES).max(1)),
            max_memory: b.memory,
            deadline: b.deadline,
            cancel: b.cancel.clone(),
            ..d
        }
    }
}

impl Budget {
    /// Past the deadline or cancelled.
    fn stop(&self) -> bool {
        self.cancel.is_cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// This budget's deadline and cancel token as a core budget, for the
    /// searchers that stop themselves (the node limit is set apart).
    fn stops(&self) -> endgame_core::budget::Budget {
        endgame_core::budget::Budget {
            nodes: None,
            deadline: self.deadline,
            cpu_deadline: None,
            memory: self.max_memory,
            cancel: self.cancel.clone(),
        }
    }
}

/// The answer of `solve`.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// Board name.
    pub board: String,
    /// Start position (notation).
    pub start: String,
    /// The goal in words.
    pub goal: String,
    /// The method used.
    pub method: Method,
    /// `true` solved, `false` proven impossible, `null` undecided (budget
    /// ran out, or a heuristic method failed).
    pub solvable: Option<bool>,
    /// `solvable` in a word: `solvable`, `unsolvable` or `unknown`.
    pub value: &'static str,
    /// Why the goal cannot be reached, when proven.
    pub reason: Option<String>,
    /// Moves (`from-to`) to the goal, or to the best result found.
    pub line: Vec<String>,
    /// Pegs left at the end of the line.
    pub pegs_left: u32,
    /// Whether `pegs_left` is proven the best possible.
    pub best_proven: bool,
    /// The position at the end of the line (notation).
    pub end: String,
    /// Positions expanded.
    pub expansions: u64,
    /// Wall time in milliseconds.
    pub time_ms: f64,
    /// Peak resident memory of the process in bytes (Linux).
    pub peak_memory_bytes: Option<u64>,
}

fn line_names<B: Bits>(p: &PegSolitaire<B>, line: &[u16]) -> Vec<String> {
    line.iter().map(|&m| p.move_name(m)).collect()
}

fn end_of<B: Bits>(p: &PegSolitaire<B>, start: B, line: &[u16]) -> B {
    line.iter().fold(start, |pos, &m| p.play_unchecked(&pos, m))
}

/// Solves a problem with the chosen method, within the budget (see
/// [`Budget`]: the depth-first searches stop themselves at its deadline or
/// cancel token too). The command line's `solve peg` and the web's
/// `/api/peg/solve` both answer with it.
pub fn solve(problem: &AnyProblem, method: Method, budget: &Budget) -> SolveReport {
    with_problem!(problem, p => solve_typed(p, method, budget, true))
}

/// Like [`solve`], but when the goal is impossible it does not go on to
/// search for the best result (the line stays empty).
pub fn solve_goal_only(problem: &AnyProblem, method: Method, budget: &Budget) -> SolveReport {
    with_problem!(problem, p => solve_typed(p, method, budget, false))
}

/// The fewest pegs that the position classes allow (1, or 2 when no single
/// peg anywhere shares the start's class).
fn class_floor<B: Bits>(p: &PegSolitaire<B>) -> u32 {
    let any = PegSolitaire::<B>::new(
        p.board().clone(),
        &(0..p.board().holes())
            .map(|h| p.has_peg(p.start(), h))
            .collect::<Vec<_>>(),
        Goal::AnyOne,
        Pruning {
            classes: true,
            pagodas: false,
        },
    );
    match any {
        Ok(a) if a.cannot_reach_goal(&a.start()) => 2,
        _ => 1,
    }
}

fn solve_typed<B: Bits>(
    p: &PegSolitaire<B>,
    method: Method,
    budget: &Budget,
    best_result: bool,
) -> SolveReport {
    let t0 = Instant::now();
    let start = p.start();
    let mut reason = p.impossibility(start);
    let dfs_opts = DfsOptions {
        max_expansions: Some(budget.max_expansions),
        max_memo_entries: budget.max_memo_entries,
        budget: budget.stops(),
        ..DfsOptions::default()
    };
    let (solvable, line, expansions, best_proven) = if reason.is_some() {
        (Some(false), Vec::new(), 0, false)
    } else if budget.stop() {
        (None, Vec::new(), 0, false)
    } else {
        match method {
            Method::Dfs => {
                let (found, spent) = match p.goal() {
                    Goal::AnyOne => any_via_holes(p, budget),
                    Goal::Pattern(_) => (None, 0),
                };
                let r = match found {
                    Some(line) => DfsReport {
                        best_score: 1,
                        reached_goal: true,
                        line,
                        expansions: spent,
                        complete: true,
                        memo_entries: 0,
                        memo_bytes: 0,
                    },
                    None => {
                        let mut r = dfs::solve(p, &start, &dfs_opts);
                        r.expansions += spent;
                        r
                    }
                };
                if r.reached_goal {
                    (Some(true), r.line, r.expansions, true)
                } else if r.complete {
                    reason =
                        Some("exhaustive search: no line from the start reaches the goal".into());
                    (Some(false), r.line, r.expansions, true)
                } else {
                    (None, r.line, r.expansions, false)
                }
            }
            Method::Astar | Method::AstarManhattan => {
                let w = if method == Method::Astar {
                    heuristics::weighted_cost_weights(p.board(), p.goal())
                } else {
                    heuristics::manhattan_weights(p.board(), p.goal())
                };
                let h = |q: &PegSolitaire<B>, pos: &B| q.weigh(*pos, &w);
                let r = astar::search(
                    p,
                    &start,
                    &h,
                    &AstarOptions {
                        max_expansions: budget.max_expansions,
                        budget: budget.stops(),
                        ..AstarOptions::default()
                    },
                );
                match r.line {
                    Some(l) => (Some(true), l, r.expansions, true),
                    None if r.exhausted => {
                        reason = Some(
                            "exhaustive best-first search: no line from the start reaches the goal"
                                .into(),
                        );
                        (Some(false), Vec::new(), r.expansions, false)
                    }
                    None => (None, Vec::new(), r.expansions, false),
                }
            }
            Method::Genetic => {
                let r = genetic::search(
                    p,
                    &GeneticOptions {
                        seed: budget.seed,
                        threshold: genetic_threshold(p),
                        budget: budget.stops(),
                        ..GeneticOptions::default()
                    },
                );
                let solved = r.solved;
                (solved.then_some(true), r.best.line, r.expansions, solved)
            }
        }
    };
    // Proven impossible: find the best result and a line to it.
    let (line, best_proven, expansions) =
        if best_result && solvable == Some(false) && line.is_empty() {
            let floor = class_floor(p);
            let r = dfs::best_by(
                p,
                &start,
                &DfsOptions {
                    use_pruning: false,
                    ..dfs_opts.clone()
                },
                |q| q.count(),
                floor,
            );
            (r.line, r.complete, expansions + r.expansions)
        } else {
            (line, best_proven, expansions)
        };
    let end = end_of(p, start, &line);
    SolveReport {
        board: p.board().name().to_string(),
        start: p.format_position(&start),
        goal: goal_text(p),
        method,
        solvable,
        value: match solvable {
            Some(true) => "solvable",
            Some(false) => "unsolvable",
            None => "unknown",
        },
        reason,
        line: line_names(p, &line),
        pegs_left: end.count(),
        best_proven,
        end: p.format_position(&end),
        expansions,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
        peak_memory_bytes: peak_rss_bytes(),
    }
}

/// "One peg anywhere" has no pagoda to prune with, so first try each
/// final hole the position classes allow, as its own problem with pagoda
/// pruning and a small budget; any solution found solves the original.
/// Returns the line (if found) and the expansions spent.
fn any_via_holes<B: Bits>(p: &PegSolitaire<B>, budget: &Budget) -> (Option<Vec<u16>>, u64) {
    let board = p.board();
    let start = p.start();
    let pegs: Vec<bool> = (0..board.holes()).map(|h| p.has_peg(start, h)).collect();
    let mut spent = 0;
    // Holes near the centre of mass first: they are the likeliest finishes.
    let mut holes: Vec<usize> = (0..board.holes()).collect();
    let n = board.holes() as f64;
    let cx = (0..board.holes())
        .map(|h| board.coords(h).0 as f64)
        .sum::<f64>()
        / n;
    let cy = (0..board.holes())
        .map(|h| board.coords(h).1 as f64)
        .sum::<f64>()
        / n;
    let d = |h: usize| {
        let (x, y) = board.coords(h);
        (x as f64 - cx).abs() + (y as f64 - cy).abs()
    };
    holes.sort_by(|&a, &b| d(a).total_cmp(&d(b)));
    for h in holes {
        if budget.stop() {
            break;
        }
        let Ok(q) = PegSolitaire::<B>::new_within(
            board.clone(),
            &pegs,
            Goal::Pattern(vec![h]),
            Pruning::default(),
            budget.deadline,
        ) else {
            continue;
        };
        if q.cannot_reach_goal(&start) {
            continue;
        }
        let per_hole = (budget.max_expansions / 100).clamp(1, 200_000);
        let r = dfs::solve(
            &q,
            &start,
            &DfsOptions {
                max_expansions: Some(per_hole),
                max_memo_entries: budget.max_memo_entries,
                budget: budget.stops(),
                ..DfsOptions::default()
            },
        );
        spent += r.expansions;
        if r.reached_goal {
            return (Some(r.line), spent);
        }
    }
    (None, spent)
}

/// The applet switched to exhaustive search at 11 pegs on 33 holes;
/// scaled to other boards by hole count.
fn genetic_threshold<B: Bits>(p: &PegSolitaire<B>) -> u32 {
    ((p.board().holes() as f64) / 3.0).round().max(3.0) as u32
}

/// One layer of a count.
#[derive(Clone, Debug, Serialize)]
pub struct CountLayer {
    /// Pegs on the board in this layer.
    pub pegs: u32,
    /// Reachable positions.
    pub positions: u64,
    /// Reachable positions up to symmetry.
    pub positions_reduced: u64,
    /// Reachable positions that can still reach the goal.
    pub to_goal: u64,
    /// The same up to symmetry.
    pub to_goal_reduced: u64,
}

/// The answer of `count`.
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// Board name.
    pub board: String,
    /// Start position.
    pub start: String,
    /// The goal in words.
    pub goal: String,
    /// Symmetries used (the subgroup fixing start and goal).
    pub symmetries: usize,
    /// Per layer, from the start.
    pub layers: Vec<CountLayer>,
    /// Whether every reachable position was enumerated; `false` after a
    /// goal-only count, whose `positions` columns then cover only the
    /// positions the search visited (and `positions` is 0).
    pub complete: bool,
    /// Reachable positions in all.
    pub total_positions: u64,
    /// Reachable positions up to symmetry in all.
    pub total_positions_reduced: u64,
    /// Positions that can reach the goal in all.
    pub total_to_goal: u64,
    /// The same up to symmetry.
    pub total_to_goal_reduced: u64,
    /// Whether the goal is reachable.
    pub solvable: bool,
    /// Distinct solutions (move sequences), as a decimal string; `null`
    /// when not counted (`--no-solutions`).
    pub solutions: Option<String>,
    /// Fewest pegs reachable.
    pub best_pegs: u32,
    /// Positions with the fewest pegs, up to symmetry.
    pub final_positions_reduced: u64,
    /// Those positions (notation), up to a cap.
    pub final_positions: Vec<String>,
    /// Bytes of the stored layers at their largest.
    pub table_bytes: usize,
    /// Wall time in milliseconds.
    pub time_ms: f64,
    /// Peak resident memory of the process in bytes (Linux).
    pub peak_memory_bytes: Option<u64>,
}

/// What [`count`] enumerates.
#[derive(Clone, Copy, Debug)]
pub struct CountOptions {
    /// Memory budget of the stored layers in bytes.
    pub max_bytes: usize,
    /// Only the positions that reach the goal (and the solutions): the
    /// search meets in the middle and skips most of the reachable graph.
    pub goal_only: bool,
    /// Count the solutions (with `goal_only` off this is always done).
    pub solutions: bool,
    /// Worker threads of the count (1 to [`MAX_THREADS`]); `None`: the
    /// global pool (all cores, or `RAYON_NUM_THREADS`).
    pub threads: Option<usize>,
}

/// Most worker threads [`CountOptions::threads`] accepts.
pub const MAX_THREADS: usize = 1024;

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions {
            max_bytes: LayeredOptions::default().max_bytes,
            goal_only: false,
            solutions: true,
            threads: None,
        }
    }
}

/// Enumerates the reachable graph (see `endgame_core::layered`): all of
/// it, or with `goal_only` the part that reaches the goal.
pub fn count(
    problem: &AnyProblem,
    opts: CountOptions,
    progress: &dyn Progress,
) -> Result<CountReport, PegError> {
    count_with_extra(problem, opts, None, progress).map(|(report, _)| report)
}

/// [`count`], and the counts `extra` asks for ([`extra_counts`]) from the
/// goal-reaching layers the same enumeration kept, so that they are not
/// enumerated twice. The count's threads serve both. The extra counts'
/// own error (a budget they ran out of) comes beside the count's report.
#[allow(clippy::type_complexity)]
pub fn count_with_extra(
    problem: &AnyProblem,
    opts: CountOptions,
    extra: Option<&ExtraOptions>,
    progress: &dyn Progress,
) -> Result<(CountReport, Option<Result<Extra, PegError>>), PegError> {
    let extra = extra.filter(|e| !e.is_empty());
    on_threads(
        opts.threads,
        || with_problem!(problem, p => count_typed(p, opts, extra, progress)),
    )
}

/// Runs `f` on a pool of `threads` workers (every parallel step inside it
/// runs there), or on the global pool when `None`.
pub(crate) fn on_threads<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> Result<R, PegError> + Send,
) -> Result<R, PegError> {
    let Some(n) = threads else {
        return f();
    };
    if n == 0 || n > MAX_THREADS {
        return Err(PegError::Budget(format!(
            "threads {n} out of range 1..={MAX_THREADS}"
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| PegError::Budget(format!("cannot start {n} threads: {e}")))?;
    pool.install(f)
}

#[allow(clippy::type_complexity)]
fn count_typed<B: Bits>(
    p: &PegSolitaire<B>,
    opts: CountOptions,
    extra: Option<&ExtraOptions>,
    progress: &dyn Progress,
) -> Result<(CountReport, Option<Result<Extra, PegError>>), PegError> {
    let t0 = Instant::now();
    let mut r = layered::enumerate(
        p,
        &LayeredOptions {
            max_bytes: opts.max_bytes,
            count_all: !opts.goal_only,
            // Goal-only: what cannot reach the goal is not kept (the
            // goal-reaching counts and solutions stay exact).
            prune: opts.goal_only,
            count_solutions: opts.solutions || !opts.goal_only,
            keep_goal_layers: extra.is_some(),
            // The report has no counts by first move.
            first_moves: false,
            ..LayeredOptions::default()
        },
        progress,
    )
    .map_err(|e| PegError::Budget(format!("count stopped: {e}")))?;
    let mut report = count_report(p, &r, t0);
    if opts.goal_only && !opts.solutions {
        // Some routes count them on the way; unasked, they are not shown
        // (the same report whichever route ran).
        report.solutions = None;
    }
    let extra = extra.map(|e| {
        let t1 = Instant::now();
        let (reachable, kept) = (r.goal_reachable, std::mem::take(&mut r.goal_layers));
        drop(r);
        let layers = crate::counts::all_goal_layers(p, reachable, kept)?;
        crate::counts::extra_over(p, &layers, e, progress, t1)
    });
    Ok((report, extra))
}

/// The report of a layered enumeration of `p` begun at `t0`: what
/// [`count`] returns, for an enumeration run elsewhere (the count across
/// processes of the `endgame-cluster` crate).
pub fn count_report<B: Bits>(
    p: &PegSolitaire<B>,
    r: &LayeredReport<B>,
    t0: Instant,
) -> CountReport {
    let start_pegs = p.start().count();
    let layers: Vec<CountLayer> = r
        .layers
        .iter()
        .map(|l| CountLayer {
            pegs: start_pegs - l.depth as u32,
            positions: l.raw,
            positions_reduced: l.reduced,
            to_goal: l.to_goal_raw,
            to_goal_reduced: l.to_goal_reduced,
        })
        .collect();
    CountReport {
        board: p.board().name().to_string(),
        start: p.format_position(&p.start()),
        goal: goal_text(p),
        symmetries: p.symmetry_count(),
        total_positions: layers.iter().map(|l| l.positions).sum(),
        total_positions_reduced: layers.iter().map(|l| l.positions_reduced).sum(),
        total_to_goal: layers.iter().map(|l| l.to_goal).sum(),
        total_to_goal_reduced: layers.iter().map(|l| l.to_goal_reduced).sum(),
        layers,
        solvable: r.goal_reachable,
        complete: r.complete,
        solutions: r.solutions.map(|n| n.to_string()),
        best_pegs: r.best_score,
        final_positions_reduced: r.best_count,
        final_positions: r
            .best_positions
            .iter()
            .map(|q| p.format_position(q))
            .collect(),
        table_bytes: r.table_bytes,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
        peak_memory_bytes: r.peak_rss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::budget::Budget as CoreBudget;
    use std::time::Duration;

    #[test]
    fn a_core_budget_becomes_the_solve_budget() {
        let core = CoreBudget::time(Duration::from_secs(5))
            .with_nodes(1234)
            .with_memory(32 << 20);
        let b = Budget::from(&core);
        assert_eq!(b.max_expansions, 1234);
        assert_eq!(b.max_memo_entries, (32 << 20) / MEMO_ENTRY_BYTES);
        assert_eq!(b.deadline, core.deadline);
        assert_eq!(b.seed, Budget::default().seed);
        assert!(!b.stop());
        core.cancel.cancel();
        assert!(b.cancel.is_cancelled() && b.stop());
        let free = Budget::from(&CoreBudget::unlimited());
        assert_eq!(free.max_expansions, Budget::default().max_expansions);
        assert_eq!(free.max_memo_entries, Budget::default().max_memo_entries);
        assert!(free.deadline.is_none());
    }

    #[test]
    fn a_stopped_budget_leaves_the_solve_undecided() {
        let english = build(&Spec::named("english")).expect("a problem");
        let cancelled = Budget::default();
        cancelled.cancel.cancel();
        let past = Budget {
            deadline: Some(Instant::now()),
            ..Budget::default()
        };
        for b in [&cancelled, &past] {
            for method in [Method::Dfs, Method::Astar, Method::Genetic] {
                let r = solve(&english, method, b);
                assert_eq!((r.solvable, r.value), (None, "unknown"), "{method:?}");
                assert_eq!(r.expansions, 0);
            }
        }
        // With time to spare the same call solves it.
        let roomy = Budget::from(&CoreBudget::time(Duration::from_secs(600)));
        let r = solve(&english, Method::Dfs, &roomy);
        assert_eq!((r.solvable, r.value), (Some(true), "solvable"));
        assert_eq!(r.line.len(), 31);
    }

    #[test]
    fn the_searcher_stops_itself_at_the_deadline() {
        // Without pruning, the proof that the French board's central
        // problem is impossible takes the depth-first search far longer
        // than the deadline.
        let spec = Spec {
            pruning: Pruning {
                classes: false,
                pagodas: false,
            },
            ..Spec::named("french")
        };
        let p = build(&spec).expect("a problem");
        let t0 = Instant::now();
        let b = Budget::from(&CoreBudget::time(Duration::from_millis(100)));
        let r = solve_goal_only(&p, Method::Dfs, &b);
        let took = t0.elapsed();
        assert_eq!(r.solvable, None, "{r:?}");
        assert!(r.expansions > 0 && r.expansions < b.max_expansions, "{r:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        // A cancel from another thread stops it as well.
        let b = Budget::default();
        let token = b.cancel.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            token.cancel();
        });
        let t0 = Instant::now();
        let r = solve_goal_only(&p, Method::Dfs, &b);
        stopper.join().expect("the stopper");
        assert_eq!(r.solvable, None, "{r:?}");
        assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    }

    #[test]
    fn the_built_in_boards_are_listed_with_their_starts() {
        let boards = boards();
        let names: Vec<&str> = boards.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            ["english", "french", "wiegleb", "diamond", "triangle"]
        );
        let english = &boards[0];
        assert_eq!(english.holes, 33);
        assert_eq!(english.symmetries, 8);
        assert_eq!(english.default_vacancies, ["d4"]);
    }
}
