//! One root's downstream space: the root's stones in the quadrant frames,
//! its empty cells and the parity of its rotation states; the sizes and
//! colex layout of its layers (a block per first-player stone set); the
//! fives of each player's stone sets; and the options of the passes over
//! it (the sweep, in `sweep.rs`), with their defaults.

use super::cpu::fast_available;
use super::state::Line;
use super::tables::{fives, subsets, tables};
use crate::board::bits_of;
use crate::game::Position;
use rayon::prelude::*;
use std::sync::Arc;

/// A gather whose two layers take more bytes than this together moves the
/// pages of the layer it reads, as they stop being read, to the layer it
/// writes (see [`Space::gather`]): at 18 empty cells with both questions
/// in one sweep (32 bytes a node) the largest pair of layers would take
/// 1.02 GB, four pairs more than 0.8 GB. A low threshold costs nothing (a
/// move is a page-table update) and lowers the peak and the page faults
/// (the figures of 200 against 600 MiB: the README's benchmark section).
pub(super) const RELEASE_ABOVE: usize = 200 << 20;

/// A gather writing a layer of more bytes than this (with the AVX2 code)
/// uses non-temporal stores: such a layer is read back from memory by the
/// next gather anyway, and the stores skip reading the lines they replace.
pub(super) const STREAM_ABOVE: usize = 64 << 20;

/// One root's downstream space: the root's stones in the quadrant frames
/// (`first` for the player to move at layer 0, `second` for the other),
/// its empty cells, and the parity of the layer-0 rotation states.
pub(super) struct Space {
    pub(super) first: u64,
    pub(super) second: u64,
    pub(super) empty: Vec<u8>,
    pub(super) parity0: usize,
    /// Gathers whose two layers take more bytes than this move pages
    /// between the layers ([`RELEASE_ABOVE`]; tests lower it).
    pub(super) release_above: usize,
    /// Whether to run the code compiled for AVX2 and BMI2
    /// ([`fast_available`]; tests compare it with the portable code).
    pub(super) fast: bool,
    /// Whether a gather turns its nodes as it writes them (else a pass of
    /// its own; tests compare the two).
    pub(super) fuse_turn: bool,
    /// Layers of more bytes are written with non-temporal stores
    /// ([`STREAM_ABOVE`]; tests lower it).
    pub(super) stream_above: usize,
    /// The last fives computed per player ([`Space::fives_kept`]).
    pub(super) fives_kept: std::sync::Mutex<[Option<KeptFives>; 2]>,
}

/// A player's stone count and the fives of its sets of that count.
type KeptFives = (u32, Arc<Vec<Line>>);

impl Space {
    pub(super) fn n(&self) -> u32 {
        self.empty.len() as u32
    }

    /// Stones of the first (even `j`) and second player at layer `j`.
    pub(super) fn counts(&self, j: u32) -> (u32, u32) {
        (j.div_ceil(2), j / 2)
    }

    pub(super) fn binom(&self, n: u32, k: u32) -> usize {
        if k > n {
            0
        } else {
            tables().binom[n as usize][k as usize] as usize
        }
    }

    pub(super) fn size(&self, j: u32) -> usize {
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
    pub(super) fn deposit(&self, mut v: u32, m: u32) -> u32 {
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
    pub(super) fn fives_at(&self, k: u32) -> (Arc<Vec<Line>>, Arc<Vec<Line>>, Vec<u32>) {
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
}

impl Space {
    /// A space of `n` empty cells and no stones: its layers' sizes and
    /// layout are those of every root with `n` empty cells.
    pub(super) fn blank(n: u32) -> Space {
        let mut sp = space(&Position::new(0, 0, false).expect("the empty board"));
        sp.empty.truncate(n as usize);
        sp
    }
}

pub(super) fn space(pos: &Position) -> Space {
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
