//! Single-precision functions computed natively in `f32`: `tanhf`,
//! `expm1f`, `log1pf` and `atanf`. (The other `float` functions of
//! `math_f64_ext.rs` still go through `double`; see `math.rs`.)
//!
//! Each one reduces its argument with exact `f32` steps and evaluates a
//! short polynomial with `fma`. The coefficients are weighted minimax fits
//! (relative error of the final result) that
//! `scripts/math_f32_fits.py` computes with mpmath and rounds to `f32`;
//! it prints the constants below. docs/math.md gives each method and the
//! error measured by `tests/math_more.rs`.

use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, Opcode, Type, Value};

/// `tanh x = x + x³·P(x²)` on `|x| < 1` (relative error 2^-27.7).
const TANH_P: [f32; 7] = [
    -0.333_332_96,
    0.133_323_45,
    -0.053_879_797,
    0.021_486_644,
    -0.007_946_085,
    0.002_301_349,
    -0.000_358_447_58,
];

/// `e^r - 1 = r + r²·Q(r)` on `|r| <= ln2/2` (relative error 2^-31.9).
const EXPM1_Q: [f32; 6] = [
    0.5,
    0.166_666_66,
    0.041_666_348,
    0.008_333_392,
    0.001_394_165_3,
    0.000_198_459_69,
];

/// `log(1 + f) = f + f²·R(f)` on `f` in `[√½ - 1, √2 - 1]` (relative
/// error 2^-27.8).
const LOG1P_R: [f32; 9] = [
    -0.499_999_88,
    0.333_333_22,
    -0.250_016_54,
    0.200_021_58,
    -0.166_074_07,
    0.141_769_11,
    -0.132_527_2,
    0.129_421_9,
    -0.076_446_47,
];

/// `atan t = t + t³·A(t²)` on `[0, 1]` (relative error 2^-25.8).
const ATAN_A: [f32; 8] = [
    -0.333_331_53,
    0.199_937_72,
    -0.142_110_48,
    0.106_659_755,
    -0.075_521_52,
    0.043_211_12,
    -0.016_367_469,
    0.002_920_577_3,
];

/// `π/2` rounded to `f32`, and the part that the rounding dropped.
const PIO2: f32 = 1.570_796_4;
const PIO2_LO: f32 = -4.371_139e-8;

/// `log2(e)` and `ln 2` rounded to `f32`, and the part of `ln 2` that the
/// rounding dropped.
const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_2e-9;

/// The bits of `√½` rounded to `f32`: `log1pf` splits `1 + x` into
/// `2^k·m` with `m` in `[√½, √2)` by subtracting them.
const SQRT_HALF_BITS: i64 = 0x3f35_04f3;

impl FunctionLowerer<'_, '_> {
    fn c32(&mut self, v: f32) -> Value {
        self.b.fconst(Type::F32, f64::from(v))
    }

    fn i32c(&mut self, v: i64) -> Value {
        self.b.iconst(Type::I32, v)
    }

    /// `c[0] + c[1]·s + ...` by Horner's rule with `fma`.
    fn horner32(&mut self, c: &[f32], s: Value) -> Value {
        let mut acc = self.c32(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let k = self.c32(k);
            acc = self.b.fma(acc, s, k);
        }
        acc
    }

    /// `tanhf`: `x + x³·P(x²)` for `|x| < 1`; above,
    /// `sign(x)·(1 - 2/(e^{2|x|} + 1))` with one `ex2` and the approximate
    /// division (`div.approx`, a reciprocal on the GPU). At `|x| = 1` the
    /// subtracted term is 0.24, so the errors of `ex2` and of the division
    /// (relative, near 2^-23 each on a GPU) cost at most about half an ulp
    /// of the result. `e` overflows to `inf` for large `|x|`, giving ±1.
    pub(super) fn tanh_f32(&mut self, x: Value) -> Value {
        // Both branches on `|x|`, the sign put back once at the end (an
        // odd polynomial on `x` would turn `-0` into `+0`).
        let a = self.b.unary(Opcode::Fabs, x);
        let s = self.b.fmul(a, a);
        let p = self.horner32(&TANH_P, s);
        let as_ = self.b.fmul(a, s);
        let poly = self.b.fma(as_, p, a);

        let k = self.c32(2.0 * LOG2E);
        let arg = self.b.fmul(a, k);
        let e = self.b.unary(Opcode::Ex2, arg);
        let one = self.c32(1.0);
        let e1 = self.b.fadd(e, one);
        let q = self.b.binary(Opcode::FdivApprox, one, e1);
        let minus_two = self.c32(-2.0);
        let large = self.b.fma(minus_two, q, one);

        let small = self.b.fcmp(FloatCC::Olt, a, one);
        let mag = self.b.select(small, poly, large);
        self.copysign(mag, x)
    }

    /// `expm1f`: `j = nearest(x·log2 e)`, `r = x - j·ln 2` (the first `fma`
    /// is exact, the second adds the low part of `ln 2`), `p = e^r - 1` by
    /// the polynomial, and `e^x - 1 = 2·(t·p + (t - 1/2))` with
    /// `t = 2^(j-1)` built from the bits (one `fma`; `t - 1/2` is exact
    /// up to `j = 24`, and past it the dropped `1/2` is below a quarter ulp
    /// of the result). Halving keeps `t` finite at `j = 128`, so the result
    /// overflows to `inf` only in the final doubling. `x` is clamped to
    /// `[-40, 88.8]` by comparisons (NaN passes through); below `|x| <
    /// 2^-25` the result is `x` itself (this keeps `-0` and subnormals).
    pub(super) fn expm1_f32(&mut self, x: Value) -> Value {
        let hi = self.c32(88.8);
        let over = self.b.fcmp(FloatCC::Ogt, x, hi);
        let xc = self.b.select(over, hi, x);
        let lo = self.c32(-40.0);
        let under = self.b.fcmp(FloatCC::Olt, xc, lo);
        let xc = self.b.select(under, lo, xc);

        let l2e = self.c32(LOG2E);
        let jx = self.b.fmul(xc, l2e);
        let j = self.b.unary(Opcode::Nearest, jx);
        let nj = self.b.unary(Opcode::Fneg, j);
        let ln2 = self.c32(LN2);
        let r = self.b.fma(nj, ln2, xc);
        let ln2_lo = self.c32(LN2_LO);
        let r = self.b.fma(nj, ln2_lo, r);
        let q = self.horner32(&EXPM1_Q, r);
        let rr = self.b.fmul(r, r);
        let p = self.b.fma(rr, q, r);

        let ji = self.b.convert(Opcode::Fptosi, Type::I32, j);
        let bias = self.i32c(126);
        let biased = self.b.iadd(ji, bias);
        let sh = self.i32c(23);
        let tb = self.b.binary(Opcode::Ishl, biased, sh);
        let t = self.b.convert(Opcode::Bitcast, Type::F32, tb);
        let half = self.c32(0.5);
        let tm = self.b.binary(Opcode::Fsub, t, half);
        let h = self.b.fma(t, p, tm);
        let res = self.b.fadd(h, h);

        let a = self.b.unary(Opcode::Fabs, x);
        let tiny = self.c32(2f32.powi(-25));
        let is_tiny = self.b.fcmp(FloatCC::Olt, a, tiny);
        self.b.select(is_tiny, x, res)
    }

    /// `log1pf`: `u = 1 + x` rounded gives `k` and the scale `s = 2^-k`
    /// from its bits, so that `2^-k·u` is in `[√½, √2)`. Then
    /// `f = (1 + x)·2^-k - 1 = fma(x, s, s - 1)` is exact (Sterbenz: the
    /// subtraction cancels to a value that fits; for `k > 24` the dropped
    /// `1` is negligible), so the rounding of `u` does not matter, and
    /// `log1p x = k·ln 2 + f + f²·R(f)`. Where `s` would leave the normal
    /// range (`u >= 2^125`), `f` is the mantissa of `u` minus 1 instead
    /// (there `1 + x` and `x` agree to far below an ulp of the result).
    /// C's special cases: `±0`, `+inf` give themselves, `-1` gives `-inf`,
    /// below `-1` (and NaN) NaN.
    pub(super) fn log1p_f32(&mut self, x: Value) -> Value {
        let one = self.c32(1.0);
        let u = self.b.fadd(x, one);
        let ubits = self.b.convert(Opcode::Bitcast, Type::I32, u);
        let sq = self.i32c(SQRT_HALF_BITS);
        let ub = self.b.isub(ubits, sq);
        let emask = self.i32c(0xff80_0000u32 as i32 as i64);
        let kbits = self.b.binary(Opcode::Band, ub, emask);
        let one_bits = self.i32c(0x3f80_0000);
        let sb = self.b.isub(one_bits, kbits);
        let s = self.b.convert(Opcode::Bitcast, Type::F32, sb);
        let sm1 = self.b.binary(Opcode::Fsub, s, one);
        let f_exact = self.b.fma(x, s, sm1);
        let mmask = self.i32c(0x007f_ffff);
        let mb = self.b.binary(Opcode::Band, ub, mmask);
        let mb = self.b.iadd(mb, sq);
        let m = self.b.convert(Opcode::Bitcast, Type::F32, mb);
        let f_big = self.b.binary(Opcode::Fsub, m, one);
        let big_limit = self.c32(2f32.powi(125));
        let big = self.b.fcmp(FloatCC::Oge, u, big_limit);
        let f = self.b.select(big, f_big, f_exact);

        let sh = self.i32c(23);
        let k = self.b.binary(Opcode::Sshr, ub, sh);
        let kf = self.b.convert(Opcode::Sitofp, Type::F32, k);
        let r = self.horner32(&LOG1P_R, f);
        let ff = self.b.fmul(f, f);
        let p = self.b.fma(ff, r, f);
        let ln2_lo = self.c32(LN2_LO);
        let lo = self.b.fma(kf, ln2_lo, p);
        let ln2 = self.c32(LN2);
        let core = self.b.fma(kf, ln2, lo);

        let zero = self.c32(0.0);
        let pos = self.b.fcmp(FloatCC::Ogt, u, zero);
        let at_minus_one = self.b.fcmp(FloatCC::Oeq, u, zero);
        let ninf = self.c32(f32::NEG_INFINITY);
        let nan = self.canonical_nan(Type::F32);
        let bad = self.b.select(at_minus_one, ninf, nan);
        let r = self.b.select(pos, core, bad);
        let x_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let inf = self.c32(f32::INFINITY);
        let x_inf = self.b.fcmp(FloatCC::Oeq, x, inf);
        let keep = self.b.binary(Opcode::Bor, x_zero, x_inf);
        self.b.select(keep, x, r)
    }

    /// `atanf`: on `a = |x|`, `t = a` up to 1 and `t = 1/a` above, where
    /// `atan a = π/2 - atan t`. `1/a` is the approximate reciprocal
    /// refined by one Newton step (`e = 1 - a·r`, `r + r·e`, both `fma`),
    /// which leaves it within about half an ulp, so its error reaches the
    /// result attenuated. `atan t = t + t³·A(t²)`; `π/2` is added in two
    /// parts. `a` is clamped to 2^60 before the reciprocal (`atan` is
    /// `π/2` in `float` long before, and `inf` would make the Newton step
    /// NaN); NaN takes the `t = a` branch. The sign of `x` is put back at
    /// the end (`atan(-0) = -0`).
    pub(super) fn atan_f32(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let one = self.c32(1.0);
        let cap = self.c32(2f32.powi(60));
        let ac = self.b.binary(Opcode::Fmin, a, cap);
        let r0 = self.b.binary(Opcode::FdivApprox, one, ac);
        let nac = self.b.unary(Opcode::Fneg, ac);
        let e = self.b.fma(nac, r0, one);
        let r = self.b.fma(r0, e, r0);
        let big = self.b.fcmp(FloatCC::Ogt, a, one);
        let t = self.b.select(big, r, a);

        let s = self.b.fmul(t, t);
        let p = self.horner32(&ATAN_A, s);
        let ts = self.b.fmul(t, s);
        let at = self.b.fma(ts, p, t);
        let lo = self.c32(PIO2_LO);
        let d = self.b.binary(Opcode::Fsub, lo, at);
        let hi = self.c32(PIO2);
        let far = self.b.fadd(d, hi);
        let mag = self.b.select(big, far, at);
        self.copysign(mag, x)
    }
}
