//! Games per second of the study's main loop (every game solved exactly
//! with the study's solver), without the CLI:
//! `cargo run --release -p endgame-martello --example games -- N GAMES SEED THREADS`.
use endgame_core::layered::Silent;
use endgame_martello::study::{self, Distribution, StudyOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| args.get(i).map(|s| s.parse().unwrap()).unwrap_or(d);
    let (n, games, seed, threads) = (arg(1, 6) as usize, arg(2, 2000), arg(3, 1), arg(4, 2));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build()
        .unwrap();
    let opts = StudyOptions::new(n, games, seed);
    let t = std::time::Instant::now();
    let rs = pool
        .install(|| study::solve_games(n, games, seed, &opts, &Silent))
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let solvable = rs.iter().filter(|r| r.min_stones == 1).count();
    let total: u64 = rs.iter().map(|r| r.explored).sum();
    let slowest = rs.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let mins: u64 = rs.iter().map(|r| u64::from(r.min_stones)).sum();
    // Speed of small and big games apart (big memos miss the caches).
    for (lo, hi) in [(0, 20_000), (20_000, u64::MAX)] {
        let (e, t, k) = rs
            .iter()
            .filter(|r| (lo..hi).contains(&r.explored))
            .fold((0, 0.0, 0), |(e, t, k), r| {
                (e + r.explored, t + r.seconds, k + 1)
            });
        println!(
            "games with {lo}..{hi} expansions: {k} games, {e} expansions, {t:.2} s, {:.2} M states/s",
            e as f64 / t / 1e6
        );
    }
    let d = Distribution::of(rs.iter().map(|r| r.explored).collect());
    println!(
        "n {n} games {games} seed {seed} threads {threads}: solvable {solvable} (sum of minima {mins}), \
         {secs:.2} s, {:.1} games/s, explored mean {:.0} median {} p99 {} max {}, \
         {:.2} M expanded states/s, slowest game {slowest:.3} s",
        games as f64 / secs,
        d.mean,
        d.median,
        d.p99,
        d.max,
        total as f64 / secs / 1e6
    );
}
