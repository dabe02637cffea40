//! Fuzzing the peg parsers: board art (and built-in board names),
//! positions (the row form and drawn art) and moves. Random text and
//! mutations of the corpus in `tests/fuzz-corpus/` must never panic, and
//! what parses must read back the same after formatting.
//!
//! `ENDGAME_FUZZ_CASES` sets the cases per parser (the top-level README's
//! Tests section gives the long run).

#[path = "../../core/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use endgame_core::Notation;
use endgame_peg::notation::{format_position, parse_position};
use endgame_peg::{Bits, Board, Goal, PegSolitaire, Pruning};
use std::sync::Arc;

/// The characters the parsers look at.
const ART: &str = "o. \n/\r\to.o";
const POSITION: &str = "o./o. \n";
const MOVE: &str = "abcdefghijklmnopqrstuvwxyz0123456789-  ABCD";

/// Board art and names: what parses draws back to the same board.
fn check_art(s: &str) {
    let _ = Board::named(s, false);
    for diagonal in [false, true] {
        let Ok(b) = Board::from_art("fuzz", s, diagonal) else {
            continue;
        };
        assert!(b.holes() >= 3 && b.holes() <= 128);
        let drawn = b.draw(|h| b.drawn_pegs()[h]);
        let again = Board::from_art("fuzz", &drawn, diagonal)
            .unwrap_or_else(|e| panic!("{s:?} parsed, its drawing {drawn:?} did not: {e}"));
        assert_eq!(again.lattice(), b.lattice(), "{s:?}");
        assert_eq!(again.holes(), b.holes(), "{s:?}");
        for h in 0..b.holes() {
            assert_eq!(again.coords(h), b.coords(h), "{s:?}");
            assert_eq!(again.hole_name(h), b.hole_name(h), "{s:?}");
            assert_eq!(b.hole(b.hole_name(h)).ok(), Some(h), "{s:?}");
        }
        assert_eq!(again.drawn_pegs(), b.drawn_pegs(), "{s:?}");
        assert_eq!(again.jumps(), b.jumps(), "{s:?}");
        assert_eq!(again.symmetries().len(), b.symmetries().len(), "{s:?}");
    }
}

fn problem<B: Bits>(b: Board) -> PegSolitaire<B> {
    let c = b.centre().unwrap_or(0);
    let start: Vec<bool> = (0..b.holes()).map(|h| h != c).collect();
    PegSolitaire::new(Arc::new(b), &start, Goal::AnyOne, Pruning::default()).unwrap()
}

/// The problems whose positions and moves are fuzzed.
struct Problems {
    english: PegSolitaire<u64>,
    french_diagonal: PegSolitaire<u64>,
    triangle: PegSolitaire<u64>,
    wide: PegSolitaire<u128>,
    drawn: PegSolitaire<u64>,
}

fn problems() -> &'static Problems {
    static P: std::sync::OnceLock<Problems> = std::sync::OnceLock::new();
    P.get_or_init(|| Problems {
        english: problem(Board::named("english", false).unwrap()),
        french_diagonal: problem(Board::named("french", true).unwrap()),
        triangle: problem(Board::named("triangle", false).unwrap()),
        wide: problem(Board::named("wiegleb", false).unwrap()),
        drawn: problem(Board::from_art("odd", "ooo.\no.ooo\n ooo o\n  oo", false).unwrap()),
    })
}

fn check_position_on<B: Bits>(p: &PegSolitaire<B>, s: &str) {
    let board = p.board();
    if let Ok(pegs) = parse_position(board, s) {
        assert_eq!(pegs.len(), board.holes());
        let text = format_position(board, |h| pegs[h]);
        assert_eq!(parse_position(board, &text).ok(), Some(pegs), "{s:?}");
    }
    if let Ok(pos) = p.parse_position(s) {
        let text = p.format_position(&pos);
        assert_eq!(p.parse_position(&text).ok(), Some(pos), "{s:?}");
    }
}

fn check_position(s: &str) {
    let ps = problems();
    check_position_on(&ps.english, s);
    check_position_on(&ps.french_diagonal, s);
    check_position_on(&ps.triangle, s);
    check_position_on(&ps.wide, s);
    check_position_on(&ps.drawn, s);
}

fn check_move_on<B: Bits>(p: &PegSolitaire<B>, s: &str) {
    let _ = p.board().hole(s);
    if let Ok(mv) = p.parse_move(s) {
        let text = p.format_move(mv);
        assert_eq!(p.parse_move(&text).ok(), Some(mv), "{s:?}");
    }
}

fn check_move(s: &str) {
    let ps = problems();
    check_move_on(&ps.english, s);
    check_move_on(&ps.french_diagonal, s);
    check_move_on(&ps.triangle, s);
    check_move_on(&ps.wide, s);
    check_move_on(&ps.drawn, s);
}

fuzz_support::fuzz_targets! {
    fuzz_art: "art", ART, check_art;
    fuzz_position: "position", POSITION, check_position;
    fuzz_move: "move", MOVE, check_move;
}
