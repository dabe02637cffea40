//! Builds one Sim table into a cache directory (or loads it when a valid
//! file is there), then measures loading it and answering hints from it.
//!
//! `cargo run --release -p endgame-sim --example table_bench -- N [misere] [DIR]`
//!
//! Prints the build (or load) time, the file size, a fresh service's load
//! time and the hint latency over 200 random positions (median, p95, max).

use endgame_core::budget::Budget;
use endgame_core::cache::Tables;
use endgame_core::conformance::random_game_positions;
use endgame_core::Game;
use endgame_sim::api::{table_name, Service};
use endgame_sim::Sim;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(7);
    let misere = args.iter().any(|a| a == "misere");
    let dir = args
        .iter()
        .skip(1)
        .find(|a| *a != "misere")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("endgame-sim-bench"));
    let sim = Sim::new(n, misere).expect("n in 3..=8");
    let name = table_name(n, misere);

    let service = Service::new(Some(dir.clone()));
    let t = Instant::now();
    let r = service
        .build(&name, &Budget::unlimited())
        .expect("a Sim table")
        .expect("built");
    println!(
        "{name}: {} {} positions, {:.1} MB, {:.2} s (wall {:.2} s), peak RSS {}",
        r.source,
        r.entries,
        r.bytes as f64 / 1e6,
        r.time_ms / 1e3,
        t.elapsed().as_secs_f64(),
        endgame_core::memory::peak_rss_bytes()
            .map_or("unknown".into(), |b| format!("{:.0} MB", b as f64 / 1e6))
    );

    // A fresh service: the first analysis loads the file.
    let fresh = Service::new(Some(dir));
    let t = Instant::now();
    assert!(fresh.table(&sim).is_some(), "the table loads");
    println!("load: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);

    // Every position along random games, the finished ones left out.
    let positions = random_game_positions(&sim, 7, 60);
    let mut times = Vec::new();
    let mut undecided = 0;
    for p in positions
        .iter()
        .filter(|p| sim.outcome(p).is_none())
        .take(200)
    {
        let t = Instant::now();
        let a = fresh.analyze(&sim, p, &Budget::time(endgame_sim::api::DEFAULT_TIME));
        times.push(t.elapsed().as_secs_f64() * 1e3);
        undecided += a.undecided();
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| times[((times.len() - 1) as f64 * f).round() as usize];
    println!(
        "hints from the table: {} positions, median {:.3} ms, p95 {:.3} ms, max {:.3} ms, {} undecided moves",
        times.len(),
        q(0.5),
        q(0.95),
        q(1.0),
        undecided
    );
}
