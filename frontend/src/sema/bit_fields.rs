//! Bit-fields: a bit-field member is read as its storage unit (an
//! ordinary member of the declared type at the unit's offset), then
//! shifted and masked, so lowering and everything after it see only
//! integer arithmetic. A write (`s.f = v`, `s.f op= v`, `++s.f`) stores
//! the whole unit: its old bits outside the field kept, the new value
//! shifted into the field; the expression's value is the field read back
//! from the unit stored (C++'s lvalue, read), or the old unit's for `s.f++`.

use super::convert::convert;
use super::expr::mk;
use super::Checker;
use crate::ast::{self, BinaryOp};
use crate::codes::Code;
use crate::diag::Span;
use crate::typed::{BinOp, Expr, ExprKind, Place};
use crate::types::{BitField, CType, Field, StructDef};
use std::collections::BTreeMap;

/// The value of the bit-field `bits` of the storage unit `unit` (a read
/// of the member's declared type): C++'s promoted value, an `int` when
/// every value fits one (a `bool` stays `bool`).
pub(super) fn read(unit: Expr, bits: BitField, span: Span) -> Expr {
    let declared = unit.ty.clone();
    read_as(unit, &declared, bits, span)
}

/// [`read`] of a unit of any integer type of the declared one's width
/// (a store's value is its raw unsigned unit): `declared` says whether
/// the field is signed and what type the value has.
fn read_as(mut unit: Expr, declared: &CType, bits: BitField, span: Span) -> Expr {
    if *declared == CType::Bool {
        // The unit's byte as it is: a `bool` read would make it 0 or 1.
        unit.ty = raw_unit(declared);
    } else {
        unit = convert(unit, declared);
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

/// The unsigned integer a field of type `declared` is stored in: what a
/// store writes, whole (a `bool` unit is its byte).
fn raw_unit(declared: &CType) -> CType {
    match declared {
        CType::Int { bits, .. } => CType::Int {
            bits: *bits,
            signed: false,
        },
        _ => CType::Int {
            bits: 8,
            signed: false,
        },
    }
}

/// The unit `old` (of `raw_unit` type) with the field's bits replaced by
/// `value` (already of the declared type): `old & ~m | value << shift & m`,
/// computed in at least 32 bits and narrowed back.
fn insert(old: Expr, value: Expr, bits: BitField, span: Span) -> Expr {
    let raw = old.ty.clone();
    let work = raw.promoted();
    let work = match work {
        CType::Int { bits, .. } => CType::Int {
            bits,
            signed: false,
        },
        other => other,
    };
    let total = match work {
        CType::Int { bits, .. } => u32::from(bits),
        _ => 32,
    };
    let mask = low_ones(bits.width) << bits.shift;
    let kept = binary(
        BinOp::BitAnd,
        convert(old, &work),
        constant(low_ones(total) & !mask, &work, span),
        &work,
        span,
    );
    let value = convert(convert(value, &raw), &work);
    let shifted = shift(BinOp::Shl, value, bits.shift, &work, span);
    let placed = binary(
        BinOp::BitAnd,
        shifted,
        constant(mask, &work, span),
        &work,
        span,
    );
    let unit = binary(BinOp::BitOr, kept, placed, &work, span);
    convert(unit, &raw)
}

/// `unit | e << by`, `e` zero-extended (its bytes as they are) and the
/// result of `unit`'s type.
fn merge(unit: Expr, e: Expr, by: u32, span: Span) -> Expr {
    let raw = unit.ty.clone();
    let work = match raw.promoted() {
        CType::Int { bits, .. } => CType::Int {
            bits,
            signed: false,
        },
        other => other,
    };
    let bytes = raw_unit(&e.ty);
    let e = convert(convert(convert(e, &bytes), &raw), &work);
    let shifted = shift(BinOp::Shl, e, by, &work, span);
    let both = binary(BinOp::BitOr, convert(unit, &work), shifted, &work, span);
    convert(both, &raw)
}

/// `n` one bits (`n` at most 128; the 128-bit constant is `-1`).
fn low_ones(n: u32) -> i128 {
    1i128.checked_shl(n).map_or(-1, |b| b - 1)
}

impl Checker {
    /// The storage unit and bits of `e` when `e` is the read of a
    /// bit-field that was just typed (see `bit_field_reads`).
    pub(super) fn bit_field_of(&self, e: &Expr) -> Option<(Expr, BitField)> {
        self.bit_field_reads.get(&e.span).cloned()
    }

    /// `s.f = r` and `s.f op= r`: the field's new value is `r`, or its old
    /// value `op` `r`, converted as by assignment to the declared type; the
    /// unit is read once and stored whole.
    pub(super) fn bit_field_assign(
        &mut self,
        op: Option<BinaryOp>,
        (unit, bits): (Expr, BitField),
        r: Expr,
        op_span: Span,
        span: Span,
    ) -> Option<Expr> {
        let declared = unit.ty.clone();
        let value = match op {
            None => r,
            Some(op) => {
                let old = read(
                    mk(ExprKind::TargetValue, declared.clone(), span),
                    bits,
                    span,
                );
                self.binary(op, old, r, span)?
            }
        };
        let value = self.assign_convert(value, &declared, "assignment", op_span)?;
        let (target, raw) = self.bit_field_target(unit, op_span)?;
        let old_unit = mk(ExprKind::TargetValue, raw.clone(), span);
        let stored = mk(
            ExprKind::Assign {
                target,
                op: Some(BinOp::BitOr),
                value: Box::new(insert(old_unit, value, bits, span)),
            },
            raw,
            span,
        );
        Some(read_as(stored, &declared, bits, span))
    }

    /// `++s.f`, `s.f--`: the field plus or minus one, stored as by
    /// [`Checker::bit_field_assign`]; a postfix one yields the old field.
    pub(super) fn bit_field_inc_dec(
        &mut self,
        inc: bool,
        pre: bool,
        (unit, bits): (Expr, BitField),
        span: Span,
    ) -> Option<Expr> {
        let declared = unit.ty.clone();
        let old = read(
            mk(ExprKind::TargetValue, declared.clone(), span),
            bits,
            span,
        );
        let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
        let one = constant(1, &CType::INT, span);
        let value = self.binary(op, old, one, span)?;
        let value = convert(value, &declared);
        let (target, raw) = self.bit_field_target(unit, span)?;
        let old_unit = mk(ExprKind::TargetValue, raw.clone(), span);
        let stored = mk(
            ExprKind::IncDec {
                target,
                pre,
                inc,
                new_value: Box::new(insert(old_unit, value, bits, span)),
            },
            raw,
            span,
        );
        Some(read_as(stored, &declared, bits, span))
    }

    /// The place of a bit-field's unit, checked writable (not `const`, not
    /// `__constant__`), and the unsigned type it is stored as.
    fn bit_field_target(
        &mut self,
        mut unit: Expr,
        op_span: Span,
    ) -> Option<(crate::typed::Place, CType)> {
        let raw = raw_unit(&unit.ty);
        unit.ty = raw.clone();
        Some((self.writable_place(unit, op_span)?, raw))
    }
}

impl Checker {
    /// The bit-field `f` of a braced list's struct at `off`, from
    /// `items[*pos]`: its value is inserted into the unit's entry of `out`
    /// (the fields before it in the unit stay, unset bits are zero). A
    /// unit that overlaps another of a different start (fields of
    /// different types sharing bytes) is E0002.
    pub(super) fn bit_field_element(
        &mut self,
        f: &Field,
        bits: BitField,
        items: &[ast::Init],
        pos: &mut usize,
        off: u64,
        out: &mut BTreeMap<u64, Expr>,
    ) -> Option<()> {
        let span = items[*pos].span();
        let mut one = BTreeMap::new();
        self.element(&f.ty, items, pos, 0, &mut one)?;
        let value = one.remove(&0)?;
        let at = off + f.offset;
        let end = at + raw_unit(&f.ty).size().unwrap_or(1);
        let overlapping: Vec<u64> = out
            .range(..end)
            .filter(|(k, e)| **k + e.ty.size().unwrap_or(1) > at)
            .map(|(k, _)| *k)
            .collect();
        // One unit over the field's and every entry it overlaps, if that
        // is an aligned integer of at most 8 bytes of integer entries.
        let lo = overlapping.iter().copied().fold(at, u64::min);
        let hi = overlapping
            .iter()
            .map(|k| k + out[k].ty.size().unwrap_or(1))
            .fold(end, u64::max);
        let size = (hi - lo).next_power_of_two();
        let integers = overlapping
            .iter()
            .all(|k| matches!(out[k].ty, CType::Int { .. } | CType::Bool));
        if size > 8 || lo % size != 0 || !integers {
            self.error(
                span,
                Code::E0002,
                format!(
                    "kernelc cannot initialize bit-field `{}` from a braced list: its unit shares bytes with a member it cannot merge with",
                    f.name
                ),
            );
            return None;
        }
        let raw = CType::Int {
            bits: (size * 8) as u8,
            signed: false,
        };
        let mut unit = constant(0, &raw, span);
        for k in overlapping {
            let e = out.remove(&k)?;
            unit = merge(unit, e, ((k - lo) * 8) as u32, span);
        }
        let bits = BitField {
            shift: bits.shift + ((at - lo) * 8) as u32,
            ..bits
        };
        out.insert(lo, insert(unit, value, bits, span));
        Some(())
    }
}

/// `decl.rs`'s `zero_fill` of a struct with bit-fields at `off`: the
/// units no value reached are zeroed first, so the members that share
/// their bytes are written over them; then each member's value (or zero)
/// in order, except a member inside a unit a braced list merged it into
/// (`Checker::bit_field_element`), which that unit's value holds.
pub(super) fn zero_fill_units(
    def: &StructDef,
    off: u64,
    given: &mut BTreeMap<u64, Expr>,
    out: &mut Vec<(u64, Expr)>,
    span: Span,
) {
    let size = |e: &Expr| e.ty.size().unwrap_or(1);
    let end = off + def.size.max(1);
    let values: Vec<(u64, u64)> = given
        .range(off..end)
        .map(|(k, e)| (*k, k + size(e)))
        .collect();
    let reached = |at: u64, len: u64| values.iter().any(|&(a, b)| a < at + len && at < b);
    let members = if def.is_union { 1 } else { def.fields.len() };
    let fields = &def.fields[..members];
    for f in fields.iter().filter(|f| f.bits.is_some()) {
        let raw = raw_unit(&f.ty);
        let at = off + f.offset;
        if !reached(at, raw.size().unwrap_or(1)) {
            out.push((at, constant(0, &raw, span)));
        }
    }
    let inside = |at: u64| values.iter().any(|&(a, b)| a < at && at < b);
    for f in fields {
        let at = off + f.offset;
        match f.bits {
            Some(_) => out.extend(given.remove(&at).map(|e| (at, e))),
            None if inside(at) => {}
            None => super::decl::zero_fill(&f.ty, at, given, out, span),
        }
    }
}

/// A store of `value` (of the field's declared type) into the bit-field
/// `f` of the object `base`, the unit's other bits kept.
pub(super) fn store(base: Expr, f: &Field, bits: BitField, value: Expr, span: Span) -> Expr {
    let raw = raw_unit(&f.ty);
    let old = mk(ExprKind::TargetValue, raw.clone(), span);
    let target = Place::Field {
        base: Box::new(base),
        offset: f.offset,
    };
    mk(
        ExprKind::Assign {
            target,
            op: Some(BinOp::BitOr),
            value: Box::new(insert(old, value, bits, span)),
        },
        raw,
        span,
    )
}
