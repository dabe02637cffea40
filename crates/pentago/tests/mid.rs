//! The retrograde midgame solver against the alpha-beta solver (itself
//! checked against brute-force minimax in `solver.rs`) on positions of
//! random games, children included, and for both kinds of position
//! (placement due, rotation due).

use endgame_core::conformance::random_game_positions;
use endgame_core::Value;
use endgame_pentago::notation::format_position;
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{mid, Pentago, Position};

fn positions(stones: std::ops::RangeInclusive<u32>, seed: u64, playouts: usize) -> Vec<Position> {
    let mut ps: Vec<Position> = random_game_positions(&Pentago, seed, playouts)
        .into_iter()
        .filter(|p| stones.contains(&p.stones()) && p.outcome().is_none())
        .collect();
    ps.sort();
    ps.dedup();
    ps
}

/// Compares both solvers on `ps`; returns how many were won, drawn, lost.
fn agree(ps: &[Position]) -> [usize; 3] {
    let mut ab = Solver::new(20);
    ab.set_retrograde(false);
    let mut seen = [0usize; 3];
    for p in ps {
        let name = format_position(p);
        let want = ab.value_and_children(p, Budget::UNLIMITED);
        let got = mid::value_and_children(p, None).expect("within MAX_EMPTY");
        assert_eq!(got.0, want.0, "value of {name}");
        assert_eq!(got.1, want.1, "children of {name}");
        assert_eq!(
            mid::value(p, None).unwrap(),
            want.0,
            "value alone of {name}"
        );
        seen[match want.0 {
            Value::Win => 0,
            Value::Draw => 1,
            _ => 2,
        }] += 1;
    }
    seen
}

#[test]
fn retrograde_agrees_with_alpha_beta_late() {
    let ps = positions(27..=35, 5, 60);
    assert!(ps.len() >= 200, "{} positions", ps.len());
    let seen = agree(&ps);
    // Every outcome occurs, so the check is not vacuous.
    assert!(seen.iter().all(|&c| c > 0), "{seen:?}");
}

#[test]
fn retrograde_agrees_with_alpha_beta_at_22_to_26_stones() {
    let ps = positions(22..=26, 9, 12);
    assert!(ps.len() >= 40, "{} positions", ps.len());
    let seen = agree(&ps);
    assert!(seen[0] > 0 && seen[2] > 0, "{seen:?}");
}

/// Hundreds of positions at 20 to 24 stones (tens of seconds).
#[test]
#[ignore]
fn retrograde_agrees_with_alpha_beta_many() {
    for (range, seed, playouts) in [(20..=21, 21, 120), (22..=24, 22, 80), (25..=30, 23, 60)] {
        let ps = positions(range.clone(), seed, playouts);
        let seen = agree(&ps);
        eprintln!("{range:?}: {} positions, won/drawn/lost {seen:?}", ps.len());
    }
}

#[test]
fn refuses_early_positions_and_passed_deadlines() {
    let early = positions(10..=12, 3, 2)[0];
    assert_eq!(mid::value(&early, None), Err(mid::Refusal::TooEarly));
    let p = positions(20..=20, 4, 10)[0];
    let past = std::time::Instant::now();
    assert_eq!(mid::value(&p, Some(past)), Err(mid::Refusal::OutOfTime));
}
