//! Times the counts of `endgame_peg::counts` on a built-in board's
//! classic problem, phase by phase:
//! `cargo run --release -p endgame-peg --example peg_counts -- [BOARD]
//! [random|paths|sets|all]` (default: english all).

use endgame_core::layered::Silent;
use endgame_peg::api::{self, AnyProblem, Spec};
use endgame_peg::counts;
use endgame_peg::{Bits, PegSolitaire};
use std::time::Instant;

fn run<B: Bits>(p: &PegSolitaire<B>, what: &str) {
    let t0 = Instant::now();
    let layers = counts::goal_reaching_layers(p, 8 << 30, &Silent).expect("layers");
    let n: usize = layers.iter().map(Vec::len).sum();
    println!(
        "goal-reaching layers: {n} positions up to symmetry, {:.3} s",
        t0.elapsed().as_secs_f64()
    );
    if matches!(what, "random" | "paths" | "all") {
        let t = Instant::now();
        let paths = what != "random";
        let (prob, n) =
            counts::backward_counts(p, &layers, paths, 8 << 30, &Silent).expect("counts");
        println!(
            "random success {} = {:e}; canonical paths {n:?}; {:.3} s",
            prob.exact,
            prob.float,
            t.elapsed().as_secs_f64()
        );
    }
    if matches!(what, "sets" | "all") {
        let t = Instant::now();
        let (raw, reduced) = counts::move_sets(p, &layers, 8 << 30, &Silent).expect("sets");
        println!(
            "move sets {raw} ({reduced} up to symmetry); {:.3} s",
            t.elapsed().as_secs_f64()
        );
    }
    println!("total {:.3} s", t0.elapsed().as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let board = args.first().cloned().unwrap_or_else(|| "english".into());
    let what = args.get(1).cloned().unwrap_or_else(|| "all".into());
    match api::build(&Spec::named(&board)).expect("a built-in board") {
        AnyProblem::Small(p) => run(&p, &what),
        AnyProblem::Large(p) => run(&p, &what),
    }
}
