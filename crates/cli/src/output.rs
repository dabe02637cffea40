//! How every command prints: text by default, JSON with `--json`, and
//! progress on stderr unless `--quiet`.

use crate::progress;
use anyhow::{Context, Result};
use serde::Serialize;

/// How a command prints its report.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    /// JSON instead of text.
    pub json: bool,
    /// No progress on stderr.
    pub quiet: bool,
}

impl Output {
    pub fn render<R: Serialize>(
        &self,
        report: &R,
        text: impl FnOnce(&R) -> String,
    ) -> Result<String> {
        if self.json {
            let mut s = serde_json::to_string_pretty(report).context("writing JSON")?;
            s.push('\n');
            Ok(s)
        } else {
            Ok(text(report))
        }
    }

    pub fn progress(&self) -> bool {
        progress::visible(self.quiet)
    }
}
