//! Exact solving of 18- and 20-stone positions from seeded random games:
//! `cargo bench -p endgame-pentago --bench solve`.
//!
//! Each iteration solves one fixed set of positions from scratch (a fresh
//! 16 MiB table per position).

use criterion::{criterion_group, criterion_main, Criterion};
use endgame_core::conformance::random_game_positions;
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use std::time::Duration;

/// `count` undecided positions with `stones` stones, placement due.
fn positions(stones: u32, count: usize) -> Vec<Position> {
    random_game_positions(&Pentago, 2026, 400)
        .into_iter()
        .filter(|p| p.stones() == stones && p.outcome().is_none() && !p.must_rotate())
        .take(count)
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for stones in [22, 20, 18] {
        let ps = positions(stones, 10);
        g.bench_function(format!("{stones} stones, {} positions", ps.len()), |b| {
            b.iter(|| {
                for p in &ps {
                    let mut s = Solver::new(20);
                    std::hint::black_box(s.value(p, Budget::UNLIMITED));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
