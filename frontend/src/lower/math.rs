//! Lowering the math library to IR instructions.
//!
//! docs/math.md is the user-facing account of every formula here and its
//! accuracy next to CUDA's documented bounds; keep the two in step. The
//! rule: use a correctly rounded IR instruction where one exists (`sqrt`,
//! `fabs`, `floor`, `fma`, ...), build from the approximate `f32`
//! instructions (`ex2`, `lg2`, `sin`, `cos`) only where nothing better is
//! available, and spend a few extra instructions where that buys accuracy
//! cheaply (the split product in `expf`). `tanhf`, `expm1f`, `log1pf`,
//! `atanf`, `atan2f`, `asinf`, `acosf`, `sinhf`, `coshf`, `log10f`,
//! `hypotf`, `exp10f`, `cbrtf` and `rcbrtf` are `f32` code in
//! `math_f32.rs`; the other `float` forms of the
//! `math_f64_ext.rs` functions are computed in `double` and rounded once
//! (`math_f32_via_f64`).

use super::FunctionLowerer;
use crate::typed::{Expr, MathFn};
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// `log2(e)` rounded to `f32`, and the part of it that rounding dropped.
const LOG2E_HI: f64 = 1.442_695_021_629_333_5;
const LOG2E_LO: f64 = 1.925_963_033_500_011_3e-8;
/// `ln(2)` rounded to `f32`.
const LN2: f64 = 0.693_147_182_464_599_6;
/// `log10(2)` and `log2(10)` (rounded to `f32` where used).
const LOG10_2: f64 = std::f64::consts::LOG10_2;
const LOG2_10: f64 = std::f64::consts::LOG2_10;

/// How many low bits of the quotient `remquo` stores (with its sign).
const REMQUO_BITS: i64 = 3;

/// `f32` constants as written above are rounded once, here.
fn f32_value(x: f64) -> f64 {
    f64::from(x as f32)
}

impl FunctionLowerer<'_, '_> {
    /// Lowers a math function on `ty` (`float` or `double`; the `double`
    /// transcendental functions are in `math_f64.rs`).
    pub(crate) fn math(&mut self, f: MathFn, args: &[Expr], ty: &CType) -> Value {
        let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let x = vals[0];
        let t = if *ty == CType::FLOAT {
            Type::F32
        } else {
            Type::F64
        };
        if t == Type::F64 {
            // The double-precision library (`math_f64.rs`).
            match f {
                MathFn::Rsqrt => return self.rsqrt_f64(x),
                MathFn::Exp => return self.exp_f64(x),
                MathFn::Exp2 => return self.exp2_f64(x),
                MathFn::Log => return self.log_f64(x),
                MathFn::Log2 => return self.log2_f64(x),
                MathFn::Sin => return self.sin_cos_f64(x, false),
                MathFn::Cos => return self.sin_cos_f64(x, true),
                MathFn::Tanh => return self.tanh_f64(x),
                MathFn::Pow => return self.pow_f64(x, vals[1]),
                MathFn::Erfc => return self.erfc_f64(x),
                MathFn::Erfcx => return self.erfcx_f64(x),
                MathFn::Rhypot | MathFn::Rnorm3d | MathFn::Rnorm4d => {
                    return self.norm_f64(&vals, true)
                }
                MathFn::Norm3d | MathFn::Norm4d => return self.norm_f64(&vals, false),
                MathFn::BesselI0 => return self.bessel_i_f64(x, false),
                MathFn::BesselI1 => return self.bessel_i_f64(x, true),
                _ => {}
            }
            if let Some(r) = self.math_f64_ext(f, &vals) {
                return r;
            }
        } else if let Some(r) = self.math_f32_via_f64(f, &vals) {
            return r;
        }
        match f {
            MathFn::Sqrt => self.b.unary(Opcode::Sqrt, x),
            MathFn::Rsqrt => self.b.unary(Opcode::Rsqrt, x),
            MathFn::Fabs => self.b.unary(Opcode::Fabs, x),
            MathFn::Floor => self.b.unary(Opcode::Floor, x),
            MathFn::Ceil => self.b.unary(Opcode::Ceil, x),
            MathFn::Trunc => self.b.unary(Opcode::Ftrunc, x),
            MathFn::Fmin => self.b.binary(Opcode::Fmin, x, vals[1]),
            MathFn::Fmax => self.b.binary(Opcode::Fmax, x, vals[1]),
            MathFn::Fma => self.b.fma(x, vals[1], vals[2]),
            MathFn::FastDiv => self.b.binary(Opcode::FdivApprox, x, vals[1]),
            MathFn::FullDiv => self.b.binary(Opcode::FdivFull, x, vals[1]),
            MathFn::Round => self.round(x, t),
            MathFn::Exp2 => self.b.unary(Opcode::Ex2, x),
            MathFn::Log2 => self.b.unary(Opcode::Lg2, x),
            MathFn::Sin => self.sin_cos_f32(x, false),
            MathFn::Cos => self.sin_cos_f32(x, true),
            MathFn::Sinpi => self.sincospi_f32(x).0,
            MathFn::Cospi => self.sincospi_f32(x).1,
            MathFn::FastSin => self.b.unary(Opcode::Sin, x),
            MathFn::FastCos => self.b.unary(Opcode::Cos, x),
            MathFn::Exp => self.exp_f32(x),
            MathFn::FastExp => {
                let l = self.b.fconst(Type::F32, f32_value(LOG2E_HI));
                let p = self.b.fmul(x, l);
                self.b.unary(Opcode::Ex2, p)
            }
            MathFn::Log | MathFn::FastLog => {
                let l = self.b.unary(Opcode::Lg2, x);
                let ln2 = self.b.fconst(Type::F32, f32_value(LN2));
                self.b.fmul(l, ln2)
            }
            MathFn::Tanh => self.tanh_f32(x),
            MathFn::Erf => self.erf_f32(x),
            MathFn::Erfc => self.erfc_f32(x),
            MathFn::Normcdf => self.normcdf_f32(x),
            MathFn::Erfinv => self.erfinv_f32(x),
            MathFn::Erfcinv => self.erfcinv_f32(x),
            MathFn::Lgamma => self.lgamma_f32(x),
            MathFn::Erfcx => self.erfcx_f32(x),
            MathFn::Tgamma => self.tgamma_f32(x),
            MathFn::Expm1 => self.expm1_f32(x),
            MathFn::Log1p => self.log1p_f32(x),
            MathFn::Atan => self.atan_f32(x),
            MathFn::Atan2 => self.atan2_f32(x, vals[1]),
            MathFn::Asin => self.asin_f32(x),
            MathFn::Acos => self.acos_f32(x),
            MathFn::Sinh => self.sinh_f32(x),
            MathFn::Cosh => self.cosh_f32(x),
            MathFn::Log10 => self.log10_f32(x),
            MathFn::Hypot => self.hypot_f32(x, vals[1]),
            MathFn::Rhypot | MathFn::Rnorm3d | MathFn::Rnorm4d => self.norm_f32(&vals, true),
            MathFn::Norm3d | MathFn::Norm4d => self.norm_f32(&vals, false),
            MathFn::Normcdfinv => self.normcdfinv_f32(x),
            MathFn::BesselI0 => self.bessel_i_f32(x, false),
            MathFn::BesselI1 => self.bessel_i_f32(x, true),
            MathFn::Exp10 => self.exp10_f32(x),
            MathFn::Cbrt => self.cbrt_f32(x),
            MathFn::Rcbrt => self.rcbrt_f32(x),
            MathFn::FastPow => self.fast_pow(x, vals[1]),
            MathFn::Pow => self.pow_f32(x, vals[1]),
            MathFn::Rint => self.b.unary(Opcode::Nearest, x),
            MathFn::Saturate => {
                // `max` returns the non-NaN operand, so NaN becomes +0, and
                // `-0 < +0` makes `-0` become +0 too (as `cvt.sat`).
                let zero = self.fconst(t, 0.0);
                let one = self.fconst(t, 1.0);
                let lo = self.b.binary(Opcode::Fmax, x, zero);
                self.b.binary(Opcode::Fmin, lo, one)
            }
            MathFn::Copysign => self.copysign(x, vals[1]),
            MathFn::Fdim => {
                // `x - y` unless `x <= y` (then +0); NaN falls through to
                // the subtraction, which gives NaN.
                let d = self.b.binary(Opcode::Fsub, x, vals[1]);
                let le = self.b.fcmp(FloatCC::Ole, x, vals[1]);
                let zero = self.fconst(t, 0.0);
                self.b.select(le, zero, d)
            }
            MathFn::Fmod => self.fmod(x, vals[1], false),
            MathFn::Remainder => self.fmod(x, vals[1], true),
            MathFn::FastTan => {
                let s = self.b.unary(Opcode::Sin, x);
                let c = self.b.unary(Opcode::Cos, x);
                self.b.binary(Opcode::FdivApprox, s, c)
            }
            MathFn::FastLog2 => self.b.unary(Opcode::Lg2, x),
            MathFn::FastTanh => self.b.unary(Opcode::Tanh, x),
            MathFn::FastLog10 => {
                let l = self.b.unary(Opcode::Lg2, x);
                let c = self.fconst(Type::F32, f32_value(LOG10_2));
                self.b.fmul(l, c)
            }
            MathFn::FastExp10 => {
                let c = self.fconst(Type::F32, f32_value(LOG2_10));
                let p = self.b.fmul(x, c);
                self.b.unary(Opcode::Ex2, p)
            }
            // The rest are `double` functions, or `float` ones computed
            // through them (above).
            _ => unreachable!("{f:?} on {t} is lowered above"),
        }
    }

    /// The `double` functions of `math_f64_ext.rs`.
    fn math_f64_ext(&mut self, f: MathFn, v: &[Value]) -> Option<Value> {
        let x = v[0];
        Some(match f {
            MathFn::Tan => self.tan_f64(x),
            MathFn::Asin => self.asin_f64(x),
            MathFn::Acos => self.acos_f64(x),
            MathFn::Atan => self.atan_f64(x),
            MathFn::Atan2 => self.atan2_f64(x, v[1]),
            MathFn::Sinh => self.sinh_f64(x),
            MathFn::Cosh => self.cosh_f64(x),
            MathFn::Asinh => self.asinh_f64(x),
            MathFn::Acosh => self.acosh_f64(x),
            MathFn::Atanh => self.atanh_f64(x),
            MathFn::Exp10 => self.exp10_f64(x),
            MathFn::Expm1 => self.expm1_f64(x),
            MathFn::Log10 => self.log10_f64(x),
            MathFn::Log1p => self.log1p_f64(x),
            MathFn::Cbrt => self.cbrt_f64(x),
            MathFn::Rcbrt => {
                let c = self.cbrt_f64(x);
                let one = self.fconst(Type::F64, 1.0);
                self.b.binary(Opcode::Fdiv, one, c)
            }
            MathFn::Hypot => self.hypot_f64(x, v[1]),
            MathFn::Sinpi => self.sinpi_f64(x, false),
            MathFn::Cospi => self.sinpi_f64(x, true),
            _ => return None,
        })
    }

    /// The `float` forms of the `math_f64_ext.rs` functions: the `double`
    /// function on the widened arguments, rounded once to `float`.
    fn math_f32_via_f64(&mut self, f: MathFn, v: &[Value]) -> Option<Value> {
        if !matches!(
            f,
            MathFn::Tan | MathFn::Asinh | MathFn::Acosh | MathFn::Atanh
        ) {
            return None;
        }
        let wide: Vec<Value> = v
            .iter()
            .map(|&a| self.b.convert(Opcode::Fpext, Type::F64, a))
            .collect();
        let r = self.math_f64_ext(f, &wide)?;
        Some(self.b.convert(Opcode::Fptrunc, Type::F32, r))
    }

    /// `sincos(x, s, c)` and friends: both results stored through the
    /// pointers (to a local or to any memory).
    pub(crate) fn sincos(&mut self, pi: bool, fast: bool, args: &[Expr]) {
        let x = self.expr(&args[0]);
        let sp = self.expr(&args[1]);
        let cp = self.expr(&args[2]);
        let t = self.b.value_type(x);
        let (s, c) = if fast {
            (self.b.unary(Opcode::Sin, x), self.b.unary(Opcode::Cos, x))
        } else if t == Type::F32 {
            if pi {
                self.sincospi_f32(x)
            } else {
                self.sincos_f32(x)
            }
        } else if pi {
            (self.sinpi_f64(x, false), self.sinpi_f64(x, true))
        } else {
            self.sincos_f64(x)
        };
        self.b.store(s, sp, midend::ir::MemFlags::default());
        self.b.store(c, cp, midend::ir::MemFlags::default());
    }

    fn fconst(&mut self, t: Type, v: f64) -> Value {
        self.b.fconst(t, v)
    }

    /// C's `round`: `trunc(x)`, moved one away from zero when the dropped
    /// fraction (exact in floating point) is at least one half. Unlike
    /// `floor(x + 0.5)` this never rounds `0.49999997` up.
    fn round(&mut self, x: Value, t: Type) -> Value {
        let tr = self.b.unary(Opcode::Ftrunc, x);
        let frac = self.b.binary(Opcode::Fsub, x, tr);
        let frac = self.b.unary(Opcode::Fabs, frac);
        let half = self.fconst(t, 0.5);
        let up = self.b.fcmp(FloatCC::Oge, frac, half);
        let zero = self.fconst(t, 0.0);
        let neg = self.b.fcmp(FloatCC::Olt, x, zero);
        let one = self.fconst(t, 1.0);
        let minus_one = self.fconst(t, -1.0);
        let step = self.b.select(neg, minus_one, one);
        let away = self.b.fadd(tr, step);
        self.b.select(up, away, tr)
    }

    /// `expf(x) = 2^(x·log2 e)`: an integer power of two times `2^r` for
    /// a small `r` that carries the rounding error of the product, so the
    /// error does not grow with `|x|` as it does for `__expf`
    /// (`math_f32.rs`, `exp2_of_product`).
    fn exp_f32(&mut self, x: Value) -> Value {
        self.exp2_of_product(x, LOG2E_HI as f32, LOG2E_LO as f32)
    }

    /// `__powf(x, y) = 2^(y·log2 x)`, as CUDA defines it.
    fn fast_pow(&mut self, x: Value, y: Value) -> Value {
        let l = self.b.unary(Opcode::Lg2, x);
        let p = self.b.fmul(y, l);
        self.b.unary(Opcode::Ex2, p)
    }

    /// `powf`: `2^(y·log2|x|)` with C's special cases: `pow(x, 0)` and
    /// `pow(1, y)` are 1, a negative `x` gives a result only for an integer
    /// `y` (negative when `y` is odd) and NaN otherwise.
    fn pow_f32(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let mag = self.fast_pow(ax, y);
        let yt = self.b.unary(Opcode::Ftrunc, y);
        let y_int = self.b.fcmp(FloatCC::Oeq, yt, y);
        let half = self.fconst(Type::F32, 0.5);
        let hy = self.b.fmul(y, half);
        let hyt = self.b.unary(Opcode::Ftrunc, hy);
        let y_even = self.b.fcmp(FloatCC::Oeq, hyt, hy);
        let neg_mag = self.b.unary(Opcode::Fneg, mag);
        let signed = self.b.select(y_even, mag, neg_mag);
        let nan = self.fconst(Type::F32, f64::NAN);
        let for_neg = self.b.select(y_int, signed, nan);
        let zero = self.fconst(Type::F32, 0.0);
        let x_neg = self.b.fcmp(FloatCC::Olt, x, zero);
        let r = self.b.select(x_neg, for_neg, mag);
        let one = self.fconst(Type::F32, 1.0);
        let y_zero = self.b.fcmp(FloatCC::Oeq, y, zero);
        let x_one = self.b.fcmp(FloatCC::Oeq, x, one);
        let trivial = self.b.binary(Opcode::Bor, y_zero, x_one);
        self.b.select(trivial, one, r)
    }
}

/// The parts of a finite float `|x| = m·2^e` with an integer `m` (the
/// implicit bit included for normal numbers; `i32` for `float`, `i64` for
/// `double`) and `e` (`i32`).
struct IntParts {
    m: Value,
    e: Value,
}

impl FunctionLowerer<'_, '_> {
    /// `|x|` as `m·2^e` (see [`IntParts`]); for a subnormal the exponent
    /// is the smallest one and `m` has no implicit bit.
    fn int_parts(&mut self, x: Value) -> IntParts {
        let t = self.b.value_type(x);
        let (bt, mbits, emask, bias) = if t == Type::F32 {
            (Type::I32, 23, 0xff, 127)
        } else {
            (Type::I64, 52, 0x7ff, 1023)
        };
        let bits = self.b.convert(Opcode::Bitcast, bt, x);
        let mmask = self.b.iconst(bt, (1i64 << mbits) - 1);
        let mant = self.b.binary(Opcode::Band, bits, mmask);
        let sh = self.b.iconst(bt, mbits);
        let field = self.b.binary(Opcode::Ushr, bits, sh);
        let emask = self.b.iconst(bt, emask);
        let field = self.b.binary(Opcode::Band, field, emask);
        let zero = self.b.iconst(bt, 0);
        let sub = self.b.icmp(midend::ir::IntCC::Eq, field, zero);
        let implicit = self.b.iconst(bt, 1i64 << mbits);
        let with_bit = self.b.binary(Opcode::Bor, mant, implicit);
        let m = self.b.select(sub, mant, with_bit);
        let one = self.b.iconst(bt, 1);
        let field = self.b.select(sub, one, field);
        let field = if bt == Type::I32 {
            field
        } else {
            self.b.convert(Opcode::Trunc, Type::I32, field)
        };
        let off = self.b.iconst(Type::I32, bias + mbits);
        let e = self.b.isub(field, off);
        IntParts { m, e }
    }

    /// `p · 2^k` in the float type `t` (`k` an `i32` up to twice the normal
    /// exponent range): two scalings by `2^(k/2)`, each a normal power of
    /// two, so only the last one rounds (into the subnormals) or overflows.
    pub(super) fn scale_pow2(&mut self, t: Type, p: Value, k: Value) -> Value {
        let one = self.b.iconst(Type::I32, 1);
        let k1 = self.b.binary(Opcode::Sshr, k, one);
        let k2 = self.b.isub(k, k1);
        let s1 = self.pow2_of(t, k1);
        let s2 = self.pow2_of(t, k2);
        let p = self.b.fmul(p, s1);
        self.b.fmul(p, s2)
    }

    /// `2^k` in the float type `t`, from the bits (`k` an `i32` in the
    /// normal exponent range of `t`).
    fn pow2_of(&mut self, t: Type, k: Value) -> Value {
        if t == Type::F32 {
            let bias = self.b.iconst(Type::I32, 127);
            let biased = self.b.iadd(k, bias);
            let sh = self.b.iconst(Type::I32, 23);
            let bits = self.b.binary(Opcode::Ishl, biased, sh);
            self.b.convert(Opcode::Bitcast, Type::F32, bits)
        } else {
            let k = self.b.convert(Opcode::Sext, Type::I64, k);
            let bias = self.b.iconst(Type::I64, 1023);
            let biased = self.b.iadd(k, bias);
            let sh = self.b.iconst(Type::I64, 52);
            let bits = self.b.binary(Opcode::Ishl, biased, sh);
            self.b.convert(Opcode::Bitcast, Type::F64, bits)
        }
    }

    /// `fmod(x, y)` (`remainder` false) and `remainder(x, y)`, exact.
    ///
    /// With `|x| = ma·2^ea` and `|y| = mb·2^eb` (integers `ma`, `mb`),
    /// `fmod(|x|, |y|) = (ma·2^(ea-eb) mod mb)·2^eb`. The loop computes
    /// that residue as long division in steps of at most `K` bits
    /// (`r = (r << s) mod mb`, with `K` such that `r << K` fits the
    /// integer: 8 for `float`, whose 24-bit mantissas are divided in 32
    /// bits, 11 for `double`, in 64), so it runs at most 32 (`float`) or
    /// 191 (`double`) times, and not at all when `|x| < 2|y|`-ish inputs
    /// need no shifting. A 32-bit division is a short inline sequence in
    /// SASS where a 64-bit one is a called routine; and when `y` is a
    /// constant, `mb` is one too and `divconst` makes both divisions
    /// multiplications. The residue converts exactly and is scaled by
    /// `2^eb` in two exact halves. `remainder` also keeps the low bit of
    /// the quotient: it subtracts `|y|` once more when the residue is
    /// above `|y|/2`, or equal to it with an odd quotient (ties to even).
    /// The sign is the sign of `x`; `y = 0`, `x = ±inf` and NaN give NaN,
    /// and `y = ±inf` gives `x`.
    pub(crate) fn fmod(&mut self, x: Value, y: Value, remainder: bool) -> Value {
        self.fmod_quotient(x, y, remainder, false).0
    }

    /// `remquo(x, y, q)`: `remainder(x, y)`, and stored through `q` the
    /// low [`REMQUO_BITS`] bits of the rounded quotient `|x/y|`, negated
    /// when `x/y` is negative; 0 where the remainder is NaN.
    pub(crate) fn remquo(&mut self, x: Value, y: Value, q_ptr: Value) -> Value {
        use midend::ir::IntCC;
        let (r, q) = self.fmod_quotient(x, y, true, true);
        let q = q.expect("asked for the quotient");
        let mask = self.b.iconst(Type::I32, (1 << REMQUO_BITS) - 1);
        let q = self.b.binary(Opcode::Band, q, mask);
        let nq = self.b.unary(Opcode::Ineg, q);
        let t = self.b.value_type(x);
        let bt = if t == Type::F32 { Type::I32 } else { Type::I64 };
        let xb = self.b.convert(Opcode::Bitcast, bt, x);
        let yb = self.b.convert(Opcode::Bitcast, bt, y);
        let signs = self.b.binary(Opcode::Bxor, xb, yb);
        let zb = self.b.iconst(bt, 0);
        let negative = self.b.icmp(IntCC::Slt, signs, zb);
        let q = self.b.select(negative, nq, q);
        let nan = self.b.fcmp(FloatCC::Uno, r, r);
        let zero = self.b.iconst(Type::I32, 0);
        let q = self.b.select(nan, zero, q);
        self.b.store(q, q_ptr, midend::ir::MemFlags::default());
        r
    }

    /// [`Self::fmod`], and with `quotient` also the integer quotient the
    /// residue belongs to (`|x|/|y|` truncated, or rounded as `remainder`
    /// rounds it), modulo 2^32: the loop then carries it as one more
    /// value, `(q << step) + step's quotient`.
    fn fmod_quotient(
        &mut self,
        x: Value,
        y: Value,
        remainder: bool,
        quotient: bool,
    ) -> (Value, Option<Value>) {
        use midend::ir::IntCC;
        let t = self.b.value_type(x);
        let (it, step_bits) = if t == Type::F32 {
            (Type::I32, 8)
        } else {
            (Type::I64, 11)
        };
        let a = self.b.unary(Opcode::Fabs, x);
        let bmag = self.b.unary(Opcode::Fabs, y);
        let pa = self.int_parts(a);
        let pb = self.int_parts(bmag);
        let inf = self.fconst(t, f64::INFINITY);
        let zero = self.fconst(t, 0.0);
        let a_finite = self.b.fcmp(FloatCC::Olt, a, inf);
        let b_pos = self.b.fcmp(FloatCC::Ogt, bmag, zero);
        let a_ge_b = self.b.fcmp(FloatCC::Oge, a, bmag);
        let ordinary = self.b.binary(Opcode::Band, a_finite, b_pos);
        let ordinary = self.b.binary(Opcode::Band, ordinary, a_ge_b);
        let d = self.b.isub(pa.e, pb.e);
        let zero32 = self.b.iconst(Type::I32, 0);
        let d0 = self.b.select(ordinary, d, zero32);
        // A zero divisor (only when not `ordinary`, whose results are not
        // used) must not trap the first division: divide by 1 instead.
        // (`umax`, not a `select` on `ordinary`, so that a constant `y`
        // gives a constant divisor.)
        let one = self.b.iconst(it, 1);
        let mb = self.b.binary(Opcode::Umax, pb.m, one);
        let q0 = self.b.binary(Opcode::Udiv, pa.m, mb);
        let r0 = self.b.binary(Opcode::Urem, pa.m, mb);

        let header = self.b.create_block();
        let r = self.b.append_block_param(header, it);
        let dd = self.b.append_block_param(header, Type::I32);
        let q = self.b.append_block_param(header, it);
        let body = self.b.create_block();
        let exit = self.b.create_block();
        let rf = self.b.append_block_param(exit, it);
        let qf = self.b.append_block_param(exit, it);
        let mut entry_args = vec![r0, d0, q0];
        let mut exit_args = vec![r, q];
        let total = quotient.then(|| {
            let qa = self.b.append_block_param(header, Type::I32);
            let qa_f = self.b.append_block_param(exit, Type::I32);
            let q0 = self.low_word(q0);
            entry_args.push(q0);
            exit_args.push(qa);
            (qa, qa_f)
        });
        self.b.jump(header, entry_args);
        self.b.switch_to_block(header);
        let more = self.b.icmp(IntCC::Sgt, dd, zero32);
        self.b.brif(more, body, vec![], exit, exit_args);
        self.b.seal_block(body);
        self.b.switch_to_block(body);
        let kmax = self.b.iconst(Type::I32, step_bits);
        let step = self.b.binary(Opcode::Smin, dd, kmax);
        let s = if it == Type::I32 {
            step
        } else {
            self.b.convert(Opcode::Zext, Type::I64, step)
        };
        let shifted = self.b.binary(Opcode::Ishl, r, s);
        let qq = self.b.binary(Opcode::Udiv, shifted, mb);
        let rr = self.b.binary(Opcode::Urem, shifted, mb);
        let d_next = self.b.isub(dd, step);
        let mut next = vec![rr, d_next, qq];
        if let Some((qa, _)) = total {
            let carried = self.b.binary(Opcode::Ishl, qa, step);
            let low = self.low_word(qq);
            next.push(self.b.iadd(carried, low));
        }
        self.b.jump(header, next);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);

        // The residue times 2^eb, exactly (two halves of the exponent).
        let rfl = self.b.convert(Opcode::Uitofp, t, rf);
        let fm = self.scale_pow2(t, rfl, pb.e);
        // |x| < |y| (and y = inf, x = 0): fmod(|x|, |y|) = |x|.
        let small = self.b.fcmp(FloatCC::Olt, a, bmag);
        let mag = self.b.select(small, a, fm);
        let mut whole = total.map(|(_, qa)| {
            let zero = self.b.iconst(Type::I32, 0);
            self.b.select(small, zero, qa)
        });
        let mag = if remainder {
            let q_low = self.b.binary(Opcode::Band, qf, one);
            let zero_it = self.b.iconst(it, 0);
            let odd = self.b.icmp(IntCC::Ne, q_low, zero_it);
            let not_small = self.b.unary(Opcode::Bnot, small);
            let odd = self.b.binary(Opcode::Band, odd, not_small);
            let twice = self.b.fadd(mag, mag);
            let gt = self.b.fcmp(FloatCC::Ogt, twice, bmag);
            let eq = self.b.fcmp(FloatCC::Oeq, twice, bmag);
            let tie_up = self.b.binary(Opcode::Band, eq, odd);
            let down = self.b.binary(Opcode::Bor, gt, tie_up);
            let less = self.b.binary(Opcode::Fsub, mag, bmag);
            whole = whole.map(|w| {
                let one = self.b.iconst(Type::I32, 1);
                let up = self.b.iadd(w, one);
                self.b.select(down, up, w)
            });
            self.b.select(down, less, mag)
        } else {
            mag
        };
        let neg = self.b.unary(Opcode::Fneg, mag);
        let bt = if t == Type::F32 { Type::I32 } else { Type::I64 };
        let xb = self.b.convert(Opcode::Bitcast, bt, x);
        let zb = self.b.iconst(bt, 0);
        let x_neg = self.b.icmp(IntCC::Slt, xb, zb);
        let res = self.b.select(x_neg, neg, mag);
        // NaN for y = 0, x = ±inf, or a NaN operand.
        let y_zero = self.b.fcmp(FloatCC::Oeq, y, zero);
        let x_inf = self.b.fcmp(FloatCC::Oeq, a, inf);
        let uno = self.b.fcmp(FloatCC::Uno, x, y);
        let bad = self.b.binary(Opcode::Bor, y_zero, x_inf);
        let bad = self.b.binary(Opcode::Bor, bad, uno);
        let nan = self.canonical_nan(t);
        (self.b.select(bad, nan, res), whole)
    }

    /// The low 32 bits of an `i32` or `i64` value.
    fn low_word(&mut self, v: Value) -> Value {
        if self.b.value_type(v) == Type::I32 {
            v
        } else {
            self.b.convert(Opcode::Trunc, Type::I32, v)
        }
    }

    /// PTX's canonical NaN (`0x7fffffff`, all ones for `f64`), made from
    /// integer bits: the NaN that `add`, `mul`, ... produce, so a NaN this
    /// library returns is the same on every engine.
    pub(crate) fn canonical_nan(&mut self, t: Type) -> Value {
        let (bt, bits) = if t == Type::F32 {
            (Type::I32, 0x7fff_ffff)
        } else {
            (Type::I64, i64::MAX)
        };
        let bits = self.b.iconst(bt, bits);
        self.b.convert(Opcode::Bitcast, t, bits)
    }
}
