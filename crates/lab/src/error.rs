//! The lab's errors: every one prints as one line.

use thiserror::Error;

/// What can go wrong in the lab.
#[derive(Debug, Error)]
pub enum LabError {
    /// No experiment has this name.
    #[error("unknown experiment `{0}` (see `endgame lab list`)")]
    UnknownExperiment(String),
    /// A `--param` names no parameter of the experiment.
    #[error("experiment `{experiment}` has no parameter `{name}` (it has: {known})")]
    UnknownParam {
        /// The experiment.
        experiment: String,
        /// The name given.
        name: String,
        /// The parameters it has.
        known: String,
    },
    /// A parameter value is malformed or out of range.
    #[error("bad parameter: {0}")]
    BadParam(String),
    /// One unit of the run would not fit the memory budget.
    #[error("memory budget too small: {0}")]
    Memory(String),
    /// The database cannot be opened or reached.
    #[error("cannot open database {url}: {reason}")]
    Open {
        /// The database (password hidden).
        url: String,
        /// Why.
        reason: String,
    },
    /// The database holds a schema this code does not know.
    #[error("the database schema is version {found}, newer than this endgame knows ({known}); upgrade endgame")]
    SchemaTooNew {
        /// Version in the database.
        found: i64,
        /// Version of this code.
        known: i64,
    },
    /// A run id or experiment has no run in the database.
    #[error("no run `{0}` in the database (see `endgame lab status`)")]
    UnknownRun(String),
    /// A database statement failed.
    #[error("database error: {0}")]
    Db(String),
    /// Runs given to `lab report --with` that cannot make one report.
    #[error("cannot combine runs: {0}")]
    Combine(String),
    /// An experiment's unit failed.
    #[error("experiment failed: {0}")]
    Unit(String),
    /// Writing a plot or file failed.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

impl From<rusqlite::Error> for LabError {
    fn from(e: rusqlite::Error) -> Self {
        LabError::Db(one_line(&e.to_string()))
    }
}

impl From<postgres::Error> for LabError {
    fn from(e: postgres::Error) -> Self {
        // The server's message is in the source (DbError); show it.
        let detail = match e.as_db_error() {
            Some(db) => db.message().to_string(),
            None => e.to_string(),
        };
        LabError::Db(one_line(&detail))
    }
}

/// Joins the lines of a message so every error prints on one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
