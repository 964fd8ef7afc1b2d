//! Phase 4: operand and result types of every instruction.

use super::Ctx;
use crate::ir::{
    asm_substitute, is_packed_pair_element, AccelOp, AddrSpace, AtomicOp, Format, InlineAsm, Inst,
    InstData, Opcode, OperandKind, Type, Value,
};
use crate::text::write_float;

/// Phase 4.
pub(super) fn check_types(cx: &mut Ctx) {
    for (_, inst) in cx.checkable_insts() {
        check_inst(cx, inst);
    }
}

/// The format an instruction's data has (which may disagree with its opcode).
fn data_format(data: &InstData) -> Format {
    match data {
        InstData::Iconst { .. } => Format::Iconst,
        InstData::Fconst { .. } => Format::Fconst,
        InstData::Unary { .. } => Format::Unary,
        InstData::Binary { .. } => Format::Binary,
        InstData::Ternary { .. } => Format::Ternary,
        InstData::IntCompare { .. } => Format::IntCompare,
        InstData::FloatCompare { .. } => Format::FloatCompare,
        InstData::Convert { .. } => Format::Convert,
        InstData::AddrSpaceCast { .. } => Format::AddrSpaceCast,
        InstData::GlobalAddr { .. } => Format::GlobalAddr,
        InstData::StackAddr { .. } => Format::StackAddr,
        InstData::Load { .. } => Format::Load,
        InstData::Store { .. } => Format::Store,
        InstData::Call { .. } => Format::Call,
        InstData::CallIndirect { .. } => Format::CallIndirect,
        InstData::FuncAddr { .. } => Format::FuncAddr,
        InstData::SpecialReg { .. } => Format::SpecialReg,
        InstData::Nullary { .. } => Format::Nullary,
        InstData::AtomicRmw { .. } => Format::AtomicRmw,
        InstData::AtomicCas { .. } => Format::AtomicCas,
        InstData::AtomicVec { .. } => Format::AtomicVec,
        InstData::Fence { .. } => Format::Fence,
        InstData::Shuffle { .. } => Format::Shuffle,
        InstData::Vote { .. } => Format::Vote,
        InstData::Redux { .. } => Format::Redux,
        InstData::BarrierRed { .. } => Format::BarrierRed,
        InstData::Effect { .. } => Format::Effect,
        InstData::IsSpace { .. } => Format::IsSpace,
        InstData::Accel { .. } => Format::Accel,
        InstData::InlineAsm { .. } => Format::InlineAsm,
        InstData::Jump { .. } => Format::Jump,
        InstData::Brif { .. } => Format::Brif,
        InstData::Return { .. } => Format::Return,
    }
}

/// An indirect call: an `i64` callee, then arguments and results of the
/// types its signature names (values only: PTX passes no `i1`).
fn check_call_indirect(cx: &mut Ctx, inst: Inst, sig: &crate::ir::CallSig, args: &[Value]) {
    let dfg = &cx.func.dfg;
    let Some((&callee, args)) = args.split_first() else {
        cx.at_inst(inst, "call_indirect needs a callee operand");
        return;
    };
    let mut errors = Vec::new();
    if dfg.value_type(callee) != Type::I64 {
        let t = dfg.value_type(callee);
        errors.push(format!("call_indirect callee must be i64, got {t}"));
    }
    if sig.params.len() != args.len() {
        errors.push(format!(
            "call_indirect takes {} arguments, got {}",
            sig.params.len(),
            args.len()
        ));
    }
    for (k, (&a, &want)) in args.iter().zip(&sig.params).enumerate() {
        let t = dfg.value_type(a);
        if t != want {
            errors.push(format!(
                "argument {k} of call_indirect has type {t}, expected {want}"
            ));
        }
    }
    for (k, (&r, &want)) in dfg.results[inst].iter().zip(&sig.returns).enumerate() {
        let t = dfg.value_type(r);
        if t != want {
            errors.push(format!(
                "result {k} of call_indirect has type {t}, expected {want}"
            ));
        }
    }
    if sig
        .params
        .iter()
        .chain(&sig.returns)
        .any(|&t| t == Type::I1)
    {
        errors.push("call_indirect signature with i1; PTX passes no predicates".into());
    }
    if sig.returns.len() > 1 {
        errors.push("call_indirect with more than one result".into());
    }
    for e in errors {
        cx.at_inst(inst, e);
    }
}

/// Integer ops that also take `i1` (PTX `and/or/xor/not.pred`).
fn is_bitwise(op: Opcode) -> bool {
    matches!(op, Opcode::Band | Opcode::Bor | Opcode::Bxor | Opcode::Bnot)
}

fn is_float_op(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Fneg | Fabs
            | Sqrt
            | Rsqrt
            | Ex2
            | Lg2
            | Ex2Ftz
            | Lg2Ftz
            | RsqrtFtz
            | Sin
            | Cos
            | Tanh
            | Floor
            | Ceil
            | Ftrunc
            | Nearest
            | Fadd
            | Fsub
            | Fmul
            | Fdiv
            | FdivApprox
            | FdivFull
            | Fmin
            | Fmax
            | Fma
    ) || op.explicit_rounding().is_some()
}

/// Float ops PTX has only for `f32` and `f64` (the explicit roundings).
fn is_f32_f64_only(op: Opcode) -> bool {
    op.explicit_rounding().is_some()
}

/// Float ops PTX has only for `f32` (the `.approx` and `.full` forms).
fn is_f32_only(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Ex2 | Lg2 | Ex2Ftz | Lg2Ftz | RsqrtFtz | Sin | Cos | Tanh | FdivApprox | FdivFull
    )
}

/// Bit ops PTX has only for 32- and 64-bit operands (`popc`, `clz`, `brev`).
fn is_wide_bit_op(op: Opcode) -> bool {
    matches!(op, Opcode::Popcnt | Opcode::Clz | Opcode::Bitrev)
}

/// The value types `atomic_rmw OP` accepts (those PTX `atom` has).
fn atomic_types(op: AtomicOp) -> &'static [Type] {
    match op {
        AtomicOp::Add => &[
            Type::I32,
            Type::I64,
            Type::F16,
            Type::BF16,
            Type::F32,
            Type::F64,
        ],
        AtomicOp::Exch => &[Type::I32, Type::I64, Type::F32, Type::F64],
        AtomicOp::Inc | AtomicOp::Dec => &[Type::I32],
        _ => &[Type::I32, Type::I64],
    }
}

/// `atomic_vec OP scope p, e0, e1[, e2, e3]`: an address and two or four
/// `f32` elements, or two `f16` or two `bf16` (a packed pair), that `OP`
/// takes as a vector (PTX has `add` only), each result the type of its
/// element.
fn check_atomic_vec(cx: &mut Ctx, inst: Inst, op: AtomicOp, args: &[Value]) {
    let dfg = &cx.func.dfg;
    let Some((&p, elems)) = args.split_first() else {
        cx.at_inst(inst, "atomic_vec needs an address");
        return;
    };
    let tp = dfg.value_type(p);
    let types: Vec<Type> = elems.iter().map(|&e| dfg.value_type(e)).collect();
    let results: Vec<Type> = dfg.results[inst]
        .iter()
        .map(|&r| dfg.value_type(r))
        .collect();
    if !tp.is_ptr() {
        cx.at_inst(
            inst,
            format!("atomic_vec address must be a pointer, got {tp}"),
        );
    }
    let packed = types.first().is_some_and(|&t| is_packed_pair_element(t));
    if packed && elems.len() != 2 {
        cx.at_inst(
            inst,
            format!(
                "atomic_vec on {} takes 2 elements (a packed pair), got {}",
                types[0],
                elems.len()
            ),
        );
    } else if !matches!(elems.len(), 2 | 4) {
        cx.at_inst(
            inst,
            format!("atomic_vec takes 2 or 4 elements, got {}", elems.len()),
        );
    }
    if op != AtomicOp::Add {
        cx.at_inst(
            inst,
            format!("atomic_vec {op} is not an operation on vectors; only add is"),
        );
    }
    let want = if packed { types[0] } else { Type::F32 };
    for (k, &t) in types.iter().enumerate() {
        if t != want {
            cx.at_inst(
                inst,
                format!("atomic_vec element {k} must be {want}, got {t}"),
            );
        }
    }
    for (k, (&r, &t)) in results.iter().zip(&types).enumerate() {
        if r != t {
            cx.at_inst(
                inst,
                format!("atomic_vec result {k} has type {r}, its element is {t}"),
            );
        }
    }
}

/// Whether `imm` fits `ty` as a signed or an unsigned number (`i1`: 0 or 1).
pub(crate) fn iconst_fits(ty: Type, imm: i64) -> bool {
    match ty {
        Type::I1 => imm == 0 || imm == 1,
        Type::I8 | Type::I16 | Type::I32 => {
            let bits = ty.bits();
            let min = -(1i64 << (bits - 1));
            let max = (1i64 << bits) - 1;
            (min..=max).contains(&imm)
        }
        Type::I64 => true,
        _ => false,
    }
}

/// Whether the f64 `value` is exactly a value of the float type `ty`
/// (NaNs and infinities are values of every float type).
pub(crate) fn float_fits(ty: Type, value: f64) -> bool {
    if !value.is_finite() || ty == Type::F64 {
        return true;
    }
    let as_f32 = value as f32;
    if f64::from(as_f32) != value {
        return false;
    }
    match ty {
        Type::F32 => true,
        Type::BF16 => as_f32.to_bits() & 0xffff == 0,
        Type::F16 => {
            let x = value.abs();
            if x == 0.0 {
                return true;
            }
            if x > 65504.0 {
                return false;
            }
            // Unbiased exponent of x (a normal f64: f16 values are far from
            // f64's subnormal range, and f32-exact values are too).
            let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
            // f16 has 10 fraction bits; subnormals share the quantum of 2^-14.
            let quantum = e.max(-14) - 10;
            (x * 2f64.powi(-quantum)).fract() == 0.0
        }
        _ => false,
    }
}

// Long: one arm per instruction format, each the typing rule of its
// opcodes as docs/ir.md states it; the table reads best in one place.
fn check_inst(cx: &mut Ctx, inst: Inst) {
    let func = cx.func;
    let dfg = &func.dfg;
    let data = &dfg.insts[inst];
    let op = data.opcode();
    if data_format(data) != op.format() {
        cx.at_inst(inst, format!("{op} in the wrong instruction format"));
        return;
    }
    let ty = |v: Value| dfg.value_type(v);
    let results = &dfg.results[inst];
    let callee = match data {
        InstData::Call { func: f, .. } => cx.module.and_then(|m| m.functions.get(*f)),
        _ => None,
    };
    let expected = match data {
        InstData::Call { .. } => callee.map(|c| c.signature.returns.len()),
        InstData::CallIndirect { sig, .. } => Some(sig.returns.len()),
        InstData::Accel { op, .. } => Some(op.result_types().len()),
        InstData::InlineAsm { asm, .. } => Some(asm.outputs.len()),
        InstData::AtomicVec { args, .. } => Some(args.len().saturating_sub(1)),
        InstData::Store { .. }
        | InstData::Nullary { .. }
        | InstData::Fence { .. }
        | InstData::Effect { .. }
        | InstData::Jump { .. }
        | InstData::Brif { .. }
        | InstData::Return { .. } => Some(0),
        _ => Some(1),
    };
    if let Some(n) = expected {
        if results.len() != n {
            cx.at_inst(inst, format!("expected {n} results, got {}", results.len()));
        }
    }
    let res = match results.as_slice() {
        [r] => Some(ty(*r)),
        _ => None,
    };
    // Result type against a type written on the instruction.
    let want_inst_type = |cx: &mut Ctx, want: Type| {
        if let Some(r) = res {
            if r != want {
                cx.at_inst(
                    inst,
                    format!("result type {r} does not match the instruction type {want}"),
                );
            }
        }
    };
    // Result type against the operand type.
    let want_operand_type = |cx: &mut Ctx, want: Type| {
        if let Some(r) = res {
            if r != want {
                cx.at_inst(
                    inst,
                    format!("result type {r} does not match operand type {want}"),
                );
            }
        }
    };
    // The kind an arithmetic operand type must have.
    let operand_kind = |cx: &mut Ctx, t: Type| {
        if is_float_op(op) {
            if !t.is_float() {
                cx.at_inst(inst, format!("{op} needs float operands, got {t}"));
            }
        } else if !t.is_int() {
            cx.at_inst(inst, format!("{op} needs integer operands, got {t}"));
        } else if t == Type::I1 && !is_bitwise(op) {
            cx.at_inst(inst, format!("{op} does not take i1"));
        }
    };

    match data {
        InstData::Iconst { ty: t, imm } => {
            want_inst_type(cx, *t);
            if !t.is_int() {
                cx.at_inst(inst, format!("iconst type must be an integer, got {t}"));
            } else if !iconst_fits(*t, *imm) {
                cx.at_inst(inst, format!("iconst {imm} does not fit in {t}"));
            }
        }
        InstData::Fconst { ty: t, value } => {
            want_inst_type(cx, *t);
            if !t.is_float() {
                cx.at_inst(inst, format!("fconst type must be a float, got {t}"));
            } else if !float_fits(*t, *value) {
                let mut text = String::new();
                write_float(&mut text, *value).expect("writing to a String");
                cx.at_inst(
                    inst,
                    format!("fconst {text} is not exactly representable in {t}"),
                );
            }
        }
        InstData::Unary { arg, .. } => {
            let t = ty(*arg);
            operand_kind(cx, t);
            if is_f32_only(op) && t.is_float() && t != Type::F32 {
                cx.at_inst(inst, format!("{op} needs f32, got {t}"));
            }
            if is_f32_f64_only(op) && !matches!(t, Type::F32 | Type::F64) {
                cx.at_inst(inst, format!("{op} needs f32 or f64, got {t}"));
            }
            if is_wide_bit_op(op) && t.is_int() && !matches!(t, Type::I32 | Type::I64) {
                cx.at_inst(inst, format!("{op} needs i32 or i64, got {t}"));
            }
            want_operand_type(cx, t);
        }
        InstData::Binary { args: [a, b], .. } if op == Opcode::PtrOffset => {
            let (ta, tb) = (ty(*a), ty(*b));
            if !ta.is_ptr() {
                cx.at_inst(inst, format!("ptroffset needs a pointer operand, got {ta}"));
            }
            if tb != Type::I64 && tb != Type::I32 {
                cx.at_inst(
                    inst,
                    format!("ptroffset offset must be i64 or i32, got {tb}"),
                );
            }
            if let Some(r) = res {
                if !r.is_ptr() {
                    cx.at_inst(inst, format!("ptroffset result must be a pointer, got {r}"));
                }
            }
        }
        InstData::Binary { args: [a, b], .. } => {
            let (ta, tb) = (ty(*a), ty(*b));
            if ta != tb {
                cx.at_inst(inst, format!("{op} operands differ: {ta} and {tb}"));
            } else {
                operand_kind(cx, ta);
                if is_f32_only(op) && ta.is_float() && ta != Type::F32 {
                    cx.at_inst(inst, format!("{op} needs f32, got {ta}"));
                }
                if is_f32_f64_only(op) && !matches!(ta, Type::F32 | Type::F64) {
                    cx.at_inst(inst, format!("{op} needs f32 or f64, got {ta}"));
                }
            }
            want_operand_type(cx, ta);
        }
        InstData::Ternary {
            args: [c, a, b], ..
        } if op == Opcode::Select => {
            let (tc, ta, tb) = (ty(*c), ty(*a), ty(*b));
            if tc != Type::I1 {
                cx.at_inst(inst, format!("select condition must be i1, got {tc}"));
            }
            if ta != tb {
                cx.at_inst(inst, format!("select arms differ: {ta} and {tb}"));
            }
            want_operand_type(cx, ta);
        }
        InstData::Ternary { args, .. } => {
            let ta = ty(args[0]);
            match args[1..].iter().map(|&v| ty(v)).find(|&t| t != ta) {
                Some(other) => cx.at_inst(inst, format!("{op} operands differ: {ta} and {other}")),
                None => operand_kind(cx, ta),
            }
            if is_f32_f64_only(op) && !matches!(ta, Type::F32 | Type::F64) {
                cx.at_inst(inst, format!("{op} needs f32 or f64, got {ta}"));
            }
            if matches!(op, Opcode::Dp4aS | Opcode::Dp4aU) && ta != Type::I32 {
                cx.at_inst(inst, format!("{op} needs i32 operands, got {ta}"));
            }
            want_operand_type(cx, ta);
        }
        InstData::IntCompare { args: [a, b], .. } | InstData::FloatCompare { args: [a, b], .. } => {
            let (ta, tb) = (ty(*a), ty(*b));
            if ta != tb {
                cx.at_inst(inst, format!("{op} operands differ: {ta} and {tb}"));
            } else if op == Opcode::Icmp && !ta.is_int() && !ta.is_ptr() {
                cx.at_inst(
                    inst,
                    format!("icmp needs integer or pointer operands, got {ta}"),
                );
            } else if op == Opcode::Fcmp && !ta.is_float() {
                cx.at_inst(inst, format!("fcmp needs float operands, got {ta}"));
            }
            if let Some(r) = res {
                if r != Type::I1 {
                    cx.at_inst(inst, format!("{op} result must be i1, got {r}"));
                }
            }
        }
        InstData::Convert { ty: to, arg, .. } => {
            want_inst_type(cx, *to);
            if let Some(msg) = check_conversion(op, ty(*arg), *to) {
                cx.at_inst(inst, msg);
            }
        }
        InstData::AddrSpaceCast { to, arg } => {
            let t = ty(*arg);
            if !t.is_ptr() {
                cx.at_inst(
                    inst,
                    format!("addrspacecast needs a pointer operand, got {t}"),
                );
            }
            want_inst_type(cx, Type::Ptr(*to));
        }
        InstData::GlobalAddr { gv } => {
            if let Some(r) = res {
                match cx.module.map(|m| Type::Ptr(m.globals[*gv].space)) {
                    Some(want) if r != want => cx.at_inst(
                        inst,
                        format!("global_addr of {gv} must give {want}, got {r}"),
                    ),
                    None if !r.is_ptr() => cx.at_inst(
                        inst,
                        format!("global_addr result must be a pointer, got {r}"),
                    ),
                    _ => {}
                }
            }
        }
        InstData::StackAddr { .. } => {
            if let Some(r) = res {
                if r != Type::Ptr(AddrSpace::Local) {
                    cx.at_inst(
                        inst,
                        format!("stack_addr result must be ptr<local>, got {r}"),
                    );
                }
            }
        }
        InstData::Load { ty: t, ptr, .. } => {
            want_inst_type(cx, *t);
            let tp = ty(*ptr);
            if !tp.is_ptr() {
                cx.at_inst(inst, format!("load address must be a pointer, got {tp}"));
            }
            if *t == Type::I1 {
                cx.at_inst(inst, "load of i1; PTX has no predicate memory type");
            }
        }
        InstData::Store { value, ptr, .. } => {
            let tp = ty(*ptr);
            if !tp.is_ptr() {
                cx.at_inst(inst, format!("store address must be a pointer, got {tp}"));
            }
            if ty(*value) == Type::I1 {
                cx.at_inst(inst, "store of i1; PTX has no predicate memory type");
            }
        }
        InstData::Call { args, .. } => {
            if let Some(callee) = callee {
                let name = &callee.name;
                let params = &callee.signature.params;
                if params.len() != args.len() {
                    cx.at_inst(
                        inst,
                        format!(
                            "call to @{name} takes {} arguments, got {}",
                            params.len(),
                            args.len()
                        ),
                    );
                }
                for (k, (&a, p)) in args.iter().zip(params).enumerate() {
                    let t = ty(a);
                    if t != p.ty {
                        cx.at_inst(
                            inst,
                            format!(
                                "argument {k} of call to @{name} has type {t}, expected {}",
                                p.ty
                            ),
                        );
                    }
                }
                for (k, (&r, &want)) in results.iter().zip(&callee.signature.returns).enumerate() {
                    let t = ty(r);
                    if t != want {
                        cx.at_inst(
                            inst,
                            format!("result {k} of call to @{name} has type {t}, expected {want}"),
                        );
                    }
                }
            }
        }
        InstData::CallIndirect { sig, args } => check_call_indirect(cx, inst, sig, args),
        InstData::FuncAddr { .. } => want_inst_type(cx, Type::I64),
        InstData::SpecialReg { reg } => {
            if let Some(r) = res {
                if r != reg.ty() {
                    cx.at_inst(
                        inst,
                        format!("special result must be {}, got {r}", reg.ty()),
                    );
                }
            }
        }
        InstData::Nullary { .. } | InstData::Fence { .. } => {}
        InstData::AtomicRmw {
            op: aop,
            args: [p, v],
            ..
        } => {
            let (tp, tv) = (ty(*p), ty(*v));
            if !tp.is_ptr() {
                cx.at_inst(
                    inst,
                    format!("atomic_rmw address must be a pointer, got {tp}"),
                );
            }
            if !atomic_types(*aop).contains(&tv) {
                cx.at_inst(inst, format!("atomic_rmw {aop} does not take {tv}"));
            }
            want_operand_type(cx, tv);
        }
        InstData::AtomicCas {
            args: [p, e, n], ..
        } => {
            let (tp, te, tn) = (ty(*p), ty(*e), ty(*n));
            if !tp.is_ptr() {
                cx.at_inst(
                    inst,
                    format!("atomic_cas address must be a pointer, got {tp}"),
                );
            }
            if te != tn {
                cx.at_inst(inst, format!("atomic_cas operands differ: {te} and {tn}"));
            } else if !matches!(te, Type::I16 | Type::I32 | Type::I64) {
                cx.at_inst(inst, format!("atomic_cas needs i16, i32 or i64, got {te}"));
            }
            want_operand_type(cx, te);
        }
        InstData::AtomicVec { op: aop, args, .. } => check_atomic_vec(cx, inst, *aop, args),
        InstData::Shuffle { args, .. } => {
            let tv = ty(args[0]);
            if !matches!(tv, Type::I32 | Type::F32) {
                cx.at_inst(inst, format!("shfl value must be i32 or f32, got {tv}"));
            }
            for (k, &a) in args.iter().enumerate().skip(1) {
                let t = ty(a);
                if t != Type::I32 {
                    cx.at_inst(inst, format!("shfl operand {k} must be i32, got {t}"));
                }
            }
            want_operand_type(cx, tv);
        }
        InstData::Vote { mode, args: [p, m] } => {
            let (tp, tm) = (ty(*p), ty(*m));
            if tp != Type::I1 {
                cx.at_inst(inst, format!("vote predicate must be i1, got {tp}"));
            }
            if tm != Type::I32 {
                cx.at_inst(inst, format!("vote member mask must be i32, got {tm}"));
            }
            let want = if *mode == crate::ir::VoteMode::Ballot {
                Type::I32
            } else {
                Type::I1
            };
            want_inst_type(cx, want);
        }
        InstData::Redux {
            op: rop,
            args: [v, m],
        } => {
            let (tv, tm) = (ty(*v), ty(*m));
            if tv != Type::I32 {
                cx.at_inst(inst, format!("redux {rop} value must be i32, got {tv}"));
            }
            if tm != Type::I32 {
                cx.at_inst(inst, format!("redux member mask must be i32, got {tm}"));
            }
            want_inst_type(cx, Type::I32);
        }
        InstData::BarrierRed { op: rop, arg } => {
            let t = ty(*arg);
            if t != Type::I1 {
                cx.at_inst(inst, format!("barrier_red predicate must be i1, got {t}"));
            }
            let want = if *rop == crate::ir::BarrierRedOp::Popc {
                Type::I32
            } else {
                Type::I1
            };
            want_inst_type(cx, want);
        }
        InstData::Effect { arg, .. } => {
            let t = ty(*arg);
            if t != Type::I32 {
                cx.at_inst(inst, format!("{op} operand must be i32, got {t}"));
            }
        }
        InstData::IsSpace { space, arg } => {
            let t = ty(*arg);
            if !t.is_ptr() {
                cx.at_inst(inst, format!("is_space needs a pointer operand, got {t}"));
            }
            if *space == AddrSpace::Generic || !space.has_generic_form() {
                cx.at_inst(
                    inst,
                    format!("is_space needs a space with a generic window, got {space}"),
                );
            }
            want_inst_type(cx, Type::I1);
        }
        InstData::Jump { .. } | InstData::Brif { .. } => {
            if let InstData::Brif { cond, .. } = data {
                let t = ty(*cond);
                if t != Type::I1 {
                    cx.at_inst(inst, format!("brif condition must be i1, got {t}"));
                }
            }
            for dest in data.branch_destinations() {
                if cx.bad_blocks.contains(&dest.block) {
                    continue;
                }
                let params = dfg.block_params(dest.block);
                for (k, (&a, &p)) in dest.args.iter().zip(params).enumerate() {
                    let (ta, tp) = (ty(a), ty(p));
                    if ta != tp {
                        cx.at_inst(
                            inst,
                            format!(
                                "argument {k} to {} has type {ta}, parameter {p} is {tp}",
                                dest.block
                            ),
                        );
                    }
                }
            }
        }
        InstData::Accel { op: aop, args } => check_accel(cx, inst, *aop, args),
        InstData::InlineAsm { asm, args } => check_inline_asm(cx, inst, asm, args),
        InstData::Return { args } => {
            let returns = &func.signature.returns;
            if args.len() != returns.len() {
                cx.at_inst(
                    inst,
                    format!(
                        "return gives {} values, signature returns {}",
                        args.len(),
                        returns.len()
                    ),
                );
            }
            for (k, (&a, &want)) in args.iter().zip(returns).enumerate() {
                let t = ty(a);
                if t != want {
                    cx.at_inst(
                        inst,
                        format!("return value {k} has type {t}, signature says {want}"),
                    );
                }
            }
        }
    }
}

/// Operand and result types of an `inline_asm` as its constraints say,
/// and every `%N` of its template naming an operand.
fn check_inline_asm(cx: &mut Ctx, inst: Inst, asm: &InlineAsm, args: &[Value]) {
    let dfg = &cx.func.dfg;
    let want = asm.operand_types();
    let mut errors = Vec::new();
    if want.len() != args.len() {
        errors.push(format!(
            "inline_asm's constraints take {} operands, got {}",
            want.len(),
            args.len()
        ));
    }
    for (k, (&a, &t)) in args.iter().zip(&want).enumerate() {
        if dfg.value_type(a) != t {
            errors.push(format!(
                "inline_asm operand {k} must be {t}, got {}",
                dfg.value_type(a)
            ));
        }
    }
    for (k, (&r, t)) in dfg
        .inst_results(inst)
        .iter()
        .zip(asm.result_types())
        .enumerate()
    {
        if dfg.value_type(r) != t {
            errors.push(format!("inline_asm result {k} must be {t}"));
        }
    }
    let count = asm.outputs.len() + asm.inputs.len();
    if let Err(e) = asm_substitute(&asm.template, count, |_| String::new()) {
        errors.push(format!("inline_asm template: {e}"));
    }
    for e in errors {
        cx.at_inst(inst, e);
    }
}

/// Operand count, operand types and spaces, and result types of an
/// `accel` instruction, all as [`AccelOp`] describes them.
fn check_accel(cx: &mut Ctx, inst: Inst, op: AccelOp, args: &[Value]) {
    let dfg = &cx.func.dfg;
    if let Some(msg) = op.modifier_error() {
        cx.at_inst(inst, msg);
    }
    let kinds = op.operand_kinds();
    if kinds.len() != args.len() {
        let msg = format!(
            "{} takes {} operands, got {}",
            op.opcode(),
            kinds.len(),
            args.len()
        );
        cx.at_inst(inst, msg);
        return;
    }
    let mut errors = Vec::new();
    for (k, (&a, kind)) in args.iter().zip(kinds).enumerate() {
        let t = dfg.value_type(a);
        match kind {
            OperandKind::Ty(want) if t != want => {
                errors.push(format!(
                    "{} operand {k} must be {want}, got {t}",
                    op.opcode()
                ));
            }
            OperandKind::Ptr(spaces) if !matches!(t, Type::Ptr(s) if spaces.contains(&s)) => {
                let list: Vec<String> = spaces.iter().map(|s| format!("ptr<{s}>")).collect();
                errors.push(format!(
                    "{} operand {k} must be {}, got {t}",
                    op.opcode(),
                    list.join(" or ")
                ));
            }
            _ => {}
        }
    }
    let results = &dfg.results[inst];
    for (k, (&r, want)) in results.iter().zip(op.result_types()).enumerate() {
        let t = dfg.value_type(r);
        if t != want {
            errors.push(format!(
                "{} result {k} must be {want}, got {t}",
                op.opcode()
            ));
        }
    }
    for e in errors {
        cx.at_inst(inst, e);
    }
}

/// Why converting `from` to `to` with `op` is illegal, if it is.
fn check_conversion(op: Opcode, from: Type, to: Type) -> Option<String> {
    let both_int = from.is_int() && to.is_int();
    let both_float = from.is_float() && to.is_float();
    let int_not_i1 = |t: Type| t.is_int() && t != Type::I1;
    let widens = from.bits() < to.bits();
    let narrows = from.bits() > to.bits();
    let msg = match op {
        Opcode::Sext | Opcode::Zext | Opcode::Trunc if !both_int => {
            format!("{op} needs integer types, got {from} to {to}")
        }
        Opcode::Sext | Opcode::Zext if !widens => format!("{op} must widen, got {from} to {to}"),
        Opcode::Trunc if !narrows => format!("{op} must narrow, got {from} to {to}"),
        Opcode::Fpext | Opcode::Fptrunc if !both_float => {
            format!("{op} needs float types, got {from} to {to}")
        }
        Opcode::Fpext if !widens => format!("{op} must widen, got {from} to {to}"),
        Opcode::Fptrunc if !narrows => format!("{op} must narrow, got {from} to {to}"),
        Opcode::Sitofp | Opcode::Uitofp if !int_not_i1(from) || !to.is_float() => {
            format!("{op} converts a non-i1 integer to a float, got {from} to {to}")
        }
        Opcode::Fptosi | Opcode::Fptoui if !from.is_float() || !int_not_i1(to) => {
            format!("{op} converts a float to a non-i1 integer, got {from} to {to}")
        }
        Opcode::Bitcast if from.is_ptr() || to.is_ptr() => {
            format!("bitcast cannot convert pointers, got {from} to {to}")
        }
        Opcode::Bitcast if from.bits() != to.bits() => {
            format!("bitcast needs types of one width, got {from} to {to}")
        }
        Opcode::Ptrtoint if !from.is_ptr() => {
            format!("ptrtoint needs a pointer operand, got {from}")
        }
        Opcode::Ptrtoint if to != pointer_int(from) => {
            format!(
                "ptrtoint of {from} must give {}, got {to}",
                pointer_int(from)
            )
        }
        Opcode::Inttoptr if !to.is_ptr() => format!("inttoptr must give a pointer, got {to}"),
        Opcode::Inttoptr if from != pointer_int(to) => {
            format!("inttoptr to {to} needs {}, got {from}", pointer_int(to))
        }
        _ => return None,
    };
    Some(msg)
}

/// The integer type as wide as a pointer type.
fn pointer_int(ptr: Type) -> Type {
    if ptr.bits() == 32 {
        Type::I32
    } else {
        Type::I64
    }
}
