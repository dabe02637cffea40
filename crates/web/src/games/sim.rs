//! Sim on K_n: `/api/sim/{state,hints,solve,ai}`.
//!
//! A request names the variant (`n` 3…8, default 6; `misere`), the start
//! (`start` position string; default empty) and the moves played since
//! (`moves`, segments like `ac` separated by commas).

use crate::api::{opt, split_moves, ApiError, BudgetQuery, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_core::{Game, Notation, Rules, Value};
use endgame_sim::api::{self, Segment, Sim, SimAnalysis, SimPos};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The query of every Sim route.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct SimQuery {
    #[serde(default, deserialize_with = "opt")]
    n: Option<usize>,
    #[serde(default, deserialize_with = "opt")]
    misere: Option<bool>,
    start: Option<String>,
    moves: Option<String>,
    /// AI: `perfect` (default), `random`, `avoid`, `search`.
    strength: Option<String>,
    #[serde(flatten)]
    budget: BudgetQuery,
}

impl crate::api::Params for SimQuery {
    const NAMES: &'static [&'static str] = &["n", "misere", "start", "moves", "strength"];
}

fn current(q: &SimQuery) -> Result<(Sim, SimPos, Vec<String>), ApiError> {
    let sim = Sim::new(q.n.unwrap_or(6), q.misere.unwrap_or(false)).map_err(ApiError::bad)?;
    let mut pos = match &q.start {
        Some(s) if !s.trim().is_empty() => sim.parse_position(s).map_err(ApiError::bad)?,
        _ => sim.start(),
    };
    let played = split_moves(q.moves.as_deref());
    for m in &played {
        pos = sim.play_text(&pos, m).map_err(ApiError::bad)?;
    }
    Ok((sim, pos, played))
}

/// One segment as the UI draws it.
#[derive(Debug, Serialize)]
struct Seg {
    name: String,
    a: usize,
    b: usize,
    colour: &'static str,
}

fn points(sim: &Sim) -> Vec<String> {
    (0..sim.n())
        .map(|i| ((b'a' + i as u8) as char).to_string())
        .collect()
}

/// `GET /api/sim/state`.
pub(crate) async fn state(Q(q): Q<SimQuery>) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, played) = current(&q)?;
    let segs: Vec<Seg> = (0..sim.segments())
        .map(|i| {
            let s = Segment(i as u8);
            let (a, b) = sim.ends(s);
            Seg {
                name: sim.format_move(s),
                a,
                b,
                colour: if pos.red >> i & 1 == 1 {
                    "red"
                } else if pos.blue >> i & 1 == 1 {
                    "blue"
                } else {
                    "none"
                },
            }
        })
        .collect();
    let outcome = sim.outcome(&pos);
    let to_move = if pos.red_to_move() { "red" } else { "blue" };
    let winner = outcome.map(|v| match (v, to_move) {
        (Value::Win, m) => m,
        (Value::Loss, "red") => "blue",
        (Value::Loss, _) => "red",
        _ => "none",
    });
    Ok(Json(json!({
        "n": sim.n(),
        "misere": sim.misere(),
        "points": points(&sim),
        "segments": segs,
        "position": sim.format_position(&pos),
        "to_move": to_move,
        "over": outcome.is_some(),
        "winner": winner,
        "moves": sim.moves(&pos).into_iter().map(|m| sim.format_move(m)).collect::<Vec<_>>(),
        "played": played,
    })))
}

/// The analysis of the current position by the Sim service (a solved
/// table when there is one, else the exact search within the budget).
async fn analysis(
    app: &AppState,
    q: &SimQuery,
    sim: Sim,
    pos: SimPos,
) -> Result<SimAnalysis, ApiError> {
    let service = app.sim.clone();
    let table = crate::api::Cost::Lookup(api::table_name(sim.n(), sim.misere()));
    app.analyze(
        &q.budget,
        api::DEFAULT_TIME,
        api::DEFAULT_NODES,
        table,
        None,
        move |b| service.analyze(&sim, &pos, b),
    )
    .await
}

/// `GET /api/sim/hints`: the analysis of the position
/// (`endgame_sim::api::Service::analyze`), the same JSON as `endgame hint
/// sim --json`.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<SimAnalysis>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    analysis(&app, &q, sim, pos).await.map(Json)
}

/// `GET /api/sim/think`: the hints of `/api/sim/hints` with four times
/// the budget, streamed as server-sent events as rounds decide moves
/// (`crate::think`).
pub(crate) async fn think(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<axum::response::Response, ApiError> {
    let (sim, pos, _) = current(&q)?;
    let big = app.think_budget(app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES));
    let service = app.sim.clone();
    crate::think::stream(&app, big, move |b| service.analyze(&sim, &pos, b)).await
}

/// `GET /api/sim/solve`: the value, remoteness and a perfect line (empty
/// when undecided within the budget, with the reason).
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    let budget = app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES);
    let a = analysis(&app, &q, sim, pos).await?;
    Ok(Json(json!({
        "value": a.value,
        "remoteness": a.remoteness,
        "line": a.line,
        "position": a.position,
        "decided_by": a.decided_by,
        "reason": a.reason,
        "budget": budget,
    })))
}

/// `GET /api/sim/ai`: the AI's move (`strength`: `perfect`, `random`,
/// `avoid`, `search`; `endgame_sim::api::Service::ai_move`). The perfect
/// AI plays from the service: a solved table, else the exact search
/// within the budget; when that does not decide every move (early K8
/// without a table) it answers 503 rather than play a move it cannot
/// vouch for.
pub(crate) async fn ai(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    if sim.outcome(&pos).is_some() {
        return Err(ApiError::bad("the game is over"));
    }
    let strength = q
        .strength
        .clone()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| api::DEFAULT_AI.into());
    let mut ai = api::Ai::by_name(&strength, &sim, 1).map_err(ApiError::bad)?;
    let perfect = matches!(ai, api::Ai::Perfect);
    let budget = app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES);
    let service = app.sim.clone();
    let s2 = sim.clone();
    let r = app
        .solve(budget, move |ctl| {
            service.ai_move(&mut ai, &s2, &pos, &ctl.budget(budget.nodes))
        })
        .await?;
    match r {
        Some(Some(m)) => Ok(Json(json!({
            "move": sim.format_move(m.mv),
            "strength": strength,
            "value": m.outcome.map(|o| o.value),
            "remoteness": m.outcome.and_then(|o| o.remoteness),
        }))),
        _ => Err(ApiError {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            message: if perfect {
                format!(
                    "the perfect AI could not decide every move within the budget (no solved table for K{} yet): choose another strength, or build it with `endgame cache build {}`",
                    sim.n(),
                    api::table_name(sim.n(), sim.misere())
                )
            } else {
                "the AI found no move within the budget".into()
            },
        }),
    }
}
