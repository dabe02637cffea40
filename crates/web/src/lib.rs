//! # endgame-web
//!
//! The web workbench: an HTTP server (axum on tokio) with a JSON API and an
//! embedded UI (plain HTML/CSS/JS modules, compiled into the binary with
//! `include_str!`, so running it needs no build step and no Node.js).
//!
//! - [`router`]: every route, for the server and for tests
//!   (`tower::ServiceExt::oneshot`).
//! - [`serve`]: binds an address and serves until Ctrl-C.
//! - [`Limits`]: the server-side caps of every solver request's budget, the
//!   number of solves that may run at once and the queue of the others
//!   (a full queue or a wait too long: HTTP 503).
//! - [`Lab`]: the lab's results store, for the lab page and `/api/lab`.
//!
//! The API is documented in the crate's `README.md`.

mod api;
mod assets;
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_solves: 2,
            max_queue: 16,
            queue_wait: Duration::from_secs(10),
            default_time: Duration::from_millis(2_000),
            max_time: Duration::from_millis(10_000),
            default_nodes: 2_000_000,
            max_nodes: 50_000_000,
            pool_idle: Duration::from_secs(60),
            build_tables: true,
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
pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(assets::routes())
        .nest("/api", games::routes().merge(lab::routes()))
        .with_state(state)
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
    if state.limits.build_tables {
        let (services, cancel) = (state.table_services(), state.build_cancel.clone());
        // One blocking thread, so hints keep the other cores; a failure
        // shows in `/api/status` as the table's state.
        tokio::task::spawn_blocking(move || tables::build_missing(&services, &cancel));
    }
    let cancel = state.build_cancel.clone();
    let r = axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown())
        .await;
    cancel.cancel();
    idle.abort();
    r
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
