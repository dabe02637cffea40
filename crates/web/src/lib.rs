//! # endgame-web
//!
//! The web workbench: an HTTP server (axum on tokio) with a JSON API and an
//! embedded UI (plain HTML/CSS/JS modules, compiled into the binary with
//! `include_str!`, so running it needs no build step and no Node.js).
//!
//! - [`router`]: every route, for the server and for tests
//!   (`tower::ServiceExt::oneshot`).
//! - [`serve`]: binds an address and serves until Ctrl-C ([`serve_on`]: on
//!   a bound listener until a given signal).
//! - [`Limits`]: the server-side caps of every solver request's budget;
//!   the lanes that admit solver work by cost (solves, table questions,
//!   work known to be small), each with its permits and a bounded queue (a
//!   full queue or a wait too long: HTTP 503); and the connections'
//!   timeouts and cap.
//! - [`Lab`]: the lab's results store, for the lab page and `/api/lab`.
//!
//! The API is documented in the crate's `README.md`.

mod api;
mod assets;
mod background;
mod games;
mod lab;
mod tables;
mod think;

pub use api::{ApiError, Budget};
pub use lab::Lab;

use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The default memory for background table builds: 4 GiB, enough for
/// every English table; the French best-result set (about 6.4 GB) is then
/// built only on request.
pub const DEFAULT_TABLE_MEMORY: u64 = 4 << 30;

/// The solve lane's default permits: half the cores, at least one. A
/// solve keeps a core busy for its whole budget; with a permit per core
/// the table and cheap lanes' answers wait behind them (on the load
/// benchmark on 2 cores, one permit instead of two raised the answers per
/// second by a quarter and cut the cheap lane's p99 by half; web README).
pub fn default_solves() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

/// Server-side limits on solver work.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Solver requests running at once; more wait in the queue.
    pub max_solves: usize,
    /// Solver requests that may wait for a permit; more get HTTP 503.
    pub max_queue: usize,
    /// Longest wait in the queue before HTTP 503.
    pub queue_wait: Duration,
    /// Default time budget of a request.
    pub default_time: Duration,
    /// Largest time budget a request may ask for.
    pub max_time: Duration,
    /// Default node budget of a request.
    pub default_nodes: u64,
    /// Largest node budget a request may ask for.
    pub max_nodes: u64,
    /// After this long without a solve, [`serve`] hands back the layer
    /// memory Pentago's solver keeps between solves
    /// (`endgame_pentago::api::free_pool`).
    pub pool_idle: Duration,
    /// Whether [`serve`] builds the services' missing solved tables in the
    /// background (one at a time; hints search until a table is ready).
    pub build_tables: bool,
    /// Most memory (bytes) a background table build may take: tables
    /// whose build takes more are left for `endgame cache build`.
    pub table_memory: Option<u64>,
    /// Longest a connection may take to send a request's head (request
    /// line and headers), counted from the connection's start or from the
    /// end of the previous response: a client that sends half a request
    /// is dropped after it, and so is a keep-alive connection idle that
    /// long (hyper's `header_read_timeout`; [`serve`] only).
    pub header_timeout: Duration,
    /// Longest a request may take until its answer starts (then a 503 and
    /// its work is cancelled). Every solver route ends well before it
    /// (queue wait, then its budget's time plus 0.5 s); the events of a
    /// think stream are not counted, only the wait for its start.
    pub request_timeout: Duration,
    /// Connections open at once ([`serve`] only); more wait in the
    /// listener's backlog until one closes.
    pub max_connections: usize,
    /// Hints of questions a solved table answers running at once: they
    /// take these permits instead of the solves' (a look-up need not wait
    /// behind a long solve).
    pub table_lane: usize,
    /// Such hints that may wait for a table-lane permit (each at most
    /// `queue_wait`); more get HTTP 503.
    pub table_queue: usize,
    /// Hints whose work is known to be small (Martello n ≤ 5, peg boards
    /// of at most [`CHEAP_PEG_HOLES`] holes) running at once: they take
    /// these permits instead of the solves', so a long solve never holds
    /// them.
    pub cheap_lane: usize,
    /// Such hints that may wait for a cheap-lane permit (each at most
    /// `queue_wait`); more get HTTP 503.
    pub cheap_queue: usize,
    /// The most time a hint of the table or cheap lane may take, whatever
    /// its request asks: what is not decided by then is answered
    /// undecided (`"decided": false`; the think route, a solve, takes
    /// longer). Bounds how long a lane permit is held.
    pub lane_time: Duration,
}

/// Peg boards of at most this many holes are small enough for the cheap
/// lane (the triangle has 15): their whole game fits in a few thousand
/// positions.
pub const CHEAP_PEG_HOLES: usize = 21;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_solves: default_solves(),
            max_queue: 16,
            queue_wait: Duration::from_secs(10),
            default_time: Duration::from_millis(2_000),
            max_time: Duration::from_millis(10_000),
            default_nodes: 2_000_000,
            max_nodes: 50_000_000,
            pool_idle: Duration::from_secs(60),
            build_tables: true,
            table_memory: Some(DEFAULT_TABLE_MEMORY),
            header_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_connections: 1024,
            table_lane: 4,
            table_queue: 256,
            cheap_lane: 2,
            cheap_queue: 256,
            lane_time: Duration::from_millis(100),
        }
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub(crate) limits: Arc<Limits>,
    pub(crate) solves: Arc<Semaphore>,
    /// Requests waiting for a solve permit.
    pub(crate) queued: Arc<AtomicUsize>,
    /// Sim's analysis service (its solved and lazily filled tables
    /// outlive requests).
    pub(crate) sim: Arc<endgame_sim::api::Service>,
    /// Peg solitaire's analysis service (its goal sets outlive requests).
    pub(crate) peg: Arc<endgame_peg::api::Service>,
    /// Pentago's analysis service (its solvers' tables outlive requests).
    pub(crate) pentago: Arc<endgame_pentago::api::Service>,
    /// Martello's analysis service (its memos outlive requests).
    pub(crate) martello: Arc<endgame_martello::api::Service>,
    pub(crate) lab: Option<Arc<Lab>>,
    /// The cache directory of the services' solved tables.
    pub(crate) cache: std::path::PathBuf,
    /// Stops the background table builds when the server shuts down.
    pub(crate) build_cancel: endgame_core::budget::Cancel,
    /// Solver requests started so far (to tell an idle server).
    pub(crate) started: Arc<std::sync::atomic::AtomicU64>,
    /// The questions a solved table answers, which take the table lane's
    /// permits instead of the solves'.
    pub(crate) tabled: Arc<api::Tabled>,
    /// The table lane's permits and the requests waiting for one.
    pub(crate) lane: Arc<Semaphore>,
    pub(crate) lane_queued: Arc<AtomicUsize>,
    /// The cheap lane's permits and the requests waiting for one.
    pub(crate) cheap: Arc<Semaphore>,
    pub(crate) cheap_queued: Arc<AtomicUsize>,
    /// Settled analyses by position, answered again without a permit.
    pub(crate) answers: Arc<api::Answers>,
    /// Peg start problems by question, which every request of a game
    /// replays its moves on (building one takes up to a millisecond).
    pub(crate) peg_starts: Arc<games::peg::Starts>,
    /// The low-priority pool of the solve lane, the think streams and the
    /// table builds (`None`: its threads could not start, so that work
    /// runs on the blocking pool as it is).
    pub(crate) background: Option<background::Background>,
}

impl AppState {
    /// The shared state for the given limits, its services keeping their
    /// tables in the default cache directory ([`endgame_core::cache::dir`]).
    pub fn new(limits: Limits) -> AppState {
        AppState::with_cache(limits, &endgame_core::cache::dir(None))
    }

    /// The shared state whose services keep their tables in `dir`.
    pub fn with_cache(limits: Limits, dir: &std::path::Path) -> AppState {
        AppState {
            solves: Arc::new(Semaphore::new(limits.max_solves)),
            lane: Arc::new(Semaphore::new(limits.table_lane.max(1))),
            cheap: Arc::new(Semaphore::new(limits.cheap_lane.max(1))),
            limits: Arc::new(limits),
            queued: Arc::new(AtomicUsize::new(0)),
            sim: Arc::new(endgame_sim::api::Service::new(Some(dir.to_path_buf()))),
            peg: Arc::new(endgame_peg::api::Service::with_dir(dir)),
            pentago: Arc::new(endgame_pentago::api::Service::new()),
            martello: Arc::new(endgame_martello::api::Service::new()),
            lab: None,
            cache: dir.to_path_buf(),
            build_cancel: endgame_core::budget::Cancel::new(),
            started: Arc::new(std::sync::atomic::AtomicU64::new(0)),
            tabled: Arc::default(),
            lane_queued: Arc::new(AtomicUsize::new(0)),
            cheap_queued: Arc::new(AtomicUsize::new(0)),
            answers: Arc::default(),
            peg_starts: Arc::default(),
            background: background::Background::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
        }
    }

    /// The same state with the lab's store for the lab page.
    pub fn with_lab(mut self, lab: Lab) -> AppState {
        self.lab = Some(Arc::new(lab));
        self
    }

    /// The services that keep solved tables, cheapest tables first: the
    /// very instances that answer hints, so a table built in the
    /// background answers the next hint.
    pub fn table_services(&self) -> Vec<Arc<dyn endgame_core::cache::Tables>> {
        vec![self.sim.clone(), self.peg.clone()]
    }

    /// `(running, queued)`: solver requests holding a permit and waiting
    /// for one.
    pub fn solves_in_use(&self) -> (usize, usize) {
        (
            self.limits.max_solves - self.solves.available_permits(),
            self.queued.load(Ordering::SeqCst),
        )
    }

    /// `(running, queued)` of the table lane: hints of questions a solved
    /// table answers holding one of its permits and waiting for one.
    pub fn table_lane_in_use(&self) -> (usize, usize) {
        (
            self.limits.table_lane.max(1) - self.lane.available_permits(),
            self.lane_queued.load(Ordering::SeqCst),
        )
    }

    /// `(running, queued)` of the cheap lane: hints of work known to be
    /// small holding one of its permits and waiting for one.
    pub fn cheap_lane_in_use(&self) -> (usize, usize) {
        (
            self.limits.cheap_lane.max(1) - self.cheap.available_permits(),
            self.cheap_queued.load(Ordering::SeqCst),
        )
    }

    /// Settled analyses kept by position (answered again at once).
    pub fn answers_kept(&self) -> usize {
        self.answers.len()
    }
}

/// Fresh instances of every game's analysis service that keeps solved
/// tables in `dir`, cheapest tables first (for `endgame cache`).
pub fn table_services(dir: &std::path::Path) -> Vec<Arc<dyn endgame_core::cache::Tables>> {
    AppState::with_cache(Limits::default(), dir).table_services()
}

/// The whole application: the UI's files and the JSON API.
pub fn router(limits: Limits) -> Router {
    app(AppState::new(limits))
}

/// [`router`] on a given state (with a lab, or kept by a test to look at
/// its solve permits).
///
/// Every answer passes [`guard`]: the request timeout, and a body for the
/// 404s and 405s that have none.
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(assets::routes())
        .nest("/api", games::routes().merge(lab::routes()))
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Wraps every request: past `limits.request_timeout` without an answer
/// it is a 503 (its future dropped, which cancels its work); a 404 or 405
/// without a body gets one, JSON (`{"error": …}`) under `/api`, a line of
/// text elsewhere.
async fn guard(
    axum::extract::State(app): axum::extract::State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::body::HttpBody;
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    let api = path == "/api" || path.starts_with("/api/");
    let limit = app.limits.request_timeout;
    let error = |status: StatusCode, message: String| {
        if api {
            ApiError { status, message }.into_response()
        } else {
            (status, format!("{message}\n")).into_response()
        }
    };
    let r = match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "no answer within the server's request timeout ({} ms), try again",
                    limit.as_millis()
                ),
            )
        }
    };
    let status = r.status();
    let empty = r.body().size_hint().exact() == Some(0);
    if !empty
        || !matches!(
            status,
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        )
    {
        return r;
    }
    let message = if status == StatusCode::NOT_FOUND {
        format!("no such page: {path}")
    } else {
        let allow = r
            .headers()
            .get(header::ALLOW)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("GET")
            .to_string();
        format!("method {method} not allowed on {path} (allowed: {allow})")
    };
    let (mut parts, _) = r.into_parts();
    let fresh = error(status, message);
    // Keep the route's own headers (`Allow`), with the new body's type.
    parts.headers.remove(header::CONTENT_LENGTH);
    for (k, v) in fresh.headers() {
        parts.headers.insert(k.clone(), v.clone());
    }
    axum::response::Response::from_parts(parts, fresh.into_body())
}

/// Serves the workbench on `addr` until Ctrl-C (or SIGTERM), calling
/// `ready` with the address actually bound (port 0 picks a free one).
pub async fn serve(
    addr: SocketAddr,
    state: AppState,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    ready(listener.local_addr()?);
    let idle = tokio::spawn(free_pool_when_idle(state.clone()));
    {
        // The peg hints' solution counts from the ladders already cached
        // (no table is built here), so the first hints read them.
        let (peg, background) = (state.peg.clone(), state.background.clone());
        tokio::task::spawn_blocking(move || {
            api::low_priority(background.as_ref(), || peg.prepare_counts())
        });
    }
    if state.limits.build_tables {
        let (services, cancel) = (state.table_services(), state.build_cancel.clone());
        // One blocking thread, so hints keep the other cores; a failure
        // shows in `/api/status` as the table's state.
        let memory = state.limits.table_memory;
        let background = state.background.clone();
        tokio::task::spawn_blocking(move || {
            let r = api::low_priority(background.as_ref(), || {
                tables::build_missing(&services, &cancel, memory)
            });
            for (name, need) in r.skipped {
                eprintln!(
                    "table {name} not built: it takes about {:.1} GB to build, over the \
                     {:.1} GB allowed (`endgame cache build {name}` builds it)",
                    need as f64 / 1e9,
                    memory.unwrap_or(0) as f64 / 1e9
                );
            }
        });
    }
    let cancel = state.build_cancel.clone();
    let r = serve_on(listener, state, shutdown()).await;
    cancel.cancel();
    idle.abort();
    r
}

/// Serves [`app`] on `listener` until `signal`, then lets the open
/// connections finish their requests (idle ones close at once).
///
/// Each connection is HTTP/1.1 with keep-alive, and closed when its
/// client takes longer than `limits.header_timeout` to send a request's
/// head, or stays idle that long between requests; at most
/// `limits.max_connections` are open at once (more wait in the backlog).
/// Nothing else runs here: no table builds, no pool freeing (see
/// [`serve`]).
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    signal: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.limits.clone();
    let router = app(state);
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    // Dropped at the signal: each connection then shuts down gracefully.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(());
    // Every connection holds a receiver: all gone, all closed.
    let (closed_tx, closed_rx) = tokio::sync::watch::channel(());
    let mut signal = std::pin::pin!(signal);
    loop {
        let slot = tokio::select! {
            p = open.clone().acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut signal => break,
        };
        let tcp = tokio::select! {
            r = listener.accept() => match r {
                Ok((tcp, _)) => tcp,
                Err(_) => {
                    // Out of file descriptors or a connection reset before
                    // it was accepted: wait a little rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut signal => break,
        };
        let _ = tcp.set_nodelay(true);
        let (router, header_timeout) = (router.clone(), limits.header_timeout);
        let (stop, closed) = (stop_rx.clone(), closed_rx.clone());
        tokio::spawn(async move {
            connection(tcp, router, header_timeout, stop).await;
            drop((slot, closed));
        });
    }
    drop(stop_tx);
    drop(stop_rx);
    drop(closed_rx);
    drop(listener);
    closed_tx.closed().await;
    Ok(())
}

/// One HTTP/1.1 connection, until the client or the server closes it, or
/// `stop`'s sender goes away (then gracefully: the request in flight
/// ends first).
async fn connection(
    tcp: tokio::net::TcpStream,
    router: Router,
    header_timeout: Duration,
    mut stop: tokio::sync::watch::Receiver<()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let service = hyper_util::service::TowerToHyperService::new(router);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(tcp), service);
    let mut conn = std::pin::pin!(conn);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => break,
            _ = stop.changed(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Hands back Pentago's pooled layer memory once no solve has started
/// or run for `limits.pool_idle` (checked every half of it): the pool
/// spares a busy server the page faults of each late solve, but an idle
/// one need not hold it.
pub async fn free_pool_when_idle(state: AppState) {
    let every = (state.limits.pool_idle / 2).max(Duration::from_millis(10));
    let mut last = None;
    let mut quiet = Duration::ZERO;
    loop {
        tokio::time::sleep(every).await;
        let now = (state.started.load(Ordering::SeqCst), state.solves_in_use());
        quiet = if Some(now) == last && now.1 == (0, 0) {
            quiet + every
        } else {
            Duration::ZERO
        };
        last = Some(now);
        if quiet >= state.limits.pool_idle && endgame_pentago::api::pool_bytes() > 0 {
            endgame_pentago::api::free_pool();
        }
    }
}

/// [`serve`] on a new multi-threaded tokio runtime, for callers that are
/// not async themselves (the CLI).
pub fn serve_blocking(
    addr: SocketAddr,
    state: AppState,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    // The lab's store is dropped after the runtime: the PostgreSQL client
    // blocks on a runtime of its own when it closes, which tokio forbids
    // inside another runtime.
    let lab = state.lab.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let r = rt.block_on(serve(addr, state, ready));
    drop(rt);
    drop(lab);
    r
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
