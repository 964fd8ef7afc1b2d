//! `merge-arms`: memory accesses that both arms of an `if`/`else` make on
//! the same address are made once, outside the arms.
//!
//! ```c
//! if (tid >= offset) buf[pout][tid] = buf[pin][tid] + buf[pin][tid - offset];
//! else               buf[pout][tid] = buf[pin][tid];
//! ```
//!
//! Both arms load `buf[pin][tid]` and both store to `buf[pout][tid]`. After
//! `gvn` the two arms use the same address values, and this pass
//!
//! - **hoists a load** that both arms make from the same address, before
//!   anything in the arm that writes memory or synchronizes, to the end of
//!   the branching block: the load ran on every path through the branch
//!   anyway, at the same point in the order of memory effects;
//! - **sinks a store** that ends both arms, to the same address, into the
//!   block where they join (when only the two arms lead there, and one arm
//!   does nothing but the store): the join gets a parameter for the stored
//!   value, each arm passes its own, and one store at the top of the join
//!   writes it. The `if`/`else` becomes an `if` that computes a value.
//!
//! What is left in the arms is often a single `add` or nothing, which
//! `cfg-cleanup` and the backend's predication finish. An arm that only
//! defines constants and jumps (`c ? p[i] : 0.0f`) has them moved up to
//! the branching block first, so that it is empty and the branch passes
//! the constant to the join itself.
//!
//! The arms must be entered only from the branch (so the hoisted load does
//! not move onto another path), volatile accesses are never touched, and
//! the two accesses must agree on type, alignment and alias information.

use super::Changed;
use crate::analysis::Analyses;
use crate::ir::{Block, BlockCall, Function, Inst, InstData};
use cranelift_entity::SecondaryMap;

/// How far into an arm a hoisted load may sit (instructions before it).
const MAX_SCAN: usize = 32;

/// The pass-table entry; returns what changed (instructions move between
/// blocks and join blocks gain parameters; the CFG stays).
pub fn merge_arms(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let preds = analyses.preds(func);
    let mut changed = hoist_constants_of_jump_blocks(func, preds);
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for &a in &blocks {
        while hoist_one_load(func, a, preds) {
            changed = true;
        }
    }
    for &j in &blocks {
        while sink_one_store(func, j, preds) {
            changed = true;
        }
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    Changed::insts_if(changed)
}

/// Whether an instruction ends the stretch of an arm where a load may be
/// moved up from: anything that writes memory or has another effect.
fn blocks_hoisting(data: &InstData) -> bool {
    match data {
        InstData::Load { flags, .. } => flags.volatile,
        _ => data.opcode().has_side_effects(),
    }
}

/// The non-volatile loads at the start of `b` (before any effect), with
/// their address.
fn leading_loads(func: &Function, b: Block) -> Vec<Inst> {
    let mut out = Vec::new();
    for &inst in func.layout.block_insts(b).iter().take(MAX_SCAN) {
        let data = &func.dfg.insts[inst];
        if blocks_hoisting(data) {
            break;
        }
        if matches!(data, InstData::Load { .. }) {
            out.push(inst);
        }
    }
    out
}

fn hoist_one_load(func: &mut Function, a: Block, preds: &SecondaryMap<Block, Vec<Block>>) -> bool {
    let Some(term) = func.layout.last_inst(a) else {
        return false;
    };
    let InstData::Brif {
        then_dest,
        else_dest,
        ..
    } = &func.dfg.insts[term]
    else {
        return false;
    };
    let (b1, b2) = (then_dest.block, else_dest.block);
    if b1 == b2 || b1 == a || b2 == a || preds[b1].len() != 1 || preds[b2].len() != 1 {
        return false;
    }
    let loads2 = leading_loads(func, b2);
    for l1 in leading_loads(func, b1) {
        let Some(&l2) = loads2
            .iter()
            .find(|&&l2| func.dfg.insts[l2] == func.dfg.insts[l1])
        else {
            continue;
        };
        let (Some(r1), Some(r2)) = (func.dfg.first_result(l1), func.dfg.first_result(l2)) else {
            continue;
        };
        if func.dfg.value_type(r1) != func.dfg.value_type(r2) {
            continue;
        }
        func.layout.remove_inst(l1);
        func.layout.insert_inst_before(l1, term);
        func.layout.remove_inst(l2);
        func.dfg.change_to_alias(r2, r1);
        return true;
    }
    false
}

fn sink_one_store(func: &mut Function, j: Block, preds: &SecondaryMap<Block, Vec<Block>>) -> bool {
    let [p1, p2] = preds[j].as_slice() else {
        return false;
    };
    let (p1, p2) = (*p1, *p2);
    if p1 == p2 || p1 == j || p2 == j {
        return false;
    }
    // Each arm: `...; store v, p; jump j(args)`.
    let tail = |b: Block| -> Option<(Inst, Inst)> {
        let insts = func.layout.block_insts(b);
        let [.., store, jump] = insts else {
            return None;
        };
        match (&func.dfg.insts[*store], &func.dfg.insts[*jump]) {
            (InstData::Store { flags, .. }, InstData::Jump { dest })
                if !flags.volatile && dest.block == j =>
            {
                Some((*store, *jump))
            }
            _ => None,
        }
    };
    let (Some((s1, j1)), Some((s2, j2))) = (tail(p1), tail(p2)) else {
        return false;
    };
    // Only when an arm does nothing else: the `if`/`else` becomes an `if`
    // with the store after it. Two busy arms keep their stores, so the
    // backend still sees two separate paths (and does not run both arms'
    // loads at once, in more registers).
    if func.layout.block_insts(p1).len() != 2 && func.layout.block_insts(p2).len() != 2 {
        return false;
    }
    let (
        InstData::Store {
            value: v1,
            ptr: ptr1,
            flags: f1,
        },
        InstData::Store {
            value: v2,
            ptr: ptr2,
            flags: f2,
        },
    ) = (&func.dfg.insts[s1], &func.dfg.insts[s2])
    else {
        return false;
    };
    let (v1, v2) = (*v1, *v2);
    if ptr1 != ptr2 || f1 != f2 || func.dfg.value_type(v1) != func.dfg.value_type(v2) {
        return false;
    }
    let ty = func.dfg.value_type(v1);
    let param = func.dfg.append_block_param(j, ty);
    for (jump, v) in [(j1, v1), (j2, v2)] {
        if let InstData::Jump { dest } = &mut func.dfg.insts[jump] {
            let mut args = dest.args.clone();
            args.push(v);
            *dest = BlockCall::new(j, args);
        }
    }
    // One store at the top of the join; the other goes.
    func.layout.remove_inst(s2);
    func.layout.remove_inst(s1);
    if let InstData::Store { value, .. } = &mut func.dfg.insts[s1] {
        *value = param;
    }
    match func.layout.block_insts(j).first() {
        Some(&first) => func.layout.insert_inst_before(s1, first),
        None => func.layout.append_inst(s1, j),
    }
    true
}

/// A block that holds nothing but constants and a jump (`block2: v9 =
/// fconst.f32 0.0; jump block3(v9)`, the `: 0.0f` arm of `c ? p[i] : 0.0f`)
/// and has one predecessor gets its constants moved to the end of that
/// predecessor, which dominates it. A constant costs nothing where it is
/// defined (the backend writes it into each use), and the block is then
/// empty, so the branch can go straight to the join with the constant as
/// its argument. This runs here, late in the pipeline (after the loop
/// passes, whose loop shapes it would change), and the `simplify` after
/// `merge-arms` threads the emptied blocks.
fn hoist_constants_of_jump_blocks(
    func: &mut Function,
    preds: &SecondaryMap<Block, Vec<Block>>,
) -> bool {
    let entry = func.layout.entry_block();
    let mut changed = false;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for b in blocks {
        let insts = func.layout.block_insts(b).to_vec();
        let (Some((&last, consts)), &[pred]) = (insts.split_last(), preds[b].as_slice()) else {
            continue;
        };
        let only_constants = consts.iter().all(|&i| {
            matches!(
                func.dfg.insts[i],
                InstData::Iconst { .. } | InstData::Fconst { .. }
            )
        });
        if Some(b) == entry
            || pred == b
            || consts.is_empty()
            || !only_constants
            || !matches!(func.dfg.insts[last], InstData::Jump { .. })
        {
            continue;
        }
        let Some(at) = func.layout.last_inst(pred) else {
            continue;
        };
        for &i in consts {
            func.layout.remove_inst(i);
            func.layout.insert_inst_before(i, at);
        }
        changed = true;
    }
    changed
}
