//! Fuzzing the Pentago parsers: positions (the interchange notation, a
//! number and an optional `m`), moves (`c4 ur cw`, `c4`, `ur cw`) and
//! game lines (a start, moves and a pending placement, as the front ends
//! send them). Random text and mutations of the corpus in
//! `tests/fuzz-corpus/` must never panic, and what parses must read back
//! the same after formatting.
//!
//! `ENDGAME_FUZZ_CASES` sets the cases per parser (the top-level README's
//! Tests section gives the long run).

#[path = "../../core/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use endgame_core::Rules;
use endgame_pentago::notation::{format_move, format_position, parse_move, parse_position};
use endgame_pentago::{api, Pentago};

const POSITION: &str = "0123456789m 0123456789";
const MOVE: &str = "abcdef123456 lurwc ULRWC";
const LINE: &str = "abcdef123456 lurwc;|0123456789m";

fn check_position(s: &str) {
    if let Ok(pos) = parse_position(s) {
        let text = format_position(&pos);
        assert_eq!(parse_position(&text).ok(), Some(pos), "{s:?}");
        assert_eq!(api::parse(&text).ok(), Some(pos), "{s:?}");
        let _ = Pentago.moves(&pos);
        let _ = pos.outcome();
    }
}

fn check_move(s: &str) {
    if let Ok(mv) = parse_move(s) {
        let text = format_move(mv);
        assert_eq!(parse_move(&text).ok(), Some(mv), "{s:?}");
        let _ = api::play(&Pentago.start(), s);
    }
}

/// A game line: `START|MOVE;MOVE;…|PLACE` (any part may be missing).
fn check_line(s: &str) {
    let mut parts = s.splitn(3, '|');
    let start = parts.next();
    let moves: Vec<&str> = parts
        .next()
        .map(|m| m.split(';').collect())
        .unwrap_or_default();
    let place = parts.next();
    if let Ok(pos) = api::position_after(start, &moves, place) {
        let text = format_position(&pos);
        assert_eq!(parse_position(&text).ok(), Some(pos), "{s:?}");
    }
}

fuzz_support::fuzz_targets! {
    fuzz_position: "position", POSITION, check_position;
    fuzz_move: "move", MOVE, check_move;
    fuzz_line: "line", LINE, check_line;
}
