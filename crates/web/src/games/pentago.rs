//! Pentago: `/api/pentago/{state,hints,think,solve,ai}`.
//!
//! A request gives the start (`start`, the interchange notation; default
//! the empty board), the moves played since (`moves`, full moves like
//! `c4 ur cw` separated by commas) and optionally a pending placement
//! (`place`, a cell like `c4`: the position then has `m`, a rotation due).
//! The handlers only read the query and hand the position to the Pentago
//! crate's service (`endgame_pentago::api`), which the command line uses
//! too.

use crate::api::{split_moves, ApiError, BudgetQuery, Cost, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_pentago::api;
use endgame_pentago::api::Position;
use serde::Deserialize;
use serde_json::json;

/// The query of every Pentago route.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct PentagoQuery {
    start: Option<String>,
    moves: Option<String>,
    place: Option<String>,
    /// AI: `strong` (default: exact when the budget allows, else the
    /// strong heuristic player), `reference` (`seed`, its old name, still
    /// accepted for one release), `random`.
    strength: Option<String>,
    #[serde(flatten)]
    budget: BudgetQuery,
}

impl crate::api::Params for PentagoQuery {
    const NAMES: &'static [&'static str] = &["start", "moves", "place", "strength"];
}

/// The position the query describes, and the moves it played.
fn current(q: &PentagoQuery) -> Result<(Position, Vec<String>), ApiError> {
    let played = split_moves(q.moves.as_deref());
    let pos = api::position_after(q.start.as_deref(), &played, q.place.as_deref())
        .map_err(ApiError::bad)?;
    Ok((pos, played))
}

/// `GET /api/pentago/state`: the cells (`cells[y][x]`, y = 0 the bottom
/// row; `b`, `w` or `.`), who moves, and whether a rotation is due
/// (`endgame_pentago::api::state`).
pub(crate) async fn state(Q(q): Q<PentagoQuery>) -> Result<Json<api::State>, ApiError> {
    let (pos, played) = current(&q)?;
    Ok(Json(api::state(&pos, played)))
}

/// `GET /api/pentago/hints`: the Pentago crate's analysis of the current
/// position (`endgame_pentago::api::Service::analyze`), exactly as
/// `endgame hint pentago --json` prints it: for a position due to place
/// its full moves (`c4 ur cw`), for one due to rotate its eight rotations.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<api::PentagoAnalysis>, ApiError> {
    let (pos, played) = current(&q)?;
    let service = app.pentago.clone();
    let key = format!("pentago {:?} {played:?} {:?}", q.start, q.place);
    app.analyze(
        &q.budget,
        api::DEFAULT_TIME,
        api::DEFAULT_NODES,
        Cost::Solve,
        Some(key),
        move |b| service.analyze(&pos, b),
    )
    .await
    .map(Json)
}

/// `GET /api/pentago/think`: the hints of `/api/pentago/hints` with four times
/// the budget, streamed as server-sent events as rounds decide moves
/// (`crate::think`).
pub(crate) async fn think(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<axum::response::Response, ApiError> {
    let (pos, _) = current(&q)?;
    let big = app.think_budget(app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES));
    let service = app.pentago.clone();
    crate::think::stream(&app, big, move |b| service.analyze(&pos, b)).await
}

/// `GET /api/pentago/solve`: the Pentago crate's solve
/// (`endgame_pentago::api::Service::solve`, what `endgame solve pentago`
/// prints): `value` for the player to move (a word), `remoteness` where
/// known, `children` (child notation → 1, 0, -1 or null, as the command
/// line's), and, when decided, a `line` to the end of the game, each move
/// keeping the value (`line_complete` false when the time ran out first);
/// with a placement pending, the line starts with the rotation alone.
/// The moves' values get two thirds of the budget's time, then the line
/// what it needs, then the moves still undecided the rest; the solver
/// stops itself at the deadline or when the client goes away.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (pos, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let service = app.pentago.clone();
    let r = app
        .solve(budget, move |ctl| {
            service.solve(&pos, &ctl.budget(budget.nodes))
        })
        .await?
        .unwrap_or_else(|| api::SolveReport::unsolved(&pos));
    Ok(Json(json!({
        "position": r.position,
        "value": r.result,
        "remoteness": r.remoteness,
        "reason": r.reason,
        "children": r.children,
        "nodes": r.nodes,
        "method": r.method,
        "line": r.line,
        "line_complete": r.line_complete,
        "budget": budget,
    })))
}

/// `GET /api/pentago/ai`: the AI's full move (`endgame_pentago::api::Ai`,
/// the AI of `endgame play pentago` too): `move`, `strength`, and `value`
/// when its exact stage found the position's value.
pub(crate) async fn ai(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<api::AiMove>, ApiError> {
    let (pos, _) = current(&q)?;
    api::Ai::check(&pos).map_err(ApiError::bad)?;
    let mut ai = api::Ai::new(q.strength.as_deref().unwrap_or(""), 1).map_err(ApiError::bad)?;
    let budget = app.budget(&q.budget);
    let r = app
        .solve(budget, move |ctl| {
            ai.choose(&pos, &ctl.budget(budget.nodes))
        })
        .await?;
    match r {
        Some(Ok(Some(m))) => Ok(Json(m)),
        Some(Err(e)) => Err(ApiError::bad(e)),
        _ => Err(ApiError {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            message: "the AI found no move within the budget".into(),
        }),
    }
}
