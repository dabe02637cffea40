//! Progress on stderr with indicatif: a bar for the layered enumeration,
//! a spinner for work that reports no progress. Both are hidden when
//! stderr is not a terminal or `--quiet` is given.

use endgame_core::layered::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Whether progress should be drawn at all.
pub fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A progress bar that the layered enumeration drives, one phase at a time.
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar on stderr, or a hidden one.
    pub fn new(visible: bool) -> Bar {
        if !visible {
            return Bar(ProgressBar::hidden());
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>12} [{bar:40}] {human_pos}/{human_len} ({elapsed}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Bar(bar)
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        self.0.set_message(name.to_string());
        self.0.set_length(total);
        self.0.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}

/// A spinner with the elapsed time, for searches that report no progress.
pub struct Spinner(ProgressBar);

impl Spinner {
    /// Starts spinning with `message` (or does nothing when hidden).
    pub fn start(visible: bool, message: &str) -> Spinner {
        if !visible {
            return Spinner(ProgressBar::hidden());
        }
        let s = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        s.set_style(
            ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        s.set_message(message.to_string());
        s.enable_steady_tick(Duration::from_millis(120));
        Spinner(s)
    }

    /// Removes the spinner from the terminal.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
