//! # endgame-sim
//!
//! Sim (Cassis) on K_n for Endgame: rules, exact canonical form, strong solution, players.
//!
//! - [`Sim`]: the rules on K_n (n = 3 … 8), standard (completing a triangle
//!   of your own colour loses) or misère (it wins), with the position and
//!   move notation of `docs/sim.md`, and the core traits `Rules`, `Game`,
//!   `Notation` (in `game.rs`), `Symmetric` and
//!   [`endgame_core::strong::Keyed`] (in [`canon`]).
//! - [`canon`]: the symmetry group (the relabellings of the points, with
//!   the `Symmetric` and `Keyed` impls) and the exact canonical form under
//!   it (colour refinement, then a pruned search over the remaining ties).
//! - [`solve`]: strong and weak solutions, perfect moves mapped back to the
//!   real segment through the canonical relabelling, hints.
//! - [`player`]: the players a battle can build by name.
//! - [`table`]: a solved variant as a compact table, built in parallel
//!   and kept on disk.
//! - [`api`]: the analysis service behind every hint (solved tables,
//!   else the exact search within a budget).

pub mod api;
pub mod canon;
mod error;
mod game;
pub mod picture;
pub mod player;
pub mod solve;
pub mod table;

pub use error::SimError;
pub use game::{Segment, Sim, SimPos, MAX_N, MIN_N};
