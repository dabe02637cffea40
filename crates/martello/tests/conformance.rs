//! The conformance battery and cross-checks against the brute force over
//! raw boards.

use endgame_core::conformance::{self, random_positions, Options, PuzzleValue};
use endgame_core::restarts::{Children, Schedule};
use endgame_core::{Puzzle, Rules};
use endgame_martello::board::{Board, EMPTY};
use endgame_martello::real::{real_moves, RealMove};
use endgame_martello::solver::{self, SolveOptions, SymmetryMode};
use endgame_martello::{brute, Martello, Op, State};

fn game(n: usize, seed: u64) -> Martello {
    Martello::new(n, State::from_board(&Board::random(n, seed).unwrap())).unwrap()
}

/// The naive operation generator: every eat of every raw board reachable
/// by slides, as (eater, eaten).
fn naive_ops(m: &Martello, s: &State) -> Vec<Op> {
    let mut v: Vec<Op> = brute::operations(&s.to_board(m.n()))
        .into_iter()
        .map(|((a, b), _)| Op { eater: a, eaten: b })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The exact value by the solver (memo, symmetry, pruning), its tables
/// reused through `pool`.
fn solved(n: usize, p: &State, pool: &mut solver::Pool) -> PuzzleValue {
    let m = Martello::new(n, *p).unwrap();
    let s = solver::solve_pooled(&m, &SolveOptions::default(), pool);
    assert!(s.complete);
    PuzzleValue {
        reaches_goal: s.solvable,
        best_score: s.min_stones,
    }
}

/// The exact value by brute force over raw boards with explicit slides.
fn brute_value(n: usize, p: &State) -> PuzzleValue {
    let best = brute::min_stones(&p.to_board(n));
    PuzzleValue {
        reaches_goal: best == 1,
        best_score: best,
    }
}

/// The core battery on random playouts, n = 1 … 6: operations against the
/// naive generator over raw boards, symmetry, notation; and on the small
/// positions of n = 3 and 4 the exhaustive checks against the brute force
/// over raw boards: the "doomed" pruning never discards a solvable
/// position, the solver's minimum, value consistency and symmetric images.
#[test]
fn battery_on_random_playouts() {
    for n in 1..=6 {
        for seed in 0..3 {
            let m = game(n, seed);
            let opts = Options::puzzle(&m)
                .playouts(seed, 4)
                .naive_moves(|p| naive_ops(&m, p));
            conformance::battery(&m, opts).unwrap();
        }
    }
    // Small positions: every one of n = 3, at most 10 or 11 stones for
    // n = 4 (random starts 500… and 700…).
    let mut pruned = 0;
    let pool = std::cell::RefCell::new(solver::Pool::default());
    for (n, first, seeds, playouts, max_stones) in [
        (3, 500, 40, 3, 9),
        (3, 700, 60, 4, 9),
        (4, 500, 3, 1, 11),
        (4, 700, 6, 4, 10),
    ] {
        for seed in 0..seeds {
            let m = game(n, first + seed);
            let opts = Options::puzzle(&m)
                .playouts(seed, playouts)
                .naive_moves(|p| naive_ops(&m, p))
                .exhaustive_when(|p| p.stones() <= max_stones)
                .solver(|p| solved(n, p, &mut pool.borrow_mut()))
                .brute_force(|p| brute_value(n, p));
            let r = conformance::battery(&m, opts).unwrap_or_else(|e| panic!("n {n}: {e}"));
            assert_eq!(r.compared, r.exhaustive);
            pruned += r.pruned;
        }
    }
    assert!(
        pruned > 20,
        "the battery saw only {pruned} pruned positions"
    );
}

#[test]
fn every_realisation_of_an_operation_gives_the_same_normalised_state() {
    for n in 2..=5 {
        for seed in 0..4 {
            let m = game(n, 100 + seed);
            for p in random_positions(&m, seed, 3) {
                for ((a, b), child) in brute::operations(&p.to_board(n)) {
                    let op = Op { eater: a, eaten: b };
                    assert_eq!(
                        State::from_board(&child),
                        m.play_unchecked(&p, op),
                        "op {op:?} from {}",
                        p.to_board(n)
                    );
                }
            }
        }
    }
}

#[test]
fn minimum_matches_brute_force_on_random_starts() {
    let opts = SolveOptions::default();
    for (n, games) in [(1, 1), (2, 200), (3, 400)] {
        for seed in 0..games {
            let b = Board::random(n, seed).unwrap();
            let m = Martello::new(n, State::from_board(&b)).unwrap();
            let want = brute::min_stones(&b);
            let got = solver::solve(&m, &opts);
            assert!(got.complete);
            assert_eq!(got.min_stones, want, "n {n} board {b}");
        }
    }
}

fn check_real(m: &Martello, s: &State, op: Op) {
    let n = m.n();
    let child = m.play_unchecked(s, op);
    let moves = real_moves(m, s, op).unwrap();
    let mut b = s.to_board(n);
    let mut eaten = false;
    for mv in &moves {
        match *mv {
            RealMove::Slide { stone, from, to } => {
                assert_eq!(from.0, to.0, "slides stay in their row");
                assert_eq!(b.get(from.0 as usize, from.1 as usize), stone);
                let (lo, hi) = (from.1.min(to.1), from.1.max(to.1));
                let r = from.0 as usize;
                let clear = (lo..=hi)
                    .filter(|&c| c != from.1)
                    .all(|c| b.get(r, c as usize) == EMPTY);
                assert!(clear, "slide over a stone: {mv:?} on {b}");
                mv.apply(&mut b);
            }
            RealMove::Eat {
                stone,
                eaten: e,
                from,
                to,
            } => {
                assert!(!eaten, "one eat per operation");
                eaten = true;
                b.validate().unwrap();
                let legal = brute::eats(&b).contains(&brute::Eat {
                    from: (from.0 as usize, from.1 as usize),
                    to: (to.0 as usize, to.1 as usize),
                });
                assert!(legal, "eat {mv:?} not legal on {b}");
                assert_eq!((stone, e), (op.eater, op.eaten));
                mv.apply(&mut b);
            }
        }
    }
    assert!(eaten);
    assert_eq!(
        b,
        child.to_board(n),
        "real moves of {op:?} from {}",
        s.to_board(n)
    );
}

#[test]
fn real_moves_are_legal_and_reach_the_child() {
    for n in 2..=6 {
        for seed in 0..4 {
            let m = game(n, 900 + seed);
            for p in random_positions(&m, seed, 3) {
                for op in m.moves(&p) {
                    check_real(&m, &p, op);
                }
            }
        }
    }
}

#[test]
fn solver_variants_agree_and_lines_are_legal() {
    for n in 3..=5 {
        for seed in 0..25 {
            let m = game(n, seed);
            let plain = solver::solve(&m, &SolveOptions::default());
            assert!(plain.complete);
            for (sym, sched) in [
                (SymmetryMode::Mirror, Schedule::plain()),
                (SymmetryMode::Full, Schedule::plain()),
                (SymmetryMode::None, Schedule::reference()),
                (SymmetryMode::Full, Schedule::geometric(50, 2, 8)),
            ] {
                let opts = SolveOptions {
                    symmetry: sym,
                    schedule: sched,
                    seed,
                    ordered: seed % 2 == 0,
                    ..Default::default()
                };
                let r = solver::solve(&m, &opts);
                assert_eq!(r.min_stones, plain.min_stones, "n {n} seed {seed} {sym:?}");
                assert_eq!(r.line.len(), r.ops.len() + 1);
                let mut s = m.start();
                for (&op, next) in r.ops.iter().zip(&r.line[1..]) {
                    s = m.play(&s, op).expect("line is legal");
                    assert_eq!(s, *next);
                }
                assert_eq!(m.score(&s), r.min_stones);
            }
            let (v, _) = solver::min_stones(&m, SymmetryMode::None, 1 << 26);
            assert_eq!(v, plain.min_stones);
        }
    }
}

#[test]
fn hints_agree_with_the_solver() {
    for seed in 0..10 {
        let m = game(4, seed);
        let start = m.start();
        let hints = solver::hints(&m, &start, u64::MAX, 1 << 26);
        assert_eq!(hints.len(), m.moves(&start).len());
        let best = hints.iter().filter_map(|h| h.min_stones).min();
        let plain = solver::solve(&m, &SolveOptions::default());
        if !hints.is_empty() {
            assert_eq!(best, Some(plain.min_stones));
        }
        for h in &hints {
            let child = Martello::new(4, h.child).unwrap();
            assert_eq!(
                h.min_stones,
                Some(solver::solve(&child, &SolveOptions::default()).min_stones)
            );
        }
        let tight = solver::hints(&m, &start, 1, 1 << 26);
        assert!(tight.iter().any(|h| h.min_stones.is_none()) || hints.is_empty());
    }
}

/// Classes of "shares colour or symbol" by union-find, the slow way.
fn classes(n: usize, stones: &[u8]) -> usize {
    let mut parent: Vec<usize> = (0..stones.len()).collect();
    fn root(p: &mut Vec<usize>, i: usize) -> usize {
        if p[i] != i {
            let r = root(p, p[i]);
            p[i] = r;
        }
        p[i]
    }
    for i in 0..stones.len() {
        for j in 0..i {
            if brute::compatible(n, stones[i], stones[j]) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
    }
    (0..stones.len())
        .filter(|&i| root(&mut parent, i) == i)
        .count()
}

#[test]
fn presence_masks_and_connectivity_match_the_slow_way() {
    for n in 2..=7 {
        for seed in 0..4 {
            let m = game(n, 300 + seed);
            for p in random_positions(&m, seed, 3) {
                let stones: Vec<u8> = (0..n).flat_map(|r| p.row(r)).collect();
                let mask = stones.iter().fold(0u64, |a, &z| a | 1 << z);
                assert_eq!(p.present, mask);
                assert_eq!(m.connected(&p), classes(n, &stones) <= 1);
                assert_eq!(p.doomed, m.split(&p) || !m.connected(&p));
                assert_eq!(p, State::from_board(&p.to_board(n)));
            }
        }
    }
}

/// On unsolvable starts the best-score search begins from the failed goal
/// search's exact values (`restarts::INEXACT`): it must find what a
/// best-score search alone finds, with a legal line, with a roomy or a
/// tiny memo.
#[test]
fn unsolvable_starts_agree_with_the_exact_search_alone() {
    let mut unsolvable = 0;
    for (n, games) in [(4, 600), (5, 600), (6, 300)] {
        for i in 0..games {
            let b = Board::random(n, 9_000 + i).unwrap();
            let m = Martello::new(n, State::from_board(&b)).unwrap();
            let first = solver::solve(&m, &SolveOptions::default());
            if first.solvable {
                continue;
            }
            unsolvable += 1;
            let alone = solver::solve(
                &m,
                &SolveOptions {
                    goal_first: false,
                    ..Default::default()
                },
            );
            // A tiny memo (re-exploring all the time) only where that
            // stays cheap.
            let memos: &[usize] = if n == 4 {
                &[1 << 30, 1 << 14]
            } else {
                &[1 << 30]
            };
            for &memo in memos {
                let r = solver::solve(
                    &m,
                    &SolveOptions {
                        max_memo_bytes: memo,
                        schedule: Schedule::reference(),
                        seed: i,
                        ..Default::default()
                    },
                );
                assert!(r.complete);
                assert_eq!(r.min_stones, alone.min_stones, "n {n} board {b}");
                let end = r
                    .ops
                    .iter()
                    .fold(m.start(), |s, &op| m.play(&s, op).expect("legal line"));
                assert_eq!(m.score(&end), r.min_stones);
            }
        }
    }
    assert!(unsolvable >= 5, "only {unsolvable} unsolvable starts");
}

/// The bit-parallel class test against union–find on random stone sets
/// of every density (sparse sets are often split), n = 1 … 8.
#[test]
fn connectivity_matches_union_find_on_random_stone_sets() {
    use endgame_core::restarts::Rng;
    use endgame_martello::state::connected_mask;
    let mut rng = Rng::new(11);
    let mut split = 0;
    for n in 1..=8 {
        for _ in 0..4000 {
            let keep = rng.below(n * n + 1);
            let stones: Vec<u8> = (0..(n * n) as u8)
                .filter(|_| rng.below(n * n) < keep)
                .collect();
            let mask = stones.iter().fold(0u64, |a, &z| a | 1 << z);
            let want = classes(n, &stones) <= 1;
            split += usize::from(!want);
            assert_eq!(connected_mask(n, mask), want, "n {n} stones {stones:?}");
        }
    }
    assert!(split > 2000, "only {split} split sets");
}

/// The lazy expansion yields, in the same order, exactly the built
/// children's operations, keys, scores, goal and prune flags, and builds
/// the same states: on every position of random playouts, n = 1 … 6.
#[test]
fn lazy_children_match_the_built_children() {
    use endgame_core::restarts::Rng;
    let mut checked = 0;
    for n in 1..=8 {
        for seed in 0..30 {
            let m = game(n, seed);
            let mut rng = Rng::new(seed * 7 + n as u64);
            let mut s = m.start();
            loop {
                let built = m.children(&s);
                // The wide key (n = 7, 8 in the solver) on every n: the
                // same children, keys equal to `key7` of the built ones.
                let mut wide = Vec::new();
                assert_eq!(m.lazy_children7(&s, &mut wide, false) as usize, built.len());
                for ((op, c), l) in built.iter().zip(&wide) {
                    assert_eq!(
                        (*op, m.key7(c), m.cannot_reach_goal(c)),
                        (l.mv, l.key, l.pruned)
                    );
                    assert_eq!(m.build_lazy(&s, l), *c);
                    assert_eq!(
                        solver::Lazy7.rank(&m, &s, l),
                        m.search_order(c) - m.search_order(&s)
                    );
                }
                if n > 6 {
                    if built.is_empty() {
                        break;
                    }
                    s = built[rng.below(built.len())].1;
                    continue;
                }
                let mut lazy = Vec::new();
                let count = m.lazy_children4(&s, &mut lazy, false);
                assert_eq!(built.len(), lazy.len(), "n {n} seed {seed}");
                assert_eq!(count as usize, lazy.len());
                // Skipping pruned children leaves exactly the unpruned
                // ones, in order, and still counts them all.
                let mut kept = Vec::new();
                assert_eq!(m.lazy_children4(&s, &mut kept, true), count);
                let want: Vec<_> = lazy.iter().filter(|l| !l.pruned).collect();
                assert_eq!(kept.len(), want.len());
                for (k, w) in kept.iter().zip(want) {
                    assert_eq!((k.mv, k.key, k.aux), (w.mv, w.key, w.aux));
                }
                for ((op, c), l) in built.iter().zip(&lazy) {
                    assert_eq!(*op, l.mv);
                    assert_eq!(m.key4(c), l.key);
                    assert_eq!(m.score(c), l.score);
                    assert_eq!(m.is_goal(c), l.goal);
                    assert_eq!(m.cannot_reach_goal(c), l.pruned);
                    assert_eq!(m.build_lazy(&s, l), *c);
                    // The ordered search's rank is the child's spread less
                    // the parent's (so both sort children alike).
                    assert_eq!(
                        solver::Lazy4.rank(&m, &s, l),
                        m.search_order(c) - m.search_order(&s)
                    );
                    checked += 1;
                }
                if built.is_empty() {
                    break;
                }
                s = built[rng.below(built.len())].1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

/// The lazy search is the built one step for step: same minimum, line,
/// expansions and generated children, with and without restarts (whose
/// random orders shuffle the same lists).
#[test]
fn lazy_search_equals_the_built_search() {
    // Games whose ordered search expands another number of states than
    // the unordered one: the order is applied (on both paths).
    let mut reordered = 0;
    for n in 3..=6 {
        for seed in 0..12 {
            let m = game(n, seed);
            for sched in [Schedule::plain(), Schedule::reference()] {
                let mut explored = Vec::new();
                for ordered in [false, true] {
                    let opts = SolveOptions {
                        schedule: sched.clone(),
                        seed,
                        ordered,
                        ..Default::default()
                    };
                    let a = solver::solve(&m, &opts);
                    let b = solver::solve_built(&m, &opts);
                    assert_eq!(a, b, "n {n} seed {seed} ordered {ordered}");
                    explored.push((a.explored, a.min_stones));
                }
                assert_eq!(explored[0].1, explored[1].1);
                reordered += usize::from(explored[0].0 != explored[1].0);
            }
        }
    }
    assert!(reordered > 20, "{reordered}");
}

/// The lazy search with the wide key ([`solver::Lazy7`], n = 7, 8) is
/// the built one step for step, on positions some random operations
/// into 7×7 and 8×8 games (whole games take seconds).
#[test]
fn wide_lazy_search_equals_the_built_search() {
    use endgame_core::restarts::Rng;
    let mut unsolvable = 0;
    for (n, ops) in [(7, 26), (7, 30), (8, 42)] {
        for seed in 0..10 {
            let g = game(n, seed);
            let mut rng = Rng::new(seed + 100 * n as u64);
            let mut s = g.start();
            for _ in 0..ops {
                let kids = g.children(&s);
                if kids.is_empty() {
                    break;
                }
                s = kids[rng.below(kids.len())].1;
            }
            let m = Martello::new(n, s).unwrap();
            for sched in [Schedule::plain(), Schedule::reference()] {
                let opts = SolveOptions {
                    schedule: sched,
                    seed,
                    ..Default::default()
                };
                let a = solver::solve(&m, &opts);
                let b = solver::solve_built(&m, &opts);
                assert_eq!(a, b, "n {n} seed {seed}");
                unsolvable += usize::from(!a.solvable);
            }
        }
    }
    assert!(unsolvable > 0, "{unsolvable}");
}

/// Solves that reuse memo tables through one pool (stale keys in every
/// reused slot) equal fresh solves, games one after another, unsolvable
/// ones (two searches, the second built from the first's spares)
/// included.
#[test]
fn pooled_solves_equal_fresh_ones() {
    let mut pool = solver::Pool::default();
    let mut unsolvable = 0;
    for (n, games) in [(6, 240), (5, 200), (6, 60)] {
        for i in 0..games {
            let m = game(n, 9_000 + i);
            let opts = SolveOptions {
                schedule: endgame_martello::study::better_schedule(),
                seed: i,
                ..Default::default()
            };
            let fresh = solver::solve(&m, &opts);
            let pooled = solver::solve_pooled(&m, &opts, &mut pool);
            // The pooled solve reserves a bigger table: only the memo's
            // size in bytes may differ.
            assert!(pooled.memo_bytes >= fresh.memo_bytes);
            let same_size = solver::Solution {
                memo_bytes: fresh.memo_bytes,
                ..pooled
            };
            assert_eq!(fresh, same_size, "n {n} game {i}");
            unsolvable += usize::from(!fresh.solvable);
        }
    }
    assert!(unsolvable >= 3, "{unsolvable} unsolvable games");
}
