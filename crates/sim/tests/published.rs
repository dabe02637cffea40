//! Published numbers (`tests/data/published.tsv`, each with its source):
//! the value of K6, the boards stored round by round by the weak solve of
//! erik's Cassis article, and the number of colourings of K_n up to
//! relabelling. Every row of the file is checked.

mod common;

use common::burnside;
use endgame_core::conformance::tsv_rows;
use endgame_core::Rules;
use endgame_sim::solve::{self, KeyKind};
use endgame_sim::Sim;

#[test]
fn published_numbers_match() {
    let text = include_str!("data/published.tsv");
    let mut rows = 0;
    for (line, row) in tsv_rows(text) {
        let [board, quantity, want, source] = row[..] else {
            panic!("line {line}: 4 fields wanted, got {row:?}");
        };
        assert!(!source.is_empty(), "line {line} cites no source");
        let misere = board.ends_with(" misere");
        let n: usize = board
            .trim_start_matches('K')
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let sim = Sim::new(n, misere).unwrap();
        let got = match quantity {
            "value" => {
                // The strong and the weak solution agree on it.
                let s = solve::strong(&sim);
                let strong = s.get(&s.root).unwrap().value;
                let weak = solve::weak(&sim, &sim.start(), KeyKind::Exact).value;
                assert_eq!(strong, weak, "line {line}");
                strong.to_string()
            }
            "weak_raw_stored_per_round" => {
                let w = solve::weak(&sim, &sim.start(), KeyKind::Raw);
                let v: Vec<String> = w.stored_per_round.iter().map(u64::to_string).collect();
                v.join(",")
            }
            "weak_raw_stored" => solve::weak(&sim, &sim.start(), KeyKind::Raw)
                .stored
                .to_string(),
            "colourings_up_to_relabelling" => burnside(n).to_string(),
            _ => panic!("line {line}: unknown quantity {quantity}"),
        };
        assert_eq!(got, want, "line {line}: {board} {quantity} ({source})");
        rows += 1;
    }
    assert_eq!(rows, 6);
}
