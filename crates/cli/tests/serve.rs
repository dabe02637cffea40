//! `endgame serve`: starts on a free port, answers the API over real HTTP
//! (the lab page's API from a store `endgame lab run` filled), refuses bad
//! flags and a missing store with exit status 2.

use assert_cmd::cargo::CommandCargoExt;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

fn http_get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// Starts `endgame serve --port 0 --no-build-tables EXTRA…` in `dir`;
/// returns it and its address.
fn start(extra: &[&str], dir: &std::path::Path) -> (std::process::Child, String) {
    start_with(&[&["--no-build-tables"], extra].concat(), dir)
}

/// Starts `endgame serve --port 0 ARGS…` in `dir` with `dir/cache` as the
/// cache directory; returns it and its address.
fn start_with(args: &[&str], dir: &std::path::Path) -> (std::process::Child, String) {
    let mut child = Command::cargo_bin("endgame")
        .unwrap()
        .args(["serve", "--port", "0"])
        .arg("--cache")
        .arg(dir.join("cache"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("endgame workbench listening on http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    (child, addr)
}

/// A fresh directory, removed when the returned guard drops.
fn tmpdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("endgame-serve-{name}-"))
        .tempdir()
        .unwrap()
}

#[test]
fn serves_the_api_and_the_ui_on_a_free_port() {
    let dir = tmpdir("plain");
    let (mut child, addr) = start(
        &[
            "--max-solves",
            "3",
            "--max-queue",
            "5",
            "--queue-wait-ms",
            "1234",
            "--pentago-pool-mb",
            "64",
            "--table-lane",
            "3",
            "--table-queue",
            "7",
            "--cheap-lane",
            "5",
            "--cheap-queue",
            "9",
            "--lane-time-ms",
            "150",
            "--header-timeout-ms",
            "2500",
            "--request-timeout-ms",
            "20000",
            "--max-connections",
            "77",
        ],
        dir.path(),
    );
    let status = http_get(&addr, "/api/status");
    let games = http_get(&addr, "/api/games");
    let bad = http_get(&addr, "/api/sim/state?n=99");
    let page = http_get(&addr, "/");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(games.starts_with("HTTP/1.1 200"), "{games}");
    assert!(games.contains("\"pentago\""));
    assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
    assert!(bad.contains("{\"error\":"), "{bad}");
    assert!(page.contains("Endgame workbench"));
    // The lane, queue and timeout flags reach the server; no store in
    // this directory.
    let body = status.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    for (path, want) in [
        ("/max_solves", 3),
        ("/max_queue", 5),
        ("/queue_wait_ms", 1234),
        ("/table_lane/max", 3),
        ("/table_lane/max_queue", 7),
        ("/cheap_lane/max", 5),
        ("/cheap_lane/max_queue", 9),
        ("/lane_time_ms", 150),
        ("/header_timeout_ms", 2500),
        ("/request_timeout_ms", 20000),
        ("/max_connections", 77),
    ] {
        assert_eq!(
            v.pointer(path),
            Some(&serde_json::json!(want)),
            "{path}: {v}"
        );
    }
    assert_eq!(v["lab"], serde_json::Value::Null);
}

#[test]
fn builds_missing_tables_in_the_background_and_reports_them() {
    let dir = tmpdir("tables");
    let d = dir.path();
    let (mut child, addr) = start_with(&[], d);
    let first = http_get(&addr, "/api/status");
    // Sim's small tables come first and take milliseconds.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut ready = false;
    while std::time::Instant::now() < deadline {
        let s = http_get(&addr, "/api/status");
        if s.contains("\"name\":\"sim-k5-standard\"") && s.contains("\"state\":\"ready\"") {
            let i = s.find("\"name\":\"sim-k5-standard\"").unwrap();
            let obj_start = s[..i].rfind('{').unwrap();
            let obj_end = i + s[i..].find('}').unwrap();
            if s[obj_start..obj_end].contains("\"state\":\"ready\"") {
                ready = true;
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let hint = http_get(&addr, "/api/sim/hints?n=5");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(first.contains("\"tables\":["), "{first}");
    assert!(first.contains("peg-english-d4"), "{first}");
    assert!(ready, "sim-k5-standard not ready within 120 s");
    assert!(d.join("cache").join("sim-k5-standard.bin").exists());
    assert!(hint.contains("\"decided_by\":\"table\""), "{hint}");
}

#[test]
fn serves_the_lab_store_of_the_working_directory() {
    let dir = tmpdir("lab");
    let d = dir.path();
    // A store made by the lab itself, under its default name.
    let out = Command::cargo_bin("endgame")
        .unwrap()
        .args(["lab", "run", "calibration", "--param", "units=6", "--quiet"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(d.join("endgame.db").exists());
    let (mut child, addr) = start(&[], d);
    let lab = http_get(&addr, "/api/lab");
    let run = http_get(&addr, "/api/lab/runs/1");
    let page = http_get(&addr, "/lab");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(lab.starts_with("HTTP/1.1 200"), "{lab}");
    assert!(
        lab.contains("\"calibration\"") && lab.contains("\"units_done\":6"),
        "{lab}"
    );
    assert!(run.starts_with("HTTP/1.1 200"), "{run}");
    assert!(run.contains("Die faces"), "{run}");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
}

#[test]
fn a_missing_store_exits_with_status_2() {
    let out = Command::cargo_bin("endgame")
        .unwrap()
        .args(["serve", "--port", "0", "--db", "/nonexistent/lab.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error:") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn bad_flags_exit_with_status_2() {
    for args in [
        &["serve", "--max-solves", "0"][..],
        &["serve", "--port", "99999"][..],
        &["serve", "--host", "not-an-address"][..],
        &["serve", "--pentago-pool-mb", "70000"][..],
        &["serve", "--pentago-pool-mb", "-1"][..],
        &["serve", "--max-solves", "257"][..],
        &["serve", "--max-queue", "100001"][..],
        &["serve", "--queue-wait-ms", "0"][..],
        &["serve", "--table-lane", "0"][..],
        &["serve", "--table-queue", "-3"][..],
        &["serve", "--cheap-lane", "0"][..],
        &["serve", "--cheap-queue", "many"][..],
        &["serve", "--lane-time-ms", "0"][..],
        &["serve", "--lane-time-ms", "60001"][..],
        &["serve", "--header-timeout-ms", "99"][..],
        &["serve", "--request-timeout-ms", "3600001"][..],
        &["serve", "--max-connections", "0"][..],
        &["serve", "--max-connections", "65537"][..],
    ] {
        let out = Command::cargo_bin("endgame")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error:") && err.lines().count() == 1,
            "{err}"
        );
        // The error names the flag or the value at fault.
        assert!(
            err.contains(args[1]) || err.contains(args[2]),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn help_shows_every_limit_with_its_default() {
    let out = Command::cargo_bin("endgame")
        .unwrap()
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let solves = endgame_web::default_solves().to_string();
    for (flag, default) in [
        ("--max-solves", solves.as_str()),
        ("--max-queue", "16"),
        ("--queue-wait-ms", "10000"),
        ("--table-lane", "4"),
        ("--table-queue", "256"),
        ("--cheap-lane", "2"),
        ("--cheap-queue", "256"),
        ("--lane-time-ms", "100"),
        ("--header-timeout-ms", "5000"),
        ("--request-timeout-ms", "30000"),
        ("--max-connections", "1024"),
    ] {
        // The flag's paragraph ends with its default.
        let at = help
            .find(&format!("{flag} <"))
            .unwrap_or_else(|| panic!("{flag}: {help}"));
        let rest = &help[at..];
        let end = rest.find("[default: ").expect(flag);
        assert!(
            rest[end..].starts_with(&format!("[default: {default}]")),
            "{flag}: {}",
            &rest[..end + 20]
        );
    }
    // The defaults are the server's.
    let l = endgame_web::Limits::default();
    assert_eq!(l.lane_time.as_millis(), 100);
    assert_eq!((l.cheap_lane, l.cheap_queue), (2, 256));
    assert_eq!((l.table_lane, l.table_queue), (4, 256));
    assert_eq!(l.header_timeout.as_millis(), 5000);
    assert_eq!(l.request_timeout.as_millis(), 30000);
    assert_eq!(l.max_connections, 1024);
}
