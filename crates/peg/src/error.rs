/// Everything that can be wrong with peg-solitaire input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PegError {
    /// A board name that is not built in.
    #[error("unknown board '{0}' (built-in boards: {1})")]
    UnknownBoard(String, String),
    /// ASCII art with a character other than `o`, `.` or space.
    #[error("board art line {line}, column {col}: unexpected character '{ch}' (use 'o' peg, '.' hole, space for no hole)")]
    BadArtChar {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// The offending character.
        ch: char,
    },
    /// ASCII art that describes no usable board.
    #[error("board art: {0}")]
    BadArt(String),
    /// A hole name that is not on the board.
    #[error("no hole named '{0}' on board {1}")]
    UnknownHole(String, String),
    /// A move in the wrong syntax.
    #[error("malformed move '{0}' (write it from-to, e.g. d2-d4)")]
    BadMove(String),
    /// A move that the rules do not allow.
    #[error("illegal move {0}: {1}")]
    IllegalMove(String, String),
    /// A search or count that would exceed its memory budget.
    #[error("{0}")]
    Budget(String),
    /// A position string that does not fit the board.
    #[error("position: {0}")]
    BadPosition(String),
}
