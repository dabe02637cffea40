//! The conformance battery every game of Endgame passes.
//!
//! In the spirit of OpenSpiel's per-game checks and GamesmanOne's API
//! self-tests: random playouts, then on every position visited —
//! move generation against a naive generator, legality of moves seen
//! elsewhere, symmetry invariance of canonical forms, parent/child
//! consistency, and notation round-trips; on positions small enough,
//! pruning soundness, the solver against brute force, value consistency
//! and values of symmetric images; for keyed games the audit of the
//! strong solution. Each check returns `Err` with a message naming the
//! position and the failure.
//!
//! A game's tests call [`battery`] once per configuration, with
//! [`Options::puzzle`] or [`Options::game`] and the builder methods its
//! traits allow:
//!
//! ```ignore
//! let opts = Options::puzzle(&problem)
//!     .playouts(5, 40)
//!     .naive_moves(|p| naive(&problem, p))
//!     .reversible(&problem)
//!     .exhaustive_when(|p| p.count() <= 16)
//!     .min_pruned(1);
//! let report = conformance::battery(&problem, opts)?;
//! ```
//!
//! The single checks (`check_*`) stay public for tests of one property.
//! [`tsv_rows`] and [`replay`] read the games' data files (golden
//! playthroughs and published numbers in `crates/<game>/tests/data/`).

use crate::hash::FxHashMap;
use crate::{Game, Notation, Puzzle, Reversible, Rules, Symmetric, Value};
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

// ---------------------------------------------------------------------
// The battery: one entry point for every game.
// ---------------------------------------------------------------------

/// What a puzzle's solver (or its brute force) says about a position: can
/// it reach a goal, and the lowest score it can reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PuzzleValue {
    /// A goal position is reachable.
    pub reaches_goal: bool,
    /// The lowest score reachable (the goal's when it is reachable).
    pub best_score: u32,
}

/// What [`battery`] checked, with counts, so that a test can also see that
/// no check was vacuous (the battery itself fails when a configured
/// exhaustive check met no position).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The checks run, in order.
    pub checks: Vec<&'static str>,
    /// Positions checked (random playouts and extra positions).
    pub positions: usize,
    /// Positions whose symmetry images were checked.
    pub symmetric: usize,
    /// Positions small enough for the exhaustive checks.
    pub exhaustive: usize,
    /// Positions the puzzle prunes, each confirmed dead by brute force.
    pub pruned: usize,
    /// Positions on which the solver and the brute force were compared.
    pub compared: usize,
    /// Positions whose solved value was checked against their children's.
    pub consistent: usize,
    /// Positions of the strong solution audited ([`crate::strong`]).
    pub strong: usize,
}

type PositionsFn<'a, P> = Box<dyn Fn(u64, usize) -> Vec<P> + 'a>;
type Naive<'a, P, M> = Of<'a, P, Vec<M>>;
type Solve<'a, P, V> = Box<dyn FnMut(&P) -> V + 'a>;
type Audit<'a> = Box<dyn FnMut(&mut Report) -> Result<(), String> + 'a>;
/// A function of one position.
type Of<'a, P, T> = Box<dyn Fn(&P) -> T + 'a>;
type PerPosition<'a, P> = Of<'a, P, Result<(), String>>;
type AllPositions<'a, P> = Box<dyn Fn(&[P]) -> Result<(), String> + 'a>;

struct PuzzleParts<'a, P> {
    rules: PerPosition<'a, P>,
    prunes: Of<'a, P, bool>,
    /// Score, goal flag and score bound.
    score: Of<'a, P, (u32, bool, u32)>,
    solver: Solve<'a, P, PuzzleValue>,
    brute: Solve<'a, P, PuzzleValue>,
    min_pruned: usize,
}

struct GameParts<'a, P> {
    rules: PerPosition<'a, P>,
    outcome: Of<'a, P, Option<Value>>,
    solver: Option<Solve<'a, P, Value>>,
    brute: Solve<'a, P, Value>,
}

enum Kind<'a, P> {
    Puzzle(PuzzleParts<'a, P>),
    Game(GameParts<'a, P>),
}

/// How [`battery`] exercises a game: which positions, which optional
/// oracles. Built by [`Options::puzzle`] or [`Options::game`], which know
/// the game's kind, then adjusted with the builder methods (each method
/// that needs a trait — [`Options::reversible`], [`Options::keyed`] —
/// exists only for games that have it).
pub struct Options<'a, G: Rules> {
    /// Seed of the random playouts.
    pub seed: u64,
    /// Random games from the start whose positions are checked.
    pub playouts: usize,
    /// Symmetry is checked on every `symmetry_stride`-th position (its
    /// check visits every image, n! of them in Sim).
    pub symmetry_stride: usize,
    /// Positions checked besides those of the playouts.
    pub extra_positions: Vec<G::Position>,
    positions: PositionsFn<'a, G::Position>,
    naive: Option<Naive<'a, G::Position, G::Move>>,
    small: Of<'a, G::Position, bool>,
    parents: Option<AllPositions<'a, G::Position>>,
    strong: Option<Audit<'a>>,
    kind: Kind<'a, G::Position>,
}

impl<'a, G: Rules> Options<'a, G> {
    fn new(kind: Kind<'a, G::Position>, playouts: PositionsFn<'a, G::Position>) -> Self {
        Options {
            seed: 11,
            playouts: 20,
            symmetry_stride: 1,
            extra_positions: Vec::new(),
            positions: playouts,
            naive: None,
            small: Box::new(|_| false),
            parents: None,
            strong: None,
            kind,
        }
    }

    /// Playout seed and number of playouts.
    pub fn playouts(mut self, seed: u64, playouts: usize) -> Self {
        self.seed = seed;
        self.playouts = playouts;
        self
    }

    /// Check symmetry on every `stride`-th position only.
    pub fn symmetry_stride(mut self, stride: usize) -> Self {
        self.symmetry_stride = stride.max(1);
        self
    }

    /// Check these positions too.
    pub fn extra_positions(mut self, ps: Vec<G::Position>) -> Self {
        self.extra_positions = ps;
        self
    }

    /// A naive move generator, written independently of the game's: the
    /// generated moves are checked against it ([`check_move_generation`]).
    pub fn naive_moves(mut self, f: impl Fn(&G::Position) -> Vec<G::Move> + 'a) -> Self {
        self.naive = Some(Box::new(f));
        self
    }

    /// The positions small enough for the exhaustive checks: pruning
    /// soundness, solver against brute force, value consistency and value
    /// invariance under symmetry. None by default.
    pub fn exhaustive_when(mut self, f: impl Fn(&G::Position) -> bool + 'a) -> Self {
        self.small = Box::new(f);
        self
    }
}

impl<'a, P: Puzzle + Symmetric> Options<'a, P> {
    /// The options for a puzzle: random playouts to the end, the puzzle's
    /// own invariants (scores at least the bound, goals at the bound and
    /// never pruned), and on the exhaustive positions pruning soundness and
    /// the solver against brute force. The default solver is
    /// [`crate::dfs::solve`] with pruning and symmetry, the default brute
    /// force the same search with neither.
    pub fn puzzle(puzzle: &'a P) -> Self {
        let rules = move |p: &P::Position| {
            let (s, bound) = (puzzle.score(p), puzzle.score_bound());
            if s < bound {
                return Err(format!("score {s} below the bound {bound} at {p:?}"));
            }
            if puzzle.is_goal(p) && (s != bound || puzzle.cannot_reach_goal(p)) {
                return Err(format!(
                    "goal {p:?} scores {s} (bound {bound}) or is pruned"
                ));
            }
            Ok(())
        };
        let dfs = |pruning: bool| {
            move |p: &P::Position| {
                let opts = crate::dfs::DfsOptions {
                    use_pruning: pruning,
                    use_symmetry: pruning,
                    ..Default::default()
                };
                let r = crate::dfs::solve(puzzle, p, &opts);
                assert!(r.complete, "an unbudgeted search finishes");
                PuzzleValue {
                    reaches_goal: r.reached_goal,
                    best_score: r.best_score,
                }
            }
        };
        let parts = PuzzleParts {
            rules: Box::new(rules),
            prunes: Box::new(move |p| puzzle.cannot_reach_goal(p)),
            score: Box::new(move |p| (puzzle.score(p), puzzle.is_goal(p), puzzle.score_bound())),
            solver: Box::new(dfs(true)),
            brute: Box::new(dfs(false)),
            min_pruned: 0,
        };
        Options::new(
            Kind::Puzzle(parts),
            Box::new(move |seed, n| random_positions(puzzle, seed, n)),
        )
    }

    /// The exact value of a position by the game's own solver.
    pub fn solver(mut self, f: impl FnMut(&P::Position) -> PuzzleValue + 'a) -> Self {
        if let Kind::Puzzle(parts) = &mut self.kind {
            parts.solver = Box::new(f);
        }
        self
    }

    /// The exact value of a position by brute force, independent of the
    /// solver (and of the pruning).
    pub fn brute_force(mut self, f: impl FnMut(&P::Position) -> PuzzleValue + 'a) -> Self {
        if let Kind::Puzzle(parts) = &mut self.kind {
            parts.brute = Box::new(f);
        }
        self
    }

    /// The battery fails unless at least `n` exhaustive positions were
    /// pruned (so that pruning soundness was really tested).
    pub fn min_pruned(mut self, n: usize) -> Self {
        if let Kind::Puzzle(parts) = &mut self.kind {
            parts.min_pruned = n;
        }
        self
    }
}

impl<'a, P: Reversible + Symmetric> Options<'a, P> {
    /// Also check the parent generator against the moves ([`check_parents`]).
    pub fn reversible(mut self, puzzle: &'a P) -> Self {
        self.parents = Some(Box::new(move |ps| check_parents(puzzle, ps)));
        self
    }
}

impl<'a, G: Game + Symmetric> Options<'a, G> {
    /// The options for a two-player game: random games stopped at their
    /// end, non-terminal positions have moves, and on the exhaustive
    /// positions the solver (if given) against memoised brute-force
    /// negamax ([`negamax`]), its values against its children's, and
    /// symmetric images against each other.
    pub fn game(game: &'a G) -> Self {
        let rules = move |p: &G::Position| {
            if game.outcome(p).is_none() && game.moves(p).is_empty() {
                return fail("non-terminal position without legal moves", p);
            }
            Ok(())
        };
        let mut memo = FxHashMap::default();
        let parts = GameParts {
            rules: Box::new(rules),
            outcome: Box::new(move |p| game.outcome(p)),
            solver: None,
            brute: Box::new(move |p| negamax(game, p, &mut memo)),
        };
        Options::new(
            Kind::Game(parts),
            Box::new(move |seed, n| random_game_positions(game, seed, n)),
        )
    }

    /// The game's own solver: the value of a position for the player to
    /// move.
    pub fn value_solver(mut self, f: impl FnMut(&G::Position) -> Value + 'a) -> Self {
        if let Kind::Game(parts) = &mut self.kind {
            parts.solver = Some(Box::new(f));
        }
        self
    }
}

impl<'a, G: crate::strong::Keyed + Symmetric> Options<'a, G> {
    /// For games with canonical keys: strongly solve the whole game and
    /// audit the table ([`crate::strong::check_consistency`]), and use the
    /// lazily solved table as the solver unless one was given.
    pub fn keyed(mut self, game: &'a G) -> Self {
        self.strong = Some(Box::new(move |report| {
            let sol = crate::strong::strong_solve(game);
            crate::strong::check_consistency(game, &sol)?;
            report.strong += sol.table.len();
            Ok(())
        }));
        if let Kind::Game(parts) = &mut self.kind {
            if parts.solver.is_none() {
                let mut table = FxHashMap::default();
                parts.solver = Some(Box::new(move |p| {
                    crate::strong::solve_lazily(game, &mut table, p).value
                }));
            }
        }
        self
    }
}

/// The value of `pos` for the player to move by plain memoised negamax
/// over the rules' moves: no pruning, no symmetry, no ordering. The brute
/// force the battery checks game solvers against.
pub fn negamax<G: Game>(
    game: &G,
    pos: &G::Position,
    memo: &mut FxHashMap<G::Position, Value>,
) -> Value {
    if let Some(v) = game.outcome(pos) {
        return v;
    }
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let mut best = Value::Loss;
    for m in game.moves(pos) {
        match negamax(game, &game.play_unchecked(pos, m), memo).flip() {
            Value::Win => {
                best = Value::Win;
                break;
            }
            Value::Draw => best = Value::Draw,
            _ => {}
        }
    }
    memo.insert(*pos, best);
    best
}

/// The value of a position from its children's values (for the player to
/// move; every move hands the turn over): a win if a child is lost, else a
/// draw if one is drawn, else a loss.
fn from_children(children: impl IntoIterator<Item = Value>) -> Value {
    let mut best = Value::Loss;
    for c in children {
        match c.flip() {
            Value::Win => return Value::Win,
            Value::Draw => best = Value::Draw,
            Value::Unknown => return Value::Unknown,
            Value::Loss => {}
        }
    }
    best
}

/// Runs every check the game allows, as configured by `opts`, on the
/// positions of random playouts and the extra positions:
///
/// - rules: generated moves against the naive generator (when given),
///   legality of moves seen elsewhere, `play` against `play_unchecked`;
///   for puzzles the score bound and goals, for games terminals;
/// - symmetry ([`check_symmetry`]) and notation round trips
///   ([`check_notation`]);
/// - parents, for reversible puzzles ([`Options::reversible`]);
/// - on the positions [`Options::exhaustive_when`] selects: pruning
///   soundness (a pruned position is dead by brute force), the solver
///   against brute force, value consistency (a position's solved value
///   follows from its children's), and equal values for symmetric
///   images;
/// - for keyed games, the audit of the strong solution
///   ([`Options::keyed`]).
///
/// Returns what was checked, or the first failure.
pub fn battery<G: Symmetric + Notation>(
    game: &G,
    mut opts: Options<'_, G>,
) -> Result<Report, String>
where
    G::Move: Ord,
{
    let mut report = Report::default();
    let mut positions = (opts.positions)(opts.seed, opts.playouts);
    positions.extend(opts.extra_positions.iter().copied());
    report.positions = positions.len();
    if positions.is_empty() {
        return Err("the battery has no position to check".into());
    }
    if let Some(naive) = &opts.naive {
        check_move_generation(game, &positions, naive)?;
        report
            .checks
            .push("move generation against the naive generator");
    }
    let rules = match &opts.kind {
        Kind::Puzzle(p) => &p.rules,
        Kind::Game(g) => &g.rules,
    };
    for p in &positions {
        rules(p)?;
    }
    report
        .checks
        .push("rules (score bound and goals, or terminals)");
    let sym: Vec<G::Position> = positions
        .iter()
        .step_by(opts.symmetry_stride)
        .copied()
        .collect();
    check_symmetry(game, &sym)?;
    report.symmetric = sym.len();
    report.checks.push("symmetry");
    check_notation(game, &positions)?;
    report.checks.push("notation round trip");
    if let Some(parents) = &opts.parents {
        parents(&positions)?;
        report.checks.push("parents");
    }
    let mut small: Vec<G::Position> = positions
        .iter()
        .copied()
        .filter(|p| (opts.small)(p))
        .collect();
    small.sort();
    small.dedup();
    report.exhaustive = small.len();
    if !small.is_empty() {
        match &mut opts.kind {
            Kind::Puzzle(parts) => puzzle_exhaustive(game, parts, &small, &mut report)?,
            Kind::Game(parts) => game_exhaustive(game, parts, &small, &mut report)?,
        }
    }
    if let Some(strong) = &mut opts.strong {
        strong(&mut report)?;
        report.checks.push("strong solution audit");
    }
    Ok(report)
}

fn puzzle_exhaustive<G: Symmetric>(
    game: &G,
    parts: &mut PuzzleParts<'_, G::Position>,
    small: &[G::Position],
    report: &mut Report,
) -> Result<(), String> {
    for p in small {
        let slow = (parts.brute)(p);
        if (parts.prunes)(p) {
            report.pruned += 1;
            if slow.reaches_goal {
                return fail("pruned a position that can reach the goal", p);
            }
        }
        let fast = (parts.solver)(p);
        if fast != slow {
            return Err(format!(
                "solver says {fast:?}, brute force {slow:?} at {p:?}"
            ));
        }
        report.compared += 1;
        // The value follows from the position's own score and goal and
        // from its children's values.
        let (score, goal, bound) = (parts.score)(p);
        let mut want = PuzzleValue {
            reaches_goal: goal,
            best_score: score,
        };
        for m in game.moves(p) {
            let k = (parts.solver)(&game.play_unchecked(p, m));
            want.reaches_goal |= k.reaches_goal;
            want.best_score = want.best_score.min(k.best_score);
        }
        if want.reaches_goal {
            want.best_score = bound;
        }
        if fast != want {
            return Err(format!(
                "solved as {fast:?}, but its score and children give {want:?} at {p:?}"
            ));
        }
        report.consistent += 1;
        for i in 1..game.symmetry_count() {
            if (parts.solver)(&game.apply_symmetry(i, p)) != fast {
                return Err(format!("symmetry {i} changes the value of {p:?}"));
            }
        }
    }
    if report.pruned < parts.min_pruned {
        return Err(format!(
            "only {} pruned positions among {} exhaustive ones (at least {} wanted)",
            report.pruned,
            small.len(),
            parts.min_pruned
        ));
    }
    report.checks.push("pruning soundness");
    report.checks.push("solver against brute force");
    report.checks.push("value consistency");
    report.checks.push("values invariant under symmetry");
    Ok(())
}

fn game_exhaustive<G: Symmetric>(
    game: &G,
    parts: &mut GameParts<'_, G::Position>,
    small: &[G::Position],
    report: &mut Report,
) -> Result<(), String> {
    let Some(solver) = &mut parts.solver else {
        // Without a solver, brute force alone: values invariant under
        // symmetry.
        for p in small {
            let v = (parts.brute)(p);
            for i in 1..game.symmetry_count() {
                if (parts.brute)(&game.apply_symmetry(i, p)) != v {
                    return Err(format!("symmetry {i} changes the value of {p:?}"));
                }
            }
        }
        report.checks.push("values invariant under symmetry");
        return Ok(());
    };
    for p in small {
        let fast = solver(p);
        let slow = (parts.brute)(p);
        if fast != slow {
            return Err(format!(
                "solver says {fast:?}, brute force {slow:?} at {p:?}"
            ));
        }
        report.compared += 1;
        let want = match (parts.outcome)(p) {
            Some(v) => v,
            None => {
                let kids: Vec<Value> = game
                    .moves(p)
                    .into_iter()
                    .map(|m| solver(&game.play_unchecked(p, m)))
                    .collect();
                from_children(kids)
            }
        };
        if fast != want {
            return Err(format!(
                "solved as {fast:?}, but its outcome or children give {want:?} at {p:?}"
            ));
        }
        report.consistent += 1;
        for i in 1..game.symmetry_count() {
            if solver(&game.apply_symmetry(i, p)) != fast {
                return Err(format!("symmetry {i} changes the value of {p:?}"));
            }
        }
    }
    report.checks.push("solver against brute force");
    report.checks.push("value consistency");
    report.checks.push("values invariant under symmetry");
    Ok(())
}

// ---------------------------------------------------------------------
// Data files: golden playthroughs and published numbers.
// ---------------------------------------------------------------------

/// The rows of a tab-separated data file with their line numbers (from
/// 1), skipping blank lines and `#` comments; fields are trimmed.
pub fn tsv_rows(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let t = line.trim();
        (!t.is_empty() && !t.starts_with('#'))
            .then(|| (i + 1, line.split('\t').map(str::trim).collect()))
    })
}

/// Plays `moves`, written in the game's notation, from `start`, each
/// checked legal; the final position, or an error naming the move that
/// does not parse or is illegal.
pub fn replay<R: Notation>(
    rules: &R,
    start: &R::Position,
    moves: &[&str],
) -> Result<R::Position, String> {
    let mut pos = *start;
    for (i, text) in moves.iter().enumerate() {
        let m = rules
            .parse_move(text)
            .map_err(|e| format!("move {} {text:?} does not parse: {e}", i + 1))?;
        pos = rules
            .play(&pos, m)
            .map_err(|_| format!("move {} {text:?} is illegal", i + 1))?;
    }
    Ok(pos)
}
