//! The ranked dense layers of the layered engine (`endgame_core::dense`):
//! forcing the bitmap on every layer changes no count, and the counts agree
//! with a brute-force enumeration without symmetry.

use endgame_core::layered::{enumerate, LayeredOptions, LayeredReport, Silent};
use endgame_core::{Puzzle, Rules};
use endgame_peg::api::{build, AnyProblem, BoardSource, Finish, Spec};
use endgame_peg::{PegSolitaire, Pruning};
use std::collections::HashMap;

fn small(spec: &Spec) -> PegSolitaire<u64> {
    match build(spec).expect("a valid problem") {
        AnyProblem::Small(p) => p,
        AnyProblem::Large(_) => unreachable!("these boards fit 64 bits"),
    }
}

/// Problems with various symmetry groups, goals and invariants.
fn problems() -> Vec<(String, PegSolitaire<u64>)> {
    let mut out = Vec::new();
    for board in ["triangle", "triangle6"] {
        out.push((board.to_string(), small(&Spec::named(board))));
    }
    // A goal an even number of moves away (16): the time reversal meets
    // at one middle layer instead of across a move.
    let mut even = Spec::named("english");
    even.board = BoardSource::Art("oooooo/oooooo/oooooo".into());
    even.vacate = Some(vec!["b1".into()]);
    out.push(("6x3 from b1".into(), small(&even)));
    // English from a mid-game position (a smaller group), goal anywhere.
    let mut mid = Spec::named("english");
    mid.position = Some("o.o/ooo/.oo.oo./oo..ooo/..o.o../o.o/.o.".into());
    mid.finish = Finish::Any;
    out.push(("english mid, any".into(), small(&mid)));
    // The same without position classes: no invariants, a bigger bitmap.
    let mut bare = mid.clone();
    bare.pruning = Pruning {
        classes: false,
        ..Pruning::default()
    };
    out.push(("english mid, no classes".into(), small(&bare)));
    out
}

/// How the layers are de-duplicated.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Hashed,
    /// Bits set directly.
    Dense,
    /// Ranks buffered by segment of the bitmap first.
    Segmented,
}

fn run(p: &PegSolitaire<u64>, mode: Mode, count_all: bool, prune: bool) -> LayeredReport<u64> {
    enumerate(p, &options(mode, count_all, prune), &Silent).expect("small problems fit")
}

fn options(mode: Mode, count_all: bool, prune: bool) -> LayeredOptions {
    LayeredOptions {
        count_all,
        prune,
        keep_goal_layers: true,
        dense_min_children: if let Mode::Hashed = mode {
            usize::MAX
        } else {
            0
        },
        dense_direct_bytes: if let Mode::Segmented = mode {
            0
        } else {
            usize::MAX
        },
        ..LayeredOptions::default()
    }
}

#[test]
fn the_bitmap_changes_no_count_on_any_route() {
    for (name, p) in problems() {
        for count_all in [true, false] {
            for prune in [false, true] {
                let hashed = run(&p, Mode::Hashed, count_all, prune);
                for mode in [Mode::Dense, Mode::Segmented] {
                    let dense = run(&p, mode, count_all, prune);
                    let what = format!("{name}, {mode:?}, count_all {count_all}, prune {prune}");
                    assert_eq!(hashed.bitmap_bytes, 0, "{what}");
                    assert!(dense.bitmap_bytes > 0, "{what}: the bitmap never ran");
                    assert_eq!(dense.layers, hashed.layers, "{what}");
                    assert_eq!(dense.solutions, hashed.solutions, "{what}");
                    assert_eq!(dense.goal_reachable, hashed.goal_reachable, "{what}");
                    assert_eq!(dense.best_score, hashed.best_score, "{what}");
                    assert_eq!(dense.best_positions, hashed.best_positions, "{what}");
                    assert_eq!(dense.best_count, hashed.best_count, "{what}");
                    assert_eq!(dense.child_solutions, hashed.child_solutions, "{what}");
                    assert_eq!(dense.goal_layers, hashed.goal_layers, "{what}");
                }
            }
        }
    }
}

/// Every reachable position per layer (no symmetry), and the solutions
/// from every position that has one (the start's is the count), by plain
/// sets and a backward sum.
fn brute_force(p: &PegSolitaire<u64>) -> (Vec<u64>, Vec<u64>, HashMap<u64, u128>) {
    let mut layers: Vec<Vec<u64>> = vec![vec![p.start()]];
    loop {
        let mut next: Vec<u64> = Vec::new();
        for q in layers.last().unwrap() {
            p.for_each_move(q, |m| next.push(p.play_unchecked(q, m)));
        }
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            break;
        }
        layers.push(next);
    }
    let mut ways: HashMap<u64, u128> = HashMap::new();
    let mut to_goal = vec![0u64; layers.len()];
    for (d, layer) in layers.iter().enumerate().rev() {
        for q in layer {
            let mut n = p.is_goal(q) as u128;
            p.for_each_move(q, |m| {
                n += ways.get(&p.play_unchecked(q, m)).copied().unwrap_or(0)
            });
            if n > 0 {
                ways.insert(*q, n);
                to_goal[d] += 1;
            }
        }
    }
    let raw = layers.iter().map(|l| l.len() as u64).collect();
    (raw, to_goal, ways)
}

#[test]
fn dense_counts_agree_with_brute_force() {
    // The triangles' goal is the start's complement: their goal-reaching
    // layers come from the time reversal (`mirror.rs` in the core).
    use endgame_core::Reversible;
    let mirrored = problems()
        .iter()
        .filter(|(_, p)| p.reversal(&p.start()).is_some())
        .count();
    assert_eq!(
        mirrored, 3,
        "the triangles and the 6x3 have a time reversal"
    );
    for (name, p) in problems() {
        let (raw, to_goal, ways) = brute_force(&p);
        let solutions = ways.get(&p.start()).copied().unwrap_or(0);
        for mode in [Mode::Dense, Mode::Segmented] {
            let r = run(&p, mode, true, false);
            assert!(r.bitmap_bytes > 0, "{name}");
            let got: Vec<u64> = r.layers.iter().map(|l| l.raw).collect();
            assert_eq!(got, raw, "{name}: reachable positions per layer");
            let got: Vec<u64> = r.layers.iter().map(|l| l.to_goal_raw).collect();
            assert_eq!(got, to_goal, "{name}: goal-reaching positions per layer");
            assert_eq!(r.solutions, Some(solutions), "{name}: solutions");
            // Through each first move (its canonical child).
            for &(c, n) in &r.child_solutions {
                let want = ways.get(&c).copied().unwrap_or(0);
                assert_eq!(n, want, "{name}: solutions through {c:#x}");
            }
            let through: u128 = p
                .moves(&p.start())
                .iter()
                .map(|&m| {
                    ways.get(&p.play_unchecked(&p.start(), m))
                        .copied()
                        .unwrap_or(0)
                })
                .sum();
            assert_eq!(through, solutions, "{name}: first moves");
            assert!(p.score(&p.start()) as usize >= r.layers.len() - 1);
            // Without the first moves' counts or the goal layers (as
            // `count peg` asks), a puzzle with a time reversal counts from
            // its shallower half alone: the same counts.
            let half = LayeredOptions {
                first_moves: false,
                keep_goal_layers: false,
                ..options(mode, true, false)
            };
            let h = enumerate(&p, &half, &Silent).expect("small problems fit");
            assert_eq!(h.layers, r.layers, "{name}: halved");
            assert_eq!(h.solutions, r.solutions, "{name}: halved");
            assert_eq!(h.best_positions, r.best_positions, "{name}: halved");
            if p.reversal(&p.start()).is_some() {
                assert!(h.child_solutions.is_empty(), "{name}: halved");
            } else {
                assert_eq!(h.child_solutions, r.child_solutions, "{name}: halved");
            }
        }
    }
}

/// The batch of neighbour keys (`DenseKeys::neighbour_keys`, one loop
/// compiled for AVX-512 with VBMI2 and GFNI on the English and French
/// boards where the CPU has them, the plain route elsewhere) against each
/// position's children and parents made canonical one at a time and
/// keyed alone: the same keys, position by position, and `ends` marks
/// each position's.
#[test]
fn neighbour_keys_agree_with_canonical_moves_one_at_a_time() {
    use endgame_core::{Reversible, Symmetric};
    let mut list: Vec<(String, PegSolitaire<u64>)> = ["english", "french", "triangle"]
        .iter()
        .map(|b| (b.to_string(), small(&Spec::named(b))))
        .collect();
    // Diagonal jumps: eight directions.
    let mut diagonal = Spec::named("english");
    diagonal.diagonal = true;
    list.push(("english, diagonal".into(), small(&diagonal)));
    list.extend(problems());
    for (name, p) in list {
        let dk = p.dense_keys().expect("boards of at most 48 holes");
        // Positions of several depths, by a fixed walk of first moves
        // and second moves, and their complements (parents differ).
        let mut pos = vec![p.start()];
        let mut x = p.start();
        for step in 0..20 {
            let mut moves = Vec::new();
            p.for_each_move(&x, |m| moves.push(m));
            let Some(&m) = moves.get(step % moves.len().max(1)) else {
                break;
            };
            x = p.play_unchecked(&x, m);
            pos.push(x);
            pos.push(p.canonical(&x));
        }
        for forward in [true, false] {
            let (mut keys, mut ends) = (vec![7u64], Vec::new());
            dk.neighbour_keys(&pos, forward, &mut keys, &mut ends);
            assert_eq!(ends.len(), pos.len(), "{name}");
            let mut start = 1;
            for (q, &end) in pos.iter().zip(&ends) {
                let mut want = Vec::new();
                let mut add = |n: u64| want.push(dk.key(&p.canonical(&n)));
                if forward {
                    p.for_each_move(q, |m| add(p.play_unchecked(q, m)));
                } else {
                    p.for_each_parent(q, &mut add);
                }
                let mut got = keys[start..end as usize].to_vec();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{name}, forward {forward}, {q:#x}");
                start = end as usize;
            }
            assert_eq!(start, keys.len(), "{name}");
            if forward {
                let mut children = Vec::new();
                dk.child_keys(&pos, &mut children);
                assert_eq!(children, keys[1..], "{name}: child_keys");
            }
        }
    }
}
