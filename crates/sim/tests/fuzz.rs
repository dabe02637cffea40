//! Fuzzing the Sim parsers: positions (one character a segment, the
//! board inferred from the length) and moves (two point letters). Random
//! text and mutations of the corpus in `tests/fuzz-corpus/` must never
//! panic, and what parses must read back the same after formatting.
//!
//! `ENDGAME_FUZZ_CASES` sets the cases per parser (the top-level README's
//! Tests section gives the long run).

#[path = "../../core/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use endgame_core::{Notation, Rules};
use endgame_sim::{api, Sim, MAX_N, MIN_N};

const POSITION: &str = "rb.RB.rb.";
const MOVE: &str = "abcdefghABCDEFGHij ";

fn games() -> &'static Vec<Sim> {
    static G: std::sync::OnceLock<Vec<Sim>> = std::sync::OnceLock::new();
    G.get_or_init(|| {
        (MIN_N..=MAX_N)
            .flat_map(|n| [Sim::new(n, false).unwrap(), Sim::new(n, true).unwrap()])
            .collect()
    })
}

fn check_position(s: &str) {
    for misere in [false, true] {
        if let Ok((sim, pos)) = api::parse(s, misere) {
            let text = sim.format_position(&pos);
            assert_eq!(sim.parse_position(&text).ok(), Some(pos), "{s:?}");
            let again = api::parse(&text, misere).map(|(_, p)| p).ok();
            assert_eq!(again, Some(pos), "{s:?}");
            let _ = sim.moves(&pos);
        }
    }
    for sim in games() {
        if let Ok(pos) = sim.parse_position(s) {
            assert_eq!(
                sim.parse_position(&sim.format_position(&pos)).ok(),
                Some(pos)
            );
        }
    }
}

fn check_move(s: &str) {
    for sim in games() {
        if let Ok(mv) = sim.parse_move(s) {
            assert_eq!(sim.parse_move(&sim.format_move(mv)).ok(), Some(mv), "{s:?}");
        }
        let _ = sim.play_text(&sim.start(), s);
    }
}

fuzz_support::fuzz_targets! {
    fuzz_position: "position", POSITION, check_position;
    fuzz_move: "move", MOVE, check_move;
}
