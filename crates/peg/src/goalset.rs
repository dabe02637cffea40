//! The goal-reaching set of a self-complementary problem: every position
//! reachable from the start that can still reach the goal, up to symmetry.
//!
//! A problem whose goal is the complement of its start (one vacancy, one
//! peg left in that hole) has a time reversal: `q` is a child of `p`
//! exactly when the complement of `p` is a child of the complement of
//! `q`. A reachable position then reaches the goal exactly when its
//! complement is reachable too, so only the first half of the moves needs
//! enumerating: forward layers from the start to the middle, the middle
//! layer's goal-reaching positions found by complement look-ups, the
//! shallower ones by stepping back; the deeper half is the complement of
//! the shallower one and is never stored.
//!
//! A position of the set reaches the goal, whatever the start. A position
//! not in it fails to reach the goal only if it is reachable from the
//! start: the analysis trusts a miss only for positions it knows to be
//! reachable (children of a member).

use crate::bits::Bits;
use crate::problem::Problem;
use endgame_core::budget::Budget;
use endgame_core::layered::{self, LayeredError, LayeredOptions};
use endgame_core::{Puzzle, Reversible, Rules, Symmetric};

/// Why a build stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The problem has no time reversal (its goal is not the complement of
    /// its start).
    #[error("the goal is not the complement of the start")]
    NotSelfComplementary,
    /// The budget's deadline passed or its token was cancelled.
    #[error("stopped: the budget ran out or the build was cancelled")]
    Stopped,
    /// The stored layers would pass the budget's memory limit.
    #[error("memory budget of {0} bytes exceeded")]
    Memory(usize),
}

/// The goal-reaching positions of the first half of the moves, layer by
/// layer (layer `d`: after `d` moves), each sorted, canonical under the
/// problem's symmetry group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalSet<B> {
    start_pegs: u32,
    last: u32,
    layers: Vec<Vec<B>>,
}

impl<B: Bits> GoalSet<B> {
    /// Enumerates the set of `p` (whose start and goal are complements),
    /// checking `budget` (deadline, cancel, memory) before each layer.
    pub fn build(p: &Problem<B>, budget: &Budget) -> Result<GoalSet<B>, BuildError> {
        let start = p.start();
        if p.reversal(&start).is_none() {
            return Err(BuildError::NotSelfComplementary);
        }
        let start_pegs = start.count();
        let last = start_pegs.saturating_sub(p.score_bound());
        let m = (last / 2) as usize;
        if p.cannot_reach_goal(&start) {
            return Ok(GoalSet {
                start_pegs,
                last,
                layers: vec![Vec::new(); m + 1],
            });
        }
        // The engine of `endgame count --goal-only`: forward to the middle,
        // met there by the time reversal, the shallower goal-reaching
        // layers stepped back from it; no solution count.
        let opts = LayeredOptions {
            max_bytes: budget.memory.unwrap_or(LayeredOptions::default().max_bytes),
            count_all: false,
            count_solutions: false,
            keep_goal_layers: true,
            budget: budget.clone(),
            ..LayeredOptions::default()
        };
        let r = layered::enumerate(p, &opts, &layered::Silent).map_err(|e| match e {
            LayeredError::Stopped { .. } => BuildError::Stopped,
            LayeredError::MemoryBudget { budget, .. } => BuildError::Memory(budget),
        })?;
        let mut layers = r.goal_layers;
        if layers.is_empty() && !r.goal_reachable {
            layers = vec![Vec::new(); m + 1];
        }
        if layers.len() != m + 1 {
            return Err(BuildError::NotSelfComplementary);
        }
        Ok(GoalSet {
            start_pegs,
            last,
            layers,
        })
    }

    /// Whether `pos` reaches the goal and is reachable from the start
    /// (`p`: the problem the set was built for, or any with the same board,
    /// start and goal).
    pub fn contains(&self, p: &Problem<B>, pos: &B) -> bool {
        let k = pos.count();
        if k > self.start_pegs || self.start_pegs - k > self.last {
            return false;
        }
        let d = (self.start_pegs - k) as usize;
        if d < self.layers.len() {
            return self.layers[d].binary_search(&p.canonical(pos)).is_ok();
        }
        let Some(c) = p.reversal(pos) else {
            return false;
        };
        let mirror = self.last as usize - d;
        self.layers
            .get(mirror)
            .is_some_and(|l| l.binary_search(&p.canonical(&c)).is_ok())
    }

    /// Whether the goal is reachable from the start.
    pub fn solvable(&self) -> bool {
        self.layers.first().is_some_and(|l| !l.is_empty())
    }

    /// Positions up to symmetry in the whole set (both halves).
    pub fn entries(&self) -> u64 {
        let half: u64 = self.layers.iter().map(|l| l.len() as u64).sum();
        // The deeper half mirrors the shallower; an even `last` shares its
        // middle layer.
        let shared = if self.last.is_multiple_of(2) {
            self.layers.last().map_or(0, |l| l.len() as u64)
        } else {
            0
        };
        2 * half - shared
    }

    /// Positions stored (the shallower half).
    pub fn stored(&self) -> u64 {
        self.layers.iter().map(|l| l.len() as u64).sum()
    }

    /// Bytes of the stored positions.
    pub fn bytes(&self) -> usize {
        self.stored() as usize * std::mem::size_of::<B>()
    }

    /// The table's payload: start pegs, moves to the goal, layer count
    /// (u32 each), then per layer its length (u64) and its positions as
    /// little-endian words of 64 bits.
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = words::<B>();
        let mut out = Vec::with_capacity(12 + self.layers.len() * 8 + self.bytes());
        out.extend_from_slice(&self.start_pegs.to_le_bytes());
        out.extend_from_slice(&self.last.to_le_bytes());
        out.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for l in &self.layers {
            out.extend_from_slice(&(l.len() as u64).to_le_bytes());
            for q in l {
                for w in 0..words {
                    out.extend_from_slice(&q.low_u64(64 * w).to_le_bytes());
                }
            }
        }
        out
    }

    /// Reads a payload written by [`GoalSet::to_bytes`], checking its
    /// shape (sizes, sorted layers); `None` if it is not one.
    pub fn from_bytes(b: &[u8]) -> Option<GoalSet<B>> {
        let words = words::<B>();
        let mut at = 0usize;
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = b.get(at..at.checked_add(n)?)?;
            at += n;
            Some(s)
        };
        let u32_of = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
        let start_pegs = u32_of(take(4)?);
        let last = u32_of(take(4)?);
        let n = u32_of(take(4)?) as usize;
        if n != (last / 2) as usize + 1 || last > start_pegs {
            return None;
        }
        let mut layers = Vec::with_capacity(n);
        for _ in 0..n {
            let len = u64::from_le_bytes(take(8)?.try_into().ok()?) as usize;
            let raw = take(len.checked_mul(8 * words)?)?;
            let layer: Vec<B> = raw
                .chunks_exact(8 * words)
                .map(|c| {
                    (0..words).fold(B::ZERO, |acc, w| {
                        let x = u64::from_le_bytes(c[8 * w..8 * w + 8].try_into().expect("8"));
                        acc | B::from_low_u64(x).shl(64 * w)
                    })
                })
                .collect();
            if layer.windows(2).any(|w| w[0] >= w[1]) {
                return None;
            }
            layers.push(layer);
        }
        (at == b.len()).then_some(GoalSet {
            start_pegs,
            last,
            layers,
        })
    }
}

fn words<B: Bits>() -> usize {
    B::CAPACITY.div_ceil(64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{build, AnyProblem, Spec};
    use endgame_core::layered::{self, LayeredOptions};

    fn small(spec: &Spec) -> Problem<u64> {
        match build(spec).expect("a problem") {
            AnyProblem::Small(p) => p,
            AnyProblem::Large(_) => panic!("a small board"),
        }
    }

    /// Every reachable position of the triangle, checked against the full
    /// layered enumeration's solution counts from that position.
    #[test]
    fn the_triangle_set_matches_the_full_enumeration() {
        let p = small(&Spec::named("triangle"));
        let set = GoalSet::build(&p, &Budget::unlimited()).expect("built");
        assert!(set.solvable());
        let full = layered::enumerate(&p, &LayeredOptions::default(), &layered::Silent).unwrap();
        let to_goal: u64 = full.layers.iter().map(|l| l.to_goal_reduced).sum();
        assert_eq!(set.entries(), to_goal);
        // Membership of every child of every member agrees with a search.
        let mut frontier = vec![p.start()];
        let mut seen = std::collections::HashSet::new();
        while let Some(q) = frontier.pop() {
            if !seen.insert(p.canonical(&q)) {
                continue;
            }
            let r = endgame_core::dfs::solve(&p, &q, &Default::default());
            assert_eq!(set.contains(&p, &q), r.reached_goal, "{q:b}");
            p.for_each_move(&q, |m| frontier.push(p.play_unchecked(&q, m)));
        }
    }

    #[test]
    fn a_payload_round_trips_and_damage_is_refused() {
        let p = small(&Spec::named("triangle"));
        let set = GoalSet::build(&p, &Budget::unlimited()).unwrap();
        let bytes = set.to_bytes();
        assert_eq!(GoalSet::<u64>::from_bytes(&bytes), Some(set.clone()));
        assert_eq!(GoalSet::<u64>::from_bytes(&bytes[..bytes.len() - 1]), None);
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(GoalSet::<u64>::from_bytes(&longer), None);
    }

    #[test]
    fn a_cancelled_build_stops() {
        let p = small(&Spec::named("english"));
        let b = Budget::unlimited();
        b.cancel.cancel();
        assert_eq!(GoalSet::build(&p, &b), Err(BuildError::Stopped));
    }
}
