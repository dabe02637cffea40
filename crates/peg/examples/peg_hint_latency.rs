//! Hint latency and the share of decided moves, through the analysis
//! service (`endgame_peg::api::Service`) with its default budget.
//!
//! `cargo run --release -p endgame-peg --example peg_hint_latency [-- N SEED [DIR]]`
//!
//! 1. Builds the English central tables (`peg-english-d4`, its goal set,
//!    and `peg-english-d4-best`, its best-result set) into a scratch cache
//!    directory, or DIR if given (loaded if there), and reports their time
//!    and size.
//! 2. Analyses the English start and N positions 5 random moves in
//!    (seeded), with the tables present: p50/p95/max latency, undecided
//!    moves.
//! 3. The same on the French board, with its best-result set
//!    (`peg-french-d4-best`) when DIR holds it (it takes minutes to build:
//!    `examples/peg_tables -- --dir DIR peg-french-d4-best`), else by
//!    search alone; and on the triangle (its tables are built on demand).
//! 4. Analyses the French, triangle, Wiegleb and diamond starts with the
//!    default budget: time and the share of moves decided.

use endgame_core::budget::Budget;
use endgame_core::cache::{TableState, Tables};
use endgame_core::stats::quantile;
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

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let given = args.next().map(std::path::PathBuf::from);
    let dir = given.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("endgame-peg-latency-{}", std::process::id()))
    });
    let svc = Service::with_dir(&dir);
    for name in ["peg-english-d4", "peg-english-d4-best"] {
        let r = svc
            .build(name, &Budget::unlimited())
            .expect("a table of the service")
            .expect("built");
        println!(
            "table {name}: {} positions up to symmetry, {:.1} MB, {} in {:.0} ms",
            r.entries,
            r.bytes as f64 / 1e6,
            r.source,
            r.time_ms
        );
    }
    let french = svc
        .tables()
        .into_iter()
        .any(|t| t.name == "peg-french-d4-best" && t.state != TableState::Missing);
    let fresh = Service::with_dir(&dir);
    let t = Instant::now();
    let _ = fresh.analyze(&problem("english", None), &budget());
    println!(
        "first hint of a fresh service (loads the file): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    for board in ["english", "french", "triangle"] {
        let mut times = Vec::new();
        let mut undecided = 0;
        let mut moves = 0;
        let mut positions = vec![None];
        positions.extend((0..n).map(|i| random_position(board, 5, seed + i as u64)));
        for pos in positions {
            let p = problem(board, pos);
            let t = Instant::now();
            let a = svc.analyze(&p, &budget());
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if ms > 100.0 || a.undecided() > 0 {
                println!(
                    "  slow: {} {ms:.0} ms, {} undecided, result {:?}",
                    a.position,
                    a.undecided(),
                    a.result
                );
            }
            times.push(ms);
            undecided += a.undecided();
            moves += a.moves.len();
        }
        times.sort_by(f64::total_cmp);
        let tables = match board {
            "french" if !french => "no table",
            _ => "tables present",
        };
        println!(
            "{board} start + {n} positions 5 random moves in (seed {seed}), {tables}: \
             p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; {undecided} of {moves} moves undecided",
            quantile(&times, 0.5),
            quantile(&times, 0.95),
            times[times.len() - 1]
        );
    }

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
    if given.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
