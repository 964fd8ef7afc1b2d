//! `load-elim`: redundant-load elimination and store-to-load forwarding.
//!
//! A load that reads exactly the bytes an earlier load read, or an earlier
//! store wrote, with nothing in between that may have changed them, is
//! replaced by the value already in hand. "Nothing in between" is decided by
//! the alias analysis: a store in between only matters if it may alias.
//!
//! The walk keeps a list of *available* accesses (address, type, value)
//! while it goes down a block. A block starts with the list its only
//! predecessor ended with, when it has exactly one (then every path into it
//! comes through that predecessor's end). A block that several edges
//! enter (the join after an `if`) starts with the list of its immediate
//! dominator, less the entries that an instruction on some path from the
//! dominator to it may change ([`from_dominator`]): a struct built before
//! an `if` whose arms do not touch it is still known after the `if`.
//!
//! The same list finds *redundant stores*: a store of the value that the
//! memory is known to hold already (it was just loaded from, or stored to,
//! the same address) changes nothing and goes. C code that copies a struct
//! out, changes some fields and copies it back (`Particle p = ps[i]; p.x
//! += ...; ps[i] = p;`) stores every unchanged field back; removing those
//! stores also ends the loaded values' lives early.
//!
//! Never across a barrier, fence, atomic, call, warp sync or any other
//! instruction with an effect other than a store: other threads may write
//! shared or global memory there, and the program may rely on seeing it.
//! The one exception is a stack slot whose address never escapes (see
//! [`LocalCells`]): local memory belongs to the thread, and a callee that
//! was handed the slot by value got a copy, so a struct built in a slot,
//! passed to a `__noinline__` helper and read again after the call is read
//! from the values already in hand.
//! Volatile accesses are never removed, never reused, and a volatile store
//! still kills what it may alias.

use crate::analysis::{
    distinct_preds, AliasAnalysis, Analyses, Base, DominatorTree, LocalCells, ModuleAnalyses,
    Predecessors,
};
use crate::ir::{
    Block, FuncId, Function, GlobalVar, GlobalVarData, Inst, InstData, Module, Type, Value,
};
use cranelift_entity::PrimaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Copy, Debug)]
struct Available {
    /// The load or store that made the value available.
    inst: Inst,
    ty: Type,
    value: Value,
}

/// The pass-table entry over a module (so module variables' sizes are known).
/// (Calls keep what is known of slots passed to them by value: the module
/// says which arguments those are.)
pub fn eliminate_loads_module(module: &mut Module, analyses: &mut ModuleAnalyses) -> bool {
    let byval: FxHashMap<FuncId, Vec<bool>> = module
        .functions
        .iter()
        .map(|(id, f)| {
            let flags = f.signature.params.iter().map(|p| p.attrs.byval.is_some());
            (id, flags.collect())
        })
        .collect();
    let byval_arg = |g: FuncId, k: usize| byval.get(&g).and_then(|v| v.get(k)) == Some(&true);
    let globals = &module.globals;
    let mut changed = false;
    for (id, func) in module.functions.iter_mut() {
        changed |= eliminate_with(func, analyses.of(id), globals, &byval_arg);
    }
    changed
}

/// Removes the redundant loads and stores of one function; returns whether
/// it removed any.
fn eliminate_with(
    func: &mut Function,
    analyses: &mut Analyses,
    globals: &PrimaryMap<GlobalVar, GlobalVarData>,
    byval_arg: &dyn Fn(FuncId, usize) -> bool,
) -> bool {
    let (domtree, preds) = analyses.domtree_and_preds(func);
    let (replacements, dead_stores) = find_replacements(func, domtree, preds, globals, byval_arg);
    if replacements.is_empty() && dead_stores.is_empty() {
        return false;
    }
    let mut gone: FxHashSet<Inst> = dead_stores.into_iter().collect();
    for (load, value) in replacements {
        if let Some(res) = func.dfg.first_result(load) {
            func.dfg.change_to_alias(res, value);
        }
        gone.insert(load);
    }
    // One sweep per block (a removal one by one scans the block each time).
    func.layout.remove_insts(&gone);
    func.dfg.resolve_all_aliases();
    true
}

/// The most accesses a block remembers as available; past it the oldest is
/// forgotten. Every load and store is compared with each remembered
/// access, so without a bound a long block of loads from distinct places
/// costs the square of its length.
const MAX_AVAILABLE: usize = 256;

/// Adds `a` to the accesses available, forgetting the oldest past
/// [`MAX_AVAILABLE`].
fn remember(avail: &mut Vec<Available>, a: Available) {
    if avail.len() >= MAX_AVAILABLE {
        avail.remove(0);
    }
    avail.push(a);
}

/// The most instructions [`from_dominator`] looks at for one join.
const JOIN_SCAN_LIMIT: usize = 400;

/// What a block entered by several edges knows: what its immediate
/// dominator ended with, less what any instruction on a path from there
/// may change. Those instructions are in the blocks found by walking
/// backwards from the block's predecessors up to the dominator (every such
/// block is dominated by it; a loop through the block puts the block and
/// its loop in the walk, so their effects count too). Past
/// [`JOIN_SCAN_LIMIT`] instructions the block starts with nothing.
fn from_dominator(
    func: &Function,
    domtree: &DominatorTree,
    preds: &Predecessors,
    out_state: &FxHashMap<Block, Vec<Available>>,
    block: Block,
    aa: &AliasAnalysis,
    private: &dyn Fn(&Available) -> bool,
) -> Vec<Available> {
    let Some(idom) = domtree.idom(block) else {
        return Vec::new();
    };
    let Some(start) = out_state.get(&idom) else {
        return Vec::new();
    };
    if start.is_empty() {
        return Vec::new();
    }
    let mut avail = start.clone();
    let mut seen: Vec<Block> = vec![idom];
    let mut stack: Vec<Block> = reachable_preds(domtree, &preds[block]).collect();
    let mut scanned = 0;
    while let Some(b) = stack.pop() {
        if seen.contains(&b) {
            continue;
        }
        seen.push(b);
        for &inst in func.layout.block_insts(b) {
            scanned += 1;
            if scanned > JOIN_SCAN_LIMIT {
                return Vec::new();
            }
            let data = &func.dfg.insts[inst];
            match data {
                InstData::Store { .. } => avail.retain(|a| !aa.may_alias(a.inst, inst)),
                _ if data.opcode().has_side_effects() && !data.opcode().is_terminator() => {
                    avail.retain(private)
                }
                _ => {}
            }
        }
        if avail.is_empty() {
            return avail;
        }
        stack.extend(reachable_preds(domtree, &preds[b]));
    }
    avail
}

/// The reachable blocks among a block's predecessors, each once: an
/// unreachable block's stores never run, and a block with two edges to
/// the block is one way in.
fn reachable_preds<'a>(
    domtree: &'a DominatorTree,
    preds: &'a [Block],
) -> impl Iterator<Item = Block> + 'a {
    distinct_preds(preds).filter(|&p| domtree.is_reachable(p))
}

/// The loads to remove, each with the value that replaces it, and the
/// stores to remove.
fn find_replacements(
    func: &Function,
    domtree: &DominatorTree,
    preds: &Predecessors,
    globals: &PrimaryMap<GlobalVar, GlobalVarData>,
    byval_arg: &dyn Fn(FuncId, usize) -> bool,
) -> (Vec<(Inst, Value)>, Vec<Inst>) {
    let aa = AliasAnalysis::with_globals(func, globals);
    // Accesses to a stack slot nothing else can reach survive any effect.
    let cells = LocalCells::compute(func, byval_arg);
    let private = |a: &Available| {
        let ptr = match &func.dfg.insts[a.inst] {
            InstData::Load { ptr, .. } | InstData::Store { ptr, .. } => *ptr,
            _ => return false,
        };
        matches!(cells.address(func, ptr), Some((b @ Base::Slot(_), _)) if cells.is_followed(b))
    };
    let mut out_state: FxHashMap<Block, Vec<Available>> = FxHashMap::default();
    let mut replaced: Vec<(Inst, Value)> = Vec::new();
    let mut dead_stores: Vec<Inst> = Vec::new();
    // Replacement values may themselves be loads that were replaced: the
    // result of each replaced load, and what replaces it (a map; scanning
    // `replaced` per access was quadratic in a long block of loads).
    let mut by_result: FxHashMap<Value, Value> = FxHashMap::default();
    let resolve = |by_result: &FxHashMap<Value, Value>, v: Value| {
        let mut v = v;
        for _ in 0..by_result.len() + 1 {
            match by_result.get(&v) {
                Some(&to) => v = to,
                None => break,
            }
        }
        v
    };
    for &block in domtree.reverse_post_order() {
        let entered_from: Vec<Block> = reachable_preds(domtree, &preds[block]).collect();
        let mut avail: Vec<Available> = match entered_from.as_slice() {
            [only] if *only != block => out_state.get(only).cloned().unwrap_or_default(),
            [] => Vec::new(),
            _ => from_dominator(func, domtree, preds, &out_state, block, &aa, &private),
        };
        for &inst in func.layout.block_insts(block) {
            let data = &func.dfg.insts[inst];
            match data {
                InstData::Load { ty, flags, .. } => {
                    if flags.volatile {
                        continue;
                    }
                    let Some(res) = func.dfg.first_result(inst) else {
                        continue;
                    };
                    match avail
                        .iter()
                        .find(|a| a.ty == *ty && aa.must_alias(a.inst, inst))
                    {
                        Some(a) => {
                            let to = resolve(&by_result, a.value);
                            by_result.insert(res, to);
                            replaced.push((inst, to));
                        }
                        None => remember(
                            &mut avail,
                            Available {
                                inst,
                                ty: *ty,
                                value: res,
                            },
                        ),
                    }
                }
                InstData::Store { value, flags, .. } => {
                    let stored = resolve(&by_result, *value);
                    let ty = func.dfg.value_type(*value);
                    // Values in the list are already resolved.
                    let holds_already = !flags.volatile
                        && avail.iter().any(|a| {
                            a.ty == ty && a.value == stored && aa.must_alias(a.inst, inst)
                        });
                    if holds_already {
                        dead_stores.push(inst);
                        continue;
                    }
                    avail.retain(|a| !aa.may_alias(a.inst, inst));
                    if !flags.volatile {
                        remember(
                            &mut avail,
                            Available {
                                inst,
                                ty: func.dfg.value_type(*value),
                                value: resolve(&by_result, *value),
                            },
                        );
                    }
                }
                // Branches only pass values along; anything else with an effect
                // (barrier, fence, atomic, call, ...) may let memory change.
                _ if data.opcode().has_side_effects() && !data.opcode().is_terminator() => {
                    avail.retain(&private)
                }
                _ => {}
            }
        }
        out_state.insert(block, avail);
    }
    (replaced, dead_stores)
}
