//! The shape of every game's analysis ("hint") and the one colour policy.
//!
//! Each game crate's `api::analyze` returns an [`Analysis`]: the position's
//! value (two-player games) or result (puzzles), its remoteness, every
//! legal move with what it leads to and its [`Colour`], a best line, and
//! how the answer was decided. The command line prints it (`--json` prints
//! it as is) and the web sends it as is, so both answer alike.

use crate::budget::Budget;
use crate::Value;
use serde::{Deserialize, Serialize};
use std::time::Instant;

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

    /// Where moves of this colour stand in a list best first: keeping the
    /// win or goal, keeping the draw or best result, undecided, losing.
    pub fn rank(self) -> u8 {
        match self {
            Colour::Green => 0,
            Colour::Yellow => 1,
            Colour::Blue => 2,
            Colour::Red => 3,
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

impl Decided {
    /// Whether the answer is exact (from a table or a proof): what JSON
    /// calls `decided`, so a client tells "no moves" or "no value" from
    /// "not decided" without knowing every `decided_by`.
    pub fn exact(self) -> bool {
        matches!(self, Decided::Table | Decided::Search)
    }
}

/// How a study's answer was decided, one step finer than [`Decided`]:
/// which search found the line, or which proof shows there is none.
/// [`DecidedBy::decided`] maps it onto [`Decided`], so the studies, the
/// lab and the analyses speak one vocabulary; a game crate decides it
/// (from the test or search that answered, never from a reason's text)
/// and everyone downstream reads the variant. Its JSON and display name
/// is the words of [`DecidedBy::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DecidedBy {
    /// Solvable: the genetic search found a line to the goal.
    #[serde(rename = "search (genetic)")]
    GeneticSearch,
    /// Solvable: the depth-first search found a line to the goal.
    #[serde(rename = "search (dfs)")]
    DfsSearch,
    /// Impossible: the start's position class is not the goal's (an
    /// invariant no move changes).
    #[serde(rename = "position class")]
    PositionClass,
    /// Impossible: a pagoda function is below what the goal needs, and no
    /// move raises it.
    #[serde(rename = "pagoda")]
    Pagoda,
    /// Impossible: an exhaustive search found no line to the goal.
    #[serde(rename = "exhaustive search")]
    ExhaustiveSearch,
    /// Undecided: the budget ran out.
    #[serde(rename = "budget")]
    Budget,
}

impl DecidedBy {
    /// Every variant, in declaration order.
    pub const ALL: [DecidedBy; 6] = [
        DecidedBy::GeneticSearch,
        DecidedBy::DfsSearch,
        DecidedBy::PositionClass,
        DecidedBy::Pagoda,
        DecidedBy::ExhaustiveSearch,
        DecidedBy::Budget,
    ];

    /// Its name in words, as in JSON and in the lab's tables.
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::GeneticSearch => "search (genetic)",
            DecidedBy::DfsSearch => "search (dfs)",
            DecidedBy::PositionClass => "position class",
            DecidedBy::Pagoda => "pagoda",
            DecidedBy::ExhaustiveSearch => "exhaustive search",
            DecidedBy::Budget => "budget",
        }
    }

    /// The coarse [`Decided`]: a line reaching the goal and a proof of
    /// impossibility are both exact ([`Decided::Search`]); a spent budget
    /// is [`Decided::Undecided`].
    pub fn decided(self) -> Decided {
        match self {
            DecidedBy::Budget => Decided::Undecided,
            _ => Decided::Search,
        }
    }

    /// The solvability it stands for: `Some(true)` for a line found,
    /// `Some(false)` for a proof of impossibility, `None` for the budget.
    pub fn solvable(self) -> Option<bool> {
        match self {
            DecidedBy::GeneticSearch | DecidedBy::DfsSearch => Some(true),
            DecidedBy::PositionClass | DecidedBy::Pagoda | DecidedBy::ExhaustiveSearch => {
                Some(false)
            }
            DecidedBy::Budget => None,
        }
    }
}

impl std::fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `decided_by` in JSON with `decided` ([`Decided::exact`]) beside it
/// (a flattened field); reading takes `decided_by` alone.
mod decided_fields {
    use super::Decided;
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Decided, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("decided_by", d)?;
        m.serialize_entry("decided", &d.exact())?;
        m.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decided, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            decided_by: Decided,
        }
        Fields::deserialize(d).map(|f| f.decided_by)
    }
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
    /// How the move's value or result was decided; in JSON also
    /// `decided`: whether that is exact ([`Decided::exact`]).
    #[serde(flatten, with = "decided_fields")]
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
    /// How the position's value or result was decided; in JSON also
    /// `decided`: whether that is exact ([`Decided::exact`]).
    #[serde(flatten, with = "decided_fields")]
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

    /// Whether the position and every move are decided.
    pub fn settled(&self) -> bool {
        self.decided_by != Decided::Undecided && self.undecided() == 0
    }
}

impl<D: Clone, P: Clone> Analysis<D, P> {
    /// Folds in an earlier answer to the same question: a move this answer
    /// left undecided (blue) takes the earlier answer's decided one, and
    /// an undecided position takes the earlier decided value. Every
    /// decided answer is exact, so two answers never disagree on one; only
    /// a budget spent differently decides different moves. Moves stay
    /// best first: decided ones before the undecided, losing ones last.
    pub fn keep_decided(&mut self, earlier: &Analysis<D, P>) {
        let mut changed = false;
        for m in self.moves.iter_mut().filter(|m| m.colour == Colour::Blue) {
            if let Some(e) = earlier
                .moves
                .iter()
                .find(|e| e.mv == m.mv && e.colour != Colour::Blue)
            {
                *m = e.clone();
                changed = true;
            }
        }
        if changed {
            // Stable: each colour keeps the service's own order.
            self.moves.sort_by_key(|m| m.colour.rank());
        }
        if self.decided_by == Decided::Undecided && earlier.decided_by != Decided::Undecided {
            self.value = earlier.value;
            self.result = earlier.result;
            self.remoteness = earlier.remoteness;
            self.decided_by = earlier.decided_by;
            self.line = earlier.line.clone();
            self.detail = earlier.detail.clone();
            if self.settled() {
                self.reason = None;
                self.estimate = None;
            }
        }
    }
}

/// Thinks longer about one question: `analyze` is asked in up to `rounds`
/// rounds of doubling budgets, the last with `last`'s nodes and time left
/// (each round's time counts from its own start, so all the rounds
/// together take up to twice `last`'s time), all sharing its cancel
/// token. After each round the answers so far, folded together
/// ([`Analysis::keep_decided`]), go to `emit` with the round's number
/// (from 1); it returns `false` to stop. The rounds end early when
/// everything is decided or the token is cancelled. Returns the last
/// folded answer (`None` if no round ran).
///
/// A fresh analysis with a larger budget is how every service answers
/// "think longer": the services keep what outlives a question (tables,
/// transposition tables) themselves, and a doubling series wastes at most
/// the last round's half.
pub fn deepen<D: Clone, P: Clone>(
    last: &Budget,
    rounds: u32,
    mut analyze: impl FnMut(&Budget) -> Analysis<D, P>,
    mut emit: impl FnMut(u32, &Analysis<D, P>) -> bool,
) -> Option<Analysis<D, P>> {
    let rounds = rounds.clamp(1, 16);
    let time = last.remaining();
    let mut so_far: Option<Analysis<D, P>> = None;
    for k in 1..=rounds {
        if last.cancelled() {
            break;
        }
        let shift = rounds - k;
        let budget = Budget {
            nodes: last.nodes.map(|n| (n >> shift).max(1)),
            deadline: time.and_then(|t| Instant::now().checked_add(t / (1 << shift))),
            ..last.clone()
        };
        let mut a = analyze(&budget);
        if let Some(e) = &so_far {
            a.keep_decided(e);
        }
        let done = a.settled();
        let go_on = emit(k, &a);
        so_far = Some(a);
        if done || !go_on {
            break;
        }
    }
    so_far
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
    fn decided_by_names_round_trip_and_map_onto_decided() {
        for d in DecidedBy::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.as_str()));
            assert_eq!(serde_json::from_str::<DecidedBy>(&json).unwrap(), d);
            assert_eq!(d.to_string(), d.as_str());
            // Exact exactly when it says solvable or not.
            assert_eq!(d.decided().exact(), d.solvable().is_some(), "{d}");
        }
        assert_eq!(DecidedBy::Budget.decided(), Decided::Undecided);
        assert_eq!(DecidedBy::Pagoda.solvable(), Some(false));
        assert_eq!(DecidedBy::GeneticSearch.solvable(), Some(true));
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

    fn mv(name: &str, colour: Colour) -> MoveAnalysis {
        MoveAnalysis {
            mv: name.into(),
            after: String::new(),
            value: match colour {
                Colour::Green => Some(Value::Win),
                Colour::Red => Some(Value::Loss),
                Colour::Yellow => Some(Value::Draw),
                Colour::Blue => None,
            },
            result: None,
            remoteness: None,
            colour,
            decided_by: if colour == Colour::Blue {
                Decided::Undecided
            } else {
                Decided::Search
            },
            estimate: None,
            detail: NoDetail {},
        }
    }

    fn answer(moves: Vec<MoveAnalysis>, value: Option<Value>) -> Analysis {
        Analysis {
            game: "test".into(),
            position: "p".into(),
            to_move: None,
            over: false,
            value,
            result: None,
            remoteness: None,
            decided_by: if value.is_some() {
                Decided::Search
            } else {
                Decided::Undecided
            },
            reason: value.is_none().then(|| "out of time".to_string()),
            estimate: None,
            moves,
            line: Vec::new(),
            detail: NoDetail {},
            time_ms: 0.0,
        }
    }

    #[test]
    fn a_later_answer_keeps_what_an_earlier_one_decided() {
        use Colour::*;
        let earlier = answer(
            vec![mv("a", Red), mv("b", Blue), mv("c", Green)],
            Some(Value::Win),
        );
        let mut later = answer(vec![mv("b", Yellow), mv("a", Blue), mv("c", Blue)], None);
        later.keep_decided(&earlier);
        let order: Vec<(&str, Colour)> = later.moves.iter().map(|m| (&*m.mv, m.colour)).collect();
        assert_eq!(order, [("c", Green), ("b", Yellow), ("a", Red)]);
        assert_eq!(later.value, Some(Value::Win));
        assert_eq!(later.reason, None);
        assert!(later.settled());
        // Nothing decided earlier: nothing changes.
        let mut again = answer(vec![mv("a", Blue)], None);
        again.keep_decided(&answer(vec![mv("a", Blue)], None));
        assert_eq!(again.undecided(), 1);
        assert!(!again.settled());
    }

    #[test]
    fn thinking_longer_doubles_the_budget_and_stops_once_decided() {
        use std::time::Duration;
        let last = Budget::time(Duration::from_secs(60)).with_nodes(800);
        let mut asked = Vec::new();
        let mut emitted = Vec::new();
        // Undecided with fewer than 400 nodes, decided from 400.
        let out = deepen(
            &last,
            4,
            |b| {
                asked.push(b.nodes.unwrap());
                let t = b.remaining().unwrap();
                assert!(t <= Duration::from_secs(60) / (800 / b.nodes.unwrap() as u32));
                if b.nodes.unwrap() >= 400 {
                    answer(vec![mv("a", Colour::Green)], Some(Value::Win))
                } else {
                    answer(vec![mv("a", Colour::Blue)], None)
                }
            },
            |k, a| {
                emitted.push((k, a.settled()));
                true
            },
        )
        .unwrap();
        assert_eq!(asked, [100, 200, 400]);
        assert_eq!(emitted, [(1, false), (2, false), (3, true)]);
        assert!(out.settled());
    }

    #[test]
    fn thinking_longer_stops_when_told_or_cancelled() {
        let last = Budget::unlimited().with_nodes(64);
        let undecided = |_: &Budget| answer(vec![mv("a", Colour::Blue)], None);
        let mut n = 0;
        let out = deepen(&last, 3, undecided, |_, _| {
            n += 1;
            false
        });
        assert_eq!(n, 1);
        assert!(!out.unwrap().settled());
        last.cancel.cancel();
        assert!(deepen(&last, 3, undecided, |_, _| true).is_none());
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
                "remoteness": 3, "colour": "green", "decided_by": "table", "decided": true})
        );
        let back: MoveAnalysis = serde_json::from_value(j).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn json_says_decided_beside_decided_by() {
        let mut a = answer(vec![mv("ab", Colour::Blue)], None);
        let j = serde_json::to_value(&a).unwrap();
        assert_eq!(j["decided_by"], "undecided");
        assert_eq!(j["decided"], false);
        assert_eq!(j["moves"][0]["decided"], false);
        a.decided_by = Decided::Heuristic;
        assert_eq!(serde_json::to_value(&a).unwrap()["decided"], false);
        a.decided_by = Decided::Search;
        a.moves[0].decided_by = Decided::Table;
        let j = serde_json::to_value(&a).unwrap();
        assert_eq!(
            (&j["decided"], &j["moves"][0]["decided"]),
            (&true.into(), &true.into())
        );
        let back: Analysis = serde_json::from_value(j).unwrap();
        assert_eq!(back, a);
    }
}
