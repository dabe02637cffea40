//! Budgeted depth-first runs with random restarts (the meta-solver of
//! Graf's Martello report, `docs/martello.md`), generic over any
//! [`Puzzle`](crate::Puzzle).
//!
//! A [`Searcher`] owns a memo of *fully explored* positions (keyed by a
//! caller-chosen key: identity, a canonical form under symmetry, a compact
//! packing) with the exact best score reachable from each. A run is a
//! depth-first search that may stop when its expansion budget runs out;
//! positions on the stack of an aborted run were never entered in the
//! memo, so everything the memo holds stays exact and later runs reuse it.
//! [`solve`] runs a [`Schedule`] of such runs (random child order each,
//! so restarts explore different parts of the tree) and, if none
//! finishes, one unbounded run that always does.
//!
//! The plain exact solver is the empty schedule: a single unbounded run in
//! generation order.
//!
//! One idea a file: [`Schedule`]s (`schedule.rs`); the [`Memo`] of fully
//! explored positions and its [`MemoPool`] (`memo.rs`); the [`Rng`] of
//! the random child orders (`rng.rs`); how positions are expanded,
//! eagerly or lazily ([`Children`], `children.rs`); what is minimised
//! ([`Objective`], `objective.rs`); the [`Searcher`] and its loop
//! (`searcher.rs`); and the restart solver built on it ([`solve`] and its
//! variants, `solve.rs`).

mod children;
mod memo;
mod objective;
mod rng;
mod schedule;
mod searcher;
mod solve;
#[cfg(test)]
mod tests;

pub use children::{children_by_moves, Children, ChildrenFn, LazyChild, LazyOf};
pub use memo::{Memo, MemoPool, Vacancy};
pub use objective::{By, ByScore, Objective};
pub use rng::Rng;
pub use schedule::Schedule;
pub use searcher::{Searcher, CHECK_EVERY, INEXACT};
pub use solve::{
    solve, solve_floored, solve_pooled, solve_with, RestartOptions, RestartReport, RestartSearch,
};
