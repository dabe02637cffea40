//! A cluster on this machine: the command re-executes itself as the other
//! processes, joined over loopback through a host file it writes.

use crate::net::Cluster;
use crate::ClusterError;
use endgame_core::scratch::TempDir;
use std::ffi::OsString;
use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most processes `--workers` starts on one machine.
pub const MAX_LOCAL_PROCESSES: usize = 64;

/// The other processes of a local cluster (1 to N-1), watched: when one
/// fails, this process says why on one line and exits with its status.
/// Dropping it stops those still running.
pub struct LocalWorkers {
    children: Arc<Mutex<Vec<Child>>>,
    done: Arc<AtomicBool>,
    /// The host file's directory, removed when the workers are done.
    _dir: TempDir,
}

/// Starts a local cluster of `n` processes: this one is process 0, the
/// others run `exe` with `args` followed by `--hosts FILE --process I
/// --quiet`, their standard output discarded. Returns the cluster this
/// process joins and the watched processes.
pub fn start(
    n: usize,
    exe: PathBuf,
    args: Vec<OsString>,
) -> Result<(Cluster, LocalWorkers), ClusterError> {
    if n == 0 || n > MAX_LOCAL_PROCESSES {
        return Err(ClusterError::Config(format!(
            "--workers {n} out of range 1..={MAX_LOCAL_PROCESSES}"
        )));
    }
    // Free loopback ports: bound by the system, released for the
    // processes to bind again (a port taken in between fails the join
    // with a one-line error).
    let mut addresses = Vec::with_capacity(n);
    for _ in 0..n {
        let l = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| ClusterError::Network(format!("no free loopback port: {e}")))?;
        addresses.push(l.to_string());
    }
    // Removed however the process ends (a registered scratch directory).
    let dir = TempDir::in_temp("endgame-cluster").map_err(|e| {
        ClusterError::Config(format!(
            "cannot create a directory in {}: {e}",
            std::env::temp_dir().display()
        ))
    })?;
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, addresses.join("\n") + "\n")
        .map_err(|e| ClusterError::Config(format!("cannot write {}: {e}", hosts.display())))?;
    let mut workers = LocalWorkers {
        children: Arc::new(Mutex::new(Vec::new())),
        done: Arc::new(AtomicBool::new(false)),
        _dir: dir,
    };
    let quiet = args.iter().any(|a| a == "-q" || a == "--quiet");
    for i in 1..n {
        let child = Command::new(&exe)
            .args(&args)
            .arg("--hosts")
            .arg(&hosts)
            .arg("--process")
            .arg(i.to_string())
            .args((!quiet).then_some("--quiet"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ClusterError::Config(format!("cannot start worker {i}: {e}")))?;
        workers.children.lock().expect("not poisoned").push(child);
    }
    workers.watch();
    Ok((Cluster::new(addresses, 0)?, workers))
}

impl LocalWorkers {
    /// Watches the processes from a thread: the first one to fail (any
    /// status but 0, and 3, a stopped count that process 0 reports
    /// itself) ends this process with its message and status.
    fn watch(&mut self) {
        let (children, done) = (Arc::clone(&self.children), Arc::clone(&self.done));
        std::thread::spawn(move || loop {
            if done.load(Ordering::Acquire) {
                return;
            }
            {
                let mut cs = children.lock().expect("not poisoned");
                let failed = cs
                    .iter_mut()
                    .enumerate()
                    .find_map(|(i, c)| match c.try_wait() {
                        Ok(Some(s)) if !s.success() && s.code() != Some(3) => Some((i + 1, s)),
                        _ => None,
                    });
                if let Some((i, status)) = failed {
                    let mut why = String::new();
                    if let Some(mut e) = cs[i - 1].stderr.take() {
                        let _ = e.read_to_string(&mut why);
                    }
                    let why = why.lines().next().unwrap_or("").trim();
                    let why = why.strip_prefix("error: ").unwrap_or(why);
                    for c in cs.iter_mut() {
                        stop(c);
                    }
                    let code = status.code().unwrap_or(2);
                    let what = match status.code() {
                        Some(c) => format!("exit status {c}"),
                        None => "killed by a signal".to_string(),
                    };
                    endgame_core::scratch::exit(
                        if code == 0 { 2 } else { code },
                        &format!("error: worker process {i} failed ({what}): {why}"),
                    );
                }
            }
            // Polled: a child's end is not an event this thread can wait
            // on together with the others.
            std::thread::sleep(Duration::from_millis(50));
        });
    }

    /// Waits for every process to end (after a finished count).
    pub fn wait(self) -> Result<(), ClusterError> {
        self.done.store(true, Ordering::Release);
        let mut cs = self.children.lock().expect("not poisoned");
        for (i, c) in cs.iter_mut().enumerate() {
            let s = c
                .wait()
                .map_err(|e| ClusterError::Network(format!("worker {}: {e}", i + 1)))?;
            if !s.success() && s.code() != Some(3) {
                let mut why = String::new();
                if let Some(mut e) = c.stderr.take() {
                    let _ = e.read_to_string(&mut why);
                }
                return Err(ClusterError::Network(format!(
                    "worker process {} failed: {}",
                    i + 1,
                    why.lines().next().unwrap_or("").trim()
                )));
            }
        }
        Ok(())
    }
}

impl Drop for LocalWorkers {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Ok(mut cs) = self.children.lock() {
            for c in cs.iter_mut() {
                if let Ok(None) = c.try_wait() {
                    stop(c);
                }
                let _ = c.wait();
            }
        }
        // The directory goes with its guard, after the workers.
    }
}

/// Ends a worker: SIGTERM first, so that it removes its spill files,
/// then, if it is still running after 2 s, SIGKILL.
fn stop(c: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(c.id()) {
        // SAFETY: signals a child this process started and has not yet
        // waited for (its pid is not reused before the wait).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        for _ in 0..40 {
            if let Ok(Some(_)) = c.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let _ = c.kill();
    let _ = c.wait();
}
