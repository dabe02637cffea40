//! # endgame-core
//!
//! The game-independent half of Endgame: the vocabulary every game speaks
//! ([`Rules`], [`Puzzle`], [`Game`], [`Value`]) and the searchers that work on
//! any game implementing it. Searchers are generic and monomorphised: a game
//! pays nothing for the abstraction in the hot loops.
//!
//! - [`dfs`]: memoised depth-first search for puzzles (best result + line).
//! - [`astar`]: best-first search with pluggable heuristics.
//! - [`genetic`]: the weight-vector genetic search of the Glausers'
//!   Java-Solitaire applet (peg solitaire).
//! - [`layered`]: layered enumeration of a whole reachable graph with
//!   symmetry reduction, goal-reachability and exact path counting.
//! - [`restarts`]: budgeted DFS runs with random restarts that keep the
//!   memo of fully explored positions (the meta-solver of Graf's Martello
//!   report).
//! - [`player`]: the [`player::Player`] trait every two-player AI implements.
//! - [`conformance`]: the battery of checks every game must pass.
//! - [`alphabeta`] / [`battle`]: negamax alpha-beta with a transposition table; AI-versus-AI battles.
//! - [`strong`]: strong and weak solving of acyclic games with canonical keys.
//! - [`budget`]: the one budget vocabulary (nodes, deadline, memory, cancel).
//! - [`analysis`]: the shape of every game's hint and the one colour policy.
//! - [`cache`]: solved tables kept on disk, versioned and checksummed.
//! - [`scratch`]: temporary files removed however the process ends.
//! - [`stats`]: quantiles and medians of samples (nearest rank).
//!
//! The studies some of these searchers come from, and the rules and
//! notations of the games, are described in the repository's `docs/`
//! directory, with every source cited by title and author.

pub mod alphabeta;
pub mod analysis;
pub mod astar;
pub mod battle;
pub mod beam;
pub mod budget;
pub mod cache;
pub mod conformance;
pub mod dense;
pub mod dfs;
pub mod genetic;
pub mod goal_table;
pub mod hash;
pub mod layered;
pub mod memory;
pub mod player;
pub mod restarts;
mod rules;
pub mod scratch;
pub mod stats;
pub mod strong;
mod value;

pub use rules::{Game, IllegalMove, Notation, Puzzle, Reversible, Rules, Symmetric};
pub use value::{Outcome, Value};
