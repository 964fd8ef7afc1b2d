//! Warnings: unused variables (W0001), implicit narrowing conversions
//! (W0002) and comparisons of signed with unsigned integers (W0003).
//!
//! They flag code that is valid but often wrong. They are deliberately
//! conservative, so that correct kernels compile silently: integer narrowing
//! is reported only for constants that change value (`char c = 300;`), not
//! for every `int x = some_long;`, and a `double` constant such as `0.1`
//! initializing a `float` is not reported (only a `double` *variable* is).

use super::Checker;
use crate::codes::Code;
use crate::diag::Diagnostic;
use crate::typed::Expr;
use crate::types::CType;

impl Checker {
    /// Records a use of local `id` (a read or a write).
    pub(super) fn mark_used(&mut self, id: crate::typed::LocalId) {
        if let Some(u) = self.func.used.get_mut(id.0 as usize) {
            *u = true;
        }
    }

    /// W0001 for every variable of the function just checked that was
    /// never used (parameters and names starting with `_` are exempt).
    pub(super) fn unused_warnings(&mut self) {
        for (k, l) in self.func.locals.iter().enumerate() {
            let used = self.func.used.get(k).copied().unwrap_or(true);
            if used || l.is_param || l.name.is_empty() || l.name.starts_with('_') {
                continue;
            }
            self.diags.push(Diagnostic::warning(
                l.span,
                Code::W0001,
                format!("unused variable `{}`", l.name),
            ));
        }
    }

    /// W0002 when converting `e` to `to` implicitly loses information.
    pub(super) fn narrowing_warning(&mut self, e: &Expr, to: &CType) {
        let from = &e.ty;
        let msg = match (from, to) {
            (CType::Float { .. }, CType::Int { .. }) => match self.const_float(e) {
                Some(v) if v.fract() == 0.0 && fits(v as i128, to) && v.abs() < 1e30 => return,
                Some(v) => {
                    let got = if v.is_finite() { format!("{}", v.trunc()) } else { "an undefined value".into() };
                    format!("implicit conversion from `{from}` to `{to}` changes value from {v} to {got}")
                }
                None => format!("implicit conversion from `{from}` to `{to}` drops the fractional part"),
            },
            (CType::Float { bits: 64 }, CType::Float { bits: 32 }) => match self.const_float(e) {
                Some(v) if !v.is_finite() || v.abs() <= f64::from(f32::MAX) => return,
                Some(v) => format!("implicit conversion from `{from}` to `{to}` changes value from {v} to infinity"),
                None => format!("implicit conversion from `{from}` to `{to}` may lose precision"),
            },
            (CType::Int { bits: fb, .. }, CType::Int { bits: tb, .. }) if tb < fb || from != to => {
                let Some(v) = self.const_int(e) else {
                    return;
                };
                if *tb >= *fb || fits(v, to) {
                    return;
                }
                let got = super::consteval::wrap(v, to);
                format!("implicit conversion from `{from}` to `{to}` changes value from {v} to {got}")
            }
            _ => return,
        };
        self.diags.push(
            Diagnostic::warning(e.span, Code::W0002, msg).with_note(format!(
                "write `({to})` before the value if the conversion is intended"
            )),
        );
    }

    /// W0003 for a comparison whose operands (of types `lt` and `rt`, not
    /// yet converted) are integers of different signedness, and the signed
    /// one is converted to unsigned. A non-negative constant is harmless.
    pub(super) fn sign_compare_warning(&mut self, l: &Expr, r: &Expr, span: crate::diag::Span) {
        let (lt, rt) = (l.ty.promoted(), r.ty.promoted());
        let (CType::Int { signed: ls, .. }, CType::Int { signed: rs, .. }) = (&lt, &rt) else {
            return;
        };
        if ls == rs {
            return;
        }
        let common = crate::types::usual_arithmetic(&lt, &rt);
        if matches!(common, CType::Int { signed: true, .. }) {
            return;
        }
        let signed = if *ls { l } else { r };
        if self.const_int(signed).is_some_and(|v| v >= 0) {
            return;
        }
        let signed_ty = if *ls { &lt } else { &rt };
        self.diags.push(
            Diagnostic::warning(
                span,
                Code::W0003,
                format!("comparison of integers of different signs: `{lt}` and `{rt}`"),
            )
            .with_note(format!(
                "the `{signed_ty}` operand is converted to `{common}`, so a negative value compares as a large number"
            )),
        );
    }
}

/// Whether `v` is a value of integer type `ty` (any value fits another
/// type here).
fn fits(v: i128, ty: &CType) -> bool {
    !matches!(ty, CType::Int { .. }) || super::consteval::wrap(v, ty) == v
}
