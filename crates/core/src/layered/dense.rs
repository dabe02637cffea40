//! The forward step by a ranked bitmap instead of hashing, for puzzles
//! with dense keys and layers big enough for the bitmap to pay.

use super::ctx::{Counted, Ctx, ForwardLayer, Plan};
use super::layer::Layer;
use crate::{Reversible, Symmetric};
use rayon::prelude::*;

/// Default of [`LayeredOptions::dense_min_children`]: below this, hashing
/// the children costs less than clearing and scanning a bitmap.
pub(super) const DENSE_MIN_CHILDREN: usize = 16_000;
/// Largest bitmap per child (bytes): a sparser bitmap costs more to scan
/// than the children cost to hash.
pub(super) const DENSE_BYTES_PER_CHILD: usize = 4;
/// Parents per batch of child keys (the batch stays in L1/L2).
pub(super) const DENSE_CHUNK: usize = 256;
/// Default of [`LayeredOptions::dense_direct_bytes`]: no size cap. A
/// bitmap a thread, its bits set at random with the prefetched ring,
/// beats the segments even far past the last-level cache, where the
/// segments' buffers of ranks go through memory twice (the French count;
/// figures in the peg README); the segments stay for a budget too small
/// for a bitmap a thread.
pub(super) const DENSE_DIRECT_BYTES: usize = usize::MAX;
/// Bits of a bitmap segment (log 2): 2 MiB, about a core's L2 and L3 share.
pub(super) const DENSE_SEGMENT_LOG: u32 = 24;
/// Children buffered per batch of a segmented fill (4 bytes each).
pub(super) const DENSE_BATCH_CHILDREN: usize = 48 << 20;

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// [`Ctx::forward`] by a ranked bitmap ([`crate::dense`]), when the
    /// puzzle has dense keys and the layer is big enough for the bitmap to
    /// pay (and small enough for the budget). `None` leaves the layer to
    /// the hash de-duplication (also when a child falls outside the ranked
    /// layer: the puzzle's invariants did not hold).
    pub(super) fn forward_dense(
        &self,
        parents: &Layer<P::Position>,
        raw: bool,
        plan: &Plan,
    ) -> Option<ForwardLayer<P::Position>> {
        let puzzle = self.puzzle;
        let dk = puzzle.dense_keys()?;
        self.children_map(parents, plan, |map, layer, (k, par), held, produced| {
            let words = map.words();
            let threads = rayon::current_num_threads();
            let per = (words.len() / (threads * 16)).max(4096);
            let prune = self.opts.prune;
            // The scan hands the children back in key order: each piece
            // of the bitmap is a run of the ranked layer, with no scatter.
            let pieces: Vec<(Vec<P::Position>, u64)> = words
                .par_chunks(per)
                .enumerate()
                .with_max_len(1)
                .map(|(i, w)| {
                    let mut keyed = false;
                    let mut pos = positions_of(dk, layer, w, i * per, |keys| {
                        keyed = prune && dk.prune_keys(keys);
                    });
                    if prune && !keyed {
                        pos.retain(|p| !puzzle.cannot_reach_goal(p));
                    }
                    let tally = if raw { puzzle.orbit_total(&pos) } else { 0 };
                    (pos, tally)
                })
                .collect();
            let tally = pieces.iter().map(|p| p.1).sum();
            let next = Layer::ranked(pieces.into_iter().map(|p| p.0).collect(), (k, par));
            let distinct = next.len() as f64 / produced.max(1) as f64;
            (next, tally, distinct, held)
        })
    }

    /// The bitmap of the canonical children of `parents` in their ranked
    /// layer, handed to `then` with the layer's ranks, its class, the
    /// bitmaps' bytes held at once and the children made (one a move):
    /// `None` as [`Ctx::forward_dense`] says. The bits are set by a task's
    /// own bitmap each, OR-ed at the end, or, for a bitmap past the
    /// caches, segment by segment.
    pub(super) fn children_map<R>(
        &self,
        parents: &Layer<P::Position>,
        plan: &Plan,
        then: impl FnOnce(
            &crate::dense::Bitmap,
            &crate::dense::LayerRank<'_>,
            (u32, u64),
            usize,
            u64,
        ) -> R,
    ) -> Option<R> {
        let dk = self.puzzle.dense_keys()?;
        let forced = self.opts.dense_min_children == 0;
        if plan.est < self.opts.dense_min_children {
            return None;
        }
        // The layer's class, from the first parent with a child.
        let mut probe = Vec::new();
        for p in parents.iter() {
            dk.child_keys(std::slice::from_ref(p), &mut probe);
            if !probe.is_empty() {
                break;
            }
        }
        let first = *probe.first()?;
        // The tables below cost about a millisecond to build, so a layer
        // whose bitmap would be too sparse is sent to hashing first, from
        // its size estimated as C(bits, k) / 2^invariants (the classes are
        // about equal); the exact test follows.
        let invariants = dk.invariants();
        let estimate = binomial(dk.key_bits(), first.count_ones()) >> invariants.len();
        if !forced && estimate / 16 > (plan.est as u64).saturating_mul(DENSE_BYTES_PER_CHILD as u64)
        {
            return None;
        }
        let ranker = crate::dense::Ranker::for_keys(dk)?;
        let (k, par) = ranker.layer_class(first);
        let layer = ranker.layer(k, par)?;
        let map_bytes = layer.len().div_ceil(8) as usize;
        if layer.is_empty()
            || map_bytes > plan.avail / 2
            || (!forced && map_bytes > plan.est.saturating_mul(DENSE_BYTES_PER_CHILD))
        {
            return None;
        }
        let mut map = crate::dense::Bitmap::new(layer.len());
        let bad = std::sync::atomic::AtomicBool::new(false);
        // Children of a layer share its class when the puzzle proves its
        // invariants: their class test is then skipped.
        let in_class = dk.children_keep_class();
        let produced = std::sync::atomic::AtomicU64::new(0);
        // The direct fill holds a bitmap a thread.
        let threads = rayon::current_num_threads();
        let mut held = map_bytes;
        if map_bytes > self.opts.dense_direct_bytes
            || map_bytes.saturating_mul(threads) > plan.avail / 2
        {
            // No room for a bitmap a thread (or segments asked for): the
            // ranks go to segments of the one bitmap first (streaming
            // writes), then each segment's bits are set by one worker, in
            // cache, the parents taken in batches to bound the buffers.
            let seg_words = 1usize << (DENSE_SEGMENT_LOG - 6);
            let chunks: Vec<&[P::Position]> = parents
                .buckets
                .iter()
                .flat_map(|b| b.chunks(DENSE_CHUNK))
                .collect();
            let per_parent = plan.est as f64 / parents.len().max(1) as f64;
            let batch_parents =
                ((DENSE_BATCH_CHILDREN as f64 / per_parent.max(1.0)) as usize).max(DENSE_CHUNK);
            let mut start = 0;
            while start < chunks.len() {
                let mut end = start;
                let mut n = 0;
                while end < chunks.len() && n < batch_parents {
                    n += chunks[end].len();
                    end += 1;
                }
                let nseg = map.words().len().div_ceil(seg_words);
                let threads = rayon::current_num_threads();
                let step = (end - start).div_ceil(threads * 4).max(1);
                let parts: Vec<Vec<Vec<u32>>> = chunks[start..end]
                    .par_chunks(step)
                    .with_max_len(1)
                    .map(|cs| {
                        let mut segs: Vec<Vec<u32>> = vec![Vec::new(); nseg];
                        let mut keys = Vec::new();
                        for c in cs {
                            keys.clear();
                            dk.child_keys(c, &mut keys);
                            produced
                                .fetch_add(keys.len() as u64, std::sync::atomic::Ordering::Relaxed);
                            for (i, &k) in keys.iter().enumerate() {
                                // The rank tables (2 MiB on 37 holes) miss
                                // the core's cache: ask a few keys ahead.
                                if let Some(&ahead) = keys.get(i + crate::dense::RANK_AHEAD) {
                                    layer.prefetch_rank(ahead);
                                }
                                let r = if in_class {
                                    layer.rank_in_class(k).filter(|&r| r < layer.len())
                                } else {
                                    layer.rank(k)
                                };
                                let Some(r) = r else {
                                    bad.store(true, std::sync::atomic::Ordering::Relaxed);
                                    return segs;
                                };
                                segs[(r >> DENSE_SEGMENT_LOG) as usize]
                                    .push((r & ((1 << DENSE_SEGMENT_LOG) - 1)) as u32);
                            }
                        }
                        segs
                    })
                    .collect();
                if bad.load(std::sync::atomic::Ordering::Relaxed) {
                    return None;
                }
                map.words_mut()
                    .par_chunks_mut(seg_words)
                    .enumerate()
                    .with_max_len(1)
                    .for_each(|(sg, w)| {
                        for part in &parts {
                            for &r in &part[sg] {
                                w[(r >> 6) as usize] |= 1u64 << (r & 63);
                            }
                        }
                    });
                start = end;
            }
        } else {
            // A bitmap a task running at once, each set by its task
            // alone, with no locked instruction (each one a barrier that
            // holds up the prefetches behind it); then OR-ed into `map`,
            // a streaming pass. A task takes a free bitmap (or a new one)
            // and gives it back when it ends, so no two tasks share one
            // however rayon runs them: as many are made as tasks ran at
            // once (the threads).
            let first = std::mem::replace(&mut map, crate::dense::Bitmap::new(0));
            let free = std::sync::Mutex::new(vec![first]);
            chunks(parents, DENSE_CHUNK * 16)
                .par_iter()
                .with_max_len(1)
                .for_each_init(
                    || {
                        let own = free.lock().ok().and_then(|mut f| f.pop());
                        let own = own.unwrap_or_else(|| crate::dense::Bitmap::new(layer.len()));
                        (Own(Some(own), &free), Vec::new(), Vec::new())
                    },
                    |(own, keys, ranks), piece| {
                        let Some(map) = own.0.as_mut() else {
                            return;
                        };
                        let map = map.atomic();
                        for chunk in piece.chunks(DENSE_CHUNK) {
                            if bad.load(std::sync::atomic::Ordering::Relaxed) {
                                return;
                            }
                            keys.clear();
                            dk.child_keys(chunk, keys);
                            produced
                                .fetch_add(keys.len() as u64, std::sync::atomic::Ordering::Relaxed);
                            let how = (in_class, true);
                            crate::dense::set_ranked_keys(&layer, keys, how, ranks, map, &bad);
                        }
                    },
                );
            // Every bitmap made, back in `free`: one becomes `map`, the
            // others are OR-ed into it.
            let mut all = free.into_inner().unwrap_or_else(|e| e.into_inner());
            map = all
                .pop()
                .unwrap_or_else(|| crate::dense::Bitmap::new(layer.len()));
            held = map_bytes * (all.len() + 1);
            const MERGE: usize = 1 << 12;
            map.words_mut()
                .par_chunks_mut(MERGE)
                .enumerate()
                .for_each(|(i, w)| {
                    for o in &all {
                        for (a, b) in w.iter_mut().zip(&o.words()[i * MERGE..]) {
                            *a |= b;
                        }
                    }
                });
        }
        if bad.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        Some(then(&map, &layer, (k, par), held, produced.into_inner()))
    }
}

/// A bitmap held by one task of a forward fill, given back to the free
/// ones when the task ends.
struct Own<'m>(
    Option<crate::dense::Bitmap>,
    &'m std::sync::Mutex<Vec<crate::dense::Bitmap>>,
);

impl Drop for Own<'_> {
    fn drop(&mut self) {
        if let (Some(map), Ok(mut made)) = (self.0.take(), self.1.lock()) {
            made.push(map);
        }
    }
}

/// Parents or candidates per batch of a dense membership test.
const PROBE_CHUNK: usize = 256;
/// Look-ups in flight while probing a bitmap (prefetched this far ahead).
const PROBE_AHEAD: usize = 32;

/// Whether bit `r` of `words` is set.
#[inline(always)]
pub(super) fn bit(words: &[u64], r: u64) -> bool {
    words[(r >> 6) as usize] >> (r & 63) & 1 == 1
}

/// Sets the bit of every member of `layer` (all in `lr`'s ranked layer)
/// in a fresh bitmap. Members come in key order within each bucket, so
/// the rank tables and the bitmap are read and written in order.
pub(super) fn member_map<T: Sync>(
    dk: &dyn crate::dense::DenseKeys<T>,
    lr: &crate::dense::LayerRank<'_>,
    layer: &Layer<T>,
) -> Option<crate::dense::Bitmap> {
    let mut map = crate::dense::Bitmap::new(lr.len());
    let pieces = chunks(layer, DENSE_CHUNK * 16);
    crate::dense::mark_pieces(lr, dk, &pieces, map.atomic(), |r| r).then_some(map)
}

/// Bitmap words read out a batch at a time by [`positions_of`].
const EXTRACT_WORDS: usize = 64;

/// The positions whose bits are set in `words` (from word `first` of
/// `lr`'s bitmap), in key order. The keys are read out a batch of
/// [`EXTRACT_WORDS`] words at a time into one small buffer, which `keep`
/// may filter, and their positions go into a list sized by the words'
/// popcount: no list of keys as long as the piece is made (its fresh
/// pages were a third of the English goal set's page faults) and no
/// list grows by copies.
fn positions_of<T>(
    dk: &dyn crate::dense::DenseKeys<T>,
    lr: &crate::dense::LayerRank<'_>,
    words: &[u64],
    first: usize,
    mut keep: impl FnMut(&mut Vec<u64>),
) -> Vec<T> {
    let n: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    let mut pos = Vec::with_capacity(n);
    let mut keys = Vec::with_capacity(EXTRACT_WORDS * 64);
    for (i, w) in words.chunks(EXTRACT_WORDS).enumerate() {
        keys.clear();
        lr.extract(w, first + i * EXTRACT_WORDS, &mut keys);
        keep(&mut keys);
        dk.positions(&keys, &mut pos);
    }
    pos
}

/// The pieces of `len` positions of `layer`'s buckets, for a parallel
/// loop: a layer handed over as one bucket (the counted layers of the
/// backward pass are) would otherwise run on one thread.
pub(super) fn chunks<T>(layer: &Layer<T>, len: usize) -> Vec<&[T]> {
    layer.buckets.iter().flat_map(|b| b.chunks(len)).collect()
}

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// The ranked layer of `class` and the bitmaps' room: `None` when the
    /// puzzle has no dense keys or `maps` bitmaps of the layer would not
    /// fit the memory budget.
    pub(super) fn ranked_layer(
        &self,
        class: (u32, u64),
        maps: usize,
    ) -> Option<(
        &'a dyn crate::dense::DenseKeys<P::Position>,
        std::sync::Arc<crate::dense::Ranker>,
    )> {
        let dk = self.puzzle.dense_keys()?;
        let ranker = crate::dense::Ranker::for_keys(dk)?;
        let bytes = ranker.layer_size(class.0, class.1).div_ceil(8) as usize;
        let avail = self.opts.max_bytes.saturating_sub(self.stored);
        (bytes.saturating_mul(maps) <= avail / 2).then_some((dk, ranker))
    }

    /// The canonical parents of `from` that lie in `within`, plus the
    /// members of `within` among `extra`, as [`Ctx::step_within`] (its
    /// backward direction) finds them, but by a bitmap of `within`'s
    /// ranked layer: the parents (and `extra`) set their bits, as a
    /// forward step sets its children's, and then each member of
    /// `within`, in key order, is kept when its bit is set. The members
    /// are read in order, once each (one rank and one bit a member, the
    /// bitmap's words in order), and the result keeps their order with no
    /// bitmap of its own to scan. `None` when `within` is not ranked, the
    /// bitmap would not fit the budget, or a parent proven in class ranks
    /// past the layer.
    pub(super) fn dense_parents_within(
        &self,
        from: &Layer<P::Position>,
        within: &Layer<P::Position>,
        extra: &[P::Position],
    ) -> Option<Layer<P::Position>> {
        let class = within.ranked?;
        let (dk, ranker) = self.ranked_layer(class, 1)?;
        let lr = ranker.layer(class.0, class.1)?;
        let mut map = crate::dense::Bitmap::new(lr.len());
        let atomic = map.atomic();
        let bad = std::sync::atomic::AtomicBool::new(false);
        // The parents of members of a layer have the class of the layer
        // before when the puzzle proves its invariants (a move turned
        // round keeps them too): no class test for them, only for `extra`.
        // Without the proof, keys outside the layer are dropped first.
        let in_class = dk.children_keep_class();
        let set = |keys: &mut Vec<u64>, ranks: &mut Vec<u64>, in_class: bool| {
            if !in_class {
                keys.retain(|&k| lr.rank(k).is_some());
            }
            crate::dense::set_ranked_keys(&lr, keys, (in_class, false), ranks, atomic, &bad);
        };
        chunks(from, PROBE_CHUNK).par_iter().for_each_init(
            || (Vec::new(), Vec::new(), Vec::new()),
            |(keys, ends, ranks), chunk| {
                keys.clear();
                ends.clear();
                dk.neighbour_keys(chunk, false, keys, ends);
                set(keys, ranks, in_class);
            },
        );
        let mut keys = Vec::new();
        dk.keys(extra, &mut keys);
        set(&mut keys, &mut Vec::new(), false);
        if bad.into_inner() {
            return None;
        }
        let words = map.words();
        let runs = chunks(within, DENSE_CHUNK * 16)
            .par_iter()
            .map_init(Vec::new, |keys, chunk| {
                keys.clear();
                dk.keys(chunk, keys);
                chunk
                    .iter()
                    .zip(keys.iter())
                    .filter(|&(_, &k)| {
                        lr.rank_in_class(k)
                            .is_some_and(|r| r < lr.len() && bit(words, r))
                    })
                    .map(|(p, _)| *p)
                    .collect()
            })
            .collect();
        Some(Layer::ranked(runs, class))
    }
}

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// [`Ctx::backward_counts`] for a ranked `layer`, without hashing. The
    /// goal-reaching members are the parents of `next`'s positions found
    /// in the layer's bitmap, plus the `goals` ([`Ctx::dense_parents_within`]);
    /// each one's count is then pulled from its children: `N(p) = [goal p]
    /// + Σ N(canonical child)` over its moves (`N` is the same on a
    /// class), each child looked up by its rank in a bitmap of `next` and
    /// the popcounts of the words before it. The result is in key order.
    /// `None` leaves the step to the hashed route (the layer is not
    /// ranked, `next` is empty or a bitmap would not fit the budget).
    ///
    /// With `children` off the pull runs the other way, for the forward
    /// counts of [`super::counts::mirrored_solutions`] on an `exact` layer
    /// (`next` is then the layer before): `F(p) = Σ F(canonical parent)`
    /// over the moves into `p` (a parent of a class is reached by as
    /// many moves from each of its members, so no orbit weight enters).
    pub(super) fn dense_backward_counts(
        &self,
        layer: &Layer<P::Position>,
        next: &Counted<P::Position>,
        goals: &[P::Position],
        (exact, children): (bool, bool),
    ) -> Option<Counted<P::Position>> {
        layer.ranked?;
        if !children && !exact {
            return None;
        }
        let puzzle = self.puzzle;
        // The next layer's bitmap with its word popcounts, beside the
        // bitmap of this layer that the parents' step makes (room for two
        // more is kept).
        self.with_counted_index(next, 4, |next, index, dk, positions| {
            // An `exact` layer holds only positions that reach the goal:
            // the goals and the parents of `next` that it holds are all
            // of it.
            let found;
            let good = if exact {
                layer
            } else {
                let from = Layer::from_buckets(vec![positions]);
                found = self.dense_parents_within(&from, layer, goals)?;
                &found
            };
            let runs: Vec<Counted<P::Position>> = good
                .buckets
                .par_iter()
                .map(|bucket| {
                    let mut out = Vec::with_capacity(bucket.len());
                    let (mut ends, mut slots) = (Vec::new(), Vec::new());
                    for chunk in bucket.chunks(PROBE_CHUNK) {
                        ends.clear();
                        slots.clear();
                        dk.neighbour_keys(chunk, children, &mut slots, &mut ends);
                        index.indices(&mut slots);
                        let mut start = 0;
                        for (p, &end) in chunk.iter().zip(ends.iter()) {
                            let n = goals.contains(p) as u128
                                + counts_at(next, &slots, start..end as usize);
                            start = end as usize;
                            out.push((*p, n, puzzle.orbit_size(p)));
                        }
                    }
                    out
                })
                .collect();
            Some(runs.into_iter().flatten().collect())
        })
    }

    /// `counted`'s members indexed by rank ([`crate::dense::MemberIndex`]),
    /// sorted by position first if they are not, with room kept in the
    /// budget for `maps` bitmaps of their layer: `f` gets the sorted
    /// entries, the index, the dense keys and the members. `None` when the
    /// puzzle has no dense keys or ranking for them, or the budget no
    /// room.
    fn with_counted_index<R>(
        &self,
        counted: &Counted<P::Position>,
        maps: usize,
        f: impl FnOnce(
            &Counted<P::Position>,
            &crate::dense::MemberIndex<'_>,
            &dyn crate::dense::DenseKeys<P::Position>,
            Vec<P::Position>,
        ) -> Option<R>,
    ) -> Option<R> {
        let dk = self.puzzle.dense_keys()?;
        let first = counted.first()?.0;
        let ranker = crate::dense::Ranker::for_keys(dk)?;
        let class = ranker.layer_class(dk.key(&first));
        self.ranked_layer(class, maps)?;
        let lr = ranker.layer(class.0, class.1)?;
        let sorted;
        let counted = if counted.is_sorted_by(|a, b| a.0 < b.0) {
            counted
        } else {
            let mut copy = counted.clone();
            copy.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
            sorted = copy;
            &sorted
        };
        let positions: Vec<P::Position> = counted.iter().map(|e| e.0).collect();
        let pieces: Vec<&[P::Position]> = positions.chunks(DENSE_CHUNK * 16).collect();
        let index = crate::dense::MemberIndex::new(lr, dk, &pieces, dk.children_keep_class())?;
        f(counted, &index, dk, positions)
    }
}

impl<P: Reversible + Symmetric> Ctx<'_, P> {
    /// The crossing of [`super::counts::mirrored_solutions`] by look-ups:
    /// `f`, the forward counts of every member of the middle layer, indexed
    /// by rank; each member `p` adds `|O_p| F(p)` times `F(σ p)` (`odd`
    /// off: the goal's depth is even) or the sum of `F` over the canonical
    /// parents of `σ p` (`odd`). `None` leaves it to the hashed route (no
    /// dense keys, bitmaps turned off by
    /// [`super::LayeredOptions::dense_min_children`], or the index would
    /// not fit the budget).
    pub(super) fn dense_crossing(&self, f: &Counted<P::Position>, odd: bool) -> Option<u128> {
        if self.opts.dense_min_children == usize::MAX {
            return None;
        }
        let puzzle = self.puzzle;
        self.with_counted_index(f, 2, |f, index, dk, _| {
            let parts: Option<Vec<u128>> = f
                .par_chunks(PROBE_CHUNK)
                .map_init(
                    || (Vec::new(), Vec::new(), Vec::new()),
                    |(images, slots, ends), chunk| {
                        images.clear();
                        slots.clear();
                        ends.clear();
                        for e in chunk {
                            images.push(puzzle.reversal(&e.0)?);
                        }
                        if odd {
                            dk.neighbour_keys(images, false, slots, ends);
                        } else {
                            let canonical: Vec<P::Position> =
                                images.iter().map(|q| puzzle.canonical(q)).collect();
                            dk.keys(&canonical, slots);
                            ends.extend(1..=slots.len() as u32);
                        }
                        index.indices(slots);
                        let mut total = 0u128;
                        let mut start = 0;
                        for (e, &end) in chunk.iter().zip(ends.iter()) {
                            let s = counts_at(f, slots, start..end as usize);
                            start = end as usize;
                            total += e.1 * e.2 as u128 * s;
                        }
                        Some(total)
                    },
                )
                .collect();
            parts.map(|v| v.into_iter().sum())
        })
    }
}

/// The sum of the counts of `counted`'s entries at the indices
/// `slots[range]` ([`crate::dense::NOT_MEMBER`] adds nothing), each entry
/// prefetched [`PROBE_AHEAD`] slots ahead.
#[inline(always)]
fn counts_at<T>(counted: &Counted<T>, slots: &[u64], range: std::ops::Range<usize>) -> u128 {
    const NONE: u64 = crate::dense::NOT_MEMBER;
    let mut n = 0;
    for i in range {
        if let Some(&x) = slots.get(i + PROBE_AHEAD) {
            if x != NONE {
                crate::dense::prefetch(counted, x as usize);
            }
        }
        if slots[i] != NONE {
            n += counted[slots[i] as usize].1;
        }
    }
    n
}

/// C(n, k), saturating.
fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k) as u64;
    (0..k).fold(1u64, |c, i| c.saturating_mul(n as u64 - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn binomial_is_pascal() {
        for n in 0..=48u32 {
            for k in 0..=n + 1 {
                let want = if k == 0 {
                    1
                } else if k > n {
                    0
                } else {
                    super::binomial(n - 1, k - 1) + super::binomial(n - 1, k)
                };
                assert_eq!(super::binomial(n, k), want, "C({n}, {k})");
            }
        }
        assert_eq!(super::binomial(33, 16), 1_166_803_110);
    }
}
