//! Constant folding: integer arithmetic, comparisons and width changes on
//! constants become constants; identities (`x + 0`, `x * 1`, `p + 0`) keep
//! their operand; a `select` on a constant picks its arm, and a `brif` on a
//! constant becomes a `jump`.
//! A pointer cast to the generic window and straight back to its own space
//! is the pointer itself.
//!
//! Operations whose result C leaves undefined (division by zero, `INT_MIN /
//! -1`, shifting by the width or more) are left alone rather than folded to
//! an arbitrary value.

use super::Changed;
use crate::ir::{AddrSpace, Function, Inst, InstData, IntCC, Opcode, Type, Value, ValueDef};

/// The constant an `iconst` defines, as a value of `ty`'s width.
fn constant_of(func: &Function, v: Value) -> Option<i64> {
    let crate::ir::ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.insts[inst] {
        InstData::Iconst { imm, .. } => Some(imm),
        _ => None,
    }
}

/// Sign-extends the low `bits` of `x` (the canonical form folding produces).
fn sext(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        (x << (64 - bits)) >> (64 - bits)
    }
}

/// Zero-extends the low `bits` of `x`.
fn zext(x: i64, bits: u32) -> u64 {
    if bits >= 64 {
        x as u64
    } else {
        (x as u64) & ((1u64 << bits) - 1)
    }
}

fn fold_binary(op: Opcode, ty: Type, a: i64, b: i64) -> Option<i64> {
    let bits = ty.bits();
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let (ua, ub) = (zext(a, bits), zext(b, bits));
    let r = match op {
        Opcode::Iadd => sa.wrapping_add(sb),
        Opcode::Isub => sa.wrapping_sub(sb),
        Opcode::Imul => sa.wrapping_mul(sb),
        Opcode::Band => sa & sb,
        Opcode::Bor => sa | sb,
        Opcode::Bxor => sa ^ sb,
        Opcode::Sdiv | Opcode::Srem => {
            let min = sext(1i64 << (bits - 1), bits);
            if sb == 0 || (sa == min && sb == -1) {
                return None;
            }
            if op == Opcode::Sdiv {
                sa / sb
            } else {
                sa % sb
            }
        }
        Opcode::Udiv | Opcode::Urem => {
            if ub == 0 {
                return None;
            }
            (if op == Opcode::Udiv { ua / ub } else { ua % ub }) as i64
        }
        Opcode::Ishl | Opcode::Ushr | Opcode::Sshr => {
            if ub >= bits as u64 {
                return None;
            }
            match op {
                Opcode::Ishl => sa << ub,
                Opcode::Ushr => (ua >> ub) as i64,
                _ => sa >> ub,
            }
        }
        Opcode::Smin => sa.min(sb),
        Opcode::Smax => sa.max(sb),
        Opcode::Umin => ua.min(ub) as i64,
        Opcode::Umax => ua.max(ub) as i64,
        _ => return None,
    };
    Some(sext(r, bits))
}

fn fold_icmp(cond: IntCC, ty: Type, a: i64, b: i64) -> bool {
    let bits = ty.bits();
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let (ua, ub) = (zext(a, bits), zext(b, bits));
    match cond {
        IntCC::Eq => ua == ub,
        IntCC::Ne => ua != ub,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => ua < ub,
        IntCC::Ule => ua <= ub,
        IntCC::Ugt => ua > ub,
        IntCC::Uge => ua >= ub,
    }
}

/// The operand an algebraic identity keeps: `x + 0`, `0 + x`, `x - 0`,
/// `x * 1`, `1 * x`, `x | 0`, `x ^ 0`, shifts by 0, divisions by 1; and
/// the zero of `x * 0`, `0 * x`, `x & 0`, `0 & x`.
fn identity(op: Opcode, ka: Option<i64>, kb: Option<i64>, a: Value, b: Value) -> Option<Value> {
    match (op, ka, kb) {
        (Opcode::Imul | Opcode::Band, Some(0), _) => Some(a),
        (Opcode::Imul | Opcode::Band, _, Some(0)) => Some(b),
        (Opcode::Iadd | Opcode::Bor | Opcode::Bxor, Some(0), _) => Some(b),
        (Opcode::Imul, Some(1), _) => Some(b),
        (
            Opcode::Iadd
            | Opcode::Isub
            | Opcode::Bor
            | Opcode::Bxor
            | Opcode::Ishl
            | Opcode::Ushr
            | Opcode::Sshr,
            _,
            Some(0),
        ) => Some(a),
        (Opcode::Imul | Opcode::Sdiv | Opcode::Udiv, _, Some(1)) => Some(a),
        _ => None,
    }
}

/// The operand left when an addition and a subtraction cancel, or an
/// operation meets itself: `a - (a - x)` is `x`, `(x + y) - y` is `x`,
/// `(x - y) + y` is `x`, `x & x` and `x | x` are `x`. Each holds in
/// wrapping arithmetic, so for every width and value.
fn cancellation(func: &Function, op: Opcode, a: Value, b: Value) -> Option<Value> {
    let binary = |v: Value| match func.dfg.value_def(v) {
        crate::ir::ValueDef::Result(i, 0) => match func.dfg.insts[i] {
            InstData::Binary { opcode, args } => Some((opcode, args)),
            _ => None,
        },
        _ => None,
    };
    let res = |v: Value| func.dfg.resolve_aliases(v);
    match op {
        Opcode::Band | Opcode::Bor if a == b => Some(a),
        Opcode::Isub => {
            // a - (a - x) = x
            if let Some((Opcode::Isub, [p, x])) = binary(b) {
                if res(p) == a {
                    return Some(res(x));
                }
            }
            // (x + y) - y = x, (y + x) - y = x
            if let Some((Opcode::Iadd, [x, y])) = binary(a) {
                if res(y) == b {
                    return Some(res(x));
                }
                if res(x) == b {
                    return Some(res(y));
                }
            }
            None
        }
        Opcode::Iadd => {
            // (x - y) + y = x, y + (x - y) = x
            for (l, r) in [(a, b), (b, a)] {
                if let Some((Opcode::Isub, [x, y])) = binary(l) {
                    if res(y) == r {
                        return Some(res(x));
                    }
                }
            }
            None
        }
        _ => None,
    }
}

/// What to do with one instruction.
enum Fold {
    /// Replace the instruction's data (same results).
    Rewrite(InstData),
    /// Its single result is another value: alias it and drop the instruction.
    Forward(Value),
}

// Long: one arm per foldable instruction format; the folding rules read
// as one table.
fn fold_inst(func: &Function, inst: Inst) -> Option<Fold> {
    let data = &func.dfg.insts[inst];
    let k = |v| constant_of(func, v);
    match *data {
        // A pointer taken to the generic window and back to the space it
        // came from is the pointer itself (`cvta.to.shared` undoes
        // `cvta.shared`). The other round trip, generic -> space -> generic,
        // is not an identity: it changes a pointer outside the window.
        InstData::AddrSpaceCast { to, arg } => {
            let result = func.dfg.inst_results(inst)[0];
            let inner = match func.dfg.value_def(arg) {
                ValueDef::Result(i, 0) => match func.dfg.insts[i] {
                    InstData::AddrSpaceCast {
                        to: AddrSpace::Generic,
                        arg: x,
                    } => Some(x),
                    _ => None,
                },
                _ => None,
            };
            if func.dfg.value_type(arg) == func.dfg.value_type(result) {
                return Some(Fold::Forward(arg));
            }
            let x = inner?;
            (to != AddrSpace::Generic && func.dfg.value_type(x) == Type::Ptr(to))
                .then_some(Fold::Forward(x))
        }
        // IEEE arithmetic on two float constants (`1.0f / 255.0f`): Rust's
        // `f32`/`f64` operations round to nearest even, as `add.rn`,
        // `mul.rn` and `div.rn` do. Subnormal operands or results are left
        // to the GPU (under `-ftz` it flushes them), and so is a NaN (its
        // payload is the hardware's choice).
        InstData::Binary {
            opcode: opcode @ (Opcode::Fadd | Opcode::Fsub | Opcode::Fmul | Opcode::Fdiv),
            args: [a, b],
        } => {
            let ((ty, x), (_, y)) = (float_constant(func, a)?, float_constant(func, b)?);
            let value = fold_float(opcode, ty, x, y)?;
            Some(Fold::Rewrite(InstData::Fconst { ty, value }))
        }
        InstData::Binary {
            opcode,
            args: [a, b],
        } if opcode != Opcode::PtrOffset => {
            let ty = func.dfg.value_type(a);
            if !ty.is_int() {
                return None;
            }
            // `x * 1`, `x + 0` and friends keep `x`.
            if let Some(kept) = identity(opcode, k(a), k(b), a, b) {
                return Some(Fold::Forward(kept));
            }
            if let Some(kept) = cancellation(func, opcode, a, b) {
                return Some(Fold::Forward(kept));
            }
            // `x - x` and `x ^ x` are zero.
            if a == b && matches!(opcode, Opcode::Isub | Opcode::Bxor) {
                return Some(Fold::Rewrite(InstData::Iconst { ty, imm: 0 }));
            }
            let imm = fold_binary(opcode, ty, k(a)?, k(b)?)?;
            Some(Fold::Rewrite(InstData::Iconst { ty, imm }))
        }
        InstData::Unary { opcode, arg } if matches!(opcode, Opcode::Ineg | Opcode::Bnot) => {
            let ty = func.dfg.value_type(arg);
            let x = k(arg)?;
            let r = if opcode == Opcode::Ineg {
                x.wrapping_neg()
            } else {
                !x
            };
            Some(Fold::Rewrite(InstData::Iconst {
                ty,
                imm: sext(r, ty.bits()),
            }))
        }
        // The sign of a float constant: exact, whatever the value (NaN too).
        InstData::Unary {
            opcode: opcode @ (Opcode::Fneg | Opcode::Fabs),
            arg,
        } => {
            let (ty, value) = float_constant(func, arg)?;
            let value = if opcode == Opcode::Fneg {
                -value
            } else {
                value.abs()
            };
            Some(Fold::Rewrite(InstData::Fconst { ty, value }))
        }
        InstData::Convert {
            opcode: Opcode::Bitcast,
            ty,
            arg,
        } => fold_bitcast(func, ty, arg),
        InstData::Convert { opcode, ty, arg } if ty.is_int() => {
            let from = func.dfg.value_type(arg);
            let x = k(arg)?;
            let imm = match opcode {
                Opcode::Sext => sext(x, from.bits()),
                Opcode::Zext => zext(x, from.bits()) as i64,
                Opcode::Trunc => sext(x, ty.bits()),
                _ => return None,
            };
            // Keep the canonical (sign-extended) form for the new width.
            let imm = sext(imm, ty.bits());
            Some(Fold::Rewrite(InstData::Iconst { ty, imm }))
        }
        InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [p, off],
        } if k(off) == Some(0) => Some(Fold::Forward(p)),
        // A comparison of two float constants (what `fmodf` by a constant
        // asks of its divisor: `6.0 > 0`). The constants are held as `f64`,
        // exactly, so comparing those is comparing the values; NaN stays
        // unordered.
        InstData::FloatCompare { cond, args: [a, b] } => {
            let ((_, x), (_, y)) = (float_constant(func, a)?, float_constant(func, b)?);
            let holds = cond.holds(x, y);
            Some(Fold::Rewrite(InstData::Iconst {
                ty: Type::I1,
                imm: i64::from(holds),
            }))
        }
        InstData::IntCompare { cond, args: [a, b] } => {
            let ty = func.dfg.value_type(a);
            if !ty.is_int() {
                return None;
            }
            let imm = fold_icmp(cond, ty, k(a)?, k(b)?) as i64;
            Some(Fold::Rewrite(InstData::Iconst { ty: Type::I1, imm }))
        }
        InstData::Ternary {
            opcode: Opcode::Select,
            args: [c, a, b],
        } => {
            if a == b {
                return Some(Fold::Forward(a));
            }
            if let Some(m) = select_min_max(func, c, a, b) {
                return Some(Fold::Rewrite(m));
            }
            Some(Fold::Forward(if k(c)? & 1 != 0 { a } else { b }))
        }
        InstData::Brif {
            cond,
            ref then_dest,
            ref else_dest,
        } => {
            let dest = if k(cond)? & 1 != 0 {
                then_dest
            } else {
                else_dest
            };
            Some(Fold::Rewrite(InstData::Jump { dest: dest.clone() }))
        }
        _ => None,
    }
}

/// `v` as a float constant: its type and value.
/// `bitcast.ty arg` as something simpler:
///
/// * the bits of a float constant (`fmodf(x, 6.0f)` takes its divisor's
///   significand from them) and the float an integer constant's bits make
///   (a `memset` read as a float), exact for `f32` and `f64`; a NaN is left
///   alone (its payload is not kept by the `f64` the constant is held in);
/// * a bitcast back to the type a bitcast came from (`sroa` makes these
///   when a punned value is punned back) is the first value.
fn fold_bitcast(func: &Function, ty: Type, arg: Value) -> Option<Fold> {
    if let Some(&InstData::Convert {
        opcode: Opcode::Bitcast,
        arg: x,
        ..
    }) = func.dfg.defining_data(arg)
    {
        if func.dfg.value_type(x) == ty {
            return Some(Fold::Forward(x));
        }
    }
    if ty.is_float() {
        let bits = constant_of(func, arg)?;
        let value = match ty {
            Type::F32 => f64::from(f32::from_bits(bits as u32)),
            Type::F64 => f64::from_bits(bits as u64),
            _ => return None,
        };
        return (!value.is_nan()).then_some(Fold::Rewrite(InstData::Fconst { ty, value }));
    }
    let (fty, value) = float_constant(func, arg)?;
    if value.is_nan() {
        return None;
    }
    let imm = match (fty, ty) {
        (Type::F32, Type::I32) => i64::from((value as f32).to_bits() as i32),
        (Type::F64, Type::I64) => value.to_bits() as i64,
        _ => return None,
    };
    Some(Fold::Rewrite(InstData::Iconst { ty, imm }))
}

fn float_constant(func: &Function, v: Value) -> Option<(Type, f64)> {
    match func.dfg.defining_data(v)? {
        &InstData::Fconst { ty, value } => Some((ty, value)),
        _ => None,
    }
}

/// An integer `select` that is a minimum or a maximum, as `smin`/`smax`/
/// `umin`/`umax` (one `min`/`max` instruction instead of `setp` + `selp`):
///
/// - `select (x < y), x, y` is `min(x, y)`; with the arms swapped, `max`
///   (and the same for `<=`, `>`, `>=`, signed or unsigned);
/// - the clamp `x > hi ? hi : max(x, lo)` with constants `lo <= hi` is
///   `min(max(x, lo), hi)`: when `x > hi`, `max(x, lo)` is `x`, so the
///   minimum is `hi`; otherwise both operands of `max` are at most `hi`.
///   The mirror `x < lo ? lo : min(x, hi)` is `max(min(x, hi), lo)`.
fn select_min_max(func: &Function, c: Value, a: Value, b: Value) -> Option<InstData> {
    let ValueDef::Result(cmp, 0) = func.dfg.value_def(c) else {
        return None;
    };
    let InstData::IntCompare { cond, args: [x, y] } = func.dfg.insts[cmp] else {
        return None;
    };
    if !func.dfg.value_type(x).is_int() {
        return None;
    }
    let r = |v: Value| func.dfg.resolve_aliases(v);
    let (x, y, a, b) = (r(x), r(y), r(a), r(b));
    let signed = match cond {
        IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge => true,
        IntCC::Ult | IntCC::Ule | IntCC::Ugt | IntCC::Uge => false,
        _ => return None,
    };
    let less = matches!(cond, IntCC::Slt | IntCC::Sle | IntCC::Ult | IntCC::Ule);
    let (min, max) = if signed {
        (Opcode::Smin, Opcode::Smax)
    } else {
        (Opcode::Umin, Opcode::Umax)
    };
    let binary = |opcode, p, q| InstData::Binary {
        opcode,
        args: [p, q],
    };
    if (a, b) == (x, y) {
        return Some(binary(if less { min } else { max }, x, y));
    }
    if (a, b) == (y, x) {
        return Some(binary(if less { max } else { min }, x, y));
    }
    // The clamp: `a` is the constant `y`, `b` is `max(x, lo)` (or `min`).
    if a != y {
        return None;
    }
    let bound = constant_of(func, y)?;
    let ValueDef::Result(inner, 0) = func.dfg.value_def(b) else {
        return None;
    };
    let InstData::Binary {
        opcode,
        args: [p, q],
    } = func.dfg.insts[inner]
    else {
        return None;
    };
    let other = match (r(p), r(q)) {
        (p, q) if p == x => q,
        (p, q) if q == x => p,
        _ => return None,
    };
    let other = constant_of(func, other)?;
    let bits = func.dfg.value_type(x).bits();
    let le = |lo: i64, hi: i64| {
        if signed {
            lo <= hi
        } else {
            zext(lo, bits) <= zext(hi, bits)
        }
    };
    let fits = if less {
        opcode == min && le(bound, other)
    } else {
        opcode == max && le(other, bound)
    };
    fits.then(|| binary(if less { max } else { min }, b, y))
}

/// Folds what can be folded; returns what changed (the CFG, when a branch
/// on a constant became a jump).
pub fn fold_constants(func: &mut Function) -> Changed {
    let mut changed = Changed::Nothing;
    let mut dead = rustc_hash::FxHashSet::default();
    let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
    for inst in insts {
        // Operands may have been forwarded by an earlier fold in this sweep.
        func.dfg.resolve_args(inst);
        match fold_inst(func, inst) {
            Some(Fold::Rewrite(data)) => {
                let branch = func.dfg.insts[inst].opcode().is_terminator();
                func.dfg.insts[inst] = data;
                changed |= if branch { Changed::Cfg } else { Changed::Insts };
            }
            Some(Fold::Forward(to)) => {
                let result = func.dfg.inst_results(inst)[0];
                func.dfg.change_to_alias(result, to);
                dead.insert(inst);
                changed |= Changed::Insts;
            }
            None => continue,
        }
    }
    func.layout.remove_insts(&dead);
    if changed.any() {
        func.dfg.resolve_all_aliases();
    }
    changed
}

/// `x op y` rounded as the GPU's `.rn` instruction of type `ty` rounds it,
/// or `None` where folding could differ from running it (see above).
fn fold_float(opcode: Opcode, ty: Type, x: f64, y: f64) -> Option<f64> {
    let plain = |v: f64| v.is_infinite() || v == 0.0 || v.is_normal();
    let plain32 = |v: f32| v.is_infinite() || v == 0.0 || v.is_normal();
    match ty {
        Type::F32 => ieee(opcode, x as f32, y as f32, plain32).map(f64::from),
        Type::F64 => ieee(opcode, x, y, plain),
        _ => None,
    }
}

/// One IEEE operation in the precision of `T`, when its operands and its
/// result are all `plain` (zero, normal or infinite).
fn ieee<T>(opcode: Opcode, x: T, y: T, plain: impl Fn(T) -> bool) -> Option<T>
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
{
    if !plain(x) || !plain(y) {
        return None;
    }
    let r = match opcode {
        Opcode::Fadd => x + y,
        Opcode::Fsub => x - y,
        Opcode::Fmul => x * y,
        _ => x / y,
    };
    plain(r).then_some(r)
}
