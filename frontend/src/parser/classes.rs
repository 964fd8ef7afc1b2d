//! Classes in the parser: member functions, constructors, `this`, static
//! members and the names of overloaded operators.
//!
//! A class is kernelc's struct (its layout is the struct's) plus functions.
//! The parser turns each member function into an ordinary function whose
//! key is qualified by the class (`sim::Ray::at`), so everything after the
//! parser sees functions, as C sees them; what is left of C++ is a
//! [`Method`] on the function, which the checker reads to bind `this`:
//!
//! - A non-static member function gets a first parameter `this`, a
//!   pointer to the class (to `const` in a `const` member function). A
//!   name in its body that is a member of the class and not a local is
//!   `this->name` ([`Parser::implicit_member`]).
//! - A constructor is a member function `Ray::Ray` returning `void` whose
//!   member initializers (`: origin(o), dir(d)`) become assignments at
//!   the start of its body. The checker constructs an object by calling
//!   it on a temporary or on the variable being declared.
//! - A static member function is a function in the class's scope; a
//!   static `const`/`constexpr` data member is a variable there.
//! - An operator function is named by its operator (`operator+`); the
//!   checker calls it for an expression whose operand is a class.
//!
//! **Complete-class context.** A member function's body (and its
//! signature, which may name the class by value) may use members declared
//! after it, so member functions are only skimmed while the class is read
//! ([`Parser::scan_member`] finds their extent and whether they are device
//! code) and parsed once the class is laid out, by going back to their
//! tokens. A member function that is not `__device__` is host code,
//! skipped as the split phase skips host functions: its body may use any
//! C++.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::names::Kind;
use super::{PResult, Parser};
use crate::access::{Access, Restricted};
use crate::ast::{
    Block, Expr, ExprKind, FnSpecs, FunctionDecl, Item, Method, ParamDecl, QualType, RefQualifier,
    Returns, Spelling, Stmt, StmtKind,
};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, TokenKind};
use crate::types::CType;

/// The class whose member function is being parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassCtx {
    /// The class's key.
    pub key: String,
    /// Its non-static data members.
    pub fields: FxHashSet<String>,
    /// Its non-static member functions, by name.
    pub methods: FxHashSet<String>,
    /// Inside a non-static member function (`this` exists).
    pub has_this: bool,
    /// A lambda's closure type (`lambdas.rs`): `this` in its call
    /// operator's body is the enclosing object's, which `enclosing`
    /// gives when the lambda captured it.
    pub closure: bool,
    /// For a closure that captured the enclosing object (`[this]`,
    /// `[*this]`): that object's class, and whether the closure holds a
    /// copy of the object (`[*this]`) rather than its address.
    pub enclosing: Option<Box<(ClassCtx, bool)>>,
    /// Its default member initializers ([`ClassMembers::defaults`]).
    pub defaults: Arc<[super::bases::MemberInit]>,
}

/// A member function or static data member met while reading a class,
/// parsed once the class is complete.
pub(super) struct Deferred {
    /// Its first token.
    start: usize,
    /// The token after it.
    end: usize,
    kind: DeferredKind,
}

/// What a [`Deferred`] member is, in the order they are read.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum DeferredKind {
    /// A static data member: the others may name it (C++'s complete-class
    /// context), and sema checks items in order.
    StaticData,
    /// A `static_assert`, which may name the class's static members
    /// (`static_assert(size == 4)`).
    Assertion,
    Function,
}

/// The members a class body defers, and the names they declare.
#[derive(Default)]
pub(super) struct ClassMembers {
    pub deferred: Vec<Deferred>,
    pub methods: FxHashSet<String>,
    /// The values of its `static constexpr` integer members the parser
    /// can compute, by name: the class's own member arrays may be sized
    /// by them (`static constexpr int size = 16 / sizeof(T); T v[size];`).
    pub constants: FxHashMap<String, i128>,
    /// Its member templates, registered once the class is complete.
    pub templates: Vec<MemberTemplate>,
    /// The access of the members read now (`private:`, or a `class`'s
    /// first ones).
    pub access: crate::access::Access,
    /// Who may name the class's members (`crate::access`).
    pub rights: crate::access::ClassAccess,
    /// The names a using-declaration brings in from a base (`using
    /// Base<T>::get;`): the base's member functions overload the class's.
    pub using: Vec<String>,
    /// Not a POD for the purpose of layout (`crate::bases`): a data member
    /// that is not public or not such a POD, or a user-provided
    /// constructor, destructor or copy assignment.
    pub non_pod: bool,
    /// The default member initializers (`float sum = 0.f;`, `int n{4};`),
    /// as constructor member initializers: what a constructor that does
    /// not initialize the member itself runs.
    pub defaults: Vec<super::bases::MemberInit>,
    /// The data members whose base type's spelling their `CType` forgets
    /// (`long long v;`), by name (`types::Field::spelling`).
    pub spellings: FxHashMap<String, crate::ast::Spelling>,
}

impl ClassMembers {
    /// Records member `name`, declared at `span`, when the members read
    /// now are not public.
    pub fn restrict(&mut self, name: &str, span: Span) {
        if self.access != Access::Public {
            self.rights.restricted.push(Restricted {
                name: name.to_string(),
                span,
                access: self.access,
            });
        }
    }
}

/// A member template met while reading a class: its parameters and the
/// member's declaration (token indices `start..end`).
pub(super) struct MemberTemplate {
    params: Vec<crate::templates::TemplateParam>,
    start: usize,
    end: usize,
    pub(super) name: String,
    name_span: Span,
}

/// What a member function's declaration says before its parameters.
struct MemberHead {
    key: String,
    name_span: Span,
    /// Its first token.
    start: Span,
    specs: FnSpecs,
    ret: QualType,
    /// A value, or a reference (then `ret` is its pointer).
    returns: Returns,
    method: Option<Method>,
    /// A friend defined in the class: a function of the enclosing
    /// namespace.
    friend: bool,
}

/// What [`Parser::scan_member`] finds at the start of a member.
enum Shape {
    /// A data member, parsed as before.
    Data,
    /// A `static` data member ending before token `end`.
    StaticData { end: usize, constant: bool },
    /// A member function (or constructor, destructor, operator).
    Function {
        name: String,
        name_span: Span,
        device: bool,
        /// `constexpr`: kept without `__device__` too.
        constexpr: bool,
        is_static: bool,
        friend: bool,
        end: usize,
        /// Where `virtual` was written.
        virtual_at: Option<Span>,
    },
}

/// Identifiers that take a parenthesized argument and may appear among a
/// member's specifiers.
fn is_attribute(text: &str) -> bool {
    matches!(
        text,
        "__align__" | "alignas" | "__attribute__" | "__declspec" | "noexcept"
    )
}

impl Parser<'_> {
    /// Reads one member of a class body at the current token if it is not
    /// a plain data member: an access specifier, a member function (kept
    /// in `members` to parse later, or skipped as host code), a static
    /// data member. `Ok(false)` leaves a data member to the caller.
    pub(super) fn class_member(
        &mut self,
        class_key: Option<&str>,
        members: &mut ClassMembers,
    ) -> PResult<bool> {
        if self.peek().kind == TokenKind::Ident
            && matches!(
                self.peek().text.as_str(),
                "public" | "private" | "protected"
            )
            && self.is_punct_at(1, Punct::Colon)
        {
            members.access = Access::from_keyword(&self.peek().text).unwrap_or(Access::Public);
            self.pos += 2;
            return Ok(true);
        }
        if self.friend_class(class_key, members) {
            return Ok(true);
        }
        if self.is_kw(Keyword::Template) {
            return self.member_template(class_key, members);
        }
        if let Some(name) = self.using_member() {
            members.using.push(name);
            return Ok(true);
        }
        if self.is_kw(Keyword::Using) || self.is_kw(Keyword::Typedef) {
            self.member_type(class_key)?;
            return Ok(true);
        }
        if self.is_kw(Keyword::StaticAssert) {
            // Checked with the class's other items (an instance's with its
            // arguments bound), once the class is complete; a local
            // class's at once, as it has no static members.
            if class_key.is_none() {
                let assertion = self.static_assert()?;
                self.pending_items.push(Item::StaticAssert(assertion));
                return Ok(true);
            }
            let (start, end) = (self.pos, self.item_end(self.pos));
            let kind = DeferredKind::Assertion;
            members.deferred.push(Deferred { start, end, kind });
            self.pos = end;
            return Ok(true);
        }
        let start = self.pos;
        match self.scan_member() {
            Shape::Data => Ok(false),
            Shape::StaticData { end, constant } => {
                if let Some(name) = self.toks[start..end].windows(2).find(|w| {
                    w[0].kind == TokenKind::Ident
                        && matches!(
                            w[1].kind,
                            TokenKind::Punct(
                                Punct::Assign | Punct::Semi | Punct::LBracket | Punct::LBrace
                            )
                        )
                }) {
                    members.restrict(&name[0].text, name[0].span);
                }
                if constant {
                    self.class_constant(end, class_key, members);
                    members.deferred.push(Deferred {
                        start,
                        end,
                        kind: DeferredKind::StaticData,
                    });
                }
                // A non-constant static data member is a host variable
                // unless declared `__device__`, and needs a definition
                // outside the class either way: device code that uses it
                // gets the checker's error for an unknown name.
                self.pos = end;
                Ok(true)
            }
            Shape::Function {
                virtual_at: Some(sp),
                end,
                ..
            } => {
                // Reported, and the member skipped: the class is still
                // defined, so its uses give no second error.
                self.diags.push(Diagnostic::error(
                    sp,
                    Code::E0002,
                    "classes with virtual functions are not supported by kernelc in device code (their objects hold a hidden pointer to a table of functions)",
                ));
                self.pos = end;
                Ok(true)
            }
            Shape::Function {
                name,
                name_span,
                device,
                constexpr,
                is_static,
                friend,
                end,
                virtual_at: None,
            } => {
                self.pos = end;
                // A defaulted function is the implicit one, which CUDA
                // makes `__host__ __device__`.
                let defaulted = end >= 3
                    && self.toks[end - 3].kind == TokenKind::Punct(Punct::Assign)
                    && self.toks[end - 2].text == "default";
                let deleted = end >= 3
                    && self.toks[end - 3].kind == TokenKind::Punct(Punct::Assign)
                    && self.toks[end - 2].text == "delete";
                if !friend && !defaulted && !deleted && is_special_member(class_key, &name) {
                    members.non_pod = true;
                }
                // A `constexpr` member is kept as the split keeps a
                // `constexpr` function: the checker decides which calls of
                // it device code may make (E0017).
                if !device && !defaulted && !constexpr {
                    return Ok(true);
                }
                let Some(class_key) = class_key else {
                    return self.error(
                        name_span,
                        Code::E0002,
                        "member functions of an unnamed or local struct are not supported by kernelc",
                    );
                };
                if friend {
                    let scope = crate::mangle::split_member(class_key).map_or("", |(s, _)| s);
                    let key = super::names::join(scope, &name);
                    members.rights.friends.push(key);
                } else {
                    members.restrict(&name, name_span);
                    let key = super::names::join(class_key, &name);
                    self.names.declare(Kind::Value, &key, name_span);
                    if !is_static {
                        members.methods.insert(name);
                    }
                }
                members.deferred.push(Deferred {
                    start,
                    end,
                    kind: DeferredKind::Function,
                });
                Ok(true)
            }
        }
    }

    /// `friend class Name;` (or `struct`, or `friend Name;`): every member
    /// function of class `Name` may name this class's members. `Name` is
    /// the class known by it, else one of the enclosing namespace
    /// ([namespace.memdef]). Whether that was the member.
    fn friend_class(&mut self, class_key: Option<&str>, members: &mut ClassMembers) -> bool {
        if self.peek().kind != TokenKind::Ident || self.peek().text != "friend" {
            return false;
        }
        let mut n = 1;
        if matches!(
            self.peek_at(n).kind,
            TokenKind::Keyword(Keyword::Class | Keyword::Struct)
        ) {
            n += 1;
        }
        let mut written = Vec::new();
        while self.peek_at(n).kind == TokenKind::Ident {
            written.push(self.peek_at(n).text.to_string());
            n += 1;
            if !self.is_punct_at(n, Punct::ColonColon) {
                break;
            }
            n += 1;
        }
        if self.is_punct_at(n, Punct::Lt) {
            // `friend struct Base<Impl>;` (CRTP): kept as the template,
            // which befriends each of its instances.
            n = skip_angles(&self.toks[self.pos..], n);
        }
        if written.is_empty() || !self.is_punct_at(n, Punct::Semi) {
            return false;
        }
        let key = match self.names.lookup(Kind::Type, &written.join("::")) {
            super::names::Found::One(key) => key,
            _ if written.len() > 1 => written.join("::"),
            _ => {
                let scope = class_key.and_then(crate::mangle::split_member);
                super::names::join(scope.map_or("", |(s, _)| s), &written[0])
            }
        };
        members.rights.friends.push(key);
        self.pos += n + 1;
        true
    }

    /// `template <...>` before a member function: kept as tokens, with its
    /// parameters, and registered as a function template of the class
    /// once the class is complete ([`Parser::class_bodies`]).
    fn member_template(
        &mut self,
        class_key: Option<&str>,
        members: &mut ClassMembers,
    ) -> PResult<bool> {
        let kw = self.bump().span;
        self.expect_punct(Punct::Lt, "after `template`")?;
        let params = self.template_params()?;
        let start = self.pos;
        let (name, name_span, device, constexpr, is_static, end) = match self.scan_member() {
            Shape::Function {
                name,
                name_span,
                device,
                constexpr,
                is_static,
                end,
                friend: false,
                virtual_at: None,
            } => (name, name_span, device, constexpr, is_static, end),
            _ => {
                return self.error(
                    kw,
                    Code::E0002,
                    "this member template is not supported by kernelc (only member function templates are)",
                )
            }
        };
        self.pos = end;
        members.restrict(&name, name_span);
        if !device && !constexpr {
            // Host code, as a host member function is.
            return Ok(true);
        }
        let Some(class_key) = class_key else {
            return self.error(
                kw,
                Code::E0002,
                "member templates of an unnamed or local struct are not supported by kernelc",
            );
        };
        let key = super::names::join(class_key, &name);
        self.names.declare(Kind::Value, &key, name_span);
        if !is_static {
            members.methods.insert(name.clone());
        }
        members.templates.push(MemberTemplate {
            params,
            start,
            end,
            name,
            name_span,
        });
        Ok(true)
    }

    /// Registers the member templates of the complete class `class` (with
    /// context `ctx`), each with its pattern: the member's header read as
    /// a member with placeholders for the type parameters.
    fn register_member_templates(
        &mut self,
        class: &CType,
        ctx: &ClassCtx,
        templates: Vec<MemberTemplate>,
    ) {
        let scope = match self.names.current_key() {
            k if k.is_empty() => Vec::new(),
            k => k.split("::").map(str::to_string).collect(),
        };
        for m in templates {
            let tokens = self.toks[m.start..m.end].to_vec();
            let (pattern, param_pack) = self.member_pattern(class, ctx, &tokens, &m.params);
            let key = super::names::join(&ctx.key, &m.name);
            let template = crate::templates::FunctionTemplate {
                name: key.clone(),
                scope: scope.clone(),
                params: m.params,
                tokens,
                name_span: m.name_span,
                is_kernel: false,
                pattern,
                member_of: Some(ctx.key.clone()),
                param_pack,
            };
            if !self.instance_sites.is_empty() {
                self.share_instance_member_template(ctx, template);
                continue;
            }
            let index = self.templates.functions.len();
            self.templates.functions.push(template);
            Arc::make_mut(&mut self.templates.by_name)
                .entry(key)
                .or_default()
                .push(index);
        }
    }

    /// A member template of the class template instance being parsed:
    /// shared with every parse, which hands it on to the translation
    /// unit's templates (`crate::templates::InstanceMemberTemplates`), with
    /// the instance's context and parameter bindings, which its own
    /// instances are parsed with.
    fn share_instance_member_template(
        &mut self,
        ctx: &ClassCtx,
        template: crate::templates::FunctionTemplate,
    ) {
        let Ok(mut shared) = self.instances.lock() else {
            return;
        };
        let members = &mut shared.member_templates;
        members.templates.push(template);
        members
            .classes
            .entry(ctx.key.clone())
            .or_insert_with(|| (ctx.clone(), self.instance_bindings.clone()));
    }

    /// Whether `key` (`A<float>::make`) names a member template of a
    /// class template instance.
    pub(super) fn is_member_template(&self, key: &str) -> bool {
        self.templates.by_name.contains_key(key)
            || self.instances.lock().is_ok_and(|shared| {
                shared
                    .member_templates
                    .templates
                    .iter()
                    .any(|t| t.name == key)
            })
    }

    /// Whether a class template instance has a member template named
    /// `name`.
    pub(super) fn instance_has_member_template(&self, name: &str) -> bool {
        let Ok(shared) = self.instances.lock() else {
            return false;
        };
        let members = &shared.member_templates;
        let registered = members.classes.keys().any(|class| {
            let key = super::names::join(class, name);
            self.templates.by_name.contains_key(&key)
                || members.templates.iter().any(|t| t.name == key)
        });
        registered || shared.bases.postpones_member_template(name)
    }

    /// A member template's header as a member of `class`, its type
    /// parameters placeholders (for deduction), or `None`; and the index
    /// of its function parameter pack among the parameters written.
    fn member_pattern(
        &self,
        class: &CType,
        ctx: &ClassCtx,
        tokens: &[crate::token::Token],
        params: &[crate::templates::TemplateParam],
    ) -> (Option<FunctionDecl>, Option<usize>) {
        let (header, param_pack) = super::templates::pattern_header(tokens, params);
        let mut sub = self.pattern_parser(&header, params);
        let path = super::names::key_path(&ctx.key);
        sub.names.enter_scope(&path);
        let f = sub.member_function(class, ctx).ok().flatten();
        if !sub.diags.is_empty() {
            return (None, param_pack);
        }
        (f, param_pack)
    }

    /// The instance of a member template of `class` (its key): the
    /// tokens, read as a member of the class in its scope.
    pub(super) fn member_template_instance(&mut self, class: &str) -> Option<FunctionDecl> {
        let ctx = match self.classes.get(class) {
            Some(ctx) => ctx.clone(),
            None => {
                // A class template instance's: its parameters bound too.
                let shared = self.instances.lock().ok()?;
                let (ctx, bindings) = shared.member_templates.classes.get(class)?.clone();
                drop(shared);
                self.bind_types(bindings);
                ctx
            }
        };
        let def = self.instance_named(class)?;
        let path = super::names::key_path(class);
        self.names.enter_scope(&path);
        // The instance's static data members, declared in its own parse.
        let statics = self.instances.lock().ok()?.statics.get(class).cloned();
        for key in statics.unwrap_or_default() {
            let at = self.span();
            self.names.declare(super::names::Kind::Value, &key, at);
        }
        self.member_function(&CType::Struct(def), &ctx).ok()?
    }

    /// A member type (`using Acc = long long;`, `typedef T value_type;`),
    /// declared in the class's scope (`Traits<int>::Acc`).
    fn member_type(&mut self, class_key: Option<&str>) -> PResult<()> {
        let outer = class_key.map(|k| self.names.enter_scope(&super::names::key_path(k)));
        let r = if self.is_kw(Keyword::Using) {
            self.using_item()
        } else {
            self.external_decl(false).map(drop)
        };
        if let Some(outer) = outer {
            self.names.leave_scope(outer);
        }
        r
    }

    /// Keeps the value of the static constant data member from the current
    /// token to `end` when it is an integer the parser can compute: for
    /// the class's own member arrays, and as `Class::name` for the rest of
    /// the file.
    fn class_constant(&mut self, end: usize, class_key: Option<&str>, members: &mut ClassMembers) {
        let toks = &self.toks[self.pos..end];
        let Some(eq) = toks
            .iter()
            .position(|t| t.kind == TokenKind::Punct(Punct::Assign))
        else {
            return;
        };
        let integral = toks[..eq].iter().all(|t| match &t.kind {
            TokenKind::Keyword(k) => !matches!(k, Keyword::Float | Keyword::Double),
            TokenKind::Ident => true,
            _ => false,
        });
        let value_end = toks.len() - usize::from(is_punct_tok(toks.last(), Punct::Semi));
        if !integral || eq == 0 || toks[eq - 1].kind != TokenKind::Ident {
            return;
        }
        let name = toks[eq - 1].text.clone();
        let mut sub = self.sub_parser(&toks[eq + 1..value_end], Vec::new());
        let Ok(e) = sub.cond_value() else {
            return;
        };
        let known = |n: &str| {
            members
                .constants
                .get(n)
                .copied()
                .or_else(|| self.enclosing_constant(n))
                .or_else(|| self.constant(n))
        };
        let Some(v) = super::structs::const_dim(&e, &known) else {
            return;
        };
        if let Some(class) = class_key {
            Arc::make_mut(&mut self.constants).insert(super::names::join(class, &name), v);
        }
        members.constants.insert(name.to_string(), v);
    }

    /// Skims the member at the current token without consuming it.
    // Long: one walk over the member's tokens at bracket depth 0, one arm
    // per token that decides what the member is.
    fn scan_member(&self) -> Shape {
        let toks = &self.toks[self.pos..];
        let (mut device, mut is_static, mut friend, mut constant) = (false, false, false, false);
        let mut constexpr = false;
        let mut virtual_at = None;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            match &t.kind {
                TokenKind::Keyword(Keyword::Device | Keyword::Global) => device = true,
                TokenKind::Keyword(Keyword::Static) => is_static = true,
                TokenKind::Keyword(Keyword::Const) => constant = true,
                TokenKind::Keyword(Keyword::Constexpr) => (constant, constexpr) = (true, true),
                TokenKind::Ident if t.text == "friend" => friend = true,
                TokenKind::Ident if t.text == "virtual" => virtual_at = Some(t.span),
                TokenKind::Keyword(Keyword::LaunchBounds | Keyword::ClusterDims)
                    if is_punct_tok(toks.get(i + 1), Punct::LParen) =>
                {
                    i = skip_balanced(toks, i + 1);
                    continue;
                }
                TokenKind::Ident
                    if is_attribute(&t.text) && is_punct_tok(toks.get(i + 1), Punct::LParen) =>
                {
                    i = skip_balanced(toks, i + 1);
                    continue;
                }
                TokenKind::Punct(Punct::Lt) => {
                    // Template arguments of a type (`Vec<float, 4> v;`).
                    i = skip_angles(toks, i);
                    continue;
                }
                TokenKind::Keyword(Keyword::Operator) => {
                    let (name, paren) = operator_name_at(toks, i);
                    let end = function_end(toks, paren);
                    return Shape::Function {
                        name,
                        name_span: t.span,
                        device,
                        constexpr,
                        is_static,
                        friend,
                        end: self.pos + end,
                        virtual_at,
                    };
                }
                TokenKind::Punct(Punct::LParen) => {
                    let pointer = toks.get(i + 1).is_some_and(|n| {
                        matches!(n.kind, TokenKind::Punct(Punct::Star | Punct::Amp))
                    });
                    if pointer || i == 0 {
                        return Shape::Data;
                    }
                    let prev = &toks[i - 1];
                    let mut name = prev.text.to_string();
                    if i >= 2 && is_punct_tok(toks.get(i - 2), Punct::Tilde) {
                        name = format!("~{name}");
                    }
                    return Shape::Function {
                        name,
                        name_span: prev.span,
                        device,
                        constexpr,
                        is_static,
                        friend,
                        end: self.pos + function_end(toks, i),
                        virtual_at,
                    };
                }
                TokenKind::Punct(
                    Punct::Semi | Punct::Assign | Punct::LBrace | Punct::LBracket | Punct::Colon,
                ) => {
                    if is_static {
                        let end = self.pos + statement_end(toks, i);
                        return Shape::StaticData { end, constant };
                    }
                    return Shape::Data;
                }
                _ => {}
            }
            i += 1;
        }
        Shape::Data
    }

    /// Parses the members a class deferred, now that it is complete: its
    /// member functions as functions, its static data members as
    /// variables, all in the class's scope. They become items before the
    /// declaration that defined the class.
    pub(super) fn class_bodies(&mut self, class: &CType, members: ClassMembers) {
        let Some(def) = class.struct_def() else {
            return;
        };
        let resume = self.pos;
        // Each body is parsed from this nesting depth (a class may be
        // defined inside a block or another class's body).
        let depth = self.depth;
        let first = self.pending_items.len();
        let ctor_name = crate::mangle::unqualified(&def.name).to_string();
        // A class without constructors whose members have default
        // initializers gets the implicit default constructor that runs
        // them (C++'s, `__host__ __device__` as CUDA makes it).
        let implicit_ctor = !members.defaults.is_empty() && !members.methods.contains(&ctor_name);
        let mut methods = members.methods;
        if implicit_ctor {
            methods.insert(ctor_name.clone());
        }
        let ctx = self.class_context(def, methods, members.defaults);
        Arc::make_mut(&mut self.classes).insert(def.name.clone(), ctx.clone());
        self.register_member_templates(class, &ctx, members.templates);
        let path = super::names::key_path(&def.name);
        // Static data members first: a member function's body may name
        // one declared below it (C++'s complete-class context), and sema
        // checks items in order.
        let mut deferred = members.deferred;
        deferred.sort_by_key(|d| d.kind);
        for d in deferred {
            self.pos = d.start;
            let outer = self.names.enter_scope(&path);
            let parsed = match d.kind {
                // Only constants of arithmetic type can be device data
                // without a definition outside the class; the others
                // (`static constexpr const char *name`) are host data.
                DeferredKind::StaticData => self.external_decl(false).map(|items| {
                    items
                        .into_iter()
                        .filter(|i| matches!(i, Item::Var(v) if v.ty.ty.is_arithmetic() && v.dims.is_empty()))
                        .collect::<Vec<Item>>()
                }),
                DeferredKind::Assertion => self.static_assert().map(|a| vec![Item::StaticAssert(a)]),
                DeferredKind::Function => self
                    .member_function(class, &ctx)
                    .map(|f| f.map(Item::Function).into_iter().collect()),
            };
            self.names.leave_scope(outer);
            if let Ok(items) = parsed {
                self.pending_items.extend(items);
            }
            self.abandon_item = false;
            // A body abandoned at the error limit left its frames entered.
            self.depth = depth;
            self.pos = d.end;
        }
        self.pos = resume;
        if implicit_ctor {
            let ctor = self.implicit_constructor(class, &ctx, &ctor_name);
            self.pending_items.push(Item::Function(ctor));
        }
        if self.enclosing_classes.is_empty() && !self.nested_bodies.is_empty() {
            // Their prototypes join this class's below.
            let outer = std::mem::replace(&mut self.prototypes_by_outer, true);
            self.nested_class_bodies();
            self.prototypes_by_outer = outer;
        }
        if self.prototypes_by_outer {
            return;
        }
        // Every member is declared before any body is checked: prototypes
        // first (C++'s complete-class context). Those of nested classes
        // read with this one, too, declared only or not (a body here may
        // call one).
        let nested = |f: &FunctionDecl| f.method.as_ref().is_some_and(|m| m.class != def.name);
        let prototypes: Vec<Item> = self.pending_items[first..]
            .iter()
            .filter_map(|i| match i {
                Item::Function(f) if f.body.is_some() || nested(f) => {
                    Some(Item::Function(FunctionDecl {
                        body: None,
                        ..f.clone()
                    }))
                }
                _ => None,
            })
            .collect();
        self.pending_items.splice(first..first, prototypes);
    }

    /// The member bodies of the classes nested in the outermost class just
    /// completed ([`Parser::nested_bodies`]), innermost first.
    pub(super) fn nested_class_bodies(&mut self) {
        for (nested, members) in std::mem::take(&mut self.nested_bodies) {
            self.member_bodies_of(&nested, members);
        }
    }

    /// The implicit default constructor of `class` (named `name`), whose
    /// body runs the default member initializers; the class stays an
    /// aggregate (`Method::aggregate`).
    fn implicit_constructor(&mut self, class: &CType, ctx: &ClassCtx, name: &str) -> FunctionDecl {
        let span = ctx.defaults.first().map_or(self.span(), |(_, _, sp)| *sp);
        let specs = FnSpecs {
            device: true,
            host: true,
            inline: true,
            ..FnSpecs::default()
        };
        let body = Block {
            stmts: self.member_initializations(class, ctx, Vec::new(), span),
            span,
        };
        let head = MemberHead {
            friend: false,
            key: super::names::join(&ctx.key, name),
            name_span: span,
            start: span,
            specs,
            ret: QualType::plain(CType::Void, span),
            returns: Returns::Value,
            method: Some(Method {
                class: ctx.key.clone(),
                is_const: false,
                is_ctor: true,
                aggregate: true,
                ref_qualifier: crate::ast::RefQualifier::None,
            }),
        };
        self.member_decl(head, vec![this_param(class, false, span)], Some(body))
    }

    /// A member function of `class` at its first token; `None` for one
    /// that defines nothing (`= default` on a destructor, `= delete`).
    fn member_function(&mut self, class: &CType, ctx: &ClassCtx) -> PResult<Option<FunctionDecl>> {
        let start = self.span();
        let mut friend = false;
        while self.peek().kind == TokenKind::Ident {
            match self.peek().text.as_str() {
                "explicit" => {}
                "friend" => friend = true,
                _ => break,
            }
            self.bump();
        }
        // The last component outside template arguments (an instance's
        // key may hold `::` in them: `BlockScan<int, 256, scan::Sum>`).
        let class_name = super::names::key_path(&ctx.key).pop().unwrap_or_default();
        let ctor = self.constructor_at(&class_name);
        let mut deduced = None;
        let (ret, returns, specs, name_tok, is_static) = match ctor {
            Some(n) => {
                let specs = self.function_specifiers(n);
                let name_tok = self.bump();
                (
                    QualType::plain(CType::Void, name_tok.span),
                    Returns::Value,
                    specs,
                    name_tok,
                    false,
                )
            }
            None => {
                let specs = self.function_specifiers_ahead();
                if self.is_punct_at(specs, Punct::Tilde) {
                    let specs = self.function_specifiers(specs);
                    return self.destructor(class, ctx, start, specs);
                }
                let (base, _, ds) = self.specifiers()?;
                if base.is_none() && self.is_kw(Keyword::Operator) {
                    let (ret, name_tok) = self.conversion_function_name()?;
                    (ret, Returns::Value, ds.fns, name_tok, false)
                } else {
                    let Some(base) = base else {
                        let sp = self.span();
                        return self.error(
                            sp,
                            Code::E0003,
                            format!(
                                "expected a member function's return type, found {}",
                                self.found()
                            ),
                        );
                    };
                    if ds.auto.is_some() {
                        deduced = Some(ds.decltype_auto);
                    }
                    let ret = self.pointers(base);
                    let (ret, returns) = self.returned_reference(ret)?;
                    let name_tok = self.function_name()?;
                    (ret, returns, ds.fns, name_tok, ds.storage.is_static)
                }
            }
        };
        self.expect_punct(Punct::LParen, "to open the parameter list")?;
        let mut params = self.params()?;
        let is_const = self.eat_kw(Keyword::Const);
        let ref_qualifier = match ctor {
            Some(_) => self
                .unqualified_suffixes(name_tok.span)
                .map(|()| RefQualifier::None)?,
            None => self.function_suffixes()?,
        };
        let (ret, deduced_ret) = self.deduced_return(deduced, ret)?;
        let has_this = !is_static && !friend;
        let key = if friend {
            // A friend defined in its class is a function of the
            // enclosing namespace.
            let ns = ctx.key.rsplit_once("::").map_or("", |(ns, _)| ns);
            super::names::join(ns, &name_tok.text)
        } else {
            super::names::join(&ctx.key, &name_tok.text)
        };
        if has_this {
            params.insert(0, this_param(class, is_const, name_tok.span));
        }
        let body = if self.eat_punct(Punct::Assign) {
            // `= default;` (the implicit function: nothing to do for a
            // constructor) or `= delete;` (no function).
            let what = self.bump();
            self.expect_punct(Punct::Semi, "after a defaulted or deleted function")?;
            if what.text != "default" || ctor.is_none() {
                return Ok(None);
            }
            Some(Block {
                stmts: self.member_initializations(class, ctx, Vec::new(), what.span),
                span: what.span,
            })
        } else {
            self.member_body(class, ctx, has_this, ctor.is_some(), &params)?
        };
        let method = has_this.then(|| Method {
            class: ctx.key.clone(),
            is_const,
            is_ctor: ctor.is_some(),
            aggregate: false,
            ref_qualifier,
        });
        // A member function has its class's linkage, `static` or not (C++
        // [class.mfct]); one defined in its class is inline ([dcl.inline]),
        // so a weak symbol under `-rdc=true`, as nvcc makes it.
        let specs = FnSpecs {
            is_static: false,
            inline: specs.inline || body.is_some(),
            ..specs
        };
        let head = MemberHead {
            friend,
            key,
            name_span: name_tok.span,
            start,
            specs,
            ret,
            returns,
            method,
        };
        let f = self.member_decl(head, params, body);
        Ok(Some(FunctionDecl { deduced_ret, ..f }))
    }

    /// At `operator` of a conversion function (`operator T *()`): the
    /// type it converts to, which is its return type, and its name,
    /// `operator` and that type (`operator float *`).
    fn conversion_function_name(&mut self) -> PResult<(QualType, crate::token::Token)> {
        let kw = self.bump();
        let ty = self.type_name()?;
        let shown = if ty.is_const {
            format!("operator const {}", ty.ty)
        } else {
            format!("operator {}", ty.ty)
        };
        let name = crate::token::Token {
            kind: TokenKind::Ident,
            text: shown.into(),
            span: kw.span.to(ty.span),
        };
        Ok((ty, name))
    }

    /// A member function's declaration from its parts (declared to the
    /// scoped-enumeration checker too).
    fn member_decl(
        &mut self,
        head: MemberHead,
        params: Vec<ParamDecl>,
        body: Option<Block>,
    ) -> FunctionDecl {
        let f = FunctionDecl {
            name: head.key,
            name_span: head.name_span,
            span: head.start.to(self.prev_span()),
            specs: FnSpecs {
                class_member: !head.friend,
                ..head.specs
            },
            ret: head.ret.ty.clone(),
            ret_span: head.ret.span,
            ret_spelling: head.ret.spelling.clone(),
            returns: head.returns,
            params,
            body,
            launch_bounds: None,
            cluster_dims: None,
            method: head.method,
            deduced_ret: None,
        };
        self.scoped.declare_function(&f, &head.ret);
        f
    }

    /// `T Class::f(params) [const] { ... }` at namespace scope, after its
    /// specifiers and return type, at the qualified name: a member
    /// function declared in its class (as `__device__`) and defined
    /// outside it. `None` when the name is not a member of a class.
    pub(super) fn out_of_line_member(
        &mut self,
        q: &super::namespaces::QualName,
        specs: FnSpecs,
        (ret, returns): (QualType, Returns),
        start: Span,
    ) -> PResult<Option<FunctionDecl>> {
        let Some(((_, _), scope)) = q.parts.split_last() else {
            return Ok(None);
        };
        let class_key = match self.qualified_class(q.global, scope) {
            Some(k) => k,
            None => return Ok(None),
        };
        let Some(ctx) = self.classes.get(&class_key).cloned() else {
            return Ok(None);
        };
        let Some(class) = self
            .structs
            .get(&class_key)
            .map(|d| CType::Struct(d.clone()))
        else {
            return Ok(None);
        };
        let (key, name_tok, outer) = self.enter_member_definition(q)?;
        let member = crate::mangle::unqualified(&key).to_string();
        let parsed = self.out_of_line_rest(&class, &ctx, &member, name_tok.span);
        if let Some(outer) = outer {
            self.names.leave_scope(outer);
        }
        let OutOfLine {
            params,
            body,
            method,
        } = parsed?;
        let head = MemberHead {
            friend: false,
            key,
            name_span: name_tok.span,
            start,
            specs,
            ret,
            returns,
            method,
        };
        Ok(Some(self.member_decl(head, params, body)))
    }

    /// `[specifiers] Class::Class(params) [: inits] { ... }` at namespace
    /// scope: a constructor declared in its class and defined outside it,
    /// read as one defined in the class is. `None` (nothing consumed)
    /// when no constructor's qualified name starts here.
    pub(super) fn out_of_line_constructor(&mut self, start: Span) -> PResult<Option<FunctionDecl>> {
        let n = self.function_specifiers_ahead();
        let Some(q) = self.qualified_at(n) else {
            return Ok(None);
        };
        let [scope @ .., (class_name, _), (name, _)] = &q.parts[..] else {
            return Ok(None);
        };
        if class_name != name || !self.is_punct_at(n + q.tokens, Punct::LParen) {
            return Ok(None);
        }
        let mut class_path = scope.to_vec();
        class_path.push(q.parts[q.parts.len() - 2].clone());
        let Some(class_key) = self.qualified_class(q.global, &class_path) else {
            return Ok(None);
        };
        let (Some(ctx), Some(def)) = (
            self.classes.get(&class_key).cloned(),
            self.structs.get(&class_key).cloned(),
        ) else {
            return Ok(None);
        };
        let class = CType::Struct(def);
        let specs = self.function_specifiers(n);
        self.pos += q.tokens - 1;
        let name_tok = self.bump();
        self.expect_punct(Punct::LParen, "to open the parameter list")?;
        let scope: Vec<String> = super::names::key_path(&class_key);
        let outer = self.names.enter_scope(&scope[..scope.len() - 1]);
        let parsed = self.out_of_line_constructor_rest(&class, &ctx, name_tok.span);
        self.names.leave_scope(outer);
        let (params, body) = parsed?;
        let head = MemberHead {
            friend: false,
            key: super::names::join(&ctx.key, &class_name_of(&ctx.key)),
            name_span: name_tok.span,
            start,
            specs,
            ret: QualType::plain(CType::Void, name_tok.span),
            returns: Returns::Value,
            method: Some(Method {
                class: ctx.key.clone(),
                is_const: false,
                is_ctor: true,
                aggregate: false,
                ref_qualifier: crate::ast::RefQualifier::None,
            }),
        };
        Ok(Some(self.member_decl(head, params, body)))
    }

    /// The parameters (with `this`) and body of an out-of-line
    /// constructor of `class`, after its `(`.
    fn out_of_line_constructor_rest(
        &mut self,
        class: &CType,
        ctx: &ClassCtx,
        at: Span,
    ) -> PResult<(Vec<ParamDecl>, Option<Block>)> {
        let mut params = self.params()?;
        self.unqualified_suffixes(at)?;
        params.insert(0, this_param(class, false, at));
        let body = self.member_body(class, ctx, true, true, &params)?;
        Ok((params, body))
    }

    /// The parameters, qualifiers and body of an out-of-line member
    /// function `member` of `class`, after its `(`.
    fn out_of_line_rest(
        &mut self,
        class: &CType,
        ctx: &ClassCtx,
        member: &str,
        at: Span,
    ) -> PResult<OutOfLine> {
        let mut params = self.params()?;
        let is_const = self.eat_kw(Keyword::Const);
        let ref_qualifier = self.function_suffixes()?;
        let has_this = ctx.methods.contains(member);
        if has_this {
            params.insert(0, this_param(class, is_const, at));
        }
        let body = self.member_body(class, ctx, has_this, false, &params)?;
        Ok(OutOfLine {
            params,
            body,
            method: has_this.then(|| Method {
                class: ctx.key.clone(),
                is_const,
                is_ctor: false,
                aggregate: false,
                ref_qualifier,
            }),
        })
    }

    /// The key of the class whose name qualifies the declarator name at
    /// `name_at` in `tokens` (`S` of `S::add`, `ns::S` of `ns::S::add`),
    /// if one does.
    pub(super) fn class_qualifying(
        &self,
        tokens: &[crate::token::Token],
        name_at: usize,
    ) -> Option<String> {
        let mut parts = Vec::new();
        let mut at = name_at;
        while at >= 2
            && tokens[at - 1].kind == TokenKind::Punct(Punct::ColonColon)
            && tokens[at - 2].kind == TokenKind::Ident
        {
            at -= 2;
            parts.insert(0, (tokens[at].text.to_string(), tokens[at].span));
        }
        if parts.is_empty() {
            return None;
        }
        let key = self.qualified_class(false, &parts)?;
        self.classes.contains_key(&key).then_some(key)
    }

    /// The key of the class the scope `parts` of a qualified name names.
    fn qualified_class(&self, global: bool, parts: &[(String, Span)]) -> Option<String> {
        let written: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        let name = written.join("::");
        let key = if global {
            name
        } else {
            match self.names.lookup(Kind::Type, written.first()?) {
                super::names::Found::One(first) => {
                    let mut k = first;
                    for p in &written[1..] {
                        k = super::names::join(&k, p);
                    }
                    k
                }
                _ => name,
            }
        };
        self.structs.contains_key(&key).then_some(key)
    }

    /// A member function's body after its parameters (`None` after a
    /// prototype's `;`), in its class: the member initializers of a
    /// constructor become its first statements.
    pub(super) fn member_body(
        &mut self,
        class: &CType,
        ctx: &ClassCtx,
        has_this: bool,
        is_ctor: bool,
        params: &[ParamDecl],
    ) -> PResult<Option<Block>> {
        let mut inner = ctx.clone();
        inner.has_this = has_this;
        let saved = self.class.replace(inner);
        // The member initializers and the body see the parameters, then
        // the class's members.
        self.names
            .start_function(params.iter().filter_map(|p| p.name.as_deref()));
        let inits = if is_ctor && self.eat_punct(Punct::Colon) {
            self.member_initializers()
        } else {
            Ok(Vec::new())
        };
        let body = match &inits {
            Ok(_) if self.eat_punct(Punct::Semi) => Ok(None),
            Ok(_) => self.block().map(Some),
            Err(_) => Err(super::Recorded),
        };
        self.class = saved;
        let inits = inits?;
        let mut body = body?;
        if let Some(b) = &mut body {
            let (mut assigns, inits) = if is_ctor {
                self.base_initializers(class, inits, b.span)
            } else {
                (Vec::new(), inits)
            };
            if is_ctor {
                assigns.extend(self.member_initializations(class, ctx, inits, b.span));
            } else {
                assigns.extend(
                    inits
                        .into_iter()
                        .map(|i| member_assignment(class, i, false)),
                );
            }
            b.stmts.splice(0..0, assigns);
        }
        Ok(body)
    }

    /// A function's return type `ret`, followed here by `&` or `&&` when
    /// it returns a reference: then a pointer to it, and which reference.
    pub(super) fn returned_reference(&mut self, ret: QualType) -> PResult<(QualType, Returns)> {
        let written = if self.is_punct(Punct::AndAnd) || self.is_punct(Punct::Amp) {
            let rvalue = self.is_punct(Punct::AndAnd);
            let at = self.bump().span;
            Some(super::references::DeclaredRef { at, rvalue })
        } else {
            None
        };
        // `reference operator[](int)`: a reference through its type.
        let (ret, declared) = self.declared_reference(ret, written)?;
        let returns = match declared {
            None => return Ok((ret, Returns::Value)),
            Some(d) if d.rvalue => Returns::RRef,
            Some(_) => Returns::LRef,
        };
        let pointer = QualType {
            ty: CType::Pointer {
                pointee: Box::new(ret.ty),
                pointee_const: ret.is_const,
                pointee_volatile: ret.is_volatile,
                restrict: false,
            },
            is_const: false,
            is_volatile: false,
            spelling: ret.spelling,
            span: ret.span,
        };
        Ok((pointer, returns))
    }

    /// If a constructor of `class_name` starts here: the number of
    /// function specifiers before its name.
    fn constructor_at(&self, class_name: &str) -> Option<usize> {
        let n = self.function_specifiers_ahead();
        let t = self.peek_at(n);
        (t.kind == TokenKind::Ident
            && t.text == class_name
            && self.is_punct_at(n + 1, Punct::LParen))
        .then_some(n)
    }

    /// The number of function specifiers (`__device__`, `inline`,
    /// `explicit`, ...) from the current token: what may precede a
    /// constructor's or a destructor's name.
    fn function_specifiers_ahead(&self) -> usize {
        let mut n = 0;
        while !self.at_eof_at(n) {
            let t = self.peek_at(n);
            match &t.kind {
                TokenKind::Keyword(
                    Keyword::Device
                    | Keyword::Host
                    | Keyword::Global
                    | Keyword::Inline
                    | Keyword::ForceInline
                    | Keyword::NoInline
                    | Keyword::Constexpr,
                ) => n += 1,
                TokenKind::Ident if t.text == "explicit" => n += 1,
                _ => break,
            }
        }
        n
    }

    /// Consumes the `n` function specifiers before a constructor's name.
    fn function_specifiers(&mut self, n: usize) -> FnSpecs {
        let mut specs = FnSpecs::default();
        for _ in 0..n {
            match self.bump().kind {
                TokenKind::Keyword(Keyword::Device) => specs.device = true,
                TokenKind::Keyword(Keyword::Host) => specs.host = true,
                TokenKind::Keyword(Keyword::Inline) => specs.inline = true,
                TokenKind::Keyword(Keyword::ForceInline) => specs.forceinline = true,
                TokenKind::Keyword(Keyword::NoInline) => specs.noinline = true,
                TokenKind::Keyword(Keyword::Constexpr) => specs.constexpr = true,
                _ => {}
            }
        }
        specs
    }

    /// A destructor, at `~`: nothing to run when its body is empty
    /// (`~S() {}`, `= default`), else a member function keyed
    /// `Class::~Class` with `this`, which sema calls where the object's
    /// lifetime ends (`sema/destructors.rs`).
    fn destructor(
        &mut self,
        class: &CType,
        ctx: &ClassCtx,
        start: Span,
        specs: FnSpecs,
    ) -> PResult<Option<FunctionDecl>> {
        let tilde = self.bump();
        let name_tok = self.bump();
        let name_span = tilde.span.to(name_tok.span);
        self.expect_punct(Punct::LParen, "to open the destructor's parameter list")?;
        if self.is_kw(Keyword::Void) && self.is_punct_at(1, Punct::RParen) {
            self.bump();
        }
        self.expect_punct(Punct::RParen, "to close the destructor's parameter list")?;
        self.unqualified_suffixes(name_span)?;
        let empty = (self.is_punct(Punct::LBrace) && self.is_punct_at(1, Punct::RBrace))
            || (self.is_punct(Punct::Assign) && self.peek_at(1).text == "default");
        if empty {
            return Ok(None);
        }
        if self.is_punct(Punct::Semi) {
            return self.error(
                name_span,
                Code::E0002,
                "a destructor defined outside its class is not supported by kernelc yet; define it in the class",
            );
        }
        let class_name = super::names::key_path(&ctx.key).pop().unwrap_or_default();
        let params = vec![this_param(class, false, name_span)];
        let body = self.member_body(class, ctx, true, false, &params)?;
        let head = MemberHead {
            friend: false,
            key: super::names::join(&ctx.key, &format!("~{class_name}")),
            name_span,
            start,
            specs,
            ret: QualType::plain(CType::Void, name_span),
            returns: Returns::Value,
            method: Some(Method {
                class: ctx.key.clone(),
                is_const: false,
                is_ctor: false,
                aggregate: false,
                ref_qualifier: crate::ast::RefQualifier::None,
            }),
        };
        Ok(Some(self.member_decl(head, params, body)))
    }

    /// The name of a member function: an identifier, or `operator` and
    /// its operator (consumed up to, not including, the `(`).
    fn function_name(&mut self) -> PResult<crate::token::Token> {
        if self.is_kw(Keyword::Operator) {
            return self.operator_name();
        }
        if self.peek().kind != TokenKind::Ident || !self.is_punct_at(1, Punct::LParen) {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0003,
                format!("expected a member function's name, found {}", self.found()),
            );
        }
        Ok(self.bump())
    }

    /// `operator+` and the others, at `operator`: a token whose text is
    /// the function's name (`operator+`, `operator[]`, `operator()`).
    pub(super) fn operator_name(&mut self) -> PResult<crate::token::Token> {
        let at = self.pos;
        let (name, paren) = operator_name_at(&self.toks[at..], 0);
        if paren <= 1 {
            let sp = self.span();
            return self.error(
                sp,
                Code::E0002,
                "conversion operators are not supported by kernelc yet",
            );
        }
        let span = self.span().to(self.toks[at + paren - 1].span);
        let mut tok = self.bump();
        self.pos = at + paren;
        tok.text = name.into();
        tok.span = span;
        Ok(tok)
    }

    /// What may follow a member function's parameters besides `const`:
    /// a ref-qualifier (`&`, `&&`), `noexcept`, `override`, `final`.
    fn function_suffixes(&mut self) -> PResult<RefQualifier> {
        let qualifier = if self.eat_punct(Punct::Amp) {
            RefQualifier::Lvalue
        } else if self.eat_punct(Punct::AndAnd) {
            RefQualifier::Rvalue
        } else {
            RefQualifier::None
        };
        loop {
            match self.peek().text.as_str() {
                "noexcept" if self.is_punct_at(1, Punct::LParen) => {
                    self.bump();
                    let end = skip_balanced(&self.toks[self.pos..], 0);
                    self.pos += end;
                }
                "noexcept" | "override" | "final" => {
                    self.bump();
                }
                _ => return Ok(qualifier),
            }
        }
    }

    /// [`Parser::function_suffixes`] of a constructor or a destructor,
    /// which C++ does not let be ref-qualified.
    fn unqualified_suffixes(&mut self, at: Span) -> PResult<()> {
        match self.function_suffixes()? {
            RefQualifier::None => Ok(()),
            _ => self.error(
                at.to(self.prev_span()),
                Code::E0003,
                "a constructor or a destructor cannot have a ref-qualifier (`&`, `&&`)",
            ),
        }
    }

    /// A constructor's `: a(x), b{y, z}` up to its body: each member's
    /// name and the arguments it is initialized with.
    fn member_initializers(&mut self) -> PResult<Vec<(crate::token::Token, Vec<Expr>, Span)>> {
        let mut out = Vec::new();
        loop {
            if self.peek().kind != TokenKind::Ident {
                let sp = self.span();
                return self.error(
                    sp,
                    Code::E0003,
                    format!("expected a member to initialize, found {}", self.found()),
                );
            }
            let mut name = self.bump();
            while self.is_punct(Punct::ColonColon) && self.peek_at(1).kind == TokenKind::Ident {
                // A base named with its scope (`ops::Base(...)`).
                self.bump();
                name = self.bump();
            }
            if self.is_punct(Punct::Lt) {
                // A base that is a template instance (`Store<T>(v)`): its
                // template's name is enough to tell which base it is.
                self.pos = skip_angles(self.toks, self.pos);
            }
            let braced = self.is_punct(Punct::LBrace);
            if !braced && !self.is_punct(Punct::LParen) {
                let sp = self.span();
                return self.error(
                    sp,
                    Code::E0003,
                    format!("expected `(` or `{{` after `{}`", name.text),
                );
            }
            let close = if braced { Punct::RBrace } else { Punct::RParen };
            self.bump();
            let mut args = Vec::new();
            while !self.is_punct(close) {
                args.push(self.assign_expr()?);
                if !self.eat_punct(Punct::Comma) {
                    break;
                }
            }
            let end = self.expect_punct(close, "to close the member initializer")?;
            let span = name.span.to(end);
            out.push((name, args, span));
            if !self.eat_punct(Punct::Comma) {
                return Ok(out);
            }
        }
    }

    /// A name in a member function's body that is a member of its class
    /// and not a local: `this->name` (C++ [class.mfct.non.static]). In a
    /// lambda's body, a member of the enclosing object the lambda
    /// captured is that object's (`this->this@->name`).
    pub(super) fn implicit_member(&self, name: &str, span: Span) -> Option<Expr> {
        let class = self.class.as_ref().filter(|c| c.has_this)?;
        if self.names.is_local(name) {
            return None;
        }
        if class.fields.contains(name) || class.methods.contains(name) {
            return Some(this_member(name, span));
        }
        let (outer, by_value) = class.enclosing.as_deref()?;
        if !(outer.fields.contains(name) || outer.methods.contains(name)) {
            return None;
        }
        Some(member_of(
            this_member(crate::ast::CAPTURED_THIS, span),
            name,
            !by_value,
            span,
        ))
    }

    /// `this`, inside a non-static member function; in a lambda's body,
    /// the enclosing object's address, which the lambda captured.
    pub(super) fn this_expr(&mut self) -> PResult<Expr> {
        let at = self.bump().span;
        if let Some(this) = self.this_pointer(at) {
            return Ok(this);
        }
        let msg = if self.class.as_ref().is_some_and(|c| c.closure) {
            "`this` is not captured by this lambda (capture it: `[this]`, `[=]` or `[&]`)"
        } else {
            "`this` is only valid inside a non-static member function"
        };
        self.error(at, Code::E0001, msg)
    }

    /// What `this` is here, if anything: the member function's own, or
    /// in a lambda's body the captured enclosing object's address.
    pub(super) fn this_pointer(&self, at: Span) -> Option<Expr> {
        let class = self.class.as_ref().filter(|c| c.has_this)?;
        if !class.closure {
            return Some(Expr {
                kind: ExprKind::Ident("this".to_string()),
                span: at,
            });
        }
        let (_, by_value) = class.enclosing.as_deref()?;
        let held = this_member(crate::ast::CAPTURED_THIS, at);
        if !by_value {
            return Some(held);
        }
        Some(Expr {
            kind: ExprKind::Unary {
                op: crate::ast::UnaryOp::AddrOf,
                operand: Box::new(held),
            },
            span: at,
        })
    }

    /// Reports the members a local or unnamed struct deferred (their
    /// functions have no class to belong to).
    pub(super) fn refuse_deferred(&mut self, members: &ClassMembers, at: Span) {
        if let Some(d) = members.deferred.first() {
            let sp = self.toks.get(d.start).map_or(at, |t| t.span);
            self.diags.push(Diagnostic::error(
                sp,
                Code::E0002,
                "member functions of a struct defined inside a function are not supported by kernelc",
            ));
        } else if let Some((_, _, sp)) = members.defaults.first() {
            self.diags.push(Diagnostic::error(
                *sp,
                Code::E0002,
                "default member initializers of a struct defined inside a function are not supported by kernelc; define the struct outside the function",
            ));
        }
    }
}

/// `this->name`.
pub(super) fn this_member(name: &str, span: Span) -> Expr {
    let this = Expr {
        kind: ExprKind::Ident("this".to_string()),
        span,
    };
    member_of(this, name, true, span)
}

/// `base->name` (`arrow`) or `base.name`.
fn member_of(base: Expr, name: &str, arrow: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Member {
            base: Box::new(base),
            field: name.to_string(),
            field_span: span,
            arrow,
            template_args: Vec::new(),
        },
        span,
    }
}

impl Parser<'_> {
    /// A constructor's member initializers as statements that start its
    /// body, in the order C++ initializes members (their declaration
    /// order, whatever the list's): each one named, and a member of a
    /// class with constructors that is not named constructed by its
    /// default one. Names that are no member come last (the checker
    /// reports them).
    fn member_initializations(
        &self,
        class: &CType,
        ctx: &ClassCtx,
        mut inits: Vec<super::bases::MemberInit>,
        span: Span,
    ) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let fields = class.struct_def().map(|d| d.fields[d.bases..].to_vec());
        for f in fields.unwrap_or_default() {
            let constructed = matches!(&f.ty, CType::Struct(d) if self.has_constructor(d));
            match inits.iter().position(|(name, _, _)| name.text == f.name) {
                Some(k) => {
                    let init = inits.remove(k);
                    stmts.push(member_assignment(class, init, constructed && !f.reference));
                }
                None if !f.name.is_empty() => {
                    match ctx.defaults.iter().find(|d| d.0.text == f.name) {
                        Some(default) => stmts.push(member_assignment(
                            class,
                            default.clone(),
                            constructed && !f.reference,
                        )),
                        None if constructed && !f.reference => {
                            stmts.push(default_constructed(&f, span));
                        }
                        None => {}
                    }
                }
                None => {}
            }
        }
        stmts.extend(
            inits
                .into_iter()
                .map(|i| member_assignment(class, i, false)),
        );
        stmts
    }
}

/// `this->field = T()` for a member `f` of a class type with constructors
/// that no initializer names: its default constructor runs.
fn default_constructed(f: &crate::types::Field, span: Span) -> Stmt {
    let value = Expr {
        kind: ExprKind::Construct {
            ty: QualType::plain(f.ty.clone(), span),
            args: Vec::new(),
        },
        span,
    };
    assignment(this_member(&f.name, span), value, span)
}

/// A constructor's member initializer `field(args)` as a statement of its
/// body: `this->field = value`, the value constructed from the arguments
/// as a variable of the member's type would be (`class` is complete); by
/// the member class's constructor when `constructed`, even from one
/// argument (`m(1)` is `M(1)`, not a conversion of `1`).
fn member_assignment(
    class: &CType,
    init: (crate::token::Token, Vec<Expr>, Span),
    constructed: bool,
) -> Stmt {
    let (field, mut args, span) = init;
    let member = class.struct_def().and_then(|d| d.field(&field.text));
    let fty = member.map(|f| f.ty.clone());
    if member.is_some_and(|f| f.reference) && args.len() == 1 {
        // A reference member is bound to its object: `this->field& =
        // &object` (`field&` names the member itself, `sema/expr.rs`).
        let object = args.pop().unwrap_or_else(|| unreachable!());
        let address = Expr {
            kind: ExprKind::Unary {
                op: crate::ast::UnaryOp::AddrOf,
                operand: Box::new(object),
            },
            span,
        };
        let target = this_member(&format!("{}&", field.text), field.span);
        return assignment(target, address, span);
    }
    if let Some(CType::Array {
        elem,
        len: Some(len),
    }) = &fty
    {
        return array_member_assignment(&field, args, elem, *len, span);
    }
    let target = this_member(&field.text, field.span);
    let value = if args.len() == 1 && fty.is_some() && !constructed {
        args.pop().unwrap_or_else(|| unreachable!())
    } else {
        let kind = match fty {
            Some(ty @ CType::Struct(_)) => ExprKind::Construct {
                ty: QualType::plain(ty, span),
                args,
            },
            Some(ty) if args.is_empty() => ExprKind::ZeroInit(QualType::plain(ty, span)),
            // A scalar given several values: the checker reports the
            // construction.
            Some(ty) => ExprKind::Construct {
                ty: QualType::plain(ty, span),
                args,
            },
            // Not a member: the checker reports the assignment's target.
            None => ExprKind::IntLit {
                value: 0,
                ty: CType::INT,
                spelling: Spelling::Plain,
            },
        };
        Expr { kind, span }
    };
    assignment(target, value, span)
}

/// An array member's initializer `field{values}` (or a default member
/// initializer `T field[N] = {values};`): `this->field[i] = value` for
/// each value in order, then the elements left value-initialized (zero,
/// or a class's default constructor), as an aggregate's elements are.
fn array_member_assignment(
    field: &crate::token::Token,
    args: Vec<Expr>,
    elem: &CType,
    len: u64,
    span: Span,
) -> Stmt {
    let element = |i: u64| Expr {
        kind: ExprKind::Index {
            base: Box::new(this_member(&field.text, field.span)),
            index: Box::new(Expr {
                kind: ExprKind::IntLit {
                    value: i,
                    ty: CType::LONG,
                    spelling: Spelling::Plain,
                },
                span,
            }),
        },
        span,
    };
    let ty = QualType::plain(elem.clone(), span);
    let zero = Expr {
        kind: ExprKind::ZeroInit(ty.clone()),
        span,
    };
    let mut values = args.into_iter();
    let mut stmts = Vec::new();
    for i in 0..len {
        if let Some(value) = values.next() {
            stmts.push(assignment(element(i), value, span));
            continue;
        }
        // Value-initialization: zero, or a class's default constructor
        // (a default member initializer may not leave a class element to
        // it: `Parser::array_default`).
        let value = match elem.is_struct() {
            true => Expr {
                kind: ExprKind::Construct {
                    ty: ty.clone(),
                    args: Vec::new(),
                },
                span,
            },
            false => zero.clone(),
        };
        stmts.push(assignment(element(i), value, span));
    }
    Stmt {
        kind: StmtKind::Block(Block { stmts, span }),
        span,
    }
}

/// The statement `target = value;`.
pub(super) fn assignment(target: Expr, value: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Expr(Expr {
            kind: ExprKind::Assign {
                op: None,
                lhs: Box::new(target),
                rhs: Box::new(value),
            },
            span,
        }),
        span,
    }
}

/// The `this` parameter of a member function of `class`.
/// An out-of-line member function's definition after its name: its
/// parameters (`this` first when it has one), body and what its `this` is.
struct OutOfLine {
    params: Vec<ParamDecl>,
    body: Option<Block>,
    method: Option<Method>,
}

pub(super) fn this_param(class: &CType, is_const: bool, span: Span) -> ParamDecl {
    ParamDecl {
        name: Some("this".to_string()),
        ty: QualType {
            ty: CType::Pointer {
                pointee: Box::new(class.clone()),
                pointee_const: is_const,
                pointee_volatile: false,
                restrict: false,
            },
            is_const: true,
            is_volatile: false,
            spelling: Spelling::Plain,
            span,
        },
        grid_constant: None,
        by_ref: None,
        rvalue: false,
        dims: Vec::new(),
        default: None,
        span,
    }
}

fn is_punct_tok(t: Option<&crate::token::Token>, p: Punct) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Punct(p))
}

/// The index after the bracket group opening at `open` (any of `(`, `[`,
/// `{`, counted together).
pub(super) fn skip_balanced(toks: &[crate::token::Token], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < toks.len() {
        match toks[i].kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index after the template argument list opening at `open` (`>>`
/// closes two), or of the token that ends the scan when it is not closed
/// (`crate::token::template_args`).
fn skip_angles(toks: &[crate::token::Token], open: usize) -> usize {
    use crate::token::{template_args, NameBefore};
    match template_args(toks, open, toks.len(), NameBefore::Template) {
        Ok(list) => list.close + 1,
        Err(stop) => stop,
    }
}

/// The index after the declaration whose tokens include `at`: past its
/// `;` at depth 0.
fn statement_end(toks: &[crate::token::Token], at: usize) -> usize {
    let mut i = at;
    while i < toks.len() {
        match toks[i].kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                i = skip_balanced(toks, i);
                continue;
            }
            TokenKind::Punct(Punct::Semi) => return i + 1,
            TokenKind::Punct(Punct::RBrace) => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index after a member function whose parameter list opens at
/// `paren`: past its `;`, or past its body (and a stray `;` after it);
/// a constructor's member initializers are skipped on the way.
fn function_end(toks: &[crate::token::Token], paren: usize) -> usize {
    let mut i = skip_balanced(toks, paren);
    let mut in_inits = false;
    while i < toks.len() {
        match &toks[i].kind {
            TokenKind::Punct(Punct::Semi) => return i + 1,
            TokenKind::Punct(Punct::Colon) => in_inits = true,
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => {
                i = skip_balanced(toks, i);
                continue;
            }
            TokenKind::Punct(Punct::LBrace) => {
                // In the member initializers, `m{...}` initializes `m`.
                let initializer = in_inits
                    && matches!(
                        toks[i - 1].kind,
                        TokenKind::Ident | TokenKind::Punct(Punct::Gt)
                    );
                let after = skip_balanced(toks, i);
                if initializer {
                    i = after;
                    continue;
                }
                return if is_punct_tok(toks.get(after), Punct::Semi) {
                    after + 1
                } else {
                    after
                };
            }
            TokenKind::Punct(Punct::RBrace) => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The operator function's name at `operator` (index `at`), and the index
/// of its parameter list's `(` (`at + 1` for a conversion operator,
/// whose name is a type).
pub(super) fn operator_name_at(toks: &[crate::token::Token], at: usize) -> (String, usize) {
    let text = |i: usize| toks.get(i).map_or("", |t| t.text.as_str());
    let op = match text(at + 1) {
        "(" if text(at + 2) == ")" => "()".to_string(),
        "[" if text(at + 2) == "]" => "[]".to_string(),
        "(" => return ("operator".to_string(), at + 1),
        _ => {
            let t = toks.get(at + 1);
            match t.map(|t| &t.kind) {
                Some(TokenKind::Punct(p)) => p.as_str().to_string(),
                _ => {
                    // `operator float()`: a conversion operator.
                    let mut i = at + 1;
                    while i < toks.len() && !is_punct_tok(toks.get(i), Punct::LParen) {
                        i += 1;
                    }
                    return ("operator".to_string(), i.max(at + 1));
                }
            }
        }
    };
    let paren = at
        + 1
        + if op.len() == 2 && (op == "()" || op == "[]") {
            2
        } else {
            1
        };
    (format!("operator{op}"), paren)
}

/// Whether member function `name` of class `class_key` is one whose
/// user-provided definition makes the class no POD for the purpose of
/// layout: a constructor, the destructor, a copy assignment.
fn is_special_member(class_key: Option<&str>, name: &str) -> bool {
    let class_name = class_key.and_then(|k| super::names::key_path(k).pop());
    class_name.as_deref() == Some(name) || name.starts_with('~') || name == "operator="
}

/// The last component of a class's key outside template arguments (an
/// instance's key may hold `::` in them: `BlockScan<int, 256, scan::Sum>`).
fn class_name_of(key: &str) -> String {
    super::names::key_path(key).pop().unwrap_or_default()
}
