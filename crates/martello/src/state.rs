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
//! A row is one `u64`, stone `id` stored as byte `id + 1` from the low
//! byte, zero bytes after the last stone.

use crate::board::{stone_name, Board, MartelloError, EMPTY, MAX_N};
use endgame_core::restarts::LazyChild;

/// Where a lazy child's stones stand: eater row and index, eaten row and
/// index (see [`Martello::lazy_children4`]).
pub type Spots = [u8; 4];

/// A normalised state: the stone sequence of each row.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct State {
    /// Row `r` packed as bytes `id + 1`, first stone in the low byte.
    pub rows: [u64; MAX_N],
    /// Bit `id` set for every stone on the board (derived from `rows`,
    /// kept for the connectivity bound).
    pub present: u64,
    /// Derived from `rows`: the state provably cannot reach one stone (its
    /// stones fall into several classes, or two empty rows cut the board).
    /// Kept up to date incrementally by every operation.
    pub doomed: bool,
}

/// One operation: `eater` eats `eaten` (stone ids).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Op {
    /// The stone that moves.
    pub eater: u8,
    /// The stone removed.
    pub eaten: u8,
}

/// Number of stones in a packed row.
#[inline(always)]
pub fn row_len(row: u64) -> usize {
    (71 - row.leading_zeros() as usize) / 8
}

#[inline(always)]
fn byte(row: u64, i: usize) -> u8 {
    (row >> (8 * i)) as u8
}

/// The row with the stone at index `i` removed.
#[inline(always)]
fn remove_at(row: u64, i: usize) -> u64 {
    let low_mask = (1u64 << (8 * i)).wrapping_sub(1);
    let low = row & low_mask;
    let high = if i >= 7 {
        0
    } else {
        (row >> (8 * (i + 1))) << (8 * i)
    };
    low | high
}

/// The row with the byte at index `i` set to `v`.
#[inline(always)]
fn set_at(row: u64, i: usize, v: u8) -> u64 {
    (row & !(0xFFu64 << (8 * i))) | (u64::from(v) << (8 * i))
}

/// Index of byte value `b` (non-zero) in `row`, if present.
#[inline(always)]
fn find_in(row: u64, b: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let x = row ^ (LO * u64::from(b));
    let z = x.wrapping_sub(LO) & !x & HI;
    if z == 0 {
        None
    } else {
        Some(z.trailing_zeros() as usize / 8)
    }
}

impl State {
    /// The normalised state of a raw board (stones of each row, left to
    /// right).
    pub fn from_board(b: &Board) -> State {
        let n = b.n();
        let mut s = State::default();
        for r in 0..n {
            let mut k = 0;
            for c in 0..n {
                let v = b.get(r, c);
                if v != EMPTY {
                    s.rows[r] |= u64::from(v + 1) << (8 * k);
                    s.present |= 1 << v;
                    k += 1;
                }
            }
        }
        s.doomed = split(&s) || !connected_mask(n, s.present);
        s
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

    /// The stones of row `r`, in order.
    pub fn row(&self, r: usize) -> Vec<u8> {
        let row = self.rows[r];
        (0..row_len(row)).map(|i| byte(row, i) - 1).collect()
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
        self.rows
            .iter()
            .enumerate()
            .find_map(|(r, &row)| find_in(row, id + 1).map(|i| (r, i)))
    }
}

/// The Martello puzzle on an n-board from a given start.
#[derive(Clone, Debug)]
pub struct Martello {
    n: usize,
    start: State,
    /// `compat[a]` has bit `b` set when stones `a` and `b` share colour or
    /// symbol.
    compat: [u64; 64],
    swap: [u8; 64],
    /// `symcol[s]`: the stones of symbol `s`.
    symcol: [u64; MAX_N],
    /// `cshift[id]`: the first bit of stone `id`'s colour row (colour × n).
    cshift: [u8; 64],
    /// `sym[id]`: stone `id`'s symbol.
    sym: [u8; 64],
    /// Bit 0 of every colour row (`Σ 1 << (c·n)`).
    rep: u64,
}

impl Martello {
    /// The puzzle on an `n`-board starting from `start`.
    pub fn new(n: usize, start: State) -> Result<Martello, MartelloError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(MartelloError::SizeOutOfRange(n));
        }
        let mut compat = [0u64; 64];
        let mut swap = [0u8; 64];
        for a in 0..n * n {
            for b in 0..n * n {
                if a != b && (a / n == b / n || a % n == b % n) {
                    compat[a] |= 1 << b;
                }
            }
            swap[a] = ((a % n) * n + a / n) as u8;
        }
        let mut symcol = [0u64; MAX_N];
        let (mut cshift, mut sym, mut rep) = ([0u8; 64], [0u8; 64], 0u64);
        for a in 0..n * n {
            symcol[a % n] |= 1 << a;
            cshift[a] = (a / n * n) as u8;
            sym[a] = (a % n) as u8;
        }
        for c in 0..n {
            rep |= 1 << (c * n);
        }
        Ok(Martello {
            n,
            start,
            compat,
            swap,
            symcol,
            cshift,
            sym,
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

    /// Plays an operation with the positions of both stones known, keeping
    /// `present` and `doomed` up to date.
    #[inline(always)]
    fn apply_at(
        &self,
        s: &State,
        eater: u8,
        (rx, ix): (usize, usize),
        (ry, iy): (usize, usize),
    ) -> State {
        let mut t = *s;
        let eaten = byte(t.rows[ry], iy) - 1;
        t.present &= !(1u64 << eaten);
        t.rows[ry] = set_at(t.rows[ry], iy, eater + 1);
        t.rows[rx] = remove_at(t.rows[rx], ix);
        if !t.doomed {
            t.doomed = split(&t) || !self.still_connected(t.present, eaten);
        }
        t
    }

    /// Whether the stones `p` are still one class after `y` was removed
    /// from a connected set: quick certificates first (`y` was the last of
    /// its colour or of its symbol, or a stone of its colour and one of its
    /// symbol share a third link), the full test otherwise.
    #[inline(always)]
    fn still_connected(&self, p: u64, y: u8) -> bool {
        let n = self.n;
        let (shift, sy) = (
            self.cshift[y as usize] as usize,
            self.sym[y as usize] as usize,
        );
        let low = (1u64 << n) - 1;
        let syms = (p >> shift) & low;
        let same_sym = p & self.symcol[sy];
        if syms == 0 || same_sym == 0 {
            return true;
        }
        // A stone (c, s) with colour c among those of `same_sym` and
        // symbol s among `syms` closes the cycle y's colour – s – c – y's
        // symbol, so y's removal keeps the class whole. Without a loop:
        // `same_sym >> sy` has one bit at each such colour's row start,
        // times `low` fills those rows; `syms` times `rep` repeats the
        // symbol set in every colour row.
        let colours = (same_sym >> sy) * low;
        let symbols = syms * self.rep;
        if p & colours & symbols != 0 {
            return true;
        }
        connected_mask(n, p)
    }

    /// Whether stones `a` and `b` share colour or symbol.
    #[inline(always)]
    pub fn compatible(&self, a: u8, b: u8) -> bool {
        self.compat[a as usize] >> b & 1 != 0
    }

    /// Calls `f(a, pos_a, b, pos_b)` for every pair of stones that can eat
    /// each other (either way), with their (row, index) places: horizontal
    /// neighbours, vertical neighbours in both white columns, double jumps.
    /// Each pair once.
    #[inline(always)]
    fn for_each_pair(&self, s: &State, mut f: impl FnMut(u8, (usize, usize), u8, (usize, usize))) {
        let n = self.n;
        let mut lens = [0usize; MAX_N];
        for r in 0..n {
            lens[r] = row_len(s.rows[r]);
        }
        let mut pair = |a: u8, pa: (usize, usize), b: u8, pb: (usize, usize)| {
            if self.compatible(a, b) {
                f(a, pa, b, pb);
            }
        };
        for r in 0..n {
            let row = s.rows[r];
            for i in 1..lens[r] {
                pair(byte(row, i - 1) - 1, (r, i - 1), byte(row, i) - 1, (r, i));
            }
        }
        // Vertical neighbours (rows r, r+1) and double jumps (rows r, r+2
        // over a row of at most one stone), in column 0 (first stones) and
        // column n-1 (last stones; the same pair again when both rows hold
        // a lone stone).
        for r in 0..n {
            if lens[r] == 0 {
                continue;
            }
            for d in 1..=2 {
                let t = r + d;
                if t >= n || lens[t] == 0 || (d == 2 && lens[r + 1] > 1) {
                    continue;
                }
                let (ra, rb) = (s.rows[r], s.rows[t]);
                pair(byte(ra, 0) - 1, (r, 0), byte(rb, 0) - 1, (t, 0));
                if lens[r] > 1 || lens[t] > 1 {
                    let (ia, ib) = (lens[r] - 1, lens[t] - 1);
                    pair(byte(ra, ia) - 1, (r, ia), byte(rb, ib) - 1, (t, ib));
                }
            }
        }
    }

    /// Calls `f(op, child)` for every operation of `s`: horizontal eats,
    /// vertical eats in both white columns, double jumps. Each
    /// (eater, eaten) pair once.
    #[inline]
    pub fn for_each_child(&self, s: &State, mut f: impl FnMut(Op, State)) {
        self.for_each_pair(s, |a, pa, b, pb| {
            f(Op { eater: a, eaten: b }, self.apply_at(s, a, pa, pb));
            f(Op { eater: b, eaten: a }, self.apply_at(s, b, pb, pa));
        });
    }

    /// The operations of `s` as lazy children keyed by [`Martello::key4`]
    /// (n ≤ 6), in [`Martello::for_each_child`]'s order: each child's key
    /// is the parent's 6-bit rows with the one or two changed rows
    /// replaced, its prune flag is [`State::doomed`] of the child, and
    /// `aux` holds the stones' places for [`Martello::build_lazy`]. No
    /// child state is built. With `skip_pruned`, children whose prune flag
    /// is set are left out (their keys are never made). Returns the number
    /// of operations, left-out children included.
    #[inline]
    pub fn lazy_children4(
        &self,
        s: &State,
        out: &mut Vec<LazyChild<Op, [u64; 4], Spots>>,
        skip_pruned: bool,
    ) -> u64 {
        debug_assert!(self.n <= 6);
        let rows = &s.rows;
        let mut lanes = [0u64; 6];
        let mut occ = 0u32;
        for r in 0..6 {
            lanes[r] = lanes6(rows[r]);
            occ |= u32::from(rows[r] != 0) << r;
        }
        let score = s.stones() - 1;
        let goal = score == 1;
        let mut count = 0u64;
        let mut one = |x: u8, (rx, ix): (usize, usize), y: u8, (ry, iy): (usize, usize)| {
            count += 1;
            let ny = set_at(rows[ry], iy, x + 1);
            // The eater's row after it left (both changes when it is the
            // eaten stone's row: a horizontal eat leaves a stone there).
            let nx = remove_at(if rx == ry { ny } else { rows[rx] }, ix);
            let o = if nx == 0 { occ & !(1 << rx) } else { occ };
            let present = s.present & !(1u64 << y);
            let pruned = s.doomed || split_occ(o) || !self.still_connected(present, y);
            if pruned && skip_pruned {
                return;
            }
            let mut l = lanes;
            l[ry] = lanes6(ny);
            l[rx] = lanes6(nx);
            out.push(LazyChild {
                mv: Op { eater: x, eaten: y },
                key: key4_lanes(&l),
                score,
                goal,
                pruned,
                aux: [rx as u8, ix as u8, ry as u8, iy as u8],
            });
        };
        self.for_each_pair(s, |a, pa, b, pb| {
            one(a, pa, b, pb);
            one(b, pb, a, pa);
        });
        count
    }

    /// The state of a lazy child of `s` (see [`Martello::lazy_children4`]).
    #[inline]
    pub fn build_lazy(&self, s: &State, c: &LazyChild<Op, [u64; 4], Spots>) -> State {
        let [rx, ix, ry, iy] = c.aux;
        let (rx, ix, ry, iy) = (rx as usize, ix as usize, ry as usize, iy as usize);
        // `apply_at` without its bound test: the lazy child carries it.
        let mut t = *s;
        t.present &= !(1u64 << c.mv.eaten);
        t.rows[ry] = set_at(t.rows[ry], iy, c.mv.eater + 1);
        t.rows[rx] = remove_at(t.rows[rx], ix);
        t.doomed = c.pruned;
        t
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
            let mut out = 0u64;
            for i in 0..row_len(row) {
                out |= u64::from(self.swap[(byte(row, i) - 1) as usize] + 1) << (8 * i);
            }
            t.rows[r] = out;
        }
        t.present = present_of(self.n, &t);
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

    /// Key of `s` without symmetry: the state packed into 4 words for
    /// n ≤ 6 (6 bits a stone, 3 bits a row length).
    /// (Each row's bytes `id + 1 < 64` squeezed to 6-bit lanes, 36 bits a
    /// row; the first empty lane ends the row.)
    #[inline(always)]
    pub fn key4(&self, s: &State) -> [u64; 4] {
        debug_assert!(self.n <= 6);
        let r = &s.rows;
        key4_lanes(&[
            lanes6(r[0]),
            lanes6(r[1]),
            lanes6(r[2]),
            lanes6(r[3]),
            lanes6(r[4]),
            lanes6(r[5]),
        ])
    }

    /// Key of `s` without symmetry for any n (7 words).
    #[inline(always)]
    pub fn key7(&self, s: &State) -> [u64; 7] {
        pack::<7>(self.n, s)
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

/// [`Martello::key4`] from the rows' 6-bit lanes.
#[inline(always)]
fn key4_lanes(l: &[u64; 6]) -> [u64; 4] {
    let a = u128::from(l[0]) | u128::from(l[1]) << 36 | u128::from(l[2]) << 72;
    let b = u128::from(l[3]) | u128::from(l[4]) << 36 | u128::from(l[5]) << 72;
    [a as u64, (a >> 64) as u64, b as u64, (b >> 64) as u64]
}

/// Squeezes eight 8-bit lanes holding values below 64 into 6-bit lanes.
#[inline(always)]
fn lanes6(x: u64) -> u64 {
    let y = (x & 0x00FF_00FF_00FF_00FF) | ((x & 0xFF00_FF00_FF00_FF00) >> 2);
    let z = (y & 0x0000_FFFF_0000_FFFF) | ((y & 0xFFFF_0000_FFFF_0000) >> 4);
    (z & 0xFFFF_FFFF) | ((z >> 32) << 24)
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
    let low = (1u64 << n) - 1;
    let mut rep = 0u64;
    for c in 0..n {
        rep |= 1 << (c * n);
    }
    // Lane-wise "is not zero", as a bit at each lane's start: adding the
    // lane's low n-1 bits to all-ones-but-the-top carries into the top
    // bit exactly when one of them is set (no carry leaves the lane).
    let m = rep * (low >> 1);
    let h = rep << (n - 1);
    let nonzero = |y: u64| ((((y & m) + m) | y) & h) >> (n - 1);
    let fold = |y: u64| {
        let mut s = 0u64;
        for c in 0..n {
            s |= y >> (c * n);
        }
        s & low
    };
    let mut cols = 1u64 << (p.trailing_zeros() as usize / n * n);
    let mut syms = 0u64;
    loop {
        let ns = fold(p & (cols * low));
        let nc = nonzero(p & (ns * rep));
        if nc == cols && ns == syms {
            break;
        }
        cols = nc;
        syms = ns;
    }
    nonzero(p) & !cols == 0
}

/// Mirror image `i` (bit 0: left–right, bit 1: top–bottom).
pub fn mirror(n: usize, s: &State, i: usize) -> State {
    let mut t = State {
        present: s.present,
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let mut row = s.rows[r];
        if i & 1 != 0 {
            let k = row_len(row);
            row = if k == 0 {
                0
            } else {
                row.swap_bytes() >> (8 * (8 - k))
            };
        }
        let tr = if i & 2 != 0 { n - 1 - r } else { r };
        t.rows[tr] = row;
    }
    t
}

/// Relabels colours and symbols in order of first appearance.
fn relabel(n: usize, s: &State) -> State {
    let mut cmap = [u8::MAX; MAX_N];
    let mut smap = [u8::MAX; MAX_N];
    let (mut nc, mut ns) = (0u8, 0u8);
    let mut t = State {
        doomed: s.doomed,
        ..State::default()
    };
    for r in 0..n {
        let row = s.rows[r];
        let mut out = 0u64;
        for i in 0..row_len(row) {
            let id = (byte(row, i) - 1) as usize;
            let (c, y) = (id / n, id % n);
            if cmap[c] == u8::MAX {
                cmap[c] = nc;
                nc += 1;
            }
            if smap[y] == u8::MAX {
                smap[y] = ns;
                ns += 1;
            }
            let nid = cmap[c] as usize * n + smap[y] as usize;
            out |= ((nid + 1) as u64) << (8 * i);
            t.present |= 1 << nid;
        }
        t.rows[r] = out;
    }
    t
}

/// The presence mask of a state's rows.
fn present_of(n: usize, s: &State) -> u64 {
    let mut p = 0u64;
    for r in 0..n {
        let row = s.rows[r];
        for i in 0..row_len(row) {
            p |= 1 << (byte(row, i) - 1);
        }
    }
    p
}

/// Packs a state into `W` words: per row its length (4 bits) then its
/// stones (6 bits each). Injective when the bits fit (n ≤ 6 in 4 words,
/// n ≤ 8 in 7).
#[inline(always)]
fn pack<const W: usize>(n: usize, s: &State) -> [u64; W] {
    let mut out = [0u64; W];
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    let mut w = 0;
    let mut push = |v: u64, nb: u32, acc: &mut u128, bits: &mut u32| {
        *acc |= u128::from(v) << *bits;
        *bits += nb;
        if *bits >= 64 {
            out[w] = *acc as u64;
            w += 1;
            *acc >>= 64;
            *bits -= 64;
        }
    };
    for r in 0..n {
        let row = s.rows[r];
        let k = row_len(row);
        // Stones as 6-bit ids: subtract 1 from every byte, then compress
        // 8-bit lanes to 6-bit ones.
        let mut v = 0u64;
        for i in 0..k {
            v |= u64::from(byte(row, i) - 1) << (6 * i);
        }
        push(k as u64, 4, &mut acc, &mut bits);
        if k > 0 {
            push(v, 6 * k as u32, &mut acc, &mut bits);
        }
    }
    if bits > 0 && w < W {
        out[w] = acc as u64;
    }
    out
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
        self.apply_at(pos, op.eater, px, py)
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

    #[test]
    fn row_bit_tricks() {
        let row = 0x0005_0403_0201_u64;
        assert_eq!(row_len(row), 5);
        assert_eq!(row_len(0), 0);
        assert_eq!(remove_at(row, 0), 0x0504_0302);
        assert_eq!(remove_at(row, 4), 0x0403_0201);
        assert_eq!(remove_at(row, 2), 0x0504_0201);
        assert_eq!(set_at(row, 1, 9), 0x0005_0403_0901);
        assert_eq!(find_in(row, 4), Some(3));
        assert_eq!(find_in(row, 7), None);
        let full = 0x0807_0605_0403_0201u64;
        assert_eq!(row_len(full), 8);
        assert_eq!(remove_at(full, 7), 0x0007_0605_0403_0201);
    }

    #[test]
    fn lanes_squeeze() {
        assert_eq!(lanes6(0x2423_2221_0403_0201), {
            let mut v = 0u64;
            for (i, b) in [1u64, 2, 3, 4, 0x21, 0x22, 0x23, 0x24].iter().enumerate() {
                v |= b << (6 * i);
            }
            v
        });
    }

    #[test]
    fn board_state_round_trip() {
        for n in 1..=8 {
            let b = Board::random(n, 7).unwrap();
            let s = State::from_board(&b);
            assert_eq!(s.to_board(n), b, "a full board is normalised");
            assert_eq!(s.stones() as usize, n * n);
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
}
