//! Criterion benchmarks of the English central game (`cargo bench -p
//! endgame-peg --bench peg`): the first solution by depth-first search, the
//! goal-reaching positions, the number of solutions, and the full count of
//! every reachable position. The French full count is an example
//! (`cargo run --release -p endgame-peg --example french_count`), too slow
//! for a benchmark loop.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use endgame_core::dfs::{self, DfsOptions};
use endgame_core::layered::{enumerate, LayeredOptions, Silent};
use endgame_core::Rules;
use endgame_peg::api::{build, AnyProblem, Spec};
use endgame_peg::PegSolitaire;
use std::time::Duration;

fn english() -> PegSolitaire<u64> {
    match build(&Spec::named("english")).expect("built-in board") {
        AnyProblem::Small(p) => p,
        AnyProblem::Large(_) => unreachable!("the English board fits 64 bits"),
    }
}

fn dfs_first_solution(c: &mut Criterion) {
    let p = english();
    c.bench_function("english dfs first solution", |b| {
        b.iter(|| {
            let r = dfs::solve(&p, &p.start(), &DfsOptions::default());
            assert!(r.reached_goal);
            black_box(r.expansions)
        })
    });
}

/// The goal-only enumeration: goal-reaching positions and solutions,
/// pruned as `endgame count peg --goal-only` prunes.
fn goal_only() -> LayeredOptions {
    LayeredOptions {
        count_all: false,
        prune: true,
        ..LayeredOptions::default()
    }
}

fn layered(c: &mut Criterion) {
    let p = english();
    let mut g = c.benchmark_group("english layered");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("goal set", |b| {
        let opts = LayeredOptions {
            count_solutions: false,
            ..goal_only()
        };
        b.iter(|| {
            let r = enumerate(&p, &opts, &Silent).expect("fits");
            let good: u64 = r.layers.iter().map(|l| l.to_goal_reduced).sum();
            assert_eq!(good, 1_679_072);
            black_box(good)
        })
    });
    g.bench_function("solution count", |b| {
        b.iter(|| {
            let r = enumerate(&p, &goal_only(), &Silent).expect("fits");
            assert_eq!(r.solutions, Some(40_861_647_040_079_968));
            black_box(r.solutions)
        })
    });
    g.bench_function("full count", |b| {
        b.iter(|| {
            let r = enumerate(&p, &LayeredOptions::default(), &Silent).expect("fits");
            let reduced: u64 = r.layers.iter().map(|l| l.reduced).sum();
            assert_eq!(reduced, 23_475_688);
            assert_eq!(r.solutions, Some(40_861_647_040_079_968));
            black_box(reduced)
        })
    });
    g.finish();
}

criterion_group!(benches, dfs_first_solution, layered);
criterion_main!(benches);
