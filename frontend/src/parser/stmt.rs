//! Statements and blocks.

use super::decl::unsupported_keyword;
use super::{PResult, Parser, Recorded};
use crate::ast::{Block, StaticAssert, Stmt, StmtKind, VarDecl};
use crate::codes::Code;
use crate::diag::Diagnostic;
use crate::token::{Keyword, Punct, TokenKind};
use stdx::stack::with_stack;

impl Parser<'_> {
    /// `{ stmt* }`; statement errors are recovered from inside the block.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let mark = self.names.begin_block();
        let outer = std::mem::replace(&mut self.local_structs_from, self.local_structs.len());
        let typedefs = self.typedefs.local_mark();
        let r = with_stack(|| self.block_inner());
        self.typedefs.end_locals(typedefs);
        self.end_local_structs(outer);
        self.names.end_block(mark);
        r
    }

    fn block_inner(&mut self) -> PResult<Block> {
        let open = self.expect_punct(Punct::LBrace, "to start a block")?;
        self.enter()?;
        let mut stmts = Vec::new();
        // Enumerations declared before the block (a class's `enum { N = 4 };`
        // above a member function's body) stay the enclosing scope's.
        let outer_enums = self.pending_enums.len();
        loop {
            if self.at_eof() {
                self.leave();
                self.diags.push(
                    Diagnostic::error(
                        self.prev_span(),
                        Code::E0003,
                        "expected `}` at end of input",
                    )
                    .with_label(open, "to match this `{`"),
                );
                return Err(Recorded);
            }
            if self.eat_punct(Punct::RBrace) {
                break;
            }
            if self.over_error_limit() {
                self.abandon_item = true;
                self.leave();
                return Err(Recorded);
            }
            let before = self.pos;
            let r = self.statement();
            for e in self.pending_enums.drain(outer_enums..) {
                let span = e.span;
                stmts.push(Stmt {
                    kind: StmtKind::Enum(e),
                    span,
                });
            }
            match r {
                Ok(s) => stmts.push(s),
                Err(Recorded) if self.abandon_item => {
                    self.leave();
                    return Err(Recorded);
                }
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
        with_stack(|| {
            self.enter()?;
            let r = self.statement_inner();
            self.leave();
            r
        })
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
            TokenKind::Keyword(Keyword::If) => return self.if_chain(),
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
                    return self.error(sp, Code::E0003, msg);
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
                } else if self.is_punct(Punct::LBrace) {
                    Some(self.braced_list()?)
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(Punct::Semi, "after `return` statement")?;
                StmtKind::Return(value)
            }
            TokenKind::Keyword(
                Keyword::Switch
                | Keyword::Case
                | Keyword::Default
                | Keyword::PragmaUnroll
                | Keyword::StaticAssert
                | Keyword::Goto,
            ) => self.switch_or_pragma()?,
            TokenKind::Keyword(Keyword::Using) => {
                self.using_item()?;
                StmtKind::Empty
            }
            TokenKind::Keyword(Keyword::Namespace) => {
                self.block_namespace_alias()?;
                StmtKind::Empty
            }
            TokenKind::Keyword(Keyword::Asm | Keyword::Asm2) => self.asm_stmt()?,
            TokenKind::Keyword(k) if unsupported_keyword(*k).is_some() && !self.starts_decl(0) => {
                let what = unsupported_keyword(*k).unwrap_or("this construct");
                return self.error(
                    tok.span,
                    Code::E0002,
                    format!("{what} is not supported by kernelc yet"),
                );
            }
            TokenKind::Ident
                if !self.starts_type(0)
                    && self.peek_at(1).kind == TokenKind::Ident
                    && !self.at_eof_at(1) =>
            {
                return self.error(
                    tok.span,
                    Code::E0001,
                    format!("unknown type name `{}`", tok.text),
                );
            }
            TokenKind::Ident if self.is_punct_at(1, Punct::Colon) => self.switch_or_pragma()?,
            _ if self.bindings_at() => self.bindings_decl()?,
            _ if self.starts_decl(0)
                && !self.static_member_call_at(0)
                && !self.temporary_member_call_at(0) =>
            {
                StmtKind::Decl(self.local_decl()?)
            }
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

    /// Whether a class template-id `n` tokens ahead is followed by
    /// `::name(` (`VecIO<VEC, T>::load(p, v);`): a call of the instance's
    /// static member function, which starts an expression statement, not
    /// a declaration (a member type called as a declarator, `Traits<T>::
    /// type (x);`, is the rare reading C++ would prefer, and is not kept).
    fn static_member_call_at(&self, n: usize) -> bool {
        let Some((_, len)) = self.class_template_at(n) else {
            return false;
        };
        let open = self.pos + n + len;
        let name = crate::token::NameBefore::Template;
        let Ok(list) = crate::token::template_args(self.toks, open, self.toks.len(), name) else {
            return false;
        };
        let after = list.close + 1 - self.pos;
        self.is_punct_at(after, Punct::ColonColon)
            && self.peek_at(after + 1).kind == TokenKind::Ident
            && self.is_punct_at(after + 2, Punct::LParen)
    }

    /// Whether a type name `n` tokens ahead is followed by `(...)` and a
    /// member access (`Scan(temp).InclusiveSum(x, y);`, CUB's idiom): a
    /// temporary whose member function is called, which starts an
    /// expression statement, since no declarator goes on with `.` or `->`.
    fn temporary_member_call_at(&self, n: usize) -> bool {
        if self.peek_at(n).kind != TokenKind::Ident || !self.is_punct_at(n + 1, Punct::LParen) {
            return false;
        }
        let mut depth = 0usize;
        let mut k = n + 1;
        loop {
            if self.at_eof_at(k) {
                return false;
            }
            if self.is_punct_at(k, Punct::LParen) {
                depth += 1;
            } else if self.is_punct_at(k, Punct::RParen) {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            k += 1;
        }
        self.is_punct_at(k + 1, Punct::Dot) || self.is_punct_at(k + 1, Punct::Arrow)
    }

    /// `switch`, its labels, `#pragma unroll`, `static_assert`, `goto` and
    /// labels: kept out of `statement_inner` so that the frame recursing
    /// per nesting level stays small.
    #[inline(never)]
    fn switch_or_pragma(&mut self) -> PResult<StmtKind> {
        let tok = self.peek().clone();
        Ok(match &tok.kind {
            TokenKind::Keyword(Keyword::Switch) => {
                let start = self.bump().span;
                let mark = self.names.begin_block();
                let header = self.paren_header("`switch`");
                let body = header.and_then(|h| Ok((h, Box::new(self.statement()?))));
                self.names.end_block(mark);
                let ((init, cond), body) = body?;
                let span = start.to(self.prev_span());
                return Ok(with_init(init, StmtKind::Switch { cond, body }, span));
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
            TokenKind::Keyword(Keyword::StaticAssert) => {
                StmtKind::StaticAssert(Box::new(self.static_assert()?))
            }
            TokenKind::Keyword(Keyword::Goto) => {
                self.bump();
                if self.is_punct(Punct::Star) {
                    let sp = self.span();
                    return self.error(
                        sp,
                        Code::E0002,
                        "computed `goto` is not supported by kernelc",
                    );
                }
                if self.peek().kind != TokenKind::Ident || self.at_eof() {
                    let msg = format!("expected a label name after `goto`, found {}", self.found());
                    let sp = self.span();
                    return self.error(sp, Code::E0003, msg);
                }
                let label = self.bump().text.to_string();
                self.expect_punct(Punct::Semi, "after `goto` statement")?;
                StmtKind::Goto(label)
            }
            TokenKind::Ident => {
                // `name:` labels the statement after it.
                let label = self.bump();
                self.bump(); // `:`
                if self.is_punct(Punct::RBrace) {
                    let sp = self.span();
                    return self.error(
                        sp,
                        Code::E0011,
                        "a label must be followed by a statement (write `label: ;` at the end of a block)",
                    );
                }
                let stmt = Box::new(self.statement()?);
                StmtKind::Labeled {
                    label: label.text.into(),
                    label_span: label.span,
                    stmt,
                }
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
                    return self.error(sp, Code::E0003, msg);
                }
                let stmt = Box::new(self.statement()?);
                StmtKind::Unroll { count, stmt }
            }
            _ => {
                let sp = self.span();
                return self.error(sp, Code::E0003, "expected a statement");
            }
        })
    }

    /// `if (c) s else if (c) s ... else s`. An `else if` chain is flat code,
    /// however long: its arms are read in a loop and the nested `If`s are
    /// built from the last arm outward, each spanning from its `if` to the
    /// end of the chain.
    fn if_chain(&mut self) -> PResult<Stmt> {
        // The names an arm's header declares are in scope to the chain's end.
        let mark = self.names.begin_block();
        let chain = self.if_arms();
        self.names.end_block(mark);
        chain
    }

    fn if_arms(&mut self) -> PResult<Stmt> {
        let mut arms = Vec::new();
        let mut els = None;
        loop {
            let first = self.pos;
            let start = self.bump().span; // `if`
            let constexpr = self.eat_kw(Keyword::Constexpr);
            let (init, cond) = self.paren_header("`if`")?;
            let then = Box::new(self.statement()?);
            arms.push((start, (constexpr, first), init, cond, then));
            if !self.eat_kw(Keyword::Else) {
                break;
            }
            if !self.is_kw(Keyword::If) {
                els = Some(Box::new(self.statement()?));
                break;
            }
        }
        let end = self.prev_span();
        let mut chain: Option<Stmt> = None;
        while let Some((start, (constexpr, first), init, cond, then)) = arms.pop() {
            let els = chain.take().map(Box::new).or_else(|| els.take());
            let kind = match constexpr {
                true => StmtKind::ConstexprIf {
                    cond,
                    then,
                    els,
                    mentions: self.locals_named_since(first),
                },
                false => StmtKind::If { cond, then, els },
            };
            let span = start.to(end);
            chain = Some(Stmt {
                kind: with_init(init, kind, span),
                span,
            });
        }
        chain.ok_or(Recorded)
    }

    /// The locals in scope here that the tokens from `first` on name,
    /// each once.
    fn locals_named_since(&self, first: usize) -> Vec<String> {
        let mut names: Vec<String> = self.toks[first..self.pos]
            .iter()
            .filter(|t| t.kind == TokenKind::Ident && self.names.is_local(&t.text))
            .map(|t| t.text.to_string())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// `( condition )` after `if` or `switch`, with C++'s other forms: an
    /// init-statement before it (`if (int v = f(); v > 2)`, `switch (auto
    /// k = kind(); k)`) and a declaration as the condition (`if (int v =
    /// f())`, whose value is the condition). The declaration, if any, is a
    /// statement before the `if` in a block of its own ([`with_init`]).
    fn paren_header(&mut self, what: &str) -> PResult<(Option<Stmt>, crate::ast::Expr)> {
        self.expect_punct(Punct::LParen, &format!("after {what}"))?;
        let start = self.span();
        let statement = self.before_close(Punct::Semi);
        // A condition that declares has its `=` or `{` (a type's name
        // alone, `std::is_same_v<T, float>`, starts an expression too).
        let declares = statement
            || self.before_close(Punct::Assign)
            || self.before_close(Punct::LBrace)
            || self.declarator_ends_header();
        let mut init = None;
        if declares && self.starts_decl(0) {
            self.condition_decl = !statement;
            let decls = self.local_decl();
            self.condition_decl = false;
            let decls = decls?;
            for v in &decls {
                self.names.declare_local(&v.name);
            }
            if !statement {
                if let [v] = decls.as_slice() {
                    if v.init.is_none() {
                        let msg =
                            format!("the declaration in the {what} condition needs an initializer");
                        return self.error(v.name_span, Code::E0003, msg);
                    }
                } else if let Some(v) = decls.get(1) {
                    let msg = format!("the {what} condition declares one variable");
                    return self.error(v.name_span, Code::E0003, msg);
                }
            }
            let condition =
                (!statement).then(|| decls.first().map(|v| (v.name.clone(), v.name_span)));
            init = Some(Stmt {
                kind: StmtKind::Decl(decls),
                span: start.to(self.prev_span()),
            });
            if let Some(first) = condition {
                let Some((name, span)) = first else {
                    return self.error(
                        start,
                        Code::E0003,
                        format!("expected a declared name in the {what} condition"),
                    );
                };
                self.expect_punct(Punct::RParen, &format!("to close the {what} condition"))?;
                let cond = crate::ast::Expr {
                    kind: crate::ast::ExprKind::Ident(name),
                    span,
                };
                return Ok((init, cond));
            }
        } else if statement {
            let e = self.expr()?;
            let span = e.span;
            self.expect_punct(Punct::Semi, &format!("after the {what} init-statement"))?;
            init = Some(Stmt {
                kind: StmtKind::Expr(e),
                span,
            });
        }
        let cond = self.expr()?;
        self.expect_punct(Punct::RParen, &format!("to close the {what} condition"))?;
        Ok((init, cond))
    }

    /// Whether the header just opened ends with a declarator's name after
    /// a type (`if (int x)`, `if (T *p)`): a declaration, whose missing
    /// initializer `paren_header` reports.
    fn declarator_ends_header(&self) -> bool {
        let Some(close) = self.header_close() else {
            return false;
        };
        let before = |n: usize| {
            close
                .checked_sub(n)
                .filter(|&i| i >= self.pos)
                .map(|i| &self.toks[i].kind)
        };
        matches!(before(1), Some(TokenKind::Ident))
            && matches!(
                before(2),
                Some(
                    TokenKind::Ident
                        | TokenKind::Keyword(_)
                        | TokenKind::Punct(Punct::Star | Punct::Amp)
                )
            )
    }

    /// Whether `p` comes, outside brackets, before the `)` that closes the
    /// parenthesis just opened (`;`: an init-statement in an `if` or
    /// `switch` header; `=` or `{`: a declaration's initializer).
    fn before_close(&self, p: Punct) -> bool {
        let end = self.header_close().unwrap_or(self.toks.len());
        let mut depth = 0usize;
        for t in &self.toks[self.pos..end] {
            match t.kind {
                TokenKind::Punct(q) if q == p && depth == 0 => return true,
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Semi) if p != Punct::Semi => return false,
                _ => {}
            }
        }
        false
    }

    /// The index of the `)` that closes the parenthesis just opened.
    fn header_close(&self) -> Option<usize> {
        let after = super::classes::skip_balanced(self.toks, self.pos - 1);
        let close = after.checked_sub(1)?;
        (self.toks.get(close)?.kind == TokenKind::Punct(Punct::RParen)).then_some(close)
    }

    /// `( expr )` after `if`/`while`.
    fn paren_cond(&mut self, what: &str) -> PResult<crate::ast::Expr> {
        self.expect_punct(Punct::LParen, &format!("after {what}"))?;
        let e = self.expr()?;
        self.expect_punct(Punct::RParen, &format!("to close the {what} condition"))?;
        Ok(e)
    }

    /// `static_assert(cond, "message");` or `static_assert(cond);`, at the
    /// keyword (the `;` is consumed).
    #[inline(never)]
    pub(super) fn static_assert(&mut self) -> PResult<StaticAssert> {
        let start = self.bump().span;
        self.expect_punct(Punct::LParen, "after `static_assert`")?;
        let cond = self.assign_expr()?;
        let mut message = None;
        if self.eat_punct(Punct::Comma) {
            // Adjacent string literals are one string, as in C.
            let mut text = String::new();
            let mut any = false;
            while let TokenKind::Str(s) = &self.peek().kind {
                text.push_str(s);
                any = true;
                self.bump();
            }
            if !any {
                let msg = format!(
                    "expected a string literal as the `static_assert` message, found {}",
                    self.found()
                );
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            message = Some(text);
        }
        self.expect_punct(Punct::RParen, "to close `static_assert`")?;
        let end = self.expect_punct(Punct::Semi, "after `static_assert(...)`")?;
        Ok(StaticAssert {
            cond,
            message,
            span: start.to(end),
            instantiated: self.instance_sites.clone(),
        })
    }

    /// After `for (`: `T x :` or `T &x :` starts a range-based `for`. Tries
    /// that shape and rewinds when it does not match, leaving no trace.
    #[inline(never)]
    fn range_for_var(&mut self) -> Option<VarDecl> {
        let save = (self.pos, self.diags.len(), self.pending_enums.len());
        let start = self.span();
        let parsed = (|| -> PResult<Option<VarDecl>> {
            let (base, _, ds) = self.specifiers()?;
            let Some(base) = base else { return Ok(None) };
            let st = &ds.storage;
            if ds.typedef.is_some()
                || st.shared
                || st.constant
                || st.device
                || st.is_extern
                || st.is_static
            {
                return Ok(None);
            }
            let ty = self.pointers(base);
            let by_ref = self.reference()?;
            if self.peek().kind != TokenKind::Ident || !self.is_punct_at(1, Punct::Colon) {
                return Ok(None);
            }
            let name = self.bump();
            self.bump(); // `:`
            Ok(Some(VarDecl {
                name: name.text.into(),
                name_span: name.span,
                ty,
                dims: Vec::new(),
                storage: ds.storage,
                init: None,
                by_ref,
                rvalue: false,
                auto: ds.auto,
                decltype: ds.decltype,
                direct_braces: false,
                span: start.to(name.span),
            }))
        })();
        match parsed {
            Ok(Some(v)) => Some(v),
            _ => {
                self.pos = save.0;
                self.diags.truncate(save.1);
                self.pending_enums.truncate(save.2);
                None
            }
        }
    }

    #[inline(never)]
    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect_punct(Punct::LParen, "after `for`")?;
        if self.bindings_at() {
            return self.bindings_range_for();
        }
        if self.starts_decl(0) {
            if let Some(var) = self.range_for_var() {
                self.names.declare_local(&var.name);
                let range = self.expr()?;
                self.expect_punct(Punct::RParen, "to close the `for` header")?;
                let body = Box::new(self.statement()?);
                return Ok(StmtKind::RangeFor {
                    var: Box::new(var),
                    range,
                    body,
                });
            }
        }
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

/// The statement `kind` (at `span`) after the declaration or expression
/// its header began with, in a block of their own: the names it declares
/// end with the statement.
fn with_init(init: Option<Stmt>, kind: StmtKind, span: crate::diag::Span) -> StmtKind {
    match init {
        None => kind,
        Some(init) => StmtKind::Block(Block {
            stmts: vec![init, Stmt { kind, span }],
            span,
        }),
    }
}
