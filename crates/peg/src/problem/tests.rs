use super::d4::{d4_gfni, gfni_simd};
use super::*;
use endgame_core::dense::DenseKeys;
use endgame_core::layered::{enumerate, LayeredError, LayeredOptions, Silent};
use endgame_core::{Puzzle, Reversible, Rules, Symmetric};

fn problem<B: Bits>(board: &str, vacate: &[&str], goal: Option<&str>) -> PegSolitaire<B> {
    let b = Arc::new(Board::named(board, false).unwrap());
    let empty: Vec<usize> = vacate.iter().map(|h| b.hole(h).unwrap()).collect();
    let start: Vec<bool> = (0..b.holes()).map(|h| !empty.contains(&h)).collect();
    let goal = match goal {
        Some(h) => Goal::Pattern(vec![b.hole(h).unwrap()]),
        None => Goal::AnyOne,
    };
    PegSolitaire::new(b, &start, goal, Pruning::default()).unwrap()
}

/// Positions along random lines of play from the start.
fn sample<B: Bits>(p: &PegSolitaire<B>) -> Vec<B> {
    let mut out = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..40 {
        let mut pos = p.start();
        loop {
            out.push(pos);
            let moves = p.moves(&pos);
            if moves.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pos = p.play_unchecked(&pos, moves[(seed >> 33) as usize % moves.len()]);
        }
    }
    out
}

/// The fast symmetry routes (delta swaps, XOR images, orbit counts)
/// agree with the byte tables and the trait's plain definitions.
fn fast_routes_agree<B: Bits>(p: &PegSolitaire<B>) {
    let n = p.group.len();
    for pos in sample(p) {
        let images: Vec<B> = (0..n)
            .map(|g| {
                let base = g * p.nbytes;
                (0..p.nbytes).fold(B::ZERO, |o, k| o | p.sym_table[base + k][pos.byte(k)])
            })
            .collect();
        for (g, &img) in images.iter().enumerate() {
            assert_eq!(p.transform(g, pos), img, "{}: symmetry {g}", p.board.name());
        }
        let mut distinct = images.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(p.canonical(&pos), distinct[0]);
        assert_eq!(p.orbit_size(&pos), distinct.len() as u32);
        assert_eq!(
            p.canonical_and_orbit(&pos),
            (distinct[0], distinct.len() as u32)
        );
        let mut fast = Vec::new();
        p.for_each_canonical_child_orbit(&pos, |c, o| fast.push((c, o)));
        let mut plain = Vec::new();
        p.for_each_move(&pos, |m| {
            let c = p.play_unchecked(&pos, m);
            plain.push((p.canonical(&c), p.orbit_size(&c)));
        });
        assert_eq!(fast, plain, "children of {pos:?}");
        let mut fast = Vec::new();
        assert!(p.for_each_canonical_parent_orbit(&pos, |c, o| fast.push((c, o))));
        let mut plain = Vec::new();
        p.for_each_parent(&pos, |q| plain.push((p.canonical(&q), p.orbit_size(&q))));
        assert_eq!(fast, plain, "parents of {pos:?}");
    }
}

#[test]
fn gfni_images_agree_with_the_delta_swaps() {
    if !gfni_simd() {
        eprintln!("no AVX-512 with GFNI here: nothing to compare");
        return;
    }
    let rect = Arc::new(Board::from_art("rect", "ooooo/ooooo/ooooo", false).unwrap());
    let start: Vec<bool> = (0..rect.holes()).map(|h| h != 0).collect();
    let rect: PegSolitaire<u64> =
        PegSolitaire::new(rect, &start, Goal::AnyOne, Pruning::default()).unwrap();
    let english: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    let french: PegSolitaire<u128> = problem("french", &["d4"], None);
    fn check<B: Bits>(p: &PegSolitaire<B>) {
        let d4 = p.d4.as_ref().expect("a grid board has delta swaps");
        for pos in sample(p) {
            // SAFETY: checked above that the CPU has the features.
            let fast = unsafe { d4_gfni(d4, pos) };
            assert_eq!(fast, d4.all(pos), "{}: {pos:?}", p.board.name());
        }
    }
    check(&rect);
    check(&english);
    check(&french);
}

/// The time reversal exists exactly when the goal is the start's
/// complement, and turns every jump round: q is a child of p exactly
/// when σ(p) is a child of σ(q).
#[test]
fn the_reversal_is_the_complement_of_a_self_complementary_game() {
    let central: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    let goal = central.goals()[0];
    assert_eq!(central.reversal(&central.start()), Some(goal));
    for pos in sample(&central) {
        let s = central.reversal(&pos).expect("a reversal");
        assert_eq!(central.reversal(&s), Some(pos));
        assert_eq!(s.count() + pos.count(), 33);
        central.for_each_move(&pos, |m| {
            let child = central.play_unchecked(&pos, m);
            let sc = central.reversal(&child).expect("a reversal");
            let mut found = false;
            central.for_each_move(&sc, |n| found |= central.play_unchecked(&sc, n) == s);
            assert!(found, "σ of {pos:?} is not a child of σ of its child");
        });
    }
    assert_eq!(
        problem::<u64>("english", &["d4"], Some("c4")).reversal(&goal),
        None
    );
    assert_eq!(
        problem::<u64>("english", &["d4"], None).reversal(&goal),
        None
    );
}

#[test]
fn fast_symmetry_routes_agree_with_the_definitions() {
    fast_routes_agree(&problem::<u64>("english", &["d4"], Some("d4")));
    fast_routes_agree(&problem::<u64>("english", &["c1"], None));
    fast_routes_agree(&problem::<u64>("french", &["d4"], None));
    fast_routes_agree(&problem::<u64>("triangle", &["a1"], None));
    fast_routes_agree(&problem::<u128>("wiegleb", &["e5"], Some("e5")));
    fast_routes_agree(&problem::<u128>("diamond", &["e5"], None));
    let english: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    assert!(english.d4.is_some(), "the English board uses delta swaps");
}

/// The pruning tests by byte tables (class parities XORed, eight pagoda
/// functions summed a pass) agree with their definitions: a popcount per
/// class mask, and each function's weights summed over the pegs.
fn pruning_tables_agree<B: Bits>(p: &PegSolitaire<B>) {
    let mut positions = sample(p);
    // Arbitrary positions too, not only reachable ones.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let pegs: Vec<bool> = (0..p.board.holes())
            .map(|h| seed.rotate_left(h as u32) & 5 != 0)
            .collect();
        positions.push(p.position_of((0..p.board.holes()).filter(|&h| pegs[h])));
    }
    for pos in positions {
        let holes: Vec<usize> = pos.ones().filter_map(|b| p.bit_hole[b]).collect();
        assert_eq!(p.class_bits(pos), p.class_bits_by_masks(pos));
        let mut fails = false;
        for (i, (pg, need)) in p.pagodas.iter().enumerate() {
            let v: i64 = holes.iter().map(|&h| pg.weights[h]).sum();
            assert_eq!(p.pagoda_value(i, pos), v, "{}: pagoda {i}", p.board.name());
            fails |= v < *need;
        }
        assert_eq!(p.pagoda_fails(pos), fails, "{}: {pos:?}", p.board.name());
        // The same verdicts on the position's dense key: the scalar sum
        // and the batch test (in registers where the CPU has them).
        if let Some(t) = &p.key_pagodas {
            let key = DenseKeys::key(p, &pos);
            assert_eq!(PegSolitaire::<B>::key_pagoda_fails(t, key), fails);
            let mut keys = vec![key];
            assert!(DenseKeys::prune_keys(p, &mut keys));
            assert_eq!(keys.is_empty(), p.cannot_reach_goal(&pos));
        }
    }
}

#[test]
fn pruning_tables_agree_with_the_definitions() {
    let english: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    assert!(!english.pagodas.is_empty(), "the central game has pagodas");
    assert!(english.key_pagodas.is_some(), "and tests them on keys");
    pruning_tables_agree(&english);
    pruning_tables_agree(&problem::<u64>("english", &["c1"], Some("c1")));
    pruning_tables_agree(&problem::<u64>("french", &["d4"], Some("d4")));
    pruning_tables_agree(&problem::<u64>("triangle", &["a1"], Some("a1")));
    pruning_tables_agree(&problem::<u128>("wiegleb", &["e5"], Some("e5")));
    pruning_tables_agree(&problem::<u128>("diamond", &["e5"], Some("e5")));
}

/// The goal-only enumeration (from both ends, with and without
/// pruning, with a tight budget) agrees with the full one.
fn modes_agree<B: Bits>(p: &PegSolitaire<B>) {
    let full = enumerate(p, &LayeredOptions::default(), &Silent).unwrap();
    assert!(full.complete);
    for opts in [
        LayeredOptions {
            count_all: false,
            ..LayeredOptions::default()
        },
        LayeredOptions {
            count_all: false,
            prune: true,
            ..LayeredOptions::default()
        },
        LayeredOptions {
            prune: true,
            ..LayeredOptions::default()
        },
        LayeredOptions {
            count_all: false,
            count_solutions: false,
            ..LayeredOptions::default()
        },
    ] {
        let r = enumerate(p, &opts, &Silent).unwrap();
        assert!(!r.complete);
        // Without counting, the mirrored route leaves the count out;
        // with it, it counts from the shallower half alone, without
        // the solutions through each first move.
        let mirrored = !opts.count_all && p.reversal(&p.start()).is_some();
        let expected = if mirrored && !opts.count_solutions {
            None
        } else {
            full.solutions
        };
        assert_eq!(r.solutions, expected, "{opts:?}");
        assert_eq!(r.goal_reachable, full.goal_reachable);
        let good = |r: &endgame_core::layered::LayeredReport<B>| {
            r.layers
                .iter()
                .map(|l| (l.to_goal_reduced, l.to_goal_raw))
                .filter(|&x| x != (0, 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(good(&r), good(&full), "{opts:?}");
        if !mirrored {
            assert_eq!(r.child_solutions, full.child_solutions);
        }
    }
}

#[test]
fn goal_only_enumeration_agrees_with_the_full_one() {
    modes_agree(&problem::<u64>("triangle", &["a1"], None));
    modes_agree(&problem::<u64>("triangle", &["c3"], Some("c3")));
    modes_agree(&problem::<u64>("triangle6", &["a1"], None));
    modes_agree(&problem::<u64>(
        "english",
        &["d4", "c4", "e4", "d3", "d5"],
        None,
    ));
}

#[test]
fn goal_only_enumeration_agrees_when_the_middle_is_one_layer() {
    // An even number of moves: the two halves meet in one layer,
    // mirrored onto itself, rather than across the middle move.
    let mut met = 0;
    for (art, diagonal) in [("oooo/oooo/oooo/oooo", false), ("oooo/oooo/oooo", true)] {
        let b = Arc::new(Board::from_art("even", art, diagonal).unwrap());
        assert_eq!(b.holes() % 2, 0);
        for h in 0..b.holes() {
            let start: Vec<bool> = (0..b.holes()).map(|k| k != h).collect();
            let goal = Goal::Pattern(vec![h]);
            let p: PegSolitaire<u64> =
                PegSolitaire::new(b.clone(), &start, goal, Pruning::default()).unwrap();
            if p.reversal(&p.start()).is_none() {
                continue;
            }
            let full = enumerate(&p, &LayeredOptions::default(), &Silent).unwrap();
            if full.goal_reachable {
                modes_agree(&p);
                met += 1;
            }
        }
    }
    assert!(met > 0, "no solvable problem with an even number of moves");
}

#[test]
fn english_goal_only_counts_match_published_ones() {
    let p: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    let opts = LayeredOptions {
        count_all: false,
        // Tight enough that the largest layers are built in batches.
        max_bytes: 300 << 20,
        ..LayeredOptions::default()
    };
    let r = enumerate(&p, &opts, &Silent).unwrap();
    // A112738: positions that can still reach one peg in the centre.
    let head: [u64; 16] = [
        1, 1, 2, 8, 38, 164, 635, 2089, 6174, 16020, 35749, 68326, 112788, 162319, 204992, 230230,
    ];
    let good: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
    assert_eq!(&good[..16], &head[..]);
    assert_eq!(good.iter().sum::<u64>(), 1_679_072);
    assert_eq!(r.solutions, Some(40_861_647_040_079_968));
    // The same set from the two ends alone, without the counting pass.
    let opts = LayeredOptions {
        count_solutions: false,
        ..opts
    };
    let r = enumerate(&p, &opts, &Silent).unwrap();
    let mirrored: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
    assert_eq!(mirrored, good);
    assert_eq!(r.solutions, None);
    // Too tight for the meeting's semi-join: the gathered route.
    let r = enumerate(
        &p,
        &LayeredOptions {
            max_bytes: 200 << 20,
            ..opts
        },
        &Silent,
    )
    .unwrap();
    let gathered: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
    assert_eq!(gathered, good);
}

#[test]
fn a_small_budget_is_reported() {
    let p: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    let opts = LayeredOptions {
        max_bytes: 4 << 20,
        ..LayeredOptions::default()
    };
    let e = enumerate(&p, &opts, &Silent).unwrap_err();
    let LayeredError::MemoryBudget { budget, .. } = e else {
        panic!("expected the memory budget error, got {e}");
    };
    assert_eq!(budget, 4 << 20);
}

#[test]
fn search_order_finds_the_english_solution_quickly() {
    let p: PegSolitaire<u64> = problem("english", &["d4"], Some("d4"));
    let r = endgame_core::dfs::solve(&p, &p.start(), &Default::default());
    assert!(r.reached_goal);
    assert!(r.expansions < 2_000, "{} expansions", r.expansions);
}
