//! `endgame solve|hint|count|play sim`: JSON fields, published and cross-checked
//! values, and exit status 2 with one `error:` line for every bad input.
//! Every test runs against an empty scratch table cache
//! ([`common::isolated_cache`]), never the user's.

mod common;

use common::{endgame, isolated_cache, json, same_analysis, text, user_error};
use serde_json::Value;

#[test]
fn solve_k6_second_player_wins() {
    let _cache = isolated_cache();
    let r = json(&["solve", "sim"]);
    assert_eq!(r["value"], "loss");
    assert_eq!(r["remoteness"], 15);
    assert_eq!(r["n"], 6);
    assert_eq!(r["to_move"], "red");
    assert!(r["best_move"].as_str().is_some_and(|m| m.len() == 2));
    let human = text(&["solve", "sim", "--n", "6"]);
    assert!(human.contains("value: loss in 15"), "{human}");
}

#[test]
fn solve_small_boards_and_misere() {
    let _cache = isolated_cache();
    assert_eq!(json(&["solve", "sim", "--n", "4"])["value"], "draw");
    assert_eq!(
        json(&["solve", "sim", "--n", "4"])["remoteness"],
        Value::Null
    );
    assert_eq!(
        json(&["solve", "sim", "--n", "5", "--misere"])["value"],
        "win"
    );
    let r = json(&["solve", "sim", ".r............b", "--misere"]);
    assert_eq!(r["position"], ".r............b");
    assert_eq!(r["misere"], true);
}

#[test]
fn the_best_move_keeps_the_value_hint_agrees() {
    let _cache = isolated_cache();
    // After red ac and blue ef, red is to move; every hinted move's
    // outcome is at most the position's, and the best one equals it.
    let pos = ".r............b";
    let s = json(&["solve", "sim", pos]);
    let h = json(&["hint", "sim", pos]);
    assert_eq!(h["value"], s["value"]);
    assert_eq!(h["remoteness"], s["remoteness"]);
    let moves = h["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 13);
    assert_eq!(moves[0]["value"], s["value"]);
    assert_eq!(moves[0]["remoteness"], s["remoteness"]);
    // Solving the position after the best move gives the opponent the
    // flipped value, one move nearer the end.
    let after = s["after"].as_str().unwrap();
    let next = json(&["solve", "sim", after]);
    let flipped = match s["value"].as_str().unwrap() {
        "win" => "loss",
        "loss" => "win",
        v => v,
    };
    assert_eq!(next["value"], flipped);
    assert_eq!(
        next["remoteness"].as_u64().unwrap() + 1,
        s["remoteness"].as_u64().unwrap()
    );
}

#[test]
fn finished_positions_report_their_result() {
    let _cache = isolated_cache();
    // Red has just completed abc: standard, red lost, blue (to move) won.
    let r = json(&["solve", "sim", "rr...r......bb."]);
    assert_eq!(r["finished"], true);
    assert_eq!(r["value"], "win");
    assert_eq!(r["remoteness"], 0);
    assert_eq!(r["best_move"], Value::Null);
    let m = json(&["solve", "sim", "rr...r......bb.", "--misere"]);
    assert_eq!(m["value"], "loss");
    let h = json(&["hint", "sim", "rr...r......bb."]);
    assert_eq!(h["moves"].as_array().unwrap().len(), 0);
    // A full K5 board without a triangle is a draw.
    assert_eq!(json(&["solve", "sim", "rbbrrbbrbr"])["value"], "draw");
}

#[test]
fn count_k6_and_k5() {
    let _cache = isolated_cache();
    let wall = std::time::Instant::now();
    let r = json(&["count", "sim", "--check", "--weak"]);
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
    assert_eq!(r["value"], "loss");
    assert_eq!(r["consistent"], true);
    let rows = r["per_move"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    let total: u64 = rows.iter().map(|x| x["positions"].as_u64().unwrap()).sum();
    assert_eq!(total, r["positions"].as_u64().unwrap());
    assert_eq!(
        r["wins"].as_u64().unwrap() + r["losses"].as_u64().unwrap() + r["draws"].as_u64().unwrap(),
        total
    );
    assert_eq!(r["draws"], 0);
    // The first hashing version of erik's Cassis article (the board
    // itself, no symmetry): 112096 boards stored (docs/sim.md).
    let weak = r["weak"].as_array().unwrap();
    let raw = weak.iter().find(|w| w["key"] == "raw").unwrap();
    assert_eq!(raw["stored"], 112096);
    // The strong solve's time (some), and the whole command's (audit and
    // weak solves included), within the test's own wall clock.
    let solve_ms = r["time_ms"].as_f64().unwrap();
    let total_ms = r["total_ms"].as_f64().unwrap();
    assert!(
        solve_ms > 0.0 && total_ms >= solve_ms && total_ms <= wall_ms,
        "solve {solve_ms} ms, command {total_ms} ms, wall {wall_ms} ms"
    );
    assert!(r["table_bytes"].as_u64().unwrap() > 0);
    let k5 = json(&["count", "sim", "--n", "5"]);
    assert_eq!(k5["value"], "draw");
    assert!(k5["draws"].as_u64().unwrap() > 0);
    assert!(text(&["count", "sim", "--n", "4"]).contains("total"));
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let _cache = isolated_cache();
    for (args, needle) in [
        (&["solve", "sim", "....."][..], "one character per segment"),
        (&["solve", "sim", "..x............"], "unknown character"),
        (&["solve", "sim", "b.............."], "impossible"),
        (&["solve", "sim", "rr............."], "impossible"),
        (&["hint", "sim", "rr...r......bbb"], "both colours"),
        (&["solve", "sim", "rr...r....bbb.."], "triangle"),
        (&["solve", "sim", "--n", "9"], "n = 3 to 8"),
        (&["count", "sim", "--n", "2"], "n = 3 to 8"),
        (&["solve", "sim", "......", "--n", "5"], "contradicts"),
        (
            &["hint", "sim", "...............", "--time", "0"],
            "bad duration",
        ),
        (
            &["hint", "sim", "..........", "--max-nodes", "x"],
            "invalid value",
        ),
    ] {
        let e = user_error(args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}

/// Plays `endgame play sim ARGS` with `stdin` as the human's moves.
fn play(args: &[&str], stdin: &str) -> std::process::Output {
    endgame()
        .args(["play", "sim"])
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("runs")
}

#[test]
fn play_sim_perfect_blue_beats_any_red_and_replays() {
    let _cache = isolated_cache();
    let out = play(&["--red", "random", "--blue", "perfect", "--seed", "3"], "");
    assert!(out.status.success());
    let r = json(&[
        "play", "sim", "--red", "random", "--blue", "perfect", "--seed", "3",
    ]);
    // K6 is a second-player win: perfect blue never loses.
    assert_eq!(r["winner"], "blue");
    // The recorded moves replay to the final position.
    let moves: Vec<&str> = r["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("a segment"))
        .collect();
    let final_position = r["position"].as_str().expect("position");
    let mut pos = "...............".to_string();
    for m in &moves {
        let h = json(&["hint", "sim", &pos]);
        let next = h["moves"]
            .as_array()
            .expect("hint moves")
            .iter()
            .find(|x| x["move"] == *m)
            .unwrap_or_else(|| panic!("{m} is not legal in {pos}"));
        pos = next["after"].as_str().expect("after").to_string();
    }
    assert_eq!(pos, final_position);
}

#[test]
fn play_sim_human_moves_and_illegal_ones() {
    let _cache = isolated_cache();
    // A human red against the perfect blue: one move, then input ends and
    // the game stops (status 0; crates/cli/tests/play.rs has the rest).
    let out = play(&[], "ab\n");
    assert!(out.status.success());
    let shown = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(shown.contains("red plays ab"), "{shown}");
    assert!(shown.contains("stopped after 2 moves"), "{shown}");
    // Colouring a coloured segment is explained, then asked again.
    let out = play(&["--position", "r.............."], "ab\n");
    assert!(out.status.success());
    let shown = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(shown.contains("already coloured"), "{shown}");
    user_error(&["play", "sim", "--red", "nobody"]);
}

#[test]
fn cli_and_web_give_the_same_analysis() {
    let _cache = isolated_cache();
    // K6, red to move after four moves.
    let a = same_analysis(
        &["hint", "sim", "rbrb.r..b......"],
        "/api/sim/hints?n=6&start=rbrb.r..b......",
    );
    assert_eq!(a["value"], "win");
    assert_eq!(a["remoteness"], 8);
    assert_eq!(a["decided_by"], "search");
    assert_eq!(a["moves"][0]["colour"], "green");
    assert_eq!(a["line"].as_array().unwrap().len(), 8);
    // K4 misère, blue to move; the web reaches it by moves from the start.
    let a = same_analysis(
        &["hint", "sim", "rb.r..", "--misere"],
        "/api/sim/hints?n=4&misere=true&moves=ab,ac,bc",
    );
    assert_eq!(a["to_move"], "blue");
    assert_eq!(a["misere"], true);
    assert_eq!(a["moves"].as_array().unwrap().len(), 3);
}

#[test]
fn hint_reads_a_table_from_the_cache_and_never_builds_one() {
    use endgame_core::cache::Tables;
    let cache = isolated_cache();
    let dir = cache.path().to_path_buf();
    // No K5 table: the exact search answers, and nothing is written.
    let a = json(&["hint", "sim", "rb........"]);
    assert_eq!(a["decided_by"], "search");
    let k5 = dir.join("sim-k5-standard.bin");
    assert!(!k5.exists());
    // With a table in the cache (built here as `endgame cache build`
    // would), the same hint comes from it, with the same answer.
    endgame_sim::api::Service::new(Some(dir.clone()))
        .build(
            "sim-k5-standard",
            &endgame_core::budget::Budget::unlimited(),
        )
        .expect("a Sim table")
        .expect("built");
    let b = json(&["hint", "sim", "rb........"]);
    assert_eq!(b["decided_by"], "table");
    assert_eq!(b["value"], a["value"]);
    assert_eq!(b["moves"][0]["decided_by"], "table");
    let human = text(&["hint", "sim", "rb........"]);
    assert!(human.contains("solved table"), "{human}");
}

#[test]
fn hint_k8_early_without_a_table_stops_at_the_time_limit() {
    let _cache = isolated_cache();
    let t = std::time::Instant::now();
    let a = json(&[
        "hint",
        "sim",
        "............................",
        "--time",
        "200ms",
    ]);
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(a["value"], "unknown");
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 28);
    assert!(moves.iter().all(|m| m["colour"] == "blue"));
    let why = a["reason"].as_str().unwrap();
    assert!(
        why.contains("no table yet") && why.contains("0.2 s"),
        "{why}"
    );
}
