//! Base clauses: `struct D : B`, `class D : public A, private B<T>`.
//!
//! The parser reads the bases before the body, so the class is laid out
//! with them (`crate::bases`), and gives a derived class's member
//! functions the names of its bases' members, so an unqualified `x` or
//! `f()` there is `this->x`, `this->f()` as for the class's own; the
//! checker then finds the member in the base (`sema/bases.rs`).
//!
//! **CRTP.** In `struct K : Base<K>`, the base's argument names `K` before
//! `K` is complete. While the base clause is read, `K` stands for an
//! incomplete struct (`StructDef::incomplete`, with the id the complete
//! one will have, so the types are the same; the same stand-in names the
//! class in its body and after a forward declaration,
//! [`Parser::class_stand_in`]). The instance `Base<K>` is
//! laid out then (its data cannot depend on `K`), but its member
//! functions, whose bodies may use `K`'s members (`static_cast<K
//! *>(this)->step()`), are kept ([`PostponedBodies`]) and parsed when `K`
//! is complete, with the template's parameter bound to the complete `K`.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::classes::{ClassCtx, ClassMembers};
use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, QualType, Spelling};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::templates::ArgValue;
use crate::token::{Token, TokenKind};
use crate::types::{CType, StructDef};

/// The member functions of a class instance waiting for a class to be
/// complete, with what their parse needs: the instance's tokens (the
/// members' positions are in them), the parameters' bindings and the
/// namespace it was parsed in.
pub(crate) struct PostponedBodies {
    waiting_for: u32,
    tokens: Vec<Token>,
    bindings: Vec<(String, (CType, bool, Spelling))>,
    scope: Vec<String>,
    class: CType,
    members: ClassMembers,
    span: Span,
}

impl std::fmt::Debug for PostponedBodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PostponedBodies({})", self.class)
    }
}

/// What every parse of the translation unit shares about classes that
/// others derive from.
#[derive(Debug, Default)]
pub struct BaseFacts {
    /// The member function names of classes made by a sub-parser (class
    /// template instances), by the class's key.
    classes: FxHashMap<String, FxHashSet<String>>,
    postponed: Vec<PostponedBodies>,
    /// The member templates of the instances in `postponed` (`Base<P>::
    /// step`), registered only with their bodies: the derived class's
    /// member functions, parsed first, call them (`step<4>()`).
    postponed_templates: FxHashSet<String>,
}

impl BaseFacts {
    /// Whether a postponed class instance has a member template `name`.
    pub(super) fn postpones_member_template(&self, name: &str) -> bool {
        self.postponed_templates
            .iter()
            .any(|key| key.rsplit_once("::").is_some_and(|(_, n)| n == name))
    }
}

/// The incomplete class (its id) that an instance's arguments name.
fn waits_for(def: &StructDef) -> Option<u32> {
    fn in_type(ty: &CType) -> Option<u32> {
        match ty {
            CType::Struct(s) if s.incomplete => Some(s.id),
            CType::Pointer { pointee, .. } => in_type(pointee),
            CType::Array { elem, .. } => in_type(elem),
            _ => None,
        }
    }
    fn in_arg(a: &ArgValue) -> Option<u32> {
        match a {
            ArgValue::Type { ty, .. } => in_type(ty),
            ArgValue::Pack(elems) => elems.iter().find_map(in_arg),
            _ => None,
        }
    }
    def.instance_of.as_ref()?.args.iter().find_map(in_arg)
}

/// `ty` with the incomplete stand-in of `done` replaced by `done`.
fn completed(ty: &CType, done: &Arc<StructDef>) -> CType {
    match ty {
        CType::Struct(s) if s.incomplete && s.id == done.id => CType::Struct(done.clone()),
        CType::Pointer {
            pointee,
            pointee_const,
            pointee_volatile,
            restrict,
        } => CType::Pointer {
            pointee: Box::new(completed(pointee, done)),
            pointee_const: *pointee_const,
            pointee_volatile: *pointee_volatile,
            restrict: *restrict,
        },
        CType::Array { elem, len } => CType::Array {
            elem: Box::new(completed(elem, done)),
            len: *len,
        },
        other => other.clone(),
    }
}

/// A base as its class's base clause writes it: the class, and the access
/// when written (`public Base`).
pub(super) type WrittenBase = (Arc<StructDef>, Option<crate::access::Access>);

impl Parser<'_> {
    /// Whether a base clause's `:` (or `final :`) follows a class's name.
    pub(super) fn base_clause_follows(&self) -> bool {
        let at = usize::from(self.peek().kind == TokenKind::Ident && self.peek().text == "final");
        self.is_punct_at(at, crate::token::Punct::Colon)
    }

    /// At `: bases` (or `final : bases`) after class `tag`: the bases with
    /// their access where written, and the id the class will have, which
    /// `tag` names meanwhile.
    pub(super) fn base_clause(&mut self, tag: &Token) -> PResult<(u32, Vec<WrittenBase>)> {
        if self.peek().text == "final" {
            self.bump();
        }
        self.bump();
        // The stand-in stays for the body (`struct_specifier`).
        let id = self.class_stand_in(tag).id;
        let bases = self.base_list();
        Ok((id, bases?))
    }

    /// The stand-in that names class `tag` until its definition is
    /// complete: the one a forward declaration made, or a new one
    /// (`StructDef::incomplete`).
    pub(super) fn class_stand_in(&mut self, tag: &Token) -> Arc<StructDef> {
        let key = self.names.qualify(&tag.text);
        if let Some(def) = self.structs.get(&key).filter(|d| d.is_incomplete()) {
            return def.clone();
        }
        let id = self.next_struct_id.fresh();
        let mut stand_in = StructDef::stand_in(id, key.clone());
        if let Some((instance_tag, instance)) = &self.instancing {
            // `Sum<T> : Base<Sum<T>>`: names spell the stand-in as the
            // instance it will be (or as a class nested in it).
            if tag.text == *instance_tag {
                stand_in.instance_of = Some(instance.clone());
            } else {
                stand_in.enclosing_instance = Some(instance.clone());
            }
        }
        self.declare_type(&tag.text, tag.span);
        let stand_in = Arc::new(stand_in);
        Arc::make_mut(&mut self.structs).insert(key, stand_in.clone());
        stand_in
    }

    /// `[access] [virtual] Name, ...` up to the class's `{`.
    fn base_list(&mut self) -> PResult<Vec<WrittenBase>> {
        let mut bases = Vec::new();
        loop {
            let mut access = None;
            while self.peek().kind == TokenKind::Ident
                && matches!(
                    self.peek().text.as_str(),
                    "public" | "private" | "protected" | "virtual"
                )
            {
                let t = self.bump();
                access = crate::access::Access::from_keyword(&t.text).or(access);
                if t.text == "virtual" {
                    // Reported, and read as a plain base: the class is still
                    // defined, so its uses give no second error.
                    self.diags.push(
                        Diagnostic::error(
                            t.span,
                            Code::E0002,
                            "virtual base classes are not supported by kernelc in device code",
                        )
                        .with_note("derive from the base without `virtual`"),
                    );
                }
            }
            let at = self.span();
            let (ty, _, _) = self.specifiers()?;
            match ty.map(|q| q.ty) {
                Some(CType::Struct(def)) if !def.incomplete && !def.is_union => {
                    bases.push((def, access))
                }
                Some(CType::Struct(def)) if def.incomplete => {
                    let msg = format!(
                        "`{}` derives from itself, which is incomplete here",
                        def.name
                    );
                    return self.error(at, Code::E0004, msg);
                }
                Some(other) => {
                    let msg = format!("a base class must be a class, not `{other}`");
                    return self.error(at, Code::E0004, msg);
                }
                None => {
                    let msg = format!("expected a base class name, found {}", self.found());
                    return self.error(at, Code::E0003, msg);
                }
            }
            if !self.eat_punct(crate::token::Punct::Comma) {
                return Ok(bases);
            }
        }
    }

    /// The member functions of class `ty`, parsed now, or kept for later
    /// when the class is an instance whose arguments name an incomplete
    /// class (CRTP: see the module comment).
    pub(super) fn member_bodies_of(&mut self, ty: &CType, members: ClassMembers) {
        if ty.struct_def().and_then(waits_for).is_some() {
            self.stashed_bodies = Some((ty.clone(), members));
        } else {
            self.class_bodies(ty, members);
        }
    }

    /// Gives class `key` the integer constants of its `bases` that it does
    /// not declare itself, as C++'s member lookup finds them: a value
    /// argument read while parsing (`bool_constant<is_integral<T>::value>`)
    /// finds `is_integral<float>::value`, which is `false_type`'s.
    pub(super) fn inherit_constants(&mut self, key: &str, bases: &[String]) {
        let shared = self.instances.lock().map(|i| i.constants.clone());
        let mut inherited = Vec::new();
        for base in bases {
            let prefix = format!("{base}::");
            let of_base = self.constants.iter().chain(shared.iter().flatten());
            for (k, v) in of_base {
                if let Some(member) = k.strip_prefix(&prefix) {
                    inherited.push((super::names::join(key, member), *v));
                }
            }
        }
        for (k, v) in inherited {
            Arc::make_mut(&mut self.constants).entry(k).or_insert(v);
        }
    }

    /// Makes the names of the constants class `key` inherits from `bases`
    /// ([`Parser::inherit_constants`]) its own too, once its own members
    /// are declared, which hide them: `kTile` in a static member's
    /// initializer or a member function of `struct Wide : Grid` is
    /// `Grid::kTile`.
    pub(super) fn inherit_constant_names(&mut self, key: &str, bases: &[String]) {
        let mut inherited = Vec::new();
        for base in bases {
            let prefix = format!("{base}::");
            for k in self.constants.keys() {
                let member = k.strip_prefix(&prefix);
                if let Some(member) = member.filter(|m| super::names::split_key(m).len() == 1) {
                    inherited.push((super::names::join(key, member), k.clone()));
                }
            }
        }
        for (alias, target) in inherited {
            self.names.inherit_value(&alias, &target);
        }
    }

    /// After a class instance's parse by `sub` (its definition `tokens`,
    /// the parameters' `bindings`, namespace `scope`): shares its member
    /// function names, and keeps its member functions if `sub` kept them.
    pub(super) fn share_instance_facts(
        &mut self,
        key: &str,
        sub: &mut Parser<'_>,
        tokens: &[Token],
        bindings: Vec<(String, (CType, bool, Spelling))>,
        scope: &[String],
        span: Span,
    ) {
        let stashed = sub.stashed_bodies.take();
        let Ok(mut shared) = self.instances.lock() else {
            return;
        };
        if let Some(ctx) = sub.classes.get(key) {
            shared
                .bases
                .classes
                .insert(key.to_string(), ctx.methods.clone());
        }
        let Some((class, members)) = stashed else {
            return;
        };
        shared
            .bases
            .classes
            .insert(key.to_string(), members.methods.clone());
        let Some(waiting_for) = class.struct_def().and_then(waits_for) else {
            return;
        };
        let templates = members.templates.iter();
        let keys = templates.map(|t| super::names::join(key, &t.name));
        shared.bases.postponed_templates.extend(keys);
        shared.bases.postponed.push(PostponedBodies {
            waiting_for,
            tokens: tokens.to_vec(),
            bindings,
            scope: scope.to_vec(),
            class,
            members,
            span,
        });
    }

    /// Class `def` is complete and its member functions read (the items
    /// from `first` on): the member functions of instances that waited
    /// for it are parsed now, with their parameters bound to it, and the
    /// prototypes of both go first, since each may call the other.
    pub(super) fn parse_postponed_for(&mut self, def: &Arc<StructDef>, first: usize) {
        let waiting: Vec<PostponedBodies> = match self.instances.lock() {
            Ok(mut shared) => {
                let all = std::mem::take(&mut shared.bases.postponed);
                let (now, later) = all.into_iter().partition(|p| p.waiting_for == def.id);
                shared.bases.postponed = later;
                now
            }
            Err(_) => return,
        };
        for p in waiting {
            let bindings: crate::templates::TypeBindings = p
                .bindings
                .into_iter()
                .map(|(n, (t, c, s))| (n, (completed(&t, def), c, s)))
                .collect();
            let mut sub = self.template_parser(&p.tokens, bindings.clone());
            sub.instance_bindings = bindings;
            sub.names = self.names.at_namespace_scope(&p.scope);
            sub.instance_sites = self.nested_sites(&p.class.to_string(), p.span);
            sub.class_bodies(&p.class, p.members);
            for d in sub.diags.drain(..) {
                let shown = format!("in `{}`, instantiated here", p.class);
                self.diags.push(d.with_label(p.span, shown));
            }
            self.next_struct_id.at_least(sub.next_struct_id.next());
            let key = p
                .class
                .struct_def()
                .map(|d| d.name.clone())
                .unwrap_or_default();
            let methods = sub.classes.get(&key).map(|c| c.methods.clone());
            if let Ok(mut shared) = self.instances.lock() {
                if let Some(m) = methods {
                    shared.bases.classes.insert(key, m);
                }
            }
            self.pending_items.append(&mut sub.pending_items);
        }
        let items = self
            .pending_items
            .split_off(first.min(self.pending_items.len()));
        let is_prototype =
            |i: &crate::ast::Item| matches!(i, crate::ast::Item::Function(f) if f.body.is_none());
        let (prototypes, rest): (Vec<_>, Vec<_>) = items.into_iter().partition(is_prototype);
        self.pending_items.extend(prototypes);
        self.pending_items.extend(rest);
    }

    /// The names of the member functions of class `def`'s bases, which its
    /// own member functions call without `this->`.
    pub(super) fn inherited_methods(&self, def: &StructDef) -> FxHashSet<String> {
        let mut names = FxHashSet::default();
        for base in crate::bases::all_bases(def) {
            if let Some(ctx) = self.classes.get(&base.name) {
                names.extend(ctx.methods.iter().cloned());
            } else if let Ok(shared) = self.instances.lock() {
                if let Some(m) = shared.bases.classes.get(&base.name) {
                    names.extend(m.iter().cloned());
                }
            }
        }
        names
    }

    /// The class context of class `def` (complete): its data members,
    /// its bases' included, and member functions.
    pub(super) fn class_context(
        &self,
        def: &StructDef,
        methods: FxHashSet<String>,
        defaults: Vec<MemberInit>,
    ) -> ClassCtx {
        let mut methods = methods;
        methods.extend(self.inherited_methods(def));
        ClassCtx {
            key: def.name.clone(),
            fields: crate::bases::all_field_names(def).into_iter().collect(),
            methods,
            has_this: false,
            closure: false,
            enclosing: None,
            defaults: defaults.into(),
        }
    }

    /// A constructor's initializers of `class`'s bases (`D() : B(1), x(2)`)
    /// as statements that start its body, one per base in declaration
    /// order: `*(B *)this = B(args)`, or `B()` for a base not named that
    /// has constructors (its default one runs). The member initializers
    /// are left.
    pub(super) fn base_initializers(
        &self,
        class: &CType,
        inits: Vec<MemberInit>,
        span: Span,
    ) -> (Vec<crate::ast::Stmt>, Vec<MemberInit>) {
        let Some(def) = class.struct_def() else {
            return (Vec::new(), inits);
        };
        let mut inits = inits;
        let mut stmts = Vec::new();
        for base in def.base_fields() {
            let Some(bdef) = crate::bases::base_class(base) else {
                continue;
            };
            let simple = crate::mangle::unqualified(&bdef.name);
            let template = simple.split('<').next().unwrap_or(simple);
            let named = inits
                .iter()
                .position(|(name, _, _)| name.text == simple || name.text == template);
            let (args, at) = match named {
                Some(k) => {
                    let (_, args, at) = inits.remove(k);
                    (args, at)
                }
                None if self.has_constructor(bdef) => (Vec::new(), span),
                None => continue,
            };
            let ty = QualType::plain(base.ty.clone(), at);
            let pointer = CType::Pointer {
                pointee: Box::new(base.ty.clone()),
                pointee_const: false,
                pointee_volatile: false,
                restrict: false,
            };
            let this = Expr {
                kind: ExprKind::Ident("this".to_string()),
                span: at,
            };
            let cast = Expr {
                kind: ExprKind::Cast {
                    ty: QualType::plain(pointer, at),
                    expr: Box::new(this),
                },
                span: at,
            };
            let target = Expr {
                kind: ExprKind::Unary {
                    op: crate::ast::UnaryOp::Deref,
                    operand: Box::new(cast),
                },
                span: at,
            };
            let value = Expr {
                kind: ExprKind::Construct { ty, args },
                span: at,
            };
            stmts.push(super::classes::assignment(target, value, at));
        }
        (stmts, inits)
    }

    /// At a using-declaration of a base's member in a class body
    /// (`using Base<T>::get;`, not an alias `using V = T;`): reads it and
    /// gives the member's name.
    pub(super) fn using_member(&mut self) -> Option<String> {
        if !self.is_kw(crate::token::Keyword::Using) {
            return None;
        }
        let rest = &self.toks[self.pos + 1..];
        let end = rest
            .iter()
            .position(|t| t.kind == TokenKind::Punct(crate::token::Punct::Semi))?;
        let decl = &rest[..end];
        let alias_or_directive = decl.iter().any(|t| {
            t.kind == TokenKind::Punct(crate::token::Punct::Assign)
                || t.kind == TokenKind::Keyword(crate::token::Keyword::Namespace)
        });
        let qualified = decl
            .iter()
            .any(|t| t.kind == TokenKind::Punct(crate::token::Punct::ColonColon));
        let name = decl.last().filter(|t| t.kind == TokenKind::Ident)?;
        if alias_or_directive || !qualified {
            return None;
        }
        let name = name.text.to_string();
        self.pos += end + 2;
        Some(name)
    }

    /// The key of member `name` (of `kind`) that class `class` inherits
    /// from a base (`Derived::kCount` is `Base::kCount`).
    pub(super) fn base_member(
        &self,
        class: &str,
        kind: super::names::Kind,
        name: &str,
    ) -> Option<String> {
        let def = self.structs.get(class)?;
        crate::bases::all_bases(def).iter().find_map(|b| {
            if b.name.ends_with('>') {
                // An instance's members belong to the parse that made it.
                let key = super::names::join(&b.name, name);
                let known = match kind {
                    super::names::Kind::Type => self.instance_typedef(&key).is_some(),
                    _ => self.constant(&key).is_some(),
                };
                return known.then_some(key);
            }
            match self.names.member(kind, &b.name, name) {
                super::names::Found::One(key) => Some(key),
                _ => None,
            }
        })
    }

    /// Whether class `def` declares a constructor.
    pub(super) fn has_constructor(&self, def: &StructDef) -> bool {
        let simple = crate::mangle::unqualified(&def.name).to_string();
        if let Some(ctx) = self.classes.get(&def.name) {
            return ctx.methods.contains(&simple);
        }
        self.instances.lock().is_ok_and(|shared| {
            shared
                .bases
                .classes
                .get(&def.name)
                .is_some_and(|m| m.contains(&simple))
        })
    }
}

/// A member initializer as read: the name, the arguments, where.
pub(super) type MemberInit = (Token, Vec<crate::ast::Expr>, Span);
