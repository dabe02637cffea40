//! What every game's API shares: errors as JSON, budgets, and running
//! solver work on the blocking pool under the solve semaphore.

use crate::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use endgame_core::analysis::{Analysis, Decided};
use endgame_core::budget::Cancel;
use serde::Deserialize;
use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An API error: its HTTP status and a one-line message, sent as
/// `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    /// 400 bad input, 503 busy, 500 internal.
    pub status: StatusCode,
    /// What went wrong.
    pub message: String,
}

impl ApiError {
    /// Bad input (HTTP 400).
    pub fn bad(message: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

/// The budget fields every solver request may carry (`time_ms`,
/// `nodes`), capped by the server.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct BudgetQuery {
    /// Milliseconds.
    #[serde(default, deserialize_with = "opt")]
    pub time_ms: Option<u64>,
    /// Nodes (positions searched).
    #[serde(default, deserialize_with = "opt")]
    pub nodes: Option<u64>,
}

/// Reads an optional query value through `FromStr`: query structs with a
/// flattened part see every value as a string, so numbers and booleans
/// are parsed here (an empty value is absent).
pub(crate) fn opt<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let s: Option<String> = Option::deserialize(d)?;
    match s.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("'{v}': {e}"))),
    }
}

/// The parameter names a query type accepts. The query structs flatten
/// the budget, which rules out serde's `deny_unknown_fields`, so the
/// extractor checks names itself: a misspelt parameter is a 400, not a
/// silent answer for some other position.
pub(crate) trait Params {
    /// The names of the type's own fields (the budget's are added).
    const NAMES: &'static [&'static str];
}

/// The budget's parameter names, accepted by every route.
const BUDGET_NAMES: [&str; 2] = ["time_ms", "nodes"];

/// The first parameter of `query` that `T` does not know.
fn unknown_param<T: Params>(query: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .map(|(k, _)| k.into_owned())
        .find(|k| !T::NAMES.contains(&k.as_str()) && !BUDGET_NAMES.contains(&k.as_str()))
}

/// The query string as a `T`; a malformed one, or one with a parameter
/// `T` does not know, is a JSON 400.
pub(crate) struct Q<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for Q<T>
where
    T: serde::de::DeserializeOwned + Params,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        if let Some(k) = unknown_param::<T>(parts.uri.query().unwrap_or("")) {
            let known: Vec<&str> = T::NAMES.iter().chain(&BUDGET_NAMES).copied().collect();
            return Err(ApiError::bad(format!(
                "unknown parameter '{k}' (known: {})",
                known.join(", ")
            )));
        }
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Q(q.0))
            .map_err(|e| ApiError::bad(e.body_text()))
    }
}

/// The budget a request gets after the server's caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Budget {
    /// Wall-clock time allowed.
    #[serde(serialize_with = "ser_ms", rename = "time_ms")]
    pub time: Duration,
    /// Nodes allowed.
    pub nodes: u64,
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

impl AppState {
    /// The capped budget of a request.
    pub(crate) fn budget(&self, q: &BudgetQuery) -> Budget {
        let l = &self.limits;
        Budget {
            time: q
                .time_ms
                .map_or(l.default_time, Duration::from_millis)
                .min(l.max_time),
            nodes: q.nodes.unwrap_or(l.default_nodes).clamp(1, l.max_nodes),
        }
    }

    /// The capped budget of a request to a game's analysis service, whose
    /// own defaults (`api::DEFAULT_TIME`, `api::DEFAULT_NODES` of the game
    /// crate, the same the command line uses) apply when the request names
    /// none; the server's caps still bound them.
    pub(crate) fn budget_for(&self, q: &BudgetQuery, time: Duration, nodes: u64) -> Budget {
        let l = &self.limits;
        Budget {
            time: q
                .time_ms
                .map_or(time, Duration::from_millis)
                .min(l.max_time),
            nodes: q.nodes.unwrap_or(nodes).clamp(1, l.max_nodes),
        }
    }

    /// Runs solver work `f` on the blocking pool, holding one solve permit
    /// until it ends.
    ///
    /// Without a free permit the request waits in a bounded queue (at most
    /// `max_queue` waiting, each at most `queue_wait`); a full queue or an
    /// expired wait is a 503. Then as [`AppState::run`].
    pub(crate) async fn solve<T: Send + 'static>(
        &self,
        budget: Budget,
        f: impl FnOnce(&Ctl) -> T + Send + 'static,
    ) -> Result<Option<T>, ApiError> {
        let permit = self.permit().await?;
        self.run(budget, Some(permit), true, f).await
    }

    /// Runs solver work `f` on the blocking pool, holding `permit` (if
    /// any) until it ends; `low`: on the low-priority pool
    /// ([`crate::background`]), for the solve lane's long work.
    ///
    /// `f` gets a [`Ctl`]: its deadline (the budget's time from the start
    /// of the work) and a cancel flag that is set when this future is
    /// dropped (the client went away) or times out, so the searcher given
    /// [`Ctl::budget`] stops itself and the permit comes back.
    /// `Ok(None)`: not finished within the budget's time (plus a grace),
    /// which the caller reports as `unknown`.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        budget: Budget,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        low: bool,
        f: impl FnOnce(&Ctl) -> T + Send + 'static,
    ) -> Result<Option<T>, ApiError> {
        self.started.fetch_add(1, Ordering::SeqCst);
        let ctl = Ctl::new(budget.time);
        // Dropped when this future ends or is dropped: stops the work.
        let _stop = CancelOnDrop(ctl.cancel.clone());
        let work = ctl.clone();
        let background = self.background.clone().filter(|_| low);
        let job = tokio::task::spawn_blocking(move || {
            let out = low_priority(background.as_ref(), || f(&work));
            drop(permit);
            out
        });
        let grace = Duration::from_millis(500);
        match tokio::time::timeout(budget.time + grace, job).await {
            Ok(Ok(v)) => Ok(Some(v)),
            Ok(Err(e)) => Err(ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                message: format!("the solver failed: {e}"),
            }),
            Err(_) => Ok(None),
        }
    }

    /// A game service's analysis under the request's budget (the game's
    /// own defaults `time` and `nodes` where the request names none),
    /// admitted by its cost: `f` gets the core budget of the work.
    ///
    /// - `key` names the position (with everything its analysis depends
    ///   on): a settled analysis (every move decided, so exact whatever
    ///   the budget) is kept under it ([`Answers`]) and the next request
    ///   for it is answered at once, taking no permit.
    /// - `cost` picks the lane ([`Cost`]): a table look-up takes no
    ///   permit; a question a solved table answers with small searches
    ///   beside it takes one of the table lane's, work known to be small
    ///   one of the cheap lane's (both with the time capped at
    ///   `limits.lane_time`: what is not decided by then is answered
    ///   undecided, `"decided": false`); anything else one of the solve
    ///   lane's, so long solves never hold the permits of the short ones.
    ///
    /// Work that did not finish within its time (plus a grace) is a 503.
    pub(crate) async fn analyze<D, P>(
        &self,
        q: &BudgetQuery,
        time: Duration,
        nodes: u64,
        cost: Cost,
        key: Option<String>,
        f: impl FnOnce(&endgame_core::budget::Budget) -> Analysis<D, P> + Send + 'static,
    ) -> Result<Analysis<D, P>, ApiError>
    where
        D: Clone + Send + Sync + 'static,
        P: Clone + Send + Sync + 'static,
    {
        if let Some(a) = key.as_deref().and_then(|k| self.answers.get::<D, P>(k)) {
            return Ok(a);
        }
        let mut budget = self.budget_for(q, time, nodes);
        let tabled = cost.table().is_some_and(|t| self.tabled.knows(t));
        let capped = |mut b: Budget| {
            b.time = b.time.min(self.limits.lane_time);
            b
        };
        let (permit, low) = match &cost {
            Cost::Lookup(_) if tabled => (None, false),
            Cost::Lane(_) if tabled => {
                budget = capped(budget);
                (Some(self.table_permit().await?), false)
            }
            Cost::Cheap => {
                budget = capped(budget);
                (Some(self.cheap_permit().await?), false)
            }
            _ => (Some(self.permit().await?), true),
        };
        let a = self
            .run(budget, permit, low, move |ctl| f(&ctl.budget(budget.nodes)))
            .await?
            .ok_or_else(|| busy("the analysis did not finish within its time, try again"))?;
        if let Some(t) = cost.table().filter(|_| a.decided_by == Decided::Table) {
            self.tabled.learn(t.to_string());
        }
        if let (Some(k), true) = (key, a.settled()) {
            self.answers.keep(k, &a);
        }
        Ok(a)
    }

    /// One solve permit: at once if one is free, else after a wait in the
    /// bounded queue (a full queue or a wait past `queue_wait` is a 503).
    pub(crate) async fn permit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        acquire(
            &self.solves,
            &self.queued,
            self.limits.max_queue,
            self.limits.queue_wait,
        )
        .await
    }

    /// One permit of the table lane, for the questions a solved table
    /// answers: `limits.table_lane` of them at once, `limits.table_queue`
    /// waiting, each at most `queue_wait` (else a 503).
    pub(crate) async fn table_permit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        acquire(
            &self.lane,
            &self.lane_queued,
            self.limits.table_queue,
            self.limits.queue_wait,
        )
        .await
    }

    /// One permit of the cheap lane, for work known to be small:
    /// `limits.cheap_lane` of them at once, `limits.cheap_queue` waiting,
    /// each at most `queue_wait` (else a 503).
    pub(crate) async fn cheap_permit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        acquire(
            &self.cheap,
            &self.cheap_queued,
            self.limits.cheap_queue,
            self.limits.queue_wait,
        )
        .await
    }
}

/// A permit of `permits`: at once if one is free, else after a wait in a
/// queue of at most `max_queue` (counted in `queued`) of at most `wait`
/// (a full queue or an expired wait is a 503).
async fn acquire(
    permits: &Arc<tokio::sync::Semaphore>,
    queued: &Arc<AtomicUsize>,
    max_queue: usize,
    wait: Duration,
) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    if let Ok(p) = permits.clone().try_acquire_owned() {
        return Ok(p);
    }
    // Leaving this scope (got a permit, gave up, or the client went away)
    // takes the request off the queue.
    let _slot = QueueSlot::enter(queued, max_queue)
        .ok_or_else(|| busy("the solver is busy and its queue is full, try again"))?;
    match tokio::time::timeout(wait, permits.clone().acquire_owned()).await {
        Ok(Ok(p)) => Ok(p),
        _ => Err(busy(
            "the solver is busy: waited too long in the queue, try again",
        )),
    }
}

fn busy(message: &str) -> ApiError {
    ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: message.into(),
    }
}

/// Runs `f` on `pool` if there is one (waiting for it), else here.
pub(crate) fn low_priority<T: Send>(
    pool: Option<&crate::background::Background>,
    f: impl FnOnce() -> T + Send,
) -> T {
    match pool {
        Some(p) => p.run(f),
        None => f(),
    }
}

/// What a hint costs, which picks its lane in [`AppState::analyze`].
pub(crate) enum Cost {
    /// Unknown or large (late Pentago, Martello n = 6, a custom peg
    /// board, a table not ready yet): the solve lane.
    Solve,
    /// Known to be small whatever the position (Martello n ≤ 5, a peg
    /// board of few holes): the cheap lane.
    Cheap,
    /// Answered by look-ups alone once the named question's table is
    /// ready: no permit.
    Lookup(String),
    /// Answered by the named question's table and small searches beside
    /// it: a table-lane permit.
    Lane(String),
}

impl Cost {
    /// The question of a solved table, if the cost depends on one.
    fn table(&self) -> Option<&str> {
        match self {
            Cost::Lookup(k) | Cost::Lane(k) => Some(k),
            Cost::Solve | Cost::Cheap => None,
        }
    }
}

/// Settled analyses by position (the callers' keys): every move decided,
/// so the answer is exact and the same under any budget. Each is kept as
/// its game's analysis type.
#[derive(Default)]
pub(crate) struct Answers(Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>);

/// Most analyses [`Answers`] keeps (then it starts afresh): a few
/// kilobytes each, so some tens of megabytes at most.
const ANSWERS_MAX: usize = 4096;

impl Answers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<dyn Any + Send + Sync>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The analysis kept under `key`, if any (of this type).
    fn get<D, P>(&self, key: &str) -> Option<Analysis<D, P>>
    where
        D: Clone + Send + Sync + 'static,
        P: Clone + Send + Sync + 'static,
    {
        let a = self.lock().get(key).cloned()?;
        a.downcast_ref::<Analysis<D, P>>().cloned()
    }

    /// Keeps `a` under `key`.
    fn keep<D, P>(&self, key: String, a: &Analysis<D, P>)
    where
        D: Clone + Send + Sync + 'static,
        P: Clone + Send + Sync + 'static,
    {
        let mut map = self.lock();
        if map.len() >= ANSWERS_MAX && !map.contains_key(&key) {
            map.clear();
        }
        map.insert(key, Arc::new(a.clone()));
    }

    /// How many analyses are kept.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// The questions (keys from [`AppState::analyze`]'s callers) a solved
/// table answers: they take the table lane's permits, not the solves'.
#[derive(Debug, Default)]
pub(crate) struct Tabled(Mutex<HashSet<String>>);

/// Most questions [`Tabled`] remembers (then it starts afresh).
const TABLED_MAX: usize = 4096;

impl Tabled {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a table answers `key`.
    pub(crate) fn knows(&self, key: &str) -> bool {
        self.lock().contains(key)
    }

    /// Records that a table answers `key`.
    fn learn(&self, key: String) {
        let mut set = self.lock();
        if set.len() >= TABLED_MAX && !set.contains(&key) {
            set.clear();
        }
        set.insert(key);
    }
}

/// One place in the solve queue, given back on drop.
struct QueueSlot(Arc<AtomicUsize>);

impl QueueSlot {
    /// A place if fewer than `max` requests wait.
    fn enter(queued: &Arc<AtomicUsize>, max: usize) -> Option<QueueSlot> {
        queued
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| QueueSlot(queued.clone()))
    }
}

impl Drop for QueueSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Sets the cancel flag when the request's future goes away.
pub(crate) struct CancelOnDrop(pub(crate) Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// What running solver work sees: when to stop. The games' searchers take
/// its core budget ([`Ctl::budget`]) and stop themselves.
#[derive(Clone, Debug)]
pub(crate) struct Ctl {
    cancel: Cancel,
    deadline: Instant,
}

impl Ctl {
    /// A fresh control whose deadline is `time` from now.
    pub(crate) fn new(time: Duration) -> Ctl {
        Ctl {
            cancel: Cancel::new(),
            deadline: Instant::now() + time,
        }
    }

    /// The core budget of this work: the request's deadline and node
    /// limit, and the cancel token set when the client goes away. A
    /// searcher given it stops itself.
    pub(crate) fn budget(&self, nodes: u64) -> endgame_core::budget::Budget {
        endgame_core::budget::Budget {
            nodes: Some(nodes),
            deadline: Some(self.deadline),
            memory: None,
            cancel: self.cancel.clone(),
            ..Default::default()
        }
    }
}

/// Splits a `moves` parameter: moves separated by commas (Pentago moves
/// contain spaces), empty items ignored.
pub(crate) fn split_moves(s: Option<&str>) -> Vec<String> {
    s.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(String::from)
        .collect()
}
