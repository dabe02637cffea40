//! Dense keys: one bit per hole, in bit order, on boards of at most 48
//! holes (for the layered engine's ranked bitmaps).

#[cfg(target_arch = "x86_64")]
use super::d4::d4_gfni_register;
use super::{KeyPagodas, PegSolitaire, KEY_PAGODA_LANES};
use crate::bits::Bits;
use endgame_core::dense::DenseKeys;

/// One jump direction for `neighbour_keys_gfni`: the jumps' test is
/// `a & (a >> r << l) & (b >> 2r << 2l) & valid` (one of `r`, `l` is the
/// direction's shift, the other 0, so no branch picks the way), and
/// `ids` holds the jump index of each starting bit as a byte, so that
/// one byte compress by the test's bits lists the jumps in order.
#[derive(Clone, Debug)]
pub(super) struct JumpBytes {
    r: u32,
    l: u32,
    valid: u64,
    ids: [u8; 64],
}

impl<B: Bits> PegSolitaire<B> {
    /// Fills `jump_bytes` where it applies (see the field): one-word boards with fewer than 256 jumps, the square's
    /// eight symmetries, and a CPU with AVX-512 VBMI2 and GFNI.
    pub(super) fn build_jump_bytes(&mut self) {
        let jumps = self.jump_mask.len();
        if !(self.gfni && self.wide && super::d4::vbmi2_simd())
            || self.nbytes > 8
            || jumps >= 256
            || self.group.len() != 8
            || self.d4.is_none()
        {
            return;
        }
        self.jump_bytes = self
            .dirs
            .iter()
            .map(|d| {
                let mut ids = [0u8; 64];
                for (slot, &id) in ids.iter_mut().zip(&d.ids) {
                    // Bits off the board carry no jump; `valid` masks them.
                    *slot = u8::try_from(id).unwrap_or(0);
                }
                let valid = d.valid.low_u64(0);
                for (bit, &id) in d.ids.iter().enumerate().take(64) {
                    debug_assert!(valid >> bit & 1 == 0 || (id as usize) < jumps);
                }
                JumpBytes {
                    r: d.shift.max(0) as u32,
                    l: (-d.shift).max(0) as u32,
                    valid,
                    ids,
                }
            })
            .collect();
    }

    /// Fills the dense-key tables (boards of at most 48 holes).
    pub(super) fn build_key_tables(&mut self) {
        let mut bits: Vec<usize> = self.hole_bit.clone();
        bits.sort_unstable();
        if bits.len() > 48 {
            return;
        }
        // key bit of each bitboard bit
        let mut key_of = vec![None; self.nbytes * 8];
        for (j, &b) in bits.iter().enumerate() {
            key_of[b] = Some(j);
        }
        self.key_table = (0..self.nbytes)
            .map(|k| {
                let mut t = [0u64; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for i in 0..8 {
                        if byte >> i & 1 == 1 {
                            if let Some(j) = key_of[8 * k + i] {
                                *slot |= 1 << j;
                            }
                        }
                    }
                }
                t
            })
            .collect();
        self.unkey_table = (0..bits.len().div_ceil(8))
            .map(|k| {
                let mut t = [B::ZERO; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for i in 0..8 {
                        if byte >> i & 1 == 1 {
                            if let Some(&b) = bits.get(8 * k + i) {
                                *slot |= B::bit(b);
                            }
                        }
                    }
                }
                t
            })
            .collect();
    }

    /// The dense key of `pos` (see [`PegSolitaire::build_key_tables`]).
    #[inline(always)]
    fn key_of(&self, pos: B) -> u64 {
        self.key_table
            .iter()
            .enumerate()
            .fold(0, |key, (k, t)| key | t[pos.byte(k)])
    }

    /// The bits of the holes, when a position fits one word: a key is
    /// then the position's bits under this mask packed down (`pext`).
    fn hole_word(&self) -> u64 {
        self.unkey(u64::MAX >> (64 - self.board.holes())).low_u64(0)
    }

    /// Appends the keys of the canonical children (`forward`) or parents
    /// of every position of `pos` to `out`, one a move, and after each
    /// position the length of `out` to `ends` when given. Where the CPU
    /// has AVX-512 (with VBMI2) and GFNI and the group is the square's
    /// eight symmetries, the whole batch runs in one function compiled
    /// for them (`neighbour_keys_gfni`): the images, the jumps, the least
    /// image and the key's `pext` inline into one loop, with no call and
    /// no list of positions per parent.
    fn neighbour_keys(
        &self,
        pos: &[B],
        forward: bool,
        out: &mut Vec<u64>,
        mut ends: Option<&mut Vec<u32>>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if !self.jump_bytes.is_empty() {
            // SAFETY: `jump_bytes` is set only when the CPU has these
            // features (see `build_jump_bytes`).
            unsafe { self.neighbour_keys_gfni(pos, forward, out, ends) };
            return;
        }
        let mut children = Vec::with_capacity(pos.len() * 8);
        for &p in pos {
            self.neighbours(p, forward, |c, _| children.push(c));
            if let Some(e) = ends.as_deref_mut() {
                e.push((out.len() + children.len()) as u32);
            }
        }
        self.keys(&children, out);
    }

    /// [`PegSolitaire::neighbour_keys`] compiled for CPUs with AVX-512,
    /// VBMI2 and GFNI, for the eight symmetries of a square board in one
    /// word. The jumps are listed without a branch: each direction's are
    /// the bytes of its ids compressed by its test's bits (`jump_bytes`),
    /// written one after the other (a loop over each direction's bits
    /// ended in a mispredicted branch four times a position; 10 % of the
    /// English full count's CPU). Then one counted loop makes their keys:
    /// the eight images of the position are in one register, a
    /// neighbour's are those XOR the jump's (symmetries are bit
    /// permutations), its canonical form is their least, and its key
    /// that packed down (`pext`). The least images are taken eight
    /// neighbours at a time ([`least_of_eight`]), which takes half the
    /// instructions of eight reductions; fewer instructions per key let
    /// more keys' cache misses overlap in the bit-setting that follows.
    ///
    /// # Safety
    /// The CPU must support the enabled features (`jump_bytes` is set).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(
        enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,avx512vbmi2,bmi1,bmi2,popcnt,gfni"
    )]
    unsafe fn neighbour_keys_gfni(
        &self,
        pos: &[B],
        forward: bool,
        out: &mut Vec<u64>,
        mut ends: Option<&mut Vec<u32>>,
    ) {
        use std::arch::x86_64::*;
        let holes = self.hole_word();
        let Some(d4) = &self.d4 else {
            return;
        };
        let table: &[B] = &self.jump_images;
        let dirs = &self.jump_bytes[..];
        let most = table.len() / 8;
        // Every jump at most once (fewer than 256), and each direction's
        // store writes 64 bytes from the count so far.
        let mut list = [0u8; 256 + 64];
        for &p in pos {
            let images = d4_gfni_register(d4, p);
            let w = p.low_u64(0);
            let (a, b) = if forward { (w, !w) } else { (!w, w) };
            let mut n = 0usize;
            for d in dirs {
                let cand = a & (a >> d.r << d.l) & (b >> (2 * d.r) << (2 * d.l)) & d.valid;
                let ids =
                    _mm512_maskz_compress_epi8(cand, _mm512_loadu_si512(d.ids.as_ptr().cast()));
                _mm512_storeu_si512(list.as_mut_ptr().add(n.min(256)).cast(), ids);
                n += cand.count_ones() as usize;
            }
            let n = n.min(most);
            out.reserve(n);
            let base = out.len();
            let room = &mut out.spare_capacity_mut()[..n];
            // A neighbour's eight images: the position's with the jump's
            // cells flipped.
            let jumped = |j: u8| {
                let ji = &table[j as usize * 8..j as usize * 8 + 8];
                let ji: [u64; 8] = std::array::from_fn(|g| ji[g].low_u64(0));
                _mm512_xor_si512(images, _mm512_loadu_si512(ji.as_ptr().cast()))
            };
            // Eight neighbours at a time: their least images in one
            // register, then packed down one by one.
            let mut groups = room.chunks_exact_mut(8);
            let mut ids = list[..n].chunks_exact(8);
            for (slots, j) in (&mut groups).zip(&mut ids) {
                let least = least_of_eight(std::array::from_fn(|c| jumped(j[c])));
                // Stored whole, then packed in place (the form measured
                // faster than packing the lanes of an array copy).
                _mm512_storeu_si512(slots.as_mut_ptr().cast(), least);
                // SAFETY: the store above wrote all eight.
                for slot in slots.iter_mut() {
                    slot.write(_pext_u64(slot.assume_init(), holes));
                }
            }
            for (slot, &j) in groups.into_remainder().iter_mut().zip(ids.remainder()) {
                slot.write(_pext_u64(_mm512_reduce_min_epu64(jumped(j)), holes));
            }
            // SAFETY: the first `n` slots past `base` were just written
            // (every listed id is a jump: `valid` keeps only real ones).
            out.set_len(base + n);
            if let Some(e) = ends.as_deref_mut() {
                e.push(out.len() as u32);
            }
        }
    }

    /// [`DenseKeys::reversed_keys`] compiled for CPUs with AVX-512 and
    /// GFNI, for the eight symmetries of a square board in one word: the
    /// reversal is the complement on the holes, which turns the order of
    /// positions round, so the least image of the complement is the
    /// complement of the greatest image.
    ///
    /// # Safety
    /// The CPU must support the enabled features (`wide` and `gfni`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,bmi1,bmi2,popcnt,gfni")]
    unsafe fn reversed_keys_gfni(&self, pos: &[B], all: B, out: &mut Vec<u64>) {
        use std::arch::x86_64::*;
        let holes = self.hole_word();
        let all = all.low_u64(0);
        let Some(d4) = &self.d4 else {
            return;
        };
        out.extend(pos.iter().map(|&p| {
            let most = _mm512_reduce_max_epu64(d4_gfni_register(d4, p));
            _pext_u64(all ^ most, holes)
        }));
    }

    /// The pagoda functions' tables on dense keys (see
    /// [`PegSolitaire::key_pagodas`]), once the functions and the key
    /// tables are known.
    pub(super) fn build_key_pagodas(&mut self) {
        if self.key_table.is_empty() {
            return;
        }
        // Every total within 16 bits, or no tables (the position test
        // then runs instead).
        let fits = self.pagodas.iter().all(|(pg, need)| {
            pg.weights.iter().map(|w| w.unsigned_abs()).sum::<u64>() < 1 << 15
                && need.unsigned_abs() < 1 << 15
        });
        if !fits {
            return;
        }
        let kbytes = self.unkey_table.len();
        let mut t = KeyPagodas {
            kbytes,
            ..KeyPagodas::default()
        };
        for group in self.pagodas.chunks(KEY_PAGODA_LANES) {
            let mut need = [i16::MIN; KEY_PAGODA_LANES];
            for (l, (_, n)) in group.iter().enumerate() {
                need[l] = *n as i16;
            }
            t.need.push(need);
            for bytes in &self.unkey_table {
                for &pegs in bytes {
                    let mut lanes = [0i16; KEY_PAGODA_LANES];
                    for (lane, (pg, _)) in lanes.iter_mut().zip(group) {
                        *lane = self.weigh(pegs, &pg.weights) as i16;
                    }
                    t.lanes.push(lanes);
                }
            }
        }
        self.key_pagodas = Some(t);
    }

    /// Whether some pagoda function is below what the goal needs on the
    /// position of dense key `key`.
    #[inline(always)]
    pub(super) fn key_pagoda_fails(t: &KeyPagodas, key: u64) -> bool {
        let rows = t.kbytes << 8;
        for (g, need) in t.need.iter().enumerate() {
            let group = &t.lanes[g * rows..(g + 1) * rows];
            let mut sum = [0i16; KEY_PAGODA_LANES];
            for k in 0..t.kbytes {
                let row = &group[(k << 8) | (key >> (8 * k)) as usize & 255];
                for (s, w) in sum.iter_mut().zip(row) {
                    *s += w;
                }
            }
            if sum.iter().zip(need).fold(false, |f, (s, n)| f | (s < n)) {
                return true;
            }
        }
        false
    }

    /// Keeps the keys no pagoda function rules out, sixteen functions in
    /// one 256-bit register (a load and an add a key byte), written back
    /// in place.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn retain_keys_avx2(t: &KeyPagodas, keys: &mut Vec<u64>) {
        use std::arch::x86_64::*;
        let rows = t.kbytes << 8;
        debug_assert_eq!(t.lanes.len(), t.need.len() * rows);
        let mut kept = 0;
        for i in 0..keys.len() {
            let key = keys[i];
            let mut fails = 0;
            for (g, need) in t.need.iter().enumerate() {
                let group = t.lanes[g * rows..(g + 1) * rows].as_ptr();
                let mut sum = _mm256_setzero_si256();
                for k in 0..t.kbytes {
                    let at = (k << 8) | (key >> (8 * k)) as usize & 255;
                    // SAFETY: `at < rows`, the group's length.
                    let row = unsafe { _mm256_loadu_si256(group.add(at).cast()) };
                    sum = _mm256_add_epi16(sum, row);
                }
                // SAFETY: a need row is 16 lanes of 16 bits.
                let need = unsafe { _mm256_loadu_si256(need.as_ptr().cast()) };
                fails |= _mm256_movemask_epi8(_mm256_cmpgt_epi16(need, sum));
            }
            keys[kept] = key;
            kept += (fails == 0) as usize;
        }
        keys.truncate(kept);
    }

    /// The bitboard of dense key `key`.
    #[inline(always)]
    fn unkey(&self, key: u64) -> B {
        self.unkey_table
            .iter()
            .enumerate()
            .fold(B::ZERO, |pos, (k, t)| {
                pos | t[(key >> (8 * k)) as usize & 255]
            })
    }
}

impl<B: Bits> DenseKeys<B> for PegSolitaire<B> {
    fn key_bits(&self) -> u32 {
        self.board.holes() as u32
    }

    fn invariants(&self) -> Vec<u64> {
        self.class_masks.iter().map(|&m| self.key_of(m)).collect()
    }

    fn key(&self, pos: &B) -> u64 {
        self.key_of(*pos)
    }

    fn keys(&self, pos: &[B], out: &mut Vec<u64>) {
        /// Replaces every word by its bits under `mask` packed down.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "bmi2")]
        fn pext_all(words: &mut [u64], mask: u64) {
            for w in words {
                *w = std::arch::x86_64::_pext_u64(*w, mask);
            }
        }
        // When a position fits one word and the CPU gathers bits in one
        // instruction (BMI2's `pext`), a key is the position's hole bits
        // packed down in order, as the key tables pack them byte by byte
        // (five look-ups on a 33-hole board).
        #[cfg(target_arch = "x86_64")]
        if self.nbytes <= 8 && std::arch::is_x86_feature_detected!("bmi2") {
            let holes = self.hole_word();
            let start = out.len();
            out.extend(pos.iter().map(|p| p.low_u64(0)));
            // SAFETY: the CPU has BMI2 (checked above).
            unsafe { pext_all(&mut out[start..], holes) };
            return;
        }
        out.extend(pos.iter().map(|&p| self.key_of(p)));
    }

    /// The class masks meet every line of three in 0 or 2 holes, so no
    /// jump changes a position's parities on them; and the symmetries
    /// kept fix the start, so a canonical image `g(p)` has the parities
    /// of `p` on `g⁻¹(m)`, again a class mask's set: the start's. Every
    /// reachable canonical position thus has the start's class.
    fn children_keep_class(&self) -> bool {
        true
    }

    /// The score is the peg count, a key's bit count.
    fn score_is_bit_count(&self) -> bool {
        true
    }

    /// The count and class tests on the first key (a ranked layer's keys
    /// share both), the pagoda functions on every key by their key
    /// tables: the same verdicts as `cannot_reach_goal`, at a few
    /// nanoseconds a key.
    fn prune_keys(&self, keys: &mut Vec<u64>) -> bool {
        let Some(t) = &self.key_pagodas else {
            return false;
        };
        let Some(&first) = keys.first() else {
            return true;
        };
        if self.count_or_class_fails(self.unkey(first)) {
            keys.clear();
        } else if !t.need.is_empty() {
            #[cfg(target_arch = "x86_64")]
            if self.avx2 {
                // SAFETY: the CPU has AVX2 (checked when built).
                unsafe { Self::retain_keys_avx2(t, keys) };
                return true;
            }
            keys.retain(|&k| !Self::key_pagoda_fails(t, k));
        }
        true
    }

    fn positions(&self, keys: &[u64], out: &mut Vec<B>) {
        /// Appends each key's bits deposited under `mask` (`pdep`).
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "bmi2")]
        fn pdep_all<B: Bits>(keys: &[u64], mask: u64, out: &mut Vec<B>) {
            out.extend(
                keys.iter()
                    .map(|&k| B::from_low_u64(std::arch::x86_64::_pdep_u64(k, mask))),
            );
        }
        // The inverse of `keys`' `pext`: one instruction a key where the
        // position fits one word, instead of a look-up a key byte.
        #[cfg(target_arch = "x86_64")]
        if self.nbytes <= 8 && std::arch::is_x86_feature_detected!("bmi2") {
            // SAFETY: the CPU has BMI2 (checked above).
            unsafe { pdep_all(keys, self.hole_word(), out) };
            return;
        }
        out.extend(keys.iter().map(|&k| self.unkey(k)));
    }

    fn child_keys(&self, parents: &[B], out: &mut Vec<u64>) {
        self.neighbour_keys(parents, true, out, None);
    }

    fn neighbour_keys(&self, pos: &[B], forward: bool, out: &mut Vec<u64>, ends: &mut Vec<u32>) {
        PegSolitaire::neighbour_keys(self, pos, forward, out, Some(ends));
    }

    /// Every key handed over is of a canonical position, the least of its
    /// images under the group (`least_image`), and keys order as
    /// positions do; hole `h` is key bit `h`.
    fn key_symmetries(&self) -> Vec<Vec<u32>> {
        let all = self.board.symmetries();
        self.group
            .iter()
            .map(|&g| all[g].iter().map(|&h| h as u32).collect())
            .collect()
    }

    fn reversed_keys(&self, pos: &[B], out: &mut Vec<u64>) -> bool {
        let Some(all) = self.complement else {
            return false;
        };
        #[cfg(target_arch = "x86_64")]
        if self.gfni && self.wide && self.group.len() == 8 && self.nbytes <= 8 && self.d4.is_some()
        {
            // SAFETY: `gfni` and `wide` are set only when the CPU has
            // these features (and `wide` includes BMI2).
            unsafe { self.reversed_keys_gfni(pos, all, out) };
            return true;
        }
        let images: Vec<B> = pos
            .iter()
            .map(|&p| endgame_core::Symmetric::canonical(self, &(all ^ p)))
            .collect();
        self.keys(&images, out);
        true
    }
}

/// The least lane of each of eight registers of eight `u64`, lane `i` of
/// the result from `a[i]`: each step halves the lanes left per register
/// and packs two registers into one, seven minima and fourteen shuffles
/// for the eight, where reducing each register on its own takes three of
/// each. Called from code compiled for AVX-512 F only.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn least_of_eight(a: [std::arch::x86_64::__m512i; 8]) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // The steps leave register `b[k]`'s least in lane [0, 2, 4, 6, 1, 3,
    // 5, 7][k]; taken in this order, lane `i` holds `a[i]`'s.
    let b = [a[0], a[2], a[4], a[6], a[1], a[3], a[5], a[7]];
    // Per pair: the low 256 bits of both against the high ones; the
    // result holds the first's four minima, then the second's.
    let pair = |x, y| {
        _mm512_min_epu64(
            _mm512_shuffle_i64x2::<0x44>(x, y),
            _mm512_shuffle_i64x2::<0xEE>(x, y),
        )
    };
    let (p0, p1, p2, p3) = (
        pair(b[0], b[1]),
        pair(b[2], b[3]),
        pair(b[4], b[5]),
        pair(b[6], b[7]),
    );
    // Per two pairs: 128-bit lanes 0, 2 against 1, 3; the result holds
    // two minima for each of four registers.
    let quad = |x, y| {
        _mm512_min_epu64(
            _mm512_shuffle_i64x2::<0x88>(x, y),
            _mm512_shuffle_i64x2::<0xDD>(x, y),
        )
    };
    let (q0, q1) = (quad(p0, p1), quad(p2, p3));
    _mm512_min_epu64(_mm512_unpacklo_epi64(q0, q1), _mm512_unpackhi_epi64(q0, q1))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    /// Lane `i` of the result is the least lane of register `i`, on
    /// pseudo-random registers (where the CPU has AVX-512 F).
    #[test]
    fn least_of_eight_is_each_registers_least_lane() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200 {
            let regs: [[u64; 8]; 8] = std::array::from_fn(|_| {
                std::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x
                })
            });
            // SAFETY: the CPU has AVX-512 F (checked above); the arrays
            // and the registers have the same size.
            let got: [u64; 8] = unsafe {
                std::mem::transmute(super::least_of_eight(regs.map(|r| std::mem::transmute(r))))
            };
            let want = regs.map(|r| r.into_iter().min().unwrap());
            assert_eq!(got, want);
        }
    }
}
