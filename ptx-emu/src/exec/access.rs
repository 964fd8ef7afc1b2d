//! The instructions that reach memory: `ld`/`st`, atomics, `cvta` and
//! `isspacep`, `cp.async` and the mbarriers.

use super::{arg, e, Exec, Flow, Thread, R};
use crate::decode::{Atom, AtomOp, Mbar};
use crate::memory::{self, Space};
use crate::ops;
use crate::program::{Inst, Operand, Ty};
use crate::{tma, FaultKind};

/// The elements of a scalar or `{...}` vector operand.
fn elements(o: &Operand) -> &[Operand] {
    match o {
        Operand::Vector(items) => items,
        o => std::slice::from_ref(o),
    }
}

impl Exec<'_> {
    /// `ld`: a vector destination reads consecutive elements.
    pub(super) fn ld(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        space: Option<Space>,
    ) -> R<Flow> {
        let addr = self.addr(t, arg(inst, 1)?)?;
        let n = ty.bytes();
        for (i, d) in elements(arg(inst, 0)?).iter().enumerate() {
            let v = self.load(t, space, addr.wrapping_add(n * i as u64), n)?;
            self.set(t, d, v, ty)?;
        }
        Ok(Flow::Next)
    }

    /// `st`: a vector source writes consecutive elements (`_` skips one).
    pub(super) fn st(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        space: Option<Space>,
    ) -> R<Flow> {
        let addr = self.addr(t, arg(inst, 0)?)?;
        let n = ty.bytes();
        for (i, s) in elements(arg(inst, 1)?).iter().enumerate() {
            if matches!(s, Operand::Sink) {
                continue;
            }
            let v = self.get(t, s, ty)?;
            self.store(t, space, addr.wrapping_add(n * i as u64), n, v)?;
        }
        Ok(Flow::Next)
    }

    /// `cvta.SPACE` and `cvta.to.SPACE`. An address outside the window
    /// converts to a value no access can use (`memory::BAD_CONVERSION`):
    /// the fault, if any, is at the access, as on a GPU.
    pub(super) fn cvta(
        &self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        space: Space,
        to: bool,
    ) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, Ty::B64)?;
        let r = if a == 0 {
            0
        } else if to {
            match memory::decode_generic(a) {
                Some(l) if l.space == space => memory::space_addr(space, l.index, l.offset),
                _ => memory::BAD_CONVERSION,
            }
        } else {
            match memory::decode_space(space, a) {
                Ok(l) => memory::generic(space, l.index, l.offset),
                Err(_) => memory::BAD_CONVERSION,
            }
        };
        self.put(t, inst, r, ty)
    }

    /// `mapa`: the same shared variable's byte in the block of the cluster
    /// whose rank the third operand gives, as an address of the same kind
    /// (generic, or `.shared::cluster`). An address that is not in shared
    /// memory maps to one no access can use, as `cvta` does.
    pub(super) fn mapa(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        space: Option<Space>,
    ) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, ty)?;
        let rank = self.get(t, arg(inst, 2)?, Ty::U32)? as usize;
        let mapped = match space {
            None => match memory::decode_generic(a) {
                Some(l) if l.space == Space::Shared => {
                    let index = memory::cluster_index(rank, l.index);
                    memory::generic(Space::Shared, index, l.offset)
                }
                _ => memory::BAD_CONVERSION,
            },
            Some(_) => match memory::decode_space(Space::Shared, a) {
                Ok(l) => memory::space_addr(
                    Space::Shared,
                    memory::cluster_index(rank, l.index),
                    l.offset,
                ),
                Err(_) => memory::BAD_CONVERSION,
            },
        };
        self.put(t, inst, mapped, ty)
    }

    /// `isspacep.SPACE p, a`: whether the generic address is in the window.
    pub(super) fn isspacep(&self, t: &mut Thread, inst: &Inst, space: Space) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, Ty::B64)?;
        let p = memory::decode_generic(a).is_some_and(|l| l.space == space);
        self.put(t, inst, u64::from(p), Ty::PRED)
    }

    /// `atom` and `red` on one value (or one pair of 16-bit floats): a
    /// plain read-modify-write.
    pub(super) fn atomic(&mut self, t: &mut Thread, inst: &Inst, a: &Atom) -> R<Flow> {
        let first = usize::from(!a.red);
        let word = a.word();
        let addr = self.addr(t, arg(inst, first)?)?;
        let b = self.get(t, arg(inst, first + 1)?, word)?;
        let n = word.bytes();
        let old = self.load(t, a.space, addr, n)?;
        let new = if a.op == AtomOp::Cas {
            let c = self.get(t, arg(inst, first + 2)?, word)?;
            if old == b {
                c
            } else {
                old
            }
        } else if a.packed {
            ops::packed_atomic_add(a.ty, old, b)
        } else {
            ops::atomic(a.op, a.ty, old, b)
        };
        self.store(t, a.space, addr, n, new)?;
        if !a.red {
            self.put(t, inst, old, word)?;
        }
        Ok(Flow::Next)
    }

    /// `atom.add.v2.f32 {d..}, [a], {b..}` and `red.add.v4.f32 [a], {b..}`
    /// (sm_90): each element is added on its own, in global memory only
    /// (a generic address must land there), at an address aligned to the
    /// whole vector.
    pub(super) fn vector_atomic(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        n: u64,
        space: Option<Space>,
        red: bool,
    ) -> R<Flow> {
        let first = usize::from(!red);
        let addr = self.addr(t, arg(inst, first)?)?;
        if space.is_none() {
            if let Some(loc) = memory::decode_generic(addr).filter(|_| addr != 0) {
                if loc.space != Space::Global {
                    return Err(e(
                        FaultKind::WrongSpace,
                        format!(
                            "`{}`: vector atomics need global memory, but {addr:#x} is a {} address",
                            inst.name,
                            loc.space.name()
                        ),
                    ));
                }
            }
        }
        let size = ty.bytes();
        if addr != 0 && !addr.is_multiple_of(n * size) {
            return Err(e(
                FaultKind::Misaligned,
                format!(
                    "`{}`: address {addr:#x} is not aligned to the {}-byte vector",
                    inst.name,
                    n * size
                ),
            ));
        }
        let srcs = elements(arg(inst, first + 1)?);
        let mut olds = Vec::with_capacity(srcs.len());
        for (k, src) in srcs.iter().enumerate() {
            let b = self.get(t, src, ty)?;
            let at = addr.wrapping_add(size * k as u64);
            let old = self.load(t, space, at, size)?;
            self.store(t, space, at, size, ops::atomic(AtomOp::Add, ty, old, b))?;
            olds.push(old);
        }
        if !red {
            for (d, old) in elements(arg(inst, 0)?).iter().zip(olds) {
                self.set(t, d, old, ty)?;
            }
        }
        Ok(Flow::Next)
    }

    /// `mbarrier.init/arrive[.expect_tx]/test_wait/try_wait[.parity]`,
    /// `expect_tx` and `complete_tx` on a 64-bit object ([`MbarState`]). A
    /// wait that finds its phase incomplete yields, so the threads that will
    /// arrive get to run.
    pub(super) fn mbarrier(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        op: Mbar,
        space: Option<Space>,
    ) -> R<Flow> {
        match op {
            Mbar::Init => {
                let addr = self.addr(t, arg(inst, 0)?)?;
                let count = self.get(t, arg(inst, 1)?, Ty::B64)? & 0xffff_ffff;
                if count == 0 || count > MbarState::COUNT {
                    return Err(e(
                        FaultKind::Unsupported,
                        format!("mbarrier count {count} is outside 1..={}", MbarState::COUNT),
                    ));
                }
                let init = MbarState {
                    phase: 0,
                    pending: count,
                    count,
                    tx: 0,
                };
                self.store(t, space, addr, 8, init.pack())?;
                Ok(Flow::Next)
            }
            Mbar::Arrive { expect_tx } => {
                let addr = self.addr(t, arg(inst, 1)?)?;
                let tx = if expect_tx {
                    self.get(t, arg(inst, 2)?, Ty::B64)? & 0xffff_ffff
                } else {
                    0
                };
                let token = self.mbar_arrive(t, inst, space, addr, tx as i64)?;
                self.put(t, inst, token, Ty::B64)
            }
            Mbar::Wait => {
                let addr = self.addr(t, arg(inst, 1)?)?;
                // A parity, or a token from `arrive` (the phase, 0 or 1).
                let want = self.get(t, arg(inst, 2)?, Ty::B64)? & 1;
                let state = self.load(t, space, addr, 8)?;
                // The phase `want` is over once the current phase differs.
                let done = MbarState::unpack(state).phase != want;
                self.put(t, inst, u64::from(done), Ty::PRED)?;
                Ok(if done { Flow::Next } else { Flow::Yield })
            }
            Mbar::Tx { complete } => {
                let addr = self.addr(t, arg(inst, 0)?)?;
                let bytes = (self.get(t, arg(inst, 1)?, Ty::B64)? & 0xffff_ffff) as i64;
                let delta = if complete { -bytes } else { bytes };
                self.mbarrier_tx(t, inst, space, addr, delta)?;
                Ok(Flow::Next)
            }
        }
    }

    /// One arrival at the mbarrier at `addr`, with `tx` more transaction
    /// bytes expected; returns the token (the phase it belongs to).
    pub(super) fn mbar_arrive(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        space: Option<Space>,
        addr: u64,
        tx: i64,
    ) -> R<u64> {
        let mut state = self.mbar_state(t, inst, space, addr)?;
        let token = state.phase;
        if state.pending == 0 {
            return Err(e(
                FaultKind::BarrierDivergence,
                format!(
                    "{}: more arrivals in one phase than the mbarrier's count, {}",
                    inst.name, state.count
                ),
            ));
        }
        state.pending -= 1;
        state.add_tx(tx);
        self.store(t, space, addr, 8, state.settled().pack())?;
        Ok(token)
    }

    /// The state of the initialized mbarrier at `addr`.
    fn mbar_state(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        space: Option<Space>,
        addr: u64,
    ) -> R<MbarState> {
        let state = MbarState::unpack(self.load(t, space, addr, 8)?);
        if state.count == 0 {
            return Err(e(
                FaultKind::Unsupported,
                format!("{}: the mbarrier was not initialized", inst.name),
            ));
        }
        Ok(state)
    }

    /// Adds `delta` transaction bytes to the current phase of the mbarrier
    /// at `addr` (negative: bytes that have arrived, `complete_tx`); the
    /// phase ends when no arrival and no byte is pending.
    pub(super) fn mbarrier_tx(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        space: Option<Space>,
        addr: u64,
        delta: i64,
    ) -> R<()> {
        let mut state = self.mbar_state(t, inst, space, addr)?;
        state.add_tx(delta);
        self.store(t, space, addr, 8, state.settled().pack())
    }

    /// `cp.async.bulk.tensor.2d`: the box at the coordinates, between the
    /// tensor map's global matrix and shared memory, done at once; a load
    /// fills elements outside the matrix with zeros and completes the box's
    /// bytes at its mbarrier, a store skips them.
    pub(super) fn bulk_tensor(&mut self, t: &mut Thread, inst: &Inst, load: bool) -> R<Flow> {
        let (map_at, smem_at) = if load { (1, 0) } else { (0, 1) };
        let Operand::Handle(map_addr, coords) = arg(inst, map_at)? else {
            return Err(e(
                FaultKind::Unsupported,
                "a TMA copy without its tensor map",
            ));
        };
        let map_addr = self.get(t, map_addr, Ty::B64)?;
        let map = self.tensor_map(t, map_addr)?;
        let coord = |ex: &Self, k: usize| -> R<i64> {
            let op = coords
                .get(k)
                .ok_or_else(|| e(FaultKind::Unsupported, "a coordinate"))?;
            Ok(i64::from(ex.get(t, op, Ty::S32)? as u32 as i32))
        };
        let (x, y) = (coord(self, 0)?, coord(self, 1)?);
        let smem = self.addr(t, arg(inst, smem_at)?)?;
        if smem % 16 != 0 {
            return Err(e(
                FaultKind::Misaligned,
                format!("the shared memory of a TMA copy at {smem:#x} is not 16-byte aligned"),
            ));
        }
        let size = u64::from(map.elem_bytes);
        for (k, global) in tma::box_elements(&map, x, y).into_iter().enumerate() {
            let shared = tma::box_shared_addr(&map, smem, k as u64);
            if load {
                let v = match global {
                    Some(g) => self.load(t, Some(Space::Global), g, size)?,
                    None => 0,
                };
                self.store(t, Some(Space::Shared), shared, size, v)?;
            } else if let Some(g) = global {
                let v = self.load(t, Some(Space::Shared), shared, size)?;
                self.store(t, Some(Space::Global), g, size, v)?;
            }
        }
        if load {
            let mbar = self.addr(t, arg(inst, 2)?)?;
            self.mbarrier_tx(
                t,
                inst,
                Some(Space::Shared),
                mbar,
                -(map.box_bytes() as i64),
            )?;
        }
        Ok(Flow::Next)
    }

    /// The emulator's tensor map at `addr`: a generic address (of the
    /// `__grid_constant__` parameter, after `cvta.param`) or a `.param` one.
    fn tensor_map(&mut self, t: &mut Thread, addr: u64) -> R<tma::MapInfo> {
        let space = match memory::decode_generic(addr) {
            Some(_) => None,
            None => Some(Space::Param),
        };
        let mut bytes = Vec::with_capacity(tma::TENSOR_MAP_BYTES);
        for off in (0..tma::TENSOR_MAP_BYTES as u64).step_by(8) {
            let word = self.load(t, space, addr.wrapping_add(off), 8)?;
            bytes.extend(word.to_le_bytes());
        }
        tma::decode(&bytes).map_err(|m| e(FaultKind::Unsupported, m))
    }

    /// `cp.async.bulk [dst], [src], size[, [mbar]]`: `size` bytes (a
    /// multiple of 16, both addresses 16-byte aligned), done at once; into
    /// shared memory, the bytes complete at the mbarrier.
    pub(super) fn bulk(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        dst: Space,
        src: Space,
        mbar: bool,
    ) -> R<Flow> {
        let to = self.addr(t, arg(inst, 0)?)?;
        let from = self.addr(t, arg(inst, 1)?)?;
        let size = self.get(t, arg(inst, 2)?, Ty::U32)?;
        if size % 16 != 0 || to % 16 != 0 || from % 16 != 0 {
            return Err(e(
                FaultKind::Misaligned,
                format!(
                    "a bulk copy of {size} bytes from {from:#x} to {to:#x}: the size and both \
                     addresses must be multiples of 16"
                ),
            ));
        }
        for off in (0..size).step_by(8) {
            let v = self.load(t, Some(src), from.wrapping_add(off), 8)?;
            self.store(t, Some(dst), to.wrapping_add(off), 8, v)?;
        }
        if mbar {
            let at = self.addr(t, arg(inst, 3)?)?;
            self.mbarrier_tx(t, inst, Some(Space::Shared), at, -(size as i64))?;
        }
        Ok(Flow::Next)
    }

    /// `cp.async`: threads run one at a time, so the copy is done at once.
    /// With a source size (`[d], [s], 16, n`), the first `n` bytes are read
    /// and the rest of the `size` are zeros; `n` above `size` is a fault,
    /// as the ISA leaves it undefined.
    pub(super) fn cp_async(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        size: u64,
        source_size: bool,
    ) -> R<Flow> {
        let dst = self.addr(t, arg(inst, 0)?)?;
        let src = self.addr(t, arg(inst, 1)?)?;
        let read = match source_size {
            true => self.get(t, arg(inst, 3)?, Ty::U32)?,
            false => size,
        };
        if read > size {
            return Err(e(
                FaultKind::Unsupported,
                format!("a cp.async of {size} bytes with a source size of {read}"),
            ));
        }
        if read == size {
            for off in (0..size).step_by(4) {
                let v = self.load(t, Some(Space::Global), src.wrapping_add(off), 4)?;
                self.store(t, Some(Space::Shared), dst.wrapping_add(off), 4, v)?;
            }
            return Ok(Flow::Next);
        }
        for off in 0..size {
            let v = match off < read {
                true => self.load(t, Some(Space::Global), src.wrapping_add(off), 1)?,
                false => 0,
            };
            self.store(t, Some(Space::Shared), dst.wrapping_add(off), 1, v)?;
        }
        Ok(Flow::Next)
    }
}

/// An mbarrier's 64 bits: bit 63 is the phase, bits 0..20 the arrivals
/// still expected, 20..40 the count of each phase, and 40..63 the
/// transaction count, signed (the bytes expected and not yet arrived; a
/// copy may complete its bytes before its thread expects them).
struct MbarState {
    phase: u64,
    pending: u64,
    count: u64,
    tx: i64,
}

impl MbarState {
    const COUNT: u64 = (1 << 20) - 1;
    const TX_BITS: u32 = 23;

    fn unpack(v: u64) -> MbarState {
        let field = (v >> 40) & ((1 << Self::TX_BITS) - 1);
        MbarState {
            phase: v >> 63,
            pending: v & Self::COUNT,
            count: (v >> 20) & Self::COUNT,
            tx: ops::sext(field, Self::TX_BITS),
        }
    }

    fn pack(&self) -> u64 {
        let tx = (self.tx as u64) & ((1 << Self::TX_BITS) - 1);
        (self.phase << 63) | (tx << 40) | (self.count << 20) | self.pending
    }

    /// Adds transaction bytes, kept within the field.
    fn add_tx(&mut self, delta: i64) {
        let limit = (1 << (Self::TX_BITS - 1)) - 1;
        self.tx = (self.tx + delta).clamp(-limit, limit);
    }

    /// Ends the phase once nothing is pending: the next phase expects the
    /// count's arrivals again.
    fn settled(mut self) -> MbarState {
        if self.pending == 0 && self.tx == 0 {
            self.phase ^= 1;
            self.pending = self.count;
        }
        self
    }
}
