//! The server's handling of solver work: a bounded number of solves at
//! once, a bounded queue with a wait limit (503 only when it is full or the
//! wait expires), a client that goes away cancelling its solve and giving
//! its permit back; and the lab's API against a temporary SQLite store
//! filled by the lab's own runner.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use endgame_lab::runner::{self, RunOptions};
use endgame_lab::{registry, Params, Store};
use endgame_web::{app, AppState, Lab, Limits};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::{Duration, Instant};
use tower::ServiceExt;

async fn call(app: &Router, uri: &str) -> (StatusCode, String, Vec<u8>) {
    let r = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = r.status();
    let ty = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = r.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, ty, bytes)
}

async fn json(app: &Router, uri: &str) -> (StatusCode, Value) {
    let (s, _, b) = call(app, uri).await;
    (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
}

/// A solve of the empty Pentago board: never decided within a few
/// seconds, so it runs until its time is up (or it is cancelled).
fn slow(ms: u64) -> String {
    format!("/api/pentago/solve?time_ms={ms}&nodes=50000000")
}

fn spawn_get(app: &Router, uri: String) -> tokio::task::JoinHandle<(StatusCode, Value)> {
    let app = app.clone();
    tokio::spawn(async move { json(&app, &uri).await })
}

/// Waits until `(running, queued)` is `want`, at most `limit`.
async fn wait_for(state: &AppState, want: (usize, usize), limit: Duration) -> Duration {
    let t0 = Instant::now();
    while state.solves_in_use() != want {
        assert!(
            t0.elapsed() < limit,
            "solves in use {:?}, wanted {want:?} within {limit:?}",
            state.solves_in_use()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    t0.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solves_queue_and_get_503_only_when_the_queue_is_full() {
    let state = AppState::new(Limits {
        max_solves: 1,
        max_queue: 1,
        queue_wait: Duration::from_secs(10),
        ..Limits::default()
    });
    let app = app(state.clone());
    let first = spawn_get(&app, slow(1200));
    wait_for(&state, (1, 0), Duration::from_secs(2)).await;
    // The second waits in the queue …
    let second = spawn_get(&app, "/api/pentago/solve?start=205481007622539795m".into());
    wait_for(&state, (1, 1), Duration::from_secs(2)).await;
    let (s, v) = json(&app, "/api/status").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (v["running"].as_u64(), v["queued"].as_u64()),
        (Some(1), Some(1))
    );
    // … a third finds the queue full: 503 at once, as JSON.
    let t0 = Instant::now();
    let (s, v) = json(&app, "/api/pentago/solve").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        v["error"].as_str().unwrap().contains("queue is full"),
        "{v}"
    );
    assert!(t0.elapsed() < Duration::from_millis(500));
    // Routes without solver work still answer.
    assert_eq!(json(&app, "/api/games").await.0, StatusCode::OK);
    let (s1, v1) = first.await.unwrap();
    assert_eq!(
        (s1, v1["value"].as_str()),
        (StatusCode::OK, Some("unknown"))
    );
    // The queued solve ran once the permit came back, and answered.
    let (s2, v2) = second.await.unwrap();
    assert_eq!((s2, v2["value"].as_str()), (StatusCode::OK, Some("win")));
    wait_for(&state, (0, 0), Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_too_long_in_the_queue_is_a_503() {
    let state = AppState::new(Limits {
        max_solves: 1,
        max_queue: 4,
        queue_wait: Duration::from_millis(300),
        ..Limits::default()
    });
    let app = app(state.clone());
    let first = spawn_get(&app, slow(2000));
    wait_for(&state, (1, 0), Duration::from_secs(2)).await;
    let t0 = Instant::now();
    // An expensive hint (late Pentago) waits in the solve lane's queue.
    let (s, v) = json(&app, "/api/pentago/hints?start=642913157041761117").await;
    let waited = t0.elapsed();
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        v["error"].as_str().unwrap().contains("waited too long"),
        "{v}"
    );
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_millis(1500),
        "{waited:?}"
    );
    // The request that gave up left the queue.
    assert_eq!(state.solves_in_use(), (1, 0));
    assert_eq!(first.await.unwrap().0, StatusCode::OK);
}

/// Drops a request mid-solve (as hyper does when the client disconnects)
/// and measures how soon its permit comes back.
async fn dropped_request_frees_its_permit(uri: &str) -> Duration {
    // An empty cache directory: the work is a search, whatever tables this
    // machine holds (reading a big one is not cancelled midway).
    let dir = std::env::temp_dir().join(format!("endgame-web-test-{}-cancel", std::process::id()));
    let state = AppState::with_cache(
        Limits {
            max_solves: 1,
            ..Limits::default()
        },
        &dir,
    );
    let app = app(state.clone());
    let req = spawn_get(&app, uri.to_string());
    wait_for(&state, (1, 0), Duration::from_secs(2)).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(state.solves_in_use(), (1, 0), "{uri}: still solving");
    req.abort();
    let freed = wait_for(&state, (0, 0), Duration::from_secs(4)).await;
    // The freed permit serves the next solve.
    let (s, _) = json(&app, "/api/pentago/solve?start=205481007622539795m").await;
    assert_eq!(s, StatusCode::OK);
    freed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_cancels_its_solve() {
    // Each solve asks for 10 s; the permit must come back long before.
    for uri in [
        slow(10_000),
        "/api/pentago/hints?time_ms=10000&nodes=50000000".to_string(),
        "/api/peg/hints?board=french&time_ms=10000&nodes=50000000".to_string(),
    ] {
        let freed = dropped_request_frees_its_permit(&uri).await;
        assert!(
            freed < Duration::from_secs(3),
            "{uri}: freed after {freed:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solve_stops_at_its_deadline_and_frees_its_permit() {
    let state = AppState::new(Limits::default());
    let app = app(state.clone());
    let t0 = Instant::now();
    let (s, v) = json(&app, &slow(600)).await;
    assert_eq!((s, v["value"].as_str()), (StatusCode::OK, Some("unknown")));
    // The work itself stopped (not just the answer): the permit is back.
    wait_for(&state, (0, 0), Duration::from_millis(1500)).await;
    assert!(t0.elapsed() < Duration::from_secs(3));
}

/// A temporary SQLite store's path, and the guard that removes it.
fn sqlite_store(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("endgame-web-test-{name}-"))
        .tempdir()
        .unwrap();
    let db = dir.path().join("lab.db").display().to_string();
    (dir, db)
}

/// A fresh schema on the PostgreSQL server `ENDGAME_TEST_POSTGRES` names
/// (`crates/lab/ci/postgres.sh` starts one), or `None` with a notice.
fn postgres_store(name: &str) -> Option<String> {
    let Ok(url) = std::env::var("ENDGAME_TEST_POSTGRES") else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\n*** NOTICE: ENDGAME_TEST_POSTGRES is not set: the PostgreSQL part of `{name}` did NOT run.\n"
        );
        return None;
    };
    let schema = format!("web_{name}_{}", std::process::id());
    let mut st = Store::open_unchecked(&url).unwrap();
    st.exec(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"), &[])
        .unwrap();
    st.exec(&format!("CREATE SCHEMA {schema}"), &[]).unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

/// Fills the store with one calibration run by the lab's runner; its id.
fn fill(db: &str) -> i64 {
    let mut st = Store::open(db).unwrap();
    let exp = registry::find("calibration").unwrap();
    let p = Params::parse(exp, &["units=12".into(), "batch=4".into()]).unwrap();
    runner::run(&mut st, exp, &p, 7, &RunOptions::default(), &mut |_, _| {})
        .unwrap()
        .run
        .id
}

/// The lab API's answers against the store `db` holding run `id`.
async fn check_lab_api(app: &Router, db: &str, id: i64) {
    let (s, v) = json(app, "/api/lab").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["runs"], 1);
    let exps = v["experiments"].as_array().unwrap();
    assert_eq!(exps.len(), registry::all().len());
    let cal = exps.iter().find(|e| e["name"] == "calibration").unwrap();
    assert_eq!(cal["runs"][0]["id"], id);
    assert_eq!(cal["runs"][0]["units_done"], 12);
    // The report is the lab's own, table for table.
    let (s, v) = json(app, &format!("/api/lab/runs/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let db2 = db.to_string();
    let want = tokio::task::spawn_blocking(move || {
        let mut st = Store::open_existing(&db2).unwrap();
        let info = runner::find_run(&mut st, &id.to_string()).unwrap();
        runner::report(&mut st, &info).unwrap()
    })
    .await
    .unwrap();
    assert_eq!(v["run"]["experiment"], "calibration");
    assert_eq!(
        v["report"]["tables"],
        serde_json::to_value(&want.tables).unwrap()
    );
    assert_eq!(
        v["report"]["notes"],
        serde_json::to_value(&want.notes).unwrap()
    );
    let plots = v["plot_urls"].as_array().unwrap();
    assert_eq!(plots.len(), want.plots.len());
    // Each plot as SVG, drawn by the lab's plotter.
    let (s, ty, body) = call(app, plots[0].as_str().unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    assert!(ty.starts_with("image/svg+xml"), "{ty}");
    let svg = String::from_utf8(body).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("Calibration"),
        "{}",
        &svg[..200.min(svg.len())]
    );
    // Bad ids are 400s, unknown ones 404s, as JSON.
    for (uri, want) in [
        ("/api/lab/runs/abc".to_string(), StatusCode::BAD_REQUEST),
        ("/api/lab/runs/-3".to_string(), StatusCode::BAD_REQUEST),
        ("/api/lab/runs/999".to_string(), StatusCode::NOT_FOUND),
        (
            format!("/api/lab/runs/{id}/plots/nope.svg"),
            StatusCode::NOT_FOUND,
        ),
        (
            format!("/api/lab/runs/{id}/plots/nope.png"),
            StatusCode::BAD_REQUEST,
        ),
        (
            "/api/lab/runs/999/plots/x.svg".to_string(),
            StatusCode::NOT_FOUND,
        ),
    ] {
        let (s, v) = json(app, &uri).await;
        assert_eq!(s, want, "{uri}: {v}");
        assert!(v["error"].is_string(), "{uri}: {v}");
    }
}

#[test]
fn the_lab_api_serves_the_stores_runs_reports_and_plots() {
    let (_dir, sqlite) = sqlite_store("lab");
    let stores: Vec<String> = std::iter::once(sqlite)
        .chain(postgres_store("lab"))
        .collect();
    for db in stores {
        let id = fill(&db);
        // Opened, and finally dropped, outside any async runtime: the
        // PostgreSQL client runs one of its own.
        let app = app(AppState::new(Limits::default()).with_lab(Lab::open(&db).unwrap()));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(check_lab_api(&app, &db, id));
        drop(rt);
        drop(app);
    }
}

#[tokio::test]
async fn without_a_store_the_lab_api_is_a_404() {
    let app = app(AppState::new(Limits::default()));
    let (s, v) = json(&app, "/api/lab").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(v["error"].as_str().unwrap().contains("--db"), "{v}");
}

#[test]
fn a_missing_store_is_an_error() {
    let r = Lab::open("/nonexistent/endgame-web-test.db");
    assert!(r.is_err());
}
