//! What the canonical-form and published-number tests share: every
//! relabelling of n points, and Burnside's count of colourings.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::collections::HashSet;

/// Every permutation of `0..n`.
pub fn all_perms(n: usize) -> Vec<Vec<usize>> {
    fn rec(n: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for v in 0..n {
            if !cur.contains(&v) {
                cur.push(v);
                rec(n, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    rec(n, &mut Vec::new(), &mut out);
    out
}

/// Burnside: the number of edge colourings of K_n with 3 colours up to
/// relabelling, averaging 3^(cycles on segments) over all n! relabellings.
pub fn burnside(n: usize) -> u64 {
    let perms = all_perms(n);
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            pairs.push((i, j));
        }
    }
    let mut sum: u64 = 0;
    for p in &perms {
        let mut seen = HashSet::new();
        let mut cycles = 0;
        for &(i, j) in &pairs {
            if seen.contains(&(i, j)) {
                continue;
            }
            cycles += 1;
            let (mut a, mut b) = (i, j);
            while seen.insert((a.min(b), a.max(b))) {
                (a, b) = (p[a], p[b]);
            }
        }
        sum += 3u64.pow(cycles);
    }
    sum / perms.len() as u64
}
