//! Reading bit-fields: a bit-field member is read as its storage unit
//! (an ordinary member of the declared type at the unit's offset), then
//! shifted and masked, so lowering and everything after it see only
//! integer arithmetic. Writing one (`s.f = v`) is not supported yet: the
//! read is no lvalue, so an assignment is an error at it.

use super::convert::convert;
use crate::diag::Span;
use crate::typed::{BinOp, Expr, ExprKind};
use crate::types::{BitField, CType};

/// The value of the bit-field `bits` of the storage unit `unit` (a read
/// of the member's declared type): C++'s promoted value, an `int` when
/// every value fits one (a `bool` stays `bool`).
pub(super) fn read(mut unit: Expr, bits: BitField, span: Span) -> Expr {
    let declared = unit.ty.clone();
    if declared == CType::Bool {
        // The unit's byte as it is: a `bool` read would make it 0 or 1.
        unit.ty = CType::Int {
            bits: 8,
            signed: false,
        };
    }
    // The field's own signedness; the arithmetic is in the promoted type.
    let signed = matches!(declared, CType::Int { signed: true, .. });
    let promoted = unit.ty.promoted();
    let total = match promoted {
        CType::Int { bits, .. } => u32::from(bits),
        _ => 32,
    };
    let wide = convert(unit, &promoted);
    let value = if signed {
        // Move the field to the top, then shift it back down arithmetically.
        let up = total - bits.shift - bits.width;
        let top = shift(BinOp::Shl, wide, up, &promoted, span);
        shift(BinOp::Shr, top, total - bits.width, &promoted, span)
    } else {
        let down = shift(BinOp::Shr, wide, bits.shift, &promoted, span);
        if bits.width == total {
            down
        } else {
            let mask = (1i128 << bits.width) - 1;
            binary(
                BinOp::BitAnd,
                down,
                constant(mask, &promoted, span),
                &promoted,
                span,
            )
        }
    };
    let result = match declared {
        CType::Bool => CType::Bool,
        // All the values of a narrower field fit an `int` ([conv.prom]).
        _ if bits.width < 32 => CType::INT,
        _ => promoted,
    };
    let mut value = convert(value, &result);
    value.span = span;
    value
}

fn constant(v: i128, ty: &CType, span: Span) -> Expr {
    Expr {
        kind: ExprKind::IntConst(v),
        ty: ty.clone(),
        span,
    }
}

fn binary(op: BinOp, lhs: Expr, rhs: Expr, ty: &CType, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        ty: ty.clone(),
        span,
    }
}

/// `e op by` (no node for a shift by 0).
fn shift(op: BinOp, e: Expr, by: u32, ty: &CType, span: Span) -> Expr {
    if by == 0 {
        return e;
    }
    binary(op, e, constant(i128::from(by), ty, span), ty, span)
}
