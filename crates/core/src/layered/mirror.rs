//! The goal-reaching layers of a full enumeration from a time reversal.
//!
//! When σ turns every move round and maps the start onto the only goal, a
//! reachable position x at depth d reaches the goal exactly when σ(x) is
//! reachable, at depth `last - d` (the start reaches σ(x) along the images
//! of x's moves to the goal, and back). The full enumeration has every
//! reachable layer, so the goal-reaching positions of the shallower half
//! are those whose image lies in the matching deeper layer, one look-up
//! each, and the deeper half is the image of the shallower: the backward
//! pass then only counts, over these layers, instead of finding the
//! parents of each goal-reaching layer among all reachable positions.

use super::ctx::Ctx;
use super::dense::{bit, chunks, member_map, DENSE_CHUNK};
use super::layer::Layer;
use super::options::LayeredError;
use crate::{Reversible, Symmetric};
use rayon::prelude::*;

/// The goal's depth when the goal-reaching layers can be found from the
/// time reversal: the puzzle's reversal maps the start onto its one goal
/// (`goals` as [`super::full::goals_by_depth`] lists them), and the layers
/// hold every reachable position (no pruning: the look-ups ask whether a
/// position is reachable, not whether it survived a test).
pub(super) fn mirror_depth<P: Reversible + Symmetric>(
    puzzle: &P,
    goals: &[(usize, P::Position)],
    prune: bool,
) -> Option<usize> {
    let image = puzzle.reversal(&puzzle.start())?;
    let &[(last, goal)] = goals else {
        return None;
    };
    (!prune && goal == puzzle.canonical(&image)).then_some(last)
}

impl<'a, P: Reversible + Symmetric> Ctx<'a, P> {
    /// The goal-reaching part of every forward layer (`layers[d]` holds
    /// every position reachable in `d` moves; an empty layer past the
    /// goal's depth), each shaped as its forward layer (ranked or
    /// hashed). The caller has checked that each layer holds positions
    /// of one score (σ pairs depth d with depth `last - d` only then).
    /// `Ok(None)` where [`mirror_depth`] does not apply. Without `whole`,
    /// only the shallower half's, depths `0..=last / 2`.
    pub(super) fn mirrored_goal_layers(
        &self,
        goals: &[(usize, P::Position)],
        layers: &[Layer<P::Position>],
        whole: bool,
    ) -> Result<Option<Vec<Layer<P::Position>>>, LayeredError> {
        let Some(last) = mirror_depth(self.puzzle, goals, self.opts.prune) else {
            return Ok(None);
        };
        if last >= layers.len() {
            return Ok(None);
        }
        let m = last / 2;
        let mut good: Vec<Layer<P::Position>> = Vec::with_capacity(layers.len());
        for d in 0..=m {
            good.push(self.images_within(&layers[d], &layers[last - d]));
            self.progress.advance(1);
        }
        if !whole {
            return Ok(Some(good));
        }
        for d in m + 1..=last {
            let image = self.image_shaped(&good[last - d], &layers[d], d)?;
            good.push(image);
            self.progress.advance(1);
        }
        good.extend((last + 1..layers.len()).map(|_| Layer::from_buckets(Vec::new())));
        Ok(Some(good))
    }

    /// The members of `layer` whose canonical image under σ lies in
    /// `other`, in `layer`'s order and shape.
    fn images_within(
        &self,
        layer: &Layer<P::Position>,
        other: &Layer<P::Position>,
    ) -> Layer<P::Position> {
        let keep = |part: &[P::Position]| -> Vec<P::Position> {
            part.iter()
                .filter(|p| self.image(p).is_some_and(|q| other.contains(&q)))
                .copied()
                .collect()
        };
        let hashed = || self.shaped(layer.buckets.par_iter().map(|b| keep(b)).collect(), layer);
        // A ranked `other` is looked up in a bitmap of its members (the one
        // its step kept, or one made here), by the images' keys; any other
        // (or one the budget refuses) by its buckets.
        let Some((class, (dk, ranker))) = other.ranked.and_then(|class| {
            let maps = if other.reached.is_some() { 0 } else { 1 };
            Some((class, self.ranked_layer(class, maps)?))
        }) else {
            return hashed();
        };
        let Some(lr) = ranker.layer(class.0, class.1) else {
            return hashed();
        };
        let made;
        let map = match &other.reached {
            Some(map) => map,
            None => match member_map(dk, &lr, other) {
                Some(map) => {
                    made = map;
                    &made
                }
                None => return hashed(),
            },
        };
        self.images_in_map(layer, dk, &lr, map.words())
    }

    /// The goal-reaching members of `layer`, every reachable position at
    /// depth `depth` (or those a pruning kept), when the goal lies at
    /// depth `2 * depth + 1` and σ maps the start onto it: x reaches the
    /// goal exactly when σ(x), one move deeper, is reachable, and then it
    /// is a child of a goal-reaching member (the images of x's line to
    /// the goal lead there). So the layer's children are set in a bitmap
    /// of their ranked layer, as a forward step sets them but never read
    /// out, and each member is kept when its image's bit is set.
    /// `Ok(None)` where that step would not be dense.
    pub(super) fn dense_images_among_children(
        &self,
        layer: &Layer<P::Position>,
        depth: usize,
    ) -> Result<Option<Layer<P::Position>>, LayeredError> {
        let Some(dk) = self.puzzle.dense_keys() else {
            return Ok(None);
        };
        let fan = self.fanout(layer.iter(), layer.len(), true);
        let plan = self.plan(layer.len(), fan, depth + 1)?;
        Ok(self.children_map(layer, &plan, |map, lr, _, _, _| {
            self.images_in_map(layer, dk, lr, map.words())
        }))
    }

    /// The members of `layer` whose canonical image under σ has its bit
    /// set in `words`, a bitmap of the ranked layer `lr`, in `layer`'s
    /// order and shape.
    pub(super) fn images_in_map(
        &self,
        layer: &Layer<P::Position>,
        dk: &dyn crate::dense::DenseKeys<P::Position>,
        lr: &crate::dense::LayerRank<'_>,
        words: &[u64],
    ) -> Layer<P::Position> {
        let member = |k: u64| lr.rank(k).is_some_and(|r| bit(words, r));
        // Bucket by bucket, so that a hashed layer keeps its partition.
        let parts = layer
            .buckets
            .par_iter()
            .map_init(Vec::new, |keys, bucket| {
                let mut kept = Vec::new();
                for part in bucket.chunks(DENSE_CHUNK * 16) {
                    keys.clear();
                    if !self.image_keys(dk, part, keys) {
                        // Some position has no image: one at a time.
                        kept.extend(
                            part.iter()
                                .filter(|p| self.image(p).is_some_and(|q| member(dk.key(&q)))),
                        );
                        continue;
                    }
                    kept.extend(
                        part.iter()
                            .zip(keys.iter())
                            .filter(|&(_, &k)| member(k))
                            .map(|(p, _)| *p),
                    );
                }
                kept
            })
            .collect();
        self.shaped(parts, layer)
    }

    /// The canonical image of `p` under σ.
    fn image(&self, p: &P::Position) -> Option<P::Position> {
        let puzzle = self.puzzle;
        puzzle.reversal(p).map(|q| puzzle.canonical(&q))
    }

    /// Appends the keys of the canonical images of `part` under σ to
    /// `keys`, one a position (by the puzzle's batch where it has one);
    /// `false`, with `keys` untouched, when some position has no image.
    fn image_keys(
        &self,
        dk: &dyn crate::dense::DenseKeys<P::Position>,
        part: &[P::Position],
        keys: &mut Vec<u64>,
    ) -> bool {
        if dk.reversed_keys(part, keys) {
            return true;
        }
        let images: Vec<P::Position> = part.iter().filter_map(|p| self.image(p)).collect();
        if images.len() != part.len() {
            return false;
        }
        dk.keys(&images, keys);
        true
    }

    /// `parts`, the members kept of `like`'s buckets (or of its ranked
    /// runs, in order), as a layer shaped as `like`.
    fn shaped(
        &self,
        parts: Vec<Vec<P::Position>>,
        like: &Layer<P::Position>,
    ) -> Layer<P::Position> {
        match like.ranked {
            Some(class) => Layer::ranked(parts, class),
            None => Layer::from_parts(parts, like.sorted),
        }
    }

    /// The canonical images under σ of `layer`'s members, shaped as
    /// `like` (the forward layer of their depth): ranked in key order
    /// when `like` is ranked, hashed otherwise.
    fn image_shaped(
        &self,
        layer: &Layer<P::Position>,
        like: &Layer<P::Position>,
        depth: usize,
    ) -> Result<Layer<P::Position>, LayeredError> {
        let puzzle = self.puzzle;
        // The images lie in `like`'s ranked layer when the puzzle proves
        // its classes (every canonical reachable position of a depth has
        // that depth's class); otherwise they are hashed.
        let (Some(class), Some(dk)) = (like.ranked, puzzle.dense_keys()) else {
            return self.reversed(layer, depth);
        };
        if !dk.children_keep_class() {
            return self.reversed(layer, depth);
        }
        let mut keys: Vec<u64> = chunks(layer, DENSE_CHUNK * 16)
            .par_iter()
            .map(|part| {
                let mut keys = Vec::with_capacity(part.len());
                // A position without an image has no image to list.
                if !self.image_keys(dk, part, &mut keys) {
                    let images: Vec<P::Position> =
                        part.iter().filter_map(|p| self.image(p)).collect();
                    dk.keys(&images, &mut keys);
                }
                keys
            })
            .flatten()
            .collect();
        // σ is one-to-one on classes: no key twice.
        keys.par_sort_unstable();
        let runs = keys
            .par_chunks(DENSE_CHUNK * 16)
            .map(|part| {
                let mut pos = Vec::with_capacity(part.len());
                dk.positions(part, &mut pos);
                pos
            })
            .collect();
        Ok(Layer::ranked(runs, class))
    }
}
