//! The layered enumeration spread over the processes of a cluster.
//!
//! Every position up to symmetry has one owner; each process keeps its
//! share of every layer as a sorted vector. A layer is built by one round
//! of the exchange: each process makes the canonical children of its
//! share, sends each to its owner, and its owner de-duplicates what it
//! receives. A layer big enough for a ranked bitmap ([`ranked_step`]) is
//! owned by rank block and its children travel as ranks that set bits;
//! any other is owned by the hash of the canonical key and its children
//! are sorted by their owner ([`Owners`]). Counts move the same way, as
//! (position, weight) pairs summed by their owner, and the per-layer
//! figures are summed over the processes after each round, so every
//! process knows them and process 0 reports them.
//!
//! The two routes of `endgame_core::layered` are followed step for step,
//! so the report is the single process's: the full enumeration with its
//! counted backward pass, and the goal-only search of a puzzle with a time
//! reversal (forward to the middle, the meeting, the steps back inside the
//! forward layers, the mirrored solution count). See that module for why
//! each step is right; here is only how each is split.

use crate::channel::Channel;
use crate::checkpoint::{Checkpoint, Header};
use crate::net::{join, Cluster, Joined};
use crate::spill::{Spill, SpillFile, SpillWriter, CHUNK};
use crate::ClusterError;
use endgame_core::dense::{DenseKeys, HighWord, LayerRank, Ranker};
use endgame_core::hash::MumHasher;
use endgame_core::layered::{
    canonical_parents, goals_by_depth, hopeless, Best, LayerStats, LayeredError, LayeredOptions,
    LayeredReport, Progress,
};
use endgame_core::memory::peak_rss_bytes;
use endgame_core::{Reversible, Symmetric};
use std::hash::{Hash, Hasher};
use std::time::Instant;
use timely::ExchangeData;

/// The routing hash of a position: every bit of the key counts (see the
/// layered engine's `hash_of` for why not FxHash).
fn owner_hash<T: Hash>(t: &T) -> u64 {
    let mut h = MumHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// Ranks of a block (log 2): a ranked layer's ranks are dealt to the
/// processes in blocks of 2^16 (8 KiB of bitmap), block `b` to process
/// `b mod N`, so that each process's bitmap holds only its blocks (1/N of
/// the layer's) and scanning them hands its share back in key order.
const BLOCK_LOG: u32 = 16;
/// Bitmap words of a block.
const BLOCK_WORDS: usize = 1 << (BLOCK_LOG - 6);
/// Parents whose children are made, keyed and ranked together (as one
/// process does, the batch stays in L1/L2).
const RANK_CHUNK: usize = 256;
/// Children a parent has, on average, for the estimate that decides
/// whether a layer is ranked (English and French layers have 5 to 9).
const CHILDREN_PER_PARENT: u64 = 4;
/// Most bitmap bytes per estimated child (as one process decides).
const BYTES_PER_CHILD: u64 = 4;
/// Bits of a segment of a process's bitmap (log 2): 2 MiB, about a
/// core's share of the caches. Ranks that arrive are sorted into their
/// segment's buffer first and set a buffer at a time, so that the bits
/// of a bitmap far bigger than the caches are not each a cache miss.
const SEGMENT_LOG: u32 = 24;
/// Ranks buffered per segment before their bits are set.
const SEGMENT_FLUSH: usize = 1 << 14;

/// Which process owns a position. A layer de-duplicated in a ranked
/// bitmap ([`endgame_core::dense`]) is owned by rank block; every other
/// layer by the hash of the position. All processes rank the same layers
/// (they decide together), so they agree on every owner; a layer's class
/// (bit count and invariant parities of its keys) names it.
struct Owners<'r, T> {
    keys: Option<&'r dyn DenseKeys<T>>,
    ranker: Option<&'r Ranker>,
    /// The ranked layers still routed to, by class.
    ranked: Vec<((u32, u64), Ranked<'r>)>,
}

/// The ranking of a layer: 32-bit tables when the layer has fewer than
/// 2^32 possible keys, else (or when a run asks for it, to test) 64-bit
/// ones. Both give the same ranks, so owners and checkpoints do not
/// depend on which.
enum Ranked<'r> {
    Narrow(LayerRank<'r>),
    Wide(LayerRank<'r, u64>),
}

impl Ranked<'_> {
    fn rank(&self, key: u64) -> Option<u64> {
        match self {
            Ranked::Narrow(l) => l.rank(key),
            Ranked::Wide(l) => l.rank(key),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Ranked::Narrow(l) => l.len(),
            Ranked::Wide(l) => l.len(),
        }
    }

    fn extract(&self, words: &[u64], first: usize, out: &mut Vec<u64>) {
        match self {
            Ranked::Narrow(l) => l.extract(words, first, out),
            Ranked::Wide(l) => l.extract(words, first, out),
        }
    }

    /// Bytes of its per-layer table.
    fn table_bytes(&self) -> usize {
        match self {
            Ranked::Narrow(l) => l.table_bytes(),
            Ranked::Wide(l) => l.table_bytes(),
        }
    }
}

/// The ranking of layer `class`: narrow when it fits (and `wide` is not
/// asked for), else wide.
fn ranking(ranker: &Ranker, class: (u32, u64), wide: bool) -> Option<Ranked<'_>> {
    match ranker.layer(class.0, class.1).filter(|_| !wide) {
        Some(l) => Some(Ranked::Narrow(l)),
        None => ranker.layer_wide(class.0, class.1).map(Ranked::Wide),
    }
}

impl<T: Hash> Owners<'_, T> {
    fn owner(&self, p: &T) -> u64 {
        if let (Some(dk), Some(r), false) = (self.keys, self.ranker, self.ranked.is_empty()) {
            let key = dk.key(p);
            let class = r.layer_class(key);
            // A position outside its class's ranking is in no layer:
            // any owner will do.
            if let Some(rank) = self
                .ranked
                .iter()
                .find(|e| e.0 == class)
                .and_then(|e| e.1.rank(key))
            {
                return rank >> BLOCK_LOG;
            }
        }
        owner_hash(p)
    }

    /// The ranking of the layer of class `class`, for routing.
    fn rank(&mut self, class: (u32, u64)) -> Result<(), ClusterError> {
        let Some(layer) = self.ranker.and_then(|r| ranking(r, class, false)) else {
            return Err(ClusterError::Config(
                "a checkpoint names a ranked layer this puzzle cannot rank".into(),
            ));
        };
        self.ranked.push((class, layer));
        Ok(())
    }
}

/// A control message: destination process, numbers, positions.
type Message<T> = (u64, Vec<u128>, Vec<T>);

/// A process's share of a layer with solution counts and orbit sizes,
/// sorted by position.
type Counted<T> = Vec<(T, u128, u32)>;

/// The channels of one process. The channels hold on to the worker's
/// connections: they are declared (so dropped) before it, or its
/// communication threads would wait for them forever.
struct Net<'r, T: ExchangeData + Clone> {
    positions: Channel<T>,
    pairs: Channel<(T, u128)>,
    control: Channel<Message<T>>,
    /// Ranks of a ranked layer's children, to their block's owner.
    ranks: Channel<u32>,
    /// The same for layers ranked in 64 bits.
    ranks64: Channel<u64>,
    owners: Owners<'r, T>,
    me: usize,
    peers: usize,
    joined: Joined,
}

impl<'r, T: ExchangeData + Clone + Copy + Hash + Ord> Net<'r, T> {
    fn new(mut joined: Joined, me: usize, peers: usize, owners: Owners<'r, T>) -> Self {
        let w = &mut joined.worker;
        let positions = Channel::new(w);
        let pairs = Channel::new(w);
        let control = Channel::new(w);
        let ranks = Channel::new(w);
        let ranks64 = Channel::new(w);
        Net {
            joined,
            positions,
            pairs,
            control,
            ranks,
            ranks64,
            owners,
            me,
            peers,
        }
    }

    /// Positions to their owners: what this process owns, in no order,
    /// partly de-duplicated (every caller de-duplicates the rest).
    fn route(&mut self, produce: impl FnOnce(&mut dyn FnMut(T))) -> Vec<T> {
        let owners = &self.owners;
        self.positions.round(
            &mut self.joined.worker,
            |p: &T| owners.owner(p),
            Some(sort_dedup::<T>),
            |out| produce(&mut |p| out.send(p)),
        )
    }

    /// Weighted positions to their owners.
    fn route_pairs(&mut self, produce: impl FnOnce(&mut dyn FnMut((T, u128)))) -> Vec<(T, u128)> {
        let owners = &self.owners;
        self.pairs.round(
            &mut self.joined.worker,
            |p: &(T, u128)| owners.owner(&p.0),
            None,
            |out| produce(&mut |p| out.send(p)),
        )
    }

    /// Every process's numbers, by process (a barrier too).
    fn all(&mut self, numbers: Vec<u128>) -> Vec<Vec<u128>> {
        let peers = self.peers;
        let mut got = self.control.round(
            &mut self.joined.worker,
            |m: &Message<T>| m.0,
            None,
            |out| {
                for p in 0..peers {
                    out.send((p as u64, numbers.clone(), Vec::new()));
                }
            },
        );
        debug_assert_eq!(got.len(), peers);
        // Each message says nothing of its sender; the sums and maxima
        // taken from them do not need to know.
        got.sort_unstable_by(|a, b| a.1.cmp(&b.1));
        got.into_iter().map(|m| m.1).collect()
    }
    /// The element-wise sums of every process's numbers.
    fn sum(&mut self, numbers: Vec<u128>) -> Vec<u128> {
        let n = numbers.len();
        self.all(numbers).iter().fold(vec![0; n], |mut acc, v| {
            for (a, x) in acc.iter_mut().zip(v) {
                *a += x;
            }
            acc
        })
    }

    /// The element-wise maxima of every process's numbers.
    fn max(&mut self, numbers: Vec<u128>) -> Vec<u128> {
        let n = numbers.len();
        self.all(numbers).iter().fold(vec![0; n], |mut acc, v| {
            for (a, x) in acc.iter_mut().zip(v) {
                *a = (*a).max(*x);
            }
            acc
        })
    }

    /// The element-wise minima of every process's numbers.
    fn min(&mut self, numbers: Vec<u128>) -> Vec<u128> {
        let flip = |v: Vec<u128>| v.into_iter().map(|x| u128::MAX - x).collect();
        flip(self.max(flip(numbers)))
    }

    /// Records this process has sent to others so far, and their bytes
    /// in memory (what the wire carries is about as much).
    fn exchanged(&self) -> (u64, u64) {
        let size = |n: u64, s: usize| n * s as u64;
        (
            self.positions.remote + self.pairs.remote + self.ranks.remote + self.ranks64.remote,
            size(self.positions.remote, std::mem::size_of::<T>())
                + size(self.pairs.remote, std::mem::size_of::<(T, u128)>())
                + size(self.ranks.remote, std::mem::size_of::<u32>())
                + size(self.ranks64.remote, std::mem::size_of::<u64>()),
        )
    }

    /// Every process's numbers and positions, at process 0 (empty
    /// elsewhere).
    fn gather(&mut self, numbers: Vec<u128>, positions: Vec<T>) -> Vec<(Vec<u128>, Vec<T>)> {
        self.control
            .round(
                &mut self.joined.worker,
                |m: &Message<T>| m.0,
                None,
                |out| {
                    out.send((0, numbers, positions));
                },
            )
            .into_iter()
            .map(|m| (m.1, m.2))
            .collect()
    }
}

/// Sorts and de-duplicates in place.
fn sort_dedup<T: Ord>(v: &mut Vec<T>) {
    v.sort_unstable();
    v.dedup();
}

/// Sorted and de-duplicated.
fn distinct<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort_unstable();
    v.dedup();
    v.shrink_to_fit();
    v
}

/// The members of the sorted `share` that occur in `hits`.
fn marked<T: Ord + Copy>(share: &[T], hits: Vec<T>) -> Vec<T> {
    let hits = distinct(hits);
    let mut out = Vec::new();
    let mut j = 0;
    for h in hits {
        while j < share.len() && share[j] < h {
            j += 1;
        }
        if j < share.len() && share[j] == h {
            out.push(h);
        }
    }
    out
}

/// The weights of `pairs` summed per position, for the members of a
/// sorted share only, sorted. The share comes in sorted chunks (one slice
/// in memory, or a spilled layer read back in order): one merge.
fn summed<T: Ord + Copy>(
    mut pairs: Vec<(T, u128)>,
    share: impl FnOnce(&mut dyn FnMut(&[T]) -> bool) -> Result<(), ClusterError>,
) -> Result<Vec<(T, u128)>, ClusterError> {
    pairs.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(T, u128)> = Vec::new();
    let mut j = 0;
    share(&mut |chunk| {
        for &s in chunk {
            if j == pairs.len() {
                break;
            }
            while j < pairs.len() && pairs[j].0 < s {
                j += 1;
            }
            let mut hit = None;
            while j < pairs.len() && pairs[j].0 == s {
                *hit.get_or_insert(0) += pairs[j].1;
                j += 1;
            }
            if let Some(w) = hit {
                out.push((s, w));
            }
        }
        // A spilled share is read to its end, so that its checksum is
        // verified.
        true
    })?;
    Ok(out)
}

/// A process's share of a layer, sorted: in memory, or spilled to disk
/// as its dense keys.
enum Share<T> {
    Mem(Vec<T>),
    Disk(SpillFile),
}

impl<T: Copy> Share<T> {
    fn len(&self) -> usize {
        match self {
            Share::Mem(v) => v.len(),
            Share::Disk(f) => f.len as usize,
        }
    }

    /// Bytes it holds in memory.
    fn bytes(&self) -> usize {
        match self {
            Share::Mem(v) => bytes(v),
            Share::Disk(_) => 0,
        }
    }

    /// Hands its members to `f` in order, a chunk at a time, while `f`
    /// returns `true`.
    fn for_each_chunk(
        &self,
        dk: Option<&dyn DenseKeys<T>>,
        f: &mut dyn FnMut(&[T]) -> bool,
    ) -> Result<(), ClusterError> {
        match (self, dk) {
            (Share::Mem(v), _) => {
                f(v);
                Ok(())
            }
            (Share::Disk(file), Some(dk)) => file.for_each_chunk(dk, f),
            (Share::Disk(_), None) => Err(ClusterError::Unsupported(
                "a spilled layer of a puzzle without dense keys".into(),
            )),
        }
    }

    /// Its members in memory.
    fn into_vec(self, dk: Option<&dyn DenseKeys<T>>) -> Result<Vec<T>, ClusterError> {
        match self {
            Share::Mem(v) => Ok(v),
            d @ Share::Disk(_) => {
                let mut v = Vec::with_capacity(d.len());
                d.for_each_chunk(dk, &mut |c| {
                    v.extend_from_slice(c);
                    true
                })?;
                Ok(v)
            }
        }
    }
}

fn bytes<T>(v: &[T]) -> usize {
    std::mem::size_of_val(v) + 24
}

/// The report process 0 gives: the summed layer figures, the best
/// positions merged over the processes; per-position tables stay empty.
fn report<T>(
    layers: Vec<LayerStats>,
    goal_reachable: bool,
    solutions: Option<u128>,
    best: Best<T>,
    table_bytes: usize,
    complete: bool,
) -> LayeredReport<T> {
    LayeredReport {
        layers,
        goal_reachable,
        solutions,
        best_score: best.score,
        best_positions: best.positions,
        best_count: best.count,
        child_solutions: Vec::new(),
        goal_layers: Vec::new(),
        table_bytes,
        bitmap_bytes: 0,
        peak_rss: None,
        complete,
    }
}

/// Takes this process's share of a layer into `best` (as the single
/// engine does with a whole layer).
fn add_best<P: endgame_core::Puzzle>(
    best: &mut Best<P::Position>,
    puzzle: &P,
    layer: &[P::Position],
) {
    let low = layer.iter().map(|p| puzzle.score(p)).min();
    best.add_members(puzzle, low, layer.iter());
}

/// What the processes agree on about memory after a layer: the stored
/// bytes of each, checked against the budget on every process.
fn check_budget<T: ExchangeData + Clone + Copy + Hash + Ord>(
    net: &mut Net<T>,
    opts: &LayeredOptions,
    stored: usize,
    layer: usize,
) -> Result<usize, ClusterError> {
    let stop = opts.budget.stop() as u128;
    let m = net.max(vec![stored as u128, stop]);
    if m[1] > 0 {
        return Err(ClusterError::Count(LayeredError::Stopped { layer }));
    }
    if m[0] as usize > opts.max_bytes {
        return Err(ClusterError::Count(LayeredError::MemoryBudget {
            budget: opts.max_bytes,
            layer,
            needed: m[0] as usize,
        }));
    }
    Ok(m[0] as usize)
}

/// What a count across processes is given besides the puzzle and the
/// cluster.
pub struct Run<'a> {
    /// Fingerprint of the work (board, options, code version): processes
    /// of different counts refuse to pair up.
    pub job: u64,
    /// Phases and steps, as one process reports them.
    pub progress: &'a dyn Progress,
    /// Where each process writes its share of every finished layer, and
    /// resumes from.
    pub checkpoint: Option<&'a Checkpoint>,
    /// Called on process 0 once per forward layer, loaded or computed.
    pub on_layer: Option<&'a dyn Fn(&LayerLine)>,
    /// Where layers that would not fit the memory budget go (`None`: a
    /// layer that does not fit stops the count). A full count only.
    pub spill: Option<&'a Spill>,
    /// Ranks every ranked layer in 64 bits, as layers of 2^32 possible
    /// keys or more are (for tests: the wide route on boards small
    /// enough to check).
    pub wide: bool,
}

impl<'a> Run<'a> {
    /// A run with progress `progress` and nothing else: no checkpoints,
    /// no layer lines, no spilling, ranks as wide as the layers need.
    pub fn new(job: u64, progress: &'a dyn Progress) -> Run<'a> {
        Run {
            job,
            progress,
            checkpoint: None,
            on_layer: None,
            spill: None,
            wide: false,
        }
    }
}

/// One forward layer as process 0 sees it, for progress lines.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerLine {
    /// Moves from the start.
    pub depth: usize,
    /// Positions up to symmetry, over every process.
    pub positions: u64,
    /// Positions sent to another process while the layer was built, over
    /// every process (children to their owners).
    pub sent: u64,
    /// Their bytes in memory.
    pub sent_bytes: u64,
    /// Wall time of the layer, seconds (0 when loaded).
    pub seconds: f64,
    /// Whether the layer came from the checkpoints.
    pub loaded: bool,
}

/// What the run did besides counting: layers loaded from checkpoints and
/// computed, and the exchange's volume (over every process).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Forward layers read from the checkpoints (agreed by every process).
    pub layers_loaded: usize,
    /// Forward layers computed by this run.
    pub layers_computed: usize,
    /// Positions and weighted pairs sent to another process.
    pub sent: u64,
    /// Their bytes in memory.
    pub sent_bytes: u64,
    /// Layer shares written to spill files (over every process).
    pub spilled: usize,
    /// The most memory a process planned for a step: its layers in
    /// memory, the bitmap of its blocks, the rank buffers and ranking
    /// tables, and an allowance for I/O and exchange buffers (bytes; the
    /// largest of any process).
    pub planned_peak: u64,
}

/// Bytes a step is allowed besides what it plans exactly: spill
/// readers and writers, chunks of keys and positions, the exchange's
/// batches in flight, the layout's rank tables.
const WORK_ALLOWANCE: usize = 32 << 20;

/// The enumeration of `endgame_core::layered::enumerate` over the cluster;
/// the report on process 0, `None` on the others. `job` fingerprints the
/// work so that processes of different counts refuse to pair up.
pub fn enumerate<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    cluster: &Cluster,
    job: u64,
    progress: &dyn Progress,
) -> Result<Option<LayeredReport<P::Position>>, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let run = Run::new(job, progress);
    Ok(enumerate_run(puzzle, opts, cluster, &run)?.map(|r| r.0))
}

/// Process 0's report and what the run did.
pub type Reported<T> = (LayeredReport<T>, RunStats);

/// [`enumerate`] with checkpoints and per-layer lines ([`Run`]); on
/// process 0 the report and what the run did.
pub fn enumerate_run<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    cluster: &Cluster,
    run: &Run<'_>,
) -> Result<Option<Reported<P::Position>>, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    if let Some(ck) = run.checkpoint {
        ck.check(cluster.peers())?;
    }
    let keys = puzzle.dense_keys();
    if run.spill.is_some() && (!opts.count_all || keys.is_none()) {
        return Err(ClusterError::Unsupported(
            "spilling to disk needs a full count (without --goal-only) of a board of at most \
             48 holes"
                .into(),
        ));
    }
    let ranker = keys.and_then(Ranker::for_keys);
    let owners = Owners {
        keys,
        ranker: ranker.as_deref(),
        ranked: Vec::new(),
    };
    let joined = join(cluster, run.job)?;
    let mut net = Net::new(joined, cluster.process, cluster.peers(), owners);
    let mut done = None;
    if !opts.count_all {
        done = mirrored(puzzle, opts, &mut net, run)?;
    }
    let (report, fwd) = match done {
        Some(r) => r,
        None => full(puzzle, opts, &mut net, run)?,
    };
    finish(&mut net, report, fwd)
}

/// A report with process 0's best positions, memory figures and so on
/// replaced by the cluster's (the largest per process).
fn finish<T: ExchangeData + Clone + Copy + Hash + Ord>(
    net: &mut Net<T>,
    mut r: LayeredReport<T>,
    done: Tally,
) -> Result<Option<Reported<T>>, ClusterError> {
    let rss = peak_rss_bytes().unwrap_or(0) as u128;
    let m = net.max(vec![
        r.table_bytes as u128,
        rss,
        r.bitmap_bytes as u128,
        done.planned as u128,
    ]);
    r.table_bytes = m[0] as usize;
    r.peak_rss = (m[1] > 0).then_some(m[1] as u64);
    r.bitmap_bytes = m[2] as usize;
    let (sent, sent_bytes) = net.exchanged();
    let x = net.sum(vec![sent as u128, sent_bytes as u128, done.spilled as u128]);
    let stats = RunStats {
        layers_loaded: done.loaded,
        layers_computed: done.computed,
        sent: x[0] as u64,
        sent_bytes: x[1] as u64,
        spilled: x[2] as usize,
        planned_peak: m[3] as u64,
    };
    let all = net.gather(
        vec![r.best_score as u128, r.best_count as u128],
        std::mem::take(&mut r.best_positions),
    );
    if net.me != 0 {
        return Ok(None);
    }
    let best = all
        .iter()
        .map(|(n, _)| n[0])
        .min()
        .unwrap_or(u32::MAX as u128);
    r.best_score = best as u32;
    r.best_count = 0;
    for (n, ps) in all {
        if n[0] == best {
            r.best_count += n[1] as u64;
            r.best_positions.extend(ps);
        }
    }
    r.best_positions.sort_unstable();
    Ok(Some((r, stats)))
}

/// This process's forward layers (all of them, or the newest only), the
/// summed figures of each, and what comes with them; checkpointed layer
/// by layer when the run has a checkpoint directory, spilled to disk when
/// the run spills and a layer would not fit the memory budget.
struct Forward<T> {
    layers: Vec<Share<T>>,
    stats: Vec<LayerStats>,
    best: Best<T>,
    goal_reachable: bool,
    /// Bytes of the layers held in memory here.
    stored: usize,
    table_bytes: usize,
    /// The largest bitmap of a step here.
    bitmap_bytes: usize,
    keep_all: bool,
    tally: Tally,
}

impl<T: ExchangeData + Clone + Copy + Hash + Ord> Forward<T> {
    /// Layer 0, or every layer that every process finished in an earlier
    /// run (agreed over the exchange: the fewest any process holds).
    fn start<P>(
        puzzle: &P,
        opts: &LayeredOptions,
        net: &mut Net<T>,
        run: &Run<'_>,
        keep_all: bool,
    ) -> Result<Self, ClusterError>
    where
        P: Reversible + Symmetric<Position = T>,
    {
        let mut f = Forward {
            layers: Vec::new(),
            stats: Vec::new(),
            best: Best::new(opts.max_final_positions),
            goal_reachable: false,
            stored: 0,
            table_bytes: 0,
            bitmap_bytes: 0,
            keep_all,
            tally: Tally::default(),
        };
        let mut resumed = match run.checkpoint {
            Some(ck) => ck.load::<T>(net.me, net.peers, net.owners.keys),
            None => Vec::new(),
        };
        let agreed = net.min(vec![resumed.len() as u128])[0] as usize;
        resumed.truncate(agreed);
        if resumed.is_empty() {
            let t0 = Instant::now();
            let start = puzzle.canonical(&puzzle.start());
            let me = net.me;
            let first = net.route(|push| {
                if me == 0 {
                    push(start)
                }
            });
            let goal = net.sum(vec![first.iter().any(|p| puzzle.is_goal(p)) as u128])[0] > 0;
            let stat = LayerStats {
                depth: 0,
                reduced: 1,
                raw: puzzle.orbit_size(&start) as u64,
                ..Default::default()
            };
            let first = Share::Mem(first);
            f.save(net, run, &stat, (goal, None), &first)?;
            f.line(net, run, &stat, (0, 0), t0, false);
            if let Share::Mem(v) = &first {
                add_best(&mut f.best, puzzle, v);
            }
            f.push(run, first, stat, goal);
            f.tally.computed += 1;
        } else {
            for (h, share) in resumed {
                if let Some(class) = h.ranked {
                    net.owners.rank(class)?;
                }
                let stat = LayerStats {
                    depth: h.depth as usize,
                    reduced: h.reduced,
                    raw: h.raw,
                    ..Default::default()
                };
                f.line(net, run, &stat, (0, 0), Instant::now(), true);
                add_best(&mut f.best, puzzle, &share);
                f.push(run, Share::Mem(share), stat, h.goal);
                f.tally.loaded += 1;
            }
            // Loaded whole; spilled now if they do not fit.
            if net.max(vec![f.stored as u128])[0] as usize > opts.max_bytes {
                f.spill_layers(net, run)?;
            }
        }
        f.table_bytes = check_budget(net, opts, f.stored, f.stats.len() - 1)?;
        f.tally.planned = f.stored;
        Ok(f)
    }

    fn tally(&self) -> Tally {
        self.tally
    }

    fn push(&mut self, run: &Run<'_>, share: Share<T>, stat: LayerStats, goal: bool) {
        self.goal_reachable |= goal;
        self.stats.push(stat);
        self.stored += share.bytes();
        if self.keep_all || self.layers.is_empty() {
            self.layers.push(share);
        } else {
            let old = std::mem::replace(&mut self.layers[0], share);
            self.stored -= old.bytes();
            if let (Share::Disk(f), Some(sp)) = (&old, run.spill) {
                sp.remove(&f.path);
            }
        }
    }

    /// Writes every layer held in memory here to a spill file (when the
    /// run spills).
    fn spill_layers(&mut self, net: &Net<T>, run: &Run<'_>) -> Result<(), ClusterError> {
        let (Some(sp), Some(dk)) = (run.spill, net.owners.keys) else {
            return Ok(());
        };
        let base = self.stats.len() - self.layers.len();
        let mut keys = Vec::with_capacity(CHUNK);
        for (i, l) in self.layers.iter_mut().enumerate() {
            let Share::Mem(v) = l else {
                continue;
            };
            let mut w = sp.create(base + i, net.me)?;
            for c in v.chunks(CHUNK) {
                keys.clear();
                dk.keys(c, &mut keys);
                w.write(&keys)?;
            }
            self.stored -= bytes(v);
            *l = Share::Disk(w.finish()?);
            self.tally.spilled += 1;
        }
        Ok(())
    }

    /// Forgets the rankings of layers no longer kept: nothing is routed
    /// to them again.
    fn forget_rankings(&self, owners: &mut Owners<'_, T>, newest: Option<(u32, u64)>) {
        if !self.keep_all {
            owners.ranked.retain(|e| Some(e.0) == newest);
        }
    }

    /// This process's share of a finished layer to its checkpoint file.
    fn save(
        &self,
        net: &Net<T>,
        run: &Run<'_>,
        stat: &LayerStats,
        (goal, ranked): (bool, Option<(u32, u64)>),
        share: &Share<T>,
    ) -> Result<(), ClusterError> {
        let Some(ck) = run.checkpoint else {
            return Ok(());
        };
        let h = Header {
            fingerprint: ck.fingerprint,
            peers: net.peers as u64,
            process: net.me as u64,
            depth: stat.depth as u64,
            reduced: stat.reduced,
            raw: stat.raw,
            goal,
            ranked,
        };
        let dk = net.owners.keys;
        ck.write_chunks(&h, share.len() as u64, dk, |f| share.for_each_chunk(dk, f))
    }

    /// The layer's line on process 0.
    fn line(
        &self,
        net: &Net<T>,
        run: &Run<'_>,
        stat: &LayerStats,
        (sent, sent_bytes): (u64, u64),
        t0: Instant,
        loaded: bool,
    ) {
        if let (0, Some(on)) = (net.me, run.on_layer) {
            on(&LayerLine {
                depth: stat.depth,
                positions: stat.reduced,
                sent,
                sent_bytes,
                seconds: if loaded {
                    0.0
                } else {
                    t0.elapsed().as_secs_f64()
                },
                loaded,
            });
        }
    }

    /// The next layer: the children of this process's share of the
    /// newest one, sent to their owners and de-duplicated there. `false`
    /// when it is empty (and nothing is kept).
    fn step<P>(
        &mut self,
        puzzle: &P,
        opts: &LayeredOptions,
        net: &mut Net<T>,
        run: &Run<'_>,
    ) -> Result<bool, ClusterError>
    where
        P: Reversible + Symmetric<Position = T>,
    {
        let t0 = Instant::now();
        let depth = self.stats.len();
        let before = net.exchanged();
        let parents_total = self.stats.last().map_or(0, |s| s.reduced);
        let dk = net.owners.keys;
        let me = net.me;
        let mut filled = None;
        if let Some((class, layer, map_bytes)) = ranked_plan(
            net,
            opts,
            self.layers.last().expect("the start layer"),
            parents_total,
            (run.wide, run.spill.is_some()),
        )? {
            // The step's memory, planned before the bitmap is allocated:
            // the layers held here, the bitmap of this process's blocks,
            // the rank buffers, the rankings, an allowance.
            let wide = matches!(layer, Ranked::Wide(_));
            let fixed = map_bytes
                + fill_buffer_bytes(map_bytes, wide)
                + layer.table_bytes()
                + net
                    .owners
                    .ranked
                    .iter()
                    .map(|e| e.1.table_bytes())
                    .sum::<usize>()
                + WORK_ALLOWANCE;
            let fits = match run.spill {
                // Without spilling, as one process decides: the layers
                // and the bitmap (else the layer is hashed).
                None => {
                    net.max(vec![(self.stored + map_bytes) as u128])[0] as usize <= opts.max_bytes
                }
                Some(_) => {
                    let mut most = net.max(vec![(self.stored + fixed) as u128])[0] as usize;
                    if most > opts.max_bytes {
                        self.spill_layers(net, run)?;
                        most = net.max(vec![(self.stored + fixed) as u128])[0] as usize;
                    }
                    if most > opts.max_bytes {
                        return Err(ClusterError::Count(LayeredError::MemoryBudget {
                            budget: opts.max_bytes,
                            layer: depth,
                            needed: most,
                        }));
                    }
                    self.tally.planned = self.tally.planned.max(self.stored + fixed);
                    true
                }
            };
            if fits {
                let parents = self.layers.last().expect("the start layer");
                let words = match &layer {
                    Ranked::Narrow(l) => fill_ranks(
                        &mut net.joined.worker,
                        &mut net.ranks,
                        dk,
                        l,
                        parents,
                        net.peers,
                        net.me,
                    )?,
                    Ranked::Wide(l) => fill_ranks(
                        &mut net.joined.worker,
                        &mut net.ranks64,
                        dk,
                        l,
                        parents,
                        net.peers,
                        net.me,
                    )?,
                };
                // A child outside the ranking on any process: the layer
                // is made again by hashing.
                let bad = words.is_none();
                if net.max(vec![bad as u128])[0] == 0 {
                    filled = words.map(|w| (w, layer, class));
                }
            }
        }
        let (next, ranked, raw, goal) = match filled {
            Some((words, layer, class)) => {
                self.bitmap_bytes = self.bitmap_bytes.max(words.len() * 8);
                let count: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
                let to_disk = run.spill.is_some()
                    && self.stored + count as usize * std::mem::size_of::<T>() + words.len() * 8
                        > opts.max_bytes;
                let mut sink = Sink::new(run, dk, to_disk, depth, me, count as usize)?;
                let mut keys = Vec::new();
                for (lb, w) in words.chunks(BLOCK_WORDS).enumerate() {
                    if w.iter().all(|&x| x == 0) {
                        continue;
                    }
                    let b = lb * net.peers + me;
                    keys.clear();
                    layer.extract(w, b * BLOCK_WORDS, &mut keys);
                    sink.keys(puzzle, opts.prune, &mut self.best, &keys)?;
                }
                drop(words);
                net.owners.ranked.push((class, layer));
                let (share, raw, goal) = sink.finish()?;
                (share, Some(class), raw, goal)
            }
            None => {
                let parents = self.layers.last().expect("the start layer");
                let mut failed = Ok(());
                let children = net.route(|push| {
                    failed = parents.for_each_chunk(dk, &mut |c| {
                        for p in c {
                            puzzle.for_each_canonical_child(p, &mut *push);
                        }
                        true
                    });
                });
                failed?;
                let next = distinct(children);
                let to_disk = run.spill.is_some() && self.stored + bytes(&next) > opts.max_bytes;
                let mut sink = Sink::new(run, dk, to_disk, depth, me, 0)?;
                sink.positions(puzzle, opts.prune, &mut self.best, next)?;
                let (share, raw, goal) = sink.finish()?;
                (share, None, raw, goal)
            }
        };
        self.forget_rankings(&mut net.owners, ranked);
        let after = net.exchanged();
        let s = net.sum(vec![
            next.len() as u128,
            raw as u128,
            goal as u128,
            (after.0 - before.0) as u128,
            (after.1 - before.1) as u128,
        ]);
        if s[0] == 0 {
            if let (Share::Disk(f), Some(sp)) = (&next, run.spill) {
                sp.remove(&f.path);
            }
            return Ok(false);
        }
        if matches!(next, Share::Disk(_)) {
            self.tally.spilled += 1;
        }
        let stored = self.stored + next.bytes();
        self.tally.planned = self.tally.planned.max(stored);
        self.table_bytes = self
            .table_bytes
            .max(check_budget(net, opts, stored, depth)?);
        let stat = LayerStats {
            depth,
            reduced: s[0] as u64,
            raw: s[1] as u64,
            ..Default::default()
        };
        self.save(net, run, &stat, (s[2] > 0, ranked), &next)?;
        self.line(net, run, &stat, (s[3] as u64, s[4] as u64), t0, false);
        self.push(run, next, stat, s[2] > 0);
        self.tally.computed += 1;
        Ok(true)
    }
}

/// Where a new layer's share goes as it is made: into memory, or into a
/// spill file; and its figures (positions counted without symmetry,
/// whether a goal is among them), the best positions taken as it passes.
struct Sink<'a, T> {
    mem: Vec<T>,
    disk: Option<SpillWriter>,
    dk: Option<&'a dyn DenseKeys<T>>,
    raw: u64,
    goal: bool,
    scratch: Vec<T>,
    keys: Vec<u64>,
    /// The keys a test on keys kept (reused batch to batch).
    kept: Vec<u64>,
}

impl<'a, T: Copy + Ord> Sink<'a, T> {
    fn new(
        run: &Run<'_>,
        dk: Option<&'a dyn DenseKeys<T>>,
        to_disk: bool,
        depth: usize,
        me: usize,
        capacity: usize,
    ) -> Result<Self, ClusterError> {
        let disk = match (to_disk, run.spill) {
            (true, Some(sp)) => Some(sp.create(depth, me)?),
            _ => None,
        };
        Ok(Sink {
            mem: Vec::with_capacity(if disk.is_some() { 0 } else { capacity }),
            disk,
            dk,
            raw: 0,
            goal: false,
            scratch: Vec::new(),
            keys: Vec::new(),
            kept: Vec::new(),
        })
    }

    fn figures<P: Reversible + Symmetric<Position = T>>(
        raw: &mut u64,
        goal: &mut bool,
        puzzle: &P,
        best: &mut Best<T>,
        chunk: &[T],
    ) {
        *raw += chunk
            .iter()
            .map(|p| puzzle.orbit_size(p) as u64)
            .sum::<u64>();
        *goal |= chunk.iter().any(|p| puzzle.is_goal(p));
        add_best(best, puzzle, chunk);
    }

    /// Takes the next keys of the share, in order.
    fn keys<P: Reversible + Symmetric<Position = T>>(
        &mut self,
        puzzle: &P,
        prune: bool,
        best: &mut Best<T>,
        keys_in: &[u64],
    ) -> Result<(), ClusterError> {
        let Some(dk) = self.dk else {
            return Err(ClusterError::Unsupported(
                "ranked layers of a puzzle without dense keys".into(),
            ));
        };
        // A test on keys (`DenseKeys::prune_keys`) filters them before
        // their positions are made; without one the positions are tested.
        let mut kept = std::mem::take(&mut self.kept);
        kept.clear();
        let (keys, prune) = if prune {
            kept.extend_from_slice(keys_in);
            match dk.prune_keys(&mut kept) {
                true => (kept.as_slice(), false),
                false => (keys_in, true),
            }
        } else {
            (keys_in, false)
        };
        match &mut self.disk {
            None => {
                let start = self.mem.len();
                dk.positions(keys, &mut self.mem);
                if prune {
                    let mut tail = self.mem.split_off(start);
                    tail.retain(|p| !puzzle.cannot_reach_goal(p));
                    self.mem.append(&mut tail);
                }
                Self::figures(
                    &mut self.raw,
                    &mut self.goal,
                    puzzle,
                    best,
                    &self.mem[start..],
                );
            }
            Some(w) => {
                self.scratch.clear();
                dk.positions(keys, &mut self.scratch);
                if prune {
                    self.scratch.retain(|p| !puzzle.cannot_reach_goal(p));
                }
                Self::figures(&mut self.raw, &mut self.goal, puzzle, best, &self.scratch);
                if self.scratch.len() == keys.len() {
                    w.write(keys)?;
                } else {
                    self.keys.clear();
                    dk.keys(&self.scratch, &mut self.keys);
                    w.write(&self.keys)?;
                }
            }
        }
        self.kept = kept;
        Ok(())
    }

    /// Takes the whole share, sorted.
    fn positions<P: Reversible + Symmetric<Position = T>>(
        &mut self,
        puzzle: &P,
        prune: bool,
        best: &mut Best<T>,
        mut share: Vec<T>,
    ) -> Result<(), ClusterError> {
        if prune {
            share.retain(|p| !puzzle.cannot_reach_goal(p));
        }
        Self::figures(&mut self.raw, &mut self.goal, puzzle, best, &share);
        match (&mut self.disk, self.dk) {
            (None, _) => self.mem = share,
            (Some(w), Some(dk)) => {
                for c in share.chunks(CHUNK) {
                    self.keys.clear();
                    dk.keys(c, &mut self.keys);
                    w.write(&self.keys)?;
                }
            }
            (Some(_), None) => {
                return Err(ClusterError::Unsupported(
                    "spilling a puzzle without dense keys".into(),
                ))
            }
        }
        Ok(())
    }

    /// The share, its raw count and whether it holds a goal.
    fn finish(self) -> Result<(Share<T>, u64, bool), ClusterError> {
        let share = match self.disk {
            Some(w) => Share::Disk(w.finish()?),
            None => Share::Mem(self.mem),
        };
        Ok((share, self.raw, self.goal))
    }
}

/// A rank as it travels and waits in a segment's buffer: 32 bits for a
/// layer of fewer than 2^32 keys, 64 for a wider one.
trait RankWord: ExchangeData + Copy {
    fn of(x: u64) -> Self;
    fn get(self) -> u64;
}

impl RankWord for u32 {
    #[inline(always)]
    fn of(x: u64) -> u32 {
        x as u32
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}

impl RankWord for u64 {
    #[inline(always)]
    fn of(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self
    }
}

/// Bytes of the segment buffers of a bitmap of `map_bytes` (each full
/// before it is set), with ranks of 8 bytes (`wide`) or 4.
fn fill_buffer_bytes(map_bytes: usize, wide: bool) -> usize {
    let segments = (map_bytes * 8).div_ceil(1 << SEGMENT_LOG).max(1);
    segments * SEGMENT_FLUSH * if wide { 8 } else { 4 }
}

/// This process's bitmap of a ranked layer: its blocks only, block `b`
/// of the layer (`b mod N` = this process) at local block `b div N`.
/// Arriving ranks wait in their segment's buffer, then a buffer's bits
/// are set together, in cache.
struct Fill<R> {
    words: Vec<u64>,
    segments: Vec<Vec<R>>,
    peers: u64,
}

impl<R: RankWord> Fill<R> {
    fn new(blocks: usize, peers: usize) -> Fill<R> {
        let words = vec![0u64; blocks * BLOCK_WORDS];
        let nseg = (words.len() << 6).div_ceil(1 << SEGMENT_LOG).max(1);
        Fill {
            words,
            segments: vec![Vec::new(); nseg],
            peers: peers as u64,
        }
    }

    /// Takes ranks owned here.
    fn add(&mut self, ranks: &[R]) {
        let mask = (1u64 << BLOCK_LOG) - 1;
        for &r in ranks {
            let r = r.get();
            let local = ((r >> BLOCK_LOG) / self.peers) << BLOCK_LOG | (r & mask);
            let s = &mut self.segments[(local >> SEGMENT_LOG) as usize];
            s.push(R::of(local));
            if s.len() >= SEGMENT_FLUSH {
                set_bits(&mut self.words, s);
            }
        }
    }

    /// The bitmap, every buffered rank set.
    fn finish(mut self) -> Vec<u64> {
        for s in &mut self.segments {
            set_bits(&mut self.words, s);
        }
        self.words
    }
}

/// Sets the bits `ranks` name and empties `ranks`.
fn set_bits<R: RankWord>(words: &mut [u64], ranks: &mut Vec<R>) {
    for &r in ranks.iter() {
        let r = r.get();
        words[(r >> 6) as usize] |= 1 << (r & 63);
    }
    ranks.clear();
}

/// A ranked step's layer class, ranking and bitmap bytes a process.
type Plan<'r> = ((u32, u64), Ranked<'r>, usize);

/// Whether the next layer is de-duplicated in a ranked bitmap: its
/// class, ranking and the bytes of this process's bitmap, or `None`
/// (agreed by every process) when the layer is left to hashing: the
/// puzzle has no dense keys, the layer is too small or its bitmap too
/// sparse, or the processes' children disagree on the class.
fn ranked_plan<'r, T: ExchangeData + Clone + Copy + Hash + Ord>(
    net: &mut Net<'r, T>,
    opts: &LayeredOptions,
    parents: &Share<T>,
    parents_total: u64,
    (wide, spill): (bool, bool),
) -> Result<Option<Plan<'r>>, ClusterError> {
    let (Some(dk), Some(ranker)) = (net.owners.keys, net.owners.ranker) else {
        return Ok(None);
    };
    // Decided from figures every process has (the parents' total).
    let forced = opts.dense_min_children == 0;
    let est = parents_total.saturating_mul(CHILDREN_PER_PARENT);
    if !forced && est < opts.dense_min_children as u64 {
        return Ok(None);
    }
    // The layer's class, from the first child of each process's share;
    // the processes must agree on it.
    let mut probe = Vec::new();
    parents.for_each_chunk(Some(dk), &mut |c| {
        for p in c {
            dk.child_keys(std::slice::from_ref(p), &mut probe);
            if !probe.is_empty() {
                return false;
            }
        }
        true
    })?;
    let mine = match probe.first().map(|&k| ranker.layer_class(k)) {
        Some((k, par)) => vec![1, k as u128, par as u128],
        None => vec![0, 0, 0],
    };
    let all = net.all(mine);
    let mut classes = all
        .iter()
        .filter(|v| v[0] == 1)
        .map(|v| (v[1] as u32, v[2] as u64));
    let Some(class) = classes.next() else {
        return Ok(None);
    };
    if classes.any(|c| c != class) {
        return Ok(None);
    }
    let Some(layer) = ranking(ranker, class, wide) else {
        return Ok(None);
    };
    let peers = net.peers;
    let blocks = layer.len().div_ceil(1 << BLOCK_LOG) as usize;
    // Every process's bitmap is as big as the largest (agreed).
    let map_bytes = blocks.div_ceil(peers) * BLOCK_WORDS * 8;
    let whole = layer.len().div_ceil(8);
    // A sparse bitmap is left to hashing, as one process decides; but not
    // when spilling: the hashed route holds every child it receives (16
    // bytes each on boards of more than 64 grid cells) until sorted,
    // unplanned: on the 41-hole diamond's layer 15 it took 2.4 GB a
    // process and 179 s where the bitmap took 1.5 GB and 130 s (a loaded
    // machine, one run each).
    if layer.len() == 0 || (!forced && !spill && whole > est.saturating_mul(BYTES_PER_CHILD)) {
        return Ok(None);
    }
    Ok(Some((class, layer, map_bytes)))
}

/// The children of this process's share `parents` ranked in `layer`,
/// their ranks sent to their block's owner (4 or 8 bytes each instead of
/// a position), which sets their bits: this process's bitmap, or `None`
/// when a child fell outside the ranking (the puzzle's invariants did not
/// hold). Scanning its blocks hands back the share sorted, so no process
/// sorts a child.
fn fill_ranks<T: Copy, H: HighWord, R: RankWord>(
    worker: &mut timely::worker::Worker,
    channel: &mut Channel<R>,
    dk: Option<&dyn DenseKeys<T>>,
    layer: &LayerRank<'_, H>,
    parents: &Share<T>,
    peers: usize,
    me: usize,
) -> Result<Option<Vec<u64>>, ClusterError> {
    let Some(dk) = dk else {
        return Ok(None);
    };
    let blocks = layer.len().div_ceil(1 << BLOCK_LOG) as usize;
    let mine_blocks = blocks / peers + usize::from(me < blocks % peers);
    let mut fill = Fill::<R>::new(mine_blocks, peers);
    let in_class = dk.children_keep_class();
    let len = layer.len();
    let mut bad = false;
    let mut failed = Ok(());
    {
        let bad = &mut bad;
        let failed = &mut failed;
        channel.round_into(
            worker,
            |r: &R| r.get() >> BLOCK_LOG,
            |out| {
                let mut keys = Vec::with_capacity(RANK_CHUNK * 16);
                let mut ranks = Vec::with_capacity(RANK_CHUNK * 16);
                *failed = parents.for_each_chunk(Some(dk), &mut |c| {
                    for chunk in c.chunks(RANK_CHUNK) {
                        keys.clear();
                        dk.child_keys(chunk, &mut keys);
                        ranks.clear();
                        ranks.extend(keys.iter().map_while(|&k| {
                            let r = if in_class {
                                layer.rank_in_class(k).filter(|&r| r < len)
                            } else {
                                layer.rank(k)
                            };
                            r.map(R::of)
                        }));
                        if ranks.len() < keys.len() {
                            *bad = true;
                        }
                        // The chunk's ranks in one call: their routing is
                        // the channel's loop, not a call a rank.
                        out.send_all(&ranks);
                    }
                    true
                });
            },
            &mut |ranks| fill.add(ranks),
        );
    }
    failed?;
    Ok((!bad).then(|| fill.finish()))
}

/// What a route did besides its report.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Forward layers loaded from checkpoints and computed.
    loaded: usize,
    computed: usize,
    /// Layer shares this process spilled.
    spilled: usize,
    /// The most memory this process planned for a step.
    planned: usize,
}

/// The report of a route and what it did.
type Done<T> = (LayeredReport<T>, Tally);

fn full<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    net: &mut Net<P::Position>,
    run: &Run<'_>,
) -> Result<Done<P::Position>, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let progress = run.progress;
    let unreachable = hopeless(puzzle);
    let keep = opts.backward && !unreachable;
    let mut fwd = Forward::start(puzzle, opts, net, run, keep)?;
    loop {
        progress.phase(&format!("layer {}", fwd.stats.len()), 1);
        let grew = fwd.step(puzzle, opts, net, run)?;
        progress.advance(1);
        if !grew {
            break;
        }
    }
    let tally = fwd.tally();
    let Forward {
        mut layers,
        mut stats,
        best,
        goal_reachable,
        table_bytes,
        bitmap_bytes,
        ..
    } = fwd;
    let dk = net.owners.keys;
    let mut solutions = None;
    if opts.backward && unreachable {
        solutions = Some(0);
    } else if opts.backward {
        let goals = goals_by_depth(puzzle);
        progress.phase("backward", stats.len() as u64);
        let mut next: Counted<P::Position> = Vec::new();
        for depth in (0..stats.len()).rev() {
            let pairs = net.route_pairs(|push| {
                for &(q, n, o) in &next {
                    let w = n * o as u128;
                    canonical_parents(puzzle, &q, |p, _| push((p, w)));
                }
            });
            let here = layers.pop().expect("a layer a depth");
            next = counted(puzzle, |f| here.for_each_chunk(dk, f), pairs, &goals, depth)?;
            // Done with: its spill file goes now, not at the end.
            if let (Share::Disk(f), Some(sp)) = (&here, run.spill) {
                sp.remove(&f.path);
            }
            let s = net.sum(vec![
                next.len() as u128,
                next.iter().map(|e| e.2 as u128).sum(),
                if depth == 0 {
                    next.iter().map(|e| e.1).sum()
                } else {
                    0
                },
            ]);
            stats[depth].to_goal_reduced = s[0] as u64;
            stats[depth].to_goal_raw = s[1] as u64;
            if depth == 0 {
                solutions = Some(s[2]);
            }
            progress.advance(1);
        }
    }
    let mut r = report(
        stats,
        goal_reachable,
        solutions,
        best,
        table_bytes,
        !opts.prune,
    );
    r.bitmap_bytes = bitmap_bytes;
    Ok((r, tally))
}

/// The members of this process's share `here` of layer `depth` that the
/// routed `pairs` reach, with their solution counts (the sum of the
/// weights `N(q)·|O_q|` divided by their own orbit size) and orbit sizes;
/// a goal of this depth held here counts one solution.
fn counted<P: Reversible + Symmetric>(
    puzzle: &P,
    here: impl FnOnce(&mut dyn FnMut(&[P::Position]) -> bool) -> Result<(), ClusterError>,
    mut pairs: Vec<(P::Position, u128)>,
    goals: &[(usize, P::Position)],
    depth: usize,
) -> Result<Counted<P::Position>, ClusterError> {
    // A goal held elsewhere (or nowhere) is dropped by the merge with
    // the share, as every pair is.
    for &(d, g) in goals {
        if d == depth {
            pairs.push((g, puzzle.orbit_size(&g) as u128));
        }
    }
    Ok(summed(pairs, here)?
        .into_iter()
        .map(|(p, w)| {
            let o = puzzle.orbit_size(&p);
            debug_assert_eq!(w % o as u128, 0, "orbit weights must divide");
            (p, w / o as u128, o)
        })
        .collect())
}

/// The goal-only search of a puzzle with a time reversal σ (a single goal,
/// σ of the start): `Ok(None)` when that route does not apply and the
/// caller enumerates everything.
fn mirrored<P>(
    puzzle: &P,
    opts: &LayeredOptions,
    net: &mut Net<P::Position>,
    run: &Run<'_>,
) -> Result<Option<Done<P::Position>>, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let progress = run.progress;
    let start = puzzle.canonical(&puzzle.start());
    let s0 = puzzle.score(&start) as usize;
    let goals = goals_by_depth(puzzle);
    let Some(&(last, _)) = goals.last() else {
        return Ok(None);
    };
    let reversal = puzzle
        .reversal(&puzzle.start())
        .filter(|g| goals.len() == 1 && goals[0] == (last, puzzle.canonical(g)));
    if reversal.is_none() {
        return Err(ClusterError::Unsupported(
            "a goal-only count across processes needs a single goal that is the \
             start's complement; count everything instead (without --goal-only)"
                .into(),
        ));
    }
    let unreachable = hopeless(puzzle);
    let half = last / 2;
    let mut stats: Vec<LayerStats> = (0..=last)
        .map(|depth| LayerStats {
            depth,
            ..Default::default()
        })
        .collect();
    stats[0].reduced = 1;
    stats[0].raw = puzzle.orbit_size(&start) as u64;
    // Forward to the middle (checkpoints of a run that fell back to the
    // full enumeration may hold deeper layers: not needed here).
    let mut f = Forward::start(puzzle, opts, net, run, true)?;
    f.layers.truncate(half + 1);
    f.stats.truncate(half + 1);
    while f.layers.len() - 1 < half && !unreachable {
        progress.phase(&format!("layer {}", f.layers.len()), 1);
        let grew = f.step(puzzle, opts, net, run)?;
        progress.advance(1);
        if !grew {
            break;
        }
    }
    for (d, st) in f.stats.iter().enumerate().skip(1) {
        stats[d].reduced = st.reduced;
    }
    let tally = f.tally();
    let Forward {
        layers,
        mut best,
        table_bytes,
        ..
    } = f;
    // No spilling here (refused up front): every share is in memory.
    let dk = net.owners.keys;
    let fwd = layers
        .into_iter()
        .map(|l| l.into_vec(dk))
        .collect::<Result<Vec<_>, _>>()?;
    let m = fwd.len() - 1;
    let met = m == half && !unreachable && net.sum(vec![fwd[m].len() as u128])[0] > 0;
    if met {
        let fine = fwd[m].iter().all(|p| puzzle.score(p) as usize + m == s0);
        if net.sum(vec![(!fine) as u128])[0] > 0 {
            return Ok(None);
        }
    }
    let across = last % 2 == 1;
    let mut solutions = None;
    let mut goal_reachable = false;
    if met {
        progress.phase("meeting", 1);
        // x of layer m reaches the goal when σ(x) is in layer m (even
        // `last`) or has a parent there (odd): the relation is symmetric,
        // so each x marks its partners at their owners.
        let middle = &fwd[m];
        let hits = net.route(|push| {
            for x in middle {
                let Some(s) = puzzle.reversal(x) else {
                    continue;
                };
                if across {
                    canonical_parents(puzzle, &s, |y, _| push(y));
                } else {
                    push(puzzle.canonical(&s));
                }
            }
        });
        let good = marked(middle, hits);
        progress.advance(1);
        // Steps back inside the forward layers: the parents of the
        // goal-reaching positions one layer deeper.
        progress.phase("goal-reaching", m as u64);
        let mut low: Vec<Vec<P::Position>> = vec![good];
        for d in (0..m).rev() {
            let to = low.last().expect("a layer");
            let hits = net.route(|push| {
                for q in to {
                    canonical_parents(puzzle, q, |p, _| push(p));
                }
            });
            low.push(marked(&fwd[d], hits));
            progress.advance(1);
        }
        low.reverse();
        // low[d] for d <= m; deeper layers mirror them.
        let layer = |d: usize| if d <= m { &low[d] } else { &low[last - d] };
        // A deeper layer has the orbit sizes of the one it mirrors (σ
        // commutes with the symmetries): summed once.
        let raw: Vec<u128> = (0..=m)
            .map(|d| low[d].iter().map(|p| puzzle.orbit_size(p) as u128).sum())
            .collect();
        let mut local = Vec::with_capacity(2 * (last + 1));
        for d in 0..=last {
            local.push(layer(d).len() as u128);
            local.push(raw[if d <= m { d } else { last - d }]);
        }
        let s = net.sum(local);
        for (d, stat) in stats.iter_mut().enumerate() {
            if d > m {
                stat.reduced = s[2 * d] as u64;
            }
            stat.to_goal_reduced = s[2 * d] as u64;
            stat.to_goal_raw = s[2 * d + 1] as u64;
        }
        goal_reachable = s[2 * last] > 0;
        // The deepest layer, σ of the goal-reaching starts, for the best
        // result (σ maps classes one to one, so no two processes hold
        // the same image).
        if last > m {
            let deepest: Vec<P::Position> = layer(last)
                .iter()
                .filter_map(|p| puzzle.reversal(p).map(|s| puzzle.canonical(&s)))
                .collect();
            add_best(&mut best, puzzle, &deepest);
        }
        if opts.count_solutions {
            progress.phase("counting", m as u64 + 1);
            solutions = Some(mirrored_solutions(puzzle, net, &low, m, across)?);
        }
    } else {
        solutions = Some(0);
    }
    Ok(Some((
        report(stats, goal_reachable, solutions, best, table_bytes, false),
        tally,
    )))
}

/// The solutions from the goal-reaching layers `good[0..=m]` of the
/// shallower half (`endgame_core::layered`'s `mirrored_solutions`): the
/// sequences from the start `F(p)` forward, then the crossing of the
/// middle, each member's incoming weights times its own `F`.
fn mirrored_solutions<P>(
    puzzle: &P,
    net: &mut Net<P::Position>,
    good: &[Vec<P::Position>],
    m: usize,
    across: bool,
) -> Result<u128, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let mut f: Counted<P::Position> = good[0]
        .iter()
        .map(|&p| (p, 1, puzzle.orbit_size(&p)))
        .collect();
    for layer in &good[1..=m] {
        let pairs = net.route_pairs(|push| {
            for &(q, n, o) in &f {
                let w = n * o as u128;
                puzzle.for_each_canonical_child(&q, |c| push((c, w)));
            }
        });
        f = counted(
            puzzle,
            |f| {
                f(layer);
                Ok(())
            },
            pairs,
            &[],
            usize::MAX,
        )?;
    }
    let s = net.sum(vec![f.len() as u128, good[m].len() as u128]);
    if s[0] != s[1] {
        return Ok(0);
    }
    let pairs = net.route_pairs(|push| {
        for &(p, n, o) in &f {
            let w = n * o as u128;
            let Some(s) = puzzle.reversal(&p) else {
                continue;
            };
            if across {
                canonical_parents(puzzle, &s, |r, _| push((r, w)));
            } else {
                push((puzzle.canonical(&s), w));
            }
        }
    });
    // f covers every member of the middle layer here, sorted as it is.
    let keys: Vec<P::Position> = f.iter().map(|e| e.0).collect();
    let crossing: u128 = summed(pairs, |f| {
        f(&keys);
        Ok(())
    })?
    .into_iter()
    .map(|(r, w)| {
        let k = keys
            .binary_search(&r)
            .expect("a member of the middle layer");
        w * f[k].1
    })
    .sum();
    Ok(net.sum(vec![crossing])[0])
}
