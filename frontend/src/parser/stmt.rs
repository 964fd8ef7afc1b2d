//! Statements and blocks.

use super::decl::unsupported_keyword;
use super::{PResult, Parser, Recorded};
use crate::ast::{Block, Stmt, StmtKind};
use crate::diag::Diagnostic;
use crate::token::{Keyword, Punct, TokenKind};

impl Parser<'_> {
    /// `{ stmt* }`; statement errors are recovered from inside the block.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let open = self.expect_punct(Punct::LBrace, "to start a block")?;
        self.enter()?;
        let mut stmts = Vec::new();
        loop {
            if self.at_eof() {
                self.leave();
                self.diags.push(
                    Diagnostic::error(self.prev_span(), "expected `}` at end of input")
                        .with_label(open, "to match this `{`"),
                );
                return Err(Recorded);
            }
            if self.eat_punct(Punct::RBrace) {
                break;
            }
            let before = self.pos;
            let r = self.statement();
            for e in self.pending_enums.drain(..) {
                let span = e.span;
                stmts.push(Stmt {
                    kind: StmtKind::Enum(e),
                    span,
                });
            }
            match r {
                Ok(s) => stmts.push(s),
                Err(Recorded) => {
                    self.sync_stmt();
                    if self.at_eof() {
                        // Whatever went wrong already has a diagnostic; do not
                        // add one "missing `}`" per enclosing block.
                        self.leave();
                        return Err(Recorded);
                    }
                    if self.pos == before {
                        self.pos += 1;
                    }
                }
            }
        }
        self.leave();
        Ok(Block {
            stmts,
            span: open.to(self.prev_span()),
        })
    }

    /// One statement (declarations included, as in C99 blocks).
    pub(super) fn statement(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.statement_inner();
        self.leave();
        r
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let tok = self.peek().clone();
        let kind = match &tok.kind {
            TokenKind::Punct(Punct::LBrace) => StmtKind::Block(self.block()?),
            TokenKind::Punct(Punct::Semi) => {
                self.bump();
                StmtKind::Empty
            }
            TokenKind::Keyword(Keyword::If) => {
                self.bump();
                let cond = self.paren_cond("`if`")?;
                let then = Box::new(self.statement()?);
                let els = if self.eat_kw(Keyword::Else) {
                    Some(Box::new(self.statement()?))
                } else {
                    None
                };
                StmtKind::If { cond, then, els }
            }
            TokenKind::Keyword(Keyword::While) => {
                self.bump();
                let cond = self.paren_cond("`while`")?;
                let body = Box::new(self.statement()?);
                StmtKind::While { cond, body }
            }
            TokenKind::Keyword(Keyword::Do) => {
                self.bump();
                let body = Box::new(self.statement()?);
                if !self.eat_kw(Keyword::While) {
                    let msg = format!("expected `while` after `do` body, found {}", self.found());
                    let sp = self.span();
                    return self.error(sp, msg);
                }
                let cond = self.paren_cond("`do`/`while`")?;
                self.expect_punct(Punct::Semi, "after `do`/`while` statement")?;
                StmtKind::DoWhile { body, cond }
            }
            TokenKind::Keyword(Keyword::For) => self.for_stmt()?,
            TokenKind::Keyword(Keyword::Break) => {
                self.bump();
                self.expect_punct(Punct::Semi, "after `break`")?;
                StmtKind::Break
            }
            TokenKind::Keyword(Keyword::Continue) => {
                self.bump();
                self.expect_punct(Punct::Semi, "after `continue`")?;
                StmtKind::Continue
            }
            TokenKind::Keyword(Keyword::Return) => {
                self.bump();
                let value = if self.is_punct(Punct::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(Punct::Semi, "after `return` statement")?;
                StmtKind::Return(value)
            }
            TokenKind::Keyword(
                Keyword::Switch | Keyword::Case | Keyword::Default | Keyword::PragmaUnroll,
            ) => self.switch_or_pragma()?,
            TokenKind::Keyword(k) if unsupported_keyword(*k).is_some() && !self.starts_decl(0) => {
                let what = unsupported_keyword(*k).unwrap_or("this construct");
                return self.error(tok.span, format!("{what} is not supported by kernelc yet"));
            }
            TokenKind::Ident
                if !self.starts_type(0)
                    && self.peek_at(1).kind == TokenKind::Ident
                    && !self.at_eof_at(1) =>
            {
                return self.error(tok.span, format!("unknown type name `{}`", tok.text));
            }
            TokenKind::Ident if self.is_punct_at(1, Punct::Colon) => {
                return self.error(
                    tok.span,
                    "labels and `goto` are not supported by kernelc yet",
                );
            }
            _ if self.starts_decl(0) => StmtKind::Decl(self.local_decl()?),
            _ => {
                let e = self.expr()?;
                self.expect_punct(Punct::Semi, "after expression")?;
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `switch`, its labels and `#pragma unroll`: kept out of
    /// `statement_inner` so that the frame recursing per nesting level stays
    /// small (deeply nested input must hit `MAX_DEPTH`, not the stack end).
    #[inline(never)]
    fn switch_or_pragma(&mut self) -> PResult<StmtKind> {
        let tok = self.peek().clone();
        Ok(match &tok.kind {
            TokenKind::Keyword(Keyword::Switch) => {
                self.bump();
                let cond = self.paren_cond("`switch`")?;
                let body = Box::new(self.statement()?);
                StmtKind::Switch { cond, body }
            }
            TokenKind::Keyword(Keyword::Case) => {
                self.bump();
                let value = self.cond_value()?;
                self.expect_punct(Punct::Colon, "after `case` value")?;
                StmtKind::Case(value)
            }
            TokenKind::Keyword(Keyword::Default) => {
                self.bump();
                self.expect_punct(Punct::Colon, "after `default`")?;
                StmtKind::Default
            }
            TokenKind::Keyword(Keyword::PragmaUnroll) => {
                self.bump();
                let count = if self.is_kw(Keyword::PragmaEnd) {
                    None
                } else {
                    Some(self.expr()?)
                };
                if !self.eat_kw(Keyword::PragmaEnd) {
                    let msg = format!(
                        "expected the end of `#pragma unroll`, found {}",
                        self.found()
                    );
                    let sp = self.span();
                    return self.error(sp, msg);
                }
                let stmt = Box::new(self.statement()?);
                StmtKind::Unroll { count, stmt }
            }
            _ => {
                let sp = self.span();
                return self.error(sp, "expected a statement");
            }
        })
    }

    /// `( expr )` after `if`/`while`.
    fn paren_cond(&mut self, what: &str) -> PResult<crate::ast::Expr> {
        self.expect_punct(Punct::LParen, &format!("after {what}"))?;
        let e = self.expr()?;
        self.expect_punct(Punct::RParen, &format!("to close the {what} condition"))?;
        Ok(e)
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `for`")?;
        let init = if self.is_punct(Punct::Semi) {
            self.bump();
            None
        } else if self.starts_decl(0) {
            let start = self.span();
            let decls = self.local_decl()?;
            Some(Box::new(Stmt {
                kind: StmtKind::Decl(decls),
                span: start.to(self.prev_span()),
            }))
        } else {
            let e = self.expr()?;
            let span = e.span;
            self.expect_punct(Punct::Semi, "after `for` initializer")?;
            Some(Box::new(Stmt {
                kind: StmtKind::Expr(e),
                span,
            }))
        };
        let cond = if self.is_punct(Punct::Semi) {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_punct(Punct::Semi, "after `for` condition")?;
        let step = if self.is_punct(Punct::RParen) {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_punct(Punct::RParen, "to close the `for` header")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }
}
