//! Fuzzing the lab's parameter parser (`lab run EXPERIMENT --param k=v
//! …`). An input is `EXPERIMENT;k=v;k=v…`, one `--param` between each
//! pair of semicolons. Random text and mutations of the corpus in
//! `tests/fuzz-corpus/` must never panic; what parses must read back the
//! same from its canonical JSON and from its values typed again, and must
//! describe a run that can start: at least one unit and one unit a batch.
//!
//! `ENDGAME_FUZZ_CASES` sets the cases (the top-level README's Tests
//! section gives the long run).

#[path = "../../core/tests/fuzz_support/mod.rs"]
mod fuzz_support;

use endgame_lab::experiment::{Experiment, Params};
use endgame_lab::registry;
use serde_json::Value as Json;

const PARAMS: &str = "abcdeilmnoprstuvw_-=;,0123456789 ";

/// An input's pairs against its experiment or, when a mutation has
/// spoilt the name, against every experiment.
fn check_params(s: &str) {
    let mut parts = s.split(';');
    let name = parts.next().unwrap_or_default();
    let pairs: Vec<String> = parts.map(str::to_string).collect();
    match registry::find(name) {
        Ok(exp) => check_pairs(exp, &pairs, s),
        Err(_) => {
            for exp in registry::all() {
                check_pairs(exp, &pairs, s);
            }
        }
    }
}

fn check_pairs(exp: &dyn Experiment, pairs: &[String], s: &str) {
    let Ok(p) = Params::parse(exp, pairs) else {
        return;
    };
    assert_eq!(
        Params::from_canonical(&p.canonical()).ok(),
        Some(p.clone()),
        "{s:?}"
    );
    let typed: Vec<String> =
        p.0.iter()
            .map(|(k, v)| match v {
                Json::String(t) => format!("{k}={t}"),
                other => format!("{k}={other}"),
            })
            .collect();
    assert_eq!(Params::parse(exp, &typed).ok(), Some(p.clone()), "{s:?}");
    let units = exp.units(&p);
    assert!((1..=1_000_000_000).contains(&units), "{s:?}: {units} units");
    assert!(exp.batch_size(&p) >= 1, "{s:?}");
    if exp.name() == "pentago-solver-speed" {
        let late = u64::from(endgame_pentago::api::LATE_STONES);
        assert!(p.int("min_stones") >= late, "{s:?}");
        assert!(p.int("min_stones") <= p.int("max_stones"), "{s:?}");
    }
}

fuzz_support::fuzz_targets! {
    fuzz_params: "params", PARAMS, check_params;
}
