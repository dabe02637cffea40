//! AI-versus-AI battles for any two-player game (the 500-game table of
//! Pinton and de Carvalho's "Programming Pentago with Matlab", see
//! `docs/pentago.md`, reproducibly).
//!
//! Two players, A and B, play `games` games. Who starts alternates: A
//! makes the first move of even-numbered games, B of odd ones. Each game
//! may open with a few uniformly random plies drawn from a generator
//! seeded by the battle seed and the game number, so that deterministic
//! players do not replay one game over and over; the same seed replays the
//! same openings. The report gives the results overall, by who started
//! and by seat (first or second mover, i.e. colour in games where the
//! colour fixes who starts), each player's decision time (mean, median,
//! max), the wall time of the whole battle and a 95 % confidence interval
//! for A's score.
//!
//! **The interval.** A's score is the share of the games A won, a draw
//! counting half: `(wins + draws / 2) / games`. Its 95 % interval is the
//! Wilson score interval (E. B. Wilson, "Probable inference, the law of
//! succession, and statistical inference", 1927) of that proportion over
//! the `games` games, `z` = 1.96: with `p` the score and `n` the games,
//!
//! ```text
//! centre = (p + z²/2n) / (1 + z²/n)
//! half   = z / (1 + z²/n) · √(p(1 − p)/n + z²/4n²)
//! ```
//!
//! Unlike the normal approximation `p ± z·√(p(1 − p)/n)` it never
//! collapses to a point: 10 wins in 10 games give [0.722, 1], not
//! [1, 1]. It treats each game as a win or a loss; draws, which lower the
//! spread of the per-game scores, make it slightly wider than needed
//! (conservative).

use crate::player::{MoveLimits, Player};
use crate::{Game, Value};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::Instant;

/// The normal quantile of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of a proportion `p` observed over `n`
/// trials, at the normal quantile `z` (1.96 for 95 %); see the module
/// documentation. `[0, 1]` when `n` is 0.
pub fn wilson_interval(p: f64, n: usize, z: f64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let n = n as f64;
    let p = p.clamp(0.0, 1.0);
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// How a battle is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BattleConfig {
    /// Number of games.
    pub games: usize,
    /// Seed of the random openings.
    pub seed: u64,
    /// Uniformly random plies at the start of each game (0 for none).
    pub opening_plies: usize,
    /// What each decision may spend.
    pub limits: MoveLimits,
    /// A game still running after this many plies is scored a draw (a
    /// safety net for games that can cycle; 0 for no limit).
    pub max_plies: usize,
}

/// One game of a battle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameRecord {
    /// Index of the game.
    pub game: usize,
    /// Whether A made the first move.
    pub a_started: bool,
    /// The result for A: 1 win, 0.5 draw, 0 loss.
    pub a_score: f64,
    /// Plies played (random opening included).
    pub plies: usize,
    /// The moves in the game's notation (Debug form unless the caller
    /// formats them).
    pub moves: Vec<String>,
}

/// Wins, draws and losses from A's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Games won by A.
    pub a_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Games won by B.
    pub b_wins: usize,
}

impl Tally {
    fn add(&mut self, a_score: f64) {
        if a_score > 0.75 {
            self.a_wins += 1;
        } else if a_score < 0.25 {
            self.b_wins += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Games counted.
    pub fn games(&self) -> usize {
        self.a_wins + self.draws + self.b_wins
    }
}

/// Wins by seat: the first mover's side and the second's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SeatTally {
    /// Games won by the side that moved first.
    pub first_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Games won by the side that moved second.
    pub second_wins: usize,
}

/// Decision times of one player, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TimeStats {
    /// Decisions made (random opening plies excluded).
    pub decisions: usize,
    /// Mean.
    pub mean_ms: f64,
    /// Median (nearest rank, [`crate::stats`]).
    pub median_ms: f64,
    /// Maximum.
    pub max_ms: f64,
}

impl TimeStats {
    fn of(mut ms: Vec<f64>) -> TimeStats {
        if ms.is_empty() {
            return TimeStats::default();
        }
        ms.sort_by(f64::total_cmp);
        let n = ms.len();
        TimeStats {
            decisions: n,
            mean_ms: crate::stats::mean(&ms),
            median_ms: crate::stats::quantile_sorted(&ms, 0.5).unwrap_or(f64::NAN),
            max_ms: ms[n - 1],
        }
    }
}

/// The report of a battle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BattleReport {
    /// Player A's name.
    pub a: String,
    /// Player B's name.
    pub b: String,
    /// Games played.
    pub games: usize,
    /// The seed.
    pub seed: u64,
    /// Random plies at the start of each game.
    pub opening_plies: usize,
    /// Results overall (A's point of view).
    pub overall: Tally,
    /// Results of the games A started.
    pub a_started: Tally,
    /// Results of the games B started.
    pub b_started: Tally,
    /// Results by seat (first mover against second mover).
    pub by_seat: SeatTally,
    /// A's score: (wins + draws / 2) / games.
    pub a_score: f64,
    /// 95 % confidence interval of A's score: the Wilson score interval of
    /// the score as a proportion over the games (see the module
    /// documentation).
    pub a_score_ci95: [f64; 2],
    /// Wall time of the whole battle (every game, both players' decisions,
    /// the random openings and the bookkeeping), milliseconds.
    pub time_ms: f64,
    /// A's decision times.
    pub a_time: TimeStats,
    /// B's decision times.
    pub b_time: TimeStats,
    /// Every game.
    pub records: Vec<GameRecord>,
}

/// Plays the battle; `format` writes a move for the records and
/// `progress` is called after each game with the number finished.
pub fn battle<G: Game>(
    game: &G,
    a: &mut dyn Player<G>,
    b: &mut dyn Player<G>,
    config: &BattleConfig,
    format: impl Fn(G::Move) -> String,
    mut progress: impl FnMut(usize),
) -> BattleReport {
    let started = Instant::now();
    let mut overall = Tally::default();
    let mut a_started = Tally::default();
    let mut b_started = Tally::default();
    let mut by_seat = SeatTally::default();
    let (mut a_ms, mut b_ms) = (Vec::new(), Vec::new());
    let mut records = Vec::with_capacity(config.games);
    for g in 0..config.games {
        let a_first = g % 2 == 0;
        let mut rng = ChaCha8Rng::seed_from_u64(
            config
                .seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(g as u64),
        );
        let mut pos = game.start();
        let mut plies = 0usize;
        let mut moves = Vec::new();
        // The value for the side to move at the end, and whose turn it was.
        let (end_value, first_to_move_at_end) = loop {
            let first_to_move = plies.is_multiple_of(2);
            if let Some(v) = game.outcome(&pos) {
                break (v, first_to_move);
            }
            let legal = game.moves(&pos);
            if legal.is_empty() || (config.max_plies > 0 && plies >= config.max_plies) {
                break (Value::Draw, first_to_move);
            }
            let mv = if plies < config.opening_plies {
                *legal.choose(&mut rng).expect("moves exist")
            } else {
                let a_moves = first_to_move == a_first;
                let t = Instant::now();
                let mv = if a_moves {
                    a.choose(game, &pos, &config.limits)
                } else {
                    b.choose(game, &pos, &config.limits)
                };
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if a_moves {
                    a_ms.push(ms);
                } else {
                    b_ms.push(ms);
                }
                mv
            };
            assert!(legal.contains(&mv), "a player chose an illegal move {mv:?}");
            moves.push(format(mv));
            pos = game.play_unchecked(&pos, mv);
            plies += 1;
        };
        // The first mover's result.
        let first_score = match (end_value, first_to_move_at_end) {
            (Value::Win, true) | (Value::Loss, false) => 1.0,
            (Value::Loss, true) | (Value::Win, false) => 0.0,
            _ => 0.5,
        };
        let a_score = if a_first {
            first_score
        } else {
            1.0 - first_score
        };
        overall.add(a_score);
        if a_first {
            a_started.add(a_score);
        } else {
            b_started.add(a_score);
        }
        if first_score > 0.75 {
            by_seat.first_wins += 1;
        } else if first_score < 0.25 {
            by_seat.second_wins += 1;
        } else {
            by_seat.draws += 1;
        }
        records.push(GameRecord {
            game: g,
            a_started: a_first,
            a_score,
            plies,
            moves,
        });
        progress(g + 1);
    }
    let n = records.len().max(1) as f64;
    let mean = records.iter().map(|r| r.a_score).sum::<f64>() / n;
    BattleReport {
        a: a.name(),
        b: b.name(),
        games: config.games,
        seed: config.seed,
        opening_plies: config.opening_plies,
        overall,
        a_started,
        b_started,
        by_seat,
        a_score: mean,
        a_score_ci95: wilson_interval(mean, records.len(), Z95),
        time_ms: started.elapsed().as_secs_f64() * 1e3,
        a_time: TimeStats::of(a_ms),
        b_time: TimeStats::of(b_ms),
        records,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 2], b: [f64; 2]) -> bool {
        (a[0] - b[0]).abs() < 5e-4 && (a[1] - b[1]).abs() < 5e-4
    }

    /// Known values of the Wilson score interval at 95 %.
    #[test]
    fn wilson_known_values() {
        let w = |k: f64, n: usize| wilson_interval(k / n as f64, n, Z95);
        assert!(close(w(10.0, 10), [0.7225, 1.0]), "{:?}", w(10.0, 10));
        assert!(close(w(0.0, 10), [0.0, 0.2775]), "{:?}", w(0.0, 10));
        assert!(close(w(5.0, 10), [0.2366, 0.7634]), "{:?}", w(5.0, 10));
        assert!(close(w(8.0, 10), [0.4902, 0.9433]), "{:?}", w(8.0, 10));
        assert!(close(w(1.0, 1), [0.2065, 1.0]), "{:?}", w(1.0, 1));
        assert!(
            close(w(481.0, 500), [0.9414, 0.9755]),
            "{:?}",
            w(481.0, 500)
        );
        assert_eq!(wilson_interval(0.5, 0, Z95), [0.0, 1.0]);
    }

    /// The interval holds the score, lies in [0, 1] and narrows with n.
    #[test]
    fn wilson_is_sane() {
        for n in [1usize, 2, 7, 10, 100, 10_000] {
            for k in 0..=20 {
                let p = k as f64 / 20.0;
                let [lo, hi] = wilson_interval(p, n, Z95);
                assert!((0.0..=p + 1e-12).contains(&lo), "n {n} p {p}: {lo}");
                assert!((p - 1e-12..=1.0).contains(&hi), "n {n} p {p}: {hi}");
                assert!(lo < hi);
            }
        }
        let width = |n| {
            let [lo, hi] = wilson_interval(0.5, n, Z95);
            hi - lo
        };
        assert!(width(10) > width(100) && width(100) > width(1000));
    }
}
