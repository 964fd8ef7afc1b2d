//! Flush-to-zero forms for functions marked `ftz` (nvcc's `-ftz=true`).
//!
//! Selection always produces the IEEE forms. For a function whose IR
//! attributes say `ftz`, this last step rewrites every single-precision
//! instruction that has a `.ftz` variant to that variant, the way nvcc does
//! under `-ftz=true`: `add`, `sub`, `mul`, `div.rn`, `div.approx`, `min`,
//! `max`, `fma`, `neg`, `abs`, `sqrt`, `rcp.rn`, each also with an explicit
//! rounding (`add.rz`, `sqrt.rp`, ...), `setp`, the `.approx`
//! functions (`rsqrt`, `ex2`, `lg2`, `sin`, `cos`), the rounding
//! conversions `cvt.rXi.f32.f32`, and `cvt` from `f32` to `f64` or an
//! integer and from `f64` to `f32`. `tanh.approx.f32` has no `.ftz` form;
//! `mov`, `selp`, loads and stores only move bits; `f64` never flushes.
//! The interpreter flushes the same operands (`interp/src/ftz.rs`).

use crate::mfunc::MFunction;
use crate::minst::{BinaryOp, MInst, PtxType, UnaryOp};

/// Rewrites the `f32` instructions of `mf` to their `.ftz` forms.
pub fn use_ftz_forms(mf: &mut MFunction) {
    for inst in &mut mf.body {
        rewrite(inst);
    }
}

fn rewrite(inst: &mut MInst) {
    let f32_ftz = |ty: &mut PtxType| {
        if *ty == PtxType::F32 {
            *ty = PtxType::F32Ftz;
        }
    };
    match inst {
        MInst::Unary { op, ty, .. } => {
            if matches!(
                op,
                UnaryOp::Neg | UnaryOp::Abs | UnaryOp::SqrtRn | UnaryOp::RcpRn
            ) {
                f32_ftz(ty);
            }
        }
        MInst::Binary { op, ty, .. } => {
            use BinaryOp::*;
            if matches!(
                op,
                Add | Sub
                    | Mul
                    | DivRn
                    | DivApprox
                    | DivFull
                    | Min
                    | Max
                    | AddR(_)
                    | SubRn
                    | MulR(_)
                    | DivR(_)
            ) {
                f32_ftz(ty);
            }
        }
        MInst::Fma { ty, .. } | MInst::Setp { ty, .. } => f32_ftz(ty),
        MInst::Cvt { dst_ty, src_ty, .. } => {
            let wide_or_int =
                |t: PtxType| !matches!(t, PtxType::F16 | PtxType::BF16 | PtxType::F32);
            if *src_ty == PtxType::F32 && wide_or_int(*dst_ty) {
                *src_ty = PtxType::F32Ftz;
            } else if *dst_ty == PtxType::F32 && *src_ty == PtxType::F64 {
                *dst_ty = PtxType::F32Ftz;
            }
        }
        MInst::UnaryNamed { op, .. } => {
            if let Some(with_ftz) = ftz_name(op) {
                *op = with_ftz;
            }
        }
        _ => {}
    }
}

/// The `.ftz` spelling of a named unary instruction, if it has one.
fn ftz_name(op: &str) -> Option<&'static str> {
    Some(match op {
        "rsqrt.approx.f32" => "rsqrt.approx.ftz.f32",
        "ex2.approx.f32" => "ex2.approx.ftz.f32",
        "lg2.approx.f32" => "lg2.approx.ftz.f32",
        "sin.approx.f32" => "sin.approx.ftz.f32",
        "cos.approx.f32" => "cos.approx.ftz.f32",
        "cvt.rmi.f32.f32" => "cvt.rmi.ftz.f32.f32",
        "cvt.rpi.f32.f32" => "cvt.rpi.ftz.f32.f32",
        "cvt.rzi.f32.f32" => "cvt.rzi.ftz.f32.f32",
        "cvt.rni.f32.f32" => "cvt.rni.ftz.f32.f32",
        "sqrt.rz.f32" => "sqrt.rz.ftz.f32",
        "sqrt.rp.f32" => "sqrt.rp.ftz.f32",
        "sqrt.rm.f32" => "sqrt.rm.ftz.f32",
        _ => return None,
    })
}
