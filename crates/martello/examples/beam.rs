//! Beam searches alone on study games: `beam N SEED WIDTH MODE INDEX...`
//! runs a beam search for a one-stone line on game INDEX of the study of
//! size N and seed SEED (the boards of `tail`), widths WIDTH, 4·WIDTH, …
//! up to `BEAM_MAX` (default 64·WIDTH) until one finds a line, and prints
//! the width that did, the expansions of all of them and the time. MODE
//! ranks the children: `pairs` or `shares` ([`solver::BeamRank`]),
//! `solver` (the rank of `solver::WIDE_STAGES`' beam of each width,
//! `shares` for a width no stage has), `mobs` (most children not doomed,
//! then the least spread: makes every grandchild, several times the
//! cost), `rand` (random).
use endgame_core::restarts::Rng;
use endgame_martello::solver::{self, BeamRank};
use endgame_martello::study::game_seed;
use endgame_martello::{Board, Martello, State};
use std::time::Instant;

/// One beam search of width `w`: its expansions, and whether it found a
/// line.
fn run(m: &Martello, w: usize, mode: &str, rng: &mut Rng) -> (u64, bool) {
    let ranked = match mode {
        "pairs" => Some(BeamRank::Pairs),
        "shares" => Some(BeamRank::Shares),
        _ => None,
    };
    if let Some(rank) = ranked {
        let r = solver::beam_line(m, (w, rank), rng.next_u64(), None);
        return (r.expansions, r.line.is_some());
    }
    let rank = |s: &State| match mode {
        "mobs" => {
            let mut k = 0i64;
            m.for_each_child(s, |_, c| k += i64::from(!c.doomed));
            (k << 20) - m.spread(s)
        }
        "rand" => 0,
        _ => panic!("unknown mode {mode}: pairs, shares, solver, mobs or rand"),
    };
    let r = solver::beam_line_by(m, (w, None), rng.next_u64(), rank);
    (r.expansions, r.line.is_some())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let seed: u64 = args[2].parse().unwrap();
    let w0: usize = args[3].parse().unwrap();
    let mode = &args[4];
    let wmax: usize = std::env::var("BEAM_MAX").map_or(64 * w0, |s| s.parse().unwrap());
    // `solver`: the rank of the solver's beam stage of that width.
    let stage_rank = |w: usize| {
        solver::WIDE_STAGES
            .iter()
            .find(|st| st.beam == w)
            .map_or(BeamRank::Shares, |st| st.rank)
    };
    for a in &args[5..] {
        let i: u64 = a.parse().unwrap();
        let b = Board::random(n, game_seed(seed, n, i)).unwrap();
        let m = Martello::new(n, State::from_board(&b)).unwrap();
        let mut rng = Rng::new(i);
        let t = Instant::now();
        let (mut w, mut total) = (w0, 0);
        let found = loop {
            let mode = match mode.as_str() {
                "solver" => match stage_rank(w) {
                    BeamRank::Pairs => "pairs",
                    BeamRank::Shares => "shares",
                },
                mode => mode,
            };
            let (e, ok) = run(&m, w, mode, &mut rng);
            total += e;
            if ok || 4 * w > wmax {
                break ok;
            }
            w *= 4;
        };
        println!(
            "game {i}: {} width {w} expansions {total} {:.1} ms",
            if found { "line" } else { "none" },
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
