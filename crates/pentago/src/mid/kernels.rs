//! The kernels of a layer pass, one block (one first-player stone set) at
//! a time: the turn (fives and rotations, [`turn_block`]) and the gather
//! (each node ORs its children, [`gather_block`], the turn optionally
//! fused in), each compiled twice, portable and for AVX2/BMI1/BMI2/
//! POPCNT/LZCNT (`pdep` for the cell deposit), the second chosen at run
//! time where [`fast_available`].
//!
//! [`fast_available`]: super::cpu::fast_available

use super::entry::{stream_fence, Entry};
use super::space::Space;
use super::state::{Full, Line};
use super::tables::{tables, Tables};
use crate::board::bits_of;

/// What [`turn_block`] needs of its layer.
pub(super) struct TurnCtx<'a> {
    /// Fives of the first player's stone sets, by colex rank.
    pub(super) fx: &'a [Line],
    /// Fives of the second player's stone sets, by colex rank.
    pub(super) fy: &'a [Line],
    /// The second player's sets in the complement's frame, colex order.
    pub(super) bs: &'a [u32],
    /// The `n` empty cells.
    pub(super) mask: u32,
    /// Parity of the states of the layer asking, and of the layer turned.
    pub(super) pj: usize,
    pub(super) pk: usize,
}

/// [`Space::turn`] on the block of one first-player set `a` (rank `ia`),
/// specialised on the question (`WIN`, else "not lose"), on whether the
/// board is then full, and on who placed the last stone.
#[inline(always)]
fn turn_block_impl<
    E: Entry,
    const WIN: bool,
    const FULL: bool,
    const FIRST: bool,
    const FAST: bool,
>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    let f_a = &c.fx[ia].0;
    let comp = !a & c.mask;
    for (slot, &b) in out.iter_mut().zip(c.bs) {
        *slot = turn_node::<E, WIN, FULL, FAST>(sp, c, f_a, comp, b, FIRST, *slot);
    }
}

/// [`Entry::turned`] of the node `b` (second player's set in the frame
/// of `comp`, the cells the block's first-player set leaves) of a block
/// whose first player's fives are `f_a`; `first`: the first player placed
/// the node's last stone.
#[inline(always)]
fn turn_node<E: Entry, const WIN: bool, const FULL: bool, const FAST: bool>(
    sp: &Space,
    c: &TurnCtx,
    f_a: &Full,
    comp: u32,
    b: u32,
    first: bool,
    e: E,
) -> E {
    turn_node_at::<E, WIN, FULL, FAST>(c, f_a, fives_rank::<FAST>(tables(), sp, comp, b), first, e)
}

/// The rank among the root's empty cells of the second player's set `b`
/// (in the frame of `comp`), which indexes its fives.
#[inline(always)]
fn fives_rank<const FAST: bool>(t: &Tables, sp: &Space, comp: u32, b: u32) -> usize {
    let cells = if FAST {
        pdep(b, comp)
    } else {
        sp.deposit(b, comp)
    };
    t.rank(cells)
}

/// [`turn_node`] with the second player's fives at `fy_rank` (its
/// [`fives_rank`]).
#[inline(always)]
fn turn_node_at<E: Entry, const WIN: bool, const FULL: bool, const FAST: bool>(
    c: &TurnCtx,
    f_a: &Full,
    fy_rank: usize,
    first: bool,
    e: E,
) -> E {
    let f_b = &c.fy[fy_rank].0;
    let (fm, fo) = if first { (f_a, f_b) } else { (f_b, f_a) };
    if FAST {
        e.turned_fast::<WIN, FULL>(fm, fo, c.pj, c.pk)
    } else {
        e.turned::<WIN, FULL>(fm, fo, c.pj, c.pk)
    }
}

/// The BMI2 instruction `pdep` (only reached from code compiled for it).
#[inline(always)]
fn pdep(v: u32, m: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: called only with FAST, from functions compiled for BMI2 and
    // run where it was detected.
    return unsafe { std::arch::x86_64::_pdep_u32(v, m) };
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("pdep only on x86-64 ({v}, {m})")
}

/// [`turn_block_impl`] for any machine.
#[inline(never)]
fn turn_block<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    turn_block_impl::<E, WIN, FULL, FIRST, false>(sp, c, out, ia, a)
}

/// [`turn_block_impl`] compiled for AVX2, BMI and POPCNT, with `pdep`;
/// only call it where [`fast_available`].
///
/// [`fast_available`]: super::cpu::fast_available
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn turn_block_fast<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    sp: &Space,
    c: &TurnCtx,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    turn_block_impl::<E, WIN, FULL, FIRST, true>(sp, c, out, ia, a)
}

/// A turn of one block.
pub(super) type TurnFn<E> = fn(&Space, &TurnCtx, &mut [E], usize, u32);

/// [`turn_block`] or its fast twin.
pub(super) fn pick_turn<E: Entry, const WIN: bool, const FULL: bool, const FIRST: bool>(
    fast: bool,
) -> TurnFn<E> {
    #[cfg(target_arch = "x86_64")]
    if fast {
        // SAFETY: `fast` only when the features were detected.
        return |sp, c, out, ia, a| unsafe {
            turn_block_fast::<E, WIN, FULL, FIRST>(sp, c, out, ia, a)
        };
    }
    let _ = fast;
    turn_block::<E, WIN, FULL, FIRST>
}

/// How many entries ahead the first mover's gather prefetches.
const PREFETCH: usize = 16;

/// How many nodes ahead a fused gather fetches the fives of a node.
const FIVES_AHEAD: usize = 8;

/// A hint to bring the line at `p` into the caches (nothing elsewhere
/// than on x86-64); `p` need not point into anything.
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint, never dereferenced.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// What [`gather_block`] needs of its layers.
pub(super) struct GatherCtx<'a, E> {
    /// Empty cells of the root.
    pub(super) n: u32,
    /// The second player's sets in the complement's frame, colex order.
    pub(super) bs: &'a [u32],
    /// The next layer, turned.
    pub(super) next: &'a [E],
    /// Nodes per block of the next layer.
    pub(super) child_block: usize,
    /// Per node of a block, where its children are, `kids` each (the same
    /// for every block): when the second player moves, their offsets in
    /// the block's child block; when the first does, the child's cell
    /// (its index among the free cells, bits 16..) and its offset in the
    /// child block of the first player's set with that cell added.
    pub(super) offs: &'a [u32],
    pub(super) kids: usize,
    /// Whether to write the layer with non-temporal stores (with `FAST`;
    /// for layers much larger than the last-level cache, read back from
    /// memory anyway).
    pub(super) stream: bool,
    /// The turn of the layer gathered, done as each node is gathered
    /// (one pass over the layer, not two) when `TURN`.
    pub(super) turn: Option<&'a TurnCtx<'a>>,
    pub(super) sp: &'a Space,
}

/// [`Space::gather`] of the block of one first-player set `a` (rank
/// `ia`): each node ORs its children, which add one stone of the first
/// player (`FIRST_MOVES`) or of the second; with `TURN` the node is then
/// turned at once ([`Space::turn`] for question `WIN` of the layer
/// before, never a full board), with the `FAST` deposit.
#[inline(always)]
fn gather_block_impl<
    E: Entry,
    const FIRST_MOVES: bool,
    const TURN: bool,
    const WIN: bool,
    const FAST: bool,
>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    // The turn: the node's last stone was placed by the player who does
    // not move at this layer.
    let tc = if TURN { g.turn } else { None };
    let f_a = tc.map(|c| &c.fx[ia].0);
    let comp = !a & ((1u32 << g.n) - 1);
    let t = tables();
    // The fives' ranks of the next `FIVES_AHEAD` nodes, each computed
    // once and its table entry fetched `FIVES_AHEAD` nodes before it is
    // used: the table is indexed by the rank of the node's stone set
    // among all the empty cells, so consecutive nodes read it far apart,
    // and near the full board of a 17- or 16-stone root it outgrows the
    // second-level cache (several MB): without the fetch the turn waits
    // on that read at every node (the README's benchmark section has the
    // figures).
    let mut ahead = [0usize; FIVES_AHEAD];
    if let (true, Some(c)) = (TURN, tc) {
        for (slot, &b) in ahead.iter_mut().zip(g.bs) {
            *slot = fives_rank::<FAST>(t, g.sp, comp, b);
            prefetch(c.fy.as_ptr().wrapping_add(*slot));
        }
    }
    // The rank of node `i`'s fives, replaced by that of node `i +
    // FIVES_AHEAD`, whose entry is fetched.
    let mut next_rank = |i: usize| -> usize {
        let slot = &mut ahead[i % FIVES_AHEAD];
        let r = *slot;
        if let (true, Some(c)) = (TURN, tc) {
            if let Some(&b) = g.bs.get(i + FIVES_AHEAD) {
                *slot = fives_rank::<FAST>(t, g.sp, comp, b);
                prefetch(c.fy.as_ptr().wrapping_add(*slot));
            }
        }
        r
    };
    let finish = |r: usize, acc: E| match (tc, f_a) {
        (Some(c), Some(f_a)) if TURN => {
            turn_node_at::<E, WIN, false, FAST>(c, f_a, r, !FIRST_MOVES, acc)
        }
        _ => acc,
    };
    if FIRST_MOVES {
        // The complement's cells in order, and the rank base
        // of the first player's set with each added.
        let mut base = [0usize; 32];
        for (p, cell) in bits_of(comp as u64).enumerate() {
            base[p] = t.rank(a | 1 << cell) * g.child_block;
        }
        for (node, (slot, offs)) in out.iter_mut().zip(g.offs.chunks_exact(g.kids)).enumerate() {
            let r = next_rank(node);
            let mut acc = E::ZERO;
            for &o in offs {
                // SAFETY: the cell index is below the free cells' count
                // (checked in `Space::gather`), at most 31.
                let i = unsafe { *base.get_unchecked((o >> 16) as usize) } + (o & 0xffff) as usize;
                // Each cell's children are read in order, one stream per
                // cell, a dozen streams: fetch ahead of each.
                prefetch(g.next.as_ptr().wrapping_add(i + PREFETCH));
                // SAFETY: `offs` was checked in `Space::gather`: cell
                // index below the free cells' count, offset below
                // `child_block`; `base[p]` is a rank among the first
                // player's sets one larger times `child_block`, so `i` is
                // below the next layer's size, `g.next`'s length.
                acc = acc.or(unsafe { *g.next.get_unchecked(i) });
            }
            let e = finish(r, acc);
            if FAST && g.stream {
                e.stream_fast(slot);
            } else {
                *slot = e;
            }
        }
    } else {
        // The children of block `a` are block `a` of the next layer, at
        // offsets that depend on the node only.
        let kids = &g.next[ia * g.child_block..(ia + 1) * g.child_block];
        for (node, (slot, offs)) in out.iter_mut().zip(g.offs.chunks_exact(g.kids)).enumerate() {
            let r = next_rank(node);
            let mut acc = E::ZERO;
            for &o in offs {
                // SAFETY: offsets are below `child_block`, the length of
                // `kids` (checked in `Space::gather`).
                acc = acc.or(unsafe { *kids.get_unchecked(o as usize) });
            }
            let e = finish(r, acc);
            if FAST && g.stream {
                e.stream_fast(slot);
            } else {
                *slot = e;
            }
        }
    }
    if FAST && g.stream {
        stream_fence();
    }
}

/// A gather of one block.
pub(super) type GatherFn<E> = fn(&GatherCtx<E>, &mut [E], usize, u32);

/// [`gather_block_impl`] for any x86-64 or other machine.
#[inline(never)]
fn gather_block<E: Entry, const FIRST_MOVES: bool, const TURN: bool, const WIN: bool>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    gather_block_impl::<E, FIRST_MOVES, TURN, WIN, false>(g, out, ia, a)
}

/// [`gather_block_impl`] compiled for AVX2 (a [`Both`] in one register),
/// BMI and POPCNT, with `pdep`; only call it where [`fast_available`].
///
/// [`Both`]: super::entry::Both
/// [`fast_available`]: super::cpu::fast_available
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
unsafe fn gather_block_fast<
    E: Entry,
    const FIRST_MOVES: bool,
    const TURN: bool,
    const WIN: bool,
>(
    g: &GatherCtx<E>,
    out: &mut [E],
    ia: usize,
    a: u32,
) {
    gather_block_impl::<E, FIRST_MOVES, TURN, WIN, true>(g, out, ia, a)
}

/// [`gather_block`] or its fast twin.
pub(super) fn pick_gather<E: Entry, const FIRST_MOVES: bool, const TURN: bool, const WIN: bool>(
    fast: bool,
) -> GatherFn<E> {
    #[cfg(target_arch = "x86_64")]
    if fast {
        // SAFETY: `fast` only when the features were detected.
        return |g, out, ia, a| unsafe {
            gather_block_fast::<E, FIRST_MOVES, TURN, WIN>(g, out, ia, a)
        };
    }
    let _ = fast;
    gather_block::<E, FIRST_MOVES, TURN, WIN>
}
