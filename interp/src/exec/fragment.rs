//! Where each element of a tensor-core fragment lives: which lane holds
//! it, and in which slot of that lane's registers.
//!
//! `mma.sync.m16n8k16` has a layout the PTX ISA specifies ("Matrix
//! Fragments for mma.m16n8k16"): with `g = lane / 4` and `t = lane % 4`,
//! the A fragment's element `i` (0..8, two per 32-bit register, the lower
//! index in the low half) is at row `g + 8 * ((i / 2) % 2)`, column
//! `2t + i % 2 + 8 * (i / 4)`; B's element `i` (0..4) at row (k)
//! `2t + i % 2 + 8 * (i / 2)`, column (n) `g`; C's and D's element `i`
//! (0..4) at row `g + 8 * (i / 2)`, column `2t + i % 2`.
//!
//! WMMA fragments are *unspecified* by PTX: a program may only hand them
//! from `wmma_load` to `wmma_mma` to `wmma_store`. The interpreter picks
//! the layout of two side-by-side m16n8k16 tiles, which is what sm_80
//! does for the accumulator; an f16 A or B fragment has eight registers
//! for sixteen elements per lane, and holds each element twice (slots 8..16
//! repeat slots 0..8).

use midend::ir::{Frag, MmaType};

/// `(row, col)` of element `i` of lane `lane` in an m16n8k16 A fragment.
pub fn mma_a(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * ((i / 2) % 2), 2 * t + i % 2 + 8 * (i / 4))
}

/// `(k, n)` of element `i` of lane `lane` in an m16n8k16 B fragment.
pub fn mma_b(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (2 * t + i % 2 + 8 * (i / 2), g)
}

/// `(row, col)` of element `i` of lane `lane` in an m16n8 C or D fragment.
pub fn mma_c(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

/// Elements a lane holds in a 16x16x16 WMMA fragment (counting repeats).
pub fn wmma_elems(frag: Frag, ty: MmaType) -> u32 {
    match (frag, ty) {
        (Frag::C, _) => 8,
        (_, MmaType::Bf16) => 8,
        _ => 16,
    }
}

/// `(row, col)` of slot `i` of lane `lane` in a 16x16x16 WMMA fragment:
/// `(m, k)` for A, `(k, n)` for B, `(m, n)` for C and D.
pub fn wmma_elem(frag: Frag, lane: u32, i: u32) -> (u32, u32) {
    let i = i % 8;
    match frag {
        Frag::A => mma_a(lane, i),
        Frag::B => {
            let (k, n) = mma_b(lane, i % 4);
            (k, n + 8 * (i / 4))
        }
        Frag::C => {
            let (m, n) = mma_c(lane, i % 4);
            (m, n + 8 * (i / 4))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of each tile is held by exactly one (lane, slot).
    #[test]
    fn layouts_cover_each_element_once() {
        let mut a = [[0; 16]; 16];
        let mut b = [[0; 8]; 16];
        let mut c = [[0; 8]; 16];
        for lane in 0..32 {
            for i in 0..8 {
                let (r, k) = mma_a(lane, i);
                a[r as usize][k as usize] += 1;
            }
            for i in 0..4 {
                let (k, n) = mma_b(lane, i);
                b[k as usize][n as usize] += 1;
                let (r, n) = mma_c(lane, i);
                c[r as usize][n as usize] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&n| n == 1));
        assert!(b.iter().flatten().all(|&n| n == 1));
        assert!(c.iter().flatten().all(|&n| n == 1));
        for frag in [Frag::A, Frag::B, Frag::C] {
            let mut seen = [[0; 16]; 16];
            for lane in 0..32 {
                for i in 0..8 {
                    let (r, k) = wmma_elem(frag, lane, i);
                    seen[r as usize][k as usize] += 1;
                }
            }
            assert!(seen.iter().flatten().all(|&n| n == 1), "{frag:?}");
        }
    }
}
