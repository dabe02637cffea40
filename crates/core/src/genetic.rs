//! The genetic search of the peg-solitaire applet SolApp ("Java-Solitaire:
//! Play or find solutions with a genetic algorithm!", Ursula and Pascal
//! Glauser; see `docs/peg.md`).
//!
//! A candidate is a vector of weights, one per class of places (places
//! related by the board's symmetry share a class). Its fitness comes from
//! one game: from the start, repeatedly play the move whose resulting
//! position has the largest total weight (ties: the first move generated),
//! until the score drops to the threshold (11 pegs in the applet); from
//! there an exhaustive search finds the reachable position closest to the
//! goal. Fitness is the negated distance to the goal (0 = solved).
//!
//! The population evolves Genitor-style: two different parents chosen with
//! a bias to the fit, uniform crossover (each weight from either parent),
//! optional mutation, the child inserted by fitness and the worst removed.
//! After a number of offspring without success the run restarts with a
//! fresh random population. Deterministic for a given seed.

use crate::budget::Budget;
use crate::dfs::{self, DfsOptions};
use crate::{Puzzle, Symmetric};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Puzzles a weight vector can guide.
pub trait WeightGuided: Puzzle + Symmetric {
    /// Number of weight classes (genes).
    fn class_count(&self) -> usize;
    /// Total weight of `pos` under `weights` (one per class).
    fn weighted_total(&self, pos: &Self::Position, weights: &[u32]) -> i64;
    /// Distance of `pos` from the goal (0 exactly at a goal); must be
    /// invariant under the puzzle's symmetries.
    fn goal_distance(&self, pos: &Self::Position) -> u32;
}

/// Parameters of the genetic search.
#[derive(Clone, Debug)]
pub struct GeneticOptions {
    /// Candidates in a population (30 in the applet).
    pub population: usize,
    /// Offspring per run before restarting (about 70 in the applet).
    pub offspring: usize,
    /// Runs (fresh populations) before giving up.
    pub restarts: usize,
    /// Score at which the guided game hands over to exhaustive search.
    pub threshold: u32,
    /// Weights are drawn from `1..=max_weight` (10 in the applet).
    pub max_weight: u32,
    /// Probability that a gene of an offspring is redrawn at random.
    pub mutation: f64,
    /// Random seed.
    pub seed: u64,
    /// The caller's budget: no evaluation starts once it is spent (its
    /// deadline, cancel token, or nodes counted over all evaluations), and
    /// each evaluation's exhaustive phase stops at it too.
    pub budget: Budget,
}

impl Default for GeneticOptions {
    fn default() -> Self {
        GeneticOptions {
            population: 30,
            offspring: 70,
            restarts: 50,
            threshold: 11,
            max_weight: 10,
            mutation: 0.0,
            seed: 1,
            budget: Budget::unlimited(),
        }
    }
}

/// One evaluated candidate.
#[derive(Clone, Debug)]
pub struct Candidate<M> {
    /// Weights per class.
    pub weights: Vec<u32>,
    /// Negated distance of the best position found from the goal.
    pub fitness: i64,
    /// The evaluation game: guided moves then the exhaustive line.
    pub line: Vec<M>,
}

/// What the genetic search found.
#[derive(Clone, Debug)]
pub struct GeneticReport<M> {
    /// The best candidate seen (its line solves when `fitness == 0`).
    pub best: Candidate<M>,
    /// Whether a goal was reached.
    pub solved: bool,
    /// Candidates evaluated in all.
    pub evaluations: u64,
    /// Runs started (1 + restarts used).
    pub runs: usize,
    /// Offspring made in the successful run before the solution (0 if the
    /// initial population solved it).
    pub generation: usize,
    /// Positions expanded by the exhaustive phases.
    pub expansions: u64,
    /// Whether the budget ended the search (unsolved, best so far).
    pub stopped: bool,
}

/// Evaluates one weight vector: the guided game, then exhaustive search
/// (within `budget`).
pub fn evaluate<P: WeightGuided>(
    puzzle: &P,
    weights: &[u32],
    threshold: u32,
    budget: &Budget,
) -> (Candidate<P::Move>, u64) {
    let mut pos = puzzle.start();
    let mut line = Vec::new();
    while puzzle.score(&pos) > threshold && !puzzle.is_goal(&pos) {
        let mut best: Option<(i64, P::Move, P::Position)> = None;
        puzzle.for_each_move(&pos, |m| {
            let child = puzzle.play_unchecked(&pos, m);
            let w = puzzle.weighted_total(&child, weights);
            if best.as_ref().is_none_or(|b| w > b.0) {
                best = Some((w, m, child));
            }
        });
        let Some((_, m, child)) = best else { break };
        line.push(m);
        pos = child;
    }
    let report = dfs::best_by(
        puzzle,
        &pos,
        &DfsOptions {
            use_pruning: false,
            budget: budget.clone(),
            ..DfsOptions::default()
        },
        |p| puzzle.goal_distance(p),
        0,
    );
    line.extend(report.line);
    (
        Candidate {
            weights: weights.to_vec(),
            fitness: -(report.best_score as i64),
            line,
        },
        report.expansions,
    )
}

/// Runs the genetic search.
pub fn search<P: WeightGuided>(puzzle: &P, opts: &GeneticOptions) -> GeneticReport<P::Move> {
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let k = puzzle.class_count();
    let mut evaluations = 0u64;
    let mut expansions = 0u64;
    let mut overall: Option<Candidate<P::Move>> = None;
    let pop_size = opts.population.max(2);
    // The budget left after `used` expansions, for the next evaluation.
    let left = |used: u64| Budget {
        nodes: opts.budget.nodes_left(used),
        ..opts.budget.clone()
    };
    let spent = |used: u64| opts.budget.stop() || left(used).nodes == Some(0);
    let mut runs = 0;
    for run in 0..opts.restarts.max(1) {
        if spent(expansions) {
            break;
        }
        runs = run + 1;
        let budget = left(expansions);
        let genomes: Vec<Vec<u32>> = (0..pop_size)
            .map(|_| (0..k).map(|_| rng.gen_range(1..=opts.max_weight)).collect())
            .collect();
        // Evaluation is deterministic, so the initial population can be
        // evaluated in parallel without affecting reproducibility.
        let evaluated: Vec<(Candidate<P::Move>, u64)> = genomes
            .par_iter()
            .map(|g| evaluate(puzzle, g, opts.threshold, &budget))
            .collect();
        evaluations += evaluated.len() as u64;
        let mut pop: Vec<Candidate<P::Move>> = Vec::with_capacity(pop_size + 1);
        for (c, e) in evaluated {
            expansions += e;
            insert_sorted(&mut pop, c);
        }
        let mut generation = 0;
        while pop[0].fitness < 0 && generation < opts.offspring && !spent(expansions) {
            generation += 1;
            let a = pick(&mut rng, pop.len(), None);
            let b = pick(&mut rng, pop.len(), Some(a));
            let weights: Vec<u32> = (0..k)
                .map(|i| {
                    if opts.mutation > 0.0 && rng.gen_bool(opts.mutation.min(1.0)) {
                        rng.gen_range(1..=opts.max_weight)
                    } else if rng.gen_bool(0.5) {
                        pop[a].weights[i]
                    } else {
                        pop[b].weights[i]
                    }
                })
                .collect();
            let (c, e) = evaluate(puzzle, &weights, opts.threshold, &left(expansions));
            evaluations += 1;
            expansions += e;
            insert_sorted(&mut pop, c);
            pop.pop();
        }
        let best = pop.swap_remove(0);
        let solved = best.fitness == 0;
        if overall.as_ref().is_none_or(|o| best.fitness > o.fitness) {
            overall = Some(best);
        }
        if solved {
            return GeneticReport {
                best: overall.expect("set above"),
                solved: true,
                evaluations,
                runs: run + 1,
                generation,
                expansions,
                stopped: false,
            };
        }
    }
    let stopped = spent(expansions);
    let best = overall.unwrap_or_else(|| {
        // Stopped before the first evaluation: the start as it is.
        let (mut c, _) = evaluate(puzzle, &vec![1; k], u32::MAX, &Budget::unlimited());
        c.line.clear();
        c
    });
    GeneticReport {
        best,
        solved: false,
        evaluations,
        runs,
        generation: if stopped { 0 } else { opts.offspring },
        expansions,
        stopped,
    }
}

/// Inserts keeping the population sorted best first (stable: a newcomer
/// goes after equals).
fn insert_sorted<M>(pop: &mut Vec<Candidate<M>>, c: Candidate<M>) {
    let at = pop.partition_point(|x| x.fitness >= c.fitness);
    pop.insert(at, c);
}

/// Rank-biased choice: index `i` has weight `n - i` (the fittest most).
fn pick(rng: &mut ChaCha8Rng, n: usize, not: Option<usize>) -> usize {
    loop {
        let total = n * (n + 1) / 2;
        let mut r = rng.gen_range(0..total);
        let mut i = 0;
        while r >= n - i {
            r -= n - i;
            i += 1;
        }
        if Some(i) != not {
            return i;
        }
    }
}
