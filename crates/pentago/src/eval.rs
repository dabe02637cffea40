//! Evaluations: the board score of Pinton and de Carvalho's slides (runs
//! of 2 to 5 in lines), and the line count of the `strong` player.

use crate::board::{bit_index, can_win, LINES};

/// The slides' score of a run of `n` equal stones: `10^(3n)`.
const fn run_score(n: usize) -> i64 {
    let mut v = 1i64;
    let mut i = 0;
    while i < 3 * n {
        v *= 10;
        i += 1;
    }
    v
}

/// The slides' adjustment for a five-cell window of four against one.
const FOUR_AGAINST_ONE: i64 = 100_000_000_000_000;

/// The `evaluate_board` of Pinton and de Carvalho's slides (*Programming
/// Pentago with Matlab*) for `player` (stones `mine`) against `theirs`, as
/// the slides describe it: from every stone, in each of the four directions
/// (row, column, two diagonals), the longest run of 5, 4, 3 or 2 equal
/// stones starting there scores `10^(3·length)` for its owner, and its
/// cells are marked for that direction so that the runs inside it are not
/// counted again; a five-cell window with four of the player's stones and
/// one of the opponent's adds `10^14`, the reverse subtracts it. The result
/// is the player's total minus the opponent's, plus those adjustments.
pub fn reference_evaluate(mine: u64, theirs: u64) -> i64 {
    let mut cell = [[0u8; 6]; 6];
    for (x, col) in cell.iter_mut().enumerate() {
        for (y, c) in col.iter_mut().enumerate() {
            let b = bit_index(x, y);
            *c = if mine >> b & 1 == 1 {
                1
            } else if theirs >> b & 1 == 1 {
                2
            } else {
                0
            };
        }
    }
    const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
    let mut detected = [[0u8; 6]; 6];
    let mut scores = [0i64; 3];
    let mut value = 0i64;
    for x in 0..6i32 {
        for y in 0..6i32 {
            let s = cell[x as usize][y as usize];
            if s == 0 {
                continue;
            }
            for (d, &(dx, dy)) in DIRS.iter().enumerate() {
                let flag = 1u8 << d;
                for len in (2..=5i32).rev() {
                    if detected[x as usize][y as usize] & flag != 0 {
                        break;
                    }
                    let (ex, ey) = (x + (len - 1) * dx, y + (len - 1) * dy);
                    if !(0..6).contains(&ex) || !(0..6).contains(&ey) {
                        continue;
                    }
                    let run = (0..len).map(|k| cell[(x + k * dx) as usize][(y + k * dy) as usize]);
                    if run.clone().all(|c| c == s) {
                        scores[s as usize] += run_score(len as usize);
                        for k in 0..len {
                            detected[(x + k * dx) as usize][(y + k * dy) as usize] |= flag;
                        }
                    } else if len == 5 {
                        let mine_n = run.clone().filter(|&c| c == 1).count();
                        let theirs_n = run.filter(|&c| c == 2).count();
                        if mine_n == 4 && theirs_n == 1 {
                            value += FOUR_AGAINST_ONE;
                        } else if mine_n == 1 && theirs_n == 4 {
                            value -= FOUR_AGAINST_ONE;
                        }
                    }
                }
            }
        }
    }
    value + scores[1] - scores[2]
}

/// Score of the `strong` player's evaluation for an open line holding `n`
/// stones of one colour.
const LINE_WEIGHT: [i32; 6] = [0, 1, 5, 30, 200, 0];

/// The `strong` player's static score for the player to move (stones
/// `mine`, placement due): open lines weighted by how full they are, and a
/// near-win score when the mover wins this turn.
pub fn strong_evaluate(mine: u64, theirs: u64) -> i32 {
    if can_win(mine, theirs) {
        return 100_000;
    }
    lines_score(mine, theirs)
}

/// Open lines of `mine` minus open lines of `theirs`, weighted.
#[inline]
pub fn lines_score(mine: u64, theirs: u64) -> i32 {
    let mut s = 0;
    for &l in &LINES {
        let (a, b) = ((mine & l).count_ones(), (theirs & l).count_ones());
        if b == 0 {
            s += LINE_WEIGHT[a as usize];
        }
        if a == 0 {
            s -= LINE_WEIGHT[b as usize];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_scores_runs_by_their_longest_length() {
        // Three black stones in a row along the bottom: one run of three
        // (10^9), the two-runs inside it not counted again.
        let three = (0..3).fold(0u64, |b, x| b | 1 << bit_index(x, 0));
        assert_eq!(reference_evaluate(three, 0), run_score(3));
        assert_eq!(reference_evaluate(0, three), -run_score(3));
        // Two separate pairs (column and row) score 2·10^6.
        let pairs = 1 << bit_index(5, 5)
            | 1 << bit_index(5, 4)
            | 1 << bit_index(0, 3)
            | 1 << bit_index(1, 3);
        assert_eq!(reference_evaluate(pairs, 0), 2 * run_score(2));
    }
}
