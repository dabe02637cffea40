//! `endgame … martello` through the real binary: JSON fields, lines that
//! replay under the rules, hints against solves, reproducible studies, and
//! exit status 2 with one `error:` line for bad input; the hint is the
//! same analysis from the command line and the web.

mod common;

use assert_cmd::Command;
use endgame_martello::{Board, Martello, State};
use serde_json::Value;

fn endgame() -> Command {
    Command::cargo_bin("endgame").expect("the endgame binary is built")
}

/// Runs `endgame --json --quiet solve martello …`: exit status 3 exactly
/// when the report is incomplete (the budget ran out), else 0.
fn solve_json(args: &[&str]) -> Value {
    let out = endgame()
        .arg("--json")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let want = if r["complete"] == false { 3 } else { 0 };
    assert_eq!(out.status.code(), Some(want), "endgame {args:?}: {r}");
    r
}

/// Runs `endgame --json --quiet …`: a hint exits with status 3 exactly
/// when the position or a move is not `decided` (the budget ran out),
/// everything else with 0.
fn json(args: &[&str]) -> Value {
    let out = endgame()
        .arg("--json")
        .arg("--quiet")
        .args(args)
        .output()
        .expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "endgame {args:?}: stdout is not JSON: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let want = common::status_for(args, &r);
    assert_eq!(out.status.code(), Some(want), "endgame {args:?}: {r}");
    r
}

fn bad(args: &[&str]) {
    let out = endgame().args(args).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "endgame {args:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("error:"), "{err:?}");
}

/// The line of a solve report replays operation by operation.
fn check_line(r: &Value) {
    let line: Vec<&str> = r["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let ops = r["operations"].as_array().unwrap();
    assert_eq!(line.len(), ops.len() + 1);
    assert_eq!(r["line_string"].as_str().unwrap(), line.join("X"));
    let (_, mut s) = State::parse(line[0]).unwrap();
    let m = Martello::from_board_string(line[0]).unwrap();
    for (op, next) in ops.iter().zip(&line[1..]) {
        let o = m.parse_op(op["op"].as_str().unwrap()).unwrap();
        s = m.play_checked(&s, o).unwrap();
        assert_eq!(s.to_board(m.n()).to_board_string(), *next);
        assert_eq!(op["board"].as_str().unwrap(), *next);
        assert!(!op["moves"].as_array().unwrap().is_empty());
    }
    assert_eq!(s.stones(), r["min_stones"].as_u64().unwrap() as u32);
}

#[test]
fn solve_random_and_given_boards() {
    for seed in ["1", "2", "3"] {
        let r = json(&["solve", "martello", "--n", "5", "--seed", seed]);
        assert_eq!(r["complete"], true);
        assert_eq!(r["solvable"], r["min_stones"] == 1);
        assert!(r["explored"].as_u64().unwrap() > 0);
        check_line(&r);
        // The same board given as a string, with row separators, and by
        // the schedule of Graf's meta-solver (`reference`): same minimum.
        let b = Board::parse(r["board"].as_str().unwrap()).unwrap();
        let again = json(&[
            "solve",
            "martello",
            &b.to_rows_string(),
            "--schedule",
            "reference",
        ]);
        assert_eq!(again["min_stones"], r["min_stones"]);
        check_line(&again);
        // `seed`, its name until this release, still works (one release).
        let old = json(&[
            "solve",
            "martello",
            &b.to_rows_string(),
            "--schedule",
            "seed",
        ]);
        assert_eq!(old["min_stones"], r["min_stones"]);
        assert_eq!(old["explored"], again["explored"]);
    }
}

#[test]
fn hint_agrees_with_solving_each_child() {
    let r = json(&["hint", "martello", "dhgb/fcpa/jmon/ekil"]);
    let moves = r["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    let best = r["result"]["best"].as_u64().unwrap();
    for h in moves {
        let child = json(&["solve", "martello", h["after"].as_str().unwrap()]);
        assert_eq!(h["result"]["best"], child["min_stones"]);
        assert_eq!(h["result"]["solvable"], child["solvable"]);
        let colour = h["colour"].as_str().unwrap();
        assert_eq!(colour == "green", h["result"]["best"] == 1);
        assert!(h["result"]["best"].as_u64().unwrap() >= best);
    }
    // The hint's --budget is the node budget of the whole hint now.
    let tight = json(&["hint", "martello", "dhgb/fcpa/jmon/ekil", "--budget", "1"]);
    assert!(tight["moves"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["result"]["best"].is_null() && h["colour"] == "blue"));
    assert!(tight["reason"].as_str().unwrap().contains("node budget"));
    assert_eq!(tight["decided"], false);
    // --memo-mb and --time still taken.
    let roomy = json(&[
        "hint",
        "martello",
        "dhgb/fcpa/jmon/ekil",
        "--memo-mb",
        "64",
        "--time",
        "5s",
    ]);
    assert_eq!(
        common::without_timing(roomy),
        common::without_timing(r.clone())
    );
}

/// The line of an analysis replays under the rules, one stone less an
/// operation, to the position's best result.
fn check_analysis_line(a: &Value) {
    let m = Martello::from_board_string(a["position"].as_str().unwrap()).unwrap();
    let (_, mut s) = State::parse(a["position"].as_str().unwrap()).unwrap();
    let line = a["line"].as_array().unwrap();
    for op in line {
        s = m
            .play_checked(&s, m.parse_op(op.as_str().unwrap()).unwrap())
            .unwrap();
    }
    assert_eq!(u64::from(s.stones()), a["result"]["best"].as_u64().unwrap());
    assert_eq!(a["remoteness"].as_u64().unwrap(), line.len() as u64);
}

#[test]
fn a_4x4_hint_is_the_same_analysis_on_both_ends() {
    let a = common::same_analysis(
        &["hint", "martello", "dhgb/fcpa/jmon/ekil"],
        "/api/martello/hints?board=dhgb/fcpa/jmon/ekil",
    );
    assert_eq!(a["game"], "martello");
    assert_eq!(a["detail"], Value::Null, "detail fields are flattened");
    assert_eq!(a["n"], 4);
    assert!(a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["colour"] != "blue"));
    check_analysis_line(&a);
}

#[test]
fn the_6x6_seed_1_start_is_the_same_exact_analysis_on_both_ends() {
    let a = common::same_analysis(
        &["hint", "martello", "--n", "6", "--seed", "1"],
        "/api/martello/hints?n=6&seed=1",
    );
    assert_eq!(a["result"]["solvable"], true);
    assert_eq!(a["decided_by"], "search");
    assert_eq!(a["remoteness"], 35);
    let moves = a["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| m["colour"] != "blue"), "{a}");
    assert!(moves
        .iter()
        .all(|m| !m["real_moves"].as_array().unwrap().is_empty()));
    check_analysis_line(&a);
}

#[test]
fn study_is_reproducible_across_thread_counts() {
    let args = |t: &'static str| {
        vec![
            "study",
            "martello",
            "--n",
            "4",
            "--games",
            "40",
            "--seed",
            "5",
            "--threads",
            t,
            "--budget-tries",
            "2",
            "--size-games",
            "10",
        ]
    };
    let mut a = json(&args("1"));
    let mut b = json(&args("2"));
    for r in [&mut a, &mut b] {
        for k in [
            "seconds",
            "games_per_second",
            "states_per_second",
            "max_game_seconds",
            "total_ms",
        ] {
            r[k] = Value::Null;
        }
    }
    assert_eq!(a, b);
    let hist: u64 = a["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[1].as_u64().unwrap())
        .sum();
    assert_eq!(hist, 40);
    assert_eq!(a["random_start"].as_array().unwrap().len(), 6);
    assert_eq!(a["budget"].as_array().unwrap().len(), 7);
    assert_eq!(a["sizes"].as_array().unwrap().len(), 6);
    let text = endgame().args(args("2")).output().expect("runs").stdout;
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("solvable") && text.contains("budget"));
}

/// `(minimum stones, games)` of a study report's histogram.
fn histogram(r: &Value) -> std::collections::BTreeMap<u64, u64> {
    let mut h = std::collections::BTreeMap::new();
    for e in r["histogram"].as_array().unwrap() {
        *h.entry(e[0].as_u64().unwrap()).or_default() += e[1].as_u64().unwrap();
    }
    h
}

#[test]
fn a_game_time_leaves_games_undecided_and_only_finishes_them() {
    let study = |extra: &[&str]| {
        let mut a = vec!["study", "martello", "--n", "6", "--games", "40"];
        a.extend(["--seed", "5", "--threads", "2", "--random-start-games", "0"]);
        a.extend([
            "--budget-games",
            "0",
            "--size-games",
            "0",
            "--meta-games",
            "0",
        ]);
        a.extend(extra);
        json(&a)
    };
    let full = study(&[]);
    assert_eq!(full["decided"], 40);
    assert!(full["undecided_games"].as_array().unwrap().is_empty());
    // 1 ms a game: the games past a few thousand expansions stop.
    let cut = study(&["--game-time", "1ms"]);
    let undecided = cut["undecided_games"].as_array().unwrap();
    assert!(!undecided.is_empty(), "{cut}");
    assert_eq!(cut["games"], 40);
    assert_eq!(
        cut["decided"].as_u64().unwrap() + undecided.len() as u64,
        40
    );
    for u in undecided {
        assert!(u["bound_stones"].as_u64().unwrap() > 1, "{u}");
    }
    // The decided games are left as they are: their histogram is the
    // full study's less the undecided games', which `--only` (no time
    // limit) finishes exactly.
    let games: Vec<String> = undecided
        .iter()
        .map(|u| u["game"].as_u64().unwrap().to_string())
        .collect();
    let only = games.join(",");
    let rest = study(&["--only", &only]);
    assert_eq!(rest["games"], undecided.len());
    assert!(rest["undecided_games"].as_array().unwrap().is_empty());
    let mut both = histogram(&cut);
    for (k, g) in histogram(&rest) {
        *both.entry(k).or_default() += g;
    }
    assert_eq!(both, histogram(&full));
    let (lo, hi) = (
        cut["ratio_bounds"][0].as_f64().unwrap(),
        cut["ratio_bounds"][1].as_f64().unwrap(),
    );
    let ratio = full["ratio"].as_f64().unwrap();
    assert!(lo <= ratio && ratio <= hi, "{lo} {ratio} {hi}");
    // The text names the undecided games and how to finish them.
    let text = endgame()
        .args([
            "study", "martello", "--n", "6", "--games", "40", "--seed", "5",
        ])
        .args(["--random-start-games", "0", "--budget-games", "0"])
        .args([
            "--size-games",
            "0",
            "--meta-games",
            "0",
            "--game-time",
            "1ms",
        ])
        .output()
        .expect("runs");
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("--only ") && text.contains("undecided"),
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    bad(&["solve", "martello", "abc"]);
    bad(&["solve", "martello", "aab."]);
    bad(&["solve", "martello", "ab#d"]);
    bad(&["solve", "martello", "abce"]);
    bad(&["solve", "martello", ".b.defghi"]);
    bad(&["solve", "martello", "...."]);
    bad(&["solve", "martello", "--n", "9"]);
    bad(&["solve", "martello", "--n", "0"]);
    bad(&["solve", "martello"]);
    bad(&["solve", "martello", "abcd", "--n", "2"]);
    bad(&["solve", "martello", "abcd", "--schedule", "3x0"]);
    bad(&["hint", "martello", "abcdX"]);
    bad(&["hint", "martello"]);
    bad(&["hint", "martello", "abcd", "--memo-mb", "0"]);
    bad(&["hint", "martello", "--n", "9"]);
    bad(&["study", "martello", "--n", "9"]);
    bad(&["study", "martello", "--games", "0"]);
    bad(&["study", "martello", "--threads", "0"]);
    bad(&["study", "martello", "--games", "10", "--only", "10"]);
    bad(&["study", "martello", "--only", "3,3"]);
    bad(&["study", "martello", "--only", "3,x"]);
    bad(&["study", "martello", "--only", ""]);
    bad(&["study", "martello", "--game-time", "0s"]);
    bad(&["study", "martello", "--game-time", "soon"]);
}

#[test]
fn an_undecided_solve_says_so() {
    let out = endgame()
        .args(["--json", "solve", "martello", "--n", "6", "--seed", "3"])
        .args(["--max-expansions", "1", "--no-goal-first"])
        .output()
        .expect("runs");
    // The budget ran out: what is known is printed, with status 3.
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["complete"], false);
    assert_eq!(r["solvable"], serde_json::Value::Null);
}

/// Asserts that `endgame --json solve martello ARGS` and the web's `GET
/// /api/martello/solve?QUERY` give the same report, timings and the web's
/// budget aside; returns it.
fn same_solve(args: &[&str], query: &str) -> Value {
    let strip = |v: Value| {
        let mut v = common::without_timing(v);
        v.as_object_mut().expect("a report").remove("budget");
        v
    };
    let cli_args: Vec<&str> = ["solve", "martello"]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let cli = strip(solve_json(&cli_args));
    let web = strip(common::web_json(&format!("/api/martello/solve?{query}")));
    assert_eq!(
        cli, web,
        "endgame {cli_args:?} and /api/martello/solve?{query}"
    );
    cli
}

#[test]
fn solve_is_the_same_report_on_both_ends() {
    let r = same_solve(&["dhgb/fcpa/jmon/ekil"], "board=dhgb/fcpa/jmon/ekil");
    assert_eq!(
        (r["value"].as_str(), r["min_stones"].as_u64()),
        (Some("solvable"), Some(1))
    );
    check_line(&r);
    for seed in ["1", "2"] {
        let r = same_solve(&["--n", "5", "--seed", seed], &format!("n=5&seed={seed}"));
        assert_eq!(r["complete"], true);
        check_line(&r);
    }
    // One stone out of reach: the exact search's fewest stones.
    let r = same_solve(&["dhgal..o........"], "board=dhgal..o........");
    assert_eq!(
        (r["value"].as_str(), r["min_stones"].as_u64()),
        (Some("unsolvable"), Some(2))
    );
    assert_eq!(r["solvable"], false);
    check_line(&r);
    // Undecided within the node budget, with the reason, on both ends.
    let r = same_solve(
        &["--n", "6", "--seed", "3", "--max-expansions", "1"],
        "n=6&seed=3&nodes=1",
    );
    assert_eq!(
        (r["value"].as_str(), &r["solvable"]),
        (Some("unknown"), &Value::Null)
    );
    assert!(r["reason"].as_str().unwrap().contains("node budget"));
}

#[test]
fn a_solve_stops_at_its_time_limit() {
    // A 7×7 start takes the exact search far longer than 100 ms.
    let t0 = std::time::Instant::now();
    let r = solve_json(&[
        "solve",
        "martello",
        "--n",
        "7",
        "--seed",
        "1",
        "--no-goal-first",
        "--time",
        "100ms",
    ]);
    assert_eq!(r["complete"], false);
    assert!(r["reason"].as_str().unwrap().contains("time budget"), "{r}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(10));
    bad(&["solve", "martello", "abcd", "--time", "soon"]);
    bad(&["solve", "martello", "abcd", "--memo-mb", "0"]);
}
