//! `endgame serve`: the web workbench (endgame-web).
//! (Pre-wired placeholder: the web issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {}

/// `endgame serve`.
pub fn run(_args: &ServeArgs, _out: Output) -> Result<String> {
    bail!("the web workbench is not built yet")
}
