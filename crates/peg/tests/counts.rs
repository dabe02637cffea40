//! The counts of `endgame_peg::counts` (random-play success, canonical
//! paths, move multisets) against brute force: every move sequence from
//! the start, played on a plain hole-indexed bit set with the board's jump
//! list, with symmetry applied from the board's hole permutations. Nothing
//! here uses the bitboards, the layered engine or its symmetry routes.

use endgame_core::layered::Silent;
use endgame_peg::api::{self, BoardSource, Finish, Pruning, Spec};
use endgame_peg::counts::{self, Extra, ExtraOptions};
use endgame_peg::Board;
use std::collections::HashSet;

/// A problem as the brute force sees it.
struct Brute {
    /// (from, over, to) as hole bits.
    jumps: Vec<(u64, u64, u64)>,
    /// The board's symmetries that fix the start and the goal set, as hole
    /// permutations.
    group: Vec<Vec<usize>>,
    /// Jump `j`'s image under group element `g`: `jump_image[g][j]`.
    jump_image: Vec<Vec<usize>>,
    start: u64,
    /// `Some(pegs)`: that exact position; `None`: one peg anywhere.
    goal: Option<u64>,
}

fn permute(perm: &[usize], x: u64) -> u64 {
    (0..perm.len())
        .filter(|&h| x >> h & 1 == 1)
        .fold(0, |y, h| y | 1 << perm[h])
}

impl Brute {
    fn new(board: &Board, start: u64, goal: Option<u64>) -> Brute {
        let jumps: Vec<(u64, u64, u64)> = board
            .jumps()
            .iter()
            .map(|j| (1 << j.from, 1 << j.over, 1 << j.to))
            .collect();
        let group: Vec<Vec<usize>> = board
            .symmetries()
            .iter()
            .filter(|perm| {
                permute(perm, start) == start && goal.is_none_or(|g| permute(perm, g) == g)
            })
            .cloned()
            .collect();
        let jump_image = group
            .iter()
            .map(|perm| {
                board
                    .jumps()
                    .iter()
                    .map(|j| {
                        board
                            .jumps()
                            .iter()
                            .position(|k| {
                                (k.from, k.over, k.to) == (perm[j.from], perm[j.over], perm[j.to])
                            })
                            .expect("a symmetry maps jumps to jumps")
                    })
                    .collect()
            })
            .collect();
        Brute {
            jumps,
            group,
            jump_image,
            start,
            goal,
        }
    }

    fn is_goal(&self, x: u64) -> bool {
        match self.goal {
            Some(g) => x == g,
            None => x.count_ones() == 1,
        }
    }

    fn moves(&self, x: u64) -> Vec<usize> {
        (0..self.jumps.len())
            .filter(|&j| {
                let (f, o, t) = self.jumps[j];
                x & f != 0 && x & o != 0 && x & t == 0
            })
            .collect()
    }

    fn play(&self, x: u64, j: usize) -> u64 {
        let (f, o, t) = self.jumps[j];
        x ^ f ^ o ^ t
    }

    fn canonical(&self, x: u64) -> u64 {
        self.group.iter().map(|p| permute(p, x)).min().unwrap()
    }

    /// Every solution (the jumps, in order), by plain recursion over every
    /// move sequence.
    fn solutions(&self) -> Vec<Vec<usize>> {
        fn go(b: &Brute, x: u64, line: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if b.is_goal(x) {
                out.push(line.clone());
                return;
            }
            for j in b.moves(x) {
                line.push(j);
                go(b, b.play(x, j), line, out);
                line.pop();
            }
        }
        let mut out = Vec::new();
        go(self, self.start, &mut Vec::new(), &mut out);
        out
    }

    /// The probability that random play reaches a goal, as a reduced
    /// fraction, by recursion over every move sequence.
    fn random_success(&self) -> (u128, u128) {
        fn gcd(a: u128, b: u128) -> u128 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        fn go(b: &Brute, x: u64) -> (u128, u128) {
            if b.is_goal(x) {
                return (1, 1);
            }
            let moves = b.moves(x);
            if moves.is_empty() {
                return (0, 1);
            }
            let (mut n, mut d) = (0u128, 1u128);
            for j in &moves {
                let (cn, cd) = go(b, b.play(x, *j));
                // n/d + cn/cd
                let g = gcd(d, cd);
                let l = (d / g).checked_mul(cd).expect("denominator fits u128");
                n = (n * (l / d)).checked_add(cn * (l / cd)).expect("fits");
                d = l;
                let g = gcd(n, d).max(1);
                (n, d) = (n / g, d / g);
            }
            let d = d.checked_mul(moves.len() as u128).expect("fits");
            let g = gcd(n, d).max(1);
            (n / g, d / g)
        }
        go(self, self.start)
    }

    /// Distinct sequences of classes along the solutions.
    fn canonical_paths(&self, solutions: &[Vec<usize>]) -> u64 {
        let mut seen = HashSet::new();
        for s in solutions {
            let mut x = self.start;
            let mut path = vec![self.canonical(x)];
            for &j in s {
                x = self.play(x, j);
                path.push(self.canonical(x));
            }
            seen.insert(path);
        }
        seen.len() as u64
    }

    /// Distinct jump multisets among the solutions, and their orbits
    /// under the group.
    fn move_sets(&self, solutions: &[Vec<usize>]) -> (u64, u64) {
        let counts = |s: &[usize]| {
            let mut c = vec![0u8; self.jumps.len()];
            for &j in s {
                c[j] += 1;
            }
            c
        };
        let sets: HashSet<Vec<u8>> = solutions.iter().map(|s| counts(s)).collect();
        let orbits: HashSet<Vec<u8>> = sets
            .iter()
            .map(|c| {
                self.jump_image
                    .iter()
                    .map(|img| {
                        let mut d = vec![0u8; c.len()];
                        for (j, &k) in c.iter().enumerate() {
                            d[img[j]] += k;
                        }
                        d
                    })
                    .min()
                    .unwrap()
            })
            .collect();
        (sets.len() as u64, orbits.len() as u64)
    }
}

/// The problem of `spec` in both forms.
fn both(spec: &Spec) -> (api::AnyProblem, Brute) {
    let board = api::board_of(spec).unwrap();
    let problem = api::build(spec).unwrap();
    let start = board
        .drawn_pegs()
        .iter()
        .enumerate()
        .filter(|&(h, &peg)| match &spec.vacate {
            Some(v) => !v.iter().any(|n| board.hole(n).unwrap() == h),
            None => peg,
        })
        .fold(0u64, |x, (h, _)| x | 1 << h);
    let goal = match &spec.finish {
        Finish::Any => None,
        Finish::Hole(h) => Some(1u64 << board.hole(h).unwrap()),
        Finish::Pattern(hs) => Some(hs.iter().fold(0, |x, h| x | 1 << board.hole(h).unwrap())),
        Finish::Default => panic!("tests name the finish"),
    };
    (problem, Brute::new(&board, start, goal))
}

fn all_counts(problem: &api::AnyProblem) -> Extra {
    let opts = ExtraOptions {
        random_success: true,
        canonical_paths: true,
        move_sets: true,
        ..ExtraOptions::default()
    };
    counts::extra(problem, &opts, &Silent).unwrap()
}

/// The random success and canonical paths over the goal-reaching layers,
/// every layer looked up by rank (`ranked`) or by hashing.
fn backward_by<B: endgame_peg::Bits>(
    p: &endgame_peg::PegSolitaire<B>,
    ranked: bool,
) -> (counts::Probability, Option<u128>) {
    let layers = counts::goal_reaching_layers(p, 1 << 30, &Silent).unwrap();
    counts::backward_counts_by(p, &layers, true, 1 << 30, Some(ranked), &Silent).unwrap()
}

fn check(spec: &Spec) {
    let (problem, brute) = both(spec);
    let got = all_counts(&problem);
    let what = format!(
        "{:?} vacate {:?} finish {:?}",
        spec.board, spec.vacate, spec.finish
    );
    let (n, d) = brute.random_success();
    let rs = got.random_success.as_ref().unwrap();
    assert_eq!(rs.exact, format!("{n}/{d}"), "random success, {what}");
    let float = n as f64 / d as f64;
    assert!(
        (rs.float - float).abs() <= 1e-12 * float.max(1e-300),
        "random success float {} against {float}, {what}",
        rs.float
    );
    // The backward pass by each look-up route, forced on every layer.
    let paths = brute.canonical_paths(&brute.solutions()).to_string();
    for ranked in [false, true] {
        let (rs, n) = match &problem {
            api::AnyProblem::Small(p) => backward_by(p, ranked),
            api::AnyProblem::Large(p) => backward_by(p, ranked),
        };
        let route = if ranked { "ranked" } else { "hashed" };
        assert_eq!(rs, *got.random_success.as_ref().unwrap(), "{route}, {what}");
        assert_eq!(
            n.map(|n| n.to_string()),
            Some(paths.clone()),
            "{route} paths, {what}"
        );
    }
    let solutions = brute.solutions();
    assert_eq!(
        got.canonical_paths.as_deref(),
        Some(brute.canonical_paths(&solutions).to_string().as_str()),
        "canonical paths, {what}"
    );
    let (raw, reduced) = brute.move_sets(&solutions);
    assert_eq!(got.move_sets, Some(raw), "move sets, {what}");
    assert_eq!(
        got.move_sets_reduced,
        Some(reduced),
        "move sets up to symmetry, {what}"
    );
}

fn spec(board: BoardSource, diagonal: bool, vacate: &[&str], finish: Finish) -> Spec {
    Spec {
        board,
        diagonal,
        vacate: Some(vacate.iter().map(|s| s.to_string()).collect()),
        position: None,
        finish,
        pruning: Pruning::default(),
    }
}

#[test]
fn the_15_hole_triangle_agrees_with_brute_force_for_every_vacancy() {
    let board = Board::named("triangle", false).unwrap();
    for h in 0..board.holes() {
        let name = board.hole_name(h).to_string();
        check(&spec(
            BoardSource::Named("triangle".into()),
            false,
            &[&name],
            Finish::Hole(name.clone()),
        ));
    }
}

#[test]
fn small_triangles_agree_with_brute_force_for_any_finish() {
    for (board, holes) in [("triangle4", 10), ("triangle", 15)] {
        let b = Board::named(board, false).unwrap();
        assert_eq!(b.holes(), holes);
        for h in 0..holes {
            let name = b.hole_name(h).to_string();
            check(&spec(
                BoardSource::Named(board.into()),
                false,
                &[&name],
                Finish::Any,
            ));
        }
    }
}

#[test]
fn rectangles_and_patterns_agree_with_brute_force() {
    // A 3 by 4 rectangle (four symmetries before the start breaks some),
    // and a 3 by 3 square with diagonal jumps (eight).
    let rect = BoardSource::Art("oooo/oooo/oooo".into());
    for v in ["a1", "b1", "b2", "a2"] {
        check(&spec(rect.clone(), false, &[v], Finish::Any));
    }
    check(&spec(rect.clone(), false, &["b2", "c2"], Finish::Any));
    let square = BoardSource::Art("ooo/ooo/ooo".into());
    for v in ["b2", "a1", "b1"] {
        check(&spec(square.clone(), true, &[v], Finish::Any));
    }
    // A two-peg pattern goal on the triangle.
    let tri = BoardSource::Named("triangle".into());
    check(&spec(
        tri.clone(),
        false,
        &["a1"],
        Finish::Pattern(vec!["a5".into(), "e5".into()]),
    ));
    check(&spec(
        tri,
        false,
        &["c5"],
        Finish::Pattern(vec!["c3".into(), "a5".into()]),
    ));
}

#[test]
fn an_unsolvable_problem_counts_nothing() {
    // One peg left on the 10-hole triangle, and a goal of two pegs.
    let tri = BoardSource::Named("triangle4".into());
    let s = spec(
        tri.clone(),
        false,
        &["a1", "a2", "b2", "a3", "b3", "c3", "a4", "b4", "c4"],
        Finish::Pattern(vec!["a1".into(), "a2".into()]),
    );
    let (problem, brute) = both(&s);
    assert!(brute.solutions().is_empty());
    let got = all_counts(&problem);
    assert_eq!(got.random_success.unwrap().exact, "0/1");
    assert_eq!(got.canonical_paths.as_deref(), Some("0"));
    assert_eq!(got.move_sets, Some(0));
}

/// The English central game against published figures: 4,750,671,971,732,176
/// canonical paths and 12,752 move multisets (both documented by the public
/// Rust solver "peg-solitaire" of the GitHub user feschber). Seconds of work in
/// a release build; run with `cargo test --release -p endgame-peg --test
/// counts -- --ignored`.
#[test]
#[ignore]
fn english_central_matches_published_figures() {
    let problem = api::build(&Spec::named("english")).unwrap();
    let got = all_counts(&problem);
    assert_eq!(got.canonical_paths.as_deref(), Some("4750671971732176"));
    assert_eq!(got.move_sets, Some(12_752));
}
