//! `lgammaf` (and the `float` overload `lgamma`), and `tgammaf` as
//! `±e^(lgamma x)`, computed in `double` and rounded once to `float`, as `tanf` and the inverse hyperbolic functions
//! are (docs/math.md):
//!
//! * near the interval `[1.5, 2.5]`, `lgamma(2 + t)` by its Taylor series
//!   in `t` (`k = nearest(a)`, `t = a - k` exact, `|t| <= 1/2`), and
//!   `lgamma a = lgamma(2 + t) ± ln Q` for the other `a` below 8.5, where
//!   `Q` is the product of the steps from `2 + t` to `a` (`(a - 1)···(a -
//!   k + 2)` above, `a` or `a·(a + 1)` below). Near the zeros at 1 and 2
//!   both terms are relatively accurate, so their sum is too;
//! * from 8.5 on, Stirling's series to `1/(1680·a^7)` (truncation below
//!   2^-40 relative);
//! * for negative `x`, the reflection `lgamma x = ln(π/|a·sin(πa)|) -
//!   lgamma a` with `a = -x` (`sinpi` of `math_f64_ext.rs`). The poles
//!   (every non-positive integer, and every `float` from 2^23 on) make the
//!   product 0 and the result `+inf`.

use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// `lgamma(2 + t) = Σ c_k·t^k` for `k >= 1`: `c_1 = 1 - γ`, `c_k =
/// (-1)^k·(ζ(k) - 1)/k` (`scripts/math_f32_fits.py lgamma`, 40 digits,
/// rounded once). On `|t| <= 1/2` the terms after `t^23` add less than
/// 2^-48 of the result.
const LGAMMA_TWO: [f64; 23] = [
    0.422_784_335_098_467_13,
    0.322_467_033_424_113_2,
    -0.067_352_301_053_198_1,
    0.020_580_808_427_784_546,
    -0.007_385_551_028_673_986,
    0.002_890_510_330_741_523_4,
    -0.001_192_753_911_703_261,
    0.000_509_669_524_743_042_5,
    -0.000_223_154_758_453_579_39,
    9.945_751_278_180_853e-5,
    -4.492_623_673_813_314e-5,
    2.050_721_277_567_069e-5,
    -9.439_488_275_268_397e-6,
    4.374_866_789_907_488e-6,
    -2.039_215_753_801_366e-6,
    9.551_412_130_407_42e-7,
    -4.492_469_198_764_566e-7,
    2.120_718_480_555_466_5e-7,
    -1.004_322_482_396_809_9e-7,
    4.769_810_169_363_980_4e-8,
    -2.271_109_460_894_316_4e-8,
    1.083_865_921_489_695_5e-8,
    -5.183_475_041_970_047e-9,
];

/// Stirling's series `1/(12a) - 1/(360a³) + 1/(1260a⁵) - 1/(1680a⁷)` as a
/// polynomial in `1/a²`, times `1/a`.
const STIRLING: [f64; 4] = [1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0];

/// `ln(2π)/2`.
const HALF_LN_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// From here on, Stirling's series.
const STIRLING_FROM: f64 = 8.5;

impl FunctionLowerer<'_, '_> {
    /// `lgammaf x`: the `double` computation of the module comment on
    /// the widened argument, rounded once. `|x|` is clamped at 2^127 (a
    /// `float` that large already overflows the result; the clamp keeps
    /// `±inf` out of Stirling's `∞ - ∞`, and NaN through, as the
    /// comparison fails for it). `lgammaf(±0) = +inf`, `lgammaf(-inf) =
    /// +inf`.
    pub(super) fn lgamma_f32(&mut self, x: Value) -> Value {
        let x = self.b.convert(Opcode::Fpext, Type::F64, x);
        let (l, _) = self.lgamma_wide(x);
        self.b.convert(Opcode::Fptrunc, Type::F32, l)
    }

    /// `lgamma x` for a widened `float` `x` (the module comment), and
    /// `sinpi |x|` (`x` clamped as in [`Self::lgamma_f32`]), which gives
    /// the sign of `Γ` for negative `x`.
    fn lgamma_wide(&mut self, x: Value) -> (Value, Value) {
        let a = self.b.unary(Opcode::Fabs, x);
        let cap = self.b.fconst(Type::F64, 2f64.powi(127));
        let huge = self.b.fcmp(FloatCC::Ogt, a, cap);
        let a = self.b.select(huge, cap, a);
        let positive = self.lgamma_positive(a);
        // x < 0: ln(π/|a·sinpi(a)|) - lgamma(a).
        let s = self.sinpi_f64(a, false);
        let q = self.b.fmul(a, s);
        let q = self.b.unary(Opcode::Fabs, q);
        let pi = self.b.fconst(Type::F64, std::f64::consts::PI);
        let ratio = self.b.binary(Opcode::Fdiv, pi, q);
        let l = self.log_f64(ratio);
        let reflected = self.b.binary(Opcode::Fsub, l, positive);
        let zero = self.b.fconst(Type::F64, 0.0);
        let negative = self.b.fcmp(FloatCC::Olt, x, zero);
        (self.b.select(negative, reflected, positive), s)
    }

    /// `tgammaf x = ±e^(lgamma x)` in `double`, rounded once: `lgamma`
    /// has an absolute error near 2^-46 at most (it is below 90 in
    /// magnitude wherever `Γ` is a finite `float`), which `e^` turns into a
    /// relative one far below an ulp of `float`. `Γ` is negative for
    /// negative `x` where `sinpi |x|` is positive (`Γ(-a) = -π/(a·sinpi(a)·Γ(a))`).
    /// C's special cases: `±0` give `±inf` (`1/x`), negative integers and
    /// `-inf` NaN (`sinpi` is 0 there), `+inf` itself; past about 35.04
    /// the result overflows to `inf`, and far left it underflows to a zero
    /// of its sign.
    pub(super) fn tgamma_f32(&mut self, x: Value) -> Value {
        let x = self.b.convert(Opcode::Fpext, Type::F64, x);
        let (l, s) = self.lgamma_wide(x);
        let g = self.exp_f64(l);
        let ng = self.b.unary(Opcode::Fneg, g);
        let zero = self.b.fconst(Type::F64, 0.0);
        let negative = self.b.fcmp(FloatCC::Olt, x, zero);
        let up = self.b.fcmp(FloatCC::Ogt, s, zero);
        let flip = self.b.binary(Opcode::Band, negative, up);
        let g = self.b.select(flip, ng, g);
        // A negative integer (or -inf): sinpi is 0 there.
        let pole = self.b.fcmp(FloatCC::Oeq, s, zero);
        let pole = self.b.binary(Opcode::Band, negative, pole);
        let nan = self.b.fconst(Type::F64, f64::NAN);
        let g = self.b.select(pole, nan, g);
        // ±0 give ±inf.
        let one = self.b.fconst(Type::F64, 1.0);
        let inv = self.b.binary(Opcode::Fdiv, one, x);
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let g = self.b.select(is_zero, inv, g);
        let g = self.f64_math().keep_nan(x, g);
        self.b.convert(Opcode::Fptrunc, Type::F32, g)
    }

    /// `lgamma a` for `a` in `[0, 2^127]` or NaN (`+inf` at 0).
    fn lgamma_positive(&mut self, a: Value) -> Value {
        let k = self.b.unary(Opcode::Nearest, a);
        let t = self.b.binary(Opcode::Fsub, a, k);
        let p = self.lgamma_horner(t);
        let near_two = self.b.fmul(t, p);
        let q = self.lgamma_steps(a, k);
        // One `log` serves both ranges: of `Q` below 8.5, of `a` above.
        let from = self.b.fconst(Type::F64, STIRLING_FROM);
        let big = self.b.fcmp(FloatCC::Oge, a, from);
        let arg = self.b.select(big, a, q);
        let l = self.log_f64(arg);
        // Below 2 (k <= 1) the steps divide: subtract their log.
        let one = self.b.fconst(Type::F64, 1.0);
        let down = self.b.fcmp(FloatCC::Ole, k, one);
        let nl = self.b.unary(Opcode::Fneg, l);
        let steps = self.b.select(down, nl, l);
        let small = self.b.fadd(near_two, steps);
        let large = self.stirling(a, l);
        self.b.select(big, large, small)
    }

    /// `Σ c_k·t^(k-1)` of [`LGAMMA_TWO`] by Horner's rule.
    fn lgamma_horner(&mut self, t: Value) -> Value {
        let (&last, rest) = LGAMMA_TWO.split_last().expect("coefficients");
        let mut acc = self.b.fconst(Type::F64, last);
        for &c in rest.iter().rev() {
            let c = self.b.fconst(Type::F64, c);
            acc = self.b.fma(acc, t, c);
        }
        acc
    }

    /// `Q`, the product of the steps between `2 + t` and `a = k + t`:
    /// `(a - 1)···(a - k + 2)` for `k` from 3 to 8, 1 for `k = 2`, `a` for
    /// `k = 1` and `a·(a + 1)` for `k = 0` (each factor exact or rounded
    /// once; at most seven roundings). Unused factors are 1.
    fn lgamma_steps(&mut self, a: Value, k: Value) -> Value {
        let one = self.b.fconst(Type::F64, 1.0);
        let mut q = one;
        for j in 1..=6 {
            let c = self.b.fconst(Type::F64, f64::from(j));
            let f = self.b.binary(Opcode::Fsub, a, c);
            let needed = self.b.fconst(Type::F64, f64::from(j + 2));
            let used = self.b.fcmp(FloatCC::Oge, k, needed);
            let f = self.b.select(used, f, one);
            q = self.b.fmul(q, f);
        }
        let below_two = self.b.fcmp(FloatCC::Ole, k, one);
        let f = self.b.select(below_two, a, one);
        q = self.b.fmul(q, f);
        let half = self.b.fconst(Type::F64, 0.5);
        let zero_k = self.b.fcmp(FloatCC::Olt, k, half);
        let a1 = self.b.fadd(a, one);
        let f = self.b.select(zero_k, a1, one);
        self.b.fmul(q, f)
    }

    /// Stirling's series for `a >= 8.5` with `l = ln a`: `(a - 1/2)·l - a +
    /// ln(2π)/2 + S(1/a)`.
    fn stirling(&mut self, a: Value, l: Value) -> Value {
        let one = self.b.fconst(Type::F64, 1.0);
        let z = self.b.binary(Opcode::Fdiv, one, a);
        let z2 = self.b.fmul(z, z);
        let mut s = self.b.fconst(Type::F64, STIRLING[3]);
        for &c in STIRLING[..3].iter().rev() {
            let c = self.b.fconst(Type::F64, c);
            s = self.b.fma(s, z2, c);
        }
        let tail = self.b.fmul(s, z);
        let half = self.b.fconst(Type::F64, 0.5);
        let am = self.b.binary(Opcode::Fsub, a, half);
        let na = self.b.unary(Opcode::Fneg, a);
        let main = self.b.fma(am, l, na);
        let c = self.b.fconst(Type::F64, HALF_LN_TWO_PI);
        let main = self.b.fadd(main, c);
        self.b.fadd(main, tail)
    }
}
