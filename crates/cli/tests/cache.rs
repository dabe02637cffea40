//! `endgame cache list|build|clear` on a scratch cache directory: tables
//! are built once and loaded after, a damaged file is rebuilt with a
//! warning and never trusted, `--cache` and `ENDGAME_CACHE` choose the
//! directory, unknown names are one-line errors.

mod common;

use common::{endgame, scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `endgame --json --cache DIR ARGS`: (exit status, stdout JSON, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, Value, String) {
    let out = endgame()
        .arg("--json")
        .arg("--cache")
        .arg(dir)
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn table<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed in {list}"))
}

#[test]
fn a_table_is_built_once_then_loaded_and_a_damaged_one_rebuilt() {
    let scratch = scratch("cache-cli-cycle");
    let dir = scratch.path().to_path_buf();
    let name = "sim-k5-standard";
    let (code, list, _) = run(&dir, &["cache", "list"]);
    assert_eq!(code, 0);
    assert_eq!(table(&list, name)["state"], "missing");

    let (code, built, err) = run(&dir, &["cache", "build", name]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(built["built"][0]["source"], "built");
    assert!(built["built"][0]["entries"].as_u64().unwrap() > 0);
    let file = PathBuf::from(
        table(&run(&dir, &["cache", "list"]).1, name)["file"]
            .as_str()
            .unwrap()
            .to_string(),
    );
    assert!(
        file.starts_with(&dir),
        "{} outside the cache",
        file.display()
    );
    let (_, list, _) = run(&dir, &["cache", "list"]);
    assert_eq!(table(&list, name)["state"], "cached");
    assert!(table(&list, name)["bytes"].as_u64().unwrap() > 0);

    let (code, again, _) = run(&dir, &["cache", "build", name]);
    assert_eq!(code, 0);
    assert_eq!(again["built"][0]["source"], "loaded");

    // Flip one byte in the payload: the next build must not trust it.
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    std::fs::write(&file, &bytes).unwrap();
    let (code, rebuilt, err) = run(&dir, &["cache", "build", name]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rebuilt["built"][0]["source"], "rebuilt");
    assert!(err.contains("warning:"), "no warning on stderr: {err}");
    assert_eq!(
        run(&dir, &["cache", "build", name]).1["built"][0]["source"],
        "loaded"
    );

    let (code, cleared, _) = run(&dir, &["cache", "clear", name]);
    assert_eq!(code, 0);
    assert_eq!(cleared["deleted"].as_array().unwrap().len(), 1);
    assert!(!file.exists());
    assert_eq!(
        table(&run(&dir, &["cache", "list"]).1, name)["state"],
        "missing"
    );
}

#[test]
fn the_environment_names_the_directory_too() {
    let scratch = scratch("cache-cli-env");
    let dir = scratch.path().to_path_buf();
    let out = endgame()
        .env("ENDGAME_CACHE", &dir)
        .args(["--json", "cache", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["dir"], dir.to_str().unwrap());
}

#[test]
fn unknown_tables_are_one_line_errors() {
    let scratch = scratch("cache-cli-bad");
    let dir = scratch.path().to_path_buf();
    for args in [
        &["cache", "build", "no-such-table"][..],
        &["cache", "clear", "sim-k99-standard"][..],
        &["cache", "frobnicate"][..],
    ] {
        let (code, _, err) = run(&dir, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().count() == 0);
}
