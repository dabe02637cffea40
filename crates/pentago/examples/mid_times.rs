//! Solves each position read from stdin (one per line), value and every
//! child, and prints the value, the time and the method, then the median
//! and maximum time (each line ends with the children's values, `W`/`D`/`L`,
//! `?` unknown, to compare methods):
//! `cargo run --release -p endgame-pentago --example positions -- 18 20 1 reference | cargo run --release -p endgame-pentago --example mid_times -- [mid|ab|auto] [SECONDS]`.
//!
//! `mid` the retrograde solver alone (its memory limit `mid::memory_limit`,
//! or `MID_MEMORY_GIB` GiB from the environment: below what a root needs
//! in memory its large layers spill to files, and the line says what was
//! written and read), `ab` the alpha-beta alone (with a
//! time cap, default 10 s), `auto` what `Solver::value_and_children`
//! chooses; `memory` prints the predicted peak memory by empty cells.

use endgame_core::Value;
use endgame_pentago::mid;
use endgame_pentago::notation::parse_position;
use endgame_pentago::solve::{Budget, Solver};
use std::io::BufRead;
use std::time::{Duration, Instant};

fn main() {
    let method = std::env::args().nth(1).unwrap_or_else(|| "mid".into());
    let cap = std::env::args()
        .nth(2)
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(10.0);
    if let Ok(gib) = std::env::var("MID_MEMORY_GIB") {
        let gib: f64 = gib.parse().expect("MID_MEMORY_GIB: a number of GiB");
        mid::set_memory_limit((gib * (1u64 << 30) as f64) as u64);
    }
    if method == "memory" {
        // The predicted peak of a retrograde solve by empty cells.
        for n in 12..=mid::MAX_EMPTY {
            let m = mid::memory_for(n).expect("within MAX_EMPTY");
            println!(
                "{n} empty cells: one sweep {}, a sweep per question {}",
                mid::bytes_text(m.one_sweep),
                mid::bytes_text(m.two_sweeps)
            );
        }
        return;
    }
    let mut times = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("reading stdin");
        let Ok(p) = parse_position(line.trim()) else {
            continue;
        };
        let t = Instant::now();
        let mut how = "retrograde".to_string();
        let (v, kids) = match method.as_str() {
            "mid" => {
                let plan = mid::plan(&p, None).expect("within MAX_EMPTY and the memory limit");
                let sol = mid::solve(&p, None).expect("within MAX_EMPTY and the memory limit");
                let (w, r) = sol.disk_bytes();
                if plan.disk > 0 {
                    how = format!(
                        "retrograde, spilled (predicted {} in memory, {} on disk; wrote {}, read {})",
                        mid::bytes_text(plan.bytes),
                        mid::bytes_text(plan.disk),
                        mid::bytes_text(w),
                        mid::bytes_text(r)
                    );
                }
                (sol.value(), sol.children())
            }
            _ => {
                let mut s = Solver::default();
                s.set_retrograde(method != "ab");
                let r = s.value_and_children(
                    &p,
                    Budget {
                        nodes: None,
                        time: Some(Duration::from_secs_f64(cap)),
                    },
                );
                how = format!(
                    "{} ({} nodes)",
                    if s.last_was_retrograde() {
                        "retrograde"
                    } else {
                        "alpha-beta"
                    },
                    s.nodes()
                );
                r
            }
        };
        let s = t.elapsed().as_secs_f64();
        let unknown = kids.iter().filter(|k| k.1 == Value::Unknown).count();
        // The children's values in order (W/D/L/?), to compare methods.
        let sig: String = kids
            .iter()
            .map(|k| match k.1 {
                Value::Win => 'W',
                Value::Draw => 'D',
                Value::Loss => 'L',
                _ => '?',
            })
            .collect();
        println!(
            "{line:>22} {v:>7} {:>3} children ({unknown} unknown) {s:>9.3} s {how} [{sig}]",
            kids.len()
        );
        times.push(s);
    }
    times.sort_by(f64::total_cmp);
    if let (Some(max), false) = (times.last(), times.is_empty()) {
        println!(
            "{} positions: median {:.3} s, max {max:.3} s",
            times.len(),
            times[times.len() / 2]
        );
    }
}
