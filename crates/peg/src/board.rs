//! Boards: holes on a square or triangular (hex) lattice, their names,
//! jumps and symmetries, built in or drawn as ASCII art.

use crate::error::PegError;
use std::collections::HashMap;

/// The lattice the holes sit on, which fixes the jump directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lattice {
    /// Square grid: orthogonal jumps (diagonal ones as an option).
    Square,
    /// Triangular grid, drawn staggered ("doubled" coordinates: neighbours
    /// are two columns apart in a row, one column apart in the next row):
    /// jumps along its three directions.
    Hex,
}

/// One jump: a peg on `from` jumps over `over` into `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Jump {
    /// Hole the jumping peg leaves.
    pub from: usize,
    /// Hole whose peg is removed.
    pub over: usize,
    /// Hole the peg lands in.
    pub to: usize,
}

/// A peg-solitaire board.
#[derive(Clone, Debug)]
pub struct Board {
    name: String,
    lattice: Lattice,
    diagonal: bool,
    /// Hole coordinates (x, y) in drawing order (row-major from the top).
    cells: Vec<(i32, i32)>,
    names: Vec<String>,
    index: HashMap<(i32, i32), usize>,
    /// Holes drawn with a peg (`o`) in the art.
    drawn_pegs: Vec<bool>,
    jumps: Vec<Jump>,
    /// Each symmetry as a permutation of hole indices (0 is the identity).
    symmetries: Vec<Vec<usize>>,
}

/// The built-in boards: name, description, ASCII art (`.` marks the
/// default vacancy).
pub const BUILT_IN: &[(&str, &str, &str)] = &[
    (
        "english",
        "English 33-hole cross",
        "  ooo\n  ooo\nooooooo\nooo.ooo\nooooooo\n  ooo\n  ooo",
    ),
    (
        "french",
        "French (European) 37-hole board",
        "  ooo\n ooooo\nooooooo\nooo.ooo\nooooooo\n ooooo\n  ooo",
    ),
    (
        "wiegleb",
        "Wiegleb 45-hole cross",
        "   ooo\n   ooo\n   ooo\nooooooooo\noooo.oooo\nooooooooo\n   ooo\n   ooo\n   ooo",
    ),
    (
        "diamond",
        "Diamond 41-hole board",
        "    o\n   ooo\n  ooooo\n ooooooo\noooo.oooo\n ooooooo\n  ooooo\n   ooo\n    o",
    ),
    (
        "triangle",
        "Triangular 15-hole board (side 5)",
        "    .\n   o o\n  o o o\n o o o o\no o o o o",
    ),
];

fn triangle_art(side: usize) -> String {
    (0..side)
        .map(|r| {
            let pad = " ".repeat(side - 1 - r);
            let row: Vec<&str> = (0..=r)
                .map(|c| if r == 0 && c == 0 { "." } else { "o" })
                .collect();
            format!("{pad}{}", row.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Board {
    /// A built-in board by name (`english`, `french`, `wiegleb`,
    /// `diamond`, `triangle`, or `triangleN` for side N, 3..=10).
    pub fn named(name: &str, diagonal: bool) -> Result<Board, PegError> {
        let lower = name.to_ascii_lowercase();
        if let Some((n, _, art)) = BUILT_IN.iter().find(|(n, _, _)| *n == lower) {
            return Board::from_art(n, art, diagonal);
        }
        if let Some(side) = lower.strip_prefix("triangle") {
            if let Ok(side) = side.parse::<usize>() {
                if (3..=10).contains(&side) {
                    return Board::from_art(&lower, &triangle_art(side), diagonal);
                }
                return Err(PegError::BadArt(format!(
                    "triangle side {side} out of range (3..=10)"
                )));
            }
        }
        let known: Vec<&str> = BUILT_IN.iter().map(|(n, _, _)| *n).collect();
        Err(PegError::UnknownBoard(
            name.to_string(),
            format!("{}, triangleN", known.join(", ")),
        ))
    }

    /// A board drawn as ASCII art: `o` a hole with a peg, `.` an empty
    /// hole, space no hole; rows separated by newlines or `/`.
    ///
    /// Holes in every other column with rows offset by one column (as a
    /// triangle is drawn) make a triangular board; holes in every other
    /// column, rows aligned, a square board drawn with spaces between
    /// holes; anything else a square board, one character per hole.
    pub fn from_art(name: &str, art: &str, diagonal: bool) -> Result<Board, PegError> {
        let mut raw = Vec::new();
        let rows: Vec<&str> = art
            .split(['\n', '/'])
            .map(|r| r.trim_end_matches('\r'))
            .collect();
        // Drop blank lines at both ends; keep inner ones (they are rows).
        let first = rows.iter().position(|r| !r.trim().is_empty());
        let last = rows.iter().rposition(|r| !r.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return Err(PegError::BadArt("no holes drawn".into()));
        };
        for (y, row) in rows[first..=last].iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                match ch {
                    'o' => raw.push((x as i32, y as i32, true)),
                    '.' => raw.push((x as i32, y as i32, false)),
                    ' ' | '\t' => {}
                    _ => {
                        return Err(PegError::BadArtChar {
                            line: first + y + 1,
                            col: x + 1,
                            ch,
                        })
                    }
                }
            }
        }
        if raw.len() < 3 {
            return Err(PegError::BadArt(format!(
                "{} hole(s) drawn; a board needs at least 3",
                raw.len()
            )));
        }
        let minx = raw.iter().map(|c| c.0).min().unwrap_or(0);
        for c in raw.iter_mut() {
            c.0 -= minx;
        }
        let adjacent = raw
            .iter()
            .any(|a| raw.iter().any(|b| a.1 == b.1 && b.0 == a.0 + 1));
        let same_x_parity = raw.iter().all(|c| c.0 % 2 == raw[0].0 % 2);
        let same_sum_parity = raw
            .iter()
            .all(|c| (c.0 + c.1) % 2 == (raw[0].0 + raw[0].1) % 2);
        let multi_row = raw.iter().any(|c| c.1 != raw[0].1);
        let lattice = if !adjacent && same_sum_parity && multi_row && !same_x_parity {
            Lattice::Hex
        } else {
            if !adjacent && same_x_parity {
                for c in raw.iter_mut() {
                    c.0 /= 2;
                }
            }
            Lattice::Square
        };
        if lattice == Lattice::Hex && diagonal {
            return Err(PegError::BadArt(
                "diagonal jumps apply to square boards only".into(),
            ));
        }
        let width = raw.iter().map(|c| c.0).max().unwrap_or(0) + 1;
        if lattice == Lattice::Square && width > 26 {
            return Err(PegError::BadArt(format!(
                "board is {width} columns wide; at most 26 (columns are named a..z)"
            )));
        }
        if lattice == Lattice::Hex {
            // Holes of a triangular row are named a, b, … in row order.
            let mut per_row: HashMap<i32, usize> = HashMap::new();
            for c in &raw {
                *per_row.entry(c.1).or_default() += 1;
            }
            if let Some((&y, &n)) = per_row.iter().filter(|(_, &n)| n > 26).min() {
                return Err(PegError::BadArt(format!(
                    "row {} has {n} holes; at most 26 (holes are named a..z)",
                    first as i32 + y + 1
                )));
            }
        }
        if raw.len() > 128 {
            return Err(PegError::BadArt(format!(
                "{} holes; at most 128 are supported",
                raw.len()
            )));
        }
        let cells: Vec<(i32, i32)> = raw.iter().map(|c| (c.0, c.1)).collect();
        let drawn_pegs = raw.iter().map(|c| c.2).collect();
        let index: HashMap<(i32, i32), usize> =
            cells.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let names = cells
            .iter()
            .map(|&(x, y)| {
                let col = match lattice {
                    Lattice::Square => x,
                    // Holes of a triangular row are named by their order.
                    Lattice::Hex => cells.iter().filter(|c| c.1 == y && c.0 < x).count() as i32,
                };
                format!("{}{}", (b'a' + col as u8) as char, y + 1)
            })
            .collect();
        let dirs: &[(i32, i32)] = match (lattice, diagonal) {
            (Lattice::Square, false) => &[(1, 0), (0, 1)],
            (Lattice::Square, true) => &[(1, 0), (0, 1), (1, 1), (1, -1)],
            (Lattice::Hex, _) => &[(2, 0), (1, 1), (-1, 1)],
        };
        let mut jumps = Vec::new();
        for (i, &(x, y)) in cells.iter().enumerate() {
            for &(dx, dy) in dirs {
                for s in [1, -1] {
                    let over = index.get(&(x + s * dx, y + s * dy));
                    let to = index.get(&(x + 2 * s * dx, y + 2 * s * dy));
                    if let (Some(&over), Some(&to)) = (over, to) {
                        jumps.push(Jump { from: i, over, to });
                    }
                }
            }
        }
        if jumps.is_empty() {
            return Err(PegError::BadArt("no jump is possible on this board".into()));
        }
        jumps.sort();
        let symmetries = find_symmetries(lattice, &cells, &index);
        Ok(Board {
            name: name.to_string(),
            lattice,
            diagonal,
            cells,
            names,
            index,
            drawn_pegs,
            jumps,
            symmetries,
        })
    }

    /// The board's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The lattice of the board.
    pub fn lattice(&self) -> Lattice {
        self.lattice
    }
    /// Whether diagonal jumps are allowed.
    pub fn diagonal(&self) -> bool {
        self.diagonal
    }
    /// Number of holes.
    pub fn holes(&self) -> usize {
        self.cells.len()
    }
    /// The (x, y) drawing coordinates of hole `i`.
    pub fn coords(&self, i: usize) -> (i32, i32) {
        self.cells[i]
    }
    /// The hole at drawing coordinates (x, y), if any.
    pub fn hole_at(&self, x: i32, y: i32) -> Option<usize> {
        self.index.get(&(x, y)).copied()
    }
    /// The name of hole `i` (`d4`).
    pub fn hole_name(&self, i: usize) -> &str {
        &self.names[i]
    }
    /// The hole named `name`.
    pub fn hole(&self, name: &str) -> Result<usize, PegError> {
        let n = name.trim().to_ascii_lowercase();
        self.names
            .iter()
            .position(|h| *h == n)
            .ok_or_else(|| PegError::UnknownHole(name.trim().to_string(), self.name.clone()))
    }
    /// Every jump of the board, sorted.
    pub fn jumps(&self) -> &[Jump] {
        &self.jumps
    }
    /// The board's symmetries as permutations of holes (0: identity).
    pub fn symmetries(&self) -> &[Vec<usize>] {
        &self.symmetries
    }
    /// Holes drawn with a peg in the board's art.
    pub fn drawn_pegs(&self) -> &[bool] {
        &self.drawn_pegs
    }
    /// The holes fixed by every symmetry (the centre of a symmetric board).
    pub fn centre(&self) -> Option<usize> {
        (0..self.holes()).find(|&i| self.symmetries.iter().all(|s| s[i] == i))
    }

    /// Draws the board with `peg(i)` deciding `o` or `.` for each hole.
    pub fn draw(&self, peg: impl Fn(usize) -> bool) -> String {
        let h = self.cells.iter().map(|c| c.1).max().unwrap_or(0) + 1;
        let w = self.cells.iter().map(|c| c.0).max().unwrap_or(0) + 1;
        let mut out = String::new();
        for y in 0..h {
            let mut line = String::new();
            for x in 0..w {
                match self.hole_at(x, y) {
                    Some(i) => line.push(if peg(i) { 'o' } else { '.' }),
                    None => line.push(' '),
                }
                if self.lattice == Lattice::Square && x + 1 < w {
                    line.push(' ');
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// A lattice isometry on drawing coordinates.
type Transform = Box<dyn Fn((i32, i32)) -> (i32, i32)>;

/// Symmetries of a hole set: lattice isometries that map it onto itself
/// (translation fixed by matching the first hole in (y, x) order).
fn find_symmetries(
    lattice: Lattice,
    cells: &[(i32, i32)],
    index: &HashMap<(i32, i32), usize>,
) -> Vec<Vec<usize>> {
    let transforms: Vec<Transform> = match lattice {
        Lattice::Square => vec![
            Box::new(|(x, y)| (x, y)),
            Box::new(|(x, y)| (-y, x)),
            Box::new(|(x, y)| (-x, -y)),
            Box::new(|(x, y)| (y, -x)),
            Box::new(|(x, y)| (-x, y)),
            Box::new(|(x, y)| (x, -y)),
            Box::new(|(x, y)| (y, x)),
            Box::new(|(x, y)| (-y, -x)),
        ],
        Lattice::Hex => {
            // Doubled coordinates to cube coordinates and back: rotations
            // by 60° and reflections. Holes have x + y of one parity; shift
            // it to even first so the halving is exact.
            let par = (cells[0].0 + cells[0].1).rem_euclid(2);
            let mut v: Vec<Transform> = Vec::new();
            for refl in [false, true] {
                for rot in 0..6 {
                    v.push(Box::new(move |(x, y)| {
                        let x = x - par;
                        let q = (x - y) / 2;
                        let r = y;
                        let (mut a, mut b, mut c) = (q, r, -q - r);
                        if refl {
                            std::mem::swap(&mut b, &mut c);
                        }
                        for _ in 0..rot {
                            (a, b, c) = (-b, -c, -a);
                        }
                        (2 * a + b + par, b)
                    }));
                }
            }
            v
        }
    };
    let anchor = |pts: &[(i32, i32)]| *pts.iter().min_by_key(|p| (p.1, p.0)).expect("holes");
    let a0 = anchor(cells);
    let mut syms = Vec::new();
    for t in &transforms {
        let img: Vec<(i32, i32)> = cells.iter().map(|&c| t(c)).collect();
        let a = anchor(&img);
        let (dx, dy) = (a0.0 - a.0, a0.1 - a.1);
        let perm: Option<Vec<usize>> = img
            .iter()
            .map(|&(x, y)| index.get(&(x + dx, y + dy)).copied())
            .collect();
        if let Some(p) = perm {
            if !syms.contains(&p) {
                syms.push(p);
            }
        }
    }
    syms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangular_rows_of_more_than_26_holes_are_refused() {
        // Found by tests/fuzz.rs: the 27th hole of a row had no letter.
        let row = |n: usize, pad: &str| format!("{pad}{}", vec!["o"; n].join(" "));
        let art = format!("{}\n{}", row(26, " "), row(27, ""));
        let e = Board::from_art("wide", &art, false).unwrap_err();
        assert!(e.to_string().contains("row 2 has 27 holes"), "{e}");
        let art = format!("{}\n{}", row(25, " "), row(26, ""));
        let b = Board::from_art("wide", &art, false).unwrap();
        assert_eq!(b.lattice(), Lattice::Hex);
        assert_eq!(b.hole("z2").ok(), Some(b.holes() - 1));
    }

    #[test]
    fn built_in_boards_have_the_published_sizes_and_symmetries() {
        for (name, holes, syms) in [
            ("english", 33, 8),
            ("french", 37, 8),
            ("wiegleb", 45, 8),
            ("diamond", 41, 8),
            ("triangle", 15, 6),
            ("triangle6", 21, 6),
            ("triangle7", 28, 6),
        ] {
            let b = Board::named(name, false).unwrap();
            assert_eq!(b.holes(), holes, "{name}");
            assert_eq!(b.symmetries().len(), syms, "{name}");
        }
    }

    #[test]
    fn english_centre_is_d4_and_has_76_jumps() {
        let b = Board::named("english", false).unwrap();
        assert_eq!(b.hole_name(b.centre().unwrap()), "d4");
        // 76 jumps on the English board (38 lines of three, both ways).
        assert_eq!(b.jumps().len(), 76);
        assert_eq!(b.hole("D4").unwrap(), b.centre().unwrap());
        assert!(b.hole("a1").is_err());
    }

    #[test]
    fn triangle_names_and_jumps() {
        let b = Board::named("triangle", false).unwrap();
        assert_eq!(b.lattice(), Lattice::Hex);
        assert_eq!(b.hole_name(0), "a1");
        assert_eq!(b.hole_name(14), "e5");
        // 18 lines of three on the 15-hole triangle, each usable both ways.
        assert_eq!(b.jumps().len(), 36);
        assert_eq!(b.centre(), None);
    }

    #[test]
    fn spaced_square_art_is_square() {
        let b = Board::from_art("s", "o o o\no . o\no o o", false).unwrap();
        assert_eq!(b.lattice(), Lattice::Square);
        assert_eq!(b.holes(), 9);
        assert_eq!(b.hole_name(b.centre().unwrap()), "b2");
    }

    #[test]
    fn bad_art_is_rejected_with_position() {
        let e = Board::from_art("x", "oo\noX", false).unwrap_err();
        assert_eq!(
            e,
            PegError::BadArtChar {
                line: 2,
                col: 2,
                ch: 'X'
            }
        );
        assert!(Board::from_art("x", "  \n ", false).is_err());
        assert!(Board::from_art("x", "o", false).is_err());
        assert!(Board::from_art("x", "o o\n\n\no", false).is_err());
        assert!(Board::named("nope", false).is_err());
    }

    #[test]
    fn draw_round_trips_through_art() {
        for (name, _, _) in BUILT_IN {
            let b = Board::named(name, false).unwrap();
            let art = b.draw(|i| b.drawn_pegs()[i]);
            let b2 = Board::from_art(name, &art, false).unwrap();
            assert_eq!(b2.holes(), b.holes());
            assert_eq!(b2.jumps(), b.jumps());
            assert_eq!(b2.drawn_pegs(), b.drawn_pegs());
        }
    }
}
