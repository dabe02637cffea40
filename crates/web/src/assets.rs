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

/// The site's icon (an SVG: a peg board's cross of holes, one peg left),
/// served at `/favicon.svg` and `/favicon.ico` (browsers ask for the
/// latter by themselves; they read the SVG by its content type).
const FAVICON: &str = concat!(
    r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">"##,
    r##"<rect width="32" height="32" rx="6" fill="#26323d"/>"##,
    r##"<g fill="#e8e2d4"><circle cx="16" cy="6" r="2.6"/><circle cx="6" cy="16" r="2.6"/>"##,
    r##"<circle cx="26" cy="16" r="2.6"/><circle cx="16" cy="26" r="2.6"/></g>"##,
    r##"<circle cx="16" cy="16" r="5" fill="#f0a030" stroke="#fff" stroke-width="1.5"/></svg>"##
);

fn favicon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FAVICON,
    )
        .into_response()
}

fn file(name: &str) -> Response {
    match FILES.iter().find(|f| f.0 == name) {
        Some(&(_, ty, body)) => ([(header::CONTENT_TYPE, ty)], body).into_response(),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

/// `/` (the start page), `/play` (a game), `/lab` (the lab page),
/// `/ui/<file>` and the icon (`/favicon.svg`, `/favicon.ico`).
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(|| async { file("index.html") }))
        .route("/play", get(|| async { file("play.html") }))
        .route("/lab", get(|| async { file("lab.html") }))
        .route("/favicon.svg", get(|| async { favicon() }))
        .route("/favicon.ico", get(|| async { favicon() }))
        .route(
            "/ui/{name}",
            get(|Path(name): Path<String>| async move { file(&name) }),
        )
}
