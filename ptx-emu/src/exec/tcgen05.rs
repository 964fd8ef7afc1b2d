//! Blackwell's tensor memory and the `tcgen05` instructions.
//!
//! Each block has its own tensor memory (TMEM): 128 lanes of 512 columns of
//! 32-bit cells, zero when the block starts (a GPU leaves it undefined). An
//! address is a 32-bit value with the lane in bits 16-31 and the column in
//! bits 0-15. A warp allocates whole columns (`tcgen05.alloc`, a power of
//! two from 32 to 512, placed at a multiple of its size, first fit) and the
//! allocation's address is written to shared memory; every allocation must
//! be freed (`tcgen05.dealloc`, with its address and size) before the block
//! ends, and after `tcgen05.relinquish_alloc_permit` the block may not
//! allocate again. Where a GPU would wait for columns another block frees,
//! the emulator, which runs one cluster at a time, faults.
//!
//! `tcgen05.mma` runs when its one thread issues it: D (M x N f32, in TMEM
//! at its address, row `i` in lane `i` for M = 128, in the first 16 lanes of
//! each warp's 32 for M = 64) becomes `A * B` or `A * B + D`, A (M x K) and
//! B (N x K) read through their shared-memory descriptors
//! ([`crate::descriptor`]), the products added in `k` order with one
//! rounding each, as the other MMAs do here. So `tcgen05.commit` makes its
//! mbarrier see one arrival at once, and the waits and fences have nothing
//! to wait for. `tcgen05.ld`/`st` `.32x32b.xN` move N consecutive columns of
//! one lane per thread; warp `w` may reach only lanes `32 (w % 4)` to
//! `32 (w % 4) + 31`, and its address must name the first of them.
//! `tcgen05.cp` (one thread, done when issued) copies rows of a matrix in
//! shared memory, read through its descriptor as K-major rows of 32-bit
//! words, into lanes: 128 rows into 128 lanes, or 4 rows 32 lanes apart.

use super::tensor::half_to_f32;
use super::{arg, e, Exec, Flow, LaneErr, Thread, R};
use crate::decode::Tcgen05;
use crate::descriptor::{DescFor, Elem, InstrDesc, MatrixDesc};
use crate::memory::Space;
use crate::program::{Inst, Ty};
use crate::FaultKind;
use crate::RunError;

/// Lanes (rows) of a block's tensor memory.
const LANES: u32 = 128;
/// Columns of 32-bit cells per lane.
const COLUMNS: u32 = 512;

/// One block's tensor memory.
#[derive(Default)]
pub(super) struct Tmem {
    /// `LANES * COLUMNS` cells, lane by lane; empty until the first
    /// allocation.
    cells: Vec<u32>,
    /// The live allocations: first column, columns, and where they were
    /// made (function, instruction, thread) for the fault of one never
    /// freed.
    pub(super) allocs: Vec<TmemAlloc>,
    relinquished: bool,
}

#[derive(Clone, Copy)]
pub(super) struct TmemAlloc {
    pub first: u32,
    pub columns: u32,
    pub func: usize,
    pub pc: usize,
    pub tid: [u32; 3],
}

/// A TMEM address's lane and column.
fn split(taddr: u64) -> (u32, u32) {
    (((taddr >> 16) & 0xffff) as u32, (taddr & 0xffff) as u32)
}

impl Tmem {
    /// The first free, size-aligned run of `columns` columns.
    fn place(&self, columns: u32) -> Option<u32> {
        (0..COLUMNS).step_by(columns as usize).find(|&first| {
            self.allocs
                .iter()
                .all(|a| first + columns <= a.first || a.first + a.columns <= first)
        })
    }

    /// Checks that columns `col .. col + n` lie in one allocation.
    fn check_columns(&self, col: u32, n: u32, what: &str) -> R<()> {
        let inside = self
            .allocs
            .iter()
            .any(|a| a.first <= col && col + n <= a.first + a.columns);
        if inside {
            return Ok(());
        }
        let live: Vec<String> = self
            .allocs
            .iter()
            .map(|a| format!("{}..{}", a.first, a.first + a.columns))
            .collect();
        Err(e(
            FaultKind::OutOfBounds,
            format!(
                "{what} reaches tensor-memory columns {col}..{} outside every allocation (allocated: {})",
                col + n,
                if live.is_empty() { "none".to_string() } else { live.join(", ") }
            ),
        ))
    }

    fn cell(&mut self, lane: u32, col: u32) -> &mut u32 {
        &mut self.cells[(lane * COLUMNS + col) as usize]
    }
}

impl Exec<'_> {
    fn tmem(&mut self) -> &mut Tmem {
        &mut self.tmem[self.rank]
    }

    /// The value of operand `k` of the warp's first lane; a `.sync.aligned`
    /// instruction needs the same value in every lane.
    fn uniform(
        &self,
        threads: &[Thread],
        members: &[usize],
        inst: &Inst,
        k: usize,
        ty: Ty,
    ) -> Result<u64, LaneErr> {
        let op = arg(inst, k).map_err(|x| (members[0], x))?;
        let first = self
            .get(&threads[members[0]], op, ty)
            .map_err(|x| (members[0], x))?;
        for &i in members {
            let v = self.get(&threads[i], op, ty).map_err(|x| (i, x))?;
            if v != first {
                let msg = format!(
                    "operand {} of a `.sync.aligned` instruction differs between the lanes of the warp ({first:#x} and {v:#x})",
                    k + 1
                );
                return Err((i, e(FaultKind::BarrierDivergence, msg)));
            }
        }
        Ok(first)
    }

    /// `tcgen05.alloc [dst], ncols`.
    pub(super) fn tmem_alloc(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
    ) -> Result<(), LaneErr> {
        let first = members[0];
        let columns = self.uniform(threads, members, inst, 1, Ty::U32)? as u32;
        let fail = |msg: String| (first, e(FaultKind::OutOfBounds, msg));
        if !columns.is_power_of_two() || !(32..=COLUMNS).contains(&columns) {
            return Err(fail(format!(
                "tcgen05.alloc of {columns} columns: the count must be a power of two from 32 to {COLUMNS}"
            )));
        }
        if self.tmem().relinquished {
            return Err(fail(
                "tcgen05.alloc after the block relinquished its allocation permit".into(),
            ));
        }
        let Some(at) = self.tmem().place(columns) else {
            return Err(fail(format!(
                "tcgen05.alloc of {columns} columns: the block's tensor memory has no free run of them (a GPU would wait for a dealloc; the emulator runs one cluster at a time)"
            )));
        };
        let t = &threads[first];
        let fr = t.frames.last().expect("frame");
        let record = TmemAlloc {
            first: at,
            columns,
            func: fr.func,
            pc: fr.pc,
            tid: t.tid,
        };
        let tmem = self.tmem();
        if tmem.cells.is_empty() {
            tmem.cells = vec![0; (LANES * COLUMNS) as usize];
        }
        tmem.allocs.push(record);
        let dst = arg(inst, 0)
            .and_then(|o| self.addr(&threads[first], o))
            .map_err(|x| (first, x))?;
        self.store(
            &mut threads[first],
            Some(Space::Shared),
            dst,
            4,
            u64::from(at),
        )
        .map_err(|x| (first, x))
    }

    /// `tcgen05.dealloc taddr, ncols`: frees the allocation at `taddr`,
    /// which must have been made with `ncols` columns.
    pub(super) fn tmem_dealloc(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
    ) -> Result<(), LaneErr> {
        let taddr = self.uniform(threads, members, inst, 0, Ty::U32)?;
        let columns = self.uniform(threads, members, inst, 1, Ty::U32)? as u32;
        let (lane, col) = split(taddr);
        let tmem = self.tmem();
        let found = tmem
            .allocs
            .iter()
            .position(|a| lane == 0 && a.first == col && a.columns == columns);
        match found {
            Some(k) => {
                tmem.allocs.remove(k);
                Ok(())
            }
            None => Err((
                members[0],
                e(
                    FaultKind::OutOfBounds,
                    format!(
                        "tcgen05.dealloc of {columns} columns at {taddr:#x}: no allocation starts there with that size"
                    ),
                ),
            )),
        }
    }

    /// `tcgen05.relinquish_alloc_permit`.
    pub(super) fn tmem_relinquish(&mut self) {
        self.tmem().relinquished = true;
    }

    /// `tcgen05.ld`/`tcgen05.st` `.32x32b.x{n}`: lane `l` of the warp
    /// moves columns `col .. col + n` of TMEM lane `32 (w % 4) + l`.
    pub(super) fn tmem_load_store(
        &mut self,
        threads: &mut [Thread],
        members: &[usize],
        inst: &Inst,
        store: bool,
        n: u32,
    ) -> Result<(), LaneErr> {
        let (regs_at, addr_at) = if store { (1, 0) } else { (0, 1) };
        let first = members[0];
        let op = arg(inst, addr_at).map_err(|x| (first, x))?;
        let taddr = self.addr(&threads[first], op).map_err(|x| (first, x))?;
        for &i in members {
            let a = self.addr(&threads[i], op).map_err(|x| (i, x))?;
            if a != taddr {
                let msg = format!("the tensor-memory address differs between the lanes of the warp ({taddr:#x} and {a:#x})");
                return Err((i, e(FaultKind::BarrierDivergence, msg)));
            }
        }
        let (lane, col) = split(taddr);
        let base = 32 * ((threads[first].linear / 32) % 4);
        if lane != base {
            let msg = format!(
                "warp {} may reach tensor-memory lanes {base}..{} only, from an address whose lane is {base}; this one's is {lane}",
                threads[first].linear / 32,
                base + 32
            );
            return Err((first, e(FaultKind::OutOfBounds, msg)));
        }
        let what = if store { "tcgen05.st" } else { "tcgen05.ld" };
        self.tmem()
            .check_columns(col, n, what)
            .map_err(|x| (first, x))?;
        if store {
            let vals = self.lane_regs(threads, members, inst, regs_at, n as usize)?;
            for (l, row) in vals.iter().enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    *self.tmem().cell(base + l as u32, col + j as u32) = v as u32;
                }
            }
            return Ok(());
        }
        let out: Vec<Vec<u64>> = (0..32)
            .map(|l| {
                (0..n)
                    .map(|j| u64::from(*self.tmem().cell(base + l, col + j)))
                    .collect()
            })
            .collect();
        self.set_lane_regs(threads, members, inst, regs_at, &out)
    }

    /// The single-thread `tcgen05` instructions.
    pub(super) fn tcgen05(&mut self, t: &mut Thread, inst: &Inst, op: Tcgen05) -> R<Flow> {
        match op {
            Tcgen05::Mma { tf32 } => self.tcgen05_mma(t, inst, tf32)?,
            Tcgen05::Commit => {
                let bar = self.addr(t, arg(inst, 0)?)?;
                self.mbar_arrive(t, inst, Some(Space::Shared), bar, 0)?;
            }
            Tcgen05::Copy { rows, words } => self.tcgen05_copy(t, inst, rows, words)?,
        }
        Ok(Flow::Next)
    }

    /// `tcgen05.mma [d], a-desc, b-desc, idesc, enable-input-d`.
    fn tcgen05_mma(&mut self, t: &mut Thread, inst: &Inst, tf32: bool) -> R<()> {
        let d = self.addr(t, arg(inst, 0)?)?;
        let desc = |ex: &Self, k: usize| -> R<MatrixDesc> {
            let v = ex.get(t, arg(inst, k)?, Ty::B64)?;
            MatrixDesc::decode(v, DescFor::Tcgen05).map_err(|m| e(FaultKind::Unsupported, m))
        };
        let (a_desc, b_desc) = (desc(self, 1)?, desc(self, 2)?);
        let idesc = self.get(t, arg(inst, 3)?, Ty::B32)? as u32;
        let idesc = InstrDesc::decode(idesc, tf32).map_err(|m| e(FaultKind::Unsupported, m))?;
        let accumulate = self.get(t, arg(inst, 4)?, Ty::PRED)? & 1 == 1;
        let (lane, col) = split(d);
        if lane != 0 {
            return Err(e(
                FaultKind::OutOfBounds,
                format!("tcgen05.mma's D address {d:#x} names lane {lane}; D starts at lane 0"),
            ));
        }
        self.tmem().check_columns(col, idesc.n, "tcgen05.mma's D")?;
        let k = idesc.k();
        let read = |ex: &mut Self, t: &mut Thread, desc: &MatrixDesc, row: u32, neg: bool| {
            (0..k)
                .map(|kk| {
                    let at = desc.k_major(row, kk, idesc.elem.bytes());
                    let v = ex.operand_elem(t, at, idesc.elem)?;
                    Ok(if neg { -v } else { v })
                })
                .collect::<R<Vec<f32>>>()
        };
        let a: Vec<Vec<f32>> = (0..idesc.m)
            .map(|m| read(self, t, &a_desc, m, idesc.negate_a))
            .collect::<R<_>>()?;
        let b: Vec<Vec<f32>> = (0..idesc.n)
            .map(|n| read(self, t, &b_desc, n, idesc.negate_b))
            .collect::<R<_>>()?;
        for (m, arow) in a.iter().enumerate() {
            let lane = idesc.d_lane(m as u32);
            for (n, brow) in b.iter().enumerate() {
                let cell = self.tmem().cell(lane, col + n as u32);
                let mut acc = if accumulate {
                    f32::from_bits(*cell)
                } else {
                    0.0
                };
                for (x, y) in arow.iter().zip(brow) {
                    acc = x.mul_add(*y, acc);
                }
                *cell = acc.to_bits();
            }
        }
        Ok(())
    }

    /// `tcgen05.cp [taddr], s-desc`: row `r` of the shared matrix (the
    /// descriptor's canonical K-major layout, rows of `4 * words` bytes)
    /// into lane `r` (128 rows) or `32 r` (4 rows) after the address's,
    /// word `j` into column `col + j`.
    fn tcgen05_copy(&mut self, t: &mut Thread, inst: &Inst, rows: u32, words: u32) -> R<()> {
        let taddr = self.addr(t, arg(inst, 0)?)?;
        let v = self.get(t, arg(inst, 1)?, Ty::B64)?;
        let desc =
            MatrixDesc::decode(v, DescFor::Tcgen05).map_err(|m| e(FaultKind::Unsupported, m))?;
        let (lane, col) = split(taddr);
        let step = if rows == 4 { 32 } else { 1 };
        if lane + step * (rows - 1) >= LANES {
            return Err(e(
                FaultKind::OutOfBounds,
                format!("tcgen05.cp of {rows} rows from lane {lane} leaves the 128 lanes"),
            ));
        }
        self.tmem().check_columns(col, words, "tcgen05.cp")?;
        for r in 0..rows {
            for j in 0..words {
                let at = desc.k_major(r, j, 4);
                let w = self.window_load(t, at, 4, "a tcgen05.cp matrix descriptor")? as u32;
                *self.tmem().cell(lane + step * r, col + j) = w;
            }
        }
        Ok(())
    }

    /// The A or B element at shared address `at`, as an f32 (a tf32 is an
    /// f32 whose low 13 fraction bits the tensor core ignores).
    fn operand_elem(&mut self, t: &mut Thread, at: u64, elem: Elem) -> R<f32> {
        let bits = self.window_load(
            t,
            at,
            u64::from(elem.bytes()),
            "a tcgen05.mma matrix descriptor",
        )?;
        Ok(match elem {
            Elem::F16 => half_to_f32(bits, false),
            Elem::Bf16 => half_to_f32(bits, true),
            Elem::Tf32 => f32::from_bits(bits as u32 & !0x1fff),
        })
    }

    /// The fault of a block that ends with tensor memory still allocated
    /// (the PTX ISA requires every allocation freed first), located at the
    /// `tcgen05.alloc` that made it.
    pub(super) fn tmem_leak(&self, rank: usize) -> Option<RunError> {
        let a = self.tmem.get(rank)?.allocs.first()?;
        let err = e(
            FaultKind::BarrierDivergence,
            format!(
                "the block ended with tensor-memory columns {}..{} still allocated (by thread ({},{},{}) here); every allocation must be freed with tcgen05.dealloc first",
                a.first,
                a.first + a.columns,
                a.tid[0],
                a.tid[1],
                a.tid[2]
            ),
        );
        Some(self.fault_at(Some((a.func, a.pc)), a.tid, err, vec![]))
    }
}
