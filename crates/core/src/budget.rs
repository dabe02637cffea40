//! One budget vocabulary for every searcher: nodes, a deadline (of the
//! wall clock, or of the working thread's CPU time), memory and a cancel
//! token.
//!
//! A searcher takes a [`Budget`] and checks it itself ([`Budget::stop`])
//! at points cheap enough to reach often (every few thousand nodes), so a
//! front end never has to slice work from outside: the web sets the cancel
//! token when a client leaves, the command line sets a deadline.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Set once the whole process is asked to stop (the command line's
/// Ctrl-C): every token reads it, so all running work stops at its next
/// check as if its own token had been cancelled, and cleans up as it does
/// then (temporary files removed, an incomplete report printed).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks all work in this process to stop: every [`Cancel`] token, old and
/// new, reads as cancelled from now on. For a process that runs one job
/// (a command); a server cancels its requests' own tokens instead.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Whether [`interrupt`] was called in this process.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// A shared flag that asks running work to stop. Clones share the flag.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A fresh token, not cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every holder of this token to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called on this token or a clone, or
    /// the process was [`interrupt`]ed.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed) || interrupted()
    }
}

/// A reading of the calling thread's CPU-time clock: the time this thread
/// has run (user and system), which, unlike the wall clock, does not grow
/// while the thread waits for a core. A per-game budget of CPU time
/// decides the same games on an idle machine and on a loaded one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ThreadCpu(Duration);

impl ThreadCpu {
    /// The calling thread's CPU time now (a system call, about half a
    /// microsecond: read it every few hundred nodes, not every node).
    pub fn now() -> ThreadCpu {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: fills the timespec it is given; the clock exists on
        // every system this crate builds for, so it cannot fail.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        ThreadCpu(Duration::new(
            u64::try_from(t.tv_sec).unwrap_or(0),
            u32::try_from(t.tv_nsec).unwrap_or(0),
        ))
    }

    /// CPU time the calling thread has run since `self` (read on the
    /// same thread).
    pub fn elapsed(self) -> Duration {
        ThreadCpu::now().0.saturating_sub(self.0)
    }

    /// The reading `d` later.
    pub fn after(self, d: Duration) -> ThreadCpu {
        ThreadCpu(self.0.saturating_add(d))
    }
}

/// What a piece of work may spend. Every limit is optional; the cancel
/// token is shared with whoever may want to stop the work.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Most nodes (positions expanded or searched), `None`: no limit.
    pub nodes: Option<u64>,
    /// Wall-clock instant after which the work stops, `None`: no limit.
    pub deadline: Option<Instant>,
    /// CPU-time reading of the thread that set it after which the work
    /// stops, `None`: no limit. Only work that runs on that one thread
    /// may take it (the clock read is the checking thread's).
    pub cpu_deadline: Option<ThreadCpu>,
    /// Most bytes of tables the work may allocate, `None`: the searcher's
    /// own default.
    pub memory: Option<usize>,
    /// Stops the work when set.
    pub cancel: Cancel,
}

impl Budget {
    /// No limit at all (only the cancel token stops the work).
    pub fn unlimited() -> Budget {
        Budget::default()
    }

    /// A budget of `time` from now.
    pub fn time(time: Duration) -> Budget {
        Budget::default().with_time(time)
    }

    /// The same budget with its deadline `time` from now.
    pub fn with_time(mut self, time: Duration) -> Budget {
        self.deadline = Instant::now().checked_add(time);
        self
    }

    /// The same budget, stopping also when the calling thread has run
    /// `time` more CPU time (work on this thread only).
    pub fn with_cpu_time(mut self, time: Duration) -> Budget {
        self.cpu_deadline = Some(ThreadCpu::now().after(time));
        self
    }

    /// The same budget with a node limit.
    pub fn with_nodes(mut self, nodes: u64) -> Budget {
        self.nodes = Some(nodes);
        self
    }

    /// The same budget with a memory limit in bytes.
    pub fn with_memory(mut self, bytes: usize) -> Budget {
        self.memory = Some(bytes);
        self
    }

    /// The same budget stopped by `cancel`.
    pub fn with_cancel(mut self, cancel: Cancel) -> Budget {
        self.cancel = cancel;
        self
    }

    /// Cancelled, or past a deadline: stop now.
    pub fn stop(&self) -> bool {
        self.cancel.is_cancelled()
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cpu_deadline.is_some_and(|d| ThreadCpu::now() >= d)
    }

    /// Whether the cancel token was set (as opposed to the time running
    /// out).
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Time left before the wall-clock deadline (`None`: no deadline).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Nodes left after `used` (`None`: no limit).
    pub fn nodes_left(&self, used: u64) -> Option<u64> {
        self.nodes.map(|n| n.saturating_sub(used))
    }

    /// One of `parts` equal shares of what is left: the nodes divided, the
    /// time left divided (from now), the same CPU deadline, memory limit
    /// and cancel token. Used to give every move of a hint its fair part, so
    /// one hard move cannot leave all the others undecided.
    pub fn share(&self, parts: u32) -> Budget {
        let parts = parts.max(1);
        Budget {
            nodes: self.nodes.map(|n| (n / u64::from(parts)).max(1)),
            deadline: self
                .remaining()
                .and_then(|t| Instant::now().checked_add(t / parts)),
            cpu_deadline: self.cpu_deadline,
            memory: self.memory,
            cancel: self.cancel.clone(),
        }
    }

    /// The budget `factor` times larger from now ("think longer"): nodes
    /// and time left multiplied, each capped by `cap` when `cap` has it
    /// (the CPU deadline kept).
    pub fn scaled(&self, factor: u32, cap: &Budget) -> Budget {
        let factor = factor.max(1);
        let nodes = self.nodes.map(|n| n.saturating_mul(u64::from(factor)));
        let nodes = match (nodes, cap.nodes) {
            (Some(n), Some(c)) => Some(n.min(c)),
            (n, _) => n,
        };
        let time = self.remaining().map(|t| t.saturating_mul(factor));
        let time = match (time, cap.remaining()) {
            (Some(t), Some(c)) => Some(t.min(c)),
            (t, _) => t,
        };
        Budget {
            nodes,
            deadline: time.and_then(|t| Instant::now().checked_add(t)),
            cpu_deadline: self.cpu_deadline,
            memory: self.memory,
            cancel: self.cancel.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_of_the_token_cancels_the_budget() {
        let b = Budget::unlimited();
        let token = b.cancel.clone();
        assert!(!b.stop());
        token.cancel();
        assert!(b.stop() && b.cancelled());
    }

    #[test]
    fn a_passed_deadline_stops_without_cancelling() {
        let b = Budget::time(Duration::ZERO);
        assert!(b.stop());
        assert!(!b.cancelled());
        assert_eq!(b.remaining(), Some(Duration::ZERO));
        assert!(!Budget::time(Duration::from_secs(60)).stop());
    }

    /// The CPU clock counts this thread's work, not its waiting: a thread
    /// that sleeps past its CPU budget still has it; one that works
    /// through it stops.
    #[test]
    fn a_cpu_deadline_counts_work_not_waiting() {
        let b = Budget::unlimited().with_cpu_time(Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(60));
        assert!(!b.stop(), "sleeping spent the CPU budget");
        let t = Instant::now();
        let mut x = 1u64;
        while !b.stop() {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            assert!(t.elapsed() < Duration::from_secs(30), "never stopped");
        }
        assert!(!b.cancelled());
        assert_eq!(b.share(2).cpu_deadline, b.cpu_deadline);
        let start = ThreadCpu::now();
        assert!(start.elapsed() < Duration::from_secs(30));
        assert!(ThreadCpu::now() >= start);
    }

    #[test]
    fn shares_divide_nodes_and_time_and_keep_the_token() {
        let b = Budget::time(Duration::from_secs(100)).with_nodes(1000);
        let s = b.share(4);
        assert_eq!(s.nodes, Some(250));
        let left = s.remaining().unwrap();
        assert!(left <= Duration::from_secs(25) && left > Duration::from_secs(24));
        b.cancel.cancel();
        assert!(s.stop());
        assert_eq!(Budget::unlimited().with_nodes(3).share(10).nodes, Some(1));
    }

    #[test]
    fn scaling_is_capped() {
        let b = Budget::time(Duration::from_secs(2)).with_nodes(100);
        let cap = Budget::time(Duration::from_secs(5)).with_nodes(250);
        let s = b.scaled(4, &cap);
        assert_eq!(s.nodes, Some(250));
        assert!(s.remaining().unwrap() <= Duration::from_secs(5));
        assert!(s.remaining().unwrap() > Duration::from_secs(4));
        let free = b.scaled(4, &Budget::unlimited());
        assert_eq!(free.nodes, Some(400));
        assert!(free.remaining().unwrap() > Duration::from_secs(7));
    }
}
