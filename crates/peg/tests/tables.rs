//! The solved tables beyond the English central goal set: the English
//! holes answered through a board symmetry by their class's table, the
//! best-result sets (English and French central problems), a table file
//! of the wrong shape, and the layered engine's goal layers on every
//! route. Colours are cross-checked with search alone and with the
//! layered enumeration (independent methods).

use endgame_core::analysis::{Colour, Decided};
use endgame_core::budget::Budget;
use endgame_core::cache::{self, TableState, Tables};
use endgame_core::layered::{self, LayeredOptions, Silent};
use endgame_core::{Notation, Rules};
use endgame_peg::api::{self, AnyProblem, CountOptions, Finish, Service, Spec};
use endgame_peg::goalset::GoalSet;
use endgame_peg::with_problem;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("endgame-peg-tables-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn budget() -> Budget {
    Budget::time(std::time::Duration::from_secs(20)).with_nodes(api::DEFAULT_NODES)
}

/// The problem of `board` at `position` (its start when `None`) whose
/// vacancy, at the start, is `hole`, finishing as `finish`.
fn problem(board: &str, hole: &str, position: Option<&str>, finish: Finish) -> AnyProblem {
    api::build(&Spec {
        vacate: Some(vec![hole.to_string()]),
        position: position.map(String::from),
        finish,
        ..Spec::named(board)
    })
    .expect("a problem")
}

/// Whether the goal is reachable from `p`'s start, by the layered
/// enumeration from both ends (no DFS, no table).
fn counted(p: &AnyProblem) -> bool {
    let opts = CountOptions {
        goal_only: true,
        solutions: false,
        ..CountOptions::default()
    };
    api::count(p, opts, &Silent).expect("counted").solvable
}

/// The position reached from `p`'s start by the `k`-th legal jump (mod
/// their number) for each `k` of `picks`.
fn walk(p: &AnyProblem, picks: &[usize]) -> String {
    with_problem!(p, q => {
        let mut pos = q.start();
        for &k in picks {
            let moves = q.moves(&pos);
            pos = q.play_unchecked(&pos, moves[k % moves.len()]);
        }
        q.format_position(&pos)
    })
}

/// d1's class is d1, a4, g4 and d7: the problems of d7 (d1's mirror image
/// across the middle row) and a4 are answered by `peg-english-d1` through
/// the symmetry that takes their hole to d1, exactly as search and the
/// layered enumeration answer them.
#[test]
fn english_holes_are_answered_by_their_class_table() {
    let dir = scratch("class");
    let tabled = Service::with_dir(&dir);
    let r = tabled
        .build("peg-english-d1", &Budget::unlimited())
        .expect("a table of the service")
        .expect("built");
    assert_eq!(r.entries, 199_964);
    let searched = Service::with_dir(&scratch("class-none"));
    let mut checked = 0;
    for (hole, picks) in [
        ("d7", &[][..]),
        ("d7", &[0, 3, 5, 0, 0, 0]),
        ("a4", &[]),
        ("a4", &[1, 1, 1, 1]),
    ] {
        let start = problem("english", hole, None, Finish::Default);
        let pos = walk(&start, picks);
        let p = problem("english", hole, Some(&pos), Finish::Hole(hole.into()));
        let t = tabled.analyze(&p, &budget());
        assert_eq!(t.undecided(), 0, "{hole} {pos}");
        assert_eq!(t.decided_by, Decided::Table, "{hole} {pos}");
        // Search alone leaves some moves blue within a short budget;
        // every one it decides agrees.
        let short = Budget::time(std::time::Duration::from_secs(2));
        let s = searched.analyze(&p, &short);
        for n in s.moves.iter().filter(|n| n.colour != Colour::Blue) {
            let m = t
                .moves
                .iter()
                .find(|m| m.mv == n.mv)
                .expect("the same moves");
            assert_eq!((m.colour, m.result), (n.colour, n.result), "{pos} {}", m.mv);
        }
        let (tr, sr) = (t.result.unwrap(), s.result.unwrap());
        if sr.solvable.is_some() {
            assert_eq!(tr.solvable, sr.solvable, "{hole} {pos}");
        }
        if sr.best_proven {
            assert_eq!(tr, sr, "{hole} {pos}");
        }
        assert_eq!(t.detail.table.as_deref(), Some("peg-english-d1"));
        // A solvable position's colours, move by move, by the layered
        // enumeration (a few seconds each on the early ones).
        if picks.len() >= 3 && tr.solvable == Some(true) {
            checked += t.moves.len();
            for m in &t.moves {
                let after = problem("english", hole, Some(&m.after), Finish::Hole(hole.into()));
                let child = counted(&after);
                assert_eq!(m.result.unwrap().solvable, Some(child), "{pos} {}", m.mv);
                let want = if child { Colour::Green } else { Colour::Red };
                assert_eq!(m.colour, want, "{pos} {}", m.mv);
            }
        }
    }
    assert!(checked > 0, "no move checked by the enumeration");
    let _ = std::fs::remove_dir_all(&dir);
}

/// English positions that lost the d4 finish early (among them ones that
/// stayed blue with the goal set alone): with the best-result set every
/// move is decided by its best result, none of them can be left with one
/// peg anywhere (the layered enumeration agrees), and the best line ends
/// with two pegs.
#[test]
fn the_english_best_result_set_decides_positions_that_lost_the_goal() {
    let dir = scratch("best");
    let svc = Service::with_dir(&dir);
    for name in ["peg-english-d4", "peg-english-d4-best"] {
        svc.build(name, &Budget::unlimited())
            .expect("a table of the service")
            .expect("built");
    }
    for pos in [
        "ooo/o../ooo..oo/ooo.o.o/ooooooo/ooo/ooo",
        "ooo/o.o/ooo.ooo/o.o.ooo/oo.oooo/.oo/ooo",
    ] {
        let p = problem("english", "d4", Some(pos), Finish::Default);
        let a = svc.analyze(&p, &budget());
        assert_eq!(a.undecided(), 0, "{pos}: {:?}", a.reason);
        let r = a.result.unwrap();
        assert_eq!(
            (r.solvable, r.best, r.best_proven),
            (Some(false), Some(2), true)
        );
        assert_eq!(a.decided_by, Decided::Table);
        assert_eq!(
            a.detail.table.as_deref(),
            Some("peg-english-d4, peg-english-d4-best")
        );
        for m in &a.moves {
            let mr = m.result.unwrap();
            assert!(mr.best_proven && mr.best >= Some(2), "{pos} {}", m.mv);
            let want = if mr.best == Some(2) {
                Colour::Yellow
            } else {
                Colour::Red
            };
            assert_eq!(m.colour, want, "{pos} {}", m.mv);
            let any = problem("english", "d4", Some(&m.after), Finish::Any);
            assert!(!counted(&any), "{pos} {}: one peg is left somewhere", m.mv);
        }
        with_problem!(&p, q => {
            let end = a.line.iter().fold(q.start(), |x, mv| {
                let m = q.parse_move(mv).expect("a move");
                q.play(&x, m).expect("legal")
            });
            assert_eq!(end.count_ones(), 2, "{pos}: {:?}", a.line);
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A best-result table is built, then loaded; a file holding a goal set
/// under its name (right header, wrong shape) is never used and is
/// rebuilt.
#[test]
fn a_best_result_table_round_trips_and_a_misshapen_one_is_rebuilt() {
    let dir = scratch("shape");
    let name = "peg-english-d4-best";
    let svc = Service::with_dir(&dir);
    let built = svc.build(name, &Budget::unlimited()).unwrap().unwrap();
    assert_eq!((built.source.as_str(), built.entries), ("built", 1_679_073));
    let loaded = Service::with_dir(&dir)
        .build(name, &Budget::unlimited())
        .unwrap()
        .unwrap();
    assert_eq!(
        (loaded.source.as_str(), loaded.entries),
        ("loaded", built.entries)
    );
    let file = dir.join(format!("{name}.bin"));
    let version = cache::header(&file).unwrap().version;
    let AnyProblem::Small(origin) = problem("english", "d4", None, Finish::Default) else {
        unreachable!("the English board fits 64 bits")
    };
    let goal_set = GoalSet::build(&origin, &Budget::unlimited()).unwrap();
    cache::write(&file, name, version, &goal_set.to_bytes()).unwrap();
    let fresh = Service::with_dir(&dir);
    let state = |s: &Service| {
        s.tables()
            .into_iter()
            .find(|t| t.name == name)
            .expect("listed")
            .state
    };
    assert_eq!(state(&fresh), TableState::Cached);
    let pos = "ooo/o../ooo..oo/ooo.o.o/ooooooo/ooo/ooo";
    let a = fresh.analyze(
        &problem("english", "d4", Some(pos), Finish::Default),
        &budget(),
    );
    assert_ne!(a.detail.table.as_deref(), Some("peg-english-d4-best"));
    assert!(matches!(state(&fresh), TableState::Failed { .. }));
    let rebuilt = fresh.build(name, &Budget::unlimited()).unwrap().unwrap();
    assert_eq!(rebuilt.source, "rebuilt");
    assert!(rebuilt.warning.is_some());
    assert_eq!(rebuilt.entries, built.entries);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The goal-reaching layers the layered engine hands back agree on every
/// route: the full enumeration, the goal-only one with and without its
/// counting pass, mirrored by the time reversal (a finish in the vacated
/// hole: the first half only) or not (one peg anywhere).
#[test]
fn goal_layers_agree_on_every_route() {
    let board = endgame_peg::Board::named("triangle", false).unwrap();
    for h in 0..board.holes() {
        let hole = board.hole_name(h);
        for finish in [Finish::Default, Finish::Any] {
            let AnyProblem::Small(p) = problem("triangle", hole, None, finish.clone()) else {
                unreachable!("the triangle fits 64 bits")
            };
            let keep = |count_all, count_solutions| LayeredOptions {
                count_all,
                count_solutions,
                keep_goal_layers: true,
                ..LayeredOptions::default()
            };
            let full = layered::enumerate(&p, &keep(true, true), &Silent).unwrap();
            let to_goal: Vec<u64> = full.layers.iter().map(|l| l.to_goal_reduced).collect();
            let sizes = |r: &layered::LayeredReport<u64>| {
                r.goal_layers
                    .iter()
                    .map(|l| l.len() as u64)
                    .collect::<Vec<_>>()
            };
            if full.goal_reachable {
                assert_eq!(sizes(&full), to_goal, "{hole} {finish:?}");
            } else {
                assert!(full.goal_layers.is_empty());
            }
            for (counts, what) in [(true, "counted"), (false, "uncounted")] {
                let r = layered::enumerate(&p, &keep(false, counts), &Silent).unwrap();
                let case = format!("{hole} {finish:?} {what}");
                assert_eq!(r.goal_reachable, full.goal_reachable, "{case}");
                assert!(r.goal_layers.len() <= full.goal_layers.len(), "{case}");
                for (d, l) in r.goal_layers.iter().enumerate() {
                    assert!(l.is_sorted(), "{case}: layer {d}");
                    assert_eq!(l, &full.goal_layers[d], "{case}: layer {d}");
                }
                let mirrored = finish == Finish::Default;
                if full.goal_reachable && !mirrored {
                    let last = to_goal.iter().rposition(|&n| n > 0).unwrap();
                    assert_eq!(r.goal_layers.len(), last + 1, "{case}");
                }
                if full.goal_reachable {
                    assert_eq!(r.solutions.is_some(), counts, "{case}");
                }
            }
        }
    }
}

/// The French best-result set (2 pegs): the start and positions 5 and 12
/// random moves in are decided in full, a member's moves by look-ups, and
/// agree with search alone wherever that decides (on the first few). It
/// takes minutes and about 6.5 GB to build: `cargo test --release -p
/// endgame-peg --test tables -- --ignored`.
#[test]
#[ignore]
fn the_french_best_result_set_decides_the_start_and_early_positions() {
    let dir = scratch("french");
    let tabled = Service::with_dir(&dir);
    let r = tabled
        .build("peg-french-d4-best", &Budget::unlimited())
        .expect("a table of the service")
        .expect("built");
    assert_eq!(r.entries, 137_140_246);
    let searched = Service::with_dir(&scratch("french-none"));
    let start = problem("french", "d4", None, Finish::Default);
    let start_moves = tabled.analyze(&start, &budget());
    assert!(start_moves
        .moves
        .iter()
        .all(|m| m.colour == Colour::Yellow && m.decided_by == Decided::Table));
    let mut red = [0; 2];
    for (i, depth) in [5, 12].into_iter().enumerate() {
        let mut x = 7u64;
        for n in 0..20 {
            let picks: Vec<usize> = (0..depth)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 64) as usize
                })
                .collect();
            let pos = walk(&start, &picks);
            let p = problem("french", "d4", Some(&pos), Finish::Default);
            let t = tabled.analyze(&p, &budget());
            assert_eq!(t.undecided(), 0, "{pos}: {:?}", t.reason);
            let r = t.result.unwrap();
            assert_eq!(r.solvable, Some(false));
            assert!(r.best_proven && r.best >= Some(2), "{pos}");
            // A member's result is a look-up; a position that lost the
            // best result gets its own from its moves' searches.
            let member = r.best == Some(2);
            let by = if member {
                Decided::Table
            } else {
                Decided::Search
            };
            assert_eq!(t.decided_by, by, "{pos}");
            red[i] += t.moves.iter().filter(|m| m.colour == Colour::Red).count();
            if n < 5 {
                let s = searched.analyze(&p, &Budget::time(api::DEFAULT_TIME));
                for n in s.moves.iter().filter(|n| n.colour != Colour::Blue) {
                    let m = t
                        .moves
                        .iter()
                        .find(|m| m.mv == n.mv)
                        .expect("the same moves");
                    assert_eq!(m.colour, n.colour, "{pos} {}", m.mv);
                }
            }
        }
    }
    assert!(red[1] > 0, "no move lost the best result");
    let _ = std::fs::remove_dir_all(&dir);
}
