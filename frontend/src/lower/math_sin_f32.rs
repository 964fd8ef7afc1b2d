//! `sinf`, `cosf` and `sincosf` in `float` (and the `float` overloads
//! `sin`, `cos`, `sincos`), to CUDA's bound of 2 ulp on every argument.
//!
//! * The argument is reduced by `π/2`: `k = nearest(x·2/π)` and `r = x -
//!   k·π/2` with `π/2` in three `float` parts (Cody–Waite). With `fma` the
//!   first step is exact: `x - k·P1` is a multiple of 2^-24 smaller than 1.
//!   This holds for `|x| < 2^16`; larger arguments take a branch to an
//!   integer Payne–Hanek reduction: the 24-bit significand times 96 bits
//!   of 2/π from the table `__kernelc_two_over_pi`, in 32-bit limbs, whose
//!   low 96 bits hold the quadrant and the fraction. No call and one
//!   `double` multiply, so the rare path costs the caller few registers.
//! * `sin r = r + r³·S(r²)` and `cos r = 1 - r²/2 + r⁴·C(r²)` on `|r| <=
//!   π/4`, both of degree 2 in `r²` (`scripts/math_f32_fits.py`, `sin` and
//!   `cos`), and the quadrant `k mod 4` picks and signs them. `sincosf`
//!   shares the reduction and both polynomials.
//!
//! `sin(±0)` keeps the sign of the zero, infinities give NaN, NaN gives
//! NaN. `__sinf`, `__cosf`, `__sincosf` and `-use_fast_math` keep the
//! approximate instructions. docs/math.md gives the errors
//! `tests/math_more.rs` measures.

use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, IntCC, Opcode, Type, Value};

/// `sin r = r + r³·S(r²)` for `|r| <= 1.01·π/4` (relative error 2^-27.9).
const SIN_S: [f32; 3] = [-0.166_666_54, 0.008_332_113, -0.000_195_087_38];

/// `cos r = 1 - r²/2 + r⁴·C(r²)` for `|r| <= 1.01·π/4` (relative error
/// 2^-32.9).
const COS_C: [f32; 3] = [0.041_666_646, -0.001_388_725_1, 2.442_567_7e-5];

/// `sin(πt) = t·π + t³·P(t²)` for `|t| <= 1/4` (relative error 2^-37.5).
const SINPI_P: [f32; 4] = [-5.167_712_7, 2.550_162_8, -0.599_205_4, 0.081_024_75];

/// `cos(πt) = 1 + t²·Q(t²)` for `|t| <= 1/4` (relative error 2^-33.9).
const COSPI_Q: [f32; 4] = [-4.934_802, 4.058_707_7, -1.335_050_6, 0.231_364_22];

/// π in two `float` parts.
const PI_HI: f32 = std::f32::consts::PI;
const PI_LO: f32 = -8.742_278e-8;

/// `π/2` in three `float` parts; the next bits are below 2^-76.
const PIO2_1: f32 = std::f32::consts::FRAC_PI_2;
const PIO2_2: f32 = -4.371_139e-8;
const PIO2_3: f32 = -1.715_124_5e-15;

/// `2/π` rounded to `float`.
const TWO_OVER_PI: f32 = 0.636_619_75;

/// The `float` reduction serves `|x|` below this (`k` below 2^16, so the
/// rounding of `x·2/π` moves `r` past `π/4` by at most `π/2^10`).
const FAST_LIMIT: f32 = 65536.0;

impl FunctionLowerer<'_, '_> {
    /// `sinf x` or (`cos`) `cosf x`.
    pub(super) fn sin_cos_f32(&mut self, x: Value, cos: bool) -> Value {
        let (s, c) = self.sincos_f32(x);
        if cos {
            c
        } else {
            s
        }
    }

    /// `(sinf x, cosf x)` with one reduction.
    pub(super) fn sincos_f32(&mut self, x: Value) -> (Value, Value) {
        let (r, k) = self.reduce_pio2_f32(x);
        let z = self.b.fmul(r, r);
        // sin r = r + r³·S(z).
        let ps = self.horner32(&SIN_S, z);
        let rz = self.b.fmul(r, z);
        let s = self.b.fma(rz, ps, r);
        // cos r = 1 + z·(-1/2 + z·C(z)).
        let pc = self.horner32(&COS_C, z);
        let m_half = self.c32(-0.5);
        let q = self.b.fma(z, pc, m_half);
        let one = self.c32(1.0);
        let c = self.b.fma(z, q, one);
        let (sin_x, cos_x) = self.by_quadrant(s, c, k);
        // sin(±inf) = cos(±inf) = NaN; sin(±0) = ±0 (the reduction gives
        // +0 for -0).
        let ax = self.b.unary(Opcode::Fabs, x);
        let inf = self.c32(f32::INFINITY);
        let is_inf = self.b.fcmp(FloatCC::Oeq, ax, inf);
        let nan = self.c32(f32::NAN);
        let sin_x = self.b.select(is_inf, nan, sin_x);
        let cos_x = self.b.select(is_inf, nan, cos_x);
        let zero = self.c32(0.0);
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let sin_x = self.b.select(is_zero, x, sin_x);
        (sin_x, cos_x)
    }

    /// `(sinpif x, cospif x)`: `x = k/2 + t` exactly (`k = nearest(2x)`,
    /// `|t| <= 1/4`), `sin(πt) = t·π_hi + (t·π_lo + t³·P(t²))` (the first
    /// product inside the last `fma`, so the result is rounded about once)
    /// and `cos(πt) = 1 + t²·Q(t²)`, picked and signed by `k mod 4`. From
    /// 2^24 on every float is an even integer, which `x·0` turns into a
    /// zero of its sign (and infinities into NaN).
    pub(super) fn sincospi_f32(&mut self, x: Value) -> (Value, Value) {
        let ax = self.b.unary(Opcode::Fabs, x);
        let even = self.c32(16_777_216.0);
        let big = self.b.fcmp(FloatCC::Oge, ax, even);
        let zero = self.c32(0.0);
        let x0 = self.b.fmul(x, zero);
        let x = self.b.select(big, x0, x);
        let two = self.c32(2.0);
        let x2 = self.b.fmul(x, two);
        let kf = self.b.unary(Opcode::Nearest, x2);
        let m_half = self.c32(-0.5);
        let t = self.b.fma(kf, m_half, x);
        let k = self.b.convert(Opcode::Fptosi, Type::I32, kf);
        let z = self.b.fmul(t, t);
        let p = self.horner32(&SINPI_P, z);
        let tz = self.b.fmul(t, z);
        let pi_lo = self.c32(PI_LO);
        let tl = self.b.fmul(t, pi_lo);
        let inner = self.b.fma(tz, p, tl);
        let pi_hi = self.c32(PI_HI);
        let s = self.b.fma(t, pi_hi, inner);
        let q = self.horner32(&COSPI_Q, z);
        let one = self.c32(1.0);
        let c = self.b.fma(z, q, one);
        let (sin_x, cos_x) = self.by_quadrant(s, c, k);
        // sinpi(±0) = ±0 (the reduction gives +0 for -0).
        let is_zero = self.b.fcmp(FloatCC::Oeq, x, zero);
        let sin_x = self.b.select(is_zero, x, sin_x);
        (sin_x, cos_x)
    }

    /// `(sin, cos)` of `k` quarter turns plus the angle whose sine is `s`
    /// and cosine `c`: `±s` (`k` even) or `±c` (`k` odd), negative for `k
    /// mod 4` in {2, 3}; the cosine is the sine of the next quarter turn.
    fn by_quadrant(&mut self, s: Value, c: Value, k: Value) -> (Value, Value) {
        let one_i = self.i32c(1);
        let two_i = self.i32c(2);
        let zero_i = self.i32c(0);
        let odd = self.b.binary(Opcode::Band, k, one_i);
        let odd = self.b.icmp(IntCC::Ne, odd, zero_i);
        let sin_v = self.b.select(odd, c, s);
        let cos_v = self.b.select(odd, s, c);
        let k2 = self.b.binary(Opcode::Band, k, two_i);
        let sin_neg = self.b.icmp(IntCC::Ne, k2, zero_i);
        let k1 = self.b.iadd(k, one_i);
        let k12 = self.b.binary(Opcode::Band, k1, two_i);
        let cos_neg = self.b.icmp(IntCC::Ne, k12, zero_i);
        let n = self.b.unary(Opcode::Fneg, sin_v);
        let sin_x = self.b.select(sin_neg, n, sin_v);
        let n = self.b.unary(Opcode::Fneg, cos_v);
        let cos_x = self.b.select(cos_neg, n, cos_v);
        (sin_x, cos_x)
    }

    /// `x = k·π/2 + r` with `|r|` at most about `π/4`: `r` (an `f32`) and
    /// `k` (an `i32` whose two low bits are right). NaN takes the `float`
    /// path and comes out NaN; infinities take the other, and the caller
    /// replaces their result.
    fn reduce_pio2_f32(&mut self, x: Value) -> (Value, Value) {
        let tp = self.c32(TWO_OVER_PI);
        let t = self.b.fmul(x, tp);
        let kf = self.b.unary(Opcode::Nearest, t);
        let nk = self.b.unary(Opcode::Fneg, kf);
        let p1 = self.c32(PIO2_1);
        let p2 = self.c32(PIO2_2);
        let p3 = self.c32(PIO2_3);
        let r = self.b.fma(nk, p1, x);
        let r = self.b.fma(nk, p2, r);
        let r_fast = self.b.fma(nk, p3, r);
        let k_fast = self.b.convert(Opcode::Fptosi, Type::I32, kf);
        let ax = self.b.unary(Opcode::Fabs, x);
        let limit = self.c32(FAST_LIMIT);
        let big = self.b.fcmp(FloatCC::Oge, ax, limit);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let r = self.b.append_block_param(join, Type::F32);
        let k = self.b.append_block_param(join, Type::I32);
        self.b.brif(big, slow, vec![], join, vec![r_fast, k_fast]);
        self.b.seal_block(slow);
        self.b.switch_to_block(slow);
        let (r_slow, k_slow) = self.rem_pio2_f32_large(x);
        self.b.jump(join, vec![r_slow, k_slow]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        (r, k)
    }

    /// Payne–Hanek for `|x| >= 2^16`: `x = k·π/2 + r`. With `x = m·2^E`
    /// (`m` the 24-bit significand, `E = e - 150` from the biased exponent
    /// `e`) and `2/π = Σ b_i·2^-i`, the bits `b_i` with `i < E - 1` add
    /// multiples of 4 to `x·2/π`, so `x·2/π mod 4 = (m·V mod 2^96)·2^-94`
    /// for the 96-bit window `V` of 2/π from `b_(E-1)` on (the bits after
    /// it add less than 2^-70). `V` is cut from the table at bit `E - 1 +
    /// 31 = e - 120` (the table starts with 32 zero bits). The top two of
    /// the 96 product bits are `k mod 4`, the next 64 the fraction `f`,
    /// read as signed (a fraction of 1/2 or more rounds `k` up and leaves
    /// `f - 1`); `r = f·π/2` in `double`, rounded to `float` once. The
    /// fraction keeps 64 bits where a `float` is never closer to a
    /// multiple of π/2 than about 2^-30 of it. For `x < 0`, `-r` and `-k`.
    fn rem_pio2_f32_large(&mut self, x: Value) -> (Value, Value) {
        let table = self.math_helpers.two_over_pi();
        let bits = self.b.convert(Opcode::Bitcast, Type::I32, x);
        let c23 = self.i32c(23);
        let e = self.b.binary(Opcode::Ushr, bits, c23);
        let cff = self.i32c(0xff);
        let e = self.b.binary(Opcode::Band, e, cff);
        let mmask = self.i32c(0x7f_ffff);
        let m = self.b.binary(Opcode::Band, bits, mmask);
        let hidden = self.i32c(0x80_0000);
        let m = self.b.binary(Opcode::Bor, m, hidden);
        // The window's bit offset, e - 120 (at least 23 here; infinities
        // read the window after the largest float's).
        let c120 = self.i32c(120);
        let off = self.b.isub(e, c120);
        let c5 = self.i32c(5);
        let word = self.b.binary(Opcode::Ushr, off, c5);
        let c31 = self.i32c(31);
        let q = self.b.binary(Opcode::Band, off, c31);
        let q_back = self.b.isub(c31, q);
        // V = v0·2^64 + v1·2^32 + v2, from `q` bits into table word `word`.
        let v = self.f64_math().table_window(table, word, (q, q_back), 3);
        // m·V mod 2^96 = high·2^64 + low, each product one `mul.wide.u32`.
        let m = self.b.convert(Opcode::Zext, Type::I64, m);
        let p0 = self.b.imul(m, v[0]);
        let p1 = self.b.imul(m, v[1]);
        let p2 = self.b.imul(m, v[2]);
        let c32 = self.b.iconst(Type::I64, 32);
        let p1_lo = self.b.binary(Opcode::Ishl, p1, c32);
        let low = self.b.iadd(p2, p1_lo);
        let wrapped = self.b.icmp(IntCC::Ult, low, p2);
        let carry = self.b.convert(Opcode::Zext, Type::I32, wrapped);
        let p1_hi = self.b.binary(Opcode::Ushr, p1, c32);
        let p1_hi = self.b.convert(Opcode::Trunc, Type::I32, p1_hi);
        let p0_lo = self.b.convert(Opcode::Trunc, Type::I32, p0);
        let high = self.b.iadd(p1_hi, p0_lo);
        let high = self.b.iadd(high, carry);
        // The fraction: product bits 93..30.
        let high64 = self.b.convert(Opcode::Zext, Type::I64, high);
        let c34 = self.b.iconst(Type::I64, 34);
        let f_hi = self.b.binary(Opcode::Ishl, high64, c34);
        let c30 = self.b.iconst(Type::I64, 30);
        let f_lo = self.b.binary(Opcode::Ushr, low, c30);
        let f = self.b.binary(Opcode::Bor, f_hi, f_lo);
        let c30_32 = self.i32c(30);
        let quad = self.b.binary(Opcode::Ushr, high, c30_32);
        let c63 = self.b.iconst(Type::I64, 63);
        let up = self.b.binary(Opcode::Ushr, f, c63);
        let up = self.b.convert(Opcode::Trunc, Type::I32, up);
        let k = self.b.iadd(quad, up);
        // r = f·2^-64·π/2.
        let fd = self.b.convert(Opcode::Sitofp, Type::F64, f);
        let scale = self
            .b
            .fconst(Type::F64, std::f64::consts::FRAC_PI_2 * (-64f64).exp2());
        let rd = self.b.fmul(fd, scale);
        let r = self.b.convert(Opcode::Fptrunc, Type::F32, rd);
        let zero = self.c32(0.0);
        let negative = self.b.fcmp(FloatCC::Olt, x, zero);
        let nr = self.b.unary(Opcode::Fneg, r);
        let r = self.b.select(negative, nr, r);
        let nk = self.b.unary(Opcode::Ineg, k);
        let k = self.b.select(negative, nk, k);
        (r, k)
    }
}
