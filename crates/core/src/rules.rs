use crate::value::Value;
use std::fmt::Debug;
use std::hash::Hash;

/// A move that the rules do not allow in the given position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} in this position")]
pub struct IllegalMove {
    /// The move as the game's notation writes it (or its debug form).
    pub mv: String,
}

/// What every game and puzzle shares: positions, moves and playing them.
///
/// Move generation is by callback so hot loops allocate nothing; the
/// convenience [`Rules::moves`] collects into a vector.
pub trait Rules: Sync {
    /// Everything that determines the legal moves and the outcome.
    type Position: Copy + Eq + Ord + Hash + Debug + Send + Sync;
    /// One action as the rules define it.
    type Move: Copy + Eq + Debug + Send + Sync;

    /// The start position of this game or problem.
    fn start(&self) -> Self::Position;

    /// Calls `f` once for every legal move of `pos`, in a fixed order.
    fn for_each_move(&self, pos: &Self::Position, f: impl FnMut(Self::Move));

    /// Plays a move known to be legal (no checks: for hot loops).
    fn play_unchecked(&self, pos: &Self::Position, mv: Self::Move) -> Self::Position;

    /// All legal moves of `pos`, in generation order.
    fn moves(&self, pos: &Self::Position) -> Vec<Self::Move> {
        let mut v = Vec::new();
        self.for_each_move(pos, |m| v.push(m));
        v
    }

    /// Whether `mv` is legal in `pos`. The default searches the generated
    /// moves; games override it with a direct test.
    fn is_legal(&self, pos: &Self::Position, mv: Self::Move) -> bool {
        let mut found = false;
        self.for_each_move(pos, |m| found |= m == mv);
        found
    }

    /// Plays `mv` after checking that it is legal.
    fn play(&self, pos: &Self::Position, mv: Self::Move) -> Result<Self::Position, IllegalMove> {
        if self.is_legal(pos, mv) {
            Ok(self.play_unchecked(pos, mv))
        } else {
            Err(IllegalMove {
                mv: format!("{mv:?}"),
            })
        }
    }
}

/// A one-player puzzle: reach a goal, or failing that the lowest score.
pub trait Puzzle: Rules {
    /// The quantity to minimise (pieces left); goal positions score lowest.
    fn score(&self, pos: &Self::Position) -> u32;

    /// Whether `pos` is a goal position.
    fn is_goal(&self, pos: &Self::Position) -> bool;

    /// A cheap test that proves `pos` cannot reach any goal (pagoda
    /// functions, position classes). `false` means "don't know".
    fn cannot_reach_goal(&self, _pos: &Self::Position) -> bool {
        false
    }

    /// A hint for depth-first searches: children with a lower value are
    /// tried first (ties keep the generation order). The default gives
    /// every position 0. It never affects what is found, only how fast.
    fn search_order(&self, _pos: &Self::Position) -> i64 {
        0
    }

    /// The lowest score any position could ever have (the goal's score);
    /// searches stop early when they reach it.
    fn score_bound(&self) -> u32;
}

/// A two-player, alternating, zero-sum game.
pub trait Game: Rules {
    /// The value for the player to move if `pos` is terminal, else `None`.
    fn outcome(&self, pos: &Self::Position) -> Option<Value>;
}

/// Positions that are equivalent under a group of symmetries.
pub trait Symmetric: Rules {
    /// The number of symmetries in the group (the identity included).
    fn symmetry_count(&self) -> usize;

    /// Applies symmetry `i` (`0 <= i < symmetry_count()`, 0 the identity).
    fn apply_symmetry(&self, i: usize, pos: &Self::Position) -> Self::Position;

    /// The canonical representative of `pos`'s class: equal for every pair
    /// of equivalent positions. The default takes the minimum image.
    fn canonical(&self, pos: &Self::Position) -> Self::Position {
        (0..self.symmetry_count())
            .map(|i| self.apply_symmetry(i, pos))
            .min()
            .expect("a symmetry group contains the identity")
    }

    /// The canonical representative and the size of the class (the orbit).
    fn canonical_and_orbit(&self, pos: &Self::Position) -> (Self::Position, u32) {
        let mut images: Vec<_> = (0..self.symmetry_count())
            .map(|i| self.apply_symmetry(i, pos))
            .collect();
        images.sort_unstable();
        images.dedup();
        (images[0], images.len() as u32)
    }

    /// Calls `f(canonical child)` for every legal move of `pos`. Games with
    /// a faster route (bitboards whose symmetries commute with moves)
    /// override this.
    fn for_each_canonical_child(&self, pos: &Self::Position, mut f: impl FnMut(Self::Position)) {
        self.for_each_move(pos, |m| f(self.canonical(&self.play_unchecked(pos, m))));
    }

    /// Dense keys of the positions, when the puzzle has them: the layered
    /// enumeration then de-duplicates big layers in a ranked bitmap
    /// ([`crate::dense`]). The default has none.
    fn dense_keys(&self) -> Option<&dyn crate::dense::DenseKeys<Self::Position>> {
        None
    }

    /// The size of `pos`'s class: the group's order divided by the number
    /// of symmetries that fix `pos`. Allocates nothing.
    fn orbit_size(&self, pos: &Self::Position) -> u32 {
        let n = self.symmetry_count();
        let fixed = (0..n)
            .filter(|&i| self.apply_symmetry(i, pos) == *pos)
            .count();
        (n / fixed.max(1)) as u32
    }

    /// The sum of the orbit sizes of `positions`: the positions their
    /// classes hold. Games with a batch route override this.
    fn orbit_total(&self, positions: &[Self::Position]) -> u64 {
        positions
            .iter()
            .map(|p| u64::from(self.orbit_size(p)))
            .sum()
    }

    /// Calls `f(canonical child, orbit size of the child)` for every legal
    /// move of `pos`, like [`Symmetric::for_each_canonical_child`]. Games
    /// that compute every image of a child anyway override this.
    fn for_each_canonical_child_orbit(
        &self,
        pos: &Self::Position,
        mut f: impl FnMut(Self::Position, u32),
    ) {
        self.for_each_move(pos, |m| {
            let (c, o) = self.canonical_and_orbit(&self.play_unchecked(pos, m));
            f(c, o)
        });
    }
}

/// Puzzles whose moves can be generated backwards: the predecessors of a
/// position. Used to enumerate the positions that can reach the goal.
pub trait Reversible: Puzzle {
    /// Every goal position (for enumeration backwards from them).
    fn goals(&self) -> Vec<Self::Position>;

    /// Calls `f(parent)` for every position from which one legal move
    /// leads to `pos`, once per such move.
    fn for_each_parent(&self, pos: &Self::Position, f: impl FnMut(Self::Position));

    /// The puzzle's time reversal, where it has one: an involution `σ`
    /// such that `q` is a child of `p` exactly when `σ(p)` is a child of
    /// `σ(q)`, that commutes with the symmetries and maps the start to the
    /// one goal (peg solitaire's complement, when the goal is the
    /// complement of the start). The positions that can reach the goal in
    /// `k` moves are then the images of those reached from the start in
    /// `k` moves, and the goal-only enumeration uses this instead of
    /// searching backwards. The default has none.
    fn reversal(&self, _pos: &Self::Position) -> Option<Self::Position> {
        None
    }

    /// A fast route for puzzles that are also [`Symmetric`]: calls
    /// `f(canonical parent, orbit size of the parent)` for every parent of
    /// `pos` (once per move, like [`Reversible::for_each_parent`]) and
    /// returns `true`. The default has no such route, calls nothing and
    /// returns `false`; callers then canonicalise each parent themselves.
    fn for_each_canonical_parent_orbit(
        &self,
        _pos: &Self::Position,
        _f: impl FnMut(Self::Position, u32),
    ) -> bool {
        false
    }
}

/// Reading and writing positions and moves as text.
pub trait Notation: Rules {
    /// The error type of the parsers.
    type Error: std::error::Error;
    /// Writes a move in the game's notation.
    fn format_move(&self, mv: Self::Move) -> String;
    /// Reads a move in the game's notation (syntax only; not legality).
    fn parse_move(&self, s: &str) -> Result<Self::Move, Self::Error>;
    /// Writes a position in the game's notation.
    fn format_position(&self, pos: &Self::Position) -> String;
    /// Reads and validates a position.
    fn parse_position(&self, s: &str) -> Result<Self::Position, Self::Error>;
}
