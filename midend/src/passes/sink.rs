//! `sink`: integer and address arithmetic moves down to the block that
//! reads it, past the branches in between.
//!
//! `iou[i] = ua > 0 ? inter / ua : 0` lowers the store's address
//! `iou + i * 4` before the branch around the division (the frontend
//! evaluates an assignment's target first), and the store after the join.
//! The address is then live through the division, whose slow path is a
//! called subroutine in SASS, and ptxas does not move it: the kernel took
//! 20 registers where nvcc's, which computes the address after the join,
//! takes 16.
//!
//! ```text
//! block2:                                   block2:
//!     v40 = sext.i64 v9                         v26 = fcmp ogt v25, v27
//!     v41 = imul v40, v14                       brif v26, block3, block4(v27)
//!     v42 = ptroffset v2, v41        ==>    block3: ...
//!     v26 = fcmp ogt v25, v27               block4(v30: f32):
//!     brif v26, block3, block4(v27)             v40 = sext.i64 v9
//! block3: ...                                   v41 = imul v40, v14
//! block4(v30: f32):                             v42 = ptroffset v2, v41
//!     store v30, v42                            store v30, v42
//! ```
//!
//! An instruction moves when it is integer or address arithmetic that
//! cannot trap (`iadd`, `imul`, shifts, `ptroffset`, `sext`, ...), all its
//! readers are in one other block, and that block is in the same loop (so
//! it does not run more often). It goes to the top of that block. Readers
//! are visited before what they read, so a chain moves together; a second
//! round moves what a move in a later block made movable.

use super::Changed;
use crate::analysis::{Analyses, Cfg};
use crate::ir::{Block, Function, Inst, InstData, Opcode, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass-table entry; returns what changed (instructions move between
/// blocks; the CFG stays).
pub fn sink_values(func: &mut Function, analyses: &mut Analyses) -> Changed {
    if func.layout.entry_block().is_none() {
        return Changed::Nothing;
    }
    let Cfg { domtree, loops, .. } = analyses.cfg(func);
    let innermost = loops.innermost_map();
    let mut changed = false;
    for _ in 0..2 {
        let mut readers: FxHashMap<Value, Vec<Inst>> = FxHashMap::default();
        for (_, inst) in func.layout.insts() {
            func.dfg.insts[inst].for_each_arg(|v| {
                readers
                    .entry(func.dfg.resolve_aliases(v))
                    .or_default()
                    .push(inst);
            });
        }
        // Decisions, readers first; `moved` is where each moving
        // instruction will be.
        let mut moved: FxHashMap<Inst, Block> = FxHashMap::default();
        let mut order: Vec<(Block, Inst)> = Vec::new();
        for &b in func.layout.blocks() {
            for &inst in func.layout.block_insts(b).iter().rev() {
                if !sinkable(&func.dfg.insts[inst]) {
                    continue;
                }
                let [res] = func.dfg.inst_results(inst) else {
                    continue;
                };
                let Some(users) = readers.get(res) else {
                    continue;
                };
                let mut target = None;
                let mut one_block = true;
                for u in users {
                    let ub = moved.get(u).copied().or_else(|| func.layout.inst_block(*u));
                    match target {
                        None => target = ub,
                        Some(t) if Some(t) == ub => {}
                        Some(_) => one_block = false,
                    }
                }
                let Some(u) = target.filter(|_| one_block) else {
                    continue;
                };
                if u == b || innermost.get(&u) != innermost.get(&b) || !domtree.dominates(b, u) {
                    continue;
                }
                moved.insert(inst, u);
                order.push((u, inst));
            }
        }
        if order.is_empty() {
            break;
        }
        changed = true;
        let set: FxHashSet<Inst> = order.iter().map(|&(_, i)| i).collect();
        func.layout.remove_insts(&set);
        // Readers were decided first: in reverse, what they read comes
        // above them. One splice per block.
        let mut tops: FxHashMap<Block, Vec<Inst>> = FxHashMap::default();
        let mut targets = Vec::new();
        for &(u, inst) in order.iter().rev() {
            let list = tops.entry(u).or_default();
            if list.is_empty() {
                targets.push(u);
            }
            list.push(inst);
        }
        for u in targets {
            func.layout.prepend_insts(u, &tops[&u]);
        }
    }
    Changed::insts_if(changed)
}

/// Integer and address arithmetic that cannot trap.
fn sinkable(data: &InstData) -> bool {
    use Opcode::*;
    match data {
        InstData::Binary { opcode, .. } => matches!(
            opcode,
            Iadd | Isub
                | Imul
                | Band
                | Bor
                | Bxor
                | Ishl
                | Ushr
                | Sshr
                | Smin
                | Smax
                | Umin
                | Umax
                | PtrOffset
        ),
        InstData::Convert { opcode, .. } => matches!(opcode, Sext | Zext | Trunc),
        _ => false,
    }
}
