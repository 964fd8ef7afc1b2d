//! Flush-to-zero evaluation: the `f32` arithmetic of a function marked
//! `ftz` (nvcc's `-ftz=true`).
//!
//! The backend gives such a function the `.ftz` forms of PTX, which read a
//! subnormal `f32` operand as a zero of the same sign and write a subnormal
//! `f32` result as a zero of the same sign. This module applies the same
//! rule to the same IR instructions, so the interpreter and the GPU (and the
//! PTX emulator) agree bit for bit. The list, kept in step with
//! `backend-nvptx/src/ftz.rs` and docs/math.md:
//! - flushed operands and result: `fadd`, `fsub`, `fmul`, `fdiv`,
//!   `fdiv_approx`, `fdiv_full`, `fmin`, `fmax`, `fma`, `sqrt`, `rsqrt`, `ex2`, `lg2`,
//!   `sin`, `cos`, `floor`, `ceil`, `ftrunc`, `nearest`, and the
//!   explicitly rounded `fadd_rz`, `fmul_rn`, `fdiv_ru`, `sqrt_rd`,
//!   `fma_rz`, ... (PTX `add.rz.ftz.f32`, ...);
//! - flushed operand only: `fneg`, `fabs` (their result is then never
//!   subnormal), `fcmp`, `fpext` from `f32`, `fptosi`/`fptoui` from `f32`;
//! - flushed result only: `fptrunc` to `f32`;
//! - unchanged: `tanh` (`tanh.approx.f32` has no `.ftz` form and keeps
//!   subnormals), integer to `f32` conversions (they cannot produce a
//!   subnormal), and everything that only moves bits (`select`, loads,
//!   stores, `bitcast`, constants).
//!
//! `f64` and the 16-bit formats are never flushed. The opcodes `ex2_ftz`,
//! `lg2_ftz` and `rsqrt_ftz` flush in every function, marked or not
//! (`eval::float_unary` sends them here).

use super::eval;
use midend::ir::{FloatCC, Opcode, Type};

/// A subnormal `f32` (bits in the low half) becomes a zero of its sign.
pub fn flush_f32(x: u64) -> u64 {
    let exponent = (x >> 23) & 0xff;
    let mantissa = x & 0x7f_ffff;
    if exponent == 0 && mantissa != 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `flush_f32` when `ty` is `f32`, the value unchanged otherwise.
fn flush(ty: Type, x: u64) -> u64 {
    if ty == Type::F32 {
        flush_f32(x)
    } else {
        x
    }
}

/// [`eval::float_unary`] in a function marked `ftz`.
pub fn float_unary(op: Opcode, ty: Type, a: u64) -> u64 {
    if op == Opcode::Tanh {
        return eval::float_unary(op, ty, a);
    }
    flush(ty, eval::float_unary(op, ty, flush(ty, a)))
}

/// [`eval::float_binary`] in a function marked `ftz`.
pub fn float_binary(op: Opcode, ty: Type, a: u64, b: u64) -> u64 {
    flush(ty, eval::float_binary(op, ty, flush(ty, a), flush(ty, b)))
}

/// [`eval::fma`] in a function marked `ftz`.
pub fn fma(ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let f = |x| flush(ty, x);
    f(eval::fma(ty, f(a), f(b), f(c)))
}

/// [`eval::ternary`] in a function marked `ftz`.
pub fn ternary(op: Opcode, ty: Type, a: u64, b: u64, c: u64) -> u64 {
    let f = |x| flush(ty, x);
    f(eval::ternary(op, ty, f(a), f(b), f(c)))
}

/// [`eval::fcmp`] in a function marked `ftz`.
pub fn fcmp(cond: FloatCC, ty: Type, a: u64, b: u64) -> bool {
    eval::fcmp(cond, ty, flush(ty, a), flush(ty, b))
}

/// [`eval::convert`] in a function marked `ftz`: a float operand of type
/// `f32` is flushed, and so is a result of type `f32` made from a float.
pub fn convert(op: Opcode, from: Type, to: Type, a: u64) -> u64 {
    match op {
        Opcode::Fpext | Opcode::Fptrunc | Opcode::Fptosi | Opcode::Fptoui => {
            let r = eval::convert(op, from, to, flush(from, a));
            if to.is_float() {
                flush(to, r)
            } else {
                r
            }
        }
        _ => eval::convert(op, from, to, a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn subnormals_become_signed_zeros() {
        let tiny = f32::from_bits(1);
        assert_eq!(flush_f32(f(tiny)), f(0.0));
        assert_eq!(flush_f32(f(-tiny)), f(-0.0));
        assert_eq!(flush_f32(f(f32::MIN_POSITIVE)), f(f32::MIN_POSITIVE));
        assert_eq!(flush_f32(f(f32::NAN)), f(f32::NAN));
        // A product that underflows to a subnormal is flushed too.
        let half_min = f(f32::MIN_POSITIVE);
        let r = float_binary(Opcode::Fmul, Type::F32, half_min, f(0.5));
        assert_eq!(r, f(0.0));
        // `fneg` of a subnormal is the negated zero.
        assert_eq!(float_unary(Opcode::Fneg, Type::F32, f(tiny)), f(-0.0));
        // `floor` of a negative subnormal is -0, not -1.
        assert_eq!(float_unary(Opcode::Floor, Type::F32, f(-tiny)), f(-0.0));
        // `tanh` keeps subnormals.
        assert_eq!(float_unary(Opcode::Tanh, Type::F32, f(tiny)), f(tiny));
        // f64 is never flushed.
        let d = f64::from_bits(1).to_bits();
        assert_eq!(float_unary(Opcode::Fabs, Type::F64, d), d);
        assert!(!fcmp(FloatCC::Olt, Type::F32, f(0.0), f(tiny)));
        let widened = convert(Opcode::Fpext, Type::F32, Type::F64, f(tiny));
        assert_eq!(widened, 0.0f64.to_bits());
    }
}
