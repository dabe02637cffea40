//! Pentago: the AI battle of Pinton and de Carvalho's slides ("Programming
//! Pentago with Matlab", `docs/pentago.md`; results by colour and by who
//! started, decision times), and the exact solver's speed on random
//! positions of 18–22 stones.

use crate::error::LabError;
use crate::experiment::{unit_seed, Experiment, Measure, ParamSpec, Params, RunData};
use crate::report::{fmt, mean, median, quantile, Plot, Report, Table};
use endgame_core::battle::{battle, BattleConfig};
use endgame_core::player::MoveLimits;
use endgame_core::{Rules, Value};
use endgame_pentago::api::LATE_STONES;
use endgame_pentago::mid::MAX_EMPTY;
use endgame_pentago::player::{by_name, NAMES};
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// A player [`by_name`] knows: one of [`NAMES`], or `seed`, the old name
/// of `reference` (accepted for one release, so runs stored with it
/// still resume).
fn player_name(s: &str) -> Result<String, String> {
    if NAMES.contains(&s) || s == "seed" {
        Ok(s.to_string())
    } else {
        Err(format!("must be one of {}, got `{s}`", NAMES.join(", ")))
    }
}

/// The slides' battle: Black ("your" AI, as the slides address their
/// audience) against White (the authors' own), 500 games, each starting
/// 250: wins overall and when Black / White started.
/// Bytes of layers an exact (retrograde) solve of a unit may take: enough
/// for every position from `LATE_STONES` stones (18 empty cells, about
/// 0.62 GB); earlier ones are refused and left to the alpha-beta.
const EXACT_BYTES: u64 = 1 << 30;

/// Bytes of a `strong` player's fixed tables (its search's and its exact
/// solver's transposition tables, about 100 MB).
const STRONG_TABLES: u64 = 128 << 20;

const SOURCE_BATTLE: [(&str, u64, u64, u64); 3] = [
    ("Black wins", 223, 116, 107),
    ("White wins", 193, 90, 103),
    ("draws", 84, 44, 40),
];

/// The AI battle.
pub struct Battle;

impl Experiment for Battle {
    fn name(&self) -> &'static str {
        "pentago-battle"
    }
    fn game(&self) -> &'static str {
        "pentago"
    }
    fn description(&self) -> &'static str {
        "AI against AI (each starts half the games): wins by colour and by who started, decision times — the 500-game battle of Pinton and de Carvalho's slides"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::checked(
                "black",
                "strong",
                player_name,
                "Black's player (random, reference = the slides' AI, strong)",
            ),
            ParamSpec::checked("white", "reference", player_name, "White's player"),
            ParamSpec::int("games", "20", 1, 100_000, "games (the slides played 500)"),
            ParamSpec::int(
                "move_nodes",
                "20000",
                0,
                u64::MAX,
                "node budget per decision (0: none; reproducible)",
            ),
            ParamSpec::int(
                "move_ms",
                "0",
                0,
                600_000,
                "time per decision in ms (0: none; not reproducible)",
            ),
            ParamSpec::int(
                "opening_plies",
                "2",
                0,
                20,
                "random plies at the start of each game",
            ),
            ParamSpec::batch("2", 100_000),
        ]
    }
    fn validate(&self, p: &Params) -> Result<(), LabError> {
        if p.int("move_nodes") == 0 && p.int("move_ms") == 0 {
            return Err(LabError::BadParam(format!(
                "{}: `move_nodes` and `move_ms` are both 0, so nothing bounds a decision; give a node budget or a time",
                self.name(),
            )));
        }
        Ok(())
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // Two players, each at most a strong one: its tables and an exact
        // solve within EXACT_BYTES.
        2 * (STRONG_TABLES + EXACT_BYTES)
    }
    fn units(&self, p: &Params) -> u64 {
        p.int("games")
    }
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let black_starts = index.is_multiple_of(2);
        // The core battle lets its A move first in a one-game battle, so A
        // is whoever starts this game.
        let (first, second) = if black_starts {
            (p.text("black"), p.text("white"))
        } else {
            (p.text("white"), p.text("black"))
        };
        let s = unit_seed(seed, index, 20);
        let err = |e: endgame_pentago::PentagoError| LabError::Unit(e.to_string());
        let mut a = by_name(&first, s).map_err(err)?;
        let mut b = by_name(&second, s.wrapping_add(1)).map_err(err)?;
        let limits = MoveLimits {
            time: (p.int("move_ms") > 0).then(|| Duration::from_millis(p.int("move_ms"))),
            nodes: (p.int("move_nodes") > 0).then(|| p.int("move_nodes")),
            memory: Some(EXACT_BYTES),
        };
        let r = battle(
            &Pentago,
            a.as_mut(),
            b.as_mut(),
            &BattleConfig {
                games: 1,
                seed: s,
                opening_plies: p.int("opening_plies") as usize,
                limits,
                max_plies: 0,
            },
            endgame_pentago::notation::format_move,
            |_| {},
        );
        let first_score = r.overall.a_wins as f64 + 0.5 * r.overall.draws as f64;
        let black_score = if black_starts {
            first_score
        } else {
            1.0 - first_score
        };
        let winner = if black_score > 0.75 {
            "black"
        } else if black_score < 0.25 {
            "white"
        } else {
            "draw"
        };
        let (bt, wt) = if black_starts {
            (r.a_time, r.b_time)
        } else {
            (r.b_time, r.a_time)
        };
        Ok(vec![
            Measure::text("starter", if black_starts { "black" } else { "white" }),
            Measure::text("winner", winner),
            Measure::num("black_score", black_score),
            Measure::num("plies", r.records.first().map_or(0, |g| g.plies) as f64),
            Measure::num("black_decisions", bt.decisions as f64),
            Measure::num("white_decisions", wt.decisions as f64),
            Measure::num("black_think_ms", bt.mean_ms * bt.decisions as f64),
            Measure::num("white_think_ms", wt.mean_ms * wt.decisions as f64),
            Measure::num("black_max_decision_ms", bt.max_ms),
            Measure::num("white_max_decision_ms", wt.max_ms),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let p = &d.params;
        let (black, white) = (p.text("black"), p.text("white"));
        let count = |winner: &str, starter: Option<&str>| {
            d.units
                .values()
                .filter(|(_, m)| {
                    RunData::text(m, "winner") == winner
                        && starter.is_none_or(|s| RunData::text(m, "starter") == s)
                })
                .count() as f64
        };
        let games = d.units.len() as f64;
        let started = |s: &str| {
            d.units
                .values()
                .filter(|(_, m)| RunData::text(m, "starter") == s)
                .count() as f64
        };
        let mut t = Table::new(
            &format!("Battle: Black = {black}, White = {white}"),
            &[
                "result",
                "games",
                "share",
                "black_started",
                "white_started",
                "source_games",
                "source_black_started",
                "source_white_started",
            ],
        );
        let mut series_all = Vec::new();
        let mut series_b = Vec::new();
        let mut series_w = Vec::new();
        for (i, (label, key)) in [
            ("Black wins", "black"),
            ("White wins", "white"),
            ("draws", "draw"),
        ]
        .iter()
        .enumerate()
        {
            let (all, bs, ws) = (
                count(key, None),
                count(key, Some("black")),
                count(key, Some("white")),
            );
            t.row(vec![
                label.to_string(),
                fmt(all, 0),
                format!("{:.1}%", 100.0 * all / games.max(1.0)),
                format!("{} of {}", fmt(bs, 0), fmt(started("black"), 0)),
                format!("{} of {}", fmt(ws, 0), fmt(started("white"), 0)),
                SOURCE_BATTLE[i].1.to_string(),
                format!("{} of 250", SOURCE_BATTLE[i].2),
                format!("{} of 250", SOURCE_BATTLE[i].3),
            ]);
            series_all.push(100.0 * all / games.max(1.0));
            series_b.push(100.0 * bs / started("black").max(1.0));
            series_w.push(100.0 * ws / started("white").max(1.0));
        }
        let mut tt = Table::new(
            "Decision times (ms)",
            &["player", "decisions", "mean", "max"],
        );
        for side in ["black", "white"] {
            let total: f64 = d.values(&format!("{side}_think_ms")).iter().sum();
            let n: f64 = d.values(&format!("{side}_decisions")).iter().sum();
            let mx = quantile(&d.values(&format!("{side}_max_decision_ms")), 1.0);
            let name = if side == "black" { &black } else { &white };
            tt.row(vec![
                format!("{side} ({name})"),
                fmt(n, 0),
                fmt(total / n.max(1.0), 2),
                fmt(mx, 1),
            ]);
        }
        let plot = Plot::Bars {
            file: "pentago-battle".into(),
            title: format!("Pentago battle: Black = {black} vs White = {white}, {games} games"),
            x_label: "result".into(),
            y_label: "games (%)".into(),
            labels: vec!["Black wins".into(), "White wins".into(), "draws".into()],
            series: vec![
                ("all games".into(), series_all),
                ("Black started".into(), series_b),
                ("White started".into(), series_w),
            ],
            log_y: false,
        };
        let notes = vec![
            "source_*: the 500-game battle of Pinton and de Carvalho's slides (Black: \"your\" AI, as the slides put it to their audience; White: the authors' own); Black took 2.05 s and White 9.5 s per decision there".into(),
            format!("mean plies per game: {}", fmt(mean(&d.values("plies")), 1)),
        ];
        Report::new(vec![t, tt], vec![plot], notes)
    }
}

/// A random position with `stones` stones, the game not over, due to
/// place (plays random legal moves from the start; retries on a finished
/// game).
pub fn random_position(stones: u32, rng: &mut ChaCha8Rng) -> Position {
    let game = Pentago;
    loop {
        let mut pos = game.start();
        while pos.outcome().is_none() && (pos.stones() < stones || pos.must_rotate()) {
            let moves = game.moves(&pos);
            let Some(m) = moves.choose(rng) else { break };
            pos = game.play_unchecked(&pos, *m);
        }
        if pos.outcome().is_none() && pos.stones() == stones && !pos.must_rotate() {
            return pos;
        }
    }
}

/// The exact solver over random positions.
pub struct SolverSpeed;

impl Experiment for SolverSpeed {
    fn name(&self) -> &'static str {
        "pentago-solver-speed"
    }
    fn game(&self) -> &'static str {
        "pentago"
    }
    fn description(&self) -> &'static str {
        "the exact solver on random positions of min_stones…max_stones stones: nodes, time, values"
    }
    fn params(&self) -> Vec<ParamSpec> {
        // Before LATE_STONES stones only the alpha-beta can answer, with
        // no bound on its work: a random position of 0 stones spent the
        // whole node budget (5 million nodes, seconds each) and came back
        // unknown. From there the retrograde solver bounds the worst case.
        static WHY: LazyLock<String> = LazyLock::new(|| {
            format!("the exact solver is bounded from {LATE_STONES} stones (at most {MAX_EMPTY} empty cells, its retrograde solver's reach); earlier positions spend the whole node budget and stay unknown")
        });
        let late = LATE_STONES as u64;
        vec![
            ParamSpec::int("positions", "40", 1, 1_000_000, "random positions"),
            ParamSpec::int("min_stones", "18", late, 35, "fewest stones").because(&WHY),
            ParamSpec::int("max_stones", "22", late, 35, "most stones"),
            ParamSpec::int(
                "max_nodes",
                "5000000",
                1,
                u64::MAX >> 2,
                "node budget per position",
            ),
            ParamSpec::int(
                "table_bits",
                "20",
                10,
                26,
                "log2 of the solver's table slots (16 bytes each)",
            ),
            ParamSpec::batch("4", 100_000),
        ]
    }
    fn validate(&self, p: &Params) -> Result<(), LabError> {
        let (min, max) = (p.int("min_stones"), p.int("max_stones"));
        if max < min {
            return Err(LabError::BadParam(format!(
                "{}: `max_stones` must be in min_stones..=35 ({min}..=35), got {max}",
                self.name(),
            )));
        }
        Ok(())
    }
    fn unit_memory(&self, p: &Params) -> u64 {
        // The alpha-beta table (16-byte slots) and an exact solve.
        (16u64 << p.int("table_bits")) + EXACT_BYTES
    }
    fn units(&self, p: &Params) -> u64 {
        p.int("positions")
    }
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let mut rng = ChaCha8Rng::seed_from_u64(unit_seed(seed, index, 30));
        let stones = rng.gen_range(p.int("min_stones")..=p.int("max_stones")) as u32;
        let pos = random_position(stones, &mut rng);
        let mut solver = Solver::new(p.int("table_bits") as u32);
        solver.set_memory_limit(Some(EXACT_BYTES));
        let t = Instant::now();
        let v = solver.value(
            &pos,
            Budget {
                nodes: Some(p.int("max_nodes")),
                time: None,
            },
        );
        let ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(vec![
            Measure::num("stones", f64::from(stones)),
            Measure::text("position", endgame_pentago::notation::format_position(&pos)),
            Measure::text("value", format!("{v:?}")),
            Measure::num("solved", f64::from(u8::from(v != Value::Unknown))),
            Measure::num("nodes", solver.nodes() as f64),
            Measure::num("solve_ms", ms),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let mut t = Table::new(
            "Exact solver per stone count",
            &[
                "stones",
                "positions",
                "solved",
                "wins",
                "draws",
                "losses",
                "median_nodes",
                "median_ms",
                "max_ms",
                "nodes_per_s",
            ],
        );
        let mut labels = Vec::new();
        let mut med = Vec::new();
        for s in d.params.int("min_stones")..=d.params.int("max_stones") {
            let us: Vec<_> = d
                .units
                .values()
                .filter(|(_, m)| RunData::num(m, "stones") == Some(s as f64))
                .collect();
            let col = |n: &str| -> Vec<f64> {
                us.iter().filter_map(|(_, m)| RunData::num(m, n)).collect()
            };
            let val = |v: &str| {
                us.iter()
                    .filter(|(_, m)| RunData::text(m, "value") == v)
                    .count()
            };
            let (nodes, ms) = (col("nodes"), col("solve_ms"));
            t.row(vec![
                s.to_string(),
                us.len().to_string(),
                fmt(col("solved").iter().sum(), 0),
                val("Win").to_string(),
                val("Draw").to_string(),
                val("Loss").to_string(),
                fmt(median(&nodes), 0),
                fmt(median(&ms), 1),
                fmt(quantile(&ms, 1.0), 1),
                fmt(
                    nodes.iter().sum::<f64>() / (ms.iter().sum::<f64>() / 1e3).max(1e-9),
                    0,
                ),
            ]);
            labels.push(s.to_string());
            med.push((median(&nodes), mean(&nodes), quantile(&nodes, 1.0)));
        }
        // Nodes rather than milliseconds: deterministic, and the many
        // positions decided at once (a win on the spot) do not hide the
        // hard ones as a median time of 0 ms would.
        let plot = Plot::Bars {
            file: "pentago-solver-speed".into(),
            title: "Pentago exact solver: nodes searched per random position".into(),
            x_label: "stones on the board".into(),
            y_label: "nodes searched (log scale)".into(),
            labels,
            series: vec![
                ("median".into(), med.iter().map(|m| m.0).collect()),
                ("mean".into(), med.iter().map(|m| m.1).collect()),
                ("max".into(), med.iter().map(|m| m.2).collect()),
            ],
            log_y: true,
        };
        Report::new(vec![t], vec![plot], vec!["values are for the player to move; positions not solved within max_nodes count as Unknown".into()])
    }
}
