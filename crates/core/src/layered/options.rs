//! What an enumeration is told and what it reports: the progress
//! callback, the options and budgets, the error, and the report with its
//! per-layer statistics.

use super::dense::{DENSE_DIRECT_BYTES, DENSE_MIN_CHILDREN};
use crate::budget::Budget;

/// Receives progress reports from long enumerations (for progress bars).
pub trait Progress: Sync {
    /// A new phase begins with `total` units of work.
    fn phase(&self, name: &str, total: u64);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// One unit of the current phase took `seconds` (a tracker may show
    /// the slowest so far; by default ignored).
    fn took(&self, _seconds: f64) {}
}

/// A [`Progress`] that ignores everything.
pub struct Silent;

impl Progress for Silent {
    fn phase(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
}

/// Budgets and switches of an enumeration.
#[derive(Clone, Debug)]
pub struct LayeredOptions {
    /// Abort with [`LayeredError::MemoryBudget`] when the stored layers and
    /// buffers would exceed this many bytes.
    pub max_bytes: usize,
    /// Run the backward pass (goal-reaching positions, solution counts).
    pub backward: bool,
    /// Keep at most this many best final positions in the report.
    pub max_final_positions: usize,
    /// Enumerate every reachable position (the default). When `false`, only
    /// the goal-reaching positions and the number of solutions are wanted:
    /// the search runs from both ends and meets in the middle (see the
    /// module documentation), which is much faster. The goal-reaching
    /// counts and solutions stay exact; the per-layer `reduced`/`raw`
    /// counts and the best positions then cover only the positions the
    /// search visited (`raw` is left at 0), and
    /// [`LayeredReport::complete`] is `false`. Implies `backward`.
    pub count_all: bool,
    /// Drop from the forward layers every position that
    /// [`Puzzle::cannot_reach_goal`] rules out. Such positions cannot
    /// contribute to the goal-reaching set or to the solutions, so those
    /// stay exact; the reachable counts become incomplete
    /// ([`LayeredReport::complete`] is `false`).
    pub prune: bool,
    /// Count the solutions (the default). When `false` in the goal-only
    /// mode of a puzzle with a time reversal, the goal-reaching set comes
    /// from the two ends alone and the counting pass is skipped
    /// ([`LayeredReport::solutions`] is `None`); so too on the other
    /// goal-only route when the goal layers are kept
    /// ([`LayeredOptions::keep_goal_layers`]: a table wants the positions,
    /// not their counts), whose shallower layers are then stepped back
    /// inside the forward ones without counts. Elsewhere the counting pass
    /// is how the goal set is found, and it runs anyway.
    pub count_solutions: bool,
    /// Deadline and cancel token, checked before each layer (or pass) is
    /// built: [`LayeredError::Stopped`] when either has passed. Its node
    /// and memory limits are not used (`max_bytes` bounds the memory).
    pub budget: Budget,
    /// Hand back the goal-reaching positions layer by layer
    /// ([`LayeredReport::goal_layers`]): on the goal-only route met at the
    /// middle by the time reversal, those of the first half of the moves
    /// (the deeper half is their reversal); on every other route, those of
    /// every depth. A solved table is built from them.
    pub keep_goal_layers: bool,
    /// Fewest children (duplicates included) for which a layer built
    /// forward is de-duplicated in a ranked bitmap, when the puzzle has
    /// dense keys ([`crate::Symmetric::dense_keys`]) and the bitmap fits the
    /// budget. Below it, or when the bitmap would be sparse (more than a
    /// few bytes a child), the layer is hashed. 0 uses the bitmap whenever
    /// the puzzle allows it (tests); `usize::MAX` never.
    pub dense_min_children: usize,
    /// Largest ranked bitmap whose bits are set directly, at random, in a
    /// bitmap a thread; a bigger one, or one whose copies a thread would
    /// not fit half the budget, is filled segment by segment from
    /// buffered ranks. No cap by default; 0: always by segments (tests).
    pub dense_direct_bytes: usize,
    /// Count the solutions through each canonical first move
    /// ([`LayeredReport::child_solutions`]; the default). Off, a full
    /// enumeration of a puzzle with a time reversal counts the solutions
    /// from its shallower half alone, as the goal-only route does, in
    /// half the counting steps (the goal-reaching layers of the deeper
    /// half are not built either).
    pub first_moves: bool,
}

impl Default for LayeredOptions {
    fn default() -> Self {
        LayeredOptions {
            max_bytes: 8 << 30,
            backward: true,
            max_final_positions: 10_000,
            count_all: true,
            prune: false,
            count_solutions: true,
            budget: Budget::unlimited(),
            keep_goal_layers: false,
            dense_min_children: DENSE_MIN_CHILDREN,
            dense_direct_bytes: DENSE_DIRECT_BYTES,
            first_moves: true,
        }
    }
}

/// Why an enumeration stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayeredError {
    /// The memory budget would be exceeded.
    #[error(
        "memory budget of {budget} bytes exceeded at layer {layer} (needs about {needed} bytes)"
    )]
    MemoryBudget {
        /// The budget in bytes.
        budget: usize,
        /// The layer being built.
        layer: usize,
        /// The bytes it would have needed.
        needed: usize,
    },
    /// The budget's deadline passed or its cancel token was set.
    #[error("stopped at layer {layer}: the time budget ran out or the work was cancelled")]
    Stopped {
        /// The layer about to be built.
        layer: usize,
    },
}

/// Counts of one layer (positions after `depth` moves).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// Moves from the start.
    pub depth: usize,
    /// Reachable positions, up to symmetry.
    pub reduced: u64,
    /// Reachable positions, all of them (sum of class sizes).
    pub raw: u64,
    /// Reachable positions that can still reach a goal, up to symmetry.
    pub to_goal_reduced: u64,
    /// Reachable positions that can still reach a goal, all of them.
    pub to_goal_raw: u64,
}

/// The result of a layered enumeration.
#[derive(Clone, Debug)]
pub struct LayeredReport<P> {
    /// One entry per layer, from the start (depth 0).
    pub layers: Vec<LayerStats>,
    /// Whether some goal position is reachable.
    pub goal_reachable: bool,
    /// Distinct move sequences from the start to a goal (backward pass).
    pub solutions: Option<u128>,
    /// Lowest score of any reachable position.
    pub best_score: u32,
    /// Canonical reachable positions with the lowest score (up to the cap),
    /// sorted.
    pub best_positions: Vec<P>,
    /// How many canonical positions have the lowest score.
    pub best_count: u64,
    /// Canonical children of the start with the number of solutions through
    /// each (when the backward pass ran): the data of a hint. Goal-only
    /// enumerations of puzzles with a time reversal count the solutions
    /// from the shallower half alone and leave this empty.
    pub child_solutions: Vec<(P, u128)>,
    /// With [`LayeredOptions::keep_goal_layers`]: the canonical
    /// goal-reaching positions after `d` moves, each layer sorted, for `d`
    /// from 0 to the middle on the mirrored goal-only route (the deeper
    /// half is their reversal) and from 0 to the deepest goal on the
    /// others; empty otherwise, or when no goal is reachable.
    pub goal_layers: Vec<Vec<P>>,
    /// Bytes held by the stored layers at their largest.
    pub table_bytes: usize,
    /// Bytes of the largest ranked bitmap a layer was de-duplicated in
    /// (0 when every layer was hashed).
    pub bitmap_bytes: usize,
    /// Peak resident memory of the process, when the platform tells.
    pub peak_rss: Option<u64>,
    /// Whether `reduced`, `raw`, `best_*` cover every reachable position
    /// (false with [`LayeredOptions::prune`] or without
    /// [`LayeredOptions::count_all`]: then they cover the positions the
    /// search visited).
    pub complete: bool,
}
