//! The symmetry of Sim: the n! relabellings of the points (the
//! [`Symmetric`] and [`Keyed`] impls of [`Sim`]) and the exact canonical
//! form of a position under them.
//!
//! erik's Cassis article (*The best AI for cassis*) sorted points by degree,
//! which merges many isomorphic boards but not all (his note: "not exact").
//! Here:
//!
//! 1. **Colour refinement**: each point starts with the colour (red degree,
//!    blue degree); a point's next colour is its colour plus how many red
//!    and how many blue neighbours it has of every colour, until no class
//!    splits. The colours are ranks of these signatures, so the ordered
//!    partition depends only on the isomorphism class.
//! 2. **Search over the ties**: the points are placed in colour order; the
//!    image is read column by column of the upper triangle of the
//!    adjacency matrix (segment `(j, k)` for `j < k`, k outer), so each
//!    placement appends the segments to the points already placed. The
//!    least code over every placement consistent with the partition is the
//!    canonical form: a branch stops as soon as its prefix exceeds the
//!    best code's prefix.
//! 3. **Twins**: two candidates with the same colour to every other point
//!    differ by an automorphism that fixes every point already placed, so
//!    only the first of them is tried. This makes the empty board, stars,
//!    matchings and the like cost one path instead of n!.
//!
//! The minimum is taken over a set of relabellings that only depends on
//! the isomorphism class, so the result is exact; the tests compare it with
//! the minimum over all n! relabellings.

use crate::game::{Sim, SimPos, MAX_N};
use endgame_core::strong::Keyed;
use endgame_core::Symmetric;

/// Code of the segment between two points: 0 red, 1 blue, 2 uncoloured.
/// Uncoloured last makes the least reading put the coloured segments on
/// the first points, so the canonical form's segment order tries moves
/// near the action first (it matters to the weak solve's cut-offs).
#[inline]
fn colour(red: &[u8; MAX_N], blue: &[u8; MAX_N], v: usize, w: usize) -> u64 {
    2 - (2 * ((red[v] >> w) & 1) + ((blue[v] >> w) & 1)) as u64
}

/// Ranks `sig` in place: equal signatures get equal ranks, ranks follow
/// the signatures' order. Returns the number of distinct ranks.
fn rank(sig: &[u64; MAX_N], n: usize, col: &mut [u8; MAX_N]) -> usize {
    let mut sorted = *sig;
    sorted[..n].sort_unstable();
    let mut distinct = 0;
    let mut uniq = [0u64; MAX_N];
    for (i, &s) in sorted[..n].iter().enumerate() {
        if i == 0 || s != sorted[i - 1] {
            uniq[distinct] = s;
            distinct += 1;
        }
    }
    for v in 0..n {
        col[v] = uniq[..distinct]
            .iter()
            .position(|&u| u == sig[v])
            .expect("every signature is among the sorted ones") as u8;
    }
    distinct
}

/// The stable colour-refinement colouring of the points.
pub(crate) fn refine(n: usize, red: &[u8; MAX_N], blue: &[u8; MAX_N]) -> ([u8; MAX_N], usize) {
    let mut sig = [0u64; MAX_N];
    for v in 0..n {
        sig[v] = (red[v].count_ones() * 8 + blue[v].count_ones()) as u64;
    }
    let mut col = [0u8; MAX_N];
    let mut classes = rank(&sig, n, &mut col);
    while classes < n {
        for v in 0..n {
            // Counts of red and blue neighbours per colour, 3 bits each.
            let (mut r, mut b) = (0u64, 0u64);
            let mut m = red[v];
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                r += 1 << (3 * col[u] as u64);
            }
            let mut m = blue[v];
            while m != 0 {
                let u = m.trailing_zeros() as usize;
                m &= m - 1;
                b += 1 << (3 * col[u] as u64);
            }
            sig[v] = (col[v] as u64) << 48 | r << 24 | b;
        }
        let next = rank(&sig, n, &mut col);
        if next == classes {
            break;
        }
        classes = next;
    }
    (col, classes)
}

struct Search {
    n: usize,
    red: [u8; MAX_N],
    blue: [u8; MAX_N],
    col: [u8; MAX_N],
    slot_col: [u8; MAX_N],
    placed: [u8; MAX_N],
    used: u8,
    best: u64,
    have_best: bool,
    best_placed: [u8; MAX_N],
    total_bits: u32,
}

impl Search {
    fn twins(&self, u: usize, v: usize) -> bool {
        let m = !((1u8 << u) | (1u8 << v));
        self.red[u] & m == self.red[v] & m && self.blue[u] & m == self.blue[v] & m
    }

    fn rec(&mut self, k: usize, code: u64) {
        if k == self.n {
            if !self.have_best || code < self.best {
                self.best = code;
                self.have_best = true;
                self.best_placed = self.placed;
            }
            return;
        }
        let c = self.slot_col[k];
        let bits = (k * (k + 1)) as u32; // 2 bits per segment placed so far
        let mut tried = [0u8; MAX_N];
        let mut ntried = 0;
        for v in 0..self.n {
            if self.used >> v & 1 == 1 || self.col[v] != c {
                continue;
            }
            if tried[..ntried].iter().any(|&u| self.twins(u as usize, v)) {
                continue;
            }
            tried[ntried] = v as u8;
            ntried += 1;
            let mut nc = code;
            for j in 0..k {
                nc = nc << 2 | colour(&self.red, &self.blue, v, self.placed[j] as usize);
            }
            if self.have_best && bits > 0 && nc > self.best >> (self.total_bits - bits) {
                continue;
            }
            self.placed[k] = v as u8;
            self.used |= 1 << v;
            self.rec(k + 1, nc);
            self.used &= !(1 << v);
        }
    }
}

/// The relabelling to the canonical form: point `v` becomes `perm[v]`.
pub fn canonical_perm(sim: &Sim, pos: &SimPos) -> [u8; MAX_N] {
    let n = sim.n();
    let (red, blue) = sim.adjacency(pos);
    let (col, classes) = refine(n, &red, &blue);
    let mut perm = [0u8; MAX_N];
    let mut slot_col = [0u8; MAX_N];
    let mut order: [u8; MAX_N] = [0, 1, 2, 3, 4, 5, 6, 7];
    // Highest colours (most red, then most blue segments) on the first
    // points, as the degree sort of erik's Cassis article does: the
    // canonical form then lists the moves near the coloured segments first.
    order[..n].sort_by_key(|&v| std::cmp::Reverse(col[v as usize]));
    for (k, &v) in order[..n].iter().enumerate() {
        slot_col[k] = col[v as usize];
    }
    if classes == n {
        // Discrete partition: the colour order is the only placement.
        for (k, &v) in order[..n].iter().enumerate() {
            perm[v as usize] = k as u8;
        }
        return perm;
    }
    let mut s = Search {
        n,
        red,
        blue,
        col,
        slot_col,
        placed: [0; MAX_N],
        used: 0,
        best: 0,
        have_best: false,
        best_placed: [0; MAX_N],
        total_bits: (n * (n - 1)) as u32,
    };
    s.rec(0, 0);
    for (k, &v) in s.best_placed[..n].iter().enumerate() {
        perm[v as usize] = k as u8;
    }
    perm
}

/// The canonical form of `pos` (convenience for [`canonical_perm`]).
pub fn canonical(sim: &Sim, pos: &SimPos) -> SimPos {
    sim.relabel(pos, &canonical_perm(sim, pos))
}

/// The approximate normal form of erik's Cassis article: points sorted by
/// (red degree, blue degree), ties in label order. Isomorphic boards often
/// but not always get the same form; kept to compare with the exact one.
pub fn degree_sorted(sim: &Sim, pos: &SimPos) -> SimPos {
    let n = sim.n();
    let (red, blue) = sim.adjacency(pos);
    let mut order: [u8; MAX_N] = [0, 1, 2, 3, 4, 5, 6, 7];
    // Highest degrees first, as the article describes.
    order[..n].sort_by_key(|&v| {
        let v = v as usize;
        std::cmp::Reverse((red[v].count_ones(), blue[v].count_ones()))
    });
    let mut perm = [0u8; MAX_N];
    for (k, &v) in order[..n].iter().enumerate() {
        perm[v as usize] = k as u8;
    }
    sim.relabel(pos, &perm)
}

impl Sim {
    /// The canonical form with the relabelling that produces it.
    pub fn canonical_with_perm(&self, pos: &SimPos) -> (SimPos, [u8; MAX_N]) {
        let perm = canonical_perm(self, pos);
        (self.relabel(pos, &perm), perm)
    }
}

/// Decodes symmetry number `i` (`0 <= i < n!`) as a permutation by its
/// Lehmer code; 0 is the identity.
fn nth_perm(n: usize, mut i: usize) -> [u8; MAX_N] {
    let mut avail: Vec<u8> = (0..n as u8).collect();
    let mut perm = [0u8; MAX_N];
    let mut fact: usize = (1..n).product();
    for (k, p) in perm.iter_mut().enumerate().take(n) {
        let d = i / fact.max(1);
        i %= fact.max(1);
        *p = avail.remove(d);
        if k + 1 < n {
            fact /= n - 1 - k;
        }
    }
    perm
}

impl Symmetric for Sim {
    fn symmetry_count(&self) -> usize {
        (1..=self.n()).product()
    }

    fn apply_symmetry(&self, i: usize, pos: &SimPos) -> SimPos {
        self.relabel(pos, &nth_perm(self.n(), i))
    }

    fn canonical(&self, pos: &SimPos) -> SimPos {
        self.canonical_with_perm(pos).0
    }

    /// The exact canonical form (not the least image) with the orbit size,
    /// counted over the n! relabellings (slow for n = 8: 40320 images).
    fn canonical_and_orbit(&self, pos: &SimPos) -> (SimPos, u32) {
        (self.canonical(pos), self.orbit_size(pos))
    }
}

impl Keyed for Sim {
    fn canonical_key(&self, pos: &SimPos) -> SimPos {
        self.canonical_with_perm(pos).0
    }

    fn move_number(&self, pos: &SimPos) -> usize {
        pos.coloured() as usize
    }
}
