//! More of the double-precision library (after `math_f64.rs`): `tan`,
//! `sincos`, `atan`, `atan2`, `asin`, `acos`, `sinh`, `cosh`, `asinh`,
//! `acosh`, `atanh`, `expm1`, `log1p`, `log10`, `exp10`, `cbrt`, `rcbrt`,
//! `hypot`, `sinpi` and `cospi`, built from the same pieces (the
//! Cody–Waite reductions, the Taylor polynomials, `log` in double-double)
//! and from correctly rounded IR instructions.
//!
//! The `float` forms of these functions evaluate the `double` function and
//! round its result once to `float` (`math.rs`): the `double` result is
//! within about 2^-51 of the truth, so the `float` one is the correctly
//! rounded value except when the truth lies within that distance of a
//! midpoint between two floats (then it is 1 ulp off). docs/math.md gives
//! each method and the accuracy measured by `tests/math_more.rs`.

use super::math_f64::{ExpParts, F64Math, LogParts, Trig};
use super::math_f64_consts::*;
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, GlobalVar, IntCC, Opcode, Type, Value};

/// Past this `|x|`, `asinh`/`acosh` are `log(2|x|)` to double precision.
const LOG_REGION: f64 = 268_435_456.0; // 2^28

impl FunctionLowerer<'_, '_> {
    pub(super) fn tan_f64(&mut self, x: Value) -> Value {
        let trig = self.math_helpers.trig();
        let (s, c) = self.f64_math().sin_cos_pair(x, trig);
        self.b.binary(Opcode::Fdiv, s, c)
    }

    /// `sin x` and `cos x` with one reduction (`sincos`).
    pub(super) fn sincos_f64(&mut self, x: Value) -> (Value, Value) {
        let trig = self.math_helpers.trig();
        self.f64_math().sin_cos_pair(x, trig)
    }

    pub(super) fn atan_f64(&mut self, x: Value) -> Value {
        self.f64_math().atan_f64(x)
    }

    pub(super) fn atan2_f64(&mut self, y: Value, x: Value) -> Value {
        self.f64_math().atan2_f64(y, x)
    }

    pub(super) fn asin_f64(&mut self, x: Value) -> Value {
        self.f64_math().asin_f64(x)
    }

    pub(super) fn acos_f64(&mut self, x: Value) -> Value {
        self.f64_math().acos_f64(x)
    }

    pub(super) fn sinh_f64(&mut self, x: Value) -> Value {
        self.f64_math().sinh_f64(x)
    }

    pub(super) fn cosh_f64(&mut self, x: Value) -> Value {
        self.f64_math().cosh_f64(x)
    }

    pub(super) fn asinh_f64(&mut self, x: Value) -> Value {
        self.f64_math().asinh_f64(x)
    }

    pub(super) fn acosh_f64(&mut self, x: Value) -> Value {
        self.f64_math().acosh_f64(x)
    }

    pub(super) fn atanh_f64(&mut self, x: Value) -> Value {
        self.f64_math().atanh_f64(x)
    }

    pub(super) fn expm1_f64(&mut self, x: Value) -> Value {
        self.f64_math().expm1_f64(x)
    }

    pub(super) fn log1p_f64(&mut self, x: Value) -> Value {
        self.f64_math().log1p_f64(x)
    }

    pub(super) fn log10_f64(&mut self, x: Value) -> Value {
        self.f64_math().log10_f64(x)
    }

    pub(super) fn exp10_f64(&mut self, x: Value) -> Value {
        self.f64_math().exp10_f64(x)
    }

    pub(super) fn cbrt_f64(&mut self, x: Value) -> Value {
        self.f64_math().cbrt_f64(x)
    }

    pub(super) fn hypot_f64(&mut self, x: Value, y: Value) -> Value {
        self.f64_math().hypot_f64(x, y)
    }

    pub(super) fn sinpi_f64(&mut self, x: Value, cos: bool) -> Value {
        let coeffs = self.math_helpers.sin_cos_coeffs();
        self.f64_math().sinpi_f64(x, cos, coeffs)
    }
}

impl F64Math<'_, '_> {
    fn fdiv(&mut self, a: Value, b: Value) -> Value {
        self.b.binary(Opcode::Fdiv, a, b)
    }

    /// The magnitude of `v` with the sign of `s` (bits).
    pub(super) fn copysign(&mut self, v: Value, s: Value) -> Value {
        let vb = self.b.convert(Opcode::Bitcast, Type::I64, v);
        let sb = self.b.convert(Opcode::Bitcast, Type::I64, s);
        let m = self.l(i64::MAX);
        let sign = self.l(i64::MIN);
        let mag = self.b.binary(Opcode::Band, vb, m);
        let sg = self.b.binary(Opcode::Band, sb, sign);
        let r = self.b.binary(Opcode::Bor, mag, sg);
        self.b.convert(Opcode::Bitcast, Type::F64, r)
    }

    /// `sin x` and `cos x` from one reduction: `x = k·π/2 + r` as in
    /// `sin`/`cos`, both polynomials on `r`, and the quadrant `k mod 4`
    /// picks `(±sin r, ±cos r)` or `(±cos r, ∓sin r)`. `|x| >= 2^50` calls
    /// the Payne–Hanek helper once for `r` and `k`.
    pub(super) fn sin_cos_pair(&mut self, x: Value, trig: Trig) -> (Value, Value) {
        let (r, k) = self.reduce_pio2_any(x, trig.large);
        let rs = self.sin_cos_poly(r, k, trig.coeffs);
        let one = self.l(1);
        let k1 = self.b.iadd(k, one);
        let rc = self.sin_cos_poly(r, k1, trig.coeffs);
        let ax = self.b.unary(Opcode::Fabs, x);
        let is_inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let nan = self.d(f64::NAN);
        let rs = self.b.select(is_inf, nan, rs);
        let rc = self.b.select(is_inf, nan, rc);
        let rs = self.keep_nan(x, rs);
        let rc = self.keep_nan(x, rc);
        let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
        let rs = self.b.select(is_zero, x, rs);
        (rs, rc)
    }

    /// `atan u` for `u` in `[0, 1]` as `hi + lo`: `c` is the nearest of
    /// 0, 1/4, 1/2, 3/4, 1, `t = (u - c)/(1 + u·c)` (`u - c` is exact,
    /// `|t| <= 0.13`), and `atan u = atan c + atan t` with `atan c` from
    /// the table in two parts and `atan t = t + t³·P(t²)` (Taylor to
    /// `t^23`).
    fn atan_unit(&mut self, u: Value) -> (Value, Value) {
        let four = self.d(4.0);
        let u4 = self.b.fmul(u, four);
        let idx = self.b.unary(Opcode::Nearest, u4);
        let quarter = self.d(0.25);
        let c = self.b.fmul(idx, quarter);
        let num = self.sub(u, c);
        let one = self.d(1.0);
        let den = self.b.fma(u, c, one);
        let t = self.fdiv(num, den);
        let z = self.b.fmul(t, t);
        let p = self.horner(&ATAN_TAYLOR, z);
        let t3 = self.b.fmul(t, z);
        let at = self.b.fma(t3, p, t);
        let mut hi = self.d(0.0);
        let mut lo = self.d(0.0);
        for i in 0..4 {
            let is = self.cmp(FloatCC::Oeq, idx, (i + 1) as f64);
            let h = self.d(ATAN_POINTS_HI[i]);
            let l = self.d(ATAN_POINTS_LO[i]);
            hi = self.b.select(is, h, hi);
            lo = self.b.select(is, l, lo);
        }
        let lo = self.b.fadd(lo, at);
        (hi, lo)
    }

    /// `atan x`: `|x| > 1` uses `π/2 - atan(1/|x|)`; the sign of `x` is
    /// put back at the end (`atan(±0) = ±0`, `atan(±inf) = ±π/2`).
    pub(super) fn atan_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let big = self.cmp(FloatCC::Ogt, a, 1.0);
        let one = self.d(1.0);
        let inv = self.fdiv(one, a);
        let u = self.b.select(big, inv, a);
        let (vh, vl) = self.atan_unit(u);
        let small_r = self.b.fadd(vh, vl);
        let p1 = self.d(PIO2_1);
        let p2 = self.d(PIO2_2);
        let h = self.sub(p1, vh);
        let l = self.sub(p2, vl);
        let big_r = self.b.fadd(h, l);
        let r = self.b.select(big, big_r, small_r);
        let r = self.copysign(r, x);
        self.keep_nan(x, r)
    }

    /// `atan2(y, x)`: `u = min/max` of `|y|`, `|x|` in `[0, 1]`, `v =
    /// atan u`, then by the octant `v`, `π/2 - v`, `π/2 + v` or `π - v`
    /// (each constant in two parts, so the sum rounds once at the end), and
    /// the sign of `y`. C's special cases: both zero gives `±0` or `±π`
    /// by the sign of `x`, both infinite `±π/4` or `±3π/4`.
    pub(super) fn atan2_f64(&mut self, y: Value, x: Value) -> Value {
        let ay = self.b.unary(Opcode::Fabs, y);
        let ax = self.b.unary(Opcode::Fabs, x);
        let swap = self.b.fcmp(FloatCC::Ogt, ay, ax);
        let num = self.b.select(swap, ax, ay);
        let den = self.b.select(swap, ay, ax);
        let u = self.fdiv(num, den);
        let zero = self.d(0.0);
        let one = self.d(1.0);
        let y0 = self.cmp(FloatCC::Oeq, ay, 0.0);
        let x0 = self.cmp(FloatCC::Oeq, ax, 0.0);
        let both0 = self.b.binary(Opcode::Band, y0, x0);
        let yi = self.cmp(FloatCC::Oeq, ay, f64::INFINITY);
        let xi = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let both_inf = self.b.binary(Opcode::Band, yi, xi);
        let u = self.b.select(both0, zero, u);
        let u = self.b.select(both_inf, one, u);
        let (vh, vl) = self.atan_unit(u);
        // The octant: base + sign·v.
        let xb = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let zl = self.l(0);
        let x_neg = self.b.icmp(IntCC::Slt, xb, zl);
        let p1 = self.d(PIO2_1);
        let p2 = self.d(PIO2_2);
        let pi_h = self.d(PI_HI);
        let pi_l = self.d(PI_LO);
        let base_h = self.b.select(x_neg, pi_h, zero);
        let base_l = self.b.select(x_neg, pi_l, zero);
        let base_h = self.b.select(swap, p1, base_h);
        let base_l = self.b.select(swap, p2, base_l);
        // v is subtracted for (swap, x >= 0) and (!swap, x < 0).
        let minus = self.b.binary(Opcode::Bxor, swap, x_neg);
        let nvh = self.neg(vh);
        let nvl = self.neg(vl);
        let sh = self.b.select(minus, nvh, vh);
        let sl = self.b.select(minus, nvl, vl);
        let h = self.b.fadd(base_h, sh);
        let l = self.b.fadd(base_l, sl);
        let r = self.b.fadd(h, l);
        let r = self.copysign(r, y);
        let nan = self.b.fcmp(FloatCC::Uno, x, y);
        let qnan = self.d(f64::NAN);
        self.b.select(nan, qnan, r)
    }

    /// `asin x = atan(x / sqrt(1 - x²))`, with `1 - x²` as `fma(-x, x, 1)`
    /// below 1/2 and as `(1 - |x|)(1 + |x|)` above (`1 - |x|` exact).
    pub(super) fn asin_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let na = self.neg(a);
        let one = self.d(1.0);
        let d_small = self.b.fma(na, a, one);
        let om = self.sub(one, a);
        let op = self.b.fadd(one, a);
        let d_big = self.b.fmul(om, op);
        let small = self.cmp(FloatCC::Olt, a, 0.5);
        let d2 = self.b.select(small, d_small, d_big);
        let den = self.b.unary(Opcode::Sqrt, d2);
        let u = self.fdiv(a, den);
        let r = self.atan_f64(u);
        let r = self.copysign(r, x);
        self.keep_nan(x, r)
    }

    /// `acos x = 2·atan(sqrt((1 - x)/(1 + x)))` (`acos(-1) = π`,
    /// `|x| > 1` gives NaN through the square root).
    pub(super) fn acos_f64(&mut self, x: Value) -> Value {
        let one = self.d(1.0);
        let om = self.sub(one, x);
        let op = self.b.fadd(one, x);
        let q = self.fdiv(om, op);
        let s = self.b.unary(Opcode::Sqrt, q);
        let t = self.atan_f64(s);
        let r = self.b.fadd(t, t);
        let gt1 = self.b.unary(Opcode::Fabs, x);
        let out = self.cmp(FloatCC::Ogt, gt1, 1.0);
        let nan = self.d(f64::NAN);
        let r = self.b.select(out, nan, r);
        self.keep_nan(x, r)
    }

    /// `e^x / 2`, without overflow before the result overflows: `exp`'s
    /// reduction and polynomial, scaled by `2^(k-1)`.
    fn exp_half(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -746.0, 711.0);
        let ExpParts { k, r } = self.exp_reduce(xc, false);
        let p1 = self.expm1_poly(r);
        let one = self.d(1.0);
        let p = self.b.fadd(one, p1);
        let one_i = self.l(1);
        let k1 = self.b.isub(k, one_i);
        self.scale(p, k1)
    }

    /// `expm1 x = 2^k·(e^r - 1) + (2^k - 1)` (one `fma`). `k` is rounded
    /// down for `x >= 0`, so that `r` is in `[0, 0.7)` and the two terms
    /// have the same sign, and to nearest for `x < 0` (`r` in `[-0.35,
    /// 0.35]`, `2^k - 1 <= -1/2` dominates). `x` is clamped to `[-50,
    /// 710]`; `expm1(±0) = ±0`.
    pub(super) fn expm1_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -50.0, 710.0);
        let pos = self.cmp(FloatCC::Oge, xc, 0.0);
        let ExpParts { k: kd, r: rd } = self.exp_reduce(xc, true);
        let ExpParts { k: kn, r: rn } = self.exp_reduce(xc, false);
        let k = self.b.select(pos, kd, kn);
        let r = self.b.select(pos, rd, rn);
        let p = self.expm1_poly(r);
        let s = self.pow2i(k);
        let one = self.d(1.0);
        let sm1 = self.sub(s, one);
        let e = self.b.fma(s, p, sm1);
        let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
        let e = self.b.select(is_zero, x, e);
        self.keep_nan(x, e)
    }

    /// `sinh x = (E + E/(E + 1))/2` with `E = expm1(|x|)` below 22, else
    /// `e^|x|/2`; the sign of `x`.
    pub(super) fn sinh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let lim = self.d(22.0);
        let ac = self.b.binary(Opcode::Fmin, a, lim);
        let e = self.expm1_f64(ac);
        let one = self.d(1.0);
        let e1 = self.b.fadd(e, one);
        let q = self.fdiv(e, e1);
        let s = self.b.fadd(e, q);
        let half = self.d(0.5);
        let small = self.b.fmul(s, half);
        let big = self.exp_half(a);
        let is_big = self.cmp(FloatCC::Oge, a, 22.0);
        let r = self.b.select(is_big, big, small);
        let r = self.copysign(r, x);
        self.keep_nan(x, r)
    }

    /// `cosh x = e^|x|/2 + 1/(4·(e^|x|/2))`.
    pub(super) fn cosh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let h = self.exp_half(a);
        let quarter = self.d(0.25);
        let t = self.fdiv(quarter, h);
        let r = self.b.fadd(h, t);
        self.keep_nan(x, r)
    }

    /// `log1p x = log u + (x - (u - 1))/u` with `u = 1 + x` rounded: the
    /// correction is the rounding error of `u` (exact), `log u` in
    /// double-double. `log1p(-1) = -inf`, below -1 NaN, `log1p(±0) = ±0`.
    pub(super) fn log1p_f64(&mut self, x: Value) -> Value {
        let one = self.d(1.0);
        let u = self.b.fadd(one, x);
        let (lh, ll) = self.log_dd(u);
        let um1 = self.sub(u, one);
        let c = self.sub(x, um1);
        let cu = self.b.binary(Opcode::Fdiv, c, u);
        let lo = self.b.fadd(ll, cu);
        let r = self.b.fadd(lh, lo);
        // Specials of log on u, and tiny or zero x returned as is.
        let r = self.log_specials(u, r);
        let is_inf = self.cmp(FloatCC::Oeq, x, f64::INFINITY);
        let inf = self.d(f64::INFINITY);
        let r = self.b.select(is_inf, inf, r);
        let ax = self.b.unary(Opcode::Fabs, x);
        let tiny = self.cmp(FloatCC::Olt, ax, 1e-300);
        let r = self.b.select(tiny, x, r);
        self.keep_nan(x, r)
    }

    /// `log10 x = log x · log10(e)`, both in double-double.
    pub(super) fn log10_f64(&mut self, x: Value) -> Value {
        let (lh, ll) = self.log_dd(x);
        let ch = self.d(LOG10E_HI);
        let cl = self.d(LOG10E_LO);
        let (p, e) = self.mul_dd((lh, Some(ll)), (ch, cl));
        let r = self.b.fadd(p, e);
        self.log_specials(x, r)
    }

    /// `exp10 x = e^h·(1 + l)` with `x·ln 10 = h + l` (the product's
    /// rounding error from `fma`, plus `x` times the low part of ln 10).
    pub(super) fn exp10_f64(&mut self, x: Value) -> Value {
        let ch = self.d(LN10_HI);
        let cl = self.d(LN10_LO);
        let h = self.b.fmul(x, ch);
        let nh = self.neg(h);
        let l = self.b.fma(x, ch, nh);
        let l = self.b.fma(x, cl, l);
        let e = self.exp_f64(h);
        let r = self.b.fma(e, l, e);
        // inf, 0 and NaN come from exp alone.
        let pos = self.cmp(FloatCC::Ogt, e, 0.0);
        let fin = self.cmp(FloatCC::Olt, e, f64::INFINITY);
        let ok = self.b.binary(Opcode::Band, pos, fin);
        let r = self.b.select(ok, r, e);
        self.keep_nan(x, r)
    }

    /// `cbrt x`: a first guess from the bits (the exponent divided by 3:
    /// `(bits(|x|) + 2·bits(1))/3`, within about 6%), four Newton steps
    /// `y += (|x|/y² - y)/3`, and a last correction by the residual
    /// `y³ - |x|` computed with its rounding errors (`fma`). Subnormals are
    /// scaled by 2^54 first (the result by 2^-18), and values above 2^900
    /// by 2^-54 (the result by 2^18), so that `y³` cannot overflow.
    pub(super) fn cbrt_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let sub = self.cmp(FloatCC::Olt, a, f64::MIN_POSITIVE);
        let up = self.d(2f64.powi(54));
        let scaled = self.b.fmul(a, up);
        let a0 = a;
        let a = self.b.select(sub, scaled, a);
        // Huge ones by 2^-54 (so that y³ cannot overflow; the result by 2^18).
        let huge = self.cmp(FloatCC::Ogt, a0, 2f64.powi(900));
        let dn = self.d(2f64.powi(-54));
        let scaled = self.b.fmul(a0, dn);
        let a = self.b.select(huge, scaled, a);
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, a);
        let two_one = self.l(2 * 0x3ff0_0000_0000_0000);
        let sum = self.b.iadd(bits, two_one);
        let three = self.l(3);
        let g = self.b.binary(Opcode::Udiv, sum, three);
        let mut y = self.b.convert(Opcode::Bitcast, Type::F64, g);
        let third = self.d(1.0 / 3.0);
        for _ in 0..4 {
            let t = self.b.fmul(y, y);
            let q = self.fdiv(a, t);
            let d = self.sub(q, y);
            y = self.b.fma(d, third, y);
        }
        // y³ - a = (t + te)·y - a, t = y² rounded, te its error.
        let t = self.b.fmul(y, y);
        let nt = self.neg(t);
        let te = self.b.fma(y, y, nt);
        let u = self.b.fmul(t, y);
        let nu = self.neg(u);
        let ue = self.b.fma(t, y, nu);
        let res = self.sub(u, a);
        let res = self.b.fadd(res, ue);
        let res = self.b.fma(te, y, res);
        let three = self.d(3.0);
        let three_t = self.b.fmul(t, three);
        let corr = self.fdiv(res, three_t);
        let y = self.sub(y, corr);
        let down = self.d(2f64.powi(-18));
        let ys = self.b.fmul(y, down);
        let y = self.b.select(sub, ys, y);
        let up = self.d(2f64.powi(18));
        let yb = self.b.fmul(y, up);
        let y = self.b.select(huge, yb, y);
        let r = self.copysign(y, x);
        // ±0, ±inf and NaN are their own cube roots.
        let ax = self.b.unary(Opcode::Fabs, x);
        let zero = self.cmp(FloatCC::Oeq, ax, 0.0);
        let inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let same = self.b.binary(Opcode::Bor, zero, inf);
        let r = self.b.select(same, x, r);
        self.keep_nan(x, r)
    }

    /// `hypot(x, y) = 2^e·sqrt(X² + Y²)` with `X`, `Y` the operands scaled
    /// by `2^-e` (`e` the exponent of the larger, clamped to ±1000: exact
    /// scalings), the sum of squares with one `fma`. An infinite operand
    /// gives `+inf` even with a NaN.
    pub(super) fn hypot_f64(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let ay = self.b.unary(Opcode::Fabs, y);
        let m = self.b.binary(Opcode::Fmax, ax, ay);
        let n = self.b.binary(Opcode::Fmin, ax, ay);
        let e = self.clamped_exponent(m);
        let ne = self.b.unary(Opcode::Ineg, e);
        let down = self.pow2i(ne);
        let ms = self.b.fmul(m, down);
        let ns = self.b.fmul(n, down);
        let m2 = self.b.fmul(ms, ms);
        let s = self.b.fma(ns, ns, m2);
        let r = self.b.unary(Opcode::Sqrt, s);
        let back = self.pow2i(e);
        let r = self.b.fmul(r, back);
        let zero = self.cmp(FloatCC::Oeq, m, 0.0);
        let zf = self.d(0.0);
        let r = self.b.select(zero, zf, r);
        let nan = self.b.fcmp(FloatCC::Uno, x, y);
        let qnan = self.d(f64::NAN);
        let r = self.b.select(nan, qnan, r);
        let xi = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let yi = self.cmp(FloatCC::Oeq, ay, f64::INFINITY);
        let inf = self.b.binary(Opcode::Bor, xi, yi);
        let pinf = self.d(f64::INFINITY);
        self.b.select(inf, pinf, r)
    }

    /// `asinh x = log1p(|x| + x²/(1 + sqrt(1 + x²)))`, or `log|x| + ln 2`
    /// past 2^28; the sign of `x`.
    pub(super) fn asinh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let one = self.d(1.0);
        let a2 = self.b.fmul(a, a);
        let s = self.b.fadd(a2, one);
        let s = self.b.unary(Opcode::Sqrt, s);
        let d = self.b.fadd(one, s);
        let q = self.fdiv(a2, d);
        let t = self.b.fadd(a, q);
        let small = self.log1p_f64(t);
        let big = self.log_plus_ln2(a);
        let is_big = self.cmp(FloatCC::Oge, a, LOG_REGION);
        let r = self.b.select(is_big, big, small);
        let r = self.copysign(r, x);
        self.keep_nan(x, r)
    }

    /// `log(a) + ln 2` for a large positive `a` (`asinh`, `acosh`).
    fn log_plus_ln2(&mut self, a: Value) -> Value {
        let LogParts { e, f, .. } = self.log_parts(a);
        let lf = self.log1p_core(f);
        let one = self.d(1.0);
        let e = self.b.fadd(e, one);
        let lo = self.d(LN2_LO);
        let hi = self.d(LN2_HI);
        let t = self.b.fma(e, lo, lf);
        let r = self.b.fma(e, hi, t);
        let inf = self.cmp(FloatCC::Oeq, a, f64::INFINITY);
        self.b.select(inf, a, r)
    }

    /// `acosh x = log1p((x - 1) + sqrt((x - 1)² + 2(x - 1)))`, or `log x + ln 2`
    /// past 2^28; NaN below 1.
    pub(super) fn acosh_f64(&mut self, x: Value) -> Value {
        let one = self.d(1.0);
        let xm = self.sub(x, one);
        // (x - 1)(x + 1) = xm² + 2·xm, rounded once (`xm` is exact below 2).
        let two_xm = self.b.fadd(xm, xm);
        let p = self.b.fma(xm, xm, two_xm);
        let s = self.b.unary(Opcode::Sqrt, p);
        let t = self.b.fadd(xm, s);
        let small = self.log1p_f64(t);
        let big = self.log_plus_ln2(x);
        let is_big = self.cmp(FloatCC::Oge, x, LOG_REGION);
        let r = self.b.select(is_big, big, small);
        let below = self.cmp(FloatCC::Olt, x, 1.0);
        let nan = self.d(f64::NAN);
        let r = self.b.select(below, nan, r);
        self.keep_nan(x, r)
    }

    /// `atanh x = log1p(2|x|/(1 - |x|))/2` with the sign of `x`.
    pub(super) fn atanh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let one = self.d(1.0);
        let two_a = self.b.fadd(a, a);
        let d = self.sub(one, a);
        let q = self.fdiv(two_a, d);
        let l = self.log1p_f64(q);
        let half = self.d(0.5);
        let r = self.b.fmul(l, half);
        let r = self.copysign(r, x);
        self.keep_nan(x, r)
    }

    /// `sinpi x` (or `cospi x`): `m = nearest(2x)`, `f = x - m/2` (exact,
    /// `|f| <= 1/4`), `r = π·f` with π in two parts, and the quadrant `m`
    /// (reduced mod 4 while still a float, so huge `x` stay exact) picks
    /// `±sin r` or `±cos r`.
    pub(super) fn sinpi_f64(&mut self, x: Value, cos: bool, coeffs: GlobalVar) -> Value {
        // From 2^53 on every double is an even integer: sinpi is 0 and
        // cospi 1, which the reduction of 0 gives (and 2x cannot overflow).
        let ax = self.b.unary(Opcode::Fabs, x);
        let even = self.cmp(FloatCC::Oge, ax, 9_007_199_254_740_992.0);
        let zero = self.d(0.0);
        let x0 = self.copysign(zero, x);
        let xr = self.b.select(even, x0, x);
        let x = xr;
        let two = self.d(2.0);
        let x2 = self.b.fmul(x, two);
        let m = self.b.unary(Opcode::Nearest, x2);
        let half = self.d(0.5);
        let mh = self.b.fmul(m, half);
        let f = self.sub(x, mh);
        let pi_h = self.d(PI_HI);
        let pi_l = self.d(PI_LO);
        let fl = self.b.fmul(f, pi_l);
        let r = self.b.fma(f, pi_h, fl);
        let quarter = self.d(0.25);
        let m4 = self.b.fmul(m, quarter);
        let m4 = self.b.unary(Opcode::Floor, m4);
        let four = self.d(4.0);
        let nf = self.neg(four);
        let mm = self.b.fma(m4, nf, m);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, mm);
        let k = if cos {
            let one = self.l(1);
            self.b.iadd(k, one)
        } else {
            k
        };
        let v = self.sin_cos_poly(r, k, coeffs);
        // ±inf and NaN give NaN.
        let inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let nan = self.d(f64::NAN);
        let v = self.b.select(inf, nan, v);
        self.keep_nan(ax, v)
    }
}
