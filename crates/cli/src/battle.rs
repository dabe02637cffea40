//! `endgame battle GAME`: AI against AI for every two-player game. The
//! battle itself is `endgame_core::battle`; this module builds the players
//! by name, runs it with a progress bar and prints the seed's table.

use crate::output::Output;
use crate::progress::Bar;
use anyhow::{bail, Result};
use clap::Args;
use endgame_core::battle::{battle, BattleConfig, BattleReport, Tally, TimeStats};
use endgame_core::layered::Progress;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::Game;
use std::fmt::Write;
use std::time::Duration;

/// `endgame battle pentago|sim`.
#[derive(Debug, Args)]
pub struct BattleArgs {
    /// Player A (black in Pentago's seed table), by name.
    #[arg(long, visible_alias = "a")]
    pub black: String,
    /// Player B (white), by name.
    #[arg(long, visible_alias = "b")]
    pub white: String,
    /// Number of games; who starts alternates, A first.
    #[arg(long, default_value_t = 500)]
    pub games: usize,
    /// Time each player may spend on one move (`100ms`, `1s`, `0.5s`;
    /// a bare number is milliseconds).
    #[arg(long, value_parser = parse_duration)]
    pub time_per_move: Option<Duration>,
    /// Nodes each player may expand per move (players that search; with
    /// no time limit this makes a battle replay exactly).
    #[arg(long)]
    pub nodes_per_move: Option<u64>,
    /// Seed of the random openings and of the players' generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Uniformly random plies that open each game (so deterministic
    /// players do not replay one game).
    #[arg(long, default_value_t = 2)]
    pub opening: usize,
    /// Sim only: the number of points (K_n).
    #[arg(long)]
    pub n: Option<usize>,
    /// Sim only: the misère rule (completing a triangle of your colour
    /// wins).
    #[arg(long)]
    pub misere: bool,
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

/// `endgame battle pentago`.
pub fn pentago(args: &BattleArgs, out: Output) -> Result<String> {
    if args.n.is_some() || args.misere {
        bail!("--n and --misere are options of `battle sim`, not of pentago");
    }
    use endgame_pentago::api;
    let a = api::player(&args.black, args.seed.wrapping_mul(2))?;
    let b = api::player(&args.white, args.seed.wrapping_mul(2).wrapping_add(1))?;
    run(&api::Pentago, a, b, args, out, api::format_move)
}

/// `endgame battle sim`.
pub fn sim(args: &BattleArgs, out: Output) -> Result<String> {
    use endgame_core::Notation;
    use endgame_sim::api;
    let game = api::Sim::new(args.n.unwrap_or(6), args.misere)?;
    let a = api::player(&args.black, &game, args.seed.wrapping_mul(2))?;
    let b = api::player(
        &args.white,
        &game,
        args.seed.wrapping_mul(2).wrapping_add(1),
    )?;
    let fmt = |m| game.format_move(m);
    run(&game, a, b, args, out, fmt)
}

/// Runs a battle of any game and renders the report.
fn run<G: Game>(
    game: &G,
    mut a: Box<dyn Player<G>>,
    mut b: Box<dyn Player<G>>,
    args: &BattleArgs,
    out: Output,
    format: impl Fn(G::Move) -> String,
) -> Result<String> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = BattleConfig {
        games: args.games,
        seed: args.seed,
        opening_plies: args.opening,
        limits: MoveLimits {
            time: args.time_per_move,
            nodes: args.nodes_per_move,
        },
        max_plies: 0,
    };
    let bar = Bar::new(out.progress());
    bar.phase("games", args.games as u64);
    let report = battle(game, a.as_mut(), b.as_mut(), &config, format, |_| {
        bar.advance(1)
    });
    bar.finish();
    out.render(&report, text)
}

/// The seed's table: results overall, by who started and by seat, decision
/// times, and the score with its confidence interval.
fn text(r: &BattleReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} (A) against {} (B): {} games, seed {}, {} random opening plies",
        r.a, r.b, r.games, r.seed, r.opening_plies
    );
    let _ = writeln!(
        s,
        "\n{:<16} {:>8} {:>8} {:>8}",
        "", "A wins", "draws", "B wins"
    );
    let row = |s: &mut String, label: &str, t: &Tally| {
        let n = t.games().max(1) as f64;
        let _ = writeln!(
            s,
            "{label:<16} {:>8} {:>8} {:>8}    ({:.3} / {:.3} / {:.3})",
            t.a_wins,
            t.draws,
            t.b_wins,
            t.a_wins as f64 / n,
            t.draws as f64 / n,
            t.b_wins as f64 / n
        );
    };
    row(&mut s, "overall", &r.overall);
    row(&mut s, "A started", &r.a_started);
    row(&mut s, "B started", &r.b_started);
    let _ = writeln!(
        s,
        "\nby seat: first mover won {}, second mover won {}, {} drawn",
        r.by_seat.first_wins, r.by_seat.second_wins, r.by_seat.draws
    );
    let _ = writeln!(
        s,
        "A's score {:.3}, 95% confidence interval [{:.3}, {:.3}]",
        r.a_score, r.a_score_ci95[0], r.a_score_ci95[1]
    );
    let time = |s: &mut String, who: &str, t: &TimeStats| {
        let _ = writeln!(
            s,
            "{who} decision time: mean {:.1} ms, median {:.1} ms, max {:.1} ms over {} moves",
            t.mean_ms, t.median_ms, t.max_ms, t.decisions
        );
    };
    s.push('\n');
    time(&mut s, &format!("A ({})", r.a), &r.a_time);
    time(&mut s, &format!("B ({})", r.b), &r.b_time);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("250"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
    }
}
