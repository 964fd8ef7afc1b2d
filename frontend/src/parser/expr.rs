//! Expressions, by precedence climbing over C's binary operator table.

use super::decl::unsupported_keyword;
use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::diag::Span;
use crate::token::{Keyword, Punct, TokenKind};

/// Binding power of a binary operator token (higher binds tighter), C order.
fn binary_op(p: Punct) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match p {
        Punct::OrOr => (LogOr, 1),
        Punct::AndAnd => (LogAnd, 2),
        Punct::Pipe => (BitOr, 3),
        Punct::Caret => (BitXor, 4),
        Punct::Amp => (BitAnd, 5),
        Punct::EqEq => (Eq, 6),
        Punct::Ne => (Ne, 6),
        Punct::Lt => (Lt, 7),
        Punct::Le => (Le, 7),
        Punct::Gt => (Gt, 7),
        Punct::Ge => (Ge, 7),
        Punct::Shl => (Shl, 8),
        Punct::Shr => (Shr, 8),
        Punct::Plus => (Add, 9),
        Punct::Minus => (Sub, 9),
        Punct::Star => (Mul, 10),
        Punct::Slash => (Div, 10),
        Punct::Percent => (Rem, 10),
        _ => return None,
    })
}

/// Assignment operator tokens and the arithmetic they imply.
fn assign_op(p: Punct) -> Option<Option<BinaryOp>> {
    use BinaryOp::*;
    Some(match p {
        Punct::Assign => None,
        Punct::PlusAssign => Some(Add),
        Punct::MinusAssign => Some(Sub),
        Punct::StarAssign => Some(Mul),
        Punct::SlashAssign => Some(Div),
        Punct::PercentAssign => Some(Rem),
        Punct::AndAssign => Some(BitAnd),
        Punct::OrAssign => Some(BitOr),
        Punct::XorAssign => Some(BitXor),
        Punct::ShlAssign => Some(Shl),
        Punct::ShrAssign => Some(Shr),
        _ => return None,
    })
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

impl Parser<'_> {
    fn punct(&self) -> Option<Punct> {
        match self.peek().kind {
            TokenKind::Punct(p) if !self.at_eof() => Some(p),
            _ => None,
        }
    }

    /// Full expression including the comma operator.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let mut lhs = self.assign_expr()?;
        let saved = self.depth;
        while self.eat_punct(Punct::Comma) {
            if let Err(e) = self.enter() {
                self.depth = saved;
                return Err(e);
            }
            let rhs = self.assign_expr();
            let rhs = match rhs {
                Ok(r) => r,
                Err(e) => {
                    self.depth = saved;
                    return Err(e);
                }
            };
            let span = lhs.span.to(rhs.span);
            lhs = mk(
                ExprKind::Binary {
                    op: BinaryOp::Comma,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
        self.depth = saved;
        Ok(lhs)
    }

    /// Assignment expression (right-associative).
    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.assign_inner();
        self.leave();
        r
    }

    fn assign_inner(&mut self) -> PResult<Expr> {
        let lhs = self.cond_expr()?;
        if let Some(op) = self.punct().and_then(assign_op) {
            self.bump();
            let rhs = self.assign_expr()?;
            let span = lhs.span.to(rhs.span);
            return Ok(mk(
                ExprKind::Assign {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            ));
        }
        Ok(lhs)
    }

    /// A conditional expression (no assignment or comma), as `case` needs.
    pub(super) fn cond_value(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.cond_expr();
        self.leave();
        r
    }

    /// `c ? a : b` (the middle is a full expression; the last an assignment
    /// expression, as C++ and most C compilers accept).
    fn cond_expr(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if !self.eat_punct(Punct::Question) {
            return Ok(cond);
        }
        let then = self.expr()?;
        self.expect_punct(Punct::Colon, "in conditional expression")?;
        let els = self.assign_expr()?;
        let span = cond.span.to(els.span);
        Ok(mk(
            ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                els: Box::new(els),
            },
            span,
        ))
    }

    /// Binary operators with binding power at least `min`; left-associative.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.cast_expr()?;
        let saved = self.depth;
        let result = loop {
            let Some((op, prec)) = self.punct().and_then(binary_op) else {
                break Ok(lhs);
            };
            if prec < min {
                break Ok(lhs);
            }
            self.bump();
            // Each combination deepens the tree, so count it as nesting.
            if let Err(e) = self.enter() {
                break Err(e);
            }
            let rhs = match self.binary(prec + 1) {
                Ok(r) => r,
                Err(e) => break Err(e),
            };
            let span = lhs.span.to(rhs.span);
            lhs = mk(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        };
        self.depth = saved;
        result
    }

    /// `(type) expr` or a unary expression.
    fn cast_expr(&mut self) -> PResult<Expr> {
        if self.is_punct(Punct::LParen) && self.starts_type(1) {
            self.enter()?;
            let r = self.cast_inner();
            self.leave();
            return r;
        }
        self.unary()
    }

    fn cast_inner(&mut self) -> PResult<Expr> {
        let open = self.bump().span;
        let ty = self.type_name()?;
        self.expect_punct(Punct::RParen, "to close the cast")?;
        let e = self.cast_expr()?;
        let span = open.to(e.span);
        Ok(mk(
            ExprKind::Cast {
                ty,
                expr: Box::new(e),
            },
            span,
        ))
    }

    fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.leave();
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let start = self.span();
        let op = match self.punct() {
            Some(Punct::Plus) => Some(UnaryOp::Plus),
            Some(Punct::Minus) => Some(UnaryOp::Neg),
            Some(Punct::Bang) => Some(UnaryOp::Not),
            Some(Punct::Tilde) => Some(UnaryOp::BitNot),
            Some(Punct::Star) => Some(UnaryOp::Deref),
            Some(Punct::Amp) => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let operand = self.cast_expr()?;
            let span = start.to(operand.span);
            return Ok(mk(
                ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                span,
            ));
        }
        if let Some(p @ (Punct::PlusPlus | Punct::MinusMinus)) = self.punct() {
            self.bump();
            let operand = self.unary()?;
            let span = start.to(operand.span);
            return Ok(mk(
                ExprKind::IncDec {
                    inc: p == Punct::PlusPlus,
                    prefix: true,
                    operand: Box::new(operand),
                },
                span,
            ));
        }
        if self.eat_kw(Keyword::Sizeof) {
            if self.is_punct(Punct::LParen) && self.starts_type(1) {
                self.bump();
                let ty = self.type_name()?;
                self.expect_punct(Punct::RParen, "to close `sizeof(`")?;
                return Ok(mk(ExprKind::SizeofType(ty), start.to(self.prev_span())));
            }
            let e = self.unary()?;
            let span = start.to(e.span);
            return Ok(mk(ExprKind::SizeofExpr(Box::new(e)), span));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let saved = self.depth;
        let result = loop {
            let Some(p) = self.punct() else { break Ok(e) };
            if !matches!(
                p,
                Punct::LBracket
                    | Punct::LParen
                    | Punct::Dot
                    | Punct::Arrow
                    | Punct::PlusPlus
                    | Punct::MinusMinus
            ) {
                break Ok(e);
            }
            if let Err(err) = self.enter() {
                break Err(err);
            }
            match self.postfix_op(e, p) {
                Ok(next) => e = next,
                Err(err) => break Err(err),
            }
        };
        self.depth = saved;
        result
    }

    fn postfix_op(&mut self, e: Expr, p: Punct) -> PResult<Expr> {
        self.bump();
        Ok(match p {
            Punct::LBracket => {
                let index = self.expr()?;
                let close = self.expect_punct(Punct::RBracket, "to close the index")?;
                let span = e.span.to(close);
                mk(
                    ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    },
                    span,
                )
            }
            Punct::LParen => {
                let mut args = Vec::new();
                if !self.is_punct(Punct::RParen) {
                    loop {
                        args.push(self.assign_expr()?);
                        if !self.eat_punct(Punct::Comma) {
                            break;
                        }
                    }
                }
                let close = self.expect_punct(Punct::RParen, "to close the argument list")?;
                let span = e.span.to(close);
                mk(
                    ExprKind::Call {
                        callee: Box::new(e),
                        args,
                    },
                    span,
                )
            }
            Punct::Dot | Punct::Arrow => {
                if self.peek().kind != TokenKind::Ident || self.at_eof() {
                    let msg = format!("expected a member name, found {}", self.found());
                    let sp = self.span();
                    return self.error(sp, msg);
                }
                let field = self.bump();
                let span = e.span.to(field.span);
                mk(
                    ExprKind::Member {
                        base: Box::new(e),
                        field: field.text,
                        field_span: field.span,
                        arrow: p == Punct::Arrow,
                    },
                    span,
                )
            }
            _ => {
                let span = e.span.to(self.prev_span());
                mk(
                    ExprKind::IncDec {
                        inc: p == Punct::PlusPlus,
                        prefix: false,
                        operand: Box::new(e),
                    },
                    span,
                )
            }
        })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = self.peek().clone();
        if self.at_eof() {
            let sp = self.prev_span();
            return self.error(sp, "expected an expression, found end of file");
        }
        let kind = match &tok.kind {
            TokenKind::Ident => ExprKind::Ident(tok.text.clone()),
            TokenKind::Int { value, ty } => ExprKind::IntLit {
                value: *value,
                ty: ty.clone(),
            },
            TokenKind::Float { value, ty } => ExprKind::FloatLit {
                value: *value,
                ty: ty.clone(),
            },
            TokenKind::Char(v) => ExprKind::CharLit(*v),
            TokenKind::Keyword(Keyword::True) => ExprKind::BoolLit(true),
            TokenKind::Keyword(Keyword::False) => ExprKind::BoolLit(false),
            TokenKind::Str(_) => {
                return self.error(tok.span, "string literals are not supported by kernelc yet")
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let inner = self.expr()?;
                let close = self.expect_punct(Punct::RParen, "to close the parenthesis")?;
                return Ok(mk(inner.kind, tok.span.to(close)));
            }
            TokenKind::Punct(Punct::LBracket) => {
                return self.error(tok.span, "lambdas are not supported by kernelc")
            }
            TokenKind::Punct(Punct::ColonColon) => {
                return self.error(
                    tok.span,
                    "`::` (C++ scope resolution) is not supported by kernelc",
                )
            }
            TokenKind::Keyword(k) => {
                if let Some(what) = unsupported_keyword(*k) {
                    return self.error(tok.span, format!("{what} is not supported by kernelc yet"));
                }
                if self.starts_type(0) && self.is_punct_at(1, Punct::LParen) {
                    return self.error(
                        tok.span,
                        format!(
                            "functional-style casts are not supported by kernelc; write `({})expr`",
                            tok.text
                        ),
                    );
                }
                return self.error(
                    tok.span,
                    format!("expected an expression, found `{}`", tok.text),
                );
            }
            TokenKind::Punct(_) => {
                return self.error(
                    tok.span,
                    format!("expected an expression, found `{}`", tok.text),
                )
            }
        };
        self.bump();
        Ok(mk(kind, tok.span))
    }
}
