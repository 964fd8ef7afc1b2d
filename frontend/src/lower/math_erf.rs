//! The error function family in `float`: `erff`, `erfcf`, `normcdff`,
//! `erfinvf` and `erfcinvf` (and the `float` overloads `erf`, `erfc`,
//! `normcdf`, `erfinv`, `erfcinv`).
//!
//! * near zero, `erf x = x + x·E(x²)` with a polynomial `E` (`|x|` below
//!   0.875 in `erff`, 0.5 in the others);
//! * `erff` away from zero needs `erfc` only to an ulp of 1:
//!   `erf a = 1 - 2^L(a)` with a polynomial `L` on `[0.875, 4]`;
//! * `erfcf` and `normcdff` away from zero need `erfc` to its own ulp:
//!   `erfc a = e^(-a²)·erfcx(a)`, where the scaled complementary function
//!   `erfcx` is smooth and slowly varying, so a polynomial in
//!   `u = 4/(a + 2)` fits it on `[0.5, 10.5]`. The factor `e^(-a²)` is
//!   computed without losing the low bits of `a²`: `a² = hi + lo` exactly
//!   (`fma`), `e^(-hi)` by the `expm1f` reduction (`j = nearest(-hi·log2
//!   e)`, an exact first `fma` for the remainder), and `lo` folded into the
//!   remainder. The scale `2^j` is applied in two halves, so results in the
//!   subnormal range are rounded once.
//!
//! * `erfcinvf x` is `erfinv(1 - x)`, computed from `x` itself: `1 - x`
//!   exactly as two floats, and `1 - (1 - x)² = x·(2 - x)`, so that
//!   `w = -ln(x·(2 - x))` keeps its accuracy as `x` nears 0 (where the
//!   result grows to 10 at the smallest subnormal); a third polynomial, in
//!   `1/√w`, covers `w` from 16 on.
//!
//! The polynomials come from `scripts/math_f32_fits.py` (`erf`, `erf_far`,
//! `erfcx`, `erfinv`, `erfinv_far`, `erfcinv_far`).
//! docs/math.md gives the errors `tests/math_more.rs` measures.

use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// `erf x = x + x·E(x²)` on `|x| < 1` (relative error 2^-29.6): the
/// final `fma` adds a term about a tenth of the result, so the roundings
/// inside `E` shrink by as much.
const ERF_E: [f32; 7] = [
    0.128_379_17,
    -0.376_126_26,
    0.112_835_854,
    -0.026_853_811,
    0.005_188_327_3,
    -0.000_801_019_14,
    7.853_853_5e-5,
];

/// `erfc(a)·e^(a²) = P(u)`, `u = 4/(a + 2)`, on `a` in `[0.5, 10.5]`
/// (relative error 2^-29.1).
const ERFCX_P: [f32; 10] = [
    3.498_275_4e-6,
    0.140_992_76,
    0.070_895_9,
    0.029_399_373,
    0.014_623_396,
    -0.003_266_390_2,
    0.006_260_622_8,
    -0.004_729_612_7,
    0.001_360_036,
    -0.000_143_912_16,
];

/// `erf a = 1 - 2^L(a)` on `[0.875, 4]` (absolute error of `erf` 2^-29.1).
const ERF_L: [f32; 7] = [
    -0.000_208_027_06,
    -1.627_200_5,
    -0.918_737_77,
    -0.150_401_46,
    0.032_289_11,
    -0.004_446_41,
    0.000_288_400_04,
];

/// `erfinv x = x·P(w)` for `w = -ln(1 - x²)` in `[0, 4]` (relative error
/// 2^-30.0).
const ERFINV_P: [f32; 10] = [
    0.886_226_95,
    0.232_013_61,
    0.011_549_84,
    -0.002_336_984_5,
    -0.000_124_438_3,
    4.264_113e-5,
    4.692_264e-6,
    -2.127_300_8e-6,
    2.381_397_3e-7,
    -9.588_502e-9,
];

/// `erfinv x = r·R(r - 3)` for `r = √w` in `[2, √16.2]`, which reaches
/// the largest `float` below 1 (relative error 2^-29.5). Centred at 3: in
/// powers of `r` itself the terms cancel to a fourteenth of their size.
const ERFINV_R: [f32; 10] = [
    0.944_267_33,
    0.019_465_007,
    -0.004_207_146,
    0.000_254_210_55,
    0.000_296_412_82,
    -0.000_173_369_57,
    4.462_945_8e-5,
    5.436_182_6e-6,
    -8.757_221e-6,
    2.143_077_2e-6,
];

/// `erfcinv x = R(s - 0.175)/s` for `s = 1/√w` in `[1/10.15, 1/3.99]`:
/// `w` from 15.9 to `-ln(x·(2 - x))` at the smallest subnormal `x`
/// (relative error 2^-29.6; in powers of `√w` it takes degree 11).
const ERFCINV_S: [f32; 8] = [
    0.974_998,
    -0.199_226_36,
    -0.079_140_31,
    0.894_157_77,
    -1.506_539_8,
    2.850_365,
    -9.866_039,
    36.124_73,
];

/// The centre of [`ERFCINV_S`].
const ERFCINV_S_CENTRE: f32 = 0.175;

/// `2/√π` rounded to `f32`: the slope of `erf` at 0, and the factor of a
/// shift of the argument in `erfc(a + δ) ≈ e^(-a²)·(erfcx(a) - δ·2/√π)`.
const TWO_OVER_SQRT_PI: f32 = std::f32::consts::FRAC_2_SQRT_PI;

/// `1/√2` rounded to `f32`, and the part that the rounding dropped.
const SQRT_HALF_HI: f32 = 0.707_106_77;
const SQRT_HALF_LO: f32 = 1.210_161_7e-8;

/// `erff` uses `x + x·E(x²)` below this magnitude, `1 - 2^L(|x|)` above.
const ERF_EDGE: f32 = 0.875;

/// Past this `a`, `erfc a` is below half the smallest subnormal (and the
/// clamp keeps `a²` and the scale finite for huge or infinite inputs).
const ERFC_CLAMP: f32 = 10.5;

impl FunctionLowerer<'_, '_> {
    /// `E(x²)` of `erf x = x + x·E(x²)`.
    fn erf_poly(&mut self, x: Value) -> Value {
        let s = self.b.fmul(x, x);
        self.horner32(&ERF_E, s)
    }

    /// `erfc(a + δ)` for `a >= 0.5` (`δ` a correction far below an ulp of
    /// `a`): `e^(-a²)·(P(t) - δ·2/√π)`. NaN gives NaN; `a` above
    /// [`ERFC_CLAMP`] (infinity included) gives 0.
    fn erfc_far(&mut self, a: Value, delta: Option<Value>) -> Value {
        let a = self.at_most32(a, ERFC_CLAMP);

        // u = 4/(a + 2): the approximate reciprocal and one Newton step
        // (within about half an ulp, like the division, for less work).
        let two = self.c32(2.0);
        let den = self.b.fadd(a, two);
        let one = self.c32(1.0);
        let r0 = self.b.binary(Opcode::FdivApprox, one, den);
        let nden = self.b.unary(Opcode::Fneg, den);
        let e = self.b.fma(nden, r0, one);
        let r = self.b.fma(r0, e, r0);
        let four = self.c32(4.0);
        let u = self.b.fmul(r, four);
        let mut p = self.horner32(&ERFCX_P, u);
        if let Some(d) = delta {
            let k = self.c32(-TWO_OVER_SQRT_PI);
            p = self.b.fma(d, k, p);
        }

        // a² = hi + lo exactly; e^(-hi) = 2^j·e^r with r = -hi - j·ln 2.
        let hi = self.b.fmul(a, a);
        let nhi = self.b.unary(Opcode::Fneg, hi);
        let lo = self.b.fma(a, a, nhi);
        let l2e = self.c32(super::math_f32::LOG2E);
        let jx = self.b.fmul(nhi, l2e);
        let j = self.b.unary(Opcode::Nearest, jx);
        let nj = self.b.unary(Opcode::Fneg, j);
        let ln2 = self.c32(super::math_f32::LN2);
        let r = self.b.fma(nj, ln2, nhi);
        let ln2_lo = self.c32(super::math_f32::LN2_LO);
        let r = self.b.fma(nj, ln2_lo, r);
        let r = self.b.binary(Opcode::Fsub, r, lo);
        let q = self.horner32(&super::math_f32::EXPM1_Q, r);
        let rr = self.b.fmul(r, r);
        let em1 = self.b.fma(rr, q, r);
        let m = self.b.fma(p, em1, p);

        // 2^j in two halves, each a normal float (j >= -159).
        let ji = self.b.convert(Opcode::Fptosi, Type::I32, j);
        self.scale_pow2(Type::F32, m, ji)
    }

    /// `erff`: `x + x·E(x²)` below [`ERF_EDGE`] in magnitude, else
    /// `±(1 - 2^L(|x|))`.
    pub(super) fn erf_f32(&mut self, x: Value) -> Value {
        // `fma(x, E, x)` keeps the sign of `x`, `-0` included.
        let e = self.erf_poly(x);
        let near = self.b.fma(x, e, x);
        // Above the edge erf needs erfc only to an ulp of 1, not to its own
        // ulp: one `ex2` of a polynomial, no division. `a` is clamped at 4
        // (erfc 4 is a quarter of an ulp below 1; NaN passes).
        let a = self.b.unary(Opcode::Fabs, x);
        let ac = self.at_most32(a, 4.0);
        let l = self.horner32(&ERF_L, ac);
        // `erfc a` for `a` up to 4 is above 2^-27: `.ftz` changes nothing.
        let tail = self.b.unary(Opcode::Ex2Ftz, l);
        let one = self.c32(1.0);
        let far = self.b.binary(Opcode::Fsub, one, tail);
        let far = self.copysign(far, x);
        let edge = self.c32(ERF_EDGE);
        let small = self.b.fcmp(FloatCC::Olt, a, edge);
        self.b.select(small, near, far)
    }

    /// `erfcf`: `(1 - x) - x·E(x²)` below 0.5 in magnitude; above,
    /// `erfc|x|`, and `2 - erfc|x|` for negative `x`.
    pub(super) fn erfc_f32(&mut self, x: Value) -> Value {
        // (1 - x) - x·E: `1 - x` is exact for |x| <= 1/2.
        let e = self.erf_poly(x);
        let nx = self.b.unary(Opcode::Fneg, x);
        let one = self.c32(1.0);
        let omx = self.b.fadd(one, nx);
        let near = self.b.fma(nx, e, omx);
        let a = self.b.unary(Opcode::Fabs, x);
        let far = self.erfc_far(a, None);
        let two = self.c32(2.0);
        let reflected = self.b.binary(Opcode::Fsub, two, far);
        let zero = self.c32(0.0);
        let negative = self.b.fcmp(FloatCC::Olt, x, zero);
        let far = self.b.select(negative, reflected, far);
        let half = self.c32(0.5);
        let small = self.b.fcmp(FloatCC::Olt, a, half);
        self.b.select(small, near, far)
    }

    /// `erfinvf`: with `w = -ln(1 - x²)` (`1 - x²` by one `fma`, so it
    /// keeps its relative accuracy as `|x|` nears 1; the log as `logf`
    /// computes it, `lg2` times `ln 2`), `x·P(w)` for `w < 4`, else
    /// `±r·R(r - 3)` with `r = √w` and the sign of `x`. `±1` give `±inf`,
    /// beyond them and NaN give NaN.
    pub(super) fn erfinv_f32(&mut self, x: Value) -> Value {
        let nx = self.b.unary(Opcode::Fneg, x);
        let one = self.c32(1.0);
        let t = self.b.fma(nx, x, one);
        // `t = 1 - x²` is 0, negative or at least 2^-24 (`x` is a float),
        // and its `log2` 0 or at least 2^-25 in magnitude: `.ftz` changes
        // nothing.
        let l = self.b.unary(Opcode::Lg2Ftz, t);
        let nln2 = self.c32(-super::math_f32::LN2);
        let w = self.b.fmul(l, nln2);
        // P is even in x: x·P(w) keeps the sign, -0 included.
        let p = self.horner32(&ERFINV_P, w);
        let near = self.b.fmul(x, p);
        // The far branch is taken for |x| above about 0.991 only; |x| = 1
        // makes w infinite.
        self.near_or_tail(w, near, x, |m| {
            let (r, _) = m.sqrt_of_large(w);
            // r - 3 is exact for r in [1.5, 6] (Sterbenz).
            let three = m.c32(3.0);
            let v = m.b.binary(Opcode::Fsub, r, three);
            let q = m.horner32(&ERFINV_R, v);
            m.b.fmul(r, q)
        })
    }

    /// `near` where `w < 4`, else what `tail` computes in a block of its
    /// own (an inverse error function's tail, which few arguments reach:
    /// a branch, as in nvcc's, not a select, so the common case skips it),
    /// `inf` where `w` is infinite (the tail's steps give NaN there), with
    /// the sign of `sign`.
    fn near_or_tail(
        &mut self,
        w: Value,
        near: Value,
        sign: Value,
        tail: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let far_block = self.b.create_block();
        let join = self.b.create_block();
        let y = self.b.append_block_param(join, Type::F32);
        let four = self.c32(4.0);
        let small = self.b.fcmp(FloatCC::Olt, w, four);
        self.b.brif(small, join, vec![near], far_block, vec![]);
        self.b.seal_block(far_block);
        self.b.switch_to_block(far_block);
        let far = tail(self);
        let inf = self.c32(f32::INFINITY);
        let edge = self.b.fcmp(FloatCC::Oeq, w, inf);
        let far = self.b.select(edge, inf, far);
        let far = self.copysign(far, sign);
        self.b.jump(join, vec![far]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        y
    }

    /// `(√w, 1/√w)` for `w >= 4` (where `.ftz` changes nothing): the
    /// approximate reciprocal square root and one Heron step on `w·r0`
    /// (two `fma`), for less than the correctly rounded `sqrt` costs.
    fn sqrt_of_large(&mut self, w: Value) -> (Value, Value) {
        let r0 = self.b.unary(Opcode::RsqrtFtz, w);
        let r = self.b.fmul(w, r0);
        let nr = self.b.unary(Opcode::Fneg, r);
        let e = self.b.fma(nr, r, w);
        let half = self.c32(0.5);
        let h = self.b.fmul(r0, half);
        (self.b.fma(e, h, r), r0)
    }

    /// `erfcinvf`: `erfinv y` for `y = 1 - x`, held exactly as `yh + yl`
    /// (the error of the subtraction, recovered as `(1 - yh) - x`, both
    /// steps exact for `x` in `[0, 2]`), with `1 - y² = x·(2 - x)` formed
    /// from `x`, so that `w = -ln(x·(2 - x))` keeps its relative accuracy
    /// where `x` is tiny (`y` is then 1 to the last bit). `w < 4`:
    /// `yh·P(w) + yl·P(w)` (one `fma`); otherwise `±r·R(r - 3)` (`erfinvf`'s)
    /// up to `w = 16` and `r·S(s - 0.175)` past it, `r = √w`, `s = 1/√w`
    /// (the approximate reciprocal square root: `S` is flat enough that
    /// its error does not show), with the sign of `yh`. `0` (either sign)
    /// gives `+inf`, `2` gives `-inf`; outside `[0, 2]` `x·(2 - x)` is
    /// negative (or NaN) and so is the result NaN.
    pub(super) fn erfcinv_f32(&mut self, x: Value) -> Value {
        let one = self.c32(1.0);
        let yh = self.b.binary(Opcode::Fsub, one, x);
        let d = self.b.binary(Opcode::Fsub, one, yh);
        let yl = self.b.binary(Opcode::Fsub, d, x);
        let two = self.c32(2.0);
        let u = self.b.binary(Opcode::Fsub, two, x);
        let t = self.b.fmul(x, u);
        // `t` reaches 2^-148 (subnormal): the plain `lg2`.
        let l = self.b.unary(Opcode::Lg2, t);
        let nln2 = self.c32(-super::math_f32::LN2);
        let w = self.b.fmul(l, nln2);
        let p = self.horner32(&ERFINV_P, w);
        let lo = self.b.fmul(yl, p);
        let near = self.b.fma(yh, p, lo);
        // The tail: x below about 0.009 or above 1.991; x = 0 or 2 makes
        // w infinite.
        self.near_or_tail(w, near, yh, |m| {
            let (r, s) = m.sqrt_of_large(w);
            let three = m.c32(3.0);
            let v = m.b.binary(Opcode::Fsub, r, three);
            let mid = m.horner32(&ERFINV_R, v);
            let centre = m.c32(ERFCINV_S_CENTRE);
            let v = m.b.binary(Opcode::Fsub, s, centre);
            let tail = m.horner32(&ERFCINV_S, v);
            let sixteen = m.c32(16.0);
            let below = m.b.fcmp(FloatCC::Olt, w, sixteen);
            let q = m.b.select(below, mid, tail);
            m.b.fmul(r, q)
        })
    }

    /// `normcdff`: `erfc(y)/2` with `y = -x/√2`. The product is rounded,
    /// and `erfc` magnifies a relative error of its argument by about
    /// `2y²` (200 at the far end), so the part the rounding dropped,
    /// `δ = fma(x, -c_hi, -y) - x·c_lo`, goes into the result as a first
    /// order correction. `x` is clamped to `[-20, 20]` first (the results
    /// there are 0 and 1 in `float`), which keeps `δ` finite.
    pub(super) fn normcdf_f32(&mut self, x: Value) -> Value {
        let x = self.clamp32(x, -20.0, 20.0);

        let c_hi = self.c32(-SQRT_HALF_HI);
        let y = self.b.fmul(x, c_hi);
        let ny = self.b.unary(Opcode::Fneg, y);
        let d = self.b.fma(x, c_hi, ny);
        let c_lo = self.c32(-SQRT_HALF_LO);
        let delta = self.b.fma(x, c_lo, d);

        // |y| < 0.5: (1 - erf(y + δ))/2 = (1/2 - y/2) - (y/2)·E(y²) - δ/√π
        // (`1/2 - y/2` is exact).
        let half = self.c32(0.5);
        let e = self.erf_poly(y);
        let nhy = self.b.fmul(ny, half);
        let base = self.b.fadd(half, nhy);
        let near = self.b.fma(nhy, e, base);
        let k = self.c32(-0.5 * TWO_OVER_SQRT_PI);
        let near = self.b.fma(delta, k, near);

        // Otherwise erfc(|y| ± δ)/2, reflected for negative y.
        let a = self.b.unary(Opcode::Fabs, y);
        let zero = self.c32(0.0);
        let negative = self.b.fcmp(FloatCC::Olt, y, zero);
        let ndelta = self.b.unary(Opcode::Fneg, delta);
        let shift = self.b.select(negative, ndelta, delta);
        let far = self.erfc_far(a, Some(shift));
        let far = self.b.fmul(far, half);
        let one = self.c32(1.0);
        let reflected = self.b.binary(Opcode::Fsub, one, far);
        let far = self.b.select(negative, reflected, far);
        let small = self.b.fcmp(FloatCC::Olt, a, half);
        self.b.select(small, near, far)
    }
}
