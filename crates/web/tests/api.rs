//! API tests against the router (no socket): answers cross-checked with
//! the game crates' own functions, bad input as JSON 400s, the solve
//! semaphore as 503s, and the embedded UI files.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use endgame_core::{Notation, Rules};
use endgame_web::{router, Limits};
use http_body_util::BodyExt;
use serde_json::Value;
use std::time::Duration;
use tower::ServiceExt;

async fn get_with(limits: Limits, uri: &str) -> (StatusCode, Value) {
    let r = router(limits)
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = r.status();
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, v)
}

async fn get(uri: &str) -> (StatusCode, Value) {
    get_with(Limits::default(), uri).await
}

async fn ok(uri: &str) -> Value {
    let (s, v) = get(uri).await;
    assert_eq!(s, StatusCode::OK, "{uri}: {v}");
    v
}

/// The strings of a JSON array.
fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect()
}

/// Field `key` (a string) of each object of a JSON array.
fn fields<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m[key].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn games_lists_the_four_games() {
    let v = ok("/api/games").await;
    let names: Vec<&str> = fields(&v["games"], "game");
    assert_eq!(names, ["peg", "sim", "pentago", "martello"]);
}

#[tokio::test]
async fn peg_state_follows_the_moves() {
    let v = ok("/api/peg/state?board=english&moves=d2-d4").await;
    assert_eq!(v["pegs"], 31);
    assert_eq!(v["holes"].as_array().unwrap().len(), 33);
    // After d2-d4 the English board has exactly three jumps, into d3.
    let moves: Vec<&str> = fields(&v["moves"], "move");
    assert_eq!(moves.len(), 3, "{moves:?}");
    assert!(moves.iter().all(|m| m.ends_with("-d3")), "{moves:?}");
    let over: Vec<&str> = fields(&v["moves"], "over");
    assert!(over.contains(&"d4") && over.contains(&"c3") && over.contains(&"e3"));
}

#[tokio::test]
async fn peg_hints_are_the_peg_crates_analysis() {
    let v = ok("/api/peg/hints?board=triangle").await;
    let spec = endgame_peg::api::Spec::named("triangle");
    let p = endgame_peg::api::build(&spec).unwrap();
    let budget = endgame_core::budget::Budget::time(endgame_peg::api::DEFAULT_TIME)
        .with_nodes(endgame_peg::api::DEFAULT_NODES);
    let want = endgame_peg::api::Service::new().analyze(&p, &budget);
    let mut want = serde_json::to_value(&want).unwrap();
    let mut got = v.clone();
    want["time_ms"] = Value::Null;
    got["time_ms"] = Value::Null;
    assert_eq!(got, want);
    assert_eq!(v["result"]["solvable"], true);
    for m in v["moves"].as_array().unwrap() {
        assert_eq!(m["colour"], "green", "{m}");
        assert_eq!(m["decided_by"], "table", "{m}");
    }
}

#[tokio::test]
async fn peg_solve_line_replays_to_one_peg() {
    let v = ok("/api/peg/solve?board=triangle").await;
    assert_eq!(v["value"], "solvable");
    let line: Vec<String> = strs(&v["line"]).into_iter().map(String::from).collect();
    assert_eq!(line.len(), 13);
    let st = ok(&format!(
        "/api/peg/state?board=triangle&moves={}",
        line.join(",")
    ))
    .await;
    assert_eq!(st["pegs"], 1);
    assert_eq!(st["solved"], true);
}

#[tokio::test]
async fn sim_hints_match_the_solver_and_colours() {
    let v = ok("/api/sim/hints?n=6&moves=ab,cd").await;
    let sim = endgame_sim::Sim::new(6, false).unwrap();
    let mut pos = sim.start();
    for m in ["ab", "cd"] {
        pos = sim.play_text(&pos, m).unwrap();
    }
    let mut t = endgame_sim::solve::Table::default();
    let want = endgame_sim::solve::hint(&sim, &mut t, &pos);
    let got = v["moves"].as_array().unwrap();
    assert_eq!(got.len(), want.len());
    assert_eq!(v["game"], "sim");
    assert_eq!(v["to_move"], "red");
    assert_eq!(v["n"], 6);
    assert!(v["decided_by"] == "search" || v["decided_by"] == "table");
    for (g, (m, o)) in got.iter().zip(&want) {
        assert_eq!(g["move"], sim.format_move(*m));
        assert_eq!(g["value"], serde_json::to_value(o.value).unwrap());
        assert_eq!(g["remoteness"], serde_json::to_value(o.remoteness).unwrap());
        let after = sim.format_position(&sim.play_unchecked(&pos, *m));
        assert_eq!(g["after"], after.as_str());
        let colour = match g["value"].as_str().unwrap() {
            "win" => "green",
            "loss" => "red",
            "draw" => "yellow",
            _ => "blue",
        };
        assert_eq!(g["colour"], colour);
    }
    // K6 is a second-player win: at the start every first move loses.
    let start = ok("/api/sim/hints?n=6").await;
    assert_eq!(start["value"], "loss");
    assert!(start["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["colour"] == "red"));
}

#[tokio::test]
async fn sim_k8_early_is_blue_with_a_reason_within_the_budget() {
    // Without a solved table (the usual case in a test) the exact search
    // stops at the budget: every move blue, the reason in words. With a
    // K8 table in the cache every move is decided instead.
    let t = std::time::Instant::now();
    let v = ok("/api/sim/hints?n=8&time_ms=300").await;
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 28);
    if v["decided_by"] == "table" {
        assert_eq!(v["value"], "loss");
        assert_eq!(v["remoteness"], 25);
        assert!(moves.iter().all(|m| m["colour"] == "red"));
    } else {
        assert_eq!(v["value"], "unknown");
        assert!(moves.iter().all(|m| m["colour"] == "blue"));
        let why = v["reason"].as_str().unwrap();
        assert!(why.starts_with("K8 at 0 coloured segments"), "{why}");
        assert!(why.contains("within 0.3 s"), "{why}");
        // The perfect AI will not guess: 503 with the way out.
        let (status, body) = get("/api/sim/ai?n=8&time_ms=300").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(
            body.to_string().contains("choose another strength"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn sim_ai_plays_a_move_that_keeps_the_win() {
    // Red opened; blue (the second player) wins K6, so the AI's move is green.
    let ai = ok("/api/sim/ai?n=6&moves=ab").await;
    let hints = ok("/api/sim/hints?n=6&moves=ab").await;
    let m = ai["move"].as_str().unwrap();
    let h = hints["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["move"] == m)
        .unwrap();
    assert_eq!(h["colour"], "green");
    assert_eq!(ai["value"], "win");
}

#[tokio::test]
async fn sim_solve_line_ends_the_game() {
    let v = ok("/api/sim/solve?n=6").await;
    assert_eq!(v["value"], "loss");
    let line: Vec<&str> = strs(&v["line"]);
    assert_eq!(Some(line.len() as u64), v["remoteness"].as_u64());
    let st = ok(&format!("/api/sim/state?n=6&moves={}", line.join(","))).await;
    assert_eq!(st["over"], true);
}

#[tokio::test]
async fn pentago_late_position_is_solved_and_unknown_early() {
    // The last worked example of docs/pentago.md: white to rotate, and
    // white wins.
    let v = ok("/api/pentago/hints?start=205481007622539795m").await;
    assert_eq!(v["must_rotate"], true);
    assert_eq!(v["value"], "win");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 8);
    // The rotation that wins at once, first and green.
    assert_eq!(moves[0]["move"], "ul cw");
    assert_eq!(moves[0]["colour"], "green");
    assert_eq!(moves[0]["remoteness"], 1);
    let solve = ok("/api/pentago/solve?start=205481007622539795m").await;
    assert_eq!(solve["value"], "win");
    // The empty board is far beyond a tiny budget: unknown, colour blue,
    // every full move with the strong evaluation's estimate.
    let early = ok("/api/pentago/hints?nodes=1000&time_ms=200").await;
    assert_eq!(early["must_rotate"], false);
    assert_eq!(early["moves"].as_array().unwrap().len(), 36 * 8);
    assert!(early["moves"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m["colour"] == "blue"
            && m["value"] == "unknown"
            && m["estimate"]["score"].is_f64()));
    assert!(early["reason"]
        .as_str()
        .unwrap()
        .starts_with("below 18 stones"));
}

#[tokio::test]
async fn pentago_late_hints_come_from_the_exact_solver() {
    // A 22-stone position (from a random game) whose value and children
    // a 1000-node alpha-beta leaves unknown: the hints must all be
    // decided, by the retrograde solver, and agree with it.
    let start = "642913157041761117";
    let v = ok(&format!(
        "/api/pentago/hints?start={start}&nodes=1000&time_ms=5000"
    ))
    .await;
    let pos = endgame_pentago::notation::parse_position(start).unwrap();
    let sol = endgame_pentago::mid::solve(&pos, None).unwrap();
    let value = sol.value();
    let name = |v: endgame_core::Value| serde_json::to_value(v).unwrap();
    assert_eq!(v["value"], name(value));
    let moves = v["moves"].as_array().unwrap();
    let want = sol.move_values();
    assert_eq!(moves.len(), want.len());
    for (mv, mvalue) in want {
        let text = endgame_pentago::notation::format_move(mv);
        let m = moves.iter().find(|m| m["move"] == text.as_str()).unwrap();
        assert_eq!(m["value"], name(mvalue), "{m}");
    }
    // The solve and the strong AI are exact there too, whatever the node
    // budget.
    let q = format!("start={start}&nodes=1000&time_ms=5000");
    let solve = ok(&format!("/api/pentago/solve?{q}")).await;
    assert_eq!(solve["value"], name(value));
    let ai = ok(&format!("/api/pentago/ai?{q}")).await;
    assert_eq!(ai["value"], name(value));
    // Its move keeps the value: the winning move, a drawing one, or any
    // move when lost.
    let mut solver = endgame_pentago::solve::Solver::new(16);
    let budget = endgame_pentago::solve::Budget {
        nodes: None,
        time: None,
    };
    let (v, keep) = endgame_pentago::solve::keeping_moves(&mut solver, &pos, budget).unwrap();
    assert_eq!(name(v), name(value));
    let g = endgame_pentago::Pentago;
    let m = g.parse_move(ai["move"].as_str().unwrap()).unwrap();
    assert!(keep.contains(&m), "{} keeps none of {keep:?}", ai["move"]);
}

#[tokio::test]
async fn pentago_state_and_ai_move_are_legal() {
    let st = ok("/api/pentago/state?moves=a1%20ll%20cw&place=c4").await;
    assert_eq!(st["must_rotate"], true);
    assert_eq!(st["to_move"], "white");
    let ai = ok("/api/pentago/ai?moves=a1%20ll%20cw&nodes=20000&time_ms=500").await;
    let m = ai["move"].as_str().unwrap();
    let g = endgame_pentago::Pentago;
    let pos = g
        .play_checked(&g.start(), g.parse_move("a1 ll cw").unwrap())
        .unwrap();
    assert!(g.is_legal(&pos, g.parse_move(m).unwrap()), "{m}");
}

/// `strength=seed`, the reference AI's name until this release, is still
/// accepted (one release) and answers as `reference`.
#[tokio::test]
async fn pentago_ai_takes_the_old_name_of_the_reference_player() {
    for strength in ["reference", "seed"] {
        let ai = ok(&format!(
            "/api/pentago/ai?moves=a1%20ll%20cw&strength={strength}"
        ))
        .await;
        assert_eq!(ai["strength"], "reference", "{strength}");
        assert!(ai["move"].is_string(), "{ai}");
    }
}

#[tokio::test]
async fn martello_hints_lead_to_boards_with_one_stone_less() {
    let st = ok("/api/martello/state?n=4&seed=1").await;
    let stones = st["stones"].as_u64().unwrap();
    let v = ok("/api/martello/hints?n=4&seed=1").await;
    assert_eq!(v["game"], "martello");
    assert_eq!(v["position"], st["normalised"]);
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    let best = v["result"]["best"].as_u64().unwrap();
    let solvable = v["result"]["solvable"].as_bool().unwrap();
    for h in moves {
        let next = ok(&format!(
            "/api/martello/state?board={}",
            h["after"].as_str().unwrap()
        ))
        .await;
        assert_eq!(next["stones"].as_u64().unwrap(), stones - 1);
        assert!(h["real_moves"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["kind"] == "eat"));
        let c = h["colour"].as_str().unwrap();
        match h["result"]["best"].as_u64() {
            Some(1) => assert_eq!(c, "green"),
            Some(_) if solvable => assert_eq!(c, "red"),
            Some(m) if m == best => assert_eq!(c, "yellow"),
            Some(_) => assert_eq!(c, "red"),
            None => assert_eq!(c, "blue"),
        }
    }
    let solve = ok("/api/martello/solve?n=4&seed=1").await;
    assert_eq!(solve["min_stones"].as_u64(), Some(best));
}

#[tokio::test]
async fn bad_input_is_a_json_400() {
    for uri in [
        "/api/peg/state?board=nope",
        "/api/peg/state?board=english&moves=a1-a3",
        "/api/peg/hints?art=o",
        "/api/sim/state?n=2",
        "/api/sim/state?n=6&moves=ab,ab",
        "/api/sim/hints?start=rrr",
        "/api/sim/ai?n=6&strength=nobody",
        "/api/pentago/state?start=xyz",
        "/api/pentago/state?moves=a1",
        "/api/pentago/ai?place=a1",
        "/api/martello/state?board=abc",
        "/api/martello/hints?n=9",
        "/api/sim/state?n=abc",
        // A misspelt parameter is refused, not ignored.
        "/api/sim/hints?position=rr.b...........",
        "/api/peg/state?bord=french",
        "/api/pentago/hints?time=5",
        "/api/martello/solve?size=6",
    ] {
        let (s, v) = get(uri).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{uri}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{uri}: {v}"
        );
    }
    let (s, v) = get("/api/nothing").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(v["error"].is_string());
}

#[tokio::test]
async fn budgets_are_capped_by_the_server() {
    let limits = Limits {
        max_time: Duration::from_millis(300),
        max_nodes: 5_000,
        ..Limits::default()
    };
    let (s, v) = get_with(limits, "/api/pentago/solve?time_ms=999999&nodes=999999999").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["budget"]["time_ms"], 300);
    assert_eq!(v["budget"]["nodes"], 5_000);
    assert_eq!(v["value"], "unknown");
}

#[tokio::test]
async fn ui_files_are_served() {
    for (uri, ty) in [
        ("/", "text/html"),
        ("/play", "text/html"),
        ("/ui/play.js", "text/javascript"),
        ("/ui/style.css", "text/css"),
    ] {
        let r = router(Limits::default())
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{uri}");
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with(ty), "{uri}: {ct}");
    }
}

/// The fewest pegs reachable from a position, by the peg crate's layered
/// enumeration of the whole reachable graph (not the DFS the hints use).
fn best_by_count(art: &str, position: &str) -> u32 {
    let spec = endgame_peg::api::Spec {
        board: endgame_peg::api::BoardSource::Art(art.replace('/', "\n")),
        position: Some(position.to_string()),
        ..endgame_peg::api::Spec::named("english")
    };
    let p = endgame_peg::api::build(&spec).unwrap();
    endgame_peg::api::count(
        &p,
        endgame_peg::api::CountOptions::default(),
        &endgame_core::layered::Silent,
    )
    .unwrap()
    .best_pegs
}

#[tokio::test]
async fn peg_hints_on_unsolvable_boards_are_yellow_for_the_best_result() {
    for art in ["oo.oo.o", "ooo.oo/oo.ooo", "oooo./ooo.o/o.ooo"] {
        let v = ok(&format!("/api/peg/hints?art={art}")).await;
        assert_eq!(v["result"]["solvable"], false, "{art}");
        let moves = v["moves"].as_array().unwrap();
        let mut bests = Vec::new();
        for m in moves {
            // The position after the move, counted apart.
            let after = m["after"].as_str().unwrap();
            let st = ok(&format!("/api/peg/state?art={art}&start={after}")).await;
            let best = best_by_count(art, after);
            assert_eq!(m["result"]["best"], best, "{art} {m}");
            assert_eq!(m["result"]["best_proven"], true, "{art} {m}");
            // Remoteness: this move and a line to that result, one peg each.
            assert_eq!(
                m["remoteness"],
                st["pegs"].as_u64().unwrap() + 1 - best as u64,
                "{art} {m}"
            );
            bests.push(best);
        }
        let min = *bests.iter().min().unwrap();
        assert_eq!(v["result"]["best"], min, "{art}");
        assert_eq!(v["result"]["best_proven"], true, "{art}");
        for (m, b) in moves.iter().zip(&bests) {
            assert_eq!(
                m["colour"],
                if *b == min { "yellow" } else { "red" },
                "{art} {m}"
            );
        }
        assert!(
            moves.iter().any(|m| m["colour"] == "red"),
            "{art}: no red to tell apart"
        );
    }
}

#[tokio::test]
async fn pentago_solve_line_replays_to_the_solved_result() {
    // 19 moves into a game: white to move, and the exact solver decides it.
    let start = "1846827025685889289";
    let st = ok(&format!("/api/pentago/state?start={start}")).await;
    let mover = st["to_move"].as_str().unwrap().to_string();
    let v = ok(&format!("/api/pentago/solve?start={start}&time_ms=5000")).await;
    assert_eq!(v["value"], "win");
    assert_eq!(v["line_complete"], true);
    let line: Vec<String> = v["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().replace(' ', "%20"))
        .collect();
    assert!(!line.is_empty());
    let end = ok(&format!(
        "/api/pentago/state?start={start}&moves={}",
        line.join(",")
    ))
    .await;
    assert_eq!(end["over"], true);
    assert_eq!(end["winner"], mover.as_str());
    // The value agrees with the Pentago crate's own solver.
    let g = endgame_pentago::Pentago;
    let pos = g.parse_position(start).unwrap();
    let mut s = endgame_pentago::solve::Solver::new(20);
    assert_eq!(
        s.value(&pos, endgame_pentago::solve::Budget::default()),
        endgame_core::Value::Win
    );
}

#[tokio::test]
async fn pentago_solve_with_a_pending_placement_starts_with_the_rotation() {
    // The last worked example of docs/pentago.md: white has placed and
    // must rotate; white wins.
    let start = "205481007622539795m";
    let v = ok(&format!("/api/pentago/solve?start={start}&time_ms=5000")).await;
    assert_eq!(v["value"], "win");
    let line: Vec<String> = strs(&v["line"]).into_iter().map(String::from).collect();
    assert!(!line.is_empty());
    // The first move is a rotation alone (`ul cw`), the rest whole moves.
    assert_eq!(line[0].split(' ').count(), 2, "{line:?}");
    let moves: Vec<String> = line.iter().map(|m| m.replace(' ', "%20")).collect();
    let end = ok(&format!(
        "/api/pentago/state?start={start}&moves={}",
        moves.join(",")
    ))
    .await;
    assert_eq!(end["over"], true);
    assert_eq!(end["winner"], "white");
}
