//! The best-result set of a single-vacancy problem (`GoalSet::build_best`)
//! with its phases logged: the time and resident memory as each layer,
//! the meeting and the goal-reaching steps begin, then the positions per
//! layer, the packed size, the build time and the peak memory.
//!
//! `cargo run --release -p endgame-peg --example best_set [-- BOARD HOLE [MAX_GIB]]`
//!
//! Defaults: the French board, vacancy d4, the service's memory budget
//! of 5 GiB for the stored layers and buffers.

use endgame_core::budget::Budget;
use endgame_core::layered::Progress;
use endgame_core::memory::peak_rss_bytes;
use endgame_peg::api::{build, AnyProblem, Spec};
use endgame_peg::goalset::GoalSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Resident memory now, in MB (Linux).
fn resident_mb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| (pages * 4096) >> 20)
}

/// Prints each phase as it begins, and each goal-reaching step.
struct Log {
    t: Instant,
    steps: AtomicBool,
}

impl Progress for Log {
    fn phase(&self, name: &str, total: u64) {
        self.steps
            .store(name.starts_with("goal-reaching"), Ordering::Relaxed);
        eprintln!(
            "{:>8.2?} {:>6} MB  {name}: {total}",
            self.t.elapsed(),
            resident_mb()
        );
    }
    fn advance(&self, _: u64) {
        if self.steps.load(Ordering::Relaxed) {
            eprintln!("{:>8.2?} {:>6} MB    step", self.t.elapsed(), resident_mb());
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let board = args.next().unwrap_or_else(|| "french".into());
    let hole = args.next().unwrap_or_else(|| "d4".into());
    let gib: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5.0);
    let spec = Spec {
        vacate: Some(vec![hole.clone()]),
        ..Spec::named(&board)
    };
    let AnyProblem::Small(p) = build(&spec).expect("a problem") else {
        panic!("boards of more than 64 grid bits are not supported here");
    };
    let budget = Budget::unlimited().with_memory((gib * (1u64 << 30) as f64) as usize);
    let t = Instant::now();
    let log = Log {
        t,
        steps: AtomicBool::new(false),
    };
    let set = GoalSet::build_best_with(&p, &budget, &log).expect("built");
    println!(
        "{board} {hole}: best result {} pegs, {} positions up to symmetry, {:.1} MB packed, \
         {:.2} s, peak memory {} MB",
        set.target(),
        set.entries(),
        set.bytes() as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        peak_rss_bytes().unwrap_or(0) >> 20
    );
    println!("positions per layer: {:?}", set.layer_sizes());
}
