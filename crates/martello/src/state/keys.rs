//! Memo keys of states without symmetry: four words for n ≤ 6, seven
//! for any n; both injective (each row ends its stones with zero lanes).

use super::{Martello, State};
use crate::board::MAX_N;

impl Martello {
    /// Key of `s` without symmetry for n ≤ 6: the rows' lanes (42 bits a
    /// row) in 4 words (see [`key4_rows`]; each row ends its stones with
    /// zero lanes, so the key is injective).
    #[inline(always)]
    pub fn key4(&self, s: &State) -> [u64; 4] {
        debug_assert!(self.n <= 6);
        key4_rows(&s.rows)
    }

    /// Key of `s` without symmetry for any n (7 words: eight rows of 56
    /// bits).
    #[inline(always)]
    pub fn key7(&self, s: &State) -> [u64; 7] {
        key7_rows(&s.rows)
    }
}

/// The memo key of a state made from its rows alone: what the lazy
/// expansion ([`Martello::lazy_children`]) makes for each child from the
/// parent's rows with the changed ones replaced.
pub trait RowKey: Copy {
    /// The key of the state whose rows are `rows`.
    fn of_rows(rows: &[u64; MAX_N]) -> Self;
}

impl RowKey for [u64; 4] {
    #[inline(always)]
    fn of_rows(rows: &[u64; MAX_N]) -> Self {
        key4_rows(rows)
    }
}

impl RowKey for [u64; 7] {
    #[inline(always)]
    fn of_rows(rows: &[u64; MAX_N]) -> Self {
        key7_rows(rows)
    }
}

/// Eight rows of 56 bits in 7 words (any n; see [`Martello::key7`]).
#[inline(always)]
pub(super) fn key7_rows(r: &[u64; MAX_N]) -> [u64; 7] {
    let mut out = [0u64; 7];
    for (i, &row) in r.iter().enumerate() {
        let (bit, w) = (56 * i % 64, 56 * i / 64);
        out[w] |= row << bit;
        if bit > 8 {
            out[w + 1] |= row >> (64 - bit);
        }
    }
    out
}

/// 0–3, row 4 in the high 22 bits of words 0 and 1 (its low 22 bits, then
/// the rest), row 5 likewise in words 2 and 3.
#[inline(always)]
pub(super) fn key4_rows(r: &[u64; MAX_N]) -> [u64; 4] {
    [
        r[0] | r[4] << 42,
        r[1] | (r[4] >> 22) << 42,
        r[2] | r[5] << 42,
        r[3] | (r[5] >> 22) << 42,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    #[test]
    fn keys_are_injective_on_children() {
        let m = Martello::new(6, State::from_board(&Board::random(6, 3).unwrap())).unwrap();
        let mut seen = std::collections::HashMap::new();
        let mut seen7 = std::collections::HashMap::new();
        let mut frontier = vec![m.start];
        for _ in 0..3 {
            let mut next = Vec::new();
            for s in &frontier {
                for (_, c) in m.children(s) {
                    let k = m.key4(&c);
                    if let Some(old) = seen.insert(k, c) {
                        assert_eq!(old, c);
                    }
                    if let Some(old) = seen7.insert(m.key7(&c), c) {
                        assert_eq!(old, c);
                    }
                    next.push(c);
                }
            }
            frontier = next;
        }
    }

    /// key7 keeps every row whole, n = 8 included.
    #[test]
    fn key7_holds_every_row() {
        let m = Martello::new(8, State::from_board(&Board::random(8, 5).unwrap())).unwrap();
        let s = m.start;
        let k = m.key7(&s);
        let mut bits = [0u8; 448];
        for (w, word) in k.iter().enumerate() {
            for b in 0..64 {
                bits[64 * w + b] = (word >> b & 1) as u8;
            }
        }
        for r in 0..8 {
            let mut row = 0u64;
            for b in 0..56 {
                row |= u64::from(bits[56 * r + b]) << b;
            }
            assert_eq!(row, s.rows[r]);
        }
    }
}
