//! Parameters are checked before any work starts: what no run could
//! finish, or would finish without meaning (an empty list, a size of
//! zero, a parameter given twice, a stone range the exact solver cannot
//! decide), is a one-line error; and a run of millions of batches starts
//! at once.

use endgame_lab::experiment::{Allowed, Params};
use endgame_lab::runner::{self, RunOptions, BATCH_ROWS_AT_ONCE};
use endgame_lab::store::{Store, Val};
use endgame_lab::{registry, LabError};
use std::io::Write;
use std::time::Instant;

fn parse(exp: &str, kv: &[&str]) -> Result<Params, LabError> {
    let e = registry::find(exp).unwrap();
    Params::parse(e, &kv.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

/// The error of a refused parameter set: a bad parameter, one line,
/// saying `needle`.
fn refused(exp: &str, kv: &[&str], needle: &str) {
    let e = parse(exp, kv).expect_err(&format!("{exp} {kv:?} must be refused"));
    assert!(matches!(e, LabError::BadParam(_)), "{exp} {kv:?}: {e:?}");
    let msg = e.to_string();
    assert_eq!(msg.lines().count(), 1, "{msg}");
    assert!(msg.contains(needle), "{exp} {kv:?}: {msg}");
}

#[test]
fn a_parameter_given_twice_is_an_error() {
    refused(
        "calibration",
        &["units=5", "units=6"],
        "`units` is given twice (`units=5` and `units=6`)",
    );
    // Even with the same value, and with spaces around the name.
    refused("calibration", &["batch=2", " batch =2"], "given twice");
    assert!(parse("calibration", &["units=5", "batch=6"]).is_ok());
}

#[test]
fn martello_budgets_must_be_a_list_of_distinct_positive_numbers() {
    refused("martello-random", &["budgets="], "the list is empty");
    refused("martello-random", &["budgets=  "], "the list is empty");
    refused("martello-random", &["budgets=100,,200"], "an empty entry");
    refused("martello-random", &["budgets=100,"], "an empty entry");
    refused("martello-random", &["budgets=0"], "`0` is not a positive");
    refused(
        "martello-random",
        &["budgets=100,-5"],
        "`-5` is not a positive",
    );
    refused(
        "martello-random",
        &["budgets=ten"],
        "`ten` is not a positive",
    );
    refused(
        "martello-random",
        &["budgets=100,100"],
        "`100` is given twice in `100,100`",
    );
    let p = parse("martello-random", &["budgets= 100 , 2500"]).unwrap();
    assert_eq!(p.text("budgets"), "100 , 2500");
    assert!(parse("martello-random", &[]).is_ok());
}

#[test]
fn martello_game_budget_is_checked() {
    refused(
        "martello-random",
        &["game_ms=3600001"],
        "`game_ms` must be in 0..=3600000, got 3600001",
    );
    refused(
        "martello-random",
        &["game_ms=-5"],
        "`game_ms` must be a non-negative integer, got `-5`",
    );
    refused(
        "martello-random",
        &["game_ms=1.5"],
        "`game_ms` must be a non-negative integer, got `1.5`",
    );
    refused(
        "martello-random",
        &["game_ms=10", "game_ms=20"],
        "`game_ms` is given twice",
    );
    // 0 (the default) is no limit; one hour is the most.
    assert_eq!(parse("martello-random", &[]).unwrap().int("game_ms"), 0);
    for ok in ["game_ms=0", "game_ms=1", "game_ms=3600000"] {
        assert!(parse("martello-random", &[ok]).is_ok(), "{ok}");
    }
}

#[test]
fn sizes_of_zero_or_below_are_refused() {
    for (exp, name) in [
        ("calibration", "units"),
        ("calibration", "batch"),
        ("martello-random", "n"),
        ("martello-random", "games"),
        ("martello-random", "budget_tries"),
        ("martello-random", "batch"),
        ("martello-sizes", "max_n"),
        ("martello-sizes", "games"),
        ("peg-genetic", "runs"),
        ("peg-genetic", "population"),
        ("peg-search-table", "max_expansions"),
        ("peg-single-vacancy", "batch"),
        ("pentago-battle", "games"),
        ("pentago-solver-speed", "positions"),
        ("pentago-solver-speed", "max_nodes"),
    ] {
        refused(
            exp,
            &[&format!("{name}=0")],
            &format!("`{name}` must be in"),
        );
        refused(
            exp,
            &[&format!("{name}=-1")],
            &format!("`{name}` must be a non-negative integer, got `-1`"),
        );
    }
}

/// Every experiment's defaults pass its own declarations, and every
/// declared integer range is enforced by the parser, one value past
/// either end refused with a one-line error that names the parameter and
/// the bound.
#[test]
fn declared_ranges_are_the_checks() {
    let mut ranges = 0;
    for e in registry::all() {
        assert!(Params::parse(e, &[]).is_ok(), "{} defaults", e.name());
        for s in e.params() {
            let Allowed::Range { min, max, why } = s.allowed else {
                continue;
            };
            ranges += 1;
            let (exp, name) = (e.name(), s.name);
            if min > 0 {
                let below = format!("{name}={}", min - 1);
                let needle = match why {
                    Some(_) => format!("`{name}` must be at least {min}, got {}", min - 1),
                    None => format!("`{name}` must be in {min}..={max}, got {}", min - 1),
                };
                refused(exp, &[&below], &needle);
            }
            if max < u64::MAX {
                let above = format!("{name}={}", max + 1);
                refused(
                    exp,
                    &[&above],
                    &format!("`{name}` must be in {min}..={max}, got {}", max + 1),
                );
            }
        }
    }
    assert!(ranges >= 30, "{ranges} declared ranges");
}

/// A declared word list: anything else is refused, naming the words.
#[test]
fn declared_words_are_the_checks() {
    refused(
        "pentago-battle",
        &["black=nobody"],
        "`black`: must be one of random, reference, strong, got `nobody`",
    );
    let board = "`board`: board `nowhere`";
    refused("peg-search-table", &["board=nowhere"], board);
    refused("peg-single-vacancy", &["board=nowhere"], board);
}

#[test]
fn pentago_solver_speed_refuses_stones_the_solver_cannot_decide() {
    // The fewest stones the exact solver takes, whatever it is today.
    let late = endgame_pentago::api::LATE_STONES;
    refused(
        "pentago-solver-speed",
        &["min_stones=0", "max_stones=0"],
        &format!("`min_stones` must be at least {late}, got 0"),
    );
    let below = format!("min_stones={}", late - 1);
    refused(
        "pentago-solver-speed",
        &[&below, "max_stones=20"],
        &format!("at least {late}, got {}", late - 1),
    );
    refused(
        "pentago-solver-speed",
        &["min_stones=20", "max_stones=19"],
        "`max_stones` must be in min_stones..=35 (20..=35), got 19",
    );
    refused(
        "pentago-solver-speed",
        &["min_stones=30", "max_stones=36"],
        "got 36",
    );
    refused("pentago-solver-speed", &["min_stones=36"], "got 36");
    let at = format!("min_stones={late}");
    let p = parse("pentago-solver-speed", &[&at, "max_stones=20"]).unwrap();
    assert_eq!(p.int("min_stones"), u64::from(late));
    assert!(parse("pentago-solver-speed", &["min_stones=35", "max_stones=35"]).is_ok());
    assert!(parse("pentago-solver-speed", &[]).is_ok());
}

#[test]
fn pentago_battle_needs_a_bound_per_decision() {
    refused(
        "pentago-battle",
        &["move_nodes=0", "move_ms=0"],
        "nothing bounds a decision",
    );
    assert!(parse("pentago-battle", &["move_nodes=0", "move_ms=50"]).is_ok());
    assert!(parse("pentago-battle", &["move_nodes=100"]).is_ok());
}

/// A fresh SQLite file's path, and the guard that removes its directory.
fn sqlite(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("endgame-lab-params-{name}-"))
        .tempdir()
        .unwrap();
    let db = dir.path().join("lab.db").display().to_string();
    (dir, db)
}

/// A fresh PostgreSQL schema when `ENDGAME_TEST_POSTGRES` names a server
/// (`crates/lab/ci/postgres.sh` starts one), else `None` with a notice.
fn postgres(test: &str) -> Option<String> {
    let Ok(url) = std::env::var("ENDGAME_TEST_POSTGRES") else {
        let _ = writeln!(
            std::io::stderr(),
            "\n*** NOTICE: ENDGAME_TEST_POSTGRES is not set: the PostgreSQL part of `{test}` did NOT run.\n"
        );
        return None;
    };
    let schema = format!("p_{}_{}", test, std::process::id());
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("test server");
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
    ))
    .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

fn count(st: &mut Store, sql: &str, id: i64) -> i64 {
    st.query(sql, &[Val::Int(id)]).unwrap()[0][0].int().unwrap()
}

#[test]
fn ten_million_one_unit_batches_start_at_once() {
    let exp = registry::find("calibration").unwrap();
    let p = parse("calibration", &["units=10000000", "batch=1"]).unwrap();
    let (_dir, db) = sqlite("ten-million");
    let mut st = Store::open(&db).unwrap();
    let t = Instant::now();
    let o = runner::run(
        &mut st,
        exp,
        &p,
        1,
        &RunOptions {
            threads: 1,
            max_batches: Some(1),
            max_memory: None,
        },
        &mut |_, _| {},
    )
    .unwrap();
    // Making every batch row up front took 28.7 s; a window of them is
    // made in milliseconds.
    assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
    assert!(o.created);
    assert_eq!(o.run.units, 10_000_000);
    assert_eq!(o.run.units_done, 1);
    let id = o.run.id;
    let rows = count(&mut st, "SELECT COUNT(*) FROM batches WHERE run_id = ?", id);
    assert_eq!(rows, BATCH_ROWS_AT_ONCE as i64);
}

#[test]
fn batch_rows_are_made_as_the_run_reaches_them() {
    let exp = registry::find("calibration").unwrap();
    // Two windows of one-unit batches and one more.
    let w = BATCH_ROWS_AT_ONCE;
    let units = 2 * w + 1;
    let p = parse("calibration", &[&format!("units={units}"), "batch=1"]).unwrap();
    let (_dir, db) = sqlite("windows");
    let mut st = Store::open(&db).unwrap();
    let opts = |n| RunOptions {
        threads: 1,
        max_batches: n,
        max_memory: None,
    };
    // Stop at the end of the first window, then resume twice.
    let o = runner::run(&mut st, exp, &p, 3, &opts(Some(w)), &mut |_, _| {}).unwrap();
    let id = o.run.id;
    assert_eq!(o.run.units_done, w);
    let rows = |st: &mut Store| count(st, "SELECT COUNT(*) FROM batches WHERE run_id = ?", id);
    assert_eq!(rows(&mut st), w as i64);
    let o = runner::run(&mut st, exp, &p, 3, &opts(Some(1)), &mut |_, _| {}).unwrap();
    assert!(!o.created);
    assert_eq!(o.run.units_done, w + 1);
    assert_eq!(rows(&mut st), 2 * w as i64);
    let o = runner::run(&mut st, exp, &p, 3, &opts(None), &mut |_, _| {}).unwrap();
    assert_eq!(o.run.units_done, units);
    assert!(o.run.finished_at.is_some());
    // Every unit in exactly one batch, batches numbered without a gap.
    let b = st
        .query(
            "SELECT COUNT(*), MIN(first_unit), MAX(end_unit), SUM(end_unit - first_unit), MAX(batch) FROM batches WHERE run_id = ? AND status = 'done'",
            &[Val::Int(id)],
        )
        .unwrap();
    let n = units as i64;
    assert_eq!(
        b[0].iter().map(|v| v.int().unwrap()).collect::<Vec<_>>(),
        vec![n, 0, n, n, n - 1]
    );
    assert_eq!(rows(&mut st), n);
    assert_eq!(
        count(
            &mut st,
            "SELECT COUNT(*) FROM measures WHERE run_id = ?",
            id
        ),
        3 * n
    );
    // Running it again finds nothing to do and makes no row.
    let o = runner::run(&mut st, exp, &p, 3, &opts(None), &mut |_, _| {}).unwrap();
    assert_eq!(o.units_computed, 0);
    assert_eq!(rows(&mut st), n);
}

#[test]
fn workers_sharing_a_run_make_its_batch_rows_as_they_go() {
    // A window of one-unit batches and a few more, two workers on each
    // backend (SQLite serialises them; PostgreSQL runs them side by side,
    // both making the next window when they run out).
    let exp = registry::find("calibration").unwrap();
    let units = BATCH_ROWS_AT_ONCE + 5;
    let p = parse("calibration", &[&format!("units={units}"), "batch=1"]).unwrap();
    let (_dir, db) = sqlite("shared");
    let mut dbs = vec![db];
    dbs.extend(postgres("shared"));
    for db in dbs {
        Store::open(&db).unwrap();
        let outcomes: Vec<_> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..2)
                .map(|_| {
                    let (db, p) = (db.clone(), p.clone());
                    s.spawn(move || {
                        let mut st = Store::open(&db).unwrap();
                        let opts = RunOptions {
                            threads: 1,
                            max_batches: None,
                            max_memory: None,
                        };
                        runner::run(&mut st, exp, &p, 8, &opts, &mut |_, _| {}).unwrap()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let id = outcomes[0].run.id;
        assert_eq!(outcomes[1].run.id, id);
        let total: u64 = outcomes.iter().map(|o| o.units_computed).sum();
        assert_eq!(total, units, "{db}: every unit exactly once");
        let mut st = Store::open(&db).unwrap();
        assert_eq!(
            count(&mut st, "SELECT COUNT(*) FROM units WHERE run_id = ?", id),
            units as i64
        );
        assert_eq!(
            count(
                &mut st,
                "SELECT COUNT(*) FROM batches WHERE run_id = ? AND status = 'done'",
                id
            ),
            units as i64
        );
        let o = runner::run(&mut st, exp, &p, 8, &RunOptions::default(), &mut |_, _| {}).unwrap();
        assert!(o.run.finished_at.is_some());
        assert_eq!(o.units_computed, 0);
    }
}

/// `seed`, the old name of the Pentago `reference` player, is still
/// accepted (one release), so that runs stored with it resume.
#[test]
fn the_old_pentago_player_name_is_accepted() {
    for kv in [["white=seed"], ["white=reference"], ["black=seed"]] {
        parse("pentago-battle", &kv).unwrap_or_else(|e| panic!("{kv:?}: {e}"));
    }
}
