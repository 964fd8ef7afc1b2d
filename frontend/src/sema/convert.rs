//! Conversions: choosing cast kinds and applying implicit conversions.
//!
//! Every conversion that C performs silently is materialised here as an
//! explicit `Cast` node, so lowering never has to rediscover C's rules.

use super::cxx::casts_away_quals;
use super::Checker;
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{CastKind, Expr, ExprKind};
use crate::types::CType;

/// The cast kind for converting `from` to `to`, if C allows it explicitly.
pub(crate) fn cast_kind(from: &CType, to: &CType) -> Option<CastKind> {
    use CType::*;
    if from.is_half() || to.is_half() {
        return match to {
            Void => Some(CastKind::ToVoid),
            _ => super::half::half_cast_kind(from, to),
        };
    }
    Some(match (from, to) {
        (_, Void) => CastKind::ToVoid,
        (Void, _) => return None,
        (f, Bool) if f.is_scalar() => CastKind::ToBool,
        (Bool, Int { .. }) => CastKind::BoolToInt,
        (Bool, Float { .. }) => CastKind::BoolToFloat,
        (Int { .. }, Int { .. }) => CastKind::IntToInt,
        (Int { .. }, Float { .. }) => CastKind::IntToFloat,
        (Float { .. }, Int { .. }) => CastKind::FloatToInt,
        (Float { .. }, Float { .. }) => CastKind::FloatToFloat,
        (Pointer { .. }, Pointer { .. }) => CastKind::PtrToPtr,
        (Int { .. }, Pointer { .. }) => CastKind::IntToPtr,
        (Pointer { .. }, Int { .. }) => CastKind::PtrToInt,
        _ => return None,
    })
}

/// Wraps `e` in a cast to `to` (no node if the type already matches).
/// Callers only use this for combinations `cast_kind` accepts.
pub(crate) fn convert(e: Expr, to: &CType) -> Expr {
    if e.ty == *to {
        return e;
    }
    // Fallback is unreachable for the combinations callers pass; choosing a
    // harmless kind keeps the "never panic" promise even if that changes.
    let kind = cast_kind(&e.ty, to).unwrap_or(CastKind::PtrToPtr);
    let span = e.span;
    Expr {
        kind: ExprKind::Cast {
            kind,
            expr: Box::new(e),
        },
        ty: to.clone(),
        span,
    }
}

/// Integer promotion of an arithmetic expression.
pub(crate) fn promote(e: Expr) -> Expr {
    let to = e.ty.promoted();
    convert(e, &to)
}

/// Converts an integer offset to 64 bits, keeping its signedness, for
/// pointer arithmetic and indexing.
pub(crate) fn offset64(e: Expr) -> Expr {
    let signed = matches!(e.ty.promoted(), CType::Int { signed: true, .. });
    convert(e, &CType::Int { bits: 64, signed })
}

/// A null pointer constant: a literal integer zero.
pub(crate) fn is_null_const(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::IntConst(0)) && matches!(e.ty, CType::Int { .. })
}

/// Strips a top-level `restrict` from a declared type, returning whether it was there.
pub(crate) fn strip_restrict(ty: &CType) -> (CType, bool) {
    match ty {
        CType::Pointer {
            pointee,
            pointee_const,
            pointee_volatile,
            restrict,
        } => (
            CType::Pointer {
                pointee: pointee.clone(),
                pointee_const: *pointee_const,
                pointee_volatile: *pointee_volatile,
                restrict: false,
            },
            *restrict,
        ),
        other => (other.clone(), false),
    }
}

/// Whether pointers with these pointee types may be converted implicitly
/// (same type ignoring qualifiers, or either side `void`).
impl Checker {
    /// The implicit conversions of function pointers (C++ [conv.ptr],
    /// [conv.bool]): to the same function type (a `const` pointer object
    /// aside), from `nullptr` and `0`, and to `bool`.
    fn fn_pointer_convert(&mut self, e: Expr, to: &CType, what: &str) -> Option<Expr> {
        let from = &e.ty;
        let ok = match to {
            CType::Bool => true,
            t if t.is_fn_pointer() => {
                from.fn_pointee() == t.fn_pointee()
                    || is_null_const(&e)
                    || super::fn_pointers::is_nullptr(&e)
            }
            _ => false,
        };
        if !ok {
            let msg = format!("cannot convert `{from}` to `{to}` in {what}");
            self.diags.push(Diagnostic::error(e.span, Code::E0004, msg));
            return None;
        }
        if super::fn_pointers::is_nullptr(&e) && to.is_fn_pointer() {
            // The zero address itself, not the bits of a null data pointer.
            let zero = Expr {
                kind: ExprKind::IntConst(0),
                ty: CType::LONG,
                span: e.span,
            };
            return Some(convert(zero, to));
        }
        Some(convert(e, to))
    }
}

pub(crate) fn pointees_compatible(a: &CType, b: &CType) -> bool {
    a.unqualified() == b.unqualified() || *a == CType::Void || *b == CType::Void
}

impl Checker {
    /// Converts to `bool` for a condition or logical operand. A class
    /// object converts through its conversion function, `explicit` ones
    /// included (C++'s contextual conversion, [conv.general]/4): `operator
    /// bool`, or one whose result converts to `bool` in turn.
    pub(crate) fn make_bool(&mut self, e: Expr) -> Option<Expr> {
        if e.ty == CType::Bool {
            return Some(e);
        }
        let at = e.span;
        let e = match e.ty.is_struct() {
            true => match self.convert_by_function(e, &CType::Bool, at) {
                Ok(converted) => return self.make_bool(converted?),
                Err(e) => e,
            },
            false => e,
        };
        if !e.ty.is_scalar() {
            self.diags.push(Diagnostic::error(
                e.span,
                Code::E0004,
                format!(
                    "expected a scalar value (number or pointer) here, found `{}`",
                    e.ty
                ),
            ));
            return None;
        }
        Some(convert(e, &CType::Bool))
    }

    /// Conversion "as if by assignment" (assignment, initialisation,
    /// argument passing, return). `what` names the context for messages.
    pub(crate) fn assign_convert(
        &mut self,
        e: Expr,
        to: &CType,
        what: &str,
        at: Span,
    ) -> Option<Expr> {
        let e = self.pick_overload_address(e, to);
        let from = e.ty.clone();
        if self.refuse_incomplete(&from, what, e.span) {
            return None;
        }
        if from == *to {
            return Some(e);
        }
        if to.is_fn_pointer() || from.is_fn_pointer() {
            return self.fn_pointer_convert(e, to, what);
        }
        if crate::types::is_dim3_uint3_pair(&from, to) {
            // The same twelve bytes under CUDA's other name for them.
            let mut e = e;
            e.ty = to.clone();
            return Some(e);
        }
        let e = match self.convert_by_function(e, to, at) {
            Ok(converted) => return self.assign_convert(converted?, to, what, at),
            Err(e) => e,
        };
        let e = match Self::to_base_object(e, to) {
            // A derived object copied into its base: the base part.
            Ok(base) => return Some(base),
            Err(e) => e,
        };
        if let Some(offset) = Self::class_pointer_offset(&from, to, false) {
            if !casts_away_quals(&from, to) {
                return Some(self.adjust_class_pointer(e, to, offset));
            }
        }
        let ok = match (&from, to) {
            (f, t) if f.is_arithmetic() && t.is_arithmetic() => true,
            // CUDA's half classes: constructors from every arithmetic
            // type, conversion operators to them (`sema/half.rs`).
            (f, t) if f.is_half() || t.is_half() => cast_kind(f, t).is_some(),
            (CType::Pointer { .. }, CType::Bool) => true,
            (CType::Int { .. }, CType::Pointer { .. }) if is_null_const(&e) => true,
            (
                CType::Pointer {
                    pointee: fp,
                    pointee_const: fc,
                    pointee_volatile: fv,
                    ..
                },
                CType::Pointer {
                    pointee: tp,
                    pointee_const: tc,
                    pointee_volatile: tv,
                    ..
                },
            ) => {
                if !pointees_compatible(fp, tp)
                    && Self::class_pointer_offset(&from, to, false).is_none()
                {
                    false
                } else if (*fc && !*tc) || (*fv && !*tv) {
                    let q = if *fc && !*tc { "const" } else { "volatile" };
                    self.diags.push(
                        Diagnostic::error(
                            e.span,
                            Code::E0005,
                            format!("{what} converts `{from}` to `{to}`, which discards the `{q}` qualifier"),
                        )
                        .with_label(at, "conversion required here"),
                    );
                    return None;
                } else {
                    true
                }
            }
            _ => false,
        };
        if !ok {
            let msg = if from == CType::Void {
                format!("cannot use a `void` value in {what}")
            } else {
                format!("cannot convert `{from}` to `{to}` in {what}")
            };
            self.diags.push(Diagnostic::error(e.span, Code::E0004, msg));
            return None;
        }
        if what != "compound assignment" {
            self.narrowing_warning(&e, to);
        }
        Some(convert(e, to))
    }
}
