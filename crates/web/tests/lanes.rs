//! Admission by cost: with the solve lane saturated by a long solve (one
//! permit, no queue), an expensive hint is refused with a JSON 503 at
//! once, while the hints of work known to be small (Martello n ≤ 5, the
//! triangle peg board: the cheap lane) and a settled answer asked again
//! (kept by position) still answer promptly; the cheap lane caps its
//! work's time whatever the request asks.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use endgame_web::{app, AppState, Limits};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::{Duration, Instant};
use tower::ServiceExt;

async fn json(app: &Router, uri: &str) -> (StatusCode, Value) {
    let r = app
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = r.status();
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A 22-stone Pentago position the retrograde solver decides in about a
/// second: an expensive hint.
const LATE: &str = "/api/pentago/hints?start=642913157041761117&nodes=1000&time_ms=5000";

/// One solve permit and no queue: a second solve is refused at once.
fn one_permit() -> AppState {
    AppState::new(Limits {
        max_solves: 1,
        max_queue: 0,
        build_tables: false,
        ..Limits::default()
    })
}

/// Starts a solve of the empty Pentago board (never decided within
/// seconds, so it holds the one permit for `ms`) and waits until it holds
/// the permit.
async fn saturate(state: &AppState, app: &Router, ms: u64) -> tokio::task::JoinHandle<StatusCode> {
    let (app2, uri) = (app.clone(), format!("/api/pentago/solve?time_ms={ms}"));
    let h = tokio::spawn(async move { json(&app2, &uri).await.0 });
    let t0 = Instant::now();
    while state.solves_in_use() != (1, 0) {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "the solve did not start"
        );
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    h
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_solve_lane_full_cheap_hints_answer_and_expensive_ones_are_refused() {
    let state = one_permit();
    let app = app(state.clone());
    let long = saturate(&state, &app, 4000).await;
    // Expensive work: refused at once with a reason, not queued.
    let t0 = Instant::now();
    let (s, v) = json(&app, LATE).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(v["error"].as_str().unwrap().contains("busy"), "{v}");
    assert!(t0.elapsed() < Duration::from_secs(1));
    // Small work takes the cheap lane: answered, decided, long before the
    // solve gives its permit back.
    let mut uris: Vec<String> = [
        "/api/martello/hints?n=4&seed=7",
        "/api/martello/hints?n=5&seed=3",
        "/api/peg/hints?board=triangle",
    ]
    .map(String::from)
    .to_vec();
    let mut k = 0;
    while k < uris.len() {
        let uri = uris[k].clone();
        k += 1;
        let t0 = Instant::now();
        let (s, v) = json(&app, &uri).await;
        let took = t0.elapsed();
        assert_eq!(s, StatusCode::OK, "{uri}: {v}");
        assert_eq!(v["decided"], true, "{uri}: {v}");
        assert!(!v["moves"].as_array().unwrap().is_empty(), "{uri}");
        assert!(took < Duration::from_millis(1500), "{uri}: {took:?}");
        assert_eq!(state.solves_in_use(), (1, 0), "{uri} took the solve permit");
        if uri == "/api/peg/hints?board=triangle" {
            // And after a move.
            uris.push(format!(
                "{uri}&moves={}",
                v["moves"][0]["move"].as_str().unwrap()
            ));
        }
    }
    assert_eq!(k, 4);
    let (s, v) = json(&app, "/api/status").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["running"], 1, "{v}");
    assert_eq!(v["cheap_lane"]["running"], 0, "{v}");
    assert_eq!(v["cheap_lane"]["max"], 2, "{v}");
    assert_eq!(v["lane_time_ms"], 100, "{v}");
    assert_eq!(long.await.unwrap(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settled_answer_asked_again_takes_no_permit() {
    let state = one_permit();
    let app = app(state.clone());
    let (s, first) = json(&app, LATE).await;
    assert_eq!(s, StatusCode::OK, "{first}");
    assert_eq!(first["decided"], true, "{first}");
    assert!(first["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["decided"] == true));
    assert_eq!(state.answers_kept(), 1);
    // The same position again, with the solve lane full: the kept answer,
    // at once (it would be a 503 otherwise, as another position is).
    let long = saturate(&state, &app, 3000).await;
    let t0 = Instant::now();
    let (s, again) = json(&app, LATE).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert!(t0.elapsed() < Duration::from_millis(500));
    assert_eq!(again, first);
    let other = "/api/pentago/hints?start=205481007622539795m&nodes=1000";
    let (s, v) = json(&app, other).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert_eq!(long.await.unwrap(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cheap_lane_caps_the_time_a_request_asks_for() {
    // A lane time of 1 ms: a Martello n = 5 board's analysis, which takes
    // longer, stops there and says what stayed undecided, well within the
    // 10 s the request asks for.
    let state = AppState::new(Limits {
        lane_time: Duration::from_millis(1),
        build_tables: false,
        ..Limits::default()
    });
    let app = app(state.clone());
    let (mut undecided, mut settled) = (0, 0);
    for seed in 1..=6 {
        let uri = format!("/api/martello/hints?n=5&seed={seed}&time_ms=10000&nodes=50000000");
        let t0 = Instant::now();
        let (s, v) = json(&app, &uri).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(t0.elapsed() < Duration::from_millis(600), "{uri}");
        if v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["decided"] == false)
        {
            undecided += 1;
        } else {
            settled += 1;
        }
    }
    assert!(undecided > 0, "every n = 5 analysis finished within 1 ms");
    // Only the settled answers are kept.
    assert_eq!(state.answers_kept(), settled);
}
