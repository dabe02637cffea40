//! Prints positions with a given number of stones from seeded random
//! games, one per line in the interchange notation, for benchmarks:
//! `cargo run --release -p endgame-pentago --example positions -- STONES COUNT [SEED]`.

use endgame_core::conformance::random_game_positions;
use endgame_pentago::notation::format_position;
use endgame_pentago::Pentago;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stones: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(18);
    let count: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut n = 0;
    let mut round = 0;
    while n < count {
        for p in random_game_positions(&Pentago, seed.wrapping_add(round), 50) {
            if n < count && p.stones() == stones && p.outcome().is_none() && !p.must_rotate() {
                println!("{}", format_position(&p));
                n += 1;
            }
        }
        round += 1;
    }
}
