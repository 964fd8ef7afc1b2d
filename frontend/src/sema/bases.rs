//! Base classes in the checker: names found in a base, and the
//! conversions between a class and its bases (`crate::bases` places them).
//!
//! A base subobject is a field of the derived object, so every way to a
//! base is a field access (an object, `this` adjusted for a member found
//! in a base) or an offset added to a pointer:
//!
//! - derived to base, `D *` to `B *`: the pointer plus the base's offset,
//!   and a null pointer stays null (`p ? p + off : 0`), as C++ says; the
//!   address of an object is never null, so it needs no test;
//! - base to derived, `static_cast<D *>(b)` (and a C cast): the pointer
//!   minus the offset, null kept the same way;
//! - a `D` object where a `B` is wanted (a copy, a reference to `B`): its
//!   base subobject (slicing a copy).

use std::sync::Arc;

use super::convert::convert;
use super::Checker;
use crate::bases::{find_in_bases, path_to, BasePath};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::parser::join;
use crate::typed::{CastKind, Expr, ExprKind, Place};
use crate::types::{CType, StructDef};

fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// The class a pointer type points to.
fn pointee_class(ty: &CType) -> Option<&StructDef> {
    ty.pointee()?.struct_def()
}

impl Checker {
    /// The key of the static member `name` of class `def` or of the base
    /// that declares it (`Derived::count` is `Base::count`); the class's own
    /// key when no base declares one.
    pub(super) fn static_member_key(&self, def: &StructDef, name: &str) -> String {
        find_in_bases(def, &mut |d| {
            let key = join(&d.name, name);
            self.lookup(&key).is_some().then_some(key)
        })
        .map_or_else(|| join(&def.name, name), |(key, _)| key)
    }

    /// The member functions named `name` of `def`, or else of the first of
    /// its bases that declares some, with the way to that base.
    pub(super) fn inherited_members(
        &self,
        def: &StructDef,
        name: &str,
    ) -> Option<(Vec<String>, BasePath)> {
        find_in_bases(def, &mut |d| {
            let mut keys = self
                .overloads
                .by_plain
                .get(&join(&d.name, name))
                .cloned()
                .unwrap_or_default();
            if d.using_members.iter().any(|u| u == name) {
                // `using Base::name;`: the bases' overloads beside the
                // class's own, each called on its own class's part.
                for base in d.base_fields().iter().filter_map(crate::bases::base_class) {
                    if let Some((more, _)) = self.inherited_members(base, name) {
                        keys.extend(more);
                    }
                }
            }
            (!keys.is_empty()).then_some(keys)
        })
    }

    /// The way from `def` to the class that declares the member template
    /// `name`: `def` itself, or the first of its bases that does (a CRTP
    /// base's `template <int N> void step()`).
    pub(super) fn member_template_owner(&self, def: &StructDef, name: &str) -> Option<BasePath> {
        let templates = &self.tmpl.templates.by_name;
        find_in_bases(def, &mut |d| {
            templates.contains_key(&join(&d.name, name)).then_some(())
        })
        .map(|((), path)| path)
    }

    /// E0021 when member `name` of class `def` is found in two of its
    /// base subobjects and `def` declares none itself (C++'s ambiguous
    /// member lookup: no base wins), each candidate as a note. Whether it
    /// was.
    pub(super) fn ambiguous_member(&mut self, def: &StructDef, name: &str, span: Span) -> bool {
        let found = crate::bases::ambiguous_in_bases(def, &mut |d| {
            let declares = d.field(name).is_some()
                || d.using_members.iter().any(|u| u == name)
                || self.overloads.by_plain.contains_key(&join(&d.name, name));
            declares.then_some(())
        });
        let Some(classes) = found else {
            return false;
        };
        let mut d = Diagnostic::error(
            span,
            Code::E0021,
            format!(
                "`{}::{name}` is ambiguous: it is a member of more than one base",
                def.name
            ),
        );
        for class in &classes {
            d = d.with_note(format!("candidate: `{class}::{name}`"));
        }
        self.diags.push(d);
        true
    }

    /// The object `e` seen as its base subobject at the end of `path`.
    pub(super) fn base_subobject(e: Expr, path: &BasePath) -> Expr {
        path.steps.iter().fold(e, |e, (def, offset)| {
            let span = e.span;
            let kind = ExprKind::Field {
                base: Box::new(e),
                offset: *offset,
            };
            mk(kind, CType::Struct(def.clone()), span)
        })
    }

    /// `e` of class type where an object of class `to` is wanted: its
    /// base subobject when `to` is a base of its class.
    pub(super) fn to_base_object(e: Expr, to: &CType) -> Result<Expr, Expr> {
        let path = match (e.ty.struct_def(), to.struct_def()) {
            (Some(from), Some(base)) if from.id != base.id => path_to(from, base),
            _ => None,
        };
        match path {
            Some(path) => Ok(Self::base_subobject(e, &path)),
            None => Err(e),
        }
    }

    /// Whether a pointer of type `from` converts to `to` between a class
    /// and one of its bases: the byte offset to add (negative from a base
    /// to a derived class), `None` for classes that are not so related.
    pub(super) fn class_pointer_offset(from: &CType, to: &CType, downcast: bool) -> Option<i128> {
        let (f, t) = (pointee_class(from)?, pointee_class(to)?);
        if f.id == t.id {
            return None;
        }
        if let Some(path) = path_to(f, t) {
            return Some(i128::from(path.offset));
        }
        if downcast {
            return path_to(t, f).map(|path| -i128::from(path.offset));
        }
        None
    }

    /// The pointer `e` moved by `offset` bytes to type `to` (a class's
    /// pointer converted to its base's or back), a null pointer kept null.
    pub(super) fn adjust_class_pointer(&mut self, e: Expr, to: &CType, offset: i128) -> Expr {
        let span = e.span;
        if offset == 0 {
            return convert(e, to);
        }
        let bytes = CType::Pointer {
            pointee: Box::new(CType::Int {
                bits: 8,
                signed: true,
            }),
            pointee_const: false,
            pointee_volatile: false,
            restrict: false,
        };
        let moved = |p: Expr| {
            let p = convert(p, &bytes);
            let off = mk(ExprKind::IntConst(offset), CType::LONG, span);
            let sum = mk(
                ExprKind::PtrAdd {
                    ptr: Box::new(p),
                    offset: Box::new(off),
                    elem_size: 1,
                },
                bytes.clone(),
                span,
            );
            convert(sum, to)
        };
        if matches!(e.kind, ExprKind::AddrOf(_)) || self.is_this(&e) {
            // An object's address is never null, nor is `this`.
            return moved(e);
        }
        let tmp = self.declare_local("", e.ty.clone(), false, false, span);
        self.mark_used(tmp);
        let read = || mk(ExprKind::Local(tmp), e.ty.clone(), span);
        let null = mk(
            ExprKind::Cast {
                kind: CastKind::IntToPtr,
                expr: Box::new(mk(ExprKind::IntConst(0), CType::LONG, span)),
            },
            to.clone(),
            span,
        );
        let test = convert(read(), &CType::Bool);
        let choice = mk(
            ExprKind::Ternary {
                cond: Box::new(test),
                then: Box::new(moved(read())),
                els: Box::new(null),
            },
            to.clone(),
            span,
        );
        let ty = e.ty.clone();
        let store = mk(
            ExprKind::Assign {
                target: Place::Local(tmp),
                op: None,
                value: Box::new(e),
            },
            ty,
            span,
        );
        mk(
            ExprKind::Comma {
                lhs: Box::new(store),
                rhs: Box::new(choice),
            },
            to.clone(),
            span,
        )
    }

    /// Whether `e` reads the `this` parameter.
    fn is_this(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Local(id)
            if self.func.locals[id.0 as usize].is_param
                && self.func.locals[id.0 as usize].name == "this")
    }

    /// `B::f(args)` inside a member function of `B` or of a class derived
    /// from it, `f` a non-static member function: called on `this`'s `B`
    /// part, without looking further (`Base::bump()` from `Derived::bump`).
    /// `None` when `name` is no such call.
    pub(super) fn qualified_member_call(
        &mut self,
        name: &str,
        args: &[Option<Expr>],
        callee: Span,
        span: Span,
    ) -> Option<Option<Expr>> {
        let keys = self.overloads.by_plain.get(name)?.clone();
        if !keys
            .iter()
            .any(|k| self.sigs[self.by_name[k.as_str()]].is_method)
        {
            return None;
        }
        let (class, _) = crate::mangle::split_member(name)?;
        let this_id = self.lookup_local("this")?;
        let this_ty = self.func.locals[this_id.0 as usize].ty.clone();
        let own = this_ty.pointee()?.clone();
        let path = crate::bases::find_in_bases(own.struct_def()?, &mut |d| {
            (d.name == class).then_some(())
        })?
        .1;
        self.mark_used(this_id);
        let this = mk(ExprKind::Local(this_id), this_ty, callee);
        let obj = mk(ExprKind::Deref(Box::new(this)), own, callee);
        let obj = Self::base_subobject(obj, &path);
        Some(self.call_member(name, &keys, obj, args.to_vec(), callee, span))
    }

    /// `D d;` of a class without constructors whose bases or members
    /// have some (its implicit default constructor): a temporary whose
    /// base subobjects, then members, in declaration order, their default
    /// constructors make. `None` when none has a constructor.
    pub(super) fn default_construct_bases(&mut self, ty: &CType, span: Span) -> Option<Expr> {
        let def = ty.struct_def()?.clone();
        let built: Vec<(Arc<StructDef>, u64, Vec<String>)> = def
            .fields
            .iter()
            .filter(|f| !f.reference)
            .filter_map(|f| {
                let part = crate::bases::base_class(f)?.clone();
                let ctors = self.constructors(&part);
                (!ctors.is_empty()).then_some((part, f.offset, ctors))
            })
            .collect();
        if built.is_empty() {
            return None;
        }
        let tmp = self.declare_local("", ty.clone(), false, false, span);
        self.mark_used(tmp);
        let mut value = mk(ExprKind::Local(tmp), ty.clone(), span);
        for (base, offset, ctors) in built.into_iter().rev() {
            let obj = mk(
                ExprKind::Field {
                    base: Box::new(mk(ExprKind::Local(tmp), ty.clone(), span)),
                    offset,
                },
                CType::Struct(base.clone()),
                span,
            );
            let plain = join(&base.name, crate::mangle::unqualified(&base.name));
            let call = self.call_member(&plain, &ctors, obj, Vec::new(), span, span)?;
            value = mk(
                ExprKind::Comma {
                    lhs: Box::new(call),
                    rhs: Box::new(value),
                },
                ty.clone(),
                span,
            );
        }
        Some(value)
    }

    /// In a member function, the key of the static member `name` (data or
    /// function) of a base of its class (`kStep` for `Counter::kStep` in
    /// `Both : Counter`).
    pub(super) fn base_static_member(&self, name: &str) -> Option<String> {
        if let Some((def, _, member)) = self.instance_class_of(name) {
            // `Derived<T>::count` of a base's static member.
            let key = self.static_member_key(&def, member);
            return (key != name).then_some(key);
        }
        if name.contains("::") {
            return None;
        }
        let this = self.lookup_local("this")?;
        let ty = self.func.locals[this.0 as usize].ty.pointee()?.clone();
        let def = ty.struct_def()?;
        let (key, path) = find_in_bases(def, &mut |d| {
            let key = join(&d.name, name);
            let declared =
                self.lookup(&key).is_some() || self.overloads.by_plain.contains_key(&key);
            declared.then_some(key)
        })?;
        (!path.steps.is_empty()).then_some(key)
    }
}
