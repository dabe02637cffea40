//! Ranked dense layers: de-duplication by a bitmap indexed by rank.
//!
//! Boards whose positions are sets of at most 48 cells can describe a
//! position by a key of `n` bits ([`DenseKeys`]). All positions of one layer
//! of a layered enumeration have the same number `k` of set bits, and a
//! puzzle may name linear invariants over GF(2) (masks whose parity is the
//! same for every position of the layer, such as peg solitaire's position
//! classes). The keys possible in a layer are then few enough to be ranked
//! densely: the key is split into a high and a low half; a layer-independent
//! table gives each low half its rank among the low halves of its class
//! (bit count and invariant parities), and a per-layer table gives each
//! high half the number of possible keys with a smaller high half:
//! `rank = high_cum[hi] + low_rank[lo]`, once the key's own class (summed
//! from a small table per key byte) is the layer's. The rank preserves the
//! order of the keys, so a bitmap of that many bits de-duplicates a
//! layer's children by setting bits, scanning it hands them back sorted,
//! and testing a bit tells whether a key is a member.
//!
//! Where every key the puzzle hands over is the least of its images under
//! its symmetries ([`DenseKeys::key_symmetries`]), a high half that no
//! least image has is left out of every layer: its keys take no bits. On
//! 37 holes with eight symmetries this leaves about a third of the bits.
//!
//! A key that does not have the layer's class is reported (never ranked
//! into another key's bit), so a puzzle whose invariants do not hold keeps
//! its counts: the engine then falls back to its hash de-duplication.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Positions that are sets of cells, with a dense key (see the module
/// documentation). The calls take batches so that the engine's hot loop
/// makes one indirect call per batch, not per position.
pub trait DenseKeys<T>: Sync {
    /// Bits of a key (cells of the board), at most 48.
    fn key_bits(&self) -> u32;
    /// Key masks whose parity is the same for every canonical position of
    /// a layer (may be empty; at most 8).
    fn invariants(&self) -> Vec<u64>;
    /// The key of a position. Keys must order as the positions do.
    fn key(&self, pos: &T) -> u64;
    /// Appends the keys of `pos` to `out` (one indirect call a batch).
    fn keys(&self, pos: &[T], out: &mut Vec<u64>) {
        out.extend(pos.iter().map(|p| self.key(p)));
    }
    /// Appends the positions of `keys` to `out`.
    fn positions(&self, keys: &[u64], out: &mut Vec<T>);
    /// Appends the keys of the canonical children of every position of
    /// `parents` to `out` (one per move, duplicates included).
    fn child_keys(&self, parents: &[T], out: &mut Vec<u64>);
    /// Appends the keys of the canonical children (`forward`) or parents
    /// of every position of `pos` to `out` (one per move, duplicates
    /// included), and after each position the length of `out` to `ends`:
    /// the neighbours of `pos[i]` are `out[ends[i - 1]..ends[i]]`. The
    /// engine's membership tests and counts take their neighbours' keys
    /// this way, one call a batch, with no list of positions between.
    fn neighbour_keys(&self, pos: &[T], forward: bool, out: &mut Vec<u64>, ends: &mut Vec<u32>);
    /// Appends the keys of the canonical images of `pos` under the
    /// puzzle's time reversal ([`crate::Reversible::reversal`]) to `out`,
    /// one a position, and returns `true`; or returns `false`, untouched,
    /// when the puzzle offers no such batch (the default: the engine then
    /// maps the positions one by one).
    fn reversed_keys(&self, _pos: &[T], _out: &mut Vec<u64>) -> bool {
        false
    }
    /// Whether the [`DenseKeys::invariants`] are proven: every canonical
    /// child of the positions of a layer then has the class of every
    /// other, and so has every canonical parent of the members of a
    /// reachable layer (in the layer before); the engine ranks them
    /// without testing their class ([`LayerRank::rank_in_class`]). The
    /// default, `false`, keeps the test, so that a puzzle whose
    /// invariants fail keeps its counts.
    fn children_keep_class(&self) -> bool {
        false
    }
    /// Drops from `keys`, all of one ranked layer, exactly the keys whose
    /// positions [`crate::Puzzle::cannot_reach_goal`] rules out, and
    /// returns `true`; or returns `false`, untouched, when the puzzle
    /// has no such test on keys (the default: the engine then tests the
    /// positions). A pruned layer is filtered as it is read out of its
    /// bitmap, before its positions are made.
    fn prune_keys(&self, _keys: &mut Vec<u64>) -> bool {
        false
    }
    /// Symmetries under which every key this puzzle hands to the engine
    /// (of positions, children, parents, images) is the least of its
    /// images: per symmetry, the bit each key bit goes to. The ranking
    /// then leaves out the high halves no least image has. Empty (the
    /// default): no such promise.
    fn key_symmetries(&self) -> Vec<Vec<u32>> {
        Vec::new()
    }
    /// Whether a position's [`crate::Puzzle::score`] is its key's bit
    /// count: every member of a ranked layer then has the layer's count
    /// as its score, and the engine takes the best positions of such a
    /// layer without scoring each one. The default, `false`, scores them.
    fn score_is_bit_count(&self) -> bool {
        false
    }
}

/// Layer-independent tables of a key layout.
pub struct Ranker {
    bits: u32,
    lo_bits: u32,
    /// The invariant masks (the first `nm` used).
    masks: [u64; 8],
    nm: usize,
    /// Per byte `j` of a key and value `b`: the bit count of `b` (bits 40
    /// and up) and, in the 4-bit lane `i`, the parity of mask `i` over
    /// `b << 8j`. Summed over a key's bytes, the count and each lane's low
    /// bit give its class with a few loads from a table in L1 (the CPUs
    /// this builds for need not have a popcount instruction).
    /// Always six tables (48 bits; those past the key's bytes add
    /// nothing), so that the sum is unrolled without bounds checks.
    class_tab: Box<[[u64; 256]; 6]>,
    /// Per low half: its rank among the low halves of its class, in 16
    /// bits when every class has at most 2^16 low halves (then `low32` is
    /// empty), else in `low32` (and `low16` is empty); the one in use
    /// always holds `1 << lo_bits` entries (ranks index it unchecked). Half the bytes keep
    /// both rank tables of a 33-hole board in 512 KiB, within a core's L2
    /// cache beside the bitmap's traffic.
    low16: Vec<u16>,
    low32: Vec<u32>,
    /// Low halves sorted by (class, value), and where each class starts.
    lows_sorted: Vec<u32>,
    class_start: Vec<u32>,
    /// Per high half: its bit count (high byte) and its invariant
    /// parities (low byte), so that a layer's table is one pass of
    /// look-ups (an enumeration makes some fifty, one a layer or step,
    /// each of 2^16 high halves on a 33-hole board, serially); with
    /// [`NOT_LEAST`] set when no key with this high half is the least of
    /// its images.
    high_class: Vec<u16>,
    /// The symmetries the layout was made for (see [`Ranker::new`]).
    syms: Vec<Vec<u32>>,
}

/// The flag of [`Ranker::high_class`] of a high half that no least image
/// has: no layer gives it room.
const NOT_LEAST: u16 = 1 << 15;

/// The per-layer ranking of keys with `k` bits set and given parities.
///
/// Only the high half's count of smaller keys is looked up per layer (a
/// `u32`, so the table is half the size of one that also held the class
/// the low half must have): whether a key is in the layer at all is its
/// bit count and parities, computed, and its high half's flag (see
/// [`NOT_LEAST`]), and then its low half has the class its high half
/// needs. Both tables together (2 bytes a low half, 4 a high
/// half: 512 KiB for 33 holes, 2 MiB for 37) stay in a core's L2 cache
/// for boards of up to 34 holes.
///
/// `H` is the width of the high table's entries: `u32` ([`Ranker::layer`])
/// for layers of fewer than 2^32 keys, the tables every board of up to 37
/// holes needs; `u64` ([`Ranker::layer_wide`]) for any layer, such as the
/// middle layers of the 41-hole diamond (`C(41, 20)/16` ≈ 1.7 × 10^10
/// keys). Both rank alike; the narrow one keeps its table half the size.
pub struct LayerRank<'r, H = u32> {
    r: &'r Ranker,
    k: u32,
    parities: u64,
    /// The class as [`Ranker::class_tab`] lays it out.
    spread: u64,
    /// Per high half: the number of layer keys with a smaller high half.
    high: Vec<H>,
    total: u64,
}

/// An entry of a layer's high table: a count of keys, in 32 or 64 bits.
pub trait HighWord: Copy + Send + Sync + 'static {
    /// The entry for `n` keys, if it fits.
    fn from_count(n: u64) -> Option<Self>;
    /// The count it holds.
    fn count(self) -> u64;
}

impl HighWord for u32 {
    #[inline(always)]
    fn from_count(n: u64) -> Option<u32> {
        u32::try_from(n).ok()
    }
    #[inline(always)]
    fn count(self) -> u64 {
        self as u64
    }
}

impl HighWord for u64 {
    #[inline(always)]
    fn from_count(n: u64) -> Option<u64> {
        Some(n)
    }
    #[inline(always)]
    fn count(self) -> u64 {
        self
    }
}

impl Ranker {
    /// Tables for keys of `bits` bits with the invariant `masks`, of
    /// which only the least of their images under `syms` are ranked (per
    /// symmetry, the bit each key bit goes to; empty: every key); `None`
    /// when the layout does not fit (more than 48 bits or 8 masks) or a
    /// symmetry is not a permutation of the bits.
    pub fn new(bits: u32, masks: &[u64], syms: &[Vec<u32>]) -> Option<Ranker> {
        if bits == 0 || bits > 48 || masks.len() > 8 {
            return None;
        }
        // Per symmetry, the bit of a key that lands on each bit of its
        // image.
        let mut from = Vec::with_capacity(syms.len());
        for g in syms {
            let mut inv = vec![u32::MAX; bits as usize];
            if g.len() != bits as usize {
                return None;
            }
            for (i, &j) in g.iter().enumerate() {
                *inv.get_mut(j as usize)? = i as u32;
            }
            if inv.contains(&u32::MAX) {
                return None;
            }
            // The identity compares every bit with itself: it decides
            // nothing, and would walk every high bit of every high half.
            if inv.iter().enumerate().any(|(b, &src)| b as u32 != src) {
                from.push(inv);
            }
        }
        // The low table's entries take 2 bytes and the high table's 4:
        // the low half gets the odd bit (both tables then hold about
        // the same bytes, the least in all).
        let lo_bits = bits.div_ceil(2);
        let nl = 1usize << lo_bits;
        let mut m = [0u64; 8];
        m[..masks.len()].copy_from_slice(masks);
        let mut r = Ranker {
            bits,
            lo_bits,
            masks: m,
            nm: masks.len(),
            low16: Vec::new(),
            low32: Vec::new(),
            lows_sorted: Vec::new(),
            class_start: Vec::new(),
            class_tab: Box::new([[0; 256]; 6]),
            high_class: Vec::new(),
            syms: syms.to_vec(),
        };
        for j in 0..bits.div_ceil(8) as usize {
            for b in 0..256u64 {
                r.class_tab[j][b as usize] =
                    Ranker::spread(b.count_ones() as u64, r.parities(b << (8 * j)));
            }
        }
        let nclass = (lo_bits as usize + 1) << masks.len();
        let mut count = vec![0u32; nclass + 1];
        let class: Vec<u32> = (0..nl as u64).map(|lo| r.class_of(lo) as u32).collect();
        let low: Vec<u32> = class
            .iter()
            .map(|&c| {
                count[c as usize] += 1;
                count[c as usize] - 1
            })
            .collect();
        if count.iter().all(|&n| n <= 1 << 16) {
            r.low16 = low.iter().map(|&x| x as u16).collect();
        } else {
            r.low32 = low;
        }
        let mut start = vec![0u32; nclass + 1];
        for c in 0..nclass {
            start[c + 1] = start[c] + count[c];
        }
        let mut fill = start.clone();
        r.lows_sorted = vec![0; nl];
        for (lo, &c) in class.iter().enumerate() {
            r.lows_sorted[fill[c as usize] as usize] = lo as u32;
            fill[c as usize] += 1;
        }
        r.class_start = start;
        r.high_class = (0..1u64 << (bits - lo_bits))
            .map(|hi| {
                let least = Ranker::may_be_least(hi, lo_bits, bits, &from);
                (hi.count_ones() as u16) << 8
                    | r.parities(hi << lo_bits) as u16
                    | if least { 0 } else { NOT_LEAST }
            })
            .collect();
        Some(r)
    }

    /// Whether some key with high half `hi` may be the least of its
    /// images, `from[g][b]` being the key bit that lands on bit `b` of
    /// its image under symmetry `g`: a key is no greater than each image,
    /// and from the top bit down, while both bits compared lie in the
    /// high half, the first bit where they differ decides.
    fn may_be_least(hi: u64, lo_bits: u32, bits: u32, from: &[Vec<u32>]) -> bool {
        let bit = |b: u32| hi >> (b - lo_bits) & 1;
        from.iter().all(|g| {
            for b in (lo_bits..bits).rev() {
                let src = g[b as usize];
                if src < lo_bits {
                    break;
                }
                if bit(b) != bit(src) {
                    return bit(b) < bit(src);
                }
            }
            true
        })
    }

    /// [`Ranker::new`], shared: the tables of a layout are built once a
    /// process (a few milliseconds for 33 holes, where an enumeration
    /// ranks some fifty layers and steps), and the last few kept.
    pub fn shared(bits: u32, masks: &[u64], syms: &[Vec<u32>]) -> Option<std::sync::Arc<Ranker>> {
        use std::sync::{Arc, Mutex};
        /// Layouts kept (each a few MiB at most).
        const KEEP: usize = 4;
        static CACHE: Mutex<Vec<Arc<Ranker>>> = Mutex::new(Vec::new());
        let same = |r: &Ranker| r.bits == bits && r.masks[..r.nm] == *masks && r.syms == syms;
        if let Some(r) = CACHE.lock().ok()?.iter().find(|r| same(r)) {
            return Some(r.clone());
        }
        let r = Arc::new(Ranker::new(bits, masks, syms)?);
        let mut cache = CACHE.lock().ok()?;
        if cache.len() == KEEP {
            cache.remove(0);
        }
        cache.push(r.clone());
        Some(r)
    }

    /// [`Ranker::shared`] for the keys of `dk`: its bits, invariants and
    /// symmetries.
    pub fn for_keys<T>(dk: &dyn DenseKeys<T>) -> Option<std::sync::Arc<Ranker>> {
        Ranker::shared(dk.key_bits(), &dk.invariants(), &dk.key_symmetries())
    }

    /// Invariant parities of `key` as bits.
    #[inline(always)]
    fn parities(&self, key: u64) -> u64 {
        let mut s = 0;
        for (i, &m) in self.masks[..self.nm].iter().enumerate() {
            s |= (((key & m).count_ones() & 1) as u64) << i;
        }
        s
    }

    /// A class as [`Ranker::class_tab`] lays it out.
    fn spread(count: u64, parities: u64) -> u64 {
        (0..8).fold(count << 40, |s, i| s | (parities >> i & 1) << (4 * i))
    }

    /// Whether `key` has `spread`'s class, by [`Ranker::class_tab`].
    #[inline(always)]
    fn has_class(&self, key: u64, spread: u64) -> bool {
        let mut s = 0u64;
        for (j, t) in self.class_tab.iter().enumerate() {
            s += t[(key >> (8 * j)) as usize & 255];
        }
        s & (0xFF << 40 | 0x1111_1111) == spread
    }

    /// The class of a low half (bit count, parities).
    fn class_of(&self, lo: u64) -> u64 {
        ((lo.count_ones() as u64) << self.nm) | self.parities(lo)
    }

    /// The class the low half of a key of layer (`k`, `parities`) with
    /// high half `hi` must have, if any.
    #[inline]
    fn needed(&self, k: u32, parities: u64, hi: u64) -> Option<usize> {
        let c = self.high_class[hi as usize];
        if c & NOT_LEAST != 0 {
            return None;
        }
        let pc = (c >> 8) as u32;
        (pc <= k && k - pc <= self.lo_bits)
            .then(|| ((((k - pc) as u64) << self.nm) | (parities ^ (c & 255) as u64)) as usize)
    }

    /// Low halves of class `c`.
    fn class_len(&self, c: usize) -> u64 {
        (self.class_start[c + 1] - self.class_start[c]) as u64
    }

    /// The class (bit count `k`, parities) of a whole key.
    pub fn layer_class(&self, key: u64) -> (u32, u64) {
        (key.count_ones(), self.parities(key))
    }

    /// The ranking of the keys with `k` bits and these `parities`; `None`
    /// when the layer has 2^32 keys or more (a bitmap of 512 MiB).
    pub fn layer(&self, k: u32, parities: u64) -> Option<LayerRank<'_>> {
        self.layer_in(k, parities)
    }

    /// The ranking of the keys with `k` bits and these `parities`, of any
    /// size: ranks in 64 bits (the high table twice [`Ranker::layer`]'s).
    pub fn layer_wide(&self, k: u32, parities: u64) -> Option<LayerRank<'_, u64>> {
        self.layer_in(k, parities)
    }

    /// The ranking with high-table entries of type `H`; `None` when the
    /// layer's size does not fit one.
    fn layer_in<H: HighWord>(&self, k: u32, parities: u64) -> Option<LayerRank<'_, H>> {
        let nh = 1u64 << (self.bits - self.lo_bits);
        let mut high = Vec::with_capacity(nh as usize);
        let mut cum = 0u64;
        for hi in 0..nh {
            high.push(H::from_count(cum)?);
            if let Some(c) = self.needed(k, parities, hi) {
                cum += self.class_len(c);
            }
        }
        H::from_count(cum)?;
        Some(LayerRank {
            r: self,
            k,
            parities,
            spread: Ranker::spread(k as u64, parities),
            high,
            total: cum,
        })
    }

    /// Possible keys of the layer with `k` bits and these `parities`.
    pub fn layer_size(&self, k: u32, parities: u64) -> u64 {
        (0..1u64 << (self.bits - self.lo_bits))
            .filter_map(|hi| self.needed(k, parities, hi))
            .map(|c| self.class_len(c))
            .sum()
    }
}

impl<H: HighWord> LayerRank<'_, H> {
    /// Possible keys in the layer (bits of its bitmap).
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether no key is possible.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Bytes of the per-layer table (the high halves' counts).
    pub fn table_bytes(&self) -> usize {
        std::mem::size_of_val(&self.high[..])
    }

    /// The rank of `key`, or `None` when it is not a key of this layer
    /// (another class, or a high half no least image has).
    #[inline(always)]
    pub fn rank(&self, key: u64) -> Option<u64> {
        let r = self.r;
        let least = |c: &u16| c & NOT_LEAST == 0;
        if !r.has_class(key, self.spread)
            || !r
                .high_class
                .get((key >> r.lo_bits) as usize)
                .is_some_and(least)
        {
            return None;
        }
        self.rank_in_class(key)
    }

    /// The rank of `key`, known to have the layer's class (its bit count
    /// and invariant parities) and to be the least of its images: no
    /// test. `None` only when its high half lies past the table; another
    /// key gets another key's rank (or one past the layer).
    #[inline(always)]
    pub fn rank_in_class(&self, key: u64) -> Option<u64> {
        let r = self.r;
        // SAFETY: a ranker's low table holds `1 << lo_bits` entries.
        unsafe {
            if r.low32.is_empty() {
                rank_with(&r.low16, &self.high, r.lo_bits, key)
            } else {
                rank_with(&r.low32, &self.high, r.lo_bits, key)
            }
        }
    }

    /// [`LayerRank::rank_in_class`] of a key of the layer as a closure over
    /// the tables' values (`low`: the ranker's low table, `low16` or
    /// `low32`), for the bit-setting loops: its slices and shift are held
    /// in registers, where the method reads them through the ranker on
    /// every key (the stores to the bitmap might change them, as far as
    /// the compiler knows), and it picks no table per key. A rank past
    /// the layer is refused.
    #[inline(always)]
    fn in_class<'a, L: Copy + Into<u64>>(
        &'a self,
        low: &'a [L],
    ) -> impl Fn(u64) -> Option<u64> + 'a {
        let (shift, high, total) = (self.r.lo_bits, &self.high[..], self.total);
        assert_eq!(low.len(), 1 << shift, "the low table of the layout");
        // SAFETY: the table's length is asserted above.
        move |key| unsafe { rank_with(low, high, shift, key) }.filter(|&r| r < total)
    }

    /// Asks the cache for the rank-table entries of `key` (a hint, for a
    /// key to be ranked a little later).
    #[inline(always)]
    pub fn prefetch_rank(&self, key: u64) {
        let r = self.r;
        let hi = (key >> r.lo_bits) as usize;
        let lo = (key & ((1u64 << r.lo_bits) - 1)) as usize;
        if r.low32.is_empty() {
            prefetch(&r.low16, lo);
        } else {
            prefetch(&r.low32, lo);
        }
        prefetch(&self.high, hi);
    }

    /// The high half owning rank `rank` (the last with `cum <= rank`).
    fn high_of(&self, rank: u64) -> usize {
        self.high.partition_point(|&h| h.count() <= rank) - 1
    }

    /// Appends to `out` the keys whose bits are set in `words`, which start
    /// at word `first` of the layer's bitmap, in rank (= key) order.
    pub fn extract(&self, words: &[u64], first: usize, out: &mut Vec<u64>) {
        let r = self.r;
        let mut hi = usize::MAX;
        let mut lo_cum = 0u64;
        let mut hi_end = 0u64;
        let mut base = 0usize;
        for (i, &w) in words.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let rank = ((first + i) as u64) * 64 + w.trailing_zeros() as u64;
                w &= w - 1;
                if hi == usize::MAX || rank >= hi_end {
                    hi = if hi == usize::MAX {
                        self.high_of(rank)
                    } else {
                        // Ranks rise: walk forward (amortised).
                        let mut h = hi;
                        while h + 1 < self.high.len() && self.high[h + 1].count() <= rank {
                            h += 1;
                        }
                        h
                    };
                    lo_cum = self.high[hi].count();
                    hi_end = self.high.get(hi + 1).map_or(self.total, |&h| h.count());
                    // A high half that owns a rank has keys: its class is
                    // defined.
                    let c = r.needed(self.k, self.parities, hi as u64).unwrap_or(0);
                    base = r.class_start[c] as usize;
                }
                let lo = r.lows_sorted[base + (rank - lo_cum) as usize] as u64;
                out.push((hi as u64) << r.lo_bits | lo);
            }
        }
    }
}

/// `high[hi] + low[lo]` for the key's high and low halves (the low one
/// `shift` bits): the rank of a key of the layer's class, `None` when its
/// high half lies past `high`.
///
/// # Safety
/// `low` must hold `1 << shift` entries (every low half indexes it
/// unchecked).
#[inline(always)]
unsafe fn rank_with<L: Copy + Into<u64>, H: HighWord>(
    low: &[L],
    high: &[H],
    shift: u32,
    key: u64,
) -> Option<u64> {
    // SAFETY: `key & mask < 1 << shift`, the length the caller promises.
    let low = unsafe { *low.get_unchecked((key & ((1u64 << shift) - 1)) as usize) };
    Some(high.get((key >> shift) as usize)?.count() + low.into())
}

/// A bitmap shared by the workers of a layer.
pub struct Bitmap {
    words: Zeroed<u64>,
}

/// Bytes above which zeros are written in parallel (2 MiB).
const PAR_ZERO_BYTES: usize = 2 << 20;
/// Bytes of a bitmap above which it is advised to use huge pages.
const HUGE_BYTES: usize = 4 << 20;
/// A huge page (bytes), on x86-64.
const HUGE_PAGE: usize = 2 << 20;

/// Items of a big table in memory of their own: from the allocator, or
/// (big ones, on Linux) a fresh mapping of pages advised to be huge. The
/// allocator hands a big request the free space of its own heaps when it
/// has some, pages already touched as small ones, which advice no longer
/// turns into huge pages: a bitmap set at random then misses the TLB on
/// almost every bit.
enum Zeroed<T> {
    Heap(Vec<T>),
    #[cfg(target_os = "linux")]
    /// The first item, the items, the bytes mapped.
    Mapped(std::ptr::NonNull<T>, usize, usize),
}

// SAFETY: a mapping is owned like a `Vec`: one owner, freed once.
unsafe impl<T: Send> Send for Zeroed<T> {}
// SAFETY: shared access only reads through `&[T]`.
unsafe impl<T: Sync> Sync for Zeroed<T> {}

impl<T> std::ops::Deref for Zeroed<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Zeroed::Heap(v) => v,
            #[cfg(target_os = "linux")]
            // SAFETY: the mapping holds `n` items, written when made.
            Zeroed::Mapped(p, n, _) => unsafe { std::slice::from_raw_parts(p.as_ptr(), *n) },
        }
    }
}

impl<T> std::ops::DerefMut for Zeroed<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Zeroed::Heap(v) => v,
            #[cfg(target_os = "linux")]
            // SAFETY: as `deref`, borrowed exclusively.
            Zeroed::Mapped(p, n, _) => unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), *n) },
        }
    }
}

impl<T> Drop for Zeroed<T> {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Zeroed::Mapped(p, _, bytes) = self {
            // SAFETY: the mapping made in `zeroed`, unmapped once (its
            // items are `Copy`: nothing to drop).
            unsafe { libc::munmap(p.as_ptr().cast(), *bytes) };
        }
    }
}

/// `n` default (zero) items, written rather than taken as untouched zero
/// pages (in parallel when many; a mapping of huge pages when big, see
/// [`Zeroed`]): memory from `vec![0; n]` comes as untouched pages that a
/// first read (`|=`, a bit tested) maps to the shared zero page, and the
/// write that follows must then replace that page and flush the other
/// threads' TLBs, an interrupt per page to every core (costly on a
/// virtual machine).
fn zeroed<T: Copy + Default + Send + Sync>(n: usize) -> Zeroed<T> {
    use rayon::prelude::*;
    use std::mem::MaybeUninit;
    let bytes = n * std::mem::size_of::<T>();
    let fill = |items: &mut [MaybeUninit<T>]| {
        let zero = MaybeUninit::new(T::default());
        if bytes >= PAR_ZERO_BYTES {
            items
                .par_chunks_mut((1 << 18) / std::mem::size_of::<T>().max(1))
                .for_each(|c| c.fill(zero));
        } else {
            items.fill(zero);
        }
    };
    #[cfg(target_os = "linux")]
    if bytes >= HUGE_BYTES && std::mem::align_of::<T>() <= 4096 {
        // Whole huge pages, so that the kernel places the mapping on
        // their boundaries.
        let len = bytes.next_multiple_of(HUGE_PAGE);
        // SAFETY: a fresh private anonymous mapping, checked below; the
        // advice changes no contents (a failure only leaves small pages).
        let at = unsafe {
            let at = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if at != libc::MAP_FAILED {
                libc::madvise(at, len, libc::MADV_HUGEPAGE);
            }
            at
        };
        if let Some(p) = std::ptr::NonNull::new(at.cast::<T>()).filter(|_| at != libc::MAP_FAILED) {
            // SAFETY: the mapping holds `len >= n * size_of::<T>()` bytes,
            // page-aligned (T's alignment checked above).
            fill(unsafe { std::slice::from_raw_parts_mut(p.as_ptr().cast(), n) });
            return Zeroed::Mapped(p, n, len);
        }
    }
    let mut words: Vec<T> = Vec::with_capacity(n);
    fill(&mut words.spare_capacity_mut()[..n]);
    // SAFETY: the first `n` items were just written.
    unsafe { words.set_len(n) };
    Zeroed::Heap(words)
}

impl Bitmap {
    /// A cleared bitmap of `bits` bits, its zeros written ([`zeroed`]).
    pub fn new(bits: u64) -> Bitmap {
        Bitmap {
            words: zeroed(bits.div_ceil(64) as usize),
        }
    }

    /// The words, for setting bits from several threads.
    pub fn atomic(&mut self) -> &[AtomicU64] {
        const _: () = assert!(
            std::mem::size_of::<AtomicU64>() == 8 && std::mem::align_of::<AtomicU64>() == 8
        );
        // SAFETY: `AtomicU64` has the size and alignment of `u64` (checked
        // above), and the exclusive borrow keeps every plain access away
        // while the atomic view lives.
        unsafe {
            std::slice::from_raw_parts(self.words.as_ptr() as *const AtomicU64, self.words.len())
        }
    }

    /// The words, for setting bits by one owner per word.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// The words, once the bits are set.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// What [`MemberIndex::indices`] leaves for a key that is not a member.
pub const NOT_MEMBER: u64 = u64::MAX;

/// The members of one ranked layer, indexed by rank: their bitmap, in
/// cache lines of [`LINE_RANKS`] ranks that each hold the number of members
/// before the line and before each of its words. Ranks order as keys do,
/// so a member's index in the list of members sorted by key is the count
/// before its line, plus the count before its word within the line, plus
/// the members below it in that word: a look-up reads one cache line
/// (prefetchable from the key alone), where a hash table reads a slot and
/// then the member to compare, and a bitmap beside an array of counts two
/// lines far apart.
pub struct MemberIndex<'r> {
    layer: LayerRank<'r>,
    lines: Zeroed<Line>,
    members: usize,
    in_class: bool,
}

/// Ranks a [`Line`] holds: six words of bits.
const LINE_RANKS: u64 = 384;

/// One cache line of a [`MemberIndex`]: the bits of [`LINE_RANKS`] ranks,
/// the members before the line, and the members of its words 0..w before
/// word w (w = 1 … 5), nine bits each (at most 320) from bit 9·(w − 1).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Line {
    bits: [u64; 6],
    base: u64,
    subs: u64,
}

impl Line {
    /// Members in words 0..w of the line.
    #[inline(always)]
    fn before_word(&self, w: usize) -> u64 {
        if w == 0 {
            0
        } else {
            self.subs >> (9 * (w - 1)) & 0x1ff
        }
    }
}

/// The bit of rank `r` in the lines viewed as words: eight words a line,
/// the last two holding counts.
#[inline(always)]
fn line_bit(r: u64) -> u64 {
    r / LINE_RANKS * 512 + r % LINE_RANKS
}

impl<'r> MemberIndex<'r> {
    /// The index of `members`, whose keys (`dk`) must be in `layer`,
    /// distinct and, all pieces taken in turn, in increasing order (the
    /// pieces are ranked in parallel). `in_class`: the keys looked up
    /// later are known to have the layer's class
    /// ([`DenseKeys::children_keep_class`]), so their class is not tested.
    /// `None` when a member lies outside the layer or repeats.
    pub fn new<T: Sync>(
        layer: LayerRank<'r>,
        dk: &dyn DenseKeys<T>,
        members: &[&[T]],
        in_class: bool,
    ) -> Option<MemberIndex<'r>> {
        use rayon::prelude::*;
        let mut lines: Zeroed<Line> = zeroed(layer.len().div_ceil(LINE_RANKS) as usize);
        {
            const _: () = assert!(
                std::mem::size_of::<Line>() == 64 && std::mem::align_of::<AtomicU64>() == 8
            );
            // SAFETY: a `Line` is eight `u64` in order (`repr(C)`, 64
            // bytes, aligned to 64), `AtomicU64` has the size and alignment
            // of `u64`, and `lines` is borrowed exclusively while the
            // atomic view lives.
            let atomic = unsafe {
                std::slice::from_raw_parts(lines.as_mut_ptr() as *const AtomicU64, lines.len() * 8)
            };
            if !mark_pieces(&layer, dk, members, atomic, line_bit) {
                return None;
            }
        }
        lines.par_iter_mut().for_each(|l| {
            let mut n = 0u64;
            for w in 0..5 {
                n += l.bits[w].count_ones() as u64;
                l.subs |= n << (9 * w);
            }
            l.base = n + l.bits[5].count_ones() as u64;
        });
        let mut n = 0u64;
        for l in lines.iter_mut() {
            let here = l.base;
            l.base = n;
            n += here;
        }
        let want: usize = members.iter().map(|m| m.len()).sum();
        (n == want as u64).then_some(MemberIndex {
            layer,
            lines,
            members: want,
            in_class,
        })
    }

    /// Members indexed.
    pub fn len(&self) -> usize {
        self.members
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held (the lines and the layer's table).
    pub fn bytes(&self) -> usize {
        self.lines.len() * std::mem::size_of::<Line>() + self.layer.table_bytes()
    }

    /// The rank of `key` in the layer, if it can be a key of the layer.
    #[inline(always)]
    fn rank(&self, key: u64) -> Option<u64> {
        if self.in_class {
            self.layer
                .rank_in_class(key)
                .filter(|&r| r < self.layer.len())
        } else {
            self.layer.rank(key)
        }
    }

    /// The index of the member of rank `r`, if one has it.
    #[inline(always)]
    fn index_of_rank(&self, r: u64) -> Option<usize> {
        let line = &self.lines[(r / LINE_RANKS) as usize];
        let at = r % LINE_RANKS;
        let w = line.bits[(at >> 6) as usize];
        (w >> (at & 63) & 1 == 1).then(|| {
            let below = (w & ((1u64 << (at & 63)) - 1)).count_ones() as u64;
            (line.base + line.before_word((at >> 6) as usize) + below) as usize
        })
    }

    /// The index of the member whose key is `key`, if any.
    pub fn index(&self, key: u64) -> Option<usize> {
        self.rank(key).and_then(|r| self.index_of_rank(r))
    }

    /// Replaces every key of `keys` by its member's index, or by
    /// [`NOT_MEMBER`]: all ranks first (the rank tables' entries
    /// prefetched [`RANK_AHEAD`] keys ahead), then the look-ups, each word
    /// and count prefetched [`LOOKUP_AHEAD`] keys ahead so that the cache
    /// misses overlap.
    pub fn indices(&self, keys: &mut [u64]) {
        for i in 0..keys.len() {
            if let Some(&ahead) = keys.get(i + RANK_AHEAD) {
                self.layer.prefetch_rank(ahead);
            }
            keys[i] = self.rank(keys[i]).unwrap_or(NOT_MEMBER);
        }
        for i in 0..keys.len() {
            if let Some(&r) = keys.get(i + LOOKUP_AHEAD) {
                if r != NOT_MEMBER {
                    prefetch(&self.lines, (r / LINE_RANKS) as usize);
                }
            }
            let r = keys[i];
            keys[i] = if r == NOT_MEMBER {
                NOT_MEMBER
            } else {
                self.index_of_rank(r).map_or(NOT_MEMBER, |x| x as u64)
            };
        }
    }
}

/// Keys between a look-up's prefetch and the look-up.
pub const LOOKUP_AHEAD: usize = 32;
/// Keys between the prefetch of a key's rank-table entries
/// ([`LayerRank::prefetch_rank`]) and its rank, where the tables miss the
/// cache (look-ups; the segmented fill of big layers). The bit-setting
/// loops do without: on 33 holes the tables stay in L2, and the hint
/// cost more than it saved there.
pub const RANK_AHEAD: usize = 16;

/// Asks the cache for `items[i]` (a hint: nothing happens elsewhere than
/// on x86-64).
#[inline(always)]
pub fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults; the caller's `i` indexes `items`.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            items.as_ptr().wrapping_add(i) as *const i8,
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}

/// Sets the bits of the ranks of `keys` in `map`; on a key outside the
/// layer sets `bad` and stops. A few words ahead are prefetched so that the
/// cache misses overlap.
pub fn set_keys(
    layer: &LayerRank<'_>,
    keys: &[u64],
    ranks: &mut Vec<u64>,
    map: &[AtomicU64],
    bad: &AtomicBool,
) {
    set_ranked_keys(layer, keys, (false, false), ranks, map, bad)
}

/// Sets bit `place(r)` of `map` for the rank `r` of every key of
/// `pieces` (one rayon task a piece, ranked in parallel); `false` at a
/// key outside `layer`. `place` is the identity for a plain bitmap.
pub fn mark_pieces<T: Sync>(
    layer: &LayerRank<'_>,
    dk: &dyn DenseKeys<T>,
    pieces: &[&[T]],
    map: &[AtomicU64],
    place: impl Fn(u64) -> u64 + Sync,
) -> bool {
    use rayon::prelude::*;
    let bad = AtomicBool::new(false);
    pieces.par_iter().with_max_len(1).for_each_init(
        || (Vec::new(), Vec::new()),
        |(keys, ranks), piece| {
            keys.clear();
            dk.keys(piece, keys);
            if !fill(keys, |k| layer.rank(k).map(&place), ranks, map, set_bit) {
                bad.store(true, Ordering::Relaxed);
            }
        },
    );
    !bad.into_inner()
}

/// [`set_keys`], without the class test when `in_class` (every key known
/// to have the layer's class, see [`DenseKeys::children_keep_class`]); a
/// rank past the layer still sets `bad`. `ranks` is scratch space. With
/// `owned`, `map` is the calling thread's alone, and its bits are set
/// without a locked instruction (each one a barrier that holds up the
/// prefetches behind it).
pub fn set_ranked_keys(
    layer: &LayerRank<'_>,
    keys: &[u64],
    (in_class, owned): (bool, bool),
    ranks: &mut Vec<u64>,
    map: &[AtomicU64],
    bad: &AtomicBool,
) {
    // One instance each, so that none tests which one it is per key.
    let (low16, low32) = (&layer.r.low16[..], &layer.r.low32[..]);
    let done = match (in_class, owned, low32.is_empty()) {
        (true, false, true) => fill(keys, layer.in_class(low16), ranks, map, set_bit),
        (true, true, true) => fill(keys, layer.in_class(low16), ranks, map, set_own_bit),
        (true, false, false) => fill(keys, layer.in_class(low32), ranks, map, set_bit),
        (true, true, false) => fill(keys, layer.in_class(low32), ranks, map, set_own_bit),
        (false, false, _) => fill(keys, |k| layer.rank(k), ranks, map, set_bit),
        (false, true, _) => fill(keys, |k| layer.rank(k), ranks, map, set_own_bit),
    };
    if !done {
        bad.store(true, Ordering::Relaxed);
    }
}

/// Sets the bits of the ranks of `keys` in `map` in one pass, a block of
/// [`FILL_AHEAD`] keys at a time: each rank's word is prefetched as soon
/// as it is known, and the block's bits are set after the next block is
/// ranked, so that the cache misses overlap and no list of ranks is
/// written and read back. Two plain counted loops per block, where one
/// loop with a ring took a test and an index per key: fewer instructions
/// per key let more keys' misses be in flight. `blocks` is scratch space.
/// `false` (some bits set) at the first key `rank` refuses.
#[inline(always)]
fn fill(
    keys: &[u64],
    rank: impl Fn(u64) -> Option<u64>,
    blocks: &mut Vec<u64>,
    map: &[AtomicU64],
    set_bit: impl Fn(&[AtomicU64], u64),
) -> bool {
    blocks.clear();
    blocks.resize(2 * FILL_AHEAD, 0);
    let (mut cur, mut prev) = blocks.split_at_mut(FILL_AHEAD);
    let mut pending = 0;
    for block in keys.chunks(FILL_AHEAD) {
        for (slot, &k) in cur.iter_mut().zip(block) {
            let Some(r) = rank(k) else {
                return false;
            };
            #[cfg(target_arch = "x86_64")]
            // SAFETY: prefetching is a hint; `r` is a rank of the layer,
            // so its word is in bounds.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    map.as_ptr().add((r >> 6) as usize) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
            *slot = r;
        }
        for &r in &prev[..pending] {
            set_bit(map, r);
        }
        pending = block.len();
        std::mem::swap(&mut cur, &mut prev);
    }
    for &r in &prev[..pending] {
        set_bit(map, r);
    }
    true
}

/// Keys between a rank's prefetch and the setting of its bit.
const FILL_AHEAD: usize = 32;

/// Sets bit `r` of `map`, reading first: most children land on bits
/// already set, and a load costs less than a locked `or`.
#[inline(always)]
fn set_bit(map: &[AtomicU64], r: u64) {
    let w = &map[(r >> 6) as usize];
    let bit = 1u64 << (r & 63);
    if w.load(Ordering::Relaxed) & bit == 0 {
        w.fetch_or(bit, Ordering::Relaxed);
    }
}

/// Sets bit `r` of `map`, which only the calling thread writes: a plain
/// load and store (relaxed atomics compile to `mov`).
#[inline(always)]
fn set_own_bit(map: &[AtomicU64], r: u64) {
    let w = &map[(r >> 6) as usize];
    w.store(
        w.load(Ordering::Relaxed) | 1u64 << (r & 63),
        Ordering::Relaxed,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bitmap past [`HUGE_BYTES`] (its own mapping, on Linux) starts
    /// cleared, keeps what is set and is unmapped when dropped, also when
    /// made and filled on other threads.
    #[test]
    fn big_bitmaps_start_cleared_and_keep_their_bits() {
        let bits = (HUGE_BYTES as u64 * 8) * 3 / 2 + 77;
        for _ in 0..3 {
            let mut maps: Vec<Bitmap> = std::thread::scope(|s| {
                let h: Vec<_> = (0..2).map(|_| s.spawn(|| Bitmap::new(bits))).collect();
                h.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for (i, m) in maps.iter_mut().enumerate() {
                assert_eq!(m.words().len() as u64, bits.div_ceil(64));
                assert!(m.words().iter().all(|&w| w == 0));
                let a = m.atomic();
                for r in (i as u64..bits).step_by(4099) {
                    set_bit(a, r);
                }
                let set: u64 = m.words().iter().map(|w| w.count_ones() as u64).sum();
                assert_eq!(set, (bits - i as u64).div_ceil(4099));
                let last = bits - 1 - (bits - 1 - i as u64) % 4099;
                assert_eq!(m.words()[(last >> 6) as usize] >> (last & 63) & 1, 1);
            }
        }
    }

    /// With symmetries, every key that is the least of its images keeps
    /// a rank, in key order and extracted back; the layer's ranks are
    /// exactly those of the keys `rank` accepts, which are fewer than
    /// the class's keys; and `rank` refuses a key whose high half no
    /// least image has.
    #[test]
    fn least_images_keep_their_ranks_in_order_and_take_fewer_bits() {
        let bits = 12u32;
        let mask = 0b1001_0110_1011u64;
        // A group of four: the bits' order reversed, neighbouring bits
        // swapped, and both.
        let rev: Vec<u32> = (0..bits).map(|i| bits - 1 - i).collect();
        let swap: Vec<u32> = (0..bits).map(|i| i ^ 1).collect();
        let both: Vec<u32> = (0..bits).map(|i| (bits - 1 - i) ^ 1).collect();
        let id: Vec<u32> = (0..bits).collect();
        let syms = [id, rev, swap, both];
        let image = |x: u64, g: &[u32]| {
            (0..bits)
                .filter(|&i| x >> i & 1 == 1)
                .fold(0u64, |y, i| y | 1 << g[i as usize])
        };
        let least = |x: u64| syms.iter().all(|g| x <= image(x, g));
        let r = Ranker::new(bits, &[mask], &syms).unwrap();
        let plain = Ranker::new(bits, &[mask], &[]).unwrap();
        let mut saved = 0;
        let mut refused = 0;
        for k in 0..=bits {
            for par in 0..2u64 {
                let layer = r.layer(k, par).unwrap();
                let class: Vec<u64> = (0..1u64 << bits)
                    .filter(|&x| r.layer_class(x) == (k, par))
                    .collect();
                let ranked: Vec<u64> = class
                    .iter()
                    .copied()
                    .filter(|&x| layer.rank(x).is_some())
                    .collect();
                refused += class.len() - ranked.len();
                for (i, &x) in ranked.iter().enumerate() {
                    assert_eq!(layer.rank(x), Some(i as u64), "key {x:b}");
                    assert_eq!(layer.rank_in_class(x), Some(i as u64));
                }
                assert_eq!(layer.len(), ranked.len() as u64);
                assert_eq!(r.layer_size(k, par), ranked.len() as u64);
                let leasts: Vec<u64> = class.iter().copied().filter(|&x| least(x)).collect();
                assert!(leasts.iter().all(|&x| layer.rank(x).is_some()));
                saved += plain.layer(k, par).unwrap().len() - layer.len();
                let mut map = Bitmap::new(layer.len());
                let bad = AtomicBool::new(false);
                set_keys(&layer, &leasts, &mut Vec::new(), map.atomic(), &bad);
                assert!(!bad.load(Ordering::Relaxed));
                let mut out = Vec::new();
                layer.extract(map.words(), 0, &mut out);
                assert_eq!(out, leasts);
            }
        }
        assert!(saved > 0 && refused > 0, "the symmetries left nothing out");
    }

    /// Every key of `bits` bits with `k` set and given parities, ranked
    /// against a sorted list built by brute force.
    #[test]
    fn rank_is_the_position_in_the_sorted_list_of_layer_keys() {
        let bits = 11;
        let masks = [0b101_0110_1011u64, 0b011_1001_0101];
        let r = Ranker::new(bits, &masks, &[]).unwrap();
        for k in 0..=bits {
            for par in 0..4u64 {
                let keys: Vec<u64> = (0..1u64 << bits)
                    .filter(|&x| r.layer_class(x) == (k, par))
                    .collect();
                let layer = r.layer(k, par).unwrap();
                assert_eq!(layer.len(), keys.len() as u64);
                assert_eq!(r.layer_size(k, par), keys.len() as u64);
                for (i, &x) in keys.iter().enumerate() {
                    assert_eq!(layer.rank(x), Some(i as u64), "key {x:b}");
                }
                for x in 0..1u64 << bits {
                    if r.layer_class(x) != (k, par) {
                        assert_eq!(layer.rank(x), None);
                    }
                }
                // Every other key set: extraction gives them back in order,
                // from any starting word.
                let mut map = Bitmap::new(layer.len());
                let bad = AtomicBool::new(false);
                let chosen: Vec<u64> = keys.iter().copied().step_by(2).collect();
                set_keys(&layer, &chosen, &mut Vec::new(), map.atomic(), &bad);
                assert!(!bad.load(Ordering::Relaxed));
                let mut out = Vec::new();
                let w = map.words();
                let mid = w.len() / 2;
                layer.extract(&w[..mid], 0, &mut out);
                layer.extract(&w[mid..], mid, &mut out);
                assert_eq!(out, chosen);
            }
        }
        // A key of the wrong class is reported, not ranked.
        let layer = r.layer(3, 0).unwrap();
        let bad = AtomicBool::new(false);
        let mut map = Bitmap::new(layer.len());
        let odd = (0..1u64 << bits)
            .find(|&x| r.layer_class(x) == (3, 1))
            .unwrap();
        set_keys(&layer, &[odd], &mut Vec::new(), map.atomic(), &bad);
        assert!(bad.load(Ordering::Relaxed));
    }

    /// Keys as their own positions, for the member index's tests.
    struct Plain(u32);

    impl DenseKeys<u64> for Plain {
        fn key_bits(&self) -> u32 {
            self.0
        }
        fn invariants(&self) -> Vec<u64> {
            Vec::new()
        }
        fn key(&self, pos: &u64) -> u64 {
            *pos
        }
        fn positions(&self, keys: &[u64], out: &mut Vec<u64>) {
            out.extend_from_slice(keys)
        }
        fn child_keys(&self, _: &[u64], _: &mut Vec<u64>) {}
        fn neighbour_keys(&self, _: &[u64], _: bool, _: &mut Vec<u64>, _: &mut Vec<u32>) {}
    }

    /// A member's index is its place in the sorted member list, whatever
    /// the pieces; other keys of the layer, and keys of other classes,
    /// are no member; repeated members are refused.
    #[test]
    fn member_index_finds_each_member_at_its_place() {
        // 16 bits: layers of thousands of ranks, over many lines.
        let wide = Ranker::new(16, &[0b1010_0110_1011_0101], &[]).unwrap();
        let bits = 12;
        let masks = [0b1010_0110_1011u64];
        let r = Ranker::new(bits, &masks, &[]).unwrap();
        let cases = [(5, 0), (6, 1), (1, 0), (11, 1)].map(|c| (&r, bits, c));
        let wide_cases = [(8, 0), (7, 1), (3, 1)].map(|c| (&wide, 16, c));
        for (r, bits, (k, par)) in cases.into_iter().chain(wide_cases) {
            let dk = Plain(bits);
            let keys: Vec<u64> = (0..1u64 << bits)
                .filter(|&x| r.layer_class(x) == (k, par))
                .collect();
            // About one key in four, by a fixed scramble; on the wide
            // layers every key too (full lines: the largest counts).
            let scrambled: Vec<u64> = keys
                .iter()
                .copied()
                .filter(|&x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 62 == 1)
                .collect();
            let sets = if bits == 16 {
                vec![scrambled, keys]
            } else {
                vec![scrambled]
            };
            for members in sets {
                let pieces: Vec<&[u64]> = members.chunks(7).collect();
                let ix = MemberIndex::new(r.layer(k, par).unwrap(), &dk, &pieces, false).unwrap();
                assert_eq!(ix.len(), members.len());
                for (i, &x) in members.iter().enumerate() {
                    assert_eq!(ix.index(x), Some(i), "member {x:b}");
                }
                let mut all: Vec<u64> = (0..1u64 << bits).collect();
                ix.indices(&mut all);
                for (x, &got) in all.iter().enumerate() {
                    let want = members
                        .binary_search(&(x as u64))
                        .map_or(NOT_MEMBER, |i| i as u64);
                    assert_eq!(got, want, "key {x:b}");
                }
            }
        }
        let dk = Plain(bits);
        let layer = r.layer(4, 0).unwrap();
        let x = (0..1u64 << bits)
            .find(|&x| r.layer_class(x) == (4, 0))
            .unwrap();
        assert!(MemberIndex::new(layer, &dk, &[&[x, x][..]], false).is_none());
        let odd = (0..1u64 << bits)
            .find(|&x| r.layer_class(x) == (4, 1))
            .unwrap();
        let layer = r.layer(4, 0).unwrap();
        assert!(MemberIndex::new(layer, &dk, &[&[odd][..]], false).is_none());
    }

    /// A layout's tables are built once and handed out again; another
    /// layout gets its own, which rank as freshly built ones do.
    #[test]
    fn shared_rankers_are_one_per_layout() {
        let masks = [0b1011u64, 0b0110];
        let a = Ranker::shared(13, &masks, &[]).unwrap();
        let b = Ranker::shared(13, &masks, &[]).unwrap();
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        let c = Ranker::shared(13, &masks[..1], &[]).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&a, &c));
        let fresh = Ranker::new(13, &masks[..1], &[]).unwrap();
        let (x, y) = (c.layer(5, 1).unwrap(), fresh.layer(5, 1).unwrap());
        assert_eq!(x.len(), y.len());
        for key in 0..1u64 << 13 {
            assert_eq!(x.rank(key), y.rank(key));
        }
    }

    /// C(n, k) (0 when k > n).
    fn choose(n: u64, k: u64) -> u64 {
        if k > n {
            return 0;
        }
        (0..k).fold(1, |c, i| c * (n - i) / (i + 1))
    }

    /// Keys wide enough for the low table's 32-bit entries (a low half of
    /// 20 bits has 184,756 halves with 10 bits set): the rank of a key
    /// with `k` bits is its index in the combinatorial number system
    /// (`Σ C(b_i, i)` over its set bits `b_1 < … < b_k`), and the
    /// class-free ranking agrees with the tested one.
    #[test]
    fn wide_keys_rank_as_the_combinatorial_number_system() {
        // Layers of fewer than 2^32 keys: C(40, k) for k <= 11 or >= 29.
        let r = Ranker::new(40, &[], &[]).unwrap();
        assert!(r.low16.is_empty() && !r.low32.is_empty());
        let narrow = Ranker::new(33, &[], &[]).unwrap();
        assert!(!narrow.low16.is_empty() && narrow.low32.is_empty());
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for k in [1u32, 7, 10, 11, 29, 31, 33, 39] {
            let layer = r.layer(k, 0).unwrap();
            assert_eq!(layer.len(), choose(40, k as u64));
            let (map, small) = (narrow.layer(k, 0).unwrap(), k <= 33);
            for _ in 0..200 {
                // A pseudo-random key with k bits set.
                let mut key = 0u64;
                while key.count_ones() < k {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    key |= 1 << (x % 40);
                }
                let want: u64 = (0..40)
                    .filter(|&b| key >> b & 1 == 1)
                    .enumerate()
                    .map(|(i, b)| choose(b, i as u64 + 1))
                    .sum();
                assert_eq!(layer.rank(key), Some(want), "key {key:b}");
                assert_eq!(layer.rank_in_class(key), Some(want));
                if small && key >> 33 == 0 {
                    assert_eq!(map.rank_in_class(key), Some(want));
                }
            }
        }
    }

    /// A layer of 2^32 keys or more has no 32-bit ranking but a 64-bit
    /// one, which ranks as the combinatorial number system and extracts
    /// keys back from bits past 2^32; on smaller layers the two widths
    /// rank and extract alike.
    #[test]
    fn wide_layers_rank_past_two_to_the_32() {
        let r = Ranker::new(41, &[], &[]).unwrap();
        assert!(r.layer(20, 0).is_none());
        let wide = r.layer_wide(20, 0).unwrap();
        assert_eq!(wide.len(), choose(41, 20));
        assert!(wide.len() > 1 << 32);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut keys = Vec::new();
        for _ in 0..300 {
            let mut key = 0u64;
            while key.count_ones() < 20 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                key |= 1 << (x % 41);
            }
            let want: u64 = (0..41)
                .filter(|&b| key >> b & 1 == 1)
                .enumerate()
                .map(|(i, b)| choose(b, i as u64 + 1))
                .sum();
            assert_eq!(wide.rank(key), Some(want), "key {key:b}");
            keys.push((want, key));
        }
        // The highest key's rank is the last; its bit extracts it back.
        let top = ((1u64 << 20) - 1) << 21;
        assert_eq!(wide.rank(top), Some(wide.len() - 1));
        keys.push((wide.len() - 1, top));
        keys.sort_unstable();
        keys.dedup();
        for &(rank, key) in &keys {
            let mut out = Vec::new();
            layer_bit_extract(&wide, rank, &mut out);
            assert_eq!(out, vec![key]);
        }
        // Small layers: both widths agree.
        let r = Ranker::new(11, &[0b101_0110_1011], &[]).unwrap();
        for k in 0..=11 {
            for par in 0..2 {
                let (a, b) = (r.layer(k, par).unwrap(), r.layer_wide(k, par).unwrap());
                assert_eq!(a.len(), b.len());
                for key in 0..1u64 << 11 {
                    assert_eq!(a.rank(key), b.rank(key));
                }
            }
        }
    }

    /// Extracts the key of the single bit `rank` (one word).
    fn layer_bit_extract(l: &LayerRank<'_, u64>, rank: u64, out: &mut Vec<u64>) {
        l.extract(&[1u64 << (rank & 63)], (rank >> 6) as usize, out);
    }
}
