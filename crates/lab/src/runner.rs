//! Runs experiments into a store, batch by batch, crash-safe and shareable:
//! each batch is claimed, computed and committed in one transaction, so a
//! killed process loses only its uncommitted batch (which stays `todo`),
//! and concurrent workers never compute the same unit twice.

use crate::error::LabError;
use crate::experiment::{Experiment, Params, RunData, UnitData};
use crate::registry;
use crate::store::{Store, Val};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// What this code calls itself in `runs.code_version`.
pub const CODE_VERSION: &str = concat!("endgame-lab ", env!("CARGO_PKG_VERSION"));

/// Options of [`run`].
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Worker threads for the units of a batch (0: one per core).
    pub threads: usize,
    /// Stop after committing this many batches (`None`: until done).
    pub max_batches: Option<u64>,
    /// Memory budget of the units running at once, bytes (`None`: no
    /// limit): at most `max_memory / unit_memory` units run together
    /// ([`Experiment::unit_memory`]); a run whose single unit needs more is
    /// refused before any work.
    pub max_memory: Option<u64>,
}

/// The threads a run of `exp` under `p` may use: `opts.threads` (0: one
/// per core) but no more units at once than `opts.max_memory` holds.
pub fn threads_within(
    exp: &dyn Experiment,
    p: &Params,
    opts: &RunOptions,
) -> Result<usize, LabError> {
    let asked = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let Some(budget) = opts.max_memory else {
        return Ok(asked);
    };
    let unit = exp.unit_memory(p).max(1);
    let fit = budget / unit;
    if fit == 0 {
        return Err(LabError::Memory(format!(
            "{}: one unit may take up to {} MiB of tables with these parameters, more than the memory budget of {} MiB (raise --max-memory)",
            exp.name(),
            unit.div_ceil(1 << 20),
            budget >> 20
        )));
    }
    Ok(asked.min(usize::try_from(fit).unwrap_or(usize::MAX)))
}

/// A run as `status` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// Run id.
    pub id: i64,
    /// Experiment.
    pub experiment: String,
    /// Parameters (canonical JSON).
    pub params: String,
    /// Seed.
    pub seed: u64,
    /// Code that started it.
    pub code_version: String,
    /// Machine that started it.
    pub machine: String,
    /// Start (UTC).
    pub started_at: String,
    /// End (UTC), once every unit is stored.
    pub finished_at: Option<String>,
    /// Units in the run.
    pub units: u64,
    /// Units stored.
    pub units_done: u64,
}

/// What [`run`] did.
#[derive(Clone, Debug, Serialize)]
pub struct RunOutcome {
    /// The run (its state at the end).
    pub run: RunInfo,
    /// Whether this command created the run (else it resumed or joined it).
    pub created: bool,
    /// Batches this process committed.
    pub batches_committed: u64,
    /// Units this process computed.
    pub units_computed: u64,
    /// Wall time of this process, seconds.
    pub seconds: f64,
    /// Units this process ran at once (the threads, within the memory
    /// budget).
    pub threads: usize,
}

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// This machine: host name and cores.
pub fn machine() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{host} ({cores} cores, {})", std::env::consts::ARCH)
}

fn worker() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    format!("{host}:{}", std::process::id())
}

const RUN_COLUMNS: &str = "id, experiment, params, seed, code_version, machine, started_at, finished_at, units, (SELECT COUNT(*) FROM units u WHERE u.run_id = runs.id)";

fn run_info(row: &[Val]) -> RunInfo {
    RunInfo {
        id: row[0].int().unwrap_or(0),
        experiment: row[1].text().unwrap_or_default(),
        params: row[2].text().unwrap_or_default(),
        seed: row[3].int().unwrap_or(0) as u64,
        code_version: row[4].text().unwrap_or_default(),
        machine: row[5].text().unwrap_or_default(),
        started_at: row[6].text().unwrap_or_default(),
        finished_at: row[7].text(),
        units: row[8].int().unwrap_or(0) as u64,
        units_done: row[9].int().unwrap_or(0) as u64,
    }
}

/// Every run, oldest first.
pub fn runs(store: &mut Store) -> Result<Vec<RunInfo>, LabError> {
    Ok(store
        .query(&format!("SELECT {RUN_COLUMNS} FROM runs ORDER BY id"), &[])?
        .iter()
        .map(|r| run_info(r))
        .collect())
}

/// The run a `RUN|EXPERIMENT` argument names: a run id, or the latest run
/// of an experiment.
pub fn find_run(store: &mut Store, which: &str) -> Result<RunInfo, LabError> {
    let rows = if let Ok(id) = which.parse::<i64>() {
        store.query(
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?"),
            &[Val::Int(id)],
        )?
    } else {
        store.query(
            &format!(
                "SELECT {RUN_COLUMNS} FROM runs WHERE experiment = ? ORDER BY id DESC LIMIT 1"
            ),
            &[Val::from(which)],
        )?
    };
    rows.first()
        .map(|r| run_info(r))
        .ok_or_else(|| LabError::UnknownRun(which.to_string()))
}

/// Finds or creates the run of `(experiment, params, seed)`; returns its
/// id and whether it was created.
fn find_or_create(
    store: &mut Store,
    exp: &dyn Experiment,
    params: &Params,
    seed: u64,
) -> Result<(i64, bool), LabError> {
    let key = [
        Val::from(exp.name()),
        Val::from(params.canonical()),
        Val::Int(seed as i64),
    ];
    let select = "SELECT id FROM runs WHERE experiment = ? AND params = ? AND seed = ?";
    if let Some(r) = store.query(select, &key)?.first() {
        return Ok((r[0].int().unwrap_or(0), false));
    }
    store.begin_write()?;
    let r = (|| {
        let units = exp.units(params);
        // ON CONFLICT: a concurrent worker may create the same run first;
        // then this inserts nothing and joins it.
        let inserted = store.exec(
            "INSERT INTO runs (experiment, params, seed, code_version, machine, started_at, units) \
             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (experiment, params, seed) DO NOTHING",
            &[
                key[0].clone(),
                key[1].clone(),
                key[2].clone(),
                Val::from(CODE_VERSION),
                Val::from(machine()),
                Val::from(now_utc()),
                Val::from(units),
            ],
        )?;
        let id = store
            .query(select, &key)?
            .first()
            .and_then(|r| r[0].int())
            .ok_or_else(|| LabError::Db("the new run vanished".into()))?;
        if inserted == 1 {
            extend_batches(store, exp, params, id)?;
        }
        Ok((id, inserted == 1))
    })();
    store.finish(r)
}

/// Batch rows a run gets at a time. A run's batches are made as the
/// workers reach them, this many at once, so that a run of millions of
/// one-unit batches starts at once (making all its rows up front took
/// half a minute for ten million) and the store holds rows only for
/// batches that have been reached.
pub const BATCH_ROWS_AT_ONCE: u64 = 1_024;

/// Adds the next [`BATCH_ROWS_AT_ONCE`] batch rows of run `id` after the
/// last one made, inside the caller's transaction; returns whether any
/// unit was left without a batch row (so that there may be a batch to
/// claim now, made here or by a concurrent worker). Two workers extending
/// at once write the same rows; the second's are ignored.
fn extend_batches(
    store: &mut Store,
    exp: &dyn Experiment,
    params: &Params,
    id: i64,
) -> Result<bool, LabError> {
    let units = exp.units(params);
    let size = exp.batch_size(params).max(1);
    let row = store.query(
        "SELECT COALESCE(MAX(batch) + 1, 0), COALESCE(MAX(end_unit), 0) FROM batches WHERE run_id = ?",
        &[Val::Int(id)],
    )?;
    let (mut batch, mut first) = row.first().map_or((0, 0), |r| {
        (r[0].int().unwrap_or(0), r[1].int().unwrap_or(0) as u64)
    });
    if first >= units {
        return Ok(false);
    }
    for _ in 0..BATCH_ROWS_AT_ONCE {
        if first >= units {
            break;
        }
        let end = first.saturating_add(size).min(units);
        store.exec(
            "INSERT INTO batches (run_id, batch, first_unit, end_unit, status) VALUES (?, ?, ?, ?, 'todo') \
             ON CONFLICT (run_id, batch) DO NOTHING",
            &[Val::Int(id), Val::Int(batch), Val::from(first), Val::from(end)],
        )?;
        first = end;
        batch += 1;
    }
    Ok(true)
}

/// Where a run stands, as [`run_with_progress`] reports it: stored units
/// and committed batches of the whole run (by every worker sharing it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// Units stored.
    pub units_done: u64,
    /// Units in the run.
    pub units_total: u64,
    /// Batches committed.
    pub batches_done: u64,
    /// Batches in the run.
    pub batches_total: u64,
}

/// Runs (or resumes, or joins) the run of `(experiment, params, seed)`
/// until no batch is left `todo` (or `max_batches` were committed).
/// `progress(done, total)` (units) is called at the start and after each
/// batch.
pub fn run(
    store: &mut Store,
    exp: &dyn Experiment,
    params: &Params,
    seed: u64,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunOutcome, LabError> {
    run_with_progress(store, exp, params, seed, opts, &mut |p| {
        progress(p.units_done, p.units_total)
    })
}

/// [`run`], reporting units and batches ([`RunProgress`]) at the start and
/// after each batch this process commits.
pub fn run_with_progress(
    store: &mut Store,
    exp: &dyn Experiment,
    params: &Params,
    seed: u64,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&RunProgress),
) -> Result<RunOutcome, LabError> {
    let t0 = Instant::now();
    let threads = threads_within(exp, params, opts)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| LabError::Unit(format!("thread pool: {e}")))?;
    let (id, created) = find_or_create(store, exp, params, seed)?;
    let total = exp.units(params);
    let count_done = |store: &mut Store| -> Result<u64, LabError> {
        Ok(store.query(
            "SELECT COUNT(*) FROM units WHERE run_id = ?",
            &[Val::Int(id)],
        )?[0][0]
            .int()
            .unwrap_or(0) as u64)
    };
    let batches_total = total.div_ceil(exp.batch_size(params).max(1));
    let mut report = |store: &mut Store, units_done: u64| -> Result<(), LabError> {
        let batches_done = store.query(
            "SELECT COUNT(*) FROM batches WHERE run_id = ? AND status = 'done'",
            &[Val::Int(id)],
        )?[0][0]
            .int()
            .unwrap_or(0) as u64;
        progress(&RunProgress {
            units_done,
            units_total: total,
            batches_done,
            batches_total,
        });
        Ok(())
    };
    let done = count_done(store)?;
    report(store, done)?;
    let me = worker();
    let (mut batches, mut computed) = (0u64, 0u64);
    loop {
        if opts.max_batches.is_some_and(|m| batches >= m) {
            break;
        }
        store.begin_write()?;
        let r = (|| {
            let claim = format!(
                "SELECT batch, first_unit, end_unit FROM batches WHERE run_id = ? AND status = 'todo' ORDER BY batch LIMIT 1{}",
                store.skip_locked()
            );
            let rows = store.query(&claim, &[Val::Int(id)])?;
            let Some(row) = rows.first() else {
                return Ok(None);
            };
            let (batch, first, end) = (
                row[0].int().unwrap_or(0),
                row[1].int().unwrap_or(0) as u64,
                row[2].int().unwrap_or(0) as u64,
            );
            let results = pool.install(|| {
                (first..end)
                    .into_par_iter()
                    .map(|u| {
                        let t = Instant::now();
                        exp.unit(params, seed, u)
                            .map(|m| (u, t.elapsed().as_secs_f64() * 1e3, m))
                    })
                    .collect::<Result<Vec<_>, LabError>>()
            })?;
            for (u, ms, measures) in &results {
                store.exec(
                    "INSERT INTO units (run_id, unit, elapsed_ms) VALUES (?, ?, ?)",
                    &[Val::Int(id), Val::from(*u), Val::Real(*ms)],
                )?;
                for m in measures {
                    store.exec(
                        "INSERT INTO measures (run_id, unit, name, value, text) VALUES (?, ?, ?, ?, ?)",
                        &[
                            Val::Int(id),
                            Val::from(*u),
                            Val::from(m.name.as_str()),
                            Val::from(m.value.filter(|v| v.is_finite())),
                            Val::from(m.text.clone()),
                        ],
                    )?;
                }
            }
            store.exec(
                "UPDATE batches SET status = 'done', worker = ?, done_at = ? WHERE run_id = ? AND batch = ?",
                &[Val::from(me.as_str()), Val::from(now_utc()), Val::Int(id), Val::Int(batch)],
            )?;
            Ok(Some(end - first))
        })();
        match store.finish(r)? {
            Some(n) => {
                batches += 1;
                computed += n;
                let done = count_done(store)?;
                report(store, done)?;
            }
            None => {
                // Nothing to claim: make the next batch rows, if any unit
                // has none yet, and claim again.
                store.begin_write()?;
                let more = extend_batches(store, exp, params, id);
                if !store.finish(more)? {
                    break;
                }
            }
        }
    }
    // The run is finished when every unit is stored (by any worker).
    if count_done(store)? == total {
        store.exec(
            "UPDATE runs SET finished_at = ? WHERE id = ? AND finished_at IS NULL",
            &[Val::from(now_utc()), Val::Int(id)],
        )?;
    }
    let info = find_run(store, &id.to_string())?;
    Ok(RunOutcome {
        run: info,
        created,
        batches_committed: batches,
        units_computed: computed,
        seconds: t0.elapsed().as_secs_f64(),
        threads,
    })
}

/// Loads everything stored for a run.
pub fn load(store: &mut Store, info: &RunInfo) -> Result<RunData, LabError> {
    let mut units: BTreeMap<u64, (f64, UnitData)> = BTreeMap::new();
    for r in store.query(
        "SELECT unit, elapsed_ms FROM units WHERE run_id = ? ORDER BY unit",
        &[Val::Int(info.id)],
    )? {
        units.insert(
            r[0].int().unwrap_or(0) as u64,
            (r[1].real().unwrap_or(0.0), BTreeMap::new()),
        );
    }
    for r in store.query(
        "SELECT unit, name, value, text FROM measures WHERE run_id = ? ORDER BY unit, name",
        &[Val::Int(info.id)],
    )? {
        if let Some(u) = units.get_mut(&(r[0].int().unwrap_or(0) as u64)) {
            u.1.insert(r[1].text().unwrap_or_default(), (r[2].real(), r[3].text()));
        }
    }
    Ok(RunData {
        id: info.id,
        experiment: info.experiment.clone(),
        params: Params::from_canonical(&info.params)?,
        seed: info.seed,
        units_total: info.units,
        units,
    })
}

/// The report of a run.
pub fn report(store: &mut Store, info: &RunInfo) -> Result<crate::report::Report, LabError> {
    report_with(store, info, &[])
}

/// The report of run `info` with the later runs `with` of the same
/// experiment, which redo some of its units (`Experiment::combine`): each
/// unit as the latest run that decided it has it.
pub fn report_with(
    store: &mut Store,
    info: &RunInfo,
    with: &[RunInfo],
) -> Result<crate::report::Report, LabError> {
    let exp = registry::find(&info.experiment)?;
    let mut data = load(store, info)?;
    if !with.is_empty() {
        let mut later = Vec::new();
        for w in with {
            if w.experiment != info.experiment {
                return Err(LabError::Combine(format!(
                    "run {} is `{}`, run {} is `{}`",
                    w.id, w.experiment, info.id, info.experiment
                )));
            }
            if w.id == info.id || with.iter().filter(|v| v.id == w.id).count() > 1 {
                return Err(LabError::Combine(format!("run {} is given twice", w.id)));
            }
            later.push(load(store, w)?);
        }
        data = exp.combine(&data, &later)?;
    }
    let mut r = exp.report(&data);
    r.run = info.id;
    r.combined = with.iter().map(|w| w.id).collect();
    r.experiment = info.experiment.clone();
    r.params = info.params.clone();
    r.seed = info.seed;
    r.units_done = data.units.len() as u64;
    r.units_total = info.units;
    for w in with {
        r.notes.push(format!("with run {}: {}", w.id, w.params));
    }
    Ok(r)
}

/// One row of `export`: a measure with its run and unit.
#[derive(Clone, Debug, Serialize)]
pub struct ExportRow {
    /// Run id.
    pub run_id: i64,
    /// Experiment.
    pub experiment: String,
    /// Seed.
    pub seed: u64,
    /// Unit index.
    pub unit: u64,
    /// Measure name.
    pub name: String,
    /// Numeric value.
    pub value: Option<f64>,
    /// Text value.
    pub text: Option<String>,
}

/// Every stored measure, by run, unit and name (optionally of one run).
pub fn export(store: &mut Store, run: Option<i64>) -> Result<Vec<ExportRow>, LabError> {
    let (filter, params) = match run {
        Some(id) => (" WHERE r.id = ?", vec![Val::Int(id)]),
        None => ("", vec![]),
    };
    Ok(store
        .query(
            &format!(
                "SELECT r.id, r.experiment, r.seed, m.unit, m.name, m.value, m.text \
                 FROM measures m JOIN runs r ON r.id = m.run_id{filter} ORDER BY r.id, m.unit, m.name"
            ),
            &params,
        )?
        .into_iter()
        .map(|r| ExportRow {
            run_id: r[0].int().unwrap_or(0),
            experiment: r[1].text().unwrap_or_default(),
            seed: r[2].int().unwrap_or(0) as u64,
            unit: r[3].int().unwrap_or(0) as u64,
            name: r[4].text().unwrap_or_default(),
            value: r[5].real(),
            text: r[6].text(),
        })
        .collect())
}
