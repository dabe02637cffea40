//! The weights the genetic search evolves: one a class of holes.

use super::{Goal, PegSolitaire};
use crate::bits::Bits;

impl<B: Bits> endgame_core::genetic::WeightGuided for PegSolitaire<B> {
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
