//! What each PTX arithmetic, comparison and conversion instruction computes,
//! on raw bits.
//!
//! Values are `u64` bit patterns: an integer zero-extended from its width, a
//! float as its IEEE bits in the low 32 or 64 bits. The choices where C says
//! "undefined" are PTX's, and they are the IR interpreter's too
//! (`interp/src/eval.rs`), so that the two engines agree bitwise:
//! division by zero gives all ones (remainder: the dividend), `INT_MIN / -1`
//! wraps, shift amounts at least the width clamp, `cvt` from float to
//! integer saturates and maps NaN to 0, and every NaN a float operation
//! produces is the canonical one (`0x7fffffff`). The approximate
//! instructions (`ex2.approx`, `sin.approx`, `rsqrt.approx`, ...) are
//! computed exactly in `f64` and rounded once, as the interpreter does:
//! more accurate than a GPU, which may differ in the last bits.

use crate::decode::{
    Arith, AtomOp, Cmp, Cvt, CvtRnd, FloatMods, FloatUnOp, HalfOp, IntOp, IntUnOp,
};
use crate::program::{Kind, Ty};
use crate::rounding::{self, Dir};

pub mod bits;
pub mod half;
pub mod int;

pub use stdx::bits::{mask, sext};

/// An integer of `ty` as an i128 (signed types sign-extend).
fn int_val(ty: Ty, x: u64) -> i128 {
    if ty.is_signed() {
        i128::from(sext(x, ty.bits))
    } else {
        i128::from(x & mask(ty.bits))
    }
}

/// Saturates `v` to the range of `ty`.
fn clamp_to(ty: Ty, v: i128) -> u64 {
    let (lo, hi) = if ty.is_signed() {
        (-(1i128 << (ty.bits - 1)), (1i128 << (ty.bits - 1)) - 1)
    } else {
        (0, (1i128 << ty.bits) - 1)
    };
    (v.clamp(lo, hi) as u64) & mask(ty.bits)
}

/// Integer binary instructions (`add`, `mul.lo`, `div`, `and`, ...);
/// `sat` is `.sat` (on `add` and `sub`).
pub fn int_binary(op: IntOp, ty: Ty, a: u64, b: u64, sat: bool) -> u64 {
    let bits = ty.bits;
    let m = mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let signed = ty.is_signed();
    let r = match op {
        IntOp::Add if sat => clamp_to(ty, int_val(ty, a) + int_val(ty, b)),
        IntOp::Sub if sat => clamp_to(ty, int_val(ty, a) - int_val(ty, b)),
        IntOp::Add => a.wrapping_add(b),
        IntOp::Sub => a.wrapping_sub(b),
        IntOp::MulLo => a.wrapping_mul(b),
        // The full product needs 128 bits; unsigned 64-bit operands would
        // overflow an i128, so they multiply as u128.
        IntOp::MulHi if signed => ((int_val(ty, a) * int_val(ty, b)) >> bits) as u64 & m,
        IntOp::MulHi => ((u128::from(a) * u128::from(b)) >> bits) as u64 & m,
        IntOp::And => a & b,
        IntOp::Or => a | b,
        IntOp::Xor => a ^ b,
        IntOp::Div if signed => {
            if sb == 0 {
                u64::MAX
            } else {
                sa.wrapping_div(sb) as u64
            }
        }
        IntOp::Rem if signed => {
            if sb == 0 {
                a
            } else {
                sa.wrapping_rem(sb) as u64
            }
        }
        IntOp::Div => a.checked_div(b).unwrap_or(u64::MAX),
        IntOp::Rem => a.checked_rem(b).unwrap_or(a),
        IntOp::Min if signed => sa.min(sb) as u64,
        IntOp::Max if signed => sa.max(sb) as u64,
        IntOp::Min => a.min(b),
        IntOp::Max => a.max(b),
    };
    r & m
}

/// `shl`/`shr`: the amount is an unsigned 32-bit number and clamps at the
/// width (`shr.s` then gives the sign fill).
pub fn shift(left: bool, ty: Ty, a: u64, amount: u64) -> u64 {
    let bits = ty.bits;
    let a = a & mask(bits);
    let amount = amount & 0xffff_ffff;
    let r = if amount >= u64::from(bits) {
        if !left && ty.is_signed() && sext(a, bits) < 0 {
            u64::MAX
        } else {
            0
        }
    } else if left {
        a << amount
    } else if ty.is_signed() {
        (sext(a, bits) >> amount) as u64
    } else {
        a >> amount
    };
    r & mask(bits)
}

/// Integer unary instructions.
pub fn int_unary(op: IntUnOp, ty: Ty, a: u64) -> u64 {
    let bits = ty.bits;
    let a = a & mask(bits);
    match op {
        IntUnOp::Neg => a.wrapping_neg() & mask(bits),
        IntUnOp::Not => !a & mask(bits),
        IntUnOp::Cnot => u64::from(a == 0),
        IntUnOp::Abs => (sext(a, bits).wrapping_abs() as u64) & mask(bits),
        IntUnOp::Popc => u64::from(a.count_ones()),
        IntUnOp::Clz => u64::from(a.leading_zeros() - (64 - bits)),
        IntUnOp::Brev => a.reverse_bits() >> (64 - bits),
    }
}

/// `bfe`: extract `len` bits at `pos`, sign-extended for `.s` types.
pub fn bfe(ty: Ty, a: u64, pos: u64, len: u64) -> u64 {
    let bits = u64::from(ty.bits);
    let (pos, len) = (pos & 0xff, len & 0xff);
    let a = a & mask(ty.bits);
    let msb = if ty.is_signed() {
        if len == 0 {
            false
        } else {
            let top = (pos + len - 1).min(bits - 1);
            (a >> top) & 1 == 1
        }
    } else {
        false
    };
    let mut r = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i < bits {
            (a >> (pos + i)) & 1 == 1
        } else {
            msb
        };
        if bit {
            r |= 1 << i;
        }
    }
    r
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(ty: Ty, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let bits = u64::from(ty.bits);
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut r = b & mask(ty.bits);
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        r = (r & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    }
    r
}

/// `prmt.b32` in its default mode: pick four bytes of `{b, a}` by the
/// nibbles of `c`, the top bit of each nibble replicating the sign.
pub fn prmt(a: u64, b: u64, c: u64) -> u64 {
    let bytes = (a & 0xffff_ffff) | ((b & 0xffff_ffff) << 32);
    let mut r = 0u64;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (bytes >> (8 * (sel & 7))) & 0xff;
        let v = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= v << (8 * i);
    }
    r
}

/// `dp4a.atype.btype d, a, b, c`: `c` plus the four products of the byte
/// lanes of `a` and `b` (lane 0 in bits 0..8), each lane sign-extended when
/// its operand's type is `.s32` (`a_signed`, `b_signed`) and zero-extended
/// otherwise; all in 32-bit wrapping arithmetic.
pub fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let lane = |x: u64, i: u32, signed: bool| -> u32 {
        let byte = (x >> (8 * i)) & 0xff;
        if signed {
            sext(byte, 8) as u32
        } else {
            byte as u32
        }
    };
    let sum = (0..4).fold(c as u32, |acc, i| {
        acc.wrapping_add(lane(a, i, a_signed).wrapping_mul(lane(b, i, b_signed)))
    });
    u64::from(sum)
}

// ---------------------------------------------------------------------------
// Floats.
// ---------------------------------------------------------------------------

pub fn canonical_nan(bits: u32) -> u64 {
    match bits {
        64 => 0x7fff_ffff_ffff_ffff,
        16 => 0x7fff,
        _ => 0x7fff_ffff,
    }
}

/// A float of `ty` as an f64 (exact for every float type).
pub fn to_f64(ty: Ty, x: u64) -> f64 {
    if let Some(f) = half::Format::of(ty) {
        return f.to_f64(x);
    }
    if ty.bits == 64 {
        f64::from_bits(x)
    } else {
        f64::from(f32::from_bits(x as u32))
    }
}

/// Rounds an f64 to the float type once; NaN becomes the canonical NaN.
pub fn from_f64(ty: Ty, x: f64) -> u64 {
    if let Some(f) = half::Format::of(ty) {
        return f.from_f64(x, None);
    }
    if x.is_nan() {
        return canonical_nan(ty.bits);
    }
    if ty.bits == 64 {
        x.to_bits()
    } else {
        u64::from((x as f32).to_bits())
    }
}

fn is_subnormal(ty: Ty, x: u64) -> bool {
    if let Some(f) = half::Format::of(ty) {
        return f.is_subnormal(x);
    }
    to_f64(ty, x) != 0.0 && to_f64(ty, x).abs() < f64::from(f32::MIN_POSITIVE) && ty.bits == 32
}

/// `.ftz`: a subnormal `f32` (or 16-bit float) becomes a zero of the same
/// sign.
pub fn ftz(ty: Ty, x: u64) -> u64 {
    if is_subnormal(ty, x) {
        x & (1 << (ty.bits - 1))
    } else {
        x
    }
}

/// One 16-bit float operation of `add sub mul fma min max neg abs` on the
/// low 16 bits of `a`, `b`, `c` (those it reads): `.ftz` flushes
/// subnormal operands and results, `.sat` clamps to [0, 1], `.relu` makes
/// a negative result `+0` (and keeps a NaN).
pub fn half_arith(op: HalfOp, ty: Ty, fl: FloatMods, relu: bool, a: u64, b: u64, c: u64) -> u64 {
    let f = half::Format::of(ty).expect("a 16-bit float type");
    let flush = |x: u64| if fl.ftz { ftz(ty, x) } else { x };
    let (a, b, c) = (flush(a), flush(b), flush(c));
    let sign = 0x8000;
    let r = match op {
        HalfOp::Add => f.fma(a, f.one(), b),
        HalfOp::Sub => f.fma(a, f.one(), b ^ sign),
        HalfOp::Mul => f.fma(a, b, sign),
        HalfOp::Fma => f.fma(a, b, c),
        HalfOp::Min | HalfOp::Max => float_min_max(op == HalfOp::Max, ty, a, b, fl.nan),
        HalfOp::Neg => a ^ sign,
        HalfOp::Abs => a & !sign,
    };
    let r = flush(r);
    if fl.sat {
        fsat(ty, r)
    } else if relu && r & sign != 0 && !to_f64(ty, r).is_nan() {
        0
    } else {
        r
    }
}

/// `.sat` on a float: clamp to [0, 1], NaN to 0.
pub fn fsat(ty: Ty, x: u64) -> u64 {
    let v = to_f64(ty, x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        from_f64(ty, 1.0)
    } else {
        x
    }
}

fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        canonical_nan(32)
    } else {
        u64::from(x.to_bits())
    }
}

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        canonical_nan(64)
    } else {
        x.to_bits()
    }
}

/// `add`, `sub`, `mul`, `div` on `f32` or `f64`, round to nearest even.
pub fn float_binary(op: Arith, ty: Ty, a: u64, b: u64) -> u64 {
    if ty.bits == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        return canon32(match op {
            Arith::Add => x + y,
            Arith::Sub => x - y,
            Arith::Mul => x * y,
            Arith::Div => x / y,
        });
    }
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    canon64(match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
    })
}

/// `div.approx.f32`: the quotient (exact, rounded once, where a GPU's
/// `a * rcp(b)` is within 2 ulp for `|b|` in [2^-126, 2^126]), except that
/// for a divisor of magnitude in (2^126, 2^128) the reciprocal is below
/// the normal range and flushes to zero, so the result is `a * 0`: a zero
/// of the quotient's sign, or NaN for an infinite or NaN `a`, as the PTX
/// ISA documents. (`div.full.f32`, within 2 ulp over the whole range, is
/// computed as `div.rn`: the exact quotient rounded once.)
pub fn div_approx(a: u64, b: u64) -> u64 {
    let y = f32::from_bits(b as u32);
    if y.is_finite() && y.abs() > 2f32.powi(126) {
        return canon32(f32::from_bits(a as u32) * 0f32.copysign(y));
    }
    float_binary(Arith::Div, Ty::F32, a, b)
}

/// `add`, `sub`, `mul`, `div` on `f32` or `f64` with `.rz`, `.rm` or `.rp`.
pub fn float_binary_directed(op: Arith, ty: Ty, a: u64, b: u64, dir: Dir) -> u64 {
    if ty.bits == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        return canon32(rounding::binary32(op, x, y, dir));
    }
    canon64(rounding::binary64(
        op,
        f64::from_bits(a),
        f64::from_bits(b),
        dir,
    ))
}

/// `fma` with `.rz`, `.rm` or `.rp`.
pub fn fma_directed(ty: Ty, a: u64, b: u64, c: u64, dir: Dir) -> u64 {
    if ty.bits == 32 {
        let f = |x: u64| f32::from_bits(x as u32);
        canon32(rounding::fma32(f(a), f(b), f(c), dir))
    } else {
        let f = f64::from_bits;
        canon64(rounding::fma64(f(a), f(b), f(c), dir))
    }
}

/// `sqrt` and `rcp` with `.rz`, `.rm` or `.rp`.
pub fn float_unary_directed(op: FloatUnOp, ty: Ty, a: u64, dir: Dir) -> u64 {
    if ty.bits == 32 {
        canon32(rounding::unary32(op, f32::from_bits(a as u32), dir))
    } else {
        canon64(rounding::unary64(op, f64::from_bits(a), dir))
    }
}

/// `min`/`max` on floats: a NaN operand yields the other, `-0 < +0`; with
/// `.NaN`, a NaN operand yields the canonical NaN.
pub fn float_min_max(max: bool, ty: Ty, a: u64, b: u64, nan: bool) -> u64 {
    let (x, y) = (to_f64(ty, a), to_f64(ty, b));
    if x.is_nan() || y.is_nan() {
        if nan || (x.is_nan() && y.is_nan()) {
            return canonical_nan(ty.bits);
        }
        return if x.is_nan() { b } else { a };
    }
    let a_first = if x == y { x.is_sign_negative() } else { x < y };
    if a_first != max {
        a
    } else {
        b
    }
}

pub fn fma(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    if ty.bits == 32 {
        let f = |x: u64| f32::from_bits(x as u32);
        canon32(f(a).mul_add(f(b), f(c)))
    } else {
        canon64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)))
    }
}

/// Float `neg` and `abs`: the sign bit only.
pub fn float_sign(neg: bool, ty: Ty, a: u64) -> u64 {
    let sign = 1u64 << (ty.bits - 1);
    if neg {
        a ^ sign
    } else {
        a & !sign
    }
}

/// The float functions: `sqrt` and `rcp` round once, the approximate
/// ones are computed in `f64` and rounded once.
pub fn float_unary(op: FloatUnOp, ty: Ty, a: u64) -> u64 {
    match op {
        FloatUnOp::Sqrt if ty.bits == 32 => canon32(f32::from_bits(a as u32).sqrt()),
        FloatUnOp::Sqrt => canon64(f64::from_bits(a).sqrt()),
        FloatUnOp::Rcp if ty.bits == 32 => canon32(1.0 / f32::from_bits(a as u32)),
        FloatUnOp::Rcp => canon64(1.0 / f64::from_bits(a)),
        _ => {
            let x = to_f64(ty, a);
            let r = match op {
                FloatUnOp::Rsqrt => 1.0 / x.sqrt(),
                FloatUnOp::Ex2 => x.exp2(),
                FloatUnOp::Lg2 => x.log2(),
                FloatUnOp::Sin => x.sin(),
                FloatUnOp::Cos => x.cos(),
                _ => x.tanh(),
            };
            from_f64(ty, r)
        }
    }
}

/// Rounds a float to an integral value by a `cvt` rounding modifier
/// (toward zero for `.rzi`, `.rz` and none).
fn round_int(x: f64, rnd: CvtRnd) -> f64 {
    match rnd {
        CvtRnd::Rmi | CvtRnd::Rm => x.floor(),
        CvtRnd::Rpi | CvtRnd::Rp => x.ceil(),
        CvtRnd::Rni | CvtRnd::Rn => x.round_ties_even(),
        _ => x.trunc(),
    }
}

/// The directed rounding a `cvt` modifier names, if any.
fn cvt_dir(rnd: CvtRnd) -> Option<Dir> {
    match rnd {
        CvtRnd::Rz => Some(Dir::Zero),
        CvtRnd::Rm => Some(Dir::Down),
        CvtRnd::Rp => Some(Dir::Up),
        _ => None,
    }
}

/// Whether the emulator implements `c`: conversions between integers of
/// any width and the float formats `f16`, `bf16`, `f32`, `f64`, with the
/// roundings PTX allows for each (a float-to-float conversion that needs
/// no rounding takes any).
pub fn cvt_supported(c: &Cvt) -> bool {
    let float = |t: Ty| matches!((t.kind, t.bits), (Kind::F, 16 | 32 | 64) | (Kind::BF, 16));
    let int_rounding = matches!(c.rnd, CvtRnd::Rni | CvtRnd::Rzi | CvtRnd::Rmi | CvtRnd::Rpi);
    match (c.dst.is_float(), c.src.is_float()) {
        (false, false) => true,
        (true, false) => float(c.dst) && !int_rounding,
        (false, true) => float(c.src),
        (true, true) => float(c.dst) && float(c.src),
    }
}

/// `cvt.RND.DST.SRC` of a form [`cvt_supported`] accepts (`.ftz` is the
/// caller's).
pub fn cvt(c: &Cvt, a: u64) -> u64 {
    let (dst, src, rnd) = (c.dst, c.src, c.rnd);
    let r = match (dst.is_float(), src.is_float()) {
        (false, false) => {
            let v = int_val(src, a);
            if c.sat {
                clamp_to(dst, v)
            } else {
                (v as u64) & mask(dst.bits)
            }
        }
        (true, false) => int_to_float(dst, int_val(src, a), cvt_dir(rnd)),
        (false, true) => {
            let x = round_int(to_f64(src, a), rnd);
            if x.is_nan() {
                return 0;
            }
            // `as i128` saturates far beyond any result range.
            let sat_ty = Ty {
                kind: if dst.is_signed() { Kind::S } else { Kind::U },
                bits: dst.bits,
            };
            return clamp_to(sat_ty, x as i128);
        }
        (true, true) => float_to_float(dst, src, rnd, to_f64(src, a)),
    };
    if !dst.is_float() {
        r
    } else if c.sat {
        fsat(dst, r)
    } else if c.satfinite {
        satfinite(dst, r)
    } else {
        r
    }
}

/// `.satfinite` on a 16-bit float result: an infinity (from a finite value
/// beyond the largest one, or from an infinite input) becomes the largest
/// finite value of its sign; NaN stays NaN.
fn satfinite(dst: Ty, r: u64) -> u64 {
    match half::Format::of(dst) {
        Some(f) if r & 0x7fff == f.infinity() => (r & 0x8000) | f.max_finite(),
        _ => r,
    }
}

/// An integer to a float type, to nearest or in a direction.
fn int_to_float(dst: Ty, v: i128, dir: Option<Dir>) -> u64 {
    if let Some(f) = half::Format::of(dst) {
        return f.from_int(v, dir);
    }
    match (dir, dst.bits) {
        (None, 64) => (v as f64).to_bits(),
        (None, _) => u64::from((v as f32).to_bits()),
        (Some(d), 64) => rounding::int_to_f64(v, d).to_bits(),
        (Some(d), _) => u64::from(rounding::int_to_f32(v, d).to_bits()),
    }
}

/// A float (exactly `x`) to a float type: rounded to an integral value by
/// `.rni` and the like, else to the format, to nearest or in a direction
/// (widening is exact, so it needs none).
fn float_to_float(dst: Ty, src: Ty, rnd: CvtRnd, x: f64) -> u64 {
    let x = match rnd {
        CvtRnd::Rni | CvtRnd::Rzi | CvtRnd::Rmi | CvtRnd::Rpi => round_int(x, rnd),
        _ => x,
    };
    if x.is_nan() {
        return canonical_nan(dst.bits);
    }
    let dir = cvt_dir(rnd);
    if let Some(f) = half::Format::of(dst) {
        return f.from_f64(x, dir);
    }
    match dir {
        Some(d) if dst.bits < src.bits => u64::from(rounding::f64_to_f32(x, d).to_bits()),
        _ => from_f64(dst, x),
    }
}

/// `setp.CMP.TYPE` (the comparison decoded for the type's kind).
pub fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    if ty.is_float() {
        let (x, y) = (to_f64(ty, a), to_f64(ty, b));
        let uno = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => x == y,
            Cmp::Ne => !uno && x != y,
            Cmp::Lt => x < y,
            Cmp::Le => x <= y,
            Cmp::Gt => x > y,
            Cmp::Ge => x >= y,
            Cmp::Equ => uno || x == y,
            Cmp::Neu => x != y,
            Cmp::Ltu => uno || x < y,
            Cmp::Leu => uno || x <= y,
            Cmp::Gtu => uno || x > y,
            Cmp::Geu => uno || x >= y,
            Cmp::Num => !uno,
            Cmp::Nan => uno,
            Cmp::Lo | Cmp::Ls | Cmp::Hi | Cmp::Hs => false,
        };
    }
    let (x, y) = (int_val(ty, a), int_val(ty, b));
    let (ux, uy) = (a & mask(ty.bits), b & mask(ty.bits));
    match cmp {
        Cmp::Eq => ux == uy,
        Cmp::Ne => ux != uy,
        Cmp::Lt => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
        Cmp::Lo => ux < uy,
        Cmp::Ls => ux <= uy,
        Cmp::Hi => ux > uy,
        Cmp::Hs => ux >= uy,
        _ => false,
    }
}

/// Whether `slct` selects its first operand for the selector `c`: an
/// `.s32` (`float` false) or `.f32` that is `>= 0`. `-0.0` counts as 0, a
/// NaN selects the second operand, and with `.ftz` a subnormal is a zero
/// of its sign, so it selects the first.
pub fn slct_takes_a(float: bool, ftz: bool, c: u64) -> bool {
    if !float {
        return c as u32 as i32 >= 0;
    }
    let c = if ftz { self::ftz(Ty::F32, c) } else { c };
    f32::from_bits(c as u32) >= 0.0
}

/// The value an atomic `op` stores, given the `old` value and operand `v`
/// (`cas` is the caller's: it needs the third operand).
pub fn atomic(op: AtomOp, ty: Ty, old: u64, v: u64) -> u64 {
    let m = mask(ty.bits);
    match op {
        AtomOp::Add if ty.is_float() && ty.bits == 16 => half_add(ty, old, v),
        AtomOp::Add if ty.is_float() => float_binary(Arith::Add, ty, old, v),
        AtomOp::Add => old.wrapping_add(v) & m,
        AtomOp::Exch | AtomOp::Cas => v & m,
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::Min => int_binary(IntOp::Min, ty, old, v, false),
        AtomOp::Max => int_binary(IntOp::Max, ty, old, v, false),
        // CUDA's atomicInc/atomicDec.
        AtomOp::Inc => {
            if old & m >= v & m {
                0
            } else {
                (old + 1) & m
            }
        }
        AtomOp::Dec => {
            if old & m == 0 || old & m > v & m {
                v & m
            } else {
                (old & m) - 1
            }
        }
    }
}

/// An atomic add of 16-bit floats (`atom.add.noftz.f16`): round to
/// nearest, subnormals kept.
fn half_add(ty: Ty, a: u64, b: u64) -> u64 {
    half_arith(HalfOp::Add, ty, FloatMods::default(), false, a, b, 0)
}

/// `atom.add.noftz.{f16x2,bf16x2}`: the two 16-bit lanes of `old` and `v`
/// added lane by lane.
pub fn packed_atomic_add(elem: Ty, old: u64, v: u64) -> u64 {
    (0..2).fold(0, |r, i| {
        let lane = |x: u64| (x >> (16 * i)) & 0xffff;
        r | (half_add(elem, lane(old), lane(v)) & 0xffff) << (16 * i)
    })
}

/// `cvt.rn[.relu][.satfinite].{f16x2,bf16x2}.f32`'s conversion of one
/// `f32` to a 16-bit float of type `elem`.
pub fn cvt_half_lane(elem: Ty, relu: bool, satfinite: bool, a: u64) -> u64 {
    let c = Cvt {
        dst: elem,
        src: Ty::F32,
        rnd: CvtRnd::Rn,
        ftz: false,
        sat: false,
        satfinite,
    };
    let r = cvt(&c, a);
    let negative = r & 0x8000 != 0 && !to_f64(elem, r).is_nan();
    if relu && negative {
        0
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Ty {
        Ty::parse(s).unwrap()
    }

    /// Each lane of `atom.add.noftz.f16x2` is an `f16` add of its own,
    /// without a carry between the halves: 1.0 + 2.0 = 3.0 in the low
    /// lane, -0.5 + 0.25 = -0.25 in the high one; and the scalar `f16` add
    /// is a 16-bit float add, not an `f64` one on the bits.
    #[test]
    fn packed_half_atomic_add_adds_each_lane() {
        let f16 = t(".f16");
        let (one, two, three) = (0x3c00, 0x4000, 0x4200);
        let (minus_half, quarter, minus_quarter) = (0xb800, 0x3400, 0xb400);
        let old = minus_half << 16 | one;
        let v = quarter << 16 | two;
        assert_eq!(packed_atomic_add(f16, old, v), minus_quarter << 16 | three);
        assert_eq!(atomic(AtomOp::Add, f16, one, two), three);
    }

    /// The 16-bit atomic adds round the exact sum once, to nearest with
    /// ties to even, and keep subnormals (`.noftz`): in `bf16`, 1 + 2^-8
    /// is a tie that goes to 1.0 and 1 + 3 * 2^-8 one that goes to
    /// 1 + 2^-6, lane by lane in `.bf16x2`; in `f16`, 1 + 2^-11 goes to 1.0,
    /// and the two smallest subnormals add to the next one.
    #[test]
    fn half_atomic_adds_round_to_nearest_even() {
        let (bf16, f16) = (t(".bf16"), t(".f16"));
        let (one, eighth_ulp, three_eighths) = (0x3f80, 0x3b80, 0x3c40);
        assert_eq!(atomic(AtomOp::Add, bf16, one, eighth_ulp), one);
        assert_eq!(atomic(AtomOp::Add, bf16, one, three_eighths), 0x3f82);
        let pair = |lo: u64, hi: u64| hi << 16 | lo;
        assert_eq!(
            packed_atomic_add(bf16, pair(one, one), pair(eighth_ulp, three_eighths)),
            pair(one, 0x3f82)
        );
        assert_eq!(atomic(AtomOp::Add, f16, 0x3c00, 0x1000), 0x3c00);
        assert_eq!(atomic(AtomOp::Add, f16, 0x0001, 0x0001), 0x0002);
        assert_eq!(atomic(AtomOp::Add, f16, 0x8001, 0x0001), 0x0000);
    }

    /// `cvt.rn.f16x2.f32`'s lane: round to nearest (1 + 2^-11 is a tie that
    /// goes to even, 1.0), `.relu` makes a negative result +0 but keeps a
    /// NaN, `.satfinite` keeps an overflow finite.
    #[test]
    fn packed_half_conversion_rounds_relus_and_saturates() {
        let f16 = t(".f16");
        let bits = |x: f32| u64::from(x.to_bits());
        assert_eq!(
            cvt_half_lane(f16, false, false, bits(1.0 + 2f32.powi(-11))),
            0x3c00
        );
        assert_eq!(cvt_half_lane(f16, true, false, bits(-3.0)), 0);
        assert_eq!(cvt_half_lane(f16, false, false, bits(-3.0)), 0xc200);
        assert!(to_f64(f16, cvt_half_lane(f16, true, false, bits(f32::NAN))).is_nan());
        assert_eq!(cvt_half_lane(f16, false, false, bits(1e6)), 0x7c00);
        assert_eq!(cvt_half_lane(f16, false, true, bits(1e6)), 0x7bff);
    }

    /// `cvt` by the modifier as written; `None` for a form the emulator
    /// does not implement.
    fn conv_form(dst: Ty, src: Ty, rnd: &str, sat: bool, a: u64) -> Option<u64> {
        let rnd = match rnd {
            "" => CvtRnd::Default,
            ".rn" => CvtRnd::Rn,
            ".rz" => CvtRnd::Rz,
            ".rm" => CvtRnd::Rm,
            ".rp" => CvtRnd::Rp,
            ".rni" => CvtRnd::Rni,
            ".rzi" => CvtRnd::Rzi,
            ".rmi" => CvtRnd::Rmi,
            _ => CvtRnd::Rpi,
        };
        let c = Cvt {
            dst,
            src,
            rnd,
            ftz: false,
            sat,
            satfinite: false,
        };
        cvt_supported(&c).then(|| cvt(&c, a))
    }

    fn conv(dst: Ty, src: Ty, rnd: &str, sat: bool, a: u64) -> u64 {
        conv_form(dst, src, rnd, sat, a).expect("a supported conversion")
    }

    #[test]
    fn integer_edges_follow_ptx() {
        let s32 = t(".s32");
        let u32t = t(".u32");
        assert_eq!(int_binary(IntOp::Div, s32, 7, 0, false), 0xffff_ffff);
        assert_eq!(int_binary(IntOp::Div, u32t, 7, 0, false), 0xffff_ffff);
        assert_eq!(int_binary(IntOp::Rem, u32t, 7, 0, false), 7);
        let min = 0x8000_0000;
        assert_eq!(int_binary(IntOp::Div, s32, min, 0xffff_ffff, false), min);
        assert_eq!(int_binary(IntOp::Rem, s32, min, 0xffff_ffff, false), 0);
        assert_eq!(
            int_binary(IntOp::Rem, s32, (-7i32) as u32 as u64, 2, false),
            0xffff_ffff
        );
        assert_eq!(int_binary(IntOp::MulHi, u32t, 0xffff_ffff, 2, false), 1);
        // 64-bit high products: the unsigned one needs all 128 bits.
        let (u64t, s64t) = (t(".u64"), t(".s64"));
        assert_eq!(
            int_binary(IntOp::MulHi, u64t, u64::MAX, u64::MAX, false),
            u64::MAX - 1
        );
        assert_eq!(
            int_binary(IntOp::MulHi, s64t, (-3i64) as u64, 1 << 62, false),
            ((-3i128 << 62) >> 64) as u64
        );
        assert_eq!(
            int_binary(IntOp::MulHi, s32, (-2i32) as u32 as u64, 3, false),
            0xffff_ffff
        );
        assert_eq!(
            int_binary(IntOp::Add, s32, 0x7fff_ffff, 1, true),
            0x7fff_ffff
        );
        assert_eq!(
            int_binary(IntOp::Min, s32, 0xffff_ffff, 1, false),
            0xffff_ffff
        );
        assert_eq!(int_binary(IntOp::Min, u32t, 0xffff_ffff, 1, false), 1);
    }

    #[test]
    fn shifts_clamp() {
        assert_eq!(shift(true, t(".b32"), 1, 32), 0);
        assert_eq!(shift(false, t(".u32"), 0x8000_0000, 40), 0);
        assert_eq!(shift(false, t(".s32"), 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(shift(false, t(".s32"), 0x8000_0000, 4), 0xf800_0000);
        assert_eq!(shift(true, t(".b64"), 1, 63), 1 << 63);
    }

    #[test]
    fn bit_instructions() {
        let b32 = t(".b32");
        assert_eq!(int_unary(IntUnOp::Popc, b32, 0xf0f0), 8);
        assert_eq!(int_unary(IntUnOp::Clz, b32, 1), 31);
        assert_eq!(int_unary(IntUnOp::Clz, t(".b64"), 1), 63);
        assert_eq!(int_unary(IntUnOp::Brev, b32, 1), 0x8000_0000);
        assert_eq!(int_unary(IntUnOp::Not, b32, 0), 0xffff_ffff);
        assert_eq!(int_unary(IntUnOp::Abs, t(".s32"), 0xffff_fffb), 5);
        assert_eq!(bfe(t(".u32"), 0xabcd, 4, 8), 0xbc);
        assert_eq!(bfe(t(".s32"), 0x80, 4, 4), 0xffff_fff8);
        assert_eq!(bfi(b32, 0xf, 0, 4, 4), 0xf0);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x0004), 0x1111_1155);
    }

    #[test]
    fn dp4a_sums_byte_products() {
        // Lanes of 0xff01_807f: 0x7f, 0x80, 0x01, 0xff.
        let a = 0xff01_807f;
        // Signed: 127, -128, 1, -1.
        let s_lanes = [127i32, -128, 1, -1];
        // Unsigned: 127, 128, 1, 255.
        let u_lanes = [127i32, 128, 1, 255];
        let b = 0x02fe_03ff; // signed: -1, 3, -2, 2; unsigned: 255, 3, 254, 2.
        let sb = [-1i32, 3, -2, 2];
        let ub = [255i32, 3, 254, 2];
        let dot = |x: [i32; 4], y: [i32; 4], c: i32| {
            x.iter()
                .zip(y)
                .fold(c, |acc, (p, q)| acc.wrapping_add(p.wrapping_mul(q))) as u32
                as u64
        };
        // .s32.s32: -127 - 384 - 2 - 2 = -515.
        assert_eq!(dp4a(true, true, a, b, 0), (-515i32) as u32 as u64);
        assert_eq!(dp4a(true, true, a, b, 0), dot(s_lanes, sb, 0));
        // .u32.u32: 32385 + 384 + 254 + 510 = 33533.
        assert_eq!(dp4a(false, false, a, b, 0), 33533);
        assert_eq!(dp4a(false, false, a, b, 0), dot(u_lanes, ub, 0));
        // Mixed: .u32.s32 and .s32.u32.
        assert_eq!(dp4a(false, true, a, b, 0), dot(u_lanes, sb, 0));
        assert_eq!(
            dp4a(false, true, a, b, 0),
            (-127i32 + 384 - 2 + 510) as u32 as u64
        );
        assert_eq!(dp4a(true, false, a, b, 0), dot(s_lanes, ub, 0));
        assert_eq!(
            dp4a(true, false, a, b, 0),
            (32385i32 - 384 + 254 - 2) as u32 as u64
        );
        // A nonzero accumulator, negative as well.
        assert_eq!(dp4a(true, true, a, b, 1000), 485);
        assert_eq!(
            dp4a(
                false,
                false,
                0x0403_0201,
                0x0101_0101,
                (-10i32) as u32 as u64
            ),
            0
        );
        // -128 * -128 four times is 65536; all-ones lanes unsigned: 4 * 255^2.
        assert_eq!(dp4a(true, true, 0x8080_8080, 0x8080_8080, 0), 65536);
        assert_eq!(
            dp4a(false, false, u64::from(u32::MAX), u64::from(u32::MAX), 0),
            260_100
        );
        // Wrapping in 32 bits: the sum past u32::MAX, and past i32::MIN.
        assert_eq!(
            dp4a(false, false, 0xff, 0xff, 0xffff_ffff),
            65024 // 0xffff_ffff + 65025 mod 2^32
        );
        assert_eq!(
            dp4a(true, true, 0x7f, 0x80, 0x8000_0000),
            0x7fff_c080 // i32::MIN - 16256 wraps to the top
        );
        // Only the low 32 bits of each operand count.
        assert_eq!(
            dp4a(false, false, 0x1_0000_0001, 0x2_0000_0001, 0x3_0000_0000),
            1
        );
    }

    #[test]
    fn conversions_saturate_and_round() {
        let f = |x: f32| u64::from(x.to_bits());
        let (s32, u32t, f32t, f64t) = (t(".s32"), t(".u32"), t(".f32"), t(".f64"));
        assert_eq!(conv(s32, f32t, ".rzi", false, f(-2.9)), 0xffff_fffe);
        assert_eq!(conv(s32, f32t, ".rzi", false, f(3e10)), 0x7fff_ffff);
        assert_eq!(conv(u32t, f32t, ".rzi", false, f(-5.0)), 0);
        assert_eq!(conv(s32, f32t, ".rzi", false, f(f32::NAN)), 0);
        assert_eq!(conv(s32, f32t, ".rmi", false, f(-2.5)), 0xffff_fffd);
        assert_eq!(conv(s32, f32t, ".rni", false, f(2.5)), 2);
        assert_eq!(conv(s32, f32t, ".rpi", false, f(2.1)), 3);
        assert_eq!(conv(f32t, f32t, ".rmi", false, f(-1.5)), f(-2.0));
        assert_eq!(conv(t(".s64"), s32, "", false, 0xffff_fffe), u64::MAX - 1);
        assert_eq!(conv(t(".u64"), u32t, "", false, 0xffff_fffe), 0xffff_fffe);
        assert_eq!(conv(t(".u8"), u32t, "", false, 0x1ff), 0xff);
        assert_eq!(conv(t(".s32"), t(".s8"), "", false, 0x80), 0xffff_ff80);
        assert_eq!(conv(f32t, s32, ".rn", false, 0xffff_ffff), f(-1.0));
        assert_eq!(conv(f32t, f64t, ".rn", false, 0.1f64.to_bits()), f(0.1));
        // Directed roundings of int-to-float and narrowing conversions.
        assert_eq!(conv(f32t, s32, ".rz", false, 16_777_217), f(16_777_216.0));
        assert_eq!(conv(f32t, s32, ".rp", false, 16_777_217), f(16_777_218.0));
        assert_eq!(
            conv(f32t, f64t, ".rm", false, 0.1f64.to_bits()),
            f(0.1f32.next_down())
        );
        // 16-bit floats, and what is still refused: an integer rounding
        // to a float from an integer.
        assert_eq!(conv(t(".f16"), s32, ".rz", false, 1), 0x3c00);
        assert_eq!(conv(t(".bf16"), s32, ".rn", false, 0xffff_ffff), 0xbf80);
        assert!(conv_form(f32t, s32, ".rni", false, 1).is_none());
    }

    #[test]
    fn float_edges() {
        let f32t = t(".f32");
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(float_binary(Arith::Div, f32t, f(0.0), f(0.0)), 0x7fff_ffff);
        assert_eq!(
            float_min_max(false, f32t, f(f32::NAN), f(2.0), false),
            f(2.0)
        );
        assert_eq!(float_min_max(false, f32t, f(0.0), f(-0.0), false), f(-0.0));
        assert_eq!(
            float_min_max(true, f32t, f(f32::NAN), f(2.0), true),
            0x7fff_ffff
        );
        assert_eq!(float_sign(true, f32t, f(1.0)), f(-1.0));
        assert_eq!(float_unary(FloatUnOp::Ex2, f32t, f(3.0)), f(8.0));
        assert_eq!(fma(f32t, f(2.0), f(3.0), f(1.0)), f(7.0));
        assert!(compare(Cmp::Ltu, f32t, f(f32::NAN), f(1.0)));
        assert!(!compare(Cmp::Lt, f32t, f(f32::NAN), f(1.0)));
        assert!(!compare(Cmp::Ne, f32t, f(f32::NAN), f(1.0)));
        assert!(compare(Cmp::Neu, f32t, f(f32::NAN), f(1.0)));
        assert!(compare(Cmp::Hi, t(".u32"), 0xffff_ffff, 1));
        assert!(!compare(Cmp::Gt, t(".s32"), 0xffff_ffff, 1));
        assert_eq!(ftz(f32t, 1), 0);
        assert_eq!(fsat(f32t, f(2.0)), f(1.0));
    }

    #[test]
    fn div_approx_flushes_the_reciprocal_of_huge_divisors() {
        let f = |x: f32| u64::from(x.to_bits());
        let big = 2f32.powi(126);
        // At 2^126 the reciprocal is still normal: the quotient.
        assert_eq!(div_approx(f(3.0), f(big)), f(3.0 / big));
        assert_eq!(div_approx(f(-3.0), f(-big)), f(3.0 / big));
        // Above it, up to the largest finite f32: a zero of the quotient's
        // sign, and NaN for an infinite dividend.
        let above = big.next_up();
        assert_eq!(div_approx(f(3.0), f(above)), f(0.0));
        assert_eq!(div_approx(f(-3.0), f(above)), f(-0.0));
        assert_eq!(div_approx(f(3.0), f(-f32::MAX)), f(-0.0));
        assert_eq!(div_approx(f(f32::MAX), f(f32::MAX)), f(0.0), "not 1");
        assert_eq!(div_approx(f(f32::INFINITY), f(f32::MAX)), 0x7fff_ffff);
        assert_eq!(div_approx(f(f32::NAN), f(f32::MAX)), 0x7fff_ffff);
        // An infinite divisor and the ordinary range: IEEE's quotient.
        assert_eq!(div_approx(f(3.0), f(f32::INFINITY)), f(0.0));
        assert_eq!(div_approx(f(f32::INFINITY), f(f32::INFINITY)), 0x7fff_ffff);
        assert_eq!(div_approx(f(1.0), f(3.0)), f(1.0 / 3.0));
        assert_eq!(div_approx(f(1.0), f(0.0)), f(f32::INFINITY));
    }

    #[test]
    fn slct_selects_by_the_sign() {
        let f = |x: f32| u64::from(x.to_bits());
        assert!(slct_takes_a(false, false, 0));
        assert!(slct_takes_a(false, false, 0x7fff_ffff));
        assert!(!slct_takes_a(false, false, 0xffff_ffff));
        assert!(!slct_takes_a(false, false, 0x8000_0000));
        assert!(
            slct_takes_a(false, false, 0x1_0000_0000),
            "only 32 bits count"
        );
        assert!(slct_takes_a(true, false, f(0.0)));
        assert!(slct_takes_a(true, false, f(-0.0)), "-0.0 equals zero");
        assert!(slct_takes_a(true, false, f(f32::INFINITY)));
        assert!(!slct_takes_a(true, false, f(f32::NEG_INFINITY)));
        assert!(!slct_takes_a(true, false, f(-1e-30)));
        assert!(!slct_takes_a(true, false, f(f32::NAN)), "NaN selects b");
        assert!(
            !slct_takes_a(true, false, 0xffff_ffff),
            "a negative NaN too"
        );
        // A negative subnormal is below zero, unless .ftz flushes it.
        assert!(!slct_takes_a(true, false, 0x8000_0001));
        assert!(slct_takes_a(true, true, 0x8000_0001));
        assert!(slct_takes_a(true, true, 0x0000_0001));
    }

    #[test]
    fn atomics() {
        let u32t = t(".u32");
        assert_eq!(atomic(AtomOp::Inc, u32t, 5, 5), 0);
        assert_eq!(atomic(AtomOp::Inc, u32t, 4, 5), 5);
        assert_eq!(atomic(AtomOp::Dec, u32t, 0, 5), 5);
        assert_eq!(atomic(AtomOp::Dec, u32t, 3, 5), 2);
        assert_eq!(atomic(AtomOp::Max, t(".s32"), 0xffff_ffff, 1), 1);
        assert_eq!(
            atomic(
                AtomOp::Add,
                t(".f32"),
                u64::from(1f32.to_bits()),
                u64::from(2f32.to_bits())
            ),
            u64::from(3f32.to_bits())
        );
    }
}
