//! Helpers every `endgame` CLI test file shares: run the real binary and
//! check its report or its one-line error.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The built `endgame` binary.
pub fn endgame() -> Command {
    Command::cargo_bin("endgame").expect("the endgame binary is built")
}

/// Runs `endgame --json ARGS`, returns the parsed report; the exit status
/// must be 0, or 3 for an undecided hint ([`status_for`]).
pub fn json(args: &[&str]) -> Value {
    json_of(endgame(), args)
}

/// [`json`] with the temporary directory `tmp` (where spills go).
pub fn json_in(tmp: &Path, args: &[&str]) -> Value {
    let mut cmd = endgame();
    cmd.env("TMPDIR", tmp);
    json_of(cmd, args)
}

fn json_of(mut cmd: Command, args: &[&str]) -> Value {
    let out = cmd.arg("--json").args(args).output().expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "endgame {args:?}: stdout is not JSON: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        out.status.code(),
        Some(status_for(args, &r)),
        "endgame {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    r
}

/// The exit status a report must come with: 3 for a hint whose position
/// or a move is not `decided` (the budget ran out first), else 0 (tests
/// of other commands' status 3 use [`incomplete_json`]).
pub fn status_for(args: &[&str], r: &Value) -> i32 {
    let hint_undecided = args.first() == Some(&"hint")
        && (r["decided"] == false
            || r["moves"]
                .as_array()
                .is_some_and(|m| m.iter().any(|m| m["decided"] == false)));
    if hint_undecided {
        3
    } else {
        0
    }
}

/// Runs `endgame --json ARGS`, expects exit status 3 (the budget ran out
/// before the answer was complete), returns the parsed report.
#[allow(dead_code)]
pub fn incomplete_json(args: &[&str]) -> Value {
    let out = endgame().arg("--json").args(args).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(3),
        "endgame {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Runs `endgame --json solve ARGS…`: exit status 3 exactly when the
/// report says the answer is incomplete (`complete: false`, or without
/// that field an unknown `solvable`), else 0.
pub fn solve_json(args: &[&str]) -> Value {
    let out = endgame().arg("--json").args(args).output().expect("runs");
    let r: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let incomplete = match r.get("complete") {
        Some(c) => c == false,
        None => r["solvable"].is_null(),
    };
    let want = if incomplete { 3 } else { 0 };
    assert_eq!(out.status.code(), Some(want), "endgame {args:?}: {r}");
    r
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

/// `GET uri` on the web workbench's router in this process (default
/// limits); expects HTTP 200 and returns the JSON body.
pub fn web_json(uri: &str) -> Value {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let r = endgame_web::router(endgame_web::Limits::default())
            .oneshot(
                axum::http::Request::get(uri)
                    .body(axum::body::Body::empty())
                    .expect("a request"),
            )
            .await
            .expect("the router answers");
        let status = r.status();
        let bytes = r.into_body().collect().await.expect("a body").to_bytes();
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{uri}: {v}");
        v
    })
}

/// `v` without its timing fields (`time_ms` at any depth): what two runs of
/// the same analysis must agree on.
pub fn without_timing(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("time_ms");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Asserts that `endgame --json hint ARGS` and the web's `GET uri` give the
/// same analysis (timings aside); returns it.
pub fn same_analysis(args: &[&str], uri: &str) -> Value {
    let cli = without_timing(json(args));
    let web = without_timing(web_json(uri));
    assert_eq!(cli, web, "endgame {args:?} and GET {uri} differ");
    cli
}

/// A fresh, empty scratch directory named `endgame-LABEL-…` under the
/// system's temporary directory, removed with everything in it when the
/// returned value is dropped (also when the test panics). Keep it alive
/// for as long as the directory is used: `let dir = scratch("x");`.
pub fn scratch(label: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("endgame-{label}-"))
        .tempdir()
        .expect("a scratch directory")
}

/// The process's shared scratch table cache: how many [`IsolatedCache`]
/// guards are alive, and the directory while any is.
static SHARED_CACHE: Mutex<(usize, Option<tempfile::TempDir>)> = Mutex::new((0, None));

/// A guard pointing this test process (the `endgame` it runs and the web
/// router it builds, through `ENDGAME_CACHE`) at an empty scratch table
/// cache, so the user's solved tables are never read nor touched. The
/// tests of one process that hold a guard at the same time share the
/// directory; it is removed when the last of them drops its guard.
pub struct IsolatedCache {
    path: PathBuf,
}

impl IsolatedCache {
    /// The cache directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Takes an [`IsolatedCache`] guard (see there): `let cache = isolated_cache();`.
pub fn isolated_cache() -> IsolatedCache {
    let mut shared = SHARED_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let path = match &shared.1 {
        Some(dir) => dir.path().to_path_buf(),
        None => {
            let dir = scratch("cache");
            std::env::set_var("ENDGAME_CACHE", dir.path());
            let path = dir.path().to_path_buf();
            shared.1 = Some(dir);
            path
        }
    };
    shared.0 += 1;
    IsolatedCache { path }
}

impl Drop for IsolatedCache {
    fn drop(&mut self) {
        let mut shared = SHARED_CACHE.lock().unwrap_or_else(|e| e.into_inner());
        shared.0 -= 1;
        if shared.0 == 0 {
            shared.1 = None;
        }
    }
}

/// A count's report without what depends on the run and on how it is
/// split across processes (time, peak memory, bytes of the stored layers,
/// checkpoints and the exchange's volume).
pub fn counts(v: Value) -> Value {
    let mut v = without_timing(v);
    let m = v.as_object_mut().expect("an object");
    for k in [
        "peak_memory_bytes",
        "table_bytes",
        "layers_loaded",
        "layers_computed",
        "exchanged_positions",
        "exchanged_bytes",
        "spilled_layers",
        "planned_peak_bytes",
    ] {
        m.remove(k);
    }
    v
}
