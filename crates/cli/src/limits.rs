//! The budget every long command has by default: a time limit
//! (`--time`, lifted by `--no-limit`) and a memory budget
//! (`--max-memory`), both printed with their defaults in `--help`.
//!
//! When a budget runs out the command prints what it knows (the report
//! says `"complete": false` and why) and exits with status 3
//! ([`crate::output::INCOMPLETE`]); status 2 is for bad input only.
//! Memory budgets are enforced before allocation: each game's search
//! stops before its tables would outgrow the budget.

use crate::output::{Output, INCOMPLETE};
use anyhow::{Context, Result};
use endgame_core::budget::Budget;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A budget's byte count as the searchers take it.
pub fn bytes(size: u64) -> Result<usize> {
    usize::try_from(size).context("--max-memory is larger than this machine can address")
}

/// Defines a clap argument group `--time`, `--no-limit`, `--max-memory`
/// with the given defaults (each command's own, shown in its help).
macro_rules! limits {
    ($(#[$doc:meta])* $name:ident, time = $time:literal, memory = $memory:literal) => {
        $(#[$doc])*
        #[derive(Debug, clap::Args)]
        pub struct $name {
            /// Time limit (`2s`, `500ms`): past it the command stops, prints
            /// what it knows, and the exit status is 3.
            #[arg(long, value_name = "TIME", default_value = $time,
                  value_parser = parse_duration)]
            pub time: Duration,
            /// No time limit (the memory budget still holds).
            #[arg(long, conflicts_with = "time")]
            pub no_limit: bool,
            /// Memory budget of the search's tables (`512M`, `2G`): the search
            /// stops before its tables would outgrow it (exit status 3).
            #[arg(long, value_name = "SIZE", default_value = $memory,
                  value_parser = parse_size)]
            pub max_memory: u64,
        }

        impl $name {
            /// The budget these flags describe, from now.
            pub fn budget(&self) -> Result<Budget> {
                let b = Budget::unlimited().with_memory(bytes(self.max_memory)?);
                Ok(if self.no_limit {
                    b
                } else {
                    b.with_time(self.time)
                })
            }
        }
    };
}

limits!(
    /// The budget of `endgame solve sim`.
    Long,
    time = "60s",
    memory = "1G"
);

limits!(
    /// The budget of `endgame count sim` (the whole K8 count takes about
    /// 2.5 minutes and 0.65 GB on this project's machine).
    Count,
    time = "600s",
    memory = "2G"
);

/// What a [`Watchdog`] knows of the work when it fires: fields of the
/// incomplete report (name, value).
pub type Known = Box<dyn Fn() -> Vec<(&'static str, serde_json::Value)> + Send>;

/// The time limit of work that has no deadline of its own (a study, a lab
/// run, a count whose engine takes none): at the deadline it prints the
/// incomplete report (`"complete": false`, the reason, and what
/// [`Known`] says) and exits with status 3. Dropping it disarms it;
/// a watchdog that has started its report holds the drop until the
/// process exits, so exactly one report is printed.
pub struct Watchdog {
    state: Arc<(Mutex<bool>, Condvar)>,
}

impl Watchdog {
    /// A watchdog for `what` (e.g. `study martello 8×8`), started at
    /// `started`, firing `budget` later.
    pub fn arm(started: Instant, budget: Duration, out: Output, what: String) -> Watchdog {
        Watchdog::arm_with(started, budget, out, what, Box::new(Vec::new))
    }

    /// [`Watchdog::arm`], the report adding what `known` says.
    pub fn arm_with(
        started: Instant,
        budget: Duration,
        out: Output,
        what: String,
        known: Known,
    ) -> Watchdog {
        let state = Arc::new((Mutex::new(false), Condvar::new()));
        let shared = state.clone();
        let deadline = started + budget;
        std::thread::spawn(move || {
            let (disarmed, wake) = &*shared;
            let mut off = disarmed.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if *off {
                    return;
                }
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                off = wake
                    .wait_timeout(off, deadline - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            // Still holding the lock: the command cannot print its own
            // report any more.
            let reason = format!(
                "the time budget ({}) ran out before {what} finished",
                crate::output::duration(budget.as_secs_f64() * 1e3)
            );
            let fields = known();
            let text = if out.json {
                let mut map = serde_json::Map::new();
                map.insert("complete".into(), false.into());
                map.insert("reason".into(), reason.into());
                for (k, v) in fields {
                    map.insert(k.into(), v);
                }
                let mut s = serde_json::to_string_pretty(&map).unwrap_or_default();
                s.push('\n');
                s
            } else {
                let mut s = format!("incomplete: {reason}\n");
                for (k, v) in fields {
                    s.push_str(&format!("{k}: {v}\n"));
                }
                s
            };
            // A progress line may be half drawn on stderr.
            if !out.quiet {
                eprintln!();
            }
            let mut stdout = std::io::stdout().lock();
            let _ = stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush());
            // Scratch files (a count's spilled layers) go with the process.
            endgame_core::scratch::exit(i32::from(INCOMPLETE), "");
        });
        Watchdog { state }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let (disarmed, wake) = &*self.state;
        *disarmed.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }
}

/// Parses `100ms`, `2s`, `0.5s` or a bare number of milliseconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1e-3)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e6 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err(format!(
            "bad duration {s:?}: expected e.g. 100ms, 1s or 0.5s"
        )),
    }
}

/// Parses a byte size: a number with an optional binary unit K, M, G or T
/// (`512M`, `8G`, `1.5G`; a trailing `B` or `iB` is allowed).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix("ib"))
        .or_else(|| t.strip_suffix(['B', 'b']).filter(|r| !r.is_empty()))
        .unwrap_or(t);
    let (num, shift) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 10),
        Some('M') => (&t[..t.len() - 1], 20),
        Some('G') => (&t[..t.len() - 1], 30),
        Some('T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let value: f64 = num
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("'{s}' is not a size (write e.g. 512M or 8G)"))?;
    let bytes = value * (1u64 << shift) as f64;
    if bytes < 1.0 {
        return Err("the memory budget must be at least one byte".into());
    }
    if bytes >= u64::MAX as f64 {
        return Err(format!("'{s}' is too large"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        limits: Long,
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("8g"), Ok(8 << 30));
        assert_eq!(parse_size("8GiB"), Ok(8 << 30));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("100B"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("0G").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn defaults_and_lifting() {
        let c = Cli::try_parse_from(["x"]).unwrap();
        let b = c.limits.budget().unwrap();
        assert_eq!(b.memory, Some(1 << 30));
        let left = b.remaining().unwrap();
        assert!(left > Duration::from_secs(59) && left <= Duration::from_secs(60));
        let c = Cli::try_parse_from(["x", "--no-limit", "--max-memory", "64M"]).unwrap();
        let b = c.limits.budget().unwrap();
        assert_eq!((b.deadline, b.memory), (None, Some(64 << 20)));
        assert!(Cli::try_parse_from(["x", "--no-limit", "--time", "2s"]).is_err());
        assert!(Cli::try_parse_from(["x", "--max-memory", "0"]).is_err());
    }
}
