//! CUDA built-in functions: atomics, warp collectives, fences, bit
//! functions, `__ldg`, address-space tests and the math library.
//!
//! CUDA declares these as overloaded C++ functions in its headers. kernelc
//! has no overloading, so each one is resolved here the way C++ overload
//! resolution would pick among CUDA's declarations, and becomes one
//! [`ExprKind::Intrinsic`] node whose arguments already have the parameter
//! types of the chosen overload. Lowering then never needs C knowledge.
//!
//! Limitation: kernelc's `long` and `long long` are the same type, so the
//! `long long` overloads also accept `long` (and `unsigned long long` ones
//! `unsigned long`/`size_t`), which nvcc would reject for some functions.

use super::convert::{convert, promote};
use super::Checker;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{
    AtomicKind, BarrierKind, Expr, ExprKind, Intrinsic, MathFn, ReduxKind, Scope, ShflKind,
    SpaceKind, VoteKind,
};
use crate::types::{CType, HalfFormat};

/// C `unsigned short`.
const USHORT: CType = CType::Int {
    bits: 16,
    signed: false,
};

/// The vector type `name` (`float2`, `float4`).
fn vector(name: &str) -> CType {
    crate::types::vector_type(name).expect("a CUDA vector type")
}

/// The pointee types each atomic accepts, as CUDA declares its overloads.
/// `atomicAdd` on `float2`/`float4` (sm_90) exists at every scope;
/// `atomicCAS` on `unsigned short` (sm_70) and `atomicAdd` on the 16-bit
/// floats and their pairs (`cuda_fp16.h`, `cuda_bf16.h`) only at the device
/// scope. (CUDA declares no other atomic on the 16-bit floats.)
fn atomic_types(op: Option<AtomicKind>, scope: Scope) -> Vec<CType> {
    use AtomicKind as A;
    let i_u_ull = vec![CType::INT, CType::UINT, CType::ULONG];
    match op {
        Some(A::Add) => {
            let mut v = vec![
                CType::INT,
                CType::UINT,
                CType::ULONG,
                CType::FLOAT,
                CType::DOUBLE,
                vector("float2"),
                vector("float4"),
            ];
            if scope == Scope::Device {
                for f in [HalfFormat::F16, HalfFormat::Bf16] {
                    v.extend([CType::Half(f), crate::half::pair_type(f)]);
                }
            }
            v
        }
        Some(A::Sub) => vec![CType::INT, CType::UINT],
        Some(A::Exch) => vec![CType::INT, CType::UINT, CType::ULONG, CType::FLOAT],
        Some(A::Min | A::Max) => vec![CType::INT, CType::UINT, CType::LONG, CType::ULONG],
        Some(A::Inc | A::Dec) => vec![CType::UINT],
        Some(A::And | A::Or | A::Xor) => i_u_ull,
        None if scope == Scope::Device => {
            let mut v = i_u_ull;
            v.push(USHORT);
            v
        }
        None => i_u_ull,
    }
}

/// The first SM for which CUDA declares an atomic on `pointee`, where it
/// is not every SM: `float2`/`float4` sm_90, `__half` and `__nv_bfloat16`
/// sm_70 (their pairs have a form for every SM).
fn atomic_floor(pointee: &CType) -> Option<u32> {
    match pointee {
        CType::Half(_) => Some(70),
        CType::Struct(_) if crate::half::pair_format(pointee).is_none() => Some(90),
        _ => None,
    }
}

/// Whether `ty` is `__nv_bfloat16` or `__nv_bfloat162`.
fn is_bf16(ty: &CType) -> bool {
    matches!(ty, CType::Half(HalfFormat::Bf16))
        || crate::half::pair_format(ty) == Some(HalfFormat::Bf16)
}

/// CUDA's spelling of a type in an overload list.
fn cuda_name(t: &CType) -> String {
    match t {
        &CType::INT => "int".into(),
        &CType::UINT => "unsigned int".into(),
        &CType::LONG => "long long".into(),
        &CType::ULONG => "unsigned long long".into(),
        &CType::FLOAT => "float".into(),
        &USHORT => "unsigned short".into(),
        CType::Half(f) => f.name().into(),
        CType::Struct(def) => def.name.clone(),
        _ => "double".into(),
    }
}

/// The atomic an `atomicXxx` name denotes (`None` inside is `atomicCAS`).
fn atomic_kind(base: &str) -> Option<Option<AtomicKind>> {
    use AtomicKind as A;
    Some(Some(match base {
        "atomicAdd" => A::Add,
        "atomicSub" => A::Sub,
        "atomicExch" => A::Exch,
        "atomicMin" => A::Min,
        "atomicMax" => A::Max,
        "atomicInc" => A::Inc,
        "atomicDec" => A::Dec,
        "atomicAnd" => A::And,
        "atomicOr" => A::Or,
        "atomicXor" => A::Xor,
        "atomicCAS" => return Some(None),
        _ => return None,
    }))
}

/// A math function name: the function and whether it is the `float`
/// spelling (`sqrtf`, `__expf`); the others are C++'s overloaded names,
/// whose type follows the arguments.
fn math_fn(name: &str) -> Option<(MathFn, bool)> {
    use MathFn as M;
    Some(match name {
        "sqrtf" => (M::Sqrt, true),
        "rsqrtf" => (M::Rsqrt, true),
        "expf" => (M::Exp, true),
        "exp2f" => (M::Exp2, true),
        "logf" => (M::Log, true),
        "log2f" => (M::Log2, true),
        "sinf" => (M::Sin, true),
        "cosf" => (M::Cos, true),
        "tanhf" => (M::Tanh, true),
        "powf" => (M::Pow, true),
        "fabsf" => (M::Fabs, true),
        "fminf" => (M::Fmin, true),
        "fmaxf" => (M::Fmax, true),
        "floorf" => (M::Floor, true),
        "ceilf" => (M::Ceil, true),
        "truncf" => (M::Trunc, true),
        "roundf" => (M::Round, true),
        "fmaf" => (M::Fma, true),
        "__expf" => (M::FastExp, true),
        "__logf" => (M::FastLog, true),
        "__sinf" => (M::FastSin, true),
        "__cosf" => (M::FastCos, true),
        "__powf" => (M::FastPow, true),
        "__fdividef" | "fdividef" => (M::FastDiv, true),
        "rintf" | "nearbyintf" => (M::Rint, true),
        "__saturatef" => (M::Saturate, true),
        "copysignf" => (M::Copysign, true),
        "fdimf" => (M::Fdim, true),
        "fmodf" => (M::Fmod, true),
        "remainderf" => (M::Remainder, true),
        "rint" | "nearbyint" => (M::Rint, false),
        "copysign" => (M::Copysign, false),
        "fdim" => (M::Fdim, false),
        "fmod" => (M::Fmod, false),
        "remainder" => (M::Remainder, false),
        "tanf" => (M::Tan, true),
        "asinf" => (M::Asin, true),
        "acosf" => (M::Acos, true),
        "atanf" => (M::Atan, true),
        "atan2f" => (M::Atan2, true),
        "sinhf" => (M::Sinh, true),
        "coshf" => (M::Cosh, true),
        "asinhf" => (M::Asinh, true),
        "acoshf" => (M::Acosh, true),
        "atanhf" => (M::Atanh, true),
        "exp10f" => (M::Exp10, true),
        "expm1f" => (M::Expm1, true),
        "log10f" => (M::Log10, true),
        "log1pf" => (M::Log1p, true),
        "cbrtf" => (M::Cbrt, true),
        "rcbrtf" => (M::Rcbrt, true),
        "hypotf" => (M::Hypot, true),
        "sinpif" => (M::Sinpi, true),
        "cospif" => (M::Cospi, true),
        "__tanf" => (M::FastTan, true),
        "__log2f" => (M::FastLog2, true),
        "__log10f" => (M::FastLog10, true),
        "__exp10f" => (M::FastExp10, true),
        "__tanhf" => (M::FastTanh, true),
        "erff" => (M::Erf, true),
        "erfcf" => (M::Erfc, true),
        "normcdff" => (M::Normcdf, true),
        "erfinvf" => (M::Erfinv, true),
        "erfinv" => (M::Erfinv, false),
        "erfcinvf" => (M::Erfcinv, true),
        "erfcinv" => (M::Erfcinv, false),
        "lgammaf" => (M::Lgamma, true),
        "lgamma" => (M::Lgamma, false),
        "erfcxf" => (M::Erfcx, true),
        "rhypotf" => (M::Rhypot, true),
        "rhypot" => (M::Rhypot, false),
        "norm3df" => (M::Norm3d, true),
        "norm3d" => (M::Norm3d, false),
        "rnorm3df" => (M::Rnorm3d, true),
        "rnorm3d" => (M::Rnorm3d, false),
        "norm4df" => (M::Norm4d, true),
        "norm4d" => (M::Norm4d, false),
        "rnorm4df" => (M::Rnorm4d, true),
        "rnorm4d" => (M::Rnorm4d, false),
        "normcdfinvf" => (M::Normcdfinv, true),
        "normcdfinv" => (M::Normcdfinv, false),
        "cyl_bessel_i0f" => (M::BesselI0, true),
        "cyl_bessel_i0" => (M::BesselI0, false),
        "cyl_bessel_i1f" => (M::BesselI1, true),
        "cyl_bessel_i1" => (M::BesselI1, false),
        "tgammaf" => (M::Tgamma, true),
        "tgamma" => (M::Tgamma, false),
        "erfcx" => (M::Erfcx, false),
        "erf" => (M::Erf, false),
        "erfc" => (M::Erfc, false),
        "normcdf" => (M::Normcdf, false),
        "tan" => (M::Tan, false),
        "asin" => (M::Asin, false),
        "acos" => (M::Acos, false),
        "atan" => (M::Atan, false),
        "atan2" => (M::Atan2, false),
        "sinh" => (M::Sinh, false),
        "cosh" => (M::Cosh, false),
        "asinh" => (M::Asinh, false),
        "acosh" => (M::Acosh, false),
        "atanh" => (M::Atanh, false),
        "exp10" => (M::Exp10, false),
        "expm1" => (M::Expm1, false),
        "log10" => (M::Log10, false),
        "log1p" => (M::Log1p, false),
        "cbrt" => (M::Cbrt, false),
        "rcbrt" => (M::Rcbrt, false),
        "hypot" => (M::Hypot, false),
        "sinpi" => (M::Sinpi, false),
        "cospi" => (M::Cospi, false),
        "sqrt" => (M::Sqrt, false),
        "rsqrt" => (M::Rsqrt, false),
        "exp" => (M::Exp, false),
        "exp2" => (M::Exp2, false),
        "log" => (M::Log, false),
        "log2" => (M::Log2, false),
        "sin" => (M::Sin, false),
        "cos" => (M::Cos, false),
        "tanh" => (M::Tanh, false),
        "pow" => (M::Pow, false),
        "fabs" => (M::Fabs, false),
        "fmin" => (M::Fmin, false),
        "fmax" => (M::Fmax, false),
        "floor" => (M::Floor, false),
        "ceil" => (M::Ceil, false),
        "trunc" => (M::Trunc, false),
        "round" => (M::Round, false),
        "fma" => (M::Fma, false),
        _ => return None,
    })
}

fn arity(f: MathFn) -> usize {
    match f {
        MathFn::Pow
        | MathFn::FastPow
        | MathFn::Fmin
        | MathFn::Fmax
        | MathFn::FastDiv
        | MathFn::FullDiv
        | MathFn::Copysign
        | MathFn::Fdim
        | MathFn::Fmod
        | MathFn::Remainder
        | MathFn::Atan2
        | MathFn::Hypot
        | MathFn::Rhypot => 2,
        MathFn::Fma | MathFn::Norm3d | MathFn::Rnorm3d => 3,
        MathFn::Norm4d | MathFn::Rnorm4d => 4,
        _ => 1,
    }
}

/// The names CUDA declares on `double` only, with no `float` overload
/// (`math_functions.h`): `float` and integer arguments convert to
/// `double`, and so does the result.
fn double_only(name: &str) -> bool {
    matches!(name, "rhypot" | "norm3d" | "rnorm3d" | "norm4d" | "rnorm4d")
}

/// Whether `name` is a built-in function of this module (for messages
/// about names used without a call).
pub(super) fn is_builtin_name(name: &str) -> bool {
    let base = strip_scope(name).0;
    name == "__dp4a"
        || name == "printf"
        || cache_hint(name).is_some()
        || atomic_kind(base).is_some()
        || math_fn(name).is_some()
        || fixed_builtin(name).is_some()
        || shfl_kind(name).is_some()
        || vote_kind(name).is_some()
        || redux_kind(name).is_some()
        || match_kind(name).is_some()
        || super::device_fns::is_device_fn(name)
}

/// Whether `std::name` is one of `<cmath>`'s functions, which CUDA declares
/// for device code: the math functions and `abs`.
pub(super) fn is_cmath_function(name: &str) -> bool {
    math_fn(name).is_some()
        || super::device_fns::class_test(name).is_some()
        || matches!(name, "abs" | "labs" | "llabs")
}

/// Whether `std::name` is one of `<cstring>`'s functions that CUDA
/// declares for device code.
pub(super) fn is_cstring_function(name: &str) -> bool {
    matches!(name, "memcpy" | "memset")
}

/// `atomicAdd_block` → (`atomicAdd`, block scope).
fn strip_scope(name: &str) -> (&str, Scope) {
    if let Some(b) = name.strip_suffix("_block") {
        (b, Scope::Block)
    } else if let Some(b) = name.strip_suffix("_system") {
        (b, Scope::System)
    } else {
        (name, Scope::Device)
    }
}

fn shfl_kind(name: &str) -> Option<ShflKind> {
    Some(match name {
        "__shfl_sync" => ShflKind::Idx,
        "__shfl_up_sync" => ShflKind::Up,
        "__shfl_down_sync" => ShflKind::Down,
        "__shfl_xor_sync" => ShflKind::Xor,
        _ => return None,
    })
}

fn vote_kind(name: &str) -> Option<VoteKind> {
    Some(match name {
        "__ballot_sync" => VoteKind::Ballot,
        "__any_sync" => VoteKind::Any,
        "__all_sync" => VoteKind::All,
        "__uni_sync" => VoteKind::Uni,
        _ => return None,
    })
}

fn redux_kind(name: &str) -> Option<ReduxKind> {
    Some(match name {
        "__reduce_add_sync" => ReduxKind::Add,
        "__reduce_min_sync" => ReduxKind::Min,
        "__reduce_max_sync" => ReduxKind::Max,
        "__reduce_and_sync" => ReduxKind::And,
        "__reduce_or_sync" => ReduxKind::Or,
        "__reduce_xor_sync" => ReduxKind::Xor,
        _ => return None,
    })
}

/// Whether `name` is `__match_all_sync` (`Some(true)`) or
/// `__match_any_sync` (`Some(false)`).
fn match_kind(name: &str) -> Option<bool> {
    match name {
        "__match_any_sync" => Some(false),
        "__match_all_sync" => Some(true),
        _ => None,
    }
}

/// The value types of CUDA's overloads of `__match_any_sync` and
/// `__match_all_sync` (`crt/sm_70_rt.h`; `long` and `long long` are one
/// type here).
const MATCH_VALUES: [CType; 6] = [
    CType::UINT,
    CType::INT,
    CType::ULONG,
    CType::LONG,
    CType::FLOAT,
    CType::DOUBLE,
];

/// CUDA's overloads of `__reduce_add_sync`, `__reduce_min_sync` and
/// `__reduce_max_sync` (`crt/sm_80_rt.h`); the bitwise reductions have the
/// `unsigned` one only.
const REDUX_OVERLOADS: &[&[CType]] = &[&[CType::UINT, CType::UINT], &[CType::UINT, CType::INT]];

/// Built-ins with one fixed signature: the intrinsic, the parameter types,
/// the number of trailing parameters with defaults, and the result type.
fn fixed_builtin(name: &str) -> Option<(Intrinsic, Vec<CType>, CType)> {
    use Intrinsic as I;
    let void_ptr = CType::Pointer {
        pointee: Box::new(CType::Void),
        pointee_const: true,
        pointee_volatile: false,
        restrict: false,
    };
    Some(match name {
        "__syncthreads_count" => (
            I::BarrierRed(BarrierKind::Count),
            vec![CType::INT],
            CType::INT,
        ),
        "__syncthreads_and" => (
            I::BarrierRed(BarrierKind::And),
            vec![CType::INT],
            CType::INT,
        ),
        "__syncthreads_or" => (I::BarrierRed(BarrierKind::Or), vec![CType::INT], CType::INT),
        "__syncwarp" => (I::SyncWarp, vec![CType::UINT], CType::Void),
        "__threadfence_block" => (I::Fence(Scope::Block), vec![], CType::Void),
        "__threadfence" => (I::Fence(Scope::Device), vec![], CType::Void),
        "__threadfence_system" => (I::Fence(Scope::System), vec![], CType::Void),
        "__activemask" => (I::ActiveMask, vec![], CType::UINT),
        // What `<cooperative_groups.h>`'s `grid_group` is made of: the grid
        // barrier and the address of its workspace (zero unless the launch
        // is cooperative).
        "__kernelc_grid_sync" => (I::GridSync, vec![], CType::Void),
        "__kernelc_grid_workspace" => (
            I::Special(midend::ir::SpecialReg::GridWorkspace),
            vec![],
            CType::ULONG,
        ),
        _ if name.starts_with("kernelc_") => {
            let reg = super::tensor::cluster_register(name)?;
            (I::Special(reg), vec![], CType::UINT)
        }
        "clock" => (I::Clock64, vec![], CType::LONG),
        "clock64" => (I::Clock64, vec![], CType::LONG),
        "__nanosleep" => (I::Nanosleep, vec![CType::UINT], CType::Void),
        "__trap" => (I::Trap, vec![], CType::Void),
        "__popc" => (I::Popc, vec![CType::UINT], CType::INT),
        "__popcll" => (I::Popc, vec![CType::ULONG], CType::INT),
        "__clz" => (I::Clz, vec![CType::INT], CType::INT),
        "__clzll" => (I::Clz, vec![CType::LONG], CType::INT),
        "__ffs" => (I::Ffs, vec![CType::INT], CType::INT),
        "__ffsll" => (I::Ffs, vec![CType::LONG], CType::INT),
        // GCC's bit builtins that nvcc takes in device code (code shared
        // with the host writes them), with GCC's parameter types; nvcc
        // declares the `l` forms host-only.
        "__builtin_popcount" => (I::Popc, vec![CType::UINT], CType::INT),
        "__builtin_popcountll" => (I::Popc, vec![CType::ULONG], CType::INT),
        "__builtin_clz" => (I::Clz, vec![CType::UINT], CType::INT),
        "__builtin_clzll" => (I::Clz, vec![CType::ULONG], CType::INT),
        "__builtin_ffs" => (I::Ffs, vec![CType::INT], CType::INT),
        "__builtin_ffsll" => (I::Ffs, vec![CType::LONG], CType::INT),
        "__brev" => (I::Brev, vec![CType::UINT], CType::UINT),
        "__brevll" => (I::Brev, vec![CType::ULONG], CType::ULONG),
        "__isGlobal" => (I::IsSpace(SpaceKind::Global), vec![void_ptr], CType::UINT),
        "__isShared" => (I::IsSpace(SpaceKind::Shared), vec![void_ptr], CType::UINT),
        "__isConstant" => (I::IsSpace(SpaceKind::Constant), vec![void_ptr], CType::UINT),
        "__isLocal" => (I::IsSpace(SpaceKind::Local), vec![void_ptr], CType::UINT),
        "__cvta_generic_to_shared" => (I::CvtaGenericToShared, vec![void_ptr], CType::ULONG),
        "__cvta_shared_to_generic" => (
            I::CvtaSharedToGeneric,
            vec![CType::ULONG],
            CType::ptr_to(CType::Void),
        ),
        // `<cstring>`'s two functions that CUDA declares for device code
        // (without any `#include`).
        "memcpy" => (
            I::Memcpy,
            vec![CType::ptr_to(CType::Void), void_ptr, CType::ULONG],
            CType::ptr_to(CType::Void),
        ),
        "memset" => (
            I::Memset,
            vec![CType::ptr_to(CType::Void), CType::INT, CType::ULONG],
            CType::ptr_to(CType::Void),
        ),
        _ => return None,
    })
}

fn intrinsic(op: Intrinsic, args: Vec<Expr>, ty: CType, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Intrinsic { op, args },
        ty,
        span,
    }
}

fn uint_const(v: i128, span: Span) -> Expr {
    Expr {
        kind: ExprKind::IntConst(v),
        ty: CType::UINT,
        span,
    }
}

impl Checker {
    /// Types a call of the built-in `name`. `None` if `name` is not a
    /// built-in; `Some(None)` if it is and an error was reported.
    pub(super) fn builtin_call(
        &mut self,
        name: &str,
        args: Vec<Option<Expr>>,
        span: Span,
    ) -> Option<Option<Expr>> {
        if let Some(b) = super::wgmma_tcgen05::lookup(name) {
            let args: Option<Vec<Expr>> = args.into_iter().collect();
            return Some(args.and_then(|a| self.tensor_b_call(name, b, a, span)));
        }
        if let Some((op, params, ret)) = super::tensor::tensor_builtin(name) {
            let args: Option<Vec<Expr>> = args.into_iter().collect();
            return Some(args.and_then(|a| self.tensor_call(name, op, &params, ret, a, span)));
        }
        if let Some(cache) = cache_hint(name) {
            let args: Option<Vec<Expr>> = args.into_iter().collect();
            let Some(args) = args else {
                return Some(None);
            };
            return Some(self.cache_hinted(name, cache, args, span));
        }
        if name == "printf" || name == super::runtime::ASSERT_BUILTIN {
            let args: Option<Vec<Expr>> = args.into_iter().collect();
            let Some(args) = args else {
                return Some(None);
            };
            return Some(if name == "printf" {
                self.printf_call(args, span)
            } else {
                self.assert_call(args, span)
            });
        }
        if matches!(
            name,
            "__builtin_expect"
                | "__builtin_assume"
                | "__builtin_assume_aligned"
                | "__builtin_unreachable"
        ) {
            let args: Option<Vec<Expr>> = args.into_iter().collect();
            return Some(args.and_then(|a| self.optimizer_hint(name, a, span)));
        }
        let (base, scope) = strip_scope(name);
        let known = atomic_kind(base).is_some()
            || name == "__dp4a"
            || fixed_builtin(name).is_some()
            || shfl_kind(name).is_some()
            || vote_kind(name).is_some()
            || redux_kind(name).is_some()
            || match_kind(name).is_some()
            || math_fn(name).is_some()
            || super::device_fns::is_device_fn(name)
            || name == "__ldg";
        if !known {
            return None;
        }
        // Every argument was typed already; errors in them are reported.
        let args: Option<Vec<Expr>> = args.into_iter().collect();
        let args = args?;
        Some(if let Some(op) = atomic_kind(base) {
            self.atomic(name, op, scope, args, span)
        } else if name == "__dp4a" {
            self.dp4a(name, args, span)
        } else if let Some((op, params, ret)) = fixed_builtin(name) {
            self.fixed(name, op, &params, ret, args, span)
        } else if let Some(k) = shfl_kind(name) {
            self.shuffle(name, k, args, span)
        } else if let Some(k) = vote_kind(name) {
            self.vote(name, k, args, span)
        } else if let Some(k) = redux_kind(name) {
            self.warp_reduce(name, k, args, span)
        } else if let Some(all) = match_kind(name) {
            self.warp_match(name, all, args, span)
        } else if let Some((f, is_float)) = math_fn(name) {
            self.math(name, f, is_float, args, span)
        } else if super::device_fns::is_device_fn(name) {
            self.device_fn_call(name, args, span)
        } else {
            self.ldg(args, span)
        })
    }

    /// The optimizer hints CUDA code writes (`LIKELY(x)` macros, CUDA's
    /// documented `__builtin_assume`): `__builtin_expect(v, c)` is `v` as a
    /// `long`, `__builtin_assume_aligned(p, a[, offset])` is `p` as a
    /// `void *` (GCC's and clang's signature), and `__builtin_assume(e)` and
    /// `__builtin_unreachable()` are nothing, an operand not evaluated (as
    /// clang, nvcc's model, defines them; reaching `unreachable` is
    /// undefined, so going on is one of its meanings). kernelc's passes
    /// prove what they use, so a hint only has to keep its value.
    fn optimizer_hint(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if name == "__builtin_assume_aligned" {
            if !self.arg_count(name, &args, 2, 3, span) {
                return None;
            }
            let mut args = args;
            let const_void = CType::Pointer {
                pointee: Box::new(CType::Void),
                pointee_const: true,
                pointee_volatile: false,
                restrict: false,
            };
            let pointer = args.swap_remove(0);
            let pointer = self.assign_convert(pointer, &const_void, "argument 1", span)?;
            return Some(Expr {
                kind: ExprKind::Cast {
                    kind: crate::typed::CastKind::PtrToPtr,
                    expr: Box::new(pointer),
                },
                ty: CType::ptr_to(CType::Void),
                span,
            });
        }
        if name == "__builtin_assume" || name == "__builtin_unreachable" {
            let count = usize::from(name == "__builtin_assume");
            if !self.arg_count(name, &args, count, count, span) {
                return None;
            }
            let nothing = Expr {
                kind: ExprKind::IntConst(0),
                ty: CType::INT,
                span,
            };
            return Some(Expr {
                kind: ExprKind::Cast {
                    kind: crate::typed::CastKind::ToVoid,
                    expr: Box::new(nothing),
                },
                ty: CType::Void,
                span,
            });
        }
        if !self.arg_count(name, &args, 2, 2, span) {
            return None;
        }
        let mut args = self.convert_args(name, args, &[CType::LONG, CType::LONG])?;
        Some(args.swap_remove(0))
    }

    /// `__dp4a(a, b, c)`: CUDA's overloads `(int, int, int)`, `(unsigned,
    /// unsigned, unsigned)`, `(char4, char4, int)` and `(uchar4, uchar4,
    /// unsigned)`: unsigned when `a` and `b` are both `unsigned int` or
    /// both `uchar4`. A vector argument stays a vector; lowering reads its
    /// four bytes as one word.
    fn dp4a(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if !self.arg_count(name, &args, 3, 3, span) {
            return None;
        }
        let (c4, uc4) = (vector("char4"), vector("uchar4"));
        let vectors = args[..2].iter().filter(|a| a.ty.is_struct()).count();
        let (signed, word) = match vectors {
            0 => {
                let unsigned = args[0].ty == CType::UINT && args[1].ty == CType::UINT;
                let t = if unsigned { CType::UINT } else { CType::INT };
                (!unsigned, t)
            }
            2 if args[0].ty == c4 && args[1].ty == c4 => (true, c4),
            2 if args[0].ty == uc4 && args[1].ty == uc4 => (false, uc4),
            _ => {
                let v = args[..2].iter().find(|a| a.ty.is_struct())?;
                self.error(
                    v.span,
                    Code::E0099,
                    format!(
                        "no `{name}` takes `{}` and `{}`: both `int`, both `unsigned`, both `char4` or both `uchar4`",
                        args[0].ty, args[1].ty
                    ),
                );
                return None;
            }
        };
        let t = if signed { CType::INT } else { CType::UINT };
        let args = self.convert_args(name, args, &[word.clone(), word, t.clone()])?;
        Some(intrinsic(Intrinsic::Dp4a { signed }, args, t, span))
    }

    pub(super) fn arg_count(
        &mut self,
        name: &str,
        args: &[Expr],
        min: usize,
        max: usize,
        span: Span,
    ) -> bool {
        if (min..=max).contains(&args.len()) {
            return true;
        }
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        self.error(
            span,
            Code::E0099,
            format!(
                "`{name}` takes {want} argument{}, have {}",
                if max == 1 { "" } else { "s" },
                args.len()
            ),
        );
        false
    }

    /// Converts each argument to its parameter type as a call would.
    pub(super) fn convert_args(
        &mut self,
        name: &str,
        args: Vec<Expr>,
        params: &[CType],
    ) -> Option<Vec<Expr>> {
        let mut out = Vec::new();
        let mut ok = true;
        for (i, (a, p)) in args.into_iter().zip(params).enumerate() {
            let at = a.span;
            match self.assign_convert(a, p, &format!("argument {} of `{name}`", i + 1), at) {
                Some(a) => out.push(a),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    pub(super) fn fixed(
        &mut self,
        name: &str,
        op: Intrinsic,
        params: &[CType],
        ret: CType,
        mut args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        // `__syncwarp(mask = 0xffffffff)` is the one default argument here.
        let min = if op == Intrinsic::SyncWarp {
            0
        } else {
            params.len()
        };
        if !self.arg_count(name, &args, min, params.len(), span) {
            return None;
        }
        if op == Intrinsic::SyncWarp && args.is_empty() {
            args.push(uint_const(0xffff_ffff, span));
        }
        if matches!(op, Intrinsic::IsSpace(_) | Intrinsic::CvtaGenericToShared)
            && !args[0].ty.is_pointer()
        {
            self.error(
                args[0].span,
                Code::E0099,
                format!(
                    "argument 1 of `{name}` must be a pointer, got `{}`",
                    args[0].ty
                ),
            );
            return None;
        }
        let mut args = self.convert_args(name, args, params)?;
        if matches!(op, Intrinsic::Memcpy | Intrinsic::Memset) {
            // Lowering plans the accesses of a constant size (and splats a
            // constant byte) at compile time; `n * sizeof(T)` is one.
            for a in &mut args[1..] {
                if let Some(v) = self.const_int(a) {
                    a.kind = ExprKind::IntConst(v);
                }
            }
        }
        if let Intrinsic::BarrierRed(_) = op {
            // CUDA's parameter is an `int`; the barrier reduces `!= 0`.
            let pred = args.pop()?;
            args.push(self.make_bool(pred)?);
        }
        Some(intrinsic(op, args, ret, span))
    }

    fn atomic(
        &mut self,
        name: &str,
        op: Option<AtomicKind>,
        scope: Scope,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let n = if op.is_none() { 3 } else { 2 };
        if !self.arg_count(name, &args, n, n, span) {
            return None;
        }
        let allowed = atomic_types(op, scope);
        let pointee = match &args[0].ty {
            CType::Pointer {
                pointee,
                pointee_const: false,
                pointee_volatile: false,
                ..
            } if allowed.contains(pointee) => (**pointee).clone(),
            other => {
                let list: Vec<String> = allowed
                    .iter()
                    .map(|t| format!("`{} *`", cuda_name(t)))
                    .collect();
                self.error(
                    args[0].span,
                    Code::E0099,
                    format!(
                        "no matching overload of `{name}` for a first argument of type `{other}`; \
                         it takes a pointer to non-const {}",
                        list.join(", ")
                    ),
                );
                return None;
            }
        };
        // The vector forms are Hopper's, the 16-bit scalars Volta's (CUDA
        // declares them for `__CUDA_ARCH__ >= 900` and `>= 700` only): say
        // so here, at the call.
        if let Some(sm) = atomic_floor(&pointee).filter(|&sm| self.opts.cuda_arch() < sm * 10) {
            self.error(
                span,
                Code::E0029,
                format!(
                    "`{name}` on `{} *` needs sm_{sm} or newer (the target is sm_{})",
                    cuda_name(&pointee),
                    self.opts.cuda_arch() / 10
                ),
            );
            return None;
        }
        let params = [args[0].ty.clone(), pointee.clone(), pointee.clone()];
        let args = self.convert_args(name, args, &params[..n])?;
        let op = match op {
            // Below sm_90, CUDA's `bf16` atomics are its header's loop of
            // compare-and-swaps on the word.
            Some(AtomicKind::Add) if is_bf16(&pointee) && self.opts.cuda_arch() < 900 => {
                Intrinsic::AtomicAddByCas
            }
            Some(op) => Intrinsic::Atomic { op, scope },
            None => Intrinsic::AtomicCas(scope),
        };
        Some(intrinsic(op, args, pointee, span))
    }

    fn shuffle(
        &mut self,
        name: &str,
        k: ShflKind,
        mut args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if !self.arg_count(name, &args, 3, 4, span) {
            return None;
        }
        if args.len() == 3 {
            args.push(Expr {
                kind: ExprKind::IntConst(32),
                ty: CType::INT,
                span,
            });
        }
        // Overload resolution on the value: promotions pick `int`, and
        // every other arithmetic type has its own overload.
        let ty = args[1].ty.promoted();
        if crate::half::is_half_type(&ty) {
            // CUDA's header shuffles the value's bits as a 32-bit word.
            args[1] = super::half::to_word(args[1].clone());
            let params = [CType::UINT, CType::UINT, shuffle_lane_type(k), CType::INT];
            let args = self.convert_args(name, args, &params)?;
            let word = intrinsic(Intrinsic::Shfl(k), args, CType::UINT, span);
            return Some(super::half::from_word(word, &ty));
        }
        if !ty.is_arithmetic() {
            self.error(
                args[1].span,
                Code::E0099,
                format!(
                    "no matching overload of `{name}` for a value of type `{}`",
                    args[1].ty
                ),
            );
            return None;
        }
        let params = [CType::UINT, ty.clone(), shuffle_lane_type(k), CType::INT];
        let args = self.convert_args(name, args, &params)?;
        Some(intrinsic(Intrinsic::Shfl(k), args, ty, span))
    }

    fn vote(&mut self, name: &str, k: VoteKind, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if !self.arg_count(name, &args, 2, 2, span) {
            return None;
        }
        let mut args = self.convert_args(name, args, &[CType::UINT, CType::INT])?;
        let pred = args.pop()?;
        args.push(self.make_bool(pred)?);
        let ret = if k == VoteKind::Ballot {
            CType::UINT
        } else {
            CType::INT
        };
        Some(intrinsic(Intrinsic::Vote(k), args, ret, span))
    }

    /// `__reduce_OP_sync(mask, v)`: `add`, `min` and `max` pick the `int`
    /// or `unsigned` overload as C++ does (narrower integers promote to
    /// `int`; `float` or `long long` match both, and are ambiguous, as in
    /// nvcc), the bitwise ones take `unsigned`. CUDA declares them for
    /// sm_80 and newer only, so below that a call is an error at the call.
    fn warp_reduce(
        &mut self,
        name: &str,
        k: ReduxKind,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if self.opts.cuda_arch() < 800 {
            self.diags.push(
                Diagnostic::error(
                    span,
                    Code::E0029,
                    format!(
                        "`{name}` needs sm_80 or newer (the target is sm_{})",
                        self.opts.cuda_arch() / 10
                    ),
                )
                .with_note(
                    "CUDA declares the warp reductions (`redux.sync`) for sm_80 and newer \
                     only; nvcc says the identifier is undefined",
                ),
            );
            return None;
        }
        let (args, value) = if matches!(k, ReduxKind::And | ReduxKind::Or | ReduxKind::Xor) {
            if !self.arg_count(name, &args, 2, 2, span) {
                return None;
            }
            (args, CType::UINT)
        } else {
            let (c, args) = self.resolve_overload(name, REDUX_OVERLOADS, args, span)?;
            (args, REDUX_OVERLOADS[c][1].clone())
        };
        let args = self.convert_args(name, args, &[CType::UINT, value.clone()])?;
        Some(intrinsic(Intrinsic::Redux(k), args, value, span))
    }

    /// `__match_any_sync(mask, v)` and `__match_all_sync(mask, v, &pred)`:
    /// the value picks one of CUDA's overloads as C++ does (narrower
    /// integers promote to `int`). CUDA declares them for sm_70 and newer,
    /// which every target of kernelc is.
    fn warp_match(&mut self, name: &str, all: bool, args: Vec<Expr>, span: Span) -> Option<Expr> {
        let count = if all { 3 } else { 2 };
        if !self.arg_count(name, &args, count, count, span) {
            return None;
        }
        // The overloads differ in the value only (C++ ranks the pointer to
        // the predicate the same in each), so the value picks one.
        let mut args = args;
        let pred = args.split_off(2);
        let overloads: Vec<[CType; 2]> = MATCH_VALUES
            .iter()
            .map(|v| [CType::UINT, v.clone()])
            .collect();
        let overloads: Vec<&[CType]> = overloads.iter().map(|o| &o[..]).collect();
        let (c, mut args) = self.resolve_overload(name, &overloads, args, span)?;
        let mut params = overloads[c].to_vec();
        if all {
            params.push(CType::Pointer {
                pointee: Box::new(CType::INT),
                pointee_const: false,
                pointee_volatile: false,
                restrict: false,
            });
            args.extend(pred);
        }
        let args = self.convert_args(name, args, &params)?;
        Some(intrinsic(Intrinsic::Match { all }, args, CType::UINT, span))
    }

    fn ldg(&mut self, args: Vec<Expr>, span: Span) -> Option<Expr> {
        if !self.arg_count("__ldg", &args, 1, 1, span) {
            return None;
        }
        let pointee = match &args[0].ty {
            CType::Pointer { pointee, .. } if has_cache_overloads(pointee) => (**pointee).clone(),
            CType::Pointer { pointee, .. } if crate::half::is_half_type(pointee) => {
                let msg = crate::half::not_yet_on("__ldg", &args[0].ty);
                self.error(args[0].span, Code::E0002, msg);
                return None;
            }
            other => {
                self.error(
                    args[0].span,
                    Code::E0099,
                    format!(
                        "no matching overload of `__ldg` for an argument of type `{other}`; \
                         kernelc supports pointers to integer and floating types and to \
                         the two- and four-element vector types CUDA overloads it for"
                    ),
                );
                return None;
            }
        };
        Some(intrinsic(Intrinsic::Ldg, args, pointee, span))
    }

    fn math(
        &mut self,
        name: &str,
        f: MathFn,
        is_float: bool,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let n = arity(f);
        if !self.arg_count(name, &args, n, n, span) {
            return None;
        }
        if name == "pow" && args[0].ty.is_float() && args[1].ty.promoted() == CType::INT {
            return Some(self.pow_int(args, span));
        }
        let fixed = is_float || double_only(name);
        for a in &args {
            let bad = if fixed {
                !a.ty.is_arithmetic()
            } else {
                // CUDA's device overloads of these names take `float` or
                // `double`; nvcc resolves others to host-only templates.
                !a.ty.is_float()
            };
            if bad {
                let want = if fixed {
                    "an arithmetic type"
                } else {
                    "`float` or `double` (nvcc rejects other types here)"
                };
                self.error(
                    a.span,
                    Code::E0099,
                    format!("argument of `{name}` has type `{}`; expected {want}", a.ty),
                );
                return None;
            }
        }
        // C++'s overloads: `float` if every argument is `float`, `double` if
        // every one is `double`; only `pow` also mixes them (as `double`).
        let all = |t: CType| args.iter().all(|a| a.ty == t);
        let ty = if is_float || (!fixed && all(CType::FLOAT)) {
            CType::FLOAT
        } else if fixed || all(CType::DOUBLE) || f == MathFn::Pow {
            CType::DOUBLE
        } else {
            self.error(
                span,
                Code::E0099,
                format!("the arguments of `{name}` must be all `float` or all `double`"),
            );
            return None;
        };
        if ty == CType::DOUBLE
            && matches!(
                f,
                MathFn::Erf
                    | MathFn::Normcdf
                    | MathFn::Erfinv
                    | MathFn::Erfcinv
                    | MathFn::Lgamma
                    | MathFn::Tgamma
                    | MathFn::Normcdfinv
            )
        {
            self.error(
                span,
                Code::E0099,
                format!(
                    "`{name}` on `double` is not implemented in kernelc (only the `float` form is: `{name}f`); docs/math.md lists what is missing"
                ),
            );
            return None;
        }
        // `--use_fast_math` changes only the single-precision functions.
        let f = if self.opts.fast_math && ty == CType::FLOAT {
            match f {
                MathFn::Exp => MathFn::FastExp,
                MathFn::Log => MathFn::FastLog,
                MathFn::Sin => MathFn::FastSin,
                MathFn::Cos => MathFn::FastCos,
                MathFn::Pow => MathFn::FastPow,
                MathFn::Tan => MathFn::FastTan,
                MathFn::Log2 => MathFn::FastLog2,
                MathFn::Log10 => MathFn::FastLog10,
                MathFn::Exp10 => MathFn::FastExp10,
                f => f,
            }
        } else {
            f
        };
        let args = args.into_iter().map(|a| convert(promote(a), &ty)).collect();
        Some(intrinsic(Intrinsic::Math(f), args, ty, span))
    }

    /// `pow(float, int)` and `pow(double, int)`, C++ overloads CUDA
    /// declares (`math_functions.h`): as nvcc computes them, the `double`
    /// `pow` of both operands (exact in `double`), rounded once to `float`
    /// for a `float` base.
    fn pow_int(&mut self, args: Vec<Expr>, span: Span) -> Expr {
        let ty = args[0].ty.clone();
        let args = args
            .into_iter()
            .map(|a| convert(promote(a), &CType::DOUBLE))
            .collect();
        let pow = intrinsic(Intrinsic::Math(MathFn::Pow), args, CType::DOUBLE, span);
        convert(pow, &ty)
    }

    /// `l / r` on `float` under `-prec-div=false`: the approximate
    /// division nvcc writes, `div.full.f32` (full range), or under
    /// `--use_fast_math` `div.approx.f32` (as for `__fdividef`).
    pub(super) fn fast_division(&self, e: Expr) -> Expr {
        if self.opts.prec_div || e.ty != CType::FLOAT {
            return e;
        }
        let f = if self.opts.fast_math {
            MathFn::FastDiv
        } else {
            MathFn::FullDiv
        };
        let (kind, ty, span) = e.into_parts();
        match kind {
            ExprKind::Binary { lhs, rhs, .. } => {
                intrinsic(Intrinsic::Math(f), vec![*lhs, *rhs], ty, span)
            }
            kind => Expr { kind, ty, span },
        }
    }
}

/// The cache hint of `__ldcs`, `__stwt` and the others (`sm_32_intrinsics.h`).
fn cache_hint(name: &str) -> Option<midend::ir::CacheOp> {
    use midend::ir::CacheOp as C;
    Some(match name {
        "__ldca" => C::Ca,
        "__ldcg" | "__stcg" => C::Cg,
        "__ldcs" | "__stcs" => C::Cs,
        "__ldlu" => C::Lu,
        "__ldcv" => C::Cv,
        "__stwb" => C::Wb,
        "__stwt" => C::Wt,
        _ => return None,
    })
}

impl Checker {
    /// `__ldcs(p)` (result `T`) and `__stcs(p, v)`: CUDA declares them for
    /// the same pointee types as `__ldg` (integers, floating types and the
    /// vector types of `sm_32_intrinsics.h`); a store's value converts to
    /// the pointee as an assignment would.
    fn cache_hinted(
        &mut self,
        name: &str,
        cache: midend::ir::CacheOp,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let store = name.starts_with("__st");
        let n = if store { 2 } else { 1 };
        if !self.arg_count(name, &args, n, n, span) {
            return None;
        }
        let pointee = match &args[0].ty {
            CType::Pointer {
                pointee,
                pointee_const,
                ..
            } if has_cache_overloads(pointee) && !(store && *pointee_const) => (**pointee).clone(),
            CType::Pointer { pointee, .. } if crate::half::is_half_type(pointee) => {
                let msg = crate::half::not_yet_on(name, &args[0].ty);
                self.error(args[0].span, Code::E0002, msg);
                return None;
            }
            other => {
                let want = if store { "" } else { "const " };
                self.error(
                    args[0].span,
                    Code::E0099,
                    format!(
                        "no matching overload of `{name}` for an argument of type `{other}`; \
                         CUDA declares it for `{want}T *` with `T` an integer or floating type \
                         or a two- or four-element vector type"
                    ),
                );
                return None;
            }
        };
        let (op, ty) = if store {
            (Intrinsic::CacheStore(cache), CType::Void)
        } else {
            (Intrinsic::CacheLoad(cache), pointee.clone())
        };
        let mut args = args;
        if store {
            let value = args.pop()?;
            let at = value.span;
            let value =
                self.assign_convert(value, &pointee, &format!("argument 2 of `{name}`"), at)?;
            args.push(value);
        }
        Some(intrinsic(op, args, ty, span))
    }
}

/// Whether `__ldg`, `__ldcs` and the other cache-hinted loads and stores
/// have an overload for a pointer to `ty`: the integer and floating types,
/// the vector types of `sm_32_intrinsics.h`, and `__half` and
/// `__nv_bfloat16` (`cuda_fp16.h`, `cuda_bf16.h`).
/// The type of a shuffle's third parameter: a delta of `__shfl_up_sync`
/// and `__shfl_down_sync` is unsigned, a lane or lane mask `int`.
fn shuffle_lane_type(k: ShflKind) -> CType {
    if matches!(k, ShflKind::Up | ShflKind::Down) {
        CType::UINT
    } else {
        CType::INT
    }
}

fn has_cache_overloads(ty: &CType) -> bool {
    matches!(ty, CType::Int { .. } | CType::Float { .. } | CType::Half(_)) || is_ldg_vector(ty)
}

/// Whether `__ldg` has an overload for a pointer to `ty`: CUDA declares it
/// for these vector types (`sm_32_intrinsics.h`).
fn is_ldg_vector(ty: &CType) -> bool {
    const NAMES: [&str; 17] = [
        "char2",
        "char4",
        "short2",
        "short4",
        "int2",
        "int4",
        "longlong2",
        "uchar2",
        "uchar4",
        "ushort2",
        "ushort4",
        "uint2",
        "uint4",
        "ulonglong2",
        "float2",
        "float4",
        "double2",
    ];
    match ty {
        CType::Struct(def) => {
            def.id < crate::types::FIRST_USER_STRUCT_ID && NAMES.contains(&def.name.as_str())
        }
        _ => false,
    }
}
