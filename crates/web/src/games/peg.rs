//! Peg solitaire: `/api/peg/{state,hints,solve}`.
//!
//! A request names the board (`board` built-in name, or `art`), the start
//! (`start` position notation; default: the board's drawn vacancies), the
//! goal (`finish`: a hole, `any`), `diagonal`, and the moves played since
//! (`moves`, `from-to` separated by commas).

use crate::api::{opt, split_moves, ApiError, BudgetQuery, Cost, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_peg::api::{self, AnyProblem, Board, BoardSource, Finish, Lattice, Pruning, Spec};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The query of every peg route.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct PegQuery {
    board: Option<String>,
    art: Option<String>,
    start: Option<String>,
    finish: Option<String>,
    #[serde(default, deserialize_with = "opt")]
    diagonal: Option<bool>,
    moves: Option<String>,
    #[serde(flatten)]
    budget: BudgetQuery,
}

impl crate::api::Params for PegQuery {
    const NAMES: &'static [&'static str] =
        &["board", "art", "start", "finish", "diagonal", "moves"];
}

/// `state`: the board, the position after the moves, the legal jumps.
#[derive(Debug, Serialize)]
pub(crate) struct PegState {
    board: String,
    lattice: &'static str,
    start: String,
    goal: String,
    /// position, holes, pegs, moves, over, solved.
    #[serde(flatten)]
    view: api::PositionView,
    played: Vec<String>,
}

fn finish(arg: Option<&str>) -> Finish {
    match arg.map(str::trim) {
        None | Some("") => Finish::Default,
        Some(a) if a.eq_ignore_ascii_case("any") => Finish::Any,
        Some(a) if a.contains(',') => {
            Finish::Pattern(a.split(',').map(|h| h.trim().into()).collect())
        }
        Some(a) => Finish::Hole(a.into()),
    }
}

fn spec(q: &PegQuery, position: Option<String>) -> Spec {
    Spec {
        board: match &q.art {
            Some(a) => BoardSource::Art(a.replace('/', "\n")),
            None => BoardSource::Named(q.board.clone().unwrap_or_else(|| "english".into())),
        },
        diagonal: q.diagonal.unwrap_or(false),
        vacate: None,
        position,
        finish: finish(q.finish.as_deref()),
        pruning: Pruning::default(),
    }
}

/// The board, the start problem and the problem at the current position.
type Current = (Board, Arc<AnyProblem>, AnyProblem, Vec<String>);

/// Most start problems [`Starts`] keeps; past it the oldest half goes.
const KEPT_STARTS: usize = 64;

/// Start problems by question ([`question`]), with their boards: a
/// request only replays its moves on its start, so one built start serves
/// every request of a game (the problem at the current position is built
/// per request, with the pagoda functions its deadline allows).
#[derive(Default)]
pub(crate) struct Starts {
    kept: Mutex<Kept>,
}

/// The kept starts by question, each with its age, and the newest age.
#[derive(Default)]
struct Kept {
    newest: u64,
    by_question: HashMap<String, (u64, Board, Arc<AnyProblem>)>,
}

impl Starts {
    fn get_or_build(
        &self,
        q: &PegQuery,
        deadline: Option<Instant>,
    ) -> Result<(Board, Arc<AnyProblem>), ApiError> {
        let key = question(q);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, b, p)) = kept.by_question.get(&key) {
            return Ok((b.clone(), p.clone()));
        }
        drop(kept);
        let start_spec = spec(q, q.start.clone());
        let board = api::board_of(&start_spec).map_err(ApiError::bad)?;
        let start = Arc::new(api::build_within(&start_spec, deadline).map_err(ApiError::bad)?);
        kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.by_question.len() >= KEPT_STARTS {
            let mut ages: Vec<u64> = kept.by_question.values().map(|v| v.0).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            kept.by_question.retain(|_, v| v.0 > cut);
        }
        kept.newest += 1;
        let age = kept.newest;
        kept.by_question
            .insert(key, (age, board.clone(), start.clone()));
        Ok((board, start))
    }
}

/// [`current_now`] on the blocking pool, deriving pagoda functions for at
/// most half of `time` (a custom board's linear programs can take minutes
/// in all; each request derives some more, kept by the peg crate).
async fn current(app: &AppState, q: &PegQuery, time: Duration) -> Result<Current, ApiError> {
    let q = q.clone();
    let starts = app.peg_starts.clone();
    let deadline = Instant::now() + (time / 2).min(api::PAGODA_TIME);
    tokio::task::spawn_blocking(move || current_now(&starts, &q, Some(deadline)))
        .await
        .map_err(|e| ApiError {
            status: axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            message: format!("building the problem failed: {e}"),
        })?
}

fn current_now(
    starts: &Starts,
    q: &PegQuery,
    deadline: Option<Instant>,
) -> Result<Current, ApiError> {
    let (board, start) = starts.get_or_build(q, deadline)?;
    let played = split_moves(q.moves.as_deref());
    let position = api::position_after(start.as_ref(), &played).map_err(ApiError::bad)?;
    // The goal stays the board's default (a mid-game position on a drawn
    // board keeps aiming for its vacancy) or the one asked for.
    let cur = api::build_within(&spec(q, Some(position)), deadline).map_err(ApiError::bad)?;
    Ok((board, start, cur, played))
}

/// `GET /api/peg/state`.
pub(crate) async fn state(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<Json<PegState>, ApiError> {
    // The moves need no pagoda functions: only those already derived.
    let (board, start, cur, played) = current(&app, &q, Duration::ZERO).await?;
    let st = PegState {
        board: board.name().to_string(),
        lattice: match board.lattice() {
            Lattice::Square => "square",
            Lattice::Hex => "hex",
        },
        start: api::start_notation(start.as_ref()),
        goal: api::goal(&cur),
        view: api::view(&cur),
        played,
    };
    Ok(Json(st))
}

/// The question a peg position belongs to, for its solved table: the
/// query without its moves and budget (every position played from one
/// start is looked up in the same tables).
fn question(q: &PegQuery) -> String {
    format!(
        "peg {:?} {:?} {:?} {:?} {:?}",
        q.board, q.art, q.start, q.finish, q.diagonal
    )
}

/// `GET /api/peg/hints`: the peg crate's analysis of the current
/// position (`endgame_peg::api::Service::analyze`), exactly as
/// `endgame hint peg --json` prints it.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<Json<api::PegAnalysis>, ApiError> {
    let time = app
        .budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES)
        .time;
    let (board, _, cur, _) = current(&app, &q, time).await?;
    let service = app.peg.clone();
    // A board of few holes is small work whatever the position; a larger
    // one is a table question once its table is ready, else a solve.
    let (cost, count) = if board.holes() <= crate::CHEAP_PEG_HOLES {
        (Cost::Cheap, api::DEFAULT_COUNT_LIMIT)
    } else {
        (Cost::Lane(question(&q)), LANE_COUNT_PEGS)
    };
    // An analysis made while the start-up counts are still running lacks
    // the counts a later one reads: not kept as the answer. (Asking may
    // load a table: on the blocking pool.)
    let key = format!("{} at {}", question(&q), api::start_notation(&cur));
    let (cur, key) = {
        let service = service.clone();
        tokio::task::spawn_blocking(move || {
            let pending = service.counts_pending(&cur);
            (cur, (!pending).then_some(key))
        })
        .await
        .map_err(|e| ApiError {
            status: axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            message: format!("looking up the tables failed: {e}"),
        })?
    };
    app.analyze(
        &q.budget,
        api::DEFAULT_TIME,
        api::DEFAULT_NODES,
        cost,
        key,
        move |b| service.analyze_with(&cur, count, b),
    )
    .await
    .map(Json)
}

/// Solutions are counted at this many pegs or fewer in a hint of the
/// table lane (the think route counts at up to
/// [`api::DEFAULT_COUNT_LIMIT`]): on the load benchmark's English walks
/// the count was most of a hint's time (mean 419 ms a hint with it, 35 ms
/// without), and it overran the lane's time.
const LANE_COUNT_PEGS: u32 = 20;

/// `GET /api/peg/think`: the hints of `/api/peg/hints` with four times
/// the budget, streamed as server-sent events as rounds decide moves
/// (`crate::think`).
pub(crate) async fn think(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<axum::response::Response, ApiError> {
    let big = app.think_budget(app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES));
    let (_, _, cur, _) = current(&app, &q, big.time).await?;
    let service = app.peg.clone();
    crate::think::stream(&app, big, move |b| service.analyze(&cur, b)).await
}

/// `GET /api/peg/solve`: a line to the goal (or to the best result) by
/// DFS (`endgame_peg::api::solve`, as `endgame solve peg --json` prints
/// it), the search stopping itself at the budget's nodes, its deadline or
/// a cancel.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let budget = app.budget(&q.budget);
    let (_, _, cur, _) = current(&app, &q, budget.time).await?;
    let r = app
        .solve(budget, move |ctl| {
            let limits = api::Budget::from(&ctl.budget(budget.nodes));
            api::solve(&cur, api::Method::Dfs, &limits)
        })
        .await?;
    let mut v = match r {
        Some(r) => serde_json::to_value(&r).map_err(ApiError::bad)?,
        None => serde_json::json!({ "value": "unknown", "solvable": null, "line": [] }),
    };
    v["budget"] = serde_json::to_value(budget).map_err(ApiError::bad)?;
    Ok(Json(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A distinct drawn board for each `i`: rows of pegs and a hole.
    fn row(i: usize) -> PegQuery {
        let line = format!("{}.", "o".repeat(2 + i % 20));
        PegQuery {
            art: Some(vec![line; 1 + i / 20].join("/")),
            ..PegQuery::default()
        }
    }

    /// One start serves every request of its question; past
    /// [`KEPT_STARTS`] questions the oldest half goes, and a bad board is
    /// an error that keeps nothing.
    #[test]
    fn starts_are_kept_by_question_and_bounded() {
        let starts = Starts::default();
        let (_, a) = starts.get_or_build(&row(3), None).unwrap();
        let (_, b) = starts.get_or_build(&row(3), None).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        for i in 4..4 + KEPT_STARTS {
            starts.get_or_build(&row(i), None).unwrap();
        }
        let kept = starts.kept.lock().unwrap().by_question.len();
        assert!((KEPT_STARTS / 2..=KEPT_STARTS).contains(&kept), "{kept}");
        // The first question was among the oldest: built again.
        let (_, c) = starts.get_or_build(&row(3), None).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        let bad = PegQuery {
            board: Some("no-such-board".into()),
            ..PegQuery::default()
        };
        assert_eq!(starts.get_or_build(&bad, None).err().unwrap().status, 400);
        assert!(!starts
            .kept
            .lock()
            .unwrap()
            .by_question
            .contains_key(&question(&bad)));
    }
}
