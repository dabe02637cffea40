//! Raw boards: the n×n cells a person sees, the board strings of
//! `docs/martello.md`, validation, random start boards.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// The largest board side supported.
pub const MAX_N: usize = 8;
/// The value of an empty cell in [`Board::cells`].
pub const EMPTY: u8 = u8::MAX;

/// Everything that can be wrong with a board string or an operation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MartelloError {
    /// The cell count is not n² for a supported n.
    #[error("board has {0} cells; expected n² cells for n = 1..=8 (n = 8 as space-separated ids)")]
    BadLength(usize),
    /// A character that is neither a stone nor `.`.
    #[error("unknown character {ch:?} at cell {cell}")]
    BadChar {
        /// The offending character.
        ch: char,
        /// Its cell index (row-major).
        cell: usize,
    },
    /// A token of the decimal form that is not an id.
    #[error("bad cell {token:?} at cell {cell}")]
    BadToken {
        /// The offending token.
        token: String,
        /// Its cell index.
        cell: usize,
    },
    /// A stone id of another board size.
    #[error("stone {stone} at cell {cell} does not exist on a {n}×{n} board")]
    OutOfRange {
        /// The id.
        stone: usize,
        /// Its cell index.
        cell: usize,
        /// The board side.
        n: usize,
    },
    /// The same stone twice.
    #[error("stone {0} appears twice")]
    Repeated(String),
    /// The board side asked for is not 1..=8.
    #[error("board size n = {0} out of range 1..=8")]
    SizeOutOfRange(usize),
    /// A position no play can produce.
    #[error("impossible position: {0}")]
    Impossible(String),
    /// A move string that does not parse.
    #[error("bad operation {0:?} (expected EATER:EATEN, e.g. a:g)")]
    BadOperation(String),
    /// An operation the rules do not allow here.
    #[error("illegal operation {0}")]
    Illegal(String),
}

/// Writes stone `id` as the board strings do for n ≤ 7 (`a`… then `A`…;
/// `docs/martello.md`).
pub fn stone_char(id: u8) -> char {
    if id < 26 {
        (b'a' + id) as char
    } else {
        (b'A' + id - 26) as char
    }
}

/// Reads a stone letter.
pub fn char_stone(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a'),
        'A'..='Z' => Some(c as u8 - b'A' + 26),
        _ => None,
    }
}

/// A stone's name on an `n`-board: its letter for n ≤ 7, its decimal id
/// for n = 8.
pub fn stone_name(n: usize, id: u8) -> String {
    if n <= 7 {
        stone_char(id).to_string()
    } else {
        id.to_string()
    }
}

/// An n×n board of stones, row-major, [`EMPTY`] for an empty cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Board {
    /// The side.
    pub n: u8,
    /// Row-major cells, `n*n` used.
    pub cells: [u8; MAX_N * MAX_N],
}

impl Board {
    /// An empty board of side `n`.
    pub fn empty(n: usize) -> Result<Board, MartelloError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(MartelloError::SizeOutOfRange(n));
        }
        Ok(Board {
            n: n as u8,
            cells: [EMPTY; MAX_N * MAX_N],
        })
    }

    /// The side n.
    pub fn n(&self) -> usize {
        self.n as usize
    }

    /// The cell at row `r`, column `c`.
    pub fn get(&self, r: usize, c: usize) -> u8 {
        self.cells[r * self.n() + c]
    }

    /// Sets the cell at row `r`, column `c`.
    pub fn set(&mut self, r: usize, c: usize, v: u8) {
        let n = self.n();
        self.cells[r * n + c] = v;
    }

    /// Stones on the board.
    pub fn stones(&self) -> usize {
        let n = self.n();
        self.cells[..n * n].iter().filter(|&&c| c != EMPTY).count()
    }

    /// A random full start board: the n² stones shuffled by a ChaCha8
    /// generator seeded with `seed` (the same board on every machine).
    pub fn random(n: usize, seed: u64) -> Result<Board, MartelloError> {
        let mut b = Board::empty(n)?;
        let mut ids: Vec<u8> = (0..(n * n) as u8).collect();
        ids.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        b.cells[..n * n].copy_from_slice(&ids);
        Ok(b)
    }

    /// Reads a board string (`docs/martello.md`): n² cells row-major,
    /// letters for stones and `.` for empty cells (n ≤ 7), or
    /// space-separated decimal ids and `.` (any n, required for n = 8); `/`
    /// may separate rows.
    /// Checks the stones and that some play can produce the position.
    pub fn parse(s: &str) -> Result<Board, MartelloError> {
        let s = s.trim();
        let mut cells: Vec<Option<u8>> = Vec::new();
        if s.contains(char::is_whitespace) {
            for (i, tok) in s
                .split(|c: char| c.is_whitespace() || c == '/')
                .filter(|t| !t.is_empty())
                .enumerate()
            {
                if tok == "." {
                    cells.push(None);
                } else {
                    let id: usize = tok.parse().map_err(|_| MartelloError::BadToken {
                        token: tok.to_string(),
                        cell: i,
                    })?;
                    if id >= MAX_N * MAX_N {
                        return Err(MartelloError::OutOfRange {
                            stone: id,
                            cell: i,
                            n: MAX_N,
                        });
                    }
                    cells.push(Some(id as u8));
                }
            }
        } else {
            for (i, ch) in s.chars().filter(|&c| c != '/').enumerate() {
                if ch == '.' {
                    cells.push(None);
                } else {
                    let id = char_stone(ch).ok_or(MartelloError::BadChar { ch, cell: i })?;
                    cells.push(Some(id));
                }
            }
            if cells.len() == 64 {
                return Err(MartelloError::BadLength(64));
            }
        }
        let len = cells.len();
        let n = (1..=MAX_N)
            .find(|&n| n * n == len)
            .ok_or(MartelloError::BadLength(len))?;
        let mut b = Board::empty(n)?;
        let mut seen = [false; MAX_N * MAX_N];
        for (i, c) in cells.iter().enumerate() {
            if let Some(id) = *c {
                if id as usize >= n * n {
                    return Err(MartelloError::OutOfRange {
                        stone: id as usize,
                        cell: i,
                        n,
                    });
                }
                if seen[id as usize] {
                    return Err(MartelloError::Repeated(stone_name(n, id)));
                }
                seen[id as usize] = true;
                b.cells[i] = id;
            }
        }
        b.validate()?;
        Ok(b)
    }

    /// Checks that some play can produce this board: at least one stone,
    /// and in every row with two or more stones both white cells filled, a
    /// lone stone on a white cell.
    pub fn validate(&self) -> Result<(), MartelloError> {
        let n = self.n();
        if self.stones() == 0 {
            return Err(MartelloError::Impossible(
                "no stones (every operation leaves one)".into(),
            ));
        }
        for r in 0..n {
            let k = (0..n).filter(|&c| self.get(r, c) != EMPTY).count();
            let (w0, w1) = (self.get(r, 0) != EMPTY, self.get(r, n - 1) != EMPTY);
            if k >= 2 && !(w0 && w1) {
                return Err(MartelloError::Impossible(format!(
                    "row {r} has {k} stones but an empty white cell"
                )));
            }
            if k == 1 && !(w0 || w1) {
                return Err(MartelloError::Impossible(format!(
                    "row {r} has a lone stone off the white columns"
                )));
            }
        }
        Ok(())
    }

    /// The board string: letters without separators for n ≤ 7,
    /// space-separated ids for n = 8.
    pub fn to_board_string(&self) -> String {
        let n = self.n();
        let cells = &self.cells[..n * n];
        if n <= 7 {
            cells
                .iter()
                .map(|&c| if c == EMPTY { '.' } else { stone_char(c) })
                .collect()
        } else {
            cells
                .iter()
                .map(|&c| {
                    if c == EMPTY {
                        ".".to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    /// The board as rows separated by `/` (easier to read).
    pub fn to_rows_string(&self) -> String {
        let n = self.n();
        let s = self.to_board_string();
        if n <= 7 {
            let chars: Vec<char> = s.chars().collect();
            chars
                .chunks(n)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join("/")
        } else {
            let toks: Vec<&str> = s.split(' ').collect();
            toks.chunks(n)
                .map(|c| c.join(" "))
                .collect::<Vec<_>>()
                .join(" / ")
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_board_string())
    }
}

/// Joins board strings into a line (`X` between states).
pub fn join_line(boards: &[Board]) -> String {
    boards
        .iter()
        .map(Board::to_board_string)
        .collect::<Vec<_>>()
        .join("X")
}

/// Splits a line of states at `X` and parses each.
pub fn parse_line(s: &str) -> Result<Vec<Board>, MartelloError> {
    s.split('X').map(Board::parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_ids_round_trip() {
        for n in 1..=8 {
            for seed in 0..5 {
                let b = Board::random(n, seed).unwrap();
                let s = b.to_board_string();
                assert_eq!(Board::parse(&s).unwrap(), b);
                assert_eq!(Board::parse(&b.to_rows_string()).unwrap(), b);
            }
        }
        assert_eq!(stone_char(35), 'J');
        assert_eq!(stone_char(48), 'W');
    }

    #[test]
    fn bad_boards_are_rejected() {
        assert!(matches!(
            Board::parse("abc"),
            Err(MartelloError::BadLength(3))
        ));
        assert!(matches!(
            Board::parse("aabc"),
            Err(MartelloError::Repeated(_))
        ));
        assert!(matches!(
            Board::parse("ab#d"),
            Err(MartelloError::BadChar { .. })
        ));
        assert!(matches!(
            Board::parse("abce"),
            Err(MartelloError::OutOfRange { .. })
        ));
        assert!(matches!(
            Board::parse("...."),
            Err(MartelloError::Impossible(_))
        ));
        // Two stones in a row of three with an empty white cell.
        assert!(matches!(
            Board::parse("ab.defghi"),
            Err(MartelloError::Impossible(_))
        ));
        // A lone stone in the middle column.
        assert!(matches!(
            Board::parse(".b.defghi"),
            Err(MartelloError::Impossible(_))
        ));
        assert!(Board::parse("..b/def/ghi").is_ok());
        assert!(matches!(
            Board::empty(9),
            Err(MartelloError::SizeOutOfRange(9))
        ));
    }

    #[test]
    fn lines_split_at_x() {
        let a = Board::random(3, 1).unwrap();
        let b = Board::random(3, 2).unwrap();
        let line = join_line(&[a, b]);
        assert_eq!(parse_line(&line).unwrap(), vec![a, b]);
    }
}
