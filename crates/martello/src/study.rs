//! The random-board study (filled below).
