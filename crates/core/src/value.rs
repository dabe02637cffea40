use serde::{Deserialize, Serialize};
use std::fmt;

/// The game-theoretic value of a two-player position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Value {
    /// The player to move wins with perfect play.
    Win,
    /// The player to move loses against perfect play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// Not decided within the budget.
    Unknown,
}

impl Value {
    /// The value of the same position seen from the other player.
    pub fn flip(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Loss => Value::Win,
            v => v,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Value::Win => "win",
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Unknown => "unknown",
        })
    }
}

/// A value with its remoteness (moves to the end under perfect play).
///
/// Follows the GamesCrafters convention: the winner plays the fastest win,
/// the loser the slowest loss. Draws have no remoteness here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The value for the player to move.
    pub value: Value,
    /// Moves to the end under perfect play, when known.
    pub remoteness: Option<u32>,
}

impl Outcome {
    /// The outcome of a position from which `child` (the opponent's outcome
    /// after one move) was reached: value flipped, one move further.
    pub fn parent_of(child: Outcome) -> Outcome {
        Outcome {
            value: child.value.flip(),
            remoteness: child.remoteness.map(|r| r + 1),
        }
    }

    /// True when `self` is better than `other` for the player to move:
    /// a win beats a draw beats a loss; among wins the faster, among losses
    /// the slower.
    pub fn better_than(&self, other: &Outcome) -> bool {
        fn rank(v: Value) -> i32 {
            match v {
                Value::Win => 3,
                Value::Draw => 2,
                Value::Unknown => 1,
                Value::Loss => 0,
            }
        }
        let (a, b) = (rank(self.value), rank(other.value));
        if a != b {
            return a > b;
        }
        let (ra, rb) = (self.remoteness.unwrap_or(0), other.remoteness.unwrap_or(0));
        match self.value {
            Value::Win => ra < rb,
            Value::Loss => ra > rb,
            _ => false,
        }
    }

    /// Orders outcomes best first for the player to move ([`Outcome::better_than`]);
    /// equally good ones compare equal, so a stable sort keeps their order.
    pub fn best_first(&self, other: &Outcome) -> std::cmp::Ordering {
        if self.better_than(other) {
            std::cmp::Ordering::Less
        } else if other.better_than(self) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_is_involution_and_swaps_win_loss() {
        for v in [Value::Win, Value::Loss, Value::Draw, Value::Unknown] {
            assert_eq!(v.flip().flip(), v);
        }
        assert_eq!(Value::Win.flip(), Value::Loss);
        assert_eq!(Value::Draw.flip(), Value::Draw);
    }

    #[test]
    fn outcome_order_prefers_fast_wins_and_slow_losses() {
        let w = |r| Outcome {
            value: Value::Win,
            remoteness: Some(r),
        };
        let l = |r| Outcome {
            value: Value::Loss,
            remoteness: Some(r),
        };
        assert!(w(3).better_than(&w(5)));
        assert!(!w(5).better_than(&w(3)));
        assert!(l(5).better_than(&l(3)));
        assert!(l(100).better_than(&l(1)) && w(100).better_than(&l(100)));
        assert_eq!(Outcome::parent_of(l(4)), w(5));
    }
}
