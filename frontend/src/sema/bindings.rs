//! C++17 structured bindings (`auto [a, b] = init;`, [dcl.struct.bind]).
//!
//! The declaration introduces an object `e` (a copy of `init`, or a
//! reference to it with `&` or `&&`), and each name names one element of
//! `e`: a member of a class, in declaration order, or an element of an
//! array. The checker declares `e` under the bracketed list's text (no
//! identifier spells it) and then each name as an ordinary declaration
//! that refers to `e`'s element:
//!
//! - of a class: `auto &a = e.first;`, so reads and writes reach `e`'s
//!   member (and, through a reference `e`, the object `init` named);
//! - of an array: `e` holds the array's first element's address, and a
//!   name is `auto &a = e[0];` with `&`, else the copy `auto a = e[0];`
//!   (a copied array is only reached through its names, so copying each
//!   element is the same program without the array).
//!
//! The tuple-like protocol (`std::tuple_size`, `get<I>`) is not
//! implemented: kernelc's device code has no `std::tuple`, and a class's
//! `std::tuple_size` specialization is host code to the split, unseen. A
//! class with a `get` function template is refused rather than decomposed
//! by its data members (`Checker::may_be_tuple_like`).

use super::convert::strip_restrict;
use super::Checker;
use crate::ast;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{Expr, Stmt, StmtKind};
use crate::types::{CType, StructDef};

/// How the object of a structured binding decomposes.
enum Elements {
    /// An array of this many elements.
    Array(u64),
    /// A class's data members: each name, and whether it is a bit-field.
    Members(Vec<(String, bool)>),
}

impl Checker {
    /// The declarations of `auto [a, b] = init;`: the object, then the
    /// names in order.
    pub(super) fn structured_bindings(&mut self, b: &ast::Bindings) -> Vec<Stmt> {
        let v = &b.object;
        let Some(init) = self.binding_init(v) else {
            return Vec::new();
        };
        let Some(e) = self.expr_nodecay(init) else {
            return Vec::new();
        };
        let Some(elements) = self.elements_of(&e.ty, v.name_span) else {
            return Vec::new();
        };
        let count = match &elements {
            Elements::Array(n) => *n,
            Elements::Members(m) => m.len() as u64,
        };
        if count != b.names.len() as u64 {
            self.wrong_count(&e.ty, count, b.names.len(), v.name_span);
            return Vec::new();
        }
        let object = match &elements {
            Elements::Array(_) => self.array_object(v, e),
            Elements::Members(_) => match v.by_ref {
                Some(_) => self.reference_bound(v, e, false),
                None => self.object_copy(v, e),
            },
        };
        let Some(object) = object else {
            return Vec::new();
        };
        self.mark_name_used(&v.name);
        let Some(names) = self.binding_names(b, &elements) else {
            return vec![object];
        };
        let mut out = vec![object];
        out.extend(self.decls(&names));
        for (name, _) in &b.names {
            // nvcc does not warn of a binding that is never read.
            self.mark_name_used(name);
        }
        out
    }

    /// Marks the local or reference `name` names as used.
    fn mark_name_used(&mut self, name: &str) {
        if let Some(super::Binding::Local(id) | super::Binding::Ref(id)) = self.lookup(name) {
            self.mark_used(id);
        }
    }

    /// The initializer expression: `= init`, `{init}` or `(init)`.
    fn binding_init<'a>(&mut self, v: &'a ast::VarDecl) -> Option<&'a ast::Expr> {
        match &v.init {
            Some(ast::Init::Expr(e)) => Some(e),
            Some(ast::Init::List(items, sp)) => match items.as_slice() {
                [ast::Init::Expr(e)] if v.direct_braces => Some(e),
                _ => {
                    self.error(
                        *sp,
                        Code::E0004,
                        "a structured binding is initialized with one value (`= value` or `{value}`), not a braced list",
                    );
                    None
                }
            },
            None => None,
        }
    }

    /// What a value of type `ty` decomposes into, or a diagnostic at the
    /// bracketed list.
    fn elements_of(&mut self, ty: &CType, at: Span) -> Option<Elements> {
        let why = match ty {
            CType::Array { len: Some(n), .. } => return Some(Elements::Array(*n)),
            CType::Struct(_) => match ty.struct_def() {
                Some(def) if def.is_union => format!("`{ty}` is a union"),
                Some(def) if self.may_be_tuple_like(def) => {
                    let msg = format!(
                        "a structured binding of `{ty}`, which has a `get` function template (the tuple-like protocol, whose `std::tuple_size` kernelc cannot see), is not supported by kernelc"
                    );
                    self.error(at, Code::E0002, msg);
                    return None;
                }
                Some(def) => match data_members(def) {
                    Ok(members) => return Some(Elements::Members(members)),
                    Err(why) => why,
                },
                None => format!("`{ty}` is not a complete class"),
            },
            _ => "structured bindings need an array of known length or a class".to_string(),
        };
        self.error(
            at,
            Code::E0004,
            format!("cannot decompose a value of type `{ty}`: {why}"),
        );
        None
    }

    /// Whether `def` may be tuple-like: C++ decomposes it through
    /// `get<I>` when `std::tuple_size<E>` is specialized, a class template
    /// specialization the split leaves to host code, unseen here. A `get`
    /// function template, `def`'s member or at namespace scope, is the
    /// protocol's other half: decomposing such a class by its data members
    /// could give other values than nvcc's, so it is refused instead.
    fn may_be_tuple_like(&self, def: &StructDef) -> bool {
        self.tmpl.templates.functions.iter().any(|t| {
            let unqualified = t.name.rsplit("::").next() == Some("get");
            unqualified && t.member_of.as_deref().is_none_or(|class| class == def.name)
        })
    }

    /// C++'s count rule: one name per element, neither more nor fewer.
    fn wrong_count(&mut self, ty: &CType, count: u64, names: usize, at: Span) {
        let elements = match count {
            1 => "1 element".to_string(),
            n => format!("{n} elements"),
        };
        let given = match names {
            1 => "1 name is".to_string(),
            n => format!("{n} names are"),
        };
        self.diags.push(
            Diagnostic::error(
                at,
                Code::E0004,
                format!("`{ty}` decomposes into {elements}, but {given} given"),
            )
            .with_note("a structured binding declaration names every element, in order"),
        );
    }

    /// The object of an array: the address of its first element (see the
    /// module's comment for why a copy needs no array of its own).
    fn array_object(&mut self, v: &ast::VarDecl, e: Expr) -> Option<Stmt> {
        if !Self::is_lvalue(&e) {
            self.error(
                e.span,
                Code::E0002,
                "a structured binding of an array that is not an object (a temporary array) is not supported by kernelc",
            );
            return None;
        }
        if v.by_ref.is_none() && matches!(&e.ty, CType::Array { elem, .. } if elem.is_array()) {
            self.error(
                v.name_span,
                Code::E0002,
                "copying an array of arrays into a structured binding is not supported by kernelc (bind it by reference: `auto &[...]`)",
            );
            return None;
        }
        let first = self.decay(e);
        let local = self.declare_local(&v.name, first.ty.clone(), false, false, v.name_span);
        self.func.initialized.insert(local);
        Some(Stmt {
            kind: StmtKind::Decl {
                local,
                init: Some(first),
                list: None,
            },
            span: v.span,
        })
    }

    /// The object of `auto [a, b] = init;` for a class: a copy of `init`.
    fn object_copy(&mut self, v: &ast::VarDecl, e: Expr) -> Option<Stmt> {
        let ty = strip_restrict(&e.ty).0;
        self.copy_initialized(v, e, ty)
    }

    /// Each name as a declaration that refers to its element of the
    /// object (`auto &a = [a, b].first;`).
    fn binding_names(
        &mut self,
        b: &ast::Bindings,
        elements: &Elements,
    ) -> Option<Vec<ast::VarDecl>> {
        let v = &b.object;
        let object = ast::Expr {
            kind: ast::ExprKind::Ident(v.name.clone()),
            span: v.name_span,
        };
        let mut out = Vec::new();
        for (i, (name, span)) in b.names.iter().enumerate() {
            let (kind, by_ref) = match elements {
                Elements::Array(_) => {
                    let index = ast::Expr {
                        kind: ast::ExprKind::IntLit {
                            value: i as u64,
                            ty: CType::INT,
                            spelling: ast::Spelling::Plain,
                        },
                        span: *span,
                    };
                    let kind = ast::ExprKind::Index {
                        base: Box::new(object.clone()),
                        index: Box::new(index),
                    };
                    (kind, v.by_ref.map(|_| *span))
                }
                Elements::Members(members) => {
                    let (field, bit_field) = &members[i];
                    let by_ref = match (bit_field, v.by_ref) {
                        // A bit-field has no address; a copy of it reads
                        // and writes as the copied object's member would.
                        (true, None) => None,
                        (true, Some(_)) => {
                            self.error(
                                *span,
                                Code::E0002,
                                format!("`{name}` names the bit-field `{field}` through a reference; binding a bit-field of a referenced object is not supported by kernelc"),
                            );
                            return None;
                        }
                        (false, _) => Some(*span),
                    };
                    let kind = ast::ExprKind::Member {
                        base: Box::new(object.clone()),
                        field: field.clone(),
                        field_span: *span,
                        arrow: false,
                        template_args: Vec::new(),
                    };
                    (kind, by_ref)
                }
            };
            out.push(ast::VarDecl {
                name: name.clone(),
                name_span: *span,
                ty: ast::QualType {
                    span: *span,
                    ..v.ty.clone()
                },
                dims: Vec::new(),
                storage: Default::default(),
                init: Some(ast::Init::Expr(ast::Expr { kind, span: *span })),
                by_ref,
                rvalue: false,
                auto: v.auto,
                decltype: None,
                direct_braces: false,
                span: *span,
            });
        }
        Some(out)
    }
}

/// The data members a class decomposes into, each with whether it is a
/// bit-field: the class's own, or, when it has none, those of the one base
/// that has any (C++: all of them members of one class).
fn data_members(def: &StructDef) -> Result<Vec<(String, bool)>, String> {
    let own: Vec<(String, bool)> = def.fields[def.bases..]
        .iter()
        .filter(|f| !(f.name.is_empty() && f.bits.is_some()))
        .map(|f| (f.name.clone(), f.bits.is_some()))
        .collect();
    if own.iter().any(|(name, _)| name.is_empty()) {
        return Err(format!(
            "`{}` has an anonymous union or struct member",
            def.name
        ));
    }
    let mut with_members = Vec::new();
    for base in &def.fields[..def.bases] {
        if let Some(b) = base.ty.struct_def() {
            let members = data_members(b)?;
            if !members.is_empty() {
                with_members.push((b.name.clone(), members));
            }
        }
    }
    match (own.is_empty(), with_members.len()) {
        (_, 0) => Ok(own),
        (true, 1) => Ok(with_members.remove(0).1),
        (false, _) => Err(format!(
            "its data members are in `{}` and in its base `{}`, not in one class",
            def.name, with_members[0].0
        )),
        (true, _) => Err(format!(
            "its data members are in its bases `{}` and `{}`, not in one class",
            with_members[0].0, with_members[1].0
        )),
    }
}
