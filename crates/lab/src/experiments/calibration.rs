//! A game-free experiment for checking the store and the runner: each unit
//! draws deterministic numbers from its seed and may sleep, so crash,
//! resume and sharing tests can be timed without solving anything.

use crate::error::LabError;
use crate::experiment::{unit_seed, Experiment, Measure, ParamSpec, Params, RunData};
use crate::report::{fmt, mean, Plot, Report, Table};

/// The calibration experiment.
pub struct Calibration;

impl Experiment for Calibration {
    fn name(&self) -> &'static str {
        "calibration"
    }
    fn game(&self) -> &'static str {
        "none"
    }
    fn description(&self) -> &'static str {
        "store and runner check: deterministic pseudo-random measures per unit, optional sleep"
    }
    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::int("units", "100", 1, 10_000_000, "units in the run"),
            ParamSpec::batch("10", 1_000_000),
            ParamSpec::int("sleep_ms", "0", 0, 60_000, "sleep per unit (ms)"),
        ]
    }
    fn unit_memory(&self, _p: &Params) -> u64 {
        // A unit holds no tables.
        1 << 20
    }
    fn units(&self, p: &Params) -> u64 {
        p.int("units")
    }
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError> {
        let ms = p.int("sleep_ms");
        if ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        let r = unit_seed(seed, index, 0);
        Ok(vec![
            Measure::num("die", (r % 6 + 1) as f64),
            Measure::num("uniform", (r >> 11) as f64 / (1u64 << 53) as f64),
            Measure::text("parity", if r.is_multiple_of(2) { "even" } else { "odd" }),
        ])
    }
    fn report(&self, d: &RunData) -> Report {
        let dice = d.values("die");
        let mut t = Table::new("Die faces", &["face", "count"]);
        let counts: Vec<f64> = (1..=6)
            .map(|f| dice.iter().filter(|&&x| x == f as f64).count() as f64)
            .collect();
        for (f, c) in counts.iter().enumerate() {
            t.row(vec![(f + 1).to_string(), fmt(*c, 0)]);
        }
        let notes = vec![format!(
            "mean die {} (3.5 expected), mean uniform {}",
            fmt(mean(&dice), 3),
            fmt(mean(&d.values("uniform")), 3)
        )];
        let plot = Plot::Bars {
            file: "calibration-die".into(),
            title: "Calibration: die faces".into(),
            x_label: "face".into(),
            y_label: "units".into(),
            labels: (1..=6).map(|f| f.to_string()).collect(),
            series: vec![("units".into(), counts)],
            log_y: false,
        };
        Report::new(vec![t], vec![plot], notes)
    }
}
