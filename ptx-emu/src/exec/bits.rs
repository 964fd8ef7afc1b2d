//! The bit instructions: `bfe`, `bfi`, `prmt`, `dp4a`, `dp2a`, `lop3`,
//! `fns`, `bmsk`, `szext`, `shf` (funnel shift:
//! nvcc's rotate and `~(1 << n)`), `bfind` (most significant bit: nvcc's
//! `__ffs` and `31 - __clz`), and `testp` (float classification: `isinf`,
//! `isnan`, `isfinite`).

use super::{arg, unsupported, Exec, Flow, Thread, R};
use crate::decode::{BoolOp, FloatClass, Op};
use crate::ops::{self, bits, mask, sext};
use crate::program::{Inst, Kind, Operand, Ty};

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: the 64-bit value `b:a`
/// shifted by `c` (modulo 32 with `.wrap`, at most 32 with `.clamp`); `.l`
/// keeps the upper 32 bits, `.r` the lower.
pub fn shf(left: bool, wrap: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if wrap { c & 31 } else { c.min(32) };
    let both = (u64::from(b) << 32) | u64::from(a);
    if left {
        ((both << n) >> 32) as u32
    } else {
        (both >> n) as u32
    }
}

/// `bfind[.shiftamt].{u,s}{32,64} d, a`: the bit position of the most
/// significant bit that differs from the sign (for signed types) or is set
/// (unsigned); `0xffffffff` when there is none. `.shiftamt` gives the left
/// shift that would move it to the top instead.
pub fn bfind(ty: Ty, shiftamt: bool, a: u64) -> u32 {
    let bits = ty.bits;
    let v = a & mask(bits);
    let v = if ty.kind == Kind::S && (sext(v, bits) < 0) {
        !v & mask(bits)
    } else {
        v
    };
    if v == 0 {
        return u32::MAX;
    }
    let pos = 63 - v.leading_zeros();
    if shiftamt {
        bits - 1 - pos
    } else {
        pos
    }
}

/// `testp.CLASS.{f32,f64} p, a`.
pub fn testp(class: FloatClass, ty: Ty, a: u64) -> bool {
    let x = ops::to_f64(ty, a);
    let sub = if ty.bits == 32 {
        x != 0.0 && x.abs() < f64::from(f32::MIN_POSITIVE)
    } else {
        x.is_subnormal()
    };
    match class {
        FloatClass::Finite => x.is_finite(),
        FloatClass::Infinite => x.is_infinite(),
        FloatClass::Number => !x.is_nan(),
        FloatClass::NotANumber => x.is_nan(),
        FloatClass::Normal => x.is_finite() && x != 0.0 && !sub,
        FloatClass::Subnormal => sub,
    }
}

impl Exec<'_> {
    /// The bit-field and byte instructions, `dp4a`, `shf`, `bfind` and
    /// `testp`.
    pub(super) fn bits(&self, t: &mut Thread, inst: &Inst) -> R<Flow> {
        let src = |i: usize, ty: Ty| self.get(t, arg(inst, i)?, ty);
        let (v, ty) = match inst.op {
            Op::Bfe(ty) => (
                ops::bfe(ty, src(1, ty)?, src(2, Ty::U32)?, src(3, Ty::U32)?),
                ty,
            ),
            Op::Bfi(ty) => {
                let (a, b) = (src(1, ty)?, src(2, ty)?);
                (ops::bfi(ty, a, b, src(3, Ty::U32)?, src(4, Ty::U32)?), ty)
            }
            Op::Prmt(mode) => {
                let (a, b, c) = (src(1, Ty::B32)?, src(2, Ty::B32)?, src(3, Ty::B32)?);
                let r = match mode {
                    None => ops::prmt(a, b, c),
                    Some(mode) => bits::prmt_mode(mode, a, b, c),
                };
                (r, Ty::B32)
            }
            Op::Dp4a { a_signed, b_signed } => {
                let (a, b) = (src(1, int32(a_signed))?, src(2, int32(b_signed))?);
                let rty = int32(a_signed || b_signed);
                (ops::dp4a(a_signed, b_signed, a, b, src(3, rty)?), rty)
            }
            Op::Dp2a {
                hi,
                a_signed,
                b_signed,
            } => {
                let (a, b) = (src(1, int32(a_signed))?, src(2, int32(b_signed))?);
                let rty = int32(a_signed || b_signed);
                (bits::dp2a(hi, a_signed, b_signed, a, b, src(3, rty)?), rty)
            }
            Op::Fns => {
                let (mask, base) = (src(1, Ty::B32)? as u32, src(2, Ty::B32)? as u32);
                let offset = src(3, int32(true))? as u32 as i32;
                (u64::from(bits::fns(mask, base, offset)), Ty::B32)
            }
            Op::Bmsk { wrap } => {
                let (a, b) = (src(1, Ty::U32)? as u32, src(2, Ty::U32)? as u32);
                (u64::from(bits::bmsk(wrap, a, b)), Ty::B32)
            }
            Op::Szext { wrap, signed } => {
                let (a, b) = (src(1, Ty::U32)? as u32, src(2, Ty::U32)? as u32);
                (u64::from(bits::szext(wrap, signed, a, b)), int32(signed))
            }
            Op::Shf { left, wrap } => {
                let (a, b, c) = (src(1, Ty::U32)?, src(2, Ty::U32)?, src(3, Ty::U32)?);
                (
                    u64::from(shf(left, wrap, a as u32, b as u32, c as u32)),
                    Ty::U32,
                )
            }
            Op::Bfind { ty, shiftamt } => (u64::from(bfind(ty, shiftamt, src(1, ty)?)), Ty::U32),
            Op::Testp { class, ty } => (u64::from(testp(class, ty, src(1, ty)?)), Ty::PRED),
            _ => return Err(unsupported(format!("`{}`", inst.name))),
        };
        self.put(t, inst, v, ty)
    }

    /// `lop3`, with `lop3.OP`'s predicate `p = (d != 0) OP q`.
    pub(super) fn lop3(
        &self,
        t: &mut Thread,
        inst: &Inst,
        lut: u8,
        pred: Option<BoolOp>,
    ) -> R<Flow> {
        let src = |i: usize| self.get(t, arg(inst, i)?, Ty::B32);
        let d = bits::lop3(src(1)?, src(2)?, src(3)?, lut);
        let Some(op) = pred else {
            return self.put(t, inst, d, Ty::B32);
        };
        let q = self.get(t, arg(inst, 5)?, Ty::PRED)? & 1 == 1;
        let p = op.apply(d != 0, q);
        if let Operand::Pair(dst, pdst) = arg(inst, 0)? {
            self.set(t, dst, d, Ty::B32)?;
            self.set(t, pdst, u64::from(p), Ty::PRED)?;
        }
        Ok(Flow::Next)
    }
}

/// A 32-bit integer type, signed or not.
fn int32(signed: bool) -> Ty {
    Ty {
        kind: if signed { Kind::S } else { Kind::U },
        bits: 32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(kind: Kind, bits: u32) -> Ty {
        Ty { kind, bits }
    }

    #[test]
    fn funnel_shifts_rotate_and_clamp() {
        // shf.l.wrap with a == b is a rotate left (nvcc's ~(1 << n)).
        assert_eq!(
            shf(true, true, 0xffff_fffe, 0xffff_fffe, 3),
            0xffff_fffe_u32.rotate_left(3)
        );
        assert_eq!(
            shf(false, true, 0x1234_5678, 0x1234_5678, 8),
            0x1234_5678_u32.rotate_right(8)
        );
        assert_eq!(shf(true, true, 1, 2, 33), shf(true, true, 1, 2, 1));
        assert_eq!(shf(true, false, 0xdead, 0xbeef, 40), 0xdead);
        assert_eq!(shf(false, false, 0xdead, 0xbeef, 40), 0xbeef);
        assert_eq!(shf(true, true, 0x8000_0000, 0, 1), 1);
    }

    #[test]
    fn bfind_finds_the_top_bit() {
        let u32t = ty(Kind::U, 32);
        let s32 = ty(Kind::S, 32);
        assert_eq!(bfind(u32t, false, 0), u32::MAX);
        assert_eq!(bfind(u32t, false, 1), 0);
        assert_eq!(bfind(u32t, false, 0x8000_0000), 31);
        assert_eq!(bfind(u32t, true, 0x8000_0000), 0);
        assert_eq!(bfind(u32t, true, 1), 31);
        assert_eq!(bfind(s32, false, 0xffff_ffff), u32::MAX);
        assert_eq!(bfind(s32, false, 0xffff_fff0), 3);
        assert_eq!(bfind(ty(Kind::U, 64), false, 1 << 40), 40);
    }

    #[test]
    fn testp_classifies() {
        let f32t = ty(Kind::F, 32);
        let bits = |x: f32| u64::from(x.to_bits());
        assert!(testp(FloatClass::Finite, f32t, bits(1.0)));
        assert!(testp(FloatClass::Infinite, f32t, bits(f32::INFINITY)));
        assert!(testp(FloatClass::NotANumber, f32t, bits(f32::NAN)));
        assert!(testp(FloatClass::Subnormal, f32t, bits(1e-40)));
        assert!(!testp(FloatClass::Normal, f32t, bits(1e-40)));
        assert!(!testp(FloatClass::Normal, f32t, bits(0.0)));
    }
}
