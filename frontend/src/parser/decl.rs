//! Declarations: function headers, declaration specifiers, declarators and
//! type names.

use std::sync::Arc;

use super::fn_pointers::Naming;
use super::references::{has_inner_reference, DeclaredRef};
use super::{PResult, Parser};
use crate::ast::{
    DeducedRet, EnumDecl, Expr, FnSpecs, FunctionDecl, Init, Item, ParamDecl, QualType, Spelling,
    Storage, VarDecl,
};
use crate::codes::Code;
use crate::diag::Span;
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;

/// Typedef-like names kernelc knows without headers (all LP64), with
/// the spelling glibc's headers give them (`int8_t` is `signed char`,
/// `int64_t` is `long`, `size_t` is `unsigned long`), which nvcc's names
/// carry.
pub(crate) fn named_type_spelled(name: &str) -> Option<(CType, Spelling)> {
    if let Some(t) = crate::texture::handle_type(name) {
        return Some((t, Spelling::LongLong));
    }
    let spelling = match name {
        "int8_t" => Spelling::SignedChar,
        _ => Spelling::Plain,
    };
    named_type(name).map(|t| (t, spelling))
}

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
        // `<time.h>`'s, which `clock()` returns: `long` on LP64 Linux.
        "clock_t" => (64, true),
        _ => return None,
    };
    Some(CType::Int { bits, signed })
}

/// Whether `ty` is CUDA's `dim3`, the one type kernelc constructs with
/// arguments (`dim3 g(2, 3)`, `dim3(n)`).
pub(crate) fn is_dim3(ty: &CType) -> bool {
    ty.struct_def()
        .is_some_and(|d| d.id == crate::types::DIM3_ID)
}

/// Whether a declarator of type `ty` declares one object of a struct
/// type that `(args)` constructs (CUDA's `dim3` has its own form).
fn is_class_object(ty: &CType, dims: &[Option<Expr>], by_ref: Option<Span>) -> bool {
    ty.is_struct() && !is_dim3(ty) && dims.is_empty() && by_ref.is_none()
}

/// Keywords that kernelc recognises only to reject, with the thing to name.
pub(crate) fn unsupported_keyword(k: Keyword) -> Option<&'static str> {
    use Keyword::*;
    Some(match k {
        Template | Typename => "`template`",
        New => "`new`",
        Delete => "`delete`",
        Throw | Try | Catch => "exception handling",
        Asm | Asm2 => "inline assembly",
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
    named_const: bool,
    /// The spelling of a typedef or enumeration named in `named`.
    named_spelling: Spelling,
    is_const: bool,
    is_volatile: bool,
    restrict: Option<Span>,
    any: bool,
}

impl TypeSpecs {
    /// What the specifiers say beyond the type [`TypeSpecs::resolve`]
    /// gives (see [`Spelling`]).
    fn spelling(&self) -> Spelling {
        if self.named.is_some() {
            self.named_spelling.clone()
        } else if self.char_ == 1 && self.signed == 1 {
            Spelling::SignedChar
        } else if self.long == 2 {
            Spelling::LongLong
        } else {
            Spelling::Plain
        }
    }

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

/// Everything in a declaration's specifiers besides the type itself.
#[derive(Default)]
pub(super) struct DeclSpecs {
    pub fns: FnSpecs,
    pub storage: Storage,
    /// `typedef` was written (at this span).
    pub typedef: Option<Span>,
    pub launch_bounds: Option<(Expr, Option<Expr>, Span)>,
    pub cluster_dims: Option<(Vec<Expr>, Span)>,
    /// The first specifier that only makes sense on a function, for messages.
    pub fn_only: Option<(Keyword, Span)>,
    /// `__grid_constant__` (only a kernel parameter may have it).
    pub grid_constant: Option<Span>,
    /// `auto` in place of a type (only a local with an initializer may have it).
    pub auto: Option<Span>,
    /// The `auto` was written `decltype(auto)` (a function's return type).
    pub decltype_auto: bool,
    /// The `auto` was written `decltype(operand)` of an operand only the
    /// checker types (a local's type).
    pub decltype: Option<Box<crate::ast::DecltypeOf>>,
}

impl DeclSpecs {
    /// Notes the specifier `k`, which only a function may have but for
    /// `inline`, which a variable at namespace scope may have too (C++17):
    /// it gives way to any other in [`DeclSpecs::fn_only`].
    fn note_fn_only(&mut self, k: Keyword, at: Span) {
        if self
            .fn_only
            .is_none_or(|(first, _)| first == Keyword::Inline)
        {
            self.fn_only = Some((k, at));
        }
    }

    /// The first storage, function or typedef specifier, if any was written.
    pub(super) fn first_non_type(&self) -> Option<Span> {
        let s = &self.storage;
        if s.shared || s.constant || s.device || s.is_extern || s.is_static {
            return Some(s.span);
        }
        self.typedef
            .or(s.constexpr)
            .or(self.auto)
            .or(self.fn_only.map(|f| f.1))
            .or(self.launch_bounds.as_ref().map(|l| l.2))
            .or(self.cluster_dims.as_ref().map(|c| c.1))
            .or(self.grid_constant)
    }
}

impl Parser<'_> {
    /// A typedef name or a `<stdint.h>`-style name, with its `const`-ness.
    pub(super) fn type_named(&self, name: &str) -> Option<(CType, bool)> {
        self.type_named_spelled(name).map(|(t, c, _)| (t, c))
    }

    /// [`Parser::type_named`] with the spelling of the named type.
    pub(super) fn type_named_spelled(&self, name: &str) -> Option<(CType, bool, Spelling)> {
        let key = self.type_key(name);
        let name = key.as_str();
        if let Some((t, is_const, spelling)) = self.typedefs.get(name) {
            return Some((t.completed(), *is_const, spelling.clone()));
        }
        if name.contains('>') {
            if let Some(t) = self.instance_typedef(name) {
                return Some(t);
            }
        }
        if let Some((t, spelling)) = named_type_spelled(name) {
            return Some((t, false, spelling));
        }
        // In C++ a struct's tag names its type without `struct`.
        self.structs
            .get(name)
            .map(|d| CType::Struct(d.clone()))
            .or_else(|| crate::types::vector_type(name))
            .or_else(|| crate::half::type_named(name))
            .or_else(|| (name == "CUtensorMap").then(crate::types::tensor_map_type))
            .or_else(|| (name == "dim3").then(crate::types::dim3_type))
            .map(|t| (t, false, Spelling::Plain))
    }

    /// Whether the token `n` ahead can start a type name (for casts, sizeof).
    pub(super) fn starts_type(&self, n: usize) -> bool {
        let t = self.peek_at(n);
        if self.at_eof_at(n) {
            return false;
        }
        match &t.kind {
            TokenKind::Keyword(Keyword::Typename) => self.starts_type(n + 1),
            TokenKind::Keyword(Keyword::Decltype) if self.is_punct_at(n + 1, Punct::LParen) => {
                self.decltype_starts_type(n)
            }
            TokenKind::Keyword(k) => k.starts_type(),
            TokenKind::Ident | TokenKind::Punct(Punct::ColonColon)
                if self.class_template_at(n).is_some() =>
            {
                true
            }
            TokenKind::Ident if self.is_punct_at(n + 1, Punct::ColonColon) => {
                self.qualified_type_at(n).is_some()
            }
            TokenKind::Ident => self.type_named(&t.text).is_some(),
            TokenKind::Punct(Punct::ColonColon) => self.qualified_type_at(n).is_some(),
            _ => false,
        }
    }

    /// Whether the token `n` ahead can start a local declaration.
    pub(super) fn starts_decl(&self, n: usize) -> bool {
        self.starts_type(n)
            || self.align_at(n)
            || (!self.at_eof_at(n)
                && matches!(
                    self.peek_at(n).kind,
                    TokenKind::Keyword(
                        Keyword::Shared
                            | Keyword::Constant
                            | Keyword::Device
                            | Keyword::Managed
                            | Keyword::Typedef
                            | Keyword::Static
                            | Keyword::Extern
                            | Keyword::Auto
                            | Keyword::Constexpr
                            | Keyword::Register
                    )
                ))
    }

    /// Whether `__align__(N)` or `alignas(N)` is the token `n` ahead: it
    /// starts a declaration (`alignas(16) float buf[4];`), never an
    /// expression.
    fn align_at(&self, n: usize) -> bool {
        !self.at_eof_at(n)
            && self.peek_at(n).kind == TokenKind::Ident
            && is_align_kw(&self.peek_at(n).text)
            && self.is_punct_at(n + 1, Punct::LParen)
    }

    /// Parses declaration specifiers: the base type (`None` when no type
    /// specifier was written at all), its span, and everything else.
    // Long: one loop over the specifier keywords C and CUDA allow in any
    // order (types, qualifiers, storage, execution spaces, attributes),
    // one arm each, then the checks of their combination.
    pub(super) fn specifiers(&mut self) -> PResult<(Option<QualType>, Span, DeclSpecs)> {
        let start = self.span();
        let mut ts = TypeSpecs::default();
        let mut ds = DeclSpecs::default();
        loop {
            let tok = self.peek().clone();
            if self.at_eof() {
                break;
            }
            match &tok.kind {
                TokenKind::Keyword(k) => {
                    let k = *k;
                    let storage_span = |ds: &mut DeclSpecs| {
                        if ds.storage.span == Span::default() {
                            ds.storage.span = tok.span;
                        }
                    };
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
                        Keyword::Constexpr => {
                            // A `constexpr` variable is `const` (the
                            // declared object: `var_declarators`); a
                            // function's calls may be constant expressions,
                            // and its return type is as written
                            // (`constexpr T &operator[](size_t)`).
                            ds.storage.constexpr.get_or_insert(tok.span);
                            ds.fns.constexpr = true;
                        }
                        Keyword::Auto => {
                            if ds.auto.is_some() {
                                return self.error(tok.span, Code::E0003, "`auto` written twice");
                            }
                            ds.auto = Some(tok.span);
                        }
                        Keyword::Decltype if self.decltype_auto_at() => {
                            if ds.auto.is_some() {
                                return self.error(tok.span, Code::E0003, "`auto` written twice");
                            }
                            ds.auto = Some(tok.span);
                            ds.decltype_auto = true;
                            // The `(auto)`; the loop steps past `)`.
                            self.pos += 3;
                        }
                        Keyword::Decltype if ts.named.is_none() => {
                            match self.decltype_type()? {
                                super::decltype::Decltype::Known((t, c, spelling)) => {
                                    ts.named = Some(t);
                                    ts.named_const = c;
                                    ts.named_spelling = spelling;
                                    ts.any = true;
                                }
                                super::decltype::Decltype::Checked(of, at) => {
                                    ds.auto = Some(at);
                                    ds.decltype = Some(Box::new(of));
                                }
                            }
                            continue;
                        }
                        Keyword::Volatile => ts.is_volatile = true,
                        // A hint without meaning, which C++17 removed and
                        // nvcc still accepts (silently) in device code.
                        Keyword::Register => {}
                        Keyword::Restrict | Keyword::Restrict2 | Keyword::CRestrict => {
                            ts.restrict = Some(tok.span)
                        }
                        Keyword::Extern => {
                            if matches!(&self.peek_at(1).kind, TokenKind::Str(s) if s == "C") {
                                self.pos += 1;
                                ds.fns.extern_c = true;
                            } else if let TokenKind::Str(s) = &self.peek_at(1).kind {
                                let msg = format!("unknown language linkage `extern \"{s}\"`");
                                let span = self.peek_at(1).span;
                                return self.error(span, Code::E0003, msg);
                            } else {
                                storage_span(&mut ds);
                                ds.storage.is_extern = true;
                            }
                        }
                        Keyword::Static => {
                            storage_span(&mut ds);
                            ds.fns.is_static = true;
                            ds.storage.is_static = true;
                        }
                        Keyword::Device => {
                            storage_span(&mut ds);
                            ds.fns.device = true;
                            ds.storage.device = true;
                        }
                        Keyword::Shared => {
                            storage_span(&mut ds);
                            ds.storage.shared = true;
                        }
                        // A managed variable is a `__device__` one that
                        // the host reaches too.
                        Keyword::Managed => {
                            storage_span(&mut ds);
                            ds.storage.device = true;
                            ds.storage.managed = true;
                        }
                        Keyword::Constant => {
                            storage_span(&mut ds);
                            ds.storage.constant = true;
                        }
                        Keyword::Typedef => ds.typedef = Some(tok.span),
                        Keyword::Inline
                        | Keyword::ForceInline
                        | Keyword::NoInline
                        | Keyword::Global
                        | Keyword::Host => {
                            ds.note_fn_only(k, tok.span);
                            match k {
                                Keyword::Inline => ds.fns.inline = true,
                                Keyword::ForceInline => ds.fns.forceinline = true,
                                Keyword::NoInline => ds.fns.noinline = true,
                                Keyword::Global => ds.fns.global = true,
                                _ => ds.fns.host = true,
                            }
                        }
                        Keyword::LaunchBounds => {
                            self.bump();
                            ds.launch_bounds = Some(self.launch_bounds(tok.span)?);
                            ds.note_fn_only(k, tok.span);
                            ts.any = true;
                            continue;
                        }
                        Keyword::ClusterDims => {
                            self.bump();
                            ds.cluster_dims = Some(self.cluster_dims(tok.span)?);
                            ds.note_fn_only(k, tok.span);
                            ts.any = true;
                            continue;
                        }
                        k if Self::is_struct_kw(k) => {
                            self.bump();
                            let t = self.struct_specifier(tok.span)?;
                            if ts.named.is_some() {
                                return self.error(
                                    tok.span,
                                    Code::E0003,
                                    "two types in one declaration",
                                );
                            }
                            ts.named = Some(t);
                            ts.any = true;
                            continue;
                        }
                        Keyword::Enum => {
                            self.bump();
                            let (tag, underlying) = self.enum_specifier(tok.span)?;
                            if ts.named.is_some() {
                                return self.error(
                                    tok.span,
                                    Code::E0003,
                                    "two types in one declaration",
                                );
                            }
                            ts.named = Some(underlying);
                            ts.named_spelling = Spelling::Enum(tag.unwrap_or_default());
                            ts.any = true;
                            continue;
                        }
                        // `typename Traits<T>::Acc`: the name is a type.
                        Keyword::Typename if ts.named.is_none() && self.starts_type(1) => {}
                        _ => {
                            if let Some(what) = unsupported_keyword(k) {
                                return self.error(
                                    tok.span,
                                    Code::E0002,
                                    format!("{what} is not supported by kernelc yet"),
                                );
                            }
                            break;
                        }
                    }
                    ts.any = true;
                }
                TokenKind::Ident if is_align_kw(&tok.text) => {
                    self.bump();
                    let a = self.align_arg(&tok.text)?;
                    ds.storage.align = ds.storage.align.max(a);
                    continue;
                }
                // `__device__ explicit operator bool()`: `explicit` after
                // a conversion function's other specifiers (kernelc does
                // not refuse what it forbids, an implicit use).
                TokenKind::Ident
                    if tok.text == "explicit"
                        && self.peek_at(1).kind == TokenKind::Keyword(Keyword::Operator) => {}
                TokenKind::Ident if tok.text == "__grid_constant__" => {
                    ds.grid_constant.get_or_insert(tok.span);
                }
                TokenKind::Ident | TokenKind::Punct(Punct::ColonColon)
                    if ts.named.is_none() && self.class_template_at(0).is_some() =>
                {
                    let (t, c, spelling) = self.class_template_type()?;
                    ts.named = Some(t);
                    ts.named_const = c;
                    ts.named_spelling = spelling;
                    ts.any = true;
                    continue;
                }
                TokenKind::Ident | TokenKind::Punct(Punct::ColonColon)
                    if ts.named.is_none() && self.qualified_type_at(0).is_some() =>
                {
                    if let Some((tokens, (t, c, spelling))) = self.qualified_type_at(0) {
                        self.pos += tokens;
                        ts.named = Some(t);
                        ts.named_const = c;
                        ts.named_spelling = spelling;
                        ts.any = true;
                    }
                    continue;
                }
                TokenKind::Ident if ts.named.is_none() && self.type_named(&tok.text).is_some() => {
                    // Typedef names act as type specifiers only if nothing else
                    // named the type yet (so `unsigned size_t` is rejected, and
                    // `T T2` declares a variable `T2`... of type `T`).
                    let has_basic = ts.void
                        + ts.bool_
                        + ts.char_
                        + ts.short
                        + ts.int
                        + ts.long
                        + ts.float
                        + ts.double
                        + ts.signed
                        + ts.unsigned
                        > 0;
                    if has_basic {
                        break;
                    }
                    let (t, c, spelling) = self.type_named_spelled(&tok.text).unwrap_or((
                        CType::INT,
                        false,
                        Spelling::Plain,
                    ));
                    ts.named = Some(t);
                    ts.named_const = c;
                    ts.named_spelling = spelling;
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
                Code::E0003,
                "`__restrict__` requires a pointer type; write it after the `*`",
            );
        }
        if let Some(a) = ds.auto {
            let other = ts.void
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
            if other {
                return self.error(a, Code::E0012, "`auto` cannot be combined with a type");
            }
            // A placeholder the declaration replaces with the initializer's type.
            return Ok((
                Some(QualType {
                    ty: CType::Void,
                    is_const: ts.is_const,
                    is_volatile: ts.is_volatile,
                    spelling: Spelling::Plain,
                    span,
                }),
                span,
                ds,
            ));
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
            return Ok((None, span, ds));
        }
        match ts.resolve() {
            Some(ty) => Ok((
                Some(QualType {
                    ty,
                    is_const: ts.is_const || ts.named_const,
                    is_volatile: ts.is_volatile,
                    spelling: ts.spelling(),
                    span,
                }),
                span,
                ds,
            )),
            None => self.error(span, Code::E0003, "invalid combination of type specifiers"),
        }
    }

    /// `(N)` after `__align__` or `alignas` (the keyword `kw`): a power
    /// of two up to 1024, written as a constant expression the parser
    /// computes (`alignas(2 * sizeof(float))`, `alignas(N * sizeof(T))`
    /// in a class template's instance), or `alignas(T)`, `T`'s alignment.
    pub(super) fn align_arg(&mut self, kw: &str) -> PResult<u64> {
        self.expect_punct(Punct::LParen, &format!("after `{kw}`"))?;
        let start = self.span();
        let value = if self.starts_type(0) {
            let ty = self.type_name()?;
            ty.ty.size().map(|_| i128::from(ty.ty.align()))
        } else {
            let e = self.assign_expr()?;
            self.parse_time_value(&e)
        };
        let span = start.to(self.prev_span());
        self.expect_punct(Punct::RParen, &format!("to close `{kw}`"))?;
        match value.and_then(|v| u64::try_from(v).ok()) {
            Some(v) if v.is_power_of_two() && v <= 1024 => Ok(v),
            Some(v) => {
                let msg = format!("`{kw}` takes a power of two up to 1024, not {v}");
                self.error(span, Code::E0010, msg)
            }
            None => self.error(
                span,
                Code::E0010,
                format!("`{kw}` takes a power of two up to 1024, as a constant expression kernelc computes while parsing (literals, `sizeof`, `alignof`, integer constants and arithmetic on them)"),
            ),
        }
    }

    /// `(N)` or `(N, M)` after `__launch_bounds__`.
    fn launch_bounds(&mut self, kw: Span) -> PResult<(Expr, Option<Expr>, Span)> {
        self.expect_punct(Punct::LParen, "after `__launch_bounds__`")?;
        let max = self.assign_expr()?;
        let min = if self.eat_punct(Punct::Comma) {
            Some(self.assign_expr()?)
        } else {
            None
        };
        if self.eat_punct(Punct::Comma) {
            let sp = self.prev_span();
            return self.error(
                sp,
                Code::E0002,
                "the third `__launch_bounds__` argument (max blocks per cluster) is not supported by kernelc yet",
            );
        }
        self.expect_punct(Punct::RParen, "to close `__launch_bounds__`")?;
        Ok((max, min, kw.to(self.prev_span())))
    }

    /// `(X)`, `(X, Y)` or `(X, Y, Z)` after `__cluster_dims__`.
    fn cluster_dims(&mut self, kw: Span) -> PResult<(Vec<Expr>, Span)> {
        self.expect_punct(Punct::LParen, "after `__cluster_dims__`")?;
        let mut dims = vec![self.assign_expr()?];
        while self.eat_punct(Punct::Comma) {
            dims.push(self.assign_expr()?);
        }
        self.expect_punct(Punct::RParen, "to close `__cluster_dims__`")?;
        Ok((dims, kw.to(self.prev_span())))
    }

    /// After `enum`: an optional tag and an optional `{ A, B = 1, }` body.
    /// The body is queued in `pending_enums`; the type itself is `int`.
    /// Returns the tag, which names the type from here on, as in C++.
    /// The enumeration's type is `int`, or the underlying type written after `:` (C++11's `enum E : short`,
    /// `enum class E : uint8_t`). Enumerators of a scoped enumeration
    /// (`enum class`/`enum struct`) are named `E::A`.
    pub(super) fn enum_specifier(&mut self, kw: Span) -> PResult<(Option<String>, CType)> {
        let scoped = self.eat_kw(Keyword::Class) || self.eat_kw(Keyword::Struct);
        let mut tag = None;
        let mut underlying = CType::INT;
        if self.peek().kind == TokenKind::Ident && !self.at_eof() {
            let name_tok = self.bump();
            if !scoped && !self.is_punct(Punct::Colon) && !self.is_punct(Punct::LBrace) {
                // `enum E e;`: the enumeration declared before.
                let key = self.type_key(&name_tok.text);
                if let Some((ty, _, _)) = self.typedefs.get(&key) {
                    return Ok((Some(key.clone()), ty.clone()));
                }
            }
            let name = self.declare_type(&name_tok.text, name_tok.span);
            if scoped {
                self.scoped.declare_enum(&name);
            }
            if self.eat_punct(Punct::Colon) {
                underlying = self.enum_base()?;
            }
            // In C++ the tag names the type without `enum`.
            let ty = (underlying.clone(), false, Spelling::Enum(name.clone()));
            self.typedefs.insert(name.clone(), ty);
            tag = Some(name);
        } else if scoped {
            let msg = format!(
                "expected the name of the scoped enumeration, found {}",
                self.found()
            );
            let sp = self.span();
            return self.error(sp, Code::E0003, msg);
        } else if self.eat_punct(Punct::Colon) {
            underlying = self.enum_base()?;
        }
        if !self.eat_punct(Punct::LBrace) {
            return Ok((tag, underlying));
        }
        let mut enumerators = Vec::new();
        // The value of the next enumerator, while the parser can compute
        // them: template arguments and member array sizes may use them.
        let mut next = Some(0i128);
        while !self.is_punct(Punct::RBrace) {
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                let msg = format!("expected an enumerator name, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            let name = self.bump();
            let value = if self.eat_punct(Punct::Assign) {
                Some(self.cond_value()?)
            } else {
                None
            };
            let key = self.declare_enumerator(&name.text, name.span, tag.as_deref(), scoped);
            let known = match &value {
                Some(e) => super::structs::const_dim(e, &|n| self.constant(n)),
                None => next,
            };
            if let Some(v) = known {
                Arc::make_mut(&mut self.constants).insert(key.clone(), v);
            }
            next = known.and_then(|v| v.checked_add(1));
            if let (Some(e), true) = (&tag, scoped) {
                self.scoped.declare_enumerator(&key, e);
            }
            enumerators.push((key, value, name.span));
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::RBrace, "to close the `enum`")?;
        self.pending_enums.push(EnumDecl {
            enumerators,
            span: kw.to(self.prev_span()),
        });
        Ok((tag, underlying))
    }

    /// The underlying type after `enum E :`: an integer type.
    fn enum_base(&mut self) -> PResult<CType> {
        let ty = self.type_name()?;
        if !ty.ty.is_integer() {
            return self.error(
                ty.span,
                Code::E0012,
                format!(
                    "the underlying type of an enumeration must be an integer type, not `{}`",
                    ty.ty
                ),
            );
        }
        Ok(ty.ty)
    }

    /// Parses `*` with qualifiers (`* const __restrict__ *`) on top of `base`.
    pub(super) fn pointers(&mut self, mut ty: QualType) -> QualType {
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
                spelling: ty.spelling,
                span: ty.span.to(star).to(self.prev_span()),
            };
        }
        ty
    }

    /// Array declarator suffixes `[N][M]` (`[]` gives `None`).
    pub(super) fn dims(&mut self) -> PResult<Vec<Option<Expr>>> {
        let mut dims = Vec::new();
        while self.eat_punct(Punct::LBracket) {
            if self.eat_punct(Punct::RBracket) {
                dims.push(None);
                continue;
            }
            let e = self.assign_expr()?;
            self.expect_punct(Punct::RBracket, "to close the array size")?;
            dims.push(Some(e));
        }
        Ok(dims)
    }

    /// An initializer after `=`: an expression or a braced list; each
    /// nested list is one nesting level (`stdx::stack`).
    pub(super) fn initializer(&mut self) -> PResult<Init> {
        stdx::stack::with_stack(|| self.initializer_level())
    }

    fn initializer_level(&mut self) -> PResult<Init> {
        if !self.is_punct(Punct::LBrace) {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        self.enter()?;
        let open = self.bump().span;
        let mut items = Vec::new();
        while !self.is_punct(Punct::RBrace) {
            if self.is_punct(Punct::Dot) || self.is_punct(Punct::LBracket) {
                let sp = self.span();
                self.leave();
                return self.error(
                    sp,
                    Code::E0002,
                    "designated initializers are not supported by kernelc yet",
                );
            }
            match self.initializer() {
                Ok(i) => items.push(i),
                Err(e) => {
                    self.leave();
                    return Err(e);
                }
            }
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        let close = self.expect_punct(Punct::RBrace, "to close the initializer list");
        self.leave();
        Ok(Init::List(items, open.to(close?)))
    }

    /// A type name as in casts and `sizeof(...)`: specifiers and pointers.
    pub(super) fn type_name(&mut self) -> PResult<QualType> {
        let (base, span, ds) = self.specifiers()?;
        if let Some(sp) = ds.grid_constant {
            return self.error(
                sp,
                Code::E0012,
                "`__grid_constant__` applies only to parameters of a `__global__` function",
            );
        }
        if let Some(sp) = ds.auto {
            return self.error(
                sp,
                Code::E0002,
                "`auto` in a type name is not supported by kernelc",
            );
        }
        if let Some(sp) = ds.first_non_type() {
            return self.error(
                sp,
                Code::E0012,
                "a storage or function specifier cannot appear in a type name",
            );
        }
        match base {
            Some(b) => {
                let ty = self.pointers(b);
                if !self.at_fn_pointer() {
                    return Ok(ty);
                }
                Ok(self.fn_pointer_declarator(ty, Naming::Never)?.ty)
            }
            None => self.error(span, Code::E0003, "expected a type"),
        }
    }

    /// Records `typedef` declarators (of arrays too).
    fn typedef_names(&mut self, base: QualType) -> PResult<()> {
        loop {
            let ty = self.pointers(base.clone());
            if self.at_fn_pointer() {
                self.fn_pointer_typedef(ty)?;
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
                continue;
            }
            // `typedef T &reference;`: a reference type (`parser::references`).
            let ty = self.reference_type(ty);
            if has_inner_reference(&ty.ty) {
                return self.error(
                    ty.span,
                    Code::E0003,
                    format!(
                        "`{}` is a pointer to a reference, which C++ does not allow",
                        ty.ty
                    ),
                );
            }
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                if self.is_punct(Punct::Semi) {
                    break;
                }
                let msg = format!("expected a type name, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            let name = self.bump();
            if self.is_punct(Punct::LParen) {
                let sp = self.span();
                return self.error(
                    sp,
                    Code::E0002,
                    "function typedefs are not supported by kernelc yet",
                );
            }
            let mut ty = ty;
            if let (CType::Ref { .. }, true) = (&ty.ty, self.is_punct(Punct::LBracket)) {
                let sp = self.span();
                return self.error(sp, Code::E0003, "arrays of references are not valid C++");
            }
            if self.is_punct(Punct::LBracket) {
                // `typedef float Row[4];`
                let dims = self.dims()?;
                let of = super::structs::FixedArray::Named;
                ty.ty = self.fixed_array(ty.ty, &dims, name.span, of)?;
            }
            // An anonymous enumeration takes the typedef's name, as a struct does.
            self.define_typedef(name.text.into(), name.span, ty);
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        self.expect_punct(Punct::Semi, "after `typedef`")?;
        Ok(())
    }

    /// A reference declarator's `&` (after any `*`s); `&&` is rejected.
    pub(super) fn reference(&mut self) -> PResult<Option<Span>> {
        if self.is_punct(Punct::AndAnd) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "rvalue references (`&&`) are not supported by kernelc",
            );
        }
        if !self.is_punct(Punct::Amp) {
            return Ok(None);
        }
        let amp = self.bump().span;
        if self.is_punct(Punct::Star) || self.is_punct(Punct::Amp) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                "pointers to references and references to references are not valid C++",
            );
        }
        Ok(Some(amp))
    }

    /// Keeps the value of a file-scope integer constant the parser can
    /// compute (`constexpr int kTile = 16;`) for struct member arrays.
    fn record_constant(&mut self, v: &VarDecl) {
        let constant = v.ty.is_const || v.storage.constexpr.is_some();
        if !constant || !v.ty.ty.is_integer() {
            return;
        }
        match (&v.init, v.dims.as_slice()) {
            (Some(Init::Expr(e)), []) => {
                if let Some(value) = super::structs::const_dim(e, &|n| self.constant(n)) {
                    Arc::make_mut(&mut self.constants).insert(v.name.clone(), value);
                }
            }
            (Some(Init::List(items, _)), [dim]) => self.record_constant_elements(v, items, dim),
            _ => {}
        }
    }

    /// The elements of a constant integer array (`constexpr int kBits[] =
    /// {1, 3, 5};`), each kept as `kBits[2]` when the parser computes it
    /// (a template argument may name one); those the list leaves out are 0.
    fn record_constant_elements(&mut self, v: &VarDecl, items: &[Init], dim: &Option<Expr>) {
        let value = |p: &Self, item: &Init| match item {
            Init::Expr(e) => super::structs::const_dim(e, &|n| p.constant(n)),
            Init::List(inner, _) => match inner.as_slice() {
                [Init::Expr(e)] => super::structs::const_dim(e, &|n| p.constant(n)),
                _ => None,
            },
        };
        let len = dim
            .as_ref()
            .and_then(|d| super::structs::const_dim(d, &|n| self.constant(n)))
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(items.len());
        for k in 0..len.min(1 << 16) {
            let known = match items.get(k) {
                Some(item) => value(self, item),
                None => Some(0),
            };
            if let Some(x) = known {
                let x = crate::templates::wrap_to(x, &v.ty.ty);
                Arc::make_mut(&mut self.constants).insert(format!("{}[{k}]", v.name), x);
            }
        }
    }

    /// Declarators of variables after the specifiers, up to and including `;`.
    fn var_declarators(
        &mut self,
        base: QualType,
        storage: Storage,
        local: bool,
        auto: Option<Span>,
        decltype: Option<Box<crate::ast::DecltypeOf>>,
    ) -> PResult<Vec<VarDecl>> {
        let mut out = Vec::new();
        loop {
            let mut ty = self.pointers(base.clone());
            // `constexpr float *p` is `float *const p`.
            ty.is_const |= storage.constexpr.is_some();
            if self.at_fn_pointer() {
                out.push(self.fn_pointer_variable(ty, base.span, &storage, auto)?);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
                continue;
            }
            // `T &&r = f();`, `auto &&x = e;`: an rvalue (or forwarding)
            // reference local.
            let written = if local && self.is_punct(Punct::AndAnd) {
                let at = self.bump().span;
                Some(DeclaredRef { at, rvalue: true })
            } else {
                let at = self.reference()?;
                at.map(|at| DeclaredRef { at, rvalue: false })
            };
            // `reference r = v[0];`: a reference through its type.
            let (ty, declared) = self.declared_reference(ty, written)?;
            let by_ref = declared.map(|d| d.at);
            let rvalue = local && declared.is_some_and(|d| d.rvalue);
            if let (Some(r), false) = (by_ref, local) {
                return self.error(
                    r,
                    Code::E0002,
                    "references at file scope are not supported by kernelc",
                );
            }
            if self.peek().kind != TokenKind::Ident || self.at_eof() {
                let msg = format!("expected a variable name, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            }
            let mut name_tok = self.bump();
            name_tok.text = self.declare_value(&name_tok.text, name_tok.span).into();
            let (ty, dims) = spelled_out(ty, self.dims()?, by_ref);
            if auto.is_none() && dims.is_empty() {
                let written = declared_type(&ty, declared);
                match local {
                    true => self.names.type_last_local(written),
                    false => self.names.type_global(&name_tok.text, written),
                }
            }
            if let (Some(r), false) = (by_ref, dims.is_empty()) {
                return self.error(r, Code::E0003, "arrays of references are not valid C++");
            }
            let dim3 = is_dim3(&ty.ty) && dims.is_empty();
            if self.is_punct(Punct::LParen) && (dim3 || is_class_object(&ty.ty, &dims, by_ref)) {
                // `dim3 g(2, 3)`: CUDA's constructor, as the call `dim3(2, 3)`;
                // `Ray r(o, d);`: its constructor (or its members in order).
                let init = if dim3 {
                    self.constructor_call("dim3", name_tok.span)?
                } else {
                    self.construct(ty.clone(), name_tok.span)?
                };
                let end = init.span;
                out.push(VarDecl {
                    name: name_tok.text.into(),
                    name_span: name_tok.span,
                    ty,
                    dims,
                    storage: storage.clone(),
                    init: Some(Init::Expr(init)),
                    by_ref,
                    rvalue,
                    auto,
                    decltype: decltype.clone(),
                    direct_braces: false,
                    span: base.span.to(end),
                });
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
                continue;
            }
            if self.is_punct(Punct::LParen) {
                let sp = self.span();
                if local {
                    return self.error(
                        sp,
                        Code::E0002,
                        "function declarations inside functions are not supported by kernelc",
                    );
                }
                return self.error(sp, Code::E0003, "expected `;` after a variable declaration");
            }
            let direct_braces = self.is_punct(Punct::LBrace);
            let init = if direct_braces || self.eat_punct(Punct::Assign) {
                Some(self.initializer()?)
            } else if local && is_dim3(&ty.ty) && dims.is_empty() && by_ref.is_none() {
                // `dim3 d;` is CUDA's default constructor: (1, 1, 1).
                let callee = Expr {
                    kind: crate::ast::ExprKind::Ident("dim3".into()),
                    span: name_tok.span,
                };
                Some(Init::Expr(Expr {
                    kind: crate::ast::ExprKind::Call {
                        callee: Box::new(callee),
                        args: Vec::new(),
                    },
                    span: name_tok.span,
                }))
            } else {
                None
            };
            let end = init.as_ref().map_or(self.prev_span(), Init::span);
            out.push(VarDecl {
                name: name_tok.text.into(),
                name_span: name_tok.span,
                ty,
                dims,
                storage: storage.clone(),
                init,
                by_ref,
                rvalue,
                auto,
                decltype: decltype.clone(),
                direct_braces,
                span: base.span.to(end),
            });
            if !self.eat_punct(Punct::Comma) {
                break;
            }
        }
        if self.condition_decl && self.is_punct(Punct::RParen) {
            return Ok(out);
        }
        self.expect_punct(Punct::Semi, "after declaration")?;
        Ok(out)
    }

    /// A local declaration `T a = 1, *b;` (the `;` is consumed). A `typedef`
    /// or a bare `enum {...};` gives no variables.
    pub(super) fn local_decl(&mut self) -> PResult<Vec<VarDecl>> {
        let (base, span, ds) = self.specifiers()?;
        if let Some(sp) = ds.grid_constant {
            return self.error(
                sp,
                Code::E0012,
                "`__grid_constant__` applies only to parameters of a `__global__` function",
            );
        }
        if let Some((k, sp)) = ds.fn_only {
            return self.error(
                sp,
                Code::E0002,
                format!("`{}` here is not supported by kernelc yet", k.as_str()),
            );
        }
        let st = &ds.storage;
        if st.managed && !st.is_static {
            // nvcc's rule: a managed variable outlives any call.
            return self.error(
                st.span,
                Code::E0012,
                "a `__managed__` variable inside a function must be `static`",
            );
        }
        if st.constant || st.device {
            let what = if st.constant {
                "__constant__"
            } else if st.managed {
                "__managed__"
            } else {
                "__device__"
            };
            return self.error(
                st.span,
                Code::E0002,
                format!("`{what}` variables inside functions are not supported by kernelc"),
            );
        }
        if st.is_static && !st.shared {
            return self.error(
                st.span,
                Code::E0002,
                "`static` local variables are not supported by kernelc yet",
            );
        }
        if st.is_extern && !st.shared {
            return self.error(
                st.span,
                Code::E0002,
                "`extern` local variables are not supported by kernelc",
            );
        }
        let Some(base) = base else {
            return self.error(span, Code::E0003, "expected a type");
        };
        if let (Some(sp), Some(_)) = (ds.auto, ds.typedef) {
            return self.error(sp, Code::E0003, "`auto` cannot be used in a `typedef`");
        }
        if ds.typedef.is_some() {
            self.typedef_names(base)?;
            return Ok(Vec::new());
        }
        if self.eat_punct(Punct::Semi) {
            return Ok(Vec::new()); // `enum E { ... };` or a useless `int;`
        }
        self.var_declarators(base, ds.storage, true, ds.auto, ds.decltype)
    }

    /// A top-level declaration: a function prototype or definition, a
    /// `typedef`, an `enum`, or variables.
    pub(super) fn external_decl(&mut self, in_extern_c: bool) -> PResult<Vec<Item>> {
        let start = self.span();
        if let Some(f) = self.out_of_line_constructor(start)? {
            return Ok(vec![Item::Function(f)]);
        }
        let (base, spec_span, mut ds) = self.specifiers()?;
        if let Some(sp) = ds.grid_constant {
            return self.error(
                sp,
                Code::E0012,
                "`__grid_constant__` applies only to parameters of a `__global__` function",
            );
        }
        ds.fns.extern_c |= in_extern_c;
        let base = match base {
            Some(b) => b,
            None => {
                if self.peek().kind == TokenKind::Ident && self.is_punct_at(1, Punct::LParen) {
                    let name = self.peek().text.clone();
                    let sp = self.span();
                    return self.error(
                        sp,
                        Code::E0003,
                        format!("missing return type for function `{name}` (C does not allow implicit `int`)"),
                    );
                }
                if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                    let msg = format!("unknown type name `{}`", self.peek().text);
                    let sp = self.span();
                    return self.error(sp, Code::E0001, msg);
                }
                let msg = format!("expected a declaration, found {}", self.found());
                let sp = if spec_span == Span::default() || !self.at_eof() {
                    self.span()
                } else {
                    spec_span
                };
                return self.error(sp, Code::E0003, msg);
            }
        };
        if ds.typedef.is_some() {
            self.typedef_names(base)?;
            return Ok(Vec::new());
        }
        if self.eat_punct(Punct::Semi) {
            return Ok(Vec::new());
        }
        // A function has `name (` after the pointers; anything else is a variable.
        let save = self.pos;
        let ret = self.pointers(base.clone());
        let (ret, returns) = self.returned_reference(ret)?;
        if returns.reference()
            && !self.is_kw(Keyword::Operator)
            && !self.is_punct_at(1, Punct::LParen)
            && self.qualified_at(0).is_none()
        {
            let sp = self.prev_span();
            return self.error(
                sp,
                Code::E0002,
                "references at file scope are not supported by kernelc",
            );
        }
        // `T sim::f(...)`: a namespace member defined outside it.
        let qualified = self
            .qualified_at(0)
            .filter(|q| self.is_punct_at(q.tokens, Punct::LParen));
        let is_operator = self.is_kw(Keyword::Operator);
        let is_function = qualified.is_some()
            || is_operator
            || self.peek().kind == TokenKind::Ident
                && !self.at_eof()
                && self.is_punct_at(1, Punct::LParen);
        if let (Some(sp), false) = (ds.auto, is_function) {
            return self.error(
                sp,
                Code::E0002,
                "`auto` outside function bodies is not supported by kernelc",
            );
        }
        if !is_function {
            self.pos = save;
            let mut storage = ds.storage;
            match ds.fn_only {
                Some((Keyword::Inline, _)) => storage.is_inline = true,
                Some((k, sp)) => {
                    return self.error(
                        sp,
                        Code::E0012,
                        format!("`{}` applies only to functions", k.as_str()),
                    );
                }
                None => {}
            }
            let vars = self.var_declarators(base, storage, false, None, None)?;
            for v in &vars {
                self.scoped.declare_variable(v);
                self.record_constant(v);
            }
            return Ok(vars.into_iter().map(Item::Var).collect());
        }
        if let Some(q) = &qualified {
            let written = (ret.clone(), returns);
            if let Some(f) = self.out_of_line_member(q, ds.fns.clone(), written, start)? {
                return Ok(vec![Item::Function(f)]);
            }
        }
        let (name, name_tok, outer) = self.declarator_name(qualified, is_operator)?;
        let parsed = self.params_and_body();
        if let Some(outer) = outer {
            self.names.leave_scope(outer);
        }
        let (params, trailing, body) = parsed?;
        let auto = ds.auto.map(|_| ds.decltype_auto);
        let (ret, deduced_ret) = self.return_type(auto, ret, trailing)?;
        let st = &ds.storage;
        if st.shared || st.constant || st.managed {
            let what = if st.shared {
                "__shared__"
            } else if st.constant {
                "__constant__"
            } else {
                "__managed__"
            };
            return self.error(
                st.span,
                Code::E0012,
                format!("a function cannot be `{what}`"),
            );
        }
        let f = FunctionDecl {
            name,
            name_span: name_tok.span,
            span: start.to(self.prev_span()),
            specs: ds.fns,
            ret: ret.ty.clone(),
            ret_span: ret.span,
            ret_spelling: ret.spelling.clone(),
            returns,
            params,
            body,
            launch_bounds: ds.launch_bounds,
            cluster_dims: ds.cluster_dims,
            method: None,
            deduced_ret,
        };
        self.scoped.declare_function(&f, &ret);
        self.check_scoped_enums(&f);
        Ok(vec![Item::Function(f)])
    }

    /// A function declarator's name, through its `(`: the function's key,
    /// its name token, and for a namespace member defined outside its
    /// namespace the scope to return to after it.
    fn declarator_name(
        &mut self,
        qualified: Option<super::namespaces::QualName>,
        is_operator: bool,
    ) -> PResult<(String, crate::token::Token, Option<Vec<String>>)> {
        if let Some(q) = qualified {
            return self.enter_member_definition(&q);
        }
        let name_tok = if is_operator {
            self.operator_name()?
        } else {
            self.bump()
        };
        self.bump();
        let key = self.declare_value(&name_tok.text, name_tok.span);
        Ok((key, name_tok, None))
    }

    /// A function's parameters are its first locals, each with its type
    /// where `decltype` may read it (a non-array parameter; a reference's
    /// is the reference type).
    pub(super) fn start_function_locals(&mut self, params: &[ParamDecl]) {
        self.names.start_function(std::iter::empty());
        for p in params {
            let Some(name) = p.name.as_deref() else {
                continue;
            };
            self.names.declare_local(name);
            if p.dims.is_empty() {
                let by_ref = p.by_ref.map(|at| DeclaredRef {
                    at,
                    rvalue: p.rvalue,
                });
                self.names.type_last_local(declared_type(&p.ty, by_ref));
            }
        }
    }

    /// A function's parameter list after `(`, and its body (`None` after
    /// a prototype's `;`).
    fn params_and_body(
        &mut self,
    ) -> PResult<(Vec<ParamDecl>, Option<Trailing>, Option<crate::ast::Block>)> {
        let params = self.params()?;
        self.start_function_locals(&params);
        let trailing = self.trailing_return()?;
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
            return self.error(sp, Code::E0003, msg);
        };
        Ok((params, trailing, body))
    }

    /// Parameter list after `(`, consuming the `)`.
    pub(super) fn params(&mut self) -> PResult<Vec<ParamDecl>> {
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
                return self.error(
                    sp,
                    Code::E0002,
                    "variadic functions are not supported by kernelc",
                );
            }
            let start = self.span();
            let (base, span, mut ds) = self.specifiers()?;
            let grid_constant = ds.grid_constant.take();
            if let Some(sp) = ds.auto {
                return self.error(
                    sp,
                    Code::E0002,
                    "`auto` parameters are not supported by kernelc",
                );
            }
            if let Some(sp) = ds.first_non_type() {
                return self.error(
                    sp,
                    Code::E0012,
                    "a storage or function specifier cannot appear on a parameter",
                );
            }
            let Some(base) = base else {
                let (code, msg) = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                    (
                        Code::E0001,
                        format!("unknown type name `{}`", self.peek().text),
                    )
                } else {
                    let found = self.found();
                    (
                        Code::E0003,
                        format!("expected a parameter type, found {found}"),
                    )
                };
                let sp = if self.at_eof() { span } else { self.span() };
                return self.error(sp, code, msg);
            };
            let mut ty = self.pointers(base);
            // `&&` (an rvalue or forwarding reference) only on parameters.
            let mut rvalue = self.is_punct(Punct::AndAnd) && !self.at_fn_pointer();
            let (ty, by_ref, name, dims) =
                if self.is_punct(Punct::LParen) && self.is_punct_at(1, Punct::Amp) {
                    let (by_ref, name) = self.array_reference(&mut ty)?;
                    (ty, Some(by_ref), name, Vec::new())
                } else if self.at_fn_pointer() {
                    let d = self.fn_pointer_declarator(ty, Naming::Optional)?;
                    (d.ty, None, d.name.map(|t| t.text.into()), d.dims)
                } else {
                    let written = match rvalue {
                        true => Some(self.bump().span),
                        false => self.reference()?,
                    };
                    let written = written.map(|at| DeclaredRef { at, rvalue });
                    // `const_reference x`: a reference through its type.
                    let (ty, declared) = self.declared_reference(ty, written)?;
                    rvalue = declared.is_some_and(|d| d.rvalue);
                    let name = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
                        Some(self.bump().text.into())
                    } else {
                        None
                    };
                    (ty, declared.map(|d| d.at), name, self.dims()?)
                };
            if let (Some(r), false) = (by_ref, dims.is_empty()) {
                return self.error(r, Code::E0003, "arrays of references are not valid C++");
            }
            let (ty, dims) = spelled_out(ty, dims, by_ref);
            let default = if self.eat_punct(Punct::Assign) {
                Some(self.assign_expr()?)
            } else {
                None
            };
            let span = start.to(self.prev_span());
            if default.is_none() && out.iter().any(|p: &ParamDecl| p.default.is_some()) {
                // C++ [dcl.fct.default]: after a parameter with a default
                // argument, each has one.
                return self.error(
                    span,
                    Code::E0018,
                    "this parameter needs a default argument: it follows one that has a default",
                );
            }
            out.push(ParamDecl {
                name,
                ty,
                grid_constant,
                by_ref,
                rvalue,
                dims,
                default,
                span,
            });
            if self.eat_punct(Punct::Comma) {
                continue;
            }
            self.expect_punct(Punct::RParen, "to close the parameter list")?;
            return Ok(out);
        }
    }
}

impl Parser<'_> {
    /// `(&name)[N]...` of a parameter that is a reference to an array
    /// (`float (&v)[4]`), at the `(`: `ty`, the element type, becomes the
    /// array's type; returns where the `&` is and the name. The sizes
    /// must be constants the parser computes (a template's are bound in
    /// its instance).
    fn array_reference(&mut self, ty: &mut QualType) -> PResult<(Span, Option<String>)> {
        self.bump(); // `(`
        let amp = self.bump().span;
        let name = if self.peek().kind == TokenKind::Ident && !self.at_eof() {
            Some(self.bump().text.to_string())
        } else {
            None
        };
        self.expect_punct(Punct::RParen, "to close `(&name`")?;
        if !self.is_punct(Punct::LBracket) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                "expected `[` after `(&name)`: a reference to an array has its size",
            );
        }
        let dims = self.dims()?;
        let of = super::structs::FixedArray::Referenced;
        let array = self.fixed_array(ty.ty.clone(), &dims, amp, of)?;
        ty.ty = array;
        Ok((amp, name))
    }
}

/// The type `decltype` names for a variable declared `ty` (after its
/// `&`, which `by_ref` says): a reference's is the reference type.
fn declared_type(ty: &QualType, by_ref: Option<DeclaredRef>) -> crate::parser::typedefs::Typedef {
    match by_ref {
        None => (ty.ty.clone(), ty.is_const, ty.spelling.clone()),
        Some(r) => {
            let reference = super::references::refer_to(ty.clone(), r.rvalue, r.at);
            (reference.ty, false, reference.spelling)
        }
    }
}

/// A declaration whose type is an array typedef (`Row r`, `Row m[2]`)
/// as if its bounds were written on the name (`float r[4]`,
/// `float m[2][4]`): the checker and the mangler then see the array they
/// know, and a parameter decays to a pointer as C says. A reference
/// (`by_ref`) to an array typedef keeps it: it refers to the whole array.
fn spelled_out(
    mut ty: QualType,
    mut dims: Vec<Option<Expr>>,
    by_ref: Option<Span>,
) -> (QualType, Vec<Option<Expr>>) {
    if by_ref.is_some() {
        return (ty, dims);
    }
    while let CType::Array {
        elem,
        len: Some(len),
    } = &ty.ty
    {
        let bound = Expr {
            kind: crate::ast::ExprKind::IntLit {
                value: *len,
                ty: CType::ULONG,
                spelling: crate::ast::Spelling::Plain,
            },
            span: ty.span,
        };
        dims.push(Some(bound));
        ty.ty = (**elem).clone();
    }
    (ty, dims)
}

/// Whether `text` names an alignment specifier: CUDA's `__align__(N)` or
/// C++'s `alignas(N)`, which mean the same.
pub(super) fn is_align_kw(text: &str) -> bool {
    matches!(text, "__align__" | "alignas")
}

/// A trailing return type, after `->`: a type, or `decltype(expr)` over
/// the parameters, whose type the checker gives.
enum Trailing {
    Type(QualType),
    Decltype(Box<Expr>),
}

impl Parser<'_> {
    /// Whether `decltype(auto)` starts here.
    fn decltype_auto_at(&self) -> bool {
        self.is_punct_at(1, Punct::LParen)
            && self.peek_at(2).kind == TokenKind::Keyword(Keyword::Auto)
            && self.is_punct_at(3, Punct::RParen)
    }

    /// A member function's return type and how it is deduced, after its
    /// parameters and qualifiers: `auto` was written when `auto` is
    /// `Some` (`Some(true)` for `decltype(auto)`), and a trailing return
    /// type may follow.
    pub(super) fn deduced_return(
        &mut self,
        auto: Option<bool>,
        ret: QualType,
    ) -> PResult<(QualType, Option<DeducedRet>)> {
        let trailing = self.trailing_return()?;
        self.return_type(auto, ret, trailing)
    }

    /// The return type of a function whose specifiers gave `ret` (a
    /// placeholder when `auto` was written: `auto` is `Some(true)` for
    /// `decltype(auto)`), with its trailing return type.
    fn return_type(
        &mut self,
        auto: Option<bool>,
        ret: QualType,
        trailing: Option<Trailing>,
    ) -> PResult<(QualType, Option<DeducedRet>)> {
        Ok(match (auto, trailing) {
            (Some(_), Some(Trailing::Type(t))) => (t, None),
            (Some(_), Some(Trailing::Decltype(e))) => (ret, Some(DeducedRet::Decltype(e))),
            (Some(true), None) => (ret, Some(DeducedRet::DecltypeAuto)),
            (Some(false), None) => (ret, Some(DeducedRet::Auto)),
            (None, Some(_)) => {
                return self.error(
                    ret.span,
                    Code::E0003,
                    "a function with a trailing return type must be declared `auto`",
                )
            }
            (None, None) => (ret, None),
        })
    }

    /// `-> type` or `-> decltype(expr)` after a function's parameters, if
    /// written (the parameters are in scope).
    fn trailing_return(&mut self) -> PResult<Option<Trailing>> {
        if !self.eat_punct(Punct::Arrow) {
            return Ok(None);
        }
        if self.is_kw(Keyword::Decltype) && self.is_punct_at(1, Punct::LParen) {
            self.pos += 2;
            let e = self.expr()?;
            self.expect_punct(Punct::RParen, "to close `decltype(`")?;
            return Ok(Some(Trailing::Decltype(Box::new(e))));
        }
        Ok(Some(Trailing::Type(self.type_name()?)))
    }
}
