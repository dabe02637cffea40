//! Positions, moves and the rules of Pentago (`docs/pentago.md`).
//!
//! A move is a whole turn: a placement and a rotation. A placement that
//! makes five of the mover's colour wins at once, so such a move has no
//! rotation. A position read with the notation's `m` ("the player to move
//! has placed and must now rotate") has the eight rotations as its moves.

use crate::board::{self, has_five, rotate, CELLS};
use crate::error::PentagoError;
use endgame_core::{Game, Rules, Symmetric, Value};

/// "No cell" / "no rotation" in a [`Move`].
pub const NONE: u8 = u8::MAX;

/// Pentago (the rules object; it has no parameters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentago;

/// A Pentago position: the stones, and whether the player to move has
/// already placed and must rotate. Whose turn it is follows from the stone
/// counts (black moves first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    black: u64,
    white: u64,
    must_rotate: bool,
}

/// A turn: the cell placed (a bit index, [`NONE`] when only rotating) and
/// the rotation `2·quadrant + d` (quadrants in notation order lower-left,
/// upper-left, lower-right, upper-right; d 0 clockwise, 1 anticlockwise;
/// [`NONE`] when the placement wins at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    /// Bit index of the cell placed on, or [`NONE`].
    pub cell: u8,
    /// Rotation index `0..8`, or [`NONE`].
    pub rot: u8,
}

impl Position {
    /// The empty board, black to place.
    pub const EMPTY: Position = Position {
        black: 0,
        white: 0,
        must_rotate: false,
    };

    /// A position from bitboards, validated: no cell of both colours, only
    /// cell bits, stone counts consistent with whose turn it is, and no
    /// five of the opponent when the mover is still to rotate.
    pub fn new(black: u64, white: u64, must_rotate: bool) -> Result<Position, PentagoError> {
        if (black | white) & !CELLS != 0 || black & white != 0 {
            return Err(PentagoError::Impossible(
                "a cell outside the board or holding both colours".into(),
            ));
        }
        let (b, w) = (black.count_ones(), white.count_ones());
        if b != w && b != w + 1 {
            return Err(PentagoError::Impossible(format!(
                "{b} black and {w} white stones: black moves first, so black has as many stones as white or one more"
            )));
        }
        let p = Position {
            black,
            white,
            must_rotate,
        };
        if must_rotate {
            if b == 0 && w == 0 {
                return Err(PentagoError::Impossible(
                    "`m` on an empty board: nobody has placed".into(),
                ));
            }
            if has_five(p.theirs()) {
                return Err(PentagoError::Impossible(
                    "`m` but the player who has not placed already has five".into(),
                ));
            }
        }
        Ok(p)
    }

    /// Black stones (bitboard, layout of [`crate::board`]).
    pub fn black(&self) -> u64 {
        self.black
    }

    /// White stones.
    pub fn white(&self) -> u64 {
        self.white
    }

    /// Whether the player to move has placed and must now rotate.
    pub fn must_rotate(&self) -> bool {
        self.must_rotate
    }

    /// Number of stones on the board.
    pub fn stones(&self) -> u32 {
        (self.black | self.white).count_ones()
    }

    /// Empty cells.
    pub fn empty(&self) -> u64 {
        CELLS & !(self.black | self.white)
    }

    /// Whether black is the player to move.
    pub fn black_to_move(&self) -> bool {
        (self.black.count_ones() == self.white.count_ones()) ^ self.must_rotate
    }

    /// The stones of the player to move.
    pub fn mine(&self) -> u64 {
        if self.black_to_move() {
            self.black
        } else {
            self.white
        }
    }

    /// The stones of the other player.
    pub fn theirs(&self) -> u64 {
        if self.black_to_move() {
            self.white
        } else {
            self.black
        }
    }

    /// The value for the player to move if the game is over.
    pub fn outcome(&self) -> Option<Value> {
        let (m, t) = (has_five(self.mine()), has_five(self.theirs()));
        match (m, t) {
            (true, true) => Some(Value::Draw),
            (true, false) => Some(Value::Win),
            (false, true) => Some(Value::Loss),
            // A full board still has its rotation to come when `m`.
            _ if !self.must_rotate && self.empty() == 0 => Some(Value::Draw),
            _ => None,
        }
    }

    /// The position after placing on cell bit `cell` without rotating: the
    /// same player must now rotate (the notation's `m`). The cell must be
    /// empty and no rotation due.
    pub fn place(&self, cell: u8) -> Position {
        let c = 1u64 << cell;
        if self.black_to_move() {
            Position {
                black: self.black | c,
                white: self.white,
                must_rotate: true,
            }
        } else {
            Position {
                black: self.black,
                white: self.white | c,
                must_rotate: true,
            }
        }
    }

    /// The position after rotation `r` of a position that must rotate.
    pub fn rotated(&self, r: u8) -> Position {
        Position {
            black: rotate(self.black, r),
            white: rotate(self.white, r),
            must_rotate: false,
        }
    }
}

impl Rules for Pentago {
    type Position = Position;
    type Move = Move;

    fn start(&self) -> Position {
        Position::EMPTY
    }

    fn for_each_move(&self, pos: &Position, mut f: impl FnMut(Move)) {
        if pos.outcome().is_some() {
            return;
        }
        if pos.must_rotate {
            for rot in 0..8 {
                f(Move { cell: NONE, rot });
            }
            return;
        }
        let mine = pos.mine();
        for cell in board::bits_of(pos.empty()) {
            if has_five(mine | 1 << cell) {
                f(Move { cell, rot: NONE });
            } else {
                for rot in 0..8 {
                    f(Move { cell, rot });
                }
            }
        }
    }

    fn play_unchecked(&self, pos: &Position, mv: Move) -> Position {
        let placed = if mv.cell == NONE {
            *pos
        } else {
            pos.place(mv.cell)
        };
        if mv.rot == NONE {
            Position {
                must_rotate: false,
                ..placed
            }
        } else {
            placed.rotated(mv.rot)
        }
    }

    fn is_legal(&self, pos: &Position, mv: Move) -> bool {
        if pos.outcome().is_some() {
            return false;
        }
        if pos.must_rotate {
            return mv.cell == NONE && mv.rot < 8;
        }
        if mv.cell >= 64 || pos.empty() & (1 << mv.cell) == 0 {
            return false;
        }
        let wins = has_five(pos.mine() | 1 << mv.cell);
        if wins {
            mv.rot == NONE
        } else {
            mv.rot < 8
        }
    }
}

impl Game for Pentago {
    fn outcome(&self, pos: &Position) -> Option<Value> {
        pos.outcome()
    }
}

impl Symmetric for Pentago {
    fn symmetry_count(&self) -> usize {
        8
    }

    fn apply_symmetry(&self, i: usize, pos: &Position) -> Position {
        Position {
            black: board::symmetry(pos.black, i),
            white: board::symmetry(pos.white, i),
            must_rotate: pos.must_rotate,
        }
    }
}
