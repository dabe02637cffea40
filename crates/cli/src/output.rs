//! How every command prints: text by default, JSON with `--json`, and
//! progress on stderr unless `--quiet` ([`crate::progress`]).

use crate::progress::{self, Mode};
use anyhow::{Context, Result};
use serde::Serialize;
use std::time::Instant;

/// How a command prints its report.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    /// JSON instead of text.
    pub json: bool,
    /// No progress on stderr.
    pub quiet: bool,
}

impl Output {
    pub fn render<R: Serialize>(
        &self,
        report: &R,
        text: impl FnOnce(&R) -> String,
    ) -> Result<String> {
        if self.json {
            let mut s = serde_json::to_string_pretty(report).context("writing JSON")?;
            s.push('\n');
            Ok(s)
        } else {
            Ok(text(report))
        }
    }

    /// Whether indicatif draws on a terminal (stderr is one, no `--quiet`).
    pub fn progress(&self) -> bool {
        progress::visible(self.quiet)
    }

    /// How progress shows: see [`Mode`].
    pub fn progress_mode(&self) -> Mode {
        Mode::detect(self.quiet)
    }
}

/// Exit status of a command whose budget ran out before the answer was
/// complete: the report (what is known) is printed as usual.
pub const INCOMPLETE: u8 = 3;

/// The printed report of a command whose budget ran out: `main` prints it
/// and exits with [`INCOMPLETE`].
#[derive(Debug)]
pub struct Incomplete(pub String);

impl std::fmt::Display for Incomplete {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the budget ran out before the answer was complete")
    }
}

impl std::error::Error for Incomplete {}

/// `text` as the command's result: complete, or [`Incomplete`].
pub fn finished(text: String, complete: bool) -> Result<String> {
    if complete {
        Ok(text)
    } else {
        Err(Incomplete(text).into())
    }
}

/// A hint's report, as the web answers it; when the position or a move
/// is undecided (`decided: false` on it in JSON) the budget ran out first
/// and the command exits with [`INCOMPLETE`].
pub fn hint<D, P>(
    out: &Output,
    a: &endgame_core::analysis::Analysis<D, P>,
    text: impl FnOnce(&endgame_core::analysis::Analysis<D, P>) -> String,
) -> Result<String>
where
    endgame_core::analysis::Analysis<D, P>: Serialize,
{
    let text = out.render(a, text)?;
    finished(text, a.settled())
}

/// A report and whether it is complete, for reports that do not say it
/// themselves: in JSON the report's own fields, then `complete` (`false`
/// when the budget ran out before the answer).
#[derive(Debug, Serialize)]
pub struct Completed<R> {
    /// The report.
    #[serde(flatten)]
    pub report: R,
    /// Whether the answer is complete.
    pub complete: bool,
}

/// A report with the wall time of the whole command, for commands whose
/// report times only part of the work (the solve without its audit, the
/// main experiment without the others). In JSON the report's own fields
/// come first, then `total_ms`.
#[derive(Debug, Serialize)]
pub struct Timed<R> {
    /// The report.
    #[serde(flatten)]
    pub report: R,
    /// Wall time of the whole command, milliseconds.
    pub total_ms: f64,
}

impl<R> Timed<R> {
    /// `report`, timed from `started` to now.
    pub fn since(report: R, started: Instant) -> Timed<R> {
        Timed {
            report,
            total_ms: started.elapsed().as_secs_f64() * 1e3,
        }
    }
}

/// A duration in milliseconds for people: `0.42 ms`, `38.8 ms`, `2.44 s`,
/// `96.1 s`, `3 min 05 s`.
pub fn duration(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else if ms < 100_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(0.421), "0.42 ms");
        assert_eq!(duration(38.84), "38.8 ms");
        assert_eq!(duration(2440.0), "2.44 s");
        assert_eq!(duration(96_100.0), "96.10 s");
        assert_eq!(duration(185_000.0), "3 min 05 s");
    }

    #[test]
    fn timed_reports_flatten() {
        #[derive(Serialize)]
        struct R {
            time_ms: f64,
        }
        let t = Timed {
            report: R { time_ms: 1.0 },
            total_ms: 2.0,
        };
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["time_ms"], 1.0);
        assert_eq!(v["total_ms"], 2.0);
    }
}
