//! `endgame … pentago`: parsing done by clap, work done by the Pentago
//! crate's service (`endgame_pentago::api`, which the web uses too); this
//! file only reads the arguments and prints the reports.

use crate::limits::parse_duration;
use crate::output::Output;
use crate::progress::Spinner;
use anyhow::{bail, Result};
use clap::Args;
use endgame_core::analysis::Decided;
use endgame_core::Value;
use endgame_pentago::api;
use endgame_pentago::api::Position;
use std::fmt::Write;
use std::time::Duration;

/// `endgame solve pentago`.
#[derive(Debug, Args)]
pub struct SolvePentago {
    /// The position in the interchange notation (docs/pentago.md): a
    /// 64-bit number, `m` appended when the player to move must rotate.
    pub position: String,
    /// Time limit (`10s`, `500ms`); default none where the exact
    /// retrograde solver takes the position (from 16 stones, when the
    /// memory it needs is free: about 4.3 GiB at 16, 1.6 GiB at 17),
    /// 10 s before.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Node limit.
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// No time limit, also before 16 stones (the memory budget still
    /// holds).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    #[command(flatten)]
    pub memory: Memory,
}

/// `--max-memory` of the Pentago commands.
#[derive(Debug, Args)]
pub struct Memory {
    /// Memory budget (`512M`, `6G`): the exact retrograde solver plans
    /// (before allocating) within this budget less the alpha-beta table
    /// (64 MiB), spilling its largest layers to files in the temporary
    /// directory when they do not fit and the disk has room; positions
    /// it cannot take, or whose predicted time does not fit `--time`, are
    /// searched by alpha-beta. At least 80M.
    #[arg(long, value_name = "SIZE", default_value = "6G", value_parser = crate::limits::parse_size)]
    pub max_memory: u64,
}

/// Bytes of the alpha-beta search's table ([`api::TABLE_BITS`]).
const TABLE_BYTES: u64 = 16 << api::TABLE_BITS;

impl Memory {
    /// Applies the budget: the retrograde solver's limit (process-wide,
    /// read before every solve) is the budget less the alpha-beta table.
    /// Returns the budget in bytes.
    fn apply(&self) -> Result<usize> {
        if self.max_memory < TABLE_BYTES + (16 << 20) {
            bail!(
                "--max-memory {}: too small, the alpha-beta table alone takes 64 MiB (give at least 80M)",
                self.max_memory
            );
        }
        api::set_memory_limit(self.max_memory - TABLE_BYTES);
        crate::limits::bytes(self.max_memory)
    }
}

/// `endgame hint pentago`.
#[derive(Debug, Args)]
pub struct HintPentago {
    /// The position in the interchange notation.
    pub position: String,
    /// Time limit (`10s`, `500ms`); default 2 s (the analysis service's
    /// default, the same as the web's).
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Node limit of the alpha-beta searches (the retrograde solver, from
    /// 18 stones in a hint, is bounded by the time alone).
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// No time limit (the node and memory limits still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    #[command(flatten)]
    pub memory: Memory,
}

/// `endgame solve pentago`: the service's solve (`api::solve`), printed
/// as is with `--json`.
pub fn solve(args: &SolvePentago, out: Output) -> Result<String> {
    let pos = api::parse(&args.position)?;
    let memory = args.memory.apply()?;
    let mut budget = api::solve_budget(&pos, args.time, args.max_nodes);
    if args.no_limit {
        budget.deadline = None;
    }
    // The large alpha-beta table only when it fits (else the usual one).
    if budget
        .memory
        .is_some_and(|m| m as u64 + (16 << 20) > memory as u64)
    {
        budget.memory = None;
    }
    let spinner = Spinner::start(out.progress_mode(), "solve pentago");
    let report = api::solve(&pos, &budget);
    spinner.finish();
    crate::output::finished(
        out.render(&report, |r| solve_text(&pos, r))?,
        report.complete,
    )
}

/// The text of `endgame solve pentago`.
fn solve_text(pos: &Position, r: &api::SolveReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "position     {}", r.position);
    s.push_str(&indent(&api::draw(pos)));
    let rotate = if r.must_rotate { " (to rotate)" } else { "" };
    let _ = writeln!(s, "to move      {}{rotate}, {} stones", r.to_move, r.stones);
    let _ = writeln!(
        s,
        "value        {}",
        value_text(Some(r.result), r.remoteness)
    );
    if let Some(why) = &r.reason {
        let _ = writeln!(s, "reason       {why}");
    }
    let _ = writeln!(
        s,
        "children     {} (value for the child's player to move)",
        r.children.0.len()
    );
    for c in &r.children.0 {
        let _ = writeln!(
            s,
            "  {:<22} {:<8} {}",
            c.position,
            c.value.to_string(),
            c.by
        );
    }
    if !r.line.is_empty() {
        let end = if r.line_complete { " (to the end)" } else { "" };
        let _ = writeln!(s, "line         {}{end}", r.line.join(", "));
    }
    let _ = writeln!(s, "nodes        {}", r.nodes);
    let _ = writeln!(s, "method       {}", r.method);
    let _ = writeln!(s, "time         {:.1} ms", r.time_ms);
    s
}

/// `endgame hint pentago`: the analysis service's answer
/// (`endgame_pentago::api`), printed as is with `--json`.
pub fn hint(args: &HintPentago, out: Output) -> Result<String> {
    let pos = api::parse(&args.position)?;
    args.memory.apply()?;
    let mut budget = api::hint_budget(args.time, args.max_nodes);
    if args.no_limit {
        budget.deadline = None;
    }
    let spinner = Spinner::start(out.progress_mode(), "hint pentago: weighing every move");
    let analysis = api::analyze(&pos, &budget);
    spinner.finish();
    crate::output::hint(&out, &analysis, |a| hint_text(&pos, a))
}

/// A value for the text: `win`, `win in 1`, ...
fn value_text(v: Option<Value>, remoteness: Option<u32>) -> String {
    let v = v.unwrap_or(Value::Unknown);
    match remoteness {
        Some(r) if v != Value::Unknown => format!("{v} in {r}"),
        _ => v.to_string(),
    }
}

/// The text of `endgame hint pentago`.
fn hint_text(pos: &Position, a: &api::PentagoAnalysis) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "position     {}", a.position);
    s.push_str(&indent(&api::draw(pos)));
    let rotate = if a.detail.must_rotate {
        " (to rotate)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "to move      {}{rotate}, {} stones",
        a.to_move.as_deref().unwrap_or("-"),
        a.detail.stones
    );
    let by = match a.decided_by {
        Decided::Table => "solved table",
        Decided::Search => "exact search",
        Decided::Heuristic => "undecided, estimated",
        Decided::Undecided => "undecided",
    };
    let method = a
        .detail
        .method
        .as_deref()
        .map_or(String::new(), |m| format!(", {m}"));
    let _ = writeln!(
        s,
        "value        {} (for the player to move; {by}{method})",
        value_text(a.value, a.remoteness)
    );
    if let Some(e) = &a.estimate {
        let _ = writeln!(s, "estimate     {:+.3} ({})", e.score, e.by);
    }
    if let Some(r) = &a.reason {
        let _ = writeln!(s, "reason       {r}");
    }
    let _ = writeln!(
        s,
        "moves        {} (best first; value for the mover)",
        a.moves.len()
    );
    for m in &a.moves {
        let what = match &m.estimate {
            Some(e) => format!("estimate {:+.3}", e.score),
            None => value_text(m.value, m.remoteness),
        };
        let _ = writeln!(
            s,
            "  {:<10} {:<16} {:<7} {}",
            m.mv,
            what,
            m.colour.as_str(),
            m.after
        );
    }
    if !a.line.is_empty() {
        let _ = writeln!(s, "line         {}", a.line.join(", "));
    }
    let _ = writeln!(s, "time         {:.1} ms", a.time_ms);
    s
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}
