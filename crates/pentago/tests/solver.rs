//! The exact solver against plain memoised minimax on late positions of
//! random games.

use endgame_core::{Rules, Value};
use endgame_pentago::solve::{best_move, keeping_moves, move_values, Budget, Solver};
use endgame_pentago::{Pentago, Position};
use std::collections::HashMap;

mod brute;
use brute::minimax;

/// Positions of random games with at least `min_stones` stones.
fn late_positions(min_stones: u32, seed: u64, playouts: usize) -> Vec<Position> {
    brute::positions(min_stones, 36, seed, playouts)
}

fn brute(p: &Position) -> Value {
    match minimax(p, &mut HashMap::new()) {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

fn cross_check(ps: &[Position]) -> [usize; 3] {
    let mut solver = Solver::new(18);
    let mut seen = [0usize; 3];
    for p in ps {
        let fast = solver.value(p, Budget::UNLIMITED);
        let slow = brute(p);
        assert_eq!(
            fast,
            slow,
            "position {}",
            endgame_pentago::notation::format_position(p)
        );
        seen[match fast {
            Value::Win => 0,
            Value::Draw => 1,
            _ => 2,
        }] += 1;
    }
    seen
}

#[test]
fn solver_agrees_with_brute_force_minimax_from_26_stones() {
    let ps = late_positions(26, 11, 1500);
    // Every position from 29 stones on, and a sample at 26 to 28 (the
    // brute force needs seconds for some of those; all of them are in the
    // ignored test below).
    let mut chosen: Vec<Position> = ps.iter().filter(|p| p.stones() >= 29).copied().collect();
    chosen.extend(ps.iter().filter(|p| p.stones() < 29).step_by(8).take(40));
    assert!(chosen.len() >= 200, "only {} positions", chosen.len());
    let seen = cross_check(&chosen);
    // All three values occur, so the test checks more than one branch.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// The full set: `cargo test --release -p endgame-pentago --test solver -- --ignored`.
#[test]
#[ignore]
fn solver_agrees_with_brute_force_minimax_on_every_26_to_28_stone_position() {
    let ps: Vec<Position> = late_positions(26, 11, 1500)
        .into_iter()
        .filter(|p| p.stones() < 29)
        .collect();
    let seen = cross_check(&ps);
    eprintln!("{} positions, win/draw/loss {seen:?}", ps.len());
}

#[test]
fn children_and_move_values_are_consistent() {
    let mut solver = Solver::new(18);
    for p in late_positions(24, 5, 200).into_iter().take(30) {
        let (v, kids) = solver.value_and_children(&p, Budget::UNLIMITED);
        // A placement child keeps the mover: the position is worth the best.
        let best = kids.iter().map(|&(_, cv)| rank(cv)).max().unwrap();
        assert_eq!(rank(v), best);
        for &(c, cv) in &kids {
            assert!(c.must_rotate());
            let (cv2, grand) = solver.value_and_children(&c, Budget::UNLIMITED);
            assert_eq!(cv, cv2);
            if let Some(o) = c.outcome() {
                // A placement that makes five: won at once, no rotation.
                assert!(grand.is_empty());
                assert_eq!((o, cv), (Value::Win, Value::Win));
                continue;
            }
            // A rotation child passes the move: worth the negation.
            let g = grand.iter().map(|&(_, gv)| rank(gv.flip())).max().unwrap();
            assert_eq!(rank(cv), g);
        }
        let mv = move_values(&mut solver, &p, Budget::UNLIMITED);
        assert_eq!(mv.len(), Pentago.moves(&p).len());
        assert_eq!(mv[0].1, v);
        let (m, bv) = best_move(&mut solver, &p, Budget::UNLIMITED).unwrap();
        assert_eq!(bv, v);
        let child = Pentago.play_unchecked(&p, m);
        assert_eq!(solver.value(&child, Budget::UNLIMITED).flip(), v);
    }
}

/// The moves `keeping_moves` gives against brute force: a winning move when
/// won, exactly the drawing moves when drawn, every move when lost.
#[test]
fn keeping_moves_agree_with_brute_force_from_29_stones() {
    let mut solver = Solver::new(18);
    let mut seen = [0usize; 3];
    for p in late_positions(29, 5, 600).into_iter().take(150) {
        let want = brute(&p);
        let (v, keep) = keeping_moves(&mut solver, &p, Budget::UNLIMITED).unwrap();
        assert_eq!(v, want);
        let keeps = |m| {
            let c = Pentago.play_unchecked(&p, m);
            brute(&c).flip() == v
        };
        let moves = Pentago.moves(&p);
        match v {
            Value::Win => {
                assert_eq!(keep.len(), 1);
                assert!(keeps(keep[0]));
                seen[0] += 1;
            }
            Value::Draw => {
                let mut all: Vec<_> = moves.into_iter().filter(|&m| keeps(m)).collect();
                let mut got = keep.clone();
                all.sort();
                got.sort();
                assert_eq!(got, all);
                seen[1] += 1;
            }
            _ => {
                assert_eq!(keep.len(), moves.len());
                seen[2] += 1;
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// `keeping_moves` from the retrograde solver (positions whose alpha-beta
/// share does not suffice) agrees with the move values.
#[test]
fn keeping_moves_agree_with_move_values_at_22_stones() {
    let mut solver = Solver::new(18);
    let mut retrograde = 0;
    for p in late_positions(22, 9, 200)
        .into_iter()
        .filter(|p| p.stones() == 22 && !p.must_rotate())
        .take(12)
    {
        let (v, keep) = keeping_moves(&mut solver, &p, Budget::UNLIMITED).unwrap();
        retrograde += solver.last_was_retrograde() as usize;
        let values = move_values(&mut solver, &p, Budget::UNLIMITED);
        assert_eq!(values[0].1, v);
        let mut want: Vec<_> = values
            .iter()
            .filter(|&&(_, mv)| mv == v)
            .map(|&(m, _)| m)
            .collect();
        match v {
            Value::Win => {
                assert_eq!(keep.len(), 1);
                assert!(want.contains(&keep[0]));
            }
            _ => {
                let mut got = keep.clone();
                want.sort();
                got.sort();
                assert_eq!(got, want);
            }
        }
    }
    assert!(retrograde > 0, "no position went to the retrograde solver");
}

#[test]
fn a_tiny_budget_reports_unknown_on_an_early_position() {
    let p = Pentago.start();
    let mut solver = Solver::new(16);
    let b = Budget {
        nodes: Some(10_000),
        time: None,
    };
    assert_eq!(solver.value(&p, b), Value::Unknown);
    let (v, kids) = solver.value_and_children(&p, b);
    assert_eq!(v, Value::Unknown);
    assert!(kids.iter().any(|&(_, v)| v == Value::Unknown));
}

fn rank(v: Value) -> i32 {
    match v {
        Value::Win => 1,
        Value::Draw => 0,
        Value::Loss => -1,
        Value::Unknown => panic!("unknown in an unlimited solve"),
    }
}
