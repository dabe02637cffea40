//! `endgame lab …`: experiments and their results store (endgame-lab).

use crate::output::Output;
use crate::progress::{Mode, Spinner};
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use endgame_lab::experiment::Params;
use endgame_lab::report::csv_line;
use endgame_lab::runner::RunProgress;
use endgame_lab::runner::{self, RunOptions};
use endgame_lab::{registry, Store};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::cell::Cell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `endgame lab`.
#[derive(Debug, Args)]
pub struct LabArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: LabCommand,
}

/// The lab's subcommands.
#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// List the experiments and their parameters.
    List,
    /// Run (or resume, or join) an experiment.
    Run(RunArgs),
    /// Show the runs in a database.
    Status(DbArgs),
    /// Report a run: tables, and plots with --plots.
    Report(ReportArgs),
    /// Export every stored measure.
    Export(ExportArgs),
}

/// The database option.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// SQLite file, or a postgres:// (postgresql://) URL.
    #[arg(long, default_value = "endgame.db")]
    pub db: String,
}

/// `endgame lab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Experiment name (see `endgame lab list`).
    pub experiment: String,
    /// A parameter, `name=value` (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Seed of the run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads computing a batch's units (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Commit at most this many batches, then stop (resume later).
    #[arg(long)]
    pub batches: Option<u64>,
    /// Time limit of this process's share of the run (`600s`): past it
    /// the run stops, the batches committed so far are kept (`lab run`
    /// again resumes), the batch in progress is not stored, and the exit
    /// status is 3.
    #[arg(long, value_name = "TIME", default_value = "3600s",
          value_parser = crate::limits::parse_duration)]
    pub time: std::time::Duration,
    /// No time limit (the memory budget still holds).
    #[arg(long, conflicts_with = "time")]
    pub no_limit: bool,
    /// Memory budget of the units computed at once (`2G`, `512M`): each
    /// experiment declares the most one unit's tables may take (its
    /// solvers stop or refuse before outgrowing that), and the run computes
    /// at most this budget / that many units at once (fewer threads if
    /// need be); a run whose single unit would not fit is refused.
    #[arg(long, value_name = "SIZE", default_value = "8G",
          value_parser = crate::limits::parse_size)]
    pub max_memory: u64,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text.
    Text,
    /// Markdown tables.
    Markdown,
    /// CSV.
    Csv,
    /// JSON.
    Json,
}

/// `endgame lab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run id, or an experiment name (its latest run).
    pub run: String,
    /// Later runs of the same experiment that redo some of its units, e.g.
    /// `martello-random`'s undecided games with a larger `game_ms`
    /// (`--with 7,9`): each unit as the latest run that decided it has it.
    #[arg(long, value_name = "RUN,…", value_delimiter = ',')]
    pub with: Vec<String>,
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the plots (SVG and PNG) into this directory.
    #[arg(long)]
    pub plots: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// CSV, one measure a line.
    Csv,
    /// JSON array.
    Json,
}

/// `endgame lab export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Csv)]
    pub format: ExportFormat,
    /// Only this run.
    #[arg(long)]
    pub run: Option<i64>,
    #[command(flatten)]
    pub db: DbArgs,
}

/// `endgame lab …`.
pub fn run(args: &LabArgs, out: Output) -> Result<String> {
    match &args.command {
        LabCommand::List => list(out),
        LabCommand::Run(a) => run_cmd(a, out),
        LabCommand::Status(a) => status(a, out),
        LabCommand::Report(a) => report(a, out),
        LabCommand::Export(a) => export(a, out),
    }
}

#[derive(Serialize)]
struct ParamRow {
    name: String,
    kind: String,
    default: String,
    help: String,
}

#[derive(Serialize)]
struct ExperimentRow {
    name: String,
    game: String,
    description: String,
    params: Vec<ParamRow>,
}

fn list(out: Output) -> Result<String> {
    let rows: Vec<ExperimentRow> = registry::all()
        .into_iter()
        .map(|e| ExperimentRow {
            name: e.name().into(),
            game: e.game().into(),
            description: e.description().into(),
            params: e
                .params()
                .into_iter()
                .map(|p| ParamRow {
                    name: p.name.into(),
                    kind: format!("{:?}", p.kind).to_lowercase(),
                    default: p.default.into(),
                    help: p.help.into(),
                })
                .collect(),
        })
        .collect();
    out.render(&rows, |rows| {
        let mut s = String::new();
        for e in rows {
            s.push_str(&format!("{} ({})\n  {}\n", e.name, e.game, e.description));
            for p in &e.params {
                s.push_str(&format!(
                    "    {}={}  {} ({})\n",
                    p.name, p.default, p.help, p.kind
                ));
            }
        }
        s
    })
}

fn run_cmd(a: &RunArgs, out: Output) -> Result<String> {
    // Validate everything before touching the database, so bad input
    // writes nothing.
    let exp = registry::find(&a.experiment)?;
    let params = Params::parse(exp, &a.params)?;
    if a.seed > i64::MAX as u64 {
        bail!("--seed must be at most {}", i64::MAX);
    }
    let opts = RunOptions {
        threads: a.threads,
        max_batches: a.batches,
        max_memory: Some(a.max_memory),
    };
    runner::threads_within(exp, &params, &opts)?;
    let started = std::time::Instant::now();
    let mut st = Store::open(&a.db.db)?;
    let shown = RunProgressView::new(out, exp.name());
    // Units stored and in all, as the last progress report said.
    let stored = std::sync::Arc::new(std::sync::Mutex::new((0u64, 0u64)));
    let seen = stored.clone();
    // The runner has no deadline of its own: the watchdog ends the run,
    // and the store's transactions keep what was committed.
    let _watchdog = (!a.no_limit).then(|| {
        crate::limits::Watchdog::arm_with(
            started,
            a.time,
            out,
            format!("lab run {}", exp.name()),
            Box::new(move || {
                let (done, total) = *seen.lock().unwrap_or_else(|e| e.into_inner());
                vec![
                    ("units_done", done.into()),
                    ("units", total.into()),
                    ("resume", "run the same `endgame lab run` again".into()),
                ]
            }),
        )
    });
    let outcome = runner::run_with_progress(&mut st, exp, &params, a.seed, &opts, &mut |p| {
        *stored.lock().unwrap_or_else(|e| e.into_inner()) = (p.units_done, p.units_total);
        shown.update(p)
    })?;
    shown.finish();
    out.render(&outcome, |o| {
        format!(
            "run {} {} — {} {} seed {}: {}/{} units stored{}; this process computed {} units in {} batches on {} thread{} ({:.1} s)\n",
            o.run.id,
            if o.created { "created" } else { "resumed" },
            o.run.experiment,
            o.run.params,
            o.run.seed,
            o.run.units_done,
            o.run.units,
            if o.run.finished_at.is_some() { ", finished" } else { "" },
            o.units_computed,
            o.batches_committed,
            o.threads,
            if o.threads == 1 { "" } else { "s" },
            o.seconds
        )
    })
}

/// How `lab run` shows its progress on stderr: an indicatif bar on a
/// terminal, a plain line at the interval of [`crate::progress`] otherwise
/// (`progress: lab run calibration: batches 4/10, units 40/100 (40 %),
/// 12.5 units/s, about 5 s left, 3 s elapsed`), nothing with `--quiet`.
enum RunProgressView {
    Off,
    Bar(ProgressBar, Rate),
    Lines(Spinner, Rate),
}

/// The rate of the whole run (every worker sharing it) since this process
/// started: units stored before it do not count.
struct Rate {
    t0: Instant,
    start_done: Cell<Option<u64>>,
}

impl Rate {
    fn new() -> Rate {
        Rate {
            t0: Instant::now(),
            start_done: Cell::new(None),
        }
    }

    /// Units per second and the time left, once something was stored.
    fn of(&self, p: &RunProgress) -> Option<(f64, Duration)> {
        let start = *self.start_done.get().get_or_insert(p.units_done);
        self.start_done.set(Some(start));
        let secs = self.t0.elapsed().as_secs_f64();
        let new = p.units_done.saturating_sub(start);
        if new == 0 || secs <= 0.0 {
            return None;
        }
        let rate = new as f64 / secs;
        let left = p.units_total.saturating_sub(p.units_done) as f64 / rate;
        Some((rate, Duration::from_secs_f64(left.min(1e9))))
    }
}

/// `42 s`, `3 min 05 s`, `2 h 07 min`.
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

impl RunProgressView {
    fn new(out: Output, experiment: &str) -> RunProgressView {
        if out.progress() {
            let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:40}] {pos}/{len} units ({msg}, {elapsed}, eta {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b.set_prefix(experiment.to_string());
            b.set_message("- units/s");
            return RunProgressView::Bar(b, Rate::new());
        }
        match out.progress_mode() {
            mode @ Mode::Lines(_) => RunProgressView::Lines(
                Spinner::start(mode, &format!("lab run {experiment}")),
                Rate::new(),
            ),
            Mode::Off | Mode::Terminal => RunProgressView::Off,
        }
    }

    fn update(&self, p: &RunProgress) {
        match self {
            RunProgressView::Off => {}
            RunProgressView::Bar(b, rate) => {
                b.set_length(p.units_total);
                if rate.start_done.get().is_none() {
                    // The bar's own rate and ETA count from here.
                    b.reset();
                }
                b.set_position(p.units_done);
                let r = rate
                    .of(p)
                    .map_or("- units/s".into(), |(r, _)| format!("{r:.1} units/s"));
                b.set_message(format!(
                    "batches {}/{}, {r}",
                    p.batches_done, p.batches_total
                ));
            }
            RunProgressView::Lines(s, rate) => {
                let pct = 100.0 * p.units_done as f64 / p.units_total.max(1) as f64;
                let mut line = format!(
                    "batches {}/{}, units {}/{} ({pct:.0} %)",
                    p.batches_done, p.batches_total, p.units_done, p.units_total
                );
                match rate.of(p) {
                    Some((r, left)) => {
                        line.push_str(&format!(", {r:.1} units/s, about {} left", human(left)))
                    }
                    None => line.push_str(", - units/s"),
                }
                s.set_step(&line);
            }
        }
    }

    fn finish(&self) {
        match self {
            RunProgressView::Off => {}
            RunProgressView::Bar(b, _) => b.finish_and_clear(),
            RunProgressView::Lines(s, _) => s.finish(),
        }
    }
}

fn status(a: &DbArgs, out: Output) -> Result<String> {
    let mut st = Store::open_existing(&a.db)?;
    let runs = runner::runs(&mut st)?;
    out.render(&runs, |runs| {
        let mut s = format!("{} run(s) in {}\n", runs.len(), st.location);
        for r in runs {
            s.push_str(&format!(
                "  #{:<4} {:<22} seed {:<6} {:>7}/{:<7} units  {}  {}\n",
                r.id,
                r.experiment,
                r.seed,
                r.units_done,
                r.units,
                match &r.finished_at {
                    Some(f) => format!("finished {f}"),
                    None => format!("started {} (unfinished)", r.started_at),
                },
                r.params
            ));
        }
        s
    })
}

#[derive(Serialize)]
struct ReportOut {
    #[serde(flatten)]
    report: endgame_lab::report::Report,
    plot_files: Vec<String>,
}

fn report(a: &ReportArgs, out: Output) -> Result<String> {
    let mut st = Store::open_existing(&a.db.db)?;
    let info = runner::find_run(&mut st, &a.run)?;
    let with = a
        .with
        .iter()
        .map(|w| runner::find_run(&mut st, w))
        .collect::<Result<Vec<_>, _>>()?;
    let r = runner::report_with(&mut st, &info, &with)?;
    let files = match &a.plots {
        Some(dir) => endgame_lab::plot::write_all(&r.plots, dir, &format!("run{}-", info.id))?
            .into_iter()
            .map(|p| p.display().to_string())
            .collect(),
        None => Vec::new(),
    };
    let ro = ReportOut {
        report: r,
        plot_files: files,
    };
    let format = if out.json { Format::Json } else { a.format };
    // The files written are news for the user, not part of the report:
    // stderr, so that `> report.md` holds the report alone.
    if format != Format::Json {
        for f in &ro.plot_files {
            eprintln!("wrote {f}");
        }
    }
    let s = match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&ro)?;
            s.push('\n');
            return Ok(s);
        }
        Format::Text => ro.report.text(),
        Format::Markdown => ro.report.markdown(),
        Format::Csv => ro.report.csv(),
    };
    Ok(s)
}

fn export(a: &ExportArgs, out: Output) -> Result<String> {
    let mut st = Store::open_existing(&a.db.db)?;
    if let Some(id) = a.run {
        runner::find_run(&mut st, &id.to_string())?;
    }
    let rows = runner::export(&mut st, a.run)?;
    if out.json || a.format == ExportFormat::Json {
        let mut s = serde_json::to_string_pretty(&rows)?;
        s.push('\n');
        return Ok(s);
    }
    let mut s = csv_line(
        &[
            "run_id",
            "experiment",
            "seed",
            "unit",
            "name",
            "value",
            "text",
        ]
        .map(String::from),
    );
    for r in rows {
        s.push_str(&csv_line(&[
            r.run_id.to_string(),
            r.experiment,
            r.seed.to_string(),
            r.unit.to_string(),
            r.name,
            r.value.map(|v| v.to_string()).unwrap_or_default(),
            r.text.unwrap_or_default(),
        ]));
    }
    Ok(s)
}
