//! Parameter packs: a variadic template's instance is its tokens with
//! every pack expansion written out.
//!
//! kernelc instantiates a template by parsing its tokens again with the
//! parameters bound (`crate::templates`). A pack fits that model one step
//! earlier: before the parse, each expansion in the tokens is replaced by
//! the list it stands for, so the parser and the checker only ever see
//! ordinary C++. With `Ts` bound to `float *, const int *`:
//!
//! - `Ts... xs` (a function parameter pack) is `Ts...[0] xs...[0],
//!   Ts...[1] xs...[1]`, where `Ts...[k]` is a typedef of the `k`-th type
//!   (`crate::templates::type_bindings`) and `xs...[k]` the `k`-th
//!   parameter: names no source token can spell, read as C++26's pack
//!   indexing in messages;
//! - `pattern...` in a list (call arguments, template arguments, braced
//!   initializers, base and member initializer lists) is the pattern once
//!   per element, each pack named in it replaced by that element:
//!   `g(h(xs)...)` is `g(h(xs...[0]), h(xs...[1]))`;
//! - the four fold expressions nest the elements with the operator as C++17
//!   says: `(xs + ...)` is `((xs...[0]) + ((xs...[1]) + (xs...[2])))`, `(... op E)`
//!   nests to the left, and `(E op ... op I)`, `(I op ... op E)` add the
//!   initial value at the far end; an empty pack gives `true` for `&&`,
//!   `false` for `||`, `void()` for `,`, and is an error for the others;
//! - `sizeof...(P)` is the count, a `size_t` literal.
//!
//! A value pack's elements are literals (`int... Ns`), as a value
//! parameter's are. An expansion whose pattern names no pack this
//! instance binds is left as written: it belongs to a template inside the
//! tokens (a member template), expanded when that one is instantiated.
//!
//! The function template's *pattern* (its header with placeholders, for
//! deduction and names, `crate::templates::FunctionTemplate::pattern`)
//! keeps the function parameter pack as one parameter:
//! [`strip_param_pack`] removes its `...` and says which it is.

use rustc_hash::FxHashMap;

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::{ArgValue, ParamKind, TemplateParam};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// The name of element `k` of pack `pack`: a type pack's typedef, a
/// function parameter pack's parameter (`xs...[1]`).
pub fn element_name(pack: &str, k: usize) -> String {
    format!("{pack}...[{k}]")
}

/// The packs an instance binds: each pack's name and its elements' tokens.
#[derive(Debug, Default)]
pub(crate) struct Packs {
    by_name: FxHashMap<String, Vec<Vec<Token>>>,
}

impl Packs {
    /// The packs of the template parameters `params` bound to `args`
    /// (`ArgValue::Pack` for each pack parameter).
    pub fn of(params: &[TemplateParam], args: &[ArgValue]) -> Packs {
        let mut packs = Packs::default();
        for (p, a) in params.iter().zip(args) {
            let (true, ArgValue::Pack(elems)) = (p.pack, a) else {
                continue;
            };
            let tokens = elems
                .iter()
                .enumerate()
                .map(|(k, e)| element_tokens(&p.name, k, e, &p.kind))
                .collect();
            packs.by_name.insert(p.name.clone(), tokens);
        }
        packs
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The one length of the packs `pattern` names, `None` when it names
    /// none; an error when two it names differ in length.
    fn length(&self, pattern: &[Token]) -> Result<Option<usize>, Diagnostic> {
        let mut found: Option<(&Token, usize)> = None;
        for (i, t) in pattern.iter().enumerate() {
            let Some(len) = self.pack_at(pattern, i) else {
                continue;
            };
            match found {
                Some((first, n)) if n != len => {
                    return Err(Diagnostic::error(
                        t.span,
                        Code::E0019,
                        format!(
                            "packs `{}` and `{}` expand together but have {n} and {len} elements",
                            first.text, t.text
                        ),
                    )
                    .with_label(first.span, format!("`{}` is expanded here too", first.text)));
                }
                Some(_) => {}
                None => found = Some((t, len)),
            }
        }
        Ok(found.map(|(_, n)| n))
    }

    /// The length of the pack token `i` of `pattern` names, if it names
    /// one (a member after `.` or `->` is not a pack).
    fn pack_at(&self, pattern: &[Token], i: usize) -> Option<usize> {
        let t = &pattern[i];
        let member = i > 0 && is_any(&pattern[i - 1], &[Punct::Dot, Punct::Arrow]);
        if t.kind != TokenKind::Ident || member {
            return None;
        }
        self.by_name.get(t.text.as_str()).map(Vec::len)
    }

    /// `pattern` with each pack it names replaced by its element `k`.
    fn element(&self, pattern: &[Token], k: usize) -> Vec<Token> {
        let mut out = Vec::with_capacity(pattern.len());
        for (i, t) in pattern.iter().enumerate() {
            match self.pack_at(pattern, i) {
                Some(_) => out.extend(self.by_name[t.text.as_str()][k].iter().map(|e| Token {
                    span: t.span,
                    ..e.clone()
                })),
                None => out.push(t.clone()),
            }
        }
        out
    }

    /// Every element of `pattern`, which names packs of length `n`.
    fn elements(&self, pattern: &[Token], n: usize) -> Vec<Vec<Token>> {
        (0..n).map(|k| self.element(pattern, k)).collect()
    }
}

/// The tokens of element `k` of pack `pack`: the typedef's name for a
/// type, the literal for a value, the function's name for a function.
fn element_tokens(pack: &str, k: usize, e: &ArgValue, kind: &ParamKind) -> Vec<Token> {
    let span = Span::default();
    let mut out = Vec::new();
    match (e, kind) {
        (ArgValue::Int(v, ty), _) => crate::templates::literal(*v, ty, span, &mut out),
        (ArgValue::Func { name, .. }, _) => crate::templates::function_name(name, span, &mut out),
        _ => out.push(ident(&element_name(pack, k), span)),
    }
    out
}

/// `tokens` with every expansion of a pack of `packs` written out (the
/// module's comment says how); the function parameter packs declared
/// there join `packs`.
pub(crate) fn expand(tokens: &[Token], packs: &mut Packs) -> Result<Vec<Token>, Diagnostic> {
    if packs.is_empty() {
        return Ok(tokens.to_vec());
    }
    let out = expand_in(tokens, packs)?;
    match (0..out.len()).find(|&i| packs.pack_at(&out, i).is_some() && !qualified(&out, i)) {
        Some(i) => Err(Diagnostic::error(
            out[i].span,
            Code::E0019,
            format!(
                "parameter pack `{}` is used without `...` expanding it",
                out[i].text
            ),
        )),
        None => Ok(out),
    }
}

/// A list element that is one pack expansion (`pattern...`, the
/// arguments `args...` or `std::forward<Ts>(xs)...` of a call): each
/// element, written out; `None` when `tokens` are no expansion of these
/// packs, which [`expand`] reads as one element.
pub(crate) fn expand_each(
    tokens: &[Token],
    packs: &mut Packs,
) -> Result<Option<Vec<Vec<Token>>>, Diagnostic> {
    let Some((last, pattern)) = tokens.split_last() else {
        return Ok(None);
    };
    if !is(last, Punct::Ellipsis) || packs.is_empty() {
        return Ok(None);
    }
    let pattern = expand_in(pattern, packs)?;
    let Some(n) = packs.length(&pattern)? else {
        return Ok(None);
    };
    Ok(Some(packs.elements(&pattern, n)))
}

/// Whether token `i` of `tokens` is the last part of a qualified name
/// (`S::Ts` names a member, not the pack).
fn qualified(tokens: &[Token], i: usize) -> bool {
    i > 0 && is(&tokens[i - 1], Punct::ColonColon)
}

/// [`expand`] without the check that every pack was expanded: for the
/// operands of folds, inside the tokens [`expand`] checks.
fn expand_in(tokens: &[Token], packs: &mut Packs) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if is(&tokens[i], Punct::Ellipsis) {
            i = packs.expansion(tokens, i, &mut out)?;
        } else {
            out.push(tokens[i].clone());
            i += 1;
        }
    }
    Ok(out)
}

impl Packs {
    /// The `...` at `tokens[at]`, after `out`: written out into `out`
    /// (or kept, when it expands no pack of these); the index to go on
    /// from.
    fn expansion(
        &mut self,
        tokens: &[Token],
        at: usize,
        out: &mut Vec<Token>,
    ) -> Result<usize, Diagnostic> {
        let next = tokens.get(at + 1);
        let last = out.last();
        if last.is_some_and(|t| t.kind == TokenKind::Keyword(Keyword::Sizeof)) {
            return Ok(self.sizeof_pack(tokens, at, out));
        }
        if next.is_some_and(|t| t.kind == TokenKind::Ident) {
            return self.declaration(tokens, at, out);
        }
        if last.is_some_and(|t| is(t, Punct::LParen)) && next.is_some_and(fold_operator) {
            if let Some(end) = self.left_fold(tokens, at, out)? {
                return Ok(end);
            }
        } else if last.is_some_and(fold_operator) {
            if let Some(end) = self.right_fold(tokens, at, out)? {
                return Ok(end);
            }
        }
        self.list(tokens, at, out)
    }

    /// `sizeof...(P)`: its count, a `size_t` literal.
    fn sizeof_pack(&self, tokens: &[Token], at: usize, out: &mut Vec<Token>) -> usize {
        let named = match tokens.get(at + 1..at + 4) {
            Some([open, name, close]) if is(open, Punct::LParen) && is(close, Punct::RParen) => {
                self.by_name.get(name.text.as_str()).map(Vec::len)
            }
            _ => None,
        };
        let Some(n) = named else {
            out.push(tokens[at].clone());
            return at + 1;
        };
        let Some(kw) = out.pop() else {
            return at + 1;
        };
        let span = kw.span.to(tokens[at + 3].span);
        crate::templates::literal(n as i128, &CType::ULONG, span, out);
        at + 4
    }

    /// `pattern... name`: a function parameter pack, one parameter per
    /// element (`xs...[k]`); `name` becomes a pack of those.
    fn declaration(
        &mut self,
        tokens: &[Token],
        at: usize,
        out: &mut Vec<Token>,
    ) -> Result<usize, Diagnostic> {
        let start = list_start(out);
        let Some(n) = self.length(&out[start..])? else {
            out.push(tokens[at].clone());
            return Ok(at + 1);
        };
        let name = &tokens[at + 1];
        let elements = self.elements(&out[start..], n);
        out.truncate(start);
        let mut params = Vec::with_capacity(n);
        for (k, mut e) in elements.into_iter().enumerate() {
            if k > 0 {
                out.push(punct(Punct::Comma, name.span));
            }
            out.append(&mut e);
            let param = ident(&element_name(&name.text, k), name.span);
            out.push(param.clone());
            params.push(vec![param]);
        }
        self.by_name.insert(name.text.to_string(), params);
        Ok(drop_comma_if_empty(n, tokens, at + 2, out))
    }

    /// `pattern...` in a list: the pattern once per element, separated by
    /// commas.
    fn list(&self, tokens: &[Token], at: usize, out: &mut Vec<Token>) -> Result<usize, Diagnostic> {
        let start = list_start(out);
        let Some(n) = self.length(&out[start..])? else {
            out.push(tokens[at].clone());
            return Ok(at + 1);
        };
        let elements = self.elements(&out[start..], n);
        out.truncate(start);
        for (k, mut e) in elements.into_iter().enumerate() {
            if k > 0 {
                out.push(punct(Punct::Comma, tokens[at].span));
            }
            out.append(&mut e);
        }
        Ok(drop_comma_if_empty(n, tokens, at + 1, out))
    }

    /// `( ... op E )`: written out into `out`, which ends with the `(`;
    /// `None` when `E` names no pack. (`( I op ... op E )` has its
    /// operator before the `...`: [`Self::right_fold`] reads it.)
    fn left_fold(
        &mut self,
        tokens: &[Token],
        at: usize,
        out: &mut Vec<Token>,
    ) -> Result<Option<usize>, Diagnostic> {
        let op = &tokens[at + 1];
        let Some(close) = closing_paren(tokens, at + 2) else {
            return Ok(None);
        };
        let operand = expand_in(&tokens[at + 2..close], self)?;
        let Some(n) = self.length(&operand)? else {
            return Ok(None);
        };
        let folded = fold(op, self.elements(&operand, n), Side::Left, tokens[at].span)?;
        out.extend(folded);
        out.push(tokens[close].clone());
        Ok(Some(close + 1))
    }

    /// `( E op ... )`, `( E op ... op I )` and `( I op ... op E )`, the
    /// operator the last token of `out`: written out into `out`; `None`
    /// when this `...` is no fold of these packs.
    fn right_fold(
        &mut self,
        tokens: &[Token],
        at: usize,
        out: &mut Vec<Token>,
    ) -> Result<Option<usize>, Diagnostic> {
        let op_at = out.len() - 1;
        let op = out[op_at].clone();
        let Some(open) = fold_open(out, op_at) else {
            return Ok(None);
        };
        let before = &out[open + 1..op_at];
        // `Foo<Ts>...`: a list's pattern closed by `>`, no fold.
        if is_any(&op, &[Punct::Gt, Punct::Shr]) && before.iter().any(|t| is(t, Punct::Lt)) {
            return Ok(None);
        }
        let span = tokens[at].span;
        let next = tokens.get(at + 1);
        let folded = if next.is_some_and(|t| is(t, Punct::RParen)) {
            let Some(n) = self.length(before)? else {
                return Ok(None);
            };
            let folded = fold(&op, self.elements(before, n), Side::Right, span)?;
            (folded, at + 1)
        } else if next.is_some_and(|t| t.kind == op.kind) {
            let Some(close) = closing_paren(tokens, at + 2) else {
                return Ok(None);
            };
            let after = expand_in(&tokens[at + 2..close], self)?;
            let folded = if let Some(n) = self.length(before)? {
                let mut elems = self.elements(before, n);
                elems.push(after);
                fold(&op, elems, Side::Right, span)?
            } else if let Some(n) = self.length(&after)? {
                let mut elems = vec![before.to_vec()];
                elems.extend(self.elements(&after, n));
                fold(&op, elems, Side::Left, span)?
            } else {
                return Ok(None);
            };
            (folded, close)
        } else {
            return Ok(None);
        };
        out.truncate(open + 1);
        out.extend(folded.0);
        out.push(tokens[folded.1].clone());
        Ok(Some(folded.1 + 1))
    }
}

/// Which way a fold nests.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `((e0 op e1) op e2)`.
    Left,
    /// `(e0 op (e1 op e2))`.
    Right,
}

/// The operands `elems` joined by `op`, nested to `side`, each
/// parenthesized (the fold's own parentheses enclose the result); for no
/// operands the value C++17 gives an empty unary
/// fold over `op` (`span` is the `...`).
fn fold(
    op: &Token,
    elems: Vec<Vec<Token>>,
    side: Side,
    span: Span,
) -> Result<Vec<Token>, Diagnostic> {
    let paren = |inner: Vec<Token>| {
        let mut t = vec![punct(Punct::LParen, span)];
        t.extend(inner);
        t.push(punct(Punct::RParen, span));
        t
    };
    let mut elems = elems.into_iter();
    let step = |acc: Vec<Token>, e: Vec<Token>| -> Vec<Token> {
        let (a, b) = match side {
            Side::Left => (acc, e),
            Side::Right => (e, acc),
        };
        let mut t = paren(a);
        t.push(op.clone());
        t.extend(paren(b));
        t
    };
    let result = match side {
        Side::Left => elems.next().map(|first| elems.fold(first, step)),
        Side::Right => {
            let mut rev = elems.rev();
            rev.next().map(|last| rev.fold(last, step))
        }
    };
    if let Some(r) = result {
        return Ok(r);
    }
    let empty = match op.kind {
        TokenKind::Punct(Punct::AndAnd) => vec![keyword(Keyword::True, "true", span)],
        TokenKind::Punct(Punct::OrOr) => vec![keyword(Keyword::False, "false", span)],
        TokenKind::Punct(Punct::Comma) => vec![
            keyword(Keyword::Void, "void", span),
            punct(Punct::LParen, span),
            punct(Punct::RParen, span),
        ],
        _ => {
            let why = format!(
                "a fold over `{}` of an empty pack has no value (only `&&`, `||` and `,` have one)",
                op.text
            );
            return Err(Diagnostic::error(span, Code::E0019, why));
        }
    };
    Ok(empty)
}

/// Where the list element ending `out` starts: after the `,`, `;`, `:`
/// or opening bracket before it at its own depth, or after the `<` that
/// opens the template argument list it is in.
fn list_start(out: &[Token]) -> usize {
    let mut depth = 0usize;
    let mut angles = 0usize;
    for j in (0..out.len()).rev() {
        let TokenKind::Punct(p) = out[j].kind else {
            continue;
        };
        match p {
            Punct::RParen | Punct::RBracket | Punct::RBrace => depth += 1,
            Punct::LParen | Punct::LBracket | Punct::LBrace if depth == 0 => return j + 1,
            Punct::LParen | Punct::LBracket | Punct::LBrace => depth -= 1,
            Punct::Comma | Punct::Semi | Punct::Colon if depth == 0 && angles == 0 => return j + 1,
            Punct::Gt if depth == 0 => angles += 1,
            Punct::Shr if depth == 0 => angles += 2,
            Punct::Lt if depth == 0 && angles == 0 => return j + 1,
            Punct::Lt if depth == 0 => angles -= 1,
            _ => {}
        }
    }
    0
}

/// The `(` that opens the fold whose operator is `out[op_at]`: the
/// unmatched `(` before it with no `,` or `;` between (the operand is one
/// expression), and not a call's or a declarator's (`f(Ts *...)` is a
/// list, no fold).
fn fold_open(out: &[Token], op_at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in (0..op_at).rev() {
        let TokenKind::Punct(p) = out[j].kind else {
            continue;
        };
        match p {
            Punct::RParen | Punct::RBracket | Punct::RBrace => depth += 1,
            Punct::LParen if depth == 0 => {
                let called = j > 0
                    && (out[j - 1].kind == TokenKind::Ident
                        || is_any(&out[j - 1], &[Punct::RParen, Punct::RBracket, Punct::Gt]));
                return (!called && j + 1 < op_at).then_some(j);
            }
            Punct::LBracket | Punct::LBrace if depth == 0 => return None,
            Punct::LParen | Punct::LBracket | Punct::LBrace => depth -= 1,
            Punct::Comma | Punct::Semi if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The index of the `)` closing the group whose contents start at `from`.
fn closing_paren(tokens: &[Token], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(from) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen) if depth == 0 => return Some(j),
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.checked_sub(1)?
            }
            _ => {}
        }
    }
    None
}

/// After an expansion of an empty pack: its list's comma goes too, the
/// one before it in `out` or else the one at `next`. The index to go on
/// from.
fn drop_comma_if_empty(n: usize, tokens: &[Token], next: usize, out: &mut Vec<Token>) -> usize {
    if n > 0 {
        return next;
    }
    if out.last().is_some_and(|t| is(t, Punct::Comma)) {
        out.pop();
        return next;
    }
    match tokens.get(next) {
        Some(t) if is(t, Punct::Comma) => next + 1,
        _ => next,
    }
}

/// Whether `t` is a binary operator a fold may use (C++17 [expr.prim.fold]).
fn fold_operator(t: &Token) -> bool {
    use Punct::*;
    is_any(
        t,
        &[
            Plus,
            Minus,
            Star,
            Slash,
            Percent,
            Caret,
            Amp,
            Pipe,
            Assign,
            Lt,
            Gt,
            Shl,
            Shr,
            PlusAssign,
            MinusAssign,
            StarAssign,
            SlashAssign,
            PercentAssign,
            XorAssign,
            AndAssign,
            OrAssign,
            ShlAssign,
            ShrAssign,
            EqEq,
            Ne,
            Le,
            Ge,
            AndAnd,
            OrOr,
            Comma,
        ],
    )
}

fn is(t: &Token, p: Punct) -> bool {
    t.kind == TokenKind::Punct(p)
}

fn is_any(t: &Token, ps: &[Punct]) -> bool {
    matches!(t.kind, TokenKind::Punct(p) if ps.contains(&p))
}

fn punct(p: Punct, span: Span) -> Token {
    Token {
        kind: TokenKind::Punct(p),
        text: p.as_str().into(),
        span,
    }
}

fn keyword(k: Keyword, text: &str, span: Span) -> Token {
    Token {
        kind: TokenKind::Keyword(k),
        text: text.into(),
        span,
    }
}

fn ident(text: &str, span: Span) -> Token {
    Token {
        kind: TokenKind::Ident,
        text: text.into(),
        span,
    }
}

/// A function template's header (its declaration up to the body, from
/// `crate::parser`), with the `...` of its function parameter pack
/// removed, and that parameter's index among those written; the header
/// unchanged and `None` when it has none. `packs` are the names of the
/// template's parameter packs.
pub(crate) fn strip_param_pack(header: &[Token], packs: &[&str]) -> (Vec<Token>, Option<usize>) {
    let mut depth = 0usize;
    let mut commas = 0usize;
    let mut element_start = 0usize;
    for (i, t) in header.iter().enumerate() {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                depth += 1;
                if depth == 1 {
                    commas = 0;
                    element_start = i + 1;
                }
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Comma) if depth == 1 => {
                commas += 1;
                element_start = i + 1;
            }
            TokenKind::Punct(Punct::Ellipsis) if depth == 1 => {
                let element = &header[element_start..i];
                let names_pack = element
                    .iter()
                    .any(|t| t.kind == TokenKind::Ident && packs.contains(&t.text.as_str()));
                // A declarator follows, or nothing: not `Pair<Ts...>`.
                let declares = match header.get(i + 1) {
                    Some(t) => {
                        t.kind == TokenKind::Ident || is_any(t, &[Punct::Comma, Punct::RParen])
                    }
                    None => false,
                };
                if names_pack && declares && angles(element) == 0 {
                    let mut out = header.to_vec();
                    out.remove(i);
                    return (out, Some(commas));
                }
            }
            _ => {}
        }
    }
    (header.to_vec(), None)
}

/// How many `<` of `tokens` no `>` closes.
fn angles(tokens: &[Token]) -> isize {
    tokens
        .iter()
        .map(|t| match t.kind {
            TokenKind::Punct(Punct::Lt) => 1,
            TokenKind::Punct(Punct::Gt) => -1,
            TokenKind::Punct(Punct::Shr) => -2,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(src: &str) -> Vec<Token> {
        crate::lexer::lex_raw(src).0
    }

    fn text(tokens: &[Token]) -> String {
        tokens
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn type_pack(name: &str) -> TemplateParam {
        TemplateParam {
            name: name.to_string(),
            kind: ParamKind::Type,
            default: None,
            span: Span::default(),
            pack: true,
            dependent_type: None,
        }
    }

    fn types(n: usize) -> ArgValue {
        let t = ArgValue::Type {
            ty: CType::FLOAT,
            is_const: false,
            is_volatile: false,
            spelling: Default::default(),
        };
        ArgValue::Pack(vec![t; n])
    }

    fn expanded(src: &str, n: usize) -> Result<String, Diagnostic> {
        let mut packs = Packs::of(&[type_pack("Ts")], &[types(n)]);
        expand(&lex(src), &mut packs).map(|t| text(&t))
    }

    #[test]
    fn parameter_packs_and_list_expansions() {
        assert_eq!(
            expanded("void f(int n, Ts... xs) { g(h(xs)...); }", 2).unwrap(),
            "void f ( int n , Ts...[0] xs...[0] , Ts...[1] xs...[1] ) { g ( h ( xs...[0] ) , h ( xs...[1] ) ) ; }"
        );
        assert_eq!(
            expanded("void f(const Ts *... xs, int n) { g(1, xs..., n); }", 0).unwrap(),
            "void f ( int n ) { g ( 1 , n ) ; }"
        );
        assert_eq!(
            expanded("X<Y<Ts>..., int> a = {sizeof...(Ts)};", 2).unwrap(),
            "X < Y < Ts...[0] > , Y < Ts...[1] > , int > a = { 2 } ;"
        );
    }

    #[test]
    fn the_four_folds_nest_as_cxx17_says() {
        let body = |fold: &str| format!("void f(Ts... xs) {{ r = {fold}; }}");
        let folded = |fold: &str, n: usize| {
            let all = expanded(&body(fold), n).unwrap();
            let start = all.find("r =").unwrap() + 4;
            all[start..all.len() - 4].to_string()
        };
        assert_eq!(
            folded("(xs + ...)", 3),
            "( ( xs...[0] ) + ( ( xs...[1] ) + ( xs...[2] ) ) )"
        );
        assert_eq!(
            folded("(... - xs)", 3),
            "( ( ( xs...[0] ) - ( xs...[1] ) ) - ( xs...[2] ) )"
        );
        assert_eq!(
            folded("(xs * ... * 2)", 2),
            "( ( xs...[0] ) * ( ( xs...[1] ) * ( 2 ) ) )"
        );
        assert_eq!(
            folded("(0 << ... << xs)", 2),
            "( ( ( 0 ) << ( xs...[0] ) ) << ( xs...[1] ) )"
        );
        assert_eq!(
            folded("((x = Ts::apply(x)), ...)", 2),
            "( ( ( x = Ts...[0] :: apply ( x ) ) ) , ( ( x = Ts...[1] :: apply ( x ) ) ) )"
        );
        assert_eq!(folded("(xs && ...)", 0), "( true )");
        assert_eq!(folded("(... || xs)", 0), "( false )");
        assert_eq!(folded("(xs , ...)", 0), "( void ( ) )");
        assert_eq!(folded("(1 + ... + xs)", 0), "( 1 )");
        let err = expanded(&body("(xs + ...)"), 0).unwrap_err();
        assert_eq!(err.code, Some(Code::E0019));
    }

    #[test]
    fn misuses_of_packs_are_located_errors() {
        let mut params = vec![type_pack("Ts"), type_pack("Us")];
        params[1].kind = ParamKind::Value(CType::INT, Default::default());
        let ints = ArgValue::Pack(vec![ArgValue::Int(1, CType::INT); 3]);
        let mut packs = Packs::of(&params, &[types(2), ints]);
        let tokens = lex("f(g<Ts, Us>()...);");
        let err = expand(&tokens, &mut packs).unwrap_err();
        assert!(
            err.message.contains("have 2 and 3 elements"),
            "{}",
            err.message
        );
        assert_eq!(err.span, tokens[6].span);
        let err = expanded("void f(Ts... xs) { g(xs); }", 2).unwrap_err();
        assert!(
            err.message.contains("`xs` is used without `...`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn what_names_no_pack_of_the_instance_stays() {
        // A C variadic prototype, and a member template's own pack.
        let src = "int printf(const char *, ...); template <typename... Us> void g(Us... us) { h(us...); }";
        assert_eq!(expanded(src, 2).unwrap(), text(&lex(src)));
    }

    #[test]
    fn the_pattern_keeps_one_parameter_for_the_pack() {
        let header = lex("__global__ void k(float *out, int n, const Ts &... in);");
        let (tokens, at) = strip_param_pack(&header, &["Ts"]);
        assert_eq!(at, Some(2));
        assert_eq!(
            text(&tokens),
            "__global__ void k ( float * out , int n , const Ts & in ) ;"
        );
        assert_eq!(strip_param_pack(&header, &[]).1, None);
        // An expansion in a parameter's type is no function parameter pack.
        let header = lex("void k(Pair<Ts...> p, Ts... xs);");
        let (tokens, at) = strip_param_pack(&header, &["Ts"]);
        assert_eq!(at, Some(1));
        assert_eq!(text(&tokens), "void k ( Pair < Ts ... > p , Ts xs ) ;");
    }
}
