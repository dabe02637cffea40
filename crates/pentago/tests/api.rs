//! The analysis service: exact values against brute force and the
//! alpha-beta alone, immediate ends before any search, estimates that
//! never colour a move, a cancel that stops the work, bad input.

use endgame_core::analysis::{Colour, Decided};
use endgame_core::budget::{Budget, Cancel};
use endgame_core::conformance::random_game_positions;
use endgame_core::{Rules, Value};
use endgame_pentago::api::{self, PentagoAnalysis, Service};
use endgame_pentago::notation::{format_position, parse_move};
use endgame_pentago::solve::{self, Solver};
use endgame_pentago::{mid, Pentago, Position};
use std::collections::HashMap;
use std::time::{Duration, Instant};

mod brute;
use brute::minimax;
use brute::positions;

fn value(v: i8) -> Value {
    match v {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

/// Every move's value (for the mover) by `truth`, checked against the
/// analysis: all decided, the colour the one policy gives, the position's
/// value the best of them.
fn check_exact(a: &PentagoAnalysis, p: &Position, mut truth: impl FnMut(&Position) -> Value) {
    let text = format_position(p);
    assert_eq!(a.moves.len(), Pentago.moves(p).len(), "{text}");
    let mut best = Value::Loss;
    for m in &a.moves {
        let child = Pentago.play_checked(p, parse_move(&m.mv).unwrap()).unwrap();
        assert_eq!(m.after, format_position(&child));
        let want = truth(&child).flip();
        assert_eq!(m.value, Some(want), "{text} {}", m.mv);
        assert_eq!(m.colour, Colour::of_value(want));
        assert_eq!(m.decided_by, Decided::Search);
        assert!(m.estimate.is_none());
        best = match (best, want) {
            (_, Value::Win) | (Value::Win, _) => Value::Win,
            (_, Value::Draw) | (Value::Draw, _) => Value::Draw,
            _ => Value::Loss,
        };
    }
    assert_eq!(a.value, Some(best), "{text}");
    assert!(a.reason.is_none(), "{text}: {:?}", a.reason);
    // The line replays legally and starts with the first move.
    assert_eq!(a.line.first(), a.moves.first().map(|m| &m.mv));
    let mut q = *p;
    for m in &a.line {
        q = Pentago.play_checked(&q, parse_move(m).unwrap()).unwrap();
    }
}

#[test]
fn late_moves_agree_with_brute_force_minimax() {
    let service = Service::new();
    let ps: Vec<Position> = positions(30, 33, 21, 120)
        .into_iter()
        .step_by(3)
        .take(25)
        .collect();
    assert!(ps.len() >= 15, "{}", ps.len());
    let mut memo = HashMap::new();
    let mut seen = [0; 3];
    for p in &ps {
        let a = service.analyze(p, &Budget::time(Duration::from_secs(60)));
        check_exact(&a, p, |c| value(minimax(c, &mut memo)));
        seen[match a.value {
            Some(Value::Win) => 0,
            Some(Value::Draw) => 1,
            _ => 2,
        }] += 1;
    }
    assert!(seen[0] > 0 && seen[2] > 0, "{seen:?}");
}

#[test]
fn retrograde_range_moves_agree_with_the_alpha_beta_alone() {
    // 20 to 24 stones, where the service answers by the retrograde solver
    // whenever the alpha-beta's first share does not do: each move's child
    // valued again by the alpha-beta alone, a fresh table per position.
    let service = Service::new();
    let mut ps: Vec<Position> = positions(22, 24, 3, 40)
        .into_iter()
        .filter(|p| !p.must_rotate())
        .take(3)
        .collect();
    // Hard for the alpha-beta: it needs the retrograde solver.
    ps.push(endgame_pentago::notation::parse_position("1846827812061858223").unwrap());
    let mut retrograde = 0;
    for p in &ps {
        let a = service.analyze(p, &Budget::time(Duration::from_secs(60)));
        retrograde += usize::from(a.detail.method.as_deref() == Some("retrograde"));
        let mut ab = Solver::new(22);
        ab.set_retrograde(false);
        check_exact(&a, p, |c| ab.value(c, solve::Budget::UNLIMITED));
    }
    assert!(retrograde >= 1);
}

#[test]
fn an_immediate_end_is_decided_without_search() {
    // The last worked example of docs/pentago.md: white to rotate, and
    // `ul cw` makes five. No time at all: that rotation is still green,
    // the position won in 1.
    let p = api::parse("205481007622539795m").unwrap();
    let a = api::analyze(&p, &Budget::time(Duration::ZERO));
    assert_eq!(a.to_move.as_deref(), Some("white"));
    assert_eq!(a.value, Some(Value::Win));
    assert_eq!(a.remoteness, Some(1));
    assert_eq!(a.moves.len(), 8);
    assert_eq!(a.moves[0].mv, "ul cw");
    assert_eq!(a.moves[0].colour, Colour::Green);
    assert_eq!(a.moves[0].remoteness, Some(1));
    assert_eq!(a.line, ["ul cw"]);
    assert!(a.detail.method.is_none(), "no search ran");
    let d = &a.moves[0].detail;
    assert_eq!(
        (
            d.cell.as_deref(),
            d.quadrant.as_deref(),
            d.direction.as_deref()
        ),
        (None, Some("ul"), Some("cw"))
    );
    // Rotations after which black wins at once are red, the others blue.
    for m in &a.moves[1..] {
        match m.colour {
            Colour::Red => assert_eq!(m.remoteness, Some(2)),
            Colour::Blue => assert!(m.estimate.is_some()),
            c => panic!("{} {c}", m.mv),
        }
    }
    let r = a.reason.expect("some rotations undecided");
    assert!(r.starts_with("below 18 stones: "), "{r}");
}

#[test]
fn estimates_never_colour_a_move() {
    let service = Service::new();
    let early = [
        Pentago.start(),
        positions(6, 6, 4, 10)[0],
        positions(12, 13, 9, 10)[0],
    ];
    for p in &early {
        let a = service.analyze(
            p,
            &Budget::time(Duration::from_millis(200)).with_nodes(20_000),
        );
        for m in &a.moves {
            match &m.estimate {
                Some(e) => {
                    assert_eq!(m.colour, Colour::Blue, "{}", m.mv);
                    assert_eq!(m.value, Some(Value::Unknown));
                    assert_eq!(m.decided_by, Decided::Heuristic);
                    assert!((-1.0..=1.0).contains(&e.score), "{}", e.score);
                    assert_eq!(e.by, api::ESTIMATE_BY);
                }
                None => {
                    assert_ne!(m.colour, Colour::Blue, "{}", m.mv);
                    assert_eq!(m.decided_by, Decided::Search);
                }
            }
        }
        if a.value == Some(Value::Unknown) {
            assert!(a.estimate.is_some());
            assert_eq!(a.decided_by, Decided::Heuristic);
            assert!(a.line.is_empty());
        }
        if a.moves.iter().any(|m| m.colour == Colour::Blue) {
            let r = a.reason.as_deref().unwrap();
            assert!(r.starts_with("below 18 stones: "), "{r}");
            assert!(
                r.ends_with("within 20000 nodes") || r.ends_with("within 200 ms"),
                "{r}"
            );
        }
    }
    let a = service.analyze(
        &Pentago.start(),
        &Budget::time(Duration::from_secs(2)).with_nodes(0),
    );
    assert_eq!(
        a.reason.as_deref(),
        Some("below 18 stones: no exact value within 0 nodes")
    );
}

#[test]
fn a_cancelled_hint_stops_at_once() {
    // An 18-stone position the retrograde solver would take about a
    // second on; cancelled before it starts, the service returns at once
    // with what needs no search.
    let p = positions(18, 18, 11, 40)
        .into_iter()
        .find(|p| !p.must_rotate())
        .unwrap();
    let cancel = Cancel::new();
    cancel.cancel();
    let t = Instant::now();
    let a = Service::new().analyze(
        &p,
        &Budget::time(Duration::from_secs(10)).with_cancel(cancel),
    );
    assert!(
        t.elapsed() < Duration::from_millis(800),
        "{:?}",
        t.elapsed()
    );
    if a.moves.iter().any(|m| m.colour == Colour::Blue) {
        assert!(a.reason.unwrap().ends_with("(cancelled)"));
    }
    // Cancelled while the retrograde solver runs: it stops itself.
    let cancel = Cancel::new();
    let late = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        late.cancel();
    });
    let t = Instant::now();
    let mut s = Solver::new(16);
    s.set_cancel(cancel);
    let _ = s.value_and_children(&p, solve::Budget::UNLIMITED);
    stopper.join().unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
}

/// Which method a time budget selects once the alpha-beta's share is
/// spent ([`Solver::retrograde_fits`], the hand-over rule): a hint's 2 s
/// takes the retrograde solver from 18 stones, the web's "think longer"
/// (four times a hint's time; the web's route keeps its own check of the
/// factor) from 16 with both questions in one sweep; a sweep per question
/// (a low memory limit) or a slower machine needs more time.
#[test]
fn a_time_budget_selects_the_method() {
    let secs = Duration::from_secs_f64;
    let hint = api::DEFAULT_TIME;
    let think = api::DEFAULT_TIME * 4;
    // What the stages before it may take of the think budget: stage 1,
    // then the alpha-beta's share (cost / 8192: 181 000 nodes at 16
    // stones, about 80 ms).
    let think_left = think - secs(0.3);
    let one = mid::Plan {
        one_sweep: true,
        bytes: 0,
        disk: 0,
    };
    let two = mid::Plan {
        one_sweep: false,
        bytes: 0,
        disk: 0,
    };
    let s = Solver::default();
    for (stones, by_hint, by_think) in [
        (20, true, true),
        (18, true, true),
        (17, false, true),
        (16, false, true),
        (15, false, false),
    ] {
        let p = positions(stones, stones, 3, 20)
            .into_iter()
            .find(|p| !p.must_rotate())
            .unwrap();
        assert_eq!(s.retrograde_fits(&p, &one, Some(hint)), by_hint, "{stones}");
        assert_eq!(
            s.retrograde_fits(&p, &one, Some(think_left)),
            by_think,
            "{stones}"
        );
        assert!(s.retrograde_fits(&p, &one, None), "{stones}: no time limit");
        if stones == 16 {
            // Not in half the think budget (its first round), nor a sweep
            // per question, nor on a machine twice as slow.
            assert!(!s.retrograde_fits(&p, &one, Some(think / 2)));
            assert!(!s.retrograde_fits(&p, &two, Some(think_left)));
            let mut slow = Solver::default();
            slow.set_time_scale(2.0);
            assert!(!slow.retrograde_fits(&p, &one, Some(think_left)));
        }
    }
    // Beyond the retrograde solver's range: never.
    let p = positions(14, 14, 3, 20).into_iter().next().unwrap();
    assert!(!s.retrograde_fits(&p, &one, None));
}

#[test]
fn bad_positions_are_one_line_errors() {
    for bad in ["", "abc", "0m", "4", "19683"] {
        let e = api::parse(bad).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
    }
    // A finished game: no moves, its outcome as the value.
    let over = random_game_positions(&Pentago, 2, 20)
        .into_iter()
        .find(|p| p.outcome().is_some())
        .unwrap();
    let a = api::analyze(&over, &Budget::time(Duration::from_secs(1)));
    assert!(a.over && a.moves.is_empty());
    assert_eq!(a.remoteness, Some(0));
    assert_eq!(a.value, over.outcome());
}
