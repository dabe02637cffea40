//! Memoised depth-first search for puzzles.
//!
//! Two questions, one engine:
//! - [`solve`]: is a goal reachable? Depth-first with early stop at the
//!   goal, pruning by [`Puzzle::cannot_reach_goal`], and a set of fully
//!   explored (dead) canonical positions. If the goal is unreachable it goes
//!   on to the best result.
//! - [`best`]: the lowest score reachable and a line to it, memoising the
//!   exact best score of every fully explored canonical position.
//!
//! Tables are bounded by [`DfsOptions::max_memo_entries`]; when full, the
//! search stays exact and only gets slower.

use crate::hash::{FxHashMap, FxHashSet};
use crate::memory::hash_table_bytes;
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
}

impl Default for DfsOptions {
    fn default() -> Self {
        DfsOptions {
            use_symmetry: true,
            use_pruning: true,
            max_memo_entries: 50_000_000,
            max_expansions: None,
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

struct Budget {
    expansions: u64,
    limit: u64,
    aborted: bool,
}

impl Budget {
    fn spend(&mut self) -> bool {
        if self.expansions >= self.limit {
            self.aborted = true;
        }
        if !self.aborted {
            self.expansions += 1;
        }
        !self.aborted
    }
}

fn key<P: Symmetric>(p: &P, pos: &P::Position, sym: bool) -> P::Position {
    if sym {
        p.canonical(pos)
    } else {
        *pos
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
    let mut dead = FxHashSet::default();
    let mut budget = Budget {
        expansions: 0,
        limit: opts.max_expansions.unwrap_or(u64::MAX),
        aborted: false,
    };
    let mut line = Vec::new();
    // The lowest score met on the way, with its line: what an undecided
    // search reports.
    let mut seen = (puzzle.score(start), Vec::new());
    let found = if puzzle.is_goal(start) {
        true
    } else if opts.use_pruning && puzzle.cannot_reach_goal(start) {
        false
    } else {
        let mut search = GoalSearch {
            puzzle,
            opts,
            dead: &mut dead,
            budget: &mut budget,
            path: &mut line,
            seen: &mut seen,
        };
        search.dfs(start)
    };
    if found {
        let end = line
            .iter()
            .fold(*start, |p, &m| puzzle.play_unchecked(&p, m));
        return DfsReport {
            best_score: puzzle.score(&end),
            reached_goal: true,
            line,
            expansions: budget.expansions,
            complete: true,
            memo_entries: dead.len(),
            memo_bytes: hash_table_bytes(dead.len(), std::mem::size_of::<P::Position>()),
        };
    }
    let goal_expansions = budget.expansions;
    let goal_memo = dead.len();
    let goal_aborted = budget.aborted;
    drop(dead);
    let remaining = opts
        .max_expansions
        .map(|l| l.saturating_sub(goal_expansions));
    let mut report = best(
        puzzle,
        start,
        &DfsOptions {
            max_expansions: remaining,
            ..opts.clone()
        },
    );
    report.expansions += goal_expansions;
    report.complete &= !goal_aborted;
    if seen.0 < report.best_score {
        (report.best_score, report.line) = seen;
    }
    report.memo_entries = report.memo_entries.max(goal_memo);
    report
}

/// The state of the goal search: the current path from the start (the
/// line once a goal is found) and the best position met so far.
struct GoalSearch<'a, P: Puzzle> {
    puzzle: &'a P,
    opts: &'a DfsOptions,
    dead: &'a mut FxHashSet<P::Position>,
    budget: &'a mut Budget,
    path: &'a mut Vec<P::Move>,
    seen: &'a mut (u32, Vec<P::Move>),
}

impl<P: Puzzle + Symmetric> GoalSearch<'_, P> {
    fn dfs(&mut self, pos: &P::Position) -> bool {
        if !self.budget.spend() {
            return false;
        }
        let (puzzle, opts) = (self.puzzle, self.opts);
        let score = puzzle.score(pos);
        if score < self.seen.0 {
            *self.seen = (score, self.path.clone());
        }
        // The children worth trying, best first by the puzzle's hint.
        let mut children: Vec<(i64, P::Move, P::Position)> = Vec::new();
        let mut found = None;
        puzzle.for_each_move(pos, |m| {
            if found.is_some() {
                return;
            }
            let child = puzzle.play_unchecked(pos, m);
            if puzzle.is_goal(&child) {
                found = Some(m);
            } else if !(opts.use_pruning && puzzle.cannot_reach_goal(&child)) {
                children.push((puzzle.search_order(&child), m, child));
            }
        });
        if let Some(m) = found {
            self.path.push(m);
            return true;
        }
        children.sort_by_key(|c| c.0);
        for (_, m, child) in children {
            let k = key(puzzle, &child, opts.use_symmetry);
            if self.dead.contains(&k) {
                continue;
            }
            self.path.push(m);
            if self.dfs(&child) {
                return true;
            }
            self.path.pop();
            if self.budget.aborted {
                return false;
            }
            if self.dead.len() < opts.max_memo_entries {
                self.dead.insert(k);
            }
        }
        false
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
/// is the objective's minimum.
pub fn best_by<P: Puzzle + Symmetric>(
    puzzle: &P,
    start: &P::Position,
    opts: &DfsOptions,
    objective: impl Fn(&P::Position) -> u32,
    stop_at: u32,
) -> DfsReport<P::Move> {
    let mut memo: FxHashMap<P::Position, u32> = FxHashMap::default();
    let mut budget = Budget {
        expansions: 0,
        limit: opts.max_expansions.unwrap_or(u64::MAX),
        aborted: false,
    };
    let mut line = Vec::new();
    let ctx = Ctx {
        puzzle,
        opts,
        objective: &objective,
        stop_at,
    };
    let best_score = best_dfs(&ctx, start, &mut memo, &mut budget, &mut line);
    line.reverse();
    let end = line
        .iter()
        .fold(*start, |p, &m| puzzle.play_unchecked(&p, m));
    debug_assert_eq!(objective(&end), best_score);
    DfsReport {
        best_score,
        reached_goal: puzzle.is_goal(&end),
        line,
        expansions: budget.expansions,
        complete: !budget.aborted,
        memo_entries: memo.len(),
        memo_bytes: hash_table_bytes(memo.len(), std::mem::size_of::<(P::Position, u32)>()),
    }
}

/// Returns the best score in `pos`'s subtree and pushes (reversed) the
/// moves to it. Memo entries hold exact values of fully explored positions.
struct Ctx<'a, P: Puzzle, F> {
    puzzle: &'a P,
    opts: &'a DfsOptions,
    objective: &'a F,
    stop_at: u32,
}

fn best_dfs<P: Puzzle + Symmetric, F: Fn(&P::Position) -> u32>(
    ctx: &Ctx<'_, P, F>,
    pos: &P::Position,
    memo: &mut FxHashMap<P::Position, u32>,
    budget: &mut Budget,
    line: &mut Vec<P::Move>,
) -> u32 {
    let Ctx {
        puzzle,
        opts,
        objective,
        stop_at,
    } = *ctx;
    let mut best = objective(pos);
    if best <= stop_at || !budget.spend() {
        return best;
    }
    let mut moves = Vec::new();
    puzzle.for_each_move(pos, |m| moves.push(m));
    let mut best_line: Vec<P::Move> = Vec::new();
    for m in moves {
        let child = puzzle.play_unchecked(pos, m);
        let k = key(puzzle, &child, opts.use_symmetry);
        let mut sub = Vec::new();
        let v = match memo.get(&k) {
            // A memoised value only helps us skip if it cannot improve;
            // otherwise re-descend to recover the line (cheap: memo hits).
            Some(&v) if v >= best => continue,
            _ => {
                let v = best_dfs(ctx, &child, memo, budget, &mut sub);
                if !budget.aborted && memo.len() < opts.max_memo_entries {
                    memo.insert(k, v);
                }
                v
            }
        };
        if v < best {
            best = v;
            sub.push(m);
            best_line = sub;
        }
        if best <= stop_at || budget.aborted {
            break;
        }
    }
    line.extend(best_line);
    best
}
