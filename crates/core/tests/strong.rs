//! The strong/weak solver of `endgame_core::strong` on tic-tac-toe, written
//! here from scratch, against the published counts (5478 legal positions,
//! 765 up to the 8 symmetries of the square, 138 terminal ones of which 91
//! won by X, 44 by O and 3 drawn) and a plain minimax.

mod common;

use common::{symmetries, Ttt};
use endgame_core::strong::{self, Keyed, Packed};
use endgame_core::{Game, Outcome, Rules, Value};
use std::collections::HashMap;

impl Keyed for Ttt {
    fn canonical_key(&self, p: &(u16, u16)) -> (u16, u16) {
        if !self.symmetric {
            return *p;
        }
        let map = |m: u16, s: &[usize; 9]| {
            (0..9)
                .filter(|c| m >> c & 1 == 1)
                .fold(0u16, |a, c| a | 1 << s[c])
        };
        symmetries()
            .iter()
            .map(|s| (map(p.0, s), map(p.1, s)))
            .min()
            .unwrap()
    }
    fn move_number(&self, p: &(u16, u16)) -> usize {
        (p.0 | p.1).count_ones() as usize
    }
}

/// Plain minimax with remoteness, no memo, no symmetry.
fn minimax(g: &Ttt, p: &(u16, u16), memo: &mut HashMap<(u16, u16), Outcome>) -> Outcome {
    if let Some(&o) = memo.get(p) {
        return o;
    }
    let o = match g.outcome(p) {
        Some(v) => Outcome {
            value: v,
            remoteness: (v != Value::Draw).then_some(0),
        },
        None => {
            let mut best: Option<Outcome> = None;
            for m in g.moves(p) {
                let mine = Outcome::parent_of(minimax(g, &g.play_unchecked(p, m), memo));
                if best.is_none_or(|b| mine.better_than(&b)) {
                    best = Some(mine);
                }
            }
            best.unwrap()
        }
    };
    memo.insert(*p, o);
    o
}

#[test]
fn tic_tac_toe_counts_match_the_published_ones() {
    let raw = strong::strong_solve(&Ttt { symmetric: false });
    assert_eq!(raw.total.positions, 5478);
    assert_eq!(raw.total.terminals, 958);
    let sym = strong::strong_solve(&Ttt { symmetric: true });
    assert_eq!(sym.total.positions, 765);
    let per_move: Vec<u64> = sym.layers.iter().map(|l| l.positions).collect();
    assert_eq!(per_move, [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]);
    assert_eq!(sym.total.terminals, 138);
    // Terminal positions: 91 + 44 won by the last mover, 3 drawn.
    let drawn_terminals: u64 = sym.layers[9].draws;
    assert_eq!(drawn_terminals, 3);
    // After an odd number of moves X moved last: its terminals are X's
    // wins, plus the drawn full boards of move 9.
    let x_ended: u64 = (0..10)
        .filter(|m| m % 2 == 1)
        .map(|m| sym.layers[m].terminals)
        .sum();
    let o_won: u64 = (0..10)
        .filter(|m| m % 2 == 0)
        .map(|m| sym.layers[m].terminals)
        .sum();
    assert_eq!((x_ended - drawn_terminals, o_won), (91, 44));
    assert_eq!(sym.get(&sym.root).unwrap().value, Value::Draw);
}

#[test]
fn strong_solution_agrees_with_plain_minimax_and_is_consistent() {
    let g = Ttt { symmetric: true };
    let sym = strong::strong_solve(&g);
    strong::check_consistency(&g, &sym).unwrap();
    let plain = Ttt { symmetric: false };
    let mut memo = HashMap::new();
    minimax(&plain, &plain.start(), &mut memo);
    assert_eq!(memo.len(), 5478);
    for (p, o) in &memo {
        assert_eq!(sym.get(&g.canonical_key(p)), Some(*o), "{p:?}");
    }
}

#[test]
fn the_consistency_check_catches_corruption() {
    let g = Ttt { symmetric: true };
    let good = strong::strong_solve(&g);
    // Flip the value of each of a few non-terminal positions in turn.
    let mut keys: Vec<_> = good
        .table
        .keys()
        .filter(|k| g.outcome(k).is_none())
        .copied()
        .collect();
    keys.sort();
    for k in keys.iter().step_by(37) {
        let mut bad = good.clone();
        let o = bad.get(k).unwrap();
        let wrong = Outcome {
            value: if o.value == Value::Win {
                Value::Loss
            } else {
                Value::Win
            },
            remoteness: o.remoteness.or(Some(1)),
        };
        bad.table.insert(*k, Packed::new(wrong));
        assert!(strong::check_consistency(&g, &bad).is_err(), "{k:?}");
        // A wrong remoteness is caught too.
        if let Some(r) = o.remoteness {
            let mut bad = good.clone();
            bad.table.insert(
                *k,
                Packed::new(Outcome {
                    value: o.value,
                    remoteness: Some(r + 2),
                }),
            );
            assert!(strong::check_consistency(&g, &bad).is_err(), "{k:?}");
        }
    }
    // A missing child is caught.
    let mut bad = good.clone();
    let leaf = *keys.last().unwrap();
    let child = g.canonical_key(&g.play_unchecked(&leaf, g.moves(&leaf)[0]));
    bad.table.remove(&child);
    assert!(strong::check_consistency(&g, &bad).is_err());
}

#[test]
fn weak_solve_and_lazy_best_moves() {
    for symmetric in [false, true] {
        let g = Ttt { symmetric };
        let w = strong::weak_solve(&g, &g.start());
        assert_eq!(w.value, Value::Draw);
        assert_eq!(w.stored, w.stored_per_round.iter().sum::<u64>());
        assert_eq!(w.stored_per_round[0], 1);
    }
    let g = Ttt { symmetric: true };
    let full = strong::strong_solve(&g);
    let mut table = Default::default();
    // X in a corner, O in the adjacent edge: X wins.
    let p = (0o001, 0o002);
    let (m, o) = strong::best_move(&g, &mut table, &p).unwrap();
    assert_eq!(o.value, Value::Win);
    assert_eq!(Some(o), full.get(&g.canonical_key(&p)));
    let child = g.play_unchecked(&p, m);
    assert_eq!(
        Outcome::parent_of(strong::solve_lazily(&g, &mut table, &child)),
        o
    );
    assert!(table.len() < full.table.len());
}
