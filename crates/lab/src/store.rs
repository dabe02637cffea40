//! The results store: one schema and one set of queries (written with `?`
//! placeholders) on SQLite or PostgreSQL.
//!
//! Only two things differ per backend: the DDL of the auto-id column of
//! `runs`, and how a transaction that claims work starts (`BEGIN
//! IMMEDIATE` on SQLite, `BEGIN` plus `FOR UPDATE SKIP LOCKED` on
//! PostgreSQL). Placeholders `?` are rewritten to `$1, $2, …` for
//! PostgreSQL.

use crate::error::{one_line, LabError};
use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
use std::path::Path;

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

/// A value passed to or read from a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// SQL NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A double.
    Real(f64),
    /// Text.
    Text(String),
}

impl Val {
    /// The integer, if it is one (reals are truncated).
    pub fn int(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Real(r) => Some(*r as i64),
            Val::Text(t) => t.parse().ok(),
            Val::Null => None,
        }
    }

    /// The number, if it is one.
    pub fn real(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Real(r) => Some(*r),
            Val::Text(t) => t.parse().ok(),
            Val::Null => None,
        }
    }

    /// The text, if not NULL (numbers are formatted).
    pub fn text(&self) -> Option<String> {
        match self {
            Val::Int(i) => Some(i.to_string()),
            Val::Real(r) => Some(r.to_string()),
            Val::Text(t) => Some(t.clone()),
            Val::Null => None,
        }
    }
}

impl From<i64> for Val {
    fn from(v: i64) -> Self {
        Val::Int(v)
    }
}
impl From<u64> for Val {
    fn from(v: u64) -> Self {
        Val::Int(v as i64)
    }
}
impl From<f64> for Val {
    fn from(v: f64) -> Self {
        Val::Real(v)
    }
}
impl From<&str> for Val {
    fn from(v: &str) -> Self {
        Val::Text(v.to_string())
    }
}
impl From<String> for Val {
    fn from(v: String) -> Self {
        Val::Text(v)
    }
}
impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Self {
        v.map_or(Val::Null, Into::into)
    }
}

impl rusqlite::ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value as V};
        Ok(ToSqlOutput::Owned(match self {
            Val::Null => V::Null,
            Val::Int(i) => V::Integer(*i),
            Val::Real(r) => V::Real(*r),
            Val::Text(t) => V::Text(t.clone()),
        }))
    }
}

impl ToSql for Val {
    // Converts to whatever type the server inferred for the parameter, so
    // one `Val` serves BIGINT, INTEGER, DOUBLE PRECISION and TEXT columns.
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Val::Null => Ok(IsNull::Yes),
            Val::Int(i) => match *ty {
                Type::INT8 => i.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::FLOAT4 => (*i as f32).to_sql(ty, out),
                _ => i.to_string().to_sql(ty, out),
            },
            Val::Real(r) => match *ty {
                Type::FLOAT8 => r.to_sql(ty, out),
                Type::FLOAT4 => (*r as f32).to_sql(ty, out),
                Type::INT8 => (*r as i64).to_sql(ty, out),
                _ => r.to_string().to_sql(ty, out),
            },
            Val::Text(t) => t.to_sql(ty, out),
        }
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The database behind a store.
enum Conn {
    Sqlite(rusqlite::Connection),
    Postgres(Box<postgres::Client>),
}

/// An open results store.
pub struct Store {
    conn: Conn,
    /// Where it is (password hidden), for messages.
    pub location: String,
}

/// Which backend a `--db` value names.
pub fn is_postgres(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// `db` with any password replaced by `***`.
pub fn redact(db: &str) -> String {
    if !is_postgres(db) {
        return db.to_string();
    }
    // postgres://user:password@host… → postgres://user:***@host…
    if let (Some(scheme_end), Some(at)) = (db.find("://"), db.rfind('@')) {
        let userinfo = &db[scheme_end + 3..at];
        if let Some(colon) = userinfo.find(':') {
            return format!(
                "{}{}:***{}",
                &db[..scheme_end + 3],
                &userinfo[..colon],
                &db[at..]
            );
        }
    }
    db.to_string()
}

/// `?` → `$1, $2, …` outside string literals (PostgreSQL's placeholders).
fn number_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    let mut in_str = false;
    for ch in sql.chars() {
        if ch == '\'' {
            in_str = !in_str;
        }
        if ch == '?' && !in_str {
            n += 1;
            out.push_str(&format!("${n}"));
        } else {
            out.push(ch);
        }
    }
    out
}

/// The schema. `{ID}` is the auto-id column's type, the only DDL that
/// differs between the backends.
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS runs (
        id {ID},
        experiment TEXT NOT NULL,
        params TEXT NOT NULL,
        seed BIGINT NOT NULL,
        code_version TEXT NOT NULL,
        machine TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        units BIGINT NOT NULL,
        UNIQUE (experiment, params, seed)
    )",
    "CREATE TABLE IF NOT EXISTS batches (
        run_id BIGINT NOT NULL REFERENCES runs (id),
        batch BIGINT NOT NULL,
        first_unit BIGINT NOT NULL,
        end_unit BIGINT NOT NULL,
        status TEXT NOT NULL,
        worker TEXT,
        done_at TEXT,
        PRIMARY KEY (run_id, batch)
    )",
    "CREATE TABLE IF NOT EXISTS units (
        run_id BIGINT NOT NULL REFERENCES runs (id),
        unit BIGINT NOT NULL,
        elapsed_ms DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, unit)
    )",
    "CREATE TABLE IF NOT EXISTS measures (
        run_id BIGINT NOT NULL REFERENCES runs (id),
        unit BIGINT NOT NULL,
        name TEXT NOT NULL,
        value DOUBLE PRECISION,
        text TEXT,
        PRIMARY KEY (run_id, unit, name)
    )",
];

impl Store {
    /// Opens (creating if needed) the store named by `db`: a SQLite file
    /// path, or a `postgres://` / `postgresql://` URL. Creates the schema
    /// when missing; refuses a schema newer than this code.
    pub fn open(db: &str) -> Result<Store, LabError> {
        let mut s = Store::connect(db, true)?;
        s.init_schema()?;
        Ok(s)
    }

    /// Opens an existing store without writing anything: a missing SQLite
    /// file or an empty database is an error (for `status`, `report`,
    /// `export`).
    pub fn open_existing(db: &str) -> Result<Store, LabError> {
        let mut s = Store::connect(db, false)?;
        match s.schema_version()? {
            None => Err(LabError::Open {
                url: redact(db),
                reason: "it holds no lab results (run `endgame lab run` first)".into(),
            }),
            Some(v) if v > SCHEMA_VERSION => Err(LabError::SchemaTooNew {
                found: v,
                known: SCHEMA_VERSION,
            }),
            Some(_) => Ok(s),
        }
    }

    /// Opens a store without checking its schema version (tests that
    /// repair a store another test made "newer").
    #[doc(hidden)]
    pub fn open_unchecked(db: &str) -> Result<Store, LabError> {
        Store::connect(db, false)
    }

    fn connect(db: &str, create: bool) -> Result<Store, LabError> {
        let location = redact(db);
        let open_err = |reason: String| LabError::Open {
            url: location.clone(),
            reason: one_line(&reason),
        };
        let conn = if is_postgres(db) {
            let mut config: postgres::Config = db
                .parse()
                .map_err(|e: postgres::Error| open_err(format!("bad URL: {e}")))?;
            if config.get_connect_timeout().is_none() {
                config.connect_timeout(std::time::Duration::from_secs(5));
            }
            let client = config.connect(postgres::NoTls).map_err(|e| {
                let detail = match e.as_db_error() {
                    Some(d) => d.message().to_string(),
                    None => match std::error::Error::source(&e) {
                        Some(s) => format!("{e}: {s}"),
                        None => e.to_string(),
                    },
                };
                open_err(detail)
            })?;
            Conn::Postgres(Box::new(client))
        } else {
            if db.is_empty() {
                return Err(open_err("empty path".into()));
            }
            let path = Path::new(db);
            if !create && !path.exists() {
                return Err(open_err("no such file".into()));
            }
            let flags = if create {
                rusqlite::OpenFlags::default()
            } else {
                rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | rusqlite::OpenFlags::SQLITE_OPEN_URI
            };
            let c = rusqlite::Connection::open_with_flags(path, flags)
                .map_err(|e| open_err(e.to_string()))?;
            // Another process may hold the write lock while it computes a
            // batch: wait for it rather than fail.
            c.busy_timeout(std::time::Duration::from_secs(600))
                .map_err(|e| open_err(e.to_string()))?;
            if create {
                // WAL: readers (status, report) never block the writer.
                c.pragma_update(None, "journal_mode", "WAL")
                    .map_err(|e| open_err(e.to_string()))?;
            }
            c.pragma_update(None, "foreign_keys", "ON")
                .map_err(|e| open_err(e.to_string()))?;
            Conn::Sqlite(c)
        };
        Ok(Store { conn, location })
    }

    /// Whether this store is PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self.conn, Conn::Postgres(_))
    }

    /// The schema version recorded, or `None` when the database has no lab
    /// schema yet.
    pub fn schema_version(&mut self) -> Result<Option<i64>, LabError> {
        let exists = match &mut self.conn {
            Conn::Sqlite(_) => self.query(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
                &[],
            )?,
            Conn::Postgres(_) => self.query(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_version'",
                &[],
            )?,
        };
        if exists[0][0].int() == Some(0) {
            return Ok(None);
        }
        let rows = self.query("SELECT MAX(version) FROM schema_version", &[])?;
        Ok(rows.first().and_then(|r| r[0].int()))
    }

    fn init_schema(&mut self) -> Result<(), LabError> {
        // Refuse before writing anything.
        if let Some(v) = self.schema_version()? {
            if v > SCHEMA_VERSION {
                return Err(LabError::SchemaTooNew {
                    found: v,
                    known: SCHEMA_VERSION,
                });
            }
            if v == SCHEMA_VERSION {
                return Ok(());
            }
        }
        self.begin_write()?;
        let r = (|| {
            if let Conn::Postgres(c) = &mut self.conn {
                // Two workers starting on an empty database would race on
                // CREATE TABLE; serialise them.
                c.batch_execute("SELECT pg_advisory_xact_lock(734512)")?;
            }
            let id = if self.is_postgres() {
                "BIGSERIAL PRIMARY KEY"
            } else {
                "INTEGER PRIMARY KEY AUTOINCREMENT"
            };
            self.exec(
                "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
                &[],
            )?;
            for ddl in SCHEMA {
                self.exec(&ddl.replace("{ID}", id), &[])?;
            }
            self.exec(
                "CREATE INDEX IF NOT EXISTS batches_todo ON batches (run_id, status, batch)",
                &[],
            )?;
            let have = self.query("SELECT COUNT(*) FROM schema_version", &[])?;
            if have[0][0].int() == Some(0) {
                self.exec(
                    "INSERT INTO schema_version (version) VALUES (?)",
                    &[Val::Int(SCHEMA_VERSION)],
                )?;
            }
            Ok(())
        })();
        self.finish(r)
    }

    /// Rewrites `?` placeholders for the backend.
    fn sql(&self, sql: &str) -> String {
        if !self.is_postgres() {
            return sql.to_string();
        }
        number_placeholders(sql)
    }

    /// Runs a statement; returns the rows it changed.
    pub fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, LabError> {
        let sql = self.sql(sql);
        match &mut self.conn {
            Conn::Sqlite(c) => {
                Ok(c.execute(&sql, rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Conn::Postgres(c) => {
                let p: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                Ok(c.execute(sql.as_str(), &p)?)
            }
        }
    }

    /// Runs a query; returns its rows.
    pub fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<Vec<Val>>, LabError> {
        let sql = self.sql(sql);
        match &mut self.conn {
            Conn::Sqlite(c) => {
                let mut st = c.prepare(&sql)?;
                let ncol = st.column_count();
                let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |row| {
                    (0..ncol)
                        .map(|i| {
                            use rusqlite::types::ValueRef;
                            Ok(match row.get_ref(i)? {
                                ValueRef::Null => Val::Null,
                                ValueRef::Integer(i) => Val::Int(i),
                                ValueRef::Real(r) => Val::Real(r),
                                ValueRef::Text(t) => {
                                    Val::Text(String::from_utf8_lossy(t).into_owned())
                                }
                                ValueRef::Blob(_) => Val::Null,
                            })
                        })
                        .collect::<rusqlite::Result<Vec<Val>>>()
                })?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            }
            Conn::Postgres(c) => {
                let p: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                let rows = c.query(sql.as_str(), &p)?;
                rows.iter()
                    .map(|row| {
                        (0..row.len())
                            .map(|i| {
                                let ty = row.columns()[i].type_().clone();
                                Ok(match ty {
                                    Type::INT8 => row.try_get::<_, Option<i64>>(i)?.into(),
                                    Type::INT4 => {
                                        row.try_get::<_, Option<i32>>(i)?.map(i64::from).into()
                                    }
                                    Type::INT2 => {
                                        row.try_get::<_, Option<i16>>(i)?.map(i64::from).into()
                                    }
                                    Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.into(),
                                    Type::FLOAT4 => {
                                        row.try_get::<_, Option<f32>>(i)?.map(f64::from).into()
                                    }
                                    Type::BOOL => {
                                        row.try_get::<_, Option<bool>>(i)?.map(|b| b as i64).into()
                                    }
                                    _ => row.try_get::<_, Option<String>>(i)?.into(),
                                })
                            })
                            .collect::<Result<Vec<Val>, postgres::Error>>()
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(Into::into)
            }
        }
    }

    /// Starts a transaction that will write: on SQLite it takes the write
    /// lock at once (`BEGIN IMMEDIATE`), so two processes never both read
    /// the same `todo` batch.
    pub fn begin_write(&mut self) -> Result<(), LabError> {
        match &mut self.conn {
            Conn::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Conn::Postgres(c) => c.batch_execute("BEGIN")?,
        }
        Ok(())
    }

    /// Commits the open transaction.
    pub fn commit(&mut self) -> Result<(), LabError> {
        match &mut self.conn {
            Conn::Sqlite(c) => c.execute_batch("COMMIT")?,
            Conn::Postgres(c) => c.batch_execute("COMMIT")?,
        }
        Ok(())
    }

    /// Rolls the open transaction back.
    pub fn rollback(&mut self) -> Result<(), LabError> {
        match &mut self.conn {
            Conn::Sqlite(c) => c.execute_batch("ROLLBACK")?,
            Conn::Postgres(c) => c.batch_execute("ROLLBACK")?,
        }
        Ok(())
    }

    /// Commits when `r` is `Ok`, rolls back otherwise; returns `r`.
    pub fn finish<T>(&mut self, r: Result<T, LabError>) -> Result<T, LabError> {
        match r {
            Ok(v) => {
                self.commit()?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.rollback();
                Err(e)
            }
        }
    }

    /// The clause that makes a claim skip rows other workers hold
    /// (PostgreSQL); SQLite's write lock already serialises claims.
    pub fn skip_locked(&self) -> &'static str {
        if self.is_postgres() {
            " FOR UPDATE SKIP LOCKED"
        } else {
            ""
        }
    }

    /// Sets the schema version (tests of the newer-schema refusal).
    #[doc(hidden)]
    pub fn force_schema_version(&mut self, v: i64) -> Result<(), LabError> {
        self.exec("UPDATE schema_version SET version = ?", &[Val::Int(v)])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_in_messages() {
        assert_eq!(
            redact("postgres://me:secret@db:5432/lab"),
            "postgres://me:***@db:5432/lab"
        );
        assert_eq!(redact("postgresql://me@db/lab"), "postgresql://me@db/lab");
        assert_eq!(redact("some/file.db"), "some/file.db");
        assert!(is_postgres("postgresql://x") && is_postgres("postgres://x"));
        assert!(!is_postgres("postgres.db"));
    }

    #[test]
    fn placeholders_are_numbered_for_postgres_only() {
        let dir = std::env::temp_dir().join(format!("endgame-lab-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = Store::open(&dir.join("u.db").display().to_string()).unwrap();
        let q = "SELECT a FROM t WHERE b = ? AND c = '?' AND d = ?";
        assert_eq!(s.sql(q), q);
        assert_eq!(
            number_placeholders(q),
            "SELECT a FROM t WHERE b = $1 AND c = '?' AND d = $2"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
