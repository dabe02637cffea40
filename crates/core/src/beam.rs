//! Beam search for a goal line: level by level (one move a level), every
//! child of the level's positions made, duplicates dropped, and only the
//! `width` children a heuristic ranks highest kept for the next level.
//!
//! It proves nothing when it fails, but a line it finds is a line: for a
//! puzzle whose goal is its best score, a found line ends the search
//! exactly. A depth-first search commits to its first moves and, when the
//! line needs an early choice it ranked low, has to exhaust a whole
//! subtree before it gets there; a beam keeps `width` different
//! prefixes alive at every depth, so it reaches such lines after about
//! `width` × depth expansions, whatever their first moves were. Martello
//! boards whose line its depth-first search finds only after minutes are
//! found this way in a fraction of a second (see the Martello crate's
//! README).

use crate::budget::Budget;
use crate::hash::FxHashSet;
use crate::restarts::Rng;
use crate::Puzzle;

/// What one beam search did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeamResult<M> {
    /// The moves from the start to a goal position, if one was reached.
    pub line: Option<Vec<M>>,
    /// Positions expanded (their children made).
    pub expansions: u64,
    /// The best score of any position the search entered.
    pub best_score: u32,
}

/// A beam of `width` positions a level (at least one) from `start` towards
/// `p.is_goal`, children from `expand` (appended to its vector),
/// duplicates told apart by `key` (equal positions, equal keys; a
/// collision only drops a position from the beam), ranked by `rank`
/// (higher first; ties broken at random by `rng`). Children that
/// `p.cannot_reach_goal` are left out. Only the rank, parent and move of
/// a child are kept until a level is chosen, and the chosen children are
/// made again by `p.play_unchecked`, so `expand` must give the children
/// that it gives. Stops early, without a line, when
/// `budget` says so (checked once a level).
pub fn search<P, E, K, R>(
    p: &P,
    start: &P::Position,
    (width, budget): (usize, Option<&Budget>),
    mut expand: E,
    key: K,
    rank: R,
    rng: &mut Rng,
) -> BeamResult<P::Move>
where
    P: Puzzle,
    E: FnMut(&P::Position, &mut Vec<(P::Move, P::Position)>),
    K: Fn(&P::Position) -> u64,
    R: Fn(&P::Position) -> i64,
{
    let mut best_score = p.score(start);
    if p.is_goal(start) {
        return BeamResult {
            line: Some(Vec::new()),
            expansions: 0,
            best_score,
        };
    }
    let width = width.max(1);
    // Each level's (parent's index in the level before, move) per
    // position, to read a line back.
    let mut links: Vec<Vec<(u32, P::Move)>> = Vec::new();
    let mut level = vec![*start];
    let mut expansions = 0u64;
    let mut kids = Vec::new();
    let mut seen = FxHashSet::default();
    // (rank, parent, move) of the children kept so far: the children
    // themselves are made again for the few selected, which costs less
    // than moving every child's position through the selection.
    let mut next: Vec<(i64, u32, P::Move)> = Vec::new();
    let mut made = Vec::new();
    while !level.is_empty() {
        if budget.is_some_and(Budget::stop) {
            break;
        }
        seen.clear();
        next.clear();
        for (i, pos) in level.iter().enumerate() {
            expansions += 1;
            kids.clear();
            expand(pos, &mut kids);
            for &(mv, child) in &kids {
                best_score = best_score.min(p.score(&child));
                if p.is_goal(&child) {
                    let mut line = vec![mv];
                    let mut at = i;
                    for l in links.iter().rev() {
                        let (parent, m) = l[at];
                        line.push(m);
                        at = parent as usize;
                    }
                    line.reverse();
                    return BeamResult {
                        line: Some(line),
                        expansions,
                        best_score,
                    };
                }
                if !p.cannot_reach_goal(&child) && seen.insert(key(&child)) {
                    // Random low bits break ties.
                    let noise = (rng.next_u64() & 255) as i64;
                    let r = rank(&child).saturating_mul(256).saturating_add(noise);
                    next.push((r, i as u32, mv));
                }
            }
        }
        if next.len() > width {
            next.select_nth_unstable_by(width, |a, b| b.0.cmp(&a.0));
            next.truncate(width);
        }
        links.push(next.iter().map(|e| (e.1, e.2)).collect());
        made.clear();
        made.extend(
            next.iter()
                .map(|e| p.play_unchecked(&level[e.1 as usize], e.2)),
        );
        std::mem::swap(&mut level, &mut made);
    }
    BeamResult {
        line: None,
        expansions,
        best_score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rules;

    /// Reach `target` from 0 by steps +1 or ×2 within 64 bits: a line of
    /// the form a beam finds, checked by replaying it.
    struct Climb {
        target: u64,
    }

    impl Rules for Climb {
        type Position = u64;
        type Move = bool;
        fn start(&self) -> u64 {
            1
        }
        fn for_each_move(&self, pos: &u64, mut f: impl FnMut(bool)) {
            if *pos < self.target {
                f(false);
                f(true);
            }
        }
        fn play_unchecked(&self, pos: &u64, double: bool) -> u64 {
            if double {
                pos * 2
            } else {
                pos + 1
            }
        }
    }

    impl Puzzle for Climb {
        fn score(&self, pos: &u64) -> u32 {
            self.target.abs_diff(*pos).min(u64::from(u32::MAX)) as u32
        }
        fn is_goal(&self, pos: &u64) -> bool {
            *pos == self.target
        }
        fn cannot_reach_goal(&self, pos: &u64) -> bool {
            *pos > self.target
        }
        fn score_bound(&self) -> u32 {
            0
        }
    }

    fn expand(c: &Climb) -> impl FnMut(&u64, &mut Vec<(bool, u64)>) + '_ {
        move |pos, out| c.for_each_move(pos, |m| out.push((m, c.play_unchecked(pos, m))))
    }

    #[test]
    fn a_found_line_replays_to_the_goal() {
        for target in [1u64, 2, 37, 1000, 123_457] {
            let c = Climb { target };
            let mut rng = Rng::new(target);
            let r = search(
                &c,
                &1,
                (8, None),
                expand(&c),
                |&x| x,
                |&x| x as i64,
                &mut rng,
            );
            let line = r.line.expect("a line");
            let end = line.iter().fold(1, |x, &m| c.play(&x, m).unwrap());
            assert_eq!(end, target);
            assert_eq!(r.best_score, 0);
            // At most `width` expansions a level.
            assert!(r.expansions <= 8 * line.len() as u64);
        }
    }

    #[test]
    fn a_goal_child_ends_the_search_whatever_its_rank_and_a_budget_stops_it() {
        // Ranked lowest-first with width 1, the beam only ever adds one,
        // but a goal child ends the search whatever its rank: 1 + 1 … 25,
        // then doubled to 50.
        let c = Climb { target: 50 };
        let mut rng = Rng::new(1);
        let r = search(
            &c,
            &1,
            (1, None),
            expand(&c),
            |&x| x,
            |&x| -(x as i64),
            &mut rng,
        );
        let line = r.line.expect("a line");
        assert_eq!(line.iter().filter(|&&d| d).count(), 1);
        assert_eq!(
            (line.len(), line.last(), r.expansions),
            (25, Some(&true), 25)
        );
        // A stop before the first level: no line, nothing expanded.
        let stop = Budget::time(std::time::Duration::ZERO);
        let r = search(
            &c,
            &1,
            (4, Some(&stop)),
            expand(&c),
            |&x| x,
            |&x| x as i64,
            &mut rng,
        );
        assert_eq!((r.line, r.expansions, r.best_score), (None, 0, 49));
        // Past the target from the start: every child is pruned.
        let c = Climb { target: 0 };
        let r = search(
            &c,
            &1,
            (4, None),
            expand(&c),
            |&x| x,
            |&x| x as i64,
            &mut rng,
        );
        assert_eq!((r.line, r.expansions), (None, 1));
    }
}
