//! Solutions of Sim: weak solves with every key, strong against weak
//! against a solve without symmetry, the table audit, perfect moves mapped
//! back through the relabelling, hints and players (the published values
//! are in `published.rs`).

// Matrix code reads best with index loops.
#![allow(clippy::needless_range_loop)]

use endgame_core::player::MoveLimits;
use endgame_core::strong::{self, Keyed};
use endgame_core::{conformance, Game, Notation, Outcome, Rules, Value};
use endgame_sim::player::{self, NAMES};
use endgame_sim::solve::{self, KeyKind, Table, WithKey};
use endgame_sim::{Sim, SimError};

#[test]
fn weak_solves_with_other_keys_agree_and_store_fewer_boards() {
    // The published round counts of the raw key are in `published.rs`.
    let sim = Sim::k6();
    let w = solve::weak(&sim, &sim.start(), KeyKind::Raw);
    let d = solve::weak(&sim, &sim.start(), KeyKind::DegreeSorted);
    let e = solve::weak(&sim, &sim.start(), KeyKind::Exact);
    assert_eq!((w.value, d.value), (e.value, e.value));
    assert!(e.stored < d.stored && d.stored < w.stored);
}

#[test]
fn strong_solutions_are_consistent_and_agree_with_weak_ones() {
    for n in 3..=7 {
        for misere in [false, true] {
            let sim = Sim::new(n, misere).unwrap();
            let s = solve::strong(&sim);
            strong::check_consistency(&sim, &s).unwrap();
            let root = s.get(&s.root).unwrap();
            for key in [KeyKind::Exact, KeyKind::DegreeSorted] {
                assert_eq!(solve::weak(&sim, &sim.start(), key).value, root.value);
            }
            let per_move: u64 = s.layers.iter().map(|l| l.positions).sum();
            assert_eq!(per_move, s.total.positions);
            // Reachable and standard/misère share positions (same endings).
            let other = solve::strong(&Sim::new(n, !misere).unwrap());
            assert_eq!(other.total.positions, s.total.positions);
        }
    }
}

#[test]
fn exact_table_agrees_with_a_solve_without_symmetry() {
    // K5 and K6 solved on raw positions (no symmetry at all): every raw
    // position's outcome equals its canonical form's in the exact table.
    for n in [5, 6] {
        for misere in [false, true] {
            let sim = Sim::new(n, misere).unwrap();
            let raw = strong::strong_solve(&WithKey {
                sim: &sim,
                key: KeyKind::Raw,
            });
            let exact = solve::strong(&sim);
            for (p, o) in &raw.table {
                assert_eq!(
                    exact.get(&sim.canonical_key(p)),
                    Some(o.outcome()),
                    "{}",
                    sim.format_position(p)
                );
            }
            // Classes are unions of raw positions: fewer, and all reached.
            assert!(exact.total.positions < raw.total.positions);
        }
    }
}

#[test]
fn perfect_moves_map_back_to_real_segments() {
    for (n, misere) in [(6, false), (6, true), (7, false)] {
        let sim = Sim::new(n, misere).unwrap();
        let mut table = Table::default();
        for p in conformance::random_game_positions(&sim, 42, 40) {
            let o = solve::outcome(&sim, &mut table, &p);
            match solve::best_move(&sim, &mut table, &p) {
                None => assert!(sim.outcome(&p).is_some()),
                Some((m, proven)) => {
                    assert!(sim.is_legal(&p, m));
                    assert_eq!(proven, o);
                    let child = sim.play_unchecked(&p, m);
                    assert_eq!(
                        Outcome::parent_of(solve::outcome(&sim, &mut table, &child)),
                        o,
                        "{} best {}",
                        sim.format_position(&p),
                        sim.format_move(m)
                    );
                    let hints = solve::hint(&sim, &mut table, &p);
                    assert_eq!(hints.len(), sim.moves(&p).len());
                    assert_eq!(hints[0].1, o);
                    assert!(hints.iter().all(|h| !h.1.better_than(&o)));
                }
            }
        }
    }
}

fn play_game(sim: &Sim, a: &str, b: &str, seed: u64) -> Option<Value> {
    let mut red = player::by_name(a, sim, seed).unwrap();
    let mut blue = player::by_name(b, sim, seed + 1).unwrap();
    let mut p = sim.start();
    loop {
        if let Some(v) = sim.outcome(&p) {
            // Value for the player to move; report it for red.
            return Some(if p.red_to_move() { v } else { v.flip() });
        }
        let mover = if p.red_to_move() { &mut red } else { &mut blue };
        let m = mover.choose(sim, &p, &MoveLimits::default());
        p = sim.play(&p, m).ok()?;
    }
}

#[test]
fn players_play_legally_and_perfect_never_loses_where_it_should_not() {
    let sim = Sim::k6();
    for a in NAMES {
        for b in NAMES {
            assert!(play_game(&sim, a, b, 3).is_some(), "{a} vs {b}");
        }
    }
    // Second player wins K6: perfect as blue wins every game.
    for opp in ["random", "avoid", "search", "perfect"] {
        for seed in 0..5 {
            assert_eq!(play_game(&sim, opp, "perfect", seed), Some(Value::Loss));
        }
    }
    // Misère K6 is a first-player win.
    let mis = Sim::new(6, true).unwrap();
    for opp in ["random", "avoid", "search"] {
        assert_eq!(play_game(&mis, "perfect", opp, 1), Some(Value::Win));
    }
    assert!(matches!(
        player::by_name("genius", &sim, 0),
        Err(SimError::UnknownPlayer(..))
    ));
    assert!(player::by_name("search:6", &sim, 0).is_ok());
    assert!(player::by_name("search:0", &sim, 0).is_err());
}

#[test]
fn avoid_beats_random_more_often_than_not() {
    let sim = Sim::k6();
    let mut avoid_wins = 0;
    for seed in 0..100 {
        if play_game(&sim, "avoid", "random", seed) == Some(Value::Win) {
            avoid_wins += 1;
        }
    }
    assert!(avoid_wins > 60, "{avoid_wins}");
}

#[test]
#[ignore = "K8: about a minute and a half and ~1 GB per variant"]
fn k8_strong_solution_is_consistent() {
    for misere in [false, true] {
        let sim = Sim::new(8, misere).unwrap();
        let s = solve::strong(&sim);
        strong::check_consistency(&sim, &s).unwrap();
        let w = solve::weak(&sim, &sim.start(), KeyKind::Exact);
        assert_eq!(w.value, s.get(&s.root).unwrap().value);
        eprintln!("K8 misere={misere}: {:?} {:?}", s.get(&s.root), s.total);
    }
}
