//! A load benchmark of a running `endgame serve`: `--clients` clients at
//! once, each on its own keep-alive connection, for `--seconds`, each
//! playing random games through the hints routes the way the page does
//! (ask for the hints, play one of the moves they list, ask again; a new
//! game when one ends or after `--depth` moves), round-robin over the
//! games: Sim K6, English peg, triangle peg, Martello n = 3…5 and late
//! Pentago. Prints per route the answers by status and the latency
//! percentiles.
//!
//! ```text
//! cargo build --release -p endgame
//! target/release/endgame serve --port 8090 &
//! cargo run --release -p endgame-web --example load -- --addr 127.0.0.1:8090 --clients 200 --seconds 30
//! ```
//!
//! Flags: `--addr HOST:PORT` (default 127.0.0.1:8080), `--clients N`
//! (200), `--seconds T` (30), `--think-ms MS` (0: each client sends its
//! next request as soon as the last is answered), `--depth D` (12), `--games
//! sim,peg,triangle,martello,pentago` (all), `--warm` (before the clock
//! starts, one request per game, so tables load). The HTTP/1.1 client is
//! a few lines over tokio's `TcpStream` (no client library needed).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A late Pentago position (the web README's solve example).
const PENTAGO_LATE: &str = "1846827025685889289";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Game {
    Sim,
    Peg,
    Triangle,
    Martello,
    Pentago,
}

impl Game {
    fn name(self) -> &'static str {
        match self {
            Game::Sim => "sim K6",
            Game::Peg => "peg english",
            Game::Triangle => "peg triangle",
            Game::Martello => "martello n=3..5",
            Game::Pentago => "pentago late",
        }
    }

    fn parse(s: &str) -> Option<Game> {
        Some(match s {
            "sim" => Game::Sim,
            "peg" | "english" => Game::Peg,
            "triangle" => Game::Triangle,
            "martello" => Game::Martello,
            "pentago" => Game::Pentago,
            _ => return None,
        })
    }
}

/// One game in progress: the moves played (or Martello's board).
struct Walk {
    game: Game,
    moves: Vec<String>,
    board: Option<String>,
    martello: (usize, u64),
}

impl Walk {
    fn new(game: Game, rng: &mut ChaCha8Rng) -> Walk {
        Walk {
            game,
            moves: Vec::new(),
            board: None,
            martello: (rng.gen_range(3..=5), rng.gen_range(1..=1000)),
        }
    }

    fn uri(&self) -> String {
        let moves = encode(&self.moves.join(","));
        match self.game {
            Game::Sim => format!("/api/sim/hints?n=6&moves={moves}"),
            Game::Peg => format!("/api/peg/hints?board=english&moves={moves}"),
            Game::Triangle => format!("/api/peg/hints?board=triangle&moves={moves}"),
            Game::Pentago => format!("/api/pentago/hints?start={PENTAGO_LATE}&moves={moves}"),
            Game::Martello => match &self.board {
                Some(b) => format!("/api/martello/hints?board={}", encode(b)),
                None => format!(
                    "/api/martello/hints?n={}&seed={}",
                    self.martello.0, self.martello.1
                ),
            },
        }
    }

    /// Plays a random move of the hints `v`; `false` when the game is over
    /// or deep enough (start a new one).
    fn advance(&mut self, v: &Value, depth: usize, rng: &mut ChaCha8Rng) -> bool {
        let moves = v["moves"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        if moves.is_empty() || self.moves.len() >= depth {
            return false;
        }
        let m = &moves[rng.gen_range(0..moves.len())];
        if self.game == Game::Martello {
            match m["after"].as_str() {
                Some(a) => self.board = Some(a.to_string()),
                None => return false,
            }
        }
        match m["move"].as_str() {
            Some(mv) => self.moves.push(mv.to_string()),
            None => return false,
        }
        true
    }
}

/// Percent-encodes a query value.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~,".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    addr: SocketAddr,
    io: Option<BufReader<TcpStream>>,
}

impl Conn {
    /// `GET uri`: the status and body; `Err` on a connection failure.
    async fn get(&mut self, uri: &str) -> std::io::Result<(u16, Vec<u8>)> {
        // A closed keep-alive connection is retried once on a fresh one.
        for attempt in 0..2 {
            if self.io.is_none() {
                let s = TcpStream::connect(self.addr).await?;
                s.set_nodelay(true)?;
                self.io = Some(BufReader::new(s));
            }
            match self.exchange(uri).await {
                Ok(r) => return Ok(r),
                Err(e) => {
                    self.io = None;
                    if attempt == 1 {
                        return Err(e);
                    }
                }
            }
        }
        unreachable!()
    }

    async fn exchange(&mut self, uri: &str) -> std::io::Result<(u16, Vec<u8>)> {
        let io = self.io.as_mut().expect("connected");
        let req = format!("GET {uri} HTTP/1.1\r\nHost: load\r\n\r\n");
        io.get_mut().write_all(req.as_bytes()).await?;
        let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
        let mut line = String::new();
        if io.read_line(&mut line).await? == 0 {
            return Err(bad("closed"));
        }
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad("status line"))?;
        let (mut length, mut chunked, mut close) = (None, false, false);
        loop {
            line.clear();
            if io.read_line(&mut line).await? == 0 {
                return Err(bad("closed in the head"));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').unwrap_or((l, ""));
            let (k, v) = (k.to_ascii_lowercase(), v.trim().to_ascii_lowercase());
            match k.as_str() {
                "content-length" => length = v.parse::<usize>().ok(),
                "transfer-encoding" => chunked = v.contains("chunked"),
                "connection" => close = v == "close",
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                io.read_line(&mut line).await?;
                let n = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("chunk"))?;
                let mut chunk = vec![0u8; n + 2];
                io.read_exact(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = length {
            body.resize(n, 0);
            io.read_exact(&mut body).await?;
        } else {
            io.read_to_end(&mut body).await?;
            close = true;
        }
        if close {
            self.io = None;
        }
        Ok((status, body))
    }
}

/// What one route saw.
#[derive(Default)]
struct Tally {
    by_status: BTreeMap<u16, u64>,
    failed: u64,
    ok_ms: Vec<f64>,
    all_ms: Vec<f64>,
    blue: u64,
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

struct Opts {
    addr: SocketAddr,
    clients: usize,
    seconds: f64,
    think: Duration,
    depth: usize,
    games: Vec<Game>,
    warm: bool,
}

fn opts() -> Opts {
    let mut o = Opts {
        addr: "127.0.0.1:8080".parse().unwrap(),
        clients: 200,
        seconds: 30.0,
        think: Duration::ZERO,
        depth: 12,
        games: vec![
            Game::Sim,
            Game::Peg,
            Game::Triangle,
            Game::Martello,
            Game::Pentago,
        ],
        warm: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = || {
            args.get(i + 1)
                .cloned()
                .unwrap_or_else(|| panic!("{} needs a value", args[i]))
        };
        match args[i].as_str() {
            "--addr" => o.addr = val().parse().expect("--addr HOST:PORT"),
            "--clients" => o.clients = val().parse().expect("--clients N"),
            "--seconds" => o.seconds = val().parse().expect("--seconds T"),
            "--think-ms" => o.think = Duration::from_millis(val().parse().expect("--think-ms MS")),
            "--depth" => o.depth = val().parse().expect("--depth D"),
            "--games" => {
                o.games = val()
                    .split(',')
                    .map(|g| Game::parse(g).unwrap_or_else(|| panic!("unknown game {g}")))
                    .collect()
            }
            "--warm" => {
                o.warm = true;
                i -= 1;
            }
            a => panic!("unknown flag {a} (see the example's documentation)"),
        }
        i += 2;
    }
    o
}

#[tokio::main]
async fn main() {
    let o = opts();
    if o.warm {
        let mut c = Conn {
            addr: o.addr,
            io: None,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for &g in &o.games {
            let w = Walk::new(g, &mut rng);
            let t = Instant::now();
            let r = c.get(&w.uri()).await.map(|r| r.0);
            eprintln!("warm {}: {r:?} in {:?}", g.name(), t.elapsed());
        }
    }
    let tallies: Arc<Mutex<BTreeMap<Game, Tally>>> = Arc::default();
    let end = Instant::now() + Duration::from_secs_f64(o.seconds);
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..o.clients {
        let (tallies, games, addr, think, depth) =
            (tallies.clone(), o.games.clone(), o.addr, o.think, o.depth);
        tasks.push(tokio::spawn(async move {
            let mut rng = ChaCha8Rng::seed_from_u64(k as u64 + 1);
            let mut conn = Conn { addr, io: None };
            // Each client starts at a different game of the mix.
            let mut walks: Vec<Walk> = games.iter().map(|&g| Walk::new(g, &mut rng)).collect();
            let mut turn = k;
            while Instant::now() < end {
                let w = &mut walks[turn % games.len()];
                turn += 1;
                let uri = w.uri();
                let t = Instant::now();
                let r = conn.get(&uri).await;
                let ms = t.elapsed().as_secs_f64() * 1e3;
                let mut v = Value::Null;
                {
                    let mut all = tallies.lock().unwrap();
                    let tally = all.entry(w.game).or_default();
                    tally.all_ms.push(ms);
                    match &r {
                        Ok((status, body)) => {
                            *tally.by_status.entry(*status).or_default() += 1;
                            if *status == 200 {
                                tally.ok_ms.push(ms);
                                v = serde_json::from_slice(body).unwrap_or(Value::Null);
                                if v["decided"] == false {
                                    tally.blue += 1;
                                }
                            }
                        }
                        Err(_) => tally.failed += 1,
                    }
                }
                match r {
                    Ok((200, _)) => {
                        if !w.advance(&v, depth, &mut rng) {
                            *w = Walk::new(w.game, &mut rng);
                        }
                    }
                    Ok(_) => {}
                    // The server is gone or refused the connection: wait a
                    // little rather than spin.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
                if !think.is_zero() {
                    tokio::time::sleep(think).await;
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{} clients, {:.0} s, think {} ms, against {}",
        o.clients,
        wall,
        o.think.as_millis(),
        o.addr
    );
    println!(
        "| route | requests | 200 | 503 | other | failed | answered | undecided | p50 ms (200) | p99 ms (200) | p99 ms (all) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut all = tallies.lock().unwrap();
    let mut total = 0;
    for (g, t) in all.iter_mut() {
        let n = t.all_ms.len() as u64;
        total += n;
        let ok = t.by_status.get(&200).copied().unwrap_or(0);
        let busy = t.by_status.get(&503).copied().unwrap_or(0);
        let other: u64 = t
            .by_status
            .iter()
            .filter(|(s, _)| **s != 200 && **s != 503)
            .map(|(_, c)| c)
            .sum();
        println!(
            "| {} | {n} | {ok} | {busy} | {other} | {} | {:.1} % | {} | {:.1} | {:.1} | {:.1} |",
            g.name(),
            t.failed,
            100.0 * ok as f64 / n.max(1) as f64,
            t.blue,
            pct(&mut t.ok_ms, 0.5),
            pct(&mut t.ok_ms, 0.99),
            pct(&mut t.all_ms, 0.99),
        );
    }
    println!("{total} requests, {:.0} per second", total as f64 / wall);
}
