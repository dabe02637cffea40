//! What an experiment is: parameters with defaults and their allowed
//! values, a number of independent units of work, the measures of one
//! unit (a pure function of the run seed, the unit index and the
//! parameters), and a report built from the stored measures.
//!
//! Parameters are declared, not checked by hand: a [`ParamSpec`] carries
//! its range (integers), its words (one of a few) or its list rule (a
//! comma-separated list, not empty, no empty or repeated entry, each entry
//! valid), and [`Params::parse`] derives every check and its one-line
//! error from it. [`Experiment::validate`] is left for what ties several
//! parameters together.

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

/// The values a parameter takes beyond its [`Kind`], checked by
/// [`Params::parse`] with one error text for every experiment.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// Any value of its kind.
    Any,
    /// An integer in `min..=max`; `why`, when given, explains the lower
    /// bound in the error.
    Range {
        /// The least value.
        min: u64,
        /// The largest value.
        max: u64,
        /// Why nothing below `min` works.
        why: Option<&'static str>,
    },
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A text accepted by this check, which says what is wrong otherwise
    /// (a board name the game crate must know).
    Checked(fn(&str) -> Result<String, String>),
    /// A comma-separated list: not empty, no empty entry (`a,,b` would
    /// otherwise silently mean two), no entry twice, each entry accepted
    /// by `entry`, which returns its canonical form (the one compared for
    /// repeats) or what is wrong with it.
    List {
        /// What to give, for the error on an empty list (`built-in boards
        /// such as english,french`).
        example: &'static str,
        /// Checks one (trimmed) entry.
        entry: fn(&str) -> Result<String, String>,
    },
}

/// One parameter of an experiment: name, kind, default, meaning, and the
/// values it allows.
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
    /// The values it allows.
    pub allowed: Allowed,
}

impl ParamSpec {
    /// An integer parameter in `min..=max`.
    pub const fn int(
        name: &'static str,
        default: &'static str,
        min: u64,
        max: u64,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            kind: Kind::Int,
            default,
            help,
            allowed: Allowed::Range {
                min,
                max,
                why: None,
            },
        }
    }

    /// `batch`, the units per committed batch, in `1..=max`.
    pub const fn batch(default: &'static str, max: u64) -> ParamSpec {
        ParamSpec::int("batch", default, 1, max, "units per committed batch")
    }

    /// A text parameter, any text.
    pub const fn text(name: &'static str, default: &'static str, help: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            kind: Kind::Text,
            default,
            help,
            allowed: Allowed::Any,
        }
    }

    /// A text parameter that is one of `words`.
    pub const fn one_of(
        name: &'static str,
        default: &'static str,
        words: &'static [&'static str],
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            allowed: Allowed::OneOf(words),
            ..ParamSpec::text(name, default, help)
        }
    }

    /// A text parameter accepted by `check` (see [`Allowed::Checked`]).
    pub const fn checked(
        name: &'static str,
        default: &'static str,
        check: fn(&str) -> Result<String, String>,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            allowed: Allowed::Checked(check),
            ..ParamSpec::text(name, default, help)
        }
    }

    /// A comma-separated list parameter (see [`Allowed::List`]).
    pub const fn list(
        name: &'static str,
        default: &'static str,
        example: &'static str,
        entry: fn(&str) -> Result<String, String>,
        help: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            allowed: Allowed::List { example, entry },
            ..ParamSpec::text(name, default, help)
        }
    }

    /// The same integer parameter, its lower bound explained by `why` in
    /// the error.
    pub const fn because(self, why: &'static str) -> ParamSpec {
        let allowed = match self.allowed {
            Allowed::Range { min, max, .. } => Allowed::Range {
                min,
                max,
                why: Some(why),
            },
            other => other,
        };
        ParamSpec { allowed, ..self }
    }

    /// Checks a parsed value against [`ParamSpec::allowed`]: the error is
    /// one line naming the experiment, the parameter and the value.
    pub fn check(&self, exp: &str, v: &Json) -> Result<(), LabError> {
        let name = self.name;
        match self.allowed {
            Allowed::Any => Ok(()),
            Allowed::Range { min, max, why } => {
                let x = v.as_u64().unwrap_or(0);
                match why {
                    _ if (min..=max).contains(&x) => Ok(()),
                    Some(why) if x < min => Err(LabError::BadParam(format!(
                        "{exp}: `{name}` must be at least {min}, got {x}: {why}"
                    ))),
                    _ => Err(LabError::BadParam(format!(
                        "{exp}: `{name}` must be in {min}..={max}, got {x}"
                    ))),
                }
            }
            Allowed::OneOf(words) => {
                let x = v.as_str().unwrap_or_default();
                if words.contains(&x) {
                    Ok(())
                } else {
                    Err(LabError::BadParam(format!(
                        "{exp}: `{name}` must be one of {}, got `{x}`",
                        words.join(", ")
                    )))
                }
            }
            Allowed::Checked(check) => check(v.as_str().unwrap_or_default())
                .map(|_| ())
                .map_err(|why| LabError::BadParam(format!("{exp}: `{name}`: {why}"))),
            Allowed::List { example, entry } => {
                let text = v.as_str().unwrap_or_default();
                let bad = |why: String| LabError::BadParam(format!("{exp}: `{name}`: {why}"));
                if text.trim().is_empty() {
                    return Err(bad(format!("the list is empty; give {example}")));
                }
                let mut seen: Vec<String> = Vec::new();
                for item in list_entries(text) {
                    if item.is_empty() {
                        return Err(bad(format!("an empty entry in `{text}`")));
                    }
                    let canonical = entry(item).map_err(bad)?;
                    if seen.contains(&canonical) {
                        return Err(bad(format!("`{canonical}` is given twice in `{text}`")));
                    }
                    seen.push(canonical);
                }
                Ok(())
            }
        }
    }
}

/// The trimmed entries of a comma-separated list.
fn list_entries(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim)
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

    /// A list parameter's entries, trimmed (validated at parse time: none
    /// empty, none repeated).
    pub fn list(&self, name: &str) -> Vec<String> {
        list_entries(&self.text(name)).map(str::to_string).collect()
    }

    /// The canonical JSON text (sorted keys, no spaces).
    pub fn canonical(&self) -> String {
        serde_json::to_string(&self.0).expect("JSON of plain values")
    }

    /// Parses `k=v` pairs against an experiment's parameters, then checks
    /// them all, each against its [`ParamSpec::allowed`] in the order the
    /// experiment declares them, then together ([`Experiment::validate`]):
    /// a name given twice, an unknown name, a malformed value or one not
    /// allowed is an error before any work starts.
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
        for s in &specs {
            s.check(exp.name(), &map[s.name])?;
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
    /// Checks what ties parameters together (each one's own values are
    /// declared in its [`ParamSpec`] and checked before this).
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
    /// Most bytes one unit may hold at once under `p`: the sum of the caps
    /// it gives its solvers' tables (memos, transposition tables, layer
    /// pools), each of which stops or refuses before outgrowing its cap.
    /// `lab run --max-memory` runs at most its budget / this many units at
    /// once, and refuses a run whose single unit would not fit. The caps
    /// depend on `p` only, so a unit's measures do not depend on the
    /// budget or the thread count.
    fn unit_memory(&self, p: &Params) -> u64;
    /// Measures unit `index`. Must depend only on `(p, seed, index)` (never
    /// on threads or scheduling), apart from `Measure::is_timing` fields.
    fn unit(&self, p: &Params, seed: u64, index: u64) -> Result<Vec<Measure>, LabError>;
    /// Tables and plots from the stored measures.
    fn report(&self, data: &RunData) -> Report;
    /// One run's data made of `base` and `later` runs of this experiment
    /// that redo some of its units (`martello-random`: the games a budget
    /// left undecided, run again with a larger one), for one report; an
    /// error when the runs do not fit together or the experiment has no
    /// such runs.
    fn combine(&self, _base: &RunData, _later: &[RunData]) -> Result<RunData, LabError> {
        Err(LabError::Combine(format!(
            "experiment `{}` has no runs that finish another's units",
            self.name()
        )))
    }
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
