//! Sim benchmarks: strong and weak solves, a perfect move from a solved
//! table, and the exact canonical form.
//!
//! `cargo bench -p endgame-sim --bench sim`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use endgame_core::conformance::random_game_positions;
use endgame_core::strong::Keyed;
use endgame_core::Rules;
use endgame_sim::solve::{self, KeyKind, Table};
use endgame_sim::Sim;

fn solves(c: &mut Criterion) {
    let k6 = Sim::k6();
    c.bench_function("strong solve K6", |b| {
        b.iter(|| solve::strong(black_box(&k6)))
    });
    c.bench_function("weak solve K6 (exact key)", |b| {
        b.iter(|| solve::weak(&k6, &k6.start(), KeyKind::Exact))
    });
    c.bench_function("weak solve K6 (degree-sorted key)", |b| {
        b.iter(|| solve::weak(&k6, &k6.start(), KeyKind::DegreeSorted))
    });
    let mis = Sim::new(6, true).unwrap();
    c.bench_function("strong solve K6 misère", |b| {
        b.iter(|| solve::strong(&mis))
    });
    let mut g = c.benchmark_group("K7");
    g.sample_size(10);
    let k7 = Sim::new(7, false).unwrap();
    g.bench_function("strong solve K7", |b| b.iter(|| solve::strong(&k7)));
    g.bench_function("weak solve K7", |b| {
        b.iter(|| solve::weak(&k7, &k7.start(), KeyKind::Exact))
    });
    g.finish();
}

fn perfect_moves(c: &mut Criterion) {
    for n in [6, 7] {
        let sim = Sim::new(n, false).unwrap();
        let mut table: Table = solve::strong(&sim).table;
        let positions: Vec<_> = random_game_positions(&sim, 1, 50)
            .into_iter()
            .filter(|p| !sim.moves(p).is_empty())
            .collect();
        let mut i = 0;
        c.bench_function(&format!("perfect move K{n} (solved table)"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                solve::best_move(&sim, &mut table, &positions[i])
            })
        });
    }
    // Without a table: the player solves what is below the position.
    let sim = Sim::k6();
    let positions: Vec<_> = random_game_positions(&sim, 2, 50)
        .into_iter()
        .filter(|p| !sim.moves(p).is_empty())
        .collect();
    let mut i = 0;
    c.bench_function("perfect move K6 (empty table)", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            let mut table = Table::default();
            solve::best_move(&sim, &mut table, &positions[i])
        })
    });
}

fn canonical(c: &mut Criterion) {
    for n in [6, 7, 8] {
        let sim = Sim::new(n, false).unwrap();
        let positions = random_game_positions(&sim, 3, 100);
        let mut i = 0;
        c.bench_function(&format!("canonical form K{n}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                sim.canonical_key(&positions[i])
            })
        });
    }
}

criterion_group!(benches, solves, perfect_moves, canonical);
criterion_main!(benches);
