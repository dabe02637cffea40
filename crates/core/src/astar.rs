//! Best-first (A*) search with pluggable heuristics.
//!
//! The frontier is ordered by `g_weight · moves so far + h(position)`:
//! `g_weight = 1` is A*, `g_weight = 0` greedy best-first (what the
//! peg-solitaire study used; all of its solutions have the same length, so
//! the move count does not discriminate). Visited positions are kept up to
//! symmetry; pruning by [`Puzzle::cannot_reach_goal`] is optional.

use crate::budget::Budget;
use crate::hash::FxHashSet;
use crate::memory::hash_table_bytes;
use crate::{Puzzle, Symmetric};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An estimate of how far a position is from the goal (lower is closer).
pub trait Heuristic<P: Puzzle> {
    /// The estimate for `pos`.
    fn estimate(&self, puzzle: &P, pos: &P::Position) -> i64;
}

impl<P: Puzzle, F: Fn(&P, &P::Position) -> i64> Heuristic<P> for F {
    fn estimate(&self, puzzle: &P, pos: &P::Position) -> i64 {
        self(puzzle, pos)
    }
}

/// Switches and budgets of a best-first search.
#[derive(Clone, Debug)]
pub struct AstarOptions {
    /// Weight of the moves made so far in the priority (0: greedy).
    pub g_weight: i64,
    /// Identify positions equivalent under the puzzle's symmetries.
    pub use_symmetry: bool,
    /// Skip positions that [`Puzzle::cannot_reach_goal`] rules out.
    pub use_pruning: bool,
    /// Stop after this many expansions.
    pub max_expansions: u64,
    /// The caller's budget: the search also stops at its deadline, its
    /// cancel token and its node limit (looked at every
    /// [`CHECK_EVERY`] expansions), and before its stores would outgrow
    /// its memory (looked at whenever a store is about to grow).
    pub budget: Budget,
}

/// Expansions between two looks at the budget's deadline and token.
pub const CHECK_EVERY: u64 = 4096;

impl Default for AstarOptions {
    fn default() -> Self {
        AstarOptions {
            g_weight: 0,
            use_symmetry: true,
            use_pruning: true,
            max_expansions: 10_000_000,
            budget: Budget::unlimited(),
        }
    }
}

/// What a best-first search found.
#[derive(Clone, Debug)]
pub struct AstarReport<M> {
    /// Moves from the start to a goal, if one was reached.
    pub line: Option<Vec<M>>,
    /// Positions taken off the frontier and expanded.
    pub expansions: u64,
    /// Whether the frontier was exhausted (so no goal is reachable, given
    /// the pruning) rather than the budget.
    pub exhausted: bool,
    /// Positions recorded as visited.
    pub visited: usize,
    /// Estimated bytes of the visited set and the node store.
    pub memory_bytes: usize,
    /// Whether the search stopped because growing a store would have
    /// taken it past the budget's memory.
    pub out_of_memory: bool,
}

/// Bytes the three stores of a search may hold while one of them grows:
/// each store is `(len, capacity, bytes at capacity)`, and a full store
/// grows by allocating a buffer twice its size while the old one is still
/// held.
fn growth_peak(stores: [(usize, usize, usize); 3]) -> usize {
    let now: usize = stores.iter().map(|s| s.2).sum();
    let growing: usize = stores
        .iter()
        .filter(|s| s.0 >= s.1)
        .map(|s| 2 * s.2.max(64))
        .sum();
    now + growing
}

/// Best-first search from `start` for a goal position.
pub fn search<P, H>(
    puzzle: &P,
    start: &P::Position,
    h: &H,
    opts: &AstarOptions,
) -> AstarReport<P::Move>
where
    P: Puzzle + Symmetric,
    H: Heuristic<P>,
{
    let key = |p: &P::Position| {
        if opts.use_symmetry {
            puzzle.canonical(p)
        } else {
            *p
        }
    };
    // Node store: position, parent index, move from the parent.
    let mut nodes: Vec<(P::Position, usize, Option<P::Move>)> = vec![(*start, usize::MAX, None)];
    let mut visited = FxHashSet::default();
    visited.insert(key(start));
    // Ties break by insertion order (lower index first) for determinism.
    let mut frontier = BinaryHeap::new();
    frontier.push(Reverse((h.estimate(puzzle, start), 0usize, 0u32)));
    let mut expansions = 0;
    let limit = opts
        .budget
        .nodes
        .map_or(opts.max_expansions, |n| n.min(opts.max_expansions));
    let mut found = None;
    let (mut stopped, mut out_of_memory) = (false, false);
    let node_bytes = std::mem::size_of::<(P::Position, usize, Option<P::Move>)>();
    let entry_bytes = std::mem::size_of::<Reverse<(i64, usize, u32)>>();
    let key_bytes = std::mem::size_of::<P::Position>();
    if puzzle.is_goal(start) {
        found = Some(0);
    }
    while found.is_none() {
        let Some(Reverse((_, idx, g))) = frontier.pop() else {
            break;
        };
        if expansions >= limit || (expansions % CHECK_EVERY == 0 && opts.budget.stop()) {
            // The popped node is unexpanded: not exhausted.
            stopped = true;
            break;
        }
        expansions += 1;
        let pos = nodes[idx].0;
        let mut moves = Vec::new();
        puzzle.for_each_move(&pos, |m| moves.push(m));
        for m in moves {
            let child = puzzle.play_unchecked(&pos, m);
            if opts.use_pruning && !puzzle.is_goal(&child) && puzzle.cannot_reach_goal(&child) {
                continue;
            }
            // The memory budget holds before any store grows: a store at
            // its capacity would grow on the next insert.
            if let Some(limit) = opts.budget.memory {
                let full = visited.len() >= visited.capacity()
                    || nodes.len() >= nodes.capacity()
                    || frontier.len() >= frontier.capacity();
                if full
                    && growth_peak([
                        (
                            visited.len(),
                            visited.capacity(),
                            hash_table_bytes(visited.capacity(), key_bytes),
                        ),
                        (nodes.len(), nodes.capacity(), nodes.capacity() * node_bytes),
                        (
                            frontier.len(),
                            frontier.capacity(),
                            frontier.capacity() * entry_bytes,
                        ),
                    ]) > limit
                {
                    stopped = true;
                    out_of_memory = true;
                    break;
                }
            }
            if !visited.insert(key(&child)) {
                continue;
            }
            nodes.push((child, idx, Some(m)));
            let ci = nodes.len() - 1;
            if puzzle.is_goal(&child) {
                found = Some(ci);
                break;
            }
            let f = opts.g_weight * (g as i64 + 1) + h.estimate(puzzle, &child);
            frontier.push(Reverse((f, ci, g + 1)));
        }
        if out_of_memory {
            break;
        }
    }
    let line = found.map(|mut i| {
        let mut line = Vec::new();
        while let Some(m) = nodes[i].2 {
            line.push(m);
            i = nodes[i].1;
        }
        line.reverse();
        line
    });
    let exhausted = line.is_none() && !stopped && frontier.is_empty();
    AstarReport {
        line,
        expansions,
        exhausted,
        visited: visited.len(),
        memory_bytes: hash_table_bytes(visited.len(), std::mem::size_of::<P::Position>())
            + nodes.capacity() * std::mem::size_of::<(P::Position, usize, Option<P::Move>)>()
            + frontier.capacity() * std::mem::size_of::<(i64, usize, u32)>(),
        out_of_memory,
    }
}
