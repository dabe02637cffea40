//! Martello speed: `cargo bench -p endgame-martello --bench martello`.
//!
//! - `games/*`: 40 random 6×6 boards solved exactly, throughput in games.
//! - `states/*`: the same, throughput in expanded states (and in generated
//!   child states).
//! - `children`: operation generation alone on states from random play,
//!   building every child (`for_each_child`) or lazily (`lazy_children4`:
//!   keys and prune flags only).
//! - `games/plain_built`: `games/plain` building every child state
//!   (`solver::solve_built`), for the lazy expansion's gain.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use endgame_core::conformance::random_positions;
use endgame_core::restarts::Schedule;
use endgame_martello::solver::{self, SolveOptions, SymmetryMode};
use endgame_martello::{Board, Martello, State};

const GAMES: u64 = 40;

fn games() -> Vec<Martello> {
    (0..GAMES)
        .map(|g| Martello::new(6, State::from_board(&Board::random(6, g).unwrap())).unwrap())
        .collect()
}

fn opts(schedule: Schedule, symmetry: SymmetryMode) -> SolveOptions {
    SolveOptions {
        schedule,
        symmetry,
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let gs = games();
    let variants = [
        ("plain", opts(Schedule::plain(), SymmetryMode::None)),
        (
            "reference_schedule",
            opts(Schedule::reference(), SymmetryMode::None),
        ),
        (
            "plain_mirror",
            opts(Schedule::plain(), SymmetryMode::Mirror),
        ),
    ];
    let mut g = c.benchmark_group("games");
    g.sample_size(10);
    g.throughput(Throughput::Elements(GAMES));
    for (name, o) in &variants {
        g.bench_function(*name, |b| {
            b.iter(|| {
                gs.iter()
                    .map(|m| solver::solve(m, o).min_stones)
                    .sum::<u32>()
            })
        });
    }
    // The same plain search building every child (no lazy expansion), in
    // the same run as `plain`: the ratio of the two is the lazy gain.
    g.bench_function("plain_built", |b| {
        b.iter(|| {
            gs.iter()
                .map(|m| solver::solve_built(m, &variants[0].1).min_stones)
                .sum::<u32>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("states");
    g.sample_size(10);
    for (name, o) in &variants[..2] {
        let (expanded, generated) = gs.iter().fold((0, 0), |(e, k), m| {
            let s = solver::solve(m, o);
            (e + s.explored, k + s.generated)
        });
        g.throughput(Throughput::Elements(expanded));
        g.bench_function(format!("{name}_expanded"), |b| {
            b.iter(|| gs.iter().map(|m| solver::solve(m, o).explored).sum::<u64>())
        });
        g.throughput(Throughput::Elements(generated));
        g.bench_function(format!("{name}_generated"), |b| {
            b.iter(|| gs.iter().map(|m| solver::solve(m, o).explored).sum::<u64>())
        });
    }
    g.finish();

    let m = &gs[0];
    let positions = random_positions(m, 1, 200);
    let total: usize = positions.iter().map(|p| m.children(p).len()).sum();
    let mut g = c.benchmark_group("children");
    g.throughput(Throughput::Elements(total as u64));
    g.bench_function("for_each_child", |b| {
        b.iter(|| {
            let mut k = 0u64;
            for p in &positions {
                m.for_each_child(p, |_, c| k = k.wrapping_add(c.rows[0]));
            }
            black_box(k)
        })
    });
    g.bench_function("lazy_children4", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut k = 0u64;
            for p in &positions {
                out.clear();
                m.lazy_children4(p, &mut out, false);
                for c in &out {
                    k = k.wrapping_add(c.key[0]);
                }
            }
            black_box(k)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
