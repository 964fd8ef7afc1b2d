//! Selection of conversions and pointer arithmetic: `sext`/`zext`/`trunc`,
//! int↔float, float↔float, `bitcast`, `ptrtoint`/`inttoptr`, `ptroffset`
//! and `addrspacecast`.
//!
//! Two PTX rules shape this file. `cvt` *requires* a rounding mode whenever
//! the conversion can round (`cvt.rn.f32.s32`, `cvt.rzi.s32.f32`), and
//! refuses one otherwise. And `i1` lives in predicate registers, which `cvt`
//! cannot touch: booleans convert with `selp` (to integers) and `setp` (from).

use super::error::{Malformed, NotSelected, PointerUse, TargetLacks};
use super::{cvt_float_ty, cvt_int_ty, Isel, IselErrorKind, IselResult};
use crate::minst::{BinaryOp, Cmp, MInst, Operand, PtxType, Reg, RegClass, Rounding, Space};
use midend::ir::{AddrSpace, InstData, Opcode, Type, Value};

impl Isel<'_> {
    pub(super) fn convert(
        &mut self,
        op: Opcode,
        to: Type,
        res: Value,
        arg: Value,
    ) -> IselResult<()> {
        let from = self.ty(arg);
        let bad = || IselErrorKind::from(NotSelected::Conversion { op, from, to });
        let dst = self.def(res);
        match op {
            Opcode::Sext | Opcode::Zext => {
                let signed = op == Opcode::Sext;
                if !from.is_int() || !to.is_int() || from.bits() >= to.bits() {
                    return Err(bad());
                }
                if from == Type::I1 {
                    // true is -1 when sign-extended, 1 when zero-extended.
                    // (`selp` has no 8-bit form; an i8 is selected as 16-bit.)
                    let p = self.reg(arg)?;
                    let one = if signed { -1 } else { 1 };
                    self.emit(MInst::Selp {
                        ty: super::int_ty(to, signed)?,
                        dst,
                        a: Operand::Imm(one),
                        b: Operand::Imm(0),
                        pred: p,
                    });
                    return Ok(());
                }
                let src = self.reg(arg)?;
                let (d, s) = (cvt_int_ty(to, signed)?, cvt_int_ty(from, signed)?);
                self.cvt(None, d, s, dst, src);
            }
            Opcode::Trunc => {
                if !from.is_int() || !to.is_int() || from.bits() <= to.bits() {
                    return Err(bad());
                }
                let src = self.reg(arg)?;
                if to == Type::I1 {
                    // Keep the low bit: (x & 1) != 0.
                    let bty = super::bit_ty(from)?;
                    let t = self.new_reg(src.class);
                    self.emit(MInst::Binary {
                        op: BinaryOp::And,
                        ty: bty,
                        dst: t,
                        a: src.into(),
                        b: Operand::Imm(1),
                    });
                    self.emit(MInst::Setp {
                        cmp: Cmp::Ne,
                        ty: bty,
                        dst,
                        a: t.into(),
                        b: Operand::Imm(0),
                    });
                } else if src.class == dst.class {
                    // i16 -> i8: same 16-bit register class, the low byte is the value.
                    self.mov(dst, src.into());
                } else {
                    let (d, s) = (cvt_int_ty(to, false)?, cvt_int_ty(from, false)?);
                    self.cvt(None, d, s, dst, src);
                }
            }
            Opcode::Fpext | Opcode::Fptrunc => {
                if !from.is_float() || !to.is_float() || from == to {
                    return Err(bad());
                }
                let narrowing = op == Opcode::Fptrunc;
                if narrowing != (from.bits() > to.bits()) {
                    return Err(bad());
                }
                if from == Type::BF16 || to == Type::BF16 {
                    self.require_bf16()?;
                }
                if from == Type::BF16 {
                    self.features.require("cvt from .bf16", (7, 1));
                }
                let src = self.reg(arg)?;
                let round = narrowing.then_some(Rounding::Rn);
                self.cvt(round, cvt_float_ty(to)?, cvt_float_ty(from)?, dst, src);
            }
            Opcode::Sitofp | Opcode::Uitofp => {
                if !from.is_int() || !to.is_float() {
                    return Err(bad());
                }
                let signed = op == Opcode::Sitofp;
                let (src, from) = self.bool_to_int(arg, signed)?;
                if to == Type::BF16 {
                    self.require_bf16()?;
                }
                let s = cvt_int_ty(from, signed)?;
                self.cvt(Some(Rounding::Rn), cvt_float_ty(to)?, s, dst, src);
            }
            Opcode::Fptosi | Opcode::Fptoui => {
                if !from.is_float() || !to.is_int() || to == Type::I1 {
                    return Err(bad());
                }
                if from == Type::BF16 {
                    self.require_bf16()?;
                    self.features.require("cvt from .bf16", (7, 1));
                }
                let signed = op == Opcode::Fptosi;
                let (arg, round) = self.fused_rounding(arg).unwrap_or((arg, Rounding::Rzi));
                let mut src = self.reg(arg)?;
                let mut from_ty = cvt_float_ty(from)?;
                if from == Type::BF16 && self.target.sm() < 90 {
                    // `cvt` from `.bf16` to an integer is sm_90; its `f32`
                    // value is exact and converts the same.
                    let wide = self.new_reg(RegClass::F32);
                    self.cvt(None, PtxType::F32, PtxType::BF16, wide, src);
                    (src, from_ty) = (wide, PtxType::F32);
                }
                let d = cvt_int_ty(to, signed)?;
                self.cvt(Some(round), d, from_ty, dst, src);
            }
            Opcode::Bitcast => {
                if from.bits() != to.bits() || from == Type::I1 || from.is_ptr() || to.is_ptr() {
                    return Err(bad());
                }
                let src = self.reg(arg)?;
                let bty = match to.bits() {
                    16 => PtxType::B16,
                    32 => PtxType::B32,
                    _ => PtxType::B64,
                };
                self.emit(MInst::Unary {
                    op: crate::minst::UnaryOp::Mov,
                    ty: bty,
                    dst,
                    src: src.into(),
                });
            }
            Opcode::Ptrtoint | Opcode::Inttoptr => {
                let ok = if op == Opcode::Ptrtoint {
                    from.is_ptr() && matches!(to, Type::I32 | Type::I64)
                } else {
                    to.is_ptr() && matches!(from, Type::I32 | Type::I64)
                };
                if !ok {
                    return Err(bad());
                }
                let src = self.reg(arg)?;
                self.resize(dst, src);
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    /// bf16 conversions exist from sm_80 on.
    fn require_bf16(&mut self) -> IselResult<()> {
        if self.target.sm() < 80 {
            return Err(TargetLacks::Bf16Conversions {
                target: self.target,
            }
            .into());
        }
        Ok(())
    }

    /// `src` as an integer: an `i1` becomes 0/1 (or 0/-1 signed) in a 32-bit
    /// register. Returns the register and its type.
    fn bool_to_int(&mut self, v: Value, signed: bool) -> IselResult<(Reg, Type)> {
        let ty = self.ty(v);
        let src = self.reg(v)?;
        if ty != Type::I1 {
            return Ok((src, ty));
        }
        let r = self.new_reg(RegClass::B32);
        self.emit(MInst::Selp {
            ty: PtxType::S32,
            dst: r,
            a: Operand::Imm(if signed { -1 } else { 1 }),
            b: Operand::Imm(0),
            pred: src,
        });
        Ok((r, Type::I32))
    }

    /// Moves a 32- or 64-bit integer register into one of either width,
    /// zero-extending or truncating. Pointer↔integer casts use it.
    fn resize(&mut self, dst: Reg, src: Reg) {
        match (dst.class, src.class) {
            (RegClass::B64, RegClass::B32) => self.cvt(None, PtxType::U64, PtxType::U32, dst, src),
            (RegClass::B32, RegClass::B64) => self.cvt(None, PtxType::U32, PtxType::U64, dst, src),
            _ => self.mov(dst, src.into()),
        }
    }

    /// `ptroffset p, off`: an integer add in the pointer's width. A 32-bit
    /// shared pointer with an `i64` offset truncates the offset first (the
    /// shared window is far below 4 GiB); a 64-bit pointer sign-extends an
    /// `i32` offset (offsets are signed).
    pub(super) fn ptroffset(&mut self, res: Value, p: Value, off: Value) -> IselResult<()> {
        let pty = self.ty(p);
        if !pty.is_ptr() {
            return Err(Malformed::NonPointer {
                used_in: PointerUse::PtrOffset,
                ty: pty,
            }
            .into());
        }
        let base = self.reg(p)?;
        let dst = self.def(res);
        let oty = self.ty(off);
        let narrow = self
            .narrow_muls
            .get(&self.func.dfg.resolve_aliases(off))
            .copied();
        let off = match (self.immediate(off), dst.class, oty) {
            (Some(imm), _, _) => imm,
            (None, RegClass::B64, Type::I64) | (None, RegClass::B32, Type::I32) => {
                self.reg(off)?.into()
            }
            (None, RegClass::B64, Type::I32) => {
                let src = self.reg(off)?;
                let t = self.new_reg(RegClass::B64);
                self.cvt(None, PtxType::S64, PtxType::S32, t, src);
                t.into()
            }
            (None, RegClass::B32, Type::I64) if narrow.is_some() => {
                let (signed, x, y) = narrow.expect("tested");
                let a = self.reg(x)?.into();
                let b = self.operand(y)?;
                let t = self.new_reg(RegClass::B32);
                self.emit(MInst::Binary {
                    op: BinaryOp::MulLo,
                    ty: if signed { PtxType::S32 } else { PtxType::U32 },
                    dst: t,
                    a,
                    b,
                });
                t.into()
            }
            (None, RegClass::B32, Type::I64) => {
                let src = self.reg(off)?;
                let t = self.new_reg(RegClass::B32);
                self.cvt(None, PtxType::U32, PtxType::U64, t, src);
                t.into()
            }
            _ => {
                return Err(NotSelected::PtrOffset {
                    ptr: pty,
                    offset: oty,
                }
                .into())
            }
        };
        let ty = if dst.class == RegClass::B32 {
            PtxType::S32
        } else {
            PtxType::S64
        };
        self.emit(MInst::Binary {
            op: BinaryOp::Add,
            ty,
            dst,
            a: base.into(),
            b: off,
        });
        Ok(())
    }

    /// `addrspacecast`: `cvta` to a generic address, `cvta.to` from one.
    /// Shared pointers are 32-bit here, so they also need a widening or
    /// narrowing `cvt` (ptxas rejects a 32-bit `cvta` under 64-bit addressing):
    /// to generic `cvt.u64.u32; cvta.shared.u64`, from generic
    /// `cvta.to.shared.u64; cvt.u32.u64` (ptx-facts §4).
    pub(super) fn addrspacecast(
        &mut self,
        dst: Reg,
        src: Reg,
        from: AddrSpace,
        to: AddrSpace,
    ) -> IselResult<()> {
        if from == to {
            self.mov(dst, src.into());
            return Ok(());
        }
        match (from, to) {
            (AddrSpace::Generic, space) => self.cast_from_generic(dst, src, space),
            (space, AddrSpace::Generic) => {
                let ptx_space = cvta_space(space)?;
                if space == AddrSpace::SharedCluster {
                    self.require_sm90("::cluster")?;
                }
                if space == AddrSpace::Param {
                    self.features.require("cvta.param", (7, 7));
                }
                let src = if src.class == RegClass::B32 {
                    let wide = self.new_reg(RegClass::B64);
                    self.cvt(None, PtxType::U64, PtxType::U32, wide, src);
                    wide
                } else {
                    src
                };
                self.emit(MInst::Cvta {
                    to_space: false,
                    space: ptx_space,
                    dst,
                    src: src.into(),
                });
                Ok(())
            }
            _ => Err(NotSelected::CastBetweenSpaces { from, to }.into()),
        }
    }

    /// A generic address in `src` to an address of `space` in `dst`.
    pub(super) fn cast_from_generic(
        &mut self,
        dst: Reg,
        src: Reg,
        space: AddrSpace,
    ) -> IselResult<()> {
        if space == AddrSpace::Generic {
            self.mov(dst, src.into());
            return Ok(());
        }
        if space == AddrSpace::Param {
            return Err(NotSelected::GenericToParam.into());
        }
        let ptx_space = cvta_space(space)?;
        if space == AddrSpace::SharedCluster {
            self.require_sm90("::cluster")?;
        }
        let wide = if dst.class == RegClass::B32 {
            self.new_reg(RegClass::B64)
        } else {
            dst
        };
        self.emit(MInst::Cvta {
            to_space: true,
            space: ptx_space,
            dst: wide,
            src: src.into(),
        });
        if wide != dst {
            self.cvt(None, PtxType::U32, PtxType::U64, dst, wide);
        }
        Ok(())
    }
}

/// The `cvta` state space of an IR space that has a generic window.
fn cvta_space(space: AddrSpace) -> IselResult<Space> {
    match space {
        AddrSpace::Global => Ok(Space::Global),
        AddrSpace::Shared => Ok(Space::Shared),
        AddrSpace::Const => Ok(Space::Const),
        AddrSpace::Local => Ok(Space::Local),
        AddrSpace::Param => Ok(Space::Param),
        AddrSpace::SharedCluster => Ok(Space::SharedCluster),
        _ => Err(NotSelected::GenericConversion(space).into()),
    }
}

impl Isel<'_> {
    /// `fptosi (nearest x)` (`__float2int_rn`, `lrintf`, `(int)floorf(x)`)
    /// is one `cvt.rni.s32.f32`: the float `x` and the integer rounding of
    /// the convert, in place of the `rzi` that C's truncation needs. Both
    /// forms saturate and turn NaN into 0 alike, so the result is the same.
    fn fused_rounding(&self, v: Value) -> Option<(Value, Rounding)> {
        let InstData::Unary { opcode, arg } = self.def_inst(v)? else {
            return None;
        };
        if !matches!(self.ty(*arg), Type::F32 | Type::F64) {
            return None;
        }
        let round = match opcode {
            Opcode::Nearest => Rounding::Rni,
            Opcode::Floor => Rounding::Rmi,
            Opcode::Ceil => Rounding::Rpi,
            Opcode::Ftrunc => Rounding::Rzi,
            _ => return None,
        };
        Some((*arg, round))
    }

    /// The roundings whose only uses are float-to-integer converts, which
    /// do the rounding themselves (see [`Isel::fused_rounding`]): not emitted.
    pub(super) fn find_fused_roundings(&mut self) {
        let mut converts: rustc_hash::FxHashMap<Value, u32> = Default::default();
        for (_, inst) in self.func.layout.insts() {
            let InstData::Convert {
                opcode: Opcode::Fptosi | Opcode::Fptoui,
                arg,
                ..
            } = self.func.dfg.insts[inst]
            else {
                continue;
            };
            let arg = self.func.dfg.resolve_aliases(arg);
            if self.fused_rounding(arg).is_some() {
                *converts.entry(arg).or_default() += 1;
            }
        }
        for (v, n) in converts {
            if n == self.use_count(v) {
                if let midend::ir::ValueDef::Result(def, _) = self.func.dfg.value_def(v) {
                    self.skipped_insts.insert(def);
                }
            }
        }
    }
}
