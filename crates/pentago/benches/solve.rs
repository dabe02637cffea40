//! Exact solving of 18-, 20- and 22-stone positions from seeded random
//! games: `cargo bench -p endgame-pentago --bench solve [-- FILTER]`.
//!
//! - `solve/alpha-beta …`: the value by the alpha-beta alone (a fresh
//!   16 MiB table per position), as before the retrograde solver existed;
//! - `solve/auto …`: the value by `Solver::value` (alpha-beta first, then
//!   the retrograde solver when that has not finished within its share);
//! - `retrograde/…`: value and every child by the retrograde solver alone
//!   (its cost does not depend on the position, so few positions suffice).

use criterion::{criterion_group, criterion_main, Criterion};
use endgame_core::conformance::random_game_positions;
use endgame_pentago::mid;
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use std::hint::black_box;
use std::time::Duration;

/// `count` undecided positions with `stones` stones, placement due.
fn positions(stones: u32, count: usize) -> Vec<Position> {
    random_game_positions(&Pentago, 2026, 400)
        .into_iter()
        .filter(|p| p.stones() == stones && p.outcome().is_none() && !p.must_rotate())
        .take(count)
        .collect()
}

fn bench_solve(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for stones in [22, 20, 18] {
        let ps = positions(stones, 10);
        for (name, retrograde) in [("alpha-beta", false), ("auto", true)] {
            g.bench_function(
                format!("{name} {stones} stones, {} positions", ps.len()),
                |b| {
                    b.iter(|| {
                        for p in &ps {
                            let mut s = Solver::new(20);
                            s.set_retrograde(retrograde);
                            black_box(s.value(p, Budget::UNLIMITED));
                        }
                    })
                },
            );
        }
    }
    g.finish();
}

fn bench_retrograde(c: &mut Criterion) {
    let mut g = c.benchmark_group("retrograde");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (stones, count) in [(22, 10), (20, 1), (18, 1)] {
        let ps = positions(stones, count);
        g.bench_function(
            format!("value and children {stones} stones, {} positions", ps.len()),
            |b| {
                b.iter(|| {
                    for p in &ps {
                        black_box(mid::value_and_children(p, None).expect("late enough"));
                    }
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench_retrograde, bench_solve);
criterion_main!(benches);
