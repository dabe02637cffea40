//! Golden playthroughs (`tests/data/golden.tsv`): each line's moves,
//! replayed from its start, are legal and end in its final position, with
//! its number of pegs and goal flag.

use endgame_core::conformance::{replay, tsv_rows};
use endgame_core::{Notation, Puzzle};
use endgame_peg::{Board, Goal, PegSolitaire, Pruning};
use std::sync::Arc;

#[test]
fn golden_playthroughs_replay_to_their_final_positions() {
    let text = include_str!("data/golden.tsv");
    let mut games = 0;
    for (line, row) in tsv_rows(text) {
        let [board, start, finish, moves, end, pegs, goal] = row[..] else {
            panic!("line {line}: 7 fields wanted, got {row:?}");
        };
        let b = Arc::new(Board::named(board, false).unwrap());
        let goal_of = match finish {
            "any" => Goal::AnyOne,
            hole => Goal::Pattern(vec![b.hole(hole).unwrap()]),
        };
        // The problem's start does not matter to the replay; the row's
        // start position is parsed in the notation.
        let p = PegSolitaire::<u128>::new(
            b.clone(),
            &vec![true; b.holes()],
            goal_of,
            Pruning::default(),
        )
        .unwrap();
        let from = p.parse_position(start).unwrap();
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let got = replay(&p, &from, &moves).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(p.format_position(&got), end, "line {line}");
        assert_eq!(p.score(&got).to_string(), pegs, "line {line}");
        assert_eq!(p.is_goal(&got).to_string(), goal, "line {line}");
        games += 1;
    }
    assert_eq!(games, 4);
}
