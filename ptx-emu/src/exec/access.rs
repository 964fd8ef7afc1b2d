//! The instructions that reach memory: `ld`/`st`, atomics, `cvta` and
//! `isspacep`, `cp.async` and the mbarriers.

use super::{arg, e, Exec, Flow, Thread, R};
use crate::decode::{Atom, AtomOp, Mbar};
use crate::memory::{self, Space};
use crate::ops;
use crate::program::{Inst, Operand, Ty};
use crate::FaultKind;

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

    /// `mbarrier.init/arrive[.expect_tx]/test_wait/try_wait[.parity]` on a
    /// 64-bit object: bit 63 is the phase, bits 0..20 the arrivals still
    /// expected, 20..40 the count of each phase, 40..63 the transaction
    /// bytes still expected. A wait that finds its phase incomplete yields,
    /// so the threads that will arrive get to run.
    pub(super) fn mbarrier(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        op: Mbar,
        space: Option<Space>,
    ) -> R<Flow> {
        const COUNT: u64 = (1 << 20) - 1;
        const TX: u64 = (1 << 23) - 1;
        match op {
            Mbar::Init => {
                let addr = self.addr(t, arg(inst, 0)?)?;
                let count = self.get(t, arg(inst, 1)?, Ty::B64)? & 0xffff_ffff;
                if count == 0 || count > COUNT {
                    return Err(e(
                        FaultKind::Unsupported,
                        format!("mbarrier count {count} is outside 1..={COUNT}"),
                    ));
                }
                self.store(t, space, addr, 8, (count << 20) | count)?;
                Ok(Flow::Next)
            }
            Mbar::Arrive { expect_tx } => {
                let addr = self.addr(t, arg(inst, 1)?)?;
                let tx = if expect_tx {
                    self.get(t, arg(inst, 2)?, Ty::B64)? & 0xffff_ffff
                } else {
                    0
                };
                let state = self.load(t, space, addr, 8)?;
                let (mut pending, count) = (state & COUNT, (state >> 20) & COUNT);
                let mut bytes = (state >> 40) & TX;
                if pending == 0 || count == 0 {
                    return Err(e(
                        FaultKind::Unsupported,
                        format!("{}: the mbarrier was not initialized", inst.name),
                    ));
                }
                pending -= 1;
                bytes = (bytes + tx).min(TX);
                let mut phase = state >> 63;
                if pending == 0 && bytes == 0 {
                    phase ^= 1;
                    pending = count;
                }
                let next = (phase << 63) | (bytes << 40) | (count << 20) | pending;
                self.store(t, space, addr, 8, next)?;
                // The token is the phase the arrival belongs to.
                self.put(t, inst, state >> 63, Ty::B64)
            }
            Mbar::Wait => {
                let addr = self.addr(t, arg(inst, 1)?)?;
                // A parity, or a token from `arrive` (the phase, 0 or 1).
                let want = self.get(t, arg(inst, 2)?, Ty::B64)? & 1;
                let state = self.load(t, space, addr, 8)?;
                // The phase `want` is over once the current phase differs.
                let done = (state >> 63) != want;
                self.put(t, inst, u64::from(done), Ty::PRED)?;
                Ok(if done { Flow::Next } else { Flow::Yield })
            }
        }
    }

    /// `cp.async`: threads run one at a time, so the copy is done at once.
    pub(super) fn cp_async(&mut self, t: &mut Thread, inst: &Inst, size: u64) -> R<Flow> {
        let dst = self.addr(t, arg(inst, 0)?)?;
        let src = self.addr(t, arg(inst, 1)?)?;
        for off in (0..size).step_by(4) {
            let v = self.load(t, Some(Space::Global), src.wrapping_add(off), 4)?;
            self.store(t, Some(Space::Shared), dst.wrapping_add(off), 4, v)?;
        }
        Ok(Flow::Next)
    }
}
