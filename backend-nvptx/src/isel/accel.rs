//! Selection of async copies (`cp.async`), mbarriers, `fence.proxy.async`
//! and the tensor-core instructions (`wmma`, `mma.sync`, `ldmatrix`,
//! `stmatrix`).
//!
//! Each needs a minimum target. Asking for one the target lacks is an
//! error at the instruction's source span that names the target needed,
//! in ptxas's words where ptxas has them (`shared/ptx-facts.md` §7), so the
//! student sees the problem before ptxas does. Each also records the
//! `.version` it needs.

use super::error::{Malformed, TargetLacks};
use super::{Isel, IselResult};
use crate::minst::{AccelArg, Address, MInst, PtxType, Reg, RegClass, Space};
use midend::ir::{AccelOp, AddrSpace, CpCache, Frag, MatLayout, MmaType, Type, Value};

/// `(minimum SM, minimum .version, what ptxas calls it)` of an operation.
fn requirement(op: AccelOp) -> (u32, (u32, u32), &'static str) {
    use AccelOp::*;
    match op {
        CpAsync { .. } | CpAsyncCommit | CpAsyncWait { .. } | CpAsyncWaitAll => {
            (80, (7, 0), "cp.async")
        }
        MbarInit | MbarArrive | MbarTestWait => (80, (7, 0), "mbarrier"),
        MbarTryWaitParity => (90, (7, 8), "mbarrier.try_wait.parity"),
        MbarArriveExpectTx => (90, (8, 0), "mbarrier.arrive.expect_tx"),
        FenceProxyAsync => (90, (8, 0), "fence.proxy.async"),
        WmmaLoad {
            ty: MmaType::Bf16, ..
        }
        | WmmaMma {
            ty: MmaType::Bf16, ..
        } => (80, (7, 0), "WMMA with .bf16/.tf32 FP types"),
        WmmaLoad { .. } | WmmaMma { .. } | WmmaStore { .. } => (75, (6, 3), "wmma"),
        Mma { .. } => (80, (7, 0), "mma.sync.m16n8k16"),
        Ldmatrix { .. } => (75, (6, 5), "ldmatrix"),
        Stmatrix { .. } => (90, (7, 8), "stmatrix"),
        TmaLoad { .. } | TmaStore { .. } => (90, (8, 0), "cp.async.bulk.tensor"),
        BulkCommit | BulkWait { .. } => (90, (8, 0), "cp.async.bulk"),
        Mapa => (90, (7, 8), "mapa"),
        // The `.release`/`.relaxed`/`.acquire` qualifiers need 8.0.
        ClusterArrive { .. } => (90, (8, 0), "barrier.cluster.arrive"),
        ClusterWait => (90, (8, 0), "barrier.cluster.wait"),
        // wgmma, setmaxnreg and tcgen05 are gated by target name in
        // `wgmma_tcgen05.rs` before this table is asked.
        _ => (0, (0, 0), "arch-specific"),
    }
}

fn layout(l: MatLayout) -> &'static str {
    match l {
        MatLayout::Row => ".row",
        MatLayout::Col => ".col",
    }
}

fn elem(ty: MmaType) -> &'static str {
    match ty {
        MmaType::F16 => ".f16",
        MmaType::Bf16 => ".bf16",
        MmaType::F32 => ".f32",
    }
}

impl Isel<'_> {
    /// The address of `ptr` for an instruction that names the state space
    /// `want`. A generic pointer is converted with `cvta.to` when the
    /// instruction has no generic form (`generic_ok` false); a shared
    /// address is then narrowed to the 32 bits kernelc keeps shared
    /// pointers in.
    pub(super) fn accel_address(
        &mut self,
        ptr: Value,
        want: AddrSpace,
        generic_ok: bool,
    ) -> IselResult<(Space, Address)> {
        match self.ty(ptr) {
            Type::Ptr(AddrSpace::Generic) if !generic_ok => {
                let space = super::space_of(want)?;
                let src = self.reg(ptr)?;
                let wide = self.new_reg(RegClass::B64);
                self.emit(MInst::Cvta {
                    to_space: true,
                    space,
                    dst: wide,
                    src: src.into(),
                });
                let base = if want == AddrSpace::Shared {
                    let narrow = self.new_reg(RegClass::B32);
                    self.emit(MInst::Cvt {
                        round: None,
                        dst_ty: PtxType::U32,
                        src_ty: PtxType::U64,
                        dst: narrow,
                        src: wide.into(),
                    });
                    narrow
                } else {
                    wide
                };
                Ok((
                    space,
                    Address {
                        base: crate::minst::AddrBase::Reg(base),
                        offset: 0,
                    },
                ))
            }
            _ => self.address(ptr),
        }
    }

    /// Refuses cluster features (`::cluster` spaces, cluster registers)
    /// below sm_90, in ptxas's words.
    pub(super) fn require_sm90(&self, feature: &'static str) -> IselResult<()> {
        if self.target.sm() < 90 {
            return Err(TargetLacks::Feature {
                feature,
                sm: 90,
                target: self.target,
            }
            .into());
        }
        Ok(())
    }

    /// The tensor-map operand of a TMA copy: ptxas takes only a 64-bit
    /// generic address (the `.param` symbol itself is refused, ptx-facts
    /// §7e), so a `__grid_constant__` parameter goes through `cvta.param`
    /// and a global pointer through `cvta.global`.
    fn tensor_map(&mut self, ptr: Value) -> IselResult<Reg> {
        let src = self.reg(ptr)?;
        let space = match self.ty(ptr) {
            Type::Ptr(AddrSpace::Param) => {
                self.features.require("cvta.param", (7, 7));
                Space::Param
            }
            Type::Ptr(AddrSpace::Global) => Space::Global,
            _ => return Ok(src),
        };
        let dst = self.new_reg(RegClass::B64);
        self.emit(MInst::Cvta {
            to_space: false,
            space,
            dst,
            src: src.into(),
        });
        Ok(dst)
    }

    /// `mapa` wants the 64-bit shared address of this block's variable.
    fn shared_address_64(&mut self, ptr: Value) -> IselResult<Reg> {
        let src = self.reg(ptr)?;
        let wide = self.new_reg(RegClass::B64);
        match self.ty(ptr) {
            Type::Ptr(AddrSpace::Generic) => self.emit(MInst::Cvta {
                to_space: true,
                space: Space::Shared,
                dst: wide,
                src: src.into(),
            }),
            _ => self.emit(MInst::Cvt {
                round: None,
                dst_ty: PtxType::U64,
                src_ty: PtxType::U32,
                dst: wide,
                src: src.into(),
            }),
        }
        Ok(wide)
    }

    fn regs_of(&mut self, vals: &[Value]) -> IselResult<Vec<Reg>> {
        vals.iter().map(|&v| self.reg(v)).collect()
    }

    fn defs_of(&mut self, vals: &[Value]) -> Vec<Reg> {
        vals.iter().map(|&v| self.def(v)).collect()
    }

    // Long: one arm per accelerator opcode (cp.async, mbarrier, TMA,
    // wgmma, tcgen05), each a short selection; one table of the family.
    pub(super) fn accel(
        &mut self,
        op: AccelOp,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        if super::wgmma_tcgen05::is_arch_specific(op) {
            return self.accel_arch_specific(op, args, results);
        }
        if matches!(op, AccelOp::Vprintf | AccelOp::AssertFail) {
            return self.runtime_call(op, args, results);
        }
        if matches!(op, AccelOp::Tex(_) | AccelOp::Suld(_) | AccelOp::Sust(_)) {
            return self.texture(op, args, results);
        }
        let (sm, version, what) = requirement(op);
        if self.target.sm() < sm {
            return Err(TargetLacks::Feature {
                feature: what,
                sm,
                target: self.target,
            }
            .into());
        }
        self.features.require(what, version);
        let mut out: Vec<AccelArg> = Vec::new();
        let name = match op {
            AccelOp::CpAsync { cache, size } => {
                let (_, dst) = self.accel_address(args[0], AddrSpace::Shared, false)?;
                let (_, src) = self.accel_address(args[1], AddrSpace::Global, false)?;
                out.push(AccelArg::Addr(dst));
                out.push(AccelArg::Addr(src));
                out.push(AccelArg::Use(crate::minst::Operand::Imm(i64::from(size))));
                let c = if cache == CpCache::Ca { "ca" } else { "cg" };
                format!("cp.async.{c}.shared.global")
            }
            AccelOp::CpAsyncCommit => "cp.async.commit_group".into(),
            AccelOp::CpAsyncWait { n } => {
                out.push(AccelArg::Use(crate::minst::Operand::Imm(i64::from(n))));
                "cp.async.wait_group".into()
            }
            AccelOp::CpAsyncWaitAll => "cp.async.wait_all".into(),
            AccelOp::FenceProxyAsync => "fence.proxy.async.shared::cta".into(),
            AccelOp::MbarInit
            | AccelOp::MbarArrive
            | AccelOp::MbarArriveExpectTx
            | AccelOp::MbarTestWait
            | AccelOp::MbarTryWaitParity => {
                let (space, addr) = self.accel_address(args[0], AddrSpace::Shared, true)?;
                // The sm_90 forms are spelled with `::cta`, as ptxas's examples are.
                let sp = match (space, sm >= 90) {
                    (Space::Generic, _) => "",
                    (_, true) => ".shared::cta",
                    (_, false) => ".shared",
                };
                if let Some(&r) = results.first() {
                    out.push(AccelArg::Def(self.def(r)));
                }
                out.push(AccelArg::Addr(addr));
                if let Some(&v) = args.get(1) {
                    out.push(AccelArg::Use(self.operand(v)?));
                }
                let base = match op {
                    AccelOp::MbarInit => "mbarrier.init",
                    AccelOp::MbarArrive => "mbarrier.arrive",
                    AccelOp::MbarArriveExpectTx => "mbarrier.arrive.expect_tx",
                    AccelOp::MbarTestWait => "mbarrier.test_wait",
                    _ => "mbarrier.try_wait.parity",
                };
                format!("{base}{sp}.b64")
            }
            AccelOp::WmmaLoad {
                frag,
                layout: l,
                ty,
            } => {
                let (space, addr) = self.address(args[0])?;
                let regs = self.defs_of(results);
                out.push(AccelArg::DefVec(regs));
                out.push(AccelArg::Addr(addr));
                out.push(AccelArg::Use(self.operand(args[1])?));
                let f = match frag {
                    Frag::A => "a",
                    Frag::B => "b",
                    Frag::C => "c",
                };
                format!(
                    "wmma.load.{f}.sync.aligned{}.m16n16k16{}{}",
                    layout(l),
                    space.suffix(),
                    elem(ty)
                )
            }
            AccelOp::WmmaMma { a, b, ty } => {
                let na = midend::ir::wmma_frag_len(Frag::A, ty);
                let nb = midend::ir::wmma_frag_len(Frag::B, ty);
                let d = self.defs_of(results);
                let ra = self.regs_of(&args[..na])?;
                let rb = self.regs_of(&args[na..na + nb])?;
                let rc = self.regs_of(&args[na + nb..])?;
                out.extend([
                    AccelArg::DefVec(d),
                    AccelArg::UseVec(ra),
                    AccelArg::UseVec(rb),
                    AccelArg::UseVec(rc),
                ]);
                let types = if ty == MmaType::Bf16 {
                    ".f32.bf16.bf16.f32"
                } else {
                    ".f32.f32"
                };
                format!(
                    "wmma.mma.sync.aligned{}{}.m16n16k16{types}",
                    layout(a),
                    layout(b)
                )
            }
            AccelOp::WmmaStore { layout: l } => {
                let (space, addr) = self.address(args[0])?;
                let d = self.regs_of(&args[1..9])?;
                out.push(AccelArg::Addr(addr));
                out.push(AccelArg::UseVec(d));
                out.push(AccelArg::Use(self.operand(args[9])?));
                format!(
                    "wmma.store.d.sync.aligned{}.m16n16k16{}.f32",
                    layout(l),
                    space.suffix()
                )
            }
            AccelOp::Mma { ty } => {
                let d = self.defs_of(results);
                let ra = self.regs_of(&args[..4])?;
                let rb = self.regs_of(&args[4..6])?;
                let rc = self.regs_of(&args[6..])?;
                out.extend([
                    AccelArg::DefVec(d),
                    AccelArg::UseVec(ra),
                    AccelArg::UseVec(rb),
                    AccelArg::UseVec(rc),
                ]);
                let e = elem(ty);
                format!("mma.sync.aligned.m16n8k16.row.col.f32{e}{e}.f32")
            }
            AccelOp::Ldmatrix { num, trans } | AccelOp::Stmatrix { num, trans } => {
                let (space, addr) = self.accel_address(args[0], AddrSpace::Shared, true)?;
                let t = if trans { ".trans" } else { "" };
                let base = if matches!(op, AccelOp::Ldmatrix { .. }) {
                    let regs = self.defs_of(results);
                    out.push(AccelArg::DefVec(regs));
                    out.push(AccelArg::Addr(addr));
                    "ldmatrix"
                } else {
                    let regs = self.regs_of(&args[1..])?;
                    out.push(AccelArg::Addr(addr));
                    out.push(AccelArg::UseVec(regs));
                    "stmatrix"
                };
                format!("{base}.sync.aligned.m8n8.x{num}{t}{}.b16", space.suffix())
            }
            AccelOp::TmaLoad { dims } => {
                let (_, dst) = self.accel_address(args[0], AddrSpace::Shared, false)?;
                let map = self.tensor_map(args[1])?;
                let (_, bar) = self.accel_address(args[2], AddrSpace::Shared, false)?;
                let coords = self.regs_of(&args[3..])?;
                out.push(AccelArg::Addr(dst));
                out.push(AccelArg::TensorAddr { map, coords });
                out.push(AccelArg::Addr(bar));
                format!(
                    "cp.async.bulk.tensor.{dims}d.shared::cluster.global.mbarrier::complete_tx::bytes"
                )
            }
            AccelOp::TmaStore { dims } => {
                let map = self.tensor_map(args[0])?;
                let (_, src) = self.accel_address(args[1], AddrSpace::Shared, false)?;
                let coords = self.regs_of(&args[2..])?;
                out.push(AccelArg::TensorAddr { map, coords });
                out.push(AccelArg::Addr(src));
                format!("cp.async.bulk.tensor.{dims}d.global.shared::cta.bulk_group")
            }
            AccelOp::BulkCommit => "cp.async.bulk.commit_group".into(),
            AccelOp::BulkWait { n, read } => {
                out.push(AccelArg::Use(crate::minst::Operand::Imm(i64::from(n))));
                let r = if read { ".read" } else { "" };
                format!("cp.async.bulk.wait_group{r}")
            }
            AccelOp::Mapa => {
                let src = self.shared_address_64(args[0])?;
                let rank = self.operand(args[1])?;
                let dst = self.def(results[0]);
                out.push(AccelArg::Def(dst));
                out.push(AccelArg::Use(src.into()));
                out.push(AccelArg::Use(rank));
                "mapa.shared::cluster.u64".into()
            }
            AccelOp::ClusterArrive { relaxed } => {
                let sem = if relaxed { ".relaxed" } else { ".release" };
                format!("barrier.cluster.arrive{sem}")
            }
            AccelOp::ClusterWait => "barrier.cluster.wait.acquire".into(),
            other => return Err(Malformed::SelectedElsewhere(other.opcode()).into()),
        };
        self.emit(MInst::Accel {
            op: name,
            args: out,
        });
        Ok(())
    }
}
