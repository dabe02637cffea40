//! Tic-tac-toe, the two-player toy game the core's game-solver tests
//! share: a position is (crosses, noughts) as 9-bit masks, crosses move
//! first.
// Each test file is its own crate and uses only some of this.
#![allow(dead_code)]

use endgame_core::{Game, Rules, Value};

/// The game; `symmetric` only matters to the tests that key positions.
pub struct Ttt {
    /// Whether canonical keys fold the 8 symmetries of the square.
    pub symmetric: bool,
}

/// The 8 lines of three, as cell masks.
pub const LINES: [u16; 8] = [0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124];

/// Whether `m` holds a whole line.
pub fn line(m: u16) -> bool {
    LINES.iter().any(|&l| l & !m == 0)
}

/// Cell images under the 8 symmetries of the square (rows of `r*3+c`).
pub fn symmetries() -> Vec<[usize; 9]> {
    let mut out = Vec::new();
    for k in 0..8 {
        let mut p = [0; 9];
        for (cell, img) in p.iter_mut().enumerate() {
            let (mut r, mut c) = (cell / 3, cell % 3);
            for _ in 0..k % 4 {
                (r, c) = (c, 2 - r);
            }
            if k >= 4 {
                c = 2 - c;
            }
            *img = r * 3 + c;
        }
        out.push(p);
    }
    out
}

impl Rules for Ttt {
    type Position = (u16, u16);
    type Move = u8;
    fn start(&self) -> (u16, u16) {
        (0, 0)
    }
    fn for_each_move(&self, p: &(u16, u16), mut f: impl FnMut(u8)) {
        if self.outcome(p).is_some() {
            return;
        }
        for c in 0..9 {
            if (p.0 | p.1) >> c & 1 == 0 {
                f(c);
            }
        }
    }
    fn play_unchecked(&self, p: &(u16, u16), m: u8) -> (u16, u16) {
        if p.0.count_ones() == p.1.count_ones() {
            (p.0 | 1 << m, p.1)
        } else {
            (p.0, p.1 | 1 << m)
        }
    }
}

impl Game for Ttt {
    fn outcome(&self, p: &(u16, u16)) -> Option<Value> {
        if line(p.0) || line(p.1) {
            // The last mover made the line: the player to move lost.
            Some(Value::Loss)
        } else if (p.0 | p.1) == 0o777 {
            Some(Value::Draw)
        } else {
            None
        }
    }
}
