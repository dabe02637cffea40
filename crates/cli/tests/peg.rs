//! `endgame hint peg` and `GET /api/peg/hints`: the same analysis from
//! both front ends, and its colours.

mod common;

use common::{same_analysis, user_error, web_json};
use serde_json::Value;

fn colours(a: &Value) -> Vec<&str> {
    a["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["colour"].as_str().expect("a colour"))
        .collect()
}

#[test]
fn the_english_start_is_the_same_analysis_on_both_ends() {
    let a = same_analysis(&["hint", "peg"], "/api/peg/hints?board=english");
    assert_eq!(a["game"], "peg");
    assert_eq!(a["result"]["solvable"], true);
    assert_eq!(a["remoteness"], 31);
    assert_eq!(colours(&a), ["green"; 4]);
    assert_eq!(a["line"].as_array().expect("a line").len(), 31);
}

#[test]
fn a_mid_game_english_position_is_the_same_analysis_on_both_ends() {
    let moves = "d2-d4,f3-d3,e1-e3,e4-e2";
    let st = web_json(&format!("/api/peg/state?board=english&moves={moves}"));
    let pos = st["position"].as_str().expect("a position");
    let a = same_analysis(
        &["hint", "peg", "--board", "english", "--position", pos],
        &format!("/api/peg/hints?board=english&moves={moves}"),
    );
    assert_eq!(a["position"], pos);
    let c = colours(&a);
    assert!(c.iter().all(|c| ["green", "red"].contains(c)), "{c:?}");
    assert!(c.contains(&"green"), "{c:?}");
}

#[test]
fn the_french_start_is_yellow_by_its_best_result_on_both_ends() {
    let a = same_analysis(
        &["hint", "peg", "--board", "french"],
        "/api/peg/hints?board=french",
    );
    assert_eq!(a["result"]["solvable"], false);
    assert_eq!(a["result"]["best"], 2);
    assert_eq!(a["result"]["best_proven"], true);
    assert_eq!(colours(&a), ["yellow"; 4]);
}

#[test]
fn the_triangle_counts_solutions_on_both_ends() {
    let a = same_analysis(
        &["hint", "peg", "--board", "triangle"],
        "/api/peg/hints?board=triangle",
    );
    assert_eq!(colours(&a), ["green"; 2]);
    let total: u64 = a["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            m["solutions"]
                .as_str()
                .expect("counted")
                .parse::<u64>()
                .expect("a number")
        })
        .sum();
    assert_eq!(a["solutions"].as_str(), Some(total.to_string().as_str()));
}

#[test]
fn bad_hint_input_is_one_line_and_exit_2() {
    let e = user_error(&["hint", "peg", "--board", "nosuch"]);
    assert!(e.contains("nosuch"), "{e}");
    user_error(&["hint", "peg", "--position", "ooo/oxo"]);
    user_error(&["hint", "peg", "--max-expansions", "0"]);
}
