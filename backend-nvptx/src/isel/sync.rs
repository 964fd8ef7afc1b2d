//! Selection of what threads synchronize and communicate with: barriers
//! (`bar.sync`, `bar.red`), atomics, fences, warp collectives (`shfl`,
//! `vote`, `redux`, `match`), and the side effects and address-space tests
//! that go with them (`trap`, `isspacep`).
//!
//! An atomic whose old value nobody reads becomes `red` (a reduction):
//! PTX lets the hardware skip returning the value, as nvcc does.

use super::error::{Malformed, NotSelected, TargetLacks, VECTOR_ATOMIC};
use super::{space_of, Isel, IselResult};
use crate::minst::{AccelArg, MInst, Operand, PtxType, RegClass, Space};
use midend::ir::{
    is_packed_pair_element, AddrSpace, AtomicOp, BarrierRedOp, MatchMode, MemScope, Opcode,
    ReduxOp, ShuffleMode, Type, Value, VoteMode,
};

/// The scope qualifier of an atomic: empty for the device scope, which is
/// what plain `atom` means (and what nvcc emits for `atomicAdd`).
fn scope_suffix(scope: MemScope) -> &'static str {
    match scope {
        MemScope::Cta => ".cta",
        MemScope::Gpu => "",
        MemScope::Sys => ".sys",
    }
}

/// The PTX operation and type of `atomic_rmw OP` on `ty`. `atom.add` has no
/// `.s64` form, so 64-bit integer adds use `.u64` (the bits are the same);
/// a 16-bit float add must say `.noftz` (ptxas refuses it without), which
/// is what it does: subnormals are kept.
fn atom_form(op: AtomicOp, ty: Type) -> IselResult<(&'static str, PtxType)> {
    use AtomicOp::*;
    let bits = |t: Type| match t {
        Type::I32 | Type::F32 => Ok(PtxType::B32),
        Type::I64 | Type::F64 => Ok(PtxType::B64),
        _ => Err(NotSelected::AtomicRmw { op, ty }),
    };
    let unsigned = |t: Type| match t {
        Type::I32 => Ok(PtxType::U32),
        Type::I64 => Ok(PtxType::U64),
        _ => Err(NotSelected::AtomicRmw { op, ty }),
    };
    let signed = |t: Type| match t {
        Type::I32 => Ok(PtxType::S32),
        Type::I64 => Ok(PtxType::S64),
        _ => Err(NotSelected::AtomicRmw { op, ty }),
    };
    Ok(match op {
        Add => match ty {
            Type::F16 => ("add.noftz", PtxType::F16),
            Type::BF16 => ("add.noftz", PtxType::BF16),
            Type::F32 => ("add", PtxType::F32),
            Type::F64 => ("add", PtxType::F64),
            _ => ("add", unsigned(ty)?),
        },
        Exch => ("exch", bits(ty)?),
        And => ("and", bits(ty)?),
        Or => ("or", bits(ty)?),
        Xor => ("xor", bits(ty)?),
        Smin => ("min", signed(ty)?),
        Smax => ("max", signed(ty)?),
        Umin => ("min", unsigned(ty)?),
        Umax => ("max", unsigned(ty)?),
        Inc if ty == Type::I32 => ("inc", PtxType::U32),
        Dec if ty == Type::I32 => ("dec", PtxType::U32),
        _ => return Err(NotSelected::AtomicRmw { op, ty }.into()),
    })
}

/// The first SM whose `atom`/`red` add 16-bit floats of `ty` (`.f16`
/// and `.f16x2` are older than every target; `.bf16` and `.bf16x2` came
/// with sm_90), and ptxas's name of the instruction.
fn half_atomic_floor(ty: Type) -> Option<(u32, &'static str)> {
    (ty == Type::BF16).then_some((90, "atom.add.bf16"))
}

/// The space an atomic may name. PTX has no atomics on local, const or param.
fn atom_space(ptr_ty: Type) -> IselResult<Space> {
    match ptr_ty {
        Type::Ptr(
            s @ (AddrSpace::Global
            | AddrSpace::Shared
            | AddrSpace::SharedCluster
            | AddrSpace::Generic),
        ) => space_of(s),
        other => Err(NotSelected::AtomicSpace(other).into()),
    }
}

impl Isel<'_> {
    pub(super) fn atomic_rmw(
        &mut self,
        op: AtomicOp,
        scope: MemScope,
        res: Value,
        ptr: Value,
        value: Value,
    ) -> IselResult<()> {
        let ty = self.ty(value);
        let (name, pty) = atom_form(op, ty)?;
        self.require_half_atomic(ty)?;
        let space = atom_space(self.ty(ptr))?;
        let (_, addr) = self.address(ptr)?;
        let b = self.operand(value)?;
        // `red` has no `exch` form: an exchange always names a destination.
        let dst = (self.is_used(res) || op == AtomicOp::Exch).then(|| self.def(res));
        self.emit(MInst::Atom {
            scope: scope_suffix(scope),
            space,
            op: name,
            ty: pty,
            dst,
            addr,
            b,
            c: None,
        });
        Ok(())
    }

    pub(super) fn atomic_cas(
        &mut self,
        scope: MemScope,
        res: Value,
        args: [Value; 3],
    ) -> IselResult<()> {
        let ty = self.ty(args[1]);
        let pty = match ty {
            // In 16-bit registers: ptxas refuses `.b32` ones here.
            Type::I16 => PtxType::B16,
            Type::I32 => PtxType::B32,
            Type::I64 => PtxType::B64,
            _ => {
                return Err(NotSelected::OnType {
                    op: Opcode::AtomicCas,
                    ty,
                }
                .into())
            }
        };
        let space = atom_space(self.ty(args[0]))?;
        let (_, addr) = self.address(args[0])?;
        let b = self.operand(args[1])?;
        let c = self.operand(args[2])?;
        // `red` has no compare-and-swap: the destination is always written.
        let dst = self.def(res);
        self.emit(MInst::Atom {
            scope: scope_suffix(scope),
            space,
            op: "cas",
            ty: pty,
            dst: Some(dst),
            addr,
            b,
            c: Some(c),
        });
        Ok(())
    }

    /// A `bf16` atomic add below sm_90 is a `TargetLacks` (the frontend
    /// writes CUDA's compare-and-swap loop there instead).
    fn require_half_atomic(&self, ty: Type) -> IselResult<()> {
        match half_atomic_floor(ty) {
            Some((sm, feature)) if self.target.sm() < sm => Err(TargetLacks::Feature {
                feature,
                sm,
                target: self.target,
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// `atomic_vec add` on two or four `f32`: `atom.global.add.v2.f32` (or
    /// `red` when no old element is read). PTX has vector atomics on
    /// global memory only, and a generic address as nvcc leaves it in a
    /// function that cannot know better; sm_90 and PTX ISA 8.1. A pair of
    /// 16-bit floats is [`Self::packed_pair_atomic`].
    pub(super) fn atomic_vec(
        &mut self,
        op: AtomicOp,
        scope: MemScope,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        if let [ptr, x, y] = *args {
            if is_packed_pair_element(self.ty(x)) {
                return self.packed_pair_atomic(op, scope, [ptr, x, y], results);
            }
        }
        if self.target.sm() < 90 {
            return Err(TargetLacks::VectorAtomic {
                target: self.target,
            }
            .into());
        }
        let Some((&ptr, elems)) = args.split_first() else {
            return Err(Malformed::VectorAtomicWithoutAddress.into());
        };
        if op != AtomicOp::Add
            || !matches!(elems.len(), 2 | 4)
            || elems.iter().any(|&e| self.ty(e) != Type::F32)
        {
            return Err(NotSelected::VectorAtomic {
                op,
                lanes: elems.len(),
                ty: elems.first().map_or(Type::F32, |&e| self.ty(e)),
            }
            .into());
        }
        let space = match self.ty(ptr) {
            Type::Ptr(s @ (AddrSpace::Global | AddrSpace::Generic)) => space_of(s)?,
            other => return Err(NotSelected::VectorAtomicSpace(other).into()),
        };
        self.features.require(VECTOR_ATOMIC, (8, 1));
        let (_, addr) = self.address(ptr)?;
        let srcs = elems
            .iter()
            .map(|&e| self.reg(e))
            .collect::<IselResult<Vec<_>>>()?;
        let dsts = results
            .iter()
            .any(|&r| self.is_used(r))
            .then(|| results.iter().map(|&r| self.def(r)).collect());
        self.emit(MInst::AtomVec {
            scope: scope_suffix(scope),
            space,
            op: "add",
            ty: PtxType::F32,
            dsts,
            addr,
            srcs,
        });
        Ok(())
    }

    /// `atomic_vec add` on a pair of `f16` (or of `bf16`): the lanes packed
    /// into one `.b32` register (`mov.b32 %r, {%rs_x, %rs_y}`, `x` in the
    /// low half as in memory), one `atom.add.noftz.f16x2` of the word in
    /// any atomic space (`red` when no old lane is read), and the old word
    /// unpacked again.
    fn packed_pair_atomic(
        &mut self,
        op: AtomicOp,
        scope: MemScope,
        [ptr, x, y]: [Value; 3],
        results: &[Value],
    ) -> IselResult<()> {
        let lane = self.ty(x);
        if op != AtomicOp::Add || self.ty(y) != lane || results.len() != 2 {
            return Err(NotSelected::VectorAtomic {
                op,
                lanes: 2,
                ty: lane,
            }
            .into());
        }
        self.require_half_atomic(lane)?;
        let space = atom_space(self.ty(ptr))?;
        let (_, addr) = self.address(ptr)?;
        let lanes = vec![self.reg(x)?, self.reg(y)?];
        let packed = self.new_reg(RegClass::B32);
        self.emit(MInst::Accel {
            op: "mov.b32".into(),
            args: vec![AccelArg::Def(packed), AccelArg::UseVec(lanes)],
        });
        let used = results.iter().any(|&r| self.is_used(r));
        let old = used.then(|| self.new_reg(RegClass::B32));
        let ty = if lane == Type::BF16 {
            PtxType::BF16x2
        } else {
            PtxType::F16x2
        };
        self.emit(MInst::Atom {
            scope: scope_suffix(scope),
            space,
            op: "add.noftz",
            ty,
            dst: old,
            addr,
            b: packed.into(),
            c: None,
        });
        if let Some(old) = old {
            let olds = results.iter().map(|&r| self.def(r)).collect();
            self.emit(MInst::Accel {
                op: "mov.b32".into(),
                args: vec![AccelArg::DefVec(olds), AccelArg::Use(old.into())],
            });
        }
        Ok(())
    }

    pub(super) fn fence(&mut self, scope: MemScope) {
        let level = match scope {
            MemScope::Cta => "cta",
            MemScope::Gpu => "gl",
            MemScope::Sys => "sys",
        };
        self.emit(MInst::Membar { level });
    }

    pub(super) fn shuffle(
        &mut self,
        mode: ShuffleMode,
        res: Value,
        args: [Value; 4],
    ) -> IselResult<()> {
        let ty = self.ty(args[0]);
        if !matches!(ty, Type::I32 | Type::F32) {
            return Err(NotSelected::Shuffle(ty).into());
        }
        let a = self.reg(args[0])?.into();
        let b = self.operand(args[1])?;
        let c = self.operand(args[2])?;
        let mask = self.operand(args[3])?;
        let dst = self.def(res);
        self.emit(MInst::Shfl {
            mode: mode.name(),
            dst,
            a,
            b,
            c,
            mask,
        });
        Ok(())
    }

    pub(super) fn vote(&mut self, mode: VoteMode, res: Value, args: [Value; 2]) -> IselResult<()> {
        let pred = self.reg(args[0])?.into();
        let mask = self.operand(args[1])?;
        let dst = self.def(res);
        self.emit(MInst::Vote {
            mode: mode.name(),
            ballot: mode == VoteMode::Ballot,
            dst,
            pred,
            mask,
        });
        Ok(())
    }

    /// `redux.sync` (sm_80). The operation and type as nvcc spells them: a
    /// sum is `.add.s32` for both signednesses (the bits are the same),
    /// minimum and maximum say theirs, the bitwise folds are `.b32`. PTX
    /// reads the value from a register; the mask may be an immediate.
    pub(super) fn redux(&mut self, op: ReduxOp, res: Value, args: [Value; 2]) -> IselResult<()> {
        let what = "redux.sync";
        if self.target.sm() < 80 {
            return Err(TargetLacks::Feature {
                feature: what,
                sm: 80,
                target: self.target,
            }
            .into());
        }
        self.features.require(what, (7, 0));
        let (name, ty) = match op {
            ReduxOp::Add => ("add", PtxType::S32),
            ReduxOp::Umin => ("min", PtxType::U32),
            ReduxOp::Umax => ("max", PtxType::U32),
            ReduxOp::Smin => ("min", PtxType::S32),
            ReduxOp::Smax => ("max", PtxType::S32),
            ReduxOp::And => ("and", PtxType::B32),
            ReduxOp::Or => ("or", PtxType::B32),
            ReduxOp::Xor => ("xor", PtxType::B32),
        };
        let src = self.reg(args[0])?.into();
        let mask = self.operand(args[1])?;
        let dst = self.def(res);
        self.emit(MInst::Redux {
            op: name,
            ty,
            dst,
            src,
            mask,
        });
        Ok(())
    }

    /// `match.any.sync` / `match.all.sync` (sm_70) on a 32- or 64-bit
    /// value from a register. `match.all`'s predicate output is left off:
    /// its result is nonzero exactly when the predicate holds (the lane is
    /// in its own mask), so the frontend compares the result instead.
    pub(super) fn match_lanes(
        &mut self,
        mode: MatchMode,
        res: Value,
        args: [Value; 2],
    ) -> IselResult<()> {
        let what = "match.sync";
        if self.target.sm() < 70 {
            return Err(TargetLacks::Feature {
                feature: what,
                sm: 70,
                target: self.target,
            }
            .into());
        }
        self.features.require(what, (6, 0));
        let ty = if self.ty(args[0]) == Type::I64 {
            PtxType::B64
        } else {
            PtxType::B32
        };
        let src = self.reg(args[0])?.into();
        let mask = self.operand(args[1])?;
        let dst = self.def(res);
        self.emit(MInst::Match {
            mode: mode.name(),
            ty,
            dst,
            src,
            mask,
        });
        Ok(())
    }

    pub(super) fn barrier_red(
        &mut self,
        op: BarrierRedOp,
        res: Value,
        arg: Value,
    ) -> IselResult<()> {
        let pred = self.reg(arg)?.into();
        let dst = self.def(res);
        self.emit(MInst::BarRed {
            op: op.name(),
            dst,
            pred,
        });
        Ok(())
    }

    pub(super) fn effect(&mut self, op: Opcode, arg: Value) -> IselResult<()> {
        let a = self.operand(arg)?;
        match op {
            Opcode::WarpSync => self.emit(MInst::BarWarpSync { mask: a }),
            Opcode::Nanosleep => {
                if self.target.sm() < 70 {
                    return Err(TargetLacks::Opcode {
                        op,
                        ty: None,
                        sm: 70,
                    }
                    .into());
                }
                self.emit(MInst::Nanosleep { ns: a })
            }
            other => return Err(NotSelected::Opcode(other).into()),
        }
        Ok(())
    }

    pub(super) fn is_space(&mut self, space: AddrSpace, res: Value, arg: Value) -> IselResult<()> {
        let pty = self.ty(arg);
        let dst = self.def(res);
        match pty {
            // A pointer already known to be in a space answers statically.
            Type::Ptr(s) if s != AddrSpace::Generic => {
                let value = Operand::Imm(i64::from(s == space));
                self.emit(MInst::Setp {
                    cmp: crate::minst::Cmp::Ne,
                    ty: PtxType::U32,
                    dst,
                    a: value,
                    b: Operand::Imm(0),
                });
                Ok(())
            }
            _ => {
                let ps = space_of(space)?;
                if ps == Space::Param {
                    self.features.require("isspacep.param", (7, 7));
                }
                let src = self.reg(arg)?;
                self.emit(MInst::Isspacep {
                    space: ps,
                    dst,
                    src,
                });
                Ok(())
            }
        }
    }

    /// The instructions without operands or results: `bar.sync 0`
    /// (`__syncthreads`), the grid barrier (`grid.rs`) and `trap`.
    pub(super) fn nullary(&mut self, op: Opcode) -> IselResult<()> {
        match op {
            Opcode::Barrier => self.emit(MInst::BarSync),
            Opcode::GridBarrier => self.grid_barrier()?,
            Opcode::Trap => self.emit(MInst::Trap),
            op => return Err(NotSelected::Nullary(op).into()),
        }
        Ok(())
    }
}
