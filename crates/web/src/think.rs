//! "Think longer": `/api/GAME/think` streams a hint's analysis as server-sent
//! events while the service works with four times the request's budget.
//!
//! The work runs in rounds of doubling budgets
//! ([`endgame_core::analysis::deepen`]): the first with half the larger
//! budget, the last with all of it. After each round an `analysis` event
//! carries every move decided so far (a move decided in any round stays
//! decided); a last `done` event says why it ended. The work holds one
//! solve permit, like any solve, and stops when the client goes away (the
//! stream is dropped, which cancels the work's budget) or everything is
//! decided.
//!
//! Events (each `data` is one JSON object):
//! - `analysis`: `{"round", "rounds", "budget": {"time_ms", "nodes"},
//!   "decided", "analysis"}` — `budget` is the round's, `decided` the
//!   moves decided so far, `analysis` the same JSON as the game's `hints`
//!   route.
//! - `done`: `{"rounds", "settled", "undecided", "stopped"}` — `stopped` is
//!   `decided` (nothing left to decide), `budget` (all rounds ran) or
//!   `cancelled`.

use crate::api::{ApiError, Budget, CancelOnDrop};
use crate::AppState;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use endgame_core::analysis::{deepen, Analysis};
use endgame_core::budget::Cancel;
use serde::Serialize;
use serde_json::json;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How much larger than a hint's budget a think request's is.
pub(crate) const FACTOR: u32 = 4;
/// Rounds of doubling budgets: half the larger budget, then all of it.
pub(crate) const ROUNDS: u32 = 2;

impl AppState {
    /// The budget of a think request: [`FACTOR`] times the hint's budget
    /// (`hint`, already capped), capped again by the server.
    pub(crate) fn think_budget(&self, hint: Budget) -> Budget {
        Budget {
            time: hint.time.saturating_mul(FACTOR).min(self.limits.max_time),
            nodes: hint
                .nodes
                .saturating_mul(u64::from(FACTOR))
                .min(self.limits.max_nodes),
        }
    }
}

/// The events of one think request, given to the client as they come;
/// dropping it (the client left) cancels the work.
pub(crate) struct Events {
    rx: mpsc::Receiver<Event>,
    _stop: CancelOnDrop,
}

impl futures_core::Stream for Events {
    type Item = Result<Event, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx).map(|e| e.map(Ok))
    }
}

/// Streams the analysis of one position with the larger budget `big`
/// (from [`AppState::think_budget`]): `analyze` is the game service's
/// analysis of that position under a core budget.
pub(crate) async fn stream<D, P>(
    app: &AppState,
    big: Budget,
    analyze: impl Fn(&endgame_core::budget::Budget) -> Analysis<D, P> + Send + 'static,
) -> Result<axum::response::Response, ApiError>
where
    D: Clone + Serialize + Send + 'static,
    P: Clone + Serialize + Send + 'static,
{
    let permit = app.permit().await?;
    app.started.fetch_add(1, Ordering::SeqCst);
    let cancel = Cancel::new();
    let (tx, rx) = mpsc::channel(4);
    let token = cancel.clone();
    let background = app.background.clone();
    tokio::task::spawn_blocking(move || {
        crate::api::low_priority(background.as_ref(), move || {
            let last = endgame_core::budget::Budget {
                nodes: Some(big.nodes),
                deadline: Instant::now().checked_add(big.time),
                memory: None,
                cancel: token.clone(),
                ..Default::default()
            };
            let send = |e: Event| {
                // The client left: stop the work.
                if tx.blocking_send(e).is_err() {
                    token.cancel();
                    false
                } else {
                    true
                }
            };
            let mut rounds = 0;
            let out = deepen(&last, ROUNDS, analyze, |k, a| {
                rounds = k;
                let shift = ROUNDS - k;
                let round = Budget {
                    time: big.time / (1 << shift),
                    nodes: (big.nodes >> shift).max(1),
                };
                let data = json!({
                    "round": k,
                    "rounds": ROUNDS,
                    "budget": round,
                    "decided": a.moves.len() - a.undecided(),
                    "analysis": a,
                });
                send(Event::default().event("analysis").data(data.to_string()))
            });
            let settled = out.as_ref().is_some_and(|a| a.settled());
            let stopped = if token.is_cancelled() {
                "cancelled"
            } else if settled {
                "decided"
            } else {
                "budget"
            };
            let data = json!({
                "rounds": rounds,
                "settled": settled,
                "undecided": out.as_ref().map(|a| a.undecided()),
                "stopped": stopped,
            });
            send(Event::default().event("done").data(data.to_string()));
            drop(permit);
        })
    });
    Ok(Sse::new(Events {
        rx,
        _stop: CancelOnDrop(cancel),
    })
    .keep_alive(KeepAlive::new().interval(Duration::from_secs(5)))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::BudgetQuery;
    use endgame_pentago::{api as pentago, mid, solve::Solver};

    /// A think request with the default budget gives a 16-stone Pentago
    /// hint time for the retrograde solver in its last round (the hand-over
    /// rule is the Pentago crate's; this checks the budget the route gives
    /// it), not in its first.
    #[test]
    fn a_default_think_request_reaches_16_stones_exactly() {
        let dir = std::env::temp_dir().join(format!("endgame-think-unit-{}", std::process::id()));
        let app = AppState::with_cache(crate::Limits::default(), &dir);
        let hint = app.budget_for(
            &BudgetQuery::default(),
            pentago::DEFAULT_TIME,
            pentago::DEFAULT_NODES,
        );
        let big = app.think_budget(hint);
        assert_eq!(big.time, Duration::from_secs(8));
        // 16 stones (20 empty cells), from the published test data.
        let p = pentago::parse("23927692395154821").unwrap();
        assert_eq!(p.stones(), 16);
        let one = mid::Plan {
            one_sweep: true,
            bytes: 0,
            disk: 0,
        };
        let s = Solver::default();
        // Less what stage 1 and the alpha-beta's share take first.
        assert!(s.retrograde_fits(&p, &one, Some(big.time - Duration::from_millis(300))));
        assert!(!s.retrograde_fits(&p, &one, Some(big.time / ROUNDS)));
        assert!(!s.retrograde_fits(&p, &one, Some(hint.time)));
    }
}
