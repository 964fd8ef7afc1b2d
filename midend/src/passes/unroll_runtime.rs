//! `unroll-runtime`: unrolling by four of small loops whose trip count is
//! known only when the kernel runs, with the leftover iterations in the
//! original loop.
//!
//! It takes the bottom-tested loops `rotate` makes of C's counted loops,
//! where a guard has already checked that the first iteration runs:
//!
//! ```text
//! block2:                                  block2:
//!     v36 = icmp slt v11, v3                   v36 = icmp slt v11, v3
//!     brif v36, block4(v11, v10), block6(v10)  brif v36, block7(v11, v10), block6(v10)
//! block4(v33: i32, v34: i32):              block7(v40: i32, v41: i32):      ; setup
//!     ...                                      v42 = isub v3, v40           ; T, at least 1
//!     v26 = iadd v33, v25      ; +1            v45 = band v42, 3            ; T mod 4
//!     v37 = icmp slt v26, v3                   v46 = isub v42, v45          ; whole fours
//!     brif v37, block4(v26, v24),              v44 = icmp ult (v42 - 1), 3  ; T < 4
//!               block6(v24)        ==>         brif v44, block4(v40, v41), block8(v40, v41, v46)
//! block6(v35: i32):                        block8(.., v47: i32): ...        ; four copies of the
//!     ...                                      ...                          ; body, one after the
//!                                              v50 = isub v47, 4            ; other; the last one
//!                                              v51 = icmp ne v50, 0         ; counts the fours down
//!                                              brif v51, block8(.., v50), block9
//!                                          block9:
//!                                              v52 = icmp ne v45, 0         ; leftovers?
//!                                              brif v52, block4(..), block6(..)
//!                                          block4(v33: i32, v34: i32):      ; the original loop,
//!                                              ...                          ; `#pragma unroll 1`
//! ```
//!
//! The counter must be a header parameter that steps by +1 (`iadd` of the
//! constant 1) in the one latch, the latch's test must compare the stepped
//! counter with a value from outside the loop (`slt`, `ult` or `ne`, either
//! way round, either branch polarity), and the one edge that enters the loop
//! must be guarded by the same comparison of the counter's first value.
//! Nothing else in the loop may read the counter: a body that computes
//! addresses from it (what `strength-reduce`, which runs first, could not
//! turn into counters of their own) is left to ptxas, which unrolls such a
//! loop and strength-reduces the copies together; four copies made here
//! would each recompute their index.
//! Then `T = n - a` (unsigned, at the counter's width) is exactly the number
//! of iterations and at least 1. The loop must leave only from its latch,
//! no value made inside it may be read outside except through the exit
//! edge's arguments, it must hold no inner loop, and it must stay within
//! [`BUDGET`] instructions. Loops with calls, barriers, warp shuffles,
//! votes, `warp_sync`, asynchronous copies or tensor-core operations are
//! left alone: with different trip counts in one warp, the copies would
//! put the lanes of one iteration at different instructions. So are loops
//! with an unroll pragma.
//!
//! Why: ptxas unrolls the loops it is given by itself (by four, then two,
//! then one), and nvcc hands it loops already unrolled by four with a
//! `.pragma "nounroll"` remainder, which ptxas leaves alone. With the same
//! shape, ptxas makes the same code; without it, a loop like SpMV's came
//! out with seven copies of its body instead of five (docs/passes.md).
//! The remainder loop gets the `#pragma unroll 1` hint, which the backend
//! prints as `.pragma "nounroll"`; the main loop gets `unroll ... unrolled`,
//! which keeps every pass from unrolling it again and tells the backend
//! how to lay out its latch.

use super::Changed;
use crate::analysis::{Analyses, Cfg, Loop};
use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{
    Block, BlockCall, Function, Inst, InstData, IntCC, LoopHint, Opcode, Type, Value, ValueDef,
};
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

/// The most instructions a loop may have to be unrolled (four copies and
/// the remainder: five times this after the pass).
pub const BUDGET: usize = 48;
/// The unroll factor.
const FACTOR: i64 = 4;

/// The pass-table entry; returns what changed (the CFG, when any loop was
/// unrolled).
pub fn unroll_runtime_loops(func: &mut Function, analyses: &mut Analyses) -> Changed {
    if func.layout.entry_block().is_none() {
        return Changed::Nothing;
    }
    let Cfg {
        loops: analysis,
        preds,
        ..
    } = analyses.cfg(func);
    // Values read outside the loop that defines them (branch arguments
    // included; the exit edge's are allowed separately).
    let mut readers: FxHashMap<Value, Vec<Block>> = FxHashMap::default();
    for (block, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            let v = func.dfg.resolve_aliases(v);
            readers.entry(v).or_default().push(block);
        });
    }
    let position = func.layout.block_positions();
    // Kept up to date as loops are unrolled (the new blocks join the
    // layout only at the end, so a scan of the layout would miss them).
    let mut preds = preds.clone();
    let mut groups: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    let inner: FxHashSet<usize> = analysis.loops.iter().filter_map(|l| l.parent).collect();
    for (index, lp) in analysis.loops.iter().enumerate() {
        if inner.contains(&index) || Some(lp.header) == func.layout.entry_block() {
            continue;
        }
        let Some(plan) = plan(func, lp, &readers, &preds) else {
            continue;
        };
        let made = unroll(func, lp, &plan, &position);
        // The guard now enters the setup block; the setup block and the
        // leftover test enter the loop, and the leftover test leaves it.
        let (setup, leftover) = (made[0], made[made.len() - 1]);
        preds[lp.header].retain(|&b| b != plan.guard);
        preds[lp.header].extend([setup, leftover]);
        preds[setup].push(plan.guard);
        preds[plan.exit.block].push(leftover);
        groups.insert(lp.header, made);
    }
    if groups.is_empty() {
        return Changed::Nothing;
    }
    func.layout.insert_blocks_before(&groups);
    Changed::Cfg
}

/// What [`plan`] found out about a loop.
struct Plan {
    latch: Block,
    /// The block whose branch enters the loop (the guard, or the preheader
    /// below it).
    guard: Block,
    /// Index of the counter among the header's parameters.
    counter: usize,
    /// The loop-invariant bound the counter runs up to.
    bound: Value,
    /// The latch's destinations: back to the header, and out.
    back: BlockCall,
    exit: BlockCall,
}

/// The comparison `branch` makes to go to `to`, as `(cc, x, y)` meaning
/// "goes to `to` when `x cc y`"; `None` unless it is a `brif` on an
/// `icmp` with `to` on exactly one side.
fn staying_test(func: &Function, branch: Inst, to: Block) -> Option<(IntCC, Value, Value)> {
    let InstData::Brif {
        cond,
        then_dest,
        else_dest,
    } = &func.dfg.insts[branch]
    else {
        return None;
    };
    let then_side = match (then_dest.block == to, else_dest.block == to) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    let ValueDef::Result(test, _) = func.dfg.value_def(func.dfg.resolve_aliases(*cond)) else {
        return None;
    };
    let InstData::IntCompare { cond: cc, args } = func.dfg.insts[test] else {
        return None;
    };
    let cc = if then_side { cc } else { cc.inverse() };
    let [x, y] = args.map(|v| func.dfg.resolve_aliases(v));
    Some((cc, x, y))
}

/// `(cc, x, y)` as "`v cc other`" when one side is `v`.
fn oriented(test: (IntCC, Value, Value), v: Value) -> Option<(IntCC, Value)> {
    let (cc, x, y) = test;
    if x == v && y != v {
        Some((cc, y))
    } else if y == v && x != v {
        Some((cc.swapped(), x))
    } else {
        None
    }
}

/// Whether `v` is `iadd x, 1` (either operand order); returns `x`.
fn plus_one(func: &Function, v: Value) -> Option<Value> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return None;
    };
    let InstData::Binary {
        opcode: Opcode::Iadd,
        args,
    } = func.dfg.insts[inst]
    else {
        return None;
    };
    let [a, b] = args.map(|v| func.dfg.resolve_aliases(v));
    if func.dfg.iconst_value(b) == Some(1) {
        Some(a)
    } else if func.dfg.iconst_value(a) == Some(1) {
        Some(b)
    } else {
        None
    }
}

/// The counter of a latch: the index of the parameter `p` of `header`
/// that `branch` passes back as `p + 1` and tests, with the test as
/// "stays while `p + 1 cc bound`". `None` unless `branch` is a `brif` on
/// an `icmp` with `header` on one side and such a counter. The backend
/// asks too, to lay out the latches of loops that ptxas unrolls.
pub fn unit_step_counter(
    func: &Function,
    branch: Inst,
    header: Block,
) -> Option<(usize, IntCC, Value)> {
    let test = staying_test(func, branch, header)?;
    let dests = func.dfg.insts[branch].branch_destinations();
    let back = dests.iter().find(|d| d.block == header)?;
    for (k, &p) in func.dfg.block_params(header).iter().enumerate() {
        let next = func.dfg.resolve_aliases(*back.args.get(k)?);
        if plus_one(func, next) != Some(p) {
            continue;
        }
        if let Some((cc, bound)) = oriented(test, next) {
            return Some((k, cc, bound));
        }
    }
    None
}

/// Whether `lp` has the shape the module comment describes.
fn plan(
    func: &Function,
    lp: &Loop,
    readers: &FxHashMap<Value, Vec<Block>>,
    preds: &SecondaryMap<Block, Vec<Block>>,
) -> Option<Plan> {
    if func.loop_hints.contains_key(&lp.header) || lp.latches.len() != 1 {
        return None;
    }
    let latch = lp.latches[0];
    if lp.exits.len() != 1 || lp.exits[0].0 != latch {
        return None;
    }
    // Size and contents.
    let mut size = 0;
    for &b in &lp.blocks {
        for &inst in func.layout.block_insts(b) {
            size += 1;
            let forbidden = matches!(
                func.dfg.insts[inst],
                InstData::Call { .. }
                    | InstData::CallIndirect { .. }
                    | InstData::Nullary { .. }
                    | InstData::Shuffle { .. }
                    | InstData::Vote { .. }
                    | InstData::Redux { .. }
                    | InstData::Match { .. }
                    | InstData::BarrierRed { .. }
                    | InstData::Effect { .. }
                    | InstData::Accel { .. }
            );
            if forbidden {
                return None;
            }
        }
    }
    if size > BUDGET {
        return None;
    }
    // The latch: `brif (i + 1) cc n, header(..., i + 1, ...), exit(...)`.
    let branch = func.layout.last_inst(latch)?;
    let InstData::Brif {
        then_dest,
        else_dest,
        ..
    } = &func.dfg.insts[branch]
    else {
        return None;
    };
    let (back, exit) = if then_dest.block == lp.header {
        (then_dest.clone(), else_dest.clone())
    } else {
        (else_dest.clone(), then_dest.clone())
    };
    if lp.contains(exit.block) {
        return None;
    }
    let (counter, cc, bound) = unit_step_counter(func, branch, lp.header)?;
    let p = func.dfg.block_params(lp.header)[counter];
    // The counter only steps and is tested: a body that also computes
    // addresses from it (what `strength-reduce` could not turn into
    // counters of their own) is left to ptxas, which unrolls and reduces
    // it together.
    // A `select` may pick the counter as a value (the index of a running
    // minimum, `bi = c`): each copy reads the counter it already has.
    let step = func.dfg.resolve_aliases(back.args[counter]);
    for &b in &lp.blocks {
        for &inst in func.layout.block_insts(b) {
            let mut reads = false;
            func.dfg.insts[inst].for_each_arg(|v| reads |= func.dfg.resolve_aliases(v) == p);
            let steps = func.dfg.inst_results(inst).first() == Some(&step);
            // (The counter is an integer, so it can only be an arm, never
            // the `i1` condition.)
            let picks = func.dfg.insts[inst].opcode() == Opcode::Select;
            if reads && !steps && !picks {
                return None;
            }
        }
    }
    if !matches!(cc, IntCC::Slt | IntCC::Ult | IntCC::Ne) {
        return None;
    }
    if !matches!(func.dfg.value_type(p), Type::I32 | Type::I64) {
        return None;
    }
    if func.def_block(bound).is_none_or(|b| lp.contains(b)) {
        return None;
    }
    // One edge enters, from a guard that makes the same comparison of the
    // counter's first value.
    let mut entering: Vec<Block> = preds[lp.header]
        .iter()
        .copied()
        .filter(|&b| !lp.contains(b))
        .collect();
    entering.dedup();
    let [guard] = entering[..] else {
        return None;
    };
    if guard_proves_first_trip(func, preds, lp.header, guard, counter, (cc, bound)) != Some(true) {
        return None;
    }
    // Nothing made inside the loop is read outside it, except by the
    // latch's exit edge.
    for &b in &lp.blocks {
        let mut made: Vec<Value> = func.dfg.block_params(b).to_vec();
        for &inst in func.layout.block_insts(b) {
            made.extend(func.dfg.inst_results(inst).iter().copied());
        }
        for v in made {
            for &r in readers.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if !lp.contains(r) {
                    return None;
                }
            }
        }
    }
    Some(Plan {
        latch,
        guard,
        counter,
        bound,
        back,
        exit,
    })
}

/// The destination of `branch` that goes to `to`.
fn edge_to(func: &Function, branch: Inst, to: Block) -> Option<&BlockCall> {
    func.dfg.insts[branch]
        .branch_destinations()
        .into_iter()
        .find(|d| d.block == to)
}

/// Whether the edge from `guard` into `header` is taken only when the
/// counter's first value `a` satisfies `a cc bound`: `guard` ends in a
/// `brif` on that comparison, or it is a preheader (`licm` makes them)
/// that only jumps to `header` and is itself entered by such a `brif`
/// (the first value may then be one of its parameters).
pub(super) fn guard_proves_first_trip(
    func: &Function,
    preds: &SecondaryMap<Block, Vec<Block>>,
    header: Block,
    guard: Block,
    counter: usize,
    want: (IntCC, Value),
) -> Option<bool> {
    let branch = func.layout.last_inst(guard)?;
    match &func.dfg.insts[branch] {
        InstData::Brif { .. } => {
            let dest = edge_to(func, branch, header)?;
            let first = func.dfg.resolve_aliases(*dest.args.get(counter)?);
            let test = staying_test(func, branch, header)?;
            Some(oriented(test, first) == Some(want))
        }
        InstData::Jump { dest } => {
            let mut first = func.dfg.resolve_aliases(*dest.args.get(counter)?);
            let [above] = preds[guard][..] else {
                return None;
            };
            let branch = func.layout.last_inst(above)?;
            let test = staying_test(func, branch, guard)?;
            if let Some(j) = func
                .dfg
                .block_params(guard)
                .iter()
                .position(|&p| p == first)
            {
                let into = edge_to(func, branch, guard)?;
                first = func.dfg.resolve_aliases(*into.args.get(j)?);
            }
            Some(oriented(test, first) == Some(want))
        }
        _ => None,
    }
}

/// Builds the setup block, the four copies and the leftover test; points
/// the guard at the setup block and marks the original loop `unroll 1`.
/// Returns the new blocks in layout order.
// Long: it builds one CFG shape (setup, four copies, leftover test) whose
// blocks refer to each other; each block's construction is a commented
// paragraph.
fn unroll(
    func: &mut Function,
    lp: &Loop,
    plan: &Plan,
    position: &FxHashMap<Block, usize>,
) -> Vec<Block> {
    let header = lp.header;
    let ty = func
        .dfg
        .value_type(func.dfg.block_params(header)[plan.counter]);
    let mut order: Vec<Block> = lp.blocks.iter().copied().filter(|&b| b != header).collect();
    order.sort_by_key(|b| position.get(b).copied().unwrap_or(usize::MAX));
    order.insert(0, header);

    // setup(params): T = n - a; leftovers T & 3; fours T - (T & 3).
    let setup = func.dfg.make_block();
    let params: Vec<Value> = func
        .dfg
        .block_params(header)
        .to_vec()
        .into_iter()
        .map(|p| {
            let t = func.dfg.value_type(p);
            func.dfg.append_block_param(setup, t)
        })
        .collect();
    let a = params[plan.counter];
    let mut cur = FuncCursor::at_end(func, setup);
    let trips = cur.isub(plan.bound, a);
    let one = cur.iconst(ty, 1);
    let mask = cur.iconst(ty, FACTOR - 1);
    let left = cur.binary(Opcode::Band, trips, mask);
    let fours = cur.isub(trips, left);
    let less = cur.isub(trips, one);
    let small = cur.icmp(IntCC::Ult, less, mask);

    // The copies' blocks; copy 0's header also takes the count of fours.
    let mut block_maps: Vec<FxHashMap<Block, Block>> = Vec::new();
    let mut value_maps: Vec<FxHashMap<Value, Value>> = Vec::new();
    let mut new_blocks = vec![setup];
    let mut count = None;
    for k in 0..FACTOR {
        let mut bm = FxHashMap::default();
        let mut vm = FxHashMap::default();
        for &b in &order {
            let nb = func.dfg.make_block();
            for p in func.dfg.block_params(b).to_vec() {
                let np = func.dfg.append_block_param(nb, func.dfg.value_type(p));
                vm.insert(p, np);
            }
            if k == 0 && b == header {
                count = Some(func.dfg.append_block_param(nb, ty));
            }
            bm.insert(b, nb);
            new_blocks.push(nb);
        }
        block_maps.push(bm);
        value_maps.push(vm);
    }
    let count = count.expect("copy 0 has a header");
    let leftover = func.dfg.make_block();
    new_blocks.push(leftover);

    // The instructions of every copy, then their operands.
    let latch_branch = func.layout.last_inst(plan.latch).expect("the latch ends");
    let mut made: Vec<(usize, Inst)> = Vec::new();
    for (k, (bm, vm)) in block_maps.iter().zip(value_maps.iter_mut()).enumerate() {
        for &b in &order {
            for inst in func.layout.block_insts(b).to_vec() {
                if inst == latch_branch {
                    continue;
                }
                let types: Vec<Type> = func
                    .dfg
                    .inst_results(inst)
                    .iter()
                    .map(|&r| func.dfg.value_type(r))
                    .collect();
                let ni = func.dfg.make_inst(func.dfg.insts[inst].clone(), &types);
                let olds = func.dfg.inst_results(inst).to_vec();
                let news = func.dfg.inst_results(ni).to_vec();
                vm.extend(olds.into_iter().zip(news));
                func.layout.append_inst(ni, bm[&b]);
                func.spans[ni] = func.spans[inst];
                made.push((k, ni));
            }
        }
    }
    for (k, ni) in made {
        let vm = &value_maps[k];
        let bm = &block_maps[k];
        let mut data = func.dfg.insts[ni].clone();
        data.map_args(|v| {
            let v = func.dfg.resolve_aliases(v);
            vm.get(&v).copied().unwrap_or(v)
        });
        for d in data.branch_destinations_mut() {
            if let Some(&nb) = bm.get(&d.block) {
                d.block = nb;
            }
        }
        func.dfg.insts[ni] = data;
    }
    let map_args = |func: &Function, vm: &FxHashMap<Value, Value>, args: &[Value]| -> Vec<Value> {
        args.iter()
            .map(|&v| {
                let v = func.dfg.resolve_aliases(v);
                vm.get(&v).copied().unwrap_or(v)
            })
            .collect()
    };
    // Copies 0..3 go on to the next; copy 3 counts down and loops.
    for k in 0..FACTOR as usize {
        let latch = block_maps[k][&plan.latch];
        let args = map_args(func, &value_maps[k], &plan.back.args);
        if k + 1 < FACTOR as usize {
            let dest = BlockCall::new(block_maps[k + 1][&header], args);
            let jump = func.dfg.make_inst(InstData::Jump { dest }, &[]);
            func.layout.append_inst(jump, latch);
            func.spans[jump] = func.spans[latch_branch];
        } else {
            let mut cur = FuncCursor::at_end(func, latch);
            let step = cur.iconst(ty, FACTOR);
            let rest = cur.isub(count, step);
            let zero = cur.iconst(ty, 0);
            let more = cur.icmp(IntCC::Ne, rest, zero);
            let mut again = args.clone();
            again.push(rest);
            let data = InstData::Brif {
                cond: more,
                then_dest: BlockCall::new(block_maps[0][&header], again),
                else_dest: BlockCall::new(leftover, Vec::new()),
            };
            let br = func.dfg.make_inst(data, &[]);
            func.layout.append_inst(br, latch);
            func.spans[br] = func.spans[latch_branch];
            // leftover: into the original loop when T & 3 != 0, else out.
            let mut cur = FuncCursor::at_end(func, leftover);
            let zero = cur.iconst(ty, 0);
            let any = cur.icmp(IntCC::Ne, left, zero);
            let out = map_args(func, &value_maps[k], &plan.exit.args);
            let data = InstData::Brif {
                cond: any,
                then_dest: BlockCall::new(header, args),
                else_dest: BlockCall::new(plan.exit.block, out),
            };
            let br = func.dfg.make_inst(data, &[]);
            func.layout.append_inst(br, leftover);
            func.spans[br] = func.spans[latch_branch];
        }
    }
    // setup: fewer than four iterations go straight to the original loop.
    let mut with_count = params.clone();
    with_count.push(fours);
    let data = InstData::Brif {
        cond: small,
        then_dest: BlockCall::new(header, params),
        else_dest: BlockCall::new(block_maps[0][&header], with_count),
    };
    let br = func.dfg.make_inst(data, &[]);
    func.layout.append_inst(br, setup);
    let guard_branch = func.layout.last_inst(plan.guard).expect("the guard ends");
    func.spans[br] = func.spans[guard_branch];
    for d in func.dfg.insts[guard_branch].branch_destinations_mut() {
        if d.block == header {
            d.block = setup;
        }
    }
    func.loop_hints.insert(header, LoopHint::Count(1));
    func.loop_hints
        .insert(block_maps[0][&header], LoopHint::Unrolled);
    new_blocks
}
