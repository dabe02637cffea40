//! The problem's symmetry group: images, canonical forms, orbit sizes and
//! the canonical neighbours of a position.

use super::d4::D4;
#[cfg(target_arch = "x86_64")]
use super::d4::{d4_fixed_gfni, d4_gfni, d4_wide};
use super::PegSolitaire;
use crate::bits::Bits;
use crate::board::Lattice;
use endgame_core::dense::DenseKeys;
use endgame_core::Symmetric;

/// The least of `xs` by a balanced tree of selects (short dependency
/// chains, no unpredictable branches).
#[inline(always)]
fn least<B: Bits>(xs: &[B]) -> B {
    #[inline(always)]
    fn lo<B: Bits>(a: B, b: B) -> B {
        if b < a {
            b
        } else {
            a
        }
    }
    match xs.len() {
        1 => xs[0],
        2 => lo(xs[0], xs[1]),
        3 => lo(lo(xs[0], xs[1]), xs[2]),
        4 => lo(lo(xs[0], xs[1]), lo(xs[2], xs[3])),
        8 => lo(
            lo(lo(xs[0], xs[1]), lo(xs[2], xs[3])),
            lo(lo(xs[4], xs[5]), lo(xs[6], xs[7])),
        ),
        _ => xs.iter().fold(xs[0], |a, &b| lo(a, b)),
    }
}

impl<B: Bits> PegSolitaire<B> {
    /// The delta-swap symmetries, if every element of the group is one of
    /// them (checked hole by hole against the board's permutations).
    pub(super) fn find_d4(&self, g: &[(usize, usize)], stride: usize) -> Option<D4<B>> {
        if stride != 8 || self.board.lattice() != Lattice::Square {
            return None;
        }
        let cols = g.iter().map(|c| c.0).max()? + 1;
        let rows = g.iter().map(|c| c.1).max()? + 1;
        let mut d4 = D4::new(cols, rows);
        let kinds = if d4.square { 8 } else { 4 };
        for &gi in &self.group {
            let perm = &self.board.symmetries()[gi];
            let k = (0..kinds as u8).find(|&k| {
                (0..self.board.holes()).all(|h| {
                    d4.apply(k, B::bit(self.hole_bit[h])) == B::bit(self.hole_bit[perm[h]])
                })
            })?;
            d4.codes.push(k);
            d4.lanes |= 1 << k;
        }
        Some(d4)
    }

    /// Image of `pos` under group element `g`.
    #[inline]
    pub(super) fn transform(&self, g: usize, pos: B) -> B {
        if let Some(d4) = &self.d4 {
            return d4.apply(d4.codes[g], pos);
        }
        let base = g * self.nbytes;
        let mut out = B::ZERO;
        for k in 0..self.nbytes {
            out |= self.sym_table[base + k][pos.byte(k)];
        }
        out
    }

    /// Calls `f(canonical neighbour, its orbit size)` for each child
    /// (`forward`) or parent of `pos`, with the group's order `N` known at
    /// compile time. Symmetries are bit permutations, so the images of a
    /// neighbour are the images of `pos` XOR the images of the jump's mask:
    /// the images of `pos` are computed once, and each neighbour costs `N`
    /// XORs and a branch-free minimum.
    #[inline(always)]
    fn neighbours_n<const N: usize>(&self, pos: B, forward: bool, mut f: impl FnMut(B, u32)) {
        let images = self.images_n::<N>(pos);
        let table: &[B] = &self.jump_images;
        self.each_jump(pos, forward, |j| {
            let Some(ji) = table.get(j * N..j * N + N) else {
                return;
            };
            let mut t = [B::ZERO; N];
            for g in 0..N {
                t[g] = images[g] ^ ji[g];
            }
            let best = least(&t);
            let mut fixed = 0u32;
            for &x in &t {
                fixed += (x == best) as u32;
            }
            f(best, N as u32 / fixed.max(1));
        });
    }

    /// The images of `pos` under the group, whose order is `N`.
    #[inline(always)]
    fn images_n<const N: usize>(&self, pos: B) -> [B; N] {
        let mut images = [B::ZERO; N];
        if let Some(d4) = &self.d4 {
            let all = self.all_d4(d4, pos);
            if N == 8 {
                // The whole group, in the images' order (see `new`).
                images.copy_from_slice(&all[..N]);
            } else {
                for (img, &k) in images.iter_mut().zip(&d4.codes) {
                    *img = all[k as usize];
                }
            }
        } else {
            for (g, img) in images.iter_mut().enumerate() {
                *img = self.transform(g, pos);
            }
        }
        images
    }

    /// The least image of `pos` and the number of group elements giving it.
    #[inline]
    fn least_image(&self, pos: B) -> (B, u32) {
        fn count<B: Bits, const N: usize>(images: [B; N]) -> (B, u32) {
            let best = least(&images);
            (best, images.iter().map(|&i| (i == best) as u32).sum())
        }
        match self.group.len() {
            1 => (pos, 1),
            2 => count(self.images_n::<2>(pos)),
            4 => count(self.images_n::<4>(pos)),
            8 => count(self.images_n::<8>(pos)),
            n => {
                let images: Vec<B> = (0..n).map(|g| self.transform(g, pos)).collect();
                let best = images.iter().copied().min().unwrap_or(pos);
                (best, images.iter().filter(|&&i| i == best).count() as u32)
            }
        }
    }

    /// [`PegSolitaire::neighbours_n`] for this problem's group.
    #[inline]
    pub(super) fn neighbours(&self, pos: B, forward: bool, f: impl FnMut(B, u32)) {
        #[cfg(target_arch = "x86_64")]
        if self.wide && self.group.len() == 8 {
            // SAFETY: `wide` is set only when the CPU has these features.
            unsafe { self.neighbours_wide::<8>(pos, forward, f) };
            return;
        }
        match self.group.len() {
            1 => self.neighbours_n::<1>(pos, forward, f),
            2 => self.neighbours_n::<2>(pos, forward, f),
            4 => self.neighbours_n::<4>(pos, forward, f),
            6 => self.neighbours_n::<6>(pos, forward, f),
            8 => self.neighbours_n::<8>(pos, forward, f),
            3 => self.neighbours_n::<3>(pos, forward, f),
            12 => self.neighbours_n::<12>(pos, forward, f),
            _ => {
                let mut f = f;
                self.each_jump(pos, forward, |j| {
                    let (c, o) = self.canonical_and_orbit(&(pos ^ self.jump_mask[j]));
                    f(c, o)
                })
            }
        }
    }

    /// The eight delta-swap images of `pos`.
    #[inline(always)]
    fn all_d4(&self, d4: &D4<B>, pos: B) -> [B; 8] {
        #[cfg(target_arch = "x86_64")]
        if self.gfni {
            // SAFETY: `gfni` is set only when the CPU has these features.
            return unsafe { d4_gfni(d4, pos) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            // SAFETY: `wide` is set only when the CPU has these features.
            return unsafe { d4_wide(d4, pos) };
        }
        d4.all(pos)
    }

    /// [`PegSolitaire::neighbours_n`] compiled for CPUs with AVX-512, where the
    /// eight images of a neighbour fit one vector register.
    ///
    /// # Safety
    /// The CPU must support the enabled features (see `wide`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,bmi1,bmi2,popcnt")]
    unsafe fn neighbours_wide<const N: usize>(&self, pos: B, forward: bool, f: impl FnMut(B, u32)) {
        self.neighbours_n::<N>(pos, forward, f)
    }

    /// The classes of holes (orbits under the problem's symmetry group),
    /// numbered in order of first hole: the genes of the genetic search.
    pub fn hole_classes(&self) -> Vec<usize> {
        let n = self.board.holes();
        let mut class = vec![usize::MAX; n];
        let mut next = 0;
        for h in 0..n {
            if class[h] != usize::MAX {
                continue;
            }
            for &g in &self.group {
                class[self.board.symmetries()[g][h]] = next;
            }
            next += 1;
        }
        class
    }
}

impl<B: Bits> Symmetric for PegSolitaire<B> {
    fn symmetry_count(&self) -> usize {
        self.group.len()
    }

    fn apply_symmetry(&self, i: usize, pos: &B) -> B {
        self.transform(i, *pos)
    }

    #[inline]
    fn canonical(&self, pos: &B) -> B {
        self.least_image(*pos).0
    }

    fn orbit_size(&self, pos: &B) -> u32 {
        // The images equal to `pos` itself form its stabiliser; `pos`
        // need not be canonical.
        let n = self.group.len();
        let fixed = if let Some(d4) = &self.d4 {
            #[cfg(target_arch = "x86_64")]
            if self.gfni {
                // SAFETY: `gfni` is set only when the CPU has these features.
                let fixed = unsafe { d4_fixed_gfni(d4, *pos) };
                // A stabiliser's order divides the group's: a power of two
                // in D4 (a shift, not a division).
                return (n >> fixed.max(1).trailing_zeros()) as u32;
            }
            let all = self.all_d4(d4, *pos);
            d4.codes
                .iter()
                .filter(|&&k| all[k as usize] == *pos)
                .count()
        } else {
            (0..n).filter(|&g| self.transform(g, *pos) == *pos).count()
        };
        (n / fixed.max(1)) as u32
    }

    fn orbit_total(&self, positions: &[B]) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let (Some(d4), true) = (&self.d4, self.gfni) {
            // SAFETY: `gfni` is set only when the CPU has these features.
            return unsafe { d4_orbit_total_gfni(d4, self.group.len(), positions) };
        }
        positions
            .iter()
            .map(|p| u64::from(self.orbit_size(p)))
            .sum()
    }

    fn canonical_and_orbit(&self, pos: &B) -> (B, u32) {
        let (c, fixed) = self.least_image(*pos);
        (c, self.group.len() as u32 / fixed.max(1))
    }

    #[inline]
    fn for_each_canonical_child_orbit(&self, pos: &B, f: impl FnMut(B, u32)) {
        self.neighbours(*pos, true, f);
    }

    #[inline]
    fn for_each_canonical_child(&self, pos: &B, mut f: impl FnMut(B)) {
        self.neighbours(*pos, true, |c, _| f(c));
    }

    fn dense_keys(&self) -> Option<&dyn DenseKeys<B>> {
        (!self.key_table.is_empty()).then_some(self as &dyn DenseKeys<B>)
    }
}

/// [`Symmetric::orbit_total`] by [`d4_fixed_gfni`] in one loop compiled
/// for its features (called one position at a time from code without
/// them, it is not inlined): `n`, the group's order, over each
/// stabiliser's, with the CPU's popcount.
///
/// # Safety
/// As [`d4_fixed_gfni`] (`gfni_simd` also checks the popcount).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,gfni,popcnt")]
unsafe fn d4_orbit_total_gfni<B: Bits>(d4: &D4<B>, n: usize, positions: &[B]) -> u64 {
    // Without `popcnt` among the features, the count of each stabiliser
    // compiled to a software popcount.
    let mut total = 0;
    for &p in positions {
        total += (n >> d4_fixed_gfni(d4, p).max(1).trailing_zeros()) as u64;
    }
    total
}
