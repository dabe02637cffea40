//! Tests of the searcher and the restart solver against brute force on a
//! toy puzzle.

use super::*;
use crate::budget::Budget;
use crate::{Puzzle, Rules};

/// A toy puzzle: a bitmask of pegs; a move removes peg i+1 when pegs i
/// and i+1 are both present and i+2 is empty, setting i+2 (a 1-D peg
/// solitaire). Score: pegs left.
struct Line(u32, u32);

impl Rules for Line {
    type Position = u32;
    type Move = (u8, bool);
    fn start(&self) -> u32 {
        self.1
    }
    fn for_each_move(&self, p: &u32, mut f: impl FnMut((u8, bool))) {
        for i in 0..self.0.saturating_sub(2) {
            let (a, b, c) = (1 << i, 1 << (i + 1), 1 << (i + 2));
            if p & a != 0 && p & b != 0 && p & c == 0 {
                f((i as u8, true));
            }
            if p & c != 0 && p & b != 0 && p & a == 0 {
                f((i as u8, false));
            }
        }
    }
    fn play_unchecked(&self, p: &u32, (i, right): (u8, bool)) -> u32 {
        let (a, b, c) = (1u32 << i, 1u32 << (i + 1), 1u32 << (i + 2));
        if right {
            (p & !a & !b) | c
        } else {
            (p & !c & !b) | a
        }
    }
}

impl Puzzle for Line {
    fn score(&self, p: &u32) -> u32 {
        p.count_ones()
    }
    fn is_goal(&self, p: &u32) -> bool {
        p.count_ones() == 1
    }
    fn score_bound(&self) -> u32 {
        1
    }
    // Pegs with no two of them within two holes of each other never
    // move again: a valid (if weak) proof that one peg cannot be left.
    fn cannot_reach_goal(&self, p: &u32) -> bool {
        let x = *p;
        x.count_ones() > 1 && x & (x >> 1) == 0 && x & (x >> 2) == 0
    }
}

fn brute(l: &Line, p: u32) -> u32 {
    let mut best = p.count_ones();
    l.for_each_move(&p, |m| best = best.min(brute(l, l.play_unchecked(&p, m))));
    best
}

#[test]
fn every_schedule_finds_the_brute_force_minimum() {
    for start in 1u32..(1 << 10) {
        let l = Line(10, start);
        let want = brute(&l, start);
        for (sched, goal_first) in [
            (Schedule::plain(), false),
            (Schedule::reference(), false),
            (Schedule::geometric(2, 2, 6), false),
            (Schedule::plain(), true),
            (Schedule::reference(), true),
        ] {
            let opts = RestartOptions {
                schedule: sched,
                seed: u64::from(start),
                goal_first,
                ..Default::default()
            };
            let r = solve(&l, &start, |p| *p, &opts);
            assert!(r.complete);
            assert_eq!(r.best_score, want, "start {start:b}");
            let end = r.line.iter().fold(start, |p, &m| {
                assert!(l.is_legal(&p, m));
                l.play_unchecked(&p, m)
            });
            assert_eq!(end.count_ones(), want);
        }
    }
}

#[test]
fn a_tiny_memo_stays_exact() {
    for start in [0b1101101101u32, 0b1111011, 0b110110111] {
        let l = Line(10, start);
        let opts = RestartOptions {
            schedule: Schedule::reference(),
            max_memo_entries: 3,
            ..Default::default()
        };
        assert_eq!(
            solve(&l, &start, |p| *p, &opts).best_score,
            brute(&l, start)
        );
    }
}

#[test]
fn an_expansion_cap_gives_an_incomplete_answer() {
    let start = 0b1011_0110_1101_1011u32;
    let l = Line(16, start);
    let opts = RestartOptions {
        max_expansions: Some(1),
        ..Default::default()
    };
    let r = solve(&l, &start, |p| *p, &opts);
    assert!(!r.complete);
    assert!(r.expansions <= 1);
}

/// Searches with memos far below their size give the brute force's
/// values (entries replaced, never wrong).
#[test]
fn searches_at_a_tiny_budget_stay_exact() {
    for bits in 6..=10u32 {
        for start in 0..(1u32 << bits) {
            let p = Line(bits, start);
            for cap in [1, 2, 5, 17] {
                let mut s = Searcher::new(&p, |x: &u32| *x, cap);
                assert_eq!(s.run(&start, None, None), Some(brute(&p, start)));
            }
        }
    }
}

/// Tables handed from memo to memo through a pool hold stale keys:
/// the reused memos must still agree with fresh ones, and whole
/// solves with one pool must equal solves without.
#[test]
fn pooled_memos_agree_with_fresh_ones() {
    let mut pool = MemoPool::default();
    let mut rng = Rng::new(9);
    for round in 0..6u64 {
        let mut memo = Memo::with_pool(pool);
        let mut map = std::collections::HashMap::new();
        if round % 2 == 0 {
            memo.reserve(64, 0u64);
        }
        for i in 0..(3_000 * (round + 1)) as u32 {
            let k = rng.next_u64() % 5_000;
            memo.insert(k, i);
            map.insert(k, i);
        }
        assert_eq!(memo.len(), map.len());
        for k in 0..6_000u64 {
            assert_eq!(memo.get(&k), map.get(&k).copied(), "round {round} key {k}");
        }
        pool = memo.into_pool();
        assert!(pool.bytes() > 0);
    }
    let mut pool = MemoPool::default();
    for start in 1u32..(1 << 10) {
        let l = Line(10, start);
        for (sched, goal_first) in [(Schedule::plain(), true), (Schedule::reference(), true)] {
            let opts = RestartOptions {
                schedule: sched,
                seed: u64::from(start),
                goal_first,
                reserve: 8,
                ..Default::default()
            };
            let key = |p: &u32| *p;
            let fresh = solve(&l, &start, key, &opts);
            let pooled = solve_pooled(&l, &start, key, children_by_moves::<Line>, &opts, &mut pool);
            assert_eq!(fresh, pooled, "start {start:b}");
        }
    }
}

#[test]
fn a_run_within_a_budget_stops_itself_and_a_kept_memo_stays_exact() {
    let start = 0b1011_0110_1101_1011_0110_1101u32;
    let l = Line(24, start);
    let mut s = Searcher::new(&l, |p: &u32| *p, 1 << 20);
    // A set token, a passed deadline: stopped at the first look.
    let cancelled = Budget::unlimited();
    cancelled.cancel.cancel();
    assert_eq!(s.run_within(&start, &cancelled, None), None);
    assert!(s.aborted());
    let late = Budget::time(std::time::Duration::ZERO);
    assert_eq!(s.run_within(&start, &late, None), None);
    assert_eq!(s.expansions, 0);
    // A node limit is a budget's too.
    let few = Budget::unlimited().with_nodes(5);
    assert_eq!(s.run_within(&start, &few, None), None);
    assert!(s.expansions <= 5);
    let want = brute(&l, start);
    assert_eq!(s.run_within(&start, &Budget::unlimited(), None), Some(want));
    assert!(!s.aborted());
    // The memo handed to a new searcher answers at once.
    let memo = s.take_memo();
    let mut t = Searcher::new(&l, |p: &u32| *p, 1 << 20).with_memo(memo);
    assert_eq!(t.known(&start), Some(want));
    assert_eq!(t.run(&start, Some(0), None), Some(want));
}

/// A restart search stopped at caps and by a budget and advanced again
/// ends with the brute force's minimum and a legal line to it, for both
/// phases (goal search, floored best-score search) and restarts cut
/// anywhere in the schedule; a stopped search reports no answer.
#[test]
fn a_restart_search_advanced_in_steps_stays_exact() {
    let (mut stops, mut best_phase) = (0, 0);
    for start in 1u32..(1 << 11) {
        let l = Line(11, start);
        let want = brute(&l, start);
        for goal_first in [true, false] {
            let opts = RestartOptions {
                schedule: Schedule::reference(),
                seed: u64::from(start),
                goal_first,
                ..Default::default()
            };
            let mut pool = MemoPool::default();
            let floor = Some(|p: &u32| u32::from(*p != 0));
            let mut s = RestartSearch::new(
                &l,
                &start,
                |p: &u32| *p,
                children_by_moves::<Line>,
                &opts,
                &mut pool,
                floor,
            );
            // A cancelled budget stops it before any expansion.
            let cancelled = Budget::unlimited();
            cancelled.cancel.cancel();
            assert_eq!(s.advance(u64::MAX, Some(&cancelled)), None);
            assert_eq!(s.expansions(), 0);
            let (mut cap, stops_before) = (0, stops);
            let r = loop {
                cap += 1 + cap / 2;
                if let Some(r) = s.advance(cap, None) {
                    break r;
                }
                assert!(s.expansions() <= cap, "start {start:b}");
                assert!(!s.stopped().complete);
                stops += 1;
            };
            assert!(r.complete && r.expansions <= cap);
            assert_eq!(
                r.best_score, want,
                "start {start:b} goal first {goal_first}"
            );
            let end = r.line.iter().fold(start, |p, &m| {
                assert!(l.is_legal(&p, m));
                l.play_unchecked(&p, m)
            });
            assert_eq!(end.count_ones(), want);
            best_phase += u32::from(goal_first && want > 1 && stops > stops_before);
            assert!(s.into_pool().bytes() > 0);
        }
    }
    // Many stops, among them of unsolvable starts searched goal first
    // (whose searches have both phases).
    assert!(stops > 10_000 && best_phase > 100, "{stops} {best_phase}");
}
