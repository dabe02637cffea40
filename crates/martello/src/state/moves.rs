//! Move generation: every pair of stones that can eat each other
//! (horizontal neighbours, vertical neighbours in both white columns,
//! double jumps), the children they make, and the lazy children of the
//! exact search (keys and prune flags made from the parent's rows, no
//! child state built).

use super::classes::split;
use super::keys::RowKey;
use super::lanes::{lane, remove_at, row_len, set_at, LANE};
use super::rows::RowInfo;
use super::{Martello, Op, RowCache, State};
use crate::board::{MartelloError, MAX_N};
use endgame_core::restarts::LazyChild;

/// Where a lazy child's stones stand: eater row and index, eaten row and
/// index (see [`Martello::lazy_children`]).
pub type Spots = [u8; 4];

/// What every lazy child of one expansion shares (see
/// [`Martello::lazy_children`]).
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

/// The pairs' two lazy children (see [`Martello::lazy_children`]).
struct LazySink<'a, K> {
    m: &'a Martello,
    rows: &'a [u64; MAX_N],
    out: &'a mut Vec<LazyChild<Op, K, Spots>>,
    p: Parent,
    /// Children, left-out ones included.
    count: u64,
}

impl<K: RowKey> PairSink for LazySink<'_, K> {
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

impl Martello {
    /// Plays an operation with the positions of both stones known, keeping
    /// `present` and `doomed` up to date.
    #[inline(always)]
    pub(super) fn apply_at(
        &self,
        s: &State,
        (rx, ix): (usize, usize),
        (ry, iy): (usize, usize),
    ) -> State {
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

    /// The pairs of stones of `s` that can eat each other (either way):
    /// half its operations, counted from the per-row data alone.
    #[inline]
    pub fn pair_count(&self, s: &State) -> u32 {
        s.info.0.pairs.count_ones() + s.info.0.vertical().count_ones()
    }

    /// The pairs of stones left on `s` that share colour or symbol,
    /// wherever they stand: the eats the position may still make one
    /// day, where [`Martello::pair_count`] counts those it can make now.
    /// (Two stones share at most one of the two.)
    #[inline]
    pub fn share_pairs(&self, s: &State) -> u32 {
        let n = self.n;
        let colour = (1u64 << n) - 1;
        let pairs = |k: u32| k * k.saturating_sub(1) / 2;
        (0..n)
            .map(|i| {
                pairs(((s.present >> (i * n)) & colour).count_ones())
                    + pairs((s.present & self.symcol[i]).count_ones())
            })
            .sum()
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
    /// (n ≤ 6): [`Martello::lazy_children`] with that key.
    #[inline]
    pub fn lazy_children4(
        &self,
        s: &State,
        out: &mut Vec<LazyChild<Op, [u64; 4], Spots>>,
        skip_pruned: bool,
    ) -> u64 {
        debug_assert!(self.n <= 6);
        self.lazy_children(s, out, skip_pruned)
    }

    /// The operations of `s` as lazy children keyed by [`Martello::key7`]
    /// (any n): [`Martello::lazy_children`] with that key.
    #[inline]
    pub fn lazy_children7(
        &self,
        s: &State,
        out: &mut Vec<LazyChild<Op, [u64; 7], Spots>>,
        skip_pruned: bool,
    ) -> u64 {
        self.lazy_children(s, out, skip_pruned)
    }

    /// The operations of `s` as lazy children keyed by `K` (a key made
    /// from the rows alone, see [`RowKey`]), in
    /// [`Martello::for_each_child`]'s order: each child's key is made from
    /// the parent's rows with the one or two changed rows replaced, its
    /// prune flag is [`State::doomed`] of the child, and `aux` holds the
    /// stones' places for [`Martello::build_lazy`]. No child state is
    /// built. With `skip_pruned`, children whose prune flag is set are
    /// left out (their keys are never made). Returns the number of
    /// operations, left-out children included.
    #[inline]
    pub fn lazy_children<K: RowKey>(
        &self,
        s: &State,
        out: &mut Vec<LazyChild<Op, K, Spots>>,
        skip_pruned: bool,
    ) -> u64 {
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

    /// One lazy child of [`Martello::lazy_children`]: the stone `x` at
    /// `(rx, ix)` eats `y` at `(ry, iy)`. Inlined into the pair loop (a
    /// call per child cost more than its body); the key is made only for
    /// children kept.
    #[inline(always)]
    fn lazy_child<K: RowKey>(
        &self,
        p: &mut Parent,
        out: &mut Vec<LazyChild<Op, K, Spots>>,
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
            key: K::of_rows(&child),
            score: p.score,
            goal: p.score == 1,
            pruned,
            aux: [rx as u8, ix as u8, ry as u8, iy as u8],
            hash: 0,
        });
    }

    /// The state of a lazy child of `s` (see [`Martello::lazy_children`]).
    #[inline]
    pub fn build_lazy<K>(&self, s: &State, c: &LazyChild<Op, K, Spots>) -> State {
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
}
