//! The single-vacancy study on the 15-hole triangle against published
//! results (Durango Bill's table of triangular-board solutions): every
//! vacancy can finish with one peg somewhere; only the interior holes
//! (b3, b4, c4) cannot finish in the hole they started from.

use endgame_peg::api::Budget;
use endgame_peg::study::single_vacancy;

#[test]
fn triangle_single_vacancy_study_matches_published_solvability() {
    let rows = single_vacancy("triangle", false, &Budget::default()).unwrap();
    assert_eq!(rows.len(), 30);
    for r in &rows {
        let interior = ["b3", "b4", "c4"].contains(&r.vacate.as_str());
        let expect = r.finish == "any" || !interior;
        assert_eq!(r.solvable, Some(expect), "{} -> {}", r.vacate, r.finish);
        if expect {
            assert_eq!(r.solution.len(), 13);
        } else {
            assert!(r.reason.is_some());
        }
    }
}

#[test]
fn english_single_vacancy_study_decides_everything() {
    let rows = single_vacancy("english", false, &Budget::default()).unwrap();
    assert_eq!(rows.len(), 66);
    assert!(rows.iter().all(|r| r.solvable.is_some()));
    // The central game and its complement are solvable.
    let d4 = rows
        .iter()
        .find(|r| r.vacate == "d4" && r.finish == "d4")
        .unwrap();
    assert_eq!(d4.solvable, Some(true));
    for r in rows.iter().filter(|r| r.solvable == Some(false)) {
        println!("{} -> {}: {}", r.vacate, r.finish, r.decided_by);
    }
}
