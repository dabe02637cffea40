//! The lab page's API, `/api/lab/…`: experiments and runs from the lab's
//! results store, each run's report (tables, notes) and its plots as SVG,
//! all made by `endgame-lab` itself (its queries, its reports, its plots);
//! the experiments the binary knows (no store needed); and a small run
//! started from the page (`POST /api/lab/runs`), computed by the lab's own
//! runner on a thread of its own, within the caps of [`WEB_MAX_UNITS`],
//! [`WEB_MAX_SECONDS`] and [`check_web_size`].

use crate::api::ApiError;
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use endgame_lab::experiment::Kind;
use endgame_lab::{registry, runner, store, Experiment, LabError, Params, Store};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most units a run started from the web page may have.
pub const WEB_MAX_UNITS: u64 = 200;
/// Computing time of a run started from the web page: past it, the run
/// stops at the next batch boundary (its remaining batches stay `todo`
/// for `endgame lab run` to finish).
pub const WEB_MAX_SECONDS: u64 = 120;
/// Memory budget of a run started from the web page (one unit at a time,
/// [`endgame_lab::experiment::Experiment::unit_memory`]): a run whose unit
/// may need more is refused.
pub const WEB_LAB_MEMORY: u64 = 3 << 30;

/// The lab's store, opened once when the server starts.
pub struct Lab {
    /// The store as given (a URL with its password): web runs open a
    /// connection of their own.
    db: String,
    location: String,
    store: Mutex<Store>,
    /// The run started from the web page, if any (one at a time).
    job: Mutex<Option<Job>>,
}

/// A run started from the web page: its id and what became of it.
#[derive(Clone, Debug, serde::Serialize)]
struct Job {
    run: i64,
    /// `running`, `finished`, `stopped` (the time cap) or `failed`.
    state: &'static str,
    message: Option<String>,
}

impl Lab {
    /// Opens an existing store (a SQLite file or a `postgres://` URL)
    /// without writing to it: a missing file or an empty database is an
    /// error. Call it outside any async runtime (the PostgreSQL client
    /// runs its own).
    pub fn open(db: &str) -> Result<Lab, LabError> {
        Ok(Lab {
            db: db.to_string(),
            location: store::redact(db),
            store: Mutex::new(Store::open_existing(db)?),
            job: Mutex::new(None),
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
        .route("/lab/experiments", get(experiments))
        .route("/lab/runs", post(start))
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
    let job = app.lab.as_ref().and_then(|l| {
        l.job
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .filter(|j| j.run == id)
    });
    Ok(Json(
        json!({ "run": info, "report": report, "plot_urls": plots, "job": job }),
    ))
}

/// One experiment as the page shows it: name, game, description and its
/// parameters (name, kind, default, help).
fn experiment_json(e: &dyn Experiment) -> serde_json::Value {
    let params: Vec<serde_json::Value> = e
        .params()
        .iter()
        .map(|p| {
            let kind = match p.kind {
                Kind::Int => "int",
                Kind::Float => "float",
                Kind::Text => "text",
            };
            json!({ "name": p.name, "kind": kind, "default": p.default, "help": p.help })
        })
        .collect();
    json!({ "name": e.name(), "game": e.game(), "description": e.description(), "params": params })
}

/// `GET /api/lab/experiments`: every experiment this binary knows with its
/// parameters, whether or not a store is open; `db` (the store or null)
/// and the caps of a run started from the page.
async fn experiments(State(app): State<AppState>) -> Json<serde_json::Value> {
    let exps: Vec<serde_json::Value> = registry::all().into_iter().map(experiment_json).collect();
    Json(json!({
        "db": app.lab.as_ref().map(|l| l.location().to_string()),
        "experiments": exps,
        "web_caps": { "max_units": WEB_MAX_UNITS, "max_seconds": WEB_MAX_SECONDS,
                      "max_memory_bytes": WEB_LAB_MEMORY,
                      "int_params": "at most their defaults (pentago-solver-speed's stone bounds excepted)" },
    }))
}

/// Parameters a web run may raise above their defaults: bounds that only
/// make the work smaller as they grow (more stones, a shorter solve).
const FREE_PARAMS: &[(&str, &str)] = &[
    ("pentago-solver-speed", "min_stones"),
    ("pentago-solver-speed", "max_stones"),
];

/// The size cap of a run started from the web page: at most
/// [`WEB_MAX_UNITS`] units, and every integer parameter (sizes, budgets,
/// table bits, sleeps) at most its default, the sizes the lab's README
/// times at 81 s or less on one thread, [`FREE_PARAMS`] excepted.
pub fn check_web_size(exp: &dyn Experiment, p: &Params) -> Result<(), LabError> {
    let units = exp.units(p);
    if units > WEB_MAX_UNITS {
        return Err(LabError::BadParam(format!(
            "{}: {units} units; a run started from the web page has at most {WEB_MAX_UNITS} (use `endgame lab run` for more)",
            exp.name()
        )));
    }
    for s in exp.params() {
        if s.kind != Kind::Int || FREE_PARAMS.contains(&(exp.name(), s.name)) {
            continue;
        }
        let default: u64 = s.default.parse().unwrap_or(0);
        if p.int(s.name) > default {
            return Err(LabError::BadParam(format!(
                "{}: `{}` = {} is above its default {default}, the most a run started from the web page may use (use `endgame lab run` for more)",
                exp.name(),
                s.name,
                p.int(s.name)
            )));
        }
    }
    Ok(())
}

/// The body of `POST /api/lab/runs`, checked: the experiment, its
/// parameters by the lab's own validation, the seed, the web cap.
fn parse_start(body: &[u8]) -> Result<(&'static dyn Experiment, Params, u64), ApiError> {
    let v: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad(format!(
            "the body must be JSON {{\"experiment\": NAME, \"params\": {{…}}, \"seed\": N}}: {e}"
        ))
    })?;
    let name = v
        .get("experiment")
        .and_then(|e| e.as_str())
        .ok_or_else(|| ApiError::bad("`experiment` (a name) is missing"))?;
    let exp = registry::find(name).map_err(ApiError::bad)?;
    let mut pairs = Vec::new();
    match v.get("params") {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Object(m)) => {
            for (k, x) in m {
                let text = match x {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Number(n) => n.to_string(),
                    serde_json::Value::Bool(b) => u8::from(*b).to_string(),
                    _ => {
                        return Err(ApiError::bad(format!(
                            "parameter `{k}`: give a number or a text"
                        )))
                    }
                };
                pairs.push(format!("{k}={text}"));
            }
        }
        Some(_) => return Err(ApiError::bad("`params` must be an object {name: value}")),
    }
    let params = Params::parse(exp, &pairs).map_err(ApiError::bad)?;
    let seed = match v.get("seed") {
        None | Some(serde_json::Value::Null) => 1,
        Some(s) => s
            .as_u64()
            .or_else(|| s.as_str().and_then(|t| t.trim().parse().ok()))
            .filter(|&s| s <= i64::MAX as u64)
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "seed {s} is not a whole number in 0..={}",
                    i64::MAX
                ))
            })?,
    };
    check_web_size(exp, &params).map_err(ApiError::bad)?;
    let one_at_a_time = runner::RunOptions {
        threads: 1,
        max_batches: None,
        max_memory: Some(WEB_LAB_MEMORY),
    };
    runner::threads_within(exp, &params, &one_at_a_time).map_err(ApiError::bad)?;
    Ok((exp, params, seed))
}

/// `POST /api/lab/runs` with `{"experiment", "params": {…}, "seed"}`:
/// starts (or resumes) that run in the store with the lab's runner, one
/// thread, one batch at a time (the store's batch locking, so a
/// `endgame lab run` of the same run joins it), off the request threads.
/// Answers 202 with the run at once; its progress is in
/// `GET /api/lab/runs/{id}` (`units_done`, `finished_at`, `job`). Bad
/// input is a 400, a run already going from the page a 409, no store a 404.
async fn start(
    State(app): State<AppState>,
    body: axum::body::Bytes,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let (exp, params, seed) = parse_start(&body)?;
    let lab = app.lab.clone().ok_or_else(|| {
        not_found("no lab store: start the server with `endgame serve --db PATH|postgres://…`")
    })?;
    {
        let job = lab.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(j) = job.as_ref().filter(|j| j.state == "running") {
            return Err(ApiError {
                status: StatusCode::CONFLICT,
                message: format!(
                    "run {} started from this page is still going; wait for it",
                    j.run
                ),
            });
        }
    }
    // Open a connection of its own and create (or find) the run: fast,
    // on the blocking pool; then compute on a thread of its own.
    let lab2 = lab.clone();
    let made =
        tokio::task::spawn_blocking(move || -> Result<(Store, runner::RunInfo), LabError> {
            let mut st = Store::open(&lab2.db)?;
            let opts = runner::RunOptions {
                threads: 1,
                max_batches: Some(0),
                max_memory: Some(WEB_LAB_MEMORY),
            };
            let out = runner::run(&mut st, exp, &params, seed, &opts, &mut |_, _| {})?;
            Ok((st, out.run))
        })
        .await
        .map_err(|e| ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: format!("starting the run failed: {e}"),
        })?
        .map_err(lab_error)?;
    let (st, info) = made;
    let params = Params::from_canonical(&info.params).map_err(lab_error)?;
    {
        let mut job = lab.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(j) = job.as_ref().filter(|j| j.state == "running") {
            return Err(ApiError {
                status: StatusCode::CONFLICT,
                message: format!(
                    "run {} started from this page is still going; wait for it",
                    j.run
                ),
            });
        }
        *job = Some(Job {
            run: info.id,
            state: if info.finished_at.is_some() {
                "finished"
            } else {
                "running"
            },
            message: None,
        });
    }
    if info.finished_at.is_none() {
        let lab = lab.clone();
        std::thread::spawn(move || {
            // A panic in an experiment must not leave the page's job
            // "running" (which would refuse every later start).
            let keep = lab.clone();
            let run = std::panic::AssertUnwindSafe(|| compute(lab, st, exp, params, seed));
            if std::panic::catch_unwind(run).is_err() {
                let mut job = keep.job.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(j) = job.as_mut() {
                    j.state = "failed";
                    j.message = Some("the experiment panicked; see the server's log".into());
                }
            }
        });
    }
    Ok((StatusCode::ACCEPTED, Json(json!({ "run": info }))))
}

/// Computes a web run batch by batch until it is done, fails, or has
/// computed for [`WEB_MAX_SECONDS`]; records the outcome in the lab's job.
fn compute(lab: Arc<Lab>, mut st: Store, exp: &'static dyn Experiment, params: Params, seed: u64) {
    let t0 = Instant::now();
    let opts = runner::RunOptions {
        threads: 1,
        max_batches: Some(1),
        max_memory: Some(WEB_LAB_MEMORY),
    };
    let (state, message) = loop {
        match runner::run(&mut st, exp, &params, seed, &opts, &mut |_, _| {}) {
            Err(e) => break ("failed", Some(e.to_string())),
            Ok(out) if out.run.finished_at.is_some() => break ("finished", None),
            // Nothing left to claim (another worker holds the last
            // batches): done here.
            Ok(out) if out.batches_committed == 0 => {
                break ("stopped", Some(format!("{}/{} units stored; the other batches are another worker's", out.run.units_done, out.run.units)))
            }
            Ok(out) if t0.elapsed() >= Duration::from_secs(WEB_MAX_SECONDS) => {
                break ("stopped", Some(format!(
                    "stopped after {WEB_MAX_SECONDS} s with {}/{} units stored; `endgame lab run` with the same parameters and seed finishes it",
                    out.run.units_done, out.run.units
                )))
            }
            Ok(_) => {}
        }
    };
    let mut job = lab.job.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(j) = job.as_mut() {
        j.state = state;
        j.message = message;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{app, Limits};
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn call(
        app: &Router,
        method: &str,
        uri: &str,
        body: &str,
    ) -> (StatusCode, serde_json::Value) {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let r = app.clone().oneshot(req).await.unwrap();
        let s = r.status();
        let b = r.into_body().collect().await.unwrap().to_bytes();
        (
            s,
            serde_json::from_slice(&b).unwrap_or(serde_json::Value::Null),
        )
    }

    /// A fresh store's path, and the guard that removes its directory.
    fn temp_db(name: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("endgame-web-lab-{name}-"))
            .tempdir()
            .unwrap();
        let db = dir.path().join("lab.db").display().to_string();
        Store::open(&db).unwrap();
        (dir, db)
    }

    #[test]
    fn bad_starts_are_one_line_400s_and_the_cap_holds() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let (_dir, db) = temp_db("bad");
        let app = app(AppState::new(Limits::default()).with_lab(Lab::open(&db).unwrap()));
        let cases = [
            ("not json", "JSON"),
            (r#"{"params": {}}"#, "experiment"),
            (r#"{"experiment": "chess"}"#, "chess"),
            (
                r#"{"experiment": "calibration", "params": {"nope": 1}}"#,
                "nope",
            ),
            (
                r#"{"experiment": "calibration", "params": {"units": "x"}}"#,
                "non-negative integer",
            ),
            (
                r#"{"experiment": "calibration", "params": {"units": 0}}"#,
                "units",
            ),
            (
                r#"{"experiment": "calibration", "params": {"units": 201, "batch": 10}}"#,
                "at most 200",
            ),
            (
                r#"{"experiment": "calibration", "params": {"sleep_ms": 5}}"#,
                "above its default",
            ),
            (
                r#"{"experiment": "pentago-solver-speed", "params": {"max_nodes": 9000000}}"#,
                "above its default",
            ),
            (r#"{"experiment": "calibration", "seed": -1}"#, "seed"),
            (r#"{"experiment": "calibration", "params": [1]}"#, "object"),
        ];
        for (body, says) in cases {
            let (s, v) = rt.block_on(call(&app, "POST", "/api/lab/runs", body));
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            let msg = v["error"].as_str().unwrap();
            assert!(msg.contains(says) && !msg.contains('\n'), "{body}: {msg}");
        }
        // A store-less server refuses a (valid) start with a 404; the
        // experiments are listed all the same.
        let bare = crate::router(Limits::default());
        let (s, _) = rt.block_on(call(
            &bare,
            "POST",
            "/api/lab/runs",
            r#"{"experiment": "calibration"}"#,
        ));
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = rt.block_on(call(&bare, "GET", "/api/lab/experiments", ""));
        assert_eq!(s, StatusCode::OK);
        let names: Vec<&str> = v["experiments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        let known: Vec<&str> = registry::all().iter().map(|e| e.name()).collect();
        assert_eq!(names, known);
        assert_eq!(v["experiments"][0]["params"][0]["default"], "english");
        assert!(v["db"].is_null());
    }

    #[test]
    fn a_run_started_from_the_page_is_the_lab_runners_run() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let (_dir, db) = temp_db("start");
        let app = app(AppState::new(Limits::default()).with_lab(Lab::open(&db).unwrap()));
        let body =
            r#"{"experiment": "calibration", "params": {"units": "30", "batch": 4}, "seed": "7"}"#;
        let (s, v) = rt.block_on(call(&app, "POST", "/api/lab/runs", body));
        assert_eq!(s, StatusCode::ACCEPTED, "{v}");
        let id = v["run"]["id"].as_i64().unwrap();
        assert_eq!(v["run"]["units"], 30);
        // Its progress through the run route, until the runner is done.
        let t0 = Instant::now();
        let r = loop {
            let (s, r) = rt.block_on(call(&app, "GET", &format!("/api/lab/runs/{id}"), ""));
            assert_eq!(s, StatusCode::OK);
            if r["job"]["state"] != "running" {
                break r;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "the run did not finish: {r}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(r["job"]["state"], "finished", "{r}");
        assert_eq!(r["run"]["units_done"], 30);
        assert!(r["run"]["finished_at"].is_string());
        // The same run made by the lab's runner directly (another store)
        // reports the same.
        let (_other_dir, other) = temp_db("start-direct");
        let mut st = Store::open(&other).unwrap();
        let exp = registry::find("calibration").unwrap();
        let p = Params::parse(exp, &["units=30".into(), "batch=4".into()]).unwrap();
        let out = runner::run(
            &mut st,
            exp,
            &p,
            7,
            &runner::RunOptions::default(),
            &mut |_, _| {},
        )
        .unwrap();
        let direct = runner::report(&mut st, &out.run).unwrap();
        assert_eq!(
            r["report"]["notes"],
            serde_json::to_value(&direct.notes).unwrap()
        );
        assert_eq!(r["run"]["params"], out.run.params.as_str());
        // Started again: the same run, already finished.
        let (s, v) = rt.block_on(call(&app, "POST", "/api/lab/runs", body));
        assert_eq!(s, StatusCode::ACCEPTED);
        assert_eq!(v["run"]["id"], id);
        assert!(v["run"]["finished_at"].is_string());
    }
}
