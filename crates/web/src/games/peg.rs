//! Peg solitaire: `/api/peg/{state,hints,solve}`.
//!
//! A request names the board (`board` built-in name, or `art`), the start
//! (`start` position notation; default: the board's drawn vacancies), the
//! goal (`finish`: a hole, `any`), `diagonal`, and the moves played since
//! (`moves`, `from-to` separated by commas).

use crate::api::{opt, split_moves, ApiError, BudgetQuery, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_core::{Notation, Puzzle, Rules};
use endgame_peg::api::{self, AnyProblem, BoardSource, Finish, Spec};
use endgame_peg::board::Lattice;
use endgame_peg::{with_problem, Board, Pruning};
use serde::{Deserialize, Serialize};

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

/// One hole as the UI draws it.
#[derive(Debug, Serialize)]
pub(crate) struct Hole {
    name: String,
    x: i32,
    y: i32,
    peg: bool,
}

/// One legal jump.
#[derive(Debug, Serialize)]
pub(crate) struct Jump {
    #[serde(rename = "move")]
    mv: String,
    from: String,
    over: String,
    to: String,
}

/// `state`: the board, the position after the moves, the legal jumps.
#[derive(Debug, Serialize)]
pub(crate) struct PegState {
    board: String,
    lattice: &'static str,
    start: String,
    position: String,
    goal: String,
    holes: Vec<Hole>,
    pegs: usize,
    moves: Vec<Jump>,
    played: Vec<String>,
    over: bool,
    solved: bool,
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
fn current(q: &PegQuery) -> Result<(Board, AnyProblem, AnyProblem, Vec<String>), ApiError> {
    let start_spec = spec(q, q.start.clone());
    let board = api::board_of(&start_spec).map_err(ApiError::bad)?;
    let start = api::build(&start_spec).map_err(ApiError::bad)?;
    let played = split_moves(q.moves.as_deref());
    let position = with_problem!(&start, p => {
        let mut pos = p.start();
        for m in &played {
            let mv = p.parse_move(m).map_err(ApiError::bad)?;
            pos = p.play(&pos, mv).map_err(|e| ApiError::bad(format!("move {m}: {e}")))?;
        }
        p.format_position(&pos)
    });
    // The goal stays the board's default (a mid-game position on a drawn
    // board keeps aiming for its vacancy) or the one asked for.
    let cur = api::build(&spec(q, Some(position))).map_err(ApiError::bad)?;
    Ok((board, start, cur, played))
}

/// `GET /api/peg/state`.
pub(crate) async fn state(Q(q): Q<PegQuery>) -> Result<Json<PegState>, ApiError> {
    let (board, start, cur, played) = current(&q)?;
    let st = with_problem!(&cur, p => {
        let pos = p.start();
        let moves: Vec<Jump> = p
            .moves(&pos)
            .into_iter()
            .map(|m| {
                let name = p.move_name(m);
                let mut parts = name.split('-');
                let from = parts.next().unwrap_or("").to_string();
                let to = parts.next().unwrap_or("").to_string();
                let (fi, ti) = (board.hole(&from).ok(), board.hole(&to).ok());
                let over = match (fi, ti) {
                    (Some(f), Some(t)) => {
                        let (a, b) = (board.coords(f), board.coords(t));
                        board
                            .hole_at((a.0 + b.0) / 2, (a.1 + b.1) / 2)
                            .map(|o| board.hole_name(o).to_string())
                            .unwrap_or_default()
                    }
                    _ => String::new(),
                };
                Jump { mv: name, from, over, to }
            })
            .collect();
        let holes: Vec<Hole> = (0..board.holes())
            .map(|h| {
                let (x, y) = board.coords(h);
                Hole { name: board.hole_name(h).to_string(), x, y, peg: p.has_peg(pos, h) }
            })
            .collect();
        let solved = p.is_goal(&pos);
        PegState {
            board: board.name().to_string(),
            lattice: match board.lattice() { Lattice::Square => "square", Lattice::Hex => "hex" },
            start: with_problem!(&start, s => s.format_position(&s.start())),
            position: p.format_position(&pos),
            goal: api::hint(&cur, &api::Budget { max_expansions: 0, ..Default::default() }, 0).goal,
            pegs: p.peg_count(pos) as usize,
            over: moves.is_empty(),
            solved,
            holes,
            moves,
            played,
        }
    });
    Ok(Json(st))
}

/// First node budget of a peg search; each round gives the undecided
/// searches four times more, up to the request's budget.
const FIRST_NODES: u64 = 20_000;

/// What one move's search found.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PegHint {
    #[serde(rename = "move")]
    mv: String,
    /// The goal can still be reached after the move (`null` undecided).
    goal_reachable: Option<bool>,
    /// `solvable`, `unsolvable` or `unknown`.
    value: &'static str,
    /// Pegs left at the end of the best line found after the move.
    best_pegs: Option<u32>,
    /// Whether `best_pegs` is proven the fewest possible.
    best_proven: bool,
    /// Moves left on that line (to the goal when solvable: the pegs still
    /// to remove).
    remoteness: Option<usize>,
    /// SPEC colour.
    colour: &'static str,
}

/// Whether a solve report settles what the hints need: solvable, or
/// unsolvable with its best result proven.
fn decided(r: &api::SolveReport) -> bool {
    r.solvable == Some(true) || (r.solvable == Some(false) && r.best_proven)
}

/// `GET /api/peg/hints`: every legal jump with whether the goal stays
/// reachable, the best result after it and its SPEC colour: green keeps
/// the goal reachable, red loses it, yellow (on a position already
/// unsolvable) keeps the best reachable result, blue undecided.
///
/// Each move's position is searched by the peg crate's `api::solve` (DFS:
/// a line to the goal, or to the best result found, proven or not), in
/// rounds of growing node budgets shared by the moves still undecided, so
/// one hard move cannot starve the others, and the deadline and a client
/// that goes away are seen between rounds.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (_, _, cur, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    // The position after each legal jump, as a problem of its own.
    let children: Vec<(String, AnyProblem, bool)> = with_problem!(&cur, p => {
        let pos = p.start();
        let mut v = Vec::new();
        for m in p.moves(&pos) {
            let child = p.play_unchecked(&pos, m);
            let cp = api::build(&spec(&q, Some(p.format_position(&child)))).map_err(ApiError::bad)?;
            v.push((p.move_name(m), cp, p.is_goal(&child)));
        }
        v
    });
    let here_goal = with_problem!(&cur, p => p.is_goal(&p.start()));
    let names: Vec<String> = children.iter().map(|c| c.0.clone()).collect();
    let found = app
        .solve(budget, move |ctl| {
            let mut res: Vec<Option<api::SolveReport>> = vec![None; children.len()];
            let mut n = FIRST_NODES.min(budget.nodes);
            loop {
                for (i, (_, cp, _)) in children.iter().enumerate() {
                    if res[i].as_ref().is_some_and(decided) || ctl.stop() {
                        continue;
                    }
                    let pb = api::Budget {
                        max_expansions: n,
                        ..Default::default()
                    };
                    res[i] = Some(api::solve(cp, api::Method::Dfs, &pb));
                }
                if res.iter().all(|r| r.as_ref().is_some_and(decided))
                    || n >= budget.nodes
                    || ctl.stop()
                {
                    return res;
                }
                n = n.saturating_mul(4).min(budget.nodes);
            }
        })
        .await?
        .unwrap_or_else(|| vec![None; names.len()]);
    let mut moves: Vec<PegHint> = names
        .iter()
        .zip(&found)
        .map(|(mv, r)| PegHint {
            mv: mv.clone(),
            goal_reachable: r.as_ref().and_then(|r| r.solvable),
            value: "unknown",
            best_pegs: r.as_ref().map(|r| r.pegs_left),
            best_proven: r
                .as_ref()
                .is_some_and(|r| r.solvable == Some(true) || r.best_proven),
            remoteness: r.as_ref().map(|r| r.line.len()),
            colour: "blue",
        })
        .collect();
    let reachable = if here_goal || moves.iter().any(|m| m.goal_reachable == Some(true)) {
        Some(true)
    } else if !moves.is_empty() && moves.iter().all(|m| m.goal_reachable == Some(false)) {
        Some(false)
    } else {
        None
    };
    // The best result found after any move (fewest pegs): an upper bound
    // of the position's best, exact when every move's best is proven.
    let best = moves.iter().filter_map(|m| m.best_pegs).min();
    let all_proven = moves.iter().all(|m| m.best_proven);
    for m in &mut moves {
        (m.value, m.colour) = match m.goal_reachable {
            Some(true) => ("solvable", "green"),
            Some(false) if reachable == Some(false) => (
                "unsolvable",
                // Already unsolvable: the moves keeping the best result.
                if all_proven && m.best_pegs == best {
                    "yellow"
                } else if m.best_proven && m.best_pegs > best {
                    "red"
                } else {
                    "blue"
                },
            ),
            Some(false) => ("unsolvable", "red"),
            None => {
                m.best_pegs = m.best_pegs.filter(|_| m.best_proven);
                m.remoteness = None;
                ("unknown", "blue")
            }
        };
        if m.goal_reachable == Some(false) && !m.best_proven {
            // A best line not proven best says nothing sure of the count.
            m.remoteness = None;
        }
    }
    let remoteness = if here_goal {
        Some(0)
    } else if reachable == Some(true) {
        moves
            .iter()
            .filter(|m| m.goal_reachable == Some(true))
            .filter_map(|m| m.remoteness)
            .min()
            .map(|r| r + 1)
    } else {
        None
    };
    let (position, pegs) =
        with_problem!(&cur, p => (p.format_position(&p.start()), p.peg_count(p.start())));
    // The fewest pegs reachable, when known: the goal's count on a
    // solvable position, the best of the moves when all are proven, the
    // pegs on the board at the end.
    let best_pegs = if moves.is_empty() {
        Some(pegs)
    } else if reachable == Some(true) {
        moves
            .iter()
            .filter(|m| m.goal_reachable == Some(true))
            .filter_map(|m| m.best_pegs)
            .min()
    } else if all_proven {
        best
    } else {
        None
    };
    let reachable = if moves.is_empty() {
        Some(here_goal)
    } else {
        reachable
    };
    Ok(Json(serde_json::json!({
        "position": position,
        "goal_reachable": reachable,
        "value": match reachable { Some(true) => "solvable", Some(false) => "unsolvable", None => "unknown" },
        "remoteness": remoteness,
        "best_pegs": best_pegs,
        "moves": moves,
        "budget": budget,
    })))
}

/// `GET /api/peg/solve`: a line to the goal (or to the best result) by
/// DFS, in growing node budgets until decided, the deadline or a cancel.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<PegQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (_, _, cur, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let r = app
        .solve(budget, move |ctl| {
            ctl.grow(FIRST_NODES, budget.nodes, |n| {
                let pb = api::Budget {
                    max_expansions: n,
                    ..Default::default()
                };
                let r = api::solve(&cur, api::Method::Dfs, &pb);
                let done = decided(&r);
                (r, done)
            })
        })
        .await?;
    let mut v = match r {
        Some(r) => {
            let mut v = serde_json::to_value(&r).map_err(ApiError::bad)?;
            v["value"] = match r.solvable {
                Some(true) => "solvable",
                Some(false) => "unsolvable",
                None => "unknown",
            }
            .into();
            v
        }
        None => serde_json::json!({ "value": "unknown", "solvable": null, "line": [] }),
    };
    v["budget"] = serde_json::to_value(budget).map_err(ApiError::bad)?;
    Ok(Json(v))
}
