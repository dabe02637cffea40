//! The tail work's bounds and solver paths against the brute force over
//! raw boards and against the plain exact solver: minimum stone counts
//! must not change.

use endgame_core::restarts::{Rng, Schedule};
use endgame_core::Rules;
use endgame_martello::board::Board;
use endgame_martello::solver::{self, SolveOptions};
use endgame_martello::study::better_schedule;
use endgame_martello::{brute, Martello, State};
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

/// The plain exact solver's minimum (no goal-first search, no restarts,
/// no floors): the reference above brute-force sizes.
fn plain_min(n: usize, s: &State) -> u32 {
    let m = Martello::new(n, *s).unwrap();
    let r = solver::solve_built(
        &m,
        &SolveOptions {
            goal_first: false,
            ..SolveOptions::default()
        },
    );
    assert!(r.complete);
    r.min_stones
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The meeting bound never passes the brute force's minimum, on
    /// random 3×3 starts and every position of a random playout of a
    /// 3×3 or 4×4 board (4×4 from at most 11 stones, where the brute
    /// force is quick).
    #[test]
    fn meet_floor_is_below_the_brute_force_minimum(seed in any::<u64>(), n in 3usize..=4) {
        let m = game(n, seed);
        let mut rng = Rng::new(seed ^ 0x55);
        let skip = if n == 4 { 5 } else { 0 };
        let mut s = played(&m, skip, &mut rng);
        loop {
            let want = brute::min_stones(&s.to_board(n));
            let f = m.meet_floor(&s);
            prop_assert!(f <= want, "{} floor {} min {}", s.to_board(n).to_board_string(), f, want);
            prop_assert!(m.floor(&s) <= f);
            let kids = m.children(&s);
            if kids.is_empty() {
                break;
            }
            s = kids[rng.below(kids.len())].1;
        }
    }
}

/// The meeting bound against the plain exact solver on 5×5 and 6×6
/// positions a few operations from the end of random playouts.
#[test]
fn meet_floor_is_below_the_minimum_on_bigger_boards() {
    let mut tight = 0;
    for n in 5..=6 {
        for seed in 0..60 {
            let m = game(n, seed);
            let mut rng = Rng::new(seed);
            let s = played(&m, n * n - 14, &mut rng);
            let want = plain_min(n, &s);
            let f = m.meet_floor(&s);
            assert!(
                f <= want,
                "{} floor {f} min {want}",
                s.to_board(n).to_board_string()
            );
            tight += usize::from(f == want);
        }
    }
    // It is a real bound, not just 1.
    assert!(tight > 20, "{tight}");
}

/// The study's solver (goal first, our schedule, floors in the exact
/// search) against the plain exact solver on random starts, unsolvable
/// ones included.
#[test]
fn study_solver_agrees_with_the_plain_solver() {
    for (n, games) in [(3, 300), (4, 300), (5, 120)] {
        for seed in 0..games {
            let m = game(n, seed);
            let r = solver::solve(
                &m,
                &SolveOptions {
                    schedule: better_schedule(),
                    seed,
                    ..SolveOptions::default()
                },
            );
            let plain = plain_min(n, &m.start());
            assert_eq!(r.min_stones, plain, "n {n} seed {seed}");
            // The line is legal and ends on the minimum.
            let mut s = m.start();
            for &op in &r.ops {
                s = m.play_checked(&s, op).unwrap();
            }
            assert_eq!(s.stones(), r.min_stones);
        }
    }
    let _ = Schedule::plain();
}

/// Memos far below a game's size replace entries instead of growing: the
/// minimum stays exact, the line legal, the memo within its budget.
#[test]
fn tiny_memos_replace_and_stay_exact() {
    for (n, games) in [(4, 150), (5, 40)] {
        for seed in 0..games {
            let m = game(n, seed);
            let want = plain_min(n, &m.start());
            for bytes in [2 << 10, 32 << 10] {
                let r = solver::solve(
                    &m,
                    &SolveOptions {
                        max_memo_bytes: bytes,
                        schedule: better_schedule(),
                        seed,
                        ..SolveOptions::default()
                    },
                );
                assert_eq!(r.min_stones, want, "n {n} seed {seed} bytes {bytes}");
                assert!(r.memo_bytes <= bytes, "{} > {bytes}", r.memo_bytes);
                let mut s = m.start();
                for &op in &r.ops {
                    s = m.play_checked(&s, op).unwrap();
                }
                assert_eq!(s.stones(), r.min_stones);
            }
        }
    }
}
