//! The context of one enumeration (puzzle, options, progress, stored
//! bytes, expected share of distinct children) and the forward step:
//! sizing a layer's buckets and passes, then building the canonical
//! children of a layer.

use super::gather::{gather, round_buckets};
use super::layer::{Layer, BUCKET_TARGET};
use super::options::{LayeredError, LayeredOptions, Progress};
use crate::{Reversible, Symmetric};

/// What building the next layer needs to know.
pub(super) struct Ctx<'a, P: crate::Rules> {
    pub(super) puzzle: &'a P,
    pub(super) opts: &'a LayeredOptions,
    pub(super) progress: &'a dyn Progress,
    /// Bytes of the stored layers.
    pub(super) stored: usize,
    /// Expected distinct positions per item produced (from the last layer).
    pub(super) distinct: f64,
    /// Whether the layers are kept sorted within their buckets. The
    /// solution counts merge them with indices, and in the full
    /// enumeration sorted parents give their children's duplicates
    /// locality; the goal-reaching set alone looks members up instead, and
    /// leaving each bucket in table order saves sorting every layer
    /// (measurements: the peg crate's README, benchmarks).
    pub(super) sort: bool,
    /// Whether a layer built by a bitmap keeps it ([`Layer::reached`]).
    pub(super) keep_reached: bool,
}

pub(super) struct Plan {
    pub(super) nb: usize,
    pub(super) est: usize,
    pub(super) avail: usize,
}

/// A layer built forward: the layer, the sum of its orbit sizes (when
/// asked), the share of distinct children among all, and the bytes of the
/// bitmap that de-duplicated it (0 when hashed).
pub(super) type ForwardLayer<T> = (Layer<T>, u64, f64, usize);

/// A canonical position with its solution count and orbit size.
pub(super) type CountedEntry<T> = (T, u128, u32);

/// Canonical positions with their solution counts and orbit sizes.
pub(super) type Counted<T> = Vec<CountedEntry<T>>;

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    pub(super) fn new(
        puzzle: &'a P,
        opts: &'a LayeredOptions,
        progress: &'a dyn Progress,
        stored: usize,
        distinct: f64,
        sort: bool,
    ) -> Self {
        Ctx {
            puzzle,
            opts,
            progress,
            stored,
            distinct,
            sort,
            keep_reached: false,
        }
    }

    pub(super) fn budget_error(&self, layer: usize, needed: usize) -> LayeredError {
        LayeredError::MemoryBudget {
            budget: self.opts.max_bytes,
            layer,
            needed,
        }
    }

    /// Sizes the buckets and the passes of a layer about to be built from
    /// `n` sources producing about `per_source` items each.
    pub(super) fn plan(
        &self,
        n: usize,
        per_source: f64,
        layer: usize,
    ) -> Result<Plan, LayeredError> {
        if self.opts.budget.stop() {
            return Err(LayeredError::Stopped { layer });
        }
        let psize = std::mem::size_of::<P::Position>();
        let est = (n as f64 * per_source * 1.05).ceil() as usize + 16;
        let nb = round_buckets((est as f64 * self.distinct) as usize / BUCKET_TARGET);
        let next_bytes = (est as f64 * self.distinct.min(1.0) * 1.2) as usize * psize;
        let avail = self.opts.max_bytes.saturating_sub(self.stored + next_bytes);
        if avail < (64 << 20).min(self.opts.max_bytes / 8) {
            return Err(self.budget_error(layer, self.stored + next_bytes + (64 << 20)));
        }
        Ok(Plan { nb, est, avail })
    }

    /// Average number of children (`forward`) or parents of a sample of
    /// `layer`.
    pub(super) fn fanout<'b>(
        &self,
        layer: impl Iterator<Item = &'b P::Position>,
        len: usize,
        forward: bool,
    ) -> f64
    where
        P::Position: 'b,
    {
        if len == 0 {
            return 0.0;
        }
        let step = (len / 1024).max(1);
        let (mut n, mut k) = (0usize, 0usize);
        for p in layer.step_by(step) {
            k += 1;
            if forward {
                self.puzzle.for_each_move(p, |_| n += 1);
            } else {
                self.puzzle.for_each_parent(p, |_| n += 1);
            }
        }
        n as f64 / k.max(1) as f64
    }

    /// The canonical children of `parents` (pruned if asked), the sum of
    /// their orbit sizes (if `raw`), and the share of distinct children
    /// among all.
    pub(super) fn forward(
        &self,
        parents: &Layer<P::Position>,
        depth: usize,
        raw: bool,
    ) -> Result<ForwardLayer<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
        let plan = self.plan(
            parents.len(),
            self.fanout(parents.iter(), parents.len(), true),
            depth,
        )?;
        let prune = self.opts.prune;
        if let Some(done) = self.forward_dense(parents, raw, &plan) {
            self.progress.advance(parents.len() as u64);
            return Ok(done);
        }
        let sources: Vec<&[P::Position]> = parents.buckets.iter().map(Vec::as_slice).collect();
        let g = gather::<P::Position, P::Position, (), P::Position>(
            &sources,
            &[],
            plan.nb,
            plan.est,
            self.distinct,
            plan.avail,
            &|p, sink| puzzle.for_each_canonical_child(p, |c| sink.push(c, ())),
            &|_, _| {},
            &|_, entries, out| {
                let mut total = 0u64;
                for &(p, ()) in entries {
                    if prune && puzzle.cannot_reach_goal(&p) {
                        continue;
                    }
                    if raw {
                        total += puzzle.orbit_size(&p) as u64;
                    }
                    out.push(p);
                }
                total
            },
            None,
            self.sort,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + plan.est * 16))?;
        self.progress.advance(parents.len() as u64);
        let next = Layer::from_parts(g.buckets, g.sorted);
        let distinct = next.len() as f64 / g.produced.max(1) as f64;
        Ok((next, g.tally, distinct, 0))
    }
}

/// Calls `f(canonical parent, orbit size)` for every parent of `q`.
#[inline]
pub fn canonical_parents<P: Reversible + Symmetric>(
    puzzle: &P,
    q: &P::Position,
    mut f: impl FnMut(P::Position, u32),
) {
    if !puzzle.for_each_canonical_parent_orbit(q, &mut f) {
        puzzle.for_each_parent(q, |p| {
            let (c, o) = puzzle.canonical_and_orbit(&p);
            f(c, o)
        });
    }
}
