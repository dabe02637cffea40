//! Solution counts from every position of a solved set: how many jump
//! sequences lead from a position to the goal, for all of them at once.
//!
//! The number of solutions from a position is the sum of its children's
//! (one for the goal itself), and every position on a path from a
//! reachable position to the goal is reachable and reaches the goal, so
//! it lies in any set that holds the reachable positions reaching the
//! goal (the goal-reaching set, or a ladder's first level when its target
//! is the goal's peg count). One sweep from the deepest layer up fills a
//! count per stored position. The count is a property of the position's
//! class (the symmetries fix the goal), so a position up to symmetry
//! keeps one. A hint then reads its moves' counts instead of enumerating
//! everything below the position (the English central game: 1,679,073
//! classes, 13 MB of counts).

use crate::bits::Bits;
use crate::goalset::GoalSet;
use crate::problem::PegSolitaire;
use endgame_core::budget::Budget;
use endgame_core::{Puzzle, Rules, Symmetric};
use rayon::prelude::*;

/// The solution count of every position of a set, by layer and index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paths {
    counts: Vec<Vec<u64>>,
}

impl Paths {
    /// The counts of `set`'s positions on `p` (the problem the set was
    /// built for, or one with the same board, start, goal and
    /// symmetries). `None` when the set does not hold what the counts
    /// need (a mirrored set, or a target other than the goal's peg
    /// count), when a count passes `u64`, or when `budget` stops it
    /// (checked between layers).
    pub fn build<B: Bits>(p: &PegSolitaire<B>, set: &GoalSet<B>, budget: &Budget) -> Option<Paths> {
        if set.mirrored() || set.target() != p.score_bound() {
            return None;
        }
        let n = set.stored_layers();
        let mut counts: Vec<Vec<u64>> = vec![Vec::new(); n];
        for d in (0..n).rev() {
            if budget.stop() {
                return None;
            }
            let members = set.layer_members(d);
            let below = counts.get(d + 1);
            let layer: Option<Vec<u64>> = members
                .par_iter()
                .map(|y| match below {
                    None => Some(u64::from(p.is_goal(y))),
                    Some(below) => {
                        let mut sum = 0u64;
                        let mut ok = true;
                        p.for_each_move(y, |m| {
                            let c = p.canonical(&p.play_unchecked(y, m));
                            if let Some((_, i)) = set.index(&c) {
                                match sum.checked_add(below[i]) {
                                    Some(s) => sum = s,
                                    None => ok = false,
                                }
                            }
                        });
                        ok.then_some(sum)
                    }
                })
                .collect();
            counts[d] = layer?;
        }
        Some(Paths { counts })
    }

    /// The number of solutions from `pos` (on `set`'s problem `p`), if
    /// the set holds it; `None` for a position outside the set (which
    /// has none when it is reachable from the set's start).
    pub fn solutions<B: Bits>(
        &self,
        p: &PegSolitaire<B>,
        set: &GoalSet<B>,
        pos: &B,
    ) -> Option<u64> {
        let (d, i) = set.index(&p.canonical(pos))?;
        self.counts.get(d)?.get(i).copied()
    }

    /// Bytes of the counts.
    pub fn bytes(&self) -> usize {
        self.counts.iter().map(|l| l.len() * 8).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Spec;
    use crate::goalset::tests::{small, triangle_specs};
    use crate::ladder::Ladder;
    use endgame_core::layered;
    use endgame_core::Notation;
    use std::collections::HashMap;

    /// Solutions from `pos` by plain memoised recursion over every move
    /// (no symmetry, no pruning, no table).
    fn brute(p: &PegSolitaire<u64>, pos: u64, memo: &mut HashMap<u64, u64>) -> u64 {
        if p.is_goal(&pos) {
            return 1;
        }
        if let Some(&n) = memo.get(&pos) {
            return n;
        }
        let n = p
            .moves(&pos)
            .into_iter()
            .map(|m| brute(p, p.play_unchecked(&pos, m), memo))
            .sum();
        memo.insert(pos, n);
        n
    }

    /// On the triangle (several vacancies, and finishing anywhere),
    /// the counts from a ladder's first level equal brute force at every
    /// reachable position, and the start's equals the published 29,760
    /// solutions of the triangle's top-vacancy game finishing anywhere.
    #[test]
    fn counts_agree_with_brute_force_at_every_reachable_position() {
        let mut specs = triangle_specs();
        specs.push(Spec {
            finish: crate::api::Finish::Any,
            ..Spec::named("triangle")
        });
        let mut checked = 0;
        for spec in specs {
            let p = small(&spec);
            let ladder =
                Ladder::build(&p, 1, &Budget::unlimited(), &layered::Silent).expect("built");
            let set = ladder.first_level().expect("a level");
            let Some(paths) = Paths::build(&p, set, &Budget::unlimited()) else {
                // The goal has more pegs than the best result: no counts.
                assert_ne!(set.target(), p.score_bound(), "{spec:?}");
                continue;
            };
            let mut memo = HashMap::new();
            let mut seen = std::collections::HashSet::new();
            let mut stack = vec![p.start()];
            while let Some(q) = stack.pop() {
                if !seen.insert(q) {
                    continue;
                }
                let want = brute(&p, q, &mut memo);
                assert_eq!(
                    paths.solutions(&p, set, &q).unwrap_or(0),
                    want,
                    "{spec:?} at {}",
                    p.format_position(&q)
                );
                checked += 1;
                stack.extend(p.moves(&q).into_iter().map(|m| p.play_unchecked(&q, m)));
            }
        }
        assert!(checked > 1000, "{checked} positions");
        let p = small(&Spec {
            finish: crate::api::Finish::Any,
            ..Spec::named("triangle")
        });
        let ladder = Ladder::build(&p, 1, &Budget::unlimited(), &layered::Silent).unwrap();
        let set = ladder.first_level().unwrap();
        let paths = Paths::build(&p, set, &Budget::unlimited()).unwrap();
        assert_eq!(paths.solutions(&p, set, &p.start()), Some(29_760));
    }

    /// A mirrored set (the goal-reaching set of a complement problem) is
    /// refused, and so is a stopped budget.
    #[test]
    fn refuses_what_it_cannot_count() {
        let p = small(&Spec::named("triangle"));
        let set = GoalSet::build(&p, &Budget::unlimited()).unwrap();
        if set.mirrored() {
            assert_eq!(Paths::build(&p, &set, &Budget::unlimited()), None);
        }
        let ladder = Ladder::build(&p, 1, &Budget::unlimited(), &layered::Silent).unwrap();
        let stopped = Budget::unlimited().with_time(std::time::Duration::ZERO);
        assert_eq!(
            Paths::build(&p, ladder.first_level().unwrap(), &stopped),
            None
        );
    }
}
