//! The server holding its load: connections that send half a request, or
//! stay idle, are closed after the header timeout; a request past the
//! request timeout is a 503; a think stream outlives both; 404s and 405s
//! carry a body; hints say `decided` per position and per move; and a
//! question a solved table answers skips the solve permits.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use endgame_web::{app, serve_on, AppState, Limits};
use http_body_util::BodyExt;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::ServiceExt;

fn state(limits: Limits, name: &str) -> AppState {
    let dir = std::env::temp_dir().join(format!("endgame-limits-{name}-{}", std::process::id()));
    AppState::with_cache(limits, &dir)
}

/// A server on a free loopback port; it stops when the sender is dropped.
async fn server(state: AppState) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_on(listener, state, async {
        let _ = rx.await;
    }));
    (addr, tx)
}

/// Reads until the server closes the connection (or `limit` passes):
/// what was read and when the close came.
async fn read_to_close(s: &mut TcpStream, limit: Duration) -> (String, Option<Duration>) {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(t0.elapsed());
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (String::from_utf8_lossy(&out).into(), Some(t0.elapsed()))
            }
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&out).into(), None),
        }
    }
}

fn quick() -> Limits {
    Limits {
        header_timeout: Duration::from_secs(1),
        ..Limits::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_a_request_head_is_dropped_after_the_header_timeout() {
    let (addr, _stop) = server(state(quick(), "half")).await;
    // Many at once, as a slow-loris client would open them.
    let mut conns = Vec::new();
    for _ in 0..50 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        conns.push(s);
    }
    let mut silent = TcpStream::connect(addr).await.unwrap();
    for s in conns.iter_mut().chain([&mut silent]) {
        let (_, closed) = read_to_close(s, Duration::from_secs(4)).await;
        assert!(closed.is_some(), "a half request still open after 4 s");
    }
    // The server still answers.
    let (status, body) = get(addr, "/api/games").await;
    assert_eq!(status, 200);
    assert!(body.contains("\"games\""), "{body}");
}

/// A whole `GET` over a fresh connection (`Connection: close`): the
/// status and the body (chunks and all).
async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let (text, closed) = read_to_close(&mut s, Duration::from_secs(30)).await;
    assert!(closed.is_some(), "no end of the answer to {path}");
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let (addr, _stop) = server(state(quick(), "idle")).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (text, closed) = read_to_close(&mut s, Duration::from_secs(4)).await;
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let closed = closed.expect("an idle connection still open after 4 s");
    assert!(
        closed >= Duration::from_millis(800),
        "closed after {closed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_serves_several_requests_on_one_connection() {
    let (addr, _stop) = server(state(quick(), "keep")).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    for _ in 0..3 {
        s.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        let mut buf = vec![0u8; 65536];
        let n = s.read(&mut buf).await.unwrap();
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_think_stream_outlives_the_header_and_request_timeouts() {
    let limits = Limits {
        header_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_millis(800),
        ..Limits::default()
    };
    let (addr, _stop) = server(state(limits, "think")).await;
    // The empty Pentago board: undecided, so both rounds run (0.8 s, then
    // 1.6 s), well past both timeouts.
    let t0 = Instant::now();
    let (status, body) = get(addr, "/api/pentago/think?time_ms=400&nodes=50000000").await;
    assert_eq!(status, 200, "{body}");
    assert!(
        t0.elapsed() > Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(body.matches("event: analysis").count(), 2, "{body}");
    assert!(body.contains("event: done"), "{body}");
    assert!(body.contains("\"stopped\":\"budget\""), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_the_request_timeout_is_a_503_and_frees_its_permit() {
    let s = state(
        Limits {
            request_timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        "timeout",
    );
    let app = app(s.clone());
    let t0 = Instant::now();
    let (status, _, v) = call(&app, "GET", "/api/pentago/solve?time_ms=5000").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    let v: Value = serde_json::from_str(&v).unwrap();
    assert!(v["error"].as_str().unwrap().contains("timeout"), "{v}");
    let t = Instant::now();
    while s.solves_in_use().0 > 0 {
        assert!(t.elapsed() < Duration::from_secs(3), "the solve still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn call(app: &Router, method: &str, uri: &str) -> (StatusCode, String, String) {
    let r = app
        .clone()
        .oneshot(
            Request::builder()
                .method(method)
                .uri(uri)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let status = r.status();
    let ty = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let allow = r
        .headers()
        .get("allow")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    let body = String::from_utf8(bytes.to_vec()).unwrap();
    if status == StatusCode::METHOD_NOT_ALLOWED {
        assert!(allow.is_some_and(|a| a.contains("GET")), "{uri}: no Allow");
    }
    (status, ty, body)
}

#[tokio::test]
async fn not_found_and_method_not_allowed_have_a_body() {
    let app = app(state(Limits::default(), "404"));
    for (method, uri, status, json) in [
        ("GET", "/nope", StatusCode::NOT_FOUND, false),
        ("GET", "/ui/nope.js", StatusCode::NOT_FOUND, false),
        ("GET", "/api/nope", StatusCode::NOT_FOUND, true),
        ("GET", "/api/sim/nope", StatusCode::NOT_FOUND, true),
        ("POST", "/", StatusCode::METHOD_NOT_ALLOWED, false),
        ("DELETE", "/play", StatusCode::METHOD_NOT_ALLOWED, false),
        ("POST", "/api/games", StatusCode::METHOD_NOT_ALLOWED, true),
        (
            "PUT",
            "/api/sim/hints",
            StatusCode::METHOD_NOT_ALLOWED,
            true,
        ),
    ] {
        let (s, ty, body) = call(&app, method, uri).await;
        assert_eq!(s, status, "{method} {uri}");
        assert!(!body.trim().is_empty(), "{method} {uri}: empty body");
        if json {
            assert_eq!(ty, "application/json", "{method} {uri}");
            let v: Value = serde_json::from_str(&body).unwrap();
            assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
        } else {
            assert!(ty.starts_with("text/plain"), "{method} {uri}: {ty}");
        }
    }
    // A method the route does not take names the ones it does.
    let (_, _, body) = call(&app, "POST", "/api/games").await;
    assert!(body.contains("GET"), "{body}");
}

async fn hints(app: &Router, uri: &str) -> (StatusCode, Value) {
    let (s, _, body) = call(app, "GET", uri).await;
    (s, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn hints_say_decided_for_the_position_and_every_move() {
    let app = app(state(Limits::default(), "decided"));
    // A 6×6 Martello board with one node: nothing decided, yet every
    // operation is listed, each `decided: false`.
    let (s, v) = hints(&app, "/api/martello/hints?n=6&seed=3&nodes=1").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["decided"], false, "{v}");
    assert_eq!(v["decided_by"], "undecided");
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty(), "an undecided board lists its operations");
    for m in moves {
        assert_eq!(m["decided"], false, "{m}");
        assert_eq!(m["colour"], "blue", "{m}");
    }
    // A small board with the default budget: everything decided.
    let (_, v) = hints(&app, "/api/martello/hints?n=3&seed=1").await;
    assert_eq!(v["decided"], true, "{v}");
    assert!(!v["moves"].as_array().unwrap().is_empty());
    for m in v["moves"].as_array().unwrap() {
        assert_eq!(m["decided"], true, "{m}");
    }
    // A finished puzzle: no moves, and decided.
    let (_, v) = hints(&app, "/api/martello/hints?n=1&seed=1").await;
    assert_eq!(v["moves"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!((&v["over"], &v["decided"]), (&true.into(), &true.into()));
    // Every game says it.
    for uri in [
        "/api/sim/hints?n=4",
        "/api/peg/hints?board=triangle",
        "/api/pentago/hints?start=1846827025685889289",
    ] {
        let (s, v) = hints(&app, uri).await;
        assert_eq!(s, StatusCode::OK, "{uri}");
        assert!(v["decided"].is_boolean(), "{uri}: {v}");
        for m in v["moves"].as_array().unwrap() {
            assert!(m["decided"].is_boolean(), "{uri}: {m}");
            assert_eq!(m["decided"], m["colour"] != "blue", "{uri}: {m}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_a_table_answers_takes_no_solve_permit() {
    // One permit and no queue: while a solve holds it, any other solver
    // request is a 503 at once.
    // This test writes a table: into a directory removed at its end.
    let cache = tempfile::Builder::new()
        .prefix("endgame-limits-tabled-")
        .tempdir()
        .unwrap();
    let s = AppState::with_cache(
        Limits {
            max_solves: 1,
            max_queue: 0,
            ..Limits::default()
        },
        cache.path(),
    );
    let sim = s
        .table_services()
        .into_iter()
        .next()
        .expect("Sim's service keeps tables");
    let budget = endgame_core::budget::Budget::unlimited();
    sim.build("sim-k5-standard", &budget)
        .expect("a Sim table")
        .expect("built");
    let app = app(s.clone());
    // The first hint of each question learns that a table answers it.
    let mut next = Vec::new();
    for uri in ["/api/sim/hints?n=5", "/api/peg/hints?board=triangle"] {
        let (st, v) = hints(&app, uri).await;
        assert_eq!(st, StatusCode::OK, "{uri}");
        assert_eq!(v["decided_by"], "table", "{uri}: {v}");
        next.push(format!(
            "{uri}&moves={}",
            v["moves"][0]["move"].as_str().unwrap()
        ));
    }
    let busy = {
        let app = app.clone();
        tokio::spawn(async move { hints(&app, "/api/pentago/solve?time_ms=3000").await })
    };
    let t = Instant::now();
    while s.solves_in_use().0 == 0 {
        assert!(t.elapsed() < Duration::from_secs(2));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for uri in &next {
        let (st, v) = hints(&app, uri).await;
        assert_eq!(st, StatusCode::OK, "{uri}: {v}");
        assert_eq!(v["decided_by"], "table", "{uri}");
    }
    let (_, v) = hints(&app, "/api/status").await;
    assert_eq!(v["running"], 1, "{v}");
    assert_eq!(v["table_lane"]["max"], 4, "{v}");
    // A question no table answers, of unknown cost (Martello n = 6),
    // still needs the permit.
    let (st, _) = hints(&app, "/api/martello/hints?n=6&seed=2").await;
    assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE);
    busy.abort();
}
