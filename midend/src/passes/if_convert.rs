//! `if-convert`: a short `if` without an `else` becomes straight-line code
//! and `select`s.
//!
//! `if (lane >= d) v += t;` lowers to a block that computes `v + t` and
//! jumps to the join with it, while the branch around it passes the old
//! `v`. On the GPU that is a branch, and a copy on each edge into the join
//! (the join's parameter is one register). When the `if` body is a
//! couple of cheap, speculatable instructions (`speculate.rs`), it is
//! cheaper to compute them always and pick the value:
//!
//! ```text
//! block0:                                   block0:
//!     v5 = icmp sge v3, v4                      v5 = icmp sge v3, v4
//!     brif v5, block1, block2(v1)               v6 = fadd v1, v2
//! block1:                                ==>    v7 = select v5, v6, v1
//!     v6 = fadd v1, v2                          jump block2(v7)
//!     jump block2(v6)
//! ```
//!
//! ptxas turns the `select` of an `add` into a predicated add, as it does
//! with nvcc's PTX. The pass takes a "triangle": a block `A` ending in a
//! `brif` whose one side is a block `T` entered only from `A`, with no
//! parameters, ending in a jump to the other side `J`. `T`'s instructions
//! must all be cheap and speculatable, and the non-constant ones plus the
//! `select`s needed (one per parameter of `J` whose two incoming values
//! differ) at most [`MAX_COST`]. Parameters of type `i1` are left alone
//! (PTX has no `selp` for predicates). `T` is left without predecessors
//! for `cfg-cleanup` to remove. The edge that skips `T` may pass through
//! an empty block that only jumps to `J` (entered from `A` alone); that
//! block is left without predecessors too.

use super::speculate::{is_cheap_speculatable, is_constant};
use super::Changed;
use crate::analysis::{edge_counts, Analyses};
use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{Block, BlockCall, Function, Inst, InstData, Type, Value};
use cranelift_entity::SecondaryMap;

/// The most instructions a converted `if` may add to the path that skipped it.
pub const MAX_COST: usize = 6;

/// The pass-table entry; returns what changed (the CFG, when an `if` was
/// converted).
pub fn convert_ifs(func: &mut Function, analyses: &mut Analyses) -> Changed {
    // Each conversion removes edges, so the counts start from the cached
    // predecessors and the loop below keeps them (for the blocks it reads).
    let mut preds = edge_counts(analyses.preds(func));
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    let mut changed = false;
    for a in blocks {
        let Some(term) = func.layout.last_inst(a) else {
            continue;
        };
        let InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } = func.dfg.insts[term].clone()
        else {
            continue;
        };
        // The side that skips the body may pass through an empty block
        // (`rotate` and `licm` leave such edges): the edge it forwards to.
        let (then_skip, else_skip) = (
            forwarded(func, &preds, &then_dest),
            forwarded(func, &preds, &else_dest),
        );
        let plan = [
            (true, &then_dest, &else_skip),
            (false, &else_dest, &then_skip),
        ]
        .into_iter()
        .find_map(|(t_is_then, t, j)| {
            triangle(func, &preds, a, t, j).map(|(body, args)| (t_is_then, t.block, j, body, args))
        });
        let Some((t_is_then, t_block, j, body, t_args)) = plan else {
            continue;
        };
        // A forwarding block skipped over has no predecessor left.
        let skipped = if t_is_then { &else_dest } else { &then_dest };
        if skipped.block != j.block {
            preds[skipped.block] = 0;
        }
        for inst in body {
            func.layout.remove_inst(inst);
            func.layout.insert_inst_before(inst, term);
        }
        let (then_args, else_args) = if t_is_then {
            (&t_args, &j.args)
        } else {
            (&j.args, &t_args)
        };
        jump_selecting(func, term, cond, j.block, then_args, else_args);
        // T no longer has a predecessor; A no longer reaches T.
        preds[t_block] = 0;
        changed = true;
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    Changed::cfg_if(changed)
}

/// Replaces the branch `term` with a jump to `dest` that passes `then_args`
/// where `cond` holds and `else_args` where it does not: a `select` before
/// `term` for each pair that differs, the value itself where both agree.
/// (`cfg-cleanup` uses it for a `brif` whose two edges enter one block.)
pub(super) fn jump_selecting(
    func: &mut Function,
    term: Inst,
    cond: Value,
    dest: Block,
    then_args: &[Value],
    else_args: &[Value],
) {
    let cond = func.dfg.resolve_aliases(cond);
    let mut args = Vec::with_capacity(then_args.len());
    for (&t, &e) in then_args.iter().zip(else_args) {
        let (t, e) = (func.dfg.resolve_aliases(t), func.dfg.resolve_aliases(e));
        args.push(if t == e {
            t
        } else {
            FuncCursor::before_with_span(func, term).select(cond, t, e)
        });
    }
    func.dfg.insts[term] = InstData::Jump {
        dest: BlockCall::new(dest, args),
    };
}

/// Where the edge `d` leads: through its block when that block is empty
/// (no parameters, nothing but `jump`) and entered only by this edge.
fn forwarded(func: &Function, preds: &SecondaryMap<Block, u32>, d: &BlockCall) -> BlockCall {
    if preds[d.block] != 1 || !func.dfg.block_params(d.block).is_empty() {
        return d.clone();
    }
    super::cfg_cleanup::only_jump(func, d.block)
        .unwrap_or(d)
        .clone()
}

/// When `t` is a convertible body between `a` and `j`: its instructions
/// (without the jump) and the arguments it passes to `j`.
fn triangle(
    func: &Function,
    preds: &SecondaryMap<Block, u32>,
    a: Block,
    t: &BlockCall,
    j: &BlockCall,
) -> Option<(Vec<Inst>, Vec<Value>)> {
    if t.block == j.block || t.block == a || !t.args.is_empty() || preds[t.block] != 1 {
        return None;
    }
    if !func.dfg.block_params(t.block).is_empty() {
        return None;
    }
    let insts = func.layout.block_insts(t.block);
    let (&last, body) = insts.split_last()?;
    let InstData::Jump { dest } = &func.dfg.insts[last] else {
        return None;
    };
    if dest.block != j.block {
        return None;
    }
    let params = func.dfg.block_params(j.block);
    if params.iter().any(|&p| func.dfg.value_type(p) == Type::I1) {
        return None;
    }
    let t_args: Vec<Value> = dest
        .args
        .iter()
        .map(|&v| func.dfg.resolve_aliases(v))
        .collect();
    let j_args: Vec<Value> = j
        .args
        .iter()
        .map(|&v| func.dfg.resolve_aliases(v))
        .collect();
    let mut cost = t_args.iter().zip(&j_args).filter(|(x, y)| x != y).count();
    for &inst in body {
        let data = &func.dfg.insts[inst];
        if !is_cheap_speculatable(data) || func.dfg.inst_results(inst).len() != 1 {
            return None;
        }
        if !is_constant(data) {
            cost += 1;
        }
    }
    if cost > MAX_COST {
        return None;
    }
    Some((body.to_vec(), t_args))
}
