//! Pentago: `/api/pentago/{state,hints,solve,ai}`.
//!
//! A request gives the start (`start`, the interchange notation; default
//! the empty board), the moves played since (`moves`, full moves like
//! `c4 ur cw` separated by commas) and optionally a pending placement
//! (`place`, a cell like `c4`: the position then has `m`, a rotation due).

use crate::api::{split_moves, ApiError, BudgetQuery, Q};
use crate::AppState;
use axum::extract::State;
use axum::Json;
use endgame_core::player::MoveLimits;
use endgame_core::{Notation, Rules, Value};
use endgame_pentago::api;
use endgame_pentago::board::bit_index;
use endgame_pentago::notation::QUADRANTS;
use endgame_pentago::player::StrongSearch;
use endgame_pentago::solve::{self, Solver};
use endgame_pentago::{Pentago, Position};
use serde::Deserialize;
use serde_json::json;

/// Transposition table of one request: 2^20 slots (16 MiB).
const TABLE_BITS: u32 = 20;

/// The table of a solve, which walks a whole line: 2^22 slots (64 MiB),
/// so the value found stays in the table for the line's searches.
const SOLVE_TABLE_BITS: u32 = 22;

/// The query of every Pentago route.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct PentagoQuery {
    start: Option<String>,
    moves: Option<String>,
    place: Option<String>,
    /// AI: `strong` (default: exact when the budget allows, else the
    /// strong heuristic player), `seed`, `random`.
    strength: Option<String>,
    #[serde(flatten)]
    budget: BudgetQuery,
}

impl crate::api::Params for PentagoQuery {
    const NAMES: &'static [&'static str] = &["start", "moves", "place", "strength"];
}

fn current(q: &PentagoQuery) -> Result<(Position, Vec<String>), ApiError> {
    let g = Pentago;
    let mut pos = match &q.start {
        Some(s) if !s.trim().is_empty() => g.parse_position(s).map_err(ApiError::bad)?,
        _ => g.start(),
    };
    let played = split_moves(q.moves.as_deref());
    for m in &played {
        let mv = g.parse_move(m).map_err(ApiError::bad)?;
        pos = g.play_checked(&pos, mv).map_err(ApiError::bad)?;
    }
    if let Some(c) = q.place.as_deref().filter(|c| !c.trim().is_empty()) {
        let mv = g.parse_move(c).map_err(ApiError::bad)?;
        if pos.must_rotate() || pos.outcome().is_some() {
            return Err(ApiError::bad("place: no placement is due"));
        }
        if mv.rot != endgame_pentago::game::NONE || pos.empty() >> mv.cell & 1 == 0 {
            return Err(ApiError::bad(format!("place {c}: give one empty cell")));
        }
        pos = pos.place(mv.cell);
    }
    Ok((pos, played))
}

fn side(black: bool) -> &'static str {
    if black {
        "black"
    } else {
        "white"
    }
}

/// Who won a finished game.
fn winner(pos: &Position) -> Option<&'static str> {
    pos.outcome().map(|v| match v {
        Value::Win => side(pos.black_to_move()),
        Value::Loss => side(!pos.black_to_move()),
        _ => "none",
    })
}

/// `GET /api/pentago/state`: the cells (`cells[y][x]`, y = 0 the bottom
/// row; `b`, `w` or `.`), who moves, and whether a rotation is due.
pub(crate) async fn state(Q(q): Q<PentagoQuery>) -> Result<Json<serde_json::Value>, ApiError> {
    let (pos, played) = current(&q)?;
    let cells: Vec<String> = (0..6)
        .map(|y| {
            (0..6)
                .map(|x| {
                    let b = bit_index(x, y);
                    if pos.black() >> b & 1 == 1 {
                        'b'
                    } else if pos.white() >> b & 1 == 1 {
                        'w'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    let g = Pentago;
    Ok(Json(json!({
        "position": g.format_position(&pos),
        "cells": cells,
        "to_move": side(pos.black_to_move()),
        "must_rotate": pos.must_rotate(),
        "over": pos.outcome().is_some(),
        "winner": winner(&pos),
        "moves": g.moves(&pos).into_iter().map(|m| g.format_move(m)).collect::<Vec<_>>(),
        "played": played,
    })))
}

/// The notation of rotation `r` (quadrant `r >> 1`, clockwise when even),
/// as `Position::rotated` numbers them.
fn rotation_label(r: u8) -> String {
    let dir = if r & 1 == 0 { "cw" } else { "ccw" };
    format!("{} {dir}", QUADRANTS[(r >> 1) as usize])
}

/// `GET /api/pentago/hints`: the Pentago crate's analysis of the current
/// position (`endgame_pentago::api::Service::analyze`), exactly as
/// `endgame hint pentago --json` prints it: for a position due to place
/// its full moves (`c4 ur cw`), for one due to rotate its eight rotations.
pub(crate) async fn hints(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<api::PentagoAnalysis>, ApiError> {
    let (pos, _) = current(&q)?;
    let budget = app.budget_for(&q.budget, api::DEFAULT_TIME, api::DEFAULT_NODES);
    let service = app.pentago.clone();
    app.solve(budget, move |ctl| {
        service.analyze(&pos, &ctl.budget(budget.nodes))
    })
    .await?
    .map(Json)
    .ok_or_else(|| ApiError {
        status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
        message: "the analysis did not finish within its time, try again".into(),
    })
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

/// `GET /api/pentago/solve`: the value for the player to move and, when
/// decided, the exact solver's line to the end of the game (each move keeps
/// the value: the winner's moves win, a drawing side's moves draw). With a
/// placement pending, the line starts with the rotation alone.
///
/// The value gets two thirds of the budget's time, the line the rest
/// (`line_complete` false when it ran out); the solver stops itself at
/// the deadline or when the client goes away.
pub(crate) async fn solve(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (pos, _) = current(&q)?;
    let budget = app.budget(&q.budget);
    let r = app
        .solve(budget, move |ctl| {
            let mut s = Solver::new(SOLVE_TABLE_BITS);
            s.set_cancel(ctl.budget(budget.nodes).cancel);
            let v = s.value(
                &pos,
                solve::Budget::exact(&pos, Some(budget.nodes), Some(budget.time * 2 / 3)),
            );
            let mut line = Vec::new();
            let mut complete = false;
            if v != Value::Unknown {
                let g = Pentago;
                let mut p = pos;
                if pos.must_rotate() {
                    // A placement is pending: first the rotation that keeps
                    // the value (the opponent's value after it is the flip).
                    // Rotations that end the game first (no search), then
                    // the others, each with a share of the time left.
                    let mut order: Vec<u8> = (0..8).collect();
                    order.sort_by_key(|&r| pos.rotated(r).outcome().is_none());
                    for (i, &r) in order.iter().enumerate() {
                        if ctl.stop() {
                            break;
                        }
                        let c = pos.rotated(r);
                        let cv = c.outcome().unwrap_or_else(|| {
                            let share = ctl.remaining() / (8 - i as u32);
                            s.value(
                                &c,
                                solve::Budget {
                                    nodes: None,
                                    time: Some(share),
                                },
                            )
                        });
                        if cv == v.flip() {
                            line.push(rotation_label(r));
                            p = c;
                            break;
                        }
                    }
                }
                loop {
                    if p.must_rotate() {
                        break;
                    }
                    if p.outcome().is_some() {
                        complete = true;
                        break;
                    }
                    if ctl.stop() {
                        break;
                    }
                    // A move that wins at once needs no search (and the
                    // search would first re-derive the value).
                    let now = g
                        .moves(&p)
                        .into_iter()
                        .find(|&m| g.play_unchecked(&p, m).outcome() == Some(Value::Loss));
                    if let Some(m) = now {
                        line.push(g.format_move(m));
                        p = g.play_unchecked(&p, m);
                        continue;
                    }
                    let step = solve::Budget {
                        nodes: None,
                        time: Some(ctl.remaining()),
                    };
                    match solve::best_move(&mut s, &p, step) {
                        Some((m, _)) => {
                            line.push(g.format_move(m));
                            p = g.play_unchecked(&p, m);
                        }
                        None => break,
                    }
                }
            }
            (v, s.nodes(), line, complete)
        })
        .await?;
    let (v, nodes, line, complete) = r.unwrap_or((Value::Unknown, 0, vec![], false));
    Ok(Json(json!({
        "position": Pentago.format_position(&pos),
        "value": v,
        "nodes": nodes,
        "line": line,
        "line_complete": complete,
        "budget": budget,
    })))
}

/// `GET /api/pentago/ai`: the AI's full move.
pub(crate) async fn ai(
    State(app): State<AppState>,
    Q(q): Q<PentagoQuery>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let (pos, _) = current(&q)?;
    if pos.outcome().is_some() {
        return Err(ApiError::bad("the game is over"));
    }
    if pos.must_rotate() {
        return Err(ApiError::bad(
            "the AI plays whole moves: give no pending placement",
        ));
    }
    let budget = app.budget(&q.budget);
    let strength = q
        .strength
        .clone()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "strong".into());
    let mut player = endgame_pentago::player::by_name(&strength, 1).map_err(ApiError::bad)?;
    let exact_first = strength == "strong";
    let r = app
        .solve(budget, move |ctl| {
            if exact_first {
                // Exact when the position is small enough for the budget
                // (half of it), else the heuristic player.
                let mut s = Solver::new(TABLE_BITS);
                s.set_cancel(ctl.budget(budget.nodes).cancel);
                let half =
                    solve::Budget::exact(&pos, Some(budget.nodes / 2), Some(budget.time / 2));
                let solved = solve::keeping_moves(&mut s, &pos, half);
                // The client left during the exact search: no second half.
                if ctl.cancelled() {
                    return None;
                }
                match solved {
                    Some((v, moves)) if v == Value::Win || moves.len() == 1 => {
                        return Some((moves[0], Some(v)));
                    }
                    // Drawn or lost: the search picks among the moves
                    // keeping the value (every move when lost) the one
                    // leaving a fallible opponent the most chances to go
                    // wrong, as `strong` does in its own games.
                    Some((v, moves)) => {
                        let m = StrongSearch::new().among(
                            &pos,
                            Some(budget.time / 2),
                            Some(budget.nodes / 2),
                            Some(&moves),
                        );
                        return Some((m, Some(v)));
                    }
                    None => {}
                }
            }
            let limits = MoveLimits {
                time: Some(budget.time / 2),
                nodes: Some(budget.nodes / 2),
            };
            Some((player.choose(&Pentago, &pos, &limits), None))
        })
        .await?
        .flatten();
    match r {
        Some((m, v)) => Ok(Json(json!({
            "move": Pentago.format_move(m),
            "strength": strength,
            "value": v,
        }))),
        None => Err(ApiError {
            status: axum::http::StatusCode::SERVICE_UNAVAILABLE,
            message: "the AI found no move within the budget".into(),
        }),
    }
}
