//! The rules, the notation and the conformance battery.

mod naive;

use endgame_core::conformance::{self, random_game_positions, Options};
use endgame_core::{Game, Notation, Rules, Symmetric, Value};
use endgame_pentago::board::bit_index;
use endgame_pentago::notation::{draw, format_move, parse_move, parse_position};
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Move, Pentago, Position};
use std::cell::RefCell;

fn positions() -> Vec<Position> {
    random_game_positions(&Pentago, 7, 60)
}

#[test]
fn spec_example_decodes_to_the_board_it_shows() {
    let p = parse_position("205481007622539795m").unwrap();
    assert!(p.must_rotate());
    assert!(!p.black_to_move(), "white to rotate");
    let rows = [
        "1 2 2 _ _ _",
        "_ _ 1 _ _ _",
        "_ _ 2 1 _ 1",
        "1 _ 2 2 1 _",
        "_ _ 2 1 _ _",
        "_ _ 2 2 _ 1",
    ];
    let g = naive::grid(&p);
    for (i, row) in rows.iter().enumerate() {
        let y = 5 - i;
        let text: Vec<String> = (0..6)
            .map(|x| match g[x][y] {
                0 => "_".to_string(),
                c => c.to_string(),
            })
            .collect();
        assert_eq!(text.join(" "), *row, "row y = {y}");
    }
    assert_eq!(Pentago.format_position(&p), "205481007622539795m");
    // "white to rotate (and win)".
    assert_eq!(Solver::default().value(&p, Budget::UNLIMITED), Value::Win);
}

/// The core battery: moves against the naive model, terminals, symmetry,
/// notation, on random games and on `m` positions (every placement of
/// some of their positions); and exhaustively on late positions (30
/// stones or more, finished ones included): the solver against memoised
/// negamax, values against children's, values of the 8 images.
#[test]
fn passes_the_conformance_battery() {
    let ps = positions();
    assert!(ps.len() > 500);
    let mids: Vec<Position> = ps
        .iter()
        .filter(|p| p.outcome().is_none())
        .take(40)
        .flat_map(|p| endgame_pentago::board::bits_of(p.empty()).map(|c| p.place(c)))
        .filter(|p| p.outcome().is_none())
        .collect();
    // Late positions of more random games.
    let late: Vec<Position> = random_game_positions(&Pentago, 11, 120)
        .into_iter()
        .filter(|p| p.stones() >= 30)
        .collect();
    let solver = RefCell::new(Solver::new(18));
    let opts = Options::game(&Pentago)
        .playouts(7, 60)
        .naive_moves(naive::moves)
        .extra_positions(mids.into_iter().chain(late).collect())
        .exhaustive_when(|p| p.stones() >= 30)
        .value_solver(|p| solver.borrow_mut().value(p, Budget::UNLIMITED));
    let r = conformance::battery(&Pentago, opts).unwrap();
    assert!(r.compared >= 100, "{r:?}");
}

#[test]
fn outcomes_agree_with_naive_fives() {
    for p in positions() {
        let g = naive::grid(&p);
        let (b, w) = (naive::five(&g, 1), naive::five(&g, 2));
        let expected = match (b, w) {
            (true, true) => Some(Value::Draw),
            (true, false) | (false, true) => {
                let mover_black = p.black_to_move();
                Some(if b == mover_black {
                    Value::Win
                } else {
                    Value::Loss
                })
            }
            _ if naive::count(&g, 0) == 0 => Some(Value::Draw),
            _ => None,
        };
        assert_eq!(Pentago.outcome(&p), expected, "{}", draw(&p));
    }
}

#[test]
fn children_follow_the_naive_rules() {
    for p in positions()
        .into_iter()
        .filter(|p| p.outcome().is_none())
        .take(200)
    {
        let g = naive::grid(&p);
        let me = if p.black_to_move() { 1 } else { 2 };
        for m in Pentago.moves(&p) {
            let c = Pentago.play_unchecked(&p, m);
            let (x, y) = endgame_pentago::board::cell_of(m.cell as usize);
            let mut h = g;
            h[x][y] = me;
            if m.rot != u8::MAX {
                h = naive::rotate(&h, (m.rot / 2) as usize, m.rot % 2 == 0);
            }
            assert_eq!(naive::grid(&c), h);
        }
    }
}

#[test]
fn move_notation_reads_and_writes() {
    let m = parse_move("c4 ur cw").unwrap();
    assert_eq!(
        m,
        Move {
            cell: bit_index(2, 3) as u8,
            rot: 6
        }
    );
    assert_eq!(format_move(m), "c4 ur cw");
    assert_eq!(
        parse_move(" F6  LL CCW ").unwrap(),
        Move {
            cell: bit_index(5, 5) as u8,
            rot: 1
        }
    );
    assert_eq!(format_move(parse_move("a1").unwrap()), "a1");
    assert_eq!(format_move(parse_move("ul ccw").unwrap()), "ul ccw");
    for bad in [
        "",
        "g1 ur cw",
        "a7 ur cw",
        "a1 uu cw",
        "a1 ur left",
        "a1 ur cw x",
        "ur",
    ] {
        assert!(parse_move(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn bad_positions_are_refused() {
    for bad in ["", "x", "12a", "-5", "18446744073709551616", "1m m", "m"] {
        assert!(parse_position(bad).is_err(), "{bad:?}");
    }
    // A quadrant value of 3^9 = 19683 is not 9 ternary digits.
    assert!(parse_position("19683").is_err());
    // Two black stones, no white: impossible.
    assert!(parse_position("4")
        .unwrap_err()
        .to_string()
        .contains("impossible"));
    // One white stone and no black.
    assert!(parse_position("2").is_err());
    // `m` on an empty board.
    assert!(parse_position("0m").is_err());
    assert_eq!(parse_position("1").unwrap().stones(), 1);
    assert!(parse_position("1m").unwrap().black_to_move());
}

#[test]
fn illegal_moves_are_refused_with_a_reason() {
    let p = parse_position("1").unwrap(); // black a1, white to move
    let occupied = parse_move("a1 ur cw").unwrap();
    assert!(Pentago
        .play_checked(&p, occupied)
        .unwrap_err()
        .to_string()
        .contains("occupied"));
    let rotation_only = parse_move("ur cw").unwrap();
    assert!(Pentago.play_checked(&p, rotation_only).is_err());
    let m = parse_position("1m").unwrap();
    assert!(Pentago
        .play_checked(&m, parse_move("b2 ur cw").unwrap())
        .unwrap_err()
        .to_string()
        .contains("rotation is due"));
    assert!(Pentago.play_checked(&m, rotation_only).is_ok());
}

#[test]
fn symmetry_images_have_the_same_value() {
    let mut solver = Solver::default();
    let ps: Vec<Position> = positions()
        .into_iter()
        .filter(|p| p.stones() >= 25 && p.outcome().is_none())
        .take(10)
        .collect();
    for p in ps {
        let v = solver.value(&p, Budget::UNLIMITED);
        for s in 0..8 {
            let q = Pentago.apply_symmetry(s, &p);
            assert_eq!(solver.value(&q, Budget::UNLIMITED), v);
        }
    }
}

#[test]
fn board_drawing_shows_stones_and_labels() {
    let p = parse_position("205481007622539795m").unwrap();
    let d = draw(&p);
    assert!(d.starts_with("    a b c   d e f\n 6  X O O |"), "{d}");
    assert_eq!(d.lines().count(), 8);
}
