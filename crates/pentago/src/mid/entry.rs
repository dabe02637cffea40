//! What a node of a layer holds and how it is turned: one answer per
//! rotation state ([`Half`]) or both answers ([`Both`]), and the formula
//! that makes the answers a layer asks for out of the layer below (fives
//! and the 8 rotations), with its AVX2 form for a [`Both`] in one
//! register.

use super::state::{or, spread, Full, Half};

/// What a node of a layer holds: one answer per rotation state ([`Half`],
/// one sweep per question) or both answers ([`Both`], both questions in
/// one sweep, twice the memory).
pub(super) trait Entry: Copy + Send + Sync {
    const ZERO: Self;
    fn or(self, other: Self) -> Self;
    /// [`Space::turn`] of one node: `self` the opponent's answers at layer
    /// `j + 1`, `fm`/`fo` the fives of the mover at layer `j` and of the
    /// opponent; `WIN` the question of a [`Half`].
    ///
    /// [`Space::turn`]: super::space::Space::turn
    fn turned<const WIN: bool, const FULL: bool>(
        self,
        fm: &Full,
        fo: &Full,
        pj: usize,
        pk: usize,
    ) -> Self;
    /// [`Entry::turned`] inside code compiled for AVX2 (only called from
    /// there): by default the same code.
    #[inline(always)]
    fn turned_fast<const WIN: bool, const FULL: bool>(
        self,
        fm: &Full,
        fo: &Full,
        pj: usize,
        pk: usize,
    ) -> Self {
        self.turned::<WIN, FULL>(fm, fo, pj, pk)
    }
    /// Writes `self` to `slot` inside code compiled for AVX2 (only called
    /// from there) bypassing the caches where the entry allows it (a
    /// non-temporal store, which spares the read of the line it replaces;
    /// [`stream_fence`] before others read it): by default a plain store.
    #[inline(always)]
    fn stream_fast(self, slot: &mut Self) {
        *slot = self;
    }
}

/// Orders the non-temporal stores of [`Entry::stream_fast`] before what
/// follows (only called from code compiled for AVX2).
#[inline(always)]
pub(super) fn stream_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The states of layer `j + 1` (parity `pk`) after which the mover at
/// layer `j` has its answer: `WIN` "wins", else "does not lose"; `t` the
/// opponent's answer to the other question.
#[inline(always)]
fn after_rotation<const WIN: bool, const FULL: bool>(
    t: Half,
    fm: &Full,
    fo: &Full,
    pk: usize,
) -> Half {
    std::array::from_fn(|w| {
        let (m, o) = (fm[pk][w], fo[pk][w]);
        // The opponent's answer is no, when the game goes on.
        let open = if FULL { 0 } else { !t[w] };
        if WIN {
            // Ends with our five only, or goes on and the opponent cannot
            // avoid losing.
            !o & (m | open)
        } else {
            // Our five (alone or both: a draw), or no five and a full board
            // or an opponent who cannot win.
            m | (!o & if FULL { !0 } else { open })
        }
    })
}

impl Entry for Half {
    const ZERO: Half = [0; 2];

    #[inline]
    fn or(self, other: Half) -> Half {
        or(self, other)
    }

    #[inline(always)]
    fn turned<const WIN: bool, const FULL: bool>(
        self,
        fm: &Full,
        fo: &Full,
        pj: usize,
        pk: usize,
    ) -> Half {
        // A five made by the placement, or one of the 8 rotations.
        or(
            fm[pj],
            spread(after_rotation::<WIN, FULL>(self, fm, fo, pk)),
        )
    }
}

/// Both answers of a node, `[win, not lose]`, 32-byte aligned so that no
/// entry straddles two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct Both(pub(super) [Half; 2]);

impl Entry for Both {
    const ZERO: Both = Both([[0; 2]; 2]);

    #[inline]
    fn or(self, other: Both) -> Both {
        Both([or(self.0[0], other.0[0]), or(self.0[1], other.0[1])])
    }

    #[inline(always)]
    fn turned<const WIN: bool, const FULL: bool>(
        self,
        fm: &Full,
        fo: &Full,
        pj: usize,
        pk: usize,
    ) -> Both {
        // Win from the opponent's "not lose", not lose from its "win".
        Both([
            self.0[1].turned::<true, FULL>(fm, fo, pj, pk),
            self.0[0].turned::<false, FULL>(fm, fo, pj, pk),
        ])
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn turned_fast<const WIN: bool, const FULL: bool>(
        self,
        fm: &Full,
        fo: &Full,
        pj: usize,
        pk: usize,
    ) -> Both {
        // SAFETY: only reached from code compiled for AVX2, run where it
        // was detected.
        unsafe { both_turned_avx2::<FULL>(&self, fm, fo, pj, pk) }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn stream_fast(self, slot: &mut Both) {
        use std::arch::x86_64::*;
        // SAFETY: only reached from code compiled for AVX2, run where it
        // was detected; `slot` is a valid, 32-byte aligned `Both` (its
        // alignment), written whole.
        unsafe {
            let v = _mm256_load_si256((&self as *const Both).cast());
            _mm256_stream_si256((slot as *mut Both).cast(), v);
        }
    }
}

/// [`Both::turned`] with the node in one 256-bit register, `[win, not
/// lose]` as its two 128-bit lanes: the two questions' formulas side by
/// side, then [`spread`] on all four words at once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn both_turned_avx2<const FULL: bool>(
    x: &Both,
    fm: &Full,
    fo: &Full,
    pj: usize,
    pk: usize,
) -> Both {
    use std::arch::x86_64::*;
    let v = |h: &Half| _mm256_broadcastsi128_si256(_mm_loadu_si128(h.as_ptr().cast()));
    let x = _mm256_load_si256((x as *const Both).cast());
    // The parities are 0 or 1: masked, they index without a bounds check.
    let (pj, pk) = (pj & 1, pk & 1);
    let (m, o) = (v(&fm[pk]), v(&fo[pk]));
    // The opponent's answer to the other question in each lane: the
    // halves swapped.
    let t = _mm256_permute4x64_epi64::<0x4e>(x);
    let ones = _mm256_set1_epi64x(-1);
    let open = if FULL {
        _mm256_setzero_si256()
    } else {
        _mm256_xor_si256(t, ones)
    };
    // Win: !o & (m | open); not lose: m | (!o & (FULL ? all : open)).
    let win = _mm256_andnot_si256(o, _mm256_or_si256(m, open));
    let not_lose = _mm256_or_si256(m, _mm256_andnot_si256(o, if FULL { ones } else { open }));
    let w = _mm256_blend_epi32::<0xf0>(win, not_lose);
    // spread: see the scalar code.
    let both = _mm256_or_si256(w, _mm256_shuffle_epi32::<0x4e>(w));
    let and = _mm256_and_si256;
    // Quadrant 0 (the 2 low bits of a bit's index, a nibble): the union
    // of a nibble's two rotations by one is a function of the nibble, a
    // 16-entry table looked up for the low and the high nibble of every
    // byte.
    let nib = _mm256_set1_epi8(0x0f);
    let turn0 = _mm256_setr_epi8(
        0, 10, 5, 15, 10, 10, 15, 15, 5, 15, 5, 15, 15, 15, 15, 15, 0, 10, 5, 15, 10, 10, 15, 15,
        5, 15, 5, 15, 15, 15, 15, 15,
    );
    let lo = _mm256_shuffle_epi8(turn0, and(w, nib));
    let hi = _mm256_shuffle_epi8(turn0, and(_mm256_srli_epi16::<4>(w), nib));
    let q0 = _mm256_or_si256(lo, _mm256_slli_epi16::<4>(hi));
    // Quadrant 1 (the next 2 bits, a nibble of a 16-bit lane): the 16-bit
    // lanes rotated by one nibble both ways, shifts that stay inside them.
    let q1 = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi16::<4>(w), _mm256_srli_epi16::<12>(w)),
        _mm256_or_si256(_mm256_srli_epi16::<4>(w), _mm256_slli_epi16::<12>(w)),
    );
    // Rotations of each word by 16 both ways: the 16-bit lanes of a word
    // rotated, one byte shuffle each.
    let rl = _mm256_setr_epi8(
        6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, 6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9,
        10, 11, 12, 13,
    );
    let rr = _mm256_setr_epi8(
        2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12,
        13, 14, 15, 8, 9,
    );
    let q2 = _mm256_or_si256(_mm256_shuffle_epi8(w, rl), _mm256_shuffle_epi8(w, rr));
    let out = _mm256_or_si256(
        _mm256_or_si256(q0, q1),
        _mm256_or_si256(q2, _mm256_or_si256(both, v(&fm[pj]))),
    );
    let mut r = Both::ZERO;
    _mm256_store_si256((&mut r as *mut Both).cast(), out);
    r
}
