//! The single-vacancy study: on a board, every problem "vacate one hole,
//! finish with one peg anywhere" and "… finish in the vacated hole",
//! each answered with a solution or the reason none exists.

use crate::api::{self, Budget, Finish, Method, Spec};
use crate::board::Board;
use crate::error::PegError;
use serde::Serialize;
use std::time::Instant;

/// One problem of the study.
#[derive(Clone, Debug, Serialize)]
pub struct StudyRow {
    /// Board name.
    pub board: String,
    /// The vacated hole.
    pub vacate: String,
    /// `any` or the hole to finish in.
    pub finish: String,
    /// `true` solved, `false` proven impossible, `null` undecided.
    pub solvable: Option<bool>,
    /// How it was decided: `search (genetic)` or `search (dfs)` (a
    /// solution found), `position class`, `pagoda`, `exhaustive search`,
    /// or `budget` (undecided).
    pub decided_by: String,
    /// The reason when impossible.
    pub reason: Option<String>,
    /// A solution when solvable.
    pub solution: Vec<String>,
    /// Positions expanded.
    pub expansions: u64,
    /// Wall time in milliseconds.
    pub time_ms: f64,
}

/// Runs the study on one board (built-in name), both finishes for every
/// hole, in hole order.
pub fn single_vacancy(
    board: &str,
    diagonal: bool,
    budget: &Budget,
) -> Result<Vec<StudyRow>, PegError> {
    let b = Board::named(board, diagonal)?;
    let mut rows = Vec::new();
    for h in 0..b.holes() {
        let name = b.hole_name(h).to_string();
        for finish in [Finish::Any, Finish::Hole(name.clone())] {
            let spec = Spec {
                vacate: Some(vec![name.clone()]),
                finish: finish.clone(),
                diagonal,
                ..Spec::named(board)
            };
            let t0 = Instant::now();
            let p = api::build(&spec)?;
            // The genetic search often finds a solution in milliseconds
            // where depth-first search needs millions of expansions (the
            // French "finish anywhere" problems have no pagoda to prune
            // with); it cannot prove impossibility, so DFS decides the rest.
            let genetic = api::solve_goal_only(&p, Method::Genetic, budget);
            let (r, searched_by) = if genetic.solvable == Some(true) {
                (genetic, "search (genetic)")
            } else {
                let mut dfs = api::solve_goal_only(&p, Method::Dfs, budget);
                dfs.expansions += genetic.expansions;
                (dfs, "search (dfs)")
            };
            let decided_by = match (&r.solvable, &r.reason) {
                (Some(true), _) => searched_by,
                (Some(false), Some(reason)) if reason.starts_with("position class") => {
                    "position class"
                }
                (Some(false), Some(reason)) if reason.starts_with("pagoda") => "pagoda",
                (Some(false), _) => "exhaustive search",
                (None, _) => "budget",
            };
            rows.push(StudyRow {
                board: b.name().to_string(),
                vacate: name.clone(),
                finish: match finish {
                    Finish::Any => "any".into(),
                    _ => name.clone(),
                },
                solvable: r.solvable,
                decided_by: decided_by.to_string(),
                reason: r.reason,
                solution: if r.solvable == Some(true) {
                    r.line
                } else {
                    Vec::new()
                },
                expansions: r.expansions,
                time_ms: t0.elapsed().as_secs_f64() * 1e3,
            });
        }
    }
    Ok(rows)
}
