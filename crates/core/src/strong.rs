//! Strong and weak solving of acyclic two-player games whose positions have
//! a canonical key (one representative per symmetry class).
//!
//! - [`strong_solve`]: value and remoteness (GamesCrafters convention: the
//!   winner plays the fastest win, the loser the slowest loss; draws carry
//!   no remoteness) of *every* position reachable from the start, up to
//!   symmetry, with counts per move number, terminal counts and the value
//!   distribution.
//! - [`check_consistency`]: the GamesCrafters-style audit of a solved table
//!   (a winning position has a losing child at remoteness − 1 and none
//!   faster; a losing position has only winning children, the slowest at
//!   remoteness − 1; a draw has a drawing child and no losing child;
//!   terminal positions agree with the rules; every child is in the table).
//! - [`weak_solve`]: the value of the start only, by memoised negamax that
//!   stops at the first winning move (the method of erik's article "The
//!   best AI for cassis", see `docs/sim.md`), with the number of
//!   positions stored per round.
//! - [`solve_lazily`] / [`best_move`]: perfect play from any position,
//!   solving (and memoising) only the positions below it;
//!   [`solve_lazily_within`] does the same within a [`Budget`] (deadline,
//!   nodes, cancel token), keeping what it finished when it stops.
//!
//! The games must be acyclic and every path from the start to a position
//! must have the same length ([`Keyed::move_number`]), as in Sim,
//! tic-tac-toe or any game where each move adds a piece.

use crate::budget::Budget;
use crate::hash::FxHashMap;
use crate::{Game, Outcome, Value};

/// A game whose positions have an exact canonical key: two positions get
/// the same key exactly when they are equivalent (same value, same
/// remoteness, equivalent children).
pub trait Keyed: Game {
    /// The canonical representative of `pos`'s class. It must itself be a
    /// legal position of the same class (idempotent).
    fn canonical_key(&self, pos: &Self::Position) -> Self::Position;

    /// Moves played from the start to reach `pos` (the same along every
    /// path).
    fn move_number(&self, pos: &Self::Position) -> usize;
}

/// A value with remoteness packed in 16 bits (2 bits of value, 14 of
/// remoteness): tables of millions of positions stay small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packed(u16);

impl Packed {
    /// Packs an outcome. Remoteness saturates at 16383 (no game here comes
    /// near it); an unknown value packs as a draw-like "unknown".
    pub fn new(o: Outcome) -> Packed {
        let v = match o.value {
            Value::Win => 0,
            Value::Loss => 1,
            Value::Draw => 2,
            Value::Unknown => 3,
        };
        let r = o.remoteness.unwrap_or(0).min(0x3fff) as u16;
        Packed(v | r << 2)
    }

    /// Unpacks the outcome.
    pub fn outcome(self) -> Outcome {
        let value = match self.0 & 3 {
            0 => Value::Win,
            1 => Value::Loss,
            2 => Value::Draw,
            _ => Value::Unknown,
        };
        let remoteness = matches!(value, Value::Win | Value::Loss).then_some((self.0 >> 2) as u32);
        Outcome { value, remoteness }
    }
}

/// Counts of one move number (or of the whole game) in a strong solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LayerCounts {
    /// Positions up to symmetry.
    pub positions: u64,
    /// Of which terminal (the rules decide them).
    pub terminals: u64,
    /// Won for the player to move.
    pub wins: u64,
    /// Lost for the player to move.
    pub losses: u64,
    /// Drawn.
    pub draws: u64,
}

impl LayerCounts {
    fn add(&mut self, o: Outcome, terminal: bool) {
        self.positions += 1;
        self.terminals += terminal as u64;
        match o.value {
            Value::Win => self.wins += 1,
            Value::Loss => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    fn sum(&mut self, other: &LayerCounts) {
        self.positions += other.positions;
        self.terminals += other.terminals;
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
    }
}

/// Every position reachable from a root, up to symmetry, with its outcome.
#[derive(Clone, Debug)]
pub struct StrongSolution<P> {
    /// The root the solution starts from (usually the game's start).
    pub root: P,
    /// Canonical key → outcome for the player to move.
    pub table: FxHashMap<P, Packed>,
    /// Counts indexed by move number.
    pub layers: Vec<LayerCounts>,
    /// Counts over the whole table.
    pub total: LayerCounts,
}

impl<P: Copy + Eq + std::hash::Hash> StrongSolution<P> {
    /// The outcome of a canonical key, if it is in the table.
    pub fn get(&self, key: &P) -> Option<Outcome> {
        self.table.get(key).map(|p| p.outcome())
    }
}

/// The outcome of `pos` from its children's outcomes (`None` children are
/// skipped by the caller): the best for the player to move.
fn combine(best: Option<Outcome>, child: Outcome) -> Option<Outcome> {
    let mine = Outcome::parent_of(child);
    match best {
        Some(b) if !mine.better_than(&b) => Some(b),
        _ => Some(mine),
    }
}

/// Solves `pos` and everything below it into `table` (keys are canonical),
/// returning `pos`'s outcome. Positions already in the table are not
/// searched again, so calling this repeatedly fills one table lazily.
pub fn solve_lazily<G: Keyed>(
    game: &G,
    table: &mut FxHashMap<G::Position, Packed>,
    pos: &G::Position,
) -> Outcome {
    let unlimited = Budget::unlimited();
    let mut meter = Meter::new(&unlimited, 0);
    solve_lazily_metered(game, table, pos, &mut meter)
        .expect("an unlimited budget nobody can cancel never stops")
}

/// [`solve_lazily`] within `budget`: `None` when the deadline, the node
/// limit or the cancel token stopped the search first. `nodes` counts the
/// positions expanded (it accumulates over calls, so one node limit can
/// cover several calls). Only fully solved positions ever enter the
/// table, so a stopped search leaves it correct, and the next call goes on
/// from what this one finished.
pub fn solve_lazily_within<G: Keyed>(
    game: &G,
    table: &mut FxHashMap<G::Position, Packed>,
    pos: &G::Position,
    budget: &Budget,
    nodes: &mut u64,
) -> Option<Outcome> {
    let mut meter = Meter::new(budget, *nodes);
    let r = solve_lazily_metered(game, table, pos, &mut meter);
    *nodes = meter.nodes;
    r
}

/// Nodes expanded against a budget, with the clock read only every
/// [`Meter::EVERY`] nodes.
struct Meter<'a> {
    budget: &'a Budget,
    nodes: u64,
    stopped: bool,
}

impl<'a> Meter<'a> {
    /// How many nodes pass between two looks at the clock and the token
    /// (a power of two).
    const EVERY: u64 = 1024;

    fn new(budget: &'a Budget, nodes: u64) -> Meter<'a> {
        Meter {
            budget,
            nodes,
            stopped: false,
        }
    }

    /// Counts one expansion; `true` when the search must stop.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if !self.stopped {
            let over = self.budget.nodes.is_some_and(|n| self.nodes > n);
            self.stopped = over || (self.nodes & (Self::EVERY - 1) == 0 && self.budget.stop());
        }
        self.stopped
    }
}

fn solve_lazily_metered<G: Keyed>(
    game: &G,
    table: &mut FxHashMap<G::Position, Packed>,
    pos: &G::Position,
    meter: &mut Meter<'_>,
) -> Option<Outcome> {
    let key = game.canonical_key(pos);
    if let Some(p) = table.get(&key) {
        return Some(p.outcome());
    }
    if meter.stopped || meter.budget.stop() {
        meter.stopped = true;
        return None;
    }
    solve_key(game, table, &key, meter)
}

fn solve_key<G: Keyed>(
    game: &G,
    table: &mut FxHashMap<G::Position, Packed>,
    key: &G::Position,
    meter: &mut Meter<'_>,
) -> Option<Outcome> {
    if meter.tick() {
        return None;
    }
    let o = match game.outcome(key) {
        Some(value) => Outcome {
            value,
            remoteness: matches!(value, Value::Win | Value::Loss).then_some(0),
        },
        None => {
            let mut children = Vec::new();
            game.for_each_move(key, |m| children.push(game.play_unchecked(key, m)));
            let mut best = None;
            for c in children {
                let ck = game.canonical_key(&c);
                let co = match table.get(&ck) {
                    Some(p) => p.outcome(),
                    None => solve_key(game, table, &ck, meter)?,
                };
                best = combine(best, co);
            }
            // A non-terminal position without moves would be a rules bug;
            // the conformance battery checks it never happens.
            best.unwrap_or(Outcome {
                value: Value::Draw,
                remoteness: None,
            })
        }
    };
    table.insert(*key, Packed::new(o));
    Some(o)
}

/// Strongly solves the game from its start position.
pub fn strong_solve<G: Keyed>(game: &G) -> StrongSolution<G::Position> {
    strong_solve_from(game, &game.start())
}

/// Strongly solves everything reachable from `root`.
pub fn strong_solve_from<G: Keyed>(game: &G, root: &G::Position) -> StrongSolution<G::Position> {
    let mut table = FxHashMap::default();
    solve_lazily(game, &mut table, root);
    let mut layers: Vec<LayerCounts> = Vec::new();
    for (k, p) in &table {
        let m = game.move_number(k);
        if layers.len() <= m {
            layers.resize(m + 1, LayerCounts::default());
        }
        layers[m].add(p.outcome(), game.outcome(k).is_some());
    }
    let mut total = LayerCounts::default();
    for l in &layers {
        total.sum(l);
    }
    StrongSolution {
        root: game.canonical_key(root),
        table,
        layers,
        total,
    }
}

/// The best move of `pos` by the table (fastest win, else a draw, else the
/// slowest loss) and the outcome of `pos` it proves; `None` for a position
/// without moves. Children missing from the table are solved into it.
pub fn best_move<G: Keyed>(
    game: &G,
    table: &mut FxHashMap<G::Position, Packed>,
    pos: &G::Position,
) -> Option<(G::Move, Outcome)> {
    let mut best: Option<(G::Move, Outcome)> = None;
    for m in game.moves(pos) {
        let c = game.play_unchecked(pos, m);
        let mine = Outcome::parent_of(solve_lazily(game, table, &c));
        if best.is_none_or(|(_, b)| mine.better_than(&b)) {
            best = Some((m, mine));
        }
    }
    best
}

/// The GamesCrafters-style audit of a strong solution: every rule that ties
/// a position's stored outcome to its children's, plus closure (every
/// child of a stored non-terminal position is stored) and the root. Returns
/// the first violation found.
pub fn check_consistency<G: Keyed>(
    game: &G,
    sol: &StrongSolution<G::Position>,
) -> Result<(), String> {
    if !sol.table.contains_key(&sol.root) {
        return Err("the root is not in the table".into());
    }
    for (key, packed) in &sol.table {
        let o = packed.outcome();
        if game.canonical_key(key) != *key {
            return Err(format!("stored key {key:?} is not canonical"));
        }
        if let Some(v) = game.outcome(key) {
            let want = matches!(v, Value::Win | Value::Loss).then_some(0);
            if o.value != v || o.remoteness != want {
                return Err(format!("terminal {key:?} stored as {o:?}, rules say {v:?}"));
            }
            continue;
        }
        let mut kids = Vec::new();
        for m in game.moves(key) {
            let ck = game.canonical_key(&game.play_unchecked(key, m));
            match sol.table.get(&ck) {
                Some(p) => kids.push(p.outcome()),
                None => return Err(format!("child {ck:?} of {key:?} missing from the table")),
            }
        }
        if kids.is_empty() {
            return Err(format!("non-terminal {key:?} has no moves"));
        }
        let rem = |v: Value| {
            kids.iter()
                .filter(move |c| c.value == v)
                .map(|c| c.remoteness.unwrap_or(0))
        };
        match o.value {
            Value::Win => {
                let r = o.remoteness.unwrap_or(0);
                let fastest = rem(Value::Loss).min();
                if fastest.is_none() {
                    return Err(format!("winning {key:?} has no losing child"));
                }
                if r == 0 || fastest != Some(r - 1) {
                    return Err(format!(
                        "winning {key:?} at remoteness {r}, fastest losing child at {fastest:?}"
                    ));
                }
            }
            Value::Loss => {
                let r = o.remoteness.unwrap_or(0);
                if kids.iter().any(|c| c.value != Value::Win) {
                    return Err(format!("losing {key:?} has a child that is not won"));
                }
                let slowest = rem(Value::Win).max();
                if r == 0 || slowest != Some(r - 1) {
                    return Err(format!(
                        "losing {key:?} at remoteness {r}, slowest winning child at {slowest:?}"
                    ));
                }
            }
            Value::Draw => {
                if kids.iter().any(|c| c.value == Value::Loss) {
                    return Err(format!("drawn {key:?} has a losing child"));
                }
                if !kids.iter().any(|c| c.value == Value::Draw) {
                    return Err(format!("drawn {key:?} has no drawn child"));
                }
            }
            Value::Unknown => return Err(format!("{key:?} stored as unknown")),
        }
    }
    Ok(())
}

/// The result of a weak solve.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WeakSolution {
    /// The value of the root for the player to move.
    pub value: Value,
    /// Positions stored, indexed by move number (terminal positions are
    /// decided by the rules and not stored, as in erik's Cassis article).
    pub stored_per_round: Vec<u64>,
    /// Positions stored in all.
    pub stored: u64,
}

/// Weakly solves the game from `root`: memoised negamax over canonical keys
/// that stops at the first winning move, one table per move number (the
/// method of erik's Cassis article; with an identity key it is exactly his
/// first hashing version). Moves that win on the spot are found before any
/// recursion.
pub fn weak_solve<G: Keyed>(game: &G, root: &G::Position) -> WeakSolution {
    let mut rounds: Vec<FxHashMap<G::Position, Value>> = Vec::new();
    let value = weak(game, &mut rounds, root);
    let stored_per_round: Vec<u64> = rounds.iter().map(|t| t.len() as u64).collect();
    WeakSolution {
        value,
        stored: stored_per_round.iter().sum(),
        stored_per_round,
    }
}

fn weak<G: Keyed>(
    game: &G,
    rounds: &mut Vec<FxHashMap<G::Position, Value>>,
    pos: &G::Position,
) -> Value {
    if let Some(v) = game.outcome(pos) {
        return v;
    }
    let key = game.canonical_key(pos);
    let round = game.move_number(&key);
    if rounds.len() <= round {
        rounds.resize_with(round + 1, FxHashMap::default);
    }
    if let Some(&v) = rounds[round].get(&key) {
        return v;
    }
    let mut children = Vec::new();
    game.for_each_move(&key, |m| children.push(m));
    // A move that ends the game at once in the mover's favour is taken
    // before any search (an immediate-win check; it never fires in
    // standard Sim, where ending the game loses, so the round counts of
    // erik's Cassis article are unchanged).
    if children
        .iter()
        .any(|&m| game.outcome(&game.play_unchecked(&key, m)) == Some(Value::Loss))
    {
        rounds[round].insert(key, Value::Win);
        return Value::Win;
    }
    let mut value = Value::Loss;
    for m in children {
        match weak(game, rounds, &game.play_unchecked(&key, m)).flip() {
            Value::Win => {
                value = Value::Win;
                break;
            }
            Value::Draw => value = Value::Draw,
            _ => {}
        }
    }
    rounds[round].insert(key, value);
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::Rules;

    /// Two heaps of 20 counters (`100 * a + b`); a move takes one or two
    /// from one heap; the player facing two empty heaps has lost.
    struct Take;

    impl Rules for Take {
        type Position = u32;
        type Move = (u32, u32);
        fn start(&self) -> u32 {
            2020
        }
        fn for_each_move(&self, p: &u32, mut f: impl FnMut((u32, u32))) {
            for (heap, left) in [(100, p / 100), (1, p % 100)] {
                for t in 1..=left.min(2) {
                    f((heap, t));
                }
            }
        }
        fn play_unchecked(&self, p: &u32, (heap, t): (u32, u32)) -> u32 {
            p - heap * t
        }
    }

    impl Game for Take {
        fn outcome(&self, p: &u32) -> Option<Value> {
            (*p == 0).then_some(Value::Loss)
        }
    }

    impl Keyed for Take {
        fn canonical_key(&self, p: &u32) -> u32 {
            *p
        }
        fn move_number(&self, p: &u32) -> usize {
            (40 - p / 100 - p % 100) as usize
        }
    }

    #[test]
    fn a_budgeted_lazy_solve_stops_keeps_what_it_finished_and_resumes() {
        let mut full = FxHashMap::default();
        let want = solve_lazily(&Take, &mut full, &2020);
        // Both heaps 2 mod 3: the Grundy values cancel, lost for the mover.
        assert_eq!(want.value, Value::Loss);
        let mut table = FxHashMap::default();
        let mut nodes = 0;
        let cut = Budget::unlimited().with_nodes(60);
        assert_eq!(
            solve_lazily_within(&Take, &mut table, &2020, &cut, &mut nodes),
            None
        );
        // What is stored is exact.
        assert!(!table.is_empty());
        for (k, v) in &table {
            assert_eq!(full.get(k), Some(v));
        }
        // A cancelled budget does nothing at all.
        let stopped = Budget::unlimited();
        stopped.cancel.cancel();
        let before = table.len();
        let mut n2 = 0;
        assert_eq!(
            solve_lazily_within(&Take, &mut table, &2020, &stopped, &mut n2),
            None
        );
        assert_eq!(table.len(), before);
        // Slices longer than the depth finish it, each going on from where
        // the last one stopped.
        let mut rounds = 0;
        let got = loop {
            rounds += 1;
            let mut n = 0;
            let b = Budget::unlimited().with_nodes(60);
            if let Some(o) = solve_lazily_within(&Take, &mut table, &2020, &b, &mut n) {
                break o;
            }
            assert!(rounds < 100, "no progress");
        };
        assert_eq!(got, want);
    }
}
