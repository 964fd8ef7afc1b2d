//! Inline PTX: the template with the operands' registers, as nvcc writes
//! it. A `+` output's register gets the old value first (a `mov`), then
//! the template reads and writes it.

use super::{class_of, Isel, IselResult};
use crate::minst::{AsmOperand, MInst};
use midend::ir::{AsmInput, InlineAsm, Value};

impl Isel<'_> {
    pub(super) fn inline_asm(
        &mut self,
        asm: &InlineAsm,
        args: &[Value],
        results: &[Value],
    ) -> IselResult<()> {
        let mut args = args.iter();
        let mut operands = Vec::with_capacity(asm.outputs.len() + asm.inputs.len());
        for (out, &r) in asm.outputs.iter().zip(results) {
            let dst = self.def(r);
            if !out.tied {
                operands.push(AsmOperand::Def(dst));
                continue;
            }
            if let Some(&old) = args.next() {
                let src = self.operand(old)?;
                self.mov(dst, src);
            }
            operands.push(AsmOperand::Tied(dst));
        }
        for input in &asm.inputs {
            match input {
                AsmInput::Imm(n) => operands.push(AsmOperand::Imm(*n)),
                AsmInput::Reg(reg) => {
                    let Some(&v) = args.next() else { break };
                    debug_assert_eq!(class_of(reg.ty()), class_of(self.ty(v)));
                    operands.push(AsmOperand::Use(self.reg(v)?));
                }
            }
        }
        self.emit(MInst::InlineAsm {
            template: asm.template.clone(),
            operands,
        });
        Ok(())
    }
}
