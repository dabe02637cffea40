//! The retrograde midgame solver: every position downstream of a root
//! with at most [`MAX_EMPTY`] empty cells, solved layer by layer from the
//! full board back to the root, with the quadrant rotations abstracted.
//!
//! A rotation only moves stones inside one quadrant, so if each quadrant
//! is seen in its own frame the root's empty cells stay put: a downstream
//! position is *which empty cells got which colour* together with a
//! *rotation state*, the number of clockwise quarter turns (mod 4) each
//! of the four quadrants has made since the root, 4⁴ = 256 states. Every
//! turn turns exactly one quadrant by one quarter, so after `j` turns only
//! the 128 states whose turn counts sum to `j` mod 2 occur: one node of
//! layer `j` (`j` stones placed since the root) stores one bit per such
//! state, a [`Half`] of 128 bits.
//!
//! Two questions are answered: "does the player to move win?" and "does
//! the player to move avoid losing?". The mover wins at layer `j` when
//! some move leaves the opponent a position it does not avoid losing at
//! layer `j + 1`, and avoids losing when some move leaves a position the
//! opponent does not win: the win question at the root needs only "not
//! lose" at the odd layers and "win" at the even ones, so a sweep per
//! question keeps one bit per state (16 bytes a node). One sweep carrying
//! both ([`Both`], 32 bytes a node) does the indexing, the fives and the
//! memory passes once for both questions and is about twice as fast; it
//! is what [`solve`] uses. Only two layers are kept at a time; at 18
//! empty cells the largest pairs would take 1.02 GB, so there the gather
//! moves the pages of the layer it reads, as they stop being read, to the
//! layer it writes (see [`Space::gather`]; peak about 0.62 GB).
//!
//! The fives of one colour for all 256 states come from per-quadrant
//! tables (which of the 4 turns of a quadrant's content cover a line's
//! cells in it), computed once per stone set of that colour, not per node.
//! A node's value for every state then needs only whole-word operations:
//! the union of the child's 8 rotations is a fixed bit permutation of
//! the 128-bit set (see [`spread`]).
//!
//! The cost depends only on the number of empty cells, not on how hard
//! the position is, which is what bounds the worst case where the
//! alpha-beta search of [`crate::solve`] can take minutes.

use crate::board::{bits_of, rotate, LINES};
use crate::game::{Move, Position};
use endgame_core::budget::Cancel;
use endgame_core::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// The most empty cells the solver takes (20 empties, i.e. 16 stones:
/// about 4.3 GB with both questions in one sweep, 2.2 GB with a sweep per
/// question; 19: 1.5 GB; 18: 0.62 GB; each further empty cell multiplies
/// time and memory by about three). Whether a root fits is decided by
/// its memory ([`memory`]) against a limit ([`memory_limit`]) before
/// anything is allocated.
pub const MAX_EMPTY: u32 = 20;

/// Both questions share one sweep (32 bytes a node) whenever the memory
/// limit allows it, at every size up to [`MAX_EMPTY`]; else a sweep per
/// question (16 bytes a node, about half the peak, about 1.8 times as
/// long). At 18 empty cells one sweep's largest pair of layers would take
/// 1.02 GB, kept to about 0.62 GB by moving pages between the layers.
pub const MAX_EMPTY_ONE_SWEEP: u32 = MAX_EMPTY;

/// A gather whose two layers take more bytes than this together moves the
/// pages of the layer it reads, as they stop being read, to the layer it
/// writes (see [`Space::gather`]): at 18 empty cells with both questions
/// in one sweep (32 bytes a node) the largest pair of layers would take
/// 1.02 GB, four pairs more than 0.8 GB. A low threshold costs nothing (a
/// move is a page-table update) and lowers the peak (measured at 18 empty
/// cells: 0.74 GB and 186 000 page faults with 600 MiB, 0.62 GB and
/// 156 000 with 200 MiB).
const RELEASE_ABOVE: usize = 200 << 20;

/// A gather writing a layer of more bytes than this (with the AVX2 code)
/// uses non-temporal stores: such a layer is read back from memory by the
/// next gather anyway, and the stores skip reading the lines they replace.
const STREAM_ABOVE: usize = 64 << 20;

/// The fewest windows of a releasing gather.
const GATHER_WINDOWS: usize = 64;

/// A releasing gather uses windows of at most about this many bytes of the
/// layer it writes (more windows than [`GATHER_WINDOWS`] from 19 empty
/// cells on): what is written in a window but not yet released from the
/// layer read is what the peak adds to the largest layer.
const WINDOW_BYTES: usize = 16 << 20;

/// The windows of a releasing gather writing `bytes`.
fn gather_windows(bytes: usize) -> usize {
    GATHER_WINDOWS.max(bytes / WINDOW_BYTES)
}

/// A set of rotation states of one parity: bit `r0 + 4·r1 + 16·r2` of word
/// `h`, where `r0..r2` are the quarter turns of quadrants 0..2 and the
/// turns of quadrant 3 are `2h + l`, `l` fixed by the parity.
pub type Half = [u64; 2];

/// A rotation state: clockwise quarter turns (0..4) of each quadrant, in
/// the notation's quadrant order.
pub type State = [u8; 4];

/// Where state `r` lives: its parity, word and bit.
#[inline]
pub fn locate(r: State) -> (usize, usize, u32) {
    let r = r.map(|v| v & 3);
    let parity = ((r[0] + r[1] + r[2] + r[3]) & 1) as usize;
    let bit = (r[0] + 4 * r[1] + 16 * r[2]) as u32;
    (parity, (r[3] >> 1) as usize, bit)
}

/// The state stored at `bit` (0..128) of a [`Half`] of `parity`.
pub fn state_at(parity: usize, bit: u32) -> State {
    let r0 = (bit & 3) as u8;
    let r1 = ((bit >> 2) & 3) as u8;
    let r2 = ((bit >> 4) & 3) as u8;
    let h = (bit >> 6) as u8;
    let l = (parity as u8 ^ r0 ^ r1 ^ r2) & 1;
    [r0, r1, r2, 2 * h + l]
}

/// Whether `set` (of the parity of `r`) holds state `r`.
#[inline]
fn has(set: &Half, r: State) -> bool {
    let (_, w, b) = locate(r);
    set[w] >> b & 1 != 0
}

/// The union, over the 8 moves "turn quadrant q a quarter either way",
/// of the images of `set`: the states one rotation away from a state in
/// `set` (a set of the other parity). Quadrants 0..2 are 2-bit fields of
/// the bit index, turned by shifts within nibbles, 16-bit lanes and the
/// word; a turn of quadrant 3 moves a state between the two words or
/// keeps it, the two directions doing one each, so their union is the OR
/// of the words.
#[inline(always)]
pub fn spread(set: Half) -> Half {
    let both = set[0] | set[1];
    set.map(|w| {
        let q0 = ((w << 1) & 0xeeee_eeee_eeee_eeee)
            | ((w >> 3) & 0x1111_1111_1111_1111)
            | ((w >> 1) & 0x7777_7777_7777_7777)
            | ((w << 3) & 0x8888_8888_8888_8888);
        let q1 = ((w << 4) & 0xfff0_fff0_fff0_fff0)
            | ((w >> 12) & 0x000f_000f_000f_000f)
            | ((w >> 4) & 0x0fff_0fff_0fff_0fff)
            | ((w << 12) & 0xf000_f000_f000_f000);
        let q2 = w.rotate_left(16) | w.rotate_right(16);
        q0 | q1 | q2 | both
    })
}

/// Both parities' halves of a set of all 256 states.
type Full = [Half; 2];

/// A [`Full`] on its own cache line (a plain one, 8-byte aligned, would
/// straddle two lines three times in four).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line(Full);

/// One quadrant's share of one line: the quadrant and the cells of the
/// line in it (9-bit quadrant content).
struct Part {
    quadrant: usize,
    /// For each content of the quadrant, the 4-bit set of turns after
    /// which the content covers the line's cells.
    turns: Box<[u8; 512]>,
}

struct Tables {
    /// Per line, its 2 or 3 parts.
    lines: Vec<Vec<Part>>,
    /// `exp[p][q][m]`: the states of parity `p` whose turns of quadrant
    /// `q` are in the 4-bit set `m`.
    exp: [[[Half; 16]; 4]; 2],
    /// Binomial coefficients.
    binom: [[u64; 40]; 40],
    /// `deposit[m][v]`: the low bits of `v` placed on the set bits of the
    /// byte `m` (a byte-wise software `pdep`).
    deposit: Vec<[u8; 256]>,
    /// Colex rank of a mask's low 9 bits, with their count in bits 16..
    rank_lo: [u32; 512],
    /// `rank_hi[c][h]`: what the middle 9 bits `h` (bits 9..18) add to
    /// the colex rank when `c` bits are set below them, with their count
    /// in bits 24..
    rank_hi: [[u32; 512]; 10],
    /// `rank_top[c][t]`: what bits 18 and 19 (`t`) add when `c` bits are
    /// set below them (roots of 19 and 20 empty cells; 0 for `t` = 0).
    rank_top: [[u32; 4]; 19],
}

fn tables() -> &'static Tables {
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
        let mut rank_lo = [0u32; 512];
        let mut rank_hi = [[0u32; 512]; 10];
        for m in 0..512usize {
            let mut r = 0;
            for (i, b) in bits_of(m as u64).enumerate() {
                r += binom[b as usize][i + 1];
            }
            rank_lo[m] = r as u32 | (m.count_ones() << 16);
            for (c, row) in rank_hi.iter_mut().enumerate() {
                let mut r = 0;
                for (i, b) in bits_of(m as u64).enumerate() {
                    r += binom[9 + b as usize][c + i + 1];
                }
                row[m] = r as u32 | m.count_ones() << 24;
            }
        }
        let mut rank_top = [[0u32; 4]; 19];
        for (c, row) in rank_top.iter_mut().enumerate() {
            for (m, out) in row.iter_mut().enumerate() {
                let mut r = 0;
                for (i, b) in bits_of(m as u64).enumerate() {
                    r += binom[18 + b as usize][c + i + 1];
                }
                *out = r as u32;
            }
        }
        Tables {
            lines,
            exp,
            binom,
            deposit,
            rank_lo,
            rank_hi,
            rank_top,
        }
    })
}

/// The colex rank of a mask of up to 20 bits among the masks with as
/// many bits set (the sum over its bits of C(position, index + 1)), from
/// two 9-bit tables and one for bits 18 and 19, small enough to stay in
/// the first-level cache.
#[inline(always)]
fn rank(m: u32) -> usize {
    let t = tables();
    let lo = t.rank_lo[(m & 511) as usize];
    let c = lo >> 16;
    let hi = t.rank_hi[c as usize][(m >> 9) as usize & 511];
    let top = t.rank_top[(c + (hi >> 24)) as usize][(m >> 18) as usize & 3];
    ((lo & 0xffff) + (hi & 0xff_ffff) + top) as usize
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

/// What [`turn_block`] needs of its layer.
struct TurnCtx<'a> {
    /// Fives of the first player's stone sets, by colex rank.
    fx: &'a [Line],
    /// Fives of the second player's stone sets, by colex rank.
    fy: &'a [Line],
    /// The second player's sets in the complement's frame, colex order.
    bs: &'a [u32],
    /// The `n` empty cells.
    mask: u32,
    /// Parity of the states of the layer asking, and of the layer turned.
    pj: usize,
    pk: usize,
}

/// What a node of a layer holds: one answer per rotation state ([`Half`],
/// one sweep per question) or both answers ([`Both`], both questions in
/// one sweep, twice the memory).
trait Entry: Copy + Send + Sync {
    const ZERO: Self;
    fn or(self, other: Self) -> Self;
    /// [`Space::turn`] of one node: `self` the opponent's answers at layer
    /// `j + 1`, `fm`/`fo` the fives of the mover at layer `j` and of the
    /// opponent; `WIN` the question of a [`Half`].
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
fn stream_fence() {
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
struct Both([Half; 2]);

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
    let c = |k: u64| _mm256_set1_epi64x(k as i64);
    let x = _mm256_load_si256((x as *const Both).cast());
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
    let q0 = _mm256_or_si256(
        _mm256_or_si256(
            and(_mm256_slli_epi64::<1>(w), c(0xeeee_eeee_eeee_eeee)),
            and(_mm256_srli_epi64::<3>(w), c(0x1111_1111_1111_1111)),
        ),
        _mm256_or_si256(
            and(_mm256_srli_epi64::<1>(w), c(0x7777_7777_7777_7777)),
            and(_mm256_slli_epi64::<3>(w), c(0x8888_8888_8888_8888)),
        ),
    );
    let q1 = _mm256_or_si256(
        _mm256_or_si256(
            and(_mm256_slli_epi64::<4>(w), c(0xfff0_fff0_fff0_fff0)),
            and(_mm256_srli_epi64::<12>(w), c(0x000f_000f_000f_000f)),
        ),
        _mm256_or_si256(
            and(_mm256_srli_epi64::<4>(w), c(0x0fff_0fff_0fff_0fff)),
            and(_mm256_slli_epi64::<12>(w), c(0xf000_f000_f000_f000)),
        ),
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

/// [`Space::turn`] on the block of one first-player set `a` (rank `ia`),
/// specialised on the question (`WIN`, else "not lose"), on whether the
/// board is then full, and on who placed the last stone.
#[inline(always)]
fn turn_block_impl<
    E: Entry,
    const WIN: bool,
    const FULL: bool,
    const FIRST: bool,
    const FAST: bool,
>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    let f_a = &c.fx[ia].0;
    let comp = !a & c.mask;
    for (slot, &b) in out.iter_mut().zip(c.bs) {
        *slot = turn_node::<E, WIN, FULL, FAST>(sp, c, f_a, comp, b, FIRST, *slot);
    }
}

/// [`Entry::turned`] of the node `b` (second player's set in the frame
/// of `comp`, the cells the block's first-player set leaves) of a block
/// whose first player's fives are `f_a`; `first`: the first player placed
/// the node's last stone.
#[inline(always)]
fn turn_node<E: Entry, const WIN: bool, const FULL: bool, const FAST: bool>(
    sp: &Space,
    c: &TurnCtx,
    f_a: &Full,
    comp: u32,
    b: u32,
    first: bool,
    e: E,
) -> E {
    let cells = if FAST {
        pdep(b, comp)
    } else {
        sp.deposit(b, comp)
    };
    let f_b = &c.fy[rank(cells)].0;
    let (fm, fo) = if first { (f_a, f_b) } else { (f_b, f_a) };
    if FAST {
        e.turned_fast::<WIN, FULL>(fm, fo, c.pj, c.pk)
    } else {
        e.turned::<WIN, FULL>(fm, fo, c.pj, c.pk)
    }
}

/// The BMI2 instruction `pdep` (only reached from code compiled for it).
#[inline(always)]
fn pdep(v: u32, m: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: called only with FAST, from functions compiled for BMI2 and
    // run where it was detected.
    return unsafe { std::arch::x86_64::_pdep_u32(v, m) };
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("pdep only on x86-64 ({v}, {m})")
}

/// [`turn_block_impl`] for any machine.
#[inline(never)]
fn turn_block<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    turn_block_impl::<E, WIN, FULL, FIRST, false>(sp, c, out, ia, a)
}

/// [`turn_block_impl`] compiled for AVX2, BMI and POPCNT, with `pdep`;
/// only call it where [`fast_available`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn turn_block_fast<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    turn_block_impl::<E, WIN, FULL, FIRST, true>(sp, c, out, ia, a)
}

/// A turn of one block.
type TurnFn<E> = fn(&Space, &TurnCtx, &mut [E], usize, u32);

/// [`turn_block`] or its fast twin.
fn pick_turn<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    fast: bool,
) -> TurnFn<E> {
    #[cfg(target_arch = "x86_64")]
    if fast {
        // SAFETY: `fast` only when the features were detected.
        return |sp, c, out, ia, a| unsafe {
            turn_block_fast::<E, WIN, FULL, FIRST>(sp, c, out, ia, a)
        };
    }
    let _ = fast;
    turn_block::<E, WIN, FULL, FIRST>
}

/// How many entries ahead the first mover's gather prefetches.
const PREFETCH: usize = 16;

/// What [`gather_block`] needs of its layers.
struct GatherCtx<'a, E> {
    /// Empty cells of the root.
    n: u32,
    /// The second player's sets in the complement's frame, colex order.
    bs: &'a [u32],
    /// The next layer, turned.
    next: &'a [E],
    /// Nodes per block of the next layer.
    child_block: usize,
    /// Per node of a block, where its children are, `kids` each (the same
    /// for every block): when the second player moves, their offsets in
    /// the block's child block; when the first does, the child's cell
    /// (its index among the free cells, bits 16..) and its offset in the
    /// child block of the first player's set with that cell added.
    offs: &'a [u32],
    kids: usize,
    /// Whether to write the layer with non-temporal stores (with `FAST`;
    /// for layers much larger than the last-level cache, read back from
    /// memory anyway).
    stream: bool,
    /// The turn of the layer gathered, done as each node is gathered
    /// (one pass over the layer, not two) when `TURN`.
    turn: Option<&'a TurnCtx<'a>>,
    sp: &'a Space,
}

/// [`Space::gather`] of the block of one first-player set `a` (rank
/// `ia`): each node ORs its children, which add one stone of the first
/// player (`FIRST_MOVES`) or of the second; with `TURN` the node is then
/// turned at once ([`Space::turn`] for question `WIN` of the layer
/// before, never a full board), with the `FAST` deposit.
#[inline(always)]
fn gather_block_impl<
    E: Entry,
    const FIRST_MOVES: bool,
    const TURN: bool,
    const WIN: bool,
    const FAST: bool,
>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    // The turn: the node's last stone was placed by the player who does
    // not move at this layer.
    let tc = if TURN { g.turn } else { None };
    let f_a = tc.map(|c| &c.fx[ia].0);
    let comp = !a & ((1u32 << g.n) - 1);
    let finish = |b: u32, acc: E| match (tc, f_a) {
        (Some(c), Some(f_a)) if TURN => {
            turn_node::<E, WIN, false, FAST>(g.sp, c, f_a, comp, b, !FIRST_MOVES, acc)
        }
        _ => acc,
    };
    if FIRST_MOVES {
        // The complement's cells in order, and the rank base
        // of the first player's set with each added.
        let mut base = [0usize; 32];
        for (p, cell) in bits_of(comp as u64).enumerate() {
            base[p] = rank(a | 1 << cell) * g.child_block;
        }
        for ((slot, &b), offs) in out.iter_mut().zip(g.bs).zip(g.offs.chunks_exact(g.kids)) {
            let mut acc = E::ZERO;
            for &o in offs {
                // SAFETY: the cell index is below the free cells' count
                // (checked in `Space::gather`), at most 31.
                let i = unsafe { *base.get_unchecked((o >> 16) as usize) } + (o & 0xffff) as usize;
                // Each cell's children are read in order, one stream per
                // cell, a dozen streams: fetch ahead of each.
                #[cfg(target_arch = "x86_64")]
                // SAFETY: a prefetch is only a hint; the address is in the
                // slice or just past it, never dereferenced.
                unsafe {
                    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                    _mm_prefetch::<_MM_HINT_T0>(g.next.as_ptr().wrapping_add(i + PREFETCH).cast());
                }
                // SAFETY: `offs` was checked in `Space::gather`: cell
                // index below the free cells' count, offset below
                // `child_block`; `base[p]` is a rank among the first
                // player's sets one larger times `child_block`, so `i` is
                // below the next layer's size, `g.next`'s length.
                acc = acc.or(unsafe { *g.next.get_unchecked(i) });
            }
            let e = finish(b, acc);
            if FAST && g.stream {
                e.stream_fast(slot);
            } else {
                *slot = e;
            }
        }
    } else {
        // The children of block `a` are block `a` of the next layer, at
        // offsets that depend on the node only.
        let kids = &g.next[ia * g.child_block..(ia + 1) * g.child_block];
        for ((slot, &b), offs) in out.iter_mut().zip(g.bs).zip(g.offs.chunks_exact(g.kids)) {
            let mut acc = E::ZERO;
            for &o in offs {
                // SAFETY: offsets are below `child_block`, the length of
                // `kids` (checked in `Space::gather`).
                acc = acc.or(unsafe { *kids.get_unchecked(o as usize) });
            }
            let e = finish(b, acc);
            if FAST && g.stream {
                e.stream_fast(slot);
            } else {
                *slot = e;
            }
        }
    }
    if FAST && g.stream {
        stream_fence();
    }
}

/// A gather of one block.
type GatherFn<E> = fn(&GatherCtx<E>, &mut [E], usize, u32);

/// [`gather_block_impl`] for any x86-64 or other machine.
#[inline(never)]
fn gather_block<E: Entry, const FIRST_MOVES: bool, const TURN: bool, const WIN: bool>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    gather_block_impl::<E, FIRST_MOVES, TURN, WIN, false>(g, out, ia, a)
}

/// [`gather_block_impl`] compiled for AVX2 (a [`Both`] in one register),
/// BMI and POPCNT, with `pdep`; only call it where [`fast_available`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn gather_block_fast<
    E: Entry,
    const FIRST_MOVES: bool,
    const TURN: bool,
    const WIN: bool,
>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    gather_block_impl::<E, FIRST_MOVES, TURN, WIN, true>(g, out, ia, a)
}

/// [`gather_block`] or its fast twin.
fn pick_gather<E: Entry, const FIRST_MOVES: bool, const TURN: bool, const WIN: bool>(
    fast: bool,
) -> GatherFn<E> {
    #[cfg(target_arch = "x86_64")]
    if fast {
        // SAFETY: `fast` only when the features were detected.
        return |g, out, ia, a| unsafe {
            gather_block_fast::<E, FIRST_MOVES, TURN, WIN>(g, out, ia, a)
        };
    }
    let _ = fast;
    gather_block::<E, FIRST_MOVES, TURN, WIN>
}

/// Whether this machine runs the code compiled for AVX2, BMI1/2, POPCNT
/// and LZCNT (checked once).
pub fn fast_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static FAST: OnceLock<bool> = OnceLock::new();
        *FAST.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("lzcnt")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A layer buffer: `len` entries in 2 MiB regions of their own. On Linux
/// it is its own anonymous mapping, and a region of one buffer whose
/// entries are no longer needed can be moved, pages and all, to a region
/// of another buffer about to be written ([`Buf::move_region`]: a page
/// table move, no page fault, no zeroing). A releasing gather (see
/// [`Space::gather`]) so keeps the two largest layers of an 18-empty root
/// from being whole in memory at once without paying a page fault per
/// page again (a fault costs about 1.5 µs here, 0.4 s a gigabyte).
/// Elsewhere it is a plain vector that moves nothing. The entries'
/// contents are unspecified until written (every implementor of
/// [`Entry`] is made of `u64` words, valid for any bits).
struct Buf<E: Entry> {
    #[cfg(target_os = "linux")]
    ptr: std::ptr::NonNull<E>,
    /// The mapping (`ptr` is its first region boundary in it).
    #[cfg(target_os = "linux")]
    map: (*mut libc::c_void, usize),
    #[cfg(not(target_os = "linux"))]
    vec: Vec<E>,
    len: usize,
    /// Per region, whether its pages have been written (are resident).
    resident: Vec<bool>,
    /// Where its resident regions go when it is dropped, and where
    /// regions about to be written come from ([`Buf::provide`]).
    pool: &'static Pool,
}

// SAFETY: the buffer owns its entries (plain words) like a `Vec` does.
unsafe impl<E: Entry> Send for Buf<E> {}
unsafe impl<E: Entry> Sync for Buf<E> {}

/// The size of a region of a [`Buf`] (a huge page; one page in unit tests,
/// so that their small layers span many regions and pages really move).
#[cfg(not(test))]
const REGION_BYTES: usize = 2 << 20;
#[cfg(test)]
const REGION_BYTES: usize = 4096;

impl<E: Entry> Buf<E> {
    /// Entries per region.
    const PER: usize = REGION_BYTES / std::mem::size_of::<E>();

    /// A buffer of `len` entries, drawing on and returning to `pool`.
    #[cfg(target_os = "linux")]
    fn new(len: usize, pool: &'static Pool) -> Buf<E> {
        let regions = (len * std::mem::size_of::<E>()).div_ceil(REGION_BYTES);
        // One region more, so that the entries can start on a region
        // boundary and every region lies whole inside the mapping.
        let bytes = (regions + 1) * REGION_BYTES;
        // SAFETY: a fresh private anonymous mapping, checked below; it is
        // zero-filled and page-aligned.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(p != libc::MAP_FAILED, "out of memory for a layer buffer");
        let offset = (p as usize).next_multiple_of(REGION_BYTES) - p as usize;
        // SAFETY: `offset < REGION_BYTES`, inside the mapping.
        let start = unsafe { p.cast::<u8>().add(offset) };
        Buf {
            ptr: std::ptr::NonNull::new(start.cast()).expect("mmap gave null"),
            map: (p, bytes),
            len,
            resident: vec![false; regions],
            pool,
        }
    }

    /// A buffer of `len` entries (`pool` unused off Linux).
    #[cfg(not(target_os = "linux"))]
    fn new(len: usize, pool: &'static Pool) -> Buf<E> {
        let regions = (len * std::mem::size_of::<E>()).div_ceil(REGION_BYTES);
        Buf {
            vec: vec![E::ZERO; len],
            len,
            resident: vec![false; regions],
            pool,
        }
    }

    fn as_slice(&self) -> &[E] {
        #[cfg(target_os = "linux")]
        // SAFETY: `len` entries of plain words inside the mapping (zero
        // or written: any bits are valid).
        return unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) };
        #[cfg(not(target_os = "linux"))]
        return &self.vec;
    }

    fn as_mut_slice(&mut self) -> &mut [E] {
        #[cfg(target_os = "linux")]
        // SAFETY: as in `as_slice`, borrowed mutably through `self`.
        return unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) };
        #[cfg(not(target_os = "linux"))]
        return &mut self.vec;
    }

    /// Regions whose pages are resident.
    fn resident_count(&self) -> usize {
        self.resident.iter().filter(|&&r| r).count()
    }

    /// Records that entries `from..to` were written.
    fn mark_written(&mut self, from: usize, to: usize) {
        if to > from {
            for r in &mut self.resident[from / Self::PER..(to - 1) / Self::PER + 1] {
                *r = true;
            }
        }
    }

    /// Moves the pages of region `k` of `self`, whose entries are no
    /// longer needed, to region `r` of `dst`, whose entries are all about
    /// to be written; region `k` is left mapped but empty (zero pages on
    /// demand). Returns whether it moved anything (nothing when region
    /// `k` holds no pages, `r` already does, or off Linux).
    fn move_region(&mut self, k: usize, dst: &mut Buf<E>, r: usize) -> bool {
        if !self.resident[k] || dst.resident[r] {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            // SAFETY: both regions lie whole inside their mappings (see
            // `new`), are region-aligned, and no slice of either buffer
            // is alive (`&mut self`, `&mut dst`). mremap with FIXED
            // replaces the destination region inside `dst`'s mapping;
            // with DONTUNMAP the source stays mapped (empty: zero pages on
            // demand), so no hole opens that another thread's mmap could
            // take. Without it (old kernels) the hole is mapped again at
            // once, as fresh anonymous memory.
            unsafe {
                let src: *mut libc::c_void =
                    self.ptr.as_ptr().cast::<u8>().add(k * REGION_BYTES).cast();
                let to: *mut libc::c_void =
                    dst.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES).cast();
                let moved = libc::mremap(
                    src,
                    REGION_BYTES,
                    REGION_BYTES,
                    libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED | libc::MREMAP_DONTUNMAP,
                    to,
                );
                if moved == libc::MAP_FAILED {
                    // Kernels before 5.7 know no DONTUNMAP: move the
                    // region and map the hole it leaves again at once.
                    let moved = libc::mremap(
                        src,
                        REGION_BYTES,
                        REGION_BYTES,
                        libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                        to,
                    );
                    if moved == libc::MAP_FAILED {
                        return false;
                    }
                    let again = libc::mmap(
                        src,
                        REGION_BYTES,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    );
                    assert!(again != libc::MAP_FAILED, "remapping a layer region");
                }
            }
            self.resident[k] = false;
            dst.resident[r] = true;
            true
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (dst, r);
            false
        }
    }
}

impl<E: Entry> Buf<E> {
    /// Makes region `r`, about to be written, resident with a region of
    /// the pool when it is not yet and the pool has one (no page fault,
    /// no zeroing: its entries are unspecified until written). Returns
    /// whether it took one.
    fn provide(&mut self, r: usize) -> bool {
        if self.resident[r] {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            // SAFETY: region `r` lies whole inside the mapping (see `new`)
            // and is region-aligned; no slice of the buffer is alive
            // (`&mut self`).
            let to = unsafe { self.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES) };
            if self.pool.take_into(to.cast()) {
                self.resident[r] = true;
                return true;
            }
        }
        false
    }

    /// Makes `regions`, about to be written and not resident, resident
    /// with fresh pages, filled by the kernel in one call a region, the
    /// regions split over the threads, rather than one page fault a page
    /// as they are first written (Linux 5.14 and later; elsewhere, or
    /// when refused, the pages come on demand as before).
    fn populate(&mut self, regions: &[usize]) {
        #[cfg(target_os = "linux")]
        {
            let base = self.ptr.as_ptr() as usize;
            regions.par_iter().for_each(|&r| {
                // SAFETY: region `r` lies whole inside the private
                // anonymous mapping (see `new`); populating only maps
                // pages (zeroed, or leaves them as they are), and no slice
                // of the buffer is alive (`&mut self`).
                unsafe {
                    libc::madvise(
                        (base + r * REGION_BYTES) as *mut libc::c_void,
                        REGION_BYTES,
                        libc::MADV_POPULATE_WRITE,
                    )
                };
            });
        }
        for &r in regions {
            self.resident[r] = true;
        }
    }
}

#[cfg(target_os = "linux")]
impl<E: Entry> Drop for Buf<E> {
    fn drop(&mut self) {
        // Resident regions go to the pool while it has room (the next
        // solve writes them without page faults).
        for r in 0..self.resident.len() {
            if self.resident[r] {
                // SAFETY: as in `provide`; the buffer is being dropped.
                let from = unsafe { self.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES) };
                if !self.pool.give(from.cast()) {
                    break;
                }
            }
        }
        // SAFETY: the range mapped in `new` (however split since), unmapped
        // once; regions given to the pool left empty mappings behind
        // (DONTUNMAP), never holes another mapping could have taken.
        unsafe { libc::munmap(self.map.0, self.map.1) };
    }
}

/// A reserve of resident regions (each an anonymous mapping of
/// [`REGION_BYTES`] whose pages are in memory) that layer buffers return
/// when dropped and take before writing, so that a process solving one
/// position after another pays the page faults and the kernel's zeroing
/// of about 0.6 GB (0.3-0.5 s of system time at 18 empty cells) once,
/// not at every solve. Bounded by its limit; the process-wide one is
/// [`set_pool_limit`], [`free_pool`], [`pool_bytes`].
pub(crate) struct Pool {
    inner: std::sync::Mutex<PoolInner>,
}

struct PoolInner {
    /// Addresses of the regions held (Linux only; empty elsewhere).
    regions: Vec<usize>,
    /// The most bytes held.
    limit: usize,
    /// Regions handed out since the pool was made.
    taken: u64,
}

/// The process-wide pool's default limit: about what one solve at 18
/// empty cells keeps resident at its peak, so holding it does not raise
/// the process's peak memory.
pub const DEFAULT_POOL_BYTES: usize = 640 << 20;

static POOL: Pool = Pool::new(DEFAULT_POOL_BYTES);

impl Pool {
    const fn new(limit: usize) -> Pool {
        Pool {
            inner: std::sync::Mutex::new(PoolInner {
                regions: Vec::new(),
                limit,
                taken: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolInner> {
        // The pool's state stays consistent whatever panicked: use it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the pages of the region at `from` (a region-aligned region
    /// of a live mapping, whose contents are no longer needed) into the
    /// pool when it has room; the mapping at `from` stays, empty.
    #[cfg(target_os = "linux")]
    fn give(&self, from: *mut libc::c_void) -> bool {
        let mut p = self.lock();
        if (p.regions.len() + 1) * REGION_BYTES > p.limit {
            return false;
        }
        // SAFETY: `from` is a whole region of a private anonymous mapping
        // (caller); the pages move to a new mapping the kernel places,
        // the source stays mapped (DONTUNMAP) with no pages. With
        // DONTUNMAP the kernel reads the new address as a hint (it must be
        // page-aligned): null, no preference.
        let to = unsafe {
            libc::mremap(
                from,
                REGION_BYTES,
                REGION_BYTES,
                libc::MREMAP_MAYMOVE | libc::MREMAP_DONTUNMAP,
                std::ptr::null_mut::<libc::c_void>(),
            )
        };
        if to == libc::MAP_FAILED {
            return false;
        }
        p.regions.push(to as usize);
        true
    }

    /// Moves a held region, pages and all, onto the region at `to`
    /// (region-aligned, inside a live private anonymous mapping, its
    /// contents not needed); false when the pool is empty.
    #[cfg(target_os = "linux")]
    fn take_into(&self, to: *mut libc::c_void) -> bool {
        let mut p = self.lock();
        let Some(from) = p.regions.pop() else {
            return false;
        };
        // SAFETY: `from` is a whole mapping of REGION_BYTES the pool owns
        // (made by `give`); it replaces the region at `to` (caller), and
        // its own range is unmapped by the move.
        let moved = unsafe {
            libc::mremap(
                from as *mut libc::c_void,
                REGION_BYTES,
                REGION_BYTES,
                libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                to,
            )
        };
        if moved == libc::MAP_FAILED {
            // SAFETY: the pool's own mapping, dropped.
            unsafe { libc::munmap(from as *mut libc::c_void, REGION_BYTES) };
            return false;
        }
        p.taken += 1;
        true
    }

    /// Sets the limit and frees what is above it.
    fn set_limit(&self, bytes: usize) {
        let mut p = self.lock();
        p.limit = bytes;
        while p.regions.len() * REGION_BYTES > bytes {
            let Some(_r) = p.regions.pop() else { break };
            #[cfg(target_os = "linux")]
            // SAFETY: a mapping of REGION_BYTES the pool owns, dropped.
            unsafe {
                libc::munmap(_r as *mut libc::c_void, REGION_BYTES)
            };
        }
    }

    fn bytes(&self) -> usize {
        self.lock().regions.len() * REGION_BYTES
    }

    #[cfg(test)]
    fn taken(&self) -> u64 {
        self.lock().taken
    }
}

/// Sets how many bytes of layer memory the process keeps between
/// retrograde solves (default [`DEFAULT_POOL_BYTES`]; 0 keeps none) and
/// frees what is held above it. The kept pages are written by the next
/// solve without page faults; they count in the process's memory until
/// freed.
pub fn set_pool_limit(bytes: usize) {
    POOL.set_limit(bytes);
}

/// Frees the layer memory kept between solves (the limit stays).
pub fn free_pool() {
    let limit = POOL.lock().limit;
    POOL.set_limit(0);
    POOL.set_limit(limit);
}

/// Bytes of layer memory kept between solves now.
pub fn pool_bytes() -> usize {
    POOL.bytes()
}

/// Which question a sweep's layer answers for its player to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Win,
    NotLose,
}

impl Kind {
    fn other(self) -> Kind {
        match self {
            Kind::Win => Kind::NotLose,
            Kind::NotLose => Kind::Win,
        }
    }
}

#[inline(always)]
fn or(a: Half, b: Half) -> Half {
    [a[0] | b[0], a[1] | b[1]]
}

/// The subsets of `n` bits with `k` set, in colex order (so a subset's
/// place in the list is its colex rank).
fn subsets(n: u32, k: u32) -> Vec<u32> {
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

/// The stopping signal shared by the parallel workers.
struct Stop {
    deadline: Option<Instant>,
    /// Set by whoever may want the solve to stop (a client that left).
    cancel: Option<Cancel>,
    stopped: AtomicBool,
}

impl Stop {
    fn new(deadline: Option<Instant>, cancel: Option<&Cancel>) -> Stop {
        Stop {
            deadline,
            cancel: cancel.cloned(),
            stopped: AtomicBool::new(false),
        }
    }

    fn check(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
        {
            self.stopped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// One root's downstream space: the root's stones in the quadrant frames
/// (`first` for the player to move at layer 0, `second` for the other),
/// its empty cells, and the parity of the layer-0 rotation states.
struct Space {
    first: u64,
    second: u64,
    empty: Vec<u8>,
    parity0: usize,
    /// Gathers whose two layers take more bytes than this move pages
    /// between the layers ([`RELEASE_ABOVE`]; tests lower it).
    release_above: usize,
    /// Whether to run the code compiled for AVX2 and BMI2
    /// ([`fast_available`]; tests compare it with the portable code).
    fast: bool,
    /// Whether a gather turns its nodes as it writes them (else a pass of
    /// its own; tests compare the two).
    fuse_turn: bool,
    /// Layers of more bytes are written with non-temporal stores
    /// ([`STREAM_ABOVE`]; tests lower it).
    stream_above: usize,
    /// The last fives computed per player ([`Space::fives_kept`]).
    fives_kept: std::sync::Mutex<[Option<KeptFives>; 2]>,
}

/// A player's stone count and the fives of its sets of that count.
type KeptFives = (u32, Arc<Vec<Line>>);

impl Space {
    fn n(&self) -> u32 {
        self.empty.len() as u32
    }

    /// Stones of the first (even `j`) and second player at layer `j`.
    fn counts(&self, j: u32) -> (u32, u32) {
        (j.div_ceil(2), j / 2)
    }

    fn binom(&self, n: u32, k: u32) -> usize {
        if k > n {
            0
        } else {
            tables().binom[n as usize][k as usize] as usize
        }
    }

    fn size(&self, j: u32) -> usize {
        let n = self.n();
        let (x, y) = self.counts(j);
        self.binom(n, x) * self.binom(n - x, y)
    }

    /// The board bits of an `n`-bit subset of the empty cells.
    fn cells(&self, mut s: u32) -> u64 {
        let mut out = 0u64;
        while s != 0 {
            out |= 1 << self.empty[s.trailing_zeros() as usize];
            s &= s - 1;
        }
        out
    }

    /// `pdep`: the low bits of `v` placed on the set bits of `m`.
    #[inline(always)]
    fn deposit(&self, mut v: u32, m: u32) -> u32 {
        let t = &tables().deposit;
        let mut out = 0u32;
        for k in 0..3 {
            let mb = (m >> (8 * k)) & 0xff;
            out |= (t[mb as usize][(v & 0xff) as usize] as u32) << (8 * k);
            v >>= mb.count_ones();
        }
        out
    }

    /// The fives of every `k`-subset of the empty cells added to `base`,
    /// indexed by colex rank.
    fn fives_of(&self, base: u64, k: u32) -> Vec<Line> {
        subsets(self.n(), k)
            .par_iter()
            .map(|&s| Line(fives(base | self.cells(s))))
            .collect()
    }

    /// The fives of the first and second players' stone sets at layer
    /// `k` (by colex rank), and the second player's sets in the frame of
    /// the cells the first's leave.
    fn fives_at(&self, k: u32) -> (Arc<Vec<Line>>, Arc<Vec<Line>>, Vec<u32>) {
        let n = self.n();
        let (x, y) = self.counts(k);
        (
            self.fives_kept(0, x),
            self.fives_kept(1, y),
            subsets(n - x, y),
        )
    }

    /// [`Space::fives_of`] the first (`who` 0) or second player's sets of
    /// `k` stones, the last of each player kept: going down the layers one
    /// of the two counts stays the same from one to the next, so each is
    /// computed once, not twice.
    fn fives_kept(&self, who: usize, k: u32) -> Arc<Vec<Line>> {
        let mut kept = self.fives_kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kk, f)) = &kept[who] {
            if *kk == k {
                return Arc::clone(f);
            }
        }
        let base = if who == 0 { self.first } else { self.second };
        let f = Arc::new(self.fives_of(base, k));
        kept[who] = Some((k, Arc::clone(&f)));
        f
    }

    /// What turning layer `j + 1` into answers of layer `j` needs, from
    /// [`Space::fives_at`]`(j + 1)`.
    fn turn_ctx<'a>(&self, j: u32, fx: &'a [Line], fy: &'a [Line], bs: &'a [u32]) -> TurnCtx<'a> {
        // The parities of layer j and j + 1.
        let pj = (self.parity0 + j as usize) & 1;
        TurnCtx {
            fx,
            fy,
            bs,
            mask: (1u32 << self.n()) - 1,
            pj,
            pk: pj ^ 1,
        }
    }

    /// Layer `j` from layer `j + 1` already turned into per-node sets
    /// "the mover at layer `j` gets what it asks by placing here": a node
    /// asks it when any of its children does. With `release`, the blocks
    /// of `cur` are computed in [`GATHER_WINDOWS`] windows in rank order;
    /// the regions of `next` that no later block reads become spare after
    /// each window, and their pages move to the regions of `cur` the next
    /// window writes ([`Buf::move_region`]), so that the two layers are
    /// never both whole in memory. With `turn`, each node is turned as it
    /// is gathered ([`Space::turn`] of layer `j - 1` for that question),
    /// one pass over the layer instead of two.
    fn gather<E: Entry>(
        &self,
        j: u32,
        next: &mut Buf<E>,
        cur: &mut Buf<E>,
        stop: &Stop,
        release: bool,
        turn: Option<Kind>,
    ) {
        let n = self.n();
        let (x, y) = self.counts(j);
        let first_moves = j.is_multiple_of(2);
        let fives = turn.map(|_| self.fives_at(j));
        let turn_ctx = fives
            .as_ref()
            .map(|(fx, fy, bs)| self.turn_ctx(j - 1, fx, fy, bs));
        let f = self.fast;
        let run: GatherFn<E> = match (first_moves, turn) {
            (true, None) => pick_gather::<E, true, false, false>(f),
            (false, None) => pick_gather::<E, false, false, false>(f),
            (true, Some(Kind::Win)) => pick_gather::<E, true, true, true>(f),
            (false, Some(Kind::Win)) => pick_gather::<E, false, true, true>(f),
            (true, Some(Kind::NotLose)) => pick_gather::<E, true, true, false>(f),
            (false, Some(Kind::NotLose)) => pick_gather::<E, false, true, false>(f),
        };
        let block = self.binom(n - x, y);
        let child_block = if first_moves {
            self.binom(n - x - 1, y)
        } else {
            self.binom(n - x, y + 1)
        };
        let xs = subsets(n, x);
        let bs = subsets(n - x, y);
        let free_all = (1u32 << (n - x)) - 1;
        // Where each node's children are ([`GatherCtx::offs`]).
        let kids = (n - x - y) as usize;
        assert!(child_block <= 1 << 16, "child offsets in 16 bits");
        let mut offs: Vec<u32> = Vec::with_capacity(bs.len() * kids);
        if first_moves {
            // The `b` without `p`, in colex order, are exactly the child
            // block's second-player sets in colex order (drop the bit
            // `p`), so a counter per `p` gives the offset.
            let mut count = [0u32; 32];
            for &b in &bs {
                for p in bits_of((free_all & !b) as u64) {
                    offs.push((p as u32) << 16 | count[p as usize]);
                    count[p as usize] += 1;
                }
            }
        } else {
            // The ranks of the node's set with each free cell added.
            for &b in &bs {
                offs.extend(bits_of((free_all & !b) as u64).map(|p| rank(b | 1 << p) as u32));
            }
        }
        // What the gather's unchecked reads rely on: offsets inside a child
        // block, cells among the free ones.
        assert_eq!(offs.len(), bs.len() * kids);
        assert!(offs
            .iter()
            .all(|&o| ((o & 0xffff) as usize) < child_block && (o >> 16) < n - x));
        let len = self.size(j);
        let next_len = self.size(j + 1);
        let stream = len * std::mem::size_of::<E>() > self.stream_above;
        // First mover, releasing: the huge pages of `next` (entries
        // `k·per..(k + 1)·per`) by the last block of `cur` that reads
        // them. A child set `a'` is read by every `a'` less one stone, the
        // last of them in colex order being `a'` less its lowest stone.
        let per = Buf::<E>::PER;
        let last_reader = if release && first_moves {
            self.last_readers(j, per)
        } else {
            Vec::new()
        };
        // Regions of `next` no longer read, whose pages can move to `cur`.
        let mut spare: Vec<usize> = Vec::new();
        let mut released = 0;
        // Regions of `cur` below this are written or provided for.
        let mut provided = 0;
        let windows = if release {
            gather_windows(len * std::mem::size_of::<E>())
        } else {
            1
        };
        for w in 0..windows {
            let (s, e) = (w * xs.len() / windows, (w + 1) * xs.len() / windows);
            // The regions this window writes: pages of `next` no longer
            // read first, else the pool's, else fresh ones.
            let end = (e * block).div_ceil(per);
            let mut fresh = Vec::new();
            for r in provided..end {
                if !cur.resident[r] {
                    while let Some(k) = spare.pop() {
                        if next.move_region(k, cur, r) {
                            break;
                        }
                    }
                    if !cur.resident[r] && !cur.provide(r) {
                        fresh.push(r);
                    }
                }
            }
            cur.populate(&fresh);
            provided = provided.max(end);
            let next_all = &next.as_slice()[..next_len];
            cur.as_mut_slice()[s * block..e * block]
                .par_chunks_mut(block.max(1))
                .zip(xs[s..e].par_iter().enumerate())
                .for_each(|(out, (i, &a))| {
                    let ia = s + i;
                    if ia % 64 == 0 && stop.check() {
                        return;
                    }
                    let g = GatherCtx {
                        n,
                        bs: &bs,
                        next: next_all,
                        child_block,
                        offs: &offs,
                        kids,
                        stream,
                        turn: turn_ctx.as_ref(),
                        sp: self,
                    };
                    run(&g, out, ia, a);
                });
            cur.mark_written(s * block, e * block);
            if !release {
                continue;
            }
            if first_moves {
                while released < last_reader.len() && last_reader[released].0 < e {
                    spare.push(last_reader[released].1);
                    released += 1;
                }
            } else {
                // The second mover's children of block `a` are block `a`.
                let upto = e * child_block / per;
                spare.extend(released..upto);
                released = released.max(upto);
            }
        }
        debug_assert!(len <= cur.len);
    }

    /// A first mover's gather of layer `j`: the regions of layer `j + 1`
    /// (`per` entries each) by the last block of layer `j` that reads
    /// them, as `(block, region)` in that order. A child set `a'` is read
    /// by every `a'` less one stone, the last of them in colex order being
    /// `a'` less its lowest stone.
    fn last_readers(&self, j: u32, per: usize) -> Vec<(usize, usize)> {
        let n = self.n();
        let (x, y) = self.counts(j);
        let child_block = self.binom(n - x - 1, y);
        if child_block == 0 {
            return Vec::new();
        }
        let mut last = vec![0usize; self.size(j + 1).div_ceil(per)];
        for (i, &a) in subsets(n, x + 1).iter().enumerate() {
            let l = rank(a & a.wrapping_sub(1));
            let (lo, hi) = (i * child_block / per, ((i + 1) * child_block - 1) / per);
            for slot in &mut last[lo..=hi] {
                *slot = (*slot).max(l);
            }
        }
        let mut out: Vec<(usize, usize)> =
            last.into_iter().enumerate().map(|(k, l)| (l, k)).collect();
        out.sort_unstable();
        out
    }

    /// The regions [`Space::gather`] of layer `j` makes resident, as it
    /// does, on the buffers' resident flags alone (nothing allocated):
    /// `entry` bytes a node. Returns how many regions came from outside
    /// the two buffers (the pool or fresh pages).
    fn gather_regions(
        &self,
        j: u32,
        entry: usize,
        next: &mut [bool],
        cur: &mut [bool],
        release: bool,
    ) -> usize {
        let n = self.n();
        let (x, y) = self.counts(j);
        let first_moves = j.is_multiple_of(2);
        let block = self.binom(n - x, y);
        let child_block = if first_moves {
            self.binom(n - x - 1, y)
        } else {
            self.binom(n - x, y + 1)
        };
        let xs = self.binom(n, x);
        let len = self.size(j);
        let per = REGION_BYTES / entry;
        let last_reader = if release && first_moves {
            self.last_readers(j, per)
        } else {
            Vec::new()
        };
        let (mut spare, mut released, mut provided, mut added) = (Vec::new(), 0, 0, 0);
        let windows = if release {
            gather_windows(len * entry)
        } else {
            1
        };
        for w in 0..windows {
            let e = (w + 1) * xs / windows;
            let end = (e * block).div_ceil(per);
            for slot in &mut cur[provided.min(end)..end] {
                if !*slot {
                    while let Some(k) = spare.pop() {
                        if next[k] {
                            next[k] = false;
                            *slot = true;
                            break;
                        }
                    }
                    if !*slot {
                        *slot = true;
                        added += 1;
                    }
                }
            }
            provided = provided.max(end);
            if !release {
                continue;
            }
            if first_moves {
                while released < last_reader.len() && last_reader[released].0 < e {
                    spare.push(last_reader[released].1);
                    released += 1;
                }
            } else {
                let upto = e * child_block / per;
                spare.extend(released..upto);
                released = released.max(upto);
            }
        }
        added
    }

    /// The most regions of `entry`-byte nodes [`Space::sweep`] holds at
    /// once over `sweeps` sweeps on the same two buffers (as
    /// [`solve_with`] runs them): regions only ever move between the two
    /// buffers or join them, so the peak is the count at the end.
    fn peak_regions(&self, entry: usize, sweeps: usize, release_above: usize) -> usize {
        let n = self.n();
        let per = REGION_BYTES / entry;
        let most = (0..=n).map(|j| self.size(j)).max().unwrap_or(1);
        let regions = (most * entry).div_ceil(REGION_BYTES);
        let (mut a, mut b) = (vec![false; regions], vec![false; regions]);
        let mut total = 0;
        for _ in 0..sweeps {
            let (mut next, mut cur) = (&mut a, &mut b);
            for r in next.iter_mut().take(self.size(n).div_ceil(per)) {
                if !*r {
                    *r = true;
                    total += 1;
                }
            }
            for j in (0..n).rev() {
                let bytes = (self.size(j) + self.size(j + 1)) * entry;
                total += self.gather_regions(j, entry, next, cur, bytes > release_above);
                std::mem::swap(&mut next, &mut cur);
            }
        }
        total
    }

    /// Turns layer `j + 1` (answers to `kind.other()` for its mover, or
    /// nothing when the board is full) into, per node, the states of
    /// layer `j` from which placing the node's last stone answers `kind`
    /// for the mover at layer `j`: a five made by the placement, or a
    /// rotation to a state where the game ends well for it or the
    /// opponent's answer is no.
    fn turn<E: Entry>(&self, j: u32, layer: &mut [E], kind: Kind, stop: &Stop) {
        let n = self.n();
        let full = j + 1 == n;
        let (x, y) = self.counts(j + 1);
        let block = self.binom(n - x, y);
        let xs = subsets(n, x);
        let (fx, fy, bs) = self.fives_at(j + 1);
        let first_moved = j.is_multiple_of(2);
        let ctx = self.turn_ctx(j, &fx, &fy, &bs);
        let f = self.fast;
        let run = match (kind, full, first_moved) {
            (Kind::Win, false, false) => pick_turn::<E, true, false, false>(f),
            (Kind::Win, false, true) => pick_turn::<E, true, false, true>(f),
            (Kind::Win, true, false) => pick_turn::<E, true, true, false>(f),
            (Kind::Win, true, true) => pick_turn::<E, true, true, true>(f),
            (Kind::NotLose, false, false) => pick_turn::<E, false, false, false>(f),
            (Kind::NotLose, false, true) => pick_turn::<E, false, false, true>(f),
            (Kind::NotLose, true, false) => pick_turn::<E, false, true, false>(f),
            (Kind::NotLose, true, true) => pick_turn::<E, false, true, true>(f),
        };
        layer
            .par_chunks_mut(block.max(1))
            .zip(xs.par_iter().enumerate())
            .for_each(|(out, (ia, &a))| {
                if ia % 64 == 0 && stop.check() {
                    return;
                }
                run(self, &ctx, out, ia, a);
            });
    }

    /// One sweep: layer 0's answers to `kind` (for the root's states of
    /// parity `parity0`) and layer 1's answers to `kind.other()`, or
    /// `None` when stopped.
    fn sweep<E: Entry>(
        &self,
        kind: Kind,
        bufs: [&mut Buf<E>; 2],
        stop: &Stop,
    ) -> Option<(E, Vec<E>)> {
        let n = self.n();
        if n == 0 {
            return Some((E::ZERO, Vec::new()));
        }
        let kind_at = |j: u32| {
            if j.is_multiple_of(2) {
                kind
            } else {
                kind.other()
            }
        };
        let [mut next, mut cur] = bufs;
        let top = self.size(n);
        for r in 0..top.div_ceil(Buf::<E>::PER) {
            next.provide(r);
        }
        next.as_mut_slice()[..top].fill(E::ZERO);
        next.mark_written(0, top);
        self.turn(n - 1, &mut next.as_mut_slice()[..top], kind_at(n - 1), stop);
        let mut layer1 = Vec::new();
        for j in (0..n).rev() {
            let len = self.size(j);
            let bytes = (len + self.size(j + 1)) * std::mem::size_of::<E>();
            // The turn into layer `j - 1` in the same pass, but for layer
            // 1, which the solution keeps unturned.
            let fused = (j >= 2 && self.fuse_turn).then(|| kind_at(j - 1));
            self.gather(j, next, cur, stop, bytes > self.release_above, fused);
            if stop.check() {
                return None;
            }
            if j == 1 {
                layer1 = cur.as_slice()[..len].to_vec();
            }
            if j > 0 && fused.is_none() {
                self.turn(j - 1, &mut cur.as_mut_slice()[..len], kind_at(j - 1), stop);
            }
            std::mem::swap(&mut next, &mut cur);
        }
        if stop.check() {
            return None;
        }
        Some((next.as_slice()[0], layer1))
    }
}

impl Space {
    /// A space of `n` empty cells and no stones: its layers' sizes and
    /// layout are those of every root with `n` empty cells.
    fn blank(n: u32) -> Space {
        let mut sp = space(&Position::new(0, 0, false).expect("the empty board"));
        sp.empty.truncate(n as usize);
        sp
    }
}

fn space(pos: &Position) -> Space {
    // Layer 0 is a position due to place: the root itself, or its
    // rotations (one quarter turn already made: odd states) when it must
    // rotate, whose player to move is the other one.
    let (first, second, parity0) = if pos.must_rotate() {
        (pos.theirs(), pos.mine(), 1)
    } else {
        (pos.mine(), pos.theirs(), 0)
    };
    let empty: Vec<u8> = bits_of(pos.empty()).collect();
    Space {
        first,
        second,
        empty,
        parity0,
        release_above: RELEASE_ABOVE,
        fast: fast_available(),
        fuse_turn: true,
        stream_above: STREAM_ABOVE,
        fives_kept: Default::default(),
    }
}

fn value_of(win: bool, not_lose: bool) -> Value {
    if win {
        Value::Win
    } else if not_lose {
        Value::Draw
    } else {
        Value::Loss
    }
}

/// The value for the player who chose among options, given each option's
/// value for the opponent.
fn best_of(opponent_values: impl IntoIterator<Item = Value>) -> Value {
    let mut best = Value::Loss;
    for v in opponent_values {
        match v {
            Value::Loss => return Value::Win,
            Value::Draw => best = Value::Draw,
            _ => {}
        }
    }
    best
}

/// Why the retrograde solver gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// More than [`MAX_EMPTY`] empty cells.
    TooEarly,
    /// The deadline passed.
    OutOfTime,
    /// Its memory, even one question at a time, is over the limit
    /// (checked before anything is allocated): `needed` bytes for a root
    /// of `empty` empty cells against `limit`.
    TooLarge { empty: u32, needed: u64, limit: u64 },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Refusal::TooEarly => write!(
                f,
                "more than {MAX_EMPTY} empty cells: beyond the retrograde solver"
            ),
            Refusal::OutOfTime => write!(f, "the retrograde solver ran out of time"),
            Refusal::TooLarge {
                empty,
                needed,
                limit,
            } => write!(
                f,
                "the retrograde solver needs {} for {empty} empty cells, over the memory limit of {}",
                bytes_text(needed),
                bytes_text(limit)
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// Bytes as `1.23 GiB` or `456 MiB`.
pub fn bytes_text(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", b.div_ceil(1 << 20))
    }
}

/// The memory a retrograde solve takes at its peak (its layers' regions
/// as [`Space::gather`] moves them, plus the fives tables and a margin),
/// both questions in one sweep and a sweep per question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    pub one_sweep: u64,
    pub two_sweeps: u64,
}

/// The peak memory of a retrograde solve of a root with `n` empty cells
/// (the same for every such root), or `None` above [`MAX_EMPTY`]. Counted
/// by running the gathers' region bookkeeping without allocating (a few
/// ms at 20 empty cells, once per `n` and process).
pub fn memory_for(n: u32) -> Option<Memory> {
    if n > MAX_EMPTY {
        return None;
    }
    static MEMO: std::sync::Mutex<[Option<Memory>; MAX_EMPTY as usize + 1]> =
        std::sync::Mutex::new([None; MAX_EMPTY as usize + 1]);
    if let Some(m) = MEMO.lock().unwrap_or_else(|e| e.into_inner())[n as usize] {
        return Some(m);
    }
    let sp = Space::blank(n);
    let t = tables();
    // The fives of the two players' current sets and one being made.
    let fives =
        3 * t.binom[n as usize][n.div_ceil(2) as usize] * std::mem::size_of::<Line>() as u64;
    let extra = fives + (16 << 20);
    let bytes = |entry: usize, sweeps: usize| {
        (sp.peak_regions(entry, sweeps, RELEASE_ABOVE) * REGION_BYTES) as u64 + extra
    };
    let m = Memory {
        one_sweep: bytes(std::mem::size_of::<Both>(), 1),
        two_sweeps: bytes(std::mem::size_of::<Half>(), 2),
    };
    MEMO.lock().unwrap_or_else(|e| e.into_inner())[n as usize] = Some(m);
    Some(m)
}

/// [`memory_for`] the empty cells of `pos`.
pub fn memory(pos: &Position) -> Option<Memory> {
    memory_for(pos.empty().count_ones())
}

/// The default of [`memory_limit`]: 6 GiB, room for a 16-stone root
/// (20 empty cells, about 4.3 GB with both questions in one sweep).
pub const DEFAULT_MEMORY_BYTES: u64 = 6 << 30;

static MEMORY_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MEMORY_BYTES);

/// Sets the memory a retrograde solve may take when its caller gives no
/// limit (default [`DEFAULT_MEMORY_BYTES`]).
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

/// The memory a retrograde solve may take when its caller gives no limit.
pub fn memory_limit() -> u64 {
    MEMORY_LIMIT.load(Ordering::Relaxed)
}

/// Memory the system can give now (Linux: `MemAvailable` plus the layer
/// pages this process's pool holds, which a solve takes first), if
/// known.
fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024 + pool_bytes() as u64)
}

/// The memory limit a solve applies: `limit`, else [`memory_limit`],
/// never more than the system has available now.
pub fn effective_limit(limit: Option<u64>) -> u64 {
    let l = limit.unwrap_or_else(memory_limit);
    available().map_or(l, |a| l.min(a))
}

/// How a root will be solved within a memory limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Both questions in one sweep (else a sweep per question).
    pub one_sweep: bool,
    /// The peak memory predicted.
    pub bytes: u64,
}

/// Whether and how `pos` can be solved within `limit` bytes (`None`:
/// [`memory_limit`]; either way at most what the system has available):
/// both questions in one sweep when that fits, else a sweep per question,
/// else [`Refusal::TooLarge`] naming the memory needed. Nothing is
/// allocated.
pub fn plan(pos: &Position, limit: Option<u64>) -> Result<Plan, Refusal> {
    let n = pos.empty().count_ones();
    let m = memory_for(n).ok_or(Refusal::TooEarly)?;
    let limit = effective_limit(limit);
    if m.one_sweep <= limit {
        Ok(Plan {
            one_sweep: true,
            bytes: m.one_sweep,
        })
    } else if m.two_sweeps <= limit {
        Ok(Plan {
            one_sweep: false,
            bytes: m.two_sweeps,
        })
    } else {
        Err(Refusal::TooLarge {
            empty: n,
            needed: m.two_sweeps,
            limit,
        })
    }
}

/// Whether the retrograde solver takes `pos` within the process's memory
/// limit ([`memory_limit`], at most what the system has available): at
/// most [`MAX_EMPTY`] empty cells and [`plan`] finds room.
pub fn reaches(pos: &Position) -> bool {
    plan(pos, None).is_ok()
}

/// Positions the solver visits for `pos` (both sweeps, every layer), or
/// `None` when it has more than [`MAX_EMPTY`] empty cells: the measure of
/// its cost, known before it starts.
pub fn cost(pos: &Position) -> Option<u64> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return None;
    }
    let t = tables();
    let mut total = 0u64;
    for j in 0..=n {
        let (x, y) = (j.div_ceil(2), j / 2);
        total += t.binom[n as usize][x as usize] * t.binom[(n - x) as usize][y as usize];
    }
    Some(2 * total)
}

/// A solved root: its value, and the values of everything one move away
/// (its children, and the positions after each full move).
#[derive(Clone, Debug)]
pub struct Solution {
    root: Position,
    empty: Vec<u8>,
    /// Layer 0 (the root, or its rotations when it must rotate): "win"
    /// and "not lose" for its player to move.
    win0: Half,
    not_lose0: Half,
    /// Layer 1 per placement (placement due roots only).
    win1: Vec<Half>,
    not_lose1: Vec<Half>,
    /// Layer regions resident at the end of the solve (its peak: they
    /// only move between the two buffers or join them).
    regions: usize,
}

/// The rotation state after one rotation move `r` (`2·quadrant + d`).
fn turned(r: u8) -> State {
    let mut s = [0u8; 4];
    s[(r >> 1) as usize] = if r & 1 == 0 { 1 } else { 3 };
    s
}

impl Solution {
    /// The position solved.
    pub fn root(&self) -> &Position {
        &self.root
    }

    /// Bytes of layer memory the solve held at its peak (what
    /// [`memory`] predicts, less the fives tables and margin).
    pub fn layer_bytes(&self) -> u64 {
        (self.regions * REGION_BYTES) as u64
    }

    /// The value of the root for its player to move.
    pub fn value(&self) -> Value {
        if let Some(v) = self.root.outcome() {
            return v;
        }
        if self.root.must_rotate() {
            best_of((0..8).map(|r| self.rotation_value(r)))
        } else {
            value_of(has(&self.win0, [0; 4]), has(&self.not_lose0, [0; 4]))
        }
    }

    /// Must-rotate root: the value of rotation `r`'s position for its
    /// player to move.
    fn rotation_value(&self, r: u8) -> Value {
        let c = self.root.rotated(r);
        c.outcome().unwrap_or_else(|| {
            value_of(has(&self.win0, turned(r)), has(&self.not_lose0, turned(r)))
        })
    }

    /// Placement-due root: the value, for its player to move, of the
    /// position after placing on the `i`-th empty cell and rotating `r`.
    fn full_move_value(&self, i: usize, r: u8) -> Value {
        let c = self.root.place(self.empty[i]).rotated(r);
        c.outcome().unwrap_or_else(|| {
            value_of(
                has(&self.win1[i], turned(r)),
                has(&self.not_lose1[i], turned(r)),
            )
        })
    }

    /// Placement-due root: the value of placing on the `i`-th empty cell
    /// for the player who placed (still to rotate).
    fn placement_value(&self, i: usize) -> Value {
        let c = self.root.place(self.empty[i]);
        c.outcome()
            .unwrap_or_else(|| best_of((0..8).map(|r| self.full_move_value(i, r))))
    }

    /// The children as [`crate::solve::Solver::value_and_children`] gives
    /// them: the placements (`m` positions) of a placement-due root, the
    /// rotations of a must-rotate one, each valued for its player to move.
    pub fn children(&self) -> Vec<(Position, Value)> {
        if self.root.outcome().is_some() {
            return Vec::new();
        }
        if self.root.must_rotate() {
            (0..8)
                .map(|r| (self.root.rotated(r), self.rotation_value(r)))
                .collect()
        } else {
            (0..self.empty.len())
                .map(|i| (self.root.place(self.empty[i]), self.placement_value(i)))
                .collect()
        }
    }

    /// Every full move of the root (the rules' moves) with its value for
    /// the player making it.
    pub fn move_values(&self) -> Vec<(Move, Value)> {
        use endgame_core::Rules;
        let g = crate::game::Pentago;
        g.moves(&self.root)
            .into_iter()
            .map(|m| {
                let child = g.play_unchecked(&self.root, m);
                let v = child
                    .outcome()
                    .or_else(|| self.lookup(&child))
                    .unwrap_or(Value::Unknown);
                (m, v.flip())
            })
            .collect()
    }

    /// The value, for its player to move, of `pos` when it is the root,
    /// a child of it, or the position after one full move of it.
    pub fn lookup(&self, pos: &Position) -> Option<Value> {
        if *pos == self.root {
            return Some(self.value());
        }
        if self.root.outcome().is_some() {
            return None;
        }
        if self.root.must_rotate() {
            return (0..8)
                .find(|&r| self.root.rotated(r) == *pos)
                .map(|r| self.rotation_value(r));
        }
        if pos.stones() != self.root.stones() + 1 {
            return None;
        }
        for (i, &cell) in self.empty.iter().enumerate() {
            let placed = self.root.place(cell);
            if pos.must_rotate() {
                if placed == *pos {
                    return Some(self.placement_value(i));
                }
            } else if placed.outcome().is_some() {
                // A five made by the placement ends the game unrotated.
                let ended = Position::new(placed.black(), placed.white(), false).ok()?;
                if ended == *pos {
                    return ended.outcome();
                }
            } else if let Some(r) = (0..8).find(|&r| placed.rotated(r) == *pos) {
                return Some(self.full_move_value(i, r));
            }
        }
        None
    }
}

/// Solves `pos` and everything one move away by the retrograde solver;
/// `deadline`: give up when it passes. The memory limit is
/// [`memory_limit`] (see [`plan`]).
pub fn solve(pos: &Position, deadline: Option<Instant>) -> Result<Solution, Refusal> {
    solve_limited(pos, deadline, None, None)
}

/// [`solve`], also stopped (as [`Refusal::OutOfTime`]) when `cancel` is
/// set: checked with the deadline, every 64 blocks of a layer.
pub fn solve_stoppable(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: &Cancel,
) -> Result<Solution, Refusal> {
    solve_limited(pos, deadline, Some(cancel), None)
}

/// [`solve_stoppable`] within `memory` bytes (`None`: [`memory_limit`]):
/// refused before anything is allocated when even a sweep per question
/// does not fit ([`plan`]).
pub fn solve_limited(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    memory: Option<u64>,
) -> Result<Solution, Refusal> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let one_sweep = if pos.outcome().is_some() {
        true
    } else {
        plan(pos, memory)?.one_sweep
    };
    solve_with(
        pos,
        deadline,
        cancel,
        Options {
            one_sweep,
            ..Options::of(pos)
        },
    )
}

/// How [`solve_with`] runs (what [`solve`] uses, or variants the tests
/// compare with it).
#[derive(Clone, Copy)]
struct Options {
    /// Both questions in one sweep.
    one_sweep: bool,
    /// Move pages between layers whose pair takes more bytes.
    release_above: usize,
    /// The code compiled for AVX2 and BMI2, where available.
    fast: bool,
    /// Turn each node as it is gathered.
    fuse_turn: bool,
    /// Write layers of more bytes with non-temporal stores.
    stream_above: usize,
    /// Where the layers' regions come from and return to.
    pool: &'static Pool,
}

impl Options {
    /// What [`solve`] uses for `pos`.
    fn of(_pos: &Position) -> Options {
        Options {
            one_sweep: true,
            release_above: RELEASE_ABOVE,
            fast: fast_available(),
            fuse_turn: true,
            stream_above: STREAM_ABOVE,
            pool: &POOL,
        }
    }
}

/// [`solve`] as `opt` says.
fn solve_with(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    opt: Options,
) -> Result<Solution, Refusal> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let mut sol = Solution {
        root: *pos,
        empty: bits_of(pos.empty()).collect(),
        win0: [0; 2],
        not_lose0: [0; 2],
        win1: Vec::new(),
        not_lose1: Vec::new(),
        regions: 0,
    };
    if pos.outcome().is_some() {
        return Ok(sol);
    }
    let mut sp = space(pos);
    sp.release_above = opt.release_above;
    sp.fast = opt.fast && fast_available();
    sp.fuse_turn = opt.fuse_turn;
    sp.stream_above = opt.stream_above;
    let (one_sweep, pool) = (opt.one_sweep, opt.pool);
    let stop = Stop::new(deadline, cancel);
    // Two layer buffers, as large as the largest layer.
    let most = (0..=sp.n()).map(|j| sp.size(j)).max().unwrap_or(1);
    let (win0, not_lose0, win1, not_lose1) = if one_sweep {
        // Both questions in one sweep: the fives and indices once.
        let mut a: Buf<Both> = Buf::new(most, pool);
        let mut b: Buf<Both> = Buf::new(most, pool);
        let (e0, e1) = sp
            .sweep(Kind::Win, [&mut a, &mut b], &stop)
            .ok_or(Refusal::OutOfTime)?;
        sol.regions = a.resident_count() + b.resident_count();
        (
            e0.0[0],
            e0.0[1],
            e1.iter().map(|e| e.0[0]).collect(),
            e1.iter().map(|e| e.0[1]).collect(),
        )
    } else {
        let mut a: Buf<Half> = Buf::new(most, pool);
        let mut b: Buf<Half> = Buf::new(most, pool);
        let (win0, not_lose1) = sp
            .sweep(Kind::Win, [&mut a, &mut b], &stop)
            .ok_or(Refusal::OutOfTime)?;
        let (not_lose0, win1) = sp
            .sweep(Kind::NotLose, [&mut a, &mut b], &stop)
            .ok_or(Refusal::OutOfTime)?;
        sol.regions = a.resident_count() + b.resident_count();
        (win0, not_lose0, win1, not_lose1)
    };
    sol.win0 = win0;
    sol.not_lose0 = not_lose0;
    sol.win1 = win1;
    sol.not_lose1 = not_lose1;
    Ok(sol)
}

/// The value of `pos` and of each child, as
/// [`crate::solve::Solver::value_and_children`] gives them, by the
/// retrograde solver. `deadline`: give up when it passes.
pub fn value_and_children(
    pos: &Position,
    deadline: Option<Instant>,
) -> Result<(Value, Vec<(Position, Value)>), Refusal> {
    solve(pos, deadline).map(|s| (s.value(), s.children()))
}

/// The value of `pos` for its player to move, by the retrograde solver.
/// Where the questions take a sweep each (the memory limit allows no
/// more, see [`plan`]), a position due to place needs only the "win"
/// sweep when it is won, then only the "not lose" one.
pub fn value(pos: &Position, deadline: Option<Instant>) -> Result<Value, Refusal> {
    value_limited(pos, deadline, None, None)
}

/// [`value`], also stopped when `cancel` is set (see [`solve_stoppable`]).
pub fn value_stoppable(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: &Cancel,
) -> Result<Value, Refusal> {
    value_limited(pos, deadline, Some(cancel), None)
}

/// [`value_stoppable`] within `memory` bytes (see [`solve_limited`]).
pub fn value_limited(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    memory: Option<u64>,
) -> Result<Value, Refusal> {
    if let Some(v) = pos.outcome() {
        return Ok(v);
    }
    if pos.empty().count_ones() > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let split = !plan(pos, memory)?.one_sweep;
    value_with(pos, deadline, cancel, split)
}

/// [`value`], question by question (`split`) or from a whole [`solve`].
fn value_with(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    split: bool,
) -> Result<Value, Refusal> {
    if let Some(v) = pos.outcome() {
        return Ok(v);
    }
    if pos.empty().count_ones() > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    if !split || pos.must_rotate() {
        let opt = Options {
            one_sweep: !split,
            ..Options::of(pos)
        };
        return solve_with(pos, deadline, cancel, opt).map(|s| s.value());
    }
    let sp = space(pos);
    let stop = Stop::new(deadline, cancel);
    let most = (0..=sp.n()).map(|j| sp.size(j)).max().unwrap_or(1);
    let mut a: Buf<Half> = Buf::new(most, &POOL);
    let mut b: Buf<Half> = Buf::new(most, &POOL);
    for kind in [Kind::Win, Kind::NotLose] {
        let (root, _) = sp
            .sweep(kind, [&mut a, &mut b], &stop)
            .ok_or(Refusal::OutOfTime)?;
        if has(&root, [0; 4]) {
            return Ok(if kind == Kind::Win {
                Value::Win
            } else {
                Value::Draw
            });
        }
    }
    Ok(Value::Loss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_of(stones: u64) -> Vec<State> {
        let mut out = Vec::new();
        for r in 0..256u32 {
            let s: State = [0, 1, 2, 3].map(|q| ((r >> (2 * q)) & 3) as u8);
            let mut b = stones;
            for (q, &t) in s.iter().enumerate() {
                for _ in 0..t {
                    b = rotate(b, 2 * q as u8);
                }
            }
            if crate::board::has_five(b) {
                out.push(s);
            }
        }
        out
    }

    #[test]
    fn one_sweep_and_two_sweeps_agree() {
        use endgame_core::conformance::random_game_positions;
        let ps: Vec<Position> = random_game_positions(&crate::Pentago, 17, 30)
            .into_iter()
            .filter(|p| (22..=30).contains(&p.stones()) && p.outcome().is_none())
            .collect();
        assert!(ps.len() > 50);
        for p in &ps {
            let base = Options::of(p);
            let one = solve_with(p, None, None, base).unwrap();
            let two = solve_with(
                p,
                None,
                None,
                Options {
                    one_sweep: false,
                    ..base
                },
            )
            .unwrap();
            assert_eq!(one.value(), two.value());
            assert_eq!(one.children(), two.children());
            assert_eq!(one.move_values(), two.move_values());
            // Every gather moving pages between its layers (at these
            // sizes none would), in one sweep and in two.
            // And the portable code (where the machine has AVX2 and BMI2,
            // the rest of the tests run the fast one), the turns in
            // passes of their own, and every layer written with
            // non-temporal stores (at these sizes none would).
            for (one_sweep, release_above, fast, fuse_turn, stream_above) in [
                (true, 0, true, true, STREAM_ABOVE),
                (false, 0, true, true, STREAM_ABOVE),
                (true, 0, false, true, STREAM_ABOVE),
                (false, RELEASE_ABOVE, false, true, STREAM_ABOVE),
                (true, RELEASE_ABOVE, true, false, STREAM_ABOVE),
                (false, 0, false, false, STREAM_ABOVE),
                (true, 0, true, true, 0),
                (false, RELEASE_ABOVE, true, false, 0),
            ] {
                let opt = Options {
                    one_sweep,
                    release_above,
                    fast,
                    fuse_turn,
                    stream_above,
                    ..base
                };
                let other = solve_with(p, None, None, opt).unwrap();
                assert_eq!(other.value(), one.value());
                assert_eq!(other.children(), one.children());
                assert_eq!(other.move_values(), one.move_values());
            }
            assert_eq!(value_with(p, None, None, true), Ok(one.value()));
        }
    }

    #[test]
    fn pooled_regions_give_the_same_solutions() {
        use endgame_core::conformance::random_game_positions;
        let ps: Vec<Position> = random_game_positions(&crate::Pentago, 5, 12)
            .into_iter()
            .filter(|p| (20..=24).contains(&p.stones()) && p.outcome().is_none())
            .take(12)
            .collect();
        assert!(ps.len() >= 8);
        // A pool of its own (the tests run in parallel on the global one),
        // and one kept empty: every region from a fresh mapping.
        let pool: &'static Pool = Box::leak(Box::new(Pool::new(64 << 20)));
        let none: &'static Pool = Box::leak(Box::new(Pool::new(0)));
        for (i, p) in ps.iter().enumerate() {
            // Moving pages between layers at every gather, or never; with
            // both questions in one sweep, or two.
            let (one_sweep, release) = [(true, 0), (true, RELEASE_ABOVE), (false, 0)][i % 3];
            let opt = Options {
                one_sweep,
                release_above: release,
                ..Options::of(p)
            };
            let fresh = solve_with(p, None, None, Options { pool: none, ..opt }).unwrap();
            let before = pool.taken();
            let pooled = solve_with(p, None, None, Options { pool, ..opt }).unwrap();
            if i > 0 {
                // The previous solve's regions were written over.
                assert!(pool.taken() > before, "no region taken from the pool");
            }
            assert!(pool.bytes() > 0 && pool.bytes() <= 64 << 20);
            assert_eq!(none.bytes(), 0);
            assert_eq!(pooled.value(), fresh.value());
            assert_eq!(pooled.children(), fresh.children());
            assert_eq!(pooled.move_values(), fresh.move_values());
        }
        // A lower limit frees what is above it.
        pool.set_limit(REGION_BYTES * 3);
        assert_eq!(pool.bytes(), REGION_BYTES * 3);
        pool.set_limit(0);
        assert_eq!(pool.bytes(), 0);
    }

    #[test]
    fn locate_and_state_at_are_inverse() {
        for p in 0..2 {
            for bit in 0..128 {
                let r = state_at(p, bit);
                assert_eq!(locate(r), (p, (bit >> 6) as usize, bit & 63));
            }
        }
    }

    #[test]
    fn spread_is_the_union_of_single_turns() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50 {
            for p in 0..2 {
                x = x.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1);
                let y = x.rotate_left(29) ^ 0x1234_5678;
                let set: Half = [x & y, x | y.rotate_left(7)];
                let got = spread(set);
                for bit in 0..128 {
                    let r = state_at(1 - p, bit);
                    let mut want = false;
                    for q in 0..4 {
                        for d in [1u8, 3] {
                            let mut s = r;
                            s[q] = (s[q] + d) & 3;
                            want |= has(&set, s);
                        }
                    }
                    assert_eq!(has(&got, r), want, "state {r:?}");
                }
            }
        }
    }

    #[test]
    fn fives_match_rotating_the_board() {
        let mut x = 7u64;
        for _ in 0..200 {
            x = x
                .wrapping_mul(0x5851_f42d_4c95_7f2d)
                .wrapping_add(0x14057b7e);
            let stones = (x ^ x.rotate_left(17)) & crate::board::CELLS;
            let f = fives(stones);
            let want = full_of(stones);
            let mut got = Vec::new();
            for (p, half) in f.iter().enumerate() {
                for bit in 0..128 {
                    if half[(bit >> 6) as usize] >> (bit & 63) & 1 != 0 {
                        got.push(state_at(p, bit));
                    }
                }
            }
            got.sort();
            let mut want = want;
            want.sort();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn subsets_are_in_colex_rank_order() {
        let s = subsets(6, 3);
        assert_eq!(s.len(), 20);
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        let sp = Space {
            first: 0,
            second: 0,
            empty: (0..6).collect(),
            parity0: 0,
            release_above: RELEASE_ABOVE,
            fast: false,
            fuse_turn: true,
            stream_above: STREAM_ABOVE,
            fives_kept: Default::default(),
        };
        for k in [0, 1, 5, 9, 13, 18] {
            for (i, &m) in subsets(18, k).iter().enumerate() {
                assert_eq!(rank(m), i);
            }
        }
        assert_eq!(sp.deposit(0b101, 0b11010), 0b10010);
        // Masks of 19 and 20 bits (roots of 16 and 17 stones): the third
        // table.
        for k in [1, 2, 9, 10, 11, 19] {
            for (i, &m) in subsets(20, k).iter().enumerate() {
                assert_eq!(rank(m), i, "{m:#x}");
            }
        }
        assert_eq!(sp.deposit(0xf_ffff, 0xa_5a5a), 0xa_5a5a);
    }

    #[test]
    fn predicted_regions_are_what_solves_hold() {
        use endgame_core::conformance::random_game_positions;
        let ps: Vec<Position> = random_game_positions(&crate::Pentago, 9, 12)
            .into_iter()
            .filter(|p| (22..=26).contains(&p.stones()) && p.outcome().is_none())
            .take(6)
            .collect();
        assert!(ps.len() >= 4);
        for (i, p) in ps.iter().enumerate() {
            let release_above = [0, RELEASE_ABOVE][i % 2];
            let sp = Space::blank(p.empty().count_ones());
            for one_sweep in [true, false] {
                let opt = Options {
                    one_sweep,
                    release_above,
                    ..Options::of(p)
                };
                let sol = solve_with(p, None, None, opt).unwrap();
                let (entry, sweeps) = if one_sweep {
                    (std::mem::size_of::<Both>(), 1)
                } else {
                    (std::mem::size_of::<Half>(), 2)
                };
                assert_eq!(
                    sol.regions,
                    sp.peak_regions(entry, sweeps, release_above),
                    "{p:?} one sweep {one_sweep}, release above {release_above}"
                );
            }
        }
        // Moving pages lowers the peak below both layers of a pair.
        let sp = Space::blank(14);
        let entry = std::mem::size_of::<Both>();
        let moved = sp.peak_regions(entry, 1, 0);
        let kept = sp.peak_regions(entry, 1, usize::MAX);
        assert!(moved < kept, "{moved} vs {kept}");
        let most = (0..=14).map(|j| sp.size(j)).max().unwrap() * entry / REGION_BYTES;
        assert!(moved >= most);
    }

    #[test]
    fn a_small_memory_limit_is_refused_before_allocating() {
        let p = Position::new(0, 0, false).unwrap();
        assert_eq!(plan(&p, Some(1 << 40)), Err(Refusal::TooEarly));
        // 16 empty cells: a plan either way, refused below its two sweeps.
        let black = 0b1_0101_0101u64 | 0b1_0101_0101 << 16;
        let white = 0b1010_1010u64 | 0b1010_1010 << 16 | 0b1 << 32 | 0b1 << 48;
        let p = Position::new(black, white, false).unwrap();
        assert_eq!(p.empty().count_ones(), 16);
        let m = memory(&p).unwrap();
        assert!(m.two_sweeps < m.one_sweep);
        assert_eq!(plan(&p, Some(m.one_sweep)).map(|x| x.one_sweep), Ok(true));
        assert_eq!(plan(&p, Some(m.two_sweeps)).map(|x| x.one_sweep), Ok(false));
        let r = solve_limited(&p, None, None, Some(m.two_sweeps - 1)).unwrap_err();
        assert_eq!(
            r,
            Refusal::TooLarge {
                empty: 16,
                needed: m.two_sweeps,
                limit: m.two_sweeps - 1
            }
        );
        assert!(r.to_string().contains("needs"), "{r}");
        assert_eq!(
            value_limited(&p, None, None, Some(1000))
                .unwrap_err()
                .to_string(),
            format!(
                "the retrograde solver needs {} for 16 empty cells, over the memory limit of 1 MiB",
                bytes_text(m.two_sweeps)
            )
        );
        // The value alone, one question at a time, agrees with one sweep.
        let whole = solve_limited(&p, None, None, Some(m.one_sweep)).unwrap();
        assert_eq!(
            value_limited(&p, None, None, Some(m.two_sweeps)),
            Ok(whole.value())
        );
    }
}
