//! A peg-solitaire problem on a board: start, goal, symmetry, pruning —
//! and its bitboard implementation of the core traits.
//!
//! Bit layout. Holes sit at `row * stride + column` of a grid in which
//! every jump direction is a constant shift (square boards: the drawing
//! grid; triangular boards: axial coordinates), so the moves of a whole
//! direction are found with a few shifts and masks.
//!
//! One idea a file: the type and its plain accessors here; its
//! construction (bit layout and tables) in `build`; jumps, the rules and
//! the backward rules in `rules`; the goal test and pruning in `puzzle`;
//! the symmetry group in `symmetry`, with the delta-swap and SIMD images
//! of square boards in `d4`; dense keys in `dense`; the text notation in
//! `notation`; the genetic search's weights in `genetic`.

mod build;
mod d4;
mod dense;
mod genetic;
mod notation;
mod puzzle;
mod rules;
mod symmetry;

pub use crate::goal::Goal;
pub use build::bits_needed;

use crate::bits::Bits;
use crate::board::Board;
use crate::class::PositionClasses;
use crate::pagoda::Pagoda;
use d4::D4;
use dense::JumpBytes;
use rules::Dir;
use std::sync::Arc;
use std::time::Duration;

/// How long [`PegSolitaire::new`] spends deriving pagoda functions at most.
/// The built-in boards need a few milliseconds; a large custom board with
/// no symmetry can need minutes for all of them, and prunes with those
/// ready by then (the rest are derived by later problems on that board).
pub const PAGODA_TIME: Duration = Duration::from_secs(2);

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

/// Pagoda functions summed together in one pass (a lane group).
const PAGODA_LANES: usize = 8;

/// A peg-solitaire problem with `B`-bit bitboards.
#[derive(Clone)]
pub struct PegSolitaire<B: Bits> {
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
    /// On one-word boards of fewer than 256 jumps whose group has eight
    /// symmetries, with a CPU that has AVX-512 VBMI2 and GFNI: each
    /// direction's jumps as bytes, for `neighbour_keys_gfni`; empty
    /// otherwise.
    jump_bytes: Vec<JumpBytes>,
    classes: Option<(PositionClasses, Vec<u64>)>,
    /// The class invariants as bitboard masks.
    class_masks: Vec<B>,
    pagodas: Vec<(Pagoda, i64)>,
    /// The pagoda functions' byte tables, eight functions a lane group:
    /// `pagoda_lanes[((g * nbytes + k) << 8) | byte][l]` is the weight of
    /// byte k's pegs under function `8g + l` (0 past the last), so that
    /// one pass over a position's bytes sums eight functions at once.
    pagoda_lanes: Vec<[i32; PAGODA_LANES]>,
    /// Per lane group, the total each function needs (`i32::MIN` past
    /// the last, so that padding never fails).
    pagoda_need: Vec<[i32; PAGODA_LANES]>,
    /// class_tables[k][byte]: bit `i` is the parity of byte k's pegs on
    /// class mask `i` (the XOR over a position's bytes is its class).
    class_tables: Vec<[u64; 256]>,
    /// Class (orbit under the group) of each hole.
    hole_class: Vec<usize>,
    /// The fast symmetries of small square boards, when they apply.
    d4: Option<D4<B>>,
    /// Whether the CPU has AVX-512 (for [`PegSolitaire::neighbours_wide`]).
    wide: bool,
    /// Whether the CPU has AVX-512 and GFNI (for [`d4_gfni`]).
    gfni: bool,
    /// Whether the CPU has AVX2 (for the pagoda test on keys).
    avx2: bool,
    /// order_tables[k][byte]: search-order weight of byte k's pegs.
    order_tables: Vec<[i32; 256]>,
    /// Dense keys (one bit per hole, in bit order), on boards of at most
    /// 48 holes: key_table[k][byte] is the key of byte k's pegs,
    /// unkey_table[k][byte] the bitboard of key byte k.
    key_table: Vec<[u64; 256]>,
    unkey_table: Vec<[B; 256]>,
    /// The pagoda functions on dense keys, sixteen a lane group:
    /// `key_pagodas[((g * kbytes + k) << 8) | byte][l]` is the weight of
    /// key byte k's pegs under function `16g + l`; `None` when the board
    /// has no dense keys or a total could overflow 16 bits (then
    /// [`endgame_core::dense::DenseKeys::prune_keys`] is not offered).
    key_pagodas: Option<KeyPagodas>,
}

/// See [`PegSolitaire::key_pagodas`].
#[derive(Clone, Default)]
pub(crate) struct KeyPagodas {
    /// Key bytes.
    kbytes: usize,
    lanes: Vec<[i16; KEY_PAGODA_LANES]>,
    /// Per group, the total each function needs (`i16::MIN` past the
    /// last).
    need: Vec<[i16; KEY_PAGODA_LANES]>,
}

/// Pagoda functions summed at once on a key (one 256-bit add a key byte).
pub(crate) const KEY_PAGODA_LANES: usize = 16;

impl<B: Bits> std::fmt::Debug for PegSolitaire<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PegSolitaire")
            .field("board", &self.board.name())
            .field("start", &self.start)
            .field("goal", &self.goal)
            .finish()
    }
}

impl<B: Bits> PegSolitaire<B> {
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

    /// The total of per-hole `weights` over the pegs of `pos`.
    pub fn weigh(&self, pos: B, weights: &[i64]) -> i64 {
        pos.ones()
            .map(|b| self.bit_hole[b].map_or(0, |h| weights[h]))
            .sum()
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

#[cfg(test)]
mod tests;
