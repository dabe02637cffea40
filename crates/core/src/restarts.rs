//! Budgeted depth-first runs with random restarts (the Martello study's
//! meta-solver), generic over any [`Puzzle`].
//!
//! A [`Searcher`] owns a memo of *fully explored* positions (keyed by a
//! caller-chosen key: identity, a canonical form under symmetry, a compact
//! packing) with the exact best score reachable from each. A run is a
//! depth-first search that may stop when its expansion budget runs out;
//! positions on the stack of an aborted run were never entered in the
//! memo, so everything the memo holds stays exact and later runs reuse it.
//! [`solve`] runs a [`Schedule`] of such runs (random child order each,
//! so restarts explore different parts of the tree) and, if none
//! finishes, one unbounded run that always does.
//!
//! The plain exact solver is the empty schedule: a single unbounded run in
//! generation order.

use crate::hash::FxHashMap;
use crate::memory::hash_table_bytes;
use crate::Puzzle;
use std::hash::Hash;

/// Runs of a restart schedule: `(repetitions, expansion budget)` pairs, in
/// order. After the last one, an unbounded run finishes the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// `(repetitions, budget)` in the order they are run.
    pub runs: Vec<(u32, u64)>,
}

impl Schedule {
    /// No budgeted runs: the plain exact solver.
    pub fn plain() -> Schedule {
        Schedule { runs: Vec::new() }
    }

    /// The schedule of the Martello study: once 10,000, 40 × 250,
    /// 60 × 1,000, 4 × 2,500, once 10,000 (100,000 expansions in all; the
    /// source writes "2'5000", which only adds up to its stated 100,000 as
    /// 2,500).
    pub fn seed() -> Schedule {
        Schedule {
            runs: vec![(1, 10_000), (40, 250), (60, 1_000), (4, 2_500), (1, 10_000)],
        }
    }

    /// Geometric budgets: `count` runs starting at `first`, each `factor`
    /// times the previous one (Luby-like doubling when `factor` is 2).
    pub fn geometric(first: u64, factor: u64, count: u32) -> Schedule {
        let mut runs = Vec::new();
        let mut b = first.max(1);
        for _ in 0..count {
            runs.push((1, b));
            b = b.saturating_mul(factor.max(1));
        }
        Schedule { runs }
    }

    /// Total expansions the budgeted runs may spend.
    pub fn total_budget(&self) -> u64 {
        self.runs
            .iter()
            .map(|&(k, b)| u64::from(k).saturating_mul(b))
            .fold(0, u64::saturating_add)
    }

    /// Parses `"1x10000,40x250,60x1000"` (a bare number means one run).
    pub fn parse(s: &str) -> Result<Schedule, String> {
        let mut runs = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, b) = match part.split_once(['x', '*']) {
                Some((k, b)) => (k.trim(), b.trim()),
                None => ("1", part),
            };
            let k: u32 = k
                .parse()
                .map_err(|_| format!("bad repetition count {k:?} in schedule"))?;
            let b: u64 = b
                .replace('_', "")
                .parse()
                .map_err(|_| format!("bad budget {b:?} in schedule"))?;
            if b == 0 {
                return Err("a schedule budget must be positive".into());
            }
            runs.push((k, b));
        }
        Ok(Schedule { runs })
    }
}

/// What a restart search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartReport<M> {
    /// Lowest score reachable (exact when `complete`).
    pub best_score: u32,
    /// Whether `best_score` is the puzzle's goal score.
    pub reached_goal: bool,
    /// Moves from the start to a position with `best_score`.
    pub line: Vec<M>,
    /// Positions expanded, over all runs.
    pub expansions: u64,
    /// Runs started (budgeted ones and the final one).
    pub runs: u32,
    /// Whether the answer is exact (a run finished).
    pub complete: bool,
    /// Entries in the memo at the end.
    pub memo_entries: usize,
    /// Estimated bytes of the memo.
    pub memo_bytes: usize,
}

/// A small, fast, seedable generator for child orders (SplitMix64): the
/// shuffle sits in the hot loop, and reproducibility is all we need.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (`n > 0`).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Shuffles `v` uniformly (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// The children of a position by the puzzle's own moves: the default way
/// a [`Searcher`] expands positions.
pub fn children_by_moves<P: Puzzle>(
    puzzle: &P,
    pos: &P::Position,
    out: &mut Vec<(P::Move, P::Position)>,
) {
    puzzle.for_each_move(pos, |m| out.push((m, puzzle.play_unchecked(pos, m))));
}

/// How a [`Searcher`] expands positions.
pub type ChildrenFn<P> = fn(
    &P,
    &<P as crate::Rules>::Position,
    &mut Vec<(<P as crate::Rules>::Move, <P as crate::Rules>::Position)>,
);

/// A memoised depth-first searcher whose memo survives between runs.
///
/// `E` generates the children of a position (default
/// [`children_by_moves`]); games whose move generator computes the child
/// anyway pass a closure that hands both over, saving a replay per child.
pub struct Searcher<'a, P: Puzzle, K, F, E = ChildrenFn<P>> {
    puzzle: &'a P,
    key: F,
    children: E,
    memo: FxHashMap<K, u32>,
    max_memo_entries: usize,
    /// Expansions over all runs so far.
    pub expansions: u64,
    /// Runs started so far.
    pub runs: u32,
    limit: u64,
    spent: u64,
    aborted: bool,
    rng: Option<Rng>,
    buffers: Vec<Vec<(P::Move, P::Position)>>,
    goal_only: bool,
    ordered: bool,
}

impl<'a, P, K, F> Searcher<'a, P, K, F>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
{
    /// A searcher keying positions by `key` (which must map positions
    /// with equal best score to equal keys only: identity, or a canonical
    /// form under symmetries preserving the score), with at most
    /// `max_memo_entries` memo entries (when full, runs stay exact but
    /// re-explore).
    pub fn new(puzzle: &'a P, key: F, max_memo_entries: usize) -> Self {
        Searcher::with_children(puzzle, key, children_by_moves::<P>, max_memo_entries)
    }
}

impl<'a, P, K, F, E> Searcher<'a, P, K, F, E>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
    E: Fn(&P, &P::Position, &mut Vec<(P::Move, P::Position)>),
{
    /// Like [`Searcher::new`], expanding positions with `children`
    /// (which must yield exactly the puzzle's moves and their results).
    pub fn with_children(puzzle: &'a P, key: F, children: E, max_memo_entries: usize) -> Self {
        Searcher {
            puzzle,
            key,
            children,
            memo: FxHashMap::default(),
            max_memo_entries,
            expansions: 0,
            runs: 0,
            limit: u64::MAX,
            spent: 0,
            aborted: false,
            rng: None,
            buffers: Vec::new(),
            goal_only: false,
            ordered: false,
        }
    }

    /// Tries children in the order of [`Puzzle::search_order`] (lowest
    /// first; random runs shuffle first, so ties are broken at random).
    pub fn ordered(mut self, on: bool) -> Self {
        self.ordered = on;
        self
    }

    /// Turns the searcher into a goal-only one: it answers whether the
    /// goal is reachable (value [`Puzzle::score_bound`]) or not (any larger
    /// value, not the exact best score), and prunes every position that
    /// [`Puzzle::cannot_reach_goal`] rules out. Call before any run.
    pub fn goal_only(mut self) -> Self {
        assert!(self.memo.is_empty(), "goal_only before any run");
        self.goal_only = true;
        self
    }

    /// Entries in the memo.
    pub fn memo_entries(&self) -> usize {
        self.memo.len()
    }

    /// Estimated bytes of the memo.
    pub fn memo_bytes(&self) -> usize {
        hash_table_bytes(self.memo.len(), std::mem::size_of::<(K, u32)>())
    }

    /// The exact best score of `pos` if the memo knows it.
    pub fn known(&self, pos: &P::Position) -> Option<u32> {
        self.memo.get(&(self.key)(pos)).copied()
    }

    /// One run from `pos`: at most `budget` expansions (`None`: no
    /// limit), children in generation order or shuffled by `rng`. Returns
    /// the exact best score reachable, or `None` if the budget ran out.
    pub fn run(&mut self, pos: &P::Position, budget: Option<u64>, rng: Option<Rng>) -> Option<u32> {
        self.runs += 1;
        self.limit = budget.unwrap_or(u64::MAX);
        self.spent = 0;
        self.aborted = false;
        self.rng = rng;
        if let Some(v) = self.known(pos) {
            return Some(v);
        }
        let v = self.dfs(pos, 0);
        self.expansions += self.spent;
        let v = v?;
        self.insert(pos, v);
        Some(v)
    }

    fn insert(&mut self, pos: &P::Position, v: u32) {
        if self.memo.len() < self.max_memo_entries {
            self.memo.insert((self.key)(pos), v);
        }
    }

    /// Best score in `pos`'s subtree, or `None` when the budget ran out
    /// (nothing below an aborted position enters the memo unfinished).
    fn dfs(&mut self, pos: &P::Position, depth: usize) -> Option<u32> {
        let puzzle = self.puzzle;
        let bound = puzzle.score_bound();
        let mut best = puzzle.score(pos);
        if best <= bound {
            return Some(best);
        }
        if self.goal_only && puzzle.cannot_reach_goal(pos) {
            return Some(best);
        }
        if self.spent >= self.limit {
            self.aborted = true;
            return None;
        }
        self.spent += 1;
        if self.buffers.len() <= depth {
            self.buffers.push(Vec::new());
        }
        let mut moves = std::mem::take(&mut self.buffers[depth]);
        moves.clear();
        (self.children)(puzzle, pos, &mut moves);
        if let Some(rng) = self.rng.as_mut() {
            rng.shuffle(&mut moves);
        }
        if self.ordered {
            moves.sort_by_cached_key(|(_, c)| puzzle.search_order(c));
        }
        let mut result = Some(best);
        for &(_, child) in &moves {
            let score = puzzle.score(&child);
            if score <= bound {
                best = score;
                result = Some(best);
                break;
            }
            // Pruned children cost neither a memo probe nor an entry.
            if self.goal_only && puzzle.cannot_reach_goal(&child) {
                continue;
            }
            let k = (self.key)(&child);
            let v = match self.memo.get(&k) {
                Some(&v) => v,
                None => match self.dfs(&child, depth + 1) {
                    Some(v) => {
                        if self.memo.len() < self.max_memo_entries {
                            self.memo.insert(k, v);
                        }
                        v
                    }
                    None => {
                        result = None;
                        break;
                    }
                },
            };
            if v < best {
                best = v;
                result = Some(best);
                if best <= bound {
                    break;
                }
            }
        }
        self.buffers[depth] = moves;
        result
    }

    /// A line of moves from `pos` to a position with `pos`'s best score,
    /// read from the memo after a finished run (re-searching exactly where
    /// a full memo dropped entries).
    pub fn line(&mut self, pos: &P::Position) -> Vec<P::Move> {
        let puzzle = self.puzzle;
        let mut line = Vec::new();
        let mut pos = *pos;
        let Some(target) = self.known(&pos).or_else(|| self.run(&pos, None, None)) else {
            return line;
        };
        while puzzle.score(&pos) > target {
            let mut moves = Vec::new();
            (self.children)(puzzle, &pos, &mut moves);
            let mut next = None;
            for &(m, child) in &moves {
                if self.known(&child) == Some(target) || puzzle.score(&child) == target {
                    next = Some((m, child));
                    break;
                }
            }
            if next.is_none() {
                // The memo was full: decide the children exactly.
                for &(m, child) in &moves {
                    if self.run(&child, None, None) == Some(target) {
                        next = Some((m, child));
                        break;
                    }
                }
            }
            let Some((m, child)) = next else {
                break;
            };
            line.push(m);
            pos = child;
        }
        line
    }
}

/// Options of [`solve`].
#[derive(Clone, Debug)]
pub struct RestartOptions {
    /// Budgeted runs before the final unbounded one.
    pub schedule: Schedule,
    /// Most memo entries (memory budget).
    pub max_memo_entries: usize,
    /// Seed of the random child orders of the budgeted runs.
    pub seed: u64,
    /// Stop after this many expansions in all, with an incomplete answer
    /// (`None`: finish with an unbounded run).
    pub max_expansions: Option<u64>,
    /// First search for the goal alone, pruning with
    /// [`Puzzle::cannot_reach_goal`]; only if it is unreachable, find the
    /// exact best score with a second, unpruned search (fresh memo).
    pub goal_first: bool,
    /// Try children in [`Puzzle::search_order`] order.
    pub ordered: bool,
}

impl Default for RestartOptions {
    fn default() -> Self {
        RestartOptions {
            schedule: Schedule::plain(),
            max_memo_entries: 50_000_000,
            seed: 0,
            max_expansions: None,
            goal_first: false,
            ordered: false,
        }
    }
}

/// Runs `opts.schedule` from `start`, then an unbounded run (within
/// `opts.max_expansions`), keeping the memo of fully explored positions
/// throughout. The budgeted runs shuffle the children; the last run uses
/// the generation order.
pub fn solve<P, K, F>(
    puzzle: &P,
    start: &P::Position,
    key: F,
    opts: &RestartOptions,
) -> RestartReport<P::Move>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
{
    solve_with(puzzle, start, key, children_by_moves::<P>, opts)
}

/// [`solve`] with a children generator (see [`Searcher::with_children`]).
pub fn solve_with<P, K, F, E>(
    puzzle: &P,
    start: &P::Position,
    key: F,
    children: E,
    opts: &RestartOptions,
) -> RestartReport<P::Move>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
    E: Fn(&P, &P::Position, &mut Vec<(P::Move, P::Position)>),
{
    let cap = opts.max_expansions.unwrap_or(u64::MAX);
    let bound = puzzle.score_bound();
    let mut runs = 0;
    let mut spent = 0;
    if opts.goal_first {
        let mut s = Searcher::with_children(puzzle, &key, &children, opts.max_memo_entries)
            .goal_only()
            .ordered(opts.ordered);
        let value = run_schedule(&mut s, start, opts, cap);
        runs += s.runs;
        spent += s.expansions;
        match value {
            Some(v) if v <= bound => return report(puzzle, start, &mut s, true, runs, spent),
            None => return report(puzzle, start, &mut s, false, runs, spent),
            Some(_) => {}
        }
    }
    let mut s = Searcher::with_children(puzzle, &key, &children, opts.max_memo_entries)
        .ordered(opts.ordered);
    let schedule = if opts.goal_first {
        &[][..]
    } else {
        &opts.schedule.runs[..]
    };
    let plain = RestartOptions {
        schedule: Schedule {
            runs: schedule.to_vec(),
        },
        ..opts.clone()
    };
    let value = run_schedule(&mut s, start, &plain, cap.saturating_sub(spent));
    runs += s.runs;
    spent += s.expansions;
    report(puzzle, start, &mut s, value.is_some(), runs, spent)
}

/// Runs the budgeted runs of `opts.schedule`, then an unbounded one,
/// within `cap` expansions; the value of the first run that finishes.
fn run_schedule<P, K, F, E>(
    s: &mut Searcher<'_, P, K, F, E>,
    start: &P::Position,
    opts: &RestartOptions,
    cap: u64,
) -> Option<u32>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
    E: Fn(&P, &P::Position, &mut Vec<(P::Move, P::Position)>),
{
    let mut rng = Rng::new(opts.seed);
    for &(k, b) in &opts.schedule.runs {
        for _ in 0..k {
            let left = cap.saturating_sub(s.expansions);
            if left == 0 {
                return None;
            }
            let order = Rng::new(rng.next_u64());
            if let Some(v) = s.run(start, Some(b.min(left)), Some(order)) {
                return Some(v);
            }
        }
    }
    let left = cap.saturating_sub(s.expansions);
    if left == 0 {
        return None;
    }
    s.run(start, (cap != u64::MAX).then_some(left), None)
}

fn report<P, K, F, E>(
    puzzle: &P,
    start: &P::Position,
    s: &mut Searcher<'_, P, K, F, E>,
    complete: bool,
    runs: u32,
    expansions: u64,
) -> RestartReport<P::Move>
where
    P: Puzzle,
    K: Hash + Eq,
    F: Fn(&P::Position) -> K,
    E: Fn(&P, &P::Position, &mut Vec<(P::Move, P::Position)>),
{
    let line = if complete { s.line(start) } else { Vec::new() };
    let end = line
        .iter()
        .fold(*start, |p, &m| puzzle.play_unchecked(&p, m));
    let best_score = puzzle.score(&end);
    RestartReport {
        best_score,
        reached_goal: best_score <= puzzle.score_bound(),
        line,
        expansions,
        runs,
        complete,
        memo_entries: s.memo_entries(),
        memo_bytes: s.memo_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    /// A toy puzzle: a bitmask of pegs; a move removes peg i+1 when pegs i
    /// and i+1 are both present and i+2 is empty, setting i+2 (a 1-D peg
    /// solitaire). Score: pegs left.
    struct Line(u32, u32);

    impl Rules for Line {
        type Position = u32;
        type Move = (u8, bool);
        fn start(&self) -> u32 {
            self.1
        }
        fn for_each_move(&self, p: &u32, mut f: impl FnMut((u8, bool))) {
            for i in 0..self.0.saturating_sub(2) {
                let (a, b, c) = (1 << i, 1 << (i + 1), 1 << (i + 2));
                if p & a != 0 && p & b != 0 && p & c == 0 {
                    f((i as u8, true));
                }
                if p & c != 0 && p & b != 0 && p & a == 0 {
                    f((i as u8, false));
                }
            }
        }
        fn play_unchecked(&self, p: &u32, (i, right): (u8, bool)) -> u32 {
            let (a, b, c) = (1u32 << i, 1u32 << (i + 1), 1u32 << (i + 2));
            if right {
                (p & !a & !b) | c
            } else {
                (p & !c & !b) | a
            }
        }
    }

    impl Puzzle for Line {
        fn score(&self, p: &u32) -> u32 {
            p.count_ones()
        }
        fn is_goal(&self, p: &u32) -> bool {
            p.count_ones() == 1
        }
        fn score_bound(&self) -> u32 {
            1
        }
        // Pegs with no two of them within two holes of each other never
        // move again: a valid (if weak) proof that one peg cannot be left.
        fn cannot_reach_goal(&self, p: &u32) -> bool {
            let x = *p;
            x.count_ones() > 1 && x & (x >> 1) == 0 && x & (x >> 2) == 0
        }
    }

    fn brute(l: &Line, p: u32) -> u32 {
        let mut best = p.count_ones();
        l.for_each_move(&p, |m| best = best.min(brute(l, l.play_unchecked(&p, m))));
        best
    }

    #[test]
    fn every_schedule_finds_the_brute_force_minimum() {
        for start in 1u32..(1 << 10) {
            let l = Line(10, start);
            let want = brute(&l, start);
            for (sched, goal_first) in [
                (Schedule::plain(), false),
                (Schedule::seed(), false),
                (Schedule::geometric(2, 2, 6), false),
                (Schedule::plain(), true),
                (Schedule::seed(), true),
            ] {
                let opts = RestartOptions {
                    schedule: sched,
                    seed: u64::from(start),
                    goal_first,
                    ..Default::default()
                };
                let r = solve(&l, &start, |p| *p, &opts);
                assert!(r.complete);
                assert_eq!(r.best_score, want, "start {start:b}");
                let end = r.line.iter().fold(start, |p, &m| {
                    assert!(l.is_legal(&p, m));
                    l.play_unchecked(&p, m)
                });
                assert_eq!(end.count_ones(), want);
            }
        }
    }

    #[test]
    fn a_tiny_memo_stays_exact() {
        for start in [0b1101101101u32, 0b1111011, 0b110110111] {
            let l = Line(10, start);
            let opts = RestartOptions {
                schedule: Schedule::seed(),
                max_memo_entries: 3,
                ..Default::default()
            };
            assert_eq!(
                solve(&l, &start, |p| *p, &opts).best_score,
                brute(&l, start)
            );
        }
    }

    #[test]
    fn an_expansion_cap_gives_an_incomplete_answer() {
        let start = 0b1011_0110_1101_1011u32;
        let l = Line(16, start);
        let opts = RestartOptions {
            max_expansions: Some(1),
            ..Default::default()
        };
        let r = solve(&l, &start, |p| *p, &opts);
        assert!(!r.complete);
        assert!(r.expansions <= 1);
    }

    #[test]
    fn schedules_parse() {
        assert_eq!(
            Schedule::parse("1x10000, 40x250,60*1_000").unwrap().runs,
            vec![(1, 10_000), (40, 250), (60, 1_000)]
        );
        assert_eq!(Schedule::parse("500").unwrap().runs, vec![(1, 500)]);
        assert!(Schedule::parse("x").is_err());
        assert!(Schedule::parse("3x0").is_err());
        assert_eq!(Schedule::seed().total_budget(), 100_000);
    }
}
