//! The canonical form is exact: checked against the minimum over all n!
//! relabellings (written here independently, on adjacency matrices) for
//! n ≤ 6, and against Burnside's count of edge 3-colourings of K_n.

// Matrix code reads best with index loops.
#![allow(clippy::needless_range_loop)]

mod common;

use common::{all_perms, burnside};
use endgame_core::Symmetric;
use endgame_sim::{canon, Sim, SimPos};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};

/// Colour matrix of a position: 0 none, 1 red, 2 blue.
fn matrix(sim: &Sim, p: &SimPos) -> Vec<Vec<u8>> {
    let n = sim.n();
    let mut m = vec![vec![0u8; n]; n];
    let mut s = 0;
    for i in 0..n {
        for j in i + 1..n {
            let c = (p.red >> s & 1) as u8 | ((p.blue >> s & 1) as u8) << 1;
            m[i][j] = c;
            m[j][i] = c;
            s += 1;
        }
    }
    m
}

/// The brute-force key: the least upper-triangle reading over every
/// relabelling.
fn brute_key(m: &[Vec<u8>], perms: &[Vec<usize>]) -> Vec<u8> {
    let n = m.len();
    perms
        .iter()
        .map(|p| {
            let mut v = Vec::with_capacity(n * n / 2);
            for i in 0..n {
                for j in i + 1..n {
                    v.push(m[p[i]][p[j]]);
                }
            }
            v
        })
        .min()
        .unwrap()
}

/// Random colourings (not necessarily reachable: the canonical form is a
/// property of the coloured graph) with a bias to sparse, symmetric ones.
fn random_positions(sim: &Sim, count: usize, seed: u64) -> Vec<SimPos> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let segs = sim.segments();
    (0..count)
        .map(|_| {
            let density = rng.gen_range(0.0..1.0f64);
            let mut p = SimPos::default();
            for s in 0..segs {
                if rng.gen_bool(density) {
                    if rng.gen_bool(0.5) {
                        p.red |= 1 << s;
                    } else {
                        p.blue |= 1 << s;
                    }
                }
            }
            p
        })
        .collect()
}

#[test]
fn canonical_form_matches_brute_force_for_n_up_to_6() {
    for n in 3..=6 {
        let sim = Sim::new(n, false).unwrap();
        let perms = all_perms(n);
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let count = if n == 6 { 400 } else { 1500 };
        let mut fast_to_brute: HashMap<SimPos, Vec<u8>> = HashMap::new();
        let mut brute_to_fast: HashMap<Vec<u8>, SimPos> = HashMap::new();
        for p in random_positions(&sim, count, 100 + n as u64) {
            // The position and a random relabelling of it.
            let q = sim.apply_symmetry(rng.gen_range(0..sim.symmetry_count()), &p);
            for x in [p, q] {
                let fast = sim.canonical(&x);
                let brute = brute_key(&matrix(&sim, &x), &perms);
                // The canonical form is an image of the position.
                assert_eq!(brute_key(&matrix(&sim, &fast), &perms), brute);
                // fast(x) = fast(y) exactly when brute(x) = brute(y).
                assert_eq!(fast_to_brute.entry(fast).or_insert(brute.clone()), &brute);
                assert_eq!(brute_to_fast.entry(brute).or_insert(fast), &fast);
            }
            assert_eq!(sim.canonical(&p), sim.canonical(&q), "n={n} {p:?} {q:?}");
        }
    }
}

#[test]
fn canonical_form_is_invariant_under_relabelling_for_n_7_and_8() {
    for n in [7, 8] {
        let sim = Sim::new(n, false).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7 * n as u64);
        for p in random_positions(&sim, 300, n as u64) {
            let c = sim.canonical(&p);
            assert_eq!(sim.canonical(&c), c);
            for _ in 0..20 {
                let q = sim.apply_symmetry(rng.gen_range(0..sim.symmetry_count()), &p);
                assert_eq!(sim.canonical(&q), c, "n={n} {p:?} {q:?}");
            }
        }
    }
}

#[test]
fn classes_of_all_colourings_match_burnside() {
    for n in 3..=5 {
        let sim = Sim::new(n, false).unwrap();
        let segs = sim.segments() as u32;
        let mut keys = HashSet::new();
        for code in 0..3u64.pow(segs) {
            let mut c = code;
            let mut p = SimPos::default();
            for s in 0..segs {
                match c % 3 {
                    1 => p.red |= 1 << s,
                    2 => p.blue |= 1 << s,
                    _ => {}
                }
                c /= 3;
            }
            keys.insert(sim.canonical(&p));
        }
        assert_eq!(keys.len() as u64, burnside(n), "n={n}");
    }
    // The published values of K4 … K6 are checked in `published.rs`.
}

#[test]
fn degree_sort_is_sound_but_not_exact() {
    // The normal form of erik's Cassis article is always an image of the
    // position…
    let sim = Sim::k6();
    let mut split = 0;
    for p in random_positions(&sim, 300, 9) {
        let d = canon::degree_sorted(&sim, &p);
        assert_eq!(sim.canonical(&d), sim.canonical(&p));
        let q = sim.apply_symmetry(17, &p);
        if canon::degree_sorted(&sim, &q) != d {
            split += 1;
        }
    }
    // …but isomorphic positions often get different ones.
    assert!(split > 0);
}
