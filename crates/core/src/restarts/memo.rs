//! The memo of fully explored positions: an open-addressing table with
//! one tag byte per slot, probed with a precomputed hash (so the search
//! can prefetch its slots), that grows in place up to its memory budget
//! and replaces instead of growing there; and the pool that hands its
//! tables from search to search.

#[cfg(doc)]
use super::{solve_pooled, Searcher};
use crate::hash::MumHasher;
use std::hash::{Hash, Hasher};

/// The memo of a [`Searcher`]: an open-addressing hash table from keys to
/// values with one tag byte per slot, linear probing and at most 3/4
/// load. Unlike std's table it lets the search compute a key's hash once
/// and prefetch its slot before probing, so the probes of a position's
/// children (each a likely cache miss on a big memo) overlap in memory.
///
/// A key's home slot is its hash scaled to the capacity (the high half
/// of `hash × capacity`: Lemire, "Fast random integer generation in an
/// interval", 2019), so the capacity need not be a power of two: the
/// table doubles until the next doubling would pass its limit
/// ([`Memo::limit_entries`], the searcher's memory budget) and then
/// grows once more to the limit itself. It grows *in place* (both
/// tables extended, every entry moved to its new place within them),
/// so it never holds an old and a new table at once: at a budget of
/// 1 GiB the table reaches about 1 GiB, where a doubling copy stopped
/// at the power of two whose growth fitted (for 65-byte slots, 520 MiB;
/// fifteenth session). On a power-of-two capacity the home slot is the
/// hash's top bits, as before.
pub struct Memo<K> {
    /// 0: empty; otherwise `0x80 |` seven bits of the hash ([`PENDING`]
    /// only while growing). Its length is the table's capacity.
    tags: Vec<u8>,
    /// Valid where the tag is not 0 (others hold a copy of some key). At
    /// least as long as `tags` (a reused buffer may be longer; the slots
    /// past the capacity are never read).
    slots: Vec<Slot<K>>,
    len: usize,
    /// The most slots growth may reach (`usize::MAX`: no limit).
    max_cap: usize,
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

/// The tag of an entry not yet moved to its place while the table grows
/// in place (never seen outside [`Memo::grow`]; real tags have the top
/// bit set).
const PENDING: u8 = 1;

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
            max_cap: usize::MAX,
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

    /// The home slot of hash `h` in a table of `cap` slots (on a power of
    /// two, the hash's top bits).
    #[inline(always)]
    fn index(h: u64, cap: usize) -> usize {
        ((u128::from(h) * cap as u128) >> 64) as usize
    }

    /// The slot after `i` in a table of `cap` slots.
    #[inline(always)]
    fn next(i: usize, cap: usize) -> usize {
        let j = i + 1;
        if j == cap {
            0
        } else {
            j
        }
    }

    /// Lets the table grow to hold at most `entries` entries at 3/4 load
    /// (the last growth stops there, past a power of two if need be); the
    /// [`Searcher`] sets its memory budget here.
    pub fn limit_entries(&mut self, entries: usize) {
        self.max_cap = entries.saturating_mul(4).div_ceil(3).max(16);
    }

    /// The capacity to grow to for `entries` entries at 3/4 load: a
    /// power of two, or the limit when that is smaller.
    fn capacity_for(&self, entries: usize) -> usize {
        let need = (entries * 4).div_ceil(3).max(16);
        need.next_power_of_two().min(self.max_cap).max(need)
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
            let i = Self::index(h, self.tags.len());
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
        let tag = Self::tag(h);
        let mut i = Self::index(h, cap);
        loop {
            debug_assert!(i < cap && cap <= self.slots.len());
            // SAFETY: `index` and `next` give slots below `cap`, the
            // length of `tags` and at most that of `slots`.
            let t = unsafe { *self.tags.get_unchecked(i) };
            if t == 0 {
                return Err(Vacancy { slot: i, cap });
            }
            // SAFETY: as above.
            let slot = unsafe { self.slots.get_unchecked(i) };
            if t == tag && slot.0 == *k {
                return Ok(slot.1);
            }
            i = Self::next(i, cap);
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
            // Doubling, but once only to the limit when it is nearer (a
            // table at its limit that is still asked to grow doubles).
            let cap = self.tags.len();
            let doubled = (cap * 2).max(16);
            let need = ((self.len + 1) * 4).div_ceil(3);
            let new = if doubled > self.max_cap && self.max_cap > cap {
                self.max_cap.max(need)
            } else {
                doubled
            };
            self.grow(k, new);
        }
        let cap = self.tags.len();
        let tag = Self::tag(h);
        let mut i = Self::index(h, cap);
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
            i = Self::next(i, cap);
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
        let tag = Self::tag(h);
        let home = Self::index(h, cap);
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
            i = Self::next(i, cap);
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
            let run = (if i >= home { i - home } else { i + cap - home }).min(Self::WINDOW);
            let mut victim = home;
            for j in 1..run {
                let s = (home + j) % cap;
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

    /// Makes room for `entries` entries without growing (up to the
    /// limit, see [`Memo::limit_entries`]).
    pub fn reserve(&mut self, entries: usize, some_key: K) {
        let want = self.capacity_for(entries);
        if want > self.tags.len() {
            self.grow(some_key, want);
        }
    }

    /// Grows to `cap` slots (`filler` fills the unused ones of a fresh
    /// slot buffer). An empty memo takes its tables from the spare ones;
    /// a memo with entries grows its own tables in place (a reallocation,
    /// which for big tables the system allocator makes by remapping
    /// pages, not copying) and moves every entry to its place in the
    /// grown table, so it never holds two tables at once. The moves:
    /// every entry is marked [`PENDING`]; then slot by slot, a pending
    /// entry goes to the first slot of its new probe run that is empty
    /// or pending (itself, or an empty slot it then leaves empty, or
    /// another pending entry's slot, whose entry it swaps out to place
    /// next). A placed entry's probe run holds only placed entries, and
    /// placed entries never move, so every probe run is intact at the
    /// end, whatever order the slots are settled in (the in-place rehash
    /// of Rust's `hashbrown` tables, for linear probing). Settled from
    /// the last slot down: a key's home scales with the capacity, so an
    /// entry mostly goes to an empty slot above it (the new part, or
    /// slots already left), and the reads and writes run down the table
    /// in two streams instead of jumping from swap to swap.
    fn grow(&mut self, filler: K, cap: usize) {
        let old = self.tags.len();
        debug_assert!(cap > old);
        if self.len == 0 {
            let tags = self.spare.take_tags(cap);
            let slots = self.spare.take_slots(cap, filler);
            let old_tags = std::mem::replace(&mut self.tags, tags);
            let old_slots = std::mem::replace(&mut self.slots, slots);
            self.spare.give(old_tags, old_slots);
            return;
        }
        for t in &mut self.tags {
            if *t != 0 {
                *t = PENDING;
            }
        }
        self.tags.reserve_exact(cap - old);
        self.tags.resize(cap, 0);
        if self.slots.len() < cap {
            self.slots.reserve_exact(cap - self.slots.len());
            self.slots.resize(cap, (filler, 0, 0));
        }
        // Pending entries sit below `old` only, and a swap brings one
        // into the slot being settled: one pass settles them all.
        for i in (0..old).rev() {
            while self.tags[i] == PENDING {
                let h = Self::hash(&self.slots[i].0);
                let mut j = Self::index(h, cap);
                while self.tags[j] != 0 && self.tags[j] != PENDING {
                    j = Self::next(j, cap);
                }
                if self.tags[j] == 0 {
                    self.slots[j] = self.slots[i];
                    self.tags[i] = 0;
                } else if j != i {
                    self.slots.swap(i, j);
                }
                self.tags[j] = Self::tag(h);
            }
        }
    }

    /// An empty memo whose table grows to hold at most `entries` entries
    /// (see [`Memo::limit_entries`]).
    pub fn limited(entries: usize) -> Self {
        let mut m = Memo::default();
        m.limit_entries(entries);
        m
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

    /// A memo limited to a slot count that is not a power of two doubles
    /// in place and then grows once to its limit exactly: every entry is
    /// kept through each growth (against a hash map, with tags and
    /// updates of keys already held), no outgrown table ever reaches its
    /// spares (it never held two), and at the limit it replaces as the
    /// searcher does, its table the same size and every key it holds
    /// right. The same with a pool's bigger tables reused.
    #[test]
    fn a_limited_memo_grows_in_place_to_its_limit() {
        let mut pool = super::MemoPool::default();
        for (round, entries) in [5_000usize, 12_345, 3, 40_000, 7_001]
            .into_iter()
            .enumerate()
        {
            let mut memo = Memo::with_pool(std::mem::take(&mut pool));
            memo.limit_entries(entries);
            // What the spares hold once the first table came from them.
            let mut spare = None;
            let max_cap = (entries * 4).div_ceil(3).max(16);
            let mut map = std::collections::HashMap::new();
            let mut rng = Rng::new(round as u64);
            let mut caps = Vec::new();
            let mut i = 0u32;
            while memo.len() < entries {
                let k = rng.next_u64() % (entries as u64 * 3 / 2 + 1);
                memo.insert_hashed(k, Memo::hash(&k), i, i);
                spare.get_or_insert(memo.spare.bytes());
                map.insert(k, i);
                if caps.last() != Some(&memo.tags.len()) {
                    caps.push(memo.tags.len());
                    for (k, v) in &map {
                        assert_eq!(memo.get(k), Some(*v), "entries {entries} key {k}");
                    }
                }
                i += 1;
            }
            assert_eq!(memo.len(), map.len());
            assert_eq!(
                *caps.last().unwrap(),
                max_cap,
                "entries {entries}: {caps:?}"
            );
            for w in caps.windows(2) {
                assert!(w[0].is_power_of_two(), "{caps:?}");
                assert!(w[1] == w[0] * 2 || w[1] == max_cap, "{caps:?}");
            }
            assert_eq!(Some(memo.spare.bytes()), spare, "no outgrown table kept");
            for _ in 0..entries * 2 {
                let k = rng.next_u64() % (entries as u64 * 4);
                memo.replace_hashed(k, Memo::hash(&k), i, 1);
                map.insert(k, i);
                i += 1;
            }
            assert_eq!(memo.tags.len(), max_cap);
            let mut held = 0;
            for (k, v) in &map {
                if let Some(got) = memo.get(k) {
                    assert_eq!(got, *v, "key {k}");
                    held += 1;
                }
            }
            assert_eq!(held, memo.len());
            pool = memo.into_pool();
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
