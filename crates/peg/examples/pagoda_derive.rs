//! Pagoda functions that together rule out much of the English central
//! game's middle layer, and what they leave of each forward layer.
//!
//! Run: `cargo run --release -p endgame-peg --example pagoda_derive [ROUNDS] [TRIES]`
//! (defaults 12 and 20; a few seconds). Builds the forward layers to the
//! middle (depth 15) up to symmetry, finds the middle's goal-reaching
//! members by the meeting (x reaches the goal when the complement of x
//! has a parent in the layer), samples every 100th member of the middle
//! and picks pagodas with `endgame_peg::pagoda::separating`. Prints each
//! function's weights and, per depth, the layer's size, what the
//! puzzle's own test keeps (its pagodas, the shipped
//! `ENGLISH_CENTRAL` ones among them) and what the new ones alone keep.
use endgame_core::{Puzzle, Reversible, Rules, Symmetric};
use endgame_peg::api::{build, AnyProblem, Spec};
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(12);
    let tries: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let AnyProblem::Small(p) = build(&Spec::named("english")).expect("built-in board") else {
        unreachable!("the English board fits 64 bits");
    };
    let board = p.board().clone();
    let goal = board.hole_at(3, 3).expect("d4");
    let mut layers: Vec<Vec<u64>> = vec![vec![p.canonical(&p.start())]];
    for d in 0..15 {
        let mut next: Vec<u64> = layers[d]
            .par_iter()
            .flat_map_iter(|x| {
                let mut v = Vec::new();
                p.for_each_move(x, |m| v.push(p.canonical(&p.play_unchecked(x, m))));
                v
            })
            .collect();
        next.par_sort_unstable();
        next.dedup();
        layers.push(next);
    }
    let mid = &layers[15];
    let good: Vec<bool> = mid
        .par_iter()
        .map(|x| {
            let s = p.reversal(x).expect("the central game has a time reversal");
            let mut hit = false;
            p.for_each_parent(&s, |y| {
                hit |= mid.binary_search(&p.canonical(&y)).is_ok();
            });
            hit
        })
        .collect();
    let (mut sample, mut keep) = (Vec::new(), Vec::new());
    for (i, x) in mid.iter().enumerate().step_by(100) {
        if good[i] {
            keep.push(p.pegs(*x));
        } else {
            sample.push(p.pegs(*x));
        }
    }
    eprintln!(
        "middle {} ({} reach the goal); sample {} + {} that reach it",
        mid.len(),
        good.iter().filter(|&&g| g).count(),
        sample.len(),
        keep.len()
    );
    let t = Instant::now();
    let found = endgame_peg::pagoda::separating(&board, goal, &sample, &keep, rounds, tries);
    eprintln!("{} functions in {:.1?}", found.len(), t.elapsed());
    for pg in &found {
        println!("{:?}", pg.weights);
    }
    println!("depth  layer  puzzle-keeps  new-keep");
    for (d, l) in layers.iter().enumerate() {
        let own = l.par_iter().filter(|x| !p.cannot_reach_goal(x)).count();
        let new = l
            .par_iter()
            .filter(|x| {
                let pegs = p.pegs(**x);
                found
                    .iter()
                    .all(|pg| pegs.iter().map(|&h| pg.weights[h]).sum::<i64>() >= pg.weights[goal])
            })
            .count();
        println!("{d:>5} {:>8} {own:>8} {new:>8}", l.len());
    }
}
