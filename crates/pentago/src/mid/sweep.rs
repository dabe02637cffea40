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
use super::space::Space;
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
    /// asks it when any of its children does. With `release`, the blocks
    /// of `cur` are computed in [`GATHER_WINDOWS`] windows in rank order;
    /// the regions of `next` that no later block reads become spare after
    /// each window, and their pages move to the regions of `cur` the next
    /// window writes ([`Buf::move_region`]), so that the two layers are
    /// never both whole in memory. With `turn`, each node is turned as it
    /// is gathered ([`Space::turn`] of layer `j - 1` for that question),
    /// one pass over the layer instead of two.
    fn gather<E: Entry>(
        &self,
        j: u32,
        next: &mut Buf<E>,
        cur: &mut Buf<E>,
        stop: &Stop,
        release: bool,
        turn: Option<Kind>,
    ) {
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
        let child_block = if first_moves {
            self.binom(n - x - 1, y)
        } else {
            self.binom(n - x, y + 1)
        };
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
        // First mover, releasing: the huge pages of `next` (entries
        // `k·per..(k + 1)·per`) by the last block of `cur` that reads
        // them. A child set `a'` is read by every `a'` less one stone, the
        // last of them in colex order being `a'` less its lowest stone.
        let per = Buf::<E>::PER;
        let last_reader = if release && first_moves {
            self.last_readers(j, per)
        } else {
            Vec::new()
        };
        // Regions of `next` no longer read, whose pages can move to `cur`.
        let mut spare: Vec<usize> = Vec::new();
        let mut released = 0;
        // Regions of `cur` below this are written or provided for.
        let mut provided = 0;
        let windows = if release {
            gather_windows(len * std::mem::size_of::<E>())
        } else {
            1
        };
        for w in 0..windows {
            let (s, e) = (w * xs.len() / windows, (w + 1) * xs.len() / windows);
            // The regions this window writes: pages of `next` no longer
            // read first, else the pool's, else fresh ones.
            let end = (e * block).div_ceil(per);
            let mut fresh = Vec::new();
            for r in provided..end {
                if !cur.resident[r] {
                    while let Some(k) = spare.pop() {
                        if next.move_region(k, cur, r) {
                            break;
                        }
                    }
                    if !cur.resident[r] && !cur.provide(r) {
                        fresh.push(r);
                    }
                }
            }
            cur.populate(&fresh);
            provided = provided.max(end);
            let next_all = &next.as_slice()[..next_len];
            cur.as_mut_slice()[s * block..e * block]
                .par_chunks_mut(block.max(1))
                .zip(xs[s..e].par_iter().enumerate())
                .for_each(|(out, (i, &a))| {
                    let ia = s + i;
                    if ia % 64 == 0 && stop.check() {
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
            if !release {
                continue;
            }
            if first_moves {
                while released < last_reader.len() && last_reader[released].0 < e {
                    spare.push(last_reader[released].1);
                    released += 1;
                }
            } else {
                // The second mover's children of block `a` are block `a`.
                let upto = e * child_block / per;
                spare.extend(released..upto);
                released = released.max(upto);
            }
        }
        debug_assert!(len <= cur.len);
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
    /// does, on the buffers' resident flags alone (nothing allocated):
    /// `entry` bytes a node. Returns how many regions came from outside
    /// the two buffers (the pool or fresh pages).
    fn gather_regions(
        &self,
        j: u32,
        entry: usize,
        next: &mut [bool],
        cur: &mut [bool],
        release: bool,
    ) -> usize {
        let n = self.n();
        let (x, y) = self.counts(j);
        let first_moves = j.is_multiple_of(2);
        let block = self.binom(n - x, y);
        let child_block = if first_moves {
            self.binom(n - x - 1, y)
        } else {
            self.binom(n - x, y + 1)
        };
        let xs = self.binom(n, x);
        let len = self.size(j);
        let per = REGION_BYTES / entry;
        let last_reader = if release && first_moves {
            self.last_readers(j, per)
        } else {
            Vec::new()
        };
        let (mut spare, mut released, mut provided, mut added) = (Vec::new(), 0, 0, 0);
        let windows = if release {
            gather_windows(len * entry)
        } else {
            1
        };
        for w in 0..windows {
            let e = (w + 1) * xs / windows;
            let end = (e * block).div_ceil(per);
            for slot in &mut cur[provided.min(end)..end] {
                if !*slot {
                    while let Some(k) = spare.pop() {
                        if next[k] {
                            next[k] = false;
                            *slot = true;
                            break;
                        }
                    }
                    if !*slot {
                        *slot = true;
                        added += 1;
                    }
                }
            }
            provided = provided.max(end);
            if !release {
                continue;
            }
            if first_moves {
                while released < last_reader.len() && last_reader[released].0 < e {
                    spare.push(last_reader[released].1);
                    released += 1;
                }
            } else {
                let upto = e * child_block / per;
                spare.extend(released..upto);
                released = released.max(upto);
            }
        }
        added
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
                if ia % 64 == 0 && stop.check() {
                    return;
                }
                run(self, &ctx, out, ia, a);
            });
    }

    /// One sweep: layer 0's answers to `kind` (for the root's states of
    /// parity `parity0`) and layer 1's answers to `kind.other()`, or
    /// `None` when stopped.
    pub(super) fn sweep<E: Entry>(
        &self,
        kind: Kind,
        bufs: [&mut Buf<E>; 2],
        stop: &Stop,
    ) -> Option<(E, Vec<E>)> {
        let n = self.n();
        if n == 0 {
            return Some((E::ZERO, Vec::new()));
        }
        let kind_at = |j: u32| {
            if j.is_multiple_of(2) {
                kind
            } else {
                kind.other()
            }
        };
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
            let len = self.size(j);
            let bytes = (len + self.size(j + 1)) * std::mem::size_of::<E>();
            // The turn into layer `j - 1` in the same pass, but for layer
            // 1, which the solution keeps unturned.
            let fused = (j >= 2 && self.fuse_turn).then(|| kind_at(j - 1));
            self.gather(j, next, cur, stop, bytes > self.release_above, fused);
            if stop.check() {
                return None;
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
            return None;
        }
        Some((next.as_slice()[0], layer1))
    }
}
