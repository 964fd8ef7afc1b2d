//! Running async copies, mbarriers and tensor-core operations.
//!
//! - `cp_async` copies at once. Threads run one at a time, so the copy is
//!   done before any later instruction of any thread; `cp_async_commit`
//!   and `cp_async_wait` have nothing left to wait for. The price: a
//!   kernel that forgets to wait still works here (a GPU may show it stale
//!   data), so the interpreter cannot catch a missing wait.
//! - An mbarrier is 8 bytes of shared memory. The interpreter packs its
//!   own state there (the hardware's encoding is opaque): pending arrivals
//!   (bits 0-19), expected arrivals (20-39), pending transaction bytes
//!   (40-61) and the phase parity (bit 63). A test or try wait that finds
//!   its phase incomplete yields, so the other threads can arrive. There is
//!   no asynchronous transaction source yet (TMA is a later part), so a
//!   phase that expects bytes never completes; the wait loop then ends at
//!   the step limit.
//! - `wmma_load`/`wmma_store` are per lane (a lane's fragment depends only
//!   on its lane number and memory); `wmma_mma`, `mma`, `ldmatrix` and
//!   `stmatrix` combine the values of all 32 lanes, so they wait as warp
//!   collectives (see `collective.rs`). Layouts are in `fragment.rs`.

use super::fragment::{mma_a, mma_b, mma_c, wmma_elem, wmma_elems};
use super::{access_fault, raw, Exec, Raw, Stop, Thread};
use crate::eval;
use crate::FaultKind;
use cranelift_entity::EntityRef;
use midend::ir::{
    AccelOp, AddrSpace, Frag, FuncId, Function, Inst, MatLayout, MmaType, Type, Value,
};

const PENDING: u64 = (1 << 20) - 1;
const TX_SHIFT: u32 = 40;
const TX_MASK: u64 = (1 << 22) - 1;
const PHASE: u64 = 1 << 63;

/// Why an arrival cannot update an mbarrier; `Display` is the fault's
/// message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum MbarrierError {
    /// No arrival is pending: the barrier was never initialized.
    NoPendingArrivals,
    /// The pending transaction bytes pass the 22 bits that hold them.
    TransactionOverflow,
}

impl std::fmt::Display for MbarrierError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MbarrierError::NoPendingArrivals => {
                "mbarrier_arrive on a barrier with no pending arrivals (not initialized?)"
            }
            MbarrierError::TransactionOverflow => "mbarrier transaction count overflows",
        })
    }
}

/// An mbarrier after one arrival (with `tx` more bytes expected first).
fn mbar_arrive(state: u64, tx: u64) -> Result<u64, MbarrierError> {
    let pending = state & PENDING;
    let expected = (state >> 20) & PENDING;
    let bytes = ((state >> TX_SHIFT) & TX_MASK) + tx;
    if pending == 0 {
        return Err(MbarrierError::NoPendingArrivals);
    }
    if bytes > TX_MASK {
        return Err(MbarrierError::TransactionOverflow);
    }
    let phase = state & PHASE;
    if pending == 1 && bytes == 0 {
        // The phase completes: flip the parity, expect everyone again.
        return Ok((phase ^ PHASE) | (expected << 20) | expected);
    }
    Ok(phase | (bytes << TX_SHIFT) | (expected << 20) | (pending - 1))
}

/// The f32 value of a 16-bit float of type `ty` held in `bits`.
fn half(bits: u64, ty: MmaType) -> f32 {
    let t = if ty == MmaType::Bf16 {
        Type::BF16
    } else {
        Type::F16
    };
    eval::float_to_f64(bits & 0xffff, t) as f32
}

/// `D = A * B + C` over f32, adding products in `k` order with one
/// rounding each (the hardware's order and rounding are unspecified, so
/// results may differ from a GPU in the last bits).
fn matmul(a: &[Vec<f32>], b: &[Vec<f32>], c: &[Vec<f32>]) -> Vec<Vec<f32>> {
    c.iter()
        .enumerate()
        .map(|(m, row)| {
            row.iter()
                .enumerate()
                .map(|(n, &acc)| (0..b.len()).fold(acc, |s, k| a[m][k].mul_add(b[k][n], s)))
                .collect()
        })
        .collect()
}

impl Exec<'_> {
    /// Runs an `accel` instruction that a lane can run alone; the others
    /// stop as warp collectives.
    // Long: one arm per accelerator opcode a lane runs alone (async
    // copies, mbarriers, TMA), the interpreter's table of the family.
    pub(super) fn accel(
        &mut self,
        t: &mut Thread,
        fid: FuncId,
        func: &Function,
        inst: Inst,
        op: AccelOp,
        args: &[Value],
    ) -> Result<Option<Stop>, Raw> {
        let fail = |msg: String, kind| raw(kind, msg, fid, Some(inst));
        let frame = t.frames.last().expect("a running thread has a frame");
        let argv: Vec<u64> = args
            .iter()
            .map(|&a| {
                let a = func.dfg.resolve_aliases(a);
                frame.values.get(a.index()).copied().unwrap_or(0)
            })
            .collect();
        let space = |k: usize| {
            func.dfg
                .value_type(args[k])
                .addr_space()
                .unwrap_or(AddrSpace::Generic)
        };
        let lane = t.linear % 32;
        let results: Vec<u64> = match op {
            AccelOp::CpAsync { size, .. } => {
                let (dst, src) = (argv[0], argv[1]);
                // A generic pointer must still point where PTX's cp.async
                // writes and reads: shared memory, from global memory.
                let in_space = |a: u64, want: AddrSpace| {
                    super::memory::decode(a).is_some_and(|d| d.space == want)
                };
                if !in_space(dst, AddrSpace::Shared) || !in_space(src, AddrSpace::Global) {
                    let msg =
                        "cp_async copies from global to shared memory; an operand points elsewhere"
                            .to_string();
                    return Err(fail(msg, FaultKind::WrongSpace));
                }
                if dst % u64::from(size) != 0 || src % u64::from(size) != 0 {
                    let msg =
                        format!("cp_async of {size} bytes needs {size}-byte aligned addresses");
                    return Err(fail(msg, FaultKind::Misaligned));
                }
                for off in (0..u64::from(size)).step_by(4) {
                    let v = self
                        .load(t, space(1), src + off, 4)
                        .map_err(|e| fail(format!("cp_async source: {e}"), access_fault(&e)))?;
                    self.store(t, space(0), dst + off, 4, v).map_err(|e| {
                        fail(format!("cp_async destination: {e}"), access_fault(&e))
                    })?;
                    self.race_check(t, fid, inst, dst + off, 4, true)?;
                }
                Vec::new()
            }
            AccelOp::CpAsyncCommit
            | AccelOp::CpAsyncWait { .. }
            | AccelOp::CpAsyncWaitAll
            | AccelOp::FenceProxyAsync => Vec::new(),
            // Ordering and register-budget hints: nothing to do when threads
            // run one at a time.
            AccelOp::WgmmaFence
            | AccelOp::WgmmaCommit
            | AccelOp::WgmmaWait { .. }
            | AccelOp::Setmaxnreg { .. }
            | AccelOp::Tcgen05Relinquish
            | AccelOp::Tcgen05Wait { .. }
            | AccelOp::Tcgen05Fence { .. } => Vec::new(),
            _ if op.is_wgmma() || op.is_tcgen05() => {
                let msg = format!(
                    "`{}` is not supported by the interpreter (it models no warpgroups or tensor memory)",
                    op.opcode()
                );
                return Err(fail(msg, FaultKind::Internal));
            }
            AccelOp::MbarInit => {
                let count = argv[1] & 0xffff_ffff;
                if count == 0 || count > PENDING {
                    let msg = format!("mbarrier_init count {count} is outside 1..={PENDING}");
                    return Err(fail(msg, FaultKind::Internal));
                }
                self.store(t, space(0), argv[0], 8, (count << 20) | count)
                    .map_err(|e| fail(format!("mbarrier_init: {e}"), access_fault(&e)))?;
                Vec::new()
            }
            AccelOp::MbarArrive | AccelOp::MbarArriveExpectTx => {
                let what = op.opcode();
                let tx = if op == AccelOp::MbarArrive {
                    0
                } else {
                    argv[1] & 0xffff_ffff
                };
                let state = self
                    .load(t, space(0), argv[0], 8)
                    .map_err(|e| fail(format!("{what}: {e}"), access_fault(&e)))?;
                let new =
                    mbar_arrive(state, tx).map_err(|e| fail(e.to_string(), FaultKind::Internal))?;
                self.store(t, space(0), argv[0], 8, new)
                    .map_err(|e| fail(format!("{what}: {e}"), access_fault(&e)))?;
                // The token is the phase the arrival belongs to.
                vec![state >> 63]
            }
            AccelOp::MbarTestWait | AccelOp::MbarTryWaitParity => {
                let what = op.opcode();
                let state = self
                    .load(t, space(0), argv[0], 8)
                    .map_err(|e| fail(format!("{what}: {e}"), access_fault(&e)))?;
                // The phase of that parity is over once the current one differs.
                let done = (state >> 63) != (argv[1] & 1);
                self.set_results(t, func, inst, &[u64::from(done)]);
                return Ok((!done).then_some(Stop::Yield));
            }
            AccelOp::WmmaLoad { frag, layout, ty } => {
                let (ptr, ldm) = (argv[0], argv[1] & 0xffff_ffff);
                let esize: u32 = if ty == MmaType::F32 { 4 } else { 2 };
                let n = wmma_elems(frag, ty);
                let mut elems = Vec::new();
                for i in 0..n {
                    let (r, c) = wmma_elem(frag, lane, i);
                    let index = match layout {
                        MatLayout::Row => u64::from(r) * ldm + u64::from(c),
                        MatLayout::Col => u64::from(c) * ldm + u64::from(r),
                    };
                    let addr = ptr.wrapping_add(index * u64::from(esize));
                    let v = self
                        .load(t, space(0), addr, esize)
                        .map_err(|e| fail(format!("wmma_load: {e}"), access_fault(&e)))?;
                    elems.push(v);
                }
                if esize == 4 {
                    elems
                } else {
                    elems.chunks(2).map(|p| p[0] | (p[1] << 16)).collect()
                }
            }
            AccelOp::WmmaStore { layout } => {
                let (ptr, ldm) = (argv[0], argv[9] & 0xffff_ffff);
                for i in 0..8 {
                    let (r, c) = wmma_elem(Frag::C, lane, i);
                    let index = match layout {
                        MatLayout::Row => u64::from(r) * ldm + u64::from(c),
                        MatLayout::Col => u64::from(c) * ldm + u64::from(r),
                    };
                    let addr = ptr.wrapping_add(index * 4);
                    self.store(t, space(0), addr, 4, argv[1 + i as usize])
                        .map_err(|e| fail(format!("wmma_store: {e}"), access_fault(&e)))?;
                }
                Vec::new()
            }
            AccelOp::TmaLoad { .. } | AccelOp::TmaStore { .. } => {
                let msg = format!(
                    "{} is not supported by the interpreter: a TMA copy needs a tensor map that the CUDA driver encodes (run it on a GPU)",
                    op.opcode()
                );
                return Err(fail(msg, FaultKind::Unsupported));
            }
            // No TMA copy ever runs here, so there is nothing to wait for.
            AccelOp::BulkCommit | AccelOp::BulkWait { .. } => Vec::new(),
            AccelOp::Mapa => {
                // Each block runs alone, so only the block's own shared
                // memory exists: a cluster of one block.
                let rank = argv[1] & 0xffff_ffff;
                if self.cluster != [1, 1, 1] || rank != 0 {
                    let msg = format!(
                        "mapa to rank {rank}: the interpreter runs one block at a time, so it cannot reach another block's shared memory (clusters are not modelled)"
                    );
                    return Err(fail(msg, FaultKind::Unsupported));
                }
                vec![argv[0]]
            }
            AccelOp::ClusterArrive { .. } | AccelOp::ClusterWait => {
                if self.cluster != [1, 1, 1] {
                    let msg = "the cluster barrier: the interpreter runs one block at a time, so clusters of more than one block are not modelled".to_string();
                    return Err(fail(msg, FaultKind::Unsupported));
                }
                // A cluster of one block: arriving costs nothing, and
                // waiting is a barrier of the block (every thread arrives
                // before it waits).
                if op == AccelOp::ClusterWait {
                    return Ok(Some(Stop::Barrier(fid, inst)));
                }
                Vec::new()
            }
            AccelOp::Vprintf => {
                let count = self
                    .vprintf(t, argv[0], argv[1])
                    .map_err(|e| fail(e.to_string(), FaultKind::OutOfBounds))?;
                vec![count]
            }
            AccelOp::AssertFail => return Err(fail(self.assertion(t, &argv), FaultKind::Trap)),
            AccelOp::Tex(x) => self.tex(x, &argv).map_err(|(m, k)| fail(m, k))?,
            AccelOp::Suld(s) | AccelOp::Sust(s) => {
                self.surface(op, s, &argv).map_err(|(m, k)| fail(m, k))?
            }
            _ => return Ok(Some(Stop::Warp(fid, inst))),
        };
        self.set_results(t, func, inst, &results);
        Ok(None)
    }

    pub(super) fn set_results(&self, t: &mut Thread, func: &Function, inst: Inst, values: &[u64]) {
        let frame = t.frames.last_mut().expect("a running thread has a frame");
        for (&r, &v) in func.dfg.inst_results(inst).iter().zip(values) {
            if let Some(slot) = frame.values.get_mut(r.index()) {
                *slot = v;
            }
        }
    }

    /// The results of a warp-wide `accel` instruction for each member
    /// (all 32 lanes, in lane order), given each lane's operand values.
    pub(super) fn accel_warp(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        (fid, inst): (FuncId, Inst),
        op: AccelOp,
        argv: &[Vec<u64>],
        ptr_space: AddrSpace,
    ) -> Result<Vec<Vec<u64>>, Raw> {
        let fail = |msg: String, kind| raw(kind, msg, fid, Some(inst));
        let lanes = 0..32u32;
        Ok(match op {
            AccelOp::WmmaMma { ty, .. } => {
                let (na, nb) = (
                    midend::ir::wmma_frag_len(Frag::A, ty),
                    midend::ir::wmma_frag_len(Frag::B, ty),
                );
                let mut a = vec![vec![0f32; 16]; 16];
                let mut b = vec![vec![0f32; 16]; 16];
                let mut c = vec![vec![0f32; 16]; 16];
                for lane in lanes.clone() {
                    let v = &argv[lane as usize];
                    for i in 0..8 {
                        let (r, k) = wmma_elem(Frag::A, lane, i);
                        a[r as usize][k as usize] = half(v[(i / 2) as usize] >> (16 * (i % 2)), ty);
                        let (k, n) = wmma_elem(Frag::B, lane, i);
                        b[k as usize][n as usize] =
                            half(v[na + (i / 2) as usize] >> (16 * (i % 2)), ty);
                        let (m, n) = wmma_elem(Frag::C, lane, i);
                        c[m as usize][n as usize] = f32::from_bits(v[na + nb + i as usize] as u32);
                    }
                }
                let d = matmul(&a, &b, &c);
                lanes
                    .map(|lane| {
                        (0..8)
                            .map(|i| {
                                let (m, n) = wmma_elem(Frag::C, lane, i);
                                u64::from(d[m as usize][n as usize].to_bits())
                            })
                            .collect()
                    })
                    .collect()
            }
            AccelOp::Mma { ty } => {
                let mut a = vec![vec![0f32; 16]; 16];
                let mut b = vec![vec![0f32; 8]; 16];
                let mut c = vec![vec![0f32; 8]; 16];
                for lane in lanes.clone() {
                    let v = &argv[lane as usize];
                    for i in 0..8 {
                        let (r, k) = mma_a(lane, i);
                        a[r as usize][k as usize] = half(v[(i / 2) as usize] >> (16 * (i % 2)), ty);
                    }
                    for i in 0..4 {
                        let (k, n) = mma_b(lane, i);
                        b[k as usize][n as usize] =
                            half(v[4 + (i / 2) as usize] >> (16 * (i % 2)), ty);
                        let (m, n) = mma_c(lane, i);
                        c[m as usize][n as usize] = f32::from_bits(v[6 + i as usize] as u32);
                    }
                }
                let d = matmul(&a, &b, &c);
                lanes
                    .map(|lane| {
                        (0..4)
                            .map(|i| {
                                let (m, n) = mma_c(lane, i);
                                u64::from(d[m as usize][n as usize].to_bits())
                            })
                            .collect()
                    })
                    .collect()
            }
            AccelOp::Ldmatrix { num, trans } | AccelOp::Stmatrix { num, trans } => {
                let store = matches!(op, AccelOp::Stmatrix { .. });
                // Row `j` of matrix `m` is at the address lane `8m + j` gave.
                let row_addr = |m: u32, j: u32| argv[(8 * m + j) as usize][0];
                let mut out = vec![vec![0u64; usize::from(num)]; 32];
                for lane in lanes {
                    let t = &mut threads[members[lane as usize]];
                    for m in 0..u32::from(num) {
                        let (g, q) = (lane / 4, lane % 4);
                        // (address, bit offset in the register) of each half.
                        let halves: [(u64, u32); 2] = if trans {
                            [
                                (row_addr(m, 2 * q) + 2 * u64::from(g), 0),
                                (row_addr(m, 2 * q + 1) + 2 * u64::from(g), 16),
                            ]
                        } else {
                            let a = row_addr(m, g) + 4 * u64::from(q);
                            [(a, 0), (a + 2, 16)]
                        };
                        for (addr, shift) in halves {
                            if store {
                                let v = (argv[lane as usize][1 + m as usize] >> shift) & 0xffff;
                                self.store(t, ptr_space, addr, 2, v).map_err(|e| {
                                    fail(format!("stmatrix: {e}"), access_fault(&e))
                                })?;
                            } else {
                                let v = self.load(t, ptr_space, addr, 2).map_err(|e| {
                                    fail(format!("ldmatrix: {e}"), access_fault(&e))
                                })?;
                                out[lane as usize][m as usize] |= v << shift;
                            }
                        }
                    }
                }
                if store {
                    vec![Vec::new(); 32]
                } else {
                    out
                }
            }
            other => {
                let msg = format!("`{}` is not a warp collective", other.opcode());
                return Err(fail(msg, FaultKind::Internal));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbarrier_phases_flip_after_count_arrivals() {
        let init = (2u64 << 20) | 2;
        let s1 = mbar_arrive(init, 0).unwrap();
        assert_eq!(s1 >> 63, 0);
        let s2 = mbar_arrive(s1, 0).unwrap();
        assert_eq!(s2 >> 63, 1, "the phase completed");
        assert_eq!(s2 & PENDING, 2, "and expects two arrivals again");
        let tx = mbar_arrive(s2, 64).unwrap();
        let tx = mbar_arrive(tx, 0).unwrap();
        assert_eq!(tx >> 63, 1, "pending bytes keep the phase open");
        assert_eq!(mbar_arrive(0, 0), Err(MbarrierError::NoPendingArrivals));
        let full = TX_MASK << TX_SHIFT | 1;
        assert_eq!(
            mbar_arrive(full, 1),
            Err(MbarrierError::TransactionOverflow)
        );
    }
}
