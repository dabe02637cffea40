//! Layered enumeration of a puzzle's whole reachable graph.
//!
//! Every move of the puzzles this serves takes a position one layer on
//! (peg solitaire and Martello remove one piece per move), so positions
//! reached after `d` moves form layer `d`. Each layer is kept as a vector of
//! canonical representatives (symmetry-reduced).
//!
//! A backward pass from the goal positions, run over the parents of the
//! positions known to reach the goal and intersected with the forward
//! layers, yields the positions that can still reach the goal and the exact
//! number of distinct move sequences from each of them to a goal.
//!
//! Symmetry and counting. The puzzle's symmetry group must fix the start
//! and the goal set. Then the reachable set and the number of solutions
//! `N(p)` from `p` are invariant, and for representatives `q` (next layer)
//! and `r` (this layer):
//! `N(r) = [goal r] + (1/|O_r|) * Σ_q N(q)·|O_q|·A(q, r)`, where `A(q, r)`
//! counts the (parent, move) pairs of `q` whose parent is equivalent to `r`
//! and `|O|` are orbit sizes. (Double counting of the group action: both
//! sides count moves from the orbit of `r` into the orbit of `q`.)
//!
//! De-duplication. A layer is stored hash-partitioned: positions are split
//! into buckets by the high bits of a hash, and sorted within each bucket.
//! Children are scattered into a few coarse buckets as they are generated
//! (one streaming pass), each coarse bucket is split into fine ones, and
//! every fine bucket is de-duplicated in a hash table that fits in the
//! core's cache and sorted (only its distinct members, about an eighth of
//! the children on peg boards). Membership tests hash to a bucket and
//! binary-search it; two layers partitioned alike intersect bucket by
//! bucket. When only the goal-reaching set is wanted from the two ends
//! with a time reversal, nothing merges the layers: their buckets stay in
//! table order, unsorted, and members are looked up in a table of the
//! bucket instead. When the children of a layer would not fit in the memory
//! budget, the parents are taken in batches, each leaving sorted runs of
//! distinct children that are merged at the end; and when no backward
//! pass is wanted (or the goal is provably out of reach) only the newest
//! layer is kept.
//!
//! Ranked layers. A big layer of a puzzle with dense keys is de-duplicated
//! in a bitmap indexed by the rank of each key among those the layer can
//! hold ([`crate::dense`]); the bitmap's scan hands the members back in
//! key order, and the layer keeps them so, cut into runs, with no hash
//! partition. Membership is then a bit of the layer's bitmap (rebuilt from
//! the sorted members, in order, when wanted): the meeting across the
//! middle tests every candidate that way. The steps down of the
//! goal-only search go the other way round: the parents of the next
//! goal-reaching layer set their bits in a bitmap of the forward layer,
//! and each member, read in key order, is kept when its bit is set. The
//! counted backward pass over ranked layers finds each layer's
//! goal-reaching members the same way and pulls each one's count from its
//! children, looked up by rank in a bitmap of the next layer's
//! goal-reaching members and the popcounts before each word. Whatever
//! else merges or looks up by bucket (the goal-only solution counts,
//! intersections, small layers) partitions a ranked layer by hash first.
//!
//! Goal-only mode ([`LayeredOptions::count_all`] off). To find only the
//! positions that reach the goal and count the solutions, the search runs
//! from both ends: forward layers from the start and backward layers (every
//! position that can reach a goal) from the goals, always growing the
//! smaller frontier, until they meet at a depth `m`. The goal-reaching
//! positions of layer `m` are the intersection; deeper ones are the
//! children of the shallower goal-reaching layer found in the backward
//! layers; shallower ones come from the usual backward pass, or, when a
//! table wants the layers without the counts, from the parents of the
//! deeper goal-reaching layer found in the forward layers. This needs
//! every move to lower the score by exactly one (the layer of a position is
//! then `score(start) - score(pos)`); puzzles where that fails fall back to
//! the full enumeration.
//!
//! With a time reversal σ (a single goal that is σ of the start, as the
//! complement is for peg solitaire), no backward layer is built: the
//! positions of depth `d` that reach the goal are σ of those reached from
//! the start at depth `last - d`. The forward layers go to the middle
//! `m = last / 2` only, the goal-reaching ones of depth `m` are found there
//! (across the middle move when `last` is odd, by a semi-join: every
//! candidate is looked up in a table of its bucket's members and the hits
//! are marked, with nothing de-duplicated or sorted, and each pair of the
//! symmetric relation named from one end), those of smaller depths by
//! stepping back inside the forward layers, and the deeper half is only
//! counted, as their mirror images. The solutions are counted forward over
//! the shallower half and once across the middle (`mirrored_solutions`);
//! the solutions through each first move are then not reported.
//!
//! The full enumeration uses the same reversal when the layers hold every
//! reachable position (no pruning) and each holds one score: a position of
//! depth `d <= last / 2` reaches the goal exactly when σ of it lies in
//! forward layer `last - d`, one look-up in the bitmap that layer kept
//! from its step; the deeper goal-reaching layers are σ of the shallower
//! ones; and the counted backward pass runs over these exact layers, with
//! no step that searches a forward layer for parents (`mirror.rs`). When
//! neither the solutions through each first move nor every depth's
//! goal-reaching layer is wanted ([`LayeredOptions::first_moves`]), only
//! the shallower half's goal-reaching layers are made and the solutions
//! are counted from them as on the goal-only route.
//!
//! One idea a file: what an enumeration is told and reports
//! (`options.rs`); the hash-partitioned layer and its scatter
//! buffer (`layer.rs`); the per-bucket de-duplication table
//! (`table.rs`); the parallel gather that builds a layer from produced
//! items (`gather.rs`); the enumeration's context and forward step
//! (`ctx.rs`), the forward step by a ranked bitmap (`dense.rs`); the steps
//! between layers inside given sets (`steps.rs`); the solution counts
//! (`counts.rs`); the full run ([`enumerate`], `full.rs`); its
//! goal-reaching layers from a time reversal (`mirror.rs`); and the
//! meeting of the goal-only search from both ends (`meet.rs`).

mod counts;
mod ctx;
mod dense;
mod full;
mod gather;
mod layer;
mod meet;
mod mirror;
mod options;
mod steps;
mod table;
#[cfg(test)]
mod tests;

pub use ctx::canonical_parents;
pub use full::{enumerate, goals_by_depth, hopeless, Best};
pub use options::{LayerStats, LayeredError, LayeredOptions, LayeredReport, Progress, Silent};
