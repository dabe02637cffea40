//! Published numbers (`tests/data/published.tsv`, each with its source):
//! the English central game's positions per layer, goal-reaching positions
//! and solutions, and the 15-hole triangle's solution counts for every
//! single vacancy. Every row of the file is checked.

use endgame_core::conformance::tsv_rows;
use endgame_core::layered::{enumerate, LayeredOptions, Silent};
use endgame_peg::api::{self, Finish, Spec};
use endgame_peg::{Board, Goal, PegSolitaire, Pruning};
use std::sync::Arc;

fn english_central() -> PegSolitaire<u64> {
    let b = Arc::new(Board::named("english", false).unwrap());
    let d4 = b.hole("d4").unwrap();
    let start: Vec<bool> = (0..b.holes()).map(|h| h != d4).collect();
    PegSolitaire::new(b, &start, Goal::Pattern(vec![d4]), Pruning::default()).unwrap()
}

fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

#[test]
fn published_numbers_match() {
    let text = include_str!("data/published.tsv");
    let rows: Vec<(usize, Vec<&str>)> = tsv_rows(text).collect();
    assert_eq!(rows.len(), 38, "rows of published.tsv");
    // The English central game, enumerated once for all its rows.
    let p = english_central();
    let r = enumerate(&p, &LayeredOptions::default(), &Silent).unwrap();
    let reduced: Vec<u64> = r.layers.iter().map(|l| l.reduced).collect();
    let good: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
    // The goal-reaching counts are a palindrome: a(n) = a(31 - n).
    assert_eq!(good.len(), 32);
    for n in 0..32 {
        assert_eq!(good[n], good[31 - n], "layer {n}");
    }
    assert!(r.goal_reachable);
    for (line, row) in rows {
        let [problem, quantity, want, source] = row[..] else {
            panic!("line {line}: 4 fields wanted, got {row:?}");
        };
        assert!(!source.is_empty(), "line {line} cites no source");
        let got = match (problem, quantity) {
            ("english:d4:d4", "layers_reduced") => list(&reduced),
            ("english:d4:d4", "reduced_total") => reduced.iter().sum::<u64>().to_string(),
            ("english:d4:d4", "raw_total") => {
                r.layers.iter().map(|l| l.raw).sum::<u64>().to_string()
            }
            ("english:d4:d4", "layers_raw_head") => {
                let raw: Vec<u64> = r.layers.iter().map(|l| l.raw).collect();
                list(&raw[..want.split(',').count().min(raw.len())])
            }
            ("english:d4:d4", "layers_to_goal_reduced") => list(&good),
            ("english:d4:d4", "to_goal_total") => good.iter().sum::<u64>().to_string(),
            ("english:d4:d4", "solutions") => format!("{:?}", r.solutions.unwrap()),
            ("english:d4:d4", "best_score") => r.best_score.to_string(),
            (t, "solutions") if t.starts_with("triangle:") => triangle_solutions(t),
            _ => panic!("line {line}: unknown row {problem} {quantity}"),
        };
        assert_eq!(got, want, "line {line}: {problem} {quantity} ({source})");
    }
}

/// Solutions of `triangle:VACATE:FINISH`; checks the solvable flag agrees.
fn triangle_solutions(problem: &str) -> String {
    let mut parts = problem.split(':').skip(1);
    let (vacate, finish) = (parts.next().unwrap(), parts.next().unwrap());
    let spec = Spec {
        vacate: Some(vec![vacate.to_string()]),
        finish: match finish {
            "any" => Finish::Any,
            h => Finish::Hole(h.to_string()),
        },
        ..Spec::named("triangle")
    };
    let p = api::build(&spec).unwrap();
    let r = api::count(&p, api::CountOptions::default(), &Silent).unwrap();
    let n = r.solutions.expect("a count");
    assert_eq!(r.solvable, n != "0", "{problem}");
    n
}
