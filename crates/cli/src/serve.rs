//! `endgame serve`: the web workbench (endgame-web) on a local port.

use crate::output::Output;
use anyhow::{Context, Result};
use clap::Args;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;

/// `endgame serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The lab's results store for the lab page: a SQLite file or a
    /// postgres:// URL (default: ./endgame.db when it exists).
    #[arg(long)]
    pub db: Option<String>,
    /// Solve lane: solver requests of unknown or large cost (late
    /// Pentago, Martello n = 6, custom peg boards, think streams, solves)
    /// that may run at once; the others queue. Default: half the cores,
    /// at least one.
    #[arg(long, default_value_t = endgame_web::default_solves() as u64, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub max_solves: u64,
    /// Solve lane: requests that may wait for a permit (more get HTTP 503).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub max_queue: u64,
    /// Longest wait in any lane's queue, in milliseconds (then HTTP 503).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub queue_wait_ms: u64,
    /// Table lane: hints a solved table answers with small searches beside
    /// it (English peg) that may run at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub table_lane: u64,
    /// Table lane: hints that may wait for a permit (more get HTTP 503).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub table_queue: u64,
    /// Cheap lane: hints whose work is known to be small (Martello n ≤ 5,
    /// peg boards of at most 21 holes) that may run at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub cheap_lane: u64,
    /// Cheap lane: hints that may wait for a permit (more get HTTP 503).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub cheap_queue: u64,
    /// Most time (ms) a hint of the table or cheap lane may take, whatever
    /// its request asks; what is not decided by then is answered undecided.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub lane_time_ms: u64,
    /// Header and idle timeout (ms): a connection that takes longer to
    /// send a request's head, or stays idle that long between requests,
    /// is closed.
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub header_timeout_ms: u64,
    /// Request timeout (ms): a request not answered by then gets HTTP 503
    /// and its work is cancelled.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(100..=3_600_000))]
    pub request_timeout_ms: u64,
    /// Connections open at once; more wait in the listener's backlog.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub max_connections: u64,
    /// Memory (MiB) the Pentago solver keeps between late-game solves, so
    /// the next one takes no page faults (0 keeps none).
    #[arg(long, default_value_t = (endgame_pentago::api::DEFAULT_POOL_BYTES >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(0..=65_536))]
    pub pentago_pool_mb: u64,
    /// Do not build missing solved tables in the background (hints then
    /// search, or use tables built by `endgame cache build`).
    #[arg(long)]
    pub no_build_tables: bool,
    /// Most memory (MiB) a background table build may take; tables that
    /// need more are left for `endgame cache build` (0: no limit).
    #[arg(long, default_value_t = endgame_web::DEFAULT_TABLE_MEMORY >> 20,
          value_parser = clap::value_parser!(u64).range(0..=1 << 24))]
    pub table_memory_mb: u64,
}

/// The lab's default store, used when it exists.
const DEFAULT_DB: &str = "endgame.db";

/// `endgame serve`: serves until Ctrl-C; prints the URL once listening.
pub fn run(args: &ServeArgs, _out: Output) -> Result<String> {
    use std::time::Duration;
    let limits = endgame_web::Limits {
        max_solves: args.max_solves as usize,
        max_queue: args.max_queue as usize,
        queue_wait: Duration::from_millis(args.queue_wait_ms),
        table_lane: args.table_lane as usize,
        table_queue: args.table_queue as usize,
        cheap_lane: args.cheap_lane as usize,
        cheap_queue: args.cheap_queue as usize,
        lane_time: Duration::from_millis(args.lane_time_ms),
        header_timeout: Duration::from_millis(args.header_timeout_ms),
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        max_connections: args.max_connections as usize,
        build_tables: !args.no_build_tables,
        table_memory: (args.table_memory_mb > 0).then_some(args.table_memory_mb << 20),
        ..endgame_web::Limits::default()
    };
    endgame_pentago::api::set_pool_limit((args.pentago_pool_mb as usize) << 20);
    let mut state = endgame_web::AppState::new(limits);
    let db = args.db.clone().or_else(|| {
        Path::new(DEFAULT_DB)
            .exists()
            .then(|| DEFAULT_DB.to_string())
    });
    if let Some(db) = &db {
        // Opened before the async runtime starts: the PostgreSQL client
        // runs a runtime of its own. A store named but unusable is an error.
        let lab = endgame_web::Lab::open(db)?;
        state = state.with_lab(lab);
    }
    let addr = SocketAddr::new(args.host, args.port);
    endgame_web::serve_blocking(addr, state, |bound| {
        // The one line scripts wait for (the e2e test reads the port).
        println!("endgame workbench listening on http://{bound}/");
    })
    .with_context(|| format!("cannot serve on {addr}"))?;
    Ok(String::new())
}
