//! The UI's files, embedded in the binary.

use crate::AppState;
use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// Every UI file: name, content type, content.
const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../ui/index.html"),
    ),
    (
        "play.html",
        "text/html; charset=utf-8",
        include_str!("../ui/play.html"),
    ),
    (
        "lab.html",
        "text/html; charset=utf-8",
        include_str!("../ui/lab.html"),
    ),
    (
        "lab.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/lab.js"),
    ),
    (
        "chart.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/chart.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../ui/style.css"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/api.js"),
    ),
    (
        "play.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/play.js"),
    ),
    (
        "peg.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/peg.js"),
    ),
    (
        "sim.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/sim.js"),
    ),
    (
        "pentago.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/pentago.js"),
    ),
    (
        "martello.js",
        "text/javascript; charset=utf-8",
        include_str!("../ui/martello.js"),
    ),
];

fn file(name: &str) -> Response {
    match FILES.iter().find(|f| f.0 == name) {
        Some(&(_, ty, body)) => ([(header::CONTENT_TYPE, ty)], body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// `/` (the start page), `/play` (a game), `/lab` (the lab page) and
/// `/ui/<file>`.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { file("index.html") }))
        .route("/play", get(|| async { file("play.html") }))
        .route("/lab", get(|| async { file("lab.html") }))
        .route(
            "/ui/{name}",
            get(|Path(name): Path<String>| async move { file(&name) }),
        )
}
