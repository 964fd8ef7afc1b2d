//! The arithmetic, comparison and conversion instructions: operands in,
//! [`crate::ops`] for the value, result out.

use super::{arg, Exec, Flow, Thread, R};
use crate::decode::{Arith, BoolOp, Cmp, Cvt, FloatMods, FloatUnOp, Half, HalfOp, IntOp, IntUnOp};
use crate::ops::{self, int, mask, sext};
use crate::program::{Inst, Kind, Operand, Ty};

/// `.ftz` of an `f32` operand or result, when the instruction has it.
fn flush(ftz: bool, ty: Ty, x: u64) -> u64 {
    if ftz {
        ops::ftz(ty, x)
    } else {
        x
    }
}

impl Exec<'_> {
    /// Operands 1 and 2 of `inst` as values of `ty`.
    fn two(&self, t: &Thread, inst: &Inst, ty: Ty) -> R<(u64, u64)> {
        Ok((
            self.get(t, arg(inst, 1)?, ty)?,
            self.get(t, arg(inst, 2)?, ty)?,
        ))
    }

    /// Writes `v` of type `ty` to operand 0 of `inst`.
    pub(super) fn put(&self, t: &mut Thread, inst: &Inst, v: u64, ty: Ty) -> R<Flow> {
        self.set(t, arg(inst, 0)?, v, ty)?;
        Ok(Flow::Next)
    }

    pub(super) fn mov(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let v = self.get(t, arg(inst, 1)?, ty)?;
        self.put(t, inst, v, ty)
    }

    /// `mov.b64 %rd, {%r1, %r2}`: the parts, lowest first.
    pub(super) fn pack(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let Operand::Vector(srcs) = arg(inst, 1)? else {
            return Ok(Flow::Next);
        };
        let w = ty.bits / srcs.len().max(1) as u32;
        let part = Ty {
            kind: Kind::B,
            bits: w,
        };
        let mut v = 0u64;
        for (i, s) in srcs.iter().enumerate() {
            v |= self.get(t, s, part)? << (w * i as u32);
        }
        self.put(t, inst, v, ty)
    }

    /// `mov.b64 {%r1, %r2}, %rd`.
    pub(super) fn unpack(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let v = self.get(t, arg(inst, 1)?, ty)?;
        let Operand::Vector(dsts) = arg(inst, 0)? else {
            return Ok(Flow::Next);
        };
        let w = ty.bits / dsts.len().max(1) as u32;
        let part = Ty {
            kind: Kind::B,
            bits: w,
        };
        for (i, d) in dsts.iter().enumerate() {
            self.set(t, d, (v >> (w * i as u32)) & mask(w), part)?;
        }
        Ok(Flow::Next)
    }

    pub(super) fn int(&self, t: &mut Thread, inst: &Inst, op: IntOp, ty: Ty, sat: bool) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        self.put(t, inst, ops::int_binary(op, ty, a, b, sat), ty)
    }

    /// `mul.wide`: the full product in a register twice as wide.
    pub(super) fn mul_wide(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let wide = Ty {
            kind: ty.kind,
            bits: ty.bits * 2,
        };
        self.put(t, inst, product(ty, a, b) as u64 & mask(wide.bits), wide)
    }

    /// Integer `mad.lo/.hi/.wide` (`sat`: `mad.hi.sat.s32`).
    pub(super) fn mad(
        &self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        half: Half,
        sat: bool,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let p = product(ty, a, b);
        if half == Half::Wide {
            let wide = Ty {
                kind: ty.kind,
                bits: ty.bits * 2,
            };
            let c = self.get(t, arg(inst, 3)?, wide)?;
            return self.put(t, inst, (p as u64).wrapping_add(c) & mask(wide.bits), wide);
        }
        let c = self.get(t, arg(inst, 3)?, ty)?;
        let base = if half == Half::Hi {
            (p >> ty.bits) as u64
        } else {
            p as u64
        };
        let r = if sat {
            int::add32(base & mask(32), c, true)
        } else {
            base.wrapping_add(c) & mask(ty.bits)
        };
        self.put(t, inst, r, ty)
    }

    /// `sad d, a, b, c`.
    pub(super) fn sad(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let c = self.get(t, arg(inst, 3)?, ty)?;
        self.put(t, inst, int::sad(ty, a, b, c), ty)
    }

    /// Integer `add`/`min`/`max` lane by lane (`max.s16x2.relu`).
    pub(super) fn int_lanes(
        &self,
        t: &mut Thread,
        inst: &Inst,
        op: IntOp,
        lane: Ty,
        relu: bool,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, Ty::U32)?;
        self.put(t, inst, int::int_lanes(op, lane, relu, a, b), Ty::U32)
    }

    /// A SIMD video instruction (`vabsdiff4`).
    pub(super) fn video(&self, t: &mut Thread, inst: &Inst, v: &int::Video) -> R<Flow> {
        let (a, b) = self.two(t, inst, Ty::U32)?;
        let c = self.get(t, arg(inst, 3)?, Ty::U32)?;
        self.put(t, inst, int::video(v, a, b, c), Ty::U32)
    }

    /// `mul24` and `mad24` on 32-bit registers.
    pub(super) fn mul24(
        &self,
        t: &mut Thread,
        inst: &Inst,
        hi: bool,
        signed: bool,
        add: bool,
        sat: bool,
    ) -> R<Flow> {
        let ty = if signed { Ty::S32 } else { Ty::U32 };
        let (a, b) = self.two(t, inst, ty)?;
        let r = if add {
            let c = self.get(t, arg(inst, 3)?, ty)?;
            int::mad24(hi, signed, sat, a, b, c)
        } else {
            int::mul24(hi, signed, a, b)
        };
        self.put(t, inst, r, ty)
    }

    /// `add.cc`, `addc`, `sub.cc`, `subc`: the carry (a borrow for the
    /// subtractions) comes from and goes to the thread's flag.
    pub(super) fn add_carry(
        &self,
        t: &mut Thread,
        inst: &Inst,
        sub: bool,
        carry_in: bool,
        carry_out: bool,
        ty: Ty,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let cin = carry_in && t.carry;
        let (r, cout) = if sub {
            int::sub_borrow(ty.bits, a, b, cin)
        } else {
            int::add_carry(ty.bits, a, b, cin)
        };
        if carry_out {
            t.carry = cout;
        }
        self.put(t, inst, r, ty)
    }

    /// `mad.cc`, `madc`: a half of the product plus `c` (and the carry).
    pub(super) fn mad_carry(
        &self,
        t: &mut Thread,
        inst: &Inst,
        hi: bool,
        carry_in: bool,
        carry_out: bool,
        ty: Ty,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let c = self.get(t, arg(inst, 3)?, ty)?;
        let p = product(ty, a, b);
        let half = if hi { (p >> ty.bits) as u64 } else { p as u64 };
        let (r, cout) = int::add_carry(ty.bits, half, c, carry_in && t.carry);
        if carry_out {
            t.carry = cout;
        }
        self.put(t, inst, r, ty)
    }

    /// Float `add sub mul div`: `.ftz` on the operands and the result,
    /// then `.sat`.
    pub(super) fn float(
        &self,
        t: &mut Thread,
        inst: &Inst,
        op: Arith,
        ty: Ty,
        fl: FloatMods,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let (a, b) = (flush(fl.ftz, ty, a), flush(fl.ftz, ty, b));
        let r = match fl.dir {
            Some(dir) => ops::float_binary_directed(op, ty, a, b, dir),
            None => ops::float_binary(op, ty, a, b),
        };
        self.put(t, inst, saturate(fl, ty, flush(fl.ftz, ty, r)), ty)
    }

    /// `div.approx[.ftz].f32`.
    pub(super) fn div_approx(&self, t: &mut Thread, inst: &Inst, ftz: bool) -> R<Flow> {
        let (a, b) = self.two(t, inst, Ty::F32)?;
        let r = ops::div_approx(flush(ftz, Ty::F32, a), flush(ftz, Ty::F32, b));
        self.put(t, inst, flush(ftz, Ty::F32, r), Ty::F32)
    }

    pub(super) fn float_min_max(
        &self,
        t: &mut Thread,
        inst: &Inst,
        max: bool,
        ty: Ty,
        fl: FloatMods,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let (a, b) = (flush(fl.ftz, ty, a), flush(fl.ftz, ty, b));
        let r = ops::float_min_max(max, ty, a, b, fl.nan);
        self.put(t, inst, saturate(fl, ty, flush(fl.ftz, ty, r)), ty)
    }

    /// `fma` (and `mad` on floats): one rounding.
    pub(super) fn fma(&self, t: &mut Thread, inst: &Inst, ty: Ty, fl: FloatMods) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let c = self.get(t, arg(inst, 3)?, ty)?;
        let f = |x| flush(fl.ftz, ty, x);
        let r = match fl.dir {
            Some(dir) => ops::fma_directed(ty, f(a), f(b), f(c), dir),
            None => ops::fma(ty, f(a), f(b), f(c)),
        };
        self.put(t, inst, saturate(fl, ty, f(r)), ty)
    }

    /// `shl`/`shr`: the amount is an unsigned 32-bit operand.
    pub(super) fn shift(&self, t: &mut Thread, inst: &Inst, left: bool, ty: Ty) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, ty)?;
        let b = self.get(t, arg(inst, 2)?, Ty::U32)?;
        self.put(t, inst, ops::shift(left, ty, a, b), ty)
    }

    /// `not cnot neg abs popc clz brev` (`popc` and `clz` give a `.u32`).
    pub(super) fn int_unary(&self, t: &mut Thread, inst: &Inst, op: IntUnOp, ty: Ty) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, ty)?;
        let rty = if matches!(op, IntUnOp::Popc | IntUnOp::Clz) {
            Ty::U32
        } else {
            ty
        };
        self.put(t, inst, ops::int_unary(op, ty, a), rty)
    }

    pub(super) fn float_sign(
        &self,
        t: &mut Thread,
        inst: &Inst,
        neg: bool,
        ty: Ty,
        ftz: bool,
    ) -> R<Flow> {
        let a = flush(ftz, ty, self.get(t, arg(inst, 1)?, ty)?);
        self.put(t, inst, ops::float_sign(neg, ty, a), ty)
    }

    /// `sqrt rsqrt rcp ex2 lg2 sin cos tanh`.
    pub(super) fn float_unary(
        &self,
        t: &mut Thread,
        inst: &Inst,
        op: FloatUnOp,
        ty: Ty,
        fl: FloatMods,
    ) -> R<Flow> {
        let a = flush(fl.ftz, ty, self.get(t, arg(inst, 1)?, ty)?);
        let r = match fl.dir {
            Some(dir) => ops::float_unary_directed(op, ty, a, dir),
            None => ops::float_unary(op, ty, a),
        };
        self.put(t, inst, flush(fl.ftz, ty, r), ty)
    }

    /// `copysign d, a, b`: `b` with the sign of `a`.
    pub(super) fn copysign(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let sign = 1u64 << (ty.bits - 1);
        self.put(t, inst, (b & !sign) | (a & sign), ty)
    }

    /// `setp.CMP[.BOOL] p[|q], a, b[, c]`: `q` is the negated comparison,
    /// each combined with `c`.
    pub(super) fn setp(
        &self,
        t: &mut Thread,
        inst: &Inst,
        cmp: Cmp,
        ty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, ty)?;
        let (a, b) = (flush(ftz, ty, a), flush(ftz, ty, b));
        let mut p = ops::compare(cmp, ty, a, b);
        let mut q = !p;
        if let Some(bop) = combine {
            let c = self.get(t, arg(inst, 3)?, Ty::PRED)? & 1 == 1;
            (p, q) = (bop.apply(p, c), bop.apply(!p, c));
        }
        match arg(inst, 0)? {
            Operand::Pair(d1, d2) => {
                self.set(t, d1, u64::from(p), Ty::PRED)?;
                self.set(t, d2, u64::from(q), Ty::PRED)?;
            }
            d => self.set(t, d, u64::from(p), Ty::PRED)?,
        }
        Ok(Flow::Next)
    }

    /// 16-bit float arithmetic, on the one value of a `.b16` register or
    /// on each half of a `.b32` one (`packed`), low half first.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn half(
        &self,
        t: &mut Thread,
        inst: &Inst,
        op: HalfOp,
        ty: Ty,
        packed: bool,
        fl: FloatMods,
        relu: bool,
    ) -> R<Flow> {
        let reg = if packed { Ty::B32 } else { Ty::B16 };
        let mut src = [0u64; 3];
        for (i, v) in src.iter_mut().enumerate().take(op.sources()) {
            *v = self.get(t, arg(inst, i + 1)?, reg)?;
        }
        let lane = |v: u64, i: u32| (v >> (16 * i)) & 0xffff;
        let mut r = 0;
        for i in 0..if packed { 2 } else { 1 } {
            let [a, b, c] = src.map(|v| lane(v, i));
            r |= ops::half_arith(op, ty, fl, relu, a, b, c) << (16 * i);
        }
        self.put(t, inst, r, reg)
    }

    /// `setp.CMP[.BOOL][.ftz].f16x2 p|q, a, b[, c]`.
    pub(super) fn setp_packed(
        &self,
        t: &mut Thread,
        inst: &Inst,
        cmp: Cmp,
        ty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    ) -> R<Flow> {
        let (a, b) = self.two(t, inst, Ty::B32)?;
        let c = match combine {
            Some(_) => self.get(t, arg(inst, 3)?, Ty::PRED)? & 1 == 1,
            None => false,
        };
        let lane = |i: u32| {
            let (x, y) = ((a >> (16 * i)) & 0xffff, (b >> (16 * i)) & 0xffff);
            let p = ops::compare(cmp, ty, flush(ftz, ty, x), flush(ftz, ty, y));
            combine.map_or(p, |bop| bop.apply(p, c))
        };
        let Operand::Pair(low, high) = arg(inst, 0)? else {
            return Err(super::e(
                crate::FaultKind::Unsupported,
                "`setp` on `.f16x2` writes a pair `p|q`",
            ));
        };
        self.set(t, low, u64::from(lane(0)), Ty::PRED)?;
        self.set(t, high, u64::from(lane(1)), Ty::PRED)?;
        Ok(Flow::Next)
    }

    /// `selp d, a, b, c`: `a` if `c`, else `b`.
    pub(super) fn selp(&self, t: &mut Thread, inst: &Inst, ty: Ty) -> R<Flow> {
        let c = self.get(t, arg(inst, 3)?, Ty::PRED)? & 1 == 1;
        let v = self.get(t, arg(inst, if c { 1 } else { 2 })?, ty)?;
        self.put(t, inst, v, ty)
    }

    /// `slct d, a, b, c`: `a` if `c >= 0`, else `b`. For an `f32` `c`,
    /// `-0.0` counts as 0 and NaN selects `b`; `.ftz` flushes a subnormal
    /// `c` to a zero of its sign, so it selects `a`.
    pub(super) fn slct(
        &self,
        t: &mut Thread,
        inst: &Inst,
        ty: Ty,
        float: bool,
        ftz: bool,
    ) -> R<Flow> {
        let cty = if float { Ty::F32 } else { Ty::S32 };
        let c = self.get(t, arg(inst, 3)?, cty)?;
        let take_a = ops::slct_takes_a(float, ftz, c);
        let v = self.get(t, arg(inst, if take_a { 1 } else { 2 })?, ty)?;
        self.put(t, inst, v, ty)
    }

    /// `cvt.rn.f16x2.f32 d, a, b` (and `.bf16x2`): `a` to the high half.
    pub(super) fn cvt_pack(
        &self,
        t: &mut Thread,
        inst: &Inst,
        elem: Ty,
        relu: bool,
        satfinite: bool,
    ) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, Ty::F32)?;
        let b = self.get(t, arg(inst, 2)?, Ty::F32)?;
        let half = |x| ops::cvt_half_lane(elem, relu, satfinite, x);
        self.put(t, inst, half(a) << 16 | half(b), Ty::B32)
    }

    /// `cvt`, with `.ftz` on a float source and a float result.
    pub(super) fn cvt(&self, t: &mut Thread, inst: &Inst, c: &Cvt) -> R<Flow> {
        let a = self.get(t, arg(inst, 1)?, c.src)?;
        let a = flush(c.ftz && c.src.is_float(), c.src, a);
        let r = ops::cvt(c, a);
        self.put(t, inst, flush(c.ftz && c.dst.is_float(), c.dst, r), c.dst)
    }
}

/// The exact product of two integers of `ty` (up to 64 bits), as the bits
/// of a two's-complement 128-bit number: `.s` operands sign-extend.
pub(super) fn product(ty: Ty, a: u64, b: u64) -> u128 {
    if ty.is_signed() {
        (i128::from(sext(a, ty.bits)) * i128::from(sext(b, ty.bits))) as u128
    } else {
        u128::from(a & mask(ty.bits)) * u128::from(b & mask(ty.bits))
    }
}

/// `.sat` on a float result.
fn saturate(fl: FloatMods, ty: Ty, r: u64) -> u64 {
    if fl.sat {
        ops::fsat(ty, r)
    } else {
        r
    }
}
