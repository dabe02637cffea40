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
pub mod notation;
pub mod pagoda;
pub mod problem;

pub use bits::Bits;
pub use board::{Board, Jump, Lattice};
pub use error::PegError;
pub use problem::{Goal, Problem, Pruning};
pub mod api;
pub mod goalset;
pub mod heuristics;
mod service;
pub mod study;

/// Most worker threads [`with_threads`] accepts.
pub const MAX_THREADS: usize = 1024;

/// Runs `f` on a pool of `threads` workers (every parallel step of the
/// enumerations inside it uses them); `None` uses the global pool (all
/// cores, or `RAYON_NUM_THREADS`). Errs on 0 or more than
/// [`MAX_THREADS`] threads, or when the pool cannot start.
pub fn with_threads<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<R, String> {
    let Some(n) = threads else {
        return Ok(f());
    };
    if n == 0 || n > MAX_THREADS {
        return Err(format!("--threads {n} out of range 1..={MAX_THREADS}"));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| format!("cannot start {n} threads: {e}"))?;
    Ok(pool.install(f))
}
