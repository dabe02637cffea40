//! Row-wise search against the exact solver: `rowwise_check N SEED GAMES
//! [BUDGET]` solves games `0..GAMES` of a study both ways, checks the
//! minima agree and every line plays legally to its minimum, and prints
//! the row-wise search's expansions and times; `rowwise_check N SEED
//! game INDEX...` prints single games (`BUDGET=K`: within K steps).
use endgame_core::Rules;
use endgame_martello::solver::{self, SolveOptions};
use endgame_martello::state::Rowwise;
use endgame_martello::study::{game_seed, Distribution};
use endgame_martello::{Board, Martello, State};
use std::time::Instant;

fn game(n: usize, seed: u64, i: u64) -> Martello {
    let b = Board::random(n, game_seed(seed, n, i)).unwrap();
    Martello::new(n, State::from_board(&b)).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let seed: u64 = args[2].parse().unwrap();
    if args[3] == "game" {
        for a in &args[4..] {
            let i: u64 = a.parse().unwrap();
            let m = game(n, seed, i);
            let t = Instant::now();
            // `BUDGET=K`: stop after K steps (what a stage of the solver
            // pays for a game the row-wise search does not end).
            if let Ok(b) = std::env::var("BUDGET") {
                let mut rw = Rowwise::new(&m);
                let r = rw.solve(&m.start(), b.parse().unwrap());
                println!(
                    "game {i}: {:?} after {} steps, {:.1} ms",
                    r.map(|r| r.min_stones),
                    rw.expansions(),
                    t.elapsed().as_secs_f64() * 1e3
                );
                continue;
            }
            let r = Rowwise::new(&m).solve(&m.start(), u64::MAX).unwrap();
            println!(
                "game {i}: min {} expansions {} memo {} ({:.1} MiB) {:.1} ms",
                r.min_stones,
                r.expansions,
                r.memo_entries,
                r.memo_bytes as f64 / (1 << 20) as f64,
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        return;
    }
    let games: u64 = args[3].parse().unwrap();
    let budget: u64 = args.get(4).map_or(u64::MAX, |b| b.parse().unwrap());
    let (mut tr, mut ts, mut done) = (0.0, 0.0, 0);
    let mut exp = Vec::new();
    for i in 0..games {
        let m = game(n, seed, i);
        let t = Instant::now();
        let r = Rowwise::new(&m).solve(&m.start(), budget);
        tr += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let want = solver::solve(&m, &SolveOptions::default()).min_stones;
        ts += t.elapsed().as_secs_f64();
        if let Some(r) = r {
            done += 1;
            exp.push(r.expansions);
            assert_eq!(r.min_stones, want, "game {i}");
            let mut s = m.start();
            for &op in &r.ops {
                s = m.play_checked(&s, op).unwrap();
            }
            assert_eq!(s.stones(), want, "game {i}: line");
        }
    }
    let d = Distribution::of(exp);
    println!(
        "n {n} seed {seed}: {done} of {games} within the budget, all agree; row-wise {tr:.2} s, solver {ts:.2} s; expansions median {} p99 {} max {}",
        d.median, d.p99, d.max
    );
}
