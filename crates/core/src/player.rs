//! Players of two-player games: anything that picks a move in a position.
//!
//! Players are called a few times per game, never in a hot loop, so the
//! battle code holds them as `Box<dyn Player<G>>`; what a player does
//! inside [`Player::choose`] is monomorphised as usual.

use crate::rules::Game;
use std::time::Duration;

/// What a player may spend on one decision. `None` means no limit of
/// that kind; players that ignore limits (random, a fixed-depth search)
/// simply ignore them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveLimits {
    /// Wall-clock time for the decision.
    pub time: Option<Duration>,
    /// Positions the player may expand for the decision.
    pub nodes: Option<u64>,
    /// Bytes of tables the decision may allocate beyond the player's own
    /// fixed ones (an exact solver's layers), `None`: the player's
    /// default. A player refuses such work rather than outgrow it.
    pub memory: Option<u64>,
}

/// A strategy for a two-player game.
///
/// A player is built with its own seeded random generator where it needs
/// one, so that a battle with a given seed replays exactly.
pub trait Player<G: Game>: Send {
    /// The name the command line uses for this player (`random`, `perfect` …).
    fn name(&self) -> String;

    /// Picks a legal move of `pos`. Called only on positions that are not
    /// terminal and have at least one legal move.
    fn choose(&mut self, game: &G, pos: &G::Position, limits: &MoveLimits) -> G::Move;
}
