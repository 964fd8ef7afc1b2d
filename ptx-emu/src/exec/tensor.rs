//! The warp-wide tensor instructions: `wmma.load/mma/store` (m16n16k16),
//! `mma.sync.aligned.m16n8k16`, `ldmatrix` and `stmatrix` (m8n8, b16).
//! They run when all the lanes of a warp have reached them, as one
//! collective of the warp ([`Exec::resolve_tensor`]).
//!
//! Fragment layouts:
//! - `mma.m16n8k16` and `ldmatrix`/`stmatrix` follow the PTX ISA. With
//!   `g = lane / 4` and `q = lane % 4`: A (16x16, four `.b32` of two halves,
//!   the lower index in the low half) holds half `h` (0..8) at row
//!   `g + 8 * (h / 2 % 2)`, column `2q + h % 2 + 8 * (h / 4)`; B (16x8, two
//!   `.b32`) holds half `h` (0..4) at row `2q + h % 2 + 8 * (h / 2)`, column
//!   `g`; C and D (16x8, four `.f32`) hold element `h` at row
//!   `g + 8 * (h / 2)`, column `2q + h % 2`. `ldmatrix` matrix `m` takes its
//!   eight row addresses from lanes `8m..8m+8`, and lane `l` receives row
//!   `l / 4`, columns `2(l % 4)` and `+1` (with `.trans`, column `l / 4` of
//!   rows `2(l % 4)` and `+1`).
//! - `wmma` fragments are unspecified by PTX: a program may only pass them
//!   from `wmma.load` to `wmma.mma` to `wmma.store`. This emulator uses its
//!   own layout, deliberately not the interpreter's: lane `l` holds the
//!   eight elements `8l .. 8l + 8` of the 16x16 matrix in row-major order
//!   (element `p` is row `p / 16`, column `p % 16`). An `.f16` A or B
//!   fragment has sixteen halves per lane and holds its eight elements
//!   twice (halves 8..16 repeat 0..8); `.bf16` has eight.
//!
//! Arithmetic: the inputs (`f16`/`bf16`) convert to `f32` exactly, and each
//! `D[m][n]` is `C[m][n]` with the products added in `k` order, one `fma`
//! rounding each. The hardware's order and internal precision are
//! unspecified, so a GPU may differ in the last bits (not on the samples,
//! whose sums are small integers).

use super::{arg, e, unsupported, Exec, FaultKind, LaneErr, RunError, Thread, R};
use crate::decode::Tensor;
use crate::descriptor::{DescFor, MatrixDesc};
use crate::memory::{self, Space};
use crate::program::{Inst, Operand, Ty};

/// Each lane's address and leading dimension.
type LaneMem = Vec<(u64, u64)>;

/// The f32 value of a 16-bit float's bits (`bf16` is the top half of an
/// f32; `f16` is decoded field by field, exactly).
pub(super) fn half_to_f32(bits: u64, bf16: bool) -> f32 {
    let h = (bits & 0xffff) as u32;
    if bf16 {
        return f32::from_bits(h << 16);
    }
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let frac = h & 0x3ff;
    let mag = match exp {
        0 => frac as f32 * 2f32.powi(-24),
        31 if frac == 0 => f32::INFINITY,
        31 => return f32::NAN,
        _ => (1.0 + frac as f32 / 1024.0) * 2f32.powi(exp as i32 - 15),
    };
    sign * mag
}

/// `(row, col)` of half `h` of lane `lane` in an m16n8k16 A fragment.
fn mma_a(lane: u32, h: u32) -> (u32, u32) {
    let (g, q) = (lane / 4, lane % 4);
    (g + 8 * (h / 2 % 2), 2 * q + h % 2 + 8 * (h / 4))
}

/// `(k, n)` of half `h` of lane `lane` in an m16n8k16 B fragment.
fn mma_b(lane: u32, h: u32) -> (u32, u32) {
    let (g, q) = (lane / 4, lane % 4);
    (2 * q + h % 2 + 8 * (h / 2), g)
}

/// `(row, col)` of element `h` of lane `lane` in an m16n8 C or D fragment.
fn mma_c(lane: u32, h: u32) -> (u32, u32) {
    let (g, q) = (lane / 4, lane % 4);
    (g + 8 * (h / 2), 2 * q + h % 2)
}

/// `(row, col)` of slot `s` of lane `lane` in this emulator's 16x16 WMMA
/// fragments.
fn wmma_elem(lane: u32, s: u32) -> (u32, u32) {
    let p = 8 * lane + s % 8;
    (p / 16, p % 16)
}

/// `D = A * B + C`: products added to `C` in `k` order, one rounding each.
fn matmul(a: &[Vec<f32>], b: &[Vec<f32>], c: &mut [Vec<f32>]) {
    for (m, row) in c.iter_mut().enumerate() {
        for (n, acc) in row.iter_mut().enumerate() {
            for (k, brow) in b.iter().enumerate() {
                *acc = a[m][k].mul_add(brow[n], *acc);
            }
        }
    }
}

/// `(row, col)` of accumulator `h` of lane `lane` in a wgmma D fragment
/// of warp `warp` of the warpgroup (PTX ISA): the warp holds rows
/// `16 warp ..+16`, and each 8 columns `8j..` as an m16n8 C fragment does,
/// in accumulators `4j..4j+4`.
fn wgmma_d(warp: u32, lane: u32, h: u32) -> (u32, u32) {
    let (row, col) = mma_c(lane, h % 4);
    (16 * warp + row, 8 * (h / 4) + col)
}

/// The registers of a `{...}` operand.
fn vector(op: Option<&Operand>, want: usize) -> R<&[Operand]> {
    match op {
        Some(Operand::Vector(v)) if v.len() == want => Ok(v),
        _ => Err(unsupported(format!(
            "a fragment operand that is not a vector of {want} registers"
        ))),
    }
}

impl Exec<'_> {
    /// Runs the tensor instruction `inst` (decoded as `op`) for the lanes
    /// `members` (thread indices, one per lane of a full warp).
    pub(super) fn resolve_tensor(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        op: Tensor,
    ) -> Result<(), RunError> {
        let lanes: Vec<u32> = members.iter().map(|&i| threads[i].linear % 32).collect();
        if members.len() != 32 || lanes.iter().enumerate().any(|(k, &l)| l != k as u32) {
            let msg = "a `.sync.aligned` tensor instruction needs all 32 lanes of the warp (a partial warp or exited lanes)";
            return Err(self.fault(
                &threads[members[0]],
                e(FaultKind::BarrierDivergence, msg),
                vec![],
            ));
        }
        let r = match op {
            Tensor::WmmaLoad {
                row,
                esize,
                regs,
                space,
            } => self.wmma_load(threads, members, inst, row, esize, regs, space),
            Tensor::WmmaStore { row, space } => self.wmma_store(threads, members, inst, row, space),
            Tensor::WmmaMma { bf16 } => self.wmma_mma(threads, members, inst, bf16),
            Tensor::Mma { bf16 } => self.mma(threads, members, inst, bf16),
            Tensor::Wgmma {
                n,
                bf16,
                neg_a,
                neg_b,
            } => self.wgmma(threads, members, inst, n, bf16, [neg_a, neg_b]),
            Tensor::Matrix {
                store,
                num,
                trans,
                space,
            } => self.ldst_matrix(threads, members, inst, store, num, trans, space),
            Tensor::TmemAlloc => self.tmem_alloc(threads, members, inst),
            Tensor::TmemDealloc => self.tmem_dealloc(threads, members, inst),
            Tensor::TmemRelinquish => {
                self.tmem_relinquish();
                Ok(())
            }
            Tensor::TmemLoadStore { store, n } => {
                self.tmem_load_store(threads, members, inst, store, n)
            }
        };
        r.map_err(|(i, err)| self.fault(&threads[i], err, vec![]))
    }

    /// Reads the registers of operand `k` of every lane.
    pub(super) fn lane_regs(
        &self,
        threads: &[Thread],
        members: &[usize],
        inst: &Inst,
        k: usize,
        n: usize,
    ) -> Result<Vec<Vec<u64>>, LaneErr> {
        let regs = vector(inst.args.get(k), n).map_err(|x| (members[0], x))?;
        members
            .iter()
            .map(|&i| {
                regs.iter()
                    .map(|r| self.get(&threads[i], r, Ty::B32).map_err(|x| (i, x)))
                    .collect()
            })
            .collect()
    }

    pub(super) fn set_lane_regs(
        &self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        k: usize,
        values: &[Vec<u64>],
    ) -> Result<(), LaneErr> {
        let n = values.first().map_or(0, Vec::len);
        let regs = vector(inst.args.get(k), n).map_err(|x| (members[0], x))?;
        for (&i, vals) in members.iter().zip(values) {
            for (r, &v) in regs.iter().zip(vals) {
                self.set(&mut threads[i], r, v, Ty::B32)
                    .map_err(|x| (i, x))?;
            }
        }
        Ok(())
    }

    /// The address and the leading dimension (16 when not written) of a
    /// WMMA memory operand, for each lane.
    fn wmma_mem(
        &self,
        threads: &[Thread],
        members: &[usize],
        inst: &Inst,
        addr_op: usize,
        ldm_op: usize,
    ) -> Result<LaneMem, LaneErr> {
        members
            .iter()
            .map(|&i| {
                let t = &threads[i];
                let a = arg(inst, addr_op)
                    .and_then(|o| self.addr(t, o))
                    .map_err(|x| (i, x))?;
                let ldm = match inst.args.get(ldm_op) {
                    Some(o) => self.get(t, o, Ty::B32).map_err(|x| (i, x))?,
                    None => 16,
                };
                Ok((a, ldm))
            })
            .collect()
    }

    /// `wmma.load`: `regs` registers of elements of `esize` bytes per lane.
    #[allow(clippy::too_many_arguments)]
    fn wmma_load(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        row: bool,
        esize: u64,
        regs: usize,
        space: Option<Space>,
    ) -> Result<(), LaneErr> {
        let mem = self.wmma_mem(threads, members, inst, 1, 2)?;
        let mut out = Vec::new();
        for (lane, (&i, &(base, ldm))) in members.iter().zip(&mem).enumerate() {
            let slots = if esize == 4 { 8 } else { 2 * regs as u32 };
            let mut elems = Vec::new();
            for s in 0..slots {
                let (r, c) = wmma_elem(lane as u32, s);
                // B is (k, n): its "row" is k; A is (m, k); C is (m, n).
                let index = if row {
                    u64::from(r) * ldm + u64::from(c)
                } else {
                    u64::from(c) * ldm + u64::from(r)
                };
                let addr = base.wrapping_add(index * esize);
                elems.push(
                    self.load(&mut threads[i], space, addr, esize)
                        .map_err(|x| (i, x))?,
                );
            }
            out.push(if esize == 4 {
                elems
            } else {
                elems.chunks(2).map(|p| p[0] | (p[1] << 16)).collect()
            });
        }
        self.set_lane_regs(threads, members, inst, 0, &out)
    }

    /// `wmma.store.d`: an f32 D fragment.
    fn wmma_store(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        row: bool,
        space: Option<Space>,
    ) -> Result<(), LaneErr> {
        let mem = self.wmma_mem(threads, members, inst, 0, 2)?;
        let vals = self.lane_regs(threads, members, inst, 1, 8)?;
        for (lane, (&i, &(base, ldm))) in members.iter().zip(&mem).enumerate() {
            for s in 0..8 {
                let (r, c) = wmma_elem(lane as u32, s);
                let index = if row {
                    u64::from(r) * ldm + u64::from(c)
                } else {
                    u64::from(c) * ldm + u64::from(r)
                };
                let v = vals[lane][s as usize];
                self.store(&mut threads[i], space, base.wrapping_add(index * 4), 4, v)
                    .map_err(|x| (i, x))?;
            }
        }
        Ok(())
    }

    /// `wmma.mma`: f16 (or bf16) A and B, f32 C and D.
    fn wmma_mma(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        bf16: bool,
    ) -> Result<(), LaneErr> {
        let n_in = if bf16 { 4 } else { 8 };
        let a_regs = self.lane_regs(threads, members, inst, 1, n_in)?;
        let b_regs = self.lane_regs(threads, members, inst, 2, n_in)?;
        let c_regs = self.lane_regs(threads, members, inst, 3, 8)?;
        let mut a = vec![vec![0f32; 16]; 16];
        let mut b = vec![vec![0f32; 16]; 16];
        let mut c = vec![vec![0f32; 16]; 16];
        for lane in 0..32u32 {
            let l = lane as usize;
            for s in 0..8u32 {
                let (r, col) = wmma_elem(lane, s);
                let (r, col) = (r as usize, col as usize);
                let half = |regs: &[u64]| regs[(s / 2) as usize] >> (16 * (s % 2));
                a[r][col] = half_to_f32(half(&a_regs[l]), bf16);
                b[r][col] = half_to_f32(half(&b_regs[l]), bf16);
                c[r][col] = f32::from_bits(c_regs[l][s as usize] as u32);
            }
        }
        matmul(&a, &b, &mut c);
        let d: Vec<Vec<u64>> = (0..32u32)
            .map(|lane| {
                (0..8)
                    .map(|s| {
                        let (r, col) = wmma_elem(lane, s);
                        u64::from(c[r as usize][col as usize].to_bits())
                    })
                    .collect()
            })
            .collect();
        self.set_lane_regs(threads, members, inst, 0, &d)
    }

    /// `mma.sync.aligned.m16n8k16.row.col`.
    fn mma(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        bf16: bool,
    ) -> Result<(), LaneErr> {
        let a_regs = self.lane_regs(threads, members, inst, 1, 4)?;
        let b_regs = self.lane_regs(threads, members, inst, 2, 2)?;
        let c_regs = self.lane_regs(threads, members, inst, 3, 4)?;
        let mut a = vec![vec![0f32; 16]; 16];
        let mut b = vec![vec![0f32; 8]; 16];
        let mut c = vec![vec![0f32; 8]; 16];
        for lane in 0..32u32 {
            let l = lane as usize;
            for h in 0..8u32 {
                let (r, k) = mma_a(lane, h);
                let bits = a_regs[l][(h / 2) as usize] >> (16 * (h % 2));
                a[r as usize][k as usize] = half_to_f32(bits, bf16);
            }
            for h in 0..4u32 {
                let (k, n) = mma_b(lane, h);
                let bits = b_regs[l][(h / 2) as usize] >> (16 * (h % 2));
                b[k as usize][n as usize] = half_to_f32(bits, bf16);
                let (m, n) = mma_c(lane, h);
                c[m as usize][n as usize] = f32::from_bits(c_regs[l][h as usize] as u32);
            }
        }
        matmul(&a, &b, &mut c);
        let d: Vec<Vec<u64>> = (0..32u32)
            .map(|lane| {
                (0..4)
                    .map(|h| {
                        let (m, n) = mma_c(lane, h);
                        u64::from(c[m as usize][n as usize].to_bits())
                    })
                    .collect()
            })
            .collect();
        self.set_lane_regs(threads, members, inst, 0, &d)
    }

    /// `wgmma.mma_async.m64n{n}k16`: the warp's 16 rows of `D = A * B (+ D)`,
    /// since each warp of the warpgroup holds rows of its own; A's rows and
    /// all of B are read from shared memory through the descriptors (the
    /// ones of the warp's first lane; they are uniform in a warpgroup).
    fn wgmma(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        n: u32,
        bf16: bool,
        negate: [bool; 2],
    ) -> Result<(), LaneErr> {
        let first = members[0];
        let at = |k: usize| arg(inst, k).map_err(|x| (first, x));
        let warp = (threads[first].linear / 32) % 4;
        let a_desc = self
            .get(&threads[first], at(1)?, Ty::B64)
            .map_err(|x| (first, x))?;
        let b_desc = self
            .get(&threads[first], at(2)?, Ty::B64)
            .map_err(|x| (first, x))?;
        let accumulate = self
            .get(&threads[first], at(3)?, Ty::PRED)
            .map_err(|x| (first, x))?
            & 1
            == 1;
        let desc = |v: u64| {
            MatrixDesc::decode(v, DescFor::Wgmma).map_err(|m| (first, e(FaultKind::Unsupported, m)))
        };
        let (a_desc, b_desc) = (desc(a_desc)?, desc(b_desc)?);
        let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
        let mut a = vec![vec![0f32; 16]; 16];
        for (r, row) in a.iter_mut().enumerate() {
            for (k, x) in row.iter_mut().enumerate() {
                let off = a_desc.k_major(16 * warp + r as u32, k as u32, 2);
                *x = sign(negate[0]) * self.window_half(threads, first, off, bf16)?;
            }
        }
        let mut b = vec![vec![0f32; n as usize]; 16];
        for (k, row) in b.iter_mut().enumerate() {
            for (col, x) in row.iter_mut().enumerate() {
                let off = b_desc.k_major(col as u32, k as u32, 2);
                *x = sign(negate[1]) * self.window_half(threads, first, off, bf16)?;
            }
        }
        let regs = (n / 2) as usize;
        let d_regs = self.lane_regs(threads, members, inst, 0, regs)?;
        let mut c = vec![vec![0f32; n as usize]; 16];
        if accumulate {
            for lane in 0..32u32 {
                for h in 0..regs as u32 {
                    let (m, col) = wgmma_d(0, lane, h);
                    c[m as usize][col as usize] =
                        f32::from_bits(d_regs[lane as usize][h as usize] as u32);
                }
            }
        }
        matmul(&a, &b, &mut c);
        let d: Vec<Vec<u64>> = (0..32u32)
            .map(|lane| {
                (0..regs as u32)
                    .map(|h| {
                        let (m, col) = wgmma_d(0, lane, h);
                        u64::from(c[m as usize][col as usize].to_bits())
                    })
                    .collect()
            })
            .collect();
        self.set_lane_regs(threads, members, inst, 0, &d)
    }

    /// The 16-bit float at offset `off` of the block's shared window (what
    /// a matrix descriptor addresses), as an f32.
    fn window_half(
        &mut self,
        threads: &mut [Thread],
        lane: usize,
        off: u64,
        bf16: bool,
    ) -> Result<f32, LaneErr> {
        let bits = self
            .window_load(&mut threads[lane], off, 2, "a wgmma matrix descriptor")
            .map_err(|x| (lane, x))?;
        Ok(half_to_f32(bits, bf16))
    }

    /// The `len` bytes at offset `off` of the block's shared window, which
    /// `what` (a matrix descriptor) addresses.
    pub(super) fn window_load(&mut self, t: &mut Thread, off: u64, len: u64, what: &str) -> R<u64> {
        let i = self
            .setup
            .shared_base
            .iter()
            .zip(&self.setup.shared_template)
            .position(|(&base, a)| (base..base + a.bytes.len() as u64).contains(&off));
        let Some(i) = i else {
            return Err(e(
                FaultKind::OutOfBounds,
                format!("{what} reaches byte {off:#x} of the shared window, which no shared variable holds"),
            ));
        };
        let addr = memory::space_addr(Space::Shared, i, off);
        self.load(t, Some(Space::Shared), addr, len)
    }

    /// `ldmatrix` / `stmatrix` `.m8n8` `.x1/.x2/.x4` `[.trans]` `.b16`.
    #[allow(clippy::too_many_arguments)]
    fn ldst_matrix(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        store: bool,
        num: usize,
        trans: bool,
        space: Option<Space>,
    ) -> Result<(), LaneErr> {
        let (addr_k, regs_k) = if store { (0, 1) } else { (1, 0) };
        let addrs: Vec<u64> = members
            .iter()
            .map(|&i| {
                let t = &threads[i];
                arg(inst, addr_k)
                    .and_then(|o| self.addr(t, o))
                    .map_err(|x| (i, x))
            })
            .collect::<Result<_, _>>()?;
        let vals = if store {
            self.lane_regs(threads, members, inst, regs_k, num)?
        } else {
            vec![vec![0u64; num]; 32]
        };
        let mut out = vec![vec![0u64; num]; 32];
        for lane in 0..32u32 {
            let i = members[lane as usize];
            let (g, q) = (u64::from(lane / 4), lane % 4);
            for m in 0..num as u32 {
                // Row `j` of matrix `m` starts at the address of lane 8m + j.
                let row = |j: u32| addrs[(8 * m + j) as usize];
                let halves: [(u64, u32); 2] = if trans {
                    [(row(2 * q) + 2 * g, 0), (row(2 * q + 1) + 2 * g, 16)]
                } else {
                    let a = row(lane / 4) + 4 * u64::from(q);
                    [(a, 0), (a + 2, 16)]
                };
                for (addr, shift) in halves {
                    if store {
                        let v = (vals[lane as usize][m as usize] >> shift) & 0xffff;
                        self.store(&mut threads[i], space, addr, 2, v)
                            .map_err(|x| (i, x))?;
                    } else {
                        let v = self
                            .load(&mut threads[i], space, addr, 2)
                            .map_err(|x| (i, x))?;
                        out[lane as usize][m as usize] |= v << shift;
                    }
                }
            }
        }
        if store {
            Ok(())
        } else {
            self.set_lane_regs(threads, members, inst, regs_k, &out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_convert_exactly() {
        assert_eq!(half_to_f32(0x3c00, false), 1.0);
        assert_eq!(half_to_f32(0xc500, false), -5.0);
        assert_eq!(half_to_f32(0x0001, false), 2f32.powi(-24));
        assert_eq!(half_to_f32(0x7bff, false), 65504.0);
        assert!(half_to_f32(0x7e00, false).is_nan());
        assert_eq!(half_to_f32(0x3f80, true), 1.0);
    }

    /// Every element of each tile is held by exactly one (lane, slot).
    #[test]
    fn fragments_cover_each_element_once() {
        let mut a = [[0; 16]; 16];
        let mut b = [[0; 8]; 16];
        let mut c = [[0; 8]; 16];
        let mut w = [[0; 16]; 16];
        for lane in 0..32 {
            for h in 0..8 {
                let (r, k) = mma_a(lane, h);
                a[r as usize][k as usize] += 1;
                let (r, k) = wmma_elem(lane, h);
                w[r as usize][k as usize] += 1;
            }
            for h in 0..4 {
                let (k, n) = mma_b(lane, h);
                b[k as usize][n as usize] += 1;
                let (m, n) = mma_c(lane, h);
                c[m as usize][n as usize] += 1;
            }
        }
        for ones in [
            a.as_flattened(),
            b.as_flattened(),
            c.as_flattened(),
            w.as_flattened(),
        ] {
            assert!(ones.iter().all(|&n| n == 1));
        }
    }
}
