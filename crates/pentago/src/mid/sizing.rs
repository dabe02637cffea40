//! Which roots the retrograde solver takes and how, known before it
//! starts: the range ([`MAX_EMPTY`]), the cost in positions visited
//! ([`cost`]), the peak memory ([`memory_for`]) against the memory limit,
//! the plan that follows (both questions in one sweep, a sweep per
//! question, or a [`Refusal`]), and why a solve gives no answer.

use super::entry::Both;
use super::pool::{pool_bytes, REGION_BYTES};
use super::space::{Space, RELEASE_ABOVE};
use super::spill::Layout;
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
    /// of `empty` empty cells against `limit`, and spilling layers to
    /// disk cannot help (the limit is below what even that keeps in
    /// memory).
    TooLarge { empty: u32, needed: u64, limit: u64 },
    /// Its memory is over the limit (`needed` against `limit`, as
    /// [`Refusal::TooLarge`]), and spilling layers to disk within the
    /// limit would write `disk` bytes at once, more than the `free`
    /// bytes the temporary directory's disk can spare.
    NoDisk {
        empty: u32,
        needed: u64,
        limit: u64,
        disk: u64,
        free: u64,
    },
    /// A file of a spilled solve could not be made, written or read.
    DiskFailed { kind: std::io::ErrorKind },
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
            Refusal::NoDisk {
                empty,
                needed,
                limit,
                disk,
                free,
            } => write!(
                f,
                "the retrograde solver needs {} for {empty} empty cells, over the memory limit of {}, or {} of disk, over the {} free",
                bytes_text(needed),
                bytes_text(limit),
                bytes_text(disk),
                bytes_text(free)
            ),
            Refusal::DiskFailed { kind } => {
                write!(f, "the retrograde solver's files on disk failed: {kind}")
            }
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
    // The fives of the two players' current sets and one being made.
    let extra = extra_bytes(n);
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
    /// Bytes of layers on disk at once when the layers spill to files (0:
    /// all in memory).
    pub disk: u64,
}

/// Disk a spilled solve leaves free: its files never take the last GiB.
const DISK_MARGIN: u64 = 1 << 30;

/// Where spilled layers' files go: the system's temporary directory
/// (`TMPDIR` on Unix).
pub(super) fn spill_parent() -> std::path::PathBuf {
    std::env::temp_dir()
}

/// Bytes the disk of `path` can give an unprivileged process, if known.
fn disk_free(path: &std::path::Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: a NUL-terminated path and a struct the call fills.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        Some(st.f_bavail as u64 * st.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The memory of a spilled solve of `n` empty cells besides its layers
/// (the fives tables and a margin), as [`memory_for`] counts it.
fn extra_bytes(n: u32) -> u64 {
    let t = tables();
    3 * t.binom[n as usize][n.div_ceil(2) as usize] * std::mem::size_of::<Line>() as u64
        + (16 << 20)
}

/// The layout of a spilled solve of `n` empty cells (both questions in
/// one sweep) within `limit` bytes, or the least limit that would do.
/// Remembered for the last few limits: [`plan`] is asked several times
/// a question.
pub(super) fn spill_layout(n: u32, limit: u64) -> Result<Layout, u64> {
    type Memo = Vec<((u32, u64), Result<Layout, u64>)>;
    static MEMO: std::sync::Mutex<Memo> = std::sync::Mutex::new(Vec::new());
    let extra = extra_bytes(n);
    // Whole regions: limits a region apart give the same layout.
    let budget = limit.saturating_sub(extra) / REGION_BYTES as u64 * REGION_BYTES as u64;
    let key = (n, budget);
    if let Some((_, l)) = MEMO
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(k, _)| *k == key)
    {
        return l.clone();
    }
    let l = Space::blank(n)
        .spill_layout(std::mem::size_of::<Both>(), budget)
        .map_err(|b| b + extra);
    let mut memo = MEMO.lock().unwrap_or_else(|e| e.into_inner());
    if memo.len() >= 8 {
        let _ = memo.remove(0);
    }
    memo.push((key, l.clone()));
    l
}

/// Whether and how `pos` can be solved within `limit` bytes (`None`:
/// [`memory_limit`]; either way at most what the system has available):
/// both questions in one sweep when that fits, else a sweep per question,
/// else both in one sweep with the large layers spilled to files when
/// the disk has room, else [`Refusal::TooLarge`] or [`Refusal::NoDisk`]
/// naming the memory and disk needed. Nothing is allocated.
pub fn plan(pos: &Position, limit: Option<u64>) -> Result<Plan, Refusal> {
    plan_for(pos.empty().count_ones(), effective_limit(limit)).map(|(p, _)| p)
}

/// [`plan`] of `n` empty cells within `limit` bytes, with the layout
/// when spilled.
pub(super) fn plan_for(n: u32, limit: u64) -> Result<(Plan, Option<Layout>), Refusal> {
    let m = memory_for(n).ok_or(Refusal::TooEarly)?;
    if m.one_sweep <= limit {
        return Ok((
            Plan {
                one_sweep: true,
                bytes: m.one_sweep,
                disk: 0,
            },
            None,
        ));
    }
    if m.two_sweeps <= limit {
        return Ok((
            Plan {
                one_sweep: false,
                bytes: m.two_sweeps,
                disk: 0,
            },
            None,
        ));
    }
    let too_large = Refusal::TooLarge {
        empty: n,
        needed: m.two_sweeps,
        limit,
    };
    let Ok(layout) = spill_layout(n, limit) else {
        return Err(too_large);
    };
    let free = disk_free(&spill_parent()).map(|f| f.saturating_sub(DISK_MARGIN));
    if free.is_some_and(|f| layout.disk_bytes > f) {
        return Err(Refusal::NoDisk {
            empty: n,
            needed: m.two_sweeps,
            limit,
            disk: layout.disk_bytes,
            free: free.unwrap_or(0),
        });
    }
    Ok((
        Plan {
            one_sweep: true,
            bytes: (layout.peak_regions * REGION_BYTES) as u64 + extra_bytes(n),
            disk: layout.disk_bytes,
        },
        Some(layout),
    ))
}

/// Whether the retrograde solver takes `pos` within the process's memory
/// limit ([`memory_limit`], at most what the system has available): at
/// most [`MAX_EMPTY`] empty cells and [`plan`] finds room.
pub fn reaches(pos: &Position) -> bool {
    plan(pos, None).is_ok()
}

/// How much longer a solve with its layers spilled to disk takes than
/// one in memory (both questions in one sweep): most of it system time,
/// writing the files (measured on the loaded shared machine, CPU time:
/// 3.7 times at 18 stones within 256 MiB, 5.6 times at 16 within 2 GiB;
/// the README's benchmark section). So no hint or "think longer" starts
/// one; a solve without a time limit does.
pub const SPILL_SLOWDOWN: f64 = 6.0;

/// Predicted wall time of a retrograde solve of a root with `n` empty
/// cells following `plan`, on two idle cores: [`cost`] times a rate by
/// empty cells, measured (the README's benchmark section, "On a quiet
/// machine" and the seventh session), one process a position, pages
/// fresh:
///
/// - up to 18 empty cells, 10 ns a position: fixed costs (tables, fresh
///   pages, threads) weigh on small solves, measured 2.5 ns at 18 empty
///   cells and 6–10 ns at 14; the figure `strong` and the hints were
///   tuned with, on the slow side;
/// - 19 empty cells (17 stones), 6 ns: median 2.82 s for 506 million
///   (5.6 ns);
/// - 20 and 21 (16 and 15 stones), 5 ns: median 7.12 s for 1.48 billion
///   at 20 (4.8 ns); at 21 only CPU times under load were measured
///   (about 42 s of CPU in one sweep, so about 24 s on two cores, 5.5 ns).
///
/// A sweep per question takes about 1.8 times one sweep, a spilled one
/// [`SPILL_SLOWDOWN`] times. Not far on the
/// slow side: a prediction too high keeps the solver out of budgets it
/// fits (at 20 empty cells 5 ns is 7.4 s, inside the web's "think
/// longer" of 8 s; 10 ns said 14.8 s). A busy machine is slower: the
/// solver stops at the deadline whatever was predicted.
pub fn predicted_time(n: u32, plan: &Plan) -> Option<std::time::Duration> {
    let positions = cost_for(n)?;
    let ns = match n {
        0..=18 => 10.0,
        19 => 6.0,
        _ => 5.0,
    };
    let sweeps = if plan.disk > 0 {
        SPILL_SLOWDOWN
    } else if plan.one_sweep {
        1.0
    } else {
        1.8
    };
    Some(std::time::Duration::from_secs_f64(
        positions as f64 * ns * sweeps * 1e-9,
    ))
}

/// Positions the solver visits for `pos` (both sweeps, every layer), or
/// `None` when it has more than [`MAX_EMPTY`] empty cells: the measure of
/// its cost, known before it starts.
pub fn cost(pos: &Position) -> Option<u64> {
    cost_for(pos.empty().count_ones())
}

/// [`cost`] of a root with `n` empty cells.
pub fn cost_for(n: u32) -> Option<u64> {
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
