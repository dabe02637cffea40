//! The solver's lookup tables, built once per process, and what reads
//! them: the fives of a stone set in all 256 rotation states from
//! per-quadrant tables ([`fives`]), binomial coefficients, colex ranks and
//! the subsets in colex order ([`rank`], [`subsets`]), and a byte-wise
//! bit deposit.

use super::state::{or, state_at, Half};
use crate::board::{bits_of, rotate, LINES};
use std::sync::OnceLock;

/// One quadrant's share of one line: the quadrant and the cells of the
/// line in it (9-bit quadrant content).
struct Part {
    quadrant: usize,
    /// For each content of the quadrant, the 4-bit set of turns after
    /// which the content covers the line's cells.
    turns: Box<[u8; 512]>,
}

pub(super) struct Tables {
    /// Per line, its 2 or 3 parts.
    lines: Vec<Vec<Part>>,
    /// `exp[p][q][m]`: the states of parity `p` whose turns of quadrant
    /// `q` are in the 4-bit set `m`.
    exp: [[[Half; 16]; 4]; 2],
    /// Binomial coefficients.
    pub(super) binom: [[u64; 40]; 40],
    /// `deposit[m][v]`: the low bits of `v` placed on the set bits of the
    /// byte `m` (a byte-wise software `pdep`).
    pub(super) deposit: Vec<[u8; 256]>,
    /// Colex rank of a mask's low 10 bits, with their count in bits 16..
    rank_lo10: [u32; 1024],
    /// `rank_hi11[c][h]`: what bits 10..21 (`h`) add to the colex rank
    /// when `c` bits are set below them (11 rows of 8 KiB; at a given
    /// layer only the few counts its sets have below bit 10 are read).
    rank_hi11: Box<[[u32; 2048]; 11]>,
}

pub(super) fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut lines = Vec::new();
        for &l in &LINES {
            let mut parts = Vec::new();
            for q in 0..4 {
                let pat = ((l >> (16 * q)) & 0x1ff) as u16;
                if pat == 0 {
                    continue;
                }
                let mut turns = Box::new([0u8; 512]);
                for (c, t) in turns.iter_mut().enumerate() {
                    let mut v = c as u64;
                    for j in 0..4 {
                        if v as u16 & pat == pat {
                            *t |= 1 << j;
                        }
                        v = rotate(v, 0);
                    }
                }
                parts.push(Part { quadrant: q, turns });
            }
            lines.push(parts);
        }
        let mut exp = [[[[0u64; 2]; 16]; 4]; 2];
        for (p, per_q) in exp.iter_mut().enumerate() {
            for (q, per_m) in per_q.iter_mut().enumerate() {
                for (m, set) in per_m.iter_mut().enumerate() {
                    for bit in 0..128u32 {
                        let r = state_at(p, bit);
                        if m >> r[q] & 1 != 0 {
                            set[(bit >> 6) as usize] |= 1 << (bit & 63);
                        }
                    }
                }
            }
        }
        let mut binom = [[0u64; 40]; 40];
        for n in 0..40 {
            binom[n][0] = 1;
            for k in 1..=n {
                binom[n][k] = binom[n - 1][k - 1] + binom[n - 1][k];
            }
        }
        let mut deposit = vec![[0u8; 256]; 256];
        for (m, row) in deposit.iter_mut().enumerate() {
            for (v, out) in row.iter_mut().enumerate() {
                let mut src = v;
                for b in 0..8 {
                    if m >> b & 1 != 0 {
                        *out |= ((src & 1) << b) as u8;
                        src >>= 1;
                    }
                }
            }
        }
        let mut rank_lo10 = [0u32; 1024];
        let mut rank_hi11 = Box::new([[0u32; 2048]; 11]);
        for m in 0..2048usize {
            if m < 1024 {
                let mut r = 0;
                for (i, b) in bits_of(m as u64).enumerate() {
                    r += binom[b as usize][i + 1];
                }
                rank_lo10[m] = r as u32 | (m.count_ones() << 16);
            }
            for (c, row) in rank_hi11.iter_mut().enumerate() {
                let mut r = 0;
                for (i, b) in bits_of(m as u64).enumerate() {
                    r += binom[10 + b as usize][c + i + 1];
                }
                row[m] = r as u32;
            }
        }
        Tables {
            lines,
            rank_lo10,
            rank_hi11,
            exp,
            binom,
            deposit,
        }
    })
}

/// The colex rank of a mask of up to 21 bits among the masks with as
/// many bits set (the sum over its bits of C(position, index + 1)), from
/// two tables (the low 10 bits, then the 11 above): two loads and an add, where three 9-bit tables
/// (up to 2026-11-27) took about 25 instructions with their bounds
/// checks, a sixth of a node's in the fused gathers.
#[inline(always)]
pub(super) fn rank(m: u32) -> usize {
    tables().rank(m)
}

impl Tables {
    /// [`rank`] on tables the caller holds (the kernels, which so check
    /// the tables' initialisation once a block, not once a node).
    #[inline(always)]
    pub(super) fn rank(&self, m: u32) -> usize {
        let lo = self.rank_lo10[(m & 1023) as usize];
        let hi = self.rank_hi11[(lo >> 16) as usize][(m >> 10) as usize & 2047];
        ((lo & 0xffff) + hi) as usize
    }
}

/// The states (both parities) in which `stones` (in the quadrants' own
/// frames) contain a five.
pub fn fives(stones: u64) -> [Half; 2] {
    let t = tables();
    let content = [0, 1, 2, 3].map(|q| ((stones >> (16 * q)) & 0x1ff) as usize);
    let mut out = [[0u64; 2]; 2];
    'line: for parts in &t.lines {
        let mut acc = [[!0u64; 2]; 2];
        for part in parts {
            let m = part.turns[content[part.quadrant]] as usize;
            if m == 0 {
                continue 'line;
            }
            for (a, per_q) in acc.iter_mut().zip(&t.exp) {
                let e = &per_q[part.quadrant][m];
                a[0] &= e[0];
                a[1] &= e[1];
            }
        }
        for (o, a) in out.iter_mut().zip(acc) {
            *o = or(*o, a);
        }
    }
    out
}

/// The subsets of `n` bits with `k` set, in colex order (so a subset's
/// place in the list is its colex rank).
pub(super) fn subsets(n: u32, k: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    if k == 0 {
        out.push(0);
        return out;
    }
    let mut s: u32 = (1 << k) - 1;
    while s < 1 << n {
        out.push(s);
        // Gosper's hack: the next larger number with as many bits set.
        let c = s & s.wrapping_neg();
        let r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
    out
}
