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
    fn table_bytes_grow_with_entries() {
        assert!(hash_table_bytes(1_000_000, 8) >= 9_000_000);
        assert!(hash_table_bytes(10, 8) < hash_table_bytes(1000, 8));
    }
}
