//! Ctrl-C (or SIGTERM, SIGHUP) during a long command: the first asks the work to stop at its
//! next budget check (every cancel token in the process reads as
//! cancelled), so it removes its temporary files and prints what it knows
//! as an incomplete report (exit status 3); a second ends the process at
//! once (status 130, as the shell's default for SIGINT). A count
//! spilling its layers across processes does not wait for its next check:
//! it removes its files and ends at once (status 130; see the cluster
//! crate's `spill`).
//!
//! Installed for `solve`, `count` and `hint`, whose report after a stop is
//! the one a spent budget gives. Elsewhere Ctrl-C keeps its usual meaning:
//! `serve` has its own graceful shutdown, `play` is interactive, and a
//! stopped search inside `study`, `lab run` or `battle` would be recorded
//! as a game's result (their committed work is kept either way).

use std::sync::atomic::{AtomicBool, Ordering};

/// Installs the handler. Failing to install it (another handler already
/// there) leaves Ctrl-C's default behaviour, which is not an error.
pub fn install() {
    static SEEN: AtomicBool = AtomicBool::new(false);
    let _ = ctrlc::set_handler(|| {
        if SEEN.swap(true, Ordering::Relaxed) {
            // Quitting at once skips the drop guards: the scratch files
            // (spilled layers of any engine, a cluster's host list) go here.
            endgame_core::scratch::exit(130, "");
        }
        endgame_core::budget::interrupt();
        eprintln!("interrupted: stopping at the next check (Ctrl-C again to quit at once)");
    });
}
