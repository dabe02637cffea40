//! The pool that long work runs on: the solve lane's solves, the think
//! route's streams and the background table builds. Its threads run at a
//! lower scheduling priority (nice [`NICE`] on Linux), so while a long
//! solve keeps the cores busy the short answers (table and cheap lanes,
//! Sim's look-ups, the pages) still get the CPU as soon as they ask:
//! under the kernel's fair scheduler a nice-10 thread weighs about a
//! tenth of a normal one. A solve only waits when short work is running,
//! and its budget's deadline still bounds it.
//!
//! The pool is a rayon pool, so the solvers' own parallel loops, run
//! inside [`Background::run`], stay on these threads.

use std::sync::Arc;

/// The nice value of the pool's threads.
pub(crate) const NICE: i32 = 10;

/// A handle on the low-priority pool (cheap to clone).
#[derive(Clone)]
pub(crate) struct Background(Arc<rayon::ThreadPool>);

impl Background {
    /// A pool of `threads` threads (at least one), each lowering its own
    /// priority when it starts. `None` if the threads cannot be started.
    pub(crate) fn new(threads: usize) -> Option<Background> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("endgame-background-{i}"))
            .start_handler(|_| lower_priority())
            .build()
            .ok()
            .map(|p| Background(Arc::new(p)))
    }

    /// Runs `f` on the pool and waits for it (call it from a blocking
    /// thread): `f`'s parallel iterators use the pool's threads too.
    pub(crate) fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        self.0.install(f)
    }
}

/// Lowers the calling thread's scheduling priority to [`NICE`] (Linux:
/// `setpriority` on the thread's id; elsewhere nothing). Lowering needs
/// no privilege; a failure leaves the thread as it was.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` and `setpriority` take plain integers and touch no
    // memory of ours.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, NICE);
    }
}

/// The calling thread's nice value (Linux; 0 elsewhere).
#[cfg(test)]
pub(crate) fn current_nice() -> i32 {
    #[cfg(target_os = "linux")]
    // SAFETY: as in `lower_priority`.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::getpriority(libc::PRIO_PROCESS, tid)
    }
    #[cfg(not(target_os = "linux"))]
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_at_low_priority_and_its_parallel_loops_too() {
        let pool = Background::new(2).expect("a pool");
        let caller = current_nice();
        let (outer, inner) = pool.run(|| {
            use rayon::prelude::*;
            let inner: Vec<i32> = (0..64).into_par_iter().map(|_| current_nice()).collect();
            (current_nice(), inner)
        });
        if cfg!(target_os = "linux") {
            assert!(outer >= NICE, "nice {outer}");
            assert!(inner.iter().all(|&n| n >= NICE), "{inner:?}");
        }
        // The caller's own priority is untouched.
        assert_eq!(current_nice(), caller);
    }
}
