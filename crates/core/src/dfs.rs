//! Memoised depth-first search for puzzles.
//!
//! Two questions, one engine:
//! - [`solve`]: is a goal reachable? Depth-first with early stop at the
//!   goal, pruning by [`Puzzle::cannot_reach_goal`], and a memo of fully
//!   explored (dead) canonical positions. If the goal is unreachable it goes
//!   on to the best result.
//! - [`best`]: the lowest score reachable and a line to it, memoising the
//!   exact best score of every fully explored canonical position.
//!
//! Tables are bounded by [`DfsOptions::max_memo_entries`]; when full, the
//! search stays exact and only gets slower.
//!
//! Both run on [`crate::restarts::Searcher`] (the engine of the restart
//! meta-solver too): one memoised depth-first loop, here with children in
//! [`Puzzle::search_order`] order and no restarts.

use crate::budget::Budget;
use crate::restarts::Searcher;
use crate::{Puzzle, Symmetric};

/// Switches and budgets of a depth-first search.
#[derive(Clone, Debug)]
pub struct DfsOptions {
    /// Identify positions equivalent under the puzzle's symmetries.
    pub use_symmetry: bool,
    /// Skip positions that [`Puzzle::cannot_reach_goal`] rules out.
    pub use_pruning: bool,
    /// Most entries kept in the memo table (memory budget).
    pub max_memo_entries: usize,
    /// Stop (with an incomplete answer) after this many expansions.
    pub max_expansions: Option<u64>,
    /// The caller's budget: the search also stops (incomplete) at its
    /// deadline, its cancel token and its node limit (the smaller of it
    /// and `max_expansions` counts).
    pub budget: Budget,
}

impl Default for DfsOptions {
    fn default() -> Self {
        DfsOptions {
            use_symmetry: true,
            use_pruning: true,
            max_memo_entries: 50_000_000,
            max_expansions: None,
            budget: Budget::unlimited(),
        }
    }
}

/// What a depth-first search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DfsReport<M> {
    /// Lowest score seen on a line from the start (exact when `complete`).
    pub best_score: u32,
    /// Whether the line ends in a goal position.
    pub reached_goal: bool,
    /// Moves from the start to a position with `best_score`.
    pub line: Vec<M>,
    /// Positions whose moves were generated.
    pub expansions: u64,
    /// Whether the search finished (found the goal or exhausted the space)
    /// rather than running out of its expansion budget.
    pub complete: bool,
    /// Entries in the memo table at the end.
    pub memo_entries: usize,
    /// Estimated bytes of the memo table.
    pub memo_bytes: usize,
}

/// The searcher both questions run on: [`Searcher`] keyed by the
/// canonical position (or the position itself), trying children in
/// [`Puzzle::search_order`] order and keeping the best position it met.
fn searcher<'a, P: Puzzle + Symmetric>(
    puzzle: &'a P,
    opts: &DfsOptions,
) -> Searcher<'a, P, P::Position, impl Fn(&P::Position) -> P::Position + 'a> {
    let sym = opts.use_symmetry;
    let key = move |pos: &P::Position| {
        if sym {
            puzzle.canonical(pos)
        } else {
            *pos
        }
    };
    Searcher::new(puzzle, key, opts.max_memo_entries)
        .ordered(true)
        .track_best(true)
}

/// The budget of one run: the caller's, its node limit lowered to
/// `max_expansions`.
fn run_budget(opts: &DfsOptions) -> Budget {
    let nodes = match (opts.max_expansions, opts.budget.nodes) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Budget {
        nodes,
        ..opts.budget.clone()
    }
}

/// Searches for a goal from `start`; if none is reachable, finds the best
/// result instead (see [`best`]). The report's `complete` is false when the
/// expansion budget ran out first.
pub fn solve<P: Puzzle + Symmetric>(
    puzzle: &P,
    start: &P::Position,
    opts: &DfsOptions,
) -> DfsReport<P::Move> {
    let mut s = searcher(puzzle, opts).goal_only().pruning(opts.use_pruning);
    let found = if puzzle.is_goal(start) {
        Some(true)
    } else if opts.use_pruning && puzzle.cannot_reach_goal(start) {
        Some(false)
    } else {
        s.run_within(start, &run_budget(opts), None)
            .map(|v| v <= puzzle.score_bound())
    };
    let goal_expansions = s.expansions;
    let goal_memo = s.memo_entries();
    let goal_bytes = s.memo_bytes();
    match found {
        Some(true) => {
            let line = match s.found_line() {
                Some(l) if !l.is_empty() => l.clone(),
                _ => s.line(start),
            };
            let end = line
                .iter()
                .fold(*start, |p, &m| puzzle.play_unchecked(&p, m));
            DfsReport {
                best_score: puzzle.score(&end),
                reached_goal: true,
                line,
                expansions: goal_expansions,
                complete: true,
                memo_entries: goal_memo,
                memo_bytes: goal_bytes,
            }
        }
        // Undecided: the lowest score met on the way, with its line.
        None => {
            let (best_score, line) = s
                .best_seen()
                .cloned()
                .unwrap_or((puzzle.score(start), Vec::new()));
            DfsReport {
                best_score,
                reached_goal: false,
                line,
                expansions: goal_expansions,
                complete: false,
                memo_entries: goal_memo,
                memo_bytes: goal_bytes,
            }
        }
        Some(false) => {
            drop(s);
            let remaining = run_budget(opts)
                .nodes
                .map(|l| l.saturating_sub(goal_expansions));
            let mut report = best(
                puzzle,
                start,
                &DfsOptions {
                    max_expansions: remaining,
                    budget: Budget {
                        nodes: None,
                        ..opts.budget.clone()
                    },
                    ..opts.clone()
                },
            );
            report.expansions += goal_expansions;
            report.memo_entries = report.memo_entries.max(goal_memo);
            report
        }
    }
}

/// Finds the lowest score reachable from `start` and a line to it, by
/// memoised depth-first search. Stops early once a position with
/// [`Puzzle::score_bound`] is found (nothing can be better).
pub fn best<P: Puzzle + Symmetric>(
    puzzle: &P,
    start: &P::Position,
    opts: &DfsOptions,
) -> DfsReport<P::Move> {
    best_by(
        puzzle,
        start,
        opts,
        |p| puzzle.score(p),
        puzzle.score_bound(),
    )
}

/// Like [`best`], minimising any `objective` that is invariant under the
/// puzzle's symmetries (the genetic search minimises the distance to the
/// goal pattern), stopping early at `stop_at`. The report's `best_score`
/// is the objective's minimum (when the budget runs out: the lowest value
/// met, with its line).
pub fn best_by<P: Puzzle + Symmetric>(
    puzzle: &P,
    start: &P::Position,
    opts: &DfsOptions,
    objective: impl Fn(&P::Position) -> u32,
    stop_at: u32,
) -> DfsReport<P::Move> {
    let mut s = searcher(puzzle, opts).with_objective(&objective, stop_at);
    let value = s.run_within(start, &run_budget(opts), None);
    let (best_score, line) = match value {
        Some(v) => (v, s.line(start)),
        None => s
            .best_seen()
            .cloned()
            .unwrap_or((objective(start), Vec::new())),
    };
    let end = line
        .iter()
        .fold(*start, |p, &m| puzzle.play_unchecked(&p, m));
    debug_assert_eq!(objective(&end), best_score);
    DfsReport {
        best_score,
        reached_goal: puzzle.is_goal(&end),
        line,
        expansions: s.expansions,
        complete: value.is_some(),
        memo_entries: s.memo_entries(),
        memo_bytes: s.memo_bytes(),
    }
}
