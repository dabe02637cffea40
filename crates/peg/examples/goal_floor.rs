//! The floor under the English goal-reaching set: how long it takes only
//! to generate and canonicalise what the layered engine must look at (the
//! children of the forward layers to depth 14, and the meeting's
//! candidates, the canonical parents of the complement of each position of
//! depth 15), with nothing stored, de-duplicated or looked up.
//!
//! Run: `cargo run --release -p endgame-peg --example goal_floor` (set
//! `RAYON_NUM_THREADS=1` for one thread). The layers themselves are built
//! first with plain hash sets, which takes a few seconds.

use endgame_core::{Reversible, Rules, Symmetric};
use endgame_peg::api::{build, AnyProblem, Spec};
use endgame_peg::problem::PegSolitaire;
use rayon::prelude::*;
use std::collections::HashSet;
use std::time::Instant;

/// What an item of a layer produces: one per call of the sink.
trait Produce: Sync {
    fn each(&self, x: u64, sink: impl FnMut(u64));
}

/// The children of a position.
struct Children<'a>(&'a PegSolitaire<u64>);

impl Produce for Children<'_> {
    fn each(&self, x: u64, sink: impl FnMut(u64)) {
        self.0.for_each_canonical_child(&x, sink);
    }
}

/// The meeting's candidates: the canonical parents of the complement.
struct Candidates<'a>(&'a PegSolitaire<u64>);

impl Produce for Candidates<'_> {
    fn each(&self, x: u64, mut sink: impl FnMut(u64)) {
        let s = self
            .0
            .reversal(&x)
            .expect("the central game is its own reversal");
        self.0.for_each_canonical_parent_orbit(&s, |y, _| sink(y));
    }
}

/// The number of items produced over `layer`, and their XOR (so that
/// nothing is optimised away).
fn produce(layer: &[u64], what: &impl Produce) -> (usize, u64) {
    layer
        .par_iter()
        .map(|&x| {
            let (mut n, mut acc) = (0usize, 0u64);
            what.each(x, |c| {
                n += 1;
                acc ^= c;
            });
            (n, acc)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 ^ b.1))
}

fn main() {
    let AnyProblem::Small(p) = build(&Spec::named("english")).expect("built-in board") else {
        unreachable!("the English board fits 64 bits");
    };
    let mut layers: Vec<Vec<u64>> = vec![vec![p.canonical(&p.start())]];
    for _ in 0..15 {
        let mut next = HashSet::new();
        for x in layers.last().expect("a layer") {
            p.for_each_canonical_child(x, |c| {
                next.insert(c);
            });
        }
        layers.push(next.into_iter().collect());
    }
    for _ in 0..5 {
        let t = Instant::now();
        let (mut n, mut acc) = (0, 0);
        for layer in &layers[..15] {
            let (k, a) = produce(layer, &Children(&p));
            n += k;
            acc ^= a;
        }
        let forward = t.elapsed();
        let t = Instant::now();
        let (m, b) = produce(&layers[15], &Candidates(&p));
        let meeting = t.elapsed();
        println!(
            "forward children {n} in {forward:.1?}; meeting candidates {m} in {meeting:.1?} ({:x})",
            acc ^ b
        );
    }
}
