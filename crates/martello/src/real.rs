//! An operation as the real moves a person makes on the board: slides
//! before the eat (a lone stone to the other white column, a lone stone
//! out of a double jump's way), the eat itself, then the re-packing and
//! normalising slides.

use crate::board::{stone_name, Board, MartelloError, EMPTY};
use crate::state::{Martello, Op, State};
use serde::{Deserialize, Serialize};

/// One move on the real board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RealMove {
    /// A stone slides along its row over empty cells (or a lone stone
    /// changes white column).
    Slide {
        /// The stone.
        stone: u8,
        /// From (row, column).
        from: (u8, u8),
        /// To (row, column).
        to: (u8, u8),
    },
    /// A stone moves onto a neighbour it shares colour or symbol with.
    Eat {
        /// The eater.
        stone: u8,
        /// The stone removed.
        eaten: u8,
        /// The eater's cell.
        from: (u8, u8),
        /// The eaten stone's cell.
        to: (u8, u8),
    },
}

impl RealMove {
    /// `slide a 2,0-2,5` or `a eats g 2,5-3,5` (row, column from 0).
    pub fn describe(&self, n: usize) -> String {
        match *self {
            RealMove::Slide { stone, from, to } => format!(
                "slide {} {},{}-{},{}",
                stone_name(n, stone),
                from.0,
                from.1,
                to.0,
                to.1
            ),
            RealMove::Eat {
                stone,
                eaten,
                from,
                to,
            } => format!(
                "{} eats {} {},{}-{},{}",
                stone_name(n, stone),
                stone_name(n, eaten),
                from.0,
                from.1,
                to.0,
                to.1
            ),
        }
    }

    /// Plays the move on a raw board (no legality check).
    pub fn apply(&self, b: &mut Board) {
        match *self {
            RealMove::Slide { stone, from, to }
            | RealMove::Eat {
                stone, from, to, ..
            } => {
                b.set(from.0 as usize, from.1 as usize, EMPTY);
                b.set(to.0 as usize, to.1 as usize, stone);
            }
        }
    }
}

fn col_of(k: usize, i: usize, n: usize) -> usize {
    if k >= 2 && i == k - 1 {
        n - 1
    } else {
        i
    }
}

/// Slides row `r` of `b` into its normalised layout, appending the slides:
/// left-movers left to right, then right-movers right to left, so no stone
/// passes another.
fn normalise_row(b: &mut Board, r: usize, out: &mut Vec<RealMove>) {
    let n = b.n();
    let cols: Vec<usize> = (0..n).filter(|&c| b.get(r, c) != EMPTY).collect();
    let k = cols.len();
    let targets: Vec<usize> = (0..k).map(|i| col_of(k, i, n)).collect();
    let mut go = |i: usize, b: &mut Board| {
        let (c, t) = (cols[i], targets[i]);
        let mv = RealMove::Slide {
            stone: b.get(r, c),
            from: (r as u8, c as u8),
            to: (r as u8, t as u8),
        };
        mv.apply(b);
        out.push(mv);
    };
    for i in 0..k {
        if targets[i] < cols[i] {
            go(i, b);
        }
    }
    for i in (0..k).rev() {
        if targets[i] > cols[i] {
            go(i, b);
        }
    }
}

/// The real moves of operation `op` from the normalised state `s`, from
/// its normalised layout to the child's.
pub fn real_moves(m: &Martello, s: &State, op: Op) -> Result<Vec<RealMove>, MartelloError> {
    m.play_checked(s, op)?;
    let n = m.n();
    let mut b = s.to_board(n);
    let (rx, ix) = s.find(op.eater).expect("legal op");
    let (ry, iy) = s.find(op.eaten).expect("legal op");
    let (kx, ky) = (s.len(rx), s.len(ry));
    let mut out = Vec::new();
    let lone_to_right = |r: usize, b: &mut Board, out: &mut Vec<RealMove>| {
        let mv = RealMove::Slide {
            stone: b.get(r, 0),
            from: (r as u8, 0),
            to: (r as u8, (n - 1) as u8),
        };
        mv.apply(b);
        out.push(mv);
    };
    let (from, to) = if rx == ry {
        ((rx, col_of(kx, ix, n)), (ry, col_of(ky, iy, n)))
    } else {
        // A white column both stones can stand in: column 0 takes first
        // stones, column n-1 last ones (a lone stone is both).
        let c = if ix == 0 && iy == 0 { 0 } else { n - 1 };
        if c == n - 1 {
            if kx == 1 {
                lone_to_right(rx, &mut b, &mut out);
            }
            if ky == 1 {
                lone_to_right(ry, &mut b, &mut out);
            }
        }
        if rx.abs_diff(ry) == 2 {
            let mid = rx.min(ry) + 1;
            if b.get(mid, c) != EMPTY {
                // A lone stone (the rules allow no more) steps aside.
                if c == 0 {
                    lone_to_right(mid, &mut b, &mut out);
                } else {
                    let mv = RealMove::Slide {
                        stone: b.get(mid, n - 1),
                        from: (mid as u8, (n - 1) as u8),
                        to: (mid as u8, 0),
                    };
                    mv.apply(&mut b);
                    out.push(mv);
                }
            }
        }
        ((rx, c), (ry, c))
    };
    let eat = RealMove::Eat {
        stone: op.eater,
        eaten: op.eaten,
        from: (from.0 as u8, from.1 as u8),
        to: (to.0 as u8, to.1 as u8),
    };
    eat.apply(&mut b);
    out.push(eat);
    let mut rows = vec![rx, ry];
    if rx.abs_diff(ry) == 2 {
        rows.push(rx.min(ry) + 1);
    }
    rows.sort_unstable();
    rows.dedup();
    for r in rows {
        normalise_row(&mut b, r, &mut out);
    }
    Ok(out)
}

/// The boards a person sees while playing `moves` from `start`'s layout.
pub fn replay(start: &Board, moves: &[RealMove]) -> Vec<Board> {
    let mut b = *start;
    let mut out = vec![b];
    for mv in moves {
        mv.apply(&mut b);
        out.push(b);
    }
    out
}
