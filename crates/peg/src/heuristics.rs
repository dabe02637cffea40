//! The heuristics of the peg-solitaire study (seed `003`) for best-first
//! search: lower is closer to the goal.

use crate::board::Board;
use crate::goal::Goal;

/// The study's weighted-cost table for the English board ("corners have
/// the lowest degree of freedom"): rows top to bottom, `-` no hole.
const ENGLISH_WEIGHTS: [&str; 7] = [
    "--404--", "--000--", "4030304", "0001000", "4030304", "--000--", "--404--",
];

/// Where the pegs should gather: the goal hole, or the board's centre (or
/// the centroid of the holes) when the goal is "one peg anywhere".
fn target(b: &Board, goal: &Goal) -> (f64, f64) {
    let hole = match goal {
        Goal::Pattern(h) if h.len() == 1 => Some(h[0]),
        _ => b.centre(),
    };
    match hole {
        Some(h) => {
            let (x, y) = b.coords(h);
            (x as f64, y as f64)
        }
        None => {
            let n = b.holes() as f64;
            let sx: i32 = (0..b.holes()).map(|i| b.coords(i).0).sum();
            let sy: i32 = (0..b.holes()).map(|i| b.coords(i).1).sum();
            (sx as f64 / n, sy as f64 / n)
        }
    }
}

/// Per-hole Manhattan distance (times 2, in integers) to the target.
pub fn manhattan_weights(b: &Board, goal: &Goal) -> Vec<i64> {
    let (tx, ty) = target(b, goal);
    (0..b.holes())
        .map(|h| {
            let (x, y) = b.coords(h);
            (2.0 * ((x as f64 - tx).abs() + (y as f64 - ty).abs())).round() as i64
        })
        .collect()
}

/// Per-hole weighted cost: the study's table on the English board; on
/// other boards the same idea derived from the board — holes that fewer
/// jumps can land on (corners) weigh more, the target hole weighs 1.
pub fn weighted_cost_weights(b: &Board, goal: &Goal) -> Vec<i64> {
    if b.name() == "english" && !b.diagonal() {
        return (0..b.holes())
            .map(|h| {
                let (x, y) = b.coords(h);
                let c = ENGLISH_WEIGHTS[y as usize].as_bytes()[x as usize];
                (c - b'0') as i64
            })
            .collect();
    }
    let landing: Vec<i64> = (0..b.holes())
        .map(|h| b.jumps().iter().filter(|j| j.to == h).count() as i64)
        .collect();
    let most = landing.iter().copied().max().unwrap_or(0);
    let goal = match goal {
        Goal::Pattern(h) if h.len() == 1 => Some(h[0]),
        _ => None,
    };
    (0..b.holes())
        .map(|h| {
            if Some(h) == goal {
                1
            } else {
                most - landing[h]
            }
        })
        .collect()
}
