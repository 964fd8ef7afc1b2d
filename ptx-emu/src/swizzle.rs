//! Shared-memory swizzling: the permutation of 16-byte chunks that TMA
//! copies write and the tensor cores' matrix descriptors read (PTX ISA,
//! "Shared Memory Matrix Layout" and the matrix-descriptor swizzle modes;
//! CUDA's `CU_TENSOR_MAP_SWIZZLE_*`).
//!
//! A mode of `T` bytes (32, 64 or 128) works on the shared address itself:
//! within each `T`-byte row of a repeating pattern of 8 such rows, the
//! 16-byte chunk index (address bits 4 and up, `log2(T / 16)` of them) is
//! XORed with the row's index in the pattern (address bits 7 and up, as
//! many). So chunk `c` of row `r` of a 128-byte pattern lands in chunk
//! `c ^ (r % 8)`; a 64-byte pattern (512 bytes) uses two bits of each, a
//! 32-byte one (256 bytes) one. Since the address decides, a tile must
//! start on a whole pattern (1024, 512 or 256 bytes) for its first row to
//! be row 0, which is why such tiles are `.align 1024`. The permutation is
//! its own inverse, and the writer (TMA) and the reader (the MMA) apply the
//! same one, so a program never sees it unless it reads the tile with plain
//! loads.

/// A swizzle mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Swizzle {
    #[default]
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// The mode whose rows are `bytes` long (0: none).
    pub fn from_bytes(bytes: u32) -> Option<Swizzle> {
        Some(match bytes {
            0 => Swizzle::None,
            32 => Swizzle::B32,
            64 => Swizzle::B64,
            128 => Swizzle::B128,
            _ => return None,
        })
    }

    /// The bytes of one row of the pattern (0 for none).
    pub fn bytes(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// How many address bits are XORed: `log2(bytes / 16)`.
    fn bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }

    /// The shared address where the byte a dense layout puts at `addr`
    /// lies under this mode.
    pub fn apply(self, addr: u64) -> u64 {
        let mask = (1u64 << self.bits()) - 1;
        addr ^ (((addr >> 7) & mask) << 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 128-byte pattern: chunk `c` of row `r` goes to chunk `c ^ r`
    /// (the table of the CUDA guide's TMA swizzle section), byte order
    /// within a chunk kept, and rows never leave their place.
    #[test]
    fn the_128_byte_pattern_moves_chunk_c_of_row_r_to_c_xor_r() {
        for r in 0..8u64 {
            for c in 0..8u64 {
                for b in [0, 5, 15] {
                    let dense = 1024 * 3 + 128 * r + 16 * c + b;
                    assert_eq!(
                        Swizzle::B128.apply(dense),
                        1024 * 3 + 128 * r + 16 * (c ^ r) + b
                    );
                }
            }
        }
    }

    /// 64 and 32 bytes: the chunk index within a row of `T` bytes is XORed
    /// with the low bits of the 128-byte line's index, and each mode is a
    /// permutation of its pattern that undoes itself.
    #[test]
    fn narrower_patterns_permute_chunks_within_their_rows() {
        assert_eq!(Swizzle::B64.apply(128 * 3 + 16), 128 * 3 + 16 * (1 ^ 3));
        assert_eq!(Swizzle::B64.apply(128 * 5 + 48), 128 * 5 + 16 * (3 ^ 1));
        assert_eq!(Swizzle::B32.apply(128 + 16), 128);
        assert_eq!(Swizzle::B32.apply(256 + 16), 256 + 16);
        for mode in [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            let mut seen = vec![false; 2048];
            for a in 0..2048u64 {
                let s = mode.apply(a);
                assert_eq!(mode.apply(s), a);
                assert!(!seen[s as usize]);
                seen[s as usize] = true;
            }
        }
    }
}
