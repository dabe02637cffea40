//! Memory accounting: budgets for tables and the process's peak usage.

/// The process's peak resident memory in bytes (`VmHWM`), where the
/// platform reports it (Linux); `None` elsewhere.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| {
        let rest = l.strip_prefix("VmHWM:")?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// Bytes a hash table of `entries` entries of `entry_bytes` each occupies,
/// counting the load factor and control bytes of `std`'s SwissTable.
pub fn hash_table_bytes(entries: usize, entry_bytes: usize) -> usize {
    // Capacity rounds up to a power of two at 7/8 load; one control byte
    // per bucket.
    let buckets = (entries.saturating_mul(8) / 7).next_power_of_two().max(1);
    buckets * (entry_bytes + 1)
}

/// The most entries of `entry_bytes` each a `std` hash table (SwissTable)
/// may hold so that growing to hold them never takes more than `bytes`:
/// its last growth, to a power-of-two bucket count `b` at 7/8 load, holds
/// the old table (`b / 2` buckets) and the new one at once, one control
/// byte per bucket. A search that adds at most one entry per node and
/// stops at this many nodes keeps its table within `bytes`: the budget is
/// enforced before the allocation, not noticed after it. 0 when not even
/// the smallest table fits.
pub fn hash_table_entries_within(bytes: usize, entry_bytes: usize) -> usize {
    let per_bucket = entry_bytes + 1;
    // The growth into `b` buckets peaks at 3b/2 buckets.
    let most_buckets = bytes / per_bucket / 3 * 2;
    if most_buckets < 8 {
        return 0;
    }
    let b = if most_buckets.is_power_of_two() {
        most_buckets
    } else {
        most_buckets.next_power_of_two() / 2
    };
    b / 8 * 7
}

/// The most entries of `slot_bytes` each the searchers' memo
/// (`restarts::Memo`: open addressing, at most 3/4 full, one tag byte
/// per slot) may hold within `bytes`, counted as when the memo grew by
/// copying into a new power-of-two table (up to twice its capacity in
/// all). The memo now grows in place and may stop at any capacity (see
/// `Memo::limit_entries`), so this leaves about half of `bytes` unused;
/// kept as it is for its callers (peg), whose budgets it sets. A
/// searcher given this as its entry limit replaces old entries instead
/// of growing past it. 0 when not even the smallest table fits.
pub fn memo_entries_within(bytes: usize, slot_bytes: usize) -> usize {
    let most_slots = bytes / (slot_bytes + 1) / 2;
    if most_slots < 16 {
        return 0;
    }
    let cap = if most_slots.is_power_of_two() {
        most_slots
    } else {
        most_slots.next_power_of_two() / 2
    };
    cap / 4 * 3
}

/// Fixes glibc's threshold above which an allocation gets pages of its
/// own (`M_MMAP_THRESHOLD`) at 128 KiB, once a process, unless the
/// environment sets it (`MALLOC_MMAP_THRESHOLD_`). Left alone, glibc
/// raises the threshold to the size of every such block freed, so the
/// engine's later bitmaps and layer runs (up to several MiB each, made and
/// freed layer after layer, in changing sizes) come from the heap, whose
/// freed holes stay resident and add to the peak (by a fifth on the
/// English goal set; the peg README has the figures). With the fixed
/// threshold a freed block goes back to the system at once, for the same
/// CPU time. The setting holds for the rest of the process, so it is a
/// process's choice, not a library's: `endgame count peg --goal-only`
/// makes it; the full count does not (its hash tables, freed and made
/// again in many more sizes, gain less memory, a tenth, than they pay in
/// fresh pages' faults), nor does the server. Nothing happens on other
/// platforms.
pub fn fix_allocation_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some() {
                return;
            }
            extern "C" {
                fn mallopt(param: i32, value: i32) -> i32;
            }
            /// glibc's `M_MMAP_THRESHOLD` parameter.
            const M_MMAP_THRESHOLD: i32 = -3;
            // SAFETY: `mallopt` only sets a parameter of glibc's allocator,
            // under the allocator's own lock; blocks already handed out
            // keep working whatever the threshold.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, 128 << 10);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_rss_is_reported_on_linux() {
        if cfg!(target_os = "linux") {
            let peak = peak_rss_bytes().expect("VmHWM readable on Linux");
            assert!(peak > 100_000, "peak {peak} bytes is implausibly small");
        }
    }

    #[test]
    fn entries_within_a_budget_fit_it_growth_included() {
        for bytes in [1_000usize, 100_000, 1 << 20, 3 << 20, 100 << 20, 1 << 30] {
            let e = hash_table_entries_within(bytes, 16);
            assert!(e > 0, "{bytes}");
            // A real table grown to `e` entries: its buckets (and the half
            // as many of the table it grew from) fit.
            let mut t: std::collections::HashMap<u64, u32> = Default::default();
            for k in 0..e as u64 {
                t.insert(k, 0);
            }
            let buckets = t.capacity() * 8 / 7;
            assert!(buckets.is_power_of_two(), "{buckets}");
            assert_eq!(std::mem::size_of::<(u64, u32)>(), 16);
            assert!(buckets * 3 / 2 * 17 <= bytes, "{bytes}: {e} entries");
            // And the budget is not wasted: twice as many would not fit.
            assert!(hash_table_bytes(2 * e + 16, 16) * 3 / 2 > bytes, "{bytes}");
        }
        assert_eq!(hash_table_entries_within(50, 16), 0);
    }

    #[test]
    fn memo_entries_fill_a_power_of_two_at_three_quarters() {
        // 1 GiB of 17-byte slots, twice over: 2^24 slots, 3/4 of them.
        assert_eq!(memo_entries_within(1 << 30, 16), (1 << 24) / 4 * 3);
        let e = memo_entries_within(100 << 20, 16);
        let cap = (e * 4 / 3).next_power_of_two();
        assert!(2 * cap * 17 <= 100 << 20 && 4 * cap * 17 > 100 << 20);
        assert_eq!(memo_entries_within(100, 16), 0);
    }

    #[test]
    fn table_bytes_grow_with_entries() {
        assert!(hash_table_bytes(1_000_000, 8) >= 9_000_000);
        assert!(hash_table_bytes(10, 8) < hash_table_bytes(1000, 8));
    }
}
