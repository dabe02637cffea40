//! The API of each game, under `/api`.

use crate::AppState;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

pub(crate) mod martello;
pub(crate) mod peg;
pub(crate) mod pentago;
pub(crate) mod sim;

/// Every API route.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/games", get(games))
        .route("/status", get(status))
        .route("/peg/state", get(peg::state))
        .route("/peg/hints", get(peg::hints))
        .route("/peg/think", get(peg::think))
        .route("/peg/solve", get(peg::solve))
        .route("/sim/state", get(sim::state))
        .route("/sim/hints", get(sim::hints))
        .route("/sim/think", get(sim::think))
        .route("/sim/solve", get(sim::solve))
        .route("/sim/ai", get(sim::ai))
        .route("/pentago/state", get(pentago::state))
        .route("/pentago/hints", get(pentago::hints))
        .route("/pentago/think", get(pentago::think))
        .route("/pentago/solve", get(pentago::solve))
        .route("/pentago/ai", get(pentago::ai))
        .route("/martello/state", get(martello::state))
        .route("/martello/hints", get(martello::hints))
        .route("/martello/think", get(martello::think))
        .route("/martello/solve", get(martello::solve))
        .fallback(|| async {
            crate::ApiError {
                status: axum::http::StatusCode::NOT_FOUND,
                message: "no such API route (see GET /api/games)".into(),
            }
        })
}

/// `GET /api/status`: the solve permits and the queue, and every solved
/// table with its state (missing, building with progress, cached, ready,
/// failed), now.
async fn status(axum::extract::State(app): axum::extract::State<AppState>) -> Json<Value> {
    let (running, queued) = app.solves_in_use();
    let (lane_running, lane_queued) = app.table_lane_in_use();
    let (cheap_running, cheap_queued) = app.cheap_lane_in_use();
    let l = &app.limits;
    Json(json!({
        "running": running,
        "queued": queued,
        "max_solves": l.max_solves,
        "max_queue": l.max_queue,
        "queue_wait_ms": l.queue_wait.as_millis() as u64,
        "table_lane": {
            "running": lane_running,
            "queued": lane_queued,
            "max": l.table_lane,
            "max_queue": l.table_queue,
        },
        "cheap_lane": {
            "running": cheap_running,
            "queued": cheap_queued,
            "max": l.cheap_lane,
            "max_queue": l.cheap_queue,
        },
        "lane_time_ms": l.lane_time.as_millis() as u64,
        "header_timeout_ms": l.header_timeout.as_millis() as u64,
        "request_timeout_ms": l.request_timeout.as_millis() as u64,
        "max_connections": l.max_connections,
        "answers_kept": app.answers_kept(),
        "lab": app.lab.as_ref().map(|l| l.location().to_string()),
        "cache": app.cache,
        "tables": crate::tables::all(&app.table_services()),
        "table_memory": l.table_memory,
    }))
}

/// `GET /api/games`: the four games and their variants.
async fn games() -> Json<Value> {
    let boards: Vec<Value> = endgame_peg::api::boards()
        .into_iter()
        .map(|b| json!({ "name": b.name, "description": b.description }))
        .collect();
    Json(json!({
        "games": [
            { "game": "peg", "title": "Peg solitaire", "kind": "puzzle",
              "variants": { "board": boards, "diagonal": [false, true], "art": "any ASCII board" } },
            { "game": "sim", "title": "Sim", "kind": "two-player",
              "variants": { "n": [3, 4, 5, 6, 7, 8], "misere": [false, true] } },
            { "game": "pentago", "title": "Pentago", "kind": "two-player", "variants": {} },
            { "game": "martello", "title": "Martello", "kind": "puzzle",
              "variants": { "n": [3, 4, 5, 6], "seed": "random board number" } }
        ]
    }))
}
