//! The result ladder of a problem: the exact best result (fewest pegs it
//! can still be left with) of every position reachable from the start,
//! up to a cap, as a stack of solved sets.
//!
//! Let `S_k` be the reachable positions that can still be left with `k`
//! pegs ([`GoalSet::build_reaching`]); they have `k` pegs or more. A
//! position of more than `k` pegs that can be left with fewer passes `k`
//! on the way, so a position of `S_k` outside `S_{k-1}` is left with `k`
//! pegs at best, and the best result of a reachable position is the
//! least `k` whose set holds it. The ladder keeps, from the start's best
//! result `b` up, level `i` = `S_{b+i}` minus `S_{b+i-1}`: the reachable
//! positions whose best result is exactly `b + i`. Each position lies in
//! one level, so the ladder takes the room of the positions it tells, not
//! of the sets' sum. A reachable position in no level is left with more
//! than [`Ladder::top`] pegs at best; a position in a level is reachable
//! from the start.
//!
//! On the English central game the levels from 1 to 8 pegs hold
//! 23,359,124 of the 23,475,688 reachable positions up to symmetry
//! (99.5 %; the peg README's table section): a hint there is a handful of
//! look-ups where a search had to prove that fewer pegs are out of reach.

use crate::bits::Bits;
use crate::goalset::{BuildError, GoalSet, Reader};
use crate::problem::PegSolitaire;
use endgame_core::budget::Budget;
use endgame_core::layered;
use endgame_core::{Puzzle, Rules, Symmetric};

/// Levels of exact best results, from the start's best result up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ladder<B: Bits> {
    /// `levels[i]`: the reachable positions whose best result is
    /// `levels[0].target() + i`.
    levels: Vec<GoalSet<B>>,
}

/// Marks a ladder's payload (a [`GoalSet`]'s starts with its start's peg
/// count, never this large).
const MAGIC: u32 = 0x4c41_4444;

impl<B: Bits> Ladder<B> {
    /// Builds up to `levels` levels of `p`'s ladder, from its best result
    /// up (fewer when a level would pass the start's pegs), checking
    /// `budget` (deadline, cancel, memory) before each layer of each set.
    pub fn build(
        p: &PegSolitaire<B>,
        levels: u32,
        budget: &Budget,
        progress: &dyn layered::Progress,
    ) -> Result<Ladder<B>, BuildError> {
        let start_pegs = p.start().count();
        let mut out = Vec::new();
        let mut below: Option<GoalSet<B>> = None;
        for k in p.score_bound().max(1)..=start_pegs {
            if out.len() as u32 >= levels {
                break;
            }
            let Some(set) = GoalSet::build_reaching(p, k, budget, progress)? else {
                // Below the best result; past it every k is reachable
                // (the sets are nested).
                if below.is_some() {
                    break;
                }
                continue;
            };
            out.push(match &below {
                Some(b) => set.minus(b)?,
                None => set.clone(),
            });
            below = Some(set);
        }
        Ok(Ladder { levels: out })
    }

    /// The best result of `pos` (on `p`, the problem the ladder was built
    /// for, or one with the same board, start and symmetries), when it is
    /// at most [`Ladder::top`] and `pos` is reachable; `None` otherwise.
    pub fn best(&self, p: &PegSolitaire<B>, pos: &B) -> Option<u32> {
        // Levels store every layer (none is mirrored): one canonical form
        // serves them all.
        let c = p.canonical(pos);
        self.levels
            .iter()
            .find(|l| l.stores(&c))
            .map(GoalSet::target)
    }

    /// The first level: the reachable positions that can still be left
    /// with the start's best result (`None` for a ladder of no level).
    pub fn first_level(&self) -> Option<&GoalSet<B>> {
        self.levels.first()
    }

    /// The start's best result (`None` for a ladder of no level).
    pub fn first(&self) -> Option<u32> {
        self.levels.first().map(GoalSet::target)
    }

    /// The highest best result the ladder tells.
    pub fn top(&self) -> Option<u32> {
        self.levels.last().map(GoalSet::target)
    }

    /// Positions up to symmetry in each level.
    pub fn level_entries(&self) -> Vec<u64> {
        self.levels.iter().map(GoalSet::entries).collect()
    }

    /// Positions up to symmetry in all levels.
    pub fn entries(&self) -> u64 {
        self.levels.iter().map(GoalSet::entries).sum()
    }

    /// Bytes of the stored layers.
    pub fn bytes(&self) -> usize {
        self.levels.iter().map(GoalSet::bytes).sum()
    }

    /// The payload: a ladder of one level is its set's
    /// ([`GoalSet::to_bytes`], the best-result sets' format); a longer one
    /// is [`MAGIC`], the level count (u32), then each level's length (u64)
    /// and payload. Little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        if let [one] = &self.levels[..] {
            return one.to_bytes();
        }
        let mut out = Vec::with_capacity(8 + self.bytes() + 64 * self.levels.len());
        out.extend_from_slice(&MAGIC.to_le_bytes());
        out.extend_from_slice(&(self.levels.len() as u32).to_le_bytes());
        for l in &self.levels {
            let b = l.to_bytes();
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(&b);
        }
        out
    }

    /// Reads a payload of [`Ladder::to_bytes`], checking that the levels
    /// are full-layer sets of one start whose targets rise by one; `None`
    /// if it is not one.
    pub fn from_bytes(b: &[u8]) -> Option<Ladder<B>> {
        let mut r = Reader::new(b);
        if r.u32()? != MAGIC {
            let one = GoalSet::from_bytes(b).filter(|s| !s.mirrored())?;
            return Some(Ladder { levels: vec![one] });
        }
        let n = r.u32()?;
        let mut levels: Vec<GoalSet<B>> = Vec::new();
        for _ in 0..n {
            let len = usize::try_from(r.u64()?).ok()?;
            let level = GoalSet::from_bytes(r.take(len)?)?;
            if level.mirrored() {
                return None;
            }
            if let Some(prev) = levels.last() {
                if level.target() != prev.target() + 1 || level.start_pegs() != prev.start_pegs() {
                    return None;
                }
            }
            levels.push(level);
        }
        r.done().then_some(Ladder { levels })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Spec;
    use crate::goalset::tests::{small, triangle_specs};
    use endgame_core::Notation;
    use std::collections::HashMap;

    /// Fewest pegs `pos` can be left with, by plain memoised recursion
    /// over every move (no symmetry, no pruning).
    fn brute_best(p: &PegSolitaire<u64>, pos: u64, memo: &mut HashMap<u64, u32>) -> u32 {
        if let Some(&v) = memo.get(&pos) {
            return v;
        }
        let v = p
            .moves(&pos)
            .into_iter()
            .map(|m| brute_best(p, p.play_unchecked(&pos, m), memo))
            .min()
            .unwrap_or(pos.count());
        memo.insert(pos, v);
        v
    }

    /// Every position reachable from the start, by plain search.
    fn reachable(p: &PegSolitaire<u64>) -> Vec<u64> {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![p.start()];
        while let Some(q) = stack.pop() {
            if seen.insert(q) {
                stack.extend(p.moves(&q).into_iter().map(|m| p.play_unchecked(&q, m)));
            }
        }
        seen.into_iter().collect()
    }

    /// On the triangle (every vacancy) and a small rectangle, the ladder
    /// of every level tells each reachable position's best result exactly
    /// as brute force does.
    #[test]
    fn the_ladder_agrees_with_brute_force_on_small_boards() {
        let specs = triangle_specs();
        for spec in specs {
            let p = small(&spec);
            let ladder =
                Ladder::build(&p, u32::MAX, &Budget::unlimited(), &layered::Silent).expect("built");
            let mut memo = HashMap::new();
            let all = reachable(&p);
            for &q in &all {
                assert_eq!(
                    ladder.best(&p, &q),
                    Some(brute_best(&p, q, &mut memo)),
                    "{spec:?} at {}",
                    p.format_position(&q)
                );
            }
            assert_eq!(ladder.first(), Some(brute_best(&p, p.start(), &mut memo)));
            // Levels are disjoint: up to symmetry, they hold each
            // reachable position once.
            let classes: std::collections::HashSet<u64> =
                all.iter().map(|q| p.canonical(q)).collect();
            assert_eq!(ladder.entries(), classes.len() as u64, "{spec:?}");
            // An unreachable position is in no level.
            let full = p.position_of(0..p.board().holes());
            assert_eq!(ladder.best(&p, &full), None);
        }
    }

    /// A capped ladder tells the low results and nothing above its top.
    #[test]
    fn a_capped_ladder_stops_at_its_top() {
        let p = small(&Spec::named("triangle"));
        let full = Ladder::build(&p, u32::MAX, &Budget::unlimited(), &layered::Silent).unwrap();
        let two = Ladder::build(&p, 2, &Budget::unlimited(), &layered::Silent).unwrap();
        assert_eq!(two.level_entries(), full.level_entries()[..2].to_vec());
        assert_eq!(two.top(), Some(two.first().unwrap() + 1));
        let mut memo = HashMap::new();
        for q in reachable(&p) {
            let b = brute_best(&p, q, &mut memo);
            let want = (b <= two.top().unwrap()).then_some(b);
            assert_eq!(two.best(&p, &q), want);
        }
    }

    #[test]
    fn the_payload_round_trips_and_damage_is_refused() {
        let p = small(&Spec::named("triangle"));
        let ladder = Ladder::build(&p, 4, &Budget::unlimited(), &layered::Silent).unwrap();
        let bytes = ladder.to_bytes();
        assert_eq!(Ladder::<u64>::from_bytes(&bytes), Some(ladder.clone()));
        assert_eq!(Ladder::<u64>::from_bytes(&bytes[..bytes.len() - 1]), None);
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Ladder::<u64>::from_bytes(&longer), None);
        // A goal set (half its layers) is not a ladder; a best-result set
        // is one of one level, in its own format.
        let set = GoalSet::build(&p, &Budget::unlimited()).unwrap();
        assert_eq!(Ladder::<u64>::from_bytes(&set.to_bytes()), None);
        let best = GoalSet::build_best(&p, &Budget::unlimited()).unwrap();
        let one = Ladder::build(&p, 1, &Budget::unlimited(), &layered::Silent).unwrap();
        assert_eq!(one.to_bytes(), best.to_bytes());
        assert_eq!(Ladder::<u64>::from_bytes(&best.to_bytes()), Some(one));
        // Levels out of order are refused.
        let mut swapped = ladder.clone();
        swapped.levels.swap(0, 1);
        assert_eq!(Ladder::<u64>::from_bytes(&swapped.to_bytes()), None);
    }
}
