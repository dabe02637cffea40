//! Move orders for the hard solvable boards (thirteenth session):
//! `order_diag N SEED INDEX...` runs the study's goal search (its restart
//! schedule, goal only, the class/cut prune) with children tried in the
//! order `ORDER=k` and prints the expansions until it decides the game
//! (at most `CAP`, default 5 M). Orders (lower first; ties random in
//! restart runs): 0 none (the random order of the restarts), 1 spread
//! ([`Martello::spread`], what the solver uses), 2 interior empty rows
//! then spread, 3 / 4 fewer / more pendant colours and symbols (one
//! stone left), 5 interior empty rows, 6 / 7 those then fewer / more
//! pendants, 8 spread with squared weights, 9 / 10 spread then more /
//! fewer pendants, 11 the variance of the stones' rows, 12 spread and
//! variance. `ALT=1`: every other restart run unordered (a portfolio).
//! Measured in the crate README's thirteenth session.
use endgame_core::restarts::{Rng, Searcher};
use endgame_core::Rules;
use endgame_martello::solver;
use endgame_martello::study::{better_schedule, game_seed};
use endgame_martello::{Board, Martello, Op, State};
use std::time::Instant;

/// Martello with a child order (diagnosis).
struct Ordered<'a>(&'a Martello, u8);

impl Rules for Ordered<'_> {
    type Position = State;
    type Move = Op;
    fn start(&self) -> State {
        self.0.start()
    }
    fn for_each_move(&self, pos: &State, f: impl FnMut(Op)) {
        self.0.for_each_move(pos, f)
    }
    fn play_unchecked(&self, pos: &State, op: Op) -> State {
        self.0.play_unchecked(pos, op)
    }
}

impl endgame_core::Puzzle for Ordered<'_> {
    fn score(&self, pos: &State) -> u32 {
        pos.stones()
    }
    fn is_goal(&self, pos: &State) -> bool {
        pos.stones() == 1
    }
    fn score_bound(&self) -> u32 {
        1
    }
    fn cannot_reach_goal(&self, pos: &State) -> bool {
        pos.doomed
    }
    fn search_order(&self, s: &State) -> i64 {
        let n = self.0.n();
        let counts: Vec<i64> = (0..n).map(|r| s.len(r) as i64).collect();
        let spread: i64 = (0..n)
            .map(|r| counts[r] * (2 * r as i64 - (n as i64 - 1)).abs())
            .sum();
        let occ: Vec<usize> = (0..n).filter(|&r| counts[r] > 0).collect();
        let interior = match (occ.first(), occ.last()) {
            (Some(&a), Some(&b)) => (a..=b).filter(|&r| counts[r] == 0).count() as i64,
            _ => 0,
        };
        let mut deg = [0i64; 16];
        for id in 0..n * n {
            if s.present >> id & 1 == 1 {
                deg[id / n] += 1;
                deg[8 + id % n] += 1;
            }
        }
        let pendants = deg.iter().filter(|&&d| d == 1).count() as i64;
        let total: i64 = counts.iter().sum();
        let sq: i64 = (0..n)
            .map(|r| counts[r] * (2 * r as i64 - (n as i64 - 1)).pow(2))
            .sum();
        // n² × variance of the stones' rows, times total².
        let s1: i64 = (0..n).map(|r| counts[r] * r as i64).sum();
        let s2: i64 = (0..n).map(|r| counts[r] * (r * r) as i64).sum();
        let var = total * s2 - s1 * s1;
        match self.1 {
            1 => spread,
            8 => sq,
            9 => 10 * spread - pendants,
            10 => 10 * spread + pendants,
            11 => var / total.max(1),
            12 => 4 * spread + var / total.max(1) / 4,
            2 => 100 * interior + spread,
            3 => pendants,
            4 => -pendants,
            5 => 100 * interior,
            6 => 100 * interior + pendants,
            7 => 100 * interior - pendants,
            _ => 0,
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let seed: u64 = args[2].parse().unwrap();
    let order: u8 = std::env::var("ORDER").map_or(0, |s| s.parse().unwrap());
    let cap: u64 = std::env::var("CAP").map_or(5_000_000, |s| s.parse().unwrap());
    let mut total = 0;
    let mut all = Vec::new();
    // `A..B`: games A to B-1.
    let games: Vec<u64> = args[3..]
        .iter()
        .flat_map(|a| match a.split_once("..") {
            Some((x, y)) => (x.parse().unwrap()..y.parse().unwrap()).collect::<Vec<u64>>(),
            None => vec![a.parse().unwrap()],
        })
        .collect();
    let quiet = games.len() > 100;
    let mut solved = (0, 0u64);
    for i in games {
        let b = Board::random(n, game_seed(seed, n, i)).unwrap();
        let m = Martello::new(n, State::from_board(&b)).unwrap();
        let p = Ordered(&m, order);
        let start = m.start();
        let t = Instant::now();
        let mut s = Searcher::with_children(
            &p,
            |s: &State| m.key4(s),
            |_: &Ordered, s: &State, out: &mut Vec<(Op, State)>| solver::children(&m, s, out),
            usize::MAX,
        )
        .goal_only()
        .ordered(order > 0)
        .prefetch(true);
        let mut rng = Rng::new(game_seed(seed ^ 0x3E7A, n, i));
        let mut v = None;
        // `ALT=1`: every other restart run in random order (a portfolio).
        let alt = std::env::var("ALT").is_ok();
        let mut run = 0;
        let schedule = match std::env::var("SCHEDULE") {
            Ok(s) => endgame_core::restarts::Schedule::parse(&s).unwrap(),
            Err(_) => better_schedule(),
        };
        'o: for &(k, bud) in &schedule.runs {
            for _ in 0..k {
                run += 1;
                s = s.ordered(order > 0 && !(alt && run % 2 == 0));
                v = s.run(&start, Some(bud), Some(Rng::new(rng.next_u64())));
                if v.is_some() {
                    break 'o;
                }
            }
        }
        if v.is_none() {
            s = s.ordered(order > 0);
            v = s.run(&start, Some(cap.saturating_sub(s.expansions)), None);
        }
        if v == Some(1) {
            solved.0 += 1;
            solved.1 += s.expansions;
        }
        total += s.expansions;
        all.push(s.expansions);
        if quiet {
            continue;
        }
        println!(
            "game {i}: goal {v:?} expansions {} {:.1} ms",
            s.expansions,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    all.sort();
    println!(
        "ORDER={order}: {} games, total {total}, median {}; solvable {} games, total {}",
        all.len(),
        all[all.len() / 2],
        solved.0,
        solved.1
    );
}
