//! The command line grammar (clap derive). Parsing only: turning the
//! arguments into a problem is `peg.rs`'s job.

use crate::battle::{BattlePentago, BattleSim};
use crate::cache::CacheArgs;
use crate::lab::LabArgs;
use crate::limits::parse_size;
use crate::martello::{HintMartello, SolveMartello, StudyMartello};
use crate::pentago::{HintPentago, SolvePentago};
use crate::play::{PlayPentago, PlaySim};
use crate::serve::ServeArgs;
use crate::sim::{CountSim, HintSim, SolveSim};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Solve, count and analyse puzzles and games.
#[derive(Debug, Parser)]
#[command(name = "endgame", version, about, max_term_width = 100)]
// A missing subcommand is a one-line error like any other, not a help page.
#[command(arg_required_else_help = false)]
pub struct Cli {
    /// Print the report as JSON instead of text.
    #[arg(long, global = true, display_order = 900)]
    pub json: bool,
    /// No progress on stderr: no bars or spinners on a terminal, no plain
    /// progress lines (every 5 s) when stderr is a file or a pipe.
    #[arg(long, short, global = true, display_order = 901)]
    pub quiet: bool,
    /// Directory of the solved tables (default: $ENDGAME_CACHE, else the
    /// user's cache directory, e.g. ~/.cache/endgame).
    #[arg(long, global = true, value_name = "DIR", display_order = 902)]
    pub cache: Option<std::path::PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve a position exactly (peg, Martello, Sim, Pentago).
    ///
    /// For the puzzles (peg solitaire, Martello): a line to the goal, or
    /// the proof that none exists with the best result and a line to it.
    /// For the games (Sim, Pentago): the value for the player to move, and
    /// a best move.
    #[command(arg_required_else_help = false)]
    Solve {
        /// The game.
        #[command(subcommand)]
        game: SolveGame,
    },
    /// Enumerate every reachable position (peg, Sim).
    ///
    /// Peg solitaire: the positions layer by layer, those that still reach
    /// the goal, the number of solutions and the best result. Sim: the
    /// positions up to isomorphism move by move with their values.
    #[command(arg_required_else_help = false)]
    Count {
        /// The game.
        #[command(subcommand)]
        game: CountGame,
    },
    /// Every legal move of a position with its value (peg, Martello, Sim,
    /// Pentago).
    ///
    /// For the puzzles (peg solitaire, Martello): whether the goal stays
    /// reachable after the move, and the best result otherwise. For the
    /// games (Sim, Pentago): win, loss or draw for the mover, with the
    /// moves to the end.
    #[command(arg_required_else_help = false)]
    Hint {
        /// The game.
        #[command(subcommand)]
        game: HintGame,
    },
    /// Run a study of many problems (peg, Martello).
    ///
    /// Peg solitaire: every single-vacancy problem of the chosen boards
    /// (finish anywhere, and finish in the vacated hole), each answered
    /// with a solution or the reason none exists. Martello: the
    /// random-board study of Graf's Martello report (docs/martello.md).
    #[command(arg_required_else_help = false)]
    Study {
        /// The game.
        #[command(subcommand)]
        game: StudyGame,
    },
    /// Play one AI against another, many games, and report the score
    /// (Sim, Pentago).
    #[command(arg_required_else_help = false)]
    Battle {
        /// The game.
        #[command(subcommand)]
        game: BattleGame,
    },
    /// Play a game in the terminal, human or AI on either side (Sim,
    /// Pentago).
    #[command(arg_required_else_help = false)]
    Play {
        /// The game.
        #[command(subcommand)]
        game: PlayGame,
    },
    /// Reproducible experiments and their results store.
    Lab(LabArgs),
    /// Start the web workbench: play every game in the browser with hints.
    Serve(ServeArgs),
    /// The solved tables kept on disk: list, build or clear them.
    Cache(CacheArgs),
    /// List the built-in boards with their ASCII art.
    Boards,
}

/// Games `study` knows.
#[derive(Debug, Subcommand)]
pub enum StudyGame {
    /// Peg solitaire: the single-vacancy study.
    Peg(StudyPeg),
    /// Martello: the random-board study of Graf's Martello report.
    Martello(StudyMartello),
}

/// `endgame study peg`.
#[derive(Debug, Args)]
pub struct StudyPeg {
    /// Built-in boards to study, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "english,french,triangle")]
    pub boards: Vec<String>,
    /// Allow diagonal jumps.
    #[arg(long)]
    pub diagonal: bool,
    /// Most positions expanded per problem before it is reported undecided.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_expansions: Option<u64>,
    /// Time limit of the whole study (`600s`): the problems not decided by
    /// then are undecided, and the exit status is 3.
    #[arg(long, value_name = "TIME", default_value = "600s",
          value_parser = crate::limits::parse_duration)]
    pub time: std::time::Duration,
    /// No time limit (the expansion and memory limits still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Memory budget of each problem's memo (`512M`, `2G`): a full memo
    /// replaces old positions instead of growing.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    pub max_memory: u64,
}

/// Games `solve` knows.
#[derive(Debug, Subcommand)]
pub enum SolveGame {
    /// Peg solitaire.
    Peg(SolvePeg),
    /// Martello: minimum stone count and a line reaching it.
    Martello(SolveMartello),
    /// Sim on K_n: value, remoteness and best move.
    Sim(SolveSim),
    /// Pentago: exact value of a position and of each child.
    Pentago(SolvePentago),
}

/// Games `count` knows.
// Parsed once per command: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum CountGame {
    /// Peg solitaire.
    Peg(CountPeg),
    /// Sim on K_n: reachable positions up to isomorphism.
    Sim(CountSim),
}

/// Games `hint` knows.
#[derive(Debug, Subcommand)]
pub enum HintGame {
    /// Peg solitaire.
    Peg(HintPeg),
    /// Martello: every operation with the minimum stone count after it.
    Martello(HintMartello),
    /// Sim: every legal move with value and remoteness.
    Sim(HintSim),
    /// Pentago: every move with its value, best first.
    Pentago(HintPentago),
}

/// Games `battle` knows.
#[derive(Debug, Subcommand)]
pub enum BattleGame {
    /// Pentago: players black and white.
    Pentago(BattlePentago),
    /// Sim on K_n: players red and blue.
    Sim(BattleSim),
}

/// Games `play` knows.
#[derive(Debug, Subcommand)]
pub enum PlayGame {
    /// Pentago in the terminal.
    Pentago(PlayPentago),
    /// Sim on K_n in the terminal.
    Sim(PlaySim),
}

/// A peg-solitaire problem: board, start, goal, pruning.
#[derive(Debug, Args)]
pub struct PegProblem {
    /// A built-in board (see `endgame boards`).
    #[arg(long, default_value = "english", conflicts_with = "art")]
    pub board: String,
    /// A board drawn as ASCII art ('o' peg, '.' hole, space no hole; rows
    /// separated by newlines or '/'), or a file holding it ('-': stdin).
    #[arg(long, value_name = "FILE_OR_TEXT")]
    pub art: Option<String>,
    /// Allow diagonal jumps (square boards).
    #[arg(long)]
    pub diagonal: bool,
    /// Holes to empty at the start, all others full (default: the board's
    /// drawn vacancies).
    #[arg(long, value_name = "HOLES", value_delimiter = ',')]
    pub vacate: Vec<String>,
    /// The whole start position, rows of 'o' and '.' separated by '/'.
    #[arg(long, value_name = "POS", conflicts_with = "vacate")]
    pub position: Option<String>,
    /// The goal: a hole (one peg there), `any` (one peg anywhere), or
    /// holes separated by ',' (pegs exactly there). Default: the vacated
    /// hole if there is one, else anywhere.
    #[arg(long, value_name = "GOAL")]
    pub finish: Option<String>,
    /// Do not prune with pagoda functions.
    #[arg(long)]
    pub no_pagoda: bool,
    /// Do not prune with position classes.
    #[arg(long)]
    pub no_classes: bool,
}

/// `endgame solve peg`.
#[derive(Debug, Args)]
pub struct SolvePeg {
    #[command(flatten)]
    pub problem: PegProblem,
    /// The search method.
    #[arg(long, value_enum, default_value_t = MethodArg::Dfs)]
    pub method: MethodArg,
    /// Random seed (genetic search).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Most positions to expand before giving up.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_expansions: Option<u64>,
    /// Time limit (`2s`, `500ms`; default: 60s). The search stops itself
    /// there, undecided, and the exit status is 3.
    #[arg(long, value_parser = crate::limits::parse_duration, conflicts_with = "no_limit")]
    pub time: Option<std::time::Duration>,
    /// No time limit (the node and memory limits still hold).
    #[arg(long)]
    pub no_limit: bool,
    /// Memory budget of the search's memo (`512M`, `2G`): a full memo
    /// replaces old positions instead of growing, so the search goes on
    /// within it.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    pub max_memory: u64,
}

/// `endgame count peg`.
#[derive(Debug, Args)]
pub struct CountPeg {
    #[command(flatten)]
    pub problem: PegProblem,
    /// Memory budget of the stored layers, e.g. 512M or 8G. The default
    /// keeps the French central count under 4 GB of resident memory.
    #[arg(long, value_name = "SIZE", default_value = "3.5G", value_parser = parse_size)]
    pub max_memory: u64,
    /// Only the positions that can reach the goal, and the solutions: the
    /// search runs from both ends and meets in the middle, skipping most
    /// of the reachable graph (the position columns then count only what
    /// it visited).
    #[arg(long)]
    pub goal_only: bool,
    /// With --goal-only, skip counting the solutions.
    #[arg(long, requires = "goal_only")]
    pub no_solutions: bool,
    /// Worker threads (1 to 1024; default: all cores, or RAYON_NUM_THREADS).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=endgame_peg::api::MAX_THREADS as u64))]
    pub threads: Option<u64>,
    /// Count across N processes on this machine (1 to 64), one thread
    /// each, joined over loopback: the command starts N-1 copies of
    /// itself and prints the same report as one process.
    #[arg(long, value_name = "N", conflicts_with_all = ["threads", "hosts"],
          value_parser = clap::value_parser!(u64)
              .range(1..=endgame_cluster::MAX_LOCAL_PROCESSES as u64))]
    pub workers: Option<u64>,
    /// Count across the processes of a host file (one host:port a line,
    /// process 0 first), this one being --process I: start one on each
    /// line; process 0 prints the report, the others nothing.
    #[arg(
        long,
        value_name = "FILE",
        requires = "process",
        conflicts_with = "threads"
    )]
    pub hosts: Option<std::path::PathBuf>,
    /// This process's line of the --hosts file, from 0.
    #[arg(long, value_name = "I", requires = "hosts",
          value_parser = clap::value_parser!(u64)
              .range(0..endgame_cluster::MAX_PROCESSES as u64))]
    pub process: Option<u64>,
    /// How long a process waits for its peers to answer when the cluster
    /// forms (`30s`, `2s`): a peer that never comes is then an error.
    #[arg(long, value_name = "TIME", default_value = "30s",
          value_parser = crate::limits::parse_duration)]
    pub connect_timeout: std::time::Duration,
    /// With --workers or --hosts: each process writes its share of every
    /// finished layer to this directory (created if missing), and a count
    /// restarted with the same directory resumes after the last layer
    /// every process finished. A directory holding another count's
    /// layers is refused.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<std::path::PathBuf>,
    /// With --workers or --hosts, a full count: a layer that would not
    /// fit --max-memory (per process) goes to disk and is read back in
    /// order; into the --checkpoint directory, else a temporary one.
    /// The files are removed when the count ends (also on Ctrl-C).
    #[arg(long)]
    pub spill: bool,
    /// With --workers or --hosts: one line per layer on stderr from
    /// process 0 (positions, what the exchange sent, rate), also when
    /// stderr is not a terminal (on a terminal they show by default),
    /// and with --quiet.
    #[arg(long)]
    pub progress: bool,
    /// Also the exact probability that uniformly random legal play from
    /// the start reaches the goal.
    #[arg(long)]
    pub random_success: bool,
    /// Also the canonical paths: distinct sequences of positions up to
    /// symmetry from the start to the goal, consecutive ones joined by a
    /// jump.
    #[arg(long)]
    pub canonical_paths: bool,
    /// Also the move sets: solutions that make the same jumps the same
    /// number of times count once.
    #[arg(long)]
    pub move_sets: bool,
    /// Time limit (`600s`): past it the count stops, says so, and the
    /// exit status is 3 (as when the memory budget runs out).
    #[arg(long, value_name = "TIME", default_value = "600s",
          value_parser = crate::limits::parse_duration)]
    pub time: std::time::Duration,
    /// No time limit (the memory budget still holds).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
}

/// `endgame hint peg`.
#[derive(Debug, Args)]
pub struct HintPeg {
    /// The position (with `--position`) and the goal.
    #[command(flatten)]
    pub problem: PegProblem,
    /// Count the solutions through each move when the position has at most
    /// this many pegs.
    #[arg(long, value_name = "N", default_value_t = 26)]
    pub count_limit: u32,
    /// Most positions to expand per move when deciding it without a count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_expansions: Option<u64>,
    /// Time for the whole hint (`2s`, `500ms`; default: the analysis
    /// service's, 5s); moves not decided by then are undecided.
    #[arg(long, value_parser = crate::limits::parse_duration)]
    pub time: Option<std::time::Duration>,
    /// No time limit (the node and memory limits still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Memory budget of the searches' memos and tables (`512M`, `2G`).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub max_memory: u64,
}

/// `--method` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Memoised depth-first search (exact).
    Dfs,
    /// Best-first search, weighted-cost heuristic.
    Astar,
    /// Best-first search, Manhattan heuristic.
    AstarManhattan,
    /// Genetic search over hole weights (cannot prove impossibility).
    Genetic,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn grammar_is_consistent() {
        Cli::command().debug_assert();
    }
}
