//! A peg-solitaire problem on a board: start, goal, symmetry, pruning —
//! and its bitboard implementation of the core traits.
//!
//! Bit layout. Holes sit at `row * stride + column` of a grid in which
//! every jump direction is a constant shift (square boards: the drawing
//! grid; triangular boards: axial coordinates), so the moves of a whole
//! direction are found with a few shifts and masks.

use crate::bits::Bits;
use crate::board::{Board, Lattice};
use crate::class::PositionClasses;
use crate::error::PegError;
use crate::pagoda::Pagoda;
use endgame_core::dense::DenseKeys;
use endgame_core::{Notation, Puzzle, Reversible, Rules, Symmetric};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long [`Problem::new`] spends deriving pagoda functions at most.
/// The built-in boards need a few milliseconds; a large custom board with
/// no symmetry can need minutes for all of them, and prunes with those
/// ready by then (the rest are derived by later problems on that board).
pub const PAGODA_TIME: Duration = Duration::from_secs(2);

/// What counts as solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Pegs exactly on these holes (one hole: finish in that hole).
    Pattern(Vec<usize>),
    /// One peg left, anywhere.
    AnyOne,
}

/// How a problem prunes positions that cannot reach the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruning {
    /// Use the position-class (parity) test.
    pub classes: bool,
    /// Use pagoda functions.
    pub pagodas: bool,
}

impl Default for Pruning {
    fn default() -> Self {
        Pruning {
            classes: true,
            pagodas: true,
        }
    }
}

/// One jump direction: a constant bit shift and the holes it can start on.
#[derive(Clone, Debug)]
struct Dir<B> {
    /// Signed shift from `from` to `over` (and `over` to `to`).
    shift: i32,
    /// Bits of holes from which this direction's jump lands on the board.
    valid: B,
    /// Board jump index for each starting bit.
    ids: Vec<u16>,
}

/// The symmetries of a square board of at most 8 by 8 holes in rows of 8
/// bits, by delta swaps instead of table look-ups: mirror `H` (columns),
/// flip `V` (rows) and transpose `T`. Image `k` (0..8) is
/// `T^(k>>2) V^(k>>1&1) H^(k&1)`.
#[derive(Clone, Debug)]
struct D4<B> {
    /// Delta swaps (mask of the lower bits, shift) of the mirror; unused
    /// ones have an empty mask.
    h: [(B, usize); 4],
    /// Delta swaps of the flip.
    v: [(B, usize); 4],
    /// Delta swaps of the transposition (empty masks if rows differ from
    /// columns).
    t: [(B, usize); 3],
    /// Whether the transposition is a symmetry of the grid.
    square: bool,
    /// The grid's unused columns and rows (`8 - cols`, `8 * (8 - rows)`
    /// bits): the shifts that follow a byte's bit reversal (mirror) and a
    /// word's byte reversal (flip) in [`d4_gfni`].
    pad: (u32, u32),
    /// For each element of the problem's group, its image index `k`.
    codes: Vec<u8>,
    /// Bit `k` set for each image index in `codes` (the group's lanes of
    /// [`d4_gfni`]'s register).
    lanes: u8,
}

impl<B: Bits> D4<B> {
    fn from_u64(x: u64) -> B {
        (0..64)
            .filter(|i| x >> i & 1 == 1)
            .fold(B::ZERO, |m, i| m | B::bit(i))
    }

    fn new(cols: usize, rows: usize) -> Self {
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
    fn all(&self, x: B) -> [B; 8] {
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
    fn apply(&self, k: u8, x: B) -> B {
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

/// [`D4::all`] compiled for CPUs with AVX-512.
///
/// # Safety
/// The CPU must support the enabled features (see `wide_simd`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn d4_wide<B: Bits>(d4: &D4<B>, pos: B) -> [B; 8] {
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
/// The CPU must support the enabled features (see `Problem::gfni`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
#[inline]
unsafe fn d4_gfni<B: Bits>(d4: &D4<B>, pos: B) -> [B; 8] {
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
unsafe fn d4_fixed_gfni<B: Bits>(d4: &D4<B>, pos: B) -> u32 {
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
unsafe fn d4_gfni_register<B: Bits>(d4: &D4<B>, pos: B) -> std::arch::x86_64::__m512i {
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

/// Whether the CPU runs [`Problem::neighbours_wide`].
fn wide_simd() -> bool {
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

/// Whether the CPU runs [`d4_gfni`].
fn gfni_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("gfni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A peg-solitaire problem with `B`-bit bitboards.
#[derive(Clone)]
pub struct Problem<B: Bits> {
    board: Arc<Board>,
    hole_bit: Vec<usize>,
    bit_hole: Vec<Option<usize>>,
    nbytes: usize,
    start: B,
    goal: Goal,
    goal_mask: B,
    /// Every hole, when the goal is the start's complement: the time
    /// reversal is then the complement (see `Reversible::reversal`).
    complement: Option<B>,
    dirs: Vec<Dir<B>>,
    jump_mask: Vec<B>,
    /// Board symmetries (indices) that fix the start and the goal set.
    group: Vec<usize>,
    /// sym_table[g * nbytes + k][byte]: image of byte k under group[g].
    sym_table: Vec<[B; 256]>,
    /// jump_images[j * |group| + g]: image of jump j's mask under group[g].
    jump_images: Vec<B>,
    classes: Option<(PositionClasses, Vec<u64>)>,
    /// The class invariants as bitboard masks.
    class_masks: Vec<B>,
    pagodas: Vec<(Pagoda, i64)>,
    /// pagoda_tables[p * nbytes + k][byte]: weight of byte k's pegs.
    pagoda_tables: Vec<[i32; 256]>,
    /// Class (orbit under the group) of each hole.
    hole_class: Vec<usize>,
    /// The fast symmetries of small square boards, when they apply.
    d4: Option<D4<B>>,
    /// Whether the CPU has AVX-512 (for [`Problem::neighbours_wide`]).
    wide: bool,
    /// Whether the CPU has AVX-512 and GFNI (for [`d4_gfni`]).
    gfni: bool,
    /// order_tables[k][byte]: search-order weight of byte k's pegs.
    order_tables: Vec<[i32; 256]>,
    /// Dense keys (one bit per hole, in bit order), on boards of at most
    /// 48 holes: key_table[k][byte] is the key of byte k's pegs,
    /// unkey_table[k][byte] the bitboard of key byte k.
    key_table: Vec<[u64; 256]>,
    unkey_table: Vec<[B; 256]>,
}

impl<B: Bits> std::fmt::Debug for Problem<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Problem")
            .field("board", &self.board.name())
            .field("start", &self.start)
            .field("goal", &self.goal)
            .finish()
    }
}

/// Grid coordinates (column, row) of each hole and the grid's stride.
fn grid(board: &Board) -> (Vec<(usize, usize)>, usize) {
    let coords: Vec<(i32, i32)> = (0..board.holes()).map(|i| board.coords(i)).collect();
    let axial: Vec<(i32, i32)> = match board.lattice() {
        Lattice::Square => coords,
        Lattice::Hex => coords
            .iter()
            .map(|&(x, y)| ((x - y).div_euclid(2), y))
            .collect(),
    };
    let minc = axial.iter().map(|c| c.0).min().unwrap_or(0);
    let minr = axial.iter().map(|c| c.1).min().unwrap_or(0);
    let cols = axial.iter().map(|c| c.0 - minc).max().unwrap_or(0) as usize + 1;
    let rows = axial.iter().map(|c| c.1 - minr).max().unwrap_or(0) as usize + 1;
    let g = axial
        .iter()
        .map(|&(c, r)| ((c - minc) as usize, (r - minr) as usize))
        .collect();
    // Square boards up to 8 by 8 use rows of 8 bits, so that their
    // symmetries are a few shifts and masks (see `D4`).
    let stride = if board.lattice() == Lattice::Square && cols <= 8 && rows <= 8 {
        8
    } else {
        cols
    };
    (g, stride)
}

/// The number of grid bits a board needs (decides `u64` or `u128`).
pub fn bits_needed(board: &Board) -> usize {
    let (g, stride) = grid(board);
    g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1
}

impl<B: Bits> Problem<B> {
    /// A problem: the start has pegs on `start` holes; `goal` as given.
    /// Its pagoda functions are those derived within [`PAGODA_TIME`]
    /// (every one, on the built-in boards).
    pub fn new(
        board: Arc<Board>,
        start: &[bool],
        goal: Goal,
        pruning: Pruning,
    ) -> Result<Self, PegError> {
        Self::new_within(
            board,
            start,
            goal,
            pruning,
            Some(Instant::now() + PAGODA_TIME),
        )
    }

    /// [`Problem::new`] with the pagoda functions ready by `deadline`
    /// (all of them when `None`; see [`crate::pagoda::for_goal_until`]).
    pub fn new_within(
        board: Arc<Board>,
        start: &[bool],
        goal: Goal,
        pruning: Pruning,
        deadline: Option<Instant>,
    ) -> Result<Self, PegError> {
        let (g, stride) = grid(&board);
        let nbits = g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1;
        if nbits > B::CAPACITY {
            return Err(PegError::BadArt(format!(
                "board needs {nbits} bits, more than {} available",
                B::CAPACITY
            )));
        }
        let hole_bit: Vec<usize> = g.iter().map(|&(c, r)| r * stride + c).collect();
        let mut bit_hole = vec![None; nbits];
        for (h, &b) in hole_bit.iter().enumerate() {
            bit_hole[b] = Some(h);
        }
        let mask_of = |holes: &mut dyn Iterator<Item = usize>| {
            holes.fold(B::ZERO, |m, h| m | B::bit(hole_bit[h]))
        };
        let start_mask = mask_of(&mut (0..board.holes()).filter(|&h| start[h]));
        let goal_mask = match &goal {
            Goal::Pattern(holes) => {
                if holes.is_empty() {
                    return Err(PegError::BadPosition("goal has no pegs".into()));
                }
                mask_of(&mut holes.iter().copied())
            }
            Goal::AnyOne => B::ZERO,
        };
        // Directions: group the board's jumps by their bit shift.
        let mut dirs: Vec<Dir<B>> = Vec::new();
        let mut jump_mask = Vec::new();
        for (j, jp) in board.jumps().iter().enumerate() {
            let (f, o, t) = (hole_bit[jp.from], hole_bit[jp.over], hole_bit[jp.to]);
            let shift = o as i32 - f as i32;
            debug_assert_eq!(t as i32 - o as i32, shift, "jumps are straight in the grid");
            jump_mask.push(B::bit(f) | B::bit(o) | B::bit(t));
            let d = match dirs.iter().position(|d| d.shift == shift) {
                Some(d) => d,
                None => {
                    dirs.push(Dir {
                        shift,
                        valid: B::ZERO,
                        ids: vec![u16::MAX; nbits],
                    });
                    dirs.len() - 1
                }
            };
            dirs[d].valid |= B::bit(f);
            dirs[d].ids[f] = j as u16;
        }
        // The symmetry group: board symmetries fixing start and goal set.
        fn maps_onto(
            perm: &[usize],
            holes: &mut dyn Iterator<Item = usize>,
            set: &dyn Fn(usize) -> bool,
        ) -> bool {
            for h in holes {
                if !set(perm[h]) {
                    return false;
                }
            }
            true
        }
        let group: Vec<usize> = board
            .symmetries()
            .iter()
            .enumerate()
            .filter(|(_, perm)| {
                let s = |h: usize| start[h];
                let start_ok = maps_onto(perm, &mut (0..board.holes()).filter(|&h| start[h]), &s);
                let goal_ok = match &goal {
                    Goal::Pattern(holes) => {
                        maps_onto(perm, &mut holes.iter().copied(), &|h| holes.contains(&h))
                    }
                    Goal::AnyOne => true,
                };
                start_ok && goal_ok
            })
            .map(|(i, _)| i)
            .collect();
        let nbytes = nbits.div_ceil(8);
        let mut sym_table = Vec::with_capacity(group.len() * nbytes);
        for &gi in &group {
            let perm = &board.symmetries()[gi];
            for k in 0..nbytes {
                let mut t = [B::ZERO; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = bit_hole.get(8 * k + bit) {
                                *slot |= B::bit(hole_bit[perm[*h]]);
                            }
                        }
                    }
                }
                sym_table.push(t);
            }
        }
        let mut p = Problem {
            board,
            hole_bit,
            bit_hole,
            nbytes,
            start: start_mask,
            goal,
            goal_mask,
            complement: None,
            dirs,
            jump_mask,
            group,
            sym_table,
            jump_images: Vec::new(),
            classes: None,
            class_masks: Vec::new(),
            pagodas: Vec::new(),
            pagoda_tables: Vec::new(),
            hole_class: Vec::new(),
            d4: None,
            wide: wide_simd(),
            gfni: gfni_simd(),
            order_tables: Vec::new(),
            key_table: Vec::new(),
            unkey_table: Vec::new(),
        };
        // Complementing reverses every jump; it maps the start to the goal
        // only when the goal is the start's complement.
        let board_mask = p.position_of(0..p.board.holes());
        if matches!(p.goal, Goal::Pattern(_)) && p.goal_mask == board_mask ^ p.start {
            p.complement = Some(board_mask);
        }
        p.d4 = p.find_d4(&g, stride);
        if let Some(mut d4) = p.d4.take() {
            // Order the group as the delta-swap images come (the identity
            // stays first), so the full group's images need no shuffle.
            let mut order: Vec<usize> = (0..p.group.len()).collect();
            order.sort_by_key(|&i| d4.codes[i]);
            p.group = order.iter().map(|&i| p.group[i]).collect();
            p.sym_table = order
                .iter()
                .flat_map(|&i| p.sym_table[i * nbytes..(i + 1) * nbytes].iter().copied())
                .collect();
            d4.codes = order.iter().map(|&i| d4.codes[i]).collect();
            p.d4 = Some(d4);
        }
        p.hole_class = p.hole_classes();
        p.jump_images = p
            .jump_mask
            .iter()
            .flat_map(|&m| (0..p.group.len()).map(move |g| (m, g)))
            .map(|(m, g)| p.transform(g, m))
            .collect();
        if pruning.classes {
            let classes = PositionClasses::new(&p.board);
            let goal_classes = p.goal_classes(&classes);
            p.class_masks = classes
                .invariants
                .iter()
                .map(|inv| p.position_of(inv.iter().copied()))
                .collect();
            p.classes = Some((classes, goal_classes));
        }
        p.build_key_tables();
        if pruning.pagodas {
            if let Goal::Pattern(holes) = &p.goal {
                if holes.len() == 1 {
                    p.pagodas = crate::pagoda::for_goal_until(&p.board, holes[0], deadline)
                        .into_iter()
                        .map(|pg| {
                            let need = pg.weights[holes[0]];
                            (pg, need)
                        })
                        .collect();
                }
            }
        }
        // Depth-first searches try first the children whose pegs sit on
        // holes that are easy to clear later: the study's weighted cost
        // (corners, with the fewest jumps into them, weigh most). On the
        // English central game this cuts the first solution from some
        // 17,500 expansions to about 400.
        let order = crate::heuristics::weighted_cost_weights(&p);
        if !order.is_empty() {
            p.order_tables = p.byte_tables(&order);
        }
        for (pg, _) in &p.pagodas {
            for k in 0..p.nbytes {
                let mut t = [0i32; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = p.bit_hole.get(8 * k + bit) {
                                *slot += pg.weights[*h] as i32;
                            }
                        }
                    }
                }
                p.pagoda_tables.push(t);
            }
        }
        Ok(p)
    }

    /// Per-byte tables of the total of per-hole `weights` over the pegs.
    fn byte_tables(&self, weights: &[i64]) -> Vec<[i32; 256]> {
        (0..self.nbytes)
            .map(|k| {
                let mut t = [0i32; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = self.bit_hole.get(8 * k + bit) {
                                *slot += weights[*h] as i32;
                            }
                        }
                    }
                }
                t
            })
            .collect()
    }

    fn goal_classes(&self, classes: &PositionClasses) -> Vec<u64> {
        let mut v: Vec<u64> = match &self.goal {
            Goal::Pattern(holes) => vec![classes.class_of(&mut holes.iter().copied())],
            Goal::AnyOne => (0..self.board.holes())
                .map(|h| classes.class_of(&mut std::iter::once(h)))
                .collect(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The board.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }
    /// The goal.
    pub fn goal(&self) -> &Goal {
        &self.goal
    }
    /// The symmetry group in use (indices into the board's symmetries).
    pub fn group(&self) -> &[usize] {
        &self.group
    }
    /// The pagoda functions in use, with the value the goal needs.
    pub fn pagodas(&self) -> &[(Pagoda, i64)] {
        &self.pagodas
    }

    /// The position with pegs on `holes`.
    pub fn position_of(&self, holes: impl IntoIterator<Item = usize>) -> B {
        holes
            .into_iter()
            .fold(B::ZERO, |m, h| m | B::bit(self.hole_bit[h]))
    }

    /// The holes with a peg in `pos`.
    pub fn pegs(&self, pos: B) -> Vec<usize> {
        let mut v: Vec<usize> = pos.ones().filter_map(|b| self.bit_hole[b]).collect();
        v.sort_unstable();
        v
    }

    /// Whether hole `h` has a peg in `pos`.
    pub fn has_peg(&self, pos: B, h: usize) -> bool {
        pos.has(self.hole_bit[h])
    }

    /// The delta-swap symmetries, if every element of the group is one of
    /// them (checked hole by hole against the board's permutations).
    fn find_d4(&self, g: &[(usize, usize)], stride: usize) -> Option<D4<B>> {
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
    fn transform(&self, g: usize, pos: B) -> B {
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

    /// [`Problem::neighbours_n`] for this problem's group.
    #[inline]
    fn neighbours(&self, pos: B, forward: bool, f: impl FnMut(B, u32)) {
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

    /// [`Problem::neighbours_n`] compiled for CPUs with AVX-512, where the
    /// eight images of a neighbour fit one vector register.
    ///
    /// # Safety
    /// The CPU must support the enabled features (see `wide`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw,avx512dq,bmi1,bmi2,popcnt")]
    unsafe fn neighbours_wide<const N: usize>(&self, pos: B, forward: bool, f: impl FnMut(B, u32)) {
        self.neighbours_n::<N>(pos, forward, f)
    }

    /// Calls `f(jump index)` for each jump whose mask test passes.
    #[inline(always)]
    fn each_jump(&self, pos: B, forward: bool, mut f: impl FnMut(usize)) {
        // Forward: peg on from and over, to empty. Backward (parents of
        // pos): from and over empty, peg on to.
        let (a, b) = if forward { (pos, !pos) } else { (!pos, pos) };
        for d in &self.dirs {
            let mut cand = if d.shift > 0 {
                let s = d.shift as usize;
                a & a.shr(s) & b.shr(2 * s) & d.valid
            } else {
                let s = (-d.shift) as usize;
                a & a.shl(s) & b.shl(2 * s) & d.valid
            };
            while let Some(bit) = cand.pop_lowest() {
                f(d.ids[bit] as usize);
            }
        }
    }

    /// Why `pos` cannot reach the goal, if a quick test proves it.
    pub fn impossibility(&self, pos: B) -> Option<String> {
        if let Some((classes, goal_classes)) = &self.classes {
            let c = self.class_bits(pos);
            if !goal_classes.contains(&c) {
                return Some(classes.explain(&self.board, c, goal_classes));
            }
        }
        for (i, (pg, need)) in self.pagodas.iter().enumerate() {
            let v = self.pagoda_value(i, pos);
            if v < *need {
                return Some(format!(
                    "pagoda function '{}' is {v} here but the goal needs {need}, and no jump raises it",
                    pg.name
                ));
            }
        }
        None
    }

    /// The position class of `pos`: bit `k` is the parity of its pegs on
    /// invariant `k` (as [`PositionClasses::class_of`] numbers them).
    #[inline]
    fn class_bits(&self, pos: B) -> u64 {
        self.class_masks
            .iter()
            .enumerate()
            .fold(0u64, |c, (k, &m)| c | (((pos & m).count() & 1) as u64) << k)
    }

    /// The value of pagoda function `i` on `pos`, by byte tables.
    #[inline]
    fn pagoda_value(&self, i: usize, pos: B) -> i64 {
        let t = &self.pagoda_tables[i * self.nbytes..(i + 1) * self.nbytes];
        (0..self.nbytes).map(|k| t[k][pos.byte(k)] as i64).sum()
    }

    /// The total of per-hole `weights` over the pegs of `pos`.
    pub fn weigh(&self, pos: B, weights: &[i64]) -> i64 {
        pos.ones()
            .map(|b| self.bit_hole[b].map_or(0, |h| weights[h]))
            .sum()
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

    /// Fills the dense-key tables (boards of at most 48 holes).
    fn build_key_tables(&mut self) {
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

    /// The dense key of `pos` (see [`Problem::build_key_tables`]).
    #[inline(always)]
    fn key_of(&self, pos: B) -> u64 {
        self.key_table
            .iter()
            .enumerate()
            .fold(0, |key, (k, t)| key | t[pos.byte(k)])
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

    /// Number of holes with a peg.
    pub fn peg_count(&self, pos: B) -> u32 {
        pos.count()
    }

    /// Writes a move as `from-to`.
    pub fn move_name(&self, j: u16) -> String {
        let jp = self.board.jumps()[j as usize];
        format!(
            "{}-{}",
            self.board.hole_name(jp.from),
            self.board.hole_name(jp.to)
        )
    }
}

impl<B: Bits> Rules for Problem<B> {
    type Position = B;
    type Move = u16;

    fn start(&self) -> B {
        self.start
    }

    #[inline]
    fn for_each_move(&self, pos: &B, mut f: impl FnMut(u16)) {
        self.each_jump(*pos, true, |j| f(j as u16));
    }

    #[inline]
    fn play_unchecked(&self, pos: &B, mv: u16) -> B {
        *pos ^ self.jump_mask[mv as usize]
    }

    fn is_legal(&self, pos: &B, mv: u16) -> bool {
        let Some(jp) = self.board.jumps().get(mv as usize) else {
            return false;
        };
        let p = *pos;
        p.has(self.hole_bit[jp.from])
            && p.has(self.hole_bit[jp.over])
            && !p.has(self.hole_bit[jp.to])
    }
}

impl<B: Bits> Puzzle for Problem<B> {
    fn score(&self, pos: &B) -> u32 {
        pos.count()
    }

    fn is_goal(&self, pos: &B) -> bool {
        match self.goal {
            Goal::Pattern(_) => *pos == self.goal_mask,
            Goal::AnyOne => pos.count() == 1,
        }
    }

    fn cannot_reach_goal(&self, pos: &B) -> bool {
        let n = pos.count();
        let bound = self.score_bound();
        if n < bound {
            return true;
        }
        if let Some((_, goal_classes)) = &self.classes {
            if !goal_classes.contains(&self.class_bits(*pos)) {
                return true;
            }
        }
        self.pagodas
            .iter()
            .enumerate()
            .any(|(i, (_, need))| self.pagoda_value(i, *pos) < *need)
    }

    fn search_order(&self, pos: &B) -> i64 {
        self.order_tables
            .iter()
            .enumerate()
            .map(|(k, t)| t[pos.byte(k)] as i64)
            .sum()
    }

    fn score_bound(&self) -> u32 {
        match &self.goal {
            Goal::Pattern(h) => h.len() as u32,
            Goal::AnyOne => 1,
        }
    }
}

impl<B: Bits> Symmetric for Problem<B> {
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

impl<B: Bits> DenseKeys<B> for Problem<B> {
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
            let holes = self.unkey(u64::MAX >> (64 - self.board.holes())).low_u64(0);
            let start = out.len();
            out.extend(pos.iter().map(|p| p.low_u64(0)));
            // SAFETY: the CPU has BMI2 (checked above).
            unsafe { pext_all(&mut out[start..], holes) };
            return;
        }
        out.extend(pos.iter().map(|&p| self.key_of(p)));
    }

    fn positions(&self, keys: &[u64], out: &mut Vec<B>) {
        out.extend(keys.iter().map(|&k| self.unkey(k)));
    }

    fn child_keys(&self, parents: &[B], out: &mut Vec<u64>) {
        // The children first, then their keys in one pass (`keys`).
        let mut children = Vec::with_capacity(parents.len() * 8);
        for &p in parents {
            self.neighbours(p, true, |c, _| children.push(c));
        }
        self.keys(&children, out);
    }
}

impl<B: Bits> Reversible for Problem<B> {
    fn goals(&self) -> Vec<B> {
        match &self.goal {
            Goal::Pattern(_) => vec![self.goal_mask],
            Goal::AnyOne => (0..self.board.holes())
                .map(|h| B::bit(self.hole_bit[h]))
                .collect(),
        }
    }

    fn for_each_parent(&self, pos: &B, mut f: impl FnMut(B)) {
        self.each_jump(*pos, false, |j| f(*pos ^ self.jump_mask[j]));
    }

    fn reversal(&self, pos: &B) -> Option<B> {
        self.complement.map(|board| board ^ *pos)
    }

    #[inline]
    fn for_each_canonical_parent_orbit(&self, pos: &B, f: impl FnMut(B, u32)) -> bool {
        self.neighbours(*pos, false, f);
        true
    }
}

impl<B: Bits> Notation for Problem<B> {
    type Error = PegError;

    fn format_move(&self, mv: u16) -> String {
        self.move_name(mv)
    }

    fn parse_move(&self, s: &str) -> Result<u16, PegError> {
        let t = s.trim();
        let (a, b) = t
            .split_once('-')
            .ok_or_else(|| PegError::BadMove(t.to_string()))?;
        let (from, to) = (self.board.hole(a)?, self.board.hole(b)?);
        self.board
            .jumps()
            .iter()
            .position(|j| j.from == from && j.to == to)
            .map(|j| j as u16)
            .ok_or_else(|| {
                PegError::IllegalMove(
                    t.to_string(),
                    "the holes are not two apart in a line with a hole between".into(),
                )
            })
    }

    fn format_position(&self, pos: &B) -> String {
        crate::notation::format_position(&self.board, |h| self.has_peg(*pos, h))
    }

    fn parse_position(&self, s: &str) -> Result<B, PegError> {
        let pegs = crate::notation::parse_position(&self.board, s)?;
        Ok(self.position_of((0..pegs.len()).filter(|&h| pegs[h])))
    }
}

impl<B: Bits> endgame_core::genetic::WeightGuided for Problem<B> {
    fn class_count(&self) -> usize {
        self.hole_class.iter().max().map_or(0, |m| m + 1)
    }

    fn weighted_total(&self, pos: &B, weights: &[u32]) -> i64 {
        pos.ones()
            .filter_map(|b| self.bit_hole[b])
            .map(|h| weights[self.hole_class[h]] as i64)
            .sum()
    }

    fn goal_distance(&self, pos: &B) -> u32 {
        match self.goal {
            Goal::Pattern(_) => (*pos ^ self.goal_mask).count(),
            Goal::AnyOne => pos.count().saturating_sub(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::layered::{enumerate, LayeredError, LayeredOptions, Silent};

    fn problem<B: Bits>(board: &str, vacate: &[&str], goal: Option<&str>) -> Problem<B> {
        let b = Arc::new(Board::named(board, false).unwrap());
        let empty: Vec<usize> = vacate.iter().map(|h| b.hole(h).unwrap()).collect();
        let start: Vec<bool> = (0..b.holes()).map(|h| !empty.contains(&h)).collect();
        let goal = match goal {
            Some(h) => Goal::Pattern(vec![b.hole(h).unwrap()]),
            None => Goal::AnyOne,
        };
        Problem::new(b, &start, goal, Pruning::default()).unwrap()
    }

    /// Positions along random lines of play from the start.
    fn sample<B: Bits>(p: &Problem<B>) -> Vec<B> {
        let mut out = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..40 {
            let mut pos = p.start();
            loop {
                out.push(pos);
                let moves = p.moves(&pos);
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos = p.play_unchecked(&pos, moves[(seed >> 33) as usize % moves.len()]);
            }
        }
        out
    }

    /// The fast symmetry routes (delta swaps, XOR images, orbit counts)
    /// agree with the byte tables and the trait's plain definitions.
    fn fast_routes_agree<B: Bits>(p: &Problem<B>) {
        let n = p.group.len();
        for pos in sample(p) {
            let images: Vec<B> = (0..n)
                .map(|g| {
                    let base = g * p.nbytes;
                    (0..p.nbytes).fold(B::ZERO, |o, k| o | p.sym_table[base + k][pos.byte(k)])
                })
                .collect();
            for (g, &img) in images.iter().enumerate() {
                assert_eq!(p.transform(g, pos), img, "{}: symmetry {g}", p.board.name());
            }
            let mut distinct = images.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(p.canonical(&pos), distinct[0]);
            assert_eq!(p.orbit_size(&pos), distinct.len() as u32);
            assert_eq!(
                p.canonical_and_orbit(&pos),
                (distinct[0], distinct.len() as u32)
            );
            let mut fast = Vec::new();
            p.for_each_canonical_child_orbit(&pos, |c, o| fast.push((c, o)));
            let mut plain = Vec::new();
            p.for_each_move(&pos, |m| {
                let c = p.play_unchecked(&pos, m);
                plain.push((p.canonical(&c), p.orbit_size(&c)));
            });
            assert_eq!(fast, plain, "children of {pos:?}");
            let mut fast = Vec::new();
            assert!(p.for_each_canonical_parent_orbit(&pos, |c, o| fast.push((c, o))));
            let mut plain = Vec::new();
            p.for_each_parent(&pos, |q| plain.push((p.canonical(&q), p.orbit_size(&q))));
            assert_eq!(fast, plain, "parents of {pos:?}");
        }
    }

    #[test]
    fn gfni_images_agree_with_the_delta_swaps() {
        if !gfni_simd() {
            eprintln!("no AVX-512 with GFNI here: nothing to compare");
            return;
        }
        let rect = Arc::new(Board::from_art("rect", "ooooo/ooooo/ooooo", false).unwrap());
        let start: Vec<bool> = (0..rect.holes()).map(|h| h != 0).collect();
        let rect: Problem<u64> =
            Problem::new(rect, &start, Goal::AnyOne, Pruning::default()).unwrap();
        let english: Problem<u64> = problem("english", &["d4"], Some("d4"));
        let french: Problem<u128> = problem("french", &["d4"], None);
        fn check<B: Bits>(p: &Problem<B>) {
            let d4 = p.d4.as_ref().expect("a grid board has delta swaps");
            for pos in sample(p) {
                // SAFETY: checked above that the CPU has the features.
                let fast = unsafe { d4_gfni(d4, pos) };
                assert_eq!(fast, d4.all(pos), "{}: {pos:?}", p.board.name());
            }
        }
        check(&rect);
        check(&english);
        check(&french);
    }

    /// The time reversal exists exactly when the goal is the start's
    /// complement, and turns every jump round: q is a child of p exactly
    /// when σ(p) is a child of σ(q).
    #[test]
    fn the_reversal_is_the_complement_of_a_self_complementary_game() {
        let central: Problem<u64> = problem("english", &["d4"], Some("d4"));
        let goal = central.goals()[0];
        assert_eq!(central.reversal(&central.start()), Some(goal));
        for pos in sample(&central) {
            let s = central.reversal(&pos).expect("a reversal");
            assert_eq!(central.reversal(&s), Some(pos));
            assert_eq!(s.count() + pos.count(), 33);
            central.for_each_move(&pos, |m| {
                let child = central.play_unchecked(&pos, m);
                let sc = central.reversal(&child).expect("a reversal");
                let mut found = false;
                central.for_each_move(&sc, |n| found |= central.play_unchecked(&sc, n) == s);
                assert!(found, "σ of {pos:?} is not a child of σ of its child");
            });
        }
        assert_eq!(
            problem::<u64>("english", &["d4"], Some("c4")).reversal(&goal),
            None
        );
        assert_eq!(
            problem::<u64>("english", &["d4"], None).reversal(&goal),
            None
        );
    }

    #[test]
    fn fast_symmetry_routes_agree_with_the_definitions() {
        fast_routes_agree(&problem::<u64>("english", &["d4"], Some("d4")));
        fast_routes_agree(&problem::<u64>("english", &["c1"], None));
        fast_routes_agree(&problem::<u64>("french", &["d4"], None));
        fast_routes_agree(&problem::<u64>("triangle", &["a1"], None));
        fast_routes_agree(&problem::<u128>("wiegleb", &["e5"], Some("e5")));
        fast_routes_agree(&problem::<u128>("diamond", &["e5"], None));
        let english: Problem<u64> = problem("english", &["d4"], Some("d4"));
        assert!(english.d4.is_some(), "the English board uses delta swaps");
    }

    /// The goal-only enumeration (from both ends, with and without
    /// pruning, with a tight budget) agrees with the full one.
    fn modes_agree<B: Bits>(p: &Problem<B>) {
        let full = enumerate(p, &LayeredOptions::default(), &Silent).unwrap();
        assert!(full.complete);
        for opts in [
            LayeredOptions {
                count_all: false,
                ..LayeredOptions::default()
            },
            LayeredOptions {
                count_all: false,
                prune: true,
                ..LayeredOptions::default()
            },
            LayeredOptions {
                prune: true,
                ..LayeredOptions::default()
            },
            LayeredOptions {
                count_all: false,
                count_solutions: false,
                ..LayeredOptions::default()
            },
        ] {
            let r = enumerate(p, &opts, &Silent).unwrap();
            assert!(!r.complete);
            // Without counting, the mirrored route leaves the count out;
            // with it, it counts from the shallower half alone, without
            // the solutions through each first move.
            let mirrored = !opts.count_all && p.reversal(&p.start()).is_some();
            let expected = if mirrored && !opts.count_solutions {
                None
            } else {
                full.solutions
            };
            assert_eq!(r.solutions, expected, "{opts:?}");
            assert_eq!(r.goal_reachable, full.goal_reachable);
            let good = |r: &endgame_core::layered::LayeredReport<B>| {
                r.layers
                    .iter()
                    .map(|l| (l.to_goal_reduced, l.to_goal_raw))
                    .filter(|&x| x != (0, 0))
                    .collect::<Vec<_>>()
            };
            assert_eq!(good(&r), good(&full), "{opts:?}");
            if !mirrored {
                assert_eq!(r.child_solutions, full.child_solutions);
            }
        }
    }

    #[test]
    fn goal_only_enumeration_agrees_with_the_full_one() {
        modes_agree(&problem::<u64>("triangle", &["a1"], None));
        modes_agree(&problem::<u64>("triangle", &["c3"], Some("c3")));
        modes_agree(&problem::<u64>("triangle6", &["a1"], None));
        modes_agree(&problem::<u64>(
            "english",
            &["d4", "c4", "e4", "d3", "d5"],
            None,
        ));
    }

    #[test]
    fn goal_only_enumeration_agrees_when_the_middle_is_one_layer() {
        // An even number of moves: the two halves meet in one layer,
        // mirrored onto itself, rather than across the middle move.
        let mut met = 0;
        for (art, diagonal) in [("oooo/oooo/oooo/oooo", false), ("oooo/oooo/oooo", true)] {
            let b = Arc::new(Board::from_art("even", art, diagonal).unwrap());
            assert_eq!(b.holes() % 2, 0);
            for h in 0..b.holes() {
                let start: Vec<bool> = (0..b.holes()).map(|k| k != h).collect();
                let goal = Goal::Pattern(vec![h]);
                let p: Problem<u64> =
                    Problem::new(b.clone(), &start, goal, Pruning::default()).unwrap();
                if p.reversal(&p.start()).is_none() {
                    continue;
                }
                let full = enumerate(&p, &LayeredOptions::default(), &Silent).unwrap();
                if full.goal_reachable {
                    modes_agree(&p);
                    met += 1;
                }
            }
        }
        assert!(met > 0, "no solvable problem with an even number of moves");
    }

    #[test]
    fn english_goal_only_counts_match_published_ones() {
        let p: Problem<u64> = problem("english", &["d4"], Some("d4"));
        let opts = LayeredOptions {
            count_all: false,
            // Tight enough that the largest layers are built in batches.
            max_bytes: 300 << 20,
            ..LayeredOptions::default()
        };
        let r = enumerate(&p, &opts, &Silent).unwrap();
        // A112738: positions that can still reach one peg in the centre.
        let head: [u64; 16] = [
            1, 1, 2, 8, 38, 164, 635, 2089, 6174, 16020, 35749, 68326, 112788, 162319, 204992,
            230230,
        ];
        let good: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
        assert_eq!(&good[..16], &head[..]);
        assert_eq!(good.iter().sum::<u64>(), 1_679_072);
        assert_eq!(r.solutions, Some(40_861_647_040_079_968));
        // The same set from the two ends alone, without the counting pass.
        let opts = LayeredOptions {
            count_solutions: false,
            ..opts
        };
        let r = enumerate(&p, &opts, &Silent).unwrap();
        let mirrored: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
        assert_eq!(mirrored, good);
        assert_eq!(r.solutions, None);
        // Too tight for the meeting's semi-join: the gathered route.
        let r = enumerate(
            &p,
            &LayeredOptions {
                max_bytes: 200 << 20,
                ..opts
            },
            &Silent,
        )
        .unwrap();
        let gathered: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
        assert_eq!(gathered, good);
    }

    #[test]
    fn a_small_budget_is_reported() {
        let p: Problem<u64> = problem("english", &["d4"], Some("d4"));
        let opts = LayeredOptions {
            max_bytes: 4 << 20,
            ..LayeredOptions::default()
        };
        let e = enumerate(&p, &opts, &Silent).unwrap_err();
        let LayeredError::MemoryBudget { budget, .. } = e else {
            panic!("expected the memory budget error, got {e}");
        };
        assert_eq!(budget, 4 << 20);
    }

    #[test]
    fn search_order_finds_the_english_solution_quickly() {
        let p: Problem<u64> = problem("english", &["d4"], Some("d4"));
        let r = endgame_core::dfs::solve(&p, &p.start(), &Default::default());
        assert!(r.reached_goal);
        assert!(r.expansions < 2_000, "{} expansions", r.expansions);
    }
}
