//! The real `endgame` binary: outputs, JSON fields, and exit status 2 with
//! a single `error:` line for every kind of bad input.

mod common;

use common::{endgame, json, scratch, text, user_error};
use predicates::prelude::*;
use serde_json::Value;

/// The triangle's start: a1 (the top corner) empty.
const TRIANGLE_START: &str = "./oo/ooo/oooo/ooooo";
/// Published: solutions of the 15-hole triangle from a corner vacancy,
/// finishing with one peg anywhere.
const TRIANGLE_CORNER_SOLUTIONS: u64 = 29760;

#[test]
fn solve_english_central() {
    let wall = std::time::Instant::now();
    let r = json(&["solve", "peg"]);
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
    assert_eq!(r["solvable"], Value::Bool(true));
    assert_eq!(r["pegs_left"], 1);
    let line = r["line"].as_array().expect("line is a list");
    assert_eq!(line.len(), 31);
    assert!(line
        .iter()
        .all(|m| m.as_str().is_some_and(|m| m.len() == 5 && &m[2..3] == "-")));
    assert!(r["expansions"].as_u64().expect("expansions") > 0);
    // The search took some time, within the command's own run.
    let ms = r["time_ms"].as_f64().expect("time_ms");
    assert!(
        ms > 0.0 && ms <= wall_ms,
        "time_ms {ms}, command {wall_ms} ms"
    );
    assert_eq!(r["goal"], "one peg in d4");

    let human = text(&["solve", "peg", "--board", "english", "--vacate", "d4"]);
    for needle in [
        "o o o . o o o",
        "one peg in d4",
        "solvable",
        "31 moves",
        "expansions",
        "peak memory",
    ] {
        assert!(human.contains(needle), "missing {needle:?} in\n{human}");
    }
}

#[test]
fn solve_french_central_is_impossible_by_position_class() {
    let r = json(&["solve", "peg", "--board", "french"]);
    assert_eq!(r["solvable"], Value::Bool(false));
    assert!(
        r["reason"]
            .as_str()
            .expect("a reason")
            .contains("position class"),
        "{}",
        r["reason"]
    );
    assert_eq!(r["pegs_left"], 2);
    assert!(!r["line"].as_array().expect("line").is_empty());
}

#[test]
fn solve_with_astar_and_finish_anywhere() {
    let r = json(&[
        "solve", "peg", "--board", "triangle", "--method", "astar", "--finish", "any",
    ]);
    assert_eq!(r["solvable"], Value::Bool(true));
    assert_eq!(r["line"].as_array().expect("line").len(), 13);
}

#[test]
fn solve_board_drawn_as_art_text_and_file() {
    let r = json(&["solve", "peg", "--art", "oo."]);
    assert_eq!(r["solvable"], Value::Bool(true));
    assert_eq!(r["line"], serde_json::json!(["a1-c1"]));

    let dir = scratch("cli-art");
    let path = dir.path().join("triangle.txt");
    std::fs::write(&path, "    .\n   o o\n  o o o\n o o o o\no o o o o\n").expect("temp file");
    let r = json(&["solve", "peg", "--art", path.to_str().expect("UTF-8 path")]);
    assert_eq!(r["solvable"], Value::Bool(true));
    assert_eq!(r["line"].as_array().expect("line").len(), 13);
}

#[test]
fn count_triangle_corner_anywhere() {
    let r = json(&[
        "count",
        "peg",
        "--board",
        "triangle",
        "--finish",
        "any",
        "--max-memory",
        "512M",
    ]);
    assert_eq!(r["solutions"], TRIANGLE_CORNER_SOLUTIONS.to_string());
    assert_eq!(r["solvable"], Value::Bool(true));
    assert_eq!(r["best_pegs"], 1);
    let layers = r["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), 14);
    assert_eq!(layers[0]["pegs"], 14);
    let total: u64 = layers
        .iter()
        .map(|l| l["positions"].as_u64().expect("count"))
        .sum();
    assert_eq!(r["total_positions"].as_u64(), Some(total));

    let human = text(&["count", "peg", "--board", "triangle", "--finish", "any"]);
    for needle in ["up to symmetry", "to goal", "total", "29,760", "final"] {
        assert!(human.contains(needle), "missing {needle:?} in\n{human}");
    }
}

#[test]
fn goal_only_count_agrees_with_the_full_count() {
    let args = ["count", "peg", "--board", "triangle", "--finish", "a1"];
    let full = json(&args);
    let goal_only = json(&[&args[..], &["--goal-only"]].concat());
    assert_eq!(full["complete"], Value::Bool(true));
    assert_eq!(goal_only["complete"], Value::Bool(false));
    assert_eq!(goal_only["solutions"], full["solutions"]);
    assert_eq!(goal_only["total_to_goal"], full["total_to_goal"]);
    let to_goal = |r: &Value| -> Vec<Value> {
        let layers = r["layers"].as_array().expect("layers");
        layers
            .iter()
            .map(|l| l["to_goal_reduced"].clone())
            .collect()
    };
    assert_eq!(to_goal(&goal_only), to_goal(&full));
    let uncounted = json(&[&args[..], &["--goal-only", "--no-solutions"]].concat());
    assert_eq!(uncounted["solutions"], Value::Null);
    assert_eq!(to_goal(&uncounted), to_goal(&full));
    let human = text(&[&args[..], &["--goal-only", "--no-solutions"]].concat());
    assert!(human.contains("not counted"), "{human}");
    assert!(human.contains("visited up to symmetry"), "{human}");
    user_error(&["count", "peg", "--no-solutions"]);
}

#[test]
fn hint_counts_solutions_through_each_move() {
    let r = json(&[
        "hint",
        "peg",
        "--board",
        "triangle",
        "--position",
        TRIANGLE_START,
        "--finish",
        "any",
    ]);
    assert_eq!(r["result"]["solvable"], Value::Bool(true));
    let moves = r["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 2);
    let mut sum = 0;
    for m in moves {
        assert_eq!(m["colour"], "green");
        sum += m["solutions"]
            .as_str()
            .expect("counted")
            .parse::<u64>()
            .expect("a number");
    }
    assert_eq!(sum, TRIANGLE_CORNER_SOLUTIONS);

    let human = text(&[
        "hint",
        "peg",
        "--board",
        "triangle",
        "--position",
        TRIANGLE_START,
        "--finish",
        "any",
    ]);
    assert!(
        human.contains("a3-a1") && human.contains("c3-a1"),
        "{human}"
    );
    assert!(human.contains("green"), "{human}");
}

#[test]
fn hint_colours_follow_reachability() {
    // English, a few moves in: above the count limit, so decided by search.
    let r = json(&[
        "hint",
        "peg",
        "--board",
        "english",
        "--position",
        "ooo/o.o/oo.oooo/ooooooo/ooooooo/ooo/ooo",
        "--count-limit",
        "0",
    ]);
    let moves = r["moves"].as_array().expect("moves");
    assert!(!moves.is_empty());
    for m in moves {
        // The goal is out of reach here: the moves are judged by the
        // best result they keep (yellow) or lose (red).
        let expected: &[&str] = match m["result"]["solvable"].as_bool() {
            Some(true) => &["green"],
            Some(false) => &["yellow", "red"],
            None => &["blue"],
        };
        let colour = m["colour"].as_str().expect("a colour");
        assert!(expected.contains(&colour), "{m}");
        assert!(m["solutions"].is_null());
    }
}

#[test]
fn boards_lists_the_built_in_boards() {
    let human = text(&["boards"]);
    for name in ["english", "french", "wiegleb", "diamond", "triangle"] {
        assert!(human.contains(name), "missing {name} in\n{human}");
    }
    assert!(human.contains("o o o . o o o"), "{human}");

    let r = json(&["boards"]);
    let boards = r["boards"].as_array().expect("boards");
    assert_eq!(boards.len(), 5);
    let find = |n: &str| {
        boards
            .iter()
            .find(|b| b["name"] == n)
            .unwrap_or_else(|| panic!("board {n}"))
    };
    assert_eq!(find("english")["holes"], 33);
    assert_eq!(find("english")["symmetries"], 8);
    assert_eq!(
        find("english")["default_vacancies"],
        serde_json::json!(["d4"])
    );
    assert_eq!(find("french")["holes"], 37);
    assert_eq!(find("triangle")["holes"], 15);
    assert_eq!(find("triangle")["symmetries"], 6);
    assert!(find("triangle")["art"]
        .as_str()
        .expect("art")
        .contains("o o o o o"));
}

#[test]
fn unknown_board() {
    let e = user_error(&["solve", "peg", "--board", "nosuch"]);
    assert!(e.contains("unknown board 'nosuch'"), "{e}");
}

#[test]
fn bad_art_character() {
    let e = user_error(&["solve", "peg", "--art", "ooo/oxo/ooo"]);
    assert!(e.contains("'x'"), "{e}");
}

#[test]
fn art_that_is_neither_file_nor_art() {
    let e = user_error(&["solve", "peg", "--art", "no-such-board.txt"]);
    assert!(e.contains("no such file"), "{e}");
}

#[test]
fn unknown_hole() {
    let e = user_error(&["solve", "peg", "--vacate", "z9"]);
    assert!(e.contains("z9"), "{e}");
    let e = user_error(&["count", "peg", "--board", "triangle", "--finish", "q7"]);
    assert!(e.contains("q7"), "{e}");
}

#[test]
fn bad_position() {
    let e = user_error(&["hint", "peg", "--board", "english", "--position", "ooo/oxo"]);
    assert!(e.contains("position"), "{e}");
    user_error(&[
        "hint",
        "peg",
        "--board",
        "triangle",
        "--position",
        "./oo/ooo/oooo/oooox",
    ]);
}

#[test]
fn unknown_method() {
    let e = user_error(&["solve", "peg", "--method", "foo"]);
    assert!(e.contains("foo") && e.contains("dfs"), "{e}");
}

#[test]
fn out_of_range_flags() {
    let e = user_error(&["count", "peg", "--board", "triangle", "--max-memory", "0"]);
    assert!(e.contains("--max-memory"), "{e}");
    user_error(&[
        "count",
        "peg",
        "--board",
        "triangle",
        "--max-memory",
        "lots",
    ]);
    user_error(&["solve", "peg", "--max-expansions", "0"]);
}

#[test]
fn usage_errors_are_one_line_too() {
    user_error(&[]);
    user_error(&["solve"]);
    user_error(&["solve", "peg", "--board", "english", "--art", "oo."]);
    user_error(&["solve", "peg", "--no-such-flag"]);
    user_error(&["count", "peg", "--board", "triangle", "--finish", ","]);
}

/// A memory budget that runs out is a budget, not bad input: the report
/// says why and the exit status is 3.
#[test]
fn memory_budget_exceeded_is_status_3_not_a_panic() {
    let out = endgame()
        .args([
            "--json",
            "count",
            "peg",
            "--board",
            "triangle",
            "--max-memory",
            "64",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let r: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(r["complete"], false, "{r}");
    assert!(
        r["reason"].as_str().unwrap_or_default().contains("memory"),
        "{r}"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn help_and_version_succeed() {
    endgame()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("solve"));
    endgame()
        .args(["solve", "peg", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--max-expansions"));
    endgame()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("endgame "));
}
