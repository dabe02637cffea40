//! `api::view`, what the front ends draw: its jumps against every
//! `from-to` pair the move parser accepts (an independent check), each
//! jump's holes against the pegs, and the end flags.

use endgame_peg::api::{self, AnyProblem, PositionView, Spec};

fn at(board: &str, position: Option<&str>) -> AnyProblem {
    api::build(&Spec {
        position: position.map(String::from),
        ..Spec::named(board)
    })
    .expect("a problem")
}

fn after(board: &str, moves: &[&str]) -> (AnyProblem, PositionView) {
    let start = at(board, None);
    let pos = api::position_after(&start, moves).expect("legal moves");
    let cur = at(board, Some(&pos));
    let v = api::view(&cur);
    assert_eq!(v.position, pos);
    (cur, v)
}

/// The view's jumps are exactly the pairs `position_after` accepts, and
/// each takes a peg from a full hole over a full hole into an empty one.
fn check(board: &str, moves: &[&str]) -> PositionView {
    let (cur, v) = after(board, moves);
    let peg = |h: &str| v.holes.iter().find(|x| x.name == h).expect("a hole").peg;
    let mut accepted = Vec::new();
    for a in &v.holes {
        for b in &v.holes {
            let m = format!("{}-{}", a.name, b.name);
            if api::position_after(&cur, &[m.as_str()]).is_ok() {
                accepted.push(m);
            }
        }
    }
    let mut listed: Vec<String> = v.moves.iter().map(|j| j.name.clone()).collect();
    listed.sort();
    accepted.sort();
    assert_eq!(listed, accepted, "{board} after {moves:?}");
    for j in &v.moves {
        assert_eq!(j.name, format!("{}-{}", j.from, j.to));
        assert!(peg(&j.from) && peg(&j.over) && !peg(&j.to), "{j:?}");
        let next = api::position_after(&cur, &[j.name.as_str()]).expect("legal");
        let w = api::view(&at(board, Some(&next)));
        let now = |h: &str| w.holes.iter().find(|x| x.name == h).expect("a hole").peg;
        assert!(!now(&j.from) && !now(&j.over) && now(&j.to), "{j:?}");
        assert_eq!(w.pegs + 1, v.pegs);
    }
    assert_eq!(v.pegs, v.holes.iter().filter(|h| h.peg).count());
    assert_eq!(v.over, v.moves.is_empty());
    v
}

#[test]
fn english_jumps_are_the_legal_pairs_with_their_middle_hole() {
    let v = check("english", &[]);
    assert_eq!(v.moves.len(), 4);
    assert_eq!(v.pegs, 32);
    // On a square board the jumped hole is the middle one.
    for j in &v.moves {
        let xy = |h: &str| {
            let h = v.holes.iter().find(|x| x.name == h).expect("a hole");
            (h.x, h.y)
        };
        let (f, o, t) = (xy(&j.from), xy(&j.over), xy(&j.to));
        assert_eq!((f.0 + t.0, f.1 + t.1), (2 * o.0, 2 * o.1), "{j:?}");
    }
    check("english", &["d2-d4", "f3-d3"]);
    assert!(!v.solved);
}

#[test]
fn hex_and_french_boards_list_their_jumps() {
    let v = check("triangle5", &[]);
    assert!(!v.moves.is_empty());
    check("triangle5", &[v.moves[0].name.as_str()]);
    check("french", &[]);
}

#[test]
fn a_finished_game_is_over_and_solved() {
    // The English goal, one peg in the centre, and a stuck position of two
    // pegs far apart.
    let v = api::view(&at(
        "english",
        Some(".../.../......./...o.../......./.../..."),
    ));
    assert!(v.over && v.solved && v.moves.is_empty());
    assert_eq!(v.pegs, 1);
    let v = api::view(&at(
        "english",
        Some("o../.../......./......./......./.../..o"),
    ));
    assert!(v.over && !v.solved);
    assert_eq!(v.pegs, 2);
}
