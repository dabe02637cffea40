//! Quick timing of the strong and weak solves for each n (development aid).
use endgame_core::strong;
use endgame_core::Rules;
use endgame_sim::solve::{self, KeyKind};
use endgame_sim::Sim;
use std::time::Instant;

fn main() {
    let max: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let lo = if max > 7 { max } else { 3 };
    for n in lo..=max {
        for misere in [false, true] {
            let sim = Sim::new(n, misere).unwrap();
            let t = Instant::now();
            let w = solve::weak(&sim, &sim.start(), KeyKind::Exact);
            let tw = t.elapsed();
            println!(
                "K{n} misere={misere}: weak {:?} stored {} {:?} in {:?}",
                w.value, w.stored, w.stored_per_round, tw
            );
            if std::env::var("WEAK_ONLY").is_ok() {
                continue;
            }
            let t = Instant::now();
            let s = solve::strong(&sim);
            let ts = t.elapsed();
            let o = s.get(&s.root).unwrap();
            println!(
                "K{n} misere={misere}: weak {:?} stored {} in {:?}; strong {:?} positions {} terminals {} in {:?}; consistent {:?}",
                w.value, w.stored, tw, o, s.total.positions, s.total.terminals, ts,
                if n <= 6 { strong::check_consistency(&sim, &s).map(|_| "ok".to_string()) } else { Ok("skipped".into()) }
            );
        }
    }
    let sim = Sim::k6();
    for k in [KeyKind::Raw, KeyKind::DegreeSorted, KeyKind::Exact] {
        let w = solve::weak(&sim, &sim.start(), k);
        println!("{k:?}: {:?} {} {:?}", w.value, w.stored, w.stored_per_round);
    }
}
