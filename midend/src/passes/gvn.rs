//! Global value numbering: an instruction that computes exactly what an
//! earlier instruction in a dominating position computed is replaced by that
//! earlier result.
//!
//! The frontend recomputes `i * 4` for every `a[i]`; after this pass each
//! address is computed once. Only pure instructions take part: loads may see
//! different memory, `%warpid` and the clocks change while a thread runs, and
//! a warp collective (`shfl`, `vote`) depends on which lanes execute it.

use crate::analysis::DominatorTree;
use crate::ir::{Block, Function, Inst, InstData, Opcode, Value};
use std::collections::HashMap;

/// Whether two instances of `data` with equal operands always give equal results.
fn is_pure(data: &InstData) -> bool {
    let op = data.opcode();
    match data {
        InstData::SpecialReg { reg } => reg.is_invariant(),
        InstData::Load { .. } | InstData::Store { .. } | InstData::Call { .. } => false,
        // Two copies of a warp collective may see different active lanes.
        _ if op.is_convergent() => false,
        _ => !op.has_side_effects() && op != Opcode::Trap,
    }
}

/// Replaces redundant computations; returns whether anything changed.
pub fn number_values(func: &mut Function) -> bool {
    let domtree = DominatorTree::compute(func);
    // Key: the instruction's operands and immediates, plus its result types.
    // `Debug` output is a faithful key (floats print their exact value).
    let mut seen: HashMap<String, Vec<(Block, Value)>> = HashMap::new();
    let mut changed = false;
    for &block in domtree.reverse_post_order() {
        let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
        for inst in insts {
            let mut data = func.dfg.insts[inst].clone();
            data.map_args(|v| func.dfg.resolve_aliases(v));
            func.dfg.insts[inst] = data.clone();
            let results = func.dfg.inst_results(inst).to_vec();
            if results.len() != 1 || !is_pure(&data) {
                continue;
            }
            let key = format!("{data:?} -> {}", func.dfg.value_type(results[0]));
            let candidates = seen.entry(key).or_default();
            match candidates
                .iter()
                .find(|&&(b, _)| domtree.dominates(b, block))
            {
                Some(&(_, earlier)) => {
                    func.dfg.change_to_alias(results[0], earlier);
                    func.layout.remove_inst(inst);
                    changed = true;
                }
                None => candidates.push((block, results[0])),
            }
        }
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    changed
}
