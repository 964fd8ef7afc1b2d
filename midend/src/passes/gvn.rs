//! Global value numbering: an instruction that computes exactly what an
//! earlier instruction in a dominating position computed is replaced by that
//! earlier result.
//!
//! The frontend recomputes `i * 4` for every `a[i]`; after this pass each
//! address is computed once. Only pure instructions take part: loads may see
//! different memory, `%warpid` and the clocks change while a thread runs, and
//! a warp collective (`shfl`, `vote`) depends on which lanes execute it.

use super::speculate::is_cheap_speculatable;
use super::Changed;
use crate::analysis::{Analyses, Cfg, DominatorTree};
use crate::ir::{Block, Function, Inst, InstData, Opcode, Type, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};

/// How many computations of one key the table remembers in blocks that
/// do not dominate each other.
const MAX_CANDIDATES: usize = 8;

/// A pure computation as a table key: the instruction, its operands already
/// resolved, and its result type. Two keys are equal when they compute the
/// same value. A float constant compares by its bits: `==` on `f64` would
/// merge `0.0` with `-0.0` and keep a NaN apart from itself.
struct Key {
    data: InstData,
    ty: Type,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.ty == other.ty
            && match (&self.data, &other.data) {
                (InstData::Fconst { ty: a, value: x }, InstData::Fconst { ty: b, value: y }) => {
                    a == b && x.to_bits() == y.to_bits()
                }
                (a, b) => a == b,
            }
    }
}

impl Eq for Key {}

impl Hash for Key {
    /// The opcode, the operands, the result type and a constant's bits: what
    /// tells most computations apart; equality checks the rest.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.ty.hash(state);
        self.data.opcode().hash(state);
        match &self.data {
            InstData::Iconst { imm, .. } => imm.hash(state),
            InstData::Fconst { value, .. } => value.to_bits().hash(state),
            // Without operands the address's variable or slot is what tells
            // them apart (thousands of `__constant__` arrays hashed alike).
            InstData::GlobalAddr { gv } => gv.hash(state),
            InstData::StackAddr { slot } => slot.hash(state),
            _ => {}
        }
        self.data.for_each_arg(|v| v.hash(state));
    }
}

/// Earlier computations of one key: each result, its instruction and the
/// block the instruction sits in now.
type Candidates = SmallVec<[(Value, Inst, Block); 1]>;

/// Whether two instances of `data` with equal operands always give equal results.
fn is_pure(data: &InstData) -> bool {
    let op = data.opcode();
    match data {
        InstData::SpecialReg { reg } => reg.is_invariant(),
        InstData::Load { .. } | InstData::Store { .. } | InstData::Call { .. } => false,
        // Two copies of a warp collective may see different active lanes.
        _ if op.is_convergent() => false,
        _ => !op.has_side_effects() && op != Opcode::Trap,
    }
}

/// Replaces redundant computations; returns whether anything changed.
///
/// The blocks are visited in reverse post-order (every block after its
/// dominators) with one table of the computations seen so far. A lookup
/// that finds an earlier computation in a dominating block reuses its
/// result. One that finds it in a block that does not dominate this one
/// (the `then` and the `else` of an `if`, or two `if`s one after the
/// other, both computing `tile + 4 * tid.x`) *hoists* it: the earlier
/// instruction moves to the end of the nearest block that dominates both,
/// and serves both. The operands are available there: each is defined in a
/// block that dominates both uses, hence dominates their nearest common
/// dominator too. Only cheap, speculatable instructions are hoisted
/// (`speculate.rs`): the common dominator may run on paths that needed
/// neither copy. And nothing is hoisted into a loop that does not contain
/// both copies, where it would run on every iteration.
pub fn number_values(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let Cfg { domtree, loops, .. } = analyses.cfg(func);
    let innermost = loops.innermost_map();
    // Key: the computation ([`Key`]). Value: earlier computations of the
    // key, each with its result, its instruction and the block it sits in
    // now. A key has more than one when hoisting was not allowed (a loop in
    // the way); the list is short.
    let mut table: FxHashMap<Key, Candidates> = FxHashMap::default();
    let mut dead = FxHashSet::default();
    // Values something reads. An unused computation (left for `dce`) must
    // not make another copy move: it takes no part.
    let mut used: FxHashSet<Value> = FxHashSet::default();
    for (_, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            used.insert(func.dfg.resolve_aliases(v));
        });
    }
    for &block in domtree.reverse_post_order() {
        let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
        for inst in insts {
            func.dfg.resolve_args(inst);
            let data = &func.dfg.insts[inst];
            let result = match func.dfg.inst_results(inst) {
                &[result] => result,
                _ => continue,
            };
            if !is_pure(data) || !used.contains(&result) {
                continue;
            }
            let cheap = is_cheap_speculatable(data);
            let key = Key {
                data: data.clone(),
                ty: func.dfg.value_type(result),
            };
            let seen = table.entry(key).or_default();
            if let Some(&(earlier, _, _)) = seen.iter().find(|c| domtree.dominates(c.2, block)) {
                func.dfg.change_to_alias(result, earlier);
                dead.insert(inst);
                continue;
            }
            let hoist_to = if cheap {
                seen.iter().enumerate().find_map(|(n, &(_, _, home))| {
                    let lca = common_dominator(domtree, home, block);
                    let stays_out_of_loops = match innermost.get(&lca) {
                        None => true,
                        Some(&l) => loops.loops[l].contains(home) && loops.loops[l].contains(block),
                    };
                    stays_out_of_loops.then_some((n, lca))
                })
            } else {
                None
            };
            let Some((n, lca)) = hoist_to else {
                if seen.len() < MAX_CANDIDATES {
                    seen.push((result, inst, block));
                }
                continue;
            };
            let (earlier, at, _) = seen[n];
            let term = func
                .layout
                .last_inst(lca)
                .expect("a dominator has a terminator");
            func.layout.remove_inst(at);
            func.layout.insert_inst_before(at, term);
            seen[n].2 = lca;
            func.dfg.change_to_alias(result, earlier);
            dead.insert(inst);
        }
    }
    let changed = !dead.is_empty();
    func.layout.remove_insts(&dead);
    if changed {
        func.dfg.resolve_all_aliases();
    }
    // Hoisting moves instructions between blocks, never blocks or edges.
    Changed::insts_if(changed)
}

/// The nearest block that dominates both `a` and `b`.
fn common_dominator(domtree: &DominatorTree, a: Block, b: Block) -> Block {
    let mut x = a;
    while !domtree.dominates(x, b) {
        x = domtree
            .idom(x)
            .expect("the entry dominates every reachable block");
    }
    x
}
