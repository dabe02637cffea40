//! A Sim position drawn for a terminal, and the triangle that ended a game.
//!
//! The picture is a table of the points: the cell in row `b`, column `d`
//! is the colour of segment `bd` (`r` red, `b` blue, `.` uncoloured, as in
//! the position notation of docs/sim.md), so the letters at the margins
//! give every segment's notation. Below it each colour's segments and the
//! uncoloured ones are listed by name. The sides of a completed triangle
//! are drawn in capitals (`R`, `B`).

use crate::{Segment, Sim, SimPos};
use std::fmt::Write;

/// Segments per line in the lists under the table.
const PER_LINE: usize = 14;

/// Three points whose three segments all have one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triangle {
    /// Whether its sides are red (else blue).
    pub red: bool,
    /// Its points, in increasing order.
    pub points: [usize; 3],
}

impl Triangle {
    /// Its points as the notation writes them: `abc`.
    pub fn name(&self) -> String {
        self.points.iter().map(|&p| point_name(p)).collect()
    }

    /// Its three sides, in notation order: `ab`, `ac`, `bc`.
    pub fn sides(&self, sim: &Sim) -> [Segment; 3] {
        let [i, j, k] = self.points;
        [sim.segment(i, j), sim.segment(i, k), sim.segment(j, k)]
    }

    /// `red` or `blue`.
    pub fn colour(&self) -> &'static str {
        if self.red {
            "red"
        } else {
            "blue"
        }
    }

    /// Its sides' notation, separated by spaces: `ab ac bc`.
    pub fn sides_text(&self, sim: &Sim) -> String {
        let names: Vec<String> = self.sides(sim).iter().map(|&s| name(sim, s)).collect();
        names.join(" ")
    }
}

/// The letter of point `i`: `a`, `b`, …
pub fn point_name(i: usize) -> char {
    (b'a' + i as u8) as char
}

/// A segment's notation: `ac`.
fn name(sim: &Sim, s: Segment) -> String {
    let (i, j) = sim.ends(s);
    [point_name(i), point_name(j)].iter().collect()
}

/// The one-coloured triangles of the player who made the last move: the
/// triangle that ended the game (lost under the standard rule, won under
/// misère), several when the last segment closed more than one at once.
/// Empty while the game goes on or when it ended in a draw (only the last
/// mover can own a triangle in a position a game reaches).
pub fn completed_triangles(sim: &Sim, pos: &SimPos) -> Vec<Triangle> {
    // Red moved last when blue is to move.
    let red = !pos.red_to_move();
    let mask = if red { pos.red } else { pos.blue };
    let n = sim.n();
    let mut found = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let t = Triangle {
                    red,
                    points: [i, j, k],
                };
                if t.sides(sim).iter().all(|s| mask >> s.0 & 1 == 1) {
                    found.push(t);
                }
            }
        }
    }
    found
}

/// The picture of `pos`: the table of the points, then the red, blue and
/// uncoloured segments listed; the sides of a completed triangle (see
/// [`completed_triangles`]) in capitals.
pub fn draw(sim: &Sim, pos: &SimPos) -> String {
    let n = sim.n();
    let marked: u32 = completed_triangles(sim, pos)
        .iter()
        .flat_map(|t| t.sides(sim))
        .fold(0, |m, s| m | 1 << s.0);
    let cell = |i: usize, j: usize| -> char {
        if i == j {
            return ' ';
        }
        let s = sim.segment(i, j).0;
        let c = if pos.red >> s & 1 == 1 {
            'r'
        } else if pos.blue >> s & 1 == 1 {
            'b'
        } else {
            '.'
        };
        if marked >> s & 1 == 1 {
            c.to_ascii_uppercase()
        } else {
            c
        }
    };
    let mut out = String::from("   ");
    for j in 0..n {
        let _ = write!(out, " {}", point_name(j));
    }
    out.push('\n');
    for i in 0..n {
        let mut row = format!("  {}", point_name(i));
        for j in 0..n {
            let _ = write!(row, " {}", cell(i, j));
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    let free = sim.full() & !(pos.red | pos.blue);
    for (label, mask) in [("red", pos.red), ("blue", pos.blue), ("free", free)] {
        list(
            &mut out,
            sim,
            &format!("{label} ({})", mask.count_ones()),
            mask,
        );
    }
    out
}

/// One labelled line (or more) of segment names.
fn list(out: &mut String, sim: &Sim, label: &str, mask: u32) {
    let names: Vec<String> = (0..sim.segments())
        .filter(|&s| mask >> s & 1 == 1)
        .map(|s| name(sim, Segment(s as u8)))
        .collect();
    if names.is_empty() {
        let _ = writeln!(out, "  {label:<10}none");
        return;
    }
    for (i, row) in names.chunks(PER_LINE).enumerate() {
        let label = if i == 0 { label } else { "" };
        let _ = writeln!(out, "  {label:<10}{}", row.join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use endgame_core::Notation;

    #[test]
    fn draws_the_table_and_the_lists() {
        let sim = Sim::k6();
        // Red ab ad bc, blue ac ae bf (docs/sim.md's example).
        let pos = sim.parse_position("rbrb.r..b......").unwrap();
        let want = "    a b c d e f\n\
                    \x20 a   r b r b .\n\
                    \x20 b r   r . . b\n\
                    \x20 c b r   . . .\n\
                    \x20 d r . .   . .\n\
                    \x20 e b . . .   .\n\
                    \x20 f . b . . .\n\
                    \x20 red (3)   ab ad bc\n\
                    \x20 blue (3)  ac ae bf\n\
                    \x20 free (9)  af bd be cd ce cf de df ef\n";
        assert_eq!(draw(&sim, &pos), want);
        assert!(completed_triangles(&sim, &pos).is_empty());
    }

    #[test]
    fn finds_and_capitalises_the_completed_triangle() {
        let sim = Sim::k6();
        // Red ab ac bc (the triangle abc), blue de df: blue to move.
        let pos = sim.parse_position("rr...r......bb.").unwrap();
        let t = completed_triangles(&sim, &pos);
        assert_eq!(
            t,
            [Triangle {
                red: true,
                points: [0, 1, 2]
            }]
        );
        assert_eq!(t[0].name(), "abc");
        assert_eq!(t[0].sides_text(&sim), "ab ac bc");
        assert_eq!(t[0].colour(), "red");
        let picture = draw(&sim, &pos);
        assert!(picture.contains("  a   R R . . .\n"), "{picture}");
        assert!(picture.contains("  d . . .   b b\n"), "{picture}");
        // Blue's triangle def is blue's own; only the last mover counts.
        let blue = sim.parse_position("rr.r........bbb").unwrap();
        let t = completed_triangles(&sim, &blue);
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].colour(), t[0].name()), ("blue", "def".to_string()));
    }

    #[test]
    fn one_segment_can_close_two_triangles() {
        // K5 (ab ac ad ae bc bd be cd ce de): red's last segment ac closed
        // abc and acd at once.
        let sim = Sim::new(5, false).unwrap();
        let pos = sim.parse_position("rrrbrbbrb.").unwrap();
        let names: Vec<String> = completed_triangles(&sim, &pos)
            .iter()
            .map(Triangle::name)
            .collect();
        assert_eq!(names, ["abc", "acd"]);
        assert!(completed_triangles(&sim, &sim.parse_position("..........").unwrap()).is_empty());
    }
}
