//! The service's solve, AI and requests (`api::solve`, `api::Ai`,
//! `api::position_after`), and the remoteness the analysis proves,
//! against brute force.

use endgame_core::budget::{Budget, Cancel};
use endgame_core::{Rules, Value};
use endgame_pentago::api::{self, Ai, Service};
use endgame_pentago::notation::{format_position, parse_move};
use endgame_pentago::solve::{self, Solver};
use endgame_pentago::{Pentago, Position};
use std::collections::HashMap;
use std::time::{Duration, Instant};

mod brute;
use brute::positions;

/// The value (1, 0, -1 for the player to move) and the distance to the
/// end in plies with the winner hurrying and the loser delaying, by plain
/// memoised minimax over the rules' moves.
fn distance(p: &Position, memo: &mut HashMap<Position, (i8, u32)>) -> (i8, u32) {
    if let Some(v) = p.outcome() {
        let n = match v {
            Value::Win => 1,
            Value::Loss => -1,
            _ => 0,
        };
        return (n, 0);
    }
    if let Some(&r) = memo.get(p) {
        return r;
    }
    let mut best: Option<(i8, u32)> = None;
    for m in Pentago.moves(p) {
        let (cv, cd) = distance(&Pentago.play_unchecked(p, m), memo);
        let this = (-cv, cd + 1);
        best = Some(match best {
            None => this,
            Some(b) if this.0 != b.0 => {
                if this.0 > b.0 {
                    this
                } else {
                    b
                }
            }
            // The same value: a win as fast, a loss as slow as possible.
            Some(b) if b.0 == 1 => (1, b.1.min(this.1)),
            Some(b) if b.0 == -1 => (-1, b.1.max(this.1)),
            Some(b) => b,
        });
    }
    let r = best.expect("an unfinished position has moves");
    memo.insert(*p, r);
    r
}

fn word(v: i8) -> Value {
    match v {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

#[test]
fn remoteness_where_given_is_the_true_distance() {
    // Late positions, every move decided: a move's remoteness, where the
    // analysis gives one, is the brute-force distance; where it gives
    // none, the distance is beyond what stage 1 proves (a win in 4 or
    // more, a loss in 5 or more).
    let service = Service::new();
    let ps: Vec<Position> = positions(30, 33, 17, 600).into_iter().take(300).collect();
    assert!(ps.len() >= 200, "{}", ps.len());
    let mut memo = HashMap::new();
    let mut by_remoteness: HashMap<u32, usize> = HashMap::new();
    for p in &ps {
        let text = format_position(p);
        let a = service.analyze(p, &Budget::time(Duration::from_secs(60)));
        for m in &a.moves {
            let child = Pentago.play_checked(p, parse_move(&m.mv).unwrap()).unwrap();
            let (cv, cd) = distance(&child, &mut memo);
            let (v, d) = (word(-cv), cd + 1);
            assert_eq!(m.value, Some(v), "{text} {}", m.mv);
            match (m.remoteness, v) {
                (Some(r), _) => {
                    assert_eq!(r, d, "{text} {}", m.mv);
                    *by_remoteness.entry(r).or_default() += 1;
                }
                (None, Value::Win) => assert!(d >= 4, "{text} {}: win in {d}", m.mv),
                (None, Value::Loss) => assert!(d >= 5, "{text} {}: loss in {d}", m.mv),
                _ => {}
            }
        }
        let (pv, pd) = distance(p, &mut memo);
        assert_eq!(a.value, Some(word(pv)), "{text}");
        match (a.remoteness, word(pv)) {
            (Some(r), _) => assert_eq!(r, pd, "{text}"),
            (None, Value::Win) => assert!(pd >= 4, "{text}: win in {pd}"),
            (None, Value::Loss) => assert!(a.moves.iter().any(|m| m.remoteness.is_none())),
            _ => {}
        }
    }
    // The short ends are exercised: wins in 2 or 3, losses in 3 or 4
    // (on this set 1: 1967 moves, 2: 7560, 3: 316, 4: 13).
    assert!(
        by_remoteness.contains_key(&3) && by_remoteness.contains_key(&4),
        "{by_remoteness:?}"
    );
}

#[test]
fn the_spec_rotation_is_solved_with_no_time_at_all() {
    // White to rotate: `ul cw` makes white's five at once. The solve
    // decides that child (and the two after which black wins at once)
    // whatever the budget, and its line is that rotation.
    let p = api::parse("205481007622539795m").unwrap();
    let t = Instant::now();
    let r = api::solve(&p, &Budget::time(Duration::ZERO));
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(r.to_move, "white");
    assert_eq!(
        (r.value, r.result, r.remoteness),
        (Some(1), Value::Win, Some(1))
    );
    assert_eq!(r.line, ["ul cw"]);
    assert!(r.line_complete);
    let kids = &r.children.0;
    assert_eq!(kids.len(), 8);
    let ul_cw = kids.iter().find(|c| c.by == "ul cw").unwrap();
    assert_eq!(ul_cw.position, "205481007305345555");
    // For black, to move there: lost, the game over.
    assert_eq!(ul_cw.value, Value::Loss);
    for by in ["ul ccw", "lr cw"] {
        let c = kids.iter().find(|c| c.by == by).unwrap();
        assert_eq!(c.value, Value::Win, "{by}");
    }
    // The rules' order: ll cw, ll ccw, ul cw, …
    let order: Vec<&str> = kids.iter().map(|c| c.by.as_str()).collect();
    assert_eq!(
        order,
        ["ll cw", "ll ccw", "ul cw", "ul ccw", "lr cw", "lr ccw", "ur cw", "ur ccw"]
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["children"]["205481007305345555"], -1);
    assert_eq!(json["result"], "win");
}

#[test]
fn solve_children_are_the_moves_values_and_the_line_plays_out() {
    let service = Service::new();
    let ps: Vec<Position> = positions(24, 28, 5, 60)
        .into_iter()
        .step_by(7)
        .take(6)
        .collect();
    assert!(ps.len() >= 4);
    for p in &ps {
        let text = format_position(p);
        let r = service.solve(p, &Budget::time(Duration::from_secs(60)));
        let a = service.analyze(p, &Budget::time(Duration::from_secs(60)));
        assert_eq!(Some(r.result), a.value, "{text}");
        assert!(r.reason.is_none(), "{text}: {:?}", r.reason);
        // Each child's value for its player to move from the moves'.
        let mut solver = Solver::new(20);
        for c in &r.children.0 {
            let child = api::parse(&c.position).unwrap();
            let want = if p.must_rotate() {
                let m = a.moves.iter().find(|m| m.mv == c.by).unwrap();
                m.value.unwrap().flip()
            } else {
                // A placement's child: the same player, to rotate.
                solver.value(&child, solve::Budget::UNLIMITED)
            };
            assert_eq!(c.value, want, "{text} {}", c.by);
            assert!(c.value != Value::Unknown);
        }
        // The line keeps the value to the end of the game.
        assert!(r.line_complete, "{text}");
        let mut q = *p;
        for m in &r.line {
            q = Pentago.play_checked(&q, parse_move(m).unwrap()).unwrap();
        }
        let end = q.outcome().unwrap();
        let mover_sees = if q.black_to_move() == p.black_to_move() {
            end
        } else {
            end.flip()
        };
        assert_eq!(mover_sees, r.result, "{text} {:?}", r.line);
        if r.remoteness == Some(1) {
            assert_eq!(r.line.len(), 1);
        }
    }
}

#[test]
fn an_early_solve_keeps_to_its_budget_and_says_why() {
    let p = positions(10, 10, 2, 10)[0];
    let t = Instant::now();
    let r = api::solve(
        &p,
        &Budget::time(Duration::from_millis(300)).with_nodes(50_000),
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(r.children.0.len() as u32, 36 - p.stones());
    if r.result == Value::Unknown {
        assert!(r.line.is_empty());
        assert!(r.reason.as_deref().unwrap().starts_with("below 18 stones"));
    }
    // A cancelled solve returns at once.
    let cancel = Cancel::new();
    cancel.cancel();
    let t = Instant::now();
    let r = api::solve(
        &p,
        &Budget::time(Duration::from_secs(30)).with_cancel(cancel),
    );
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert!(r.reason.unwrap().ends_with("(cancelled)"));
}

#[test]
fn the_strong_ai_keeps_a_proven_value() {
    let ps: Vec<Position> = positions(24, 30, 8, 40)
        .into_iter()
        .filter(|p| !p.must_rotate())
        .step_by(5)
        .take(5)
        .collect();
    for p in &ps {
        let m = api::ai_move(p, "", &Budget::time(Duration::from_secs(5)))
            .unwrap()
            .unwrap();
        assert_eq!(m.strength, "strong");
        let mut s = Solver::new(20);
        let v = s.value(p, solve::Budget::UNLIMITED);
        assert_eq!(m.value, Some(v));
        let after = api::play(p, &m.mv).unwrap().0;
        let kept = after
            .outcome()
            .unwrap_or_else(|| s.value(&after, solve::Budget::UNLIMITED))
            .flip();
        assert!(
            kept == v || v == Value::Loss,
            "{} {}",
            format_position(p),
            m.mv
        );
    }
    // The others just move, with no value.
    for name in ["reference", "random"] {
        let mut ai = Ai::new(name, 3).unwrap();
        let m = ai
            .choose(&Pentago.start(), &Budget::time(Duration::from_millis(200)))
            .unwrap()
            .unwrap();
        assert_eq!(m.strength, name);
        assert!(m.value.is_none());
        api::play(&Pentago.start(), &m.mv).unwrap();
    }
}

#[test]
fn requests_are_checked_with_one_line_errors() {
    let one_line = |e: api::Error, needle: &str| {
        let t = e.to_string();
        assert!(!t.contains('\n') && t.contains(needle), "{t}");
    };
    let none: &[&str] = &[];
    one_line(
        api::position_after(Some("xyz"), none, None).unwrap_err(),
        "bad position",
    );
    one_line(
        api::position_after(None, &["a1"], None).unwrap_err(),
        "a rotation must follow",
    );
    one_line(
        api::position_after(None, &["zz9"], None).unwrap_err(),
        "bad move",
    );
    one_line(
        api::position_after(None, &["b2 ll cw", "b2 ll cw"], None).unwrap_err(),
        "occupied",
    );
    one_line(
        api::position_after(Some("1m"), none, Some("c4")).unwrap_err(),
        "no placement is due",
    );
    one_line(
        api::position_after(None, none, Some("c4 ur cw")).unwrap_err(),
        "give one empty cell",
    );
    one_line(
        api::Error::from(Ai::new("nobody", 1).err().unwrap()),
        "unknown player",
    );
    let pending = api::position_after(None, &["a1 ll cw"], Some("c4")).unwrap();
    assert!(pending.must_rotate());
    one_line(Ai::check(&pending).unwrap_err(), "whole moves");
    one_line(
        api::ai_move(&pending, "strong", &Budget::time(Duration::from_millis(10))).unwrap_err(),
        "whole moves",
    );
    let over = endgame_core::conformance::random_game_positions(&Pentago, 2, 20)
        .into_iter()
        .find(|p| p.outcome().is_some())
        .unwrap();
    one_line(Ai::check(&over).unwrap_err(), "the game is over");
    // The board of the pending placement: white to rotate, c4 white.
    let st = api::state(&pending, vec!["a1 ll cw".into()]);
    assert!(st.must_rotate && !st.over && st.winner.is_none());
    assert_eq!(st.to_move, "white");
    assert_eq!(st.moves.len(), 8);
    assert_eq!(&st.cells[3][2..3], "w");
    let st = api::state(&over, vec![]);
    assert!(st.over && st.winner.is_some() && st.moves.is_empty());
}
