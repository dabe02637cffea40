//! Ctrl-C (SIGINT) during a long command: the work stops at its next
//! check, prints an incomplete report with exit status 3 (or the answer,
//! if it was already known), and leaves no temporary files behind.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn start(args: &[&str], tmpdir: &Path) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("endgame"))
        .arg("--json")
        .args(args)
        .env("TMPDIR", tmpdir)
        // Its own process group, as a terminal's foreground job: Ctrl-C
        // goes to every process of it (the workers of `--workers` too).
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Ctrl-C as a terminal sends it: SIGINT to the child's process group.
fn sigint(child: &Child) {
    let ok = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .expect("kill runs");
    assert!(ok.success());
}

/// Waits at most `secs` for `child`; its exit code and stdout, stderr.
fn finish(mut child: Child, secs: u64) -> (Option<i32>, String, String) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().expect("waits") {
            break s;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("still running {secs} s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut out)
        .ok();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut err)
        .ok();
    (status.code(), out, err)
}

/// The French full count takes half a minute; interrupted after a second
/// it stops at the next layer with an incomplete report.
#[test]
fn ctrl_c_stops_a_count_with_an_incomplete_report() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let child = start(
        &["count", "peg", "--board", "french", "--no-limit", "--quiet"],
        tmp.path(),
    );
    std::thread::sleep(Duration::from_secs(1));
    sigint(&child);
    let (code, out, err) = finish(child, 60);
    assert_eq!(code, Some(3), "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(report["complete"], false, "{report}");
    assert!(
        report["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("cancelled"),
        "{report}"
    );
    assert!(err.contains("interrupted"), "{err}");
}

/// A Pentago solve over its memory limit spills its layers to files in
/// the temporary directory; Ctrl-C while it does removes them.
#[test]
fn ctrl_c_removes_the_spill_files_of_a_pentago_solve() {
    let (code, out, err) = interrupt_a_spilled_pentago_solve(1);
    assert!(matches!(code, Some(0) | Some(3)), "{code:?} {out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
    assert_eq!(report["stones"], 16, "{report}");
}

/// Ctrl-C twice quits at once, without the solve's own clean-up: the
/// files go all the same (they are registered scratch files).
#[test]
fn a_second_ctrl_c_quits_at_once_and_still_removes_the_files() {
    let (code, out, err) = interrupt_a_spilled_pentago_solve(2);
    // The solve may have finished its clean-up before the second signal.
    assert!(
        matches!(code, Some(130) | Some(0) | Some(3)),
        "{code:?} {out}{err}"
    );
}

/// Starts a 16-stone Pentago solve under 256 MB, sends `signals` SIGINTs
/// once it spills, checks that nothing is left in its temporary
/// directory, and returns its exit code and output.
fn interrupt_a_spilled_pentago_solve(signals: usize) -> (Option<i32>, String, String) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let child = start(
        &[
            "solve",
            "pentago",
            "205481007622539795m",
            "--no-limit",
            "--max-memory",
            "256M",
        ],
        tmp.path(),
    );
    wait_for_spill(tmp.path(), "endgame-pentago");
    for i in 0..signals {
        if i > 0 {
            // Apart, or the two may arrive as one; soon enough that the
            // solve is still removing its files (the old leak).
            std::thread::sleep(Duration::from_millis(20));
        }
        sigint(&child);
    }
    let got = finish(child, 60);
    assert_nothing_left(tmp.path());
    got
}

/// A count across two processes spilling its layers to disk: Ctrl-C ends
/// every process and removes the spill files, their directories and the
/// host file.
#[test]
fn ctrl_c_removes_the_spill_files_of_a_count_across_processes() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let child = start(
        &[
            "count",
            "peg",
            "--workers",
            "2",
            "--spill",
            "--max-memory",
            "64M",
            "--no-limit",
            "--quiet",
        ],
        tmp.path(),
    );
    wait_for_spill(tmp.path(), "endgame-spill");
    sigint(&child);
    let (code, out, err) = finish(child, 60);
    // Either the count reached its next check first (English layers are
    // quick) and stopped there, or the spill's watcher ended it at once.
    match code {
        Some(3) => assert!(out.contains("\"complete\": false"), "{out}{err}"),
        Some(130) => assert!(err.contains("interrupted"), "{err}"),
        _ => panic!("{code:?} {out}{err}"),
    }
    // The workers end on their own signal, a moment after process 0.
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_dir(tmp.path()).expect("listed").count() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_nothing_left(tmp.path());
}

/// Waits (at most 60 s) until a file or directory whose name starts with
/// `prefix` appears in `dir`, then a moment more, so that files are being
/// written when the signal comes.
fn wait_for_spill(dir: &Path, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let spilling = || {
        std::fs::read_dir(dir).expect("listed").any(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .starts_with(prefix)
        })
    };
    while !spilling() {
        assert!(Instant::now() < deadline, "nothing spilled within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
}

fn assert_nothing_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .expect("listed")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
