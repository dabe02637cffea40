//! The meeting: the goal-only enumeration from both ends (or, with a
//! time reversal, from the start to the middle only) until the frontiers
//! meet, then the goal-reaching layers on either side of the meeting
//! depth. One function, long because its phases share their layers.

use super::counts::{mirrored_pass, BackwardPass};
use super::ctx::{canonical_parents, Ctx};
use super::full::{goals_by_depth, hopeless, Best};
use super::layer::Layer;
use super::options::{LayerStats, LayeredError, LayeredOptions, LayeredReport, Progress};
use crate::memory::peak_rss_bytes;
use crate::{Reversible, Symmetric};
use rayon::prelude::*;

/// The goal-only enumeration from both ends; `None` when the puzzle's
/// moves do not each lower the score by one (the caller falls back to the
/// full enumeration).
pub(super) fn meet_in_middle<P: Reversible + Symmetric>(
    puzzle: &P,
    opts: &LayeredOptions,
    progress: &dyn Progress,
) -> Result<Option<LayeredReport<P::Position>>, LayeredError> {
    let start = puzzle.canonical(&puzzle.start());
    let s0 = puzzle.score(&start) as usize;
    let goals = goals_by_depth(puzzle);
    let Some(&(last, _)) = goals.last() else {
        return Ok(None);
    };
    let goals_at = |d: usize| -> Vec<P::Position> {
        goals
            .iter()
            .filter(|&&(gd, _)| gd == d)
            .map(|&(_, g)| g)
            .collect()
    };
    let unreachable = hopeless(puzzle);
    let mut best = Best::new(opts.max_final_positions);
    let mut stats: Vec<LayerStats> = (0..=last)
        .map(|depth| LayerStats {
            depth,
            ..Default::default()
        })
        .collect();
    // fwd[d] for 0 <= d <= fd; back[d - bd] for bd <= d <= last.
    let mut fwd = vec![Layer::single(start)];
    stats[0].reduced = 1;
    stats[0].raw = puzzle.orbit_size(&start) as u64;
    let mut back = vec![Layer::from_buckets(vec![goals_at(last)])];
    let mut bd = last;
    let mut stored = fwd[0].bytes() + back[0].bytes();
    let mut table_bytes = stored;
    let mut bitmap_bytes = 0;
    let mut distinct = 1.0;
    // With a time reversal σ the backward layers are reversed forward ones:
    // grow the forward side to the middle `half`, then map. When `last` is
    // odd the layers `half` and `half + 1` meet: a position of layer `half`
    // reaches the goal when one of its children is σ of a position of layer
    // `half`, that is when it is a parent of σ of one (σ turns a jump round),
    // so layer `half + 1`, the largest, is never built.
    let reversal = puzzle
        .reversal(&puzzle.start())
        .filter(|g| goals.len() == 1 && goals[0] == (last, puzzle.canonical(g)));
    let half = last / 2;
    if reversal.is_some() {
        bd = half;
    }
    // Only the solution counts merge layers with their indices: without
    // them, the mirrored route and the other one building a table look
    // members up and keep every layer in table order (the other routes
    // count on the way back).
    let sort = opts.count_solutions || (reversal.is_none() && !opts.keep_goal_layers);
    while fwd.len() - 1 < bd && !unreachable {
        let fd = fwd.len() - 1;
        let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
        let (f, b) = (&fwd[fd], &back[0]);
        if f.len() == 0 || b.len() == 0 {
            break;
        }
        let added = if reversal.is_some() || f.len() <= b.len() {
            progress.phase(&format!("layer {}", fd + 1), f.len() as u64);
            let (next, _, share, map_bytes) = ctx.forward(f, fd + 1, false)?;
            bitmap_bytes = bitmap_bytes.max(map_bytes);
            distinct = share;
            stats[fd + 1].reduced = next.len() as u64;
            let bytes = next.bytes();
            fwd.push(next);
            bytes
        } else {
            progress.phase(&format!("layer {} (backward)", bd - 1), b.len() as u64);
            let prev = ctx.backward_all(b, &goals_at(bd - 1), bd - 1)?;
            let bytes = prev.bytes();
            back.insert(0, prev);
            bd -= 1;
            bytes
        };
        stored += added;
        if stored > opts.max_bytes {
            return Err(ctx.budget_error(fwd.len(), stored));
        }
        table_bytes = table_bytes.max(stored);
    }
    // Odd `last` with a time reversal: the two ends meet across a move.
    let across = reversal.is_some() && last % 2 == 1;
    if reversal.is_some() && !across && fwd.len() - 1 == half && !unreachable {
        // The positions at depth `half` that reach the goal are σ of those
        // reached from the start at `last - half` (the same depth): one
        // reversed layer is the backward side. The rest of the
        // goal-reaching set mirrors too.
        progress.phase("reversal", 1);
        let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
        let layer = ctx.reversed(&fwd[half], half)?;
        stored += layer.bytes();
        if stored > opts.max_bytes {
            return Err(ctx.budget_error(half, stored));
        }
        back = vec![layer];
        table_bytes = table_bytes.max(stored);
    }
    let m = fwd.len() - 1;
    let met = m == bd && !unreachable;
    if met {
        // The layering must follow the score for the two ends to agree.
        let fine =
            |l: &Layer<P::Position>| l.par_iter().all(|p| puzzle.score(p) as usize + m == s0);
        if !fine(&fwd[m]) || (!across && !fine(&back[0])) {
            return Ok(None);
        }
    }
    for f in &fwd {
        best.add(puzzle, f);
    }
    // Goal-reaching layers at and beyond the meeting depth (`good[d - m]`),
    // and with a time reversal those before it (`low[d]`, d < m) too.
    let mut good: Vec<Layer<P::Position>> = Vec::new();
    let mut low: Vec<Layer<P::Position>> = Vec::new();
    if met {
        progress.phase("meeting", 1);
        let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
        if across {
            // x of layer m reaches the goal when σ(x) is a child of layer
            // m (found by the children's bitmap), that is when σ(x) has a
            // parent y in layer m; then σ(y) has x for a parent too, so
            // without the bitmap each pair is named once, from its lesser
            // end.
            let layer = &fwd[m];
            let links = |x: &P::Position, out: &mut Vec<P::Position>| {
                if let Some(s) = puzzle.reversal(x) {
                    canonical_parents(puzzle, &s, |y, _| {
                        if y >= *x {
                            out.push(y)
                        }
                    });
                }
            };
            let joined = match ctx.dense_images_among_children(layer, m)? {
                Some(l) => l,
                None => {
                    let fan = ctx.fanout(layer.iter(), layer.len(), true) / 2.0;
                    match ctx.linked_pairs(layer, fan, &links) {
                        Some(l) => l,
                        None => ctx.step_within_mapped(layer, layer, &[], m, false, true)?.0,
                    }
                }
            };
            good.push(joined);
            // Nothing reads the middle layer after the meeting on this
            // route.
            let done = std::mem::replace(&mut fwd[m], Layer::from_buckets(Vec::new()));
            stored = stored.saturating_sub(done.bytes());
        } else {
            good.push(ctx.intersect(&back[0], &fwd[m], m)?);
        }
        if reversal.is_some() {
            // Parents within the forward layers down to the start, then
            // the deeper half as their mirror images.
            progress.phase("goal-reaching", (m + last - m) as u64);
            let mut below: Vec<Layer<P::Position>> = Vec::with_capacity(m);
            for d in (0..m).rev() {
                let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
                let to = below.last().unwrap_or(&good[0]);
                let layer = match ctx.dense_parents_within(to, &fwd[d], &[]) {
                    Some(l) => l,
                    None => ctx.step_within(to, &fwd[d], &[], d, false)?.0,
                };
                // Nothing reads a forward layer once stepped past on this
                // route (the counts read the goal-reaching layers).
                let done = std::mem::replace(&mut fwd[d + 1], Layer::from_buckets(Vec::new()));
                stored = (stored + layer.bytes()).saturating_sub(done.bytes());
                below.push(layer);
                progress.advance(1);
            }
            below.reverse();
            low = below;
            for d in m + 1..=last {
                let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
                let mirror = if last - d == m {
                    &good[0]
                } else {
                    &low[last - d]
                };
                stats[d].reduced = mirror.len() as u64;
                // Only the sizes of the deeper layers are wanted (σ keeps
                // them and the orbit sizes; the solutions are counted from
                // the shallower half), and the deepest layer for the best
                // result.
                if d < last {
                    progress.advance(1);
                    continue;
                }
                let next = ctx.reversed(mirror, d)?;
                stored += next.bytes();
                best.add(puzzle, &next);
                good.push(next);
                progress.advance(1);
            }
            if stored > opts.max_bytes {
                return Err(ctx.budget_error(last, stored));
            }
            table_bytes = table_bytes.max(stored);
        } else {
            progress.phase("goal-reaching, deeper", (last - m) as u64);
            for d in m + 1..=last {
                let prev = good.last().expect("a layer");
                let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
                let (next, explored) = ctx.step_within(prev, &back[d - m], &[], d, true)?;
                stats[d].reduced = explored;
                best.add(puzzle, &next);
                good.push(next);
            }
        }
    }
    drop(back);
    // The backward pass with counts: over the goal-reaching layers (or the
    // forward layers where those are not known).
    let mut pass = BackwardPass::default();
    let mirrored = met && reversal.is_some() && low.len() == m;
    let mut goal_layers = Vec::new();
    // The other route skips the counts only for a table (see
    // `count_solutions`).
    let uncounted = met && !mirrored && !opts.count_solutions && opts.keep_goal_layers;
    let counted = opts.count_solutions || !met || !(mirrored || uncounted);
    if mirrored {
        let good = |d: usize| if d < m { &low[d] } else { &good[0] };
        let ctx = Ctx::new(puzzle, opts, progress, stored, 1.0, sort);
        let keep = (opts.keep_goal_layers, opts.count_solutions);
        pass = mirrored_pass(&ctx, good, (m, last), &mut stats, keep)?;
    } else if uncounted {
        // Without counts the shallower goal-reaching layers are found as on
        // the mirrored route: the parents of the next one inside the
        // forward layer (a reachable position reaches a goal exactly when
        // one of its children does, and its children are reachable), plus
        // the goals of that depth. Each forward layer is dropped once
        // stepped past.
        progress.phase("goal-reaching, shallower", m as u64);
        let mut below: Vec<Layer<P::Position>> = Vec::with_capacity(m);
        for d in (0..m).rev() {
            let ctx = Ctx::new(puzzle, opts, progress, stored, distinct, sort);
            let to = below.last().unwrap_or(&good[0]);
            let goals = goals_at(d);
            let layer = match ctx.dense_parents_within(to, &fwd[d], &goals) {
                Some(l) => l,
                None => ctx.step_within(to, &fwd[d], &goals, d, false)?.0,
            };
            let done = std::mem::replace(&mut fwd[d + 1], Layer::from_buckets(Vec::new()));
            stored = (stored + layer.bytes()).saturating_sub(done.bytes());
            below.push(layer);
            progress.advance(1);
        }
        drop(fwd);
        below.reverse();
        let all: Vec<Layer<P::Position>> = below.into_iter().chain(good.drain(..)).collect();
        for (stat, l) in stats.iter_mut().zip(&all) {
            stat.to_goal_reduced = l.len() as u64;
            stat.to_goal_raw = l.buckets.par_iter().map(|b| puzzle.orbit_total(b)).sum();
        }
        pass.goal_reachable = all.first().is_some_and(|l| l.len() > 0);
        if pass.goal_reachable {
            // Each layer is freed as its sorted copy is made.
            progress.phase("sorting", last as u64 + 1);
            goal_layers = all
                .into_iter()
                .map(|l| {
                    let mut v: Vec<P::Position> = l.iter().copied().collect();
                    v.par_sort_unstable();
                    v
                })
                .collect();
        }
    } else if met {
        let ctx = Ctx::new(puzzle, opts, progress, stored, 1.0, sort);
        let layer = |d: usize| match d {
            d if d >= m => &good[d - m],
            d if d < low.len() => &low[d],
            d => &fwd[d],
        };
        pass = ctx.counted_backward(&goals, layer, &mut stats, opts.keep_goal_layers, false)?;
    }
    let BackwardPass {
        solutions,
        mut child_solutions,
        goal_reachable,
        goal_layers: counted_layers,
    } = pass;
    if goal_layers.is_empty() && goal_reachable {
        goal_layers = counted_layers;
    }
    best.positions.sort_unstable();
    child_solutions.sort_unstable();
    Ok(Some(LayeredReport {
        layers: stats,
        goal_reachable,
        solutions: counted.then_some(solutions),
        best_score: best.score,
        best_positions: best.positions,
        best_count: best.count,
        child_solutions,
        goal_layers,
        table_bytes,
        bitmap_bytes,
        peak_rss: peak_rss_bytes(),
        complete: false,
    }))
}
