//! `hoist-loads`: move invariant loads out of loops, into a preheader.
//!
//! A load marked `invariant` reads memory that nothing writes while the
//! kernel runs (`mark-invariant` proved it), so it gives the same value on
//! every iteration as long as its address does not change. Such a load is
//! moved to the loop's preheader when
//!
//! 1. it is not volatile;
//! 2. its pointer is defined outside the loop (so the address is the same
//!    on every iteration, and it is available in the preheader: a value
//!    used in the loop and defined outside dominates the header, hence the
//!    preheader too);
//! 3. it would have run anyway: it sits in the loop header, which runs
//!    every time the preheader does, or in a block that dominates every
//!    latch and every exiting block, so each iteration that ends (back to
//!    the header or out of the loop) has run it. A load can fault, so a load
//!    that the program might skip (an `if` in the body, a `while` body that
//!    runs zero times) is never executed early.
//!
//! Loops are the natural loops of the cached `LoopAnalysis`, inner loops
//! first. When the header has more than one entering edge, or
//! its one entering block has other successors, a preheader block is made:
//! it takes the header's parameters and jumps to the header, and every
//! entering edge goes to it instead. Loops are processed repeatedly, so a
//! load hoisted out of an inner loop can continue out of the outer one; a
//! round that made a preheader drops the analyses, and the next round asks
//! for them afresh.

use super::Changed;
use crate::analysis::{Analyses, Cfg, DominatorTree, Loop};
use crate::ir::{Block, BlockCall, Function, Inst, InstData, LayoutEdits, ValueDef};
use std::collections::BTreeSet;

/// The pass-table entry; returns what changed (the CFG too, when a loop
/// was given a preheader).
pub fn hoist_invariant_loads(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let mut changed = Changed::Nothing;
    // Each round moves at least one load out of one loop level; the number
    // of loads times the nesting depth bounds it, the cap guards bugs.
    for _ in 0..64 {
        let round = hoist_round(func, analyses);
        if !round.any() {
            break;
        }
        if round == Changed::Cfg {
            analyses.cfg_changed();
        }
        changed |= round;
    }
    changed
}

/// Hoists what it can out of the first loop that has something; returns
/// what changed (the CFG, when the loop needed a preheader).
fn hoist_round(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let Cfg { domtree, loops, .. } = analyses.cfg(func);
    for lp in &loops.loops {
        let candidates = candidates(func, domtree, lp);
        if candidates.is_empty() {
            continue;
        }
        let (pre, made) = preheader(func, lp);
        let Some(term) = func.layout.last_inst(pre) else {
            continue;
        };
        // Moved in one sweep per block touched.
        let mut edits = LayoutEdits::default();
        for load in candidates {
            edits.remove(load);
            edits.insert_before(load, term);
        }
        func.layout.apply(edits);
        return if made { Changed::Cfg } else { Changed::Insts };
    }
    Changed::Nothing
}

/// The loads of `lp` that may move to its preheader, in program order.
fn candidates(func: &Function, domtree: &DominatorTree, lp: &Loop) -> Vec<Inst> {
    let exiting = lp.exiting_blocks();
    let mut moved: BTreeSet<Inst> = BTreeSet::new();
    let mut out = Vec::new();
    for &block in &lp.blocks {
        let always = block == lp.header
            || exiting
                .iter()
                .chain(&lp.latches)
                .all(|&e| domtree.dominates(block, e));
        if !always {
            continue;
        }
        for &inst in func.layout.block_insts(block) {
            let InstData::Load { ptr, flags, .. } = &func.dfg.insts[inst] else {
                continue;
            };
            if !flags.invariant || flags.volatile {
                continue;
            }
            let outside = match func.dfg.value_def(func.dfg.resolve_aliases(*ptr)) {
                ValueDef::Result(def, _) => {
                    moved.contains(&def)
                        || func
                            .layout
                            .inst_block(def)
                            .is_some_and(|b| !lp.blocks.contains(&b))
                }
                ValueDef::Param(b, _) => !lp.blocks.contains(&b),
                _ => false,
            };
            if outside {
                moved.insert(inst);
                out.push(inst);
            }
        }
    }
    // Keep the loads in an order where each comes after what it uses: the
    // blocks of a loop are sorted by number, so order by dominance.
    out.sort_by_key(|&i| {
        let b = func.layout.inst_block(i).expect("placed");
        let depth = domtree
            .reverse_post_order()
            .iter()
            .position(|&x| x == b)
            .unwrap_or(0);
        let pos = func
            .layout
            .block_insts(b)
            .iter()
            .position(|&x| x == i)
            .unwrap_or(0);
        (depth, pos)
    });
    out
}

/// The preheader of `lp`, made if there is none: the one block outside
/// the loop that enters it, with the header as its only successor. Says
/// whether it was made. (Unlike [`Loop::preheader`], an unreachable block
/// that enters the loop counts here, and a new preheader goes at the end
/// of the layout.)
fn preheader(func: &mut Function, lp: &Loop) -> (Block, bool) {
    let entering = &lp.entering;
    if let [only] = entering.as_slice() {
        if func.successors(*only).iter().all(|&s| s == lp.header)
            && Some(lp.header) != func.entry_block()
        {
            return (*only, false);
        }
    }
    let pre = func.dfg.make_block();
    func.layout.append_block(pre);
    let types: Vec<_> = func
        .dfg
        .block_params(lp.header)
        .iter()
        .map(|&p| func.dfg.value_type(p))
        .collect();
    let args: Vec<_> = types
        .into_iter()
        .map(|t| func.dfg.append_block_param(pre, t))
        .collect();
    for &b in entering {
        if let Some(term) = func.layout.last_inst(b) {
            for dest in func.dfg.insts[term].branch_destinations_mut() {
                if dest.block == lp.header {
                    dest.block = pre;
                }
            }
        }
    }
    let jump = InstData::Jump {
        dest: BlockCall::new(lp.header, args),
    };
    func.append_inst(pre, jump, &[]);
    (pre, true)
}
