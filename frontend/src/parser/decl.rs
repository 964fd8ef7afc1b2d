//! Declarations: function headers, declaration specifiers, declarators and
//! type names.

use super::{PResult, Parser};
use crate::ast::{FnSpecs, FunctionDecl, ParamDecl, QualType, VarDecl};
use crate::diag::Span;
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;

/// Typedef-like names kernelc knows without headers (all LP64).
pub(crate) fn named_type(name: &str) -> Option<CType> {
    let (bits, signed) = match name {
        "size_t" | "uintptr_t" => (64, false),
        "ptrdiff_t" | "intptr_t" => (64, true),
        "int8_t" => (8, true),
        "uint8_t" => (8, false),
        "int16_t" => (16, true),
        "uint16_t" => (16, false),
        "int32_t" => (32, true),
        "uint32_t" => (32, false),
        "int64_t" => (64, true),
        "uint64_t" => (64, false),
        _ => return None,
    };
    Some(CType::Int { bits, signed })
}

/// Keywords that kernelc recognises only to reject, with the thing to name.
pub(crate) fn unsupported_keyword(k: Keyword) -> Option<&'static str> {
    use Keyword::*;
    Some(match k {
        Shared => "`__shared__` memory",
        Constant => "`__constant__` memory",
        Managed => "`__managed__` memory",
        Switch => "`switch`",
        Case => "`case`",
        Default => "`default`",
        Goto => "`goto`",
        Struct => "`struct`",
        Union => "`union`",
        Enum => "`enum`",
        Typedef => "`typedef`",
        Class => "`class`",
        Template | Typename => "`template`",
        New => "`new`",
        Delete => "`delete`",
        Namespace => "`namespace`",
        Using => "`using`",
        Auto => "`auto`",
        Register => "`register`",
        Operator => "`operator` overloading",
        This => "`this`",
        Throw | Try | Catch => "exception handling",
        Asm | Asm2 => "inline assembly",
        Nullptr => "`nullptr`",
        StaticCast | ReinterpretCast | ConstCast => "C++ named casts",
        Constexpr => "`constexpr`",
        Decltype => "`decltype`",
        _ => return None,
    })
}

/// Counts of type specifiers seen so far in one declaration.
#[derive(Default)]
struct TypeSpecs {
    void: u32,
    bool_: u32,
    char_: u32,
    short: u32,
    int: u32,
    long: u32,
    float: u32,
    double: u32,
    signed: u32,
    unsigned: u32,
    named: Option<CType>,
    is_const: bool,
    is_volatile: bool,
    restrict: Option<Span>,
    any: bool,
}

impl TypeSpecs {
    /// Resolves the specifier multiset to a type, or `None` if invalid.
    fn resolve(&self) -> Option<CType> {
        let s = self;
        let sign = s.signed + s.unsigned;
        let total =
            s.void + s.bool_ + s.char_ + s.short + s.int + s.long + s.float + s.double + sign;
        if let Some(t) = &s.named {
            return (total == 0).then(|| t.clone());
        }
        if sign > 1 || s.int > 1 {
            return None;
        }
        let only = |n: u32| total == n;
        let signed = s.unsigned == 0;
        if s.void == 1 {
            return only(1).then_some(CType::Void);
        }
        if s.bool_ == 1 {
            return only(1).then_some(CType::Bool);
        }
        if s.float == 1 {
            return only(1).then_some(CType::FLOAT);
        }
        if s.double == 1 {
            return only(1).then_some(CType::DOUBLE);
        }
        if s.char_ == 1 {
            return only(1 + sign).then_some(CType::Int { bits: 8, signed });
        }
        if s.short == 1 {
            return only(1 + sign + s.int).then_some(CType::Int { bits: 16, signed });
        }
        if s.long == 1 || s.long == 2 {
            return only(s.long + sign + s.int).then_some(CType::Int { bits: 64, signed });
        }
        (total > 0 && only(sign + s.int)).then_some(CType::Int { bits: 32, signed })
    }
}

impl Parser<'_> {
    /// Whether the current token can start a type name (for casts, sizeof and
    /// local declarations).
    pub(super) fn starts_type(&self, n: usize) -> bool {
        let t = self.peek_at(n);
        if self.at_eof_at(n) {
            return false;
        }
        match &t.kind {
            TokenKind::Keyword(k) => matches!(
                k,
                Keyword::Void
                    | Keyword::Bool
                    | Keyword::CBool
                    | Keyword::Char
                    | Keyword::Short
                    | Keyword::Int
                    | Keyword::Long
                    | Keyword::Float
                    | Keyword::Double
                    | Keyword::Signed
                    | Keyword::Unsigned
                    | Keyword::Const
                    | Keyword::Volatile
            ),
            TokenKind::Ident => named_type(&t.text).is_some(),
            _ => false,
        }
    }

    /// Parses declaration specifiers: function specifiers go to `fns` (when
    /// given), type specifiers and qualifiers to the returned base type.
    /// `None` means no type specifier was written at all.
    fn specifiers(&mut self, mut fns: Option<&mut FnSpecs>) -> PResult<(Option<QualType>, Span)> {
        let start = self.span();
        let mut ts = TypeSpecs::default();
        loop {
            let tok = self.peek().clone();
            if self.at_eof() {
                break;
            }
            match &tok.kind {
                TokenKind::Keyword(k) => {
                    let k = *k;
                    match k {
                        Keyword::Void => ts.void += 1,
                        Keyword::Bool | Keyword::CBool => ts.bool_ += 1,
                        Keyword::Char => ts.char_ += 1,
                        Keyword::Short => ts.short += 1,
                        Keyword::Int => ts.int += 1,
                        Keyword::Long => ts.long += 1,
                        Keyword::Float => ts.float += 1,
                        Keyword::Double => ts.double += 1,
                        Keyword::Signed => ts.signed += 1,
                        Keyword::Unsigned => ts.unsigned += 1,
                        Keyword::Const => ts.is_const = true,
                        Keyword::Volatile => ts.is_volatile = true,
                        Keyword::Restrict | Keyword::Restrict2 | Keyword::CRestrict => {
                            ts.restrict = Some(tok.span)
                        }
                        Keyword::Extern
                        | Keyword::Static
                        | Keyword::Inline
                        | Keyword::ForceInline
                        | Keyword::NoInline
                        | Keyword::Global
                        | Keyword::Device
                        | Keyword::Host => {
                            let Some(f) = fns.as_deref_mut() else {
                                let what = if k == Keyword::Static {
                                    "`static` local variables are".to_string()
                                } else {
                                    format!("`{}` here is", k.as_str())
                                };
                                return self.error(
                                    tok.span,
                                    format!("{what} not supported by kernelc yet"),
                                );
                            };
                            match k {
                                Keyword::Extern => {
                                    if matches!(&self.peek_at(1).kind, TokenKind::Str(s) if s == "C")
                                    {
                                        self.pos += 1;
                                        f.extern_c = true;
                                    } else if let TokenKind::Str(s) = &self.peek_at(1).kind {
                                        let msg =
                                            format!("unknown language linkage `extern \"{s}\"`");
                                        let span = self.peek_at(1).span;
                                        return self.error(span, msg);
                                    }
                                }
                                Keyword::Static => f.is_static = true,
                                Keyword::Inline => f.inline = true,
                                Keyword::ForceInline => f.forceinline = true,
                                Keyword::NoInline => f.noinline = true,
                                Keyword::Global => f.global = true,
                                Keyword::Device => f.device = true,
                                _ => f.host = true,
                            }
                        }
                        _ => {
                            if let Some(what) = unsupported_keyword(k) {
                                return self.error(
                                    tok.span,
                                    format!("{what} is not supported by kernelc yet"),
                                );
                            }
                            break;
                        }
                    }
                    ts.any = true;
                }
                TokenKind::Ident if ts.named.is_none() && named_type(&tok.text).is_some() => {
                    // `size_t` etc. act as type specifiers only if nothing else
                    // named the type yet (so `unsigned size_t` is rejected).
                    ts.named = named_type(&tok.text);
                    ts.any = true;
                }
                _ => break,
            }
            self.pos += 1;
        }
        let span = start.to(self.prev_span());
        if let Some(r) = ts.restrict {
            return self.error(
                r,
                "`__restrict__` requires a pointer type; write it after the `*`",
            );
        }
        let has_type = ts.void
            + ts.bool_
            + ts.char_
            + ts.short
            + ts.int
            + ts.long
            + ts.float
            + ts.double
            + ts.signed
            + ts.unsigned
            > 0
            || ts.named.is_some();
        if !has_type {
            return Ok((None, span));
        }
        match ts.resolve() {
            Some(ty) => Ok((
                Some(QualType {
                    ty,
                    is_const: ts.is_const,
                    is_volatile: ts.is_volatile,
                    span,
                }),
                span,
            )),
            None => self.error(span, "invalid combination of type specifiers"),
        }
    }

    /// Parses `*` with qualifiers (`* const __restrict__ *`) on top of `base`.
    fn pointers(&mut self, mut ty: QualType) -> QualType {
        while self.is_punct(Punct::Star) {
            let star = self.bump().span;
            let mut q = (false, false, false);
            loop {
                if self.eat_kw(Keyword::Const) {
                    q.0 = true;
                } else if self.eat_kw(Keyword::Volatile) {
                    q.1 = true;
                } else if self.eat_kw(Keyword::Restrict)
                    || self.eat_kw(Keyword::Restrict2)
                    || self.eat_kw(Keyword::CRestrict)
                {
                    q.2 = true;
                } else {
                    break;
                }
            }
            ty = QualType {
                ty: CType::Pointer {
                    pointee: Box::new(ty.ty),
                    pointee_const: ty.is_const,
                    pointee_volatile: ty.is_volatile,
                    restrict: q.2,
                },
                is_const: q.0,
                is_volatile: q.1,
                span: ty.span.to(star).to(self.prev_span()),
            };
        }
        ty
    }

    /// Rejects array and function declarators after a name.
    fn no_array_suffix(&mut self) -> PResult<()> {
        if self.is_punct(Punct::LBracket) {
            let span = self.span();
            return self.error(span, "arrays are not supported by kernelc yet");
        }
        Ok(())
    }

    /// A type name as in casts and `sizeof(...)`: specifiers and pointers.
    pub(super) fn type_name(&mut self) -> PResult<QualType> {
        let (base, span) = self.specifiers(None)?;
        match base {
            Some(b) => Ok(self.pointers(b)),
            None => self.error(span, "expected a type"),
        }
    }

    /// A local declaration `T a = 1, *b;` (the `;` is consumed).
    pub(super) fn local_decl(&mut self) -> PResult<Vec<VarDecl>> {
        let (base, span) = self.specifiers(None)?;
        let Some(base) = base else {
            return self.error(span, "expected a type");
        };
        let mut out = Vec::new();
        loop {
            let ty = self.pointers(base.clone());
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                let msg = format!("expected a variable name, found {}", self.found());
                let sp = self.span();
                return self.error(sp, msg);
            }
            let name_tok = self.bump();
            self.no_array_suffix()?;
            if self.is_punct(Punct::LParen) {
                let sp = self.span();
                return self.error(
                    sp,
                    "function declarations inside functions are not supported by kernelc",
                );
            }
            let init = if self.eat_punct(Punct::Assign) {
                Some(self.assign_expr()?)
            } else {
                None
            };
            let end = init.as_ref().map_or(name_tok.span, |e| e.span);
            out.push(VarDecl {
                name: name_tok.text,
                name_span: name_tok.span,
                ty,
                init,
                span: base.span.to(end),
            });
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::Semi, "after declaration")?;
        Ok(out)
    }

    /// A function prototype or definition at top level.
    pub(super) fn function_decl(&mut self, in_extern_c: bool) -> PResult<FunctionDecl> {
        let start = self.span();
        let mut specs = FnSpecs {
            extern_c: in_extern_c,
            ..FnSpecs::default()
        };
        let (base, spec_span) = self.specifiers(Some(&mut specs))?;
        let base = match base {
            Some(b) => b,
            None => {
                if self.peek().kind == TokenKind::Ident && self.is_punct_at(1, Punct::LParen) {
                    let name = self.peek().text.clone();
                    let sp = self.span();
                    return self.error(
                        sp,
                        format!("missing return type for function `{name}` (C does not allow implicit `int`)"),
                    );
                }
                if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                    let msg = format!("unknown type name `{}`", self.peek().text);
                    let sp = self.span();
                    return self.error(sp, msg);
                }
                let msg = format!("expected a function declaration, found {}", self.found());
                let sp = if spec_span == Span::default() {
                    self.span()
                } else {
                    spec_span
                };
                let sp = if self.at_eof() { sp } else { self.span() };
                return self.error(sp, msg);
            }
        };
        let ret = self.pointers(base);
        if self.peek().kind != TokenKind::Ident || self.at_eof() {
            let msg = format!("expected a function name, found {}", self.found());
            let sp = self.span();
            return self.error(sp, msg);
        }
        let name_tok = self.bump();
        if !self.is_punct(Punct::LParen) {
            let sp = name_tok.span;
            return self.error(sp, "global variables are not supported by kernelc yet");
        }
        self.bump();
        let params = self.params()?;
        let body = if self.eat_punct(Punct::Semi) {
            None
        } else if self.is_punct(Punct::LBrace) {
            Some(self.block()?)
        } else {
            let msg = format!(
                "expected `{{` or `;` after function declarator, found {}",
                self.found()
            );
            let sp = self.span();
            return self.error(sp, msg);
        };
        Ok(FunctionDecl {
            name: name_tok.text,
            name_span: name_tok.span,
            span: start.to(self.prev_span()),
            specs,
            ret: ret.ty,
            ret_span: ret.span,
            params,
            body,
        })
    }

    /// Parameter list after `(`, consuming the `)`.
    fn params(&mut self) -> PResult<Vec<ParamDecl>> {
        let mut out = Vec::new();
        if self.eat_punct(Punct::RParen) {
            return Ok(out);
        }
        if self.is_kw(Keyword::Void) && self.is_punct_at(1, Punct::RParen) {
            self.pos += 2;
            return Ok(out);
        }
        loop {
            if self.is_punct(Punct::Ellipsis) {
                let sp = self.span();
                return self.error(sp, "variadic functions are not supported by kernelc");
            }
            let start = self.span();
            let (base, span) = self.specifiers(None)?;
            let Some(base) = base else {
                let msg = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                    format!("unknown type name `{}`", self.peek().text)
                } else {
                    format!("expected a parameter type, found {}", self.found())
                };
                let sp = if self.at_eof() { span } else { self.span() };
                return self.error(sp, msg);
            };
            let ty = self.pointers(base);
            let name = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                Some(self.bump().text)
            } else {
                None
            };
            self.no_array_suffix()?;
            out.push(ParamDecl {
                name,
                ty,
                span: start.to(self.prev_span()),
            });
            if self.eat_punct(Punct::Comma) {
                continue;
            }
            self.expect_punct(Punct::RParen, "to close the parameter list")?;
            return Ok(out);
        }
    }
}
