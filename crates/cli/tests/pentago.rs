//! `endgame … pentago` and `endgame battle` from the outside.

mod common;

use assert_cmd::Command;
use endgame_core::conformance::random_game_positions;
use endgame_core::Rules;
use endgame_pentago::board::bit_index;
use endgame_pentago::notation::{format_position, parse_move, parse_position};
use endgame_pentago::solve::{Budget, Solver};
use endgame_pentago::{Pentago, Position};
use serde_json::Value as Json;

fn endgame() -> Command {
    Command::cargo_bin("endgame").unwrap()
}

/// `endgame ARGS --json`: the report, its exit status 0, or 3 exactly
/// when it is incomplete (`common::status_for`).
fn json(args: &[&str]) -> Json {
    let out = endgame().args(args).arg("--json").output().unwrap();
    let r: Json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        out.status.code(),
        Some(common::status_for(args, &r)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    r
}

fn fails(args: &[&str], stdin: &str, needle: &str) {
    let out = endgame().args(args).write_stdin(stdin).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{err}");
}

/// A late, undecided position of a random game.
fn late() -> Position {
    random_game_positions(&Pentago, 3, 200)
        .into_iter()
        .find(|p| p.stones() >= 24 && p.outcome().is_none() && !p.must_rotate())
        .unwrap()
}

#[test]
fn solve_gives_value_and_children() {
    let p = late();
    let text = format_position(&p);
    let r = json(&["solve", "pentago", &text]);
    let want = Solver::default().value(&p, Budget::UNLIMITED);
    let v = r["value"].as_i64().unwrap();
    assert_eq!(
        v,
        match want {
            endgame_core::Value::Win => 1,
            endgame_core::Value::Draw => 0,
            _ => -1,
        }
    );
    let kids = r["children"].as_object().unwrap();
    assert_eq!(kids.len() as u32, 36 - p.stones());
    // Children are placements (same player to rotate): the best is the value.
    let best = kids.values().map(|v| v.as_i64().unwrap()).max().unwrap();
    assert_eq!(best, v);
    for k in kids.keys() {
        assert!(parse_position(k).unwrap().must_rotate());
    }
    assert!(["alpha-beta", "retrograde"].contains(&r["method"].as_str().unwrap()));
}

/// A 20-stone position the alpha-beta does not finish within its first
/// share (it needs about a second alone): solved by the retrograde
/// solver, with the value and children the alpha-beta alone finds.
#[test]
fn solve_uses_the_retrograde_solver_on_a_hard_position() {
    // From `examples/positions -- 20 20 1 seed`.
    let text = "1846827812061858223";
    let p = parse_position(text).unwrap();
    let r = json(&["solve", "pentago", text]);
    assert_eq!(r["method"], "retrograde");
    let mut ab = Solver::new(22);
    ab.set_retrograde(false);
    let (v, kids) = ab.value_and_children(&p, Budget::UNLIMITED);
    let num = |v: endgame_core::Value| match v {
        endgame_core::Value::Win => 1,
        endgame_core::Value::Draw => 0,
        _ => -1,
    };
    assert_eq!(r["value"].as_i64().unwrap(), num(v));
    for (c, v) in kids {
        assert_eq!(r["children"][format_position(&c)].as_i64().unwrap(), num(v));
    }
}

#[test]
fn solve_reads_the_spec_example() {
    let r = json(&["solve", "pentago", "205481007622539795m"]);
    assert_eq!(r["value"], 1);
    assert_eq!(r["to_move"], "white");
    assert_eq!(r["must_rotate"], true);
    assert_eq!(r["children"].as_object().unwrap().len(), 8);
}

#[test]
fn hint_lists_every_move_best_first() {
    let p = late();
    let r = json(&["hint", "pentago", &format_position(&p)]);
    let moves = r["moves"].as_array().unwrap();
    assert_eq!(moves.len(), Pentago.moves(&p).len());
    let rank = |m: &Json| match m["value"].as_str().unwrap() {
        "win" => 0,
        "draw" => 1,
        "unknown" => 2,
        _ => 3,
    };
    assert!(moves.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])));
    for m in moves {
        let mv = parse_move(m["move"].as_str().unwrap()).unwrap();
        let child = Pentago.play_checked(&p, mv).unwrap();
        assert_eq!(m["after"], format_position(&child));
    }
}

/// The value of each move by the alpha-beta alone (no retrograde solver,
/// one null-window pair per child), for the player making it.
fn alpha_beta_move_value(p: &Position, m: &Json) -> &'static str {
    let mv = parse_move(m["move"].as_str().unwrap()).unwrap();
    let child = Pentago.play_checked(p, mv).unwrap();
    let mut ab = Solver::new(20);
    ab.set_retrograde(false);
    match ab.value(&child, Budget::UNLIMITED).flip() {
        endgame_core::Value::Win => "win",
        endgame_core::Value::Draw => "draw",
        endgame_core::Value::Loss => "loss",
        endgame_core::Value::Unknown => "unknown",
    }
}

#[test]
fn a_late_hint_is_the_same_analysis_on_both_ends_and_exact() {
    // From 30 stones every move is decided at once: the same JSON from
    // the command line and the web, every move green, yellow or red as
    // the alpha-beta alone values it.
    let p = random_game_positions(&Pentago, 5, 200)
        .into_iter()
        .find(|p| p.stones() >= 30 && p.outcome().is_none() && !p.must_rotate())
        .unwrap();
    let text = format_position(&p);
    let a = common::same_analysis(
        &["hint", "pentago", &text],
        &format!("/api/pentago/hints?start={text}"),
    );
    assert_eq!(a["game"], "pentago");
    assert_eq!(a["position"], text.as_str());
    assert_eq!(
        a["to_move"],
        if p.black_to_move() { "black" } else { "white" }
    );
    assert!(a["reason"].is_null(), "{}", a["reason"]);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), Pentago.moves(&p).len());
    for m in moves {
        let want = alpha_beta_move_value(&p, m);
        assert_eq!(m["value"], want, "{m}");
        let colour = match want {
            "win" => "green",
            "draw" => "yellow",
            _ => "red",
        };
        assert_eq!(m["colour"], colour, "{m}");
        assert!(m["estimate"].is_null(), "{m}");
    }
    // The line starts with the first (best) move and replays legally.
    let line = a["line"].as_array().unwrap();
    assert_eq!(line[0], moves[0]["move"]);
    let mut q = p;
    for m in line {
        q = Pentago
            .play_checked(&q, parse_move(m.as_str().unwrap()).unwrap())
            .unwrap();
    }
}

#[test]
fn the_spec_rotation_wins_at_once_on_both_ends() {
    // White to rotate: `ul cw` makes five at once. It is green whatever
    // the budget leaves of the other rotations (a node limit keeps them
    // alike on both ends); undecided ones carry an estimate and stay blue.
    let a = common::same_analysis(
        &[
            "hint",
            "pentago",
            "205481007622539795m",
            "--time",
            "500ms",
            "--max-nodes",
            "20000",
        ],
        "/api/pentago/hints?start=205481007622539795m&time_ms=500&nodes=20000",
    );
    assert_eq!(a["value"], "win");
    assert_eq!(a["remoteness"], 1);
    assert_eq!(a["to_move"], "white");
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8);
    assert_eq!(moves[0]["move"], "ul cw");
    assert_eq!(moves[0]["colour"], "green");
    assert_eq!(a["line"], serde_json::json!(["ul cw"]));
    for m in moves {
        if m["estimate"].is_object() {
            assert_eq!(m["colour"], "blue", "{m}");
            assert_eq!(m["value"], "unknown", "{m}");
        } else {
            assert_ne!(m["colour"], "blue", "{m}");
        }
    }
    // The text prints the position's value line; moves left undecided
    // in 200 ms make it exit 3, all decided 0.
    let out = common::endgame()
        .args(["hint", "pentago", "205481007622539795m", "--time", "200ms"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let want = if text.contains(" blue ") { 3 } else { 0 };
    assert_eq!(out.status.code(), Some(want), "{text}");
    assert!(text.contains("value        win in 1"), "{text}");
    assert!(text.contains("ul cw      win in 1"), "{text}");
}

/// `GET uri` on the web's router in this process: the status and the
/// JSON body (errors included).
fn web_get(uri: &str) -> (u16, Json) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let r = endgame_web::router(endgame_web::Limits::default())
            .oneshot(
                axum::http::Request::get(uri)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        let status = r.status().as_u16();
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap_or(Json::Null))
    })
}

/// A late position of a random game won by the player to move, but not
/// at once: its winning moves need the solver.
fn late_win() -> Position {
    let mut s = Solver::new(20);
    random_game_positions(&Pentago, 11, 200)
        .into_iter()
        .filter(|p| (24..=27).contains(&p.stones()) && p.outcome().is_none() && !p.must_rotate())
        .find(|p| {
            let at_once = Pentago
                .moves(p)
                .into_iter()
                .any(|m| Pentago.play_unchecked(p, m).outcome() == Some(endgame_core::Value::Loss));
            !at_once && s.value(p, Budget::UNLIMITED) == endgame_core::Value::Win
        })
        .unwrap()
}

#[test]
fn solve_and_ai_give_the_same_answer_on_both_ends() {
    // Both ends call the Pentago crate's service: the same value,
    // remoteness, children, line, method and nodes (the command line's
    // `result` is the web's `value`; its `value` is the public solver's
    // number), and the same AI move.
    let p = late_win();
    let text = format_position(&p);
    let cli = json(&[
        "solve",
        "pentago",
        &text,
        "--time",
        "10s",
        "--max-nodes",
        "2000000",
    ]);
    let (status, web) = web_get(&format!(
        "/api/pentago/solve?start={text}&time_ms=10000&nodes=2000000"
    ));
    assert_eq!(status, 200, "{web}");
    assert_eq!(cli["result"], "win");
    assert_eq!(cli["value"], 1);
    assert_eq!(web["value"], cli["result"]);
    for field in [
        "position",
        "remoteness",
        "reason",
        "children",
        "line",
        "line_complete",
        "method",
        "nodes",
    ] {
        assert_eq!(web[field], cli[field], "{field}");
    }
    assert_eq!(cli["line_complete"], true);
    let kids = cli["children"].as_object().unwrap();
    assert_eq!(kids.len() as u32, 36 - p.stones());
    assert!(kids.values().all(|v| v.is_i64()), "{kids:?}");
    // The AI: the web's move is the one the command line's strong AI
    // plays first from the same position.
    let (status, ai) = web_get(&format!("/api/pentago/ai?start={text}&time_ms=400"));
    assert_eq!(status, 200, "{ai}");
    assert_eq!(ai["strength"], "strong");
    assert_eq!(ai["value"], "win");
    let game = json(&[
        "play",
        "pentago",
        "--black",
        "strong",
        "--white",
        "strong",
        "--position",
        &text,
        "--time-per-move",
        "400ms",
    ]);
    assert_eq!(game["moves"][0], ai["move"], "{game}");
    // It keeps the win.
    let mover = if p.black_to_move() { "black" } else { "white" };
    assert_eq!(game["winner"], mover, "{game}");
}

#[test]
fn solve_decides_the_rotation_that_wins_at_once() {
    // The README's example: white to rotate, `ul cw` gives white five at
    // once. Whatever the budget, that child is decided (lost for black,
    // the game over), the value is a win in 1, and the line is `ul cw`.
    let spec = "205481007622539795m";
    let r = json(&["solve", "pentago", spec, "--time", "300ms"]);
    assert_eq!(r["value"], 1);
    assert_eq!(r["remoteness"], 1);
    assert_eq!(r["children"]["205481007305345555"], -1);
    // The two rotations after which black wins at once are decided too.
    assert_eq!(r["children"]["205481007368784403"], 1);
    assert_eq!(r["children"]["205543611065846291"], 1);
    assert_eq!(r["line"], serde_json::json!(["ul cw"]));
    assert_eq!(r["line_complete"], true);
    let text = common::text(&["solve", "pentago", spec, "--time", "300ms"]);
    assert!(text.contains("value        win in 1\n"), "{text}");
    assert!(
        text.contains("  205481007305345555     loss     ul cw\n"),
        "{text}"
    );
    assert!(text.contains("line         ul cw (to the end)\n"), "{text}");
    let (status, web) = web_get(&format!("/api/pentago/solve?start={spec}&time_ms=300"));
    assert_eq!(status, 200, "{web}");
    assert_eq!(web["value"], "win");
    assert_eq!(web["line"], r["line"]);
    assert_eq!(web["children"]["205481007305345555"], -1);
}

#[test]
fn bad_input_is_one_line_on_both_ends() {
    // The same message from the command line (status 2) and the web (400).
    for (args, uri) in [
        (
            vec!["solve", "pentago", "xyz"],
            "/api/pentago/solve?start=xyz",
        ),
        (
            vec!["solve", "pentago", "0m"],
            "/api/pentago/solve?start=0m",
        ),
        (
            vec!["hint", "pentago", "19683"],
            "/api/pentago/hints?start=19683",
        ),
    ] {
        let line = common::user_error(&args);
        let (status, v) = web_get(uri);
        assert_eq!(status, 400, "{uri}: {v}");
        let msg = v["error"].as_str().unwrap();
        assert!(!msg.contains('\n'), "{msg}");
        assert_eq!(line, format!("error: {msg}"), "{uri}");
    }
    // The web's own checks: a pending placement, the AI's refusals.
    let over = random_game_positions(&Pentago, 2, 20)
        .into_iter()
        .find(|p| p.outcome().is_some())
        .unwrap();
    for (uri, needle) in [
        (
            "/api/pentago/solve?moves=a1".to_string(),
            "rotation must follow",
        ),
        (
            "/api/pentago/solve?start=1m&place=c4".into(),
            "no placement is due",
        ),
        (
            "/api/pentago/state?place=c4%20ur%20cw".into(),
            "give one empty cell",
        ),
        ("/api/pentago/ai?strength=nobody".into(), "unknown player"),
        ("/api/pentago/ai?place=c4".into(), "whole moves"),
        (
            format!("/api/pentago/ai?start={}", format_position(&over)),
            "the game is over",
        ),
    ] {
        let (status, v) = web_get(&uri);
        assert_eq!(status, 400, "{uri}: {v}");
        let msg = v["error"].as_str().unwrap();
        assert!(!msg.contains('\n') && msg.contains(needle), "{uri}: {msg}");
    }
}

#[test]
fn play_reads_human_moves_from_stdin() {
    // Black has a1 b1 c1 d1; white four scattered stones; black to move.
    let black = (0..4).fold(0u64, |b, x| b | 1 << bit_index(x, 0));
    let white = [(5, 5), (5, 3), (3, 5), (4, 2)]
        .iter()
        .fold(0u64, |b, &(x, y)| b | 1 << bit_index(x, y));
    let pos = format_position(&Position::new(black, white, false).unwrap());
    let out = endgame()
        .args([
            "play",
            "pentago",
            "--black",
            "human",
            "--white",
            "random",
            "--position",
            &pos,
        ])
        .write_stdin("\ne1\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("black plays e1"), "{text}");
    assert!(text.contains("black wins after 1 move\n"), "{text}");
    // Two AIs to the end, as JSON.
    let r = json(&[
        "play", "pentago", "--black", "random", "--white", "random", "--seed", "4",
    ]);
    assert!(["black", "white", "draw"].contains(&r["winner"].as_str().unwrap()));
    assert!(!r["moves"].as_array().unwrap().is_empty());
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    fails(&["solve", "pentago", "abc"], "", "bad position");
    fails(&["solve", "pentago", "4"], "", "impossible");
    fails(&["solve", "pentago", "19683"], "", "quadrant 0");
    fails(&["hint", "pentago", "0m"], "", "impossible");
    fails(&["hint", "pentago", "xyz"], "", "bad position");
    fails(
        &["hint", "pentago", "0", "--time", "soon"],
        "",
        "bad duration",
    );
    fails(
        &["play", "pentago", "--black", "nobody"],
        "",
        "unknown player",
    );
    fails(
        &[
            "battle", "pentago", "--black", "strong", "--white", "nobody",
        ],
        "",
        "unknown player",
    );
    fails(
        &[
            "battle",
            "pentago",
            "--black",
            "reference",
            "--white",
            "random",
            "--time-per-move",
            "fast",
        ],
        "",
        "bad duration",
    );
}

#[test]
fn battle_reports_results_times_and_interval() {
    let r = json(&[
        "battle",
        "pentago",
        "--black",
        "strong",
        "--white",
        "random",
        "--games",
        "4",
        "--time-per-move",
        "20ms",
        "--seed",
        "9",
    ]);
    let o = &r["overall"];
    let total = o["a_wins"].as_u64().unwrap()
        + o["draws"].as_u64().unwrap()
        + o["b_wins"].as_u64().unwrap();
    assert_eq!(total, 4);
    assert_eq!(
        r["a_started"]["a_wins"].as_u64().unwrap()
            + r["a_started"]["draws"].as_u64().unwrap()
            + r["a_started"]["b_wins"].as_u64().unwrap(),
        2
    );
    assert!(r["a_time"]["decisions"].as_u64().unwrap() > 0);
    let ci = r["a_score_ci95"].as_array().unwrap();
    let score = r["a_score"].as_f64().unwrap();
    assert!(ci[0].as_f64().unwrap() <= score && score <= ci[1].as_f64().unwrap());
    assert_eq!(r["records"].as_array().unwrap().len(), 4);
    // Replays exactly with a node budget instead of time.
    let args: Vec<&str> = "battle pentago --black reference --white random --games 2 --seed 5"
        .split(' ')
        .collect();
    let a = json(&args);
    let b = json(&args);
    assert_eq!(a["records"], b["records"]);
    assert_eq!(a["a"], "reference");
    // `seed`, the reference player's name until this release, is still
    // accepted (not listed in --help) for one release: the same player.
    let mut old = args.clone();
    old[3] = "seed";
    let c = json(&old);
    assert_eq!(c["a"], "reference");
    assert_eq!(c["records"], a["records"]);
}

#[test]
fn battle_sim_runs_through_the_same_code() {
    let r = json(&[
        "battle", "sim", "--red", "perfect", "--blue", "random", "--games", "4", "--seed", "3",
    ]);
    let o = &r["overall"];
    let total = o["a_wins"].as_u64().unwrap()
        + o["draws"].as_u64().unwrap()
        + o["b_wins"].as_u64().unwrap();
    assert_eq!(total, 4);
    // K_6 Sim has no draws, and perfect play never loses a won start;
    // whatever happens, both starters played two games each.
    assert_eq!(
        r["a_started"]["a_wins"].as_u64().unwrap() + r["a_started"]["b_wins"].as_u64().unwrap(),
        2
    );
    // Sim's options are not Pentago's.
    fails(
        &[
            "battle", "pentago", "--black", "random", "--white", "random", "--n", "5",
        ],
        "",
        "unexpected argument '--n'",
    );
    // The colours Sim used to borrow from Pentago still name A and B.
    let old = json(&[
        "battle", "sim", "--black", "perfect", "--white", "random", "--games", "4", "--seed", "3",
    ]);
    assert_eq!(old["records"], r["records"]);
}
