//! The shape of every game's analysis ("hint") and the one colour policy.
//!
//! Each game crate's `api::analyze` returns an [`Analysis`]: the position's
//! value (two-player games) or result (puzzles), its remoteness, every
//! legal move with what it leads to and its [`Colour`], a best line, and
//! how the answer was decided. The command line prints it (`--json` prints
//! it as is) and the web sends it as is, so both answer alike.

use crate::Value;
use serde::{Deserialize, Serialize};

/// The colour of a move, the same everywhere a move is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// Keeps a win; keeps the puzzle solvable.
    Green,
    /// Loses (a win, a draw, or the puzzle's goal or best result).
    Red,
    /// Keeps a draw; for a puzzle whose goal is out of reach, keeps the
    /// best reachable result.
    Yellow,
    /// Not decided within the budget.
    Blue,
}

impl Colour {
    /// The colour of a two-player move from the value it gives the player
    /// who makes it.
    pub fn of_value(mover: Value) -> Colour {
        match mover {
            Value::Win => Colour::Green,
            Value::Loss => Colour::Red,
            Value::Draw => Colour::Yellow,
            Value::Unknown => Colour::Blue,
        }
    }

    /// The colour of a puzzle move leading to `child`, in a position whose
    /// own result is `parent`.
    ///
    /// Green: the goal stays reachable. Otherwise, if the goal was
    /// reachable before, red (the move loses it). If it was not, the move
    /// is judged by the best result (fewest pieces): yellow if it keeps the
    /// parent's best, red if it gives some up. Blue whenever what decides
    /// is unknown.
    pub fn of_result(child: &PuzzleResult, parent: &PuzzleResult) -> Colour {
        match child.solvable {
            Some(true) => Colour::Green,
            None => Colour::Blue,
            Some(false) => match parent.solvable {
                Some(true) => Colour::Red,
                _ => match (child.best, parent.best) {
                    (Some(c), Some(p)) if child.best_proven && parent.best_proven => {
                        if c <= p {
                            Colour::Yellow
                        } else {
                            Colour::Red
                        }
                    }
                    _ => Colour::Blue,
                },
            },
        }
    }

    /// The colour's name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Colour::Green => "green",
            Colour::Red => "red",
            Colour::Yellow => "yellow",
            Colour::Blue => "blue",
        }
    }
}

impl std::fmt::Display for Colour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an answer was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decided {
    /// Looked up in a solved table.
    Table,
    /// Proven by an exact search within the budget.
    Search,
    /// A heuristic answer (a line found without proof that it is best, or
    /// an estimate): never shown as an exact colour.
    Heuristic,
    /// Not decided within the budget.
    Undecided,
}

/// What a puzzle position (or a move's result) can still reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleResult {
    /// The goal is reachable (`true`), proven unreachable (`false`), or
    /// undecided (`null`).
    pub solvable: Option<bool>,
    /// Fewest pieces left reachable (the best result), when known.
    pub best: Option<u32>,
    /// Whether `best` is proven the fewest (or only a line's end).
    pub best_proven: bool,
}

impl PuzzleResult {
    /// Nothing known.
    pub const UNKNOWN: PuzzleResult = PuzzleResult {
        solvable: None,
        best: None,
        best_proven: false,
    };

    /// A result known exactly: solvable or not, and the proven best.
    pub fn exact(solvable: bool, best: u32) -> PuzzleResult {
        PuzzleResult {
            solvable: Some(solvable),
            best: Some(best),
            best_proven: true,
        }
    }

    /// The best result of a position from its moves' results: the fewest
    /// pieces any move reaches (proven only if every move's is), solvable
    /// if a move keeps the goal, unsolvable if every move is proven to
    /// lose it.
    pub fn of_children<'a>(children: impl IntoIterator<Item = &'a PuzzleResult>) -> PuzzleResult {
        let mut solvable = Some(false);
        let mut best: Option<u32> = None;
        let mut proven = true;
        let mut any = false;
        for c in children {
            any = true;
            solvable = match (solvable, c.solvable) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            };
            match c.best {
                Some(b) => best = Some(best.map_or(b, |x: u32| x.min(b))),
                None => proven = false,
            }
            proven &= c.best_proven;
        }
        PuzzleResult {
            solvable: if any { solvable } else { None },
            best,
            best_proven: any && proven && best.is_some(),
        }
    }
}

/// A heuristic estimate of a position or move: marked as an estimate, never
/// turned into an exact value or colour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// From -1 (surely lost) through 0 (even) to 1 (surely won), for the
    /// player the value is given for (the mover, for a move).
    pub score: f64,
    /// What made the estimate (e.g. `strong AI, depth 3`).
    pub by: String,
}

/// Nothing game-specific.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoDetail {}

/// One legal move of an analysis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveAnalysis<D = NoDetail> {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The position it leads to, in the game's position notation.
    pub after: String,
    /// Two-player games: the value the move gives the player who makes it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Value>,
    /// Puzzles: what the position after the move can still reach.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<PuzzleResult>,
    /// Moves to the end (two-player) or to the best result (puzzles) after
    /// playing it, this move included, when known.
    pub remoteness: Option<u32>,
    /// The colour of the move ([`Colour`]).
    pub colour: Colour,
    /// How the move's value or result was decided.
    pub decided_by: Decided,
    /// A heuristic estimate when the move is undecided.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub estimate: Option<Estimate>,
    /// Game-specific fields.
    #[serde(flatten)]
    pub detail: D,
}

/// The analysis of one position: the service's answer to a hint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis<D = NoDetail, P = NoDetail> {
    /// The game (`peg`, `martello`, `sim`, `pentago`).
    pub game: String,
    /// The position analysed, in the game's position notation.
    pub position: String,
    /// Who is to move (two-player games), e.g. `red`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub to_move: Option<String>,
    /// Whether the game or puzzle is over here (no legal move).
    pub over: bool,
    /// Two-player games: the position's value for the player to move.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub value: Option<Value>,
    /// Puzzles: what the position can still reach.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result: Option<PuzzleResult>,
    /// Moves to the end (or the best result) under perfect play, if known.
    pub remoteness: Option<u32>,
    /// How the position's value or result was decided.
    pub decided_by: Decided,
    /// Why something is undecided or only estimated, in words.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// A heuristic estimate of the position when its value is unknown.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub estimate: Option<Estimate>,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnalysis<D>>,
    /// A best line from the position (moves in the game's notation), as
    /// far as known.
    pub line: Vec<String>,
    /// Game-specific fields of the position.
    #[serde(flatten)]
    pub detail: P,
    /// Wall time of the analysis in milliseconds (the one field that
    /// differs between two runs of the same question).
    pub time_ms: f64,
}

impl<D, P> Analysis<D, P> {
    /// The moves of a given colour.
    pub fn coloured(&self, colour: Colour) -> impl Iterator<Item = &MoveAnalysis<D>> {
        self.moves.iter().filter(move |m| m.colour == colour)
    }

    /// Moves not decided (blue).
    pub fn undecided(&self) -> usize {
        self.coloured(Colour::Blue).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(solvable: Option<bool>, best: Option<u32>) -> PuzzleResult {
        PuzzleResult {
            solvable,
            best,
            best_proven: best.is_some(),
        }
    }

    #[test]
    fn two_player_colours() {
        assert_eq!(Colour::of_value(Value::Win), Colour::Green);
        assert_eq!(Colour::of_value(Value::Loss), Colour::Red);
        assert_eq!(Colour::of_value(Value::Draw), Colour::Yellow);
        assert_eq!(Colour::of_value(Value::Unknown), Colour::Blue);
    }

    #[test]
    fn puzzle_colours_follow_the_goal_then_the_best_result() {
        let solvable = r(Some(true), Some(1));
        let lost2 = r(Some(false), Some(2));
        let lost3 = r(Some(false), Some(3));
        let unknown = PuzzleResult::UNKNOWN;
        // A solvable position: keeping the goal is green, losing it red,
        // whatever the best result of the losing move.
        assert_eq!(Colour::of_result(&solvable, &solvable), Colour::Green);
        assert_eq!(Colour::of_result(&lost2, &solvable), Colour::Red);
        assert_eq!(Colour::of_result(&unknown, &solvable), Colour::Blue);
        // An unsolvable position: the best result decides.
        assert_eq!(Colour::of_result(&lost2, &lost2), Colour::Yellow);
        assert_eq!(Colour::of_result(&lost3, &lost2), Colour::Red);
        // The goal lost but the best result not proven: undecided.
        let line_only = PuzzleResult {
            best_proven: false,
            ..lost2
        };
        assert_eq!(Colour::of_result(&line_only, &lost2), Colour::Blue);
        assert_eq!(Colour::of_result(&lost2, &unknown), Colour::Blue);
    }

    #[test]
    fn a_position_takes_its_best_child() {
        let p = PuzzleResult::of_children(&[r(Some(false), Some(3)), r(Some(false), Some(2))]);
        assert_eq!(p, r(Some(false), Some(2)));
        let p = PuzzleResult::of_children(&[r(Some(false), Some(3)), r(Some(true), Some(1))]);
        assert_eq!(p.solvable, Some(true));
        let p = PuzzleResult::of_children(&[r(Some(false), Some(3)), PuzzleResult::UNKNOWN]);
        assert_eq!(p.solvable, None);
        assert!(!p.best_proven);
        assert_eq!(PuzzleResult::of_children(&[]), PuzzleResult::UNKNOWN);
    }

    #[test]
    fn json_names_are_stable() {
        let m: MoveAnalysis = MoveAnalysis {
            mv: "ab".into(),
            after: "r..".into(),
            value: Some(Value::Win),
            result: None,
            remoteness: Some(3),
            colour: Colour::Green,
            decided_by: Decided::Table,
            estimate: None,
            detail: NoDetail {},
        };
        let j = serde_json::to_value(&m).unwrap();
        assert_eq!(
            j,
            serde_json::json!({"move": "ab", "after": "r..", "value": "win",
                "remoteness": 3, "colour": "green", "decided_by": "table"})
        );
    }
}
