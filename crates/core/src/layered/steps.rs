//! Steps between layers inside given sets: every canonical parent of a
//! layer, the time-reversed images, intersections, and the children or
//! parents of a layer that lie in another (the semi-join of linked pairs
//! across the middle included).

use super::ctx::{canonical_parents, Ctx, Plan};
use super::gather::{gather_layer, round_buckets};
use super::layer::{Layer, Sink, BUCKET_TARGET};
use super::options::LayeredError;
use super::table::Table;
use crate::{Reversible, Symmetric};
use rayon::prelude::*;

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// Every canonical parent of `layer`, plus the `extra` positions
    /// (goals).
    pub(super) fn backward_all(
        &self,
        layer: &Layer<P::Position>,
        extra: &[P::Position],
        depth: usize,
    ) -> Result<Layer<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
        let plan = self.plan(
            layer.len(),
            self.fanout(layer.iter(), layer.len(), false),
            depth,
        )?;
        let sources: Vec<&[P::Position]> = layer.buckets.iter().map(Vec::as_slice).collect();
        let extra: Vec<(P::Position, ())> = extra.iter().map(|&g| (g, ())).collect();
        let (prev, _) = gather_layer(
            &sources,
            &extra,
            plan.nb,
            plan.est + extra.len(),
            self.distinct,
            plan.avail,
            &|q, sink| canonical_parents(puzzle, q, |p, _| sink.push(p, ())),
            None,
            self.sort,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + plan.est * 16))?;
        self.progress.advance(layer.len() as u64);
        Ok(prev)
    }

    /// The canonical images of `layer` under the puzzle's time reversal.
    pub(super) fn reversed(
        &self,
        layer: &Layer<P::Position>,
        depth: usize,
    ) -> Result<Layer<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
        let plan = Plan {
            nb: round_buckets(layer.len() / BUCKET_TARGET),
            est: layer.len() + 16,
            avail: self
                .opts
                .max_bytes
                .saturating_sub(self.stored + layer.bytes()),
        };
        let sources: Vec<&[P::Position]> = layer.buckets.iter().map(Vec::as_slice).collect();
        let (layer, _) = gather_layer(
            &sources,
            &[],
            plan.nb,
            plan.est,
            1.0,
            plan.avail,
            &|p, sink| {
                if let Some(q) = puzzle.reversal(p) {
                    sink.push(puzzle.canonical(&q), ());
                }
            },
            None,
            self.sort,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + plan.est * 16))?;
        Ok(layer)
    }

    /// The members of `a` that lie in `b`, partitioned as `b` (so the test
    /// runs bucket by bucket, a merge or look-ups in the bucket's table).
    pub(super) fn intersect(
        &self,
        a: &Layer<P::Position>,
        b: &Layer<P::Position>,
        depth: usize,
    ) -> Result<Layer<P::Position>, LayeredError> {
        let hb = b.to_hashed();
        let b = hb.as_ref().unwrap_or(b);
        let avail = self.opts.max_bytes.saturating_sub(self.stored);
        let sources: Vec<&[P::Position]> = a.buckets.iter().map(Vec::as_slice).collect();
        let (layer, _) = gather_layer(
            &sources,
            &[],
            b.nb(),
            a.len() + 16,
            1.0,
            avail,
            &|&p, sink| sink.push(p, ()),
            Some(b),
            self.sort,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + a.len() * 16))?;
        Ok(layer)
    }

    /// The canonical children (`forward`) or parents of `from` that lie in
    /// `within`, plus the members of `within` among `extra` (canonical
    /// goals of that depth), and how many distinct canonical ones there
    /// were.
    pub(super) fn step_within(
        &self,
        from: &Layer<P::Position>,
        within: &Layer<P::Position>,
        extra: &[P::Position],
        depth: usize,
        forward: bool,
    ) -> Result<(Layer<P::Position>, u64), LayeredError> {
        self.step_within_mapped(from, within, extra, depth, forward, false)
    }

    /// The members of `layer` on either end of a link to another member:
    /// each member `x` names candidates (`links(x, out)` pushes them to
    /// `out`), and when a candidate `y` is a member both `x` and `y` are
    /// kept, so a symmetric relation need only be named from one end.
    ///
    /// A semi-join rather than a gather: the candidates are scattered to
    /// the layer's buckets, and each bucket looks them up in a table of its
    /// members (in cache) and marks the hits; nothing is de-duplicated or
    /// sorted, and the result keeps the layer's buckets and order. `None`
    /// when the scattered candidates would not fit the memory budget.
    pub(super) fn linked_pairs(
        &self,
        layer: &Layer<P::Position>,
        per_member: f64,
        links: &(impl Fn(&P::Position, &mut Vec<P::Position>) + Sync),
    ) -> Option<Layer<P::Position>> {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        let hashed = layer.to_hashed();
        let layer = hashed.as_ref().unwrap_or(layer);
        let nb = layer.nb();
        let est = (layer.len() as f64 * per_member * 1.1) as usize + 16;
        let item = std::mem::size_of::<P::Position>() + 4;
        let avail = self.opts.max_bytes.saturating_sub(self.stored);
        if est.saturating_mul(item) / 4 * 5 > avail || layer.len() >= u32::MAX as usize {
            return None;
        }
        // Global index of each bucket's first member.
        let offsets: Vec<usize> = layer
            .buckets
            .iter()
            .scan(0, |acc, b| {
                let o = *acc;
                *acc += b.len();
                Some(o)
            })
            .collect();
        let marks: Vec<AtomicU64> = (0..layer.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        let mark = |i: usize| {
            marks[i / 64].fetch_or(1 << (i % 64), Relaxed);
        };
        let threads = rayon::current_num_threads();
        let tasks = (threads * 8).min(nb).max(1);
        let per = est / tasks / nb.max(1);
        let reserve = per + per / 4 + 16;
        // Each candidate carries the index of the member that named it.
        let sinks: Vec<Sink<P::Position, u32>> = (0..tasks)
            .into_par_iter()
            .map(|t| {
                let mut sink = Sink::new(nb, reserve);
                let mut named = Vec::new();
                let range = (t * nb / tasks)..((t + 1) * nb / tasks);
                for (bucket, &o) in layer.buckets[range.clone()].iter().zip(&offsets[range]) {
                    for (i, x) in bucket.iter().enumerate() {
                        let tag = (o + i) as u32;
                        named.clear();
                        links(x, &mut named);
                        for &q in &named {
                            sink.push(q, tag);
                        }
                    }
                }
                sink
            })
            .collect();
        // Each worker's table and its buffer of member indices.
        type Slot<T> = (Table<T, u32>, Vec<u32>);
        let tables: Vec<std::sync::Mutex<Slot<P::Position>>> = (0..threads + 1)
            .map(|_| std::sync::Mutex::new((Table::new(), Vec::new())))
            .collect();
        (0..nb).into_par_iter().for_each(|b| {
            let here = layer.bucket(b);
            let Some(&first) = here.first() else {
                return;
            };
            let slot = rayon::current_thread_index().map_or(threads, |t| t.min(threads));
            let mut guard = tables[slot].lock().unwrap_or_else(|e| e.into_inner());
            let (table, idx) = &mut *guard;
            idx.clear();
            idx.extend(0..here.len() as u32);
            table.prepare(here.len(), first);
            table.insert_all(here, idx, &|_, _| {});
            for sink in &sinks {
                for (q, &tag) in sink.keys[b].iter().zip(&sink.vals[b]) {
                    if let Some(i) = table.get(q) {
                        mark(offsets[b] + i as usize);
                        mark(tag as usize);
                    }
                }
            }
        });
        drop(sinks);
        let buckets = layer
            .buckets
            .par_iter()
            .zip(offsets.par_iter())
            .map(|(bucket, &o)| {
                bucket
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| marks[(o + i) / 64].load(Relaxed) >> ((o + i) % 64) & 1 == 1)
                    .map(|(_, &x)| x)
                    .collect()
            })
            .collect();
        Some(Layer::from_parts(buckets, layer.sorted))
    }

    /// [`Ctx::step_within`] from the images of `from` under the time
    /// reversal (`mirror`) or from `from` itself.
    pub(super) fn step_within_mapped(
        &self,
        from: &Layer<P::Position>,
        within: &Layer<P::Position>,
        extra: &[P::Position],
        depth: usize,
        forward: bool,
        mirror: bool,
    ) -> Result<(Layer<P::Position>, u64), LayeredError> {
        let puzzle = self.puzzle;
        let hashed = within.to_hashed();
        let within = hashed.as_ref().unwrap_or(within);
        // σ turns a jump round: σ(p) has as many parents as p children.
        let plan = self.plan(
            from.len(),
            self.fanout(from.iter(), from.len(), forward != mirror),
            depth,
        )?;
        let sources: Vec<&[P::Position]> = from.buckets.iter().map(Vec::as_slice).collect();
        let extra: Vec<(P::Position, ())> = extra.iter().map(|&g| (g, ())).collect();
        let (layer, found) = gather_layer(
            &sources,
            &extra,
            within.nb(),
            plan.est + extra.len(),
            self.distinct,
            plan.avail,
            &|p, sink| {
                let mirrored;
                let p = if mirror {
                    let Some(q) = puzzle.reversal(p) else { return };
                    mirrored = q;
                    &mirrored
                } else {
                    p
                };
                if forward {
                    puzzle.for_each_canonical_child(p, |c| sink.push(c, ()));
                } else {
                    canonical_parents(puzzle, p, |q, _| sink.push(q, ()));
                }
            },
            Some(within),
            self.sort,
        )
        .ok_or_else(|| self.budget_error(depth, self.stored + plan.est * 16))?;
        Ok((layer, found))
    }
}
