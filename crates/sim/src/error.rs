//! The one error type of the Sim crate: every kind of bad input.

/// Bad input: a malformed or impossible position, an illegal move, a
/// parameter out of range or an unknown player name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// `n` outside the supported range.
    #[error("Sim is played on K_n for n = 3 to 8, not n = {0}")]
    BadN(usize),
    /// A position string whose length is not C(n, 2) for a supported n.
    #[error("a Sim position has one character per segment: {expected}, not {got}")]
    WrongLength {
        /// What was expected (a number or a list of them).
        expected: String,
        /// The length given.
        got: usize,
    },
    /// A character other than `.`, `r`, `b`.
    #[error("unknown character {ch:?} at segment {index} (use '.', 'r' or 'b')")]
    UnknownChar {
        /// The character.
        ch: char,
        /// Its index in the string.
        index: usize,
    },
    /// Colour counts that alternating play with red first cannot produce.
    #[error(
        "{red} red and {blue} blue segments: impossible when red moves first and players alternate"
    )]
    ImpossibleCounts {
        /// Red segments.
        red: u32,
        /// Blue segments.
        blue: u32,
    },
    /// Both players have a triangle.
    #[error("both colours have a triangle: the game ends at the first one")]
    BothTriangles,
    /// A triangle that the last move cannot have completed.
    #[error("{0}")]
    Unreachable(String),
    /// A move that is not a segment of K_n.
    #[error("bad move {0:?}: write a segment as two distinct point letters, e.g. 'ac'")]
    BadMove(String),
    /// A move on a coloured segment, or after the end of the game.
    #[error("illegal move {0}: {1}")]
    IllegalMove(String, String),
    /// A player name no one knows.
    #[error("unknown player {0:?} (known: {1})")]
    UnknownPlayer(String, String),
}
