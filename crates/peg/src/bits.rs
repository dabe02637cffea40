//! Bitboards: one bit per hole, in `u64` (up to 64 holes) or `u128`.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// The operations the peg-solitaire code needs from a bitboard word.
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Hash
    + Debug
    + Default
    + Send
    + Sync
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + 'static
{
    /// Number of bits (holes) the word can hold.
    const CAPACITY: usize;
    /// No bits set.
    const ZERO: Self;
    /// The word with only bit `i` set.
    fn bit(i: usize) -> Self;
    /// Whether bit `i` is set.
    fn has(self, i: usize) -> bool;
    /// Number of set bits.
    fn count(self) -> u32;
    /// The word shifted right by `n` bits, truncated to 64 bits.
    fn low_u64(self, n: usize) -> u64;
    /// Iterates over the indices of the set bits, lowest first.
    fn ones(self) -> Ones<Self> {
        Ones(self)
    }
    /// Clears the lowest set bit, returning its index.
    fn pop_lowest(&mut self) -> Option<usize>;
    /// Shift towards higher bits (`n` below the capacity).
    fn shl(self, n: usize) -> Self;
    /// Shift towards lower bits (`n` below the capacity).
    fn shr(self, n: usize) -> Self;
    /// Bits `8k .. 8k+8` as a byte.
    fn byte(self, k: usize) -> usize;
    /// The word whose low 64 bits are `x` (the rest clear).
    fn from_low_u64(x: u64) -> Self;
}

/// Iterator over set bits.
pub struct Ones<B>(B);

impl<B: Bits> Iterator for Ones<B> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.0.pop_lowest()
    }
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const CAPACITY: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            #[inline]
            fn bit(i: usize) -> Self {
                1 << i
            }
            #[inline]
            fn has(self, i: usize) -> bool {
                (self >> i) & 1 == 1
            }
            #[inline]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline]
            fn low_u64(self, n: usize) -> u64 {
                if n >= Self::CAPACITY {
                    0
                } else {
                    (self >> n) as u64
                }
            }
            #[inline]
            fn shl(self, n: usize) -> Self {
                self << n
            }
            #[inline]
            fn shr(self, n: usize) -> Self {
                self >> n
            }
            #[inline]
            fn byte(self, k: usize) -> usize {
                ((self >> (8 * k)) & 0xff) as usize
            }
            #[inline]
            fn from_low_u64(x: u64) -> Self {
                x as Self
            }
            #[inline]
            fn pop_lowest(&mut self) -> Option<usize> {
                if *self == 0 {
                    None
                } else {
                    let i = self.trailing_zeros() as usize;
                    *self &= *self - 1;
                    Some(i)
                }
            }
        }
    };
}

impl_bits!(u64);
impl_bits!(u128);
