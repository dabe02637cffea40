//! Which roots the retrograde solver takes and how, known before it
//! starts: the range ([`MAX_EMPTY`]), the cost in positions visited
//! ([`cost`]), the peak memory ([`memory_for`]) against the memory limit,
//! the plan that follows (both questions in one sweep, a sweep per
//! question, or a [`Refusal`]), and why a solve gives no answer.

use super::entry::Both;
use super::pool::{pool_bytes, REGION_BYTES};
use super::space::{Space, RELEASE_ABOVE};
use super::state::{Half, Line};
use super::tables::tables;
use crate::game::Position;
use std::sync::atomic::Ordering;

/// The most empty cells the solver takes (21 empties, i.e. 15 stones:
/// 12.5 GiB with both questions in one sweep, 7.2 GiB with a sweep per
/// question, more than the default limit; 20: 4.3 GiB and 2.65 GiB;
/// 19: 1.6 GiB; 18: 0.62 GiB; each further empty cell multiplies time and
/// memory by about three). Whether a root fits is decided by its memory
/// ([`memory`]) against a limit ([`memory_limit`]) before anything is
/// allocated. Colex ranks (two tables of 10 and 11 bits), `u32` stone
/// sets and 16-bit child offsets (at most C(14, 7) = 3 432 a block at 21)
/// hold up to here; 22 would need about 17 GiB even a sweep per question.
pub const MAX_EMPTY: u32 = 21;

/// Both questions share one sweep (32 bytes a node) whenever the memory
/// limit allows it, at every size up to [`MAX_EMPTY`]; else a sweep per
/// question (16 bytes a node, about half the peak, about 1.8 times as
/// long). At 18 empty cells one sweep's largest pair of layers would take
/// 1.02 GB, kept to about 0.62 GB by moving pages between the layers.
pub const MAX_EMPTY_ONE_SWEEP: u32 = MAX_EMPTY;

/// Why the retrograde solver gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// More than [`MAX_EMPTY`] empty cells.
    TooEarly,
    /// The deadline passed.
    OutOfTime,
    /// Its memory, even one question at a time, is over the limit
    /// (checked before anything is allocated): `needed` bytes for a root
    /// of `empty` empty cells against `limit`.
    TooLarge { empty: u32, needed: u64, limit: u64 },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Refusal::TooEarly => write!(
                f,
                "more than {MAX_EMPTY} empty cells: beyond the retrograde solver"
            ),
            Refusal::OutOfTime => write!(f, "the retrograde solver ran out of time"),
            Refusal::TooLarge {
                empty,
                needed,
                limit,
            } => write!(
                f,
                "the retrograde solver needs {} for {empty} empty cells, over the memory limit of {}",
                bytes_text(needed),
                bytes_text(limit)
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// Bytes as `1.23 GiB` or `456 MiB`.
pub fn bytes_text(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", b.div_ceil(1 << 20))
    }
}

/// The memory a retrograde solve takes at its peak (its layers' regions
/// as [`Space::gather`] moves them, plus the fives tables and a margin),
/// both questions in one sweep and a sweep per question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    pub one_sweep: u64,
    pub two_sweeps: u64,
}

/// The peak memory of a retrograde solve of a root with `n` empty cells
/// (the same for every such root), or `None` above [`MAX_EMPTY`]. Counted
/// by running the gathers' region bookkeeping without allocating (a few
/// ms at 20 empty cells, once per `n` and process).
pub fn memory_for(n: u32) -> Option<Memory> {
    if n > MAX_EMPTY {
        return None;
    }
    static MEMO: std::sync::Mutex<[Option<Memory>; MAX_EMPTY as usize + 1]> =
        std::sync::Mutex::new([None; MAX_EMPTY as usize + 1]);
    if let Some(m) = MEMO.lock().unwrap_or_else(|e| e.into_inner())[n as usize] {
        return Some(m);
    }
    let sp = Space::blank(n);
    let t = tables();
    // The fives of the two players' current sets and one being made.
    let fives =
        3 * t.binom[n as usize][n.div_ceil(2) as usize] * std::mem::size_of::<Line>() as u64;
    let extra = fives + (16 << 20);
    let bytes = |entry: usize, sweeps: usize| {
        (sp.peak_regions(entry, sweeps, RELEASE_ABOVE) * REGION_BYTES) as u64 + extra
    };
    let m = Memory {
        one_sweep: bytes(std::mem::size_of::<Both>(), 1),
        two_sweeps: bytes(std::mem::size_of::<Half>(), 2),
    };
    MEMO.lock().unwrap_or_else(|e| e.into_inner())[n as usize] = Some(m);
    Some(m)
}

/// [`memory_for`] the empty cells of `pos`.
pub fn memory(pos: &Position) -> Option<Memory> {
    memory_for(pos.empty().count_ones())
}

/// The default of [`memory_limit`]: 6 GiB, room for a 16-stone root
/// (20 empty cells, about 4.3 GB with both questions in one sweep).
pub const DEFAULT_MEMORY_BYTES: u64 = 6 << 30;

static MEMORY_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MEMORY_BYTES);

/// Sets the memory a retrograde solve may take when its caller gives no
/// limit (default [`DEFAULT_MEMORY_BYTES`]).
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

/// The memory a retrograde solve may take when its caller gives no limit.
pub fn memory_limit() -> u64 {
    MEMORY_LIMIT.load(Ordering::Relaxed)
}

/// Memory the system can give now (Linux: `MemAvailable` plus the layer
/// pages this process's pool holds, which a solve takes first), if
/// known.
fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024 + pool_bytes() as u64)
}

/// The memory limit a solve applies: `limit`, else [`memory_limit`],
/// never more than the system has available now.
pub fn effective_limit(limit: Option<u64>) -> u64 {
    let l = limit.unwrap_or_else(memory_limit);
    available().map_or(l, |a| l.min(a))
}

/// How a root will be solved within a memory limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Both questions in one sweep (else a sweep per question).
    pub one_sweep: bool,
    /// The peak memory predicted.
    pub bytes: u64,
}

/// Whether and how `pos` can be solved within `limit` bytes (`None`:
/// [`memory_limit`]; either way at most what the system has available):
/// both questions in one sweep when that fits, else a sweep per question,
/// else [`Refusal::TooLarge`] naming the memory needed. Nothing is
/// allocated.
pub fn plan(pos: &Position, limit: Option<u64>) -> Result<Plan, Refusal> {
    let n = pos.empty().count_ones();
    let m = memory_for(n).ok_or(Refusal::TooEarly)?;
    let limit = effective_limit(limit);
    if m.one_sweep <= limit {
        Ok(Plan {
            one_sweep: true,
            bytes: m.one_sweep,
        })
    } else if m.two_sweeps <= limit {
        Ok(Plan {
            one_sweep: false,
            bytes: m.two_sweeps,
        })
    } else {
        Err(Refusal::TooLarge {
            empty: n,
            needed: m.two_sweeps,
            limit,
        })
    }
}

/// Whether the retrograde solver takes `pos` within the process's memory
/// limit ([`memory_limit`], at most what the system has available): at
/// most [`MAX_EMPTY`] empty cells and [`plan`] finds room.
pub fn reaches(pos: &Position) -> bool {
    plan(pos, None).is_ok()
}

/// Positions the solver visits for `pos` (both sweeps, every layer), or
/// `None` when it has more than [`MAX_EMPTY`] empty cells: the measure of
/// its cost, known before it starts.
pub fn cost(pos: &Position) -> Option<u64> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return None;
    }
    let t = tables();
    let mut total = 0u64;
    for j in 0..=n {
        let (x, y) = (j.div_ceil(2), j / 2);
        total += t.binom[n as usize][x as usize] * t.binom[(n - x) as usize][y as usize];
    }
    Some(2 * total)
}
