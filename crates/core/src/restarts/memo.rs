//! The memo of fully explored positions: an open-addressing table with
//! one tag byte per slot, probed with a precomputed hash (so the search
//! can prefetch its slots), that replaces instead of growing at its
//! memory budget; and the pool that hands its tables from search to
//! search.

#[cfg(doc)]
use super::{solve_pooled, Searcher};
use crate::hash::MumHasher;
use std::hash::{Hash, Hasher};

/// The memo of a [`Searcher`]: an open-addressing hash table from keys to
/// values with one tag byte per slot, linear probing and at most 3/4
/// load. Unlike std's table it lets the search compute a key's hash once
/// and prefetch its slot before probing, so the probes of a position's
/// children (each a likely cache miss on a big memo) overlap in memory.
pub struct Memo<K> {
    /// 0: empty; otherwise `0x80 |` seven bits of the hash. Its length is
    /// the table's capacity.
    tags: Vec<u8>,
    /// Valid where the tag is not 0 (others hold a copy of some key). At
    /// least as long as `tags` (a reused buffer may be longer; the slots
    /// past the capacity are never read).
    slots: Vec<Slot<K>>,
    len: usize,
    /// `64 - log2(capacity)`: the slot index is the hash's top bits.
    shift: u32,
    /// Entries replaced at the memory budget (see
    /// [`Memo::replace_hashed`]).
    replaced: u64,
    /// Tables to build the next ones from (see [`MemoPool`]).
    pub(super) spare: MemoPool<K>,
}

/// One entry of a [`Memo`]: the key, its value, and the *work* its value
/// cost (the expansions of the subtree search that found it, saturating;
/// 0 when unknown), which decides what a full memo forgets first (see
/// [`Memo::replace_hashed`]). The work field sits in what would be the
/// padding of `(K, u32)` for the keys the workspace uses (whole `u64`s),
/// so it costs no memory.
type Slot<K> = (K, u32, u32);

/// Where [`Memo::find_hashed`] found a key missing: the empty slot that
/// ended its probe run, and the table's capacity then.
#[derive(Clone, Copy, Debug)]
pub struct Vacancy {
    slot: usize,
    cap: usize,
}

/// Spare memo tables, so that a run of searches (the study's games, one
/// thread each) reuses its tables instead of allocating fresh ones for
/// every search: no page faults, and no filler writes into the slots (a
/// reused slot buffer already holds valid keys; the zeroed tags mark
/// every slot empty). Hand one to [`solve_pooled`] and take it back.
pub struct MemoPool<K> {
    tags: Vec<Vec<u8>>,
    slots: Vec<Vec<Slot<K>>>,
}

impl<K> Default for MemoPool<K> {
    fn default() -> Self {
        MemoPool {
            tags: Vec::new(),
            slots: Vec::new(),
        }
    }
}

impl<K> MemoPool<K> {
    /// Buffers kept of each kind (the largest ones).
    const KEEP: usize = 4;

    /// Bytes the pool holds.
    pub fn bytes(&self) -> usize {
        self.tags.iter().map(Vec::capacity).sum::<usize>()
            + self
                .slots
                .iter()
                .map(|v| v.capacity() * std::mem::size_of::<Slot<K>>())
                .sum::<usize>()
    }

    /// Keeps `tags` and `slots` for later tables.
    fn give(&mut self, tags: Vec<u8>, slots: Vec<Slot<K>>) {
        if tags.capacity() > 0 {
            self.tags.push(tags);
            self.tags.sort_by_key(|v| std::cmp::Reverse(v.capacity()));
            self.tags.truncate(Self::KEEP);
        }
        if !slots.is_empty() {
            self.slots.push(slots);
            self.slots.sort_by_key(|v| std::cmp::Reverse(v.len()));
            self.slots.truncate(Self::KEEP);
        }
    }

    /// Moves every buffer of `other` into this pool.
    pub(super) fn absorb(&mut self, other: MemoPool<K>) {
        for t in other.tags {
            self.give(t, Vec::new());
        }
        for s in other.slots {
            self.give(Vec::new(), s);
        }
    }

    /// A zeroed tag table of `cap` entries.
    fn take_tags(&mut self, cap: usize) -> Vec<u8> {
        let mut t = if self.tags.is_empty() {
            Vec::new()
        } else {
            self.tags.remove(0)
        };
        t.clear();
        t.resize(cap, 0);
        t
    }

    /// A slot table of at least `cap` entries (`filler` extends a short
    /// one).
    fn take_slots(&mut self, cap: usize, filler: K) -> Vec<Slot<K>>
    where
        K: Copy,
    {
        let mut s = if self.slots.is_empty() {
            Vec::new()
        } else {
            self.slots.remove(0)
        };
        if s.len() < cap {
            s.resize(cap, (filler, 0, 0));
        }
        s
    }
}

impl<K: Hash + Eq + Copy> Default for Memo<K> {
    fn default() -> Self {
        Memo {
            tags: Vec::new(),
            slots: Vec::new(),
            len: 0,
            shift: 64,
            replaced: 0,
            spare: MemoPool::default(),
        }
    }
}

impl<K: Hash + Eq + Copy> Memo<K> {
    /// The hash of a key ([`MumHasher`]).
    #[inline(always)]
    pub fn hash(k: &K) -> u64 {
        let mut h = MumHasher::default();
        k.hash(&mut h);
        h.finish()
    }

    #[inline(always)]
    fn tag(h: u64) -> u8 {
        (h as u8) | 0x80
    }

    #[inline(always)]
    fn index(&self, h: u64) -> usize {
        // `shift` is 64 only while the table is empty (never indexed).
        (h >> self.shift) as usize
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the memo is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the table (tags and slots).
    pub fn bytes(&self) -> usize {
        self.tags.len() * Self::SLOT_BYTES
    }

    /// Bytes a slot takes (its tag and its entry).
    pub const SLOT_BYTES: usize = 1 + std::mem::size_of::<Slot<K>>();

    /// Starts loading the cache lines a probe for hash `h` will read.
    #[inline(always)]
    pub fn prefetch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        if !self.tags.is_empty() {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let i = self.index(h);
            // SAFETY: prefetching is a hint that never faults, and both
            // pointers are in bounds (i < capacity).
            unsafe {
                _mm_prefetch(self.tags.as_ptr().add(i) as *const i8, _MM_HINT_T0);
                _mm_prefetch(self.slots.as_ptr().add(i) as *const i8, _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The value of `k`, whose hash is `h`.
    #[inline(always)]
    pub fn get_hashed(&self, k: &K, h: u64) -> Option<u32> {
        self.find_hashed(k, h).ok()
    }

    /// The value of `k`, whose hash is `h`, or where inserting `k` now
    /// would put it (see [`Memo::insert_vacant`]).
    #[inline(always)]
    pub fn find_hashed(&self, k: &K, h: u64) -> Result<u32, Vacancy> {
        let cap = self.tags.len();
        if cap == 0 {
            return Err(Vacancy { slot: 0, cap });
        }
        let mask = cap - 1;
        let tag = Self::tag(h);
        let mut i = self.index(h);
        loop {
            let t = self.tags[i];
            if t == 0 {
                return Err(Vacancy { slot: i, cap });
            }
            if t == tag && self.slots[i].0 == *k {
                return Ok(self.slots[i].1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets the value of `k` (hash `h`, not in the memo; `work` what the
    /// value cost, see [`Slot`]), which [`Memo::find_hashed`] found
    /// missing at `at`: when the table has not grown since (so no entry
    /// moved; entries are never removed) and the slot is still empty,
    /// every slot of `k`'s probe run before it is still taken, and `k`
    /// goes there without probing again.
    #[inline]
    pub fn insert_vacant(&mut self, at: Vacancy, k: K, h: u64, v: u32, work: u32) {
        let cap = self.tags.len();
        if at.cap == cap && (self.len + 1) * 4 <= cap * 3 && self.tags[at.slot] == 0 {
            self.tags[at.slot] = Self::tag(h);
            self.slots[at.slot] = (k, v, work);
            self.len += 1;
        } else {
            self.insert_hashed(k, h, v, work);
        }
    }

    /// The value of `k`.
    #[inline]
    pub fn get(&self, k: &K) -> Option<u32> {
        self.get_hashed(k, Self::hash(k))
    }

    /// Sets the value of `k`, whose hash is `h` (`work`: what it cost; a
    /// key already held keeps the larger work).
    #[inline]
    pub fn insert_hashed(&mut self, k: K, h: u64, v: u32, work: u32) {
        if (self.len + 1) * 4 > self.tags.len() * 3 {
            self.grow(k, (self.tags.len() * 2).max(16));
        }
        let mask = self.tags.len() - 1;
        let tag = Self::tag(h);
        let mut i = self.index(h);
        loop {
            let t = self.tags[i];
            if t == 0 {
                self.tags[i] = tag;
                self.slots[i] = (k, v, work);
                self.len += 1;
                return;
            }
            if t == tag && self.slots[i].0 == k {
                self.slots[i].1 = v;
                self.slots[i].2 = self.slots[i].2.max(work);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Slots of a key's probe run, from its home slot on, among which a
    /// full memo forgets the cheapest (see [`Memo::replace_hashed`]).
    pub const WINDOW: usize = 2;

    /// Sets the value of `k` (hash `h`, costing `work`) without growing
    /// the table: the memo of a search at its memory budget. A key in the
    /// memo gets the new value; a new key takes the empty slot that ends
    /// its probe run while the load is under 3/4 (an empty home slot:
    /// 7/8), and otherwise replaces the entry of least work among the
    /// first [`Memo::WINDOW`] slots of its probe run (past 7/8 load a key
    /// whose home is empty is dropped). No slot ever becomes empty, so
    /// every other key's probe run stays intact: the memo only forgets
    /// the replaced entry (a later search of that position recomputes
    /// it), and what it holds stays exact.
    ///
    /// Why the cheapest: forgetting an entry costs, when its position
    /// comes back, the search of its subtree again. Replacing whatever
    /// sat in the home slot (the policy before) let a leaf's entry evict
    /// a subtree of millions of expansions, and a big 7×7 game then
    /// re-searched its big subtrees again and again (seed 1's game 31:
    /// 283 M expansions at 1 GiB against 42 M at 4 GiB). This is the
    /// two-slot, work-preferring scheme of chess transposition tables
    /// ("TwoBig": Breuker, Uiterwijk and van den Herik, "Replacement
    /// schemes for transposition tables", 1994): the new entry always
    /// goes in (in a depth-first search the subtree just finished is
    /// what the next probes hit), and of the two it may evict, the one
    /// that cost less goes.
    #[inline]
    pub fn replace_hashed(&mut self, k: K, h: u64, v: u32, work: u32) {
        let cap = self.tags.len();
        if cap == 0 {
            return;
        }
        let mask = cap - 1;
        let tag = Self::tag(h);
        let home = self.index(h);
        let mut i = home;
        loop {
            let t = self.tags[i];
            if t == 0 {
                break;
            }
            if t == tag && self.slots[i].0 == k {
                self.slots[i].1 = v;
                self.slots[i].2 = self.slots[i].2.max(work);
                return;
            }
            i = (i + 1) & mask;
        }
        // An empty home slot may take the key up to 7/8 load (nothing
        // else could: a probe run ends there).
        let room = if i == home { cap / 8 * 7 } else { cap / 4 * 3 };
        if self.len < room {
            self.tags[i] = tag;
            self.slots[i] = (k, v, work);
            self.len += 1;
        } else if i != home {
            // The slots from home up to the empty one are all taken: any
            // of them may take `k` (its probe reaches it first).
            let run = (i.wrapping_sub(home) & mask).min(Self::WINDOW);
            let mut victim = home;
            for j in 1..run {
                let s = (home + j) & mask;
                if self.slots[s].2 < self.slots[victim].2 {
                    victim = s;
                }
            }
            self.tags[victim] = tag;
            self.slots[victim] = (k, v, work);
            self.replaced += 1;
        }
    }

    /// Entries [`Memo::replace_hashed`] has replaced so far.
    pub fn replaced(&self) -> u64 {
        self.replaced
    }

    /// Calls `f(key, value, work)` for every entry.
    pub fn for_each(&self, mut f: impl FnMut(&K, u32, u32)) {
        for (t, (k, v, w)) in self.tags.iter().zip(&self.slots) {
            if *t != 0 {
                f(k, *v, *w);
            }
        }
    }

    /// Sets the value of `k` (its work unknown: 0).
    #[inline]
    pub fn insert(&mut self, k: K, v: u32) {
        self.insert_hashed(k, Self::hash(&k), v, 0);
    }

    /// Makes room for `entries` entries without growing.
    pub fn reserve(&mut self, entries: usize, some_key: K) {
        let want = (entries * 4).div_ceil(3).next_power_of_two().max(16);
        if want > self.tags.len() {
            self.grow(some_key, want);
        }
    }

    /// Rehashes into `cap` slots (`filler` fills the unused ones of a
    /// fresh slot buffer), taking the new tables from the spare ones.
    fn grow(&mut self, filler: K, cap: usize) {
        let tags = self.spare.take_tags(cap);
        let slots = self.spare.take_slots(cap, filler);
        let old_tags = std::mem::replace(&mut self.tags, tags);
        let old_slots = std::mem::replace(&mut self.slots, slots);
        self.shift = 64 - cap.trailing_zeros();
        self.len = 0;
        for (&t, &(k, v, w)) in old_tags.iter().zip(&old_slots) {
            if t != 0 {
                self.insert_hashed(k, Self::hash(&k), v, w);
            }
        }
        self.spare.give(old_tags, old_slots);
    }

    /// A memo whose tables will come from `pool`.
    pub fn with_pool(pool: MemoPool<K>) -> Self {
        Memo {
            spare: pool,
            ..Memo::default()
        }
    }

    /// Empties the memo, returning its tables and spares.
    pub fn into_pool(self) -> MemoPool<K> {
        let mut pool = self.spare;
        pool.give(self.tags, self.slots);
        pool
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;
    use crate::restarts::Rng;

    #[test]
    fn the_memo_agrees_with_a_hash_map() {
        let mut memo = Memo::default();
        let mut map = std::collections::HashMap::new();
        let mut rng = Rng::new(5);
        assert_eq!(memo.get(&7u64), None);
        for i in 0..20_000u32 {
            // Small keys so that many are inserted twice (updates).
            let k = rng.next_u64() % 15_000;
            memo.insert(k, i);
            map.insert(k, i);
            assert_eq!(memo.len(), map.len());
        }
        for k in 0..16_000u64 {
            assert_eq!(memo.get(&k), map.get(&k).copied(), "key {k}");
        }
        let mut big = Memo::default();
        big.reserve(1000, [0u64; 4]);
        let cap = big.bytes();
        for i in 0..1000u64 {
            big.insert([i, 0, i, 1], i as u32);
        }
        assert_eq!(big.bytes(), cap, "reserve avoids growth");
        assert_eq!(big.get(&[999, 0, 999, 1]), Some(999));
        assert_eq!(big.get(&[999, 0, 999, 2]), None);
    }

    /// A missing key inserted at the slot its probe found empty, after
    /// other inserts (some filling that slot, some growing the table), as
    /// the search does around a child's subtree: the memo still agrees
    /// with a hash map, and every key is found where a probe looks.
    #[test]
    fn vacant_inserts_agree_with_a_hash_map() {
        let mut memo = Memo::default();
        let mut map = std::collections::HashMap::new();
        let mut rng = Rng::new(13);
        let mut pending = Vec::new();
        for i in 0..30_000u32 {
            let k = rng.next_u64() % 40_000;
            match memo.find_hashed(&k, Memo::hash(&k)) {
                Ok(v) => assert_eq!(Some(&v), map.get(&k)),
                Err(at) if !pending.iter().any(|&(p, _)| p == k) => pending.push((k, at)),
                Err(_) => {}
            }
            // Resolve the oldest pending keys after a few more inserts,
            // innermost first (the search's order).
            if pending.len() > rng.below(6) {
                let (k, at) = pending.pop().expect("pending");
                memo.insert_vacant(at, k, Memo::hash(&k), i, 0);
                map.insert(k, i);
            }
            assert_eq!(memo.len(), map.len());
        }
        for k in 0..40_000u64 {
            assert_eq!(memo.get(&k), map.get(&k).copied(), "key {k}");
        }
    }

    /// A memo at its budget replaces instead of growing: every key it
    /// still holds has its latest value, keys it dropped are missing (not
    /// wrong), its table never grows and its load stays at most 3/4.
    #[test]
    fn a_full_memo_replaces_and_stays_exact() {
        let mut memo = Memo::default();
        let mut map = std::collections::HashMap::new();
        for k in 0..1_000u64 {
            memo.insert(k, k as u32);
            map.insert(k, k as u32);
        }
        let cap = memo.tags.len();
        let mut rng = Rng::new(5);
        for i in 0..50_000u32 {
            let k = rng.next_u64() % 20_000;
            memo.replace_hashed(k, Memo::hash(&k), i, rng.below(100) as u32);
            map.insert(k, i);
            let got = memo.get(&k);
            assert!(got == Some(i) || got.is_none(), "{got:?}");
        }
        assert_eq!(memo.tags.len(), cap);
        assert!(memo.len() * 8 <= cap * 7);
        assert!(memo.replaced() > 0);
        let mut held = 0;
        for k in 0..20_000u64 {
            if let Some(v) = memo.get(&k) {
                assert_eq!(Some(&v), map.get(&k), "key {k}");
                held += 1;
            }
        }
        assert_eq!(held, memo.len());
    }

    /// At its budget the memo forgets cheap entries before costly ones:
    /// after a flood of cheap new keys, far more of the costly entries it
    /// held survive than of the cheap ones (a costly entry goes only when
    /// every slot it could be swapped for is costly too, or when it sits
    /// alone at the end of a probe run).
    #[test]
    fn a_full_memo_keeps_costly_entries() {
        let mut memo = Memo::default();
        memo.reserve(3_000, 0u64);
        let costly = |k: u64| k.is_multiple_of(10);
        let mut k = 0u64;
        while memo.len() < memo.tags.len() * 3 / 4 {
            memo.insert_hashed(k, Memo::hash(&k), 1, if costly(k) { 1 << 20 } else { 1 });
            k += 1;
        }
        let held = k;
        // A new key goes in unless its home slot is empty past 7/8 load.
        let mut stored = 0;
        for j in 0..held * 4 {
            let nk = 1_000_000 + j;
            memo.replace_hashed(nk, Memo::hash(&nk), 1, 1);
            stored += u64::from(memo.get(&nk) == Some(1));
        }
        assert!(stored * 10 > held * 4 * 9, "{stored} of {}", held * 4);
        let kept = |f: &dyn Fn(u64) -> bool| {
            let keys: Vec<u64> = (0..held).filter(|&k| f(k)).collect();
            keys.iter().filter(|k| memo.get(k).is_some()).count() as f64 / keys.len() as f64
        };
        let (dear, cheap) = (kept(&costly), kept(&|k| !costly(k)));
        assert!(
            dear > 0.5 && cheap < 0.05,
            "costly kept {dear}, cheap {cheap}"
        );
    }
}
