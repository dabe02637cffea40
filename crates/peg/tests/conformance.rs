//! Every peg board and problem kind passes the core conformance battery,
//! with moves checked against a naive generator written from the board's
//! list of jumps (independent of the shift-and-mask bitboard generator).

use endgame_core::conformance::{self, Options};
use endgame_core::{Notation, Rules};
use endgame_peg::{Bits, Board, Goal, PegSolitaire, Pruning};
use proptest::prelude::*;
use std::sync::Arc;

fn naive<B: Bits>(p: &PegSolitaire<B>, pos: &B) -> Vec<u16> {
    p.board()
        .jumps()
        .iter()
        .enumerate()
        .filter(|(_, j)| {
            p.has_peg(*pos, j.from) && p.has_peg(*pos, j.over) && !p.has_peg(*pos, j.to)
        })
        .map(|(i, _)| i as u16)
        .collect()
}

fn problem<B: Bits>(board: Board, vacate: &[usize], goal: Goal) -> PegSolitaire<B> {
    let b = Arc::new(board);
    let start: Vec<bool> = (0..b.holes()).map(|h| !vacate.contains(&h)).collect();
    PegSolitaire::new(b, &start, goal, Pruning::default()).unwrap()
}

/// The core battery: rules against the naive generator, symmetry,
/// parents, notation.
fn battery<B: Bits>(p: &PegSolitaire<B>, playouts: usize) {
    let opts = Options::puzzle(p)
        .playouts(11, playouts)
        .naive_moves(|q| naive(p, q))
        .reversible(p);
    conformance::battery(p, opts).unwrap();
}

#[test]
fn square_boards_pass_the_battery() {
    for name in ["english", "french"] {
        for diagonal in [false, true] {
            let b = Board::named(name, diagonal).unwrap();
            let c = b.centre().unwrap();
            battery(&problem::<u64>(b.clone(), &[c], Goal::Pattern(vec![c])), 30);
            battery(&problem::<u64>(b.clone(), &[0], Goal::AnyOne), 30);
            // The same board in 128-bit words behaves the same.
            battery(&problem::<u128>(b, &[c], Goal::AnyOne), 10);
        }
    }
    for name in ["wiegleb", "diamond"] {
        let b = Board::named(name, false).unwrap();
        let c = b.centre().unwrap();
        battery(&problem::<u128>(b, &[c], Goal::Pattern(vec![c])), 20);
    }
}

#[test]
fn triangular_and_drawn_boards_pass_the_battery() {
    for name in ["triangle", "triangle4", "triangle6", "triangle8"] {
        let b = Board::named(name, false).unwrap();
        for v in [0, 1, 4] {
            battery(&problem::<u64>(b.clone(), &[v], Goal::AnyOne), 30);
            battery(&problem::<u64>(b.clone(), &[v], Goal::Pattern(vec![v])), 30);
        }
    }
    // An asymmetric drawn board, and a hexagon drawn staggered.
    let odd = Board::from_art("odd", "ooo.\no.ooo\n ooo o\n  oo", false).unwrap();
    battery(&problem::<u64>(odd, &[], Goal::AnyOne), 30);
    let hex = Board::from_art(
        "hex",
        "  o o o\n o o o o\no o . o o\n o o o o\n  o o o",
        false,
    )
    .unwrap();
    assert_eq!(hex.symmetries().len(), 12);
    let c = hex.centre().unwrap();
    battery(&problem::<u64>(hex, &[c], Goal::Pattern(vec![c])), 30);
}

#[test]
fn small_positions_pass_the_exhaustive_checks() {
    // Positions of at most 16 pegs from random play on small boards: the
    // class and pagoda pruning never rules out one that can reach the
    // goal, the pruned and symmetric search agrees with the plain one, and
    // values follow from the children's (the core battery's exhaustive
    // checks, with its default searches).
    let boards = [
        ("english", 3usize),
        ("triangle", 0),
        ("triangle6", 0),
        ("french", 3),
    ];
    for (name, row) in boards {
        let b = Board::named(name, false).unwrap();
        let goal = b.centre().unwrap_or(0);
        let vac = (0..b.holes())
            .find(|&h| b.coords(h).1 == row as i32)
            .unwrap();
        let p = problem::<u64>(b, &[vac], Goal::Pattern(vec![goal]));
        let opts = Options::puzzle(&p)
            .playouts(5, 40)
            .naive_moves(|q| naive(&p, q))
            .reversible(&p)
            .exhaustive_when(|q| q.count() <= 16)
            .min_pruned(1);
        let r = conformance::battery(&p, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("{name}: {r:?}");
    }
}

fn any_position(board: &'static str) -> impl Strategy<Value = (Vec<bool>, &'static str)> {
    let n = Board::named(board, false).unwrap().holes();
    (proptest::collection::vec(any::<bool>(), n), Just(board))
}

proptest! {
    #[test]
    fn position_notation_round_trips(
        (pegs, name) in prop_oneof![any_position("english"), any_position("triangle"), any_position("diamond")]
    ) {
        let b = Arc::new(Board::named(name, false).unwrap());
        let p = PegSolitaire::<u128>::new(b.clone(), &vec![true; b.holes()], Goal::AnyOne, Pruning::default()).unwrap();
        let pos = p.position_of((0..b.holes()).filter(|&h| pegs[h]));
        let text = p.format_position(&pos);
        prop_assert_eq!(p.parse_position(&text).unwrap(), pos);
        // The drawing is accepted as input too.
        let art = b.draw(|h| pegs[h]);
        prop_assert_eq!(p.parse_position(&art).unwrap(), pos);
    }

    #[test]
    fn garbage_never_panics(s in "\\PC{0,60}") {
        let b = Arc::new(Board::named("english", false).unwrap());
        let p = PegSolitaire::<u64>::new(b, &[true; 33], Goal::AnyOne, Pruning::default()).unwrap();
        let _ = p.parse_position(&s);
        let _ = p.parse_move(&s);
        let _ = Board::from_art("x", &s, false);
    }
}

#[test]
fn moves_parse_and_reject_nonsense() {
    let b = Board::named("english", false).unwrap();
    let d4 = b.hole("d4").unwrap();
    let p = problem::<u64>(b, &[d4], Goal::Pattern(vec![d4]));
    let m = p.parse_move("d2-d4").unwrap();
    assert!(p.play(&p.start(), m).is_ok());
    assert_eq!(p.format_move(m), "d2-d4");
    // Syntax errors, unknown holes, holes not two apart, illegal here.
    assert!(p.parse_move("d2d4").is_err());
    assert!(p.parse_move("z9-d4").is_err());
    assert!(p.parse_move("d1-d4").is_err());
    let far = p.parse_move("d6-d4").unwrap();
    let after = p.play(&p.start(), m).unwrap();
    assert!(p.play(&after, far).is_err(), "d4 is occupied after d2-d4");
    assert!(p.parse_position("ooo/ooo").is_err());
    assert!(p
        .parse_position("ooo/ooo/ooooooo/ooo.ooo/ooooooo/ooo/oox")
        .is_err());
    assert!(p
        .parse_position("ooo/ooo/ooooooo/ooo.ooo/ooooooo/ooo/oooo")
        .is_err());
}
