//! Solved tables of peg solitaire: every position reachable from a
//! problem's start that can still reach a target, up to symmetry, layer
//! by layer (layer `d`: after `d` moves). Two targets are kept:
//!
//! - the goal-reaching set of a self-complementary problem (one vacancy,
//!   one peg left in that hole; [`GoalSet::build`]);
//! - the best-result set of any problem ([`GoalSet::build_best`]): the
//!   fewest pegs `k` a position reachable from the start can be left
//!   with, and every reachable position that can still be left with `k`
//!   (the French central game, impossible by position class, keeps 2).
//!
//! A problem whose goal is the complement of its start has a time
//! reversal: `q` is a child of `p` exactly when the complement of `p` is a
//! child of the complement of `q`. A reachable position then reaches the
//! goal exactly when its complement is reachable too, so only the first
//! half of the moves needs enumerating: forward layers from the start to
//! the middle, the middle layer's goal-reaching positions found by
//! complement look-ups, the shallower ones by stepping back; the deeper
//! half is the complement of the shallower one and is never stored.
//!
//! The best result has no such mirror (its final positions are not the
//! complement of the start), so its set is found from both ends: forward
//! layers from the start, backward layers from every `k`-peg position of
//! the start's position class (no jump changes the class, so the others
//! are out of reach), met where the two frontiers are alike in size; the
//! deeper layers are the children of the meeting's members found in the
//! backward layers, the shallower ones the parents found in the forward
//! layers. Every layer is stored.
//!
//! A position of a set reaches the target, whatever the start. A position
//! not in it fails to reach the target only if it is reachable from the
//! start: the analysis trusts a miss only for positions it knows to be
//! reachable (children of a member, or positions a search proves
//! reachable).

use crate::bits::Bits;
use crate::class::PositionClasses;
use crate::problem::PegSolitaire;
use endgame_core::budget::Budget;
use endgame_core::layered::{self, LayeredError, LayeredOptions};
use endgame_core::{Puzzle, Reversible, Rules, Symmetric};

/// Why a build stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The problem has no time reversal (its goal is not the complement of
    /// its start).
    #[error("the goal is not the complement of the start")]
    NotSelfComplementary,
    /// The budget's deadline passed or its token was cancelled.
    #[error("stopped: the budget ran out or the build was cancelled")]
    Stopped,
    /// The stored layers would pass the budget's memory limit.
    #[error("memory budget of {0} bytes exceeded")]
    Memory(usize),
    /// The best result would need more candidate final positions than a
    /// build enumerates.
    #[error("the best result has more than {0} candidate final positions")]
    TooManyFinals(usize),
    /// A layer has too many positions to pack (4 billion or more).
    #[error("a layer is too large to store")]
    TooLarge,
}

impl From<LayeredError> for BuildError {
    fn from(e: LayeredError) -> Self {
        match e {
            LayeredError::Stopped { .. } => BuildError::Stopped,
            LayeredError::MemoryBudget { budget, .. } => BuildError::Memory(budget),
        }
    }
}

/// Most candidate final positions (`k` pegs in the start's class) a
/// best-result build enumerates for one `k`.
const MAX_FINALS: usize = 1 << 22;

/// The positions reachable from a problem's start that can still reach
/// its target, layer by layer (layer `d`: after `d` moves), canonical
/// under the problem's symmetry group: the first half of the moves when
/// the set is mirrored by the time reversal, every layer otherwise. Each
/// layer is kept packed (see `Packed`): a position is the word of its pegs
/// in hole order (the bitboard's bits under the board's mask, squeezed
/// together, which keeps their order).
#[derive(Clone)]
pub struct GoalSet<B> {
    start_pegs: u32,
    /// Moves from the start to the target.
    last: u32,
    /// Whether only layers `0..=last / 2` are stored, the deeper ones
    /// being their images under the time reversal.
    mirrored: bool,
    /// The board's holes.
    mask: B,
    keys: Keys,
    layers: Vec<Packed>,
}

impl<B: Bits> PartialEq for GoalSet<B> {
    fn eq(&self, o: &Self) -> bool {
        // `keys` follows from `mask`.
        (
            self.start_pegs,
            self.last,
            self.mirrored,
            self.mask,
            &self.layers,
        ) == (o.start_pegs, o.last, o.mirrored, o.mask, &o.layers)
    }
}

impl<B: Bits> Eq for GoalSet<B> {}

impl<B: Bits> std::fmt::Debug for GoalSet<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoalSet")
            .field("start_pegs", &self.start_pegs)
            .field("last", &self.last)
            .field("mirrored", &self.mirrored)
            .field("layers", &self.layer_sizes())
            .finish()
    }
}

/// The hole-order word of a bitboard: per byte of the bitboard, its bits
/// under the mask squeezed together and moved to their place.
#[derive(Clone)]
struct Keys {
    tables: Vec<[u128; 256]>,
}

impl Keys {
    fn new<B: Bits>(mask: B) -> Keys {
        let nbytes = B::CAPACITY.div_ceil(8);
        let used = (0..nbytes)
            .rev()
            .find(|&k| mask.byte(k) != 0)
            .map_or(0, |k| k + 1);
        let mut below = 0u32;
        let tables = (0..used)
            .map(|k| {
                let m = mask.byte(k);
                let mut t = [0u128; 256];
                for (v, slot) in t.iter_mut().enumerate() {
                    let mut j = 0;
                    for b in 0..8 {
                        if m >> b & 1 == 1 {
                            *slot |= ((v >> b & 1) as u128) << (below + j);
                            j += 1;
                        }
                    }
                }
                below += m.count_ones();
                t
            })
            .collect();
        Keys { tables }
    }

    #[inline]
    fn key<B: Bits>(&self, x: B) -> u128 {
        self.tables
            .iter()
            .enumerate()
            .fold(0, |acc, (k, t)| acc | t[x.byte(k)])
    }
}

/// A sorted set of keys in little room: the keys are split by their high
/// bits into buckets of about [`BUCKET`] keys, and each key keeps only
/// its low `low` bits, packed one after the other into 64-bit words; the
/// buckets' first indices say where each bucket starts. A look-up goes to
/// its bucket and binary-searches it. On the French best-result set (37
/// holes, layers of up to 20 million positions) a position takes about
/// 2.3 bytes instead of a word's 8.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Packed {
    len: usize,
    /// Bits kept of each key.
    low: u32,
    /// `starts[b]`: the index of the first key whose high bits are `b`
    /// (one entry per bucket, and `len` at the end).
    starts: Vec<u32>,
    /// The keys' low bits, key `i` at bit `i * low`.
    bits: Vec<u64>,
}

/// Keys a bucket of a [`Packed`] layer aims at.
const BUCKET: usize = 16;

#[inline]
fn low_mask(n: u32) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

impl Packed {
    /// Packs `len` keys, strictly increasing, the last `max` (`None` if
    /// the layer is too long for 32-bit bucket starts).
    fn new(len: usize, max: u128, keys: impl Iterator<Item = u128>) -> Option<Packed> {
        if len >= u32::MAX as usize {
            return None;
        }
        if len == 0 {
            return Some(Packed {
                len: 0,
                low: 0,
                starts: vec![0],
                bits: Vec::new(),
            });
        }
        let width = 128 - max.leading_zeros();
        let high = ((len / BUCKET).max(1).ilog2()).min(width);
        let low = width - high;
        let nb = (max.checked_shr(low).unwrap_or(0)) as usize + 1;
        let mut starts = Vec::with_capacity(nb + 1);
        let mut bits = vec![0u64; (len * low as usize).div_ceil(64)];
        for (i, k) in keys.enumerate() {
            let b = k.checked_shr(low).unwrap_or(0) as usize;
            while starts.len() <= b {
                starts.push(i as u32);
            }
            put(&mut bits, i * low as usize, low, k & low_mask(low));
        }
        while starts.len() <= nb {
            starts.push(len as u32);
        }
        Some(Packed {
            len,
            low,
            starts,
            bits,
        })
    }

    /// The low bits of key `i`.
    #[inline]
    fn get(&self, i: usize) -> u128 {
        let mut pos = i * self.low as usize;
        let mut left = self.low;
        let mut out = 0u128;
        let mut got = 0;
        while left > 0 {
            let (w, off) = (pos / 64, (pos % 64) as u32);
            let take = (64 - off).min(left);
            let v = (self.bits[w] >> off) as u128 & low_mask(take);
            out |= v << got;
            got += take;
            pos += take as usize;
            left -= take;
        }
        out
    }

    fn contains(&self, key: u128) -> bool {
        self.index(key).is_some()
    }

    /// The index of `key` among the layer's keys (their rank), if held.
    fn index(&self, key: u128) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let b = key.checked_shr(self.low).unwrap_or(0);
        if b >= (self.starts.len() - 1) as u128 {
            return None;
        }
        let b = b as usize;
        let want = key & low_mask(self.low);
        let (mut lo, mut hi) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid).cmp(&want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The keys, increasing.
    fn keys(&self) -> impl Iterator<Item = u128> + '_ {
        self.starts.windows(2).enumerate().flat_map(move |(b, w)| {
            let high = (b as u128).checked_shl(self.low).unwrap_or(0);
            (w[0] as usize..w[1] as usize).map(move |i| high | self.get(i))
        })
    }

    fn bytes(&self) -> usize {
        self.starts.len() * 4 + self.bits.len() * 8
    }

    /// Length (u64), kept bits (u32), bucket count (u32), the buckets'
    /// starts (u32 each), then the packed words (u64 each).
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.len as u64).to_le_bytes());
        out.extend_from_slice(&self.low.to_le_bytes());
        out.extend_from_slice(&((self.starts.len() - 1) as u32).to_le_bytes());
        for s in &self.starts {
            out.extend_from_slice(&s.to_le_bytes());
        }
        for w in &self.bits {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// Reads what [`Packed::write`] wrote, checking the shape and that
    /// each bucket's keys increase.
    fn read(r: &mut Reader<'_>) -> Option<Packed> {
        let len = usize::try_from(r.u64()?).ok()?;
        let low = r.u32()?;
        let nb = r.u32()? as usize;
        if low > 128 || len >= u32::MAX as usize {
            return None;
        }
        let starts: Vec<u32> = r
            .take(nb.checked_add(1)?.checked_mul(4)?)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let words = len.checked_mul(low as usize)?.div_ceil(64);
        let bits: Vec<u64> = r
            .take(words.checked_mul(8)?)?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        if starts.first() != Some(&0)
            || starts.last() != Some(&(len as u32))
            || starts.windows(2).any(|w| w[0] > w[1])
            || (len > 0 && (nb == 0 || starts[nb - 1] == len as u32))
        {
            return None;
        }
        let p = Packed {
            len,
            low,
            starts,
            bits,
        };
        let increasing = p
            .starts
            .windows(2)
            .all(|w| (w[0] as usize + 1..w[1] as usize).all(|i| p.get(i - 1) < p.get(i)));
        increasing.then_some(p)
    }
}

/// Writes the low `n` bits of `v` at bit `pos` of `bits` (clear there).
fn put(bits: &mut [u64], mut pos: usize, mut n: u32, mut v: u128) {
    while n > 0 {
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let take = (64 - off).min(n);
        bits[w] |= ((v & low_mask(take)) as u64) << off;
        v = v.checked_shr(take).unwrap_or(0);
        pos += take as usize;
        n -= take;
    }
}

/// A cursor over a payload.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b, at: 0 }
    }
    /// Whether every byte was read.
    pub(crate) fn done(&self) -> bool {
        self.at == self.b.len()
    }
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// The problem with a set of final positions for its goal: every
/// canonical position of `pegs` pegs in `finals`. Moves, symmetries and
/// the start are the problem's.
struct Finals<'a, B: Bits> {
    p: &'a PegSolitaire<B>,
    /// Canonical, sorted.
    finals: Vec<B>,
    pegs: u32,
}

impl<B: Bits> Rules for Finals<'_, B> {
    type Position = B;
    type Move = u16;

    fn start(&self) -> B {
        self.p.start()
    }
    #[inline]
    fn for_each_move(&self, pos: &B, f: impl FnMut(u16)) {
        self.p.for_each_move(pos, f)
    }
    #[inline]
    fn play_unchecked(&self, pos: &B, mv: u16) -> B {
        self.p.play_unchecked(pos, mv)
    }
    fn is_legal(&self, pos: &B, mv: u16) -> bool {
        self.p.is_legal(pos, mv)
    }
}

impl<B: Bits> Puzzle for Finals<'_, B> {
    fn score(&self, pos: &B) -> u32 {
        pos.count()
    }
    fn is_goal(&self, pos: &B) -> bool {
        pos.count() == self.pegs && self.finals.binary_search(&self.p.canonical(pos)).is_ok()
    }
    fn cannot_reach_goal(&self, pos: &B) -> bool {
        pos.count() < self.pegs
    }
    fn score_bound(&self) -> u32 {
        self.pegs
    }
}

impl<B: Bits> Symmetric for Finals<'_, B> {
    fn symmetry_count(&self) -> usize {
        self.p.symmetry_count()
    }
    fn apply_symmetry(&self, i: usize, pos: &B) -> B {
        self.p.apply_symmetry(i, pos)
    }
    #[inline]
    fn canonical(&self, pos: &B) -> B {
        self.p.canonical(pos)
    }
    fn canonical_and_orbit(&self, pos: &B) -> (B, u32) {
        self.p.canonical_and_orbit(pos)
    }
    fn orbit_size(&self, pos: &B) -> u32 {
        self.p.orbit_size(pos)
    }
    #[inline]
    fn for_each_canonical_child(&self, pos: &B, f: impl FnMut(B)) {
        self.p.for_each_canonical_child(pos, f)
    }
    #[inline]
    fn for_each_canonical_child_orbit(&self, pos: &B, f: impl FnMut(B, u32)) {
        self.p.for_each_canonical_child_orbit(pos, f)
    }
}

impl<B: Bits> Reversible for Finals<'_, B> {
    fn goals(&self) -> Vec<B> {
        self.finals.clone()
    }
    fn for_each_parent(&self, pos: &B, f: impl FnMut(B)) {
        self.p.for_each_parent(pos, f)
    }
    #[inline]
    fn for_each_canonical_parent_orbit(&self, pos: &B, f: impl FnMut(B, u32)) -> bool {
        self.p.for_each_canonical_parent_orbit(pos, f)
    }
}

/// Every canonical position of `k` pegs on the board of `p` in the
/// position class of its start, sorted; `None` when there would be more
/// than `cap`.
fn finals_of<B: Bits>(p: &PegSolitaire<B>, k: u32, cap: usize) -> Option<Vec<B>> {
    let board = p.board();
    let n = board.holes();
    let classes = PositionClasses::new(board);
    let start = p.start();
    let want = classes.class_of(&mut (0..n).filter(|&h| p.has_peg(start, h)));
    let k = k as usize;
    if k > n {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    // Combinations of k holes, in lexicographic order.
    let mut pick: Vec<usize> = (0..k).collect();
    loop {
        if classes.class_of(&mut pick.iter().copied()) == want {
            out.push(p.canonical(&p.position_of(pick.iter().copied())));
            if out.len() > cap.saturating_mul(8) {
                return None;
            }
        }
        let Some(i) = (0..k).rev().find(|&i| pick[i] < n - k + i) else {
            break;
        };
        pick[i] += 1;
        for j in i + 1..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
    out.sort_unstable();
    out.dedup();
    (out.len() <= cap).then_some(out)
}

impl<B: Bits> GoalSet<B> {
    /// The set of `p` from its sorted canonical layers.
    fn from_layers(
        p: &PegSolitaire<B>,
        last: u32,
        mirrored: bool,
        layers: &[Vec<B>],
    ) -> Result<GoalSet<B>, BuildError> {
        let mask = p.position_of(0..p.board().holes());
        let keys = Keys::new(mask);
        let layers = layers
            .iter()
            .map(|l| {
                let max = l.last().map_or(0, |&x| keys.key(x));
                Packed::new(l.len(), max, l.iter().map(|&x| keys.key(x)))
            })
            .collect::<Option<Vec<Packed>>>()
            .ok_or(BuildError::TooLarge)?;
        Ok(GoalSet {
            start_pegs: p.start().count(),
            last,
            mirrored,
            mask,
            keys,
            layers,
        })
    }

    /// Enumerates the goal-reaching set of `p` (whose start and goal are
    /// complements), checking `budget` (deadline, cancel, memory) before
    /// each layer.
    pub fn build(p: &PegSolitaire<B>, budget: &Budget) -> Result<GoalSet<B>, BuildError> {
        let start = p.start();
        if p.reversal(&start).is_none() {
            return Err(BuildError::NotSelfComplementary);
        }
        let last = start.count().saturating_sub(p.score_bound());
        let m = (last / 2) as usize;
        let empty = vec![Vec::new(); m + 1];
        if p.cannot_reach_goal(&start) {
            return GoalSet::from_layers(p, last, true, &empty);
        }
        // The engine of `endgame count --goal-only`: forward to the middle,
        // met there by the time reversal, the shallower goal-reaching
        // layers stepped back from it; no solution count.
        let r = layered::enumerate(p, &table_options(budget), &layered::Silent)?;
        if r.goal_layers.is_empty() && !r.goal_reachable {
            return GoalSet::from_layers(p, last, true, &empty);
        }
        if r.goal_layers.len() != m + 1 {
            return Err(BuildError::NotSelfComplementary);
        }
        GoalSet::from_layers(p, last, true, &r.goal_layers)
    }

    /// Enumerates the best-result set of `p`: for `k` from the goal's peg
    /// count up, every reachable position that can still be left with
    /// `k` pegs, until the start is one of them (see the module
    /// documentation). A `k` whose candidate final positions all lie in
    /// other position classes costs nothing; one that is out of reach
    /// costs a whole enumeration, so this is meant for problems whose
    /// best result is known to be near the goal. Checks `budget`
    /// (deadline, cancel, memory) before each layer.
    pub fn build_best(p: &PegSolitaire<B>, budget: &Budget) -> Result<GoalSet<B>, BuildError> {
        GoalSet::build_best_with(p, budget, &layered::Silent)
    }

    /// [`GoalSet::build_best`], reporting the enumeration's phases to
    /// `progress`.
    pub fn build_best_with(
        p: &PegSolitaire<B>,
        budget: &Budget,
        progress: &dyn layered::Progress,
    ) -> Result<GoalSet<B>, BuildError> {
        let start_pegs = p.start().count();
        for k in p.score_bound().max(1)..=start_pegs {
            if let Some(set) = GoalSet::build_reaching(p, k, budget, progress)? {
                return Ok(set);
            }
        }
        // Unreachable: the start is a position of its own class.
        GoalSet::from_layers(p, 0, false, &[Vec::new()])
    }

    /// The set of every position reachable from the start of `p` that can
    /// still be left with `k` pegs (it reaches some `k`-peg position), or
    /// `None` when the start cannot. Such sets are nested: a position that
    /// can be left with `k` pegs passes `k + 1` on the way.
    pub fn build_reaching(
        p: &PegSolitaire<B>,
        k: u32,
        budget: &Budget,
        progress: &dyn layered::Progress,
    ) -> Result<Option<GoalSet<B>>, BuildError> {
        let start = p.start();
        let start_pegs = start.count();
        if k > start_pegs {
            return Ok(None);
        }
        let finals = finals_of(p, k, MAX_FINALS).ok_or(BuildError::TooManyFinals(MAX_FINALS))?;
        if finals.is_empty() {
            return Ok(None);
        }
        let last = start_pegs - k;
        if last == 0 {
            // The start itself has k pegs and is in its own class.
            return GoalSet::from_layers(p, 0, false, &[vec![p.canonical(&start)]]).map(Some);
        }
        let q = Finals { p, finals, pegs: k };
        let r = layered::enumerate(&q, &table_options(budget), progress)?;
        if r.goal_reachable && r.goal_layers.len() == last as usize + 1 {
            return GoalSet::from_layers(p, last, false, &r.goal_layers).map(Some);
        }
        Ok(None)
    }

    /// Whether `pos` reaches the target and is reachable from the start
    /// (`p`: the problem the set was built for, or any with the same board,
    /// start and symmetry group).
    pub fn contains(&self, p: &PegSolitaire<B>, pos: &B) -> bool {
        let k = pos.count();
        if k > self.start_pegs || self.start_pegs - k > self.last {
            return false;
        }
        let d = (self.start_pegs - k) as usize;
        if d < self.layers.len() {
            return self.stores(&p.canonical(pos));
        }
        let Some(c) = p.reversal(pos).filter(|_| self.mirrored) else {
            return false;
        };
        let mirror = self.last as usize - d;
        self.layers
            .get(mirror)
            .is_some_and(|l| l.contains(self.keys.key(p.canonical(&c))))
    }

    /// Whether a stored layer holds `canonical` (a position already in
    /// its canonical form under the set's problem): [`GoalSet::contains`]
    /// without the mirrored half, for callers that look one position up
    /// in several sets.
    pub(crate) fn stores(&self, canonical: &B) -> bool {
        let k = canonical.count();
        if k > self.start_pegs {
            return false;
        }
        self.layers
            .get((self.start_pegs - k) as usize)
            .is_some_and(|l| l.contains(self.keys.key(*canonical)))
    }

    /// Stored layers (every layer unless the set is mirrored); layer `d`
    /// holds positions `d` moves from the start.
    pub(crate) fn stored_layers(&self) -> usize {
        self.layers.len()
    }

    /// Where a stored layer holds `canonical` (a position in its
    /// canonical form under the set's problem): its layer and its index
    /// there, the index running over the layer's positions in the order
    /// of [`GoalSet::layer_members`].
    pub(crate) fn index(&self, canonical: &B) -> Option<(usize, usize)> {
        let k = canonical.count();
        if k > self.start_pegs {
            return None;
        }
        let d = (self.start_pegs - k) as usize;
        let i = self.layers.get(d)?.index(self.keys.key(*canonical))?;
        Some((d, i))
    }

    /// The positions of stored layer `d` (canonical forms), in index order.
    pub(crate) fn layer_members(&self, d: usize) -> Vec<B> {
        let holes: Vec<usize> = self.mask.ones().collect();
        let Some(l) = self.layers.get(d) else {
            return Vec::new();
        };
        l.keys()
            .map(|k| {
                let mut x = B::ZERO;
                let mut k = k;
                while k != 0 {
                    let j = k.trailing_zeros() as usize;
                    x |= B::bit(holes[j]);
                    k &= k - 1;
                }
                x
            })
            .collect()
    }

    /// The members of `self` not in `other`, layer by layer (both sets
    /// of one problem, neither mirrored); the target stays `self`'s.
    pub fn minus(&self, other: &GoalSet<B>) -> Result<GoalSet<B>, BuildError> {
        let layers = self
            .layers
            .iter()
            .enumerate()
            .map(|(d, l)| {
                let keep: Vec<u128> = match other.layers.get(d).filter(|_| !other.mirrored) {
                    Some(o) => l.keys().filter(|&k| !o.contains(k)).collect(),
                    None => l.keys().collect(),
                };
                Packed::new(
                    keep.len(),
                    keep.last().copied().unwrap_or(0),
                    keep.into_iter(),
                )
            })
            .collect::<Option<Vec<Packed>>>()
            .ok_or(BuildError::TooLarge)?;
        Ok(GoalSet {
            layers,
            ..self.clone_header()
        })
    }

    /// `self` without its layers.
    fn clone_header(&self) -> GoalSet<B> {
        GoalSet {
            start_pegs: self.start_pegs,
            last: self.last,
            mirrored: self.mirrored,
            mask: self.mask,
            keys: self.keys.clone(),
            layers: Vec::new(),
        }
    }

    /// Whether the target is reachable from the start.
    pub fn solvable(&self) -> bool {
        self.layers.first().is_some_and(|l| l.len > 0)
    }

    /// Pegs of the start the set was built from.
    pub fn start_pegs(&self) -> u32 {
        self.start_pegs
    }

    /// The pegs left at the target: the goal's, or the best result.
    pub fn target(&self) -> u32 {
        self.start_pegs - self.last
    }

    /// Whether the deeper half of the set is the time reversal of the
    /// stored one (a goal-reaching set), rather than stored too.
    pub fn mirrored(&self) -> bool {
        self.mirrored
    }

    /// Positions up to symmetry in the whole set (both halves).
    pub fn entries(&self) -> u64 {
        let stored = self.stored();
        if !self.mirrored {
            return stored;
        }
        // The deeper half mirrors the shallower; an even `last` shares its
        // middle layer.
        let shared = if self.last.is_multiple_of(2) {
            self.layers.last().map_or(0, |l| l.len as u64)
        } else {
            0
        };
        2 * stored - shared
    }

    /// Positions stored (the shallower half of a mirrored set).
    pub fn stored(&self) -> u64 {
        self.layers.iter().map(|l| l.len as u64).sum()
    }

    /// Bytes of the stored layers.
    pub fn bytes(&self) -> usize {
        self.layers.iter().map(Packed::bytes).sum()
    }

    /// Positions stored in each layer.
    pub fn layer_sizes(&self) -> Vec<u64> {
        self.layers.iter().map(|l| l.len as u64).collect()
    }

    /// The table's payload: start pegs, moves to the target, whether
    /// mirrored (0 or 1), the words of a bitboard (u32 each), the board's
    /// mask (u64 words), the layer count (u32), then each layer
    /// (as `Packed::write` writes it). All little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = words::<B>();
        let mut out = Vec::with_capacity(24 + self.layers.len() * 16 + self.bytes());
        out.extend_from_slice(&self.start_pegs.to_le_bytes());
        out.extend_from_slice(&self.last.to_le_bytes());
        out.extend_from_slice(&u32::from(self.mirrored).to_le_bytes());
        out.extend_from_slice(&(words as u32).to_le_bytes());
        for w in 0..words {
            out.extend_from_slice(&self.mask.low_u64(64 * w).to_le_bytes());
        }
        out.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for l in &self.layers {
            l.write(&mut out);
        }
        out
    }

    /// Reads a payload written by [`GoalSet::to_bytes`], checking its
    /// shape (sizes, increasing keys); `None` if it is not one.
    pub fn from_bytes(b: &[u8]) -> Option<GoalSet<B>> {
        let mut r = Reader::new(b);
        let start_pegs = r.u32()?;
        let last = r.u32()?;
        let mirrored = match r.u32()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        if r.u32()? as usize != words::<B>() {
            return None;
        }
        let mut mask = B::ZERO;
        for w in 0..words::<B>() {
            mask |= B::from_low_u64(r.u64()?).shl(64 * w);
        }
        let n = r.u32()? as usize;
        let want = if mirrored { last / 2 } else { last } as usize + 1;
        if n != want || last > start_pegs || start_pegs > mask.count() {
            return None;
        }
        let layers = (0..n)
            .map(|_| Packed::read(&mut r))
            .collect::<Option<Vec<Packed>>>()?;
        r.done().then_some(GoalSet {
            start_pegs,
            last,
            mirrored,
            mask,
            keys: Keys::new(mask),
            layers,
        })
    }
}

/// The layered engine's options for a table: the goal-only route, no
/// solution count, the goal-reaching layers handed back.
fn table_options(budget: &Budget) -> LayeredOptions {
    LayeredOptions {
        max_bytes: budget.memory.unwrap_or(LayeredOptions::default().max_bytes),
        count_all: false,
        prune: true,
        count_solutions: false,
        keep_goal_layers: true,
        budget: budget.clone(),
        ..LayeredOptions::default()
    }
}

fn words<B: Bits>() -> usize {
    B::CAPACITY.div_ceil(64)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::{build, AnyProblem, Spec};
    use endgame_core::layered::{self, LayeredOptions};
    use std::collections::HashMap;

    /// The triangle's problems of the small-board cross-checks: vacancies
    /// a1, b2, c3, c5 (each finishing in its vacancy) and the default.
    pub(crate) fn triangle_specs() -> Vec<Spec> {
        let mut specs: Vec<Spec> = ["a1", "b2", "c3", "c5"]
            .iter()
            .map(|h| Spec {
                vacate: Some(vec![h.to_string()]),
                ..Spec::named("triangle")
            })
            .collect();
        specs.push(Spec::named("triangle"));
        specs
    }

    /// The problem of `spec` on a board of at most 64 holes.
    pub(crate) fn small(spec: &Spec) -> PegSolitaire<u64> {
        match build(spec).expect("a problem") {
            AnyProblem::Small(p) => p,
            AnyProblem::Large(_) => panic!("a small board"),
        }
    }

    /// Every reachable position of the triangle, checked against the full
    /// layered enumeration's solution counts from that position.
    #[test]
    fn the_triangle_set_matches_the_full_enumeration() {
        let p = small(&Spec::named("triangle"));
        let set = GoalSet::build(&p, &Budget::unlimited()).expect("built");
        assert!(set.solvable());
        let full = layered::enumerate(&p, &LayeredOptions::default(), &layered::Silent).unwrap();
        let to_goal: u64 = full.layers.iter().map(|l| l.to_goal_reduced).sum();
        assert_eq!(set.entries(), to_goal);
        // Membership of every child of every member agrees with a search.
        let mut frontier = vec![p.start()];
        let mut seen = std::collections::HashSet::new();
        while let Some(q) = frontier.pop() {
            if !seen.insert(p.canonical(&q)) {
                continue;
            }
            let r = endgame_core::dfs::solve(&p, &q, &Default::default());
            assert_eq!(set.contains(&p, &q), r.reached_goal, "{q:b}");
            p.for_each_move(&q, |m| frontier.push(p.play_unchecked(&q, m)));
        }
    }

    #[test]
    fn a_payload_round_trips_and_damage_is_refused() {
        let p = small(&Spec::named("triangle"));
        let set = GoalSet::build(&p, &Budget::unlimited()).unwrap();
        let bytes = set.to_bytes();
        assert_eq!(GoalSet::<u64>::from_bytes(&bytes), Some(set.clone()));
        assert_eq!(GoalSet::<u64>::from_bytes(&bytes[..bytes.len() - 1]), None);
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(GoalSet::<u64>::from_bytes(&longer), None);
    }

    /// Packed layers of keys of every width (none, one, wider than a
    /// word) find exactly their keys, and read back what they wrote.
    #[test]
    fn packed_layers_find_exactly_their_keys() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (n, width) in [
            (0, 8),
            (1, 1),
            (1, 40),
            (5, 3),
            (300, 12),
            (5000, 37),
            (777, 100),
        ] {
            let mut keys: Vec<u128> = (0..n)
                .map(|_| ((next() as u128) << 64 | next() as u128) & low_mask(width))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            let max = keys.last().copied().unwrap_or(0);
            let p = Packed::new(keys.len(), max, keys.iter().copied()).expect("packed");
            for &k in &keys {
                assert!(p.contains(k), "{n} keys of {width} bits: {k}");
                for probe in [k.wrapping_add(1), k.wrapping_sub(1), k ^ 1 << (width / 2)] {
                    assert_eq!(p.contains(probe), keys.binary_search(&probe).is_ok());
                }
            }
            assert!(!p.contains(max.wrapping_add(1)) || keys.is_empty());
            assert!(!p.contains(u128::MAX) || max == u128::MAX);
            let mut out = Vec::new();
            p.write(&mut out);
            let mut r = Reader { b: &out, at: 0 };
            assert_eq!(Packed::read(&mut r), Some(p.clone()));
            assert_eq!(r.at, out.len());
            if keys.len() > 1 && p.low > 0 {
                // Two keys of one bucket swapped: refused.
                let b = p.starts.windows(2).position(|w| w[1] - w[0] >= 2);
                if let Some(b) = b {
                    let i = p.starts[b] as usize;
                    let mut q = p.clone();
                    let (a, c) = (q.get(i), q.get(i + 1));
                    q.bits.iter_mut().for_each(|w| *w = 0);
                    for j in 0..q.len {
                        let v = match j {
                            j if j == i => c,
                            j if j == i + 1 => a,
                            j => p.get(j),
                        };
                        put(&mut q.bits, j * q.low as usize, q.low, v);
                    }
                    let mut out = Vec::new();
                    q.write(&mut out);
                    assert_eq!(Packed::read(&mut Reader { b: &out, at: 0 }), None);
                }
            }
        }
    }

    /// The fewest pegs reachable from `q` (every position reachable from
    /// it, memoised).
    fn fewest(p: &PegSolitaire<u64>, q: u64, memo: &mut HashMap<u64, u32>) -> u32 {
        if let Some(&v) = memo.get(&q) {
            return v;
        }
        let mut best = q.count_ones();
        for m in p.moves(&q) {
            best = best.min(fewest(p, p.play_unchecked(&q, m), memo));
        }
        memo.insert(q, best);
        best
    }

    /// The best-result set of small problems (some solvable, some whose
    /// best is 2 pegs or more) holds exactly the reachable positions whose
    /// fewest pegs reachable is the start's.
    #[test]
    fn best_result_sets_match_brute_force() {
        let mut beyond_one = 0;
        for board in ["triangle4", "triangle"] {
            let n = crate::board::Board::named(board, false).unwrap().holes();
            for h in 0..n {
                let hole = crate::board::Board::named(board, false)
                    .unwrap()
                    .hole_name(h)
                    .to_string();
                for finish in [crate::api::Finish::Default, crate::api::Finish::Any] {
                    let p = small(&Spec {
                        vacate: Some(vec![hole.clone()]),
                        finish: finish.clone(),
                        ..Spec::named(board)
                    });
                    let set = GoalSet::build_best(&p, &Budget::unlimited()).expect("built");
                    let mut memo = HashMap::new();
                    let k = fewest(&p, p.start(), &mut memo);
                    assert_eq!(set.target(), k, "{board} {hole}");
                    assert!(!set.mirrored());
                    beyond_one += (k > 1) as u32;
                    let mut members = std::collections::HashSet::new();
                    for (&q, &v) in &memo {
                        assert_eq!(set.contains(&p, &q), v == k, "{board} {hole}: {q:b}");
                        if v == k {
                            members.insert(p.canonical(&q));
                        }
                    }
                    assert_eq!(set.entries(), members.len() as u64, "{board} {hole}");
                    let bytes = set.to_bytes();
                    assert_eq!(GoalSet::<u64>::from_bytes(&bytes), Some(set));
                }
            }
        }
        assert!(beyond_one > 0, "no problem whose best is 2 pegs or more");
    }

    #[test]
    fn a_cancelled_build_stops() {
        let p = small(&Spec::named("english"));
        let b = Budget::unlimited();
        b.cancel.cancel();
        assert_eq!(GoalSet::build(&p, &b), Err(BuildError::Stopped));
        assert_eq!(GoalSet::build_best(&p, &b), Err(BuildError::Stopped));
    }
}
