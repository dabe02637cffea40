//! The text of moves (`from-to`) and positions (see `crate::notation`).

use super::PegSolitaire;
use crate::bits::Bits;
use crate::error::PegError;
use endgame_core::Notation;

impl<B: Bits> Notation for PegSolitaire<B> {
    type Error = PegError;

    fn format_move(&self, mv: u16) -> String {
        self.move_name(mv)
    }

    fn parse_move(&self, s: &str) -> Result<u16, PegError> {
        let t = s.trim();
        let (a, b) = t
            .split_once('-')
            .ok_or_else(|| PegError::BadMove(t.to_string()))?;
        let (from, to) = (self.board.hole(a)?, self.board.hole(b)?);
        self.board
            .jumps()
            .iter()
            .position(|j| j.from == from && j.to == to)
            .map(|j| j as u16)
            .ok_or_else(|| {
                PegError::IllegalMove(
                    t.to_string(),
                    "the holes are not two apart in a line with a hole between".into(),
                )
            })
    }

    fn format_position(&self, pos: &B) -> String {
        crate::notation::format_position(&self.board, |h| self.has_peg(*pos, h))
    }

    fn parse_position(&self, s: &str) -> Result<B, PegError> {
        let pegs = crate::notation::parse_position(&self.board, s)?;
        Ok(self.position_of((0..pegs.len()).filter(|&h| pegs[h])))
    }
}
