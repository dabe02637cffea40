//! Helpers every `endgame` CLI test file shares: run the real binary and
//! check its report or its one-line error.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;

/// The built `endgame` binary.
pub fn endgame() -> Command {
    Command::cargo_bin("endgame").expect("the endgame binary is built")
}

/// Runs `endgame --json ARGS`, expects success, returns the parsed report.
pub fn json(args: &[&str]) -> Value {
    let out = endgame().arg("--json").args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "endgame {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Runs `endgame ARGS`, expects success, returns stdout.
pub fn text(args: &[&str]) -> String {
    let out = endgame().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "endgame {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Runs `endgame ARGS`, expects exit status 2, nothing on stdout and one
/// `error:` line on stderr; returns that line.
pub fn user_error(args: &[&str]) -> String {
    let out = endgame().args(args).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "endgame {args:?}: exit status");
    assert!(out.stdout.is_empty(), "endgame {args:?}: stdout not empty");
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "endgame {args:?}: stderr {err:?}");
    assert!(lines[0].starts_with("error: "), "stderr {err:?}");
    assert!(!err.contains("panicked"), "stderr {err:?}");
    lines[0].to_string()
}
