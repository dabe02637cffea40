//! Solving Sim: strong and weak solutions on the exact canonical form,
//! the variants of erik's Cassis article for comparison, perfect moves
//! mapped back through the canonical relabelling, and hints.

use crate::canon;
use crate::game::{Segment, Sim, SimPos};
use endgame_core::hash::FxHashMap;
use endgame_core::strong::{self, Keyed, Packed, StrongSolution, WeakSolution};
use endgame_core::{Game, Outcome, Rules};

/// Which key the weak solve memoises positions by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyKind {
    /// The exact canonical form (isomorphic positions share one entry).
    Exact,
    /// The approximate normal form of erik's Cassis article: points sorted
    /// by (red degree, blue degree).
    DegreeSorted,
    /// The position itself (the article's first hashing version).
    Raw,
}

/// Sim with a chosen key, for the weak-solve comparison.
#[derive(Clone, Copy, Debug)]
pub struct WithKey<'a> {
    /// The game.
    pub sim: &'a Sim,
    /// The key.
    pub key: KeyKind,
}

impl Rules for WithKey<'_> {
    type Position = SimPos;
    type Move = Segment;
    fn start(&self) -> SimPos {
        self.sim.start()
    }
    fn for_each_move(&self, pos: &SimPos, f: impl FnMut(Segment)) {
        self.sim.for_each_move(pos, f)
    }
    fn play_unchecked(&self, pos: &SimPos, mv: Segment) -> SimPos {
        self.sim.play_unchecked(pos, mv)
    }
}

impl Game for WithKey<'_> {
    fn outcome(&self, pos: &SimPos) -> Option<endgame_core::Value> {
        self.sim.outcome(pos)
    }
}

impl Keyed for WithKey<'_> {
    fn canonical_key(&self, pos: &SimPos) -> SimPos {
        match self.key {
            KeyKind::Exact => self.sim.canonical_key(pos),
            KeyKind::DegreeSorted => canon::degree_sorted(self.sim, pos),
            KeyKind::Raw => *pos,
        }
    }
    fn move_number(&self, pos: &SimPos) -> usize {
        pos.coloured() as usize
    }
}

/// Every position reachable from the start, up to isomorphism, solved.
pub fn strong(sim: &Sim) -> StrongSolution<SimPos> {
    strong::strong_solve(sim)
}

/// The value of `root` by memoised negamax with the given key.
pub fn weak(sim: &Sim, root: &SimPos, key: KeyKind) -> WeakSolution {
    strong::weak_solve(&WithKey { sim, key }, root)
}

/// A table of solved canonical positions, filled lazily.
pub type Table = FxHashMap<SimPos, Packed>;

/// The outcome of `pos` for the player to move (solving what is missing
/// into `table`).
pub fn outcome(sim: &Sim, table: &mut Table, pos: &SimPos) -> Outcome {
    strong::solve_lazily(sim, table, pos)
}

/// The perfect move of `pos` (fastest win, else a draw, else the slowest
/// loss) and the outcome it proves, `None` when the game is over.
///
/// The choice is made on the canonical form, then mapped back through the
/// canonical relabelling to the segment of `pos` itself.
pub fn best_move(sim: &Sim, table: &mut Table, pos: &SimPos) -> Option<(Segment, Outcome)> {
    let (canon, perm) = sim.canonical_with_perm(pos);
    let (m, o) = strong::best_move(sim, table, &canon)?;
    let (ci, cj) = sim.ends(m);
    // perm maps real points to canonical ones; invert it for the way back.
    let mut inv = [0usize; crate::MAX_N];
    for v in 0..sim.n() {
        inv[perm[v] as usize] = v;
    }
    Some((sim.segment(inv[ci], inv[cj]), o))
}

/// Every legal move of `pos` with the outcome it gives the player who
/// makes it (value for that player, remoteness counting the move), best
/// first; ties keep segment order.
pub fn hint(sim: &Sim, table: &mut Table, pos: &SimPos) -> Vec<(Segment, Outcome)> {
    let mut out: Vec<(Segment, Outcome)> = sim
        .moves(pos)
        .into_iter()
        .map(|m| {
            let child = sim.play_unchecked(pos, m);
            (m, Outcome::parent_of(outcome(sim, table, &child)))
        })
        .collect();
    // Stable sort: better outcomes first.
    out.sort_by(|a, b| a.1.best_first(&b.1));
    out
}
