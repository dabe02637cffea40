//! Builds the analysis service's solved tables into a scratch cache
//! directory and reports each one: positions, file size, build time, the
//! peak memory of the process so far, then the time to read it back.
//!
//! `cargo run --release -p endgame-peg --example peg_tables [-- [--dir DIR] NAME...]`
//!
//! With no names it builds every English table (`peg-english-*`); name
//! one table per run to see its own peak memory (the French best-result
//! set: `peg-french-d4-best`, minutes and gigabytes). With `--dir` the
//! tables are kept in DIR (a cache directory for `ENDGAME_CACHE`).

use endgame_core::budget::Budget;
use endgame_core::cache::Tables;
use endgame_core::memory::peak_rss_bytes;
use endgame_peg::api::Service;
use std::time::Instant;

fn main() {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    let keep = names.first().is_some_and(|a| a == "--dir") && names.len() > 1;
    let dir = if keep {
        let d = std::path::PathBuf::from(names.remove(1));
        names.remove(0);
        d
    } else {
        std::env::temp_dir().join(format!("endgame-peg-tables-{}", std::process::id()))
    };
    let svc = Service::with_dir(&dir);
    if names.is_empty() {
        names = svc
            .tables()
            .into_iter()
            .map(|t| t.name)
            .filter(|n| n.starts_with("peg-english-"))
            .collect();
    }
    println!("table                 positions        file   build  peak memory   read");
    for name in &names {
        let Some(r) = svc.build(name, &Budget::unlimited()) else {
            eprintln!("no table {name}");
            continue;
        };
        let r = r.expect("built");
        let t = Instant::now();
        let fresh = Service::with_dir(&dir);
        let again = fresh
            .build(name, &Budget::unlimited())
            .expect("listed")
            .expect("loaded");
        assert_eq!(
            (again.source.as_str(), again.entries),
            ("loaded", r.entries)
        );
        println!(
            "{:<20} {:>11} {:>8.1} MB {:>6.2} s {:>8} MB {:>6.2} s",
            name,
            r.entries,
            r.bytes as f64 / 1e6,
            r.time_ms / 1e3,
            peak_rss_bytes().unwrap_or(0) >> 20,
            t.elapsed().as_secs_f64()
        );
    }
    if !keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
