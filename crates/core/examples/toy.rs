//! How a new game plugs into Endgame, in one file: a two-heap subtraction
//! game written against `endgame-core`'s traits and checked by the
//! conformance battery (ARCHITECTURE.md, "How to add a game").
//!
//! The rules: two heaps of counters; a move takes 1, 2 or 3 counters from
//! one heap; the player who cannot move loses. By the Sprague–Grundy
//! theorem a heap of `n` is worth `n mod 4`, so the player to move loses
//! exactly when the two heaps agree modulo 4. That closed form is the
//! "solver" the battery checks against its own brute force (memoised
//! negamax over the rules), on every position of random games.
//!
//! ```text
//! cargo run --profile ci -p endgame-core --example toy
//! ```
//!
//! prints the battery's report for a few starting heaps. The tests below
//! (run in CI through `crates/core/tests/toy.rs`) also show the battery
//! catching a wrong solver and a wrong move generator.

use endgame_core::conformance::{self, Options, Report};
use endgame_core::{Game, Notation, Rules, Symmetric, Value};

/// The game, from a chosen pair of heaps.
pub struct Heaps {
    pub start: (u8, u8),
}

/// A move: (heap 0 or 1, counters taken 1..=3).
type Take = (u8, u8);

impl Rules for Heaps {
    type Position = (u8, u8);
    type Move = Take;
    fn start(&self) -> (u8, u8) {
        self.start
    }
    fn for_each_move(&self, &(a, b): &(u8, u8), mut f: impl FnMut(Take)) {
        for (heap, size) in [(0, a), (1, b)] {
            for take in 1..=size.min(3) {
                f((heap, take));
            }
        }
    }
    fn play_unchecked(&self, &(a, b): &(u8, u8), (heap, take): Take) -> (u8, u8) {
        if heap == 0 {
            (a - take, b)
        } else {
            (a, b - take)
        }
    }
}

impl Game for Heaps {
    /// Both heaps empty: the player to move cannot move and has lost.
    fn outcome(&self, p: &(u8, u8)) -> Option<Value> {
        (*p == (0, 0)).then_some(Value::Loss)
    }
}

/// The two heaps may be swapped: symmetry 1 is the swap.
impl Symmetric for Heaps {
    fn symmetry_count(&self) -> usize {
        2
    }
    fn apply_symmetry(&self, i: usize, &(a, b): &(u8, u8)) -> (u8, u8) {
        if i == 0 {
            (a, b)
        } else {
            (b, a)
        }
    }
}

/// Positions are written `a,b` (`7,5`); moves as the heap's letter and
/// the count (`a2` takes two from the first heap).
impl Notation for Heaps {
    type Error = std::fmt::Error;
    fn format_move(&self, (heap, take): Take) -> String {
        format!("{}{take}", if heap == 0 { 'a' } else { 'b' })
    }
    fn parse_move(&self, s: &str) -> Result<Take, std::fmt::Error> {
        let heap = match s.get(..1) {
            Some("a") => 0,
            Some("b") => 1,
            _ => return Err(std::fmt::Error),
        };
        match s[1..].parse() {
            Ok(take @ 1..=3) => Ok((heap, take)),
            _ => Err(std::fmt::Error),
        }
    }
    fn format_position(&self, &(a, b): &(u8, u8)) -> String {
        format!("{a},{b}")
    }
    fn parse_position(&self, s: &str) -> Result<(u8, u8), std::fmt::Error> {
        let (a, b) = s.split_once(',').ok_or(std::fmt::Error)?;
        Ok((
            a.parse().map_err(|_| std::fmt::Error)?,
            b.parse().map_err(|_| std::fmt::Error)?,
        ))
    }
}

/// The Sprague–Grundy closed form: the value for the player to move.
pub fn closed_form(&(a, b): &(u8, u8)) -> Value {
    if a % 4 == b % 4 {
        Value::Loss
    } else {
        Value::Win
    }
}

/// A move generator written independently of `for_each_move`: every
/// (heap, count) pair, filtered by what the heap holds.
pub fn naive_moves(&(a, b): &(u8, u8)) -> Vec<Take> {
    let mut v = Vec::new();
    for heap in 0..2u8 {
        for take in 1..=3u8 {
            if take <= [a, b][heap as usize] {
                v.push((heap, take));
            }
        }
    }
    v
}

/// The full battery for one start: rules against the naive generator,
/// symmetry, notation round trips, and on every position the closed form
/// against brute-force negamax and its children's values.
pub fn check(start: (u8, u8)) -> Result<Report, String> {
    let game = Heaps { start };
    let opts = Options::game(&game)
        .playouts(7, 30)
        .naive_moves(naive_moves)
        .exhaustive_when(|_| true)
        .value_solver(closed_form);
    conformance::battery(&game, opts)
}

#[allow(dead_code)] // the tests include this file without calling main
fn main() {
    for start in [(7, 7), (10, 3), (12, 9)] {
        match check(start) {
            Ok(r) => println!("heaps {start:?}: {r:?}"),
            Err(e) => {
                eprintln!("heaps {start:?}: {e}");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::hash::FxHashMap;

    #[test]
    fn the_toy_game_passes_the_battery() {
        for start in [(7, 7), (10, 3), (12, 9), (0, 5)] {
            let r = check(start).unwrap();
            // Every visited position was compared with brute force.
            assert!(r.compared > 0 && r.compared == r.exhaustive, "{r:?}");
            assert!(r.symmetric > 0, "{r:?}");
        }
    }

    #[test]
    fn the_closed_form_agrees_with_brute_force_everywhere() {
        // Every position up to 15 × 15, not only those random games meet.
        let game = Heaps { start: (15, 15) };
        let mut memo = FxHashMap::default();
        for a in 0..=15 {
            for b in 0..=15 {
                let brute = conformance::negamax(&game, &(a, b), &mut memo);
                assert_eq!(brute, closed_form(&(a, b)), "heaps {a},{b}");
            }
        }
    }

    #[test]
    fn the_battery_catches_a_wrong_solver_and_a_wrong_generator() {
        let game = Heaps { start: (9, 6) };
        // Plain Nim's rule (equal heaps lose) is wrong here: 4,0 is a loss.
        let nim = |&(a, b): &(u8, u8)| if a == b { Value::Loss } else { Value::Win };
        let opts = Options::game(&game)
            .exhaustive_when(|_| true)
            .value_solver(nim);
        assert!(conformance::battery(&game, opts).is_err());
        // A naive generator that also allows taking four.
        let greedy = |&(a, b): &(u8, u8)| {
            let mut v = naive_moves(&(a, b));
            v.extend((a >= 4).then_some((0, 4)));
            v
        };
        let opts = Options::game(&game).naive_moves(greedy);
        assert!(conformance::battery(&game, opts).is_err());
    }
}
