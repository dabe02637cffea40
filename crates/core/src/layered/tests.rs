//! Tests of the layers, the gather and the enumeration.

use super::gather::gather;
use super::layer::{bucket_of, hash_of, Layer, Sink};
use std::collections::BTreeSet;

/// A layer of `keys` partitioned into `nb` buckets, each sorted or
/// reversed.
fn layer_of(keys: &BTreeSet<u64>, nb: usize, sorted: bool) -> Layer<u64> {
    let mut buckets = vec![Vec::new(); nb];
    for &k in keys {
        buckets[bucket_of(hash_of(&k), nb)].push(k);
    }
    if !sorted {
        buckets.iter_mut().for_each(|b| b.reverse());
    }
    Layer::from_parts(buckets, sorted)
}

#[test]
fn gather_keeps_exactly_the_members_in_every_route() {
    // Each source names three items, with many duplicates.
    let sources: Vec<u64> = (0..4000).collect();
    let produce = |&x: &u64, sink: &mut Sink<u64, ()>| {
        for m in [7, 13, 29] {
            sink.push(x * m % 2003, ());
        }
    };
    let all: BTreeSet<u64> = sources
        .iter()
        .flat_map(|x| [7, 13, 29].map(|m| x * m % 2003))
        .collect();
    let odd: BTreeSet<u64> = (0..3000).filter(|k| k % 2 == 1).collect();
    let nb = 16;
    let item = std::mem::size_of::<u64>();
    let est = 3 * sources.len();
    // Room for all the scatter buffers at once, or only for a fifth
    // of them beside the runs: the sources are then taken in batches.
    let roomy = est * item * 4;
    let tight = (est as f64 * 0.2 * 1.5) as usize * item + est * item / 4;
    for avail in [roomy, tight] {
        for sort in [true, false] {
            for within in [None, Some(true), Some(false)] {
                let w = within.map(|s| layer_of(&odd, nb, s));
                let g = gather::<u64, u64, (), u64>(
                    &[&sources],
                    &[],
                    nb,
                    est,
                    0.2,
                    avail,
                    &produce,
                    &|_, _| {},
                    &|_, entries, out| {
                        out.extend(entries.iter().map(|e| e.0));
                        entries.len() as u64
                    },
                    w.as_ref(),
                    sort,
                )
                .expect("fits");
                let case = format!("avail {avail}, sort {sort}, within {within:?}");
                let expected: BTreeSet<u64> = match within {
                    Some(_) => all.intersection(&odd).copied().collect(),
                    None => all.clone(),
                };
                let got: Vec<u64> = g.buckets.iter().flatten().copied().collect();
                assert_eq!(got.len(), expected.len(), "{case}: no duplicates");
                assert_eq!(
                    got.iter().copied().collect::<BTreeSet<_>>(),
                    expected,
                    "{case}"
                );
                assert_eq!(g.distinct, all.len() as u64, "{case}");
                assert_eq!(g.tally, expected.len() as u64, "{case}");
                for (b, bucket) in g.buckets.iter().enumerate() {
                    assert!(
                        bucket.iter().all(|k| bucket_of(hash_of(k), nb) == b),
                        "{case}: bucket {b}"
                    );
                    if g.sorted {
                        assert!(bucket.is_sorted(), "{case}: bucket {b} sorted");
                    }
                }
                // What the caller asked for, or the order of a sorted
                // `within`, comes out sorted.
                if sort && within != Some(false) || within == Some(true) {
                    assert!(g.sorted, "{case}");
                }
                let layer = Layer::from_parts(g.buckets, g.sorted);
                assert!(expected.iter().all(|k| layer.contains(k)), "{case}");
                assert!(!layer.contains(&5000), "{case}");
            }
        }
    }
}

/// Positions that differ only in their high holes spread over the buckets
/// (see [`hash_of`]): 256 keys differing only in bits 40..48 reach 44 of
/// 64 buckets, and in bits 100..108 of a `u128` all 64 (rustc-hash's
/// FxHasher puts them in 1 and 4; a random hash would reach about 63).
#[test]
fn high_holes_spread_over_the_buckets() {
    let nb = 64;
    let spread = |hashes: Vec<u64>| {
        let hit: BTreeSet<usize> = hashes.into_iter().map(|h| bucket_of(h, nb)).collect();
        hit.len()
    };
    let base = 0b1011_0110_1101u64;
    let wide = spread((0..256u64).map(|j| hash_of(&(base | j << 40))).collect());
    assert!(wide >= 32, "{wide} buckets");
    let high = spread(
        (0..256u128)
            .map(|j| hash_of(&(u128::from(base) | j << 100)))
            .collect(),
    );
    assert!(high >= 32, "{high} buckets");
}

#[test]
fn a_ranked_layer_answers_membership_and_partitions_by_hash() {
    // Every third number below 300,000, cut into uneven runs, some empty.
    let keys: Vec<u64> = (0..100_000u64).map(|i| 3 * i).collect();
    let mut runs = Vec::new();
    let mut rest = keys.as_slice();
    for n in [0, 1, 5_000, 0, 37_000, 2, 100_000] {
        let (run, tail) = rest.split_at(n.min(rest.len()));
        runs.push(run.to_vec());
        rest = tail;
    }
    let ranked = Layer::ranked(runs, (3, 0));
    assert_eq!(ranked.len(), keys.len());
    assert!(ranked.buckets.iter().all(|b| !b.is_empty()));
    for x in [
        0, 1, 2, 3, 14_999, 15_000, 126_003, 299_997, 299_998, 300_000,
    ] {
        assert_eq!(ranked.contains(&x), x % 3 == 0 && x < 300_000, "{x}");
    }
    let hashed = ranked.to_hashed().expect("a ranked layer is converted");
    assert!(hashed.ranked.is_none() && hashed.sorted);
    assert!(hashed.to_hashed().is_none());
    let nb = hashed.nb();
    assert!(nb > 1);
    let mut all: Vec<u64> = Vec::new();
    for (b, bucket) in hashed.buckets.iter().enumerate() {
        assert!(bucket.is_sorted(), "bucket {b} sorted");
        assert!(bucket.iter().all(|k| bucket_of(hash_of(k), nb) == b));
        all.extend(bucket);
    }
    all.sort_unstable();
    assert_eq!(all, keys);
    for x in [0, 1, 126_003, 299_998] {
        assert_eq!(hashed.contains(&x), ranked.contains(&x), "{x}");
    }
}

/// Pegs left in a bitmask; no moves (only the scores matter here).
struct Popcount;

impl crate::Rules for Popcount {
    type Position = u64;
    type Move = ();
    fn start(&self) -> u64 {
        0
    }
    fn for_each_move(&self, _: &u64, _: impl FnMut(())) {}
    fn play_unchecked(&self, p: &u64, _: ()) -> u64 {
        *p
    }
}

impl crate::Puzzle for Popcount {
    fn score(&self, p: &u64) -> u32 {
        p.count_ones()
    }
    fn is_goal(&self, p: &u64) -> bool {
        p.count_ones() == 1
    }
    fn score_bound(&self) -> u32 {
        1
    }
}

impl crate::Reversible for Popcount {
    fn goals(&self) -> Vec<u64> {
        (0..64).map(|b| 1 << b).collect()
    }
    fn for_each_parent(&self, _: &u64, _: impl FnMut(u64)) {}
}

impl crate::Symmetric for Popcount {
    fn symmetry_count(&self) -> usize {
        1
    }
    fn apply_symmetry(&self, _: usize, p: &u64) -> u64 {
        *p
    }
}

#[test]
fn a_whole_layer_taken_in_keeps_what_a_member_scan_keeps() {
    use super::full::Best;
    // Layers of mixed scores, in an order where the best score falls,
    // stays and rises; caps below, at and above the counts.
    let layers: Vec<BTreeSet<u64>> = [(1u64, 900), (5000, 700), (77, 3000), (0, 0), (12345, 5000)]
        .iter()
        .map(|&(seed, n)| (0..n).map(|i| (i * 2654435761 + seed) % 4096).collect())
        .collect();
    for cap in [0, 1, 7, 40, 100_000] {
        let (mut whole, mut scanned) = (Best::new(cap), Best::new(cap));
        for (i, keys) in layers.iter().enumerate() {
            let layer = layer_of(keys, 1 + i * 5, i % 2 == 0);
            whole.add(&Popcount, &layer);
            let low = layer.iter().map(|p| p.count_ones()).min();
            scanned.add_members(&Popcount, low, layer.iter());
            assert_eq!(whole.score, scanned.score, "cap {cap}, layer {i}");
            assert_eq!(whole.count, scanned.count, "cap {cap}, layer {i}");
            assert_eq!(whole.positions, scanned.positions, "cap {cap}, layer {i}");
        }
        assert!(whole.count > 0);
    }
}
