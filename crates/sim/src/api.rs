//! Sim's analysis service: the one place a hint is computed, for the
//! command line and the web alike.
//!
//! [`Service`] keeps, per variant (K3 … K8, standard and misère), a solved
//! table when one is built or found in the cache directory
//! ([`crate::table`]), and otherwise a lazily filled table of exact
//! solutions that outlives requests. [`Service::analyze`] answers from the
//! solved table when there is one (`decided_by: table`); else it solves
//! exactly within the budget (`search`), and whatever the budget did not
//! reach stays blue with the reason in words, never a guessed colour.
//!
//! Tables are built only on request ([`Tables::build`], i.e. `endgame
//! cache build` or the server's background builder); an analysis only
//! loads a valid file that is already there.

use crate::table::{self, Solved};
use endgame_core::analysis::{Analysis, Colour, Decided, MoveAnalysis, NoDetail};
use endgame_core::budget::Budget;
use endgame_core::cache::{self, BuildReport, CacheError, TableInfo, TableState, Tables};
use endgame_core::memory::{hash_table_bytes, hash_table_entries_within, peak_rss_bytes};
use endgame_core::player::{MoveLimits, Player};
use endgame_core::strong::{self, Keyed, LayerCounts, WeakSolution};
use endgame_core::{Game, Notation, Outcome, Rules, Value};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::time::{Duration, Instant};

pub use crate::picture::{self, Triangle};
pub use crate::solve::KeyKind;
pub use crate::{Segment, Sim, SimError, SimPos};

/// Default time of a hint without a table.
pub const DEFAULT_TIME: Duration = Duration::from_secs(2);

/// Default node budget of a hint without a table (positions expanded by
/// the exact search; about 1 µs each on K8, so the time limit binds
/// first).
pub const DEFAULT_NODES: u64 = 20_000_000;

/// Entries the lazily filled table of one variant may hold before an
/// analysis starts it afresh (about 25 bytes each).
const LAZY_MAX_ENTRIES: usize = 4_000_000;

/// Game-specific fields of a Sim analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PosDetail {
    /// Points of the board.
    pub n: usize,
    /// Whether completing your own triangle wins.
    pub misere: bool,
}

/// The analysis of a Sim position.
pub type SimAnalysis = Analysis<NoDetail, PosDetail>;

/// Parses a position string, inferring n from its length (3, 6, 10, 15,
/// 21 or 28 characters), and checks that a game can reach it.
pub fn parse(text: &str, misere: bool) -> Result<(Sim, SimPos), SimError> {
    Sim::parse_any(text, misere)
}

/// The name of the table of `n` points and the given rule.
pub fn table_name(n: usize, misere: bool) -> String {
    format!("sim-k{n}-{}", if misere { "misere" } else { "standard" })
}

/// The AI players' names: `battle sim`'s and `play sim`'s players, the
/// web's `strength` (`search` also takes a depth: `search:6`).
pub const PLAYERS: &[&str] = crate::player::NAMES;

/// The AI the web plays unless told otherwise.
pub const DEFAULT_AI: &str = "perfect";

/// The player called `name` (one of [`PLAYERS`]) for `sim`, its
/// randomness seeded by `seed`. Its `perfect` solves exactly as it plays,
/// with a table of its own (no budget: battles and terminal games).
pub fn player(name: &str, sim: &Sim, seed: u64) -> Result<Box<dyn Player<Sim>>, SimError> {
    crate::player::by_name(name, sim, seed)
}

/// The web's AI: `perfect` plays from the analysis service (a solved
/// table, else the exact search within the budget), every other name is
/// that [`player`].
pub enum Ai {
    /// The service's perfect move ([`Service::perfect_move`]).
    Perfect,
    /// A player by name.
    Player(Box<dyn Player<Sim>>),
}

impl Ai {
    /// The AI called `name` (one of [`PLAYERS`]), seeded by `seed`.
    pub fn by_name(name: &str, sim: &Sim, seed: u64) -> Result<Ai, SimError> {
        match name.trim() {
            "perfect" => Ok(Ai::Perfect),
            other => player(other, sim, seed).map(Ai::Player),
        }
    }
}

/// A move an AI chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiMove {
    /// The segment.
    pub mv: Segment,
    /// What it gives its mover, when the AI knows (`perfect`).
    pub outcome: Option<Outcome>,
}

/// The answer of [`solve`]: `endgame solve sim` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReport {
    /// Points.
    pub n: usize,
    /// Misère rule.
    pub misere: bool,
    /// The position solved.
    pub position: String,
    /// `red` or `blue`.
    pub to_move: &'static str,
    /// Whether the game is over in this position.
    pub finished: bool,
    /// Value for the player to move: `win`, `loss` or `draw`.
    pub value: Value,
    /// Moves to the end under perfect play (fastest win, slowest loss);
    /// `null` for a draw.
    pub remoteness: Option<u32>,
    /// The perfect move (`null` when the game is over).
    pub best_move: Option<String>,
    /// The position after the best move.
    pub after: Option<String>,
    /// Positions up to isomorphism solved to answer (when the budget ran
    /// out: solved before it did).
    pub positions_solved: usize,
    /// Whether the value is known: `false` when the budget ran out first
    /// (the value is then `unknown`, with no best move).
    pub complete: bool,
    /// Why the answer is incomplete, in words (`null` when complete).
    pub reason: Option<String>,
    /// Wall time in milliseconds.
    pub time_ms: f64,
}

/// Bytes of one entry of the exact search's table (a canonical position
/// and its packed outcome).
const ENTRY_BYTES: usize = std::mem::size_of::<(SimPos, strong::Packed)>();

/// `budget` with its node limit lowered so that a table already holding
/// `held` entries, gaining at most one per node, stays within the
/// budget's memory (see [`hash_table_entries_within`]); unchanged without
/// a memory limit.
fn within_memory(budget: &Budget, held: usize) -> Budget {
    let mut b = budget.clone();
    if let Some(m) = budget.memory {
        let room = hash_table_entries_within(m, ENTRY_BYTES).saturating_sub(held) as u64;
        b.nodes = Some(b.nodes.map_or(room, |n| n.min(room)));
    }
    b
}

/// What stopped a search of `nodes` nodes within `budget` (as given,
/// before [`within_memory`]), in words.
fn stopped_by(budget: &Budget, nodes: u64, started: Instant) -> String {
    let memory_cap = budget
        .memory
        .map(|m| hash_table_entries_within(m, ENTRY_BYTES) as u64);
    if budget.cancelled() {
        "the search was cancelled".into()
    } else if let Some(cap) =
        memory_cap.filter(|&c| nodes >= c && budget.nodes.is_none_or(|n| c <= n))
    {
        format!(
            "the memory budget ({}) is full: {cap} positions",
            mib(budget.memory.unwrap_or(0))
        )
    } else if let Some(n) = budget.nodes.filter(|&n| nodes >= n) {
        format!("the node budget ran out after {n} positions")
    } else {
        format!(
            "the time budget ran out after {} ({nodes} positions)",
            seconds(started.elapsed())
        )
    }
}

/// Bytes as MiB for a reason.
fn mib(bytes: usize) -> String {
    format!("{:.0} MiB", bytes as f64 / f64::from(1 << 20))
}

/// `red` or `blue`: who moves in `pos`.
fn to_move(pos: &SimPos) -> &'static str {
    if pos.red_to_move() {
        "red"
    } else {
        "blue"
    }
}

/// Solves `pos` exactly, without a budget (solving what it needs into a
/// fresh table): its value, remoteness and perfect move.
pub fn solve(sim: &Sim, pos: &SimPos) -> SolveReport {
    solve_within(sim, pos, &Budget::unlimited())
}

/// [`solve`] within `budget`: its deadline, node limit and cancel token
/// stop the search, and its memory bounds the table *before* it grows
/// (the node limit is lowered so the table never outgrows the memory; see
/// [`hash_table_entries_within`]). When the budget runs out first the
/// report says `complete: false`, the value is `unknown`, and
/// `positions_solved` is what was solved by then.
pub fn solve_within(sim: &Sim, pos: &SimPos, budget: &Budget) -> SolveReport {
    let t0 = Instant::now();
    let mut table = crate::solve::Table::default();
    let capped = within_memory(budget, 0);
    let mut nodes = 0u64;
    let solved = match sim.outcome(pos) {
        Some(v) => Some(table::terminal(v)),
        None => strong::solve_lazily_within(sim, &mut table, pos, &capped, &mut nodes),
    };
    // The children of a solved position are in the table: the best move
    // needs no new search.
    let best = solved.and_then(|_| crate::solve::best_move(sim, &mut table, pos));
    SolveReport {
        n: sim.n(),
        misere: sim.misere(),
        position: sim.format_position(pos),
        to_move: to_move(pos),
        finished: sim.outcome(pos).is_some(),
        value: solved.map_or(Value::Unknown, |o| o.value),
        remoteness: solved.and_then(|o| o.remoteness),
        best_move: best.map(|(m, _)| sim.format_move(m)),
        after: best.map(|(m, _)| sim.format_position(&sim.play_unchecked(pos, m))),
        positions_solved: table.len(),
        complete: solved.is_some(),
        reason: solved.is_none().then(|| stopped_by(budget, nodes, t0)),
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
    }
}

/// One move number of [`count`].
#[derive(Clone, Debug, Serialize)]
pub struct CountRow {
    /// Segments coloured.
    pub move_number: usize,
    /// The counts.
    #[serde(flatten)]
    pub counts: LayerCounts,
}

/// A weak solve in the count report.
#[derive(Clone, Debug, Serialize)]
pub struct WeakRow {
    /// `exact`, `degree-sorted` (the normal form of erik's Cassis article) or
    /// `raw`.
    pub key: KeyKind,
    /// The result.
    #[serde(flatten)]
    pub solution: WeakSolution,
    /// Wall time in milliseconds.
    pub time_ms: f64,
}

/// The answer of [`count`]: `endgame count sim` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// Points.
    pub n: usize,
    /// Misère rule.
    pub misere: bool,
    /// Value of the empty board for red (who moves first).
    pub value: Value,
    /// Its remoteness.
    pub remoteness: Option<u32>,
    /// Reachable positions up to isomorphism per move number.
    pub per_move: Vec<CountRow>,
    /// Reachable positions up to isomorphism in all.
    pub positions: u64,
    /// Terminal positions (a triangle completed, or a full board).
    pub terminals: u64,
    /// Value distribution (for the player to move).
    pub wins: u64,
    /// Lost positions.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Whether the table passed the audit (`null` without it).
    pub consistent: Option<bool>,
    /// Weak solves of the start (when asked for).
    pub weak: Vec<WeakRow>,
    /// Whether everything asked for was done: `false` when the budget ran
    /// out first (the value is then `unknown`, the counts empty, and
    /// `positions` the positions solved by then).
    pub complete: bool,
    /// Why the count is incomplete, in words (`null` when complete).
    pub reason: Option<String>,
    /// Strong solve wall time in milliseconds.
    pub time_ms: f64,
    /// Bytes the table of solved positions occupies (estimate).
    pub table_bytes: u64,
    /// Peak resident memory of the process in bytes (Linux).
    pub peak_rss_bytes: Option<u64>,
}

/// Solves every position of `sim` (strongly) and counts them by move
/// number and value; with `check` audits the table (every win has a
/// losing child at remoteness − 1, every loss only winning children, …),
/// with `weak` also weakly solves the start with the exact key and the
/// degree-sorted key of erik's Cassis article (and without any symmetry
/// for n ≤ 6). `Err`: the audit failed, in words.
pub fn count(sim: &Sim, check: bool, weak: bool) -> Result<CountReport, String> {
    count_within(sim, check, weak, &Budget::unlimited())
}

/// [`count`] within `budget`. The strong solve checks the deadline, node
/// limit and cancel token itself, and its table is bounded by the
/// budget's memory before it grows (as in [`solve_within`]); the audit
/// and each weak solve start only while the budget lasts. When it runs
/// out the report says `complete: false` with the reason, and what was
/// done by then: the positions solved, or the whole count without the
/// weak solves not started.
pub fn count_within(
    sim: &Sim,
    check: bool,
    weak: bool,
    budget: &Budget,
) -> Result<CountReport, String> {
    let t0 = Instant::now();
    let mut table = crate::solve::Table::default();
    let mut nodes = 0u64;
    let start = sim.start();
    let root = strong::solve_lazily_within(
        sim,
        &mut table,
        &start,
        &within_memory(budget, 0),
        &mut nodes,
    );
    let time_ms = t0.elapsed().as_secs_f64() * 1e3;
    let table_bytes = hash_table_bytes(table.len(), ENTRY_BYTES) as u64;
    let Some(root) = root else {
        return Ok(CountReport {
            n: sim.n(),
            misere: sim.misere(),
            value: Value::Unknown,
            remoteness: None,
            per_move: Vec::new(),
            positions: table.len() as u64,
            terminals: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            consistent: None,
            weak: Vec::new(),
            complete: false,
            reason: Some(stopped_by(budget, nodes, t0)),
            time_ms,
            table_bytes,
            peak_rss_bytes: peak_rss_bytes(),
        });
    };
    let mut layers: Vec<LayerCounts> = Vec::new();
    let mut total = LayerCounts::default();
    for (k, p) in &table {
        let m = k.coloured() as usize;
        if layers.len() <= m {
            layers.resize(m + 1, LayerCounts::default());
        }
        let terminal = sim.outcome(k).is_some() as u64;
        for c in [&mut layers[m], &mut total] {
            c.positions += 1;
            c.terminals += terminal;
            match p.outcome().value {
                Value::Win => c.wins += 1,
                Value::Loss => c.losses += 1,
                _ => c.draws += 1,
            }
        }
    }
    let sol = strong::StrongSolution {
        root: sim.canonical_key(&start),
        table,
        layers,
        total,
    };
    let mut reason = None;
    let consistent = if !check {
        None
    } else if budget.stop() {
        reason = Some("the budget ran out before the audit".to_string());
        None
    } else {
        strong::check_consistency(sim, &sol)
            .map_err(|e| format!("the solved table is inconsistent: {e}"))?;
        Some(true)
    };
    let mut weak_rows = Vec::new();
    if weak {
        let mut keys = vec![KeyKind::Exact, KeyKind::DegreeSorted];
        if sim.n() <= 6 {
            keys.push(KeyKind::Raw);
        }
        for key in keys {
            if budget.stop() {
                reason.get_or_insert_with(|| {
                    format!("the budget ran out before the weak solve with the {key:?} key")
                });
                break;
            }
            let t = Instant::now();
            let solution = crate::solve::weak(sim, &start, key);
            weak_rows.push(WeakRow {
                key,
                solution,
                time_ms: t.elapsed().as_secs_f64() * 1e3,
            });
        }
    }
    Ok(CountReport {
        n: sim.n(),
        misere: sim.misere(),
        value: root.value,
        remoteness: root.remoteness,
        per_move: sol
            .layers
            .iter()
            .enumerate()
            .map(|(move_number, &counts)| CountRow {
                move_number,
                counts,
            })
            .collect(),
        positions: sol.total.positions,
        terminals: sol.total.terminals,
        wins: sol.total.wins,
        losses: sol.total.losses,
        draws: sol.total.draws,
        consistent,
        weak: weak_rows,
        complete: reason.is_none(),
        reason,
        time_ms,
        table_bytes,
        peak_rss_bytes: peak_rss_bytes(),
    })
}

/// One variant: its solved table, its build state and its lazy table.
struct Slot {
    n: usize,
    misere: bool,
    name: String,
    solved: RwLock<Option<Arc<Solved>>>,
    /// Building, failed, or a damaged file (not read again until rebuilt);
    /// `None`: as the memory and the file say.
    state: Mutex<Option<TableState>>,
    /// Positions handled by the running build.
    progress: AtomicU64,
    /// One build at a time.
    building: Mutex<()>,
    lazy: Mutex<crate::solve::Table>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Slot {
    fn sim(&self) -> Sim {
        Sim::new(self.n, self.misere).expect("n is in range")
    }

    fn solved(&self) -> Option<Arc<Solved>> {
        self.solved
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn keep(&self, s: Solved) -> Arc<Solved> {
        let s = Arc::new(s);
        *self.solved.write().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
        // The lazy table answers nothing the solved one does not.
        *lock(&self.lazy) = crate::solve::Table::default();
        s
    }

    fn set_state(&self, s: Option<TableState>) {
        *lock(&self.state) = s;
    }
}

/// The Sim analysis service (see the module's documentation).
pub struct Service {
    dir: Option<PathBuf>,
    slots: Vec<Slot>,
}

impl Service {
    /// A service keeping its tables in `cache_dir` (`None`: nothing on
    /// disk; tables built are kept in memory only).
    pub fn new(cache_dir: Option<PathBuf>) -> Service {
        let mut slots = Vec::new();
        for n in crate::MIN_N..=crate::MAX_N {
            for misere in [false, true] {
                slots.push(Slot {
                    n,
                    misere,
                    name: table_name(n, misere),
                    solved: RwLock::new(None),
                    state: Mutex::new(None),
                    progress: AtomicU64::new(0),
                    building: Mutex::new(()),
                    lazy: Mutex::new(Default::default()),
                });
            }
        }
        Service {
            dir: cache_dir,
            slots,
        }
    }

    /// The cache directory, if the service keeps files.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn slot(&self, sim: &Sim) -> &Slot {
        &self.slots[(sim.n() - crate::MIN_N) * 2 + usize::from(sim.misere())]
    }

    fn path(&self, name: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{name}.bin")))
    }

    /// Reads a slot's file: `Ok(None)` when there is none (or no cache
    /// directory), `Err` when it cannot be trusted.
    fn read(&self, slot: &Slot) -> Result<Option<Solved>, CacheError> {
        let Some(path) = self.path(&slot.name) else {
            return Ok(None);
        };
        match cache::read(&path, &slot.name, table::FORMAT_VERSION) {
            Ok(bytes) => Solved::from_bytes(&slot.sim(), &bytes)
                .map(Some)
                .map_err(CacheError::Invalid),
            Err(CacheError::Missing) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The solved table of `sim`'s variant: in memory, or loaded now from
    /// a valid file. Never builds one. A file that cannot be trusted is
    /// marked failed and not read again until a build replaces it.
    pub fn table(&self, sim: &Sim) -> Option<Arc<Solved>> {
        let slot = self.slot(sim);
        if let Some(s) = slot.solved() {
            return Some(s);
        }
        if lock(&slot.state).is_some() {
            return None;
        }
        match self.read(slot) {
            Ok(Some(s)) => Some(slot.keep(s)),
            Ok(None) => None,
            Err(e) => {
                slot.set_state(Some(TableState::Failed {
                    error: format!("damaged file, rebuild it: {e}"),
                }));
                None
            }
        }
    }

    /// Analyses `pos` of `sim`: its value for the player to move, every
    /// legal move with the value it gives its mover, best first, and a
    /// perfect line.
    pub fn analyze(&self, sim: &Sim, pos: &SimPos, budget: &Budget) -> SimAnalysis {
        let t0 = Instant::now();
        let mut a = match self.table(sim) {
            Some(t) => from_oracle(sim, pos, Decided::Table, |p| t.outcome(sim, p)),
            None => self.search(sim, pos, budget),
        };
        a.time_ms = t0.elapsed().as_secs_f64() * 1e3;
        a
    }

    /// The analysis by the exact lazy search, within `budget`.
    fn search(&self, sim: &Sim, pos: &SimPos, budget: &Budget) -> SimAnalysis {
        let slot = self.slot(sim);
        let given = budget.remaining();
        let Some(mut lazy) = lock_within(&slot.lazy, budget) else {
            let mut a = from_oracle(sim, pos, Decided::Search, |p| {
                sim.outcome(p).map(table::terminal)
            });
            a.reason = Some(format!(
                "{}: another analysis of this variant held the exact search's table until the budget ran out",
                self.why_no_table(sim, pos)
            ));
            return a;
        };
        if lazy.len() > LAZY_MAX_ENTRIES {
            *lazy = Default::default();
        }
        // The table grows by at most one entry a node: capping the nodes
        // keeps it within the budget's memory before it grows.
        if budget
            .memory
            .is_some_and(|m| lazy.len() >= hash_table_entries_within(m, ENTRY_BYTES))
        {
            *lazy = Default::default();
        }
        let capped = within_memory(budget, lazy.len());
        let mut nodes = 0u64;
        // Finished positions are the rules' to decide, budget or not.
        let mut a = from_oracle(sim, pos, Decided::Search, |p| {
            sim.outcome(p)
                .map(table::terminal)
                .or_else(|| strong::solve_lazily_within(sim, &mut lazy, p, &capped, &mut nodes))
        });
        if a.moves.iter().any(|m| m.colour == Colour::Blue) || a.value == Some(Value::Unknown) {
            let limit = if budget.cancelled() {
                "the analysis was cancelled".to_string()
            } else if budget.memory.is_some()
                && capped.nodes.is_some_and(|n| nodes >= n)
                && budget.nodes.is_none_or(|n| nodes < n)
            {
                format!(
                    "the exact search's table filled the memory budget ({})",
                    mib(budget.memory.unwrap_or(0))
                )
            } else if budget.nodes.is_some_and(|n| nodes >= n) {
                format!(
                    "the exact search did not finish within {} nodes",
                    budget.nodes.unwrap_or(0)
                )
            } else {
                match given {
                    Some(t) => format!("the exact search did not finish within {}", seconds(t)),
                    None => "the exact search was stopped".to_string(),
                }
            };
            a.reason = Some(format!("{}: {limit}", self.why_no_table(sim, pos)));
        }
        a
    }

    /// The first words of a reason: the variant, how far the game is, and
    /// that no table answers it.
    fn why_no_table(&self, sim: &Sim, pos: &SimPos) -> String {
        let slot = self.slot(sim);
        let state = match &*lock(&slot.state) {
            Some(TableState::Building { .. }) => "its table is being built".to_string(),
            Some(TableState::Failed { error }) => format!("its table failed ({error})"),
            _ => format!("no table yet (endgame cache build {})", slot.name),
        };
        format!(
            "K{}{} at {} coloured segments: {state}",
            sim.n(),
            if sim.misere() { " misère" } else { "" },
            pos.coloured()
        )
    }

    /// The perfect move of `pos` (fastest win, else a draw, else the
    /// slowest loss) with the outcome it gives the mover, when every move
    /// was decided within `budget`; `None` when the game is over or the
    /// budget ran out first.
    pub fn perfect_move(
        &self,
        sim: &Sim,
        pos: &SimPos,
        budget: &Budget,
    ) -> Option<(crate::Segment, Outcome)> {
        let a = self.analyze(sim, pos, budget);
        if a.moves.iter().any(|m| m.colour == Colour::Blue) {
            return None;
        }
        let best = a.moves.first()?;
        Some((
            sim.parse_move(&best.mv).ok()?,
            Outcome {
                value: best.value?,
                remoteness: best.remoteness,
            },
        ))
    }

    /// The move of `ai` in `pos` within `budget`: [`Ai::Perfect`] as
    /// [`Service::perfect_move`] (`None` when not every move was decided
    /// within the budget), a player by name within the budget's nodes and
    /// time. `None` as well when the game is over.
    pub fn ai_move(&self, ai: &mut Ai, sim: &Sim, pos: &SimPos, budget: &Budget) -> Option<AiMove> {
        if sim.outcome(pos).is_some() {
            return None;
        }
        match ai {
            Ai::Perfect => self.perfect_move(sim, pos, budget).map(|(mv, o)| AiMove {
                mv,
                outcome: Some(o),
            }),
            Ai::Player(p) => {
                let limits = MoveLimits {
                    time: budget.remaining(),
                    nodes: budget.nodes,
                    memory: budget.memory.map(|m| m as u64),
                };
                Some(AiMove {
                    mv: p.choose(sim, pos, &limits),
                    outcome: None,
                })
            }
        }
    }

    fn info(&self, slot: &Slot) -> TableInfo {
        let file = self
            .path(&slot.name)
            .unwrap_or_else(|| PathBuf::from(format!("{}.bin", slot.name)));
        let bytes = self
            .dir
            .as_ref()
            .and_then(|_| std::fs::metadata(&file).ok())
            .map(|m| m.len());
        let state = if slot.solved().is_some() {
            TableState::Ready
        } else {
            match lock(&slot.state).clone() {
                Some(TableState::Building { .. }) => TableState::Building {
                    progress: Some(
                        (slot.progress.load(Ordering::Relaxed) as f64
                            / (2 * table::expected_entries(slot.n)) as f64)
                            .min(1.0),
                    ),
                },
                Some(s) => s,
                None => match self.dir.as_ref().map(|_| cache::header(&file)) {
                    Some(Ok(h)) if h.kind == slot.name && h.version == table::FORMAT_VERSION => {
                        TableState::Cached
                    }
                    _ => TableState::Missing,
                },
            }
        };
        TableInfo {
            name: slot.name.clone(),
            about: format!(
                "Sim on K{}, {}: value and remoteness of all {} non-terminal positions up to isomorphism",
                slot.n,
                if slot.misere { "misère" } else { "standard" },
                table::expected_entries(slot.n)
            ),
            file,
            state,
            bytes,
            build_bytes: None,
        }
    }
}

impl Tables for Service {
    fn tables(&self) -> Vec<TableInfo> {
        self.slots.iter().map(|s| self.info(s)).collect()
    }

    fn build(&self, name: &str, budget: &Budget) -> Option<Result<BuildReport, CacheError>> {
        let slot = self.slots.iter().find(|s| s.name == name)?;
        let _one = lock(&slot.building);
        let t0 = Instant::now();
        let path = self.path(name);
        let bytes_of = |p: &Option<PathBuf>| {
            p.as_ref()
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len())
        };
        if let Some(s) = slot.solved() {
            return Some(Ok(report(name, "loaded", None, &s, bytes_of(&path), t0)));
        }
        let warning = match self.read(slot) {
            Ok(Some(s)) => {
                slot.set_state(None);
                let s = slot.keep(s);
                return Some(Ok(report(name, "loaded", None, &s, bytes_of(&path), t0)));
            }
            Ok(None) => None,
            Err(e) => Some(format!(
                "{}: {e}; rebuilt",
                path.as_ref()
                    .map_or_else(String::new, |p| p.display().to_string())
            )),
        };
        slot.progress.store(0, Ordering::Relaxed);
        slot.set_state(Some(TableState::Building { progress: None }));
        let solved = match Solved::build(&slot.sim(), budget, &slot.progress) {
            Ok(s) => s,
            Err(e) => {
                slot.set_state(Some(TableState::Failed {
                    error: e.to_string(),
                }));
                return Some(Err(CacheError::Io(std::io::Error::new(
                    std::io::ErrorKind::Interrupted,
                    e.to_string(),
                ))));
            }
        };
        let rebuilt = warning.is_some();
        let warning = match &path {
            Some(p) => match cache::write(p, name, table::FORMAT_VERSION, &solved.to_bytes()) {
                Ok(()) => warning,
                Err(e) => Some(format!("kept in memory only, not written: {e}")),
            },
            None => warning,
        };
        let s = slot.keep(solved);
        slot.set_state(None);
        let source = if rebuilt { "rebuilt" } else { "built" };
        Some(Ok(report(name, source, warning, &s, bytes_of(&path), t0)))
    }
}

fn report(
    name: &str,
    source: &str,
    warning: Option<String>,
    s: &Solved,
    bytes: u64,
    t0: Instant,
) -> BuildReport {
    BuildReport {
        name: name.to_string(),
        source: source.to_string(),
        warning,
        entries: s.len() as u64,
        bytes,
        time_ms: t0.elapsed().as_secs_f64() * 1e3,
    }
}

/// `t` in words, e.g. `2 s` or `0.5 s`.
fn seconds(t: Duration) -> String {
    let s = t.as_secs_f64();
    if (s - s.round()).abs() < 0.05 {
        format!("{} s", s.round())
    } else {
        format!("{s:.1} s")
    }
}

/// The lock of `m`, waiting for it at most until `budget` stops.
fn lock_within<'a, T>(m: &'a Mutex<T>, budget: &Budget) -> Option<MutexGuard<'a, T>> {
    loop {
        match m.try_lock() {
            Ok(g) => return Some(g),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) => {
                if budget.stop() {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// The analysis of `pos` given the outcome of positions (`None`: not
/// decided), asked for each child in segment order. Moves are sorted best
/// first, ties in segment order; the line follows the first best move
/// while every move of the position on it is decided.
fn from_oracle(
    sim: &Sim,
    pos: &SimPos,
    by: Decided,
    mut outcome: impl FnMut(&SimPos) -> Option<Outcome>,
) -> SimAnalysis {
    let over = sim.outcome(pos);
    let mut moves: Vec<(Outcome, MoveAnalysis)> = sim
        .moves(pos)
        .into_iter()
        .map(|m| {
            let child = sim.play_unchecked(pos, m);
            let o = outcome(&child).map(Outcome::parent_of);
            let value = o.map_or(Value::Unknown, |o| o.value);
            (
                o.unwrap_or(Outcome {
                    value: Value::Unknown,
                    remoteness: None,
                }),
                MoveAnalysis {
                    mv: sim.format_move(m),
                    after: sim.format_position(&child),
                    value: Some(value),
                    result: None,
                    remoteness: o.and_then(|o| o.remoteness),
                    colour: Colour::of_value(value),
                    decided_by: if o.is_some() { by } else { Decided::Undecided },
                    estimate: None,
                    detail: NoDetail {},
                },
            )
        })
        .collect();
    moves.sort_by(|a, b| a.0.best_first(&b.0));
    let all_decided = moves.iter().all(|(o, _)| o.value != Value::Unknown);
    let value = match over {
        Some(v) => Some(table::terminal(v)),
        None if all_decided => moves.first().map(|(o, _)| *o),
        // One winning move proves the win; how fast is not known yet.
        None if moves.iter().any(|(o, _)| o.value == Value::Win) => Some(Outcome {
            value: Value::Win,
            remoteness: None,
        }),
        None => None,
    };
    let mut line = Vec::new();
    if over.is_none() && all_decided {
        let mut p = *pos;
        let mut kids = Vec::new();
        while sim.outcome(&p).is_none() {
            kids.clear();
            sim.for_each_move(&p, |m| kids.push(m));
            let mut best: Option<(crate::Segment, Outcome)> = None;
            for &m in &kids {
                let Some(o) = outcome(&sim.play_unchecked(&p, m)) else {
                    best = None;
                    break;
                };
                let mine = Outcome::parent_of(o);
                if best.is_none_or(|(_, b)| mine.better_than(&b)) {
                    best = Some((m, mine));
                }
            }
            let Some((m, _)) = best else { break };
            line.push(sim.format_move(m));
            p = sim.play_unchecked(&p, m);
        }
    }
    let decided = value.is_some();
    Analysis {
        game: "sim".into(),
        position: sim.format_position(pos),
        to_move: Some(if pos.red_to_move() { "red" } else { "blue" }.into()),
        over: over.is_some(),
        value: Some(value.map_or(Value::Unknown, |o| o.value)),
        result: None,
        remoteness: value.and_then(|o| o.remoteness),
        decided_by: if decided { by } else { Decided::Undecided },
        reason: None,
        estimate: None,
        moves: moves.into_iter().map(|(_, m)| m).collect(),
        line,
        detail: PosDetail {
            n: sim.n(),
            misere: sim.misere(),
        },
        time_ms: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ais_play_legal_moves_and_perfect_is_the_services() {
        let service = Service::new(None);
        let budget = Budget::unlimited();
        let sim = Sim::new(5, false).expect("K5");
        let pos = sim.play_text(&sim.start(), "ab").expect("a move");
        let mut perfect = Ai::by_name(DEFAULT_AI, &sim, 1).expect("an AI");
        assert!(matches!(perfect, Ai::Perfect));
        let m = service
            .ai_move(&mut perfect, &sim, &pos, &budget)
            .expect("a move");
        let want = service.perfect_move(&sim, &pos, &budget).expect("decided");
        assert_eq!((m.mv, m.outcome), (want.0, Some(want.1)));
        for name in PLAYERS.iter().copied().chain(["search:2"]) {
            let mut ai = Ai::by_name(name, &sim, 1).expect("an AI");
            let m = service
                .ai_move(&mut ai, &sim, &pos, &budget)
                .expect("a move");
            assert!(sim.moves(&pos).contains(&m.mv), "{name}");
            if name != "perfect" {
                assert_eq!(m.outcome, None, "{name}");
                assert!(player(name, &sim, 1).is_ok());
            }
        }
        assert!(Ai::by_name("nobody", &sim, 1).is_err());
        assert!(player("perfect:3", &sim, 1).is_err());
        // A finished game has no AI move.
        let k3 = Sim::new(3, false).expect("K3");
        let over = ["ab", "ac", "bc"]
            .iter()
            .fold(k3.start(), |p, m| k3.play_text(&p, m).expect("a move"));
        assert!(k3.outcome(&over).is_some());
        assert_eq!(service.ai_move(&mut perfect, &k3, &over, &budget), None);
    }

    #[test]
    fn the_exact_solve_and_the_count_agree_on_the_start() {
        for (n, misere) in [(4, false), (5, true), (6, false)] {
            let sim = Sim::new(n, misere).expect("a variant");
            let s = solve(&sim, &sim.start());
            let c = count(&sim, true, n <= 5).expect("a consistent table");
            assert_eq!((s.value, s.remoteness), (c.value, c.remoteness), "K{n}");
            assert_eq!(c.consistent, Some(true));
            assert_eq!(c.per_move.len(), sim.segments() + 1);
            assert_eq!(
                c.per_move.iter().map(|r| r.counts.positions).sum::<u64>(),
                c.positions
            );
            for w in &c.weak {
                assert_eq!(w.solution.value, c.value, "K{n} {:?}", w.key);
            }
            assert!(s.best_move.is_some() && !s.finished);
        }
    }
}
