//! `endgame … martello`: arguments to an `endgame_martello` call, the
//! report rendered as text or JSON. `hint` is the analysis service's
//! answer (`endgame_martello::api`), the same the web gives.

use crate::limits::parse_duration;
use crate::output::{duration, Output, Timed};
use crate::progress::{Bar, Spinner};
use anyhow::{anyhow, bail, Result};
use clap::{Args, ValueEnum};
use endgame_core::analysis::{Decided, PuzzleResult};
use endgame_core::budget::Budget;
use endgame_martello::api::{
    self, Board, MartelloAnalysis, Schedule, SolveOptions, SolveReport, StudyOptions, StudyReport,
    SymmetryMode,
};
use std::fmt::Write as _;
use std::time::Duration;

/// Symmetries the memo identifies.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SymArg {
    /// None (fastest per state).
    None,
    /// Left–right and top–bottom mirrors.
    Mirror,
    /// Mirrors, colour↔symbol swap and every relabelling.
    Full,
}

impl From<SymArg> for SymmetryMode {
    fn from(s: SymArg) -> Self {
        match s {
            SymArg::None => SymmetryMode::None,
            SymArg::Mirror => SymmetryMode::Mirror,
            SymArg::Full => SymmetryMode::Full,
        }
    }
}

/// The start position: a board string, or `--n` and `--seed`.
#[derive(Debug, Args)]
pub struct BoardArgs {
    /// The board string (docs/martello.md: n² cells row-major, `a`…
    /// stones, `.` empty, `/` between rows allowed; n = 8 as
    /// space-separated ids).
    pub board: Option<String>,
    /// Board side for a random board (1 … 8).
    #[arg(long)]
    pub n: Option<usize>,
    /// Seed of the random board.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

impl BoardArgs {
    fn board(&self) -> Result<Board> {
        match (&self.board, self.n) {
            (Some(_), Some(_)) => bail!("give a board string or --n, not both"),
            (Some(s), None) => Ok(Board::parse(s)?),
            (None, Some(n)) => Ok(Board::random(n, self.seed)?),
            (None, None) => bail!("give a board string, or --n N [--seed S] for a random board"),
        }
    }
}

/// `endgame solve martello`.
#[derive(Debug, Args)]
pub struct SolveMartello {
    /// The position.
    #[command(flatten)]
    pub board: BoardArgs,
    /// Symmetries the memo identifies.
    #[arg(long, value_enum, default_value_t = SymArg::None)]
    pub symmetry: SymArg,
    /// Restart schedule before the exact run: `plain` (none), `reference` (the
    /// meta-solver of Graf's Martello report, docs/martello.md), `better`
    /// (ours) or runs like `40x250,60x1000`.
    #[arg(long, default_value = "plain")]
    pub schedule: String,
    /// Seed of the restarts' random child orders.
    #[arg(long, default_value_t = 0)]
    pub restart_seed: u64,
    /// Stop after this many expansions (the answer is then incomplete).
    #[arg(long)]
    pub max_expansions: Option<u64>,
    /// Time limit (`2s`, `500ms`; default: 60s): past it the answer is
    /// incomplete and the exit status 3.
    #[arg(long, value_parser = parse_duration, conflicts_with = "no_limit")]
    pub time: Option<Duration>,
    /// No time limit (the memo's memory budget still holds).
    #[arg(long)]
    pub no_limit: bool,
    #[command(flatten)]
    pub memory: Memory<1536>,
    /// Skip the pruned search for a one-stone line: one exact search.
    #[arg(long)]
    pub no_goal_first: bool,
}

/// The time limit of `solve martello` and `solve peg` unless given or
/// lifted with `--no-limit`.
pub const DEFAULT_SOLVE_TIME: Duration = Duration::from_secs(60);

/// `endgame hint martello`.
#[derive(Debug, Args)]
pub struct HintMartello {
    /// The position.
    #[command(flatten)]
    pub board: BoardArgs,
    /// States the whole hint may expand before what is left is reported
    /// undecided (default: the service's, as on the web).
    #[arg(long)]
    pub budget: Option<u64>,
    /// Time limit (`2s`, `500ms`; default: the service's, as on the web).
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// No time limit (the state and memory budgets still hold).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    #[command(flatten)]
    pub memory: Memory<512>,
}

/// `--max-memory` of the Martello commands, default `MIB` MiB; the
/// old spelling `--memo-mb N` (MiB) is still read, hidden.
#[derive(Debug, Args)]
pub struct Memory<const MIB: usize> {
    /// Memory budget of the memos (`512M`, `2G`; default: 1.5G for a
    /// solve and for each game of a study, 512M for a hint). The memo
    /// never grows past it: when full it keeps the most useful entries.
    #[arg(long, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_memory: Option<u64>,
    /// The memory budget in MiB (the old spelling of `--max-memory`).
    #[arg(long, hide = true, conflicts_with = "max_memory")]
    pub memo_mb: Option<usize>,
}

impl<const MIB: usize> Memory<MIB> {
    /// The budget in bytes.
    fn bytes(&self) -> Result<usize> {
        match (self.max_memory, self.memo_mb) {
            (Some(b), _) => crate::limits::bytes(b),
            (None, Some(mb)) => memo_bytes(mb),
            (None, None) => Ok(MIB << 20),
        }
    }
}

/// `endgame study martello`.
#[derive(Debug, Args)]
pub struct StudyMartello {
    /// Board side.
    #[arg(long, default_value_t = 6)]
    pub n: usize,
    /// Random games to solve.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Seed (same seed, same numbers, any thread count).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Symmetries the memo identifies.
    #[arg(long, value_enum, default_value_t = SymArg::None)]
    pub symmetry: SymArg,
    /// Solvable games in the random-start experiment (default min(games, 1000)).
    #[arg(long)]
    pub random_start_games: Option<u64>,
    /// Solvable games in the budget experiment (default min(games, 200)).
    #[arg(long)]
    pub budget_games: Option<u64>,
    /// Randomised runs per game and budget.
    #[arg(long, default_value_t = 20)]
    pub budget_tries: u32,
    /// Games per size n = 1 … 6 (default min(games, 10000)).
    #[arg(long)]
    pub size_games: Option<u64>,
    /// Games on which the meta-solvers run (default min(games, 2000)).
    #[arg(long)]
    pub meta_games: Option<u64>,
    /// Our meta-solver schedule (compared with the schedule of Graf's
    /// meta-solver, `reference`), e.g. `1x100,1x200,1x400`.
    #[arg(long)]
    pub schedule: Option<String>,
    #[command(flatten)]
    pub memory: Memory<1536>,
    /// Time limit of the whole study (`600s`): past it the study stops,
    /// says so, and the exit status is 3.
    #[arg(long, value_name = "TIME", default_value = "3600s", value_parser = parse_duration)]
    pub time: Duration,
    /// No time limit (each game's memory budget still holds).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Restart schedule of the solver of every game: `plain`, `reference`
    /// (Graf's), `better` (default) or runs like `40x250,60x1000`.
    #[arg(long, default_value = "better")]
    pub main_schedule: String,
    /// CPU time of each game's solve (`10s`, `500ms`; default: none),
    /// counted on the thread that solves it, so a busy machine decides
    /// the same games: a game past it is reported undecided with the
    /// fewest stones its search reached, never dropped, and left out of
    /// every share and table.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub game_time: Option<Duration>,
    /// Run only these games of the study, e.g. `3,61` (indices below
    /// `--games`), each with the board and solve it has in a run of all
    /// of them: the undecided games of a run, with a longer `--game-time`.
    #[arg(long, value_name = "I,J,…")]
    pub only: Option<String>,
}

/// `--only`: distinct game indices below `games`, comma-separated.
fn only_games(s: &str, games: u64) -> Result<Vec<u64>> {
    let v = api::parse_games(s).map_err(|e| anyhow!("--only: {e}"))?;
    if let Some(i) = v.iter().find(|&&i| i >= games) {
        bail!("--only: game {i} is not below --games {games}");
    }
    Ok(v)
}

fn schedule(s: &str) -> Result<Schedule> {
    api::schedule(s).map_err(|e| anyhow!(e))
}

fn memo_bytes(mb: usize) -> Result<usize> {
    if mb == 0 || mb > 1 << 20 {
        bail!("--memo-mb {mb} out of range 1..=1048576");
    }
    Ok(mb << 20)
}

/// `endgame solve martello`: the API's solve (the web's
/// `/api/martello/solve`), within `--max-expansions`, `--time` and
/// `--memo-mb`.
pub fn solve(args: &SolveMartello, out: Output) -> Result<String> {
    let b = args.board.board()?;
    let opts = SolveOptions {
        symmetry: args.symmetry.into(),
        schedule: schedule(&args.schedule)?,
        seed: args.restart_seed,
        goal_first: !args.no_goal_first,
    };
    let mut budget = Budget::unlimited();
    if let Some(n) = args.max_expansions {
        budget = budget.with_nodes(n);
    }
    if !args.no_limit {
        budget = budget.with_time(args.time.unwrap_or(DEFAULT_SOLVE_TIME));
    }
    budget = budget.with_memory(args.memory.bytes()?);
    let spinner = Spinner::start(
        out.progress_mode(),
        &format!("solve martello {}×{}", b.n(), b.n()),
    );
    let report = api::solve(&b, &opts, &budget);
    spinner.finish();
    let report = report?;
    crate::output::finished(out.render(&report, solve_text)?, report.complete)
}

/// A board string drawn one row a line.
fn rows(s: &str) -> String {
    Board::parse(s)
        .map(|b| b.to_rows_string())
        .unwrap_or_else(|_| s.to_string())
        .split('/')
        .map(|r| format!("  {}\n", r.trim()))
        .collect()
}

fn solve_text(r: &SolveReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Martello {}×{} {}", r.n, r.n, r.board);
    if r.complete {
        let _ = writeln!(s, "minimum stone count {} ({})", r.min_stones, r.value);
    } else {
        let _ = writeln!(
            s,
            "undecided: the budget ran out after {} states",
            r.explored
        );
    }
    let _ = writeln!(
        s,
        "explored {} states in {} run(s), {:.1} ms, memo {} entries",
        r.explored, r.runs, r.time_ms, r.memo_entries
    );
    s += &rows(&r.board);
    for (i, op) in r.operations.iter().enumerate() {
        let _ = writeln!(s, "{}. {}: {}", i + 1, op.op, op.moves.join("; "));
        s += &rows(&op.board);
    }
    if let Some(why) = &r.reason {
        let _ = writeln!(s, "note: {why}");
    }
    let _ = writeln!(s, "line: {}", r.line_string);
    s
}

/// `endgame hint martello`: the analysis service's answer, printed as is
/// with `--json`.
pub fn hint(args: &HintMartello, out: Output) -> Result<String> {
    let b = args.board.board()?;
    let (m, s) = api::from_board(&b)?;
    let mut budget = Budget::unlimited()
        .with_nodes(args.budget.unwrap_or(api::DEFAULT_NODES))
        .with_memory(args.memory.bytes()?);
    if !args.no_limit {
        budget = budget.with_time(args.time.unwrap_or(api::DEFAULT_TIME));
    }
    let spinner = Spinner::start(
        out.progress_mode(),
        "hint martello: weighing every operation",
    );
    let a = api::analyze(&m, &s, &budget);
    spinner.finish();
    crate::output::hint(&out, &a, hint_text)
}

/// A result in words (`solvable`, `at best 3 stones`, `undecided`).
fn result_text(r: &PuzzleResult) -> String {
    match (r.solvable, r.best, r.best_proven) {
        (Some(true), _, _) => "solvable".into(),
        (Some(false), Some(b), true) => format!("at best {b} stones"),
        (Some(false), _, _) => "goal lost".into(),
        (None, _, _) => "undecided".into(),
    }
}

/// The text of `endgame hint martello`.
fn hint_text(a: &MartelloAnalysis) -> String {
    let mut t = String::new();
    let n = a.detail.n;
    let _ = writeln!(
        t,
        "Martello {n}×{n} {} ({} stones)",
        a.position, a.detail.stones
    );
    t += &rows(&a.position);
    let r = a.result.unwrap_or(PuzzleResult::UNKNOWN);
    let rem = a
        .remoteness
        .map_or(String::new(), |x| format!(", {x} operations"));
    let _ = writeln!(t, "result      {}{rem}", result_text(&r));
    let by = match a.decided_by {
        Decided::Table => "solved table",
        Decided::Search => "search",
        Decided::Heuristic => "heuristic",
        Decided::Undecided => "undecided",
    };
    let _ = writeln!(t, "decided by  {by} ({:.1} ms)", a.time_ms);
    let _ = writeln!(t, "operations  {}", a.moves.len());
    let width = a.moves.iter().map(|m| m.mv.len()).max().unwrap_or(0);
    for mv in &a.moves {
        let r = mv.result.unwrap_or(PuzzleResult::UNKNOWN);
        let _ = writeln!(
            t,
            "  {:width$}  {:6}  {:<18}  {}",
            mv.mv,
            mv.colour.as_str(),
            result_text(&r),
            mv.detail.moves.join("; ")
        );
    }
    if !a.line.is_empty() {
        let _ = writeln!(t, "best line   {}", a.line.join(" "));
    }
    if let Some(r) = &a.reason {
        let _ = writeln!(t, "note        {r}");
    }
    t
}

/// `endgame study martello`: the main experiment (every game solved),
/// then the random-start, budget, size and meta-solver experiments. The
/// report's `seconds` times the main experiment; `total_ms` and the
/// text's last line the whole command.
pub fn study(args: &StudyMartello, out: Output) -> Result<String> {
    let started = std::time::Instant::now();
    if !(1..=8).contains(&args.n) {
        bail!("--n {} out of range 1..=8", args.n);
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let threads = args.threads.unwrap_or(0);
    if args.threads == Some(0) || threads > 1024 {
        bail!("--threads {threads} out of range 1..=1024");
    }
    let mut opts = StudyOptions::new(args.n, args.games, args.seed);
    opts.symmetry = args.symmetry.into();
    opts.max_memo_bytes = args.memory.bytes()?;
    opts.budget_tries = args.budget_tries;
    if let Some(v) = args.random_start_games {
        opts.random_start_games = v;
    }
    if let Some(v) = args.budget_games {
        opts.budget_games = v;
    }
    if let Some(v) = args.size_games {
        opts.size_games = v;
    }
    if let Some(v) = args.meta_games {
        opts.meta_games = v;
    }
    if let Some(s) = &args.schedule {
        opts.schedule = schedule(s)?;
    }
    opts.main_schedule = schedule(&args.main_schedule)?;
    opts.game_seconds = args.game_time.map(|t| t.as_secs_f64());
    if let Some(only) = &args.only {
        opts.only = Some(only_games(only, args.games)?);
    }
    let bar = Bar::new(
        out.progress_mode(),
        &format!("study martello {}×{}", args.n, args.n),
    );
    // The study has no deadline of its own: the watchdog ends it there.
    let _watchdog = (!args.no_limit).then(|| {
        crate::limits::Watchdog::arm(
            started,
            args.time,
            out,
            format!("study martello {}×{}", args.n, args.n),
        )
    });
    let report = api::run_study(&opts, threads, &bar);
    bar.finish();
    out.render(&Timed::since(report?, started), study_text)
}

/// Ten times the game time `secs`, as `--game-time` takes it.
fn longer(secs: f64) -> String {
    let ms = (secs * 1e4).ceil();
    if ms < 1e3 {
        format!("{ms}ms")
    } else {
        format!("{}s", (ms / 1e3).ceil())
    }
}

/// Game indices as `--only` takes them.
fn join_games(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

fn study_text(t: &Timed<StudyReport>) -> String {
    let r = &t.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Martello {}×{}: {} random games (seed {}), solver schedule {}",
        r.n,
        r.n,
        r.games,
        r.seed,
        if r.main_schedule.is_empty() {
            "plain"
        } else {
            &r.main_schedule
        }
    );
    if let Some(only) = &r.only {
        let _ = writeln!(s, "games run: {}", join_games(only));
    }
    if r.undecided_games.is_empty() {
        let _ = writeln!(
            s,
            "solvable {} = {:.5} ± {:.5}",
            r.solvable, r.ratio, r.std_error
        );
    } else {
        let _ = writeln!(
            s,
            "solvable {} of {} decided = {:.5} ± {:.5}; {} undecided within {} each: the share of all {} games is {:.5} … {:.5}",
            r.solvable,
            r.decided,
            r.ratio,
            r.std_error,
            r.undecided_games.len(),
            duration(r.game_seconds.unwrap_or(0.0) * 1e3),
            r.games,
            r.ratio_bounds.0,
            r.ratio_bounds.1
        );
        let _ = writeln!(
            s,
            "undecided (game: fewest stones reached): {}",
            r.undecided_games
                .iter()
                .map(|u| format!("{}: {}", u.game, u.bound_stones))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            s,
            "to finish them: endgame study martello --n {} --games {} --seed {} --only {} --game-time {}",
            r.n,
            r.study_games,
            r.seed,
            join_games(&r.undecided_games.iter().map(|u| u.game).collect::<Vec<_>>()),
            longer(r.game_seconds.unwrap_or(0.0))
        );
    }
    let _ = writeln!(
        s,
        "main experiment ({} games) {}: {:.1} games/s, {:.0} states/s; slowest game {:.3} s; largest memo {:.1} MiB",
        r.games,
        duration(r.seconds * 1e3),
        r.games_per_second,
        r.states_per_second,
        r.max_game_seconds,
        r.max_memo_bytes as f64 / (1 << 20) as f64
    );
    let _ = writeln!(s, "\nminimum stone count   games");
    for (k, g) in &r.histogram {
        let _ = writeln!(s, "{k:>19}   {g}");
    }
    let _ = writeln!(
        s,
        "\nexplored        count        mean    median       p90       p99     p99.9        max"
    );
    for (name, d) in [
        ("all", &r.explored),
        ("solvable", &r.explored_solvable),
        ("unsolvable", &r.explored_unsolvable),
    ] {
        let _ = writeln!(
            s,
            "{name:<10} {:>10} {:>11.0} {:>9} {:>9} {:>9} {:>9} {:>10}",
            d.count, d.mean, d.median, d.p90, d.p99, d.p999, d.max
        );
    }
    if !r.random_start.is_empty() && r.random_start[0].games > 0 {
        let _ = writeln!(
            s,
            "\nrandom operations   still solvable (of solvable games)"
        );
        for row in &r.random_start {
            let _ = writeln!(
                s,
                "{:>17}   {:.4} ({}/{})",
                row.ops, row.share, row.still_solvable, row.games
            );
        }
        let _ = writeln!(
            s,
            "good first moves: {:.4} ({}/{})",
            r.good_first_move_share, r.good_first_moves, r.first_moves
        );
    }
    if !r.budget.is_empty() && r.budget[0].runs > 0 {
        let _ = writeln!(
            s,
            "\nbudget   success rate   solved by some run   expected effort"
        );
        for b in &r.budget {
            let _ = writeln!(
                s,
                "{:>6}   {:>12.4}   {:>18.4}   {:>15.0}",
                b.budget, b.success_rate, b.solved_by_some_run, b.expected_effort
            );
        }
    }
    if !r.sizes.is_empty() {
        let _ = writeln!(
            s,
            "\n n   games   solvable ratio   ± s.e.    min stones range"
        );
        for z in &r.sizes {
            let _ = writeln!(
                s,
                "{:>2} {:>7}   {:>14.5}   {:.5}   {}…{}",
                z.n, z.games, z.ratio, z.std_error, z.min_stones_range.0, z.min_stones_range.1
            );
        }
    }
    if let Some(m) = &r.meta {
        let _ = writeln!(
            s,
            "\nmeta-solver on {} games: mean expansions plain {:.0}, Graf's schedule (reference) {:.0}, ours ({}) {:.0}; disagreements {}",
            m.games,
            m.plain_mean,
            m.reference_schedule_mean,
            m.better_schedule,
            m.better_schedule_mean,
            m.disagreements
        );
    }
    let _ = writeln!(
        s,
        "\nwhole study {} (every experiment above)",
        duration(t.total_ms)
    );
    s
}
