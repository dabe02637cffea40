//! The pool: resident layer regions kept between solves, so that a
//! process solving one position after another pays the page faults once;
//! the process-wide one and its limit.

/// The size of a region of a [`Buf`] (a huge page; one page in unit tests,
/// so that their small layers span many regions and pages really move).
///
/// [`Buf`]: super::buf::Buf
#[cfg(not(test))]
pub(super) const REGION_BYTES: usize = 2 << 20;
#[cfg(test)]
pub(super) const REGION_BYTES: usize = 4096;

/// A reserve of resident regions (each an anonymous mapping of
/// [`REGION_BYTES`] whose pages are in memory) that layer buffers return
/// when dropped and take before writing, so that a process solving one
/// position after another pays the page faults and the kernel's zeroing
/// of about 0.6 GB at 18 empty cells once, not at every solve (the system
/// time this saves: the README's benchmark section). Bounded by its
/// limit; the process-wide one is [`set_pool_limit`], [`free_pool`],
/// [`pool_bytes`].
pub(super) struct Pool {
    inner: std::sync::Mutex<PoolInner>,
}

struct PoolInner {
    /// Addresses of the regions held (Linux only; empty elsewhere).
    regions: Vec<usize>,
    /// The most bytes held.
    limit: usize,
    /// Regions handed out since the pool was made.
    taken: u64,
}

/// The process-wide pool's default limit: about what one solve at 18
/// empty cells keeps resident at its peak, so holding it does not raise
/// the process's peak memory.
pub const DEFAULT_POOL_BYTES: usize = 640 << 20;

#[cfg(not(test))]
pub(super) static POOL: Pool = Pool::new(DEFAULT_POOL_BYTES);
/// In unit tests the process-wide pool keeps nothing: with one-page
/// regions, pooling a solve's pages takes a remap per page (hundreds of
/// milliseconds, more while other tests fault pages into the same
/// process), which a test timing a stopped solve would count. Tests of
/// the pool make their own.
#[cfg(test)]
pub(super) static POOL: Pool = Pool::new(0);

impl Pool {
    pub(super) const fn new(limit: usize) -> Pool {
        Pool {
            inner: std::sync::Mutex::new(PoolInner {
                regions: Vec::new(),
                limit,
                taken: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PoolInner> {
        // The pool's state stays consistent whatever panicked: use it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the pages of the region at `from` (a region-aligned region
    /// of a live mapping, whose contents are no longer needed) into the
    /// pool when it has room; the mapping at `from` stays, empty.
    #[cfg(target_os = "linux")]
    pub(super) fn give(&self, from: *mut libc::c_void) -> bool {
        let mut p = self.lock();
        if (p.regions.len() + 1) * REGION_BYTES > p.limit {
            return false;
        }
        // SAFETY: `from` is a whole region of a private anonymous mapping
        // (caller); the pages move to a new mapping the kernel places,
        // the source stays mapped (DONTUNMAP) with no pages. With
        // DONTUNMAP the kernel reads the new address as a hint (it must be
        // page-aligned): null, no preference.
        let to = unsafe {
            libc::mremap(
                from,
                REGION_BYTES,
                REGION_BYTES,
                libc::MREMAP_MAYMOVE | libc::MREMAP_DONTUNMAP,
                std::ptr::null_mut::<libc::c_void>(),
            )
        };
        if to == libc::MAP_FAILED {
            return false;
        }
        p.regions.push(to as usize);
        true
    }

    /// Moves a held region, pages and all, onto the region at `to`
    /// (region-aligned, inside a live private anonymous mapping, its
    /// contents not needed); false when the pool is empty.
    #[cfg(target_os = "linux")]
    pub(super) fn take_into(&self, to: *mut libc::c_void) -> bool {
        let mut p = self.lock();
        let Some(from) = p.regions.pop() else {
            return false;
        };
        // SAFETY: `from` is a whole mapping of REGION_BYTES the pool owns
        // (made by `give`); it replaces the region at `to` (caller), and
        // its own range is unmapped by the move.
        let moved = unsafe {
            libc::mremap(
                from as *mut libc::c_void,
                REGION_BYTES,
                REGION_BYTES,
                libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
                to,
            )
        };
        if moved == libc::MAP_FAILED {
            // SAFETY: the pool's own mapping, dropped.
            unsafe { libc::munmap(from as *mut libc::c_void, REGION_BYTES) };
            return false;
        }
        p.taken += 1;
        true
    }

    /// Sets the limit and frees what is above it.
    pub(super) fn set_limit(&self, bytes: usize) {
        let mut p = self.lock();
        p.limit = bytes;
        while p.regions.len() * REGION_BYTES > bytes {
            let Some(_r) = p.regions.pop() else { break };
            #[cfg(target_os = "linux")]
            // SAFETY: a mapping of REGION_BYTES the pool owns, dropped.
            unsafe {
                libc::munmap(_r as *mut libc::c_void, REGION_BYTES)
            };
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.lock().regions.len() * REGION_BYTES
    }

    #[cfg(test)]
    pub(super) fn taken(&self) -> u64 {
        self.lock().taken
    }
}

/// Sets how many bytes of layer memory the process keeps between
/// retrograde solves (default [`DEFAULT_POOL_BYTES`]; 0 keeps none) and
/// frees what is held above it. The kept pages are written by the next
/// solve without page faults; they count in the process's memory until
/// freed.
pub fn set_pool_limit(bytes: usize) {
    POOL.set_limit(bytes);
}

/// Frees the layer memory kept between solves (the limit stays).
pub fn free_pool() {
    let limit = POOL.lock().limit;
    POOL.set_limit(0);
    POOL.set_limit(limit);
}

/// Bytes of layer memory kept between solves now.
pub fn pool_bytes() -> usize {
    POOL.bytes()
}
