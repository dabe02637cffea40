//! How a searcher expands a position: every child built (any function of
//! the puzzle's moves), or lazily, each child's key and tests first and
//! its position only when the search descends into it.

#[cfg(doc)]
use super::Searcher;
use crate::Puzzle;

/// The children of a position by the puzzle's own moves: the default way
/// a [`Searcher`] expands positions.
pub fn children_by_moves<P: Puzzle>(
    puzzle: &P,
    pos: &P::Position,
    out: &mut Vec<(P::Move, P::Position)>,
) {
    puzzle.for_each_move(pos, |m| out.push((m, puzzle.play_unchecked(pos, m))));
}

/// How a [`Searcher`] expands positions.
pub type ChildrenFn<P> = fn(
    &P,
    &<P as crate::Rules>::Position,
    &mut Vec<(<P as crate::Rules>::Move, <P as crate::Rules>::Position)>,
);

/// One child of a lazy expansion ([`Children::expand_lazy`]): what the
/// search needs to decide whether to descend, without the child position.
#[derive(Clone, Copy, Debug)]
pub struct LazyChild<M, K, A> {
    /// The move to the child.
    pub mv: M,
    /// The child's memo key (equal to the searcher's key function of the
    /// child position).
    pub key: K,
    /// The child's [`Puzzle::score`].
    pub score: u32,
    /// The child's [`Puzzle::is_goal`].
    pub goal: bool,
    /// The child's [`Puzzle::cannot_reach_goal`].
    pub pruned: bool,
    /// Whatever the expander needs to build the child quickly.
    pub aux: A,
    /// The key's memo hash: set by the searcher (expanders leave 0).
    pub hash: u64,
}

/// How a [`Searcher`] expands positions. Every `Fn(&P, &P::Position,
/// &mut Vec<(P::Move, P::Position)>)` is one (building every child);
/// a game may also implement the lazy interface, which yields each child's
/// key and tests first and builds the position only when the search
/// descends into it (most children are memo hits).
pub trait Children<P: Puzzle, K> {
    /// Extra data of a lazy child (see [`LazyChild::aux`]).
    type Aux: Copy;
    /// Pushes every move of `pos` with its child position.
    fn expand(&self, puzzle: &P, pos: &P::Position, out: &mut Vec<(P::Move, P::Position)>);
    /// Appends the moves of `pos` to `out` as [`LazyChild`]ren (leaving
    /// what `out` holds: the searcher keeps the children of every depth
    /// in one buffer), in the order
    /// [`Children::expand`] yields them, and returns how many children
    /// `pos` has; or returns `None` (the default) and the search uses
    /// [`Children::expand`]. With `skip_pruned` (a goal-only search that
    /// prunes) the expander may leave out children whose
    /// [`LazyChild::pruned`] is set (the search would drop them unprobed
    /// anyway), saving their keys; the count still includes them. Only
    /// used with the score as objective, and with [`Searcher::ordered`]
    /// only where [`Children::ranks`].
    #[inline(always)]
    fn expand_lazy(
        &self,
        _puzzle: &P,
        _pos: &P::Position,
        _out: &mut Vec<LazyChild<P::Move, K, Self::Aux>>,
        _skip_pruned: bool,
    ) -> Option<u64> {
        None
    }
    /// Whether [`Children::rank`] orders lazy children as
    /// [`Puzzle::search_order`] orders their positions, so that a
    /// [`Searcher::ordered`] search may expand lazily. `false` (the
    /// default): an ordered search builds every child.
    #[inline(always)]
    fn ranks(&self) -> bool {
        false
    }
    /// The rank of a lazy child of `pos` for an ordered search (lower
    /// first): any number that sorts children as [`Puzzle::search_order`]
    /// sorts their positions (only the order matters, so a rank may
    /// leave out what every child of `pos` shares).
    #[inline(always)]
    fn rank(&self, _puzzle: &P, _pos: &P::Position, _c: &LazyChild<P::Move, K, Self::Aux>) -> i64 {
        0
    }
    /// The position of a lazy child of `pos`.
    #[inline(always)]
    fn build(
        &self,
        puzzle: &P,
        pos: &P::Position,
        c: &LazyChild<P::Move, K, Self::Aux>,
    ) -> P::Position {
        puzzle.play_unchecked(pos, c.mv)
    }
}

/// The lazy child type of expander `E`.
pub type LazyOf<P, K, E> = LazyChild<<P as crate::Rules>::Move, K, <E as Children<P, K>>::Aux>;

impl<P: Puzzle, K, E> Children<P, K> for E
where
    E: Fn(&P, &P::Position, &mut Vec<(P::Move, P::Position)>),
{
    type Aux = ();
    #[inline(always)]
    fn expand(&self, puzzle: &P, pos: &P::Position, out: &mut Vec<(P::Move, P::Position)>) {
        self(puzzle, pos, out)
    }
}
