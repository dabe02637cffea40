//! The full count of the French central-vacancy problem: every reachable
//! position layer by layer, the best result and all its final positions.
//!
//! Run: `cargo run --release -p endgame-peg --example french_count [max_gib] [hashed] [direct=BYTES]`
//! (the memory budget defaults to 3.5 GiB; `hashed`: no ranked bitmap;
//! `direct=BYTES`: bitmaps above this size are filled segment by segment).

use endgame_core::layered::{enumerate, LayeredOptions, Progress};
use endgame_core::{Notation, Puzzle, Rules};
use endgame_peg::api::{build, AnyProblem, Spec};
use std::time::Instant;

/// Prints each layer as it starts.
struct Log(Instant);

impl Progress for Log {
    fn phase(&self, name: &str, total: u64) {
        eprintln!("{:>8.2?}  {name}: {total} parents", self.0.elapsed());
    }
    fn advance(&self, _: u64) {}
}

fn main() {
    let gib: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3.5);
    let AnyProblem::Small(p) = build(&Spec::named("french")).expect("built-in board") else {
        unreachable!("the French board fits 64 bits");
    };
    let t = Instant::now();
    let opts = LayeredOptions {
        max_bytes: (gib * (1u64 << 30) as f64) as usize,
        dense_min_children: if std::env::args().any(|a| a == "hashed") {
            usize::MAX
        } else {
            LayeredOptions::default().dense_min_children
        },
        dense_direct_bytes: std::env::args()
            .find_map(|a| a.strip_prefix("direct=")?.parse().ok())
            .unwrap_or(LayeredOptions::default().dense_direct_bytes),
        ..LayeredOptions::default()
    };
    let r = enumerate(&p, &opts, &Log(t)).expect("within the memory budget");
    let elapsed = t.elapsed();
    let pegs = p.start().count_ones();
    println!("pegs  positions  up-to-symmetry");
    for l in &r.layers {
        println!(
            "{:>4}  {:>10}  {:>14}",
            pegs - l.depth as u32,
            l.raw,
            l.reduced
        );
    }
    let raw: u64 = r.layers.iter().map(|l| l.raw).sum();
    let reduced: u64 = r.layers.iter().map(|l| l.reduced).sum();
    println!("total {raw} positions, {reduced} up to symmetry");
    println!(
        "goal reachable: {}; solutions: {:?}",
        r.goal_reachable, r.solutions
    );
    println!(
        "best result: {} pegs, {} final positions up to symmetry",
        r.best_score, r.best_count
    );
    for q in &r.best_positions {
        println!("{}\n", p.format_position(q));
    }
    debug_assert_eq!(r.best_score, p.score(&r.best_positions[0]));
    println!(
        "time {:.2} s, stored layers {} MB, peak memory {} MB, peak bitmap {:.1} MiB",
        elapsed.as_secs_f64(),
        r.table_bytes >> 20,
        r.peak_rss.unwrap_or(0) >> 20,
        r.bitmap_bytes as f64 / (1 << 20) as f64
    );
}
