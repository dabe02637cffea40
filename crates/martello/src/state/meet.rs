//! [`Martello::meet_floor`]: a lower bound on the minimum stone count
//! that knows where stones can meet (an over-approximation of "may ever
//! eat one another", grown to a fixpoint). Tested against the brute
//! force; not used by the search (see the crate README, "Ninth session").

use super::lanes::{lane, row_len};
use super::{Martello, State};
use crate::board::MAX_N;

impl Martello {
    /// The stones sharing colour or symbol with stone `id` (itself
    /// included).
    #[inline(always)]
    fn compatible_mask(&self, id: u8) -> u64 {
        let n = self.n;
        let (c, y) = (id as usize / n, id as usize % n);
        (((1u64 << n) - 1) << (c * n)) | self.symcol[y]
    }

    /// A lower bound on the minimum stone count reachable from `s` that
    /// knows where stones can meet: the components of an
    /// over-approximation of "may ever eat one another", summed over the
    /// stones (every stone that can never eat or be eaten is a component
    /// of its own). Eats happen only inside a component and each keeps a
    /// stone, so the count is a lower bound; it is never below
    /// [`Martello::floor`] (the edges join compatible stones only, and no
    /// edge crosses two empty rows).
    ///
    /// The over-approximation is a fixpoint that only grows, from the
    /// rules: a stone leaves its row or is eaten only by interacting
    /// (set `may`), so the stones of a row keep their order and only
    /// lose members; a stone of the row's own can be its first (last)
    /// stone only once every stone before (after) it may be gone, and
    /// two of them neighbours only once every stone between may be gone;
    /// a stone enters another row only by eating that row's first stone
    /// from a first stone of the row above or below (or two away over a
    /// row that may hold at most one stone), or likewise a last stone,
    /// and such a newcomer is taken as a possible neighbour of every
    /// stone the row may hold; a row that may hold a lone stone has its
    /// possible first and last stones in common. The brute force checks
    /// it (tests: never above the minimum stone count).
    pub fn meet_floor(&self, s: &State) -> u32 {
        let n = self.n;
        let mut seq = [[0u8; MAX_N]; MAX_N];
        let mut len = [0usize; MAX_N];
        let mut own = [0u64; MAX_N];
        for r in 0..n {
            let row = s.rows[r];
            let k = row_len(row);
            len[r] = k;
            for i in 0..k {
                let id = self.id(lane(row, i));
                seq[r][i] = id;
                own[r] |= 1 << id;
            }
        }
        // may: stones that may interact; first/last: may be a row's
        // first/last stone; head/tail: own stones that may be first/last
        // (or follow a newcomer there); came_f/came_l: newcomers a row
        // may receive at its first/last cell; edge[x]: the stones x may
        // interact with.
        let mut may = 0u64;
        let (mut first, mut last) = ([0u64; MAX_N], [0u64; MAX_N]);
        let (mut came_f, mut came_l) = ([0u64; MAX_N], [0u64; MAX_N]);
        let mut edge = [0u64; 64];
        // Joins x with the stones p.
        let join = |edge: &mut [u64; 64], may: &mut u64, x: u8, p: u64| {
            if p == 0 {
                return;
            }
            edge[x as usize] |= p;
            *may |= p | 1 << x;
            let mut q = p;
            while q != 0 {
                let b = q.trailing_zeros() as usize;
                q &= q - 1;
                edge[b] |= 1 << x;
            }
        };
        loop {
            let before = (may, first, last, came_f, came_l);
            let mut short = [false; MAX_N];
            for r in 0..n {
                let k = len[r];
                if k == 0 {
                    short[r] = true;
                    continue;
                }
                // Own stones: first / last once every stone before /
                // after may be gone; neighbours once every stone between
                // may be gone.
                let (mut head, mut tail) = (0u64, 0u64);
                for i in 0..k {
                    head |= 1 << seq[r][i];
                    if may >> seq[r][i] & 1 == 0 {
                        break;
                    }
                }
                for i in (0..k).rev() {
                    tail |= 1 << seq[r][i];
                    if may >> seq[r][i] & 1 == 0 {
                        break;
                    }
                }
                first[r] |= head;
                last[r] |= tail;
                for i in 0..k {
                    let a = seq[r][i];
                    let ca = self.compatible_mask(a);
                    for j in i + 1..k {
                        let b = seq[r][j];
                        if ca >> b & 1 != 0 {
                            join(&mut edge, &mut may, a, 1 << b);
                        }
                        if may >> b & 1 == 0 {
                            break;
                        }
                    }
                }
                short[r] = (own[r] & !may).count_ones() <= 1;
                if short[r] {
                    let both = first[r] | last[r];
                    first[r] = both;
                    last[r] = both;
                    let came = came_f[r] | came_l[r];
                    came_f[r] = came;
                    came_l[r] = came;
                }
                // A newcomer at the first (last) cell took the place of
                // a first (last) stone: its neighbour is an own stone
                // every stone before (after) which may be gone, or
                // another newcomer.
                let came = came_f[r] | came_l[r];
                for (mut c, near) in [(came_f[r], head | came), (came_l[r], tail | came)] {
                    while c != 0 {
                        let z = c.trailing_zeros() as u8;
                        c &= c - 1;
                        let p = self.compatible_mask(z) & near & !(1 << z);
                        join(&mut edge, &mut may, z, p);
                    }
                }
            }
            // Vertical neighbours and double jumps, both white columns.
            for r in 0..n {
                for d in 1..=2 {
                    let t = r + d;
                    if t >= n || (d == 2 && !short[r + 1]) {
                        continue;
                    }
                    for col in 0..2 {
                        let (a, b) = if col == 0 {
                            (first[r], first[t])
                        } else {
                            (last[r], last[t])
                        };
                        let mut xs = a;
                        while xs != 0 {
                            let x = xs.trailing_zeros() as u8;
                            xs &= xs - 1;
                            let p = self.compatible_mask(x) & b & !(1 << x);
                            if p == 0 {
                                continue;
                            }
                            join(&mut edge, &mut may, x, p);
                            // x eats a stone of p (enters row t), or a
                            // stone of p eats x (enters row r).
                            if col == 0 {
                                came_f[t] |= 1 << x;
                                came_f[r] |= p;
                                first[t] |= 1 << x;
                                first[r] |= p;
                            } else {
                                came_l[t] |= 1 << x;
                                came_l[r] |= p;
                                last[t] |= 1 << x;
                                last[r] |= p;
                            }
                        }
                    }
                }
            }
            if (may, first, last, came_f, came_l) == before {
                break;
            }
        }
        // Components of the stones under `edge`.
        let mut left = s.present;
        let mut count = 0;
        while left != 0 {
            let mut comp = left & left.wrapping_neg();
            let mut frontier = comp;
            while frontier != 0 {
                let mut next = 0;
                let mut f = frontier;
                while f != 0 {
                    let x = f.trailing_zeros() as usize;
                    f &= f - 1;
                    next |= edge[x];
                }
                frontier = next & !comp;
                comp |= next;
            }
            left &= !comp;
            count += 1;
        }
        count
    }
}
