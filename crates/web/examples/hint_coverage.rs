//! The hints a workbench user gets, measured over the web API: for each
//! set of positions, how many moves stay undecided (blue) and the hint
//! latency (p50, p95, max), every request sent through the server's router
//! exactly as the page sends it (`GET /api/GAME/hints?…`, default budget).
//!
//! `cargo run --release -p endgame-web --example hint_coverage -- [--cache DIR] [--count N] [--seed S] [SET...]`
//!
//! Sets: `martello` (n = 1…6, N random starts each and the positions 10
//! random operations in), `sim` (K3…K8, standard and misère, N random
//! positions each), `peg` (the English, French and triangle boards' default
//! problems and N positions 5 random jumps in), `pentago` (N positions of
//! 18, 20 and 24 stones from random games), `big` (the Wiegleb and diamond
//! boards, the start and 5 positions 5 jumps in: only the share decided is
//! reported). Default: all but `big`; N = 100 for Martello, 20 otherwise.
//!
//! Before the first request every solved table of the sets' games is
//! loaded or built into the cache directory (default: the user's cache,
//! as `endgame serve` uses), with its time and size printed: the targets
//! are for hints with tables present.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use endgame_core::budget::Budget;
use endgame_core::cache::{self, Tables};
use endgame_core::{Game, Notation, Rules};
use http_body_util::BodyExt;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tower::ServiceExt;

/// One set's requests.
#[derive(Default)]
struct Set {
    ms: Vec<f64>,
    moves: usize,
    undecided: usize,
    /// Positions with some move, or their own value, undecided.
    open: usize,
    errors: usize,
}

impl Set {
    fn print(&mut self, name: &str) {
        self.ms.sort_by(f64::total_cmp);
        let q = |f: f64| -> f64 {
            if self.ms.is_empty() {
                return 0.0;
            }
            let k = ((f * self.ms.len() as f64).ceil() as usize).clamp(1, self.ms.len());
            self.ms[k - 1]
        };
        println!(
            "{name:<28} {:>5} {:>7} {:>9} {:>9.1} {:>9.1} {:>9.1} {:>6}",
            self.ms.len(),
            self.moves,
            format!("{}/{}", self.undecided, self.open),
            q(0.5),
            q(0.95),
            q(1.0),
            self.errors
        );
    }
}

struct Bench {
    app: Router,
    rt: tokio::runtime::Runtime,
}

impl Bench {
    /// One hint over the API into `set`.
    fn hint(&self, game: &str, params: &[(&str, String)], set: &mut Set) {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let uri = format!("/api/{game}/hints?{query}");
        let t = Instant::now();
        let (status, body) = self.rt.block_on(async {
            let r = self
                .app
                .clone()
                .oneshot(Request::get(&uri).body(Body::empty()).expect("a request"))
                .await
                .expect("an answer");
            let status = r.status();
            let bytes = r.into_body().collect().await.expect("a body").to_bytes();
            (status, bytes)
        });
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if status != StatusCode::OK {
            set.errors += 1;
            eprintln!("{uri}: HTTP {status}: {}", String::from_utf8_lossy(&body));
            return;
        }
        let a: Value = serde_json::from_slice(&body).expect("JSON");
        let moves = a["moves"].as_array().map_or(0, Vec::len);
        let blue = a["moves"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["colour"] == "blue").count());
        set.ms.push(ms);
        set.moves += moves;
        set.undecided += blue;
        if blue > 0 || (a["decided_by"] == "undecided" && !a["over"].as_bool().unwrap_or(false)) {
            set.open += 1;
            eprintln!("open: {uri} ({blue}/{moves} blue, {:.0} ms)", ms);
        }
    }
}

/// The position `k` random moves from `start` (fewer if the game ends).
fn walk<R: Rules>(r: &R, start: R::Position, k: usize, rng: &mut ChaCha8Rng) -> R::Position {
    let mut pos = start;
    for _ in 0..k {
        let moves = r.moves(&pos);
        let Some(&m) = moves.choose(rng) else { break };
        pos = r.play_unchecked(&pos, m);
    }
    pos
}

/// `count` positions of random games of `g` (none finished), spread over
/// the games' lengths.
fn game_positions<G: Game>(g: &G, count: usize, rng: &mut ChaCha8Rng) -> Vec<G::Position> {
    let mut all: Vec<G::Position> = Vec::new();
    while all.len() < 20 * count {
        let mut pos = g.start();
        while g.outcome(&pos).is_none() {
            all.push(pos);
            let moves = g.moves(&pos);
            let Some(&m) = moves.choose(rng) else { break };
            pos = g.play_unchecked(&pos, m);
        }
    }
    all.choose_multiple(rng, count).copied().collect()
}

fn martello(b: &Bench, count: u64, rng: &mut ChaCha8Rng) {
    use endgame_martello::api;
    for n in 1..=6 {
        let (mut start, mut mid) = (Set::default(), Set::default());
        for seed in 1..=count {
            let (m, s) = api::random(n, seed).expect("a board");
            b.hint("martello", &[("board", m.format_position(&s))], &mut start);
            let p = walk(&m, s, 10, rng);
            if !m.moves(&p).is_empty() {
                b.hint("martello", &[("board", m.format_position(&p))], &mut mid);
            }
        }
        start.print(&format!("martello n={n} start"));
        mid.print(&format!("martello n={n} 10 in"));
    }
}

fn sim(b: &Bench, count: usize, rng: &mut ChaCha8Rng) {
    use endgame_sim::Sim;
    for misere in [false, true] {
        for n in 3..=8 {
            let sim = Sim::new(n, misere).expect("a variant");
            let mut set = Set::default();
            for p in game_positions(&sim, count, rng) {
                b.hint(
                    "sim",
                    &[
                        ("n", n.to_string()),
                        ("misere", misere.to_string()),
                        ("start", sim.format_position(&p)),
                    ],
                    &mut set,
                );
            }
            let v = if misere { "misère" } else { "standard" };
            set.print(&format!("sim K{n} {v}"));
        }
    }
}

fn peg(b: &Bench, boards: &[&str], count: usize, rng: &mut ChaCha8Rng) {
    use endgame_peg::api::{self, build, Spec};
    for &board in boards {
        let problem = build(&Spec::named(board)).expect("a built-in board");
        let mut set = Set::default();
        b.hint("peg", &[("board", board.to_string())], &mut set);
        for _ in 0..count {
            // Five random jumps from the start, through the peg api.
            let mut pos = api::start_notation(&problem);
            for _ in 0..5 {
                let at = Spec {
                    position: Some(pos.clone()),
                    ..Spec::named(board)
                };
                let cur = build(&at).expect("a position reached by legal jumps");
                let moves = api::view(&cur).moves;
                let Some(m) = moves.choose(rng) else { break };
                pos = api::position_after(&cur, &[m.name.as_str()]).expect("a legal jump");
            }
            b.hint(
                "peg",
                &[("board", board.to_string()), ("start", pos)],
                &mut set,
            );
        }
        set.print(&format!("peg {board}, start + 5 in"));
    }
}

fn pentago(b: &Bench, count: usize, seed: u64) {
    use endgame_core::conformance::random_game_positions;
    use endgame_pentago::Pentago;
    for stones in [18, 20, 24] {
        let mut set = Set::default();
        let mut found = 0;
        let mut round = seed;
        while found < count {
            for p in random_game_positions(&Pentago, round, 50) {
                if found < count && p.stones() == stones && p.outcome().is_none() {
                    found += 1;
                    b.hint(
                        "pentago",
                        &[("start", Pentago.format_position(&p))],
                        &mut set,
                    );
                }
            }
            round += 1;
        }
        set.print(&format!("pentago {stones} stones"));
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let mut count: Option<usize> = None;
    let mut seed = 1u64;
    let mut sets = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cache" => dir = args.next().map(std::path::PathBuf::from),
            "--count" => count = args.next().and_then(|s| s.parse().ok()),
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(1),
            s => sets.push(s.to_string()),
        }
    }
    if sets.is_empty() {
        sets = ["martello", "sim", "peg", "pentago"]
            .map(String::from)
            .to_vec();
    }
    let dir = cache::dir(dir.as_deref());
    let state = endgame_web::AppState::with_cache(endgame_web::Limits::default(), &dir);
    println!("tables in {}", dir.display());
    let services: Vec<Arc<dyn Tables>> = state.table_services();
    for s in &services {
        for t in s.tables() {
            // Only the tables of the sets asked for.
            let game = t.name.split('-').next().unwrap_or("");
            let wanted = sets
                .iter()
                .any(|x| x == game || (game == "peg" && x == "big"));
            if !wanted {
                continue;
            }
            match s.build(&t.name, &Budget::unlimited()) {
                Some(Ok(r)) => println!(
                    "  {:<22} {:>8} {:>12} entries {:>10.1} MB {:>9.0} ms",
                    r.name,
                    r.source,
                    r.entries,
                    r.bytes as f64 / 1e6,
                    r.time_ms
                ),
                Some(Err(e)) => println!("  {:<22} failed: {e}", t.name),
                None => {}
            }
        }
    }
    let bench = Bench {
        app: endgame_web::app(state),
        rt: tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime"),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    println!(
        "{:<28} {:>5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6}",
        "set", "hints", "moves", "blue/pos", "p50 ms", "p95 ms", "max ms", "errors"
    );
    for s in &sets {
        match s.as_str() {
            "martello" => martello(&bench, count.unwrap_or(100) as u64, &mut rng),
            "sim" => sim(&bench, count.unwrap_or(20), &mut rng),
            "peg" => peg(
                &bench,
                &["english", "french", "triangle"],
                count.unwrap_or(20),
                &mut rng,
            ),
            "pentago" => pentago(&bench, count.unwrap_or(20), seed),
            "big" => peg(
                &bench,
                &["wiegleb", "diamond"],
                count.unwrap_or(5),
                &mut rng,
            ),
            other => eprintln!("unknown set {other} (martello, sim, peg, pentago, big)"),
        }
    }
}
