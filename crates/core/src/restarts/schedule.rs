//! Restart schedules: the budgets of the runs a restart search makes
//! before its final unbounded one, and their text form.

/// Runs of a restart schedule: `(repetitions, expansion budget)` pairs, in
/// order. After the last one, an unbounded run finishes the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// `(repetitions, budget)` in the order they are run.
    pub runs: Vec<(u32, u64)>,
}

impl Schedule {
    /// No budgeted runs: the plain exact solver.
    pub fn plain() -> Schedule {
        Schedule { runs: Vec::new() }
    }

    /// The meta-solver schedule of Graf's Martello report ("Martello - AI
    /// Summer Project", `docs/martello.md`; the reference schedule of the
    /// source document): once 10,000, 40 × 250, 60 × 1,000,
    /// 4 × 2,500, once 10,000 (100,000 expansions in all; the report writes
    /// "2'5000", which only adds up to its stated 100,000 as 2,500).
    pub fn reference() -> Schedule {
        Schedule {
            runs: vec![(1, 10_000), (40, 250), (60, 1_000), (4, 2_500), (1, 10_000)],
        }
    }

    /// Geometric budgets: `count` runs starting at `first`, each `factor`
    /// times the previous one (Luby-like doubling when `factor` is 2).
    pub fn geometric(first: u64, factor: u64, count: u32) -> Schedule {
        let mut runs = Vec::new();
        let mut b = first.max(1);
        for _ in 0..count {
            runs.push((1, b));
            b = b.saturating_mul(factor.max(1));
        }
        Schedule { runs }
    }

    /// Total expansions the budgeted runs may spend.
    pub fn total_budget(&self) -> u64 {
        self.runs
            .iter()
            .map(|&(k, b)| u64::from(k).saturating_mul(b))
            .fold(0, u64::saturating_add)
    }

    /// Parses `"1x10000,40x250,60x1000"` (a bare number means one run).
    pub fn parse(s: &str) -> Result<Schedule, String> {
        let mut runs = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, b) = match part.split_once(['x', '*']) {
                Some((k, b)) => (k.trim(), b.trim()),
                None => ("1", part),
            };
            let k: u32 = k
                .parse()
                .map_err(|_| format!("bad repetition count {k:?} in schedule"))?;
            let b: u64 = b
                .replace('_', "")
                .parse()
                .map_err(|_| format!("bad budget {b:?} in schedule"))?;
            if b == 0 {
                return Err("a schedule budget must be positive".into());
            }
            runs.push((k, b));
        }
        Ok(Schedule { runs })
    }
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    #[test]
    fn schedules_parse() {
        assert_eq!(
            Schedule::parse("1x10000, 40x250,60*1_000").unwrap().runs,
            vec![(1, 10_000), (40, 250), (60, 1_000)]
        );
        assert_eq!(Schedule::parse("500").unwrap().runs, vec![(1, 500)]);
        assert!(Schedule::parse("x").is_err());
        assert!(Schedule::parse("3x0").is_err());
        assert_eq!(Schedule::reference().total_budget(), 100_000);
    }
}
