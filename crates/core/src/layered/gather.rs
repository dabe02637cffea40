//! The gather: produce items from a layer in parallel, scatter them into
//! coarse then fine hash buckets, de-duplicate each bucket in its table,
//! keep only the members of another layer if asked, and fall back to
//! batches of sorted runs merged at the end when the memory budget is
//! short.

use super::layer::{bucket_of, hash_of, retain_members, Layer, Sink, MAX_BATCHES};
use super::table::Table;
use crate::hash::FxHashSet;
use rayon::prelude::*;
use std::hash::Hash;

/// The outcome of one [`gather`]: each bucket's output and tally.
pub(super) struct Gathered<O> {
    pub(super) buckets: Vec<Vec<O>>,
    pub(super) tally: u64,
    /// Items produced (children or parents, duplicates included).
    pub(super) produced: u64,
    /// Whether each bucket's entries were handed over in key order.
    pub(super) sorted: bool,
    /// Distinct items (before keeping the members of `within`).
    pub(super) distinct: u64,
}

/// Produces items from the `sources` in parallel (`produce(source,
/// sink)`, plus the `extra` items as they are), partitions them into `nb`
/// hash buckets, merges the duplicates of each bucket with `combine`, and
/// hands each bucket's distinct entries to `finish(bucket, entries, out)
/// -> tally`, sorted by key if `sort`. With `within`, a layer partitioned
/// alike, only the entries that are members of `within` are handed over:
/// looked up in the bucket's table (in `within`'s order: when that costs
/// less than sorting the entries, or `within` is not sorted), or else
/// sorted and merged with `within`'s bucket.
///
/// When the scatter buffers would exceed `avail` bytes, the sources are
/// taken in batches: each batch leaves a sorted run of distinct entries per
/// bucket, and the runs are merged at the end (every item is produced once).
#[allow(clippy::too_many_arguments)]
pub(super) fn gather<S, T, V, O>(
    sources: &[&[S]],
    extra: &[(T, V)],
    nb: usize,
    est_items: usize,
    distinct: f64,
    avail: usize,
    produce: &(impl Fn(&S, &mut Sink<T, V>) + Sync),
    combine: &(impl Fn(&mut V, V) + Sync),
    finish: &(impl Fn(usize, &[(T, V)], &mut Vec<O>) -> u64 + Sync),
    within: Option<&Layer<T>>,
    sort: bool,
) -> Option<Gathered<O>>
where
    S: Sync,
    T: Copy + Ord + Hash + Send + Sync,
    V: Copy + Default + Send + Sync,
    O: Send,
{
    let item_bytes = std::mem::size_of::<T>() + std::mem::size_of::<V>();
    // Vectors grow past their reservations: budget for some slack. The
    // runs of a batched gather take part of the budget too.
    let est_bytes = est_items.saturating_mul(item_bytes) / 4 * 5;
    let mut batches = est_bytes.div_ceil(avail.max(1)).max(1);
    if batches > 1 {
        let runs = (est_items as f64 * distinct.min(1.0) * 1.5) as usize * item_bytes;
        if runs >= avail {
            return None;
        }
        batches = est_bytes.div_ceil(avail - runs).max(1);
    }
    if batches > MAX_BATCHES {
        return None;
    }
    let n: usize = sources.iter().map(|s| s.len()).sum();
    let threads = rayon::current_num_threads();
    let chunk = (n / (threads * 8 * batches)).max(256);
    // Tasks: runs of about `chunk` sources, as (slice, start, end) pieces.
    let mut tasks: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new()];
    let mut filled = 0;
    for (k, s) in sources.iter().enumerate() {
        let mut i = 0;
        while i < s.len() {
            let j = (i + chunk - filled).min(s.len());
            tasks.last_mut().expect("a task").push((k, i, j));
            filled += j - i;
            i = j;
            if filled == chunk {
                tasks.push(Vec::new());
                filled = 0;
            }
        }
    }
    let batches = batches.min(tasks.len()).max(1);
    let mut out = Gathered {
        buckets: Vec::with_capacity(nb),
        tally: 0,
        produced: 0,
        // Merged runs are sorted; looked-up members come in `within`'s order.
        sorted: batches > 1 || within.map_or(sort, |w| w.sorted),
        distinct: 0,
    };
    // Two levels: items are scattered into at most COARSE buckets as they
    // are produced (few write streams, so the stores stay cheap), then each
    // coarse bucket is split into `fine` buckets that are de-duplicated in
    // cache. Bucket `b` of `nb` is fine bucket `b % fine` of coarse bucket
    // `b / fine` (multiply-shift bucketing nests).
    let (coarse, fine) = split(nb);
    let tables: Vec<std::sync::Mutex<Table<T, V>>> = (0..threads + 1)
        .map(|_| std::sync::Mutex::new(Table::new()))
        .collect();
    // runs[b]: the sorted distinct entries of bucket b, one per batch.
    let mut runs: Vec<Vec<Vec<(T, V)>>> = (0..if batches > 1 { nb } else { 0 })
        .map(|_| Vec::with_capacity(batches))
        .collect();
    // Each bucket's output, tally and distinct items.
    let mut results: Vec<(Vec<O>, u64, u64)> = Vec::new();
    for batch in 0..batches {
        let mine = &tasks[tasks.len() * batch / batches..tasks.len() * (batch + 1) / batches];
        let mean = est_items / batches / coarse / mine.len().max(1);
        // Room for the spread of a hash partition and of the estimate.
        let reserve = mean + mean / 4 + 16;
        let mut sinks: Vec<Sink<T, V>> = mine
            .par_iter()
            .map(|pieces| {
                let mut s = Sink::new(coarse, reserve);
                for &(k, i, j) in pieces {
                    for x in &sources[k][i..j] {
                        produce(x, &mut s);
                    }
                }
                s
            })
            .collect();
        if batch == 0 && !extra.is_empty() {
            let mut s = Sink::new(coarse, 0);
            for &(t, v) in extra {
                s.push(t, v);
            }
            sinks.push(s);
        }
        if sinks.iter().map(Sink::bytes).sum::<usize>() > avail.saturating_mul(2) {
            return None;
        }
        out.produced += sinks.iter().map(|s| s.len() as u64).sum::<u64>();
        let last = batches == 1;
        let done: Vec<Vec<Finished<O, T, V>>> = (0..coarse)
            .into_par_iter()
            .map(|c| {
                let slot = rayon::current_thread_index().map_or(threads, |t| t.min(threads));
                let mut table = tables[slot].lock().unwrap_or_else(|e| e.into_inner());
                let table = &mut *table;
                // Split the coarse bucket into its fine ones (in buffers
                // the worker keeps: fresh memory is slow to fill).
                if fine > 1 {
                    let count: usize = sinks.iter().map(|s| s.count(c)).sum();
                    let per = count / fine + count / fine / 8 + 16;
                    table.split_keys.resize_with(fine, Vec::new);
                    table.split_vals.resize_with(fine, Vec::new);
                    for (k, v) in table.split_keys.iter_mut().zip(&mut table.split_vals) {
                        k.clear();
                        k.reserve(per);
                        v.clear();
                        v.reserve(per);
                    }
                    for s in &sinks {
                        for (&k, &v) in s.keys[c].iter().zip(&s.vals[c]) {
                            let f = bucket_of(hash_of(&k), nb) - c * fine;
                            table.split_keys[f].push(k);
                            table.split_vals[f].push(v);
                        }
                    }
                }
                let keys = std::mem::take(&mut table.split_keys);
                let vals = std::mem::take(&mut table.split_vals);
                let result = (0..fine)
                    .map(|f| {
                        let b = c * fine + f;
                        let parts: Vec<(&[T], &[V])> = if fine == 1 {
                            sinks
                                .iter()
                                .map(|s| (&s.keys[c][..], &s.vals[c][..]))
                                .collect()
                        } else {
                            vec![(&keys[f][..], &vals[f][..])]
                        };
                        let mut o = Vec::new();
                        let Some(first) = parts.iter().find_map(|p| p.0.first().copied()) else {
                            let t = if last { finish(b, &[], &mut o) } else { 0 };
                            return (o, t, Vec::new(), 0);
                        };
                        let count: usize = parts.iter().map(|p| p.0.len()).sum();
                        // Size for the share of distinct keys seen in this
                        // gather's last bucket (or the caller's guess):
                        // growing a table rehashes it.
                        let share = if table.ratio > 0.0 {
                            (table.ratio * 1.25).min(1.0)
                        } else {
                            distinct.min(1.0)
                        };
                        table.prepare((count as f64 * share) as usize + 16, first);
                        for (k, v) in parts {
                            table.insert_all(k, v, combine);
                        }
                        table.ratio = (table.len + 1) as f64 / count as f64;
                        let found = (table.len + table.empty_val.is_some() as usize) as u64;
                        let entries = match within {
                            // A look-up costs a few comparisons of a sort.
                            Some(w) if last => {
                                let here = w.bucket(b);
                                if !w.sorted || here.len() <= 4 * table.len {
                                    table.members(here)
                                } else {
                                    table.members_merged(here)
                                }
                            }
                            // The runs of a batched gather are merged.
                            _ => table.entries(sort || !last),
                        };
                        if !last {
                            return (o, 0, entries.to_vec(), 0);
                        }
                        o.reserve_exact(entries.len());
                        let t = finish(b, entries, &mut o);
                        o.shrink_to_fit();
                        (o, t, Vec::new(), found)
                    })
                    .collect();
                table.split_keys = keys;
                table.split_vals = vals;
                result
            })
            .collect();
        drop(sinks);
        for (b, (o, t, run, found)) in done.into_iter().flatten().enumerate() {
            if last {
                results.push((o, t, found));
            } else {
                runs[b].push(run);
            }
        }
    }
    if batches > 1 {
        // Merge each bucket's runs, then finish it.
        results = runs
            .into_par_iter()
            .enumerate()
            .map(|(b, bucket_runs)| {
                let mut merged = bucket_runs
                    .into_iter()
                    .reduce(|a, r| merge_runs(a, r, combine))
                    .unwrap_or_default();
                let found = merged.len() as u64;
                match within {
                    Some(w) if w.sorted => retain_members(&mut merged, w.bucket(b)),
                    Some(w) => {
                        let here: FxHashSet<&T> = w.bucket(b).iter().collect();
                        merged.retain(|e| here.contains(&e.0));
                    }
                    None => {}
                }
                let mut o = Vec::with_capacity(merged.len());
                let t = finish(b, &merged, &mut o);
                o.shrink_to_fit();
                (o, t, found)
            })
            .collect();
    }
    for (o, t, found) in results {
        out.buckets.push(o);
        out.tally += t;
        out.distinct += found;
    }
    Some(out)
}

/// [`gather`] of bare positions: each bucket's distinct items (only the
/// members of `within`, with it) as a layer, and how many distinct items
/// there were.
#[allow(clippy::too_many_arguments)]
pub(super) fn gather_layer<S: Sync, T: Copy + Ord + Hash + Send + Sync>(
    sources: &[&[S]],
    extra: &[(T, ())],
    nb: usize,
    est_items: usize,
    distinct: f64,
    avail: usize,
    produce: &(impl Fn(&S, &mut Sink<T, ()>) + Sync),
    within: Option<&Layer<T>>,
    sort: bool,
) -> Option<(Layer<T>, u64)> {
    let g = gather(
        sources,
        extra,
        nb,
        est_items,
        distinct,
        avail,
        produce,
        &|_, _| {},
        &|_, entries: &[(T, ())], out: &mut Vec<T>| {
            out.extend(entries.iter().map(|e| e.0));
            0
        },
        within,
        sort,
    )?;
    Some((Layer::from_parts(g.buckets, g.sorted), g.distinct))
}

/// What a bucket of one batch leaves: its output, tally and number of
/// distinct items (last batch), or its run of sorted distinct entries
/// (earlier batches).
pub(super) type Finished<O, T, V> = (Vec<O>, u64, Vec<(T, V)>, u64);

/// Merges two sorted runs of distinct entries, combining equal keys.
pub(super) fn merge_runs<T: Copy + Ord, V: Copy>(
    a: Vec<(T, V)>,
    b: Vec<(T, V)>,
    combine: &impl Fn(&mut V, V),
) -> Vec<(T, V)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let mut e = a[i];
                combine(&mut e.1, b[j].1);
                out.push(e);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Most coarse buckets (write streams while scattering children). Up to
/// this many buckets a gather is one level: the children go straight to
/// the buckets they are de-duplicated in, without a second pass that
/// splits them. As many as the scatter can write without costing more
/// than 64 streams a worker on a core of this project's machine (48 KiB
/// L1d, 1 MiB L2), so that every English layer fits one level
/// (measurements: the layered engine's benchmarks in the peg crate's
/// README).
pub(super) const COARSE: usize = 256;

/// Rounds a wanted bucket count to one that splits as `coarse * fine`.
pub(super) fn round_buckets(nb: usize) -> usize {
    if nb <= COARSE {
        nb.max(1)
    } else {
        nb.div_ceil(COARSE) * COARSE
    }
}

/// The coarse and fine factors of a bucket count from [`round_buckets`]
/// (any other count is left in one level).
pub(super) fn split(nb: usize) -> (usize, usize) {
    if nb > COARSE && nb.is_multiple_of(COARSE) {
        (COARSE, nb / COARSE)
    } else {
        (nb, 1)
    }
}
