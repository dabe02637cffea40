//! What the solver tests share: positions of seeded random games and plain
//! memoised minimax, the independent method the exact solvers are checked
//! against.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use endgame_core::conformance::random_game_positions;
use endgame_core::{Rules, Value};
use endgame_pentago::{Pentago, Position};
use std::collections::HashMap;

/// The distinct unfinished positions with `min..=max` stones of
/// `playouts` random games seeded by `seed`, sorted.
pub fn positions(min: u32, max: u32, seed: u64, playouts: usize) -> Vec<Position> {
    let mut ps: Vec<Position> = random_game_positions(&Pentago, seed, playouts)
        .into_iter()
        .filter(|p| (min..=max).contains(&p.stones()) && p.outcome().is_none())
        .collect();
    ps.sort();
    ps.dedup();
    ps
}

/// Plain minimax, memoised, over the rules' own moves (which the
/// conformance battery checks against the naive model): no pruning, no
/// bounds, no ordering, no "wins this turn" test; it only stops looking at
/// a node's moves once one wins, which cannot change a maximum of 1.
/// 1 win, 0 draw, -1 loss for the player to move.
pub fn minimax(p: &Position, memo: &mut HashMap<Position, i8>) -> i8 {
    if let Some(v) = p.outcome() {
        return match v {
            Value::Win => 1,
            Value::Loss => -1,
            _ => 0,
        };
    }
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let mut best = -1;
    for m in Pentago.moves(p) {
        best = best.max(-minimax(&Pentago.play_unchecked(p, m), memo));
        if best == 1 {
            break;
        }
    }
    memo.insert(*p, best);
    best
}
