//! `decltype(operand)` written where a type goes (issue 26): a local's,
//! a parameter's or a return type, a template argument, and the scope of
//! a qualified name (`decltype(v)::value_type`, `decltype(v)::N`).
//!
//! The parser reads types as it goes, so it gives the type itself where
//! it knows it without typing an expression: the entity a name or a
//! member access names has its declared type, as written (a reference
//! stays a reference), and the same operand in parentheses is an lvalue,
//! so a reference to that type. Any other operand (`decltype(a + b)`)
//! only the checker types; the parser does not type expressions a second
//! way, so such a `decltype` may only be a local's type, which is left
//! open as `auto`'s is ([`crate::ast::VarDecl::decltype`]) and written in
//! by the checker (`sema/decltype.rs`).

use super::names::Kind;
use super::typedefs::Typedef;
use super::{PResult, Parser, Recorded};
use crate::ast::{DecltypeOf, Expr, ExprKind};
use crate::codes::Code;
use crate::diag::Span;
use crate::token::{Punct, TokenKind};
use crate::types::CType;

/// The type a `decltype` names.
pub(super) enum Decltype {
    Known(Typedef),
    /// For the checker to type: a local's type (written at the span).
    Checked(DecltypeOf, Span),
}

impl Parser<'_> {
    /// Whether `decltype(` `n` tokens ahead starts a type rather than an
    /// expression: it does unless a qualified name follows that is no
    /// declaration's type (`decltype(v)::N + 1`), which only a declarator
    /// after it (a name, or `*`/`&` and a name) says.
    pub(super) fn decltype_starts_type(&self, n: usize) -> bool {
        let close = super::classes::skip_balanced(self.toks, self.pos + n + 1);
        let mut at = close - self.pos;
        if !self.is_punct_at(at, Punct::ColonColon) {
            return true;
        }
        while self.is_punct_at(at, Punct::ColonColon) && !self.at_eof_at(at + 1) {
            at += 2;
        }
        let ident = |at| !self.at_eof_at(at) && self.peek_at(at).kind == TokenKind::Ident;
        let pointer = [Punct::Star, Punct::Amp, Punct::AndAnd]
            .iter()
            .any(|&p| self.is_punct_at(at, p));
        ident(at) || pointer && ident(at + 1)
    }

    /// `decltype(operand)` at the keyword as a type, with a qualified name
    /// after it (`decltype(v)::value_type`).
    pub(super) fn decltype_type(&mut self) -> PResult<Decltype> {
        let (of, span) = self.decltype_operand()?;
        if self.is_punct(Punct::ColonColon) {
            let (key, at) = self.decltype_member(&of, span, Kind::Type)?;
            return match self.type_named_spelled(&key) {
                Some(t) => Ok(Decltype::Known(t)),
                None => self.error(at, Code::E0001, format!("`{key}` is not a type")),
            };
        }
        if let Some(t) = self.decltype_known(&of) {
            return Ok(Decltype::Known(t));
        }
        if self.names.block_depth == 0 {
            return self.error(
                of.operand.span,
                Code::E0002,
                "`decltype` of an operand other than a variable whose type is written or a member of one is supported by kernelc only as a local variable's type",
            );
        }
        Ok(Decltype::Checked(of, span))
    }

    /// `decltype(v)::N` in an expression: the member's key, as the name
    /// `V::N` of `v`'s class `V` would be.
    pub(super) fn decltype_value(&mut self) -> PResult<Expr> {
        let (of, span) = self.decltype_operand()?;
        if !self.is_punct(Punct::ColonColon) {
            return self.error(
                span,
                Code::E0002,
                "`decltype(...)` in an expression is supported by kernelc only before `::` (`decltype(v)::N`)",
            );
        }
        let (key, span) = self.decltype_member(&of, span, Kind::Value)?;
        Ok(Expr {
            kind: ExprKind::Ident(key),
            span,
        })
    }

    /// `decltype(operand)` at the keyword: the operand, whether it names
    /// an entity (no parentheses around a name or member access), and
    /// the span through `)`.
    fn decltype_operand(&mut self) -> PResult<(DecltypeOf, Span)> {
        let start = self.bump().span;
        self.expect_punct(Punct::LParen, "after `decltype`")?;
        let open = self.pos;
        let operand = self.expr()?;
        let parenthesized = self.toks[open].kind == TokenKind::Punct(Punct::LParen)
            && super::classes::skip_balanced(self.toks, open) == self.pos;
        let close = self.expect_punct(Punct::RParen, "to close `decltype(`")?;
        let names_entity =
            !parenthesized && matches!(operand.kind, ExprKind::Ident(_) | ExprKind::Member { .. });
        let of = DecltypeOf {
            operand,
            names_entity,
        };
        Ok((of, start.to(close)))
    }

    /// The type `decltype` gives where the parser knows it: the declared
    /// type of the entity named, or in parentheses the lvalue reference
    /// to it (`decltype((x))` is `T &`, also of an rvalue reference `x`).
    fn decltype_known(&self, of: &DecltypeOf) -> Option<Typedef> {
        let (ty, is_const, spelling) = self.decltype_of(&of.operand)?;
        if of.names_entity {
            return Some((ty, is_const, spelling));
        }
        let lvalue_ref = match ty {
            CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                ..
            } => CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                rvalue: false,
            },
            ty => CType::Ref {
                referent: Box::new(ty),
                referent_const: is_const,
                referent_volatile: false,
                rvalue: false,
            },
        };
        Some((lvalue_ref, false, spelling))
    }

    /// `:: name ...` after `decltype(...)` (at `span`): the key of the
    /// `kind` member of the class the operand's type is, and the span of
    /// the whole name.
    fn decltype_member(
        &mut self,
        of: &DecltypeOf,
        span: Span,
        kind: Kind,
    ) -> PResult<(String, Span)> {
        let class = self
            .decltype_known(of)
            .and_then(|(ty, ..)| match ty {
                CType::Ref { referent, .. } => referent.struct_def().map(|d| d.name.clone()),
                ty => ty.struct_def().map(|d| d.name.clone()),
            })
            .filter(|name| !name.is_empty());
        let Some(class) = class else {
            return self.error(
                span,
                Code::E0002,
                "`decltype(...)::` is supported by kernelc of a variable whose type is a class, written, or a member of one",
            );
        };
        let mut parts = Vec::new();
        while self.eat_punct(Punct::ColonColon) {
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                let msg = format!("expected a name after `::`, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            let tok = self.bump();
            parts.push((tok.text.to_string(), tok.span));
        }
        let whole = span.to(self.prev_span());
        match self.resolve_from(Some(class), &parts, whole, kind) {
            Ok(key) => Ok((key, whole)),
            Err(d) => {
                self.diags.push(d);
                Err(Recorded)
            }
        }
    }

    /// The type `decltype(e)` names, where the parser knows it without
    /// typing `e`: a variable whose type was written (a local, a
    /// parameter, or one at namespace scope; not in a template's pattern,
    /// where it depends on the parameters), or a member of one
    /// (`decltype(v.x)`). nvcc names such a template argument by the
    /// type, as here.
    pub(super) fn decltype_of(&self, e: &Expr) -> Option<Typedef> {
        if self.in_pattern {
            return None;
        }
        match &e.kind {
            ExprKind::Ident(name) => self.names.variable_type(name).cloned(),
            ExprKind::Member {
                base,
                field,
                arrow,
                template_args,
                ..
            } if template_args.is_empty() => {
                let (ty, _, _) = self.decltype_of(base)?;
                // A member of a reference is the referent's member.
                let ty = match ty {
                    CType::Ref { referent, .. } => *referent,
                    ty => ty,
                };
                let def = match (arrow, ty) {
                    (false, CType::Struct(def)) => def,
                    (true, CType::Pointer { pointee, .. }) => match *pointee {
                        CType::Struct(def) => def,
                        _ => return None,
                    },
                    _ => return None,
                };
                let f = def.field(field)?;
                (!f.reference).then(|| (f.ty.clone(), false, Default::default()))
            }
            _ => None,
        }
    }
}
