//! `endgame play sim|pentago` driven through stdin: a refused line is
//! explained and asked again, `undo` takes back the human's move and the
//! reply, `help` and `quit` answer, the end of the input stops the game
//! with status 0, and Sim's end names the one-coloured triangle.

mod common;

use common::endgame;
use serde_json::Value;
use std::process::Output;

/// `endgame [--json] play GAME ARGS` with `stdin` as the human's lines.
fn play(json: bool, game: &str, args: &[&str], stdin: &str) -> Output {
    let mut cmd = endgame();
    if json {
        cmd.arg("--json");
    }
    cmd.args(["play", game])
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("runs")
}

/// The text a game printed, after checking it ended with status 0.
fn text(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

/// The JSON report of a game, after checking it ended with status 0.
fn report(out: &Output) -> Value {
    serde_json::from_str(&text(out)).expect("stdout is one JSON report")
}

/// Red (the human) has `ab` and `ac`, blue `de` and `df`: red to move.
const RED_AB_AC: &str = "rr..........bb.";

#[test]
fn sim_typo_then_a_legal_move_goes_on() {
    let out = play(false, "sim", &["--blue", "random"], "zz\nab\n");
    let shown = text(&out);
    // The typo is explained in one line, then asked again.
    let why: Vec<&str> = shown.lines().filter(|l| l.contains("bad move")).collect();
    assert_eq!(why.len(), 1, "{shown}");
    assert!(
        why[0].contains("\"zz\"") && why[0].contains("help"),
        "{shown}"
    );
    assert!(shown.contains("red plays ab"), "{shown}");
    assert!(shown.contains("blue plays "), "{shown}");
    // The input ended on red's turn: the game stops, and says how to go on.
    assert!(
        shown.contains("stopped after 2 moves, red to move"),
        "{shown}"
    );
    assert!(shown.contains("--position "), "{shown}");
}

#[test]
fn sim_coloured_segment_is_refused_and_asked_again() {
    let out = play(
        true,
        "sim",
        &["--blue", "random", "--position", RED_AB_AC],
        "ab\nAD\n",
    );
    let err = String::from_utf8(out.stderr.clone()).expect("UTF-8");
    assert!(err.contains("already coloured"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let r = report(&out);
    // `AD` is read as `ad`, then blue replies.
    assert_eq!(r["moves"][0], "ad");
    assert_eq!(r["moves"].as_array().unwrap().len(), 2);
    assert_eq!(r["finished"], false);
}

#[test]
fn sim_undo_takes_back_the_move_and_the_reply() {
    let r = report(&play(true, "sim", &["--blue", "random"], "ab\nundo\n"));
    assert_eq!(r["moves"], serde_json::json!([]));
    assert_eq!(r["position"], "...............");
    assert_eq!(r["finished"], false);
    // Then play on from the restored position.
    let r = report(&play(true, "sim", &["--blue", "random"], "ab\nundo\ncd\n"));
    assert_eq!(r["moves"][0], "cd");
    assert_eq!(r["moves"].as_array().unwrap().len(), 2);
    // The text says what was taken back and draws the empty board again.
    let shown = text(&play(false, "sim", &["--blue", "random"], "ab\nundo\n"));
    assert!(shown.contains("took back red ab, blue "), "{shown}");
    let after = &shown[shown.find("took back").unwrap()..];
    assert!(after.contains("position  ...............\n"), "{shown}");
    // Nothing to take back before the human's first move.
    let shown = text(&play(false, "sim", &["--blue", "random"], "undo\n"));
    assert!(shown.contains("nothing to undo"), "{shown}");
}

#[test]
fn sim_end_of_input_and_quit_stop_cleanly() {
    let r = report(&play(true, "sim", &["--blue", "random"], ""));
    assert_eq!(r["finished"], false);
    assert_eq!(r["winner"], Value::Null);
    assert_eq!(r["moves"], serde_json::json!([]));
    let r = report(&play(true, "sim", &["--blue", "random"], "ab\nquit\ncd\n"));
    assert_eq!(r["finished"], false);
    assert_eq!(r["moves"].as_array().unwrap().len(), 2, "{r}");
}

#[test]
fn sim_help_lists_the_commands_and_the_notation() {
    let shown = text(&play(false, "sim", &["--blue", "random"], "help\n"));
    for needle in [
        "undo",
        "help",
        "quit",
        "`ac`",
        "a to f on K6",
        "docs/sim.md",
    ] {
        assert!(shown.contains(needle), "{needle}: {shown}");
    }
}

#[test]
fn sim_picture_is_a_table_with_each_colour_listed() {
    let shown = text(&play(
        false,
        "sim",
        &["--blue", "random", "--position", RED_AB_AC],
        "",
    ));
    // The table: row a has red on ab and ac.
    assert!(shown.contains("    a b c d e f\n"), "{shown}");
    assert!(shown.contains("  a   r r . . .\n"), "{shown}");
    assert!(shown.contains("  red (2)   ab ac\n"), "{shown}");
    assert!(shown.contains("  blue (2)  de df\n"), "{shown}");
    assert!(shown.contains("  position  rr..........bb.\n"), "{shown}");
}

#[test]
fn sim_end_shows_the_losing_triangle() {
    // Red closes abc with bc, and loses.
    let out = play(
        false,
        "sim",
        &["--blue", "random", "--position", RED_AB_AC],
        "bc\n",
    );
    let shown = text(&out);
    assert!(
        shown.contains("red completed the triangle abc (ab ac bc)\nblue wins after 1 move\n"),
        "{shown}"
    );
    // The triangle's sides in capitals in the last picture.
    assert!(shown.contains("  a   R R . . .\n"), "{shown}");
    assert!(shown.contains("  b R   R . . .\n"), "{shown}");
    let r = report(&play(
        true,
        "sim",
        &["--blue", "random", "--position", RED_AB_AC],
        "bc\n",
    ));
    assert_eq!(r["finished"], true);
    assert_eq!(r["winner"], "blue");
    assert_eq!(r["triangles"], serde_json::json!(["abc"]));
    // Misère: the same triangle wins.
    let shown = text(&play(
        false,
        "sim",
        &["--misere", "--blue", "random", "--position", RED_AB_AC],
        "bc\n",
    ));
    assert!(shown.contains("red wins after 1 move"), "{shown}");
}

#[test]
fn sim_two_ais_play_to_the_end() {
    let r = report(&play(
        true,
        "sim",
        &["--red", "random", "--blue", "avoid", "--seed", "5"],
        "",
    ));
    assert_eq!(r["finished"], true);
    // K6 has no draw: the loser closed a triangle.
    assert_eq!(r["triangles"].as_array().unwrap().len(), 1, "{r}");
    assert!(r["winner"].is_string(), "{r}");
}

#[test]
fn pentago_refused_lines_then_a_move() {
    let out = play(
        false,
        "pentago",
        &["--white", "random"],
        "z9\nur cw\nc4\nc4 ur cw\n",
    );
    let shown = text(&out);
    assert!(shown.contains("bad move \"z9\""), "{shown}");
    assert!(shown.contains("ur cw: a placement is due"), "{shown}");
    assert!(
        shown.contains("c4: the placement does not make five, so a rotation must follow"),
        "{shown}"
    );
    assert!(shown.contains("black plays c4 ur cw"), "{shown}");
    assert!(shown.contains("white plays "), "{shown}");
    assert!(
        shown.contains("stopped after 2 moves, black to move"),
        "{shown}"
    );
}

#[test]
fn pentago_occupied_cell_then_undo() {
    // White to move on a board where a1 holds black; white is the human.
    let r = report(&play(
        true,
        "pentago",
        &["--black", "random", "--white", "human", "--position", "1"],
        "a1 ur cw\nb2 ll cw\nundo\n",
    ));
    assert_eq!(r["moves"], serde_json::json!([]), "{r}");
    assert_eq!(r["end"], "1");
    assert_eq!(r["finished"], false);
    let out = play(
        false,
        "pentago",
        &["--black", "random", "--white", "human", "--position", "1"],
        "a1 ur cw\nb2 ll cw\nundo\nhelp\n",
    );
    let shown = text(&out);
    assert!(shown.contains("the cell is occupied"), "{shown}");
    assert!(
        shown.contains("took back white b2 ll cw, black "),
        "{shown}"
    );
    assert!(shown.contains("docs/pentago.md"), "{shown}");
}

#[test]
fn pentago_winning_placement_ends_the_game() {
    // Black a1 b1 c1 d1 (bits of the interchange notation: see
    // crates/cli/tests/pentago.rs), white four scattered stones.
    use endgame_pentago::board::bit_index;
    use endgame_pentago::notation::format_position;
    use endgame_pentago::Position;
    let black = (0..4).fold(0u64, |b, x| b | 1 << bit_index(x, 0));
    let white = [(5, 5), (5, 3), (3, 5), (4, 2)]
        .iter()
        .fold(0u64, |b, &(x, y)| b | 1 << bit_index(x, y));
    let pos = format_position(&Position::new(black, white, false).unwrap());
    let r = report(&play(
        true,
        "pentago",
        &["--white", "random", "--position", &pos],
        "e1\n",
    ));
    assert_eq!(r["finished"], true);
    assert_eq!(r["winner"], "black");
    assert_eq!(r["moves"], serde_json::json!(["e1"]));
}
