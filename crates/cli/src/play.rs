//! `endgame play sim|pentago`: the terminal play loop ([`sim`],
//! [`pentago`]). The loop reads a human's lines, explains a refused one
//! and asks again, and keeps the history for `undo`. The rules, the checks
//! of the moves and the pictures are the games' crates'.

use crate::limits::parse_duration;
use crate::output::Output;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use endgame_core::budget::Budget;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Game, Notation, Rules, Value};
use endgame_pentago::api as pentago;
use endgame_sim::api::{self as sim_api, Sim, SimPos};
use endgame_sim::api::{picture as sim_picture, Triangle};
use serde::Serialize;
use std::fmt::Write;
use std::io::BufRead;
use std::time::Duration;

/// `endgame play sim`.
#[derive(Debug, Args)]
pub struct PlaySim {
    /// Who plays red (first): `human` (moves read from stdin, e.g. `ac`)
    /// or an AI (`perfect`, `random`, `avoid`, `search`).
    #[arg(long, default_value = "human")]
    pub red: String,
    /// Who plays blue.
    #[arg(long, default_value = "perfect")]
    pub blue: String,
    /// Number of points (3 to 8) when no position is given.
    #[arg(long)]
    pub n: Option<usize>,
    /// Completing your own triangle wins instead of losing.
    #[arg(long)]
    pub misere: bool,
    /// Start from this position instead of the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// Seed of the AIs' generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `endgame play pentago`.
#[derive(Debug, Args)]
pub struct PlayPentago {
    /// Who plays black: `human` (moves read from stdin) or an AI
    /// (`random`, `reference` = the AI of Pinton and de Carvalho's slides,
    /// `strong`; see `endgame battle pentago --help`).
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
pub fn sim(args: &PlaySim, out: Output) -> Result<String> {
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
pub fn pentago(args: &PlayPentago, out: Output) -> Result<String> {
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
