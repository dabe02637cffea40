//! The forward step by a ranked bitmap instead of hashing, for puzzles
//! with dense keys and layers big enough for the bitmap to pay.

use super::ctx::{Ctx, ForwardLayer, Plan};
use super::layer::{bucket_of, hash_of, Layer};
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
/// Default of [`LayeredOptions::dense_direct_bytes`]: a bitmap this big
/// still stays in the last-level cache.
pub(super) const DENSE_DIRECT_BYTES: usize = 24 << 20;
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
        let ranker = crate::dense::Ranker::new(dk.key_bits(), &invariants)?;
        let (k, par) = ranker.layer_class(first);
        let layer = ranker.layer(k, par);
        let map_bytes = layer.len().div_ceil(8) as usize;
        if layer.is_empty()
            || map_bytes > plan.avail / 2
            || (!forced && map_bytes > plan.est.saturating_mul(DENSE_BYTES_PER_CHILD))
        {
            return None;
        }
        let mut map = crate::dense::Bitmap::new(layer.len());
        let bad = std::sync::atomic::AtomicBool::new(false);
        let produced = std::sync::atomic::AtomicU64::new(0);
        if map_bytes > self.opts.dense_direct_bytes {
            // Too big for the caches: bits set at random would each miss.
            // The ranks go to segments of the bitmap first (streaming
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
                    .map(|cs| {
                        let mut segs: Vec<Vec<u32>> = vec![Vec::new(); nseg];
                        let mut keys = Vec::new();
                        for c in cs {
                            keys.clear();
                            dk.child_keys(c, &mut keys);
                            produced
                                .fetch_add(keys.len() as u64, std::sync::atomic::Ordering::Relaxed);
                            for &k in &keys {
                                let Some(r) = layer.rank(k) else {
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
            let atomic = map.atomic();
            parents.buckets.par_iter().for_each_init(
                || (Vec::new(), Vec::new()),
                |(keys, ranks), bucket| {
                    for chunk in bucket.chunks(DENSE_CHUNK) {
                        if bad.load(std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                        keys.clear();
                        dk.child_keys(chunk, keys);
                        produced.fetch_add(keys.len() as u64, std::sync::atomic::Ordering::Relaxed);
                        crate::dense::set_keys(&layer, keys, ranks, atomic, &bad);
                    }
                },
            );
        }
        if bad.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let words = map.words();
        let threads = rayon::current_num_threads();
        let per = (words.len() / (threads * 16)).max(4096);
        let nb = plan.nb.max(1);
        let prune = self.opts.prune;
        let pieces: Vec<(Vec<Vec<P::Position>>, u64)> = words
            .par_chunks(per)
            .enumerate()
            .map(|(i, w)| {
                let mut keys = Vec::new();
                layer.extract(w, i * per, &mut keys);
                let mut pos = Vec::with_capacity(keys.len());
                dk.positions(&keys, &mut pos);
                drop(keys);
                let mut out: Vec<Vec<P::Position>> = vec![Vec::new(); nb];
                let mut tally = 0u64;
                for p in pos {
                    if prune && puzzle.cannot_reach_goal(&p) {
                        continue;
                    }
                    if raw {
                        tally += puzzle.orbit_size(&p) as u64;
                    }
                    out[bucket_of(hash_of(&p), nb)].push(p);
                }
                (out, tally)
            })
            .collect();
        let tally = pieces.iter().map(|p| p.1).sum();
        let sort = self.sort;
        let buckets: Vec<Vec<P::Position>> = (0..nb)
            .into_par_iter()
            .map(|b| {
                let n = pieces.iter().map(|p| p.0[b].len()).sum();
                let mut v = Vec::with_capacity(n);
                for p in &pieces {
                    v.extend_from_slice(&p.0[b]);
                }
                // Keys order as positions, so this is sorted already.
                if sort && !v.is_sorted() {
                    v.sort_unstable();
                }
                v
            })
            .collect();
        drop(pieces);
        let next = Layer::from_parts(buckets, sort);
        let produced = produced.into_inner();
        let distinct = next.len() as f64 / produced.max(1) as f64;
        Some((next, tally, distinct, map.bytes()))
    }
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
