//! The single-vacancy study: on a board, every problem "vacate one hole,
//! finish with one peg anywhere" and "… finish in the vacated hole",
//! each answered with a solution or the reason none exists, and how it
//! was decided ([`DecidedBy`]).
//!
//! [`single_vacancy_problem`] answers one problem; [`single_vacancy`] runs
//! them all for `endgame study peg`, and the lab's `peg-single-vacancy`
//! experiment stores one problem per unit.

use crate::api::{self, Budget, Finish, Method, Spec};
use crate::board::Board;
use crate::error::PegError;
use crate::problem::Pruning;
use endgame_core::analysis::DecidedBy;
use endgame_core::Rules;
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
    /// How it was decided: a search that found a solution, the proof of
    /// impossibility (position class, pagoda, exhaustive search), or the
    /// budget (undecided).
    pub decided_by: DecidedBy,
    /// The reason when impossible.
    pub reason: Option<String>,
    /// A solution when solvable.
    pub solution: Vec<String>,
    /// Positions expanded.
    pub expansions: u64,
    /// Wall time in milliseconds.
    pub time_ms: f64,
}

/// The problems of the study on `board`: two per hole (finish anywhere,
/// then in the vacated hole), numbered `2 × hole + finish_in_hole`.
pub fn single_vacancy_problems(board: &Board) -> u64 {
    2 * board.holes() as u64
}

/// Problem number `index` of the study on a built-in board (see
/// [`single_vacancy_problems`]): vacate hole `index / 2`, finish anywhere
/// (even `index`) or in that hole (odd). The genetic search, with the
/// budget's seed, tries first; depth-first search decides the rest.
pub fn single_vacancy_problem(
    board: &str,
    diagonal: bool,
    index: u64,
    budget: &Budget,
) -> Result<StudyRow, PegError> {
    let b = Board::named(board, diagonal)?;
    let n = single_vacancy_problems(&b);
    if index >= n {
        return Err(PegError::BadPosition(format!(
            "the single-vacancy study on {board} has {n} problems, so no problem {index}"
        )));
    }
    let name = b.hole_name((index / 2) as usize).to_string();
    let in_hole = index % 2 == 1;
    let spec = Spec {
        vacate: Some(vec![name.clone()]),
        finish: if in_hole {
            Finish::Hole(name.clone())
        } else {
            Finish::Any
        },
        diagonal,
        ..Spec::named(board)
    };
    let t0 = Instant::now();
    let p = api::build(&spec)?;
    // The genetic search often finds a solution in milliseconds where
    // depth-first search needs millions of expansions (the French "finish
    // anywhere" problems have no pagoda to prune with); it cannot prove
    // impossibility, so DFS decides the rest.
    let genetic = api::solve_goal_only(&p, Method::Genetic, budget);
    let (r, searched_by) = if genetic.solvable == Some(true) {
        (genetic, DecidedBy::GeneticSearch)
    } else {
        let mut dfs = api::solve_goal_only(&p, Method::Dfs, budget);
        dfs.expansions += genetic.expansions;
        (dfs, DecidedBy::DfsSearch)
    };
    let decided_by = match r.solvable {
        Some(true) => searched_by,
        Some(false) => impossibility_proof(&spec, &p)?,
        None => DecidedBy::Budget,
    };
    Ok(StudyRow {
        board: b.name().to_string(),
        vacate: name.clone(),
        finish: if in_hole { name } else { "any".into() },
        solvable: r.solvable,
        decided_by,
        reason: r.reason,
        solution: if r.solvable == Some(true) {
            r.line
        } else {
            Vec::new()
        },
        expansions: r.expansions,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
    })
}

/// Which proof shows that the start of `p` (built from `spec`) cannot
/// reach its goal. The solver tries the problem's quick tests first, the
/// position classes and then the pagoda functions
/// ([`crate::PegSolitaire::impossibility`]), and searches only when both pass:
/// so the classes alone deciding it means a class proof, the quick tests
/// together a pagoda proof, and neither the exhaustive search.
fn impossibility_proof(spec: &Spec, p: &api::AnyProblem) -> Result<DecidedBy, PegError> {
    let quick =
        |q: &api::AnyProblem| crate::with_problem!(q, q => q.impossibility(q.start()).is_some());
    if !quick(p) {
        return Ok(DecidedBy::ExhaustiveSearch);
    }
    let classes_only = api::build(&Spec {
        pruning: Pruning {
            classes: true,
            pagodas: false,
        },
        ..spec.clone()
    })?;
    Ok(if spec.pruning.classes && quick(&classes_only) {
        DecidedBy::PositionClass
    } else {
        DecidedBy::Pagoda
    })
}

/// Runs the study on one board (built-in name), both finishes for every
/// hole, in hole order, every problem with the same budget.
pub fn single_vacancy(
    board: &str,
    diagonal: bool,
    budget: &Budget,
) -> Result<Vec<StudyRow>, PegError> {
    let b = Board::named(board, diagonal)?;
    (0..single_vacancy_problems(&b))
        .map(|i| single_vacancy_problem(board, diagonal, i, budget))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proof each impossible problem gets agrees with the reason the
    /// solver wrote (the words it opens with), the way the lab once told
    /// them apart; the triangle has impossible problems of two kinds.
    #[test]
    fn the_proof_agrees_with_the_reason_text() {
        let mut seen = std::collections::BTreeSet::new();
        for board in ["triangle", "english"] {
            for r in single_vacancy(board, false, &Budget::default()).unwrap() {
                assert_eq!(r.decided_by.solvable(), r.solvable, "{r:?}");
                if r.solvable == Some(false) {
                    let reason = r.reason.as_deref().unwrap();
                    let by_text = if reason.starts_with("position class") {
                        DecidedBy::PositionClass
                    } else if reason.starts_with("pagoda") {
                        DecidedBy::Pagoda
                    } else {
                        DecidedBy::ExhaustiveSearch
                    };
                    assert_eq!(r.decided_by, by_text, "{board} {r:?}");
                }
                seen.insert(r.decided_by);
            }
        }
        eprintln!("{seen:?}");
    }

    /// Each proof of impossibility on a problem made for it, and the
    /// reason the solver gives opening with that proof's words.
    #[test]
    fn each_kind_of_proof_is_told_apart() {
        let b = Board::named("english", false).unwrap();
        let all_but = |keep: &[&str]| -> Vec<String> {
            (0..b.holes())
                .map(|h| b.hole_name(h).to_string())
                .filter(|h| !keep.contains(&h.as_str()))
                .collect()
        };
        let cases = [
            // The central vacancy finishes on d4, d1, d7, a4 or g4 only.
            (
                vec!["d4".to_string()],
                "d3",
                DecidedBy::PositionClass,
                "position class",
            ),
            // Two pegs far from the centre: Conway's soldiers pagoda.
            (all_but(&["c1", "e1"]), "d4", DecidedBy::Pagoda, "pagoda"),
        ];
        for (vacate, finish, want, words) in cases {
            let spec = Spec {
                vacate: Some(vacate),
                finish: Finish::Hole(finish.into()),
                ..Spec::named("english")
            };
            let p = api::build(&spec).unwrap();
            assert_eq!(impossibility_proof(&spec, &p).unwrap(), want, "{words}");
            let r = api::solve_goal_only(&p, Method::Dfs, &Budget::default());
            assert_eq!(r.solvable, Some(false));
            assert!(r.reason.unwrap().starts_with(words), "{words}");
        }
    }

    #[test]
    fn a_problem_number_past_the_end_is_an_error() {
        let b = Board::named("triangle", false).unwrap();
        assert_eq!(single_vacancy_problems(&b), 30);
        assert!(single_vacancy_problem("triangle", false, 30, &Budget::default()).is_err());
        assert!(single_vacancy_problem("nowhere", false, 0, &Budget::default()).is_err());
    }
}
