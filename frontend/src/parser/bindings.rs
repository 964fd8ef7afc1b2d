//! C++17 structured bindings: `auto [a, b] = init;` and `for (auto &[k, v] :
//! items)`. The parser keeps the declaration as written (`ast::Bindings`);
//! the checker decomposes the object (`sema/bindings.rs`).

use super::{PResult, Parser};
use crate::ast::{Bindings, Block, Expr, ExprKind, Init, QualType, Stmt, StmtKind, VarDecl};
use crate::codes::Code;
use crate::diag::Span;
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;

impl Parser<'_> {
    /// Whether a structured binding declaration starts here: `auto` among
    /// `const` and `volatile`, an optional `&` or `&&`, then `[`.
    pub(super) fn bindings_at(&self) -> bool {
        let mut n = 0;
        let mut auto = false;
        loop {
            match self.peek_at(n).kind {
                TokenKind::Keyword(Keyword::Auto) => auto = true,
                TokenKind::Keyword(Keyword::Const | Keyword::Volatile) => {}
                _ => break,
            }
            n += 1;
        }
        if self.is_punct_at(n, Punct::Amp) || self.is_punct_at(n, Punct::AndAnd) {
            n += 1;
        }
        auto && self.is_punct_at(n, Punct::LBracket)
    }

    /// `auto [a, b] = init;` at [`Parser::bindings_at`] (the `;` consumed);
    /// `init` may also be written `{init}` or `(init)`, as C++ allows.
    pub(super) fn bindings_decl(&mut self) -> PResult<StmtKind> {
        let (mut object, names) = self.bindings_head()?;
        let init = if self.eat_punct(Punct::Assign) {
            self.initializer()?
        } else if self.is_punct(Punct::LBrace) {
            object.direct_braces = true;
            self.initializer()?
        } else if self.eat_punct(Punct::LParen) {
            let e = self.expr()?;
            self.expect_punct(Punct::RParen, "to close the initializer")?;
            Init::Expr(e)
        } else {
            let msg = format!(
                "a structured binding declaration needs an initializer (`= value`), found {}",
                self.found()
            );
            let sp = self.span();
            return self.error(sp, Code::E0003, msg);
        };
        object.span = object.span.to(init.span());
        object.init = Some(init);
        self.expect_punct(Punct::Semi, "after a structured binding declaration")?;
        // The names are in scope after the initializer, not in it.
        for (name, _) in &names {
            self.names.declare_local(name);
        }
        Ok(StmtKind::Bindings(Box::new(Bindings { object, names })))
    }

    /// `for (auto &[k, v] : items) body`, after `for (`: the range-`for`
    /// over the objects, `for (auto &[k, v] : items)` declaring the loop
    /// variable as the object, whose names the body's block declares first
    /// (`{ auto &[k, v] = object; body }`), so that the body cannot declare
    /// them again.
    pub(super) fn bindings_range_for(&mut self) -> PResult<StmtKind> {
        let (var, names) = self.bindings_head()?;
        self.expect_punct(Punct::Colon, "after the names of a range-based `for`")?;
        let range = self.expr()?;
        self.expect_punct(Punct::RParen, "to close the `for` header")?;
        for (name, _) in &names {
            self.names.declare_local(name);
        }
        let mut body = self.statement()?;
        let object = VarDecl {
            by_ref: Some(var.name_span),
            rvalue: false,
            init: Some(Init::Expr(Expr {
                kind: ExprKind::Ident(var.name.clone()),
                span: var.name_span,
            })),
            ..var.clone()
        };
        let decl = Stmt {
            kind: StmtKind::Bindings(Box::new(Bindings { object, names })),
            span: var.span,
        };
        let span = body.span;
        let stmts = match std::mem::replace(&mut body.kind, StmtKind::Empty) {
            StmtKind::Block(b) => std::iter::once(decl).chain(b.stmts).collect(),
            kind => vec![decl, Stmt { kind, span }],
        };
        let body = Stmt {
            kind: StmtKind::Block(Block { stmts, span }),
            span,
        };
        Ok(StmtKind::RangeFor {
            var: Box::new(var),
            range,
            body: Box::new(body),
        })
    }

    /// `const auto &[a, b]`: the declaration of the object, without its
    /// initializer and named by the bracketed list, and the names.
    fn bindings_head(&mut self) -> PResult<(VarDecl, Vec<(String, Span)>)> {
        let start = self.span();
        let mut ty = QualType::plain(CType::Void, start);
        let mut auto = start;
        loop {
            match self.peek().kind {
                TokenKind::Keyword(Keyword::Auto) => auto = self.span(),
                TokenKind::Keyword(Keyword::Const) => ty.is_const = true,
                TokenKind::Keyword(Keyword::Volatile) => ty.is_volatile = true,
                _ => break,
            }
            self.bump();
        }
        ty.span = auto;
        let rvalue = self.is_punct(Punct::AndAnd);
        let by_ref = match rvalue || self.is_punct(Punct::Amp) {
            true => Some(self.bump().span),
            false => None,
        };
        let open = self.expect_punct(Punct::LBracket, "to start the structured binding list")?;
        let mut names = Vec::new();
        loop {
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                let msg = format!(
                    "expected a name in the structured binding list, found {}",
                    self.found()
                );
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            let name = self.bump();
            names.push((name.text.to_string(), name.span));
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        let close = self.expect_punct(Punct::RBracket, "to close the structured binding list")?;
        let listed: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
        let object = VarDecl {
            name: format!("[{}]", listed.join(", ")),
            name_span: open.to(close),
            ty,
            dims: Vec::new(),
            storage: Default::default(),
            init: None,
            by_ref,
            rvalue,
            auto: Some(auto),
            decltype: None,
            direct_braces: false,
            span: start.to(close),
        };
        Ok((object, names))
    }
}
