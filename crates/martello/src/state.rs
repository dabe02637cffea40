//! Normalised states and operations.
//!
//! Only the *order* of the stones in each row matters to the rules:
//! horizontal neighbours are consecutive stones of a row at any distance,
//! the white columns hold a row's first and last stone (a lone stone may
//! stand in either), and a double jump passes over a row with at most one
//! stone (whose stone, if any, the player puts on the other side). So a
//! normalised state — every stone slid as far left as allowed — is the
//! sequence of stones of each row, and an operation (slides, one eat,
//! re-packing) is named by its eater and eaten stone: the eater leaves its
//! row and takes the eaten stone's place.
//!
//! A row is one `u64` of 7-bit lanes, first stone in the low lane, zero
//! lanes after the last stone. A stone of colour `c` and symbol `s` is
//! the lane `0x40 | c << 3 | s` (see [`code`]): the set bit 6 marks a
//! stone, and "shares colour or symbol" is a test of the lanes' two 3-bit
//! fields, done for all neighbours of a row at once.

use crate::board::{stone_name, Board, MartelloError, EMPTY, MAX_N};
use endgame_core::restarts::LazyChild;

/// Where a lazy child's stones stand: eater row and index, eaten row and
/// index (see [`Martello::lazy_children4`]).
pub type Spots = [u8; 4];

/// A normalised state: the stone sequence of each row.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct State {
    /// Row `r` as 7-bit lanes (stone codes, see [`code`]), first stone in
    /// the low lane.
    pub rows: [u64; MAX_N],
    /// Bit `id` set for every stone on the board (derived from `rows`,
    /// kept for the connectivity bound).
    pub present: u64,
    /// The board side (stone ids are `colour · n + symbol`).
    pub n: u8,
    /// Derived from `rows`: the state provably cannot reach one stone (its
    /// stones fall into several classes, or two empty rows cut the board).
    /// Kept up to date incrementally by every operation.
    pub doomed: bool,
    /// Derived from `rows`: the per-row data of the move generator
    /// ([`RowInfo::of`] of `rows`), kept up to date for the one or two
    /// rows an operation changes instead of recomputed per expansion.
    /// Ignored by comparisons and hashing (it is a function of `rows`).
    info: RowCache,
}

/// [`RowInfo`] inside a [`State`]: equal to every other and hashed as
/// nothing, so `State`'s derived comparisons and hash see the rows only.
#[derive(Clone, Copy, Debug, Default)]
struct RowCache(RowInfo);

impl PartialEq for RowCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for RowCache {}

impl PartialOrd for RowCache {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RowCache {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl std::hash::Hash for RowCache {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// One operation: `eater` eats `eaten` (stone ids).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Op {
    /// The stone that moves.
    pub eater: u8,
    /// The stone removed.
    pub eaten: u8,
}

/// Bits of one lane.
const LANE: usize = 7;
/// Bit 6 of each of the eight lanes (the stone marks).
const MARKS: u64 = 0x0081_0204_0810_2040;
/// The colour fields (bits 3–5) of the eight lanes.
const COLOURS: u64 = 0x0070_E1C3_870E_1C38;
/// The symbol fields (bits 0–2) of the eight lanes.
const SYMBOLS: u64 = 0x000E_1C38_70E1_C387;
/// Bit 3 of each lane.
const BIT3: u64 = MARKS >> 3;

/// The lane of the stone of colour `c` and symbol `s`.
#[inline(always)]
pub fn code(c: usize, s: usize) -> u64 {
    0x40 | (c as u64) << 3 | s as u64
}

/// The id (`colour · n + symbol`) of the stone in lane `v`.
#[inline(always)]
fn id_of(n: usize, v: u64) -> u8 {
    ((v >> 3 & 7) as usize * n + (v & 7) as usize) as u8
}

/// The lane of stone `id`.
#[inline(always)]
fn code_of(n: usize, id: u8) -> u64 {
    code(id as usize / n, id as usize % n)
}

/// Number of stones in a packed row.
#[inline(always)]
pub fn row_len(row: u64) -> usize {
    (64 - row.leading_zeros() as usize) / LANE
}

/// Lane `i` of `row`.
#[inline(always)]
fn lane(row: u64, i: usize) -> u64 {
    (row >> (LANE * i)) & 0x7F
}

/// The row with the stone at index `i` removed.
#[inline(always)]
fn remove_at(row: u64, i: usize) -> u64 {
    let low = row & ((1u64 << (LANE * i)) - 1);
    // i ≤ 7, so the shift is at most 56.
    let high = (row >> (LANE * (i + 1))) << (LANE * i);
    low | high
}

/// The row with lane `i` set to `v`.
#[inline(always)]
fn set_at(row: u64, i: usize, v: u64) -> u64 {
    (row & !(0x7Fu64 << (LANE * i))) | (v << (LANE * i))
}

/// Whether the stones in lanes `a` and `b` share colour or symbol (the
/// tests' reference for the whole-row test).
#[cfg(test)]
fn lanes_compatible(a: u64, b: u64) -> bool {
    let x = a ^ b;
    x & 0x38 == 0 || x & 7 == 0
}

/// Bit 3 of lane `i` set when stones `i` and `i + 1` of `row` share
/// colour or symbol (whole-lane bit operations, no loop).
#[inline(always)]
fn compatible_neighbours(row: u64) -> u64 {
    compatible_lanes(row, row >> LANE)
}

/// Bit 3 of lane `i` set when lane `i` of `row` and lane `i` of `next`
/// both hold stones that share colour or symbol.
#[inline(always)]
fn compatible_lanes(row: u64, next: u64) -> u64 {
    let x = row ^ next;
    // Adding 7 to a 3-bit field carries out of it exactly when the field
    // is not zero (no carry leaves the lane: bit 6 of `x & COLOURS` is 0).
    let colour_differs = ((x & COLOURS) + COLOURS) & MARKS;
    let symbol_differs = ((x & SYMBOLS) + SYMBOLS) & BIT3;
    let both = (row & next & MARKS) >> 3;
    both & !((colour_differs >> 3) & symbol_differs)
}

impl State {
    /// The normalised state of a raw board (stones of each row, left to
    /// right).
    pub fn from_board(b: &Board) -> State {
        let n = b.n();
        let mut s = State {
            n: n as u8,
            ..State::default()
        };
        for r in 0..n {
            let mut k = 0;
            for c in 0..n {
                let v = b.get(r, c);
                if v != EMPTY {
                    s.rows[r] |= code_of(n, v) << (LANE * k);
                    s.present |= 1 << v;
                    k += 1;
                }
            }
        }
        s.doomed = split(&s) || !connected_mask(n, s.present);
        s.refresh();
        s
    }

    /// Recomputes the per-row data after `rows` changed wholesale.
    #[inline]
    fn refresh(&mut self) {
        self.info = RowCache(RowInfo::of(MAX_N, self));
    }

    /// Updates the per-row data after rows `a` and `b` changed (maybe
    /// the same row).
    #[inline(always)]
    fn refresh_rows(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.rows[a], self.rows[b]);
        self.info.0.set_row(a, ra);
        self.info.0.set_row(b, rb);
    }

    /// The normalised raw layout: a row of k ≥ 2 stones fills columns
    /// 0 … k-2 and n-1; a lone stone stands in column 0.
    pub fn to_board(&self, n: usize) -> Board {
        let mut b = Board::empty(n).expect("n checked by the caller");
        for r in 0..n {
            let row = self.row(r);
            let k = row.len();
            for (i, &id) in row.iter().enumerate() {
                let c = if k >= 2 && i == k - 1 { n - 1 } else { i };
                b.set(r, c, id);
            }
        }
        b
    }

    /// Reads a board string into its normalised state.
    pub fn parse(s: &str) -> Result<(usize, State), MartelloError> {
        let b = Board::parse(s)?;
        Ok((b.n(), State::from_board(&b)))
    }

    /// The stones (ids) of row `r`, in order.
    pub fn row(&self, r: usize) -> Vec<u8> {
        let row = self.rows[r];
        (0..row_len(row))
            .map(|i| id_of(self.n as usize, lane(row, i)))
            .collect()
    }

    /// Number of stones in row `r`.
    #[inline(always)]
    pub fn len(&self, r: usize) -> usize {
        row_len(self.rows[r])
    }

    /// Stones on the board.
    #[inline]
    pub fn stones(&self) -> u32 {
        self.present.count_ones()
    }

    /// Whether no stone is left (never reached by play).
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    /// Row and index of stone `id`.
    #[inline]
    pub fn find(&self, id: u8) -> Option<(usize, usize)> {
        let v = code_of(self.n as usize, id);
        self.rows.iter().enumerate().find_map(|(r, &row)| {
            (0..row_len(row))
                .find(|&i| lane(row, i) == v)
                .map(|i| (r, i))
        })
    }
}

/// What the move generator needs of the rows: every row's first and
/// last stone side by side (lane r: row r), for the vertical pairs of all
/// rows at once, and every row's horizontal pairs. (Which rows hold a
/// stone, or two, follows from the first and last stones: see
/// [`RowInfo::long`].)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RowInfo {
    /// Lane r: the first stone of row r.
    first: u64,
    /// Lane r: the last stone of row r.
    last: u64,
    /// Bit 7r + i: stones i and i + 1 of row r can eat each other.
    pairs: u64,
}

/// The low six bits of each of the eight lanes.
const LOW6: u64 = (MARKS >> 6) * 0x3F;

/// Bits 7r (r ≤ 6) moved to bits r (see [`GATHER`]).
#[inline(always)]
fn gather(w: u64) -> u32 {
    ((w & (MARKS >> 6) & ((1 << 49) - 1)).wrapping_mul(GATHER) >> 36) as u32 & 0x7F
}

impl RowInfo {
    #[inline]
    fn of(n: usize, s: &State) -> RowInfo {
        let mut info = RowInfo::default();
        for r in 0..n {
            info.set_row(r, s.rows[r]);
        }
        info
    }

    /// Sets row `r`'s part of the data to that of `row`.
    #[inline(always)]
    fn set_row(&mut self, r: usize, row: u64) {
        let at = LANE * r;
        let lane = 0x7Fu64 << at;
        // Bit 3 of lane i (i ≤ 6) of the neighbour test moved to bit i by
        // one multiplication (see `GATHER`).
        let near = compatible_neighbours(row) >> 3;
        self.pairs = (self.pairs & !lane) | ((near.wrapping_mul(GATHER) >> 36) & 0x7F) << at;
        self.first = (self.first & !lane) | (row & 0x7F) << at;
        // The last stone's mark (bit 6 of its lane) is the row's top bit;
        // `| 0x40` makes an empty row's shift 0.
        let top = 63 - (row | 0x40).leading_zeros();
        self.last = (self.last & !lane) | (row >> (top - 6)) << at;
    }

    /// Bit 3 of lane r: row r holds two stones or more (its first and last
    /// stones differ: lane-wise "is not zero" of their difference).
    #[inline(always)]
    fn long(&self) -> u64 {
        let x = self.first ^ self.last;
        ((((x & LOW6) + LOW6) | x) & MARKS) >> 3
    }

    /// The rows whose lone stone leaving would cut the board of a state
    /// that is not cut ([`split`]): the new empty row lies strictly
    /// inside the occupied span, next to an empty one (emptying the first
    /// or last occupied row only shrinks the span).
    #[inline(always)]
    fn cuts(&self) -> u32 {
        // Rows with a stone (its mark), and with two (first ≠ last); the
        // lazy expansion's n ≤ 6 rows fit the gather.
        let occ = gather(self.first >> 6);
        let multi = gather(self.long() >> 3);
        if occ == 0 {
            return 0;
        }
        let (lo, hi) = (occ.trailing_zeros(), 31 - occ.leading_zeros());
        let inner = ((1u32 << hi) - 1) & !((2u32 << lo) - 1);
        let empty = !occ;
        occ & !multi & inner & (empty << 1 | empty >> 1)
    }

    /// The vertical pairs and double jumps, in the order
    /// [`Martello::for_each_pair`] yields them: bit 3 + k of lane r is the
    /// pair of rows r and r + 1 (k = 0, 1) or r + 2 (k = 2, 3) in column
    /// 0 (k even: first stones) or n-1 (k odd: last stones; the same pair
    /// as column 0 unless one of the rows holds two stones or more). A
    /// double jump passes over a row of at most one stone.
    #[inline(always)]
    fn vertical(&self) -> u64 {
        let (first, last, long) = (self.first, self.last, self.long());
        let over = !(long >> LANE);
        compatible_lanes(first, first >> LANE)
            | (compatible_lanes(last, last >> LANE) & (long | long >> LANE)) << 1
            | (compatible_lanes(first, first >> (2 * LANE)) & over) << 2
            | (compatible_lanes(last, last >> (2 * LANE)) & over & (long | long >> (2 * LANE))) << 3
    }
}

/// `Σ 1 << (36 - 6k)` for k ≤ 6: times a word whose bits sit at 7k
/// (k ≤ 6), bit 7k lands on bit 36 + k, and no two products meet (so no
/// carries): bits 36 … 42 of the product are the seven bits gathered.
const GATHER: u64 = {
    let mut g = 0u64;
    let mut k = 0;
    while k <= 6 {
        g |= 1 << (36 - 6 * k);
        k += 1;
    }
    g
};

/// What every lazy child of one expansion shares (see
/// [`Martello::lazy_children4`]).
struct Parent {
    present: u64,
    doomed: bool,
    /// [`RowInfo::cuts`].
    cut: u32,
    /// The children's score (stones left).
    score: u32,
    /// Leave pruned children out.
    skip: bool,
    /// Eaten stones whose removal was tested for the class bound, and
    /// those of them whose removal keeps one class.
    tested: u64,
    whole: u64,
}

/// What [`Martello::for_each_pair`] hands every pair to: any closure, or
/// the lazy expansion's [`LazySink`], whose method is always inlined (a
/// closure's call is not, and a call per pair cost more than its body).
trait PairSink {
    fn pair(&mut self, a: u64, pa: (usize, usize), b: u64, pb: (usize, usize));
}

impl<F: FnMut(u64, (usize, usize), u64, (usize, usize))> PairSink for F {
    #[inline(always)]
    fn pair(&mut self, a: u64, pa: (usize, usize), b: u64, pb: (usize, usize)) {
        self(a, pa, b, pb)
    }
}

/// The pairs' two lazy children (see [`Martello::lazy_children4`]).
struct LazySink<'a> {
    m: &'a Martello,
    rows: &'a [u64; MAX_N],
    out: &'a mut Vec<LazyChild<Op, [u64; 4], Spots>>,
    p: Parent,
    /// Children, left-out ones included.
    count: u64,
}

impl PairSink for LazySink<'_> {
    #[inline(always)]
    fn pair(&mut self, a: u64, pa: (usize, usize), b: u64, pb: (usize, usize)) {
        self.count += 2;
        let rows = self.rows;
        self.m
            .lazy_child(&mut self.p, self.out, rows, (a, pa), (b, pb));
        self.m
            .lazy_child(&mut self.p, self.out, rows, (b, pb), (a, pa));
    }
}

/// The Martello puzzle on an n-board from a given start.
#[derive(Clone, Debug)]
pub struct Martello {
    n: usize,
    start: State,
    /// `symcol[s]`: the stones of symbol `s`.
    symcol: [u64; MAX_N],
    /// `ids[v & 63]`: the id of the stone in lane `v`.
    ids: [u8; 64],
    /// `cshift[v & 63]`: the first bit of the colour row of the stone in
    /// lane `v` (colour · n).
    cshift: [u8; 64],
    /// Bit 0 of every colour row (`Σ 1 << (c·n)`).
    rep: u64,
}

impl Martello {
    /// The puzzle on an `n`-board starting from `start`.
    pub fn new(n: usize, start: State) -> Result<Martello, MartelloError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(MartelloError::SizeOutOfRange(n));
        }
        if usize::from(start.n) != n {
            return Err(MartelloError::Impossible(format!(
                "a {0}×{0} state given for a {n}×{n} game",
                start.n
            )));
        }
        let mut symcol = [0u64; MAX_N];
        for a in 0..n * n {
            symcol[a % n] |= 1 << a;
        }
        let mut rep = 0u64;
        for c in 0..n {
            rep |= 1 << (c * n);
        }
        let (mut ids, mut cshift) = ([0u8; 64], [0u8; 64]);
        for c in 0..n {
            for y in 0..n {
                let v = (code(c, y) & 63) as usize;
                ids[v] = (c * n + y) as u8;
                cshift[v] = (c * n) as u8;
            }
        }
        Ok(Martello {
            n,
            start,
            symcol,
            ids,
            cshift,
            rep,
        })
    }

    /// The puzzle of a board string.
    pub fn from_board_string(s: &str) -> Result<Martello, MartelloError> {
        let (n, st) = State::parse(s)?;
        Martello::new(n, st)
    }

    /// The board side.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The id of the stone in lane `v`.
    #[inline(always)]
    fn id(&self, v: u64) -> u8 {
        self.ids[(v & 63) as usize]
    }

    /// Plays an operation with the positions of both stones known, keeping
    /// `present` and `doomed` up to date.
    #[inline(always)]
    fn apply_at(&self, s: &State, (rx, ix): (usize, usize), (ry, iy): (usize, usize)) -> State {
        let mut t = *s;
        let x = lane(t.rows[rx], ix);
        let y = lane(t.rows[ry], iy);
        t.present &= !(1u64 << self.id(y));
        t.rows[ry] = set_at(t.rows[ry], iy, x);
        t.rows[rx] = remove_at(t.rows[rx], ix);
        t.refresh_rows(ry, rx);
        if !t.doomed {
            t.doomed = split(&t) || !self.still_connected(t.present, y);
        }
        t
    }

    /// Whether the stones `p` are still one class after the stone in lane
    /// `y` was removed from a connected set: quick certificates first (`y`
    /// was the last of its colour or of its symbol, or a stone of its
    /// colour and one of its symbol share a third link), otherwise whether
    /// `y`'s colour and symbol are still joined ([`joined`]: removing one
    /// edge from a connected graph leaves it connected exactly when the
    /// edge's ends stay joined).
    #[inline(always)]
    fn still_connected(&self, p: u64, y: u64) -> bool {
        let n = self.n;
        let (shift, sy) = (self.cshift[(y & 63) as usize] as usize, (y & 7) as usize);
        let low = (1u64 << n) - 1;
        let syms = (p >> shift) & low;
        let same_sym = p & self.symcol[sy];
        // A stone (c, s) with colour c among those of `same_sym` and
        // symbol s among `syms` closes the cycle y's colour – s – c – y's
        // symbol, so y's removal keeps the class whole. Without a loop:
        // `same_sym >> sy` has one bit at each such colour's row start,
        // times `low` fills those rows; `syms` times `rep` repeats the
        // symbol set in every colour row. (The certificates are combined
        // without branches: which one holds is anyone's guess.)
        let colours = (same_sym >> sy) * low;
        let symbols = syms * self.rep;
        let certified = (syms == 0) | (same_sym == 0) | (p & colours & symbols != 0);
        certified || joined(n, p, 1 << shift, same_sym >> sy)
    }

    /// Whether stones `a` and `b` share colour or symbol.
    #[inline(always)]
    pub fn compatible(&self, a: u8, b: u8) -> bool {
        let n = self.n;
        a != b && (a as usize / n == b as usize / n || a as usize % n == b as usize % n)
    }

    /// Calls `f(a, pos_a, b, pos_b)` for every pair of stones that can eat
    /// each other (either way), with their lanes and (row, index) places:
    /// horizontal neighbours, vertical neighbours in both white columns,
    /// double jumps. Each pair once.
    #[inline(always)]
    fn for_each_pair(&self, s: &State, info: &RowInfo, f: &mut impl PairSink) {
        // Horizontal neighbours, all rows in one loop.
        let mut pairs = info.pairs;
        while pairs != 0 {
            let b = pairs.trailing_zeros() as usize;
            pairs &= pairs - 1;
            let r = b / LANE;
            let i = b - LANE * r;
            let row = s.rows[r];
            f.pair(lane(row, i), (r, i), lane(row, i + 1), (r, i + 1));
        }
        // Vertical neighbours (rows r, r+1) and double jumps (rows r, r+2
        // over a row of at most one stone) in both white columns, from
        // the rows' first and last stones (see `RowInfo::vertical`).
        let mut pairs = info.vertical();
        while pairs != 0 {
            let b = pairs.trailing_zeros() as usize;
            pairs &= pairs - 1;
            let r = b / LANE;
            let k = b - LANE * r - 3;
            let t = r + 1 + (k >> 1);
            // Column n-1 when k is odd (by masks: a branch here
            // mispredicts).
            let end = (k & 1).wrapping_neg();
            let col = info.first ^ ((info.first ^ info.last) & end as u64);
            let (ra, rb) = (s.rows[r], s.rows[t]);
            let (ia, ib) = ((row_len(ra) - 1) & end, (row_len(rb) - 1) & end);
            f.pair(
                (col >> (LANE * r)) & 0x7F,
                (r, ia),
                (col >> (LANE * t)) & 0x7F,
                (t, ib),
            );
        }
    }

    /// Calls `f(op, child)` for every operation of `s`: horizontal eats,
    /// vertical eats in both white columns, double jumps. Each
    /// (eater, eaten) pair once.
    #[inline]
    pub fn for_each_child(&self, s: &State, mut f: impl FnMut(Op, State)) {
        debug_assert_eq!(s.info.0, RowInfo::of(MAX_N, s));
        self.for_each_pair(s, &s.info.0, &mut |a, pa, b, pb| {
            let (ia, ib) = (self.id(a), self.id(b));
            f(
                Op {
                    eater: ia,
                    eaten: ib,
                },
                self.apply_at(s, pa, pb),
            );
            f(
                Op {
                    eater: ib,
                    eaten: ia,
                },
                self.apply_at(s, pb, pa),
            );
        });
    }

    /// The operations of `s` as lazy children keyed by [`Martello::key4`]
    /// (n ≤ 6), in [`Martello::for_each_child`]'s order: each child's key
    /// is made from the parent's rows with the one or two changed rows
    /// replaced, its prune flag is [`State::doomed`] of the child, and
    /// `aux` holds the stones' places for [`Martello::build_lazy`]. No
    /// child state is built. With `skip_pruned`, children whose prune
    /// flag is set are left out (their keys are never made). Returns the
    /// number of operations, left-out children included.
    #[inline]
    pub fn lazy_children4(
        &self,
        s: &State,
        out: &mut Vec<LazyChild<Op, [u64; 4], Spots>>,
        skip_pruned: bool,
    ) -> u64 {
        debug_assert!(self.n <= 6);
        let rows = &s.rows;
        debug_assert_eq!(s.info.0, RowInfo::of(MAX_N, s));
        let info = s.info.0;
        let p = Parent {
            present: s.present,
            doomed: s.doomed,
            cut: info.cuts(),
            score: s.stones() - 1,
            skip: skip_pruned,
            tested: 0,
            whole: 0,
        };
        let mut sink = LazySink {
            m: self,
            rows,
            out,
            p,
            count: 0,
        };
        self.for_each_pair(s, &info, &mut sink);
        sink.count
    }

    /// One lazy child of [`Martello::lazy_children4`]: the stone `x` at
    /// `(rx, ix)` eats `y` at `(ry, iy)`. Inlined into the pair loop (a
    /// call per child cost more than its body); the key is made only for
    /// children kept.
    #[inline(always)]
    fn lazy_child(
        &self,
        p: &mut Parent,
        out: &mut Vec<LazyChild<Op, [u64; 4], Spots>>,
        rows: &[u64; MAX_N],
        (x, (rx, ix)): (u64, (usize, usize)),
        (y, (ry, iy)): (u64, (usize, usize)),
    ) {
        let eaten = self.id(y);
        let bit = 1u64 << eaten;
        // A row that keeps a stone changes no split: only the eater's
        // row, left by its lone stone, can cut a state that was not
        // doomed.
        let pruned = p.doomed || p.cut >> rx & 1 != 0 || {
            // The class test, once per eaten stone (a stone is often
            // eaten by several neighbours).
            if p.tested & bit == 0 {
                p.tested |= bit;
                if self.still_connected(p.present & !bit, y) {
                    p.whole |= bit;
                }
            }
            p.whole & bit == 0
        };
        if pruned && p.skip {
            return;
        }
        let ny = set_at(rows[ry], iy, x);
        // The eater's row after it left (both changes when it is the
        // eaten stone's row: a horizontal eat leaves a stone there).
        let old_x = if rx == ry { ny } else { rows[rx] };
        let nx = remove_at(old_x, ix);
        let mut child = *rows;
        child[ry] = ny;
        child[rx] = nx;
        out.push(LazyChild {
            mv: Op {
                eater: self.id(x),
                eaten,
            },
            key: key4_rows(&child),
            score: p.score,
            goal: p.score == 1,
            pruned,
            aux: [rx as u8, ix as u8, ry as u8, iy as u8],
            hash: 0,
        });
    }

    /// The state of a lazy child of `s` (see [`Martello::lazy_children4`]).
    #[inline]
    pub fn build_lazy(&self, s: &State, c: &LazyChild<Op, [u64; 4], Spots>) -> State {
        let [rx, ix, ry, iy] = c.aux;
        let (rx, ix, ry, iy) = (rx as usize, ix as usize, ry as usize, iy as usize);
        // `apply_at` without its bound test: the lazy child carries it.
        let mut rows = s.rows;
        rows[ry] = set_at(rows[ry], iy, lane(s.rows[rx], ix));
        rows[rx] = remove_at(rows[rx], ix);
        let mut info = s.info.0;
        info.set_row(ry, rows[ry]);
        info.set_row(rx, rows[rx]);
        State {
            rows,
            present: s.present & !(1u64 << c.mv.eaten),
            n: s.n,
            doomed: c.pruned,
            info: RowCache(info),
        }
    }

    /// The operations of `s` and their results.
    pub fn children(&self, s: &State) -> Vec<(Op, State)> {
        let mut v = Vec::new();
        self.for_each_child(s, |op, c| v.push((op, c)));
        v
    }

    /// Plays `op` after checking it is legal.
    pub fn play_checked(&self, s: &State, op: Op) -> Result<State, MartelloError> {
        self.children(s)
            .into_iter()
            .find(|(o, _)| *o == op)
            .map(|(_, c)| c)
            .ok_or_else(|| MartelloError::Illegal(self.format_op(op)))
    }

    /// Writes an operation as `EATER:EATEN`.
    pub fn format_op(&self, op: Op) -> String {
        format!(
            "{}:{}",
            stone_name(self.n, op.eater),
            stone_name(self.n, op.eaten)
        )
    }

    /// Reads `EATER:EATEN` (letters, or decimal ids).
    pub fn parse_op(&self, s: &str) -> Result<Op, MartelloError> {
        let bad = || MartelloError::BadOperation(s.to_string());
        let (a, b) = s.trim().split_once(':').ok_or_else(bad)?;
        let one = |t: &str| -> Option<u8> {
            let id = if let Ok(v) = t.parse::<u8>() {
                v
            } else {
                let mut cs = t.chars();
                let c = cs.next()?;
                if cs.next().is_some() {
                    return None;
                }
                crate::board::char_stone(c)?
            };
            ((id as usize) < self.n * self.n).then_some(id)
        };
        Ok(Op {
            eater: one(a).ok_or_else(bad)?,
            eaten: one(b).ok_or_else(bad)?,
        })
    }

    /// The image of `s` under the colour↔symbol swap.
    pub fn swapped(&self, s: &State) -> State {
        let mut t = *s;
        for r in 0..self.n {
            let row = s.rows[r];
            t.rows[r] = (row & MARKS) | (row & COLOURS) >> 3 | (row & SYMBOLS) << 3;
        }
        t.present = present_of(self.n, &t);
        t.refresh();
        t
    }

    /// Whether two consecutive empty rows separate stones (see [`split`]).
    pub fn split(&self, s: &State) -> bool {
        split(s)
    }

    /// Whether the stones left form one class under "shares colour or
    /// symbol" (see [`connected_mask`]).
    pub fn connected(&self, s: &State) -> bool {
        connected_mask(self.n, s.present)
    }

    /// A lower bound on the minimum stone count reachable from `s`: the
    /// classes (see [`connected_mask`]) of each part of the board that
    /// two consecutive empty rows cut off, summed (parts never meet again
    /// and classes never meet, so each class of each part keeps a stone);
    /// 1 for a state that is not [`State::doomed`].
    pub fn floor(&self, s: &State) -> u32 {
        if !s.doomed {
            return 1;
        }
        let n = self.n;
        let (mut total, mut part, mut empty) = (0, 0u64, 0);
        for r in 0..n {
            let mut row = s.rows[r];
            if row == 0 {
                empty += 1;
                if empty == 2 && part != 0 {
                    total += classes(n, part);
                    part = 0;
                }
                continue;
            }
            empty = 0;
            while row != 0 {
                part |= 1u64 << self.id(row);
                row >>= 7;
            }
        }
        if part != 0 {
            total += classes(n, part);
        }
        total.max(1)
    }

    /// The stones sharing colour or symbol with stone `id` (itself
    /// included).
    #[inline(always)]
    fn compatible_mask(&self, id: u8) -> u64 {
        let n = self.n;
        let (c, y) = (id as usize / n, id as usize % n);
        (((1u64 << n) - 1) << (c * n)) | self.symcol[y]
    }

    /// A lower bound on the minimum stone count reachable from `s` that
    /// knows where stones can meet: the components of an
    /// over-approximation of "may ever eat one another", summed over the
    /// stones (every stone that can never eat or be eaten is a component
    /// of its own). Eats happen only inside a component and each keeps a
    /// stone, so the count is a lower bound; it is never below
    /// [`Martello::floor`] (the edges join compatible stones only, and no
    /// edge crosses two empty rows).
    ///
    /// The over-approximation is a fixpoint that only grows, from the
    /// rules: a stone leaves its row or is eaten only by interacting
    /// (set `may`), so the stones of a row keep their order and only
    /// lose members; a stone of the row's own can be its first (last)
    /// stone only once every stone before (after) it may be gone, and
    /// two of them neighbours only once every stone between may be gone;
    /// a stone enters another row only by eating that row's first stone
    /// from a first stone of the row above or below (or two away over a
    /// row that may hold at most one stone), or likewise a last stone,
    /// and such a newcomer is taken as a possible neighbour of every
    /// stone the row may hold; a row that may hold a lone stone has its
    /// possible first and last stones in common. The brute force checks
    /// it (tests: never above the minimum stone count).
    pub fn meet_floor(&self, s: &State) -> u32 {
        let n = self.n;
        let mut seq = [[0u8; MAX_N]; MAX_N];
        let mut len = [0usize; MAX_N];
        let mut own = [0u64; MAX_N];
        for r in 0..n {
            let row = s.rows[r];
            let k = row_len(row);
            len[r] = k;
            for i in 0..k {
                let id = self.id(lane(row, i));
                seq[r][i] = id;
                own[r] |= 1 << id;
            }
        }
        // may: stones that may interact; first/last: may be a row's
        // first/last stone; head/tail: own stones that may be first/last
        // (or follow a newcomer there); came_f/came_l: newcomers a row
        // may receive at its first/last cell; edge[x]: the stones x may
        // interact with.
        let mut may = 0u64;
        let (mut first, mut last) = ([0u64; MAX_N], [0u64; MAX_N]);
        let (mut came_f, mut came_l) = ([0u64; MAX_N], [0u64; MAX_N]);
        let mut edge = [0u64; 64];
        // Joins x with the stones p.
        let join = |edge: &mut [u64; 64], may: &mut u64, x: u8, p: u64| {
            if p == 0 {
                return;
            }
            edge[x as usize] |= p;
            *may |= p | 1 << x;
            let mut q = p;
            while q != 0 {
                let b = q.trailing_zeros() as usize;
                q &= q - 1;
                edge[b] |= 1 << x;
            }
        };
        loop {
            let before = (may, first, last, came_f, came_l);
            let mut short = [false; MAX_N];
            for r in 0..n {
                let k = len[r];
                if k == 0 {
                    short[r] = true;
                    continue;
                }
                // Own stones: first / last once every stone before /
                // after may be gone; neighbours once every stone between
                // may be gone.
                let (mut head, mut tail) = (0u64, 0u64);
                for i in 0..k {
                    head |= 1 << seq[r][i];
                    if may >> seq[r][i] & 1 == 0 {
                        break;
                    }
                }
                for i in (0..k).rev() {
                    tail |= 1 << seq[r][i];
                    if may >> seq[r][i] & 1 == 0 {
                        break;
                    }
                }
                first[r] |= head;
                last[r] |= tail;
                for i in 0..k {
                    let a = seq[r][i];
                    let ca = self.compatible_mask(a);
                    for j in i + 1..k {
                        let b = seq[r][j];
                        if ca >> b & 1 != 0 {
                            join(&mut edge, &mut may, a, 1 << b);
                        }
                        if may >> b & 1 == 0 {
                            break;
                        }
                    }
                }
                short[r] = (own[r] & !may).count_ones() <= 1;
                if short[r] {
                    let both = first[r] | last[r];
                    first[r] = both;
                    last[r] = both;
                    let came = came_f[r] | came_l[r];
                    came_f[r] = came;
                    came_l[r] = came;
                }
                // A newcomer at the first (last) cell took the place of
                // a first (last) stone: its neighbour is an own stone
                // every stone before (after) which may be gone, or
                // another newcomer.
                let came = came_f[r] | came_l[r];
                for (mut c, near) in [(came_f[r], head | came), (came_l[r], tail | came)] {
                    while c != 0 {
                        let z = c.trailing_zeros() as u8;
                        c &= c - 1;
                        let p = self.compatible_mask(z) & near & !(1 << z);
                        join(&mut edge, &mut may, z, p);
                    }
                }
            }
            // Vertical neighbours and double jumps, both white columns.
            for r in 0..n {
                for d in 1..=2 {
                    let t = r + d;
                    if t >= n || (d == 2 && !short[r + 1]) {
                        continue;
                    }
                    for col in 0..2 {
                        let (a, b) = if col == 0 {
                            (first[r], first[t])
                        } else {
                            (last[r], last[t])
                        };
                        let mut xs = a;
                        while xs != 0 {
                            let x = xs.trailing_zeros() as u8;
                            xs &= xs - 1;
                            let p = self.compatible_mask(x) & b & !(1 << x);
                            if p == 0 {
                                continue;
                            }
                            join(&mut edge, &mut may, x, p);
                            // x eats a stone of p (enters row t), or a
                            // stone of p eats x (enters row r).
                            if col == 0 {
                                came_f[t] |= 1 << x;
                                came_f[r] |= p;
                                first[t] |= 1 << x;
                                first[r] |= p;
                            } else {
                                came_l[t] |= 1 << x;
                                came_l[r] |= p;
                                last[t] |= 1 << x;
                                last[r] |= p;
                            }
                        }
                    }
                }
            }
            if (may, first, last, came_f, came_l) == before {
                break;
            }
        }
        // Components of the stones under `edge`.
        let mut left = s.present;
        let mut count = 0;
        while left != 0 {
            let mut comp = left & left.wrapping_neg();
            let mut frontier = comp;
            while frontier != 0 {
                let mut next = 0;
                let mut f = frontier;
                while f != 0 {
                    let x = f.trailing_zeros() as usize;
                    f &= f - 1;
                    next |= edge[x];
                }
                frontier = next & !comp;
                comp |= next;
            }
            left &= !comp;
            count += 1;
        }
        count
    }

    /// Key of `s` without symmetry for n ≤ 6: the rows' lanes (42 bits a
    /// row) in 4 words (see [`key4_rows`]; each row ends its stones with
    /// zero lanes, so the key is injective).
    #[inline(always)]
    pub fn key4(&self, s: &State) -> [u64; 4] {
        debug_assert!(self.n <= 6);
        key4_rows(&s.rows)
    }

    /// Key of `s` without symmetry for any n (7 words: eight rows of 56
    /// bits).
    #[inline(always)]
    pub fn key7(&self, s: &State) -> [u64; 7] {
        let mut out = [0u64; 7];
        for (r, &row) in s.rows.iter().enumerate() {
            let (bit, w) = (56 * r % 64, 56 * r / 64);
            out[w] |= row << bit;
            if bit > 8 {
                out[w + 1] |= row >> (64 - bit);
            }
        }
        out
    }

    /// The state's canonical form under the board's mirrors (left–right:
    /// every row reversed; top–bottom: row order reversed).
    pub fn canonical_mirror(&self, s: &State) -> State {
        let mut best = *s;
        for i in 1..4 {
            let t = mirror(self.n, s, i);
            if t < best {
                best = t;
            }
        }
        best
    }

    /// The canonical form under the whole group: mirrors, colour↔symbol
    /// swap, and every relabelling of colours and of symbols (relabelled
    /// in order of first appearance in the row-major scan).
    pub fn canonical_full(&self, s: &State) -> State {
        let mut best: Option<State> = None;
        for sw in 0..2 {
            let base = if sw == 1 { self.swapped(s) } else { *s };
            for m in 0..4 {
                let t = relabel(self.n, &mirror(self.n, &base, m));
                if best.is_none_or(|b| t < b) {
                    best = Some(t);
                }
            }
        }
        best.expect("eight images")
    }
}

/// [`Martello::key4`] of rows `r`: rows 0–3 in the low 42 bits of words
/// 0–3, row 4 in the high 22 bits of words 0 and 1 (its low 22 bits, then
/// the rest), row 5 likewise in words 2 and 3.
#[inline(always)]
fn key4_rows(r: &[u64; MAX_N]) -> [u64; 4] {
    [
        r[0] | r[4] << 42,
        r[1] | (r[4] >> 22) << 42,
        r[2] | r[5] << 42,
        r[3] | (r[5] >> 22) << 42,
    ]
}

/// Whether two consecutive empty rows separate stones. Rows never
/// refill (a stone enters a row only by eating one there), and no move
/// crosses two empty rows, so the two sides never meet again and each
/// keeps a stone.
#[inline]
pub fn split(s: &State) -> bool {
    let mut occ = 0u32;
    for r in 0..MAX_N {
        occ |= u32::from(s.rows[r] != 0) << r;
    }
    split_occ(occ)
}

/// [`split`] of the rows whose bits are set in `occ`.
#[inline(always)]
fn split_occ(occ: u32) -> bool {
    if occ == 0 {
        return false;
    }
    let lo = occ.trailing_zeros();
    let hi = 31 - occ.leading_zeros();
    let span = ((1u32 << (hi - lo + 1)) - 1) << lo;
    let z = !occ & span;
    z & (z >> 1) != 0
}
/// Whether the stones left form one class under "shares colour or
/// symbol" (transitively). Stones of different classes never meet, and
/// every class keeps a stone, so the number of classes is a lower
/// bound on the minimum stone count: more than one, and the goal is
/// out of reach.
///
/// Stone `id` is bit `id` = colour · n + symbol, so colour `c` is the
/// n-bit lane `c` of `p`: the classes are the components of the bipartite
/// graph colour – symbol with an edge per stone. The search grows a
/// component with whole-lane bit operations (no loop over stones):
/// colours are kept as one bit at the start of their lane.
#[inline]
pub fn connected_mask(n: usize, p: u64) -> bool {
    if p == 0 {
        return true;
    }
    let lanes = Lanes::new(n);
    // The colours reachable from the first non-empty one: grow until
    // no new colour joins (the symbols follow from the colours).
    let all = lanes.nonzero(p);
    let mut cols = all & all.wrapping_neg();
    loop {
        let nc = lanes.grow(p, cols);
        if nc == cols {
            break;
        }
        cols = nc;
    }
    all & !cols == 0
}

/// The classes of the stones `p` under "shares colour or symbol" (see
/// [`connected_mask`]).
pub fn classes(n: usize, p: u64) -> u32 {
    let lanes = Lanes::new(n);
    let mut left = lanes.nonzero(p);
    let mut count = 0;
    while left != 0 {
        let mut cols = left & left.wrapping_neg();
        loop {
            let nc = lanes.grow(p, cols);
            if nc == cols {
                break;
            }
            cols = nc;
        }
        left &= !cols;
        count += 1;
    }
    count
}

/// Whether the colours `a` and `b` (bits at their lanes' starts, as in
/// [`connected_mask`]) lie in one class of the stones `p`: grows the two
/// sides in turn until they share a colour (one class) or the side just
/// grown stops growing (it is a whole class without the other side's
/// colours). A bridge usually cuts off a small class, which this finds in
/// a step or two where growing from the first colour took three or four
/// steps.
#[inline]
fn joined(n: usize, p: u64, mut a: u64, mut b: u64) -> bool {
    let lanes = Lanes::new(n);
    loop {
        if a & b != 0 {
            return true;
        }
        let grown = lanes.grow(p, a);
        if grown == a {
            return false;
        }
        a = b;
        b = grown;
    }
}

/// Whole-lane bit operations on the n lanes of n bits of a stone set
/// (colour `c` is lane `c`; see [`connected_mask`]).
#[derive(Clone, Copy)]
struct Lanes {
    n: usize,
    low: u64,
    rep: u64,
    m: u64,
    h: u64,
}

impl Lanes {
    #[inline(always)]
    fn new(n: usize) -> Lanes {
        let low = (1u64 << n) - 1;
        let rep = REP[n];
        Lanes {
            n,
            low,
            rep,
            m: rep * (low >> 1),
            h: rep << (n - 1),
        }
    }

    /// Lane-wise "is not zero", as a bit at each lane's start: adding the
    /// lane's low n-1 bits to all-ones-but-the-top carries into the top
    /// bit exactly when one of them is set (no carry leaves the lane).
    #[inline(always)]
    fn nonzero(self, y: u64) -> u64 {
        ((((y & self.m) + self.m) | y) & self.h) >> (self.n - 1)
    }

    /// The union of the (at most eight) lanes, by doubling.
    #[inline(always)]
    fn fold(self, y: u64) -> u64 {
        let n = self.n;
        let y = y | y >> n;
        let y = y | y >> (2 * n);
        (y | y >> (4 * n)) & self.low
    }

    /// The colours of `p` sharing a symbol with a stone of the colours
    /// `cols` (bits at their lanes' starts), `cols`' own included.
    #[inline(always)]
    fn grow(self, p: u64, cols: u64) -> u64 {
        self.nonzero(p & (self.fold(p & (cols * self.low)) * self.rep))
    }
}

/// `REP[n]`: bit 0 of each of the n lanes of n bits (`Σ 1 << (c·n)`).
const REP: [u64; MAX_N + 1] = {
    let mut t = [0u64; MAX_N + 1];
    let mut n = 1;
    while n <= MAX_N {
        let mut c = 0;
        while c < n {
            t[n] |= 1 << (c * n);
            c += 1;
        }
        n += 1;
    }
    t
};

/// Mirror image `i` (bit 0: left–right, bit 1: top–bottom).
pub fn mirror(n: usize, s: &State, i: usize) -> State {
    let mut t = State {
        present: s.present,
        n: s.n,
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let mut row = s.rows[r];
        if i & 1 != 0 {
            let k = row_len(row);
            let mut rev = 0u64;
            for j in 0..k {
                rev |= lane(row, j) << (LANE * (k - 1 - j));
            }
            row = rev;
        }
        let tr = if i & 2 != 0 { n - 1 - r } else { r };
        t.rows[tr] = row;
    }
    t.refresh();
    t
}

/// Relabels colours and symbols in order of first appearance.
fn relabel(n: usize, s: &State) -> State {
    let mut cmap = [u8::MAX; MAX_N];
    let mut smap = [u8::MAX; MAX_N];
    let (mut nc, mut ns) = (0u8, 0u8);
    let mut t = State {
        n: s.n,
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let row = s.rows[r];
        let mut out = 0u64;
        for i in 0..row_len(row) {
            let v = lane(row, i);
            let (c, y) = ((v >> 3 & 7) as usize, (v & 7) as usize);
            if cmap[c] == u8::MAX {
                cmap[c] = nc;
                nc += 1;
            }
            if smap[y] == u8::MAX {
                smap[y] = ns;
                ns += 1;
            }
            let (nc_, ny) = (cmap[c] as usize, smap[y] as usize);
            out |= code(nc_, ny) << (LANE * i);
            t.present |= 1 << (nc_ * n + ny);
        }
        t.rows[r] = out;
    }
    t.refresh();
    t
}

/// The presence mask of a state's rows.
fn present_of(n: usize, s: &State) -> u64 {
    let mut p = 0u64;
    for r in 0..n {
        let row = s.rows[r];
        for i in 0..row_len(row) {
            p |= 1 << id_of(n, lane(row, i));
        }
    }
    p
}

impl endgame_core::Rules for Martello {
    type Position = State;
    type Move = Op;

    fn start(&self) -> State {
        self.start
    }

    fn for_each_move(&self, pos: &State, mut f: impl FnMut(Op)) {
        self.for_each_child(pos, |op, _| f(op));
    }

    #[inline]
    fn play_unchecked(&self, pos: &State, op: Op) -> State {
        let px = pos.find(op.eater).expect("eater on the board");
        let py = pos.find(op.eaten).expect("eaten stone on the board");
        self.apply_at(pos, px, py)
    }

    fn is_legal(&self, pos: &State, op: Op) -> bool {
        self.play_checked(pos, op).is_ok()
    }
}

impl endgame_core::Puzzle for Martello {
    fn score(&self, pos: &State) -> u32 {
        pos.stones()
    }
    fn is_goal(&self, pos: &State) -> bool {
        pos.stones() == 1
    }
    fn score_bound(&self) -> u32 {
        1
    }
    #[inline]
    fn cannot_reach_goal(&self, pos: &State) -> bool {
        pos.doomed
    }
}

/// The group used by the conformance battery: the four mirrors times the
/// colour↔symbol swap (relabellings of colours and symbols are applied by
/// [`Martello::canonical_full`], outside this trait: that group has
/// 8·(n!)² elements).
impl endgame_core::Symmetric for Martello {
    fn symmetry_count(&self) -> usize {
        8
    }
    fn apply_symmetry(&self, i: usize, pos: &State) -> State {
        let m = mirror(self.n, pos, i & 3);
        if i & 4 != 0 {
            self.swapped(&m)
        } else {
            m
        }
    }
}

impl endgame_core::Notation for Martello {
    type Error = MartelloError;
    fn format_move(&self, mv: Op) -> String {
        self.format_op(mv)
    }
    fn parse_move(&self, s: &str) -> Result<Op, MartelloError> {
        self.parse_op(s)
    }
    fn format_position(&self, pos: &State) -> String {
        pos.to_board(self.n).to_board_string()
    }
    fn parse_position(&self, s: &str) -> Result<State, MartelloError> {
        let (n, st) = State::parse(s)?;
        if n != self.n {
            return Err(MartelloError::Impossible(format!(
                "a {n}×{n} board given for a {}×{} game",
                self.n, self.n
            )));
        }
        Ok(st)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of the given (colour, symbol) stones.
    fn row_of(stones: &[(usize, usize)]) -> u64 {
        stones
            .iter()
            .enumerate()
            .fold(0, |r, (i, &(c, s))| r | code(c, s) << (LANE * i))
    }

    #[test]
    fn row_bit_tricks() {
        let st = [(0, 1), (2, 3), (4, 5), (6, 7), (1, 0)];
        let row = row_of(&st);
        assert_eq!(row_len(row), 5);
        assert_eq!(row_len(0), 0);
        assert_eq!(remove_at(row, 0), row_of(&st[1..]));
        assert_eq!(remove_at(row, 4), row_of(&st[..4]));
        assert_eq!(remove_at(row, 2), row_of(&[(0, 1), (2, 3), (6, 7), (1, 0)]));
        assert_eq!(
            set_at(row, 1, code(5, 5)),
            row_of(&[(0, 1), (5, 5), (4, 5), (6, 7), (1, 0)])
        );
        let full: Vec<_> = (0..8).map(|i| (i, 7 - i)).collect();
        let full_row = row_of(&full);
        assert_eq!(row_len(full_row), 8);
        assert_eq!(remove_at(full_row, 7), row_of(&full[..7]));
        assert_eq!(remove_at(full_row, 0), row_of(&full[1..]));
        assert_eq!(lane(full_row, 7), code(7, 0));
    }

    /// The whole-row neighbour test against the pair test, on random rows
    /// of every length (colours and symbols 0 … 7).
    #[test]
    fn compatible_neighbours_match_the_pair_test() {
        let mut rng = endgame_core::restarts::Rng::new(11);
        for _ in 0..20_000 {
            let k = rng.below(9);
            let st: Vec<_> = (0..k).map(|_| (rng.below(8), rng.below(8))).collect();
            let row = row_of(&st);
            let mut want = 0u64;
            for i in 1..k {
                if lanes_compatible(lane(row, i - 1), lane(row, i)) {
                    want |= 8 << (LANE * (i - 1));
                }
            }
            assert_eq!(compatible_neighbours(row), want, "{st:?}");
            // The gathered form RowInfo keeps: bit i for the pair i, i + 1.
            let gathered = ((compatible_neighbours(row) >> 3).wrapping_mul(GATHER) >> 36) & 0x7F;
            for i in 0..7 {
                assert_eq!(gathered >> i & 1, want >> (LANE * i + 3) & 1, "{st:?}");
            }
            for i in 1..k {
                let (a, b) = (st[i - 1], st[i]);
                assert_eq!(
                    lanes_compatible(lane(row, i - 1), lane(row, i)),
                    a.0 == b.0 || a.1 == b.1
                );
            }
        }
    }

    #[test]
    fn board_state_round_trip() {
        for n in 1..=8 {
            let b = Board::random(n, 7).unwrap();
            let s = State::from_board(&b);
            assert_eq!(s.to_board(n), b, "a full board is normalised");
            assert_eq!(s.stones() as usize, n * n);
            for id in 0..(n * n) as u8 {
                let (r, i) = s.find(id).unwrap();
                assert_eq!(s.row(r)[i], id);
            }
        }
        let (n, s) = State::parse("..b/d.f/ghi").unwrap();
        assert_eq!(s.to_board(n).to_board_string(), "b..d.fghi");
    }

    #[test]
    fn keys_are_injective_on_children() {
        let m = Martello::new(6, State::from_board(&Board::random(6, 3).unwrap())).unwrap();
        let mut seen = std::collections::HashMap::new();
        let mut seen7 = std::collections::HashMap::new();
        let mut frontier = vec![m.start];
        for _ in 0..3 {
            let mut next = Vec::new();
            for s in &frontier {
                for (_, c) in m.children(s) {
                    let k = m.key4(&c);
                    if let Some(old) = seen.insert(k, c) {
                        assert_eq!(old, c);
                    }
                    if let Some(old) = seen7.insert(m.key7(&c), c) {
                        assert_eq!(old, c);
                    }
                    next.push(c);
                }
            }
            frontier = next;
        }
    }

    /// The per-row data kept in every state equals a recomputation from
    /// its rows: after operations (built and lazy), swaps, mirrors and
    /// relabellings, on random playouts for n = 1 … 8.
    #[test]
    fn kept_row_data_matches_a_recomputation() {
        let mut rng = endgame_core::restarts::Rng::new(5);
        let check = |s: &State| {
            let info = s.info.0;
            assert_eq!(info, RowInfo::of(MAX_N, s), "{s:?}");
            for r in 0..MAX_N {
                let long = info.long() >> (LANE * r + 3) & 1;
                assert_eq!(long, u64::from(s.rows[r] > 0x7F), "{s:?}");
            }
            let (occ, multi) = (gather(info.first >> 6), gather(info.long() >> 3));
            for r in 0..7 {
                assert_eq!(occ >> r & 1, u32::from(s.rows[r] != 0), "{s:?}");
                assert_eq!(multi >> r & 1, u32::from(s.rows[r] > 0x7F), "{s:?}");
            }
        };
        for n in 1..=8 {
            for seed in 0..40 {
                let m =
                    Martello::new(n, State::from_board(&Board::random(n, seed).unwrap())).unwrap();
                let mut s = m.start;
                loop {
                    check(&s);
                    check(&m.swapped(&s));
                    for i in 0..4 {
                        check(&mirror(n, &s, i));
                    }
                    check(&relabel(n, &s));
                    let kids = m.children(&s);
                    if kids.is_empty() {
                        break;
                    }
                    for (_, c) in &kids {
                        check(c);
                    }
                    if n <= 6 {
                        let mut lazy = Vec::new();
                        m.lazy_children4(&s, &mut lazy, false);
                        for (l, (_, c)) in lazy.iter().zip(&kids) {
                            let b = m.build_lazy(&s, l);
                            check(&b);
                            assert_eq!(b.info.0, c.info.0);
                        }
                    }
                    s = kids[rng.below(kids.len())].1;
                }
            }
        }
    }

    /// The class test after one stone's removal (certificates, then
    /// [`joined`]) against [`connected_mask`] of the stones left, for every
    /// stone of random connected stone sets, n = 1 … 8.
    #[test]
    fn removal_test_matches_the_class_test() {
        let mut rng = endgame_core::restarts::Rng::new(17);
        let mut split_seen = 0;
        for n in 1..=8 {
            let m = Martello::new(n, State::from_board(&Board::random(n, 1).unwrap())).unwrap();
            for _ in 0..3000 {
                let keep = 1 + rng.below(4);
                let mut p = 0u64;
                for id in 0..n * n {
                    if rng.below(keep + 1) < keep {
                        p |= 1 << id;
                    }
                }
                if !connected_mask(n, p) {
                    continue;
                }
                for id in 0..n * n {
                    if p >> id & 1 == 0 {
                        continue;
                    }
                    let rest = p & !(1 << id);
                    let want = connected_mask(n, rest);
                    split_seen += usize::from(!want);
                    let y = code_of(n, id as u8);
                    assert_eq!(m.still_connected(rest, y), want, "n {n} p {p:#x} id {id}");
                }
            }
        }
        assert!(split_seen > 1000, "{split_seen}");
    }

    /// key7 keeps every row whole, n = 8 included.
    #[test]
    fn key7_holds_every_row() {
        let m = Martello::new(8, State::from_board(&Board::random(8, 5).unwrap())).unwrap();
        let s = m.start;
        let k = m.key7(&s);
        let mut bits = [0u8; 448];
        for (w, word) in k.iter().enumerate() {
            for b in 0..64 {
                bits[64 * w + b] = (word >> b & 1) as u8;
            }
        }
        for r in 0..8 {
            let mut row = 0u64;
            for b in 0..56 {
                row |= u64::from(bits[56 * r + b]) << b;
            }
            assert_eq!(row, s.rows[r]);
        }
    }
}
