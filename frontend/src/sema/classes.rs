//! Classes in the checker: calls of member functions, constructions, and
//! operators whose operand is a class.
//!
//! The parser has made every member function a function whose key is
//! qualified by its class, with a first parameter `this` when it is not
//! static (`parser/classes.rs`). What is left here is C++'s binding of
//! `this` and the places a function is called without being named:
//!
//! - `obj.f(args)` and `p->f(args)` call `Class::f` with the object first;
//!   overload resolution ranks the object against the class as it ranks
//!   an argument bound to a reference parameter (a `const` member
//!   function takes a `const` object; [over.match.funcs]).
//! - The object's address is `this`: an lvalue's own, or a temporary's
//!   for a value such as a call's result (C++ materializes it).
//! - `S(a, b)` constructs a temporary: the constructor `S::S` is called on
//!   it; a struct without constructors takes its members in order.
//! - `a + b`, `-a`, `a += b`, `a[i]`, `f(x)` with a class operand call an
//!   operator function (`operator+`) when one is viable: the class's
//!   member, or a function in the namespaces enclosing the call or the
//!   operand's class (argument-dependent lookup). With none viable the
//!   operator keeps its built-in meaning, as C++'s built-in candidates
//!   would give it.

use super::{Binding, Checker};
use crate::ast;
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{Expr, ExprKind, Place};
use crate::types::{CType, StructDef};

fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

use crate::parser::join;

/// The namespace part of a key (`sim` for `sim::Ray`).
fn scope_of(key: &str) -> &str {
    crate::mangle::split_member(key).map_or("", |(s, _)| s)
}

/// Adds namespace `ns` to `found` unless it is the global one or there.
fn add_namespace(found: &mut Vec<String>, ns: &str) {
    if !ns.is_empty() && !found.iter().any(|f| f == ns) {
        found.push(ns.to_string());
    }
}

/// How deep [`class_namespaces`] follows instances in template arguments.
const MAX_ARGUMENT_DEPTH: usize = 8;

/// Adds to `found` the namespaces argument-dependent lookup associates
/// with `ty` (or the class it points to): its class's, and for a class
/// template's instance its template's and those of its type arguments'
/// classes, each once and none the global namespace.
fn class_namespaces(ty: &CType, found: &mut Vec<String>, depth: usize) {
    let Some(def) = ty.struct_def().or_else(|| ty.pointee()?.struct_def()) else {
        return;
    };
    let Some(instance) = &def.instance_of else {
        add_namespace(found, scope_of(&def.name));
        return;
    };
    add_namespace(found, scope_of(&instance.template));
    if depth >= MAX_ARGUMENT_DEPTH {
        return;
    }
    for arg in &instance.args {
        let elems = match arg {
            crate::templates::ArgValue::Pack(elems) => elems.iter().collect(),
            a => vec![a],
        };
        for e in elems {
            if let crate::templates::ArgValue::Type { ty, .. } = e.referenced() {
                class_namespaces(ty, found, depth + 1);
            }
        }
    }
}

/// The callee of `obj.field(...)` as written: the member's name, where it
/// is written, `->` or `.`, and a member template's written arguments.
pub(super) struct MemberCall<'a> {
    pub field: &'a str,
    pub field_span: Span,
    pub arrow: bool,
    pub explicit: &'a [crate::templates::TemplateArg],
}

impl Checker {
    /// Whether a name bound to `b` is an object of a class (which a call
    /// applies `operator()` to).
    pub(super) fn is_class_object(&self, b: &Binding) -> bool {
        let ty = match b {
            Binding::Local(id) => &self.func.locals[id.0 as usize].ty,
            Binding::Ref(id) => match self.func.locals[id.0 as usize].ty.pointee() {
                Some(t) => t,
                None => return false,
            },
            Binding::Global(id) => &self.globals[id.0 as usize].ty,
            _ => return false,
        };
        ty.is_struct()
    }

    /// The keys of the member functions named `name` of class `def`.
    // (A member template's instances are keyed `Class::f<T>`, so they are
    // not among them: `member_template_call` makes and finds those.)
    fn members_named(&self, def: &StructDef, name: &str) -> Vec<String> {
        self.overloads
            .by_plain
            .get(&join(&def.name, name))
            .cloned()
            .unwrap_or_default()
    }

    /// `base.field(args)` or `base->field(args)`: a member function's call.
    pub(super) fn method_call(
        &mut self,
        base: &ast::Expr,
        member: &MemberCall<'_>,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let (field, field_span, arrow) = (member.field, member.field_span, member.arrow);
        let b = self.expr_nodecay(base);
        let typed = self.call_args(args);
        let b = b?;
        let obj = if arrow {
            match b.ty.pointee().filter(|t| t.is_struct()).cloned() {
                Some(t) => {
                    let b = self.decay(b);
                    mk(ExprKind::Deref(Box::new(b)), t, span)
                }
                None => {
                    self.error(
                        field_span,
                        Code::E0008,
                        format!(
                            "member reference type `{}` is not a pointer to a struct",
                            b.ty
                        ),
                    );
                    return None;
                }
            }
        } else {
            b
        };
        let Some(def) = obj.ty.struct_def().cloned() else {
            self.error(
                field_span,
                Code::E0008,
                format!("member reference base type `{}` is not a struct", obj.ty),
            );
            return None;
        };
        if self.ambiguous_member(&def, field, field_span) {
            return None;
        }
        let (keys, obj) = match self.inherited_members(&def, field) {
            // A member function of a base: called on the base subobject.
            Some((keys, path)) if def.field(field).is_none() => {
                if !self.check_base_path(&def, &path, field, field_span) {
                    return None;
                }
                (keys, Self::base_subobject(obj, &path))
            }
            _ => match self.member_template_owner(&def, field) {
                // A member template of a base: instantiated for the base.
                Some(path) if def.field(field).is_none() && !path.steps.is_empty() => {
                    if !self.check_base_path(&def, &path, field, field_span) {
                        return None;
                    }
                    (Vec::new(), Self::base_subobject(obj, &path))
                }
                _ => (Vec::new(), obj),
            },
        };
        let def = obj.ty.struct_def().cloned().unwrap_or(def);
        let plain = join(&def.name, field);
        // Written template arguments (`s.first<3>()`) name the member
        // template even beside a plain member function of its name.
        let is_template = self.tmpl.templates.by_name.contains_key(&plain);
        let template_only = keys.is_empty() || !member.explicit.is_empty();
        if template_only && is_template {
            return self.member_template_call(
                &plain,
                member.explicit,
                obj,
                typed,
                field_span,
                span,
            );
        }
        if let Some(f) = def
            .field(field)
            .filter(|f| keys.is_empty() && f.ty.is_struct())
        {
            // `op_(a, b)`: a member object's `operator()`.
            let base = Box::new(obj);
            let kind = ExprKind::Field {
                base,
                offset: f.offset,
            };
            let callee = mk(kind, f.ty.clone(), field_span);
            return self.call_operator(callee, field_span, typed, span);
        }
        if let Some(f) = def
            .field(field)
            .filter(|f| keys.is_empty() && f.ty.is_fn_pointer())
        {
            // `s.op(x)`: a call through a function pointer member.
            let base = Box::new(obj);
            let kind = ExprKind::Field {
                base,
                offset: f.offset,
            };
            let callee = mk(kind, f.ty.clone(), field_span);
            return self.indirect_call(callee, typed, span);
        }
        if keys.is_empty() {
            let msg = if def.field(field).is_some() {
                format!(
                    "`{field}` is a data member of `{}`, not a member function",
                    obj.ty
                )
            } else {
                format!("no member function named `{field}` in `{}`", obj.ty)
            };
            self.error(field_span, Code::E0008, msg);
            return None;
        }
        let keys = match is_template {
            // Both kinds of member: the template's instance competes.
            true => self.with_member_template(&plain, keys, &obj, &typed, field_span),
            false => keys,
        };
        self.call_member(&plain, &keys, obj, typed, field_span, span)
    }

    /// The member functions `keys` named `plain` with the instance of the
    /// member template of that name that a call on `obj` with `args`
    /// deduces, if one does ([over.match.funcs]: both are candidates; an
    /// instance loses a tie to a function). Deduction that fails is no
    /// error here, as SFINAE drops the candidate.
    fn with_member_template(
        &mut self,
        plain: &str,
        mut keys: Vec<String>,
        obj: &Expr,
        args: &[Option<Expr>],
        at: Span,
    ) -> Vec<String> {
        let all = self.member_template_args(plain, obj.clone(), args.to_vec());
        let before = self.diags.len();
        let instance = self.template_call(plain, &[], &all, at);
        if self.diags.len() > before {
            self.diags.truncate(before);
            return keys;
        }
        if let Some(instance) = instance {
            self.overloads.instances.insert(instance.clone());
            keys.push(instance);
        }
        keys
    }

    /// A call of member template `plain` (`Class::f`) on `obj` with
    /// `explicit` template arguments and `args`: the instance that
    /// deduction makes, called as any member function (a static one
    /// without the object).
    fn member_template_call(
        &mut self,
        plain: &str,
        explicit: &[crate::templates::TemplateArg],
        obj: Expr,
        args: Vec<Option<Expr>>,
        at: Span,
        span: Span,
    ) -> Option<Expr> {
        let all = self.member_template_args(plain, obj, args);
        let key = self.template_call(plain, explicit, &all, at)?;
        self.call_resolved(&key, all, at, span)
    }

    /// The arguments of a call of member template `plain` on `obj`: the
    /// object first where the template is a non-static member.
    fn member_template_args(
        &self,
        plain: &str,
        obj: Expr,
        args: Vec<Option<Expr>>,
    ) -> Vec<Option<Expr>> {
        let templates = &self.tmpl.templates;
        let has_this = templates.by_name[plain].iter().any(|&i| {
            let pattern = templates.functions[i].pattern.as_ref();
            pattern.is_some_and(|p| p.method.is_some())
        });
        let mut all = Vec::with_capacity(args.len() + 1);
        if has_this {
            all.push(Some(obj));
        }
        all.extend(args);
        all
    }

    /// A call of one of the member functions `keys` (named `plain`) on
    /// `obj` with `args`; a static member function ignores the object.
    pub(super) fn call_member(
        &mut self,
        plain: &str,
        keys: &[String],
        obj: Expr,
        args: Vec<Option<Expr>>,
        at: Span,
        span: Span,
    ) -> Option<Expr> {
        let statics: Vec<String> = keys
            .iter()
            .filter(|k| !self.sigs[self.by_name[k.as_str()]].is_method)
            .cloned()
            .collect();
        if statics.len() == keys.len() {
            // `obj.f()` of a static member function: the object is not
            // passed (C++ evaluates it; kernelc's objects have no effects).
            let key = self.pick(plain, keys, &args, at)?;
            return self.call_resolved(&key, args, at, span);
        }
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Some(obj));
        all.extend(args);
        let key = self.pick(plain, keys, &all, at)?;
        self.call_resolved(&key, all, at, span)
    }

    /// The conversion function of class type `from` that converts its
    /// objects to `to` (`operator T *()`, C++'s user-defined conversion):
    /// the one to exactly `to`, else the class's only one. A class that
    /// declares none uses its bases' for a target that is no class
    /// (`is_half<T> : std::true_type` converts to `bool`); a class target
    /// is left to the derived-to-base copy.
    pub(super) fn conversion_function(&self, from: &CType, to: &CType) -> Option<String> {
        self.conversion(from, to).map(|(key, _)| key)
    }

    /// [`Self::conversion_function`], with the way to the base that
    /// declares it (empty for the class's own).
    fn conversion(&self, from: &CType, to: &CType) -> Option<(String, crate::bases::BasePath)> {
        let def = from.struct_def()?;
        let in_bases = !to.is_struct();
        crate::bases::find_in_bases(def, &mut |d| {
            (in_bases || d.name == def.name)
                .then(|| self.own_conversion_function(d, to))
                .flatten()
        })
    }

    /// [`Self::conversion_function`] among the functions `def` declares.
    fn own_conversion_function(&self, def: &StructDef, to: &CType) -> Option<String> {
        let prefix = format!("{}::operator ", def.name);
        let mut found: Vec<(String, bool)> = self
            .overloads
            .by_plain
            .iter()
            .filter(|(plain, _)| plain.starts_with(&prefix))
            .flat_map(|(_, keys)| keys.iter())
            .map(|k| (k.clone(), self.sigs[self.by_name[k.as_str()]].ret == *to))
            .collect();
        found.sort();
        match found.iter().find(|(_, exact)| *exact) {
            Some((k, _)) => Some(k.clone()),
            None if found.len() == 1 => Some(found[0].0.clone()),
            None => None,
        }
    }

    /// `e` converted to `to` by its class's conversion function (called
    /// on the base subobject that declares it), if it has one.
    pub(super) fn convert_by_function(
        &mut self,
        e: Expr,
        to: &CType,
        at: Span,
    ) -> Result<Option<Expr>, Expr> {
        let Some((key, path)) = self.conversion(&e.ty, to) else {
            return Err(e);
        };
        let span = e.span;
        let object = Self::base_subobject(e, &path);
        Ok(self.call_member(
            &key,
            std::slice::from_ref(&key),
            object,
            Vec::new(),
            at,
            span,
        ))
    }

    /// An operand of a built-in binary operator: a class object converted
    /// by its class's conversion function to the type that declares
    /// (`std::integral_constant<int, 3>{} + 1`, `is_same<A, B>{} + 0`,
    /// C++'s built-in candidates taking the converted value), anything
    /// else as it is. `None` when the conversion's call is an error.
    pub(super) fn builtin_operand(&mut self, e: Expr, at: Span) -> Option<Expr> {
        if !e.ty.is_struct() || crate::half::is_half_type(&e.ty) {
            return Some(e);
        }
        match self.convert_by_function(e, &CType::INT, at) {
            Ok(converted) => converted,
            Err(e) => Some(e),
        }
    }

    /// The one of `keys` a call with `args` chooses.
    fn pick(
        &mut self,
        plain: &str,
        keys: &[String],
        args: &[Option<Expr>],
        at: Span,
    ) -> Option<String> {
        // A ref-qualified member binds only some objects, which ranking
        // checks, even alone.
        let unqualified = |k: &String| {
            self.sigs[self.by_name[k.as_str()]].ref_qualifier == ast::RefQualifier::None
        };
        if keys.len() == 1 && unqualified(&keys[0]) {
            return Some(keys[0].clone());
        }
        self.choose_overload(plain, keys, args, at)
    }

    /// The value `this` takes for the object `e` in a call of a member
    /// function whose `this` has type `this_ty`: the object's address, or
    /// a temporary's holding it.
    pub(super) fn object_address(&mut self, e: Expr, this_ty: &CType) -> Option<Expr> {
        let span = e.span;
        if Self::is_lvalue(&e) {
            let wants_const = matches!(
                this_ty,
                CType::Pointer {
                    pointee_const: true,
                    ..
                }
            );
            if !wants_const && self.lvalue_is_const(&e) {
                self.error(
                    span,
                    Code::E0005,
                    format!("a non-`const` member function cannot be called on a `const` object of type `{}`", e.ty),
                );
                return None;
            }
            let addr = self.addr_of(e, span)?;
            return self.assign_convert(addr, this_ty, "`this`", span);
        }
        let addr = self.temporary_address(e, span)?;
        self.assign_convert(addr, this_ty, "`this`", span)
    }

    /// The constructors of class `def`, if it declares any.
    /// With none of its own, those it inherits from a base by `using
    /// Base::Base;` (C++11's inheriting constructors).
    pub(super) fn constructors(&self, def: &StructDef) -> Vec<String> {
        let own = self.members_named(def, crate::mangle::unqualified(&def.name));
        if !own.is_empty() || def.using_members.is_empty() {
            return own;
        }
        def.base_fields()
            .iter()
            .filter_map(crate::bases::base_class)
            .filter(|base| {
                let simple = crate::mangle::unqualified(&base.name);
                let template = simple.split('<').next().unwrap_or(simple);
                def.using_members.iter().any(|u| u == template)
            })
            .flat_map(|base| self.constructors(base))
            .collect()
    }

    /// Whether `ty` is a class with a constructor (or constructor
    /// template).
    pub(super) fn has_constructors(&self, ty: &CType) -> bool {
        ty.struct_def().is_some_and(|def| {
            !self.constructors(def).is_empty() || self.constructor_template(def).is_some()
        })
    }

    /// The key of class `def`'s constructor templates
    /// (`template <class U> A(const A<U> &)`), if it has any.
    fn constructor_template(&self, def: &StructDef) -> Option<String> {
        let plain = join(&def.name, crate::mangle::unqualified(&def.name));
        self.tmpl.templates.is_template(&plain).then_some(plain)
    }

    /// `ctors` with the instance of `def`'s constructor template that
    /// deduction makes for constructing `obj` from `args`, if one does.
    /// When other constructors exist, a template that does not fit is no
    /// error (its diagnostics are dropped, as SFINAE drops it); the
    /// overloads then compete as C++'s do. One argument of the class
    /// itself is a copy, which the implicit copy constructor makes: a
    /// template is never a copy constructor ([class.copy.ctor]).
    fn with_constructor_template(
        &mut self,
        def: &StructDef,
        ctors: &[String],
        obj: &Expr,
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<Vec<String>> {
        let mut keys = ctors.to_vec();
        let Some(plain) = self.constructor_template(def) else {
            return Some(keys);
        };
        let copy =
            matches!(args, [Some(a)] if a.ty.struct_def().is_some_and(|d| d.name == def.name));
        if copy && !ctors.is_empty() {
            return Some(keys);
        }
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Some(obj.clone()));
        all.extend(args.iter().cloned());
        let before = self.diags.len();
        match self.template_call(&plain, &[], &all, span) {
            Some(instance) => {
                self.overloads.instances.insert(instance.clone());
                keys.push(instance);
            }
            None if ctors.is_empty() => return None,
            None => self.diags.truncate(before),
        }
        Some(keys)
    }

    /// `S(args)`, `S{args}`, `S s(args)`: an object of `ty` made by its
    /// constructor, or for a struct without one, by C's rules (a cast of
    /// one value, zero for none, the members in order for several).
    pub(super) fn construct(&mut self, ty: &CType, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let Some(def) = ty.struct_def().cloned() else {
            // The arguments are checked for their own errors all the same.
            for a in args {
                let _ = self.expr(a);
            }
            self.error(
                span,
                Code::E0007,
                format!(
                    "a value of type `{ty}` cannot be made from {} values",
                    args.len()
                ),
            );
            return None;
        };
        let ctors = self.constructors(&def);
        if !args.is_empty() && self.only_aggregate_ctor(&ctors) {
            // `S{1, 2}` of an aggregate with default member initializers:
            // the defaults, then the values in order over them.
            let defaults = self.construct_with(ty, &def, &ctors, Vec::new(), span)?;
            return self.members_in_order_over(ty, &def, args, span, Some(defaults));
        }
        if !ctors.is_empty() || self.constructor_template(&def).is_some() {
            let typed = self.call_args(args);
            return self.construct_with(ty, &def, &ctors, typed, span);
        }
        match args {
            // `S()`: a temporary with every member zero.
            [] => self.members_in_order(ty, &def, args, span),
            // A union's one value is its first member's (`U{1.0f}`).
            [_] if def.is_union => self.members_in_order(ty, &def, args, span),
            [one] => {
                let e = self.expr(one)?;
                if e.ty.is_struct() || def.fields.is_empty() {
                    return self.explicit_cast(e, ty, span);
                }
                // `Scale{2.0f}`: the first member's value (an aggregate's
                // initialization), not a conversion.
                self.members_in_order(ty, &def, args, span)
            }
            _ => self.members_in_order(ty, &def, args, span),
        }
    }

    /// A temporary of class `ty` on which one of `ctors` runs with `args`.
    pub(super) fn construct_with(
        &mut self,
        ty: &CType,
        def: &StructDef,
        ctors: &[String],
        args: Vec<Option<Expr>>,
        span: Span,
    ) -> Option<Expr> {
        let tmp = self.declare_local("", ty.clone(), false, false, span);
        self.mark_used(tmp);
        self.note_temporary(tmp, ty);
        let obj = mk(ExprKind::Local(tmp), ty.clone(), span);
        let plain = join(&def.name, crate::mangle::unqualified(&def.name));
        let ctors = self.with_constructor_template(def, ctors, &obj, &args, span)?;
        let mut call = self.call_member(&plain, &ctors, obj, args, span, span)?;
        let inherited = ctors
            .first()
            .is_some_and(|k| scope_of(k) != def.name.as_str());
        if inherited {
            // An inherited constructor initializes the base; the class's
            // own members are default-initialized ([class.inhctor.init]).
            for f in def.own_fields() {
                let Some(member) = f.ty.struct_def() else {
                    continue;
                };
                let member_ctors = self.constructors(member);
                if f.reference || member_ctors.is_empty() {
                    continue;
                }
                let field = mk(
                    ExprKind::Field {
                        base: Box::new(mk(ExprKind::Local(tmp), ty.clone(), span)),
                        offset: f.offset,
                    },
                    f.ty.clone(),
                    span,
                );
                let plain = join(&member.name, crate::mangle::unqualified(&member.name));
                let made =
                    self.call_member(&plain, &member_ctors, field, Vec::new(), span, span)?;
                call = mk(
                    ExprKind::Comma {
                        lhs: Box::new(call),
                        rhs: Box::new(made),
                    },
                    CType::Void,
                    span,
                );
            }
        }
        Some(mk(
            ExprKind::Comma {
                lhs: Box::new(call),
                rhs: Box::new(mk(ExprKind::Local(tmp), ty.clone(), span)),
            },
            ty.clone(),
            span,
        ))
    }

    /// `S(a, b)` of a struct without constructors: a temporary whose
    /// members take the values in order.
    pub(super) fn members_in_order(
        &mut self,
        ty: &CType,
        def: &StructDef,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        self.members_in_order_over(ty, def, args, span, None)
    }

    /// Whether `ctors` is just the implicit default constructor of an
    /// aggregate with default member initializers.
    fn only_aggregate_ctor(&self, ctors: &[String]) -> bool {
        matches!(ctors, [one] if self.by_name.get(one).is_some_and(|&i| self.sigs[i].aggregate_ctor))
    }

    /// [`Checker::members_in_order`] over `start` when given: the
    /// temporary is `start` first, then the values overwrite its first
    /// members.
    fn members_in_order_over(
        &mut self,
        ty: &CType,
        def: &StructDef,
        args: &[ast::Expr],
        span: Span,
        start: Option<Expr>,
    ) -> Option<Expr> {
        // An unnamed bit-field is no member to take a value.
        let named: Vec<&crate::types::Field> = def
            .fields
            .iter()
            .filter(|f| f.bits.is_none() || !f.name.is_empty())
            .collect();
        let members = if def.is_union { 1 } else { named.len() };
        if args.len() > members {
            self.error(
                span,
                Code::E0007,
                format!(
                    "`{ty}` takes {members} values in order (it has no constructor); {} were given",
                    args.len()
                ),
            );
            return None;
        }
        let tmp = self.declare_local("", ty.clone(), false, false, span);
        self.mark_used(tmp);
        self.note_temporary(tmp, ty);
        let local = || mk(ExprKind::Local(tmp), ty.clone(), span);
        let mut value = local();
        for (f, a) in named.iter().zip(args).rev() {
            // A member's own braced list (`{limit}` of `Cell{x, {limit}}`).
            let listed = self.list_of_type(a, &f.ty);
            let a = listed.as_ref().unwrap_or(a);
            let v = match f.reference {
                // A reference member holds the address of the object
                // it binds.
                true => {
                    let v = self.expr_nodecay(a)?;
                    self.bind_reference(v, &f.ty, "a reference member")?
                }
                false => {
                    let v = self.expr(a)?;
                    self.assign_convert(v, &f.ty, "a member", a.span)?
                }
            };
            let store = match f.bits {
                Some(bits) => super::bit_fields::store(local(), f, bits, v, a.span),
                None => mk(
                    ExprKind::Assign {
                        target: Place::Field {
                            base: Box::new(local()),
                            offset: f.offset,
                        },
                        op: None,
                        value: Box::new(v),
                    },
                    f.ty.clone(),
                    a.span,
                ),
            };
            value = mk(
                ExprKind::Comma {
                    lhs: Box::new(store),
                    rhs: Box::new(value),
                },
                ty.clone(),
                span,
            );
        }
        if let Some(start) = start {
            let init = mk(
                ExprKind::Assign {
                    target: Place::Local(tmp),
                    op: None,
                    value: Box::new(start),
                },
                ty.clone(),
                span,
            );
            value = mk(
                ExprKind::Comma {
                    lhs: Box::new(init),
                    rhs: Box::new(value),
                },
                ty.clone(),
                span,
            );
        }
        Some(value)
    }

    /// `S s;` of a class with constructors: its default constructor.
    pub(super) fn default_construction(&mut self, ty: &CType, span: Span) -> Option<Option<Expr>> {
        let def = ty.struct_def()?.clone();
        let ctors = self.constructors(&def);
        if ctors.is_empty() {
            // The class's implicit default constructor, a member of it.
            let implicit = join(&def.name, crate::mangle::unqualified(&def.name));
            return self
                .with_rights_of(implicit, |c| c.default_construct_bases(ty, span))
                .map(Some);
        }
        Some(self.construct_with(ty, &def, &ctors, Vec::new(), span))
    }

    /// `S s{a, b}` of a class with constructors: `S(a, b)`.
    pub(super) fn list_construction(
        &mut self,
        ty: &CType,
        items: &[ast::Init],
        span: Span,
    ) -> Option<Expr> {
        let mut args = Vec::new();
        for i in items {
            match i {
                ast::Init::Expr(e) => args.push(e.clone()),
                ast::Init::List(_, sp) => {
                    self.error(
                        *sp,
                        Code::E0002,
                        "a nested braced list as a constructor's argument is not supported by kernelc",
                    );
                    return None;
                }
            }
        }
        self.construct(ty, &args, span)
    }

    /// `obj(args)` of an object of a class: its `operator()`.
    pub(super) fn functor_call(
        &mut self,
        name: &str,
        at: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let obj = self.expr_nodecay(&ast::Expr {
            kind: ast::ExprKind::Ident(name.to_string()),
            span: at,
        })?;
        let typed = self.call_args(args);
        self.call_operator(obj, at, typed, span)
    }

    /// `obj(args)` for `obj` of class type: its `operator()` (or member
    /// template of that name), E0007 when it has none.
    pub(super) fn call_operator(
        &mut self,
        obj: Expr,
        at: Span,
        typed: Vec<Option<Expr>>,
        span: Span,
    ) -> Option<Expr> {
        let (keys, obj) = match self.inherited_members(obj.ty.struct_def()?, "operator()") {
            Some((keys, path)) => (keys, Self::base_subobject(obj, &path)),
            None => (Vec::new(), obj),
        };
        let def = obj.ty.struct_def()?.clone();
        let plain = join(&def.name, "operator()");
        if keys.is_empty() && self.tmpl.templates.by_name.contains_key(&plain) {
            return self.member_template_call(&plain, &[], obj, typed, at, span);
        }
        if keys.is_empty() && def.closure.is_some() {
            // A generic lambda's call operator is made for the call.
            if let Some(call) = self.generic_lambda_call(&def, obj.clone(), typed.clone(), at, span)
            {
                return call;
            }
        }
        if keys.is_empty() {
            self.error(
                at,
                Code::E0007,
                format!(
                    "called object of type `{}` is not a function and has no `operator()`",
                    obj.ty
                ),
            );
            return None;
        }
        self.call_member(&join(&def.name, "operator()"), &keys, obj, typed, at, span)
    }

    /// The operator function `operator{op}` applied to `operands`, one of
    /// which is a class: `None` when no such function is viable (the
    /// operator's built-in meaning applies), else the call (`None` inside
    /// after an error).
    pub(super) fn operator_call(
        &mut self,
        op: &str,
        operands: &[Expr],
        span: Span,
    ) -> Option<Option<Expr>> {
        let name = format!("operator{op}");
        let keys = self.operator_candidates(&name, operands);
        let args: Vec<Option<Expr>> = operands.iter().cloned().map(Some).collect();
        if !keys.iter().any(|k| self.is_viable(k, &args)) {
            let key = self.operator_template(&name, operands, &args, span)?;
            return Some(self.call_resolved(&key, args, span, span));
        }
        let key = match self.pick(&name, &keys, &args, span) {
            Some(k) => k,
            None => return Some(None),
        };
        Some(self.call_resolved(&key, args, span, span))
    }

    /// The instance of an operator function template named `name` (a
    /// member of the left operand's class, or in the namespaces
    /// `operator_candidates` searches) that deduction makes for
    /// `args`, if one does; a template that does not fit is no error, as
    /// the operator's built-in meaning may apply.
    fn operator_template(
        &mut self,
        name: &str,
        operands: &[Expr],
        args: &[Option<Expr>],
        span: Span,
    ) -> Option<String> {
        let templates = self.tmpl.templates.clone();
        // A member operator template of the left operand's class
        // (`template <class U> S &operator=(const U &)`), then those of
        // the namespaces.
        let member = operands
            .first()
            .and_then(|o| o.ty.struct_def())
            .map(|def| def.name.clone());
        let scopes = self.operator_scopes(operands);
        for scope in member.into_iter().chain(scopes) {
            let plain = join(&scope, name);
            if !templates.by_name.contains_key(&plain) {
                continue;
            }
            let before = self.diags.len();
            match self.template_call(&plain, &[], args, span) {
                Some(key) => return Some(key),
                None => self.diags.truncate(before),
            }
        }
        None
    }

    /// The namespaces enclosing the current function and the operands'
    /// classes, where an operator function is looked for.
    fn operator_scopes(&self, operands: &[Expr]) -> Vec<String> {
        let mut scopes: Vec<String> = Vec::new();
        let mut scope = self.func.fn_name.as_str();
        loop {
            scope = scope_of(scope);
            scopes.push(scope.to_string());
            if scope.is_empty() {
                break;
            }
        }
        for o in operands {
            if let Some(def) = o.ty.struct_def() {
                scopes.push(scope_of(&def.name).to_string());
            }
        }
        // An inline or anonymous namespace's members are its parent's.
        let names = &self.tmpl.templates.env.names;
        let mut k = 0;
        while k < scopes.len() {
            let parent = scopes[k].clone();
            let inner = names.transparent().iter().filter(|t| scope_of(t) == parent);
            scopes.extend(inner.cloned());
            k += 1;
        }
        scopes.sort();
        scopes.dedup();
        scopes
    }

    /// Argument-dependent lookup ([basic.lookup.argdep]) of `name`, called
    /// unqualified with `args`, when ordinary lookup finds nothing: the
    /// function, overloads or template `ns::name` of the namespace `ns` of
    /// a class argument (or of the class a pointer argument points to).
    /// A friend defined in its class is a function of that namespace that
    /// only this lookup finds ([namespace.memdef]: the parser declares no
    /// name for it), so a call without such an argument does not see it.
    pub(super) fn adl_callee(&self, name: &str, args: &[Option<Expr>]) -> Option<String> {
        let known = |k: &str| {
            self.by_name.contains_key(k)
                || self.overloads.by_plain.contains_key(k)
                || self.tmpl.templates.is_template(k)
        };
        if name.contains("::") || known(name) || self.lookup(name).is_some() {
            return None;
        }
        self.associated_namespaces(args)
            .into_iter()
            .map(|ns| join(&ns, name))
            .find(|k| known(k))
    }

    /// The namespaces of the classes of `args` (of the class a pointer
    /// argument points to), other than the global one, each once; for a
    /// class template's instance, also those of its template and of the
    /// classes its type arguments name ([basic.lookup.argdep]: `f(b)`
    /// with `b` a `Box<ns::V>` finds `ns::f`).
    fn associated_namespaces(&self, args: &[Option<Expr>]) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for a in args.iter().flatten() {
            class_namespaces(&a.ty, &mut found, 0);
        }
        found
    }

    /// The functions an unqualified call of `name` with `args` chooses
    /// among when ordinary lookup finds functions `name` (no template of
    /// that name): those, and the ones of the same name in the class
    /// arguments' namespaces ([basic.lookup.argdep]: the two sets are
    /// joined). `None` when the arguments' namespaces add none.
    pub(super) fn with_adl_overloads(
        &self,
        name: &str,
        args: &[Option<Expr>],
    ) -> Option<Vec<String>> {
        let ordinary =
            self.by_name.contains_key(name) || self.overloads.by_plain.contains_key(name);
        if name.contains("::") || !ordinary || self.tmpl.templates.is_template(name) {
            return None;
        }
        let keys_of = |k: &str| match self.overloads.by_plain.get(k) {
            Some(keys) => keys.clone(),
            None if self.by_name.contains_key(k) => vec![k.to_string()],
            None => Vec::new(),
        };
        let added: Vec<String> = self
            .associated_namespaces(args)
            .iter()
            .flat_map(|ns| keys_of(&join(ns, name)))
            .collect();
        if added.is_empty() {
            return None;
        }
        let mut keys = keys_of(name);
        keys.extend(added);
        Some(keys)
    }

    /// The operator functions named `name` that apply to `operands`: the
    /// first operand's class's members, and the functions in the
    /// namespaces enclosing the current function and the operands' classes.
    fn operator_candidates(&self, name: &str, operands: &[Expr]) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        if let Some(def) = operands.first().and_then(|o| o.ty.struct_def()) {
            // A base's operator takes the derived object as its base.
            if let Some((found, _)) = self.inherited_members(def, name) {
                keys.extend(found);
            }
        }
        for s in &self.operator_scopes(operands) {
            if let Some(ks) = self.overloads.by_plain.get(&join(s, name)) {
                keys.extend(ks.iter().cloned());
            }
        }
        if keys.is_empty() {
            // Through a using-directive or an inline namespace
            // (`parser::names::Names::nominated`).
            for s in self.tmpl.templates.env.nominated() {
                if let Some(ks) = self.overloads.by_plain.get(&join(&s, name)) {
                    keys.extend(ks.iter().cloned());
                }
            }
        }
        keys.dedup();
        keys
    }
}
