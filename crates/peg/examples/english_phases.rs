//! Timing of the English goal-only enumeration phase by phase.
//!
//! Run: `cargo run --release -p endgame-peg --example english_phases [prune] [nocount] [all] [hashed] [direct=BYTES]`
//! (`hashed`: no ranked bitmap, every layer hashed; `direct=BYTES`: bitmaps
//! above this size are filled segment by segment).

use endgame_core::layered::{enumerate, LayeredOptions, Progress};
use endgame_peg::api::{build, AnyProblem, Spec};
use std::time::Instant;

/// Prints each phase as it starts.
struct Log(Instant);

impl Progress for Log {
    fn phase(&self, name: &str, total: u64) {
        eprintln!(
            "{:>8.2?}  {name}: {total}  (peak {})",
            self.0.elapsed(),
            peak()
        );
    }
    fn advance(&self, n: u64) {
        if std::env::var_os("PHASES_STEPS").is_some() {
            eprintln!("{:>8.2?}    +{n}  (peak {})", self.0.elapsed(), peak());
        }
    }
}

/// The peak resident memory so far (Linux), to place the peak.
fn peak() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_string()))
        })
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let prune = args.iter().any(|a| a == "prune");
    let count_solutions = !args.iter().any(|a| a == "nocount");
    let count_all = args.iter().any(|a| a == "all");
    let hashed = args.iter().any(|a| a == "hashed");
    // `direct=BYTES`: bitmaps above this many bytes are filled by segments.
    let direct = args
        .iter()
        .find_map(|a| a.strip_prefix("direct=")?.parse().ok())
        .unwrap_or(LayeredOptions::default().dense_direct_bytes);
    let AnyProblem::Small(p) = build(&Spec::named("english")).expect("built-in board") else {
        unreachable!("the English board fits 64 bits");
    };
    // As `endgame count peg --goal-only` does.
    if !count_all {
        endgame_core::memory::fix_allocation_threshold();
    }
    let t = Instant::now();
    let opts = LayeredOptions {
        count_all,
        prune,
        count_solutions,
        dense_min_children: if hashed {
            usize::MAX
        } else {
            LayeredOptions::default().dense_min_children
        },
        dense_direct_bytes: direct,
        // As `endgame count peg`: no counts by first move.
        first_moves: false,
        ..LayeredOptions::default()
    };
    let r = enumerate(&p, &opts, &Log(t)).expect("fits");
    for l in &r.layers {
        eprintln!("{:>3} {:>9} {:>9}", l.depth, l.reduced, l.to_goal_reduced);
    }
    let good: u64 = r.layers.iter().map(|l| l.to_goal_reduced).sum();
    let visited: u64 = r.layers.iter().map(|l| l.reduced).sum();
    eprintln!(
        "{:>8.2?}  done: {good} goal-reaching, {visited} visited, {:?} solutions, {} MB table, {:.1} MiB peak bitmap",
        t.elapsed(),
        r.solutions,
        r.table_bytes >> 20,
        r.bitmap_bytes as f64 / (1 << 20) as f64
    );
}
