//! The Sim players a battle builds by name.
//!
//! - `perfect`: the solver's best move (fastest win, slowest loss), from a
//!   table of canonical positions it fills as the game goes.
//! - `random`: a uniformly random legal move.
//! - `avoid`: the simple AI of erik's Cassis article: never completes its
//!   own triangle when another move exists (standard rule); under the
//!   misère rule it completes one whenever it can. Otherwise random.
//! - `search`: depth-limited negamax with alpha-beta (depth 4, or
//!   `search:D`), leaves scored by safe moves left to each side.

use crate::game::{Segment, Sim, SimPos};
use crate::solve::{self, Table};
use crate::SimError;
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Game, Rules, Value};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The names [`by_name`] knows (`search` also takes a depth: `search:6`).
pub const NAMES: &[&str] = &["perfect", "random", "avoid", "search"];

/// Builds the player called `name` for `game`, its randomness seeded by
/// `seed`.
pub fn by_name(name: &str, game: &Sim, seed: u64) -> Result<Box<dyn Player<Sim>>, SimError> {
    let unknown = || SimError::UnknownPlayer(name.to_string(), NAMES.join(", "));
    let rng = ChaCha8Rng::seed_from_u64(seed);
    Ok(match name.trim() {
        "perfect" => Box::new(Perfect::new(game)),
        "random" => Box::new(RandomPlayer { rng }),
        "avoid" => Box::new(Avoid { rng }),
        "search" => Box::new(Search { depth: 4, rng }),
        other => {
            let d = other.strip_prefix("search:").ok_or_else(unknown)?;
            let depth: u32 = d.parse().map_err(|_| unknown())?;
            if depth == 0 || depth > 28 {
                return Err(unknown());
            }
            Box::new(Search { depth, rng })
        }
    })
}

/// Plays the solver's best move.
pub struct Perfect {
    table: Table,
    variant: (usize, bool),
}

impl Perfect {
    /// A perfect player for `game` with an empty table.
    pub fn new(game: &Sim) -> Perfect {
        Perfect {
            table: Table::default(),
            variant: (game.n(), game.misere()),
        }
    }
}

impl Player<Sim> for Perfect {
    fn name(&self) -> String {
        "perfect".into()
    }

    fn choose(&mut self, game: &Sim, pos: &SimPos, _limits: &MoveLimits) -> Segment {
        if self.variant != (game.n(), game.misere()) {
            // The table belongs to one variant; start afresh for another.
            self.table.clear();
            self.variant = (game.n(), game.misere());
        }
        solve::best_move(game, &mut self.table, pos)
            .expect("choose is called on positions with moves")
            .0
    }
}

/// A uniformly random legal move.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl Player<Sim> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &Sim, pos: &SimPos, _limits: &MoveLimits) -> Segment {
        *game
            .moves(pos)
            .choose(&mut self.rng)
            .expect("choose is called on positions with moves")
    }
}

/// The moves of `pos` that do not complete a triangle of the mover's own
/// colour, and those that do.
fn split_moves(game: &Sim, pos: &SimPos) -> (Vec<Segment>, Vec<Segment>) {
    let (mine, _) = game.sides(pos);
    game.moves(pos)
        .into_iter()
        .partition(|&m| !game.closes_triangle(mine, m))
}

/// The simple AI of erik's Cassis article: avoid completing your own
/// triangle (standard), or complete one whenever possible (misère); random
/// otherwise.
pub struct Avoid {
    rng: ChaCha8Rng,
}

impl Player<Sim> for Avoid {
    fn name(&self) -> String {
        "avoid".into()
    }

    fn choose(&mut self, game: &Sim, pos: &SimPos, _limits: &MoveLimits) -> Segment {
        let (safe, closing) = split_moves(game, pos);
        let pool = if (game.misere() && !closing.is_empty()) || safe.is_empty() {
            closing
        } else {
            safe
        };
        *pool
            .choose(&mut self.rng)
            .expect("choose is called on positions with moves")
    }
}

/// Depth-limited negamax with alpha-beta.
pub struct Search {
    depth: u32,
    rng: ChaCha8Rng,
}

/// Score of a won position, above every heuristic score.
const WIN: i32 = 1000;

/// Heuristic score for the player to move: segments still safe for him
/// minus those safe for the opponent (standard); under misère, segments
/// that would complete his triangle minus the opponent's.
fn evaluate(game: &Sim, pos: &SimPos) -> i32 {
    let (mine, theirs) = game.sides(pos);
    let free = game.full() & !(pos.red | pos.blue);
    let (mut a, mut b) = (0, 0);
    let mut m = free;
    while m != 0 {
        let s = Segment(m.trailing_zeros() as u8);
        m &= m - 1;
        a += game.closes_triangle(mine, s) as i32;
        b += game.closes_triangle(theirs, s) as i32;
    }
    // Standard: a segment closing my triangle is one I cannot use.
    if game.misere() {
        a - b
    } else {
        b - a
    }
}

fn negamax(game: &Sim, pos: &SimPos, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    match game.outcome(pos) {
        // Faster results score further from zero.
        Some(Value::Win) => return WIN + depth as i32,
        Some(Value::Loss) => return -WIN - depth as i32,
        Some(_) => return 0,
        None => {}
    }
    if depth == 0 {
        return evaluate(game, pos);
    }
    let mut best = i32::MIN + 1;
    for m in game.moves(pos) {
        let v = -negamax(game, &game.play_unchecked(pos, m), depth - 1, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

impl Player<Sim> for Search {
    fn name(&self) -> String {
        format!("search:{}", self.depth)
    }

    fn choose(&mut self, game: &Sim, pos: &SimPos, _limits: &MoveLimits) -> Segment {
        let mut moves = game.moves(pos);
        // Shuffle so equal scores are broken at random (reproducibly).
        moves.shuffle(&mut self.rng);
        let mut best = (i32::MIN, moves[0]);
        for m in moves {
            let v = -negamax(
                game,
                &game.play_unchecked(pos, m),
                self.depth - 1,
                i32::MIN + 1,
                -best.0.max(i32::MIN + 1),
            );
            if v > best.0 {
                best = (v, m);
            }
        }
        best.1
    }
}
