//! The orbit-constant pagoda functions of the English central game that
//! prune the most of a sample of positions at one depth.
//!
//! Run: `cargo run --release -p endgame-peg --example pagoda_search [DEPTH] [RANGE]`
//! (defaults 15 and 3). The sample is the positions reached by five
//! million random plays of DEPTH jumps from the start (plays that stick
//! earlier are dropped), each kept as its pegs per orbit of holes under
//! the board's symmetries (the only thing an orbit-constant weighting
//! reads). Every weighting constant on orbits with integer weights in
//! `-RANGE..=RANGE` is tried; those no jump can raise (a pagoda function:
//! w(from) + w(over) >= w(to)) are ranked by the share of the sample whose
//! total falls below the goal hole's weight, and the best eight printed
//! on the board. About 25 s for the defaults.
use endgame_peg::board::Board;
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(15);
    let range: i64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let board = Board::named("english", false).unwrap();
    let n = board.holes();
    let goal = board.hole_at(3, 3).unwrap();
    // Orbits under the symmetries.
    let mut orbit = vec![usize::MAX; n];
    let mut norb = 0;
    for h in 0..n {
        if orbit[h] != usize::MAX {
            continue;
        }
        for s in board.symmetries() {
            orbit[s[h]] = norb;
        }
        norb += 1;
    }
    eprintln!("{norb} orbits");
    // Sample: random play, positions at `depth`.
    let mut rng: u64 = 0x9E3779B97F4A7C15;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut sample: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    let mut tries = 0;
    while sample.len() < 200_000 && tries < 5_000_000 {
        tries += 1;
        let mut pegs = vec![true; n];
        pegs[goal] = false;
        let mut ok = true;
        for _ in 0..depth {
            let legal: Vec<_> = board
                .jumps()
                .iter()
                .filter(|j| pegs[j.from] && pegs[j.over] && !pegs[j.to])
                .collect();
            if legal.is_empty() {
                ok = false;
                break;
            }
            let j = legal[(next() % legal.len() as u64) as usize];
            pegs[j.from] = false;
            pegs[j.over] = false;
            pegs[j.to] = true;
        }
        if ok {
            let mut c = vec![0u8; norb];
            for h in 0..n {
                if pegs[h] {
                    c[orbit[h]] += 1;
                }
            }
            *sample.entry(c).or_default() += 1;
        }
    }
    let total: u64 = sample.values().sum();
    eprintln!("{} orbit-count vectors from {total} playouts", sample.len());
    // Jumps in orbit form: w[o(from)] + w[o(over)] - w[o(to)] >= 0.
    let mut jumps: Vec<(usize, usize, usize)> = board
        .jumps()
        .iter()
        .map(|j| (orbit[j.from], orbit[j.over], orbit[j.to]))
        .collect();
    jumps.sort();
    jumps.dedup();
    let vals = (2 * range + 1) as usize;
    let mut best: Vec<(u64, Vec<i64>)> = Vec::new();
    let mut w = vec![0i64; norb];
    let combos = vals.pow(norb as u32);
    let mut valid = 0;
    for code in 0..combos {
        let mut c = code;
        for x in w.iter_mut() {
            *x = (c % vals) as i64 - range;
            c /= vals;
        }
        if !jumps.iter().all(|&(a, b, t)| w[a] + w[b] >= w[t]) {
            continue;
        }
        let need = w[orbit[goal]];
        valid += 1;
        let pruned: u64 = sample
            .iter()
            .filter(|(c, _)| c.iter().zip(&w).map(|(&k, &x)| k as i64 * x).sum::<i64>() < need)
            .map(|(_, &m)| m)
            .sum();
        best.push((pruned, w.clone()));
    }
    best.sort_by_key(|b| std::cmp::Reverse(b.0));
    eprintln!("{valid} valid weightings");
    for (p, w) in best.iter().take(8) {
        let pg = endgame_peg::pagoda::Pagoda {
            name: String::new(),
            weights: (0..n).map(|h| w[orbit[h]]).collect(),
        };
        println!(
            "pruned {:.1} % of the sample: orbit weights {w:?}",
            100.0 * *p as f64 / total as f64
        );
        println!("{}", pg.draw(&board));
    }
}
