//! `endgame count peg --random-success --canonical-paths --move-sets`: the
//! counts of `endgame_peg::counts` in the JSON report and the text, and
//! only when asked. The figures of the 15-hole triangle (a1 to a1) are the
//! brute-force enumeration's of `crates/peg/tests/counts.rs`.

mod common;

use common::{json, text, user_error};

const ALL: [&str; 3] = ["--random-success", "--canonical-paths", "--move-sets"];

#[test]
fn the_triangle_counts_are_in_the_json_report() {
    let r = json(&[&["count", "peg", "--board", "triangle", "-q"][..], &ALL].concat());
    assert_eq!(
        r["random_success"]["exact"], "17242335766667/67750334668800000",
        "{r}"
    );
    let float = r["random_success"]["float"].as_f64().unwrap();
    assert!(
        (float - 17242335766667.0 / 67750334668800000.0).abs() < 1e-15,
        "{r}"
    );
    assert_eq!(r["canonical_paths"], "2924", "{r}");
    assert_eq!(r["move_sets"], 8, "{r}");
    assert_eq!(r["move_sets_reduced"], 4, "{r}");
    // The count's own fields are still there.
    assert_eq!(r["solutions"], "6816", "{r}");
}

#[test]
fn each_count_comes_only_when_asked() {
    let plain = json(&["count", "peg", "--board", "triangle", "-q"]);
    for field in [
        "random_success",
        "canonical_paths",
        "move_sets",
        "extra_time_ms",
    ] {
        assert!(plain.get(field).is_none(), "{field} in {plain}");
    }
    let one = json(&[
        "count",
        "peg",
        "--board",
        "triangle",
        "--goal-only",
        "--no-solutions",
        "--move-sets",
        "-q",
    ]);
    assert_eq!(one["move_sets"], 8, "{one}");
    assert!(one.get("random_success").is_none(), "{one}");
    assert!(one.get("canonical_paths").is_none(), "{one}");
}

/// The extra counts come from the goal-reaching layers the count itself
/// kept: asking for them changes nothing else in the report, on every
/// route of the count (the full count; goal-only with and without the
/// solutions, met in the middle by the time reversal or, finishing
/// anywhere, without it), and they are the figures of their own
/// enumeration (the triangle's, above; the same with a finish anywhere).
#[test]
fn asking_for_them_leaves_the_count_as_it_was() {
    let routes: [&[&str]; 4] = [
        &[],
        &["--goal-only"],
        &["--goal-only", "--no-solutions"],
        &["--goal-only", "--no-solutions", "--finish", "any"],
    ];
    let mut any = Vec::new();
    for route in routes {
        let base = [&["count", "peg", "--board", "triangle", "-q"][..], route].concat();
        let mut plain = json(&base);
        let mut with = json(&[&base[..], &ALL].concat());
        for r in [&mut plain, &mut with] {
            let o = r.as_object_mut().unwrap();
            for volatile in ["time_ms", "extra_time_ms", "peak_memory_bytes"] {
                o.remove(volatile);
            }
        }
        let extra: Vec<_> = [
            "random_success",
            "canonical_paths",
            "move_sets",
            "move_sets_reduced",
        ]
        .iter()
        .map(|f| with.as_object_mut().unwrap().remove(*f).expect(f))
        .collect();
        assert_eq!(plain, with, "{route:?}");
        if route.contains(&"any") {
            any = extra;
        } else {
            assert_eq!(
                extra[0]["exact"], "17242335766667/67750334668800000",
                "{route:?}"
            );
            assert_eq!(extra[1], "2924", "{route:?}");
            assert_eq!(extra[2], 8, "{route:?}");
        }
    }
    // Finishing anywhere: more solutions, so more of each.
    let any_paths: u64 = any[1].as_str().unwrap().parse().unwrap();
    assert!(any_paths > 2924, "{any:?}");
    assert!(any[2].as_u64().unwrap() > 8, "{any:?}");
}

#[test]
fn the_text_lists_them_after_the_solutions() {
    let out = text(&[&["count", "peg", "--board", "triangle", "-q"][..], &ALL].concat());
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("solutions "))
        .expect("a solutions line");
    assert!(
        lines[at + 1].starts_with("random play  reaches the goal with probability 2.544982e-4"),
        "{out}"
    );
    assert_eq!(
        lines[at + 2].trim(),
        "= 17242335766667/67750334668800000",
        "{out}"
    );
    assert_eq!(
        lines[at + 3],
        "paths        2,924 sequences of positions up to symmetry",
        "{out}"
    );
    assert_eq!(lines[at + 4], "move sets    8 (4 up to symmetry)", "{out}");
}

#[test]
fn a_value_for_a_switch_is_a_user_error() {
    for flag in ALL {
        let e = user_error(&[
            "count",
            "peg",
            "--board",
            "triangle",
            &format!("{flag}=yes"),
        ]);
        assert!(e.contains(flag), "{e}");
    }
}
