//! Phase 4: operand and result types of every instruction.

use super::{Ctx, VerifierErrorKind as K};
use crate::ir::{
    asm_substitute, is_packed_pair_element, AccelOp, AddrSpace, AtomicOp, Format, InlineAsm, Inst,
    InstData, Opcode, OperandKind, Type, Value,
};

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
        InstData::Match { .. } => Format::Match,
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
        cx.at_inst(inst, K::CallIndirectNoCallee);
        return;
    };
    let mut errors = Vec::new();
    if dfg.value_type(callee) != Type::I64 {
        let found = dfg.value_type(callee);
        errors.push(K::CallIndirectCallee { found });
    }
    if sig.params.len() != args.len() {
        errors.push(K::CallIndirectArgCount {
            expected: sig.params.len(),
            found: args.len(),
        });
    }
    for (k, (&a, &want)) in args.iter().zip(&sig.params).enumerate() {
        let t = dfg.value_type(a);
        if t != want {
            errors.push(K::CallIndirectArgType {
                index: k,
                found: t,
                expected: want,
            });
        }
    }
    for (k, (&r, &want)) in dfg.results[inst].iter().zip(&sig.returns).enumerate() {
        let t = dfg.value_type(r);
        if t != want {
            errors.push(K::CallIndirectResultType {
                index: k,
                found: t,
                expected: want,
            });
        }
    }
    if sig
        .params
        .iter()
        .chain(&sig.returns)
        .any(|&t| t == Type::I1)
    {
        errors.push(K::CallIndirectPredicate);
    }
    if sig.returns.len() > 1 {
        errors.push(K::CallIndirectResults);
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
        cx.at_inst(inst, K::AtomicVecNoAddress);
        return;
    };
    let tp = dfg.value_type(p);
    let types: Vec<Type> = elems.iter().map(|&e| dfg.value_type(e)).collect();
    let results: Vec<Type> = dfg.results[inst]
        .iter()
        .map(|&r| dfg.value_type(r))
        .collect();
    if !tp.is_ptr() {
        let opcode = Opcode::AtomicVec;
        cx.at_inst(inst, K::AddressNotPointer { opcode, found: tp });
    }
    let packed = types.first().is_some_and(|&t| is_packed_pair_element(t));
    if packed && elems.len() != 2 {
        let (element, count) = (types[0], elems.len());
        cx.at_inst(inst, K::AtomicVecPackedCount { element, count });
    } else if !matches!(elems.len(), 2 | 4) {
        let count = elems.len();
        cx.at_inst(inst, K::AtomicVecCount { count });
    }
    if op != AtomicOp::Add {
        cx.at_inst(inst, K::AtomicVecOp { op });
    }
    let want = if packed { types[0] } else { Type::F32 };
    for (k, &t) in types.iter().enumerate() {
        if t != want {
            let kind = K::AtomicVecElement {
                index: k,
                expected: want,
                found: t,
            };
            cx.at_inst(inst, kind);
        }
    }
    for (k, (&r, &t)) in results.iter().zip(&types).enumerate() {
        if r != t {
            let kind = K::AtomicVecResult {
                index: k,
                found: r,
                element: t,
            };
            cx.at_inst(inst, kind);
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
        cx.at_inst(inst, K::WrongFormat { opcode: op });
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
            let found = results.len();
            cx.at_inst(inst, K::ResultCount { expected: n, found });
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
                let kind = K::ResultNotInstType {
                    found: r,
                    expected: want,
                };
                cx.at_inst(inst, kind);
            }
        }
    };
    // Result type against the operand type.
    let want_operand_type = |cx: &mut Ctx, want: Type| {
        if let Some(r) = res {
            if r != want {
                let kind = K::ResultNotOperandType {
                    found: r,
                    expected: want,
                };
                cx.at_inst(inst, kind);
            }
        }
    };
    // The kind an arithmetic operand type must have.
    let operand_kind = |cx: &mut Ctx, t: Type| {
        if is_float_op(op) {
            if !t.is_float() {
                cx.at_inst(
                    inst,
                    K::NeedsFloats {
                        opcode: op,
                        found: t,
                    },
                );
            }
        } else if !t.is_int() {
            cx.at_inst(
                inst,
                K::NeedsIntegers {
                    opcode: op,
                    found: t,
                },
            );
        } else if t == Type::I1 && !is_bitwise(op) {
            cx.at_inst(inst, K::TakesNoI1 { opcode: op });
        }
    };

    match data {
        InstData::Iconst { ty: t, imm } => {
            want_inst_type(cx, *t);
            if !t.is_int() {
                cx.at_inst(inst, K::IconstType { ty: *t });
            } else if !iconst_fits(*t, *imm) {
                cx.at_inst(inst, K::IconstRange { imm: *imm, ty: *t });
            }
        }
        InstData::Fconst { ty: t, value } => {
            want_inst_type(cx, *t);
            if !t.is_float() {
                cx.at_inst(inst, K::FconstType { ty: *t });
            } else if !float_fits(*t, *value) {
                let kind = K::FconstInexact {
                    value: *value,
                    ty: *t,
                };
                cx.at_inst(inst, kind);
            }
        }
        InstData::Unary { arg, .. } => {
            let t = ty(*arg);
            operand_kind(cx, t);
            if is_f32_only(op) && t.is_float() && t != Type::F32 {
                cx.at_inst(
                    inst,
                    K::NeedsF32 {
                        opcode: op,
                        found: t,
                    },
                );
            }
            if is_f32_f64_only(op) && !matches!(t, Type::F32 | Type::F64) {
                cx.at_inst(
                    inst,
                    K::NeedsF32OrF64 {
                        opcode: op,
                        found: t,
                    },
                );
            }
            if is_wide_bit_op(op) && t.is_int() && !matches!(t, Type::I32 | Type::I64) {
                cx.at_inst(
                    inst,
                    K::NeedsI32OrI64 {
                        opcode: op,
                        found: t,
                    },
                );
            }
            want_operand_type(cx, t);
        }
        InstData::Binary { args: [a, b], .. } if op == Opcode::PtrOffset => {
            let (ta, tb) = (ty(*a), ty(*b));
            if !ta.is_ptr() {
                cx.at_inst(inst, K::PtrOffsetBase { found: ta });
            }
            if tb != Type::I64 && tb != Type::I32 {
                cx.at_inst(inst, K::PtrOffsetOffset { found: tb });
            }
            if let Some(r) = res {
                if !r.is_ptr() {
                    cx.at_inst(inst, K::PtrOffsetResult { found: r });
                }
            }
        }
        InstData::Binary { args: [a, b], .. } => {
            let (ta, tb) = (ty(*a), ty(*b));
            if ta != tb {
                let kind = K::OperandsDiffer {
                    opcode: op,
                    a: ta,
                    b: tb,
                };
                cx.at_inst(inst, kind);
            } else {
                operand_kind(cx, ta);
                if is_f32_only(op) && ta.is_float() && ta != Type::F32 {
                    cx.at_inst(
                        inst,
                        K::NeedsF32 {
                            opcode: op,
                            found: ta,
                        },
                    );
                }
                if is_f32_f64_only(op) && !matches!(ta, Type::F32 | Type::F64) {
                    cx.at_inst(
                        inst,
                        K::NeedsF32OrF64 {
                            opcode: op,
                            found: ta,
                        },
                    );
                }
            }
            want_operand_type(cx, ta);
        }
        InstData::Ternary {
            args: [c, a, b], ..
        } if op == Opcode::Select => {
            let (tc, ta, tb) = (ty(*c), ty(*a), ty(*b));
            if tc != Type::I1 {
                cx.at_inst(inst, K::SelectCondition { found: tc });
            }
            if ta != tb {
                cx.at_inst(inst, K::SelectArmsDiffer { a: ta, b: tb });
            }
            want_operand_type(cx, ta);
        }
        InstData::Ternary { args, .. } => {
            let ta = ty(args[0]);
            match args[1..].iter().map(|&v| ty(v)).find(|&t| t != ta) {
                Some(other) => {
                    let kind = K::OperandsDiffer {
                        opcode: op,
                        a: ta,
                        b: other,
                    };
                    cx.at_inst(inst, kind)
                }
                None => operand_kind(cx, ta),
            }
            if is_f32_f64_only(op) && !matches!(ta, Type::F32 | Type::F64) {
                cx.at_inst(
                    inst,
                    K::NeedsF32OrF64 {
                        opcode: op,
                        found: ta,
                    },
                );
            }
            if matches!(op, Opcode::Dp4aS | Opcode::Dp4aU) && ta != Type::I32 {
                cx.at_inst(
                    inst,
                    K::NeedsI32Operands {
                        opcode: op,
                        found: ta,
                    },
                );
            }
            want_operand_type(cx, ta);
        }
        InstData::IntCompare { args: [a, b], .. } | InstData::FloatCompare { args: [a, b], .. } => {
            let (ta, tb) = (ty(*a), ty(*b));
            if ta != tb {
                let kind = K::OperandsDiffer {
                    opcode: op,
                    a: ta,
                    b: tb,
                };
                cx.at_inst(inst, kind);
            } else if op == Opcode::Icmp && !ta.is_int() && !ta.is_ptr() {
                cx.at_inst(inst, K::IcmpOperands { found: ta });
            } else if op == Opcode::Fcmp && !ta.is_float() {
                cx.at_inst(
                    inst,
                    K::NeedsFloats {
                        opcode: op,
                        found: ta,
                    },
                );
            }
            if let Some(r) = res {
                if r != Type::I1 {
                    cx.at_inst(
                        inst,
                        K::CompareResult {
                            opcode: op,
                            found: r,
                        },
                    );
                }
            }
        }
        InstData::Convert { ty: to, arg, .. } => {
            want_inst_type(cx, *to);
            if let Some(kind) = check_conversion(op, ty(*arg), *to) {
                cx.at_inst(inst, kind);
            }
        }
        InstData::AddrSpaceCast { to, arg } => {
            let t = ty(*arg);
            if !t.is_ptr() {
                cx.at_inst(inst, K::AddrSpaceCastOperand { found: t });
            }
            want_inst_type(cx, Type::Ptr(*to));
        }
        InstData::GlobalAddr { gv } => {
            if let Some(r) = res {
                match cx.module.map(|m| Type::Ptr(m.globals[*gv].space)) {
                    Some(want) if r != want => {
                        let kind = K::GlobalAddrSpace {
                            gv: *gv,
                            expected: want,
                            found: r,
                        };
                        cx.at_inst(inst, kind)
                    }
                    None if !r.is_ptr() => cx.at_inst(inst, K::GlobalAddrResult { found: r }),
                    _ => {}
                }
            }
        }
        InstData::StackAddr { .. } => {
            if let Some(r) = res {
                if r != Type::Ptr(AddrSpace::Local) {
                    cx.at_inst(inst, K::StackAddrResult { found: r });
                }
            }
        }
        InstData::Load { ty: t, ptr, .. } => {
            want_inst_type(cx, *t);
            let tp = ty(*ptr);
            if !tp.is_ptr() {
                cx.at_inst(
                    inst,
                    K::AddressNotPointer {
                        opcode: op,
                        found: tp,
                    },
                );
            }
            if *t == Type::I1 {
                cx.at_inst(inst, K::PredicateMemory { opcode: op });
            }
        }
        InstData::Store { value, ptr, .. } => {
            let tp = ty(*ptr);
            if !tp.is_ptr() {
                cx.at_inst(
                    inst,
                    K::AddressNotPointer {
                        opcode: op,
                        found: tp,
                    },
                );
            }
            if ty(*value) == Type::I1 {
                cx.at_inst(inst, K::PredicateMemory { opcode: op });
            }
        }
        InstData::Call { args, .. } => {
            if let Some(callee) = callee {
                let name = &callee.name;
                let params = &callee.signature.params;
                if params.len() != args.len() {
                    let kind = K::CallArgCount {
                        callee: name.clone(),
                        expected: params.len(),
                        found: args.len(),
                    };
                    cx.at_inst(inst, kind);
                }
                for (k, (&a, p)) in args.iter().zip(params).enumerate() {
                    let t = ty(a);
                    if t != p.ty {
                        let kind = K::CallArgType {
                            callee: name.clone(),
                            index: k,
                            found: t,
                            expected: p.ty,
                        };
                        cx.at_inst(inst, kind);
                    }
                }
                for (k, (&r, &want)) in results.iter().zip(&callee.signature.returns).enumerate() {
                    let t = ty(r);
                    if t != want {
                        let kind = K::CallResultType {
                            callee: name.clone(),
                            index: k,
                            found: t,
                            expected: want,
                        };
                        cx.at_inst(inst, kind);
                    }
                }
            }
        }
        InstData::CallIndirect { sig, args } => check_call_indirect(cx, inst, sig, args),
        InstData::FuncAddr { .. } => want_inst_type(cx, Type::I64),
        InstData::SpecialReg { reg } => {
            if let Some(r) = res {
                if r != reg.ty() {
                    let kind = K::SpecialResult {
                        expected: reg.ty(),
                        found: r,
                    };
                    cx.at_inst(inst, kind);
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
                    K::AddressNotPointer {
                        opcode: op,
                        found: tp,
                    },
                );
            }
            if !atomic_types(*aop).contains(&tv) {
                cx.at_inst(
                    inst,
                    K::AtomicRmwType {
                        op: *aop,
                        found: tv,
                    },
                );
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
                    K::AddressNotPointer {
                        opcode: op,
                        found: tp,
                    },
                );
            }
            if te != tn {
                let kind = K::OperandsDiffer {
                    opcode: op,
                    a: te,
                    b: tn,
                };
                cx.at_inst(inst, kind);
            } else if !matches!(te, Type::I16 | Type::I32 | Type::I64) {
                cx.at_inst(inst, K::AtomicCasType { found: te });
            }
            want_operand_type(cx, te);
        }
        InstData::AtomicVec { op: aop, args, .. } => check_atomic_vec(cx, inst, *aop, args),
        InstData::Shuffle { args, .. } => {
            let tv = ty(args[0]);
            if !matches!(tv, Type::I32 | Type::F32) {
                cx.at_inst(inst, K::ShflValue { found: tv });
            }
            for (k, &a) in args.iter().enumerate().skip(1) {
                let t = ty(a);
                if t != Type::I32 {
                    cx.at_inst(inst, K::ShflOperand { index: k, found: t });
                }
            }
            want_operand_type(cx, tv);
        }
        InstData::Vote { mode, args: [p, m] } => {
            let (tp, tm) = (ty(*p), ty(*m));
            if tp != Type::I1 {
                cx.at_inst(inst, K::VotePredicate { found: tp });
            }
            if tm != Type::I32 {
                cx.at_inst(inst, K::VoteMask { found: tm });
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
                cx.at_inst(
                    inst,
                    K::ReduxValue {
                        op: *rop,
                        found: tv,
                    },
                );
            }
            if tm != Type::I32 {
                cx.at_inst(inst, K::ReduxMask { found: tm });
            }
            want_inst_type(cx, Type::I32);
        }
        InstData::Match { mode, args: [v, m] } => {
            let (tv, tm) = (ty(*v), ty(*m));
            if tv != Type::I32 && tv != Type::I64 {
                cx.at_inst(
                    inst,
                    K::MatchValue {
                        mode: *mode,
                        found: tv,
                    },
                );
            }
            if tm != Type::I32 {
                cx.at_inst(inst, K::MatchMask { found: tm });
            }
            want_inst_type(cx, Type::I32);
        }
        InstData::BarrierRed { op: rop, arg } => {
            let t = ty(*arg);
            if t != Type::I1 {
                cx.at_inst(inst, K::BarrierRedPredicate { found: t });
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
                cx.at_inst(
                    inst,
                    K::EffectOperand {
                        opcode: op,
                        found: t,
                    },
                );
            }
        }
        InstData::IsSpace { space, arg } => {
            let t = ty(*arg);
            if !t.is_ptr() {
                cx.at_inst(inst, K::IsSpaceOperand { found: t });
            }
            if *space == AddrSpace::Generic || !space.has_generic_form() {
                cx.at_inst(inst, K::IsSpaceSpace { space: *space });
            }
            want_inst_type(cx, Type::I1);
        }
        InstData::Jump { .. } | InstData::Brif { .. } => {
            if let InstData::Brif { cond, .. } = data {
                let t = ty(*cond);
                if t != Type::I1 {
                    cx.at_inst(inst, K::BrifCondition { found: t });
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
                        let kind = K::BranchArgType {
                            index: k,
                            target: dest.block,
                            found: ta,
                            param: p,
                            expected: tp,
                        };
                        cx.at_inst(inst, kind);
                    }
                }
            }
        }
        InstData::Accel { op: aop, args } => check_accel(cx, inst, *aop, args),
        InstData::InlineAsm { asm, args } => check_inline_asm(cx, inst, asm, args),
        InstData::Return { args } => {
            let returns = &func.signature.returns;
            if args.len() != returns.len() {
                let kind = K::ReturnCount {
                    found: args.len(),
                    expected: returns.len(),
                };
                cx.at_inst(inst, kind);
            }
            for (k, (&a, &want)) in args.iter().zip(returns).enumerate() {
                let t = ty(a);
                if t != want {
                    let kind = K::ReturnType {
                        index: k,
                        found: t,
                        expected: want,
                    };
                    cx.at_inst(inst, kind);
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
        errors.push(K::InlineAsmOperandCount {
            expected: want.len(),
            found: args.len(),
        });
    }
    for (k, (&a, &t)) in args.iter().zip(&want).enumerate() {
        if dfg.value_type(a) != t {
            errors.push(K::InlineAsmOperand {
                index: k,
                expected: t,
                found: dfg.value_type(a),
            });
        }
    }
    for (k, (&r, t)) in dfg
        .inst_results(inst)
        .iter()
        .zip(asm.result_types())
        .enumerate()
    {
        if dfg.value_type(r) != t {
            errors.push(K::InlineAsmResult {
                index: k,
                expected: t,
            });
        }
    }
    let count = asm.outputs.len() + asm.inputs.len();
    if let Err(reason) = asm_substitute(&asm.template, count, |_| String::new()) {
        errors.push(K::InlineAsmTemplate { reason });
    }
    for e in errors {
        cx.at_inst(inst, e);
    }
}

/// Operand count, operand types and spaces, and result types of an
/// `accel` instruction, all as [`AccelOp`] describes them.
fn check_accel(cx: &mut Ctx, inst: Inst, op: AccelOp, args: &[Value]) {
    let dfg = &cx.func.dfg;
    if let Some(reason) = op.modifier_error() {
        cx.at_inst(inst, K::AccelModifiers { reason });
    }
    let kinds = op.operand_kinds();
    if kinds.len() != args.len() {
        let kind = K::AccelOperandCount {
            opcode: op.opcode(),
            expected: kinds.len(),
            found: args.len(),
        };
        cx.at_inst(inst, kind);
        return;
    }
    let mut errors = Vec::new();
    for (k, (&a, kind)) in args.iter().zip(kinds).enumerate() {
        let t = dfg.value_type(a);
        match kind {
            OperandKind::Ty(want) if t != want => {
                errors.push(K::AccelOperandType {
                    opcode: op.opcode(),
                    index: k,
                    expected: want,
                    found: t,
                });
            }
            OperandKind::Ptr(spaces) if !matches!(t, Type::Ptr(s) if spaces.contains(&s)) => {
                errors.push(K::AccelOperandSpace {
                    opcode: op.opcode(),
                    index: k,
                    spaces,
                    found: t,
                });
            }
            _ => {}
        }
    }
    let results = &dfg.results[inst];
    for (k, (&r, want)) in results.iter().zip(op.result_types()).enumerate() {
        let t = dfg.value_type(r);
        if t != want {
            errors.push(K::AccelResult {
                opcode: op.opcode(),
                index: k,
                expected: want,
                found: t,
            });
        }
    }
    for e in errors {
        cx.at_inst(inst, e);
    }
}

/// The rule converting `from` to `to` with `op` breaks, if any.
fn check_conversion(op: Opcode, from: Type, to: Type) -> Option<K> {
    let both_int = from.is_int() && to.is_int();
    let both_float = from.is_float() && to.is_float();
    let int_not_i1 = |t: Type| t.is_int() && t != Type::I1;
    let widens = from.bits() < to.bits();
    let narrows = from.bits() > to.bits();
    let opcode = op;
    let kind = match op {
        Opcode::Sext | Opcode::Zext | Opcode::Trunc if !both_int => {
            K::ConvertNeedsIntegers { opcode, from, to }
        }
        Opcode::Sext | Opcode::Zext if !widens => K::ConvertMustWiden { opcode, from, to },
        Opcode::Trunc if !narrows => K::ConvertMustNarrow { opcode, from, to },
        Opcode::Fpext | Opcode::Fptrunc if !both_float => {
            K::ConvertNeedsFloats { opcode, from, to }
        }
        Opcode::Fpext if !widens => K::ConvertMustWiden { opcode, from, to },
        Opcode::Fptrunc if !narrows => K::ConvertMustNarrow { opcode, from, to },
        Opcode::Sitofp | Opcode::Uitofp if !int_not_i1(from) || !to.is_float() => {
            K::IntToFloat { opcode, from, to }
        }
        Opcode::Fptosi | Opcode::Fptoui if !from.is_float() || !int_not_i1(to) => {
            K::FloatToInt { opcode, from, to }
        }
        Opcode::Bitcast if from.is_ptr() || to.is_ptr() => K::BitcastPointers { from, to },
        Opcode::Bitcast if from.bits() != to.bits() => K::BitcastWidth { from, to },
        Opcode::Ptrtoint if !from.is_ptr() => K::PtrtointOperand { from },
        Opcode::Ptrtoint if to != pointer_int(from) => K::PtrtointResult {
            from,
            expected: pointer_int(from),
            to,
        },
        Opcode::Inttoptr if !to.is_ptr() => K::InttoptrResult { to },
        Opcode::Inttoptr if from != pointer_int(to) => K::InttoptrOperand {
            to,
            expected: pointer_int(to),
            from,
        },
        _ => return None,
    };
    Some(kind)
}

/// The integer type as wide as a pointer type.
fn pointer_int(ptr: Type) -> Type {
    if ptr.bits() == 32 {
        Type::I32
    } else {
        Type::I64
    }
}
