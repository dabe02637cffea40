//! Numbers of solutions on the 15-hole triangle, for every single
//! vacancy, against Durango Bill's published table (holes numbered 1–15
//! from the top: corners 1, 11, 15; next to a corner 2, 3, 7, 10, 12, 14;
//! edge midpoints 4, 6, 13; interior 5, 8, 9). In Endgame's names row `r`
//! is `1..=5` from the top and the column letter counts holes in the row.

use endgame_core::layered::Silent;
use endgame_peg::api::{self, Finish, Spec};

/// (holes, solutions finishing anywhere, solutions finishing in the
/// vacated hole).
const TABLE: [(&[&str], u64, u64); 4] = [
    (&["a1", "a5", "e5"], 29_760, 6_816),
    (&["a2", "b2", "a4", "d4", "b5", "d5"], 14_880, 720),
    (&["a3", "c3", "c5"], 85_258, 51_452),
    (&["b3", "b4", "c4"], 1_550, 0),
];

#[test]
fn triangle_solution_counts_match_the_published_table() {
    for (holes, any, same) in TABLE {
        for h in holes {
            for (finish, expect) in [(Finish::Any, any), (Finish::Hole(h.to_string()), same)] {
                let spec = Spec {
                    vacate: Some(vec![h.to_string()]),
                    finish: finish.clone(),
                    ..Spec::named("triangle")
                };
                let p = api::build(&spec).unwrap();
                let r = api::count(&p, api::CountOptions::default(), &Silent).unwrap();
                assert_eq!(
                    r.solutions,
                    Some(expect.to_string()),
                    "vacate {h}, finish {finish:?}"
                );
                assert_eq!(r.solvable, expect > 0);
            }
        }
    }
}
