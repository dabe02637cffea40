//! The analysis service: colours cross-checked with the layered
//! enumeration (an independent method), tables built, loaded, and rebuilt
//! when damaged.

use endgame_core::analysis::{Colour, Decided};
use endgame_core::budget::Budget;
use endgame_core::cache::{TableState, Tables};
use endgame_core::layered::Silent;
use endgame_core::{Notation, Puzzle, Rules};
use endgame_peg::api::{self, AnyProblem, CountOptions, PegAnalysis, Service, Spec};
use endgame_peg::with_problem;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("endgame-peg-service-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn at(board: &str, position: Option<&str>) -> AnyProblem {
    api::build(&Spec {
        position: position.map(String::from),
        ..Spec::named(board)
    })
    .expect("a problem")
}

fn budget() -> Budget {
    Budget::time(std::time::Duration::from_secs(20)).with_nodes(api::DEFAULT_NODES)
}

/// Whether the goal is reachable from `position`, by the layered
/// enumeration from both ends (no DFS, no goal set).
fn counted(board: &str, position: &str) -> bool {
    let opts = CountOptions {
        goal_only: true,
        solutions: false,
        ..CountOptions::default()
    };
    api::count(&at(board, Some(position)), opts, &Silent)
        .expect("counted")
        .solvable
}

/// Every move's colour agrees with the enumeration: green exactly when the
/// position after it still reaches the goal.
fn check_against_count(board: &str, a: &PegAnalysis) {
    assert_eq!(a.undecided(), 0, "{}", a.position);
    let parent = counted(board, &a.position);
    assert_eq!(a.result.unwrap().solvable, Some(parent), "{}", a.position);
    for m in &a.moves {
        let child = counted(board, &m.after);
        assert_eq!(
            m.result.unwrap().solvable,
            Some(child),
            "{} {}",
            a.position,
            m.mv
        );
        if parent {
            let want = if child { Colour::Green } else { Colour::Red };
            assert_eq!(m.colour, want, "{} {}", a.position, m.mv);
        }
    }
}

/// Positions `n` jumps from the start along the first `k`-th legal move.
fn walk(board: &str, picks: &[usize]) -> String {
    let p = at(board, None);
    with_problem!(&p, q => {
        let mut pos = q.start();
        for &k in picks {
            let moves = q.moves(&pos);
            pos = q.play_unchecked(&pos, moves[k % moves.len()]);
        }
        q.format_position(&pos)
    })
}

#[test]
fn english_table_and_search_agree_with_the_enumeration() {
    let dir = scratch("english");
    let tabled = Service::with_dir(&dir);
    let r = tabled
        .build("peg-english-d4", &Budget::unlimited())
        .expect("a table of the service")
        .expect("built");
    assert_eq!(r.entries, 1_679_072);
    let searched = Service::with_dir(&scratch("none"));
    // The start, a solvable position and one that lost the goal (its
    // moves are judged by the best result).
    for picks in [&[][..], &[0, 3, 5], &[1, 1, 1, 1]] {
        let pos = walk("english", picks);
        let p = at("english", Some(&pos));
        let t = tabled.analyze(&p, &budget());
        let s = searched.analyze(&p, &budget());
        let colours = |a: &PegAnalysis| {
            a.moves
                .iter()
                .map(|m| (m.mv.clone(), m.colour))
                .collect::<Vec<_>>()
        };
        assert_eq!(colours(&t), colours(&s), "{pos}");
        assert_eq!(t.result, s.result, "{pos}");
        assert_eq!(t.decided_by, Decided::Table, "{pos}");
        if picks.len() < 4 {
            check_against_count("english", &t);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn triangle_colours_agree_with_the_enumeration() {
    for picks in [&[][..], &[0], &[1, 0], &[0, 2, 1], &[1, 1, 1, 1]] {
        let pos = walk("triangle", picks);
        let a = Service::with_dir(&scratch("tri")).analyze(&at("triangle", Some(&pos)), &budget());
        check_against_count("triangle", &a);
    }
}

/// Solutions from `position` by the layered enumeration.
fn enumerated(board: &str, position: &str) -> Option<String> {
    let r = api::count(&at(board, Some(position)), CountOptions::default(), &Silent);
    r.expect("counted").solutions
}

/// Once the triangle's ladder has its solution counts, a hint's counts
/// (the position's and every move's) are read from them, and equal the
/// enumeration's.
#[test]
fn triangle_hints_read_solution_counts_equal_to_the_enumeration() {
    let s = Service::with_dir(&scratch("tri-paths"));
    for picks in [
        &[][..],
        &[0],
        &[1, 0],
        &[0, 2, 1],
        &[1, 1, 1, 1],
        &[2, 0, 1, 1, 0],
    ] {
        let pos = walk("triangle", picks);
        let p = at("triangle", Some(&pos));
        assert!(s.counts_ready(&p, true), "{pos}");
        assert!(!s.counts_pending(&p), "{pos}");
        let a = s.analyze(&p, &budget());
        assert_eq!(a.detail.solutions, enumerated("triangle", &pos), "{pos}");
        for m in &a.moves {
            let want = enumerated("triangle", &m.after).or(Some("0".into()));
            assert_eq!(m.detail.solutions, want, "{pos} {}", m.mv);
        }
    }
}

/// A fresh service's English hints wait for counts it makes in the
/// background (the web keeps no answer made meanwhile); a drawn board
/// with no table never waits.
#[test]
fn counts_are_pending_until_made() {
    let s = Service::with_dir(&scratch("pending"));
    let p = at("english", None);
    // A fresh service has no ladder on disk yet: its hints count
    // themselves, nothing pending.
    assert!(!s.counts_pending(&p));
    let drawn = api::build(&Spec {
        board: api::BoardSource::Art("ooo.".into()),
        ..Spec::named("english")
    })
    .expect("a drawn board");
    assert!(!s.counts_pending(&drawn));
}

#[test]
fn the_french_start_is_judged_by_its_best_result() {
    let a = Service::with_dir(&scratch("fr")).analyze(&at("french", None), &budget());
    let r = a.result.unwrap();
    assert_eq!(
        (r.solvable, r.best, r.best_proven),
        (Some(false), Some(2), true)
    );
    assert!(a.detail.proof.is_some());
    assert_eq!(a.remoteness, Some(34));
    assert_eq!(a.line.len(), 34);
    for m in &a.moves {
        assert_eq!(m.colour, Colour::Yellow, "{}", m.mv);
        assert_eq!(m.remoteness, Some(34));
    }
}

#[test]
fn tables_round_trip_and_a_damaged_file_is_rebuilt() {
    let dir = scratch("tables");
    let svc = Service::with_dir(&dir);
    let state = |s: &Service| {
        s.tables()
            .into_iter()
            .find(|t| t.name == "peg-triangle-c5")
            .expect("listed")
            .state
    };
    assert_eq!(state(&svc), TableState::Missing);
    let built = svc
        .build("peg-triangle-c5", &Budget::unlimited())
        .unwrap()
        .unwrap();
    assert_eq!(built.source, "built");
    assert_eq!(state(&svc), TableState::Ready);
    let again = Service::with_dir(&dir);
    assert_eq!(state(&again), TableState::Cached);
    let loaded = again
        .build("peg-triangle-c5", &Budget::unlimited())
        .unwrap()
        .unwrap();
    assert_eq!(
        (loaded.source.as_str(), loaded.entries),
        ("loaded", built.entries)
    );
    // One flipped byte: never trusted, rebuilt with a warning.
    let file = dir.join("peg-triangle-c5.bin");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let fresh = Service::with_dir(&dir);
    let rebuilt = fresh
        .build("peg-triangle-c5", &Budget::unlimited())
        .unwrap()
        .unwrap();
    assert_eq!(rebuilt.source, "rebuilt");
    assert!(rebuilt.warning.is_some());
    assert_eq!(rebuilt.entries, built.entries);
    assert!(svc.build("no-such-table", &Budget::unlimited()).is_none());
    // A damaged English file is not used by a hint: it searches instead.
    let english = dir.join("peg-english-d4.bin");
    std::fs::write(&english, b"ENDGAME\x01garbage").unwrap();
    let a = Service::with_dir(&dir).analyze(&at("english", None), &budget());
    assert_eq!(a.decided_by, Decided::Search);
    assert_eq!(a.undecided(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cancelled_hint_returns_undecided_moves_with_a_reason() {
    let b = budget();
    b.cancel.cancel();
    let a = Service::with_dir(&scratch("cancel")).analyze(&at("wiegleb", None), &b);
    assert_eq!(a.undecided(), a.moves.len());
    assert!(
        a.reason.as_deref().is_some_and(|r| r.contains("cancelled")),
        "{:?}",
        a.reason
    );
}

/// Below the count limit the goal is decided by counting, which leaves no
/// memo to read a line from; the best line still runs to the goal.
#[test]
fn a_best_line_below_the_count_limit_reaches_the_goal() {
    use endgame_core::dfs::{self, DfsOptions};
    let start = at("english", None);
    // Seven jumps along a solution: 25 pegs, below the count limit.
    let position = with_problem!(&start, q => {
        let r = dfs::solve(q, &q.start(), &DfsOptions::default());
        assert!(r.reached_goal);
        let pos = r.line[..7].iter().fold(q.start(), |x, &m| q.play_unchecked(&x, m));
        q.format_position(&pos)
    });
    let svc = Service::with_dir(&scratch("line"));
    let p = at("english", Some(&position));
    let a = svc.analyze(&p, &budget());
    assert_eq!(a.result.unwrap().solvable, Some(true));
    assert!(a.detail.table.is_none(), "no table was built");
    with_problem!(&p, q => {
        let mut pos = q.start();
        for name in &a.line {
            let m = q.parse_move(name).expect("a move of the line");
            pos = q.play(&pos, m).expect("legal");
        }
        assert!(q.is_goal(&pos), "line {:?} ends at {}", a.line, q.format_position(&pos));
        assert_eq!(a.line.len() as u32, 25 - 1);
    });
}
