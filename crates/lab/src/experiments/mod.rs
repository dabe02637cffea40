//! The experiments, one module per game.

pub mod calibration;
pub mod martello;
pub mod peg;
pub mod pentago;
pub mod sim;
