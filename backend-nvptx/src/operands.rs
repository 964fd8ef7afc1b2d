//! Which registers a machine instruction reads and writes.
//!
//! Register allocation ([`crate::regalloc`]) needs every register operand of
//! every [`MInst`], tagged as a use or a def, and must later rewrite exactly
//! those operands in exactly the same order. One visitor serves both: it
//! walks the uses first, then the def, so the k-th register it reports is
//! always the k-th operand regalloc2 was told about.

use crate::minst::{AccelArg, AddrBase, Address, AsmOperand, MInst, Operand, Reg};

/// Whether an instruction reads or writes a register.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum RegUse {
    Use,
    Def,
}

fn operand(op: &mut Operand, f: &mut dyn FnMut(&mut Reg, RegUse)) {
    if let Operand::Reg(r) = op {
        f(r, RegUse::Use);
    }
}

fn address(addr: &mut Address, f: &mut dyn FnMut(&mut Reg, RegUse)) {
    if let AddrBase::Reg(r) = &mut addr.base {
        f(r, RegUse::Use);
    }
}

impl MInst {
    /// Calls `f` on every register operand: all uses in operand order, then
    /// the def (PTX instructions have at most one).
    // Long: one short arm per machine instruction, the one table of which
    // operands each reads and writes.
    pub fn visit_regs_mut(&mut self, f: &mut dyn FnMut(&mut Reg, RegUse)) {
        let def: Option<&mut Reg> = match self {
            MInst::Unary { dst, src, .. }
            | MInst::Cvt { dst, src, .. }
            | MInst::Cvta { dst, src, .. }
            | MInst::UnaryNamed { dst, src, .. } => {
                operand(src, f);
                Some(dst)
            }
            MInst::Binary { dst, a, b, .. } | MInst::Setp { dst, a, b, .. } => {
                operand(a, f);
                operand(b, f);
                Some(dst)
            }
            MInst::Fma { dst, a, b, c, .. } => {
                operand(a, f);
                operand(b, f);
                operand(c, f);
                Some(dst)
            }
            MInst::Selp {
                dst, a, b, pred, ..
            } => {
                operand(a, f);
                operand(b, f);
                f(pred, RegUse::Use);
                Some(dst)
            }
            MInst::Ld { dst, addr, .. } => {
                address(addr, f);
                Some(dst)
            }
            MInst::St { addr, src, .. } => {
                address(addr, f);
                operand(src, f);
                None
            }
            MInst::LdVec { dsts, addr, .. } => {
                address(addr, f);
                dsts.iter_mut().for_each(|r| f(r, RegUse::Def));
                None
            }
            MInst::StVec { addr, srcs, .. } => {
                address(addr, f);
                srcs.iter_mut().for_each(|r| f(r, RegUse::Use));
                None
            }
            MInst::Bra { guard, .. } => {
                if let Some((p, _)) = guard {
                    f(p, RegUse::Use);
                }
                None
            }
            MInst::Atom {
                dst, addr, b, c, ..
            } => {
                address(addr, f);
                operand(b, f);
                if let Some(c) = c {
                    operand(c, f);
                }
                dst.as_mut()
            }
            MInst::GridArrive { dst, addr, b } => {
                address(addr, f);
                operand(b, f);
                Some(dst)
            }
            MInst::GridPoll { dst, addr } => {
                address(addr, f);
                Some(dst)
            }
            MInst::AtomVec {
                dsts, addr, srcs, ..
            } => {
                address(addr, f);
                srcs.iter_mut().for_each(|r| f(r, RegUse::Use));
                if let Some(ds) = dsts {
                    ds.iter_mut().for_each(|r| f(r, RegUse::Def));
                }
                None
            }
            MInst::Shfl {
                dst, a, b, c, mask, ..
            } => {
                operand(a, f);
                operand(b, f);
                operand(c, f);
                operand(mask, f);
                Some(dst)
            }
            MInst::Vote {
                dst, pred, mask, ..
            } => {
                operand(pred, f);
                operand(mask, f);
                Some(dst)
            }
            MInst::Redux { dst, src, mask, .. } | MInst::Match { dst, src, mask, .. } => {
                operand(src, f);
                operand(mask, f);
                Some(dst)
            }
            MInst::BarRed { dst, pred, .. } => {
                operand(pred, f);
                Some(dst)
            }
            MInst::BarWarpSync { mask } => {
                operand(mask, f);
                None
            }
            MInst::Nanosleep { ns } => {
                operand(ns, f);
                None
            }
            MInst::Isspacep { dst, src, .. } => {
                f(src, RegUse::Use);
                Some(dst)
            }
            MInst::Activemask { dst } => Some(dst),
            MInst::Accel { args, .. } => {
                for a in args.iter_mut() {
                    match a {
                        AccelArg::Use(o) => operand(o, f),
                        AccelArg::UseVec(rs) => rs.iter_mut().for_each(|r| f(r, RegUse::Use)),
                        AccelArg::Addr(addr) => address(addr, f),
                        AccelArg::TensorAddr { map, coords } => {
                            f(map, RegUse::Use);
                            coords.iter_mut().for_each(|r| f(r, RegUse::Use));
                        }
                        AccelArg::Def(_) | AccelArg::DefVec(_) => {}
                    }
                }
                // Several defs: report them here, after every use.
                for a in args.iter_mut() {
                    match a {
                        AccelArg::Def(r) => f(r, RegUse::Def),
                        AccelArg::DefVec(rs) => rs.iter_mut().for_each(|r| f(r, RegUse::Def)),
                        _ => {}
                    }
                }
                None
            }
            MInst::InlineAsm { operands, .. } => {
                for o in operands.iter_mut() {
                    if let AsmOperand::Use(r) | AsmOperand::Tied(r) = o {
                        f(r, RegUse::Use);
                    }
                }
                for o in operands.iter_mut() {
                    if let AsmOperand::Def(r) | AsmOperand::Tied(r) = o {
                        f(r, RegUse::Def);
                    }
                }
                None
            }
            MInst::BarSync
            | MInst::Trap
            | MInst::Ret
            | MInst::Label(_)
            | MInst::Loc(_)
            | MInst::NoUnroll
            | MInst::ScopeOpen
            | MInst::ScopeClose
            | MInst::ParamDecl { .. }
            | MInst::ParamArray { .. }
            | MInst::Call { .. }
            | MInst::CallPrototype { .. }
            | MInst::Membar { .. } => None,
            MInst::CallIndirect { callee, .. } => {
                f(callee, RegUse::Use);
                None
            }
        };
        if let Some(d) = def {
            f(d, RegUse::Def);
        }
    }

    /// The register operands, in [`MInst::visit_regs_mut`] order.
    pub fn regs(&self) -> Vec<(Reg, RegUse)> {
        let mut out = Vec::new();
        self.clone().visit_regs_mut(&mut |r, u| out.push((*r, u)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::minst::{BinaryOp, PtxType, RegClass};

    #[test]
    fn uses_come_before_the_def() {
        let r = |n| Reg {
            class: RegClass::B32,
            num: n,
        };
        let add = MInst::Binary {
            op: BinaryOp::Add,
            ty: PtxType::S32,
            dst: r(3),
            a: r(1).into(),
            b: Operand::Imm(4),
        };
        assert_eq!(add.regs(), vec![(r(1), RegUse::Use), (r(3), RegUse::Def)]);
    }
}
