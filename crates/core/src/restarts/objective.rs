//! What a searcher minimises: the score, or any function of the
//! position, with the value that ends the search and an optional floor.

#[cfg(doc)]
use super::Searcher;
use crate::Puzzle;

/// What a [`Searcher`] minimises, and the value at which it stops early
/// (nothing can be better).
pub trait Objective<P: Puzzle> {
    /// The value of a position (lower is better).
    fn value(&self, puzzle: &P, pos: &P::Position) -> u32;
    /// A value that cannot be beaten: reaching it ends the search.
    fn stop_at(&self, puzzle: &P) -> u32;
    /// Whether the value is the score itself (lets lazy expansion skip
    /// building children).
    fn by_score(&self) -> bool {
        false
    }
    /// A lower bound on the best value reachable from `pos` (default:
    /// [`Objective::stop_at`]). A best-value search stops at `pos` as soon
    /// as a move reaches it, so it must never exceed the true best: then
    /// every value found stays exact, and an unsolvable position whose
    /// bound its first line meets costs one line instead of its whole
    /// subtree. Goal-only searches ignore it.
    #[inline(always)]
    fn floor(&self, puzzle: &P, _pos: &P::Position) -> u32 {
        self.stop_at(puzzle)
    }
}

/// The puzzle's own [`Puzzle::score`], stopping at [`Puzzle::score_bound`]:
/// the default objective.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByScore;

impl<P: Puzzle> Objective<P> for ByScore {
    #[inline(always)]
    fn value(&self, puzzle: &P, pos: &P::Position) -> u32 {
        puzzle.score(pos)
    }
    #[inline(always)]
    fn stop_at(&self, puzzle: &P) -> u32 {
        puzzle.score_bound()
    }
    fn by_score(&self) -> bool {
        true
    }
}

/// Any function of the position, stopping at a given value (e.g. the
/// genetic search's distance to a goal pattern, stopping at 0).
#[derive(Clone, Copy, Debug)]
pub struct By<G> {
    /// The function minimised.
    pub f: G,
    /// Its unbeatable value.
    pub stop_at: u32,
}

impl<P: Puzzle, G: Fn(&P::Position) -> u32> Objective<P> for By<G> {
    #[inline(always)]
    fn value(&self, _: &P, pos: &P::Position) -> u32 {
        (self.f)(pos)
    }
    #[inline(always)]
    fn stop_at(&self, _: &P) -> u32 {
        self.stop_at
    }
}
