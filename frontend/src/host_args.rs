//! The types of a kernel launch's arguments in host code, which deduce a
//! kernel template's arguments (`k<<<g, b>>>(d_x, n)` of `template
//! <typename T> __global__ void k(T *, int)` is `k<float>` when `d_x` is a
//! `float *`).
//!
//! Host code is never parsed (`crate::split`), and typing C++ host
//! expressions in general would take a C++ compiler. But a launch's
//! arguments are nearly always host variables, literals, casts and a
//! little arithmetic, and the checker types all of those already. So each
//! argument becomes a device expression of the same type: every host
//! variable it names is replaced by a *stand-in* of the variable's
//! declared type, `(*(float **)0)` for `float *d_x;` (what C++'s
//! `std::declval` stands for, spelled in C), and the checker types the
//! result like any expression (the usual arithmetic conversions, literal
//! suffixes, `sizeof`, casts; a character literal is made a `char` and
//! `5LL` a `long long`, as C++ has them). A variable is found as C++ finds it: the
//! nearest declaration before the launch in the enclosing host function
//! whose block is still open (its parameters included), else a file-scope
//! one. A declaration is read from its tokens: declaration specifiers
//! (keywords, a possibly qualified type name with template arguments),
//! then declarators (`*`, `&`, `const`, the name, array bounds, an
//! initializer); `auto` takes its initializer's stand-in. Names of a host
//! function template's parameters are replaced by the arguments it was
//! instantiated with. What is left unknown (a host-only type, a call of a
//! host function, a lambda) makes the checker fail on that argument, and
//! the launch's error names it (E0019) where deduction needs it.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diag::Span;
use crate::host_lambdas::Shape;
use crate::token::{template_args, Keyword, NameBefore, Punct, Token, TokenKind};

/// A launch's argument, ready for the checker to type.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArg {
    /// The argument with its host variables replaced by stand-ins.
    pub tokens: Vec<Token>,
    /// The argument as written.
    pub span: Span,
    /// Its text as written, for messages.
    pub text: String,
}

/// A capture of a host lambda's stand-in: the member's name and the
/// stand-in of what it copies, or (`name` none) a capture kept as written.
struct Captured {
    name: Option<String>,
    span: Span,
    value: Vec<Token>,
}

/// How deep `auto` variables' initializers are followed.
const MAX_AUTO_DEPTH: usize = 8;

/// Where a launch's names are looked up.
pub(crate) struct HostScope<'a, 't> {
    pub tokens: &'t [Token],
    /// The enclosing host function: its tokens' range and where its body
    /// starts (its parameters are declared before that).
    pub function: (usize, usize),
    pub body: usize,
    /// The file-scope declarations host code may name: token ranges.
    pub globals: &'a [(usize, usize)],
    /// The enclosing host template's parameters, bound to their arguments.
    pub bindings: &'a FxHashMap<&'t str, Vec<Token>>,
    /// Where each identifier of `tokens` occurs.
    pub occurrences: &'a Occurrences<'t>,
    /// The names of the file's templates that host code may name.
    pub templates: &'a FxHashSet<&'t str>,
}

/// Where each identifier occurs in a token sequence, in order: a host
/// variable's declaration is looked for among its name's occurrences
/// rather than by reading every token before the use (a launch's
/// arguments name many things that are not host variables, whose search
/// would otherwise read the whole function and every file-scope
/// declaration).
pub(crate) struct Occurrences<'t>(FxHashMap<&'t str, Vec<usize>>);

impl<'t> Occurrences<'t> {
    pub fn of(tokens: &'t [Token]) -> Occurrences<'t> {
        let mut at: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
        for (i, t) in tokens.iter().enumerate() {
            if t.kind == TokenKind::Ident {
                at.entry(t.text.as_str()).or_default().push(i);
            }
        }
        Occurrences(at)
    }

    /// The occurrences of `name` in `start..end`, last first.
    fn within(&self, name: &str, start: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
        let all = self.0.get(name).map_or(&[][..], Vec::as_slice);
        let from = all.partition_point(|&i| i < start);
        let to = all.partition_point(|&i| i < end);
        all[from..to.max(from)].iter().rev().copied()
    }
}

impl<'t> HostScope<'_, 't> {
    /// The arguments of the call whose `(` is at `open`.
    pub fn launch_args(&self, open: usize) -> Vec<HostArg> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut start = open + 1;
        let mut i = open;
        while i + 1 < self.function.1 {
            i += 1;
            // `List<A, B>{}` is one argument.
            if let Some(close) = self.template_list_end(i) {
                i = close;
                continue;
            }
            match self.tokens[i].kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen) if depth == 0 => {
                    if start < i {
                        out.push(self.arg(start, i));
                    }
                    return out;
                }
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                    depth = depth.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Comma) if depth == 0 => {
                    out.push(self.arg(start, i));
                    start = i + 1;
                }
                _ => {}
            }
        }
        out
    }

    /// Where the template argument list that a `<` at `lt` opens closes,
    /// if it opens one: after a template's name, or after a name that is
    /// neither a known template nor a host variable when what follows the
    /// close is what follows a template-id in an expression
    /// (`crate::token::template_args`). A `<` after a variable compares
    /// (`f(a < b, c > (d))` has two arguments).
    fn template_list_end(&self, lt: usize) -> Option<usize> {
        let name = &self.tokens[lt.checked_sub(1)?];
        if self.tokens[lt].kind != TokenKind::Punct(Punct::Lt) || name.kind != TokenKind::Ident {
            return None;
        }
        let known = if self.templates.contains(name.text.as_str()) {
            NameBefore::Template
        } else if self.declaration(&name.text, lt - 1).is_some() {
            NameBefore::NotTemplate
        } else {
            NameBefore::Unknown
        };
        let list = template_args(self.tokens, lt, self.function.1, known).ok()?;
        Some(list.close)
    }

    /// The expression `start..end` with its host variables replaced by
    /// their stand-ins.
    pub fn expression(&self, start: usize, end: usize) -> Vec<Token> {
        self.stand_in_expr(start, end, 0)
    }

    fn arg(&self, start: usize, end: usize) -> HostArg {
        let span = self.tokens[start].span.to(self.tokens[end - 1].span);
        let text = self.tokens[start..end]
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        HostArg {
            tokens: self.stand_in_expr(start, end, 0),
            span,
            text,
        }
    }

    /// The tokens `start..end` of an expression with each host variable
    /// replaced by its stand-in and each bound template parameter by its
    /// argument; a lambda becomes [`HostScope::lambda_stand_in`].
    fn stand_in_expr(&self, start: usize, end: usize, depth: usize) -> Vec<Token> {
        let mut out = Vec::new();
        let mut i = start;
        while i < end {
            let lambda = crate::host_lambdas::lambda_at(self.tokens, i, self.function.1)
                .filter(|shape| shape.body_end <= end);
            if let Some(shape) = lambda {
                out.extend(self.lambda_stand_in(i, &shape, depth));
                i = shape.body_end;
                continue;
            }
            if let Some(open) = cast_to_own_type(self.tokens, i, end) {
                i = open;
                continue;
            }
            self.stand_in_token(i, start, end, depth, &mut out);
            i += 1;
        }
        out
    }

    /// The stand-in of the token at `i` of the expression `start..end`.
    fn stand_in_token(
        &self,
        i: usize,
        start: usize,
        end: usize,
        depth: usize,
        out: &mut Vec<Token>,
    ) {
        let t = &self.tokens[i];
        let after_member = i > start
            && matches!(
                self.tokens[i - 1].kind,
                TokenKind::Punct(Punct::Dot | Punct::Arrow | Punct::ColonColon)
            );
        let before = |p: Punct| {
            self.tokens
                .get(i + 1)
                .is_some_and(|n| i + 1 < end && n.kind == TokenKind::Punct(p))
        };
        if let Some(ty) = literal_type(t) {
            out.push(punct(Punct::LParen, t.span));
            out.push(punct(Punct::LParen, t.span));
            out.extend(ty.iter().map(|&k| Token {
                kind: TokenKind::Keyword(k),
                text: k.as_str().into(),
                span: t.span,
            }));
            out.push(punct(Punct::RParen, t.span));
            out.push(t.clone());
            out.push(punct(Punct::RParen, t.span));
            return;
        }
        if t.kind != TokenKind::Ident || after_member || before(Punct::ColonColon) {
            out.push(t.clone());
            return;
        }
        if let Some(v) = self.bindings.get(t.text.as_str()) {
            // A template template parameter names its argument's template
            // (`Cmp<T>()` is `Less<int>()`), and an argument of a template
            // argument list is one as written: no parentheses around them
            // (an expression's value already has its own).
            let after = |p: Punct| i > start && self.tokens[i - 1].kind == TokenKind::Punct(p);
            let in_list = (after(Punct::Lt) || after(Punct::Comma))
                && (before(Punct::Gt) || before(Punct::Comma) || before(Punct::Shr));
            if before(Punct::Lt) || in_list {
                out.extend(v.iter().cloned());
                return;
            }
            out.push(punct(Punct::LParen, t.span));
            out.extend(v.iter().cloned());
            out.push(punct(Punct::RParen, t.span));
            return;
        }
        let stand_in = (!before(Punct::LParen) && depth < MAX_AUTO_DEPTH)
            .then(|| self.variable(&t.text, i, depth))
            .flatten();
        match stand_in {
            Some(s) => out.extend(s),
            None => out.push(t.clone()),
        }
    }

    /// The stand-in of the lambda whose `[` is at `open` (`shape` read
    /// it): the lambda as written, with its captures made explicit, each
    /// initialized from its host variable's stand-in (`[=]` capturing `s`
    /// is `[s = (*(float *)0)]`), and in its body the host template
    /// parameters bound and the host constants replaced by their values
    /// (which nvcc's lambdas read in place of the names, captured or not).
    fn lambda_stand_in(&self, open: usize, shape: &Shape, depth: usize) -> Vec<Token> {
        let close = shape.params_at - 1;
        let mut out = vec![self.tokens[open].clone()];
        for (k, c) in self
            .lambda_captures(open, shape, depth)
            .into_iter()
            .enumerate()
        {
            if k > 0 {
                out.push(punct(Punct::Comma, c.span));
            }
            let Some(name) = c.name else {
                out.extend(c.value);
                continue;
            };
            out.push(Token {
                kind: TokenKind::Ident,
                text: name.into(),
                span: c.span,
            });
            out.push(punct(Punct::Assign, c.span));
            out.push(punct(Punct::LParen, c.span));
            out.extend(c.value);
            out.push(punct(Punct::RParen, c.span));
        }
        out.push(self.tokens[close].clone());
        for j in shape.params_at..shape.body_end {
            let t = &self.tokens[j];
            if let Some(v) = self
                .bindings
                .get(t.text.as_str())
                .filter(|_| self.names(j, &t.text))
            {
                // A template parameter's argument, as `crate::host_uses`
                // wrote it (an expression in parentheses, a type as is).
                out.extend(v.iter().cloned());
                continue;
            }
            let value = if t.kind != TokenKind::Ident || !self.names(j, &t.text) {
                None
            } else if !self.declared_in(&t.text, shape.params_at, j) {
                self.constant_value(&t.text, open, depth)
            } else {
                None
            };
            match value {
                Some(v) => {
                    out.push(punct(Punct::LParen, t.span));
                    out.extend(v);
                    out.push(punct(Punct::RParen, t.span));
                }
                None => out.push(t.clone()),
            }
        }
        out
    }

    /// What the lambda whose `[` is at `open` captures: the captures it
    /// writes, then with a capture default each host variable its body
    /// names (not its own parameters and locals), in that order.
    fn lambda_captures(&self, open: usize, shape: &Shape, depth: usize) -> Vec<Captured> {
        let close = shape.params_at - 1;
        let mut captures = Vec::new();
        let mut default = false;
        for (s, e) in top_level_items(self.tokens, open + 1, close) {
            let item = &self.tokens[s..e];
            let is_punct = |t: &Token, p: Punct| t.kind == TokenKind::Punct(p);
            match item {
                [d] if is_punct(d, Punct::Assign) || is_punct(d, Punct::Amp) => default = true,
                [amp, name] if is_punct(amp, Punct::Amp) && name.kind == TokenKind::Ident => {
                    captures.push(self.captured(name, open, depth));
                }
                [name] if name.kind == TokenKind::Ident => {
                    captures.push(self.captured(name, open, depth));
                }
                [name, eq, ..] if name.kind == TokenKind::Ident && is_punct(eq, Punct::Assign) => {
                    captures.push(Captured {
                        name: Some(name.text.to_string()),
                        span: name.span,
                        value: self.stand_in_expr(s + 2, e, depth + 1),
                    });
                }
                [name, _, .., _] if name.kind == TokenKind::Ident => {
                    // `x{init}`, `x(init)`.
                    captures.push(Captured {
                        name: Some(name.text.to_string()),
                        span: name.span,
                        value: self.stand_in_expr(s + 2, e - 1, depth + 1),
                    });
                }
                // `this`, `*this`: kept, and refused where it is read.
                _ => captures.push(Captured {
                    name: None,
                    span: self.tokens[s].span,
                    value: item.to_vec(),
                }),
            }
        }
        if !default {
            return captures;
        }
        for j in shape.body_open..shape.body_end {
            let t = &self.tokens[j];
            let qualifier = self
                .tokens
                .get(j + 1)
                .is_some_and(|n| n.kind == TokenKind::Punct(Punct::ColonColon));
            let known = captures.iter().any(|c| c.name.as_deref() == Some(&t.text));
            if known || qualifier || !self.names(j, &t.text) {
                continue;
            }
            if !self.declared_in(&t.text, shape.params_at, j)
                && self.local_declaration(&t.text, open).is_some()
            {
                captures.push(self.captured(t, open, depth));
            }
        }
        captures
    }

    /// The capture of the host variable `name` by the lambda whose `[` is
    /// at `open`: a copy of its stand-in (of the name itself when it has
    /// none, which the checker then reports).
    fn captured(&self, name: &Token, open: usize, depth: usize) -> Captured {
        let value = self
            .local_declaration(&name.text, open)
            .and_then(|d| self.stand_in(&d, name.span, depth + 1))
            .unwrap_or_else(|| vec![name.clone()]);
        Captured {
            name: Some(name.text.to_string()),
            span: name.span,
            value,
        }
    }

    /// Whether `name` is declared in `from..=at` (a lambda's own
    /// parameter or local, which hides a host variable from there on).
    fn declared_in(&self, name: &str, from: usize, at: usize) -> bool {
        (from..=at).any(|k| self.names(k, name) && declarator_at(self.tokens, from, k).is_some())
    }

    /// The declaration of the local `name` of the enclosing function in
    /// scope at `use_at`.
    fn local_declaration(&self, name: &str, use_at: usize) -> Option<Declarator> {
        let (fn_start, _) = self.function;
        self.occurrences
            .within(name, fn_start, use_at)
            .find_map(|j| {
                (self.names(j, name) && self.in_scope(j, use_at))
                    .then(|| declarator_at(self.tokens, fn_start, j))
                    .flatten()
            })
    }

    /// The value of the `const`/`constexpr` local `name` in scope at
    /// `use_at`, if its initializer is a constant (literals, and
    /// arithmetic on them and on other such constants): what nvcc's
    /// lambdas read in place of the name, captured or not.
    fn constant_value(&self, name: &str, use_at: usize, depth: usize) -> Option<Vec<Token>> {
        let d = self.local_declaration(name, use_at)?;
        let is_const = d.specs.iter().any(|&i| {
            matches!(
                self.tokens[i].kind,
                TokenKind::Keyword(Keyword::Const | Keyword::Constexpr)
            )
        });
        let (s, e) = d
            .init
            .filter(|_| is_const && !d.array && depth < MAX_AUTO_DEPTH)?;
        let constant = (s..e).all(|i| match &self.tokens[i].kind {
            TokenKind::Ident => self
                .constant_value(&self.tokens[i].text, i, depth + 1)
                .is_some(),
            TokenKind::Keyword(k) => k.starts_type() || *k == Keyword::Sizeof,
            TokenKind::Str(_) | TokenKind::Invalid(_) => false,
            _ => true,
        });
        constant.then(|| self.stand_in_expr(s, e, depth + 1))
    }

    /// The stand-in of the variable `name` used at `use_at`: the nearest
    /// declaration in scope in the function, else at file scope.
    fn variable(&self, name: &str, use_at: usize, depth: usize) -> Option<Vec<Token>> {
        let d = self.declaration(name, use_at)?;
        self.stand_in(&d, self.tokens[use_at].span, depth)
    }

    /// The declaration of the variable `name` used at `use_at`: the
    /// nearest in scope in the function, else at file scope.
    fn declaration(&self, name: &str, use_at: usize) -> Option<Declarator> {
        let (fn_start, _) = self.function;
        for j in self.occurrences.within(name, fn_start, use_at) {
            if self.names(j, name) && self.in_scope(j, use_at) {
                if let Some(d) = declarator_at(self.tokens, fn_start, j) {
                    return Some(d);
                }
            }
        }
        for &(start, end) in self.globals.iter().rev() {
            for j in self.occurrences.within(name, start, end) {
                if self.names(j, name) {
                    if let Some(d) = declarator_at(self.tokens, start, j) {
                        return Some(d);
                    }
                }
            }
        }
        None
    }

    /// Whether token `j` is `name`, not a member's.
    fn names(&self, j: usize, name: &str) -> bool {
        let t = &self.tokens[j];
        t.kind == TokenKind::Ident
            && t.text == name
            && !(j > 0
                && matches!(
                    self.tokens[j - 1].kind,
                    TokenKind::Punct(Punct::Dot | Punct::Arrow | Punct::ColonColon)
                ))
    }

    /// Whether a declaration at `decl` is in scope at `use_at`: a
    /// parameter always, a local while no `}` closes its block between.
    fn in_scope(&self, decl: usize, use_at: usize) -> bool {
        if decl < self.body {
            return true;
        }
        let mut depth = 0isize;
        for t in &self.tokens[decl..use_at] {
            match t.kind {
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// The stand-in expression of a declared variable. Its synthetic
    /// tokens, and its type's, are where it is used (`span`); an `auto`
    /// variable's initializer keeps its own place (a lambda's tokens are
    /// how its closure type is found).
    fn stand_in(&self, d: &Declarator, span: Span, depth: usize) -> Option<Vec<Token>> {
        let is_auto = d
            .specs
            .iter()
            .any(|&i| is_kw(&self.tokens[i], Keyword::Auto));
        if is_auto {
            let (s, e) = d.init.filter(|_| !d.array)?;
            let mut out = vec![punct(Punct::LParen, span)];
            out.extend(self.stand_in_expr(s, e, depth + 1));
            out.push(punct(Punct::RParen, span));
            return Some(out);
        }
        // `(*(TYPE *)0)`, or `((ELEM *)0)` for an array (what it decays
        // to, all that deduction by value sees).
        let mut ty = Vec::new();
        for &i in &d.specs {
            let t = &self.tokens[i];
            match t.kind {
                TokenKind::Keyword(k) if !is_type_word(k) => {}
                TokenKind::Ident => match self.bindings.get(t.text.as_str()) {
                    Some(v) if !self.is_qualifier(i) => ty.extend(v.iter().cloned()),
                    _ => ty.push(t.clone()),
                },
                _ => ty.push(t.clone()),
            }
        }
        ty.extend(d.pointer.iter().filter_map(|&i| {
            let t = &self.tokens[i];
            matches!(
                t.kind,
                TokenKind::Punct(Punct::Star)
                    | TokenKind::Keyword(Keyword::Const | Keyword::Volatile)
            )
            .then(|| t.clone())
        }));
        for t in &mut ty {
            t.span = span;
        }
        let mut out = vec![punct(Punct::LParen, span)];
        if !d.array {
            out.push(punct(Punct::Star, span));
        }
        out.push(punct(Punct::LParen, span));
        out.extend(ty);
        out.push(punct(Punct::Star, span));
        out.push(punct(Punct::RParen, span));
        out.push(Token {
            kind: TokenKind::Int {
                value: 0,
                ty: crate::types::CType::Int {
                    bits: 32,
                    signed: true,
                },
            },
            text: "0".into(),
            span,
        });
        out.push(punct(Punct::RParen, span));
        Some(out)
    }

    /// Whether the identifier at `i` is followed by `::` (a qualifier, not
    /// a template parameter).
    fn is_qualifier(&self, i: usize) -> bool {
        self.tokens
            .get(i + 1)
            .is_some_and(|t| t.kind == TokenKind::Punct(Punct::ColonColon))
    }
}

/// The C++ type of a literal whose type the checker, which types C, does
/// not say the same way, spelled as a cast: a character literal is a
/// `char` in C++ (an `int` in C), and `5LL` a `long long` (a 64-bit
/// integer that names would spell `long`).
fn literal_type(t: &Token) -> Option<&'static [Keyword]> {
    match &t.kind {
        TokenKind::Char(_) => Some(&[Keyword::Char]),
        TokenKind::Int { .. } => {
            let suffix = t.text.to_ascii_lowercase();
            let suffix = suffix.trim_end_matches('u');
            if !suffix.ends_with("ll") {
                return None;
            }
            Some(if t.text.to_ascii_lowercase().contains('u') {
                &[Keyword::Unsigned, Keyword::Long, Keyword::Long]
            } else {
                &[Keyword::Long, Keyword::Long]
            })
        }
        _ => None,
    }
}

/// For `std::forward<T>(` or `std::move(` at `at` (before `end`): the
/// index of the call's `(`. Either gives its operand's type, up to a
/// reference a kernel's by-value parameter does not see, so a launch's
/// argument is its operand's stand-in (`std::forward<Args>(args)...` in a
/// host variadic template).
fn cast_to_own_type(tokens: &[Token], at: usize, end: usize) -> Option<usize> {
    let is = |i: usize, p: Punct| i < end && tokens[i].kind == TokenKind::Punct(p);
    let std = tokens[at].kind == TokenKind::Ident && tokens[at].text == "std";
    if !std || !is(at + 1, Punct::ColonColon) || at + 2 >= end {
        return None;
    }
    let open = match tokens[at + 2].text.as_str() {
        "move" => at + 3,
        "forward" if is(at + 3, Punct::Lt) => angle_end(tokens, at + 3, end)? + 1,
        _ => return None,
    };
    is(open, Punct::LParen).then_some(open)
}

/// A declarator found by [`declarator_at`]: token indices.
struct Declarator {
    /// The declaration specifiers (`const float`, `std::size_t`).
    specs: Vec<usize>,
    /// The pointer part before the name (`*`, `* const`, `&`).
    pointer: Vec<usize>,
    array: bool,
    /// The initializer after `=`.
    init: Option<(usize, usize)>,
}

/// The declarator whose name is token `name`, when `name` is declared
/// there; `lo` bounds the search backwards.
fn declarator_at(tokens: &[Token], lo: usize, name: usize) -> Option<Declarator> {
    let start = declaration_start(tokens, lo, name);
    let (specs, mut i) = specifiers(tokens, start, name)?;
    loop {
        let pointer_start = i;
        while i < name && is_pointer_part(&tokens[i]) {
            i += 1;
        }
        if tokens.get(i)?.kind != TokenKind::Ident {
            return None;
        }
        let here = i;
        let pointer: Vec<usize> = (pointer_start..here).collect();
        i += 1;
        let mut array = false;
        while tokens.get(i)?.kind == TokenKind::Punct(Punct::LBracket) {
            array = true;
            i = skip_group(tokens, i)?;
        }
        let mut init = None;
        match tokens.get(i)?.kind {
            TokenKind::Punct(Punct::Assign) => {
                let end = expression_end(tokens, i + 1)?;
                init = Some((i + 1, end));
                i = end;
            }
            TokenKind::Punct(Punct::LParen | Punct::LBrace) => i = skip_group(tokens, i)?,
            _ => {}
        }
        if here == name {
            return Some(Declarator {
                specs,
                pointer,
                array,
                init,
            });
        }
        if here > name || tokens.get(i)?.kind != TokenKind::Punct(Punct::Comma) {
            return None;
        }
        i += 1;
    }
}

/// Where the declaration (or parameter) holding token `at` starts: after
/// the `;`, `{` or `}` before it, or after the `(` or `,` that opens a
/// parameter.
fn declaration_start(tokens: &[Token], lo: usize, at: usize) -> usize {
    let mut depth = 0usize;
    let mut comma = None;
    let mut i = at;
    while i > lo {
        i -= 1;
        if depth == 0 && tokens[i].kind == TokenKind::Punct(Punct::RBrace) {
            // `Image a{p, w}, b{q, w};`: an earlier declarator's braced
            // initializer, not the end of a block.
            if let Some(open) = braced_initializer(tokens, lo, i) {
                i = open;
                continue;
            }
        }
        match tokens[i].kind {
            TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth += 1,
            TokenKind::Punct(Punct::LParen | Punct::LBracket) if depth == 0 => {
                return comma.map_or(i + 1, |c| c + 1);
            }
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth -= 1,
            TokenKind::Punct(Punct::Comma) if depth == 0 && comma.is_none() => comma = Some(i),
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) if depth == 0 => {
                return i + 1;
            }
            _ => {}
        }
    }
    lo
}

/// For the `}` at `close`: the index of its `{` when the pair is a braced
/// initializer (after a declarator's name, `=` or `,`), `None` when it is
/// a block.
fn braced_initializer(tokens: &[Token], lo: usize, close: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = close;
    let open = loop {
        match tokens[i].kind {
            TokenKind::Punct(Punct::RBrace) => depth += 1,
            TokenKind::Punct(Punct::LBrace) => {
                depth -= 1;
                if depth == 0 {
                    break i;
                }
            }
            _ => {}
        }
        if i <= lo {
            return None;
        }
        i -= 1;
    };
    let before = tokens.get(open.checked_sub(1)?)?;
    matches!(
        before.kind,
        TokenKind::Ident
            | TokenKind::Punct(Punct::Assign | Punct::Comma | Punct::Gt | Punct::RBracket)
    )
    .then_some(open)
}

/// The declaration specifiers at `start` (before `limit`), and where the
/// declarators begin; `None` when `start` does not begin a declaration
/// (no type, or a word that begins a statement).
fn specifiers(tokens: &[Token], start: usize, limit: usize) -> Option<(Vec<usize>, usize)> {
    let mut specs = Vec::new();
    let mut typed = false;
    let mut i = start;
    while i < limit {
        let t = &tokens[i];
        match t.kind {
            TokenKind::Keyword(k) if is_specifier(k) => {
                typed |= is_type_word(k) && !matches!(k, Keyword::Const | Keyword::Volatile);
                specs.push(i);
                i += 1;
                if matches!(
                    k,
                    Keyword::Struct | Keyword::Class | Keyword::Union | Keyword::Enum
                ) {
                    typed = false;
                }
            }
            TokenKind::Ident | TokenKind::Punct(Punct::ColonColon) if !typed => {
                let end = type_name_end(tokens, i, limit)?;
                specs.extend(i..end);
                typed = true;
                i = end;
            }
            _ => break,
        }
    }
    typed.then_some((specs, i))
}

/// The end of a (possibly qualified, possibly templated) type name at `i`.
fn type_name_end(tokens: &[Token], mut i: usize, limit: usize) -> Option<usize> {
    if tokens[i].kind == TokenKind::Punct(Punct::ColonColon) {
        i += 1;
    }
    loop {
        if i >= limit || tokens[i].kind != TokenKind::Ident {
            return None;
        }
        i += 1;
        if i < limit && tokens[i].kind == TokenKind::Punct(Punct::Lt) {
            i = angle_end(tokens, i, limit)? + 1;
        }
        if i < limit && tokens[i].kind == TokenKind::Punct(Punct::ColonColon) {
            i += 1;
            continue;
        }
        return Some(i);
    }
}

/// The index of the `>` closing the template argument list of a type
/// name whose `<` is at `open` (a `>>` closing two).
fn angle_end(tokens: &[Token], open: usize, limit: usize) -> Option<usize> {
    let list = template_args(tokens, open, limit, NameBefore::Template).ok()?;
    Some(list.close)
}

/// The ranges of the comma-separated items of `start..end`, split at
/// the commas outside brackets.
fn top_level_items(tokens: &[Token], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut item = start;
    for (i, t) in tokens.iter().enumerate().take(end).skip(start) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Comma) if depth == 0 => {
                out.push((item, i));
                item = i + 1;
            }
            _ => {}
        }
    }
    if item < end {
        out.push((item, end));
    }
    out
}

/// Just past the bracketed group opening at `open`.
fn skip_group(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            TokenKind::Punct(Punct::Semi) => return None,
            _ => {}
        }
    }
    None
}

/// The end of an initializer at `start`: its `,` or `;` outside brackets,
/// or the `)` closing what holds it.
fn expression_end(tokens: &[Token], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(start) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) if depth == 0 => {
                return Some(i)
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
            TokenKind::Punct(Punct::Comma | Punct::Semi) if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// `*`, `&`, `&&`, the qualifiers and a parameter pack's `...` between a
/// declarator's specifiers and its name (`Args &&...args`: each element's
/// stand-in is the pack's, `(*(Args *)0)`, which an expansion writes out
/// per element, `crate::packs::expand_each`).
fn is_pointer_part(t: &Token) -> bool {
    matches!(
        t.kind,
        TokenKind::Punct(Punct::Star | Punct::Amp | Punct::AndAnd | Punct::Ellipsis)
            | TokenKind::Keyword(
                Keyword::Const
                    | Keyword::Volatile
                    | Keyword::Restrict
                    | Keyword::Restrict2
                    | Keyword::CRestrict
            )
    )
}

/// Keywords that may appear among a host variable's specifiers.
fn is_specifier(k: Keyword) -> bool {
    is_type_word(k)
        || matches!(
            k,
            Keyword::Static
                | Keyword::Extern
                | Keyword::Inline
                | Keyword::Register
                | Keyword::Constexpr
                | Keyword::Typename
        )
}

/// Keywords that are part of a type (what a stand-in's cast keeps).
fn is_type_word(k: Keyword) -> bool {
    k.starts_type() || k == Keyword::Auto
}

fn is_kw(t: &Token, k: Keyword) -> bool {
    t.kind == TokenKind::Keyword(k)
}

fn punct(p: Punct, span: Span) -> Token {
    Token {
        kind: TokenKind::Punct(p),
        text: p.as_str().into(),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stand-in expressions of the arguments of the one launch in
    /// `src`, a host function, as text.
    fn stand_ins(src: &str) -> Vec<String> {
        let (tokens, diags) = crate::lexer::lex_raw(src);
        assert!(diags.is_empty(), "{diags:?}");
        let open = (0..tokens.len())
            .find(|&i| tokens[i].text == ">>" && tokens[i + 1].text == ">")
            .expect("a launch")
            + 2;
        let body = tokens.iter().position(|t| t.text == "{").expect("a body");
        let bindings = FxHashMap::default();
        let scope = HostScope {
            tokens: &tokens,
            function: (0, tokens.len()),
            body,
            globals: &[],
            bindings: &bindings,
            occurrences: &Occurrences::of(&tokens),
            templates: &["List"].into_iter().collect(),
        };
        scope
            .launch_args(open)
            .iter()
            .map(|a| {
                let words: Vec<&str> = a.tokens.iter().map(|t| t.text.as_str()).collect();
                words.join(" ")
            })
            .collect()
    }

    #[test]
    fn host_variables_become_stand_ins_of_their_declared_types() {
        let got = stand_ins(
            "void f(const float *in, int n) {\n\
               float *a, b[4]; unsigned long long c = 1; auto d = a;\n\
               { int a; }\n\
               k<<<1, 1>>>(in, n * 2, a, b, c, d, (int *)a, x.y);\n\
             }",
        );
        assert_eq!(
            got,
            [
                "( * ( const float * * ) 0 )",
                "( * ( int * ) 0 ) * 2",
                "( * ( float * * ) 0 )",
                "( ( float * ) 0 )",
                "( * ( unsigned long long * ) 0 )",
                "( ( * ( float * * ) 0 ) )",
                "( int * ) ( * ( float * * ) 0 )",
                "x . y",
            ]
        );
    }

    /// A `<` after a host variable compares, so `f(a < b, c > (d))` is two
    /// arguments; after a template's name it opens a list even where a
    /// comma follows the close, and after an unknown name it does when a
    /// template-id's `{`, `(` or `::` follows.
    #[test]
    fn a_less_than_after_a_variable_opens_no_template_list() {
        let got = stand_ins(
            "void f(int a, int b, int c, int d) {\n\
               k<<<1, 1>>>(a < b, c > (d), List<int, 2>, Pair<int, 3>{});\n\
             }",
        );
        assert_eq!(
            got,
            [
                "( * ( int * ) 0 ) < ( * ( int * ) 0 )",
                "( * ( int * ) 0 ) > ( ( * ( int * ) 0 ) )",
                "List < int , 2 >",
                "Pair < int , 3 > { }",
            ]
        );
    }

    #[test]
    fn lambdas_capture_host_variables_explicitly_and_read_constants_as_values() {
        let got = stand_ins(
            "void f(float *d) {\n\
               const float k = 2; float b = 1, c = 3;\n\
               auto g = [=] __device__ (float x) { float c = x; return k * c + b; };\n\
               k<<<1, 1>>>(g, [c, n = b + 1] __device__ (int i) { return i + c + n; });\n\
             }",
        );
        assert_eq!(
            got,
            [
                "( [ k = ( ( * ( const float * ) 0 ) ) , b = ( ( * ( float * ) 0 ) ) ] \
                 __device__ ( float x ) { float c = x ; return ( 2 ) * c + b ; } )",
                "[ c = ( ( * ( float * ) 0 ) ) , n = ( ( * ( float * ) 0 ) + 1 ) ] \
                 __device__ ( int i ) { return i + c + n ; }",
            ]
        );
    }

    #[test]
    fn names_that_are_not_declarations_stay_as_written() {
        // `n = 4;` assigns, `g(p)` calls: neither declares; `q` is declared
        // in a block closed before the launch.
        let got = stand_ins("void f() { n = 4; g(p); { float *q; } k<<<1, 1>>>(n, p, q, g(n)); }");
        assert_eq!(got, ["n", "p", "q", "g ( n )"]);
    }
}
