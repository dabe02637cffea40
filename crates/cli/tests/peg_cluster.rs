//! `endgame count peg --workers N` and `--hosts FILE --process I`: the
//! count across processes prints what one process prints, and a bad
//! cluster is a one-line error with exit status 2.

mod common;

use common::{counts, endgame, json, text, user_error};

/// The text report without its `time` and `memory` lines.
fn text_counts(t: &str) -> String {
    t.lines()
        .filter(|l| !l.starts_with("time ") && !l.starts_with("memory "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn same_both_ways(args: &[&str], workers: &str) {
    let one = json(args);
    let across = json(&[args, &["--workers", workers]].concat());
    assert_eq!(counts(one.clone()), counts(across));
    assert!(
        one["layers"].as_array().is_some_and(|l| l.len() > 5),
        "{one}"
    );
    let one = text(args);
    let across = text(&[args, &["--workers", workers]].concat());
    assert_eq!(text_counts(&one), text_counts(&across));
    assert!(one.contains("solutions"), "{one}");
}

#[test]
fn full_counts_on_two_processes_are_the_single_process_ones() {
    same_both_ways(&["count", "peg", "--board", "triangle", "-q"], "2");
    // Hand-drawn boards with a goal anywhere (goals in several classes):
    // a 4 × 5 rectangle, and a 4 × 4 square with diagonal jumps.
    same_both_ways(
        &[
            "count",
            "peg",
            "--art",
            "ooooo/ooooo/oo.oo/ooooo",
            "--finish",
            "any",
            "-q",
        ],
        "2",
    );
    same_both_ways(
        &[
            "count",
            "peg",
            "--art",
            "oooo/o.oo/oooo/oooo",
            "--diagonal",
            "--finish",
            "any",
            "-q",
        ],
        "3",
    );
}

#[test]
fn the_english_goal_only_count_on_two_processes_is_the_single_process_one() {
    same_both_ways(&["count", "peg", "--goal-only", "-q"], "2");
}

#[test]
fn a_host_file_process_runs_alone_when_it_is_the_only_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "# one process\n127.0.0.1:1\n").expect("written");
    let hosts = hosts.to_str().expect("UTF-8");
    let args = ["count", "peg", "--board", "triangle", "-q"];
    let one = json(&args);
    let alone = json(&[&args[..], &["--hosts", hosts, "--process", "0"]].concat());
    assert_eq!(counts(one), counts(alone));
}

#[test]
fn bad_clusters_are_user_errors() {
    let base = ["count", "peg", "--board", "triangle"];
    for n in ["0", "65", "100000000", "many"] {
        let e = user_error(&[&base[..], &["--workers", n]].concat());
        assert!(e.contains("--workers"), "{e}");
    }
    let e = user_error(&[&base[..], &["--workers", "2", "--threads", "2"]].concat());
    assert!(e.contains("--threads"), "{e}");
    let e = user_error(
        &[
            &base[..],
            &["--hosts", "/nonexistent/hosts", "--process", "0"],
        ]
        .concat(),
    );
    assert!(e.contains("cannot read the host file"), "{e}");
    let e = user_error(&[&base[..], &["--process", "1"]].concat());
    assert!(e.contains("--hosts"), "{e}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1:4000\n127.0.0.1:4001\n").expect("written");
    let hosts = hosts.to_str().expect("UTF-8");
    let e = user_error(&[&base[..], &["--hosts", hosts, "--process", "2"]].concat());
    assert!(e.contains("not in the host file"), "{e}");
    std::fs::write(dir.path().join("bad"), "nowhere\n").expect("written");
    let bad = dir.path().join("bad");
    let e = user_error(
        &[
            &base[..],
            &["--hosts", bad.to_str().unwrap(), "--process", "0"],
        ]
        .concat(),
    );
    assert!(e.contains("host:port"), "{e}");
    let e = user_error(&[&base[..], &["--workers", "2", "--move-sets"]].concat());
    assert!(e.contains("across processes"), "{e}");
}

#[test]
fn a_peer_that_never_comes_is_an_error_not_a_hang() {
    // Process 1 of two dials process 0, which is never started: it gives
    // up after its timeout (30 s unless --connect-timeout says otherwise)
    // with one line and exit status 2.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hosts = dir.path().join("hosts");
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let a = free.local_addr().unwrap().to_string();
    drop(free);
    std::fs::write(&hosts, format!("{a}\n127.0.0.1:1\n")).expect("written");
    let t = std::time::Instant::now();
    let out = endgame()
        .args([
            "count",
            "peg",
            "--board",
            "triangle",
            "-q",
            "--process",
            "1",
            "--connect-timeout",
            "2s",
        ])
        .arg("--hosts")
        .arg(&hosts)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("did not answer within 2 s"), "{err}");
    assert!(t.elapsed().as_secs() < 15);
}
