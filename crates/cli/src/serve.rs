//! `endgame serve`: the web workbench (endgame-web) on a local port.

use crate::output::Output;
use anyhow::{Context, Result};
use clap::Args;
use std::net::{IpAddr, SocketAddr};

/// `endgame serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The lab's results store (SQLite file). Accepted for the lab page,
    /// which this increment does not serve yet.
    #[arg(long)]
    pub db: Option<String>,
    /// Solver requests that may run at once (the rest get HTTP 503).
    #[arg(long, default_value_t = 2)]
    pub max_solves: usize,
}

/// `endgame serve`: serves until Ctrl-C; prints the URL once listening.
pub fn run(args: &ServeArgs, _out: Output) -> Result<String> {
    if args.max_solves == 0 {
        anyhow::bail!("--max-solves must be at least 1");
    }
    let limits = endgame_web::Limits {
        max_solves: args.max_solves,
        ..endgame_web::Limits::default()
    };
    let addr = SocketAddr::new(args.host, args.port);
    endgame_web::serve_blocking(addr, limits, |bound| {
        // The one line scripts wait for (the e2e test reads the port).
        println!("endgame workbench listening on http://{bound}/");
    })
    .with_context(|| format!("cannot serve on {addr}"))?;
    Ok(String::new())
}
