//! # endgame-lab
//!
//! Reproducible experiments whose results live in a database (SQLite or
//! PostgreSQL), with reports and plots.
//!
//! - [`store`]: the schema and the queries, one set for both databases.
//! - [`experiment`]: the [`Experiment`] trait, parameters, measures.
//! - [`runner`]: crash-safe, shareable runs in transactional batches.
//! - [`report`] and [`plot`]: tables and SVG/PNG figures.
//! - [`registry`]: the experiments by name; [`experiments`]: their code.

pub mod error;
pub mod experiment;
pub mod experiments;
pub mod plot;
pub mod registry;
pub mod report;
pub mod runner;
pub mod store;

pub use error::LabError;
pub use experiment::{Experiment, Measure, ParamSpec, Params, RunData};
pub use store::Store;
