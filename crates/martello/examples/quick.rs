use endgame_martello::solver::{self, SymmetryMode};
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
    let t = std::time::Instant::now();
    let mut total = 0u64;
    let mut solv = 0;
    let mut maxe = 0;
    for g in 0..games {
        let m = Martello::new(n, State::from_board(&Board::random(n, g).unwrap())).unwrap();
        let (v, e) = solver::min_stones(&m, sym, 1 << 31);
        total += e;
        maxe = maxe.max(e);
        if v == 1 {
            solv += 1;
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("n {n} games {games} solvable {solv} explored total {total} mean {} max {maxe} time {s:.3}s games/s {:.1} states/s {:.0}", total / games, games as f64 / s, total as f64 / s);
}
