//! Layered enumeration of a puzzle's whole reachable graph.
//!
//! Every move of the puzzles this serves takes a position one layer on
//! (peg solitaire and Martello remove one piece per move), so positions
//! reached after `d` moves form layer `d`. Each layer is kept as a vector of
//! canonical representatives (symmetry-reduced).
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
//!
//! De-duplication. A layer is stored hash-partitioned: positions are split
//! into buckets by the high bits of a hash, and sorted within each bucket.
//! Children are scattered into a few coarse buckets as they are generated
//! (one streaming pass), each coarse bucket is split into fine ones, and
//! every fine bucket is de-duplicated in a hash table that fits in the
//! core's cache and sorted (only its distinct members, about an eighth of
//! the children on peg boards). Membership tests hash to a bucket and
//! binary-search it; two layers partitioned alike intersect bucket by
//! bucket. When only the goal-reaching set is wanted from the two ends
//! with a time reversal, nothing merges the layers: their buckets stay in
//! table order, unsorted, and members are looked up in a table of the
//! bucket instead. When the children of a layer would not fit in the memory
//! budget, the parents are taken in batches, each leaving sorted runs of
//! distinct children that are merged at the end; and when no backward
//! pass is wanted (or the goal is provably out of reach) only the newest
//! layer is kept.
//!
//! Goal-only mode ([`LayeredOptions::count_all`] off). To find only the
//! positions that reach the goal and count the solutions, the search runs
//! from both ends: forward layers from the start and backward layers (every
//! position that can reach a goal) from the goals, always growing the
//! smaller frontier, until they meet at a depth `m`. The goal-reaching
//! positions of layer `m` are the intersection; deeper ones are the
//! children of the shallower goal-reaching layer found in the backward
//! layers; shallower ones come from the usual backward pass, or, when a
//! table wants the layers without the counts, from the parents of the
//! deeper goal-reaching layer found in the forward layers. This needs
//! every move to lower the score by exactly one (the layer of a position is
//! then `score(start) - score(pos)`); puzzles where that fails fall back to
//! the full enumeration.
//!
//! With a time reversal σ (a single goal that is σ of the start, as the
//! complement is for peg solitaire), no backward layer is built: the
//! positions of depth `d` that reach the goal are σ of those reached from
//! the start at depth `last - d`. The forward layers go to the middle
//! `m = last / 2` only, the goal-reaching ones of depth `m` are found there
//! (across the middle move when `last` is odd, by a semi-join: every
//! candidate is looked up in a table of its bucket's members and the hits
//! are marked, with nothing de-duplicated or sorted, and each pair of the
//! symmetric relation named from one end), those of smaller depths by
//! stepping back inside the forward layers, and the deeper half is only
//! counted, as their mirror images. The solutions are counted forward over
//! the shallower half and once across the middle (`mirrored_solutions`);
//! the solutions through each first move are then not reported.

use crate::budget::Budget;
use crate::hash::{FxHashSet, FxHasher};
use crate::memory::peak_rss_bytes;
use crate::{Puzzle, Reversible, Symmetric};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Receives progress reports from long enumerations (for progress bars).
pub trait Progress: Sync {
    /// A new phase begins with `total` units of work.
    fn phase(&self, name: &str, total: u64);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// One unit of the current phase took `seconds` (a tracker may show
    /// the slowest so far; by default ignored).
    fn took(&self, _seconds: f64) {}
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
    /// Enumerate every reachable position (the default). When `false`, only
    /// the goal-reaching positions and the number of solutions are wanted:
    /// the search runs from both ends and meets in the middle (see the
    /// module documentation), which is much faster. The goal-reaching
    /// counts and solutions stay exact; the per-layer `reduced`/`raw`
    /// counts and the best positions then cover only the positions the
    /// search visited (`raw` is left at 0), and
    /// [`LayeredReport::complete`] is `false`. Implies `backward`.
    pub count_all: bool,
    /// Drop from the forward layers every position that
    /// [`Puzzle::cannot_reach_goal`] rules out. Such positions cannot
    /// contribute to the goal-reaching set or to the solutions, so those
    /// stay exact; the reachable counts become incomplete
    /// ([`LayeredReport::complete`] is `false`).
    pub prune: bool,
    /// Count the solutions (the default). When `false` in the goal-only
    /// mode of a puzzle with a time reversal, the goal-reaching set comes
    /// from the two ends alone and the counting pass is skipped
    /// ([`LayeredReport::solutions`] is `None`); so too on the other
    /// goal-only route when the goal layers are kept
    /// ([`LayeredOptions::keep_goal_layers`]: a table wants the positions,
    /// not their counts), whose shallower layers are then stepped back
    /// inside the forward ones without counts. Elsewhere the counting pass
    /// is how the goal set is found, and it runs anyway.
    pub count_solutions: bool,
    /// Deadline and cancel token, checked before each layer (or pass) is
    /// built: [`LayeredError::Stopped`] when either has passed. Its node
    /// and memory limits are not used (`max_bytes` bounds the memory).
    pub budget: Budget,
    /// Hand back the goal-reaching positions layer by layer
    /// ([`LayeredReport::goal_layers`]): on the goal-only route met at the
    /// middle by the time reversal, those of the first half of the moves
    /// (the deeper half is their reversal); on every other route, those of
    /// every depth. A solved table is built from them.
    pub keep_goal_layers: bool,
    /// Fewest children (duplicates included) for which a layer built
    /// forward is de-duplicated in a ranked bitmap, when the puzzle has
    /// dense keys ([`crate::Symmetric::dense_keys`]) and the bitmap fits the
    /// budget. Below it, or when the bitmap would be sparse (more than a
    /// few bytes a child), the layer is hashed. 0 uses the bitmap whenever
    /// the puzzle allows it (tests); `usize::MAX` never.
    pub dense_min_children: usize,
    /// Largest ranked bitmap whose bits are set directly, at random; a
    /// bigger one is filled segment by segment from buffered ranks (0:
    /// always by segments, for tests).
    pub dense_direct_bytes: usize,
}

impl Default for LayeredOptions {
    fn default() -> Self {
        LayeredOptions {
            max_bytes: 8 << 30,
            backward: true,
            max_final_positions: 10_000,
            count_all: true,
            prune: false,
            count_solutions: true,
            budget: Budget::unlimited(),
            keep_goal_layers: false,
            dense_min_children: DENSE_MIN_CHILDREN,
            dense_direct_bytes: DENSE_DIRECT_BYTES,
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
    /// The budget's deadline passed or its cancel token was set.
    #[error("stopped at layer {layer}: the time budget ran out or the work was cancelled")]
    Stopped {
        /// The layer about to be built.
        layer: usize,
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
    /// Canonical reachable positions with the lowest score (up to the cap),
    /// sorted.
    pub best_positions: Vec<P>,
    /// How many canonical positions have the lowest score.
    pub best_count: u64,
    /// Canonical children of the start with the number of solutions through
    /// each (when the backward pass ran): the data of a hint. Goal-only
    /// enumerations of puzzles with a time reversal count the solutions
    /// from the shallower half alone and leave this empty.
    pub child_solutions: Vec<(P, u128)>,
    /// With [`LayeredOptions::keep_goal_layers`]: the canonical
    /// goal-reaching positions after `d` moves, each layer sorted, for `d`
    /// from 0 to the middle on the mirrored goal-only route (the deeper
    /// half is their reversal) and from 0 to the deepest goal on the
    /// others; empty otherwise, or when no goal is reachable.
    pub goal_layers: Vec<Vec<P>>,
    /// Bytes held by the stored layers at their largest.
    pub table_bytes: usize,
    /// Bytes of the largest ranked bitmap a layer was de-duplicated in
    /// (0 when every layer was hashed).
    pub bitmap_bytes: usize,
    /// Peak resident memory of the process, when the platform tells.
    pub peak_rss: Option<u64>,
    /// Whether `reduced`, `raw`, `best_*` cover every reachable position
    /// (false with [`LayeredOptions::prune`] or without
    /// [`LayeredOptions::count_all`]: then they cover the positions the
    /// search visited).
    pub complete: bool,
}

/// Distinct positions per bucket the de-duplication aims at: its hash
/// table (twice as many slots) then stays in a core's L2 cache.
const BUCKET_TARGET: usize = 1 << 14;
/// Most batches of a layer's parents before giving up on the budget.
const MAX_BATCHES: usize = 64;

#[inline]
fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = FxHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// The bucket of hash `h` among `nb` (its high bits, by multiply-shift).
#[inline]
fn bucket_of(h: u64, nb: usize) -> usize {
    ((h as u128 * nb as u128) >> 64) as usize
}

/// A set of positions partitioned by hash into buckets, sorted within each
/// unless `sorted` is off (when nothing merges the layer, see
/// [`Ctx::sort`]).
struct Layer<T> {
    buckets: Vec<Vec<T>>,
    len: usize,
    sorted: bool,
}

impl<T: Copy + Ord + Hash + Send + Sync> Layer<T> {
    fn single(t: T) -> Self {
        Layer::from_buckets(vec![vec![t]])
    }

    fn from_buckets(buckets: Vec<Vec<T>>) -> Self {
        Layer::from_parts(buckets, true)
    }

    fn from_parts(buckets: Vec<Vec<T>>, sorted: bool) -> Self {
        let len = buckets.iter().map(Vec::len).sum();
        Layer {
            buckets,
            len,
            sorted,
        }
    }

    fn nb(&self) -> usize {
        self.buckets.len()
    }

    fn bucket(&self, b: usize) -> &[T] {
        &self.buckets[b]
    }

    fn contains(&self, t: &T) -> bool {
        let here = self.bucket(bucket_of(hash_of(t), self.nb()));
        if self.sorted {
            here.binary_search(t).is_ok()
        } else {
            here.contains(t)
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.buckets.iter().flatten()
    }

    fn par_iter(&self) -> impl ParallelIterator<Item = &T> {
        self.buckets.par_iter().flat_map_iter(|b| b.iter())
    }

    fn bytes(&self) -> usize {
        self.buckets
            .iter()
            .map(|b| b.capacity() * std::mem::size_of::<T>() + 24)
            .sum()
    }
}

/// Per-task scatter buffers: the items of each of `nb` buckets.
struct Sink<T, V> {
    nb: usize,
    keys: Vec<Vec<T>>,
    vals: Vec<Vec<V>>,
}

impl<T: Copy + Hash, V: Copy> Sink<T, V> {
    fn new(nb: usize, reserve: usize) -> Self {
        Sink {
            nb,
            keys: (0..nb).map(|_| Vec::with_capacity(reserve)).collect(),
            vals: (0..nb).map(|_| Vec::with_capacity(reserve)).collect(),
        }
    }

    #[inline(always)]
    fn push(&mut self, t: T, v: V) {
        let b = bucket_of(hash_of(&t), self.nb);
        self.keys[b].push(t);
        self.vals[b].push(v);
    }

    fn count(&self, i: usize) -> usize {
        self.keys[i].len()
    }

    fn len(&self) -> usize {
        self.keys.iter().map(Vec::len).sum()
    }

    fn bytes(&self) -> usize {
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

/// An open-addressing hash table, reused across buckets by one worker.
/// Empty slots hold `empty`, a key chosen from the bucket itself; whether
/// that key was inserted is kept on the side (so no control bytes).
struct Table<T, V> {
    keys: Vec<T>,
    vals: Vec<V>,
    mask: usize,
    len: usize,
    empty: Option<T>,
    /// The value of the `empty` key, once inserted.
    empty_val: Option<V>,
    /// The entries handed over for the last bucket (see `members` and
    /// `entries`).
    handed: Vec<(T, V)>,
    /// Buffers splitting a coarse bucket into fine ones.
    split_keys: Vec<Vec<T>>,
    split_vals: Vec<Vec<V>>,
    /// Distinct keys per insertion in the last bucket (sizes the next).
    ratio: f64,
}

impl<T: Copy + Eq + Hash, V: Copy + Default> Table<T, V> {
    fn new() -> Self {
        Table {
            keys: Vec::new(),
            vals: Vec::new(),
            mask: 0,
            len: 0,
            empty: None,
            empty_val: None,
            handed: Vec::new(),
            split_keys: Vec::new(),
            split_vals: Vec::new(),
            ratio: 0.0,
        }
    }

    /// Empties the table, sized for about `n` distinct keys; `empty` marks
    /// free slots.
    fn prepare(&mut self, n: usize, empty: T) {
        let cap = (2 * n).next_power_of_two().max(64);
        self.keys.clear();
        self.keys.resize(cap, empty);
        self.vals.clear();
        self.vals.resize(cap, V::default());
        self.mask = cap - 1;
        self.len = 0;
        self.empty = Some(empty);
        self.empty_val = None;
    }

    /// Inserts every item of `keys` (with `vals`), merging duplicates.
    /// Hashes run a few items ahead and their slots are prefetched, so
    /// the cache misses of successive items overlap.
    fn insert_all(&mut self, keys: &[T], vals: &[V], combine: &impl Fn(&mut V, V)) {
        const AHEAD: usize = 8;
        let mut ring = [0u64; AHEAD];
        for (j, slot) in ring.iter_mut().enumerate().take(keys.len()) {
            *slot = hash_of(&keys[j]);
            self.prefetch(*slot);
        }
        for (j, (&k, &v)) in keys.iter().zip(vals).enumerate() {
            let h = ring[j % AHEAD];
            if let Some(next) = keys.get(j + AHEAD) {
                let hn = hash_of(next);
                ring[j % AHEAD] = hn;
                self.prefetch(hn);
            }
            self.insert_hashed(k, h, v, combine);
        }
    }

    #[inline(always)]
    fn prefetch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let i = h as usize & self.mask;
            // SAFETY: prefetching is a hint; the address is in bounds.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    self.keys.as_ptr().add(i) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
    }

    #[inline(always)]
    fn insert_hashed(&mut self, t: T, h: u64, v: V, combine: &impl Fn(&mut V, V)) {
        let empty = self.empty.expect("prepared");
        if t == empty {
            match &mut self.empty_val {
                Some(e) => combine(e, v),
                None => self.empty_val = Some(v),
            }
            return;
        }
        let mut i = h as usize & self.mask;
        loop {
            let k = self.keys[i];
            if k == t {
                combine(&mut self.vals[i], v);
                return;
            }
            if k == empty {
                self.keys[i] = t;
                self.vals[i] = v;
                self.len += 1;
                if 2 * self.len > self.mask {
                    self.grow();
                }
                return;
            }
            i = (i + 1) & self.mask;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let empty = self.empty.expect("prepared");
        let keys = std::mem::take(&mut self.keys);
        let vals = std::mem::take(&mut self.vals);
        let cap = 2 * keys.len();
        self.keys.resize(cap, empty);
        self.vals.resize(cap, V::default());
        self.mask = cap - 1;
        for (k, v) in keys.into_iter().zip(vals) {
            if k != empty {
                let mut i = hash_of(&k) as usize & self.mask;
                while self.keys[i] != empty {
                    i = (i + 1) & self.mask;
                }
                self.keys[i] = k;
                self.vals[i] = v;
            }
        }
    }

    /// The value of key `t`, if inserted.
    #[inline]
    fn get(&self, t: &T) -> Option<V> {
        let empty = self.empty.expect("prepared");
        if *t == empty {
            return self.empty_val;
        }
        let mut i = hash_of(t) as usize & self.mask;
        loop {
            let k = self.keys[i];
            if k == *t {
                return Some(self.vals[i]);
            }
            if k == empty {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The entries whose keys are in `here`, in its order: a look-up per
    /// member of `here` instead of sorting every entry.
    fn members(&mut self, here: &[T]) -> &[(T, V)] {
        let mut out = std::mem::take(&mut self.handed);
        out.clear();
        out.extend(here.iter().filter_map(|k| self.get(k).map(|v| (*k, v))));
        self.handed = out;
        &self.handed
    }

    /// The distinct entries whose keys are in `here` (sorted), sorted by
    /// key: the entries sorted, then merged with `here`.
    fn members_merged(&mut self, here: &[T]) -> &[(T, V)]
    where
        T: Ord,
    {
        self.entries(true);
        retain_members(&mut self.handed, here);
        &self.handed
    }

    /// The distinct entries, sorted by key if `sort` (in table order
    /// otherwise).
    fn entries(&mut self, sort: bool) -> &[(T, V)]
    where
        T: Ord,
    {
        let empty = self.empty.expect("prepared");
        let out = &mut self.handed;
        // Without a branch per slot (about half the slots are empty, at
        // random): every slot is written at the end of the entries so
        // far, which grows only past a key.
        out.clear();
        out.resize(self.len + 1, (empty, V::default()));
        let mut n = 0;
        for (&k, &v) in self.keys.iter().zip(&self.vals) {
            out[n] = (k, v);
            n += (k != empty) as usize;
        }
        out.truncate(n);
        if let Some(v) = self.empty_val {
            out.push((empty, v));
        }
        if sort {
            out.sort_unstable_by_key(|e| e.0);
        }
        out
    }
}

/// The outcome of one [`gather`]: each bucket's output and tally.
struct Gathered<O> {
    buckets: Vec<Vec<O>>,
    tally: u64,
    /// Items produced (children or parents, duplicates included).
    produced: u64,
    /// Whether each bucket's entries were handed over in key order.
    sorted: bool,
    /// Distinct items (before keeping the members of `within`).
    distinct: u64,
}

/// Produces items from the `sources` in parallel (`produce(source,
/// sink)`, plus the `extra` items as they are), partitions them into `nb`
/// hash buckets, merges the duplicates of each bucket with `combine`, and
/// hands each bucket's distinct entries to `finish(bucket, entries, out)
/// -> tally`, sorted by key if `sort`. With `within`, a layer partitioned
/// alike, only the entries that are members of `within` are handed over:
/// looked up in the bucket's table (in `within`'s order: when that costs
/// less than sorting the entries, or `within` is not sorted), or else
/// sorted and merged with `within`'s bucket.
///
/// When the scatter buffers would exceed `avail` bytes, the sources are
/// taken in batches: each batch leaves a sorted run of distinct entries per
/// bucket, and the runs are merged at the end (every item is produced once).
#[allow(clippy::too_many_arguments)]
fn gather<S, T, V, O>(
    sources: &[&[S]],
    extra: &[(T, V)],
    nb: usize,
    est_items: usize,
    distinct: f64,
    avail: usize,
    produce: &(impl Fn(&S, &mut Sink<T, V>) + Sync),
    combine: &(impl Fn(&mut V, V) + Sync),
    finish: &(impl Fn(usize, &[(T, V)], &mut Vec<O>) -> u64 + Sync),
    within: Option<&Layer<T>>,
    sort: bool,
) -> Option<Gathered<O>>
where
    S: Sync,
    T: Copy + Ord + Hash + Send + Sync,
    V: Copy + Default + Send + Sync,
    O: Send,
{
    let item_bytes = std::mem::size_of::<T>() + std::mem::size_of::<V>();
    // Vectors grow past their reservations: budget for some slack. The
    // runs of a batched gather take part of the budget too.
    let est_bytes = est_items.saturating_mul(item_bytes) / 4 * 5;
    let mut batches = est_bytes.div_ceil(avail.max(1)).max(1);
    if batches > 1 {
        let runs = (est_items as f64 * distinct.min(1.0) * 1.5) as usize * item_bytes;
        if runs >= avail {
            return None;
        }
        batches = est_bytes.div_ceil(avail - runs).max(1);
    }
    if batches > MAX_BATCHES {
        return None;
    }
    let n: usize = sources.iter().map(|s| s.len()).sum();
    let threads = rayon::current_num_threads();
    let chunk = (n / (threads * 8 * batches)).max(256);
    // Tasks: runs of about `chunk` sources, as (slice, start, end) pieces.
    let mut tasks: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new()];
    let mut filled = 0;
    for (k, s) in sources.iter().enumerate() {
        let mut i = 0;
        while i < s.len() {
            let j = (i + chunk - filled).min(s.len());
            tasks.last_mut().expect("a task").push((k, i, j));
            filled += j - i;
            i = j;
            if filled == chunk {
                tasks.push(Vec::new());
                filled = 0;
            }
        }
    }
    let batches = batches.min(tasks.len()).max(1);
    let mut out = Gathered {
        buckets: Vec::with_capacity(nb),
        tally: 0,
        produced: 0,
        // Merged runs are sorted; looked-up members come in `within`'s order.
        sorted: batches > 1 || within.map_or(sort, |w| w.sorted),
        distinct: 0,
    };
    // Two levels: items are scattered into at most COARSE buckets as they
    // are produced (few write streams, so the stores stay cheap), then each
    // coarse bucket is split into `fine` buckets that are de-duplicated in
    // cache. Bucket `b` of `nb` is fine bucket `b % fine` of coarse bucket
    // `b / fine` (multiply-shift bucketing nests).
    let (coarse, fine) = split(nb);
    let tables: Vec<std::sync::Mutex<Table<T, V>>> = (0..threads + 1)
        .map(|_| std::sync::Mutex::new(Table::new()))
        .collect();
    // runs[b]: the sorted distinct entries of bucket b, one per batch.
    let mut runs: Vec<Vec<Vec<(T, V)>>> = (0..if batches > 1 { nb } else { 0 })
        .map(|_| Vec::with_capacity(batches))
        .collect();
    // Each bucket's output, tally and distinct items.
    let mut results: Vec<(Vec<O>, u64, u64)> = Vec::new();
    for batch in 0..batches {
        let mine = &tasks[tasks.len() * batch / batches..tasks.len() * (batch + 1) / batches];
        let mean = est_items / batches / coarse / mine.len().max(1);
        // Room for the spread of a hash partition and of the estimate.
        let reserve = mean + mean / 4 + 16;
        let mut sinks: Vec<Sink<T, V>> = mine
            .par_iter()
            .map(|pieces| {
                let mut s = Sink::new(coarse, reserve);
                for &(k, i, j) in pieces {
                    for x in &sources[k][i..j] {
                        produce(x, &mut s);
                    }
                }
                s
            })
            .collect();
        if batch == 0 && !extra.is_empty() {
            let mut s = Sink::new(coarse, 0);
            for &(t, v) in extra {
                s.push(t, v);
            }
            sinks.push(s);
        }
        if sinks.iter().map(Sink::bytes).sum::<usize>() > avail.saturating_mul(2) {
            return None;
        }
        out.produced += sinks.iter().map(|s| s.len() as u64).sum::<u64>();
        let last = batches == 1;
        let done: Vec<Vec<Finished<O, T, V>>> = (0..coarse)
            .into_par_iter()
            .map(|c| {
                let slot = rayon::current_thread_index().map_or(threads, |t| t.min(threads));
                let mut table = tables[slot].lock().unwrap_or_else(|e| e.into_inner());
                let table = &mut *table;
                // Split the coarse bucket into its fine ones (in buffers
                // the worker keeps: fresh memory is slow to fill).
                if fine > 1 {
                    let count: usize = sinks.iter().map(|s| s.count(c)).sum();
                    let per = count / fine + count / fine / 8 + 16;
                    table.split_keys.resize_with(fine, Vec::new);
                    table.split_vals.resize_with(fine, Vec::new);
                    for (k, v) in table.split_keys.iter_mut().zip(&mut table.split_vals) {
                        k.clear();
                        k.reserve(per);
                        v.clear();
                        v.reserve(per);
                    }
                    for s in &sinks {
                        for (&k, &v) in s.keys[c].iter().zip(&s.vals[c]) {
                            let f = bucket_of(hash_of(&k), nb) - c * fine;
                            table.split_keys[f].push(k);
                            table.split_vals[f].push(v);
                        }
                    }
                }
                let keys = std::mem::take(&mut table.split_keys);
                let vals = std::mem::take(&mut table.split_vals);
                let result = (0..fine)
                    .map(|f| {
                        let b = c * fine + f;
                        let parts: Vec<(&[T], &[V])> = if fine == 1 {
                            sinks
                                .iter()
                                .map(|s| (&s.keys[c][..], &s.vals[c][..]))
                                .collect()
                        } else {
                            vec![(&keys[f][..], &vals[f][..])]
                        };
                        let mut o = Vec::new();
                        let Some(first) = parts.iter().find_map(|p| p.0.first().copied()) else {
                            let t = if last { finish(b, &[], &mut o) } else { 0 };
                            return (o, t, Vec::new(), 0);
                        };
                        let count: usize = parts.iter().map(|p| p.0.len()).sum();
                        // Size for the share of distinct keys seen in this
                        // gather's last bucket (or the caller's guess):
                        // growing a table rehashes it.
                        let share = if table.ratio > 0.0 {
                            (table.ratio * 1.25).min(1.0)
                        } else {
                            distinct.min(1.0)
                        };
                        table.prepare((count as f64 * share) as usize + 16, first);
                        for (k, v) in parts {
                            table.insert_all(k, v, combine);
                        }
                        table.ratio = (table.len + 1) as f64 / count as f64;
                        let found = (table.len + table.empty_val.is_some() as usize) as u64;
                        let entries = match within {
                            // A look-up costs a few comparisons of a sort.
                            Some(w) if last => {
                                let here = w.bucket(b);
                                if !w.sorted || here.len() <= 4 * table.len {
                                    table.members(here)
                                } else {
                                    table.members_merged(here)
                                }
                            }
                            // The runs of a batched gather are merged.
                            _ => table.entries(sort || !last),
                        };
                        if !last {
                            return (o, 0, entries.to_vec(), 0);
                        }
                        o.reserve_exact(entries.len());
                        let t = finish(b, entries, &mut o);
                        o.shrink_to_fit();
                        (o, t, Vec::new(), found)
                    })
                    .collect();
                table.split_keys = keys;
                table.split_vals = vals;
                result
            })
            .collect();
        drop(sinks);
        for (b, (o, t, run, found)) in done.into_iter().flatten().enumerate() {
            if last {
                results.push((o, t, found));
            } else {
                runs[b].push(run);
            }
        }
    }
    if batches > 1 {
        // Merge each bucket's runs, then finish it.
        results = runs
            .into_par_iter()
            .enumerate()
            .map(|(b, bucket_runs)| {
                let mut merged = bucket_runs
                    .into_iter()
                    .reduce(|a, r| merge_runs(a, r, combine))
                    .unwrap_or_default();
                let found = merged.len() as u64;
                match within {
                    Some(w) if w.sorted => retain_members(&mut merged, w.bucket(b)),
                    Some(w) => {
                        let here: FxHashSet<&T> = w.bucket(b).iter().collect();
                        merged.retain(|e| here.contains(&e.0));
                    }
                    None => {}
                }
                let mut o = Vec::with_capacity(merged.len());
                let t = finish(b, &merged, &mut o);
                o.shrink_to_fit();
                (o, t, found)
            })
            .collect();
    }
    for (o, t, found) in results {
        out.buckets.push(o);
        out.tally += t;
        out.distinct += found;
    }
    Some(out)
}

/// [`gather`] of bare positions: each bucket's distinct items (only the
/// members of `within`, with it) as a layer, and how many distinct items
/// there were.
#[allow(clippy::too_many_arguments)]
fn gather_layer<S: Sync, T: Copy + Ord + Hash + Send + Sync>(
    sources: &[&[S]],
    extra: &[(T, ())],
    nb: usize,
    est_items: usize,
    distinct: f64,
    avail: usize,
    produce: &(impl Fn(&S, &mut Sink<T, ()>) + Sync),
    within: Option<&Layer<T>>,
    sort: bool,
) -> Option<(Layer<T>, u64)> {
    let g = gather(
        sources,
        extra,
        nb,
        est_items,
        distinct,
        avail,
        produce,
        &|_, _| {},
        &|_, entries: &[(T, ())], out: &mut Vec<T>| {
            out.extend(entries.iter().map(|e| e.0));
            0
        },
        within,
        sort,
    )?;
    Some((Layer::from_parts(g.buckets, g.sorted), g.distinct))
}

/// What a bucket of one batch leaves: its output, tally and number of
/// distinct items (last batch), or its run of sorted distinct entries
/// (earlier batches).
type Finished<O, T, V> = (Vec<O>, u64, Vec<(T, V)>, u64);

/// Merges two sorted runs of distinct entries, combining equal keys.
fn merge_runs<T: Copy + Ord, V: Copy>(
    a: Vec<(T, V)>,
    b: Vec<(T, V)>,
    combine: &impl Fn(&mut V, V),
) -> Vec<(T, V)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let mut e = a[i];
                combine(&mut e.1, b[j].1);
                out.push(e);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Most coarse buckets (write streams while scattering children). Up to
/// this many buckets a gather is one level: the children go straight to
/// the buckets they are de-duplicated in, without a second pass that
/// splits them. 256 streams a worker cost no more to write than 64 on this
/// project's machine (2-core AMD EPYC, 48 KiB L1d, 1 MiB L2 a core), and
/// every English layer then fits one level: the full English count took
/// 12-16 % less CPU than with 64 (one thread, alternated runs).
const COARSE: usize = 256;

/// Rounds a wanted bucket count to one that splits as `coarse * fine`.
fn round_buckets(nb: usize) -> usize {
    if nb <= COARSE {
        nb.max(1)
    } else {
        nb.div_ceil(COARSE) * COARSE
    }
}

/// The coarse and fine factors of a bucket count from [`round_buckets`]
/// (any other count is left in one level).
fn split(nb: usize) -> (usize, usize) {
    if nb > COARSE && nb.is_multiple_of(COARSE) {
        (COARSE, nb / COARSE)
    } else {
        (nb, 1)
    }
}

/// What building the next layer needs to know.
struct Ctx<'a, P: crate::Rules> {
    puzzle: &'a P,
    opts: &'a LayeredOptions,
    progress: &'a dyn Progress,
    /// Bytes of the stored layers.
    stored: usize,
    /// Expected distinct positions per item produced (from the last layer).
    distinct: f64,
    /// Whether the layers are kept sorted within their buckets. The
    /// solution counts merge them with indices, and in the full
    /// enumeration sorted parents give their children's duplicates
    /// locality (unsorted cost 7 % more there); the goal-reaching set
    /// alone looks members up instead, and leaving each bucket in table
    /// order saves sorting every layer (about 6 % of its CPU).
    sort: bool,
}

struct Plan {
    nb: usize,
    est: usize,
    avail: usize,
}

/// A layer built forward: the layer, the sum of its orbit sizes (when
/// asked), the share of distinct children among all, and the bytes of the
/// bitmap that de-duplicated it (0 when hashed).
type ForwardLayer<T> = (Layer<T>, u64, f64, usize);

/// Default of [`LayeredOptions::dense_min_children`]: below this, hashing
/// the children costs less than clearing and scanning a bitmap.
const DENSE_MIN_CHILDREN: usize = 16_000;
/// Largest bitmap per child (bytes): a sparser bitmap costs more to scan
/// than the children cost to hash.
const DENSE_BYTES_PER_CHILD: usize = 4;
/// Parents per batch of child keys (the batch stays in L1/L2).
const DENSE_CHUNK: usize = 256;
/// Default of [`LayeredOptions::dense_direct_bytes`]: a bitmap this big
/// still stays in the last-level cache.
const DENSE_DIRECT_BYTES: usize = 24 << 20;
/// Bits of a bitmap segment (log 2): 2 MiB, about a core's L2 and L3 share.
const DENSE_SEGMENT_LOG: u32 = 24;
/// Children buffered per batch of a segmented fill (4 bytes each).
const DENSE_BATCH_CHILDREN: usize = 48 << 20;

/// A canonical position with its solution count and orbit size.
type CountedEntry<T> = (T, u128, u32);

/// Canonical positions with their solution counts and orbit sizes.
type Counted<T> = Vec<CountedEntry<T>>;

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    fn new(
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
        }
    }

    fn budget_error(&self, layer: usize, needed: usize) -> LayeredError {
        LayeredError::MemoryBudget {
            budget: self.opts.max_bytes,
            layer,
            needed,
        }
    }

    /// Sizes the buckets and the passes of a layer about to be built from
    /// `n` sources producing about `per_source` items each.
    fn plan(&self, n: usize, per_source: f64, layer: usize) -> Result<Plan, LayeredError> {
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
    fn fanout<'b>(
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
    fn forward(
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

    /// [`Ctx::forward`] by a ranked bitmap ([`crate::dense`]), when the
    /// puzzle has dense keys and the layer is big enough for the bitmap to
    /// pay (and small enough for the budget). `None` leaves the layer to
    /// the hash de-duplication (also when a child falls outside the ranked
    /// layer: the puzzle's invariants did not hold).
    fn forward_dense(
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
        let ranker = crate::dense::Ranker::new(dk.key_bits(), &dk.invariants())?;
        // The layer's class, from the first parent with a child.
        let mut probe = Vec::new();
        for p in parents.iter() {
            dk.child_keys(std::slice::from_ref(p), &mut probe);
            if !probe.is_empty() {
                break;
            }
        }
        let (k, par) = ranker.layer_class(*probe.first()?);
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

    /// Every canonical parent of `layer`, plus the `extra` positions
    /// (goals).
    fn backward_all(
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
    fn reversed(
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
    fn intersect(
        &self,
        a: &Layer<P::Position>,
        b: &Layer<P::Position>,
        depth: usize,
    ) -> Result<Layer<P::Position>, LayeredError> {
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
    fn step_within(
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
    fn linked_pairs(
        &self,
        layer: &Layer<P::Position>,
        per_member: f64,
        links: &(impl Fn(&P::Position, &mut Vec<P::Position>) + Sync),
    ) -> Option<Layer<P::Position>> {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
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
    fn step_within_mapped(
        &self,
        from: &Layer<P::Position>,
        within: &Layer<P::Position>,
        extra: &[P::Position],
        depth: usize,
        forward: bool,
        mirror: bool,
    ) -> Result<(Layer<P::Position>, u64), LayeredError> {
        let puzzle = self.puzzle;
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

    /// The goal-reaching members of `layer` with their solution counts and
    /// orbit sizes, from those of the next layer (see the module
    /// documentation). `goals` are the canonical goals in this layer.
    fn backward_counts(
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
    fn counts_step(
        &self,
        layer: &Layer<P::Position>,
        from: &Counted<P::Position>,
        goals: &[P::Position],
        depth: usize,
        push: Push,
        times: Option<&[&[CountedEntry<P::Position>]]>,
    ) -> Result<Counted<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
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

/// Where [`Ctx::counts_step`] moves counts: along the moves backward or
/// forward, or from `q` to σ `q` or to the parents of σ `q` (σ the time
/// reversal).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Push {
    Parents,
    Children,
    MirrorParents,
    Mirror,
}

/// Keeps the entries whose keys are also in `here` (both sorted): one
/// merge, galloping over the longer side.
fn retain_members<T: Ord + Copy, V>(entries: &mut Vec<(T, V)>, here: &[T]) {
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
fn gallop<T: Ord>(xs: &[T], x: &T) -> (bool, usize) {
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

/// Calls `f(canonical parent, orbit size)` for every parent of `q`.
#[inline]
fn canonical_parents<P: Reversible + Symmetric>(
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

/// Lowest score, and the positions with it, over the layers seen so far.
struct Best<T> {
    score: u32,
    positions: Vec<T>,
    count: u64,
    cap: usize,
}

impl<T: Copy + Ord + Hash + Send + Sync> Best<T> {
    fn new(cap: usize) -> Self {
        Best {
            score: u32::MAX,
            positions: Vec::new(),
            count: 0,
            cap,
        }
    }

    fn add<P: Puzzle<Position = T>>(&mut self, puzzle: &P, layer: &Layer<T>) {
        let Some(s) = layer.par_iter().map(|p| puzzle.score(p)).min() else {
            return;
        };
        if s > self.score {
            return;
        }
        if s < self.score {
            self.score = s;
            self.positions.clear();
            self.count = 0;
        }
        for p in layer.iter() {
            if puzzle.score(p) == s {
                self.count += 1;
                if self.positions.len() < self.cap {
                    self.positions.push(*p);
                }
            }
        }
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
fn goals_by_depth<P: Reversible + Symmetric>(puzzle: &P) -> Vec<(usize, P::Position)> {
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
fn hopeless<P: Puzzle + Symmetric>(puzzle: &P) -> bool {
    let start = puzzle.start();
    !puzzle.is_goal(&start) && puzzle.cannot_reach_goal(&start)
}

/// The whole reachable graph, forward, then the backward pass over it.
fn full<P: Reversible + Symmetric>(
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

/// What the backward pass with counts found.
struct BackwardPass<T> {
    /// Distinct solutions from the start.
    solutions: u128,
    /// Canonical children of the start with the solutions through each.
    child_solutions: Vec<(T, u128)>,
    /// Whether some goal lies in the layers passed over.
    goal_reachable: bool,
    /// The goal-reaching positions of each depth, sorted, when asked for.
    goal_layers: Vec<Vec<T>>,
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
    fn counted_backward<'l>(
        &self,
        goals: &[(usize, P::Position)],
        layer: impl Fn(usize) -> &'l Layer<P::Position>,
        stats: &mut [LayerStats],
        keep: bool,
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
            let here = self.backward_counts(here_layer, &next, &here_goals, depth)?;
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
fn mirrored_solutions<'l, P: Reversible + Symmetric>(
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
        f = ctx.counts_step(good(d), &f, &[], d, Push::Children, None)?;
        ctx.progress.advance(1);
    }
    let middle = good(m);
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

/// The goal-only enumeration from both ends; `None` when the puzzle's
/// moves do not each lower the score by one (the caller falls back to the
/// full enumeration).
fn meet_in_middle<P: Reversible + Symmetric>(
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
            // x of layer m reaches the goal when σ(x) has a parent y in
            // layer m; then σ(y) has x for a parent too, so each pair is
            // named once, from its lesser end.
            let layer = &fwd[m];
            let fan = ctx.fanout(layer.iter(), layer.len(), true) / 2.0;
            let joined = ctx.linked_pairs(layer, fan, &|x, out| {
                if let Some(s) = puzzle.reversal(x) {
                    canonical_parents(puzzle, &s, |y, _| {
                        if y >= *x {
                            out.push(y)
                        }
                    });
                }
            });
            match joined {
                Some(l) => good.push(l),
                None => {
                    let (layer, _) = ctx.step_within_mapped(layer, layer, &[], m, false, true)?;
                    good.push(layer);
                }
            }
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
                let (layer, _) = ctx.step_within(to, &fwd[d], &[], d, false)?;
                stored += layer.bytes();
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
        // Layers past the middle are the mirror images of those before it.
        let layer = |d: usize| match d {
            d if d < m => &low[d],
            d if d == m => &good[0],
            d if last - d == m => &good[0],
            d => &low[last - d],
        };
        for (d, stat) in stats.iter_mut().enumerate() {
            let l = layer(d);
            stat.to_goal_reduced = l.len() as u64;
            stat.to_goal_raw = l.par_iter().map(|p| puzzle.orbit_size(p) as u64).sum();
        }
        pass.goal_reachable = good.last().is_some_and(|l| l.len() > 0);
        if opts.keep_goal_layers && pass.goal_reachable {
            goal_layers = (0..=m)
                .map(|d| {
                    let mut v: Vec<P::Position> = layer(d).iter().copied().collect();
                    v.par_sort_unstable();
                    v
                })
                .collect();
        }
        if opts.count_solutions {
            progress.phase("counting", m as u64 + 1);
            let ctx = Ctx::new(puzzle, opts, progress, stored, 1.0, sort);
            pass.solutions = mirrored_solutions(&ctx, layer, m, last)?;
        }
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
            let (layer, _) = ctx.step_within(to, &fwd[d], &goals_at(d), d, false)?;
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
            stat.to_goal_raw = l.par_iter().map(|p| puzzle.orbit_size(p) as u64).sum();
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
        pass = ctx.counted_backward(&goals, layer, &mut stats, opts.keep_goal_layers)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A layer of `keys` partitioned into `nb` buckets, each sorted or
    /// reversed.
    fn layer_of(keys: &BTreeSet<u64>, nb: usize, sorted: bool) -> Layer<u64> {
        let mut buckets = vec![Vec::new(); nb];
        for &k in keys {
            buckets[bucket_of(hash_of(&k), nb)].push(k);
        }
        if !sorted {
            buckets.iter_mut().for_each(|b| b.reverse());
        }
        Layer::from_parts(buckets, sorted)
    }

    #[test]
    fn gather_keeps_exactly_the_members_in_every_route() {
        // Each source names three items, with many duplicates.
        let sources: Vec<u64> = (0..4000).collect();
        let produce = |&x: &u64, sink: &mut Sink<u64, ()>| {
            for m in [7, 13, 29] {
                sink.push(x * m % 2003, ());
            }
        };
        let all: BTreeSet<u64> = sources
            .iter()
            .flat_map(|x| [7, 13, 29].map(|m| x * m % 2003))
            .collect();
        let odd: BTreeSet<u64> = (0..3000).filter(|k| k % 2 == 1).collect();
        let nb = 16;
        let item = std::mem::size_of::<u64>();
        let est = 3 * sources.len();
        // Room for all the scatter buffers at once, or only for a fifth
        // of them beside the runs: the sources are then taken in batches.
        let roomy = est * item * 4;
        let tight = (est as f64 * 0.2 * 1.5) as usize * item + est * item / 4;
        for avail in [roomy, tight] {
            for sort in [true, false] {
                for within in [None, Some(true), Some(false)] {
                    let w = within.map(|s| layer_of(&odd, nb, s));
                    let g = gather::<u64, u64, (), u64>(
                        &[&sources],
                        &[],
                        nb,
                        est,
                        0.2,
                        avail,
                        &produce,
                        &|_, _| {},
                        &|_, entries, out| {
                            out.extend(entries.iter().map(|e| e.0));
                            entries.len() as u64
                        },
                        w.as_ref(),
                        sort,
                    )
                    .expect("fits");
                    let case = format!("avail {avail}, sort {sort}, within {within:?}");
                    let expected: BTreeSet<u64> = match within {
                        Some(_) => all.intersection(&odd).copied().collect(),
                        None => all.clone(),
                    };
                    let got: Vec<u64> = g.buckets.iter().flatten().copied().collect();
                    assert_eq!(got.len(), expected.len(), "{case}: no duplicates");
                    assert_eq!(
                        got.iter().copied().collect::<BTreeSet<_>>(),
                        expected,
                        "{case}"
                    );
                    assert_eq!(g.distinct, all.len() as u64, "{case}");
                    assert_eq!(g.tally, expected.len() as u64, "{case}");
                    for (b, bucket) in g.buckets.iter().enumerate() {
                        assert!(
                            bucket.iter().all(|k| bucket_of(hash_of(k), nb) == b),
                            "{case}: bucket {b}"
                        );
                        if g.sorted {
                            assert!(bucket.is_sorted(), "{case}: bucket {b} sorted");
                        }
                    }
                    // What the caller asked for, or the order of a sorted
                    // `within`, comes out sorted.
                    if sort && within != Some(false) || within == Some(true) {
                        assert!(g.sorted, "{case}");
                    }
                    let layer = Layer::from_parts(g.buckets, g.sorted);
                    assert!(expected.iter().all(|k| layer.contains(k)), "{case}");
                    assert!(!layer.contains(&5000), "{case}");
                }
            }
        }
    }
}
