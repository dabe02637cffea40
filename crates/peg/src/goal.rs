//! What counts as solved in a peg-solitaire problem.

/// What counts as solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Pegs exactly on these holes (one hole: finish in that hole).
    Pattern(Vec<usize>),
    /// One peg left, anywhere.
    AnyOne,
}
