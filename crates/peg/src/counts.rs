//! Counts over the goal-reaching graph beyond the number of solutions:
//! the probability that random play solves the problem, the canonical
//! paths, and the move multisets.
//!
//! All three work over the *goal-reaching layers*: the canonical positions
//! (up to the problem's symmetry group, which fixes start and goal) that are
//! reachable from the start after `d` moves and can still reach a goal,
//! found by the layered engine's goal-only route
//! ([`endgame_core::layered`]; on the mirrored route the deeper half is the
//! time reversal of the shallower one). A position outside them contributes
//! nothing to any of the three counts.
//!
//! - **Random success** ([`Extra::random_success`]): the exact probability
//!   that uniformly random legal play from the start passes through a goal
//!   (every legal jump equally likely at each position; play stops when no
//!   jump is left). With `P(goal) = 1` and `P(p) = (1/deg p) Σ_j P(p·j)`
//!   over the `deg p` legal jumps `j`, only goal-reaching children carry
//!   mass, and symmetric positions have the same probability, so one value
//!   per class is enough. The values are kept exact as integers over one
//!   denominator per layer: with `L_d` the least common multiple of the
//!   degrees in layer `d` and `D_d = L_d · L_{d+1} ⋯ L_{last-1}`,
//!   `Q(p) = P(p) · D_d` is the integer `(L_d / deg p) Σ_j Q(p·j)`. The
//!   start's `Q / D_0` is then reduced by the primes up to the largest
//!   degree (no other prime divides `D_0`).
//! - **Canonical paths** ([`Extra::canonical_paths`]): the number of
//!   distinct sequences of position classes `c_0, …, c_n` from the start's
//!   class to a goal's class in which some jump takes a member of each
//!   `c_i` to a member of `c_{i+1}`: paths in the quotient graph with
//!   parallel edges merged. `N(goal) = 1`, `N(c) = Σ N(c')` over the
//!   *distinct* goal-reaching classes `c'` one jump from `c`. It is below
//!   the number of solutions wherever a position has two jumps to
//!   symmetric children.
//! - **Move sets** ([`Extra::move_sets`]): the number of distinct
//!   multisets of jumps among all solutions (two solutions that make the
//!   same jumps the same number of times, in any order, count once). The
//!   jumps made so far determine the position (each jump toggles three
//!   fixed holes), so the multisets of the prefixes that end in a
//!   goal-reaching position are built forward, layer by layer: each is
//!   kept once per class, in the frame of the class's canonical position
//!   (mapped by the symmetry that canonicalises the child, and the least
//!   image under the canonical position's stabiliser), packed four bits a
//!   jump. A child class gathers the multisets of its parents, each with
//!   the jump into it, and sorts out the duplicates. At the goals the
//!   multisets are counted with their orbits under the group.

use crate::api::AnyProblem;
use crate::{Bits, PegError, PegSolitaire};
use endgame_core::dense::{prefetch, DenseKeys, MemberIndex, Ranker, LOOKUP_AHEAD, NOT_MEMBER};
use endgame_core::layered::{self, LayeredOptions, Progress};
use endgame_core::{Puzzle, Reversible, Rules, Symmetric};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Which counts to compute, and within what.
#[derive(Clone, Debug)]
pub struct ExtraOptions {
    /// The probability that random play solves the problem.
    pub random_success: bool,
    /// The canonical paths.
    pub canonical_paths: bool,
    /// The move multisets.
    pub move_sets: bool,
    /// Memory budget in bytes of the goal-reaching layers and of the
    /// multisets of two layers.
    pub max_bytes: usize,
    /// Worker threads (`None`: the global pool).
    pub threads: Option<usize>,
}

impl ExtraOptions {
    /// Whether no count is asked for.
    pub fn is_empty(&self) -> bool {
        !(self.random_success || self.canonical_paths || self.move_sets)
    }
}

impl Default for ExtraOptions {
    fn default() -> Self {
        ExtraOptions {
            random_success: false,
            canonical_paths: false,
            move_sets: false,
            max_bytes: LayeredOptions::default().max_bytes,
            threads: None,
        }
    }
}

/// An exact probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Probability {
    /// The reduced fraction `p/q` in decimal.
    pub exact: String,
    /// The same as a float.
    pub float: f64,
}

/// The counts asked for (`None`: not asked).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Extra {
    /// Probability that uniformly random legal play from the start reaches
    /// a goal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_success: Option<Probability>,
    /// Distinct sequences of position classes from the start to a goal,
    /// consecutive ones joined by a jump (decimal string: it can exceed
    /// 2^53).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_paths: Option<String>,
    /// Distinct multisets of jumps among the solutions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_sets: Option<u64>,
    /// The same up to the symmetry group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_sets_reduced: Option<u64>,
    /// Wall time of these counts, ms: from the goal-reaching layers' own
    /// enumeration ([`extra`]) or from the end of the count that kept them
    /// ([`crate::api::count_with_extra`]).
    pub extra_time_ms: f64,
}

impl Extra {
    /// Whether nothing was asked.
    pub fn is_empty(&self) -> bool {
        self.random_success.is_none() && self.canonical_paths.is_none() && self.move_sets.is_none()
    }
}

/// Computes the counts `opts` asks for (none when it asks for none).
pub fn extra(
    problem: &AnyProblem,
    opts: &ExtraOptions,
    progress: &dyn Progress,
) -> Result<Extra, PegError> {
    if opts.is_empty() {
        return Ok(Extra::default());
    }
    crate::api::on_threads(
        opts.threads,
        || crate::with_problem!(problem, p => extra_typed(p, opts, progress)),
    )
}

/// [`extra`] on a concrete problem, on the current thread pool.
pub fn extra_typed<B: Bits>(
    p: &PegSolitaire<B>,
    opts: &ExtraOptions,
    progress: &dyn Progress,
) -> Result<Extra, PegError> {
    let t0 = Instant::now();
    let layers = goal_reaching_layers(p, opts.max_bytes, progress)?;
    extra_over(p, &layers, opts, progress, t0)
}

/// The counts `opts` asks for over the goal-reaching `layers`
/// ([`goal_reaching_layers`]), begun at `t0` (the time reported).
pub fn extra_over<B: Bits>(
    p: &PegSolitaire<B>,
    layers: &[Vec<B>],
    opts: &ExtraOptions,
    progress: &dyn Progress,
    t0: Instant,
) -> Result<Extra, PegError> {
    let mut out = Extra::default();
    if opts.random_success || opts.canonical_paths {
        let (prob, paths) =
            backward_counts(p, layers, opts.canonical_paths, opts.max_bytes, progress)?;
        if opts.random_success {
            out.random_success = Some(prob);
        }
        if opts.canonical_paths {
            out.canonical_paths = paths.map(|n| n.to_string());
        }
    }
    if opts.move_sets {
        let used: usize = layers.iter().map(|l| l.len() * size_of::<B>()).sum();
        let (raw, reduced) = move_sets(p, layers, opts.max_bytes.saturating_sub(used), progress)?;
        out.move_sets = Some(raw);
        out.move_sets_reduced = Some(reduced);
    }
    out.extra_time_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(out)
}

/// The number of moves from the start to a goal (every goal has the same
/// number of pegs), or `None` when the goal has more pegs than the start.
fn goal_depth<B: Bits>(p: &PegSolitaire<B>) -> Option<usize> {
    let start = p.start().count() as usize;
    let goal = p.score_bound() as usize;
    start.checked_sub(goal)
}

/// The goal-reaching layers: for each depth `d` from 0 to the goals', the
/// canonical positions reachable in `d` moves that can still reach a
/// goal, sorted. Empty when no goal is reachable.
pub fn goal_reaching_layers<B: Bits>(
    p: &PegSolitaire<B>,
    max_bytes: usize,
    progress: &dyn Progress,
) -> Result<Vec<Vec<B>>, PegError> {
    if goal_depth(p).is_none() {
        return Ok(Vec::new());
    }
    let r = layered::enumerate(
        p,
        &LayeredOptions {
            max_bytes,
            count_all: false,
            prune: true,
            count_solutions: false,
            keep_goal_layers: true,
            ..LayeredOptions::default()
        },
        progress,
    )
    .map_err(|e| PegError::Budget(format!("count stopped: {e}")))?;
    all_goal_layers(p, r.goal_reachable, r.goal_layers)
}

/// Every goal-reaching layer, from the `kept` ones of an enumeration run
/// with [`LayeredOptions::keep_goal_layers`] (all of them, or on the
/// mirrored route the shallower half, whose time reversals are the
/// deeper half).
pub fn all_goal_layers<B: Bits>(
    p: &PegSolitaire<B>,
    goal_reachable: bool,
    kept: Vec<Vec<B>>,
) -> Result<Vec<Vec<B>>, PegError> {
    let Some(last) = goal_depth(p) else {
        return Ok(Vec::new());
    };
    if !goal_reachable || kept.is_empty() {
        return Ok(Vec::new());
    }
    let mut layers = kept;
    if layers.len() < last + 1 {
        // The mirrored route hands back the shallower half: the positions
        // of depth d that reach the goal are the reversals of those of
        // depth last - d.
        for d in layers.len()..=last {
            let mut v: Vec<B> = layers[last - d]
                .par_iter()
                .map(|x| {
                    let y = p
                        .reversal(x)
                        .expect("only a reversible problem hands back half the layers");
                    p.canonical(&y)
                })
                .collect();
            v.par_sort_unstable();
            layers.push(v);
        }
    }
    if layers.len() != last + 1 {
        return Err(PegError::Budget(format!(
            "the enumeration handed back {} goal-reaching layers, not {}",
            layers.len(),
            last + 1
        )));
    }
    Ok(layers)
}

/// The index of each position of a layer: open addressing with linear
/// probing, at most half full. A slot holds the position's index and 32
/// more bits of its hash, so a miss (most children of a goal-reaching
/// position are not goal-reaching) reads one slot and nothing of the
/// layer.
struct Index<'a, B> {
    layer: &'a [B],
    slots: Vec<u64>,
    shift: u32,
}

impl<'a, B: Bits> Index<'a, B> {
    const EMPTY: u64 = u64::MAX;

    fn new(layer: &'a [B]) -> Self {
        let bits = (2 * layer.len().max(1))
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let mut ix = Index {
            layer,
            slots: vec![Self::EMPTY; 1 << bits],
            shift: 64 - bits,
        };
        let mask = ix.slots.len() - 1;
        for (i, x) in layer.iter().enumerate() {
            let h = Self::hash(x);
            let mut s = ix.slot(h);
            while ix.slots[s] != Self::EMPTY {
                s = (s + 1) & mask;
            }
            ix.slots[s] = (h & 0xFFFF_FFFF) << 32 | i as u64;
        }
        ix
    }

    #[inline]
    fn hash(x: &B) -> u64 {
        let mut h = x.low_u64(0);
        if B::CAPACITY > 64 {
            h ^= x
                .low_u64(64)
                .rotate_left(29)
                .wrapping_mul(0xD6E8_FEB8_6659_FD93);
        }
        h.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    #[inline]
    fn slot(&self, h: u64) -> usize {
        (h >> self.shift) as usize
    }

    /// Asks the cache for the slot of hash `h` ahead of [`Index::get`].
    #[inline]
    fn prefetch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults, and the slot is in bounds.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(self.slot(h)) as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The index of the position of hash `h` ([`Index::hash`]), if any.
    #[inline]
    fn get_hashed(&self, x: &B, h: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let tag = h & 0xFFFF_FFFF;
        let mut s = self.slot(h);
        loop {
            let v = self.slots[s];
            if v == Self::EMPTY {
                return None;
            }
            let i = v as u32;
            if v >> 32 == tag && self.layer[i as usize] == *x {
                return Some(i);
            }
            s = (s + 1) & mask;
        }
    }

    #[inline]
    fn get(&self, x: &B) -> Option<u32> {
        self.get_hashed(x, Self::hash(x))
    }
}

/// A goal-reaching layer's members found from the children of the layer
/// before: by rank in a bitmap ([`MemberIndex`]) where the problem has
/// dense keys and the bitmap is small enough, else by hashing ([`Index`]).
enum Lookup<'a, 'r, B> {
    Ranked {
        dk: &'a dyn DenseKeys<B>,
        index: MemberIndex<'r>,
    },
    Hashed(Index<'a, B>),
}

/// Bitmap bytes a member may cost before hashing pays more.
const RANKED_BYTES_PER_MEMBER: u64 = 64;
/// Below this a bitmap is always cheap enough.
const RANKED_SMALL_BYTES: u64 = 1 << 20;
/// Positions per batch of children's look-ups.
const LOOKUP_CHUNK: usize = 256;

impl<'a, 'r, B: Bits> Lookup<'a, 'r, B> {
    /// The look-up of `layer` (sorted, so in key order), within
    /// `max_bytes` for a bitmap; `ranked` forces the route (tests), `None`
    /// chooses by size.
    fn new(
        p: &'a PegSolitaire<B>,
        layer: &'a [B],
        ranker: Option<&'r Ranker>,
        max_bytes: usize,
        ranked: Option<bool>,
    ) -> Self {
        debug_assert!(layer.is_sorted());
        let index = (|| {
            let dk = p.dense_keys()?;
            let lr = ranker?.layer_class(dk.key(layer.first()?));
            let lr = ranker?.layer(lr.0, lr.1)?;
            let bytes = lr.len().div_ceil(8);
            let fits = bytes <= RANKED_SMALL_BYTES
                || bytes <= RANKED_BYTES_PER_MEMBER.saturating_mul(layer.len() as u64);
            if !ranked.unwrap_or(fits) || bytes > max_bytes as u64 / 4 {
                return None;
            }
            let pieces: Vec<&[B]> = layer.chunks(LOOKUP_CHUNK * 16).collect();
            let index = MemberIndex::new(lr, dk, &pieces, dk.children_keep_class())?;
            Some(Lookup::Ranked { dk, index })
        })();
        index.unwrap_or_else(|| Lookup::Hashed(Index::new(layer)))
    }

    /// For each position of `chunk`, the indices in the layer of its
    /// canonical children, one a legal jump ([`NOT_MEMBER`] for a child
    /// outside it), appended to `out`, and after each position the length
    /// of `out` appended to `ends`. `kids` is scratch space.
    fn children(
        &self,
        p: &PegSolitaire<B>,
        chunk: &[B],
        out: &mut Vec<u64>,
        ends: &mut Vec<u32>,
        kids: &mut Vec<B>,
    ) {
        match self {
            Lookup::Ranked { dk, index } => {
                let from = out.len();
                dk.neighbour_keys(chunk, true, out, ends);
                index.indices(&mut out[from..]);
            }
            Lookup::Hashed(ix) => {
                let from = out.len();
                kids.clear();
                for x in chunk {
                    p.for_each_canonical_child(x, |c| {
                        let h = Index::<B>::hash(&c);
                        ix.prefetch(h);
                        kids.push(c);
                        out.push(h);
                    });
                    ends.push(out.len() as u32);
                }
                for (slot, c) in out[from..].iter_mut().zip(kids.iter()) {
                    *slot = ix.get_hashed(c, *slot).map_or(NOT_MEMBER, |i| i as u64);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------
// Unsigned big integers, as little-endian u64 limbs of a fixed width.
// Not `num-bigint`: a layer's millions of values share one width and live
// in one flat array (`stride` limbs each), where a `BigUint` per value
// would be a heap allocation each; only these five operations are needed.

/// `a += b` (`a` wide enough).
fn big_add(a: &mut [u64], b: &[u64]) {
    let mut carry = 0u64;
    for (i, x) in a.iter_mut().enumerate() {
        let y = b.get(i).copied().unwrap_or(0);
        if y == 0 && carry == 0 && i >= b.len() {
            break;
        }
        let (s1, c1) = x.overflowing_add(y);
        let (s2, c2) = s1.overflowing_add(carry);
        *x = s2;
        carry = (c1 as u64) + (c2 as u64);
    }
    debug_assert_eq!(carry, 0, "big_add overflow");
}

/// `a *= m` (`a` wide enough).
fn big_mul_small(a: &mut [u64], m: u64) {
    let mut carry = 0u128;
    for x in a.iter_mut() {
        let v = (*x as u128) * (m as u128) + carry;
        *x = v as u64;
        carry = v >> 64;
    }
    debug_assert_eq!(carry, 0, "big_mul_small overflow");
}

/// `a /= m`, returning the remainder.
fn big_div_small(a: &mut [u64], m: u64) -> u64 {
    let mut rem = 0u128;
    for x in a.iter_mut().rev() {
        let cur = (rem << 64) | (*x as u128);
        *x = (cur / m as u128) as u64;
        rem = cur % m as u128;
    }
    rem as u64
}

fn big_rem_small(a: &[u64], m: u64) -> u64 {
    let mut rem = 0u128;
    for &x in a.iter().rev() {
        rem = ((rem << 64) | x as u128) % m as u128;
    }
    rem as u64
}

fn big_is_zero(a: &[u64]) -> bool {
    a.iter().all(|&x| x == 0)
}

/// Decimal digits.
fn big_to_string(a: &[u64]) -> String {
    let mut a = a.to_vec();
    let mut chunks = Vec::new();
    const TEN19: u64 = 10_000_000_000_000_000_000;
    while !big_is_zero(&a) {
        chunks.push(big_div_small(&mut a, TEN19));
    }
    let Some(top) = chunks.pop() else {
        return "0".into();
    };
    let mut s = top.to_string();
    for c in chunks.iter().rev() {
        s.push_str(&format!("{c:019}"));
    }
    s
}

/// `(mantissa, exponent)` with `a ≈ mantissa · 2^exponent`, the mantissa
/// holding the top 64 bits.
fn big_top(a: &[u64]) -> (f64, i32) {
    let Some(hi) = a.iter().rposition(|&x| x != 0) else {
        return (0.0, 0);
    };
    let lz = a[hi].leading_zeros();
    let mut top = a[hi] << lz;
    if lz > 0 && hi > 0 {
        top |= a[hi - 1] >> (64 - lz);
    }
    (top as f64, (hi as i32) * 64 - lz as i32)
}

/// Limbs needed for `a`.
fn big_len(a: &[u64]) -> usize {
    a.iter().rposition(|&x| x != 0).map_or(1, |i| i + 1)
}

/// The least common multiple of `degs` (a degree 0 counts as 1) and the
/// largest of them; `None` past 2^64. The distinct degrees first (a few
/// dozen among a layer's positions), then one gcd each, not one a
/// position: this runs between a layer's parallel passes.
fn degrees_lcm(degs: &[u32]) -> Option<(u64, u64)> {
    let mut small = 0u128;
    let mut large: Vec<u64> = Vec::new();
    for &deg in degs {
        match deg.max(1) {
            k @ 1..128 => small |= 1 << k,
            k => large.push(k as u64),
        }
    }
    large.sort_unstable();
    large.dedup();
    let distinct = (1..128u64)
        .filter(|&k| small >> k & 1 == 1)
        .chain(large.iter().copied());
    let lcm = distinct
        .clone()
        .try_fold(1u64, |l, deg| (l / gcd(l, deg)).checked_mul(deg))?;
    Some((lcm, distinct.max().unwrap_or(1)))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

// ---------------------------------------------------------------------

/// The random-play success probability, and with `paths` the number of
/// canonical paths (`None` if not asked), by one backward pass over the
/// goal-reaching layers; bitmaps of members take at most a quarter of
/// `max_bytes`.
pub fn backward_counts<B: Bits>(
    p: &PegSolitaire<B>,
    layers: &[Vec<B>],
    paths: bool,
    max_bytes: usize,
    progress: &dyn Progress,
) -> Result<(Probability, Option<u128>), PegError> {
    backward_counts_by(p, layers, paths, max_bytes, None, progress)
}

/// [`backward_counts`], with `ranked` forcing the look-up route of every
/// layer (`Some(true)`: by rank wherever the problem has dense keys;
/// `Some(false)`: hashed) so that tests can hold the two against each
/// other.
#[doc(hidden)]
pub fn backward_counts_by<B: Bits>(
    p: &PegSolitaire<B>,
    layers: &[Vec<B>],
    paths: bool,
    max_bytes: usize,
    ranked: Option<bool>,
    progress: &dyn Progress,
) -> Result<(Probability, Option<u128>), PegError> {
    if layers.is_empty() {
        let zero = Probability {
            exact: "0/1".into(),
            float: 0.0,
        };
        return Ok((zero, paths.then_some(0)));
    }
    let last = layers.len() - 1;
    progress.phase("random play and paths", last as u64);
    let ranker = p.dense_keys().and_then(|dk| Ranker::for_keys(dk));
    // Layer d+1's values: Q (flat, `stride` limbs each) and N.
    let mut stride = 1usize;
    let mut q: Vec<u64> = vec![1; layers[last].len()];
    // Layer d's sums of its children's values, then its values: buffers
    // reused from layer to layer and cleared by writing. A fresh zeroed
    // one's pages would fault twice (read, then copied on write, each copy
    // a TLB flush on every core of the pool).
    let mut sums: Vec<u64> = Vec::new();
    let mut qd: Vec<u64> = Vec::new();
    let mut degs: Vec<u32> = Vec::new();
    let mut n: Vec<u128> = vec![1; if paths { layers[last].len() } else { 0 }];
    // The denominator D_d, and the primes that may divide it.
    let mut denom: Vec<u64> = vec![1];
    let mut max_deg = 1u64;
    let overflow = AtomicBool::new(false);
    for d in (0..last).rev() {
        let next = Lookup::new(p, &layers[d + 1], ranker.as_deref(), max_bytes, ranked);
        let len = layers[d].len();
        // Pass 1: each position's sum S(p) = Σ_j Q(p·j) over its legal
        // jumps (a child outside the goal-reaching layer adds nothing) and
        // its degree, the number of jumps. S < deg · D_{d+1} fits the
        // `stride` limbs of layer d+1's values, whose top limb is spare.
        sums.clear();
        sums.resize(len * stride, 0);
        degs.clear();
        degs.resize(len, 0);
        let mut nd = vec![0u128; if paths { len } else { 0 }];
        let (qv, nv) = (&q, &n);
        // One batch of positions: their children's indices, then each
        // one's sum over them, the values read prefetched ahead.
        let batch = |(slots, ends, kids, seen): &mut (Vec<u64>, Vec<u32>, Vec<B>, Vec<u64>),
                     out: &mut [u64],
                     degs: &mut [u32],
                     mut paths_out: Option<&mut [u128]>,
                     chunk: &[B]| {
            slots.clear();
            ends.clear();
            next.children(p, chunk, slots, ends, kids);
            let mut start = 0;
            for (i, &end) in ends.iter().enumerate() {
                let out = &mut out[i * stride..(i + 1) * stride];
                degs[i] = end - start as u32;
                seen.clear();
                for k in start..end as usize {
                    if let Some(&x) = slots.get(k + LOOKUP_AHEAD) {
                        if x != NOT_MEMBER {
                            // A value may straddle two cache lines.
                            prefetch(qv, x as usize * stride);
                            prefetch(qv, (x as usize + 1) * stride - 1);
                        }
                    }
                    let x = slots[k];
                    if x != NOT_MEMBER {
                        let x = x as usize;
                        big_add(out, &qv[x * stride..(x + 1) * stride]);
                        if paths {
                            seen.push(x as u64);
                        }
                    }
                }
                start = end as usize;
                if let Some(pv) = paths_out.as_deref_mut() {
                    seen.sort_unstable();
                    seen.dedup();
                    match seen
                        .iter()
                        .try_fold(0u128, |s, &x| s.checked_add(nv[x as usize]))
                    {
                        Some(v) => pv[i] = v,
                        None => overflow.store(true, Ordering::Relaxed),
                    }
                }
            }
        };
        let scratch = || (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        if paths {
            sums.par_chunks_mut(stride * LOOKUP_CHUNK)
                .zip(degs.par_chunks_mut(LOOKUP_CHUNK))
                .zip(nd.par_chunks_mut(LOOKUP_CHUNK))
                .zip(layers[d].par_chunks(LOOKUP_CHUNK))
                .for_each_init(scratch, |s, (((out, degs), pv), chunk)| {
                    batch(s, out, degs, Some(pv), chunk)
                });
        } else {
            sums.par_chunks_mut(stride * LOOKUP_CHUNK)
                .zip(degs.par_chunks_mut(LOOKUP_CHUNK))
                .zip(layers[d].par_chunks(LOOKUP_CHUNK))
                .for_each_init(scratch, |s, ((out, degs), chunk)| {
                    batch(s, out, degs, None, chunk)
                });
        }
        let Some((lcm, top)) = degrees_lcm(&degs) else {
            return Err(PegError::Budget(format!(
                "random play: the degrees of layer {d} have a least common multiple past 2^64"
            )));
        };
        max_deg = max_deg.max(top);
        // D_d = L_d · D_{d+1}: the values of this layer fit in D_d's limbs
        // plus one.
        denom.push(0);
        big_mul_small(&mut denom, lcm);
        let width = big_len(&denom) + 1;
        denom.truncate(width);
        // Pass 2: Q(p) = (L_d / deg p) · S(p) ≤ D_d, in `width` limbs
        // (D_d ≥ D_{d+1}, so `width` ≥ `stride`).
        debug_assert!(width >= stride);
        qd.clear();
        qd.resize(len * width, 0);
        qd.par_chunks_mut(width * LOOKUP_CHUNK)
            .zip(sums.par_chunks(stride * LOOKUP_CHUNK))
            .zip(degs.par_chunks(LOOKUP_CHUNK))
            .for_each(|((out, sums), degs)| {
                for (i, &deg) in degs.iter().enumerate() {
                    if deg > 0 {
                        let out = &mut out[i * width..(i + 1) * width];
                        out[..stride].copy_from_slice(&sums[i * stride..(i + 1) * stride]);
                        big_mul_small(out, lcm / deg as u64);
                    }
                }
            });
        if overflow.load(Ordering::Relaxed) {
            return Err(PegError::Budget("the canonical paths exceed 2^128".into()));
        }
        std::mem::swap(&mut q, &mut qd);
        n = nd;
        stride = width;
        progress.advance(1);
    }
    // The start is the only position of layer 0.
    let mut num = q[..stride].to_vec();
    let mut den = denom;
    den.resize(stride.max(den.len()), 0);
    num.resize(den.len(), 0);
    for prime in (2..=max_deg.max(2)).filter(|&k| (2..k).all(|f| k % f != 0)) {
        while !big_is_zero(&num)
            && big_rem_small(&num, prime) == 0
            && big_rem_small(&den, prime) == 0
        {
            big_div_small(&mut num, prime);
            big_div_small(&mut den, prime);
        }
    }
    if big_is_zero(&num) {
        den.iter_mut().for_each(|x| *x = 0);
        den[0] = 1;
    }
    let (nm, ne) = big_top(&num);
    let (dm, de) = big_top(&den);
    let float = if nm == 0.0 {
        0.0
    } else {
        nm / dm * 2f64.powi(ne - de)
    };
    let prob = Probability {
        exact: format!("{}/{}", big_to_string(&num), big_to_string(&den)),
        float,
    };
    Ok((prob, paths.then(|| n.first().copied().unwrap_or(0))))
}

// ---------------------------------------------------------------------
// Move multisets.

/// How each group element permutes the jumps: `perm[g][j]`.
fn jump_perms<B: Bits>(p: &PegSolitaire<B>) -> Result<Vec<Vec<u16>>, PegError> {
    let board = p.board();
    let jumps = board.jumps();
    let index: std::collections::HashMap<(usize, usize, usize), u16> = jumps
        .iter()
        .enumerate()
        .map(|(j, jp)| ((jp.from, jp.over, jp.to), j as u16))
        .collect();
    p.group()
        .iter()
        .map(|&gi| {
            let perm = &board.symmetries()[gi];
            jumps
                .iter()
                .map(|jp| {
                    index
                        .get(&(perm[jp.from], perm[jp.over], perm[jp.to]))
                        .copied()
                        .ok_or_else(|| {
                            PegError::Budget("a symmetry does not map jumps to jumps".into())
                        })
                })
                .collect()
        })
        .collect()
}

/// A multiset of jumps: jump `j`'s count in bits `4(j % 16)..` of word
/// `j / 16`.
type Multiset<const W: usize> = [u64; W];

/// The image of `m` under a jump permutation.
#[inline]
fn permute<const W: usize>(m: &Multiset<W>, perm: &[u16]) -> Multiset<W> {
    let mut out = [0u64; W];
    for (w, &word) in m.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let nib = x.trailing_zeros() / 4;
            let shift = nib * 4;
            let v = (x >> shift) & 0xF;
            x &= !(0xF << shift);
            let t = perm[w * 16 + nib as usize] as usize;
            out[t / 16] |= v << (4 * (t % 16));
        }
    }
    out
}

/// One more use of jump `j`, or `None` when its count would overflow.
#[inline]
fn add_jump<const W: usize>(m: &Multiset<W>, j: usize) -> Option<Multiset<W>> {
    let shift = 4 * (j % 16);
    if (m[j / 16] >> shift) & 0xF == 0xF {
        return None;
    }
    let mut out = *m;
    out[j / 16] += 1 << shift;
    Some(out)
}

/// The number of distinct jump multisets among the solutions, and the
/// number up to the symmetry group, over the goal-reaching `layers`
/// within `max_bytes` of multisets.
pub fn move_sets<B: Bits>(
    p: &PegSolitaire<B>,
    layers: &[Vec<B>],
    max_bytes: usize,
    progress: &dyn Progress,
) -> Result<(u64, u64), PegError> {
    let words = p.board().jumps().len().div_ceil(16).max(1);
    match words {
        1 => move_sets_w::<B, 1>(p, layers, max_bytes, progress),
        2 => move_sets_w::<B, 2>(p, layers, max_bytes, progress),
        3 => move_sets_w::<B, 3>(p, layers, max_bytes, progress),
        4 => move_sets_w::<B, 4>(p, layers, max_bytes, progress),
        5 => move_sets_w::<B, 5>(p, layers, max_bytes, progress),
        6 => move_sets_w::<B, 6>(p, layers, max_bytes, progress),
        7 | 8 => move_sets_w::<B, 8>(p, layers, max_bytes, progress),
        9..=12 => move_sets_w::<B, 12>(p, layers, max_bytes, progress),
        13..=16 => move_sets_w::<B, 16>(p, layers, max_bytes, progress),
        _ => Err(PegError::Budget(format!(
            "move sets need at most 256 jumps; this board has {}",
            p.board().jumps().len()
        ))),
    }
}

/// One jump into a class of the next layer.
#[derive(Clone, Copy)]
struct Edge {
    /// Index of the child class in the next layer.
    child: u32,
    /// Index of the parent in this layer.
    parent: u32,
    /// The jump, in the parent's frame.
    jump: u16,
    /// A group element taking the child to its canonical position.
    sym: u8,
}

fn move_sets_w<B: Bits, const W: usize>(
    p: &PegSolitaire<B>,
    layers: &[Vec<B>],
    max_bytes: usize,
    progress: &dyn Progress,
) -> Result<(u64, u64), PegError> {
    if layers.is_empty() {
        return Ok((0, 0));
    }
    let perms = jump_perms(p)?;
    let order = perms.len();
    let last = layers.len() - 1;
    progress.phase("move sets", last as u64);
    let overflow = || PegError::Budget("a jump is used more than 15 times".into());
    // This layer's multisets: those of position i are sets[start[i]..start[i + 1]].
    let mut sets: Vec<Multiset<W>> = vec![[0u64; W]];
    let mut starts: Vec<usize> = vec![0, 1];
    for d in 0..last {
        let next = Index::new(&layers[d + 1]);
        let mut edges: Vec<Edge> = layers[d]
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, x)| {
                let mut v = Vec::new();
                p.for_each_move(x, |j| {
                    let child = p.play_unchecked(x, j);
                    let c = p.canonical(&child);
                    if let Some(k) = next.get(&c) {
                        let sym = (0..order)
                            .find(|&g| p.apply_symmetry(g, &child) == c)
                            .expect("the canonical position is an image");
                        v.push(Edge {
                            child: k,
                            parent: i as u32,
                            jump: j,
                            sym: sym as u8,
                        });
                    }
                });
                v
            })
            .collect();
        drop(next);
        edges.par_sort_unstable_by_key(|e| e.child);
        // The first edge of each child (every child has one).
        let mut first = Vec::with_capacity(layers[d + 1].len() + 1);
        for (k, e) in edges.iter().enumerate() {
            if k == 0 || edges[k - 1].child != e.child {
                debug_assert_eq!(first.len(), e.child as usize);
                first.push(k);
            }
        }
        first.push(edges.len());
        if first.len() != layers[d + 1].len() + 1 {
            return Err(PegError::Budget(
                "a goal-reaching position has no goal-reaching parent".into(),
            ));
        }
        let next_sets: Result<Vec<Vec<Multiset<W>>>, PegError> = (0..layers[d + 1].len())
            .into_par_iter()
            .map(|k| {
                let c = layers[d + 1][k];
                let stab: Vec<usize> = (1..order)
                    .filter(|&g| p.apply_symmetry(g, &c) == c)
                    .collect();
                let mut out: Vec<Multiset<W>> = Vec::new();
                for e in &edges[first[k]..first[k + 1]] {
                    let perm = &perms[e.sym as usize];
                    let from = &sets[starts[e.parent as usize]..starts[e.parent as usize + 1]];
                    for m in from {
                        let m = add_jump(m, e.jump as usize).ok_or_else(overflow)?;
                        let m = permute(&m, perm);
                        // The least image under the stabiliser (each image
                        // of `m` itself, not of a smaller one).
                        let least = stab
                            .iter()
                            .map(|&h| permute(&m, &perms[h]))
                            .fold(m, |a, b| a.min(b));
                        out.push(least);
                    }
                }
                out.sort_unstable();
                out.dedup();
                Ok(out)
            })
            .collect();
        let next_sets = next_sets?;
        let total: usize = next_sets.iter().map(Vec::len).sum();
        let bytes =
            (total + sets.len()) * size_of::<Multiset<W>>() + edges.len() * size_of::<Edge>();
        if bytes > max_bytes {
            return Err(PegError::Budget(format!(
                "move sets: memory budget of {max_bytes} bytes exceeded at layer {} (needs about {bytes})",
                d + 1
            )));
        }
        drop(edges);
        starts.clear();
        starts.push(0);
        sets = Vec::with_capacity(total);
        for v in next_sets {
            sets.extend_from_slice(&v);
            starts.push(sets.len());
        }
        progress.advance(1);
    }
    // At the goals: each multiset with its orbit under the group.
    let mut raw = 0u64;
    for (k, c) in layers[last].iter().enumerate() {
        let stab: Vec<usize> = (0..order)
            .filter(|&g| p.apply_symmetry(g, c) == *c)
            .collect();
        for m in &sets[starts[k]..starts[k + 1]] {
            let fixed = stab
                .iter()
                .filter(|&&g| permute(m, &perms[g]) == *m)
                .count();
            raw += (order / fixed.max(1)) as u64;
        }
    }
    Ok((raw, sets.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{self, Spec};

    #[test]
    fn degrees_lcm_is_the_least_common_multiple_or_none() {
        let lcm_slow = |d: &[u32]| {
            d.iter().fold(1u128, |l, &k| {
                let k = k.max(1) as u128;
                let (mut a, mut b) = (l, k);
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                l / a * k
            })
        };
        for degs in [
            vec![],
            vec![0],
            vec![4, 6, 4, 10],
            (1..=40).collect(),
            vec![200, 300, 7, 200],
            (1..=40).rev().collect(),
        ] {
            let want = lcm_slow(&degs);
            let top = degs.iter().copied().max().unwrap_or(1).max(1) as u64;
            assert_eq!(degrees_lcm(&degs), Some((want as u64, top)), "{degs:?}");
        }
        // lcm(1..=50) is about 3.1e21.
        assert_eq!(degrees_lcm(&(1..=50).collect::<Vec<u32>>()), None);
    }

    #[test]
    fn jump_perms_follow_the_symmetries() {
        let AnyProblem::Small(p) = api::build(&Spec::named("english")).unwrap() else {
            panic!("english fits 64 bits")
        };
        let perms = jump_perms(&p).unwrap();
        let jumps = p.board().jumps();
        for (g, perm) in perms.iter().enumerate() {
            for (j, jp) in jumps.iter().enumerate() {
                let m = p.position_of([jp.from, jp.over, jp.to]);
                let t = jumps[perm[j] as usize];
                assert_eq!(
                    p.apply_symmetry(g, &m),
                    p.position_of([t.from, t.over, t.to]),
                    "group element {g}, jump {j}"
                );
            }
        }
    }
}
