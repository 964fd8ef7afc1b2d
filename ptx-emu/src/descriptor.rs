//! The tensor cores' descriptors: the 64-bit shared-memory matrix
//! descriptors of `wgmma` and `tcgen05.mma`, and `tcgen05.mma`'s 32-bit
//! instruction descriptor (PTX ISA, "Matrix Descriptor Format",
//! "Shared memory descriptor" and "Instruction descriptor").
//!
//! A matrix descriptor holds, each without its low 4 bits, the start
//! address (bits 0-13), the leading byte offset (16-29) and the stride
//! byte offset (32-45), then the swizzle mode: bits 62-63 for `wgmma`
//! (0 none, 1 128B, 2 64B, 3 32B), bits 61-63 for `tcgen05` (0 none, 2 128B,
//! 4 64B, 6 32B; 1, 128B with 32-byte atoms, is not modelled), which also
//! has a version (bits 46-48, 1), a base offset (49-51) and a leading-offset
//! mode (52), both 0 in the canonical layouts modelled here.
//!
//! Both operands are K-major (each row of A, M x K, and of B, N x K, runs
//! along K). Without swizzle the tile is made of core matrices of 8 rows of
//! 16 contiguous bytes; core matrices adjacent along K are the leading byte
//! offset apart, those adjacent along M (or N) the stride byte offset. With
//! a swizzle of `T` bytes, 8 rows of `T` contiguous bytes make an atom
//! (rows `T` apart), atoms adjacent along M (or N) are the stride byte
//! offset apart and along K the leading byte offset (an MMA's K, 32 bytes,
//! fits in one atom, so it is not read then), and the address is swizzled
//! ([`Swizzle`]).

use crate::swizzle::Swizzle;
use std::fmt;

/// Which instruction a matrix descriptor is for (their swizzle fields
/// differ).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DescFor {
    Wgmma,
    Tcgen05,
}

/// A decoded shared-memory matrix descriptor.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MatrixDesc {
    /// The shared address of the tile's first byte.
    pub start: u64,
    pub leading: u64,
    pub stride: u64,
    pub swizzle: Swizzle,
}

impl MatrixDesc {
    /// Reads `v`; a field this model does not implement is an error that
    /// says which.
    pub fn decode(v: u64, of: DescFor) -> Result<MatrixDesc, DescError> {
        let field = |at: u32| ((v >> at) & 0x3fff) << 4;
        let swizzle = match of {
            DescFor::Wgmma => match v >> 62 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
            DescFor::Tcgen05 => {
                let version = (v >> 46) & 7;
                let base_offset = (v >> 49) & 7;
                let lbo_mode = (v >> 52) & 1;
                if version != 1 {
                    return Err(DescError::Version { version });
                }
                if base_offset != 0 || lbo_mode != 0 {
                    return Err(DescError::BaseOffset);
                }
                match v >> 61 {
                    0 => Swizzle::None,
                    2 => Swizzle::B128,
                    4 => Swizzle::B64,
                    6 => Swizzle::B32,
                    1 => return Err(DescError::Swizzle128Atom32),
                    layout => return Err(DescError::Layout { layout }),
                }
            }
        };
        Ok(MatrixDesc {
            start: field(0),
            leading: field(16),
            stride: field(32),
            swizzle,
        })
    }

    /// The shared address of element (`row`, `k`) of a K-major operand of
    /// `esize`-byte elements.
    pub fn k_major(&self, row: u32, k: u32, esize: u32) -> u64 {
        let (row, kb) = (u64::from(row), u64::from(k * esize));
        let (group, within) = (row / 8, row % 8);
        match self.swizzle {
            Swizzle::None => {
                self.start + group * self.stride + (kb / 16) * self.leading + within * 16 + kb % 16
            }
            mode => {
                let t = u64::from(mode.bytes());
                let dense = self.start
                    + group * self.stride
                    + (kb / t) * self.leading
                    + within * t
                    + kb % t;
                mode.apply(dense)
            }
        }
    }
}

/// The element types of `tcgen05.mma`'s A and B.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    Tf32,
}

impl Elem {
    pub fn bytes(self) -> u32 {
        match self {
            Elem::Tf32 => 4,
            _ => 2,
        }
    }
}

/// `tcgen05.mma`'s instruction descriptor, for `.kind::f16` and
/// `.kind::tf32` (dense): bits 4-5 the D format (1: f32), 7-9 and 10-12 the
/// formats of A and B (f16 0, bf16 1 under `kind::f16`; tf32 2 under
/// `kind::tf32`), 13 and 14 negate A and B, 15 and 16 whether A and B are
/// MN-major, 17-22 N >> 3, 24-28 M >> 4.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstrDesc {
    pub elem: Elem,
    pub negate_a: bool,
    pub negate_b: bool,
    pub m: u32,
    pub n: u32,
}

impl InstrDesc {
    /// Reads `v` for an MMA of `.kind::tf32` (`tf32`) or `.kind::f16`.
    pub fn decode(v: u32, tf32: bool) -> Result<InstrDesc, DescError> {
        let bits = |at: u32, n: u32| (v >> at) & ((1 << n) - 1);
        if bits(2, 1) != 0 {
            return Err(DescError::Sparse);
        }
        if bits(4, 2) != 1 {
            return Err(DescError::DNotF32);
        }
        let (a, b) = (bits(7, 3), bits(10, 3));
        let elem = match (tf32, a, b) {
            (false, 0, 0) => Elem::F16,
            (false, 1, 1) => Elem::Bf16,
            (true, 2, 2) => Elem::Tf32,
            _ => return Err(DescError::Formats { a, b, tf32 }),
        };
        if bits(15, 2) != 0 {
            return Err(DescError::MnMajor);
        }
        let (m, n) = (bits(24, 5) << 4, bits(17, 6) << 3);
        let n_ok = match m {
            64 => (8..=256).contains(&n) && n % 8 == 0,
            128 => (16..=256).contains(&n) && n % 16 == 0,
            _ => false,
        };
        if !n_ok {
            return Err(DescError::Shape { m, n });
        }
        Ok(InstrDesc {
            elem,
            negate_a: bits(13, 1) == 1,
            negate_b: bits(14, 1) == 1,
            m,
            n,
        })
    }

    /// The K of one MMA: 32 bytes of A's or B's elements.
    pub fn k(&self) -> u32 {
        32 / self.elem.bytes()
    }

    /// The TMEM lane (relative to D's) that holds row `row` of D: row `i`
    /// is lane `i` for M = 128; for M = 64 each warp's quarter of the lanes
    /// holds 16 rows in its first 16 lanes (PTX ISA, data-path layout F).
    pub fn d_lane(&self, row: u32) -> u32 {
        match self.m {
            64 => 32 * (row / 16) + row % 16,
            _ => row,
        }
    }
}

/// A descriptor field this model does not implement or the PTX ISA does
/// not define; each names the field's bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DescError {
    /// A tcgen05 matrix descriptor's version (bits 46-48), not 1.
    Version { version: u64 },
    /// A tcgen05 matrix descriptor's base offset or absolute leading-offset
    /// mode (bits 49-52), not modelled.
    BaseOffset,
    /// tcgen05 layout 1, the 128-byte swizzle with 32-byte atoms, not
    /// modelled.
    Swizzle128Atom32,
    /// A tcgen05 layout (bits 61-63) the PTX ISA does not define.
    Layout { layout: u64 },
    /// A sparse MMA (instruction descriptor bit 2).
    Sparse,
    /// A D format other than f32 (instruction descriptor bits 4-5).
    DNotF32,
    /// A and B formats (bits 7-9, 10-12) the emulator does not run under
    /// `.kind::tf32` (`tf32`) or `.kind::f16`.
    Formats { a: u32, b: u32, tf32: bool },
    /// An MN-major (transposed) operand (bits 15-16).
    MnMajor,
    /// An M and N (bits 24-28, 17-22) `.cta_group::1` does not have.
    Shape { m: u32, n: u32 },
}

impl fmt::Display for DescError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unsupported = |f: &mut fmt::Formatter<'_>, what: &str| {
            write!(f, "{what} is not supported by the emulator")
        };
        match *self {
            DescError::Version { version } => write!(
                f,
                "a tcgen05 matrix descriptor's version (bits 46-48) is {version}; the PTX ISA fixes it at 1"
            ),
            DescError::BaseOffset => unsupported(
                f,
                "a tcgen05 matrix descriptor with a base offset or the absolute leading-offset mode",
            ),
            DescError::Swizzle128Atom32 => unsupported(
                f,
                "the 128-byte swizzle with 32-byte atoms (tcgen05 layout 1)",
            ),
            DescError::Layout { layout } => write!(
                f,
                "tcgen05 matrix descriptor layout {layout} (bits 61-63) is not one the PTX ISA defines"
            ),
            DescError::Sparse => {
                unsupported(f, "a sparse tcgen05.mma (instruction descriptor bit 2)")
            }
            DescError::DNotF32 => unsupported(
                f,
                "a tcgen05.mma whose D is not f32 (instruction descriptor bits 4-5)",
            ),
            DescError::Formats { a, b, tf32 } => write!(
                f,
                "A and B formats {a} and {b} (instruction descriptor bits 7-12) under .kind::{}: \
                 the emulator runs f16 x f16, bf16 x bf16 (kind::f16) and tf32 x tf32 (kind::tf32)",
                if tf32 { "tf32" } else { "f16" }
            ),
            DescError::MnMajor => unsupported(
                f,
                "an MN-major (transposed) tcgen05.mma operand (instruction descriptor bits 15-16)",
            ),
            DescError::Shape { m, n } => write!(
                f,
                "an MMA shape of M = {m}, N = {n} (instruction descriptor bits 17-28); \
                 .cta_group::1 has M = 64 (N a multiple of 8 to 256) or M = 128 (N a multiple of 16 to 256)"
            ),
        }
    }
}

impl std::error::Error for DescError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The descriptor the sample builds (`kernelc_tcgen05_smem_desc(sa,
    /// 2048, 128, 0)` at shared address 0x400) and its f16 element (9, 10):
    /// row group 1, row 1, K chunk 1, byte 4 of its chunk.
    #[test]
    fn a_canonical_no_swizzle_descriptor_addresses_core_matrices() {
        let v = (0x400 >> 4) | ((2048 >> 4) << 16) | ((128u64 >> 4) << 32) | (1 << 46);
        let d = MatrixDesc::decode(v, DescFor::Tcgen05).unwrap();
        assert_eq!(d.swizzle, Swizzle::None);
        assert_eq!(d.k_major(9, 10, 2), 0x400 + 128 + 2048 + 16 + 4);
        assert_eq!(
            MatrixDesc::decode(v & !(1 << 46), DescFor::Tcgen05),
            Err(DescError::Version { version: 0 })
        );
    }

    /// A 128-byte-swizzled K-major tile of f16: rows 128 bytes apart, the
    /// 16-byte chunk XORed with the row; wgmma's mode 1 and tcgen05's mode 2
    /// are the same layout.
    #[test]
    fn swizzled_descriptors_read_the_swizzled_atom() {
        let base = (2048 >> 4) | ((1024u64 >> 4) << 32);
        let wg = MatrixDesc::decode(base | (1 << 62), DescFor::Wgmma).unwrap();
        let tc = MatrixDesc::decode(base | (2 << 61) | (1 << 46), DescFor::Tcgen05).unwrap();
        assert_eq!(wg, tc);
        // Row 11: atom 1, row 3; k = 12: byte 24, chunk 1 -> 1 ^ 3 = 2.
        assert_eq!(wg.k_major(11, 12, 2), 2048 + 1024 + 3 * 128 + 2 * 16 + 8);
        let sw32 = MatrixDesc::decode(base | (3 << 62), DescFor::Wgmma).unwrap();
        assert_eq!(sw32.swizzle, Swizzle::B32);
        assert_eq!(
            MatrixDesc::decode(base | (1 << 61) | (1 << 46), DescFor::Tcgen05),
            Err(DescError::Swizzle128Atom32)
        );
    }

    /// kernelc's `kernelc_tcgen05_idesc_f16(128, 64, 0, 0)` is 0x08100010
    /// (docs/tensor-cores.md).
    #[test]
    fn the_instruction_descriptor_of_the_sample_reads_back() {
        let d = InstrDesc::decode(0x0810_0010, false).unwrap();
        assert_eq!((d.elem, d.m, d.n, d.k()), (Elem::F16, 128, 64, 16));
        assert_eq!(
            InstrDesc::decode(0x0810_0010, true),
            Err(DescError::Formats {
                a: 0,
                b: 0,
                tf32: true
            })
        );
        let tf32 = InstrDesc::decode(0x0810_0010 | (2 << 7) | (2 << 10), true).unwrap();
        assert_eq!((tf32.elem, tf32.k()), (Elem::Tf32, 8));
        let m64 = InstrDesc::decode(0x0410_0010, false).unwrap();
        assert_eq!((m64.m, m64.d_lane(17), m64.d_lane(63)), (64, 33, 111));
    }
}
