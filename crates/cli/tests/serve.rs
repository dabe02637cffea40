//! `endgame serve`: starts on a free port, answers the API over real HTTP,
//! refuses bad flags with exit status 2.

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

#[test]
fn serves_the_api_and_the_ui_on_a_free_port() {
    let mut child = Command::cargo_bin("endgame")
        .unwrap()
        .args(["serve", "--port", "0"])
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
}

#[test]
fn bad_flags_exit_with_status_2() {
    for args in [
        &["serve", "--max-solves", "0"][..],
        &["serve", "--port", "99999"][..],
        &["serve", "--host", "not-an-address"][..],
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
    }
}
