//! A peg-solitaire problem on a board: start, goal, symmetry, pruning —
//! and its bitboard implementation of the core traits.
//!
//! Bit layout. Holes sit at `row * stride + column` of a grid in which
//! every jump direction is a constant shift (square boards: the drawing
//! grid; triangular boards: axial coordinates), so the moves of a whole
//! direction are found with a few shifts and masks.

use crate::bits::Bits;
use crate::board::{Board, Lattice};
use crate::class::PositionClasses;
use crate::error::PegError;
use crate::pagoda::Pagoda;
use endgame_core::{Notation, Puzzle, Reversible, Rules, Symmetric};
use std::sync::Arc;

/// What counts as solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Pegs exactly on these holes (one hole: finish in that hole).
    Pattern(Vec<usize>),
    /// One peg left, anywhere.
    AnyOne,
}

/// How a problem prunes positions that cannot reach the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pruning {
    /// Use the position-class (parity) test.
    pub classes: bool,
    /// Use pagoda functions.
    pub pagodas: bool,
}

impl Default for Pruning {
    fn default() -> Self {
        Pruning {
            classes: true,
            pagodas: true,
        }
    }
}

/// One jump direction: a constant bit shift and the holes it can start on.
#[derive(Clone, Debug)]
struct Dir<B> {
    /// Signed shift from `from` to `over` (and `over` to `to`).
    shift: i32,
    /// Bits of holes from which this direction's jump lands on the board.
    valid: B,
    /// Board jump index for each starting bit.
    ids: Vec<u16>,
}

/// A peg-solitaire problem with `B`-bit bitboards.
#[derive(Clone)]
pub struct Problem<B: Bits> {
    board: Arc<Board>,
    hole_bit: Vec<usize>,
    bit_hole: Vec<Option<usize>>,
    nbytes: usize,
    start: B,
    goal: Goal,
    goal_mask: B,
    dirs: Vec<Dir<B>>,
    jump_mask: Vec<B>,
    /// Board symmetries (indices) that fix the start and the goal set.
    group: Vec<usize>,
    /// sym_table[g * nbytes + k][byte]: image of byte k under group[g].
    sym_table: Vec<[B; 256]>,
    /// jump_images[j * |group| + g]: image of jump j's mask under group[g].
    jump_images: Vec<B>,
    classes: Option<(PositionClasses, Vec<u64>)>,
    /// The class invariants as bitboard masks.
    class_masks: Vec<B>,
    pagodas: Vec<(Pagoda, i64)>,
    /// pagoda_tables[p * nbytes + k][byte]: weight of byte k's pegs.
    pagoda_tables: Vec<[i32; 256]>,
    /// Class (orbit under the group) of each hole.
    hole_class: Vec<usize>,
}

impl<B: Bits> std::fmt::Debug for Problem<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Problem")
            .field("board", &self.board.name())
            .field("start", &self.start)
            .field("goal", &self.goal)
            .finish()
    }
}

/// Grid coordinates (column, row) of each hole and the grid's stride.
fn grid(board: &Board) -> (Vec<(usize, usize)>, usize) {
    let coords: Vec<(i32, i32)> = (0..board.holes()).map(|i| board.coords(i)).collect();
    let axial: Vec<(i32, i32)> = match board.lattice() {
        Lattice::Square => coords,
        Lattice::Hex => coords
            .iter()
            .map(|&(x, y)| ((x - y).div_euclid(2), y))
            .collect(),
    };
    let minc = axial.iter().map(|c| c.0).min().unwrap_or(0);
    let minr = axial.iter().map(|c| c.1).min().unwrap_or(0);
    let cols = axial.iter().map(|c| c.0 - minc).max().unwrap_or(0) as usize + 1;
    let g = axial
        .iter()
        .map(|&(c, r)| ((c - minc) as usize, (r - minr) as usize))
        .collect();
    (g, cols)
}

/// The number of grid bits a board needs (decides `u64` or `u128`).
pub fn bits_needed(board: &Board) -> usize {
    let (g, stride) = grid(board);
    g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1
}

impl<B: Bits> Problem<B> {
    /// A problem: the start has pegs on `start` holes; `goal` as given.
    pub fn new(
        board: Arc<Board>,
        start: &[bool],
        goal: Goal,
        pruning: Pruning,
    ) -> Result<Self, PegError> {
        let (g, stride) = grid(&board);
        let nbits = g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1;
        if nbits > B::CAPACITY {
            return Err(PegError::BadArt(format!(
                "board needs {nbits} bits, more than {} available",
                B::CAPACITY
            )));
        }
        let hole_bit: Vec<usize> = g.iter().map(|&(c, r)| r * stride + c).collect();
        let mut bit_hole = vec![None; nbits];
        for (h, &b) in hole_bit.iter().enumerate() {
            bit_hole[b] = Some(h);
        }
        let mask_of = |holes: &mut dyn Iterator<Item = usize>| {
            holes.fold(B::ZERO, |m, h| m | B::bit(hole_bit[h]))
        };
        let start_mask = mask_of(&mut (0..board.holes()).filter(|&h| start[h]));
        let goal_mask = match &goal {
            Goal::Pattern(holes) => {
                if holes.is_empty() {
                    return Err(PegError::BadPosition("goal has no pegs".into()));
                }
                mask_of(&mut holes.iter().copied())
            }
            Goal::AnyOne => B::ZERO,
        };
        // Directions: group the board's jumps by their bit shift.
        let mut dirs: Vec<Dir<B>> = Vec::new();
        let mut jump_mask = Vec::new();
        for (j, jp) in board.jumps().iter().enumerate() {
            let (f, o, t) = (hole_bit[jp.from], hole_bit[jp.over], hole_bit[jp.to]);
            let shift = o as i32 - f as i32;
            debug_assert_eq!(t as i32 - o as i32, shift, "jumps are straight in the grid");
            jump_mask.push(B::bit(f) | B::bit(o) | B::bit(t));
            let d = match dirs.iter().position(|d| d.shift == shift) {
                Some(d) => d,
                None => {
                    dirs.push(Dir {
                        shift,
                        valid: B::ZERO,
                        ids: vec![u16::MAX; nbits],
                    });
                    dirs.len() - 1
                }
            };
            dirs[d].valid |= B::bit(f);
            dirs[d].ids[f] = j as u16;
        }
        // The symmetry group: board symmetries fixing start and goal set.
        fn maps_onto(
            perm: &[usize],
            holes: &mut dyn Iterator<Item = usize>,
            set: &dyn Fn(usize) -> bool,
        ) -> bool {
            for h in holes {
                if !set(perm[h]) {
                    return false;
                }
            }
            true
        }
        let group: Vec<usize> = board
            .symmetries()
            .iter()
            .enumerate()
            .filter(|(_, perm)| {
                let s = |h: usize| start[h];
                let start_ok = maps_onto(perm, &mut (0..board.holes()).filter(|&h| start[h]), &s);
                let goal_ok = match &goal {
                    Goal::Pattern(holes) => {
                        maps_onto(perm, &mut holes.iter().copied(), &|h| holes.contains(&h))
                    }
                    Goal::AnyOne => true,
                };
                start_ok && goal_ok
            })
            .map(|(i, _)| i)
            .collect();
        let nbytes = nbits.div_ceil(8);
        let mut sym_table = Vec::with_capacity(group.len() * nbytes);
        for &gi in &group {
            let perm = &board.symmetries()[gi];
            for k in 0..nbytes {
                let mut t = [B::ZERO; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = bit_hole.get(8 * k + bit) {
                                *slot |= B::bit(hole_bit[perm[*h]]);
                            }
                        }
                    }
                }
                sym_table.push(t);
            }
        }
        let mut p = Problem {
            board,
            hole_bit,
            bit_hole,
            nbytes,
            start: start_mask,
            goal,
            goal_mask,
            dirs,
            jump_mask,
            group,
            sym_table,
            jump_images: Vec::new(),
            classes: None,
            class_masks: Vec::new(),
            pagodas: Vec::new(),
            pagoda_tables: Vec::new(),
            hole_class: Vec::new(),
        };
        p.hole_class = p.hole_classes();
        p.jump_images = p
            .jump_mask
            .iter()
            .flat_map(|&m| (0..p.group.len()).map(move |g| (m, g)))
            .map(|(m, g)| p.transform(g, m))
            .collect();
        if pruning.classes {
            let classes = PositionClasses::new(&p.board);
            let goal_classes = p.goal_classes(&classes);
            p.class_masks = classes
                .invariants
                .iter()
                .map(|inv| p.position_of(inv.iter().copied()))
                .collect();
            p.classes = Some((classes, goal_classes));
        }
        if pruning.pagodas {
            if let Goal::Pattern(holes) = &p.goal {
                if holes.len() == 1 {
                    p.pagodas = crate::pagoda::for_goal(&p.board, holes[0])
                        .into_iter()
                        .map(|pg| {
                            let need = pg.weights[holes[0]];
                            (pg, need)
                        })
                        .collect();
                }
            }
        }
        for (pg, _) in &p.pagodas {
            for k in 0..p.nbytes {
                let mut t = [0i32; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = p.bit_hole.get(8 * k + bit) {
                                *slot += pg.weights[*h] as i32;
                            }
                        }
                    }
                }
                p.pagoda_tables.push(t);
            }
        }
        Ok(p)
    }

    fn goal_classes(&self, classes: &PositionClasses) -> Vec<u64> {
        let mut v: Vec<u64> = match &self.goal {
            Goal::Pattern(holes) => vec![classes.class_of(&mut holes.iter().copied())],
            Goal::AnyOne => (0..self.board.holes())
                .map(|h| classes.class_of(&mut std::iter::once(h)))
                .collect(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The board.
    pub fn board(&self) -> &Arc<Board> {
        &self.board
    }
    /// The goal.
    pub fn goal(&self) -> &Goal {
        &self.goal
    }
    /// The symmetry group in use (indices into the board's symmetries).
    pub fn group(&self) -> &[usize] {
        &self.group
    }
    /// The pagoda functions in use, with the value the goal needs.
    pub fn pagodas(&self) -> &[(Pagoda, i64)] {
        &self.pagodas
    }

    /// The position with pegs on `holes`.
    pub fn position_of(&self, holes: impl IntoIterator<Item = usize>) -> B {
        holes
            .into_iter()
            .fold(B::ZERO, |m, h| m | B::bit(self.hole_bit[h]))
    }

    /// The holes with a peg in `pos`.
    pub fn pegs(&self, pos: B) -> Vec<usize> {
        let mut v: Vec<usize> = pos.ones().filter_map(|b| self.bit_hole[b]).collect();
        v.sort_unstable();
        v
    }

    /// Whether hole `h` has a peg in `pos`.
    pub fn has_peg(&self, pos: B, h: usize) -> bool {
        pos.has(self.hole_bit[h])
    }

    /// Image of `pos` under group element `g`.
    #[inline]
    fn transform(&self, g: usize, pos: B) -> B {
        let base = g * self.nbytes;
        let mut out = B::ZERO;
        for k in 0..self.nbytes {
            out |= self.sym_table[base + k][pos.byte(k)];
        }
        out
    }

    /// Calls `f(jump index)` for each jump whose mask test passes.
    #[inline]
    fn each_jump(&self, pos: B, forward: bool, mut f: impl FnMut(usize)) {
        // Forward: peg on from and over, to empty. Backward (parents of
        // pos): from and over empty, peg on to.
        let (a, b) = if forward { (pos, !pos) } else { (!pos, pos) };
        for d in &self.dirs {
            let mut cand = if d.shift > 0 {
                let s = d.shift as usize;
                a & a.shr(s) & b.shr(2 * s) & d.valid
            } else {
                let s = (-d.shift) as usize;
                a & a.shl(s) & b.shl(2 * s) & d.valid
            };
            while let Some(bit) = cand.pop_lowest() {
                f(d.ids[bit] as usize);
            }
        }
    }

    /// Why `pos` cannot reach the goal, if a quick test proves it.
    pub fn impossibility(&self, pos: B) -> Option<String> {
        if let Some((classes, goal_classes)) = &self.classes {
            let c = classes.class_of(&mut self.pegs(pos).into_iter());
            if !goal_classes.contains(&c) {
                return Some(classes.explain(&self.board, c, goal_classes));
            }
        }
        for (pg, need) in &self.pagodas {
            let v = pg.value(&mut self.pegs(pos).into_iter());
            if v < *need {
                return Some(format!(
                    "pagoda function '{}' is {v} here but the goal needs {need}, and no jump raises it",
                    pg.name
                ));
            }
        }
        None
    }

    /// The total of per-hole `weights` over the pegs of `pos`.
    pub fn weigh(&self, pos: B, weights: &[i64]) -> i64 {
        pos.ones()
            .map(|b| self.bit_hole[b].map_or(0, |h| weights[h]))
            .sum()
    }

    /// The classes of holes (orbits under the problem's symmetry group),
    /// numbered in order of first hole: the genes of the genetic search.
    pub fn hole_classes(&self) -> Vec<usize> {
        let n = self.board.holes();
        let mut class = vec![usize::MAX; n];
        let mut next = 0;
        for h in 0..n {
            if class[h] != usize::MAX {
                continue;
            }
            for &g in &self.group {
                class[self.board.symmetries()[g][h]] = next;
            }
            next += 1;
        }
        class
    }

    /// Number of holes with a peg.
    pub fn peg_count(&self, pos: B) -> u32 {
        pos.count()
    }

    /// Writes a move as `from-to`.
    pub fn move_name(&self, j: u16) -> String {
        let jp = self.board.jumps()[j as usize];
        format!(
            "{}-{}",
            self.board.hole_name(jp.from),
            self.board.hole_name(jp.to)
        )
    }
}

impl<B: Bits> Rules for Problem<B> {
    type Position = B;
    type Move = u16;

    fn start(&self) -> B {
        self.start
    }

    #[inline]
    fn for_each_move(&self, pos: &B, mut f: impl FnMut(u16)) {
        self.each_jump(*pos, true, |j| f(j as u16));
    }

    #[inline]
    fn play_unchecked(&self, pos: &B, mv: u16) -> B {
        *pos ^ self.jump_mask[mv as usize]
    }

    fn is_legal(&self, pos: &B, mv: u16) -> bool {
        let Some(jp) = self.board.jumps().get(mv as usize) else {
            return false;
        };
        let p = *pos;
        p.has(self.hole_bit[jp.from])
            && p.has(self.hole_bit[jp.over])
            && !p.has(self.hole_bit[jp.to])
    }
}

impl<B: Bits> Puzzle for Problem<B> {
    fn score(&self, pos: &B) -> u32 {
        pos.count()
    }

    fn is_goal(&self, pos: &B) -> bool {
        match self.goal {
            Goal::Pattern(_) => *pos == self.goal_mask,
            Goal::AnyOne => pos.count() == 1,
        }
    }

    fn cannot_reach_goal(&self, pos: &B) -> bool {
        let n = pos.count();
        let bound = self.score_bound();
        if n < bound {
            return true;
        }
        if let Some((_, goal_classes)) = &self.classes {
            let class = self
                .class_masks
                .iter()
                .enumerate()
                .fold(0u64, |c, (k, &m)| {
                    c | (((*pos & m).count() & 1) as u64) << k
                });
            if !goal_classes.contains(&class) {
                return true;
            }
        }
        self.pagodas.iter().enumerate().any(|(i, (_, need))| {
            let t = &self.pagoda_tables[i * self.nbytes..(i + 1) * self.nbytes];
            let v: i64 = (0..self.nbytes).map(|k| t[k][pos.byte(k)] as i64).sum();
            v < *need
        })
    }

    fn score_bound(&self) -> u32 {
        match &self.goal {
            Goal::Pattern(h) => h.len() as u32,
            Goal::AnyOne => 1,
        }
    }
}

impl<B: Bits> Symmetric for Problem<B> {
    fn symmetry_count(&self) -> usize {
        self.group.len()
    }

    fn apply_symmetry(&self, i: usize, pos: &B) -> B {
        self.transform(i, *pos)
    }

    #[inline]
    fn canonical(&self, pos: &B) -> B {
        let mut best = *pos;
        for g in 1..self.group.len() {
            let t = self.transform(g, *pos);
            if t < best {
                best = t;
            }
        }
        best
    }

    #[inline]
    fn for_each_canonical_child(&self, pos: &B, mut f: impl FnMut(B)) {
        // Symmetries are bit permutations, so the image of a child is the
        // parent's image XOR the image of the jump's mask.
        let n = self.group.len();
        let mut images = [B::ZERO; 12];
        for (g, img) in images.iter_mut().enumerate().take(n) {
            *img = self.transform(g, *pos);
        }
        self.each_jump(*pos, true, |j| {
            let ji = &self.jump_images[j * n..j * n + n];
            let mut best = images[0] ^ ji[0];
            for g in 1..n {
                let t = images[g] ^ ji[g];
                if t < best {
                    best = t;
                }
            }
            f(best);
        });
    }
}

impl<B: Bits> Reversible for Problem<B> {
    fn goals(&self) -> Vec<B> {
        match &self.goal {
            Goal::Pattern(_) => vec![self.goal_mask],
            Goal::AnyOne => (0..self.board.holes())
                .map(|h| B::bit(self.hole_bit[h]))
                .collect(),
        }
    }

    fn for_each_parent(&self, pos: &B, mut f: impl FnMut(B)) {
        self.each_jump(*pos, false, |j| f(*pos ^ self.jump_mask[j]));
    }
}

impl<B: Bits> Notation for Problem<B> {
    type Error = PegError;

    fn format_move(&self, mv: u16) -> String {
        self.move_name(mv)
    }

    fn parse_move(&self, s: &str) -> Result<u16, PegError> {
        let t = s.trim();
        let (a, b) = t
            .split_once('-')
            .ok_or_else(|| PegError::BadMove(t.to_string()))?;
        let (from, to) = (self.board.hole(a)?, self.board.hole(b)?);
        self.board
            .jumps()
            .iter()
            .position(|j| j.from == from && j.to == to)
            .map(|j| j as u16)
            .ok_or_else(|| {
                PegError::IllegalMove(
                    t.to_string(),
                    "the holes are not two apart in a line with a hole between".into(),
                )
            })
    }

    fn format_position(&self, pos: &B) -> String {
        crate::notation::format_position(&self.board, |h| self.has_peg(*pos, h))
    }

    fn parse_position(&self, s: &str) -> Result<B, PegError> {
        let pegs = crate::notation::parse_position(&self.board, s)?;
        Ok(self.position_of((0..pegs.len()).filter(|&h| pegs[h])))
    }
}

impl<B: Bits> endgame_core::genetic::WeightGuided for Problem<B> {
    fn class_count(&self) -> usize {
        self.hole_class.iter().max().map_or(0, |m| m + 1)
    }

    fn weighted_total(&self, pos: &B, weights: &[u32]) -> i64 {
        pos.ones()
            .filter_map(|b| self.bit_hole[b])
            .map(|h| weights[self.hole_class[h]] as i64)
            .sum()
    }

    fn goal_distance(&self, pos: &B) -> u32 {
        match self.goal {
            Goal::Pattern(_) => (*pos ^ self.goal_mask).count(),
            Goal::AnyOne => pos.count().saturating_sub(1),
        }
    }
}
