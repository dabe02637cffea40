//! Exact solving: the value (1 win, 0 draw, -1 loss for the player to
//! move) of a position and of each of its children.
//!
//! Negamax alpha-beta over the three values with a transposition table of
//! value bounds, asked as two null-window questions ("can the mover win?",
//! then "can the mover avoid losing?"), which prune far more than one
//! full-window search. Each node first tests whether the mover wins this
//! turn (a placement making five, or a placement and rotation that give
//! five to the mover only) by line tables, before generating children.
//! Children are ordered by a cheap line count, threats first.
//!
//! From [`mid::MAX_EMPTY`] empty cells down, the alpha-beta gets a first
//! share of the budget ([`AB_SHARE`]) and, when it has not finished by
//! then, the retrograde solver of [`crate::mid`] takes over if its cost,
//! known in advance, fits what is left: the alpha-beta is much faster on
//! most positions, the retrograde solver bounds the worst case.
//!
//! One idea, over 800 lines: the exact solver ([`Solver`]) and the
//! questions asked of it (a value, every child's, every move's, a best
//! move, the moves that keep the value), each answered by the same
//! alpha-beta with the same hand-over to the retrograde solver.

use crate::board::{can_win, has_five, rotate, CELLS, LINES};
use crate::game::{Move, Position, NONE};
use crate::mid;
use endgame_core::budget::Cancel;
use endgame_core::Value;
use std::time::{Duration, Instant};

/// What a solve may spend; `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Nodes (positions searched).
    pub nodes: Option<u64>,
    /// Wall-clock time.
    pub time: Option<Duration>,
}

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget {
        nodes: None,
        time: None,
    };

    /// The budget of an exact search of `pos`: `nodes` bounds only the
    /// alpha-beta, so a late position (one the retrograde solver takes,
    /// [`mid::reaches`]) gets no node limit: the retrograde solver's
    /// downstream positions are not search nodes and would never fit a
    /// limit sized for the alpha-beta; `time` bounds it.
    pub fn exact(pos: &Position, nodes: Option<u64>, time: Option<Duration>) -> Budget {
        Budget {
            nodes: if mid::reaches(pos) { None } else { nodes },
            time,
        }
    }
}

/// One table slot: `[mine, theirs]`, the mover's and the opponent's
/// stones, with the bounds in spare bits (9..13) of the mover's word,
/// biased so that a used slot never has zero there. A plain array so that
/// the table is allocated zeroed (pages touched only when used).
type Slot = [u64; 2];

const META_SHIFT: u32 = 9;
const META_MASK: u64 = 0xf << META_SHIFT;

/// The exact solver, with its transposition table (kept between calls so
/// a position and its children share work).
pub struct Solver {
    table: Vec<Slot>,
    mask: usize,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// Stops every search (alpha-beta and retrograde) when set.
    cancel: Cancel,
    /// Whether the retrograde solver may be used.
    retrograde: bool,
    /// Whether the last answer came from the retrograde solver.
    last_retrograde: bool,
    /// The last retrograde solution (its root, children and the positions
    /// one full move away are answered from it).
    mid: Option<mid::Solution>,
    /// The retrograde solver's memory limit (`None`: [`mid::memory_limit`]).
    memory: Option<u64>,
    /// Why the retrograde solver was not used for the last question, when
    /// it was in its range but refused (its memory over the limit).
    refusal: Option<mid::Refusal>,
    /// The factor on the retrograde solver's predicted time
    /// ([`Solver::set_time_scale`]).
    time_scale: f64,
}

/// The alpha-beta's first share: at most `1 / AB_SHARE` of the retrograde
/// solver's cost in nodes before the retrograde solver takes over (but
/// at least [`MIN_AB_SHARE`]): `cost / 8192` is 21 000 nodes at 18
/// stones, below the floor from 20 stones, a small fraction of the
/// retrograde solve's time. The share is kept small because the
/// positions the alpha-beta does not finish within it pay it on top of
/// the retrograde solve: the median of a set where more than half the
/// positions need the retrograde solver is the share plus the retrograde
/// time. And a larger share settles few more positions: at 18 stones
/// they split sharply between those the alpha-beta settles in a few
/// thousand nodes and those that need hundreds of thousands or more.
/// The measurements behind the value (node counts of the 18-stone sets,
/// the time of an alpha-beta node, the larger shares tried) are in the
/// README's benchmark section.
pub const AB_SHARE: u64 = 8192;

/// The alpha-beta's first share is at least this many nodes: from 22
/// stones `cost / AB_SHARE` is only a few thousand nodes, and most
/// positions there, which the alpha-beta settles in about 10 000 nodes,
/// would go to the slower retrograde solver (the figures: the README's
/// benchmark section).
pub const MIN_AB_SHARE: u64 = 20_000;

/// Default table size: 2^22 slots of 16 bytes (64 MiB).
pub const DEFAULT_TABLE_BITS: u32 = 22;

/// Table bits for a long solve before 18 stones: 2^25 slots of 16 bytes
/// (512 MiB, touched only as used): on hard positions 2^26 slots instead
/// of 2^22 saved 10 to 50 % of the nodes.
pub const EARLY_TABLE_BITS: u32 = 25;

impl Default for Solver {
    fn default() -> Self {
        Solver::new(DEFAULT_TABLE_BITS)
    }
}

impl Solver {
    /// A solver sized for one long solve of `pos`: the large table where
    /// the retrograde solver does not reach (before 15 stones, or its
    /// memory over the limit); where it does, the alpha-beta only gets a
    /// first share before the retrograde solver (about 0.62 GB at 18
    /// stones, 1.6 GiB at 17, 4.3 GiB at 16, 7.2 GiB at 15) takes over:
    /// the default 64 MiB.
    pub fn for_position(pos: &Position) -> Solver {
        if mid::reaches(pos) {
            Solver::new(DEFAULT_TABLE_BITS)
        } else {
            Solver::new(EARLY_TABLE_BITS)
        }
    }

    /// A solver with a table of `2^bits` slots (16 bytes each).
    pub fn new(bits: u32) -> Solver {
        let n = 1usize << bits;
        Solver {
            table: vec![[0u64; 2]; n],
            mask: n - 1,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
            cancel: Cancel::new(),
            retrograde: true,
            last_retrograde: false,
            mid: None,
            memory: None,
            refusal: None,
            time_scale: 1.0,
        }
    }

    /// Allows or forbids the retrograde solver (allowed by default);
    /// without it every answer comes from the alpha-beta.
    pub fn set_retrograde(&mut self, on: bool) {
        self.retrograde = on;
        if !on {
            self.mid = None;
        }
    }

    /// Makes `cancel` stop every later search of this solver (the
    /// alpha-beta checks it with its deadline, the retrograde solver
    /// between blocks), as a passed deadline does.
    pub fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }

    /// Whether the cancel token given by [`Solver::set_cancel`] was set.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Sets the memory a retrograde solve of this solver may take
    /// (`None`, the default: [`mid::memory_limit`]; never more than the
    /// system has available). A position whose solve needs more is left
    /// to the alpha-beta, and [`Solver::retrograde_refusal`] says why.
    pub fn set_memory_limit(&mut self, bytes: Option<u64>) {
        self.memory = bytes;
    }

    /// Multiplies the retrograde solver's predicted time
    /// ([`mid::predicted_time`], two idle cores) by `factor` (1 by
    /// default) when deciding whether it fits a time budget: more on a
    /// slower or busy machine; 0 lets it start whenever its memory fits,
    /// however short the time (it then stops at the deadline).
    pub fn set_time_scale(&mut self, factor: f64) {
        self.time_scale = factor.max(0.0);
    }

    /// Whether the retrograde solver, following `plan`, takes over `pos`
    /// with `left` of the time budget (`None`: no limit): its predicted
    /// time ([`mid::predicted_time`] times [`Solver::set_time_scale`])
    /// fits. The rule of the hand-over after the alpha-beta's first
    /// share, so a hint (2 s) takes it from 18 stones and the web's
    /// "think longer" (8 s) from 16.
    pub fn retrograde_fits(
        &self,
        pos: &Position,
        plan: &mid::Plan,
        left: Option<Duration>,
    ) -> bool {
        let n = pos.empty().count_ones();
        let Some(t) = mid::predicted_time(n, plan) else {
            return false;
        };
        left.is_none_or(|l| t.mul_f64(self.time_scale) <= l)
    }

    /// Why the retrograde solver did not answer the last question although
    /// the position was in its range: [`mid::Refusal::TooLarge`] (its
    /// memory over the limit) or [`mid::Refusal::OutOfTime`].
    pub fn retrograde_refusal(&self) -> Option<mid::Refusal> {
        self.refusal
    }

    /// The retrograde solution the solver keeps, if any.
    pub fn retrograde_solution(&self) -> Option<&mid::Solution> {
        self.mid.as_ref()
    }

    /// Whether the last answer came from the retrograde solver (else from
    /// the alpha-beta).
    pub fn last_was_retrograde(&self) -> bool {
        self.last_retrograde
    }

    /// A value answered by the kept retrograde solution.
    fn kept(&mut self, pos: &Position) -> Option<Value> {
        let v = self.mid.as_ref().and_then(|s| s.lookup(pos));
        self.last_retrograde = v.is_some();
        v
    }

    /// The policy shared by every question: the kept retrograde solution
    /// if it is about `pos`; else the alpha-beta (`ab`, which says whether
    /// it finished) within its first share, then the retrograde solver if
    /// it fits what is left of the budget, else the alpha-beta with the
    /// rest. Nodes of a retrograde solve are its positions.
    fn answer<T>(
        &mut self,
        pos: &Position,
        budget: Budget,
        ab: impl FnMut(&mut Solver, Budget) -> (T, bool),
        from_mid: impl Fn(&mid::Solution) -> T,
    ) -> T {
        self.last_retrograde = false;
        if let Some(sol) = self.mid.as_ref().filter(|s| s.root() == pos) {
            self.last_retrograde = true;
            return from_mid(sol);
        }
        self.answer_by(pos, budget, ab, |s, p, deadline| {
            let sol = mid::solve_limited(p, deadline, Some(&s.cancel), s.memory)?;
            let out = from_mid(&sol);
            s.mid = Some(sol);
            Ok(out)
        })
    }

    /// [`Solver::answer`] after the kept solution, with the retrograde
    /// step given as `by_mid` (which may keep a solution).
    fn answer_by<T>(
        &mut self,
        pos: &Position,
        budget: Budget,
        mut ab: impl FnMut(&mut Solver, Budget) -> (T, bool),
        by_mid: impl FnOnce(&mut Solver, &Position, Option<Instant>) -> Result<T, mid::Refusal>,
    ) -> T {
        self.last_retrograde = false;
        self.refusal = None;
        let cost = if self.retrograde && pos.outcome().is_none() {
            mid::cost(pos)
        } else {
            None
        };
        // Its memory checked first: refused, the alpha-beta has it all.
        let plan = match cost.map(|_| mid::plan(pos, self.memory)) {
            Some(Ok(plan)) => Some(plan),
            Some(Err(r)) => {
                self.refusal = Some(r);
                None
            }
            None => None,
        };
        let (Some(cost), Some(plan)) = (cost, plan) else {
            return ab(self, budget).0;
        };
        let start = Instant::now();
        let nodes0 = self.nodes;
        let share = (cost / AB_SHARE).max(MIN_AB_SHARE);
        let first = Budget {
            nodes: Some(budget.nodes.map_or(share, |n| n.min(share))),
            time: budget.time,
        };
        let (found, done) = ab(self, first);
        if done {
            return found;
        }
        let used = self.nodes - nodes0;
        let elapsed = start.elapsed();
        let nodes_fit = budget.nodes.is_none_or(|n| n.saturating_sub(used) >= cost);
        let left = budget.time.map(|t| t.saturating_sub(elapsed));
        let time_fits = self.retrograde_fits(pos, &plan, left);
        if nodes_fit && time_fits && !self.cancel.is_cancelled() {
            return match by_mid(self, pos, budget.time.map(|t| start + t)) {
                Ok(out) => {
                    self.nodes += cost;
                    self.last_retrograde = true;
                    out
                }
                // Out of time: what the alpha-beta found.
                Err(r) => {
                    self.refusal = Some(r);
                    found
                }
            };
        }
        let rest = Budget {
            nodes: budget.nodes.map(|n| n.saturating_sub(used)),
            time: budget.time.map(|t| t.saturating_sub(elapsed)),
        };
        ab(self, rest).0
    }

    /// Bytes held by the table.
    pub fn table_bytes(&self) -> usize {
        self.table.len() * std::mem::size_of::<Slot>()
    }

    /// Nodes searched since the solver was made.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn arm(&mut self, budget: Budget) {
        self.node_limit = budget
            .nodes
            .map_or(u64::MAX, |n| self.nodes.saturating_add(n));
        self.deadline = budget.time.map(|t| Instant::now() + t);
        self.aborted = false;
    }

    /// The value of `pos` for the player to move, or `Unknown` if the
    /// budget ran out first.
    pub fn value(&mut self, pos: &Position, budget: Budget) -> Value {
        if let Some(v) = self.kept(pos) {
            return v;
        }
        let ab = |s: &mut Solver, b| {
            s.arm(b);
            let v = s.value_in(pos);
            if s.aborted {
                (Value::Unknown, false)
            } else {
                (to_value(v), true)
            }
        };
        if mid::plan(pos, self.memory).is_ok_and(|p| !p.one_sweep) {
            // The memory allows one question at a time: the value alone,
            // nothing kept.
            self.answer_by(pos, budget, ab, |s, p, deadline| {
                mid::value_limited(p, deadline, Some(&s.cancel), s.memory)
            })
        } else {
            self.answer(pos, budget, ab, |sol| sol.value())
        }
    }

    /// The value of `pos` and of each child: for a position due to place,
    /// the children are the placements (positions with `m`, same player
    /// to move); for a position due to rotate, the eight rotations (the
    /// other player to move). Each child's value is for ITS player to
    /// move. Values not found within the budget are `Unknown`.
    pub fn value_and_children(
        &mut self,
        pos: &Position,
        budget: Budget,
    ) -> (Value, Vec<(Position, Value)>) {
        self.answer(
            pos,
            budget,
            |s, b| {
                let r = s.ab_value_and_children(pos, b);
                let done = r.0 != Value::Unknown && r.1.iter().all(|c| c.1 != Value::Unknown);
                (r, done)
            },
            |sol| (sol.value(), sol.children()),
        )
    }

    /// [`Solver::value_and_children`] by the alpha-beta alone.
    fn ab_value_and_children(
        &mut self,
        pos: &Position,
        budget: Budget,
    ) -> (Value, Vec<(Position, Value)>) {
        self.arm(budget);
        let mut children = Vec::new();
        if pos.outcome().is_none() {
            if pos.must_rotate() {
                for r in 0..8 {
                    children.push(pos.rotated(r));
                }
            } else {
                for cell in crate::board::bits_of(pos.empty()) {
                    children.push(pos.place(cell));
                }
            }
        }
        // The value first: it needs only one good child, and the
        // children then reuse its table entries.
        let v = self.value_in(pos);
        let value = if self.aborted {
            Value::Unknown
        } else {
            to_value(v)
        };
        // The rotations in the order the value search tried them, so the
        // one that decided it is answered first, from the table, before
        // a tight budget runs out on the others.
        let mut order: Vec<usize> = (0..children.len()).collect();
        if pos.must_rotate() {
            order.sort_by_key(|&i| {
                let c = &children[i];
                std::cmp::Reverse(order_score(c.theirs(), c.mine()))
            });
        }
        let mut values = vec![Value::Unknown; children.len()];
        for i in order {
            if self.aborted {
                break;
            }
            let v = self.value_in(&children[i]);
            if !self.aborted {
                values[i] = to_value(v);
            }
        }
        (value, children.into_iter().zip(values).collect())
    }

    /// Exact value as -1/0/1; meaningless when `self.aborted`.
    fn value_in(&mut self, pos: &Position) -> i8 {
        if let Some(v) = pos.outcome() {
            return from_value(v);
        }
        if pos.must_rotate() {
            // Two questions over the rotations, each a null window on the
            // children: is one lost for the opponent, else is one at least
            // drawn for us.
            // Rotations that look best for us (by the line count) first.
            let mut rots: Vec<(i32, Position)> = (0..8)
                .map(|r| {
                    let c = pos.rotated(r);
                    (order_score(c.theirs(), c.mine()), c)
                })
                .collect();
            rots.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
            for want in [1i8, 0] {
                for &(_, c) in &rots {
                    if self.at_most(&c, -want) {
                        return want;
                    }
                    if self.aborted {
                        return 0;
                    }
                }
            }
            return -1;
        }
        let (m, t) = (pos.mine(), pos.theirs());
        if self.search(m, t, 0, 1) >= 1 {
            1
        } else if self.search(m, t, -1, 0) >= 0 {
            0
        } else {
            -1
        }
    }

    /// Whether the value of `c` (a position due to place, or finished) is
    /// at most `bound`, by one null-window search.
    fn at_most(&mut self, c: &Position, bound: i8) -> bool {
        match c.outcome() {
            Some(v) => from_value(v) <= bound,
            None => self.search(c.mine(), c.theirs(), bound, bound + 1) <= bound,
        }
    }

    fn probe(&self, mine: u64, theirs: u64) -> Option<(i8, i8)> {
        let s = self.table[index(mine, theirs) & self.mask];
        let [s_mine, s_theirs] = s;
        if s_theirs == theirs && s_mine & !META_MASK == mine && s_mine & META_MASK != 0 {
            let meta = ((s_mine & META_MASK) >> META_SHIFT) as i8 - 1;
            Some((meta % 3 - 1, meta / 3 - 1))
        } else {
            None
        }
    }

    fn store(&mut self, mine: u64, theirs: u64, lo: i8, hi: i8) {
        // Biased by one so that a used slot never has zero bounds bits.
        let meta = (1 + (lo + 1) + 3 * (hi + 1)) as u64;
        let i = index(mine, theirs) & self.mask;
        self.table[i] = [mine | (meta << META_SHIFT), theirs];
    }

    /// Negamax over {-1, 0, 1} on a normal (placement due), non-terminal
    /// position given as the mover's and the opponent's stones. Fail-soft.
    fn search(&mut self, mine: u64, theirs: u64, mut alpha: i8, mut beta: i8) -> i8 {
        self.nodes += 1;
        // The node limit exactly (a compare), so that small per-move
        // limits mean what they say; the clock and the cancel token every
        // 1024 nodes.
        if self.nodes >= self.node_limit
            || (self.nodes & 1023 == 0
                && (self.cancel.is_cancelled()
                    || self.deadline.is_some_and(|d| Instant::now() >= d)))
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if can_win(mine, theirs) {
            return 1;
        }
        let empty = CELLS & !(mine | theirs);
        // The table is keyed by the position itself: keying by the least
        // image under the 8 symmetries was measured to save almost no nodes
        // in the middle game (symmetric transpositions are rare there)
        // while halving the node rate.
        let (km, kt) = (mine, theirs);
        if let Some((lo, hi)) = self.probe(km, kt) {
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let alpha_in = alpha;
        let depth = empty.count_ones() as usize;
        let mut kids: Vec<(i32, u64, u64)> = Vec::with_capacity(288);
        let mut best: i8 = -2;
        // With one empty cell left the board fills this turn, and the
        // mover cannot make five (just tested): the rotation decides.
        let last = depth == 1;
        'outer: for cell in crate::board::bits_of(empty) {
            let placed = mine | 1u64 << cell;
            // Rotating a quadrant that a quarter turn leaves unchanged gives
            // the unrotated board: search that child once per placement.
            let mut null_done = false;
            for q in 0..4u8 {
                let cw = 2 * q;
                let m1 = rotate(placed, cw);
                let t1 = rotate(theirs, cw);
                let invariant = m1 == placed && t1 == theirs;
                if invariant {
                    if null_done {
                        continue;
                    }
                    null_done = true;
                }
                let m2 = rotate(placed, cw + 1);
                let t2 = rotate(theirs, cw + 1);
                let both = !(invariant || (m2 == m1 && t2 == t1));
                for (mm, tt) in [(m1, t1), (m2, t2)].into_iter().take(1 + both as usize) {
                    // The mover cannot make five (can_win is false), so the
                    // child is terminal only by the opponent's five or a
                    // full board.
                    let v = if has_five(tt) {
                        if has_five(mm) {
                            0
                        } else {
                            -1
                        }
                    } else if last {
                        0
                    } else {
                        kids.push((order_score(mm, tt), mm, tt));
                        continue;
                    };
                    if v > best {
                        best = v;
                        if best >= beta {
                            break 'outer;
                        }
                    }
                }
            }
        }
        if best < beta {
            if best > alpha {
                alpha = best;
            }
            kids.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
            for &(_, mm, tt) in &kids {
                let v = -self.search(tt, mm, -beta, -alpha);
                if self.aborted {
                    return 0;
                }
                if v > best {
                    best = v;
                    if best > alpha {
                        alpha = best;
                    }
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let (mut lo, mut hi) = if best <= alpha_in {
            (-1, best)
        } else if best >= beta {
            (best, 1)
        } else {
            (best, best)
        };
        if let Some((plo, phi)) = self.probe(km, kt) {
            lo = lo.max(plo);
            hi = hi.min(phi);
        }
        if lo <= hi {
            self.store(km, kt, lo, hi);
        }
        best
    }
}

/// Move ordering: lines still open for the mover of the child (the
/// opponent) count against, lines open for us count for.
#[inline]
fn order_score(mine: u64, theirs: u64) -> i32 {
    const W: [i32; 6] = [0, 2, 8, 32, 128, 512];
    let mut s = 0;
    for &l in &LINES {
        let (a, b) = ((mine & l).count_ones(), (theirs & l).count_ones());
        if b == 0 {
            s += W[a as usize];
        }
        if a == 0 {
            // The opponent's lines count half: measured on hard 18-stone
            // positions, weighting them double (their move comes next)
            // cost up to 50 times more nodes, half weight the fewest.
            s -= W[b as usize] / 2;
        }
    }
    s
}

#[inline]
fn index(mine: u64, theirs: u64) -> usize {
    let h = (mine ^ theirs.rotate_left(23)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) as usize >> 8
}

fn to_value(v: i8) -> Value {
    match v {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

fn from_value(v: Value) -> i8 {
    match v {
        Value::Win => 1,
        Value::Loss => -1,
        _ => 0,
    }
}

/// The value of every full move of `pos` (the position each leads to,
/// valued for the player who made the move), best first; `Unknown` where
/// the budget ran out.
pub fn move_values(
    solver: &mut Solver,
    pos: &Position,
    budget: Budget,
) -> Vec<(crate::game::Move, Value)> {
    let mut out = solver.answer(
        pos,
        budget,
        |s, b| {
            let r = ab_move_values(s, pos, b);
            let done = r.iter().all(|m| m.1 != Value::Unknown);
            (r, done)
        },
        |sol| sol.move_values(),
    );
    let rank = |v: Value| match v {
        Value::Win => 0,
        Value::Draw => 1,
        Value::Unknown => 2,
        Value::Loss => 3,
    };
    out.sort_by_key(|&(m, v)| (rank(v), m.rot == NONE, m));
    out
}

/// The value of each of `moves` (full moves of `pos`, or rotations when it
/// must rotate) for the player making it, in the order given; `Unknown`
/// where the budget ran out. Unlike [`move_values`], no move can eat the
/// whole budget before the others are looked at: the alpha-beta asks every
/// undecided move in rounds of growing node limits (the table keeps what
/// each round learnt), so a move that a few nodes settle is settled
/// whatever the hard ones cost. From [`mid::MAX_EMPTY`] empty cells down,
/// the rounds get the alpha-beta's first share, then the retrograde solver
/// answers every move at once if it fits the time left (its positions
/// count as nodes, as for [`Solver::value`]: pass `nodes: None` to let it
/// run whatever its cost), else the rounds go on.
pub fn move_values_shared(
    solver: &mut Solver,
    pos: &Position,
    moves: &[Move],
    budget: Budget,
) -> Vec<Value> {
    use endgame_core::Rules;
    let game = crate::game::Pentago;
    let children: Vec<Position> = moves.iter().map(|&m| game.play_unchecked(pos, m)).collect();
    solver.answer(
        pos,
        budget,
        |s, b| {
            let v = ab_rounds(s, &children, b);
            let done = v.iter().all(|&v| v != Value::Unknown);
            (v, done)
        },
        |sol| {
            children
                .iter()
                .map(|c| {
                    c.outcome()
                        .or_else(|| sol.lookup(c))
                        .unwrap_or(Value::Unknown)
                        .flip()
                })
                .collect()
        },
    )
}

/// Node limit of each child in the first round of [`ab_rounds`]; each
/// round gives four times more.
pub const FIRST_ROUND_NODES: u64 = 64;

/// The values, for the player who moved into them, of `children` by the
/// alpha-beta in rounds: every undecided child gets
/// [`FIRST_ROUND_NODES`], then four times more, and so on, until all are
/// decided or the budget (nodes over all rounds, time, cancel) is spent.
fn ab_rounds(solver: &mut Solver, children: &[Position], budget: Budget) -> Vec<Value> {
    let start = Instant::now();
    let nodes0 = solver.nodes;
    let mut values: Vec<Value> = children
        .iter()
        .map(|c| c.outcome().map_or(Value::Unknown, Value::flip))
        .collect();
    let mut per = FIRST_ROUND_NODES;
    'rounds: loop {
        let open: Vec<usize> = (0..children.len())
            .filter(|&i| values[i] == Value::Unknown)
            .collect();
        if open.is_empty() {
            break;
        }
        for &i in &open {
            let used = solver.nodes - nodes0;
            let left = budget.nodes.map(|n| n.saturating_sub(used));
            let time_left = budget.time.map(|t| t.saturating_sub(start.elapsed()));
            if left == Some(0) || time_left.is_some_and(|t| t.is_zero()) || solver.cancelled() {
                break 'rounds;
            }
            solver.arm(Budget {
                nodes: Some(left.map_or(per, |l| l.min(per))),
                time: time_left,
            });
            let v = solver.value_in(&children[i]);
            if !solver.aborted {
                values[i] = to_value(v).flip();
            }
        }
        per = per.saturating_mul(4);
    }
    values
}

/// [`move_values`] by the alpha-beta alone, unsorted.
fn ab_move_values(solver: &mut Solver, pos: &Position, budget: Budget) -> Vec<(Move, Value)> {
    use endgame_core::Rules;
    let game = crate::game::Pentago;
    solver.arm(budget);
    let mut out = Vec::new();
    for mv in game.moves(pos) {
        let child = game.play_unchecked(pos, mv);
        let v = if solver.aborted {
            Value::Unknown
        } else {
            let v = -solver.value_in(&child);
            if solver.aborted {
                Value::Unknown
            } else {
                to_value(v)
            }
        };
        out.push((mv, v));
    }
    out
}

/// A move that keeps the exact value of `pos` (a winning move when it is
/// won, a drawing one when drawn, any move when lost), with that value,
/// or `None` when the budget runs out first. Moves are tried in the order
/// of a cheap line count so the first keeper is usually a natural move.
pub fn best_move(
    solver: &mut Solver,
    pos: &Position,
    budget: Budget,
) -> Option<(crate::game::Move, Value)> {
    keepers(solver, pos, budget, false).map(|(v, moves)| (moves[0], v))
}

/// The exact value of `pos` and the moves that keep it: the first winning
/// move when it is won, every drawing move when it is drawn (so a player
/// can pick the one that gives a fallible opponent the most chances to go
/// wrong), every move when it is lost; `None` when the budget runs out
/// before the value is known. When the budget runs out while the drawing
/// moves are being checked, the ones proven so far are returned (at least
/// one).
pub fn keeping_moves(
    solver: &mut Solver,
    pos: &Position,
    budget: Budget,
) -> Option<(Value, Vec<crate::game::Move>)> {
    keepers(solver, pos, budget, true)
}

/// The value of `pos` and the moves keeping it, in natural order: the
/// first winning move, the first drawing move or every one (`all_draws`),
/// every move when lost. [`best_move`] and [`keeping_moves`] in one.
fn keepers(
    solver: &mut Solver,
    pos: &Position,
    budget: Budget,
    all_draws: bool,
) -> Option<(Value, Vec<Move>)> {
    solver.answer(
        pos,
        budget,
        |s, b| ab_keepers(s, pos, b, all_draws),
        |sol| {
            // Every move of a lost position is lost: all of them keep it.
            let v = sol.value();
            let values: std::collections::HashMap<Move, Value> =
                sol.move_values().into_iter().collect();
            let keep: Vec<Move> = natural_order(pos)
                .into_iter()
                .map(|(m, _)| m)
                .filter(|m| values.get(m) == Some(&v))
                .take(keepers_wanted(v, all_draws))
                .collect();
            (!keep.is_empty()).then_some((v, keep))
        },
    )
}

/// How many keepers [`keepers`] returns for a position of value `v`.
fn keepers_wanted(v: Value, all_draws: bool) -> usize {
    match v {
        Value::Draw if all_draws => usize::MAX,
        Value::Loss => usize::MAX,
        _ => 1,
    }
}

/// [`keepers`] by the alpha-beta alone, and whether it finished. When the
/// budget runs out while the drawing moves are being checked, the ones
/// proven so far are kept (if any).
fn ab_keepers(
    solver: &mut Solver,
    pos: &Position,
    budget: Budget,
    all_draws: bool,
) -> (Option<(Value, Vec<Move>)>, bool) {
    solver.arm(budget);
    let v = solver.value_in(pos);
    if solver.aborted {
        return (None, false);
    }
    let value = to_value(v);
    let moves = natural_order(pos);
    if value == Value::Loss {
        // Every move keeps a loss: no question to ask.
        let all = moves.into_iter().map(|(m, _)| m).collect();
        return (Some((value, all)), true);
    }
    let wanted = keepers_wanted(value, all_draws);
    let mut keep = Vec::new();
    for (m, c) in moves {
        // The child keeps the value when the opponent's value there is at
        // most -v: one null-window question per child.
        let keeps = solver.at_most(&c, -v);
        if solver.aborted {
            return ((!keep.is_empty()).then_some((value, keep)), false);
        }
        if keeps {
            keep.push(m);
            if keep.len() == wanted {
                break;
            }
        }
    }
    ((!keep.is_empty()).then_some((value, keep)), true)
}

/// The moves of `pos` with the positions they lead to, placements that
/// win at once first, then by a cheap line count, so that the first move
/// keeping the value is usually a natural one.
fn natural_order(pos: &Position) -> Vec<(Move, Position)> {
    use endgame_core::Rules;
    let game = crate::game::Pentago;
    let mut moves: Vec<(i32, Move, Position)> = game
        .moves(pos)
        .into_iter()
        .map(|m| {
            let c = game.play_unchecked(pos, m);
            (crate::eval::lines_score(c.mine(), c.theirs()), m, c)
        })
        .collect();
    moves.sort_by_key(|&(k, m, _)| (m.rot != NONE, k));
    moves.into_iter().map(|(_, m, c)| (m, c)).collect()
}
