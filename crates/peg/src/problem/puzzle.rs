//! The puzzle: the goal test, the score and the pruning of positions
//! that cannot reach the goal (position classes, pagoda functions).

use super::{Goal, PegSolitaire, PAGODA_LANES};
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
    /// invariant `k` (as [`PositionClasses::class_of`] numbers them), by
    /// the byte tables of [`PegSolitaire::class_bits_by_masks`].
    #[inline]
    pub(super) fn class_bits(&self, pos: B) -> u64 {
        self.class_tables
            .iter()
            .enumerate()
            .fold(0, |c, (k, t)| c ^ t[pos.byte(k)])
    }

    /// [`PegSolitaire::class_bits`] from the masks (one popcount each),
    /// to fill its tables.
    pub(super) fn class_bits_by_masks(&self, pos: B) -> u64 {
        self.class_masks
            .iter()
            .enumerate()
            .fold(0u64, |c, (k, &m)| c | (((pos & m).count() & 1) as u64) << k)
    }

    /// The value of pagoda function `i` on `pos`, by byte tables.
    pub(super) fn pagoda_value(&self, i: usize, pos: B) -> i64 {
        let (g, l) = (i / PAGODA_LANES, i % PAGODA_LANES);
        (0..self.nbytes)
            .map(|k| self.pagoda_lanes[((g * self.nbytes + k) << 8) | pos.byte(k)][l] as i64)
            .sum()
    }

    /// Whether `pos` has fewer pegs than the goal or a position class no
    /// goal has (the tests of [`Puzzle::cannot_reach_goal`] before the
    /// pagoda functions).
    #[inline]
    pub(super) fn count_or_class_fails(&self, pos: B) -> bool {
        if pos.count() < self.score_bound() {
            return true;
        }
        match &self.classes {
            Some((_, goal_classes)) => !goal_classes.contains(&self.class_bits(pos)),
            None => false,
        }
    }

    /// Whether some pagoda function is below what the goal needs on
    /// `pos`: eight functions summed at once, one table row a byte (the
    /// test runs on every position of a pruned layer).
    #[inline]
    pub(super) fn pagoda_fails(&self, pos: B) -> bool {
        let rows = self.nbytes << 8;
        let mut tab = &self.pagoda_lanes[..];
        for need in &self.pagoda_need {
            // Split, not `chunks_exact`: no division a call.
            let (group, rest) = tab.split_at(rows.min(tab.len()));
            tab = rest;
            let mut sum = [0i32; PAGODA_LANES];
            for k in 0..self.nbytes {
                let row = group
                    .get((k << 8) | pos.byte(k))
                    .unwrap_or(&[0; PAGODA_LANES]);
                for (s, w) in sum.iter_mut().zip(row) {
                    *s += w;
                }
            }
            if sum.iter().zip(need).fold(false, |f, (s, n)| f | (s < n)) {
                return true;
            }
        }
        false
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
        self.count_or_class_fails(*pos) || self.pagoda_fails(*pos)
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
