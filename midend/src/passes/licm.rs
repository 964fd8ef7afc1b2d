//! `licm`: loop-invariant code motion of pure values.
//!
//! An instruction inside a loop whose operands are all defined outside the
//! loop computes the same value on every iteration. If it is *pure* (no
//! effect, no memory read, the same result for the same operands), it can
//! run once, in the loop's preheader, instead. Moving it out makes its
//! users' operands loop-invariant in turn, so one walk over the loop's
//! blocks in reverse post-order (definitions before uses) finds whole
//! invariant chains: `blockDim.x * gridDim.x`, the address `p + 4 * n`, ...
//!
//! What stays:
//! - loads (the `hoist-loads` pass moves the invariant ones it can prove
//!   safe), stores, calls, atomics and everything with an effect;
//! - warp collectives and other convergent instructions: the set of lanes
//!   that runs them matters, and the preheader may run with other lanes;
//! - reads of special registers that change while a thread runs (clocks,
//!   `%warpid`, `%activemask`).
//!
//! Pure instructions never fault (the interpreter and PTX both define
//! division by zero), so an instruction is moved even from a block that
//! not every iteration runs: at worst it computes a value nobody reads.
//! Constants are placed wherever they are first needed and cost nothing
//! (instruction selection folds them into immediates), so a constant moves
//! only when a moved instruction uses it.
//!
//! Loops are visited inner first. A value hoisted out of an inner loop lands
//! in the inner preheader, which belongs to the outer loop, where the same
//! walk may move it again.

use super::Changed;
use crate::analysis::{ensure_preheader, Analyses, Cfg};
use crate::ir::{Block, Function, Inst, InstData, LayoutEdits, Value, ValueDef};
use rustc_hash::{FxHashMap, FxHashSet};

/// Whether `data` may run at another place and time with the same result
/// and no other effect.
fn is_movable(data: &InstData) -> bool {
    let op = data.opcode();
    match data {
        InstData::SpecialReg { reg } => reg.is_invariant(),
        InstData::Load { .. } | InstData::Store { .. } | InstData::Call { .. } => false,
        InstData::Iconst { .. } | InstData::Fconst { .. } => false,
        _ if op.is_convergent() || op.is_terminator() => false,
        _ => !op.has_side_effects(),
    }
}

fn is_constant(data: &InstData) -> bool {
    matches!(data, InstData::Iconst { .. } | InstData::Fconst { .. })
}

/// The pass-table entry; returns what changed (the CFG too, when a
/// preheader was made).
pub fn hoist_loop_invariants(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let Cfg { domtree, loops, .. } = analyses.cfg(func);
    // A copy: making preheaders updates it.
    let mut loops = loops.clone();
    let rpo_index: FxHashMap<Block, usize> = domtree
        .reverse_post_order()
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    let mut changed = false;
    // Made preheaders, placed at the end just before their headers.
    let mut made: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    for index in 0..loops.loops.len() {
        let lp = &loops.loops[index];
        let mut blocks: Vec<Block> = lp.blocks.iter().copied().collect();
        // Made preheaders of inner loops are not in the RPO: they come
        // right before their header, which the key gives them.
        blocks.sort_by_key(|&b| match rpo_index.get(&b) {
            Some(&i) => 2 * i + 1,
            None => func
                .successors(b)
                .first()
                .and_then(|h| rpo_index.get(h))
                .map_or(usize::MAX, |&i| 2 * i),
        });
        let mut moved: FxHashSet<Value> = FxHashSet::default();
        let mut to_move: Vec<Inst> = Vec::new();
        for &block in &blocks {
            for &inst in func.layout.block_insts(block) {
                let data = &func.dfg.insts[inst];
                if !is_movable(data) || func.dfg.inst_results(inst).len() != 1 {
                    continue;
                }
                let mut consts = Vec::new();
                let invariant = data.arguments().into_iter().all(|a| {
                    let a = func.dfg.resolve_aliases(a);
                    if moved.contains(&a) {
                        return true;
                    }
                    match func.dfg.value_def(a) {
                        ValueDef::Result(def, _) => match func.layout.inst_block(def) {
                            Some(b) if lp.contains(b) && is_constant(&func.dfg.insts[def]) => {
                                consts.push(def);
                                true
                            }
                            Some(b) if lp.contains(b) => false,
                            Some(_) => true,
                            None => false,
                        },
                        ValueDef::Param(b, _) => !lp.contains(b),
                        _ => false,
                    }
                });
                if !invariant {
                    continue;
                }
                for c in consts {
                    let v = func.dfg.inst_results(c)[0];
                    if moved.insert(v) {
                        to_move.push(c);
                    }
                }
                moved.insert(func.dfg.inst_results(inst)[0]);
                to_move.push(inst);
            }
        }
        if to_move.iter().all(|&i| is_constant(&func.dfg.insts[i])) {
            continue;
        }
        let (pre, new) = ensure_preheader(func, &mut loops, index);
        if new {
            made.insert(loops.loops[index].header, vec![pre]);
        }
        let term = func
            .layout
            .last_inst(pre)
            .expect("a preheader ends in a jump");
        // One sweep per block touched (moving them one by one cost a scan
        // of the body and of the preheader each).
        let mut edits = LayoutEdits::default();
        for inst in to_move {
            edits.remove(inst);
            edits.insert_before(inst, term);
        }
        func.layout.apply(edits);
        changed = true;
    }
    func.layout.insert_blocks_before(&made);
    if changed {
        func.dfg.resolve_all_aliases();
    }
    if made.is_empty() {
        Changed::insts_if(changed)
    } else {
        Changed::Cfg
    }
}
