//! A layer of positions stored hash-partitioned (buckets by the high bits
//! of a hash, sorted within each bucket unless nothing merges the layer),
//! the scatter buffer that partitions produced items into buckets, and
//! the membership merges over sorted buckets.

use crate::hash::MumHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Distinct positions per bucket the de-duplication aims at: its hash
/// table (twice as many slots) then stays in a core's L2 cache.
pub(super) const BUCKET_TARGET: usize = 1 << 14;
/// Most batches of a layer's parents before giving up on the budget.
pub(super) const MAX_BATCHES: usize = 64;

/// The hash that places a position: its high bits pick the bucket
/// ([`bucket_of`]), its low bits the slot in the bucket's table. Both ends
/// must depend on every bit of the position, so this is [`MumHasher`]
/// (each pair of words through one full 128-bit product, folded), not
/// the `rustc-hash` crate's FxHasher: that one's top 38 bits are the low
/// bits of a product rotated up, which depend only on the low 38 bits of
/// each word of the key, so positions that differ only in higher holes
/// (a board of more than 38 holes) would share a bucket (see the test
/// `high_holes_spread_over_the_buckets`).
#[inline]
pub(super) fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = MumHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// The bucket of hash `h` among `nb` (its high bits, by multiply-shift).
#[inline]
pub(super) fn bucket_of(h: u64, nb: usize) -> usize {
    ((h as u128 * nb as u128) >> 64) as usize
}

/// A set of positions partitioned by hash into buckets, sorted within each
/// unless `sorted` is off (when nothing merges the layer, see
/// [`Ctx::sort`]); or, when `ranked` names a ranked dense layer
/// (`(k, parities)`, see [`crate::dense`]) that holds every member, one
/// ascending sequence cut into non-empty buckets. Ranked layers come from
/// the bitmaps (their scan hands the members back sorted) and are tested
/// for membership by the bitmap too; whatever merges or looks up by
/// bucket asks for [`Layer::to_hashed`] first.
pub(super) struct Layer<T> {
    pub(super) buckets: Vec<Vec<T>>,
    pub(super) len: usize,
    pub(super) sorted: bool,
    pub(super) ranked: Option<(u32, u64)>,
    /// The bitmap a ranked layer was read out of, when the step kept it
    /// ([`super::ctx::Ctx::keep_reached`]): a bit for every member (and,
    /// had the step pruned, for every child it made), for the look-ups of
    /// the time reversal's goal-reaching layers (`mirror.rs`).
    pub(super) reached: Option<crate::dense::Bitmap>,
}

impl<T: Copy + Ord + Hash + Send + Sync> Layer<T> {
    pub(super) fn single(t: T) -> Self {
        Layer::from_buckets(vec![vec![t]])
    }

    pub(super) fn from_buckets(buckets: Vec<Vec<T>>) -> Self {
        Layer::from_parts(buckets, true)
    }

    pub(super) fn from_parts(buckets: Vec<Vec<T>>, sorted: bool) -> Self {
        let len = buckets.iter().map(Vec::len).sum();
        Layer {
            buckets,
            len,
            sorted,
            ranked: None,
            reached: None,
        }
    }

    /// A ranked layer from ascending runs (empty ones are dropped) whose
    /// members all lie in the ranked layer `class`.
    pub(super) fn ranked(runs: Vec<Vec<T>>, class: (u32, u64)) -> Self {
        let buckets: Vec<Vec<T>> = runs.into_iter().filter(|r| !r.is_empty()).collect();
        debug_assert!(buckets.iter().flatten().is_sorted());
        let mut l = Layer::from_parts(buckets, true);
        l.ranked = Some(class);
        l
    }

    /// The layer partitioned by hash, when it is ranked (`None`: it is
    /// already). A sorted sequence scattered in order leaves every bucket
    /// sorted.
    pub(super) fn to_hashed(&self) -> Option<Layer<T>> {
        self.ranked?;
        let nb = super::gather::round_buckets(self.len / BUCKET_TARGET);
        let threads = rayon::current_num_threads();
        let step = self.buckets.len().div_ceil(threads * 4).max(1);
        let sinks: Vec<Sink<T, ()>> = self
            .buckets
            .par_chunks(step)
            .map(|runs| {
                let n: usize = runs.iter().map(Vec::len).sum();
                let mut s = Sink::new(nb, n / nb + n / nb / 4 + 16);
                for &t in runs.iter().flatten() {
                    s.push(t, ());
                }
                s
            })
            .collect();
        let buckets = (0..nb)
            .into_par_iter()
            .map(|b| {
                let mut v = Vec::with_capacity(sinks.iter().map(|s| s.count(b)).sum());
                for s in &sinks {
                    v.extend_from_slice(&s.keys[b]);
                }
                v
            })
            .collect();
        Some(Layer::from_parts(buckets, true))
    }

    pub(super) fn nb(&self) -> usize {
        self.buckets.len()
    }

    pub(super) fn bucket(&self, b: usize) -> &[T] {
        &self.buckets[b]
    }

    pub(super) fn contains(&self, t: &T) -> bool {
        if self.ranked.is_some() {
            let b = self
                .buckets
                .partition_point(|b| b.last().is_some_and(|l| l < t));
            return self
                .buckets
                .get(b)
                .is_some_and(|b| b.binary_search(t).is_ok());
        }
        let here = self.bucket(bucket_of(hash_of(t), self.nb()));
        if self.sorted {
            here.binary_search(t).is_ok()
        } else {
            here.contains(t)
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets.iter().flatten()
    }

    pub(super) fn par_iter(&self) -> impl ParallelIterator<Item = &T> {
        self.buckets.par_iter().flat_map_iter(|b| b.iter())
    }

    pub(super) fn bytes(&self) -> usize {
        self.buckets
            .iter()
            .map(|b| b.capacity() * std::mem::size_of::<T>() + 24)
            .sum::<usize>()
            + self.reached.as_ref().map_or(0, |m| m.bytes())
    }
}

/// Per-task scatter buffers: the items of each of `nb` buckets.
pub(super) struct Sink<T, V> {
    pub(super) nb: usize,
    pub(super) keys: Vec<Vec<T>>,
    pub(super) vals: Vec<Vec<V>>,
}

impl<T: Copy + Hash, V: Copy> Sink<T, V> {
    pub(super) fn new(nb: usize, reserve: usize) -> Self {
        Sink {
            nb,
            keys: (0..nb).map(|_| Vec::with_capacity(reserve)).collect(),
            vals: (0..nb).map(|_| Vec::with_capacity(reserve)).collect(),
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, t: T, v: V) {
        let b = bucket_of(hash_of(&t), self.nb);
        self.keys[b].push(t);
        self.vals[b].push(v);
    }

    pub(super) fn count(&self, i: usize) -> usize {
        self.keys[i].len()
    }

    pub(super) fn len(&self) -> usize {
        self.keys.iter().map(Vec::len).sum()
    }

    pub(super) fn bytes(&self) -> usize {
        self.keys
            .iter()
            .map(|k| k.capacity() * std::mem::size_of::<T>())
            .sum::<usize>()
            + self
                .vals
                .iter()
                .map(|v| v.capacity() * std::mem::size_of::<V>())
                .sum::<usize>()
    }
}

/// Keeps the entries whose keys are also in `here` (both sorted): one
/// merge, galloping over the longer side.
pub(super) fn retain_members<T: Ord + Copy, V>(entries: &mut Vec<(T, V)>, here: &[T]) {
    let mut j = 0;
    entries.retain(|(p, _)| {
        let (found, k) = gallop(&here[j..], p);
        j += k + found as usize;
        found
    });
}

/// Where `x` is or would go in the sorted `xs` (as `binary_search`, with
/// whether it is there), searching from the front by doubling steps: a
/// merge of two sorted sequences then costs little more than a linear scan
/// when they are alike in size, and little more than binary searches when
/// one is much shorter.
#[inline]
pub(super) fn gallop<T: Ord>(xs: &[T], x: &T) -> (bool, usize) {
    let mut hi = 1;
    while hi < xs.len() && xs[hi - 1] < *x {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(xs.len());
    match xs[lo..hi].binary_search(x) {
        Ok(k) => (true, lo + k),
        Err(k) => (false, lo + k),
    }
}
