//! Unit tests of the retrograde solver's parts: the state layout, the
//! rotation union and the fives against brute force, the colex ranks, and
//! whole solves of every variant (one or two sweeps, portable code, page
//! moves, pooled regions, the turn's own pass, non-temporal stores)
//! against the defaults.

use super::pool::REGION_BYTES;
use super::space::Space;
use super::tables::{rank, subsets};
use super::*;
use crate::board::rotate;

/// Unfinished positions with `stones` stones from `games` random
/// playouts of seed `seed`, at most `most` of them.
fn unfinished(
    seed: u64,
    games: usize,
    stones: std::ops::RangeInclusive<u32>,
    most: usize,
) -> Vec<Position> {
    endgame_core::conformance::random_game_positions(&crate::Pentago, seed, games)
        .into_iter()
        .filter(|p| stones.contains(&p.stones()) && p.outcome().is_none())
        .take(most)
        .collect()
}

fn full_of(stones: u64) -> Vec<State> {
    let mut out = Vec::new();
    for r in 0..256u32 {
        let s: State = [0, 1, 2, 3].map(|q| ((r >> (2 * q)) & 3) as u8);
        let mut b = stones;
        for (q, &t) in s.iter().enumerate() {
            for _ in 0..t {
                b = rotate(b, 2 * q as u8);
            }
        }
        if crate::board::has_five(b) {
            out.push(s);
        }
    }
    out
}

#[test]
fn one_sweep_and_two_sweeps_agree() {
    let ps = unfinished(17, 30, 22..=30, usize::MAX);
    assert!(ps.len() > 50);
    for p in &ps {
        let base = Options::of(p);
        let one = solve_with(p, None, None, base.clone()).unwrap();
        let two = solve_with(
            p,
            None,
            None,
            Options {
                one_sweep: false,
                ..base.clone()
            },
        )
        .unwrap();
        assert_eq!(one.value(), two.value());
        assert_eq!(one.children(), two.children());
        assert_eq!(one.move_values(), two.move_values());
        // Every gather moving pages between its layers (at these
        // sizes none would), in one sweep and in two.
        // And the portable code (where the machine has AVX2 and BMI2,
        // the rest of the tests run the fast one), the turns in
        // passes of their own, and every layer written with
        // non-temporal stores (at these sizes none would).
        for (one_sweep, release_above, fast, fuse_turn, stream_above) in [
            (true, 0, true, true, STREAM_ABOVE),
            (false, 0, true, true, STREAM_ABOVE),
            (true, 0, false, true, STREAM_ABOVE),
            (false, RELEASE_ABOVE, false, true, STREAM_ABOVE),
            (true, RELEASE_ABOVE, true, false, STREAM_ABOVE),
            (false, 0, false, false, STREAM_ABOVE),
            (true, 0, true, true, 0),
            (false, RELEASE_ABOVE, true, false, 0),
        ] {
            let opt = Options {
                one_sweep,
                release_above,
                fast,
                fuse_turn,
                stream_above,
                ..base.clone()
            };
            let other = solve_with(p, None, None, opt).unwrap();
            assert_eq!(other.value(), one.value());
            assert_eq!(other.children(), one.children());
            assert_eq!(other.move_values(), one.move_values());
        }
        assert_eq!(value_with(p, None, None, true), Ok(one.value()));
    }
}

#[test]
fn pooled_regions_give_the_same_solutions() {
    let ps = unfinished(5, 12, 20..=24, 12);
    assert!(ps.len() >= 8);
    // A pool of its own (the tests run in parallel on the global one),
    // and one kept empty: every region from a fresh mapping.
    let pool: &'static Pool = Box::leak(Box::new(Pool::new(64 << 20)));
    let none: &'static Pool = Box::leak(Box::new(Pool::new(0)));
    for (i, p) in ps.iter().enumerate() {
        // Moving pages between layers at every gather, or never; with
        // both questions in one sweep, or two.
        let (one_sweep, release) = [(true, 0), (true, RELEASE_ABOVE), (false, 0)][i % 3];
        let opt = Options {
            one_sweep,
            release_above: release,
            ..Options::of(p)
        };
        let fresh = solve_with(
            p,
            None,
            None,
            Options {
                pool: none,
                ..opt.clone()
            },
        )
        .unwrap();
        let before = pool.taken();
        let pooled = solve_with(p, None, None, Options { pool, ..opt }).unwrap();
        if i > 0 {
            // The previous solve's regions were written over.
            assert!(pool.taken() > before, "no region taken from the pool");
        }
        assert!(pool.bytes() > 0 && pool.bytes() <= 64 << 20);
        assert_eq!(none.bytes(), 0);
        assert_eq!(pooled.value(), fresh.value());
        assert_eq!(pooled.children(), fresh.children());
        assert_eq!(pooled.move_values(), fresh.move_values());
    }
    // A lower limit frees what is above it.
    pool.set_limit(REGION_BYTES * 3);
    assert_eq!(pool.bytes(), REGION_BYTES * 3);
    pool.set_limit(0);
    assert_eq!(pool.bytes(), 0);
}

#[test]
fn locate_and_state_at_are_inverse() {
    for p in 0..2 {
        for bit in 0..128 {
            let r = state_at(p, bit);
            assert_eq!(locate(r), (p, (bit >> 6) as usize, bit & 63));
        }
    }
}

#[test]
fn spread_is_the_union_of_single_turns() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..50 {
        for p in 0..2 {
            x = x.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1);
            let y = x.rotate_left(29) ^ 0x1234_5678;
            let set: Half = [x & y, x | y.rotate_left(7)];
            let got = spread(set);
            for bit in 0..128 {
                let r = state_at(1 - p, bit);
                let mut want = false;
                for q in 0..4 {
                    for d in [1u8, 3] {
                        let mut s = r;
                        s[q] = (s[q] + d) & 3;
                        want |= has(&set, s);
                    }
                }
                assert_eq!(has(&got, r), want, "state {r:?}");
            }
        }
    }
}

#[test]
fn fives_match_rotating_the_board() {
    let mut x = 7u64;
    for _ in 0..200 {
        x = x
            .wrapping_mul(0x5851_f42d_4c95_7f2d)
            .wrapping_add(0x14057b7e);
        let stones = (x ^ x.rotate_left(17)) & crate::board::CELLS;
        let f = fives(stones);
        let want = full_of(stones);
        let mut got = Vec::new();
        for (p, half) in f.iter().enumerate() {
            for bit in 0..128 {
                if half[(bit >> 6) as usize] >> (bit & 63) & 1 != 0 {
                    got.push(state_at(p, bit));
                }
            }
        }
        got.sort();
        let mut want = want;
        want.sort();
        assert_eq!(got, want);
    }
}

#[test]
fn subsets_are_in_colex_rank_order() {
    let s = subsets(6, 3);
    assert_eq!(s.len(), 20);
    assert!(s.windows(2).all(|w| w[0] < w[1]));
    let sp = Space {
        first: 0,
        second: 0,
        empty: (0..6).collect(),
        parity0: 0,
        release_above: RELEASE_ABOVE,
        fast: false,
        fuse_turn: true,
        stream_above: STREAM_ABOVE,
        fives_kept: Default::default(),
    };
    for k in [0, 1, 5, 9, 13, 18] {
        for (i, &m) in subsets(18, k).iter().enumerate() {
            assert_eq!(rank(m), i);
        }
    }
    assert_eq!(sp.deposit(0b101, 0b11010), 0b10010);
    // Masks of 19 to 21 bits (roots of 15 to 17 stones), every count
    // below and above the tables' split at bit 10.
    for k in [1, 2, 9, 10, 11, 19, 20] {
        for (i, &m) in subsets(20, k).iter().enumerate() {
            assert_eq!(rank(m), i, "{m:#x}");
        }
    }
    for k in [1, 3, 10, 11, 20, 21] {
        for (i, &m) in subsets(21, k).iter().enumerate() {
            assert_eq!(rank(m), i, "{m:#x}");
        }
    }
    assert_eq!(sp.deposit(0xf_ffff, 0xa_5a5a), 0xa_5a5a);
}

#[test]
fn predicted_regions_are_what_solves_hold() {
    let ps = unfinished(9, 12, 22..=26, 6);
    assert!(ps.len() >= 4);
    for (i, p) in ps.iter().enumerate() {
        let release_above = [0, RELEASE_ABOVE][i % 2];
        let sp = Space::blank(p.empty().count_ones());
        for one_sweep in [true, false] {
            let opt = Options {
                one_sweep,
                release_above,
                ..Options::of(p)
            };
            let sol = solve_with(p, None, None, opt).unwrap();
            let (entry, sweeps) = if one_sweep {
                (std::mem::size_of::<Both>(), 1)
            } else {
                (std::mem::size_of::<Half>(), 2)
            };
            assert_eq!(
                sol.regions,
                sp.peak_regions(entry, sweeps, release_above),
                "{p:?} one sweep {one_sweep}, release above {release_above}"
            );
        }
    }
    // Moving pages lowers the peak below both layers of a pair.
    let sp = Space::blank(14);
    let entry = std::mem::size_of::<Both>();
    let moved = sp.peak_regions(entry, 1, 0);
    let kept = sp.peak_regions(entry, 1, usize::MAX);
    assert!(moved < kept, "{moved} vs {kept}");
    let most = (0..=14).map(|j| sp.size(j)).max().unwrap() * entry / REGION_BYTES;
    assert!(moved >= most);
}

#[test]
fn a_small_memory_limit_is_refused_before_allocating() {
    let p = Position::new(0, 0, false).unwrap();
    assert_eq!(plan(&p, Some(1 << 40)), Err(Refusal::TooEarly));
    // 16 empty cells: a plan either way, refused below its two sweeps.
    let black = 0b1_0101_0101u64 | 0b1_0101_0101 << 16;
    let white = 0b1010_1010u64 | 0b1010_1010 << 16 | 0b1 << 32 | 0b1 << 48;
    let p = Position::new(black, white, false).unwrap();
    assert_eq!(p.empty().count_ones(), 16);
    let m = memory(&p).unwrap();
    assert!(m.two_sweeps < m.one_sweep);
    assert_eq!(plan(&p, Some(m.one_sweep)).map(|x| x.one_sweep), Ok(true));
    assert_eq!(plan(&p, Some(m.two_sweeps)).map(|x| x.one_sweep), Ok(false));
    // Below two sweeps the large layers spill to files, within the limit.
    let below = m.two_sweeps - 1;
    let spilled = plan(&p, Some(below)).unwrap();
    assert!(spilled.one_sweep && spilled.disk > 0 && spilled.bytes <= below);
    let from_disk = solve_limited(&p, None, None, Some(below)).unwrap();
    assert!(from_disk.disk_bytes().0 > 0);
    // Below what even a spilled solve keeps in memory (the fives tables
    // and a margin): refused before anything is allocated.
    let r = solve_limited(&p, None, None, Some(1000)).unwrap_err();
    assert_eq!(
        r,
        Refusal::TooLarge {
            empty: 16,
            needed: m.two_sweeps,
            limit: 1000
        }
    );
    assert!(r.to_string().contains("needs"), "{r}");
    assert_eq!(
        value_limited(&p, None, None, Some(1000))
            .unwrap_err()
            .to_string(),
        format!(
            "the retrograde solver needs {} for 16 empty cells, over the memory limit of 1 MiB",
            bytes_text(m.two_sweeps)
        )
    );
    // The value alone, one question at a time, agrees with one sweep.
    let whole = solve_limited(&p, None, None, Some(m.one_sweep)).unwrap();
    assert_eq!(from_disk.children(), whole.children());
    assert_eq!(
        value_limited(&p, None, None, Some(m.two_sweeps)),
        Ok(whole.value())
    );
}

/// Spilled solves (the large layers in files, each gather in windows
/// within a small budget; here regions are one page, so small roots have
/// many) give the in-memory solutions, hold no more than their layout
/// predicted, and leave no file behind, also when stopped.
#[test]
fn spilled_solves_agree_with_in_memory_ones() {
    let ps = unfinished(23, 16, 21..=24, 8);
    assert!(ps.len() >= 8);
    let parent = std::env::temp_dir().join(format!("endgame-spill-test-{}", std::process::id()));
    std::fs::create_dir_all(&parent).unwrap();
    let (mut windows, mut disk, mut last) = (0, 0, None);
    for (i, p) in ps.iter().enumerate() {
        let n = p.empty().count_ones();
        let mem = solve_with(p, None, None, Options::of(p)).unwrap();
        // Layer budgets of a few regions to many (raised to what one
        // window needs where that is more).
        let mut regions = [40, 100, 300, 600][i % 4];
        let layout = loop {
            match Space::blank(n)
                .spill_layout(std::mem::size_of::<Both>(), (regions * REGION_BYTES) as u64)
            {
                Ok(l) => break l,
                Err(need) => regions = need as usize / REGION_BYTES + 1,
            }
        };
        assert!(
            layout.on_disk.iter().any(|&d| d),
            "{n} empty cells, {regions} regions"
        );
        windows += layout
            .bounds
            .iter()
            .map(|b| b.len().saturating_sub(2))
            .sum::<usize>();
        let peak = layout.peak_regions;
        assert!(peak <= regions);
        last = Some((*p, layout.clone()));
        let opt = Options {
            spill: Some(layout),
            spill_parent: parent.clone(),
            // The fast and portable code alike.
            fast: i % 2 == 0,
            ..Options::of(p)
        };
        let spilled = solve_with(p, None, None, opt).unwrap();
        assert_eq!(spilled.value(), mem.value());
        assert_eq!(spilled.children(), mem.children());
        assert_eq!(spilled.move_values(), mem.move_values());
        assert!(spilled.regions <= peak, "{} > {peak}", spilled.regions);
        let (w, r) = spilled.disk_bytes();
        assert!(w > 0 && r >= w, "written {w}, read {r}");
        disk += w;
        assert_eq!(std::fs::read_dir(&parent).unwrap().count(), 0);
    }
    assert!(windows > 100, "{windows} windows past the first");
    assert!(disk > 0);
    // Stopped at once: the error, and the directory removed.
    let (p, layout) = last.unwrap();
    let p = &p;
    let opt = Options {
        spill: Some(layout),
        spill_parent: parent.clone(),
        ..Options::of(p)
    };
    let past = std::time::Instant::now();
    assert_eq!(
        solve_with(p, Some(past), None, opt).err(),
        Some(Refusal::OutOfTime)
    );
    assert_eq!(std::fs::read_dir(&parent).unwrap().count(), 0);
    // A budget below one block's children: refused, naming more.
    let need = Space::blank(16)
        .spill_layout(32, REGION_BYTES as u64)
        .unwrap_err();
    assert!(need > REGION_BYTES as u64);
    std::fs::remove_dir(&parent).unwrap();
}
