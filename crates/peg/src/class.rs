//! Position classes: parity invariants that no jump can change.
//!
//! A jump empties two holes of a line of three and fills the third. For a
//! set `S` of holes meeting every line of three in an even number of holes
//! (0 or 2), the parity of the number of pegs on `S` never changes. These
//! sets are the null space, over GF(2), of the line/hole incidence matrix;
//! a basis is found by Gaussian elimination for any board. On the English
//! board the space has dimension 4 (the 16 classes of Beasley's book); on
//! the French board the same test proves the central game impossible —
//! the colouring argument of rec.puzzles quoted in the applet's document.

use crate::board::Board;

/// A basis of the parity invariants of a board.
#[derive(Clone, Debug)]
pub struct PositionClasses {
    /// Each invariant as the sorted list of its holes.
    pub invariants: Vec<Vec<usize>>,
}

impl PositionClasses {
    /// Computes a basis of the invariants of `board` (at most 64 kept).
    pub fn new(board: &Board) -> PositionClasses {
        let n = board.holes();
        // Rows: one per line of three (unordered), as a bitset over holes.
        let mut rows: Vec<u128> = board
            .jumps()
            .iter()
            .map(|j| (1u128 << j.from) | (1u128 << j.over) | (1u128 << j.to))
            .collect();
        rows.sort_unstable();
        rows.dedup();
        // Reduced row echelon form.
        let mut pivots: Vec<usize> = Vec::new();
        let mut r = 0;
        for col in 0..n {
            let Some(p) = (r..rows.len()).find(|&i| rows[i] >> col & 1 == 1) else {
                continue;
            };
            rows.swap(r, p);
            for i in 0..rows.len() {
                if i != r && rows[i] >> col & 1 == 1 {
                    rows[i] ^= rows[r];
                }
            }
            pivots.push(col);
            r += 1;
        }
        rows.truncate(r);
        // One basis vector per free column.
        let mut invariants = Vec::new();
        for free in (0..n).filter(|c| !pivots.contains(c)) {
            let mut v = 1u128 << free;
            for (i, &pc) in pivots.iter().enumerate() {
                if rows[i] >> free & 1 == 1 {
                    v |= 1u128 << pc;
                }
            }
            invariants.push((0..n).filter(|&h| v >> h & 1 == 1).collect());
            if invariants.len() == 64 {
                break;
            }
        }
        PositionClasses { invariants }
    }

    /// The class (one parity bit per invariant) of the pegs on `holes`.
    pub fn class_of(&self, holes: &mut dyn Iterator<Item = usize>) -> u64 {
        let mut count = vec![0u32; self.invariants.len()];
        for h in holes {
            for (k, inv) in self.invariants.iter().enumerate() {
                if inv.binary_search(&h).is_ok() {
                    count[k] += 1;
                }
            }
        }
        count
            .iter()
            .enumerate()
            .fold(0, |c, (k, &n)| c | (((n & 1) as u64) << k))
    }

    /// Why class `c` is none of `goal_classes`, in words.
    pub fn explain(&self, board: &Board, c: u64, goal_classes: &[u64]) -> String {
        let names = |k: usize| {
            self.invariants[k]
                .iter()
                .map(|&h| board.hole_name(h))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if goal_classes.len() == 1 {
            let k = (0..self.invariants.len())
                .find(|&k| (c ^ goal_classes[0]) >> k & 1 == 1)
                .expect("classes differ");
            let parity = |bit: u64| if bit & 1 == 1 { "odd" } else { "even" };
            format!(
                "position class: the number of pegs on holes {{{}}} is {} here but {} at the goal, and no jump changes its parity",
                names(k),
                parity(c >> k),
                parity(goal_classes[0] >> k)
            )
        } else {
            let bits = |x: u64| {
                (0..self.invariants.len())
                    .map(|k| if x >> k & 1 == 1 { '1' } else { '0' })
                    .collect::<String>()
            };
            let goals: Vec<String> = goal_classes.iter().map(|&g| bits(g)).collect();
            let sets: Vec<String> = (0..self.invariants.len())
                .map(|k| format!("{{{}}}", names(k)))
                .collect();
            format!(
                "position class: the parities of the pegs on the hole sets {} are {} here, but every goal has one of {}, and no jump changes them",
                sets.join(", "),
                bits(c),
                goals.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_has_sixteen_classes_and_invariants_meet_lines_evenly() {
        for (name, dim) in [("english", 4), ("french", 4)] {
            let b = Board::named(name, false).unwrap();
            let pc = PositionClasses::new(&b);
            assert_eq!(pc.invariants.len(), dim, "{name}");
            for inv in &pc.invariants {
                for j in b.jumps() {
                    let meets = [j.from, j.over, j.to]
                        .iter()
                        .filter(|h| inv.contains(h))
                        .count();
                    assert_eq!(meets % 2, 0, "{name}: invariant meets a line oddly");
                }
            }
        }
    }

    #[test]
    fn a_jump_never_changes_the_class() {
        let b = Board::named("french", false).unwrap();
        let pc = PositionClasses::new(&b);
        let full: Vec<usize> = (0..b.holes()).collect();
        for j in b.jumps() {
            let before: Vec<usize> = full.iter().copied().filter(|&h| h != j.to).collect();
            let after: Vec<usize> = full
                .iter()
                .copied()
                .filter(|&h| h != j.from && h != j.over)
                .collect();
            assert_eq!(
                pc.class_of(&mut before.into_iter()),
                pc.class_of(&mut after.into_iter())
            );
        }
    }
}
