//! The "think longer" routes (`/api/GAME/think`): server-sent events of
//! an analysis deepened in rounds, the same JSON as the hints, stopped
//! when everything is decided, when the rounds end, or when the client
//! goes away.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use endgame_web::{app, AppState, Limits};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// The events of a whole stream: `(name, data)`.
async fn events(state: AppState, uri: &str) -> Vec<(String, Value)> {
    let r = app(state)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{uri}");
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    text.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = Some(n.to_string());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str(d).unwrap());
                }
            }
            Some((name?, data?))
        })
        .collect()
}

async fn hints(state: AppState, uri: &str) -> Value {
    let r = app(state)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{uri}");
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

fn without_time(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("time_ms");
    v
}

fn state() -> AppState {
    let dir = std::env::temp_dir().join(format!("endgame-think-{}", std::process::id()));
    AppState::with_cache(Limits::default(), &dir)
}

#[tokio::test]
async fn a_decided_position_ends_after_one_round_with_the_hints_answer() {
    let s = state();
    let ev = events(s.clone(), "/api/sim/think?n=5").await;
    let names: Vec<&str> = ev.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names, ["analysis", "done"]);
    let (round, done) = (&ev[0].1, &ev[1].1);
    assert_eq!(round["round"], 1);
    assert_eq!(round["rounds"], 2);
    assert_eq!(round["decided"], 10);
    assert_eq!(done["stopped"], "decided");
    assert_eq!(done["settled"], true);
    assert_eq!(done["undecided"], 0);
    let h = hints(s, "/api/sim/hints?n=5").await;
    assert_eq!(without_time(round["analysis"].clone()), without_time(h));
}

#[tokio::test]
async fn an_undecidable_position_runs_every_round_with_doubling_budgets() {
    // The empty Pentago board: nothing is decided in a fraction of a
    // second, so both rounds run, with half and all of four times the
    // request's budget.
    let ev = events(state(), "/api/pentago/think?time_ms=100&nodes=1000").await;
    let names: Vec<&str> = ev.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names, ["analysis", "analysis", "done"]);
    assert_eq!(ev[0].1["budget"]["time_ms"], 200);
    assert_eq!(ev[0].1["budget"]["nodes"], 2000);
    assert_eq!(ev[1].1["budget"]["time_ms"], 400);
    assert_eq!(ev[1].1["budget"]["nodes"], 4000);
    assert_eq!(ev[1].1["analysis"]["moves"].as_array().unwrap().len(), 288);
    assert_eq!(ev[2].1["stopped"], "budget");
    assert_eq!(ev[2].1["rounds"], 2);
    assert_eq!(ev[2].1["settled"], false);
}

#[tokio::test]
async fn the_budget_is_capped_by_the_server() {
    let limits = Limits {
        max_time: Duration::from_millis(300),
        max_nodes: 5_000,
        ..Limits::default()
    };
    let dir = std::env::temp_dir().join(format!("endgame-think-cap-{}", std::process::id()));
    let s = AppState::with_cache(limits, &dir);
    let ev = events(s, "/api/pentago/think?time_ms=200&nodes=4000").await;
    let last = ev.iter().rev().find(|e| e.0 == "analysis").unwrap();
    assert_eq!(last.1["budget"]["time_ms"], 300);
    assert_eq!(last.1["budget"]["nodes"], 5_000);
}

#[tokio::test]
async fn a_client_that_leaves_stops_the_work() {
    let s = state();
    let r = app(s.clone())
        .oneshot(
            Request::get("/api/pentago/think?time_ms=10000")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(s.solves_in_use().0, 1, "the work holds a permit");
    drop(r);
    // Without the client the rounds (5 s, then 10 s) stop at once and
    // give the permit back.
    let t = Instant::now();
    while s.solves_in_use().0 > 0 {
        assert!(t.elapsed() < Duration::from_secs(3), "still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A 16-stone Pentago position (published test data of Geoffrey Irving's
/// "Pentago is a first player win", the one `tests/published.rs` of the
/// Pentago crate takes: to rotate, a draw for the player to move,
/// no rotation decided without search) through the route with the
/// default budget: the last
/// round (8 s) decides every rotation by the retrograde solver, or, on a
/// machine too busy for it, stops at its deadline saying so. Ignored:
/// 4.3 GiB and about 12 s; run it with
/// `cargo test --profile ci -p endgame-web --test think -- --ignored sixteen --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "12 s and 4.3 GiB: a 16-stone retrograde solve"]
async fn sixteen_stones_come_back_exact() {
    let t = Instant::now();
    let ev = events(state(), "/api/pentago/think?start=2435040036596351654m").await;
    let took = t.elapsed();
    let last = &ev.iter().rev().find(|e| e.0 == "analysis").unwrap().1;
    let a = &last["analysis"];
    eprintln!(
        "{} rounds in {:.2} s: value {}, method {}, reason {}",
        last["round"],
        took.as_secs_f64(),
        a["value"],
        a["method"],
        a["reason"]
    );
    assert_eq!(last["budget"]["time_ms"], 8000);
    // Two rounds of 4 and 8 s at most, and a little for the rest.
    assert!(took < Duration::from_millis(12_800), "{took:?}");
    if a["reason"].is_null() {
        assert_eq!(a["method"], "retrograde");
        assert_eq!(a["value"], "draw");
        assert_eq!(last["decided"], 8);
        assert_eq!(ev.last().unwrap().1["stopped"], "decided");
    } else {
        let reason = a["reason"].as_str().unwrap();
        assert!(
            reason.ends_with("(the retrograde solver ran out of time)"),
            "{reason}"
        );
    }
}

#[tokio::test]
async fn bad_input_is_a_json_400_before_any_work() {
    for uri in [
        "/api/sim/think?n=99",
        "/api/peg/think?board=nowhere",
        "/api/martello/think?n=0",
        "/api/pentago/think?start=xyz",
        "/api/sim/think?bogus=1",
    ] {
        let r = app(state())
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{uri}");
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert!(
            v["error"].as_str().is_some_and(|e| !e.contains('\n')),
            "{v}"
        );
    }
}
