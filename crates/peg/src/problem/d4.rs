//! The symmetries of square boards of at most 8 by 8 holes by delta
//! swaps, and the same images in one AVX-512 register (with GFNI).

use crate::bits::Bits;

/// The symmetries of a square board of at most 8 by 8 holes in rows of 8
/// bits, by delta swaps instead of table look-ups: mirror `H` (columns),
/// flip `V` (rows) and transpose `T`. Image `k` (0..8) is
/// `T^(k>>2) V^(k>>1&1) H^(k&1)`.
#[derive(Clone, Debug)]
pub(super) struct D4<B> {
    /// Delta swaps (mask of the lower bits, shift) of the mirror; unused
    /// ones have an empty mask.
    pub(super) h: [(B, usize); 4],
    /// Delta swaps of the flip.
    pub(super) v: [(B, usize); 4],
    /// Delta swaps of the transposition (empty masks if rows differ from
    /// columns).
    pub(super) t: [(B, usize); 3],
    /// Whether the transposition is a symmetry of the grid.
    pub(super) square: bool,
    /// The grid's unused columns and rows (`8 - cols`, `8 * (8 - rows)`
    /// bits): the shifts that follow a byte's bit reversal (mirror) and a
    /// word's byte reversal (flip) in [`d4_gfni`].
    pub(super) pad: (u32, u32),
    /// For each element of the problem's group, its image index `k`.
    pub(super) codes: Vec<u8>,
    /// Bit `k` set for each image index in `codes` (the group's lanes of
    /// [`d4_gfni`]'s register).
    pub(super) lanes: u8,
}

impl<B: Bits> D4<B> {
    fn from_u64(x: u64) -> B {
        (0..64)
            .filter(|i| x >> i & 1 == 1)
            .fold(B::ZERO, |m, i| m | B::bit(i))
    }

    pub(super) fn new(cols: usize, rows: usize) -> Self {
        let col = |c: usize| Self::from_u64((0..rows).fold(0u64, |m, r| m | 1 << (8 * r + c)));
        let row = |r: usize| Self::from_u64(0xffu64 << (8 * r));
        let mut h = [(B::ZERO, 0); 4];
        for (c, slot) in h.iter_mut().enumerate().take(cols / 2) {
            *slot = (col(c), cols - 1 - 2 * c);
        }
        let mut v = [(B::ZERO, 0); 4];
        for (r, slot) in v.iter_mut().enumerate().take(rows / 2) {
            *slot = (row(r), 8 * (rows - 1 - 2 * r));
        }
        // The transposition of an 8 by 8 board in three delta swaps.
        let square = rows == cols;
        let t = if square {
            [
                (Self::from_u64(0x0000_0000_f0f0_f0f0), 28),
                (Self::from_u64(0x0000_cccc_0000_cccc), 14),
                (Self::from_u64(0x00aa_00aa_00aa_00aa), 7),
            ]
        } else {
            [(B::ZERO, 0); 3]
        };
        D4 {
            h,
            v,
            t,
            square,
            pad: ((8 - cols) as u32, (8 * (8 - rows)) as u32),
            codes: Vec::new(),
            lanes: 0,
        }
    }

    #[inline(always)]
    fn swaps(x: B, swaps: &[(B, usize)]) -> B {
        swaps.iter().fold(x, |x, &(m, d)| {
            let t = (x ^ x.shr(d)) & m;
            x ^ t ^ t.shl(d)
        })
    }

    /// All eight images (index `k` as in the type's documentation).
    #[inline(always)]
    pub(super) fn all(&self, x: B) -> [B; 8] {
        let hx = Self::swaps(x, &self.h);
        let vx = Self::swaps(x, &self.v);
        let vhx = Self::swaps(hx, &self.v);
        [
            x,
            hx,
            vx,
            vhx,
            Self::swaps(x, &self.t),
            Self::swaps(hx, &self.t),
            Self::swaps(vx, &self.t),
            Self::swaps(vhx, &self.t),
        ]
    }

    #[inline]
    pub(super) fn apply(&self, k: u8, x: B) -> B {
        let mut y = x;
        if k & 1 == 1 {
            y = Self::swaps(y, &self.h);
        }
        if k & 2 == 2 {
            y = Self::swaps(y, &self.v);
        }
        if k & 4 == 4 {
            y = Self::swaps(y, &self.t);
        }
        y
    }
}

/// [`D4::all`] compiled for CPUs with AVX-512.
///
/// # Safety
/// The CPU must support the enabled features (see `wide_simd`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,bmi1,bmi2,popcnt")]
#[inline]
pub(super) unsafe fn d4_wide<B: Bits>(d4: &D4<B>, pos: B) -> [B; 8] {
    d4.all(pos)
}

/// [`D4::all`] in one AVX-512 register with GFNI: the mirror reverses
/// the bits of each byte (a row) by an affine map over GF(2), the flip
/// reverses the bytes of the word, and the transposition is the 8 × 8 bit
/// matrix transposed by one more affine map (the flipped word as the
/// matrix, the identity as the data); each image of the group is the lane
/// whose index has the bits of the maps applied (1 mirror, 2 flip, 4
/// transposition), in the order of [`D4::all`].
///
/// # Safety
/// The CPU must support the enabled features (see `PegSolitaire::gfni`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
#[inline]
pub(super) unsafe fn d4_gfni<B: Bits>(d4: &D4<B>, pos: B) -> [B; 8] {
    let mut out = [0u64; 8];
    std::arch::x86_64::_mm512_storeu_si512(out.as_mut_ptr().cast(), d4_gfni_register(d4, pos));
    out.map(B::from_low_u64)
}

/// How many of the group's images of `pos` (the lanes of `d4.lanes`) equal
/// it: the order of its stabiliser, from [`d4_gfni`]'s register.
///
/// # Safety
/// As [`d4_gfni`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
#[inline]
pub(super) unsafe fn d4_fixed_gfni<B: Bits>(d4: &D4<B>, pos: B) -> u32 {
    use std::arch::x86_64::*;
    let images = d4_gfni_register(d4, pos);
    let same = _mm512_cmpeq_epi64_mask(images, _mm512_set1_epi64(pos.low_u64(0) as i64));
    (same & d4.lanes).count_ones()
}

/// The images of [`d4_gfni`] in one register.
///
/// # Safety
/// As [`d4_gfni`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
#[inline]
pub(super) unsafe fn d4_gfni_register<B: Bits>(d4: &D4<B>, pos: B) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // Bit i of an output byte is the parity of (matrix byte 7 - i) AND
    // the data byte. Matrix bytes 1 << k map bit i to bit 7 - i; as data
    // (byte k is 1 << k) they pick column k of the matrix.
    const DIAGONAL: i64 = 0x8040_2010_0804_0201_u64 as i64;
    let x = _mm512_set1_epi64(pos.low_u64(0) as i64);
    let (hs, vs) = d4.pad;
    let rev = _mm512_gf2p8affine_epi64_epi8::<0>(x, _mm512_set1_epi64(DIAGONAL));
    let h = _mm512_srlv_epi64(rev, _mm512_set1_epi64(hs as i64));
    let x = _mm512_mask_mov_epi64(x, 0b1010_1010, h);
    // Bytes reversed within each 64-bit lane.
    let bswap = _mm512_set_epi64(
        0x0809_0a0b_0c0d_0e0f,
        0x0001_0203_0405_0607,
        0x0809_0a0b_0c0d_0e0f,
        0x0001_0203_0405_0607,
        0x0809_0a0b_0c0d_0e0f,
        0x0001_0203_0405_0607,
        0x0809_0a0b_0c0d_0e0f,
        0x0001_0203_0405_0607,
    );
    let flipped = _mm512_shuffle_epi8(x, bswap);
    let v = _mm512_srlv_epi64(flipped, _mm512_set1_epi64(vs as i64));
    let x = _mm512_mask_mov_epi64(x, 0b1100_1100, v);
    if d4.square {
        // Row r of the transposition is column r: with the rows flipped
        // as the matrix, output byte k bit i is input row i, column k.
        let rows_flipped = _mm512_shuffle_epi8(x, bswap);
        let t = _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_set1_epi64(DIAGONAL), rows_flipped);
        _mm512_mask_mov_epi64(x, 0b1111_0000, t)
    } else {
        x
    }
}

/// Whether the CPU runs [`PegSolitaire::neighbours_wide`].
pub(super) fn wide_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU has AVX-512's byte compress (VBMI2), for the jump
/// enumeration of `neighbour_keys_gfni` (with [`gfni_simd`]).
pub(super) fn vbmi2_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vbmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU runs [`d4_gfni`].
pub(super) fn gfni_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("gfni")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
