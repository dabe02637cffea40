//! Budgets that hold: a command with a hard input and a small budget ends
//! within the budget + 10 % (+ a start-up allowance) of wall time, with its
//! peak resident memory (the child's own `ru_maxrss`, from `wait4`) within
//! its memory budget + 10 % (+ the process's own base), and reports an
//! incomplete answer with exit status 3 and `"complete": false`. One test
//! (at least) per game and one for the lab, each a few seconds.
//!
//! Allowances: [`START_UP`] covers starting the binary, parsing and
//! printing the report (about 10 ms measured alone) with room for a loaded
//! 2-core machine; [`BASE_MB`] is the resident size of the process outside
//! the budgeted tables (10 MB measured for `solve peg` on a small board).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Start-up and report allowance on top of the time budget.
const START_UP: Duration = Duration::from_millis(500);
/// Resident memory outside the budgeted tables, MiB.
const BASE_MB: f64 = 48.0;

#[repr(C)]
#[derive(Default)]
struct Rusage {
    utime: [i64; 2],
    stime: [i64; 2],
    maxrss_kib: i64,
    rest: [i64; 13],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, usage: *mut Rusage) -> i32;
}

/// What one run of `endgame --json ARGS` did.
struct Ran {
    wall: Duration,
    peak_mb: f64,
    code: i32,
    report: serde_json::Value,
}

// The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(args: &[&str]) -> Ran {
    let t = Instant::now();
    let child = Command::new(assert_cmd::cargo::cargo_bin("endgame"))
        .arg("--json")
        .arg("--quiet")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("runs");
    let pid = child.id() as i32;
    // Read the report while the child runs (a full pipe would block it).
    let mut stdout = child.stdout.expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let mut status = 0;
    let mut usage = Rusage::default();
    // SAFETY: `pid` is our child, not yet waited for; both pointers are
    // valid for the call.
    let r = unsafe { wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4 failed");
    let wall = t.elapsed();
    let out = reader.join().expect("reader").expect("UTF-8");
    // Exited normally: the exit code is bits 8..16 of the status.
    assert_eq!(status & 0x7f, 0, "endgame {args:?} was killed by a signal");
    Ran {
        wall,
        peak_mb: usage.maxrss_kib as f64 / 1024.0,
        code: (status >> 8) & 0xff,
        report: serde_json::from_str(&out).unwrap_or(serde_json::Value::Null),
    }
}

fn within_time(args: &[&str], r: &Ran, budget: Duration) {
    let limit = budget.mul_f64(1.1) + START_UP;
    assert!(
        r.wall <= limit,
        "endgame {args:?}: {:?} for a budget of {budget:?} (limit {limit:?})",
        r.wall
    );
}

#[test]
fn martello_n8_stops_at_its_time_and_memo_budgets() {
    // Graf's hard size: n = 8 has no answer after minutes without limits.
    let args = [
        "solve",
        "martello",
        "--n",
        "8",
        "--seed",
        "1",
        "--time",
        "2s",
        "--max-memory",
        "128M",
    ];
    let r = run(&args);
    assert_eq!(r.code, 3, "{}", r.report);
    assert_eq!(r.report["complete"], false, "{}", r.report);
    within_time(&args, &r, Duration::from_secs(2));
    within_memory(&args, &r, 128.0);
}

fn within_memory(args: &[&str], r: &Ran, budget_mb: f64) {
    let limit = budget_mb * 1.1 + BASE_MB;
    assert!(
        r.peak_mb <= limit,
        "endgame {args:?}: peak {:.0} MiB > {limit:.0} MiB",
        r.peak_mb
    );
}

/// The incomplete report of a budget that ran out.
fn incomplete(args: &[&str], r: &Ran) {
    assert_eq!(r.code, 3, "endgame {args:?}: {}", r.report);
    assert_eq!(
        r.report["complete"], false,
        "endgame {args:?}: {}",
        r.report
    );
}

#[test]
fn pentago_empty_board_stops_at_its_time_budget() {
    // Undecided within its budget: the report says so and the exit
    // status is 3, not 0.
    let args = ["solve", "pentago", "0", "--time", "2s"];
    let r = run(&args);
    within_time(&args, &r, Duration::from_secs(2));
    assert_eq!(r.report["result"], "unknown", "{}", r.report);
    assert_eq!(r.report["complete"], false, "{}", r.report);
    assert_eq!(r.code, 3, "{}", r.report);
}

/// The 26×4 custom board's pagoda LPs spend the command's deadline, not
/// a budget of their own.
#[test]
fn peg_custom_26x4_board_stops_at_its_time_budget() {
    let mut rows = vec!["oooo"; 26];
    rows[12] = "o.oo";
    let art = rows.join("/");
    let args = ["solve", "peg", "--art", &art, "--time", "2s"];
    let r = run(&args);
    within_time(&args, &r, Duration::from_secs(2));
    let incomplete = r.report["complete"] == false;
    assert_eq!(r.code, if incomplete { 3 } else { 0 }, "{}", r.report);
}

/// Pentago with 16 stones (the worked position of docs/pentago.md): the
/// exact retrograde solver would plan 2.7 GiB in memory, more than the
/// budget, so it could only spill its layers to disk, which takes far
/// longer than the time: the alpha-beta search works within the time and
/// the memory.
#[test]
fn pentago_16_stones_stays_within_its_memory_budget() {
    let args = [
        "solve",
        "pentago",
        "205481007622539795m",
        "--time",
        "3s",
        "--max-memory",
        "256M",
    ];
    let r = run(&args);
    assert_eq!(r.report["method"], "alpha-beta", "{}", r.report);
    let complete = r.report["complete"] == true;
    assert_eq!(r.code, if complete { 0 } else { 3 }, "{}", r.report);
    within_time(&args, &r, Duration::from_secs(3));
    within_memory(&args, &r, 256.0);
}

/// The empty Pentago board with a small memory budget: the alpha-beta
/// table fits it, the value stays unknown.
#[test]
fn pentago_empty_board_stays_within_a_small_memory_budget() {
    let args = [
        "solve",
        "pentago",
        "0",
        "--time",
        "2s",
        "--max-memory",
        "96M",
    ];
    let r = run(&args);
    incomplete(&args, &r);
    within_time(&args, &r, Duration::from_secs(2));
    within_memory(&args, &r, 96.0);
}

/// Sim on K8 from the empty board: 17.5 M positions to solve (about two
/// minutes); 2 s of it is incomplete.
#[test]
fn sim_k8_solve_stops_at_its_time_budget() {
    let args = ["solve", "sim", "--n", "8", "--time", "2s"];
    let r = run(&args);
    incomplete(&args, &r);
    assert_eq!(r.report["value"], "unknown", "{}", r.report);
    assert!(r.report["positions_solved"].as_u64().unwrap() > 0);
    within_time(&args, &r, Duration::from_secs(2));
}

/// The K8 count's table needs about 0.6 GB; with 16 MiB its search stops
/// before the table would outgrow the budget, well before the time limit.
#[test]
fn sim_k8_count_stops_at_its_memory_budget() {
    let args = [
        "count",
        "sim",
        "--n",
        "8",
        "--max-memory",
        "16M",
        "--time",
        "20s",
    ];
    let r = run(&args);
    incomplete(&args, &r);
    let reason = r.report["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("memory budget"), "{}", r.report);
    within_memory(&args, &r, 16.0);
    assert!(r.wall < Duration::from_secs(20), "{:?}", r.wall);
}

/// Peg solitaire on the French board without pruning: the memoised
/// search has far more positions than 32 MiB of memo holds (its memo
/// replaces old entries instead of growing) and runs out of time.
#[test]
fn peg_french_without_pruning_stays_within_its_budgets() {
    let args = [
        "solve",
        "peg",
        "--board",
        "french",
        "--no-classes",
        "--no-pagoda",
        "--time",
        "3s",
        "--max-memory",
        "32M",
    ];
    let r = run(&args);
    incomplete(&args, &r);
    within_time(&args, &r, Duration::from_secs(3));
    within_memory(&args, &r, 32.0);
}

#[test]
fn peg_best_first_search_stays_within_its_memory_budget() {
    // The best-first search keeps every position it saw: without pruning
    // on the French board it fills 32 MiB within a second.
    let args = [
        "solve",
        "peg",
        "--board",
        "french",
        "--method",
        "astar",
        "--no-classes",
        "--no-pagoda",
        "--time",
        "20s",
        "--max-memory",
        "32M",
    ];
    let r = run(&args);
    incomplete(&args, &r);
    within_memory(&args, &r, 32.0);
}

/// A lab run of Martello games on 7×7 boards (hard ones take minutes and
/// gigabytes each): its time limit ends the run; what was committed is
/// kept and the report says how far it got.
#[test]
fn lab_run_stops_at_its_time_budget() {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let db = dir.path().join("lab.db");
    let db = db.to_str().expect("UTF-8 path");
    let args = [
        "lab",
        "run",
        "martello-random",
        "--param",
        "n=7",
        "--param",
        "games=4",
        "--param",
        "batch=1",
        "--db",
        db,
        "--time",
        "2s",
    ];
    let r = run(&args);
    incomplete(&args, &r);
    assert!(r.report["units_done"].as_u64().is_some(), "{}", r.report);
    within_time(&args, &r, Duration::from_secs(2));
}
