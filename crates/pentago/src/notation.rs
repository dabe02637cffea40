//! The interchange notation of positions (perfect-pentago.net), the human
//! move notation, checked play whose error names the move in it
//! ([`Pentago::play_checked`]), and the ASCII board.
//!
//! Moves: the cell `a1`…`f6` (file a–f left to right, rank 1–6 bottom to
//! top), then the quadrant `ll`, `ul`, `lr`, `ur` (lower-left, upper-left,
//! lower-right, upper-right) and the direction `cw` (clockwise) or `ccw`,
//! separated by spaces: `c4 ur cw`. A placement that makes five wins at
//! once and is written alone (`c4`); when the position is `…m` (the mover
//! has placed) only the rotation is written (`ur cw`).

use crate::board::{bit_index, cell_of};
use crate::error::PentagoError;
use crate::game::{Move, Pentago, Position, NONE};
use endgame_core::Rules;

/// Quadrant names in notation order.
pub const QUADRANTS: [&str; 4] = ["ll", "ul", "lr", "ur"];

/// Writes a position: the 64-bit number, then `m` if a rotation is due.
pub fn format_position(pos: &Position) -> String {
    let mut n = 0u64;
    for q in 0..4 {
        let mut chunk = 0u64;
        for d in (0..9).rev() {
            let b = 16 * q + d;
            let digit = if pos.black() >> b & 1 == 1 {
                1
            } else if pos.white() >> b & 1 == 1 {
                2
            } else {
                0
            };
            chunk = 3 * chunk + digit;
        }
        n |= chunk << (16 * q);
    }
    if pos.must_rotate() {
        format!("{n}m")
    } else {
        n.to_string()
    }
}

/// Reads and validates a position in the interchange notation.
pub fn parse_position(text: &str) -> Result<Position, PentagoError> {
    let t = text.trim();
    let (digits, m) = match t.strip_suffix('m') {
        Some(d) => (d, true),
        None => (t, false),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(PentagoError::BadPosition(text.to_string()));
    }
    let n: u64 = digits
        .parse()
        .map_err(|_| PentagoError::BadPosition(text.to_string()))?;
    let (mut black, mut white) = (0u64, 0u64);
    for q in 0..4 {
        let mut chunk = (n >> (16 * q)) & 0xffff;
        if chunk >= 19683 {
            return Err(PentagoError::BadQuadrant {
                text: text.to_string(),
                quadrant: q,
                value: chunk,
            });
        }
        for d in 0..9 {
            match chunk % 3 {
                1 => black |= 1 << (16 * q + d),
                2 => white |= 1 << (16 * q + d),
                _ => {}
            }
            chunk /= 3;
        }
    }
    Position::new(black, white, m)
}

/// Writes a cell bit index as `a1`…`f6`.
pub fn format_cell(bit: u8) -> String {
    let (x, y) = cell_of(bit as usize);
    format!("{}{}", (b'a' + x as u8) as char, y + 1)
}

/// Writes a move (see the module documentation).
pub fn format_move(mv: Move) -> String {
    let mut parts = Vec::new();
    if mv.cell != NONE {
        parts.push(format_cell(mv.cell));
    }
    if mv.rot != NONE {
        parts.push(QUADRANTS[(mv.rot >> 1) as usize].to_string());
        parts.push(if mv.rot & 1 == 0 { "cw" } else { "ccw" }.to_string());
    }
    parts.join(" ")
}

/// Reads a move (syntax only; legality is the position's business).
pub fn parse_move(text: &str) -> Result<Move, PentagoError> {
    let bad = || PentagoError::BadMove(text.to_string());
    let lower = text.trim().to_ascii_lowercase();
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    let parse_cell = |s: &str| -> Option<u8> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'f').contains(&b[0]) || !(b'1'..=b'6').contains(&b[1]) {
            return None;
        }
        Some(bit_index((b[0] - b'a') as usize, (b[1] - b'1') as usize) as u8)
    };
    let parse_rot = |q: &str, d: &str| -> Option<u8> {
        let q = QUADRANTS.iter().position(|&n| n == q)? as u8;
        let d = match d {
            "cw" => 0,
            "ccw" => 1,
            _ => return None,
        };
        Some(2 * q + d)
    };
    let mv = match tokens.as_slice() {
        [c] => Move {
            cell: parse_cell(c).ok_or_else(bad)?,
            rot: NONE,
        },
        [q, d] => Move {
            cell: NONE,
            rot: parse_rot(q, d).ok_or_else(bad)?,
        },
        [c, q, d] => Move {
            cell: parse_cell(c).ok_or_else(bad)?,
            rot: parse_rot(q, d).ok_or_else(bad)?,
        },
        _ => return Err(bad()),
    };
    Ok(mv)
}

impl Pentago {
    /// Plays `mv` after checking it, with an error naming the move in the
    /// move notation and saying why it is not legal.
    pub fn play_checked(&self, pos: &Position, mv: Move) -> Result<Position, PentagoError> {
        if self.is_legal(pos, mv) {
            return Ok(self.play_unchecked(pos, mv));
        }
        let text = format_move(mv);
        let why = if pos.outcome().is_some() {
            "the game is over"
        } else if pos.must_rotate() && mv.cell != NONE {
            "a rotation is due, not a placement"
        } else if !pos.must_rotate() && mv.cell == NONE {
            "a placement is due"
        } else if !pos.must_rotate() && pos.empty() & (1u64 << (mv.cell & 63)) == 0 {
            "the cell is occupied"
        } else if mv.rot == NONE {
            "the placement does not make five, so a rotation must follow"
        } else {
            "the placement makes five and wins at once, so no rotation follows"
        };
        Err(PentagoError::IllegalMove(format!("{text}: {why}")))
    }
}

/// The board in ASCII, top row (rank 6) first: `X` black, `O` white, `.`
/// empty, with file and rank labels and the quadrant borders.
pub fn draw(pos: &Position) -> String {
    let mut out = String::from("    a b c   d e f\n");
    for y in (0..6).rev() {
        out.push_str(&format!(" {} ", y + 1));
        for x in 0..6 {
            if x == 3 {
                out.push_str(" |");
            }
            let b = bit_index(x, y);
            let c = if pos.black() >> b & 1 == 1 {
                'X'
            } else if pos.white() >> b & 1 == 1 {
                'O'
            } else {
                '.'
            };
            out.push(' ');
            out.push(c);
        }
        out.push('\n');
        if y == 3 {
            out.push_str("    ------+------\n");
        }
    }
    out
}
