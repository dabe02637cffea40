//! The tail of the study's solver: solves games `0..GAMES` of size N and
//! study seed SEED exactly as `endgame study martello` does (same boards,
//! same solver, same restart seeds) and prints the distribution of
//! expanded states and of time per game (median, p99, max) and the
//! slowest games (index, board seed, board, minimum, expansions, time,
//! memo):
//!
//! `cargo run --profile release -p endgame-martello --example tail -- N GAMES SEED [THREADS] [SHOW]`
//!
//! With `MEMO_MB` set, each game's memo budget in MiB (default: the
//! study's 1 GiB); with `SKIP=I,J,…`, those games are left out (each
//! other game is solved as in the full run); with `GAME_S=S`, each game
//! stops after S seconds of wall time and is reported undecided (its
//! fewest stones seen, its expansions until then; the distributions
//! count it at that).
use endgame_core::layered::Silent;
use endgame_martello::study::{self, game_seed, Distribution, StudyOptions};
use endgame_martello::Board;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| args.get(i).map(|s| s.parse().unwrap()).unwrap_or(d);
    let (n, games, seed, threads, show) = (
        arg(1, 6) as usize,
        arg(2, 2000),
        arg(3, 1),
        arg(4, 2),
        arg(5, 8) as usize,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads as usize)
        .build()
        .unwrap();
    let mut opts = StudyOptions::new(n, games, seed);
    if let Ok(mb) = std::env::var("MEMO_MB") {
        opts.max_memo_bytes = mb.parse::<usize>().unwrap() << 20;
    }
    if let Ok(secs) = std::env::var("GAME_S") {
        opts.game_seconds = Some(secs.parse().unwrap());
    }
    let t = std::time::Instant::now();
    let skip: Vec<u64> = std::env::var("SKIP").map_or(Vec::new(), |s| {
        s.split(',').map(|i| i.trim().parse().unwrap()).collect()
    });
    let indices: Vec<u64> = (0..games).filter(|i| !skip.contains(i)).collect();
    let rs = pool
        .install(|| study::solve_indices(n, &indices, seed, &opts, &Silent))
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let solvable = rs.iter().filter(|r| r.min_stones == 1).count();
    let mins: u64 = rs.iter().map(|r| u64::from(r.min_stones)).sum();
    let total: u64 = rs.iter().map(|r| r.explored).sum();
    let e = Distribution::of(rs.iter().map(|r| r.explored).collect());
    // Times in microseconds for the distribution.
    let us = Distribution::of(rs.iter().map(|r| (r.seconds * 1e6) as u64).collect());
    let memo = rs.iter().map(|r| r.memo_bytes).max().unwrap_or(0);
    println!(
        "n {n} games {} (skipped {skip:?}) seed {seed} threads {threads}: solvable {solvable} (sum of minima {mins}), \
         {secs:.2} s, {:.1} games/s, {:.2} M expanded states/s, largest memo {:.1} MiB",
        rs.len(),
        rs.len() as f64 / secs,
        total as f64 / secs / 1e6,
        memo as f64 / (1 << 20) as f64
    );
    println!(
        "explored  mean {:.0}  median {}  p99 {}  p99.9 {}  max {}",
        e.mean, e.median, e.p99, e.p999, e.max
    );
    println!(
        "time ms   mean {:.3}  median {:.3}  p99 {:.3}  p99.9 {:.3}  max {:.3}",
        us.mean / 1e3,
        us.median as f64 / 1e3,
        us.p99 as f64 / 1e3,
        us.p999 as f64 / 1e3,
        us.max as f64 / 1e3
    );
    // Where the CPU goes: the games past the first stage's expansion
    // limit (`solver::STAGES`) and past the 0.2 s.
    let busy: f64 = rs.iter().map(|r| r.seconds).sum();
    let past = |f: &dyn Fn(&study::GameResult) -> bool| {
        let v: Vec<_> = rs.iter().filter(|r| f(r)).collect();
        // `+ 0.0`: an empty sum of floats is -0.0, printed "-0.00".
        (v.len(), v.iter().map(|r| r.seconds).sum::<f64>() + 0.0)
    };
    let stage = endgame_martello::solver::STAGES[0].ops.unwrap_or(u64::MAX);
    for (what, (k, s)) in [
        (format!("explored > {stage}"), past(&|r| r.explored > stage)),
        ("time > 0.2 s".to_string(), past(&|r| r.seconds > 0.2)),
    ] {
        println!(
            "games with {what}: {k}, {s:.2} s of the games' {busy:.2} s ({:.1} %)",
            100.0 * s / busy.max(1e-9)
        );
    }
    // The games past the first stage by kind (the ninth session's three):
    // hard solvable, unsolvable with a small minimum, stuck.
    for (what, lo, hi) in [
        ("solvable", 1, 1),
        ("minimum 2-4", 2, 4),
        ("minimum >= 5", 5, u32::MAX),
    ] {
        let v: Vec<_> = rs
            .iter()
            .filter(|r| r.explored > stage && (lo..=hi).contains(&r.min_stones))
            .collect();
        println!(
            "  past {stage}, {what}: {} games, {} expansions, {:.2} s",
            v.len(),
            v.iter().map(|r| r.explored).sum::<u64>(),
            v.iter().map(|r| r.seconds).sum::<f64>()
        );
    }
    let undecided: Vec<_> = rs.iter().filter(|r| !r.decided).collect();
    println!(
        "undecided (GAME_S): {} games {:?}",
        undecided.len(),
        undecided
            .iter()
            .map(|r| (r.index, r.min_stones, r.explored))
            .collect::<Vec<_>>()
    );
    let mut slow: Vec<_> = rs.iter().collect();
    slow.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    println!(
        "slowest games (index, board seed, min stones (bound if undecided), explored, ms, memo MiB, board):"
    );
    for r in slow.iter().take(show) {
        let bs = game_seed(seed, n, r.index);
        let board = Board::random(n, bs).unwrap();
        println!(
            "  {:>6} {:>20} {:>3} {:>10} {:>9.1} {:>7.1}  {}",
            r.index,
            bs,
            r.min_stones,
            r.explored,
            r.seconds * 1e3,
            r.memo_bytes as f64 / (1 << 20) as f64,
            board.to_board_string()
        );
    }
}
