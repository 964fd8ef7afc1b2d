//! Selection of arithmetic, logic, comparisons and `select`.
//!
//! Integer ops pick `.s`/`.u`/`.b` types from the opcode (signedness lives on
//! the opcode in the IR, not on the type). `i1` logic uses `.pred`
//! instructions; floats use IEEE-rounded forms (`div.rn`, `sqrt.rn`,
//! `fma.rn`) so results match the C semantics the IR promises.

use super::error::{NotSelected, TargetLacks};
use super::{bit_ty, float_ty, int_ty, Isel, IselResult};
use crate::minst::{BinaryOp, Cmp, MInst, Operand, PtxType, RegClass, UnaryOp};
use midend::ir::{FloatCC, InstData, IntCC, Opcode, Rounding, Type, Value, ValueDef};

/// The 32-bit value `v` widens, and whether signed, when `v` is
/// `sext.i64`/`zext.i64` of an `i32`.
fn extension_of(isel: &Isel, v: Value) -> Option<(bool, Value)> {
    match isel.def_inst(v)? {
        InstData::Convert {
            opcode: op @ (Opcode::Sext | Opcode::Zext),
            ty: Type::I64,
            arg,
        } if isel.ty(*arg) == Type::I32 => Some((*op == Opcode::Sext, *arg)),
        _ => None,
    }
}

/// `log2(k)` when the constant operand `v` is a power of two above 1.
fn power_of_two_shift(isel: &Isel, v: Value) -> Option<u32> {
    match isel.immediate(v) {
        Some(Operand::Imm(k)) if k > 1 && k & (k - 1) == 0 => Some(k.trailing_zeros()),
        _ => None,
    }
}

/// Whether `v` is the same in every thread of a block, as far as a short
/// walk up its definitions shows: a kernel's parameters, constants, the
/// block-uniform special registers (`blockIdx`, `blockDim`, ...) and
/// arithmetic on them. ptxas can keep such a value in uniform registers.
fn is_block_uniform(isel: &Isel, v: Value, depth: u32) -> bool {
    if depth > 6 {
        return false;
    }
    let func = isel.func;
    let rec = |a: &Value| is_block_uniform(isel, *a, depth + 1);
    match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
        ValueDef::Param(block, _) => func.is_kernel() && func.layout.entry_block() == Some(block),
        ValueDef::Result(inst, 0) => match &func.dfg.insts[inst] {
            InstData::Iconst { .. } => true,
            InstData::SpecialReg { reg } => reg.is_block_uniform(),
            InstData::Unary { arg, .. } | InstData::Convert { arg, .. } => rec(arg),
            InstData::Binary { args, .. } => args.iter().all(rec),
            _ => false,
        },
        _ => false,
    }
}

impl Isel<'_> {
    /// Finds `imul.i64 (ext x), k` and `imul.i64 (ext x), (ext y)` with
    /// 32-bit `x`, `y` and a constant `k` that fits 32 bits: one `mul.wide`
    /// computes the full 64-bit product of the 32-bit operands (the index
    /// math of every `a[i]`). An extension read only by such multiplies is
    /// not emitted.
    pub(super) fn find_wide_multiplies(&mut self) {
        let mut found = Vec::new();
        for (_, inst) in self.func.layout.insts() {
            let InstData::Binary {
                opcode: Opcode::Imul,
                args: [a, b],
            } = self.func.dfg.insts[inst]
            else {
                continue;
            };
            let Some(res) = self.func.dfg.first_result(inst) else {
                continue;
            };
            // The product commutes: `k * ext(x)` (`__umulhi(K, x)`) is
            // `ext(x) * k`.
            let (a, b) = if extension_of(self, a).is_none() {
                (b, a)
            } else {
                (a, b)
            };
            let Some((signed, x)) = extension_of(self, a) else {
                continue;
            };
            let second = match (extension_of(self, b), self.immediate(b)) {
                (Some((s, y)), _) if s == signed => Some((y, Some(b))),
                (_, Some(Operand::Imm(k))) => {
                    let fits = if signed {
                        i32::try_from(k).is_ok()
                    } else {
                        u32::try_from(k).is_ok()
                    };
                    fits.then_some((b, None))
                }
                _ => None,
            };
            if let Some((y, ext_b)) = second {
                found.push((res, signed, x, y, a, ext_b));
            }
        }
        // Reads of each extension by these multiplies.
        let mut reads: rustc_hash::FxHashMap<Value, u32> = Default::default();
        for &(_, _, _, _, ext_a, ext_b) in &found {
            for ext in std::iter::once(ext_a).chain(ext_b) {
                *reads.entry(self.func.dfg.resolve_aliases(ext)).or_default() += 1;
            }
        }
        for (res, signed, x, y, ext_a, ext_b) in found {
            let ext_a = self.func.dfg.resolve_aliases(ext_a);
            // A block-uniform extension that other instructions read is
            // emitted anyway; scaled by a power of two it prints as
            // `shl.b64` of that 64-bit value (`binary`). A `mul.wide` of
            // the 32-bit value instead is a vector `IMAD.WIDE` in SASS,
            // which pulls a value ptxas could keep in a uniform register
            // (`blockIdx.x` in `scales[blockIdx.x]`, when
            // `(size_t)blockIdx.x * cols` also reads its extension) into
            // vector registers for the whole kernel: quantize_rows 21 -> 16
            // registers. For a per-thread value the `IMAD.WIDE` is the
            // shorter code, so it stays.
            let shared = self.use_count(ext_a) != reads[&ext_a];
            let power_of_two = ext_b.is_none() && power_of_two_shift(self, y).is_some();
            if !(shared && power_of_two && is_block_uniform(self, x, 0)) {
                self.wide_muls.insert(res, (signed, x, y));
            }
        }
        for (ext, n) in reads {
            if self.use_count(ext) == n {
                self.skipped.insert(ext);
            }
        }
        // A product read once, as the offset of a 32-bit (shared) address,
        // is needed only in its low 32 bits: the 32-bit product of the same
        // operands (`ptroffset` emits it). The `mul.wide` and the
        // `cvt.u32.u64` after it go.
        let mut narrow = Vec::new();
        for (_, inst) in self.func.layout.insts() {
            if let InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [p, off],
            } = self.func.dfg.insts[inst]
            {
                let off = self.func.dfg.resolve_aliases(off);
                if super::class_of(self.ty(p)) == RegClass::B32
                    && self.use_count(off) == 1
                    && self.wide_muls.contains_key(&off)
                {
                    narrow.push(off);
                }
            }
        }
        for off in narrow {
            if let Some(m) = self.wide_muls.remove(&off) {
                self.narrow_muls.insert(off, m);
                self.skipped.insert(off);
            }
        }
    }

    /// Finds `trunc.i32 (ushr (imul.i64 (ext x), y), 32)` whose multiply is
    /// a `mul.wide` (above) used only there: the high half of the 64-bit
    /// product of two 32-bit values, one `mul.hi` (the front end's
    /// `__umulhi`/`__mulhi` and `divconst`'s magic multiplications). The
    /// multiply and the shift are then not emitted.
    pub(super) fn find_high_multiplies(&mut self) {
        let mut found = Vec::new();
        for (_, inst) in self.func.layout.insts() {
            let InstData::Convert {
                opcode: Opcode::Trunc,
                ty: Type::I32,
                arg,
            } = self.func.dfg.insts[inst]
            else {
                continue;
            };
            let Some(res) = self.func.dfg.first_result(inst) else {
                continue;
            };
            let shifted = self.func.dfg.resolve_aliases(arg);
            let Some(&InstData::Binary {
                opcode: Opcode::Ushr | Opcode::Sshr,
                args: [product, amount],
            }) = self.def_inst(shifted)
            else {
                continue;
            };
            let product = self.func.dfg.resolve_aliases(product);
            if !matches!(self.immediate(amount), Some(Operand::Imm(32)))
                || self.use_count(shifted) != 1
                || self.use_count(product) != 1
            {
                continue;
            }
            if let Some(&mul) = self.wide_muls.get(&product) {
                found.push((res, mul, shifted, product));
            }
        }
        for (res, mul, shifted, product) in found {
            self.high_muls.insert(res, mul);
            self.wide_muls.remove(&product);
            self.skipped.insert(shifted);
            self.skipped.insert(product);
        }
    }

    /// `mul.hi.s32`/`mul.hi.u32` for a `trunc` found above.
    pub(super) fn high_multiply(&mut self, res: Value) -> IselResult<bool> {
        let Some(&(signed, x, y)) = self.high_muls.get(&res) else {
            return Ok(false);
        };
        let a = self.reg(x)?.into();
        let b = self.operand(y)?;
        let dst = self.def(res);
        let ty = if signed { PtxType::S32 } else { PtxType::U32 };
        self.emit(MInst::Binary {
            op: BinaryOp::MulHi,
            ty,
            dst,
            a,
            b,
        });
        Ok(true)
    }

    pub(super) fn unary(&mut self, op: Opcode, res: Value, arg: Value) -> IselResult<()> {
        if self.named_unary(op, res, arg)? {
            return Ok(());
        }
        let ty = self.ty(res);
        let (uop, pty) = match (op, ty) {
            (Opcode::Bnot, Type::I1) => (UnaryOp::Not, PtxType::Pred),
            (Opcode::Bnot, _) if ty.is_int() => (UnaryOp::Not, bit_ty(ty)?),
            (Opcode::Ineg, _) if ty.is_int() && ty != Type::I1 => (UnaryOp::Neg, int_ty(ty, true)?),
            (Opcode::Fneg, _) => (UnaryOp::Neg, self.float_or_bf16_ty(ty)?),
            (Opcode::Fabs, _) => (UnaryOp::Abs, self.float_or_bf16_ty(ty)?),
            (Opcode::Sqrt, Type::F32 | Type::F64) => (UnaryOp::SqrtRn, float_ty(ty)?),
            _ => return Err(NotSelected::OnType { op, ty }.into()),
        };
        if uop == UnaryOp::Abs && ty == Type::F16 {
            self.features.require("abs.f16", (6, 5));
        }
        let src = self.reg(arg)?.into();
        let dst = self.def(res);
        self.emit(MInst::Unary {
            op: uop,
            ty: pty,
            dst,
            src,
        });
        Ok(())
    }

    pub(super) fn binary(&mut self, op: Opcode, res: Value, a: Value, b: Value) -> IselResult<()> {
        if op == Opcode::PtrOffset {
            return self.ptroffset(res, a, b);
        }
        if let Some(&(signed, x, y)) = self.wide_muls.get(&res) {
            let a = self.reg(x)?.into();
            let b = self.operand(y)?;
            let dst = self.def(res);
            let ty = if signed { PtxType::S32 } else { PtxType::U32 };
            self.emit(MInst::Binary {
                op: BinaryOp::MulWide,
                ty,
                dst,
                a,
                b,
            });
            return Ok(());
        }
        // A constant first operand of a commutative operation goes second,
        // where PTX takes an immediate (`mul.lo.s32 %r8, %r6, 4`, not a
        // `mov` of 4 into a register first).
        let commutative = matches!(
            op,
            Opcode::Iadd
                | Opcode::Imul
                | Opcode::Band
                | Opcode::Bor
                | Opcode::Bxor
                | Opcode::Smin
                | Opcode::Smax
                | Opcode::Umin
                | Opcode::Umax
                | Opcode::Fadd
                | Opcode::Fmul
        );
        let (a, b) = match (self.immediate(a), self.immediate(b)) {
            (Some(_), None) if commutative => (b, a),
            _ => (a, b),
        };
        let ty = self.ty(res);
        if ty.is_float() {
            return self.float_binary(op, res, a, b);
        }
        if ty == Type::I1 {
            let bop = match op {
                Opcode::Band => BinaryOp::And,
                Opcode::Bor => BinaryOp::Or,
                Opcode::Bxor => BinaryOp::Xor,
                _ => return Err(NotSelected::OnType { op, ty }.into()),
            };
            let (a, b) = (self.reg(a)?.into(), self.reg(b)?.into());
            let dst = self.def(res);
            self.emit(MInst::Binary {
                op: bop,
                ty: PtxType::Pred,
                dst,
                a,
                b,
            });
            return Ok(());
        }
        if !ty.is_int() {
            return Err(NotSelected::OnType { op, ty }.into());
        }
        use Opcode::*;
        if let Some(shift) = power_of_two_shift(self, b).filter(|_| op == Imul && ty == Type::I64) {
            // ptxas allocates `shl.b64 x, 2` better than `mul.lo.s64 x, 4`
            // (a row offset `r * 4` kept live in a loop cost softmax_rows 6
            // registers as a multiply).
            let a = self.reg(a)?.into();
            let dst = self.def(res);
            self.emit(MInst::Binary {
                op: BinaryOp::Shl,
                ty: PtxType::B64,
                dst,
                a,
                b: Operand::Imm(i64::from(shift)),
            });
            return Ok(());
        }
        let (bop, pty) = match op {
            Iadd => (BinaryOp::Add, int_ty(ty, true)?),
            Isub => (BinaryOp::Sub, int_ty(ty, true)?),
            Imul => (BinaryOp::MulLo, int_ty(ty, true)?),
            Sdiv => (BinaryOp::Div, int_ty(ty, true)?),
            Udiv => (BinaryOp::Div, int_ty(ty, false)?),
            Srem => (BinaryOp::Rem, int_ty(ty, true)?),
            Urem => (BinaryOp::Rem, int_ty(ty, false)?),
            Band => (BinaryOp::And, bit_ty(ty)?),
            Bor => (BinaryOp::Or, bit_ty(ty)?),
            Bxor => (BinaryOp::Xor, bit_ty(ty)?),
            Ishl => (BinaryOp::Shl, bit_ty(ty)?),
            Ushr => (BinaryOp::Shr, int_ty(ty, false)?),
            Sshr => (BinaryOp::Shr, int_ty(ty, true)?),
            Smin => (BinaryOp::Min, int_ty(ty, true)?),
            Smax => (BinaryOp::Max, int_ty(ty, true)?),
            Umin => (BinaryOp::Min, int_ty(ty, false)?),
            Umax => (BinaryOp::Max, int_ty(ty, false)?),
            _ => return Err(NotSelected::OnType { op, ty }.into()),
        };
        // Ops that read the high bits of an i8 need it extended first; the
        // rest only care about the low byte, which 16-bit math gets right.
        let signed = matches!(op, Sdiv | Srem | Sshr | Smin | Smax);
        let reads_high = matches!(
            op,
            Sdiv | Udiv | Srem | Urem | Ushr | Sshr | Smin | Smax | Umin | Umax
        );
        let a = if reads_high {
            self.widen_i8(a, signed)?
        } else {
            self.reg(a)?.into()
        };
        let b = if matches!(op, Ishl | Ushr | Sshr) {
            self.shift_amount(b)?
        } else if reads_high {
            self.widen_i8(b, signed)?
        } else {
            self.operand(b)?
        };
        let a = match a {
            Operand::Reg(_) => a,
            imm => {
                // Keep an immediate out of the first operand, as nvcc does.
                let r = self.new_reg(super::class_of(ty));
                self.mov(r, imm);
                r.into()
            }
        };
        let dst = self.def(res);
        self.emit(MInst::Binary {
            op: bop,
            ty: pty,
            dst,
            a,
            b,
        });
        Ok(())
    }

    /// PTX shift amounts are always `.u32`, whatever the shifted type.
    fn shift_amount(&mut self, b: Value) -> IselResult<Operand> {
        if let Some(imm) = self.immediate(b) {
            return Ok(imm);
        }
        let src = self.reg(b)?;
        let src_ty = match (self.ty(b), src.class) {
            (_, RegClass::B32) => return Ok(src.into()),
            (Type::I8, _) => PtxType::U8,
            (_, RegClass::B16) => PtxType::U16,
            (_, RegClass::B64) => PtxType::U64,
            (t, _) => return Err(NotSelected::ShiftAmount(t).into()),
        };
        let dst = self.new_reg(RegClass::B32);
        self.cvt(None, PtxType::U32, src_ty, dst, src);
        Ok(dst.into())
    }

    fn float_binary(&mut self, op: Opcode, res: Value, a: Value, b: Value) -> IselResult<()> {
        let ty = self.ty(res);
        let pty = if matches!(op, Opcode::Fmin | Opcode::Fmax) {
            self.float_or_bf16_ty(ty)?
        } else {
            float_ty(ty)?
        };
        // `1 / x` correctly rounded is `rcp.rn x`: the same bits (both round
        // the exact quotient once), and a shorter sequence than `div.rn`.
        let one = match self.def_inst(a) {
            Some(InstData::Fconst { value, .. }) => *value == 1.0,
            _ => false,
        };
        if op == Opcode::Fdiv && one && matches!(ty, Type::F32 | Type::F64) {
            let src = self.reg(b)?.into();
            let dst = self.def(res);
            self.emit(MInst::Unary {
                op: UnaryOp::RcpRn,
                ty: pty,
                dst,
                src,
            });
            return Ok(());
        }
        // Without `.rn`, ptxas may fuse a `mul` into a following `add`.
        let exact = !self.contract && matches!(ty, Type::F32 | Type::F64);
        let bop = match (op, ty) {
            (Opcode::Fadd, _) if exact => BinaryOp::AddR(Rounding::Nearest),
            (Opcode::Fsub, _) if exact => BinaryOp::SubRn,
            (Opcode::Fmul, _) if exact => BinaryOp::MulR(Rounding::Nearest),
            (Opcode::Fadd, _) => BinaryOp::Add,
            (Opcode::Fsub, _) => BinaryOp::Sub,
            (Opcode::Fmul, _) => BinaryOp::Mul,
            (Opcode::Fdiv, Type::F32 | Type::F64) => BinaryOp::DivRn,
            (Opcode::FdivApprox, Type::F32) => BinaryOp::DivApprox,
            (Opcode::FdivFull, Type::F32) => BinaryOp::DivFull,
            (Opcode::Fmin, _) => BinaryOp::Min,
            (Opcode::Fmax, _) => BinaryOp::Max,
            (_, Type::F32 | Type::F64) if op.explicit_rounding().is_some() => {
                match op.explicit_rounding() {
                    Some((Opcode::Fadd, r)) => BinaryOp::AddR(r),
                    Some((Opcode::Fmul, r)) => BinaryOp::MulR(r),
                    Some((_, r)) => BinaryOp::DivR(r),
                    None => unreachable!("checked by the guard"),
                }
            }
            _ => return Err(NotSelected::OnType { op, ty }.into()),
        };
        if ty == Type::F16 && matches!(bop, BinaryOp::Min | BinaryOp::Max) && self.target.sm() < 80
        {
            return Err(TargetLacks::Opcode {
                op,
                ty: Some(ty),
                sm: 80,
            }
            .into());
        }
        let a = self.reg(a)?.into();
        let b = self.operand(b)?;
        let dst = self.def(res);
        self.emit(MInst::Binary {
            op: bop,
            ty: pty,
            dst,
            a,
            b,
        });
        Ok(())
    }

    /// The instruction type of an operation that PTX also has on `.bf16`
    /// from sm_80 on (`fma.rn`, `min`, `max`, `neg`, `abs`); other `bf16`
    /// arithmetic (`add.bf16`, sm_90) the frontend computes in `f32`.
    fn float_or_bf16_ty(&mut self, ty: Type) -> IselResult<PtxType> {
        if ty != Type::BF16 {
            return float_ty(ty);
        }
        if self.target.sm() < 80 {
            return Err(TargetLacks::Bf16Arithmetic {
                target: self.target,
            }
            .into());
        }
        Ok(PtxType::BF16)
    }

    pub(super) fn ternary(&mut self, op: Opcode, res: Value, args: [Value; 3]) -> IselResult<()> {
        match op {
            Opcode::Fma | Opcode::FmaRz | Opcode::FmaRu | Opcode::FmaRd => {
                let rnd = op
                    .explicit_rounding()
                    .map_or(midend::ir::Rounding::Nearest, |(_, r)| r);
                let ty = self.ty(res);
                let ty = if op == Opcode::Fma {
                    self.float_or_bf16_ty(ty)?
                } else {
                    float_ty(ty)?
                };
                let a = self.reg(args[0])?.into();
                let b = self.operand(args[1])?;
                let c = self.operand(args[2])?;
                let dst = self.def(res);
                self.emit(MInst::Fma {
                    rnd,
                    ty,
                    dst,
                    a,
                    b,
                    c,
                });
                Ok(())
            }
            Opcode::Select => self.select(res, args[0], args[1], args[2]),
            Opcode::Dp4aS | Opcode::Dp4aU => {
                use crate::minst::AccelArg;
                let name = if op == Opcode::Dp4aS {
                    "dp4a.s32.s32"
                } else {
                    "dp4a.u32.u32"
                };
                let a = self.reg(args[0])?.into();
                let b = self.operand(args[1])?;
                let c = self.operand(args[2])?;
                let dst = self.def(res);
                self.emit(MInst::Accel {
                    op: name.into(),
                    args: vec![
                        AccelArg::Def(dst),
                        AccelArg::Use(a),
                        AccelArg::Use(b),
                        AccelArg::Use(c),
                    ],
                });
                Ok(())
            }
            _ => Err(NotSelected::Opcode(op).into()),
        }
    }

    /// `select c, a, b` is `selp`; PTX has no `selp.pred`, so an `i1` select
    /// is `(c & a) | (!c & b)`.
    fn select(&mut self, res: Value, c: Value, a: Value, b: Value) -> IselResult<()> {
        let p = self.reg(c)?;
        let dst = self.def(res);
        if dst.class == RegClass::Pred {
            let (a, b) = (self.reg(a)?, self.reg(b)?);
            let (t1, nc, t2) = (
                self.new_reg(RegClass::Pred),
                self.new_reg(RegClass::Pred),
                self.new_reg(RegClass::Pred),
            );
            let pred = PtxType::Pred;
            self.emit(MInst::Binary {
                op: BinaryOp::And,
                ty: pred,
                dst: t1,
                a: p.into(),
                b: a.into(),
            });
            self.emit(MInst::Unary {
                op: UnaryOp::Not,
                ty: pred,
                dst: nc,
                src: p.into(),
            });
            self.emit(MInst::Binary {
                op: BinaryOp::And,
                ty: pred,
                dst: t2,
                a: nc.into(),
                b: b.into(),
            });
            self.emit(MInst::Binary {
                op: BinaryOp::Or,
                ty: pred,
                dst,
                a: t1.into(),
                b: t2.into(),
            });
            return Ok(());
        }
        let (a, b) = if dst.class == RegClass::B16 && self.ty(res).is_float() {
            // 16-bit float constants have no immediate form.
            (self.reg(a)?.into(), self.reg(b)?.into())
        } else {
            (self.operand(a)?, self.operand(b)?)
        };
        self.emit(MInst::Selp {
            ty: dst.class.decl_type(),
            dst,
            a,
            b,
            pred: p,
        });
        Ok(())
    }

    pub(super) fn icmp(&mut self, cond: IntCC, res: Value, a: Value, b: Value) -> IselResult<()> {
        let ty = self.ty(a);
        let dst = self.def(res);
        if ty == Type::I1 {
            // No `setp` on predicates: a != b is xor, a == b is its negation.
            let (ra, rb) = (self.reg(a)?, self.reg(b)?);
            let ne = match cond {
                IntCC::Ne => dst,
                IntCC::Eq => self.new_reg(RegClass::Pred),
                _ => return Err(NotSelected::IcmpOnBool(cond).into()),
            };
            self.emit(MInst::Binary {
                op: BinaryOp::Xor,
                ty: PtxType::Pred,
                dst: ne,
                a: ra.into(),
                b: rb.into(),
            });
            if cond == IntCC::Eq {
                self.emit(MInst::Unary {
                    op: UnaryOp::Not,
                    ty: PtxType::Pred,
                    dst,
                    src: ne.into(),
                });
            }
            return Ok(());
        }
        let (cmp, signed) = match cond {
            IntCC::Eq => (Cmp::Eq, true),
            IntCC::Ne => (Cmp::Ne, true),
            IntCC::Slt => (Cmp::Lt, true),
            IntCC::Sle => (Cmp::Le, true),
            IntCC::Sgt => (Cmp::Gt, true),
            IntCC::Sge => (Cmp::Ge, true),
            IntCC::Ult => (Cmp::Lo, false),
            IntCC::Ule => (Cmp::Ls, false),
            IntCC::Ugt => (Cmp::Hi, false),
            IntCC::Uge => (Cmp::Hs, false),
        };
        // Pointers compare as unsigned addresses, in their register's width.
        let (pty, signed) = match (ty, super::class_of(ty)) {
            (Type::Ptr(_), RegClass::B32) => (PtxType::U32, false),
            (Type::Ptr(_), _) => (PtxType::U64, false),
            _ => (int_ty(ty, signed)?, signed),
        };
        let a = self.widen_i8(a, signed)?;
        let b = self.widen_i8(b, signed)?;
        let a = self.force_reg(a, ty);
        self.emit(MInst::Setp {
            cmp,
            ty: pty,
            dst,
            a,
            b,
        });
        Ok(())
    }

    pub(super) fn fcmp(&mut self, cond: FloatCC, res: Value, a: Value, b: Value) -> IselResult<()> {
        let ty = self.ty(a);
        let pty = float_ty(ty)?;
        let cmp = match cond {
            FloatCC::Oeq => Cmp::Eq,
            FloatCC::One => Cmp::Ne,
            FloatCC::Olt => Cmp::Lt,
            FloatCC::Ole => Cmp::Le,
            FloatCC::Ogt => Cmp::Gt,
            FloatCC::Oge => Cmp::Ge,
            FloatCC::Ueq => Cmp::Equ,
            FloatCC::Une => Cmp::Neu,
            FloatCC::Ult => Cmp::Ltu,
            FloatCC::Ule => Cmp::Leu,
            FloatCC::Ugt => Cmp::Gtu,
            FloatCC::Uge => Cmp::Geu,
            FloatCC::Ord => Cmp::Num,
            FloatCC::Uno => Cmp::Nan,
        };
        let a = self.reg(a)?.into();
        let b = self.operand(b)?;
        let dst = self.def(res);
        self.emit(MInst::Setp {
            cmp,
            ty: pty,
            dst,
            a,
            b,
        });
        Ok(())
    }

    /// An operand that must be a register: an immediate gets a `mov`.
    fn force_reg(&mut self, op: Operand, ty: Type) -> Operand {
        match op {
            Operand::Reg(_) => op,
            imm => {
                let r = self.new_reg(super::class_of(ty));
                self.mov(r, imm);
                r.into()
            }
        }
    }
}

impl Isel<'_> {
    /// Unary float and bit operations that PTX names with their own opcode.
    /// Returns `None` for the ones `unary` handles itself.
    pub(super) fn named_unary(&mut self, op: Opcode, res: Value, arg: Value) -> IselResult<bool> {
        use Opcode::*;
        let ty = self.ty(arg);
        let name: &'static str = match (op, ty) {
            (Rsqrt, Type::F32) => "rsqrt.approx.f32",
            (Rsqrt, Type::F64) => "rsqrt.approx.f64",
            (Ex2, Type::F32) => "ex2.approx.f32",
            (Lg2, Type::F32) => "lg2.approx.f32",
            (Ex2Ftz, Type::F32) => "ex2.approx.ftz.f32",
            (Lg2Ftz, Type::F32) => "lg2.approx.ftz.f32",
            (RsqrtFtz, Type::F32) => "rsqrt.approx.ftz.f32",
            (Sin, Type::F32) => "sin.approx.f32",
            (Cos, Type::F32) => "cos.approx.f32",
            (Tanh, Type::F32) => {
                self.features.require("tanh.approx", (7, 0));
                "tanh.approx.f32"
            }
            (Floor, Type::F32) => "cvt.rmi.f32.f32",
            (Floor, Type::F64) => "cvt.rmi.f64.f64",
            (Ceil, Type::F32) => "cvt.rpi.f32.f32",
            (Ceil, Type::F64) => "cvt.rpi.f64.f64",
            (Ftrunc, Type::F32) => "cvt.rzi.f32.f32",
            (Ftrunc, Type::F64) => "cvt.rzi.f64.f64",
            (Nearest, Type::F32) => "cvt.rni.f32.f32",
            (Nearest, Type::F64) => "cvt.rni.f64.f64",
            (SqrtRz, Type::F32) => "sqrt.rz.f32",
            (SqrtRz, Type::F64) => "sqrt.rz.f64",
            (SqrtRu, Type::F32) => "sqrt.rp.f32",
            (SqrtRu, Type::F64) => "sqrt.rp.f64",
            (SqrtRd, Type::F32) => "sqrt.rm.f32",
            (SqrtRd, Type::F64) => "sqrt.rm.f64",
            (Bitrev, Type::I32) => "brev.b32",
            (Bitrev, Type::I64) => "brev.b64",
            (Popcnt | Clz, Type::I32 | Type::I64) => {
                return self.count_bits(op, res, arg).map(|()| true)
            }
            (
                Rsqrt | Ex2 | Lg2 | Ex2Ftz | Lg2Ftz | RsqrtFtz | Sin | Cos | Tanh | Floor | Ceil
                | Ftrunc | Nearest | Bitrev | SqrtRz | SqrtRu | SqrtRd,
                _,
            ) => return Err(NotSelected::OnType { op, ty }.into()),
            _ => return Ok(false),
        };
        let src = self.reg(arg)?.into();
        let dst = self.def(res);
        self.emit(MInst::UnaryNamed { op: name, dst, src });
        Ok(true)
    }

    /// `popc`/`clz` always give a 32-bit count; a 64-bit result is widened.
    fn count_bits(&mut self, op: Opcode, res: Value, arg: Value) -> IselResult<()> {
        let wide = self.ty(arg) == Type::I64;
        let name = match (op, wide) {
            (Opcode::Popcnt, false) => "popc.b32",
            (Opcode::Popcnt, true) => "popc.b64",
            (Opcode::Clz, false) => "clz.b32",
            _ => "clz.b64",
        };
        let src = self.reg(arg)?.into();
        let dst = self.def(res);
        if !wide {
            self.emit(MInst::UnaryNamed { op: name, dst, src });
            return Ok(());
        }
        let count = self.new_reg(crate::minst::RegClass::B32);
        self.emit(MInst::UnaryNamed {
            op: name,
            dst: count,
            src,
        });
        self.emit(MInst::Cvt {
            round: None,
            dst_ty: PtxType::U64,
            src_ty: PtxType::U32,
            dst,
            src: count.into(),
        });
        Ok(())
    }
}
