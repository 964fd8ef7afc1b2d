//! Parsing C++'s namespace constructs: `namespace` blocks and aliases,
//! `using` directives, declarations and alias declarations, and qualified
//! names in types and expressions. The name model is in `names.rs`.

use super::names::{join, Found, Kind, ANONYMOUS};
use super::{PResult, Parser, Recorded};
use crate::ast::{Expr, ExprKind, Spelling};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;

/// A qualified name as written: `[::] a :: b :: c`.
pub(super) struct QualName {
    /// Written with a leading `::` (the global namespace).
    pub global: bool,
    /// The components and their spans, outermost first.
    pub parts: Vec<(String, Span)>,
    /// How many tokens it takes.
    pub tokens: usize,
    pub span: Span,
}

impl QualName {
    /// The name as written (`a::b::c`, `::f`).
    fn written(&self) -> String {
        let parts: Vec<&str> = self.parts.iter().map(|(p, _)| p.as_str()).collect();
        let lead = if self.global { "::" } else { "" };
        format!("{lead}{}", parts.join("::"))
    }
}

/// How a namespace is named in a message.
fn shown(key: &str) -> String {
    if key.is_empty() {
        "the global namespace".to_string()
    } else {
        format!("namespace `{key}`")
    }
}

impl Parser<'_> {
    /// The qualified name starting `n` tokens ahead, if one does: it needs
    /// at least one `::` (`sim::x`, `::f`); a plain identifier is not one.
    pub(super) fn qualified_at(&self, n: usize) -> Option<QualName> {
        let mut i = n;
        let global = self.is_punct_at(i, Punct::ColonColon);
        if global {
            i += 1;
        }
        let mut parts = Vec::new();
        loop {
            if self.at_eof_at(i) || self.peek_at(i).kind != TokenKind::Ident {
                return None;
            }
            let t = self.peek_at(i);
            parts.push((t.text.to_string(), t.span));
            i += 1;
            if !self.is_punct_at(i, Punct::ColonColon) {
                break;
            }
            i += 1;
            // `Op::template identity<T>`: the keyword says a template
            // follows, which the parser knows by its name anyway.
            if self.peek_at(i).kind == TokenKind::Keyword(Keyword::Template) {
                i += 1;
            }
        }
        if !global && parts.len() < 2 {
            return None;
        }
        let span = self.peek_at(n).span.to(self.peek_at(i - 1).span);
        Some(QualName {
            global,
            parts,
            tokens: i - n,
            span,
        })
    }

    /// The namespace (or scoped enumeration, or class) `parts` names,
    /// looked up from `start` (`None`: from here; the global namespace
    /// `""` after a leading `::`; a class's key after `decltype(x)::`):
    /// its key.
    fn scope_key(
        &self,
        start: Option<String>,
        parts: &[(String, Span)],
    ) -> Result<String, Diagnostic> {
        let mut scope = start;
        for (name, span) in parts {
            let found = match &scope {
                None => self.names.lookup(Kind::Namespace, name),
                Some(s) => self.names.member(Kind::Namespace, s, name),
            };
            let next = match found {
                Found::One(key) => self.names.namespace_target(&key).map_err(|target| {
                    Diagnostic::error(
                        *span,
                        Code::E0001,
                        format!("namespace alias `{name}` names `{target}`, a namespace kernelc does not know"),
                    )
                    .with_note("kernelc knows the namespaces the program declares; CUDA's library namespaces (`cooperative_groups`, `cuda::std`) are not supported yet")
                })?,
                Found::Ambiguous(all) => return Err(ambiguous(name, *span, &all)),
                Found::None => {
                    // `E::A`: a scoped enumeration is a scope too.
                    let ty = match &scope {
                        None => self.names.lookup(Kind::Type, name),
                        Some(s) => self.names.member(Kind::Type, s, name),
                    };
                    let key = match ty {
                        Found::One(key) => Some(key),
                        // A block-scope typedef is in the table only.
                        _ if scope.is_none() && self.typedefs.contains_key(name) => {
                            Some(name.clone())
                        }
                        // A class template instance's injected name in its
                        // member template (`typename B::Tmp`, spelled
                        // `B<float>::Tmp`), parsed after the file.
                        _ if scope.is_none() && name.ends_with('>') => {
                            self.instance_in_scope(name)
                        }
                        _ => None,
                    };
                    match key {
                        // A typedef of a class is the class's scope
                        // (`using P = Pack128<T>;` then `P::size`).
                        Some(key) => match self.typedefs.get(&key) {
                            Some((CType::Struct(def), ..)) if !def.name.is_empty() => {
                                def.name.clone()
                            }
                            _ => key,
                        },
                        None => {
                            let msg = match &scope {
                                None => format!("unknown namespace `{name}`"),
                                Some(s) => format!("unknown namespace `{name}` in {}", shown(s)),
                            };
                            return Err(Diagnostic::error(*span, Code::E0001, msg));
                        }
                    }
                }
            };
            scope = Some(next);
        }
        Ok(scope.unwrap_or_default())
    }

    /// The key of the class template instance `name` (`B<float>`) names
    /// in the current scope or one around it, if there is one.
    fn instance_in_scope(&self, name: &str) -> Option<String> {
        let path = self.names.current_path();
        (0..=path.len())
            .rev()
            .map(|n| join(&path[..n].join("::"), name))
            .find(|key| self.structs.contains_key(key))
    }

    /// The key of the `kind` entity a qualified name denotes.
    pub(super) fn resolve_qualified(&self, q: &QualName, kind: Kind) -> Result<String, Diagnostic> {
        self.resolve_from(q.global.then(String::new), &q.parts, q.span, kind)
    }

    /// The key of the `kind` entity `parts` (written at `span`) denote,
    /// looked up from `start` as [`Parser::scope_key`] does.
    pub(super) fn resolve_from(
        &self,
        start: Option<String>,
        parts: &[(String, Span)],
        span: Span,
        kind: Kind,
    ) -> Result<String, Diagnostic> {
        let Some(((last, last_span), scopes)) = parts.split_last() else {
            return Err(Diagnostic::error(span, Code::E0003, "expected a name"));
        };
        let scope = self.scope_key(start, scopes)?;
        if scope.ends_with('>') {
            // A member of a class template's instance: its declarations
            // belong to the parse that made the instance.
            return Ok(join(&scope, last));
        }
        match self.names.member(kind, &scope, last) {
            Found::One(key) => Ok(key),
            Found::Ambiguous(all) => Err(ambiguous(last, *last_span, &all)),
            // `::sqrtf`, `::atomicAdd`: the built-in functions live in the
            // global namespace without a declaration the parser sees; the
            // checker knows them, and reports a name nothing declares.
            Found::None if scope.is_empty() && kind == Kind::Value => Ok(last.clone()),
            Found::None if self.base_member(&scope, kind, last).is_some() => {
                Ok(self.base_member(&scope, kind, last).unwrap_or_default())
            }
            Found::None => {
                let what = match kind {
                    Kind::Type => "type",
                    Kind::Value => "name",
                    Kind::Namespace => "namespace",
                };
                Err(Diagnostic::error(
                    *last_span,
                    Code::E0001,
                    format!("unknown {what} `{last}` in {}", shown(&scope)),
                ))
            }
        }
    }

    /// The key of the type an unqualified `name` names here (`name` itself
    /// when lookup finds nothing, or finds it in the global namespace).
    pub(super) fn type_key(&self, name: &str) -> String {
        match self.names.lookup(Kind::Type, name) {
            Found::One(key) => key,
            _ => name.to_string(),
        }
    }

    /// The type a qualified name starting `n` tokens ahead names, if it
    /// names one: the tokens it takes, and the type.
    pub(super) fn qualified_type_at(&self, n: usize) -> Option<(usize, (CType, bool, Spelling))> {
        let q = self.qualified_at(n)?;
        // `std::uint8_t`, `std::size_t`: `<cstdint>`'s and `<cstddef>`'s;
        // `cuda::std::int32_t`, `<cuda/std/cstdint>`'s, the same types.
        let std_name = match q.parts.as_slice() {
            [(ns, _), (name, _)] if ns == "std" => Some(name),
            [(cuda, _), (ns, _), (name, _)] if cuda == "cuda" && ns == "std" => Some(name),
            _ => None,
        };
        if let Some((t, spelling)) = std_name.and_then(|n| super::decl::named_type_spelled(n)) {
            return Some((q.tokens, (t, false, spelling)));
        }
        let key = self.resolve_qualified(&q, Kind::Type).ok()?;
        Some((q.tokens, self.type_named_spelled(&key)?))
    }

    /// An identifier or qualified name in an expression, resolved to its
    /// key: a local stays as written (it hides namespace members).
    pub(super) fn name_expr(&mut self) -> PResult<Expr> {
        if let Some(q) = self.qualified_at(0) {
            let key = match self.resolve_qualified(&q, Kind::Value) {
                Ok(k) => k,
                Err(d) => {
                    self.diags.push(d);
                    return Err(Recorded);
                }
            };
            self.pos += q.tokens;
            return Ok(Expr {
                kind: ExprKind::Ident(key),
                span: q.span,
            });
        }
        let tok = self.bump();
        if let Some(member) = self.implicit_member(&tok.text, tok.span) {
            return Ok(member);
        }
        let key = if self.names.is_local(&tok.text) {
            tok.text.into()
        } else {
            match self.names.lookup(Kind::Value, &tok.text) {
                Found::One(key) => key,
                Found::Ambiguous(all) => {
                    self.diags.push(ambiguous(&tok.text, tok.span, &all));
                    return Err(Recorded);
                }
                Found::None => tok.text.into(),
            }
        };
        Ok(Expr {
            kind: ExprKind::Ident(key),
            span: tok.span,
        })
    }

    /// `sim::f(` of a member defined outside its namespace: the key of
    /// the function it defines (declared in that namespace before, as C++
    /// requires), the last name's token, and the scope to return to: the
    /// parameters and the body are looked up in the function's namespace.
    /// Consumes the name and the `(`.
    pub(super) fn enter_member_definition(
        &mut self,
        q: &QualName,
    ) -> PResult<(String, crate::token::Token, Option<Vec<String>>)> {
        let key = match self.resolve_qualified(q, Kind::Value) {
            Ok(k) => k,
            Err(d) => {
                self.diags.push(d.with_note(
                    "a function defined outside its namespace must be declared in it first",
                ));
                return Err(Recorded);
            }
        };
        self.pos += q.tokens - 1;
        let mut name_tok = self.bump();
        self.bump(); // `(`
        name_tok.text = key.as_str().into();
        let scope: Vec<String> = key.split("::").map(str::to_string).collect();
        let outer = self.names.enter_scope(&scope[..scope.len() - 1]);
        Ok((key, name_tok, Some(outer)))
    }

    /// Whether `namespace`/`using` starts a namespace-scope item here.
    pub(super) fn at_namespace_item(&self) -> bool {
        self.is_kw(Keyword::Namespace)
            || self.is_kw(Keyword::Using)
            || (self.is_kw(Keyword::Inline)
                && self.peek_at(1).kind == TokenKind::Keyword(Keyword::Namespace))
    }

    /// A namespace-scope `namespace ... {`, namespace alias or `using`
    /// item. `extern_c_depth`: the `extern "C" {` blocks open around it.
    pub(super) fn namespace_item(&mut self, extern_c_depth: usize) -> PResult<()> {
        if self.is_kw(Keyword::Using) {
            return self.using_item();
        }
        let start = self.span();
        let inline = self.eat_kw(Keyword::Inline);
        self.bump(); // `namespace`
        if self.peek().kind == TokenKind::Ident && self.is_punct_at(1, Punct::Assign) {
            return self.namespace_alias();
        }
        let mut path = Vec::new();
        if self.is_punct(Punct::LBrace) {
            path.push(ANONYMOUS.to_string());
        } else {
            loop {
                if self.peek().kind != TokenKind::Ident || self.at_eof() {
                    let msg = format!("expected a namespace name, found {}", self.found());
                    let sp = self.span();
                    return self.error(sp, Code::E0003, msg);
                }
                path.push(self.bump().text.into());
                if !self.eat_punct(Punct::ColonColon) {
                    break;
                }
            }
        }
        self.expect_punct(Punct::LBrace, "to open the namespace")?;
        let span = start.to(self.prev_span());
        self.names
            .open_namespace(&path, inline, span, extern_c_depth);
        Ok(())
    }

    /// `namespace name = target;` in a block (the only `namespace` item
    /// a block may hold).
    pub(super) fn block_namespace_alias(&mut self) -> PResult<()> {
        if !(self.peek_at(1).kind == TokenKind::Ident && self.is_punct_at(2, Punct::Assign)) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                "a namespace cannot be defined inside a function; only `namespace name = target;` may appear here",
            );
        }
        self.bump(); // `namespace`
        self.namespace_alias()
    }

    /// After `namespace`: `name = target;`.
    fn namespace_alias(&mut self) -> PResult<()> {
        let name = self.bump();
        self.bump(); // `=`
        let Some(q) = self.qualified_at(0).or_else(|| self.single_name_at(0)) else {
            let msg = format!("expected a namespace name, found {}", self.found());
            let sp = self.span();
            return self.error(sp, Code::E0003, msg);
        };
        self.pos += q.tokens;
        let target = match self.scope_key(q.global.then(String::new), &q.parts) {
            Ok(key) if self.names.span_of(Kind::Namespace, &key).is_some() => Ok(key),
            // Not a namespace kernelc knows: an error only where it is used.
            _ => Err(q.written()),
        };
        self.expect_punct(Punct::Semi, "after the namespace alias")?;
        self.names.namespace_alias(&name.text, target, name.span);
        Ok(())
    }

    /// A one-identifier name at `n` as a [`QualName`].
    fn single_name_at(&self, n: usize) -> Option<QualName> {
        let t = self.peek_at(n);
        (t.kind == TokenKind::Ident && !self.at_eof_at(n)).then(|| QualName {
            global: false,
            parts: vec![(t.text.to_string(), t.span)],
            tokens: 1,
            span: t.span,
        })
    }

    /// `using namespace N;`, `using N::x;` or `using Name = type;`, at
    /// namespace or block scope.
    pub(super) fn using_item(&mut self) -> PResult<()> {
        self.bump(); // `using`
        if self.eat_kw(Keyword::Namespace) {
            let Some(q) = self.qualified_at(0).or_else(|| self.single_name_at(0)) else {
                let msg = format!("expected a namespace name, found {}", self.found());
                let sp = self.span();
                return self.error(sp, Code::E0003, msg);
            };
            let key = match self.scope_key(q.global.then(String::new), &q.parts) {
                Ok(k) => Some(k),
                // `using namespace std;`: a library namespace kernelc does
                // not model adds nothing it could find.
                Err(_) if is_library_namespace(&q.parts[0].0) => None,
                Err(d) => {
                    self.diags.push(d);
                    return Err(Recorded);
                }
            };
            self.pos += q.tokens;
            self.expect_punct(Punct::Semi, "after `using namespace`")?;
            if let Some(key) = key {
                self.names.using_directive(key);
            }
            return Ok(());
        }
        if self.peek().kind == TokenKind::Ident && self.is_punct_at(1, Punct::Assign) {
            return self.alias_declaration();
        }
        self.using_declaration()
    }

    /// After `using`: `Name = type;`, a typedef by another spelling.
    fn alias_declaration(&mut self) -> PResult<()> {
        let name = self.bump();
        self.bump(); // `=`
                     // `using reference = T &;`: a reference type (`parser::references`).
        let mut ty = self.reference_type_name()?;
        if self.is_punct(Punct::LParen) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "function types in alias declarations are not supported by kernelc yet (a function pointer type is: `using f = float (*)(float);`)",
            );
        }
        if self.is_punct(Punct::LBracket) {
            // `using Row = float[4];`
            let dims = self.dims()?;
            let of = super::structs::FixedArray::Named;
            ty.ty = self.fixed_array(ty.ty, &dims, name.span, of)?;
        }
        self.expect_punct(Punct::Semi, "after the alias declaration")?;
        self.define_typedef(name.text.into(), name.span, ty);
        Ok(())
    }

    /// After `using`: `N::x;`, which makes `x` name what `N::x` names, as
    /// a type, a value, or both.
    fn using_declaration(&mut self) -> PResult<()> {
        let Some(q) = self.qualified_at(0) else {
            let msg = format!(
                "expected `namespace`, a qualified name or `Name = type` after `using`, found {}",
                self.found()
            );
            let sp = self.span();
            return self.error(sp, Code::E0003, msg);
        };
        self.pos += q.tokens;
        let (last, _) = q.parts.last().cloned().unwrap_or_default();
        let ty = self.resolve_qualified(&q, Kind::Type);
        let value = self.resolve_qualified(&q, Kind::Value);
        match (ty, value) {
            (Err(_), Err(d)) => {
                self.diags.push(d);
                return Err(Recorded);
            }
            (ty, value) => {
                if let Ok(k) = ty {
                    self.names.declare_alias(Kind::Type, &last, &k);
                }
                if let Ok(k) = value {
                    self.names.declare_alias(Kind::Value, &last, &k);
                }
            }
        }
        self.expect_punct(Punct::Semi, "after the `using` declaration")?;
        Ok(())
    }

    /// Records the typedef `name` (its key in the current scope).
    pub(super) fn define_typedef(&mut self, name: String, span: Span, ty: crate::ast::QualType) {
        let key = self.names.qualify(&name);
        let named = Self::name_anonymous_struct(ty.ty, &key);
        let spelling = match ty.spelling {
            Spelling::Enum(tag) if tag.is_empty() => Spelling::Enum(key.clone()),
            other => other,
        };
        let typedef = (named, ty.is_const, spelling);
        if self.names.block_depth == 0 {
            self.names.declare(Kind::Type, &key, span);
            self.typedefs.insert(key, typedef);
        } else {
            self.typedefs.insert_local(key, typedef);
        }
    }

    /// The `}` closing a namespace, when the innermost open block is one.
    pub(super) fn at_namespace_close(&self, extern_c_depth: usize) -> bool {
        self.is_punct(Punct::RBrace)
            && self
                .names
                .open
                .last()
                .is_some_and(|o| o.extern_c_depth == extern_c_depth)
    }

    /// Declares a namespace-scope value (function, variable, enumerator)
    /// named `name` here: its key.
    pub(super) fn declare_value(&mut self, name: &str, span: Span) -> String {
        let key = self.names.qualify(name);
        if self.names.block_depth == 0 {
            self.names.declare(Kind::Value, &key, span);
        } else {
            self.names.declare_local(name);
        }
        key
    }

    /// Declares a type named `name` here: its key.
    pub(super) fn declare_type(&mut self, name: &str, span: Span) -> String {
        let key = self.names.qualify(name);
        if self.names.block_depth == 0 {
            self.names.declare(Kind::Type, &key, span);
        }
        key
    }

    /// The key of enumerator `name` of the enumeration keyed `enum_key`:
    /// inside it when scoped (`E::A`), beside it otherwise (where `E::A`
    /// names it too).
    pub(super) fn declare_enumerator(
        &mut self,
        name: &str,
        span: Span,
        enum_key: Option<&str>,
        scoped: bool,
    ) -> String {
        match (enum_key, scoped) {
            (Some(e), true) => {
                let key = join(e, name);
                self.names.declare(Kind::Value, &key, span);
                key
            }
            (e, _) => {
                let key = self.declare_value(name, span);
                if let (Some(e), 0) = (e, self.names.block_depth) {
                    self.names.alias_key(Kind::Value, &join(e, name), &key);
                }
                key
            }
        }
    }
}

/// Whether `name` is a namespace of C++'s or CUDA's libraries, which the
/// program's headers declare and kernelc does not model.
fn is_library_namespace(name: &str) -> bool {
    matches!(
        name,
        "std" | "cuda" | "cooperative_groups" | "nvcuda" | "cub" | "thrust"
    )
}

/// E0021: `name` finds several entities.
fn ambiguous(name: &str, span: Span, all: &[(String, Span)]) -> Diagnostic {
    let mut d = Diagnostic::error(span, Code::E0021, format!("`{name}` is ambiguous"));
    for (key, at) in all {
        d = d.with_label(*at, format!("it could be `{key}`, declared here"));
    }
    d.with_note("two `using namespace` directives make both visible; qualify the name (`ns::name`) to choose one")
}
