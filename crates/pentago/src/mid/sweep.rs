//! The sweep over a root's layers, from the full board back to the root:
//! the turn of a layer (fives and rotations), the gather of the layer
//! above (each node ORs its children) with the pages of the layer read
//! moved, as they stop being read, to the layer written, the stopping
//! signal, and the same gathers' region bookkeeping run without
//! allocating, which predicts a solve's peak memory.

use super::buf::Buf;
use super::entry::Entry;
use super::kernels::{pick_gather, pick_turn, GatherCtx, GatherFn, TurnCtx};
use super::pool::REGION_BYTES;
use super::sizing::Refusal;
use super::space::Space;
use super::spill::Spill;
use super::state::Line;
use super::tables::{rank, subsets};
use crate::board::bits_of;
use endgame_core::budget::Cancel;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The fewest windows of a releasing gather.
const GATHER_WINDOWS: usize = 64;

/// A releasing gather uses windows of at most about this many bytes of the
/// layer it writes (more windows than [`GATHER_WINDOWS`] from 19 empty
/// cells on): what is written in a window but not yet released from the
/// layer read is what the peak adds to the largest layer.
const WINDOW_BYTES: usize = 16 << 20;

/// The windows of a releasing gather writing `bytes`.
fn gather_windows(bytes: usize) -> usize {
    GATHER_WINDOWS.max(bytes / WINDOW_BYTES)
}

/// Which question a sweep's layer answers for its player to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Win,
    NotLose,
}

impl Kind {
    fn other(self) -> Kind {
        match self {
            Kind::Win => Kind::NotLose,
            Kind::NotLose => Kind::Win,
        }
    }
}

/// The stopping signal shared by the parallel workers.
pub(super) struct Stop {
    deadline: Option<Instant>,
    /// Set by whoever may want the solve to stop (a client that left).
    cancel: Option<Cancel>,
    stopped: AtomicBool,
}

impl Stop {
    pub(super) fn new(deadline: Option<Instant>, cancel: Option<&Cancel>) -> Stop {
        Stop {
            deadline,
            cancel: cancel.cloned(),
            stopped: AtomicBool::new(false),
        }
    }

    /// Whether block `i` of a parallel pass is to be skipped: once
    /// stopped, every block is (a flag read); the clock and the cancel
    /// token are read every 64 blocks.
    fn skip(&self, i: usize) -> bool {
        if i.is_multiple_of(64) {
            self.check()
        } else {
            self.stopped.load(Ordering::Relaxed)
        }
    }

    fn check(&self) -> bool {
        if self.stopped.load(Ordering::Relaxed) {
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
        {
            self.stopped.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }
}

/// How a gather ([`Space::gather`]) makes resident what each window reads
/// and writes, and releases what no later window needs.
pub(super) trait Residency<E: Entry> {
    /// The windows: window `w` computes the blocks `bounds[w]..bounds[w +
    /// 1]` of the layer written.
    fn bounds(&self) -> &[usize];
    /// Before window `w`: what it reads of `next` and writes of `cur`
    /// made resident.
    fn before(&mut self, w: usize, next: &mut Buf<E>, cur: &mut Buf<E>) -> Result<(), Refusal>;
    /// After window `w` wrote its blocks.
    fn after(&mut self, w: usize, next: &mut Buf<E>, cur: &mut Buf<E>) -> Result<(), Refusal>;
}

/// Both layers of a gather in memory. With `release`, the blocks of the
/// layer written are computed in [`gather_windows`] windows in rank
/// order; the regions of `next` that no later block reads become spare
/// after each window, and their pages move to the regions of `cur` the
/// next window writes ([`Buf::move_region`]), so that the two layers are
/// never both whole in memory. Regions of `cur` no page of `next` can
/// fill come from the pool, else fresh.
pub(super) struct Moving {
    bounds: Vec<usize>,
    release: bool,
    first_moves: bool,
    /// Entries per region, per block of the layer written and read.
    per: usize,
    block: usize,
    child_block: usize,
    /// First mover: the regions of `next` by the last block that reads
    /// them ([`Space::last_readers`]).
    last_reader: Vec<(usize, usize)>,
    /// Regions of `next` no longer read, whose pages can move to `cur`.
    spare: Vec<usize>,
    released: usize,
    /// Regions of `cur` below this are written or provided for.
    provided: usize,
}

impl Moving {
    /// The gather of layer `j` of `sp` with `entry`-byte nodes.
    pub(super) fn new(sp: &Space, j: u32, entry: usize, release: bool) -> Moving {
        let n = sp.n();
        let (x, y) = sp.counts(j);
        let per = REGION_BYTES / entry;
        let first_moves = j.is_multiple_of(2);
        let blocks = sp.binom(n, x);
        let windows = if release {
            gather_windows(sp.size(j) * entry)
        } else {
            1
        };
        Moving {
            bounds: (0..=windows).map(|w| w * blocks / windows).collect(),
            release,
            first_moves,
            per,
            block: sp.binom(n - x, y),
            child_block: sp.child_block(j),
            last_reader: if release && first_moves {
                sp.last_readers(j, per)
            } else {
                Vec::new()
            },
            spare: Vec::new(),
            released: 0,
            provided: 0,
        }
    }

    /// Makes the regions of `cur` window `w` writes resident in `pair`:
    /// pages of spare regions of `next` first, else from outside.
    fn provide(&mut self, w: usize, pair: &mut impl Pair) {
        let end = (self.bounds[w + 1] * self.block).div_ceil(self.per);
        for r in self.provided.min(end)..end {
            if pair.cur_resident(r) {
                continue;
            }
            let mut moved = false;
            while let Some(k) = self.spare.pop() {
                if pair.take(k, r) {
                    moved = true;
                    break;
                }
            }
            if !moved {
                pair.outside(r);
            }
        }
        self.provided = self.provided.max(end);
    }

    /// After window `w`: the regions of `next` no later block reads
    /// become spare.
    fn retire(&mut self, w: usize) {
        if !self.release {
            return;
        }
        let e = self.bounds[w + 1];
        if self.first_moves {
            while self.released < self.last_reader.len() && self.last_reader[self.released].0 < e {
                self.spare.push(self.last_reader[self.released].1);
                self.released += 1;
            }
        } else {
            // The second mover's children of block `a` are block `a`.
            let upto = e * self.child_block / self.per;
            self.spare.extend(self.released..upto);
            self.released = self.released.max(upto);
        }
    }
}

/// The two layers' regions as a [`Moving`] gather sees them: the real
/// buffers ([`Bufs`]), or their resident flags alone ([`Flags`], which
/// predicts the peak without allocating).
pub(super) trait Pair {
    fn cur_resident(&self, r: usize) -> bool;
    /// Moves the pages of region `k` of `next` (no longer read) to region
    /// `r` of `cur`: whether it moved any.
    fn take(&mut self, k: usize, r: usize) -> bool;
    /// Makes region `r` of `cur` resident from outside the two layers
    /// (the pool or fresh pages).
    fn outside(&mut self, r: usize);
}

/// The real buffers of a gather, and the regions to fill with fresh pages.
struct Bufs<'a, E: Entry> {
    next: &'a mut Buf<E>,
    cur: &'a mut Buf<E>,
    fresh: Vec<usize>,
}

impl<E: Entry> Pair for Bufs<'_, E> {
    fn cur_resident(&self, r: usize) -> bool {
        self.cur.resident[r]
    }

    fn take(&mut self, k: usize, r: usize) -> bool {
        self.next.move_region(k, self.cur, r)
    }

    fn outside(&mut self, r: usize) {
        if !self.cur.provide(r) {
            self.fresh.push(r);
        }
    }
}

/// The resident flags of a gather's two layers, and how many regions
/// came from outside them.
pub(super) struct Flags<'a> {
    pub(super) next: &'a mut [bool],
    pub(super) cur: &'a mut [bool],
    pub(super) added: usize,
}

impl Pair for Flags<'_> {
    fn cur_resident(&self, r: usize) -> bool {
        self.cur[r]
    }

    fn take(&mut self, k: usize, r: usize) -> bool {
        if !self.next[k] || self.cur[r] {
            return false;
        }
        self.next[k] = false;
        self.cur[r] = true;
        true
    }

    fn outside(&mut self, r: usize) {
        self.cur[r] = true;
        self.added += 1;
    }
}

impl<E: Entry> Residency<E> for Moving {
    fn bounds(&self) -> &[usize] {
        &self.bounds
    }

    fn before(&mut self, w: usize, next: &mut Buf<E>, cur: &mut Buf<E>) -> Result<(), Refusal> {
        let mut pair = Bufs {
            next,
            cur,
            fresh: Vec::new(),
        };
        self.provide(w, &mut pair);
        let fresh = pair.fresh;
        cur.populate(&fresh);
        Ok(())
    }

    fn after(&mut self, w: usize, _next: &mut Buf<E>, _cur: &mut Buf<E>) -> Result<(), Refusal> {
        self.retire(w);
        Ok(())
    }
}

impl Space {
    /// What turning layer `j + 1` into answers of layer `j` needs, from
    /// [`Space::fives_at`]`(j + 1)`.
    fn turn_ctx<'a>(&self, j: u32, fx: &'a [Line], fy: &'a [Line], bs: &'a [u32]) -> TurnCtx<'a> {
        // The parities of layer j and j + 1.
        let pj = (self.parity0 + j as usize) & 1;
        TurnCtx {
            fx,
            fy,
            bs,
            mask: (1u32 << self.n()) - 1,
            pj,
            pk: pj ^ 1,
        }
    }

    /// Layer `j` from layer `j + 1` already turned into per-node sets
    /// "the mover at layer `j` gets what it asks by placing here": a node
    /// asks it when any of its children does. The blocks of `cur` are
    /// computed in windows in rank order, `res` making resident, before
    /// each window, what it reads of `next` and writes of `cur`, and
    /// releasing, after it, what no later window needs ([`Moving`]: pages
    /// of `next` moved to `cur` as they stop being read, so that the two
    /// layers are never both whole in memory; or the spilled layers'
    /// windows, loaded from and written to files: `spill.rs`). With
    /// `turn`, each node is turned as it is gathered ([`Space::turn`] of
    /// layer `j - 1` for that question), one pass over the layer instead
    /// of two.
    pub(super) fn gather<E: Entry>(
        &self,
        j: u32,
        next: &mut Buf<E>,
        cur: &mut Buf<E>,
        stop: &Stop,
        turn: Option<Kind>,
        res: &mut dyn Residency<E>,
    ) -> Result<(), Refusal> {
        let n = self.n();
        let (x, y) = self.counts(j);
        let first_moves = j.is_multiple_of(2);
        let fives = turn.map(|_| self.fives_at(j));
        let turn_ctx = fives
            .as_ref()
            .map(|(fx, fy, bs)| self.turn_ctx(j - 1, fx, fy, bs));
        let f = self.fast;
        let run: GatherFn<E> = match (first_moves, turn) {
            (true, None) => pick_gather::<E, true, false, false>(f),
            (false, None) => pick_gather::<E, false, false, false>(f),
            (true, Some(Kind::Win)) => pick_gather::<E, true, true, true>(f),
            (false, Some(Kind::Win)) => pick_gather::<E, false, true, true>(f),
            (true, Some(Kind::NotLose)) => pick_gather::<E, true, true, false>(f),
            (false, Some(Kind::NotLose)) => pick_gather::<E, false, true, false>(f),
        };
        let block = self.binom(n - x, y);
        let child_block = self.child_block(j);
        let xs = subsets(n, x);
        let bs = subsets(n - x, y);
        let free_all = (1u32 << (n - x)) - 1;
        // Where each node's children are ([`GatherCtx::offs`]).
        let kids = (n - x - y) as usize;
        assert!(child_block <= 1 << 16, "child offsets in 16 bits");
        let mut offs: Vec<u32> = Vec::with_capacity(bs.len() * kids);
        if first_moves {
            // The `b` without `p`, in colex order, are exactly the child
            // block's second-player sets in colex order (drop the bit
            // `p`), so a counter per `p` gives the offset.
            let mut count = [0u32; 32];
            for &b in &bs {
                for p in bits_of((free_all & !b) as u64) {
                    offs.push((p as u32) << 16 | count[p as usize]);
                    count[p as usize] += 1;
                }
            }
        } else {
            // The ranks of the node's set with each free cell added.
            for &b in &bs {
                offs.extend(bits_of((free_all & !b) as u64).map(|p| rank(b | 1 << p) as u32));
            }
        }
        // What the gather's unchecked reads rely on: offsets inside a child
        // block, cells among the free ones.
        assert_eq!(offs.len(), bs.len() * kids);
        assert!(offs
            .iter()
            .all(|&o| ((o & 0xffff) as usize) < child_block && (o >> 16) < n - x));
        let len = self.size(j);
        let next_len = self.size(j + 1);
        let stream = len * std::mem::size_of::<E>() > self.stream_above;
        let bounds = res.bounds().to_vec();
        for w in 0..bounds.len() - 1 {
            let (s, e) = (bounds[w], bounds[w + 1]);
            res.before(w, next, cur)?;
            let next_all = &next.as_slice()[..next_len];
            cur.as_mut_slice()[s * block..e * block]
                .par_chunks_mut(block.max(1))
                .zip(xs[s..e].par_iter().enumerate())
                .for_each(|(out, (i, &a))| {
                    let ia = s + i;
                    if stop.skip(ia) {
                        return;
                    }
                    let g = GatherCtx {
                        n,
                        bs: &bs,
                        next: next_all,
                        child_block,
                        offs: &offs,
                        kids,
                        stream,
                        turn: turn_ctx.as_ref(),
                        sp: self,
                    };
                    run(&g, out, ia, a);
                });
            cur.mark_written(s * block, e * block);
            if stop.check() {
                return Err(Refusal::OutOfTime);
            }
            res.after(w, next, cur)?;
        }
        debug_assert!(len <= cur.len);
        Ok(())
    }

    /// Nodes per block of layer `j + 1`, which the gather of layer `j`
    /// reads.
    pub(super) fn child_block(&self, j: u32) -> usize {
        let n = self.n();
        let (x, y) = self.counts(j);
        if j.is_multiple_of(2) {
            self.binom(n - x - 1, y)
        } else {
            self.binom(n - x, y + 1)
        }
    }

    /// A first mover's gather of layer `j`: the regions of layer `j + 1`
    /// (`per` entries each) by the last block of layer `j` that reads
    /// them, as `(block, region)` in that order. A child set `a'` is read
    /// by every `a'` less one stone, the last of them in colex order being
    /// `a'` less its lowest stone.
    fn last_readers(&self, j: u32, per: usize) -> Vec<(usize, usize)> {
        let n = self.n();
        let (x, y) = self.counts(j);
        let child_block = self.binom(n - x - 1, y);
        if child_block == 0 {
            return Vec::new();
        }
        let mut last = vec![0usize; self.size(j + 1).div_ceil(per)];
        for (i, &a) in subsets(n, x + 1).iter().enumerate() {
            let l = rank(a & a.wrapping_sub(1));
            let (lo, hi) = (i * child_block / per, ((i + 1) * child_block - 1) / per);
            for slot in &mut last[lo..=hi] {
                *slot = (*slot).max(l);
            }
        }
        let mut out: Vec<(usize, usize)> =
            last.into_iter().enumerate().map(|(k, l)| (l, k)).collect();
        out.sort_unstable();
        out
    }

    /// The regions [`Space::gather`] of layer `j` makes resident, as it
    /// does ([`Moving`]), on the buffers' resident flags alone (nothing
    /// allocated): `entry` bytes a node. Returns how many regions came
    /// from outside the two buffers (the pool or fresh pages).
    fn gather_regions(
        &self,
        j: u32,
        entry: usize,
        next: &mut [bool],
        cur: &mut [bool],
        release: bool,
    ) -> usize {
        let mut m = Moving::new(self, j, entry, release);
        let mut flags = Flags {
            next,
            cur,
            added: 0,
        };
        for w in 0..m.bounds.len() - 1 {
            m.provide(w, &mut flags);
            m.retire(w);
        }
        flags.added
    }

    /// The most regions of `entry`-byte nodes [`Space::sweep`] holds at
    /// once over `sweeps` sweeps on the same two buffers (as
    /// [`solve_with`] runs them): regions only ever move between the two
    /// buffers or join them, so the peak is the count at the end.
    ///
    /// [`solve_with`]: super::solve_with
    pub(super) fn peak_regions(&self, entry: usize, sweeps: usize, release_above: usize) -> usize {
        let n = self.n();
        let per = REGION_BYTES / entry;
        let most = (0..=n).map(|j| self.size(j)).max().unwrap_or(1);
        let regions = (most * entry).div_ceil(REGION_BYTES);
        let (mut a, mut b) = (vec![false; regions], vec![false; regions]);
        let mut total = 0;
        for _ in 0..sweeps {
            let (mut next, mut cur) = (&mut a, &mut b);
            for r in next.iter_mut().take(self.size(n).div_ceil(per)) {
                if !*r {
                    *r = true;
                    total += 1;
                }
            }
            for j in (0..n).rev() {
                let bytes = (self.size(j) + self.size(j + 1)) * entry;
                total += self.gather_regions(j, entry, next, cur, bytes > release_above);
                std::mem::swap(&mut next, &mut cur);
            }
        }
        total
    }

    /// Turns layer `j + 1` (answers to `kind.other()` for its mover, or
    /// nothing when the board is full) into, per node, the states of
    /// layer `j` from which placing the node's last stone answers `kind`
    /// for the mover at layer `j`: a five made by the placement, or a
    /// rotation to a state where the game ends well for it or the
    /// opponent's answer is no.
    fn turn<E: Entry>(&self, j: u32, layer: &mut [E], kind: Kind, stop: &Stop) {
        let n = self.n();
        let full = j + 1 == n;
        let (x, y) = self.counts(j + 1);
        let block = self.binom(n - x, y);
        let xs = subsets(n, x);
        let (fx, fy, bs) = self.fives_at(j + 1);
        let first_moved = j.is_multiple_of(2);
        let ctx = self.turn_ctx(j, &fx, &fy, &bs);
        let f = self.fast;
        let run = match (kind, full, first_moved) {
            (Kind::Win, false, false) => pick_turn::<E, true, false, false>(f),
            (Kind::Win, false, true) => pick_turn::<E, true, false, true>(f),
            (Kind::Win, true, false) => pick_turn::<E, true, true, false>(f),
            (Kind::Win, true, true) => pick_turn::<E, true, true, true>(f),
            (Kind::NotLose, false, false) => pick_turn::<E, false, false, false>(f),
            (Kind::NotLose, false, true) => pick_turn::<E, false, false, true>(f),
            (Kind::NotLose, true, false) => pick_turn::<E, false, true, false>(f),
            (Kind::NotLose, true, true) => pick_turn::<E, false, true, true>(f),
        };
        layer
            .par_chunks_mut(block.max(1))
            .zip(xs.par_iter().enumerate())
            .for_each(|(out, (ia, &a))| {
                if stop.skip(ia) {
                    return;
                }
                run(self, &ctx, out, ia, a);
            });
    }

    /// One sweep: layer 0's answers to `kind` (for the root's states of
    /// parity `parity0`) and layer 1's answers to `kind.other()`, or why
    /// not (stopped, or a file of `spill` failed). With `spill`, the
    /// layers its layout puts on disk go through files.
    pub(super) fn sweep<E: Entry>(
        &self,
        kind: Kind,
        bufs: [&mut Buf<E>; 2],
        stop: &Stop,
        mut spill: Option<&mut Spill>,
    ) -> Result<(E, Vec<E>), Refusal> {
        let n = self.n();
        if n == 0 {
            return Ok((E::ZERO, Vec::new()));
        }
        let kind_at = |j: u32| {
            if j.is_multiple_of(2) {
                kind
            } else {
                kind.other()
            }
        };
        let entry = std::mem::size_of::<E>();
        let [mut next, mut cur] = bufs;
        let top = self.size(n);
        for r in 0..top.div_ceil(Buf::<E>::PER) {
            next.provide(r);
        }
        next.as_mut_slice()[..top].fill(E::ZERO);
        next.mark_written(0, top);
        self.turn(n - 1, &mut next.as_mut_slice()[..top], kind_at(n - 1), stop);
        let mut layer1 = Vec::new();
        for j in (0..n).rev() {
            // Stopped (here or in the turn before): no layer's set-up
            // (fives, offsets) after the deadline.
            if stop.check() {
                return Err(Refusal::OutOfTime);
            }
            let len = self.size(j);
            let bytes = (len + self.size(j + 1)) * entry;
            // The turn into layer `j - 1` in the same pass, but for layer
            // 1, which the solution keeps unturned.
            let fused = (j >= 2 && self.fuse_turn).then(|| kind_at(j - 1));
            match spill.as_deref_mut().filter(|s| s.spills(j)) {
                Some(s) => {
                    // Spilled layers are turned as gathered (never whole
                    // in memory for a pass of their own).
                    assert!(fused.is_some(), "a spilled layer is turned as gathered");
                    let mut res = s.gather_windows(self, j, entry)?;
                    self.gather(j, next, cur, stop, fused, &mut res)?;
                }
                None => {
                    let mut res = Moving::new(self, j, entry, bytes > self.release_above);
                    self.gather(j, next, cur, stop, fused, &mut res)?;
                }
            }
            if let Some(s) = spill.as_deref_mut() {
                s.saw(next.resident_count() + cur.resident_count());
                // The layer read is done with: its pages and its file go
                // (what the layout counted).
                for r in 0..next.resident.len() {
                    next.release(r);
                }
                s.remove(j + 1);
            }
            if j == 1 {
                layer1 = cur.as_slice()[..len].to_vec();
            }
            if j > 0 && fused.is_none() {
                self.turn(j - 1, &mut cur.as_mut_slice()[..len], kind_at(j - 1), stop);
            }
            std::mem::swap(&mut next, &mut cur);
        }
        if stop.check() {
            return Err(Refusal::OutOfTime);
        }
        Ok((next.as_slice()[0], layer1))
    }
}
