//! The modified Bessel functions of the first kind, `cyl_bessel_i0` and
//! `cyl_bessel_i1` (and their `float` forms, the `double` function rounded
//! once), from exact IR instructions. The constants are in
//! `math_bessel_consts.rs` (`scripts/math_bessel_constants.py`).
//!
//! Below `|x| = 20` the power series in `t = x²/4` (all its terms have one
//! sign, so nothing cancels), evaluated at the rounded `t` and corrected to
//! first order for the part of `x²` the rounding dropped: the result moves
//! by about `|x|/2` times a relative change of `t`. From 20 on the
//! asymptotic expansion `e^a/sqrt(2πa)·S(1/a)`, with `e^a` as `exp` reduces
//! it and `2^k` applied last, so the result overflows only where it does.

use super::math_bessel_consts::*;
use super::math_f64::{ExpParts, F64Math};
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// Past this the asymptotic path's argument is clamped: `I0` and `I1`
/// overflow `double` from about 713.99 on.
const OVERFLOW_CLAMP: f64 = 800.0;

impl FunctionLowerer<'_, '_> {
    /// `I0(x)`, or `I1(x)` with `one`, on `double`.
    pub(super) fn bessel_i_f64(&mut self, x: Value, one: bool) -> Value {
        self.f64_math().bessel_i(x, one)
    }

    /// The `float` forms: the `double` function, rounded once.
    pub(super) fn bessel_i_f32(&mut self, x: Value, one: bool) -> Value {
        let w = self.b.convert(Opcode::Fpext, Type::F64, x);
        let r = self.bessel_i_f64(w, one);
        self.b.convert(Opcode::Fptrunc, Type::F32, r)
    }
}

impl F64Math<'_, '_> {
    /// `I0(x)` (even) or `I1(x)` (odd: the sign of `x` put back). Both
    /// paths are computed and one is selected; NaN stays NaN, `±inf` give
    /// `+inf` (`±inf` for `I1`).
    pub(super) fn bessel_i(&mut self, x: Value, one: bool) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let near = self.bessel_i_series(a, one);
        let far = self.bessel_i_asymptotic(a, one);
        let is_near = self.cmp(FloatCC::Olt, a, SERIES_LIMIT);
        let r = self.b.select(is_near, near, far);
        if one {
            self.copysign(r, x)
        } else {
            r
        }
    }

    /// The power series at `t = th + tl = a²/4` (`tl` exact by `fma`):
    /// `I0 = P0(th) + P0'(th)·tl` with `P0' = P1` (the series of
    /// `I1(a)/(a/2)`), and `I1 = (a/2)·(P1(th) + P1'(th)·tl)` with
    /// `P1' = (P0 - P1)/t` (only its first few bits matter: the term is
    /// a rounding error's size).
    fn bessel_i_series(&mut self, a: Value, one: bool) -> Value {
        let sq = self.b.fmul(a, a);
        let nsq = self.neg(sq);
        let err = self.b.fma(a, a, nsq);
        let quarter = self.d(0.25);
        let th = self.b.fmul(sq, quarter);
        let tl = self.b.fmul(err, quarter);
        let p0 = self.horner(&I0_SERIES, th);
        let p1 = self.horner(&I1_SERIES, th);
        if !one {
            return self.b.fma(p1, tl, p0);
        }
        // `t` tiny: `p0 = p1 = 1` and the slope's term is 0, not 0/0.
        let floor = self.d(f64::MIN_POSITIVE);
        let t = self.b.binary(Opcode::Fmax, th, floor);
        let diff = self.sub(p0, p1);
        let slope = self.b.binary(Opcode::Fdiv, diff, t);
        let p = self.b.fma(slope, tl, p1);
        let half = self.d(0.5);
        let h = self.b.fmul(a, half);
        self.b.fmul(h, p)
    }

    /// `e^a/sqrt(2πa)·S(1/a)`: `a = k·ln2 + r` (`exp`'s reduction),
    /// `e^r·S` by one `fma` on `expm1(r)`, `1/sqrt(2π)` in two parts, the
    /// division by `sqrt(a)`, and `2^k` last.
    fn bessel_i_asymptotic(&mut self, a: Value, one: bool) -> Value {
        let big = self.cmp(FloatCC::Ogt, a, OVERFLOW_CLAMP);
        let clamp = self.d(OVERFLOW_CLAMP);
        let a = self.b.select(big, clamp, a);
        let unit = self.d(1.0);
        let u = self.b.binary(Opcode::Fdiv, unit, a);
        let coeffs: &[f64] = if one { &I1_ASYMPTOTIC } else { &I0_ASYMPTOTIC };
        let s = self.horner(coeffs, u);
        let ExpParts { k, r } = self.exp_reduce(a, false);
        let em1 = self.expm1_poly(r);
        let m = self.b.fma(em1, s, s);
        let lo = self.d(INV_SQRT_2PI_LO);
        let small = self.b.fmul(m, lo);
        let hi = self.d(INV_SQRT_2PI_HI);
        let m = self.b.fma(m, hi, small);
        let root = self.b.unary(Opcode::Sqrt, a);
        let q = self.b.binary(Opcode::Fdiv, m, root);
        self.scale(q, k)
    }
}
