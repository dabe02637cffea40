//! `endgame … pentago`: parsing done by clap, work done by endgame-pentago.
//! (Pre-wired placeholder: the Pentago issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame solve pentago`.
#[derive(Debug, Args)]
pub struct SolvePentago {
    /// The position in the interchange notation (SPEC.md).
    pub position: String,
}

/// `endgame hint pentago`.
#[derive(Debug, Args)]
pub struct HintPentago {
    /// The position in the interchange notation.
    pub position: String,
}

/// `endgame play pentago`.
#[derive(Debug, Args)]
pub struct PlayPentago {}

/// `endgame solve pentago`.
pub fn solve(_args: &SolvePentago, _out: Output) -> Result<String> {
    bail!("pentago is not built yet")
}

/// `endgame hint pentago`.
pub fn hint(_args: &HintPentago, _out: Output) -> Result<String> {
    bail!("pentago is not built yet")
}

/// `endgame play pentago`.
pub fn play(_args: &PlayPentago, _out: Output) -> Result<String> {
    bail!("pentago is not built yet")
}
