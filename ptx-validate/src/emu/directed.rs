//! `add`, `sub`, `mul`, `div`, `fma`, `sqrt` and `rcp` with a directed
//! rounding modifier (`.rz`, `.rm`, `.rp`) on `f32` and `f64`.
//!
//! The emulator computes the round-to-nearest result, then decides exactly
//! whether the true result lies above or below it: the difference is a
//! signed sum of products of two floats, which is evaluated as one big
//! integer scaled to the smallest exponent involved. The directed result
//! is the nearest value or its neighbour toward the true result. An exact
//! zero sum of opposite addends is `-0` under `.rm` and `+0` otherwise
//! (IEEE 754, 6.3).

use super::ops::{canonical_nan, to_f64};
use super::program::Ty;
use std::cmp::Ordering;

/// `sign · mant · 2^exp`, a finite float or a product of two.
#[derive(Clone, Copy)]
struct Term {
    negative: bool,
    mant: u128,
    exp: i32,
}

fn term(x: f64) -> Term {
    let b = x.to_bits();
    let biased = ((b >> 52) & 0x7ff) as i32;
    let frac = u128::from(b & 0x000f_ffff_ffff_ffff);
    let (mant, exp) = match biased {
        0 => (frac, -1074),
        _ => (frac + (1u128 << 52), biased - 1075),
    };
    Term {
        negative: b >> 63 == 1,
        mant,
        exp,
    }
}

fn mul(a: Term, b: Term) -> Term {
    Term {
        negative: a.negative ^ b.negative,
        mant: a.mant * b.mant,
        exp: a.exp + b.exp,
    }
}

fn negate(t: Term) -> Term {
    Term {
        negative: !t.negative,
        ..t
    }
}

/// The sign of `Σ terms`, from one big integer: 32-bit limbs holding
/// signed sums in `i64`, normalized (carries propagated) at the end.
fn sign_of_sum(terms: &[Term]) -> Ordering {
    let live: Vec<&Term> = terms.iter().filter(|t| t.mant != 0).collect();
    let Some(low) = live.iter().map(|t| t.exp).min() else {
        return Ordering::Equal;
    };
    let high = live.iter().map(|t| t.exp - low + 128).max().unwrap_or(0) as usize;
    let mut limbs = vec![0i64; high / 32 + 6];
    for t in live {
        let shift = (t.exp - low) as usize;
        let (limb, bit) = (shift / 32, shift % 32);
        let sign = if t.negative { -1 } else { 1 };
        // Each 32-bit piece of the mantissa, shifted by `bit`, touches
        // two limbs.
        for k in 0..4 {
            let piece = ((t.mant >> (32 * k)) & 0xffff_ffff) as u64;
            let moved = piece << bit;
            limbs[limb + k] += sign * (moved & 0xffff_ffff) as i64;
            limbs[limb + k + 1] += sign * (moved >> 32) as i64;
        }
    }
    // Normalize: carry signed overflow upward so every limb is in [0, 2^32).
    let mut carry = 0i64;
    for l in limbs.iter_mut() {
        let v = *l + carry;
        carry = v.div_euclid(1 << 32);
        *l = v.rem_euclid(1 << 32);
    }
    if carry < 0 {
        return Ordering::Less;
    }
    if carry > 0 || limbs.iter().any(|&l| l != 0) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn step(ty: Ty, x: f64, up: bool) -> u64 {
    if ty.bits == 32 {
        let v = x as f32;
        u64::from(if up { v.next_up() } else { v.next_down() }.to_bits())
    } else if up {
        x.next_up().to_bits()
    } else {
        x.next_down().to_bits()
    }
}

/// `op` (`add`, `sub`, `mul`, `div`, `fma`, `sqrt`, `rcp`) rounded by
/// `rnd` (`.rz`, `.rm`, `.rp`); `near` is the round-to-nearest result.
pub fn round(op: &str, rnd: &str, ty: Ty, args: &[u64], near: u64) -> u64 {
    if near == canonical_nan(ty.bits) {
        return near;
    }
    let mut v: Vec<f64> = args.iter().map(|&a| to_f64(ty, a)).collect();
    let r = to_f64(ty, near);
    let (kind, v) = match op {
        "sub" => {
            v[1] = -v[1];
            ("add", v)
        }
        "rcp" => ("div", vec![1.0, v[0]]),
        other => (other, v),
    };
    if v.iter().any(|x| x.is_infinite()) || (kind == "div" && v[1] == 0.0) {
        return near;
    }
    let t: Vec<Term> = v.iter().map(|&x| term(x)).collect();
    // How the nearest value compares with the true result.
    let rel = if r.is_infinite() {
        if r > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    } else {
        let tr = term(r);
        match kind {
            "add" => sign_of_sum(&[tr, negate(t[0]), negate(t[1])]),
            "mul" => sign_of_sum(&[tr, negate(mul(t[0], t[1]))]),
            "div" => {
                let s = sign_of_sum(&[mul(tr, t[1]), negate(t[0])]);
                if v[1] < 0.0 {
                    s.reverse()
                } else {
                    s
                }
            }
            "sqrt" => sign_of_sum(&[mul(tr, tr), negate(t[0])]),
            _ => sign_of_sum(&[tr, negate(mul(t[0], t[1])), negate(t[2])]),
        }
    };
    if rel == Ordering::Equal {
        if r == 0.0 && rnd == ".rm" && matches!(kind, "add" | "fma") {
            let (p, q) = if kind == "add" {
                (v[0], v[1])
            } else {
                (v[0] * v[1], v[2])
            };
            let positive_zero = |x: f64| x == 0.0 && !x.is_sign_negative();
            if !(positive_zero(p) && positive_zero(q)) {
                return if ty.bits == 32 { 0x8000_0000 } else { 1 << 63 };
            }
        }
        return near;
    }
    let up = match rnd {
        ".rp" if rel == Ordering::Less => true,
        ".rm" if rel == Ordering::Greater => false,
        ".rz" if r > 0.0 && rel == Ordering::Greater => false,
        ".rz" if r < 0.0 && rel == Ordering::Less => true,
        _ => return near,
    };
    step(ty, r, up)
}
