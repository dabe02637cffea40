//! The rules: jumps by direction (a few shifts and masks a direction),
//! played forwards ([`Rules`]) and backwards ([`Reversible`]).

use super::{Goal, PegSolitaire};
use crate::bits::Bits;
use endgame_core::{Reversible, Rules};

/// One jump direction: a constant bit shift and the holes it can start on.
#[derive(Clone, Debug)]
pub(super) struct Dir<B> {
    /// Signed shift from `from` to `over` (and `over` to `to`).
    pub(super) shift: i32,
    /// Bits of holes from which this direction's jump lands on the board.
    pub(super) valid: B,
    /// Board jump index for each starting bit.
    pub(super) ids: Vec<u16>,
}

impl<B: Bits> PegSolitaire<B> {
    /// Calls `f(jump index)` for each jump whose mask test passes.
    #[inline(always)]
    pub(super) fn each_jump(&self, pos: B, forward: bool, mut f: impl FnMut(usize)) {
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
}

impl<B: Bits> Rules for PegSolitaire<B> {
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

impl<B: Bits> Reversible for PegSolitaire<B> {
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

    fn reversal(&self, pos: &B) -> Option<B> {
        self.complement.map(|board| board ^ *pos)
    }

    #[inline]
    fn for_each_canonical_parent_orbit(&self, pos: &B, f: impl FnMut(B, u32)) -> bool {
        self.neighbours(*pos, false, f);
        true
    }
}
