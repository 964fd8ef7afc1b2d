//! `cancel-negations`: a negation of a negation is the value itself.
//!
//! The teaching pass of docs/passes.md ("Writing a pass"), which walks
//! through this file line by line; it is in the pass table but in no `-O`
//! pipeline. `ineg (ineg x)`, `bnot (bnot x)` and `fneg (fneg x)` are `x`
//! bit for bit: two's-complement negation and bitwise not are their own
//! inverses, and `fneg` only flips the sign bit, so even a NaN comes back
//! unchanged. `fold` folds the negation of a constant only.

use crate::ir::{Function, InstData, Opcode};

/// Replaces every negation of a negation (of the same kind) by the negated
/// value; returns whether anything changed.
pub fn cancel_negations(func: &mut Function) -> bool {
    let mut gone = rustc_hash::FxHashSet::default();
    let insts: Vec<_> = func.layout.insts().map(|(_, inst)| inst).collect();
    for inst in insts {
        let InstData::Unary { opcode, arg } = func.dfg.insts[inst] else {
            continue;
        };
        if !matches!(opcode, Opcode::Ineg | Opcode::Bnot | Opcode::Fneg) {
            continue;
        }
        let inner = match func.dfg.defining_data(arg) {
            Some(&InstData::Unary { opcode: op, arg: x }) if op == opcode => x,
            _ => continue,
        };
        let result = func.dfg.inst_results(inst)[0];
        func.dfg.change_to_alias(result, inner);
        gone.insert(inst);
    }
    func.layout.remove_insts(&gone);
    if !gone.is_empty() {
        func.dfg.resolve_all_aliases();
    }
    !gone.is_empty()
}
