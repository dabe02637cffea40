//! The [`Martello`] puzzle: the board side and start, the lookup tables
//! of its stones, and the core traits (`Rules`, `Puzzle`, `Notation`;
//! `Symmetric` is in `symmetry`), with operations written `EATER:EATEN`.

use super::lanes::code;
use super::{Op, State};
use crate::board::{stone_name, MartelloError, MAX_N};

/// The Martello puzzle on an n-board from a given start.
#[derive(Clone, Debug)]
pub struct Martello {
    pub(super) n: usize,
    pub(super) start: State,
    /// `symcol[s]`: the stones of symbol `s`.
    pub(super) symcol: [u64; MAX_N],
    /// `ids[v & 63]`: the id of the stone in lane `v`.
    pub(super) ids: [u8; 64],
    /// `cshift[v & 63]`: the first bit of the colour row of the stone in
    /// lane `v` (colour · n).
    pub(super) cshift: [u8; 64],
    /// Bit 0 of every colour row (`Σ 1 << (c·n)`).
    pub(super) rep: u64,
}
impl Martello {
    /// The puzzle on an `n`-board starting from `start`.
    pub fn new(n: usize, start: State) -> Result<Martello, MartelloError> {
        if !(1..=MAX_N).contains(&n) {
            return Err(MartelloError::SizeOutOfRange(n));
        }
        if usize::from(start.n) != n {
            return Err(MartelloError::Impossible(format!(
                "a {0}×{0} state given for a {n}×{n} game",
                start.n
            )));
        }
        let mut symcol = [0u64; MAX_N];
        for a in 0..n * n {
            symcol[a % n] |= 1 << a;
        }
        let mut rep = 0u64;
        for c in 0..n {
            rep |= 1 << (c * n);
        }
        let (mut ids, mut cshift) = ([0u8; 64], [0u8; 64]);
        for c in 0..n {
            for y in 0..n {
                let v = (code(c, y) & 63) as usize;
                ids[v] = (c * n + y) as u8;
                cshift[v] = (c * n) as u8;
            }
        }
        Ok(Martello {
            n,
            start,
            symcol,
            ids,
            cshift,
            rep,
        })
    }

    /// The puzzle of a board string.
    pub fn from_board_string(s: &str) -> Result<Martello, MartelloError> {
        let (n, st) = State::parse(s)?;
        Martello::new(n, st)
    }

    /// The board side.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The id of the stone in lane `v`.
    #[inline(always)]
    pub(super) fn id(&self, v: u64) -> u8 {
        self.ids[(v & 63) as usize]
    }

    /// The weight of row `r` in [`Martello::spread`]: its distance from
    /// the middle of the board, in half rows (`|2r − (n − 1)|`).
    #[inline(always)]
    pub fn row_weight(&self, r: usize) -> i64 {
        (2 * r as i64 - (self.n as i64 - 1)).abs()
    }

    /// How far the stones stand from the middle rows: the sum over stones
    /// of [`Martello::row_weight`] of their row. The solver tries the
    /// children of lowest spread first (thirteenth session: on the hard
    /// solvable 6×6 boards, the goal search then finds a line in about
    /// half the expansions). Why it helps: rows never refill and two
    /// consecutive empty rows with stones on both sides doom the game, so
    /// a line that empties the board from its outer rows inwards never
    /// cuts it. An operation lowers the spread by the weight of the
    /// eater's row (the eater leaves its row, and the eaten stone's row
    /// keeps its count), so children rank by that row alone.
    pub fn spread(&self, s: &State) -> i64 {
        (0..self.n)
            .map(|r| s.len(r) as i64 * self.row_weight(r))
            .sum()
    }

    /// Whether stones `a` and `b` share colour or symbol.
    #[inline(always)]
    pub fn compatible(&self, a: u8, b: u8) -> bool {
        let n = self.n;
        a != b && (a as usize / n == b as usize / n || a as usize % n == b as usize % n)
    }

    /// Writes an operation as `EATER:EATEN`.
    pub fn format_op(&self, op: Op) -> String {
        format!(
            "{}:{}",
            stone_name(self.n, op.eater),
            stone_name(self.n, op.eaten)
        )
    }

    /// Reads `EATER:EATEN` (letters, or decimal ids).
    pub fn parse_op(&self, s: &str) -> Result<Op, MartelloError> {
        let bad = || MartelloError::BadOperation(s.to_string());
        let (a, b) = s.trim().split_once(':').ok_or_else(bad)?;
        let one = |t: &str| -> Option<u8> {
            let id = if let Ok(v) = t.parse::<u8>() {
                v
            } else {
                let mut cs = t.chars();
                let c = cs.next()?;
                if cs.next().is_some() {
                    return None;
                }
                crate::board::char_stone(c)?
            };
            ((id as usize) < self.n * self.n).then_some(id)
        };
        Ok(Op {
            eater: one(a).ok_or_else(bad)?,
            eaten: one(b).ok_or_else(bad)?,
        })
    }
}

impl endgame_core::Rules for Martello {
    type Position = State;
    type Move = Op;

    fn start(&self) -> State {
        self.start
    }

    fn for_each_move(&self, pos: &State, mut f: impl FnMut(Op)) {
        self.for_each_child(pos, |op, _| f(op));
    }

    #[inline]
    fn play_unchecked(&self, pos: &State, op: Op) -> State {
        let px = pos.find(op.eater).expect("eater on the board");
        let py = pos.find(op.eaten).expect("eaten stone on the board");
        self.apply_at(pos, px, py)
    }

    fn is_legal(&self, pos: &State, op: Op) -> bool {
        self.play_checked(pos, op).is_ok()
    }
}

impl endgame_core::Puzzle for Martello {
    fn score(&self, pos: &State) -> u32 {
        pos.stones()
    }
    fn is_goal(&self, pos: &State) -> bool {
        pos.stones() == 1
    }
    fn score_bound(&self) -> u32 {
        1
    }
    #[inline]
    fn cannot_reach_goal(&self, pos: &State) -> bool {
        pos.doomed
    }
    /// [`Martello::spread`]: children that draw the stones towards the
    /// middle rows first.
    #[inline]
    fn search_order(&self, pos: &State) -> i64 {
        self.spread(pos)
    }
}

impl endgame_core::Notation for Martello {
    type Error = MartelloError;
    fn format_move(&self, mv: Op) -> String {
        self.format_op(mv)
    }
    fn parse_move(&self, s: &str) -> Result<Op, MartelloError> {
        self.parse_op(s)
    }
    fn format_position(&self, pos: &State) -> String {
        pos.to_board(self.n).to_board_string()
    }
    fn parse_position(&self, s: &str) -> Result<State, MartelloError> {
        let (n, st) = State::parse(s)?;
        if n != self.n {
            return Err(MartelloError::Impossible(format!(
                "a {n}×{n} board given for a {}×{} game",
                self.n, self.n
            )));
        }
        Ok(st)
    }
}
