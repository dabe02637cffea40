//! The row-wise search: the exact minimum stone count with every
//! horizontal eat put off until a vertical eat needs it.
//!
//! A horizontal eat changes its own row only (the row's sequence loses
//! the eaten stone), so it commutes with every operation on other rows
//! and with every double jump that does not pass over its row. Any line
//! can therefore be reordered so that, before each vertical eat, only the
//! rows it touches (eater's, eaten's, and the row a double jump passes
//! over) have made their horizontal eats, and the other rows make theirs
//! later; after the last vertical eat each row on its own is left with
//! the fewest stones its horizontal eats reach. So the minimum stone
//! count of a state is the least, over the states reachable by such
//! *events* (horizontal eats in the touched rows, then one vertical eat),
//! of the sum of the rows' own minima. The rows' horizontal closures (at
//! most 2^k subsequences of a k-stone row) are small and memoised per row
//! content. Of the closure states with a given stone at the end an event
//! uses, only those whose rest no other's rest reaches are tried (see
//! `Closure::ends`: the eats left out can be made after the event).
//!
//! Where the rows barely meet (the "stuck" boards of the crate README's
//! ninth and tenth sessions: minimum 14–21 stones of 36) the events are
//! few: the search takes 7–5,248 steps where the search over single
//! operations enumerates the product of the rows' states (1.5–11.6
//! million). Where rows meet often it branches over many pairs of
//! closure states and is slower than the operation search, so the solver
//! runs it with budgets (see [`crate::solver::STAGES`]). Tested against
//! the brute force and the operation search (`tests/rowwise.rs`).

use super::keys::key7_rows;
use super::lanes::{lane, remove_at, row_len, set_at};
use super::{Martello, Op, State};
use crate::board::MAX_N;
use endgame_core::budget::Budget;
use endgame_core::hash::FxHashMap;
use endgame_core::restarts::{Memo, MemoPool};

/// Whether two stone lanes share colour or symbol.
#[inline(always)]
fn compatible(a: u64, b: u64) -> bool {
    let x = a ^ b;
    x & 0x38 == 0 || x & 7 == 0
}

/// The row states one row reaches by its own horizontal eats.
struct Closure {
    /// The subsequences reached, the row itself first.
    rows: Vec<u64>,
    /// For each of `rows`: the state it came from (index) and the
    /// operation that made it (eater and eaten lanes); the first's is
    /// unused.
    parent: Vec<(u16, u8, u8)>,
    /// The fewest stones of `rows`, and an index holding it.
    h: u32,
    best: u16,
    /// Column 0 (first stones) and column n-1 (last stones): for each
    /// stone that may stand there, the states of `rows` with it there
    /// that an event needs (see [`Closure::ends`]).
    ends: [Vec<(u64, Vec<u16>)>; 2],
}

/// The stones of a row as a set (bit `lane & 63` for each lane).
fn stone_set(row: u64) -> u64 {
    (0..row_len(row)).fold(0, |m, i| m | 1 << (lane(row, i) & 63))
}

/// The subsequences `row` reaches by horizontal eats, itself first, with
/// the state each came from and the eat (eater and eaten lanes).
fn reach(row: u64) -> (Vec<u64>, Vec<(u16, u8, u8)>) {
    let mut rows = vec![row];
    let mut parent = vec![(0, 0, 0)];
    let mut i = 0;
    while i < rows.len() {
        let r = rows[i];
        for j in 0..row_len(r).saturating_sub(1) {
            let (a, b) = (lane(r, j), lane(r, j + 1));
            if !compatible(a, b) {
                continue;
            }
            // a eats b, then b eats a: the eaten stone leaves the
            // sequence.
            for (gone, eater, eaten) in [(j + 1, a, b), (j, b, a)] {
                let c = remove_at(r, gone);
                if !rows.contains(&c) {
                    rows.push(c);
                    parent.push((i as u16, eater as u8, eaten as u8));
                }
            }
        }
        i += 1;
    }
    (rows, parent)
}

impl Closure {
    /// The states of `rows` an event in column `col` needs, by the stone
    /// at that end. After the event that stone has left the row or been
    /// replaced, and the rest of the row (the state without its end
    /// stone) goes on with its own eats, which need not be made first:
    /// a state whose rest another state's rest reaches by horizontal eats
    /// gives a child that child reaches (those eats commute with the
    /// event), so only the states whose rest no other rest reaches are
    /// kept.
    fn ends(rows: &[u64], col: usize) -> Vec<(u64, Vec<u16>)> {
        let split = |r: u64| {
            let k = row_len(r);
            if col == 0 {
                (lane(r, 0), r >> 7)
            } else {
                (lane(r, k - 1), remove_at(r, k - 1))
            }
        };
        let mut groups: Vec<(u64, Vec<(u16, u64)>)> = Vec::new();
        for (i, &r) in rows.iter().enumerate() {
            let (x, rest) = split(r);
            match groups.iter_mut().find(|g| g.0 == x) {
                Some(g) => g.1.push((i as u16, rest)),
                None => groups.push((x, vec![(i as u16, rest)])),
            }
        }
        groups
            .into_iter()
            .map(|(x, cands)| {
                // Horizontal eats only delete stones, so a rest reaches
                // another only if the other's stones are a proper subset
                // of its own: the closures are made only for those.
                let stones: Vec<u64> = cands.iter().map(|&(_, rest)| stone_set(rest)).collect();
                let mut reached: Vec<Option<Vec<u64>>> = vec![None; cands.len()];
                let mut kept = Vec::new();
                for (i, &(k, rest)) in cands.iter().enumerate() {
                    let mut dominated = false;
                    for j in 0..cands.len() {
                        if j == i || stones[i] & !stones[j] != 0 || stones[i] == stones[j] {
                            continue;
                        }
                        let from = reached[j].get_or_insert_with(|| reach(cands[j].1).0);
                        if from.contains(&rest) {
                            dominated = true;
                            break;
                        }
                    }
                    if !dominated {
                        kept.push(k);
                    }
                }
                (x, kept)
            })
            .collect()
    }

    fn of(row: u64) -> Closure {
        let (rows, parent) = reach(row);
        let ends = [Closure::ends(&rows, 0), Closure::ends(&rows, 1)];
        let (best, h) = rows
            .iter()
            .enumerate()
            .map(|(i, &r)| (i, row_len(r) as u32))
            .min_by_key(|&(_, k)| k)
            .expect("the row itself");
        Closure {
            rows,
            parent,
            h,
            best: best as u16,
            ends,
        }
    }
}

/// What [`Rowwise::solve`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowwiseResult {
    /// The exact minimum stone count.
    pub min_stones: u32,
    /// Operations from the start to a state with `min_stones` stones.
    pub ops: Vec<Op>,
    /// Events states expanded.
    pub expansions: u64,
    /// Memo entries at the end.
    pub memo_entries: usize,
    /// Estimated memo bytes (entries and row closures).
    pub memo_bytes: usize,
}

/// The row-wise search of one puzzle (see the module documentation).
pub struct Rowwise<'a> {
    m: &'a Martello,
    closures: Vec<Closure>,
    index: FxHashMap<u64, u32>,
    /// Exact minimum of states fully searched (keyed by their rows,
    /// [`Martello::key7`]'s packing), with the steps each took: the
    /// workspace's memo (`restarts::Memo`), so its size is its table's
    /// (65 bytes a slot, at most 3/4 full) and at its limit it forgets
    /// the cheaper of two entries instead of growing; every entry it
    /// holds stays exact.
    memo: Memo<[u64; 7]>,
    /// The most entries `memo` holds (then it replaces).
    max_entries: usize,
    expansions: u64,
    budget: u64,
    /// The deadline and cancel token that also stop the search.
    stop: Option<Budget>,
    /// The fewest stones of any searched state's rest (see
    /// [`Rowwise::best_seen`]).
    seen: u32,
    /// Whether only one stone is sought (see [`Rowwise::goal_only`]).
    goal: bool,
}

impl<'a> Rowwise<'a> {
    /// Memo entries [`Rowwise::solve`] makes room for at once (a first
    /// stage of [`crate::solver::STAGES`], 20,000 steps, makes about as
    /// many entries).
    pub const RESERVE: usize = 32_768;

    /// Steps between two looks at the deadline and cancel token (a step
    /// takes microseconds, a clock read tens of nanoseconds).
    pub const CHECK_EVERY: u64 = 256;

    /// States expanded so far.
    pub fn expansions(&self) -> u64 {
        self.expansions
    }

    /// A search of `m`.
    pub fn new(m: &'a Martello) -> Rowwise<'a> {
        Rowwise {
            m,
            closures: Vec::new(),
            index: FxHashMap::default(),
            memo: Memo::default(),
            max_entries: usize::MAX,
            expansions: 0,
            budget: 0,
            stop: None,
            seen: u32::MAX,
            goal: false,
        }
    }

    /// Seeks one stone only: a state whose floor ([`Martello::floor`]:
    /// classes and cuts) is above one stone is not expanded. The answer's
    /// `min_stones` is then exact when it is 1, and otherwise only says
    /// "more than one" (a count the search reached, not the minimum);
    /// the same for every memo value. Call before any search.
    pub fn goal_only(mut self) -> Self {
        assert!(self.memo.is_empty(), "goal_only before any search");
        self.goal = true;
        self
    }

    /// A search of `m` whose memo holds at most `max_entries` entries
    /// (then it replaces, see `restarts::Memo::replace_hashed`), its
    /// tables taken from `pool` (give them back with
    /// [`Rowwise::into_pool`]).
    pub fn limited(m: &'a Martello, max_entries: usize, pool: MemoPool<[u64; 7]>) -> Rowwise<'a> {
        let mut memo = Memo::with_pool(pool);
        memo.limit_entries(max_entries);
        Rowwise {
            memo,
            max_entries,
            ..Rowwise::new(m)
        }
    }

    /// The memo's tables, for the next search.
    pub fn into_pool(self) -> MemoPool<[u64; 7]> {
        self.memo.into_pool()
    }

    /// Whether it seeks one stone only ([`Rowwise::goal_only`]).
    pub fn is_goal_only(&self) -> bool {
        self.goal
    }

    /// Memo entries held.
    pub fn entries(&self) -> usize {
        self.memo.len()
    }

    /// Memo entries replaced at its limit so far.
    pub fn replaced(&self) -> u64 {
        self.memo.replaced()
    }

    /// Bytes of the memo's table and the rows' closures.
    pub fn bytes(&self) -> usize {
        let closures: usize = self
            .closures
            .iter()
            .map(|c| {
                let ends: usize = c.ends.iter().flatten().map(|e| 32 + e.1.len() * 2).sum();
                c.rows.len() * 14 + ends + std::mem::size_of::<Closure>()
            })
            .sum();
        self.memo.bytes() + closures + self.index.capacity() * 13
    }

    /// Also stop when `stop`'s deadline passes or its cancel token is set
    /// (looked at every [`Rowwise::CHECK_EVERY`] steps; its node limit is
    /// not read).
    pub fn stop_on(&mut self, stop: Option<Budget>) {
        self.stop = stop;
    }

    /// The fewest stones a state the search entered leaves when every
    /// row then makes its own best eats: a reachable count, so an upper
    /// bound on the minimum (`u32::MAX` before any search).
    pub fn best_seen(&self) -> u32 {
        self.seen
    }

    /// The exact minimum stone count reachable from `s` with a line, or
    /// `None` when the search has expanded `budget` states in all (its
    /// calls so far included). The memo keeps every state searched to
    /// the end, so a later call with a larger budget goes on where this
    /// one stopped.
    pub fn solve(&mut self, s: &State, budget: u64) -> Option<RowwiseResult> {
        self.budget = budget;
        // Room for a first stage's steps up front (once): with a pool's
        // tables it costs the zeroing of the tags, and spares the
        // table's growths (about a quarter of the memo's instructions in
        // a 6×6 study's row-wise stages).
        if self.memo.is_empty() {
            self.memo
                .reserve(Self::RESERVE.min(self.max_entries), [0; 7]);
        }
        let min = self.search(&s.rows)?;
        let ops = self.line(s.rows, min);
        Some(RowwiseResult {
            min_stones: min,
            ops,
            expansions: self.expansions,
            memo_entries: self.memo.len(),
            memo_bytes: self.bytes(),
        })
    }

    /// The index of `row`'s closure (made on first use).
    fn closure(&mut self, row: u64) -> usize {
        if let Some(&i) = self.index.get(&row) {
            return i as usize;
        }
        let i = self.closures.len();
        self.closures.push(Closure::of(row));
        self.index.insert(row, i as u32);
        i
    }

    /// Σ of the rows' own minima: what stopping the vertical eats leaves.
    fn rest(&mut self, rows: &[u64; MAX_N]) -> u32 {
        let mut total = 0;
        for r in 0..self.m.n {
            if rows[r] != 0 {
                let c = self.closure(rows[r]);
                total += self.closures[c].h;
            }
        }
        total
    }

    /// The closure indices of rows `r` and `t`: `None` when one is empty
    /// (no event of the pair).
    fn event_rows(&mut self, rows: &[u64; MAX_N], r: usize, t: usize) -> Option<(usize, usize)> {
        if rows[r] == 0 || rows[t] == 0 {
            return None;
        }
        Some((self.closure(rows[r]), self.closure(rows[t])))
    }

    /// Calls `f(child)` for every event of `rows` until it returns true.
    /// Children are built from closure states, so `f` may grow closures.
    fn for_each_event(
        &mut self,
        rows: &[u64; MAX_N],
        f: &mut dyn FnMut(&mut Self, [u64; MAX_N]) -> bool,
    ) -> bool {
        let n = self.m.n;
        for r in 0..n {
            for t in [r + 1, r + 2] {
                if t >= n {
                    continue;
                }
                let Some((cr, ct)) = self.event_rows(rows, r, t) else {
                    continue;
                };
                // The row a double jump passes over: its closure states
                // of at most one stone (empty stays empty).
                let cm = if t == r + 2 && rows[r + 1] != 0 {
                    let c = self.closure(rows[r + 1]);
                    if self.closures[c].h > 1 {
                        continue;
                    }
                    Some(c)
                } else {
                    None
                };
                let mids = cm.map_or(1, |c| self.closures[c].rows.len());
                for mi in 0..mids {
                    let mid = match cm {
                        Some(c) => {
                            let m = self.closures[c].rows[mi];
                            if row_len(m) > 1 {
                                continue;
                            }
                            m
                        }
                        None => rows.get(r + 1).copied().unwrap_or(0),
                    };
                    for col in 0..2 {
                        for ga in 0..self.closures[cr].ends[col].len() {
                            let xa = self.closures[cr].ends[col][ga].0;
                            for gb in 0..self.closures[ct].ends[col].len() {
                                let xb = self.closures[ct].ends[col][gb].0;
                                if !compatible(xa, xb) {
                                    continue;
                                }
                                let (na, nb) = (
                                    self.closures[cr].ends[col][ga].1.len(),
                                    self.closures[ct].ends[col][gb].1.len(),
                                );
                                for ka in 0..na {
                                    let ia = self.closures[cr].ends[col][ga].1[ka] as usize;
                                    let a = self.closures[cr].rows[ia];
                                    for kb in 0..nb {
                                        let ib = self.closures[ct].ends[col][gb].1[kb] as usize;
                                        let b = self.closures[ct].rows[ib];
                                        let (la, lb) = (row_len(a), row_len(b));
                                        // Two lone stones meet in column
                                        // n-1 as in column 0: one event.
                                        if col == 1 && la == 1 && lb == 1 {
                                            continue;
                                        }
                                        let (ja, jb) =
                                            if col == 0 { (0, 0) } else { (la - 1, lb - 1) };
                                        for dir in 0..2 {
                                            let mut c = *rows;
                                            if t == r + 2 {
                                                c[r + 1] = mid;
                                            }
                                            if dir == 0 {
                                                c[r] = remove_at(a, ja);
                                                c[t] = set_at(b, jb, xa);
                                            } else {
                                                c[t] = remove_at(b, jb);
                                                c[r] = set_at(a, ja, xb);
                                            }
                                            if f(self, c) {
                                                return true;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        false
    }

    /// The exact minimum from `rows`, or `None` when the budget ran out.
    fn search(&mut self, rows: &[u64; MAX_N]) -> Option<u32> {
        let key = key7_rows(rows);
        let h = Memo::hash(&key);
        if let Some(v) = self.memo.get_hashed(&key, h) {
            return Some(v);
        }
        let before = self.expansions;
        let mut best = self.rest(rows);
        self.seen = self.seen.min(best);
        // The classes of each part two empty rows cut off each keep a
        // stone: a line that meets this floor is best.
        let floor = self.m.floor(&State::from_rows(self.m.n, rows));
        // A goal search gives up where one stone is out of reach.
        if best > floor && !(self.goal && floor > 1) {
            if self.expansions >= self.budget {
                return None;
            }
            if self.expansions.is_multiple_of(Self::CHECK_EVERY)
                && self.stop.as_ref().is_some_and(Budget::stop)
            {
                return None;
            }
            self.expansions += 1;
            let mut out = false;
            self.for_each_event(rows, &mut |me, c| match me.search(&c) {
                None => {
                    out = true;
                    true
                }
                Some(v) => {
                    best = best.min(v);
                    best <= floor
                }
            });
            if out {
                return None;
            }
        }
        // What forgetting the entry would cost: its steps.
        let work = u32::try_from(self.expansions - before).unwrap_or(u32::MAX);
        if self.memo.len() < self.max_entries {
            self.memo.insert_hashed(key, h, best, work);
        } else {
            self.memo.replace_hashed(key, h, best, work);
        }
        Some(best)
    }

    /// A line from `rows` to `min` stones, from the memo (a child the
    /// memo forgot at its limit is searched again, to the end).
    fn line(&mut self, mut rows: [u64; MAX_N], min: u32) -> Vec<Op> {
        let (budget, stop) = (self.budget, self.stop.take());
        self.budget = u64::MAX;
        let mut ops = Vec::new();
        loop {
            if self.rest(&rows) == min {
                // The rows' own eats to their minima.
                for r in 0..self.m.n {
                    if rows[r] != 0 {
                        let c = self.closure(rows[r]);
                        let best = self.closures[c].best as usize;
                        self.path(c, best, &mut ops);
                    }
                }
                (self.budget, self.stop) = (budget, stop);
                return ops;
            }
            let mut next = None;
            // The children before the best one were searched, and are
            // in the memo unless it forgot them.
            self.for_each_event(&rows, &mut |me, c| {
                if me.search(&c) == Some(min) {
                    next = Some(c);
                    return true;
                }
                false
            });
            let c = next.expect("a searched state has a child of its minimum");
            self.event_ops(&rows, &c, &mut ops);
            rows = c;
        }
    }

    /// The operations of one event from `rows` to `c`: the touched rows'
    /// horizontal eats, then the vertical eat.
    fn event_ops(&mut self, rows: &[u64; MAX_N], c: &[u64; MAX_N], ops: &mut Vec<Op>) {
        // Find the event again: the same enumeration, matching `c`.
        let n = self.m.n;
        for r in 0..n {
            for t in [r + 1, r + 2] {
                if t >= n || rows[r] == 0 || rows[t] == 0 {
                    continue;
                }
                if (0..n)
                    .any(|q| q != r && q != t && !(t == r + 2 && q == r + 1) && rows[q] != c[q])
                {
                    continue;
                }
                let (cr, ct) = (self.closure(rows[r]), self.closure(rows[t]));
                let cm = (t == r + 2 && rows[r + 1] != 0).then(|| self.closure(rows[r + 1]));
                let mi = match cm {
                    Some(k) => match self.closures[k].rows.iter().position(|&m| m == c[r + 1]) {
                        Some(i) => Some((k, i)),
                        None => continue,
                    },
                    None => {
                        if t == r + 2 && c[r + 1] != rows[r + 1] {
                            continue;
                        }
                        None
                    }
                };
                for col in 0..2 {
                    for ia in 0..self.closures[cr].rows.len() {
                        let a = self.closures[cr].rows[ia];
                        for ib in 0..self.closures[ct].rows.len() {
                            let b = self.closures[ct].rows[ib];
                            let (ka, kb) = (row_len(a), row_len(b));
                            let (ja, jb) = if col == 0 { (0, 0) } else { (ka - 1, kb - 1) };
                            let (xa, xb) = (lane(a, ja), lane(b, jb));
                            if !compatible(xa, xb) {
                                continue;
                            }
                            let eats = [
                                (remove_at(a, ja), set_at(b, jb, xa), xa, xb),
                                (set_at(a, ja, xb), remove_at(b, jb), xb, xa),
                            ];
                            for (na, nb, eater, eaten) in eats {
                                if na != c[r] || nb != c[t] {
                                    continue;
                                }
                                self.path(cr, ia, ops);
                                self.path(ct, ib, ops);
                                if let Some((k, i)) = mi {
                                    self.path(k, i, ops);
                                }
                                ops.push(Op {
                                    eater: self.m.id(eater),
                                    eaten: self.m.id(eaten),
                                });
                                return;
                            }
                        }
                    }
                }
            }
        }
        unreachable!("the event was enumerated");
    }

    /// The horizontal eats from closure `c`'s row to its state `i`.
    fn path(&self, c: usize, mut i: usize, ops: &mut Vec<Op>) {
        let start = ops.len();
        let cl = &self.closures[c];
        while i != 0 {
            let (p, eater, eaten) = cl.parent[i];
            ops.push(Op {
                eater: self.m.id(u64::from(eater)),
                eaten: self.m.id(u64::from(eaten)),
            });
            i = usize::from(p);
        }
        ops[start..].reverse();
    }
}
