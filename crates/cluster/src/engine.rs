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
use crate::ClusterError;
use endgame_core::dense::{DenseKeys, LayerRank, Ranker};
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
    ranked: Vec<((u32, u64), LayerRank<'r>)>,
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
        let Some(layer) = self.ranker.and_then(|r| r.layer(class.0, class.1)) else {
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
        Net {
            joined,
            positions,
            pairs,
            control,
            ranks,
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
            produce,
        )
    }

    /// Weighted positions to their owners.
    fn route_pairs(&mut self, produce: impl FnOnce(&mut dyn FnMut((T, u128)))) -> Vec<(T, u128)> {
        let owners = &self.owners;
        self.pairs.round(
            &mut self.joined.worker,
            |p: &(T, u128)| owners.owner(&p.0),
            None,
            produce,
        )
    }

    /// Every process's numbers, by process (a barrier too).
    fn all(&mut self, numbers: Vec<u128>) -> Vec<Vec<u128>> {
        let peers = self.peers;
        let mut got = self.control.round(
            &mut self.joined.worker,
            |m: &Message<T>| m.0,
            None,
            |push| {
                for p in 0..peers {
                    push((p as u64, numbers.clone(), Vec::new()));
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
            self.positions.remote + self.pairs.remote + self.ranks.remote,
            size(self.positions.remote, std::mem::size_of::<T>())
                + size(self.pairs.remote, std::mem::size_of::<(T, u128)>())
                + size(self.ranks.remote, std::mem::size_of::<u32>()),
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
                |push| {
                    push((0, numbers, positions));
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

/// The weights of `pairs` summed per position, for the members of the
/// sorted `share` only, sorted.
fn summed<T: Ord + Copy>(share: &[T], mut pairs: Vec<(T, u128)>) -> Vec<(T, u128)> {
    pairs.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(T, u128)> = Vec::new();
    let mut j = 0;
    for (p, w) in pairs {
        if let Some(last) = out.last_mut().filter(|l| l.0 == p) {
            last.1 += w;
            continue;
        }
        while j < share.len() && share[j] < p {
            j += 1;
        }
        if j < share.len() && share[j] == p {
            out.push((p, w));
        }
    }
    out
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
}

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
    let run = Run {
        job,
        progress,
        checkpoint: None,
        on_layer: None,
    };
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
    let ranker = keys.and_then(|dk| Ranker::shared(dk.key_bits(), &dk.invariants()));
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
    (loaded, computed): (usize, usize),
) -> Result<Option<Reported<T>>, ClusterError> {
    let rss = peak_rss_bytes().unwrap_or(0) as u128;
    let m = net.max(vec![r.table_bytes as u128, rss]);
    r.table_bytes = m[0] as usize;
    r.peak_rss = (m[1] > 0).then_some(m[1] as u64);
    let (sent, sent_bytes) = net.exchanged();
    let x = net.sum(vec![sent as u128, sent_bytes as u128]);
    let stats = RunStats {
        layers_loaded: loaded,
        layers_computed: computed,
        sent: x[0] as u64,
        sent_bytes: x[1] as u64,
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
/// by layer when the run has a checkpoint directory.
struct Forward<T> {
    layers: Vec<Vec<T>>,
    stats: Vec<LayerStats>,
    best: Best<T>,
    goal_reachable: bool,
    /// Bytes of the stored layers here, and the most of any process.
    stored: usize,
    table_bytes: usize,
    keep_all: bool,
    loaded: usize,
    computed: usize,
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
            keep_all,
            loaded: 0,
            computed: 0,
        };
        let mut resumed = match run.checkpoint {
            Some(ck) => ck.load::<T>(net.me, net.peers),
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
            f.save(net, run, &stat, (goal, None), &first)?;
            f.line(net, run, &stat, (0, 0), t0, false);
            f.push(puzzle, first, stat, goal);
            f.computed += 1;
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
                f.push(puzzle, share, stat, h.goal);
                f.loaded += 1;
            }
        }
        f.table_bytes = check_budget(net, opts, f.stored, f.stats.len() - 1)?;
        Ok(f)
    }

    fn push<P: Reversible + Symmetric<Position = T>>(
        &mut self,
        puzzle: &P,
        share: Vec<T>,
        stat: LayerStats,
        goal: bool,
    ) {
        add_best(&mut self.best, puzzle, &share);
        self.goal_reachable |= goal;
        self.stats.push(stat);
        self.stored += bytes(&share);
        if self.keep_all || self.layers.is_empty() {
            self.layers.push(share);
        } else {
            self.stored -= bytes(&self.layers[0]);
            self.layers[0] = share;
        }
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
        share: &[T],
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
        ck.write(&h, share)
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
        let parents = self.layers.last().expect("the start layer");
        let parents_total = self.stats.last().map_or(0, |s| s.reduced);
        let (mut next, ranked) = match ranked_step(net, opts, parents, parents_total, self.stored)?
        {
            Some((share, class)) => (share, Some(class)),
            None => {
                let children = net.route(|push| {
                    for p in parents {
                        puzzle.for_each_canonical_child(p, &mut *push);
                    }
                });
                (distinct(children), None)
            }
        };
        self.forget_rankings(&mut net.owners, ranked);
        if opts.prune {
            next.retain(|p| !puzzle.cannot_reach_goal(p));
        }
        let raw: u64 = next.iter().map(|p| puzzle.orbit_size(p) as u64).sum();
        let goal = next.iter().any(|p| puzzle.is_goal(p));
        let after = net.exchanged();
        let s = net.sum(vec![
            next.len() as u128,
            raw as u128,
            goal as u128,
            (after.0 - before.0) as u128,
            (after.1 - before.1) as u128,
        ]);
        if s[0] == 0 {
            return Ok(false);
        }
        let stored = self.stored + bytes(&next);
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
        self.push(puzzle, next, stat, s[2] > 0);
        self.computed += 1;
        Ok(true)
    }
}

/// This process's bitmap of a ranked layer: its blocks only, block `b`
/// of the layer (`b mod N` = this process) at local block `b div N`.
/// Arriving ranks wait in their segment's buffer, then a buffer's bits
/// are set together, in cache.
struct Fill {
    words: Vec<u64>,
    segments: Vec<Vec<u32>>,
    peers: u64,
}

impl Fill {
    fn new(blocks: usize, peers: usize) -> Fill {
        let words = vec![0u64; blocks * BLOCK_WORDS];
        let nseg = (words.len() << 6).div_ceil(1 << SEGMENT_LOG).max(1);
        Fill {
            words,
            segments: vec![Vec::new(); nseg],
            peers: peers as u64,
        }
    }

    /// Takes ranks owned here.
    fn add(&mut self, ranks: &[u32]) {
        let mask = (1u32 << BLOCK_LOG) - 1;
        for &r in ranks {
            let local = ((r >> BLOCK_LOG) as u64 / self.peers) << BLOCK_LOG | (r & mask) as u64;
            let s = &mut self.segments[(local >> SEGMENT_LOG) as usize];
            s.push(local as u32);
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
fn set_bits(words: &mut [u64], ranks: &mut Vec<u32>) {
    for &r in ranks.iter() {
        words[(r >> 6) as usize] |= 1 << (r & 63);
    }
    ranks.clear();
}

/// A share of a ranked layer, sorted, and the layer's class.
type RankedShare<T> = (Vec<T>, (u32, u64));

/// The next layer's share of this process by a ranked bitmap, with the
/// layer's class, or `None` (agreed by every process) when the layer is
/// left to hashing: the puzzle has no dense keys, the layer is too small
/// or its bitmap too sparse or too big for the budget, or a child fell
/// outside the ranking (the puzzle's invariants did not hold; the layer is
/// then made again by hashing). The children's ranks, not the positions,
/// travel to their block's owner (4 bytes each instead of 8), which sets
/// their bits; scanning its blocks hands back its share sorted, so no
/// process sorts a child.
fn ranked_step<T: ExchangeData + Clone + Copy + Hash + Ord>(
    net: &mut Net<'_, T>,
    opts: &LayeredOptions,
    parents: &[T],
    parents_total: u64,
    stored: usize,
) -> Result<Option<RankedShare<T>>, ClusterError> {
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
    for p in parents {
        dk.child_keys(std::slice::from_ref(p), &mut probe);
        if !probe.is_empty() {
            break;
        }
    }
    let mine = match probe.first().map(|&k| ranker.layer_class(k)) {
        Some((k, par)) => vec![1, k as u128, par as u128, stored as u128],
        None => vec![0, 0, 0, stored as u128],
    };
    let all = net.all(mine);
    let most_stored = all.iter().map(|v| v[3]).max().unwrap_or(0) as u64;
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
    let Some(layer) = ranker.layer(class.0, class.1) else {
        return Ok(None);
    };
    let (peers, me) = (net.peers, net.me);
    let blocks = (layer.len() as usize).div_ceil(1 << BLOCK_LOG);
    // Every process's bitmap is as big as the largest (agreed).
    let map_bytes = (blocks.div_ceil(peers) * BLOCK_WORDS * 8) as u64;
    let whole = layer.len().div_ceil(8);
    if layer.is_empty()
        || most_stored + map_bytes > opts.max_bytes as u64
        || (!forced && whole > est.saturating_mul(BYTES_PER_CHILD))
    {
        return Ok(None);
    }
    let mine_blocks = blocks / peers + usize::from(me < blocks % peers);
    let mut fill = Fill::new(mine_blocks, peers);
    let in_class = dk.children_keep_class();
    let len = layer.len();
    let mut bad = false;
    {
        let layer = &layer;
        let bad = &mut bad;
        net.ranks.round_into(
            &mut net.joined.worker,
            |r: &u32| (*r >> BLOCK_LOG) as u64,
            |push| {
                let mut keys = Vec::with_capacity(RANK_CHUNK * 16);
                for chunk in parents.chunks(RANK_CHUNK) {
                    keys.clear();
                    dk.child_keys(chunk, &mut keys);
                    for &k in &keys {
                        let r = if in_class {
                            layer.rank_in_class(k).filter(|&r| r < len)
                        } else {
                            layer.rank(k)
                        };
                        match r {
                            Some(r) => push(r as u32),
                            None => *bad = true,
                        }
                    }
                }
            },
            &mut |ranks| fill.add(ranks),
        );
    }
    if net.max(vec![bad as u128])[0] > 0 {
        return Ok(None);
    }
    let words = fill.finish();
    let count: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
    let mut share = Vec::with_capacity(count as usize);
    let mut keys = Vec::new();
    for (lb, w) in words.chunks(BLOCK_WORDS).enumerate() {
        if w.iter().all(|&x| x == 0) {
            continue;
        }
        let b = lb * peers + me;
        keys.clear();
        layer.extract(w, b * BLOCK_WORDS, &mut keys);
        dk.positions(&keys, &mut share);
    }
    drop(words);
    net.owners.ranked.push((class, layer));
    Ok(Some((share, class)))
}

/// The report and (layers loaded, layers computed) of a route.
type Done<T> = (LayeredReport<T>, (usize, usize));

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
    let Forward {
        layers,
        mut stats,
        best,
        goal_reachable,
        table_bytes,
        loaded,
        computed,
        ..
    } = fwd;
    let mut solutions = None;
    if opts.backward && unreachable {
        solutions = Some(0);
    } else if opts.backward {
        let goals = goals_by_depth(puzzle);
        progress.phase("backward", stats.len() as u64);
        let mut next: Counted<P::Position> = Vec::new();
        for depth in (0..stats.len()).rev() {
            let here = &layers[depth];
            let pairs = net.route_pairs(|push| {
                for &(q, n, o) in &next {
                    let w = n * o as u128;
                    canonical_parents(puzzle, &q, |p, _| push((p, w)));
                }
            });
            next = counted(puzzle, here, pairs, &goals, depth);
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
    Ok((
        report(
            stats,
            goal_reachable,
            solutions,
            best,
            table_bytes,
            !opts.prune,
        ),
        (loaded, computed),
    ))
}

/// The members of this process's share `here` of layer `depth` that the
/// routed `pairs` reach, with their solution counts (the sum of the
/// weights `N(q)·|O_q|` divided by their own orbit size) and orbit sizes;
/// a goal of this depth held here counts one solution.
fn counted<P: Reversible + Symmetric>(
    puzzle: &P,
    here: &[P::Position],
    mut pairs: Vec<(P::Position, u128)>,
    goals: &[(usize, P::Position)],
    depth: usize,
) -> Counted<P::Position> {
    for &(d, g) in goals {
        if d == depth && here.binary_search(&g).is_ok() {
            pairs.push((g, puzzle.orbit_size(&g) as u128));
        }
    }
    summed(here, pairs)
        .into_iter()
        .map(|(p, w)| {
            let o = puzzle.orbit_size(&p);
            debug_assert_eq!(w % o as u128, 0, "orbit weights must divide");
            (p, w / o as u128, o)
        })
        .collect()
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
    let Forward {
        layers: fwd,
        mut best,
        table_bytes,
        loaded,
        computed,
        ..
    } = f;
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
        let mut local = Vec::with_capacity(2 * (last + 1));
        for d in 0..=last {
            let l = layer(d);
            local.push(l.len() as u128);
            local.push(l.iter().map(|p| puzzle.orbit_size(p) as u128).sum());
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
        (loaded, computed),
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
        f = counted(puzzle, layer, pairs, &[], usize::MAX);
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
    let crossing: u128 = summed(&keys, pairs)
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
