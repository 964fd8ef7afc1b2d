//! Bit instructions nvcc emits that the main dispatcher leaves out:
//! `shf` (funnel shift: nvcc's rotate and `~(1 << n)`), `bfind` (most
//! significant bit: nvcc's `__ffs` and `31 - __clz`), and `testp` (float
//! classification: `isinf`, `isnan`, `isfinite`).

use super::{unsupported, Exec, Flow, Kind, Thread, Ty, R};
use crate::ops::{self, mask, sext};
use crate::program::Inst;

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

/// `testp.OP.{f32,f64} p, a`.
pub fn testp(op: &str, ty: Ty, a: u64) -> Option<bool> {
    let x = ops::to_f64(ty, a);
    let sub = if ty.bits == 32 {
        x != 0.0 && x.abs() < f64::from(f32::MIN_POSITIVE)
    } else {
        x.is_subnormal()
    };
    Some(match op {
        ".finite" => x.is_finite(),
        ".infinite" => x.is_infinite(),
        ".number" => !x.is_nan(),
        ".notanumber" => x.is_nan(),
        ".normal" => x.is_finite() && x != 0.0 && !sub,
        ".subnormal" => sub,
        _ => return None,
    })
}

impl<'a> Exec<'a> {
    /// Runs `shf`, `bfind` or `testp`; `None` for any other instruction.
    pub(super) fn step_bits(&self, t: &mut Thread, inst: &'a Inst) -> Option<R<Flow>> {
        let mut run = || -> R<Flow> {
            let tys = inst.types();
            let ty = *tys
                .last()
                .ok_or_else(|| unsupported(format!("`{}` without a type", inst.name())))?;
            let op = |i: usize| {
                inst.ops
                    .get(i)
                    .ok_or_else(|| unsupported(format!("`{}` with too few operands", inst.name())))
            };
            let u32t = Ty {
                kind: Kind::U,
                bits: 32,
            };
            match inst.opcode.as_str() {
                "shf" => {
                    let a = self.get(t, op(1)?, u32t)? as u32;
                    let b = self.get(t, op(2)?, u32t)? as u32;
                    let c = self.get(t, op(3)?, u32t)? as u32;
                    let r = shf(inst.has(".l"), inst.has(".wrap"), a, b, c);
                    self.set(t, op(0)?, u64::from(r), u32t)?;
                }
                "bfind" => {
                    let a = self.get(t, op(1)?, ty)?;
                    let r = bfind(ty, inst.has(".shiftamt"), a);
                    self.set(t, op(0)?, u64::from(r), u32t)?;
                }
                _ => {
                    let a = self.get(t, op(1)?, ty)?;
                    let which = inst.mods.first().map(String::as_str).unwrap_or("");
                    let r = testp(which, ty, a)
                        .ok_or_else(|| unsupported(format!("`{}`", inst.name())))?;
                    let pred = Ty {
                        kind: Kind::Pred,
                        bits: 1,
                    };
                    self.set(t, op(0)?, u64::from(r), pred)?;
                }
            }
            Ok(Flow::Next)
        };
        match inst.opcode.as_str() {
            "shf" | "bfind" | "testp" => Some(run()),
            _ => None,
        }
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
        assert_eq!(testp(".finite", f32t, bits(1.0)), Some(true));
        assert_eq!(testp(".infinite", f32t, bits(f32::INFINITY)), Some(true));
        assert_eq!(testp(".notanumber", f32t, bits(f32::NAN)), Some(true));
        assert_eq!(testp(".subnormal", f32t, bits(1e-40)), Some(true));
        assert_eq!(testp(".normal", f32t, bits(1e-40)), Some(false));
        assert_eq!(testp(".normal", f32t, bits(0.0)), Some(false));
    }
}
