//! The exact solver, the meta-solver and hints, all on
//! [`endgame_core::restarts`] (memoised DFS whose memo of fully explored
//! states survives budgeted restarts).

use crate::state::{Martello, Op, Rowwise, RowwiseResult, Spots, State};
use endgame_core::budget::Budget;
use endgame_core::restarts::{
    self, Children, LazyChild, Memo, MemoPool, Objective, RestartOptions, RestartSearch, Schedule,
    Searcher, INEXACT,
};
use endgame_core::Rules;
use serde::{Deserialize, Serialize};
use std::hash::Hash;

/// How much of the symmetry group the memo identifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SymmetryMode {
    /// Every normalised state is its own key (fastest key).
    #[default]
    None,
    /// Left–right and top–bottom mirrors.
    Mirror,
    /// Mirrors, colour↔symbol swap and all relabellings of colours and
    /// symbols.
    Full,
}

/// Options of [`solve`].
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Symmetries the memo identifies.
    pub symmetry: SymmetryMode,
    /// Memory budget of the memo, in bytes.
    pub max_memo_bytes: usize,
    /// Budgeted restart runs before the exact run ([`Schedule::plain`]:
    /// the plain solver).
    pub schedule: Schedule,
    /// Seed of the restarts' random child orders.
    pub seed: u64,
    /// Stop after this many expansions with an incomplete answer.
    pub max_expansions: Option<u64>,
    /// Search for a one-stone line first, pruning states whose stones fall
    /// into several classes (see [`Martello::connected`]); only for
    /// unsolvable starts run the exact, unpruned search.
    pub goal_first: bool,
    /// On boards up to 6×6, try children of lower [`Martello::spread`]
    /// first (ties in random order in restart runs): the hard solvable
    /// boards find their line in about half the expansions (thirteenth
    /// session). Not on 7×7 and larger, where it was measured worse (seed
    /// 1's games 0–11: 3.2 M → 3.9 M expansions without game 3, and game
    /// 3 from 24.5 M to more than 7× its time).
    pub ordered: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            symmetry: SymmetryMode::None,
            max_memo_bytes: 1 << 30,
            schedule: Schedule::plain(),
            seed: 0,
            max_expansions: None,
            goal_first: true,
            ordered: true,
        }
    }
}

/// What the solver found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The minimum stone count (exact when `complete`).
    pub min_stones: u32,
    /// Whether one stone can be left.
    pub solvable: bool,
    /// Operations from the start to a state with `min_stones` stones.
    pub ops: Vec<Op>,
    /// The normalised states of the line, start first.
    pub line: Vec<State>,
    /// States expanded (operations generated) over all runs.
    pub explored: u64,
    /// Child states those expansions generated.
    pub generated: u64,
    /// Whether the answer is exact.
    pub complete: bool,
    /// Runs of the restart schedule used (1 for the plain solver).
    pub runs: u32,
    /// Memo entries at the end.
    pub memo_entries: usize,
    /// Estimated memo bytes at the end.
    pub memo_bytes: usize,
}

/// The search's expansion: operations and their states in one pass.
#[inline]
pub fn children(m: &Martello, s: &State, out: &mut Vec<(Op, State)>) {
    m.for_each_child(s, |op, c| out.push((op, c)));
}

/// Implements [`Children`] for a lazy expander keyed by `$key` (one
/// body for every key: [`Martello::lazy_children`] is generic over it).
macro_rules! lazy_expander {
    ($name:ident, $key:ty) => {
        impl Children<Martello, $key> for $name {
            type Aux = Spots;
            #[inline]
            fn expand(&self, m: &Martello, s: &State, out: &mut Vec<(Op, State)>) {
                children(m, s, out);
            }
            #[inline]
            fn expand_lazy(
                &self,
                m: &Martello,
                s: &State,
                out: &mut Vec<LazyChild<Op, $key, Spots>>,
                skip_pruned: bool,
            ) -> Option<u64> {
                Some(m.lazy_children(s, out, skip_pruned))
            }
            #[inline]
            fn build(&self, m: &Martello, s: &State, c: &LazyChild<Op, $key, Spots>) -> State {
                m.build_lazy(s, c)
            }
            #[inline(always)]
            fn ranks(&self) -> bool {
                true
            }
            /// The child's [`Martello::spread`] less the parent's: minus
            /// the weight of the eater's row (`aux[0]`, see
            /// [`Martello::spread`]).
            #[inline(always)]
            fn rank(&self, m: &Martello, _: &State, c: &LazyChild<Op, $key, Spots>) -> i64 {
                -m.row_weight(usize::from(c.aux[0]))
            }
        }
    };
}

/// The search's lazy expansion for keys without symmetry on n ≤ 6
/// ([`Martello::key4`]): children's keys and tests without building their
/// states (most are memo hits), see [`Martello::lazy_children`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Lazy4;

lazy_expander!(Lazy4, [u64; 4]);

/// The search's lazy expansion for keys without symmetry on any n
/// ([`Martello::key7`]; the solver uses it for n = 7, 8): as [`Lazy4`]
/// with the wider key.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lazy7;

lazy_expander!(Lazy7, [u64; 7]);

/// Memo entries the goal search reserves up front (about the median
/// random 6×6 game's expansions).
const RESERVE: usize = 4096;

/// Memo entries reserved by [`solve_pooled`]: its tables come from the
/// pool, so a large start costs only the zeroing of its tags (128 KiB)
/// and spares the big games most of their rehashing (2000 games, one
/// thread, CPU: 4096 entries 3203–3344 ms, 16384 3025–3200, 65536
/// 2899–3038, 131072 2881–2942, 262144 3009–3076; two threads 65536
/// and 131072 alike).
const POOLED_RESERVE: usize = 65_536;

/// Memo entries of key type `K` that fit in `bytes`, for a
/// [`Searcher`] built outside this module.
pub fn entries_for<K: Hash + Eq + Copy>(bytes: usize) -> usize {
    // The memo (`restarts::Memo`) holds up to 3/4 of its slots, one tag
    // byte per slot, and grows in place to the slot count of its limit
    // (not only powers of two), so the table reaches about `bytes`.
    let per = Memo::<K>::SLOT_BYTES;
    (bytes / per * 3 / 4).max(1)
}

/// Calls `$body` with `$key` bound to the key function of `$mode` (each
/// arm monomorphises the search for its key type).
macro_rules! with_key {
    ($m:expr, $mode:expr, |$key:ident, $kt:ident| $body:expr) => {{
        let m: &Martello = $m;
        match ($mode, m.n() <= 6) {
            (SymmetryMode::None, true) => {
                type $kt = [u64; 4];
                let $key = |s: &State| m.key4(s);
                $body
            }
            (SymmetryMode::None, false) => {
                type $kt = [u64; 7];
                let $key = |s: &State| m.key7(s);
                $body
            }
            (SymmetryMode::Mirror, true) => {
                type $kt = [u64; 4];
                let $key = |s: &State| m.key4(&m.canonical_mirror(s));
                $body
            }
            (SymmetryMode::Mirror, false) => {
                type $kt = [u64; 7];
                let $key = |s: &State| m.key7(&m.canonical_mirror(s));
                $body
            }
            (SymmetryMode::Full, true) => {
                type $kt = [u64; 4];
                let $key = |s: &State| m.key4(&m.canonical_full(s));
                $body
            }
            (SymmetryMode::Full, false) => {
                type $kt = [u64; 7];
                let $key = |s: &State| m.key7(&m.canonical_full(s));
                $body
            }
        }
    }};
}

/// Solves the puzzle from its start: minimum stone count and a line.
/// Expands lazily without symmetry ([`Lazy4`] for n ≤ 6, [`Lazy7`]
/// above).
pub fn solve(m: &Martello, opts: &SolveOptions) -> Solution {
    solve_impl(m, opts, true, &mut Pool::default(), RESERVE)
}

/// Spare memo tables, reused by one search after another (see
/// [`MemoPool`]): one pool for each memo key type the solver uses
/// ([`Martello::key4`] up to 6×6, [`Martello::key7`] above), so 6×6 and
/// 7×7 games take their tables the same way ([`PoolKey::spares`]), and
/// the row-wise search's ([`Rowwise::limited`]).
#[derive(Default)]
pub struct Pool {
    four: MemoPool<[u64; 4]>,
    seven: MemoPool<[u64; 7]>,
    rowwise: MemoPool<[u64; 7]>,
}

impl Pool {
    /// Bytes the pool holds.
    pub fn bytes(&self) -> usize {
        self.four.bytes() + self.seven.bytes() + self.rowwise.bytes()
    }

    /// Frees every table if the pool holds more than `max_bytes`: a
    /// thread that has solved a game with big memos does not keep them
    /// (at most one game's memo budget is held between games, so two
    /// threads never hold more than two games' budgets at once).
    pub fn trim(&mut self, max_bytes: usize) {
        if self.bytes() > max_bytes {
            *self = Pool::default();
        }
    }
}

/// A memo key type with its spare tables in a [`Pool`].
pub trait PoolKey: Hash + Eq + Copy {
    /// The pool's tables of this key type for the operation search, and
    /// the row-wise search's.
    fn spares(pool: &mut Pool) -> (&mut MemoPool<Self>, &mut MemoPool<[u64; 7]>);
}

impl PoolKey for [u64; 4] {
    fn spares(pool: &mut Pool) -> (&mut MemoPool<Self>, &mut MemoPool<[u64; 7]>) {
        (&mut pool.four, &mut pool.rowwise)
    }
}

impl PoolKey for [u64; 7] {
    fn spares(pool: &mut Pool) -> (&mut MemoPool<Self>, &mut MemoPool<[u64; 7]>) {
        (&mut pool.seven, &mut pool.rowwise)
    }
}

/// [`solve`] taking its memo tables from `pool` and leaving them there
/// (the same search): a thread solving many games in a row spares the
/// allocations, page faults and filler writes of fresh tables.
pub fn solve_pooled(m: &Martello, opts: &SolveOptions, pool: &mut Pool) -> Solution {
    solve_impl(m, opts, true, pool, POOLED_RESERVE)
}

/// [`solve_pooled`] within `budget` (its deadline and cancel token): the
/// same search, stage for stage, until the budget strikes; then
/// `Err((bound, explored))`, `bound` the fewest stones on any state the
/// searches entered (an upper bound on the minimum). For studies that
/// bound each game (the `tail` example's `GAME_S`).
pub fn solve_pooled_within(
    m: &Martello,
    opts: &SolveOptions,
    pool: &mut Pool,
    budget: &Budget,
) -> Result<Solution, (u32, u64)> {
    solve_within(m, opts, true, pool, POOLED_RESERVE, Some(budget))
}

/// [`solve`] building every child state (no lazy expansion): the same
/// search step for step, kept to cross-check and measure the lazy one.
pub fn solve_built(m: &Martello, opts: &SolveOptions) -> Solution {
    solve_impl(m, opts, false, &mut Pool::default(), RESERVE)
}

/// The stages of [`solve`] (goal first, no expansion limit): the
/// operation search within an expansion limit, or (`None`) to the end,
/// and the row-wise search ([`Rowwise`]) within a budget of expanded
/// event states, counted over its stages. The operation search finds
/// the lines of solvable boards (restarts) and proves the typical
/// unsolvable ones; the row-wise search proves the stuck boards
/// (minimum 14–21 of 36 stones, rows that barely meet) in 7–5,248 steps
/// where the operation search takes millions, and is slow where rows
/// meet often. Both searches go on where they stopped at the stage
/// before (memos, restart schedule, phase kept: see [`RestartSearch`]).
/// 50,000 is about the 99th percentile of random 6×6 games, so almost
/// every game ends in the first stage; a game past it pays the row-wise
/// steps, about 1 µs each (20,000 cost 14–20 ms a game, about 6 % of a
/// 6×6 study's CPU; 8,000 was tried and left seed 2's stuck game 8252,
/// 19,558 steps, to the second stage: 670,000 expansions instead of
/// 70,000). No 6×6 game of the crate README's runs reaches the second
/// stage's row-wise steps (none takes 5 million expansions); boards of
/// 7×7 and larger run [`WIDE_STAGES`].
pub const STAGES: [Stage; 3] = [
    Stage::new(Some(50_000), 20_000, 0),
    Stage::new(Some(5_000_000), 500_000, 0),
    Stage::new(None, 0, 0),
];

/// The stages of [`solve`] on boards of 7×7 and larger: two small
/// stages (below), the first of [`STAGES`], then both searches by turns
/// with budgets doubling a stage (four expansions of the operation
/// search for each row-wise step, which on a big 7×7 game takes about
/// the time of four), the
/// operation search to the end last (the row-wise search's memo is
/// bounded by [`rowwise_bytes`], so more steps cost time, not memory).
/// On 7×7
/// neither search dominates (sixteenth session, seed 1): the operation
/// search ends game 3 in 23.6 M expansions where the row-wise search
/// has not in 4 M steps, while the row-wise search ends game 31 in
/// 923 k steps (the operation search: 85 M expansions), game 50 in
/// 745 k and game 61 in 6.4 M (the operation search had not in 60 M
/// and 20 M); with [`STAGES`] it got 500 k steps in all, after 5 M
/// expansions, and the operation search then ran to the end.
///
/// Two small stages come first (twenty-third session): 5,000 and 20,000
/// expansions, 1,000 and 5,000 row-wise steps, beams of 25 and 100.
/// Half of random 7×7 games took more than the 50,000 expansions of the
/// first stage before (median about 60,000); a small budget for each
/// search and a narrow beam first end many of them sooner. On seeds
/// 1–3 (200 games each, 2 s a game) the median game's expansions
/// halved (60 k → 30 k) and the mean expansions fell 5–12 %; 8×8 (seed
/// 1, 30 games) was unchanged.
///
/// The next four stages end with a beam search for a line
/// ([`beam_line`]), each four times as wide as the one before
/// (twentieth session): many hard solvable 7×7 boards, whose lines both
/// exact searches find only after seconds or minutes, have one that a
/// beam of 400–25,600 states a level reaches in a fraction of that (a
/// beam of 6,400 costs about 0.3 M expansions, 0.5–1 s). On seeds 1–3
/// (100–300 games, 10 s a game) the games left undecided fell from
/// 3 / 12 / 7 to 1 / 4 / 3 and the wall time by 1.3–2.2× (crate
/// README). Wider beams (seconds each) were not tried in the stages.
/// The beams from 400 on take the two ranks of [`BeamRank`] in turn:
/// each finds lines the other misses (twenty-first session).
pub const WIDE_STAGES: [Stage; 12] = [
    Stage::new(Some(5_000), 1_000, 25),
    Stage::new(Some(20_000), 5_000, 100),
    Stage::new(Some(50_000), 20_000, 400),
    Stage::new(Some(500_000), 125_000, 1_600).ranked(BeamRank::Pairs),
    Stage::new(Some(1_000_000), 250_000, 6_400),
    Stage::new(Some(2_000_000), 500_000, 25_600).ranked(BeamRank::Pairs),
    Stage::new(Some(4_000_000), 1_000_000, 0),
    Stage::new(Some(8_000_000), 2_000_000, 0),
    Stage::new(Some(16_000_000), 4_000_000, 0),
    Stage::new(Some(32_000_000), 8_000_000, 0),
    Stage::new(Some(64_000_000), 16_000_000, 0),
    Stage::new(None, 0, 0),
];

/// One stage of [`solve`]: the operation search, the row-wise search
/// and a beam search for a one-stone line, in that order. The two exact
/// searches go on where the stage before stopped (their budgets count
/// from the start); each beam is a search of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Expansions of the operation search so far, or `None`: to the end.
    pub ops: Option<u64>,
    /// Steps of the row-wise search so far.
    pub rowwise: u64,
    /// States a level of the beam search ([`beam_line`]) keeps; 0: no
    /// beam. Not run once either exact search has proven one stone out
    /// of reach.
    pub beam: usize,
    /// How the beam ranks its children.
    pub rank: BeamRank,
}

impl Stage {
    /// A stage of these budgets (its beam ranked by [`BeamRank::Shares`]).
    pub const fn new(ops: Option<u64>, rowwise: u64, beam: usize) -> Stage {
        Stage {
            ops,
            rowwise,
            beam,
            rank: BeamRank::Shares,
        }
    }

    /// This stage with its beam ranked by `rank`.
    pub const fn ranked(self, rank: BeamRank) -> Stage {
        Stage { rank, ..self }
    }
}

/// How [`beam_line`] ranks a level's children (higher first; ties at
/// random).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeamRank {
    /// The pairs of stones that can eat each other now
    /// ([`Martello::pair_count`]: a state with many has many ways on),
    /// then the least [`Martello::spread`].
    Pairs,
    /// Those pairs plus the pairs that share colour or symbol wherever
    /// they stand ([`Martello::share_pairs`]: the eats still possible
    /// later), then the least spread. On 7×7 (seed 3, games 0–199,
    /// widths 400–25,600) it finds as many lines as `Pairs` with 28 %
    /// fewer expansions; the two find different lines, so the stages
    /// take them in turn.
    Shares,
}

impl BeamRank {
    /// The rank of `s`.
    #[inline]
    pub fn of(self, m: &Martello, s: &State) -> i64 {
        let pairs = m.pair_count(s);
        let pairs = match self {
            BeamRank::Pairs => pairs,
            BeamRank::Shares => pairs + m.share_pairs(s),
        };
        (i64::from(pairs) << 20) - m.spread(s)
    }
}

/// A beam search ([`endgame_core::beam`]) of `width` states a level for
/// a one-stone line from `m`'s start, children ranked by `rank`; doomed
/// children left out, duplicates told apart by the hash of
/// [`Martello::key7`]. A line it finds is a line; when it finds none it
/// proves nothing.
pub fn beam_line(
    m: &Martello,
    (width, rank): (usize, BeamRank),
    seed: u64,
    budget: Option<&Budget>,
) -> endgame_core::beam::BeamResult<Op> {
    beam_line_by(m, (width, budget), seed, |s| rank.of(m, s))
}

/// [`beam_line`] with children ranked by `rank` instead (higher first),
/// for experiments with other ranks (`examples/beam.rs`).
pub fn beam_line_by(
    m: &Martello,
    limits: (usize, Option<&Budget>),
    seed: u64,
    rank: impl Fn(&State) -> i64,
) -> endgame_core::beam::BeamResult<Op> {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let hasher = BuildHasherDefault::<endgame_core::hash::MumHasher>::default();
    endgame_core::beam::search(
        m,
        &m.start(),
        limits,
        |s, out| children(m, s, out),
        |s| hasher.hash_one(m.key7(s)),
        rank,
        &mut endgame_core::restarts::Rng::new(seed),
    )
}

/// The row-wise search's share of a game's memo budget `max_memo_bytes`
/// (its memo's table: at that size it replaces instead of growing).
pub fn rowwise_bytes(max_memo_bytes: usize) -> usize {
    max_memo_bytes / 2
}

/// The stages [`solve`] runs on an n×n board: [`STAGES`] up to 6×6,
/// [`WIDE_STAGES`] above.
pub fn stages_for(n: usize) -> &'static [Stage] {
    if n <= 6 {
        &STAGES
    } else {
        &WIDE_STAGES
    }
}

fn solve_impl(
    m: &Martello,
    opts: &SolveOptions,
    lazy: bool,
    pool: &mut Pool,
    reserve: usize,
) -> Solution {
    solve_within(m, opts, lazy, pool, reserve, None)
        .unwrap_or_else(|_| unreachable!("without a budget the last stage runs to the end"))
}

/// The solver's one dispatch: the operation search alone (no goal first,
/// or an expansion limit), else [`stages_for`]'s stages within `budget`
/// if any (see [`staged`] for what a stop returns).
fn solve_within(
    m: &Martello,
    opts: &SolveOptions,
    lazy: bool,
    pool: &mut Pool,
    reserve: usize,
    budget: Option<&Budget>,
) -> Result<Solution, (u32, u64)> {
    if !opts.goal_first || opts.max_expansions.is_some() {
        return Ok(solve_ops(m, opts, lazy, pool, reserve));
    }
    staged(m, opts, lazy, pool, reserve, budget, stages_for(m.n()))
}

/// [`solve`] (goal first) through the given stages instead of
/// [`stages_for`]'s, each `(expansion limit of the operation search or
/// None for no limit, row-wise steps)`, both counted over the stages so
/// far; the last stage should have no limit (else a search stopped
/// there answers with the start's count, `complete` false). For tests
/// and experiments: every schedule of stages gives the same minimum.
pub fn solve_staged(m: &Martello, opts: &SolveOptions, stages: &[Stage]) -> Solution {
    let start = m.start();
    staged(m, opts, true, &mut Pool::default(), RESERVE, None, stages).unwrap_or_else(
        |(_, explored)| Solution {
            min_stones: start.stones(),
            solvable: false,
            ops: Vec::new(),
            line: vec![start],
            explored,
            generated: 0,
            complete: false,
            runs: 0,
            memo_entries: 0,
            memo_bytes: 0,
        },
    )
}

/// The stages `stages` (goal first), within `budget`'s deadline and
/// cancel token if any: the solution, or, stopped by the budget, the
/// fewest stones any search entered (a reachable count: an upper bound
/// on the minimum) and the states both searches expanded. The one path
/// of [`solve`] (the study, the CLI) and [`min_stones_within`] (the
/// lab's budgeted games).
fn staged(
    m: &Martello,
    opts: &SolveOptions,
    lazy: bool,
    pool: &mut Pool,
    reserve: usize,
    budget: Option<&Budget>,
    stages: &[Stage],
) -> Result<Solution, (u32, u64)> {
    with_key!(m, opts.symmetry, |key, K| {
        // Each branch takes the tables of its key type from `pool`.
        let limits = (budget, stages);
        if lazy && opts.symmetry == SymmetryMode::None && m.n() <= 6 {
            // `key` is `key4` here: the lazy expander's keys match it.
            let key4 = |s: &State| m.key4(s);
            staged_with(m, key4, Lazy4, opts, PoolKey::spares(pool), reserve, limits)
        } else if lazy && opts.symmetry == SymmetryMode::None {
            let key7 = |s: &State| m.key7(s);
            staged_with(m, key7, Lazy7, opts, PoolKey::spares(pool), reserve, limits)
        } else {
            staged_with(m, key, children, opts, K::spares(pool), reserve, limits)
        }
    })
}

/// [`staged`] with memo keys `key` and expansion `kids`. The operation
/// search is one [`RestartSearch`] advanced from stage to stage (its
/// memos, its place in the restart schedule and its phase kept), the
/// row-wise search one [`Rowwise`] going on from its memo.
fn staged_with<K, F, E>(
    m: &Martello,
    key: F,
    kids: E,
    opts: &SolveOptions,
    (pool, rw_pool): (&mut MemoPool<K>, &mut MemoPool<[u64; 7]>),
    reserve: usize,
    (budget, stages): (Option<&Budget>, &[Stage]),
) -> Result<Solution, (u32, u64)>
where
    K: Hash + Eq + Copy,
    F: Fn(&State) -> K + Clone,
    E: Children<Martello, K> + Clone,
{
    let start = m.start();
    let ro = RestartOptions {
        schedule: opts.schedule.clone(),
        max_memo_entries: entries_for::<K>(opts.max_memo_bytes),
        seed: opts.seed,
        max_expansions: None,
        goal_first: true,
        ordered: opts.ordered && m.n() <= 6,
        prefetch: true,
        reserve,
    };
    // The best-score search stops below a state once a line meets its
    // floor (see `restarts::solve_floored`).
    let floor = Some(|s: &State| m.floor(s));
    let mut ops =
        RestartSearch::new(m, &start, key, kids, &ro, pool, floor).track_best(budget.is_some());
    let rw_entries = entries_for::<[u64; 7]>(rowwise_bytes(opts.max_memo_bytes));
    let mut rw = RowwiseStages::new(m, rw_entries, std::mem::take(rw_pool), budget);
    let stopped = || budget.is_some_and(Budget::stop);
    // The largest memo of the stages so far.
    let mut bytes = 0;
    // Expansions of the beams so far, and their fewest stones entered.
    let (mut beams, mut beam_seen) = (0, u32::MAX);
    // The first stage to end the game: its minimum and line, the
    // operation search's effort, and the row-wise result if it ended it.
    let found = 'stages: {
        for (i, stage) in stages.iter().enumerate() {
            if let Some(mut r) = ops.advance(stage.ops.unwrap_or(u64::MAX), budget) {
                let line = std::mem::take(&mut r.line);
                break 'stages Some((r.best_score, line, r, None));
            }
            bytes = bytes.max(ops.memo_bytes() + rw.bytes());
            if stopped() {
                break;
            }
            if let Some(mut r) = rw.solve(m, &start, stage.rowwise) {
                let line = std::mem::take(&mut r.ops);
                break 'stages Some((r.min_stones, line, ops.stopped(), Some(r)));
            }
            if stopped() {
                break;
            }
            if stage.beam > 0 && !ops.goal_failed() && !rw.goal_failed() {
                let seed = opts.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let b = beam_line(m, (stage.beam, stage.rank), seed, budget);
                beams += b.expansions;
                beam_seen = beam_seen.min(b.best_score);
                if let Some(line) = b.line {
                    break 'stages Some((1, line, ops.stopped(), None));
                }
                if stopped() {
                    break;
                }
            }
        }
        None
    };
    if let Some((min_stones, line, report, rows)) = found {
        let (rw_steps, rw_bytes) = match &rows {
            Some(r) => (r.expansions, r.memo_bytes),
            None => (rw.expansions(), rw.bytes()),
        };
        let bytes = bytes.max(ops.memo_bytes().max(report.memo_bytes) + rw_bytes);
        *pool = ops.into_pool();
        *rw_pool = rw.into_pool();
        return Ok(Solution {
            min_stones,
            solvable: min_stones == 1,
            line: line_of(m, start, &line),
            ops: line,
            explored: report.expansions + rw_steps + beams,
            generated: report.generated,
            complete: true,
            runs: report.runs,
            memo_entries: rows.map_or(report.memo_entries, |r| r.memo_entries),
            memo_bytes: bytes,
        });
    }
    // Stopped by the budget (the last stage has no limit of its own).
    let seen = ops.best_seen().map_or(start.stones(), |b| b.0);
    let explored = ops.expansions() + rw.expansions() + beams;
    let seen = seen.min(rw.best_seen()).min(beam_seen);
    *pool = ops.into_pool();
    *rw_pool = rw.into_pool();
    Err((seen, explored))
}

/// Whether the row-wise search of [`solve`]'s stages seeks one stone
/// first on an n×n board (7×7 and larger; seventeenth session): a
/// goal-only search (`Rowwise::goal_only`) ends seed 1's hard solvable
/// 7×7 games in a third to a fifth of the full search's steps, and one
/// that proves one stone out of reach hands over to the full search.
pub fn rowwise_goal_first(n: usize) -> bool {
    n > 6
}

/// The row-wise search of [`staged`]: on boards where
/// [`rowwise_goal_first`], a goal-only search first, then (once it has
/// proven one stone out of reach) the full search, its memo's tables
/// reused; budgets count the steps of both.
struct RowwiseStages<'a> {
    rw: Rowwise<'a>,
    /// Steps of a finished goal-only search.
    done: u64,
    /// Its fewest stones seen.
    seen: u32,
    entries: usize,
    stop: Option<Budget>,
}

impl<'a> RowwiseStages<'a> {
    fn new(
        m: &'a Martello,
        entries: usize,
        pool: MemoPool<[u64; 7]>,
        stop: Option<&Budget>,
    ) -> Self {
        let mut rw = Rowwise::limited(m, entries, pool);
        if rowwise_goal_first(m.n()) {
            rw = rw.goal_only();
        }
        rw.stop_on(stop.cloned());
        RowwiseStages {
            rw,
            done: 0,
            seen: u32::MAX,
            entries,
            stop: stop.cloned(),
        }
    }

    /// The exact minimum with a line, or `None` when `budget` steps in
    /// all (both searches) are spent.
    fn solve(&mut self, m: &'a Martello, start: &State, budget: u64) -> Option<RowwiseResult> {
        let mut r = self.rw.solve(start, budget.saturating_sub(self.done))?;
        if self.rw.is_goal_only() && r.min_stones > 1 {
            // One stone is out of reach: the full search, from a fresh
            // memo (the goal search's values above 1 are not minima).
            self.done += r.expansions;
            self.seen = self.seen.min(self.rw.best_seen());
            let pool = std::mem::replace(&mut self.rw, Rowwise::new(m)).into_pool();
            self.rw = Rowwise::limited(m, self.entries, pool);
            self.rw.stop_on(self.stop.clone());
            r = self.rw.solve(start, budget.saturating_sub(self.done))?;
        }
        Some(RowwiseResult {
            expansions: r.expansions + self.done,
            ..r
        })
    }

    fn expansions(&self) -> u64 {
        self.done + self.rw.expansions()
    }

    /// Whether the goal-only search has proven one stone out of reach.
    fn goal_failed(&self) -> bool {
        self.done > 0
    }

    fn best_seen(&self) -> u32 {
        self.seen.min(self.rw.best_seen())
    }

    fn bytes(&self) -> usize {
        self.rw.bytes()
    }

    fn into_pool(self) -> MemoPool<[u64; 7]> {
        self.rw.into_pool()
    }
}

/// The states of the line `ops` from `start`, start first.
fn line_of(m: &Martello, start: State, ops: &[Op]) -> Vec<State> {
    let mut line = vec![start];
    for &op in ops {
        let next = m.play_unchecked(line.last().expect("non-empty"), op);
        line.push(next);
    }
    line
}

/// The operation search (restarts, goal first, floored best score).
fn solve_ops(
    m: &Martello,
    opts: &SolveOptions,
    lazy: bool,
    pool: &mut Pool,
    reserve: usize,
) -> Solution {
    let start = m.start();
    let r = with_key!(m, opts.symmetry, |key, K| {
        let ro = RestartOptions {
            schedule: opts.schedule.clone(),
            max_memo_entries: entries_for::<K>(opts.max_memo_bytes),
            seed: opts.seed,
            max_expansions: opts.max_expansions,
            goal_first: opts.goal_first,
            ordered: opts.ordered && m.n() <= 6,
            prefetch: true,
            reserve,
        };
        // The best-score search stops below a state once a line meets
        // its floor (see `restarts::solve_floored`).
        let floor = Some(|s: &State| m.floor(s));
        // Each branch takes the tables of its key type from `pool`.
        if lazy && opts.symmetry == SymmetryMode::None && m.n() <= 6 {
            // `key` is `key4` here: the lazy expander's keys match it.
            let key4 = |s: &State| m.key4(s);
            let pool = PoolKey::spares(pool).0;
            restarts::solve_floored(m, &start, key4, Lazy4, &ro, pool, floor)
        } else if lazy && opts.symmetry == SymmetryMode::None {
            let key7 = |s: &State| m.key7(s);
            let pool = PoolKey::spares(pool).0;
            restarts::solve_floored(m, &start, key7, Lazy7, &ro, pool, floor)
        } else {
            restarts::solve_floored(m, &start, key, children, &ro, K::spares(pool).0, floor)
        }
    });
    let line = line_of(m, start, &r.line);
    let min_stones = if r.complete {
        r.best_score
    } else {
        start.stones()
    };
    Solution {
        min_stones,
        solvable: r.complete && r.best_score == 1,
        ops: if r.complete { r.line } else { Vec::new() },
        line: if r.complete { line } else { vec![start] },
        explored: r.expansions,
        generated: r.generated,
        complete: r.complete,
        runs: r.runs,
        memo_entries: r.memo_entries,
        memo_bytes: r.memo_bytes,
    }
}

/// Minimum stone count of a start by the exact solver (goal first, no
/// restarts), with the number of states expanded: the study's inner loop.
pub fn min_stones(m: &Martello, symmetry: SymmetryMode, max_memo_bytes: usize) -> (u32, u64) {
    let (v, e, _) = min_stones_full(m, symmetry, max_memo_bytes);
    (v, e)
}

/// [`min_stones`] with the memo's final size in bytes.
pub fn min_stones_full(
    m: &Martello,
    symmetry: SymmetryMode,
    max_memo_bytes: usize,
) -> (u32, u64, usize) {
    let s = solve(
        m,
        &SolveOptions {
            symmetry,
            max_memo_bytes,
            ..SolveOptions::default()
        },
    );
    (s.min_stones, s.explored, s.memo_bytes)
}

/// The fewest stones from the start within `budget` (its deadline and
/// cancel token; its node limit is not read), for studies that bound
/// each game: `(Ok(min), explored)` when decided, else `(Err(bound),
/// explored)` with `bound` the fewest stones on any state the searches
/// entered (a reachable count, so an upper bound on the minimum). The
/// stages of [`solve`] ([`stages_for`]: the operation search, goal first,
/// floored by [`Martello::floor`], and the row-wise search), without
/// restarts; exact values equal [`min_stones`]'s, explored counts may
/// differ from it (no restarts), and a bound depends on when the
/// deadline struck.
pub fn min_stones_within(
    m: &Martello,
    max_memo_bytes: usize,
    budget: &Budget,
) -> (Result<u32, u32>, u64) {
    let opts = SolveOptions {
        max_memo_bytes,
        ..SolveOptions::default()
    };
    let stages = stages_for(m.n());
    match staged(
        m,
        &opts,
        true,
        &mut Pool::default(),
        RESERVE,
        Some(budget),
        stages,
    ) {
        Ok(s) => (Ok(s.min_stones), s.explored),
        Err((bound, explored)) => (Err(bound), explored),
    }
}

/// What the searches minimise: the stone count, stopping at one stone,
/// and below a state as soon as a line meets its floor: its
/// [`Martello::floor`], or two stones if `goal` (a goal search's memo)
/// proved one stone out of reach from it.
#[derive(Clone, Copy)]
pub struct Stones<'g, K> {
    /// A goal search's memo, if any.
    pub(crate) goal: Option<&'g Memo<K>>,
    /// The key of that memo.
    pub(crate) key: fn(&Martello, &State) -> K,
}

impl<'g, K> Stones<'g, K> {
    /// The objective floored by `goal` (a goal search's memo keyed by
    /// `key`), or by [`Martello::floor`] alone.
    pub fn new(goal: Option<&'g Memo<K>>, key: fn(&Martello, &State) -> K) -> Self {
        Stones { goal, key }
    }
}

impl<K: Hash + Eq + Copy> Objective<Martello> for Stones<'_, K> {
    #[inline(always)]
    fn value(&self, _: &Martello, s: &State) -> u32 {
        s.stones()
    }
    #[inline(always)]
    fn stop_at(&self, _: &Martello) -> u32 {
        1
    }
    fn by_score(&self) -> bool {
        true
    }
    #[inline]
    fn floor(&self, m: &Martello, s: &State) -> u32 {
        let f = m.floor(s);
        match self.goal {
            // A goal search's entry above one stone: no goal below.
            Some(g) if f == 1 => match g.get(&(self.key)(m, s)) {
                Some(v) if v & !INEXACT > 1 => 2,
                _ => 1,
            },
            _ => f,
        }
    }
}

/// One operation of a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The operation.
    pub op: Op,
    /// The state it leads to.
    pub child: State,
    /// The minimum stone count after it, `None` if undecided within the
    /// budget.
    pub min_stones: Option<u32>,
}

/// Every operation of `state` with the minimum stone count after it,
/// each decided within `budget` expansions (one memo shared by all).
pub fn hints(m: &Martello, state: &State, budget: u64, max_memo_bytes: usize) -> Vec<Hint> {
    let kids = m.children(state);
    with_key!(m, SymmetryMode::None, |key, K| {
        let mut s =
            Searcher::with_children(m, key, self::children, entries_for::<K>(max_memo_bytes))
                .prefetch(true);
        kids.into_iter()
            .map(|(op, child)| Hint {
                op,
                child,
                min_stones: s.run(&child, Some(budget), None),
            })
            .collect()
    })
}
