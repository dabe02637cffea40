//! `endgame … martello`: parsing done by clap, work done by endgame-martello.
//! (Pre-wired placeholder: the Martello issue fills this module.)

use crate::output::Output;
use anyhow::{bail, Result};
use clap::Args;

/// `endgame solve martello`.
#[derive(Debug, Args)]
pub struct SolveMartello {
    /// The board string (SPEC.md), or omit it and give `--n` and `--seed`.
    pub board: Option<String>,
}

/// `endgame hint martello`.
#[derive(Debug, Args)]
pub struct HintMartello {
    /// The board string.
    pub board: String,
}

/// `endgame study martello`.
#[derive(Debug, Args)]
pub struct StudyMartello {}

/// `endgame solve martello`.
pub fn solve(_args: &SolveMartello, _out: Output) -> Result<String> {
    bail!("martello is not built yet")
}

/// `endgame hint martello`.
pub fn hint(_args: &HintMartello, _out: Output) -> Result<String> {
    bail!("martello is not built yet")
}

/// `endgame study martello`.
pub fn study(_args: &StudyMartello, _out: Output) -> Result<String> {
    bail!("martello is not built yet")
}
