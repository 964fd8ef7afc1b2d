//! Selection of the Hopper warpgroup instructions (`wgmma`, `setmaxnreg`)
//! and the Blackwell tensor-memory instructions (`tcgen05`).
//!
//! Unlike the forms in `accel.rs`, these exist only on *architecture-
//! specific* targets: `wgmma` on `sm_90a` alone (ptxas rejects it on
//! `sm_90` and on every later GPU), `tcgen05` on `sm_100a` and `sm_103a`,
//! `setmaxnreg` on all of them and on `sm_120a`. Asking for one elsewhere is an error at the
//! call that names the targets that have it. The `.version` each needs is
//! recorded as a feature (`shared/ptx-facts.md` §7).
//!
//! A tensor-memory address (`ptr<tmem>`) is a 32-bit register and is
//! written in brackets (`[%r5]`); it is never converted to anything else.

use super::error::{Malformed, TargetLacks};
use super::{Isel, IselResult};
use crate::minst::{AccelArg, AddrBase, Address, MInst, Operand, Reg, Space, UnaryOp};
use crate::target::Target;
use midend::ir::{AccelOp, AddrSpace, InstData, MmaType, TcKind, Value, ValueDef};

/// The targets that have `wgmma`.
const WGMMA_TARGETS: &[&str] = &["sm_90a"];
/// The targets (in kernelc's table) that have `tcgen05`.
const TCGEN05_TARGETS: &[&str] = &["sm_100a", "sm_103a"];
/// The targets (in kernelc's table) that have `setmaxnreg`: every
/// architecture-specific one (ptxas 13.5 accepts it on sm_120a too).
const SETMAXNREG_TARGETS: &[&str] = &["sm_90a", "sm_100a", "sm_103a", "sm_120a"];

/// `(targets that have it, minimum .version, its name in messages)`.
fn requirement(op: AccelOp) -> (&'static [&'static str], (u32, u32), &'static str) {
    if op.is_wgmma() {
        (WGMMA_TARGETS, (8, 0), "wgmma")
    } else if op.is_tcgen05() {
        (TCGEN05_TARGETS, (8, 6), "tcgen05")
    } else {
        (SETMAXNREG_TARGETS, (8, 0), "setmaxnreg")
    }
}

/// Whether `op` is selected here rather than in `accel.rs`.
pub(super) fn is_arch_specific(op: AccelOp) -> bool {
    op.is_wgmma() || op.is_tcgen05() || matches!(op, AccelOp::Setmaxnreg { .. })
}

/// The error for `op` on a target that lacks it, naming the targets that
/// have it, or `None` when the target has it.
pub fn gate(op: AccelOp, target: Target) -> Option<TargetLacks> {
    let (targets, _, feature) = requirement(op);
    (!targets.contains(&target.name())).then_some(TargetLacks::ArchSpecific {
        feature,
        targets,
        target,
    })
}

impl Isel<'_> {
    /// `[%r]` for a tensor-memory address.
    fn tmem_address(&mut self, v: Value) -> IselResult<Address> {
        Ok(Address {
            base: AddrBase::Reg(self.reg(v)?),
            offset: 0,
        })
    }

    /// The register of accumulator `result` of a `wgmma.mma_async` whose
    /// input is `input`. PTX reads and writes an accumulator in one
    /// register; in SSA the input and the result are distinct values.
    ///
    /// When the input dies at the MMA (its only use) and is defined in the
    /// MMA's own block (so every execution of the MMA sees a fresh
    /// definition, also inside a loop), the result simply takes the
    /// input's register. A constant input is put in a fresh register by a
    /// `mov`, which the result then takes. Otherwise the input is copied
    /// into a new register first. The copy matters: a `mov` that *reads*
    /// the result of an earlier, still running MMA makes ptxas wait for it
    /// (info C7517), so chained MMAs would no longer overlap.
    fn wgmma_accumulator(&mut self, input: Value, result: Value) -> IselResult<Reg> {
        let func = self.func;
        let dfg = &func.dfg;
        let (input, result) = (dfg.resolve_aliases(input), dfg.resolve_aliases(result));
        let block_of = |v: Value| match dfg.value_def(v) {
            ValueDef::Result(inst, _) => func.layout.inst_block(inst),
            ValueDef::Param(block, _) => Some(block),
            ValueDef::Alias(_) | ValueDef::Detached => None,
        };
        let here = block_of(result);
        let konst = matches!(
            self.def_inst(input),
            Some(InstData::Iconst { .. } | InstData::Fconst { .. })
        );
        let dies_here = self.use_count(input) == 1 && here.is_some() && block_of(input) == here;
        if !self.regs.contains_key(&result) && (konst || dies_here) {
            let reg = self.reg(input)?;
            self.regs.insert(result, reg);
            return Ok(reg);
        }
        let dst = self.def(result);
        let src = self.operand(input)?;
        self.emit(MInst::Unary {
            op: UnaryOp::Mov,
            ty: crate::minst::PtxType::F32,
            dst,
            src,
        });
        Ok(dst)
    }

    /// Selects a wgmma, setmaxnreg or tcgen05 operation.
    pub(super) fn accel_arch_specific(
        &mut self,
        op: AccelOp,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        if let Some(lacks) = gate(op, self.target) {
            return Err(lacks.into());
        }
        let (_, version, what) = requirement(op);
        self.features.require(what, version);
        let mut out: Vec<AccelArg> = Vec::new();
        let imm = |k: i64| AccelArg::Use(Operand::Imm(k));
        let name = match op {
            AccelOp::WgmmaFence => "wgmma.fence.sync.aligned".to_string(),
            AccelOp::WgmmaCommit => "wgmma.commit_group.sync.aligned".to_string(),
            AccelOp::WgmmaWait { n } => {
                out.push(imm(i64::from(n)));
                "wgmma.wait_group.sync.aligned".to_string()
            }
            AccelOp::WgmmaMma {
                n,
                ty,
                neg_a,
                neg_b,
                trans_a,
                trans_b,
            } => {
                let d = results
                    .iter()
                    .enumerate()
                    .map(|(k, &r)| self.wgmma_accumulator(args[3 + k], r))
                    .collect::<IselResult<Vec<_>>>()?;
                out.push(AccelArg::DefVec(d));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[0])?)));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[1])?)));
                out.push(AccelArg::Use(self.operand(args[2])?));
                let scale = |neg: bool| if neg { -1 } else { 1 };
                out.push(imm(scale(neg_a)));
                out.push(imm(scale(neg_b)));
                out.push(imm(i64::from(trans_a)));
                out.push(imm(i64::from(trans_b)));
                let e = if ty == MmaType::Bf16 { "bf16" } else { "f16" };
                format!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{e}.{e}")
            }
            AccelOp::Setmaxnreg { inc, regs } => {
                out.push(imm(i64::from(regs)));
                let dir = if inc { "inc" } else { "dec" };
                format!("setmaxnreg.{dir}.sync.aligned.u32")
            }
            AccelOp::Tcgen05Alloc => {
                let (_, slot) = self.accel_address(args[0], AddrSpace::Shared, false)?;
                out.push(AccelArg::Addr(slot));
                out.push(AccelArg::Use(self.operand(args[1])?));
                "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32".to_string()
            }
            AccelOp::Tcgen05Relinquish => {
                "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned".to_string()
            }
            AccelOp::Tcgen05Dealloc => {
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[0])?)));
                out.push(AccelArg::Use(self.operand(args[1])?));
                "tcgen05.dealloc.cta_group::1.sync.aligned.b32".to_string()
            }
            AccelOp::Tcgen05Mma { kind } => {
                out.push(AccelArg::Addr(self.tmem_address(args[0])?));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[1])?)));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[2])?)));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[3])?)));
                out.push(AccelArg::Use(self.operand(args[4])?));
                let k = match kind {
                    TcKind::F16 => "f16",
                    TcKind::Tf32 => "tf32",
                };
                format!("tcgen05.mma.cta_group::1.kind::{k}")
            }
            AccelOp::Tcgen05Commit => {
                let (space, bar) = self.accel_address(args[0], AddrSpace::Shared, true)?;
                out.push(AccelArg::Addr(bar));
                // A 32-bit shared::cta address is a valid shared::cluster
                // address of the executing CTA.
                let sp = if space == Space::Generic {
                    ""
                } else {
                    ".shared::cluster"
                };
                format!("tcgen05.commit.cta_group::1.mbarrier::arrive::one{sp}.b64")
            }
            AccelOp::Tcgen05Ld { num } => {
                let regs: Vec<_> = results.iter().map(|&r| self.def(r)).collect();
                out.push(AccelArg::DefVec(regs));
                out.push(AccelArg::Addr(self.tmem_address(args[0])?));
                format!("tcgen05.ld.sync.aligned.32x32b.x{num}.b32")
            }
            AccelOp::Tcgen05St { num } => {
                out.push(AccelArg::Addr(self.tmem_address(args[0])?));
                let regs = args[1..]
                    .iter()
                    .map(|&v| self.reg(v))
                    .collect::<IselResult<Vec<_>>>()?;
                out.push(AccelArg::UseVec(regs));
                format!("tcgen05.st.sync.aligned.32x32b.x{num}.b32")
            }
            AccelOp::Tcgen05Wait { st } => {
                let w = if st { "st" } else { "ld" };
                format!("tcgen05.wait::{w}.sync.aligned")
            }
            AccelOp::Tcgen05Cp { shape } => {
                out.push(AccelArg::Addr(self.tmem_address(args[0])?));
                out.push(AccelArg::Use(Operand::Reg(self.reg(args[1])?)));
                format!("tcgen05.cp.cta_group::1.{}", shape.name())
            }
            AccelOp::Tcgen05Fence { after } => {
                let w = if after { "after" } else { "before" };
                format!("tcgen05.fence::{w}_thread_sync")
            }
            other => return Err(Malformed::NotArchSpecific(other.opcode()).into()),
        };
        self.emit(MInst::Accel {
            op: name,
            args: out,
        });
        Ok(())
    }
}
