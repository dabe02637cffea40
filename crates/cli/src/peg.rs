//! The peg-solitaire commands: arguments to an `endgame_peg::api::Spec`,
//! the API call, the report rendered as text or JSON.

use crate::args::{CountPeg, HintPeg, MethodArg, PegProblem, SolvePeg, StudyPeg};
use crate::human;
pub use crate::output::Output;
use crate::progress::{Bar, Spinner};
use anyhow::{bail, Context, Result};
use endgame_core::analysis::{Decided, PuzzleResult};
pub use endgame_peg::api::BoardInfo;
use endgame_peg::api::{
    self, AnyProblem, Board, BoardSource, Budget, Finish, Method, Pruning, Spec,
};
use serde::Serialize;
use std::io::Read;
use std::path::Path;

/// The board and the validated problem the arguments describe.
fn problem(args: &PegProblem) -> Result<(Board, AnyProblem)> {
    let spec = spec(args)?;
    Ok((api::board_of(&spec)?, api::build(&spec)?))
}

/// The default budget with the user's expansion limit, if any.
fn budget(max_expansions: Option<u64>) -> Budget {
    let defaults = Budget::default();
    Budget {
        max_expansions: max_expansions.unwrap_or(defaults.max_expansions),
        ..defaults
    }
}

/// `endgame solve peg`: the API's solve (the web's `/api/peg/solve`),
/// within `--max-expansions` and `--time`. The report's time is the whole
/// command's: building the problem (its pagoda functions) included.
pub fn solve(args: &SolvePeg, out: Output) -> Result<String> {
    let started = std::time::Instant::now();
    let mut limits = endgame_core::budget::Budget::unlimited();
    if let Some(n) = args.max_expansions {
        limits = limits.with_nodes(n);
    }
    if !args.no_limit {
        limits = limits.with_time(args.time.unwrap_or(crate::martello::DEFAULT_SOLVE_TIME));
    }
    // Building the problem (its pagoda LPs) spends the same deadline as
    // the search: the command's time limit covers both.
    let spec = spec(&args.problem)?;
    let board = api::board_of(&spec)?;
    let pagoda_until = started + api::PAGODA_TIME;
    let problem = api::build_within(
        &spec,
        Some(
            limits
                .deadline
                .map_or(pagoda_until, |d| d.min(pagoda_until)),
        ),
    )?;
    let budget = Budget {
        seed: args.seed,
        max_memo_entries: memo_entries(&problem, args.max_memory)?,
        max_memory: Some(crate::limits::bytes(args.max_memory)?),
        ..Budget::from(&limits)
    };
    let spinner = Spinner::start(
        out.progress_mode(),
        &format!("solve peg: solving {}", board.name()),
    );
    let mut report = api::solve(&problem, method(args.method), &budget);
    spinner.finish();
    report.time_ms = started.elapsed().as_secs_f64() * 1e3;
    let report = crate::output::Completed {
        complete: report.solvable.is_some(),
        report,
    };
    crate::output::finished(
        out.render(&report, |r| human::solve(&board, &r.report))?,
        report.complete,
    )
}

/// The memo entries `--max-memory` allows the search of `problem`: its
/// memo slots hold a position (64 or 128 bits) and a value.
fn memo_entries(problem: &AnyProblem, max_memory: u64) -> Result<usize> {
    let slot = match problem {
        AnyProblem::Small(_) => std::mem::size_of::<(u64, u32)>(),
        AnyProblem::Large(_) => std::mem::size_of::<(u128, u32)>(),
    };
    match endgame_core::memory::memo_entries_within(crate::limits::bytes(max_memory)?, slot) {
        0 => bail!("--max-memory {max_memory}: too small for the search's memo (give at least 1M)"),
        n => Ok(n),
    }
}

/// The report of `endgame study peg`.
#[derive(Debug, Serialize)]
pub struct StudyReport {
    /// One row per problem.
    pub rows: Vec<api::StudyRow>,
    /// Problems in all.
    pub problems: usize,
    /// Solved, proven impossible, undecided.
    pub solvable: usize,
    /// Proven impossible.
    pub impossible: usize,
    /// Undecided within the budget.
    pub undecided: usize,
    /// Whether every problem was decided (`false`: a budget ran out).
    pub complete: bool,
    /// Wall time of the whole study, milliseconds.
    pub time_ms: f64,
}

/// `endgame study peg`.
pub fn study(args: &StudyPeg, out: Output) -> Result<String> {
    let t0 = std::time::Instant::now();
    let slot = std::mem::size_of::<(u128, u32)>();
    let budget = Budget {
        deadline: (!args.no_limit).then(|| t0 + args.time),
        // Sized for the larger boards' memo slots: within the budget on
        // every board.
        max_memo_entries: match endgame_core::memory::memo_entries_within(
            crate::limits::bytes(args.max_memory)?,
            slot,
        ) {
            0 => bail!(
                "--max-memory {}: too small for a memo (give at least 1M)",
                args.max_memory
            ),
            n => n,
        },
        ..budget(args.max_expansions)
    };
    let mut rows = Vec::new();
    let spinner = Spinner::start(out.progress_mode(), "study peg");
    for (i, b) in args.boards.iter().enumerate() {
        spinner.set_step(&format!("board {} of {}: {b}", i + 1, args.boards.len()));
        rows.extend(api::single_vacancy(b, args.diagonal, &budget)?);
    }
    spinner.finish();
    let count = |v: Option<bool>| rows.iter().filter(|r| r.solvable == v).count();
    let report = StudyReport {
        problems: rows.len(),
        solvable: count(Some(true)),
        impossible: count(Some(false)),
        undecided: count(None),
        complete: count(None) == 0,
        rows,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
    };
    crate::output::finished(out.render(&report, study_text)?, report.complete)
}

/// The single-vacancy study as a table, one line per problem.
fn study_text(r: &StudyReport) -> String {
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

/// The report of a command stopped by its budget before it knew anything
/// worth printing.
#[derive(Debug, Serialize)]
struct Incomplete {
    /// Always `false`.
    complete: bool,
    /// Which budget ran out, in words.
    reason: String,
}

/// `endgame count peg`. The report's time is the whole command's.
pub fn count(args: &CountPeg, out: Output) -> Result<String> {
    let started = std::time::Instant::now();
    let (board, problem) = problem(&args.problem)?;
    let max_bytes = usize::try_from(args.max_memory)
        .context("--max-memory is larger than this machine can address")?;
    let across = args.workers.is_some() || args.hosts.is_some();
    // Across processes, per-layer lines replace the bar where they show.
    let mode = match across && layer_lines(args, out) {
        true => crate::progress::Mode::Off,
        false => out.progress_mode(),
    };
    let bar = Bar::new(mode, &format!("count peg {}", board.name()));
    if !across {
        if args.checkpoint.is_some() || args.progress || args.spill {
            bail!("--checkpoint, --spill and --progress need --workers or --hosts");
        }
    } else {
        let text = count_across(args, out, started, (&board, &problem), &bar);
        bar.finish();
        return text;
    }
    let opts = api::CountOptions {
        max_bytes,
        goal_only: args.goal_only,
        solutions: !args.no_solutions,
        // Within usize: clap keeps it to 1..=MAX_THREADS.
        threads: args.threads.map(|n| n as usize),
    };
    // The layered count has no deadline of its own: the watchdog ends
    // it there.
    let _watchdog = (!args.no_limit).then(|| {
        crate::limits::Watchdog::arm(
            started,
            args.time,
            out,
            format!("count peg {}", board.name()),
        )
    });
    let extra_opts = api::ExtraOptions {
        random_success: args.random_success,
        canonical_paths: args.canonical_paths,
        move_sets: args.move_sets,
        max_bytes,
        threads: args.threads.map(|n| n as usize),
    };
    let report = api::count_with_extra(&problem, opts, Some(&extra_opts), &bar);
    bar.finish();
    let incomplete = |why: String| {
        let incomplete = Incomplete {
            complete: false,
            reason: why,
        };
        let text = out.render(&incomplete, |i| format!("incomplete: {}\n", i.reason))?;
        crate::output::finished(text, false)
    };
    let (mut report, extra) = match report {
        // The memory budget ran out: a budget, not bad input.
        Err(endgame_peg::PegError::Budget(why)) if why.starts_with("count stopped") => {
            return incomplete(why);
        }
        r => r?,
    };
    let extra = match extra {
        // A memory budget of the extra counts ran out: a budget too.
        Some(Err(endgame_peg::PegError::Budget(why))) => return incomplete(why),
        Some(r) => Some(r?),
        None => None,
    };
    report.time_ms = started.elapsed().as_secs_f64() * 1e3;
    let report = CountPegReport {
        report,
        extra,
        cluster: None,
    };
    out.render(&report, |r| {
        let text = human::count(&board, &r.report);
        match &r.extra {
            Some(extra) => with_extra_counts(&text, extra),
            None => text,
        }
    })
}

/// `endgame count peg --workers N` or `--hosts FILE --process I`: the
/// count across processes (`endgame_cluster`), whose report process 0
/// renders as one process would; the other processes print nothing.
fn count_across(
    args: &CountPeg,
    out: Output,
    started: std::time::Instant,
    (board, problem): (&Board, &AnyProblem),
    bar: &Bar,
) -> Result<String> {
    if args.random_success || args.canonical_paths || args.move_sets {
        bail!("--random-success, --canonical-paths and --move-sets do not run across processes");
    }
    if args.spill && args.goal_only {
        bail!("--spill counts everything: drop --goal-only");
    }
    let max_bytes = usize::try_from(args.max_memory)
        .context("--max-memory is larger than this machine can address")?;
    // Checkpoints belong to the problem and what is counted, not to the
    // memory budget: a count may resume with another one.
    let checkpoint = args.checkpoint.as_ref().map(|dir| {
        use std::hash::Hasher;
        let mut h = endgame_core::hash::MumHasher::default();
        h.write(
            format!(
                "checkpoint|{}|{:?}|{}|{}",
                env!("CARGO_PKG_VERSION"),
                args.problem,
                args.goal_only,
                args.no_solutions,
            )
            .as_bytes(),
        );
        endgame_cluster::Checkpoint {
            dir: dir.clone(),
            fingerprint: h.finish(),
        }
    });
    let (cluster, workers) = match (args.workers, &args.hosts, args.process) {
        (Some(n), _, _) => {
            // Refused before any worker starts: one line, from here.
            if let Some(ck) = &checkpoint {
                ck.check(n as usize)?;
            }
            let exe =
                std::env::current_exe().context("cannot find this program to start workers")?;
            let (c, w) = endgame_cluster::start(n as usize, exe, worker_args())?;
            (c, Some(w))
        }
        (None, Some(file), Some(i)) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the host file {}", file.display()))?;
            (
                endgame_cluster::Cluster::from_host_file(&text, i as usize)?,
                None,
            )
        }
        _ => bail!("--hosts needs --process"),
    };
    let cluster = endgame_cluster::Cluster {
        timeout: args.connect_timeout,
        ..cluster
    };
    endgame_cluster::exit_on_panic(cluster.process);
    // Processes must agree on the work: the problem as given, the
    // options and this program's version.
    let job = {
        use std::hash::Hasher;
        let mut h = endgame_core::hash::MumHasher::default();
        h.write(
            format!(
                "{}|{:?}|{}|{}|{}|{}",
                env!("CARGO_PKG_VERSION"),
                args.problem,
                args.goal_only,
                args.no_solutions,
                args.max_memory,
                args.spill
            )
            .as_bytes(),
        );
        h.finish()
    };
    let opts = endgame_core::layered::LayeredOptions {
        max_bytes,
        count_all: !args.goal_only,
        prune: args.goal_only,
        count_solutions: !args.no_solutions || !args.goal_only,
        ..Default::default()
    };
    // Per-layer lines on process 0 replace its bar: on a terminal, or
    // everywhere with --progress.
    let lines = cluster.process == 0 && layer_lines(args, out);
    let silent = endgame_core::layered::Silent;
    let progress: &dyn endgame_core::layered::Progress = match cluster.process {
        0 if !lines => bar,
        _ => &silent,
    };
    let print_line = |l: &endgame_cluster::LayerLine| eprintln!("{}", layer_line(l));
    // Removed when dropped: on success and on error (Ctrl-C removes its
    // files from a thread of its own).
    let spill = match args.spill {
        true => Some(endgame_cluster::Spill::new(args.checkpoint.as_deref())?),
        false => None,
    };
    let run = endgame_cluster::Run {
        checkpoint: checkpoint.as_ref(),
        on_layer: lines.then_some(&print_line as &dyn Fn(&endgame_cluster::LayerLine)),
        spill: spill.as_ref(),
        ..endgame_cluster::Run::new(job, progress)
    };
    let _watchdog = (!args.no_limit)
        .then(|| crate::limits::Watchdog::arm(started, args.time, out, "count peg".to_string()));
    let report = endgame_cluster::peg::count(problem, &opts, &cluster, &run, started);
    let report = match report {
        // A budget ran out on some process: all of them stop.
        Err(endgame_cluster::ClusterError::Count(e)) => {
            if let Some(w) = workers {
                w.wait()?;
            }
            let incomplete = Incomplete {
                complete: false,
                reason: format!("count stopped: {e}"),
            };
            let text = out.render(&incomplete, |i| format!("incomplete: {}\n", i.reason))?;
            return crate::output::finished(text, false);
        }
        r => r?,
    };
    if let Some(w) = workers {
        w.wait()?;
    }
    let Some((mut report, stats)) = report else {
        return Ok(String::new());
    };
    report.time_ms = started.elapsed().as_secs_f64() * 1e3;
    let report = CountPegReport {
        report,
        extra: None,
        cluster: Some(ClusterJson {
            layers_loaded: stats.layers_loaded,
            layers_computed: stats.layers_computed,
            exchanged_positions: stats.sent,
            exchanged_bytes: stats.sent_bytes,
            spilled_layers: stats.spilled,
            planned_peak_bytes: stats.planned_peak,
        }),
    };
    out.render(&report, |r| human::count(board, &r.report))
}

/// Whether a count across processes prints a line per layer: with
/// --progress, or on a terminal without --quiet.
fn layer_lines(args: &CountPeg, out: Output) -> bool {
    args.progress || (!out.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()))
}

/// A progress line of the count across processes: the layer's positions
/// up to symmetry, what the exchange sent to other processes while it was
/// built, and the rate.
fn layer_line(l: &endgame_cluster::LayerLine) -> String {
    let n = |x: u64| human::group(&x.to_string());
    if l.loaded {
        return format!(
            "layer {}: {} positions, loaded from the checkpoint",
            l.depth,
            n(l.positions)
        );
    }
    let rate = l.positions as f64 / l.seconds.max(1e-9);
    format!(
        "layer {}: {} positions, {} sent between processes ({:.1} MB), {:.2} s, {} positions/s",
        l.depth,
        n(l.positions),
        n(l.sent),
        l.sent_bytes as f64 / 1e6,
        l.seconds,
        n(rate as u64),
    )
}

/// What a count across processes adds to the JSON report.
#[derive(Debug, Serialize)]
struct ClusterJson {
    /// Forward layers read from `--checkpoint` files.
    layers_loaded: usize,
    /// Forward layers computed by this run.
    layers_computed: usize,
    /// Positions and weighted pairs sent between processes.
    exchanged_positions: u64,
    /// Their bytes in memory.
    exchanged_bytes: u64,
    /// Layer shares written to disk by `--spill` (over every process).
    spilled_layers: usize,
    /// The most memory one process planned for a step (its layers in
    /// memory, bitmap, buffers and an allowance).
    planned_peak_bytes: u64,
}

/// This command's arguments without `--workers N`: the other processes
/// of a local cluster run them with `--hosts` and `--process` instead.
fn worker_args() -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut args = std::env::args_os().skip(1);
    while let Some(a) = args.next() {
        if a == "--workers" {
            args.next();
        } else if !a.to_string_lossy().starts_with("--workers=") {
            out.push(a);
        }
    }
    out
}

/// The report of `endgame count peg`: the count's, and the counts asked
/// for by `--random-success`, `--canonical-paths` and `--move-sets`
/// (`endgame_peg::api::extra_counts`).
#[derive(Debug, Serialize)]
struct CountPegReport {
    #[serde(flatten)]
    report: api::CountReport,
    #[serde(flatten)]
    extra: Option<api::Extra>,
    /// Only across processes.
    #[serde(flatten)]
    cluster: Option<ClusterJson>,
}

/// The count's text with the extra counts after its `solutions` line.
fn with_extra_counts(text: &str, extra: &api::Extra) -> String {
    let field = |label: &str, value: String| format!("{label:13}{value}\n");
    let mut lines = String::new();
    if let Some(p) = &extra.random_success {
        lines.push_str(&field(
            "random play",
            format!("reaches the goal with probability {:.6e}", p.float),
        ));
        lines.push_str(&field("", format!("= {}", p.exact)));
    }
    if let Some(n) = &extra.canonical_paths {
        lines.push_str(&field(
            "paths",
            format!("{} sequences of positions up to symmetry", human::group(n)),
        ));
    }
    if let (Some(raw), Some(reduced)) = (extra.move_sets, extra.move_sets_reduced) {
        lines.push_str(&field(
            "move sets",
            format!(
                "{} ({} up to symmetry)",
                human::group(&raw.to_string()),
                human::group(&reduced.to_string())
            ),
        ));
    }
    match text.find("\nsolutions ") {
        Some(at) => {
            let end = text[at + 1..]
                .find('\n')
                .map_or(text.len(), |e| at + 1 + e + 1);
            format!("{}{lines}{}", &text[..end], &text[end..])
        }
        None => format!("{text}{lines}"),
    }
}

/// `endgame hint peg`: the analysis service's answer, as is with
/// `--json`. `--max-expansions` sets the node budget; the time budget is
/// the service's default, as on the web.
pub fn hint(args: &HintPeg, out: Output) -> Result<String> {
    let (board, problem) = problem(&args.problem)?;
    let mut budget = endgame_core::budget::Budget::unlimited()
        .with_nodes(args.max_expansions.unwrap_or(api::DEFAULT_NODES))
        .with_memory(crate::limits::bytes(args.max_memory)?);
    if !args.no_limit {
        budget = budget.with_time(args.time.unwrap_or(api::DEFAULT_TIME));
    }
    let spinner = Spinner::start(out.progress_mode(), "hint peg: weighing every move");
    let service = api::Service::new();
    let report = service.analyze_with(&problem, args.count_limit, &budget);
    spinner.finish();
    crate::output::hint(&out, &report, |r| hint_text(&board, r))
}

/// The text of `endgame hint peg`.
fn hint_text(board: &Board, a: &api::PegAnalysis) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "position     {}", a.position);
    if let Ok(pegs) = api::parse_position(board, &a.position) {
        for row in board.draw(|h| pegs[h]).lines() {
            let _ = writeln!(out, "             {row}");
        }
    }
    let result = a.result.unwrap_or(PuzzleResult::UNKNOWN);
    let reach = match result.solvable {
        Some(true) => "reachable",
        Some(false) => "not reachable",
        None => "undecided within the budget",
    };
    let _ = writeln!(out, "goal         {} ({reach})", a.detail.goal);
    if let Some(p) = &a.detail.proof {
        let _ = writeln!(out, "proof        {p}");
    }
    if result.solvable == Some(false) {
        let best = match (result.best, result.best_proven) {
            (Some(b), true) => format!("{b} pegs left (proven best)"),
            (Some(b), false) => format!("{b} pegs left (not proven best)"),
            (None, _) => "undecided".into(),
        };
        let _ = writeln!(out, "best result  {best}");
    }
    if let Some(r) = a.remoteness {
        let _ = writeln!(out, "remoteness   {r} moves");
    }
    let by = match a.decided_by {
        Decided::Table => "solved table",
        Decided::Search => "search",
        Decided::Heuristic => "heuristic",
        Decided::Undecided => "undecided",
    };
    let table = a
        .detail
        .table
        .as_deref()
        .map_or(String::new(), |t| format!(" ({t})"));
    let _ = writeln!(out, "decided by   {by}{table}");
    if let Some(n) = &a.detail.solutions {
        let _ = writeln!(out, "solutions    {n}");
    }
    let _ = writeln!(out, "moves        {}", a.moves.len());
    let width = a.moves.iter().map(|m| m.mv.len()).max().unwrap_or(0);
    for m in &a.moves {
        let r = m.result.unwrap_or(PuzzleResult::UNKNOWN);
        let what = match (r.solvable, &m.detail.solutions) {
            (_, Some(n)) if n != "0" => format!("{n} solutions"),
            (Some(true), _) => "goal reachable".to_string(),
            (Some(false), _) => match (r.best, r.best_proven) {
                (Some(b), true) => format!("goal lost, best {b} pegs"),
                _ => "goal lost".to_string(),
            },
            (None, _) => "undecided".to_string(),
        };
        let rem = m
            .remoteness
            .map_or(String::new(), |r| format!(", {r} moves"));
        let _ = writeln!(
            out,
            "  {:width$}  {:6}  {what}{rem}",
            m.mv,
            m.colour.as_str()
        );
    }
    if !a.line.is_empty() {
        let _ = writeln!(out, "best line    {}", a.line.join(" "));
    }
    if let Some(r) = &a.reason {
        let _ = writeln!(out, "note         {r}");
    }
    out
}

/// The report of `endgame boards`.
#[derive(Clone, Debug, Serialize)]
pub struct BoardsReport {
    /// The built-in boards.
    pub boards: Vec<BoardInfo>,
}

/// `endgame boards`.
pub fn boards(out: Output) -> Result<String> {
    let report = BoardsReport {
        boards: api::boards(),
    };
    out.render(&report, |r| human::boards(&r.boards))
}

/// The problem the arguments describe.
fn spec(p: &PegProblem) -> Result<Spec> {
    let board = match &p.art {
        Some(arg) => BoardSource::Art(read_art(arg)?),
        None => BoardSource::Named(p.board.clone()),
    };
    Ok(Spec {
        board,
        diagonal: p.diagonal,
        vacate: (!p.vacate.is_empty()).then(|| p.vacate.iter().map(|h| h.trim().into()).collect()),
        position: p.position.clone(),
        finish: finish(p.finish.as_deref())?,
        pruning: Pruning {
            classes: !p.no_classes,
            pagodas: !p.no_pagoda,
        },
    })
}

/// `--finish`: a hole, `any`, or holes separated by commas.
fn finish(arg: Option<&str>) -> Result<Finish> {
    let Some(arg) = arg else {
        return Ok(Finish::Default);
    };
    if arg.trim().eq_ignore_ascii_case("any") {
        return Ok(Finish::Any);
    }
    let holes: Vec<String> = arg
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(String::from)
        .collect();
    match holes.len() {
        0 => bail!("--finish '{arg}': name a hole (d4), holes (d4,e5) or 'any'"),
        1 => Ok(Finish::Hole(holes[0].clone())),
        _ => Ok(Finish::Pattern(holes)),
    }
}

/// `--art`: the art itself, a file holding it, or `-` for stdin.
fn read_art(arg: &str) -> Result<String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("--art -: cannot read the board from stdin")?;
        return Ok(s);
    }
    let path = Path::new(arg);
    if path.is_file() {
        return std::fs::read_to_string(path)
            .with_context(|| format!("--art: cannot read the board file '{arg}'"));
    }
    // One row of art has only pegs, holes and spaces; anything else on a
    // single line was meant as a file name.
    let one_row = !arg.contains(['/', '\n']);
    if one_row && !arg.chars().all(|c| matches!(c, 'o' | '.' | ' ')) {
        bail!(
            "--art '{arg}': no such file, and not board art ('o' peg, '.' hole, space no hole, '/' between rows)"
        );
    }
    Ok(arg.to_string())
}

fn method(m: MethodArg) -> Method {
    match m {
        MethodArg::Dfs => Method::Dfs,
        MethodArg::Astar => Method::Astar,
        MethodArg::AstarManhattan => Method::AstarManhattan,
        MethodArg::Genetic => Method::Genetic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finishes() {
        assert_eq!(finish(None).unwrap(), Finish::Default);
        assert_eq!(finish(Some("any")).unwrap(), Finish::Any);
        assert_eq!(finish(Some("ANY")).unwrap(), Finish::Any);
        assert_eq!(finish(Some("d4")).unwrap(), Finish::Hole("d4".into()));
        assert_eq!(
            finish(Some("d4, e5")).unwrap(),
            Finish::Pattern(vec!["d4".into(), "e5".into()])
        );
        assert!(finish(Some(",")).is_err());
    }

    #[test]
    fn art_is_text_unless_a_file() {
        assert_eq!(read_art("ooo/o.o").unwrap(), "ooo/o.o");
        assert_eq!(read_art("oo.").unwrap(), "oo.");
        assert!(read_art("no-such-board.txt").is_err());
    }
}
