//! The rules of Sim on K_n and its notation. Its symmetry group (the
//! relabellings of the points) and canonical forms are in [`crate::canon`].

use crate::SimError;
use endgame_core::{Game, Notation, Rules, Value};

/// The smallest supported number of points.
pub const MIN_N: usize = 3;
/// The largest supported number of points (28 segments fit a `u32` mask).
pub const MAX_N: usize = 8;

/// A position: the red and the blue segments as bit masks over the
/// segment indices (lexicographic order `ab, ac, …, bc, …`). Whose turn
/// it is follows from the counts: red when they are equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimPos {
    /// Red segments.
    pub red: u32,
    /// Blue segments.
    pub blue: u32,
}

impl SimPos {
    /// Segments coloured so far (the move number).
    pub fn coloured(&self) -> u32 {
        (self.red | self.blue).count_ones()
    }

    /// Whether red is to move.
    pub fn red_to_move(&self) -> bool {
        self.red.count_ones() == self.blue.count_ones()
    }
}

/// A move: the index of the segment to colour (lexicographic order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Segment(pub u8);

/// Sim on K_n, standard or misère.
#[derive(Clone, Debug)]
pub struct Sim {
    n: usize,
    misere: bool,
    /// Endpoints of each segment.
    ends: Vec<(u8, u8)>,
    /// Segment index of each pair of points (both orders).
    index: [[u8; MAX_N]; MAX_N],
    /// For each segment, the pairs of other segments that close a
    /// triangle with it, as masks.
    closers: Vec<Vec<u32>>,
    /// Every triangle as a mask of its three segments.
    triangles: Vec<u32>,
}

impl Sim {
    /// Sim on K_n; `misere` makes completing your own triangle a win.
    pub fn new(n: usize, misere: bool) -> Result<Sim, SimError> {
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(SimError::BadN(n));
        }
        let mut ends = Vec::new();
        let mut index = [[u8::MAX; MAX_N]; MAX_N];
        #[allow(clippy::needless_range_loop)] // both index[i][j] and index[j][i]
        for i in 0..n {
            for j in i + 1..n {
                index[i][j] = ends.len() as u8;
                index[j][i] = ends.len() as u8;
                ends.push((i as u8, j as u8));
            }
        }
        let bit = |i: usize, j: usize| 1u32 << index[i][j];
        let closers = ends
            .iter()
            .map(|&(i, j)| {
                let (i, j) = (i as usize, j as usize);
                (0..n)
                    .filter(|&k| k != i && k != j)
                    .map(|k| bit(i, k) | bit(j, k))
                    .collect()
            })
            .collect();
        let mut triangles = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    triangles.push(bit(i, j) | bit(i, k) | bit(j, k));
                }
            }
        }
        Ok(Sim {
            n,
            misere,
            ends,
            index,
            closers,
            triangles,
        })
    }

    /// The standard game on six points.
    pub fn k6() -> Sim {
        Sim::new(6, false).expect("6 is supported")
    }

    /// The number of points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Whether the misère rule is in force.
    pub fn misere(&self) -> bool {
        self.misere
    }

    /// The number of segments, C(n, 2).
    pub fn segments(&self) -> usize {
        self.ends.len()
    }

    /// The mask of every segment.
    pub fn full(&self) -> u32 {
        ((1u64 << self.ends.len()) - 1) as u32
    }

    /// The two points of segment `s`.
    pub fn ends(&self, s: Segment) -> (usize, usize) {
        let (i, j) = self.ends[s.0 as usize];
        (i as usize, j as usize)
    }

    /// The segment between points `i` and `j` (distinct, `< n`).
    pub fn segment(&self, i: usize, j: usize) -> Segment {
        Segment(self.index[i][j])
    }

    /// Whether `mask` contains a triangle.
    pub fn has_triangle(&self, mask: u32) -> bool {
        self.triangles.iter().any(|&t| t & !mask == 0)
    }

    /// Whether adding segment `s` to `mask` closes a triangle in `mask`.
    pub fn closes_triangle(&self, mask: u32, s: Segment) -> bool {
        self.closers[s.0 as usize].iter().any(|&c| c & !mask == 0)
    }

    /// The segments of the player to move and of the other player.
    pub fn sides(&self, pos: &SimPos) -> (u32, u32) {
        if pos.red_to_move() {
            (pos.red, pos.blue)
        } else {
            (pos.blue, pos.red)
        }
    }

    /// Point adjacency masks per colour: bit `j` of `red[i]` when segment
    /// `ij` is red.
    pub fn adjacency(&self, pos: &SimPos) -> ([u8; MAX_N], [u8; MAX_N]) {
        let (mut red, mut blue) = ([0u8; MAX_N], [0u8; MAX_N]);
        for (mask, adj) in [(pos.red, &mut red), (pos.blue, &mut blue)] {
            let mut m = mask;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                let (i, j) = self.ends[s];
                adj[i as usize] |= 1 << j;
                adj[j as usize] |= 1 << i;
            }
        }
        (red, blue)
    }

    /// The position with its points relabelled: point `v` becomes
    /// `perm[v]`.
    pub fn relabel(&self, pos: &SimPos, perm: &[u8]) -> SimPos {
        let map = |mask: u32| {
            let mut out = 0u32;
            let mut m = mask;
            while m != 0 {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                let (i, j) = self.ends[s];
                out |= 1 << self.index[perm[i as usize] as usize][perm[j as usize] as usize];
            }
            out
        };
        SimPos {
            red: map(pos.red),
            blue: map(pos.blue),
        }
    }

    /// Checks that `pos` can arise in a game (red first, alternating, the
    /// game ending at the first triangle).
    pub fn validate(&self, pos: &SimPos) -> Result<(), SimError> {
        let (r, b) = (pos.red.count_ones(), pos.blue.count_ones());
        if pos.red & pos.blue != 0
            || (pos.red | pos.blue) & !self.full() != 0
            || !(r == b || r == b + 1)
        {
            return Err(SimError::ImpossibleCounts { red: r, blue: b });
        }
        let (rt, bt) = (self.has_triangle(pos.red), self.has_triangle(pos.blue));
        if rt && bt {
            return Err(SimError::BothTriangles);
        }
        let (mask, name, last) = match (rt, bt) {
            (true, _) => (pos.red, "red", r == b + 1),
            (_, true) => (pos.blue, "blue", r == b),
            _ => return Ok(()),
        };
        if !last {
            return Err(SimError::Unreachable(format!(
                "{name} has a triangle but did not make the last move: the game ends at the first triangle"
            )));
        }
        // The last move must have completed every triangle of its colour.
        let mut m = mask;
        while m != 0 {
            let s = m & m.wrapping_neg();
            m &= m - 1;
            if !self.has_triangle(mask & !s) {
                return Ok(());
            }
        }
        Err(SimError::Unreachable(format!(
            "{name}'s triangles cannot all have been completed by one last move"
        )))
    }
}

impl Rules for Sim {
    type Position = SimPos;
    type Move = Segment;

    fn start(&self) -> SimPos {
        SimPos::default()
    }

    fn for_each_move(&self, pos: &SimPos, mut f: impl FnMut(Segment)) {
        if self.outcome(pos).is_some() {
            return;
        }
        let mut free = self.full() & !(pos.red | pos.blue);
        while free != 0 {
            f(Segment(free.trailing_zeros() as u8));
            free &= free - 1;
        }
    }

    fn play_unchecked(&self, pos: &SimPos, mv: Segment) -> SimPos {
        let bit = 1u32 << mv.0;
        if pos.red_to_move() {
            SimPos {
                red: pos.red | bit,
                blue: pos.blue,
            }
        } else {
            SimPos {
                red: pos.red,
                blue: pos.blue | bit,
            }
        }
    }

    fn is_legal(&self, pos: &SimPos, mv: Segment) -> bool {
        (mv.0 as usize) < self.segments()
            && (pos.red | pos.blue) >> mv.0 & 1 == 0
            && self.outcome(pos).is_none()
    }
}

impl Game for Sim {
    fn outcome(&self, pos: &SimPos) -> Option<Value> {
        // Only the player who just moved can own a triangle.
        let last = if pos.red_to_move() { pos.blue } else { pos.red };
        if self.has_triangle(last) {
            // Standard: the last mover lost, so the player to move won.
            return Some(if self.misere { Value::Loss } else { Value::Win });
        }
        ((pos.red | pos.blue) == self.full()).then_some(Value::Draw)
    }
}

impl Notation for Sim {
    type Error = SimError;

    fn format_move(&self, mv: Segment) -> String {
        let (i, j) = self.ends(mv);
        [(b'a' + i as u8) as char, (b'a' + j as u8) as char]
            .iter()
            .collect()
    }

    fn parse_move(&self, s: &str) -> Result<Segment, SimError> {
        let t = s.trim();
        let pts: Vec<usize> = t
            .chars()
            .map(|c| (c.to_ascii_lowercase() as usize).wrapping_sub('a' as usize))
            .collect();
        match pts[..] {
            [i, j] if i < self.n && j < self.n && i != j => Ok(self.segment(i, j)),
            _ => Err(SimError::BadMove(s.to_string())),
        }
    }

    fn format_position(&self, pos: &SimPos) -> String {
        (0..self.segments())
            .map(|s| {
                if pos.red >> s & 1 == 1 {
                    'r'
                } else if pos.blue >> s & 1 == 1 {
                    'b'
                } else {
                    '.'
                }
            })
            .collect()
    }

    fn parse_position(&self, s: &str) -> Result<SimPos, SimError> {
        let s = s.trim();
        let len = s.chars().count();
        if len != self.segments() {
            return Err(SimError::WrongLength {
                expected: format!("{} for K{}", self.segments(), self.n),
                got: len,
            });
        }
        let mut pos = SimPos::default();
        for (i, c) in s.chars().enumerate() {
            match c {
                '.' => {}
                'r' | 'R' => pos.red |= 1 << i,
                'b' | 'B' => pos.blue |= 1 << i,
                ch => return Err(SimError::UnknownChar { ch, index: i }),
            }
        }
        self.validate(&pos)?;
        Ok(pos)
    }
}

/// The number of points whose K_n has `segments` segments, if supported.
pub fn n_for_length(segments: usize) -> Option<usize> {
    (MIN_N..=MAX_N).find(|n| n * (n - 1) / 2 == segments)
}

impl Sim {
    /// Parses a position string, inferring n from its length.
    pub fn parse_any(s: &str, misere: bool) -> Result<(Sim, SimPos), SimError> {
        let len = s.trim().chars().count();
        let n = n_for_length(len).ok_or_else(|| SimError::WrongLength {
            expected: "3, 6, 10, 15, 21 or 28 (K3 … K8)".into(),
            got: len,
        })?;
        let sim = Sim::new(n, misere)?;
        let pos = sim.parse_position(s)?;
        Ok((sim, pos))
    }

    /// Plays a move given in notation, with a clear error when illegal.
    pub fn play_text(&self, pos: &SimPos, mv: &str) -> Result<SimPos, SimError> {
        let m = self.parse_move(mv)?;
        if self.outcome(pos).is_some() {
            return Err(SimError::IllegalMove(
                self.format_move(m),
                "the game is over".into(),
            ));
        }
        if !self.is_legal(pos, m) {
            return Err(SimError::IllegalMove(
                self.format_move(m),
                "that segment is already coloured".into(),
            ));
        }
        Ok(self.play_unchecked(pos, m))
    }
}
