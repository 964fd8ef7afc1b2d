//! CUDA's device functions outside the transcendental math library:
//! `min`/`max`/`abs` with their C++ overloads, bit reinterpretation
//! (`__float_as_int`, ...), conversions with an explicit rounding
//! (`__float2int_rn`, `__int2float_rz`, `lrintf`, ...), the integer
//! intrinsics (`__mulhi`, `__byte_perm`, `__funnelshift_l`, ...), the SIMD
//! video intrinsics (`__vaddus4`, ...: `simd_video.rs`) and the
//! floating-point class tests (`isnan`, `signbit`, ...).
//!
//! As in `builtins.rs`, each call is resolved the way C++ would pick among
//! the declarations of CUDA's headers (`crt/math_functions.h`,
//! `device_functions.h`), and becomes one typed node whose arguments
//! already have the parameter types. The overloaded names (`min`, `max`,
//! `abs`) go through [`best_overload`], a small model of C++ overload
//! ranking on arithmetic types: an argument matches a parameter exactly,
//! by promotion (`char`/`short`/`bool` to `int`, `float` to `double`) or
//! by conversion, and the chosen candidate must be at least as good on
//! every argument and better on one. So `min(int, unsigned)` is the
//! `unsigned` overload, and `min(float, 0)` is ambiguous, as with nvcc.

use super::convert::convert;
use super::Checker;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::simd_video::SimdFn;
use crate::typed::{ArithOp, Expr, ExprKind, FloatClass, Intrinsic, MathFn, RoundMode};
use crate::types::CType;

/// How well an argument matches a parameter (C++ [over.ics.rank]; lower is
/// better).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Exact,
    Promotion,
    Conversion,
}

/// The implicit conversion rank from `from` to `to`, both arithmetic.
fn rank(from: &CType, to: &CType) -> Option<Rank> {
    if !from.is_arithmetic() || !to.is_arithmetic() {
        return None;
    }
    Some(if from == to {
        Rank::Exact
    } else if (*to == CType::INT && from.promoted() == CType::INT)
        || (*from == CType::FLOAT && *to == CType::DOUBLE)
    {
        Rank::Promotion
    } else {
        Rank::Conversion
    })
}

/// The outcome of overload resolution.
enum Resolution {
    Chosen(usize),
    /// No candidate accepts the arguments.
    NoMatch,
    /// Several candidates are equally good.
    Ambiguous(Vec<usize>),
}

/// C++ overload resolution of `args` among `candidates` (parameter lists
/// of the same length as `args`).
fn best_overload(candidates: &[&[CType]], args: &[CType]) -> Resolution {
    let ranks: Vec<Option<Vec<Rank>>> = candidates
        .iter()
        .map(|params| {
            params
                .iter()
                .zip(args)
                .map(|(p, a)| rank(a, p))
                .collect::<Option<Vec<Rank>>>()
        })
        .collect();
    let viable: Vec<usize> = (0..candidates.len())
        .filter(|&i| ranks[i].is_some())
        .collect();
    let better = |c: usize, d: usize| {
        let (rc, rd) = (ranks[c].as_ref().unwrap(), ranks[d].as_ref().unwrap());
        rc.iter().zip(rd).all(|(x, y)| x <= y) && rc.iter().zip(rd).any(|(x, y)| x < y)
    };
    if viable.is_empty() {
        return Resolution::NoMatch;
    }
    for &c in &viable {
        if viable.iter().all(|&d| d == c || better(c, d)) {
            return Resolution::Chosen(c);
        }
    }
    // The candidates no other one beats are the ambiguous ones.
    let tied = viable
        .iter()
        .copied()
        .filter(|&c| !viable.iter().any(|&d| d != c && better(d, c)))
        .collect();
    Resolution::Ambiguous(tied)
}

/// CUDA's `min`/`max` overloads (`long` and `long long` are one type in
/// kernelc, so their overloads are listed once). The result type is the
/// common type of the two parameters.
const MIN_MAX: &[&[CType]] = &[
    &[CType::INT, CType::INT],
    &[CType::UINT, CType::UINT],
    &[CType::INT, CType::UINT],
    &[CType::UINT, CType::INT],
    &[CType::LONG, CType::LONG],
    &[CType::ULONG, CType::ULONG],
    &[CType::LONG, CType::ULONG],
    &[CType::ULONG, CType::LONG],
    &[CType::FLOAT, CType::FLOAT],
    &[CType::DOUBLE, CType::DOUBLE],
    &[CType::FLOAT, CType::DOUBLE],
    &[CType::DOUBLE, CType::FLOAT],
];

/// CUDA's device overloads of `abs`.
const ABS: &[&[CType]] = &[
    &[CType::INT],
    &[CType::LONG],
    &[CType::FLOAT],
    &[CType::DOUBLE],
];

/// C spelling of a parameter type in messages.
fn spelled(t: &CType) -> &'static str {
    match *t {
        CType::INT => "int",
        CType::UINT => "unsigned int",
        CType::LONG => "long long",
        CType::ULONG => "unsigned long long",
        CType::FLOAT => "float",
        _ => "double",
    }
}

/// One of the type names in CUDA's conversion intrinsics (`__ll2float_rz`).
fn conv_type(s: &str) -> Option<CType> {
    Some(match s {
        "float" => CType::FLOAT,
        "double" => CType::DOUBLE,
        "int" => CType::INT,
        "uint" => CType::UINT,
        "ll" => CType::LONG,
        "ull" => CType::ULONG,
        _ => return None,
    })
}

/// A conversion intrinsic `__SRC2DST_RND`: its types and rounding. Only
/// the combinations CUDA declares are accepted (`__int2double_rn` has no
/// directed forms: the conversion is exact).
fn conversion(name: &str) -> Option<(CType, CType, RoundMode)> {
    let rest = name.strip_prefix("__")?;
    let (types, rnd) = rest.rsplit_once('_')?;
    let (src, dst) = types.split_once('2')?;
    let mode = match rnd {
        "rn" => RoundMode::Nearest,
        "rz" => RoundMode::Zero,
        "ru" => RoundMode::Up,
        "rd" => RoundMode::Down,
        _ => return None,
    };
    let (from, to) = (conv_type(src)?, conv_type(dst)?);
    let declared = match (src, dst) {
        ("float" | "double", "int" | "uint" | "ll" | "ull") => true,
        ("double", "float") => true,
        ("int" | "uint" | "ll" | "ull", "float") => true,
        ("ll" | "ull", "double") => true,
        ("int" | "uint", "double") => mode == RoundMode::Nearest,
        _ => false,
    };
    declared.then_some((from, to, mode))
}

/// C's float-to-integer functions that round first: `lrintf` (to nearest
/// even) and `lroundf` (halfway away from zero), with their `ll` and
/// `double` spellings. All return a 64-bit integer.
fn rounding_to_long(name: &str) -> Option<(CType, MathFn)> {
    Some(match name {
        "lrintf" | "llrintf" => (CType::FLOAT, MathFn::Rint),
        "lroundf" | "llroundf" => (CType::FLOAT, MathFn::Round),
        "lrint" | "llrint" => (CType::DOUBLE, MathFn::Rint),
        "lround" | "llround" => (CType::DOUBLE, MathFn::Round),
        _ => return None,
    })
}

/// Functions with one signature: the intrinsic, parameters, result.
fn fixed(name: &str) -> Option<(Intrinsic, Vec<CType>, CType)> {
    use Intrinsic as I;
    if let Some(f) = SimdFn::parse(name) {
        return Some((I::SimdVideo(f), f.params(), f.value_type()));
    }
    let (i, u, l, ul) = (CType::INT, CType::UINT, CType::LONG, CType::ULONG);
    let (f, d) = (CType::FLOAT, CType::DOUBLE);
    let min = I::MinMax { max: false };
    let max = I::MinMax { max: true };
    Some(match name {
        "umin" => (min, vec![u.clone(), u.clone()], u),
        "umax" => (max, vec![u.clone(), u.clone()], u),
        "llmin" => (min, vec![l.clone(), l.clone()], l),
        "llmax" => (max, vec![l.clone(), l.clone()], l),
        "ullmin" => (min, vec![ul.clone(), ul.clone()], ul),
        "ullmax" => (max, vec![ul.clone(), ul.clone()], ul),
        "labs" | "llabs" => (I::Abs, vec![l.clone()], l),
        "__float_as_int" => (I::Reinterpret, vec![f], i),
        "__float_as_uint" => (I::Reinterpret, vec![f], u),
        "__int_as_float" => (I::Reinterpret, vec![i], f),
        "__uint_as_float" => (I::Reinterpret, vec![u], f),
        "__double_as_longlong" => (I::Reinterpret, vec![d], l),
        "__longlong_as_double" => (I::Reinterpret, vec![l], d),
        "__double2hiint" => (I::DoubleHalf { hi: true }, vec![d], i),
        "__double2loint" => (I::DoubleHalf { hi: false }, vec![d], i),
        "__hiloint2double" => (I::HiLoToDouble, vec![i.clone(), i], d),
        "__mul24" => (I::Mul24, vec![i.clone(), i.clone()], i),
        "__umul24" => (I::Mul24, vec![u.clone(), u.clone()], u),
        "__mulhi" => (I::MulHi, vec![i.clone(), i.clone()], i),
        "__umulhi" => (I::MulHi, vec![u.clone(), u.clone()], u),
        "__mul64hi" => (I::MulHi, vec![l.clone(), l.clone()], l),
        "__umul64hi" => (I::MulHi, vec![ul.clone(), ul.clone()], ul),
        "__sad" => (I::Sad, vec![i.clone(), i, u.clone()], u),
        "__usad" => (I::Sad, vec![u.clone(), u.clone(), u.clone()], u),
        "__byte_perm" => (I::BytePerm, vec![u.clone(), u.clone(), u.clone()], u),
        "__nv_bswap16" => {
            let us = CType::Int {
                bits: 16,
                signed: false,
            };
            (I::ByteSwap, vec![us.clone()], us)
        }
        "__nv_bswap32" => (I::ByteSwap, vec![u.clone()], u),
        "__nv_bswap64" => (I::ByteSwap, vec![ul.clone()], ul),
        "nextafterf" => (I::NextAfter, vec![f.clone(), f.clone()], f),
        "__hadd" => (I::HalfAdd { round: false }, vec![i.clone(), i.clone()], i),
        "__rhadd" => (I::HalfAdd { round: true }, vec![i.clone(), i.clone()], i),
        "__uhadd" => (I::HalfAdd { round: false }, vec![u.clone(), u.clone()], u),
        "__urhadd" => (I::HalfAdd { round: true }, vec![u.clone(), u.clone()], u),
        "remquof" => (I::Remquo, vec![f.clone(), f.clone(), CType::ptr_to(i)], f),
        "normf" | "rnormf" => (
            I::NormArray {
                reciprocal: name == "rnormf",
            },
            vec![i, const_ptr_to(f.clone())],
            f,
        ),
        "norm" | "rnorm" => (
            I::NormArray {
                reciprocal: name == "rnorm",
            },
            vec![i, const_ptr_to(d.clone())],
            d,
        ),
        _ => {
            let (left, clamp) = match name {
                "__funnelshift_l" => (true, false),
                "__funnelshift_lc" => (true, true),
                "__funnelshift_r" => (false, false),
                "__funnelshift_rc" => (false, true),
                _ => return None,
            };
            (
                I::FunnelShift { left, clamp },
                vec![u.clone(), u.clone(), u.clone()],
                u,
            )
        }
    })
}

/// The class tests, overloaded on `float` and `double`.
pub(super) fn class_test(name: &str) -> Option<FloatClass> {
    Some(match name {
        "isnan" => FloatClass::Nan,
        "isinf" => FloatClass::Inf,
        "isfinite" => FloatClass::Finite,
        "signbit" => FloatClass::Signbit,
        _ => return None,
    })
}

/// The C library's class tests of CUDA's headers (`__isnanf`, `__signbit`,
/// ...): one fixed operand type each (`double` for the `l` forms, as nvcc
/// treats `long double` in device code), an `int` 0 or 1 as nvcc's.
fn fixed_class_test(name: &str) -> Option<(FloatClass, CType)> {
    let (f, d) = (CType::FLOAT, CType::DOUBLE);
    Some(match name {
        "__isnanf" => (FloatClass::Nan, f),
        "__isnan" | "__isnanl" => (FloatClass::Nan, d),
        "__isinff" => (FloatClass::Inf, f),
        "__isinf" | "__isinfl" => (FloatClass::Inf, d),
        "__finitef" => (FloatClass::Finite, f),
        "__finite" | "__finitel" => (FloatClass::Finite, d),
        "__signbitf" => (FloatClass::Signbit, f),
        "__signbit" | "__signbitl" => (FloatClass::Signbit, d),
        _ => return None,
    })
}

/// Functions of CUDA's headers that are other functions with their
/// arguments converted: `fdivide` (a `double` division), `nextafter`,
/// `scalbln`/`scalblnf` (`scalbn` with a `long` exponent) and `nan`/`nanf`.
fn is_adapted(name: &str) -> bool {
    matches!(
        name,
        "fdivide" | "nextafter" | "scalbln" | "scalblnf" | "nan" | "nanf"
    )
}

/// The payload `nan(tag)`/`nanf(tag)` give a NaN, as CUDA's library reads
/// the tag: an unsigned number, hexadecimal after `0x`/`0X`, octal after a
/// leading `0`, else decimal; an empty tag or any other character gives 0,
/// a number past 64 bits every bit set. The caller keeps the bits that fit
/// below the quiet bit.
fn nan_payload(tag: &[u8]) -> u64 {
    let (digits, radix) = match tag {
        [b'0', b'x' | b'X', rest @ ..] => (rest, 16),
        [b'0', rest @ ..] => (rest, 8),
        _ => (tag, 10),
    };
    let mut value: u64 = 0;
    for &c in digits {
        let Some(d) = char::from(c).to_digit(radix) else {
            return 0;
        };
        value = match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => v,
            None => return u64::MAX,
        };
    }
    value
}

/// `ldexpf`/`scalbnf` (`x·2^n`), `frexpf` and `modff`, with their
/// overloaded spellings: the intrinsic and, for the `f` names, `float`.
fn float_with_extra(name: &str) -> Option<(Intrinsic, bool)> {
    Some(match name {
        "ldexpf" | "scalbnf" => (Intrinsic::Ldexp, true),
        "ldexp" | "scalbn" => (Intrinsic::Ldexp, false),
        "frexpf" => (Intrinsic::Frexp, true),
        "frexp" => (Intrinsic::Frexp, false),
        "modff" => (Intrinsic::Modf, true),
        "modf" => (Intrinsic::Modf, false),
        _ => return None,
    })
}

/// `ilogbf`/`ilogb` and `logbf`/`logb`: whether the result is the `int`
/// exponent, and whether the name fixes `float` (else overloaded).
fn exponent_fn(name: &str) -> Option<(bool, bool)> {
    Some(match name {
        "ilogbf" => (true, true),
        "ilogb" => (true, false),
        "logbf" => (false, true),
        "logb" => (false, false),
        _ => return None,
    })
}

/// An explicitly rounded arithmetic intrinsic: `__fadd_rz`, `__dsub_ru`,
/// `__fmaf_rn`, `__fma_rd`, `__frcp_rz`, `__dsqrt_rn`, `__frsqrt_rn`, ...
fn rounded_arith(name: &str) -> Option<(ArithOp, RoundMode, CType)> {
    let rest = name.strip_prefix("__")?;
    let (stem, rnd) = rest.rsplit_once('_')?;
    let mode = match rnd {
        "rn" => RoundMode::Nearest,
        "rz" => RoundMode::Zero,
        "ru" => RoundMode::Up,
        "rd" => RoundMode::Down,
        _ => return None,
    };
    let (op, ty) = match stem {
        "fadd" => (ArithOp::Add, CType::FLOAT),
        "fsub" => (ArithOp::Sub, CType::FLOAT),
        "fmul" => (ArithOp::Mul, CType::FLOAT),
        "fdiv" => (ArithOp::Div, CType::FLOAT),
        "fmaf" => (ArithOp::Fma, CType::FLOAT),
        // The `ieee` forms are never flushed by `-ftz`; see docs/math.md.
        "fmaf_ieee" => (ArithOp::Fma, CType::FLOAT),
        "frcp" => (ArithOp::Rcp, CType::FLOAT),
        "fsqrt" => (ArithOp::Sqrt, CType::FLOAT),
        "frsqrt" if mode == RoundMode::Nearest => (ArithOp::Rsqrt, CType::FLOAT),
        "dadd" => (ArithOp::Add, CType::DOUBLE),
        "dsub" => (ArithOp::Sub, CType::DOUBLE),
        "dmul" => (ArithOp::Mul, CType::DOUBLE),
        "ddiv" => (ArithOp::Div, CType::DOUBLE),
        "fma" => (ArithOp::Fma, CType::DOUBLE),
        "drcp" => (ArithOp::Rcp, CType::DOUBLE),
        "dsqrt" => (ArithOp::Sqrt, CType::DOUBLE),
        _ => return None,
    };
    Some((op, mode, ty))
}

/// `sincos`-style functions: `pi`, `fast`, and whether the name fixes
/// `float` (the others are overloaded on `float` and `double`).
fn sincos(name: &str) -> Option<(bool, bool, bool)> {
    Some(match name {
        "sincosf" => (false, false, true),
        "sincospif" => (true, false, true),
        "__sincosf" => (false, true, true),
        "sincos" => (false, false, false),
        "sincospi" => (true, false, false),
        _ => return None,
    })
}

/// `const T *`, the pointer parameter of `norm(dim, p)`.
fn const_ptr_to(t: CType) -> CType {
    CType::Pointer {
        pointee: Box::new(t),
        pointee_const: true,
        pointee_volatile: false,
        restrict: false,
    }
}

/// Whether `name` is one of this module's functions.
pub(super) fn is_device_fn(name: &str) -> bool {
    matches!(name, "min" | "max" | "abs" | "remquo")
        || fixed(name).is_some()
        || conversion(name).is_some()
        || rounding_to_long(name).is_some()
        || class_test(name).is_some()
        || fixed_class_test(name).is_some()
        || is_adapted(name)
        || float_with_extra(name).is_some()
        || exponent_fn(name).is_some()
        || rounded_arith(name).is_some()
        || sincos(name).is_some()
}

fn node(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

fn intrinsic(op: Intrinsic, args: Vec<Expr>, ty: CType, span: Span) -> Expr {
    node(ExprKind::Intrinsic { op, args }, ty, span)
}

impl Checker {
    /// Types a call of one of this module's functions (`is_device_fn`).
    pub(super) fn device_fn_call(
        &mut self,
        name: &str,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if let Some((op, params, ret)) = fixed(name) {
            return self.fixed(name, op, &params, ret, args, span);
        }
        if matches!(name, "min" | "max") {
            return self
                .overloaded(name, MIN_MAX, args, span)
                .map(|(ty, args)| {
                    intrinsic(Intrinsic::MinMax { max: name == "max" }, args, ty, span)
                });
        }
        if name == "remquo" {
            return self.remquo(args, span);
        }
        if name == "abs" {
            return self
                .overloaded(name, ABS, args, span)
                .map(|(ty, args)| intrinsic(Intrinsic::Abs, args, ty, span));
        }
        if let Some((from, to, mode)) = conversion(name) {
            return self.rounded_conversion(name, from, to, mode, args, span);
        }
        if let Some((from, f)) = rounding_to_long(name) {
            if !self.arg_count(name, &args, 1, 1, span) {
                return None;
            }
            let x = self.convert_args(name, args, std::slice::from_ref(&from))?;
            let rounded = intrinsic(Intrinsic::Math(f), x, from, span);
            return Some(convert(rounded, &CType::LONG));
        }
        if let Some(class) = class_test(name) {
            if !self.arg_count(name, &args, 1, 1, span) {
                return None;
            }
            let ty = self.float_or_double(name, &args[0])?;
            let x = convert(args.into_iter().next()?, &ty);
            return Some(intrinsic(
                Intrinsic::Classify(class),
                vec![x],
                CType::INT,
                span,
            ));
        }
        if let Some((class, ty)) = fixed_class_test(name) {
            if !self.arg_count(name, &args, 1, 1, span) {
                return None;
            }
            let x = self.convert_args(name, args, &[ty])?;
            return Some(intrinsic(Intrinsic::Classify(class), x, CType::INT, span));
        }
        if let Some((int, is_float)) = exponent_fn(name) {
            if !self.arg_count(name, &args, 1, 1, span) {
                return None;
            }
            let ty = self.operand_type(name, &args[0], is_float)?;
            let x = convert(args.into_iter().next()?, &ty);
            let ret = if int { CType::INT } else { ty };
            return Some(intrinsic(Intrinsic::Logb { int }, vec![x], ret, span));
        }
        if let Some((op, mode, ty)) = rounded_arith(name) {
            let n = match op {
                ArithOp::Fma => 3,
                ArithOp::Rcp | ArithOp::Sqrt | ArithOp::Rsqrt => 1,
                _ => 2,
            };
            if !self.arg_count(name, &args, n, n, span) {
                return None;
            }
            let args = self.convert_args(name, args, &vec![ty.clone(); n])?;
            return Some(intrinsic(
                Intrinsic::RoundedArith { op, mode },
                args,
                ty,
                span,
            ));
        }
        if let Some((pi, fast, is_float)) = sincos(name) {
            if !self.arg_count(name, &args, 3, 3, span) {
                return None;
            }
            let ty = self.operand_type(name, &args[0], is_float)?;
            // `--use_fast_math` makes `sincosf` the approximate form, as
            // with nvcc.
            let fast = fast || (self.opts.fast_math && ty == CType::FLOAT && !pi);
            for a in &args[1..] {
                if !a.ty.is_pointer() {
                    self.error(
                        a.span,
                        Code::E0099,
                        format!("arguments 2 and 3 of `{name}` must be pointers to `{ty}`"),
                    );
                    return None;
                }
            }
            let p = CType::ptr_to(ty.clone());
            let args = self.convert_args(name, args, &[ty, p.clone(), p])?;
            return Some(intrinsic(
                Intrinsic::SinCos { pi, fast },
                args,
                CType::Void,
                span,
            ));
        }
        if is_adapted(name) {
            return self.adapted(name, args, span);
        }
        let (op, is_float) = float_with_extra(name)?;
        self.float_with_extra(name, op, is_float, args, span)
    }

    /// `remquo(x, y, int *q)`: CUDA's overloads on `float` and `double`
    /// (`math_functions.h`): the `float` one for two `float` operands,
    /// else the `double` one (an operand that is not arithmetic fails
    /// the conversion).
    fn remquo(&mut self, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if !self.arg_count("remquo", &args, 3, 3, span) {
            return None;
        }
        let ty = if args[0].ty == CType::FLOAT && args[1].ty == CType::FLOAT {
            CType::FLOAT
        } else {
            CType::DOUBLE
        };
        let params = [ty.clone(), ty.clone(), CType::ptr_to(CType::INT)];
        let args = self.convert_args("remquo", args, &params)?;
        Some(intrinsic(Intrinsic::Remquo, args, ty, span))
    }

    /// The calls of [`is_adapted`]'s functions.
    fn adapted(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
        let (f, d) = (CType::FLOAT, CType::DOUBLE);
        match name {
            "nan" | "nanf" => self.nan(name, args, span),
            "fdivide" => {
                if !self.arg_count(name, &args, 2, 2, span) {
                    return None;
                }
                let mut ab = self.convert_args(name, args, &[d.clone(), d.clone()])?;
                let (b, a) = (ab.pop()?, ab.pop()?);
                let kind = ExprKind::Binary {
                    op: crate::typed::BinOp::Div,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                };
                Some(node(kind, d, span))
            }
            "nextafter" => {
                let (ty, args) =
                    self.overloaded(name, &[&[f.clone(), f], &[d.clone(), d]], args, span)?;
                Some(intrinsic(Intrinsic::NextAfter, args, ty, span))
            }
            _ => {
                // `scalbln(x, long n)`: `n` clamped to `int` first (CUDA's
                // own `scalbn` clamps it much further, so nothing changes).
                if !self.arg_count(name, &args, 2, 2, span) {
                    return None;
                }
                let ty = self.operand_type(name, &args[0], name == "scalblnf")?;
                let mut xn = self.convert_args(name, args, &[ty.clone(), CType::LONG])?;
                let n = xn.pop()?;
                let x = xn.pop()?;
                let bound = |v: i128| node(ExprKind::IntConst(v), CType::LONG, span);
                let n = intrinsic(
                    Intrinsic::MinMax { max: true },
                    vec![n, bound(i128::from(i32::MIN))],
                    CType::LONG,
                    span,
                );
                let n = intrinsic(
                    Intrinsic::MinMax { max: false },
                    vec![n, bound(i128::from(i32::MAX))],
                    CType::LONG,
                    span,
                );
                Some(intrinsic(
                    Intrinsic::Ldexp,
                    vec![x, convert(n, &CType::INT)],
                    ty,
                    span,
                ))
            }
        }
    }

    /// `nan(tag)`/`nanf(tag)` on a string literal: the quiet NaN with the
    /// tag's payload ([`nan_payload`]), a constant as in nvcc's PTX.
    fn nan(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if !self.arg_count(name, &args, 1, 1, span) {
            return None;
        }
        let ExprKind::Str(tag) = &args[0].kind else {
            self.error(
                args[0].span,
                Code::E0002,
                format!("`{name}` of a tag that is not a string literal is not supported by kernelc yet"),
            );
            return None;
        };
        let payload = nan_payload(tag);
        let (bits, ty, int) = if name == "nanf" {
            let quiet = 0x7fc0_0000u64 | (payload & 0x3f_ffff);
            (i128::from(quiet as u32 as i32), CType::FLOAT, CType::INT)
        } else {
            let quiet = 0x7ff8_0000_0000_0000u64 | (payload & 0x7_ffff_ffff_ffff);
            (i128::from(quiet as i64), CType::DOUBLE, CType::LONG)
        };
        let pattern = node(ExprKind::IntConst(bits), int, span);
        Some(intrinsic(Intrinsic::Reinterpret, vec![pattern], ty, span))
    }

    /// Resolves an overloaded call; returns the result type and the
    /// arguments converted to the chosen overload's parameters (for the
    /// mixed overloads, to the result type, as CUDA's definitions do).
    fn overloaded(
        &mut self,
        name: &str,
        candidates: &[&[CType]],
        args: Vec<Expr>,
        span: Span,
    ) -> Option<(CType, Vec<Expr>)> {
        let (c, args) = self.resolve_overload(name, candidates, args, span)?;
        let params = candidates[c];
        let ty = params.iter().skip(1).fold(params[0].clone(), |a, b| {
            crate::types::usual_arithmetic(&a, b)
        });
        let args = args.into_iter().map(|a| convert(a, &ty)).collect();
        Some((ty, args))
    }

    /// C++'s choice among `candidates` (CUDA's overloads of `name`, all of
    /// one length) for `args`: the winner's index, and the arguments as
    /// they were. No viable overload, or several tied, is a located error
    /// naming CUDA's declarations.
    pub(super) fn resolve_overload(
        &mut self,
        name: &str,
        candidates: &[&[CType]],
        args: Vec<Expr>,
        span: Span,
    ) -> Option<(usize, Vec<Expr>)> {
        let n = candidates[0].len();
        if !self.arg_count(name, &args, n, n, span) {
            return None;
        }
        let types: Vec<CType> = args.iter().map(|a| a.ty.clone()).collect();
        let shown: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
        let list = |which: &[usize]| {
            which
                .iter()
                .map(|&c| {
                    let ps: Vec<&str> = candidates[c].iter().map(spelled).collect();
                    format!("`{name}({})`", ps.join(", "))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match best_overload(candidates, &types) {
            Resolution::Chosen(c) => Some((c, args)),
            Resolution::NoMatch => {
                self.error(
                    span,
                    Code::E0099,
                    format!(
                        "no matching overload of `{name}` for arguments of type {}; \
                         CUDA declares {}",
                        shown.join(", "),
                        list(&(0..candidates.len()).collect::<Vec<_>>())
                    ),
                );
                None
            }
            Resolution::Ambiguous(tied) => {
                self.diags.push(
                    Diagnostic::error(
                        span,
                        Code::E0099,
                        format!(
                            "call to `{name}` with arguments of type {} is ambiguous",
                            shown.join(", ")
                        ),
                    )
                    .with_note(format!(
                        "these CUDA overloads match equally well: {}; \
                         cast an argument to pick one (nvcc rejects the call too)",
                        list(&tied)
                    )),
                );
                None
            }
        }
    }

    /// `__SRC2DST_RND(x)`: a float-to-integer conversion rounds to an
    /// integral value first (`rintf`, `ceilf`, `floorf`; `_rz` is C's
    /// cast), then converts exactly (saturating, NaN to 0, as PTX `cvt`).
    /// A conversion to a floating type is a cast when it rounds to nearest,
    /// and [`Intrinsic::ConvertRounded`] otherwise.
    fn rounded_conversion(
        &mut self,
        name: &str,
        from: CType,
        to: CType,
        mode: RoundMode,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if !self.arg_count(name, &args, 1, 1, span) {
            return None;
        }
        let x = self
            .convert_args(name, args, std::slice::from_ref(&from))?
            .pop()?;
        if from.is_float() && !to.is_float() {
            let round = match mode {
                RoundMode::Nearest => Some(MathFn::Rint),
                RoundMode::Zero => None,
                RoundMode::Up => Some(MathFn::Ceil),
                RoundMode::Down => Some(MathFn::Floor),
            };
            let x = match round {
                Some(f) => intrinsic(Intrinsic::Math(f), vec![x], from, span),
                None => x,
            };
            return Some(convert(x, &to));
        }
        if mode == RoundMode::Nearest {
            return Some(convert(x, &to));
        }
        Some(intrinsic(
            Intrinsic::ConvertRounded(mode),
            vec![x],
            to,
            span,
        ))
    }

    /// `float` for a name that fixes it (`sincosf`, `ilogbf`, ...), else
    /// the argument's own `float` or `double` ([`Self::float_or_double`]).
    fn operand_type(&mut self, name: &str, arg: &Expr, is_float: bool) -> Option<CType> {
        if is_float {
            Some(CType::FLOAT)
        } else {
            self.float_or_double(name, arg)
        }
    }

    /// The floating type of an argument of a function overloaded on
    /// `float` and `double` only.
    fn float_or_double(&mut self, name: &str, arg: &Expr) -> Option<CType> {
        if arg.ty.is_float() {
            return Some(arg.ty.clone());
        }
        self.error(
            arg.span,
            Code::E0099,
            format!(
                "argument of `{name}` has type `{}`; expected `float` or `double` \
                 (nvcc has no device overload for other types)",
                arg.ty
            ),
        );
        None
    }

    /// `ldexpf(x, n)`, `frexpf(x, int *e)`, `modff(x, float *ip)` and their
    /// overloaded spellings.
    fn float_with_extra(
        &mut self,
        name: &str,
        op: Intrinsic,
        is_float: bool,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if !self.arg_count(name, &args, 2, 2, span) {
            return None;
        }
        let ty = self.operand_type(name, &args[0], is_float)?;
        let second = match op {
            Intrinsic::Ldexp => CType::INT,
            Intrinsic::Frexp => CType::ptr_to(CType::INT),
            _ => CType::ptr_to(ty.clone()),
        };
        if op != Intrinsic::Ldexp && !args[1].ty.is_pointer() {
            self.error(
                args[1].span,
                Code::E0099,
                format!(
                    "argument 2 of `{name}` must be a pointer to `{}`, got `{}`",
                    second.pointee().map_or(String::new(), |p| p.to_string()),
                    args[1].ty
                ),
            );
            return None;
        }
        let args = self.convert_args(name, args, &[ty.clone(), second])?;
        Some(intrinsic(op, args, ty, span))
    }
}
