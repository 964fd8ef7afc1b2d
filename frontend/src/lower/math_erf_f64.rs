//! The error functions in `double`: `erfc` and `erfcx` (and `erfcxf`,
//! which is `erfcx` on the widened argument rounded once to `float`).
//!
//! * near zero (`|x| < 1/2`), `erfc x = (1 - x) - x·E(x²)` with `E` the
//!   Taylor series of `erf x/x - 1` (to `x^24`);
//! * elsewhere `erfc a = e^(-a²)·erfcx(a)` for `a = |x|` (and `2 - erfc a`
//!   for negative `x`), where the scaled function `erfcx` is smooth: with
//!   `t = (a - 4)/(a + 4)` in `[-0.78, 0.75]`, `erfcx a = H(t)·(1 - t)/8`
//!   and `H(t) = erfcx(a)·(a + 4)`, which stays between 0.56 and 2.8 (so
//!   the polynomial does not have to follow `erfcx`'s `1/a` decay, and its
//!   terms do not cancel where `erfcx` is small). `(1 - t)` is applied by
//!   one `fma`.
//!
//! `t` is rounded, and `erfcx` is sensitive to it: an error of one ulp in
//! `t` moves the result by up to a few ulps at the far end. So the
//! rounding errors of `a ± 4` (exact sums, recovered) and of the division
//! (its exact residual by `fma`) give the shift `δ` between `a` and the
//! argument `t` stands for, and the result is corrected to first order
//! with the derivative `erfcx'(a) = 2a·erfcx(a) - 2/√π`. `e^(-a²)` keeps
//! every bit of `a²`: `a² = hi + lo` (`fma`), `e^(-hi)` by `exp`'s
//! reduction with `lo` taken off its remainder, and the scale `2^k`
//! applied last in two halves, so that subnormal results are rounded once.
//!
//! `erfcx x` is `erfc(x)·e^(x²)` near zero, the fit above from 1/2 to
//! 27.3, its asymptotic series past that, and `2·e^(x²) - erfcx|x|` for
//! `x <= -1/2` (no cancellation there: the first term is at least 2.5,
//! the second at most 0.62).
//!
//! The coefficients come from `scripts/math_f32_fits.py` (`erf_f64`, a
//! Taylor series, and `erfcx_f64`, a minimax fit). docs/math.md gives the
//! errors `tests/math_more.rs` measures.

use super::math_f64::{ExpParts, F64Math};
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// `erf x = x + x·E(x²)`: `E(s) = 2/√π - 1 + (2/√π)·Σ (-1)^n s^n/(n!(2n +
/// 1))`, to `n = 12` (the next term is below 2^-60 of the result for
/// `|x| < 1/2`).
const ERF_E: [f64; 13] = [
    0.128_379_167_095_512_6,
    -0.376_126_389_031_837_54,
    0.112_837_916_709_551_26,
    -0.026_866_170_645_131_252,
    0.005_223_977_625_442_188,
    -0.000_854_832_702_345_085_3,
    0.000_120_553_329_817_896_64,
    -1.492_565_035_840_625e-5,
    1.646_211_436_588_924_8e-6,
    -1.636_584_469_123_492_4e-7,
    1.480_719_281_587_921_8e-8,
    -1.229_055_530_171_792_8e-9,
    9.422_759_064_650_411e-11,
];

/// `H(t) = erfcx(a)·(a + 4)` for `t = (a - 4)/(a + 4)`, `a` in `[0.5,
/// 27.3]`: relative error 2^-59.0, and 2^-53.9 once rounded to `double`
/// (with the third coefficient moved by an ulp, which halves the cost of
/// the rounding).
const ERFCX_H: [f64; 22] = [
    1.095_995_661_000_491,
    -0.976_548_729_080_882,
    0.773_208_702_265_236_4,
    -0.540_853_831_313_237_2,
    0.330_851_587_878_062_24,
    -0.174_010_937_239_857_06,
    0.076_381_514_907_999_58,
    -0.026_370_053_341_611_282,
    0.006_112_055_673_292_914,
    -0.000_280_958_853_931_482,
    -0.000_455_052_822_786_152_86,
    0.000_176_812_756_735_590_1,
    -3.634_487_570_242_303_6e-6,
    -1.886_068_051_934_743_6e-5,
    4.692_261_838_727_963e-6,
    1.423_751_751_933_859_6e-6,
    -8.418_986_872_361_027e-7,
    -7.492_287_541_263_254e-8,
    1.189_139_158_348_118e-7,
    3.693_215_553_485_880_5e-10,
    -1.194_162_427_898_197_7e-8,
    3.243_443_720_880_463_5e-10,
];

/// `erfcx a ≈ (1/(a·√π))·Σ (-1)^n·(2n - 1)!!/(2a²)^n`: the coefficients
/// in `z = 1/a²`, `(-1)^n·(2n - 1)!!/2^n` (exact) to `n = 7`. From 27.3
/// on the next term is below 2^-63 of the sum.
const ERFCX_ASYMPTOTIC: [f64; 8] = [
    1.0,
    -0.5,
    0.75,
    -1.875,
    6.5625,
    -29.531_25,
    162.421_875,
    -1_055.742_187_5,
];

/// `1/√π`.
const INV_SQRT_PI: f64 = 0.564_189_583_547_756_3;

/// The centre of `t`'s map: `t = (a - K)/(a + K)`.
const K: f64 = 4.0;

/// `2/√π`, the slope of `erf` at 0.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// Past this `a`, `erfc a` is below half the smallest subnormal (the
/// clamp keeps `a²` and the scale finite for huge or infinite inputs).
const ERFC_CLAMP: f64 = 27.3;

impl FunctionLowerer<'_, '_> {
    pub(super) fn erfc_f64(&mut self, x: Value) -> Value {
        self.f64_math().erfc_f64(x)
    }

    pub(super) fn erfcx_f64(&mut self, x: Value) -> Value {
        self.f64_math().erfcx_f64(x)
    }

    /// `erfcxf`: `erfcx` on the widened argument, rounded once (the
    /// `double` result is within a few ulps of `double`, far below an ulp
    /// of `float`; `x²` is exact in `double`).
    pub(super) fn erfcx_f32(&mut self, x: Value) -> Value {
        let w = self.b.convert(Opcode::Fpext, Type::F64, x);
        let r = self.erfcx_f64(w);
        self.b.convert(Opcode::Fptrunc, Type::F32, r)
    }
}

impl F64Math<'_, '_> {
    /// `erfc x`: `(1 - x) - x·E(x²)` below 1/2 in magnitude; above,
    /// `e^(-a²)·erfcx(a)` for `a = |x|`, and `2` minus it for negative `x`.
    /// `+inf` gives 0, `-inf` 2, NaN NaN.
    fn erfc_f64(&mut self, x: Value) -> Value {
        let near = self.erfc_near(x);

        let a = self.b.unary(Opcode::Fabs, x);
        let ac = self.clamp(a, 0.0, ERFC_CLAMP);
        let p = self.erfcx_far(ac);
        let far = self.times_exp_minus_square(p, ac);
        let two = self.d(2.0);
        let reflected = self.sub(two, far);
        let negative = self.cmp(FloatCC::Olt, x, 0.0);
        let far = self.b.select(negative, reflected, far);
        let small = self.cmp(FloatCC::Olt, a, 0.5);
        let r = self.b.select(small, near, far);
        self.keep_nan(x, r)
    }

    /// `erfc x = (1 - x) - x·E(x²)` for `|x| < 1/2`.
    fn erfc_near(&mut self, x: Value) -> Value {
        let s = self.b.fmul(x, x);
        let e = self.horner(&ERF_E, s);
        let nx = self.neg(x);
        let one = self.d(1.0);
        let omx = self.b.fadd(one, nx);
        self.b.fma(nx, e, omx)
    }

    /// `erfcx x = e^(x²)·erfc x`: `erfc(x)·e^(x²)` below 1/2 in magnitude,
    /// `erfcx |x|` by the fit up to 27.3 and by the asymptotic series past
    /// it, and `2·e^(x²) - erfcx |x|` for `x <= -1/2` (`+inf` once
    /// `e^(x²)` overflows). `e^(x²)` is `e^s·(1 + sl)` for `x² = s + sl`
    /// exactly. `+inf` gives 0, `-inf` `+inf`, NaN NaN.
    fn erfcx_f64(&mut self, x: Value) -> Value {
        let s = self.b.fmul(x, x);
        let ns = self.neg(s);
        let sl = self.b.fma(x, x, ns);
        let es = self.exp_f64(s);
        let es_lo = self.b.fma(es, sl, es);
        // `inf·sl` would be NaN where `sl` is 0.
        let inf = self.cmp(FloatCC::Oeq, es, f64::INFINITY);
        let es = self.b.select(inf, es, es_lo);
        let erfc = self.erfc_near(x);
        let near = self.b.fmul(erfc, es);

        let a = self.b.unary(Opcode::Fabs, x);
        let ac = self.clamp(a, 0.0, ERFC_CLAMP);
        let mid = self.erfcx_far(ac);
        let far = self.erfcx_asymptotic(a);
        let in_fit = self.cmp(FloatCC::Olt, a, ERFC_CLAMP);
        let positive = self.b.select(in_fit, mid, far);
        let twice = self.b.fadd(es, es);
        let reflected = self.sub(twice, positive);
        let negative = self.cmp(FloatCC::Olt, x, 0.0);
        let r = self.b.select(negative, reflected, positive);
        let small = self.cmp(FloatCC::Olt, a, 0.5);
        let r = self.b.select(small, near, r);
        self.keep_nan(x, r)
    }

    /// `erfcx a` for `a >= 27.3` (smaller `a` are taken as 27.3): `S(1/a²)/(a·√π)`.
    /// `a²` overflows to `inf` past 2^511, and `z` is then 0, as it
    /// should be; `a = inf` gives 0.
    fn erfcx_asymptotic(&mut self, a: Value) -> Value {
        let edge = self.d(ERFC_CLAMP);
        let a = self.b.binary(Opcode::Fmax, a, edge);
        let a2 = self.b.fmul(a, a);
        let one = self.d(1.0);
        let z = self.b.binary(Opcode::Fdiv, one, a2);
        let series = self.horner(&ERFCX_ASYMPTOTIC, z);
        let c = self.d(INV_SQRT_PI);
        let q = self.b.binary(Opcode::Fdiv, c, a);
        self.b.fmul(q, series)
    }

    /// `erfcx a` for `a` in `[0.5, 27.3]`: `H(t)·(1 - t)/8` at the rounded
    /// `t = (a - 4)/(a + 4)`, corrected by `erfcx'(a)·δ` for the distance
    /// `δ` from the `a` that `t` stands for to `a` itself.
    fn erfcx_far(&mut self, a: Value) -> Value {
        let k = self.d(K);
        let nk = self.d(-K);
        let (n, nl) = self.exact_sum(a, nk);
        let (d, dl) = self.exact_sum(a, k);
        let t = self.b.binary(Opcode::Fdiv, n, d);
        // n - t·d, exact.
        let nt = self.neg(t);
        let r = self.b.fma(nt, d, n);
        // (n + nl)/(d + dl) - t ≈ (r + nl - t·dl)/d, and da/dt = d²/(2K).
        let r = self.b.fadd(r, nl);
        let r = self.b.fma(nt, dl, r);
        let scale = self.d(1.0 / (2.0 * K));
        let ds = self.b.fmul(d, scale);
        let delta = self.b.fmul(r, ds);

        let h = self.horner(&ERFCX_H, t);
        let nh = self.neg(h);
        let q = self.b.fma(nh, t, h);
        let p = self.b.fmul(q, scale);
        // erfcx'(a) = 2a·erfcx(a) - 2/√π.
        let two_a = self.b.fadd(a, a);
        let c = self.d(-TWO_OVER_SQRT_PI);
        let slope = self.b.fma(two_a, p, c);
        self.b.fma(slope, delta, p)
    }

    /// `x + y` rounded and its rounding error, exactly (Knuth's two-sum:
    /// no order of magnitudes needed).
    pub(super) fn exact_sum(&mut self, x: Value, y: Value) -> (Value, Value) {
        let s = self.b.fadd(x, y);
        let yv = self.sub(s, x);
        let xv = self.sub(s, yv);
        let ye = self.sub(y, yv);
        let xe = self.sub(x, xv);
        (s, self.b.fadd(xe, ye))
    }

    /// `p·e^(-a²)` for `a` in `[0, 27.3]`: `a² = hi + lo` exactly, `-hi =
    /// k·ln 2 + r` (`exp`'s reduction), `e^(r - lo)` by `exp`'s polynomial,
    /// and `2^k` applied last.
    fn times_exp_minus_square(&mut self, p: Value, a: Value) -> Value {
        let hi = self.b.fmul(a, a);
        let nhi = self.neg(hi);
        let lo = self.b.fma(a, a, nhi);
        let ExpParts { k, r } = self.exp_reduce(nhi, false);
        let r = self.sub(r, lo);
        let em1 = self.expm1_poly(r);
        let m = self.b.fma(p, em1, p);
        self.scale(m, k)
    }
}
