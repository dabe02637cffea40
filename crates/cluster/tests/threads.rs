//! The count across processes against the single-process engine: each
//! "process" here is a thread of the test with its own timely worker and
//! TCP connections on loopback, which is all a process is to the cluster.

use endgame_cluster::{
    enumerate, enumerate_run, Checkpoint, Cluster, ClusterError, Run, RunStats, Spill,
};
use endgame_core::layered::{self, LayeredOptions, LayeredReport, Silent};
use endgame_core::{Reversible, Symmetric};
use endgame_peg::api::{build, AnyProblem, BoardSource, Finish, Spec};
use std::hash::Hash;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;
use timely::ExchangeData;

/// `n` free loopback addresses.
fn addresses(n: usize) -> Vec<String> {
    let ls: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    ls.iter()
        .map(|l| l.local_addr().expect("bound").to_string())
        .collect()
}

/// How a test's count across thread-processes runs, besides the
/// puzzle, the options and the number of processes.
#[derive(Clone, Copy, Default)]
struct Setup<'a> {
    /// Each process spills, to its own temporary directory or to
    /// `spill_dir`.
    spill: bool,
    spill_dir: Option<&'a Path>,
    /// Ranks in 64 bits.
    wide: bool,
    checkpoint: Option<&'a Checkpoint>,
}

/// Process 0's report and run figures, or why the count failed.
type Counted<T> = Result<(LayeredReport<T>, RunStats), ClusterError>;

/// Runs the count on `n` threads as a cluster, as `setup` says: process
/// 0's report and run figures (checking that every other process
/// returned none), and the spill directories (gone by then unless given).
fn run_across<P>(
    p: &P,
    opts: &LayeredOptions,
    n: usize,
    setup: Setup<'_>,
) -> (Counted<P::Position>, Vec<PathBuf>)
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let addrs = addresses(n);
    let results: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|i| {
                let c = Cluster::new(addrs.clone(), i).expect("a valid cluster");
                s.spawn(move || {
                    let sp = setup
                        .spill
                        .then(|| Spill::new(setup.spill_dir).expect("a spill directory"));
                    let where_ = sp.as_ref().map(|s| s.dir().to_path_buf());
                    let run = Run {
                        spill: sp.as_ref(),
                        wide: setup.wide,
                        checkpoint: setup.checkpoint,
                        ..Run::new(7, &Silent)
                    };
                    (enumerate_run(p, opts, &c, &run), where_)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let dirs = results.iter().filter_map(|r| r.1.clone()).collect();
    let mut it = results.into_iter();
    let first = it.next().expect("process 0").0;
    for (r, _) in it {
        assert!(matches!(r, Ok(None) | Err(_)), "only process 0 reports");
    }
    (first.map(|r| r.expect("process 0 reports")), dirs)
}

/// Process 0's report of the count on `n` threads as a cluster.
fn across<P>(
    p: &P,
    opts: &LayeredOptions,
    n: usize,
) -> Result<LayeredReport<P::Position>, ClusterError>
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    run_across(p, opts, n, Setup::default()).0.map(|r| r.0)
}

fn same<T: std::fmt::Debug + PartialEq>(a: &LayeredReport<T>, b: &LayeredReport<T>) {
    assert_eq!(a.layers, b.layers);
    assert_eq!(a.goal_reachable, b.goal_reachable);
    assert_eq!(a.solutions, b.solutions);
    assert_eq!(a.best_score, b.best_score);
    assert_eq!(a.best_count, b.best_count);
    assert_eq!(a.best_positions, b.best_positions);
    assert_eq!(a.complete, b.complete);
}

/// The options of a count: the full count or the goal-only route, the
/// ranked bitmap at its default threshold or on every layer that can take
/// it (`dense_min_children: 0`).
fn options(goal_only: bool, ranked: bool) -> LayeredOptions {
    LayeredOptions {
        count_all: !goal_only,
        dense_min_children: if ranked {
            0
        } else {
            LayeredOptions::default().dense_min_children
        },
        ..Default::default()
    }
}

/// Compares the counts on each number of `processes` with one process's,
/// with the layers big enough for a ranked bitmap split by rank block
/// (none on these boards), and with every layer ranked that can be
/// (`dense_min_children: 0`), so that both ways of splitting a layer
/// and their mixture in one count are checked.
fn check(spec: Spec, goal_only: bool, processes: &[usize]) {
    let problem = build(&spec).expect("a valid problem");
    for ranked in [false, true] {
        let opts = options(goal_only, ranked);
        endgame_peg::with_problem!(&problem, p => {
            let one = layered::enumerate(p, &opts, &Silent).expect("counted");
            assert!(one.layers.len() > 5 && one.solutions.is_some());
            for &n in processes {
                same(&across(p, &opts, n).expect("counted across"), &one);
            }
        });
    }
}

fn spec(board: BoardSource, finish: Finish) -> Spec {
    Spec {
        finish,
        board,
        ..Spec::named("triangle")
    }
}

#[test]
fn full_counts_match_one_process() {
    check(Spec::named("triangle"), false, &[1, 2, 3]);
    check(
        spec(BoardSource::Named("triangle".into()), Finish::Any),
        false,
        &[2],
    );
    // A 4 × 5 rectangle drawn by hand, a hole off the centre empty: no
    // symmetry but the left-right mirror, and a goal anywhere.
    let art = "ooooo\nooooo\noo.oo\nooooo";
    check(
        spec(BoardSource::Art(art.into()), Finish::Any),
        false,
        &[2, 4],
    );
}

#[test]
fn goal_only_counts_match_one_process() {
    // 14 moves on the triangle (even: the two halves meet on a layer),
    // and the 6-row triangle (20 moves).
    check(Spec::named("triangle"), true, &[2, 3]);
    check(Spec::named("triangle6"), true, &[2]);
}

#[test]
fn a_goal_only_count_without_a_time_reversal_is_refused() {
    let problem = build(&spec(BoardSource::Named("triangle".into()), Finish::Any)).unwrap();
    let opts = LayeredOptions {
        count_all: false,
        ..Default::default()
    };
    endgame_peg::with_problem!(&problem, p => {
        let e = across(p, &opts, 2).unwrap_err();
        assert!(matches!(e, ClusterError::Unsupported(_)), "{e}");
    });
}

#[test]
fn peers_of_another_job_or_cluster_size_are_refused() {
    let problem = build(&Spec::named("triangle")).unwrap();
    let opts = &LayeredOptions::default();
    let AnyProblem::Small(p) = &problem else {
        panic!("the triangle fits 64 bits")
    };
    let addrs = addresses(2);
    let (a, b) = std::thread::scope(|s| {
        let c0 = Cluster::new(addrs.clone(), 0).unwrap();
        let c1 = Cluster::new(addrs.clone(), 1).unwrap();
        let h0 = s.spawn(move || enumerate(p, opts, &c0, 1, &Silent).map(|_| ()));
        let h1 = s.spawn(move || enumerate(p, opts, &c1, 2, &Silent).map(|_| ()));
        (h0.join().unwrap(), h1.join().unwrap())
    });
    let e = a.unwrap_err().to_string();
    assert!(e.contains("another count"), "{e}");
    assert!(b.is_err());

    // Process 1 of a 3-process file meets process 0 of a 2-process one.
    let mut three = addrs.clone();
    three.push(addresses(1)[0].clone());
    let (a, b) = std::thread::scope(|s| {
        let c0 = Cluster::new(addrs.clone(), 0).unwrap();
        let mut c1 = Cluster::new(three, 1).unwrap();
        // Long enough for process 0 to read its hello on a loaded machine.
        c1.timeout = Duration::from_secs(10);
        let h0 = s.spawn(move || enumerate(p, opts, &c0, 1, &Silent).map(|_| ()));
        let h1 = s.spawn(move || enumerate(p, opts, &c1, 1, &Silent).map(|_| ()));
        (h0.join().unwrap(), h1.join().unwrap())
    });
    let e = a.unwrap_err().to_string();
    assert!(e.contains("host files differ"), "{e}");
    assert!(b.is_err());
}

#[test]
fn an_unreachable_peer_is_an_error_within_the_timeout() {
    let problem = build(&Spec::named("triangle")).unwrap();
    let AnyProblem::Small(p) = &problem else {
        panic!("the triangle fits 64 bits")
    };
    // Process 1 dials process 0, which never listens.
    let mut c = Cluster::new(addresses(2), 1).unwrap();
    c.timeout = Duration::from_millis(600);
    let t = std::time::Instant::now();
    let e = enumerate(p, &LayeredOptions::default(), &c, 1, &Silent).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(e.to_string().contains("did not answer"), "{e}");
}

#[test]
fn host_files_are_checked() {
    let c = Cluster::from_host_file("# two\n127.0.0.1:4000\n\nlocalhost:4001\n", 1).unwrap();
    assert_eq!(c.addresses, ["127.0.0.1:4000", "localhost:4001"]);
    for (text, i, what) in [
        ("", 0, "names no process"),
        ("127.0.0.1:4000\n", 1, "not in the host file"),
        ("127.0.0.1\n", 0, "not host:port"),
        ("127.0.0.1:0\n", 0, "not host:port"),
    ] {
        let e = Cluster::from_host_file(text, i).unwrap_err().to_string();
        assert!(e.contains(what), "{text:?}: {e}");
    }
}

/// Runs the count on `n` thread-processes with checkpoints in `dir`;
/// process 0's report and run figures.
fn across_with_checkpoints<P>(
    p: &P,
    opts: &LayeredOptions,
    n: usize,
    dir: &Path,
) -> (LayeredReport<P::Position>, RunStats)
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let ck = Checkpoint {
        dir: dir.to_path_buf(),
        fingerprint: 11,
    };
    let setup = Setup {
        checkpoint: Some(&ck),
        ..Setup::default()
    };
    run_across(p, opts, n, setup).0.expect("counted")
}

#[test]
fn checkpointed_counts_resume_from_the_layers_every_process_finished() {
    for (goal_only, ranked) in [(false, false), (true, false), (false, true), (true, true)] {
        let problem = build(&Spec::named("triangle6")).expect("a valid problem");
        let opts = options(goal_only, ranked);
        let dir = tempfile::tempdir().expect("a directory");
        endgame_peg::with_problem!(&problem, p => {
            let one = layered::enumerate(p, &opts, &Silent).expect("counted");
            let (first, stats) = across_with_checkpoints(p, &opts, 2, dir.path());
            same(&first, &one);
            assert_eq!(stats.layers_loaded, 0);
            let written = stats.layers_computed;
            assert!(written > 5, "{stats:?}");
            // Positions take 8 bytes, the ranks of a ranked layer 4.
            assert!(stats.sent > 0 && stats.sent_bytes >= 4 * stats.sent);
            // Process 1 as if it had died after layer 3, process 0 after
            // layer 5: both resume after layer 3.
            for d in 4..written {
                std::fs::remove_file(
                    dir.path()
                        .join(format!("layer-{d:04}-process-1-of-2.ckpt")),
                )
                .expect("removed");
            }
            for d in 6..written {
                std::fs::remove_file(
                    dir.path()
                        .join(format!("layer-{d:04}-process-0-of-2.ckpt")),
                )
                .expect("removed");
            }
            let (again, stats) = across_with_checkpoints(p, &opts, 2, dir.path());
            same(&again, &one);
            assert_eq!((stats.layers_loaded, stats.layers_computed), (4, written - 4));
        });
    }
}

/// [`run_across`] with spilling (`spill`, to temporary directories or
/// to `dir`) and ranks in 64 bits (`wide`).
fn across_spilling<P>(
    p: &P,
    opts: &LayeredOptions,
    n: usize,
    (spill, wide): (bool, bool),
    dir: Option<&Path>,
) -> (Counted<P::Position>, Vec<PathBuf>)
where
    P: Reversible + Symmetric,
    P::Position: ExchangeData + Clone + Copy + Hash,
{
    let setup = Setup {
        spill,
        spill_dir: dir,
        wide,
        checkpoint: None,
    };
    run_across(p, opts, n, setup)
}

/// A board whose positions take 16 bytes (its grid has more than 64
/// cells, as the 41-hole diamond's 9 × 9) writes its checkpoints as dense
/// keys: each file is its header, the share's keys in the fewest bytes
/// that hold the board's 24 holes (3), and a checksum, less than half
/// of what 16-byte positions take; a count resumed from them after a
/// process "died" gives one process's numbers.
#[test]
fn checkpoints_of_a_wide_board_hold_keys() {
    let art = "ooooooooo/oooo.oooo/    o/    o/    o/    o/    o/    o";
    let problem = build(&spec(BoardSource::Art(art.into()), Finish::Any)).expect("a board");
    let AnyProblem::Large(p) = &problem else {
        panic!("a grid of 72 cells takes 128-bit positions")
    };
    for ranked in [false, true] {
        let opts = options(false, ranked);
        let one = layered::enumerate(p, &opts, &Silent).expect("counted");
        let dir = tempfile::tempdir().expect("a directory");
        let (first, stats) = across_with_checkpoints(p, &opts, 2, dir.path());
        same(&first, &one);
        let layers = stats.layers_computed;
        assert!(layers > 10, "{stats:?}");
        let files: Vec<u64> = std::fs::read_dir(dir.path())
            .expect("listed")
            .map(|e| e.expect("an entry").metadata().expect("a file").len())
            .collect();
        assert_eq!(files.len(), 2 * layers);
        let positions: u64 = one.layers.iter().map(|l| l.reduced).sum();
        // Magic, nine header words, the length; the checksum.
        let overhead = 8 + 9 * 8 + 8 + 4;
        let total: u64 = files.iter().sum();
        assert_eq!(total, files.len() as u64 * overhead + 3 * positions);
        assert!(2 * (total - files.len() as u64 * overhead) < 16 * positions);
        // Process 1 as if it had died after layer 6: resumed from there.
        for d in 7..layers {
            std::fs::remove_file(dir.path().join(format!("layer-{d:04}-process-1-of-2.ckpt")))
                .expect("removed");
        }
        let (again, stats) = across_with_checkpoints(p, &opts, 2, dir.path());
        same(&again, &one);
        assert_eq!(
            (stats.layers_loaded, stats.layers_computed),
            (7, layers - 7)
        );
    }
}

/// Every layer of 2^32 possible keys or more is ranked in 64 bits; forced
/// on every ranked layer of small boards, the counts are one process's,
/// on one and three processes.
#[test]
fn wide_ranks_count_as_narrow_ones() {
    for spec in [
        Spec::named("triangle6"),
        spec(BoardSource::Named("triangle".into()), Finish::Any),
    ] {
        let problem = build(&spec).expect("a valid problem");
        let opts = options(false, true);
        endgame_peg::with_problem!(&problem, p => {
            let one = layered::enumerate(p, &opts, &Silent).expect("counted");
            for n in [1, 3] {
                let (r, _) = across_spilling(p, &opts, n, (false, true), None);
                let (r, stats) = r.expect("counted");
                same(&r, &one);
                // Every ranked child crossed as 8 bytes.
                assert!(stats.sent_bytes >= 8 * stats.sent, "{stats:?}");
            }
        });
    }
}

/// A budget small enough to force layers to disk: one byte under the
/// most a run that keeps everything in memory plans (so the step that
/// planned it must spill). The counts are one process's, layers were
/// spilled, the planned peak kept within the budget, and no spill file
/// is left; a budget too small even to spill is a budget error.
#[test]
fn spilled_counts_match_one_process() {
    let problem = build(&Spec::named("triangle6")).expect("a valid problem");
    endgame_peg::with_problem!(&problem, p => {
        let mut opts = options(false, true);
        let one = layered::enumerate(p, &opts, &Silent).expect("counted");
        for wide in [false, true] {
            for n in [1, 2] {
                opts.max_bytes = LayeredOptions::default().max_bytes;
                let (r, _) = across_spilling(p, &opts, n, (true, wide), None);
                let (r, roomy) = r.expect("counted");
                same(&r, &one);
                assert_eq!(roomy.spilled, 0);
                opts.max_bytes = roomy.planned_peak as usize - 1;
                let (r, dirs) = across_spilling(p, &opts, n, (true, wide), None);
                let (r, stats) = r.expect("counted");
                same(&r, &one);
                assert!(stats.spilled > 0, "{stats:?}");
                assert!(stats.planned_peak as usize <= opts.max_bytes, "{stats:?}");
                assert_eq!(dirs.len(), n);
                assert!(dirs.iter().all(|d| !d.exists()), "spill directories left");
            }
        }
        // Spilling into a given directory (the budget of the last run)
        // leaves it empty.
        let dir = tempfile::tempdir().expect("a directory");
        let (r, _) = across_spilling(p, &opts, 2, (true, true), Some(dir.path()));
        assert!(r.expect("counted").1.spilled > 0);
        assert_eq!(std::fs::read_dir(dir.path()).expect("listed").count(), 0);
        // Under the allowance nothing can fit.
        opts.max_bytes = 1 << 20;
        let (r, dirs) = across_spilling(p, &opts, 1, (true, false), None);
        let e = r.expect_err("over budget").to_string();
        assert!(e.contains("memory"), "{e}");
        assert!(dirs.iter().all(|d| !d.exists()));
    });
}
