//! Human-readable rendering of the reports, and the terminal play loop of
//! `endgame play sim|pentago` ([`play_sim`], [`play_pentago`]). The
//! rendering functions return the whole text; the loop reads a human's
//! lines, explains a refused one and asks again, and keeps the history for
//! `undo`. The rules, the checks of the moves and the pictures are the
//! games' crates'.

use crate::output::Output;
use crate::peg::BoardInfo;
use crate::pentago::PlayPentago;
use crate::sim::PlaySim;
use anyhow::{anyhow, bail, Context, Result};
use endgame_core::budget::Budget;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Game, Notation, Rules, Value};
use endgame_peg::api::parse_position;
use endgame_peg::api::Board;
use endgame_peg::api::{CountReport, Method, SolveReport};
use endgame_pentago::api as pentago;
use endgame_sim::api::{self as sim_api, Sim, SimPos};
use endgame_sim::api::{picture as sim_picture, Triangle};
use serde::Serialize;
use std::fmt::Write;
use std::io::BufRead;

/// Width of the label column.
const LABEL: usize = 13;
/// Moves per line when a line of moves is listed.
const MOVES_PER_ROW: usize = 10;
/// Final positions drawn by `count` (all of them are in the JSON).
const DRAWN_FINALS: usize = 4;

/// The text of `endgame solve peg`.
pub fn solve(board: &Board, r: &SolveReport) -> String {
    let mut out = String::new();
    field(&mut out, "board", &board_line(board));
    field(&mut out, "start", &pegs(count_pegs(&r.start)));
    out.push_str(&drawing(board, &r.start));
    field(&mut out, "goal", &r.goal);
    field(&mut out, "method", method_name(r.method));
    match r.solvable {
        Some(true) => {
            field(&mut out, "result", "solvable");
            field(&mut out, "solution", &moves(r.line.len()));
            out.push_str(&move_rows(&r.line));
        }
        Some(false) => {
            let reason = r.reason.as_deref().unwrap_or("no line reaches the goal");
            field(&mut out, "result", &format!("impossible: {reason}"));
            best(&mut out, board, r, "best result");
        }
        None if r.method == Method::Genetic => {
            field(
                &mut out,
                "result",
                "not solved (the genetic search cannot prove impossibility)",
            );
            best(&mut out, board, r, "best found");
        }
        None => {
            field(&mut out, "result", "undecided within the budget");
            best(&mut out, board, r, "best found");
        }
    }
    field(&mut out, "expansions", &group(&r.expansions.to_string()));
    field(&mut out, "time", &time(r.time_ms));
    field(&mut out, "peak memory", &memory(r.peak_memory_bytes));
    out
}

/// The best result of an unsolved problem, the line to it and its end.
fn best(out: &mut String, board: &Board, r: &SolveReport, label: &str) {
    let proven = if r.best_proven { " (proven best)" } else { "" };
    let line = if r.line.is_empty() {
        "no move made".to_string()
    } else {
        moves(r.line.len())
    };
    field(
        out,
        label,
        &format!("{}{proven}, {line}", pegs_left(r.pegs_left)),
    );
    out.push_str(&move_rows(&r.line));
    if !r.line.is_empty() {
        field(out, "end", &pegs(r.pegs_left));
        out.push_str(&drawing(board, &r.end));
    }
}

/// The text of `endgame count peg`.
pub fn count(board: &Board, r: &CountReport) -> String {
    let mut out = String::new();
    field(&mut out, "board", &board_line(board));
    field(&mut out, "start", &pegs(count_pegs(&r.start)));
    out.push_str(&drawing(board, &r.start));
    field(&mut out, "goal", &r.goal);
    field(
        &mut out,
        "symmetry",
        &format!(
            "counts up to the {} of the board's {} symmetries that fix start and goal",
            r.symmetries,
            board.symmetries().len()
        ),
    );
    out.push('\n');
    // A goal-only count visits only part of the graph: no raw column.
    let header: &[&str] = if r.complete {
        &[
            "pegs",
            "positions",
            "up to symmetry",
            "to goal",
            "to goal up to symmetry",
        ]
    } else {
        &[
            "pegs",
            "visited up to symmetry",
            "to goal",
            "to goal up to symmetry",
        ]
    };
    let row = |pegs: String, positions: u64, reduced: u64, to_goal: u64, to_goal_reduced: u64| {
        let mut row = vec![pegs];
        if r.complete {
            row.push(group(&positions.to_string()));
        }
        row.push(group(&reduced.to_string()));
        row.push(group(&to_goal.to_string()));
        row.push(group(&to_goal_reduced.to_string()));
        row
    };
    let mut rows: Vec<Vec<String>> = r
        .layers
        .iter()
        .map(|l| {
            row(
                l.pegs.to_string(),
                l.positions,
                l.positions_reduced,
                l.to_goal,
                l.to_goal_reduced,
            )
        })
        .collect();
    rows.push(row(
        "total".into(),
        r.total_positions,
        r.total_positions_reduced,
        r.total_to_goal,
        r.total_to_goal_reduced,
    ));
    out.push_str(&table(header, &rows));
    out.push('\n');
    let solutions = r.solutions.as_deref().map_or("not counted".into(), group);
    field(&mut out, "solutions", &solutions);
    if !r.complete {
        field(
            &mut out,
            "note",
            "goal-only count: the position columns cover only what the search visited",
        );
    }
    let result = if r.solvable {
        format!("solvable, {} at best", pegs_left(r.best_pegs))
    } else if r.complete {
        format!("impossible, best result {}", pegs_left(r.best_pegs))
    } else {
        "impossible (a goal-only count does not look for the best result: count without --goal-only)".into()
    };
    field(&mut out, "result", &result);
    let shown = if r.solvable || r.complete {
        r.final_positions.len().min(DRAWN_FINALS)
    } else {
        0
    };
    let listed = if (r.final_positions.len() as u64) < r.final_positions_reduced {
        format!(", {} listed in --json", r.final_positions.len())
    } else {
        String::new()
    };
    if r.solvable || r.complete {
        field(
            &mut out,
            "final",
            &format!(
                "{} positions with {} up to symmetry{listed}{}",
                group(&r.final_positions_reduced.to_string()),
                pegs(r.best_pegs),
                if shown > 0 {
                    format!(", {shown} drawn:")
                } else {
                    String::new()
                }
            ),
        );
    }
    if shown > 0 {
        let drawings: Vec<String> = r.final_positions[..shown]
            .iter()
            .map(|p| drawing(board, p))
            .collect();
        out.push_str(&side_by_side(&drawings, 4));
    }
    field(&mut out, "time", &time(r.time_ms));
    field(
        &mut out,
        "memory",
        &format!(
            "{} in layers at most, {} peak",
            memory(Some(r.table_bytes as u64)),
            memory(r.peak_memory_bytes)
        ),
    );
    out
}

/// The text of `endgame boards`.
pub fn boards(list: &[BoardInfo]) -> String {
    let mut out = String::new();
    for (i, b) in list.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        field(&mut out, &b.name, &b.description);
        let vacancies = match b.default_vacancies.as_slice() {
            [] => String::new(),
            [one] => format!(", default vacancy {one}"),
            many => format!(", default vacancies {}", many.join(" ")),
        };
        field(
            &mut out,
            "",
            &format!("{} holes, {} symmetries{vacancies}", b.holes, b.symmetries),
        );
        out.push('\n');
        out.push_str(&indent(&b.art, 4));
    }
    out.push_str("\nAlso: triangleN, the triangular board of side N (3 to 10).\n");
    out
}

/// `label` padded, then `value`, then a newline.
fn field(out: &mut String, label: &str, value: &str) {
    let _ = writeln!(out, "{label:LABEL$}{value}");
}

fn board_line(board: &Board) -> String {
    let diagonal = if board.diagonal() {
        ", diagonal jumps"
    } else {
        ""
    };
    format!("{}, {} holes{diagonal}", board.name(), board.holes())
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Dfs => "dfs (memoised depth-first search)",
        Method::Astar => "astar (best-first, weighted-cost heuristic)",
        Method::AstarManhattan => "astar-manhattan (best-first, Manhattan heuristic)",
        Method::Genetic => "genetic (weight vectors over hole classes)",
    }
}

/// A position drawn on its board, indented and framed by blank lines; the
/// notation itself if it does not fit the board.
fn drawing(board: &Board, position: &str) -> String {
    match parse_position(board, position) {
        Ok(pegs) => format!("\n{}\n", indent(&board.draw(|h| pegs[h]), 4)),
        Err(_) => format!("{:LABEL$}{position}\n", ""),
    }
}

fn count_pegs(position: &str) -> u32 {
    position.chars().filter(|&c| c == 'o').count() as u32
}

fn pegs(n: u32) -> String {
    if n == 1 {
        "1 peg".into()
    } else {
        format!("{n} pegs")
    }
}

fn pegs_left(n: u32) -> String {
    format!("{} left", pegs(n))
}

fn moves(n: usize) -> String {
    if n == 1 {
        "1 move".into()
    } else {
        format!("{n} moves")
    }
}

/// Moves numbered in rows: `   1  d2-d4 f3-d3 …`.
fn move_rows(line: &[String]) -> String {
    let mut out = String::new();
    for (i, row) in line.chunks(MOVES_PER_ROW).enumerate() {
        let _ = writeln!(out, "{:>6}  {}", i * MOVES_PER_ROW + 1, row.join(" "));
    }
    out
}

/// Digits grouped by thousands: `1234567` → `1,234,567`.
fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn time(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.3} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

fn memory(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        Some(b) if b < 10_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        Some(b) => format!("{:.2} GB", b as f64 / 1e9),
        None => "unknown".into(),
    }
}

fn indent(text: &str, n: usize) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{:n$}{l}\n", "")
            }
        })
        .collect()
}

/// Text blocks next to each other, `gap` spaces apart.
fn side_by_side(blocks: &[String], gap: usize) -> String {
    let lines: Vec<Vec<&str>> = blocks
        .iter()
        .map(|b| b.lines().collect::<Vec<_>>())
        .collect();
    let widths: Vec<usize> = lines
        .iter()
        .map(|ls| ls.iter().map(|l| l.chars().count()).max().unwrap_or(0))
        .collect();
    let height = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for row in 0..height {
        let mut line = String::new();
        for (ls, &w) in lines.iter().zip(&widths) {
            let cell = ls.get(row).copied().unwrap_or("");
            let _ = write!(line, "{cell:w$}{:gap$}", "");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A right-aligned table with a header row.
pub fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row.as_ref()) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = String::new();
    for (h, &w) in header.iter().zip(&widths) {
        let _ = write!(line, "  {h:>w$}");
    }
    out.push_str(&line);
    out.push('\n');
    for row in rows {
        line.clear();
        for (cell, &w) in row.as_ref().iter().zip(&widths) {
            let _ = write!(line, "  {cell:>w$}");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The single-vacancy study as a table, one line per problem.
pub fn study(r: &crate::peg::StudyReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<9} {:<6} {:<6} {:<11} {:<18} {:>12} {:>10}\n",
        "board", "vacate", "finish", "result", "decided by", "expansions", "time"
    ));
    for row in &r.rows {
        let result = match row.solvable {
            Some(true) => "solvable",
            Some(false) => "impossible",
            None => "undecided",
        };
        out.push_str(&format!(
            "{:<9} {:<6} {:<6} {:<11} {:<18} {:>12} {:>8.1}ms\n",
            row.board, row.vacate, row.finish, result, row.decided_by, row.expansions, row.time_ms
        ));
    }
    out.push_str(&format!(
        "\n{} problems: {} solvable, {} impossible, {} undecided, in {:.1} s\n",
        r.problems,
        r.solvable,
        r.impossible,
        r.undecided,
        r.time_ms / 1e3
    ));
    out
}

// ---------------------------------------------------------------------
// `endgame play`: the terminal play loop.

/// A game as the terminal loop plays it. The loop reads the humans'
/// lines (moves and the commands `undo`, `help`, `quit`), asks the AIs,
/// and keeps the history; the game's crate checks the moves and draws.
trait Table {
    type Pos: Copy;
    /// The two sides, the first mover first.
    const SIDES: [&'static str; 2];
    /// A move shown in the prompt.
    const EXAMPLE: &'static str;
    /// What `help` says of the move notation (one paragraph).
    fn notation(&self) -> String;
    /// Who is to move in `pos`: 0 or 1.
    fn side(&self, pos: &Self::Pos) -> usize;
    /// Whether an AI plays `side`.
    fn is_ai(&self, side: usize) -> bool;
    fn over(&self, pos: &Self::Pos) -> bool;
    /// The position drawn, several lines.
    fn picture(&self, pos: &Self::Pos) -> String;
    /// `pos` after the move written `text`, and the move as the notation
    /// writes it; an error (one line) saying why the move is refused.
    fn play(&self, pos: &Self::Pos, text: &str) -> Result<(Self::Pos, String)>;
    /// The move of the AI playing `pos`'s side to move.
    fn ai(&mut self, pos: &Self::Pos) -> Result<String>;
}

/// How a game in the terminal ended.
struct Played<P> {
    /// The moves of the game as it stands (taken-back ones dropped).
    moves: Vec<String>,
    /// The last position.
    pos: P,
    /// Whether the game reached its end (else: quit or end of input).
    finished: bool,
}

/// What the terminal prints: the boards and prompts on stdout unless
/// `--json`; the answers to refused lines and to `help` on stdout, or on
/// stderr with `--json` (stdout then holds the JSON report alone).
struct Terminal {
    json: bool,
}

impl Terminal {
    fn show(&self, text: &str) {
        if !self.json {
            print!("{text}");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
    }

    fn tell(&self, text: &str) {
        if self.json {
            eprint!("{text}");
        } else {
            self.show(text);
        }
    }
}

/// The text of `help`.
fn help<T: Table>(t: &T) -> String {
    format!(
        "commands:\n  \
         <move>  play it, e.g. `{}`\n  \
         undo    take back your last move and the reply to it\n  \
         help    this list\n  \
         quit    stop the game here (so does the end of the input)\n\
         moves: {}\n",
        T::EXAMPLE,
        t.notation()
    )
}

/// Plays from `start` to the end of the game, or until the humans' input
/// ends or they quit. A refused line is explained in one line and asked
/// again; `undo` goes back to the human's previous turn.
fn run<T: Table>(t: &mut T, start: T::Pos, out: Output) -> Result<Played<T::Pos>> {
    let term = Terminal { json: out.json };
    let mut lines = std::io::stdin().lock().lines();
    // Each move with the position it was played in.
    let mut history: Vec<(T::Pos, String)> = Vec::new();
    let mut pos = start;
    term.show(&format!("{}\n", t.picture(&pos)));
    while !t.over(&pos) {
        let side = t.side(&pos);
        let name = T::SIDES[side];
        let (next, mv) = if t.is_ai(side) {
            let text = t.ai(&pos)?;
            t.play(&pos, &text)
                .with_context(|| format!("the {name} AI's move {text}"))?
        } else {
            term.show(&format!(
                "{name} to move (e.g. `{}`; `help` for the commands): ",
                T::EXAMPLE
            ));
            let Some(line) = lines.next() else {
                term.show("\n");
                return Ok(stopped(history, pos));
            };
            let line = line.context("reading a move")?;
            let text = line.trim();
            match text.to_ascii_lowercase().as_str() {
                "" => continue,
                "help" | "?" => term.tell(&help(t)),
                "quit" | "exit" => return Ok(stopped(history, pos)),
                "undo" => {
                    // Back to the last position a human was to move in.
                    match history.iter().rposition(|(p, _)| !t.is_ai(t.side(p))) {
                        None => term.tell("nothing to undo: no move of yours has been played\n"),
                        Some(i) => {
                            let taken: Vec<String> = history[i..]
                                .iter()
                                .map(|(p, m)| format!("{} {m}", T::SIDES[t.side(p)]))
                                .collect();
                            pos = history[i].0;
                            history.truncate(i);
                            term.tell(&format!("took back {}\n", taken.join(", ")));
                            term.show(&format!("{}\n", t.picture(&pos)));
                        }
                    }
                }
                _ => match t.play(&pos, text) {
                    Ok(played) => {
                        term.show(&format!("{name} plays {}\n", played.1));
                        history.push((pos, played.1));
                        pos = played.0;
                        term.show(&format!("{}\n", t.picture(&pos)));
                    }
                    Err(e) => {
                        let why = format!("{e:#}")
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ");
                        term.tell(&format!(
                            "{why} (`help` lists the commands and the notation)\n"
                        ));
                    }
                },
            }
            continue;
        };
        term.show(&format!("{name} plays {mv}\n{}\n", t.picture(&next)));
        history.push((pos, mv));
        pos = next;
    }
    Ok(Played {
        moves: history.into_iter().map(|(_, m)| m).collect(),
        pos,
        finished: true,
    })
}

fn stopped<P>(history: Vec<(P, String)>, pos: P) -> Played<P> {
    Played {
        moves: history.into_iter().map(|(_, m)| m).collect(),
        pos,
        finished: false,
    }
}

fn moves_count(n: usize) -> String {
    if n == 1 {
        "1 move".into()
    } else {
        format!("{n} moves")
    }
}

/// Sim in the terminal.
struct SimTable {
    sim: Sim,
    players: [Option<Box<dyn Player<Sim>>>; 2],
}

impl Table for SimTable {
    type Pos = SimPos;
    const SIDES: [&'static str; 2] = ["red", "blue"];
    const EXAMPLE: &'static str = "ac";

    fn notation(&self) -> String {
        let n = self.sim.n();
        format!(
            "a move colours a segment, written as its two points, e.g. `ac` \
             (either order); the points are a to {} on K{n}, and the segment \
             in row b, column d of the table is `bd`. \
             Rules and notation: docs/sim.md",
            sim_picture::point_name(n - 1)
        )
    }

    fn side(&self, pos: &SimPos) -> usize {
        usize::from(!pos.red_to_move())
    }

    fn is_ai(&self, side: usize) -> bool {
        self.players[side].is_some()
    }

    fn over(&self, pos: &SimPos) -> bool {
        self.sim.outcome(pos).is_some()
    }

    fn picture(&self, pos: &SimPos) -> String {
        format!(
            "{}  {:<10}{}\n",
            sim_picture::draw(&self.sim, pos),
            "position",
            self.sim.format_position(pos)
        )
    }

    fn play(&self, pos: &SimPos, text: &str) -> Result<(SimPos, String)> {
        let next = self.sim.play_text(pos, text)?;
        let mv = self.sim.parse_move(text)?;
        Ok((next, self.sim.format_move(mv)))
    }

    fn ai(&mut self, pos: &SimPos) -> Result<String> {
        let side = self.side(pos);
        let ai = self.players[side]
            .as_mut()
            .ok_or_else(|| anyhow!("no AI plays {}", Self::SIDES[side]))?;
        let m = ai.choose(&self.sim, pos, &MoveLimits::default());
        Ok(self.sim.format_move(m))
    }
}

/// The report of `endgame play sim`.
#[derive(Debug, Serialize)]
pub struct SimGame {
    /// Points.
    pub n: usize,
    /// Misère rule.
    pub misere: bool,
    /// The segments coloured, in order (taken-back ones dropped).
    pub moves: Vec<String>,
    /// The last position.
    pub position: String,
    /// Whether the game reached its end (false: the humans quit or their
    /// input ended).
    pub finished: bool,
    /// `red` or `blue`; `null` for a draw or an unfinished game.
    pub winner: Option<&'static str>,
    /// The one-coloured triangles that ended the game (`abc`), usually
    /// one; several when the last segment closed more than one.
    pub triangles: Vec<String>,
}

/// `endgame play sim`: a game in the terminal, human or AI on each side.
/// A human's refused line (bad notation, a coloured segment) is explained
/// and asked again; `undo`, `help` and `quit` are commands; the end of
/// the input stops the game (exit status 0, `finished: false`).
pub fn play_sim(args: &PlaySim, out: Output) -> Result<String> {
    let (sim, start) = match args.position.as_deref() {
        Some(text) => {
            let (sim, pos) = Sim::parse_any(text, args.misere)?;
            if let Some(n) = args.n.filter(|&n| n != sim.n()) {
                bail!(
                    "--n {n} contradicts the position, whose {} segments make K{}",
                    sim.segments(),
                    sim.n()
                );
            }
            (sim, pos)
        }
        None => {
            let sim = Sim::new(args.n.unwrap_or(6), args.misere)?;
            let start = sim.start();
            (sim, start)
        }
    };
    let mut players: [Option<Box<dyn Player<Sim>>>; 2] = [None, None];
    for (i, name) in [&args.red, &args.blue].into_iter().enumerate() {
        if name != "human" {
            let seed = args.seed.wrapping_mul(2).wrapping_add(i as u64);
            players[i] = Some(sim_api::player(name, &sim, seed)?);
        }
    }
    let mut table = SimTable { sim, players };
    let played = run(&mut table, start, out)?;
    let sim = &table.sim;
    let pos = played.pos;
    let triangles = sim_picture::completed_triangles(sim, &pos);
    // The player to move in a finished position has the outcome's value.
    let (mover, other) = match pos.red_to_move() {
        true => ("red", "blue"),
        false => ("blue", "red"),
    };
    let winner = match sim.outcome(&pos) {
        Some(Value::Win) => Some(mover),
        Some(Value::Loss) => Some(other),
        _ => None,
    };
    let report = SimGame {
        n: sim.n(),
        misere: sim.misere(),
        moves: played.moves,
        position: sim.format_position(&pos),
        finished: played.finished,
        winner,
        triangles: triangles.iter().map(Triangle::name).collect(),
    };
    out.render(&report, |r| {
        let moves = moves_count(r.moves.len());
        if !r.finished {
            return format!(
                "stopped after {moves}, {mover} to move; to go on: --position {}\n",
                r.position
            );
        }
        let mut s = String::new();
        if let Some(t) = triangles.first() {
            let named: Vec<String> = triangles
                .iter()
                .map(|t| format!("{} ({})", t.name(), t.sides_text(sim)))
                .collect();
            let noun = if triangles.len() == 1 {
                "triangle"
            } else {
                "triangles"
            };
            let _ = writeln!(
                s,
                "{} completed the {noun} {}",
                t.colour(),
                named.join(" and ")
            );
        }
        match r.winner {
            Some(w) => {
                let _ = writeln!(s, "{w} wins after {moves}");
            }
            None => {
                let _ = writeln!(s, "a draw after {moves}");
            }
        }
        s
    })
}

/// Pentago in the terminal.
struct PentagoTable {
    players: [Option<pentago::Ai>; 2],
    budget: std::time::Duration,
}

impl Table for PentagoTable {
    type Pos = pentago::Position;
    const SIDES: [&'static str; 2] = ["black", "white"];
    const EXAMPLE: &'static str = "c4 ur cw";

    fn notation(&self) -> String {
        "a move places a stone, then turns a quadrant a quarter turn: \
         `c4 ur cw` (cells a1 to f6, file then rank; quadrants ll ul lr ur; \
         cw or ccw); a placement that makes five wins at once and is written \
         alone (`c4`); when only the rotation is due, `ur cw`. \
         Rules and notation: docs/pentago.md"
            .into()
    }

    fn side(&self, pos: &pentago::Position) -> usize {
        usize::from(!pos.black_to_move())
    }

    fn is_ai(&self, side: usize) -> bool {
        self.players[side].is_some()
    }

    fn over(&self, pos: &pentago::Position) -> bool {
        pos.outcome().is_some()
    }

    fn picture(&self, pos: &pentago::Position) -> String {
        pentago::draw(pos)
    }

    fn play(&self, pos: &pentago::Position, text: &str) -> Result<(pentago::Position, String)> {
        Ok(pentago::play(pos, text)?)
    }

    fn ai(&mut self, pos: &pentago::Position) -> Result<String> {
        let side = self.side(pos);
        let ai = self.players[side]
            .as_mut()
            .ok_or_else(|| anyhow!("no AI plays {}", Self::SIDES[side]))?;
        match ai.choose(pos, &Budget::time(self.budget))? {
            Some(m) => Ok(m.mv),
            None => bail!("the {} AI found no move", ai.strength()),
        }
    }
}

/// The report of `endgame play pentago`.
#[derive(Debug, Serialize)]
pub struct PentagoGame {
    /// The start position.
    pub start: String,
    /// The moves played (taken-back ones dropped).
    pub moves: Vec<String>,
    /// The last position.
    pub end: String,
    /// Whether the game reached its end (false: the humans quit or their
    /// input ended).
    pub finished: bool,
    /// `black`, `white` or `draw`; `null` for an unfinished game.
    pub winner: Option<&'static str>,
}

/// `endgame play pentago`: a game in the terminal. Human moves are read
/// from stdin one per line (so a game can be scripted); a refused line is
/// explained and asked again; `undo`, `help` and `quit` are commands; the
/// end of the input stops the game. The AIs are the web's (`api::Ai`),
/// one per AI side, each move within `--time-per-move`.
pub fn play_pentago(args: &PlayPentago, out: Output) -> Result<String> {
    let start = pentago::position_after::<&str>(args.position.as_deref(), &[], None)?;
    let mut players: [Option<pentago::Ai>; 2] = [None, None];
    for (i, name) in [&args.black, &args.white].into_iter().enumerate() {
        if name != "human" {
            let seed = args.seed.wrapping_mul(2).wrapping_add(i as u64);
            players[i] =
                Some(pentago::Ai::new(name, seed).context("players are `human` or an AI")?);
        }
    }
    let mut table = PentagoTable {
        players,
        budget: args.time_per_move,
    };
    let played = run(&mut table, start, out)?;
    let winner = match pentago::winner(&played.pos) {
        Some("none") => Some("draw"),
        w => w,
    };
    let report = PentagoGame {
        start: pentago::format_position(&start),
        moves: played.moves,
        end: pentago::format_position(&played.pos),
        finished: played.finished,
        winner,
    };
    out.render(&report, |r| {
        let n = r.moves.len();
        match r.winner {
            None => format!(
                "stopped after {}, {} to move; to go on: --position {}\n",
                moves_count(n),
                pentago::side_to_move(&played.pos),
                r.end
            ),
            Some("draw") => format!("a draw after {}\n", moves_count(n)),
            Some(w) => format!("{w} wins after {}\n", moves_count(n)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(group("0"), "0");
        assert_eq!(group("999"), "999");
        assert_eq!(group("1000"), "1,000");
        assert_eq!(group("29760"), "29,760");
        assert_eq!(group("1234567"), "1,234,567");
    }

    #[test]
    fn blocks_side_by_side() {
        let s = side_by_side(&["a\nbbb".into(), "cc\nd\ne".into()], 2);
        assert_eq!(s, "a    cc\nbbb  d\n     e\n");
    }

    #[test]
    fn tables_align_right() {
        let t = table(&["x", "yy"], &[["100".into(), "2".into()]]);
        assert_eq!(t, "    x  yy\n  100   2\n");
    }
}
