//! The full run: the entry point [`enumerate`], and the enumeration of
//! every reachable layer forward followed by the counted backward pass,
//! keeping the best positions seen.

use super::counts::mirrored_pass;
use super::ctx::Ctx;
use super::layer::Layer;
use super::meet::meet_in_middle;
use super::mirror::mirror_depth;
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
        let Some(s) = low.filter(|&s| self.lower_to(s)) else {
            return;
        };
        for p in members {
            if puzzle.score(p) == s {
                self.count += 1;
                if self.positions.len() < self.cap {
                    self.positions.push(*p);
                }
            }
        }
    }

    /// Makes `s` the best score if it is lower (forgetting the positions
    /// kept); whether positions with score `s` are to be taken in.
    fn lower_to(&mut self, s: u32) -> bool {
        if s < self.score {
            self.score = s;
            self.positions.clear();
            self.count = 0;
        }
        s == self.score
    }
}

impl<T: Copy + Ord + Hash + Send + Sync> Best<T> {
    /// [`Best::add_members`] for a whole layer: its lowest score, how
    /// many members have it and whether a member is a goal, in one
    /// parallel pass; then the first members with that score (in the
    /// layer's order) up to the cap, a scan that stops there. A
    /// whole-layer serial scan held the other threads idle. Returns that
    /// score and count (`None`: an empty layer) and whether the layer
    /// holds a goal.
    pub(super) fn add<P: Reversible + Symmetric<Position = T>>(
        &mut self,
        puzzle: &P,
        layer: &Layer<T>,
    ) -> (Option<(u32, u64)>, bool) {
        // A layer whose members all score `s` needs no scoring pass: a
        // goal needs a goal of that score, and the first members are the
        // ones kept.
        let uniform = uniform_score(puzzle, layer);
        let (low, goal) = match uniform {
            Some(s) => (
                Some((s, layer.len() as u64)),
                puzzle.goals().iter().any(|g| puzzle.score(g) == s)
                    && layer.par_iter().any(|p| puzzle.is_goal(p)),
            ),
            None => {
                let scan = layer
                    .par_iter()
                    .map(|p| (puzzle.score(p), 1u64, puzzle.is_goal(p)))
                    .reduce_with(|a, b| {
                        let goal = a.2 | b.2;
                        match a.0.cmp(&b.0) {
                            std::cmp::Ordering::Less => (a.0, a.1, goal),
                            std::cmp::Ordering::Greater => (b.0, b.1, goal),
                            std::cmp::Ordering::Equal => (a.0, a.1 + b.1, goal),
                        }
                    });
                (scan.map(|(s, n, _)| (s, n)), scan.is_some_and(|x| x.2))
            }
        };
        let Some((s, n)) = low.filter(|&(s, _)| self.lower_to(s)) else {
            return (low, goal);
        };
        self.count += n;
        let room = self.cap.saturating_sub(self.positions.len());
        let first = layer
            .iter()
            .filter(|p| uniform.is_some() || puzzle.score(p) == s)
            .take(room);
        self.positions.extend(first.copied());
        (low, goal)
    }
}

/// The score of every member of `layer`, when the layer says it without a
/// look at each: a non-empty ranked layer of a puzzle whose score is its
/// keys' bit count ([`crate::dense::DenseKeys::score_is_bit_count`]).
fn uniform_score<P: Puzzle + Symmetric>(puzzle: &P, layer: &Layer<P::Position>) -> Option<u32> {
    let (k, _) = layer.ranked?;
    let dk = puzzle.dense_keys()?;
    (dk.score_is_bit_count() && layer.len() > 0).then_some(k)
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
    // Whether each layer holds positions of one score, `s0 - depth` (the
    // time reversal pairs depths only then).
    let s0 = puzzle.score(&start);
    let mut scored = true;
    let mut goal_reachable = puzzle.is_goal(&start);
    let mut stored = layers[0].bytes();
    let mut table_bytes = stored;
    let mut bitmap_bytes = 0;
    let mut distinct = 1.0;
    // Where the goal-reaching layers will come from the time reversal, the
    // deeper half's layers keep their bitmaps for its look-ups.
    let goals = goals_by_depth(puzzle);
    let mirror = mirror_depth(puzzle, &goals, opts.prune).filter(|_| keep);
    loop {
        // The depth of the layer being built (layers may be dropped).
        let depth = stats.len();
        let parents = layers.last().expect("at least the start layer");
        progress.phase(&format!("layer {depth}"), parents.len() as u64);
        let mut ctx = Ctx::new(puzzle, opts, progress, stored, distinct, true);
        ctx.keep_reached = mirror.is_some_and(|last| depth > last / 2);
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
        let (low, goal) = best.add(puzzle, &next);
        scored &= low == Some((s0.saturating_sub(depth as u32), next.len() as u64));
        goal_reachable |= goal;
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
        // With a time reversal onto the goal the goal-reaching layers are
        // found by look-ups (see `mirror.rs`), and the pass only counts;
        // from the shallower half alone when neither the first moves'
        // counts nor every depth's layer is wanted.
        progress.phase("goal-reaching", layers.len() as u64);
        let half = !opts.first_moves && !opts.keep_goal_layers;
        let mirrored = if scored {
            ctx.mirrored_goal_layers(&goals, &layers, !half)?
        } else {
            None
        };
        // The exact layers replace the forward ones (freeing them).
        let exact = mirrored.is_some();
        if let Some(good) = mirrored {
            layers = good;
        }
        let held = layers.iter().map(Layer::bytes).sum();
        let ctx = Ctx::new(puzzle, opts, progress, held, 1.0, true);
        let good = |d: usize| &layers[d];
        let pass = match mirror {
            // Only the shallower half was made.
            Some(last) if exact && half => {
                mirrored_pass(&ctx, good, (last / 2, last), &mut stats, (false, true))?
            }
            _ => ctx.counted_backward(&goals, good, &mut stats, opts.keep_goal_layers, exact)?,
        };
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
