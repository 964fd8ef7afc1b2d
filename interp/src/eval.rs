//! The meaning of each arithmetic, comparison and conversion opcode on raw
//! bits, with the semantics the NVPTX backend gives it in PTX.
//!
//! Every value is held as a `u64` of bits: an integer zero-extended from its
//! width (an `i1` is 0 or 1), a float as its IEEE bit pattern (an `f32` in
//! the low 32 bits, `f16`/`bf16` in the low 16), a pointer as its address.
//! Keeping bits, not Rust numbers, makes results bitwise exact and makes
//! `bitcast`, loads and stores trivial.
//!
//! Where C leaves a result undefined, PTX still defines one, and that is
//! what is computed here, so the interpreter never panics and agrees with
//! the GPU:
//! - `sdiv`/`udiv` by zero give all ones (`div.s32` and `div.u32` do);
//!   `srem`/`urem` by zero give the dividend. `INT_MIN / -1` gives `INT_MIN`
//!   (the wrapped result) and `INT_MIN % -1` gives 0.
//! - Shifts take the amount as an unsigned 32-bit number (the backend
//!   converts a 64-bit amount with `cvt.u32.u64`, keeping the low half);
//!   amounts of at least the width clamp: `ishl` and `ushr` give 0, `sshr`
//!   gives the sign fill.
//! - `fptosi`/`fptoui` round toward zero and saturate to the result's range,
//!   and NaN gives 0 (`cvt.rzi` with its saturation).
//! - Float arithmetic is IEEE with round to nearest even; a NaN result is the
//!   canonical NaN (all mantissa bits set, positive), as PTX produces.
//!   `fmin`/`fmax` return the other operand when one is NaN and order `-0`
//!   below `+0` (`min.f32`/`max.f32`).

use midend::ir::{AtomicOp, FloatCC, IntCC, Opcode, Type};

pub use stdx::bits::{mask, sext};

/// Integer binary operations. `ty` is an integer (or, for `icmp`, pointer) type.
pub fn int_binary(op: Opcode, bits: u32, a: u64, b: u64) -> u64 {
    let m = mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let r = match op {
        Opcode::Iadd => a.wrapping_add(b),
        Opcode::Isub => a.wrapping_sub(b),
        Opcode::Imul => a.wrapping_mul(b),
        Opcode::Band => a & b,
        Opcode::Bor => a | b,
        Opcode::Bxor => a ^ b,
        Opcode::Sdiv => {
            if sb == 0 {
                u64::MAX
            } else {
                sa.wrapping_div(sb) as u64
            }
        }
        Opcode::Srem => {
            if sb == 0 {
                a
            } else {
                sa.wrapping_rem(sb) as u64
            }
        }
        Opcode::Udiv => a.checked_div(b).unwrap_or(u64::MAX),
        Opcode::Urem => a.checked_rem(b).unwrap_or(a),
        Opcode::Ishl | Opcode::Ushr | Opcode::Sshr => {
            let amount = b & 0xffff_ffff;
            if amount >= u64::from(bits) {
                match op {
                    Opcode::Sshr if sa < 0 => u64::MAX,
                    _ => 0,
                }
            } else {
                match op {
                    Opcode::Ishl => a << amount,
                    Opcode::Ushr => a >> amount,
                    _ => (sa >> amount) as u64,
                }
            }
        }
        Opcode::Smin => sa.min(sb) as u64,
        Opcode::Smax => sa.max(sb) as u64,
        Opcode::Umin => a.min(b),
        Opcode::Umax => a.max(b),
        _ => 0,
    };
    r & m
}

/// Integer comparison of two values of `bits` width.
pub fn icmp(cond: IntCC, bits: u32, a: u64, b: u64) -> bool {
    let m = mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match cond {
        IntCC::Eq => a == b,
        IntCC::Ne => a != b,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => a < b,
        IntCC::Ule => a <= b,
        IntCC::Ugt => a > b,
        IntCC::Uge => a >= b,
    }
}

// ---------------------------------------------------------------------------
// Floats.
// ---------------------------------------------------------------------------

/// The canonical NaN of a float type, as PTX arithmetic produces it.
pub fn canonical_nan(ty: Type) -> u64 {
    match ty {
        Type::F64 => 0x7fff_ffff_ffff_ffff,
        Type::F32 => 0x7fff_ffff,
        _ => 0x7fff,
    }
}

/// Exponent and mantissa widths of the 16-bit float types.
fn half_format(ty: Type) -> (u32, u32) {
    if ty == Type::BF16 {
        (8, 7)
    } else {
        (5, 10)
    }
}

/// Decodes a 16-bit float (`f16` or `bf16`) exactly into an f64.
fn half_to_f64(bits: u64, ty: Type) -> f64 {
    let (eb, mb) = half_format(ty);
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((bits >> mb) & mask(eb)) as i32;
    let man = (bits & mask(mb)) as f64;
    let bias = (1 << (eb - 1)) - 1;
    let scale = |e: i32| 2f64.powi(e);
    if exp == mask(eb) as i32 {
        if man == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        }
    } else if exp == 0 {
        sign * man * scale(1 - bias - mb as i32)
    } else {
        sign * (man + scale(mb as i32)) * scale(exp - bias - mb as i32)
    }
}

/// Rounds an f64 to the nearest 16-bit float (ties to even), in one step so
/// there is no double rounding.
fn f64_to_half(x: f64, ty: Type) -> u64 {
    let (eb, mb) = half_format(ty);
    if x.is_nan() {
        return canonical_nan(ty);
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let inf = mask(eb) << mb;
    let a = x.abs();
    if a.is_infinite() {
        return sign | inf;
    }
    if a == 0.0 || a < f64::MIN_POSITIVE {
        // f64 subnormals are far below the smallest 16-bit subnormal.
        return sign;
    }
    let bias = (1i32 << (eb - 1)) - 1;
    let emin = 1 - bias;
    let e = ((a.to_bits() >> 52) as i32) - 1023;
    let quantum_exp = e.max(emin) - mb as i32;
    let q = (a / 2f64.powi(quantum_exp)).round_ties_even() as u64;
    let bits = if e < emin {
        // Subnormal: the quantum count is the mantissa field, and a carry
        // into the hidden bit lands exactly on the smallest normal.
        q
    } else {
        // q is in [2^mb, 2^(mb+1)]; a carry into the exponent is the
        // correct next binade.
        (((e + bias) as u64) << mb) + q - (1 << mb)
    };
    sign | bits.min(inf)
}

/// `fdiv_approx` (`f32`, PTX `div.approx.f32`): the quotient rounded once
/// (a GPU's is within 2 ulp of it for a divisor of magnitude in
/// [2^-126, 2^126]), except for a divisor of magnitude in (2^126, 2^128),
/// whose reciprocal the GPU flushes to zero: `a * 0`, a zero of the
/// quotient's sign, or NaN for an infinite or NaN dividend (the PTX ISA;
/// the PTX emulator does the same). `fdiv_full` is `fdiv`'s quotient.
fn div_approx(a: u64, b: u64) -> u64 {
    let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
    if y.is_finite() && y.abs() > 2f32.powi(126) {
        return canon32(x * 0f32.copysign(y));
    }
    canon32(x / y)
}

/// A float value as an f64 (exact for every float type).
pub fn float_to_f64(bits: u64, ty: Type) -> f64 {
    match ty {
        Type::F64 => f64::from_bits(bits),
        Type::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => half_to_f64(bits, ty),
    }
}

/// The bits of an `fconst`: exact for every value the IR allows, and a NaN
/// constant keeps its payload as the backend prints it (a NaN from
/// arithmetic is canonical instead; see [`f64_to_float`]).
pub fn const_float_bits(x: f64, ty: Type) -> u64 {
    match ty {
        Type::F64 => x.to_bits(),
        Type::F32 => u64::from(midend::ir::f32_const_bits(x)),
        // The 16-bit NaNs as the backend writes them: a quiet NaN with the
        // sign (f16), the top half of the f32 bits (bf16).
        Type::F16 if x.is_nan() => (u64::from(x.is_sign_negative()) << 15) | 0x7e00,
        Type::BF16 if x.is_nan() => u64::from(midend::ir::f32_const_bits(x) >> 16),
        _ => f64_to_float(x, ty),
    }
}

/// Rounds an f64 to `ty` (nearest even); NaN becomes the canonical NaN.
pub fn f64_to_float(x: f64, ty: Type) -> u64 {
    if x.is_nan() {
        return canonical_nan(ty);
    }
    match ty {
        Type::F64 => x.to_bits(),
        Type::F32 => u64::from((x as f32).to_bits()),
        _ => f64_to_half(x, ty),
    }
}

fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        canonical_nan(Type::F32)
    } else {
        u64::from(x.to_bits())
    }
}

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        canonical_nan(Type::F64)
    } else {
        x.to_bits()
    }
}

/// PTX `min`/`max`: a NaN operand yields the other one, and `-0 < +0`.
fn min_max(op: Opcode, a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    let a_first = if a == b {
        // Only ±0 compare equal with different bits: -0 is the smaller.
        a.is_sign_negative()
    } else {
        a < b
    };
    match (op, a_first) {
        (Opcode::Fmin, true) | (Opcode::Fmax, false) => a,
        _ => b,
    }
}

/// Unary float operations: `fneg` and `fabs` work on the sign bit only (no
/// NaN canonicalization, as `neg.f32`/`abs.f32`); `sqrt` rounds.
pub fn float_unary(op: Opcode, ty: Type, a: u64) -> u64 {
    if let Some(base) = op.flushed() {
        return super::ftz::float_unary(base, ty, a);
    }
    if let Some((base, _)) = op.explicit_rounding() {
        let nearest = float_unary(base, ty, a);
        return super::rounding::eval(op, ty, &[a], nearest);
    }
    let sign = match ty {
        Type::F64 => 1u64 << 63,
        Type::F32 => 1 << 31,
        _ => 1 << 15,
    };
    match op {
        Opcode::Fneg => a ^ sign,
        Opcode::Fabs => a & !sign,
        Opcode::Sqrt => match ty {
            Type::F32 => canon32(f32::from_bits(a as u32).sqrt()),
            Type::F64 => canon64(f64::from_bits(a).sqrt()),
            // sqrt in f64 then one rounding is exact for 16-bit floats
            // (f64 has more than 2 * 11 + 2 mantissa bits).
            _ => f64_to_float(half_to_f64(a, ty).sqrt(), ty),
        },
        _ => {
            // The rest are computed in f64 and rounded once to the type. For
            // the approximate PTX forms (`ex2`, `lg2`, `sin`, `cos`, `tanh`,
            // `rsqrt`) the interpreter is therefore *more* accurate than a GPU,
            // whose results may differ in the last bits (docs/running.md).
            let x = float_to_f64(a, ty);
            let r = match op {
                Opcode::Rsqrt => 1.0 / x.sqrt(),
                Opcode::Ex2 => x.exp2(),
                Opcode::Lg2 => x.log2(),
                Opcode::Sin => x.sin(),
                Opcode::Cos => x.cos(),
                Opcode::Tanh => x.tanh(),
                Opcode::Floor => x.floor(),
                Opcode::Ceil => x.ceil(),
                Opcode::Ftrunc => x.trunc(),
                _ => x.round_ties_even(),
            };
            match ty {
                Type::F32 => canon32(r as f32),
                Type::F64 => canon64(r),
                _ => f64_to_float(r, ty),
            }
        }
    }
}

/// The new value of an `atomic_rmw OP` that found `old` and was given `v`
/// (values of type `ty`, as raw bits).
pub fn atomic(op: AtomicOp, ty: Type, old: u64, v: u64) -> u64 {
    let bits = ty.bits();
    let m = mask(bits);
    let (so, sv) = (sext(old, bits), sext(v, bits));
    match op {
        AtomicOp::Add if ty.is_float() => float_binary(Opcode::Fadd, ty, old, v),
        AtomicOp::Add => old.wrapping_add(v) & m,
        AtomicOp::Exch => v,
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Smin => (so.min(sv) as u64) & m,
        AtomicOp::Smax => (so.max(sv) as u64) & m,
        AtomicOp::Umin => old.min(v),
        AtomicOp::Umax => old.max(v),
        // CUDA's atomicInc: wrap to 0 past `v`; atomicDec: wrap to `v` at 0
        // or above `v`.
        AtomicOp::Inc => {
            if old >= v {
                0
            } else {
                (old + 1) & m
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
    }
}

/// Integer unary operations (`ineg`, `bnot`, `popcnt`, `clz`, `bitrev`)
/// on a value of `bits` bits.
pub fn int_unary(op: Opcode, bits: u32, a: u64) -> u64 {
    let a = a & mask(bits);
    let r = match op {
        Opcode::Ineg => a.wrapping_neg(),
        Opcode::Bnot => !a,
        Opcode::Popcnt => u64::from(a.count_ones()),
        // Leading zeros within the operand's own width.
        Opcode::Clz => u64::from(a.leading_zeros() - (64 - bits)),
        _ => a.reverse_bits() >> (64 - bits),
    };
    r & mask(bits)
}

/// Binary float operations.
pub fn float_binary(op: Opcode, ty: Type, a: u64, b: u64) -> u64 {
    if let Some((base, _)) = op.explicit_rounding() {
        let nearest = float_binary(base, ty, a, b);
        return super::rounding::eval(op, ty, &[a, b], nearest);
    }
    if op == Opcode::FdivApprox {
        return div_approx(a, b);
    }
    if matches!(op, Opcode::Fmin | Opcode::Fmax) {
        let (x, y) = (float_to_f64(a, ty), float_to_f64(b, ty));
        if x.is_nan() && y.is_nan() {
            return canonical_nan(ty);
        }
        let pick = min_max(op, x, y);
        // Return the chosen operand's own bits (exact, keeps the zero's sign).
        return if pick.to_bits() == x.to_bits() { a } else { b };
    }
    match ty {
        Type::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            canon32(match op {
                Opcode::Fadd => x + y,
                Opcode::Fsub => x - y,
                Opcode::Fmul => x * y,
                _ => x / y,
            })
        }
        Type::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            canon64(match op {
                Opcode::Fadd => x + y,
                Opcode::Fsub => x - y,
                Opcode::Fmul => x * y,
                _ => x / y,
            })
        }
        _ => {
            // Exact in f64, then one rounding: no double-rounding error for
            // 16-bit formats.
            let (x, y) = (half_to_f64(a, ty), half_to_f64(b, ty));
            f64_to_float(
                match op {
                    Opcode::Fadd => x + y,
                    Opcode::Fsub => x - y,
                    Opcode::Fmul => x * y,
                    _ => x / y,
                },
                ty,
            )
        }
    }
}

/// `dp4a`: `c` plus the products of the four byte lanes of `a` and `b`
/// (sign-extended when `signed`), wrapping at 32 bits.
pub fn dp4a(signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let lane = |x: u64, i: u32| -> u32 {
        let byte = (x >> (8 * i)) as u8;
        if signed {
            i32::from(byte as i8) as u32
        } else {
            u32::from(byte)
        }
    };
    let sum = (0..4).fold(c as u32, |acc, i| {
        acc.wrapping_add(lane(a, i).wrapping_mul(lane(b, i)))
    });
    u64::from(sum)
}

/// `fma a, b, c` with a single rounding (for 16-bit floats: computed in f64
/// then rounded, which is single-rounding except in rare wide-exponent cases).
/// `fma` and its explicitly rounded forms (`fma_rz`, ...).
pub fn ternary(op: Opcode, ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let nearest = fma(ty, a, b, c);
    super::rounding::eval(op, ty, &[a, b, c], nearest)
}

pub fn fma(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        Type::F32 => {
            let f = |x: u64| f32::from_bits(x as u32);
            canon32(f(a).mul_add(f(b), f(c)))
        }
        Type::F64 => canon64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c))),
        _ => {
            let f = |x| half_to_f64(x, ty);
            // The product of two 16-bit floats is exact in f64; the sum may
            // round, and a second rounding to 16 bits could then land on a
            // tie the exact sum is not on: round the sum to odd first.
            f64_to_float(sum_to_odd(f(a) * f(b), f(c)), ty)
        }
    }
}

/// `p + c` rounded to odd: the nearest f64 if exact, else the neighbour of
/// the two around the exact sum whose last bit is 1. Rounding that to a
/// format of at most 51 bits gives the exact sum's rounding.
fn sum_to_odd(p: f64, c: f64) -> f64 {
    let hi = p + c;
    if !hi.is_finite() {
        return hi;
    }
    // Knuth's two-sum: the exact error of the addition.
    let b = hi - p;
    let lo = (p - (hi - b)) + (c - b);
    if lo == 0.0 || hi.to_bits() & 1 == 1 {
        return hi;
    }
    let away = (lo > 0.0) == (hi > 0.0);
    let bits = if away {
        hi.to_bits() + 1
    } else {
        hi.to_bits() - 1
    };
    f64::from_bits(bits)
}

/// Float comparison: the operands widened to `f64` (exactly), then the
/// condition's own meaning ([`FloatCC::holds`], which constant folding
/// shares).
pub fn fcmp(cond: FloatCC, ty: Type, a: u64, b: u64) -> bool {
    cond.holds(float_to_f64(a, ty), float_to_f64(b, ty))
}

/// Conversions. `from` is the operand's type, `to` the result's; pointer
/// conversions (`ptrtoint`, `inttoptr`) and `bitcast` keep the bits.
pub fn convert(op: Opcode, from: Type, to: Type, a: u64) -> u64 {
    let (fb, tb) = (from.bits(), to.bits());
    match op {
        Opcode::Sext => (sext(a, fb) as u64) & mask(tb),
        Opcode::Zext => a & mask(fb),
        Opcode::Trunc | Opcode::Bitcast | Opcode::Ptrtoint | Opcode::Inttoptr => a & mask(tb),
        Opcode::Fpext | Opcode::Fptrunc => {
            if from == Type::F64 && to == Type::F32 {
                // `as f32` is a correctly rounded narrowing.
                canon32(f64::from_bits(a) as f32)
            } else {
                f64_to_float(float_to_f64(a, from), to)
            }
        }
        Opcode::Sitofp => int_to_float(sext(a, fb) as i128, to),
        Opcode::Uitofp => int_to_float(i128::from(a & mask(fb)), to),
        Opcode::Fptosi | Opcode::Fptoui => {
            let x = float_to_f64(a, from).trunc();
            if x.is_nan() {
                return 0;
            }
            let (lo, hi): (i128, i128) = if op == Opcode::Fptosi {
                (-(1i128 << (tb - 1)), (1i128 << (tb - 1)) - 1)
            } else {
                (0, (1i128 << tb) - 1)
            };
            // `as i128` saturates at i128's range, far beyond any result type.
            let v = (x as i128).clamp(lo, hi);
            (v as u64) & mask(tb)
        }
        _ => a,
    }
}

/// An integer to the nearest float of `to`. Rust's `as` rounds to nearest
/// even; going to 16-bit floats through f64 is exact below 2^53, and above
/// that only `bf16` could double-round (documented).
fn int_to_float(v: i128, to: Type) -> u64 {
    match to {
        Type::F64 => (v as f64).to_bits(),
        Type::F32 => u64::from((v as f32).to_bits()),
        _ => f64_to_half(v as f64, to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fdiv_approx` is PTX's `div.approx.f32`: the reciprocal of a divisor
    /// above 2^126 in magnitude underflows, so the result is `a * 0`;
    /// `fdiv_full` keeps the quotient.
    #[test]
    fn approximate_division_is_zero_above_2_pow_126() {
        let f = |x: f32| u64::from(x.to_bits());
        let (big, above) = (2f32.powi(126), 2f32.powi(126).next_up());
        let div = |op, a: f32, b: f32| float_binary(op, Type::F32, f(a), f(b));
        assert_eq!(div(Opcode::FdivApprox, 3.0, big), f(3.0 / big));
        assert_eq!(div(Opcode::FdivApprox, 3.0, above), f(0.0));
        assert_eq!(div(Opcode::FdivApprox, -3.0, above), f(-0.0));
        assert_eq!(div(Opcode::FdivApprox, 3.0, -f32::MAX), f(-0.0));
        assert_eq!(
            div(Opcode::FdivApprox, f32::INFINITY, f32::MAX),
            canonical_nan(Type::F32)
        );
        assert_eq!(div(Opcode::FdivApprox, 3.0, f32::INFINITY), f(0.0));
        assert_eq!(div(Opcode::FdivApprox, 1.0, 3.0), f(1.0 / 3.0));
        assert_eq!(div(Opcode::FdivFull, 3.0, above), f(3.0 / above));
        assert_ne!(div(Opcode::FdivFull, 3.0, above), f(0.0));
    }

    #[test]
    fn division_edge_cases_follow_ptx() {
        assert_eq!(int_binary(Opcode::Sdiv, 32, 7, 0), 0xffff_ffff);
        assert_eq!(int_binary(Opcode::Udiv, 32, 7, 0), 0xffff_ffff);
        assert_eq!(int_binary(Opcode::Urem, 32, 7, 0), 7);
        assert_eq!(int_binary(Opcode::Srem, 8, 0x85, 0), 0x85);
        let min = 0x8000_0000;
        assert_eq!(int_binary(Opcode::Sdiv, 32, min, 0xffff_ffff), min);
        assert_eq!(int_binary(Opcode::Srem, 32, min, 0xffff_ffff), 0);
        // -7 / 2 = -3, -7 % 2 = -1 (truncation toward zero).
        assert_eq!(
            int_binary(Opcode::Sdiv, 32, (-7i32) as u32 as u64, 2),
            0xffff_fffd
        );
        assert_eq!(
            int_binary(Opcode::Srem, 32, (-7i32) as u32 as u64, 2),
            0xffff_ffff
        );
    }

    #[test]
    fn shifts_clamp() {
        assert_eq!(int_binary(Opcode::Ishl, 32, 1, 32), 0);
        assert_eq!(int_binary(Opcode::Ushr, 32, 0x8000_0000, 40), 0);
        assert_eq!(int_binary(Opcode::Sshr, 32, 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(int_binary(Opcode::Sshr, 8, 0x40, 200), 0);
        assert_eq!(int_binary(Opcode::Ishl, 64, 1, 63), 1 << 63);
        // Only the low 32 bits of a 64-bit amount count.
        assert_eq!(int_binary(Opcode::Ishl, 64, 1, (1 << 32) | 3), 8);
    }

    #[test]
    fn float_to_int_saturates() {
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(
            convert(Opcode::Fptosi, Type::F32, Type::I32, f(-2.9)),
            0xffff_fffe
        );
        assert_eq!(
            convert(Opcode::Fptosi, Type::F32, Type::I32, f(3e10)),
            0x7fff_ffff
        );
        assert_eq!(
            convert(Opcode::Fptosi, Type::F32, Type::I8, f(-300.0)),
            0x80
        );
        assert_eq!(convert(Opcode::Fptoui, Type::F32, Type::I32, f(-5.0)), 0);
        assert_eq!(
            convert(Opcode::Fptoui, Type::F32, Type::I16, f(1e9)),
            0xffff
        );
        assert_eq!(
            convert(Opcode::Fptosi, Type::F32, Type::I64, f(f32::NAN)),
            0
        );
    }

    #[test]
    fn half_conversions_round_to_nearest_even() {
        let h = |x: f64| f64_to_float(x, Type::F16);
        assert_eq!(h(1.0), 0x3c00);
        assert_eq!(h(65504.0), 0x7bff);
        assert_eq!(h(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(h(2f64.powi(-24)), 0x0001); // smallest subnormal
        assert_eq!(h(2f64.powi(-25)), 0x0000); // tie to even: zero
        assert_eq!(h(-0.0), 0x8000);
        assert_eq!(h(1.0 + 2f64.powi(-11)), 0x3c00); // tie to even
        assert_eq!(h(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        for bits in 0..0x7c00u64 {
            assert_eq!(h(float_to_f64(bits, Type::F16)), bits, "{bits:#x}");
        }
        assert_eq!(f64_to_float(1.0, Type::BF16), 0x3f80);
        assert_eq!(float_to_f64(0x3f80, Type::BF16), 1.0);
    }

    #[test]
    fn min_max_follow_ptx() {
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(
            float_binary(Opcode::Fmin, Type::F32, f(f32::NAN), f(2.0)),
            f(2.0)
        );
        assert_eq!(
            float_binary(Opcode::Fmin, Type::F32, f(0.0), f(-0.0)),
            f(-0.0)
        );
        assert_eq!(
            float_binary(Opcode::Fmax, Type::F32, f(-0.0), f(0.0)),
            f(0.0)
        );
        assert_eq!(
            float_binary(Opcode::Fmax, Type::F32, f(f32::NAN), f(f32::NAN)),
            0x7fff_ffff
        );
        assert_eq!(
            float_binary(Opcode::Fdiv, Type::F32, f(0.0), f(0.0)),
            0x7fff_ffff
        );
    }
}
