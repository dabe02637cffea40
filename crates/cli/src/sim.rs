//! `endgame … sim`: Sim (Cassis) on K_n. Arguments to an `endgame_sim`
//! call, the report rendered as text or JSON.

use crate::limits::parse_duration;
use crate::output::{duration, Output, Timed};
use crate::progress::Spinner;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use endgame_core::analysis::Decided;
use endgame_core::budget::Budget;
use endgame_core::{Rules, Value};
use endgame_sim::api::{self, CountReport, KeyKind, Sim, SimAnalysis, SimPos};
use std::fmt::Write;
use std::time::Duration;

/// `endgame solve sim`.
#[derive(Debug, Args)]
pub struct SolveSim {
    /// The position string (docs/sim.md: one of `.`, `r`, `b` per segment
    /// in the order ab ac …); the empty board when omitted.
    pub position: Option<String>,
    /// Number of points when no position is given (3 to 8); implied by
    /// the position's length otherwise.
    #[arg(long)]
    pub n: Option<usize>,
    /// Completing your own triangle wins instead of losing.
    #[arg(long)]
    pub misere: bool,
    #[command(flatten)]
    pub limits: crate::limits::Long,
}

/// `endgame hint sim`.
#[derive(Debug, Args)]
pub struct HintSim {
    /// The position string.
    pub position: String,
    /// Completing your own triangle wins instead of losing.
    #[arg(long)]
    pub misere: bool,
    /// Time limit of the exact search when no solved table is in the
    /// cache (`2s`, `500ms`; default: the service's, as on the web).
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Positions the exact search may expand (default: the service's).
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// No time limit (the node and memory limits still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Memory budget of the exact search's table, e.g. 256M or 2G
    /// (default: 512M). The search stops before its table would outgrow
    /// it.
    #[arg(long, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_memory: Option<u64>,
}

/// `endgame count sim`.
#[derive(Debug, Args)]
pub struct CountSim {
    /// Number of points (3 to 8).
    #[arg(long, default_value_t = 6)]
    pub n: usize,
    /// Completing your own triangle wins instead of losing.
    #[arg(long)]
    pub misere: bool,
    /// Also audit the whole table (every win has a losing child at
    /// remoteness − 1, every loss only winning children, …).
    #[arg(long)]
    pub check: bool,
    /// Also weakly solve the start with the exact key and the
    /// degree-sorted key of erik's Cassis article (and without any
    /// symmetry for n ≤ 6), and report the positions each stored per round.
    #[arg(long)]
    pub weak: bool,
    #[command(flatten)]
    pub limits: crate::limits::Count,
}

/// The game and position the arguments describe.
fn game_and_position(
    position: Option<&str>,
    n: Option<usize>,
    misere: bool,
) -> Result<(Sim, SimPos)> {
    match position {
        Some(text) => {
            let (sim, pos) = Sim::parse_any(text, misere)?;
            if let Some(n) = n {
                if n != sim.n() {
                    bail!(
                        "--n {n} contradicts the position, whose {} segments make K{}",
                        sim.segments(),
                        sim.n()
                    );
                }
            }
            Ok((sim, pos))
        }
        None => {
            let sim = Sim::new(n.unwrap_or(6), misere)?;
            let start = sim.start();
            Ok((sim, start))
        }
    }
}

/// `endgame solve sim`: the exact solve of the API within the command's
/// budget (`--time`, `--max-memory`); past it the value is `unknown` and
/// the exit status 3.
pub fn solve(args: &SolveSim, out: Output) -> Result<String> {
    let (sim, pos) = game_and_position(args.position.as_deref(), args.n, args.misere)?;
    let budget = args.limits.budget()?;
    let spinner = Spinner::start(
        out.progress_mode(),
        &format!("solve sim: solving K{}", sim.n()),
    );
    let report = api::solve_within(&sim, &pos, &budget);
    spinner.finish();
    let text = out.render(&report, |r| {
        let mut s = format!(
            "Sim on K{}{}: {} ({} to move)\n",
            r.n,
            if r.misere { " (misère)" } else { "" },
            r.position,
            r.to_move
        );
        let _ = writeln!(s, "value: {}{}", r.value, remoteness_text(r.remoteness));
        match (&r.best_move, r.complete) {
            (Some(m), _) => {
                let _ = writeln!(s, "best move: {m} -> {}", r.after.as_deref().unwrap_or(""));
            }
            (None, true) => s.push_str("the game is over\n"),
            (None, false) => {}
        }
        if let Some(why) = &r.reason {
            let _ = writeln!(s, "undecided: {why}");
        }
        let _ = writeln!(
            s,
            "{} positions up to isomorphism solved in {:.1} ms",
            r.positions_solved, r.time_ms
        );
        s
    })?;
    crate::output::finished(text, report.complete)
}

fn remoteness_text(r: Option<u32>) -> String {
    r.map(|r| format!(" in {r}")).unwrap_or_default()
}

/// Default memory budget of `endgame hint sim`'s exact search.
const HINT_MEMORY: u64 = 512 << 20;

/// `endgame hint sim`: the analysis service's answer (from a solved
/// table in the cache directory when one is there; `hint` never builds
/// one, `endgame cache build` does), printed as is with `--json`.
pub fn hint(args: &HintSim, out: Output) -> Result<String> {
    let (sim, pos) = api::parse(&args.position, args.misere)?;
    let mut budget = Budget::unlimited()
        .with_nodes(args.max_nodes.unwrap_or(api::DEFAULT_NODES))
        .with_memory(crate::limits::bytes(
            args.max_memory.unwrap_or(HINT_MEMORY),
        )?);
    if !args.no_limit {
        budget = budget.with_time(args.time.unwrap_or(api::DEFAULT_TIME));
    }
    let service = api::Service::new(Some(endgame_core::cache::dir(None)));
    let spinner = Spinner::start(out.progress_mode(), "hint sim: weighing every move");
    let a = service.analyze(&sim, &pos, &budget);
    spinner.finish();
    crate::output::hint(&out, &a, hint_text)
}

/// The text of `endgame hint sim`.
fn hint_text(a: &SimAnalysis) -> String {
    let mut s = format!(
        "Sim on K{}{}: {} ({} to move)\n",
        a.detail.n,
        if a.detail.misere { " (misère)" } else { "" },
        a.position,
        a.to_move.as_deref().unwrap_or("?")
    );
    let by = match a.decided_by {
        Decided::Table => "solved table",
        Decided::Search => "exact search",
        Decided::Heuristic => "heuristic",
        Decided::Undecided => "undecided",
    };
    let _ = writeln!(
        s,
        "value: {}{} ({by}, {:.1} ms)",
        a.value.unwrap_or(Value::Unknown),
        remoteness_text(a.remoteness),
        a.time_ms
    );
    if a.over {
        s.push_str("the game is over\n");
    }
    for m in &a.moves {
        let _ = writeln!(
            s,
            "  {}  {:6}  {}{}",
            m.mv,
            m.colour.as_str(),
            m.value.unwrap_or(Value::Unknown),
            remoteness_text(m.remoteness)
        );
    }
    if !a.line.is_empty() {
        let _ = writeln!(s, "perfect line: {}", a.line.join(" "));
    }
    if let Some(r) = &a.reason {
        let _ = writeln!(s, "note: {r}");
    }
    s
}

/// `endgame count sim`: the strong solve, then the audit (`--check`) and
/// the weak solves (`--weak`). The report's `time_ms` times the strong
/// solve; `total_ms` and the text's last line the whole command.
pub fn count(args: &CountSim, out: Output) -> Result<String> {
    let started = std::time::Instant::now();
    let sim = Sim::new(args.n, args.misere)?;
    let spinner = Spinner::start(
        out.progress_mode(),
        &format!("count sim: solving every position of K{}", sim.n()),
    );
    let budget = args.limits.budget()?;
    let report = api::count_within(&sim, args.check, args.weak, &budget);
    spinner.finish();
    let report = report.map_err(|e| anyhow!(e))?;
    let complete = report.complete;
    crate::output::finished(
        out.render(&Timed::since(report, started), count_text)?,
        complete,
    )
}

fn count_text(t: &Timed<CountReport>) -> String {
    let r = &t.report;
    if !r.complete && r.per_move.is_empty() {
        return format!(
            "Sim on K{}{}: undecided, {}\n{} positions up to isomorphism solved in {}\n",
            r.n,
            if r.misere { " (misère)" } else { "" },
            r.reason.as_deref().unwrap_or("the budget ran out"),
            r.positions,
            duration(t.total_ms)
        );
    }
    let mut s = format!(
        "Sim on K{}{}: red (first) {}{}\n",
        r.n,
        if r.misere { " (misère)" } else { "" },
        match r.value {
            Value::Win => "wins",
            Value::Loss => "loses",
            _ => "draws",
        },
        r.remoteness
            .map(|x| format!(" (remoteness {x})"))
            .unwrap_or_default()
    );
    s.push_str("move  positions  terminal       win      loss      draw\n");
    for row in &r.per_move {
        let c = &row.counts;
        let _ = writeln!(
            s,
            "{:>4} {:>10} {:>9} {:>9} {:>9} {:>9}",
            row.move_number, c.positions, c.terminals, c.wins, c.losses, c.draws
        );
    }
    let _ = writeln!(
        s,
        "total {:>9} {:>9} {:>9} {:>9} {:>9}",
        r.positions, r.terminals, r.wins, r.losses, r.draws
    );
    if let Some(c) = r.consistent {
        let _ = writeln!(
            s,
            "table audit: {}",
            if c { "consistent" } else { "FAILED" }
        );
    }
    for w in &r.weak {
        let _ = writeln!(
            s,
            "weak solve ({} key): {} stored in {:.1} ms, per round {:?}",
            match w.key {
                KeyKind::Exact => "exact",
                KeyKind::DegreeSorted => "degree-sorted",
                KeyKind::Raw => "raw, no symmetry",
            },
            w.solution.stored,
            w.time_ms,
            w.solution.stored_per_round
        );
    }
    let _ = writeln!(
        s,
        "strong solve {}, table ~{:.1} MB, peak RSS {}",
        duration(r.time_ms),
        r.table_bytes as f64 / 1e6,
        r.peak_rss_bytes
            .map(|b| format!("{:.1} MB", b as f64 / 1e6))
            .unwrap_or_else(|| "unknown".into())
    );
    if let Some(why) = &r.reason {
        let _ = writeln!(s, "incomplete: {why}");
    }
    let _ = writeln!(
        s,
        "whole command {}{}",
        duration(t.total_ms),
        match (r.consistent.is_some(), !r.weak.is_empty()) {
            (true, true) => " (strong solve, audit and weak solves)",
            (true, false) => " (strong solve and audit)",
            (false, true) => " (strong solve and weak solves)",
            (false, false) => "",
        }
    );
    s
}
