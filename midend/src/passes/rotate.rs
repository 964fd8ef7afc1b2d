//! `rotate`: loops that test at the top become a guard and a loop that
//! tests at the bottom.
//!
//! C's `for` and `while` lower to a header that tests and branches out or
//! into the body, and a latch that jumps back to the header:
//!
//! ```text
//! block0:                                  block0:
//!     jump block1(v1)                          v10 = icmp slt v1, v0      ; the guard
//! block1(v2: i32):                             brif v10, block2(v1), block3(v1)
//!     v3 = icmp slt v2, v0                 block2(v11: i32):              ; the body
//!     brif v3, block2, block3                  ...
//! block2:                          ==>         v5 = iadd v11, v4
//!     ...                                      v12 = icmp slt v5, v0      ; the test, at the bottom
//!     v5 = iadd v2, v4                         brif v12, block2(v5), block3(v5)
//!     jump block1(v5)                      block3(v13: i32):
//! block3:                                      ...
//! ```
//!
//! Each iteration then runs one branch instead of two, and the body's entry
//! becomes the loop's header: what `licm` moves out of the loop lands after
//! the guard, so the grid stride of a grid-stride loop (`blockDim.x *
//! gridDim.x`) is computed only by threads that enter the loop. With the
//! invariant computed before the test, ptxas keeps worse code (it reloads
//! the memory descriptor into uniform registers in every iteration).
//!
//! The test is copied to the loop's entry (the guard) and to every latch,
//! so it must be small: the header may hold at most [`MAX_TEST`] cheap,
//! speculatable instructions besides its branch (`speculate.rs`), used
//! nowhere else, and every latch must end in a plain jump. The header's
//! parameters become parameters of the body's entry (inside the loop) and
//! of the header's exit block (after it). The loop may also leave from
//! other blocks (a `break`): to the header's exit, whose only other
//! predecessors must then be blocks that only the body leads to (in the
//! loop or after it), which pass it the body's parameters, or to blocks
//! that only the body leads to, which read the body's parameters. A loop whose header's parameters are read anywhere
//! else after it (a block both ways out reach) is left alone. Loops are
//! visited inner first; a loop whose blocks another rotation touched
//! waits for the next round.
//!
//! It must run after `unroll`, which wants loops in the top-tested form.
//!
//! It is in the `-O` pipelines, before `licm`: ptxas unrolls bottom-tested
//! loops (as it does nvcc's), and on an H200 the rotated matrix products
//! ran 1.4 to 1.6 times faster than the top-tested ones
//! (docs/performance.md). `strength-reduce` and `unroll-runtime` take the
//! rotated shape.

use super::speculate::{is_cheap_speculatable, is_constant};
use super::Changed;
use crate::analysis::{ensure_preheader, Analyses, Cfg, DominatorTree, Loop};
use crate::ir::{Block, BlockCall, Function, Inst, InstData, Type, Value};
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

/// The most non-constant instructions a header's test may have.
pub const MAX_TEST: usize = 4;

/// The pass-table entry; returns what changed (the CFG, when any loop was
/// rotated).
pub fn rotate_loops(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let mut changed = false;
    // Each round rotates at least one loop; nesting depth bounds the
    // rounds in practice, the cap guards bugs.
    for _ in 0..64 {
        if !rotate_round(func, analyses) {
            break;
        }
        changed = true;
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    Changed::cfg_if(changed)
}

/// A loop this pass can rotate.
struct Plan {
    header: Block,
    /// The header's successor inside the loop, and the one outside.
    body: Block,
    exit: Block,
    /// Whether the body is the `then` side of the header's branch.
    body_is_then: bool,
    /// The header's instructions before its branch, and its condition.
    test: Vec<Inst>,
    cond: Value,
}

/// Rotates every loop it can whose blocks no other rotation of the round
/// touched; returns whether any was rotated. The cached analyses are
/// dropped when the CFG changed.
fn rotate_round(func: &mut Function, analyses: &mut Analyses) -> bool {
    let Some(entry) = func.layout.entry_block() else {
        return false;
    };
    let Cfg {
        domtree,
        loops,
        preds,
    } = analyses.cfg(func);
    // A copy: making preheaders updates it.
    let mut loops = loops.clone();
    // Values read outside the block that defines them, and every reader
    // of each value. A rotation adds readers (the copies of its test); it
    // registers them, so the map stays complete for the rest of the round.
    let mut escapes: FxHashSet<Value> = FxHashSet::default();
    let mut readers: FxHashMap<Value, Vec<Inst>> = FxHashMap::default();
    for (block, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            let v = func.dfg.resolve_aliases(v);
            if func.def_block(v) != Some(block) {
                escapes.insert(v);
            }
            readers.entry(v).or_default().push(inst);
        });
    }
    let mut touched: FxHashSet<Block> = FxHashSet::default();
    let mut made: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    let mut dead: FxHashSet<Block> = FxHashSet::default();
    for index in 0..loops.loops.len() {
        let lp = &loops.loops[index];
        if lp.blocks.iter().any(|b| touched.contains(b)) || lp.header == entry {
            continue;
        }
        let Some(plan) = plan(func, domtree, lp, preds, &escapes, &readers) else {
            continue;
        };
        // The blocks whose uses or branches change must all be as the
        // dominator tree saw them.
        if touched.contains(&plan.exit) || subtree(domtree, plan.body).any(|b| touched.contains(&b))
        {
            continue;
        }
        let (pre, new) = ensure_preheader(func, &mut loops, index);
        if new {
            made.insert(plan.header, vec![pre]);
        }
        let lp = loops.loops[index].clone();
        if !ends_in_jump_to(func, pre, plan.header) {
            continue;
        }
        touched.extend(lp.blocks.iter().copied());
        touched.insert(pre);
        touched.insert(plan.exit);
        rotate(func, domtree, &lp, pre, &plan, preds, &mut readers);
        dead.insert(plan.header);
    }
    if !made.is_empty() || !dead.is_empty() {
        analyses.cfg_changed();
    }
    func.layout.insert_blocks_before(&made);
    func.layout.remove_blocks(&dead);
    !dead.is_empty()
}

fn ends_in_jump_to(func: &Function, b: Block, target: Block) -> bool {
    func.layout.last_inst(b).is_some_and(
        |t| matches!(&func.dfg.insts[t], InstData::Jump { dest } if dest.block == target),
    )
}

fn plan(
    func: &Function,
    domtree: &DominatorTree,
    lp: &Loop,
    preds: &SecondaryMap<Block, Vec<Block>>,
    escapes: &FxHashSet<Value>,
    readers: &FxHashMap<Value, Vec<Inst>>,
) -> Option<Plan> {
    let header = lp.header;
    let insts = func.layout.block_insts(header);
    let (&term, test) = insts.split_last()?;
    let InstData::Brif {
        cond,
        then_dest,
        else_dest,
    } = &func.dfg.insts[term]
    else {
        return None;
    };
    if !then_dest.args.is_empty() || !else_dest.args.is_empty() {
        return None;
    }
    let (body, exit, body_is_then) =
        match (lp.contains(then_dest.block), lp.contains(else_dest.block)) {
            (true, false) => (then_dest.block, else_dest.block, true),
            (false, true) => (else_dest.block, then_dest.block, false),
            _ => return None,
        };
    // Already a bottom-tested loop (the header is its own latch), or one
    // whose body or exit is entered from elsewhere.
    let exit_preds = &preds[exit];
    if body == header
        || preds[body].len() != 1
        || exit_preds.iter().filter(|&&p| p == header).count() != 1
        || exit_preds
            .iter()
            .any(|&p| p != header && !domtree.dominates(body, p))
        || !func.dfg.block_params(body).is_empty()
        || !func.dfg.block_params(exit).is_empty()
    {
        return None;
    }
    // The header's parameters, read after the loop, must be read where
    // the body or the exit dominates (their values there are the body's
    // or the exit's new parameters).
    for p in func.dfg.block_params(header) {
        for &inst in readers.get(p).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(block) = func.layout.inst_block(inst) else {
                continue;
            };
            if block != header && !domtree.dominates(body, block) && !domtree.dominates(exit, block)
            {
                return None;
            }
        }
    }
    let mut cost = 0;
    for &inst in test {
        let data = &func.dfg.insts[inst];
        if !is_cheap_speculatable(data) || func.dfg.inst_results(inst).len() != 1 {
            return None;
        }
        if escapes.contains(&func.dfg.inst_results(inst)[0]) {
            return None;
        }
        if !is_constant(data) {
            cost += 1;
        }
    }
    if cost > MAX_TEST {
        return None;
    }
    for &latch in &lp.latches {
        if !ends_in_jump_to(func, latch, header) {
            return None;
        }
    }
    Some(Plan {
        header,
        body,
        exit,
        body_is_then,
        test: test.to_vec(),
        cond: func.dfg.resolve_aliases(*cond),
    })
}

fn rotate(
    func: &mut Function,
    domtree: &DominatorTree,
    lp: &Loop,
    pre: Block,
    plan: &Plan,
    preds: &SecondaryMap<Block, Vec<Block>>,
    readers: &mut FxHashMap<Value, Vec<Inst>>,
) {
    let header = plan.header;
    let params: Vec<Value> = func.dfg.block_params(header).to_vec();
    let types: Vec<Type> = params.iter().map(|&p| func.dfg.value_type(p)).collect();
    let in_body: Vec<Value> = types
        .iter()
        .map(|&t| func.dfg.append_block_param(plan.body, t))
        .collect();
    // Uses of the header's parameters: in the loop (and after a `break`
    // that leaves to a block only the body leads to) they read the body's,
    // after it (everything the exit dominates) the exit's. The exit gets
    // parameters only for the values used after the loop. Only the
    // parameters' readers are visited: a walk over the blocks the exit
    // dominates would cost the rest of the function per loop.
    let mut used_after = vec![false; params.len()];
    let mut inside: Vec<(Inst, usize)> = Vec::new();
    let mut outside: Vec<(Inst, usize)> = Vec::new();
    for (k, p) in params.iter().enumerate() {
        for &inst in readers.get(p).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(block) = func.layout.inst_block(inst) else {
                continue;
            };
            if domtree.dominates(plan.body, block) {
                inside.push((inst, k));
            } else if domtree.dominates(plan.exit, block) {
                outside.push((inst, k));
                used_after[k] = true;
            }
        }
    }
    let after: Vec<Option<Value>> = (0..params.len())
        .map(|k| used_after[k].then(|| func.dfg.append_block_param(plan.exit, types[k])))
        .collect();
    for (inst, k) in inside {
        replace_use(func, inst, params[k], in_body[k]);
    }
    for (inst, k) in outside {
        replace_use(
            func,
            inst,
            params[k],
            after[k].expect("used after the loop"),
        );
    }
    // Other ways from the loop to the exit pass the body's values.
    let from_body: Vec<Value> = in_body
        .iter()
        .zip(&used_after)
        .filter(|(_, &used)| used)
        .map(|(&v, _)| v)
        .collect();
    if !from_body.is_empty() {
        let mut from: Vec<Block> = preds[plan.exit]
            .iter()
            .copied()
            .filter(|&b| domtree.dominates(plan.body, b))
            .collect();
        from.dedup();
        for b in from {
            let Some(term) = func.layout.last_inst(b) else {
                continue;
            };
            for dest in func.dfg.insts[term].branch_destinations_mut() {
                if dest.block == plan.exit {
                    dest.args.extend(from_body.iter().copied());
                }
            }
        }
    }
    // The test, copied to the guard and to every latch.
    for &from in std::iter::once(&pre).chain(&lp.latches) {
        let term = func.layout.last_inst(from).expect("ends in a jump");
        let InstData::Jump { dest } = func.dfg.insts[term].clone() else {
            unreachable!("checked by plan");
        };
        let mut map: FxHashMap<Value, Value> =
            params.iter().copied().zip(dest.args.clone()).collect();
        for &inst in &plan.test {
            let mut data = func.dfg.insts[inst].clone();
            data.map_args(|v| {
                let v = func.dfg.resolve_aliases(v);
                map.get(&v).copied().unwrap_or(v)
            });
            let ty = func.dfg.value_type(func.dfg.inst_results(inst)[0]);
            let copy = func.dfg.make_inst(data, &[ty]);
            func.dfg.insts[copy].for_each_arg(|v| readers.entry(v).or_default().push(copy));
            func.spans[copy] = func.spans[inst];
            func.layout.insert_inst_before(copy, term);
            map.insert(
                func.dfg.inst_results(inst)[0],
                func.dfg.first_result(copy).expect("one result"),
            );
        }
        let cond = map.get(&plan.cond).copied().unwrap_or(plan.cond);
        let exit_args: Vec<Value> = dest
            .args
            .iter()
            .zip(&used_after)
            .filter(|(_, &used)| used)
            .map(|(&a, _)| a)
            .collect();
        let to_body = BlockCall::new(plan.body, dest.args);
        let to_exit = BlockCall::new(plan.exit, exit_args);
        let (then_dest, else_dest) = if plan.body_is_then {
            (to_body, to_exit)
        } else {
            (to_exit, to_body)
        };
        func.dfg.insts[term] = InstData::Brif {
            cond,
            then_dest,
            else_dest,
        };
    }
    if let Some(hint) = func.loop_hints.remove(&header) {
        func.loop_hints.insert(plan.body, hint);
    }
}

/// `top` and every block it dominates.
fn subtree(domtree: &DominatorTree, top: Block) -> impl Iterator<Item = Block> + '_ {
    let mut stack = vec![top];
    std::iter::from_fn(move || {
        let b = stack.pop()?;
        stack.extend(domtree.children(b).iter().copied());
        Some(b)
    })
}

/// Rewrites `inst`'s reads of `from` to `to`.
fn replace_use(func: &mut Function, inst: Inst, from: Value, to: Value) {
    let mut data = func.dfg.insts[inst].clone();
    data.map_args(|v| {
        let v = func.dfg.resolve_aliases(v);
        if v == from {
            to
        } else {
            v
        }
    });
    func.dfg.insts[inst] = data;
}
