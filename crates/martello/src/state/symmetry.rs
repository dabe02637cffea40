//! Symmetries of a state: the board's four mirrors, the colour↔symbol
//! swap, relabellings of colours and symbols, and canonical forms under
//! them (the core `Symmetric` group is mirrors × swap).

use super::lanes::{code, id_of, lane, row_len, COLOURS, LANE, MARKS, SYMBOLS};
use super::{Martello, State};
use crate::board::MAX_N;

impl Martello {
    /// The image of `s` under the colour↔symbol swap.
    pub fn swapped(&self, s: &State) -> State {
        let mut t = *s;
        for r in 0..self.n {
            let row = s.rows[r];
            t.rows[r] = (row & MARKS) | (row & COLOURS) >> 3 | (row & SYMBOLS) << 3;
        }
        t.present = present_of(self.n, &t);
        t.refresh();
        t
    }

    /// The state's canonical form under the board's mirrors (left–right:
    /// every row reversed; top–bottom: row order reversed).
    pub fn canonical_mirror(&self, s: &State) -> State {
        let mut best = *s;
        for i in 1..4 {
            let t = mirror(self.n, s, i);
            if t < best {
                best = t;
            }
        }
        best
    }

    /// The canonical form under the whole group: mirrors, colour↔symbol
    /// swap, and every relabelling of colours and of symbols (relabelled
    /// in order of first appearance in the row-major scan).
    pub fn canonical_full(&self, s: &State) -> State {
        let mut best: Option<State> = None;
        for sw in 0..2 {
            let base = if sw == 1 { self.swapped(s) } else { *s };
            for m in 0..4 {
                let t = relabel(self.n, &mirror(self.n, &base, m));
                if best.is_none_or(|b| t < b) {
                    best = Some(t);
                }
            }
        }
        best.expect("eight images")
    }
}

/// Mirror image `i` (bit 0: left–right, bit 1: top–bottom).
pub fn mirror(n: usize, s: &State, i: usize) -> State {
    let mut t = State {
        present: s.present,
        n: s.n,
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let mut row = s.rows[r];
        if i & 1 != 0 {
            let k = row_len(row);
            let mut rev = 0u64;
            for j in 0..k {
                rev |= lane(row, j) << (LANE * (k - 1 - j));
            }
            row = rev;
        }
        let tr = if i & 2 != 0 { n - 1 - r } else { r };
        t.rows[tr] = row;
    }
    t.refresh();
    t
}

/// Relabels colours and symbols in order of first appearance.
pub(super) fn relabel(n: usize, s: &State) -> State {
    let mut cmap = [u8::MAX; MAX_N];
    let mut smap = [u8::MAX; MAX_N];
    let (mut nc, mut ns) = (0u8, 0u8);
    let mut t = State {
        n: s.n,
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let row = s.rows[r];
        let mut out = 0u64;
        for i in 0..row_len(row) {
            let v = lane(row, i);
            let (c, y) = ((v >> 3 & 7) as usize, (v & 7) as usize);
            if cmap[c] == u8::MAX {
                cmap[c] = nc;
                nc += 1;
            }
            if smap[y] == u8::MAX {
                smap[y] = ns;
                ns += 1;
            }
            let (nc_, ny) = (cmap[c] as usize, smap[y] as usize);
            out |= code(nc_, ny) << (LANE * i);
            t.present |= 1 << (nc_ * n + ny);
        }
        t.rows[r] = out;
    }
    t.refresh();
    t
}

/// The presence mask of a state's rows.
fn present_of(n: usize, s: &State) -> u64 {
    let mut p = 0u64;
    for r in 0..n {
        let row = s.rows[r];
        for i in 0..row_len(row) {
            p |= 1 << id_of(n, lane(row, i));
        }
    }
    p
}

/// The group used by the conformance battery: the four mirrors times the
/// colour↔symbol swap (relabellings of colours and symbols are applied by
/// [`Martello::canonical_full`], outside this trait: that group has
/// 8·(n!)² elements).
impl endgame_core::Symmetric for Martello {
    fn symmetry_count(&self) -> usize {
        8
    }
    fn apply_symmetry(&self, i: usize, pos: &State) -> State {
        let m = mirror(self.n, pos, i & 3);
        if i & 4 != 0 {
            self.swapped(&m)
        } else {
            m
        }
    }
}
