//! The server hands back Pentago's pooled layer memory once idle (its own
//! test binary: the pool is process-wide, and other tests solve Pentago
//! positions in parallel).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use endgame_pentago::mid;
use endgame_web::{app, free_pool_when_idle, AppState, Limits};
use std::time::Duration;
use tower::ServiceExt;

#[tokio::test]
async fn an_idle_server_frees_the_pentago_pool() {
    let limits = Limits {
        pool_idle: Duration::from_millis(300),
        ..Limits::default()
    };
    let state = AppState::new(limits);
    let idle = tokio::spawn(free_pool_when_idle(state.clone()));
    // A late solve (22 stones: the retrograde solver) fills the pool.
    let start = "642913157041761117";
    let uri = format!("/api/pentago/solve?start={start}&nodes=1000&time_ms=5000");
    let r = app(state.clone())
        .oneshot(Request::get(&uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(mid::pool_bytes() > 0, "the solve kept its layers");
    // Still there shortly after the solve, gone after the idle time.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(mid::pool_bytes() > 0, "freed too early");
    let mut waited = Duration::ZERO;
    while mid::pool_bytes() > 0 && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += Duration::from_millis(50);
    }
    assert_eq!(mid::pool_bytes(), 0, "not freed after {waited:?}");
    idle.abort();
}
