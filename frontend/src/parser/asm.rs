//! GCC's extended `asm` statement as CUDA writes inline PTX:
//! `asm [volatile] ("template" : outputs : inputs : clobbers);` (also
//! `__asm__` and `__volatile__`). The parser keeps the text and the
//! operands; sema checks the constraints (`sema/asm.rs`).

use super::{PResult, Parser};
use crate::ast::{AsmOperand, AsmStmt, StmtKind};
use crate::codes::Code;
use crate::diag::Span;
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    /// The statement after its `asm` keyword (which the caller saw).
    pub(super) fn asm_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let volatile = self.eat_kw(Keyword::Volatile)
            || (self.peek().kind == TokenKind::Ident
                && self.peek().text == "__volatile__"
                && self.bump().kind == TokenKind::Ident);
        self.expect_punct(Punct::LParen, "after `asm`")?;
        let (template, template_span) = self.asm_string("the asm template")?;
        let mut asm = AsmStmt {
            volatile,
            template,
            template_span,
            outputs: Vec::new(),
            inputs: Vec::new(),
            clobbers: Vec::new(),
        };
        // `::` is one token: it closes two sections at once.
        let mut section = 0;
        while !self.eat_punct(Punct::RParen) {
            section += if self.eat_punct(Punct::Colon) {
                1
            } else if self.eat_punct(Punct::ColonColon) {
                2
            } else {
                let msg = format!("expected `:` or `)` in `asm`, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            };
            if section > 3 {
                let sp = self.prev_span();
                return self.error(sp, Code::E0003, "`asm` has at most three `:` sections");
            }
            self.asm_section(section, &mut asm)?;
        }
        self.expect_punct(Punct::Semi, "after `asm` statement")?;
        Ok(StmtKind::Asm(Box::new(asm)))
    }

    /// The comma-separated operands (or clobbers) of one section, if the
    /// section is not empty.
    fn asm_section(&mut self, section: u32, asm: &mut AsmStmt) -> PResult<()> {
        if !matches!(self.peek().kind, TokenKind::Str(_)) {
            return Ok(());
        }
        loop {
            let (text, span) = self.asm_string("a constraint string")?;
            match section {
                3 => asm.clobbers.push((text, span)),
                _ => {
                    self.expect_punct(Punct::LParen, "before an `asm` operand")?;
                    let expr = self.assign_expr()?;
                    self.expect_punct(Punct::RParen, "after an `asm` operand")?;
                    let op = AsmOperand {
                        constraint: text,
                        constraint_span: span,
                        expr,
                    };
                    if section == 1 {
                        asm.outputs.push(op);
                    } else {
                        asm.inputs.push(op);
                    }
                }
            }
            if !self.eat_punct(Punct::Comma) {
                return Ok(());
            }
        }
    }

    /// One or more adjacent string literals, joined.
    fn asm_string(&mut self, what: &str) -> PResult<(String, Span)> {
        let start = self.span();
        let mut text = String::new();
        while let TokenKind::Str(s) = &self.peek().kind {
            text.push_str(s);
            self.bump();
        }
        if text.is_empty() && start == self.span() {
            let msg = format!("expected {what}, found {}", self.found());
            return self.error(start, Code::E0003, msg);
        }
        Ok((text, start.to(self.prev_span())))
    }
}
