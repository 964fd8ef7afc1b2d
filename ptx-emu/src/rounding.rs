//! Directed rounding (`.rz`, `.rm`, `.rp`) of float arithmetic and
//! conversions.
//!
//! The host only rounds to nearest, so each operation is computed that way
//! first, and the result is then moved one step toward zero, down or up
//! when the exact value lies on the wrong side of it. Which side it lies on
//! is found exactly, with error-free transformations: a product of two f32
//! is exact in f64; `two_sum` gives the rounding error of a sum; `fma`
//! gives the error of a product, the residual of a quotient (`x - q*y`)
//! and of a square root (`x - r*r`); Boldo and Muller's `ErrFma` gives the
//! error of an fma. nvcc's math library needs this (`expf` computes a floor
//! with `fma.rm.f32`), so its PTX runs in the emulator.

use crate::decode::{Arith, FloatUnOp};
use std::cmp::Ordering;

/// A directed rounding mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    Zero,
    Down,
    Up,
}

/// `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn sign(x: f64) -> Ordering {
    x.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// Moves the nearest result `r` (a float of the target format, held in an
/// f64 together with the steps of that format) to the directed result,
/// given the sign of `exact - r`.
fn adjust<T: Step>(r: T, err: Ordering, dir: Dir) -> T {
    if err == Ordering::Equal || r.is_nan() {
        return r;
    }
    let down = match dir {
        Dir::Down => true,
        Dir::Up => false,
        // Toward zero: down for a positive exact value, up for a negative
        // one. r may be a zero of either sign; err tells the exact side.
        Dir::Zero => {
            if r.is_zero() {
                return r.zero_like(err);
            }
            r.is_positive()
        }
    };
    match (down, err) {
        (true, Ordering::Less) => r.down(),
        (false, Ordering::Greater) => r.up(),
        _ => r,
    }
}

/// The operations [`adjust`] needs from f32 and f64.
trait Step: Copy {
    fn is_nan(self) -> bool;
    fn is_zero(self) -> bool;
    fn is_positive(self) -> bool;
    fn down(self) -> Self;
    fn up(self) -> Self;
    /// Rounding a nonzero value on side `err` of zero toward zero.
    fn zero_like(self, err: Ordering) -> Self;
}

macro_rules! step {
    ($t:ty) => {
        impl Step for $t {
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_zero(self) -> bool {
                self == 0.0
            }
            fn is_positive(self) -> bool {
                self > 0.0
            }
            fn down(self) -> Self {
                self.next_down()
            }
            fn up(self) -> Self {
                self.next_up()
            }
            fn zero_like(self, err: Ordering) -> Self {
                if err == Ordering::Less {
                    -0.0
                } else {
                    0.0
                }
            }
        }
    };
}
step!(f32);
step!(f64);

/// `add`/`sub`/`mul`/`div` on f32 with a directed rounding.
pub fn binary32(op: Arith, x: f32, y: f32, dir: Dir) -> f32 {
    let y = if op == Arith::Sub { -y } else { y };
    let (xd, yd) = (f64::from(x), f64::from(y));
    let (r, err) = match op {
        Arith::Add | Arith::Sub => {
            let r = x + y;
            let (h, l) = two_sum(xd, yd);
            (r, sign((h - f64::from(r)) + l))
        }
        Arith::Mul => {
            let r = x * y;
            (
                r,
                (xd * yd)
                    .partial_cmp(&f64::from(r))
                    .unwrap_or(Ordering::Equal),
            )
        }
        Arith::Div => {
            let r = x / y;
            if r.is_nan() || x == 0.0 || y.is_infinite() {
                (r, Ordering::Equal)
            } else if r.is_infinite() {
                (
                    r,
                    if x.is_finite() && y != 0.0 {
                        overflow_err(r)
                    } else {
                        Ordering::Equal
                    },
                )
            } else {
                // exact - r has the sign of (x - r*y) / y; r*y is exact.
                let res = xd - f64::from(r) * yd;
                (
                    r,
                    if yd > 0.0 {
                        sign(res)
                    } else {
                        sign(res).reverse()
                    },
                )
            }
        }
    };
    let alike = x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative();
    if matches!(op, Arith::Add | Arith::Sub)
        && zero_sum_down(r == 0.0, err == Ordering::Equal, dir, alike)
    {
        return -0.0;
    }
    adjust(r, err, dir)
}

/// `add`/`sub`/`mul`/`div` on f64 with a directed rounding.
pub fn binary64(op: Arith, x: f64, y: f64, dir: Dir) -> f64 {
    let y = if op == Arith::Sub { -y } else { y };
    let finite = x.is_finite() && y.is_finite();
    let r = match op {
        Arith::Add | Arith::Sub => x + y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
    };
    let err = if r.is_nan() {
        Ordering::Equal
    } else if r.is_infinite() {
        if finite && !(op == Arith::Div && y == 0.0) {
            overflow_err(r)
        } else {
            Ordering::Equal
        }
    } else {
        match op {
            Arith::Add | Arith::Sub => sign(two_sum(x, y).1),
            Arith::Mul => sign(x.mul_add(y, -r)),
            _ if x == 0.0 || y.is_infinite() => Ordering::Equal,
            _ if r == 0.0 => overflow_side(x, y),
            _ => {
                let res = (-r).mul_add(y, x);
                if y > 0.0 {
                    sign(res)
                } else {
                    sign(res).reverse()
                }
            }
        }
    };
    let alike = x == 0.0 && y == 0.0 && x.is_sign_negative() == y.is_sign_negative();
    if matches!(op, Arith::Add | Arith::Sub)
        && zero_sum_down(r == 0.0, err == Ordering::Equal, dir, alike)
    {
        return -0.0;
    }
    adjust(r, err, dir)
}

/// IEEE 754's sign of an exact zero sum `a + b` (§6.3): two zeros of one
/// sign keep it; any other exact zero (`x + -x`, `+0 + -0`) is `+0`, but
/// `-0` when rounding down. The host computed `+0` for those, which is
/// right in every other mode. `zeros_alike`: both addends are zeros of one
/// sign.
fn zero_sum_down(r_is_zero: bool, exact: bool, dir: Dir, zeros_alike: bool) -> bool {
    r_is_zero && exact && dir == Dir::Down && !zeros_alike
}

/// The side of zero of x / y when the quotient underflowed to zero.
fn overflow_side(x: f64, y: f64) -> Ordering {
    if (x > 0.0) == (y > 0.0) {
        Ordering::Greater
    } else {
        Ordering::Less
    }
}

/// `fma` on f32 with a directed rounding: x*y is exact in f64.
pub fn fma32(x: f32, y: f32, z: f32, dir: Dir) -> f32 {
    let r = x.mul_add(y, z);
    if !r.is_finite() {
        // Only a finite exact value can have overflowed; an infinite or
        // NaN input makes the result exact.
        let inputs_finite = x.is_finite() && y.is_finite() && z.is_finite();
        let err = if inputs_finite {
            overflow_err(r)
        } else {
            Ordering::Equal
        };
        return adjust(r, err, dir);
    }
    let p = f64::from(x) * f64::from(y);
    let (h, l) = two_sum(p, f64::from(z));
    let err = sign((h - f64::from(r)) + l);
    let alike = p == 0.0 && z == 0.0 && p.is_sign_negative() == z.is_sign_negative();
    if zero_sum_down(r == 0.0, err == Ordering::Equal, dir, alike) {
        return -0.0;
    }
    adjust(r, err, dir)
}

/// `fma` on f64 with a directed rounding: the sign of `x*y + z - r` from
/// ErrFma (Boldo & Muller), which writes it as `r2 + r3` exactly with
/// `|r3| <= ulp(r2)/2`.
pub fn fma64(x: f64, y: f64, z: f64, dir: Dir) -> f64 {
    let r = x.mul_add(y, z);
    if !r.is_finite() {
        // Only a finite exact value can have overflowed; an infinite or
        // NaN input makes the result exact.
        let inputs_finite = x.is_finite() && y.is_finite() && z.is_finite();
        let err = if inputs_finite {
            overflow_err(r)
        } else {
            Ordering::Equal
        };
        return adjust(r, err, dir);
    }
    let u1 = x * y;
    let u2 = x.mul_add(y, -u1);
    let (a1, a2) = two_sum(z, u2);
    let (b1, b2) = two_sum(u1, a1);
    let g = (b1 - r) + b2;
    let (r2, r3) = two_sum(g, a2);
    let err = if r2 != 0.0 { sign(r2) } else { sign(r3) };
    // The product's zero-ness and sign, exactly (u1 may have underflowed).
    let p_zero = x == 0.0 || y == 0.0;
    let p_neg = x.is_sign_negative() != y.is_sign_negative();
    let alike = p_zero && z == 0.0 && p_neg == z.is_sign_negative();
    if zero_sum_down(r == 0.0, err == Ordering::Equal, dir, alike) {
        return -0.0;
    }
    adjust(r, err, dir)
}

/// An infinite nearest result of finite inputs overflowed: the exact value
/// is finite, on the zero side of the infinity.
fn overflow_err<T: Step + PartialOrd + Default>(r: T) -> Ordering {
    if r.is_nan() {
        Ordering::Equal
    } else if r > T::default() {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// `sqrt` and `rcp` with a directed rounding.
pub fn unary32(op: FloatUnOp, x: f32, dir: Dir) -> f32 {
    let xd = f64::from(x);
    let (r, err) = match op {
        FloatUnOp::Sqrt => {
            let r = x.sqrt();
            if !r.is_finite() || r == 0.0 {
                (r, Ordering::Equal)
            } else {
                (r, sign(xd - f64::from(r) * f64::from(r)))
            }
        }
        FloatUnOp::Rcp => {
            let r = 1.0 / x;
            if r.is_infinite() && x.is_finite() && x != 0.0 {
                // 1/x of a tiny x overflowed: the exact value is finite.
                (r, overflow_err(r))
            } else if !r.is_finite() || r == 0.0 {
                (r, Ordering::Equal)
            } else {
                let res = 1.0 - f64::from(r) * xd;
                (
                    r,
                    if xd > 0.0 {
                        sign(res)
                    } else {
                        sign(res).reverse()
                    },
                )
            }
        }
        _ => return f32::NAN,
    };
    adjust(r, err, dir)
}

/// `sqrt` and `rcp` on f64 with a directed rounding.
pub fn unary64(op: FloatUnOp, x: f64, dir: Dir) -> f64 {
    let (r, err) = match op {
        FloatUnOp::Sqrt => {
            let r = x.sqrt();
            if !r.is_finite() || r == 0.0 {
                (r, Ordering::Equal)
            } else {
                (r, sign((-r).mul_add(r, x)))
            }
        }
        FloatUnOp::Rcp => {
            let r = 1.0 / x;
            if r.is_infinite() && x.is_finite() && x != 0.0 {
                // 1/x of a tiny x overflowed: the exact value is finite.
                (r, overflow_err(r))
            } else if !r.is_finite() || r == 0.0 {
                (r, Ordering::Equal)
            } else {
                let res = (-r).mul_add(x, 1.0);
                (
                    r,
                    if x > 0.0 {
                        sign(res)
                    } else {
                        sign(res).reverse()
                    },
                )
            }
        }
        _ => return f64::NAN,
    };
    adjust(r, err, dir)
}

/// An integer converted to f32 or f64 with a directed rounding.
pub fn int_to_f32(v: i128, dir: Dir) -> f32 {
    let r = v as f32;
    adjust(r, v.cmp(&(r as i128)), dir)
}

pub fn int_to_f64(v: i128, dir: Dir) -> f64 {
    let r = v as f64;
    adjust(r, v.cmp(&(r as i128)), dir)
}

/// f64 narrowed to f32 with a directed rounding.
pub fn f64_to_f32(x: f64, dir: Dir) -> f32 {
    let r = x as f32;
    if r.is_infinite() && x.is_finite() {
        return adjust(r, overflow_err(r), dir);
    }
    adjust(
        r,
        x.partial_cmp(&f64::from(r)).unwrap_or(Ordering::Equal),
        dir,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_f32_arithmetic_brackets_the_exact_value() {
        let (a, b) = (1.0f32, 3.0f32);
        let down = binary32(Arith::Div, a, b, Dir::Down);
        let up = binary32(Arith::Div, a, b, Dir::Up);
        assert_eq!(up, down.next_up());
        assert!(f64::from(down) < 1.0 / 3.0 && f64::from(up) > 1.0 / 3.0);
        assert_eq!(binary32(Arith::Div, -a, b, Dir::Zero), -down);
        // Exact results are not moved.
        assert_eq!(binary32(Arith::Add, 1.5, 2.25, Dir::Up), 3.75);
        // 1 + 2^-30 is between 1 and next_up(1).
        let tiny = 2f32.powi(-30);
        assert_eq!(binary32(Arith::Add, 1.0, tiny, Dir::Up), 1.0f32.next_up());
        assert_eq!(binary32(Arith::Add, 1.0, tiny, Dir::Down), 1.0);
        assert_eq!(
            binary32(Arith::Sub, 1.0, tiny, Dir::Down),
            1.0f32.next_down()
        );
        assert_eq!(fma32(1.0, 1.0, tiny, Dir::Up), 1.0f32.next_up());
        assert_eq!(fma32(1.0, 1.0, -tiny, Dir::Zero), 1.0f32.next_down());
        assert_eq!(
            unary32(FloatUnOp::Sqrt, 2.0, Dir::Up),
            2f32.sqrt()
                .max(unary32(FloatUnOp::Sqrt, 2.0, Dir::Down).next_up())
        );
        // Overflow rounds to the largest finite value toward zero.
        assert_eq!(binary32(Arith::Mul, f32::MAX, 2.0, Dir::Zero), f32::MAX);
        assert_eq!(binary32(Arith::Mul, f32::MAX, 2.0, Dir::Up), f32::INFINITY);
    }

    /// An f32 in [2^-8, 2^8) (either sign) as an exact multiple of 2^-40.
    fn fixed(x: f32) -> i128 {
        let v = f64::from(x) * 2f64.powi(40);
        assert_eq!(v.fract(), 0.0);
        v as i128
    }

    /// Rounds `num * 2^-scale` to f32 in direction `dir`, by exact
    /// comparison with the candidates around its nearest f64 value.
    fn round_exact(num: i128, scale: i32, dir: Dir) -> f32 {
        let approx = (num as f64 * 2f64.powi(-scale)) as f32;
        // A tiny result of a cancellation is exactly representable; its
        // neighbours would be off the grid.
        let scaled = f64::from(approx) * 2f64.powi(scale);
        if scaled.fract() == 0.0 && scaled as i128 == num {
            return approx;
        }
        let exact_of = |c: f32| {
            let v = f64::from(c) * 2f64.powi(scale);
            assert_eq!(v.fract(), 0.0, "candidate not on the grid");
            v as i128
        };
        let mut lo = approx.next_down().next_down();
        while exact_of(lo.next_up()) <= num {
            lo = lo.next_up();
        }
        // lo <= exact < next_up(lo)
        let exact = exact_of(lo) == num;
        match dir {
            _ if exact => lo,
            Dir::Down => lo,
            Dir::Up => lo.next_up(),
            Dir::Zero if num > 0 => lo,
            Dir::Zero => lo.next_up(),
        }
    }

    /// 30,000 random f32 additions, products and fmas in each direction,
    /// against exact integer arithmetic (no floating point in the oracle's
    /// value, only in picking candidates).
    #[test]
    fn directed_f32_matches_exact_arithmetic() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let m = 0x80_0000 | ((state >> 20) as u32 & 0x7f_ffff);
            let e = ((state >> 45) % 16) as i32 - 8;
            let s = if state >> 63 == 1 { -1.0 } else { 1.0 };
            s * m as f32 * 2f32.powi(e - 23)
        };
        for _ in 0..10_000 {
            let (a, b, c) = (next(), next(), next());
            for dir in [Dir::Zero, Dir::Down, Dir::Up] {
                let sum = fixed(a) + fixed(b);
                assert_eq!(
                    binary32(Arith::Add, a, b, dir),
                    round_exact(sum, 40, dir),
                    "{a} + {b} {dir:?}"
                );
                let prod = fixed(a) * fixed(b);
                assert_eq!(
                    binary32(Arith::Mul, a, b, dir),
                    round_exact(prod, 80, dir),
                    "{a} * {b} {dir:?}"
                );
                let f = prod + (fixed(c) << 40);
                assert_eq!(
                    fma32(a, b, c, dir),
                    round_exact(f, 80, dir),
                    "fma {a} {b} {c} {dir:?}"
                );
            }
        }
    }

    #[test]
    fn directed_f64_arithmetic_brackets_the_exact_value() {
        let d = binary64(Arith::Div, 1.0, 3.0, Dir::Down);
        assert_eq!(binary64(Arith::Div, 1.0, 3.0, Dir::Up), d.next_up());
        let tiny = 2f64.powi(-60);
        assert_eq!(fma64(1.0, 1.0, tiny, Dir::Up), 1.0f64.next_up());
        assert_eq!(fma64(1.0, 1.0, tiny, Dir::Down), 1.0);
        assert_eq!(fma64(1.0, 1.0, -tiny, Dir::Zero), 1.0f64.next_down());
        assert_eq!(
            binary64(Arith::Mul, 1.0 + f64::EPSILON, 1.0 + f64::EPSILON, Dir::Up),
            1.0 + 3.0 * f64::EPSILON
        );
        assert_eq!(
            unary64(FloatUnOp::Sqrt, 2.0, Dir::Up),
            unary64(FloatUnOp::Sqrt, 2.0, Dir::Down).next_up()
        );
        assert_eq!(int_to_f32(16_777_217, Dir::Up), 16_777_218.0);
        assert_eq!(int_to_f32(16_777_217, Dir::Down), 16_777_216.0);
        assert_eq!(int_to_f64(-(1 << 53) - 1, Dir::Zero), -(2f64.powi(53)));
        assert_eq!(f64_to_f32(0.1, Dir::Up), 0.1f32);
        assert_eq!(f64_to_f32(0.1, Dir::Down), 0.1f32.next_down());
    }

    /// IEEE's special cases: an exact zero sum is -0 only when rounding
    /// down (unless both addends are +0); infinite inputs are exact; a
    /// reciprocal that overflows is finite toward zero.
    #[test]
    fn zero_sums_infinities_and_overflow() {
        let neg0 = |x: f32| x == 0.0 && x.is_sign_negative();
        let pos0 = |x: f32| x == 0.0 && x.is_sign_positive();
        assert!(neg0(binary32(Arith::Add, -f32::MAX, f32::MAX, Dir::Down)));
        assert!(pos0(binary32(Arith::Add, -f32::MAX, f32::MAX, Dir::Up)));
        assert!(pos0(binary32(Arith::Add, 0.0, 0.0, Dir::Down)));
        assert!(neg0(binary32(Arith::Add, -0.0, -0.0, Dir::Up)));
        assert!(neg0(binary32(Arith::Sub, 1.5, 1.5, Dir::Down)));
        assert!(neg0(fma32(1.0, -1.0, 1.0, Dir::Down)));
        assert!(pos0(fma32(1.0, -1.0, 1.0, Dir::Zero)));
        assert!(binary64(Arith::Add, -1.0, 1.0, Dir::Down).is_sign_negative());
        assert!(fma64(2.0, -0.5, 1.0, Dir::Down).is_sign_negative());
        assert_eq!(fma32(f32::INFINITY, 2.0, 1.0, Dir::Zero), f32::INFINITY);
        assert_eq!(fma64(f64::INFINITY, 2.0, 1.0, Dir::Down), f64::INFINITY);
        assert_eq!(fma32(f32::MAX, 2.0, 0.0, Dir::Zero), f32::MAX);
        assert_eq!(unary32(FloatUnOp::Rcp, 1e-45, Dir::Zero), f32::MAX);
        assert_eq!(unary32(FloatUnOp::Rcp, 1e-45, Dir::Up), f32::INFINITY);
        assert_eq!(unary64(FloatUnOp::Rcp, 5e-324, Dir::Down), f64::MAX);
    }
}
