//! `endgame lab …`: experiments and their results store (endgame-lab).
//! (Pre-wired placeholder: the lab issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame lab`.
#[derive(Debug, Args)]
pub struct LabArgs {}

/// `endgame lab …`.
pub fn run(_args: &LabArgs, _out: Output) -> Result<String> {
    bail!("the lab is not built yet")
}
