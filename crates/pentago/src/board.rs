//! Bitboards, quadrant rotations, the 32 lines of five and the 8 board
//! symmetries, all as precomputed tables, and the tests on them of a five,
//! of a four with its fifth cell open, and of a win this turn
//! ([`can_win`]).
//!
//! Layout: one `u64` per colour, four 16-bit quadrant chunks in the order of
//! the interchange notation (lower-left, upper-left, lower-right,
//! upper-right); inside a chunk cell `(x mod 3, y mod 3)` is bit
//! `3·(x mod 3) + (y mod 3)`. So cell `(x, y)` (x = 0..5 left to right,
//! y = 0..5 bottom to top) is bit `16·(2·(x/3) + y/3) + 3·(x%3) + y%3`, and a
//! quadrant rotation only permutes the 9 bits of one chunk (a 512-entry
//! table).

/// The 36 bits that are cells.
pub const CELLS: u64 = 0x01ff_01ff_01ff_01ff;

/// The bit of cell `(x, y)`, x and y in `0..6`.
#[inline]
pub const fn bit_index(x: usize, y: usize) -> usize {
    16 * (2 * (x / 3) + y / 3) + 3 * (x % 3) + y % 3
}

/// The cell `(x, y)` of a bit index (inverse of [`bit_index`]).
#[inline]
pub const fn cell_of(bit: usize) -> (usize, usize) {
    let q = bit / 16;
    let r = bit % 16;
    (3 * (q / 2) + r / 3, 3 * (q % 2) + r % 3)
}

/// Rotates a 9-bit quadrant; `clockwise` as seen with y pointing up.
const fn rotate9(v: u16, clockwise: bool) -> u16 {
    let mut out = 0u16;
    let mut i = 0;
    while i < 3 {
        let mut j = 0;
        while j < 3 {
            if v & (1 << (3 * i + j)) != 0 {
                // Clockwise sends the top-left corner (0, 2) to the top-right (2, 2).
                let (ni, nj) = if clockwise { (j, 2 - i) } else { (2 - j, i) };
                out |= 1 << (3 * ni + nj);
            }
            j += 1;
        }
        i += 1;
    }
    out
}

const fn rot_table(clockwise: bool) -> [u16; 512] {
    let mut t = [0u16; 512];
    let mut v = 0;
    while v < 512 {
        t[v] = rotate9(v as u16, clockwise);
        v += 1;
    }
    t
}

/// 9-bit rotation tables: `[clockwise, anticlockwise]`.
static ROT9: [[u16; 512]; 2] = [rot_table(true), rot_table(false)];

/// Applies rotation `r` (`r = 2·quadrant + d`, d 0 clockwise, 1
/// anticlockwise) to one colour's bits.
#[inline]
pub fn rotate(bits: u64, r: u8) -> u64 {
    let shift = 16 * (r as u32 >> 1);
    let chunk = ((bits >> shift) & 0x1ff) as usize;
    let new = ROT9[(r & 1) as usize][chunk] as u64;
    (bits & !(0x1ff << shift)) | (new << shift)
}

const fn make_lines() -> [u64; 32] {
    let mut out = [0u64; 32];
    let mut n = 0;
    // Directions: right, up, up-right, down-right.
    let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
    let mut d = 0;
    while d < 4 {
        let (dx, dy) = dirs[d];
        let mut x = 0;
        while x < 6 {
            let mut y = 0;
            while y < 6 {
                let ex = x + 4 * dx;
                let ey = y + 4 * dy;
                if ex >= 0 && ex < 6 && ey >= 0 && ey < 6 {
                    let mut m = 0u64;
                    let mut k = 0;
                    while k < 5 {
                        m |= 1 << bit_index((x + k * dx) as usize, (y + k * dy) as usize);
                        k += 1;
                    }
                    out[n] = m;
                    n += 1;
                }
                y += 1;
            }
            x += 1;
        }
        d += 1;
    }
    assert!(n == 32);
    out
}

/// The 32 lines of five cells: 12 rows, 12 columns, 8 diagonals.
pub static LINES: [u64; 32] = make_lines();

/// Whether `bits` contain a whole line of five.
#[inline]
pub fn has_five(bits: u64) -> bool {
    let mut found = false;
    for &l in &LINES {
        found |= bits & l == l;
    }
    found
}

/// Whether one more stone of `mine` on an empty cell completes a line
/// (lines with four of `mine` and none of `theirs`).
#[inline]
pub fn has_four_open(mine: u64, theirs: u64) -> bool {
    let mut found = false;
    for &l in &LINES {
        found |= (mine & l).count_ones() == 4 && theirs & l == 0;
    }
    found
}

/// Whether the mover (stones `mine`, opponent `theirs`, placement due,
/// nobody has five) wins this turn: a placement making five, or a
/// placement and a rotation after which only the mover has five.
#[inline]
pub fn can_win(mine: u64, theirs: u64) -> bool {
    if has_four_open(mine, theirs) {
        return true;
    }
    for r in 0..8u8 {
        let t = rotate(theirs, r);
        if has_five(t) {
            continue;
        }
        let m = rotate(mine, r);
        if has_five(m) || has_four_open(m, t) {
            return true;
        }
    }
    false
}

/// The image of cell `(x, y)` under symmetry `s` of the square.
pub const fn sym_cell(s: usize, x: usize, y: usize) -> (usize, usize) {
    match s {
        0 => (x, y),
        1 => (5 - y, x),
        2 => (5 - x, 5 - y),
        3 => (y, 5 - x),
        4 => (5 - x, y),
        5 => (x, 5 - y),
        6 => (y, x),
        _ => (5 - y, 5 - x),
    }
}

const fn make_sym() -> [[[u64; 512]; 4]; 8] {
    let mut t = [[[0u64; 512]; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut q = 0;
        while q < 4 {
            let mut v = 0;
            while v < 512 {
                let mut out = 0u64;
                let mut b = 0;
                while b < 9 {
                    if v & (1 << b) != 0 {
                        let (x, y) = cell_of(16 * q + b);
                        let (nx, ny) = sym_cell(s, x, y);
                        out |= 1 << bit_index(nx, ny);
                    }
                    b += 1;
                }
                t[s][q][v] = out;
                v += 1;
            }
            q += 1;
        }
        s += 1;
    }
    t
}

/// Per symmetry and quadrant, the image of every 9-bit chunk.
static SYM: [[[u64; 512]; 4]; 8] = make_sym();

/// Applies symmetry `s` (0..8, 0 the identity) to one colour's bits.
#[inline]
pub fn symmetry(bits: u64, s: usize) -> u64 {
    let t = &SYM[s];
    t[0][(bits & 0x1ff) as usize]
        | t[1][((bits >> 16) & 0x1ff) as usize]
        | t[2][((bits >> 32) & 0x1ff) as usize]
        | t[3][((bits >> 48) & 0x1ff) as usize]
}

/// Iterates over the set bits of `bits`, lowest first.
#[inline]
pub fn bits_of(mut bits: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let b = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_index_and_cell_of_are_inverse() {
        let mut all = 0u64;
        for x in 0..6 {
            for y in 0..6 {
                let b = bit_index(x, y);
                assert_eq!(cell_of(b), (x, y));
                all |= 1 << b;
            }
        }
        assert_eq!(all, CELLS);
    }

    #[test]
    fn rotations_have_order_four_and_invert() {
        for r in 0..8u8 {
            for v in [0x1u64, 0x12345 & CELLS, CELLS, 0x0155_00aa_0133_0077] {
                let v = v & CELLS;
                let mut w = v;
                for _ in 0..4 {
                    w = rotate(w, r);
                }
                assert_eq!(w, v);
                assert_eq!(rotate(rotate(v, r), r ^ 1), v);
                assert_eq!(rotate(v, r).count_ones(), v.count_ones());
            }
        }
        // Clockwise: the quadrant's top-left corner goes to its top-right.
        let ul_top_left = 1u64 << bit_index(0, 5);
        assert_eq!(rotate(ul_top_left, 2), 1 << bit_index(2, 5));
        assert_eq!(rotate(ul_top_left, 3), 1 << bit_index(0, 3));
    }

    #[test]
    fn lines_are_distinct_fives() {
        for (i, l) in LINES.iter().enumerate() {
            assert_eq!(l.count_ones(), 5);
            assert!(!LINES[..i].contains(l));
        }
    }

    #[test]
    fn symmetries_form_the_dihedral_group() {
        let v = 0x0123_0045_0167_0089 & CELLS;
        for s in 0..8 {
            assert_eq!(symmetry(v, s).count_ones(), v.count_ones());
            // Each maps the set of lines to itself.
            for l in &LINES {
                assert!(LINES.contains(&symmetry(*l, s)));
            }
        }
        let images: std::collections::HashSet<u64> =
            (0..8).map(|s| symmetry(1 << bit_index(0, 1), s)).collect();
        assert_eq!(images.len(), 8);
    }
}
