//! Checking inline PTX (`asm`): each constraint names a register class
//! (`h`, `r`, `l`, `f`, `d`) or an immediate (`n`), outputs (`=r`, `+r`)
//! are writable lvalues of that class's size, inputs convert to it, and
//! every `%N` of the template names an operand. Errors are E0026.

use super::convert::convert;
use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{AsmStmt, Expr, StmtKind};
use crate::types::CType;
use midend::ir::{asm_substitute, AsmInput, AsmOutput, AsmReg, InlineAsm};

/// The C type whose values a register class holds (what an input
/// converts to and an output's result is read as).
fn reg_ctype(reg: AsmReg) -> CType {
    match reg {
        AsmReg::H => CType::Int {
            bits: 16,
            signed: false,
        },
        AsmReg::R => CType::UINT,
        AsmReg::L => CType::ULONG,
        AsmReg::F => CType::FLOAT,
        AsmReg::D => CType::DOUBLE,
    }
}

/// Whether an output lvalue of type `ty` holds a register of `reg`'s
/// class as it is: an integer of its width (or a pointer, for `l`), a
/// float of its width.
fn output_fits(reg: AsmReg, ty: &CType) -> bool {
    matches!(
        (reg, ty),
        (AsmReg::H, CType::Int { bits: 16, .. })
            | (AsmReg::R, CType::Int { bits: 32, .. })
            | (
                AsmReg::L,
                CType::Int { bits: 64, .. } | CType::Pointer { .. }
            )
            | (AsmReg::F, CType::Float { bits: 32 })
            | (AsmReg::D, CType::Float { bits: 64 })
    )
}

fn one_reg(letters: &str) -> Option<AsmReg> {
    let mut cs = letters.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) => AsmReg::from_letter(c),
        _ => None,
    }
}

impl Checker {
    pub(super) fn asm_stmt(&mut self, a: &ast::AsmStmt) -> StmtKind {
        match self.asm_checked(a) {
            Some(s) => StmtKind::Asm(Box::new(s)),
            None => StmtKind::Empty,
        }
    }

    fn asm_checked(&mut self, a: &ast::AsmStmt) -> Option<AsmStmt> {
        let mut ok = true;
        let mut outputs = Vec::new();
        let mut places = Vec::new();
        let mut tied = Vec::new();
        for op in &a.outputs {
            match self.asm_output(op) {
                Some((out, place, read)) => {
                    outputs.push(out);
                    places.push(place);
                    tied.extend(read);
                }
                None => ok = false,
            }
        }
        let mut inputs = Vec::new();
        let mut operands = tied;
        for op in &a.inputs {
            match self.asm_input(op) {
                Some((input, value)) => {
                    inputs.push(input);
                    operands.extend(value);
                }
                None => ok = false,
            }
        }
        let count = outputs.len() + inputs.len();
        if ok {
            if let Err(e) = asm_substitute(&a.template, count, |_| String::new()) {
                self.asm_error(a.template_span, format!("in the `asm` template: {e}"));
                ok = false;
            }
        }
        let memory = a.clobbers.iter().any(|(c, _)| c == "memory");
        let asm = InlineAsm {
            template: a.template.clone(),
            outputs,
            inputs,
            volatile: a.volatile,
            memory,
        };
        ok.then_some(AsmStmt {
            asm,
            outputs: places,
            operands,
        })
    }

    fn asm_error(&mut self, span: Span, msg: impl Into<String>) {
        self.error(span, Code::E0026, msg);
    }

    /// An output: its constraint, its place and type, and for `+` the
    /// read of its old value (of the register's C type).
    #[allow(clippy::type_complexity)]
    fn asm_output(
        &mut self,
        op: &ast::AsmOperand,
    ) -> Option<(AsmOutput, (crate::typed::Place, CType), Option<Expr>)> {
        let c = op.constraint.as_str();
        let (tied, rest) = match c.chars().next() {
            Some('=') => (false, &c[1..]),
            Some('+') => (true, &c[1..]),
            _ => {
                let msg = format!("an `asm` output's constraint starts with `=` or `+`, not `{c}`");
                self.asm_error(op.constraint_span, msg);
                return None;
            }
        };
        let Some(reg) = one_reg(rest.trim_start_matches('&')) else {
            let msg = format!(
                "unknown `asm` output constraint `{c}` (kernelc knows `h`, `r`, `l`, `f` and `d`)"
            );
            self.asm_error(op.constraint_span, msg);
            return None;
        };
        let lvalue = self.expr_nodecay(&op.expr)?;
        let ty = lvalue.ty.clone();
        if !output_fits(reg, &ty) {
            let msg = format!(
                "an `asm` output of constraint `{c}` needs an lvalue of the register's size, found `{ty}`"
            );
            self.asm_error(op.expr.span, msg);
            return None;
        }
        let read = tied.then(|| convert(lvalue.clone(), &reg_ctype(reg)));
        let place = self.writable_place(lvalue, op.expr.span)?;
        Some((AsmOutput { reg, tied }, (place, ty), read))
    }

    /// An input: its constraint, and its value converted to the
    /// register's C type (none for an `n` immediate).
    fn asm_input(&mut self, op: &ast::AsmOperand) -> Option<(AsmInput, Option<Expr>)> {
        let c = op.constraint.as_str();
        let e = self.expr(&op.expr)?;
        if c == "n" {
            let Some(v) = self.const_int(&e) else {
                self.asm_error(
                    op.expr.span,
                    "an `asm` `n` operand must be an integer constant",
                );
                return None;
            };
            return match i64::try_from(v) {
                Ok(v) => Some((AsmInput::Imm(v), None)),
                Err(_) => {
                    self.asm_error(op.expr.span, "the `n` operand does not fit in 64 bits");
                    None
                }
            };
        }
        let Some(reg) = one_reg(c) else {
            let msg = format!(
                "unknown `asm` input constraint `{c}` (kernelc knows `h`, `r`, `l`, `f`, `d` and `n`)"
            );
            self.asm_error(op.constraint_span, msg);
            return None;
        };
        let to = reg_ctype(reg);
        let value = if e.ty.is_pointer() && reg == AsmReg::L {
            convert(e, &to)
        } else if e.ty.is_arithmetic() {
            self.assign_convert(e, &to, "`asm` operand", op.expr.span)?
        } else {
            let msg = format!(
                "an `asm` input of constraint `{c}` needs an arithmetic value, found `{}`",
                e.ty
            );
            self.asm_error(op.expr.span, msg);
            return None;
        };
        Some((AsmInput::Reg(reg), Some(value)))
    }
}
