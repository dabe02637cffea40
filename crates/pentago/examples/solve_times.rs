//! Solves each position read from stdin (one per line) and prints its
//! value, nodes and time, then the median and maximum time:
//! `cargo run --release -p endgame-pentago --example positions -- 18 20 | cargo run --release -p endgame-pentago --example solve_times`.

use endgame_pentago::notation::parse_position;
use endgame_pentago::solve::{Budget, Solver};
use std::io::BufRead;
use std::time::Instant;

fn main() {
    // An optional time budget per position in seconds (first argument).
    let limit = std::env::args()
        .nth(1)
        .and_then(|s| s.parse::<f64>().ok())
        .map(std::time::Duration::from_secs_f64);
    let mut times = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("reading stdin");
        let Ok(p) = parse_position(&line) else {
            continue;
        };
        let mut solver = Solver::new(
            std::env::var("BITS")
                .ok()
                .and_then(|b| b.parse().ok())
                .unwrap_or(22),
        );
        let t = Instant::now();
        let v = solver.value(
            &p,
            Budget {
                nodes: None,
                time: limit,
            },
        );
        let s = t.elapsed().as_secs_f64();
        println!("{line:>22} {v:>5} {:>12} nodes {s:>9.3} s", solver.nodes());
        times.push(s);
    }
    times.sort_by(f64::total_cmp);
    if let (Some(max), false) = (times.last(), times.is_empty()) {
        println!(
            "{} positions: median {:.3} s, max {max:.3} s",
            times.len(),
            times[times.len() / 2]
        );
    }
}
