//! Access control in the checker ([class.access], `crate::access` for
//! what the parser records).
//!
//! A member is checked where code names it, after lookup and overload
//! resolution chose it: `call_resolved` checks every function a call
//! reaches (member functions, constructors, operators, conversion
//! functions, static member functions), `member` each data member named
//! through `.` or `->`, and a member found in a base is reachable only
//! through bases the code may reach. (C++11 makes access part of
//! deduction's SFINAE; kernelc checks after the choice, so an
//! inaccessible candidate is an error rather than one dropped.)
//!
//! Who may name a restricted member of class `C`: the member functions
//! of `C` and of the classes nested in it (and the lambdas in their
//! bodies), `C`'s friends (functions, and classes' member functions), and
//! for a `protected` member the member functions of classes derived from
//! `C`. (C++ also asks that such a protected member be named through an
//! object of the derived class; kernelc does not.)

use std::sync::Arc;

use super::Checker;
use crate::access::Access;
use crate::bases::BasePath;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::parser::split_key;
use crate::types::StructDef;

/// A function's or class's key without template arguments at its end
/// (`Box<int>::get<4>` is `Box<int>::get`): friends and members are
/// declared by those names.
fn without_arguments(key: &str) -> &str {
    match key.strip_suffix('>') {
        Some(_) => {
            let last = split_key(key).pop().unwrap_or(key);
            let cut = last.find('<').map_or(0, |i| last.len() - i);
            &key[..key.len() - cut]
        }
        None => key,
    }
}

/// Whether class `derived` has `base` among its bases, directly or not.
fn derives_from(derived: &StructDef, base: &StructDef) -> bool {
    derived
        .base_fields()
        .iter()
        .filter_map(crate::bases::base_class)
        .any(|b| b.id == base.id || derives_from(b, base))
}

impl Checker {
    /// The class the program defines with key `key`.
    fn class_named(&self, key: &str) -> Option<Arc<StructDef>> {
        let env = &self.tmpl.templates.env;
        if let Some(def) = env.structs.get(key) {
            return Some(def.clone());
        }
        env.instances.lock().ok()?.structs.get(key).cloned()
    }

    /// `check` run with the rights of function `key` added: a default
    /// argument's (its function's), an implicit member function's.
    pub(super) fn with_rights_of<T>(
        &mut self,
        key: String,
        check: impl FnOnce(&mut Self) -> T,
    ) -> T {
        self.enclosing_fns.push(key);
        let out = check(self);
        self.enclosing_fns.pop();
        out
    }

    /// The functions whose rights the code being checked has: the current
    /// function and, in a lambda's body, the functions around it, each by
    /// its declared name (an overload's plain name).
    fn accessing_functions(&self) -> Vec<String> {
        self.enclosing_fns
            .iter()
            .chain(std::iter::once(&self.func.fn_name))
            .map(|k| {
                let plain = self.overloads.plain_of.get(k).unwrap_or(k);
                without_arguments(plain).to_string()
            })
            .collect()
    }

    /// Whether the code being checked may name a member of class `owner`
    /// whose access is `access`.
    fn may_name(&self, owner: &StructDef, access: Access) -> bool {
        if access == Access::Public || self.func.scopes.is_empty() {
            // Outside function bodies (a file-scope constant expression,
            // a static member's initializer) nothing is checked.
            return true;
        }
        let functions = self.accessing_functions();
        // The classes around each function: a member function's class and
        // the classes it is nested in (a prefix of a namespace's key is
        // no class, and matches none).
        let classes: Vec<String> = functions
            .iter()
            .flat_map(|f| {
                let parts = split_key(f);
                (1..parts.len()).map(move |n| parts[..n].join("::"))
            })
            .collect();
        // A friend class template befriends each of its instances.
        let named = |k: &String| {
            *k == owner.name
                || owner.access.befriends(k)
                || owner.access.befriends(without_arguments(k))
        };
        if functions.iter().any(named) || classes.iter().any(named) {
            return true;
        }
        access == Access::Protected
            && classes
                .iter()
                .filter_map(|c| self.class_named(c))
                .any(|c| derives_from(&c, owner))
    }

    /// E0008 unless the code being checked may name member `name` of
    /// class `owner` (a function's declaration is at `decl`, which tells
    /// its overloads apart). Whether it may.
    pub(super) fn check_access(
        &mut self,
        owner: &StructDef,
        name: &str,
        decl: Option<Span>,
        at: Span,
    ) -> bool {
        let Some(member) = owner.access.member(name, decl) else {
            return true;
        };
        if self.may_name(owner, member.access) {
            return true;
        }
        let d = Diagnostic::error(
            at,
            Code::E0008,
            format!("member `{}::{name}` is inaccessible", owner.name),
        )
        .with_label(
            member.span,
            format!("declared {} here", member.access.keyword()),
        );
        self.diags.push(d);
        false
    }

    /// E0008 unless the code being checked may call function `key`
    /// (declared at `decl`): a member function, constructor or static
    /// member of a class is checked against the class.
    pub(super) fn check_function_access(&mut self, key: &str, decl: Span, at: Span) -> bool {
        let plain = self.overloads.plain_of.get(key).map_or(key, String::as_str);
        let plain = without_arguments(plain).to_string();
        let Some((class, name)) = crate::mangle::split_member(&plain) else {
            return true;
        };
        match self.class_named(class) {
            Some(owner) => self.check_access(&owner, name, Some(decl), at),
            None => true,
        }
    }

    /// E0008 unless the code being checked may name `key` when it is a
    /// static data member of a class (`Box::count`).
    pub(super) fn check_static_access(&mut self, key: &str, at: Span) -> bool {
        let Some((class, name)) = crate::mangle::split_member(key) else {
            return true;
        };
        match self.class_named(class) {
            Some(owner) => self.check_access(&owner, name, None, at),
            None => true,
        }
    }

    /// E0008 unless the code being checked may reach the base subobject
    /// at the end of `path` from an object of class `naming`, to name its
    /// member `name`: each base on the way that is not public must be one
    /// the code may name as a member of the class deriving from it.
    pub(super) fn check_base_path(
        &mut self,
        naming: &StructDef,
        path: &BasePath,
        name: &str,
        at: Span,
    ) -> bool {
        let mut derived: &StructDef = naming;
        for (base, offset) in &path.steps {
            if derived.using_members.iter().any(|u| u == name) {
                // `using Base::name;` declares the member in `derived`,
                // with the access where it is written (taken as public).
                return true;
            }
            let index = derived.base_fields().iter().position(|f| {
                f.offset == *offset && f.ty.struct_def().is_some_and(|d| d.id == base.id)
            });
            let access = index
                .and_then(|i| derived.access.bases.get(i).copied())
                .unwrap_or(Access::Public);
            if !self.may_name(derived, access) {
                let d = Diagnostic::error(
                    at,
                    Code::E0008,
                    format!(
                        "member `{}::{name}` is inaccessible through `{}`",
                        base.name, naming.name
                    ),
                )
                .with_note(format!(
                    "`{}` is a {} base of `{}`",
                    base.name,
                    access.keyword(),
                    derived.name
                ));
                self.diags.push(d);
                return false;
            }
            derived = base;
        }
        true
    }
}
