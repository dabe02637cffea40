//! # endgame-peg
//!
//! Peg solitaire for Endgame: boards (English, French, Wiegleb, diamond,
//! triangular, or drawn as ASCII art), bitboard problems implementing the
//! core traits, position classes and pagoda functions for pruning, the
//! heuristics of the source studies, and the high-level operations the
//! command line and the web use (solve, count, hint).

pub mod bits;
pub mod board;
pub mod class;
mod error;
mod goal;
pub mod notation;
pub mod pagoda;
pub mod problem;

pub use bits::Bits;
pub use board::{Board, Jump, Lattice};
pub use error::PegError;
pub use problem::{Goal, PegSolitaire, Pruning};
pub mod api;
pub mod counts;
pub mod goalset;
pub mod heuristics;
pub mod ladder;
pub mod paths;
mod service;
pub mod study;
