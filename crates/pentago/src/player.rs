//! The Pentago players: `random`, `reference` (the depth-2 alpha-beta of Pinton
//! and de Carvalho's slides) and `strong` (iterative deepening with a
//! transposition table, the exact solver once it finishes in time).

use crate::error::PentagoError;
use crate::eval::{lines_score, reference_evaluate, strong_evaluate};
use crate::game::{Move, Pentago, Position};
use crate::solve::{Budget, Solver};
use endgame_core::alphabeta::{AlphaBeta, Evaluator, Limits};
use endgame_core::player::{MoveLimits, Player};
use endgame_core::{Game, Rules, Value};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// The names [`by_name`] knows.
pub const NAMES: [&str; 3] = ["random", "reference", "strong"];

/// The player called `name`, seeded with `seed` where it uses chance.
pub fn by_name(name: &str, seed: u64) -> Result<Box<dyn Player<Pentago>>, PentagoError> {
    match name {
        "random" => Ok(Box::new(RandomPlayer::new(seed))),
        // `seed`: the name of `reference` until this release, still
        // accepted (not listed) for one release.
        "reference" | "seed" => Ok(Box::new(ReferencePlayer)),
        "strong" => Ok(Box::new(StrongPlayer::new())),
        _ => Err(PentagoError::UnknownPlayer(
            name.to_string(),
            NAMES.join(", "),
        )),
    }
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    /// A random player with its own seeded generator.
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player<Pentago> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &Pentago, pos: &Position, _: &MoveLimits) -> Move {
        *game
            .moves(pos)
            .choose(&mut self.rng)
            .expect("choose is called with a legal move")
    }
}

/// The AI of Pinton and de Carvalho's slides: alpha-beta to depth 2 (its
/// move, the reply) over every placement and rotation, leaves scored by
/// [`reference_evaluate`] for the player at the root, a win for the root player
/// scoring `+10^18` and a loss `-10^18` (the slides' `±10^20` do not fit
/// an `i64`; only the order matters). Ties keep the first move in
/// generation order, as the slides' strict comparisons do. One deviation:
/// the slides recurse below a position the opponent has already won; here
/// a finished game is scored as finished (a draw 0).
pub struct ReferencePlayer;

const REFERENCE_WIN: i64 = 1_000_000_000_000_000_000;

impl ReferencePlayer {
    fn search(
        game: &Pentago,
        pos: &Position,
        depth: u32,
        mut alpha: i64,
        mut beta: i64,
        root_black: bool,
    ) -> (i64, Option<Move>) {
        let root_to_move = pos.black_to_move() == root_black;
        if let Some(v) = pos.outcome() {
            let root_value = if root_to_move { v } else { v.flip() };
            return (
                match root_value {
                    Value::Win => REFERENCE_WIN,
                    Value::Loss => -REFERENCE_WIN,
                    _ => 0,
                },
                None,
            );
        }
        if depth == 0 {
            let (me, them) = if root_to_move {
                (pos.mine(), pos.theirs())
            } else {
                (pos.theirs(), pos.mine())
            };
            return (reference_evaluate(me, them), None);
        }
        let mut best_move = None;
        let mut best = if root_to_move { i64::MIN } else { i64::MAX };
        for mv in game.moves(pos) {
            let child = game.play_unchecked(pos, mv);
            let (v, _) = Self::search(game, &child, depth - 1, alpha, beta, root_black);
            if root_to_move {
                if best_move.is_none() || v > best {
                    best = v;
                    best_move = Some(mv);
                }
                if best >= beta {
                    break;
                }
                alpha = alpha.max(best);
            } else {
                if best_move.is_none() || v < best {
                    best = v;
                    best_move = Some(mv);
                }
                if alpha >= best {
                    break;
                }
                beta = beta.min(best);
            }
        }
        (best, best_move)
    }
}

impl Player<Pentago> for ReferencePlayer {
    fn name(&self) -> String {
        "reference".into()
    }

    fn choose(&mut self, game: &Pentago, pos: &Position, _: &MoveLimits) -> Move {
        let (_, mv) = Self::search(game, pos, 2, i64::MIN, i64::MAX, pos.black_to_move());
        mv.expect("choose is called with a legal move")
    }
}

/// The evaluation the `strong` player hands to the generic alpha-beta.
pub struct StrongEval;

impl Evaluator<Pentago> for StrongEval {
    fn evaluate(&mut self, _: &Pentago, pos: &Position) -> i32 {
        if pos.must_rotate() {
            return lines_score(pos.mine(), pos.theirs());
        }
        strong_evaluate(pos.mine(), pos.theirs())
    }

    fn order(&mut self, game: &Pentago, pos: &Position, moves: &mut Vec<Move>) {
        // Best for us = worst for the opponent to move in the child; a
        // move that wins at once comes first.
        let mut keyed: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                let c = game.play_unchecked(pos, m);
                let k = match game.outcome(&c) {
                    Some(Value::Loss) => -1_000_000,
                    Some(Value::Win) => 1_000_000,
                    Some(_) => 0,
                    None => lines_score(c.mine(), c.theirs()),
                };
                (k, m)
            })
            .collect();
        keyed.sort_by_key(|&(k, _)| k);
        moves.clear();
        moves.extend(keyed.into_iter().map(|(_, m)| m));
    }
}

/// The stone count from which `strong` first asks the exact solver.
pub const EXACT_FROM: u32 = 16;

/// Time per move when the caller sets none.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_millis(1000);

/// Iterative-deepening alpha-beta with a transposition table and ordered
/// moves, under a per-move time (or node) limit; first it gives the exact
/// solver part of the budget, and when that finishes it plays a move that
/// keeps the proven value (so a won position is never spoilt once the
/// solver applies).
pub struct StrongPlayer {
    search: StrongSearch,
    solver: Solver,
}

impl Default for StrongPlayer {
    fn default() -> Self {
        Self::new()
    }
}

impl StrongPlayer {
    /// A strong player with its tables (about 100 MB).
    pub fn new() -> Self {
        StrongPlayer {
            search: StrongSearch::new(),
            solver: Solver::new(21),
        }
    }
}

/// `strong`'s heuristic search alone (its transposition table, without
/// the exact solver's): for a caller that has already solved a position
/// and holds the moves keeping its value (see
/// [`crate::solve::keeping_moves`]).
pub struct StrongSearch(AlphaBeta<Pentago>);

impl Default for StrongSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl StrongSearch {
    /// The search with its transposition table.
    pub fn new() -> Self {
        StrongSearch(AlphaBeta::new(18))
    }

    /// The search's choice among `keep` (every legal move when `None`)
    /// within `time` and `nodes`.
    pub fn among(
        &mut self,
        pos: &Position,
        time: Option<Duration>,
        nodes: Option<u64>,
        keep: Option<&[Move]>,
    ) -> Move {
        let r = self.0.search_among(
            &Pentago,
            pos,
            &mut StrongEval,
            Limits {
                max_depth: 64,
                time,
                nodes,
            },
            |m| keep.is_none_or(|k| k.contains(m)),
        );
        r.best.expect("the position has a legal move")
    }
}

impl Player<Pentago> for StrongPlayer {
    fn name(&self) -> String {
        "strong".into()
    }

    fn choose(&mut self, _: &Pentago, pos: &Position, limits: &MoveLimits) -> Move {
        let start = Instant::now();
        let time = match (limits.time, limits.nodes) {
            (Some(t), _) => Some(t),
            (None, Some(_)) => None,
            (None, None) => Some(DEFAULT_MOVE_TIME),
        };
        // The exact solver gets 40 % of the budget from `EXACT_FROM`
        // stones on. Before that it rarely settles a position within the
        // share, and the time is worth more to the search (500 games
        // against `seed` at 100 ms a move, seeds 1 and 2: 480 and 482 won
        // from 16 stones, 473 and 474 from 14; README). A won position is
        // played by a winning move; in a drawn one the search below picks
        // among the moves that keep the draw (the opponents like `reference`
        // this plays lose many drawn positions, so the first drawing move
        // is not good enough); in a lost one among every move.
        let mut keep: Option<Vec<Move>> = None;
        if pos.stones() >= EXACT_FROM {
            self.solver.set_memory_limit(limits.memory);
            let budget = Budget {
                time: time.map(|t| t.mul_f64(0.4)),
                nodes: limits.nodes.map(|n| n * 2 / 5),
            };
            match crate::solve::keeping_moves(&mut self.solver, pos, budget) {
                Some((Value::Win, moves)) => return moves[0],
                Some((Value::Draw, moves)) if moves.len() == 1 => return moves[0],
                Some((Value::Draw, moves)) => keep = Some(moves),
                _ => {}
            }
        }
        let rest = time.map(|t| {
            t.saturating_sub(start.elapsed())
                .max(Duration::from_millis(1))
        });
        self.search
            .among(pos, rest, limits.nodes.map(|n| n * 3 / 5), keep.as_deref())
    }
}
