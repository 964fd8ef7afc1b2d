//! Constant expressions, where ptxas takes one: an immediate operand
//! (`add.u32 %r1, %r2, 2*3+1`), an address offset (`[%rd14+4+1]`,
//! `[%rd1+(1<<3)]`), an immediate address (`[4+4]`) and a symbol offset
//! (`sm+4+4`). C's operators and precedence over integer and float
//! literals and `WARP_SZ` (the warp size, 32, which nvcc writes for
//! `warpSize`), folded to one value when the module is read.
//!
//! Measured with ptxas 13.5: every C operator but `%` (`10%3` lexes as `10`
//! and the register `%3`), integer arithmetic in 64 bits, a float literal
//! with an integer (`1e308*10`) is `Constant expression type mismatch`,
//! and a division by zero is fatal. A name other than `WARP_SZ` cannot
//! start an expression (`4+sm` is a syntax error), and after a register
//! only `+` may follow (`[%rd1-4]` is a syntax error, `[%rd1+-4]` is not).

use crate::lexer::{FloatLit, Tok};

/// A folded constant.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Const {
    Int(i128),
    Float(FloatLit),
}

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstError {
    /// Integer and float operands mixed: an error, reading goes on.
    TypeMismatch,
    /// A division by zero: fatal, as in ptxas.
    DivisionByZero,
}

/// The value of a literal as a double, for float arithmetic.
fn float_value(f: FloatLit) -> f64 {
    match f {
        FloatLit::F32Bits(b) => f64::from(f32::from_bits(b)),
        FloatLit::F64Bits(b) => f64::from_bits(b),
        FloatLit::Decimal(v) => v,
    }
}

/// A literal negated. A bit pattern keeps its spelling with the sign bit
/// flipped, so `-0f3F800000` is the bits of -1.0.
pub fn negate(c: Const) -> Const {
    match c {
        Const::Int(v) => Const::Int(-v),
        Const::Float(FloatLit::F32Bits(b)) => Const::Float(FloatLit::F32Bits(b ^ 0x8000_0000)),
        Const::Float(FloatLit::F64Bits(b)) => {
            Const::Float(FloatLit::F64Bits(b ^ 0x8000_0000_0000_0000))
        }
        Const::Float(FloatLit::Decimal(v)) => Const::Float(FloatLit::Decimal(-v)),
    }
}

/// The binary operators by precedence level, loosest first (`?:` is
/// above them all and handled on its own). Two-character operators are
/// written as their characters.
pub const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<=", ">=", "<", ">"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/"],
];

/// Applies binary operator `op` (one of [`LEVELS`]).
pub fn binary(op: &str, a: Const, b: Const) -> Result<Const, ConstError> {
    match (a, b) {
        (Const::Int(a), Const::Int(b)) => int_binary(op, a, b).map(Const::Int),
        (Const::Float(a), Const::Float(b)) => {
            let (a, b) = (float_value(a), float_value(b));
            let truth = |t: bool| Ok(Const::Int(i128::from(t)));
            let v = match op {
                "+" => a + b,
                "-" => a - b,
                "*" => a * b,
                "/" if b == 0.0 => return Err(ConstError::DivisionByZero),
                "/" => a / b,
                "==" => return truth(a == b),
                "!=" => return truth(a != b),
                "<" => return truth(a < b),
                ">" => return truth(a > b),
                "<=" => return truth(a <= b),
                ">=" => return truth(a >= b),
                _ => return Err(ConstError::TypeMismatch),
            };
            Ok(Const::Float(FloatLit::Decimal(v)))
        }
        _ => Err(ConstError::TypeMismatch),
    }
}

/// Integer operators in ptxas's 64 bits (two's complement, wrapping).
fn int_binary(op: &str, a: i128, b: i128) -> Result<i128, ConstError> {
    let (x, y) = (a as i64, b as i64);
    let v = match op {
        "||" => i64::from(x != 0 || y != 0),
        "&&" => i64::from(x != 0 && y != 0),
        "|" => x | y,
        "^" => x ^ y,
        "&" => x & y,
        "==" => i64::from(x == y),
        "!=" => i64::from(x != y),
        "<" => i64::from(x < y),
        ">" => i64::from(x > y),
        "<=" => i64::from(x <= y),
        ">=" => i64::from(x >= y),
        "<<" => x.wrapping_shl(y as u32),
        ">>" => x.wrapping_shr(y as u32),
        "+" => x.wrapping_add(y),
        "-" => x.wrapping_sub(y),
        "*" => x.wrapping_mul(y),
        "/" if y == 0 => return Err(ConstError::DivisionByZero),
        "/" => x.wrapping_div(y),
        _ => return Err(ConstError::TypeMismatch),
    };
    Ok(i128::from(v))
}

/// Applies a unary operator (`-`, `+`, `~`, `!`).
pub fn unary(op: char, c: Const) -> Result<Const, ConstError> {
    match (op, c) {
        ('+', c) => Ok(c),
        ('-', c) => Ok(negate(c)),
        ('~', Const::Int(v)) => Ok(Const::Int(i128::from(!(v as i64)))),
        ('!', Const::Int(v)) => Ok(Const::Int(i128::from(v == 0))),
        ('!', Const::Float(f)) => Ok(Const::Int(i128::from(float_value(f) == 0.0))),
        _ => Err(ConstError::TypeMismatch),
    }
}

/// Whether a token can start a constant expression.
pub fn starts_expression(t: &Tok) -> bool {
    match t {
        Tok::Int(_) | Tok::Float(_) => true,
        Tok::Punct(c) => matches!(c, '(' | '-' | '+' | '~' | '!'),
        Tok::Ident(name) => name == WARP_SIZE_NAME,
        _ => false,
    }
}

/// PTX's one predefined constant (`mov.u32 %r1, WARP_SZ;`), and its value.
pub const WARP_SIZE_NAME: &str = "WARP_SZ";
pub const WARP_SIZE: i128 = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_operators_wrap_in_64_bits() {
        assert_eq!(int_binary("+", 4, 1), Ok(5));
        assert_eq!(int_binary("<<", 1, 63), Ok(i128::from(i64::MIN)));
        assert_eq!(int_binary("/", 10, 3), Ok(3));
        assert_eq!(int_binary("/", 1, 0), Err(ConstError::DivisionByZero));
        assert_eq!(int_binary(">=", 3, 3), Ok(1));
    }

    #[test]
    fn floats_and_integers_do_not_mix() {
        let one = Const::Float(FloatLit::Decimal(1.0));
        assert_eq!(
            binary("*", one, Const::Int(10)),
            Err(ConstError::TypeMismatch)
        );
        assert_eq!(
            binary("+", one, one),
            Ok(Const::Float(FloatLit::Decimal(2.0)))
        );
        assert_eq!(
            negate(Const::Float(FloatLit::F32Bits(0x3F80_0000))),
            Const::Float(FloatLit::F32Bits(0xBF80_0000))
        );
    }
}
