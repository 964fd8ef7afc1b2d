//! Float arithmetic with an explicit rounding direction (`fadd_rz`,
//! `fmul_ru`, `fdiv_rd`, `sqrt_rz`, `fma_ru`, ...; PTX `add.rz.f32`, ...).
//!
//! Rust computes only round-to-nearest, so each operation is computed that
//! way first. The correctly rounded result in any direction is that value
//! or one of its two neighbours, so it is enough to know on which side of
//! the exact result the nearest value lies. That side is found exactly:
//! the residual (`r - (a + b)`, `r - a·b`, `r·b - a`, `r·r - a`,
//! `r - (a·b + c)`) is a sum of at most three products of two floats,
//! and its sign is computed with big integers ([`sum_sign`]). If the
//! nearest value is on the wrong side, the answer is the neighbour one step
//! toward the exact result. IEEE's rule for an exact zero sum (`x + (-x)`)
//! gives `-0` when rounding down, and `+0` otherwise.

use super::eval::float_to_f64;
use midend::ir::{Opcode, Rounding, Type};
use std::cmp::Ordering;

/// A finite float read exactly as `±m·2^e` with an integer `m`.
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    m: u128,
    e: i32,
}

impl Exact {
    /// `x` (finite; an `f32` widened to `f64` is exact).
    fn of(x: f64) -> Exact {
        let bits = x.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i32;
        let frac = u128::from(bits & ((1 << 52) - 1));
        let (m, e) = if field == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), field - 1075)
        };
        Exact {
            neg: x.is_sign_negative(),
            m,
            e,
        }
    }

    fn neg(self) -> Exact {
        Exact {
            neg: !self.neg,
            ..self
        }
    }

    /// The exact product (at most 106 significant bits).
    fn times(self, o: Exact) -> Exact {
        Exact {
            neg: self.neg != o.neg,
            m: self.m * o.m,
            e: self.e + o.e,
        }
    }
}

/// Adds `m·2^shift` to the little-endian big integer `acc`.
fn add_shifted(acc: &mut Vec<u64>, m: u128, shift: usize) {
    let (word, bit) = (shift / 64, (shift % 64) as u32);
    let (l0, l1) = (m as u64, (m >> 64) as u64);
    let parts = if bit == 0 {
        [l0, l1, 0]
    } else {
        [
            l0 << bit,
            (l1 << bit) | (l0 >> (64 - bit)),
            l1 >> (64 - bit),
        ]
    };
    if acc.len() < word + 4 {
        acc.resize(word + 4, 0);
    }
    let mut carry = 0u64;
    for (i, slot) in acc.iter_mut().enumerate().skip(word) {
        let add = parts.get(i - word).copied().unwrap_or(0);
        let (s1, c1) = slot.overflowing_add(add);
        let (s2, c2) = s1.overflowing_add(carry);
        *slot = s2;
        carry = u64::from(c1) + u64::from(c2);
        if carry == 0 && i >= word + 2 {
            break;
        }
    }
}

/// Compares two little-endian big integers.
fn cmp_big(a: &[u64], b: &[u64]) -> Ordering {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        match x.cmp(&y) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    Ordering::Equal
}

/// The sign of the exact sum of `terms`, as an ordering against zero.
fn sum_sign(terms: &[Exact]) -> Ordering {
    let Some(emin) = terms.iter().filter(|t| t.m != 0).map(|t| t.e).min() else {
        return Ordering::Equal;
    };
    let (mut pos, mut neg) = (Vec::new(), Vec::new());
    for t in terms.iter().filter(|t| t.m != 0) {
        let acc = if t.neg { &mut neg } else { &mut pos };
        add_shifted(acc, t.m, (t.e - emin) as usize);
    }
    cmp_big(&pos, &neg)
}

fn next(ty: Type, x: f64, up: bool) -> u64 {
    if ty == Type::F32 {
        let v = x as f32;
        u64::from(if up { v.next_up() } else { v.next_down() }.to_bits())
    } else if up {
        x.next_up().to_bits()
    } else {
        x.next_down().to_bits()
    }
}

/// `op` (an opcode with an explicit rounding) on `f32` or `f64` operands.
/// `nearest` is the round-to-nearest result of the same operation.
pub fn eval(op: Opcode, ty: Type, args: &[u64], nearest: u64) -> u64 {
    let Some((base, mode)) = op.explicit_rounding() else {
        return nearest;
    };
    let r = float_to_f64(nearest, ty);
    let x: Vec<f64> = args.iter().map(|&a| float_to_f64(a, ty)).collect();
    if mode == Rounding::Nearest || r.is_nan() {
        return nearest;
    }
    // Infinite operands and division by zero give exact results.
    if x.iter().any(|v| v.is_infinite()) || (base == Opcode::Fdiv && x[1] == 0.0) {
        return nearest;
    }
    let e: Vec<Exact> = x.iter().map(|&v| Exact::of(v)).collect();
    // Where the nearest value lies relative to the exact result.
    let side = if r.is_infinite() {
        // Overflow of finite operands: the exact result is finite.
        if r > 0.0 {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    } else {
        let er = Exact::of(r);
        match base {
            Opcode::Fadd => sum_sign(&[er, e[0].neg(), e[1].neg()]),
            Opcode::Fmul => sum_sign(&[er, e[0].times(e[1]).neg()]),
            Opcode::Fdiv => {
                let s = sum_sign(&[er.times(e[1]), e[0].neg()]);
                if x[1] < 0.0 {
                    s.reverse()
                } else {
                    s
                }
            }
            Opcode::Sqrt => sum_sign(&[er.times(er), e[0].neg()]),
            _ => sum_sign(&[er, e[0].times(e[1]).neg(), e[2].neg()]),
        }
    };
    if side == Ordering::Equal {
        let exact_zero_sum = r == 0.0 && matches!(base, Opcode::Fadd | Opcode::Fma);
        if exact_zero_sum && mode == Rounding::Down {
            // -0 unless both addends are +0.
            let (p, q) = if base == Opcode::Fadd {
                (x[0], x[1])
            } else {
                let neg = x[0].is_sign_negative() != x[1].is_sign_negative();
                let p = if x[0] == 0.0 || x[1] == 0.0 { 0.0 } else { 1.0 };
                (if neg { -p } else { p }, x[2])
            };
            let plus_zero = |v: f64| v == 0.0 && v.is_sign_positive();
            let zero = if plus_zero(p) && plus_zero(q) {
                0.0
            } else {
                -0.0
            };
            return if ty == Type::F32 {
                u64::from((zero as f32).to_bits())
            } else {
                f64::to_bits(zero)
            };
        }
        return nearest;
    }
    let step = match mode {
        Rounding::Up => (side == Ordering::Less).then_some(true),
        Rounding::Down => (side == Ordering::Greater).then_some(false),
        _ => {
            // Toward zero: only when the nearest value is farther out.
            let out = (r > 0.0 && side == Ordering::Greater) || (r < 0.0 && side == Ordering::Less);
            out.then_some(r < 0.0)
        }
    };
    match step {
        Some(up) => next(ty, r, up),
        None => nearest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    fn run(op: Opcode, args: &[f32]) -> f32 {
        let a: Vec<u64> = args.iter().map(|&v| f(v)).collect();
        let near = match op.explicit_rounding().unwrap().0 {
            Opcode::Fadd => args[0] + args[1],
            Opcode::Fmul => args[0] * args[1],
            Opcode::Fdiv => args[0] / args[1],
            Opcode::Sqrt => args[0].sqrt(),
            _ => args[0].mul_add(args[1], args[2]),
        };
        f32::from_bits(eval(op, Type::F32, &a, f(near)) as u32)
    }

    #[test]
    fn directed_roundings_of_simple_cases() {
        let third = 1.0f32 / 3.0; // 1/3 rounds up to nearest
        assert!(f64::from(third) > 1.0 / 3.0);
        assert_eq!(run(Opcode::FdivRu, &[1.0, 3.0]), third);
        assert_eq!(run(Opcode::FdivRd, &[1.0, 3.0]), third.next_down());
        assert_eq!(run(Opcode::FdivRz, &[-1.0, 3.0]), -third.next_down());
        assert_eq!(run(Opcode::FdivRd, &[-1.0, 3.0]), -third);
        // 1 + 2^-30 is 1 to nearest; up it is the next float.
        let tiny = 2f32.powi(-30);
        assert_eq!(run(Opcode::FaddRu, &[1.0, tiny]), 1.0f32.next_up());
        assert_eq!(run(Opcode::FaddRz, &[1.0, tiny]), 1.0);
        assert_eq!(run(Opcode::FaddRd, &[1.0, -tiny]), 1.0f32.next_down());
        // Overflow: toward zero stays finite.
        assert_eq!(run(Opcode::FmulRz, &[f32::MAX, 2.0]), f32::MAX);
        assert_eq!(run(Opcode::FmulRu, &[f32::MAX, 2.0]), f32::INFINITY);
        assert_eq!(run(Opcode::FmulRd, &[-f32::MAX, 2.0]), f32::NEG_INFINITY);
        // sqrt(2) rounds down to nearest.
        assert_eq!(run(Opcode::SqrtRu, &[2.0]), 2f32.sqrt().next_up());
        // Exact zero sums: -0 only when rounding down.
        assert!(run(Opcode::FaddRd, &[1.0, -1.0]).is_sign_negative());
        assert!(run(Opcode::FaddRu, &[1.0, -1.0]).is_sign_positive());
        assert!(run(Opcode::FmaRd, &[2.0, 3.0, -6.0]).is_sign_negative());
        assert!(run(Opcode::FaddRd, &[0.0, 0.0]).is_sign_positive());
        // Underflow: up from a positive tiny product is the smallest subnormal.
        assert_eq!(run(Opcode::FmulRu, &[1e-30, 1e-30]), f32::from_bits(1));
        assert_eq!(run(Opcode::FmulRd, &[1e-30, 1e-30]), 0.0);
    }
}
