//! The layer buffer: a layer's entries in 2 MiB regions of an anonymous
//! mapping of their own, whose pages can move between buffers and to and
//! from the pool without a page fault (Linux; elsewhere a plain vector).

use super::entry::Entry;
use super::pool::{Pool, REGION_BYTES};
#[cfg(target_os = "linux")]
use rayon::prelude::*;

/// A layer buffer: `len` entries in 2 MiB regions of their own. On Linux
/// it is its own anonymous mapping, and a region of one buffer whose
/// entries are no longer needed can be moved, pages and all, to a region
/// of another buffer about to be written ([`Buf::move_region`]: a page
/// table move, no page fault, no zeroing). A releasing gather (see
/// [`Space::gather`]) so keeps the two largest layers of an 18-empty root
/// from being whole in memory at once without paying a page fault per
/// page again (what a fault costs: the README's benchmark section).
/// Elsewhere it is a plain vector that moves nothing. The entries'
/// contents are unspecified until written (every implementor of
/// [`Entry`] is made of `u64` words, valid for any bits).
///
/// [`Space::gather`]: super::space::Space::gather
pub(super) struct Buf<E: Entry> {
    #[cfg(target_os = "linux")]
    ptr: std::ptr::NonNull<E>,
    /// The mapping (`ptr` is its first region boundary in it).
    #[cfg(target_os = "linux")]
    map: (*mut libc::c_void, usize),
    #[cfg(not(target_os = "linux"))]
    vec: Vec<E>,
    pub(super) len: usize,
    /// Per region, whether its pages have been written (are resident).
    pub(super) resident: Vec<bool>,
    /// Where its resident regions go when it is dropped, and where
    /// regions about to be written come from ([`Buf::provide`]).
    pool: &'static Pool,
}

// SAFETY: the buffer owns its entries (plain words) like a `Vec` does.
unsafe impl<E: Entry> Send for Buf<E> {}
unsafe impl<E: Entry> Sync for Buf<E> {}

impl<E: Entry> Buf<E> {
    /// Entries per region.
    pub(super) const PER: usize = REGION_BYTES / std::mem::size_of::<E>();

    /// A buffer of `len` entries, drawing on and returning to `pool`.
    #[cfg(target_os = "linux")]
    pub(super) fn new(len: usize, pool: &'static Pool) -> Buf<E> {
        let regions = (len * std::mem::size_of::<E>()).div_ceil(REGION_BYTES);
        // One region more, so that the entries can start on a region
        // boundary and every region lies whole inside the mapping.
        let bytes = (regions + 1) * REGION_BYTES;
        // SAFETY: a fresh private anonymous mapping, checked below; it is
        // zero-filled and page-aligned.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(p != libc::MAP_FAILED, "out of memory for a layer buffer");
        let offset = (p as usize).next_multiple_of(REGION_BYTES) - p as usize;
        // SAFETY: `offset < REGION_BYTES`, inside the mapping.
        let start = unsafe { p.cast::<u8>().add(offset) };
        Buf {
            ptr: std::ptr::NonNull::new(start.cast()).expect("mmap gave null"),
            map: (p, bytes),
            len,
            resident: vec![false; regions],
            pool,
        }
    }

    /// A buffer of `len` entries (`pool` unused off Linux).
    #[cfg(not(target_os = "linux"))]
    pub(super) fn new(len: usize, pool: &'static Pool) -> Buf<E> {
        let regions = (len * std::mem::size_of::<E>()).div_ceil(REGION_BYTES);
        Buf {
            vec: vec![E::ZERO; len],
            len,
            resident: vec![false; regions],
            pool,
        }
    }

    pub(super) fn as_slice(&self) -> &[E] {
        #[cfg(target_os = "linux")]
        // SAFETY: `len` entries of plain words inside the mapping (zero
        // or written: any bits are valid).
        return unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) };
        #[cfg(not(target_os = "linux"))]
        return &self.vec;
    }

    pub(super) fn as_mut_slice(&mut self) -> &mut [E] {
        #[cfg(target_os = "linux")]
        // SAFETY: as in `as_slice`, borrowed mutably through `self`.
        return unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) };
        #[cfg(not(target_os = "linux"))]
        return &mut self.vec;
    }

    /// Regions whose pages are resident.
    pub(super) fn resident_count(&self) -> usize {
        self.resident.iter().filter(|&&r| r).count()
    }

    /// Records that entries `from..to` were written.
    pub(super) fn mark_written(&mut self, from: usize, to: usize) {
        if to > from {
            for r in &mut self.resident[from / Self::PER..(to - 1) / Self::PER + 1] {
                *r = true;
            }
        }
    }

    /// Moves the pages of region `k` of `self`, whose entries are no
    /// longer needed, to region `r` of `dst`, whose entries are all about
    /// to be written; region `k` is left mapped but empty (zero pages on
    /// demand). Returns whether it moved anything (nothing when region
    /// `k` holds no pages, `r` already does, or off Linux).
    pub(super) fn move_region(&mut self, k: usize, dst: &mut Buf<E>, r: usize) -> bool {
        if !self.resident[k] || dst.resident[r] {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            // SAFETY: both regions lie whole inside their mappings (see
            // `new`), are region-aligned, and no slice of either buffer
            // is alive (`&mut self`, `&mut dst`). mremap with FIXED
            // replaces the destination region inside `dst`'s mapping;
            // with DONTUNMAP the source stays mapped (empty: zero pages on
            // demand), so no hole opens that another thread's mmap could
            // take. Without it (old kernels) the hole is mapped again at
            // once, as fresh anonymous memory.
            unsafe {
                let src: *mut libc::c_void =
                    self.ptr.as_ptr().cast::<u8>().add(k * REGION_BYTES).cast();
                let to: *mut libc::c_void =
                    dst.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES).cast();
                let moved = libc::mremap(
                    src,
                    REGION_BYTES,
                    REGION_BYTES,
                    libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED | libc::MREMAP_DONTUNMAP,
                    to,
                );
                if moved == libc::MAP_FAILED {
                    // Kernels before 5.7 know no DONTUNMAP: move the
                    // region and map the hole it leaves again at once.
                    let moved = libc::mremap(
                        src,
                        REGION_BYTES,
                        REGION_BYTES,
                        libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                        to,
                    );
                    if moved == libc::MAP_FAILED {
                        return false;
                    }
                    let again = libc::mmap(
                        src,
                        REGION_BYTES,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    );
                    assert!(again != libc::MAP_FAILED, "remapping a layer region");
                }
            }
            self.resident[k] = false;
            dst.resident[r] = true;
            true
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (dst, r);
            false
        }
    }
}

impl<E: Entry> Buf<E> {
    /// Makes region `r`, about to be written, resident with a region of
    /// the pool when it is not yet and the pool has one (no page fault,
    /// no zeroing: its entries are unspecified until written). Returns
    /// whether it took one.
    pub(super) fn provide(&mut self, r: usize) -> bool {
        if self.resident[r] {
            return false;
        }
        #[cfg(target_os = "linux")]
        {
            // SAFETY: region `r` lies whole inside the mapping (see `new`)
            // and is region-aligned; no slice of the buffer is alive
            // (`&mut self`).
            let to = unsafe { self.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES) };
            if self.pool.take_into(to.cast()) {
                self.resident[r] = true;
                return true;
            }
        }
        false
    }

    /// Makes `regions`, about to be written and not resident, resident
    /// with fresh pages, filled by the kernel in one call a region, the
    /// regions split over the threads, rather than one page fault a page
    /// as they are first written (Linux 5.14 and later; elsewhere, or
    /// when refused, the pages come on demand as before).
    pub(super) fn populate(&mut self, regions: &[usize]) {
        #[cfg(target_os = "linux")]
        {
            let base = self.ptr.as_ptr() as usize;
            regions.par_iter().for_each(|&r| {
                // SAFETY: region `r` lies whole inside the private
                // anonymous mapping (see `new`); populating only maps
                // pages (zeroed, or leaves them as they are), and no slice
                // of the buffer is alive (`&mut self`).
                unsafe {
                    libc::madvise(
                        (base + r * REGION_BYTES) as *mut libc::c_void,
                        REGION_BYTES,
                        libc::MADV_POPULATE_WRITE,
                    )
                };
            });
        }
        for &r in regions {
            self.resident[r] = true;
        }
    }
}

impl<E: Entry> Buf<E> {
    /// The first `len` entries' bytes of region `r` (those of a layer of
    /// `len` entries in it: what a spilled layer's file holds there).
    fn region_range(&self, r: usize, len: usize) -> std::ops::Range<usize> {
        let from = (r * Self::PER).min(len);
        from..((r + 1) * Self::PER).min(len)
    }

    /// The bytes of region `r` of a layer of `len` entries, to be written
    /// to its file.
    pub(super) fn region_bytes(&self, r: usize, len: usize) -> &[u8] {
        let range = self.region_range(r, len);
        let entries = &self.as_slice()[range];
        // SAFETY: entries are plain `u64` words (see `Entry`): their bytes
        // are initialised, and the slice borrows `self`.
        unsafe {
            std::slice::from_raw_parts(entries.as_ptr().cast(), std::mem::size_of_val(entries))
        }
    }

    /// The bytes of region `r` of a layer of `len` entries, to be read
    /// from its file; the region becomes resident.
    pub(super) fn region_bytes_mut(&mut self, r: usize, len: usize) -> &mut [u8] {
        self.resident[r] = true;
        let range = self.region_range(r, len);
        let entries = &mut self.as_mut_slice()[range];
        // SAFETY: as in `region_bytes`; any bytes are valid entries.
        unsafe {
            std::slice::from_raw_parts_mut(
                entries.as_mut_ptr().cast(),
                std::mem::size_of_val(entries),
            )
        }
    }

    /// Gives up region `r`, whose entries are no longer needed: its pages
    /// go to the pool while it has room, else back to the kernel.
    pub(super) fn release(&mut self, r: usize) {
        if !self.resident[r] {
            return;
        }
        self.resident[r] = false;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: region `r` lies whole inside the mapping (see `new`)
            // and is region-aligned; no slice of the buffer is alive
            // (`&mut self`). Its contents are not needed: the pool takes
            // its pages, or the kernel frees them (zero pages on demand).
            unsafe {
                let at = self.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES);
                if !self.pool.give(at.cast()) {
                    libc::madvise(at.cast(), REGION_BYTES, libc::MADV_DONTNEED);
                }
            }
        }
    }
}

#[cfg(target_os = "linux")]
impl<E: Entry> Drop for Buf<E> {
    fn drop(&mut self) {
        // Resident regions go to the pool while it has room (the next
        // solve writes them without page faults).
        for r in 0..self.resident.len() {
            if self.resident[r] {
                // SAFETY: as in `provide`; the buffer is being dropped.
                let from = unsafe { self.ptr.as_ptr().cast::<u8>().add(r * REGION_BYTES) };
                if !self.pool.give(from.cast()) {
                    break;
                }
            }
        }
        // SAFETY: the range mapped in `new` (however split since), unmapped
        // once; regions given to the pool left empty mappings behind
        // (DONTUNMAP), never holes another mapping could have taken.
        unsafe { libc::munmap(self.map.0, self.map.1) };
    }
}
