//! Dead states of one game's goal search (fourteenth session):
//! `dead_diag 6 SEED INDEX [SHOW]` runs one plain goal search of game
//! INDEX of a study seeded SEED (spread order, no restarts, the
//! class/cut prune, unbounded memo), then reads its memo back: states by
//! stone count, those proven unable to reach one stone ("dead"), how many
//! of those the meeting bound ([`Martello::meet_floor`] above 1) and the
//! frozen-end test below would have pruned, and the SHOW smallest dead
//! states of each count (stones as colour and symbol digits, rows split
//! by `|`, `·` an empty row). n ≤ 6 (the memo's keys are `key4`).
use endgame_core::restarts::Searcher;
use endgame_core::Rules;
use endgame_martello::solver::Lazy4;
use endgame_martello::study::game_seed;
use endgame_martello::{Board, Martello, State};

fn decode(n: usize, k: &[u64; 4]) -> State {
    let m42 = (1u64 << 42) - 1;
    let rows = [
        k[0] & m42,
        k[1] & m42,
        k[2] & m42,
        k[3] & m42,
        (k[0] >> 42) | (k[1] >> 42) << 22,
        (k[2] >> 42) | (k[3] >> 42) << 22,
    ];
    let mut b = Board::empty(n).unwrap();
    for (r, &row) in rows.iter().enumerate().take(n) {
        let mut i = 0;
        let mut w = row;
        while w != 0 {
            let v = w & 127;
            let (c, s) = ((v >> 3 & 7) as usize, (v & 7) as usize);
            b.set(r, i, (c * n + s) as u8);
            i += 1;
            w >>= 7;
        }
    }
    State::from_board(&b)
}

fn show(n: usize, s: &State) -> String {
    (0..n)
        .map(|r| {
            s.row(r)
                .iter()
                .map(|&id| format!("{}{}", id as usize / n, id as usize % n))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .map(|r| if r.is_empty() { "·".to_string() } else { r })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a[1].parse().unwrap();
    let seed: u64 = a[2].parse().unwrap();
    let i: u64 = a[3].parse().unwrap();
    let shown: usize = a.get(4).map(|s| s.parse().unwrap()).unwrap_or(10);
    let b = Board::random(n, game_seed(seed, n, i)).unwrap();
    let m = Martello::new(n, State::from_board(&b)).unwrap();
    let start = m.start();
    let mut s = Searcher::with_children(&m, |p: &State| m.key4(p), Lazy4, usize::MAX)
        .goal_only()
        .ordered(true)
        .prefetch(true);
    let v = s.run(&start, None, None);
    println!("value {v:?} expansions {}", s.expansions);
    let memo = s.take_memo();
    let mut by = vec![[0u64; 4]; n * n + 1];
    let mut dead = Vec::new();
    memo.for_each(|k, v, _| {
        let st = decode(n, k);
        let c = st.stones() as usize;
        let d = (v & !(1 << 31)) > 1;
        by[c][usize::from(d)] += 1;
        if d {
            by[c][2] += u64::from(m.meet_floor(&st) > 1);
            by[c][3] += u64::from(frozen_end(&m, &st));
            dead.push(st);
        }
    });
    for (c, x) in by.iter().enumerate() {
        if x[0] + x[1] > 0 {
            println!(
                "{c:>3} stones: live {:>8} dead {:>8} meet {:>8} frozen {:>8}",
                x[0], x[1], x[2], x[3]
            );
        }
    }
    dead.sort_by_key(|s| s.stones());
    let mut cnt = std::collections::HashMap::new();
    for d in &dead {
        let e = cnt.entry(d.stones()).or_insert(0);
        *e += 1;
        if *e <= shown {
            println!("{:>2}: {}", d.stones(), show(n, d));
        }
    }
}

/// A diagnosis only (not used by the solver, not checked against the
/// brute force): the top (bottom) occupied row t lies next to an empty
/// row, no two neighbours of row t are compatible, and no stone of the
/// rest that is joined to a stone of row t ± 2 by a chain of compatible
/// stones of the rest is compatible with row t's first or last stone.
/// Then row t never changes: it has no horizontal eat, nothing enters it
/// but by a double jump over the empty row from row t ± 2, and a stone
/// gets into row t ± 2 only by eating one there, so before the first
/// jump only such chained stones can stand there, and none of them can
/// eat or be eaten by row t's ends. Row t and the rest both keep a
/// stone.
fn frozen_end(m: &Martello, s: &State) -> bool {
    let n = m.n();
    let occ: Vec<usize> = (0..n).filter(|&r| s.len(r) > 0).collect();
    if occ.len() < 2 {
        return false;
    }
    for (t, dir) in [(occ[0], 1i64), (*occ.last().unwrap(), -1i64)] {
        let e = (t as i64 + dir) as usize;
        if s.len(e) != 0 {
            continue;
        }
        let far = (t as i64 + 2 * dir) as usize;
        let row = s.row(t);
        if row.windows(2).any(|w| m.compatible(w[0], w[1])) {
            continue;
        }
        let ends = [row[0], *row.last().unwrap()];
        // Other side: every stone not in row t.
        let mut other: Vec<u8> = Vec::new();
        for r in 0..n {
            if r != t {
                other.extend(s.row(r));
            }
        }
        let mut reach: Vec<u8> = s.row(far);
        loop {
            let mut grew = false;
            for &x in &other {
                if !reach.contains(&x) && reach.iter().any(|&y| m.compatible(x, y)) {
                    reach.push(x);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        if !reach
            .iter()
            .any(|&y| ends.iter().any(|&z| m.compatible(y, z)))
        {
            return true;
        }
    }
    false
}
