//! Endgame's layered enumeration spread over processes and machines.
//!
//! `endgame_core::layered` counts a puzzle's reachable graph layer by layer
//! in one process; this crate runs the same enumeration over a cluster of
//! processes, one timely dataflow worker each, joined over TCP. Every
//! canonical position is owned by one process (by rank block in a layer
//! big enough for a ranked bitmap, else by the hash of its key); each
//! layer's children travel to their owners, each process de-duplicates its
//! share, and the per-layer counts, goal-reaching counts and solutions are
//! summed to every process, process 0 reporting them ([`enumerate`]).
//!
//! A separate crate because it is the one that talks over the network:
//! the games and the web need none of it, and `endgame-core` stays free of
//! timely and its communication threads. Its engine knows no game; the
//! [`peg`] module adapts the peg api's problems to it, so the command line
//! hands it a problem.

mod channel;
mod checkpoint;
mod engine;
mod local;
mod net;
pub mod peg;
mod spill;

pub use checkpoint::Checkpoint;
pub use engine::{enumerate, enumerate_run, LayerLine, Run, RunStats};
pub use local::{start, LocalWorkers, MAX_LOCAL_PROCESSES};
pub use net::{Cluster, MAX_PROCESSES};
pub use spill::Spill;

use endgame_core::layered::LayeredError;

/// Makes every panic of this process, in any thread (timely's
/// communication threads panic when a peer's connection breaks), one
/// `error:` line and exit status 2, instead of a backtrace and a hang.
pub fn exit_on_panic(process: usize) {
    std::panic::set_hook(Box::new(move |info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".into());
        // A peer that ended on Ctrl-C breaks the connection: the
        // interrupt, not a fault.
        if endgame_core::budget::interrupted() {
            endgame_core::scratch::exit(130, "error: interrupted");
        }
        let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
        endgame_core::scratch::exit(2, &format!("error: cluster process {process}: {what}"));
    }));
}

/// Why a count across processes failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The cluster's description is wrong: host file, process index, or a
    /// peer that disagrees on the job or the number of processes.
    #[error("{0}")]
    Config(String),
    /// A peer could not be reached or the connection failed.
    #[error("{0}")]
    Network(String),
    /// The count stopped (memory budget, deadline), as in one process.
    #[error("{0}")]
    Count(LayeredError),
    /// The count asked for has no distributed route yet.
    #[error("{0}")]
    Unsupported(String),
}
