//! # endgame-web
//!
//! The web workbench: an HTTP server with a JSON API and an embedded UI.
