//! The core searchers and the conformance battery on two toy games written
//! here from scratch: one-dimensional peg solitaire on a line (a puzzle,
//! symmetric under reversal) and tic-tac-toe (a game with 8 symmetries).
//! Every fast searcher is checked against brute force.

use endgame_core::astar::{self, AstarOptions};
use endgame_core::budget::Budget;
use endgame_core::conformance::{self, Options, PuzzleValue};
use endgame_core::dfs::{self, DfsOptions};
use endgame_core::genetic::{self, GeneticOptions, WeightGuided};
use endgame_core::layered::{self, LayeredOptions, Silent};
use endgame_core::{Game, Notation, Puzzle, Reversible, Rules, Symmetric, Value};
use std::collections::HashMap;

/// The worked example of ARCHITECTURE.md ("How to add a game"): a
/// two-heap subtraction game in `examples/toy.rs`, whose tests run here.
#[path = "../examples/toy.rs"]
mod example_toy;

/// Peg solitaire on a line of `n` holes: a peg jumps over a neighbour into
/// the empty hole beyond. Goal: one peg (anywhere, or in `target`).
#[derive(Clone)]
struct Line {
    n: u32,
    start: u32,
    target: Option<u32>,
}

impl Line {
    fn full(n: u32) -> u32 {
        (1 << n) - 1
    }
}

/// Move = (from, to) holes.
impl Rules for Line {
    type Position = u32;
    type Move = (u8, u8);
    fn start(&self) -> u32 {
        self.start
    }
    fn for_each_move(&self, p: &u32, mut f: impl FnMut((u8, u8))) {
        for i in 0..self.n {
            if p >> i & 1 == 0 {
                continue;
            }
            if i + 2 < self.n && p >> (i + 1) & 1 == 1 && p >> (i + 2) & 1 == 0 {
                f((i as u8, i as u8 + 2));
            }
            if i >= 2 && p >> (i - 1) & 1 == 1 && p >> (i - 2) & 1 == 0 {
                f((i as u8, i as u8 - 2));
            }
        }
    }
    fn play_unchecked(&self, p: &u32, (a, b): (u8, u8)) -> u32 {
        let over = (a as u32 + b as u32) / 2;
        p ^ (1 << a) ^ (1 << over) ^ (1 << b)
    }
}

impl Puzzle for Line {
    fn score(&self, p: &u32) -> u32 {
        p.count_ones()
    }
    fn is_goal(&self, p: &u32) -> bool {
        match self.target {
            Some(t) => *p == 1 << t,
            None => p.count_ones() == 1,
        }
    }
    fn score_bound(&self) -> u32 {
        1
    }
}

impl Symmetric for Line {
    fn symmetry_count(&self) -> usize {
        // Reversal preserves the start and the goal only when both are
        // palindromes.
        let rev = |p: u32| p.reverse_bits() >> (32 - self.n);
        let goal_ok = self.target.is_none_or(|t| t == self.n - 1 - t);
        if rev(self.start) == self.start && goal_ok {
            2
        } else {
            1
        }
    }
    fn apply_symmetry(&self, i: usize, p: &u32) -> u32 {
        if i == 0 {
            *p
        } else {
            p.reverse_bits() >> (32 - self.n)
        }
    }
}

impl Reversible for Line {
    fn goals(&self) -> Vec<u32> {
        match self.target {
            Some(t) => vec![1 << t],
            None => (0..self.n).map(|i| 1 << i).collect(),
        }
    }
    fn for_each_parent(&self, p: &u32, mut f: impl FnMut(u32)) {
        // A parent had pegs on `from` and `over`, an empty `to`, where the
        // child has a peg only on `to`.
        for to in 0..self.n {
            if p >> to & 1 == 0 {
                continue;
            }
            for (over, from) in [
                (to as i64 + 1, to as i64 + 2),
                (to as i64 - 1, to as i64 - 2),
            ] {
                if from < 0 || from >= self.n as i64 {
                    continue;
                }
                if p >> over & 1 == 0 && p >> from & 1 == 0 {
                    f(p ^ (1 << from) ^ (1 << over) ^ (1 << to));
                }
            }
        }
    }
}

impl Notation for Line {
    type Error = std::fmt::Error;
    fn format_move(&self, (a, b): (u8, u8)) -> String {
        format!("{a}-{b}")
    }
    fn parse_move(&self, s: &str) -> Result<(u8, u8), std::fmt::Error> {
        let (a, b) = s.split_once('-').ok_or(std::fmt::Error)?;
        Ok((
            a.parse().map_err(|_| std::fmt::Error)?,
            b.parse().map_err(|_| std::fmt::Error)?,
        ))
    }
    fn format_position(&self, p: &u32) -> String {
        (0..self.n)
            .map(|i| if p >> i & 1 == 1 { 'o' } else { '.' })
            .collect()
    }
    fn parse_position(&self, s: &str) -> Result<u32, std::fmt::Error> {
        if s.len() != self.n as usize {
            return Err(std::fmt::Error);
        }
        s.chars().enumerate().try_fold(0, |acc, (i, c)| match c {
            'o' => Ok(acc | 1 << i),
            '.' => Ok(acc),
            _ => Err(std::fmt::Error),
        })
    }
}

impl WeightGuided for Line {
    fn class_count(&self) -> usize {
        self.n as usize
    }
    fn weighted_total(&self, p: &u32, w: &[u32]) -> i64 {
        (0..self.n)
            .filter(|i| p >> i & 1 == 1)
            .map(|i| w[i as usize] as i64)
            .sum()
    }
    fn goal_distance(&self, p: &u32) -> u32 {
        match self.target {
            Some(t) => (p ^ (1 << t)).count_ones(),
            None => p.count_ones() - 1,
        }
    }
}

/// Brute force without memo or symmetry: (best score, number of solutions).
fn brute(l: &Line, p: u32) -> (u32, u128) {
    let mut best = l.score(&p);
    let mut sols = l.is_goal(&p) as u128;
    for m in l.moves(&p) {
        let (b, s) = brute(l, l.play_unchecked(&p, m));
        best = best.min(b);
        sols += s;
    }
    (best, sols)
}

fn naive_moves(l: &Line, p: &u32) -> Vec<(u8, u8)> {
    let mut v = Vec::new();
    for a in 0..l.n {
        for b in 0..l.n {
            if a.abs_diff(b) == 2 {
                let over = (a + b) / 2;
                if p >> a & 1 == 1 && p >> over & 1 == 1 && p >> b & 1 == 0 {
                    v.push((a as u8, b as u8));
                }
            }
        }
    }
    v
}

/// Every start with one or two holes on lines of 4..=11 holes.
fn line_problems() -> Vec<Line> {
    let mut v = Vec::new();
    for n in 4..=11u32 {
        for hole in 0..n {
            for target in [None, Some(hole), Some(n - 1 - hole)] {
                v.push(Line {
                    n,
                    start: Line::full(n) & !(1 << hole),
                    target,
                });
            }
            let second = (hole + 3) % n;
            v.push(Line {
                n,
                start: Line::full(n) & !(1 << hole) & !(1 << second),
                target: None,
            });
        }
    }
    v
}

#[test]
fn line_puzzle_passes_the_conformance_battery() {
    for l in line_problems() {
        let opts = Options::puzzle(&l)
            .playouts(7, 20)
            .naive_moves(|p| naive_moves(&l, p))
            .reversible(&l)
            .exhaustive_when(|_| true);
        let r = conformance::battery(&l, opts).unwrap();
        assert_eq!(r.compared, r.exhaustive);
        assert!(r.checks.contains(&"parents"), "{r:?}");
    }
}

/// A line puzzle whose pruning lies: it rules out every position of more
/// than two pegs.
struct Lying<'a>(&'a Line);

impl Rules for Lying<'_> {
    type Position = u32;
    type Move = (u8, u8);
    fn start(&self) -> u32 {
        self.0.start()
    }
    fn for_each_move(&self, p: &u32, f: impl FnMut((u8, u8))) {
        self.0.for_each_move(p, f)
    }
    fn play_unchecked(&self, p: &u32, m: (u8, u8)) -> u32 {
        self.0.play_unchecked(p, m)
    }
}

impl Puzzle for Lying<'_> {
    fn score(&self, p: &u32) -> u32 {
        self.0.score(p)
    }
    fn is_goal(&self, p: &u32) -> bool {
        self.0.is_goal(p)
    }
    fn score_bound(&self) -> u32 {
        1
    }
    fn cannot_reach_goal(&self, p: &u32) -> bool {
        p.count_ones() > 2
    }
}

impl Symmetric for Lying<'_> {
    fn symmetry_count(&self) -> usize {
        self.0.symmetry_count()
    }
    fn apply_symmetry(&self, i: usize, p: &u32) -> u32 {
        self.0.apply_symmetry(i, p)
    }
}

impl Notation for Lying<'_> {
    type Error = std::fmt::Error;
    fn format_move(&self, m: (u8, u8)) -> String {
        self.0.format_move(m)
    }
    fn parse_move(&self, s: &str) -> Result<(u8, u8), std::fmt::Error> {
        self.0.parse_move(s)
    }
    fn format_position(&self, p: &u32) -> String {
        self.0.format_position(p)
    }
    fn parse_position(&self, s: &str) -> Result<u32, std::fmt::Error> {
        self.0.parse_position(s)
    }
}

#[test]
fn the_battery_catches_unsound_pruning_and_a_wrong_solver() {
    // `oo.o` is solved by 0-2, 3-1.
    let l = Line {
        n: 4,
        start: 0b1011,
        target: None,
    };
    let lying = Lying(&l);
    let opts = Options::puzzle(&lying).exhaustive_when(|_| true);
    let err = conformance::battery(&lying, opts).unwrap_err();
    assert!(err.contains("pruned a position"), "{err}");
    // Pruning that never fires is caught when some is expected.
    let opts = Options::puzzle(&l).exhaustive_when(|_| true).min_pruned(1);
    assert!(conformance::battery(&l, opts).is_err());
    // A solver that never finds the goal.
    let opts = Options::puzzle(&l)
        .exhaustive_when(|_| true)
        .solver(|_| PuzzleValue {
            reaches_goal: false,
            best_score: 2,
        });
    assert!(conformance::battery(&l, opts).is_err());
    // No exhaustive position: the exhaustive checks do not run.
    let r = conformance::battery(&l, Options::puzzle(&l)).unwrap();
    assert_eq!((r.exhaustive, r.compared), (0, 0));
}

#[test]
fn dfs_agrees_with_brute_force() {
    for l in line_problems() {
        let (best, sols) = brute(&l, l.start);
        for sym in [false, true] {
            for pruning in [false, true] {
                let opts = DfsOptions {
                    use_symmetry: sym,
                    use_pruning: pruning,
                    ..Default::default()
                };
                let r = dfs::solve(&l, &l.start, &opts);
                assert!(r.complete);
                assert_eq!(r.reached_goal, sols > 0, "n={} start={:b}", l.n, l.start);
                let end = r
                    .line
                    .iter()
                    .fold(l.start, |p, &m| l.play(&p, m).expect("legal line"));
                assert_eq!(l.is_goal(&end), r.reached_goal);
                if !r.reached_goal {
                    assert_eq!(r.best_score, best);
                    assert_eq!(end.count_ones(), best);
                }
                let b = dfs::best(&l, &l.start, &opts);
                assert_eq!(b.best_score, best);
            }
        }
    }
}

#[test]
fn dfs_budget_is_respected_and_reported() {
    let l = Line {
        n: 11,
        start: Line::full(11) & !(1 << 5),
        target: Some(5),
    };
    let r = dfs::solve(
        &l,
        &l.start,
        &DfsOptions {
            max_expansions: Some(3),
            ..Default::default()
        },
    );
    assert!(r.expansions <= 3, "{} expansions", r.expansions);
    assert!(!r.complete || r.reached_goal);
    // An undecided search still reports the best line it met.
    let end = r
        .line
        .iter()
        .fold(l.start, |p, &m| l.play(&p, m).expect("legal line"));
    assert_eq!(end.count_ones(), r.best_score);
    assert!(r.best_score < l.start.count_ones(), "no progress reported");
}

#[test]
fn layered_counts_agree_with_brute_force() {
    for l in line_problems() {
        let (best, sols) = brute(&l, l.start);
        let r = layered::enumerate(&l, &LayeredOptions::default(), &Silent).unwrap();
        assert_eq!(
            r.solutions,
            Some(sols),
            "n={} start={:b} target={:?}",
            l.n,
            l.start,
            l.target
        );
        assert_eq!(r.goal_reachable, sols > 0);
        assert_eq!(r.best_score, best);
        // Raw layer counts against plain breadth-first enumeration.
        let mut layer = vec![l.start];
        for stats in &r.layers {
            assert_eq!(stats.raw, layer.len() as u64);
            let mut next: Vec<u32> = layer
                .iter()
                .flat_map(|p| l.moves(p).into_iter().map(move |m| (p, m)))
                .map(|(p, m)| l.play_unchecked(p, m))
                .collect();
            next.sort_unstable();
            next.dedup();
            layer = next;
        }
        assert!(layer.is_empty());
        // Goal-reaching raw counts against brute force per position.
        let mut layer = vec![l.start];
        for stats in &r.layers {
            let good = layer.iter().filter(|&&p| brute(&l, p).1 > 0).count() as u64;
            assert_eq!(stats.to_goal_raw, good);
            let mut next: Vec<u32> = layer
                .iter()
                .flat_map(|p| {
                    let l = &l;
                    l.moves(p).into_iter().map(move |m| l.play_unchecked(p, m))
                })
                .collect();
            next.sort_unstable();
            next.dedup();
            layer = next;
        }
    }
}

#[test]
fn layered_enumeration_honours_its_memory_budget() {
    let l = Line {
        n: 11,
        start: Line::full(11) & !1,
        target: None,
    };
    let e = layered::enumerate(
        &l,
        &LayeredOptions {
            max_bytes: 16,
            ..Default::default()
        },
        &Silent,
    );
    assert!(matches!(e, Err(layered::LayeredError::MemoryBudget { .. })));
}

#[test]
fn layered_enumeration_stops_on_a_cancel_or_a_passed_deadline() {
    let l = Line {
        n: 11,
        start: Line::full(11) & !1,
        target: None,
    };
    let cancelled = endgame_core::budget::Budget::unlimited();
    cancelled.cancel.cancel();
    let late = endgame_core::budget::Budget::time(std::time::Duration::ZERO);
    for budget in [cancelled, late] {
        let opts = LayeredOptions {
            budget,
            ..Default::default()
        };
        let e = layered::enumerate(&l, &opts, &Silent);
        assert!(
            matches!(e, Err(layered::LayeredError::Stopped { .. })),
            "{e:?}"
        );
    }
    // The same enumeration with time to spare finishes.
    let opts = LayeredOptions {
        budget: endgame_core::budget::Budget::time(std::time::Duration::from_secs(600)),
        ..Default::default()
    };
    assert!(layered::enumerate(&l, &opts, &Silent).is_ok());
}

#[test]
fn astar_finds_a_solution_exactly_when_one_exists() {
    let h = |_: &Line, p: &u32| p.count_ones() as i64;
    for l in line_problems() {
        let (_, sols) = brute(&l, l.start);
        for g_weight in [0, 1] {
            let r = astar::search(
                &l,
                &l.start,
                &h,
                &AstarOptions {
                    g_weight,
                    ..Default::default()
                },
            );
            match r.line {
                Some(line) => {
                    assert!(sols > 0);
                    let end = line
                        .iter()
                        .fold(l.start, |p, &m| l.play(&p, m).expect("legal"));
                    assert!(l.is_goal(&end));
                }
                None => {
                    assert_eq!(sols, 0, "n={} start={:b}", l.n, l.start);
                    assert!(r.exhausted);
                }
            }
        }
    }
}

#[test]
fn dfs_and_astar_stop_on_a_cancelled_or_expired_budget() {
    use endgame_core::budget::Budget;
    use endgame_core::dfs::{self, DfsOptions};
    let h = |_: &Line, p: &u32| p.count_ones() as i64;
    let l = line_problems()
        .into_iter()
        .max_by_key(|l| l.n)
        .expect("a line");
    let cancelled = Budget::unlimited();
    cancelled.cancel.cancel();
    let expired = Budget::time(std::time::Duration::ZERO);
    for budget in [cancelled, expired, Budget::unlimited().with_nodes(0)] {
        let r = dfs::solve(
            &l,
            &l.start,
            &DfsOptions {
                budget: budget.clone(),
                ..Default::default()
            },
        );
        assert!(!r.complete && r.expansions == 0, "{budget:?}: {r:?}");
        let a = astar::search(
            &l,
            &l.start,
            &h,
            &AstarOptions {
                budget: budget.clone(),
                ..Default::default()
            },
        );
        // Stopped, not exhausted: nothing is claimed unreachable.
        assert!(a.line.is_none() && !a.exhausted && a.expansions == 0);
    }
    // The same searches with an unlimited budget decide.
    let r = dfs::solve(&l, &l.start, &DfsOptions::default());
    assert!(r.complete);
}

#[test]
fn genetic_search_is_reproducible_and_solves_solvable_lines() {
    let l = (9..=11u32)
        .flat_map(|n| {
            (0..n).map(move |h| Line {
                n,
                start: Line::full(n) & !(1 << h),
                target: None,
            })
        })
        .find(|l| brute(l, l.start).1 > 0)
        .expect("some line is solvable");
    let opts = GeneticOptions {
        threshold: 5,
        population: 6,
        offspring: 10,
        restarts: 5,
        seed: 42,
        ..Default::default()
    };
    let a = genetic::search(&l, &opts);
    let b = genetic::search(&l, &opts);
    assert!(a.solved);
    assert_eq!(a.best.weights, b.best.weights);
    assert_eq!(a.evaluations, b.evaluations);
    let end = a
        .best
        .line
        .iter()
        .fold(l.start, |p, &m| l.play(&p, m).expect("legal"));
    assert!(l.is_goal(&end));
    // An unsolvable line is never reported solved.
    let u = Line {
        n: 6,
        start: 0b100101,
        target: None,
    };
    assert_eq!(brute(&u, u.start).1, 0);
    let r = genetic::search(
        &u,
        &GeneticOptions {
            threshold: 3,
            population: 4,
            offspring: 3,
            restarts: 2,
            ..Default::default()
        },
    );
    assert!(!r.solved);
    assert!(r.best.fitness < 0);
    assert!(!r.stopped);
    // A spent budget stops the search before it starts, and a node limit
    // ends it early: neither claims a solution, both say they stopped.
    let big = GeneticOptions {
        threshold: 3,
        population: 4,
        offspring: 50,
        restarts: 50,
        ..Default::default()
    };
    let cancel = endgame_core::budget::Cancel::new();
    cancel.cancel();
    let none = genetic::search(
        &u,
        &GeneticOptions {
            budget: Budget::unlimited().with_cancel(cancel),
            ..big.clone()
        },
    );
    assert!(none.stopped && !none.solved);
    assert_eq!(none.evaluations, 0);
    let full = genetic::search(&u, &big);
    let few = genetic::search(
        &u,
        &GeneticOptions {
            budget: Budget::unlimited().with_nodes(full.expansions / 4),
            ..big.clone()
        },
    );
    assert!(few.stopped && !few.solved);
    assert!(few.evaluations < full.evaluations);
}

/// Tic-tac-toe: cells 0..9 row-major; position = (x bits, o bits).
struct TicTacToe;

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn won(bits: u16) -> bool {
    LINES.iter().any(|l| l.iter().all(|&c| bits >> c & 1 == 1))
}

impl Rules for TicTacToe {
    type Position = (u16, u16);
    type Move = u8;
    fn start(&self) -> (u16, u16) {
        (0, 0)
    }
    fn for_each_move(&self, &(x, o): &(u16, u16), mut f: impl FnMut(u8)) {
        if won(x) || won(o) {
            return;
        }
        for c in 0..9 {
            if (x | o) >> c & 1 == 0 {
                f(c);
            }
        }
    }
    fn play_unchecked(&self, &(x, o): &(u16, u16), c: u8) -> (u16, u16) {
        if x.count_ones() == o.count_ones() {
            (x | 1 << c, o)
        } else {
            (x, o | 1 << c)
        }
    }
}

impl Game for TicTacToe {
    fn outcome(&self, &(x, o): &(u16, u16)) -> Option<Value> {
        // The player who just moved may have won: a loss for the mover.
        if won(x) || won(o) {
            Some(Value::Loss)
        } else if (x | o).count_ones() == 9 {
            Some(Value::Draw)
        } else {
            None
        }
    }
}

const PERMS: [[usize; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
    [6, 3, 0, 7, 4, 1, 8, 5, 2],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [2, 5, 8, 1, 4, 7, 0, 3, 6],
    [2, 1, 0, 5, 4, 3, 8, 7, 6],
    [6, 7, 8, 3, 4, 5, 0, 1, 2],
    [0, 3, 6, 1, 4, 7, 2, 5, 8],
    [8, 5, 2, 7, 4, 1, 6, 3, 0],
];

impl Symmetric for TicTacToe {
    fn symmetry_count(&self) -> usize {
        8
    }
    fn apply_symmetry(&self, i: usize, &(x, o): &(u16, u16)) -> (u16, u16) {
        let map = |b: u16| {
            (0..9)
                .filter(|&c| b >> c & 1 == 1)
                .fold(0u16, |a, c| a | 1 << PERMS[i][c])
        };
        (map(x), map(o))
    }
}

/// Cells `x`, `o` or `.` row by row; a move is its cell's digit.
impl Notation for TicTacToe {
    type Error = std::fmt::Error;
    fn format_move(&self, c: u8) -> String {
        c.to_string()
    }
    fn parse_move(&self, s: &str) -> Result<u8, std::fmt::Error> {
        s.parse().ok().filter(|&c| c < 9).ok_or(std::fmt::Error)
    }
    fn format_position(&self, &(x, o): &(u16, u16)) -> String {
        (0..9)
            .map(|c| match (x >> c & 1, o >> c & 1) {
                (1, _) => 'x',
                (_, 1) => 'o',
                _ => '.',
            })
            .collect()
    }
    fn parse_position(&self, s: &str) -> Result<(u16, u16), std::fmt::Error> {
        if s.len() != 9 {
            return Err(std::fmt::Error);
        }
        s.chars()
            .enumerate()
            .try_fold((0, 0), |(x, o), (c, ch)| match ch {
                'x' => Ok((x | 1 << c, o)),
                'o' => Ok((x, o | 1 << c)),
                '.' => Ok((x, o)),
                _ => Err(std::fmt::Error),
            })
    }
}

fn negamax(g: &TicTacToe, p: (u16, u16), memo: &mut HashMap<(u16, u16), i8>) -> i8 {
    if let Some(v) = g.outcome(&p) {
        return match v {
            Value::Loss => -1,
            _ => 0,
        };
    }
    if let Some(&v) = memo.get(&p) {
        return v;
    }
    let v = g
        .moves(&p)
        .into_iter()
        .map(|m| -negamax(g, g.play_unchecked(&p, m), memo))
        .max()
        .unwrap();
    memo.insert(p, v);
    v
}

#[test]
fn tic_tac_toe_passes_the_battery_and_symmetry_preserves_values() {
    let g = TicTacToe;
    let positions = conformance::random_game_positions(&g, 3, 200);
    let naive = |&(x, o): &(u16, u16)| -> Vec<u8> {
        if won(x) || won(o) {
            return vec![];
        }
        (0..9u8).filter(|&c| (x | o) >> c & 1 == 0).collect()
    };
    conformance::check_move_generation(&g, &positions, naive).unwrap();
    conformance::check_symmetry(&g, &positions).unwrap();
    conformance::check_game_terminals(&g, &positions).unwrap();
    // The battery: every position is small enough for brute force; the
    // negamax below is the solver checked against it.
    let memo = std::cell::RefCell::new(HashMap::new());
    let value = |p: &(u16, u16)| match negamax(&g, *p, &mut memo.borrow_mut()) {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    };
    let opts = Options::game(&g)
        .playouts(3, 200)
        .naive_moves(naive)
        .exhaustive_when(|_| true)
        .value_solver(value);
    let r = conformance::battery(&g, opts).unwrap();
    assert!(r.compared > 500, "{r:?}");
    // A solver that calls every position a draw is caught.
    let opts = Options::game(&g)
        .exhaustive_when(|_| true)
        .value_solver(|_| Value::Draw);
    assert!(conformance::battery(&g, opts).is_err());
    let mut memo = HashMap::new();
    assert_eq!(
        negamax(&g, g.start(), &mut memo),
        0,
        "tic-tac-toe is a draw"
    );
    for p in &positions {
        let v = negamax(&g, *p, &mut memo);
        for i in 0..8 {
            assert_eq!(negamax(&g, g.apply_symmetry(i, p), &mut memo), v);
        }
    }
}

#[test]
fn the_battery_catches_a_broken_generator() {
    let l = Line {
        n: 7,
        start: Line::full(7) & !(1 << 3),
        target: None,
    };
    let positions = conformance::random_positions(&l, 1, 5);
    // A naive generator that forgets leftward jumps must be caught.
    let forgetful = |p: &u32| {
        naive_moves(&l, p)
            .into_iter()
            .filter(|(a, b)| a < b)
            .collect::<Vec<_>>()
    };
    assert!(conformance::check_move_generation(&l, &positions, forgetful).is_err());
}

#[test]
fn goal_table_agrees_with_brute_force_near_the_goal() {
    use endgame_core::goal_table::GoalTable;
    for l in line_problems().into_iter().filter(|l| l.n <= 9) {
        let t = GoalTable::build(&l, 200);
        assert!(!t.is_empty());
        for pos in 0..(1u32 << l.n) {
            match t.decides(&l, &pos) {
                Some(ok) => {
                    assert_eq!(ok, brute(&l, pos).1 > 0, "n={} pos={pos:b}", l.n);
                    if ok {
                        let line = t.line_to_goal(&l, &pos).expect("a line");
                        let end = line.iter().fold(pos, |p, &m| l.play(&p, m).expect("legal"));
                        assert!(l.is_goal(&end));
                    }
                }
                None => assert!(pos.count_ones() > t.max_score()),
            }
        }
    }
}

#[test]
fn astar_stops_before_its_stores_outgrow_the_memory_budget() {
    use endgame_core::budget::Budget;
    let h = |_: &Line, p: &u32| p.count_ones() as i64;
    let opts = |budget: Budget| AstarOptions {
        use_pruning: false,
        use_symmetry: false,
        budget,
        ..Default::default()
    };
    // The line whose exhaustive search holds the most.
    let (l, free) = line_problems()
        .into_iter()
        .map(|l| {
            let r = astar::search(&l, &l.start, &h, &opts(Budget::unlimited()));
            (l, r)
        })
        .filter(|(_, r)| r.exhausted)
        .max_by_key(|(_, r)| r.memory_bytes)
        .expect("an unsolvable line");
    assert!(!free.out_of_memory && free.memory_bytes > 1024, "{free:?}");
    // Half of what it held: stopped, within the budget, nothing claimed.
    let limit = free.memory_bytes / 2;
    let r = astar::search(
        &l,
        &l.start,
        &h,
        &opts(Budget::unlimited().with_memory(limit)),
    );
    assert!(r.out_of_memory && !r.exhausted && r.line.is_none(), "{r:?}");
    assert!(r.memory_bytes <= limit, "{} > {limit}", r.memory_bytes);
    assert!(r.expansions < free.expansions);
    // Room for every growth: the same search as without a budget.
    let r = astar::search(
        &l,
        &l.start,
        &h,
        &opts(Budget::unlimited().with_memory(3 * free.memory_bytes)),
    );
    assert!(!r.out_of_memory && r.exhausted && r.expansions == free.expansions);
}
