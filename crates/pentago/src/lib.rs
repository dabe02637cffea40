//! # endgame-pentago
//!
//! Pentago for Endgame: bitboards, win tables, exact late-game solver, AI players.
