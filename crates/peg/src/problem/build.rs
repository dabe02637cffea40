//! Building a problem: the bit layout of the board's holes, the jump
//! directions, the symmetry group and the byte tables the searches use.

use super::d4::{gfni_simd, wide_simd};
use super::{Dir, Goal, PegSolitaire, Pruning, PAGODA_LANES, PAGODA_TIME};
use crate::bits::Bits;
use crate::board::{Board, Lattice};
use crate::class::PositionClasses;
use crate::error::PegError;
use std::sync::Arc;
use std::time::Instant;

/// Grid coordinates (column, row) of each hole and the grid's stride.
fn grid(board: &Board) -> (Vec<(usize, usize)>, usize) {
    let coords: Vec<(i32, i32)> = (0..board.holes()).map(|i| board.coords(i)).collect();
    let axial: Vec<(i32, i32)> = match board.lattice() {
        Lattice::Square => coords,
        Lattice::Hex => coords
            .iter()
            .map(|&(x, y)| ((x - y).div_euclid(2), y))
            .collect(),
    };
    let minc = axial.iter().map(|c| c.0).min().unwrap_or(0);
    let minr = axial.iter().map(|c| c.1).min().unwrap_or(0);
    let cols = axial.iter().map(|c| c.0 - minc).max().unwrap_or(0) as usize + 1;
    let rows = axial.iter().map(|c| c.1 - minr).max().unwrap_or(0) as usize + 1;
    let g = axial
        .iter()
        .map(|&(c, r)| ((c - minc) as usize, (r - minr) as usize))
        .collect();
    // Square boards up to 8 by 8 use rows of 8 bits, so that their
    // symmetries are a few shifts and masks (see `D4`).
    let stride = if board.lattice() == Lattice::Square && cols <= 8 && rows <= 8 {
        8
    } else {
        cols
    };
    (g, stride)
}

/// The number of grid bits a board needs (decides `u64` or `u128`).
pub fn bits_needed(board: &Board) -> usize {
    let (g, stride) = grid(board);
    g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1
}

impl<B: Bits> PegSolitaire<B> {
    /// A problem: the start has pegs on `start` holes; `goal` as given.
    /// Its pagoda functions are those derived within [`PAGODA_TIME`]
    /// (every one, on the built-in boards).
    pub fn new(
        board: Arc<Board>,
        start: &[bool],
        goal: Goal,
        pruning: Pruning,
    ) -> Result<Self, PegError> {
        Self::new_within(
            board,
            start,
            goal,
            pruning,
            Some(Instant::now() + PAGODA_TIME),
        )
    }

    /// [`PegSolitaire::new`] with the pagoda functions ready by `deadline`
    /// (all of them when `None`; see [`crate::pagoda::for_goal_until`]).
    pub fn new_within(
        board: Arc<Board>,
        start: &[bool],
        goal: Goal,
        pruning: Pruning,
        deadline: Option<Instant>,
    ) -> Result<Self, PegError> {
        let (g, stride) = grid(&board);
        let nbits = g.iter().map(|&(c, r)| r * stride + c).max().unwrap_or(0) + 1;
        if nbits > B::CAPACITY {
            return Err(PegError::BadArt(format!(
                "board needs {nbits} bits, more than {} available",
                B::CAPACITY
            )));
        }
        let hole_bit: Vec<usize> = g.iter().map(|&(c, r)| r * stride + c).collect();
        let mut bit_hole = vec![None; nbits];
        for (h, &b) in hole_bit.iter().enumerate() {
            bit_hole[b] = Some(h);
        }
        let mask_of = |holes: &mut dyn Iterator<Item = usize>| {
            holes.fold(B::ZERO, |m, h| m | B::bit(hole_bit[h]))
        };
        let start_mask = mask_of(&mut (0..board.holes()).filter(|&h| start[h]));
        let goal_mask = match &goal {
            Goal::Pattern(holes) => {
                if holes.is_empty() {
                    return Err(PegError::BadPosition("goal has no pegs".into()));
                }
                mask_of(&mut holes.iter().copied())
            }
            Goal::AnyOne => B::ZERO,
        };
        // Directions: group the board's jumps by their bit shift.
        let mut dirs: Vec<Dir<B>> = Vec::new();
        let mut jump_mask = Vec::new();
        for (j, jp) in board.jumps().iter().enumerate() {
            let (f, o, t) = (hole_bit[jp.from], hole_bit[jp.over], hole_bit[jp.to]);
            let shift = o as i32 - f as i32;
            debug_assert_eq!(t as i32 - o as i32, shift, "jumps are straight in the grid");
            jump_mask.push(B::bit(f) | B::bit(o) | B::bit(t));
            let d = match dirs.iter().position(|d| d.shift == shift) {
                Some(d) => d,
                None => {
                    dirs.push(Dir {
                        shift,
                        valid: B::ZERO,
                        ids: vec![u16::MAX; nbits],
                    });
                    dirs.len() - 1
                }
            };
            dirs[d].valid |= B::bit(f);
            dirs[d].ids[f] = j as u16;
        }
        // The symmetry group: board symmetries fixing start and goal set.
        fn maps_onto(
            perm: &[usize],
            holes: &mut dyn Iterator<Item = usize>,
            set: &dyn Fn(usize) -> bool,
        ) -> bool {
            for h in holes {
                if !set(perm[h]) {
                    return false;
                }
            }
            true
        }
        let group: Vec<usize> = board
            .symmetries()
            .iter()
            .enumerate()
            .filter(|(_, perm)| {
                let s = |h: usize| start[h];
                let start_ok = maps_onto(perm, &mut (0..board.holes()).filter(|&h| start[h]), &s);
                let goal_ok = match &goal {
                    Goal::Pattern(holes) => {
                        maps_onto(perm, &mut holes.iter().copied(), &|h| holes.contains(&h))
                    }
                    Goal::AnyOne => true,
                };
                start_ok && goal_ok
            })
            .map(|(i, _)| i)
            .collect();
        let nbytes = nbits.div_ceil(8);
        let mut sym_table = Vec::with_capacity(group.len() * nbytes);
        for &gi in &group {
            let perm = &board.symmetries()[gi];
            for k in 0..nbytes {
                let mut t = [B::ZERO; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = bit_hole.get(8 * k + bit) {
                                *slot |= B::bit(hole_bit[perm[*h]]);
                            }
                        }
                    }
                }
                sym_table.push(t);
            }
        }
        let mut p = PegSolitaire {
            board,
            hole_bit,
            bit_hole,
            nbytes,
            start: start_mask,
            goal,
            goal_mask,
            complement: None,
            dirs,
            jump_mask,
            group,
            sym_table,
            jump_images: Vec::new(),
            jump_bytes: Vec::new(),
            classes: None,
            class_masks: Vec::new(),
            pagodas: Vec::new(),
            pagoda_lanes: Vec::new(),
            pagoda_need: Vec::new(),
            class_tables: Vec::new(),
            hole_class: Vec::new(),
            d4: None,
            wide: wide_simd(),
            gfni: gfni_simd(),
            avx2: avx2_simd(),
            order_tables: Vec::new(),
            key_table: Vec::new(),
            unkey_table: Vec::new(),
            key_pagodas: None,
        };
        // Complementing reverses every jump; it maps the start to the goal
        // only when the goal is the start's complement.
        let board_mask = p.position_of(0..p.board.holes());
        if matches!(p.goal, Goal::Pattern(_)) && p.goal_mask == board_mask ^ p.start {
            p.complement = Some(board_mask);
        }
        p.d4 = p.find_d4(&g, stride);
        if let Some(mut d4) = p.d4.take() {
            // Order the group as the delta-swap images come (the identity
            // stays first), so the full group's images need no shuffle.
            let mut order: Vec<usize> = (0..p.group.len()).collect();
            order.sort_by_key(|&i| d4.codes[i]);
            p.group = order.iter().map(|&i| p.group[i]).collect();
            p.sym_table = order
                .iter()
                .flat_map(|&i| p.sym_table[i * nbytes..(i + 1) * nbytes].iter().copied())
                .collect();
            d4.codes = order.iter().map(|&i| d4.codes[i]).collect();
            p.d4 = Some(d4);
        }
        p.hole_class = p.hole_classes();
        p.jump_images = p
            .jump_mask
            .iter()
            .flat_map(|&m| (0..p.group.len()).map(move |g| (m, g)))
            .map(|(m, g)| p.transform(g, m))
            .collect();
        p.build_jump_bytes();
        if pruning.classes {
            let classes = PositionClasses::new(&p.board);
            let goal_classes = p.goal_classes(&classes);
            p.class_masks = classes
                .invariants
                .iter()
                .map(|inv| p.position_of(inv.iter().copied()))
                .collect();
            p.classes = Some((classes, goal_classes));
        }
        p.build_key_tables();
        if pruning.pagodas {
            if let Goal::Pattern(holes) = &p.goal {
                if holes.len() == 1 {
                    p.pagodas = crate::pagoda::for_goal_until(&p.board, holes[0], deadline)
                        .into_iter()
                        .map(|pg| {
                            let need = pg.weights[holes[0]];
                            (pg, need)
                        })
                        .collect();
                }
            }
        }
        // Depth-first searches try first the children whose pegs sit on
        // holes that are easy to clear later: the study's weighted cost
        // (corners, with the fewest jumps into them, weigh most). On the
        // English central game this cuts the first solution from some
        // 17,500 expansions to a few hundred.
        let order = crate::heuristics::weighted_cost_weights(&p.board, &p.goal);
        if !order.is_empty() {
            p.order_tables = p.byte_tables(&order);
        }
        // A function whose weights could overflow the 32-bit lanes is
        // dropped (pruning less is still sound; the classic and derived
        // ones have small integer weights).
        let fits = |pg: &crate::pagoda::Pagoda, need: i64| {
            pg.weights.iter().map(|w| w.unsigned_abs()).sum::<u64>() < 1 << 30
                && need.unsigned_abs() < 1 << 30
        };
        p.pagodas.retain(|(pg, need)| fits(pg, *need));
        for group in p.pagodas.chunks(PAGODA_LANES) {
            let mut need = [i32::MIN; PAGODA_LANES];
            for (l, (_, n)) in group.iter().enumerate() {
                need[l] = *n as i32;
            }
            p.pagoda_need.push(need);
            for k in 0..p.nbytes {
                for byte in 0..256usize {
                    let mut lanes = [0i32; PAGODA_LANES];
                    for (l, (pg, _)) in group.iter().enumerate() {
                        for bit in (0..8).filter(|b| byte >> b & 1 == 1) {
                            if let Some(Some(h)) = p.bit_hole.get(8 * k + bit) {
                                lanes[l] += pg.weights[*h] as i32;
                            }
                        }
                    }
                    p.pagoda_lanes.push(lanes);
                }
            }
        }
        p.build_key_pagodas();
        p.class_tables = (0..p.nbytes)
            .map(|k| {
                let mut t = [0u64; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    let pos = (0..8)
                        .filter(|b| byte >> b & 1 == 1)
                        .fold(B::ZERO, |m, b| m | B::bit(8 * k + b));
                    *slot = p.class_bits_by_masks(pos);
                }
                t
            })
            .collect();
        Ok(p)
    }

    /// Per-byte tables of the total of per-hole `weights` over the pegs.
    fn byte_tables(&self, weights: &[i64]) -> Vec<[i32; 256]> {
        (0..self.nbytes)
            .map(|k| {
                let mut t = [0i32; 256];
                for (byte, slot) in t.iter_mut().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            if let Some(Some(h)) = self.bit_hole.get(8 * k + bit) {
                                *slot += weights[*h] as i32;
                            }
                        }
                    }
                }
                t
            })
            .collect()
    }

    fn goal_classes(&self, classes: &PositionClasses) -> Vec<u64> {
        let mut v: Vec<u64> = match &self.goal {
            Goal::Pattern(holes) => vec![classes.class_of(&mut holes.iter().copied())],
            Goal::AnyOne => (0..self.board.holes())
                .map(|h| classes.class_of(&mut std::iter::once(h)))
                .collect(),
        };
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Whether the CPU has AVX2 (for the pagoda test on keys).
fn avx2_simd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}
