//! Prints positions with a given number of stones, one per line in the
//! interchange notation, for benchmarks:
//! `cargo run --release -p endgame-pentago --example positions -- STONES COUNT [SEED] [random|reference]`.
//!
//! `random` (the default) takes them from uniformly random games, which are
//! mostly decided by then; `reference` from games of the `reference`
//! player (Pinton and de Carvalho's AI) against itself after two random
//! opening plies, which are more balanced (`seed`, its old name, too).

use endgame_core::conformance::random_game_positions;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::Rules;
use endgame_pentago::notation::format_position;
use endgame_pentago::player::ReferencePlayer;
use endgame_pentago::{Pentago, Position};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn wanted(p: &Position, stones: u32) -> bool {
    p.stones() == stones && p.outcome().is_none() && !p.must_rotate()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stones: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(18);
    let count: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let from_reference_player = args.get(3).is_some_and(|s| s == "reference" || s == "seed");
    let mut n = 0;
    let mut round = 0u64;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    while n < count {
        if from_reference_player {
            let mut pos = Pentago.start();
            for ply in 0.. {
                if wanted(&pos, stones) {
                    println!("{}", format_position(&pos));
                    n += 1;
                    break;
                }
                if pos.outcome().is_some() || pos.stones() > stones {
                    break;
                }
                let mv = if ply < 2 {
                    *Pentago.moves(&pos).choose(&mut rng).expect("moves")
                } else {
                    ReferencePlayer.choose(&Pentago, &pos, &MoveLimits::default())
                };
                pos = Pentago.play_unchecked(&pos, mv);
            }
        } else {
            for p in random_game_positions(&Pentago, seed.wrapping_add(round), 50) {
                if n < count && wanted(&p, stones) {
                    println!("{}", format_position(&p));
                    n += 1;
                }
            }
        }
        round += 1;
    }
}
