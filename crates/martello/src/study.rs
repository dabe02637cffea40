//! The random-board study of Graf's Martello report (its section 3 and the
//! budget experiment of section 4), reproducible for a seed whatever the
//! thread count: game `i` of size `n` gets its own derived seed, games run
//! in parallel with rayon and are aggregated in index order.
//!
//! The measures of one game ([`random_game`], [`survival`],
//! [`first_moves`], [`budget_successes`], [`schedule_solve`]) and the rows
//! built from many ([`RandomStartRow::of`], [`BudgetRow::of`],
//! [`SizeRow::of`], [`Distribution::of`], [`ratio`]) are public: [`run`]
//! uses them for `endgame study martello`, and the lab's Martello
//! experiments call them per stored game, so both measure alike.

use crate::board::{Board, MartelloError};
use crate::solver::{self, SymmetryMode};
use crate::state::{Martello, State};
use endgame_core::budget::{Budget, ThreadCpu};
use endgame_core::layered::Progress;
use endgame_core::restarts::{Rng, Schedule, Searcher};
use endgame_core::Rules;
use rayon::prelude::*;
use serde::Serialize;
use std::time::{Duration, Instant};

/// The budgets of the source's budget experiment (its Figure 14).
pub const SEED_BUDGETS: [u64; 7] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000];

/// Options of [`run`].
#[derive(Clone, Debug)]
pub struct StudyOptions {
    /// Board side of the main study.
    pub n: usize,
    /// Random games of the main study.
    pub games: u64,
    /// Seed of everything.
    pub seed: u64,
    /// Symmetries the memo identifies.
    pub symmetry: SymmetryMode,
    /// Memo budget per game, bytes.
    pub max_memo_bytes: usize,
    /// Solvable games (the first ones) used by the random-start
    /// experiment; 0 skips it.
    pub random_start_games: u64,
    /// Solvable games (the first ones) used by the budget experiment; 0
    /// skips it.
    pub budget_games: u64,
    /// Independent randomised runs per game and budget.
    pub budget_tries: u32,
    /// Budgets of the budget experiment.
    pub budgets: Vec<u64>,
    /// Games per board size n = 1 … 6 for the ratio by size; 0 skips it.
    pub size_games: u64,
    /// Games (the first ones) on which the meta-solvers run; 0 skips.
    pub meta_games: u64,
    /// The "better" schedule compared with Graf's (`Schedule::reference()`).
    pub schedule: Schedule,
    /// The restart schedule of the exact solver that solves every game of
    /// the study (its effort is the `explored` distribution).
    pub main_schedule: Schedule,
    /// Seconds of CPU time each game of [`solve_indices`] may take (the
    /// time of the one thread that solves it, which does not grow while
    /// the machine is busy with other work, so a loaded machine decides
    /// the same games); `None`: no limit. A game stopped there is
    /// reported undecided ([`GameResult::decided`] false).
    pub game_seconds: Option<f64>,
    /// The games of the main study: `None` for `0..games`, else exactly
    /// these indices (each the board, seeds and solve it has in a run of
    /// all games), e.g. the undecided games of an earlier run.
    pub only: Option<Vec<u64>>,
}

impl StudyOptions {
    /// Defaults scaled to `games`.
    pub fn new(n: usize, games: u64, seed: u64) -> StudyOptions {
        StudyOptions {
            n,
            games,
            seed,
            symmetry: SymmetryMode::None,
            max_memo_bytes: 1 << 30,
            random_start_games: games.min(1_000),
            budget_games: games.min(200),
            budget_tries: 20,
            budgets: SEED_BUDGETS.to_vec(),
            size_games: games.min(10_000),
            meta_games: games.min(2_000),
            schedule: better_schedule(),
            main_schedule: better_schedule(),
            game_seconds: None,
            only: None,
        }
    }

    /// The indices of the main study's games.
    pub fn indices(&self) -> Vec<u64> {
        self.only
            .clone()
            .unwrap_or_else(|| (0..self.games).collect())
    }
}

/// Our schedule for the meta-solver: 50 runs of 250 expansions, 50 of
/// 500, 50 of 1,000, 20 of 5,000, 10 of 20,000, 5 of 100,000, then the
/// exact run. The budget experiment puts the cheapest expected effort per
/// solvable game near a 250-expansion budget; the longer runs cut the
/// tail of hard solvable games, and stopping at 100,000 keeps unsolvable
/// games (which waste every budgeted run) cheap. States expanded per game
/// on 1,000 random 6×6 boards (`examples/quick.rs`, goal-first search):
/// 10,835, against 13,438 for the source's schedule, 18,777 without
/// restarts, 12,167 for the first three stages alone, 11,952 with longer
/// stages up to 500,000 and 12,899 with 25 runs of 4,000 … 256,000.
pub fn better_schedule() -> Schedule {
    Schedule {
        runs: vec![
            (50, 250),
            (50, 500),
            (50, 1_000),
            (20, 5_000),
            (10, 20_000),
            (5, 100_000),
        ],
    }
}

/// Game indices written `3,17,42`: distinct, comma-separated (the
/// games a study or a lab run redoes).
pub fn parse_games(s: &str) -> Result<Vec<u64>, String> {
    let mut v: Vec<u64> = Vec::new();
    for item in s.split(',').map(str::trim) {
        let Ok(i) = item.parse::<u64>() else {
            return Err(format!(
                "`{item}` is not a game index (give indices such as 3,17,42)"
            ));
        };
        if v.contains(&i) {
            return Err(format!("game {i} is given twice"));
        }
        v.push(i);
    }
    Ok(v)
}

/// Seed of game `i` of size `n` in a study seeded with `seed`.
pub fn game_seed(seed: u64, n: usize, i: u64) -> u64 {
    let mut r = Rng::new(seed ^ (n as u64).wrapping_mul(0xA24B_AED4_963E_E407));
    let base = r.next_u64();
    Rng::new(base.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))).next_u64()
}

/// One solved game.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GameResult {
    /// Index in the study.
    pub index: u64,
    /// Minimum stone count.
    pub min_stones: u32,
    /// States expanded by the plain exact solver.
    pub explored: u64,
    /// CPU time of its solve (its thread's), seconds.
    pub seconds: f64,
    /// Memo bytes at the end.
    pub memo_bytes: usize,
    /// False when the game's time ([`StudyOptions::game_seconds`]) ran
    /// out: then `min_stones` is only an upper bound (the fewest stones
    /// seen) and `explored` what was expanded until then.
    pub decided: bool,
}

/// Mean, median, percentiles and maximum of a sample.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Distribution {
    /// Sample size.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Maximum.
    pub max: u64,
}

impl Distribution {
    /// The distribution of `v`.
    pub fn of(mut v: Vec<u64>) -> Distribution {
        if v.is_empty() {
            return Distribution::default();
        }
        v.sort_unstable();
        let q = |p: f64| endgame_core::stats::quantile_sorted(&v, p).expect("non-empty");
        Distribution {
            count: v.len() as u64,
            mean: v.iter().sum::<u64>() as f64 / v.len() as f64,
            median: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            p999: q(0.999),
            max: *v.last().expect("non-empty"),
        }
    }
}

/// Share still solvable after `ops` random operations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RandomStartRow {
    /// Random operations played first.
    pub ops: u32,
    /// Solvable games tried.
    pub games: u64,
    /// Still solvable after them.
    pub still_solvable: u64,
    /// The share.
    pub share: f64,
}

impl RandomStartRow {
    /// The rows `ops` = 0 … 5 of solvable games, each given by its
    /// [`survival`] (after 1 … 5 operations; solvable with none).
    pub fn of(games: &[[bool; 5]]) -> Vec<RandomStartRow> {
        let g = games.len() as u64;
        (0..=5)
            .map(|l| {
                let k = if l == 0 {
                    g
                } else {
                    games.iter().filter(|o| o[l - 1]).count() as u64
                };
                RandomStartRow {
                    ops: l as u32,
                    games: g,
                    still_solvable: k,
                    share: ratio(k, g).0,
                }
            })
            .collect()
    }
}

/// One budget of the budget experiment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BudgetRow {
    /// Expansions allowed per run.
    pub budget: u64,
    /// Runs made (games × tries).
    pub runs: u64,
    /// Runs that found a solution.
    pub successes: u64,
    /// Success rate of a single run.
    pub success_rate: f64,
    /// Share of games solved by at least one of their runs.
    pub solved_by_some_run: f64,
    /// Mean over games of the expected expansions until the first success
    /// of independent runs (budget / per-game success rate; games never
    /// solved count their failed runs plus the plain solver's expansions).
    pub expected_effort: f64,
}

impl BudgetRow {
    /// The row of `budget` from each game's successful runs among `tries`
    /// ([`budget_successes`]) and the expansions of its exact solve.
    pub fn of(budget: u64, tries: u32, games: &[(u32, u64)]) -> BudgetRow {
        let tries = u64::from(tries.max(1));
        let g = games.len() as u64;
        let successes: u64 = games.iter().map(|&(k, _)| u64::from(k)).sum();
        let some = games.iter().filter(|&&(k, _)| k > 0).count() as u64;
        let effort: f64 = games
            .iter()
            .map(|&(k, explored)| {
                if k > 0 {
                    budget as f64 * tries as f64 / f64::from(k)
                } else {
                    (budget * tries + explored) as f64
                }
            })
            .sum();
        BudgetRow {
            budget,
            runs: g * tries,
            successes,
            success_rate: ratio(successes, g * tries).0,
            solved_by_some_run: ratio(some, g).0,
            expected_effort: effort / g.max(1) as f64,
        }
    }
}

/// Solvable share for one board size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeRow {
    /// Board side.
    pub n: usize,
    /// Games.
    pub games: u64,
    /// Solvable ones.
    pub solvable: u64,
    /// Ratio.
    pub ratio: f64,
    /// Its standard error.
    pub std_error: f64,
    /// Fewest and most stones left.
    pub min_stones_range: (u32, u32),
}

impl SizeRow {
    /// The row of size `n` from the minimum stone counts of its games.
    pub fn of(n: usize, mins: &[u32]) -> SizeRow {
        let k = mins.iter().filter(|&&m| m == 1).count() as u64;
        let (p, se) = ratio(k, mins.len() as u64);
        SizeRow {
            n,
            games: mins.len() as u64,
            solvable: k,
            ratio: p,
            std_error: se,
            min_stones_range: (
                mins.iter().copied().min().unwrap_or(0),
                mins.iter().copied().max().unwrap_or(0),
            ),
        }
    }
}

/// Mean effort of the plain solver and the meta-solvers on the same games.
#[derive(Clone, Debug, Serialize)]
pub struct MetaRow {
    /// Games compared.
    pub games: u64,
    /// Mean expansions, plain exact solver.
    pub plain_mean: f64,
    /// Mean expansions, the schedule of Graf's meta-solver
    /// (`Schedule::reference()`).
    pub reference_schedule_mean: f64,
    /// Mean expansions, our schedule.
    pub better_schedule_mean: f64,
    /// Our schedule, as written.
    pub better_schedule: String,
    /// Games where a meta-solver's minimum differed from the plain one
    /// (must be 0).
    pub disagreements: u64,
}

/// A game of the main study that its time ([`StudyOptions::game_seconds`])
/// left undecided.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct UndecidedGame {
    /// Its index in the study.
    pub game: u64,
    /// The fewest stones its search reached: an upper bound on its
    /// minimum (above 1, or it would be decided).
    pub bound_stones: u32,
    /// States expanded until its time ran out.
    pub explored: u64,
    /// Its CPU time, seconds.
    pub seconds: f64,
}

/// Everything the study measures.
#[derive(Clone, Debug, Serialize)]
pub struct StudyReport {
    /// Board side.
    pub n: usize,
    /// Games run (decided or not).
    pub games: u64,
    /// The study's games, `0..study_games` ([`StudyOptions::games`]).
    pub study_games: u64,
    /// The indices run when not all of them ([`StudyOptions::only`]).
    pub only: Option<Vec<u64>>,
    /// Seed.
    pub seed: u64,
    /// Restart schedule of the solver of every game.
    pub main_schedule: String,
    /// CPU time each game's solve may take, seconds (`None`: no limit).
    pub game_seconds: Option<f64>,
    /// Games decided (all of them without `game_seconds`).
    pub decided: u64,
    /// Games left undecided by `game_seconds`, in index order. They count
    /// in no share, histogram or distribution below.
    pub undecided_games: Vec<UndecidedGame>,
    /// Solvable games (of the decided ones).
    pub solvable: u64,
    /// Solvable share of the decided games.
    pub ratio: f64,
    /// Standard error of the share.
    pub std_error: f64,
    /// The solvable share of all games run, if every undecided game is
    /// unsolvable and if every one is solvable (both `ratio` when every
    /// game is decided).
    pub ratio_bounds: (f64, f64),
    /// `(minimum stone count, decided games)` for every count seen.
    pub histogram: Vec<(u32, u64)>,
    /// States expanded per game, all decided games.
    pub explored: Distribution,
    /// … solvable games.
    pub explored_solvable: Distribution,
    /// … unsolvable games.
    pub explored_unsolvable: Distribution,
    /// Slowest game, CPU seconds.
    pub max_game_seconds: f64,
    /// Largest memo of a game, bytes.
    pub max_memo_bytes: usize,
    /// Wall time of the main study, seconds.
    pub seconds: f64,
    /// Games per second of the main study.
    pub games_per_second: f64,
    /// States expanded per second of the main study (all threads).
    pub states_per_second: f64,
    /// Random-start experiment, l = 0 … 5.
    pub random_start: Vec<RandomStartRow>,
    /// First operations tried in solvable games.
    pub first_moves: u64,
    /// Those that keep the game solvable.
    pub good_first_moves: u64,
    /// Their share.
    pub good_first_move_share: f64,
    /// Budget experiment.
    pub budget: Vec<BudgetRow>,
    /// Solvable ratio per board size.
    pub sizes: Vec<SizeRow>,
    /// Meta-solver against the plain solver.
    pub meta: Option<MetaRow>,
}

/// Game `i` of size `n` in a study seeded with `seed`: the random board
/// of [`game_seed`].
pub fn random_game(n: usize, seed: u64, i: u64) -> Result<Martello, MartelloError> {
    let b = Board::random(n, game_seed(seed, n, i))?;
    Martello::new(n, State::from_board(&b))
}

/// Solves games `0..games` of size `n` in parallel, in index order.
/// (exact solver, goal first, `schedule` of restarts seeded per game).
pub fn solve_games(
    n: usize,
    games: u64,
    seed: u64,
    opts: &StudyOptions,
    progress: &dyn Progress,
) -> Result<Vec<GameResult>, MartelloError> {
    let all: Vec<u64> = (0..games).collect();
    solve_indices(n, &all, seed, opts, progress)
}

/// [`solve_games`] on the games `indices` only (each solved exactly as
/// in a run of all games), results in the order of `indices`.
pub fn solve_indices(
    n: usize,
    indices: &[u64],
    seed: u64,
    opts: &StudyOptions,
    progress: &dyn Progress,
) -> Result<Vec<GameResult>, MartelloError> {
    random_game(n, seed, 0)?;
    let results = indices
        .par_iter()
        .map(|&i| {
            let m = random_game(n, seed, i).expect("size checked");
            let r = POOL.with(|pool| solve_game(&m, i, opts, &mut pool.borrow_mut()));
            progress.took(r.seconds);
            progress.advance(1);
            r
        })
        .collect();
    // The threads outlive the study: free the tables they kept.
    rayon::broadcast(|_| POOL.with(|pool| pool.take()));
    Ok(results)
}

/// Game `i` of a study, `m` (its board, [`random_game`]), solved as
/// [`solve_indices`] solves it: its restart seed, stages and
/// [`StudyOptions::game_seconds`], its memo tables taken from `pool` and
/// left there (trimmed to [`StudyOptions::max_memo_bytes`]). The lab's
/// `martello-random` runs it per stored game with `solver=study`.
pub fn solve_game(
    m: &Martello,
    i: u64,
    opts: &StudyOptions,
    pool: &mut solver::Pool,
) -> GameResult {
    let t = ThreadCpu::now();
    let solve_opts = solve_options(opts, &opts.main_schedule, m.n(), i);
    let s = match opts.game_seconds {
        None => Ok(solver::solve_pooled(m, &solve_opts, pool)),
        Some(secs) => {
            let budget = Budget::unlimited().with_cpu_time(Duration::from_secs_f64(secs));
            solver::solve_pooled_within(m, &solve_opts, pool, &budget)
        }
    };
    pool.trim(opts.max_memo_bytes);
    let seconds = t.elapsed().as_secs_f64();
    let (min_stones, explored, memo_bytes, decided) = match s {
        Ok(s) => (s.min_stones, s.explored, s.memo_bytes, true),
        Err((bound, explored)) => (bound, explored, 0, false),
    };
    GameResult {
        index: i,
        min_stones,
        explored,
        seconds,
        memo_bytes,
        decided,
    }
}

thread_local! {
    /// Memo tables reused from game to game by each thread of
    /// [`solve_games`] (a pool per rayon job instead cost each new job
    /// fresh tables: 75,600 page faults in 2000 games on 2 threads against
    /// 42,365 on one); emptied when it returns.
    static POOL: std::cell::RefCell<solver::Pool> = std::cell::RefCell::default();
}

/// Solver options for game `i` of size `n` with restart `schedule`.
fn solve_options(
    opts: &StudyOptions,
    schedule: &Schedule,
    n: usize,
    i: u64,
) -> solver::SolveOptions {
    schedule_options(
        schedule,
        game_seed(opts.seed ^ 0x3E7A, n, i),
        opts.symmetry,
        opts.max_memo_bytes,
    )
}

/// The exact solver's options with restart `schedule` seeded `seed`, goal
/// first, no expansion limit.
fn schedule_options(
    schedule: &Schedule,
    seed: u64,
    symmetry: SymmetryMode,
    max_memo_bytes: usize,
) -> solver::SolveOptions {
    solver::SolveOptions {
        symmetry,
        max_memo_bytes,
        schedule: schedule.clone(),
        seed,
        max_expansions: None,
        goal_first: true,
        ordered: true,
    }
}

/// The share `k / g` and its standard error (binomial), `(0, 0)` for no
/// games.
pub fn ratio(k: u64, g: u64) -> (f64, f64) {
    if g == 0 {
        return (0.0, 0.0);
    }
    let p = k as f64 / g as f64;
    (p, (p * (1.0 - p) / g as f64).sqrt())
}

/// Runs the whole study.
pub fn run(opts: &StudyOptions, progress: &dyn Progress) -> Result<StudyReport, MartelloError> {
    let (n, seed) = (opts.n, opts.seed);
    let indices = opts.indices();
    let games = indices.len() as u64;
    progress.phase("solve", games);
    let t = Instant::now();
    let all = solve_indices(n, &indices, seed, opts, progress)?;
    let seconds = t.elapsed().as_secs_f64();
    // Undecided games keep only their bound: the minimum, the histogram
    // and the effort would all be biased by them.
    let (results, undecided): (Vec<GameResult>, Vec<GameResult>) =
        all.iter().copied().partition(|r| r.decided);
    let undecided_games: Vec<UndecidedGame> = undecided
        .iter()
        .map(|r| UndecidedGame {
            game: r.index,
            bound_stones: r.min_stones,
            explored: r.explored,
            seconds: r.seconds,
        })
        .collect();
    let solvable = results.iter().filter(|r| r.min_stones == 1).count() as u64;
    let (p, se) = ratio(solvable, results.len() as u64);
    let ratio_bounds = (
        ratio(solvable, games).0,
        ratio(solvable + undecided.len() as u64, games).0,
    );
    let mut hist = std::collections::BTreeMap::new();
    for r in &results {
        *hist.entry(r.min_stones).or_insert(0u64) += 1;
    }
    let explored = |f: &dyn Fn(&GameResult) -> bool| {
        Distribution::of(
            results
                .iter()
                .filter(|r| f(r))
                .map(|r| r.explored)
                .collect(),
        )
    };
    let total_explored: u64 = all.iter().map(|r| r.explored).sum();
    let solvable_idx: Vec<u64> = results
        .iter()
        .filter(|r| r.min_stones == 1)
        .map(|r| r.index)
        .collect();

    // Random starts and good first moves.
    let rs: Vec<u64> = solvable_idx
        .iter()
        .copied()
        .take(opts.random_start_games as usize)
        .collect();
    progress.phase("random starts", rs.len() as u64);
    let rs_out: Vec<([bool; 5], (u64, u64))> = rs
        .par_iter()
        .map(|&i| {
            let m = random_game(n, seed, i).expect("size checked");
            let rng_seed = game_seed(seed ^ 0x5EED, n, i);
            let out = (
                survival(&m, rng_seed, opts.symmetry, opts.max_memo_bytes),
                first_moves(&m, opts.max_memo_bytes),
            );
            progress.advance(1);
            out
        })
        .collect();
    let random_start = RandomStartRow::of(&rs_out.iter().map(|o| o.0).collect::<Vec<_>>());
    let first_moves: u64 = rs_out.iter().map(|o| o.1 .0).sum();
    let good_first_moves: u64 = rs_out.iter().map(|o| o.1 .1).sum();

    // Budget experiment.
    let bg: Vec<&GameResult> = results
        .iter()
        .filter(|r| r.min_stones == 1)
        .take(opts.budget_games as usize)
        .collect();
    progress.phase("budgets", bg.len() as u64);
    let per_game: Vec<Vec<u32>> = bg
        .par_iter()
        .map(|r| {
            let m = random_game(n, seed, r.index).expect("size checked");
            let v = opts
                .budgets
                .iter()
                .map(|&b| {
                    let seed = game_seed(seed ^ b, n, r.index);
                    budget_successes(&m, b, opts.budget_tries, seed, true)
                })
                .collect();
            progress.advance(1);
            v
        })
        .collect();
    let budget = opts
        .budgets
        .iter()
        .enumerate()
        .map(|(j, &b)| {
            let games: Vec<(u32, u64)> = per_game
                .iter()
                .zip(&bg)
                .map(|(v, r)| (v[j], r.explored))
                .collect();
            BudgetRow::of(b, opts.budget_tries, &games)
        })
        .collect();

    // Ratio per board size.
    let mut sizes = Vec::new();
    if opts.size_games > 0 {
        for sn in 1..=6 {
            progress.phase(&format!("n = {sn}"), opts.size_games);
            // The main study's first games when it ran 0..games.
            let rs = if sn == n && opts.only.is_none() && opts.size_games <= opts.games {
                all[..opts.size_games as usize].to_vec()
            } else {
                solve_games(sn, opts.size_games, seed, opts, progress)?
            };
            let mins: Vec<u32> = rs
                .iter()
                .filter(|r| r.decided)
                .map(|r| r.min_stones)
                .collect();
            sizes.push(SizeRow::of(sn, &mins));
        }
    }

    // Meta-solvers against the plain solver.
    let meta = (opts.meta_games > 0).then(|| {
        let mg = &results[..(opts.meta_games as usize).min(results.len())];
        progress.phase("meta-solver", mg.len() as u64);
        let out: Vec<(u64, u64, u64, bool)> = mg
            .par_iter()
            .map(|r| {
                let m = random_game(n, seed, r.index).expect("size checked");
                let solve_seed = game_seed(opts.seed ^ 0x3E7A, n, r.index);
                let run = |s: &Schedule| {
                    schedule_solve(&m, s, solve_seed, opts.symmetry, opts.max_memo_bytes)
                };
                let (p, vp) = run(&Schedule::plain());
                let (a, va) = run(&Schedule::reference());
                let (b, vb) = run(&opts.schedule);
                progress.advance(1);
                (p, a, b, [vp, va, vb].iter().any(|&v| v != r.min_stones))
            })
            .collect();
        let g = mg.len().max(1) as f64;
        MetaRow {
            games: mg.len() as u64,
            plain_mean: out.iter().map(|o| o.0).sum::<u64>() as f64 / g,
            reference_schedule_mean: out.iter().map(|o| o.1).sum::<u64>() as f64 / g,
            better_schedule_mean: out.iter().map(|o| o.2).sum::<u64>() as f64 / g,
            better_schedule: format_schedule(&opts.schedule),
            disagreements: out.iter().filter(|o| o.3).count() as u64,
        }
    });

    Ok(StudyReport {
        n,
        games,
        study_games: opts.games,
        only: opts.only.clone(),
        seed,
        main_schedule: format_schedule(&opts.main_schedule),
        game_seconds: opts.game_seconds,
        decided: results.len() as u64,
        undecided_games,
        solvable,
        ratio: p,
        std_error: se,
        ratio_bounds,
        histogram: hist.into_iter().collect(),
        explored: explored(&|_| true),
        explored_solvable: explored(&|r| r.min_stones == 1),
        explored_unsolvable: explored(&|r| r.min_stones != 1),
        max_game_seconds: all.iter().map(|r| r.seconds).fold(0.0, f64::max),
        max_memo_bytes: all.iter().map(|r| r.memo_bytes).max().unwrap_or(0),
        seconds,
        games_per_second: games as f64 / seconds.max(1e-9),
        states_per_second: total_explored as f64 / seconds.max(1e-9),
        random_start,
        first_moves,
        good_first_moves,
        good_first_move_share: ratio(good_first_moves, first_moves).0,
        budget,
        sizes,
        meta,
    })
}

/// [`run`] on a pool of `threads` workers (0: one per core). The numbers
/// do not depend on `threads`.
pub fn run_with_threads(
    opts: &StudyOptions,
    threads: usize,
    progress: &dyn Progress,
) -> Result<StudyReport, MartelloError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| MartelloError::Impossible(format!("thread pool: {e}")))?;
    pool.install(|| run(opts, progress))
}

/// Writes a schedule as `1x100,1x200,…`.
pub fn format_schedule(s: &Schedule) -> String {
    s.runs
        .iter()
        .map(|(k, b)| format!("{k}x{b}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether a game is still solvable after l = 1 … 5 uniformly random
/// operations (one random line from the start, drawn with a generator
/// seeded `seed`, and its prefixes), each decided by the exact solver.
pub fn survival(
    m: &Martello,
    seed: u64,
    symmetry: SymmetryMode,
    max_memo_bytes: usize,
) -> [bool; 5] {
    let mut rng = Rng::new(seed);
    let mut ok = [false; 5];
    let mut s = m.start();
    for slot in ok.iter_mut() {
        let kids = m.children(&s);
        if !kids.is_empty() {
            s = kids[rng.below(kids.len())].1;
        }
        let pm = Martello::new(m.n(), s).expect("same size");
        *slot = solver::min_stones(&pm, symmetry, max_memo_bytes).0 == 1;
    }
    ok
}

/// The operations from the start of a game and how many of them keep it
/// solvable: `(first moves, good ones)`. A goal-only search (pruned), one
/// memo for all the children, within `max_memo_bytes` (a full memo
/// replaces entries, see `restarts::Memo::replace_hashed`), so every
/// answer is exact.
pub fn first_moves(m: &Martello, max_memo_bytes: usize) -> (u64, u64) {
    let start = m.start();
    let kids = m.children(&start);
    let key = |p: &State| m.key7(p);
    let entries = solver::entries_for::<[u64; 7]>(max_memo_bytes);
    let mut s = Searcher::with_children(m, key, solver::children, entries)
        .goal_only()
        .prefetch(true);
    let good = kids
        .iter()
        .filter(|(_, c)| s.run(c, None, None) == Some(1))
        .count() as u64;
    (kids.len() as u64, good)
}

/// Successful runs among `tries` independent randomised runs of at most
/// `budget` expansions each, the runs' generators drawn from one seeded
/// `seed`, a fresh memo every run (as in the source). `goal_only` chooses
/// the search: our goal-only search with its pruning (`endgame study
/// martello`), or the plain best-score search of Graf's experiment (the
/// lab's `martello-random`); the pruned one succeeds far more often
/// within the same budget.
pub fn budget_successes(m: &Martello, budget: u64, tries: u32, seed: u64, goal_only: bool) -> u32 {
    let mut rng = Rng::new(seed);
    let start = m.start();
    (0..tries)
        .filter(|_| {
            let key = |p: &State| m.key7(p);
            // At most `budget` entries, one per expansion.
            let s = Searcher::with_children(m, key, solver::children, budget as usize);
            let mut s = if goal_only {
                s.goal_only().prefetch(true)
            } else {
                s
            };
            s.run(&start, Some(budget), Some(Rng::new(rng.next_u64()))) == Some(1)
        })
        .count() as u32
}

/// The exact solver with restart `schedule` (its runs seeded `seed`, goal
/// first): `(states expanded, minimum stones)`. The meta-solver experiment
/// runs it with the plain schedule, Graf's and ours on the same game.
pub fn schedule_solve(
    m: &Martello,
    schedule: &Schedule,
    seed: u64,
    symmetry: SymmetryMode,
    max_memo_bytes: usize,
) -> (u64, u32) {
    let s = solver::solve(
        m,
        &schedule_options(schedule, seed, symmetry, max_memo_bytes),
    );
    (s.explored, s.min_stones)
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::layered::Silent;

    #[test]
    fn the_same_numbers_on_any_thread_count() {
        let mut opts = StudyOptions::new(4, 60, 7);
        opts.budget_tries = 3;
        opts.size_games = 20;
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| run(&opts, &Silent).unwrap());
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| run(&opts, &Silent).unwrap());
        let strip = |r: &StudyReport| {
            let mut v = serde_json::to_value(r).unwrap();
            for k in [
                "seconds",
                "games_per_second",
                "states_per_second",
                "max_game_seconds",
            ] {
                v[k] = serde_json::Value::Null;
            }
            v
        };
        assert_eq!(strip(&one), strip(&two));
        assert_eq!(one.histogram.iter().map(|h| h.1).sum::<u64>(), 60);
        assert_eq!(one.random_start[0].share, 1.0);
        assert_eq!(one.meta.as_ref().unwrap().disagreements, 0);
        assert_eq!(one.sizes[0].ratio, 1.0);
        assert_eq!(one.sizes[1].ratio, 1.0);
    }
}
