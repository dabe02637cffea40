//! A solved Sim variant as a compact table: the value and remoteness of
//! every reachable non-terminal position up to isomorphism, built layer by
//! layer in parallel and kept on disk between runs.
//!
//! Terminal positions (a triangle just completed, or a full board) are not
//! stored: the rules decide them, and they are two thirds of K8's
//! 17,543,777 classes. What remains (5,596,437 on K8) is stored as sorted
//! canonical keys and one byte per outcome, 9 bytes a position, looked up
//! by binary search.
//!
//! # Building
//!
//! Forward, one move number at a time: every position of the layer is
//! expanded, its non-terminal children put in canonical form (the costly
//! step, done once per edge and spread over the cores), the next layer is
//! their sorted, deduplicated set and each edge is kept as the child's
//! index in it (4 bytes). Backward, from the last layer: each position's
//! outcome is the best over its terminal children (rules) and its stored
//! children's outcomes. It gives exactly the strong solution
//! ([`crate::solve::strong`]) on the stored positions; a test checks it.
//!
//! # Payload format (version [`FORMAT_VERSION`])
//!
//! Little-endian: `n` (u8), misère (u8), two zero bytes, the count (u64),
//! then `count` keys (u64, strictly increasing; red mask in the low 32
//! bits, blue in the high ones), then `count` outcome bytes (bits 0–1: 0
//! win, 1 loss, 2 draw for the player to move; bits 2–7: remoteness).

use crate::game::{Segment, Sim, SimPos};
use endgame_core::budget::Budget;
use endgame_core::strong::Keyed;
use endgame_core::{Game, Outcome, Rules, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The version of the payload format; a file of another version is
/// rebuilt.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes before the keys.
const HEADER: usize = 12;

/// Reachable non-terminal positions up to isomorphism, per n = 3 … 8 (the
/// same for both rules): what a build's progress is measured against.
pub const STORED: [u64; 6] = [3, 17, 135, 2_250, 77_608, 5_596_437];

/// The positions stored for K_n.
pub fn expected_entries(n: usize) -> u64 {
    STORED[n - crate::MIN_N]
}

/// Why a build stopped without a table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the build was stopped (cancelled or out of time) before the end")]
pub struct Stopped;

/// A solved variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    n: usize,
    misere: bool,
    keys: Vec<u64>,
    outcomes: Vec<u8>,
}

/// The table key of a position.
fn key(p: &SimPos) -> u64 {
    u64::from(p.red) | u64::from(p.blue) << 32
}

fn unkey(k: u64) -> SimPos {
    SimPos {
        red: k as u32,
        blue: (k >> 32) as u32,
    }
}

fn encode(o: Outcome) -> u8 {
    let v = match o.value {
        Value::Win => 0,
        Value::Loss => 1,
        _ => 2,
    };
    v | (o.remoteness.unwrap_or(0).min(63) as u8) << 2
}

fn decode(b: u8) -> Outcome {
    let value = match b & 3 {
        0 => Value::Win,
        1 => Value::Loss,
        _ => Value::Draw,
    };
    let remoteness = (value != Value::Draw).then_some(u32::from(b >> 2));
    Outcome { value, remoteness }
}

/// The outcome of a finished position for the player to move.
pub(crate) fn terminal(v: Value) -> Outcome {
    Outcome {
        value: v,
        remoteness: matches!(v, Value::Win | Value::Loss).then_some(0),
    }
}

/// How a move from a non-terminal position ends: `Some` for a move that
/// finishes the game (its outcome for the player to move after it),
/// `None` for one that leads to a stored position.
fn finishing(sim: &Sim, occupied: u32, mine: u32, s: u8) -> Option<Outcome> {
    if sim.closes_triangle(mine, Segment(s)) {
        // The mover's own triangle: standard, the next player has won.
        Some(terminal(if sim.misere() {
            Value::Loss
        } else {
            Value::Win
        }))
    } else if occupied | 1 << s == sim.full() {
        Some(terminal(Value::Draw))
    } else {
        None
    }
}

/// The canonical keys of the stored children of `p`, sorted, without
/// repeats, appended to `out`; returns how many.
fn live_children(sim: &Sim, p: &SimPos, out: &mut Vec<u64>) -> u32 {
    let (mine, _) = sim.sides(p);
    let occupied = p.red | p.blue;
    let start = out.len();
    let mut free = sim.full() & !occupied;
    while free != 0 {
        let s = free.trailing_zeros() as u8;
        free &= free - 1;
        if finishing(sim, occupied, mine, s).is_none() {
            let c = sim.play_unchecked(p, Segment(s));
            out.push(key(&sim.canonical_key(&c)));
        }
    }
    out[start..].sort_unstable();
    let mut w = start;
    for r in start..out.len() {
        if w == start || out[r] != out[w - 1] {
            out[w] = out[r];
            w += 1;
        }
    }
    out.truncate(w);
    (w - start) as u32
}

/// The best outcome for the player to move among children outcomes.
fn best_of(kids: impl Iterator<Item = Outcome>) -> Option<Outcome> {
    let mut best: Option<Outcome> = None;
    for c in kids {
        let mine = Outcome::parent_of(c);
        if best.is_none_or(|b| mine.better_than(&b)) {
            best = Some(mine);
        }
    }
    best
}

/// One layer's edges: children of parent `i` are
/// `child[offsets[i]..offsets[i + 1]]`, indices into the next layer.
struct Edges {
    offsets: Vec<u32>,
    child: Vec<u32>,
}

/// Parents handed to one parallel task.
const CHUNK: usize = 2048;

impl Solved {
    /// Solves every reachable position of `sim`, checking `budget`
    /// (deadline, cancel token) as it goes; `done` counts the positions
    /// handled (each twice: once forward, once backward), for progress
    /// against twice [`expected_entries`].
    pub fn build(sim: &Sim, budget: &Budget, done: &AtomicU64) -> Result<Solved, Stopped> {
        let stop = AtomicBool::new(false);
        let halt = || {
            if stop.load(Ordering::Relaxed) || budget.stop() {
                stop.store(true, Ordering::Relaxed);
                true
            } else {
                false
            }
        };
        let mut layers: Vec<Vec<u64>> = vec![vec![key(&sim.start())]];
        let mut edges: Vec<Edges> = Vec::new();
        loop {
            let parents = layers.last().expect("the start's layer");
            let parts: Vec<(Vec<u32>, Vec<u64>)> = parents
                .par_chunks(CHUNK)
                .map(|chunk| {
                    let mut counts = Vec::with_capacity(chunk.len());
                    let mut kids = Vec::new();
                    if halt() {
                        return (counts, kids);
                    }
                    for &p in chunk {
                        counts.push(live_children(sim, &unkey(p), &mut kids));
                    }
                    done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    (counts, kids)
                })
                .collect();
            if stop.load(Ordering::Relaxed) {
                return Err(Stopped);
            }
            let total: usize = parts.iter().map(|(_, k)| k.len()).sum();
            let mut offsets = Vec::with_capacity(parents.len() + 1);
            offsets.push(0u32);
            let mut flat: Vec<u64> = Vec::with_capacity(total);
            for (counts, kids) in parts {
                for c in counts {
                    offsets.push(offsets.last().copied().unwrap_or(0) + c);
                }
                flat.extend_from_slice(&kids);
            }
            if flat.is_empty() {
                edges.push(Edges {
                    offsets,
                    child: Vec::new(),
                });
                break;
            }
            let mut next = flat.clone();
            next.par_sort_unstable();
            next.dedup();
            next.shrink_to_fit();
            let child: Vec<u32> = flat
                .par_iter()
                .map(|k| {
                    next.binary_search(k)
                        .expect("every child is in the next layer") as u32
                })
                .collect();
            drop(flat);
            edges.push(Edges { offsets, child });
            layers.push(next);
        }
        // Backward: the last layer has no stored children.
        let mut values: Vec<Vec<u8>> = vec![Vec::new(); layers.len()];
        for k in (0..layers.len()).rev() {
            let e = edges.pop().expect("one edge list per layer");
            let next: &[u8] = values.get(k + 1).map_or(&[], |v| v.as_slice());
            let parts: Vec<Vec<u8>> = layers[k]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(ci, chunk)| {
                    let mut out = Vec::with_capacity(chunk.len());
                    if halt() {
                        return out;
                    }
                    for (j, &p) in chunk.iter().enumerate() {
                        let i = ci * CHUNK + j;
                        let pos = unkey(p);
                        let (mine, _) = sim.sides(&pos);
                        let occupied = pos.red | pos.blue;
                        let free = sim.full() & !occupied;
                        let ends = (0..sim.segments() as u8)
                            .filter(|s| free >> s & 1 == 1)
                            .filter_map(|s| finishing(sim, occupied, mine, s));
                        let (lo, hi) = (e.offsets[i] as usize, e.offsets[i + 1] as usize);
                        let stored = e.child[lo..hi].iter().map(|&c| decode(next[c as usize]));
                        let o = best_of(ends.chain(stored))
                            .expect("a stored position is not over, so it has moves");
                        out.push(encode(o));
                    }
                    done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    out
                })
                .collect();
            if stop.load(Ordering::Relaxed) {
                return Err(Stopped);
            }
            values[k] = parts.concat();
        }
        let mut all: Vec<(u64, u8)> = layers
            .into_iter()
            .zip(values)
            .flat_map(|(ks, vs)| ks.into_iter().zip(vs))
            .collect();
        all.par_sort_unstable_by_key(|&(k, _)| k);
        let (keys, outcomes) = all.into_iter().unzip();
        Ok(Solved {
            n: sim.n(),
            misere: sim.misere(),
            keys,
            outcomes,
        })
    }

    /// Positions stored.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether nothing is stored (never, for a built table).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether this is the table of `sim`'s variant.
    pub fn is_for(&self, sim: &Sim) -> bool {
        self.n == sim.n() && self.misere == sim.misere()
    }

    /// The outcome of any valid position of the variant for the player to
    /// move: finished positions by the rules, the others from the table
    /// (`None` only if the position is not in it, which a valid position
    /// of this variant never is).
    pub fn outcome(&self, sim: &Sim, pos: &SimPos) -> Option<Outcome> {
        if let Some(v) = sim.outcome(pos) {
            return Some(terminal(v));
        }
        let k = key(&sim.canonical_key(pos));
        self.keys
            .binary_search(&k)
            .ok()
            .map(|i| decode(self.outcomes[i]))
    }

    /// Every stored position with its outcome, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (SimPos, Outcome)> + '_ {
        self.keys
            .iter()
            .zip(&self.outcomes)
            .map(|(&k, &o)| (unkey(k), decode(o)))
    }

    /// The payload of the table file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER + 9 * self.keys.len());
        b.push(self.n as u8);
        b.push(u8::from(self.misere));
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for k in &self.keys {
            b.extend_from_slice(&k.to_le_bytes());
        }
        b.extend_from_slice(&self.outcomes);
        b
    }

    /// Reads a payload written by [`Solved::to_bytes`] for `sim`'s
    /// variant, checking everything a damaged or foreign payload could get
    /// wrong: the variant, the length, keys strictly increasing and each a
    /// possible non-terminal position, outcome bytes that can occur.
    pub fn from_bytes(sim: &Sim, b: &[u8]) -> Result<Solved, String> {
        if b.len() < HEADER {
            return Err("payload shorter than its header".into());
        }
        if usize::from(b[0]) != sim.n() || b[1] != u8::from(sim.misere()) || b[2..4] != [0, 0] {
            return Err(format!(
                "the payload is not the table of K{}{}",
                sim.n(),
                if sim.misere() { " misère" } else { "" }
            ));
        }
        let count = u64::from_le_bytes(b[4..12].try_into().expect("8 bytes"));
        let want = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(9))
            .and_then(|x| x.checked_add(HEADER));
        if want != Some(b.len()) {
            return Err(format!("{} bytes cannot hold {count} positions", b.len()));
        }
        let count = count as usize;
        let (kb, ob) = b[HEADER..].split_at(8 * count);
        let keys: Vec<u64> = kb
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let full = sim.full();
        let bad_key = keys.par_iter().enumerate().any(|(i, &k)| {
            let p = unkey(k);
            let (r, bl) = (p.red.count_ones(), p.blue.count_ones());
            (i > 0 && keys[i - 1] >= k)
                || p.red & p.blue != 0
                || (p.red | p.blue) & !full != 0
                || !(r == bl || r == bl + 1)
        });
        if bad_key {
            return Err("keys out of order or impossible positions".into());
        }
        let bad_outcome = ob.par_iter().any(|&o| {
            let (v, r) = (o & 3, o >> 2);
            v == 3 || (v == 2 && r != 0) || (v < 2 && r == 0)
        });
        if bad_outcome {
            return Err("an outcome byte no position can have".into());
        }
        Ok(Solved {
            n: sim.n(),
            misere: sim.misere(),
            keys,
            outcomes: ob.to_vec(),
        })
    }
}
