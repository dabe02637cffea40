//! Golden playthroughs (`tests/data/golden.tsv`): each line's operations,
//! replayed from its start board, are legal and end in its final state,
//! with its number of stones.

use endgame_core::conformance::{replay, tsv_rows};
use endgame_core::{Notation, Puzzle};
use endgame_martello::{Martello, State};

#[test]
fn golden_playthroughs_replay_to_their_final_states() {
    let text = include_str!("data/golden.tsv");
    let mut games = 0;
    for (line, row) in tsv_rows(text) {
        let [start, ops, end, stones] = row[..] else {
            panic!("line {line}: 4 fields wanted, got {row:?}");
        };
        let (n, from) = State::parse(start).unwrap();
        let m = Martello::new(n, from).unwrap();
        let ops: Vec<&str> = ops.split_whitespace().collect();
        let got = replay(&m, &from, &ops).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(m.format_position(&got), end, "line {line}");
        assert_eq!(m.score(&got).to_string(), stones, "line {line}");
        games += 1;
    }
    assert_eq!(games, 6);
}
