//! Rotation states and sets of them: a state is the quarter turns each
//! quadrant has made since the root (4⁴ = 256); the states of one parity
//! fit in 128 bits ([`Half`]), and the union of a set's images under the
//! 8 rotations is a fixed bit permutation ([`spread`]).

/// A set of rotation states of one parity: bit `r0 + 4·r1 + 16·r2` of word
/// `h`, where `r0..r2` are the quarter turns of quadrants 0..2 and the
/// turns of quadrant 3 are `2h + l`, `l` fixed by the parity.
pub type Half = [u64; 2];

/// A rotation state: clockwise quarter turns (0..4) of each quadrant, in
/// the notation's quadrant order.
pub type State = [u8; 4];

/// Where state `r` lives: its parity, word and bit.
#[inline]
pub fn locate(r: State) -> (usize, usize, u32) {
    let r = r.map(|v| v & 3);
    let parity = ((r[0] + r[1] + r[2] + r[3]) & 1) as usize;
    let bit = (r[0] + 4 * r[1] + 16 * r[2]) as u32;
    (parity, (r[3] >> 1) as usize, bit)
}

/// The state stored at `bit` (0..128) of a [`Half`] of `parity`.
pub fn state_at(parity: usize, bit: u32) -> State {
    let r0 = (bit & 3) as u8;
    let r1 = ((bit >> 2) & 3) as u8;
    let r2 = ((bit >> 4) & 3) as u8;
    let h = (bit >> 6) as u8;
    let l = (parity as u8 ^ r0 ^ r1 ^ r2) & 1;
    [r0, r1, r2, 2 * h + l]
}

/// Whether `set` (of the parity of `r`) holds state `r`.
#[inline]
pub(super) fn has(set: &Half, r: State) -> bool {
    let (_, w, b) = locate(r);
    set[w] >> b & 1 != 0
}

/// The union, over the 8 moves "turn quadrant q a quarter either way",
/// of the images of `set`: the states one rotation away from a state in
/// `set` (a set of the other parity). Quadrants 0..2 are 2-bit fields of
/// the bit index, turned by shifts within nibbles, 16-bit lanes and the
/// word; a turn of quadrant 3 moves a state between the two words or
/// keeps it, the two directions doing one each, so their union is the OR
/// of the words.
#[inline(always)]
pub fn spread(set: Half) -> Half {
    let both = set[0] | set[1];
    set.map(|w| {
        let q0 = ((w << 1) & 0xeeee_eeee_eeee_eeee)
            | ((w >> 3) & 0x1111_1111_1111_1111)
            | ((w >> 1) & 0x7777_7777_7777_7777)
            | ((w << 3) & 0x8888_8888_8888_8888);
        let q1 = ((w << 4) & 0xfff0_fff0_fff0_fff0)
            | ((w >> 12) & 0x000f_000f_000f_000f)
            | ((w >> 4) & 0x0fff_0fff_0fff_0fff)
            | ((w << 12) & 0xf000_f000_f000_f000);
        let q2 = w.rotate_left(16) | w.rotate_right(16);
        q0 | q1 | q2 | both
    })
}

/// Both parities' halves of a set of all 256 states.
pub(super) type Full = [Half; 2];

/// A [`Full`] inside one cache line (a plain one, 8-byte aligned, would
/// straddle two lines three times in four; 32-byte alignment never does,
/// and keeps a table of them half the size of one a line each, which
/// matters once the tables outgrow the second-level cache).
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct Line(pub(super) Full);

/// The union of two sets of states.
#[inline(always)]
pub(super) fn or(a: Half, b: Half) -> Half {
    [a[0] | b[0], a[1] | b[1]]
}
