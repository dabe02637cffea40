//! The experiments the lab knows, by name.

use crate::error::LabError;
use crate::experiment::Experiment;
use crate::experiments::{calibration, martello, peg, pentago, sim};

/// Every experiment, in the order `lab list` shows them.
pub fn all() -> Vec<&'static dyn Experiment> {
    vec![
        &peg::SearchTable,
        &peg::Genetic,
        &peg::SingleVacancy,
        &martello::Random,
        &martello::Sizes,
        &sim::WeakRounds,
        &pentago::Battle,
        &pentago::SolverSpeed,
        &calibration::Calibration,
    ]
}

/// The experiment called `name`.
pub fn find(name: &str) -> Result<&'static dyn Experiment, LabError> {
    all()
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| LabError::UnknownExperiment(name.to_string()))
}
