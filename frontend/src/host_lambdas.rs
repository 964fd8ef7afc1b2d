//! The lambdas written in host code, which a launch may pass to a kernel
//! template: nvcc's *extended* lambdas (`--extended-lambda`), annotated
//! `__device__` or `__host__ __device__` in a host function
//! (`k<<<g, b>>>(d, [] __device__ (float x) { return 2 * x; })`).
//!
//! The kernel's instance is named by the lambda's closure type, and that
//! name depends on where the lambda is written: the Itanium ABI names a
//! closure type by the function whose body holds it and its number among
//! the closures of that function whose call operators take the same
//! parameter types, counted in source order, host lambdas included
//! (`Z4mainEUlfE0_` is the second lambda of `main` taking a `float`). Host
//! code is never parsed (`crate::split`), so this module reads each host
//! function's lambdas from its tokens, numbers them, and keeps what the
//! parser attaches to a lambda it meets in a launch's argument (by the
//! offset of its `[`). It also finds what nvcc refuses in them:
//! an annotation without `--extended-lambda`, and an extended lambda that
//! captures by reference.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, Token, TokenKind};

/// A lambda of host code, as its closure type's name needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostLambda {
    /// The host function it is written in.
    pub context: HostContext,
    /// Its number among that function's lambdas whose parameters have the
    /// same types (`crate::types::Closure::discriminator`).
    pub discriminator: u32,
    /// Where `__device__` or `__host__` is written after its parameters.
    pub annotation: Option<Span>,
    /// Where its capture list captures by reference (`&`), if it does.
    pub by_ref: Option<Span>,
}

/// The function whose body holds a host lambda.
#[derive(Clone, Debug, PartialEq)]
pub enum HostContext {
    /// `main`, whose name is its own (`Z4mainE`).
    Main,
    /// A function at namespace scope: its key and its parameter list's
    /// tokens (without the parentheses), which the checker reads as types.
    Function { key: String, params: Vec<Token> },
    /// A function kernelc cannot name yet: what it is.
    Unnamed(&'static str),
}

/// The host lambdas of a translation unit, by the offset of their `[`.
pub(crate) type HostLambdas = Arc<FxHashMap<u32, Arc<HostLambda>>>;

/// A host function, as the split found it: its tokens' range and the
/// namespace it is declared in.
pub(crate) struct HostFunction {
    pub start: usize,
    pub end: usize,
    pub scope: Vec<String>,
}

/// The lambdas of the host functions `fns` of `tokens`.
pub(crate) fn find(tokens: &[Token], fns: &[HostFunction]) -> HostLambdas {
    let mut out = FxHashMap::default();
    for f in fns {
        let Some((context, body)) = context_of(tokens, f) else {
            continue;
        };
        number_lambdas(tokens, body, &context, &mut out);
    }
    Arc::new(out)
}

/// What nvcc refuses in host lambdas: `__host__` or `__device__` without
/// `--extended-lambda`, and an extended lambda capturing by reference.
pub(crate) fn errors(lambdas: &HostLambdas, extended: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut sorted: Vec<&HostLambda> = lambdas.values().map(|l| &**l).collect();
    sorted.sort_by_key(|l| l.annotation.map(|a| a.start));
    for l in sorted {
        let Some(at) = l.annotation else { continue };
        if !extended {
            out.push(
                Diagnostic::error(
                    at,
                    Code::E0024,
                    "`__host__` or `__device__` on a lambda needs `--extended-lambda`, as in nvcc",
                )
                .with_note("compile with `--extended-lambda` (or `--expt-extended-lambda`)"),
            );
        } else if let Some(amp) = l.by_ref {
            out.push(
                Diagnostic::error(
                    amp,
                    Code::E0024,
                    "an extended `__device__` lambda cannot capture variables by reference, as in nvcc",
                )
                .with_label(at, "an extended lambda")
                .with_note("the kernel runs after the host function's variables may be gone; capture by copy (`[=]`)"),
            );
        }
    }
    out
}

/// The context of host function `f` and its body's token range, or
/// `None` when it has no body.
fn context_of(tokens: &[Token], f: &HostFunction) -> Option<(HostContext, (usize, usize))> {
    let (name, open, close) = declarator(tokens, f.start, f.end)?;
    let body_open = (close..f.end).find(|&i| is(tokens, i, Punct::LBrace))?;
    let body = (body_open, f.end);
    let is_template = tokens[f.start].kind == TokenKind::Keyword(Keyword::Template);
    let member = name > f.start && is(tokens, name - 1, Punct::ColonColon);
    let text = tokens[name].text.as_str();
    let context = if is_template {
        HostContext::Unnamed("a host function template")
    } else if member {
        HostContext::Unnamed("a member function")
    } else if text == "main" && f.scope.is_empty() {
        HostContext::Main
    } else {
        let mut key = f.scope.join("::");
        if !key.is_empty() {
            key.push_str("::");
        }
        key.push_str(text);
        HostContext::Function {
            key,
            params: tokens[open + 1..close].to_vec(),
        }
    };
    Some((context, body))
}

/// In a function definition `start..end`: its name's index and its
/// parameter list's `(` and `)`.
fn declarator(tokens: &[Token], start: usize, end: usize) -> Option<(usize, usize, usize)> {
    let mut angles = 0usize;
    let mut i = start;
    while i < end {
        match tokens[i].kind {
            TokenKind::Punct(Punct::Lt) => angles += 1,
            TokenKind::Punct(Punct::Gt) => angles = angles.saturating_sub(1),
            TokenKind::Punct(Punct::Shr) => angles = angles.saturating_sub(2),
            TokenKind::Punct(Punct::LParen)
                if angles == 0 && i > start && tokens[i - 1].kind == TokenKind::Ident =>
            {
                let close = group_end(tokens, i, end)? - 1;
                return Some((i - 1, i, close));
            }
            TokenKind::Punct(Punct::LBrace | Punct::Semi | Punct::Assign) if angles == 0 => {
                return None
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Numbers the lambdas of the function body `body` whose context is
/// `context`; a lambda inside another's body is named by that lambda's
/// call operator, which kernelc does not name.
fn number_lambdas(
    tokens: &[Token],
    (open, end): (usize, usize),
    context: &HostContext,
    out: &mut FxHashMap<u32, Arc<HostLambda>>,
) {
    let mut counts: FxHashMap<String, u32> = FxHashMap::default();
    // The end of the innermost lambda body the scan is in.
    let mut inside: Vec<usize> = Vec::new();
    let mut i = open + 1;
    while i < end {
        inside.retain(|&e| e > i);
        let Some(shape) = lambda_at(tokens, i, end) else {
            i += 1;
            continue;
        };
        let (discriminator, ctx) = if inside.is_empty() {
            let n = counts.entry(shape.signature.clone()).or_insert(0);
            *n += 1;
            (*n - 1, context.clone())
        } else {
            (0, HostContext::Unnamed("another lambda's body"))
        };
        out.insert(
            tokens[i].span.start,
            Arc::new(HostLambda {
                context: ctx,
                discriminator,
                annotation: shape.annotation,
                by_ref: shape.by_ref,
            }),
        );
        inside.push(shape.body_end);
        i = shape.params_at;
    }
}

/// What [`lambda_at`] reads of a lambda (token indices).
pub(crate) struct Shape {
    /// Its parameters' types as written, each without its name: what
    /// tells two signatures apart.
    signature: String,
    annotation: Option<Span>,
    by_ref: Option<Span>,
    /// Just past the capture list's `]`.
    pub params_at: usize,
    /// The body's `{`, and just past its `}`.
    pub body_open: usize,
    pub body_end: usize,
}

/// The lambda whose `[` is at `i`, if one is: a `[` where an expression
/// starts (not a subscript, not an attribute's `[[`), its `]`, maybe a
/// parameter list, specifiers and a return type, then a body.
pub(crate) fn lambda_at(tokens: &[Token], i: usize, end: usize) -> Option<Shape> {
    if !is(tokens, i, Punct::LBracket) || is(tokens, i + 1, Punct::LBracket) {
        return None;
    }
    let subscript = i > 0
        && matches!(
            tokens[i - 1].kind,
            TokenKind::Ident
                | TokenKind::Int { .. }
                | TokenKind::Float { .. }
                | TokenKind::Str(_)
                | TokenKind::Char(_)
                | TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::LBracket)
                | TokenKind::Keyword(
                    Keyword::This | Keyword::Operator | Keyword::Delete | Keyword::New
                )
        );
    if subscript {
        return None;
    }
    let close = group_end(tokens, i, end)?;
    let by_ref = (i + 1..close - 1)
        .find(|&j| is(tokens, j, Punct::Amp) && (j == i + 1 || is(tokens, j - 1, Punct::Comma)))
        .map(|j| tokens[j].span);
    let mut j = close;
    let mut annotation = None;
    while tokens
        .get(j)
        .is_some_and(|t| matches!(t.kind, TokenKind::Keyword(Keyword::Device | Keyword::Host)))
    {
        annotation.get_or_insert(tokens[j].span);
        j += 1;
    }
    let mut signature = String::new();
    if is(tokens, j, Punct::LParen) {
        let params_end = group_end(tokens, j, end)?;
        signature = signature_of(&tokens[j + 1..params_end - 1]);
        j = params_end;
    }
    while j < end && !is(tokens, j, Punct::LBrace) {
        match tokens[j].kind {
            TokenKind::Keyword(Keyword::Device | Keyword::Host) => {
                annotation.get_or_insert(tokens[j].span);
            }
            TokenKind::Punct(Punct::Semi | Punct::RBrace | Punct::Comma) => return None,
            TokenKind::Punct(Punct::LParen) => {
                j = group_end(tokens, j, end)?;
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    let body_end = group_end(tokens, j, end)?;
    Some(Shape {
        signature,
        annotation,
        by_ref,
        params_at: close,
        body_open: j,
        body_end,
    })
}

/// The types of a parameter list as written, each parameter's name left
/// out: `const Image < float > &,int,int` for `(const Image<float> &img,
/// int x, int y)`.
fn signature_of(params: &[Token]) -> String {
    let mut out = Vec::new();
    for param in crate::token::split_params(params) {
        // A name is the last identifier after at least one other word.
        let named = param.len() > 1 && param.last().is_some_and(|t| t.kind == TokenKind::Ident);
        let ty = if named {
            &param[..param.len() - 1]
        } else {
            param
        };
        let words: Vec<&str> = ty.iter().map(|t| t.text.as_str()).collect();
        out.push(words.join(" "));
    }
    if out == ["void"] {
        return String::new();
    }
    out.join(",")
}

/// The index after the bracket group opening at `open` (before `end`).
pub(crate) fn group_end(tokens: &[Token], open: usize, end: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().take(end).skip(open) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn is(tokens: &[Token], i: usize, p: Punct) -> bool {
    tokens.get(i).is_some_and(|t| is_tok(t, p))
}

fn is_tok(t: &Token, p: Punct) -> bool {
    t.kind == TokenKind::Punct(p)
}
