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
//!
//! The linear programs grow fast with the board (one per class of holes;
//! about 0.2 s each on a 12×10 board, where no symmetry fixes the goal),
//! so the derived functions of a board and goal are kept in a bounded
//! process-wide cache, and a caller with a deadline gets what is ready by
//! then: a program cut short gives its best feasible weights (still a
//! valid pagoda, only a weaker one), and later callers carry on with the
//! classes not yet tried.

use crate::board::{Board, Lattice};
use microlp::{ComparisonOp, OptimizationDirection, Problem};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

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
    derive_within(board, goal, objective, name, None).0
}

/// The integer program of a pagoda on `board`: one integer weight a
/// hole in `range`, the goal's fixed at `goal_weight`, no jump raising
/// the total (`w(from) + w(over) >= w(to)` for every line of three),
/// minimising `Σ objective[h] · w(h)`.
fn program(
    board: &Board,
    goal: usize,
    objective: &[f64],
    range: (i32, i32),
    goal_weight: i32,
) -> (Problem, Vec<microlp::Variable>) {
    let mut lp = Problem::new(OptimizationDirection::Minimize);
    let vars: Vec<_> = (0..board.holes())
        .map(|h| match h == goal {
            true => lp.add_integer_var(objective[h], (goal_weight, goal_weight)),
            false => lp.add_integer_var(objective[h], range),
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
    (lp, vars)
}

/// [`derive`] within `limit`: the pagoda (the best found if the program
/// was cut short) and whether it is the optimum.
fn derive_within(
    board: &Board,
    goal: usize,
    objective: &[f64],
    name: &str,
    limit: Option<Duration>,
) -> (Option<Pagoda>, bool) {
    let (mut lp, vars) = program(board, goal, objective, (-1, 4), 1);
    if let Some(limit) = limit {
        lp.set_time_limit(limit);
    }
    let Ok(outcome) = lp.solve() else {
        // Infeasible or failed: nothing more to learn from this class.
        return (None, true);
    };
    let Ok(solution) = outcome.into_solution() else {
        // Cut short before any feasible point.
        return (None, false);
    };
    let optimal = solution.status() == microlp::SolutionStatus::Optimal;
    let weights = vars
        .iter()
        .map(|&v| solution.var_value(v).round() as i64)
        .collect();
    let p = Pagoda {
        name: name.to_string(),
        weights,
    };
    (p.is_valid(board).then_some(p), optimal)
}

/// Pagoda functions of the English central game (goal `d4`), hole by
/// hole in the board's order, found offline by [`separating`] on a sample
/// of the middle layer (`examples/pagoda_derive.rs`, 12 rounds of 20
/// programs; weights divided by their common factor 15). Alone they
/// leave 1,686,896 of the middle layer's 2,598,215 positions (230,230
/// reach the goal); with the classic and derived ones 1,655,600, against
/// 2,222,570 with those alone, and the goal-only count visits 5.2
/// million positions instead of 7.1 million. Checked like any other
/// function before use.
const ENGLISH_CENTRAL: [[i8; 33]; 12] = [
    [
        -2, 0, -2, 2, 2, 2, -2, 2, 0, 2, 0, 2, -2, 0, 2, 2, 4, 2, 2, 0, -2, 2, 0, 2, 0, 2, -2, 2,
        2, 2, -2, 0, -2,
    ],
    [
        0, 0, 0, 0, 2, 0, -2, 2, 0, 2, 0, 2, -2, 0, 4, 0, 4, 0, 4, 0, -2, 2, 0, 2, 0, 2, -2, 0, 2,
        0, 0, 0, 0,
    ],
    [
        -2, 0, -2, 2, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 4, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 2,
        -2, 0, -2,
    ],
    [
        -2, 2, 0, 2, 2, 0, -2, 2, 0, 2, 0, 2, -2, 0, 2, 2, 4, 0, 4, 0, -2, 2, 0, 2, 0, 2, -2, 2, 2,
        0, -2, 2, 0,
    ],
    [
        0, 0, 0, 0, 2, 0, -2, 2, 0, 2, 0, 2, -2, 0, 4, 0, 4, 0, 4, 0, -2, 4, 0, 4, 0, 4, -2, 0, 0,
        0, 0, 4, 0,
    ],
    [
        0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0,
        -2, 2, 0,
    ],
    [
        0, 2, -2, 0, 2, 2, -2, 2, 0, 2, 0, 2, -2, 0, 4, 0, 4, 2, 2, 0, -2, 2, 0, 2, 0, 2, -2, 0, 2,
        2, 0, 0, 0,
    ],
    [
        0, 2, -2, 0, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2,
        0, 0, 0,
    ],
    [
        0, 0, 0, 1, 2, 0, -2, 3, 1, 2, 0, 2, -2, 0, 2, 2, 4, 0, 4, 0, -2, 2, 0, 2, 0, 2, -2, 2, 2,
        0, -2, 2, 0,
    ],
    [
        -2, 0, -2, 2, 2, 2, -2, 2, 0, 2, 0, 2, -2, 0, 2, 2, 4, 2, 2, 0, -2, 4, 0, 4, 0, 4, -2, 2,
        0, 2, -2, 4, -2,
    ],
    [
        0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0, 4, 0, 4, 0, -2, 2, 0, 2, 0, 2, 0, 0, 2, 0,
        0, 0, 0,
    ],
    [
        -2, 2, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 0,
        -2, 2, 0,
    ],
];

/// The functions found offline for a board and goal (the cache's
/// `key`: the board's shape, not its name, so a drawn copy of the board
/// gets them too), where there are some (see [`ENGLISH_CENTRAL`]).
fn known(board: &Board, key: &Key) -> Vec<Pagoda> {
    static ENGLISH: OnceLock<Option<Key>> = OnceLock::new();
    let english = ENGLISH.get_or_init(|| {
        let b = Board::named("english", false).ok()?;
        Some(Key::of(&b, b.hole_at(3, 3)?))
    });
    if english.as_ref() != Some(key) {
        return Vec::new();
    }
    ENGLISH_CENTRAL
        .iter()
        .enumerate()
        .map(|(i, w)| Pagoda {
            name: format!("separating {i} (English central)"),
            weights: w.iter().map(|&x| x as i64).collect(),
        })
        .filter(|p| p.is_valid(board))
        .collect()
}

/// Pagodas that rule out positions of a sample, chosen greedily: each
/// round solves, for up to `tries` positions of `sample` not yet ruled
/// out, the integer program that makes that position's total as small as
/// possible (weights in `-30..=60`, the goal's fixed at 60), and keeps
/// the function that rules out the most of the sample; `rounds` rounds.
/// No function is kept that rules out a position of `keep` (positions
/// known to reach the goal: a valid pagoda never does, so this is a
/// check). Offline work: each program takes milliseconds.
pub fn separating(
    board: &Board,
    goal: usize,
    sample: &[Vec<usize>],
    keep: &[Vec<usize>],
    rounds: usize,
    tries: usize,
) -> Vec<Pagoda> {
    const LOW: i32 = -30;
    const HIGH: i32 = 60;
    let total = |w: &[i64], pos: &[usize]| pos.iter().map(|&h| w[h]).sum::<i64>();
    let solve = |pos: &[usize]| -> Option<Vec<i64>> {
        let objective: Vec<f64> = (0..board.holes())
            .map(|h| if pos.contains(&h) { 1.0 } else { 0.0 })
            .collect();
        let (lp, vars) = program(board, goal, &objective, (LOW, HIGH), HIGH);
        let s = lp.solve().ok()?.into_solution().ok()?;
        let w: Vec<i64> = vars
            .iter()
            .map(|&v| s.var_value(v).round() as i64)
            .collect();
        (total(&w, pos) < HIGH as i64).then_some(w)
    };
    let mut alive: Vec<bool> = vec![true; sample.len()];
    let mut hopeless: Vec<bool> = vec![false; sample.len()];
    let mut out = Vec::new();
    let mut next = 0x9E37_79B9_7F4A_7C15u64;
    for round in 0..rounds {
        let open: Vec<usize> = (0..sample.len())
            .filter(|&i| alive[i] && !hopeless[i])
            .collect();
        if open.is_empty() {
            break;
        }
        let mut best: Option<(usize, Vec<i64>)> = None;
        for _ in 0..tries.min(open.len()) {
            next ^= next << 13;
            next ^= next >> 7;
            next ^= next << 17;
            let i = open[(next % open.len() as u64) as usize];
            let Some(w) = solve(&sample[i]) else {
                hopeless[i] = true;
                continue;
            };
            let covers = (0..sample.len())
                .filter(|&j| alive[j] && total(&w, &sample[j]) < HIGH as i64)
                .count();
            if best.as_ref().is_none_or(|b| covers > b.0) {
                best = Some((covers, w));
            }
        }
        let Some((_, weights)) = best else {
            continue;
        };
        let p = Pagoda {
            name: format!("separating {round}"),
            weights,
        };
        if !p.is_valid(board) || keep.iter().any(|k| total(&p.weights, k) < HIGH as i64) {
            continue;
        }
        for (j, a) in alive.iter_mut().enumerate() {
            *a &= total(&p.weights, &sample[j]) >= HIGH as i64;
        }
        out.push(p);
    }
    out
}

/// The derived pagodas of one board and goal, class by class, as far as
/// they have been computed.
#[derive(Clone)]
struct Derived {
    /// The classes of holes, in the order they are tried.
    classes: Vec<Vec<usize>>,
    /// Per class: the pagoda found (if any) and whether it is final (the
    /// optimum, or none exists); `None`: not tried yet.
    found: Vec<Option<(Option<Pagoda>, bool)>>,
}

/// A board and goal, as the cache knows them.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    lattice: Lattice,
    diagonal: bool,
    cells: Vec<(i32, i32)>,
    goal: usize,
}

impl Key {
    fn of(board: &Board, goal: usize) -> Key {
        Key {
            lattice: board.lattice(),
            diagonal: board.diagonal(),
            cells: (0..board.holes()).map(|h| board.coords(h)).collect(),
            goal,
        }
    }
}

/// Most boards and goals the cache keeps (at 120 holes and one pagoda per
/// class, an entry holds about 0.1 MB).
const CACHE_ENTRIES: usize = 256;

fn cache() -> &'static Mutex<HashMap<Key, Derived>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Derived>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<Key, Derived>> {
    // A panic elsewhere leaves the cache consistent: entries are replaced
    // whole.
    cache().lock().unwrap_or_else(|e| e.into_inner())
}

/// The classes of holes other than `goal` under the symmetries that fix
/// `goal`.
fn classes(board: &Board, goal: usize) -> Vec<Vec<usize>> {
    let fixing: Vec<&Vec<usize>> = board
        .symmetries()
        .iter()
        .filter(|s| s[goal] == goal)
        .collect();
    let mut seen = vec![false; board.holes()];
    let mut out = Vec::new();
    for h in 0..board.holes() {
        if seen[h] || h == goal {
            continue;
        }
        let mut c: Vec<usize> = fixing.iter().map(|s| s[h]).collect();
        c.sort_unstable();
        c.dedup();
        for &x in &c {
            seen[x] = true;
        }
        out.push(c);
    }
    out
}

/// The pagoda functions used to prune towards a single goal hole: the
/// classic one where it applies and one derived per class of holes
/// (holes related by a symmetry that fixes the goal). Useless ones (that
/// give the full board no more than the goal) are dropped.
pub fn for_goal(board: &Board, goal: usize) -> Vec<Pagoda> {
    for_goal_until(board, goal, None)
}

/// [`for_goal`] with what is ready by `deadline` (everything when `None`):
/// the classes already derived, by this call or an earlier one, and those
/// the time allows.
pub fn for_goal_until(board: &Board, goal: usize, deadline: Option<Instant>) -> Vec<Pagoda> {
    let key = Key::of(board, goal);
    let shipped = known(board, &key);
    let mut d = lock().get(&key).cloned().unwrap_or_else(|| {
        let classes = classes(board, goal);
        Derived {
            found: vec![None; classes.len()],
            classes,
        }
    });
    let mut changed = false;
    for i in 0..d.classes.len() {
        let settled = match &d.found[i] {
            Some((_, final_)) => *final_ || deadline.is_some(),
            None => false,
        };
        if settled {
            continue;
        }
        let limit = match deadline {
            Some(t) => match t.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => break,
            },
            None => None,
        };
        let class = &d.classes[i];
        let objective: Vec<f64> = (0..board.holes())
            .map(|h| if class.contains(&h) { 1.0 } else { 0.05 })
            .collect();
        let name = format!("derived (class of {})", board.hole_name(class[0]));
        d.found[i] = Some(derive_within(board, goal, &objective, &name, limit));
        changed = true;
    }
    if changed {
        let mut c = lock();
        if c.len() >= CACHE_ENTRIES && !c.contains_key(&key) {
            c.clear();
        }
        // Another caller may have settled classes meanwhile: keep the
        // further of the two per class.
        let entry = c.entry(key).or_insert_with(|| d.clone());
        for (mine, theirs) in d.found.iter_mut().zip(&mut entry.found) {
            let better = |a: &Option<(Option<Pagoda>, bool)>,
                          b: &Option<(Option<Pagoda>, bool)>| {
                matches!(
                    (a, b),
                    (Some(_), None) | (Some((_, true)), Some((_, false)))
                )
            };
            if better(mine, theirs) {
                *theirs = mine.clone();
            } else if better(theirs, mine) {
                *mine = theirs.clone();
            }
        }
    }
    let mut out: Vec<Pagoda> = conway(board, goal).into_iter().collect();
    let derived = d.found.into_iter().flatten().filter_map(|(p, _)| p);
    for p in derived.chain(shipped) {
        if !out.iter().any(|q| q.weights == p.weights) {
            out.push(p);
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
                    if p.name.starts_with("derived") {
                        assert_eq!(p.weights[g], 1);
                    }
                }
            }
        }
    }

    fn square(w: usize, h: usize) -> Board {
        let art: String = (0..h).map(|_| "o".repeat(w) + "\n").collect();
        Board::from_art("square", &art, false).unwrap()
    }

    #[test]
    fn a_passed_deadline_gives_only_what_is_ready_and_later_calls_finish() {
        // A board no other test uses, so the cache starts empty for it.
        let b = square(5, 7);
        let goal = 3;
        let quick = for_goal_until(&b, goal, Some(Instant::now()));
        // Nothing was derived in no time: only the classic pagoda.
        assert!(quick.iter().all(|p| p.name.starts_with("Conway")));
        let all = for_goal(&b, goal);
        assert!(all.len() > quick.len());
        for p in &all {
            assert!(p.is_valid(&b), "{}", p.name);
        }
        // Now everything is cached: a deadline in the past gets it all.
        assert_eq!(for_goal_until(&b, goal, Some(Instant::now())), all);
    }

    #[test]
    fn a_program_cut_short_still_gives_a_valid_pagoda_or_none() {
        let b = square(10, 10);
        let objective: Vec<f64> = (0..b.holes())
            .map(|h| if h == 1 { 1.0 } else { 0.05 })
            .collect();
        let (p, optimal) = derive_within(&b, 0, &objective, "cut", Some(Duration::from_millis(1)));
        if let Some(p) = p {
            assert!(p.is_valid(&b));
            assert_eq!(p.weights[0], 1);
        }
        // The full program takes far longer than a millisecond here.
        assert!(!optimal);
    }

    #[test]
    fn the_english_central_functions_apply_to_that_problem_only() {
        let b = Board::named("english", false).unwrap();
        let d4 = b.hole("d4").unwrap();
        let found = known(&b, &Key::of(&b, d4));
        assert_eq!(found.len(), ENGLISH_CENTRAL.len());
        assert!(found.iter().all(|p| p.is_valid(&b)));
        // Each rules out something the full board's total does not.
        assert!(found.iter().all(|p| p.weights.iter().any(|&w| w < 0)));
        assert!(known(&b, &Key::of(&b, b.hole("c4").unwrap())).is_empty());
        for other in [Board::named("french", false), Board::named("english", true)] {
            let other = other.unwrap();
            assert!(known(&other, &Key::of(&other, d4)).is_empty());
        }
        let names: Vec<String> = for_goal(&b, d4).into_iter().map(|p| p.name).collect();
        assert!(names.iter().any(|n| n.contains("English central")));
    }

    #[test]
    fn separating_functions_are_valid_and_rule_out_sampled_positions() {
        // Positions of the English board after nine random jumps from the
        // central start; none is known to reach the goal, so `keep` holds
        // the start only (which does).
        let b = Board::named("english", false).unwrap();
        let d4 = b.hole("d4").unwrap();
        let mut next = 7u64;
        let mut sample = Vec::new();
        while sample.len() < 300 {
            let mut pegs = vec![true; b.holes()];
            pegs[d4] = false;
            for _ in 0..9 {
                let legal: Vec<_> = b
                    .jumps()
                    .iter()
                    .filter(|j| pegs[j.from] && pegs[j.over] && !pegs[j.to])
                    .collect();
                next ^= next << 13;
                next ^= next >> 7;
                next ^= next << 17;
                let Some(&j) = legal.get((next % legal.len().max(1) as u64) as usize) else {
                    break;
                };
                pegs[j.from] = false;
                pegs[j.over] = false;
                pegs[j.to] = true;
            }
            sample.push((0..b.holes()).filter(|&h| pegs[h]).collect::<Vec<_>>());
        }
        let start: Vec<usize> = (0..b.holes()).filter(|&h| h != d4).collect();
        let found = separating(&b, d4, &sample, std::slice::from_ref(&start), 4, 5);
        assert!(!found.is_empty());
        for p in &found {
            assert!(p.is_valid(&b));
            let total = |pos: &[usize]| pos.iter().map(|&h| p.weights[h]).sum::<i64>();
            assert!(total(&start) >= p.weights[d4]);
            assert!(sample.iter().any(|s| total(s) < p.weights[d4]));
        }
    }
}
