//! The conformance battery every game of Endgame passes.
//!
//! In the spirit of OpenSpiel's per-game checks and GamesmanOne's API
//! self-tests: random playouts, then on every position visited —
//! move generation against a naive generator, legality of moves seen
//! elsewhere, symmetry invariance of canonical forms, parent/child
//! consistency, and notation round-trips. Each check returns `Err` with a
//! message naming the position and the failure.

use crate::{Game, Notation, Reversible, Rules, Symmetric};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Debug;

/// Positions visited by `playouts` random games from the start (the start
/// included), reproducibly for a given `seed`.
pub fn random_positions<R: Rules>(rules: &R, seed: u64, playouts: usize) -> Vec<R::Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..playouts {
        let mut pos = rules.start();
        loop {
            out.push(pos);
            let moves = rules.moves(&pos);
            let Some(&m) = moves.choose(&mut rng) else {
                break;
            };
            pos = rules.play_unchecked(&pos, m);
        }
    }
    out
}

/// Random positions of a game, stopping each playout at a terminal one.
pub fn random_game_positions<G: Game>(game: &G, seed: u64, playouts: usize) -> Vec<G::Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..playouts {
        let mut pos = game.start();
        loop {
            out.push(pos);
            if game.outcome(&pos).is_some() {
                break;
            }
            let moves = game.moves(&pos);
            let Some(&m) = moves.choose(&mut rng) else {
                break;
            };
            pos = game.play_unchecked(&pos, m);
        }
    }
    out
}

fn fail<T: Debug>(what: &str, pos: &T) -> Result<(), String> {
    Err(format!("{what} (position {pos:?})"))
}

/// Generated moves are distinct, legal, and exactly the naive generator's
/// set; every move seen in another position that is not generated here is
/// reported illegal by both [`Rules::is_legal`] and [`Rules::play`].
pub fn check_move_generation<R: Rules>(
    rules: &R,
    positions: &[R::Position],
    naive: impl Fn(&R::Position) -> Vec<R::Move>,
) -> Result<(), String>
where
    R::Move: Ord,
{
    let mut seen: Vec<R::Move> = Vec::new();
    for pos in positions {
        let mut fast = rules.moves(pos);
        let mut slow = naive(pos);
        fast.sort();
        slow.sort();
        let n = fast.len();
        fast.dedup();
        if fast.len() != n {
            return fail("move generator yields a move twice", pos);
        }
        if fast != slow {
            return Err(format!(
                "move generator and naive generator disagree at {pos:?}: fast {fast:?}, naive {slow:?}"
            ));
        }
        for &m in &fast {
            if !rules.is_legal(pos, m) {
                return Err(format!("generated move {m:?} not legal at {pos:?}"));
            }
            match rules.play(pos, m) {
                Ok(c) if c == rules.play_unchecked(pos, m) => {}
                _ => {
                    return Err(format!(
                        "play and play_unchecked disagree on {m:?} at {pos:?}"
                    ))
                }
            }
        }
        for &m in &seen {
            if fast.binary_search(&m).is_err()
                && (rules.is_legal(pos, m) || rules.play(pos, m).is_ok())
            {
                return Err(format!("move {m:?} accepted at {pos:?} but not generated"));
            }
        }
        for m in fast {
            if let Err(i) = seen.binary_search(&m) {
                seen.insert(i, m);
            }
        }
    }
    Ok(())
}

/// The canonical form is one of the position's images, is the same for
/// every image, and is idempotent; orbit sizes divide the group order;
/// symmetries preserve the number of moves.
pub fn check_symmetry<R: Symmetric>(rules: &R, positions: &[R::Position]) -> Result<(), String> {
    let n = rules.symmetry_count();
    if n == 0 || rules.apply_symmetry(0, &rules.start()) != rules.start() {
        return fail("symmetry 0 must be the identity", &rules.start());
    }
    for pos in positions {
        let c = rules.canonical(pos);
        if rules.canonical(&c) != c {
            return fail("canonical form is not idempotent", pos);
        }
        let images: Vec<_> = (0..n).map(|i| rules.apply_symmetry(i, pos)).collect();
        if !images.contains(&c) {
            return fail("canonical form is not an image of the position", pos);
        }
        let moves = rules.moves(pos).len();
        for img in &images {
            if rules.canonical(img) != c {
                return Err(format!(
                    "canonical form differs for image {img:?} of {pos:?}"
                ));
            }
            if rules.moves(img).len() != moves {
                return Err(format!(
                    "image {img:?} of {pos:?} has a different number of moves"
                ));
            }
        }
        let (c2, orbit) = rules.canonical_and_orbit(pos);
        if c2 != c || orbit == 0 || !n.is_multiple_of(orbit as usize) {
            return fail("canonical_and_orbit inconsistent", pos);
        }
        let mut fast = Vec::new();
        rules.for_each_canonical_child(pos, |k| fast.push(k));
        let mut slow: Vec<_> = rules
            .moves(pos)
            .into_iter()
            .map(|m| rules.canonical(&rules.play_unchecked(pos, m)))
            .collect();
        fast.sort();
        slow.sort();
        if fast != slow {
            return fail(
                "for_each_canonical_child disagrees with play + canonical",
                pos,
            );
        }
    }
    Ok(())
}

/// Every child lists its parent among its parents, once per move between
/// them, and every listed parent really has a move to the child.
pub fn check_parents<R: Reversible>(rules: &R, positions: &[R::Position]) -> Result<(), String> {
    for pos in positions {
        let mut children: Vec<R::Position> = rules
            .moves(pos)
            .into_iter()
            .map(|m| rules.play_unchecked(pos, m))
            .collect();
        children.sort();
        for (i, c) in children.iter().enumerate() {
            if i > 0 && children[i - 1] == *c {
                continue;
            }
            let moves_here = children.iter().filter(|x| *x == c).count();
            let mut parents = Vec::new();
            rules.for_each_parent(c, |p| parents.push(p));
            if parents.iter().filter(|p| *p == pos).count() != moves_here {
                return Err(format!(
                    "child {c:?} does not list parent {pos:?} once per move"
                ));
            }
            for p in parents {
                let reaches = rules
                    .moves(&p)
                    .into_iter()
                    .any(|m| rules.play_unchecked(&p, m) == *c);
                if !reaches {
                    return Err(format!("listed parent {p:?} has no move to {c:?}"));
                }
            }
        }
    }
    Ok(())
}

/// Positions and moves survive a round trip through the notation.
pub fn check_notation<R: Notation>(rules: &R, positions: &[R::Position]) -> Result<(), String> {
    for pos in positions {
        let text = rules.format_position(pos);
        match rules.parse_position(&text) {
            Ok(p) if p == *pos => {}
            Ok(p) => return Err(format!("{text:?} parses back to {p:?}, not {pos:?}")),
            Err(e) => {
                return Err(format!(
                    "{text:?} (written from {pos:?}) does not parse: {e}"
                ))
            }
        }
        for m in rules.moves(pos) {
            let t = rules.format_move(m);
            match rules.parse_move(&t) {
                Ok(back) if back == m => {}
                _ => return Err(format!("move {m:?} written {t:?} does not parse back")),
            }
        }
    }
    Ok(())
}

/// A non-terminal position of a game has a legal move.
pub fn check_game_terminals<G: Game>(game: &G, positions: &[G::Position]) -> Result<(), String> {
    for pos in positions {
        if game.outcome(pos).is_none() && game.moves(pos).is_empty() {
            return fail("non-terminal position without legal moves", pos);
        }
    }
    Ok(())
}
