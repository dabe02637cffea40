//! A solved root ([`Solution`]): its value and the values of everything
//! one move away (its children, and the positions after each full move),
//! read from the answers of layers 0 and 1.

use super::pool::REGION_BYTES;
use super::state::{has, Half, State};
use crate::game::{Move, Position};
use endgame_core::Value;

fn value_of(win: bool, not_lose: bool) -> Value {
    if win {
        Value::Win
    } else if not_lose {
        Value::Draw
    } else {
        Value::Loss
    }
}

/// The value for the player who chose among options, given each option's
/// value for the opponent.
fn best_of(opponent_values: impl IntoIterator<Item = Value>) -> Value {
    let mut best = Value::Loss;
    for v in opponent_values {
        match v {
            Value::Loss => return Value::Win,
            Value::Draw => best = Value::Draw,
            _ => {}
        }
    }
    best
}

/// A solved root: its value, and the values of everything one move away
/// (its children, and the positions after each full move).
#[derive(Clone, Debug)]
pub struct Solution {
    pub(super) root: Position,
    pub(super) empty: Vec<u8>,
    /// Layer 0 (the root, or its rotations when it must rotate): "win"
    /// and "not lose" for its player to move.
    pub(super) win0: Half,
    pub(super) not_lose0: Half,
    /// Layer 1 per placement (placement due roots only).
    pub(super) win1: Vec<Half>,
    pub(super) not_lose1: Vec<Half>,
    /// Layer regions resident at the end of the solve (its peak: they
    /// only move between the two buffers or join them; when spilled, the
    /// peak its layout counted).
    pub(super) regions: usize,
    /// Bytes a spilled solve wrote to its files and read back (0 in
    /// memory).
    pub(super) disk_written: u64,
    pub(super) disk_read: u64,
}

/// The rotation state after one rotation move `r` (`2·quadrant + d`).
fn turned(r: u8) -> State {
    let mut s = [0u8; 4];
    s[(r >> 1) as usize] = if r & 1 == 0 { 1 } else { 3 };
    s
}

impl Solution {
    /// The position solved.
    pub fn root(&self) -> &Position {
        &self.root
    }

    /// Bytes of layer memory the solve held at its peak (what
    /// [`memory`] predicts, less the fives tables and margin).
    ///
    /// [`memory`]: super::memory
    pub fn layer_bytes(&self) -> u64 {
        (self.regions * REGION_BYTES) as u64
    }

    /// Bytes written to disk and read back by a solve whose layers
    /// spilled to files (`(0, 0)` in memory).
    pub fn disk_bytes(&self) -> (u64, u64) {
        (self.disk_written, self.disk_read)
    }

    /// The value of the root for its player to move.
    pub fn value(&self) -> Value {
        if let Some(v) = self.root.outcome() {
            return v;
        }
        if self.root.must_rotate() {
            best_of((0..8).map(|r| self.rotation_value(r)))
        } else {
            value_of(has(&self.win0, [0; 4]), has(&self.not_lose0, [0; 4]))
        }
    }

    /// Must-rotate root: the value of rotation `r`'s position for its
    /// player to move.
    fn rotation_value(&self, r: u8) -> Value {
        let c = self.root.rotated(r);
        c.outcome().unwrap_or_else(|| {
            value_of(has(&self.win0, turned(r)), has(&self.not_lose0, turned(r)))
        })
    }

    /// Placement-due root: the value, for its player to move, of the
    /// position after placing on the `i`-th empty cell and rotating `r`.
    fn full_move_value(&self, i: usize, r: u8) -> Value {
        let c = self.root.place(self.empty[i]).rotated(r);
        c.outcome().unwrap_or_else(|| {
            value_of(
                has(&self.win1[i], turned(r)),
                has(&self.not_lose1[i], turned(r)),
            )
        })
    }

    /// Placement-due root: the value of placing on the `i`-th empty cell
    /// for the player who placed (still to rotate).
    fn placement_value(&self, i: usize) -> Value {
        let c = self.root.place(self.empty[i]);
        c.outcome()
            .unwrap_or_else(|| best_of((0..8).map(|r| self.full_move_value(i, r))))
    }

    /// The children as [`crate::solve::Solver::value_and_children`] gives
    /// them: the placements (`m` positions) of a placement-due root, the
    /// rotations of a must-rotate one, each valued for its player to move.
    pub fn children(&self) -> Vec<(Position, Value)> {
        if self.root.outcome().is_some() {
            return Vec::new();
        }
        if self.root.must_rotate() {
            (0..8)
                .map(|r| (self.root.rotated(r), self.rotation_value(r)))
                .collect()
        } else {
            (0..self.empty.len())
                .map(|i| (self.root.place(self.empty[i]), self.placement_value(i)))
                .collect()
        }
    }

    /// Every full move of the root (the rules' moves) with its value for
    /// the player making it.
    pub fn move_values(&self) -> Vec<(Move, Value)> {
        use endgame_core::Rules;
        let g = crate::game::Pentago;
        g.moves(&self.root)
            .into_iter()
            .map(|m| {
                let child = g.play_unchecked(&self.root, m);
                let v = child
                    .outcome()
                    .or_else(|| self.lookup(&child))
                    .unwrap_or(Value::Unknown);
                (m, v.flip())
            })
            .collect()
    }

    /// The value, for its player to move, of `pos` when it is the root,
    /// a child of it, or the position after one full move of it.
    pub fn lookup(&self, pos: &Position) -> Option<Value> {
        if *pos == self.root {
            return Some(self.value());
        }
        if self.root.outcome().is_some() {
            return None;
        }
        if self.root.must_rotate() {
            return (0..8)
                .find(|&r| self.root.rotated(r) == *pos)
                .map(|r| self.rotation_value(r));
        }
        if pos.stones() != self.root.stones() + 1 {
            return None;
        }
        for (i, &cell) in self.empty.iter().enumerate() {
            let placed = self.root.place(cell);
            if pos.must_rotate() {
                if placed == *pos {
                    return Some(self.placement_value(i));
                }
            } else if placed.outcome().is_some() {
                // A five made by the placement ends the game unrotated.
                let ended = Position::new(placed.black(), placed.white(), false).ok()?;
                if ended == *pos {
                    return ended.outcome();
                }
            } else if let Some(r) = (0..8).find(|&r| placed.rotated(r) == *pos) {
                return Some(self.full_move_value(i, r));
            }
        }
        None
    }
}
