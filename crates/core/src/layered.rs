//! Layered enumeration of a puzzle's whole reachable graph.
//!
//! Every move of the puzzles this serves takes a position one layer on
//! (peg solitaire and Martello remove one piece per move), so positions
//! reached after `d` moves form layer `d`. Each layer is kept as a sorted
//! vector of canonical representatives (symmetry-reduced), built by sorting
//! and de-duplicating the children of the previous layer in parallel.
//!
//! A backward pass from the goal positions, run over the parents of the
//! positions known to reach the goal and intersected with the forward
//! layers, yields the positions that can still reach the goal and the exact
//! number of distinct move sequences from each of them to a goal.
//!
//! Symmetry and counting. The puzzle's symmetry group must fix the start
//! and the goal set. Then the reachable set and the number of solutions
//! `N(p)` from `p` are invariant, and for representatives `q` (next layer)
//! and `r` (this layer):
//! `N(r) = [goal r] + (1/|O_r|) * Σ_q N(q)·|O_q|·A(q, r)`, where `A(q, r)`
//! counts the (parent, move) pairs of `q` whose parent is equivalent to `r`
//! and `|O|` are orbit sizes. (Double counting of the group action: both
//! sides count moves from the orbit of `r` into the orbit of `q`.)

use crate::memory::peak_rss_bytes;
use crate::{Puzzle, Reversible, Symmetric};
use rayon::prelude::*;

/// Receives progress reports from long enumerations (for progress bars).
pub trait Progress: Sync {
    /// A new phase begins with `total` units of work.
    fn phase(&self, name: &str, total: u64);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
}

/// A [`Progress`] that ignores everything.
pub struct Silent;

impl Progress for Silent {
    fn phase(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
}

/// Budgets and switches of an enumeration.
#[derive(Clone, Debug)]
pub struct LayeredOptions {
    /// Abort with [`LayeredError::MemoryBudget`] when the stored layers and
    /// buffers would exceed this many bytes.
    pub max_bytes: usize,
    /// Run the backward pass (goal-reaching positions, solution counts).
    pub backward: bool,
    /// Keep at most this many best final positions in the report.
    pub max_final_positions: usize,
}

impl Default for LayeredOptions {
    fn default() -> Self {
        LayeredOptions {
            max_bytes: 8 << 30,
            backward: true,
            max_final_positions: 10_000,
        }
    }
}

/// Why an enumeration stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayeredError {
    /// The memory budget would be exceeded.
    #[error(
        "memory budget of {budget} bytes exceeded at layer {layer} (needs about {needed} bytes)"
    )]
    MemoryBudget {
        /// The budget in bytes.
        budget: usize,
        /// The layer being built.
        layer: usize,
        /// The bytes it would have needed.
        needed: usize,
    },
}

/// Counts of one layer (positions after `depth` moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// Moves from the start.
    pub depth: usize,
    /// Reachable positions, up to symmetry.
    pub reduced: u64,
    /// Reachable positions, all of them (sum of class sizes).
    pub raw: u64,
    /// Reachable positions that can still reach a goal, up to symmetry.
    pub to_goal_reduced: u64,
    /// Reachable positions that can still reach a goal, all of them.
    pub to_goal_raw: u64,
}

/// The result of a layered enumeration.
#[derive(Clone, Debug)]
pub struct LayeredReport<P> {
    /// One entry per layer, from the start (depth 0).
    pub layers: Vec<LayerStats>,
    /// Whether some goal position is reachable.
    pub goal_reachable: bool,
    /// Distinct move sequences from the start to a goal (backward pass).
    pub solutions: Option<u128>,
    /// Lowest score of any reachable position.
    pub best_score: u32,
    /// Canonical reachable positions with the lowest score (up to the cap).
    pub best_positions: Vec<P>,
    /// How many canonical positions have the lowest score.
    pub best_count: u64,
    /// Canonical children of the start with the number of solutions through
    /// each (when the backward pass ran): the data of a hint.
    pub child_solutions: Vec<(P, u128)>,
    /// Bytes held by the stored layers at their largest.
    pub table_bytes: usize,
    /// Peak resident memory of the process, when the platform tells.
    pub peak_rss: Option<u64>,
}

/// Parents processed per batch; bounds the transient children buffer.
const BATCH: usize = 1 << 20;

/// Enumerates every position reachable from the puzzle's start, layer by
/// layer, up to symmetry; with `opts.backward`, also the positions that can
/// reach a goal and the number of solutions.
pub fn enumerate<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    progress: &dyn Progress,
) -> Result<LayeredReport<P::Position>, LayeredError>
where
    P: Reversible + Symmetric,
{
    let psize = std::mem::size_of::<P::Position>();
    let mut layers: Vec<Vec<P::Position>> = vec![vec![puzzle.canonical(&puzzle.start())]];
    let mut stored = psize;
    let mut table_bytes = stored;
    let mut best_score = puzzle.score(&layers[0][0]);
    loop {
        let depth = layers.len();
        let parents = layers.last().expect("at least the start layer");
        progress.phase(&format!("layer {depth}"), parents.len() as u64);
        let next = expand_layer(puzzle, parents, opts, stored, depth, progress)?;
        if next.is_empty() {
            break;
        }
        stored += next.len() * psize;
        table_bytes = table_bytes.max(stored);
        layers.push(next);
    }

    let mut stats: Vec<LayerStats> = layers
        .par_iter()
        .enumerate()
        .map(|(depth, layer)| LayerStats {
            depth,
            reduced: layer.len() as u64,
            raw: layer.par_iter().map(|p| orbit(puzzle, p) as u64).sum(),
            ..Default::default()
        })
        .collect();

    // The best result: lowest score over every layer.
    for layer in &layers {
        if let Some(s) = layer.par_iter().map(|p| puzzle.score(p)).min() {
            best_score = best_score.min(s);
        }
    }
    let mut best_positions = Vec::new();
    let mut best_count = 0u64;
    for layer in &layers {
        for p in layer {
            if puzzle.score(p) == best_score {
                best_count += 1;
                if best_positions.len() < opts.max_final_positions {
                    best_positions.push(*p);
                }
            }
        }
    }
    let goal_reachable = layers
        .par_iter()
        .any(|l| l.par_iter().any(|p| puzzle.is_goal(p)));

    let mut solutions = None;
    let mut child_solutions = Vec::new();
    if opts.backward {
        progress.phase("backward", layers.len() as u64);
        // counts[d]: (representative, solutions from it) for the
        // goal-reaching positions of layer d, sorted by representative.
        let mut next: Vec<(P::Position, u128)> = Vec::new();
        for depth in (0..layers.len()).rev() {
            let here = backward_layer(puzzle, &layers[depth], &next);
            stats[depth].to_goal_reduced = here.len() as u64;
            stats[depth].to_goal_raw = here.par_iter().map(|(p, _)| orbit(puzzle, p) as u64).sum();
            if depth == 1 {
                child_solutions = here.clone();
            }
            if depth == 0 {
                solutions = Some(here.first().map_or(0, |&(_, n)| n));
            }
            next = here;
            progress.advance(1);
        }
    }

    Ok(LayeredReport {
        layers: stats,
        goal_reachable,
        solutions,
        best_score,
        best_positions,
        best_count,
        child_solutions,
        table_bytes,
        peak_rss: peak_rss_bytes(),
    })
}

fn orbit<P: Symmetric>(puzzle: &P, p: &P::Position) -> u32 {
    puzzle.canonical_and_orbit(p).1
}

/// The sorted, de-duplicated canonical children of a layer, built in
/// batches so the transient buffer stays bounded.
fn expand_layer<P: Puzzle + Symmetric>(
    puzzle: &P,
    parents: &[P::Position],
    opts: &LayeredOptions,
    stored: usize,
    depth: usize,
    progress: &dyn Progress,
) -> Result<Vec<P::Position>, LayeredError> {
    let psize = std::mem::size_of::<P::Position>();
    let mut acc: Vec<P::Position> = Vec::new();
    for batch in parents.chunks(BATCH) {
        let mut children: Vec<P::Position> = batch
            .par_chunks(4096)
            .flat_map_iter(|chunk| {
                let mut out = Vec::with_capacity(chunk.len() * 8);
                for p in chunk {
                    puzzle.for_each_canonical_child(p, |c| out.push(c));
                }
                out
            })
            .collect();
        let needed = stored + (acc.len() * 2 + children.len()) * psize;
        if needed > opts.max_bytes {
            return Err(LayeredError::MemoryBudget {
                budget: opts.max_bytes,
                layer: depth,
                needed,
            });
        }
        children.par_sort_unstable();
        children.dedup();
        acc = if acc.is_empty() {
            children
        } else {
            merge_dedup(&acc, &children)
        };
        progress.advance(batch.len() as u64);
    }
    acc.shrink_to_fit();
    Ok(acc)
}

/// Merges two sorted, de-duplicated vectors into one.
fn merge_dedup<T: Ord + Copy>(a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The goal-reaching representatives of `layer` with their solution
/// counts, from those of the next layer (see the module documentation).
fn backward_layer<P: Reversible + Symmetric>(
    puzzle: &P,
    layer: &[P::Position],
    next: &[(P::Position, u128)],
) -> Vec<(P::Position, u128)> {
    // Weighted canonical parents of the next layer's goal-reaching set.
    let mut contrib: Vec<(P::Position, u128)> = next
        .par_chunks(4096)
        .flat_map_iter(|chunk| {
            let mut out = Vec::with_capacity(chunk.len() * 8);
            for &(q, n) in chunk {
                let w = n * orbit(puzzle, &q) as u128;
                puzzle.for_each_parent(&q, |p| out.push((puzzle.canonical(&p), w)));
            }
            out
        })
        .collect();
    contrib.par_sort_unstable_by_key(|&(p, _)| p);
    // Sum the contributions per representative.
    let mut summed: Vec<(P::Position, u128)> = Vec::with_capacity(contrib.len() / 2);
    for (p, w) in contrib {
        match summed.last_mut() {
            Some((q, acc)) if *q == p => *acc += w,
            _ => summed.push((p, w)),
        }
    }
    // Intersect with the reachable layer; add the goals of this layer.
    let mut out = Vec::new();
    let mut j = 0;
    for &p in layer {
        while j < summed.len() && summed[j].0 < p {
            j += 1;
        }
        let via = if j < summed.len() && summed[j].0 == p {
            let o = orbit(puzzle, &p) as u128;
            debug_assert_eq!(summed[j].1 % o, 0, "orbit weights must divide");
            summed[j].1 / o
        } else {
            0
        };
        let n = via + puzzle.is_goal(&p) as u128;
        if n > 0 {
            out.push((p, n));
        }
    }
    out
}
