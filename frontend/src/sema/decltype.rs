//! A local declared `decltype(operand)` of an operand the parser could
//! not type (`parser/decltype.rs`): the operand is typed as any
//! expression is (it is not evaluated: nothing of it is kept), and the
//! declaration is checked as if the type C++ gives had been written.

use super::{Binding, Checker};
use crate::ast;
use crate::codes::Code;
use crate::types::CType;

/// The type `decltype` gives, in the form a declaration spells it.
struct Declared {
    ty: CType,
    is_const: bool,
    /// A reference to `ty`: `Some(true)` an rvalue reference.
    reference: Option<bool>,
}

impl Checker {
    /// `v` (declared `decltype(of.operand)`) with that type written in:
    /// a reference type becomes the declarator's reference, collapsed
    /// with one written on it (`decltype((x)) &r` is `T &r`).
    pub(super) fn decltype_written(
        &mut self,
        v: &ast::VarDecl,
        of: &ast::DecltypeOf,
    ) -> Option<ast::VarDecl> {
        let declared = self.decltype_of(of)?;
        let pointer = v.ty.ty.is_pointer();
        if declared.reference.is_some() && pointer {
            let msg = "a pointer to a reference, which C++ does not allow";
            self.error(v.ty.span, Code::E0003, msg);
            return None;
        }
        let mut written = v.clone();
        written.auto = None;
        written.decltype = None;
        written.ty.ty = with_base(&v.ty.ty, declared.ty);
        match (declared.reference, v.by_ref) {
            (None, _) if pointer => {}
            (None, _) => written.ty.is_const |= declared.is_const,
            (Some(rvalue), by_ref) => {
                written.ty.is_const = declared.is_const;
                written.rvalue = rvalue && (by_ref.is_none() || v.rvalue);
                written.by_ref = by_ref.or(Some(of.operand.span));
            }
        }
        Some(written)
    }

    /// A type template argument `decltype(e)` of a function template:
    /// C++'s type without its reference (see below).
    pub(super) fn decltype_arg(&mut self, e: &ast::Expr) -> Option<crate::templates::ArgValue> {
        let of = ast::DecltypeOf {
            operand: e.clone(),
            names_entity: matches!(
                e.kind,
                ast::ExprKind::Ident(_) | ast::ExprKind::Member { .. }
            ),
        };
        let declared = self.decltype_of(&of)?;
        // Not yet C++'s reference for an lvalue operand: a launch's
        // `decltype(f)` reaches here with `f`, a host variable, replaced
        // by its stand-in (`crate::host_args`), an lvalue whose `decltype`
        // would be a reference where the variable's is not (an extended
        // lambda's closure type became a reference parameter).
        Some(crate::templates::ArgValue::Type {
            ty: declared.ty,
            is_const: declared.is_const,
            is_volatile: false,
            spelling: ast::Spelling::Plain,
        })
    }

    /// C++'s `decltype(operand)`: a name's or member's declared type
    /// (`names_entity`), else the operand's type, a reference for an
    /// lvalue (`T &`) or an xvalue (`T &&`).
    fn decltype_of(&mut self, of: &ast::DecltypeOf) -> Option<Declared> {
        let typed = self.expr_nodecay(&of.operand)?;
        let ty = super::strip_restrict(&typed.ty).0;
        if of.names_entity {
            let reference = match &of.operand.kind {
                ast::ExprKind::Ident(name) => match self.lookup(name) {
                    Some(Binding::Ref(id)) => Some(self.func.rvalue_refs.contains(&id)),
                    _ => None,
                },
                _ => None,
            };
            let is_const = Self::is_lvalue(&typed) && self.lvalue_is_const(&typed);
            return Some(Declared {
                ty,
                is_const,
                reference,
            });
        }
        if !Self::is_lvalue(&typed) {
            return Some(Declared {
                ty,
                is_const: false,
                reference: None,
            });
        }
        Some(Declared {
            is_const: self.lvalue_is_const(&typed),
            reference: Some(self.xvalues.contains(&of.operand.span)),
            ty,
        })
    }
}

/// The declarator's type `placeholder` (the parser's `void`, under the
/// pointers written: `decltype(a + b) *p`) with `base` in place of the
/// `void`.
fn with_base(placeholder: &CType, base: CType) -> CType {
    match placeholder {
        CType::Pointer {
            pointee,
            pointee_const,
            pointee_volatile,
            restrict,
        } => CType::Pointer {
            pointee: Box::new(with_base(pointee, base)),
            pointee_const: *pointee_const,
            pointee_volatile: *pointee_volatile,
            restrict: *restrict,
        },
        _ => base,
    }
}
