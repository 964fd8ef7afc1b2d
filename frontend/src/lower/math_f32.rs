//! Single-precision functions computed natively in `f32`: `tanhf`,
//! `expm1f`, `log1pf`, `atanf`, `atan2f`, `asinf`, `acosf`, `sinhf`,
//! `coshf`, `log10f`, `hypotf`, `exp10f`, `cbrtf` and `rcbrtf`. (The other `float` functions of
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
use midend::ir::{FloatCC, IntCC, Opcode, Type, Value};

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
pub(super) const EXPM1_Q: [f32; 6] = [
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

/// `asin t = t + t³·S(t²)` on `[0, 9/16]` (relative error 2^-29.0).
const ASIN_S: [f32; 6] = [
    0.166_666_31,
    0.075_021_13,
    0.044_230_297,
    0.034_021_344,
    0.006_714_943,
    0.047_511_287,
];

/// `sinh x = x + x³·H(x²)` on `|x| < 1` (relative error 2^-34.2).
const SINH_H: [f32; 4] = [0.166_666_67, 0.008_333_35, 0.000_198_361_6, 2.816_951_6e-6];

/// `log10(1 + f) = f·LOG10E_HI + f·Q(f)` on the interval of `LOG1P_R`
/// (relative error 2^-27.8); `Q(0)` is the part of `log10 e` that
/// `LOG10E_HI` dropped.
const LOG10_Q: [f32; 10] = [
    -1.010_219_6e-8,
    -0.217_147_19,
    0.144_764_78,
    -0.108_580_8,
    0.086_868_27,
    -0.072_125_055,
    0.061_569_467,
    -0.057_555_72,
    0.056_207_58,
    -0.033_200_94,
];

/// `log10(e)` and `log10(2)` rounded to `f32`, and the part of `log10(2)`
/// that the rounding dropped.
const LOG10E_HI: f32 = std::f32::consts::LOG10_E;
const LOG10_2_HI: f32 = std::f32::consts::LOG10_2;
const LOG10_2_LO: f32 = -1.432_098_9e-8;

/// `π/2` rounded to `f32`, and the part that the rounding dropped.
const PIO2: f32 = 1.570_796_4;
const PIO2_LO: f32 = -4.371_139e-8;

/// `log2(e)` and `ln 2` rounded to `f32`, and the part of `ln 2` that the
/// rounding dropped.
pub(super) const LOG2E: f32 = std::f32::consts::LOG2_E;
pub(super) const LN2: f32 = std::f32::consts::LN_2;
pub(super) const LN2_LO: f32 = -1.904_654_2e-9;

/// The bits of `√½` rounded to `f32`: `log1pf` splits `1 + x` into
/// `2^k·m` with `m` in `[√½, √2)` by subtracting them.
const SQRT_HALF_BITS: i64 = 0x3f35_04f3;

/// `log2(10)` rounded to `f32`, and the part that the rounding dropped.
const LOG2_10_HI: f32 = std::f32::consts::LOG2_10;
const LOG2_10_LO: f32 = 7.059_537e-8;

impl FunctionLowerer<'_, '_> {
    pub(super) fn c32(&mut self, v: f32) -> Value {
        self.b.fconst(Type::F32, f64::from(v))
    }

    pub(super) fn i32c(&mut self, v: i64) -> Value {
        self.b.iconst(Type::I32, v)
    }

    /// `x` clamped to `[lo, hi]` by comparisons, so that NaN passes
    /// through (`fmin`/`fmax` would turn it into a bound).
    pub(super) fn clamp32(&mut self, x: Value, lo: f32, hi: f32) -> Value {
        let x = self.at_most32(x, hi);
        let l = self.c32(lo);
        let under = self.b.fcmp(FloatCC::Olt, x, l);
        self.b.select(under, l, x)
    }

    /// `x`, or `hi` where `x` is above it; NaN passes through.
    pub(super) fn at_most32(&mut self, x: Value, hi: f32) -> Value {
        let h = self.c32(hi);
        let over = self.b.fcmp(FloatCC::Ogt, x, h);
        self.b.select(over, h, x)
    }

    /// `c[0] + c[1]·s + ...` by Horner's rule with `fma`.
    pub(super) fn horner32(&mut self, c: &[f32], s: Value) -> Value {
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
        // `arg >= 0`: `e >= 1`, and a subnormal `arg` gives 1 either way,
        // so the `.ftz` form changes nothing and spares the fix-up.
        let e = self.b.unary(Opcode::Ex2Ftz, arg);
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
        let xc = self.clamp32(x, -40.0, 88.8);

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
        let at = self.atan_unit(t);
        let lo = self.c32(PIO2_LO);
        let d = self.b.binary(Opcode::Fsub, lo, at);
        let hi = self.c32(PIO2);
        let far = self.b.fadd(d, hi);
        let mag = self.b.select(big, far, at);
        self.copysign(mag, x)
    }

    /// `atan t = t + t³·A(t²)` for `t` in `[0, 1]`.
    fn atan_unit(&mut self, t: Value) -> Value {
        let s = self.b.fmul(t, t);
        let p = self.horner32(&ATAN_A, s);
        let ts = self.b.fmul(t, s);
        self.b.fma(ts, p, t)
    }

    /// `atan2f(y, x)`: `t = min/max` of `|x|`, `|y|` by the correctly
    /// rounded division (so `t` is within half an ulp), `a = atan t` by
    /// the `atanf` polynomial, then by the octant `a`, `π/2 - a`,
    /// `π - a` or `π/2 + a`: `k·π/2 ± a` with `k` in {0, 1, 2} and `π/2`
    /// in two parts (two `fma`; `k = 0` leaves `a` exact). The sign of `y`
    /// is put back at the end. Where both operands are zeros or both
    /// infinities the quotient is NaN; `t` is then 0 or 1, which gives
    /// C's `±0`, `±π`, `±π/4` and `±3π/4` (a negative `x`, `-0` included,
    /// is told by its sign bit). NaN operands give NaN.
    pub(super) fn atan2_f32(&mut self, y: Value, x: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let ay = self.b.unary(Opcode::Fabs, y);
        let swap = self.b.fcmp(FloatCC::Ogt, ay, ax);
        let mx = self.b.select(swap, ay, ax);
        let mn = self.b.select(swap, ax, ay);
        let q = self.b.binary(Opcode::Fdiv, mn, mx);
        let same = self.b.fcmp(FloatCC::Oeq, ax, ay);
        let zero = self.c32(0.0);
        let zeros = self.b.fcmp(FloatCC::Oeq, ax, zero);
        let one = self.c32(1.0);
        let tq = self.b.select(zeros, zero, one);
        let t = self.b.select(same, tq, q);
        let a = self.atan_unit(t);

        let xb = self.b.convert(Opcode::Bitcast, Type::I32, x);
        let zb = self.i32c(0);
        let neg = self.b.icmp(IntCC::Slt, xb, zb);
        let flip = self.b.binary(Opcode::Bxor, swap, neg);
        let na = self.b.unary(Opcode::Fneg, a);
        let sa = self.b.select(flip, na, a);
        let two = self.c32(2.0);
        let k = self.b.select(neg, two, zero);
        let k = self.b.select(swap, one, k);
        let lo = self.c32(PIO2_LO);
        let lo = self.b.fma(k, lo, sa);
        let hi = self.c32(PIO2);
        let mag = self.b.fma(k, hi, lo);
        self.copysign(mag, y)
    }

    /// The common part of `asinf` and `acosf`: with `a = |x|`, `r` close
    /// to `asin t` (an unrounded sum `t + tail`, see below) and whether
    /// `a` is above 9/16.
    ///
    /// Up to 9/16, `t = a` and `asin t = t + t³·S(t²)`. Above,
    /// `asin a = π/2 - 2·asin t` with `t = sqrt(z)`, `z = (1 - a)/2`
    /// (one exact `fma`), and `t < sqrt(7/32)`, so `asin t < 1/2`. `t`
    /// comes from the approximate `rsqrt`: `t = z·y`, and the part it
    /// misses, `(z - t²)·y/2` (the residual exact by `fma`), joins the
    /// polynomial's term, so neither the rounding of the square root nor
    /// the error of `rsqrt` (near 2^-23 on a GPU) reaches the result
    /// doubled. `rsqrt` takes `z + 2^-60`, which is `z` except at `z = 0`
    /// (`a = 1`, where `rsqrt(0) = inf` would make `t` NaN); a negative
    /// `z` (`a > 1`) and NaN give NaN.
    fn asin_core(&mut self, x: Value) -> (Value, Value) {
        let a = self.b.unary(Opcode::Fabs, x);
        let m_half = self.c32(-0.5);
        let half = self.c32(0.5);
        let zb = self.b.fma(a, m_half, half);
        let tiny = self.c32(2f32.powi(-60));
        let zg = self.b.fadd(zb, tiny);
        // `zg >= 2^-60`: neither it nor its `rsqrt` is subnormal.
        let y = self.b.unary(Opcode::RsqrtFtz, zg);
        let s0 = self.b.fmul(zb, y);
        let ns0 = self.b.unary(Opcode::Fneg, s0);
        let e = self.b.fma(ns0, s0, zb);
        let hy = self.b.fmul(y, half);
        let c = self.b.fmul(e, hy);

        let limit = self.c32(0.5625);
        let big = self.b.fcmp(FloatCC::Ogt, a, limit);
        let aa = self.b.fmul(a, a);
        let z = self.b.select(big, zb, aa);
        let t = self.b.select(big, s0, a);
        let zero = self.c32(0.0);
        let c = self.b.select(big, c, zero);
        let p = self.horner32(&ASIN_S, z);
        let tz = self.b.fmul(t, z);
        let tail = self.b.fma(tz, p, c);
        let r = self.b.fadd(t, tail);
        (r, big)
    }

    /// `asinf`: `r` (see [`Self::asin_core`]) up to 9/16, else
    /// `(π/2)_lo - 2r + (π/2)_hi`; the sign of `x` at the end.
    pub(super) fn asin_f32(&mut self, x: Value) -> Value {
        let (r, big) = self.asin_core(x);
        let m_two = self.c32(-2.0);
        let lo = self.c32(PIO2_LO);
        let d = self.b.fma(r, m_two, lo);
        let hi = self.c32(PIO2);
        let far = self.b.fadd(d, hi);
        let mag = self.b.select(big, far, r);
        self.copysign(mag, x)
    }

    /// `acosf`: `π/2 - asin x` up to 9/16 (`π/2` in two parts), else
    /// `2r` for a positive `x` and `π - 2r` for a negative one, all as
    /// `fma(k, r, lo) + hi`.
    pub(super) fn acos_f32(&mut self, x: Value) -> Value {
        let (r, big) = self.asin_core(x);
        let xb = self.b.convert(Opcode::Bitcast, Type::I32, x);
        let zb = self.i32c(0);
        let neg = self.b.icmp(IntCC::Slt, xb, zb);
        let one = self.c32(1.0);
        let m_one = self.c32(-1.0);
        let two = self.c32(2.0);
        let m_two = self.c32(-2.0);
        let zero = self.c32(0.0);
        let near_k = self.b.select(neg, one, m_one);
        let far_k = self.b.select(neg, m_two, two);
        let k = self.b.select(big, far_k, near_k);
        let pi_lo = self.c32(2.0 * PIO2_LO);
        let far_lo = self.b.select(neg, pi_lo, zero);
        let pio2_lo = self.c32(PIO2_LO);
        let lo = self.b.select(big, far_lo, pio2_lo);
        let pi = self.c32(2.0 * PIO2);
        let far_hi = self.b.select(neg, pi, zero);
        let pio2 = self.c32(PIO2);
        let hi = self.b.select(big, far_hi, pio2);
        let d = self.b.fma(k, r, lo);
        self.b.fadd(d, hi)
    }

    /// `H = e^a/4` for `a` in `[0, 89.5]`: the reduction of `expm1f`
    /// (`r = a - j·ln 2` in two `fma`) with `j` the nearest integer to
    /// `a·log2 e`, found by adding `1.5·2^23` in the `fma` that forms the
    /// product (its rounding drops the fraction), `p = e^r - 1` by the
    /// polynomial of `expm1f`, and `H = t + t·p` with `t = 2^(j-2)` from
    /// the bits (finite up to `j = 129`).
    fn exp_quarter(&mut self, a: Value) -> Value {
        let l2e = self.c32(LOG2E);
        let shift = self.c32(1.5 * 2f32.powi(23));
        let js = self.b.fma(a, l2e, shift);
        let j = self.b.binary(Opcode::Fsub, js, shift);
        let nj = self.b.unary(Opcode::Fneg, j);
        let ln2 = self.c32(LN2);
        let r = self.b.fma(nj, ln2, a);
        let ln2_lo = self.c32(LN2_LO);
        let r = self.b.fma(nj, ln2_lo, r);
        let q = self.horner32(&EXPM1_Q, r);
        let rr = self.b.fmul(r, r);
        let p = self.b.fma(rr, q, r);
        // The low bits of `js` hold `j` (plus 2^22, which the shift
        // drops).
        let jb = self.b.convert(Opcode::Bitcast, Type::I32, js);
        let sh = self.i32c(23);
        let jt = self.b.binary(Opcode::Ishl, jb, sh);
        let bias = self.i32c(125 << 23);
        let tb = self.b.iadd(jt, bias);
        let t = self.b.convert(Opcode::Bitcast, Type::F32, tb);
        self.b.fma(t, p, t)
    }

    /// `|x|` clamped to 89.5 (past it `sinh` and `cosh` overflow; NaN
    /// passes) and `e^|x|/4` of it.
    fn exp_quarter_abs(&mut self, x: Value) -> (Value, Value) {
        let a = self.b.unary(Opcode::Fabs, x);
        let ac = self.at_most32(a, 89.5);
        (a, self.exp_quarter(ac))
    }

    /// `coshf`: `(e^a + e^-a)/2 = 2H + 1/(8H)` with `H = e^a/4`
    /// ([`Self::exp_quarter`]), one `fma` on the approximate division;
    /// the two terms have one sign, and the second is at most half the
    /// first, so the division's error (relative, near 2^-23 on a GPU)
    /// costs at most a quarter of an ulp. `2H` is exact inside the `fma`,
    /// which overflows to `inf` exactly when the result does.
    pub(super) fn cosh_f32(&mut self, x: Value) -> Value {
        let (_, h) = self.exp_quarter_abs(x);
        let c = self.c32(0.125);
        let q = self.b.binary(Opcode::FdivApprox, c, h);
        let two = self.c32(2.0);
        self.b.fma(h, two, q)
    }

    /// `sinhf`: `x + x³·H(x²)` for `|x| < 1`, else `2H - 1/(8H)` as in
    /// `coshf` (at `|x| = 1` the subtracted term is a sixth of the
    /// result). The sign of `x` is put back at the end.
    pub(super) fn sinh_f32(&mut self, x: Value) -> Value {
        let (a, h) = self.exp_quarter_abs(x);
        let c = self.c32(-0.125);
        let q = self.b.binary(Opcode::FdivApprox, c, h);
        let two = self.c32(2.0);
        let large = self.b.fma(h, two, q);

        let aa = self.b.fmul(a, a);
        let p = self.horner32(&SINH_H, aa);
        let a3 = self.b.fmul(a, aa);
        let poly = self.b.fma(a3, p, a);
        let one = self.c32(1.0);
        let small = self.b.fcmp(FloatCC::Olt, a, one);
        let mag = self.b.select(small, poly, large);
        self.copysign(mag, x)
    }

    /// `log10f`: `x = 2^k·m` with `m` in `[√½, √2)` from the bits (a
    /// subnormal `x` is first scaled by 2^23), `f = m - 1` (exact), and
    /// `log10 x = k·log10(2) + f·LOG10E_HI + f·Q(f)`: both constants in
    /// two parts, the large products inside `fma`, so only the last two
    /// additions round. C's special cases by `select`: `±0` gives `-inf`,
    /// a negative `x` NaN, `+inf` itself.
    pub(super) fn log10_f32(&mut self, x: Value) -> Value {
        let min_normal = self.c32(f32::MIN_POSITIVE);
        let sub = self.b.fcmp(FloatCC::Olt, x, min_normal);
        let up = self.c32(2f32.powi(23));
        let xu = self.b.fmul(x, up);
        let xs = self.b.select(sub, xu, x);
        let xb = self.b.convert(Opcode::Bitcast, Type::I32, xs);
        let sq = self.i32c(SQRT_HALF_BITS);
        let ub = self.b.isub(xb, sq);
        let sh = self.i32c(23);
        let k = self.b.binary(Opcode::Sshr, ub, sh);
        let mmask = self.i32c(0x007f_ffff);
        let mb = self.b.binary(Opcode::Band, ub, mmask);
        let mb = self.b.iadd(mb, sq);
        let m = self.b.convert(Opcode::Bitcast, Type::F32, mb);
        let one = self.c32(1.0);
        let f = self.b.binary(Opcode::Fsub, m, one);
        let kf = self.b.convert(Opcode::Sitofp, Type::F32, k);
        let k23 = self.c32(23.0);
        let kd = self.b.binary(Opcode::Fsub, kf, k23);
        let kf = self.b.select(sub, kd, kf);

        let q = self.horner32(&LOG10_Q, f);
        let fq = self.b.fmul(f, q);
        let lo = self.c32(LOG10_2_LO);
        let c1 = self.b.fma(kf, lo, fq);
        let l10e = self.c32(LOG10E_HI);
        let c2 = self.b.fma(f, l10e, c1);
        let hi = self.c32(LOG10_2_HI);
        let core = self.b.fma(kf, hi, c2);

        let zero = self.c32(0.0);
        let pos = self.b.fcmp(FloatCC::Ogt, x, zero);
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let ninf = self.c32(f32::NEG_INFINITY);
        let nan = self.canonical_nan(Type::F32);
        let bad = self.b.select(is_zero, ninf, nan);
        let r = self.b.select(pos, core, bad);
        let inf = self.c32(f32::INFINITY);
        let is_inf = self.b.fcmp(FloatCC::Oeq, x, inf);
        self.b.select(is_inf, x, r)
    }

    /// `hypotf`: with `M` the larger of `|x|`, `|y|` and `E` its biased
    /// exponent (at least 1), both are scaled by `2^(128-E)` (exact; `M`
    /// lands in `[2, 4)`, below 2 for a subnormal), `sqrt(fma(m, m, n·n))`
    /// is scaled back by `2^(E-127)/2` (exact unless the result is
    /// subnormal): no overflow or underflow in between, and two roundings
    /// before the square root's. A NaN operand reaches the scaling and
    /// gives NaN; an infinite one gives `+inf`, NaN or not (C's rule).
    pub(super) fn hypot_f32(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let ay = self.b.unary(Opcode::Fabs, y);
        let gt = self.b.fcmp(FloatCC::Ogt, ax, ay);
        let mx = self.b.select(gt, ax, ay);
        let mn = self.b.select(gt, ay, ax);
        let mb = self.b.convert(Opcode::Bitcast, Type::I32, mx);
        let emask = self.i32c(0x7f80_0000);
        let eb = self.b.binary(Opcode::Band, mb, emask);
        let least = self.i32c(0x0080_0000);
        let eb = self.b.binary(Opcode::Smax, eb, least);
        let sb = self.b.isub(emask, eb);
        let scale = self.b.convert(Opcode::Bitcast, Type::F32, sb);
        let back = self.b.convert(Opcode::Bitcast, Type::F32, eb);
        let m = self.b.fmul(mx, scale);
        let n = self.b.fmul(mn, scale);
        let nn = self.b.fmul(n, n);
        let ss = self.b.fma(m, m, nn);
        let r = self.b.unary(Opcode::Sqrt, ss);
        let half = self.c32(0.5);
        let r = self.b.fmul(r, half);
        let res = self.b.fmul(r, back);
        let most = self.b.binary(Opcode::Fmax, ax, ay);
        let inf = self.c32(f32::INFINITY);
        let is_inf = self.b.fcmp(FloatCC::Oeq, most, inf);
        self.b.select(is_inf, most, res)
    }

    /// `exp10f = 2^(x·log2 10)` by [`Self::exp2_of_product`].
    pub(super) fn exp10_f32(&mut self, x: Value) -> Value {
        self.exp2_of_product(x, LOG2_10_HI, LOG2_10_LO)
    }

    /// `2^(x·(hi + lo))`, the body of `expf` and `exp10f` (`hi + lo` is
    /// `log2 e` or `log2 10` in two parts). `n = nearest(-x·hi)`, clamped
    /// to `[-127, 126]`, is minus the integer part; `r = fma(x, hi, n) +
    /// x·lo` is the rest (the product is exact in the `fma`, so `r` has
    /// one rounding, and `|r| <= 1/2` while the result is a normal
    /// float), and the result is `2^r · 2^-n` with `2^-n` built from its
    /// exponent bits `(127 - n) << 23` (one `mad`). Multiplying by a power of two is
    /// exact unless the result is subnormal, so the error is that of one
    /// `ex2` of a small argument: on a GPU `ex2.approx` brings its own,
    /// once (an `ex2` of the whole product and another of its rounding
    /// error, the earlier form, measured 3 ulp on an H200). Outside the
    /// clamp `r` grows and `2^r` carries the result to `inf` or into the
    /// subnormals (one rounding there); `±inf` give `inf` and `0` through
    /// `r`, and NaN (which `fmax` and `fmin` replace by a bound) gives NaN
    /// through `r`.
    pub(super) fn exp2_of_product(&mut self, x: Value, hi: f32, lo: f32) -> Value {
        let minus_hi = self.c32(-hi);
        let scaled = self.b.fmul(x, minus_hi);
        let n = self.b.unary(Opcode::Nearest, scaled);
        let floor = self.c32(-127.0);
        let n = self.b.binary(Opcode::Fmax, n, floor);
        let ceiling = self.c32(126.0);
        let n = self.b.binary(Opcode::Fmin, n, ceiling);
        let hi = self.c32(hi);
        let r = self.b.fma(x, hi, n);
        let lo = self.c32(lo);
        let r = self.b.fma(x, lo, r);
        // `r` is small except outside the clamp, where the product with the
        // scale is 0 or `inf` whether `2^r` is flushed or not: `.ftz`.
        let small = self.b.unary(Opcode::Ex2Ftz, r);
        let ni = self.b.convert(Opcode::Fptosi, Type::I32, n);
        // `(127 - n) << 23` as one multiply-add.
        let step = self.i32c(-(1 << 23));
        let shifted = self.b.imul(ni, step);
        let bias = self.i32c(127 << 23);
        let bits = self.b.iadd(shifted, bias);
        let scale = self.b.convert(Opcode::Bitcast, Type::F32, bits);
        self.b.fmul(small, scale)
    }

    /// `cbrtf`: with `a = |x|`, `z = 2^(-2·log2(a)/3)` by `lg2` and `ex2`
    /// (relative error near 2^-19 on a GPU; `lg2` takes subnormals, and
    /// `z` stays finite from `2^-149` to `2^128`), `Y = a·z` (close to
    /// the root) kept exactly as `y + yl` by `fma`, and one Newton step
    /// `Y + Y·e/3` with `e = 1 - Y³/a = 1 - Y²·z`. With `u + ul = y·z`
    /// exact, `e = 1 - y·u - y·ul - 2·yl·u` up to terms near 2^-48, and
    /// `y·u` is near 1, so `fma(-y, u, 1)` rounds a small value; the
    /// `yl` terms fold into the step: `Y·(1 + e/3) = y + (e'·y + yl)/3`
    /// with `e'` the rest of `e`. The result is the rounding of a value
    /// within about 2^-38 of the cube root. Where `x + x == x` (`±0`,
    /// `±inf`) the result is `x`; NaN gives NaN.
    pub(super) fn cbrt_f32(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let l = self.b.unary(Opcode::Lg2, a);
        let m_two_thirds = self.c32(-2.0 / 3.0);
        let l3 = self.b.fmul(l, m_two_thirds);
        // `l3` is in [-86, 100] (or infinite): `z` is never subnormal.
        let z = self.b.unary(Opcode::Ex2Ftz, l3);
        let y = self.b.fmul(a, z);
        let ny = self.b.unary(Opcode::Fneg, y);
        let yl = self.b.fma(a, z, ny);
        let u = self.b.fmul(y, z);
        let nu = self.b.unary(Opcode::Fneg, u);
        let ul = self.b.fma(y, z, nu);
        let one = self.c32(1.0);
        let e = self.b.fma(ny, u, one);
        let e = self.b.fma(ny, ul, e);
        let q = self.b.fma(e, y, yl);
        let third = self.c32(1.0 / 3.0);
        let y1 = self.b.fma(q, third, y);
        let sum = self.b.fadd(x, x);
        let special = self.b.fcmp(FloatCC::Oeq, sum, x);
        let mag = self.b.select(special, a, y1);
        self.copysign(mag, x)
    }

    /// `rcbrtf`: `z = 2^(-log2(a)/3)` for `a = |x|`, then one Newton step
    /// `z + z·e/3` with `e = 1 - a·z³`: `w + wl = a·z` and `t + tl = z²`
    /// exactly by `fma`, so `e = 1 - w·t - wl·t - w·tl` up to terms near
    /// 2^-48, the first `fma` rounding a small value (`w·t` is near 1),
    /// and the step ends in one `fma`. For `±0` and `±inf` (`x + x == x`)
    /// `z` itself is `inf` or 0; the sign of `x` is put back at the end.
    pub(super) fn rcbrt_f32(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let l = self.b.unary(Opcode::Lg2, a);
        let m_third = self.c32(-1.0 / 3.0);
        let l3 = self.b.fmul(l, m_third);
        // `l3` is in [-43, 50] (or infinite): `z` is never subnormal.
        let z = self.b.unary(Opcode::Ex2Ftz, l3);
        let w = self.b.fmul(a, z);
        let nw = self.b.unary(Opcode::Fneg, w);
        let wl = self.b.fma(a, z, nw);
        let t = self.b.fmul(z, z);
        let nt = self.b.unary(Opcode::Fneg, t);
        let tl = self.b.fma(z, z, nt);
        let one = self.c32(1.0);
        let e = self.b.fma(nw, t, one);
        let nwl = self.b.unary(Opcode::Fneg, wl);
        let e = self.b.fma(nwl, t, e);
        let e = self.b.fma(nw, tl, e);
        let third = self.c32(1.0 / 3.0);
        let zt = self.b.fmul(z, third);
        let z1 = self.b.fma(zt, e, z);
        let sum = self.b.fadd(x, x);
        let special = self.b.fcmp(FloatCC::Oeq, sum, x);
        let mag = self.b.select(special, z, z1);
        self.copysign(mag, x)
    }
}
