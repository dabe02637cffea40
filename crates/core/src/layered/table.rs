//! The per-bucket de-duplication table: open addressing sized to stay in
//! a core's cache, merging duplicate keys' values, with prefetching
//! inserts and member look-ups for the semi-joins.

use super::layer::{hash_of, retain_members};
use std::hash::Hash;

/// An open-addressing hash table, reused across buckets by one worker.
/// Empty slots hold `empty`, a key chosen from the bucket itself; whether
/// that key was inserted is kept on the side (so no control bytes).
pub(super) struct Table<T, V> {
    pub(super) keys: Vec<T>,
    pub(super) vals: Vec<V>,
    pub(super) mask: usize,
    pub(super) len: usize,
    pub(super) empty: Option<T>,
    /// The value of the `empty` key, once inserted.
    pub(super) empty_val: Option<V>,
    /// The entries handed over for the last bucket (see `members` and
    /// `entries`).
    pub(super) handed: Vec<(T, V)>,
    /// Buffers splitting a coarse bucket into fine ones.
    pub(super) split_keys: Vec<Vec<T>>,
    pub(super) split_vals: Vec<Vec<V>>,
    /// Distinct keys per insertion in the last bucket (sizes the next).
    pub(super) ratio: f64,
}

impl<T: Copy + Eq + Hash, V: Copy + Default> Table<T, V> {
    pub(super) fn new() -> Self {
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
    pub(super) fn prepare(&mut self, n: usize, empty: T) {
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
    pub(super) fn insert_all(&mut self, keys: &[T], vals: &[V], combine: &impl Fn(&mut V, V)) {
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
    pub(super) fn prefetch(&self, h: u64) {
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
    pub(super) fn insert_hashed(&mut self, t: T, h: u64, v: V, combine: &impl Fn(&mut V, V)) {
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
    pub(super) fn grow(&mut self) {
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
    pub(super) fn get(&self, t: &T) -> Option<V> {
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
    pub(super) fn members(&mut self, here: &[T]) -> &[(T, V)] {
        let mut out = std::mem::take(&mut self.handed);
        out.clear();
        out.extend(here.iter().filter_map(|k| self.get(k).map(|v| (*k, v))));
        self.handed = out;
        &self.handed
    }

    /// The distinct entries whose keys are in `here` (sorted), sorted by
    /// key: the entries sorted, then merged with `here`.
    pub(super) fn members_merged(&mut self, here: &[T]) -> &[(T, V)]
    where
        T: Ord,
    {
        self.entries(true);
        retain_members(&mut self.handed, here);
        &self.handed
    }

    /// The distinct entries, sorted by key if `sort` (in table order
    /// otherwise).
    pub(super) fn entries(&mut self, sort: bool) -> &[(T, V)]
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
