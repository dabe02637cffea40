//! `endgame count peg --spill`: layers that would not fit `--max-memory`
//! go to disk and come back; the counts are the single process's, the
//! planned memory stays within the budget and no file is left behind.

mod common;

use common::{counts, json, json_in, scratch, user_error};

/// English central full count in 64 MB a process: most layers on disk.
#[test]
fn the_english_count_spilled_to_disk_is_the_single_process_one() {
    let one = json(&["count", "peg", "-q"]);
    let tmp = scratch("spill");
    let args = [
        "count",
        "peg",
        "--workers",
        "1",
        "--spill",
        "--max-memory",
        "64M",
        "-q",
    ];
    let spilled = json_in(tmp.path(), &args);
    assert!(
        spilled["spilled_layers"].as_u64().unwrap() > 10,
        "{spilled}"
    );
    let planned = spilled["planned_peak_bytes"].as_u64().unwrap();
    assert!(planned <= 64 << 20, "planned {planned}");
    assert_eq!(counts(one), counts(spilled));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).expect("listed").collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Two processes on a small board, spilling into the checkpoint
/// directory: the same counts, and only the checkpoints stay there.
#[test]
fn two_processes_spill_into_the_checkpoint_directory() {
    let args = ["count", "peg", "--board", "triangle6", "-q"];
    let one = json(&args);
    let dir = scratch("spill-ck");
    let d = dir.path().to_str().expect("UTF-8");
    // Just above the 32 MB a step is allowed for buffers: the small
    // layers' bitmaps fit, the layers beside them do not.
    let spilled = json(
        &[
            &args[..],
            &[
                "--workers",
                "2",
                "--spill",
                "--checkpoint",
                d,
                "--max-memory",
                "33600K",
            ],
        ]
        .concat(),
    );
    assert!(spilled["spilled_layers"].as_u64().unwrap() > 0, "{spilled}");
    assert_eq!(counts(one), counts(spilled));
    for e in std::fs::read_dir(dir.path()).expect("listed") {
        let name = e.expect("an entry").file_name();
        let name = name.to_string_lossy();
        assert!(name.ends_with(".ckpt"), "left behind: {name}");
    }
}

/// The French count across two processes, spilling, with a time budget
/// far too short: it ends incomplete (status 3) whichever check fires
/// first (the engine's budget or the command's watchdog, which ends the
/// process at once), and no spill file, directory or host file is left.
#[test]
fn a_spilled_count_out_of_time_leaves_nothing_behind() {
    let tmp = scratch("spill-time");
    let out = common::endgame()
        .env("TMPDIR", tmp.path())
        .args([
            "--json",
            "count",
            "peg",
            "--board",
            "french",
            "--workers",
            "2",
            "--spill",
            "--max-memory",
            "64M",
            "--time",
            "2s",
            "-q",
        ])
        .output()
        .expect("runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{report}");
    assert!(report.contains("\"complete\": false"), "{report}");
    // The worker ends on its own signal, a moment after process 0.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let left = || -> Vec<_> { std::fs::read_dir(tmp.path()).expect("listed").collect() };
    while !left().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(left().is_empty(), "left behind: {:?}", left());
}

#[test]
fn bad_spills_are_user_errors() {
    let e = user_error(&["count", "peg", "--spill", "-q"]);
    assert!(e.contains("--spill"), "{e}");
    let e = user_error(&[
        "count",
        "peg",
        "--workers",
        "1",
        "--spill",
        "--goal-only",
        "-q",
    ]);
    assert!(e.contains("--goal-only"), "{e}");
}
