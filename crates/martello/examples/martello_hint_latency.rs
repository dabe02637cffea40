//! Hint latency through the analysis service (`endgame_martello::api`)
//! with its default budget, and the share of decided operations.
//!
//! `cargo run --release -p endgame-martello --example martello_hint_latency [-- NMAX SEEDS]`
//!
//! For every n = 1 … NMAX (default 6) and seeds 1 ..= SEEDS (default
//! 100): the random start, and the position 10 operations into the game
//! along the start's best line (fewer when the line is shorter). Each
//! position is analysed twice: *cold* (a fresh service, nothing kept:
//! the worst case, one request of a fresh server) and *warm* (one service
//! for the whole set, as the web keeps it: a game's next hint finds most
//! of its states in the memo). Prints p50/p95/max wall time, the most
//! expansions one hint used, and the undecided operations (the target is
//! zero).

use endgame_core::budget::Budget;
use endgame_core::stats::quantile;
use endgame_core::Rules;
use endgame_martello::api::{self, Service};
use std::time::Instant;

fn budget() -> Budget {
    Budget::time(api::DEFAULT_TIME).with_nodes(api::DEFAULT_NODES)
}

#[derive(Default)]
struct Set {
    times: Vec<f64>,
    /// (ms, seed, what was spent) of every hint, for `SHOW`.
    each: Vec<(f64, u64, api::Spent, usize)>,
    max_expansions: u64,
    max_memo_mib: f64,
    undecided: usize,
    moves: usize,
}

impl Set {
    fn add(&mut self, a: &api::MartelloAnalysis, spent: api::Spent, ms: f64, seed: u64) {
        self.times.push(ms);
        self.each.push((ms, seed, spent, a.moves.len()));
        self.max_expansions = self.max_expansions.max(spent.expansions());
        self.max_memo_mib = self
            .max_memo_mib
            .max(spent.memo_bytes as f64 / (1 << 20) as f64);
        self.undecided += a.undecided();
        self.moves += a.moves.len();
    }

    fn print(&mut self, what: &str) {
        self.times.sort_by(f64::total_cmp);
        let t = &self.times;
        println!(
            "{what:<22} {:>4} {:>9.2} {:>9.2} {:>9.2} {:>12} {:>8.1} {:>6}/{}",
            t.len(),
            quantile(t, 0.5),
            quantile(t, 0.95),
            t.last().copied().unwrap_or(0.0),
            self.max_expansions,
            self.max_memo_mib,
            self.undecided,
            self.moves
        );
        // `SHOW=k`: the k slowest hints, with what each search expanded.
        let total: u64 = self.each.iter().map(|e| e.2.expansions()).sum();
        println!("    expansions in all {total}");
        let show: usize = std::env::var("SHOW")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        self.each.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (ms, seed, sp, moves) in self.each.iter().take(show) {
            println!(
                "    seed {seed:>4} {ms:>8.2} ms  goal {:>8} best {:>8} line {:>8} moves {moves}",
                sp.goal_expansions, sp.best_expansions, sp.line_expansions
            );
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let nmax: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(6);
    let seeds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    println!(
        "default budget: {} ms, {} nodes; seeds 1..={seeds}",
        api::DEFAULT_TIME.as_millis(),
        api::DEFAULT_NODES
    );
    println!(
        "{:<22} {:>4} {:>9} {:>9} {:>9} {:>12} {:>8} {:>6}",
        "set", "runs", "p50 ms", "p95 ms", "max ms", "max expans.", "memo MiB", "undecided/moves"
    );
    // `NMIN=k`: start at n = k.
    let nmin: usize = std::env::var("NMIN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for n in nmin..=nmax {
        let warm = Service::new();
        let (mut start_cold, mut start_warm) = (Set::default(), Set::default());
        let (mut mid_cold, mut mid_warm) = (Set::default(), Set::default());
        for seed in 1..=seeds {
            let (m, s) = api::random(n, seed).expect("a board");
            let run = |svc: &Service, pos, set: &mut Set| {
                let t = Instant::now();
                let (a, spent) = svc.analyze_counted(&m, pos, &budget());
                set.add(&a, spent, t.elapsed().as_secs_f64() * 1e3, seed);
                a
            };
            let a = run(&Service::with_keep_bytes(0), &s, &mut start_cold);
            run(&warm, &s, &mut start_warm);
            // 10 operations along the best line.
            let mid = a.line.iter().take(10).fold(s, |p, op| {
                m.play_unchecked(&p, m.parse_op(op).expect("an operation"))
            });
            run(&Service::with_keep_bytes(0), &mid, &mut mid_cold);
            run(&warm, &mid, &mut mid_warm);
        }
        start_cold.print(&format!("n={n} start, cold"));
        start_warm.print(&format!("n={n} start, warm"));
        mid_cold.print(&format!("n={n} 10 in, cold"));
        mid_warm.print(&format!("n={n} 10 in, warm"));
    }
}
