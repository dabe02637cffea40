//! An independent brute force over raw boards, with explicit slides.
//!
//! It knows nothing of normalised states: a position is the n×n board a
//! person sees, moves are one-cell slides (a lone stone jumps between the
//! white columns), and eats by the rules' own words (horizontal over empty
//! cells, vertical in a white column, double jumps over exactly one empty
//! white cell) followed by the forced re-packing of the white cells. It
//! serves the tests: minimum stone counts and operation sets against the
//! normalised search.

use crate::board::{Board, EMPTY};
use std::collections::{HashMap, HashSet};

/// Whether stones `a` and `b` share colour or symbol on an `n`-board.
pub fn compatible(n: usize, a: u8, b: u8) -> bool {
    let (a, b) = (a as usize, b as usize);
    a != b && (a / n == b / n || a % n == b % n)
}

fn row_ok(b: &Board, r: usize) -> bool {
    let n = b.n();
    let k = (0..n).filter(|&c| b.get(r, c) != EMPTY).count();
    let (w0, w1) = (b.get(r, 0) != EMPTY, b.get(r, n - 1) != EMPTY);
    match k {
        0 => true,
        1 => w0 || w1,
        _ => w0 && w1,
    }
}

/// Every board one slide away: one-cell slides that keep the row legal,
/// and a lone stone's jump to the other white column.
pub fn slides(b: &Board) -> Vec<Board> {
    let n = b.n();
    let mut out = Vec::new();
    for r in 0..n {
        let cols: Vec<usize> = (0..n).filter(|&c| b.get(r, c) != EMPTY).collect();
        if cols.len() == 1 && n > 1 {
            let c = cols[0];
            let mut t = *b;
            t.set(r, c, EMPTY);
            t.set(r, n - 1 - c, b.get(r, c));
            out.push(t);
            continue;
        }
        for &c in &cols {
            for to in [c.wrapping_sub(1), c + 1] {
                if to < n && b.get(r, to) == EMPTY {
                    let mut t = *b;
                    t.set(r, to, b.get(r, c));
                    t.set(r, c, EMPTY);
                    if row_ok(&t, r) {
                        out.push(t);
                    }
                }
            }
        }
    }
    out
}

/// One eat on a raw board: the eater's and the eaten stone's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Eat {
    /// Eater's cell (row, column).
    pub from: (usize, usize),
    /// Eaten stone's cell.
    pub to: (usize, usize),
}

/// Every eat of a raw board.
pub fn eats(b: &Board) -> Vec<Eat> {
    let n = b.n();
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            let x = b.get(r, c);
            if x == EMPTY {
                continue;
            }
            let mut targets = Vec::new();
            // Horizontal: the nearest stone on each side, any distance.
            if let Some(t) = (0..c).rev().find(|&t| b.get(r, t) != EMPTY) {
                targets.push((r, t));
            }
            if let Some(t) = (c + 1..n).find(|&t| b.get(r, t) != EMPTY) {
                targets.push((r, t));
            }
            if c == 0 || c == n - 1 {
                for (dr, over) in [(-1i32, None), (1, None), (-2, Some(-1i32)), (2, Some(1))] {
                    let t = r as i32 + dr;
                    if t < 0 || t >= n as i32 {
                        continue;
                    }
                    if let Some(o) = over {
                        if b.get((r as i32 + o) as usize, c) != EMPTY {
                            continue;
                        }
                    }
                    if b.get(t as usize, c) != EMPTY {
                        targets.push((t as usize, c));
                    }
                }
            }
            for to in targets {
                if compatible(n, x, b.get(to.0, to.1)) {
                    out.push(Eat { from: (r, c), to });
                }
            }
        }
    }
    out
}

/// Plays an eat and the forced re-packing: when the eater leaves a white
/// cell of a row that keeps two or more stones, the next stone of that
/// row slides into it.
pub fn play_eat(b: &Board, e: Eat) -> Board {
    let n = b.n();
    let mut t = *b;
    let x = t.get(e.from.0, e.from.1);
    t.set(e.to.0, e.to.1, x);
    t.set(e.from.0, e.from.1, EMPTY);
    let r = e.from.0;
    let cols: Vec<usize> = (0..n).filter(|&c| t.get(r, c) != EMPTY).collect();
    if cols.len() >= 2 {
        if t.get(r, 0) == EMPTY {
            let c = cols[0];
            t.set(r, 0, t.get(r, c));
            t.set(r, c, EMPTY);
        }
        if t.get(r, n - 1) == EMPTY {
            let c = *cols.last().expect("two stones");
            t.set(r, n - 1, t.get(r, c));
            t.set(r, c, EMPTY);
        }
    }
    t
}

/// Every board reachable from `b` by slides alone (`b` included).
pub fn slide_closure(b: &Board) -> Vec<Board> {
    let mut seen = HashSet::new();
    seen.insert(*b);
    let mut todo = vec![*b];
    let mut out = Vec::new();
    while let Some(x) = todo.pop() {
        out.push(x);
        for y in slides(&x) {
            if seen.insert(y) {
                todo.push(y);
            }
        }
    }
    out
}

/// The minimum stone count by exhaustive search over raw boards (memoised
/// per slide-connected class, since slides can undo each other).
pub fn min_stones(b: &Board) -> u32 {
    let mut memo = HashMap::new();
    best(b, &mut memo)
}

fn best(b: &Board, memo: &mut HashMap<Board, u32>) -> u32 {
    if let Some(&v) = memo.get(b) {
        return v;
    }
    let class = slide_closure(b);
    let mut v = b.stones() as u32;
    for x in &class {
        for e in eats(x) {
            v = v.min(best(&play_eat(x, e), memo));
        }
    }
    for x in class {
        memo.insert(x, v);
    }
    v
}

/// The (eater, eaten) pairs of every eat reachable by slides from `b`,
/// each with the normalised state it leads to: the naive operation
/// generator.
pub fn operations(b: &Board) -> Vec<((u8, u8), Board)> {
    let mut out: Vec<((u8, u8), Board)> = Vec::new();
    for x in slide_closure(b) {
        for e in eats(&x) {
            let pair = (x.get(e.from.0, e.from.1), x.get(e.to.0, e.to.1));
            let child = play_eat(&x, e);
            out.push((pair, child));
        }
    }
    out
}
