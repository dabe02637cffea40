//! `endgame battle GAME`: AI against AI for every two-player game. The
//! battle itself is `endgame_core::battle`; this module builds the players
//! by name, runs it with progress on stderr and prints the table of
//! results (the layout of the 500-game battle in Pinton and de Carvalho's
//! slides "Programming Pentago with Matlab", see `docs/pentago.md`).

use crate::limits::parse_duration;
use crate::output::{duration, Output};
use crate::progress::Bar;
use anyhow::{bail, Result};
use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::Args;
use endgame_core::battle::{battle, BattleConfig, BattleReport, Tally, TimeStats};
use endgame_core::layered::Progress;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::Game;
use std::fmt::Write;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The options every `battle` shares.
#[derive(Debug, Args)]
pub struct BattleCommon {
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
    /// Time limit of the whole battle (`600s`): past it the battle stops,
    /// reports the games played, and the exit status is 3.
    #[arg(long, value_name = "TIME", default_value = "3600s", value_parser = parse_duration)]
    pub time: Duration,
    /// No time limit for the whole battle (the per-move limits still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Memory a player's decision may take beyond its fixed tables (`2G`,
    /// `512M`): Pentago's `strong` searches instead of an exact solve
    /// whose layers would not fit it.
    #[arg(long, value_name = "SIZE", default_value = "4G",
          value_parser = crate::limits::parse_size)]
    pub max_memory: u64,
}

/// The Pentago players (`endgame_pentago::api::PLAYER_NAMES`), described.
pub const PENTAGO_PLAYERS: &[(&str, &str)] = &[
    ("random", "a uniformly random legal move"),
    (
        "reference",
        "the AI of Pinton and de Carvalho's slides: alpha-beta two plies deep (docs/pentago.md)",
    ),
    (
        "strong",
        "iterative-deepening alpha-beta with a transposition table; from 16 stones it gives part \
         of its time to the exact solver",
    ),
];

/// The Sim players (`endgame_sim::api::PLAYERS`), described.
pub const SIM_PLAYERS: &[(&str, &str)] = &[
    (
        "perfect",
        "the exact solver's move: the fastest win, else the slowest loss",
    ),
    ("random", "a uniformly random legal move"),
    (
        "avoid",
        "never completes a triangle of its own colour while another move exists (under \
         --misere it completes one when it can), else random: the simple AI of erik's Cassis \
         article (docs/sim.md)",
    ),
    (
        "search",
        "alpha-beta four plies deep; `search:D` searches D plies (1 to 28)",
    ),
];

/// A player's name: any text (the game's crate checks it and lists the
/// names in its error), with the known names offered as possible values
/// in `--help` and shell completions.
#[derive(Clone, Copy, Debug)]
pub struct PlayerName(&'static [(&'static str, &'static str)]);

impl TypedValueParser for PlayerName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0
                .iter()
                .map(|&(name, help)| PossibleValue::new(name).help(help)),
        ))
    }
}

/// `endgame battle pentago`.
#[derive(Debug, Args)]
pub struct BattlePentago {
    /// Player A, "Black" as in the battle table of Pinton and de
    /// Carvalho's slides. Who starts alternates: A makes the first move of
    /// the first, third, … game, B of the others.
    #[arg(long, visible_alias = "a", value_name = "PLAYER",
          value_parser = PlayerName(PENTAGO_PLAYERS))]
    pub black: String,
    /// Player B, "White".
    #[arg(long, visible_alias = "b", value_name = "PLAYER",
          value_parser = PlayerName(PENTAGO_PLAYERS))]
    pub white: String,
    #[command(flatten)]
    pub common: BattleCommon,
}

/// `endgame battle sim`.
#[derive(Debug, Args)]
pub struct BattleSim {
    /// Player A, "Red". Who starts alternates: A makes the first move of
    /// the first, third, … game, B of the others.
    #[arg(long, visible_alias = "a", alias = "black", value_name = "PLAYER",
          value_parser = PlayerName(SIM_PLAYERS))]
    pub red: String,
    /// Player B, "Blue".
    #[arg(long, visible_alias = "b", alias = "white", value_name = "PLAYER",
          value_parser = PlayerName(SIM_PLAYERS))]
    pub blue: String,
    /// The number of points (K_n, 3 to 8).
    #[arg(long, default_value_t = 6)]
    pub n: usize,
    /// The misère rule (completing a triangle of your colour wins).
    #[arg(long)]
    pub misere: bool,
    #[command(flatten)]
    pub common: BattleCommon,
}

/// `endgame battle pentago`.
pub fn pentago(args: &BattlePentago, out: Output) -> Result<String> {
    use endgame_pentago::api;
    let seed = args.common.seed;
    let a = api::player(&args.black, seed.wrapping_mul(2))?;
    let b = api::player(&args.white, seed.wrapping_mul(2).wrapping_add(1))?;
    let sides = Sides {
        task: "battle pentago",
        a: "black",
        b: "white",
    };
    run(
        &api::Pentago,
        a,
        b,
        &args.common,
        sides,
        out,
        api::format_move,
    )
}

/// `endgame battle sim`.
pub fn sim(args: &BattleSim, out: Output) -> Result<String> {
    use endgame_core::Notation;
    use endgame_sim::api;
    let game = api::Sim::new(args.n, args.misere)?;
    let seed = args.common.seed;
    let a = api::player(&args.red, &game, seed.wrapping_mul(2))?;
    let b = api::player(&args.blue, &game, seed.wrapping_mul(2).wrapping_add(1))?;
    let sides = Sides {
        task: "battle sim",
        a: "red",
        b: "blue",
    };
    let fmt = |m| game.format_move(m);
    run(&game, a, b, &args.common, sides, out, fmt)
}

/// What the report calls the command and the two players.
#[derive(Clone, Copy)]
struct Sides {
    task: &'static str,
    a: &'static str,
    b: &'static str,
}

/// Runs a battle of any game and renders the report.
fn run<G: Game>(
    game: &G,
    mut a: Box<dyn Player<G>>,
    mut b: Box<dyn Player<G>>,
    args: &BattleCommon,
    sides: Sides,
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
            memory: Some(args.max_memory),
        },
        max_plies: 0,
    };
    let started = std::time::Instant::now();
    let bar = Bar::new(out.progress_mode(), sides.task);
    bar.phase("games", args.games as u64);
    // The battle has no deadline of its own: the watchdog ends it there.
    let played = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let seen = played.clone();
    let games = args.games as u64;
    let _watchdog = (!args.no_limit).then(|| {
        crate::limits::Watchdog::arm_with(
            started,
            args.time,
            out,
            sides.task.to_string(),
            Box::new(move || {
                vec![
                    ("games_played", seen.load(Ordering::Relaxed).into()),
                    ("games", games.into()),
                ]
            }),
        )
    });
    let report = battle(game, a.as_mut(), b.as_mut(), &config, format, |_| {
        played.fetch_add(1, Ordering::Relaxed);
        bar.advance(1)
    });
    bar.finish();
    out.render(&report, |r| text(r, sides))
}

/// The table: results overall, by who started and by seat, decision
/// times, the score with its confidence interval and the battle's time.
fn text(r: &BattleReport, sides: Sides) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} (A, {}) against {} (B, {}): {} games, seed {}, {} random opening plies",
        r.a, sides.a, r.b, sides.b, r.games, r.seed, r.opening_plies
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
        "A's score {:.3} (a draw counts half), 95% confidence interval [{:.3}, {:.3}] (Wilson)",
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
    let _ = writeln!(
        s,
        "whole battle: {} ({} games)",
        duration(r.time_ms),
        r.games
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The described players are exactly the games' own.
    #[test]
    fn described_players_are_the_games_players() {
        fn names(p: &[(&'static str, &'static str)]) -> Vec<&'static str> {
            p.iter().map(|&(n, _)| n).collect()
        }
        assert_eq!(names(SIM_PLAYERS), endgame_sim::api::PLAYERS);
        assert_eq!(names(PENTAGO_PLAYERS), endgame_pentago::api::PLAYER_NAMES);
    }
}
