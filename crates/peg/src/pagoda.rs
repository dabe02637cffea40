//! Pagoda functions: weights on holes such that no jump raises the total
//! weight of the pegs (for every jump a over b into c: w(a) + w(b) >= w(c)).
//! A position whose total is below the goal's can never reach the goal.
//!
//! Two sources:
//! - the classic one: Conway's "soldiers" pagoda, `σ^d` with `d` the
//!   distance to the goal hole and `σ` the golden ratio's inverse, made
//!   exact in integers as Fibonacci numbers `F(K - d)` (square boards with
//!   orthogonal jumps);
//! - derived ones for any board and goal: small integer linear programs
//!   (the constraints above, the goal's weight fixed to 1) that make the
//!   weights of one class of holes as small as possible.
//!
//! Every function is checked against every jump of the board before use.

use crate::board::{Board, Lattice};
use microlp::{ComparisonOp, OptimizationDirection, Problem};

/// A pagoda function on a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pagoda {
    /// Where it came from (for explanations).
    pub name: String,
    /// One weight per hole.
    pub weights: Vec<i64>,
}

impl Pagoda {
    /// Whether no jump of `board` raises the total.
    pub fn is_valid(&self, board: &Board) -> bool {
        self.weights.len() == board.holes()
            && board
                .jumps()
                .iter()
                .all(|j| self.weights[j.from] + self.weights[j.over] >= self.weights[j.to])
    }

    /// The total weight of pegs on `holes`.
    pub fn value(&self, holes: &mut dyn Iterator<Item = usize>) -> i64 {
        holes.map(|h| self.weights[h]).sum()
    }

    /// Draws the weights on the board's shape.
    pub fn draw(&self, board: &Board) -> String {
        let width = self
            .weights
            .iter()
            .map(|w| w.to_string().len())
            .max()
            .unwrap_or(1);
        let h = (0..board.holes())
            .map(|i| board.coords(i).1)
            .max()
            .unwrap_or(0)
            + 1;
        let w = (0..board.holes())
            .map(|i| board.coords(i).0)
            .max()
            .unwrap_or(0)
            + 1;
        let mut out = String::new();
        for y in 0..h {
            let mut line = String::new();
            for x in 0..w {
                match board.hole_at(x, y) {
                    Some(i) => line.push_str(&format!("{:>width$}", self.weights[i])),
                    None => line.push_str(&" ".repeat(width)),
                }
                line.push(' ');
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

fn fibonacci(n: usize) -> i64 {
    let (mut a, mut b) = (0i64, 1i64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Conway's soldiers pagoda towards `goal`, in Fibonacci integers; `None`
/// on boards where it does not apply (triangular, diagonal jumps).
pub fn conway(board: &Board, goal: usize) -> Option<Pagoda> {
    if board.lattice() != Lattice::Square || board.diagonal() {
        return None;
    }
    let (gx, gy) = board.coords(goal);
    let dist: Vec<usize> = (0..board.holes())
        .map(|h| {
            let (x, y) = board.coords(h);
            ((x - gx).abs() + (y - gy).abs()) as usize
        })
        .collect();
    let k = dist.iter().max().copied().unwrap_or(0) + 2;
    let p = Pagoda {
        name: format!("Conway's soldiers towards {}", board.hole_name(goal)),
        weights: dist.iter().map(|&d| fibonacci(k - d)).collect(),
    };
    p.is_valid(board).then_some(p)
}

/// A pagoda with `w(goal) = 1` minimising `Σ objective[h] · w(h)` over
/// integer weights in `-1..=4`, by linear programming.
pub fn derive(board: &Board, goal: usize, objective: &[f64], name: &str) -> Option<Pagoda> {
    let mut lp = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<_> = (0..board.holes())
        .map(|h| {
            if h == goal {
                lp.add_integer_var(objective[h], (1, 1))
            } else {
                lp.add_integer_var(objective[h], (-1, 4))
            }
        })
        .collect();
    let mut lines: Vec<(usize, usize, usize)> = board
        .jumps()
        .iter()
        .map(|j| (j.from, j.over, j.to))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    for (a, b, c) in lines {
        lp.add_constraint(
            [(vars[a], 1.0), (vars[b], 1.0), (vars[c], -1.0)],
            ComparisonOp::Ge,
            0.0,
        );
    }
    let solution = lp.solve().ok()?.into_solution().ok()?;
    let weights = vars
        .iter()
        .map(|&v| solution.var_value(v).round() as i64)
        .collect();
    let p = Pagoda {
        name: name.to_string(),
        weights,
    };
    p.is_valid(board).then_some(p)
}

/// The pagoda functions used to prune towards a single goal hole: the
/// classic one where it applies and one derived per class of holes
/// (holes related by a symmetry that fixes the goal). Useless ones (that
/// give the full board no more than the goal) are dropped.
pub fn for_goal(board: &Board, goal: usize) -> Vec<Pagoda> {
    let mut out: Vec<Pagoda> = conway(board, goal).into_iter().collect();
    let fixing: Vec<&Vec<usize>> = board
        .symmetries()
        .iter()
        .filter(|s| s[goal] == goal)
        .collect();
    let mut seen = vec![false; board.holes()];
    for h in 0..board.holes() {
        if seen[h] || h == goal {
            continue;
        }
        let class: Vec<usize> = {
            let mut c: Vec<usize> = fixing.iter().map(|s| s[h]).collect();
            c.sort_unstable();
            c.dedup();
            c
        };
        for &c in &class {
            seen[c] = true;
        }
        let objective: Vec<f64> = (0..board.holes())
            .map(|i| if class.contains(&i) { 1.0 } else { 0.05 })
            .collect();
        let name = format!("derived (class of {})", board.hole_name(h));
        if let Some(p) = derive(board, goal, &objective, &name) {
            if !out.iter().any(|q| q.weights == p.weights) {
                out.push(p);
            }
        }
    }
    let goal_value = |p: &Pagoda| p.weights[goal];
    out.retain(|p| {
        p.weights.iter().sum::<i64>() > goal_value(p) || p.weights.iter().any(|&w| w < 0)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conway_pagoda_is_valid_on_square_boards() {
        for name in ["english", "french", "wiegleb", "diamond"] {
            let b = Board::named(name, false).unwrap();
            let g = b.centre().unwrap();
            let p = conway(&b, g).expect("applies");
            assert!(p.is_valid(&b), "{name}");
        }
        let t = Board::named("triangle", false).unwrap();
        assert!(conway(&t, 0).is_none());
    }

    #[test]
    fn an_invalid_pagoda_is_detected() {
        let b = Board::named("english", false).unwrap();
        let mut w = vec![0; b.holes()];
        w[b.hole("d4").unwrap()] = 1;
        assert!(!Pagoda {
            name: "x".into(),
            weights: w
        }
        .is_valid(&b));
    }

    #[test]
    fn derived_pagodas_are_valid_for_every_board_and_goal() {
        for name in ["english", "triangle"] {
            let b = Board::named(name, false).unwrap();
            for g in [0, b.holes() / 2] {
                let ps = for_goal(&b, g);
                assert!(!ps.is_empty(), "{name} goal {g}");
                for p in ps {
                    assert!(p.is_valid(&b), "{name}: {}", p.name);
                    assert_eq!(
                        p.weights[g],
                        if p.name.starts_with("Conway") {
                            p.weights[g]
                        } else {
                            1
                        }
                    );
                }
            }
        }
    }
}
