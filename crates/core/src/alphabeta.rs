//! Negamax alpha-beta search for any two-player game: a transposition
//! table, iterative deepening under a time or node budget, a pluggable
//! evaluation and move ordering, and an exact win/draw/loss solver asked as
//! null-window questions ("can the mover win?", "can the mover avoid
//! losing?"), which prune far more than one full-window search.
//!
//! Scores are for the player to move. A won terminal position found `p`
//! plies below the root scores `WIN - p` (faster wins score higher), a lost
//! one `-(WIN - p)`, a draw 0; heuristic scores must stay within
//! `±(WIN - MAX_PLY)`.

use crate::hash::FxHasher;
use crate::{Game, Value};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// The score of a win at the root; wins `p` plies away score `WIN - p`.
pub const WIN: i32 = 1_000_000;
/// Deepest search; scores beyond `WIN - MAX_PLY` are proven wins.
pub const MAX_PLY: i32 = 1000;

/// A game-specific evaluation and move ordering.
pub trait Evaluator<G: Game> {
    /// Heuristic score of a non-terminal position for the player to move,
    /// within `±(WIN - MAX_PLY)`.
    fn evaluate(&mut self, game: &G, pos: &G::Position) -> i32;

    /// Reorders `moves` best first. The default keeps generation order.
    fn order(&mut self, _game: &G, _pos: &G::Position, _moves: &mut Vec<G::Move>) {}
}

/// What a search may spend. `None` means no limit of that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration (plies).
    pub max_depth: u32,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes.
    pub nodes: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            time: None,
            nodes: None,
        }
    }
}

/// The result of an iterative-deepening search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The best move found (None only when the root has no move).
    pub best: Option<M>,
    /// Its score for the player to move at the root.
    pub score: i32,
    /// The deepest iteration that finished.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// `Win` or `Loss` when the score is a proven result, else `Unknown`.
    pub proven: Value,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

impl Bound {
    /// What a fail-soft search that returned `best` from the window
    /// `(alpha0, beta)` knows about the true score.
    fn of(best: i32, alpha0: i32, beta: i32) -> Bound {
        if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }

    /// Narrows the window with a stored `score` of this bound; the score
    /// to return at once when that settles the node.
    fn narrow(self, score: i32, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
        match self {
            Bound::Exact => return Some(score),
            Bound::Lower => *alpha = (*alpha).max(score),
            Bound::Upper => *beta = (*beta).min(score),
        }
        (*alpha >= *beta).then_some(score)
    }
}

#[derive(Clone, Copy)]
struct Entry<P, M> {
    key: P,
    depth: i32,
    score: i32,
    bound: Bound,
    best: Option<M>,
}

/// A reusable searcher with its transposition table.
pub struct AlphaBeta<G: Game> {
    table: Vec<Option<Entry<G::Position, G::Move>>>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

fn slot<P: Hash>(p: &P, len: usize) -> usize {
    let mut h = FxHasher::default();
    p.hash(&mut h);
    (h.finish() as usize) & (len - 1)
}

fn to_value(v: i32) -> Value {
    match v.signum() {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

impl<G: Game> AlphaBeta<G> {
    /// A searcher with `2^bits` table slots.
    pub fn new(bits: u32) -> Self {
        AlphaBeta {
            table: vec![None; 1usize << bits],
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
        }
    }

    /// Forgets every stored result.
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|e| *e = None);
    }

    fn arm(&mut self, time: Option<Duration>, nodes: Option<u64>) {
        self.nodes = 0;
        self.node_limit = nodes.unwrap_or(u64::MAX);
        self.deadline = time.map(|t| Instant::now() + t);
        self.aborted = false;
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit
            || (self.nodes & 255 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Iterative deepening from depth 1 to `limits.max_depth`, stopping
    /// when the budget runs out (the last finished iteration's move is
    /// kept; an unfinished iteration's best move is used only when it was
    /// searched first, i.e. the previous best) or a win or loss is proven.
    pub fn search(
        &mut self,
        game: &G,
        pos: &G::Position,
        eval: &mut impl Evaluator<G>,
        limits: Limits,
    ) -> SearchResult<G::Move> {
        self.search_among(game, pos, eval, limits, |_| true)
    }

    /// [`AlphaBeta::search`] choosing only among the root moves `allowed`
    /// keeps (all of them when it keeps none): a player that has proven
    /// which moves keep a draw searches for the best of those alone.
    pub fn search_among(
        &mut self,
        game: &G,
        pos: &G::Position,
        eval: &mut impl Evaluator<G>,
        limits: Limits,
        allowed: impl Fn(&G::Move) -> bool,
    ) -> SearchResult<G::Move> {
        self.arm(limits.time, limits.nodes);
        let mut moves = game.moves(pos);
        eval.order(game, pos, &mut moves);
        if moves.iter().any(&allowed) {
            moves.retain(&allowed);
        }
        let mut result = SearchResult {
            best: moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            proven: Value::Unknown,
        };
        if moves.is_empty() || game.outcome(pos).is_some() {
            result.proven = game.outcome(pos).unwrap_or(Value::Unknown);
            return result;
        }
        for depth in 1..=limits.max_depth.min(MAX_PLY as u32 - 1) {
            let mut alpha = -WIN - 1;
            let beta = WIN + 1;
            let mut best = None;
            for &m in &moves {
                let child = game.play_unchecked(pos, m);
                let v = -self.negamax(game, &child, depth as i32 - 1, 1, -beta, -alpha, eval);
                if self.aborted {
                    break;
                }
                if v > alpha || best.is_none() {
                    alpha = v;
                    best = Some(m);
                }
            }
            if self.aborted {
                break;
            }
            let best = best.expect("a root with moves has a best move");
            result.best = Some(best);
            result.score = alpha;
            result.depth = depth;
            // Search the best move first next time.
            let i = moves.iter().position(|&m| m == best).unwrap_or(0);
            moves[..=i].rotate_right(1);
            if alpha.abs() > WIN - MAX_PLY {
                result.proven = to_value(alpha);
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        game: &G,
        pos: &G::Position,
        depth: i32,
        ply: i32,
        mut alpha: i32,
        mut beta: i32,
        eval: &mut impl Evaluator<G>,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        if let Some(v) = game.outcome(pos) {
            return match v {
                Value::Win => WIN - ply,
                Value::Loss => -(WIN - ply),
                _ => 0,
            };
        }
        if depth <= 0 {
            return eval.evaluate(game, pos);
        }
        let i = slot(pos, self.table.len());
        let mut tt_move = None;
        if let Some(e) = self.table[i] {
            if e.key == *pos {
                tt_move = e.best;
                if e.depth >= depth {
                    let s = from_table(e.score, ply);
                    if let Some(s) = e.bound.narrow(s, &mut alpha, &mut beta) {
                        return s;
                    }
                }
            }
        }
        let alpha0 = alpha;
        let mut moves = game.moves(pos);
        eval.order(game, pos, &mut moves);
        if let Some(t) = tt_move {
            if let Some(k) = moves.iter().position(|&m| m == t) {
                moves[..=k].rotate_right(1);
            }
        }
        let mut best = -WIN - 1;
        let mut best_move = None;
        for m in moves {
            let child = game.play_unchecked(pos, m);
            let v = -self.negamax(game, &child, depth - 1, ply + 1, -beta, -alpha, eval);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(m);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        let bound = Bound::of(best, alpha0, beta);
        self.table[i] = Some(Entry {
            key: *pos,
            depth,
            score: to_table(best, ply),
            bound,
            best: best_move,
        });
        best
    }

    /// The exact value of `pos` for the player to move by null-window
    /// searches over {-1, 0, 1} to the end of the game, or `Unknown` if the
    /// budget runs out. The table is shared with [`AlphaBeta::search`]
    /// only through its slots (entries are marked by depth), so call
    /// [`AlphaBeta::clear`] between the two uses.
    pub fn solve(
        &mut self,
        game: &G,
        pos: &G::Position,
        time: Option<Duration>,
        nodes: Option<u64>,
    ) -> Value {
        self.arm(time, nodes);
        let v = if self.solve_window(game, pos, 0, 1) >= 1 {
            1
        } else if self.solve_window(game, pos, -1, 0) >= 0 {
            0
        } else {
            -1
        };
        if self.aborted {
            Value::Unknown
        } else {
            to_value(v)
        }
    }

    /// Nodes searched by the last call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Fail-soft negamax over {-1, 0, 1}; table entries use depth
    /// `i32::MAX` (to the end) with bounds as in the heuristic search.
    fn solve_window(&mut self, game: &G, pos: &G::Position, mut alpha: i32, mut beta: i32) -> i32 {
        if self.tick() {
            return 0;
        }
        if let Some(v) = game.outcome(pos) {
            return match v {
                Value::Win => 1,
                Value::Loss => -1,
                _ => 0,
            };
        }
        let i = slot(pos, self.table.len());
        if let Some(e) = self.table[i] {
            if e.key == *pos && e.depth == i32::MAX {
                if let Some(s) = e.bound.narrow(e.score, &mut alpha, &mut beta) {
                    return s;
                }
            }
        }
        let alpha0 = alpha;
        let mut best = -2;
        let mut best_move = None;
        let mut children = Vec::new();
        game.for_each_move(pos, |m| children.push(m));
        for m in children {
            let child = game.play_unchecked(pos, m);
            let v = -self.solve_window(game, &child, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                best_move = Some(m);
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        let bound = Bound::of(best, alpha0, beta);
        self.table[i] = Some(Entry {
            key: *pos,
            depth: i32::MAX,
            score: best,
            bound,
            best: best_move,
        });
        best
    }
}

/// Proven-win scores are stored relative to the node, so that a table hit
/// at another ply still counts plies from the root correctly.
fn to_table(score: i32, ply: i32) -> i32 {
    if score > WIN - MAX_PLY {
        score + ply
    } else if score < -(WIN - MAX_PLY) {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: i32) -> i32 {
    if score > WIN - MAX_PLY {
        score - ply
    } else if score < -(WIN - MAX_PLY) {
        score + ply
    } else {
        score
    }
}
