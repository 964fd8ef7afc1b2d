//! Control-flow cleanup: removes blocks no path from the entry reaches, and
//! merges a block into its predecessor when that predecessor jumps straight
//! to it and nothing else does (the block's parameters become the jump's
//! arguments).
//!
//! The frontend emits a block for every `if`, loop and join point; this pass
//! turns the straight-line pieces back into single blocks.

use crate::ir::{Block, Function, InstData};
use cranelift_entity::SecondaryMap;

/// Cleans the CFG; returns whether anything changed.
pub fn cleanup_cfg(func: &mut Function) -> bool {
    let removed = remove_unreachable_blocks(func);
    let merged = merge_straight_line_blocks(func);
    if merged {
        func.dfg.resolve_all_aliases();
    }
    removed | merged
}

fn remove_unreachable_blocks(func: &mut Function) -> bool {
    let Some(entry) = func.layout.entry_block() else {
        return false;
    };
    let mut reached: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack = vec![entry];
    reached[entry] = true;
    while let Some(b) = stack.pop() {
        for s in func.successors(b) {
            if !reached[s] {
                reached[s] = true;
                stack.push(s);
            }
        }
    }
    let dead: Vec<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|&b| !reached[b])
        .collect();
    for &b in &dead {
        func.layout.remove_block(b);
    }
    !dead.is_empty()
}

fn merge_straight_line_blocks(func: &mut Function) -> bool {
    let mut changed = false;
    loop {
        // Count incoming edges (a `brif` with both arms to one block counts twice).
        let mut edges: SecondaryMap<Block, u32> = SecondaryMap::new();
        for &b in func.layout.blocks() {
            for s in func.successors(b) {
                edges[s] += 1;
            }
        }
        let entry = func.layout.entry_block();
        let candidate = func.layout.blocks().iter().copied().find_map(|pred| {
            let jump = func.layout.last_inst(pred)?;
            let InstData::Jump { dest } = &func.dfg.insts[jump] else {
                return None;
            };
            let succ = dest.block;
            (succ != pred && Some(succ) != entry && edges[succ] == 1).then_some((pred, jump, succ))
        });
        let Some((pred, jump, succ)) = candidate else {
            return changed;
        };
        let InstData::Jump { dest } = func.dfg.insts[jump].clone() else {
            unreachable!()
        };
        let params = func.dfg.block_params(succ).to_vec();
        for (param, arg) in params.into_iter().zip(dest.args) {
            func.dfg.change_to_alias(param, arg);
        }
        func.layout.remove_inst(jump);
        let moved = func.layout.block_insts(succ).to_vec();
        for inst in moved {
            func.layout.remove_inst(inst);
            func.layout.append_inst(inst, pred);
        }
        func.layout.remove_block(succ);
        changed = true;
    }
}
