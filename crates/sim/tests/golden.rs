//! Golden playthroughs (`tests/data/golden.tsv`): each line's moves,
//! replayed from the empty board, are legal and end in its final
//! position, with its outcome for the player to move.

use endgame_core::conformance::{replay, tsv_rows};
use endgame_core::{Game, Notation, Rules};
use endgame_sim::Sim;

#[test]
fn golden_playthroughs_replay_to_their_final_positions() {
    let text = include_str!("data/golden.tsv");
    let mut games = 0;
    for (line, row) in tsv_rows(text) {
        let [board, moves, end, outcome] = row[..] else {
            panic!("line {line}: 4 fields wanted, got {row:?}");
        };
        let misere = board.ends_with(" misere");
        let n: usize = board
            .trim_start_matches('K')
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let sim = Sim::new(n, misere).unwrap();
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let got = replay(&sim, &sim.start(), &moves).unwrap_or_else(|e| panic!("line {line}: {e}"));
        assert_eq!(sim.format_position(&got), end, "line {line}");
        let o = sim
            .outcome(&got)
            .map_or("none".to_string(), |v| v.to_string());
        assert_eq!(o, outcome, "line {line}");
        games += 1;
    }
    assert_eq!(games, 10);
}
