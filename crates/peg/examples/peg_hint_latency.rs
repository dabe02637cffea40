//! Hint latency and the share of decided moves, through the analysis
//! service (`endgame_peg::api::Service`) with its default budget.
//!
//! `cargo run --release -p endgame-peg --example peg_hint_latency [-- N SEED]`
//!
//! 1. Builds the English goal set (`peg-english-d4`) into a scratch cache
//!    directory and reports its time and size.
//! 2. Analyses the English start and N positions 5 random moves in
//!    (seeded), with the table present: p50/p95/max latency, undecided
//!    moves.
//! 3. Analyses the French, triangle, Wiegleb and diamond starts with the
//!    default budget: time and the share of moves decided.

use endgame_core::budget::Budget;
use endgame_core::cache::Tables;
use endgame_core::{Notation, Rules};
use endgame_peg::api::{self, AnyProblem, Service, Spec};
use endgame_peg::with_problem;
use std::time::Instant;

fn budget() -> Budget {
    Budget::time(api::DEFAULT_TIME).with_nodes(api::DEFAULT_NODES)
}

/// A position `n` random jumps from the start (fewer if stuck), by a
/// small xorshift generator.
fn random_position(board: &str, n: usize, seed: u64) -> Option<String> {
    let p = api::build(&Spec::named(board)).ok()?;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    Some(with_problem!(&p, q => {
        let mut pos = q.start();
        for _ in 0..n {
            let moves = q.moves(&pos);
            if moves.is_empty() {
                break;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            pos = q.play_unchecked(&pos, moves[(x % moves.len() as u64) as usize]);
        }
        q.format_position(&pos)
    }))
}

fn problem(board: &str, position: Option<String>) -> AnyProblem {
    api::build(&Spec {
        position,
        ..Spec::named(board)
    })
    .expect("a problem")
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * q).round() as usize]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let dir = std::env::temp_dir().join(format!("endgame-peg-latency-{}", std::process::id()));
    let svc = Service::with_dir(&dir);
    let r = svc
        .build("peg-english-d4", &Budget::unlimited())
        .expect("a table of the service")
        .expect("built");
    println!(
        "table peg-english-d4: {} positions up to symmetry, {:.1} MB, built in {:.0} ms",
        r.entries,
        r.bytes as f64 / 1e6,
        r.time_ms
    );
    let fresh = Service::with_dir(&dir);
    let t = Instant::now();
    let _ = fresh.analyze(&problem("english", None), &budget());
    println!(
        "first hint of a fresh service (loads the file): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let mut times = Vec::new();
    let mut undecided = 0;
    let mut moves = 0;
    let mut positions = vec![None];
    positions.extend((0..n).map(|i| random_position("english", 5, seed + i as u64)));
    for pos in positions {
        let p = problem("english", pos);
        let t = Instant::now();
        let a = svc.analyze(&p, &budget());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if ms > 20.0 {
            println!(
                "  slow: {} {ms:.0} ms, {} undecided",
                a.position,
                a.undecided()
            );
        }
        times.push(ms);
        undecided += a.undecided();
        moves += a.moves.len();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "english start + {n} positions 5 random moves in (seed {seed}), table present: \
         p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; {undecided} of {moves} moves undecided",
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        times[times.len() - 1]
    );

    for board in ["french", "triangle", "wiegleb", "diamond"] {
        let t = Instant::now();
        let a = svc.analyze(&problem(board, None), &budget());
        let decided = a.moves.len() - a.undecided();
        let colours: Vec<String> = a
            .moves
            .iter()
            .map(|m| format!("{}:{}", m.mv, m.colour))
            .collect();
        println!(
            "{board} start: {decided}/{} moves decided in {:.0} ms ({}), result {:?}",
            a.moves.len(),
            t.elapsed().as_secs_f64() * 1e3,
            colours.join(" "),
            a.result
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
