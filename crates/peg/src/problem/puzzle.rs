//! The puzzle: the goal test, the score and the pruning of positions
//! that cannot reach the goal (position classes, pagoda functions).

use super::{Goal, PegSolitaire};
use crate::bits::Bits;
#[allow(unused_imports)] // for the documentation's links
use crate::class::PositionClasses;
use endgame_core::Puzzle;

impl<B: Bits> PegSolitaire<B> {
    /// Why `pos` cannot reach the goal, if a quick test proves it.
    pub fn impossibility(&self, pos: B) -> Option<String> {
        if let Some((classes, goal_classes)) = &self.classes {
            let c = self.class_bits(pos);
            if !goal_classes.contains(&c) {
                return Some(classes.explain(&self.board, c, goal_classes));
            }
        }
        for (i, (pg, need)) in self.pagodas.iter().enumerate() {
            let v = self.pagoda_value(i, pos);
            if v < *need {
                return Some(format!(
                    "pagoda function '{}' is {v} here but the goal needs {need}, and no jump raises it",
                    pg.name
                ));
            }
        }
        None
    }

    /// The position class of `pos`: bit `k` is the parity of its pegs on
    /// invariant `k` (as [`PositionClasses::class_of`] numbers them).
    #[inline]
    fn class_bits(&self, pos: B) -> u64 {
        self.class_masks
            .iter()
            .enumerate()
            .fold(0u64, |c, (k, &m)| c | (((pos & m).count() & 1) as u64) << k)
    }

    /// The value of pagoda function `i` on `pos`, by byte tables.
    #[inline]
    fn pagoda_value(&self, i: usize, pos: B) -> i64 {
        let t = &self.pagoda_tables[i * self.nbytes..(i + 1) * self.nbytes];
        (0..self.nbytes).map(|k| t[k][pos.byte(k)] as i64).sum()
    }
}

impl<B: Bits> Puzzle for PegSolitaire<B> {
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
            if !goal_classes.contains(&self.class_bits(*pos)) {
                return true;
            }
        }
        self.pagodas
            .iter()
            .enumerate()
            .any(|(i, (_, need))| self.pagoda_value(i, *pos) < *need)
    }

    fn search_order(&self, pos: &B) -> i64 {
        self.order_tables
            .iter()
            .enumerate()
            .map(|(k, t)| t[pos.byte(k)] as i64)
            .sum()
    }

    fn score_bound(&self) -> u32 {
        match &self.goal {
            Goal::Pattern(h) => h.len() as u32,
            Goal::AnyOne => 1,
        }
    }
}
