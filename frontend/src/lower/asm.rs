//! Lowering inline PTX: the operands' values, one `inline_asm`
//! instruction, and a store of each result to its output's place.

use super::FunctionLowerer;
use crate::typed::AsmStmt;
use midend::builder::InstBuilder;
use midend::ir::{AddrSpace, Opcode, Type};

impl FunctionLowerer<'_, '_> {
    pub(super) fn asm(&mut self, a: &AsmStmt) {
        let types = a.asm.operand_types();
        let mut args = Vec::with_capacity(a.operands.len());
        for (e, &ty) in a.operands.iter().zip(&types) {
            let v = self.expr(e);
            args.push(self.coerce(v, ty));
        }
        let results = self.b.inline_asm(a.asm.clone(), args);
        for ((place, ty), v) in a.outputs.iter().zip(results) {
            // An `l` output of pointer type: the register holds a generic
            // address, as a pointer's value is.
            let v = if ty.is_pointer() {
                self.b
                    .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Generic), v)
            } else {
                v
            };
            let place = self.place(place);
            self.write(&place, v, ty);
        }
    }
}
