//! Martello: `/api/martello/{state,hints,solve}`.
//!
//! A request gives the board (`board`, the board string of
//! `docs/martello.md`), or a random one (`n` and `seed`). Moves are
//! operations: the hints list each with its real moves and the board it
//! leads to, which the next request sends as `board`. The hints are the Martello crate's analysis
//! (`endgame_martello::api::Service`), exactly as `endgame hint martello
//! --json` prints it.

use crate::api::{opt, ApiError, BudgetQuery, Cost, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_martello::api::{self, Board, Martello, State as MState};
use serde::Deserialize;
use serde_json::json;

/// Memo memory of one solve request (64 MiB): the server's cap, below the
/// game's default ([`api::DEFAULT_SOLVE_MEMO_BYTES`]).
const SOLVE_MEMORY: usize = 64 << 20;

/// Boards up to this size are analysed in milliseconds (an exact search
/// of n = 5 takes well under one): their hints take the cheap lane.
const CHEAP_N: usize = 5;

/// The query of every Martello route.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct MartelloQuery {
    board: Option<String>,
    #[serde(default, deserialize_with = "opt")]
    n: Option<usize>,
    #[serde(default, deserialize_with = "opt")]
    seed: Option<u64>,
    #[serde(flatten)]
    budget: BudgetQuery,
}

impl crate::api::Params for MartelloQuery {
    const NAMES: &'static [&'static str] = &["board", "n", "seed"];
}

fn current(q: &MartelloQuery) -> Result<(Board, Martello, MState), ApiError> {
    let b = match &q.board {
        Some(s) if !s.trim().is_empty() => Board::parse(s).map_err(ApiError::bad)?,
        _ => {
            let n = q.n.unwrap_or(4);
            if !(1..=6).contains(&n) {
                return Err(ApiError::bad(format!("n {n} out of range 1..=6")));
            }
            Board::random(n, q.seed.unwrap_or(1)).map_err(ApiError::bad)?
        }
    };
    let (m, s) = api::from_board(&b).map_err(ApiError::bad)?;
    Ok((b, m, s))
}

/// `GET /api/martello/state`: the board as rows of stone ids (`null`
/// empty) with each stone's colour and symbol (id = colour·n + symbol).
pub(crate) async fn state(Q(q): Q<MartelloQuery>) -> Result<Json<serde_json::Value>, ApiError> {
    let (b, _, s) = current(&q)?;
    let n = b.n();
    let norm = s.to_board(n);
    let rows: Vec<Vec<serde_json::Value>> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match norm.get(r, c) {
                    v if (v as usize) < n * n => {
                        json!({ "id": v, "colour": v as usize / n, "symbol": v as usize % n })
                    }
                    _ => serde_json::Value::Null,
                })
                .collect()
        })
        .collect();
    Ok(Json(json!({
        "n": n,
        "board": b.to_board_string(),
        "normalised": norm.to_board_string(),
        "stones": b.stones(),
        "rows": rows,
    })))
}

/// `GET /api/martello/hints`: the analysis of the board
/// (`endgame_martello::api::Service::analyze`): every operation with the
/// best result after it, its colour (`Colour::of_result`), its real moves
/// and the board it leads to (`after`).
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<MartelloQuery>,
) -> Result<Json<api::MartelloAnalysis>, ApiError> {
    let (b, m, s) = current(&q)?;
    let service = app.martello.clone();
    // Up to n = 5 a board's analysis takes milliseconds: the cheap lane.
    let cost = if b.n() <= CHEAP_N {
        Cost::Cheap
    } else {
        Cost::Solve
    };
    let key = format!("martello {}", b.to_board_string());
    app.analyze(
        &q.budget,
        api::DEFAULT_TIME,
        api::DEFAULT_NODES,
        cost,
        Some(key),
        move |b| service.analyze(&m, &s, b),
    )
    .await
    .map(Json)
}

/// `GET /api/martello/think`: the hints of `/api/martello/hints` with four times
/// the budget, streamed as server-sent events as rounds decide moves
/// (`crate::think`).
pub(crate) async fn think(
    State(app): State<AppState>,
    Q(q): Q<MartelloQuery>,
) -> Result<axum::response::Response, ApiError> {
    let (_, m, s) = current(&q)?;
    let big = app.think_budget(app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES));
    let service = app.martello.clone();
    crate::think::stream(&app, big, move |b| service.analyze(&m, &s, b)).await
}

/// `GET /api/martello/solve`: the minimum stone count and a line to it
/// (`endgame_martello::api::solve`, as `endgame solve martello --json`
/// prints it), the search stopping itself at the budget.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<MartelloQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (b, _, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let r = app
        .solve(budget, move |ctl| {
            let limits = ctl.budget(budget.nodes).with_memory(SOLVE_MEMORY);
            api::solve(&b, &api::SolveOptions::default(), &limits)
        })
        .await?;
    let mut v = match r {
        Some(r) => serde_json::to_value(r.map_err(ApiError::bad)?).map_err(ApiError::bad)?,
        None => json!({ "value": "unknown", "line": [] }),
    };
    v["budget"] = json!(budget);
    Ok(Json(v))
}
