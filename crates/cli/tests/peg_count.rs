//! `endgame count peg --threads N`: the count does not depend on the
//! number of workers, and a nonsensical number is a user error.

mod common;

use common::{json, user_error, without_timing};
use serde_json::Value;

/// The report without what depends on the run (time, peak memory).
fn counts(v: Value) -> Value {
    let mut v = without_timing(v);
    v.as_object_mut()
        .expect("an object")
        .remove("peak_memory_bytes");
    v
}

#[test]
fn the_count_is_the_same_on_one_and_on_three_threads() {
    let base = ["count", "peg", "--board", "triangle6", "-q"];
    let one = json(&[&base[..], &["--threads", "1"]].concat());
    let three = json(&[&base[..], &["--threads", "3"]].concat());
    let default = json(&base);
    assert_eq!(counts(one.clone()), counts(three));
    assert_eq!(counts(one.clone()), counts(default));
    assert!(
        one["layers"].as_array().is_some_and(|l| l.len() > 10),
        "{one}"
    );
}

#[test]
fn zero_or_absurd_thread_counts_are_user_errors() {
    for n in ["0", "1025", "100000000"] {
        let e = user_error(&["count", "peg", "--board", "triangle", "--threads", n]);
        assert!(e.contains("--threads"), "{e}");
    }
    let e = user_error(&["count", "peg", "--threads", "many"]);
    assert!(e.contains("--threads"), "{e}");
}
