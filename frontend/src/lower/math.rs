//! Lowering the math library to IR instructions.
//!
//! docs/math.md is the user-facing account of every formula here and its
//! accuracy next to CUDA's documented bounds; keep the two in step. The
//! rule: use a correctly rounded IR instruction where one exists (`sqrt`,
//! `fabs`, `floor`, `fma`, ...), build from the approximate `f32`
//! instructions (`ex2`, `lg2`, `sin`, `cos`) only where nothing better is
//! available, and spend a few extra instructions where that buys accuracy
//! cheaply (the split product in `expf`, the polynomial in `tanhf`).

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

/// Taylor coefficients of `tanh x = x (1 + c1 x² + c2 x⁴ + ...)`, enough
/// for below one ulp on `|x| < 0.55` (checked against a reference).
const TANH_SERIES: [f64; 8] = [
    -1.0 / 3.0,
    2.0 / 15.0,
    -17.0 / 315.0,
    62.0 / 2835.0,
    -1382.0 / 155_925.0,
    21844.0 / 6_081_075.0,
    -929_569.0 / 638_512_875.0,
    6_404_582.0 / 10_854_718_875.0,
];

/// Below this `|x|`, `tanhf` uses the series; above, the `expf` formula
/// (which cancels badly near zero).
const TANH_SERIES_LIMIT: f64 = 0.55;

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
                _ => {}
            }
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
            MathFn::Round => self.round(x, t),
            MathFn::Exp2 => self.b.unary(Opcode::Ex2, x),
            MathFn::Log2 => self.b.unary(Opcode::Lg2, x),
            MathFn::Sin | MathFn::FastSin => self.b.unary(Opcode::Sin, x),
            MathFn::Cos | MathFn::FastCos => self.b.unary(Opcode::Cos, x),
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
            MathFn::FastPow => self.fast_pow(x, vals[1]),
            MathFn::Pow => self.pow_f32(x, vals[1]),
        }
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

    /// `expf(x) = 2^(x·log2 e)`. The product is split into its rounded
    /// value `p` and the rounding error `r` (by `fma`, plus the error of
    /// `log2 e` itself), and `2^p · 2^r` is formed, so the error does not
    /// grow with `|x|` as it does for `__expf`.
    fn exp_f32(&mut self, x: Value) -> Value {
        let hi = self.fconst(Type::F32, f32_value(LOG2E_HI));
        let lo = self.fconst(Type::F32, f32_value(LOG2E_LO));
        let p = self.b.fmul(x, hi);
        let neg_p = self.b.unary(Opcode::Fneg, p);
        let err = self.b.fma(x, hi, neg_p);
        let r = self.b.fma(x, lo, err);
        // Past the range of `f32` results, `r` may be NaN (inf - inf);
        // then `2^p` alone is the answer (0 or inf).
        let abs_p = self.b.unary(Opcode::Fabs, p);
        let limit = self.fconst(Type::F32, 256.0);
        let in_range = self.b.fcmp(FloatCC::Olt, abs_p, limit);
        let zero = self.fconst(Type::F32, 0.0);
        let r = self.b.select(in_range, r, zero);
        let big = self.b.unary(Opcode::Ex2, p);
        let small = self.b.unary(Opcode::Ex2, r);
        self.b.fmul(big, small)
    }

    /// `tanhf`: an odd Taylor polynomial for `|x| < 0.55`, else
    /// `sign(x)·(1 - 2/(e^{2|x|} + 1))` with the accurate `expf` above.
    /// (PTX's `tanh.approx` has a relative error of about 2^-11, far from
    /// CUDA's 2 ulp, so kernelc does not use it for `tanhf`.)
    fn tanh_f32(&mut self, x: Value) -> Value {
        let s = self.b.fmul(x, x);
        let mut acc = self.fconst(Type::F32, f32_value(TANH_SERIES[7]));
        for &c in TANH_SERIES[..7].iter().rev() {
            let c = self.fconst(Type::F32, f32_value(c));
            acc = self.b.fma(acc, s, c);
        }
        let xs = self.b.fmul(x, s);
        let series = self.b.fma(xs, acc, x);

        let a = self.b.unary(Opcode::Fabs, x);
        let two = self.fconst(Type::F32, 2.0);
        let two_a = self.b.fmul(a, two);
        let e = self.exp_f32(two_a);
        let one = self.fconst(Type::F32, 1.0);
        let e1 = self.b.fadd(e, one);
        let q = self.b.binary(Opcode::Fdiv, two, e1);
        let mag = self.b.binary(Opcode::Fsub, one, q);
        let neg_mag = self.b.unary(Opcode::Fneg, mag);
        let zero = self.fconst(Type::F32, 0.0);
        let neg = self.b.fcmp(FloatCC::Olt, x, zero);
        let large = self.b.select(neg, neg_mag, mag);

        let limit = self.fconst(Type::F32, f32_value(TANH_SERIES_LIMIT));
        let small = self.b.fcmp(FloatCC::Olt, a, limit);
        self.b.select(small, series, large)
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
