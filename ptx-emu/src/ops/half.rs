//! The 16-bit float formats of `cvt`: `f16` (IEEE binary16) and `bf16`
//! (the top half of an `f32`), decoded exactly and encoded from an exact
//! value with any IEEE rounding: subnormal results are kept (PTX's `.ftz`
//! flushes `f32` values only), and a value beyond the largest finite one
//! becomes infinity or that largest value, as the rounding direction says.

use crate::program::{Kind, Ty};
use crate::rounding::Dir;

/// A binary float format of 16 bits: its exponent and fraction widths.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Format {
    exp_bits: u32,
    frac_bits: u32,
}

/// IEEE binary16.
pub const F16: Format = Format {
    exp_bits: 5,
    frac_bits: 10,
};

/// bfloat16.
pub const BF16: Format = Format {
    exp_bits: 8,
    frac_bits: 7,
};

/// How the dropped part of a value compares with half a unit in the last
/// place of the result.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Tail {
    Zero,
    Below,
    Half,
    Above,
}

impl Format {
    /// The 16-bit format `ty` names, if it names one.
    pub fn of(ty: Ty) -> Option<Format> {
        match (ty.kind, ty.bits) {
            (Kind::F, 16) => Some(F16),
            (Kind::BF, 16) => Some(BF16),
            _ => None,
        }
    }

    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The all-ones exponent field (infinities and NaNs).
    fn top_exp(self) -> u64 {
        (1 << self.exp_bits) - 1
    }

    /// The canonical NaN: `0x7fff`, as for the wider formats all ones
    /// below the sign.
    pub fn canonical_nan(self) -> u64 {
        0x7fff
    }

    /// The largest finite value's bits.
    pub fn max_finite(self) -> u64 {
        ((self.top_exp() - 1) << self.frac_bits) | ((1 << self.frac_bits) - 1)
    }

    /// `1.0`'s bits.
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.frac_bits
    }

    /// `+inf`'s bits.
    pub fn infinity(self) -> u64 {
        self.top_exp() << self.frac_bits
    }

    /// The exact value of `bits` (the low 16 bits).
    pub fn to_f64(self, bits: u64) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = (bits >> self.frac_bits) & self.top_exp();
        let frac = (bits & ((1 << self.frac_bits) - 1)) as f64;
        let unit = |e: i32| 2f64.powi(e - self.frac_bits as i32);
        sign * match exp {
            0 => frac * unit(1 - self.bias()),
            e if e == self.top_exp() && frac == 0.0 => f64::INFINITY,
            e if e == self.top_exp() => return f64::NAN,
            e => (frac + f64::from(1u32 << self.frac_bits)) * unit(e as i32 - self.bias()),
        }
    }

    /// `x` rounded to this format: to nearest even (`dir` `None`) or in a
    /// direction. NaN becomes the canonical NaN.
    pub fn from_f64(self, x: f64, dir: Option<Dir>) -> u64 {
        if x.is_nan() {
            return self.canonical_nan();
        }
        let sign = u64::from(x.is_sign_negative()) << 15;
        if x.is_infinite() {
            return sign | self.infinity();
        }
        if x == 0.0 {
            return sign;
        }
        // |x| = m * 2^e exactly.
        let bits = x.abs().to_bits();
        let (exp, frac) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
        let (m, e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | 1 << 52, exp - 1075)
        };
        self.round(x < 0.0, u128::from(m), e, dir)
    }

    /// The integer `v` rounded to this format.
    pub fn from_int(self, v: i128, dir: Option<Dir>) -> u64 {
        if v == 0 {
            return 0;
        }
        self.round(v < 0, v.unsigned_abs(), 0, dir)
    }

    /// `m * 2^e` (with the sign `neg`; `m > 0`) rounded to this format.
    fn round(self, neg: bool, m: u128, e: i32, dir: Option<Dir>) -> u64 {
        let emin = 1 - self.bias();
        let top = e + 127 - m.leading_zeros() as i32;
        // The exponent of the result's last place.
        let q = top.max(emin) - self.frac_bits as i32;
        let (mut n, tail) = split(m, q - e);
        let up = match dir {
            None => tail == Tail::Above || tail == Tail::Half && n & 1 == 1,
            Some(Dir::Zero) => false,
            Some(Dir::Down) => neg && tail != Tail::Zero,
            Some(Dir::Up) => !neg && tail != Tail::Zero,
        };
        n += u128::from(up);
        let sign = u64::from(neg) << 15;
        sign | self.encode(n, q, neg, dir)
    }

    /// The bits of `n * 2^q` (`n` at most `2^(frac_bits + 1)`), or of what
    /// an overflow rounds to.
    fn encode(self, mut n: u128, mut q: i32, neg: bool, dir: Option<Dir>) -> u64 {
        let hidden = 1u128 << self.frac_bits;
        if n >= hidden << 1 {
            n >>= 1;
            q += 1;
        }
        if n < hidden {
            // A subnormal (or zero): the count of the smallest unit.
            return n as u64;
        }
        let exp = i64::from(q) + i64::from(self.frac_bits) + i64::from(self.bias());
        if exp >= self.top_exp() as i64 {
            // Beyond the largest finite value: to infinity, unless the
            // rounding goes toward zero from this side.
            let to_inf = match dir {
                None => true,
                Some(Dir::Zero) => false,
                Some(Dir::Down) => neg,
                Some(Dir::Up) => !neg,
            };
            return if to_inf {
                self.infinity()
            } else {
                self.max_finite()
            };
        }
        ((exp as u64) << self.frac_bits) | (n - hidden) as u64
    }
}

/// An exact finite value `(-1)^neg * m * 2^e`.
#[derive(Copy, Clone, Debug)]
struct Exact {
    neg: bool,
    m: u128,
    e: i32,
}

/// What a 16-bit float holds.
enum Value {
    Nan,
    Inf { neg: bool },
    Finite(Exact),
}

impl Exact {
    /// The exponent just above the top bit (`m < 2^top`); meaningless for 0.
    fn top(self) -> i32 {
        self.e + 128 - self.m.leading_zeros() as i32
    }

    /// The exact product.
    fn mul(self, other: Exact) -> Exact {
        Exact {
            neg: self.neg != other.neg,
            m: self.m * other.m,
            e: self.e + other.e,
        }
    }
}

impl Format {
    /// The value of `bits` (the low 16 bits), exactly.
    fn value(self, bits: u64) -> Value {
        let neg = bits & 0x8000 != 0;
        let exp = (bits >> self.frac_bits) & self.top_exp();
        let frac = u128::from(bits & ((1 << self.frac_bits) - 1));
        let unit = 1 - self.bias() - self.frac_bits as i32;
        match exp {
            e if e == self.top_exp() && frac == 0 => Value::Inf { neg },
            e if e == self.top_exp() => Value::Nan,
            0 => Value::Finite(Exact {
                neg,
                m: frac,
                e: unit,
            }),
            e => Value::Finite(Exact {
                neg,
                m: frac | 1 << self.frac_bits,
                e: unit + e as i32 - 1,
            }),
        }
    }

    /// Whether `bits` is a subnormal of this format (not zero).
    pub fn is_subnormal(self, bits: u64) -> bool {
        (bits >> self.frac_bits) & self.top_exp() == 0 && bits & ((1 << self.frac_bits) - 1) != 0
    }

    /// `a * b + c` rounded once to nearest even, as `fma.rn` computes it on
    /// 16-bit floats (`add` is `a * 1 + b`, `mul` is `a * b + (-0)`): an
    /// invalid operation (a NaN operand, `inf * 0`, `inf - inf`) gives the
    /// canonical NaN, and an exact zero sum of opposite signs is `+0`.
    pub fn fma(self, a: u64, b: u64, c: u64) -> u64 {
        let (a, b, c) = (self.value(a), self.value(b), self.value(c));
        let product = match (a, b) {
            (Value::Nan, _) | (_, Value::Nan) => return self.canonical_nan(),
            (Value::Inf { neg: x }, Value::Inf { neg: y }) => Value::Inf { neg: x != y },
            (Value::Inf { neg }, Value::Finite(f)) | (Value::Finite(f), Value::Inf { neg }) => {
                if f.m == 0 {
                    return self.canonical_nan();
                }
                Value::Inf { neg: neg != f.neg }
            }
            (Value::Finite(x), Value::Finite(y)) => Value::Finite(x.mul(y)),
        };
        match (product, c) {
            (_, Value::Nan) | (Value::Nan, _) => self.canonical_nan(),
            (Value::Inf { neg: x }, Value::Inf { neg: y }) if x != y => self.canonical_nan(),
            (Value::Inf { neg }, _) | (_, Value::Inf { neg }) => {
                u64::from(neg) << 15 | self.infinity()
            }
            (Value::Finite(p), Value::Finite(c)) => self.round_sum(p, c),
        }
    }

    /// `p + c` exactly, rounded to nearest even.
    fn round_sum(self, p: Exact, c: Exact) -> u64 {
        if p.m == 0 && c.m == 0 {
            // Zeros: `-0` only when both are `-0`.
            return u64::from(p.neg && c.neg) << 15;
        }
        if p.m == 0 || c.m == 0 {
            let x = if p.m == 0 { c } else { p };
            return self.round(x.neg, x.m, x.e, None);
        }
        let (big, small) = if p.top() >= c.top() { (p, c) } else { (c, p) };
        // A term far below the other only breaks ties and decides the side
        // of the bigger one's exact value it falls on: a unit far below
        // every bit of the bigger term, with its sign, does the same, and
        // keeps the aligned sum within 128 bits.
        let small = if big.top() - small.top() > 64 {
            Exact {
                neg: small.neg,
                m: 1,
                e: big.top() - 100,
            }
        } else {
            small
        };
        let e = big.e.min(small.e);
        let signed = |x: Exact| {
            let v = (x.m << (x.e - e)) as i128;
            if x.neg {
                -v
            } else {
                v
            }
        };
        let sum = signed(big) + signed(small);
        if sum == 0 {
            return 0;
        }
        self.round(sum < 0, sum.unsigned_abs(), e, None)
    }
}

/// `m` divided by `2^shift` (toward zero), and how the remainder compares
/// with half of `2^shift`; a negative `shift` multiplies exactly.
fn split(m: u128, shift: i32) -> (u128, Tail) {
    if shift <= 0 {
        return (m << (-shift) as u32, Tail::Zero);
    }
    if shift > 128 {
        return (0, Tail::Below);
    }
    let shift = shift as u32;
    let n = m.checked_shr(shift).unwrap_or(0);
    let rem = if shift == 128 {
        m
    } else {
        m & ((1 << shift) - 1)
    };
    let half = 1u128 << (shift - 1);
    let tail = match rem.cmp(&half) {
        _ if rem == 0 => Tail::Zero,
        std::cmp::Ordering::Less => Tail::Below,
        std::cmp::Ordering::Equal => Tail::Half,
        std::cmp::Ordering::Greater => Tail::Above,
    };
    (n, tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: Option<Dir> = None;

    #[test]
    fn f16_decodes_exactly() {
        assert_eq!(F16.to_f64(0x3c00), 1.0);
        assert_eq!(F16.to_f64(0xc000), -2.0);
        assert_eq!(F16.to_f64(0x7bff), 65504.0, "the largest finite");
        assert_eq!(F16.to_f64(0x0400), 2f64.powi(-14), "the smallest normal");
        assert_eq!(F16.to_f64(0x0001), 2f64.powi(-24), "the smallest subnormal");
        assert_eq!(F16.to_f64(0x03ff), 1023.0 * 2f64.powi(-24));
        assert_eq!(F16.to_f64(0x7c00), f64::INFINITY);
        assert_eq!(F16.to_f64(0xfc00), f64::NEG_INFINITY);
        assert!(F16.to_f64(0x7e00).is_nan());
        assert!(F16.to_f64(0x8000).is_sign_negative());
        assert_eq!(BF16.to_f64(0x3f80), 1.0);
        assert_eq!(BF16.to_f64(0x7f7f), f64::from(f32::from_bits(0x7f7f_0000)));
        assert_eq!(BF16.to_f64(0x0001), f64::from(f32::from_bits(0x0001_0000)));
        assert_eq!(BF16.to_f64(0xff80), f64::NEG_INFINITY);
    }

    #[test]
    fn f16_rounds_ties_to_even_and_in_each_direction() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1).
        let tie = 1.0 + 2f64.powi(-11);
        assert_eq!(F16.from_f64(tie, RN), 0x3c00);
        assert_eq!(
            F16.from_f64(1.0 + 3.0 * 2f64.powi(-11), RN),
            0x3c02,
            "to even, up"
        );
        assert_eq!(F16.from_f64(tie, Some(Dir::Up)), 0x3c01);
        assert_eq!(F16.from_f64(tie, Some(Dir::Down)), 0x3c00);
        assert_eq!(F16.from_f64(-tie, Some(Dir::Down)), 0xbc01);
        assert_eq!(F16.from_f64(-tie, Some(Dir::Zero)), 0xbc00);
        assert_eq!(F16.from_f64(tie + 1e-9, RN), 0x3c01, "above the tie");
        // Exact values are unchanged in every mode.
        for dir in [RN, Some(Dir::Zero), Some(Dir::Down), Some(Dir::Up)] {
            assert_eq!(F16.from_f64(0.5, dir), 0x3800);
            assert_eq!(F16.from_f64(-65504.0, dir), 0xfbff);
        }
    }

    #[test]
    fn f16_overflows_to_infinity_or_the_largest_finite() {
        // 65520 is halfway between 65504 and 65536 (= 2^16, past the top):
        // to even goes up, to infinity.
        assert_eq!(F16.from_f64(65519.0, RN), 0x7bff);
        assert_eq!(F16.from_f64(65520.0, RN), 0x7c00);
        assert_eq!(F16.from_f64(1e10, RN), 0x7c00);
        assert_eq!(F16.from_f64(-1e10, RN), 0xfc00);
        assert_eq!(F16.from_f64(1e10, Some(Dir::Zero)), 0x7bff);
        assert_eq!(F16.from_f64(-1e10, Some(Dir::Zero)), 0xfbff);
        assert_eq!(F16.from_f64(1e10, Some(Dir::Down)), 0x7bff);
        assert_eq!(F16.from_f64(-1e10, Some(Dir::Down)), 0xfc00);
        assert_eq!(F16.from_f64(1e10, Some(Dir::Up)), 0x7c00);
        assert_eq!(F16.from_f64(-1e10, Some(Dir::Up)), 0xfbff);
        // Just above the largest finite, upward only goes to infinity.
        assert_eq!(F16.from_f64(65504.5, Some(Dir::Up)), 0x7c00);
        assert_eq!(F16.from_f64(65504.5, RN), 0x7bff);
        assert_eq!(
            F16.from_f64(f64::INFINITY, Some(Dir::Zero)),
            0x7c00,
            "inf stays"
        );
        assert_eq!(F16.from_f64(f64::MAX, RN), 0x7c00);
    }

    #[test]
    fn f16_keeps_subnormals_and_underflows_by_the_direction() {
        let tiny = 2f64.powi(-24);
        assert_eq!(F16.from_f64(tiny, RN), 0x0001);
        assert_eq!(F16.from_f64(3.0 * tiny, RN), 0x0003);
        // Half the smallest subnormal: a tie, to even (zero).
        assert_eq!(F16.from_f64(tiny / 2.0, RN), 0x0000);
        assert_eq!(F16.from_f64(-tiny / 2.0, RN), 0x8000, "a signed zero");
        assert_eq!(F16.from_f64(tiny * 0.75, RN), 0x0001);
        assert_eq!(F16.from_f64(1.5 * tiny, RN), 0x0002, "a tie to even");
        assert_eq!(F16.from_f64(1e-30, Some(Dir::Up)), 0x0001);
        assert_eq!(F16.from_f64(1e-30, Some(Dir::Down)), 0x0000);
        assert_eq!(F16.from_f64(-1e-30, Some(Dir::Down)), 0x8001);
        assert_eq!(F16.from_f64(f64::from_bits(1), Some(Dir::Up)), 0x0001);
        // Rounding up out of the subnormals lands on the smallest normal.
        assert_eq!(F16.from_f64(1023.75 * tiny, RN), 0x0400);
        assert_eq!(F16.from_f64(1023.25 * tiny, RN), 0x03ff);
        // Zeros and NaN.
        assert_eq!(F16.from_f64(-0.0, RN), 0x8000);
        assert_eq!(F16.from_f64(f64::NAN, RN), 0x7fff);
        assert_eq!(F16.from_f64(-f64::NAN, Some(Dir::Up)), 0x7fff);
    }

    #[test]
    fn bf16_rounds_like_the_top_half_of_an_f32() {
        // An f32 to bf16 to nearest even: the top 16 bits, plus one when the
        // low 16 are above 0x8000 or equal with an odd top.
        let by_bits = |x: u32| {
            let (hi, lo) = (x >> 16, x & 0xffff);
            u64::from(hi + u32::from(lo > 0x8000 || lo == 0x8000 && hi & 1 == 1))
        };
        for x in [
            0x3f80_0000u32,
            0x3f80_8000,
            0x3f81_8000,
            0x3f80_8001,
            0x0000_8000,
            0x0001_8000,
            0x807f_ffff,
            0x7f7f_ffff,
            0x4049_0fdb,
        ] {
            let v = f64::from(f32::from_bits(x));
            assert_eq!(BF16.from_f64(v, RN), by_bits(x), "{x:#x}");
            assert_eq!(
                BF16.from_f64(v, Some(Dir::Zero)),
                u64::from(x >> 16),
                "{x:#x}"
            );
        }
        // f32::MAX rounds up past bf16's largest finite: infinity.
        assert_eq!(BF16.from_f64(f64::from(f32::MAX), RN), 0x7f80);
        assert_eq!(BF16.from_f64(f64::from(f32::MAX), Some(Dir::Zero)), 0x7f7f);
    }

    /// The nearest-even `fma` of three f16 values, by f64 (exact for the
    /// operands of these tests: their products and sums fit in 53 bits).
    fn fma_by_f64(a: u64, b: u64, c: u64) -> u64 {
        F16.from_f64(F16.to_f64(a).mul_add(F16.to_f64(b), F16.to_f64(c)), RN)
    }

    #[test]
    fn f16_fma_rounds_once() {
        let one = 0x3c00;
        // 1 + 2^-11 (a tie) rounds to even; plus the smallest subnormal, up.
        let eps = F16.from_f64(2f64.powi(-11), RN);
        assert_eq!(F16.fma(one, one, eps), 0x3c00);
        // 2^-11 (1 + 2^-10), an f16 value: 1 plus it is just above the tie.
        let above = F16.from_f64(2f64.powi(-11) + 2f64.powi(-21), RN);
        assert_eq!(F16.to_f64(above), 2f64.powi(-11) + 2f64.powi(-21));
        assert_eq!(F16.fma(one, one, above), 0x3c01, "just above the tie");
        // A product of 2^-48, far below the addend's last place: 1 + 2^-48
        // and 1 - 2^-48 both round to 1.
        let tiny = 0x0001; // 2^-24
        assert_eq!(F16.fma(tiny, tiny, one), one);
        assert_eq!(F16.fma(tiny | 0x8000, tiny, one), one);
        // (1 + 2^-10)(1 + 2^-10) = 1 + 2^-9 + 2^-20: the 2^-20 is below the
        // last place and rounding once keeps 1 + 2^-9 (two roundings too).
        let a = 0x3c01;
        assert_eq!(F16.fma(a, a, 0x8000), 0x3c02);
        for (a, b, c) in [
            (0x3c01u64, 0x3c01u64, 0xbc00u64),
            (0x5640, 0x4e00, 0xe400),
            (0x0200, 0x3800, 0x0001),
            (0x7bff, 0x3c00, 0x3c00),
            (0x7bff, 0x4000, 0x0000),
            (0xfbff, 0x4000, 0x0000),
            (0x3555, 0x3555, 0xb800),
        ] {
            assert_eq!(
                F16.fma(a, b, c),
                fma_by_f64(a, b, c),
                "{a:#x} * {b:#x} + {c:#x}"
            );
        }
    }

    #[test]
    fn f16_fma_special_values() {
        let (inf, ninf, nan) = (0x7c00, 0xfc00, 0x7e00);
        assert_eq!(F16.fma(inf, 0x0000, 0x3c00), 0x7fff, "inf * 0");
        assert_eq!(F16.fma(inf, 0x3c00, ninf), 0x7fff, "inf - inf");
        assert_eq!(F16.fma(nan, 0x3c00, 0x3c00), 0x7fff);
        assert_eq!(F16.fma(0x3c00, 0x3c00, nan), 0x7fff);
        assert_eq!(F16.fma(inf, 0xbc00, 0x3c00), ninf);
        assert_eq!(F16.fma(0x3c00, 0x3c00, ninf), ninf);
        // Signed zeros: x * 1 + (-x) is +0; -0 * 1 + -0 is -0.
        assert_eq!(F16.fma(0x3c00, 0x3c00, 0xbc00), 0x0000);
        assert_eq!(F16.fma(0x8000, 0x3c00, 0x8000), 0x8000);
        assert_eq!(F16.fma(0x8000, 0x3c00, 0x0000), 0x0000);
        // A product too small for f16 rounds against the addend's tie.
        assert_eq!(F16.fma(0x0001, 0x0001, 0x0000), 0x0000);
        assert_eq!(F16.fma(0x0001, 0x0001, 0x8000), 0x0000, "+tiny + -0");
    }

    #[test]
    fn bf16_fma_across_its_whole_range() {
        // bf16 spans 2^-133 .. 2^128: the terms are aligned within 128 bits
        // even when their exponents are 250 apart.
        let big = 0x7f7f; // the largest finite
        let tiny = 0x0001; // the smallest subnormal
        assert_eq!(BF16.fma(big, 0x3f80, tiny), big);
        assert_eq!(BF16.fma(0x3f80, 0x3f80, 0x8001), 0x3f80);
        // 1 + 2^-8 is a tie between 1 and 1 + 2^-7; the tiny term decides.
        let half_ulp = BF16.from_f64(2f64.powi(-8), RN);
        assert_eq!(BF16.fma(0x3f80, 0x3f80, half_ulp), 0x3f80);
        let p = BF16.fma(half_ulp, 0x3f80, tiny);
        assert_eq!(
            BF16.fma(0x3f80, 0x3f80, p),
            0x3f80,
            "p rounds to 2^-8 first"
        );
        assert_eq!(BF16.fma(big, 0x4000, 0x0000), 0x7f80, "overflow to inf");
    }

    #[test]
    fn integers_round_exactly() {
        assert_eq!(F16.from_int(2048, RN), 0x6800);
        // 2049 is a tie between 2048 and 2050: to even (2048).
        assert_eq!(F16.from_int(2049, RN), 0x6800);
        assert_eq!(F16.from_int(2051, RN), 0x6802);
        assert_eq!(F16.from_int(2049, Some(Dir::Up)), 0x6801);
        assert_eq!(F16.from_int(-2049, Some(Dir::Down)), 0xe801);
        assert_eq!(F16.from_int(65519, RN), 0x7bff);
        assert_eq!(F16.from_int(65520, RN), 0x7c00);
        assert_eq!(F16.from_int(i128::from(u64::MAX), Some(Dir::Zero)), 0x7bff);
        // Beyond 2^53 a detour through f64 would round twice: 2^64 - 1 is
        // just below 2^64, to bf16 (8 bits) toward zero it is 0xff << 56.
        assert_eq!(
            BF16.from_int(i128::from(u64::MAX), Some(Dir::Zero)),
            BF16.from_f64(255.0 * 2f64.powi(56), RN)
        );
        // 2^53 + 1 + 2^45 (a bf16 tie plus a bit that f64 drops):
        // exactly, it is above the tie, so it rounds up.
        let v = (1i128 << 53) + (1 << 45) + 1;
        assert_eq!(
            BF16.from_int(v, RN),
            BF16.from_f64(2f64.powi(53) + 2f64.powi(46), RN)
        );
        assert_eq!(F16.from_int(0, Some(Dir::Down)), 0);
    }
}
