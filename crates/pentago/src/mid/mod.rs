//! The retrograde midgame solver: every position downstream of a root
//! with at most [`MAX_EMPTY`] empty cells, solved layer by layer from the
//! full board back to the root, with the quadrant rotations abstracted.
//!
//! A rotation only moves stones inside one quadrant, so if each quadrant
//! is seen in its own frame the root's empty cells stay put: a downstream
//! position is *which empty cells got which colour* together with a
//! *rotation state*, the number of clockwise quarter turns (mod 4) each
//! of the four quadrants has made since the root, 4⁴ = 256 states. Every
//! turn turns exactly one quadrant by one quarter, so after `j` turns only
//! the 128 states whose turn counts sum to `j` mod 2 occur: one node of
//! layer `j` (`j` stones placed since the root) stores one bit per such
//! state, a [`Half`] of 128 bits.
//!
//! Two questions are answered: "does the player to move win?" and "does
//! the player to move avoid losing?". The mover wins at layer `j` when
//! some move leaves the opponent a position it does not avoid losing at
//! layer `j + 1`, and avoids losing when some move leaves a position the
//! opponent does not win: the win question at the root needs only "not
//! lose" at the odd layers and "win" at the even ones, so a sweep per
//! question keeps one bit per state (16 bytes a node). One sweep carrying
//! both ([`Both`], 32 bytes a node) does the indexing, the fives and the
//! memory passes once for both questions and is about twice as fast; it
//! is what [`solve`] uses. Only two layers are kept at a time; at 18
//! empty cells the largest pairs would take 1.02 GB, so there the gather
//! moves the pages of the layer it reads, as they stop being read, to the
//! layer it writes (see [`Space::gather`]; peak about 0.62 GB).
//!
//! The fives of one colour for all 256 states come from per-quadrant
//! tables (which of the 4 turns of a quadrant's content cover a line's
//! cells in it), computed once per stone set of that colour, not per node.
//! A node's value for every state then needs only whole-word operations:
//! the union of the child's 8 rotations is a fixed bit permutation of
//! the 128-bit set (see [`spread`]).
//!
//! The cost depends only on the number of empty cells, not on how hard
//! the position is, which is what bounds the worst case where the
//! alpha-beta search of [`crate::solve`] can take minutes.
//!
//! The files, each one idea, lowest first (each uses only those above it,
//! but `sweep`, `spill` and `sizing`, which use one another: the refusal,
//! the layout of spilled layers, the windows):
//!
//! - `state`: rotation states and 128-bit sets of them, [`spread`];
//! - `tables`: the lookup tables built once per process, colex ranks and
//!   [`fives`];
//! - `entry`: what a node holds ([`Half`] or `Both`) and how it is
//!   turned, with the AVX2 form;
//! - `cpu`: whether the machine runs the AVX2/BMI2 code
//!   ([`fast_available`]);
//! - `pool`: resident regions kept between solves ([`set_pool_limit`]);
//! - `buf`: a layer's buffer of regions whose pages can move;
//! - `space`: one root's downstream space and its layers' layout;
//! - `kernels`: the turn and gather of one block, portable and AVX2;
//! - `sweep`: the passes over the layers, from the full board to the root,
//!   each gather in windows whose residency a `Residency` decides;
//! - `spill`: layers in files of a temporary directory when the memory
//!   limit is smaller than they need, the gathers' windows loading and
//!   writing them;
//! - `sizing`: what a solve takes, known before it starts, the [`plan`]
//!   it follows, and [`Refusal`];
//! - `solution`: a solved root and the values one move away
//!   ([`Solution`]);
//! - this file: the entry points ([`solve`], [`value`] and their
//!   variants).
//!
//! [`Space::gather`]: space::Space::gather

mod buf;
mod cpu;
mod entry;
mod kernels;
mod pool;
mod sizing;
mod solution;
mod space;
mod spill;
mod state;
mod sweep;
mod tables;
#[cfg(test)]
mod tests;

pub use cpu::fast_available;
pub use pool::{free_pool, pool_bytes, set_pool_limit, DEFAULT_POOL_BYTES};
pub use sizing::{
    bytes_text, cost, cost_for, effective_limit, memory, memory_for, memory_limit, plan,
    predicted_time, reaches, set_memory_limit, Memory, Plan, Refusal, DEFAULT_MEMORY_BYTES,
    MAX_EMPTY, MAX_EMPTY_ONE_SWEEP, SPILL_SLOWDOWN,
};
pub use solution::Solution;
pub use state::{locate, spread, state_at, Half, State};
pub use tables::fives;

use self::buf::Buf;
use self::entry::Both;
use self::pool::{Pool, POOL};
use self::space::{space, RELEASE_ABOVE, STREAM_ABOVE};
use self::state::has;
use self::sweep::{Kind, Stop};
use crate::board::bits_of;
use crate::game::Position;
use endgame_core::budget::Cancel;
use endgame_core::Value;
use std::time::Instant;

/// Solves `pos` and everything one move away by the retrograde solver;
/// `deadline`: give up when it passes. The memory limit is
/// [`memory_limit`] (see [`plan`]).
pub fn solve(pos: &Position, deadline: Option<Instant>) -> Result<Solution, Refusal> {
    solve_limited(pos, deadline, None, None)
}

/// [`solve`], also stopped (as [`Refusal::OutOfTime`]) when `cancel` is
/// set: checked with the deadline, every 64 blocks of a layer.
pub fn solve_stoppable(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: &Cancel,
) -> Result<Solution, Refusal> {
    solve_limited(pos, deadline, Some(cancel), None)
}

/// [`solve_stoppable`] within `memory` bytes (`None`: [`memory_limit`]):
/// refused before anything is allocated when even a sweep per question
/// does not fit ([`plan`]).
pub fn solve_limited(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    memory: Option<u64>,
) -> Result<Solution, Refusal> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let (one_sweep, spill) = if pos.outcome().is_some() {
        (true, None)
    } else {
        let (p, layout) = sizing::plan_for(n, effective_limit(memory))?;
        (p.one_sweep, layout)
    };
    solve_with(
        pos,
        deadline,
        cancel,
        Options {
            one_sweep,
            spill,
            ..Options::of(pos)
        },
    )
}

/// How [`solve_with`] runs (what [`solve`] uses, or variants the tests
/// compare with it).
#[derive(Clone)]
struct Options {
    /// Both questions in one sweep.
    one_sweep: bool,
    /// The layers that go to files, and the gathers' windows (both
    /// questions in one sweep).
    spill: Option<spill::Layout>,
    /// Where the spilled layers' directory goes.
    spill_parent: std::path::PathBuf,
    /// Move pages between layers whose pair takes more bytes.
    release_above: usize,
    /// The code compiled for AVX2 and BMI2, where available.
    fast: bool,
    /// Turn each node as it is gathered.
    fuse_turn: bool,
    /// Write layers of more bytes with non-temporal stores.
    stream_above: usize,
    /// Where the layers' regions come from and return to.
    pool: &'static Pool,
}

impl Options {
    /// What [`solve`] uses for `pos`.
    fn of(_pos: &Position) -> Options {
        Options {
            one_sweep: true,
            spill: None,
            spill_parent: sizing::spill_parent(),
            release_above: RELEASE_ABOVE,
            fast: fast_available(),
            fuse_turn: true,
            stream_above: STREAM_ABOVE,
            pool: &POOL,
        }
    }
}

/// [`solve`] as `opt` says.
fn solve_with(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    opt: Options,
) -> Result<Solution, Refusal> {
    let n = pos.empty().count_ones();
    if n > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let mut sol = Solution {
        root: *pos,
        empty: bits_of(pos.empty()).collect(),
        win0: [0; 2],
        not_lose0: [0; 2],
        win1: Vec::new(),
        not_lose1: Vec::new(),
        regions: 0,
        disk_written: 0,
        disk_read: 0,
    };
    if pos.outcome().is_some() {
        return Ok(sol);
    }
    let mut sp = space(pos);
    sp.release_above = opt.release_above;
    sp.fast = opt.fast && fast_available();
    sp.fuse_turn = opt.fuse_turn;
    sp.stream_above = opt.stream_above;
    let (one_sweep, pool) = (opt.one_sweep, opt.pool);
    assert!(one_sweep || opt.spill.is_none(), "spilled: one sweep");
    let stop = Stop::new(deadline, cancel);
    // Two layer buffers, as large as the largest layer.
    let most = (0..=sp.n()).map(|j| sp.size(j)).max().unwrap_or(1);
    let (win0, not_lose0, win1, not_lose1) = if one_sweep {
        // Both questions in one sweep: the fives and indices once.
        let mut a: Buf<Both> = Buf::new(most, pool);
        let mut b: Buf<Both> = Buf::new(most, pool);
        // The files, when spilled, in a directory removed when this ends.
        let mut files = match opt.spill {
            Some(layout) => Some(spill::Spill::new(layout, &opt.spill_parent)?),
            None => None,
        };
        let (e0, e1) = sp.sweep(Kind::Win, [&mut a, &mut b], &stop, files.as_mut())?;
        if let Some(f) = &files {
            // The most regions seen resident (pages are released as the
            // sweep goes).
            sol.regions = f.peak_seen;
            sol.disk_written = f.written;
            sol.disk_read = f.read;
        } else {
            sol.regions = a.resident_count() + b.resident_count();
        }
        (
            e0.0[0],
            e0.0[1],
            e1.iter().map(|e| e.0[0]).collect(),
            e1.iter().map(|e| e.0[1]).collect(),
        )
    } else {
        let mut a: Buf<Half> = Buf::new(most, pool);
        let mut b: Buf<Half> = Buf::new(most, pool);
        let (win0, not_lose1) = sp.sweep(Kind::Win, [&mut a, &mut b], &stop, None)?;
        let (not_lose0, win1) = sp.sweep(Kind::NotLose, [&mut a, &mut b], &stop, None)?;
        sol.regions = a.resident_count() + b.resident_count();
        (win0, not_lose0, win1, not_lose1)
    };
    sol.win0 = win0;
    sol.not_lose0 = not_lose0;
    sol.win1 = win1;
    sol.not_lose1 = not_lose1;
    Ok(sol)
}

/// The value of `pos` and of each child, as
/// [`crate::solve::Solver::value_and_children`] gives them, by the
/// retrograde solver. `deadline`: give up when it passes.
pub fn value_and_children(
    pos: &Position,
    deadline: Option<Instant>,
) -> Result<(Value, Vec<(Position, Value)>), Refusal> {
    solve(pos, deadline).map(|s| (s.value(), s.children()))
}

/// The value of `pos` for its player to move, by the retrograde solver.
/// Where the questions take a sweep each (the memory limit allows no
/// more, see [`plan`]), a position due to place needs only the "win"
/// sweep when it is won, then only the "not lose" one.
pub fn value(pos: &Position, deadline: Option<Instant>) -> Result<Value, Refusal> {
    value_limited(pos, deadline, None, None)
}

/// [`value`], also stopped when `cancel` is set (see [`solve_stoppable`]).
pub fn value_stoppable(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: &Cancel,
) -> Result<Value, Refusal> {
    value_limited(pos, deadline, Some(cancel), None)
}

/// [`value_stoppable`] within `memory` bytes (see [`solve_limited`]).
pub fn value_limited(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    memory: Option<u64>,
) -> Result<Value, Refusal> {
    if let Some(v) = pos.outcome() {
        return Ok(v);
    }
    if pos.empty().count_ones() > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    let split = !plan(pos, memory)?.one_sweep;
    value_with(pos, deadline, cancel, split)
}

/// [`value`], question by question (`split`) or from a whole [`solve`].
fn value_with(
    pos: &Position,
    deadline: Option<Instant>,
    cancel: Option<&Cancel>,
    split: bool,
) -> Result<Value, Refusal> {
    if let Some(v) = pos.outcome() {
        return Ok(v);
    }
    if pos.empty().count_ones() > MAX_EMPTY {
        return Err(Refusal::TooEarly);
    }
    if !split || pos.must_rotate() {
        let opt = Options {
            one_sweep: !split,
            ..Options::of(pos)
        };
        return solve_with(pos, deadline, cancel, opt).map(|s| s.value());
    }
    let sp = space(pos);
    let stop = Stop::new(deadline, cancel);
    let most = (0..=sp.n()).map(|j| sp.size(j)).max().unwrap_or(1);
    let mut a: Buf<Half> = Buf::new(most, &POOL);
    let mut b: Buf<Half> = Buf::new(most, &POOL);
    for kind in [Kind::Win, Kind::NotLose] {
        let (root, _) = sp.sweep(kind, [&mut a, &mut b], &stop, None)?;
        if has(&root, [0; 4]) {
            return Ok(if kind == Kind::Win {
                Value::Win
            } else {
                Value::Draw
            });
        }
    }
    Ok(Value::Loss)
}
