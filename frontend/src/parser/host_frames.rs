//! Host function templates called with their arguments deduced, read for
//! the checker (`crate::host_uses::HostFrame`): a launch inside
//! `template <class F> void launch2D(int w, int h, F f)` called as
//! `launch2D(w, h, [=] __device__ (int x, int y) { ... })` names `F`,
//! which only deduction from the call's arguments gives. Host code is not
//! parsed, so its declarations are read here as device code's, as far as
//! they can be: a parameter of a type device code does not know is left
//! out of deduction.

use super::Parser;
use crate::ast::{Expr, FunctionDecl, ParamDecl, QualType, Spelling};
use crate::diag::Span;
use crate::templates::{FunctionTemplate, TemplateArg, Templates};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// Typedefs that bind template parameters (`T` to `float`).
type Bindings = [(String, (CType, bool, Spelling))];

/// A host function template's declaration, read: the template (its
/// parameters, and as its pattern the function's parameters with
/// placeholders; one kernelc cannot read is `void`, which deduces
/// nothing) and its return type's tokens.
#[derive(Clone)]
pub(crate) struct HostTemplate {
    pub template: FunctionTemplate,
    pub ret: Vec<Token>,
}

/// Reads `header`, a host function template's declaration up to its body
/// (`template <class F> void launch2D(int w, int h, F f)`), with the
/// frames around it bound (`bound`); `None` when it does not read as one.
pub(crate) fn host_template(
    templates: &Templates,
    header: &[Token],
    bound: &Bindings,
    opts: &crate::Options,
) -> Option<HostTemplate> {
    let mut p = Parser::from_env(templates, &[], header, bound.to_vec(), opts);
    if !p.eat_kw(Keyword::Template) || !p.eat_punct(Punct::Lt) {
        return None;
    }
    let params = p.template_params().ok()?;
    // A function parameter pack (`Args... args`) is one parameter of the
    // pattern, which deduction matches against every argument left, as a
    // device template's (`FunctionTemplate::param_pack`); the body's
    // expansions of it (`args...` in a launch) are written out per element
    // when the frame is bound (`templates::bind_each_in`). Template
    // parameter packs are also deduced from class template-ids
    // (`List<First, Rest...>`).
    let packs: Vec<&str> = params
        .iter()
        .filter(|p| p.pack)
        .map(|p| p.name.as_str())
        .collect();
    let (rest, param_pack) = crate::packs::strip_param_pack(&header[p.pos..], &packs);
    let rest = &rest[..];
    let (name_at, _) = super::templates::function_name(rest)?;
    let open = name_at + 1;
    let close = super::classes::skip_balanced(rest, open);
    let at = rest[name_at].span;
    let fn_params = crate::token::split_params(&rest[open + 1..close.saturating_sub(1)])
        .into_iter()
        .map(|tokens| p.pattern_param(tokens, &params, at))
        .collect();
    let ret = rest[..name_at]
        .iter()
        .filter(|t| !is_specifier(t))
        .cloned()
        .collect();
    let name = rest[name_at].text.to_string();
    let pattern = FunctionDecl {
        name: name.clone(),
        name_span: at,
        span: at,
        specs: Default::default(),
        ret: CType::Void,
        ret_span: at,
        ret_spelling: Default::default(),
        returns: crate::ast::Returns::Value,
        params: fn_params,
        body: None,
        launch_bounds: None,
        cluster_dims: None,
        method: None,
        deduced_ret: None,
    };
    p.leave_env(templates);
    Some(HostTemplate {
        template: FunctionTemplate {
            name,
            scope: Vec::new(),
            params,
            tokens: Vec::new(),
            name_span: at,
            is_kernel: false,
            pattern: Some(pattern),
            member_of: None,
            param_pack,
        },
        ret,
    })
}

/// `tokens` read as an expression of device code with `bound`, or `None`.
pub(crate) fn host_expr(
    templates: &Templates,
    tokens: &[Token],
    bound: &Bindings,
    opts: &crate::Options,
) -> Option<Expr> {
    read_whole(templates, tokens, bound, opts, |p| p.cond_value().ok())
}

/// `tokens` read as a template argument with `bound`, or `None`.
pub(crate) fn host_template_arg(
    templates: &Templates,
    tokens: &[Token],
    bound: &Bindings,
    opts: &crate::Options,
) -> Option<TemplateArg> {
    read_whole(templates, tokens, bound, opts, |p| {
        p.template_arg(false).ok()
    })
}

/// `tokens` read as a type with `bound`, or `None`.
pub(crate) fn host_type(
    templates: &Templates,
    tokens: &[Token],
    bound: &Bindings,
    opts: &crate::Options,
) -> Option<QualType> {
    read_whole(templates, tokens, bound, opts, |p| p.type_name().ok())
}

/// What `read` makes of all of `tokens`, with `bound`, by a parser of
/// device code: `None` when it fails, leaves tokens over or says anything
/// (host code is not kernelc's to judge, so nothing is reported).
fn read_whole<T>(
    templates: &Templates,
    tokens: &[Token],
    bound: &Bindings,
    opts: &crate::Options,
    read: impl FnOnce(&mut Parser<'_>) -> Option<T>,
) -> Option<T> {
    let mut p = Parser::from_env(templates, &[], tokens, bound.to_vec(), opts);
    let value = read(&mut p);
    p.leave_env(templates);
    value.filter(|_| p.at_eof() && p.diags.is_empty())
}

impl Parser<'_> {
    /// One parameter's tokens read with the template's parameters
    /// `params` as placeholders; a `void` stand-in when they do not read.
    fn pattern_param(
        &self,
        tokens: &[Token],
        params: &[crate::templates::TemplateParam],
        at: Span,
    ) -> ParamDecl {
        // A forwarding reference (`Args &&...args`) deduces the type an
        // lvalue reference does, up to the reference itself, which no
        // launch's by-value parameter sees: read as `&`.
        let mut with_close: Vec<Token> = tokens
            .iter()
            .map(|t| match t.kind {
                TokenKind::Punct(Punct::AndAnd) => Token {
                    kind: TokenKind::Punct(Punct::Amp),
                    text: "&".into(),
                    span: t.span,
                },
                _ => t.clone(),
            })
            .collect();
        with_close.push(Token {
            kind: TokenKind::Punct(Punct::RParen),
            text: ")".into(),
            span: at,
        });
        let mut sub = self.pattern_parser(&with_close, params);
        sub.pack_expansions = true;
        match sub.params() {
            Ok(mut read) if read.len() == 1 && sub.diags.is_empty() => read.remove(0),
            _ => ParamDecl {
                name: None,
                ty: QualType::plain(CType::Void, at),
                grid_constant: None,
                by_ref: None,
                rvalue: false,
                dims: Vec::new(),
                default: None,
                span: at,
            },
        }
    }
}

/// Whether a token before a function's name is a specifier, not part of
/// its return type.
fn is_specifier(t: &Token) -> bool {
    matches!(
        t.kind,
        TokenKind::Keyword(
            Keyword::Static
                | Keyword::Inline
                | Keyword::Extern
                | Keyword::Host
                | Keyword::Constexpr
                | Keyword::ForceInline
                | Keyword::NoInline
        )
    )
}
