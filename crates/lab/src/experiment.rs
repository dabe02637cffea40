//! What an experiment is: parameters with defaults and validation, a
//! number of independent units of work, the measures of one unit (a pure
//! function of the run seed, the unit index and the parameters), and a
//! report built from the stored measures.

use crate::error::LabError;
use crate::report::Report;
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// The kind of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A non-negative integer.
    Int,
    /// A number.
    Float,
    /// Text.
    Text,
}

/// One parameter of an experiment.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// Its name (`--param name=value`).
    pub name: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// Its default, as it would be typed.
    pub default: &'static str,
    /// What it means.
    pub help: &'static str,
}

impl ParamSpec {
    /// A parameter.
    pub const fn new(
        name: &'static str,
        kind: Kind,
        default: &'static str,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            kind,
            default,
            help,
        }
    }
}

/// Parameter values, every parameter present (defaults filled in), sorted
/// by name: its JSON text is the canonical form stored in `runs.params`.
#[derive(Clone, Debug, PartialEq)]
pub struct Params(pub BTreeMap<String, Json>);

impl Params {
    /// An integer parameter (validated at parse time).
    pub fn int(&self, name: &str) -> u64 {
        self.0.get(name).and_then(Json::as_u64).unwrap_or(0)
    }

    /// A numeric parameter.
    pub fn float(&self, name: &str) -> f64 {
        self.0.get(name).and_then(Json::as_f64).unwrap_or(0.0)
    }

    /// A text parameter.
    pub fn text(&self, name: &str) -> String {
        self.0
            .get(name)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string()
    }

    /// The canonical JSON text (sorted keys, no spaces).
    pub fn canonical(&self) -> String {
        serde_json::to_string(&self.0).expect("JSON of plain values")
    }

    /// Parses `k=v` pairs against an experiment's parameters, then checks
    /// them all ([`Experiment::validate`]): a name given twice, an unknown
    /// name, a malformed value or one out of range is an error before any
    /// work starts.
    pub fn parse(exp: &dyn Experiment, pairs: &[String]) -> Result<Params, LabError> {
        let specs = exp.params();
        let mut map = BTreeMap::new();
        for s in &specs {
            map.insert(s.name.to_string(), value(exp, s, s.default)?);
        }
        let mut given: BTreeMap<&str, &str> = BTreeMap::new();
        for pair in pairs {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                LabError::BadParam(format!("`{pair}` is not of the form name=value"))
            })?;
            let spec = specs.iter().find(|s| s.name == k.trim()).ok_or_else(|| {
                LabError::UnknownParam {
                    experiment: exp.name().to_string(),
                    name: k.trim().to_string(),
                    known: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                }
            })?;
            if let Some(first) = given.insert(spec.name, pair) {
                return Err(LabError::BadParam(format!(
                    "{}: `{}` is given twice (`{first}` and `{pair}`); give it once",
                    exp.name(),
                    spec.name
                )));
            }
            map.insert(spec.name.to_string(), value(exp, spec, v.trim())?);
        }
        let p = Params(map);
        exp.validate(&p)?;
        Ok(p)
    }

    /// Reads the canonical JSON stored with a run.
    pub fn from_canonical(s: &str) -> Result<Params, LabError> {
        serde_json::from_str(s)
            .map(Params)
            .map_err(|e| LabError::Db(format!("malformed params JSON `{s}`: {e}")))
    }
}

fn value(exp: &dyn Experiment, s: &ParamSpec, v: &str) -> Result<Json, LabError> {
    let bad = |what: &str| {
        LabError::BadParam(format!(
            "{}: `{}` must be {what}, got `{v}`",
            exp.name(),
            s.name
        ))
    };
    Ok(match s.kind {
        Kind::Int => Json::from(
            v.parse::<u64>()
                .map_err(|_| bad("a non-negative integer"))?,
        ),
        Kind::Float => {
            let f: f64 = v.parse().map_err(|_| bad("a number"))?;
            if !f.is_finite() {
                return Err(bad("a finite number"));
            }
            Json::from(f)
        }
        Kind::Text => Json::from(v.to_string()),
    })
}

/// One measured field of a unit: a number, a text, or both.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Field name.
    pub name: String,
    /// Numeric value.
    pub value: Option<f64>,
    /// Text value.
    pub text: Option<String>,
}

impl Measure {
    /// A numeric measure.
    pub fn num(name: &str, v: f64) -> Measure {
        Measure {
            name: name.to_string(),
            value: Some(v),
            text: None,
        }
    }

    /// A text measure.
    pub fn text(name: &str, t: impl Into<String>) -> Measure {
        Measure {
            name: name.to_string(),
            value: None,
            text: Some(t.into()),
        }
    }

    /// Whether the measure is a wall-clock or memory reading, which varies
    /// between runs of the same unit (by convention its name ends in
    /// `_ms`, `_bytes` or `_mb`). Everything else is deterministic.
    pub fn is_timing(name: &str) -> bool {
        name.ends_with("_ms") || name.ends_with("_bytes") || name.ends_with("_mb")
    }
}

/// A unit's stored measures by name: `(value, text)`.
pub type UnitData = BTreeMap<String, (Option<f64>, Option<String>)>;

/// Everything stored for a run, for its report.
#[derive(Clone, Debug)]
pub struct RunData {
    /// Run id.
    pub id: i64,
    /// Experiment name.
    pub experiment: String,
    /// Parameters.
    pub params: Params,
    /// Seed.
    pub seed: u64,
    /// Units the run has.
    pub units_total: u64,
    /// Stored units by index, with their elapsed time in milliseconds.
    pub units: BTreeMap<u64, (f64, UnitData)>,
}

impl RunData {
    /// The numeric measure `name` of every unit that has it, in unit order.
    pub fn values(&self, name: &str) -> Vec<f64> {
        self.units
            .values()
            .filter_map(|(_, m)| m.get(name).and_then(|v| v.0))
            .collect()
    }

    /// The text measure `name` of unit `u`.
    pub fn text(u: &UnitData, name: &str) -> String {
        u.get(name).and_then(|v| v.1.clone()).unwrap_or_default()
    }

    /// The numeric measure `name` of unit `u`.
    pub fn num(u: &UnitData, name: &str) -> Option<f64> {
        u.get(name).and_then(|v| v.0)
    }
}

/// A reproducible experiment.
pub trait Experiment: Sync {
    /// Its name (`endgame lab run NAME`).
    fn name(&self) -> &'static str;
    /// The game it studies.
    fn game(&self) -> &'static str;
    /// One line on what it measures (and which source study it redoes).
    fn description(&self) -> &'static str;
    /// Its parameters.
    fn params(&self) -> Vec<ParamSpec>;
    /// Checks parameter values beyond their kind.
    fn validate(&self, _p: &Params) -> Result<(), LabError> {
        Ok(())
    }
    /// Units of work for these parameters.
    fn units(&self, p: &Params) -> u64;
    /// Units per committed batch.
    fn batch_size(&self, p: &Params) -> u64 {
        let b = p.int("batch");
        if b > 0 {
            b
        } else {
            (self.units(p) / 20).max(1)
        }
    }
    /// Measures unit `index`. Must depend only on `(p, seed, index)` (never
    /// on threads or scheduling), apart from `Measure::is_timing` fields.
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError>;
    /// Tables and plots from the stored measures.
    fn report(&self, data: &RunData) -> Report;
}

/// A seed for `(run seed, unit, stream)` that no other unit shares, by
/// SplitMix64 mixing.
pub fn unit_seed(seed: u64, index: u64, stream: u64) -> u64 {
    let mut z = seed
        .wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
    for _ in 0..2 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
    }
    z
}

/// Checks that a text parameter is one of `allowed`.
pub fn one_of(exp: &str, name: &str, v: &str, allowed: &[&str]) -> Result<(), LabError> {
    if allowed.contains(&v) {
        Ok(())
    } else {
        Err(LabError::BadParam(format!(
            "{exp}: `{name}` must be one of {}, got `{v}`",
            allowed.join(", ")
        )))
    }
}

/// Checks that an integer parameter lies in `lo..=hi`.
pub fn in_range(exp: &str, p: &Params, name: &str, lo: u64, hi: u64) -> Result<(), LabError> {
    let v = p.int(name);
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(LabError::BadParam(format!(
            "{exp}: `{name}` must be in {lo}..={hi}, got {v}"
        )))
    }
}
