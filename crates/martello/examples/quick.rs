//! Quick timing of the exact solver on random boards:
//! `cargo run --release --example quick -- N GAMES [none|mirror|full] [SCHEDULE]`.
use endgame_core::restarts::Schedule;
use endgame_martello::solver::{self, SolveOptions, SymmetryMode};
use endgame_martello::{Board, Martello, State};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(6);
    let games: u64 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(100);
    let sym = match args.get(3).map(|s| s.as_str()) {
        Some("mirror") => SymmetryMode::Mirror,
        Some("full") => SymmetryMode::Full,
        _ => SymmetryMode::None,
    };
    let schedule = match args.get(4).map(|s| s.as_str()) {
        None | Some("plain") => Schedule::plain(),
        Some("reference" | "seed") => Schedule::reference(),
        Some(s) => Schedule::parse(s).unwrap(),
    };
    let t = std::time::Instant::now();
    let (mut total, mut solv, mut maxe) = (0u64, 0, 0);
    for g in 0..games {
        let m = Martello::new(n, State::from_board(&Board::random(n, g).unwrap())).unwrap();
        let opts = SolveOptions {
            symmetry: sym,
            schedule: schedule.clone(),
            seed: g,
            ..Default::default()
        };
        let s = solver::solve(&m, &opts);
        total += s.explored;
        maxe = maxe.max(s.explored);
        if s.solvable {
            solv += 1;
        } else if std::env::var("VERBOSE").is_ok() {
            println!(
                "unsolvable game {g}: min {} explored {}",
                s.min_stones, s.explored
            );
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "n {n} games {games} solvable {solv} explored total {total} mean {} max {maxe} time {s:.3}s games/s {:.1} states/s {:.0}",
        total / games,
        games as f64 / s,
        total as f64 / s
    );
}
