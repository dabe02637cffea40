//! Peg solitaire: the DFS/A* pruning tables of Pudipeddi and Zaveri's
//! report ("Artificial Intelligence, Assignment 1 Report"), the
//! genetic-search experiment of the Glausers' Java-Solitaire applet, and
//! the single-vacancy survey. Both sources: `docs/peg.md`.

use crate::error::LabError;
use crate::experiment::{unit_seed, Experiment, Measure, ParamSpec, Params, RunData};
use crate::report::{fmt, mean, median, Plot, Report, Table};
use endgame_core::astar::{self, AstarOptions};
use endgame_core::dfs::{self, DfsOptions};
use endgame_core::genetic::{self, GeneticOptions};
use endgame_core::Rules;
use endgame_peg::api::{self, Budget, Spec};
use endgame_peg::bits::Bits;
use endgame_peg::{heuristics, study, Board, Pruning};
use std::time::Instant;

fn unit_err(e: impl std::fmt::Display) -> LabError {
    LabError::Unit(e.to_string())
}

/// A built-in board's name, else what is wrong with it.
fn board_name(name: &str) -> Result<String, String> {
    Board::named(name, false)
        .map(|_| name.to_string())
        .map_err(|e| format!("board `{name}`: {e}"))
}

/// The search methods of the table, in its order.
/// Bytes one search of a unit may hold (its memo, or the best-first
/// search's stores): each search stops or replaces entries before
/// outgrowing it.
const SEARCH_BYTES: usize = 2 << 30;

/// Memo entries of a depth-first search within [`SEARCH_BYTES`] (slots
/// sized for the larger boards' 128-bit positions).
fn search_memo_entries() -> usize {
    endgame_core::memory::memo_entries_within(SEARCH_BYTES, std::mem::size_of::<(u128, u32)>())
}

const METHODS: [&str; 3] = ["dfs", "astar-manhattan", "astar-weighted"];
/// The pruning techniques of the table, in its order.
const TECHNIQUES: [&str; 4] = ["none", "pagoda", "symmetry", "both"];

/// Pudipeddi and Zaveri's expanded (A*: visited) states on the English
/// board, per method and technique (their three tables).
const SOURCE_EXPANDED: [[u64; 4]; 3] = [
    [7_667_770, 1_024_739, 8_992, 4_577],
    [135_749, 61_412, 120_415, 57_467],
    [50, 50, 34, 34],
];

/// DFS and A* with each pruning technique (Pudipeddi and Zaveri's
/// tables).
pub struct SearchTable;

impl Experiment for SearchTable {
    fn name(&self) -> &'static str {
        "peg-search-table"
    }
    fn game(&self) -> &'static str {
        "peg"
    }
    fn description(&self) -> &'static str {
        "expanded states, time and memory of DFS and A* (Manhattan, weighted cost) per pruning technique (none, pagoda, symmetry, both) — the tables of Pudipeddi and Zaveri's report"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::checked(
                "board",
                "english",
                board_name,
                "built-in board (its classic problem)",
            ),
            ParamSpec::int(
                "max_expansions",
                "20000000",
                1,
                10_000_000_000,
                "expansion budget per search",
            ),
            ParamSpec::batch("1", 12),
        ]
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // One search at a time, within SEARCH_BYTES.
        SEARCH_BYTES as u64
    }
    fn units(&self, _p: &Params) -> u64 {
        (METHODS.len() * TECHNIQUES.len()) as u64
    }
    fn unit(&self, p: &Params, _seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let method = METHODS[index as usize / TECHNIQUES.len()];
        let technique = TECHNIQUES[index as usize % TECHNIQUES.len()];
        let pagoda = matches!(technique, "pagoda" | "both");
        let symmetry = matches!(technique, "symmetry" | "both");
        let spec = Spec {
            pruning: Pruning {
                classes: false,
                pagodas: pagoda,
            },
            ..Spec::named(&p.text("board"))
        };
        let problem = api::build(&spec).map_err(unit_err)?;
        let budget = p.int("max_expansions");
        let t = Instant::now();
        let (solved, complete, expansions, memory, moves) = endgame_peg::with_problem!(&problem, q => {
            let start = q.start();
            if method == "dfs" {
                let r = dfs::solve(q, &start, &DfsOptions {
                    use_symmetry: symmetry,
                    use_pruning: pagoda,
                    max_expansions: Some(budget),
                    max_memo_entries: search_memo_entries(),
                    ..DfsOptions::default()
                });
                (r.reached_goal, r.complete, r.expansions, r.memo_bytes, r.line.len())
            } else {
                let w = if method == "astar-manhattan" {
                    heuristics::manhattan_weights(q.board(), q.goal())
                } else {
                    heuristics::weighted_cost_weights(q.board(), q.goal())
                };
                let h = |qq: &_, pos: &_| weigh(qq, pos, &w);
                let r = astar::search(q, &start, &h, &AstarOptions {
                    use_symmetry: symmetry,
                    use_pruning: pagoda,
                    max_expansions: budget,
                    budget: endgame_core::budget::Budget::unlimited().with_memory(SEARCH_BYTES),
                    ..AstarOptions::default()
                });
                let moves = r.line.as_ref().map_or(0, |l| l.len());
                (r.line.is_some(), r.line.is_some() || r.exhausted, r.expansions, r.memory_bytes, moves)
            }
        });
        Ok(vec![
            Measure::text("method", method),
            Measure::text("technique", technique),
            Measure::num("solved", f64::from(u8::from(solved))),
            Measure::num("complete", f64::from(u8::from(complete))),
            Measure::num("expansions", expansions as f64),
            Measure::num("moves", moves as f64),
            Measure::num("time_ms", t.elapsed().as_secs_f64() * 1e3),
            Measure::num("memory_mb", memory as f64 / 1e6),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let english = d.params.text("board") == "english";
        let mut cols = vec![
            "method",
            "pruning",
            "expanded",
            "factor",
            "time_ms",
            "memory_mb",
            "moves",
            "solved",
        ];
        if english {
            cols.push("source_expanded");
        }
        let mut t = Table::new("Expanded states per method and pruning technique", &cols);
        let mut series = Vec::new();
        for (mi, m) in METHODS.iter().enumerate() {
            let mut vals = Vec::new();
            let mut base = f64::NAN;
            for (ti, tech) in TECHNIQUES.iter().enumerate() {
                let u = (mi * TECHNIQUES.len() + ti) as u64;
                let Some((_, md)) = d.units.get(&u) else {
                    vals.push(f64::NAN);
                    continue;
                };
                let e = RunData::num(md, "expansions").unwrap_or(f64::NAN);
                if ti == 0 {
                    base = e;
                }
                vals.push(e);
                let solved = RunData::num(md, "solved") == Some(1.0);
                let complete = RunData::num(md, "complete") == Some(1.0);
                let mut row = vec![
                    m.to_string(),
                    tech.to_string(),
                    fmt(e, 0),
                    fmt(base / e, 2),
                    fmt(RunData::num(md, "time_ms").unwrap_or(f64::NAN), 1),
                    fmt(RunData::num(md, "memory_mb").unwrap_or(f64::NAN), 2),
                    fmt(RunData::num(md, "moves").unwrap_or(f64::NAN), 0),
                    if solved {
                        "yes".into()
                    } else if complete {
                        "impossible".into()
                    } else {
                        "budget".into()
                    },
                ];
                if english {
                    row.push(SOURCE_EXPANDED[mi][ti].to_string());
                }
                t.row(row);
            }
            series.push((m.to_string(), vals));
        }
        let plot = Plot::Bars {
            file: "peg-expansions".into(),
            title: format!(
                "Peg solitaire ({}): states expanded per pruning technique",
                d.params.text("board")
            ),
            x_label: "pruning technique".into(),
            y_label: "states expanded (log scale)".into(),
            labels: TECHNIQUES.iter().map(|s| s.to_string()).collect(),
            series,
            log_y: true,
        };
        let notes = vec![
            "factor = expansions without pruning / expansions with it, per method".into(),
            "source_expanded: Pudipeddi and Zaveri's figures (their A* tables count visited states)".into(),
        ];
        Report::new(vec![t], vec![plot], notes)
    }
}

fn weigh<B: Bits>(q: &endgame_peg::PegSolitaire<B>, pos: &B, w: &[i64]) -> i64 {
    q.weigh(*pos, w)
}

/// The Glausers' experiment (167 runs on the English board): solutions
/// found and probability per evaluation, classes 1 … 12.
const SOURCE_GA: [(u32, f64); 12] = [
    (30, 0.66),
    (16, 1.24),
    (14, 1.23),
    (11, 1.08),
    (7, 0.76),
    (9, 1.07),
    (8, 1.05),
    (3, 0.43),
    (5, 0.75),
    (6, 0.98),
    (5, 0.90),
    (11, 0.15),
];

/// The Java-Solitaire applet's genetic search, many independent runs.
pub struct Genetic;

/// The applet switched to exhaustive search at 11 pegs on 33 holes; scaled
/// to other boards by hole count (as `endgame solve --method genetic`).
fn threshold(holes: usize) -> u32 {
    ((holes as f64) / 3.0).round().max(3.0) as u32
}

fn boards(p: &Params) -> Vec<String> {
    p.list("boards")
}

impl Experiment for Genetic {
    fn name(&self) -> &'static str {
        "peg-genetic"
    }
    fn game(&self) -> &'static str {
        "peg"
    }
    fn description(&self) -> &'static str {
        "the genetic search of the Glausers' Java-Solitaire applet (weights per hole class), independent runs per board: success probability, evaluations, restarts"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::list(
                "boards",
                "english",
                "built-in boards such as english,french",
                board_name,
                "comma-separated built-in boards",
            ),
            ParamSpec::int(
                "runs",
                "167",
                1,
                100_000,
                "independent searches per board (the Glausers' experiment: 167)",
            ),
            ParamSpec::int(
                "restarts",
                "1",
                1,
                10_000,
                "fresh populations before a search gives up",
            ),
            ParamSpec::int("population", "30", 2, 10_000, "candidates per population"),
            ParamSpec::int(
                "offspring",
                "250",
                0,
                1_000_000,
                "offspring per population (the Glausers' experiment: 250)",
            ),
            ParamSpec::batch("10", 100_000),
        ]
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // The genetic search's short depth-first runs and their memos
        // (a default unit peaks near 10 MB).
        256 << 20
    }
    fn units(&self, p: &Params) -> u64 {
        boards(p).len() as u64 * p.int("runs")
    }
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let bs = boards(p);
        let runs = p.int("runs");
        let board = &bs[(index / runs) as usize];
        let problem = api::build(&Spec::named(board)).map_err(unit_err)?;
        let t = Instant::now();
        let r = endgame_peg::with_problem!(&problem, q => {
            let r = genetic::search(q, &GeneticOptions {
                population: p.int("population") as usize,
                offspring: p.int("offspring") as usize,
                restarts: p.int("restarts") as usize,
                threshold: threshold(q.board().holes()),
                seed: unit_seed(seed, index, 2),
                ..GeneticOptions::default()
            });
            (r.solved, r.evaluations, r.runs, r.generation, r.expansions)
        });
        Ok(vec![
            Measure::text("board", board.as_str()),
            Measure::num("solved", f64::from(u8::from(r.0))),
            Measure::num("evaluations", r.1 as f64),
            Measure::num("runs", r.2 as f64),
            Measure::num("generation", r.3 as f64),
            Measure::num("expansions", r.4 as f64),
            Measure::num("time_ms", t.elapsed().as_secs_f64() * 1e3),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let mut t = Table::new(
            "Genetic search per board",
            &[
                "board",
                "searches",
                "solved",
                "success",
                "mean_evaluations",
                "median_evaluations",
                "mean_runs",
                "mean_time_ms",
            ],
        );
        let mut labels = Vec::new();
        let mut success = Vec::new();
        for b in boards(&d.params) {
            let us: Vec<_> = d
                .units
                .values()
                .filter(|(_, m)| RunData::text(m, "board") == b)
                .collect();
            let col = |n: &str| -> Vec<f64> {
                us.iter().filter_map(|(_, m)| RunData::num(m, n)).collect()
            };
            let solved = col("solved").iter().filter(|&&s| s == 1.0).count();
            let rate = solved as f64 / us.len().max(1) as f64;
            t.row(vec![
                b.clone(),
                us.len().to_string(),
                solved.to_string(),
                format!("{:.1}%", rate * 100.0),
                fmt(mean(&col("evaluations")), 1),
                fmt(median(&col("evaluations")), 0),
                fmt(mean(&col("runs")), 2),
                fmt(mean(&col("time_ms")), 1),
            ]);
            labels.push(b);
            success.push(rate * 100.0);
        }
        // The Glausers' table: runs classed by the evaluations they needed
        // (class 1: solved by the initial population of 30; then classes of
        // 10 offspring up to 130, one class up to 280). Meaningful with
        // restarts=1, as in their experiment.
        let pop = d.params.int("population") as f64;
        let mut bounds = vec![(1.0, pop)];
        let mut lo = pop + 1.0;
        for _ in 0..10 {
            bounds.push((lo, lo + 9.0));
            lo += 10.0;
        }
        bounds.push((lo, pop + d.params.int("offspring") as f64));
        let mut tc = Table::new(
            "Evaluations per class (first board; the Glausers' experiment with restarts=1)",
            &[
                "class",
                "low",
                "high",
                "solutions",
                "runs_entering",
                "evaluations",
                "p_solution",
                "source_solutions",
                "source_p",
            ],
        );
        let first = boards(&d.params).first().cloned().unwrap_or_default();
        let runs: Vec<(bool, f64)> = d
            .units
            .values()
            .filter(|(_, m)| RunData::text(m, "board") == first)
            .map(|(_, m)| {
                (
                    RunData::num(m, "solved") == Some(1.0),
                    RunData::num(m, "evaluations").unwrap_or(0.0),
                )
            })
            .collect();
        let mut entering = runs.len() as f64;
        let mut pclass = Vec::new();
        for (i, &(lo, hi)) in bounds.iter().enumerate() {
            if hi < lo {
                break;
            }
            let s = runs
                .iter()
                .filter(|&&(ok, e)| ok && e >= lo && e <= hi)
                .count() as f64;
            let nc = hi - lo + 1.0;
            // Runs that go through the class evaluate all of it, runs solved
            // in it half of it on average (the Glausers' formula).
            let e = (entering - s) * nc + s * nc / 2.0;
            let p = if e > 0.0 { s / e } else { f64::NAN };
            tc.row(vec![
                (i + 1).to_string(),
                fmt(lo, 0),
                fmt(hi, 0),
                fmt(s, 0),
                fmt(entering, 0),
                fmt(e, 0),
                format!("{:.2}%", 100.0 * p),
                SOURCE_GA.get(i).map_or("-".into(), |x| x.0.to_string()),
                SOURCE_GA
                    .get(i)
                    .map_or("-".into(), |x| format!("{:.2}%", x.1)),
            ]);
            pclass.push(100.0 * p);
            entering -= s;
        }
        tc.row(vec![
            "none".into(),
            "-".into(),
            "-".into(),
            fmt(entering, 0),
            "-".into(),
            "-".into(),
            "-".into(),
            "42".into(),
            "-".into(),
        ]);
        let class_plot = Plot::Bars {
            file: "peg-genetic-classes".into(),
            title: format!(
                "Genetic search on {first}: chance that one evaluation solves, per class"
            ),
            x_label: "class (evaluations in the run: 1 = initial population)".into(),
            y_label: "solutions per evaluation (%)".into(),
            labels: (1..=pclass.len()).map(|i| i.to_string()).collect(),
            series: vec![
                ("ours".into(), pclass),
                (
                    "the Glausers' applet".into(),
                    SOURCE_GA.iter().map(|x| x.1).collect(),
                ),
            ],
            log_y: false,
        };
        let plot = Plot::Bars {
            file: "peg-genetic-success".into(),
            title: "Genetic search: share of searches that solve".into(),
            x_label: "board".into(),
            y_label: "searches solved (%)".into(),
            labels,
            series: vec![("success %".into(), success)],
            log_y: false,
        };
        Report::new(
            vec![t, tc],
            vec![plot, class_plot],
            vec![
                "evaluations: candidates (weight vectors) evaluated until a solution or giving up"
                    .into(),
                "source_*: the 167-run experiment of the Glausers' Java-Solitaire applet (docs/peg.md)"
                    .into(),
            ],
        )
    }
}

/// Every single-vacancy problem of a board, both finishes.
pub struct SingleVacancy;

impl Experiment for SingleVacancy {
    fn name(&self) -> &'static str {
        "peg-single-vacancy"
    }
    fn game(&self) -> &'static str {
        "peg"
    }
    fn description(&self) -> &'static str {
        "every 'vacate one hole' problem of a board, finishing anywhere or in that hole: solvable, how decided, effort"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::checked("board", "english", board_name, "built-in board"),
            ParamSpec::int(
                "max_expansions",
                "2000000",
                1,
                10_000_000_000,
                "expansion budget per problem",
            ),
            ParamSpec::batch("4", 1_000),
        ]
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // One search at a time, within SEARCH_BYTES.
        SEARCH_BYTES as u64
    }
    fn units(&self, p: &Params) -> u64 {
        Board::named(&p.text("board"), false).map_or(0, |b| study::single_vacancy_problems(&b))
    }
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let budget = Budget {
            max_expansions: p.int("max_expansions"),
            max_memo_entries: search_memo_entries(),
            max_memory: Some(SEARCH_BYTES),
            seed: unit_seed(seed, index, 3),
            ..Budget::default()
        };
        let r = study::single_vacancy_problem(&p.text("board"), false, index, &budget)
            .map_err(unit_err)?;
        Ok(vec![
            Measure::text("vacate", r.vacate),
            Measure::text("finish", r.finish),
            Measure {
                name: "solvable".into(),
                value: r.solvable.map(|s| f64::from(u8::from(s))),
                text: Some(match r.solvable {
                    Some(true) => "yes".into(),
                    Some(false) => "no".into(),
                    None => "undecided".into(),
                }),
            },
            Measure::text("decided_by", r.decided_by.as_str()),
            Measure::num("expansions", r.expansions as f64),
            Measure::num("time_ms", r.time_ms),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let mut t = Table::new(
            "Single-vacancy problems",
            &[
                "vacate",
                "finish",
                "solvable",
                "decided_by",
                "expansions",
                "time_ms",
            ],
        );
        let mut by: std::collections::BTreeMap<String, [f64; 2]> = Default::default();
        for (_, m) in d.units.values() {
            t.row(vec![
                RunData::text(m, "vacate"),
                RunData::text(m, "finish"),
                RunData::text(m, "solvable"),
                RunData::text(m, "decided_by"),
                fmt(RunData::num(m, "expansions").unwrap_or(f64::NAN), 0),
                fmt(RunData::num(m, "time_ms").unwrap_or(f64::NAN), 1),
            ]);
            let k = if RunData::text(m, "finish") == "any" {
                0
            } else {
                1
            };
            by.entry(RunData::text(m, "decided_by")).or_insert([0.0; 2])[k] += 1.0;
        }
        let mut s = Table::new(
            "How the problems were decided",
            &["decided_by", "finish_any", "finish_in_hole"],
        );
        for (k, v) in &by {
            s.row(vec![k.clone(), fmt(v[0], 0), fmt(v[1], 0)]);
        }
        let labels: Vec<String> = by.keys().cloned().collect();
        let plot = Plot::Bars {
            file: "peg-single-vacancy".into(),
            title: format!(
                "Single-vacancy problems on {}: how each was decided",
                d.params.text("board")
            ),
            x_label: "decided by".into(),
            y_label: "problems".into(),
            labels,
            series: vec![
                (
                    "finish anywhere".into(),
                    by.values().map(|v| v[0]).collect(),
                ),
                (
                    "finish in the vacated hole".into(),
                    by.values().map(|v| v[1]).collect(),
                ),
            ],
            log_y: false,
        };
        Report::new(vec![s, t], vec![plot], vec![])
    }
}
