//! The "doomed" bound (a state that provably cannot reach one stone):
//! stones of different classes of "shares colour or symbol" never meet
//! (the class test on a stone set, whole-lane bit operations, and the
//! quick test after one removal), and two consecutive empty rows cut the
//! board for good; [`Martello::floor`] counts what both leave.

use super::{Martello, State};
use crate::board::MAX_N;

/// Whether two consecutive empty rows separate stones. Rows never
/// refill (a stone enters a row only by eating one there), and no move
/// crosses two empty rows, so the two sides never meet again and each
/// keeps a stone.
#[inline]
pub fn split(s: &State) -> bool {
    let mut occ = 0u32;
    for r in 0..MAX_N {
        occ |= u32::from(s.rows[r] != 0) << r;
    }
    split_occ(occ)
}

/// [`split`] of the rows whose bits are set in `occ`.
#[inline(always)]
pub(super) fn split_occ(occ: u32) -> bool {
    if occ == 0 {
        return false;
    }
    let lo = occ.trailing_zeros();
    let hi = 31 - occ.leading_zeros();
    let span = ((1u32 << (hi - lo + 1)) - 1) << lo;
    let z = !occ & span;
    z & (z >> 1) != 0
}
/// Whether the stones left form one class under "shares colour or
/// symbol" (transitively). Stones of different classes never meet, and
/// every class keeps a stone, so the number of classes is a lower
/// bound on the minimum stone count: more than one, and the goal is
/// out of reach.
///
/// Stone `id` is bit `id` = colour · n + symbol, so colour `c` is the
/// n-bit lane `c` of `p`: the classes are the components of the bipartite
/// graph colour – symbol with an edge per stone. The search grows a
/// component with whole-lane bit operations (no loop over stones):
/// colours are kept as one bit at the start of their lane.
#[inline]
pub fn connected_mask(n: usize, p: u64) -> bool {
    if p == 0 {
        return true;
    }
    let lanes = Lanes::new(n);
    // The colours reachable from the first non-empty one: grow until
    // no new colour joins (the symbols follow from the colours).
    let all = lanes.nonzero(p);
    let mut cols = all & all.wrapping_neg();
    loop {
        let nc = lanes.grow(p, cols);
        if nc == cols {
            break;
        }
        cols = nc;
    }
    all & !cols == 0
}

/// The classes of the stones `p` under "shares colour or symbol" (see
/// [`connected_mask`]).
pub fn classes(n: usize, p: u64) -> u32 {
    let lanes = Lanes::new(n);
    let mut left = lanes.nonzero(p);
    let mut count = 0;
    while left != 0 {
        let mut cols = left & left.wrapping_neg();
        loop {
            let nc = lanes.grow(p, cols);
            if nc == cols {
                break;
            }
            cols = nc;
        }
        left &= !cols;
        count += 1;
    }
    count
}

/// Whether the colours `a` and `b` (bits at their lanes' starts, as in
/// [`connected_mask`]) lie in one class of the stones `p`: grows the two
/// sides in turn until they share a colour (one class) or the side just
/// grown stops growing (it is a whole class without the other side's
/// colours). A bridge usually cuts off a small class, which this finds in
/// a step or two where growing from the first colour took three or four
/// steps.
#[inline]
fn joined(n: usize, p: u64, mut a: u64, mut b: u64) -> bool {
    let lanes = Lanes::new(n);
    loop {
        if a & b != 0 {
            return true;
        }
        let grown = lanes.grow(p, a);
        if grown == a {
            return false;
        }
        a = b;
        b = grown;
    }
}

/// Whole-lane bit operations on the n lanes of n bits of a stone set
/// (colour `c` is lane `c`; see [`connected_mask`]).
#[derive(Clone, Copy)]
struct Lanes {
    n: usize,
    low: u64,
    rep: u64,
    m: u64,
    h: u64,
}

impl Lanes {
    #[inline(always)]
    fn new(n: usize) -> Lanes {
        let low = (1u64 << n) - 1;
        let rep = REP[n];
        Lanes {
            n,
            low,
            rep,
            m: rep * (low >> 1),
            h: rep << (n - 1),
        }
    }

    /// Lane-wise "is not zero", as a bit at each lane's start: adding the
    /// lane's low n-1 bits to all-ones-but-the-top carries into the top
    /// bit exactly when one of them is set (no carry leaves the lane).
    #[inline(always)]
    fn nonzero(self, y: u64) -> u64 {
        ((((y & self.m) + self.m) | y) & self.h) >> (self.n - 1)
    }

    /// The union of the (at most eight) lanes, by doubling.
    #[inline(always)]
    fn fold(self, y: u64) -> u64 {
        let n = self.n;
        let y = y | y >> n;
        let y = y | y >> (2 * n);
        (y | y >> (4 * n)) & self.low
    }

    /// The colours of `p` sharing a symbol with a stone of the colours
    /// `cols` (bits at their lanes' starts), `cols`' own included.
    #[inline(always)]
    fn grow(self, p: u64, cols: u64) -> u64 {
        self.nonzero(p & (self.fold(p & (cols * self.low)) * self.rep))
    }
}

/// `REP[n]`: bit 0 of each of the n lanes of n bits (`Σ 1 << (c·n)`).
const REP: [u64; MAX_N + 1] = {
    let mut t = [0u64; MAX_N + 1];
    let mut n = 1;
    while n <= MAX_N {
        let mut c = 0;
        while c < n {
            t[n] |= 1 << (c * n);
            c += 1;
        }
        n += 1;
    }
    t
};

impl Martello {
    /// Whether the stones `p` are still one class after the stone in lane
    /// `y` was removed from a connected set: quick certificates first (`y`
    /// was the last of its colour or of its symbol, or a stone of its
    /// colour and one of its symbol share a third link), otherwise whether
    /// `y`'s colour and symbol are still joined ([`joined`]: removing one
    /// edge from a connected graph leaves it connected exactly when the
    /// edge's ends stay joined).
    #[inline(always)]
    pub(super) fn still_connected(&self, p: u64, y: u64) -> bool {
        let n = self.n;
        let (shift, sy) = (self.cshift[(y & 63) as usize] as usize, (y & 7) as usize);
        let low = (1u64 << n) - 1;
        let syms = (p >> shift) & low;
        let same_sym = p & self.symcol[sy];
        // A stone (c, s) with colour c among those of `same_sym` and
        // symbol s among `syms` closes the cycle y's colour – s – c – y's
        // symbol, so y's removal keeps the class whole. Without a loop:
        // `same_sym >> sy` has one bit at each such colour's row start,
        // times `low` fills those rows; `syms` times `rep` repeats the
        // symbol set in every colour row. (The certificates are combined
        // without branches: which one holds is anyone's guess.)
        let colours = (same_sym >> sy) * low;
        let symbols = syms * self.rep;
        let certified = (syms == 0) | (same_sym == 0) | (p & colours & symbols != 0);
        certified || joined(n, p, 1 << shift, same_sym >> sy)
    }

    /// Whether two consecutive empty rows separate stones (see [`split`]).
    pub fn split(&self, s: &State) -> bool {
        split(s)
    }

    /// Whether the stones left form one class under "shares colour or
    /// symbol" (see [`connected_mask`]).
    pub fn connected(&self, s: &State) -> bool {
        connected_mask(self.n, s.present)
    }

    /// A lower bound on the minimum stone count reachable from `s`: the
    /// classes (see [`connected_mask`]) of each part of the board that
    /// two consecutive empty rows cut off, summed (parts never meet again
    /// and classes never meet, so each class of each part keeps a stone);
    /// 1 for a state that is not [`State::doomed`].
    pub fn floor(&self, s: &State) -> u32 {
        if !s.doomed {
            return 1;
        }
        let n = self.n;
        let (mut total, mut part, mut empty) = (0, 0u64, 0);
        for r in 0..n {
            let mut row = s.rows[r];
            if row == 0 {
                empty += 1;
                if empty == 2 && part != 0 {
                    total += classes(n, part);
                    part = 0;
                }
                continue;
            }
            empty = 0;
            while row != 0 {
                part |= 1u64 << self.id(row);
                row >>= 7;
            }
        }
        if part != 0 {
            total += classes(n, part);
        }
        total.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::state::lanes::code_of;

    /// The class test after one stone's removal (certificates, then
    /// [`joined`]) against [`connected_mask`] of the stones left, for every
    /// stone of random connected stone sets, n = 1 … 8.
    #[test]
    fn removal_test_matches_the_class_test() {
        let mut rng = endgame_core::restarts::Rng::new(17);
        let mut split_seen = 0;
        for n in 1..=8 {
            let m = Martello::new(n, State::from_board(&Board::random(n, 1).unwrap())).unwrap();
            for _ in 0..3000 {
                let keep = 1 + rng.below(4);
                let mut p = 0u64;
                for id in 0..n * n {
                    if rng.below(keep + 1) < keep {
                        p |= 1 << id;
                    }
                }
                if !connected_mask(n, p) {
                    continue;
                }
                for id in 0..n * n {
                    if p >> id & 1 == 0 {
                        continue;
                    }
                    let rest = p & !(1 << id);
                    let want = connected_mask(n, rest);
                    split_seen += usize::from(!want);
                    let y = code_of(n, id as u8);
                    assert_eq!(m.still_connected(rest, y), want, "n {n} p {p:#x} id {id}");
                }
            }
        }
        assert!(split_seen > 1000, "{split_seen}");
    }
}
