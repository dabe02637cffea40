//! Published numbers for the English central game (OEIS A112737, A112738,
//! George Bell's count of solutions, arXiv:0903.3696).

use endgame_core::layered::{enumerate, LayeredOptions, Silent};
use endgame_peg::{Board, Goal, Problem, Pruning};
use std::sync::Arc;

fn english_central() -> Problem<u64> {
    let b = Arc::new(Board::named("english", false).unwrap());
    let d4 = b.hole("d4").unwrap();
    let start: Vec<bool> = (0..b.holes()).map(|h| h != d4).collect();
    Problem::new(b, &start, Goal::Pattern(vec![d4]), Pruning::default()).unwrap()
}

#[test]
fn english_central_layers_goal_set_and_solutions_match_published_counts() {
    let p = english_central();
    let r = enumerate(&p, &LayeredOptions::default(), &Silent).unwrap();
    // A112737: distinct positions (up to symmetry) after n jumps.
    let a112737: [u64; 32] = [
        1, 1, 2, 8, 39, 171, 719, 2757, 9751, 31312, 89927, 229614, 517854, 1022224, 1753737,
        2598215, 3312423, 3626632, 3413313, 2765623, 1930324, 1160977, 600372, 265865, 100565,
        32250, 8688, 1917, 348, 50, 7, 2,
    ];
    let reduced: Vec<u64> = r.layers.iter().map(|l| l.reduced).collect();
    assert_eq!(reduced, a112737.to_vec());
    assert_eq!(reduced.iter().sum::<u64>(), 23_475_688);
    let raw: u64 = r.layers.iter().map(|l| l.raw).sum();
    assert_eq!(raw, 187_636_299);
    // A112738: those that can still reach one peg in the centre.
    let a112738_head: [u64; 16] = [
        1, 1, 2, 8, 38, 164, 635, 2089, 6174, 16020, 35749, 68326, 112788, 162319, 204992, 230230,
    ];
    let good: Vec<u64> = r.layers.iter().map(|l| l.to_goal_reduced).collect();
    assert_eq!(&good[..16], &a112738_head[..]);
    // The sequence is a palindrome: a(n) = a(31 - n).
    for n in 0..32 {
        assert_eq!(good[n], good[31 - n], "layer {n}");
    }
    assert_eq!(good.iter().sum::<u64>(), 1_679_072);
    assert_eq!(r.solutions, Some(40_861_647_040_079_968));
    assert!(r.goal_reachable);
    assert_eq!(r.best_score, 1);
}
