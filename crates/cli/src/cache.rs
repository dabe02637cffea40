//! `endgame cache list|build|clear`: the solved tables every game's
//! analysis service keeps in the cache directory.

use crate::output::Output;
use crate::progress::Spinner;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use endgame_core::budget::Budget;
use endgame_core::cache::{BuildReport, TableInfo, TableState, Tables};
use serde::Serialize;
use std::fmt::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// `endgame cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// The cache's subcommands.
#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Every table the games can keep, with its state and size.
    List,
    /// Builds the named tables (all when none is named), or loads them if
    /// a valid file is there; a damaged file is rebuilt with a warning.
    Build {
        /// Table names as `cache list` prints them.
        names: Vec<String>,
    },
    /// Deletes the named tables' files (all when none is named).
    Clear {
        /// Table names as `cache list` prints them.
        names: Vec<String>,
    },
}

/// The report of `cache list`.
#[derive(Debug, Serialize)]
pub struct ListReport {
    /// The cache directory.
    pub dir: PathBuf,
    /// Every table.
    pub tables: Vec<TableInfo>,
}

/// The report of `cache build`.
#[derive(Debug, Serialize)]
pub struct BuildAll {
    /// The cache directory.
    pub dir: PathBuf,
    /// One report per table.
    pub built: Vec<BuildReport>,
    /// Wall time of the whole command, every table, milliseconds.
    pub total_ms: f64,
}

/// The report of `cache clear`.
#[derive(Debug, Serialize)]
pub struct ClearReport {
    /// The cache directory.
    pub dir: PathBuf,
    /// Files deleted.
    pub deleted: Vec<PathBuf>,
}

/// The services' tables whose names are in `names` (all when empty); an
/// unknown name is an error listing the known ones.
fn select(
    services: &[Arc<dyn Tables>],
    names: &[String],
) -> Result<Vec<(Arc<dyn Tables>, TableInfo)>> {
    let all: Vec<(Arc<dyn Tables>, TableInfo)> = services
        .iter()
        .flat_map(|s| s.tables().into_iter().map(move |t| (s.clone(), t)))
        .collect();
    for n in names {
        if !all.iter().any(|(_, t)| &t.name == n) {
            let known: Vec<&str> = all.iter().map(|(_, t)| t.name.as_str()).collect();
            bail!("unknown table '{n}' (known: {})", known.join(", "));
        }
    }
    Ok(all
        .into_iter()
        .filter(|(_, t)| names.is_empty() || names.contains(&t.name))
        .collect())
}

fn state_text(s: &TableState) -> String {
    match s {
        TableState::Missing => "missing".into(),
        TableState::Building { progress: Some(p) } => format!("building {:.0}%", p * 100.0),
        TableState::Building { progress: None } => "building".into(),
        TableState::Cached => "cached".into(),
        TableState::Ready => "ready".into(),
        TableState::Failed { error } => format!("failed: {error}"),
    }
}

fn size_text(b: Option<u64>) -> String {
    b.map_or_else(|| "-".into(), |b| format!("{:.1} MB", b as f64 / 1e6))
}

/// Runs `endgame cache …` on the tables of `services`, kept in `dir`.
pub fn run(
    args: &CacheArgs,
    out: Output,
    dir: PathBuf,
    services: &[Arc<dyn Tables>],
) -> Result<String> {
    match &args.action {
        CacheAction::List => {
            let tables = select(services, &[])?.into_iter().map(|(_, t)| t).collect();
            out.render(&ListReport { dir, tables }, |r| {
                let mut s = format!("cache directory {}\n", r.dir.display());
                for t in &r.tables {
                    let _ = writeln!(
                        s,
                        "  {:<24} {:<10} {:>10}  {}",
                        t.name,
                        state_text(&t.state),
                        size_text(t.bytes),
                        t.about
                    );
                }
                s
            })
        }
        CacheAction::Build { names } => {
            let started = std::time::Instant::now();
            let chosen = select(services, names)?;
            let mut built = Vec::new();
            for (service, t) in chosen {
                let spinner =
                    Spinner::start(out.progress_mode(), &format!("cache build: {}", t.name));
                let r = service
                    .build(&t.name, &Budget::unlimited())
                    .context("the table vanished from its service")?;
                spinner.finish();
                let r = r.with_context(|| format!("building {}", t.name))?;
                if let Some(w) = &r.warning {
                    eprintln!(
                        "warning: {}: rebuilt, the file was not trusted: {w}",
                        r.name
                    );
                }
                built.push(r);
            }
            let total_ms = started.elapsed().as_secs_f64() * 1e3;
            let report = BuildAll {
                dir,
                built,
                total_ms,
            };
            out.render(&report, |r| {
                let mut s = String::new();
                for b in &r.built {
                    let _ = writeln!(
                        s,
                        "  {:<24} {:<8} {:>12} entries {:>10}  {:.1} s",
                        b.name,
                        b.source,
                        b.entries,
                        size_text(Some(b.bytes)),
                        b.time_ms / 1e3
                    );
                }
                let _ = writeln!(
                    s,
                    "{} table(s) in {}; whole command {}",
                    r.built.len(),
                    r.dir.display(),
                    crate::output::duration(r.total_ms)
                );
                s
            })
        }
        CacheAction::Clear { names } => {
            let chosen = select(services, names)?;
            let mut deleted = Vec::new();
            for (_, t) in chosen {
                match std::fs::remove_file(&t.file) {
                    Ok(()) => deleted.push(t.file.clone()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => bail!("cannot delete {}: {e}", t.file.display()),
                }
            }
            out.render(&ClearReport { dir, deleted }, |r| {
                let mut s = format!(
                    "deleted {} table file(s) from {}\n",
                    r.deleted.len(),
                    r.dir.display()
                );
                for d in &r.deleted {
                    let _ = writeln!(s, "  {}", d.display());
                }
                s
            })
        }
    }
}
