//! `endgame lab` refuses, before any work, what would hang or mean
//! nothing — an empty budget list, sizes of zero or below, stone ranges
//! the exact solver cannot decide, a `--param` given twice — with one
//! line and exit status 2; a run of ten million one-unit batches starts
//! at once; `report --plots` keeps its `wrote …` lines off the report.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;
use std::time::Instant;
use tempfile::TempDir;

fn endgame() -> Command {
    Command::cargo_bin("endgame").expect("the endgame binary is built")
}

/// A fresh directory, removed when the returned guard drops.
fn tmpdir() -> TempDir {
    tempfile::Builder::new()
        .prefix("endgame-lab-params-cli-")
        .tempdir()
        .unwrap()
}

/// `lab run EXPERIMENT --param …` is refused: one line naming `needle`,
/// exit status 2, nothing on stdout, no database made, and at once.
fn refused(experiment: &str, params: &[&str], needle: &str) {
    let dir = tmpdir();
    let d = dir.path();
    let db = d.join("lab.db").display().to_string();
    let mut args = vec!["lab", "run", experiment, "--db", &db];
    for p in params {
        args.extend(["--param", p]);
    }
    let t = Instant::now();
    let out = endgame().args(&args).output().unwrap();
    assert!(
        t.elapsed().as_secs_f64() < 10.0,
        "{args:?} took {:?}",
        t.elapsed()
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty());
    assert!(!Path::new(&db).exists(), "nothing written");
}

#[test]
fn an_empty_budget_list_is_refused() {
    refused("martello-random", &["budgets="], "the list is empty");
    refused("martello-random", &["budgets=100,,1000"], "an empty entry");
    refused(
        "martello-random",
        &["budgets=100,0"],
        "`0` is not a positive",
    );
    refused(
        "martello-random",
        &["budgets=-100"],
        "`-100` is not a positive",
    );
}

#[test]
fn sizes_of_zero_or_below_are_refused() {
    refused("martello-random", &["games=0"], "`games` must be in 1..=");
    refused(
        "martello-random",
        &["n=-2"],
        "`n` must be a non-negative integer",
    );
    refused("calibration", &["batch=0"], "`batch` must be in 1..=");
    refused(
        "pentago-solver-speed",
        &["positions=0"],
        "`positions` must be in 1..=",
    );
}

#[test]
fn stone_ranges_the_solver_cannot_decide_are_refused() {
    refused(
        "pentago-solver-speed",
        &["min_stones=0", "max_stones=0"],
        "`min_stones` must be at least 18, got 0",
    );
    refused(
        "pentago-solver-speed",
        &["min_stones=24", "max_stones=20"],
        "`max_stones` must be in min_stones..=35",
    );
    refused(
        "pentago-battle",
        &["move_nodes=0", "move_ms=0"],
        "nothing bounds a decision",
    );
}

#[test]
fn peg_board_lists_with_empty_or_repeated_entries_are_refused() {
    refused("peg-genetic", &["boards="], "the list is empty");
    refused("peg-genetic", &["boards= , "], "an empty entry");
    refused(
        "peg-genetic",
        &["boards=english,,french"],
        "an empty entry in `english,,french`",
    );
    refused("peg-genetic", &["boards=english,"], "an empty entry");
    refused("peg-genetic", &["boards=,english"], "an empty entry");
    refused(
        "peg-genetic",
        &["boards=english,french,english"],
        "`english` is given twice",
    );
    refused(
        "peg-genetic",
        &["boards=english,nowhere"],
        "board `nowhere`",
    );
}

#[test]
fn a_parameter_given_twice_is_refused() {
    refused(
        "calibration",
        &["units=5", "units=7"],
        "`units` is given twice (`units=5` and `units=7`)",
    );
}

#[test]
fn ten_million_batches_start_at_once() {
    let dir = tmpdir();
    let d = dir.path();
    let db = d.join("lab.db").display().to_string();
    let t = Instant::now();
    let out = endgame()
        .args([
            "lab",
            "run",
            "calibration",
            "--param",
            "units=10000000",
            "--param",
            "batch=1",
            "--batches",
            "1",
            "--db",
            &db,
            "--json",
        ])
        .output()
        .unwrap();
    // It took 28.7 s to make every batch row up front.
    assert!(t.elapsed().as_secs_f64() < 10.0, "took {:?}", t.elapsed());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["run"]["units"], 10_000_000);
    assert_eq!(v["run"]["units_done"], 1);
    assert_eq!(v["batches_committed"], 1);
}

#[test]
fn report_plots_are_announced_on_stderr() {
    let dir = tmpdir();
    let d = dir.path();
    let db = d.join("lab.db").display().to_string();
    let run = endgame()
        .args([
            "lab",
            "run",
            "calibration",
            "--param",
            "units=12",
            "--db",
            &db,
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let plots = d.join("plots");
    for format in ["markdown", "text", "csv"] {
        let out = endgame()
            .args([
                "lab",
                "report",
                "calibration",
                "--db",
                &db,
                "--format",
                format,
                "--plots",
            ])
            .arg(&plots)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stdout.contains("wrote"), "{format}: {stdout}");
        assert!(
            stdout.contains("Die faces") || stdout.contains("face"),
            "{format}: {stdout}"
        );
        let wrote: Vec<&str> = stderr.lines().filter(|l| l.starts_with("wrote ")).collect();
        assert_eq!(wrote.len(), 2, "{format}: {stderr}");
        for l in wrote {
            assert!(Path::new(l.trim_start_matches("wrote ")).exists(), "{l}");
        }
    }
}
