//! Sim (Cassis): the positions the weak solve stores per round, with the
//! exact canonical key, the degree-sorted key of erik's article ("The best
//! AI for cassis") and the raw position, against the article's figures
//! (`docs/sim.md`).

use crate::error::LabError;
use crate::experiment::{Experiment, Measure, ParamSpec, Params, RunData};
use crate::report::{fmt, Plot, Report, Table};
use endgame_core::Rules;
use endgame_sim::solve::{self, KeyKind};
use endgame_sim::Sim;
use std::time::Instant;

const KEYS: [(KeyKind, &str); 3] = [
    (KeyKind::Exact, "exact"),
    (KeyKind::DegreeSorted, "degree-sorted"),
    (KeyKind::Raw, "raw"),
];

/// The positions erik's article stored per round on K6 (standard rules):
/// its first hashing version (raw positions, 112 096 in all) and its
/// normal form by red and blue degrees (1 568 in all).
const SOURCE_RAW: [u64; 15] = [
    1, 15, 15, 104, 217, 969, 2693, 6896, 14560, 21724, 27754, 21757, 12826, 2433, 132,
];
const SOURCE_DEGREE: [u64; 15] = [1, 1, 1, 5, 7, 28, 48, 119, 207, 313, 353, 278, 168, 37, 2];

/// The weak-solve comparison.
pub struct WeakRounds;

impl Experiment for WeakRounds {
    fn name(&self) -> &'static str {
        "sim-weak-rounds"
    }
    fn game(&self) -> &'static str {
        "sim"
    }
    fn description(&self) -> &'static str {
        "positions stored per round by the weak solve of Sim, per memo key (exact, degree-sorted, raw), against the figures of erik's Cassis article"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::int("n", "6", 3, 6, "points (K_n)"),
            ParamSpec::int("misere", "0", 0, 1, "1: misère rules"),
        ]
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // The weak solve's memo of K6 at most (the three K6 units peak
        // near 10 MB).
        256 << 20
    }
    fn units(&self, _p: &Params) -> u64 {
        KEYS.len() as u64
    }
    fn batch_size(&self, _p: &Params) -> u64 {
        1
    }
    fn unit(&self, p: &Params, _seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let sim = Sim::new(p.int("n") as usize, p.int("misere") == 1)
            .map_err(|e| LabError::Unit(e.to_string()))?;
        let (key, name) = KEYS[index as usize];
        let t = Instant::now();
        let w = solve::weak(&sim, &sim.start(), key);
        let mut out = vec![
            Measure::text("key", name),
            Measure::text("value", format!("{:?}", w.value)),
            Measure::num("stored", w.stored as f64),
            Measure::num("time_ms", t.elapsed().as_secs_f64() * 1e3),
        ];
        for (r, &k) in w.stored_per_round.iter().enumerate() {
            out.push(Measure::num(&format!("round_{r:02}"), k as f64));
        }
        Ok(out)
    }
    fn report(&self, d: &RunData) -> Report {
        let source_fig = d.params.int("n") == 6 && d.params.int("misere") == 0;
        let rounds = (0..64)
            .take_while(|r| {
                d.units
                    .values()
                    .any(|(_, m)| m.contains_key(&format!("round_{r:02}")))
            })
            .count();
        let mut cols: Vec<String> = vec!["round".into()];
        cols.extend(KEYS.iter().map(|k| k.1.to_string()));
        if source_fig {
            cols.push("erik raw".into());
            cols.push("erik degree".into());
        }
        let colrefs: Vec<&str> = cols.iter().map(String::as_str).collect();
        let mut t = Table::new("Positions stored per round (weak solve)", &colrefs);
        let get = |u: u64, r: usize| {
            d.units
                .get(&u)
                .and_then(|(_, m)| RunData::num(m, &format!("round_{r:02}")))
                .unwrap_or(0.0)
        };
        for r in 0..rounds {
            let mut row = vec![r.to_string()];
            for u in 0..KEYS.len() as u64 {
                row.push(fmt(get(u, r), 0));
            }
            if source_fig {
                row.push(SOURCE_RAW.get(r).map_or("-".into(), |v| v.to_string()));
                row.push(SOURCE_DEGREE.get(r).map_or("-".into(), |v| v.to_string()));
            }
            t.row(row);
        }
        let mut s = Table::new("Totals", &["key", "value", "stored", "time_ms"]);
        for (u, (_, m)) in &d.units {
            let _ = u;
            s.row(vec![
                RunData::text(m, "key"),
                RunData::text(m, "value"),
                fmt(RunData::num(m, "stored").unwrap_or(f64::NAN), 0),
                fmt(RunData::num(m, "time_ms").unwrap_or(f64::NAN), 1),
            ]);
        }
        let mut notes = vec![];
        if source_fig {
            notes.push("erik's Cassis article (\"The best AI for cassis\") stored 112096 raw positions (1.65 s), 3173 with a degree normal form and 1568 with red/blue degrees (0.052 s)".into());
        }
        let mut series: Vec<(String, Vec<f64>)> = (0..KEYS.len() as u64)
            .map(|u| {
                (
                    KEYS[u as usize].1.to_string(),
                    (0..rounds).map(|r| get(u, r)).collect(),
                )
            })
            .collect();
        if source_fig {
            series.push((
                "erik raw".into(),
                SOURCE_RAW.iter().take(rounds).map(|&v| v as f64).collect(),
            ));
            series.push((
                "erik degree".into(),
                SOURCE_DEGREE
                    .iter()
                    .take(rounds)
                    .map(|&v| v as f64)
                    .collect(),
            ));
        }
        let plot = Plot::Bars {
            file: "sim-weak-rounds".into(),
            title: format!(
                "Sim K{}: positions stored per round by the weak solve",
                d.params.int("n")
            ),
            x_label: "round (coloured segments)".into(),
            y_label: "positions stored (log scale)".into(),
            labels: (0..rounds).map(|r| r.to_string()).collect(),
            series,
            log_y: true,
        };
        Report::new(vec![s, t], vec![plot], notes)
    }
}
