//! Hashers for position keys. Positions are already well-mixed bit
//! patterns, and the default SipHash costs more than the rest of a DFS
//! step.
//!
//! [`FxHasher`], [`FxHashMap`] and [`FxHashSet`] are the `rustc-hash`
//! crate's (rustc's multiply-add hash, kept by the Rust project),
//! re-exported under the names this crate has always used: a well-kept
//! crate instead of the copy this module held. Measured against that copy
//! on the English peg counts (the peg crate's README, benchmarks), it
//! costs no more CPU. Its `finish` rotates the product so that both ends
//! of the hash suit std's tables, but the top bits still ignore a key's
//! high bits, so a table indexed by the top bits uses [`MumHasher`]
//! instead (the layered engine's buckets).
//!
//! [`MumHasher`] stays ours: no crate offers its one multiplication per
//! two words with both halves of the product folded (see its
//! documentation), which the searchers' memo indexes by its top bits.

pub use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;

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
