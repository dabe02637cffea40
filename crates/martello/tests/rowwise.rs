//! The row-wise search (horizontal eats put off until a vertical eat
//! needs them) against the brute force over raw boards and the exact
//! operation search: the same minimum stone counts, and lines that play
//! legally to them.

use endgame_core::budget::Budget;
use endgame_core::restarts::Rng;
use endgame_core::Rules;
use endgame_martello::board::Board;
use endgame_martello::solver::{self, BeamRank, SolveOptions, Stage};
use endgame_martello::state::Rowwise;
use endgame_martello::study::{self, better_schedule, game_seed};
use endgame_martello::{brute, Martello, Op, State};
use proptest::prelude::*;

fn game(n: usize, seed: u64) -> Martello {
    Martello::new(n, State::from_board(&Board::random(n, seed).unwrap())).unwrap()
}

/// The position after `ops` random operations (fewer if the game ends).
fn played(m: &Martello, ops: usize, rng: &mut Rng) -> State {
    let mut s = m.start();
    for _ in 0..ops {
        let kids = m.children(&s);
        if kids.is_empty() {
            break;
        }
        s = kids[rng.below(kids.len())].1;
    }
    s
}

/// Plays `ops` from `s` with every operation checked legal; the stones
/// left.
fn play_line(m: &Martello, s: &State, ops: &[Op]) -> u32 {
    let mut p = *s;
    for &op in ops {
        p = m.play_checked(&p, op).unwrap();
    }
    p.stones()
}

/// The operation search alone (goal first, no restarts): an expansion
/// limit skips the row-wise stage of `solve`.
fn op_min(m: &Martello) -> u32 {
    let r = solver::solve(
        m,
        &SolveOptions {
            max_expansions: Some(u64::MAX),
            ..SolveOptions::default()
        },
    );
    assert!(r.complete);
    r.min_stones
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On random 3×3 starts and positions of random 4×4 playouts (at most
    /// 11 stones, where the brute force is quick) the row-wise minimum is
    /// the brute force's, and its line plays legally to it.
    #[test]
    fn rowwise_matches_the_brute_force(seed in any::<u64>(), n in 3usize..=4) {
        let m = game(n, seed);
        let mut rng = Rng::new(seed ^ 0x1234);
        let s = played(&m, if n == 4 { 5 } else { 0 }, &mut rng);
        let want = brute::min_stones(&s.to_board(n));
        let mp = Martello::new(n, s).unwrap();
        let r = Rowwise::new(&mp).solve(&s, u64::MAX).unwrap();
        prop_assert_eq!(r.min_stones, want);
        prop_assert_eq!(play_line(&mp, &s, &r.ops), want);
    }
}

/// Random 4×4 and 5×5 starts and positions of 6×6 playouts: the
/// row-wise minimum equals the operation search's, its line is legal.
#[test]
fn rowwise_matches_the_operation_search() {
    let mut rng = Rng::new(99);
    for (n, games, skip) in [(4, 300, 0), (5, 200, 0), (6, 60, 12)] {
        let mut unsolvable = 0;
        for seed in 0..games {
            let m0 = game(n, 7000 + seed);
            let s = played(&m0, skip, &mut rng);
            let m = Martello::new(n, s).unwrap();
            let want = op_min(&m);
            unsolvable += usize::from(want > 1);
            let r = Rowwise::new(&m).solve(&s, u64::MAX).unwrap();
            assert_eq!(r.min_stones, want, "n {n} seed {seed}");
            assert_eq!(play_line(&m, &s, &r.ops), want, "n {n} seed {seed}");
        }
        assert!(unsolvable > 0, "n {n}: unsolvable positions are tested");
    }
}

/// A search out of budget answers `None`, and calls with growing budgets
/// go on to the unlimited search's answer.
#[test]
fn budgets_resume_to_the_same_answer() {
    for seed in 0..40 {
        let m = game(5, 500 + seed);
        let full = Rowwise::new(&m).solve(&m.start(), u64::MAX).unwrap();
        let mut rw = Rowwise::new(&m);
        let mut budget = 1;
        let r = loop {
            if let Some(r) = rw.solve(&m.start(), budget) {
                break r;
            }
            assert!(rw.expansions() <= budget);
            budget *= 2;
        };
        assert_eq!(r.min_stones, full.min_stones, "seed {seed}");
        assert_eq!(play_line(&m, &m.start(), &r.ops), r.min_stones);
        if full.expansions > 1 {
            let starved = Rowwise::new(&m).solve(&m.start(), full.expansions - 1);
            assert!(starved.is_none(), "seed {seed}");
        }
    }
}

/// The stuck 6×6 boards of the crate README (study seed 5, games 2571,
/// 1912, 4583: minima 21, 19, 20, 1.5–3.8 million expansions of the
/// operation search): the row-wise search proves them in a few dozen
/// steps, and the study's solver (goal first, our schedule) gives the
/// same exact answer with a legal line. Game 2571 is also checked
/// against the operation search alone (1.66 million expansions, a few
/// seconds).
#[test]
fn stuck_boards_are_proven_row_wise() {
    for (i, want) in [(2571, 21), (1912, 19), (4583, 20)] {
        let m = study::random_game(6, 5, i).unwrap();
        let r = Rowwise::new(&m).solve(&m.start(), 100).unwrap();
        assert_eq!(r.min_stones, want, "game {i}");
        assert_eq!(play_line(&m, &m.start(), &r.ops), want);
        let s = solver::solve(
            &m,
            &SolveOptions {
                schedule: better_schedule(),
                seed: game_seed(5 ^ 0x3E7A, 6, i),
                ..SolveOptions::default()
            },
        );
        assert!(s.complete);
        assert_eq!(s.min_stones, want, "game {i}");
        assert_eq!(play_line(&m, &m.start(), &s.ops), want);
        assert_eq!(s.line.last().unwrap().stones(), want);
    }
    assert_eq!(op_min(&study::random_game(6, 5, 2571).unwrap()), 21);
}

/// The lab's budgeted solve (`min_stones_within`) runs the stages of
/// `solve`: a stuck board ends in the row-wise stage (the first stage's
/// 50,000 expansions and a few row-wise steps, where the operation
/// search alone takes 1.5 million); a cancelled budget leaves it
/// undecided before any step with the start's count as its bound; a
/// row-wise search stopped by its budget or a cancel token answers
/// nothing and reports a reachable count (at least the minimum, at most
/// the start's).
#[test]
fn budgeted_solves_take_the_row_wise_stage() {
    let generous = Budget::time(std::time::Duration::from_secs(600));
    let cancelled = Budget::unlimited();
    cancelled.cancel.cancel();
    for (i, want) in [(2571, 21), (1912, 19)] {
        let m = study::random_game(6, 5, i).unwrap();
        let (got, explored) = solver::min_stones_within(&m, 1 << 28, &generous);
        assert_eq!(got, Ok(want), "game {i}");
        assert!(explored <= 50_100, "game {i}: {explored}");
        let (got, explored) = solver::min_stones_within(&m, 1 << 28, &cancelled);
        assert_eq!((got, explored), (Err(36), 0), "game {i}");
        let mut rw = Rowwise::new(&m);
        assert_eq!(rw.best_seen(), u32::MAX);
        assert_eq!(rw.solve(&m.start(), 2), None);
        assert!((want..=36).contains(&rw.best_seen()), "game {i}");
        let mut rw = Rowwise::new(&m);
        rw.stop_on(Some(cancelled.clone()));
        assert_eq!(rw.solve(&m.start(), u64::MAX), None);
        assert_eq!(rw.expansions(), 0);
    }
}

/// Stages that hand over from one search to the other many times
/// (scaled down from `solver::WIDE_STAGES`: a handful of expansions and
/// steps a turn, growing), on random 4×4 and 5×5 starts and positions
/// of 6×6 and 7×7 playouts (on 7×7 the row-wise search seeks one stone
/// first, `solver::rowwise_goal_first`, and unsolvable positions past
/// the first stage hand over to its full search): the same minimum as
/// the operation search alone,
/// with a legal line, many games past the first stage (so the searches
/// hand over and go on where they stopped) and unsolvable ones among
/// them; stages that all stop short leave a game incomplete at the
/// start's count.
#[test]
fn interleaved_stages_agree_with_the_operation_search() {
    let stages = [
        Stage::new(Some(20), 5, 0),
        Stage::new(Some(60), 15, 1),
        Stage::new(Some(150), 40, 0),
        Stage::new(Some(400), 100, 4).ranked(BeamRank::Pairs),
        Stage::new(Some(1_000), 250, 0),
        Stage::new(Some(3_000), 750, 0),
        Stage::new(None, 0, 0),
    ];
    let opts = SolveOptions {
        schedule: better_schedule(),
        ..SolveOptions::default()
    };
    let mut rng = Rng::new(2026);
    let (mut past_first, mut unsolvable, mut wide_handed_over) = (0, 0, 0);
    for (n, games, skip) in [(4, 200, 0), (5, 150, 0), (6, 40, 14), (7, 40, 16)] {
        for seed in 0..games {
            let m0 = game(n, 9100 + seed);
            let s = played(&m0, skip, &mut rng);
            let m = Martello::new(n, s).unwrap();
            let want = op_min(&m);
            let r = solver::solve_staged(&m, &opts, &stages);
            assert!(r.complete, "n {n} seed {seed}");
            assert_eq!(r.min_stones, want, "n {n} seed {seed}");
            assert_eq!(play_line(&m, &s, &r.ops), want, "n {n} seed {seed}");
            past_first += usize::from(r.explored > 25);
            unsolvable += usize::from(want > 1);
            // 7×7: the row-wise search seeks one stone first, and hands
            // over to the full search where it proves none.
            wide_handed_over += usize::from(n == 7 && want > 1 && r.explored > 25);
        }
    }
    assert!(past_first > 20, "{past_first} games past the first stage");
    assert!(unsolvable > 10, "{unsolvable} unsolvable");
    assert!(
        wide_handed_over > 3,
        "{wide_handed_over} unsolvable 7×7 games past the first stage, {unsolvable} unsolvable"
    );
    let m = game(6, 9100);
    let short = solver::solve_staged(&m, &opts, &stages[..2]);
    if short.explored > 80 {
        assert!(!short.complete);
        assert_eq!(short.min_stones, 36);
    }
}

/// A row-wise memo limited to a handful of entries (it replaces, and
/// the line re-searches what it forgot) gives the unlimited search's
/// minimum and a legal line, on random 4×4 and 5×5 starts and positions
/// of 6×6 playouts (limits of 1 … 1,024 entries); a limited memo with a pool's tables reused from
/// game to game too.
#[test]
fn a_limited_memo_gives_the_same_minimum() {
    let mut rng = Rng::new(41);
    let mut pool = endgame_core::restarts::MemoPool::default();
    let mut replaced = 0;
    for (n, games, skip) in [(4, 150, 0), (5, 100, 0), (6, 30, 12)] {
        for seed in 0..games {
            let m0 = game(n, 9100 + seed);
            let s = played(&m0, skip, &mut rng);
            let m = Martello::new(n, s).unwrap();
            let full = Rowwise::new(&m).solve(&s, u64::MAX).unwrap();
            // (On 6×6 a one-entry memo re-searches for minutes.)
            let limits: &[usize] = if n < 6 { &[1, 8, 64] } else { &[64, 1024] };
            for &limit in limits {
                let mut rw = Rowwise::limited(&m, limit, std::mem::take(&mut pool));
                let r = rw.solve(&s, u64::MAX).unwrap();
                assert_eq!(
                    r.min_stones, full.min_stones,
                    "n {n} seed {seed} limit {limit}"
                );
                assert_eq!(play_line(&m, &s, &r.ops), full.min_stones);
                // The table stops at the limit's slots (at least 16), at
                // most 7/8 full (see `restarts::Memo::replace_hashed`).
                let slots = (limit * 4).div_ceil(3).max(16);
                assert!(rw.entries() * 8 <= slots * 7, "n {n} seed {seed}");
                replaced += rw.replaced();
                pool = rw.into_pool();
            }
        }
    }
    assert!(replaced > 0, "the limits were reached");
}

/// The goal-only row-wise search (states whose floor is above one stone
/// not expanded) answers 1 exactly on the positions whose minimum is 1,
/// with a legal line to one stone, and more than 1 on the others, never
/// with more steps than the full search: random 3×3 starts and 4×4
/// playouts against the brute force, 4×4 and 5×5 starts and 6×6
/// playouts against the operation search.
#[test]
fn the_goal_only_row_wise_search_decides_one_stone() {
    let mut rng = Rng::new(43);
    let mut both = [0, 0];
    for (n, games, skip) in [
        (3, 200, 0),
        (4, 200, 5),
        (4, 200, 0),
        (5, 150, 0),
        (6, 40, 12),
    ] {
        for seed in 0..games {
            let m0 = game(n, 12_000 + seed);
            let s = played(&m0, skip, &mut rng);
            let m = Martello::new(n, s).unwrap();
            let want = if s.stones() <= 11 {
                brute::min_stones(&s.to_board(n))
            } else {
                op_min(&m)
            };
            let full = Rowwise::new(&m).solve(&s, u64::MAX).unwrap();
            let mut goal = Rowwise::new(&m).goal_only();
            let r = goal.solve(&s, u64::MAX).unwrap();
            assert_eq!(r.min_stones == 1, want == 1, "n {n} seed {seed}");
            assert!(r.min_stones >= want, "n {n} seed {seed}");
            assert_eq!(play_line(&m, &s, &r.ops), r.min_stones, "n {n} seed {seed}");
            assert!(r.expansions <= full.expansions, "n {n} seed {seed}");
            both[usize::from(want == 1)] += 1;
        }
    }
    assert!(
        both[0] > 0 && both[1] > 0,
        "solvable and unsolvable tested: {both:?}"
    );
}

/// The study's per-game time (`StudyOptions::game_seconds`, the `tail`
/// example's `GAME_S`): a generous one changes nothing (the same minima
/// and expansions, game for game, as the unbounded study); a zero one
/// leaves every game that needs a search undecided with a bound at least
/// its minimum and at most its start's stones.
#[test]
fn a_per_game_time_bounds_the_study_and_changes_nothing_within_it() {
    for (n, games) in [(5, 60u64), (6, 30)] {
        let indices: Vec<u64> = (0..games).collect();
        let opts = study::StudyOptions::new(n, games, 7);
        let silent = endgame_core::layered::Silent;
        let free = study::solve_indices(n, &indices, 7, &opts, &silent).unwrap();
        let mut timed = opts.clone();
        timed.game_seconds = Some(600.0);
        let within = study::solve_indices(n, &indices, 7, &timed, &silent).unwrap();
        timed.game_seconds = Some(0.0);
        let stopped = study::solve_indices(n, &indices, 7, &timed, &silent).unwrap();
        let mut undecided = 0;
        for ((a, b), c) in free.iter().zip(&within).zip(&stopped) {
            assert!(a.decided && b.decided);
            assert_eq!(
                (a.index, a.min_stones, a.explored),
                (b.index, b.min_stones, b.explored)
            );
            assert_eq!(c.index, a.index);
            if c.decided {
                assert_eq!(c.min_stones, a.min_stones, "game {}", a.index);
            } else {
                undecided += 1;
                assert!(
                    (a.min_stones..=(n * n) as u32).contains(&c.min_stones),
                    "game {}: bound {} minimum {}",
                    a.index,
                    c.min_stones,
                    a.min_stones
                );
            }
        }
        assert!(undecided > 0, "{n}x{n}: no game stopped");
    }
}

/// The beam search of the wide stages (`solver::beam_line`) against the
/// exact solver on random 4×4 … 6×6 boards and 7×7 playouts: every line
/// it finds is legal and ends at one stone (so the board is solvable),
/// it never finds one on an unsolvable board, and a wide enough beam
/// finds most solvable boards' lines.
#[test]
fn beam_lines_are_legal_and_only_on_solvable_boards() {
    let mut rng = Rng::new(77);
    let (mut solvable, mut found, mut by_beam) = (0, 0, 0);
    let opts = SolveOptions::default();
    for (n, games, skip) in [(4, 120, 0), (5, 80, 0), (6, 30, 0), (7, 10, 20)] {
        for seed in 0..games {
            // Both ranks, on alternate boards.
            let rank = [BeamRank::Pairs, BeamRank::Shares][seed as usize % 2];
            let stages = [
                Stage::new(Some(0), 0, 64).ranked(rank),
                Stage::new(None, 0, 0),
            ];
            let m0 = game(n, 4400 + seed);
            let s = played(&m0, skip, &mut rng);
            let m = Martello::new(n, s).unwrap();
            let want = op_min(&m);
            let b = solver::beam_line(&m, (64, rank), seed, None);
            assert!(b.best_score >= want, "n {n} seed {seed}");
            solvable += usize::from(want == 1);
            if let Some(line) = b.line {
                assert_eq!(want, 1, "n {n} seed {seed}: a line on an unsolvable board");
                assert_eq!(play_line(&m, &s, &line), 1, "n {n} seed {seed}");
                found += 1;
            }
            // The same beam as the first stage of the solver, before any
            // exact search: the same minimum, and a legal line, whichever
            // search decides.
            let r = solver::solve_staged(&m, &opts, &stages);
            assert!(r.complete, "n {n} seed {seed}");
            assert_eq!(r.min_stones, want, "n {n} seed {seed}");
            assert_eq!(play_line(&m, &s, &r.ops), want, "n {n} seed {seed}");
            by_beam += usize::from(want == 1 && r.runs == 0);
        }
    }
    assert!(solvable > 100, "{solvable} solvable");
    assert!(
        2 * found > solvable,
        "beam lines for {found} of {solvable} solvable boards"
    );
    assert!(
        2 * by_beam > solvable,
        "{by_beam} of {solvable} solvable boards by the beam stage"
    );
}

/// The beam's ranks ([`BeamRank`]) count what they say, against counts
/// made stone by stone on random boards and playouts of every size:
/// `pair_count` is half the operations, `share_pairs` the pairs of
/// stones left that share colour or symbol.
#[test]
fn beam_ranks_count_pairs_and_shared_pairs() {
    let mut rng = Rng::new(91);
    for n in 2..=8 {
        for seed in 0..20 {
            let m0 = game(n, 9100 + seed);
            let s = played(&m0, (seed as usize * 3) % (n * n), &mut rng);
            let m = Martello::new(n, s).unwrap();
            let mut ops = 0;
            m.for_each_child(&s, |_, _| ops += 1);
            assert_eq!(2 * m.pair_count(&s), ops, "n {n} seed {seed}");
            let ids: Vec<u8> = (0..n * n)
                .filter(|&id| s.present >> id & 1 == 1)
                .map(|id| id as u8)
                .collect();
            let shared = ids
                .iter()
                .flat_map(|&a| ids.iter().map(move |&b| (a, b)))
                .filter(|&(a, b)| a < b && m.compatible(a, b))
                .count();
            assert_eq!(m.share_pairs(&s) as usize, shared, "n {n} seed {seed}");
            let more = BeamRank::Shares.of(&m, &s) - BeamRank::Pairs.of(&m, &s);
            assert_eq!(more, (shared as i64) << 20, "n {n} seed {seed}");
        }
    }
}
