//! # endgame-martello
//!
//! Martello n×n for Endgame: rules, normalised states, exact solver, meta-solver, study.
