//! CUDA's half-precision types in device code: the functions of
//! `cuda_fp16.h` and `cuda_bf16.h` (`__hadd`, `__float2half_rz`,
//! `__halves2half2`, ...) and the operators and conversions their classes
//! give (`h1 * h2`, `h += x`, `__half h = 1.0f`, `float f = h`).
//!
//! C++ resolves these through the classes' constructors, conversion
//! operators and operator overloads; here the same outcomes are decided
//! directly: a half operand and a number of another type in one binary
//! operator is ambiguous (E0023), as with nvcc; a half converts to and from
//! every arithmetic type in assignments, initializers, arguments and
//! returns; and every function is overloaded on the format of its half
//! operands, so `__hadd(int, int)` stays the integer halving add.

use super::convert::convert;
use super::Checker;
use crate::ast::{BinaryOp, UnaryOp};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::half::{pair_format, pair_type, HalfFn, HalfOp};
use crate::typed::{CastKind, CmpOp, Expr, ExprKind, Intrinsic, MathFn, RoundMode};
use crate::types::{vector_type, CType, HalfFormat};

/// How a parameter of a half function is typed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Param {
    /// A scalar of the call's format.
    Scalar,
    /// A pair of the call's format.
    Pair,
    /// A fixed C type.
    Fixed(Fixed),
}

/// The non-half parameter and result types the functions use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fixed {
    Float,
    Double,
    Float2,
    Int { bits: u8, signed: bool },
    Bool,
}

impl Fixed {
    fn ctype(self) -> CType {
        match self {
            Fixed::Float => CType::FLOAT,
            Fixed::Double => CType::DOUBLE,
            Fixed::Float2 => vector_type("float2").expect("float2 is a vector type"),
            Fixed::Int { bits, signed } => CType::Int { bits, signed },
            Fixed::Bool => CType::Bool,
        }
    }
}

/// What a call computes once its arguments are typed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// An `Intrinsic::Half` node.
    Op(HalfOp),
    /// The one argument converted to the result type (rounded to nearest,
    /// or toward zero to an integer).
    Cast,
    /// The argument's bits as the result type (`__half_as_ushort`).
    Bits,
    /// A pair of the two arguments (`__halves2half2`, `__floats2half2_rn`).
    MakePair,
    /// Lane `y` (`high`) or `x` of a pair (`__low2half`, `__high2float`).
    Lane { high: bool },
    /// `(a.x, b.x)` or `(a.y, b.y)` of two pairs.
    Lanes2 { high: bool },
    /// Both lanes one lane of the pair.
    SplatLane { high: bool },
    /// One operation, then a second on its result (`__hadd_sat`: the sum,
    /// then saturated).
    Then(HalfOp, HalfOp),
    /// An integer with a rounding other than toward zero
    /// (`__half2int_rn`): the exact `float` value rounded.
    ToIntRounded(RoundMode),
}

/// A half function: its format (`None`: the format of its half
/// arguments), parameters, result (`Scalar`/`Pair` of the format, or a
/// fixed type) and what it computes.
struct Signature {
    format: Option<HalfFormat>,
    params: Vec<Param>,
    ret: Param,
    form: Form,
}

fn sig(format: Option<HalfFormat>, params: &[Param], ret: Param, form: Form) -> Signature {
    Signature {
        format,
        params: params.to_vec(),
        ret,
        form,
    }
}

/// How a function of the `__h*` family applies its lane function.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// On scalars (`__hadd`).
    Scalar,
    /// Lane by lane on pairs, giving a pair (`__hadd2`, `h2exp`).
    Lanes,
    /// A predicate on both lanes, both true (`__hbeq2`): `bool`.
    All,
    /// A predicate lane by lane as 16-bit masks (`__heq2_mask`):
    /// `unsigned int`.
    Mask,
}

/// A name of the `__h*` family read as its parts: the lane function, its
/// operand count, its shape, and the last step of a `_sat` or `_relu`
/// form. `__hadd2_sat` is `(Add, 2, Lanes, Some(Saturate))`; `_rn` (never
/// contracted, as kernelc never contracts half arithmetic) adds nothing.
fn family(name: &str) -> Option<(HalfFn, usize, Shape, Option<HalfFn>)> {
    // A scalar name may end in `2` itself (`hexp2`).
    let (shape, base) = if let Some((hf, n)) = scalar_fn(name) {
        return Some((hf, n, Shape::Scalar, None));
    } else if let Some(rest) = name.strip_prefix("__hb") {
        (Shape::All, format!("__h{}", rest.strip_suffix('2')?))
    } else if let Some(rest) = name.strip_prefix("h2") {
        (Shape::Lanes, format!("h{rest}"))
    } else if name.contains("2_") {
        (Shape::Lanes, name.replacen("2_", "_", 1))
    } else if let Some(base) = name.strip_suffix('2') {
        (Shape::Lanes, base.to_string())
    } else {
        (Shape::Scalar, name.to_string())
    };
    if let Some((hf, n)) = scalar_fn(&base) {
        return (shape != Shape::All || hf.is_predicate()).then_some((hf, n, shape, None));
    }
    let (stem, suffix) = base.rsplit_once('_')?;
    let (hf, n) = scalar_fn(stem)?;
    let arith = matches!(hf, HalfFn::Add | HalfFn::Sub | HalfFn::Mul);
    match (suffix, shape) {
        ("rn", Shape::Scalar | Shape::Lanes) if arith => Some((hf, n, shape, None)),
        ("sat", Shape::Scalar | Shape::Lanes) if arith || hf == HalfFn::Fma => {
            Some((hf, n, shape, Some(HalfFn::Saturate)))
        }
        ("relu", Shape::Scalar | Shape::Lanes) if hf == HalfFn::Fma => {
            Some((hf, n, shape, Some(HalfFn::Relu)))
        }
        ("mask", Shape::Lanes) if hf.is_predicate() => Some((hf, n, Shape::Mask, None)),
        _ => None,
    }
}

/// The functions overloaded on the format of their operands, by name.
fn generic(name: &str) -> Option<Signature> {
    use Param::{Pair as P, Scalar as S};
    let f = Param::Fixed(Fixed::Float);
    let b = Param::Fixed(Fixed::Bool);
    let int = |signed| Param::Fixed(Fixed::Int { bits: 32, signed });
    if name == "__h2div" {
        return Some(sig(None, &[P, P], P, Form::Op(HalfOp::Lanes(HalfFn::Div))));
    }
    if let Some((hf, n, shape, finish)) = family(name) {
        let (params, op, ret) = match shape {
            Shape::Scalar => {
                let ret = if hf.is_predicate() { b } else { S };
                ([S, S, S], HalfOp::Scalar(hf), ret)
            }
            Shape::Lanes => ([P, P, P], HalfOp::Lanes(hf), P),
            Shape::All => ([P, P, P], HalfOp::AllLanes(hf), b),
            Shape::Mask => ([P, P, P], HalfOp::MaskLanes(hf), int(false)),
        };
        let form = match finish {
            None => Form::Op(op),
            Some(last) if shape == Shape::Scalar => Form::Then(op, HalfOp::Scalar(last)),
            Some(last) => Form::Then(op, HalfOp::Lanes(last)),
        };
        return Some(sig(None, &params[..n], ret, form));
    }
    Some(match name {
        "__hisinf" => sig(None, &[S], int(true), Form::Op(HalfOp::IsInf)),
        "__low2float" => sig(None, &[P], f, Form::Lane { high: false }),
        "__high2float" => sig(None, &[P], f, Form::Lane { high: true }),
        "__low2half" | "__low2bfloat16" => sig(None, &[P], S, Form::Lane { high: false }),
        "__high2half" | "__high2bfloat16" => sig(None, &[P], S, Form::Lane { high: true }),
        "__halves2half2" | "__halves2bfloat162" => sig(None, &[S, S], P, Form::MakePair),
        "__lows2half2" | "__lows2bfloat162" => sig(None, &[P, P], P, Form::Lanes2 { high: false }),
        "__highs2half2" | "__highs2bfloat162" => sig(None, &[P, P], P, Form::Lanes2 { high: true }),
        "__low2half2" | "__low2bfloat162" => sig(None, &[P], P, Form::SplatLane { high: false }),
        "__high2half2" | "__high2bfloat162" => sig(None, &[P], P, Form::SplatLane { high: true }),
        "__lowhigh2highlow" => sig(None, &[P], P, Form::Op(HalfOp::Swap)),
        "__half2half2" | "__bfloat162bfloat162" => sig(None, &[S], P, Form::Op(HalfOp::Splat)),
        _ => return None,
    })
}

/// Why a function of the headers is not compiled yet on operands of
/// format `fmt`: the math functions that CUDA computes with approximate
/// `f32` sequences and corrections, whose bits kernelc does not reproduce
/// yet (all but `bf16` `hexp2` and `htanh`, one approximate instruction),
/// and `__hcmadd`.
fn not_yet(name: &str, fmt: Option<HalfFormat>) -> Option<&'static str> {
    const APPROXIMATE: [&str; 10] = [
        "exp",
        "exp2",
        "exp10",
        "log",
        "log2",
        "log10",
        "sin",
        "cos",
        "tanh",
        "tanh_approx",
    ];
    if name == "__hcmadd" {
        return Some("the complex multiply-add of `cuda_fp16.h`");
    }
    let base = name.strip_prefix("h2").or_else(|| name.strip_prefix('h'))?;
    if fmt == Some(HalfFormat::Bf16) && (base == "exp2" || base == "tanh") {
        return None;
    }
    APPROXIMATE.contains(&base).then_some(
        "CUDA computes it with an approximate `f32` sequence that kernelc does not reproduce",
    )
}

/// The scalar functions and their operand counts.
fn scalar_fn(name: &str) -> Option<(HalfFn, usize)> {
    let cmp = |op, unordered| HalfFn::Cmp { op, unordered };
    Some(match name {
        "__hadd" => (HalfFn::Add, 2),
        "__hsub" => (HalfFn::Sub, 2),
        "__hmul" => (HalfFn::Mul, 2),
        "__hdiv" => (HalfFn::Div, 2),
        "__hfma" => (HalfFn::Fma, 3),
        "__hneg" => (HalfFn::Neg, 1),
        "__habs" => (HalfFn::Abs, 1),
        "__hmin" => (HalfFn::Min, 2),
        "__hmax" => (HalfFn::Max, 2),
        "hsqrt" => (HalfFn::Sqrt, 1),
        "hrsqrt" => (HalfFn::Rsqrt, 1),
        "hrcp" => (HalfFn::Rcp, 1),
        "hexp2" => (HalfFn::Exp2Approx, 1),
        "htanh" => (HalfFn::TanhApprox, 1),
        "htrunc" => (HalfFn::Trunc, 1),
        "hceil" => (HalfFn::Ceil, 1),
        "hfloor" => (HalfFn::Floor, 1),
        "hrint" => (HalfFn::Rint, 1),
        "__hmin_nan" => (HalfFn::MinNan, 2),
        "__hmax_nan" => (HalfFn::MaxNan, 2),
        "__hisnan" => (HalfFn::IsNan, 1),
        "__heq" => (cmp(CmpOp::Eq, false), 2),
        "__hne" => (cmp(CmpOp::Ne, false), 2),
        "__hlt" => (cmp(CmpOp::Lt, false), 2),
        "__hle" => (cmp(CmpOp::Le, false), 2),
        "__hgt" => (cmp(CmpOp::Gt, false), 2),
        "__hge" => (cmp(CmpOp::Ge, false), 2),
        "__hequ" => (cmp(CmpOp::Eq, true), 2),
        "__hneu" => (cmp(CmpOp::Ne, true), 2),
        "__hltu" => (cmp(CmpOp::Lt, true), 2),
        "__hleu" => (cmp(CmpOp::Le, true), 2),
        "__hgtu" => (cmp(CmpOp::Gt, true), 2),
        "__hgeu" => (cmp(CmpOp::Ge, true), 2),
        _ => return None,
    })
}

/// The spelling of a format in CUDA's conversion names (`__float2half`,
/// `__float2bfloat16`), and of its pair (`half2`, `bfloat162`).
fn format_of_word(word: &str) -> Option<(HalfFormat, bool)> {
    Some(match word {
        "half" => (HalfFormat::F16, false),
        "bfloat16" => (HalfFormat::Bf16, false),
        "half2" => (HalfFormat::F16, true),
        "bfloat162" => (HalfFormat::Bf16, true),
        _ => return None,
    })
}

/// The integer spellings of the conversion names (`__int2half_rn`).
fn int_word(word: &str) -> Option<Fixed> {
    let int = |bits, signed| Fixed::Int { bits, signed };
    Some(match word {
        "char" => int(8, true),
        "uchar" => int(8, false),
        "short" => int(16, true),
        "ushort" => int(16, false),
        "int" => int(32, true),
        "uint" => int(32, false),
        "ll" => int(64, true),
        "ull" => int(64, false),
        _ => return None,
    })
}

fn round_word(word: &str) -> Option<RoundMode> {
    Some(match word {
        "rn" => RoundMode::Nearest,
        "rz" => RoundMode::Zero,
        "rd" => RoundMode::Down,
        "ru" => RoundMode::Up,
        _ => return None,
    })
}

/// The conversion functions, whose names say their format:
/// `__float2half[_rn|_rz|_rd|_ru]`, `__half2float`, `__int2half_rn`,
/// `__half2int_rz`, `__floats2half2_rn`, `__half22float2`,
/// `__half_as_ushort`, `make_half2`, and their bfloat16 spellings.
fn conversion(name: &str) -> Option<Signature> {
    use Param::{Pair as P, Scalar as S};
    let fx = Param::Fixed;
    let (f, d, f2) = (fx(Fixed::Float), fx(Fixed::Double), fx(Fixed::Float2));
    let ushort = fx(Fixed::Int {
        bits: 16,
        signed: false,
    });
    let short = fx(Fixed::Int {
        bits: 16,
        signed: true,
    });
    if let Some(word) = name.strip_prefix("make_") {
        let (fmt, true) = format_of_word(word)? else {
            return None;
        };
        return Some(sig(Some(fmt), &[S, S], P, Form::MakePair));
    }
    let body = name.strip_prefix("__")?;
    // The bit casts: `__half_as_ushort`, `__ushort_as_bfloat16`, ...
    if let Some((from, to)) = body.split_once("_as_") {
        let word = |w: &str| match w {
            "ushort" => Some(ushort),
            "short" => Some(short),
            _ => None,
        };
        return Some(match (format_of_word(from), format_of_word(to)) {
            (Some((fmt, false)), None) => sig(Some(fmt), &[S], word(to)?, Form::Bits),
            (None, Some((fmt, false))) => sig(Some(fmt), &[word(from)?], S, Form::Bits),
            _ => return None,
        });
    }
    let (types, round) = match body.rsplit_once('_') {
        Some((t, r)) if round_word(r).is_some() => (t, round_word(r)),
        _ => (body, None),
    };
    let (from, to) = types.split_once('2')?;
    // `__half22float2`, `__float22half2_rn`: the first word is a pair.
    let (from, to) = match (from, to.strip_prefix('2')) {
        ("half" | "bfloat16" | "float", Some(rest)) if format_of_word(to).is_none() => {
            (&types[..from.len() + 1], rest)
        }
        _ => (from, to),
    };
    let rn_only = |s: Signature| (round == Some(RoundMode::Nearest)).then_some(s);
    match (from, to) {
        ("float", w) | ("double", w) if format_of_word(w).is_some() => {
            let (fmt, pair) = format_of_word(w)?;
            let src = if from == "float" { f } else { d };
            if pair {
                // `__float2half2_rn`: one float to both lanes.
                return rn_only(sig(Some(fmt), &[f], P, Form::Op(HalfOp::Splat)));
            }
            let form = match round {
                None | Some(RoundMode::Nearest) => Form::Cast,
                Some(r) => Form::Op(HalfOp::FromFloat(r)),
            };
            Some(sig(Some(fmt), &[src], S, form))
        }
        ("floats", w) => {
            let (fmt, true) = format_of_word(w)? else {
                return None;
            };
            rn_only(sig(Some(fmt), &[f, f], P, Form::MakePair))
        }
        ("float2", w) => {
            let (fmt, true) = format_of_word(w)? else {
                return None;
            };
            rn_only(sig(Some(fmt), &[f2], P, Form::Op(HalfOp::FromFloat2)))
        }
        (w, "float") => {
            let (fmt, false) = format_of_word(w)? else {
                return None;
            };
            round.is_none().then(|| sig(Some(fmt), &[S], f, Form::Cast))
        }
        (w, "float2") => {
            let (fmt, true) = format_of_word(w)? else {
                return None;
            };
            round
                .is_none()
                .then(|| sig(Some(fmt), &[P], f2, Form::Op(HalfOp::ToFloat2)))
        }
        (i, w) if int_word(i).is_some() => {
            let (fmt, false) = format_of_word(w)? else {
                return None;
            };
            let src = fx(int_word(i)?);
            let form = match round? {
                RoundMode::Nearest => Form::Cast,
                // Exact in `double` for 32 bits and fewer; a 64-bit value
                // is rounded in the same direction twice, which is one
                // rounding in that direction.
                r => Form::Op(HalfOp::FromFloat(r)),
            };
            Some(sig(Some(fmt), &[src], S, form))
        }
        (w, i) if int_word(i).is_some() => {
            let (fmt, false) = format_of_word(w)? else {
                return None;
            };
            let dst = fx(int_word(i)?);
            let form = match round? {
                RoundMode::Zero => Form::Cast,
                r => Form::ToIntRounded(r),
            };
            Some(sig(Some(fmt), &[S], dst, form))
        }
        _ => None,
    }
}

/// The format of a half scalar or pair type.
fn format_of(ty: &CType) -> Option<HalfFormat> {
    match ty {
        CType::Half(f) => Some(*f),
        other => pair_format(other),
    }
}

fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

fn half_node(op: HalfOp, args: Vec<Expr>, ty: CType, span: Span) -> Expr {
    mk(
        ExprKind::Intrinsic {
            op: Intrinsic::Half(op),
            args,
        },
        ty,
        span,
    )
}

/// `base.x` (`high`: `.y`) of a pair expression.
fn lane(base: Expr, high: bool, fmt: HalfFormat) -> Expr {
    let span = base.span;
    mk(
        ExprKind::Field {
            base: Box::new(base),
            offset: if high { 2 } else { 0 },
        },
        CType::Half(fmt),
        span,
    )
}

fn pair_lit(x: Expr, y: Expr, fmt: HalfFormat, span: Span) -> Expr {
    mk(
        ExprKind::StructLit(vec![(0, x), (2, y)]),
        pair_type(fmt),
        span,
    )
}

impl Checker {
    /// A call of a half-precision function: `None` when `name` is not one
    /// (or, for an overloaded name such as `__hadd`, when no argument is a
    /// half), `Some(None)` after an error was reported.
    pub(super) fn half_call(
        &mut self,
        name: &str,
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<Option<Expr>> {
        let arg_format = args.iter().flatten().find_map(|a| format_of(&a.ty));
        if let Some(why) = not_yet(name, arg_format) {
            self.error(
                span,
                Code::E0002,
                format!("`{name}` is not supported by kernelc yet: {why}"),
            );
            return Some(None);
        }
        let s = conversion(name).or_else(|| generic(name))?;
        let Some(fmt) = s.format.or(arg_format) else {
            // `__hadd(int, int)` is the integer intrinsic; the other
            // generic names take only half operands.
            if scalar_fn(name).is_some() && args.iter().flatten().all(|a| a.ty.is_arithmetic()) {
                return None;
            }
            self.error(
                span,
                Code::E0004,
                format!("`{name}` takes `__half` or `__nv_bfloat16` operands"),
            );
            return Some(None);
        };
        if args.len() != s.params.len() {
            let msg = format!(
                "`{name}` takes {} arguments, but {} were given",
                s.params.len(),
                args.len()
            );
            self.error(span, Code::E0007, msg);
            return Some(None);
        }
        let mut typed = Vec::new();
        for (k, (a, p)) in args.iter().zip(&s.params).enumerate() {
            let Some(a) = a.clone() else {
                return Some(None);
            };
            let to = param_type(*p, fmt);
            if let (Some(af), Some(_)) = (format_of(&a.ty), format_of(&to)) {
                if af != fmt {
                    let msg = format!(
                        "argument {} of `{name}` is `{}`, but the call is on `{}`",
                        k + 1,
                        a.ty,
                        fmt.name()
                    );
                    self.error(a.span, Code::E0023, msg);
                    return Some(None);
                }
            }
            let at = a.span;
            let what = format!("argument {} of `{name}`", k + 1);
            let Some(v) = self.assign_convert(a, &to, &what, at) else {
                return Some(None);
            };
            typed.push(v);
        }
        let ret = param_type(s.ret, fmt);
        Some(Some(build(s.form, typed, ret, fmt, span)))
    }

    /// A binary operator with a half-precision operand: CUDA's operators on
    /// two halves of one format, and E0023 for a half with any other
    /// arithmetic operand.
    pub(super) fn half_binary(
        &mut self,
        op: BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
    ) -> Option<Expr> {
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        if pair_format(&lt).is_some() || pair_format(&rt).is_some() {
            return self.pair_binary(op, l, r, span);
        }
        if lt != rt {
            let other = if lt.is_half() { &rt } else { &lt };
            let mut d = Diagnostic::error(
                span,
                Code::E0023,
                format!(
                    "`{lt} {} {rt}` is ambiguous: CUDA's half-precision operator and the built-in one both apply",
                    op.as_str()
                ),
            );
            if other.is_arithmetic() {
                d = d.with_note("convert one side explicitly: `__half2float(h)` for float arithmetic, `__float2half(x)` for half arithmetic");
            }
            self.diags.push(d);
            return None;
        }
        let CType::Half(fmt) = lt else {
            return None;
        };
        let Some(hf) = operator_fn(op) else {
            self.error(
                span,
                Code::E0004,
                format!(
                    "invalid operands to binary `{}` (`{lt}` and `{rt}`)",
                    op.as_str()
                ),
            );
            return None;
        };
        let ty = if matches!(hf, HalfFn::Cmp { .. }) {
            CType::Bool
        } else {
            CType::Half(fmt)
        };
        Some(half_node(HalfOp::Scalar(hf), vec![l, r], ty, span))
    }

    /// A binary operator on `__half2` or `__nv_bfloat162`, as CUDA's
    /// headers define them: `+ - * /` lane by lane (`__hadd2`, ...,
    /// `__h2div`), and the comparisons true when they hold on both lanes
    /// (`__hbeq2`, ...; `!=` is `__hbneu2`), giving `bool`.
    fn pair_binary(&mut self, op: BinaryOp, l: Expr, r: Expr, span: Span) -> Option<Expr> {
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let hf = operator_fn(op).filter(|_| lt == rt);
        let Some(hf) = hf else {
            self.error(
                span,
                Code::E0004,
                format!(
                    "invalid operands to binary `{}` (`{lt}` and `{rt}`)",
                    op.as_str()
                ),
            );
            return None;
        };
        Some(if hf.is_predicate() {
            half_node(HalfOp::AllLanes(hf), vec![l, r], CType::Bool, span)
        } else {
            half_node(HalfOp::Lanes(hf), vec![l, r], lt, span)
        })
    }

    /// Unary `-` and `+` on a half or a pair (`__hneg`, `__hneg2`, and the
    /// value itself).
    pub(super) fn half_unary(&mut self, op: UnaryOp, e: Expr, span: Span) -> Option<Expr> {
        let ty = e.ty.clone();
        let neg = if pair_format(&ty).is_some() {
            HalfOp::Lanes(HalfFn::Neg)
        } else {
            HalfOp::Scalar(HalfFn::Neg)
        };
        match op {
            UnaryOp::Plus => Some(e.with_span(span)),
            UnaryOp::Neg => Some(half_node(neg, vec![e], ty, span)),
            _ => {
                self.error(
                    span,
                    Code::E0004,
                    format!("invalid operand of type `{ty}` to this unary operator"),
                );
                None
            }
        }
    }

    /// The right side of a compound assignment whose target or right side
    /// is a half: CUDA's `operator+=(__half &, const __half &)` converts the
    /// right side to the target's half type; a `float` or `double` target
    /// takes the half as a `float`.
    pub(super) fn half_compound_operand(
        &mut self,
        target: &CType,
        r: Expr,
        at: Span,
    ) -> Option<Expr> {
        if target.is_half() {
            return self.assign_convert(r, target, "compound assignment", at);
        }
        if r.ty.is_half() && target.is_float() {
            return Some(convert(r, &CType::FLOAT));
        }
        Some(r)
    }

    /// `1` of a half type, or a pair of ones, for `++`/`--` (CUDA adds a
    /// half one to each lane).
    pub(super) fn half_one(ty: &CType, span: Span) -> Expr {
        let one = |t: &CType| convert(mk(ExprKind::FloatConst(1.0), CType::FLOAT, span), t);
        match pair_format(ty) {
            Some(fmt) => pair_lit(one(&CType::Half(fmt)), one(&CType::Half(fmt)), fmt, span),
            None => one(ty),
        }
    }
}

/// The bits of a half or pair expression as an `unsigned int`.
pub(super) fn to_word(e: Expr) -> Expr {
    let span = e.span;
    half_node(HalfOp::ToWord, vec![e], CType::UINT, span)
}

/// An `unsigned int` of [`to_word`]'s as the half or pair type `ty`.
pub(super) fn from_word(word: Expr, ty: &CType) -> Expr {
    let span = word.span;
    half_node(HalfOp::FromWord, vec![word], ty.clone(), span)
}

/// The C type of a parameter or result in a call of format `fmt`.
fn param_type(p: Param, fmt: HalfFormat) -> CType {
    match p {
        Param::Scalar => CType::Half(fmt),
        Param::Pair => pair_type(fmt),
        Param::Fixed(f) => f.ctype(),
    }
}

/// The typed node of a half function whose arguments have their
/// parameters' types.
fn build(form: Form, mut args: Vec<Expr>, ret: CType, fmt: HalfFormat, span: Span) -> Expr {
    match form {
        Form::Op(op) => half_node(op, args, ret, span),
        Form::Then(first, last) => {
            let inner = half_node(first, args, ret.clone(), span);
            half_node(last, vec![inner], ret, span)
        }
        // ptxas has no `cvt.rzi.s8.bf16`: a `bf16` goes to a char through
        // its exact `float` value (`cvt.rzi.s8.f32` saturates the same).
        Form::Cast if fmt == HalfFormat::Bf16 && matches!(ret, CType::Int { bits: 8, .. }) => {
            let exact = convert(args.remove(0), &CType::FLOAT);
            convert(exact, &ret).with_span(span)
        }
        Form::Cast => convert(args.remove(0), &ret).with_span(span),
        Form::Bits => mk(
            ExprKind::Intrinsic {
                op: Intrinsic::Reinterpret,
                args,
            },
            ret,
            span,
        ),
        Form::MakePair => {
            let y = args.pop().expect("two arguments");
            let x = args.pop().expect("two arguments");
            let h = CType::Half(fmt);
            pair_lit(convert(x, &h), convert(y, &h), fmt, span)
        }
        Form::Lane { high } => {
            let l = lane(args.remove(0), high, fmt);
            convert(l, &ret).with_span(span)
        }
        Form::Lanes2 { high } => {
            let b = args.pop().expect("two arguments");
            let a = args.pop().expect("two arguments");
            pair_lit(lane(a, high, fmt), lane(b, high, fmt), fmt, span)
        }
        Form::SplatLane { high } => {
            let l = lane(args.remove(0), high, fmt);
            half_node(HalfOp::Splat, vec![l], ret, span)
        }
        Form::ToIntRounded(r) => {
            let f = convert(args.remove(0), &CType::FLOAT);
            let round = match r {
                RoundMode::Up => MathFn::Ceil,
                RoundMode::Down => MathFn::Floor,
                _ => MathFn::Rint,
            };
            let integral = mk(
                ExprKind::Intrinsic {
                    op: Intrinsic::Math(round),
                    args: vec![f],
                },
                CType::FLOAT,
                span,
            );
            convert(integral, &ret)
        }
    }
}

/// The cast kinds between a half and another type (`sema/convert.rs`):
/// a half is a float in every conversion but to the other half format,
/// which CUDA has no single conversion for.
pub(crate) fn half_cast_kind(from: &CType, to: &CType) -> Option<CastKind> {
    Some(match (from, to) {
        (CType::Half(a), CType::Half(b)) if a == b => CastKind::FloatToFloat,
        (CType::Half(_), CType::Half(_)) => return None,
        (CType::Half(_), CType::Bool) => CastKind::ToBool,
        (CType::Half(_), CType::Float { .. }) | (CType::Float { .. }, CType::Half(_)) => {
            CastKind::FloatToFloat
        }
        (CType::Half(_), CType::Int { .. }) => CastKind::FloatToInt,
        (CType::Int { .. }, CType::Half(_)) => CastKind::IntToFloat,
        (CType::Bool, CType::Half(_)) => CastKind::BoolToFloat,
        _ => return None,
    })
}

/// What a binary operator computes on halves and pairs, as CUDA's headers
/// define the operators (`__hadd`, ..., `__hlt`; `!=` is `__hneu`, true
/// when either side is NaN, as C's); `None` for the operators they leave
/// out (`%`, the bitwise and shift ones).
fn operator_fn(op: BinaryOp) -> Option<HalfFn> {
    use BinaryOp as B;
    let cmp = |op| HalfFn::Cmp {
        op,
        unordered: op == CmpOp::Ne,
    };
    Some(match op {
        B::Add => HalfFn::Add,
        B::Sub => HalfFn::Sub,
        B::Mul => HalfFn::Mul,
        B::Div => HalfFn::Div,
        B::Lt => cmp(CmpOp::Lt),
        B::Le => cmp(CmpOp::Le),
        B::Gt => cmp(CmpOp::Gt),
        B::Ge => cmp(CmpOp::Ge),
        B::Eq => cmp(CmpOp::Eq),
        B::Ne => cmp(CmpOp::Ne),
        _ => return None,
    })
}
