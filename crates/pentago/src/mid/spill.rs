//! Spilling layers to disk: a root whose layers do not fit the memory
//! limit, even a sweep per question, is solved with its large layers in
//! files of a temporary directory, each gather loading, window by
//! window, the child blocks it reads and writing the blocks it finished.
//!
//! The layout of a layer on disk is the one in memory (blocks in colex
//! rank order), so a file region is a buffer region. The second mover's
//! children of block `a` are block `a` of the layer below: its gather
//! streams through both layers once. The first mover's children of
//! block `a` are the blocks `a ∪ {p}`: near `a` in rank for the low cells
//! `p`, far for the high ones, so a window of consecutive blocks reads a
//! few runs of the child layer, and a child block is read again by
//! windows far apart (the disk figures: the README's benchmark section).
//! Windows are made as long as the memory limit allows, by the same
//! bookkeeping before the solve (which predicts the peak and refuses a
//! limit too small before anything is allocated or written) and during
//! it.
//!
//! The directory is removed when the solve ends, however it ends (a
//! second Ctrl-C too: it is a registered scratch directory); the files
//! are the solve's scratch, never a result.

use super::buf::Buf;
use super::entry::Entry;
use super::pool::REGION_BYTES;
use super::sizing::Refusal;
use super::space::Space;
use super::sweep::Residency;
use super::tables::{rank, subsets};
use crate::board::bits_of;
use endgame_core::scratch::TempDir;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Where a spilled solve's layers go, and how each gather's windows run:
/// computed from the number of empty cells, the node size and the memory
/// for layers alone, without allocating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// Per layer `k`, whether it lives in a file.
    pub(super) on_disk: Vec<bool>,
    /// Per gather `j` touching a file, its windows' bounds in blocks of
    /// layer `j` (empty for gathers between layers in memory).
    pub(super) bounds: Vec<Vec<usize>>,
    /// The most layer regions resident at once.
    pub(super) peak_regions: usize,
    /// The most bytes on disk at once (two layers' files).
    pub(super) disk_bytes: u64,
}

/// Regions of `bytes` bytes.
fn regions(bytes: usize) -> usize {
    bytes.div_ceil(REGION_BYTES)
}

impl Space {
    /// Marks in `need` (regions of layer `j + 1`, `per` entries each) the
    /// regions the gather of block `ia` (set `a`) of layer `j` reads,
    /// listing those newly marked in `list`: what [`gather_block`] reads
    /// (child block `ia` for the second mover; the blocks of `a` with
    /// each free cell added for the first).
    ///
    /// [`gather_block`]: super::kernels
    fn mark_children(
        &self,
        j: u32,
        ia: usize,
        a: u32,
        per: usize,
        need: &mut [bool],
        list: &mut Vec<usize>,
    ) {
        let cb = self.child_block(j);
        let mut mark = |child: usize| {
            let (lo, hi) = (child * cb / per, ((child + 1) * cb).div_ceil(per));
            for (r, slot) in need.iter_mut().enumerate().take(hi).skip(lo) {
                if !*slot {
                    *slot = true;
                    list.push(r);
                }
            }
        };
        if j.is_multiple_of(2) {
            let comp = !a & ((1u32 << self.n()) - 1);
            for p in bits_of(comp as u64) {
                mark(rank(a | 1 << p));
            }
        } else {
            mark(ia);
        }
    }

    /// The layout of a spilled solve with `entry`-byte nodes and
    /// `budget` bytes for the layers: a layer of more than an eighth of
    /// the budget lives on disk (but the full board's and layers 0 and 1,
    /// which the sweep keeps in memory: small); each gather touching a
    /// file gets windows as long as its child regions and the regions it
    /// writes fit the budget. `Err` with what one window needs (a lower
    /// bound of a budget that would do) when even one block does not fit.
    pub(super) fn spill_layout(&self, entry: usize, budget: u64) -> Result<Layout, u64> {
        let n = self.n();
        let per = REGION_BYTES / entry;
        let limit = (budget / REGION_BYTES as u64) as usize;
        let on_disk: Vec<bool> = (0..=n)
            .map(|k| k >= 2 && k < n && (self.size(k) * entry) as u64 > budget / 8)
            .collect();
        let mut bounds = vec![Vec::new(); n as usize];
        let mut peak = regions(self.size(n) * entry);
        let mut disk = 0u64;
        for j in (0..n).rev() {
            let (src, dst) = (on_disk[j as usize + 1], on_disk[j as usize]);
            let (len, next_len) = (self.size(j), self.size(j + 1));
            let file = |k: u32| (self.size(k) * entry) as u64;
            disk = disk.max(if src { file(j + 1) } else { 0 } + if dst { file(j) } else { 0 });
            if !src && !dst {
                // Both in memory (the gather moves pages between them).
                peak = peak.max(regions((len + next_len) * entry));
                continue;
            }
            let (x, y) = self.counts(j);
            let block = self.binom(n - x, y);
            let xs = subsets(n, x);
            let mut need = vec![false; regions(next_len * entry)];
            let mut list = Vec::new();
            let resident_next = if src { 0 } else { need.len() };
            // Regions of the layer written that a window over blocks
            // `s..e` holds: its own (and a partial one before), or every
            // one from the start when the layer stays in memory.
            let out = |s: usize, e: usize| {
                let lo = if dst { s * block / per } else { 0 };
                (e * block).div_ceil(per) - lo
            };
            let mut b = vec![0usize];
            let mut s = 0;
            for (ia, &a) in xs.iter().enumerate() {
                if src {
                    self.mark_children(j, ia, a, per, &mut need, &mut list);
                }
                let held =
                    |list: &Vec<usize>, s: usize| list.len() + resident_next + out(s, ia + 1);
                if held(&list, s) > limit && ia > s {
                    // Close the window before this block.
                    for &r in &list {
                        need[r] = false;
                    }
                    list.clear();
                    b.push(ia);
                    s = ia;
                    if src {
                        self.mark_children(j, ia, a, per, &mut need, &mut list);
                    }
                }
                let h = held(&list, s);
                if h > limit {
                    return Err(h as u64 * REGION_BYTES as u64);
                }
                peak = peak.max(h);
            }
            b.push(xs.len());
            bounds[j as usize] = b;
        }
        Ok(Layout {
            on_disk,
            bounds,
            peak_regions: peak,
            disk_bytes: disk,
        })
    }
}

/// A spilled solve's files and what it moved through them.
pub(super) struct Spill {
    pub(super) layout: Layout,
    dir: TempDir,
    /// The file of each layer on disk while it is needed.
    files: Vec<Option<File>>,
    /// Bytes written to and read from the files.
    pub(super) written: u64,
    pub(super) read: u64,
    /// The most layer regions seen resident at once (after each window
    /// was made resident, and after each gather).
    pub(super) peak_seen: usize,
}

fn disk_error(e: std::io::Error) -> Refusal {
    Refusal::DiskFailed { kind: e.kind() }
}

impl Spill {
    /// The files of a solve following `layout`, in a new directory under
    /// `parent`.
    pub(super) fn new(layout: Layout, parent: &Path) -> Result<Spill, Refusal> {
        let files = (0..layout.on_disk.len()).map(|_| None).collect();
        Ok(Spill {
            layout,
            dir: TempDir::new(parent, "endgame-pentago").map_err(disk_error)?,
            files,
            written: 0,
            read: 0,
            peak_seen: 0,
        })
    }

    /// Whether the gather of layer `j` touches a file.
    pub(super) fn spills(&self, j: u32) -> bool {
        self.layout.on_disk[j as usize] || self.layout.on_disk[j as usize + 1]
    }

    /// Records `regions` resident at once.
    pub(super) fn saw(&mut self, regions: usize) {
        self.peak_seen = self.peak_seen.max(regions);
    }

    /// Drops the file of layer `k` (its layer no longer needed).
    pub(super) fn remove(&mut self, k: u32) {
        if self.files[k as usize].take().is_some() {
            let _ = std::fs::remove_file(self.dir.path().join(format!("layer-{k}")));
        }
    }

    /// The windows of the gather of layer `j` of `sp`, reading layer `j +
    /// 1` from its file when on disk and writing layer `j` to a new one
    /// when on disk.
    pub(super) fn gather_windows<'a>(
        &'a mut self,
        sp: &'a Space,
        j: u32,
        entry: usize,
    ) -> Result<Spilling<'a>, Refusal> {
        if self.layout.on_disk[j as usize] {
            let path = self.dir.path().join(format!("layer-{j}"));
            self.files[j as usize] = Some(File::create_new(path).map_err(disk_error)?);
        }
        let (x, y) = sp.counts(j);
        let n = sp.n();
        let per = REGION_BYTES / entry;
        let next_len = sp.size(j + 1);
        Ok(Spilling {
            bounds: self.layout.bounds[j as usize].clone(),
            sp,
            j,
            xs: subsets(n, x),
            per,
            block: sp.binom(n - x, y),
            len: sp.size(j),
            next_len,
            need: vec![false; regions(next_len * entry)],
            list: Vec::new(),
            flushed: 0,
            spill: self,
        })
    }
}

/// The windows of a gather touching a file ([`Spill::gather_windows`]).
pub(super) struct Spilling<'a> {
    bounds: Vec<usize>,
    sp: &'a Space,
    j: u32,
    xs: Vec<u32>,
    per: usize,
    block: usize,
    /// Entries of the layers written and read.
    len: usize,
    next_len: usize,
    /// The regions of the layer read the window needs.
    need: Vec<bool>,
    list: Vec<usize>,
    /// Regions of the layer written already in its file.
    flushed: usize,
    spill: &'a mut Spill,
}

impl<E: Entry> Residency<E> for Spilling<'_> {
    fn bounds(&self) -> &[usize] {
        &self.bounds
    }

    fn before(&mut self, w: usize, next: &mut Buf<E>, cur: &mut Buf<E>) -> Result<(), Refusal> {
        let (s, e) = (self.bounds[w], self.bounds[w + 1]);
        let k = self.j as usize + 1;
        if let Some(file) = &self.spill.files[k] {
            for &r in &self.list {
                self.need[r] = false;
            }
            self.list.clear();
            for ia in s..e {
                self.sp.mark_children(
                    self.j,
                    ia,
                    self.xs[ia],
                    self.per,
                    &mut self.need,
                    &mut self.list,
                );
            }
            // What the window does not read goes first, then what it
            // reads comes in.
            for r in 0..self.need.len() {
                if next.resident[r] && !self.need[r] {
                    next.release(r);
                }
            }
            self.list.sort_unstable();
            let mut read = 0;
            for &r in &self.list {
                if !next.resident[r] {
                    next.provide(r);
                    let bytes = next.region_bytes_mut(r, self.next_len);
                    file.read_exact_at(bytes, (r * REGION_BYTES) as u64)
                        .map_err(disk_error)?;
                    read += bytes.len() as u64;
                }
            }
            self.spill.read += read;
        }
        let lo = s * self.block / self.per;
        let hi = (e * self.block).div_ceil(self.per);
        let fresh: Vec<usize> = (lo..hi)
            .filter(|&r| !cur.resident[r] && !cur.provide(r))
            .collect();
        cur.populate(&fresh);
        self.spill.saw(next.resident_count() + cur.resident_count());
        Ok(())
    }

    fn after(&mut self, w: usize, _next: &mut Buf<E>, cur: &mut Buf<E>) -> Result<(), Refusal> {
        let Some(file) = &self.spill.files[self.j as usize] else {
            return Ok(());
        };
        let e = self.bounds[w + 1];
        let last = w + 2 == self.bounds.len();
        let done = if last {
            (self.len).div_ceil(self.per)
        } else {
            e * self.block / self.per
        };
        for r in self.flushed..done {
            let bytes = cur.region_bytes(r, self.len);
            file.write_all_at(bytes, (r * REGION_BYTES) as u64)
                .map_err(disk_error)?;
            self.spill.written += bytes.len() as u64;
            cur.release(r);
        }
        self.flushed = self.flushed.max(done);
        Ok(())
    }
}
