//! Diagnosis of single hard boards: `tail_diag N SEED INDEX...` splits the
//! study solver's work on game INDEX into its goal search (with the
//! study's restart schedule) and the rest (the exact search); for n > 6
//! it times the whole solve, with `MEMO_MB` as its memo budget in MiB
//! when set (default: the study's 1 GiB). For n ≤ 6, `MEET=1` runs plain
//! goal searches pruned by the meeting bound on states of at most
//! 0/12/20/28/36 stones, `MEET_AT=LO-HI` one pruned by it on states of
//! LO..=HI stones only (against none). `STAGES=STEP` (any n; 7×7 and
//! 8×8: `key7`) follows the study solver's two searches apart: the
//! operation search (goal search with the restart schedule, then the
//! floored best-score search) advanced STEP expansions at a time, each
//! step printing its phase, the fewest stones entered, memo entries and
//! time, up to `STAGES_MAX` expansions (default 200 M); then the
//! row-wise search alone, its budget doubled from STEP / 10 up to
//! `RW_MAX` steps (default `STAGES_MAX` / 100), each step printing its
//! memo (entries, bytes with the rows' closures, entries replaced); its
//! memo is limited as the solver limits it (`solver::rowwise_bytes` of
//! the memo budget), or to `RW_MB` MiB when set; with `RW_GOAL=1` it
//! seeks one stone only (`Rowwise::goal_only`: an answer above 1 then
//! proves the minimum is more than 1, and is not the minimum).
use endgame_core::restarts::{MemoPool, RestartOptions, RestartSearch, Rng, Searcher};
use endgame_core::Rules;
use endgame_martello::solver::{self, Lazy4, Lazy7, SolveOptions};
use endgame_martello::state::Rowwise;
use endgame_martello::study::{better_schedule, game_seed};
use endgame_martello::{Board, Martello, State};
use std::time::Instant;

/// The study's schedule, or `SCHEDULE` (`1x100,40x250,…`) when set.
fn schedule() -> endgame_core::restarts::Schedule {
    match std::env::var("SCHEDULE") {
        Ok(s) => endgame_core::restarts::Schedule::parse(&s).unwrap(),
        Err(_) => better_schedule(),
    }
}

/// The memo budget: `MEMO_MB` MiB when set, else the study's.
fn memo_bytes() -> usize {
    std::env::var("MEMO_MB").map_or(SolveOptions::default().max_memo_bytes, |s| {
        s.parse::<usize>().unwrap() << 20
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let seed: u64 = args[2].parse().unwrap();
    for a in &args[3..] {
        let i: u64 = a.parse().unwrap();
        let b = Board::random(n, game_seed(seed, n, i)).unwrap();
        let m = Martello::new(n, State::from_board(&b)).unwrap();
        let start = m.start();
        let rseed = game_seed(seed ^ 0x3E7A, n, i);
        if let Ok(step) = std::env::var("STAGES") {
            stages(&m, rseed, step.parse().unwrap());
            continue;
        }
        if n > 6 {
            let t = Instant::now();
            let r = solver::solve(
                &m,
                &SolveOptions {
                    schedule: schedule(),
                    seed: rseed,
                    max_memo_bytes: memo_bytes(),
                    ..SolveOptions::default()
                },
            );
            println!(
                "game {i}: min {} explored {} {:.1} ms memo entries {} bytes {:.1} MiB",
                r.min_stones,
                r.explored,
                t.elapsed().as_secs_f64() * 1e3,
                r.memo_entries,
                r.memo_bytes as f64 / (1 << 20) as f64
            );
            continue;
        }
        println!("game {i}: meet floor at start {}", m.meet_floor(&start));
        if std::env::var("MEET").is_ok() {
            for k in [0, 12, 20, 28, 36] {
                meet_goal(&m, 0, k);
            }
            continue;
        }
        // `MEET_AT=LO-HI`: the meeting bound on states of LO..=HI stones
        // only (fifteenth session), against none.
        if let Ok(band) = std::env::var("MEET_AT") {
            let (lo, hi) = band.split_once('-').unwrap();
            meet_goal(&m, 0, 0);
            meet_goal(&m, lo.parse().unwrap(), hi.parse().unwrap());
            continue;
        }
        if std::env::var("PLAYOUTS").is_ok() {
            playouts(&m);
            continue;
        }
        let t = Instant::now();
        let mut s = Searcher::with_children(&m, |p: &State| m.key4(p), Lazy4, usize::MAX)
            .goal_only()
            .prefetch(true);
        let mut rng = Rng::new(rseed);
        let mut v = None;
        let mut budgeted = 0;
        'o: for &(k, bud) in &better_schedule().runs {
            for _ in 0..k {
                let order = Rng::new(rng.next_u64());
                v = s.run(&start, Some(bud), Some(order));
                if v.is_some() {
                    break 'o;
                }
            }
        }
        if v.is_none() {
            budgeted = s.expansions;
            v = s.run(&start, None, None);
        }
        let gt = t.elapsed().as_secs_f64();
        let (ge, gm) = (s.expansions, s.memo_entries());
        let t = Instant::now();
        let r = solver::solve(
            &m,
            &SolveOptions {
                schedule: schedule(),
                seed: rseed,
                ..SolveOptions::default()
            },
        );
        let tt = t.elapsed().as_secs_f64();
        println!(
            "game {i}: min {} goal {:?}; goal search {ge} expansions ({budgeted} in budgeted runs) {:.1} ms memo {gm}; whole solve {} expansions {:.1} ms memo {}",
            r.min_stones,
            v,
            gt * 1e3,
            r.explored,
            tt * 1e3,
            r.memo_entries
        );
    }
}

/// Meeting bound along random playouts of game `i` (diagnosis).
#[allow(dead_code)]
pub fn playouts(m: &Martello) {
    let mut rng = Rng::new(7);
    for _ in 0..5 {
        let mut s = m.start();
        let mut v = Vec::new();
        loop {
            v.push(format!("{}/{}", m.meet_floor(&s), m.floor(&s)));
            let kids = m.children(&s);
            if kids.is_empty() {
                break;
            }
            s = kids[rng.below(kids.len())].1;
        }
        println!("  {}", v.join(" "));
    }
}

/// Martello whose goal pruning also uses the meeting bound on states of
/// `.1 ..= .2` stones (diagnosis).
pub struct Meet<'a>(pub &'a Martello, pub u32, pub u32);

impl endgame_core::Rules for Meet<'_> {
    type Position = State;
    type Move = endgame_martello::Op;
    fn start(&self) -> State {
        self.0.start()
    }
    fn for_each_move(&self, pos: &State, f: impl FnMut(Self::Move)) {
        self.0.for_each_move(pos, f)
    }
    fn play_unchecked(&self, pos: &State, op: Self::Move) -> State {
        self.0.play_unchecked(pos, op)
    }
}

impl endgame_core::Puzzle for Meet<'_> {
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
        pos.doomed || ((self.1..=self.2).contains(&pos.stones()) && self.0.meet_floor(pos) >= 2)
    }
}

/// Plain goal search with the meeting bound on states of `lo ..= k`
/// stones.
pub fn meet_goal(m: &Martello, lo: u32, k: u32) {
    let p = Meet(m, lo, k);
    let t = Instant::now();
    let mut s = Searcher::with_children(
        &p,
        |s: &State| m.key4(s),
        |_: &Meet, s: &State, out: &mut Vec<(endgame_martello::Op, State)>| {
            solver::children(m, s, out)
        },
        usize::MAX,
    )
    .goal_only()
    .prefetch(true);
    let v = s.run(&m.start(), None, None);
    println!(
        "  meet at {lo}..={k} stones: goal {v:?} expansions {} {:.1} ms",
        s.expansions,
        t.elapsed().as_secs_f64() * 1e3
    );
}

/// The study solver's operation search and row-wise search apart, in
/// steps of `step` expansions (see the module documentation).
fn stages(m: &Martello, rseed: u64, step: u64) {
    let max: u64 = std::env::var("STAGES_MAX").map_or(200_000_000, |s| s.parse().unwrap());
    let start = m.start();
    let ro = RestartOptions {
        schedule: schedule(),
        max_memo_entries: solver::entries_for::<[u64; 7]>(memo_bytes()),
        seed: rseed,
        max_expansions: None,
        goal_first: true,
        ordered: false,
        prefetch: true,
        reserve: 4096,
    };
    let floor = Some(|s: &State| m.floor(s));
    let mut pool = MemoPool::default();
    let key = |s: &State| m.key7(s);
    let mut ops = RestartSearch::new(m, &start, key, Lazy7, &ro, &mut pool, floor).track_best(true);
    let t = Instant::now();
    let mut cap = step;
    loop {
        if let Some(r) = ops.advance(cap, None) {
            println!(
                "  ops: min {} after {} expansions, {} runs, {:.1} s, memo {} entries {:.1} MiB",
                r.best_score,
                r.expansions,
                r.runs,
                t.elapsed().as_secs_f64(),
                r.memo_entries,
                r.memo_bytes as f64 / (1 << 20) as f64
            );
            break;
        }
        println!(
            "  ops: {} expansions, {}, fewest stones entered {}, memo {} entries {:.1} MiB, {:.1} s",
            ops.expansions(),
            if ops.goal_failed() { "best-score search" } else { "goal search" },
            ops.best_seen().map_or(0, |b| b.0),
            ops.memo_entries(),
            ops.memo_bytes() as f64 / (1 << 20) as f64,
            t.elapsed().as_secs_f64()
        );
        if cap >= max {
            break;
        }
        cap += step;
    }
    let rw_max: u64 = std::env::var("RW_MAX").map_or(max / 100, |s| s.parse().unwrap());
    let rw_bytes = std::env::var("RW_MB").map_or(solver::rowwise_bytes(memo_bytes()), |s| {
        s.parse::<usize>().unwrap() << 20
    });
    let rw_entries = solver::entries_for::<[u64; 7]>(rw_bytes);
    let mut rw = Rowwise::limited(m, rw_entries, MemoPool::default());
    if std::env::var("RW_GOAL").is_ok_and(|v| v == "1") {
        rw = rw.goal_only();
    }
    let t = Instant::now();
    let mut budget = (step / 10).max(1);
    loop {
        if let Some(r) = rw.solve(&start, budget) {
            println!(
                "  row-wise: min {} after {} steps, {:.1} s, memo {} entries {:.1} MiB (replaced {})",
                r.min_stones,
                r.expansions,
                t.elapsed().as_secs_f64(),
                r.memo_entries,
                r.memo_bytes as f64 / (1 << 20) as f64,
                rw.replaced()
            );
            break;
        }
        println!(
            "  row-wise: {} steps, fewest stones seen {}, {:.1} s, memo {} entries {:.1} MiB (replaced {})",
            rw.expansions(),
            rw.best_seen(),
            t.elapsed().as_secs_f64(),
            rw.entries(),
            rw.bytes() as f64 / (1 << 20) as f64,
            rw.replaced()
        );
        if budget >= rw_max {
            break;
        }
        budget *= 2;
    }
}
