//! # endgame-pentago
//!
//! Pentago for Endgame: bitboards, win tables, exact late-game solver, AI
//! players.
//!
//! - [`api`]: the service behind both front ends: hints, solves and the
//!   AI's move ([`api::Service`], [`api::Ai`]).
//! - [`board`]: bit layout, rotation, line and symmetry tables.
//! - [`game`]: [`Position`], [`Move`] and the rules ([`Pentago`] implements
//!   the core traits `Rules`, `Game`, `Symmetric`, `Notation`).
//! - [`notation`]: the interchange notation, the move notation, the ASCII
//!   board.
//! - [`solve`]: the exact solver (value of a position and its children).
//! - [`mid`]: the retrograde midgame solver over a root's downstream
//!   positions with rotations abstracted (used by [`solve`] late enough).
//! - [`player`]: the `random`, `reference` and `strong` players.

pub mod api;
pub mod board;
pub mod error;
pub mod eval;
pub mod game;
pub mod mid;
pub mod notation;
pub mod player;
pub mod solve;

pub use error::PentagoError;
pub use game::{Move, Pentago, Position};

impl endgame_core::Notation for Pentago {
    type Error = PentagoError;

    fn format_move(&self, mv: Move) -> String {
        notation::format_move(mv)
    }

    fn parse_move(&self, s: &str) -> Result<Move, PentagoError> {
        notation::parse_move(s)
    }

    fn format_position(&self, pos: &Position) -> String {
        notation::format_position(pos)
    }

    fn parse_position(&self, s: &str) -> Result<Position, PentagoError> {
        notation::parse_position(s)
    }
}
