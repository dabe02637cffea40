//! `endgame`: solve, count and analyse puzzles and games from the command
//! line. Parsing and printing only; the games' crates do the work.
//!
//! Every user error is one line `error: …` on stderr and exit status 2.
//! A solve whose budget (by default a time limit; `--no-limit` lifts it)
//! ran out prints what it knows and exits with status 3.

mod args;
mod battle;
mod cache;
mod human;
mod interrupt;
mod lab;
mod limits;
mod martello;
mod output;
mod peg;
mod pentago;
mod play;
mod progress;
mod serve;
mod sim;

use args::{BattleGame, Cli, Command, CountGame, HintGame, PlayGame, SolveGame, StudyGame};
use clap::error::ErrorKind;
use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// Exit status of every user error (clap's own as well).
const USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    // One place decides the cache directory: every service reads it from
    // `ENDGAME_CACHE` (set before any thread starts).
    if let Some(dir) = &cli.cache {
        if dir.as_os_str().is_empty() {
            return fail("--cache needs a directory");
        }
        std::env::set_var("ENDGAME_CACHE", dir);
    }
    let out = output::Output {
        json: cli.json,
        quiet: cli.quiet,
    };
    if matches!(
        cli.command,
        Command::Solve { .. } | Command::Count { .. } | Command::Hint { .. }
    ) {
        interrupt::install();
    }
    let result = match &cli.command {
        Command::Solve {
            game: SolveGame::Peg(a),
        } => peg::solve(a, out),
        Command::Count {
            game: CountGame::Peg(a),
        } => {
            // A one-shot count's process: freed layers go back to the
            // system at once (the goal-only route's peak; see the function).
            if a.goal_only {
                endgame_core::memory::fix_allocation_threshold();
            }
            peg::count(a, out)
        }
        Command::Hint {
            game: HintGame::Peg(a),
        } => peg::hint(a, out),
        Command::Study {
            game: StudyGame::Peg(a),
        } => peg::study(a, out),
        Command::Solve {
            game: SolveGame::Martello(a),
        } => martello::solve(a, out),
        Command::Hint {
            game: HintGame::Martello(a),
        } => martello::hint(a, out),
        Command::Study {
            game: StudyGame::Martello(a),
        } => martello::study(a, out),
        Command::Solve {
            game: SolveGame::Sim(a),
        } => sim::solve(a, out),
        Command::Hint {
            game: HintGame::Sim(a),
        } => sim::hint(a, out),
        Command::Count {
            game: CountGame::Sim(a),
        } => sim::count(a, out),
        Command::Solve {
            game: SolveGame::Pentago(a),
        } => pentago::solve(a, out),
        Command::Hint {
            game: HintGame::Pentago(a),
        } => pentago::hint(a, out),
        Command::Play {
            game: PlayGame::Pentago(a),
        } => play::pentago(a, out),
        Command::Play {
            game: PlayGame::Sim(a),
        } => play::sim(a, out),
        Command::Battle {
            game: BattleGame::Pentago(a),
        } => battle::pentago(a, out),
        Command::Battle {
            game: BattleGame::Sim(a),
        } => battle::sim(a, out),
        Command::Lab(a) => lab::run(a, out),
        Command::Serve(a) => serve::run(a, out),
        Command::Cache(a) => {
            let dir = endgame_core::cache::dir(None);
            let services = endgame_web::table_services(&dir);
            cache::run(a, out, dir, &services)
        }
        Command::Boards => peg::boards(out),
    };
    match result {
        Ok(text) => print(&text),
        Err(e) => match e.downcast_ref::<output::Incomplete>() {
            Some(output::Incomplete(text)) => match print(text) {
                c if c == ExitCode::SUCCESS => ExitCode::from(output::INCOMPLETE),
                c => c,
            },
            // An error after Ctrl-C (a cluster's peer that ended on it
            // first) is the interrupt, not a fault.
            None if endgame_core::budget::interrupted() => {
                eprintln!("error: interrupted");
                ExitCode::from(130)
            }
            None => fail(&format!("{e:#}")),
        },
    }
}

/// Writes the report; a closed pipe (`| head`) is not an error.
fn print(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("writing the report: {e}")),
    }
}

/// Prints `error: <message>` as one line and returns the usage status.
fn fail(message: &str) -> ExitCode {
    let one_line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    eprintln!("error: {one_line}");
    ExitCode::from(USAGE)
}

/// Help and version go to stdout with success; clap's usage errors become
/// one `error:` line (its usage block and "try --help" dropped).
fn clap_exit(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        _ => {
            let rendered = e.render().to_string();
            let message: Vec<String> = rendered
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:"))
                .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
                .map(|l| match l.starts_with("tip:") {
                    true => format!("({l})"),
                    false => l.to_string(),
                })
                .collect();
            let message = message.join(" ");
            fail(message.strip_prefix("error:").unwrap_or(&message).trim())
        }
    }
}
