//! The position notation: the holes row by row, `o` for a peg and `.` for
//! an empty hole, rows separated by `/` (English start:
//! `ooo/ooo/ooooooo/ooo.ooo/ooooooo/ooo/ooo`). Multi-line ASCII art of the
//! whole board is accepted as input too.

use crate::board::Board;
use crate::error::PegError;

/// Writes the pegs of a position row by row.
pub fn format_position(board: &Board, peg: impl Fn(usize) -> bool) -> String {
    let mut rows: Vec<String> = Vec::new();
    let mut last_row = None;
    for h in 0..board.holes() {
        let y = board.coords(h).1;
        if last_row != Some(y) {
            rows.push(String::new());
            last_row = Some(y);
        }
        rows.last_mut()
            .expect("pushed above")
            .push(if peg(h) { 'o' } else { '.' });
    }
    rows.join("/")
}

/// Reads a position: the row form, or ASCII art of the board's shape.
pub fn parse_position(board: &Board, s: &str) -> Result<Vec<bool>, PegError> {
    let text = s.trim_matches(|c| c == '\n' || c == '\r');
    if text.contains('\n') || text.contains(' ') {
        let drawn = Board::from_art("input", text, board.diagonal())?;
        let same = drawn.holes() == board.holes()
            && (0..board.holes()).all(|h| {
                drawn.coords(h) == board.coords(h) || drawn.hole_name(h) == board.hole_name(h)
            });
        if !same {
            return Err(PegError::BadPosition(format!(
                "the drawing does not have the shape of board {}",
                board.name()
            )));
        }
        return Ok(drawn.drawn_pegs().to_vec());
    }
    let rows: Vec<&str> = text.trim().split('/').collect();
    let mut expected: Vec<usize> = Vec::new();
    let mut last_row = None;
    for h in 0..board.holes() {
        let y = board.coords(h).1;
        if last_row != Some(y) {
            expected.push(0);
            last_row = Some(y);
        }
        *expected.last_mut().expect("pushed above") += 1;
    }
    if rows.len() != expected.len() {
        return Err(PegError::BadPosition(format!(
            "{} rows given, board {} has {}",
            rows.len(),
            board.name(),
            expected.len()
        )));
    }
    let mut pegs = Vec::with_capacity(board.holes());
    for (r, (row, &n)) in rows.iter().zip(&expected).enumerate() {
        if row.chars().count() != n {
            return Err(PegError::BadPosition(format!(
                "row {} has {} holes, board {} has {n} there",
                r + 1,
                row.chars().count(),
                board.name()
            )));
        }
        for (c, ch) in row.chars().enumerate() {
            match ch {
                'o' => pegs.push(true),
                '.' => pegs.push(false),
                _ => {
                    return Err(PegError::BadPosition(format!(
                        "row {}, hole {}: unexpected '{ch}' (use 'o' or '.')",
                        r + 1,
                        c + 1
                    )))
                }
            }
        }
    }
    Ok(pegs)
}
