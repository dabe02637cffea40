//! The row word: a row of stones as one `u64` of 7-bit lanes (first
//! stone in the low lane, zero lanes after the last), stone codes, and the
//! whole-row bit tricks on it (length, lane access, removal, the
//! "shares colour or symbol" test of all neighbours at once).

/// Bits of one lane.
pub(super) const LANE: usize = 7;
/// Bit 6 of each of the eight lanes (the stone marks).
pub(super) const MARKS: u64 = 0x0081_0204_0810_2040;
/// The colour fields (bits 3–5) of the eight lanes.
pub(super) const COLOURS: u64 = 0x0070_E1C3_870E_1C38;
/// The symbol fields (bits 0–2) of the eight lanes.
pub(super) const SYMBOLS: u64 = 0x000E_1C38_70E1_C387;
/// Bit 3 of each lane.
pub(super) const BIT3: u64 = MARKS >> 3;

/// The lane of the stone of colour `c` and symbol `s`.
#[inline(always)]
pub fn code(c: usize, s: usize) -> u64 {
    0x40 | (c as u64) << 3 | s as u64
}

/// The id (`colour · n + symbol`) of the stone in lane `v`.
#[inline(always)]
pub(super) fn id_of(n: usize, v: u64) -> u8 {
    ((v >> 3 & 7) as usize * n + (v & 7) as usize) as u8
}

/// The lane of stone `id`.
#[inline(always)]
pub(super) fn code_of(n: usize, id: u8) -> u64 {
    code(id as usize / n, id as usize % n)
}

/// Number of stones in a packed row.
#[inline(always)]
pub fn row_len(row: u64) -> usize {
    (64 - row.leading_zeros() as usize) / LANE
}

/// Lane `i` of `row`.
#[inline(always)]
pub(super) fn lane(row: u64, i: usize) -> u64 {
    (row >> (LANE * i)) & 0x7F
}

/// The row with the stone at index `i` removed.
#[inline(always)]
pub(super) fn remove_at(row: u64, i: usize) -> u64 {
    let low = row & ((1u64 << (LANE * i)) - 1);
    // i ≤ 7, so the shift is at most 56.
    let high = (row >> (LANE * (i + 1))) << (LANE * i);
    low | high
}

/// The row with lane `i` set to `v`.
#[inline(always)]
pub(super) fn set_at(row: u64, i: usize, v: u64) -> u64 {
    (row & !(0x7Fu64 << (LANE * i))) | (v << (LANE * i))
}

/// Whether the stones in lanes `a` and `b` share colour or symbol (the
/// tests' reference for the whole-row test).
#[cfg(test)]
pub(super) fn lanes_compatible(a: u64, b: u64) -> bool {
    let x = a ^ b;
    x & 0x38 == 0 || x & 7 == 0
}

/// Bit 3 of lane `i` set when stones `i` and `i + 1` of `row` share
/// colour or symbol (whole-lane bit operations, no loop).
#[inline(always)]
pub(super) fn compatible_neighbours(row: u64) -> u64 {
    compatible_lanes(row, row >> LANE)
}

/// Bit 3 of lane `i` set when lane `i` of `row` and lane `i` of `next`
/// both hold stones that share colour or symbol.
#[inline(always)]
pub(super) fn compatible_lanes(row: u64, next: u64) -> u64 {
    let x = row ^ next;
    // Adding 7 to a 3-bit field carries out of it exactly when the field
    // is not zero (no carry leaves the lane: bit 6 of `x & COLOURS` is 0).
    let colour_differs = ((x & COLOURS) + COLOURS) & MARKS;
    let symbol_differs = ((x & SYMBOLS) + SYMBOLS) & BIT3;
    let both = (row & next & MARKS) >> 3;
    both & !((colour_differs >> 3) & symbol_differs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::rows::GATHER;

    /// A row of the given (colour, symbol) stones.
    fn row_of(stones: &[(usize, usize)]) -> u64 {
        stones
            .iter()
            .enumerate()
            .fold(0, |r, (i, &(c, s))| r | code(c, s) << (LANE * i))
    }

    #[test]
    fn row_bit_tricks() {
        let st = [(0, 1), (2, 3), (4, 5), (6, 7), (1, 0)];
        let row = row_of(&st);
        assert_eq!(row_len(row), 5);
        assert_eq!(row_len(0), 0);
        assert_eq!(remove_at(row, 0), row_of(&st[1..]));
        assert_eq!(remove_at(row, 4), row_of(&st[..4]));
        assert_eq!(remove_at(row, 2), row_of(&[(0, 1), (2, 3), (6, 7), (1, 0)]));
        assert_eq!(
            set_at(row, 1, code(5, 5)),
            row_of(&[(0, 1), (5, 5), (4, 5), (6, 7), (1, 0)])
        );
        let full: Vec<_> = (0..8).map(|i| (i, 7 - i)).collect();
        let full_row = row_of(&full);
        assert_eq!(row_len(full_row), 8);
        assert_eq!(remove_at(full_row, 7), row_of(&full[..7]));
        assert_eq!(remove_at(full_row, 0), row_of(&full[1..]));
        assert_eq!(lane(full_row, 7), code(7, 0));
    }

    /// The whole-row neighbour test against the pair test, on random rows
    /// of every length (colours and symbols 0 … 7).
    #[test]
    fn compatible_neighbours_match_the_pair_test() {
        let mut rng = endgame_core::restarts::Rng::new(11);
        for _ in 0..20_000 {
            let k = rng.below(9);
            let st: Vec<_> = (0..k).map(|_| (rng.below(8), rng.below(8))).collect();
            let row = row_of(&st);
            let mut want = 0u64;
            for i in 1..k {
                if lanes_compatible(lane(row, i - 1), lane(row, i)) {
                    want |= 8 << (LANE * (i - 1));
                }
            }
            assert_eq!(compatible_neighbours(row), want, "{st:?}");
            // The gathered form RowInfo keeps: bit i for the pair i, i + 1.
            let gathered = ((compatible_neighbours(row) >> 3).wrapping_mul(GATHER) >> 36) & 0x7F;
            for i in 0..7 {
                assert_eq!(gathered >> i & 1, want >> (LANE * i + 3) & 1, "{st:?}");
            }
            for i in 1..k {
                let (a, b) = (st[i - 1], st[i]);
                assert_eq!(
                    lanes_compatible(lane(row, i - 1), lane(row, i)),
                    a.0 == b.0 || a.1 == b.1
                );
            }
        }
    }
}
