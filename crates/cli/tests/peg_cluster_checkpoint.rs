//! `endgame count peg --checkpoint DIR` across processes: a cluster
//! killed mid-count and restarted on the same directory gives the single
//! process's numbers without computing the finished layers again, a
//! directory of another count is refused, and `--progress` prints a line
//! per layer.

mod common;

use common::{counts, json, user_error};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("endgame")
}

/// Process `i` of the cluster of `hosts`, counting `args` with
/// checkpoints in `dir`.
fn process(args: &[&str], hosts: &Path, i: usize, dir: &Path) -> Child {
    Command::new(binary())
        .arg("--json")
        .args(args)
        .arg("--hosts")
        .arg(hosts)
        .args(["--process", &i.to_string(), "--checkpoint"])
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// A host file of two free loopback ports.
fn two_hosts(dir: &Path) -> PathBuf {
    let ls: Vec<_> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a port"))
        .collect();
    let text: String = ls
        .iter()
        .map(|l| format!("{}\n", l.local_addr().expect("bound")))
        .collect();
    drop(ls);
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, text).expect("written");
    hosts
}

/// Waits for `child` to end, at most `secs` seconds (polled: a child's
/// end is not something a test can wait on with a deadline otherwise).
fn wait_within(child: &mut Child, secs: u64) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().expect("waits") {
            return Some(s);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .expect("a file")
}

#[test]
fn a_killed_cluster_resumes_from_its_checkpoints() {
    let args = ["count", "peg", "-q"];
    let want = counts(json(&args));
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = tmp.path().join("ck");
    let hosts = two_hosts(tmp.path());
    let mut p0 = process(&args, &hosts, 0, &dir);
    let mut p1 = process(&args, &hosts, 1, &dir);
    // Kill process 1 (SIGKILL, as `kill -9`) once it has finished layer
    // 12: the English board's big layers (14 to 22) are still ahead.
    let mark = dir.join("layer-0012-process-1-of-2.ckpt");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !mark.exists() {
        assert!(Instant::now() < deadline, "layer 12 never finished");
        assert!(p1.try_wait().expect("waits").is_none(), "process 1 ended");
        std::thread::sleep(Duration::from_millis(10));
    }
    p1.kill().expect("killed");
    p1.wait().expect("reaped");
    // Its peer cannot go on: it fails (a broken connection), or is ended.
    let status = wait_within(&mut p0, 60);
    if status.is_none() {
        p0.kill().expect("killed");
        p0.wait().expect("reaped");
    }
    assert!(status.is_none_or(|s| !s.success()), "{status:?}");
    // What each process finished, with the files' times.
    let finished = |i: usize| {
        (0..)
            .map(|d| dir.join(format!("layer-{d:04}-process-{i}-of-2.ckpt")))
            .take_while(|p| p.exists())
            .map(|p| (mtime(&p), p))
            .collect::<Vec<_>>()
    };
    let (before0, before1) = (finished(0), finished(1));
    assert!(before1.len() >= 13, "{}", before1.len());
    assert!(before0.len() < 32, "the count was not cut short");
    // Restarted on the same directory: the same report.
    let p0 = process(&args, &hosts, 0, &dir);
    let p1 = process(&args, &hosts, 1, &dir);
    let out0 = p0.wait_with_output().expect("runs");
    let out1 = p1.wait_with_output().expect("runs");
    let err = String::from_utf8_lossy(&out0.stderr);
    assert!(out0.status.success(), "{err}");
    assert!(out1.status.success(), "{err}");
    assert!(out1.stdout.is_empty());
    let got: Value = serde_json::from_slice(&out0.stdout).expect("JSON");
    // Every layer both processes had finished is loaded, not computed:
    // its files are the ones written before the kill.
    let loaded = got["layers_loaded"].as_u64().expect("a number") as usize;
    assert_eq!(loaded, before0.len().min(before1.len()), "{got}");
    assert_eq!(
        got["layers_computed"].as_u64(),
        Some(32 - loaded as u64),
        "{got}"
    );
    for (t, p) in before0.iter().chain(&before1).filter(|(_, p)| {
        let d: usize = p.file_name().unwrap().to_str().unwrap()[6..10]
            .parse()
            .unwrap();
        d < loaded
    }) {
        assert_eq!(mtime(p), *t, "{} was written again", p.display());
    }
    assert_eq!(counts(got), want);
    assert_eq!(want["solutions"].as_str(), Some("40861647040079968"));
}

#[test]
fn a_checkpoint_of_another_count_is_refused() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let dir = tmp.path().join("ck");
    let dir = dir.to_str().expect("UTF-8");
    let triangle = ["count", "peg", "--board", "triangle", "-q"];
    fn with<'a>(base: &[&'a str], extra: &[&'a str], dir: &'a str) -> Vec<&'a str> {
        [base, extra, &["--checkpoint", dir]].concat()
    }
    let with = |extra: &[&'static str]| with(&triangle, extra, dir);
    let first = json(&with(&["--workers", "2"]));
    // The same count again: every layer loaded, the same numbers.
    let again = json(&with(&["--workers", "2"]));
    assert_eq!(counts(first.clone()), counts(again.clone()));
    let layers = first["layers"].as_array().expect("layers").len() as u64;
    assert_eq!(first["layers_loaded"].as_u64(), Some(0));
    assert_eq!(first["layers_computed"].as_u64(), Some(layers));
    assert_eq!(again["layers_loaded"].as_u64(), Some(layers));
    assert_eq!(again["layers_computed"].as_u64(), Some(0));
    // Another process count, another board, another goal.
    let e = user_error(&with(&["--workers", "3"]));
    assert!(e.contains("cluster of 2 processes"), "{e}");
    let e = user_error(
        &[
            &["count", "peg", "--board", "english", "--workers", "2"][..],
            &["--checkpoint", dir],
        ]
        .concat(),
    );
    assert!(e.contains("another count"), "{e}");
    let e = user_error(&with(&["--workers", "2", "--finish", "any"]));
    assert!(e.contains("another count"), "{e}");
    // A file of another format version.
    let f = Path::new(dir).join("layer-0000-process-0-of-2.ckpt");
    let mut bytes = std::fs::read(&f).expect("read");
    bytes[7] ^= 0x7f;
    std::fs::write(&f, bytes).expect("written");
    let e = user_error(&with(&["--workers", "2"]));
    assert!(e.contains("not a checkpoint of this version"), "{e}");
    // Checkpoints need a cluster.
    let e = user_error(&with(&[]));
    assert!(e.contains("--workers or --hosts"), "{e}");
}

#[test]
fn progress_prints_a_line_per_layer_on_process_0() {
    let out = Command::new(binary())
        .args(["count", "peg", "--board", "triangle", "--workers", "2"])
        .arg("--progress")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    // The triangle's 14 layers (0 to 13 moves), one line each, in order.
    assert_eq!(lines.len(), 14, "{err}");
    for (d, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("layer {d}: ")), "{l}");
        assert!(l.contains("sent between processes"), "{l}");
        assert!(l.contains("positions/s"), "{l}");
    }
    assert!(
        lines[0].starts_with("layer 0: 1 positions, 0 sent"),
        "{err}"
    );
}
