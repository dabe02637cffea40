//! `endgame … sim`: parsing done by clap, work done by endgame-sim.
//! (Pre-wired placeholder: the Sim issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame solve sim`.
#[derive(Debug, Args)]
pub struct SolveSim {
    /// The position string (SPEC.md); the empty board when omitted.
    pub position: Option<String>,
}

/// `endgame hint sim`.
#[derive(Debug, Args)]
pub struct HintSim {
    /// The position string.
    pub position: String,
}

/// `endgame count sim`.
#[derive(Debug, Args)]
pub struct CountSim {}

/// `endgame solve sim`.
pub fn solve(_args: &SolveSim, _out: Output) -> Result<String> {
    bail!("sim is not built yet")
}

/// `endgame hint sim`.
pub fn hint(_args: &HintSim, _out: Output) -> Result<String> {
    bail!("sim is not built yet")
}

/// `endgame count sim`.
pub fn count(_args: &CountSim, _out: Output) -> Result<String> {
    bail!("sim is not built yet")
}
