//! Goal tables: every position within a few moves of a goal, found by
//! searching backwards from the goals.
//!
//! For puzzles whose every move lowers the score by exactly one (peg
//! solitaire, Martello), the positions scoring at most
//! `score_bound + depth` that can reach a goal are exactly the canonical
//! ancestors of the goals up to `depth` moves back. A depth-first search
//! that reaches that score then needs one look-up instead of a subtree:
//! the meet-in-the-middle of bidirectional search.

use crate::hash::FxHashSet;
use crate::memory::hash_table_bytes;
use crate::{Puzzle, Reversible, Symmetric};
use rayon::prelude::*;

/// The goal-reaching positions near the goals, up to symmetry.
#[derive(Clone, Debug)]
pub struct GoalTable<P> {
    set: FxHashSet<P>,
    max_score: u32,
}

impl<P: Copy + Eq + std::hash::Hash + Ord + Send + Sync> GoalTable<P> {
    /// Builds the table backwards from the goals of `puzzle`, adding whole
    /// layers while the total stays within `max_entries`. Requires that
    /// every move lowers [`Puzzle::score`] by exactly one.
    pub fn build<Z>(puzzle: &Z, max_entries: usize) -> GoalTable<P>
    where
        Z: Reversible<Position = P> + Symmetric,
    {
        let mut layer: Vec<P> = puzzle.goals().iter().map(|g| puzzle.canonical(g)).collect();
        layer.sort_unstable();
        layer.dedup();
        let mut max_score = layer
            .iter()
            .map(|g| puzzle.score(g))
            .max()
            .unwrap_or(puzzle.score_bound());
        let mut set: FxHashSet<P> = layer.iter().copied().collect();
        loop {
            let mut next: Vec<P> = layer
                .par_chunks(1024)
                .flat_map_iter(|chunk| {
                    let mut out = Vec::new();
                    for q in chunk {
                        puzzle.for_each_parent(q, |p| out.push(puzzle.canonical(&p)));
                    }
                    out
                })
                .collect();
            next.par_sort_unstable();
            next.dedup();
            if next.is_empty() || set.len() + next.len() > max_entries {
                break;
            }
            set.extend(next.iter().copied());
            layer = next;
            max_score += 1;
        }
        GoalTable { set, max_score }
    }

    /// Highest score the table decides.
    pub fn max_score(&self) -> u32 {
        self.max_score
    }

    /// Entries in the table.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether the table is empty (no goals).
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Estimated bytes.
    pub fn bytes(&self) -> usize {
        hash_table_bytes(self.set.len(), std::mem::size_of::<P>())
    }

    /// For a position scoring at most [`GoalTable::max_score`], whether it
    /// can reach a goal; `None` for higher scores.
    pub fn decides<Z>(&self, puzzle: &Z, pos: &P) -> Option<bool>
    where
        Z: Puzzle<Position = P> + Symmetric,
    {
        (puzzle.score(pos) <= self.max_score).then(|| self.set.contains(&puzzle.canonical(pos)))
    }

    /// A line from a position the table says reaches a goal, down to it.
    pub fn line_to_goal<Z>(&self, puzzle: &Z, pos: &P) -> Option<Vec<Z::Move>>
    where
        Z: Puzzle<Position = P> + Symmetric,
    {
        let mut line = Vec::new();
        let mut cur = *pos;
        while !puzzle.is_goal(&cur) {
            let mut step = None;
            puzzle.for_each_move(&cur, |m| {
                if step.is_none() {
                    let c = puzzle.play_unchecked(&cur, m);
                    if self.set.contains(&puzzle.canonical(&c)) {
                        step = Some((m, c));
                    }
                }
            });
            let (m, c) = step?;
            line.push(m);
            cur = c;
        }
        Some(line)
    }
}
