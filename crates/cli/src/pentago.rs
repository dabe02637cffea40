//! `endgame … pentago`: parsing done by clap, work done by endgame-pentago.

use crate::battle::parse_duration;
use crate::output::Output;
use crate::progress::Spinner;
use anyhow::{bail, Context, Result};
use clap::Args;
use endgame_core::analysis::Decided;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Rules, Value};
use endgame_pentago::api;
use endgame_pentago::notation::{draw, format_move, format_position, parse_move, parse_position};
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::BufRead;
use std::time::{Duration, Instant};

/// The method that gave the last answer of `solver`.
fn method(solver: &Solver) -> &'static str {
    if solver.last_was_retrograde() {
        "retrograde"
    } else {
        "alpha-beta"
    }
}
/// Default budget below 18 stones, where a solve may not finish.
const EARLY_TIME: Duration = Duration::from_secs(10);

/// `endgame solve pentago`.
#[derive(Debug, Args)]
pub struct SolvePentago {
    /// The position in the interchange notation (SPEC.md): a 64-bit
    /// number, `m` appended when the player to move must rotate.
    pub position: String,
    /// Time limit (`10s`, `500ms`); default none from 18 stones, 10 s before.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// Node limit.
    #[arg(long)]
    pub max_nodes: Option<u64>,
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
    /// 18 stones, is bounded by the time alone).
    #[arg(long)]
    pub max_nodes: Option<u64>,
}

/// `endgame play pentago`.
#[derive(Debug, Args)]
pub struct PlayPentago {
    /// Who plays black: `human` (moves read from stdin) or an AI
    /// (`random`, `seed`, `strong`).
    #[arg(long, default_value = "human")]
    pub black: String,
    /// Who plays white.
    #[arg(long, default_value = "strong")]
    pub white: String,
    /// Time per AI move (`100ms`, `1s`).
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub time_per_move: Duration,
    /// Seed of the AIs' generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start from this position instead of the empty board.
    #[arg(long)]
    pub position: Option<String>,
}

fn budget(pos: &Position, time: Option<Duration>, nodes: Option<u64>) -> Budget {
    let time = match (time, nodes) {
        (None, None) if pos.stones() < 18 => Some(EARLY_TIME),
        _ => time,
    };
    Budget { nodes, time }
}

/// A value as the public solver writes it: 1, 0, -1; `null` when unknown.
fn number(v: Value) -> Option<i8> {
    match v {
        Value::Win => Some(1),
        Value::Draw => Some(0),
        Value::Loss => Some(-1),
        Value::Unknown => None,
    }
}

fn side(pos: &Position) -> &'static str {
    if pos.black_to_move() {
        "black"
    } else {
        "white"
    }
}

/// The report of `endgame solve pentago`.
#[derive(Debug, Serialize)]
pub struct SolveReport {
    /// The position as given, normalised.
    pub position: String,
    /// Stones on the board.
    pub stones: u32,
    /// `black` or `white`.
    pub to_move: &'static str,
    /// Whether the player to move must rotate (the `m`).
    pub must_rotate: bool,
    /// 1 win, 0 draw, -1 loss for the player to move; null if unknown.
    pub value: Option<i8>,
    /// The same as a word.
    pub result: Value,
    /// Child notation → value for the child's player to move (children of
    /// a placement-due position are its placements, `…m`; of a `…m`
    /// position its rotations), null where unknown.
    pub children: BTreeMap<String, Option<i8>>,
    /// Nodes searched (alpha-beta nodes, plus the positions of a
    /// retrograde solve).
    pub nodes: u64,
    /// `alpha-beta` or `retrograde`: what gave the answer.
    pub method: &'static str,
    /// Wall time in milliseconds.
    pub time_ms: f64,
    /// Bytes of the alpha-beta's table.
    pub table_bytes: usize,
}

/// `endgame solve pentago`.
pub fn solve(args: &SolvePentago, out: Output) -> Result<String> {
    let pos = parse_position(&args.position)?;
    let mut solver = Solver::for_position(&pos);
    let spinner = Spinner::start(out.progress(), "solving");
    let t = Instant::now();
    let (v, kids) = solver.value_and_children(&pos, budget(&pos, args.time, args.max_nodes));
    let time_ms = t.elapsed().as_secs_f64() * 1e3;
    spinner.finish();
    let report = SolveReport {
        position: format_position(&pos),
        stones: pos.stones(),
        to_move: side(&pos),
        must_rotate: pos.must_rotate(),
        value: number(v),
        result: v,
        children: kids
            .iter()
            .map(|(c, v)| (format_position(c), number(*v)))
            .collect(),
        nodes: solver.nodes(),
        method: method(&solver),
        time_ms,
        table_bytes: solver.table_bytes(),
    };
    out.render(&report, |r| {
        let mut s = String::new();
        let _ = writeln!(s, "position     {}", r.position);
        s.push_str(&indent(&draw(&pos)));
        let rotate = if r.must_rotate { " (to rotate)" } else { "" };
        let _ = writeln!(s, "to move      {}{rotate}, {} stones", r.to_move, r.stones);
        let _ = writeln!(s, "value        {}", r.result);
        let _ = writeln!(
            s,
            "children     {} (value for the child's player to move)",
            r.children.len()
        );
        for (c, v) in &kids {
            let _ = writeln!(s, "  {:<22} {}", format_position(c), v);
        }
        let _ = writeln!(s, "nodes        {}", r.nodes);
        let _ = writeln!(s, "method       {}", r.method);
        let _ = writeln!(s, "time         {:.1} ms", r.time_ms);
        s
    })
}

/// `endgame hint pentago`: the analysis service's answer
/// (`endgame_pentago::api`), printed as is with `--json`.
pub fn hint(args: &HintPentago, out: Output) -> Result<String> {
    let pos = api::parse(&args.position)?;
    let budget = endgame_core::budget::Budget::time(args.time.unwrap_or(api::DEFAULT_TIME))
        .with_nodes(args.max_nodes.unwrap_or(api::DEFAULT_NODES));
    let spinner = Spinner::start(out.progress(), "weighing every move");
    let analysis = api::Service::new().analyze(&pos, &budget);
    spinner.finish();
    out.render(&analysis, |a| hint_text(&pos, a))
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
    s.push_str(&indent(&draw(pos)));
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

/// The report of `endgame play pentago`.
#[derive(Debug, Serialize)]
pub struct PlayReport {
    /// The start position.
    pub start: String,
    /// The moves played.
    pub moves: Vec<String>,
    /// The final position.
    pub end: String,
    /// `black`, `white` or `draw`.
    pub winner: &'static str,
}

/// `endgame play pentago`: a game in the terminal. Human moves are read
/// from stdin one per line (so a game can be scripted); the board is drawn
/// after every move unless `--json`.
pub fn play(args: &PlayPentago, out: Output) -> Result<String> {
    let start = match &args.position {
        Some(p) => parse_position(p)?,
        None => Pentago.start(),
    };
    let mut players: [Option<Box<dyn Player<Pentago>>>; 2] = [None, None];
    for (i, name) in [&args.black, &args.white].into_iter().enumerate() {
        if name != "human" {
            let seed = args.seed.wrapping_mul(2).wrapping_add(i as u64);
            players[i] = Some(
                endgame_pentago::player::by_name(name, seed)
                    .context("players are `human` or an AI")?,
            );
        }
    }
    let limits = MoveLimits {
        time: Some(args.time_per_move),
        nodes: None,
    };
    let mut pos = start;
    let mut moves = Vec::new();
    let mut lines = std::io::stdin().lock().lines();
    let show = |text: &str| {
        if !out.json {
            print!("{text}");
        }
    };
    show(&format!("{}\n", draw(&pos)));
    while pos.outcome().is_none() {
        let who = usize::from(!pos.black_to_move());
        let mv = match players[who].as_mut() {
            Some(ai) => ai.choose(&Pentago, &pos, &limits),
            None => loop {
                show(&format!("{} to move (e.g. `c4 ur cw`): ", side(&pos)));
                let _ = std::io::Write::flush(&mut std::io::stdout());
                let Some(line) = lines.next() else {
                    bail!("input ended before the game did");
                };
                let line = line.context("reading a move")?;
                if line.trim().is_empty() {
                    continue;
                }
                let m = parse_move(&line)?;
                Pentago.play_checked(&pos, m)?;
                break m;
            },
        };
        pos = Pentago.play_checked(&pos, mv)?;
        moves.push(format_move(mv));
        show(&format!(
            "{} plays {}\n{}\n",
            side_of(who),
            format_move(mv),
            draw(&pos)
        ));
    }
    let outcome = pos.outcome().expect("the loop ends at a finished game");
    let winner = match outcome {
        Value::Win => side(&pos),
        Value::Loss if pos.black_to_move() => "white",
        Value::Loss => "black",
        _ => "draw",
    };
    let report = PlayReport {
        start: format_position(&start),
        moves,
        end: format_position(&pos),
        winner,
    };
    out.render(&report, |r| match r.winner {
        "draw" => format!("draw after {} moves\n", r.moves.len()),
        w => format!("{w} wins after {} moves\n", r.moves.len()),
    })
}

fn side_of(i: usize) -> &'static str {
    ["black", "white"][i]
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}
