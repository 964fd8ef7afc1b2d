//! The Itanium name of a function template's return type that depends on
//! its parameters through a class template's member, as SFINAE writes it
//! (`typename std::enable_if<std::is_integral<T>::value, T>::type f(T)`).
//! The checker never types such a return type in the template's pattern
//! (it reads only once the arguments are known), so it is mangled from
//! its tokens, as nvcc spells it:
//! `NSt9enable_ifIXsr3std11is_integralIT_EE5valueES1_E4typeE`.
//!
//! The forms read: `[typename] ns::tmpl<args>::member`, a `std::` alias
//! `std::X_t<args>` as the `std::X<args>::type` it names (nvcc spells the
//! alias's target), written and defaulted template arguments, each a
//! template parameter, a builtin type, or a value: `ns::tmpl<args>::name`
//! (5.1.6 `X sr <qualifier levels> E <name> E`), `!` of one, `true` and
//! `false`, integer literals, `sizeof(T)`, and the binary operators over
//! them with C++'s precedence (`sizeof(T) > 4` is `gtstT_Li4E`).
//! `cuda::std::` names are in libcu++'s inline namespace `__4`, spelled
//! out. Anything else is `None`, and the caller keeps its older name.

use super::{builtin, source_name, Mangler, Quals};
use crate::ast::Spelling;
use crate::templates::{ClassTemplates, FunctionTemplate};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// What a mangling needs to know besides the tokens.
pub(super) struct Context<'a> {
    pub template: &'a FunctionTemplate,
    pub classes: &'a ClassTemplates,
}

/// The return type tokens of template `t`'s declaration (between its
/// specifiers and its name), when they are more than `void`.
pub(super) fn return_tokens(t: &FunctionTemplate) -> Option<&[Token]> {
    let name_at = t.tokens.iter().position(|tok| tok.span == t.name_span)?;
    let start = t.tokens[..name_at]
        .iter()
        .position(|tok| !tok.is_function_specifier())
        .unwrap_or(name_at);
    let ret = &t.tokens[start..name_at];
    let plain_void = ret.len() == 1 && ret[0].kind == TokenKind::Keyword(Keyword::Void);
    (!ret.is_empty() && !plain_void).then_some(ret)
}

/// The mangling of the dependent type `tokens`, or `None` when it is not
/// a form this module reads.
pub(super) fn return_type(m: &mut Mangler, cx: &Context<'_>, tokens: &[Token]) -> Option<String> {
    let mut r = Reader { tokens, pos: 0 };
    r.eat_kw(Keyword::Typename);
    let name = r.qualified()?;
    if !r.done() || name.parts.len() < 2 {
        return None;
    }
    let name = expand_std_alias(name);
    nested_type(m, cx, &name)
}

/// A qualified name as written: its components, each with its template
/// arguments' tokens when it has a list.
#[derive(Clone, Debug)]
struct Qualified {
    parts: Vec<(String, Option<Vec<Vec<Token>>>)>,
}

/// `std::enable_if_t<C, T>` as `std::enable_if<C, T>::type`: the `_t`
/// aliases of `<type_traits>` name their trait's `type`.
fn expand_std_alias(mut q: Qualified) -> Qualified {
    let plain = |k: usize, name: &str| {
        q.parts
            .get(k)
            .is_some_and(|(n, a)| n == name && a.is_none())
    };
    let is_std = plain(0, "std") && q.parts.len() == 2;
    let in_cuda_std = plain(0, "cuda") && plain(1, "std") && !plain(2, "__4");
    let is_cuda_std = in_cuda_std && q.parts.len() == 3;
    if in_cuda_std && q.parts.len() >= 3 {
        // libcu++'s names live in the inline namespace `cuda::std::__4`,
        // which a mangled name spells out.
        q.parts.insert(2, ("__4".to_string(), None));
    }
    if let (true, Some((last, Some(_)))) = (is_std || is_cuda_std, q.parts.last_mut()) {
        if let Some(trait_name) = last.strip_suffix("_t") {
            *last = trait_name.to_string();
            q.parts.push(("type".to_string(), None));
        }
    }
    q
}

/// `N <prefix> <template-args> ... <name> E`: `std` is `St`, each
/// component a candidate when its mangling ends (the template's name
/// before its arguments, then the instance, then the member).
fn nested_type(m: &mut Mangler, cx: &Context<'_>, q: &Qualified) -> Option<String> {
    let mut out = String::from("N");
    let mut key = String::new();
    for (k, (name, args)) in q.parts.iter().enumerate() {
        if k == 0 && name == "std" && args.is_none() {
            out.push_str("St");
            key.push_str("St");
            continue;
        }
        let text = source_name(name);
        out.push_str(&text);
        key.push_str(&text);
        let Some(args) = args else {
            if k + 1 < q.parts.len() {
                m.candidates.push(format!("dependent {key}"));
            }
            continue;
        };
        m.candidates.push(format!("dependent {key}"));
        let written = template_args(m, cx, &qualified_key(q, k), args)?;
        out.push_str(&written);
        key.push_str(&written);
        m.candidates.push(format!("dependent {key}"));
    }
    m.candidates.push(format!("dependent {key}"));
    out.push('E');
    Some(out)
}

/// The key of the class template that component `k` of `q` names
/// (`std::enable_if`).
fn qualified_key(q: &Qualified, k: usize) -> String {
    let names: Vec<&str> = q.parts[..=k]
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| *n != "__4")
        .collect();
    names.join("::")
}

/// `I <template-arg>+ E`: the written arguments of class template
/// `key`, then its defaults for the parameters left.
fn template_args(
    m: &mut Mangler,
    cx: &Context<'_>,
    key: &str,
    written: &[Vec<Token>],
) -> Option<String> {
    let mut out = String::from("I");
    for arg in written {
        out.push_str(&template_arg(m, cx, arg)?);
    }
    if let Some(&i) = cx.classes.by_name.get(key) {
        let params = &cx.classes.templates[i].params;
        for p in params.iter().skip(written.len()) {
            out.push_str(&template_arg(m, cx, p.default.as_deref()?)?);
        }
    }
    out.push('E');
    Some(out)
}

/// One template argument's tokens: a type (a template parameter, a
/// builtin type) or a value (`X <expression> E`, `Lb1E`).
fn template_arg(m: &mut Mangler, cx: &Context<'_>, tokens: &[Token]) -> Option<String> {
    if let Some(ty) = simple_type(m, cx, tokens) {
        return Some(ty);
    }
    if let [t] = tokens {
        match t.kind {
            TokenKind::Keyword(Keyword::True) => return Some("Lb1E".to_string()),
            TokenKind::Keyword(Keyword::False) => return Some("Lb0E".to_string()),
            _ => {}
        }
    }
    Some(format!("X{}E", expression(m, cx, tokens)?))
}

/// A template parameter or a builtin type, with `*`s after it.
fn simple_type(m: &mut Mangler, cx: &Context<'_>, tokens: &[Token]) -> Option<String> {
    let stars = tokens
        .iter()
        .rev()
        .take_while(|t| t.kind == TokenKind::Punct(Punct::Star))
        .count();
    let base = &tokens[..tokens.len() - stars];
    let mut ty = match base {
        [t] if t.kind == TokenKind::Ident => {
            let i = cx.template.params.iter().position(|p| *p.name == *t.text)?;
            crate::types::template_param(i, &cx.template.params[i].name)
        }
        _ => builtin_named(base)?,
    };
    for _ in 0..stars {
        ty = CType::ptr_to(ty);
    }
    Some(m.ty(&ty, Quals::NONE, &Spelling::Plain))
}

/// A builtin type written as keywords (`void`, `int`, `float`, ...).
fn builtin_named(tokens: &[Token]) -> Option<CType> {
    let [t] = tokens else {
        return None;
    };
    let ty = match t.kind {
        TokenKind::Keyword(Keyword::Void) => CType::Void,
        TokenKind::Keyword(Keyword::Bool) => CType::Bool,
        TokenKind::Keyword(Keyword::Int) => CType::INT,
        TokenKind::Keyword(Keyword::Float) => CType::FLOAT,
        TokenKind::Keyword(Keyword::Double) => CType::DOUBLE,
        _ => return None,
    };
    builtin(&ty, &Spelling::Plain).map(|_| ty)
}

/// 5.1.6 `<expression>` of a value argument: `ns::tmpl<args>::name` as
/// `sr <levels> E <name>`, `!` of a value as `nt`.
fn expression(m: &mut Mangler, cx: &Context<'_>, tokens: &[Token]) -> Option<String> {
    if let Some((at, code)) = lowest_binary(cx, tokens) {
        // 5.1.6 `<binary operator-name> <expression> <expression>`.
        let lhs = expression(m, cx, &tokens[..at])?;
        let rhs = expression(m, cx, &tokens[at + 1..])?;
        return Some(format!("{code}{lhs}{rhs}"));
    }
    if let Some(primary) = primary(m, cx, tokens) {
        return Some(primary);
    }
    if let [first, rest @ ..] = tokens {
        if first.kind == TokenKind::Punct(Punct::Bang) {
            return Some(format!("nt{}", expression(m, cx, rest)?));
        }
        if first.kind == TokenKind::Punct(Punct::LParen)
            && tokens.last()?.kind == TokenKind::Punct(Punct::RParen)
        {
            return expression(m, cx, &tokens[1..tokens.len() - 1]);
        }
    }
    let mut r = Reader { tokens, pos: 0 };
    let q = r.qualified()?;
    let (last, last_args) = q.parts.last()?;
    if !r.done() || q.parts.len() < 2 || last_args.is_some() {
        return None;
    }
    // The qualifier levels are written out, and are no candidates (only
    // the template parameters in their arguments are), as nvcc counts.
    let mut out = String::from("sr");
    for (name, args) in &q.parts[..q.parts.len() - 1] {
        out.push_str(&source_name(name));
        if let Some(args) = args {
            out.push('I');
            for a in args {
                out.push_str(&template_arg(m, cx, a)?);
            }
            out.push('E');
        }
    }
    out.push('E');
    out.push_str(&source_name(last));
    Some(out)
}

/// The binary operators of a template argument's expression, by
/// precedence (loosest first), with their Itanium codes (5.1.6).
const BINARY: &[&[(Punct, &str)]] = &[
    &[(Punct::OrOr, "oo")],
    &[(Punct::AndAnd, "aa")],
    &[(Punct::Pipe, "or")],
    &[(Punct::Caret, "eo")],
    &[(Punct::Amp, "an")],
    &[(Punct::EqEq, "eq"), (Punct::Ne, "ne")],
    &[
        (Punct::Lt, "lt"),
        (Punct::Gt, "gt"),
        (Punct::Le, "le"),
        (Punct::Ge, "ge"),
    ],
    &[(Punct::Shl, "ls"), (Punct::Shr, "rs")],
    &[(Punct::Plus, "pl"), (Punct::Minus, "mi")],
    &[
        (Punct::Star, "ml"),
        (Punct::Slash, "dv"),
        (Punct::Percent, "rm"),
    ],
];

/// The operator an expression's tokens apply last: of the loosest level
/// with one outside parentheses and template argument lists, the
/// rightmost (the operators associate to the left). A `-` or `*` with no
/// operand before it is unary, not one; a `<` after a name that is not
/// one of the template's parameters opens a template's arguments
/// (`std::is_same<T, float>::value`).
fn lowest_binary(cx: &Context<'_>, tokens: &[Token]) -> Option<(usize, &'static str)> {
    let is_param = |t: &Token| cx.template.params.iter().any(|p| *p.name == *t.text);
    for level in BINARY {
        let mut depth = 0i32;
        let mut angles = 0i32;
        let mut found = None;
        for (k, t) in tokens.iter().enumerate() {
            let TokenKind::Punct(p) = t.kind else {
                continue;
            };
            let after_name =
                k > 0 && tokens[k - 1].kind == TokenKind::Ident && !is_param(&tokens[k - 1]);
            match p {
                Punct::LParen => depth += 1,
                Punct::RParen => depth -= 1,
                Punct::Lt if depth == 0 && (angles > 0 || after_name) => angles += 1,
                Punct::Gt if depth == 0 && angles > 0 => angles -= 1,
                _ if angles > 0 => {}
                _ if depth == 0 && k > 0 => {
                    if let Some(&(_, code)) = level.iter().find(|(q, _)| *q == p) {
                        found = Some((k, code));
                    }
                }
                _ => {}
            }
        }
        if found.is_some() {
            return found;
        }
    }
    None
}

/// An integer literal (`L <type> <value> E`), a template parameter
/// (`T_`), `sizeof(type)` (`st <type>`) or `sizeof(expression)` (`sz`).
fn primary(m: &mut Mangler, cx: &Context<'_>, tokens: &[Token]) -> Option<String> {
    match tokens {
        [t] => match &t.kind {
            TokenKind::Int { value, ty } => {
                let code = m.ty(ty, Quals::NONE, &Spelling::Plain);
                Some(format!("L{code}{value}E"))
            }
            TokenKind::Keyword(Keyword::True) => Some("Lb1E".to_string()),
            TokenKind::Keyword(Keyword::False) => Some("Lb0E".to_string()),
            TokenKind::Ident => simple_type(m, cx, tokens),
            _ => None,
        },
        [kw, open, inner @ .., close]
            if kw.kind == TokenKind::Keyword(Keyword::Sizeof)
                && open.kind == TokenKind::Punct(Punct::LParen)
                && close.kind == TokenKind::Punct(Punct::RParen) =>
        {
            if let Some(ty) = simple_type(m, cx, inner) {
                return Some(format!("st{ty}"));
            }
            Some(format!("sz{}", expression(m, cx, inner)?))
        }
        _ => None,
    }
}

/// A cursor over a type's or an argument's tokens.
struct Reader<'a> {
    tokens: &'a [Token],
    pos: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.pos == self.tokens.len()
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn eat_kw(&mut self, kw: Keyword) -> bool {
        let found = self
            .peek()
            .is_some_and(|t| t.kind == TokenKind::Keyword(kw));
        self.pos += usize::from(found);
        found
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let found = self.peek().is_some_and(|t| t.kind == TokenKind::Punct(p));
        self.pos += usize::from(found);
        found
    }

    /// `[::] name [<args>] (:: name [<args>])*`.
    fn qualified(&mut self) -> Option<Qualified> {
        self.eat_punct(Punct::ColonColon);
        let mut parts = Vec::new();
        loop {
            let t = self.peek()?;
            if t.kind != TokenKind::Ident {
                return None;
            }
            let name = t.text.to_string();
            self.pos += 1;
            let args = if self
                .peek()
                .is_some_and(|t| t.kind == TokenKind::Punct(Punct::Lt))
            {
                Some(self.template_args()?)
            } else {
                None
            };
            parts.push((name, args));
            if !self.eat_punct(Punct::ColonColon) {
                return Some(Qualified { parts });
            }
            self.eat_kw(Keyword::Template);
        }
    }

    /// `< arg, ... >`: each argument's tokens, split at the commas of
    /// this list (not of nested lists or parentheses).
    fn template_args(&mut self) -> Option<Vec<Vec<Token>>> {
        self.pos += 1;
        let mut args = Vec::new();
        let mut current = Vec::new();
        let mut depth = 0usize;
        loop {
            let t = self.peek()?.clone();
            self.pos += 1;
            match t.kind {
                TokenKind::Punct(Punct::Lt | Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::Gt | Punct::RParen) if depth > 0 => depth -= 1,
                TokenKind::Punct(Punct::Gt) => {
                    args.push(current);
                    return Some(args);
                }
                TokenKind::Punct(Punct::Shr) => return None,
                TokenKind::Punct(Punct::Comma) if depth == 0 => {
                    args.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(t);
        }
    }
}
