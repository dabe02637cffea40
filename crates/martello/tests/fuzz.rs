//! Fuzzing the Martello parsers: boards (letters, decimal ids, rows,
//! lines of states joined by `X`) and operations (`EATER:EATEN`). Random
//! text and mutations of the corpus in `tests/fuzz-corpus/` must never
//! panic, and what parses must read back the same after formatting.
//!
//! `ENDGAME_FUZZ_CASES` sets the cases per parser (the top-level README's
//! Tests section gives the long run).

#[path = "../../core/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use endgame_core::{Notation, Rules};
use endgame_martello::board::{join_line, parse_line};
use endgame_martello::{api, Board, Martello, State};

const BOARD: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW./ 0123456789X";
const MOVE: &str = "abcdefgABCDEFGWXYZ0123456789: ";

/// One game of each side, for positions and operations of that size.
fn games() -> &'static Vec<Martello> {
    static G: std::sync::OnceLock<Vec<Martello>> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        (1..=8)
            .map(|n| {
                let b = Board::random(n, 7).unwrap();
                Martello::new(n, State::from_board(&b)).unwrap()
            })
            .collect()
    })
}

fn check_board(s: &str) {
    if let Ok(b) = Board::parse(s) {
        assert_eq!(Board::parse(&b.to_board_string()).ok(), Some(b), "{s:?}");
        assert_eq!(Board::parse(&b.to_rows_string()).ok(), Some(b), "{s:?}");
    }
    if let Ok(line) = parse_line(s) {
        assert_eq!(parse_line(&join_line(&line)).ok(), Some(line), "{s:?}");
    }
    if let Ok((n, st)) = State::parse(s) {
        let text = st.to_board(n).to_board_string();
        assert_eq!(State::parse(&text).ok(), Some((n, st)), "{s:?}");
    }
    if let Ok((m, st)) = api::parse(s) {
        let text = m.format_position(&st);
        assert_eq!(m.parse_position(&text).ok(), Some(st), "{s:?}");
        let _ = m.children(&st);
    }
    for m in games() {
        if let Ok(st) = m.parse_position(s) {
            assert_eq!(m.parse_position(&m.format_position(&st)).ok(), Some(st));
        }
    }
}

fn check_move(s: &str) {
    for m in games() {
        if let Ok(op) = m.parse_op(s) {
            assert_eq!(m.parse_op(&m.format_op(op)).ok(), Some(op), "{s:?}");
            assert_eq!(m.parse_move(&m.format_move(op)).ok(), Some(op), "{s:?}");
            let _ = m.play_checked(&m.start(), op);
        }
    }
}

fuzz_support::fuzz_targets! {
    fuzz_board: "board", BOARD, check_board;
    fuzz_move: "move", MOVE, check_move;
}
