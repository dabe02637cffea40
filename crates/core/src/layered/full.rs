//! The full run: the entry point [`enumerate`], and the enumeration of
//! every reachable layer forward followed by the counted backward pass,
//! keeping the best positions seen.

use super::ctx::Ctx;
use super::layer::Layer;
use super::meet::meet_in_middle;
use super::options::{LayerStats, LayeredError, LayeredOptions, LayeredReport, Progress};
use crate::memory::peak_rss_bytes;
use crate::{Puzzle, Reversible, Symmetric};
use rayon::prelude::*;
use std::hash::Hash;

/// Lowest score, and the positions with it (at most `cap` kept, all
/// counted), over the layers seen so far.
pub struct Best<T> {
    /// The lowest score seen.
    pub score: u32,
    /// Positions with that score, at most `cap`, in the order seen.
    pub positions: Vec<T>,
    /// Positions with that score.
    pub count: u64,
    /// Most positions kept.
    pub cap: usize,
}

impl<T: Copy> Best<T> {
    /// Nothing seen yet; keeps at most `cap` positions.
    pub fn new(cap: usize) -> Self {
        Best {
            score: u32::MAX,
            positions: Vec::new(),
            count: 0,
            cap,
        }
    }

    /// Takes in a layer whose lowest score is `low` (`None`: empty), its
    /// members in a fixed order.
    pub fn add_members<'a, P: Puzzle<Position = T>>(
        &mut self,
        puzzle: &P,
        low: Option<u32>,
        members: impl Iterator<Item = &'a T>,
    ) where
        T: 'a,
    {
        let Some(s) = low.filter(|&s| s <= self.score) else {
            return;
        };
        if s < self.score {
            self.score = s;
            self.positions.clear();
            self.count = 0;
        }
        for p in members {
            if puzzle.score(p) == s {
                self.count += 1;
                if self.positions.len() < self.cap {
                    self.positions.push(*p);
                }
            }
        }
    }
}

impl<T: Copy + Ord + Hash + Send + Sync> Best<T> {
    /// [`Best::add_members`] for a whole layer: the lowest score and how
    /// many have it in one parallel pass, then the first `cap` of them in
    /// order (the pass in order stops there; it used to read every member
    /// on one thread, every layer).
    pub(super) fn add<P: Puzzle<Position = T>>(&mut self, puzzle: &P, layer: &Layer<T>) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let (low, n) = layer.par_iter().map(|p| (puzzle.score(p), 1u64)).reduce(
            || (u32::MAX, 0),
            |a, b| match a.0.cmp(&b.0) {
                Less => a,
                Greater => b,
                Equal => (a.0, a.1 + b.1),
            },
        );
        if n == 0 || low > self.score {
            return;
        }
        if low < self.score {
            self.score = low;
            self.positions.clear();
            self.count = 0;
        }
        self.count += n;
        let room = self.cap.saturating_sub(self.positions.len());
        self.positions.extend(
            layer
                .iter()
                .filter(|p| puzzle.score(p) == low)
                .take(room)
                .copied(),
        );
    }
}

/// Enumerates every position reachable from the puzzle's start, layer by
/// layer, up to symmetry; with `opts.backward`, also the positions that can
/// reach a goal and the number of solutions. With `opts.count_all` off,
/// only the latter are computed, from both ends (see the module
/// documentation).
pub fn enumerate<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    progress: &dyn Progress,
) -> Result<LayeredReport<P::Position>, LayeredError>
where
    P: Reversible + Symmetric,
{
    if !opts.count_all {
        if let Some(r) = meet_in_middle(puzzle, opts, progress)? {
            return Ok(r);
        }
    }
    full(puzzle, opts, progress)
}

/// The canonical goals, each with the layer it lies in (by score).
pub fn goals_by_depth<P: Reversible + Symmetric>(puzzle: &P) -> Vec<(usize, P::Position)> {
    let s0 = puzzle.score(&puzzle.start());
    let mut goals: Vec<(usize, P::Position)> = puzzle
        .goals()
        .iter()
        .filter(|g| puzzle.score(g) <= s0)
        .map(|g| ((s0 - puzzle.score(g)) as usize, puzzle.canonical(g)))
        .collect();
    goals.sort_unstable();
    goals.dedup();
    goals
}

/// Whether the start provably cannot reach any goal.
pub fn hopeless<P: Puzzle + Symmetric>(puzzle: &P) -> bool {
    let start = puzzle.start();
    !puzzle.is_goal(&start) && puzzle.cannot_reach_goal(&start)
}

/// The whole reachable graph, forward, then the backward pass over it.
pub(super) fn full<P: Reversible + Symmetric>(
    puzzle: &P,
    opts: &LayeredOptions,
    progress: &dyn Progress,
) -> Result<LayeredReport<P::Position>, LayeredError> {
    let start = puzzle.canonical(&puzzle.start());
    // Without a backward pass only the newest layer is needed; so too when
    // the goal is provably out of reach (the French central game).
    let unreachable = hopeless(puzzle);
    let keep = opts.backward && !unreachable;
    let mut layers: Vec<Layer<P::Position>> = vec![Layer::single(start)];
    let mut stats = vec![LayerStats {
        depth: 0,
        reduced: 1,
        raw: puzzle.orbit_size(&start) as u64,
        ..Default::default()
    }];
    let mut best = Best::new(opts.max_final_positions);
    best.add(puzzle, &layers[0]);
    let mut goal_reachable = puzzle.is_goal(&start);
    let mut stored = layers[0].bytes();
    let mut table_bytes = stored;
    let mut bitmap_bytes = 0;
    let mut distinct = 1.0;
    loop {
        // The depth of the layer being built (layers may be dropped).
        let depth = stats.len();
        let parents = layers.last().expect("at least the start layer");
        progress.phase(&format!("layer {depth}"), parents.len() as u64);
        let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, true);
        let (next, raw, share, map_bytes) = ctx.forward(parents, depth, true)?;
        bitmap_bytes = bitmap_bytes.max(map_bytes);
        if next.len() == 0 {
            break;
        }
        distinct = share;
        stored += next.bytes();
        if stored > opts.max_bytes {
            return Err(ctx.budget_error(depth, stored));
        }
        table_bytes = table_bytes.max(stored);
        best.add(puzzle, &next);
        goal_reachable |= next.par_iter().any(|p| puzzle.is_goal(p));
        stats.push(LayerStats {
            depth,
            reduced: next.len() as u64,
            raw,
            ..Default::default()
        });
        if keep {
            layers.push(next);
        } else {
            let old = std::mem::replace(layers.last_mut().expect("a layer"), next);
            stored -= old.bytes();
        }
    }

    let mut solutions = None;
    let mut child_solutions = Vec::new();
    let mut goal_layers = Vec::new();
    if opts.backward && unreachable {
        solutions = Some(0);
    } else if opts.backward {
        let ctx = Ctx::new(puzzle, opts, progress, stored, 1.0, true);
        let goals = goals_by_depth(puzzle);
        let pass =
            ctx.counted_backward(&goals, |d| &layers[d], &mut stats, opts.keep_goal_layers)?;
        solutions = Some(pass.solutions);
        child_solutions = pass.child_solutions;
        if stats.first().is_some_and(|s| s.to_goal_reduced > 0) {
            goal_layers = pass.goal_layers;
        }
    }
    best.positions.sort_unstable();
    child_solutions.sort_unstable();
    Ok(LayeredReport {
        layers: stats,
        goal_reachable,
        solutions,
        best_score: best.score,
        best_positions: best.positions,
        best_count: best.count,
        child_solutions,
        goal_layers,
        table_bytes,
        bitmap_bytes,
        peak_rss: peak_rss_bytes(),
        complete: !opts.prune,
    })
}
