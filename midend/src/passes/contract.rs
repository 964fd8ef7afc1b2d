//! Floating-point contraction: `a * b + c` computed with one rounding.
//!
//! nvcc contracts by default (`--fmad=true`): the product of a multiply that
//! feeds only an add or a subtract is not rounded on its own, and the pair
//! becomes one `fma`. The result is usually more accurate, always faster,
//! and *different* from the two separately rounded operations, so this is a
//! choice of floating-point semantics rather than an optimization. kernelc
//! therefore runs it first, at every `-O` level including `-O0`, whenever
//! `--fmad=true`: every level computes the same bits. Only `f32` and `f64`
//! contract: CUDA rounds each 16-bit operation (`__hmul`, `__hadd`) alone.
//!
//! Patterns (the multiply must have no other use, or it would be computed
//! twice):
//! - `fadd (fmul a, b), c` and `fadd c, (fmul a, b)` → `fma a, b, c`
//! - `fsub (fmul a, b), c` → `fma a, b, (fneg c)`
//! - `fsub c, (fmul a, b)` → `fma (fneg a), b, c`

use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{Function, Inst, InstData, Opcode, Type, Value, ValueDef};
use cranelift_entity::SecondaryMap;

/// Contracts multiply-add pairs; returns whether anything changed.
pub fn contract_fma(func: &mut Function) -> bool {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    for (_, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| uses[func.dfg.resolve_aliases(v)] += 1);
    }
    // The single-use `fmul` that defines `v`, as its operands.
    let product = |func: &Function, uses: &SecondaryMap<Value, u32>, v: Value| {
        let v = func.dfg.resolve_aliases(v);
        let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
            return None;
        };
        match func.dfg.insts[inst] {
            InstData::Binary {
                opcode: Opcode::Fmul,
                args,
            } if uses[v] == 1 && func.layout.inst_block(inst).is_some() => Some((inst, args)),
            _ => None,
        }
    };
    let mut changed = false;
    let mut fused = rustc_hash::FxHashSet::default();
    let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
    for inst in insts {
        let InstData::Binary {
            opcode,
            args: [x, y],
        } = func.dfg.insts[inst]
        else {
            continue;
        };
        if !matches!(opcode, Opcode::Fadd | Opcode::Fsub) {
            continue;
        }
        // CUDA's 16-bit operations (`__hadd`, `__hmul`) are each rounded:
        // nvcc writes them as separate instructions, never as one `fma`.
        if !matches!(func.dfg.value_type(x), Type::F32 | Type::F64) {
            continue;
        }
        // Which operand is the product, and how the other one enters.
        let (mul, [a, b], c, negate_c, negate_a) = match (opcode, product(func, &uses, x)) {
            (_, Some((m, ab))) => (m, ab, y, opcode == Opcode::Fsub, false),
            (Opcode::Fadd, None) => match product(func, &uses, y) {
                Some((m, ab)) => (m, ab, x, false, false),
                None => continue,
            },
            (_, None) => match product(func, &uses, y) {
                Some((m, ab)) => (m, ab, x, false, true),
                None => continue,
            },
        };
        let mut cur = FuncCursor::before(func, inst);
        let a = if negate_a {
            cur.unary(Opcode::Fneg, a)
        } else {
            a
        };
        let c = if negate_c {
            cur.unary(Opcode::Fneg, c)
        } else {
            c
        };
        // The add keeps its result value; only its data changes.
        func.dfg.insts[inst] = InstData::Ternary {
            opcode: Opcode::Fma,
            args: [a, b, c],
        };
        fused.insert(mul);
        changed = true;
    }
    func.layout.remove_insts(&fused);
    changed
}
