//! Scratch files: what a piece of work writes to disk only for itself
//! (spilled layers, a cluster's host list) and must not leave behind,
//! however the process ends.
//!
//! Work that ends normally or with an error removes its files itself
//! (drop guards such as [`TempDir`]). Some ends do not unwind: a second
//! Ctrl-C, a panic turned into an exit, a peer's failure that ends the
//! process. For those, every scratch path is also registered here, and
//! whoever ends the process does so through [`exit`], which removes them. One
//! registry for the whole process, so the command line's signal handler
//! needs to know nothing about which game or engine wrote what.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Paths to remove if the process ends without unwinding, oldest first.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a list that is still valid.
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creates (or truncates) the file `path` and registers it for [`exit`],
/// in one step under the registry's lock: a process ending meanwhile
/// finds the file either registered or not yet made, never made and
/// unknown (which would keep its directory from being removed).
pub fn create_file(path: &Path) -> std::io::Result<std::fs::File> {
    create_registered(path, |p| std::fs::File::create(p))
}

/// Makes `path` with `make` and registers it, holding the registry's
/// lock throughout (see [`create_file`]).
fn create_registered<T>(
    path: &Path,
    make: impl FnOnce(&Path) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let mut paths = registry();
    let made = make(path)?;
    paths.push(path.to_path_buf());
    Ok(made)
}

/// Removes every registered path, newest first (files before the
/// directories that hold them), and forgets them. Errors are ignored (a
/// path already gone is what is wanted). The registry stays locked while
/// the paths go, so a second caller (another thread ending the process)
/// returns only when they are gone, never early with an empty list.
#[cfg(test)]
fn remove_registered() {
    let mut paths = registry();
    remove_all(&mut paths);
}

/// Ends the process with `code` after removing every registered path and
/// printing `message` (if any) as one line on standard error: for the
/// ends that skip the drop guards (a second Ctrl-C, a peer's failure, a
/// panic turned into an exit). The registry stays locked until the
/// process is gone, so no thread creates a scratch path in between, and a
/// second thread ending the process waits for the first.
pub fn exit(code: i32, message: &str) -> ! {
    let mut paths = registry();
    remove_all(&mut paths);
    if !message.is_empty() {
        eprintln!("{message}");
    }
    std::process::exit(code)
}

fn remove_all(paths: &mut Vec<PathBuf>) {
    for p in std::mem::take(paths).iter().rev() {
        remove_path(p);
    }
}

fn remove_path(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

/// Removes `path` (a file or a directory) and forgets it, in one step
/// under the registry's lock: a process ending meanwhile ([`exit`]) finds
/// it either registered or gone.
pub fn remove(path: &Path) {
    let mut paths = registry();
    remove_path(path);
    paths.retain(|p| p != path);
}

/// A new directory for scratch files, removed with everything in it when
/// dropped, and registered until then.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new directory under `parent` named `{prefix}-{process id}-{n}`,
    /// with `n` the first counter value whose name is free.
    pub fn new(parent: &Path, prefix: &str) -> std::io::Result<TempDir> {
        static COUNT: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = COUNT.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("{prefix}-{}-{n}", std::process::id()));
            // Created and registered in one step (see [`remove`]).
            match create_registered(&path, |p| std::fs::create_dir(p)) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// A new directory in the system's temporary directory.
    pub fn in_temp(prefix: &str) -> std::io::Result<TempDir> {
        TempDir::new(&std::env::temp_dir(), prefix)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        remove(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the registry is process-wide, so concurrent tests would
    // see each other's paths in `remove_registered`.
    #[test]
    fn temp_dirs_and_the_registry() {
        let parent = std::env::temp_dir();
        // Dropped: removed and forgotten.
        let a = TempDir::new(&parent, "endgame-scratch-test").unwrap();
        let b = TempDir::new(&parent, "endgame-scratch-test").unwrap();
        assert_ne!(a.path(), b.path(), "two directories, two names");
        std::fs::write(a.path().join("f"), b"x").unwrap();
        let a_path = a.path().to_path_buf();
        drop(a);
        assert!(!a_path.exists());
        assert!(!registry().contains(&a_path));

        // Not dropped (the process "ends" here): the registry removes
        // the directory, its file, and a file registered on its own.
        let loose = parent.join(format!("endgame-scratch-test-loose-{}", std::process::id()));
        create_file(&loose).unwrap();
        assert!(loose.exists());
        std::fs::write(b.path().join("g"), b"z").unwrap();
        let b_path = b.path().to_path_buf();
        remove_registered();
        assert!(!b_path.exists());
        assert!(!loose.exists());
        assert!(registry().is_empty());
        // Its guard dropping later is harmless.
        drop(b);

        // Removed on its own: gone and forgotten.
        let own = parent.join(format!("endgame-scratch-test-own-{}", std::process::id()));
        create_file(&own).unwrap();
        remove(&own);
        assert!(!own.exists());
        assert!(registry().is_empty());

        // Two threads ending the process: the second returns only when
        // the first has removed everything (the old registry handed its
        // list to the first and returned at once to the second, whose
        // exit then cut the first's removal short).
        let big = TempDir::new(&parent, "endgame-scratch-test").unwrap();
        for i in 0..5000 {
            std::fs::write(big.path().join(i.to_string()), b"").unwrap();
        }
        let big_path = big.path().to_path_buf();
        let first = std::thread::spawn(remove_registered);
        while !registry().is_empty() {
            std::thread::yield_now();
        }
        remove_registered();
        assert!(
            !big_path.exists(),
            "the second caller returned before the files were gone"
        );
        first.join().unwrap();
        drop(big);
    }
}
