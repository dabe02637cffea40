//! Alpha-beta on a toy game (tic-tac-toe) against plain minimax.

mod common;

use common::{Ttt, LINES};
use endgame_core::alphabeta::{AlphaBeta, Evaluator, Limits, WIN};
use endgame_core::{Game, Rules, Value};
use std::collections::HashMap;

fn mover(p: &(u16, u16)) -> (u16, u16) {
    if p.0.count_ones() == p.1.count_ones() {
        (p.0, p.1)
    } else {
        (p.1, p.0)
    }
}

/// A weak but legal evaluation: open lines for the mover minus the
/// opponent's.
struct Lines;

impl Evaluator<Ttt> for Lines {
    fn evaluate(&mut self, _: &Ttt, p: &(u16, u16)) -> i32 {
        let (m, t) = mover(p);
        LINES
            .iter()
            .map(|&l| (t & l == 0) as i32 - (m & l == 0) as i32)
            .sum()
    }
}

fn minimax(g: &Ttt, p: (u16, u16), memo: &mut HashMap<(u16, u16), i32>) -> i32 {
    if let Some(&v) = memo.get(&p) {
        return v;
    }
    let v = match g.outcome(&p) {
        Some(Value::Loss) => -1,
        Some(_) => 0,
        None => g
            .moves(&p)
            .into_iter()
            .map(|m| -minimax(g, g.play_unchecked(&p, m), memo))
            .max()
            .unwrap(),
    };
    memo.insert(p, v);
    v
}

fn all_positions(g: &Ttt) -> Vec<(u16, u16)> {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![g.start()];
    while let Some(p) = stack.pop() {
        if seen.insert(p) {
            for m in g.moves(&p) {
                stack.push(g.play_unchecked(&p, m));
            }
        }
    }
    seen.into_iter().collect()
}

#[test]
fn exact_solve_agrees_with_minimax_on_every_position() {
    let g = Ttt { symmetric: false };
    let mut memo = HashMap::new();
    let mut ab = AlphaBeta::new(12);
    let ps = all_positions(&g);
    assert_eq!(ps.len(), 5478);
    for p in ps {
        let want = match minimax(&g, p, &mut memo) {
            1 => Value::Win,
            0 => Value::Draw,
            _ => Value::Loss,
        };
        assert_eq!(ab.solve(&g, &p, None, None), want, "{p:?}");
    }
}

#[test]
fn deep_search_proves_wins_and_plays_a_keeping_move() {
    let g = Ttt { symmetric: false };
    let mut memo = HashMap::new();
    let mut ab = AlphaBeta::new(12);
    for p in all_positions(&g) {
        if g.outcome(&p).is_some() {
            continue;
        }
        let r = ab.search(&g, &p, &mut Lines, Limits::default());
        let want = minimax(&g, p, &mut memo);
        let best = r.best.unwrap();
        // The chosen move keeps the minimax value.
        assert_eq!(
            -minimax(&g, g.play_unchecked(&p, best), &mut memo),
            want,
            "{p:?}"
        );
        match want {
            1 => assert!(r.score > WIN - 100 && r.proven == Value::Win),
            -1 => assert!(r.score < -(WIN - 100) && r.proven == Value::Loss),
            _ => assert_eq!(r.score, 0),
        }
    }
}

#[test]
fn empty_board_is_a_draw_and_a_budget_gives_unknown() {
    let g = Ttt { symmetric: false };
    let mut ab = AlphaBeta::new(12);
    assert_eq!(ab.solve(&g, &g.start(), None, None), Value::Draw);
    ab.clear();
    assert_eq!(ab.solve(&g, &g.start(), None, Some(50)), Value::Unknown);
    let r = ab.search(
        &g,
        &g.start(),
        &mut Lines,
        Limits {
            max_depth: 2,
            ..Limits::default()
        },
    );
    assert_eq!(r.depth, 2);
    assert!(r.best.is_some());
}

#[test]
fn a_search_among_some_moves_chooses_the_best_of_those() {
    let g = Ttt { symmetric: false };
    let mut memo = HashMap::new();
    let mut ab = AlphaBeta::new(12);
    let mut restricted = 0;
    for p in all_positions(&g) {
        if g.outcome(&p).is_some() {
            continue;
        }
        let moves = g.moves(&p);
        // Every other move, so the best one is often left out.
        let allowed: Vec<_> = moves.iter().copied().step_by(2).collect();
        let r = ab.search_among(&g, &p, &mut Lines, Limits::default(), |m| {
            allowed.contains(m)
        });
        let best = r.best.unwrap();
        assert!(allowed.contains(&best), "{p:?}");
        // A full-depth search keeps the best value among the allowed moves.
        let mut value = |m| -minimax(&g, g.play_unchecked(&p, m), &mut memo);
        let want = allowed.iter().map(|&m| value(m)).max().unwrap();
        assert_eq!(value(best), want, "{p:?}");
        restricted += (want < minimax(&g, p, &mut memo)) as usize;
        // Allowing none of them searches every move.
        let r = ab.search_among(&g, &p, &mut Lines, Limits::default(), |_| false);
        assert!(moves.contains(&r.best.unwrap()));
    }
    // The restriction mattered somewhere: some positions lost value.
    assert!(restricted > 0);
}
