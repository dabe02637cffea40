//! An independent, deliberately plain model of the rules on a 6×6 array:
//! the reference the fast code is checked against.

#![allow(dead_code)]

use endgame_pentago::board::bit_index;
use endgame_pentago::{Move, Position};
use std::collections::HashMap;

/// `b[x][y]`: 0 empty, 1 black, 2 white.
pub type Grid = [[u8; 6]; 6];

pub fn grid(p: &Position) -> Grid {
    let mut g = [[0u8; 6]; 6];
    for (x, col) in g.iter_mut().enumerate() {
        for (y, c) in col.iter_mut().enumerate() {
            let b = bit_index(x, y);
            if p.black() >> b & 1 == 1 {
                *c = 1;
            } else if p.white() >> b & 1 == 1 {
                *c = 2;
            }
        }
    }
    g
}

/// Five in a row of colour `c`, by scanning every start and direction.
pub fn five(g: &Grid, c: u8) -> bool {
    for x in 0..6i32 {
        for y in 0..6i32 {
            for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                if (0..5).all(|k| {
                    let (a, b) = (x + k * dx, y + k * dy);
                    (0..6).contains(&a) && (0..6).contains(&b) && g[a as usize][b as usize] == c
                }) {
                    return true;
                }
            }
        }
    }
    false
}

/// Rotates quadrant `q` (0 lower-left, 1 upper-left, 2 lower-right, 3
/// upper-right) clockwise (`cw`) or not, looking at the board with y up.
pub fn rotate(g: &Grid, q: usize, cw: bool) -> Grid {
    let (ox, oy) = (3 * (q / 2), 3 * (q % 2));
    let mut out = *g;
    for i in 0..3 {
        for j in 0..3 {
            // Clockwise with y up: (i, j) -> (j, 2 - i).
            let (ni, nj) = if cw { (j, 2 - i) } else { (2 - j, i) };
            out[ox + ni][oy + nj] = g[ox + i][oy + j];
        }
    }
    out
}

pub fn count(g: &Grid, c: u8) -> usize {
    g.iter().flatten().filter(|&&v| v == c).count()
}

/// Every legal full move of a normal position, by the naive rules.
pub fn moves(p: &Position) -> Vec<Move> {
    let g = grid(p);
    if five(&g, 1) || five(&g, 2) {
        return vec![];
    }
    let me = if p.black_to_move() { 1 } else { 2 };
    let mut out = Vec::new();
    if p.must_rotate() {
        return (0..8).map(|rot| Move { cell: u8::MAX, rot }).collect();
    }
    if count(&g, 0) == 0 {
        return out;
    }
    for x in 0..6 {
        for y in 0..6 {
            if g[x][y] != 0 {
                continue;
            }
            let mut h = g;
            h[x][y] = me;
            let cell = bit_index(x, y) as u8;
            if five(&h, me) {
                out.push(Move { cell, rot: u8::MAX });
            } else {
                for rot in 0..8u8 {
                    out.push(Move { cell, rot });
                }
            }
        }
    }
    out
}

/// Plain minimax with memoisation (no pruning, no ordering, no bounds):
/// the value for `me` to move (placement due) on `g`.
pub fn minimax(g: &Grid, me: u8, memo: &mut HashMap<(Grid, u8), i8>) -> i8 {
    if let Some(&v) = memo.get(&(*g, me)) {
        return v;
    }
    let them = 3 - me;
    let mut best = -1i8;
    'all: for x in 0..6 {
        for y in 0..6 {
            if g[x][y] != 0 {
                continue;
            }
            let mut h = *g;
            h[x][y] = me;
            if five(&h, me) {
                best = 1;
                break 'all;
            }
            for q in 0..4 {
                for cw in [true, false] {
                    let r = rotate(&h, q, cw);
                    let v = match (five(&r, me), five(&r, them)) {
                        (true, true) => 0,
                        (true, false) => 1,
                        (false, true) => -1,
                        _ if count(&r, 0) == 0 => 0,
                        _ => -minimax(&r, them, memo),
                    };
                    best = best.max(v);
                    if best == 1 {
                        break 'all;
                    }
                }
            }
        }
    }
    memo.insert((*g, me), best);
    best
}
