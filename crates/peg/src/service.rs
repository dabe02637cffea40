//! The analysis service: every legal jump of a position with what it
//! leads to, coloured by the one policy of `endgame_core::analysis`.
//!
//! What outlives a request lives in [`Service`]: the solved tables of the
//! tabled problems (see [`crate::goalset`]: goal-reaching sets, answering
//! a problem's own hole or, on the English board, every hole of its class
//! through a board symmetry; and best-result sets, judging the moves of a
//! position whose goal is lost), loaded from the cache directory or built,
//! kept in memory by problem. Without a table the moves are decided by
//! memoised depth-first searches that share one memo per question across
//! all the moves of a hint, run in rounds of growing slices so every move
//! gets its part of the budget, and check the budget (deadline, cancel,
//! nodes) between slices.

use crate::api::{build, goal_text, AnyProblem, Spec};
use crate::bits::Bits;
use crate::board::Board;
use crate::goalset::{BuildError, GoalSet};
use crate::ladder::Ladder;
use crate::paths::Paths;
use crate::problem::{Goal, PegSolitaire, Pruning};
use endgame_core::analysis::{Analysis, Colour, Decided, MoveAnalysis, PuzzleResult};
use endgame_core::budget::Budget;
use endgame_core::cache::{self, BuildReport, CacheError, TableInfo, TableState, Tables};
use endgame_core::dfs::{self, DfsOptions};
use endgame_core::layered::{self, LayeredOptions};
use endgame_core::restarts::{Children, Objective, Searcher};
use endgame_core::{Notation, Puzzle, Reversible, Rules, Symmetric};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// Default time of a hint: the French start's best result (about 2.3
/// million positions, 2.6 s here) must fit with room to spare.
pub const DEFAULT_TIME: Duration = Duration::from_millis(5_000);
/// Default node budget of a hint (positions expanded, all searches).
pub const DEFAULT_NODES: u64 = 20_000_000;
/// Solutions through each move are counted when the position has at most
/// this many pegs.
pub const DEFAULT_COUNT_LIMIT: u32 = 26;
/// Format version of the goal-set tables (2: packed layers, and
/// best-result sets beside the goal sets).
const TABLE_VERSION: u32 = 2;
/// The memory budget of a best-result set's stored layers and buffers
/// when the caller sets none. The French set builds within 4.5 GiB (not
/// within 3); the engine's default of 8 GiB is only a little faster and
/// raises the process's peak by about 2 GB (see the README), which
/// matters when the web server builds it in the background.
const BEST_BYTES: usize = 5 << 30;
/// The first slice of every search; each round doubles it up to
/// [`MAX_SLICE`].
const FIRST_SLICE: u64 = 4_096;
/// The largest slice: the searchers check only their node limit, so the
/// deadline is seen between slices, at most this many nodes late (about
/// 0.1 s on the largest boards).
const MAX_SLICE: u64 = 1 << 15;
/// Memo entries per search when the budget sets no memory limit.
const MEMO_ENTRIES: usize = 1 << 23;
/// Memory of a solution count inside a hint.
const COUNT_BYTES: usize = 1 << 30;

/// A move's peg-solitaire fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveDetail {
    /// Distinct solutions through the move (a decimal string), when
    /// counted.
    pub solutions: Option<String>,
}

/// The position's peg-solitaire fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PosDetail {
    /// The goal in words.
    pub goal: String,
    /// Pegs on the board.
    pub pegs: u32,
    /// Distinct solutions from the position, when counted.
    pub solutions: Option<String>,
    /// Why the goal cannot be reached, when a quick test proves it.
    pub proof: Option<String>,
    /// The solved table that answered, if any.
    pub table: Option<String>,
}

/// The analysis of a peg-solitaire position.
pub type PegAnalysis = Analysis<MoveDetail, PosDetail>;

/// What a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The goal-reaching set of the single-vacancy problem whose goal is
    /// its vacancy ([`GoalSet::build`]).
    Goal,
    /// The result ladder of the problem ([`Ladder`]) of `levels` levels:
    /// with one, its best-result set ([`GoalSet::build_best`], the
    /// positions that can still be left with the fewest pegs any position
    /// reachable from the start can be left with); with more, the exact
    /// best result of every reachable position up to that many pegs above
    /// the fewest.
    Best { levels: u32 },
}

/// A solved table this service can keep.
#[derive(Clone, Debug)]
struct TableSpec {
    name: String,
    board: &'static str,
    /// The problem's vacancy (its goal is one peg there).
    hole: String,
    kind: Kind,
    /// Small enough to build in memory at the first hint that needs it.
    on_demand: bool,
    /// Whether the table also answers the problems of the other holes of
    /// its hole's class, through the board symmetry that takes them to
    /// its hole.
    by_symmetry: bool,
}

/// The tables, roughly cheapest first (the web server builds the missing
/// ones in this order).
///
/// The English central problem keeps its goal set and its best-result
/// set (one peg anywhere): a position that lost the d4 finish is then
/// judged by a look-up instead of a proof, per finish hole, that one peg
/// cannot be left there. Its result ladder (every reachable position's
/// best result from 1 to 8 pegs, about a minute to build) then replaces
/// the best-result set: a position left with 2 pegs at best is judged by
/// look-ups too, where a search had to prove that one peg is out of
/// reach for every move (most of a hint's time on random games). The
/// triangle tables (a goal set and a whole ladder per hole) take
/// milliseconds and are built on demand. The English board has 7 classes of holes under its 8
/// symmetries, and the problem of a hole (vacate it, finish there) is the
/// image of its class representative's, so one goal set per class (named
/// after the class's first hole in hole order) answers all 33; the
/// others than d4 take up to seconds each (see the README) and are built
/// through the cache like d4's. The French central problem's best-result
/// set (2 pegs) takes minutes and gigabytes, so it comes last.
fn table_specs() -> Vec<TableSpec> {
    let spec = |board: &'static str, hole: &str, kind, on_demand, by_symmetry| TableSpec {
        name: match kind {
            Kind::Goal => format!("peg-{board}-{hole}"),
            Kind::Best { levels: 1 } => format!("peg-{board}-{hole}-best"),
            Kind::Best { .. } => format!("peg-{board}-{hole}-results"),
        },
        board,
        hole: hole.to_string(),
        kind,
        on_demand,
        by_symmetry,
    };
    let mut v = Vec::new();
    let english = Board::named("english", false).ok();
    let centre = |b: &Board| b.centre().map(|c| b.hole_name(c).to_string());
    if let Some(c) = english.as_ref().and_then(centre) {
        v.push(spec("english", &c, Kind::Goal, false, true));
        // The ladder answers first once built (the first of a problem's
        // best-result tables loaded answers).
        v.push(spec(
            "english",
            &c,
            Kind::Best {
                levels: LADDER_LEVELS,
            },
            false,
            false,
        ));
        v.push(spec("english", &c, Kind::Best { levels: 1 }, false, false));
    }
    if let Ok(b) = Board::named("triangle", false) {
        for h in 0..b.holes() {
            v.push(spec("triangle", b.hole_name(h), Kind::Goal, true, false));
            v.push(spec(
                "triangle",
                b.hole_name(h),
                Kind::Best { levels: u32::MAX },
                true,
                false,
            ));
        }
    }
    if let Some(b) = &english {
        for h in class_representatives(b) {
            if Some(b.hole_name(h).to_string()) != centre(b) {
                v.push(spec("english", b.hole_name(h), Kind::Goal, false, true));
            }
        }
    }
    if let Some(c) = Board::named("french", false).ok().as_ref().and_then(centre) {
        v.push(spec("french", &c, Kind::Best { levels: 1 }, false, false));
    }
    v
}

/// Levels of the English central result ladder: best results from 1 to 8
/// pegs hold 23,359,124 of the 23,475,688 reachable positions up to
/// symmetry (99.5 %); a tenth level's candidate finals would pass what a
/// build enumerates.
const LADDER_LEVELS: u32 = 8;

/// The peak memory of building the large tables, as measured with
/// `examples/peg_tables` (one table per process); the others take at most
/// about 450 MB.
fn build_bytes(name: &str) -> Option<u64> {
    let mb: u64 = match name {
        "peg-english-c1" => 2160,
        "peg-english-c2" => 2090,
        "peg-english-c3" => 1700,
        "peg-english-d3" => 1110,
        "peg-english-d2" => 590,
        "peg-french-d4-best" => 6400,
        "peg-english-d4-results" => 950,
        _ => return None,
    };
    Some(mb * 1_000_000)
}

/// The first hole (in hole order) of each class of holes under the
/// board's symmetries.
fn class_representatives(b: &Board) -> Vec<usize> {
    (0..b.holes())
        .filter(|&h| b.symmetries().iter().all(|s| s[h] >= h))
        .collect()
}

impl TableSpec {
    fn origin(&self) -> Option<PegSolitaire<u64>> {
        let spec = Spec {
            vacate: Some(vec![self.hole.clone()]),
            ..Spec::named(self.board)
        };
        match build(&spec).ok()? {
            AnyProblem::Small(p) => Some(p),
            AnyProblem::Large(_) => None,
        }
    }

    /// Whether `p` asks this table's question, and through which board
    /// symmetry (an index into the board's symmetries, 0 the identity):
    /// the same board (not diagonal) and a goal of one peg in the table's
    /// hole, or with `by_symmetry` in a hole the symmetry takes there.
    /// The positions of `p` are looked up as their images.
    fn fits(&self, p: &PegSolitaire<u64>) -> Option<usize> {
        let b = p.board();
        if b.name() != self.board || b.diagonal() {
            return None;
        }
        let Goal::Pattern(h) = p.goal() else {
            return None;
        };
        let [h] = h[..] else { return None };
        let want = b.hole(&self.hole).ok()?;
        if h == want {
            return Some(0);
        }
        if !self.by_symmetry {
            return None;
        }
        b.symmetries().iter().position(|s| s[h] == want)
    }

    fn about(&self) -> String {
        match self.kind {
            Kind::Goal if self.by_symmetry => format!(
                "peg solitaire, {} board, vacancy {}: positions that still reach one peg in {} \
                 (and by symmetry the same for every hole of its class)",
                self.board, self.hole, self.hole
            ),
            Kind::Goal => format!(
                "peg solitaire, {} board, vacancy {}: positions that still reach one peg in {}",
                self.board, self.hole, self.hole
            ),
            Kind::Best { levels: 1 } => format!(
                "peg solitaire, {} board, vacancy {}: positions that can still be left with \
                 the fewest pegs any reachable position can",
                self.board, self.hole
            ),
            Kind::Best { levels: u32::MAX } => format!(
                "peg solitaire, {} board, vacancy {}: the fewest pegs every reachable position \
                 can still be left with",
                self.board, self.hole
            ),
            Kind::Best { levels } => format!(
                "peg solitaire, {} board, vacancy {}: the fewest pegs every reachable position \
                 can still be left with, when at most {} more than the best result",
                self.board,
                self.hole,
                levels - 1
            ),
        }
    }

    /// Builds the table. A ladder's layers are held within
    /// [`BEST_BYTES`] unless the budget says otherwise.
    fn make(&self, origin: &PegSolitaire<u64>, budget: &Budget) -> Result<Held, BuildError> {
        match self.kind {
            Kind::Goal => GoalSet::build(origin, budget).map(Held::Set),
            Kind::Best { levels } => {
                let budget = match budget.memory {
                    None => budget.clone().with_memory(BEST_BYTES),
                    Some(_) => budget.clone(),
                };
                Ladder::build(origin, levels, &budget, &layered::Silent).map(Held::Ladder)
            }
        }
    }

    /// Reads a table's payload, checking it has this table's shape (a
    /// goal set stores half its layers; a ladder, its levels whole).
    fn parse(&self, bytes: &[u8]) -> Option<Held> {
        match self.kind {
            Kind::Goal => GoalSet::from_bytes(bytes)
                .filter(GoalSet::mirrored)
                .map(Held::Set),
            Kind::Best { levels } => Ladder::from_bytes(bytes)
                .filter(|l| l.level_entries().len() <= levels as usize)
                .map(Held::Ladder),
        }
    }
}

/// What a table holds.
enum Held {
    Set(GoalSet<u64>),
    Ladder(Ladder<u64>),
}

impl Held {
    fn entries(&self) -> u64 {
        match self {
            Held::Set(s) => s.entries(),
            Held::Ladder(l) => l.entries(),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Held::Set(s) => s.to_bytes(),
            Held::Ladder(l) => l.to_bytes(),
        }
    }
}

/// A table with the problem it was built for (its symmetry group).
struct Loaded {
    origin: PegSolitaire<u64>,
    held: Held,
    /// A ladder's solution counts ([`Paths`]), filled by a thread of
    /// their own the first time a hint asks (a second on the English
    /// board), so no hint waits for them.
    paths: OnceLock<Option<Paths>>,
    paths_started: AtomicBool,
}

impl Loaded {
    fn new(origin: PegSolitaire<u64>, held: Held) -> Loaded {
        Loaded {
            origin,
            held,
            paths: OnceLock::new(),
            paths_started: AtomicBool::new(false),
        }
    }

    /// The first level of a ladder (the positions that can still be left
    /// with the fewest pegs), which holds every reachable position that
    /// reaches the goal when the goal has that many pegs.
    fn first_level(&self) -> Option<&GoalSet<u64>> {
        match &self.held {
            Held::Ladder(l) => l.first_level(),
            Held::Set(_) => None,
        }
    }

    /// The solution counts if they are ready (`wait`: once made here or
    /// by the thread making them); else the first call starts their
    /// sweep on a thread of its own.
    fn paths(self: &Arc<Self>, wait: bool) -> Option<&Paths> {
        if let Some(p) = self.paths.get() {
            return p.as_ref();
        }
        let set = self.first_level()?;
        let make = || Paths::build(&self.origin, set, &Budget::unlimited());
        if wait {
            return self.paths.get_or_init(make).as_ref();
        }
        if !self.paths_started.swap(true, Ordering::SeqCst) {
            let me = self.clone();
            std::thread::spawn(move || {
                me.paths(true);
            });
        }
        None
    }

    /// The solutions from `pos` by the counts, when they are ready:
    /// `Some(0)` for a position outside the ladder's first level.
    fn solutions(self: &Arc<Self>, pos: &u64) -> Option<u64> {
        let paths = self.paths(false)?;
        let set = self.first_level()?;
        Some(paths.solutions(&self.origin, set, pos).unwrap_or(0))
    }
}

/// A board symmetry applied to bitboards, a byte at a time: `bytes[k][v]`
/// is the image of the pegs of byte value `v` at byte `k`.
struct Image {
    bytes: Vec<[u64; 256]>,
}

impl Image {
    /// The symmetry `sym` (an index into the board's symmetries) of `p`'s
    /// board.
    fn new(p: &PegSolitaire<u64>, sym: usize) -> Image {
        let board = p.board();
        let perm = &board.symmetries()[sym];
        let mut bytes = vec![[0u64; 256]; 8];
        for (h, &image) in perm.iter().enumerate() {
            let from = p.position_of([h]);
            let to = p.position_of([image]);
            let bit = from.trailing_zeros() as usize;
            for (v, slot) in bytes[bit / 8].iter_mut().enumerate() {
                if v >> (bit % 8) & 1 == 1 {
                    *slot |= to;
                }
            }
        }
        Image { bytes }
    }

    #[inline]
    fn of(&self, q: u64) -> u64 {
        self.bytes
            .iter()
            .enumerate()
            .fold(0, |acc, (k, t)| acc | t[(q >> (8 * k)) as usize & 0xff])
    }
}

/// The tables that answer a problem: its goal set (with the symmetry its
/// positions are looked up through) and its best-result set.
#[derive(Default)]
struct Found {
    goal: Option<(String, Arc<Loaded>, Option<Image>)>,
    best: Option<(String, Arc<Loaded>)>,
}

/// The peg-solitaire analysis service.
pub struct Service {
    dir: PathBuf,
    specs: Vec<TableSpec>,
    loaded: RwLock<HashMap<String, Arc<Loaded>>>,
    /// Tables being built, whose last build failed, or whose file could
    /// not be trusted (not read again until rebuilt).
    state: Mutex<HashMap<String, TableState>>,
}

impl Default for Service {
    fn default() -> Self {
        Service::new()
    }
}

impl Service {
    /// A service keeping its tables in the default cache directory
    /// (`endgame_core::cache::dir`).
    pub fn new() -> Service {
        Service::with_dir(&cache::dir(None))
    }

    /// A service keeping its tables in `dir`.
    pub fn with_dir(dir: &Path) -> Service {
        Service {
            dir: dir.to_path_buf(),
            specs: table_specs(),
            loaded: RwLock::new(HashMap::new()),
            state: Mutex::new(HashMap::new()),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.bin"))
    }

    fn set_state(&self, name: &str, s: Option<TableState>) {
        let mut m = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match s {
            Some(s) => m.insert(name.to_string(), s),
            None => m.remove(name),
        };
    }

    fn get_state(&self, name: &str) -> Option<TableState> {
        let m = self.state.lock().unwrap_or_else(|e| e.into_inner());
        m.get(name).cloned()
    }

    fn loaded(&self, name: &str) -> Option<Arc<Loaded>> {
        let m = self.loaded.read().unwrap_or_else(|e| e.into_inner());
        m.get(name).cloned()
    }

    fn keep(&self, name: &str, l: Loaded) -> Arc<Loaded> {
        let l = Arc::new(l);
        let mut m = self.loaded.write().unwrap_or_else(|e| e.into_inner());
        m.insert(name.to_string(), l.clone());
        l
    }

    /// Reads a table file: `Ok(None)` when missing, `Err` when it cannot
    /// be trusted.
    fn read(&self, spec: &TableSpec) -> Result<Option<Held>, CacheError> {
        match cache::read(&self.path(&spec.name), &spec.name, TABLE_VERSION) {
            Ok(bytes) => spec
                .parse(&bytes)
                .map(Some)
                .ok_or_else(|| CacheError::Invalid("the payload is not such a table".into())),
            Err(CacheError::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The table of `spec`, when it is in memory, on disk, or cheap
    /// enough to build now.
    fn load(&self, spec: &TableSpec) -> Option<Arc<Loaded>> {
        if let Some(l) = self.loaded(&spec.name) {
            return Some(l);
        }
        let origin = spec.origin()?;
        if spec.on_demand {
            let held = spec.make(&origin, &Budget::unlimited()).ok()?;
            return Some(self.keep(&spec.name, Loaded::new(origin, held)));
        }
        if self.get_state(&spec.name).is_some() {
            return None;
        }
        match self.read(spec) {
            Ok(Some(held)) => Some(self.keep(&spec.name, Loaded::new(origin, held))),
            Ok(None) => None,
            Err(e) => {
                // Never trusted; a build replaces it.
                self.set_state(
                    &spec.name,
                    Some(TableState::Failed {
                        error: format!("damaged file, rebuild it: {e}"),
                    }),
                );
                None
            }
        }
    }

    /// The tables answering `p`'s question that are in memory, on disk,
    /// or cheap enough to build now.
    fn tables_for(&self, p: &PegSolitaire<u64>) -> Found {
        let mut found = Found::default();
        for spec in &self.specs {
            let Some(sym) = spec.fits(p) else { continue };
            match spec.kind {
                Kind::Goal if found.goal.is_none() => {
                    if let Some(l) = self.load(spec) {
                        let image = (sym != 0).then(|| Image::new(p, sym));
                        found.goal = Some((spec.name.clone(), l, image));
                    }
                }
                Kind::Best { .. } if found.best.is_none() => {
                    if let Some(l) = self.load(spec) {
                        found.best = Some((spec.name.clone(), l));
                    }
                }
                _ => {}
            }
        }
        // Both tables must share the start the reachability test searches
        // back to: a best-result set only answers the problem of its own
        // hole, never one looked up through a symmetry.
        if matches!(found.goal, Some((_, _, Some(_)))) {
            found.best = None;
        }
        found
    }

    /// Whether hints on `problem`'s question read their solution counts
    /// from a table (a result ladder whose first level is the goal's peg
    /// count), the counts being made now if they are not yet (`wait`),
    /// else only started. Without them a hint enumerates the positions
    /// below it.
    pub fn counts_ready(&self, problem: &AnyProblem, wait: bool) -> bool {
        let AnyProblem::Small(p) = problem else {
            return false;
        };
        self.tables_for(p)
            .best
            .is_some_and(|(_, l)| l.paths(wait).is_some())
    }

    /// Whether hints on `problem`'s question will read their solution
    /// counts from a table whose counts are still being made (started
    /// now if they were not): an analysis made meanwhile lacks counts a
    /// later one has, so it must not be kept as the final answer.
    pub fn counts_pending(&self, problem: &AnyProblem) -> bool {
        let AnyProblem::Small(p) = problem else {
            return false;
        };
        self.tables_for(p)
            .best
            .is_some_and(|(_, l)| l.paths(false).is_none())
    }

    /// Loads the result ladder each cached question's hints read (never
    /// building one) and makes its solution counts, so that the first
    /// hints on its board read them; returns the ladders' names whose
    /// counts are ready. A server calls it once at start (a second or two
    /// on the English board).
    pub fn prepare_counts(&self) -> Vec<String> {
        // One question at a time, through the hints' own choice of table
        // (`tables_for`), so a ladder no hint reads is neither loaded nor
        // counted.
        let mut asked = std::collections::HashSet::new();
        self.specs
            .iter()
            .filter(|s| matches!(s.kind, Kind::Best { .. }) && !s.on_demand)
            .filter(|s| self.path(&s.name).exists() && asked.insert((s.board, &s.hole)))
            .filter_map(|s| self.tables_for(&s.origin()?).best)
            .filter(|(_, l)| l.paths(true).is_some())
            .map(|(name, _)| name)
            .collect()
    }

    /// Analyses the position of `problem` (its start) with the default
    /// count limit.
    pub fn analyze(&self, problem: &AnyProblem, budget: &Budget) -> PegAnalysis {
        self.analyze_with(problem, DEFAULT_COUNT_LIMIT, budget)
    }

    /// Analyses the position of `problem` (its start): the goal's
    /// reachability, the best result, every legal jump with its result and
    /// colour; solutions are counted at `count_limit` pegs or fewer.
    pub fn analyze_with(
        &self,
        problem: &AnyProblem,
        count_limit: u32,
        budget: &Budget,
    ) -> PegAnalysis {
        let t0 = Instant::now();
        let mut a = match problem {
            AnyProblem::Small(p) => {
                let found = self.tables_for(p);
                // Both tables of a problem share its start, so either
                // origin tests reachability; the goal set's positions are
                // looked up through its symmetry.
                let image = |q: &u64| match &found.goal {
                    Some((_, _, Some(i))) => i.of(*q),
                    _ => *q,
                };
                let origin = match (&found.goal, &found.best) {
                    (Some((_, l, _)), _) | (None, Some((_, l))) => Some(&l.origin),
                    (None, None) => None,
                };
                let goal = found.goal.as_ref().and_then(|(_, l, _)| match &l.held {
                    Held::Set(s) => Some(move |q: &u64| s.contains(&l.origin, &image(q))),
                    Held::Ladder(_) => None,
                });
                let ladder = found.best.as_ref().and_then(|(_, l)| match &l.held {
                    Held::Ladder(d) => Some((d, &l.origin)),
                    Held::Set(_) => None,
                });
                let best = ladder.map(|(d, o)| move |q: &u64| d.best(o, q));
                let solutions = found.best.as_ref().map(|(_, l)| |q: &u64| l.solutions(q));
                // Reachable from the tables' start exactly when the
                // complement reaches its goal: a search on few pegs for
                // the early positions, where it pays.
                let reachable = |q: &u64, nodes: u64| {
                    let o = origin?;
                    let c = o.reversal(&image(q))?;
                    let r = dfs::solve(
                        o,
                        &c,
                        &DfsOptions {
                            max_expansions: Some(nodes),
                            max_memo_entries: MEMO_ENTRIES,
                            ..DfsOptions::default()
                        },
                    );
                    (r.reached_goal || r.complete).then_some((r.reached_goal, r.expansions))
                };
                let view = origin.map(|_| TableView {
                    goal: goal.as_ref().map(|f| f as &dyn Fn(&u64) -> bool),
                    goal_name: found.goal.as_ref().map(|g| g.0.clone()),
                    best: best.as_ref().zip(ladder).and_then(|(f, (d, _))| {
                        Some((d.top()?, f as &dyn Fn(&u64) -> Option<u32>))
                    }),
                    best_name: found.best.as_ref().map(|b| b.0.clone()),
                    reachable: &reachable,
                    solutions: solutions
                        .as_ref()
                        .map(|f| f as &dyn Fn(&u64) -> Option<u64>),
                });
                analyze_typed(p, view, count_limit, budget)
            }
            AnyProblem::Large(p) => analyze_typed(p, None, count_limit, budget),
        };
        a.time_ms = t0.elapsed().as_secs_f64() * 1e3;
        a
    }
}

impl Tables for Service {
    fn tables(&self) -> Vec<TableInfo> {
        self.specs
            .iter()
            .map(|s| {
                let file = self.path(&s.name);
                let bytes = std::fs::metadata(&file).ok().map(|m| m.len());
                let state = if self.loaded(&s.name).is_some() {
                    TableState::Ready
                } else if let Some(st) = self.get_state(&s.name) {
                    st
                } else {
                    match cache::header(&file) {
                        Ok(h) if h.kind == s.name && h.version == TABLE_VERSION => {
                            TableState::Cached
                        }
                        _ => TableState::Missing,
                    }
                };
                TableInfo {
                    name: s.name.clone(),
                    about: s.about(),
                    file,
                    state,
                    bytes,
                    build_bytes: build_bytes(&s.name),
                }
            })
            .collect()
    }

    fn build(&self, name: &str, budget: &Budget) -> Option<Result<BuildReport, CacheError>> {
        let spec = self.specs.iter().find(|s| s.name == name)?.clone();
        let t0 = Instant::now();
        let Some(origin) = spec.origin() else {
            return Some(Err(CacheError::Invalid(format!("no problem for {name}"))));
        };
        let path = self.path(name);
        let (set, source, warning) = match self.read(&spec) {
            Ok(Some(set)) => (set, "loaded", None),
            found => {
                let warning = found
                    .err()
                    .map(|e| format!("{}: {e}; rebuilt", path.display()));
                self.set_state(name, Some(TableState::Building { progress: None }));
                let set = match spec.make(&origin, budget) {
                    Ok(s) => s,
                    Err(e) => {
                        let error = e.to_string();
                        self.set_state(
                            name,
                            Some(TableState::Failed {
                                error: error.clone(),
                            }),
                        );
                        let kind = match e {
                            BuildError::Stopped => std::io::ErrorKind::Interrupted,
                            _ => std::io::ErrorKind::Other,
                        };
                        return Some(Err(CacheError::Io(std::io::Error::new(kind, error))));
                    }
                };
                let warning = match cache::write(&path, name, TABLE_VERSION, &set.to_bytes()) {
                    Ok(()) => warning,
                    Err(e) => Some(format!("kept in memory only, not written: {e}")),
                };
                let source = if warning.as_deref().is_some_and(|w| w.ends_with("rebuilt")) {
                    "rebuilt"
                } else {
                    "built"
                };
                (set, source, warning)
            }
        };
        let entries = set.entries();
        self.keep(name, Loaded::new(origin, set));
        self.set_state(name, None);
        Some(Ok(BuildReport {
            name: name.to_string(),
            source: source.into(),
            warning,
            entries,
            bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
            time_ms: t0.elapsed().as_secs_f64() * 1e3,
        }))
    }
}

/// What the analysis knows of one distinct child (children equal up to
/// the position's symmetries share one); its position is kept as a wide
/// word so one type serves both board widths.
#[derive(Clone, Debug, Default)]
struct Slot {
    pos: u128,
    goal: Option<bool>,
    by_table: bool,
    solutions: Option<u128>,
    /// Fewest pegs reachable, once proven.
    best: Option<u32>,
    /// The stage of the best-result search: the index of the single-peg
    /// finish being tried, then the best-result search itself.
    stage: usize,
    /// The finish hole reached with one peg, when one is.
    one_peg: Option<usize>,
    /// Whether `best` came from the best-result set.
    best_by_table: bool,
}

/// Nodes spent so far against a budget.
struct Spend<'a> {
    budget: &'a Budget,
    used: u64,
}

impl Spend<'_> {
    /// Nodes the next slice may take (`None`: stop now).
    fn slice(&self, want: u64) -> Option<u64> {
        if self.budget.stop() {
            return None;
        }
        match self.budget.nodes_left(self.used) {
            Some(0) => None,
            Some(n) => Some(want.min(n)),
            None => Some(want),
        }
    }

    /// One slice of `s` from `pos`: its value, or `None` when the slice
    /// ran out first.
    fn run<P, K, F, E, O>(
        &mut self,
        s: &mut Searcher<'_, P, K, F, E, O>,
        pos: &P::Position,
        slice: u64,
    ) -> Option<u32>
    where
        P: Puzzle,
        K: Hash + Eq + Copy,
        F: Fn(&P::Position) -> K,
        E: Children<P, K>,
        O: Objective<P>,
    {
        let before = s.expansions;
        let r = s.run(pos, Some(slice), None);
        self.used += s.expansions - before;
        r
    }
}

fn to_wide<B: Bits>(b: &B) -> u128 {
    u128::from(b.low_u64(0))
        | if B::CAPACITY > 64 {
            u128::from(b.low_u64(64)) << 64
        } else {
            0
        }
}

fn from_wide<B: Bits>(x: u128) -> B {
    let lo = B::from_low_u64(x as u64);
    if B::CAPACITY > 64 {
        lo | B::from_low_u64((x >> 64) as u64).shl(64)
    } else {
        lo
    }
}

/// Moves along positions that keep `ok`, down to `target` pegs (as far as
/// `ok` knows).
fn walk<B: Bits>(p: &PegSolitaire<B>, from: B, target: u32, ok: impl Fn(&B) -> bool) -> Vec<u16> {
    let mut line = Vec::new();
    let mut cur = from;
    while cur.count() > target {
        let next = p
            .moves(&cur)
            .into_iter()
            .map(|m| (m, p.play_unchecked(&cur, m)))
            .find(|(_, c)| ok(c));
        let Some((m, c)) = next else { break };
        line.push(m);
        cur = c;
    }
    line
}

/// Whether a position is in a solved set.
type Member<'a, B> = &'a dyn Fn(&B) -> bool;

/// A position's best result from a result ladder, when it tells it.
type BestOf<'a, B> = &'a dyn Fn(&B) -> Option<u32>;

/// The solutions from a position by a table's counts, when they are ready.
type CountOf<'a, B> = &'a dyn Fn(&B) -> Option<u64>;

/// A reachability test: `(reachable, nodes spent)` within the given
/// nodes, or `None` if undecided.
type ReachTest<'a, B> = &'a dyn Fn(&B, u64) -> Option<(bool, u64)>;

/// The solved tables of a problem as the analysis sees them. Both share
/// the problem's start, whose reachability the test decides.
struct TableView<'a, B> {
    /// Whether a position is in the goal-reaching set (reaches the goal).
    goal: Option<Member<'a, B>>,
    /// The goal-reaching set's name.
    goal_name: Option<String>,
    /// The result ladder: the highest best result it tells, and a
    /// position's best result when it tells it (the position is then
    /// reachable); a reachable position it does not tell is left with
    /// more pegs at best.
    best: Option<(u32, BestOf<'a, B>)>,
    /// The ladder's name.
    best_name: Option<String>,
    /// Whether a position is reachable from the tables' start, by a
    /// search of at most the given nodes: `(reachable, nodes spent)`, or
    /// `None` if undecided.
    reachable: ReachTest<'a, B>,
    /// The number of solutions from a position reachable from the
    /// tables' start, when the counts are ready ([`Paths`]).
    solutions: Option<CountOf<'a, B>>,
}

/// Most nodes of the reachability test of a position outside the table.
const REACHABLE_NODES: u64 = 200_000;

fn analyze_typed<B: Bits>(
    p: &PegSolitaire<B>,
    table: Option<TableView<'_, B>>,
    count_limit: u32,
    budget: &Budget,
) -> PegAnalysis {
    let pos = p.start();
    let pegs = pos.count();
    let g = p.score_bound();
    let goal_best = |solvable: bool| PuzzleResult {
        solvable: Some(solvable),
        best: Some(g),
        best_proven: g == 1,
    };
    let mut detail = PosDetail {
        goal: goal_text(p),
        pegs,
        ..PosDetail::default()
    };
    let here_goal = p.is_goal(&pos);
    let moves = p.moves(&pos);
    if moves.is_empty() {
        let result = PuzzleResult::exact(here_goal, pegs);
        return Analysis {
            game: "peg".into(),
            position: p.format_position(&pos),
            to_move: None,
            over: true,
            value: None,
            result: Some(result),
            remoteness: Some(0),
            decided_by: Decided::Search,
            reason: None,
            estimate: None,
            moves: Vec::new(),
            line: Vec::new(),
            detail,
            time_ms: 0.0,
        };
    }
    // The distinct children up to the position's symmetries.
    let kids: Vec<B> = moves.iter().map(|&m| p.play_unchecked(&pos, m)).collect();
    let mut keys: Vec<B> = Vec::new();
    let mut slot_of: Vec<usize> = Vec::with_capacity(kids.len());
    let mut slots: Vec<Slot> = Vec::new();
    for c in &kids {
        let k = p.canonical(c);
        let i = match keys.iter().position(|x| *x == k) {
            Some(i) => i,
            None => {
                keys.push(k);
                slots.push(Slot {
                    pos: to_wide(c),
                    ..Slot::default()
                });
                keys.len() - 1
            }
        };
        slot_of.push(i);
    }
    let at = |s: &Slot| from_wide::<B>(s.pos);
    let mut parent_goal: Option<bool> = here_goal.then_some(true);
    let mut parent_by_table = false;

    // The solved tables. A member of a set reaches its target from
    // anywhere; a miss means the target is lost only for a position
    // reachable from the start: a member of either set, a position the
    // test proves reachable, or a child of one of those.
    let mut spend = Spend { budget, used: 0 };
    // Fewest pegs the moves the ladder does not tell can be left with
    // (1 when there is no ladder).
    let mut floor = 1;
    // The position's best result from the ladder.
    let mut parent_best: Option<u32> = None;
    let mut best_of: Option<BestOf<'_, B>> = None;
    if let Some(t) = &table {
        let goal_in = t.goal.is_some_and(|has| has(&pos));
        let best_in = t.best.and_then(|(_, of)| of(&pos));
        let known = goal_in
            || best_in.is_some()
            || spend
                .slice(REACHABLE_NODES)
                .and_then(|n| (t.reachable)(&pos, n))
                .is_some_and(|(r, used)| {
                    spend.used += used;
                    r
                });
        let mut names = Vec::new();
        if let Some(has) = t.goal {
            for s in &mut slots {
                let c = at(s);
                if known || has(&c) {
                    s.goal = Some(has(&c));
                    s.by_table = true;
                }
            }
            if known {
                // Outside the set but reachable: the goal is lost here and
                // after every move.
                parent_goal = Some(goal_in);
                parent_by_table = true;
            }
            if known || slots.iter().any(|s| s.by_table) {
                names.extend(t.goal_name.clone());
            }
        }
        if let (Some((top, of)), true) = (t.best, known) {
            // The ladder tells a member's best result exactly; a
            // reachable position it does not tell is left with more than
            // `top` pegs at best.
            best_of = Some(of);
            floor = top + 1;
            parent_best = best_in;
            for s in &mut slots {
                if let Some(v) = of(&at(s)) {
                    s.best = Some(v);
                    s.best_by_table = true;
                }
            }
            names.extend(t.best_name.clone());
        }
        if !names.is_empty() {
            detail.table = Some(names.join(", "));
        }
    }
    // A quick proof that the position cannot reach the goal.
    if !here_goal && p.cannot_reach_goal(&pos) {
        detail.proof = Some(
            p.impossibility(pos)
                .unwrap_or_else(|| format!("fewer pegs than the goal's {g}")),
        );
        parent_goal = Some(false);
        for s in &mut slots {
            s.goal = Some(false);
        }
    }
    // Solutions through every move on small positions: from the
    // table's counts when they are ready, else by enumeration.
    let counted = table
        .as_ref()
        .and_then(|t| t.solutions)
        .filter(|_| pegs <= count_limit)
        .and_then(|f| {
            slots
                .iter()
                .map(|s| f(&at(s)))
                .collect::<Option<Vec<u64>>>()
        });
    if let Some(per_slot) = counted {
        let mut total = 0u128;
        for &i in &slot_of {
            total += per_slot[i] as u128;
        }
        for (s, &n) in slots.iter_mut().zip(&per_slot) {
            s.solutions = Some(n as u128);
            if s.goal.is_none() {
                s.goal = Some(n > 0);
            }
        }
        detail.solutions = Some(total.to_string());
    } else if pegs <= count_limit {
        let opts = LayeredOptions {
            max_bytes: budget.memory.unwrap_or(COUNT_BYTES),
            count_all: p.reversal(&pos).is_some(),
            budget: budget.clone(),
            ..LayeredOptions::default()
        };
        if let Ok(r) = layered::enumerate(p, &opts, &layered::Silent) {
            if !r.child_solutions.is_empty() || r.solutions == Some(0) {
                for (s, k) in slots.iter_mut().zip(&keys) {
                    let n = r
                        .child_solutions
                        .iter()
                        .find(|(q, _)| q == k)
                        .map_or(0, |&(_, n)| n);
                    s.solutions = Some(n);
                    if s.goal.is_none() {
                        s.goal = Some(n > 0);
                    }
                }
                detail.solutions = r.solutions.map(|n| n.to_string());
            }
        }
    }
    for s in &mut slots {
        let c = at(s);
        if s.goal.is_none() {
            if p.is_goal(&c) {
                s.goal = Some(true);
            } else if p.cannot_reach_goal(&c) {
                s.goal = Some(false);
            }
        }
    }

    let memo = budget
        .memory
        .map_or(MEMO_ENTRIES, |b| (b / 32).max(1 << 16));
    let key = |q: &B| p.canonical(q);
    // The goal: one memoised search for the position and all its moves.
    let mut gs = Searcher::new(p, key, memo)
        .ordered(true)
        .track_best(true)
        .goal_only();
    let mut slice = FIRST_SLICE;
    'goal: loop {
        let any_green = slots.iter().any(|s| s.goal == Some(true));
        if parent_goal.is_none() && any_green {
            parent_goal = Some(true);
        }
        if parent_goal.is_none() && slots.iter().all(|s| s.goal == Some(false)) {
            parent_goal = Some(false);
        }
        let parent_open = parent_goal.is_none();
        if !parent_open && slots.iter().all(|s| s.goal.is_some()) {
            break;
        }
        if parent_open {
            let Some(n) = spend.slice(slice) else {
                break 'goal;
            };
            if let Some(v) = spend.run(&mut gs, &pos, n) {
                parent_goal = Some(v <= g);
                if v > g {
                    for s in &mut slots {
                        s.goal = Some(false);
                    }
                }
                continue;
            }
        }
        for s in slots.iter_mut().filter(|s| s.goal.is_none()) {
            let Some(n) = spend.slice(slice) else {
                break 'goal;
            };
            if let Some(v) = spend.run(&mut gs, &at(s), n) {
                s.goal = Some(v <= g);
            }
        }
        slice = (slice * 2).min(MAX_SLICE);
    }

    // The goal out of reach: judge the moves by the best result, first
    // whether one peg can still be left anywhere (a goal search per
    // finish hole, pruned), then the fewest pegs down to two.
    // With a best-result set every move left to search keeps at least
    // `floor` pegs: no single-peg finish to try, and a line down to
    // `floor` pegs is a proof.
    let mut hole_problems: Vec<(usize, PegSolitaire<B>)> = Vec::new();
    // Every finish hole has its problem (none was skipped for lack of
    // budget): only then does running out of them rule one peg out.
    let mut holes_complete = true;
    let best_stop = floor.max(2);
    if parent_goal == Some(false) && floor <= 1 {
        let board = p.board();
        let start: Vec<bool> = (0..board.holes()).map(|h| p.has_peg(pos, h)).collect();
        for h in 0..board.holes() {
            // Deriving a hole's pagoda functions reads the deadline but
            // not the cancel token (37 holes take seconds on the French
            // board): a client that left must not wait for them all.
            if budget.stop() {
                holes_complete = false;
                break;
            }
            if let Ok(q) = PegSolitaire::<B>::new_within(
                board.clone(),
                &start,
                Goal::Pattern(vec![h]),
                Pruning::default(),
                budget.deadline,
            ) {
                if !q.cannot_reach_goal(&pos) {
                    hole_problems.push((h, q));
                }
            }
        }
    }
    let mut hs: Vec<_> = hole_problems
        .iter()
        .map(|(_, q)| {
            Searcher::new(q, move |x: &B| q.canonical(x), memo)
                .ordered(true)
                .track_best(true)
                .goal_only()
        })
        .collect();
    let mut bs = Searcher::new(p, key, memo)
        .ordered(true)
        .track_best(true)
        .with_objective(|q: &B| q.count(), best_stop);
    if parent_goal == Some(false) {
        let mut slice = FIRST_SLICE;
        'best: loop {
            let mut open = false;
            for s in slots.iter_mut().filter(|s| s.best.is_none()) {
                open = true;
                let c = at(s);
                // Finishes this child rules out cost nothing.
                while s.stage < hole_problems.len()
                    && hole_problems[s.stage].1.cannot_reach_goal(&c)
                {
                    s.stage += 1;
                }
                let Some(n) = spend.slice(slice) else {
                    break 'best;
                };
                if s.stage < hole_problems.len() {
                    if let Some(v) = spend.run(&mut hs[s.stage], &c, n) {
                        if v <= 1 {
                            s.best = Some(1);
                            s.one_peg = Some(s.stage);
                        } else {
                            s.stage += 1;
                        }
                    }
                } else if let Some(v) = spend.run(&mut bs, &c, n) {
                    // Fewer than `best_stop` pegs are ruled out here (one
                    // peg by the finishes tried, or the best-result set),
                    // so stopping there is exact.
                    s.best = Some(v.max(best_stop));
                }
            }
            if !open {
                break;
            }
            slice = (slice * 2).min(MAX_SLICE);
        }
    }

    // The position's result.
    let parent = match parent_goal {
        Some(true) => goal_best(true),
        Some(false) if parent_best.is_some() => PuzzleResult {
            solvable: Some(false),
            best: parent_best,
            best_proven: true,
        },
        Some(false) => {
            let best = slots.iter().filter_map(|s| s.best).min();
            let all = slots.iter().all(|s| s.best.is_some());
            let one_ruled_out =
                holes_complete && slots.iter().all(|s| s.stage >= hole_problems.len());
            let proven = all || best == Some(1) || (best == Some(best_stop) && one_ruled_out);
            PuzzleResult {
                solvable: Some(false),
                best,
                best_proven: proven && best.is_some(),
            }
        }
        None => PuzzleResult::UNKNOWN,
    };
    let child_result = |s: &Slot| match (s.goal, parent_goal) {
        (Some(true), _) => goal_best(true),
        (Some(false), Some(true)) => PuzzleResult {
            solvable: Some(false),
            best: None,
            best_proven: false,
        },
        (Some(false), _) => PuzzleResult {
            solvable: Some(false),
            best: s.best,
            best_proven: s.best.is_some(),
        },
        (None, _) => PuzzleResult::UNKNOWN,
    };
    let mut out: Vec<(usize, MoveAnalysis<MoveDetail>)> = moves
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let s = &slots[slot_of[i]];
            let r = child_result(s);
            let colour = Colour::of_result(&r, &parent);
            let target = match r.solvable {
                Some(true) => Some(g),
                Some(false) if parent_goal != Some(true) => r.best,
                _ => None,
            };
            let decided_by = if colour == Colour::Blue {
                Decided::Undecided
            } else if (s.by_table && (r.solvable == Some(true) || parent_goal == Some(true)))
                || (s.best_by_table && parent_goal == Some(false))
            {
                Decided::Table
            } else {
                Decided::Search
            };
            (
                i,
                MoveAnalysis {
                    mv: p.move_name(m),
                    after: p.format_position(&kids[i]),
                    value: None,
                    result: Some(r),
                    remoteness: target.map(|t| pegs - t),
                    colour,
                    decided_by,
                    estimate: None,
                    detail: MoveDetail {
                        solutions: s.solutions.map(|n| n.to_string()),
                    },
                },
            )
        })
        .collect();
    out.sort_by_key(|(i, m)| {
        (
            m.colour.rank(),
            m.result.and_then(|r| r.best).unwrap_or(u32::MAX),
            *i,
        )
    });

    // A best line: the first move keeping the best, then down the table
    // or the searches' memos.
    let mut line: Vec<String> = Vec::new();
    if let Some((i, first)) = out.first() {
        if matches!(first.colour, Colour::Green | Colour::Yellow) {
            let s = &slots[slot_of[*i]];
            let c = kids[*i];
            let rest = if s.goal == Some(true) {
                match table.as_ref().and_then(|t| t.goal) {
                    Some(has) if has(&c) => walk(p, c, g, |q| p.is_goal(q) || has(q)),
                    _ => walk(p, c, g, |q| {
                        p.is_goal(q) || gs.known(q).is_some_and(|v| v <= g)
                    }),
                }
            } else if let (true, Some(of)) = (s.best_by_table, best_of) {
                let b = s.best.unwrap_or(best_stop);
                walk(p, c, b, |q| of(q).is_some_and(|v| v <= b))
            } else if let Some(h) = s.one_peg {
                let (_, q) = &hole_problems[h];
                walk(p, c, 1, |x| {
                    q.is_goal(x) || hs[h].known(x).is_some_and(|v| v <= 1)
                })
            } else {
                let b = s.best.unwrap_or(best_stop);
                walk(p, c, b, |x| {
                    x.count() <= b || bs.known(x).is_some_and(|v| v <= b)
                })
            };
            let mut rest = rest;
            if s.goal == Some(true) {
                // A goal the count decided is in no memo: search the rest
                // of the line from where the walk stopped.
                let end = rest.iter().fold(c, |q, &m| p.play_unchecked(&q, m));
                if !p.is_goal(&end) {
                    let r = dfs::solve(
                        p,
                        &end,
                        &DfsOptions {
                            max_expansions: Some(REACHABLE_NODES),
                            max_memo_entries: MEMO_ENTRIES,
                            budget: budget.clone(),
                            ..DfsOptions::default()
                        },
                    );
                    if r.reached_goal {
                        rest.extend(r.line);
                    }
                }
            }
            line.push(first.mv.clone());
            line.extend(rest.iter().map(|&m| p.move_name(m)));
        }
    }
    let undecided = out.iter().filter(|(_, m)| m.colour == Colour::Blue).count();
    let reason = (undecided > 0 || parent.solvable.is_none()).then(|| {
        let why = if budget.cancelled() {
            "the request was cancelled"
        } else if budget.stop() {
            "the time budget ran out"
        } else if budget.nodes_left(spend.used) == Some(0) {
            "the node budget ran out"
        } else {
            "the searches ran out of budget"
        };
        format!(
            "{undecided} of {} moves undecided: {why} ({} positions searched)",
            out.len(),
            spend.used
        )
    });
    let decided_by = if parent.solvable.is_none() {
        Decided::Undecided
    } else if parent_by_table || (parent_goal == Some(false) && parent_best.is_some()) {
        Decided::Table
    } else {
        Decided::Search
    };
    let remoteness = match parent.solvable {
        Some(true) => Some(pegs - g),
        Some(false) if parent.best_proven => parent.best.map(|b| pegs - b),
        _ => None,
    };
    Analysis {
        game: "peg".into(),
        position: p.format_position(&pos),
        to_move: None,
        over: false,
        value: None,
        result: Some(parent),
        remoteness,
        decided_by,
        reason,
        estimate: None,
        moves: out.into_iter().map(|(_, m)| m).collect(),
        line,
        detail,
        time_ms: 0.0,
    }
}
