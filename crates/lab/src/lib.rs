//! # endgame-lab
//!
//! Reproducible experiments whose results live in a database (SQLite or
//! PostgreSQL), with reports and plots.
