//! The tensor-core and async-copy built-ins, with plain C names
//! (`kernelc_cp_async_cg_16`, `kernelc_wmma_load_a_f16_row`, ...) so a
//! kernel compiles unchanged with nvcc through `include/kernelc.cuh`.
//!
//! CUDA's own API for these (`nvcuda::wmma`, `cuda::pipeline`) is C++
//! templates, which kernelc does not parse. Instead a fragment is a plain
//! local array (`unsigned a[8]; float acc[8];`) passed by pointer: the
//! built-in reads or writes its elements. The names spell every choice
//! (fragment, element type, layout, size), so each one is a single
//! instruction and needs no constant arguments, except the group count of
//! `kernelc_cp_async_wait`, which must be a constant.
//!
//! 16-bit floats travel as `unsigned short` bit patterns, because kernelc
//! has no `half` type: a tile of f16 or bf16 is `const unsigned short *`.

use super::Checker;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{Expr, ExprKind, Intrinsic};
use crate::types::CType;
use midend::ir::{wmma_frag_len, AccelOp, CpCache, Frag, MatLayout, MmaType, SpecialReg};

/// The cluster special register read by a built-in such as
/// `kernelc_cluster_ctarank()` or `kernelc_clusterid_x()`: the PTX name
/// with `kernelc_` in front and `_x` for `.x`.
pub(crate) fn cluster_register(name: &str) -> Option<SpecialReg> {
    let rest = name.strip_prefix("kernelc_")?;
    let ptx = match rest.rsplit_once('_') {
        Some((base, axis @ ("x" | "y" | "z"))) => format!("{base}.{axis}"),
        _ => rest.to_string(),
    };
    SpecialReg::from_name(&ptx).filter(|r| r.is_cluster())
}

fn ptr(pointee: CType, konst: bool) -> CType {
    CType::Pointer {
        pointee: Box::new(pointee),
        pointee_const: konst,
        pointee_volatile: false,
        restrict: false,
    }
}

const USHORT: CType = CType::Int {
    bits: 16,
    signed: false,
};

fn layout(w: &str) -> Option<MatLayout> {
    match w {
        "row" => Some(MatLayout::Row),
        "col" => Some(MatLayout::Col),
        _ => None,
    }
}

fn half_ty(w: &str) -> Option<MmaType> {
    match w {
        "f16" => Some(MmaType::F16),
        "bf16" => Some(MmaType::Bf16),
        _ => None,
    }
}

/// The operation, C parameter types and C result type of a built-in name.
pub(crate) fn tensor_builtin(name: &str) -> Option<(AccelOp, Vec<CType>, CType)> {
    use AccelOp as A;
    let rest = name.strip_prefix("kernelc_")?;
    let void_p = ptr(CType::Void, false);
    let cvoid_p = ptr(CType::Void, true);
    let bar = ptr(CType::ULONG, false);
    let frag_u = ptr(CType::UINT, false);
    let cfrag_u = ptr(CType::UINT, true);
    let frag_f = ptr(CType::FLOAT, false);
    let cfrag_f = ptr(CType::FLOAT, true);
    let parts: Vec<&str> = rest.split('_').collect();
    Some(match parts.as_slice() {
        ["cp", "async", cache @ ("ca" | "cg"), size] => {
            let size: u8 = size.parse().ok()?;
            let cache = if *cache == "ca" {
                CpCache::Ca
            } else {
                CpCache::Cg
            };
            let ok = matches!((cache, size), (CpCache::Ca, 4 | 8 | 16) | (CpCache::Cg, 16));
            if !ok {
                return None;
            }
            (
                A::CpAsync { cache, size },
                vec![void_p, cvoid_p],
                CType::Void,
            )
        }
        ["cp", "async", "commit"] => (A::CpAsyncCommit, vec![], CType::Void),
        // The count is checked (and made an immediate) by the caller.
        ["cp", "async", "wait"] => (A::CpAsyncWait { n: 0 }, vec![CType::INT], CType::Void),
        ["cp", "async", "wait", "all"] => (A::CpAsyncWaitAll, vec![], CType::Void),
        ["mbarrier", "init"] => (A::MbarInit, vec![bar, CType::UINT], CType::Void),
        ["mbarrier", "arrive"] => (A::MbarArrive, vec![bar], CType::ULONG),
        ["mbarrier", "arrive", "expect", "tx"] => {
            (A::MbarArriveExpectTx, vec![bar, CType::UINT], CType::ULONG)
        }
        ["mbarrier", "test", "wait"] => (A::MbarTestWait, vec![bar, CType::ULONG], CType::INT),
        ["mbarrier", "try", "wait", "parity"] => {
            (A::MbarTryWaitParity, vec![bar, CType::UINT], CType::INT)
        }
        ["fence", "proxy", "async"] => (A::FenceProxyAsync, vec![], CType::Void),
        ["tma", which @ ("load" | "store"), rank] => {
            let dims = match *rank {
                "1d" => 1,
                "2d" => 2,
                "3d" => 3,
                "4d" => 4,
                "5d" => 5,
                _ => return None,
            };
            let map = ptr(crate::types::tensor_map_type(), true);
            let coords = vec![CType::INT; usize::from(dims)];
            let params = if *which == "load" {
                [vec![void_p, map, bar], coords].concat()
            } else {
                [vec![map, cvoid_p], coords].concat()
            };
            let op = if *which == "load" {
                A::TmaLoad { dims }
            } else {
                A::TmaStore { dims }
            };
            (op, params, CType::Void)
        }
        ["cp", "async", "bulk", "commit"] => (A::BulkCommit, vec![], CType::Void),
        // The count is checked (and made an immediate) by the caller.
        ["cp", "async", "bulk", "wait"] => (
            A::BulkWait { n: 0, read: false },
            vec![CType::INT],
            CType::Void,
        ),
        ["cp", "async", "bulk", "wait", "read"] => (
            A::BulkWait { n: 0, read: true },
            vec![CType::INT],
            CType::Void,
        ),
        ["mapa"] => (A::Mapa, vec![void_p.clone(), CType::UINT], void_p),
        ["cluster", "arrive"] => (A::ClusterArrive { relaxed: false }, vec![], CType::Void),
        ["cluster", "arrive", "relaxed"] => {
            (A::ClusterArrive { relaxed: true }, vec![], CType::Void)
        }
        ["cluster", "wait"] => (A::ClusterWait, vec![], CType::Void),
        ["wmma", "load", f @ ("a" | "b"), ty, l] => {
            let frag = if *f == "a" { Frag::A } else { Frag::B };
            let op = A::WmmaLoad {
                frag,
                layout: layout(l)?,
                ty: half_ty(ty)?,
            };
            let params = vec![frag_u, ptr(USHORT, true), CType::UINT];
            (op, params, CType::Void)
        }
        ["wmma", "load", "c", "f32", l] => {
            let op = A::WmmaLoad {
                frag: Frag::C,
                layout: layout(l)?,
                ty: MmaType::F32,
            };
            (op, vec![frag_f, cfrag_f, CType::UINT], CType::Void)
        }
        ["wmma", "mma", ty, a, b] => {
            let op = A::WmmaMma {
                a: layout(a)?,
                b: layout(b)?,
                ty: half_ty(ty)?,
            };
            let params = vec![frag_f, cfrag_u.clone(), cfrag_u, cfrag_f];
            (op, params, CType::Void)
        }
        ["wmma", "store", "d", "f32", l] => {
            let op = A::WmmaStore { layout: layout(l)? };
            (op, vec![frag_f, cfrag_f, CType::UINT], CType::Void)
        }
        ["mma", "m16n8k16", ty] => {
            let op = A::Mma { ty: half_ty(ty)? };
            let params = vec![frag_f, cfrag_u.clone(), cfrag_u, cfrag_f];
            (op, params, CType::Void)
        }
        [which @ ("ldmatrix" | "stmatrix"), x, tail @ ..] => {
            let num = match *x {
                "x1" => 1,
                "x2" => 2,
                "x4" => 4,
                _ => return None,
            };
            let trans = match tail {
                [] => false,
                ["trans"] => true,
                _ => return None,
            };
            if *which == "ldmatrix" {
                let op = A::Ldmatrix { num, trans };
                (op, vec![frag_u, cvoid_p], CType::Void)
            } else {
                let op = A::Stmatrix { num, trans };
                (op, vec![void_p, cfrag_u], CType::Void)
            }
        }
        _ => return None,
    })
}

/// How many elements each fragment-pointer parameter of `op` covers (0
/// for a parameter that is not a fragment). Lowering reads or writes that
/// many elements; the notes in diagnostics cite them.
pub(crate) fn fragment_lengths(op: AccelOp) -> Vec<usize> {
    match op {
        AccelOp::WmmaLoad { frag, ty, .. } => vec![wmma_frag_len(frag, ty), 0, 0],
        AccelOp::WmmaMma { ty, .. } => {
            vec![8, wmma_frag_len(Frag::A, ty), wmma_frag_len(Frag::B, ty), 8]
        }
        AccelOp::WmmaStore { .. } => vec![0, 8, 0],
        AccelOp::Mma { .. } => vec![4, 4, 2, 4],
        AccelOp::Ldmatrix { num, .. } => vec![usize::from(num), 0],
        AccelOp::Stmatrix { num, .. } => vec![0, usize::from(num)],
        _ => Vec::new(),
    }
}

impl Checker {
    /// Types a call of a tensor-core or async-copy built-in.
    pub(super) fn tensor_call(
        &mut self,
        name: &str,
        op: AccelOp,
        params: &[CType],
        ret: CType,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        if args.len() != params.len() {
            let n = params.len();
            let s = if n == 1 { "" } else { "s" };
            let msg = format!("`{name}` takes {n} argument{s}, have {}", args.len());
            self.error(span, Code::E0099, msg);
            return None;
        }
        let mut op = op;
        if let AccelOp::CpAsyncWait { .. } | AccelOp::BulkWait { .. } = op {
            match self.const_int(&args[0]) {
                Some(n @ 0..=255) => {
                    op = match op {
                        AccelOp::BulkWait { read, .. } => AccelOp::BulkWait { n: n as u8, read },
                        _ => AccelOp::CpAsyncWait { n: n as u8 },
                    }
                }
                _ => {
                    let msg = format!(
                        "the group count of `{name}` must be a constant from 0 to 255 (PTX takes it as an immediate)"
                    );
                    self.error(args[0].span, Code::E0009, msg);
                    return None;
                }
            }
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (i, (a, p)) in args.into_iter().zip(params).enumerate() {
            let at = a.span;
            match self.assign_convert(a, p, &format!("argument {} of `{name}`", i + 1), at) {
                Some(a) => out.push(a),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        Some(Expr {
            kind: ExprKind::Intrinsic {
                op: Intrinsic::Accel(op),
                args: out,
            },
            ty: ret,
            span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decode_to_operations() {
        assert!(tensor_builtin("kernelc_cp_async_cg_16").is_some());
        assert!(tensor_builtin("kernelc_cp_async_cg_8").is_none());
        assert!(tensor_builtin("kernelc_cp_async_ca_2").is_none());
        assert!(tensor_builtin("kernelc_wmma_load_a_bf16_col").is_some());
        assert!(tensor_builtin("kernelc_wmma_load_c_f16_row").is_none());
        assert!(tensor_builtin("kernelc_wmma_mma_f16_row_col").is_some());
        assert!(tensor_builtin("kernelc_ldmatrix_x4_trans").is_some());
        assert!(tensor_builtin("kernelc_ldmatrix_x3").is_none());
        assert!(tensor_builtin("kernelc_mbarrier_try_wait_parity").is_some());
        assert!(tensor_builtin("wmma_mma_f16_row_col").is_none());
        assert!(tensor_builtin("kernelc_tma_load_5d").is_some());
        assert!(tensor_builtin("kernelc_tma_store_6d").is_none());
        assert!(tensor_builtin("kernelc_cp_async_bulk_wait_read").is_some());
        assert_eq!(
            cluster_register("kernelc_cluster_ctaid_y"),
            Some(SpecialReg::ClusterCtaidY)
        );
        assert_eq!(
            cluster_register("kernelc_cluster_nctarank"),
            Some(SpecialReg::ClusterNctarank)
        );
        assert_eq!(cluster_register("kernelc_tid_x"), None);
    }
}
