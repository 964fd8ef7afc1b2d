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
use std::collections::{HashMap, HashSet};

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
///
/// The blocks are visited in dominator-tree preorder with a scoped table:
/// entering a block adds its computations, leaving its dominator subtree
/// takes them out again, so whatever the table holds dominates the current
/// block. Each lookup is then a single hash probe.
pub fn number_values(func: &mut Function) -> bool {
    let domtree = DominatorTree::compute(func);
    // Key: the instruction's operands and immediates, plus its result type.
    // `Debug` output is a faithful key for everything but a float constant,
    // whose NaNs all print as `NaN`: those are keyed by their bits.
    let mut table: HashMap<String, Value> = HashMap::new();
    // Keys added per block, to undo when its subtree is done.
    let mut added: Vec<(Block, Vec<String>)> = Vec::new();
    let mut dead = HashSet::new();
    for &block in domtree.preorder() {
        // Leave the subtrees of blocks that do not dominate this one.
        while let Some((top, _)) = added.last() {
            if domtree.dominates(*top, block) {
                break;
            }
            let (_, keys) = added.pop().expect("checked above");
            for k in keys {
                table.remove(&k);
            }
        }
        let mut keys = Vec::new();
        let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
        for inst in insts {
            let mut data = func.dfg.insts[inst].clone();
            data.map_args(|v| func.dfg.resolve_aliases(v));
            func.dfg.insts[inst] = data.clone();
            let results = func.dfg.inst_results(inst).to_vec();
            if results.len() != 1 || !is_pure(&data) {
                continue;
            }
            let key = match &data {
                InstData::Fconst { ty, value } => format!("fconst {ty} {:#x}", value.to_bits()),
                _ => format!("{data:?} -> {}", func.dfg.value_type(results[0])),
            };
            match table.get(&key) {
                Some(&earlier) => {
                    func.dfg.change_to_alias(results[0], earlier);
                    dead.insert(inst);
                }
                None => {
                    table.insert(key.clone(), results[0]);
                    keys.push(key);
                }
            }
        }
        added.push((block, keys));
    }
    let changed = !dead.is_empty();
    func.layout.remove_insts(&dead);
    if changed {
        func.dfg.resolve_all_aliases();
    }
    changed
}
