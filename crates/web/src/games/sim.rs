//! Sim on K_n: `/api/sim/{state,hints,solve,ai}`.
//!
//! A request names the variant (`n` 3…8, default 6; `misere`), the start
//! (`start` position string; default empty) and the moves played since
//! (`moves`, segments like `ac` separated by commas).

use crate::api::{colour_of, opt, split_moves, ApiError, Budget, BudgetQuery, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_core::player::MoveLimits;
use endgame_core::{Game, Notation, Outcome, Rules, Value};
use endgame_sim::solve::{self, Table};
use endgame_sim::{Sim, SimPos};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One variant's table, locked while a request solves into it.
type Shared = Arc<Mutex<Table>>;

/// Lazily solved tables, one per variant, kept between requests.
#[derive(Default)]
pub(crate) struct Tables {
    tables: Mutex<HashMap<(usize, bool), Shared>>,
}

impl Tables {
    fn of(&self, sim: &Sim) -> Shared {
        let mut t = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        t.entry((sim.n(), sim.misere())).or_default().clone()
    }
}

/// On K8 the lazy solve of an early position can take minutes; the web
/// solves K8 only from this many coloured segments on (earlier: unknown).
const K8_MIN_COLOURED: u32 = 12;

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
            let s = endgame_sim::Segment(i as u8);
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

fn decidable(sim: &Sim, pos: &SimPos) -> bool {
    sim.n() < 8 || pos.coloured() >= K8_MIN_COLOURED
}

/// What the page shows when the solver cannot answer.
const UNKNOWN: Outcome = Outcome {
    value: Value::Unknown,
    remoteness: None,
};

/// Runs `f` on the solver's table of `sim` as a budgeted solve, when the
/// position is decidable; `None` when it is not, or when the client left
/// while the solve waited. The Sim solver takes no budget (K8 is gated by
/// [`decidable`]).
async fn exact<T: Send + 'static>(
    app: &AppState,
    budget: Budget,
    sim: &Sim,
    pos: SimPos,
    f: impl FnOnce(&Sim, &mut Table, SimPos) -> T + Send + 'static,
) -> Result<Option<T>, ApiError> {
    if !decidable(sim, &pos) {
        return Ok(None);
    }
    let table = app.sim_tables.of(sim);
    let sim = sim.clone();
    let r = app
        .solve(budget, move |ctl| {
            let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
            (!ctl.cancelled()).then(|| f(&sim, &mut t, pos))
        })
        .await?;
    Ok(r.flatten())
}

fn outcome_json(o: Outcome) -> serde_json::Value {
    json!({ "value": o.value, "remoteness": o.remoteness })
}

/// `GET /api/sim/hints`: every legal move with the value it gives its
/// mover, the remoteness and the colour.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let r = exact(&app, budget, &sim, pos, |s, t, pos| {
        (solve::outcome(s, t, &pos), solve::hint(s, t, &pos))
    })
    .await?;
    let (value, moves) = r.unwrap_or_else(|| {
        let moves = sim.moves(&pos).into_iter().map(|m| (m, UNKNOWN)).collect();
        (UNKNOWN, moves)
    });
    let moves: Vec<serde_json::Value> = moves
        .into_iter()
        .map(|(m, o)| {
            json!({ "move": sim.format_move(m), "value": o.value,
                    "remoteness": o.remoteness, "colour": colour_of(o.value) })
        })
        .collect();
    Ok(Json(json!({
        "position": sim.format_position(&pos),
        "value": value.value,
        "remoteness": value.remoteness,
        "moves": moves,
        "budget": budget,
    })))
}

/// `GET /api/sim/solve`: the value, remoteness and a perfect line.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let r = exact(&app, budget, &sim, pos, |s, t, pos| {
        let o = solve::outcome(s, t, &pos);
        let mut line = Vec::new();
        let mut p = pos;
        while let Some((m, _)) = solve::best_move(s, t, &p) {
            line.push(s.format_move(m));
            p = s.play_unchecked(&p, m);
        }
        (o, line)
    })
    .await?;
    let (o, line) = r.unwrap_or((UNKNOWN, vec![]));
    let mut v = outcome_json(o);
    v["line"] = json!(line);
    v["position"] = json!(sim.format_position(&pos));
    v["budget"] = json!(budget);
    Ok(Json(v))
}

/// `GET /api/sim/ai`: the AI's move (`strength`: `perfect`, `random`,
/// `avoid`, `search`).
pub(crate) async fn ai(
    State(app): State<AppState>,
    Q(q): Q<SimQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (sim, pos, _) = current(&q)?;
    if sim.outcome(&pos).is_some() {
        return Err(ApiError::bad("the game is over"));
    }
    let budget = app.budget(&q.budget);
    let strength = q
        .strength
        .clone()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "perfect".into());
    let perfect = strength == "perfect";
    if perfect && !decidable(&sim, &pos) {
        return Err(ApiError::bad(format!(
            "the perfect AI on K8 needs {K8_MIN_COLOURED} coloured segments; choose another strength"
        )));
    }
    let mut player = endgame_sim::player::by_name(&strength, &sim, 1).map_err(ApiError::bad)?;
    let table = app.sim_tables.of(&sim);
    let s2 = sim.clone();
    let r = app
        .solve(budget, move |_ctl| {
            if perfect {
                let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
                solve::best_move(&s2, &mut t, &pos).map(|(m, o)| (m, Some(o)))
            } else {
                let limits = MoveLimits {
                    time: Some(budget.time),
                    nodes: Some(budget.nodes),
                };
                Some((player.choose(&s2, &pos, &limits), None))
            }
        })
        .await?;
    match r {
        Some(Some((m, o))) => Ok(Json(json!({
            "move": sim.format_move(m),
            "strength": strength,
            "value": o.map(|o| o.value),
            "remoteness": o.and_then(|o| o.remoteness),
        }))),
        _ => Err(ApiError {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            message: "the AI found no move within the budget".into(),
        }),
    }
}
