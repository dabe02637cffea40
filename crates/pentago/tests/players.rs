//! The players: names, legality, and that `strong` keeps a proven win.

use endgame_core::conformance::random_game_positions;
use endgame_core::player::MoveLimits;
use endgame_core::{Rules, Value};
use endgame_pentago::player::{by_name, NAMES};
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use std::time::Duration;

fn undecided(min_stones: u32) -> Vec<Position> {
    random_game_positions(&Pentago, 21, 120)
        .into_iter()
        .filter(|p| p.stones() >= min_stones && p.outcome().is_none())
        .collect()
}

#[test]
fn every_name_builds_and_plays_legal_moves() {
    let limits = MoveLimits {
        time: Some(Duration::from_millis(20)),
        nodes: None,
        memory: None,
    };
    for name in NAMES {
        let mut p = by_name(name, 1).unwrap();
        assert_eq!(p.name(), name);
        for pos in undecided(0).into_iter().step_by(40).take(8) {
            let m = p.choose(&Pentago, &pos, &limits);
            assert!(Pentago.is_legal(&pos, m), "{name} played {m:?}");
        }
    }
    let err = by_name("perfect", 1).err().expect("unknown name");
    assert!(err.to_string().contains("random, reference, strong"));
}

#[test]
fn strong_never_spoils_a_proven_win() {
    let mut solver = Solver::new(20);
    let mut strong = by_name("strong", 1).unwrap();
    let limits = MoveLimits {
        time: Some(Duration::from_secs(2)),
        nodes: None,
        memory: None,
    };
    let mut checked = 0;
    for pos in undecided(24) {
        if solver.value(&pos, Budget::UNLIMITED) != Value::Win {
            continue;
        }
        let m = strong.choose(&Pentago, &pos, &limits);
        let child = Pentago.play_unchecked(&pos, m);
        assert_eq!(solver.value(&child, Budget::UNLIMITED), Value::Loss);
        checked += 1;
        if checked == 30 {
            break;
        }
    }
    assert!(checked >= 10, "only {checked} won positions");
}

#[test]
fn reference_takes_a_win_in_one() {
    // Black a1..d1, white scattered: black to move wins with e1 (or by
    // placing elsewhere and rotating into five).
    use endgame_pentago::board::bit_index;
    let black = (0..4).fold(0u64, |b, x| b | 1 << bit_index(x, 0));
    let white = [(5, 5), (5, 3), (3, 5), (4, 2)]
        .iter()
        .fold(0u64, |b, &(x, y)| b | 1 << bit_index(x, y));
    let pos = Position::new(black, white, false).unwrap();
    let m = by_name("reference", 0)
        .unwrap()
        .choose(&Pentago, &pos, &MoveLimits::default());
    let child = Pentago.play_unchecked(&pos, m);
    assert_eq!(child.outcome(), Some(Value::Loss));
}

/// `seed`, the reference player's name until this release, still gives
/// that player (one release), under its current name.
#[test]
fn the_old_name_seed_gives_the_reference_player() {
    let old = by_name("seed", 0).unwrap();
    assert_eq!(old.name(), "reference");
    assert!(!NAMES.contains(&"seed"));
    let ai = endgame_pentago::api::Ai::new("seed", 1).unwrap();
    assert_eq!(ai.strength(), "reference");
}
