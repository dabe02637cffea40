//! Normalised states and operations.
//!
//! Only the *order* of the stones in each row matters to the rules:
//! horizontal neighbours are consecutive stones of a row at any distance,
//! the white columns hold a row's first and last stone (a lone stone may
//! stand in either), and a double jump passes over a row with at most one
//! stone (whose stone, if any, the player puts on the other side). So a
//! normalised state — every stone slid as far left as allowed — is the
//! sequence of stones of each row, and an operation (slides, one eat,
//! re-packing) is named by its eater and eaten stone: the eater leaves its
//! row and takes the eaten stone's place.
//!
//! A row is one `u64` of 7-bit lanes, first stone in the low lane, zero
//! lanes after the last stone. A stone of colour `c` and symbol `s` is
//! the lane `0x40 | c << 3 | s` (see [`code`]): the set bit 6 marks a
//! stone, and "shares colour or symbol" is a test of the lanes' two 3-bit
//! fields, done for all neighbours of a row at once.//!
//! One idea a module: [`lanes`] (the row word), [`rows`] (the move
//! generator's per-row data), [`moves`] (operations and lazy children),
//! [`classes`] (the "doomed" bound and [`Martello::floor`]), [`meet`]
//! (the meeting bound), [`keys`] (memo keys), [`symmetry`], [`rowwise`]
//! (the search with horizontal eats put off), and
//! [`puzzle`] (the [`Martello`] type and the core traits).

mod classes;
mod keys;
mod lanes;
mod meet;
mod moves;
mod puzzle;
mod rows;
mod rowwise;
mod symmetry;

pub use classes::{classes, connected_mask, split};
pub use keys::RowKey;
pub use lanes::{code, row_len};
pub use moves::Spots;
pub use puzzle::Martello;
pub use rowwise::{Rowwise, RowwiseResult};
pub use symmetry::mirror;

use crate::board::{Board, MartelloError, EMPTY, MAX_N};
use lanes::{code_of, id_of, lane, LANE};
use rows::RowInfo;

/// A normalised state: the stone sequence of each row.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct State {
    /// Row `r` as 7-bit lanes (stone codes, see [`code`]), first stone in
    /// the low lane.
    pub rows: [u64; MAX_N],
    /// Bit `id` set for every stone on the board (derived from `rows`,
    /// kept for the connectivity bound).
    pub present: u64,
    /// The board side (stone ids are `colour · n + symbol`).
    pub n: u8,
    /// Derived from `rows`: the state provably cannot reach one stone (its
    /// stones fall into several classes, or two empty rows cut the board).
    /// Kept up to date incrementally by every operation.
    pub doomed: bool,
    /// Derived from `rows`: the per-row data of the move generator
    /// ([`RowInfo::of`] of `rows`), kept up to date for the one or two
    /// rows an operation changes instead of recomputed per expansion.
    /// Ignored by comparisons and hashing (it is a function of `rows`).
    info: RowCache,
}

/// [`RowInfo`] inside a [`State`]: equal to every other and hashed as
/// nothing, so `State`'s derived comparisons and hash see the rows only.
#[derive(Clone, Copy, Debug, Default)]
struct RowCache(RowInfo);

impl PartialEq for RowCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RowCache {}

impl PartialOrd for RowCache {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RowCache {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl std::hash::Hash for RowCache {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One operation: `eater` eats `eaten` (stone ids).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Op {
    /// The stone that moves.
    pub eater: u8,
    /// The stone removed.
    pub eaten: u8,
}

impl State {
    /// The normalised state of a raw board (stones of each row, left to
    /// right).
    pub fn from_board(b: &Board) -> State {
        let n = b.n();
        let mut s = State {
            n: n as u8,
            ..State::default()
        };
        for r in 0..n {
            let mut k = 0;
            for c in 0..n {
                let v = b.get(r, c);
                if v != EMPTY {
                    s.rows[r] |= code_of(n, v) << (LANE * k);
                    s.present |= 1 << v;
                    k += 1;
                }
            }
        }
        s.doomed = split(&s) || !connected_mask(n, s.present);
        s.refresh();
        s
    }

    /// The state of `n`-board rows given as lanes (see [`State::rows`]).
    pub(crate) fn from_rows(n: usize, rows: &[u64; MAX_N]) -> State {
        let mut s = State {
            rows: *rows,
            n: n as u8,
            ..State::default()
        };
        for &row in rows {
            for i in 0..row_len(row) {
                s.present |= 1 << id_of(n, lane(row, i));
            }
        }
        s.doomed = split(&s) || !connected_mask(n, s.present);
        s.refresh();
        s
    }

    /// Recomputes the per-row data after `rows` changed wholesale.
    #[inline]
    fn refresh(&mut self) {
        self.info = RowCache(RowInfo::of(MAX_N, self));
    }

    /// Updates the per-row data after rows `a` and `b` changed (maybe
    /// the same row).
    #[inline(always)]
    fn refresh_rows(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.rows[a], self.rows[b]);
        self.info.0.set_row(a, ra);
        self.info.0.set_row(b, rb);
    }

    /// The normalised raw layout: a row of k ≥ 2 stones fills columns
    /// 0 … k-2 and n-1; a lone stone stands in column 0.
    pub fn to_board(&self, n: usize) -> Board {
        let mut b = Board::empty(n).expect("n checked by the caller");
        for r in 0..n {
            let row = self.row(r);
            let k = row.len();
            for (i, &id) in row.iter().enumerate() {
                let c = if k >= 2 && i == k - 1 { n - 1 } else { i };
                b.set(r, c, id);
            }
        }
        b
    }

    /// Reads a board string into its normalised state.
    pub fn parse(s: &str) -> Result<(usize, State), MartelloError> {
        let b = Board::parse(s)?;
        Ok((b.n(), State::from_board(&b)))
    }

    /// The stones (ids) of row `r`, in order.
    pub fn row(&self, r: usize) -> Vec<u8> {
        let row = self.rows[r];
        (0..row_len(row))
            .map(|i| id_of(self.n as usize, lane(row, i)))
            .collect()
    }

    /// Number of stones in row `r`.
    #[inline(always)]
    pub fn len(&self, r: usize) -> usize {
        row_len(self.rows[r])
    }

    /// Stones on the board.
    #[inline]
    pub fn stones(&self) -> u32 {
        self.present.count_ones()
    }

    /// Whether no stone is left (never reached by play).
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    /// Row and index of stone `id`.
    #[inline]
    pub fn find(&self, id: u8) -> Option<(usize, usize)> {
        let v = code_of(self.n as usize, id);
        self.rows.iter().enumerate().find_map(|(r, &row)| {
            (0..row_len(row))
                .find(|&i| lane(row, i) == v)
                .map(|i| (r, i))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_state_round_trip() {
        for n in 1..=8 {
            let b = Board::random(n, 7).unwrap();
            let s = State::from_board(&b);
            assert_eq!(s.to_board(n), b, "a full board is normalised");
            assert_eq!(s.stones() as usize, n * n);
            for id in 0..(n * n) as u8 {
                let (r, i) = s.find(id).unwrap();
                assert_eq!(s.row(r)[i], id);
            }
        }
        let (n, s) = State::parse("..b/d.f/ghi").unwrap();
        assert_eq!(s.to_board(n).to_board_string(), "b..d.fghi");
    }
}
