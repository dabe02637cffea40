//! # endgame-martello
//!
//! Martello n×n (n = 1 … 8) for Endgame: the rules and board strings of
//! `docs/martello.md`, normalised states and operations, the real moves
//! behind each operation, an independent brute force over raw boards, the
//! exact solver and the restart meta-solver (both on
//! `endgame_core::restarts`), hints, the analysis service behind every
//! hint, and the random-board study of Graf's Martello report.
//!
//! - [`board`]: raw boards, board strings, validation, random starts.
//! - [`state`]: normalised states, operations, symmetries, the
//!   [`Martello`] puzzle (core traits).
//! - [`real`]: an operation as the slides, eat and re-packing a person makes.
//! - [`brute`]: the brute force over raw boards with explicit slides.
//! - [`solver`]: exact solver, meta-solver, hints.
//! - [`api`]: the analysis service ([`api::Service::analyze`]): the
//!   hint the command line and the web both give.
//! - [`study`]: the study of random boards.

// Row-indexed loops over parallel per-row arrays read better than zips.
#![allow(clippy::needless_range_loop)]

pub mod api;
pub mod board;
pub mod brute;
pub mod real;
pub mod solver;
pub mod state;
pub mod study;

pub use board::{Board, MartelloError};
pub use solver::{hints, solve, Hint, Solution, SolveOptions, SymmetryMode};
pub use state::{Martello, Op, State};
