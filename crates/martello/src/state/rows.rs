//! The move generator's per-row data ([`RowInfo`]): every row's first
//! and last stone side by side and every row's horizontal pairs, kept in
//! each [`State`] and updated for the rows an operation changes.

use super::lanes::{compatible_lanes, compatible_neighbours, LANE, MARKS};
use super::State;

/// What the move generator needs of the rows: every row's first and
/// last stone side by side (lane r: row r), for the vertical pairs of all
/// rows at once, and every row's horizontal pairs. (Which rows hold a
/// stone, or two, follows from the first and last stones: see
/// [`RowInfo::long`].)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RowInfo {
    /// Lane r: the first stone of row r.
    pub(super) first: u64,
    /// Lane r: the last stone of row r.
    pub(super) last: u64,
    /// Bit 7r + i: stones i and i + 1 of row r can eat each other.
    pub(super) pairs: u64,
}

/// The low six bits of each of the eight lanes.
const LOW6: u64 = (MARKS >> 6) * 0x3F;

/// Bits 7r (r ≤ 6) moved to bits r (see [`GATHER`]).
#[inline(always)]
pub(super) fn gather(w: u64) -> u32 {
    ((w & (MARKS >> 6) & ((1 << 49) - 1)).wrapping_mul(GATHER) >> 36) as u32 & 0x7F
}

impl RowInfo {
    #[inline]
    pub(super) fn of(n: usize, s: &State) -> RowInfo {
        let mut info = RowInfo::default();
        for r in 0..n {
            info.set_row(r, s.rows[r]);
        }
        info
    }

    /// Sets row `r`'s part of the data to that of `row`.
    #[inline(always)]
    pub(super) fn set_row(&mut self, r: usize, row: u64) {
        let at = LANE * r;
        let lane = 0x7Fu64 << at;
        // Bit 3 of lane i (i ≤ 6) of the neighbour test moved to bit i by
        // one multiplication (see `GATHER`).
        let near = compatible_neighbours(row) >> 3;
        self.pairs = (self.pairs & !lane) | ((near.wrapping_mul(GATHER) >> 36) & 0x7F) << at;
        self.first = (self.first & !lane) | (row & 0x7F) << at;
        // The last stone's mark (bit 6 of its lane) is the row's top bit;
        // `| 0x40` makes an empty row's shift 0.
        let top = 63 - (row | 0x40).leading_zeros();
        self.last = (self.last & !lane) | (row >> (top - 6)) << at;
    }

    /// Bit 3 of lane r: row r holds two stones or more (its first and last
    /// stones differ: lane-wise "is not zero" of their difference).
    #[inline(always)]
    pub(super) fn long(&self) -> u64 {
        let x = self.first ^ self.last;
        ((((x & LOW6) + LOW6) | x) & MARKS) >> 3
    }

    /// The rows whose lone stone leaving would cut the board of a state
    /// that is not cut ([`split`]): the new empty row lies strictly
    /// inside the occupied span, next to an empty one (emptying the first
    /// or last occupied row only shrinks the span).
    #[inline(always)]
    pub(super) fn cuts(&self) -> u32 {
        // Rows with a stone (its mark), and with two (first ≠ last); the
        // lazy expansion's n ≤ 6 rows fit the gather.
        let occ = gather(self.first >> 6);
        let multi = gather(self.long() >> 3);
        if occ == 0 {
            return 0;
        }
        let (lo, hi) = (occ.trailing_zeros(), 31 - occ.leading_zeros());
        let inner = ((1u32 << hi) - 1) & !((2u32 << lo) - 1);
        let empty = !occ;
        occ & !multi & inner & (empty << 1 | empty >> 1)
    }

    /// The vertical pairs and double jumps, in the order
    /// [`Martello::for_each_pair`] yields them: bit 3 + k of lane r is the
    /// pair of rows r and r + 1 (k = 0, 1) or r + 2 (k = 2, 3) in column
    /// 0 (k even: first stones) or n-1 (k odd: last stones; the same pair
    /// as column 0 unless one of the rows holds two stones or more). A
    /// double jump passes over a row of at most one stone.
    #[inline(always)]
    pub(super) fn vertical(&self) -> u64 {
        let (first, last, long) = (self.first, self.last, self.long());
        let over = !(long >> LANE);
        compatible_lanes(first, first >> LANE)
            | (compatible_lanes(last, last >> LANE) & (long | long >> LANE)) << 1
            | (compatible_lanes(first, first >> (2 * LANE)) & over) << 2
            | (compatible_lanes(last, last >> (2 * LANE)) & over & (long | long >> (2 * LANE))) << 3
    }
}

/// `Σ 1 << (36 - 6k)` for k ≤ 6: times a word whose bits sit at 7k
/// (k ≤ 6), bit 7k lands on bit 36 + k, and no two products meet (so no
/// carries): bits 36 … 42 of the product are the seven bits gathered.
pub(super) const GATHER: u64 = {
    let mut g = 0u64;
    let mut k = 0;
    while k <= 6 {
        g |= 1 << (36 - 6 * k);
        k += 1;
    }
    g
};

#[cfg(test)]
mod tests {
    use super::super::symmetry::{mirror, relabel};
    use super::*;
    use crate::board::{Board, MAX_N};
    use crate::state::Martello;

    /// The per-row data kept in every state equals a recomputation from
    /// its rows: after operations (built and lazy), swaps, mirrors and
    /// relabellings, on random playouts for n = 1 … 8.
    #[test]
    fn kept_row_data_matches_a_recomputation() {
        let mut rng = endgame_core::restarts::Rng::new(5);
        let check = |s: &State| {
            let info = s.info.0;
            assert_eq!(info, RowInfo::of(MAX_N, s), "{s:?}");
            for r in 0..MAX_N {
                let long = info.long() >> (LANE * r + 3) & 1;
                assert_eq!(long, u64::from(s.rows[r] > 0x7F), "{s:?}");
            }
            let (occ, multi) = (gather(info.first >> 6), gather(info.long() >> 3));
            for r in 0..7 {
                assert_eq!(occ >> r & 1, u32::from(s.rows[r] != 0), "{s:?}");
                assert_eq!(multi >> r & 1, u32::from(s.rows[r] > 0x7F), "{s:?}");
            }
        };
        for n in 1..=8 {
            for seed in 0..40 {
                let m =
                    Martello::new(n, State::from_board(&Board::random(n, seed).unwrap())).unwrap();
                let mut s = m.start;
                loop {
                    check(&s);
                    check(&m.swapped(&s));
                    for i in 0..4 {
                        check(&mirror(n, &s, i));
                    }
                    check(&relabel(n, &s));
                    let kids = m.children(&s);
                    if kids.is_empty() {
                        break;
                    }
                    for (_, c) in &kids {
                        check(c);
                    }
                    if n <= 6 {
                        let mut lazy = Vec::new();
                        m.lazy_children4(&s, &mut lazy, false);
                        for (l, (_, c)) in lazy.iter().zip(&kids) {
                            let b = m.build_lazy(&s, l);
                            check(&b);
                            assert_eq!(b.info.0, c.info.0);
                        }
                    }
                    s = kids[rng.below(kids.len())].1;
                }
            }
        }
    }
}
