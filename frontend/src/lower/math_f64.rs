//! The double-precision math library: `exp`, `exp2`, `log`, `log2`, `pow`,
//! `sin`, `cos`, `tanh` and `rsqrt` on `double`, built from correctly
//! rounded IR instructions (`fma`, `fmul`, `fdiv`, `nearest`, integer
//! operations on the bits). PTX has no `f64` transcendental instructions.
//!
//! Every function is expanded inline, without branches: special values
//! (NaN, infinities, zeros, subnormals) are handled by `select`s at the end.
//! The constants come from `math_f64_consts.rs`, which
//! `scripts/math_f64_constants.py` derives with exact arithmetic. The
//! methods and their measured accuracy are in docs/math.md; the test is
//! `tests/math_f64.rs`.

use super::math_f64_consts::*;
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, IntCC, Opcode, Type, Value};

/// `log`'s operand parts: `x = 2^e · m` with `m` in `[sqrt(1/2), sqrt(2))`.
struct LogParts {
    /// The exponent `e`, as a `double`.
    e: Value,
    /// `m`.
    m: Value,
    /// `f = m - 1`, exact.
    f: Value,
}

/// The largest `|x|` (exclusive) for which `sin` and `cos` reduce their
/// argument accurately (docs/math.md).
pub(super) const SIN_COS_LIMIT: f64 = 1_125_899_906_842_624.0; // 2^50

/// `exp`'s reduction: `x = k·ln2 + r` with `|r| <= ln2/2` (about).
struct ExpParts {
    /// `k` as an `i64`.
    k: Value,
    /// `r`.
    r: Value,
}

impl FunctionLowerer<'_, '_> {
    fn d(&mut self, v: f64) -> Value {
        self.b.fconst(Type::F64, v)
    }

    fn l(&mut self, v: i64) -> Value {
        self.b.iconst(Type::I64, v)
    }

    fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.binary(Opcode::Fsub, a, b)
    }

    fn neg(&mut self, a: Value) -> Value {
        self.b.unary(Opcode::Fneg, a)
    }

    fn cmp(&mut self, cc: FloatCC, a: Value, v: f64) -> Value {
        let c = self.d(v);
        self.b.fcmp(cc, a, c)
    }

    /// `c[0] + x·(c[1] + x·(c[2] + ...))` with `fma`.
    fn horner(&mut self, coeffs: &[f64], x: Value) -> Value {
        let (&last, rest) = coeffs.split_last().expect("a polynomial has a coefficient");
        let mut acc = self.d(last);
        for &c in rest.iter().rev() {
            let c = self.d(c);
            acc = self.b.fma(acc, x, c);
        }
        acc
    }

    /// `2^k` for an `i64` `k` in `[-1022, 1023]`, made from its bits.
    fn pow2i(&mut self, k: Value) -> Value {
        let bias = self.l(1023);
        let biased = self.b.iadd(k, bias);
        let shift = self.l(52);
        let bits = self.b.binary(Opcode::Ishl, biased, shift);
        self.b.convert(Opcode::Bitcast, Type::F64, bits)
    }

    /// `p · 2^k` for `k` in about `[-1100, 1100]`: two exact scalings by
    /// `2^(k/2)`, so that only the last one rounds (into the subnormals) or
    /// overflows.
    fn scale(&mut self, p: Value, k: Value) -> Value {
        let one = self.l(1);
        let k1 = self.b.binary(Opcode::Sshr, k, one);
        let k2 = self.b.isub(k, k1);
        let s1 = self.pow2i(k1);
        let s2 = self.pow2i(k2);
        let p = self.b.fmul(p, s1);
        self.b.fmul(p, s2)
    }

    /// NaN in, NaN out: `select(x is NaN, x, r)`.
    fn keep_nan(&mut self, x: Value, r: Value) -> Value {
        let nan = self.b.fcmp(FloatCC::Uno, x, x);
        self.b.select(nan, x, r)
    }

    /// `x = k·ln2 + r` for `x` in `[-746, 710]`, `k` the nearest integer
    /// to `x/ln2` (`|r| <= 0.35`) or, with `down`, the one below (`r` in
    /// `[0, 0.7)`). `k·LN2_HI` is exact (`LN2_HI` has 42 bits) and so is
    /// `x - k·LN2_HI` (both are multiples of 2^-54 and the difference is
    /// below 1), so `r` carries only the rounding of the last step.
    fn exp_reduce(&mut self, x: Value, down: bool) -> ExpParts {
        let inv = self.d(INV_LN2);
        let t = self.b.fmul(x, inv);
        let round = if down { Opcode::Floor } else { Opcode::Nearest };
        let kf = self.b.unary(round, t);
        let nk = self.neg(kf);
        let hi = self.d(LN2_HI);
        let lo = self.d(LN2_LO);
        let r = self.b.fma(nk, hi, x);
        let r = self.b.fma(nk, lo, r);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        ExpParts { k, r }
    }

    /// `e^r - 1` for `r` in `[-0.35, 0.7)`: `r + r²·(1/2! + r/3! + ... +
    /// r^14/16!)`. The Taylor remainder is below 2^-57 relative.
    fn expm1_poly(&mut self, r: Value) -> Value {
        let h = self.horner(&EXPM1_TAYLOR, r);
        let r2 = self.b.fmul(r, r);
        self.b.fma(h, r2, r)
    }

    /// Clamps `x` into `[lo, hi]` (NaN becomes `hi`; callers restore it).
    fn clamp(&mut self, x: Value, lo: f64, hi: f64) -> Value {
        let h = self.d(hi);
        let l = self.d(lo);
        let x = self.b.binary(Opcode::Fmin, x, h);
        self.b.binary(Opcode::Fmax, x, l)
    }

    /// `exp(x) = 2^k · (1 + expm1(r))`.
    pub(super) fn exp_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -746.0, 710.0);
        let ExpParts { k, r } = self.exp_reduce(xc, false);
        let p1 = self.expm1_poly(r);
        let one = self.d(1.0);
        let p = self.b.fadd(one, p1);
        let res = self.scale(p, k);
        self.keep_nan(x, res)
    }

    /// `exp2(x) = 2^k · 2^r` with `k = nearest(x)`, `r = x - k` exact, and
    /// `2^r = 1 + r·(c1 + c2·r + ...)`, `c_n = (ln 2)^n / n!`.
    pub(super) fn exp2_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -1080.0, 1030.0);
        let kf = self.b.unary(Opcode::Nearest, xc);
        let r = self.sub(xc, kf);
        let q = self.horner(&EXP2_TAYLOR, r);
        let one = self.d(1.0);
        let p = self.b.fma(q, r, one);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        let res = self.scale(p, k);
        self.keep_nan(x, res)
    }

    /// Splits a positive `x` (subnormals included) into `2^e · m`.
    fn log_parts(&mut self, x: Value) -> LogParts {
        let sub = self.cmp(FloatCC::Olt, x, f64::MIN_POSITIVE);
        let two54 = self.d(2f64.powi(54));
        let scaled = self.b.fmul(x, two54);
        let xs = self.b.select(sub, scaled, x);
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, xs);
        let b_plain = self.l(1023);
        let b_sub = self.l(1023 + 54);
        let bias = self.b.select(sub, b_sub, b_plain);
        let shift = self.l(52);
        let ex = self.b.binary(Opcode::Ushr, bits, shift);
        let e = self.b.isub(ex, bias);
        let mask = self.l(0x000f_ffff_ffff_ffff);
        let mant = self.b.binary(Opcode::Band, bits, mask);
        let one_bits = self.l(0x3ff0_0000_0000_0000);
        let mbits = self.b.binary(Opcode::Bor, mant, one_bits);
        let m = self.b.convert(Opcode::Bitcast, Type::F64, mbits);
        let big = self.cmp(FloatCC::Ogt, m, SQRT2);
        let half = self.d(0.5);
        let m_half = self.b.fmul(m, half);
        let m = self.b.select(big, m_half, m);
        let one = self.l(1);
        let e1 = self.b.iadd(e, one);
        let e = self.b.select(big, e1, e);
        let e = self.b.convert(Opcode::Sitofp, Type::F64, e);
        let onef = self.d(1.0);
        let f = self.sub(m, onef);
        LogParts { e, m, f }
    }

    /// `log(1 + f)` for `f = m - 1`, `m` in `[sqrt(1/2), sqrt(2))`: with
    /// `s = f/(2+f)`, `log(1+f) = 2·atanh(s) = f - (f²/2 - s·(f²/2 + R))`,
    /// `R = s²·(2/3 + 2s²/5 + ...)` (the Taylor series of atanh; `s² <=
    /// 0.0295`, eleven terms leave below 2^-60). `f` is exact, so the only
    /// sizeable roundings are those of `f²/2` and of the last subtraction.
    fn log1p_core(&mut self, f: Value) -> Value {
        let two = self.d(2.0);
        let d = self.b.fadd(two, f);
        let s = self.b.binary(Opcode::Fdiv, f, d);
        let z = self.b.fmul(s, s);
        let p = self.horner(&ATANH_TAYLOR, z);
        let big_r = self.b.fmul(z, p);
        let half = self.d(0.5);
        let hf = self.b.fmul(f, half);
        let hfsq = self.b.fmul(hf, f);
        let t = self.b.fadd(hfsq, big_r);
        let st = self.b.fmul(s, t);
        let inner = self.sub(hfsq, st);
        self.sub(f, inner)
    }

    /// C's special cases of `log`/`log2`: `log(±0) = -inf`, `log(x < 0) =
    /// NaN`, `log(inf) = inf`, NaN stays NaN.
    fn log_specials(&mut self, x: Value, r: Value) -> Value {
        let is_inf = self.cmp(FloatCC::Oeq, x, f64::INFINITY);
        let inf = self.d(f64::INFINITY);
        let r = self.b.select(is_inf, inf, r);
        let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
        let ninf = self.d(f64::NEG_INFINITY);
        let r = self.b.select(is_zero, ninf, r);
        let is_neg = self.cmp(FloatCC::Olt, x, 0.0);
        let nan = self.d(f64::NAN);
        let r = self.b.select(is_neg, nan, r);
        self.keep_nan(x, r)
    }

    /// `log(x) = e·ln2 + log(1+f)`, with `e·LN2_HI` exact and the rest
    /// added in one `fma`.
    pub(super) fn log_f64(&mut self, x: Value) -> Value {
        let LogParts { e, f, .. } = self.log_parts(x);
        let lf = self.log1p_core(f);
        let lo = self.d(LN2_LO);
        let hi = self.d(LN2_HI);
        let t = self.b.fma(e, lo, lf);
        let r = self.b.fma(e, hi, t);
        self.log_specials(x, r)
    }

    /// `log2(x) = e + log(1+f)·log2(e)`, the product carried with its
    /// rounding error (`fma`) and the low part of `log2(e)`. Exact for
    /// powers of two.
    pub(super) fn log2_f64(&mut self, x: Value) -> Value {
        let LogParts { e, f, .. } = self.log_parts(x);
        let lf = self.log1p_core(f);
        let hi = self.d(LOG2E_HI);
        let lo = self.d(LOG2E_LO);
        let p = self.b.fmul(lf, hi);
        let np = self.neg(p);
        let err = self.b.fma(lf, hi, np);
        let err = self.b.fma(lf, lo, err);
        let frac = self.b.fadd(p, err);
        let r = self.b.fadd(e, frac);
        self.log_specials(x, r)
    }

    /// `log(x)` for a positive `x` as an unevaluated sum `hi + lo` with
    /// a relative error near 2^-70 (for `pow`). With `s = f/(m+1)` held
    /// as `s_h + s_l`, `log m = 2s + (2/3)s³ + s⁵·Q(s²)`: the first two
    /// terms in double-double arithmetic, the third (below 2^-13 of the
    /// total) in plain double.
    fn log_dd(&mut self, x: Value) -> (Value, Value) {
        let LogParts { e, m, f } = self.log_parts(x);
        let one = self.d(1.0);
        // m + 1 = d_h + d_l exactly.
        let d_h = self.b.fadd(m, one);
        let dm1 = self.sub(d_h, one);
        let d_l = self.sub(m, dm1);
        // s = f / (m + 1) = s_h + s_l.
        let s_h = self.b.binary(Opcode::Fdiv, f, d_h);
        let ns = self.neg(s_h);
        let rem = self.b.fma(ns, d_h, f);
        let rem = self.b.fma(ns, d_l, rem);
        let s_l = self.b.binary(Opcode::Fdiv, rem, d_h);
        // s² = z_h + z_l.
        let z_h = self.b.fmul(s_h, s_h);
        let nz = self.neg(z_h);
        let z_l = self.b.fma(s_h, s_h, nz);
        let two_sh = self.b.fadd(s_h, s_h);
        let z_l = self.b.fma(two_sh, s_l, z_l);
        // s³ = c_h + c_l.
        let c_h = self.b.fmul(z_h, s_h);
        let nc = self.neg(c_h);
        let c_l = self.b.fma(z_h, s_h, nc);
        let c_l = self.b.fma(z_h, s_l, c_l);
        let c_l = self.b.fma(z_l, s_h, c_l);
        // (2/3)·s³ = t_h + t_l.
        let tt_hi = self.d(TWO_THIRDS_HI);
        let tt_lo = self.d(TWO_THIRDS_LO);
        let t_h = self.b.fmul(tt_hi, c_h);
        let nt = self.neg(t_h);
        let t_l = self.b.fma(tt_hi, c_h, nt);
        let t_l = self.b.fma(tt_hi, c_l, t_l);
        let t_l = self.b.fma(tt_lo, c_h, t_l);
        // s⁵·Q(s²), Q = 2/5 + 2s²/7 + ...
        let q = self.horner(&ATANH_TAYLOR[1..], z_h);
        let z2 = self.b.fmul(z_h, z_h);
        let s5 = self.b.fmul(z2, s_h);
        let tail = self.b.fmul(s5, q);
        // 2s_h + t_h (|2s_h| > |t_h|: fast two-sum), then the small parts.
        let a = self.b.fadd(two_sh, t_h);
        let a_err = self.sub(two_sh, a);
        let a_err = self.b.fadd(a_err, t_h);
        let two_sl = self.b.fadd(s_l, s_l);
        let small = self.b.fadd(two_sl, t_l);
        let small = self.b.fadd(small, tail);
        let small = self.b.fadd(small, a_err);
        // + e·ln2: e·LN2_HI is exact; a general two-sum with `a`.
        let hi = self.d(LN2_HI);
        let lo = self.d(LN2_LO);
        let eh = self.b.fmul(e, hi);
        let sum = self.b.fadd(eh, a);
        let bb = self.sub(sum, eh);
        let sb = self.sub(sum, bb);
        let e1 = self.sub(eh, sb);
        let e2 = self.sub(a, bb);
        let err = self.b.fadd(e1, e2);
        let small = self.b.fma(e, lo, small);
        let small = self.b.fadd(small, err);
        // Renormalize.
        let r_h = self.b.fadd(sum, small);
        let back = self.sub(r_h, sum);
        let r_l = self.sub(small, back);
        (r_h, r_l)
    }

    /// `pow(x, y) = ±exp(y·log|x|)`: `log|x|` in double-double, the
    /// product `y·log|x|` with its rounding error (`fma`), and the low part
    /// added to `exp`'s reduced argument. Then C's special cases (C11
    /// F.10.4.4).
    pub(super) fn pow_f64(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let (lh, ll) = self.log_dd(ax);
        // log 0 = -inf and log inf = inf, which `log_dd` does not make.
        let zero = self.d(0.0);
        let is_zero = self.cmp(FloatCC::Oeq, ax, 0.0);
        let is_inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let ninf = self.d(f64::NEG_INFINITY);
        let inf = self.d(f64::INFINITY);
        let lh = self.b.select(is_zero, ninf, lh);
        let lh = self.b.select(is_inf, inf, lh);
        let edge = self.b.binary(Opcode::Bor, is_zero, is_inf);
        let ll = self.b.select(edge, zero, ll);
        let ph = self.b.fmul(y, lh);
        let nph = self.neg(ph);
        let pl = self.b.fma(y, lh, nph);
        let pl = self.b.fma(y, ll, pl);
        // Out of range (or infinite) products: the low part is meaningless.
        let aph = self.b.unary(Opcode::Fabs, ph);
        let in_range = self.cmp(FloatCC::Olt, aph, 746.0);
        let pl = self.b.select(in_range, pl, zero);
        let pc = self.clamp(ph, -746.0, 710.0);
        let ExpParts { k, r } = self.exp_reduce(pc, false);
        let r = self.b.fadd(r, pl);
        let p1 = self.expm1_poly(r);
        let one = self.d(1.0);
        let p = self.b.fadd(one, p1);
        let mag = self.scale(p, k);

        // y an integer, and odd?
        let yt = self.b.unary(Opcode::Ftrunc, y);
        let y_int = self.b.fcmp(FloatCC::Oeq, yt, y);
        let half = self.d(0.5);
        let hy = self.b.fmul(y, half);
        let hyt = self.b.unary(Opcode::Ftrunc, hy);
        let y_even = self.b.fcmp(FloatCC::Oeq, hyt, hy);
        let not_even = self.b.unary(Opcode::Bnot, y_even);
        let y_odd = self.b.binary(Opcode::Band, y_int, not_even);
        // A negative sign bit (-0 included) and an odd y: negative result.
        let xbits = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let zl = self.l(0);
        let x_signed = self.b.icmp(IntCC::Slt, xbits, zl);
        let flip = self.b.binary(Opcode::Band, x_signed, y_odd);
        let nmag = self.neg(mag);
        let r = self.b.select(flip, nmag, mag);
        // A finite negative x and a non-integer y: NaN.
        let x_neg = self.cmp(FloatCC::Olt, x, 0.0);
        let x_fin = self.cmp(FloatCC::Olt, ax, f64::INFINITY);
        let y_frac = self.b.unary(Opcode::Bnot, y_int);
        let bad = self.b.binary(Opcode::Band, x_neg, x_fin);
        let bad = self.b.binary(Opcode::Band, bad, y_frac);
        let nan = self.d(f64::NAN);
        let r = self.b.select(bad, nan, r);
        // NaN operands give NaN, except for the cases below.
        let uno = self.b.fcmp(FloatCC::Uno, x, y);
        let sum = self.b.fadd(x, y);
        let r = self.b.select(uno, sum, r);
        // pow(-1, ±inf) = 1, pow(1, y) = 1, pow(x, ±0) = 1.
        let m1 = self.cmp(FloatCC::Oeq, x, -1.0);
        let ay = self.b.unary(Opcode::Fabs, y);
        let y_inf = self.cmp(FloatCC::Oeq, ay, f64::INFINITY);
        let m1_inf = self.b.binary(Opcode::Band, m1, y_inf);
        let x_one = self.cmp(FloatCC::Oeq, x, 1.0);
        let y_zero = self.cmp(FloatCC::Oeq, y, 0.0);
        let ones = self.b.binary(Opcode::Bor, m1_inf, x_one);
        let ones = self.b.binary(Opcode::Bor, ones, y_zero);
        self.b.select(ones, one, r)
    }

    /// `sin` and `cos` of `x`, reduced by `π/2`: `k = nearest(x·2/π)`,
    /// `r = x - k·π/2` with `π/2` in three parts (Cody–Waite; the first
    /// step is exact with `fma`), then Taylor polynomials on `|r| <= π/4`
    /// and the quadrant `k mod 4`. `cos` is `sin` one quadrant on. The
    /// result is accurate for `|x| < 2^50`; beyond, it is NaN.
    pub(super) fn sin_cos_f64(&mut self, x: Value, cos: bool) -> Value {
        let tp = self.d(TWO_OVER_PI);
        let t = self.b.fmul(x, tp);
        let kf = self.b.unary(Opcode::Nearest, t);
        let nk = self.neg(kf);
        let p1 = self.d(PIO2_1);
        let p2 = self.d(PIO2_2);
        let p3 = self.d(PIO2_3);
        let r = self.b.fma(nk, p1, x);
        let r = self.b.fma(nk, p2, r);
        let r = self.b.fma(nk, p3, r);
        let z = self.b.fmul(r, r);
        // sin r = r + r³·S(z).
        let sp = self.horner(&SIN_TAYLOR, z);
        let r3 = self.b.fmul(r, z);
        let s = self.b.fma(r3, sp, r);
        // cos r = 1 - z/2 + z²·C(z), with the rounding of 1 - z/2 recovered.
        let cp = self.horner(&COS_TAYLOR, z);
        let z2 = self.b.fmul(z, z);
        let tail = self.b.fmul(z2, cp);
        let half = self.d(0.5);
        let hz = self.b.fmul(z, half);
        let one = self.d(1.0);
        let w = self.sub(one, hz);
        let back = self.sub(one, w);
        let err = self.sub(back, hz);
        let err = self.b.fadd(err, tail);
        let c = self.b.fadd(w, err);
        // Quadrant.
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        let k = if cos {
            let one_i = self.l(1);
            self.b.iadd(k, one_i)
        } else {
            k
        };
        let one_i = self.l(1);
        let two_i = self.l(2);
        let zero_i = self.l(0);
        let odd = self.b.binary(Opcode::Band, k, one_i);
        let use_cos = self.b.icmp(IntCC::Ne, odd, zero_i);
        let second = self.b.binary(Opcode::Band, k, two_i);
        let negate = self.b.icmp(IntCC::Ne, second, zero_i);
        let v = self.b.select(use_cos, c, s);
        let nv = self.neg(v);
        let res = self.b.select(negate, nv, v);
        // Past 2^50 the reduction loses its accuracy (k·PIO2_1 is no
        // longer exact, and x/(π/2) no longer rounds to the right k):
        // NaN rather than a wrong number.
        let ax = self.b.unary(Opcode::Fabs, x);
        let in_range = self.cmp(FloatCC::Olt, ax, SIN_COS_LIMIT);
        let nan = self.d(f64::NAN);
        let res = self.b.select(in_range, res, nan);
        let res = self.keep_nan(x, res);
        if cos {
            res
        } else {
            // sin(±0) = ±0 (the reduction gives +0 for -0).
            let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
            self.b.select(is_zero, x, res)
        }
    }

    /// `tanh(x) = sign(x)·E/(E + 2)` with `E = expm1(2|x|) = 2^k·(e^r - 1)
    /// + (2^k - 1)` (one `fma`), which stays accurate as `|x|` goes to 0.
    /// `k` is rounded down, so `r >= 0` and the two terms of `E` never
    /// cancel. The quotient is corrected once for the roundings of `E + 2`
    /// and of the division. Past `|x| = 22` the result is `±1`.
    pub(super) fn tanh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let lim = self.d(22.0);
        let ac = self.b.binary(Opcode::Fmin, a, lim);
        let two_a = self.b.fadd(ac, ac);
        let ExpParts { k, r } = self.exp_reduce(two_a, true);
        let p1 = self.expm1_poly(r);
        let s = self.pow2i(k);
        let one = self.d(1.0);
        let sm1 = self.sub(s, one);
        let em = self.b.fma(s, p1, sm1);
        let two = self.d(2.0);
        let den = self.b.fadd(em, two);
        // The rounding error of `den` (a two-sum, larger operand first).
        let em_big = self.cmp(FloatCC::Ogt, em, 2.0);
        let a1 = self.sub(em, den);
        let a1 = self.b.fadd(a1, two);
        let b1 = self.sub(two, den);
        let b1 = self.b.fadd(b1, em);
        let den_err = self.b.select(em_big, a1, b1);
        // t = em/den, then t += (em - t·den - t·den_err)/den.
        let t = self.b.binary(Opcode::Fdiv, em, den);
        let nt = self.neg(t);
        let res = self.b.fma(nt, den, em);
        let res = self.b.fma(nt, den_err, res);
        let corr = self.b.binary(Opcode::Fdiv, res, den);
        let t = self.b.fadd(t, corr);
        // copysign(t, x)
        let tb = self.b.convert(Opcode::Bitcast, Type::I64, t);
        let xb = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let sign = self.l(i64::MIN);
        let sx = self.b.binary(Opcode::Band, xb, sign);
        let r = self.b.binary(Opcode::Bor, tb, sx);
        let r = self.b.convert(Opcode::Bitcast, Type::F64, r);
        self.keep_nan(x, r)
    }

    /// `rsqrt(x) = 1 / sqrt(x)`: two correctly rounded operations (PTX's
    /// `rsqrt.approx.f64` is far less accurate).
    pub(super) fn rsqrt_f64(&mut self, x: Value) -> Value {
        let s = self.b.unary(Opcode::Sqrt, x);
        let one = self.d(1.0);
        self.b.binary(Opcode::Fdiv, one, s)
    }
}
