//! `endgame lab …`: experiments and their results store (endgame-lab).

use crate::output::Output;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use endgame_lab::experiment::Params;
use endgame_lab::report::csv_line;
use endgame_lab::runner::{self, RunOptions};
use endgame_lab::{registry, Store};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::path::PathBuf;

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
    let mut st = Store::open(&a.db.db)?;
    let bar = if out.progress() {
        let b = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:40}] {pos}/{len} units ({msg}, {elapsed}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b.set_prefix(exp.name().to_string());
        b.set_message("- units/s");
        b
    } else {
        ProgressBar::hidden()
    };
    let mut first = true;
    let mut start_done = 0;
    let t0 = std::time::Instant::now();
    let outcome = runner::run(
        &mut st,
        exp,
        &params,
        a.seed,
        &RunOptions {
            threads: a.threads,
            max_batches: a.batches,
        },
        &mut |done, total| {
            bar.set_length(total);
            if first {
                // Units stored before this process started do not count in
                // the rate.
                bar.reset();
                bar.set_position(done);
                start_done = done;
                first = false;
            } else {
                bar.set_position(done);
                let rate = (done - start_done) as f64 / t0.elapsed().as_secs_f64().max(1e-9);
                bar.set_message(format!("{rate:.1} units/s"));
            }
        },
    )?;
    bar.finish_and_clear();
    out.render(&outcome, |o| {
        format!(
            "run {} {} — {} {} seed {}: {}/{} units stored{}; this process computed {} units in {} batches ({:.1} s)\n",
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
            o.seconds
        )
    })
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
    let r = runner::report(&mut st, &info)?;
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
