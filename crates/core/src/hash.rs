//! A fast, deterministic hasher for position keys (multiply-rotate, as in
//! rustc's FxHash). Positions are already well-mixed bit patterns, and the
//! default SipHash costs more than the rest of a DFS step.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hasher for small keys.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // A final avalanche so the low bits (used by hash tables) depend on
        // every input bit.
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

/// `HashMap` with [`FxHasher`].
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// `HashSet` with [`FxHasher`].
pub type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

/// Hasher for memo keys of a few machine words (the searchers' tables):
/// each pair of words goes in with one 64×64 → 128-bit multiplication
/// whose two halves are folded together (wyhash's "mum"), so both ends
/// of the result depend on every bit of both words. Two multiplications
/// for a four-word key, against FxHash's five and its avalanche.
#[derive(Default, Clone, Copy)]
pub struct MumHasher {
    hash: u64,
}

const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;

/// The high and low halves of `a · b`, XORed.
#[inline(always)]
fn mum(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

impl MumHasher {
    #[inline(always)]
    fn pair(&mut self, a: u64, b: u64) {
        self.hash = mum(self.hash ^ a ^ P0, b ^ P1);
    }
}

impl Hasher for MumHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let word = |b: &[u8]| {
            let mut buf = [0u8; 8];
            buf[..b.len()].copy_from_slice(b);
            u64::from_le_bytes(buf)
        };
        let mut chunks = bytes.chunks_exact(16);
        for c in &mut chunks {
            self.pair(word(&c[..8]), word(&c[8..]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let (a, b) = rest.split_at(rest.len().min(8));
            self.pair(word(a), word(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.pair(i, 0);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.pair(u64::from(i), 0);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.pair(u64::from(i), 0);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.pair(i as u64, 0);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}
