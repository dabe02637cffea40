//! Hint latency of the analysis service (`api::Service::analyze` with the
//! default budget, as `endgame hint pentago` and `/api/pentago/hints`
//! run it) on positions of uniformly random games, seeded:
//!
//! `cargo run --release -p endgame-pentago --example pentago_hint_latency -- [COUNT] [SEED] [STONES...]`
//!
//! Defaults: 20 positions for each of 18, 20 and 24 stones, seed 1. One
//! service answers every hint, as a server does. Prints, per stone count,
//! the median, 95th percentile and maximum wall time, and the moves left
//! undecided; then one line per position (`stones position ms undecided
//! method`) on stderr.

use endgame_core::budget::Budget;
use endgame_core::conformance::random_game_positions;
use endgame_core::stats::quantile;
use endgame_pentago::api::{Service, DEFAULT_NODES, DEFAULT_TIME};
use endgame_pentago::notation::format_position;
use endgame_pentago::{Pentago, Position};
use std::time::Instant;

/// `count` placement-due, unfinished positions of `stones` stones from
/// random games seeded from `seed`.
fn positions(stones: u32, count: usize, seed: u64) -> Vec<Position> {
    let mut out = Vec::new();
    let mut round = 0u64;
    while out.len() < count {
        for p in random_game_positions(&Pentago, seed.wrapping_add(round), 50) {
            if out.len() < count
                && p.stones() == stones
                && p.outcome().is_none()
                && !p.must_rotate()
            {
                out.push(p);
            }
        }
        round += 1;
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(20);
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut stones: Vec<u32> = args.iter().skip(2).filter_map(|s| s.parse().ok()).collect();
    if stones.is_empty() {
        stones = vec![18, 20, 24];
    }
    let service = Service::new();
    println!("stones  positions  median_ms  p95_ms  max_ms  undecided_moves");
    for &n in &stones {
        let mut times = Vec::new();
        let mut undecided = 0;
        for p in positions(n, count, seed) {
            let budget = Budget::time(DEFAULT_TIME).with_nodes(DEFAULT_NODES);
            let t = Instant::now();
            let a = service.analyze(&p, &budget);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let u = a.undecided();
            eprintln!(
                "{n} {} {ms:.1} {u} {}",
                format_position(&p),
                a.detail.method.as_deref().unwrap_or("-")
            );
            times.push(ms);
            undecided += u;
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{n:>6}  {:>9}  {:>9.1}  {:>6.1}  {:>6.1}  {undecided:>15}",
            times.len(),
            quantile(&times, 0.5),
            quantile(&times, 0.95),
            times[times.len() - 1],
        );
    }
}
