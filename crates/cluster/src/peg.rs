//! Peg solitaire across processes: the one place that turns the peg
//! api's problems into the engine's puzzles, so the command line hands
//! over a problem and prints a report.

use crate::{enumerate_run, Cluster, ClusterError, Run, RunStats};
use endgame_core::layered::LayeredOptions;
use endgame_peg::api::{self, AnyProblem, CountReport};
use std::time::Instant;

/// The layered count of `problem` across `cluster`, as one process's
/// [`api::count`] reports it (its time counted from `started`), with the
/// run's exchange figures; `None` on every process but 0.
pub fn count(
    problem: &AnyProblem,
    opts: &LayeredOptions,
    cluster: &Cluster,
    run: &Run<'_>,
    started: Instant,
) -> Result<Option<(CountReport, RunStats)>, ClusterError> {
    endgame_peg::with_problem!(problem, p => {
        enumerate_run(p, opts, cluster, run)
            .map(|r| r.map(|(r, stats)| (api::count_report(p, &r, started), stats)))
    })
}
