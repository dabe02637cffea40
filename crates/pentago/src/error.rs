//! Errors of the Pentago crate.

/// Anything wrong with a position, a move or a player name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PentagoError {
    /// The position text is not the interchange notation.
    #[error("bad position {0:?}: expected a 64-bit number with an optional trailing `m` (the perfect-pentago.net format, see docs/pentago.md)")]
    BadPosition(String),
    /// A quadrant's 16 bits are not a 9-digit base-3 number.
    #[error("bad position {text:?}: quadrant {quadrant} holds {value}, more than 3^9 - 1")]
    BadQuadrant {
        /// The position text.
        text: String,
        /// The quadrant (0 lower-left, 1 upper-left, 2 lower-right, 3 upper-right).
        quadrant: usize,
        /// Its 16-bit value.
        value: u64,
    },
    /// The stones cannot arise in a game.
    #[error("impossible position: {0}")]
    Impossible(String),
    /// The move text is not the move notation.
    #[error("bad move {0:?}: expected e.g. `c4 ur cw` (cell a1..f6, quadrant ll/ul/lr/ur, cw/ccw), `c4` for a placement that wins, `ur cw` when only a rotation is due")]
    BadMove(String),
    /// The move is not legal in the position.
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// No player of that name.
    #[error("unknown player {0:?}: the players are {1}")]
    UnknownPlayer(String, String),
}
