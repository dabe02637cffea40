//! Where an English peg hint's time goes, on the load benchmark's walks
//! (random games of up to 12 moves from the start): the whole analysis,
//! the analysis without the solutions counted (count limit 0), and the
//! analysis under the table lane's 100 ms. A measurement, not a check:
//! it needs the English tables in the cache (`endgame cache build`) and
//! takes a minute; run it with
//!
//! ```text
//! cargo test --release -p endgame-web --test peg_cost -- --ignored --nocapture
//! ```
//!
//! `PEG_COST_LANE_ONLY=1` measures only the lane's way (the problem built
//! from the query, solutions counted at 20 pegs or fewer, 100 ms);
//! `PEG_COST_SHOW=1` prints each position that took over 10 ms that way.

use endgame_core::budget::Budget;
use endgame_peg::api::{self, BoardSource, Finish, Pruning, Spec};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

fn spec(position: Option<String>) -> Spec {
    Spec {
        board: BoardSource::Named("english".into()),
        diagonal: false,
        vacate: None,
        position,
        finish: Finish::Default,
        pruning: Pruning::default(),
    }
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[test]
#[ignore = "a measurement: needs the English tables in the cache, about a minute"]
fn english_hint_cost_by_part() {
    let service = api::Service::with_dir(&endgame_core::cache::dir(None));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let (mut full, mut no_count, mut lane) = (vec![], vec![], vec![]);
    let mut undecided_in_lane = 0;
    let start = api::build(&spec(None)).unwrap();
    // Load the tables first.
    service.analyze(&start, &Budget::unlimited());
    for _ in 0..30 {
        let mut pos = api::start_notation(&start);
        for _ in 0..12 {
            let cur = api::build(&spec(Some(pos.clone()))).unwrap();
            let big = Budget::unlimited()
                .with_time(api::DEFAULT_TIME)
                .with_nodes(api::DEFAULT_NODES);
            if std::env::var_os("PEG_COST_LANE_ONLY").is_none() {
                let t = Instant::now();
                service.analyze(&cur, &big);
                full.push(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                service.analyze_with(&cur, 0, &big);
                no_count.push(t.elapsed().as_secs_f64() * 1e3);
            }
            // As the table lane asks: the problem built from the query,
            // solutions counted at 20 pegs or fewer, 100 ms.
            let t = Instant::now();
            let cur2 = api::build(&spec(Some(pos.clone()))).unwrap();
            let a = service.analyze_with(
                &cur2,
                20,
                &big.clone().with_time(Duration::from_millis(100)),
            );
            lane.push(t.elapsed().as_secs_f64() * 1e3);
            if std::env::var_os("PEG_COST_SHOW").is_some() && t.elapsed().as_millis() > 10 {
                println!(
                    "{:.0} ms pegs {} {:?} table {:?} settled {} undecided moves {} pos {}",
                    t.elapsed().as_secs_f64() * 1e3,
                    a.detail.pegs,
                    a.result,
                    a.detail.table,
                    a.settled(),
                    a.undecided(),
                    pos
                );
            }
            undecided_in_lane += usize::from(!a.settled());
            let moves = api::view(&cur).moves;
            let next = (!moves.is_empty()).then(|| {
                let m = &moves[rng.gen_range(0..moves.len())];
                api::position_after(&cur, &[m.name.as_str()]).unwrap()
            });
            match next {
                Some(n) => pos = n,
                None => break,
            }
        }
    }
    let n = lane.len();
    for (name, v) in [
        ("whole analysis", &mut full),
        ("no solutions counted", &mut no_count),
        ("as the table lane asks", &mut lane),
    ] {
        if v.is_empty() {
            continue;
        }
        let sum: f64 = v.iter().sum();
        let n = v.len();
        println!(
            "{name}: {n} positions, mean {:.1} ms, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            sum / n as f64,
            pct(v, 0.5),
            pct(v, 0.99),
            pct(v, 1.0)
        );
    }
    println!("under 100 ms: {undecided_in_lane} of {n} not settled");
}
