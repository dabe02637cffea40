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
use crate::{Sim, SimError, SimPos};
use endgame_core::analysis::{Analysis, Colour, Decided, MoveAnalysis, NoDetail};
use endgame_core::budget::Budget;
use endgame_core::cache::{self, BuildReport, CacheError, TableInfo, TableState, Tables};
use endgame_core::strong;
use endgame_core::{Game, Notation, Outcome, Rules, Value};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::time::{Duration, Instant};

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
        let mut nodes = 0u64;
        // Finished positions are the rules' to decide, budget or not.
        let mut a = from_oracle(sim, pos, Decided::Search, |p| {
            sim.outcome(p)
                .map(table::terminal)
                .or_else(|| strong::solve_lazily_within(sim, &mut lazy, p, budget, &mut nodes))
        });
        if a.moves.iter().any(|m| m.colour == Colour::Blue) || a.value == Some(Value::Unknown) {
            let limit = if budget.cancelled() {
                "the analysis was cancelled".to_string()
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
