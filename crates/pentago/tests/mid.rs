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
    // Positions due to rotate too (random games hold only whole moves):
    // one placement, on the lowest empty cell, of every fourth position.
    let placed: Vec<Position> = ps
        .iter()
        .step_by(4)
        .filter_map(|p| {
            let cell = endgame_pentago::board::bits_of(p.empty()).next()?;
            let c = p.place(cell);
            c.outcome().is_none().then_some(c)
        })
        .collect();
    ps.extend(placed);
    ps.sort();
    ps.dedup();
    ps
}

/// Compares both solvers on `ps`; returns how many were won, drawn, lost.
fn agree(ps: &[Position]) -> [usize; 3] {
    let (seen, skipped) = agree_within(ps, Budget::UNLIMITED);
    assert_eq!(skipped, 0);
    seen
}

/// Compares both solvers on the positions of `ps` the alpha-beta solves
/// (value and every child) within `budget`; returns how many were won,
/// drawn, lost, and how many were skipped.
fn agree_within(ps: &[Position], budget: Budget) -> ([usize; 3], usize) {
    let mut seen = [0usize; 3];
    let mut skipped = 0;
    for p in ps {
        let mut ab = Solver::new(20);
        ab.set_retrograde(false);
        let name = format_position(p);
        let want = ab.value_and_children(p, budget);
        if want.0 == Value::Unknown || want.1.iter().any(|c| c.1 == Value::Unknown) {
            skipped += 1;
            continue;
        }
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
    (seen, skipped)
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

/// Hundreds of positions at 20 to 30 stones (minutes; the alpha-beta gets
/// 5 s a position, and the positions it does not finish are counted).
#[test]
#[ignore]
fn retrograde_agrees_with_alpha_beta_many() {
    let budget = Budget {
        nodes: None,
        time: Some(std::time::Duration::from_secs(5)),
    };
    for (range, seed, playouts) in [(20..=21, 21, 60), (22..=24, 22, 60), (25..=30, 23, 40)] {
        let ps = positions(range.clone(), seed, playouts);
        let (seen, skipped) = agree_within(&ps, budget);
        eprintln!(
            "{range:?}: {} positions, {} compared (won/drawn/lost {seen:?}), {skipped} beyond the alpha-beta's 5 s",
            ps.len(),
            ps.len() - skipped
        );
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
