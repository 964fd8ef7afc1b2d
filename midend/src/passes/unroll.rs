//! `unroll`: full unrolling of loops with a constant trip count.
//!
//! The loops this pass understands are the ones C's counted loops lower to:
//!
//! ```text
//! block1(v4: i32, ...):            ; the header, the only way out
//!     v6 = icmp slt v4, v5         ; v5 = iconst.i32 4
//!     brif v6, block2, block4      ; one side stays, the other leaves
//! block2: ...                      ; the body (any shape, inner loops too)
//!     v21 = iadd v4, v20           ; v20 = iconst.i32 1
//!     jump block1(v21, ...)        ; the one latch
//! ```
//!
//! The induction variable `v4` starts at a constant (every entering edge
//! passes the same `iconst`), steps by a constant (`iadd`/`isub` with an
//! `iconst`, or `imul`, `ishl`, `sshr`, `ushr`, `sdiv`, `udiv`: the
//! `for (o = 16; o > 0; o >>= 1)` of a warp reduction) and is compared with
//! a constant. The pass runs the counter at
//! compile time, at the variable's width and with its wrap-around, to get
//! the trip count `N`. It then lays out `N` copies of the loop's blocks, one
//! after the other: in copy `k` the header's test becomes a jump into the
//! body, and the back edge goes to the header of copy `k + 1`. A last copy
//! of the header alone jumps out. Values of the old header that are used
//! after the loop become aliases of that last copy's values. The induction
//! variable is still a block parameter in each copy; `simplify` merges the
//! straight-line chain, and the variable becomes a constant in each copy.
//!
//! When to unroll:
//! - `#pragma unroll` (`unroll block1 full` in the IR): when the trip count
//!   is known and the copies stay within [`PRAGMA_BUDGET`] instructions;
//! - `#pragma unroll N`: the same when `N` is at least the trip count;
//!   below it, when `N` divides the trip count, `N` copies of the body stay
//!   a loop, which leaves only from the first copy's header (the other
//!   copies' tests always hold) and carries `unroll 1`, as nvcc marks such
//!   a loop `.pragma "nounroll"` for ptxas; `#pragma unroll 1` never;
//! - no pragma: when the copies stay within [`DEFAULT_BUDGET`] instructions
//!   ([`BARRIER_BUDGET`] when the body waits at a barrier) and the trip
//!   count is at most [`DEFAULT_MAX_TRIPS`].
//!
//! Loops are taken inner first. In one round every loop that qualifies is
//! unrolled unless a loop inside it already was in this round (its blocks
//! changed); rounds repeat, so an outer loop whose inner loop went away can
//! be unrolled next. The work is linear in the size of the result.

use super::speculate::is_constant;
use super::Changed;
use crate::analysis::{Analyses, Loop};
use crate::ir::{
    Block, BlockCall, Function, Inst, InstData, IntCC, LoopHint, Opcode, Value, ValueDef,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// Instructions (loop size × trips) a loop without a pragma may grow to.
pub const DEFAULT_BUDGET: usize = 160;
/// Instructions a loop without a pragma may grow to when its body waits at
/// a barrier: a block-wide tree or scan step over shared memory, whose
/// counter feeds shared addresses and thread-index tests. Unrolled, those
/// become immediates, as nvcc makes them.
pub const BARRIER_BUDGET: usize = 512;
/// The most iterations a loop without a pragma is unrolled for.
pub const DEFAULT_MAX_TRIPS: u64 = 32;
/// Instructions a `#pragma unroll` loop may grow to.
pub const PRAGMA_BUDGET: usize = 8192;
/// Trip counts are simulated up to this many iterations.
const MAX_SIMULATED: u64 = 4096;

/// The pass-table entry; returns what changed (the CFG, when any loop was
/// unrolled).
pub fn unroll_loops(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let mut changed = false;
    // Each round removes at least one loop; nesting depth bounds the
    // rounds in practice, the cap guards bugs.
    for _ in 0..64 {
        if !unroll_round(func, analyses) {
            break;
        }
        analyses.cfg_changed();
        changed = true;
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    Changed::cfg_if(changed)
}

/// A loop this pass can unroll, with its trip count.
struct Plan {
    trips: u64,
    /// `Some(n)`: `#pragma unroll n` with `n` below the trip count, which
    /// it divides: `n` copies of the body stay a loop (see [`unroll`]).
    /// `None`: unrolled fully.
    factor: Option<u64>,
    /// The header's successor inside the loop, and the one outside.
    body_dest: BlockCall,
    exit_dest: BlockCall,
}

fn unroll_round(func: &mut Function, analyses: &mut Analyses) -> bool {
    let analysis = analyses.cfg(func).loops;
    // Layout positions, to lay each loop's copies out in its own order.
    let position = func.layout.block_positions();
    let mut touched: FxHashSet<usize> = FxHashSet::default();
    let mut groups: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    let mut removed: FxHashSet<Block> = FxHashSet::default();
    // Old header -> the header of its first copy.
    let mut firsts: FxHashMap<Block, Block> = FxHashMap::default();
    for (index, lp) in analysis.loops.iter().enumerate() {
        // A loop with an unrolled loop inside has changed under us.
        if touched.contains(&index) {
            continue;
        }
        let Some(plan) = plan(func, lp) else {
            continue;
        };
        let (new_blocks, first) = unroll(func, lp, &plan, &position);
        groups.insert(lp.header, new_blocks);
        firsts.insert(lp.header, first);
        removed.extend(lp.blocks.iter().copied());
        let mut up = lp.parent;
        while let Some(p) = up {
            touched.insert(p);
            up = analysis.loops[p].parent;
        }
    }
    if removed.is_empty() {
        return false;
    }
    func.layout.insert_blocks_before(&groups);
    func.layout.remove_blocks(&removed);
    // Edges into an unrolled loop (from anywhere, the new copies of other
    // loops included) go to its first copy.
    for &b in func.layout.blocks() {
        let Some(t) = func.layout.last_inst(b) else {
            continue;
        };
        for d in func.dfg.insts[t].branch_destinations_mut() {
            if let Some(&first) = firsts.get(&d.block) {
                d.block = first;
            }
        }
    }
    true
}

/// `x` wrapped to `bits`, as a signed and as an unsigned number.
fn wrap(x: i128, bits: u32) -> (i128, i128) {
    let mask = (1i128 << bits) - 1;
    let u = x & mask;
    let s = if u >> (bits - 1) & 1 == 1 {
        u - (1i128 << bits)
    } else {
        u
    };
    (s, u)
}

fn compare(cc: IntCC, a: i128, b: i128, bits: u32) -> bool {
    let ((sa, ua), (sb, ub)) = (wrap(a, bits), wrap(b, bits));
    match cc {
        IntCC::Eq => ua == ub,
        IntCC::Ne => ua != ub,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => ua < ub,
        IntCC::Ule => ua <= ub,
        IntCC::Ugt => ua > ub,
        IntCC::Uge => ua >= ub,
    }
}

/// Whether `lp` has the counted shape, its trip count, and whether the
/// budget allows unrolling it.
// Long: matching the counted shape (exit, test, start, step) and then
// running the counter and pricing the body are one decision over the
// same loop facts; each part is a commented paragraph.
fn plan(func: &Function, lp: &Loop) -> Option<Plan> {
    let hint = func.loop_hints.get(&lp.header).copied();
    if matches!(hint, Some(LoopHint::Count(1) | LoopHint::Unrolled))
        || Some(lp.header) == func.entry_block()
    {
        return None;
    }
    // One way out: the header's conditional branch.
    if lp.exits.len() != 1 || lp.exits[0].0 != lp.header || lp.latches.len() != 1 {
        return None;
    }
    let latch = lp.latches[0];
    let term = func.layout.last_inst(lp.header)?;
    let InstData::Brif {
        cond,
        then_dest,
        else_dest,
    } = &func.dfg.insts[term]
    else {
        return None;
    };
    let (body_dest, exit_dest, stay_if) = if lp.contains(then_dest.block) {
        (then_dest.clone(), else_dest.clone(), true)
    } else {
        (else_dest.clone(), then_dest.clone(), false)
    };
    if lp.contains(exit_dest.block) || !lp.contains(body_dest.block) {
        return None;
    }
    // The test: `icmp cc iv, C` or `icmp cc C, iv`.
    let ValueDef::Result(cmp, _) = func.dfg.value_def(func.dfg.resolve_aliases(*cond)) else {
        return None;
    };
    let InstData::IntCompare { cond: cc, args } = func.dfg.insts[cmp] else {
        return None;
    };
    let params = func.dfg.block_params(lp.header);
    let param_index = |v: Value| {
        params
            .iter()
            .position(|&p| p == func.dfg.resolve_aliases(v))
    };
    let (iv_index, cc, limit) = match (param_index(args[0]), param_index(args[1])) {
        (Some(i), _) => (i, cc, func.dfg.iconst_value(args[1])?),
        (None, Some(i)) => (i, cc.swapped(), func.dfg.iconst_value(args[0])?),
        _ => return None,
    };
    let iv = params[iv_index];
    let bits = func.dfg.value_type(iv).bits();
    if !(2..=64).contains(&bits) {
        return None;
    }
    // The start: the same constant on every entering edge.
    let mut start = None;
    for &b in &lp.entering {
        let Some(t) = func.layout.last_inst(b) else {
            continue;
        };
        for d in func.dfg.insts[t].branch_destinations() {
            if d.block == lp.header {
                let c = func.dfg.iconst_value(d.args[iv_index])?;
                if start.is_some_and(|s| s != c) {
                    return None;
                }
                start = Some(c);
            }
        }
    }
    let start = start?;
    // The step: the latch passes `iv + C`, `iv - C`, `iv * C`, `iv << C`,
    // `iv >> C` or `iv / C` (the halving loops of tree reductions).
    let latch_term = func.layout.last_inst(latch)?;
    let back = func.dfg.insts[latch_term]
        .branch_destinations()
        .into_iter()
        .find(|d| d.block == lp.header)?
        .args
        .get(iv_index)
        .copied()?;
    let ValueDef::Result(step_inst, _) = func.dfg.value_def(func.dfg.resolve_aliases(back)) else {
        return None;
    };
    let InstData::Binary {
        opcode,
        args: [a, b],
    } = func.dfg.insts[step_inst]
    else {
        return None;
    };
    let (a, b) = (func.dfg.resolve_aliases(a), func.dfg.resolve_aliases(b));
    let k = match opcode {
        // Commutative: the constant may be either operand.
        Opcode::Iadd | Opcode::Imul if a == iv => func.dfg.iconst_value(b)?,
        Opcode::Iadd | Opcode::Imul if b == iv => func.dfg.iconst_value(a)?,
        Opcode::Isub | Opcode::Ishl | Opcode::Sshr | Opcode::Ushr | Opcode::Sdiv | Opcode::Udiv
            if a == iv =>
        {
            func.dfg.iconst_value(b)?
        }
        _ => return None,
    };
    let step = |x: i128| -> Option<i128> {
        let (sx, ux) = wrap(x, bits);
        let (sk, uk) = wrap(k as i128, bits);
        Some(match opcode {
            Opcode::Iadd => x + sk,
            Opcode::Isub => x - sk,
            Opcode::Imul => x * sk,
            // A shift by the width or more is undefined: not simulated.
            Opcode::Ishl if (0..bits as i128).contains(&uk) => ux << uk,
            Opcode::Sshr if (0..bits as i128).contains(&uk) => sx >> uk,
            Opcode::Ushr if (0..bits as i128).contains(&uk) => ux >> uk,
            // Rust's `/` truncates toward zero, as C's does.
            Opcode::Sdiv if sk != 0 && !(sk == -1 && sx == -(1i128 << (bits - 1))) => sx / sk,
            Opcode::Udiv if uk != 0 => ux / uk,
            _ => return None,
        })
    };
    // Run the counter.
    let mut x = start as i128;
    let mut trips = 0u64;
    while compare(cc, x, limit as i128, bits) == stay_if {
        trips += 1;
        if trips > MAX_SIMULATED {
            return None;
        }
        x = wrap(step(x)?, bits).0;
    }
    // Constants count half: `gvn` shares the ones every copy makes alike,
    // but not those that differ per copy (the counter's values, offsets
    // scaled from it). The same walk sees whether the body waits at a
    // barrier.
    let (mut others, mut constants, mut waits) = (0usize, 0usize, false);
    for &b in &lp.blocks {
        for &i in func.layout.block_insts(b) {
            let data = &func.dfg.insts[i];
            if is_constant(data) {
                constants += 1;
            } else {
                others += 1;
            }
            waits |= matches!(data.opcode(), Opcode::Barrier | Opcode::GridBarrier);
        }
    }
    let size = others + constants / 2;
    let grown = size.saturating_mul(trips as usize);
    let budget = if waits {
        BARRIER_BUDGET
    } else {
        DEFAULT_BUDGET
    };
    // `#pragma unroll n` below the trip count: `n` copies, when `n` divides
    // the trip count (no leftover iterations to run).
    if let Some(LoopHint::Count(n)) = hint {
        let n = u64::from(n);
        if trips > n {
            let fits = trips.is_multiple_of(n) && size.saturating_mul(n as usize) <= PRAGMA_BUDGET;
            return fits.then_some(Plan {
                trips,
                factor: Some(n),
                body_dest,
                exit_dest,
            });
        }
    }
    let allowed = match hint {
        Some(LoopHint::Full) => grown <= PRAGMA_BUDGET,
        Some(LoopHint::Count(_)) => grown <= PRAGMA_BUDGET,
        Some(LoopHint::Unrolled) => false,
        None => grown <= budget && trips <= DEFAULT_MAX_TRIPS,
    };
    allowed.then_some(Plan {
        trips,
        factor: None,
        body_dest,
        exit_dest,
    })
}

/// Makes the copies of `lp` and redirects the edges into it. Returns the
/// new blocks in layout order; the caller places them and removes the old.
fn unroll(
    func: &mut Function,
    lp: &Loop,
    plan: &Plan,
    position: &FxHashMap<Block, usize>,
) -> (Vec<Block>, Block) {
    // The loop's blocks in layout order, header first.
    let mut order: Vec<Block> = vec![lp.header];
    let mut rest: Vec<Block> = lp
        .blocks
        .iter()
        .copied()
        .filter(|&b| b != lp.header)
        .collect();
    rest.sort_by_key(|b| position.get(b).copied().unwrap_or(usize::MAX));
    order.extend(rest);
    // Fully: one copy per trip, then the header alone (the exit). By a
    // factor: that many copies, the last one's back edge going to the first.
    let (copies, last) = match plan.factor {
        None => (plan.trips as usize, plan.trips as usize),
        Some(n) => (n as usize, n as usize - 1),
    };
    let partial = plan.factor.is_some();
    // Blocks of every copy, with parameters like the originals.
    let mut block_maps: Vec<FxHashMap<Block, Block>> = Vec::with_capacity(copies + 1);
    let mut value_maps: Vec<FxHashMap<Value, Value>> = Vec::with_capacity(copies + 1);
    let mut new_blocks = Vec::new();
    for k in 0..=last {
        let mut bm = FxHashMap::default();
        let mut vm = FxHashMap::default();
        let these: &[Block] = if k == copies { &order[..1] } else { &order };
        for &b in these {
            let nb = func.dfg.make_block();
            for p in func.dfg.block_params(b).to_vec() {
                let np = func.dfg.append_block_param(nb, func.dfg.value_type(p));
                vm.insert(p, np);
            }
            bm.insert(b, nb);
            new_blocks.push(nb);
            if b != lp.header {
                if let Some(&h) = func.loop_hints.get(&b) {
                    func.loop_hints.insert(nb, h);
                }
            }
        }
        block_maps.push(bm);
        value_maps.push(vm);
    }
    // Instructions: first make them all (so every result has its copy),
    // then rewrite their operands and destinations.
    let mut made: Vec<(usize, Inst, Inst)> = Vec::new();
    for k in 0..=last {
        let these: Vec<Block> = if k == copies {
            order[..1].to_vec()
        } else {
            order.clone()
        };
        for b in these {
            let nb = block_maps[k][&b];
            for inst in func.layout.block_insts(b).to_vec() {
                // By a factor, the first copy's header keeps the test: the
                // loop leaves only there, after a multiple of the factor of
                // trips, which is the trip count. The other copies' tests
                // always hold.
                let is_test = inst == func.layout.last_inst(lp.header).expect("header ends");
                let data = if is_test && !(partial && k == 0) {
                    let dest = if k == copies {
                        plan.exit_dest.clone()
                    } else {
                        plan.body_dest.clone()
                    };
                    InstData::Jump { dest }
                } else {
                    func.dfg.insts[inst].clone()
                };
                let types: Vec<_> = func
                    .dfg
                    .inst_results(inst)
                    .iter()
                    .map(|&r| func.dfg.value_type(r))
                    .collect();
                let ni = func.dfg.make_inst(data, &types);
                let olds = func.dfg.inst_results(inst).to_vec();
                let news = func.dfg.inst_results(ni).to_vec();
                for (o, n) in olds.into_iter().zip(news) {
                    value_maps[k].insert(o, n);
                }
                func.layout.append_inst(ni, nb);
                func.spans[ni] = func.spans[inst];
                made.push((k, inst, ni));
            }
        }
    }
    for (k, _, ni) in made {
        let vm = &value_maps[k];
        let mut data = func.dfg.insts[ni].clone();
        data.map_args(|v| {
            let v = func.dfg.resolve_aliases(v);
            vm.get(&v).copied().unwrap_or(v)
        });
        for d in data.branch_destinations_mut() {
            if d.block == lp.header {
                // A back edge (or, in copy 0..N, the header's own test
                // going into the body): on to the next copy; by a factor,
                // from the last copy back to the first.
                let next = if partial {
                    (k + 1) % copies
                } else {
                    (k + 1).min(copies)
                };
                d.block = block_maps[next][&lp.header];
            } else if let Some(&nb) = block_maps[k].get(&d.block) {
                d.block = nb;
            }
        }
        func.dfg.insts[ni] = data;
    }
    // After the loop, the old header's values are those of the copy whose
    // header leaves: the last one, or by a factor the first.
    let leaving = &value_maps[if partial { 0 } else { copies }];
    let mut header_values: Vec<Value> = func.dfg.block_params(lp.header).to_vec();
    for &inst in func.layout.block_insts(lp.header) {
        header_values.extend(func.dfg.inst_results(inst).iter().copied());
    }
    for v in header_values {
        if let Some(&n) = leaving.get(&v) {
            func.dfg.change_to_alias(v, n);
        }
    }
    func.loop_hints.remove(&lp.header);
    let first = block_maps[0][&lp.header];
    if partial {
        // As nvcc does: ptxas must not unroll the unrolled loop again.
        func.loop_hints.insert(first, LoopHint::Count(1));
    }
    (new_blocks, first)
}
