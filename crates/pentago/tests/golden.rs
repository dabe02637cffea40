//! Golden playthroughs (`tests/data/golden.tsv`): each line's moves,
//! replayed from its start, are legal and end in its final position, with
//! its outcome for the player to move.

use endgame_core::conformance::{replay, tsv_rows};
use endgame_core::{Game, Notation};
use endgame_pentago::Pentago;

#[test]
fn golden_playthroughs_replay_to_their_final_positions() {
    let text = include_str!("data/golden.tsv");
    let mut games = 0;
    for (line, row) in tsv_rows(text) {
        let [start, moves, end, outcome] = row[..] else {
            panic!("line {line}: 4 fields wanted, got {row:?}");
        };
        let from = Pentago.parse_position(start).unwrap();
        let moves: Vec<&str> = moves.split(',').map(str::trim).collect();
        let got = replay(&Pentago, &from, &moves).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(Pentago.format_position(&got), end, "line {line}");
        let o = Pentago
            .outcome(&got)
            .map_or("none".to_string(), |v| v.to_string());
        assert_eq!(o, outcome, "line {line}");
        games += 1;
    }
    assert_eq!(games, 4);
}
