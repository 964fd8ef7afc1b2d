//! Reference types where a type, not a declarator, names the reference
//! (`CType::Ref`): the target of a typedef or an alias
//! (`typedef T &reference;`, `using reference = T &;`) and a type
//! template argument (`holder<float &>`, `std::is_reference<T &>`).
//!
//! A declaration whose type is such a reference is read as if its `&`
//! were written on the declarator ([`Parser::declared_reference`]): a
//! parameter, a local, a member or a return type then carries the flags
//! that every later stage already knows (`ParamDecl::by_ref`,
//! `VarDecl::by_ref`, `Returns::LRef`, `Field::reference`) and the
//! referent as its type. So no stage after the parser sees a
//! `CType::Ref` in a declaration, and references keep one representation
//! there. *Why not a type everywhere:* a reference is not an object (no
//! value, no element, no pointee has its type), and the checker and the
//! lowering model each reference as the pointer that holds its address;
//! the type is needed only where C++ names a reference without declaring
//! one.

use super::{PResult, Parser};
use crate::ast::QualType;
use crate::codes::Code;
use crate::diag::Span;
use crate::token::Punct;
use crate::types::CType;

/// How a declarator is a reference: where (the written `&`, else the
/// type that names the reference) and whether it is an rvalue reference.
#[derive(Clone, Copy, Debug)]
pub(super) struct DeclaredRef {
    pub(super) at: Span,
    pub(super) rvalue: bool,
}

impl Parser<'_> {
    /// `ty` and the `&`s or `&&`s after it, where a type names a
    /// reference: the reference type, collapsed as C++ collapses a
    /// reference to a reference (`T & &&` is `T &`; only `&&` of `&&`
    /// stays an rvalue reference).
    pub(super) fn reference_type(&mut self, mut ty: QualType) -> QualType {
        loop {
            let rvalue = if self.is_punct(Punct::AndAnd) {
                true
            } else if self.is_punct(Punct::Amp) {
                false
            } else {
                return ty;
            };
            let amp = self.bump().span;
            ty = refer_to(ty, rvalue, amp);
        }
    }

    /// A type name that may be a reference type (`float &`, `const T &`,
    /// `T &&`): an alias's target or a type template argument. A pointer
    /// to or an array of a reference is E0003.
    pub(super) fn reference_type_name(&mut self) -> PResult<QualType> {
        let ty = self.type_name()?;
        let ty = self.reference_type(ty);
        if has_inner_reference(&ty.ty) || self.is_punct(Punct::LBracket) && is_reference(&ty.ty) {
            return self.error(
                ty.span,
                Code::E0003,
                format!(
                    "a pointer to or an array of `{}`, a reference, which C++ does not allow",
                    ty.ty
                ),
            );
        }
        Ok(ty)
    }

    /// The declared type `ty` (after its `*`s) of a declarator that may be
    /// a reference through its type (`reference r = v[0];` with
    /// `typedef T &reference;`) as well as by a written `&` or `&&`
    /// (`written`, already read): the referent and how the declarator is
    /// a reference, collapsed (`reference &r` is `T &r`). A reference the
    /// type hides below a pointer or an array (`reference *p`) is E0003, as
    /// in C++.
    pub(super) fn declared_reference(
        &mut self,
        ty: QualType,
        written: Option<DeclaredRef>,
    ) -> PResult<(QualType, Option<DeclaredRef>)> {
        if has_inner_reference(&ty.ty) {
            return self.error(
                ty.span,
                Code::E0003,
                format!(
                    "a pointer to or an array of a reference (`{}`), which C++ does not allow",
                    ty.ty
                ),
            );
        }
        let (referent, by_type) = referent_of(ty);
        let by_ref = match (by_type, written) {
            (None, w) => w,
            (Some(t), None) => Some(t),
            (Some(t), Some(w)) => Some(DeclaredRef {
                at: w.at,
                rvalue: t.rvalue && w.rvalue,
            }),
        };
        Ok((referent, by_ref))
    }
}

/// `ty &` (`rvalue`: `ty &&`) written at `amp`; a reference to a
/// reference collapses.
pub(super) fn refer_to(ty: QualType, rvalue: bool, amp: Span) -> QualType {
    let span = ty.span.to(amp);
    if let CType::Ref {
        referent,
        referent_const,
        referent_volatile,
        rvalue: inner,
    } = ty.ty
    {
        return QualType {
            ty: CType::Ref {
                referent,
                referent_const,
                referent_volatile,
                rvalue: inner && rvalue,
            },
            span,
            ..ty
        };
    }
    QualType {
        ty: CType::Ref {
            referent: Box::new(ty.ty),
            referent_const: ty.is_const,
            referent_volatile: ty.is_volatile,
            rvalue,
        },
        is_const: false,
        is_volatile: false,
        spelling: ty.spelling,
        span,
    }
}

/// The type a reference type `ty` refers to, with how it is one; any
/// other type as it is. `const` on a reference itself is dropped, as C++
/// drops it (`const T` with `T` = `float &` is `float &`).
pub(super) fn referent_of(ty: QualType) -> (QualType, Option<DeclaredRef>) {
    match ty.ty {
        CType::Ref {
            referent,
            referent_const,
            referent_volatile,
            rvalue,
        } => {
            let by = DeclaredRef {
                at: ty.span,
                rvalue,
            };
            let referent = QualType {
                ty: *referent,
                is_const: referent_const,
                is_volatile: referent_volatile,
                spelling: ty.spelling,
                span: ty.span,
            };
            (referent, Some(by))
        }
        _ => (ty, None),
    }
}

/// Whether a reference type stands below the top of `ty`: the pointee of
/// a pointer or the element of an array (`reference *`, `reference[4]`).
pub(crate) fn has_inner_reference(ty: &CType) -> bool {
    match ty {
        CType::Pointer { pointee: inner, .. }
        | CType::Array { elem: inner, .. }
        | CType::Ref {
            referent: inner, ..
        } => is_or_has_reference(inner),
        _ => false,
    }
}

fn is_or_has_reference(ty: &CType) -> bool {
    is_reference(ty) || has_inner_reference(ty)
}

fn is_reference(ty: &CType) -> bool {
    matches!(ty, CType::Ref { .. })
}
