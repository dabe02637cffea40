//! The solution counts: moving counts along the moves between
//! goal-reaching layers (backward, forward or across the time reversal),
//! the counted backward pass over every depth, and the solutions of a
//! time-reversible puzzle from its shallower half alone.

use super::ctx::{canonical_parents, Counted, CountedEntry, Ctx};
use super::gather::gather;
use super::layer::{gallop, Layer};
use super::options::{LayerStats, LayeredError};
use crate::{Reversible, Symmetric};
use rayon::prelude::*;

/// Where [`Ctx::counts_step`] moves counts: along the moves backward or
/// forward, or from `q` to σ `q` or to the parents of σ `q` (σ the time
/// reversal).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Push {
    Parents,
    Children,
    MirrorParents,
    Mirror,
}

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// The goal-reaching members of `layer` with their solution counts and
    /// orbit sizes, from those of the next layer (see the module
    /// documentation). `goals` are the canonical goals in this layer.
    pub(super) fn backward_counts(
        &self,
        layer: &Layer<P::Position>,
        next: &Counted<P::Position>,
        goals: &[P::Position],
        depth: usize,
    ) -> Result<Counted<P::Position>, LayeredError> {
        self.counts_step(layer, next, goals, depth, Push::Parents, None)
    }

    /// Moves the counts of `from` (positions with counts and orbit sizes)
    /// to the members of `layer` that `push` reaches from them, plus one
    /// for each goal in `goals`: each member gets the sum of `count ×
    /// orbit` over the moves reaching it, divided by its own orbit size
    /// (the module documentation's formula, either way along the moves).
    /// With `times`, the members' counts of `layer` (aligned with it,
    /// bucket by bucket), each member's sum is multiplied by its count
    /// there instead of divided (the crossing of
    /// [`mirrored_solutions`]).
    pub(super) fn counts_step(
        &self,
        layer: &Layer<P::Position>,
        from: &Counted<P::Position>,
        goals: &[P::Position],
        depth: usize,
        push: Push,
        times: Option<&[&[CountedEntry<P::Position>]]>,
    ) -> Result<Counted<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
        let hashed = layer.to_hashed();
        let layer = hashed.as_ref().unwrap_or(layer);
        let plan = self.plan(
            from.len(),
            self.fanout(
                from.iter().map(|e| &e.0),
                from.len(),
                push == Push::Children,
            ),
            depth,
        )?;
        // A goal is one solution: its weight |O| divides back to 1.
        let extra: Vec<(P::Position, u128)> = goals
            .iter()
            .map(|g| (*g, puzzle.orbit_size(g) as u128))
            .collect();
        let g = gather::<(P::Position, u128, u32), P::Position, u128, (P::Position, u128, u32)>(
            &[from.as_slice()],
            &extra,
            layer.nb(),
            plan.est + extra.len(),
            0.5,
            plan.avail,
            &|&(q, nq, oq), sink| {
                let w = nq * oq as u128;
                match push {
                    Push::Parents => canonical_parents(puzzle, &q, |p, _| sink.push(p, w)),
                    Push::Children => puzzle.for_each_canonical_child(&q, |c| sink.push(c, w)),
                    Push::MirrorParents => {
                        if let Some(s) = puzzle.reversal(&q) {
                            canonical_parents(puzzle, &s, |p, _| sink.push(p, w));
                        }
                    }
                    Push::Mirror => {
                        if let Some(s) = puzzle.reversal(&q) {
                            sink.push(puzzle.canonical(&s), w);
                        }
                    }
                }
            },
            &|acc, w| *acc += w,
            &|b, entries, out| {
                // The gather hands over only members of the layer, in its
                // order; the crossing needs their indices there.
                let here = layer.bucket(b);
                let mut j = 0;
                for &(p, w) in entries {
                    let o = puzzle.orbit_size(&p);
                    match times {
                        Some(t) => {
                            let (found, k) = gallop(&here[j..], &p);
                            debug_assert!(found, "a member of the layer");
                            j += k;
                            out.push((p, w * t[b][j].1, o));
                            j += 1;
                        }
                        None => {
                            debug_assert_eq!(w % o as u128, 0, "orbit weights must divide");
                            out.push((p, w / o as u128, o));
                        }
                    }
                }
                0
            },
            Some(layer),
            true,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + plan.est * 24))?;
        Ok(g.buckets.into_iter().flatten().collect())
    }
}

/// What the backward pass with counts found.
pub(super) struct BackwardPass<T> {
    /// Distinct solutions from the start.
    pub(super) solutions: u128,
    /// Canonical children of the start with the solutions through each.
    pub(super) child_solutions: Vec<(T, u128)>,
    /// Whether some goal lies in the layers passed over.
    pub(super) goal_reachable: bool,
    /// The goal-reaching positions of each depth, sorted, when asked for.
    pub(super) goal_layers: Vec<Vec<T>>,
}

impl<T> Default for BackwardPass<T> {
    fn default() -> Self {
        BackwardPass {
            solutions: 0,
            child_solutions: Vec::new(),
            goal_reachable: false,
            goal_layers: Vec::new(),
        }
    }
}

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// The backward pass with counts over the layers `layer(d)` for every
    /// depth of `stats`, deepest first: fills the goal-reaching counts of
    /// `stats` and returns the solutions from the start (and, with `keep`,
    /// the goal-reaching positions of every depth).
    pub(super) fn counted_backward<'l>(
        &self,
        goals: &[(usize, P::Position)],
        layer: impl Fn(usize) -> &'l Layer<P::Position>,
        stats: &mut [LayerStats],
        keep: bool,
        exact: bool,
    ) -> Result<BackwardPass<P::Position>, LayeredError>
    where
        P::Position: 'l,
    {
        self.progress.phase("backward", stats.len() as u64);
        let mut pass = BackwardPass::default();
        let mut next: Counted<P::Position> = Vec::new();
        for depth in (0..stats.len()).rev() {
            let here_layer = layer(depth);
            let here_goals: Vec<P::Position> = goals
                .iter()
                .filter(|&&(d, g)| d == depth && here_layer.contains(&g))
                .map(|&(_, g)| g)
                .collect();
            pass.goal_reachable |= !here_goals.is_empty();
            // A ranked layer's counts come from bitmaps; others (and
            // ranked ones the budget refuses) are hashed.
            let pull = self.dense_backward_counts(here_layer, &next, &here_goals, (exact, true));
            let here = match pull {
                Some(here) => here,
                None => self.backward_counts(here_layer, &next, &here_goals, depth)?,
            };
            stats[depth].to_goal_reduced = here.len() as u64;
            stats[depth].to_goal_raw = here.iter().map(|e| e.2 as u64).sum();
            if depth == 1 {
                pass.child_solutions = here.iter().map(|&(p, n, _)| (p, n)).collect();
            }
            if depth == 0 {
                pass.solutions = here.first().map_or(0, |e| e.1);
            }
            if keep {
                let mut v: Vec<P::Position> = here.iter().map(|e| e.0).collect();
                v.par_sort_unstable();
                pass.goal_layers.push(v);
            }
            next = here;
            self.progress.advance(1);
        }
        pass.goal_layers.reverse();
        Ok(pass)
    }
}

/// The number of solutions of a puzzle with a time reversal σ, from the
/// goal-reaching layers `good(0..=m)` of the shallower half (`m = last /
/// 2`), without the deeper half.
///
/// `F(p)`, the move sequences from the start to `p`, is invariant under the
/// group and summed over the moves into `p` from the layer before (every
/// reachable parent of a goal-reaching position reaches the goal too, so
/// the moves from outside `good` add nothing); on representatives that is
/// the module documentation's formula run forward. The sequences from `q`
/// to the goal are `F(σ q)` (σ turns every jump round). Every solution
/// crosses from layer `m` to `last - m`: with `last` even it passes one `p`
/// of layer `m`, and there are `Σ |O_p| F(p) F(σ p)` of them; with `last`
/// odd it passes one `p` of layer `m` and then `σ r` for a parent `r` of
/// `σ p` in layer `m`, so `Σ |O_p| F(p) Σ_r F(r)`. Grouping the terms by
/// the representative of `σ p` (or of `r`) makes that one more step.
pub(super) fn mirrored_solutions<'l, P: Reversible + Symmetric>(
    ctx: &Ctx<'_, P>,
    good: impl Fn(usize) -> &'l Layer<P::Position>,
    m: usize,
    last: usize,
) -> Result<u128, LayeredError>
where
    P::Position: 'l,
{
    let puzzle = ctx.puzzle;
    let start = good(0);
    let mut f: Counted<P::Position> = start
        .iter()
        .map(|&p| (p, 1, puzzle.orbit_size(&p)))
        .collect();
    for d in 1..=m {
        // Pulled from the parents where the layer is ranked, else pushed.
        f = match ctx.dense_backward_counts(good(d), &f, &[], (true, false)) {
            Some(pulled) => pulled,
            None => ctx.counts_step(good(d), &f, &[], d, Push::Children, None)?,
        };
        ctx.progress.advance(1);
    }
    if f.len() == good(m).len() {
        if let Some(total) = ctx.dense_crossing(&f, !last.is_multiple_of(2)) {
            return Ok(total);
        }
    }
    // Partitioned by hash as `counts_step` partitions it, `f` in that
    // order (a pull lists it in key order).
    let hashed = good(m).to_hashed();
    let middle = hashed.as_ref().unwrap_or(good(m));
    if !f.iter().map(|e| &e.0).eq(middle.iter()) {
        f.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let at = |p: &P::Position| f.binary_search_by(|e| e.0.cmp(p)).ok().map(|i| f[i]);
        let ordered: Option<Counted<P::Position>> = middle.iter().map(at).collect();
        f = ordered.unwrap_or_default();
    }
    // f lists every member of the middle layer (each is reachable), in
    // the layer's order: cut it into the layer's buckets.
    if f.len() != middle.len() {
        return Ok(0);
    }
    let mut aligned: Vec<&[CountedEntry<P::Position>]> = Vec::with_capacity(middle.nb());
    let mut rest = f.as_slice();
    for b in &middle.buckets {
        let (here, tail) = rest.split_at(b.len());
        aligned.push(here);
        rest = tail;
    }
    let push = if last.is_multiple_of(2) {
        Push::Mirror
    } else {
        Push::MirrorParents
    };
    let crossing = ctx.counts_step(middle, &f, &[], m, push, Some(&aligned))?;
    ctx.progress.advance(1);
    Ok(crossing.iter().map(|e| e.1).sum())
}

/// The backward pass of a puzzle with a time reversal σ from the
/// goal-reaching layers of its shallower half alone (`good(d)` for `d <=
/// m = last / 2`): each depth's goal-reaching counts in `stats` (a depth
/// past the middle has those of `last - d`: σ maps its layer onto that
/// one and commutes with the symmetries, so the orbit sizes agree; none
/// past `last`), the shallower half's layers sorted when `keep`, and the
/// solutions when `count` ([`mirrored_solutions`]). No solutions through
/// each first move. The goal-only route met at the middle and the full
/// enumeration's mirrored route both end here.
pub(super) fn mirrored_pass<'l, P: Reversible + Symmetric>(
    ctx: &Ctx<'_, P>,
    good: impl Fn(usize) -> &'l Layer<P::Position> + Copy,
    (m, last): (usize, usize),
    stats: &mut [LayerStats],
    (keep, count): (bool, bool),
) -> Result<BackwardPass<P::Position>, LayeredError>
where
    P::Position: 'l,
{
    let puzzle = ctx.puzzle;
    let raw: Vec<u64> = (0..=m)
        .map(|d| {
            let layer = good(d);
            layer
                .buckets
                .par_iter()
                .map(|b| puzzle.orbit_total(b))
                .sum()
        })
        .collect();
    for (d, stat) in stats.iter_mut().enumerate() {
        let mirror = match d {
            d if d <= m => Some(d),
            d if d <= last => Some(last - d),
            _ => None,
        };
        stat.to_goal_reduced = mirror.map_or(0, |e| good(e).len() as u64);
        stat.to_goal_raw = mirror.map_or(0, |e| raw[e]);
    }
    let mut pass = BackwardPass {
        goal_reachable: good(0).len() > 0,
        ..BackwardPass::default()
    };
    if keep && pass.goal_reachable {
        pass.goal_layers = (0..=m)
            .map(|d| {
                let mut v: Vec<P::Position> = good(d).iter().copied().collect();
                v.par_sort_unstable();
                v
            })
            .collect();
    }
    if count {
        ctx.progress.phase("counting", m as u64 + 1);
        pass.solutions = mirrored_solutions(ctx, good, m, last)?;
    }
    Ok(pass)
}
