//! Lambda expressions: what the parser keeps of one, and how the checker
//! has its call operator read.
//!
//! A lambda is an object of a closure type: a class whose members are its
//! captures and whose `operator()` is its body (C++ [expr.prim.lambda]).
//! kernelc makes it one with the machinery of classes. What the members'
//! types are, only the checker knows (a capture of an `auto` local, or of
//! another lambda), so the parser keeps a lambda as it keeps a template:
//! the captures as expressions (each a local, a member of an enclosing
//! closure, `this`), and the call operator as *tokens*. The checker types
//! the captures, makes the closure type, and has the tokens read as a
//! member function of that class ([`lambda_operator`]): a captured name in
//! the body is then a member (`this->x`, [`Parser::implicit_member`]), as
//! in any member function.
//!
//! What a lambda captures without naming it (`[=]`, `[&]`) is what its
//! body names among the locals in scope where it is written, in the order
//! it names them, which is the closure's member order (nvcc's too). The
//! body's own declarations are not told apart from the locals they hide:
//! such a name is captured needlessly, which only makes the closure larger.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::{PResult, Parser};
use crate::ast::{Capture, CaptureDefault, Expr, ExprKind, Lambda, Spelling, UnaryOp};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::Templates;
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::{CType, StructDef};

/// The prefix of the names that stand for the types of a generic
/// lambda's `auto` parameters.
const AUTO_PREFIX: &str = "auto@";

/// A capture list as written.
#[derive(Default)]
struct CaptureList {
    default: Option<CaptureDefault>,
    captures: Vec<Capture>,
    /// `this` was captured: whether as a copy of the object (`[*this]`).
    this: Option<bool>,
}

impl Parser<'_> {
    /// A lambda expression, at its `[`.
    pub(super) fn lambda(&mut self) -> PResult<Expr> {
        let start = self.bump().span;
        let mut list = self.capture_list()?;
        if self.is_punct(Punct::Lt) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "lambdas with a template parameter list are not supported by kernelc yet",
            );
        }
        // nvcc's extended lambdas write the annotation first:
        // `[=] __device__ (float x) { ... }`.
        let annotated = self.lambda_annotations();
        let mut tokens = self.lambda_params(start);
        let (generic, params) = generic_params(&mut tokens);
        let mut l = Lambda {
            captures: Vec::new(),
            default: list.default,
            mutable: false,
            host: false,
            device: false,
            annotation: None,
            tokens: Vec::new(),
            generic,
            explicit_return: false,
            types: Vec::new(),
            scope: self.names.current_path(),
            enclosing: None,
            host_site: self.host_lambdas.get(&start.start).cloned(),
            span: start,
        };
        (l.host, l.device, l.annotation) = annotated;
        self.lambda_specifiers(&mut l, &mut tokens)?;
        if !self.is_punct(Punct::LBrace) {
            let (sp, found) = (self.span(), self.found());
            return self.error(
                sp,
                Code::E0003,
                format!("expected `{{` to open the lambda's body, found {found}"),
            );
        }
        let end = super::classes::skip_balanced(self.toks, self.pos);
        let body = &self.toks[self.pos..end];
        if !body
            .last()
            .is_some_and(|t| t.kind == TokenKind::Punct(Punct::RBrace))
        {
            return self.error(l.span, Code::E0003, "this lambda's body is never closed");
        }
        tokens.extend_from_slice(body);
        self.pos = end;
        l.span = start.to(self.prev_span());
        self.implicit_captures(&mut list, &params, body);
        l.enclosing = self.lambda_enclosing(list.this);
        l.captures = list.captures;
        l.types = self.types_named(&tokens);
        l.tokens = tokens;
        if let (Some(at), false) = (l.annotation, self.extended_lambda) {
            self.diags.push(
                Diagnostic::error(
                    at,
                    Code::E0024,
                    "`__host__` or `__device__` on a lambda needs `--extended-lambda`, as in nvcc",
                )
                .with_note("compile with `--extended-lambda` (or `--expt-extended-lambda`)"),
            );
        }
        let span = l.span;
        Ok(Expr {
            kind: ExprKind::Lambda(Box::new(l)),
            span,
        })
    }

    /// The captures after `[`, through `]`.
    fn capture_list(&mut self) -> PResult<CaptureList> {
        let mut list = CaptureList::default();
        let mut first = true;
        while !self.eat_punct(Punct::RBracket) {
            if !first {
                self.expect_punct(Punct::Comma, "between captures")?;
            }
            let default_follows =
                self.is_punct_at(1, Punct::Comma) || self.is_punct_at(1, Punct::RBracket);
            if first && default_follows && self.eat_punct(Punct::Assign) {
                list.default = Some(CaptureDefault::Copy);
            } else if first && default_follows && self.eat_punct(Punct::Amp) {
                list.default = Some(CaptureDefault::Ref);
            } else {
                self.capture(&mut list)?;
            }
            first = false;
        }
        Ok(list)
    }

    /// One capture other than a default: `x`, `&x`, `x = init`, `this`,
    /// `*this`.
    fn capture(&mut self, list: &mut CaptureList) -> PResult<()> {
        let at = self.span();
        let by_value_this =
            self.is_punct(Punct::Star) && self.peek_at(1).kind == TokenKind::Keyword(Keyword::This);
        if by_value_this || self.is_kw(Keyword::This) {
            self.pos += 1 + usize::from(by_value_this);
            return self.capture_this(list, by_value_this, at);
        }
        let by_ref = self.eat_punct(Punct::Amp);
        if self.peek().kind != TokenKind::Ident || self.at_eof() {
            let found = self.found();
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                format!("expected a capture, found {found}"),
            );
        }
        let name = self.bump();
        if self.is_punct(Punct::Ellipsis) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "capturing a parameter pack is not supported by kernelc yet",
            );
        }
        let init = match self.peek().kind {
            TokenKind::Punct(Punct::Assign) => {
                self.bump();
                self.assign_expr()?
            }
            TokenKind::Punct(p @ (Punct::LBrace | Punct::LParen)) => {
                self.bump();
                let e = self.assign_expr()?;
                let close = if p == Punct::LBrace {
                    Punct::RBrace
                } else {
                    Punct::RParen
                };
                self.expect_punct(close, "to close the capture's initializer")?;
                e
            }
            _ => self.captured_name(&name.text, name.span),
        };
        list.captures.push(Capture {
            name: name.text.into(),
            by_ref,
            init,
            span: at.to(self.prev_span()),
        });
        Ok(())
    }

    /// `this` or `*this` in a capture list (at `at`).
    fn capture_this(&mut self, list: &mut CaptureList, by_value: bool, at: Span) -> PResult<()> {
        let Some(this) = self.this_pointer(at) else {
            return self.error(
                at,
                Code::E0001,
                "`this` can only be captured inside a non-static member function",
            );
        };
        let init = if by_value {
            Expr {
                kind: ExprKind::Unary {
                    op: UnaryOp::Deref,
                    operand: Box::new(this),
                },
                span: at,
            }
        } else {
            this
        };
        list.this = Some(by_value);
        list.captures.push(Capture {
            name: crate::ast::CAPTURED_THIS.to_string(),
            by_ref: false,
            init,
            span: at.to(self.prev_span()),
        });
        Ok(())
    }

    /// What a capture of `name` copies or binds: a local, or in a
    /// lambda's body a member of its closure (a capture of the lambda
    /// around it).
    fn captured_name(&self, name: &str, span: Span) -> Expr {
        self.implicit_member(name, span).unwrap_or(Expr {
            kind: ExprKind::Ident(name.to_string()),
            span,
        })
    }

    /// `__host__` and `__device__` at the current token: whether each was
    /// written, and where the first was.
    fn lambda_annotations(&mut self) -> (bool, bool, Option<Span>) {
        let (mut host, mut device, mut at) = (false, false, None);
        loop {
            match self.peek().kind {
                TokenKind::Keyword(Keyword::Host) => host = true,
                TokenKind::Keyword(Keyword::Device) => device = true,
                _ => return (host, device, at),
            }
            at.get_or_insert(self.bump().span);
        }
    }

    /// The parameter list's tokens at the current token, `(` to `)`, or
    /// an empty one when none is written.
    fn lambda_params(&mut self, at: Span) -> Vec<Token> {
        if !self.is_punct(Punct::LParen) {
            let punct = |p: Punct| Token {
                kind: TokenKind::Punct(p),
                text: p.as_str().into(),
                span: at,
            };
            return vec![punct(Punct::LParen), punct(Punct::RParen)];
        }
        let end = super::classes::skip_balanced(self.toks, self.pos);
        let tokens = self.toks[self.pos..end].to_vec();
        self.pos = end;
        tokens
    }

    /// What may stand between the parameters and the body: `mutable`,
    /// `__device__`, `__host__`, `constexpr`, `noexcept`, attributes, and
    /// a trailing return type (appended to `tokens`).
    fn lambda_specifiers(&mut self, l: &mut Lambda, tokens: &mut Vec<Token>) -> PResult<()> {
        loop {
            let t = self.peek().clone();
            match &t.kind {
                _ if self.at_eof() => return Ok(()),
                TokenKind::Keyword(k @ (Keyword::Device | Keyword::Host)) => {
                    l.annotation.get_or_insert(t.span);
                    if *k == Keyword::Device {
                        l.device = true;
                    } else {
                        l.host = true;
                    }
                    self.bump();
                }
                TokenKind::Keyword(Keyword::Global) => {
                    return self.error(t.span, Code::E0024, "a lambda cannot be `__global__`")
                }
                TokenKind::Keyword(Keyword::Constexpr | Keyword::Inline | Keyword::ForceInline) => {
                    self.bump();
                }
                TokenKind::Ident if t.text == "mutable" => {
                    l.mutable = true;
                    self.bump();
                }
                TokenKind::Ident if t.text == "consteval" => {
                    self.bump();
                }
                TokenKind::Ident
                    if matches!(t.text.as_str(), "noexcept" | "__attribute__")
                        && self.is_punct_at(1, Punct::LParen) =>
                {
                    self.pos = super::classes::skip_balanced(self.toks, self.pos + 1);
                }
                TokenKind::Ident if t.text == "noexcept" => {
                    self.bump();
                }
                TokenKind::Punct(Punct::Arrow) => {
                    let end = return_type_end(self.toks, self.pos + 1);
                    tokens.extend_from_slice(&self.toks[self.pos..end]);
                    self.pos = end;
                    l.explicit_return = true;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Adds what a capture default captures: each name the body uses
    /// that is a local in scope here (not a parameter of the lambda) or a
    /// member of the closure whose body this is, in the order the body
    /// names them; and `this` when the body uses the enclosing object.
    /// Without a default, a local the body names can only be a constant
    /// (C++ [expr.prim.lambda.capture]), which the closure holds as well.
    fn implicit_captures(
        &mut self,
        list: &mut CaptureList,
        params: &FxHashSet<String>,
        body: &[Token],
    ) {
        let mut seen: FxHashSet<String> = list.captures.iter().map(|c| c.name.clone()).collect();
        let mut uses_this = false;
        for (i, t) in body.iter().enumerate() {
            if t.kind == TokenKind::Keyword(Keyword::This) {
                uses_this = true;
                continue;
            }
            let member = i > 0
                && matches!(
                    body[i - 1].kind,
                    TokenKind::Punct(Punct::Dot | Punct::Arrow | Punct::ColonColon)
                );
            let qualifier = body
                .get(i + 1)
                .is_some_and(|n| n.kind == TokenKind::Punct(Punct::ColonColon));
            if t.kind != TokenKind::Ident || member || qualifier || params.contains(t.text.as_str())
            {
                continue;
            }
            match self.capturable(&t.text) {
                Some(true) if !seen.contains(t.text.as_str()) => {
                    seen.insert(t.text.to_string());
                    list.captures.push(Capture {
                        name: t.text.to_string(),
                        by_ref: list.default == Some(CaptureDefault::Ref),
                        init: self.captured_name(&t.text, t.span),
                        span: t.span,
                    });
                }
                Some(false) => uses_this = true,
                _ => {}
            }
        }
        if uses_this && list.default.is_some() && list.this.is_none() {
            if let Some(this) = self.this_pointer(list_span(body)) {
                list.this = Some(false);
                list.captures.push(Capture {
                    name: crate::ast::CAPTURED_THIS.to_string(),
                    by_ref: false,
                    init: this,
                    span: list_span(body),
                });
            }
        }
    }

    /// Whether a name the lambda's body uses is captured: `Some(true)` for
    /// a local here or a member of the closure whose body this is,
    /// `Some(false)` for a member of the enclosing object (which takes
    /// capturing `this`), `None` for anything else.
    fn capturable(&self, name: &str) -> Option<bool> {
        if self.names.is_local(name) {
            return Some(true);
        }
        let class = self.class.as_ref().filter(|c| c.has_this)?;
        if class.closure && class.fields.contains(name) {
            return Some(true);
        }
        let outer = if class.closure {
            &class.enclosing.as_deref()?.0
        } else {
            class
        };
        (outer.fields.contains(name) || outer.methods.contains(name)).then_some(false)
    }

    /// The object a lambda that captured `this` (`this_kind`: whether
    /// by copy) holds, for its body: its class (the member function's, or
    /// the one the closure around it holds), and whether it is a copy.
    fn lambda_enclosing(&self, this_kind: Option<bool>) -> Option<Box<(super::ClassCtx, bool)>> {
        let by_value = this_kind?;
        let class = self.class.as_ref().filter(|c| c.has_this)?;
        let outer = if class.closure {
            class.enclosing.as_deref()?.0.clone()
        } else {
            class.clone()
        };
        Some(Box::new((outer, by_value)))
    }

    /// The typedefs of this parse that `tokens` name.
    fn types_named(&self, tokens: &[Token]) -> Vec<(String, (CType, bool, Spelling))> {
        let mut seen = FxHashSet::default();
        tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Ident && seen.insert(t.text.as_str()))
            .filter_map(|t| {
                Some((
                    t.text.to_string(),
                    self.typedefs.get(t.text.as_str())?.clone(),
                ))
            })
            .collect()
    }
}

/// The span of a lambda's body tokens.
fn list_span(body: &[Token]) -> Span {
    match (body.first(), body.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => Span::default(),
    }
}

/// The index of the `{` after a trailing return type starting at `start`
/// (outside parentheses and brackets), or the end.
fn return_type_end(toks: &[Token], start: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(start) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
            TokenKind::Punct(Punct::LBrace | Punct::Semi) if depth == 0 => return i,
            _ => {}
        }
    }
    toks.len()
}

/// Replaces each `auto` of a parameter list by the name that stands for
/// its type, and gives those names and the parameters' names (the
/// identifiers of the list, types' among them: none of them is a
/// capture).
fn generic_params(tokens: &mut [Token]) -> (Vec<String>, FxHashSet<String>) {
    let mut generic = Vec::new();
    let mut names = FxHashSet::default();
    for t in tokens.iter_mut() {
        if t.kind == TokenKind::Keyword(Keyword::Auto) {
            let name = format!("{AUTO_PREFIX}{}", generic.len());
            t.kind = TokenKind::Ident;
            t.text = name.as_str().into();
            generic.push(name);
        } else if t.kind == TokenKind::Ident {
            names.insert(t.text.to_string());
        }
    }
    (generic, names)
}

/// A parser of a lambda's call operator tokens: in its namespace, with
/// the typedefs it names and `types` (what `auto` parameters stand for)
/// bound, the closure `closure` known by its key.
fn operator_parser<'t>(
    templates: &Templates,
    lambda: &'t Lambda,
    closure: &Arc<StructDef>,
    types: Vec<(String, (CType, bool, Spelling))>,
    opts: &crate::Options,
) -> Parser<'t> {
    let mut bound = lambda.types.clone();
    bound.extend(types);
    let mut p = Parser::from_env(templates, &lambda.scope, &lambda.tokens, bound, opts);
    Arc::make_mut(&mut p.structs).insert(closure.name.clone(), closure.clone());
    p.names.enter_scope(&super::names::key_path(&closure.name));
    p
}

/// The parameters of `lambda`'s call operator (without `this`), each
/// `auto` read as the placeholder of a template parameter: what its
/// closure type's name spells, and what a generic lambda's calls deduce
/// from. `closure` is a stand-in for the closure (no member is named).
pub(crate) fn lambda_params(
    templates: &Templates,
    lambda: &Lambda,
    closure: &Arc<StructDef>,
    opts: &crate::Options,
) -> Result<Vec<crate::ast::ParamDecl>, Vec<Diagnostic>> {
    let placeholders = lambda
        .generic
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let ty = crate::types::template_param(i, n);
            (n.clone(), (ty, false, Spelling::Plain))
        })
        .collect();
    let mut p = operator_parser(templates, lambda, closure, placeholders, opts);
    p.in_pattern = !lambda.generic.is_empty();
    let params = p
        .expect_punct(Punct::LParen, "to open the lambda's parameters")
        .and_then(|_| p.params());
    p.leave_env(templates);
    match params {
        Ok(params) if p.diags.is_empty() => Ok(params),
        _ => Err(p.diags),
    }
}

/// The call operator of `lambda`, a member function of its closure type
/// `closure` whose members are the captures (named `fields`), with the
/// `auto` parameters' types `autos`; and whether its return type is to
/// be deduced from its body (`void` until then).
pub(crate) fn lambda_operator(
    templates: &Templates,
    lambda: &Lambda,
    closure: &Arc<StructDef>,
    autos: Vec<(String, (CType, bool, Spelling))>,
    opts: &crate::Options,
) -> Result<(crate::ast::FunctionDecl, bool), Vec<Diagnostic>> {
    let mut p = operator_parser(templates, lambda, closure, autos, opts);
    let f = p.lambda_operator_decl(lambda, closure);
    p.leave_env(templates);
    match f {
        Ok(f) if p.diags.is_empty() && p.at_eof() => Ok(f),
        _ => Err(p.diags),
    }
}

impl Parser<'_> {
    /// The call operator's declaration from its tokens.
    fn lambda_operator_decl(
        &mut self,
        lambda: &Lambda,
        closure: &Arc<StructDef>,
    ) -> PResult<(crate::ast::FunctionDecl, bool)> {
        let class = CType::Struct(closure.clone());
        let ctx = super::ClassCtx {
            key: closure.name.clone(),
            fields: closure.fields.iter().map(|f| f.name.clone()).collect(),
            methods: FxHashSet::default(),
            has_this: true,
            closure: true,
            enclosing: lambda.enclosing.clone(),
            defaults: Arc::new([]),
        };
        let start = self.span();
        self.expect_punct(Punct::LParen, "to open the lambda's parameters")?;
        let mut params = self.params()?;
        let (ret, returns, deduced) = if self.eat_punct(Punct::Arrow) {
            let ty = self.type_name()?;
            let (ty, returns) = self.returned_reference(ty)?;
            (ty, returns, false)
        } else {
            let ty = crate::ast::QualType::plain(CType::Void, lambda.span);
            (ty, crate::ast::Returns::Value, true)
        };
        let is_const = !lambda.mutable;
        params.insert(0, super::classes::this_param(&class, is_const, lambda.span));
        let body = self.member_body(&class, &ctx, true, false, &params)?;
        let specs = crate::ast::FnSpecs {
            device: true,
            host: lambda.host,
            inline: true,
            ..Default::default()
        };
        let f = crate::ast::FunctionDecl {
            name: super::join(&closure.name, "operator()"),
            name_span: lambda.span,
            span: start.to(self.prev_span()),
            specs,
            ret: ret.ty,
            ret_span: ret.span,
            ret_spelling: ret.spelling,
            returns,
            params,
            body,
            launch_bounds: None,
            cluster_dims: None,
            method: Some(crate::ast::Method {
                class: closure.name.clone(),
                is_const,
                is_ctor: false,
                aggregate: false,
                ref_qualifier: crate::ast::RefQualifier::None,
            }),
            deduced_ret: None,
        };
        Ok((f, deduced))
    }
}

/// The parameters of a host function (its parameter list's tokens,
/// without the parentheses) read as device code's types in the namespaces
/// `scope`, or `None` when they are not: what names a closure type
/// written in that function, or the file's anonymous namespace
/// (`crate::unnamed_namespace`).
pub(crate) fn host_params(
    templates: &Templates,
    scope: &[String],
    params: &[Token],
    opts: &crate::Options,
) -> Option<Vec<crate::ast::ParamDecl>> {
    let mut tokens = params.to_vec();
    let end = params.last().map(|t| t.span).unwrap_or_default();
    tokens.push(Token {
        kind: TokenKind::Punct(Punct::RParen),
        text: ")".into(),
        span: end,
    });
    let mut p = Parser::from_env(templates, scope, &tokens, Vec::new(), opts);
    let read = p.params();
    p.leave_env(templates);
    read.ok().filter(|_| p.diags.is_empty() && p.at_eof())
}
