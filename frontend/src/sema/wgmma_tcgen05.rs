//! The Hopper warpgroup built-ins (`kernelc_wgmma_*`, `kernelc_setmaxnreg_*`)
//! and the Blackwell tensor-memory ones (`kernelc_tcgen05_*`), with the
//! descriptor builders they need.
//!
//! The C conventions follow `tensor.rs`: an accumulator or register
//! fragment is a local array passed by pointer, and a value that PTX takes
//! as an immediate (a wait count, a register budget, a scale or transpose
//! flag, a swizzle mode) must be a constant expression, checked here with a
//! diagnostic on that argument. A tensor-memory address is an `unsigned`
//! in C (it is what `tcgen05.alloc` writes to shared memory); lowering
//! turns it into a `ptr<tmem>` right at the call, so in the IR it is a
//! tensor-memory pointer from then on.
//!
//! The instruction descriptor of `tcgen05.mma` depends only on constants
//! (types, shape, majorness), so its builder is folded here to one integer.

use super::Checker;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{Expr, ExprKind, Intrinsic};
use crate::types::CType;
use midend::ir::{setmaxnreg_ok, AccelOp, MmaType, TcCpShape, TcKind, TCGEN05_XS, WGMMA_NS};

fn ptr(pointee: CType, konst: bool) -> CType {
    CType::Pointer {
        pointee: Box::new(pointee),
        pointee_const: konst,
        pointee_volatile: false,
        restrict: false,
    }
}

/// What a built-in name of this family means.
#[derive(Clone, Debug)]
pub(crate) enum TensorBuiltin {
    /// One `accel` instruction. `consts` arguments at the end of the C
    /// list are compile-time values that pick the operation's modifiers;
    /// they are checked and dropped.
    Accel {
        op: AccelOp,
        params: Vec<CType>,
        ret: CType,
        consts: usize,
    },
    /// `kernelc_wgmma_desc` / `kernelc_tcgen05_smem_desc`: a 64-bit
    /// shared-memory matrix descriptor.
    SmemDesc { tcgen05: bool },
    /// `kernelc_tcgen05_idesc_{f16,bf16,tf32}`: a 32-bit instruction
    /// descriptor, all constants. `ab` is the A/B format code.
    Idesc { ab: u32 },
}

/// The built-in with this name, if it is one of this family.
pub(crate) fn lookup(name: &str) -> Option<TensorBuiltin> {
    use AccelOp as A;
    let rest = name.strip_prefix("kernelc_")?;
    let frag_u = ptr(CType::UINT, false);
    let cfrag_u = ptr(CType::UINT, true);
    let frag_f = ptr(CType::FLOAT, false);
    let simple = |op| TensorBuiltin::Accel {
        op,
        params: vec![],
        ret: CType::Void,
        consts: 0,
    };
    let parts: Vec<&str> = rest.split('_').collect();
    Some(match parts.as_slice() {
        ["wgmma", "fence"] => simple(A::WgmmaFence),
        ["wgmma", "commit"] => simple(A::WgmmaCommit),
        ["wgmma", "wait"] => TensorBuiltin::Accel {
            op: A::WgmmaWait { n: 0 },
            params: vec![CType::INT],
            ret: CType::Void,
            consts: 1,
        },
        ["wgmma", "desc"] => TensorBuiltin::SmemDesc { tcgen05: false },
        ["wgmma", shape, "f32", ab @ ("f16" | "bf16")] => {
            let n: u16 = shape
                .strip_prefix("m64n")?
                .strip_suffix("k16")?
                .parse()
                .ok()?;
            if !WGMMA_NS.contains(&n) {
                return None;
            }
            let ty = if *ab == "f16" {
                MmaType::F16
            } else {
                MmaType::Bf16
            };
            let op = A::WgmmaMma {
                n,
                ty,
                neg_a: false,
                neg_b: false,
                trans_a: false,
                trans_b: false,
            };
            let mut params = vec![frag_f, CType::ULONG, CType::ULONG, CType::INT];
            params.extend([CType::INT; 4]);
            TensorBuiltin::Accel {
                op,
                params,
                ret: CType::Void,
                consts: 4,
            }
        }
        ["setmaxnreg", dir @ ("inc" | "dec")] => TensorBuiltin::Accel {
            op: A::Setmaxnreg {
                inc: *dir == "inc",
                regs: 0,
            },
            params: vec![CType::INT],
            ret: CType::Void,
            consts: 1,
        },
        ["tcgen05", "alloc"] => TensorBuiltin::Accel {
            op: A::Tcgen05Alloc,
            params: vec![frag_u, CType::UINT],
            ret: CType::Void,
            consts: 0,
        },
        ["tcgen05", "relinquish", "alloc", "permit"] => simple(A::Tcgen05Relinquish),
        ["tcgen05", "dealloc"] => TensorBuiltin::Accel {
            op: A::Tcgen05Dealloc,
            params: vec![CType::UINT, CType::UINT],
            ret: CType::Void,
            consts: 0,
        },
        ["tcgen05", "mma", kind @ ("f16" | "tf32")] => TensorBuiltin::Accel {
            op: A::Tcgen05Mma {
                kind: if *kind == "f16" {
                    TcKind::F16
                } else {
                    TcKind::Tf32
                },
            },
            params: vec![
                CType::UINT,
                CType::ULONG,
                CType::ULONG,
                CType::UINT,
                CType::INT,
            ],
            ret: CType::Void,
            consts: 0,
        },
        ["tcgen05", "commit"] => TensorBuiltin::Accel {
            op: A::Tcgen05Commit,
            params: vec![ptr(CType::ULONG, false)],
            ret: CType::Void,
            consts: 0,
        },
        ["tcgen05", dir @ ("ld" | "st"), "32x32b", x] => {
            let num: u8 = x.strip_prefix('x')?.parse().ok()?;
            if !TCGEN05_XS.contains(&num) {
                return None;
            }
            let (op, params) = if *dir == "ld" {
                (A::Tcgen05Ld { num }, vec![frag_u, CType::UINT])
            } else {
                (A::Tcgen05St { num }, vec![CType::UINT, cfrag_u])
            };
            TensorBuiltin::Accel {
                op,
                params,
                ret: CType::Void,
                consts: 0,
            }
        }
        ["tcgen05", "wait", dir @ ("ld" | "st")] => simple(A::Tcgen05Wait { st: *dir == "st" }),
        ["tcgen05", "cp", shape] => TensorBuiltin::Accel {
            op: A::Tcgen05Cp {
                shape: TcCpShape::from_name(shape)?,
            },
            params: vec![CType::UINT, CType::ULONG],
            ret: CType::Void,
            consts: 0,
        },
        ["tcgen05", "fence", when @ ("before" | "after"), "thread", "sync"] => {
            simple(A::Tcgen05Fence {
                after: *when == "after",
            })
        }
        ["tcgen05", "smem", "desc"] => TensorBuiltin::SmemDesc { tcgen05: true },
        ["tcgen05", "idesc", ab] => TensorBuiltin::Idesc {
            ab: match *ab {
                "f16" => 0,
                "bf16" => 1,
                "tf32" => 2,
                _ => return None,
            },
        },
        _ => return None,
    })
}

/// The C parameters of a descriptor builder.
fn builder_params(b: &TensorBuiltin) -> Vec<CType> {
    match b {
        TensorBuiltin::SmemDesc { .. } => {
            vec![ptr(CType::Void, true), CType::UINT, CType::UINT, CType::INT]
        }
        TensorBuiltin::Idesc { .. } => vec![CType::INT; 4],
        TensorBuiltin::Accel { params, .. } => params.clone(),
    }
}

/// The number of `f32` accumulators / 32-bit registers each fragment
/// parameter of `op` covers (0 for a parameter that is not a fragment).
pub(crate) fn fragment_lengths(op: AccelOp) -> Vec<usize> {
    match op {
        AccelOp::WgmmaMma { n, .. } => vec![usize::from(n / 2), 0, 0, 0],
        AccelOp::Tcgen05Ld { num } => vec![usize::from(num), 0],
        AccelOp::Tcgen05St { num } => vec![0, usize::from(num)],
        _ => Vec::new(),
    }
}

/// The layout-type field of a descriptor for a swizzle of `bytes`:
/// wgmma's 2-bit code at bit 62, tcgen05's 3-bit code at bit 61.
pub(crate) fn swizzle_code(bytes: i128, tcgen05: bool) -> Option<u64> {
    Some(match (bytes, tcgen05) {
        (0, _) => 0,
        (128, false) => 1,
        (64, false) => 2,
        (32, false) => 3,
        (128, true) => 2,
        (64, true) => 4,
        (32, true) => 6,
        _ => return None,
    })
}

impl Checker {
    /// Types a call of a wgmma, setmaxnreg or tcgen05 built-in.
    pub(super) fn tensor_b_call(
        &mut self,
        name: &str,
        builtin: TensorBuiltin,
        args: Vec<Expr>,
        span: Span,
    ) -> Option<Expr> {
        let params = builder_params(&builtin);
        if args.len() != params.len() {
            let n = params.len();
            let s = if n == 1 { "" } else { "s" };
            let msg = format!("`{name}` takes {n} argument{s}, have {}", args.len());
            self.error(span, Code::E0099, msg);
            return None;
        }
        let mut out = Vec::new();
        let mut ok = true;
        for (i, (a, p)) in args.into_iter().zip(&params).enumerate() {
            let at = a.span;
            match self.assign_convert(a, p, &format!("argument {} of `{name}`", i + 1), at) {
                Some(a) => out.push(a),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        match builtin {
            TensorBuiltin::Accel {
                op, ret, consts, ..
            } => {
                let fixed = out.len() - consts;
                let op = self.accel_constants(name, op, &out[fixed..], &out[..fixed])?;
                out.truncate(fixed);
                Some(Expr {
                    kind: ExprKind::Intrinsic {
                        op: Intrinsic::Accel(op),
                        args: out,
                    },
                    ty: ret,
                    span,
                })
            }
            TensorBuiltin::SmemDesc { tcgen05 } => {
                let sw = &out[3];
                let code = self
                    .const_int(sw)
                    .and_then(|b| swizzle_code(b, tcgen05).map(|c| (b, c)));
                let Some((_, code)) = code else {
                    let msg = format!(
                        "the swizzle of `{name}` must be a constant 0, 32, 64 or 128 (bytes)"
                    );
                    self.error(sw.span, Code::E0009, msg);
                    return None;
                };
                out[3] = Expr {
                    kind: ExprKind::IntConst(i128::from(code)),
                    ty: CType::INT,
                    span: out[3].span,
                };
                Some(Expr {
                    kind: ExprKind::Intrinsic {
                        op: Intrinsic::SmemDesc { tcgen05 },
                        args: out,
                    },
                    ty: CType::ULONG,
                    span,
                })
            }
            TensorBuiltin::Idesc { ab } => {
                let value = self.idesc(name, ab, &out)?;
                Some(Expr {
                    kind: ExprKind::IntConst(i128::from(value)),
                    ty: CType::UINT,
                    span,
                })
            }
        }
    }

    /// A constant argument, or an error of kind `code` on it that says
    /// what it must be (`want`).
    fn const_arg(
        &mut self,
        name: &str,
        e: &Expr,
        ok: impl Fn(i128) -> bool,
        (code, want): (Code, &str),
    ) -> Option<i128> {
        match self.const_int(e) {
            Some(v) if ok(v) => Some(v),
            Some(v) => {
                self.error(e.span, code, format!("{want} in `{name}`, not {v}"));
                None
            }
            None => {
                let msg = format!(
                    "{want} in `{name}` (PTX takes it as an immediate), but this is not a constant"
                );
                self.error(e.span, code, msg);
                None
            }
        }
    }

    /// Folds the constant arguments of `op` into its modifiers, and checks
    /// the values ptxas would reject when they are constants.
    fn accel_constants(
        &mut self,
        name: &str,
        op: AccelOp,
        consts: &[Expr],
        rest: &[Expr],
    ) -> Option<AccelOp> {
        Some(match op {
            AccelOp::WgmmaWait { .. } => {
                let n = self.const_arg(
                    name,
                    &consts[0],
                    |v| (0..=255).contains(&v),
                    (
                        Code::E0009,
                        "the group count must be a constant from 0 to 255",
                    ),
                )?;
                AccelOp::WgmmaWait { n: n as u8 }
            }
            AccelOp::Setmaxnreg { inc, .. } => {
                let regs = self.const_arg(
                    name,
                    &consts[0],
                    |v| u16::try_from(v).is_ok_and(setmaxnreg_ok),
                    (
                        Code::E0099,
                        "the register count must be a multiple of 8 from 24 to 256",
                    ),
                )?;
                AccelOp::Setmaxnreg {
                    inc,
                    regs: regs as u16,
                }
            }
            AccelOp::WgmmaMma { n, ty, .. } => {
                let scale = |c: &mut Self, e: &Expr, which: &str| {
                    c.const_arg(
                        name,
                        e,
                        |v| v == 1 || v == -1,
                        (
                            Code::E0009,
                            &format!("the scale of {which} must be a constant 1 or -1"),
                        ),
                    )
                };
                let trans = |c: &mut Self, e: &Expr, which: &str| {
                    c.const_arg(
                        name,
                        e,
                        |v| v == 0 || v == 1,
                        (
                            Code::E0009,
                            &format!("the transpose flag of {which} must be a constant 0 or 1"),
                        ),
                    )
                };
                let sa = scale(self, &consts[0], "A");
                let sb = scale(self, &consts[1], "B");
                let ta = trans(self, &consts[2], "A");
                let tb = trans(self, &consts[3], "B");
                AccelOp::WgmmaMma {
                    n,
                    ty,
                    neg_a: sa? == -1,
                    neg_b: sb? == -1,
                    trans_a: ta? == 1,
                    trans_b: tb? == 1,
                }
            }
            AccelOp::Tcgen05Alloc | AccelOp::Tcgen05Dealloc => {
                // The column count may be a run-time value; a constant one
                // is checked as ptxas would.
                if let Some(v) = self.const_int(&rest[1]) {
                    let good = (32..=512).contains(&v) && (v as u64).is_power_of_two();
                    if !good {
                        let msg = format!(
                            "the column count of `{name}` must be a power of 2 from 32 to 512, not {v}"
                        );
                        self.error(rest[1].span, Code::E0099, msg);
                        return None;
                    }
                }
                op
            }
            _ => op,
        })
    }

    /// The instruction descriptor of `kernelc_tcgen05_idesc_*(m, n,
    /// a_mn_major, b_mn_major)`, f32 accumulation (bit layout in
    /// docs/tensor-cores.md).
    fn idesc(&mut self, name: &str, ab: u32, args: &[Expr]) -> Option<u32> {
        let m = self.const_arg(
            name,
            &args[0],
            |v| v == 64 || v == 128,
            (Code::E0009, "M must be a constant 64 or 128"),
        );
        let n = self.const_arg(
            name,
            &args[1],
            |v| (8..=256).contains(&v) && v % 8 == 0,
            (
                Code::E0009,
                "N must be a constant multiple of 8 from 8 to 256",
            ),
        );
        let bit = |c: &mut Self, e: &Expr, which: &str| {
            c.const_arg(
                name,
                e,
                |v| v == 0 || v == 1,
                (
                    Code::E0009,
                    &format!("{which} must be a constant 0 (K-major) or 1 (MN-major)"),
                ),
            )
        };
        let am = bit(self, &args[2], "the majorness of A");
        let bm = bit(self, &args[3], "the majorness of B");
        let (m, n, am, bm) = (m?, n?, am?, bm?);
        if m == 128 && n % 16 != 0 {
            let msg = format!("N must be a multiple of 16 when M is 128 in `{name}`, not {n}");
            self.error(args[1].span, Code::E0099, msg);
            return None;
        }
        let (m, n, am, bm) = (m as u32, n as u32, am as u32, bm as u32);
        // D format f32 (1) at bit 4; A and B formats at bits 7 and 10.
        Some(
            (1 << 4)
                | (ab << 7)
                | (ab << 10)
                | (am << 15)
                | (bm << 16)
                | ((n >> 3) << 17)
                | ((m >> 4) << 24),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decode() {
        assert!(matches!(
            lookup("kernelc_wgmma_m64n128k16_f32_bf16"),
            Some(TensorBuiltin::Accel { consts: 4, .. })
        ));
        assert!(lookup("kernelc_wgmma_m64n72k16_f32_f16").is_none());
        assert!(lookup("kernelc_tcgen05_ld_32x32b_x16").is_some());
        assert!(lookup("kernelc_tcgen05_ld_32x32b_x3").is_none());
        assert!(lookup("kernelc_tcgen05_cp_128x256b").is_some());
        assert!(lookup("kernelc_tcgen05_cp_8x8b").is_none());
        assert!(lookup("kernelc_tcgen05_fence_after_thread_sync").is_some());
        assert!(lookup("kernelc_setmaxnreg_inc").is_some());
        assert!(lookup("kernelc_cp_async_commit").is_none());
    }

    #[test]
    fn swizzle_codes_follow_each_descriptor() {
        assert_eq!(swizzle_code(128, false), Some(1));
        assert_eq!(swizzle_code(32, false), Some(3));
        assert_eq!(swizzle_code(128, true), Some(2));
        assert_eq!(swizzle_code(64, true), Some(4));
        assert_eq!(swizzle_code(16, true), None);
    }
}
