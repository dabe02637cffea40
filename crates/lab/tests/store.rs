//! Store and runner tests, on SQLite and on a real PostgreSQL server (the
//! latter when `ENDGAME_TEST_POSTGRES` names one; `crates/lab/ci/postgres.sh`
//! starts one and prints the variable).

use endgame_lab::experiment::Params;
use endgame_lab::runner::{self, RunOptions};
use endgame_lab::store::{Store, Val};
use endgame_lab::{registry, LabError};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// A database's URL, and for SQLite the directory that holds its file
/// (removed with the file when this drops).
struct Db {
    url: String,
    _dir: Option<tempfile::TempDir>,
}

impl Db {
    fn server(url: String) -> Db {
        Db { url, _dir: None }
    }
}

impl std::ops::Deref for Db {
    type Target = str;
    fn deref(&self) -> &str {
        &self.url
    }
}

/// A fresh SQLite file.
fn sqlite() -> Db {
    let dir = tempfile::Builder::new()
        .prefix("endgame-lab-test-")
        .tempdir()
        .unwrap();
    Db {
        url: dir.path().join("lab.db").display().to_string(),
        _dir: Some(dir),
    }
}

/// A fresh PostgreSQL schema (one per test, so tests run in parallel on
/// one server), or `None` with a loud notice.
fn postgres(test: &str) -> Option<String> {
    let Ok(url) = std::env::var("ENDGAME_TEST_POSTGRES") else {
        // Straight to the stderr stream: the test harness captures
        // `eprintln!`, and this notice must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** NOTICE: ENDGAME_TEST_POSTGRES is not set: the PostgreSQL part of `{test}` did NOT run.\n*** Start a server with `. crates/lab/ci/postgres.sh` to run it.\n"
        );
        return None;
    };
    let schema = format!("t_{}_{}", test, std::process::id());
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("test server");
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
    ))
    .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

/// Both backends.
fn backends(test: &str) -> Vec<Db> {
    let mut v = vec![sqlite()];
    v.extend(postgres(test).map(Db::server));
    v
}

fn params(exp: &str, kv: &[&str]) -> Params {
    let e = registry::find(exp).unwrap();
    Params::parse(e, &kv.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
}

/// Deterministic measures of a run: unit → name → (value, text), timings
/// left out.
fn measures(db: &str, id: i64) -> BTreeMap<(u64, String), (Option<f64>, Option<String>)> {
    let mut st = Store::open(db).unwrap();
    runner::export(&mut st, Some(id))
        .unwrap()
        .into_iter()
        .filter(|r| !endgame_lab::Measure::is_timing(&r.name))
        .map(|r| ((r.unit, r.name), (r.value, r.text)))
        .collect()
}

fn count(st: &mut Store, sql: &str, id: i64) -> i64 {
    st.query(sql, &[Val::Int(id)]).unwrap()[0][0].int().unwrap()
}

#[test]
fn schema_round_trip_and_values() {
    for db in backends("roundtrip") {
        let mut st = Store::open(&db).unwrap();
        assert_eq!(st.schema_version().unwrap(), Some(1));
        // Reopening an existing store is a no-op.
        drop(st);
        let mut st = Store::open(&db).unwrap();
        let exp = registry::find("calibration").unwrap();
        let p = params("calibration", &["units=7", "batch=3"]);
        let o = runner::run(&mut st, exp, &p, 42, &RunOptions::default(), &mut |_, _| {}).unwrap();
        assert!(o.created);
        assert_eq!((o.run.units, o.run.units_done), (7, 7));
        assert!(o.run.finished_at.is_some());
        assert_eq!(o.batches_committed, 3);
        // Stored values read back exactly as the experiment made them.
        for u in 0..7 {
            let expect = exp.unit(&p, 42, u).unwrap();
            let rows = st
                .query(
                    "SELECT name, value, text FROM measures WHERE run_id = ? AND unit = ? ORDER BY name",
                    &[Val::Int(o.run.id), Val::Int(u as i64)],
                )
                .unwrap();
            let mut e = expect.clone();
            e.sort_by(|a, b| a.name.cmp(&b.name));
            assert_eq!(rows.len(), e.len());
            for (r, m) in rows.iter().zip(&e) {
                assert_eq!(r[0].text().unwrap(), m.name);
                assert_eq!(r[1].real(), m.value);
                assert_eq!(r[2].text(), m.text);
            }
        }
        // Plain SQL aggregates work the same on both backends.
        let avg = st
            .query(
                "SELECT name, AVG(value), COUNT(*) FROM measures WHERE run_id = ? GROUP BY name ORDER BY name",
                &[Val::Int(o.run.id)],
            )
            .unwrap();
        assert_eq!(avg.len(), 3);
        assert_eq!(avg[0][0].text().unwrap(), "die");
        assert_eq!(avg[0][2].int(), Some(7));
        // The same command again resumes the same run and does nothing.
        let again =
            runner::run(&mut st, exp, &p, 42, &RunOptions::default(), &mut |_, _| {}).unwrap();
        assert!(!again.created);
        assert_eq!(again.run.id, o.run.id);
        assert_eq!(again.units_computed, 0);
        assert_eq!(runner::runs(&mut st).unwrap().len(), 1);
        // Params are stored canonically.
        assert_eq!(o.run.params, r#"{"batch":3,"sleep_ms":0,"units":7}"#);
    }
}

#[test]
fn resume_after_a_transaction_dropped_mid_batch() {
    for db in backends("dropped") {
        let exp = registry::find("calibration").unwrap();
        let p = params("calibration", &["units=40", "batch=4"]);
        let mut st = Store::open(&db).unwrap();
        let o = runner::run(
            &mut st,
            exp,
            &p,
            5,
            &RunOptions {
                threads: 1,
                max_batches: Some(3),
                max_memory: None,
            },
            &mut |_, _| {},
        )
        .unwrap();
        let id = o.run.id;
        assert_eq!(o.run.units_done, 12);
        assert!(o.run.finished_at.is_none());
        // A worker claims the next batch, writes part of it, and dies
        // before COMMIT (its connection is dropped).
        st.begin_write().unwrap();
        let claim = format!(
            "SELECT batch, first_unit FROM batches WHERE run_id = ? AND status = 'todo' ORDER BY batch LIMIT 1{}",
            st.skip_locked()
        );
        let row = st.query(&claim, &[Val::Int(id)]).unwrap();
        assert_eq!(row[0][1].int(), Some(12));
        st.exec(
            "INSERT INTO units (run_id, unit, elapsed_ms) VALUES (?, ?, ?)",
            &[Val::Int(id), Val::Int(12), Val::Real(1.0)],
        )
        .unwrap();
        drop(st);
        let mut st = Store::open(&db).unwrap();
        assert_eq!(
            count(&mut st, "SELECT COUNT(*) FROM units WHERE run_id = ?", id),
            12
        );
        assert_eq!(
            count(
                &mut st,
                "SELECT COUNT(*) FROM batches WHERE run_id = ? AND status = 'todo'",
                id
            ),
            7
        );
        // Resume: the same command finishes it.
        let o = runner::run(&mut st, exp, &p, 5, &RunOptions::default(), &mut |_, _| {}).unwrap();
        assert!(!o.created);
        assert_eq!(o.units_computed, 28);
        assert_eq!(
            count(&mut st, "SELECT COUNT(*) FROM units WHERE run_id = ?", id),
            40
        );
        assert_eq!(
            count(
                &mut st,
                "SELECT COUNT(*) FROM measures WHERE run_id = ?",
                id
            ),
            120
        );
        assert_eq!(
            count(
                &mut st,
                "SELECT COUNT(DISTINCT unit) FROM measures WHERE run_id = ?",
                id
            ),
            40
        );
        // Identical to an uninterrupted run.
        let fresh = sqlite();
        let mut st2 = Store::open(&fresh).unwrap();
        let o2 = runner::run(&mut st2, exp, &p, 5, &RunOptions::default(), &mut |_, _| {}).unwrap();
        assert_eq!(measures(&db, id), measures(&fresh, o2.run.id));
    }
}

#[test]
fn one_and_two_threads_give_identical_results() {
    // A real experiment: the Sim weak solve on K5, and the Martello sizes
    // on small boards.
    for (exp, kv) in [
        ("sim-weak-rounds", vec!["n=5"]),
        ("martello-sizes", vec!["max_n=4", "games=30", "batch=7"]),
        ("peg-genetic", vec!["runs=4", "restarts=2", "batch=2"]),
    ] {
        let e = registry::find(exp).unwrap();
        let p = params(exp, &kv);
        let mut ids = Vec::new();
        let mut dbs = Vec::new();
        for threads in [1, 2] {
            let db = sqlite();
            let mut st = Store::open(&db).unwrap();
            let o = runner::run(
                &mut st,
                e,
                &p,
                9,
                &RunOptions {
                    threads,
                    max_batches: None,
                    max_memory: None,
                },
                &mut |_, _| {},
            )
            .unwrap();
            assert_eq!(o.run.units_done, e.units(&p));
            ids.push(o.run.id);
            dbs.push(db);
        }
        let a = measures(&dbs[0], ids[0]);
        assert!(!a.is_empty());
        assert_eq!(a, measures(&dbs[1], ids[1]), "{exp}");
    }
}

#[test]
fn two_workers_share_one_run_on_postgres() {
    let Some(db) = postgres("shared") else {
        return;
    };
    let exp = registry::find("calibration").unwrap();
    let p = params("calibration", &["units=60", "batch=3", "sleep_ms=5"]);
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let (db, p) = (db.clone(), p.clone());
                s.spawn(move || {
                    let mut st = Store::open(&db).unwrap();
                    runner::run(
                        &mut st,
                        exp,
                        &p,
                        3,
                        &RunOptions {
                            threads: 1,
                            max_batches: None,
                            max_memory: None,
                        },
                        &mut |_, _| {},
                    )
                    .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(outcomes[0].run.id, outcomes[1].run.id);
    let id = outcomes[0].run.id;
    // Both worked, together they did every unit exactly once.
    assert!(
        outcomes.iter().all(|o| o.units_computed > 0),
        "{outcomes:?}"
    );
    assert_eq!(outcomes.iter().map(|o| o.units_computed).sum::<u64>(), 60);
    let mut st = Store::open(&db).unwrap();
    assert_eq!(
        count(&mut st, "SELECT COUNT(*) FROM units WHERE run_id = ?", id),
        60
    );
    assert_eq!(
        count(&mut st, "SELECT COUNT(*) FROM runs WHERE id = ?", id),
        1
    );
    let workers = st
        .query(
            "SELECT COUNT(DISTINCT worker) FROM batches WHERE run_id = ?",
            &[Val::Int(id)],
        )
        .unwrap();
    assert_eq!(
        workers[0][0].int(),
        Some(1),
        "one host:pid (threads of one process)"
    );
    let fresh = sqlite();
    let mut st2 = Store::open(&fresh).unwrap();
    let o2 = runner::run(&mut st2, exp, &p, 3, &RunOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(measures(&db, id), measures(&fresh, o2.run.id));
}

#[test]
fn a_newer_schema_is_refused_and_left_alone() {
    for db in backends("newer") {
        let mut st = Store::open(&db).unwrap();
        st.force_schema_version(99).unwrap();
        drop(st);
        for r in [Store::open(&db).err(), Store::open_existing(&db).err()] {
            match r {
                Some(LabError::SchemaTooNew {
                    found: 99,
                    known: 1,
                }) => {}
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn unreachable_and_missing_databases() {
    let e = Store::open("postgres://nobody@127.0.0.1:1/none")
        .err()
        .unwrap();
    assert!(matches!(e, LabError::Open { .. }), "{e}");
    assert!(!e.to_string().contains('\n'));
    let missing: PathBuf = std::env::temp_dir().join("endgame-no-such-dir/x/lab.db");
    assert!(Store::open(&missing.display().to_string()).is_err());
    assert!(!missing.exists());
    let absent = sqlite();
    assert!(Store::open_existing(&absent).is_err());
    assert!(!std::path::Path::new(&*absent).exists(), "nothing written");
}

#[test]
fn bad_parameters() {
    let e = registry::find("calibration").unwrap();
    assert!(matches!(
        Params::parse(e, &["nope=1".into()]),
        Err(LabError::UnknownParam { .. })
    ));
    assert!(Params::parse(e, &["units=x".into()]).is_err());
    assert!(Params::parse(e, &["units=0".into()]).is_err());
    assert!(Params::parse(e, &["units".into()]).is_err());
    assert!(matches!(
        registry::find("nope"),
        Err(LabError::UnknownExperiment(_))
    ));
    let peg = registry::find("peg-search-table").unwrap();
    assert!(Params::parse(peg, &["board=nowhere".into()]).is_err());
}

#[test]
fn real_experiments_store_the_same_on_both_backends() {
    let dbs = backends("backends");
    if dbs.len() < 2 {
        return;
    }
    for (exp, kv) in [
        ("peg-search-table", vec!["max_expansions=30000"]),
        ("sim-weak-rounds", vec!["n=5"]),
        (
            "pentago-solver-speed",
            vec!["positions=4", "max_nodes=20000", "table_bits=14"],
        ),
    ] {
        let e = registry::find(exp).unwrap();
        let p = params(exp, &kv);
        let mut got = Vec::new();
        for db in &dbs {
            let mut st = Store::open(db).unwrap();
            let o =
                runner::run(&mut st, e, &p, 11, &RunOptions::default(), &mut |_, _| {}).unwrap();
            assert_eq!(o.run.units_done, e.units(&p));
            // The report reads back the same on both.
            let r = runner::report(&mut st, &o.run).unwrap();
            // Tables without timing columns must read back the same.
            let tables: Vec<_> = r
                .tables
                .iter()
                .filter(|t| {
                    !t.columns
                        .iter()
                        .any(|c| c.ends_with("_ms") || c.ends_with("_mb"))
                })
                .map(|t| serde_json::to_value(t).unwrap())
                .collect();
            got.push((measures(db, o.run.id), tables));
        }
        assert!(!got[0].0.is_empty());
        assert_eq!(got[0].0, got[1].0, "{exp}");
        assert_eq!(got[0].1, got[1].1, "{exp}");
    }
}
