//! The analysis service behind every Martello hint: a position from text,
//! and [`Service::analyze`], the position's best result and every
//! operation with the best result after it, its colour and its real
//! moves, as the core's [`Analysis`]. The command line prints it and the
//! web sends it, so both answer alike.
//!
//! Two memoised searches ([`endgame_core::restarts::Searcher`]) decide
//! every child of a hint, each with one memo for all children (most states
//! below a position are shared by its children):
//!
//! 1. a goal search, pruned by [`Martello::cannot_reach_goal`], with the
//!    study's restart schedule ([`study::better_schedule`]) per child,
//!    decides which children can still reach one stone; the first
//!    child's line guides the others (a child first tries a small search
//!    that plays a sibling's operations first, `guided`);
//! 2. for the children that cannot, an exact search for the fewest
//!    stones, which stops below a state at its floor: its classes
//!    ([`Martello::floor`]), or two stones where the goal search proved
//!    one out of reach, so it mostly needs a single line.
//!
//! Both memos hold facts about states that do not depend on the start
//! (whether one stone is reachable, the fewest stones reachable), so the
//! [`Service`] keeps them between requests (per board side, at most
//! [`KEEP_BYTES`] in all): a game's next hint is mostly memo hits. The
//! searches check the [`Budget`]'s node limit, deadline and cancel token
//! themselves. The best line is chosen by a rule that does not depend on
//! what the memos held before (the first operation in generation order
//! that keeps the best result, at every step), so a warm service and a
//! fresh one give the same analysis.

use crate::board::MAX_N;
use crate::solver::{children, entries_for, Lazy4, Lazy7};
use crate::study;
use endgame_core::analysis::{Analysis, Colour, Decided, MoveAnalysis, PuzzleResult};
use endgame_core::budget::Budget;
use endgame_core::restarts::{Children, Memo, Rng, Searcher};
use serde::{Deserialize, Serialize};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use crate::board::{Board, MartelloError};
pub use crate::real::{real_moves, RealMove};
pub use crate::solver::SymmetryMode;
pub use crate::state::{Martello, Op, State};
pub use crate::study::{parse_games, run_with_threads as run_study, StudyOptions, StudyReport};
pub use endgame_core::restarts::Schedule;

/// Default time of a hint. The slowest 6×6 hint of the benchmark (100
/// random starts and the positions 10 operations in, see the README)
/// needs a fraction of it; the rest is headroom for a slower machine or a
/// busy server.
pub const DEFAULT_TIME: Duration = Duration::from_secs(2);

/// Default node budget (states expanded over the whole hint): several
/// times what the hardest benchmark hint for n ≤ 6 used (see the README).
pub const DEFAULT_NODES: u64 = 20_000_000;

/// Memo memory of one analysis when the budget names none (512 MiB for
/// the goal search's and the exact search's new entries together; the
/// hardest benchmark hint used 82 MiB).
pub const DEFAULT_MEMO_BYTES: usize = 512 << 20;

/// Most bytes of memos a [`Service`] keeps between requests (32 MiB over
/// all board sides); larger memos are dropped after their request.
pub const KEEP_BYTES: usize = 32 << 20;

/// Expansions of the first exact run of an undecided child (after the
/// restart schedule, for the goal search); each further round gives four
/// times more, so one hard operation cannot leave the others undecided.
const FIRST_ROUND: u64 = 1 << 18;

/// The game-specific fields of an operation: the real moves a person
/// makes for it (the UI maps clicks to operations by them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveDetail {
    /// The real moves, as text (`slide a 2,0-2,5`, `a eats g 2,5-3,5`).
    pub moves: Vec<String>,
    /// The real moves, structured.
    pub real_moves: Vec<RealMove>,
}

/// The game-specific fields of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PosDetail {
    /// The board side.
    pub n: usize,
    /// Stones on the board.
    pub stones: u32,
}

/// A Martello hint.
pub type MartelloAnalysis = Analysis<MoveDetail, PosDetail>;

/// The puzzle and its position from a board string (`docs/martello.md`).
pub fn parse(board: &str) -> Result<(Martello, State), MartelloError> {
    from_board(&Board::parse(board)?)
}

/// The puzzle and its position of a random full board of side `n`.
pub fn random(n: usize, seed: u64) -> Result<(Martello, State), MartelloError> {
    from_board(&Board::random(n, seed)?)
}

/// The puzzle and its (normalised) position of a board.
pub fn from_board(b: &Board) -> Result<(Martello, State), MartelloError> {
    let s = State::from_board(b);
    Ok((Martello::new(b.n(), s)?, s))
}

/// [`Service::analyze`] on a fresh service (nothing kept).
pub fn analyze(m: &Martello, s: &State, budget: &Budget) -> MartelloAnalysis {
    Service::with_keep_bytes(0).analyze(m, s, budget)
}

pub use crate::solver::Stones;

/// The memos of one board side: the goal search's and the exact one's.
struct Kept<K> {
    goal: Memo<K>,
    best: Memo<K>,
}

impl<K: Hash + Eq + Copy> Default for Kept<K> {
    fn default() -> Self {
        Kept {
            goal: Memo::default(),
            best: Memo::default(),
        }
    }
}

impl<K: Hash + Eq + Copy> Kept<K> {
    fn bytes(&self) -> usize {
        self.goal.bytes() + self.best.bytes()
    }
    fn len(&self) -> usize {
        self.goal.len() + self.best.len()
    }
}

/// Memo key of the lazy search (n ≤ 6).
type Key = [u64; 4];

/// The analysis service: memos kept between requests, safe to share
/// between threads.
pub struct Service {
    /// `memos[n]`: the memos of the last finished hint on an n-board
    /// (n ≤ 6), taken out while a hint runs on them (a concurrent hint of
    /// the same size starts from empty ones).
    memos: Mutex<Vec<Option<Kept<Key>>>>,
    keep_bytes: usize,
}

impl Default for Service {
    fn default() -> Self {
        Service::new()
    }
}

impl Service {
    /// A service keeping up to [`KEEP_BYTES`] of memos.
    pub fn new() -> Service {
        Service::with_keep_bytes(KEEP_BYTES)
    }

    /// A service keeping up to `bytes` of memos between requests (0:
    /// nothing kept, every hint starts from empty memos).
    pub fn with_keep_bytes(bytes: usize) -> Service {
        Service {
            memos: Mutex::new((0..=MAX_N).map(|_| None).collect()),
            keep_bytes: bytes,
        }
    }

    /// Bytes of the memos kept now.
    pub fn kept_bytes(&self) -> usize {
        self.slots().iter().flatten().map(Kept::bytes).sum()
    }

    /// Forgets every kept memo.
    pub fn clear(&self) {
        self.slots().iter_mut().for_each(|m| *m = None);
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Option<Kept<Key>>>> {
        // A panic elsewhere leaves only whole memos behind.
        self.memos.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `memos` for hints on n-boards if they fit: memos of other
    /// sizes go first; memos larger than the whole allowance are dropped.
    fn keep(&self, n: usize, memos: Kept<Key>) {
        let bytes = memos.bytes();
        if bytes > self.keep_bytes {
            return;
        }
        let mut slots = self.slots();
        if slots[n].as_ref().is_some_and(|m| m.len() > memos.len()) {
            // A concurrent hint of the same size kept larger ones.
            return;
        }
        slots[n] = None;
        let mut total: usize = slots.iter().flatten().map(Kept::bytes).sum();
        for other in slots.iter_mut() {
            if total + bytes <= self.keep_bytes {
                break;
            }
            if let Some(m) = other.take() {
                total -= m.bytes();
            }
        }
        slots[n] = Some(memos);
    }

    /// The analysis of position `s` of `m` within `budget` (nodes: the
    /// states expanded over the whole hint; memory: the memos' bytes,
    /// default [`DEFAULT_MEMO_BYTES`]): the best result reachable (fewest
    /// stones, solvable when one), every operation with the best result
    /// after it and its [`Colour::of_result`], best first, a best line,
    /// and the reason when something stays undecided.
    pub fn analyze(&self, m: &Martello, s: &State, budget: &Budget) -> MartelloAnalysis {
        self.analyze_counted(m, s, budget).0
    }

    /// [`Service::analyze`] with what the searches spent (for benchmarks;
    /// it depends on what the kept memos held, so it is not part of the
    /// analysis).
    pub fn analyze_counted(
        &self,
        m: &Martello,
        s: &State,
        budget: &Budget,
    ) -> (MartelloAnalysis, Spent) {
        let t0 = Instant::now();
        let n = m.n();
        let bytes = budget.memory.unwrap_or(DEFAULT_MEMO_BYTES) / 2;
        let (mut a, spent) = if n <= 6 {
            let kept: Kept<Key> = self.slots()[n].take().unwrap_or_default();
            // The budget's memory is for this request's new entries: a
            // kept memo filled to the cap would stop every insert and
            // leave the search to re-explore.
            let entries = entries_for::<Key>(bytes) + kept.len();
            let (a, spent, kept) = analyze_in(m, s, budget, Martello::key4, Lazy4, entries, kept);
            self.keep(n, kept);
            (a, spent)
        } else {
            let entries = entries_for::<[u64; 7]>(bytes);
            let kept = Kept::default();
            let (a, spent, _) = analyze_in(m, s, budget, Martello::key7, Lazy7, entries, kept);
            (a, spent)
        };
        a.time_ms = t0.elapsed().as_secs_f64() * 1e3;
        (a, spent)
    }
}

/// What one analysis spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Spent {
    /// States expanded by the goal search.
    pub goal_expansions: u64,
    /// States expanded by the exact search.
    pub best_expansions: u64,
    /// States expanded by the best line's own goal search.
    pub line_expansions: u64,
    /// Memo bytes at the end (both searches, kept entries included).
    pub memo_bytes: usize,
}

impl Spent {
    /// States expanded in all.
    pub fn expansions(&self) -> u64 {
        self.goal_expansions + self.best_expansions + self.line_expansions
    }
}

/// Why work stopped, in words.
fn why(budget: &Budget, used: u64) -> &'static str {
    if budget.cancelled() {
        "the request was cancelled"
    } else if budget.stop() {
        "the time budget ran out"
    } else if budget.nodes_left(used) == Some(0) {
        "the node budget ran out"
    } else {
        "the budget ran out"
    }
}

/// A searcher of the analysis.
type Search<'a, 'g, K, F, E> = Searcher<'a, Martello, K, F, E, Stones<'g, K>>;

/// Nodes spent so far by both searches, shared by the run limits.
struct Work<'b> {
    budget: &'b Budget,
    used: u64,
    /// States the line's own goal search expanded.
    line_expansions: u64,
}

impl Work<'_> {
    /// Whether the budget is spent (time, cancel, or nodes).
    fn over(&self) -> bool {
        self.budget.stop() || self.budget.nodes_left(self.used) == Some(0)
    }

    /// One run of `searcher` from `s`, at most `cap` expansions (and the
    /// nodes left), within the deadline and cancel token.
    fn run<K, F, E>(
        &mut self,
        searcher: &mut Search<'_, '_, K, F, E>,
        s: &State,
        cap: u64,
        rng: Option<Rng>,
    ) -> Option<u32>
    where
        K: Hash + Eq + Copy,
        F: Fn(&State) -> K,
        E: Children<Martello, K>,
    {
        if let Some(v) = searcher.known(s) {
            return Some(v);
        }
        if self.over() {
            return None;
        }
        let left = self.budget.nodes_left(self.used).unwrap_or(u64::MAX);
        let run = Budget {
            nodes: Some(cap.min(left)),
            ..self.budget.clone()
        };
        let before = searcher.expansions;
        let v = searcher.run_within(s, &run, rng);
        self.used += searcher.expansions - before;
        v
    }

    /// Whether one stone is reachable from `s` (goal search), with the
    /// restart schedule first when `schedule` (seeded by `seed`).
    fn reaches_goal<K, F, E>(
        &mut self,
        goal: &mut Search<'_, '_, K, F, E>,
        s: &State,
        cap: u64,
        schedule: Option<u64>,
    ) -> Option<bool>
    where
        K: Hash + Eq + Copy,
        F: Fn(&State) -> K,
        E: Children<Martello, K>,
    {
        if s.stones() <= 1 {
            return Some(s.stones() == 1);
        }
        if let Some(seed) = schedule {
            let mut k = 0;
            for (reps, runs) in study::better_schedule().runs {
                for _ in 0..reps {
                    k += 1;
                    let rng = Rng::new(seed.wrapping_mul(0x1_0000).wrapping_add(k));
                    if let Some(v) = self.run(goal, s, runs, Some(rng)) {
                        return Some(v == 1);
                    }
                    if self.over() {
                        return None;
                    }
                }
            }
        }
        self.run(goal, s, cap, None).map(|v| v == 1)
    }

    /// The runs of `schedule` from `s` in random child orders (seeded by
    /// `seed`, as the solver's), then one exact run, within the budget:
    /// the value of the first run that finishes.
    fn scheduled<K, F, E>(
        &mut self,
        searcher: &mut Search<'_, '_, K, F, E>,
        s: &State,
        schedule: &Schedule,
        seed: u64,
    ) -> Option<u32>
    where
        K: Hash + Eq + Copy,
        F: Fn(&State) -> K,
        E: Children<Martello, K>,
    {
        let mut rng = Rng::new(seed);
        for &(reps, runs) in &schedule.runs {
            for _ in 0..reps {
                if self.over() {
                    return None;
                }
                let order = Rng::new(rng.next_u64());
                if let Some(v) = self.run(searcher, s, runs, Some(order)) {
                    return Some(v);
                }
            }
        }
        self.run(searcher, s, u64::MAX, None)
    }

    /// The fewest stones reachable from `s` (exact search).
    fn fewest<K, F, E>(
        &mut self,
        best: &mut Search<'_, '_, K, F, E>,
        s: &State,
        cap: u64,
    ) -> Option<u32>
    where
        K: Hash + Eq + Copy,
        F: Fn(&State) -> K,
        E: Children<Martello, K>,
    {
        if s.stones() <= 1 {
            return Some(s.stones());
        }
        self.run(best, s, cap, None)
    }
}

/// The analysis with both memos taken from `kept` and handed back.
fn analyze_in<K, E>(
    m: &Martello,
    s: &State,
    budget: &Budget,
    key: fn(&Martello, &State) -> K,
    expand: E,
    entries: usize,
    kept: Kept<K>,
) -> (MartelloAnalysis, Spent, Kept<K>)
where
    K: Hash + Eq + Copy,
    E: Children<Martello, K> + Clone,
{
    let n = m.n();
    let stones = s.stones();
    let kids = m.children(s);
    let keyf = move |x: &State| key(m, x);
    let mut work = Work {
        budget,
        used: 0,
        line_expansions: 0,
    };
    let mut kept_goal = kept.goal;
    let cold = kept_goal.is_empty();
    let goal_searcher = |memo| {
        Searcher::with_children(m, keyf, expand.clone(), entries)
            .objective(Stones { goal: None, key })
            .prefetch(true)
            .goal_only()
            .with_memo(memo)
    };
    // 1. Which children reach one stone: the restart schedule per child,
    // then exact runs of growing caps, in rounds.
    let mut reach: Vec<Option<bool>> = vec![None; kids.len()];
    // Lines to one stone from siblings (their operation first): a child
    // first tries the siblings' operations (see [`guided`]).
    let mut guides: Vec<Vec<Op>> = Vec::new();
    // The best line when the first child keeps the goal (found first, so
    // that every other child has a guide): by a goal search with a fresh
    // memo, the same line whatever the kept memos held. With nothing
    // kept, the goal search's own memo is such a memo; otherwise the
    // fresh memo's entries (exact facts like the kept ones) join the
    // kept memo when both fit the budget. Its exact run stops at the
    // first round's cap like every child's (a hard first child leaves the
    // line to the search after the rounds).
    let mut guided_expansions = 0;
    let mut line_ops: Option<Vec<Op>> = None;
    let mut first: Option<Vec<Op>> = None;
    let mut goal = if let (Some(&(_, c)), false) = (kids.first(), cold) {
        let mut fresh = goal_searcher(Memo::default());
        let r = work.reaches_goal(&mut fresh, &c, FIRST_ROUND, Some(0));
        if r == Some(true) {
            first = Some(fresh.line(&c));
        }
        work.line_expansions += fresh.expansions;
        let fresh = fresh.take_memo();
        if kept_goal.len() + fresh.len() <= entries {
            fresh.for_each(|k, v, w| kept_goal.insert_hashed(*k, Memo::hash(k), v, w));
            reach[0] = r;
        } else if r == Some(true) {
            reach[0] = r;
        }
        goal_searcher(kept_goal)
    } else {
        let mut goal = goal_searcher(kept_goal);
        if let Some(&(_, c)) = kids.first() {
            let r = work.reaches_goal(&mut goal, &c, FIRST_ROUND, Some(0));
            reach[0] = r;
            if r == Some(true) {
                first = Some(goal.line(&c));
            }
        }
        goal
    };
    if let (Some(rest), Some(&(op, _))) = (first, kids.first()) {
        let ops: Vec<Op> = std::iter::once(op).chain(rest).collect();
        guides.push(ops.clone());
        line_ops = Some(ops);
    }
    let mut cap = FIRST_ROUND;
    for round in 0.. {
        for (i, &(op, c)) in kids.iter().enumerate() {
            if reach[i].is_none() && !work.over() {
                if round == 0 && !guides.is_empty() && goal.known(&c).is_none() {
                    let dead = |x: &State| goal.known(x).is_some_and(|v| v > 1);
                    let mut found = None;
                    // The latest lines first (most like this child's).
                    for g in guides.iter().rev().take(GUIDES) {
                        let left = budget.nodes_left(work.used).unwrap_or(u64::MAX);
                        let mut nodes = 0;
                        found = guided(m, &c, g, &dead, key, GUIDED_NODES.min(left), &mut nodes);
                        work.used += nodes;
                        guided_expansions += nodes;
                        if found.is_some() || work.over() {
                            break;
                        }
                    }
                    if let Some(line) = found {
                        reach[i] = Some(true);
                        guides.push(std::iter::once(op).chain(line).collect());
                        continue;
                    }
                }
                let schedule = (round == 0).then_some(i as u64);
                reach[i] = work.reaches_goal(&mut goal, &c, cap, schedule);
                if reach[i] == Some(true) && c.stones() > 1 {
                    guides.push(std::iter::once(op).chain(goal.line(&c)).collect());
                }
            }
        }
        if work.over() || reach.iter().all(Option::is_some) {
            break;
        }
        cap = cap.saturating_mul(4);
    }
    // The line to one stone: from the first child in generation order
    // that keeps the goal, by a goal search of its own with a fresh memo
    // (the same line whatever the kept memos held).
    let mut line = Vec::new();
    if let Some(ops) = line_ops {
        line = ops.into_iter().map(|op| m.format_op(op)).collect();
    } else if let Some(first) = reach.iter().position(|&r| r == Some(true)) {
        let (op, c) = kids[first];
        line.push(m.format_op(op));
        let mut fresh = Searcher::with_children(m, keyf, expand.clone(), entries)
            .objective(Stones { goal: None, key })
            .prefetch(true)
            .goal_only();
        if work.reaches_goal(&mut fresh, &c, u64::MAX, Some(0)) == Some(true) {
            line.extend(fresh.line(&c).into_iter().map(|op| m.format_op(op)));
        }
        work.line_expansions += fresh.expansions;
    }
    let goal_expansions = goal.expansions + guided_expansions;
    let goal_memo = goal.take_memo();
    // 2. The fewest stones of the children that cannot reach one.
    let mut best = Searcher::with_children(m, keyf, expand, entries)
        .objective(Stones {
            goal: Some(&goal_memo),
            key,
        })
        .prefetch(true)
        .with_memo(kept.best);
    let mut fewest: Vec<Option<u32>> = reach
        .iter()
        .map(|r| (*r == Some(true)).then_some(1))
        .collect();
    let mut cap = FIRST_ROUND;
    loop {
        for (i, (_, c)) in kids.iter().enumerate() {
            if fewest[i].is_none() && reach[i] == Some(false) && !work.over() {
                fewest[i] = work.fewest(&mut best, c, cap);
            }
        }
        let open = (0..kids.len()).any(|i| fewest[i].is_none() && reach[i] == Some(false));
        if work.over() || !open {
            break;
        }
        cap = cap.saturating_mul(4);
    }
    let results: Vec<PuzzleResult> = reach
        .iter()
        .zip(&fewest)
        .map(|(r, f)| match (r, f) {
            (_, Some(v)) => PuzzleResult::exact(*v == 1, *v),
            (Some(r), None) => PuzzleResult {
                solvable: Some(*r),
                best: None,
                best_proven: false,
            },
            (None, None) => PuzzleResult::UNKNOWN,
        })
        .collect();
    let result = if kids.is_empty() {
        PuzzleResult::exact(stones == 1, stones)
    } else {
        let mut r = PuzzleResult::of_children(&results);
        if r.solvable == Some(true) {
            // One stone is the floor: nothing undecided can beat it.
            r.best = Some(1);
            r.best_proven = true;
        }
        r
    };
    let decided = result.best_proven && result.solvable.is_some();
    if decided && result.solvable == Some(false) && !kids.is_empty() {
        let target = result.best.unwrap_or(stones);
        line = walk(m, &kids, target, |c| work.fewest(&mut best, c, u64::MAX));
    }
    let spent = Spent {
        goal_expansions,
        line_expansions: work.line_expansions,
        best_expansions: best.expansions,
        memo_bytes: goal_memo.bytes() + best.memo_bytes(),
    };
    let kept = Kept {
        best: best.take_memo(),
        goal: goal_memo,
    };
    let mut moves: Vec<MoveAnalysis<MoveDetail>> = kids
        .iter()
        .zip(&results)
        .map(|(&(op, child), r)| {
            let real = real_moves(m, s, op).unwrap_or_default();
            let colour = Colour::of_result(r, &result);
            MoveAnalysis {
                mv: m.format_op(op),
                after: child.to_board(n).to_board_string(),
                value: None,
                result: Some(*r),
                // Every operation removes one stone.
                remoteness: r.best.filter(|_| r.best_proven).map(|b| stones - b),
                colour,
                decided_by: if colour == Colour::Blue {
                    Decided::Undecided
                } else {
                    Decided::Search
                },
                estimate: None,
                detail: MoveDetail {
                    moves: real.iter().map(|x| x.describe(n)).collect(),
                    real_moves: real,
                },
            }
        })
        .collect();
    // Best first (solvable, then by fewest stones, undecided last); ties
    // in generation order, the order the line takes.
    moves.sort_by_key(|mv| {
        let r = mv.result.unwrap_or(PuzzleResult::UNKNOWN);
        match (r.solvable, r.best) {
            (Some(true), _) => 1,
            (_, Some(b)) => b,
            (Some(false), None) => u32::MAX - 1,
            (None, None) => u32::MAX,
        }
    });
    let colours_open = moves.iter().filter(|m| m.colour == Colour::Blue).count();
    let results_open = results.iter().filter(|r| !r.best_proven).count();
    let reason = if colours_open > 0 {
        Some(format!(
            "{colours_open} of {} operations undecided: {}",
            kids.len(),
            why(budget, work.used)
        ))
    } else if results_open > 0 {
        Some(format!(
            "the fewest stones after {results_open} of {} operations (which lose the goal) undecided: {}",
            kids.len(),
            why(budget, work.used)
        ))
    } else {
        None
    };
    let a = Analysis {
        game: "martello".into(),
        position: s.to_board(n).to_board_string(),
        to_move: None,
        over: kids.is_empty(),
        value: None,
        result: Some(result),
        remoteness: decided.then(|| stones - result.best.unwrap_or(stones)),
        decided_by: if decided {
            Decided::Search
        } else if result.best.is_some() {
            Decided::Heuristic
        } else {
            Decided::Undecided
        },
        reason,
        estimate: None,
        moves,
        line,
        detail: PosDetail { n, stones },
        time_ms: 0.0,
    };
    (a, spent, kept)
}

/// Expansions a child's [`guided`] search may spend, per guide.
const GUIDED_NODES: u64 = 1_000;

/// Siblings' lines a child tries as guides (the latest ones).
const GUIDES: usize = 3;

/// A line from `s` to one stone, found by a depth-first search that
/// tries the operations of `guide` (a sibling's line) first, in its
/// order, then the others in generation order, pruned by
/// [`Martello::cannot_reach_goal`] and by `dead` (states known to miss
/// one stone: the goal search's memo), within `limit` expansions
/// (counted in `nodes`). Most children of a position share most of a
/// line with a sibling, so this finds most lines in a few dozen
/// expansions; `None` only says this search gave up (the caller then
/// searches exactly).
fn guided<K: Hash + Eq>(
    m: &Martello,
    s: &State,
    guide: &[Op],
    dead: &dyn Fn(&State) -> bool,
    key: fn(&Martello, &State) -> K,
    limit: u64,
    nodes: &mut u64,
) -> Option<Vec<Op>> {
    use endgame_core::Puzzle;
    struct G<'a, K> {
        m: &'a Martello,
        guide: &'a [Op],
        dead: &'a dyn Fn(&State) -> bool,
        key: fn(&Martello, &State) -> K,
        limit: u64,
        /// States this search explored in full without a line.
        failed: std::collections::HashSet<K>,
        line: Vec<Op>,
    }
    fn dfs<K: Hash + Eq>(g: &mut G<K>, p: &State, nodes: &mut u64) -> bool {
        if p.stones() <= 1 {
            return p.stones() == 1;
        }
        if *nodes >= g.limit {
            return false;
        }
        *nodes += 1;
        let mut kids: Vec<(usize, Op, State)> =
            g.m.children(p)
                .into_iter()
                .filter(|(_, c)| {
                    c.stones() == 1
                        || !(g.m.cannot_reach_goal(c)
                            || g.failed.contains(&(g.key)(g.m, c))
                            || (g.dead)(c))
                })
                .map(|(op, c)| {
                    let rank = g.guide.iter().position(|&x| x == op);
                    (rank.unwrap_or(usize::MAX), op, c)
                })
                .collect();
        kids.sort_by_key(|k| k.0);
        for (_, op, c) in kids {
            g.line.push(op);
            if dfs(g, &c, nodes) {
                return true;
            }
            g.line.pop();
            if *nodes >= g.limit {
                return false;
            }
        }
        g.failed.insert((g.key)(g.m, p));
        false
    }
    let mut g = G {
        m,
        guide,
        dead,
        key,
        limit,
        failed: Default::default(),
        line: Vec::new(),
    };
    dfs(&mut g, s, nodes).then_some(g.line)
}

/// The best line to `target` stones, starting with one of `kids`: at
/// every step the first operation in generation order whose child still
/// reaches `target` by `value` (the same line whatever the memos held
/// before). Cut short where `value` gives up (the budget).
fn walk(
    m: &Martello,
    kids: &[(Op, State)],
    target: u32,
    mut value: impl FnMut(&State) -> Option<u32>,
) -> Vec<String> {
    let mut line = Vec::new();
    let mut options = kids.to_vec();
    'walk: loop {
        for (op, c) in options {
            match value(&c) {
                Some(v) if v == target => {
                    line.push(m.format_op(op));
                    if c.stones() <= target {
                        break 'walk;
                    }
                    options = m.children(&c);
                    continue 'walk;
                }
                Some(_) => {}
                None => break 'walk,
            }
        }
        // No child keeps the target: impossible with exact values.
        break;
    }
    line
}

/// Memo memory of a solve when the budget names none (1.5 GiB for the
/// goal search's and the exact search's memos together; a full memo keeps
/// the answer exact, only slower).
pub const DEFAULT_SOLVE_MEMO_BYTES: usize = 1536 << 20;

/// How [`solve`] searches (what it may spend is the [`Budget`]'s).
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Symmetries the memos identify.
    pub symmetry: SymmetryMode,
    /// Budgeted runs in random child orders before the exact run: of the
    /// goal search with `goal_first`, else of the exact search
    /// ([`Schedule::plain`]: none).
    pub schedule: Schedule,
    /// Seed of the schedule's random child orders.
    pub seed: u64,
    /// First search for one stone alone, pruned by
    /// [`Martello::cannot_reach_goal`]; only when one stone is out of
    /// reach search for the fewest stones (which stops below a state at
    /// two stones where the goal search proved one out of reach).
    pub goal_first: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            symmetry: SymmetryMode::None,
            schedule: Schedule::plain(),
            seed: 0,
            goal_first: true,
        }
    }
}

/// A restart schedule by name: `plain` (none), `reference` (that of Graf's
/// meta-solver), `better` (the study's, [`study::better_schedule`]) or runs
/// like `40x250,60x1000`. `seed`, the old name of `reference`, is still
/// accepted for one release.
pub fn schedule(name: &str) -> Result<Schedule, String> {
    match name.trim() {
        "plain" => Ok(Schedule::plain()),
        "reference" | "seed" => Ok(Schedule::reference()),
        "better" => Ok(study::better_schedule()),
        other => Schedule::parse(other),
    }
}

/// One operation of a solve's line, with its real moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpReport {
    /// `EATER:EATEN`.
    pub op: String,
    /// The real moves, as text.
    pub moves: Vec<String>,
    /// The real moves, structured.
    pub real_moves: Vec<RealMove>,
    /// The normalised board after it.
    pub board: String,
}

/// The answer of [`solve`]: `endgame solve martello --json` prints it and
/// `/api/martello/solve` sends it (with the request's budget).
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// Board side.
    pub n: usize,
    /// The start as given.
    pub board: String,
    /// `solvable`, `unsolvable`, or `unknown` (undecided within the
    /// budget).
    pub value: &'static str,
    /// Minimum stone count (exact when `complete`; the start's stones
    /// otherwise).
    pub min_stones: u32,
    /// Whether one stone can be left; `null` when the budget ran out
    /// before either a one-stone line or the exact minimum.
    pub solvable: Option<bool>,
    /// Whether the answer is exact (false: the budget ran out).
    pub complete: bool,
    /// The normalised boards of the line, start first.
    pub line: Vec<String>,
    /// The same joined by `X`.
    pub line_string: String,
    /// Each operation with its real moves.
    pub operations: Vec<OpReport>,
    /// States expanded, both searches.
    pub explored: u64,
    /// Runs (the schedule's and the exact ones).
    pub runs: u32,
    /// Memo entries at the end (the larger memo).
    pub memo_entries: usize,
    /// Memo bytes at the end (both memos, estimate).
    pub memo_bytes: usize,
    /// What stayed undecided and why (`null` when complete).
    pub reason: Option<String>,
    /// Wall time, ms.
    pub time_ms: f64,
}

/// What the searches of a solve found and spent.
struct Solved {
    /// The exact minimum, when decided.
    min: Option<u32>,
    /// Whether one stone was proven out of reach.
    goal_lost: bool,
    ops: Vec<Op>,
    explored: u64,
    runs: u32,
    memo_entries: usize,
    memo_bytes: usize,
    used: u64,
}

/// Solves the puzzle from the start of board `b`: the minimum stone count
/// and a line to it, within `budget`. Every search checks the budget
/// itself (its nodes over the whole solve, its deadline and cancel token;
/// its memory, default [`DEFAULT_SOLVE_MEMO_BYTES`], bounds the memos).
/// The command line's `solve martello` and the web's `/api/martello/solve`
/// both answer with it.
pub fn solve(
    b: &Board,
    opts: &SolveOptions,
    budget: &Budget,
) -> Result<SolveReport, MartelloError> {
    let t0 = Instant::now();
    let (m, start) = from_board(b)?;
    let n = m.n();
    let bytes = budget.memory.unwrap_or(DEFAULT_SOLVE_MEMO_BYTES);
    // Both memos live at once after a goal search.
    let bytes = if opts.goal_first { bytes / 2 } else { bytes };
    let found = match (opts.symmetry, n <= 6) {
        (SymmetryMode::None, true) => {
            let entries = entries_for::<Key>(bytes);
            solve_in(&m, start, Martello::key4, Lazy4, entries, opts, budget)
        }
        (SymmetryMode::None, false) => {
            let entries = entries_for::<[u64; 7]>(bytes);
            solve_in(&m, start, Martello::key7, Lazy7, entries, opts, budget)
        }
        (SymmetryMode::Mirror, true) => solve_in(
            &m,
            start,
            key4_mirror,
            children,
            entries_for::<Key>(bytes),
            opts,
            budget,
        ),
        (SymmetryMode::Mirror, false) => {
            let entries = entries_for::<[u64; 7]>(bytes);
            solve_in(&m, start, key7_mirror, children, entries, opts, budget)
        }
        (SymmetryMode::Full, true) => solve_in(
            &m,
            start,
            key4_full,
            children,
            entries_for::<Key>(bytes),
            opts,
            budget,
        ),
        (SymmetryMode::Full, false) => {
            let entries = entries_for::<[u64; 7]>(bytes);
            solve_in(&m, start, key7_full, children, entries, opts, budget)
        }
    };
    let mut line = vec![start];
    let mut operations = Vec::new();
    for &op in &found.ops {
        let s = *line.last().expect("the start");
        let real = real_moves(&m, &s, op)?;
        let child = m.play_checked(&s, op)?;
        operations.push(OpReport {
            op: m.format_op(op),
            moves: real.iter().map(|x| x.describe(n)).collect(),
            real_moves: real,
            board: child.to_board(n).to_board_string(),
        });
        line.push(child);
    }
    let line: Vec<String> = line
        .iter()
        .map(|s| s.to_board(n).to_board_string())
        .collect();
    let complete = found.min.is_some();
    let solvable = found.min.map(|v| v == 1);
    let reason = (!complete).then(|| {
        let what = if found.goal_lost {
            "one stone is out of reach, but the fewest stones are undecided"
        } else {
            "undecided"
        };
        format!("{what}: {}", why(budget, found.used))
    });
    Ok(SolveReport {
        n,
        board: b.to_board_string(),
        value: match solvable {
            Some(true) => "solvable",
            Some(false) => "unsolvable",
            None => "unknown",
        },
        min_stones: found.min.unwrap_or(start.stones()),
        solvable,
        complete,
        line_string: line.join("X"),
        line,
        operations,
        explored: found.explored,
        runs: found.runs,
        memo_entries: found.memo_entries,
        memo_bytes: found.memo_bytes,
        reason,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
    })
}

fn key4_mirror(m: &Martello, s: &State) -> Key {
    m.key4(&m.canonical_mirror(s))
}

fn key7_mirror(m: &Martello, s: &State) -> [u64; 7] {
    m.key7(&m.canonical_mirror(s))
}

fn key4_full(m: &Martello, s: &State) -> Key {
    m.key4(&m.canonical_full(s))
}

fn key7_full(m: &Martello, s: &State) -> [u64; 7] {
    m.key7(&m.canonical_full(s))
}

/// Memo entries a goal search reserves up front (about the median random
/// 6×6 game's expansions, as the solver does).
const SOLVE_RESERVE: usize = 4096;

/// The searches of [`solve`] with key `key` and expansion `expand`.
fn solve_in<K, E>(
    m: &Martello,
    start: State,
    key: fn(&Martello, &State) -> K,
    expand: E,
    entries: usize,
    opts: &SolveOptions,
    budget: &Budget,
) -> Solved
where
    K: Hash + Eq + Copy,
    E: Children<Martello, K> + Clone,
{
    let keyf = move |x: &State| key(m, x);
    let mut work = Work {
        budget,
        used: 0,
        line_expansions: 0,
    };
    let mut found = Solved {
        min: None,
        goal_lost: false,
        ops: Vec::new(),
        explored: 0,
        runs: 0,
        memo_entries: 0,
        memo_bytes: 0,
        used: 0,
    };
    if start.stones() <= 1 {
        found.min = Some(start.stones());
        return found;
    }
    // 1. One stone, by the goal search (with the schedule).
    let mut goal_memo = None;
    if opts.goal_first {
        let mut goal = Searcher::with_children(m, keyf, expand.clone(), entries)
            .objective(Stones { goal: None, key })
            .prefetch(true)
            .goal_only();
        goal.reserve(SOLVE_RESERVE.min(entries), &start);
        let v = work.scheduled(&mut goal, &start, &opts.schedule, opts.seed);
        if v == Some(1) {
            found.min = Some(1);
            found.ops = goal.line(&start);
        }
        found.goal_lost = v.is_some_and(|v| v > 1);
        found.explored += goal.expansions;
        found.runs += goal.runs;
        found.memo_entries = goal.memo_entries();
        found.memo_bytes = goal.memo_bytes();
        if !found.goal_lost {
            found.used = work.used;
            return found;
        }
        goal_memo = Some(goal.take_memo());
    }
    // 2. The fewest stones, by the exact search (stopping at two stones
    // below the states the goal search proved one out of reach from).
    let mut best = Searcher::with_children(m, keyf, expand, entries)
        .objective(Stones {
            goal: goal_memo.as_ref(),
            key,
        })
        .prefetch(true);
    let schedule = if opts.goal_first {
        Schedule::plain()
    } else {
        opts.schedule.clone()
    };
    if let Some(v) = work.scheduled(&mut best, &start, &schedule, opts.seed) {
        found.min = Some(v);
        found.ops = best.line(&start);
    }
    found.explored += best.expansions;
    found.runs += best.runs;
    found.memo_entries = found.memo_entries.max(best.memo_entries());
    found.memo_bytes += best.memo_bytes();
    found.used = work.used;
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brute;
    use endgame_core::Rules;

    /// Checks an analysis of `s` against the brute force over raw boards:
    /// every operation's best result is the brute force's minimum of its
    /// child, the position's is theirs, colours follow from them, and the
    /// line replays to the best result. Returns the colours seen.
    fn check_against_brute_force(service: &Service, m: &Martello, s: &State) -> Vec<Colour> {
        let n = m.n();
        let a = service.analyze(m, s, &Budget::unlimited());
        assert_eq!(a.undecided(), 0);
        assert_eq!(a.moves.len(), m.children(s).len());
        let mut bests = Vec::new();
        for mv in &a.moves {
            let (_, c) = State::parse(&mv.after).expect("a board");
            let want = brute::min_stones(&c.to_board(n));
            bests.push(want);
            // The exact search's floor never passes the true minimum.
            assert!(m.floor(&c) <= want, "{}", c.to_board(n));
            assert_eq!(
                mv.result,
                Some(PuzzleResult::exact(want == 1, want)),
                "{} {}",
                a.position,
                mv.mv
            );
            assert_eq!(mv.remoteness, Some(s.stones() - want));
            assert_eq!(m.format_op(m.parse_op(&mv.mv).expect("an op")), mv.mv);
        }
        let best = bests.iter().copied().min().unwrap_or(s.stones());
        assert_eq!(
            a.result,
            Some(PuzzleResult::exact(best == 1, best)),
            "{}",
            a.position
        );
        for (mv, &b) in a.moves.iter().zip(&bests) {
            // The policy written out: the goal first, then the best result.
            let colour = if b == 1 {
                Colour::Green
            } else if best == 1 || b > best {
                Colour::Red
            } else {
                Colour::Yellow
            };
            assert_eq!(mv.colour, colour, "{} {}", a.position, mv.mv);
        }
        let end = a.line.iter().fold(*s, |p, op| {
            m.play_checked(&p, m.parse_op(op).expect("an op"))
                .expect("legal")
        });
        assert_eq!(end.stones(), best);
        assert_eq!(a.remoteness, Some(a.line.len() as u32));
        a.moves.iter().map(|mv| mv.colour).collect()
    }

    #[test]
    fn every_move_has_the_brute_force_minimum_and_the_core_colour() {
        let service = Service::new();
        let mut seen = Vec::new();
        // Random starts, and every position of a playout that always
        // takes the last operation (which often loses the goal).
        for (n, seeds) in [(2, 100), (3, 100)] {
            for seed in 0..seeds {
                let (m, mut s) = random(n, seed).expect("a board");
                loop {
                    seen.extend(check_against_brute_force(&service, &m, &s));
                    match m.children(&s).last() {
                        Some(&(_, c)) => s = c,
                        None => break,
                    }
                }
            }
        }
        // 4×4: positions with at most 12 stones (the brute force's reach),
        // along the best line and along the last-operation playout.
        for seed in 0..8 {
            let (m, s) = random(4, seed).expect("a board");
            let a = service.analyze(&m, &s, &Budget::unlimited());
            let mid = a.line.iter().take(4).fold(s, |p, op| {
                m.play_checked(&p, m.parse_op(op).expect("an op"))
                    .expect("legal")
            });
            seen.extend(check_against_brute_force(&service, &m, &mid));
            let mut p = s;
            while let Some(&(_, c)) = m.children(&p).last() {
                p = c;
                if p.stones() <= 12 {
                    seen.extend(check_against_brute_force(&service, &m, &p));
                }
            }
        }
        for c in [Colour::Green, Colour::Red, Colour::Yellow] {
            assert!(seen.contains(&c), "no {c} move checked");
        }
    }

    #[test]
    fn a_kept_memo_gives_the_same_analysis() {
        let (m, s) = random(6, 1).expect("a board");
        let service = Service::new();
        let mut cold = service.analyze(&m, &s, &Budget::unlimited());
        assert!(service.kept_bytes() > 0);
        let mut warm = service.analyze(&m, &s, &Budget::unlimited());
        cold.time_ms = 0.0;
        warm.time_ms = 0.0;
        assert_eq!(cold, warm);
        assert_eq!(cold.undecided(), 0);
        // Nothing kept: the same again.
        let mut none = Service::with_keep_bytes(0).analyze(&m, &s, &Budget::unlimited());
        none.time_ms = 0.0;
        assert_eq!(none, cold);
    }

    #[test]
    fn a_stopped_budget_leaves_moves_blue_with_a_reason() {
        let (m, s) = random(6, 3).expect("a board");
        let cancel = Budget::unlimited();
        cancel.cancel.cancel();
        let a = analyze(&m, &s, &cancel);
        assert_eq!(a.undecided(), a.moves.len());
        assert_eq!(a.decided_by, Decided::Undecided);
        assert!(a.reason.as_deref().unwrap().contains("cancelled"));
        let a = analyze(&m, &s, &Budget::unlimited().with_nodes(1));
        assert!(a.undecided() > 0);
        assert!(a.reason.as_deref().unwrap().contains("node budget"));
    }

    /// Checks a complete solve report: the line replays operation by
    /// operation to `want` stones, each board and real move as reported.
    /// The guided search behind a hint's children: a line it returns is
    /// legal and ends at one stone, it finds none for a child that cannot
    /// reach one stone, and with a child's own line as the guide it walks
    /// that line without a detour.
    #[test]
    fn guided_lines_are_legal_and_follow_their_guide() {
        let (mut found, mut lost) = (0, 0);
        // Starts (n = 5 ones are all solvable) and n = 4 positions five
        // operations in (many are not).
        let boards = (1..=40)
            .map(|seed| (4, seed))
            .chain((1..=12).map(|seed| (5, seed)));
        for (n, seed) in boards {
            let (m, mut s) = random(n, seed).expect("a board");
            for k in 0..if n == 4 { 5 } else { 0 } {
                let kids = m.children(&s);
                if let Some(&(_, c)) = kids.get((seed as usize * 7 + k) % kids.len().max(1)) {
                    s = c;
                }
            }
            let a = analyze(&m, &s, &Budget::unlimited());
            let line: Vec<Op> = a
                .line
                .iter()
                .map(|o| m.parse_op(o).expect("an op"))
                .collect();
            let solvable = a.result.and_then(|r| r.solvable) == Some(true);
            for (op, c) in m.children(&s) {
                let after = c.to_board(n).to_board_string();
                let want = a.moves.iter().find(|mv| mv.after == after).expect("a move");
                let reach = want.result.and_then(|r| r.solvable).expect("decided");
                let mut nodes = 0;
                let got = guided(&m, &c, &line, &|_| false, Martello::key4, 5_000, &mut nodes);
                assert!(nodes <= 5_000);
                match got {
                    Some(l) => {
                        assert!(
                            reach,
                            "seed {seed} {}: a line from a lost child",
                            m.format_op(op)
                        );
                        let end = l.iter().fold(c, |p, &o| {
                            assert!(m.moves(&p).contains(&o), "illegal {}", m.format_op(o));
                            m.play_unchecked(&p, o)
                        });
                        assert_eq!(end.stones(), 1);
                        found += 1;
                    }
                    None => lost += usize::from(!reach),
                }
                if solvable && op == line[0] {
                    // Its own line as the guide: one expansion a step.
                    let mut nodes = 0;
                    let got = guided(&m, &c, &line, &|_| false, Martello::key4, 5_000, &mut nodes);
                    assert_eq!(got.as_deref(), Some(&line[1..]));
                    assert_eq!(nodes as usize, line.len() - 1);
                }
            }
        }
        // Both kinds occur.
        assert!(found > 20 && lost > 0, "found {found}, lost {lost}");
    }

    fn check_solve(b: &Board, r: &SolveReport, want: u32) {
        let n = b.n();
        assert!(r.complete, "{}", r.board);
        assert_eq!(r.min_stones, want, "{}", r.board);
        assert_eq!(r.solvable, Some(want == 1));
        assert_eq!(r.value, if want == 1 { "solvable" } else { "unsolvable" });
        assert_eq!(r.reason, None);
        assert_eq!(r.line.len(), r.operations.len() + 1);
        assert_eq!(r.line_string, r.line.join("X"));
        let (m, mut s) = from_board(b).expect("a board");
        assert_eq!(r.line[0], s.to_board(n).to_board_string());
        for (op, next) in r.operations.iter().zip(&r.line[1..]) {
            let o = m.parse_op(&op.op).expect("an op");
            assert_eq!(op.real_moves, real_moves(&m, &s, o).expect("real moves"));
            s = m.play_checked(&s, o).expect("legal");
            assert_eq!(&s.to_board(n).to_board_string(), next);
            assert_eq!(&op.board, next);
        }
        assert_eq!(s.stones(), want);
    }

    #[test]
    fn solve_agrees_with_the_solver_and_the_brute_force() {
        let variants = [
            SolveOptions::default(),
            SolveOptions {
                goal_first: false,
                ..SolveOptions::default()
            },
            SolveOptions {
                symmetry: SymmetryMode::Mirror,
                ..SolveOptions::default()
            },
            SolveOptions {
                symmetry: SymmetryMode::Full,
                goal_first: false,
                ..SolveOptions::default()
            },
            SolveOptions {
                schedule: schedule("reference").expect("a schedule"),
                seed: 7,
                ..SolveOptions::default()
            },
            SolveOptions {
                schedule: schedule("2x10,1x100").expect("a schedule"),
                goal_first: false,
                ..SolveOptions::default()
            },
        ];
        // Random starts, and the positions of a playout that always takes
        // the last operation (which often loses the goal).
        let mut boards = Vec::new();
        for (n, seeds) in [(2, 30), (3, 30), (4, 6)] {
            for seed in 0..seeds {
                let (m, mut s) = random(n, seed).expect("a board");
                boards.push(s.to_board(n));
                while let Some(&(_, c)) = m.children(&s).last() {
                    s = c;
                    boards.push(s.to_board(n));
                }
            }
        }
        let mut seen = [false; 2];
        for b in &boards {
            let n = b.n();
            let (m, _) = from_board(b).expect("a board");
            let want = if b.stones() <= 12 {
                brute::min_stones(b)
            } else {
                crate::solver::solve(&m, &crate::solver::SolveOptions::default()).min_stones
            };
            seen[usize::from(want == 1)] = true;
            let opts = if n <= 3 {
                &variants[..]
            } else {
                &variants[..2]
            };
            for o in opts {
                let r = solve(b, o, &Budget::unlimited()).expect("a solve");
                check_solve(b, &r, want);
            }
        }
        // A 5×5 start with the defaults.
        let b = Board::random(5, 1).expect("a board");
        let (m, _) = from_board(&b).expect("a board");
        let want = crate::solver::solve(&m, &crate::solver::SolveOptions::default()).min_stones;
        let r = solve(&b, &SolveOptions::default(), &Budget::unlimited()).expect("a solve");
        check_solve(&b, &r, want);
        assert_eq!(
            seen,
            [true, true],
            "solvable and unsolvable boards both checked"
        );
        // 7×7 positions 26 operations in (the wide key's lazy search)
        // against the solver with mirror keys (every child built).
        for seed in 0..4 {
            let (m, mut s) = random(7, seed).expect("a board");
            for _ in 0..26 {
                if let Some(&(_, c)) = m.children(&s).last() {
                    s = c;
                }
            }
            let b = s.to_board(7);
            let (m, _) = from_board(&b).expect("a board");
            let mirror = crate::solver::SolveOptions {
                symmetry: SymmetryMode::Mirror,
                ..crate::solver::SolveOptions::default()
            };
            let want = crate::solver::solve(&m, &mirror).min_stones;
            for o in &variants[..2] {
                let r = solve(&b, o, &Budget::unlimited()).expect("a solve");
                check_solve(&b, &r, want);
            }
        }
    }

    #[test]
    fn a_stopped_solve_is_unknown_with_a_reason() {
        let b = Board::random(6, 3).expect("a board");
        let cancel = Budget::unlimited();
        cancel.cancel.cancel();
        let r = solve(&b, &SolveOptions::default(), &cancel).expect("a report");
        assert!(!r.complete);
        assert_eq!((r.value, r.solvable), ("unknown", None));
        assert_eq!(r.line.len(), 1);
        assert_eq!(r.min_stones, 36);
        assert!(r.reason.as_deref().unwrap().contains("cancelled"));
        let r = solve(
            &b,
            &SolveOptions::default(),
            &Budget::unlimited().with_nodes(1),
        )
        .expect("a report");
        assert_eq!(r.value, "unknown");
        assert!(r.reason.as_deref().unwrap().contains("node budget"));
        assert!(r.explored <= 1);
        let late = Budget::time(Duration::ZERO);
        let r = solve(&b, &SolveOptions::default(), &late).expect("a report");
        assert!(r.reason.as_deref().unwrap().contains("time budget"));
        // One stone is solved whatever the budget.
        let one = Board::parse("a...").expect("a board");
        let r = solve(&one, &SolveOptions::default(), &late).expect("a report");
        check_solve(&one, &r, 1);
        assert!(r.operations.is_empty());
    }

    #[test]
    fn a_finished_board_has_no_moves() {
        let (m, s) = parse("a...").expect("a board");
        let a = analyze(&m, &s, &Budget::unlimited());
        assert!(a.over && a.moves.is_empty() && a.line.is_empty());
        assert_eq!(a.result, Some(PuzzleResult::exact(true, 1)));
        assert_eq!(a.remoteness, Some(0));
        assert_eq!(m.start(), s);
    }
}
