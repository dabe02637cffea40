//! `endgame battle GAME`: AI against AI for every two-player game.
//! (Pre-wired placeholder: the Pentago issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame battle pentago|sim`.
#[derive(Debug, Args)]
pub struct BattleArgs {}

/// `endgame battle pentago`.
pub fn pentago(_args: &BattleArgs, _out: Output) -> Result<String> {
    bail!("battle is not built yet")
}

/// `endgame battle sim`.
pub fn sim(_args: &BattleArgs, _out: Output) -> Result<String> {
    bail!("battle is not built yet")
}
