//! Lowering the device functions of `sema/device_fns.rs`: `min`/`max`/
//! `abs`, bit reinterpretation, conversions with a directed rounding, the
//! integer intrinsics and the floating-point class tests, `ldexp`, `frexp`
//! and `modf`.
//!
//! Everything here is built from existing IR instructions, and every
//! result is exact (bit for bit what CUDA computes), so the IR needs no
//! opcode of its own for these functions:
//! - a directed conversion is the round-to-nearest conversion, corrected
//!   by one step of the result's bits when an exact comparison with the
//!   source says it rounded the wrong way ([`FunctionLowerer::convert_rounded`]);
//! - the high half of a 32-bit product is a 64-bit product (the backend
//!   selects `mul.wide`), and of a 64-bit product four 32-bit products;
//! - `__byte_perm` and the funnel shifts work on the two operands joined in
//!   a 64-bit integer.

use super::{value_type, FunctionLowerer};
use crate::typed::{ArithOp, Expr, FloatClass, Intrinsic, RoundMode};
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, IntCC, MemFlags, Opcode, Type, Value};

fn is_signed(ty: &CType) -> bool {
    matches!(ty, CType::Int { signed: true, .. })
}

/// The integer type as wide as the float type `t`.
fn bits_type(t: Type) -> Type {
    if t == Type::F64 {
        Type::I64
    } else {
        Type::I32
    }
}

impl FunctionLowerer<'_, '_> {
    /// Lowers one of the intrinsics listed in the module docs.
    pub(crate) fn device_fn(&mut self, op: Intrinsic, args: &[Expr], ty: &CType) -> Value {
        use Intrinsic as I;
        let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let x = vals[0];
        match op {
            I::MinMax { max } => {
                let opcode = match (ty.is_float(), is_signed(ty), max) {
                    (true, _, false) => Opcode::Fmin,
                    (true, _, true) => Opcode::Fmax,
                    (false, true, false) => Opcode::Smin,
                    (false, true, true) => Opcode::Smax,
                    (false, false, false) => Opcode::Umin,
                    (false, false, true) => Opcode::Umax,
                };
                self.b.binary(opcode, x, vals[1])
            }
            I::Abs if ty.is_float() => self.b.unary(Opcode::Fabs, x),
            I::Abs => {
                // `max(x, -x)`: the most negative value stays itself, as
                // with PTX `abs.s32`.
                let n = self.b.unary(Opcode::Ineg, x);
                self.b.binary(Opcode::Smax, x, n)
            }
            I::Reinterpret => self.b.convert(Opcode::Bitcast, value_type(ty), x),
            I::DoubleHalf { hi } => {
                let bits = self.b.convert(Opcode::Bitcast, Type::I64, x);
                let bits = if hi {
                    let k = self.b.iconst(Type::I64, 32);
                    self.b.binary(Opcode::Ushr, bits, k)
                } else {
                    bits
                };
                self.b.convert(Opcode::Trunc, Type::I32, bits)
            }
            I::HiLoToDouble => {
                let joined = self.join64(x, vals[1]);
                self.b.convert(Opcode::Bitcast, Type::F64, joined)
            }
            I::ConvertRounded(mode) => self.convert_rounded(x, &args[0].ty, value_type(ty), mode),
            I::Mul24 => {
                let (a, b) = (self.low24(x, ty), self.low24(vals[1], ty));
                self.b.binary(Opcode::Imul, a, b)
            }
            I::MulHi if value_type(ty) == Type::I32 => {
                let ext = if is_signed(ty) {
                    Opcode::Sext
                } else {
                    Opcode::Zext
                };
                let a = self.b.convert(ext, Type::I64, x);
                let b = self.b.convert(ext, Type::I64, vals[1]);
                let p = self.b.binary(Opcode::Imul, a, b);
                let k = self.b.iconst(Type::I64, 32);
                let hi = self.b.binary(Opcode::Ushr, p, k);
                self.b.convert(Opcode::Trunc, Type::I32, hi)
            }
            I::MulHi => self.mul_hi64(x, vals[1], is_signed(ty)),
            I::Sad => {
                let (lo, hi) = if is_signed(&args[0].ty) {
                    (Opcode::Smin, Opcode::Smax)
                } else {
                    (Opcode::Umin, Opcode::Umax)
                };
                let small = self.b.binary(lo, x, vals[1]);
                let big = self.b.binary(hi, x, vals[1]);
                let d = self.b.isub(big, small);
                self.b.iadd(d, vals[2])
            }
            I::BytePerm => self.byte_perm(x, vals[1], vals[2]),
            I::ByteSwap => self.byte_swap(x),
            I::NextAfter => self.next_after(x, vals[1]),
            I::FunnelShift { left, clamp } => self.funnel_shift(x, vals[1], vals[2], left, clamp),
            I::HalfAdd { round } => {
                let signed = is_signed(ty);
                let ext = if signed { Opcode::Sext } else { Opcode::Zext };
                let a = self.b.convert(ext, Type::I64, x);
                let b = self.b.convert(ext, Type::I64, vals[1]);
                let mut s = self.b.iadd(a, b);
                if round {
                    let one = self.b.iconst(Type::I64, 1);
                    s = self.b.iadd(s, one);
                }
                let one = self.b.iconst(Type::I64, 1);
                let shift = if signed { Opcode::Sshr } else { Opcode::Ushr };
                let h = self.b.binary(shift, s, one);
                self.b.convert(Opcode::Trunc, Type::I32, h)
            }
            I::Classify(c) => {
                let r = self.classify(x, c);
                self.b.convert(Opcode::Zext, Type::I32, r)
            }
            I::Ldexp => self.ldexp(x, vals[1]),
            I::Frexp => self.frexp(x, vals[1]),
            I::Logb { int } => self.logb(x, int),
            I::Modf => self.modf(x, vals[1]),
            I::RoundedArith { op, mode } => self.rounded_arith(op, mode, &vals),
            _ => unreachable!("not a device function: {op:?}"),
        }
    }

    /// `__fadd_rz` and the other explicitly rounded operations: one IR
    /// instruction with that rounding (`fadd_rz`, ...; the `_rn` add and
    /// multiply are `fadd_rn`/`fmul_rn`, which the `contract` pass leaves
    /// alone). A subtraction adds the negated operand (exact, and rounded
    /// the same in every direction), a reciprocal divides 1.
    fn rounded_arith(&mut self, op: ArithOp, mode: RoundMode, v: &[Value]) -> Value {
        use Opcode as O;
        let pick = |n: O, z: O, u: O, d: O| match mode {
            RoundMode::Nearest => n,
            RoundMode::Zero => z,
            RoundMode::Up => u,
            RoundMode::Down => d,
        };
        let t = self.b.value_type(v[0]);
        match op {
            ArithOp::Add | ArithOp::Sub => {
                let b = if op == ArithOp::Sub {
                    self.b.unary(O::Fneg, v[1])
                } else {
                    v[1]
                };
                let o = pick(O::FaddRn, O::FaddRz, O::FaddRu, O::FaddRd);
                self.b.binary(o, v[0], b)
            }
            ArithOp::Mul => {
                let o = pick(O::FmulRn, O::FmulRz, O::FmulRu, O::FmulRd);
                self.b.binary(o, v[0], v[1])
            }
            ArithOp::Div | ArithOp::Rcp => {
                let (a, b) = if op == ArithOp::Rcp {
                    (self.b.fconst(t, 1.0), v[0])
                } else {
                    (v[0], v[1])
                };
                let o = pick(O::Fdiv, O::FdivRz, O::FdivRu, O::FdivRd);
                self.b.binary(o, a, b)
            }
            ArithOp::Fma => {
                let o = pick(O::Fma, O::FmaRz, O::FmaRu, O::FmaRd);
                self.b.fma_op(o, v[0], v[1], v[2])
            }
            ArithOp::Sqrt => {
                let o = pick(O::Sqrt, O::SqrtRz, O::SqrtRu, O::SqrtRd);
                self.b.unary(o, v[0])
            }
            ArithOp::Rsqrt => self.rsqrt_rn_f32(v[0]),
        }
    }

    /// `__frsqrt_rn(x)`: `1/sqrt(x)` correctly rounded. `y = 1/sqrt(x)` in
    /// `double` is within 2^-52 (relative) of the true value, so its
    /// rounding to `float` is right unless the true value and `y` lie on
    /// opposite sides of the midpoint `m` between two floats next to `y`.
    /// That is decided exactly: `1/sqrt(x) > m` exactly when
    /// `m²·x < 1`, where `m²` (25-bit `m`) is exact in `double` and the
    /// sign of `fma(m², x, -1)` is exact. (The true value is never a
    /// midpoint: `1/m²` is not a `float` for a 25-bit odd `m`.) Zeros,
    /// infinities, negative numbers and NaN take the `double` result.
    fn rsqrt_rn_f32(&mut self, x: Value) -> Value {
        let xd = self.b.convert(Opcode::Fpext, Type::F64, x);
        let s = self.b.unary(Opcode::Sqrt, xd);
        let one = self.b.fconst(Type::F64, 1.0);
        let yd = self.b.binary(Opcode::Fdiv, one, s);
        let y = self.b.convert(Opcode::Fptrunc, Type::F32, yd);
        let yw = self.b.convert(Opcode::Fpext, Type::F64, y);
        // The midpoint on the side of `yd`, and whether the truth is past it.
        let up = self.b.fcmp(FloatCC::Ogt, yd, yw);
        let bits = self.b.convert(Opcode::Bitcast, Type::I32, y);
        let one_i = self.b.iconst(Type::I32, 1);
        let minus_one = self.b.iconst(Type::I32, -1);
        let delta = self.b.select(up, one_i, minus_one);
        let nb = self.b.iadd(bits, delta);
        let neighbour = self.b.convert(Opcode::Bitcast, Type::F32, nb);
        let nw = self.b.convert(Opcode::Fpext, Type::F64, neighbour);
        let sum = self.b.fadd(yw, nw);
        let half = self.b.fconst(Type::F64, 0.5);
        let m = self.b.fmul(sum, half);
        let m2 = self.b.fmul(m, m);
        let minus = self.b.fconst(Type::F64, -1.0);
        let d = self.b.fma(m2, xd, minus);
        let zero = self.b.fconst(Type::F64, 0.0);
        // Up: past the midpoint when m²x < 1; down: when m²x > 1.
        let below = self.b.fcmp(FloatCC::Olt, d, zero);
        let above = self.b.fcmp(FloatCC::Ogt, d, zero);
        let past = self.b.select(up, below, above);
        // Only for a positive, finite, nonzero result.
        let fzero = self.b.fconst(Type::F32, 0.0);
        let inf = self.b.fconst(Type::F32, f64::INFINITY);
        let pos = self.b.fcmp(FloatCC::Ogt, y, fzero);
        let fin = self.b.fcmp(FloatCC::Olt, y, inf);
        let ok = self.b.binary(Opcode::Band, pos, fin);
        let fix = self.b.binary(Opcode::Band, ok, past);
        self.b.select(fix, neighbour, y)
    }

    /// `hi:lo` as one 64-bit integer (both `i32`).
    fn join64(&mut self, hi: Value, lo: Value) -> Value {
        let hi = self.b.convert(Opcode::Zext, Type::I64, hi);
        let lo = self.b.convert(Opcode::Zext, Type::I64, lo);
        let k = self.b.iconst(Type::I64, 32);
        let hi = self.b.binary(Opcode::Ishl, hi, k);
        self.b.binary(Opcode::Bor, hi, lo)
    }

    /// The low 24 bits of `x`, sign-extended for `int` (`__mul24`).
    fn low24(&mut self, x: Value, ty: &CType) -> Value {
        if is_signed(ty) {
            let k = self.b.iconst(Type::I32, 8);
            let up = self.b.binary(Opcode::Ishl, x, k);
            self.b.binary(Opcode::Sshr, up, k)
        } else {
            let m = self.b.iconst(Type::I32, 0xff_ffff);
            self.b.binary(Opcode::Band, x, m)
        }
    }

    /// The high 64 bits of the 128-bit product of `a` and `b`, from four
    /// products of 32-bit halves (each a `mul.wide.u32`). The signed
    /// product differs from the unsigned one by `b` when `a < 0` and by `a`
    /// when `b < 0` (two's complement), which is subtracted at the end.
    fn mul_hi64(&mut self, a: Value, b: Value, signed: bool) -> Value {
        let k = self.b.iconst(Type::I64, 32);
        let mut halves = |v: Value| {
            let lo = self.b.convert(Opcode::Trunc, Type::I32, v);
            let hi = self.b.binary(Opcode::Ushr, v, k);
            let hi = self.b.convert(Opcode::Trunc, Type::I32, hi);
            let lo = self.b.convert(Opcode::Zext, Type::I64, lo);
            let hi = self.b.convert(Opcode::Zext, Type::I64, hi);
            (lo, hi)
        };
        let (a0, a1) = halves(a);
        let (b0, b1) = halves(b);
        let p00 = self.b.binary(Opcode::Imul, a0, b0);
        let p01 = self.b.binary(Opcode::Imul, a0, b1);
        let p10 = self.b.binary(Opcode::Imul, a1, b0);
        let p11 = self.b.binary(Opcode::Imul, a1, b1);
        let mask = self.b.iconst(Type::I64, 0xffff_ffff);
        let carry = self.b.binary(Opcode::Ushr, p00, k);
        let m01 = self.b.binary(Opcode::Band, p01, mask);
        let m10 = self.b.binary(Opcode::Band, p10, mask);
        let mid = self.b.iadd(carry, m01);
        let mid = self.b.iadd(mid, m10);
        let h01 = self.b.binary(Opcode::Ushr, p01, k);
        let h10 = self.b.binary(Opcode::Ushr, p10, k);
        let hmid = self.b.binary(Opcode::Ushr, mid, k);
        let hi = self.b.iadd(p11, h01);
        let hi = self.b.iadd(hi, h10);
        let hi = self.b.iadd(hi, hmid);
        if !signed {
            return hi;
        }
        let zero = self.b.iconst(Type::I64, 0);
        let a_neg = self.b.icmp(IntCC::Slt, a, zero);
        let b_neg = self.b.icmp(IntCC::Slt, b, zero);
        let fix_a = self.b.select(a_neg, b, zero);
        let fix_b = self.b.select(b_neg, a, zero);
        let hi = self.b.isub(hi, fix_a);
        self.b.isub(hi, fix_b)
    }

    /// `__byte_perm(x, y, s)`: byte `n` of the result is byte
    /// `(s >> 4n) & 7` of the eight bytes `y:x` (CUDA ignores the top bit
    /// of each selector nibble).
    fn byte_perm(&mut self, x: Value, y: Value, s: Value) -> Value {
        let bytes = self.join64(y, x);
        let mut out = self.b.iconst(Type::I64, 0);
        for n in 0..4 {
            let pos = self.b.iconst(Type::I32, 4 * n);
            let sel = self.b.binary(Opcode::Ushr, s, pos);
            let seven = self.b.iconst(Type::I32, 7);
            let sel = self.b.binary(Opcode::Band, sel, seven);
            let sel = self.b.convert(Opcode::Zext, Type::I64, sel);
            let three = self.b.iconst(Type::I64, 3);
            let amount = self.b.binary(Opcode::Ishl, sel, three);
            let byte = self.b.binary(Opcode::Ushr, bytes, amount);
            let ff = self.b.iconst(Type::I64, 0xff);
            let byte = self.b.binary(Opcode::Band, byte, ff);
            let to = self.b.iconst(Type::I64, 8 * n);
            let byte = self.b.binary(Opcode::Ishl, byte, to);
            out = self.b.binary(Opcode::Bor, out, byte);
        }
        self.b.convert(Opcode::Trunc, Type::I32, out)
    }

    /// `__nv_bswap16/32/64(x)`: byte `i` of `x` moved to byte `n - 1 - i`.
    fn byte_swap(&mut self, x: Value) -> Value {
        let t = self.b.value_type(x);
        let bytes = i64::from(t.bits()) / 8;
        let mut out = self.b.iconst(t, 0);
        for i in 0..bytes {
            let from = self.b.iconst(t, 8 * i);
            let byte = self.b.binary(Opcode::Ushr, x, from);
            let ff = self.b.iconst(t, 0xff);
            let byte = self.b.binary(Opcode::Band, byte, ff);
            let to = self.b.iconst(t, 8 * (bytes - 1 - i));
            let byte = self.b.binary(Opcode::Ishl, byte, to);
            out = self.b.binary(Opcode::Bor, out, byte);
        }
        out
    }

    /// `nextafter(x, y)` as CUDA's: `x + y` if either is NaN (so the NaN
    /// comes through), `y` if they compare equal (both zeros included),
    /// the smallest subnormal with the sign of `y` from a zero `x`, else
    /// the bits of `x` one step up or down: up when moving away from zero
    /// (`x < y` for a positive `x`, `x > y` for a negative one).
    fn next_after(&mut self, x: Value, y: Value) -> Value {
        let t = self.b.value_type(x);
        let bt = bits_type(t);
        let xb = self.b.convert(Opcode::Bitcast, bt, x);
        let yb = self.b.convert(Opcode::Bitcast, bt, y);
        let zero_bits = self.b.iconst(bt, 0);
        let one = self.b.iconst(bt, 1);
        let minus_one = self.b.iconst(bt, -1);
        let toward_y_is_up = {
            let up = self.b.fcmp(FloatCC::Olt, x, y);
            let negative = self.b.icmp(IntCC::Slt, xb, zero_bits);
            self.b.binary(Opcode::Bxor, up, negative)
        };
        let step = self.b.select(toward_y_is_up, one, minus_one);
        let stepped = self.b.iadd(xb, step);
        let sign = self.b.iconst(bt, i64::MIN >> (64 - bt.bits()));
        let y_sign = self.b.binary(Opcode::Band, yb, sign);
        let tiny = self.b.binary(Opcode::Bor, y_sign, one);
        let fzero = self.b.fconst(t, 0.0);
        let x_zero = self.b.fcmp(FloatCC::Oeq, x, fzero);
        let bits = self.b.select(x_zero, tiny, stepped);
        let moved = self.b.convert(Opcode::Bitcast, t, bits);
        let equal = self.b.fcmp(FloatCC::Oeq, x, y);
        let moved = self.b.select(equal, y, moved);
        let either_nan = self.b.fcmp(FloatCC::Uno, x, y);
        let sum = self.b.binary(Opcode::Fadd, x, y);
        self.b.select(either_nan, sum, moved)
    }

    /// `__funnelshift_l/_r(lo, hi, n)`: `hi:lo` shifted by `n & 31`, or by
    /// `min(n, 32)` for the clamping forms; the left shift keeps the high
    /// word, the right shift the low one.
    fn funnel_shift(&mut self, lo: Value, hi: Value, n: Value, left: bool, clamp: bool) -> Value {
        let amount = if clamp {
            let k = self.b.iconst(Type::I32, 32);
            self.b.binary(Opcode::Umin, n, k)
        } else {
            let k = self.b.iconst(Type::I32, 31);
            self.b.binary(Opcode::Band, n, k)
        };
        let amount = self.b.convert(Opcode::Zext, Type::I64, amount);
        let wide = self.join64(hi, lo);
        let r = if left {
            let shifted = self.b.binary(Opcode::Ishl, wide, amount);
            let k = self.b.iconst(Type::I64, 32);
            self.b.binary(Opcode::Ushr, shifted, k)
        } else {
            self.b.binary(Opcode::Ushr, wide, amount)
        };
        self.b.convert(Opcode::Trunc, Type::I32, r)
    }

    /// A class test as an `i1`.
    fn classify(&mut self, x: Value, c: FloatClass) -> Value {
        let t = self.b.value_type(x);
        match c {
            FloatClass::Nan => self.b.fcmp(FloatCC::Uno, x, x),
            FloatClass::Inf | FloatClass::Finite => {
                let a = self.b.unary(Opcode::Fabs, x);
                let inf = self.b.fconst(t, f64::INFINITY);
                let cc = if c == FloatClass::Inf {
                    FloatCC::Oeq
                } else {
                    FloatCC::Olt
                };
                self.b.fcmp(cc, a, inf)
            }
            FloatClass::Signbit => {
                let bt = bits_type(t);
                let bits = self.b.convert(Opcode::Bitcast, bt, x);
                let zero = self.b.iconst(bt, 0);
                self.b.icmp(IntCC::Slt, bits, zero)
            }
        }
    }

    /// A conversion with a directed rounding, from an integer or `double`
    /// (`from`) to the float type `to`. The conversion to nearest `r` is
    /// compared exactly with the source: an integer against `r` converted
    /// back (exact, since `r` is an integer; only `2^63`/`2^64`, out of
    /// range, saturate and are caught separately), a `double` against `r`
    /// widened. If `r` lies on the wrong side for the rounding, the
    /// neighbouring float one step away is the answer: one step of the
    /// bits, toward zero for `_rz`, up or down for `_ru`/`_rd` (which is
    /// `+1` or `-1` on the bits by the sign of `r`). Overflow comes out
    /// right: `inf` steps back to the largest finite value.
    pub(crate) fn convert_rounded(
        &mut self,
        x: Value,
        from: &CType,
        to: Type,
        mode: RoundMode,
    ) -> Value {
        let (r, above, below) = match from {
            CType::Float { .. } => {
                let r = self.b.convert(Opcode::Fptrunc, to, x);
                let back = self.b.convert(Opcode::Fpext, Type::F64, r);
                let above = self.b.fcmp(FloatCC::Ogt, back, x);
                let below = self.b.fcmp(FloatCC::Olt, back, x);
                (r, above, below)
            }
            _ => {
                let signed = is_signed(from);
                let (to_f, to_i) = if signed {
                    (Opcode::Sitofp, Opcode::Fptosi)
                } else {
                    (Opcode::Uitofp, Opcode::Fptoui)
                };
                let r = self.b.convert(to_f, to, x);
                let wide = self.b.value_type(x) == Type::I64;
                let xw = if wide {
                    x
                } else {
                    let ext = if signed { Opcode::Sext } else { Opcode::Zext };
                    self.b.convert(ext, Type::I64, x)
                };
                let back = self.b.convert(to_i, Type::I64, r);
                let (gt, lt) = if signed {
                    (IntCC::Sgt, IntCC::Slt)
                } else {
                    (IntCC::Ugt, IntCC::Ult)
                };
                let mut above = self.b.icmp(gt, back, xw);
                let below = self.b.icmp(lt, back, xw);
                if wide {
                    // `r` = 2^63 (or 2^64) saturates when converted back,
                    // but is always above the source.
                    let limit = if signed {
                        9.223_372_036_854_776e18
                    } else {
                        1.844_674_407_370_955_2e19
                    };
                    let limit = self.b.fconst(to, limit);
                    let past = self.b.fcmp(FloatCC::Oge, r, limit);
                    above = self.b.binary(Opcode::Bor, above, past);
                }
                (r, above, below)
            }
        };
        let bt = bits_type(to);
        let bits = self.b.convert(Opcode::Bitcast, bt, r);
        let zero_bits = self.b.iconst(bt, 0);
        let negative = self.b.icmp(IntCC::Slt, bits, zero_bits);
        let one = self.b.iconst(bt, 1);
        let minus_one = self.b.iconst(bt, -1);
        let (step, delta) = match mode {
            RoundMode::Nearest => return r,
            RoundMode::Up => (below, self.b.select(negative, minus_one, one)),
            RoundMode::Down => (above, self.b.select(negative, one, minus_one)),
            RoundMode::Zero => {
                // Away from zero means above a positive `r` or below a
                // negative one (a zero `r` is never farther out than the
                // source).
                let zero = self.b.fconst(to, 0.0);
                let pos = self.b.fcmp(FloatCC::Ogt, r, zero);
                let neg = self.b.fcmp(FloatCC::Olt, r, zero);
                let out_pos = self.b.binary(Opcode::Band, above, pos);
                let out_neg = self.b.binary(Opcode::Band, below, neg);
                (self.b.binary(Opcode::Bor, out_pos, out_neg), minus_one)
            }
        };
        let adjust = self.b.select(step, delta, zero_bits);
        let bits = self.b.iadd(bits, adjust);
        let r = self.b.convert(Opcode::Bitcast, to, bits);
        if self.b.func.attrs.ftz && to == Type::F32 {
            // Under `-ftz` the result of `cvt.rz.ftz.f32.f64` is flushed:
            // a step must not land on a subnormal either.
            let a = self.b.unary(Opcode::Fabs, r);
            let min = self.b.fconst(Type::F32, f64::from(f32::MIN_POSITIVE));
            let tiny = self.b.fcmp(FloatCC::Olt, a, min);
            let sign_mask = self.b.iconst(Type::I32, i64::from(i32::MIN));
            let sign = self.b.binary(Opcode::Band, bits, sign_mask);
            let zero = self.b.convert(Opcode::Bitcast, Type::F32, sign);
            return self.b.select(tiny, zero, r);
        }
        r
    }

    /// `2^k` as a `double`, from the bits (`k` an `i32` in `[-1022, 1023]`).
    fn pow2_f64(&mut self, k: Value) -> Value {
        let k = self.b.convert(Opcode::Sext, Type::I64, k);
        let bias = self.b.iconst(Type::I64, 1023);
        let biased = self.b.iadd(k, bias);
        let shift = self.b.iconst(Type::I64, 52);
        let bits = self.b.binary(Opcode::Ishl, biased, shift);
        self.b.convert(Opcode::Bitcast, Type::F64, bits)
    }

    /// `ldexp(x, n) = x·2^n`, rounded once. A `float` is scaled in `double`,
    /// where `x·2^n` is exact for `n` clamped to `[-300, 300]` (which
    /// saturates every result), then rounded to `float`. A `double` is
    /// first made normal (subnormals times 2^54) and reduced to `[1, 2)`
    /// by its exponent bits; the scale `2^(e + n)`, with the exponent
    /// clamped to `[-1100, 1100]`, is applied in two exact halves and a
    /// final multiplication that rounds (into the subnormals) or overflows.
    fn ldexp(&mut self, x: Value, n: Value) -> Value {
        let t = self.b.value_type(x);
        if t == Type::F32 {
            let lo = self.b.iconst(Type::I32, -300);
            let hi = self.b.iconst(Type::I32, 300);
            let n = self.b.binary(Opcode::Smax, n, lo);
            let n = self.b.binary(Opcode::Smin, n, hi);
            let wide = self.b.convert(Opcode::Fpext, Type::F64, x);
            let s = self.pow2_f64(n);
            let p = self.b.fmul(wide, s);
            return self.b.convert(Opcode::Fptrunc, Type::F32, p);
        }
        // Subnormal inputs first become normal.
        let a = self.b.unary(Opcode::Fabs, x);
        let min = self.b.fconst(Type::F64, f64::MIN_POSITIVE);
        let sub = self.b.fcmp(FloatCC::Olt, a, min);
        let up = self.b.fconst(Type::F64, 18_014_398_509_481_984.0); // 2^54
        let scaled = self.b.fmul(x, up);
        let xn = self.b.select(sub, scaled, x);
        let k54 = self.b.iconst(Type::I32, 54);
        let k0 = self.b.iconst(Type::I32, 0);
        let pre = self.b.select(sub, k54, k0);
        // x = m·2^e with m in [1, 2).
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, xn);
        let k52 = self.b.iconst(Type::I64, 52);
        let field = self.b.binary(Opcode::Ushr, bits, k52);
        let m7ff = self.b.iconst(Type::I64, 0x7ff);
        let field = self.b.binary(Opcode::Band, field, m7ff);
        let field = self.b.convert(Opcode::Trunc, Type::I32, field);
        let bias = self.b.iconst(Type::I32, 1023);
        let e = self.b.isub(field, bias);
        let keep = self.b.iconst(Type::I64, !(0x7ff_i64 << 52));
        let mant = self.b.binary(Opcode::Band, bits, keep);
        let one_bits = self.b.iconst(Type::I64, 1023 << 52);
        let mbits = self.b.binary(Opcode::Bor, mant, one_bits);
        let m = self.b.convert(Opcode::Bitcast, Type::F64, mbits);
        // The result's exponent, clamped: every result past it is 0 or inf.
        let lo = self.b.iconst(Type::I32, -2200);
        let hi = self.b.iconst(Type::I32, 2200);
        let nc = self.b.binary(Opcode::Smax, n, lo);
        let nc = self.b.binary(Opcode::Smin, nc, hi);
        let et = self.b.iadd(e, nc);
        let et = self.b.isub(et, pre);
        let lo = self.b.iconst(Type::I32, -1100);
        let hi = self.b.iconst(Type::I32, 1100);
        let et = self.b.binary(Opcode::Smax, et, lo);
        let et = self.b.binary(Opcode::Smin, et, hi);
        // m·2^(et - s) is exact and normal; the multiplication by 2^s
        // rounds once. s = 600 for a positive exponent, -600 otherwise.
        let zero = self.b.iconst(Type::I32, 0);
        let pos = self.b.icmp(IntCC::Sge, et, zero);
        let s_pos = self.b.iconst(Type::I32, 600);
        let s_neg = self.b.iconst(Type::I32, -600);
        let s = self.b.select(pos, s_pos, s_neg);
        let first = self.b.isub(et, s);
        let f1 = self.pow2_f64(first);
        let f2 = self.pow2_f64(s);
        let p = self.b.fmul(m, f1);
        let r = self.b.fmul(p, f2);
        // Zeros are returned as they are, infinities and NaN as `x + x`:
        // a NaN comes out as the GPU's arithmetic makes it (nvcc's
        // multiplications give the canonical NaN, not the operand's bits).
        let zero_f = self.b.fconst(Type::F64, 0.0);
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero_f);
        let inf = self.b.fconst(Type::F64, f64::INFINITY);
        let finite = self.b.fcmp(FloatCC::Olt, a, inf);
        let ordinary = self.b.select(is_zero, x, r);
        let special = self.b.binary(Opcode::Fadd, x, x);
        self.b.select(finite, ordinary, special)
    }

    /// `frexp(x, e)`: `x = m·2^e` with `|m|` in `[0.5, 1)`; `m` keeps the
    /// sign and mantissa bits of `x` and gets the exponent of 0.5. Zeros,
    /// infinities and NaN are returned with `*e = 0`.
    fn frexp(&mut self, x: Value, e_ptr: Value) -> Value {
        let (e, m, ordinary) = self.frexp_parts(x);
        let zero32 = self.b.iconst(Type::I32, 0);
        let m = self.b.select(ordinary, m, x);
        let e = self.b.select(ordinary, e, zero32);
        self.b.store(e, e_ptr, MemFlags::default());
        m
    }

    /// `ilogb(x)` (`int`) or `logb(x)`: the exponent of `x`, `e - 1` for
    /// frexp's `e` (subnormals included). CUDA's specials: `ilogb(±0)` and
    /// `ilogb(NaN)` are `INT_MIN`, `ilogb(±inf)` is `INT_MAX`; `logb(±0)`
    /// is `-inf`, `logb(±inf)` is `+inf`, `logb(NaN)` NaN.
    fn logb(&mut self, x: Value, int: bool) -> Value {
        let t = self.b.value_type(x);
        let (e, _, ordinary) = self.frexp_parts(x);
        let one = self.b.iconst(Type::I32, 1);
        let e = self.b.isub(e, one);
        let a = self.b.unary(Opcode::Fabs, x);
        if int {
            let inf = self.b.fconst(t, f64::INFINITY);
            let is_inf = self.b.fcmp(FloatCC::Oeq, a, inf);
            let max = self.b.iconst(Type::I32, i64::from(i32::MAX));
            let min = self.b.iconst(Type::I32, i64::from(i32::MIN));
            let special = self.b.select(is_inf, max, min);
            self.b.select(ordinary, e, special)
        } else {
            let f = self.b.convert(Opcode::Sitofp, t, e);
            let zero = self.b.fconst(t, 0.0);
            let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
            let minus_inf = self.b.fconst(t, f64::NEG_INFINITY);
            // `abs(x)` is `+inf` for either infinity and NaN for NaN.
            let special = self.b.select(is_zero, minus_inf, a);
            self.b.select(ordinary, f, special)
        }
    }

    /// frexp's exponent `e` and fraction `m` of `x` (`x = m·2^e`, `m` in
    /// [1/2, 1)), valid when the third value, `ordinary` (finite and not
    /// zero), holds.
    fn frexp_parts(&mut self, x: Value) -> (Value, Value, Value) {
        let t = self.b.value_type(x);
        let bt = bits_type(t);
        let (mbits, bias, sub_scale, sub_exp) = if t == Type::F32 {
            (23, 126, 33_554_432.0, 25) // 2^25
        } else {
            (52, 1022, 18_014_398_509_481_984.0, 54) // 2^54
        };
        let a = self.b.unary(Opcode::Fabs, x);
        let min_normal = if t == Type::F32 {
            f64::from(f32::MIN_POSITIVE)
        } else {
            f64::MIN_POSITIVE
        };
        let min = self.b.fconst(t, min_normal);
        let sub = self.b.fcmp(FloatCC::Olt, a, min);
        let up = self.b.fconst(t, sub_scale);
        let scaled = self.b.fmul(x, up);
        let xn = self.b.select(sub, scaled, x);
        let pre_k = self.b.iconst(Type::I32, sub_exp);
        let zero32 = self.b.iconst(Type::I32, 0);
        let pre = self.b.select(sub, pre_k, zero32);
        let bits = self.b.convert(Opcode::Bitcast, bt, xn);
        let shift = self.b.iconst(bt, mbits);
        let field = self.b.binary(Opcode::Ushr, bits, shift);
        let exp_mask = if t == Type::F32 { 0xff } else { 0x7ff };
        let fm = self.b.iconst(bt, exp_mask);
        let field = self.b.binary(Opcode::Band, field, fm);
        let field = if bt == Type::I64 {
            self.b.convert(Opcode::Trunc, Type::I32, field)
        } else {
            field
        };
        let biasv = self.b.iconst(Type::I32, bias);
        let e = self.b.isub(field, biasv);
        let e = self.b.isub(e, pre);
        let keep = !(exp_mask << mbits);
        let keep = if bt == Type::I32 {
            i64::from(keep as i32)
        } else {
            keep
        };
        let keep = self.b.iconst(bt, keep);
        let rest = self.b.binary(Opcode::Band, bits, keep);
        let half = self.b.iconst(bt, bias << mbits);
        let mb = self.b.binary(Opcode::Bor, rest, half);
        let m = self.b.convert(Opcode::Bitcast, t, mb);
        // Specials: zero, infinity, NaN.
        let zero = self.b.fconst(t, 0.0);
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let inf = self.b.fconst(t, f64::INFINITY);
        let finite = self.b.fcmp(FloatCC::Olt, a, inf);
        let not_zero = self.b.unary(Opcode::Bnot, is_zero);
        let ordinary = self.b.binary(Opcode::Band, finite, not_zero);
        (e, m, ordinary)
    }

    /// `modf(x, ip)`: `*ip = trunc(x)`, and the fraction `x - trunc(x)`
    /// (exact) with the sign of `x`; for `±inf` the fraction is `±0`.
    fn modf(&mut self, x: Value, ip: Value) -> Value {
        let t = self.b.value_type(x);
        let i = self.b.unary(Opcode::Ftrunc, x);
        self.b.store(i, ip, MemFlags::default());
        let f = self.b.binary(Opcode::Fsub, x, i);
        let a = self.b.unary(Opcode::Fabs, x);
        let inf = self.b.fconst(t, f64::INFINITY);
        let is_inf = self.b.fcmp(FloatCC::Oeq, a, inf);
        let zero = self.b.fconst(t, 0.0);
        let f = self.b.select(is_inf, zero, f);
        self.copysign(f, x)
    }

    /// The magnitude of `x` with the sign bit of `y`, on the bits.
    pub(crate) fn copysign(&mut self, x: Value, y: Value) -> Value {
        let t = self.b.value_type(x);
        let bt = bits_type(t);
        let sign = if bt == Type::I64 {
            i64::MIN
        } else {
            i64::from(i32::MIN)
        };
        let xb = self.b.convert(Opcode::Bitcast, bt, x);
        let yb = self.b.convert(Opcode::Bitcast, bt, y);
        let s = self.b.iconst(bt, sign);
        let ns = self.b.iconst(bt, !sign);
        let mag = self.b.binary(Opcode::Band, xb, ns);
        let sgn = self.b.binary(Opcode::Band, yb, s);
        let r = self.b.binary(Opcode::Bor, mag, sgn);
        self.b.convert(Opcode::Bitcast, t, r)
    }
}
