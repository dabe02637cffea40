//! Progress on stderr, one mechanism for every long command: a bar for
//! work that reports its progress (the layered enumeration, the Martello
//! study, battles), a spinner with the elapsed time for work that does not
//! (searches).
//!
//! How it shows depends on where stderr goes ([`Mode`]):
//!
//! - a terminal: indicatif draws the bar or spinner in place;
//! - anything else (a file, a pipe, a CI log): one plain line every
//!   [`LINE_INTERVAL`] (5 s), e.g.
//!   `progress: battle sim: games 120/500 (24 %), 3.9 per s, 31 s elapsed,
//!   about 98 s left in this phase` (and `slowest 1.2 s` where the work
//!   times its units, as the Martello study does),
//!   so that a long run under `nohup` or in a log shows it is alive; work
//!   that ends sooner prints nothing;
//! - `--quiet`: nothing.
//!
//! The hidden environment variable `ENDGAME_PROGRESS_MS` sets the interval
//! of the plain lines in milliseconds (the tests use it to see lines from
//! short runs).

use endgame_core::layered::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Time between two plain progress lines when stderr is not a terminal.
pub const LINE_INTERVAL: Duration = Duration::from_secs(5);

/// The environment variable that overrides [`LINE_INTERVAL`] (milliseconds).
pub const INTERVAL_ENV: &str = "ENDGAME_PROGRESS_MS";

/// Whether and how progress shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Nothing (`--quiet`).
    Off,
    /// indicatif on a terminal.
    Terminal,
    /// One plain line on stderr at this interval.
    Lines(Duration),
}

impl Mode {
    /// The mode for this process: off with `--quiet`, indicatif when
    /// stderr is a terminal, plain lines otherwise.
    pub fn detect(quiet: bool) -> Mode {
        if quiet {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else {
            Mode::Lines(line_interval())
        }
    }
}

/// [`LINE_INTERVAL`], or `ENDGAME_PROGRESS_MS` when it holds a positive
/// number of milliseconds.
fn line_interval() -> Duration {
    std::env::var(INTERVAL_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(LINE_INTERVAL, Duration::from_millis)
}

/// Whether indicatif should draw (stderr is a terminal and no `--quiet`).
pub fn visible(quiet: bool) -> bool {
    Mode::detect(quiet) == Mode::Terminal
}

/// What the plain lines report: shared between the worker that advances
/// it and the thread that prints it.
struct State {
    /// What the whole command does (`battle sim`, `solving english`).
    task: String,
    /// The current phase (`games`, `layer 12`), empty for none.
    phase: Mutex<String>,
    /// Units of the phase done.
    pos: AtomicU64,
    /// Units of the phase in all (0: unknown).
    len: AtomicU64,
    /// When the command started.
    started: Instant,
    /// When the current phase started.
    phase_started: Mutex<Instant>,
    /// The slowest unit of the phase so far, seconds as `f64` bits (0:
    /// none timed; positive `f64`s order like their bits).
    slowest: AtomicU64,
}

impl State {
    /// The progress line, e.g. `progress: battle sim: games 3/10 (30 %),
    /// 12 s elapsed, about 28 s left`.
    fn line(&self) -> String {
        let mut s = format!("progress: {}", self.task);
        let phase = self.phase.lock().map(|p| p.clone()).unwrap_or_default();
        let (pos, len) = (
            self.pos.load(Ordering::Relaxed),
            self.len.load(Ordering::Relaxed),
        );
        if !phase.is_empty() || len > 0 {
            s.push_str(": ");
            s.push_str(&phase);
        }
        let in_phase = self
            .phase_started
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default();
        if len > 0 {
            let pos = pos.min(len);
            let pct = 100.0 * pos as f64 / len as f64;
            s.push_str(&format!(" {pos}/{len} ({pct:.0} %)"));
            if pos > 0 && in_phase.as_secs_f64() > 0.0 {
                s.push_str(&format!(", {}", rate(pos as f64 / in_phase.as_secs_f64())));
            }
        }
        let slowest = f64::from_bits(self.slowest.load(Ordering::Relaxed));
        if slowest > 0.0 {
            s.push_str(&format!(", slowest {}", seconds(slowest)));
        }
        s.push_str(&format!(", {} elapsed", clock(self.started.elapsed())));
        if len > 0 && pos > 0 && pos < len {
            let left = in_phase.mul_f64((len - pos) as f64 / pos as f64);
            s.push_str(&format!(", about {} left in this phase", clock(left)));
        }
        s
    }
}

/// Units per second for people: `3.9 per s`, `1250 per s`.
fn rate(per_s: f64) -> String {
    if per_s < 100.0 {
        format!("{per_s:.1} per s")
    } else {
        format!("{per_s:.0} per s")
    }
}

/// A unit's time for people: `0.042 s`, `12.3 s`.
fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.3} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A duration for people: `42 s`, `3 min 05 s`, `2 h 07 min`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

/// The printer of the plain lines: a thread that writes a line every
/// interval until stopped.
struct Lines {
    state: Arc<State>,
    stop: Mutex<Option<Sender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Lines {
    fn start(task: &str, interval: Duration) -> Lines {
        let state = Arc::new(State {
            task: task.to_string(),
            phase: Mutex::new(String::new()),
            pos: AtomicU64::new(0),
            len: AtomicU64::new(0),
            started: Instant::now(),
            phase_started: Mutex::new(Instant::now()),
            slowest: AtomicU64::new(0),
        });
        let (stop, stopped) = mpsc::channel::<()>();
        let printer = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
                    let line = printer.line();
                    let mut err = std::io::stderr().lock();
                    let _ = writeln!(err, "{line}");
                    let _ = err.flush();
                }
            })
            .ok();
        Lines {
            state,
            stop: Mutex::new(Some(stop)),
            thread: Mutex::new(thread),
        }
    }

    /// Stops the printer (at once: dropping the sender wakes it).
    fn stop(&self) {
        if let Ok(mut stop) = self.stop.lock() {
            stop.take();
        }
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The one tracker behind [`Bar`] and [`Spinner`].
enum Tracker {
    Off,
    Terminal(ProgressBar),
    Lines(Lines),
}

impl Tracker {
    fn phase(&self, name: &str, total: u64) {
        match self {
            Tracker::Off => {}
            Tracker::Terminal(bar) => {
                bar.set_message(name.to_string());
                bar.set_length(total);
                bar.set_position(0);
                bar.set_prefix("");
            }
            Tracker::Lines(lines) => {
                let s = &lines.state;
                if let Ok(mut p) = s.phase.lock() {
                    *p = name.to_string();
                }
                if let Ok(mut t) = s.phase_started.lock() {
                    *t = Instant::now();
                }
                s.len.store(total, Ordering::Relaxed);
                s.pos.store(0, Ordering::Relaxed);
                s.slowest.store(0, Ordering::Relaxed);
            }
        }
    }

    /// Shows `secs` as the slowest unit of the phase so far.
    fn show_slowest(&self, secs: f64) {
        match self {
            Tracker::Off => {}
            Tracker::Terminal(bar) => bar.set_prefix(format!("slowest {}", seconds(secs))),
            Tracker::Lines(lines) => lines.state.slowest.store(secs.to_bits(), Ordering::Relaxed),
        }
    }

    fn advance(&self, n: u64) {
        match self {
            Tracker::Off => {}
            Tracker::Terminal(bar) => bar.inc(n),
            Tracker::Lines(lines) => {
                lines.state.pos.fetch_add(n, Ordering::Relaxed);
            }
        }
    }

    fn finish(&self) {
        match self {
            Tracker::Off => {}
            Tracker::Terminal(bar) => bar.finish_and_clear(),
            Tracker::Lines(lines) => lines.stop(),
        }
    }
}

/// A progress bar that the work drives one phase at a time
/// ([`Progress::phase`], [`Progress::advance`]).
pub struct Bar {
    tracker: Tracker,
    /// The slowest unit of the phase so far, seconds as `f64` bits
    /// (positive `f64`s order like their bits).
    slowest: AtomicU64,
}

impl Bar {
    /// A bar for `task` (what the command does, named in the plain lines).
    pub fn new(mode: Mode, task: &str) -> Bar {
        let tracker = match mode {
            Mode::Off => Tracker::Off,
            Mode::Lines(every) => Tracker::Lines(Lines::start(task, every)),
            Mode::Terminal => {
                let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{msg:>12} [{bar:40}] {human_pos}/{human_len} ({per_sec}, {elapsed}, eta {eta}) {prefix}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                Tracker::Terminal(bar)
            }
        };
        Bar {
            tracker,
            slowest: AtomicU64::new(0),
        }
    }

    /// Removes the bar from the terminal, or stops the plain lines.
    pub fn finish(&self) {
        self.tracker.finish();
    }
}

impl Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        self.slowest.store(0, Ordering::Relaxed);
        self.tracker.phase(name, total);
    }

    fn advance(&self, n: u64) {
        self.tracker.advance(n);
    }

    fn took(&self, secs: f64) {
        if secs.is_nan() || secs <= 0.0 {
            return;
        }
        // Redraw only on a new maximum.
        let before = self.slowest.fetch_max(secs.to_bits(), Ordering::Relaxed);
        if secs.to_bits() > before {
            self.tracker.show_slowest(secs);
        }
    }
}

/// A spinner with the elapsed time, for work that reports no progress.
pub struct Spinner(Tracker);

impl Spinner {
    /// Starts spinning with `message` (or does nothing with [`Mode::Off`]).
    pub fn start(mode: Mode, message: &str) -> Spinner {
        let tracker = match mode {
            Mode::Off => Tracker::Off,
            Mode::Lines(every) => Tracker::Lines(Lines::start(message, every)),
            Mode::Terminal => {
                let s = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                s.set_style(
                    ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                s.set_message(message.to_string());
                s.enable_steady_tick(Duration::from_millis(120));
                Tracker::Terminal(s)
            }
        };
        Spinner(tracker)
    }

    /// Says what the work is doing now (`board 2 of 3: french`).
    pub fn set_step(&self, step: &str) {
        match &self.0 {
            Tracker::Off => {}
            Tracker::Terminal(s) => s.set_message(step.to_string()),
            Tracker::Lines(lines) => {
                if let Ok(mut p) = lines.state.phase.lock() {
                    *p = step.to_string();
                }
            }
        }
    }

    /// Removes the spinner from the terminal, or stops the plain lines.
    pub fn finish(&self) {
        self.0.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks() {
        assert_eq!(clock(Duration::from_millis(4_900)), "4 s");
        assert_eq!(clock(Duration::from_secs(185)), "3 min 05 s");
        assert_eq!(clock(Duration::from_secs(7_620)), "2 h 07 min");
    }

    #[test]
    fn lines_say_phase_share_and_time() {
        let s = State {
            task: "battle sim".into(),
            phase: Mutex::new("games".into()),
            pos: AtomicU64::new(3),
            len: AtomicU64::new(10),
            started: Instant::now(),
            phase_started: Mutex::new(Instant::now() - Duration::from_secs(2)),
            slowest: AtomicU64::new(0.25f64.to_bits()),
        };
        let line = s.line();
        assert!(
            line.starts_with(
                "progress: battle sim: games 3/10 (30 %), 1.5 per s, slowest 0.250 s, 0 s elapsed"
            ),
            "{line}"
        );
        let spin = State {
            task: "solving english".into(),
            phase: Mutex::new(String::new()),
            pos: AtomicU64::new(0),
            len: AtomicU64::new(0),
            started: Instant::now(),
            phase_started: Mutex::new(Instant::now()),
            slowest: AtomicU64::new(0),
        };
        assert_eq!(spin.line(), "progress: solving english, 0 s elapsed");
    }
}
