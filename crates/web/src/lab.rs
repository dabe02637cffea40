//! The lab page's API, `/api/lab/…`: experiments and runs from the lab's
//! results store, each run's report (tables, notes) and its plots as SVG,
//! all made by `endgame-lab` itself (its queries, its reports, its plots).

use crate::api::ApiError;
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use endgame_lab::{registry, runner, store, LabError, Store};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The lab's store, opened once when the server starts.
pub struct Lab {
    location: String,
    store: Mutex<Store>,
}

impl Lab {
    /// Opens an existing store (a SQLite file or a `postgres://` URL)
    /// without writing to it: a missing file or an empty database is an
    /// error. Call it outside any async runtime (the PostgreSQL client
    /// runs its own).
    pub fn open(db: &str) -> Result<Lab, LabError> {
        Ok(Lab {
            location: store::redact(db),
            store: Mutex::new(Store::open_existing(db)?),
        })
    }

    /// The store's location (a URL's password hidden).
    pub fn location(&self) -> &str {
        &self.location
    }
}

/// The lab's routes (under `/api`).
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/lab", get(overview))
        .route("/lab/runs/{id}", get(run))
        .route("/lab/runs/{id}/plots/{file}", get(plot))
}

fn not_found(message: impl std::fmt::Display) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: message.to_string(),
    }
}

fn lab_error(e: LabError) -> ApiError {
    match e {
        LabError::UnknownRun(_) | LabError::UnknownExperiment(_) => not_found(e),
        _ => ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: e.to_string(),
        },
    }
}

/// Runs `f` on the store, on the blocking pool (both databases' clients
/// block).
async fn with_store<T: Send + 'static>(
    app: &AppState,
    f: impl FnOnce(&mut Store) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let lab = app.lab.clone().ok_or_else(|| {
        not_found("no lab store: start the server with `endgame serve --db PATH|postgres://…`")
    })?;
    tokio::task::spawn_blocking(move || {
        let mut st = lab.store.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut st)
    })
    .await
    .map_err(|e| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("the lab query failed: {e}"),
    })?
}

fn run_id(s: &str) -> Result<i64, ApiError> {
    s.parse::<i64>()
        .ok()
        .filter(|&id| id > 0)
        .ok_or_else(|| ApiError::bad(format!("run id '{s}' is not a positive number")))
}

/// `GET /api/lab`: the store, every experiment the lab knows with its
/// runs (experiments without runs too), newest run last.
async fn overview(State(app): State<AppState>) -> Result<Json<serde_json::Value>, ApiError> {
    let location = app.lab.as_ref().map(|l| l.location().to_string());
    let runs = with_store(&app, |st| runner::runs(st).map_err(lab_error)).await?;
    let mut exps: Vec<serde_json::Value> = registry::all()
        .into_iter()
        .map(|e| {
            let mine: Vec<&runner::RunInfo> =
                runs.iter().filter(|r| r.experiment == e.name()).collect();
            json!({ "name": e.name(), "game": e.game(), "description": e.description(), "runs": mine })
        })
        .collect();
    // Runs of experiments this build no longer knows still show.
    let known: Vec<&str> = registry::all().iter().map(|e| e.name()).collect();
    let orphans: Vec<&runner::RunInfo> = runs
        .iter()
        .filter(|r| !known.contains(&r.experiment.as_str()))
        .collect();
    if !orphans.is_empty() {
        exps.push(json!({ "name": "(unknown to this build)", "game": "", "description": "", "runs": orphans }));
    }
    Ok(Json(
        json!({ "db": location, "runs": runs.len(), "experiments": exps }),
    ))
}

/// `GET /api/lab/runs/{id}`: the run and its report (notes, tables, the
/// plots' data) with the URL of each plot's SVG.
async fn run(
    State(app): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let id = run_id(&id)?;
    let (info, report) = with_store(&app, move |st| {
        let info = runner::find_run(st, &id.to_string()).map_err(lab_error)?;
        let report = runner::report(st, &info).map_err(lab_error)?;
        Ok((info, report))
    })
    .await?;
    let plots: Vec<String> = report
        .plots
        .iter()
        .map(|p| format!("/api/lab/runs/{id}/plots/{}.svg", p.file()))
        .collect();
    Ok(Json(
        json!({ "run": info, "report": report, "plot_urls": plots }),
    ))
}

/// A fresh scratch directory name for one plot.
static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// `GET /api/lab/runs/{id}/plots/{file}.svg`: one plot of the run's
/// report, drawn by the lab's plotter.
async fn plot(
    State(app): State<AppState>,
    Path((id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let id = run_id(&id)?;
    let stem = file
        .strip_suffix(".svg")
        .ok_or_else(|| ApiError::bad(format!("plot '{file}': ask for NAME.svg")))?
        .to_string();
    let svg = with_store(&app, move |st| {
        let info = runner::find_run(st, &id.to_string()).map_err(lab_error)?;
        let report = runner::report(st, &info).map_err(lab_error)?;
        let p = report
            .plots
            .iter()
            .find(|p| p.file() == stem)
            .ok_or_else(|| not_found(format!("run {id} has no plot '{stem}'")))?;
        // The lab draws to files only: draw into a scratch directory and
        // read the SVG back.
        let dir = std::env::temp_dir().join(format!(
            "endgame-web-plot-{}-{}",
            std::process::id(),
            SCRATCH.fetch_add(1, Ordering::SeqCst)
        ));
        let drawn = endgame_lab::plot::write_all(std::slice::from_ref(p), &dir, "");
        let svg = drawn.and_then(|_| {
            std::fs::read_to_string(dir.join(format!("{stem}.svg"))).map_err(|e| LabError::Write {
                path: dir.display().to_string(),
                reason: e.to_string(),
            })
        });
        let _ = std::fs::remove_dir_all(&dir);
        svg.map_err(lab_error)
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}
