//! # endgame-sim
//!
//! Sim (Cassis) on K_n for Endgame: rules, exact canonical form, strong solution, players.
