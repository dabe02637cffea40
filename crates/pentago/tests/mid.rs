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
/// 5 s a position, and the positions it does not finish are counted; the
/// positions compared are counted as they are compared, and at least 80
/// and two thirds of each range must be):
/// `cargo test --release -p endgame-pentago --test mid -- --ignored many --nocapture`.
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
        // Each position compared is counted by its outcome.
        let compared: usize = seen.iter().sum();
        assert_eq!(compared + skipped, ps.len(), "{range:?}");
        assert!(compared > 0, "{range:?}: no position compared");
        eprintln!(
            "{range:?}: {} positions, {compared} compared (won/drawn/lost {seen:?}), {skipped} beyond the alpha-beta's 5 s",
            ps.len(),
        );
        // Not vacuous: the runs so far compared 87–100 % of each range's
        // 107 to 194 positions, wins and losses in every range.
        assert!(
            compared >= 80 && 3 * compared >= 2 * ps.len(),
            "{range:?}: only {compared} of {} positions compared",
            ps.len()
        );
        assert!(seen[0] > 0 && seen[2] > 0, "{range:?}: {seen:?}");
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

/// Whole-move positions of `stones` stones from random games (mostly
/// decided by then: many have a win in one or a forced reply).
fn whole_moves(stones: u32, seed: u64, playouts: usize) -> Vec<Position> {
    random_game_positions(&Pentago, seed, playouts)
        .into_iter()
        .filter(|p| p.stones() == stones && p.outcome().is_none() && !p.must_rotate())
        .collect()
}

/// 17 stones (19 empty cells, beyond the 18 of before): the retrograde
/// solver's value, children and move values against the alpha-beta alone
/// on a position it settles quickly, and the memory the solve held
/// against the prediction. One 19-empty solve (about 2–5 s in the `ci`
/// profile on the 2-core machine, 1.6 GiB).
#[test]
fn nineteen_empty_cells_agree_with_alpha_beta() {
    let budget = Budget {
        nodes: Some(2_000_000),
        time: None,
    };
    // The first position of `whole_moves(17, 21, 40)` the alpha-beta
    // settles within 2 million nodes (every child too).
    let p = endgame_pentago::notation::parse_position("4499101018511068174").unwrap();
    let t = std::time::Instant::now();
    let mut ab = Solver::new(20);
    ab.set_retrograde(false);
    let want = ab.value_and_children(&p, budget);
    assert!(want.0 != Value::Unknown && want.1.iter().all(|c| c.1 != Value::Unknown));
    eprintln!("alpha-beta: {:?}, {} nodes", t.elapsed(), ab.nodes());
    assert_eq!(p.empty().count_ones(), 19);
    let name = format_position(&p);
    let t = std::time::Instant::now();
    let sol = mid::solve(&p, None).expect("19 empty cells within the memory limit");
    eprintln!("{name}: 19 empty cells solved in {:?}", t.elapsed());
    assert_eq!(sol.value(), want.0, "value of {name}");
    assert_eq!(sol.children(), want.1, "children of {name}");
    let need = mid::memory(&p).unwrap();
    assert!(
        sol.layer_bytes() <= need.one_sweep,
        "{} > {need:?}",
        sol.layer_bytes()
    );
    assert!(need.one_sweep < 2 << 30, "{need:?}");
}

/// The one-move reduction at 19 empty cells: a 17-stone position's value
/// and children, solved at 19 empty cells, against each child (a
/// position due to rotate, 18 empty cells) solved on its own by the
/// 18-empty code, and the value against the best of the children. Twenty
/// retrograde solves (about 30 s in release on the 2-core machine):
/// `cargo test --profile ci -p endgame-pentago --test mid -- --ignored nineteen --nocapture`.
#[test]
#[ignore]
fn nineteen_empty_cells_agree_with_their_children_at_eighteen() {
    let mut compared = 0;
    for p in whole_moves(17, 5, 20).into_iter().take(2) {
        let name = format_position(&p);
        let t = std::time::Instant::now();
        let sol = mid::solve(&p, None).expect("19 empty cells");
        eprintln!("{name}: 19 empty cells in {:?}", t.elapsed());
        let kids = sol.children();
        assert_eq!(kids.len(), 19);
        let mut best = Value::Loss;
        for (c, v) in &kids {
            assert!(c.must_rotate());
            let alone = mid::solve(c, None).expect("18 empty cells");
            assert_eq!(alone.value(), *v, "child {} of {name}", format_position(c));
            // The placer keeps the move: the best child for it.
            best = match (best, *v) {
                (_, Value::Win) | (Value::Win, _) => Value::Win,
                (_, Value::Draw) | (Value::Draw, _) => Value::Draw,
                _ => Value::Loss,
            };
        }
        assert_eq!(sol.value(), best, "value of {name}");
        compared += 1;
        eprintln!(
            "{name}: {:?}, children agree ({:?})",
            sol.value(),
            t.elapsed()
        );
    }
    // Not vacuous: both positions were there and compared.
    assert_eq!(compared, 2, "positions compared");
}

/// A budget below what the layers need in memory spills them to disk
/// (planned, not run here: a 16-stone spilled solve writes about 20 GB);
/// one too small even for that is refused before anything is allocated,
/// naming the memory needed.
#[test]
fn a_root_over_the_memory_limit_is_refused_with_its_needs() {
    let p = whole_moves(16, 3, 40)[0];
    assert_eq!(p.empty().count_ones(), 20);
    let need = mid::memory(&p).unwrap();
    // 1 GiB: a plan with files (unless this machine's temporary
    // directory lacks the room, which the refusal then names).
    match mid::plan(&p, Some(1 << 30)) {
        Ok(plan) => assert!(
            plan.one_sweep && plan.disk > 0 && plan.bytes <= 1 << 30,
            "{plan:?}"
        ),
        Err(e) => assert!(matches!(e, mid::Refusal::NoDisk { .. }), "{e}"),
    }
    // 20 MiB: less than the fives tables and margin of 20 empty cells.
    let small = 20 << 20;
    let err = mid::solve_limited(&p, None, None, Some(small)).unwrap_err();
    assert!(
        matches!(err, mid::Refusal::TooLarge { empty: 20, needed, .. } if needed == need.two_sweeps)
    );
    let text = err.to_string();
    assert!(
        text.contains("needs 2.") && text.contains("GiB for 20 empty cells"),
        "{text}"
    );
    assert!(text.contains("over the memory limit of"), "{text}");
    assert_eq!(
        mid::value_limited(&p, None, None, Some(small))
            .map_err(|e| matches!(e, mid::Refusal::TooLarge { .. })),
        Err(true)
    );
    // The solver leaves such a root to the alpha-beta and says why.
    let mut s = Solver::new(16);
    s.set_memory_limit(Some(small));
    let v = s.value(
        &p,
        Budget {
            nodes: Some(1000),
            time: None,
        },
    );
    assert!(!s.last_was_retrograde());
    assert!(
        matches!(s.retrograde_refusal(), Some(mid::Refusal::TooLarge { .. })),
        "{v:?}"
    );
    // 21 empty cells (15 stones): in range, over the default limit even
    // a sweep per question, so planned with files.
    let q = whole_moves(15, 3, 40)[0];
    assert_eq!(q.empty().count_ones(), 21);
    let need = mid::memory(&q).unwrap();
    assert!(need.two_sweeps > mid::DEFAULT_MEMORY_BYTES, "{need:?}");
    match mid::plan(&q, Some(mid::DEFAULT_MEMORY_BYTES)) {
        Ok(plan) => assert!(
            plan.disk > 0 && plan.bytes <= mid::DEFAULT_MEMORY_BYTES,
            "{plan:?}"
        ),
        Err(e) => assert!(matches!(e, mid::Refusal::NoDisk { empty: 21, .. }), "{e}"),
    }
    // 22 empty cells: beyond the solver whatever the memory.
    let q = whole_moves(14, 3, 40)[0];
    assert_eq!(mid::plan(&q, Some(u64::MAX)), Err(mid::Refusal::TooEarly));
}
