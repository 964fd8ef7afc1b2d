//! Control-flow cleanup: skips blocks that only jump on, removes blocks no
//! path from the entry reaches, and merges a block into its predecessor when
//! that predecessor jumps straight to it and nothing else does (the block's
//! parameters become the jump's arguments). A block that one edge enters
//! takes that edge's arguments in place of its parameters.
//!
//! The frontend emits a block for every `if`, loop and join point; this pass
//! turns the straight-line pieces back into single blocks.

use super::Changed;
use crate::ir::{Block, Function, InstData, Type};
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet;

/// Cleans the CFG; returns what changed (only block parameters, when the
/// blocks and edges stayed).
pub fn cleanup_cfg(func: &mut Function) -> Changed {
    let threaded = thread_empty_blocks(func);
    let selected = select_between_edges(func);
    let removed = remove_unreachable_blocks(func);
    let merged = merge_straight_line_blocks(func);
    let forwarded = forward_single_edge_params(func);
    if merged || forwarded {
        func.dfg.resolve_all_aliases();
    }
    Changed::cfg_if(threaded | selected | removed | merged) | Changed::insts_if(forwarded)
}

/// A `brif` whose two edges enter the same block (what skipping the empty
/// `then` block of `if (d < best) { best = d; bi = c; }` leaves) only
/// chooses the arguments: it becomes a `jump` with a `select` for each
/// argument that differs between the edges. Nothing is computed on a path
/// that did not compute it before; the branch and a copy on each edge go.
/// Arguments of type `i1` keep the branch (PTX has no `selp` for
/// predicates).
fn select_between_edges(func: &mut Function) -> bool {
    let mut changed = false;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for b in blocks {
        let Some(term) = func.layout.last_inst(b) else {
            continue;
        };
        let InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } = &func.dfg.insts[term]
        else {
            continue;
        };
        if then_dest.block != else_dest.block {
            continue;
        }
        let differing_i1 = then_dest.args.iter().zip(&else_dest.args).any(|(&t, &e)| {
            let (t, e) = (func.dfg.resolve_aliases(t), func.dfg.resolve_aliases(e));
            t != e && func.dfg.value_type(t) == Type::I1
        });
        if differing_i1 {
            continue;
        }
        let (cond, dest) = (*cond, then_dest.block);
        let (then_args, else_args) = (then_dest.args.clone(), else_dest.args.clone());
        super::if_convert::jump_selecting(func, term, cond, dest, &then_args, &else_args);
        changed = true;
    }
    changed
}

/// The jump of a block that holds nothing else and goes to another block.
pub(super) fn only_jump(func: &Function, b: Block) -> Option<&crate::ir::BlockCall> {
    match func.layout.block_insts(b) {
        [only] => match &func.dfg.insts[*only] {
            InstData::Jump { dest } if dest.block != b => Some(dest),
            _ => None,
        },
        _ => None,
    }
}

/// A block that only jumps on (`block8: jump block2(v1)`) is skipped:
/// branches to it go straight to its target. The jump's arguments are
/// defined in blocks that dominate the empty block, so they also dominate
/// every branch into it, and can be passed from there. A block with
/// parameters that only forwards them (`block25(v1, v2): jump block8(v1,
/// v2)`, what a loop pass leaves when it made a preheader and moved nothing
/// into it) is skipped too, with each branch's own arguments put in the
/// parameters' places, when nothing else reads the parameters.
fn thread_empty_blocks(func: &mut Function) -> bool {
    let entry = func.layout.entry_block();
    let mut forward: SecondaryMap<Block, Option<crate::ir::BlockCall>> = block_map(func);
    let mut any_params = false;
    for &b in func.layout.blocks() {
        if Some(b) == entry {
            continue;
        }
        if let Some(dest) = only_jump(func, b) {
            any_params |= !func.dfg.block_params(b).is_empty();
            forward[b] = Some(dest.clone());
        }
    }
    // Parameters read anywhere but in their own block's jump.
    let mut read_elsewhere: rustc_hash::FxHashSet<crate::ir::Value> = Default::default();
    if any_params {
        for (block, inst) in func.layout.insts() {
            func.dfg.insts[inst].for_each_arg(|v| {
                let v = func.dfg.resolve_aliases(v);
                if let crate::ir::ValueDef::Param(home, _) = func.dfg.value_def(v) {
                    if home != block {
                        read_elsewhere.insert(v);
                    }
                }
            });
        }
    }
    let mut changed = false;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for b in blocks {
        let Some(last) = func.layout.last_inst(b) else {
            continue;
        };
        let mut data = func.dfg.insts[last].clone();
        for dest in data.branch_destinations_mut() {
            // Follow one hop only: a chain is shortened one hop per round, and
            // a cycle of empty blocks is never followed forever.
            let Some(to) = forward[dest.block].clone() else {
                continue;
            };
            if to.block == b {
                continue;
            }
            let params = func.dfg.block_params(dest.block);
            if params.len() != dest.args.len() || params.iter().any(|p| read_elsewhere.contains(p))
            {
                continue;
            }
            let args = to
                .args
                .iter()
                .map(|&a| {
                    let a = func.dfg.resolve_aliases(a);
                    match params.iter().position(|&p| p == a) {
                        Some(i) => dest.args[i],
                        None => a,
                    }
                })
                .collect();
            *dest = crate::ir::BlockCall::new(to.block, args);
            changed = true;
        }
        func.dfg.insts[last] = data;
    }
    changed
}

fn remove_unreachable_blocks(func: &mut Function) -> bool {
    let Some(entry) = func.layout.entry_block() else {
        return false;
    };
    // Reachability is walked here, not read from a cached dominator tree:
    // threading and selecting, just before, retarget and drop edges.
    let mut reached: SecondaryMap<Block, bool> = block_map(func);
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
    let dead: FxHashSet<Block> = func
        .layout
        .blocks()
        .iter()
        .copied()
        .filter(|&b| !reached[b])
        .collect();
    func.layout.remove_blocks(&dead);
    !dead.is_empty()
}

fn merge_straight_line_blocks(func: &mut Function) -> bool {
    // Incoming edges, counted once (a `brif` with both arms to one block
    // counts twice). A merge moves the successor's outgoing edges to the
    // predecessor without changing any count that a later merge reads, so
    // one sweep in layout order merges every chain, each block once. The
    // counts are made here, not taken from the cached predecessors: the
    // steps before this one in the pass changed the edges.
    let mut edges: SecondaryMap<Block, u32> = block_map(func);
    for &b in func.layout.blocks() {
        for s in func.successors(b) {
            edges[s] += 1;
        }
    }
    let entry = func.layout.entry_block();
    let mut merged: FxHashSet<Block> = FxHashSet::default();
    let order: Vec<Block> = func.layout.blocks().to_vec();
    for pred in order {
        if merged.contains(&pred) {
            continue;
        }
        // Keep merging into `pred` while it ends in a jump to a block that
        // only it reaches.
        while let Some(jump) = func.layout.last_inst(pred) {
            let InstData::Jump { dest } = &func.dfg.insts[jump] else {
                break;
            };
            let succ = dest.block;
            if succ == pred || Some(succ) == entry || edges[succ] != 1 || merged.contains(&succ) {
                break;
            }
            let args = dest.args.clone();
            let params = func.dfg.block_params(succ).to_vec();
            for (param, arg) in params.into_iter().zip(args) {
                func.dfg.change_to_alias(param, arg);
            }
            func.layout.remove_inst(jump);
            func.layout.move_insts_to_end(succ, pred);
            merged.insert(succ);
        }
    }
    func.layout.remove_blocks(&merged);
    !merged.is_empty()
}

/// A block that exactly one edge enters (a preheader under a guard's
/// `brif`, say) needs no parameters: the edge's arguments are defined
/// where they dominate its branch, so they dominate the block too. Each
/// parameter becomes an alias of its argument, and both go, so a constant
/// passed in (a loop counter's first value) is seen as one by `fold`.
fn forward_single_edge_params(func: &mut Function) -> bool {
    // Counted afresh, not taken from the cached predecessors: merging, just
    // before, moved edges from the merged blocks to their predecessors.
    let mut edges: SecondaryMap<Block, u32> = block_map(func);
    let mut from: SecondaryMap<Block, Option<Block>> = block_map(func);
    for &b in func.layout.blocks() {
        for s in func.successors(b) {
            edges[s] += 1;
            from[s] = Some(b);
        }
    }
    let entry = func.layout.entry_block();
    let mut changed = false;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for b in blocks {
        let Some(pred) = from[b] else {
            continue;
        };
        if Some(b) == entry || edges[b] != 1 || pred == b || func.dfg.block_params(b).is_empty() {
            continue;
        }
        let Some(branch) = func.layout.last_inst(pred) else {
            continue;
        };
        let mut data = func.dfg.insts[branch].clone();
        let mut args = None;
        for d in data.branch_destinations_mut() {
            if d.block == b {
                args = Some(std::mem::take(&mut d.args));
            }
        }
        let Some(args) = args else {
            continue;
        };
        let params = func.dfg.block_params(b).to_vec();
        if args.len() != params.len() {
            continue;
        }
        // Removing renumbers the parameters left, so alias after.
        for k in (0..params.len()).rev() {
            func.dfg.remove_block_param(b, k);
        }
        for (p, a) in params.into_iter().zip(args) {
            func.dfg.change_to_alias(p, a);
        }
        func.dfg.insts[branch] = data;
        changed = true;
    }
    changed
}

/// An empty table with a slot for every block of `func`: sized once, not
/// grown one index at a time as a walk meets blocks (`cfg-cleanup` runs in
/// every `simplify` round, and the growing cost more than the walks).
fn block_map<V: Clone + Default>(func: &Function) -> SecondaryMap<Block, V> {
    let mut map = SecondaryMap::new();
    map.resize(func.dfg.blocks.len());
    map
}
