//! The emulator's tensor maps: what a TMA copy (`cp.async.bulk.tensor`)
//! reads from the 128-byte `CUtensorMap` parameter.
//!
//! On a GPU the CUDA driver encodes the map (`cuTensorMapEncodeTiled`) in a
//! layout only the TMA unit reads. Here the emulator both writes the map
//! (for a `tmap:` argument, [`encode`]) and is its only reader (its TMA
//! instructions, [`decode`]), so it keeps its own layout in those bytes,
//! little-endian:
//!
//! | bytes   | what                                                   |
//! |---------|--------------------------------------------------------|
//! | 0..8    | the tag `kcemutm1`, so that other bytes are refused     |
//! | 8..16   | the global address of element (0, 0)                   |
//! | 16..20  | the bytes of one element                               |
//! | 20..24  | the columns (the inner dimension), in elements         |
//! | 24..28  | the rows                                               |
//! | 28..32  | the box's columns                                      |
//! | 32..36  | the box's rows                                         |
//! | 36..44  | the row pitch in bytes                                 |
//! | 44..48  | the swizzle: 0 (none), 32, 64 or 128 bytes             |
//!
//! The rest is zero. The map is tiled and two-dimensional, with no
//! interleave and zeros for elements outside the matrix: what `tmap:`
//! makes for the GPU engine too (docs/running.md, "Tensor maps").
//!
//! A box lies in shared memory row by row, each row `box_cols` elements.
//! With a swizzle (`CU_TENSOR_MAP_SWIZZLE_32B/64B/128B`) each row must be
//! exactly the swizzle's bytes (the driver accepts shorter ones; the
//! emulator does not model them), and every byte lands where
//! [`Swizzle::apply`] moves its shared address.

use crate::swizzle::Swizzle;
use std::fmt;

/// The size of a `CUtensorMap`.
pub const TENSOR_MAP_BYTES: usize = 128;

const TAG: &[u8; 8] = b"kcemutm1";

/// A two-dimensional tiled tensor map.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MapInfo {
    /// The global address of element (0, 0).
    pub base: u64,
    pub elem_bytes: u32,
    pub cols: u32,
    pub rows: u32,
    pub box_cols: u32,
    pub box_rows: u32,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// How the box is swizzled in shared memory.
    pub swizzle: Swizzle,
}

impl MapInfo {
    /// The bytes of one box (what a load's mbarrier transaction counts,
    /// elements outside the matrix included).
    pub fn box_bytes(&self) -> u64 {
        u64::from(self.box_cols) * u64::from(self.box_rows) * u64::from(self.elem_bytes)
    }
}

/// The 128 bytes of `map`.
pub fn encode(map: &MapInfo) -> Vec<u8> {
    let mut b = vec![0u8; TENSOR_MAP_BYTES];
    b[0..8].copy_from_slice(TAG);
    b[8..16].copy_from_slice(&map.base.to_le_bytes());
    let words = [
        map.elem_bytes,
        map.cols,
        map.rows,
        map.box_cols,
        map.box_rows,
    ];
    for (i, w) in words.iter().enumerate() {
        b[16 + 4 * i..20 + 4 * i].copy_from_slice(&w.to_le_bytes());
    }
    b[36..44].copy_from_slice(&map.row_pitch.to_le_bytes());
    b[44..48].copy_from_slice(&map.swizzle.bytes().to_le_bytes());
    b
}

/// Reads a map [`encode`] wrote; anything else (a map left zero, one the
/// CUDA driver encoded) is refused with why.
pub fn decode(b: &[u8]) -> Result<MapInfo, MapError> {
    if b.len() != TENSOR_MAP_BYTES || &b[0..8] != TAG {
        return Err(MapError::Foreign);
    }
    let word = |i: usize| u32::from_le_bytes(b[16 + 4 * i..20 + 4 * i].try_into().unwrap());
    let swizzle = Swizzle::from_bytes(word(7)).ok_or(MapError::StoredSwizzle { bytes: word(7) })?;
    Ok(MapInfo {
        base: u64::from_le_bytes(b[8..16].try_into().unwrap()),
        elem_bytes: word(0),
        cols: word(1),
        rows: word(2),
        box_cols: word(3),
        box_rows: word(4),
        row_pitch: u64::from_le_bytes(b[36..44].try_into().unwrap()),
        swizzle,
    })
}

/// Why a tensor map is refused: when a launch makes one (the CUDA driver's
/// checks and the limits of this model), or when a TMA instruction reads
/// one ([`decode`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MapError {
    /// A swizzle of `bytes`, not 0, 32, 64 or 128.
    Swizzle { bytes: u32 },
    /// `rows` x `cols` elements given `bytes` bytes of data that do not
    /// hold exactly that many.
    DataSize { rows: u32, cols: u32, bytes: usize },
    /// A row pitch that is no multiple of 16 bytes, a box side outside
    /// 1..=256 elements, or elements of other than 1, 2, 4 or 8 bytes.
    Shape {
        row_pitch: u64,
        box_rows: u32,
        box_cols: u32,
    },
    /// A swizzled box whose rows are not exactly the swizzle's bytes.
    SwizzledRow { swizzle: u32, row_bytes: u32 },
    /// The bytes read are not a map [`encode`] wrote.
    Foreign,
    /// A map whose stored swizzle is `bytes`, which none is.
    StoredSwizzle { bytes: u32 },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MapError::Swizzle { bytes } => write!(
                f,
                "a tensor map with a swizzle of {bytes} bytes: 0, 32, 64 or 128"
            ),
            MapError::DataSize { rows, cols, bytes } => write!(
                f,
                "a tensor map of {rows} x {cols} elements over {bytes} bytes"
            ),
            MapError::Shape {
                row_pitch,
                box_rows,
                box_cols,
            } => write!(
                f,
                "a tensor map with rows of {row_pitch} bytes and boxes of {box_rows} x {box_cols} elements: \
                 the row pitch must be a multiple of 16 bytes and each box side 1 to 256 elements"
            ),
            MapError::SwizzledRow { swizzle, row_bytes } => write!(
                f,
                "a tensor map with a {swizzle}-byte swizzle and box rows of {row_bytes} bytes: \
                 the emulator models swizzled boxes whose rows are exactly the swizzle's bytes"
            ),
            MapError::Foreign => f.write_str(
                "the tensor map was not made by the emulator (a `tmap:` argument of `kernelc run`); \
                 it models no other",
            ),
            MapError::StoredSwizzle { bytes } => {
                write!(f, "a tensor map with a swizzle of {bytes} bytes")
            }
        }
    }
}

impl std::error::Error for MapError {}

/// The shared address of element `k` of a box (row by row) whose first
/// byte is at `smem`: consecutive, then swizzled.
pub fn box_shared_addr(map: &MapInfo, smem: u64, k: u64) -> u64 {
    map.swizzle
        .apply(smem.wrapping_add(k * u64::from(map.elem_bytes)))
}

/// The global address of each element of the box whose first element is
/// at column `x`, row `y`, in the order the box lies in shared memory (row
/// by row, columns innermost); `None` for an element outside the matrix.
pub fn box_elements(map: &MapInfo, x: i64, y: i64) -> Vec<Option<u64>> {
    let mut out = Vec::with_capacity((map.box_cols * map.box_rows) as usize);
    for r in 0..i64::from(map.box_rows) {
        for c in 0..i64::from(map.box_cols) {
            let (col, row) = (x + c, y + r);
            let inside =
                (0..i64::from(map.cols)).contains(&col) && (0..i64::from(map.rows)).contains(&row);
            out.push(inside.then(|| {
                map.base
                    .wrapping_add(row as u64 * map.row_pitch)
                    .wrapping_add(col as u64 * u64::from(map.elem_bytes))
            }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_round_trips_and_foreign_bytes_are_refused() {
        let map = MapInfo {
            base: 0x1_0002_0000_0000,
            elem_bytes: 2,
            cols: 64,
            rows: 48,
            box_cols: 8,
            box_rows: 64,
            row_pitch: 128,
            swizzle: Swizzle::B32,
        };
        assert_eq!(decode(&encode(&map)), Ok(map));
        assert_eq!(map.box_bytes(), 1024);
        assert_eq!(decode(&[0; TENSOR_MAP_BYTES]), Err(MapError::Foreign));
    }

    #[test]
    fn a_box_lies_row_by_row_and_its_outside_elements_are_none() {
        let map = MapInfo {
            base: 1000,
            elem_bytes: 4,
            cols: 3,
            rows: 2,
            box_cols: 2,
            box_rows: 2,
            row_pitch: 16,
            swizzle: Swizzle::None,
        };
        assert_eq!(
            box_elements(&map, 1, 0),
            [Some(1004), Some(1008), Some(1020), Some(1024)]
        );
        assert_eq!(box_elements(&map, 2, 1), [Some(1024), None, None, None]);
        assert_eq!(box_elements(&map, -1, 0)[..2], [None, Some(1000)]);
    }
}
