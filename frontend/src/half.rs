//! CUDA's 16-bit float types, `__half` (`cuda_fp16.h`) and
//! `__nv_bfloat16` (`cuda_bf16.h`), with their pairs `__half2` and
//! `__nv_bfloat162`: the names, the pair layout and the operations the
//! typed tree carries ([`HalfOp`]), which sema resolves (`sema/half.rs`)
//! and lowering computes (`lower/half.rs`).
//!
//! The scalars are `CType::Half`, held in the IR as `f16` and `bf16`; a
//! pair is a struct of two scalars `x` and `y` (4 bytes, 4-byte aligned,
//! as CUDA's `__align__(4)` class), so members, arrays, parameters and
//! copies work as for any struct, and its operations work lane by lane.

use crate::typed::{CmpOp, RoundMode};
use crate::types::{CType, HalfFormat, StructDef};
use std::sync::Arc;

/// The struct id of `__half2` (below the user ids, beside `dim3`'s).
pub const HALF2_ID: u32 = 902;
/// The struct id of `__nv_bfloat162`.
pub const BFLOAT162_ID: u32 = 903;

/// The type a half-precision type name means: `__half`, `__half2`,
/// `__nv_bfloat16`, `__nv_bfloat162`. (`half`, `half2`, `nv_bfloat16` and
/// `nv_bfloat162` are macros of the headers, `headers.rs`.)
pub fn type_named(name: &str) -> Option<CType> {
    Some(match name {
        "__half" => CType::Half(HalfFormat::F16),
        "__nv_bfloat16" => CType::Half(HalfFormat::Bf16),
        "__half2" => pair_type(HalfFormat::F16),
        "__nv_bfloat162" => pair_type(HalfFormat::Bf16),
        _ => return None,
    })
}

/// `__half2` or `__nv_bfloat162`: members `x` and `y`, aligned to 4.
pub fn pair_type(format: HalfFormat) -> CType {
    let (id, name) = match format {
        HalfFormat::F16 => (HALF2_ID, "__half2"),
        HalfFormat::Bf16 => (BFLOAT162_ID, "__nv_bfloat162"),
    };
    let members = ["x", "y"]
        .iter()
        .map(|f| (f.to_string(), CType::Half(format)))
        .collect();
    CType::Struct(Arc::new(StructDef::layout(
        id,
        name.to_string(),
        false,
        members,
        4,
    )))
}

/// Whether `ty` is a half-precision scalar or pair.
pub fn is_half_type(ty: &CType) -> bool {
    ty.is_half() || pair_format(ty).is_some()
}

/// The message of E0002 for a builtin (`__shfl_sync`, `__ldg`, ...) that
/// CUDA's headers overload for half-precision types and kernelc does not
/// support on them yet.
pub fn not_yet_on(name: &str, ty: &CType) -> String {
    format!("`{name}` on `{ty}` is not supported by kernelc yet")
}

/// The lane format of a pair type.
pub fn pair_format(ty: &CType) -> Option<HalfFormat> {
    match ty.struct_def()?.id {
        HALF2_ID => Some(HalfFormat::F16),
        BFLOAT162_ID => Some(HalfFormat::Bf16),
        _ => None,
    }
}

/// What a 16-bit float function computes on one lane. The operands and
/// the result are of the lane's format unless said otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfFn {
    /// `a + b`, `a - b`, `a * b`, each rounded once to nearest
    /// (`__hadd`, `__hsub`, `__hmul` and the operators).
    Add,
    Sub,
    Mul,
    /// `__hdiv` and `/`: CUDA's sequence (an approximate `f32` quotient,
    /// refined where the `f16` result is tiny; scaled for huge `bf16`
    /// divisors), so the bits are nvcc's.
    Div,
    /// `a * b + c` rounded once (`__hfma`).
    Fma,
    /// `-a` and `|a|`: the sign bit only.
    Neg,
    Abs,
    /// `__hmin`/`__hmax`: a NaN operand gives the other one.
    Min,
    Max,
    /// A comparison (`__hlt`, `<`, ...): ordered unless `unordered`
    /// (`__hltu`, ...; `!=` is `__hneu`). The result is `bool`; for pairs,
    /// a lane of 1.0 or 0.0.
    Cmp {
        op: CmpOp,
        unordered: bool,
    },
    /// `hsqrt`, `hrsqrt`, `hrcp`: the `f32` function of the exact value,
    /// rounded once.
    Sqrt,
    Rsqrt,
    Rcp,
    /// `hexp2` and `htanh` on `bf16`, as CUDA's header computes them:
    /// PTX's approximate `f32` function (`ex2.approx.f32`,
    /// `tanh.approx.f32`) of the exact value, rounded to nearest.
    Exp2Approx,
    TanhApprox,
    /// `htrunc`, `hceil`, `hfloor`, `hrint`: the integral value (exact in
    /// `f32`, so rounding back is exact).
    Trunc,
    Ceil,
    Floor,
    Rint,
    /// `__hmin_nan`/`__hmax_nan`: a NaN operand gives the canonical NaN.
    MinNan,
    MaxNan,
    /// `__hisnan`: the result is `bool`; for pairs, a lane of 1.0 or 0.0.
    IsNan,
    /// The `_sat` forms' last step: NaN and anything below +0 (-0
    /// included) to +0, anything above 1 to 1.
    Saturate,
    /// The `_relu` forms' last step: a negative value to +0, a NaN to the
    /// canonical NaN.
    Relu,
}

impl HalfFn {
    /// Whether the function is a predicate (`bool` on scalars).
    pub fn is_predicate(self) -> bool {
        matches!(self, HalfFn::Cmp { .. } | HalfFn::IsNan)
    }
}

/// A half-precision operation of the typed tree (`Intrinsic::Half`).
/// Building a pair from scalars and taking a lane need no operation of
/// their own: they are struct literals and member reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfOp {
    /// A function of scalar operands.
    Scalar(HalfFn),
    /// The same function on each lane of pair operands; the result is a
    /// pair.
    Lanes(HalfFn),
    /// `[float]` or `[double]` to the node's scalar type with a directed
    /// rounding (`__float2half_rz`); to nearest is an ordinary cast.
    FromFloat(RoundMode),
    /// A pair whose lanes are both the one scalar operand
    /// (`__half2half2`, `__float2half2_rn` after its rounding,
    /// `__low2half2` of a lane).
    Splat,
    /// `(a.y, a.x)` (`__lowhigh2highlow`).
    Swap,
    /// A predicate on both lanes of pair operands, both true
    /// (`__hbeq2`): a `bool`.
    AllLanes(HalfFn),
    /// A predicate on each lane of pair operands as a 16-bit mask of the
    /// lane (`__heq2_mask`): an `unsigned int`.
    MaskLanes(HalfFn),
    /// `__hisinf`: 1 for +inf, -1 for -inf, else 0 (`int`).
    IsInf,
    /// The bits of a scalar (zero-extended) or a pair (`x` low) as an
    /// `unsigned int`, and back: how a warp shuffle moves a half or a pair
    /// (CUDA's header shuffles the 32-bit word).
    ToWord,
    FromWord,
    /// A pair to `float2` (`__half22float2`).
    ToFloat2,
    /// A `float2` to a pair, each lane rounded to nearest
    /// (`__float22half2_rn`).
    FromFloat2,
}
