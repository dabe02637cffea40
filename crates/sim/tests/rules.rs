//! Rules, notation and validation of Sim, and the core conformance battery
//! with moves checked against a naive generator written on colour matrices.

// Matrix code reads best with index loops.
#![allow(clippy::needless_range_loop)]

use endgame_core::conformance::{self, Options};
use endgame_core::{Game, Notation, Rules, Value};
use endgame_sim::solve::{self, Table};
use endgame_sim::{Segment, Sim, SimError, SimPos};
use std::cell::RefCell;

/// Segment colours as a matrix (0 none, 1 red, 2 blue) from the position
/// string, independent of the crate's masks.
fn matrix(sim: &Sim, p: &SimPos) -> Vec<Vec<u8>> {
    let text = sim.format_position(p);
    let n = sim.n();
    let mut m = vec![vec![0u8; n]; n];
    let mut chars = text.chars();
    for i in 0..n {
        for j in i + 1..n {
            let c = match chars.next().unwrap() {
                'r' => 1,
                'b' => 2,
                _ => 0,
            };
            m[i][j] = c;
            m[j][i] = c;
        }
    }
    m
}

fn triangle(m: &[Vec<u8>], colour: u8) -> bool {
    let n = m.len();
    (0..n).any(|i| {
        (i + 1..n).any(|j| {
            (j + 1..n).any(|k| m[i][j] == colour && m[i][k] == colour && m[j][k] == colour)
        })
    })
}

/// Legal moves the slow way: every uncoloured segment, unless a triangle
/// exists or the board is full.
fn naive(sim: &Sim, p: &SimPos) -> Vec<Segment> {
    let m = matrix(sim, p);
    if triangle(&m, 1) || triangle(&m, 2) {
        return vec![];
    }
    let n = sim.n();
    let mut out = Vec::new();
    let mut s = 0u8;
    for i in 0..n {
        for j in i + 1..n {
            if m[i][j] == 0 {
                out.push(Segment(s));
            }
            s += 1;
        }
    }
    out
}

/// The core battery for K3 … K8 under both rules: moves against the naive
/// generator on colour matrices, terminals, symmetry (all n! images of a
/// sample on K7 and K8), notation; and on K3 … K5, every position of the
/// playouts exhaustively: the solver against memoised negamax over raw
/// positions, values against children's, values of every relabelling, and
/// the audit of the whole strong solution.
#[test]
fn every_variant_passes_the_conformance_battery() {
    for n in 3..=8 {
        for misere in [false, true] {
            let sim = Sim::new(n, misere).unwrap();
            let playouts = if n == 8 { 3 } else { 30 };
            let stride = match n {
                8 => 9,
                7 => 5,
                _ => 1,
            };
            let table = RefCell::new(Table::default());
            let mut opts = Options::game(&sim)
                .playouts(5 + n as u64, playouts)
                .symmetry_stride(stride)
                .naive_moves(|p| naive(&sim, p));
            if n <= 5 {
                opts = opts
                    .value_solver(|p| solve::outcome(&sim, &mut table.borrow_mut(), p).value)
                    .keyed(&sim)
                    .exhaustive_when(|_| true);
            }
            let r = conformance::battery(&sim, opts).unwrap_or_else(|e| panic!("K{n}: {e}"));
            if n <= 5 {
                assert!(r.compared > 0 && r.strong > 0, "K{n}: {r:?}");
            }
        }
    }
}

#[test]
fn outcomes_follow_the_rules() {
    for misere in [false, true] {
        let sim = Sim::new(6, misere).unwrap();
        let positions = conformance::random_game_positions(&sim, 3, 200);
        for p in positions {
            let m = matrix(&sim, &p);
            let (rt, bt) = (triangle(&m, 1), triangle(&m, 2));
            assert!(!(rt && bt));
            let expect = if rt || bt {
                // The owner of the triangle moved last; the other moves now.
                let owner_moved_last = rt != p.red_to_move();
                assert!(owner_moved_last);
                Some(if misere { Value::Loss } else { Value::Win })
            } else if p.coloured() == 15 {
                Some(Value::Draw)
            } else {
                None
            };
            assert_eq!(sim.outcome(&p), expect, "{}", sim.format_position(&p));
        }
    }
}

#[test]
fn notation_matches_the_spec() {
    let sim = Sim::k6();
    let names: Vec<String> = (0..15).map(|s| sim.format_move(Segment(s))).collect();
    assert_eq!(
        names.join(" "),
        "ab ac ad ae af bc bd be bf cd ce cf de df ef"
    );
    assert_eq!(sim.parse_move("ca").unwrap(), sim.parse_move("ac").unwrap());
    for bad in ["a", "aa", "ag", "abc", "a1", ""] {
        assert!(
            matches!(sim.parse_move(bad), Err(SimError::BadMove(_))),
            "{bad}"
        );
    }
    let p = sim.play_text(&sim.start(), "ac").unwrap();
    assert_eq!(sim.format_position(&p), ".r.............");
    let p = sim.play_text(&p, "ef").unwrap();
    assert_eq!(sim.format_position(&p), ".r............b");
    assert!(!p.red_to_move() || p.red.count_ones() == 1);
}

#[test]
fn bad_positions_are_rejected_with_the_right_error() {
    let sim = Sim::k6();
    assert!(matches!(
        Sim::parse_any("....", false),
        Err(SimError::WrongLength { got: 4, .. })
    ));
    assert!(matches!(
        sim.parse_position("..........."),
        Err(SimError::WrongLength { got: 11, .. })
    ));
    assert!(matches!(
        sim.parse_position("..x............"),
        Err(SimError::UnknownChar { ch: 'x', index: 2 })
    ));
    // Blue cannot be ahead; red cannot be two ahead.
    assert!(matches!(
        sim.parse_position("b.............."),
        Err(SimError::ImpossibleCounts { red: 0, blue: 1 })
    ));
    assert!(matches!(
        sim.parse_position("rr............."),
        Err(SimError::ImpossibleCounts { red: 2, blue: 0 })
    ));
    // Red triangle abc (ab ac bc) and blue triangle def (de df ef).
    assert!(matches!(
        sim.parse_position("rr...r......bbb"),
        Err(SimError::BothTriangles)
    ));
    // Red triangle abc, but blue moved last (3 red, 3 blue).
    assert!(matches!(
        sim.parse_position("rr...r....bbb.."),
        Err(SimError::Unreachable(_))
    ));
    // Two red triangles sharing no segment cannot both be the last move's.
    let two = Sim::parse_any("rr...r......rrr", false);
    assert!(two.is_err(), "{two:?}");
    // K_n out of range.
    assert!(matches!(Sim::new(9, false), Err(SimError::BadN(9))));
    assert!(matches!(Sim::new(2, false), Err(SimError::BadN(2))));
}

#[test]
fn finished_positions_are_valid_and_report_their_result() {
    // Red completes abc with its third segment (red ab ac bc, blue de df).
    let (sim, p) = Sim::parse_any("rr...r......bb.", false).unwrap();
    assert_eq!(sim.outcome(&p), Some(Value::Win));
    assert!(sim.moves(&p).is_empty());
    assert!(matches!(
        sim.play_text(&p, "ef"),
        Err(SimError::IllegalMove(..))
    ));
    let (sim, p) = Sim::parse_any("rr...r......bb.", true).unwrap();
    assert_eq!(sim.outcome(&p), Some(Value::Loss));
    // K5 full without a triangle: red pentagon ab bc cd de ea, blue
    // pentagram ac ad bd be ce, alternating red first.
    let sim = Sim::new(5, false).unwrap();
    let mut p = sim.start();
    for mv in ["ab", "ac", "bc", "ad", "cd", "bd", "de", "be", "ae", "ce"] {
        assert_eq!(sim.outcome(&p), None);
        p = sim.play_text(&p, mv).unwrap();
    }
    assert_eq!(sim.format_position(&p), "rbbrrbbrbr");
    assert_eq!(sim.outcome(&p), Some(Value::Draw));
    assert_eq!(sim.parse_position("rbbrrbbrbr").unwrap(), p);
}

#[test]
fn a_move_on_a_coloured_segment_is_illegal() {
    let sim = Sim::k6();
    let p = sim.play_text(&sim.start(), "ab").unwrap();
    match sim.play_text(&p, "ba") {
        Err(SimError::IllegalMove(m, why)) => {
            assert_eq!(m, "ab");
            assert!(why.contains("coloured"));
        }
        other => panic!("{other:?}"),
    }
    assert!(sim.play(&p, Segment(0)).is_err());
}
