//! Progress when stderr is not a terminal (here: a pipe): plain lines at
//! an interval (5 s; `ENDGAME_PROGRESS_MS` shortens it for the tests),
//! nothing with `--quiet`; and reports whose times cover the whole
//! command or say what they cover.

mod common;

use common::{endgame, json, text};

/// Runs `endgame ARGS` with progress lines every `every_ms`; expects
/// success and returns stderr.
fn stderr_of(args: &[&str], every_ms: Option<u64>) -> String {
    let mut cmd = endgame();
    cmd.env_remove("ENDGAME_PROGRESS_MS");
    if let Some(ms) = every_ms {
        cmd.env("ENDGAME_PROGRESS_MS", ms.to_string());
    }
    let out = cmd.args(args).output().expect("runs");
    let err = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(out.status.success(), "endgame {args:?} failed: {err}");
    err
}

/// A battle that takes most of a second (two-ply searches on both sides).
const BATTLE: &[&str] = &[
    "battle",
    "pentago",
    "--black",
    "reference",
    "--white",
    "reference",
    "--games",
    "10",
];

#[test]
fn a_piped_stderr_gets_plain_progress_lines() {
    let err = stderr_of(BATTLE, Some(50));
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty(), "no progress line");
    for l in &lines {
        assert!(
            l.starts_with("progress: battle pentago: games ") && l.contains(" elapsed"),
            "{l:?}"
        );
    }
    // Plain lines, not a terminal's redrawing.
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn quiet_means_no_progress_at_all() {
    let mut args = BATTLE.to_vec();
    args.push("--quiet");
    assert_eq!(stderr_of(&args, Some(50)), "");
}

#[test]
fn work_without_steps_reports_its_elapsed_time() {
    let err = stderr_of(&["count", "sim", "--n", "7", "--check"], Some(20));
    let first = err.lines().next().expect("a progress line");
    assert!(
        first.starts_with("progress: count sim: solving every position of K7, "),
        "{first:?}"
    );
    assert!(first.ends_with(" elapsed"), "{first:?}");
}

#[test]
fn short_commands_print_nothing_at_the_default_interval() {
    let sim_battle = [
        "battle", "sim", "--red", "perfect", "--blue", "random", "--games", "10",
    ];
    assert_eq!(stderr_of(&sim_battle, None), "");
    assert_eq!(stderr_of(&["count", "sim", "--n", "6"], None), "");
}

#[test]
fn battle_time_covers_the_whole_battle() {
    let r = json(&[
        "battle", "sim", "--red", "search", "--blue", "random", "--games", "6",
    ]);
    let spent =
        |t: &serde_json::Value| t["mean_ms"].as_f64().unwrap() * t["decisions"].as_f64().unwrap();
    let total = r["time_ms"].as_f64().unwrap();
    assert!(total >= spent(&r["a_time"]) + spent(&r["b_time"]), "{r}");
    let t = text(&[
        "battle", "sim", "--red", "perfect", "--blue", "random", "--games", "6",
    ]);
    assert!(t.contains("whole battle: "), "{t}");
}

#[test]
fn martello_study_times_the_main_experiment_and_the_whole_study() {
    let args = [
        "study",
        "martello",
        "--n",
        "4",
        "--games",
        "30",
        "--size-games",
        "5",
    ];
    let r = json(&args);
    let main_ms = r["seconds"].as_f64().unwrap() * 1e3;
    assert!(r["total_ms"].as_f64().unwrap() >= main_ms, "{r}");
    let t = text(&args);
    assert!(t.contains("main experiment (30 games) "), "{t}");
    assert!(t.contains("\nwhole study "), "{t}");
}

#[test]
fn sim_count_says_what_each_time_covers() {
    let t = text(&["count", "sim", "--n", "5", "--check"]);
    assert!(t.contains("strong solve "), "{t}");
    assert!(
        t.contains("whole command ") && t.contains("(strong solve and audit)"),
        "{t}"
    );
}

#[test]
fn battle_interval_is_wilsons() {
    let r = json(&[
        "battle", "sim", "--red", "perfect", "--blue", "random", "--games", "10",
    ]);
    let n = r["games"].as_f64().unwrap();
    let p = r["a_score"].as_f64().unwrap();
    let z = 1.959_963_984_540_054_f64;
    let d = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / d;
    let half = z / d * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let ci = r["a_score_ci95"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!((lo - (centre - half).max(0.0)).abs() < 1e-9, "{lo}");
    assert!((hi - (centre + half).min(1.0)).abs() < 1e-9, "{hi}");
    // Never a point, even for a clean sweep: 10 of 10 gives [0.722, 1].
    assert!(hi - lo > 0.2, "[{lo}, {hi}]");
}

/// A fresh SQLite file for a `lab run`, in a directory removed when the
/// test drops it.
fn lab_db(name: &str) -> (tempfile::TempDir, String) {
    let d = common::scratch(&format!("progress-{name}"));
    let db = d.path().join("lab.db").display().to_string();
    (d, db)
}

/// A lab run of about 0.6 s: ten batches of four units of 15 ms each.
fn lab_run(db: &str) -> Vec<String> {
    [
        "lab",
        "run",
        "calibration",
        "--param",
        "units=40",
        "--param",
        "batch=4",
        "--param",
        "sleep_ms=15",
        "--threads",
        "1",
        "--db",
        db,
    ]
    .map(String::from)
    .to_vec()
}

/// `a/b` right after `what ` in `line`.
fn fraction(line: &str, what: &str) -> (u64, u64) {
    let rest = &line[line
        .find(&format!("{what} "))
        .unwrap_or_else(|| panic!("{line}"))
        + what.len()
        + 1..];
    let f = rest.split([',', ' ']).next().unwrap();
    let (a, b) = f.split_once('/').unwrap_or_else(|| panic!("{line}"));
    (a.parse().unwrap(), b.parse().unwrap())
}

#[test]
fn a_lab_run_reports_batches_units_rate_and_time_left() {
    let (_dir, db) = lab_db("lines");
    let args = lab_run(&db);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let err = stderr_of(&args, Some(40));
    let lines: Vec<&str> = err.lines().collect();
    assert!(!lines.is_empty(), "no progress line");
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");
    let mut last = (0, 0);
    let mut with_rate = 0;
    for l in &lines {
        assert!(l.starts_with("progress: lab run calibration"), "{l:?}");
        assert!(l.ends_with(" elapsed"), "{l:?}");
        if !l.contains("batches ") {
            // Before the first report (opening the store): time only.
            continue;
        }
        let (b, bt) = fraction(l, "batches");
        let (u, ut) = fraction(l, "units");
        assert_eq!((bt, ut), (10, 40), "{l}");
        // Every batch holds four units, so the counts agree.
        assert_eq!(u, 4 * b, "{l}");
        assert!((b, u) >= last, "progress went back: {l}");
        last = (b, u);
        assert!(l.contains(&format!("({} %)", u * 100 / 40)), "{l}");
        if l.contains(" units/s, about ") && l.contains(" left") {
            with_rate += 1;
        }
    }
    assert!(with_rate > 0, "no rate and time left: {err}");
    // The run is stored in full.
    let st = json(&["lab", "status", "--db", &db]);
    assert_eq!(st[0]["units_done"], 40);
}

#[test]
fn a_quiet_lab_run_prints_no_progress() {
    let (_dir, db) = lab_db("quiet");
    let mut args = lab_run(&db);
    args.push("--quiet".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(stderr_of(&args, Some(40)), "");
}

#[test]
fn martello_study_lines_give_the_rate_and_the_slowest_game() {
    let err = stderr_of(
        &[
            "study",
            "martello",
            "--n",
            "6",
            "--games",
            "600",
            "--seed",
            "5",
            "--random-start-games",
            "0",
            "--budget-games",
            "0",
            "--size-games",
            "0",
            "--meta-games",
            "0",
        ],
        Some(20),
    );
    let solve: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("progress: study martello 6×6: solve "))
        .collect();
    assert!(!solve.is_empty(), "no line from the main experiment: {err}");
    let mut last = 0.0;
    for l in &solve {
        // `…, 312.4 per s, slowest 0.052 s, 2 s elapsed…`: the slowest game
        // so far never shrinks within the phase.
        let rate = l.split(", ").find(|p| p.ends_with(" per s"));
        assert!(
            rate.is_some_and(|r| r.trim_end_matches(" per s").parse::<f64>().unwrap() > 0.0),
            "{l:?}"
        );
        let slowest = l
            .split(", ")
            .find_map(|p| p.strip_prefix("slowest "))
            .map(|p| p.trim_end_matches(" s").parse::<f64>().unwrap());
        if let Some(s) = slowest {
            assert!(s >= last && s < 60.0, "{l:?}");
            last = s;
        }
    }
    assert!(last > 0.0, "no slowest game named: {err}");
}
