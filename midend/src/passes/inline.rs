//! `inline`: replace calls of small device functions by a copy of their body.
//!
//! A PTX `call` is a real call: ptxas does not inline `.func`s, so every call
//! costs the argument and result copies through `.param` memory, a branch
//! and a return, and the callee cannot be optimized for the caller's
//! arguments (constants, address spaces, loop positions). nvcc inlines
//! device functions as a matter of course; this pass does it for functions
//! of at most [`INLINE_BUDGET`] instructions, and for `__forceinline__`
//! ones (`forceinline` in the IR) whatever their size.
//!
//! Inlining a call site `call @f(args)` in block `B`:
//!
//! 1. `B` is split after the call: the rest of `B` moves to a new block
//!    `B'`, which takes one parameter per result of `f`; the call's results
//!    become those parameters.
//! 2. `f`'s blocks are copied into the caller with fresh blocks and values.
//!    The copy's entry block has no parameters: uses of `f`'s parameters
//!    read the call's arguments instead. Stack slots and alias scopes get
//!    fresh copies too, and each `return vals` becomes `jump B'(vals)`.
//! 3. The call becomes `jump` to the copy's entry.
//!
//! Functions are visited callees first (post-order of the call graph), so
//! a function's own calls are already inlined when it is copied. What is
//! never inlined: `__noinline__` functions, functions on a call cycle
//! (recursion), callees whose `ftz` mode differs from the caller's, and a
//! callee that changes its by-value aggregate parameter (the call gives it
//! a private copy; reading the caller's aggregate in place is the same only
//! when the callee never writes it, lets it escape, or synchronizes with
//! other threads, which could change shared memory under it). A caller
//! stops taking inlined code at [`CALLER_LIMIT`] instructions.
//!
//! A call through a pointer that is the address of a known function
//! (`call_indirect` of a `func_addr`, once inlining or forwarding made the
//! address visible) becomes a direct call of it first, so it is inlined
//! too, as nvcc's inliner sees through such pointers; after a caller's
//! calls are inlined, the calls this uncovers get one more round.
//!
//! The pass runs after `contract`, so `-O0` (which does not inline)
//! contracts the same multiply-adds and computes the same bits.

use crate::ir::{
    Block, BlockCall, FuncId, FuncKind, Function, Inst, InstData, Module, Opcode, Type, Value,
    ValueDef,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// The most instructions a callee may have to be inlined.
pub const INLINE_BUDGET: usize = 150;
/// A caller of this many instructions takes no more inlined code.
pub const CALLER_LIMIT: usize = 20_000;

/// The pass-table entry; returns whether any call was inlined.
pub fn inline_calls(module: &mut Module) -> bool {
    let order = callees_first(module);
    let recursive = on_cycles(module);
    let mut changed = false;
    for &caller in &order {
        changed |= devirtualize(module, caller);
        // A second round only for the calls that inlining made direct.
        for _round in 0..2 {
            if !inline_into(module, caller, &recursive) {
                break;
            }
            changed = true;
            if !devirtualize(module, caller) {
                break;
            }
        }
    }
    changed
}

/// Inlines what it can of the calls `caller` makes now; returns whether
/// it inlined any.
fn inline_into(module: &mut Module, caller: FuncId, recursive: &FxHashSet<FuncId>) -> bool {
    // The calls are collected once: inlining one moves the others to
    // other blocks but keeps their instructions.
    let calls: Vec<Inst> = module.functions[caller]
        .layout
        .insts()
        .filter(|&(_, i)| matches!(module.functions[caller].dfg.insts[i], InstData::Call { .. }))
        .map(|(_, i)| i)
        .collect();
    let mut size = size(&module.functions[caller]);
    let mut inlined = false;
    for call in calls {
        if size >= CALLER_LIMIT {
            break;
        }
        let Some(callee) = inlinable(module, caller, call, recursive) else {
            continue;
        };
        let body = module.functions[callee].clone();
        size += body.layout.insts().count();
        inline_one(&mut module.functions[caller], call, &body);
        inlined = true;
    }
    if inlined {
        module.functions[caller].dfg.resolve_all_aliases();
    }
    inlined
}

/// Makes each `call_indirect` of `caller` whose callee is the `func_addr`
/// of a device function with exactly the call's signature (values only)
/// a direct `call` of it; returns whether any changed.
fn devirtualize(module: &mut Module, caller: FuncId) -> bool {
    let f = &module.functions[caller];
    let mut direct = Vec::new();
    for (_, inst) in f.layout.insts() {
        let InstData::CallIndirect { sig, args } = &f.dfg.insts[inst] else {
            continue;
        };
        let target = f.dfg.resolve_aliases(args[0]);
        let ValueDef::Result(def, _) = f.dfg.value_def(target) else {
            continue;
        };
        let InstData::FuncAddr { func } = f.dfg.insts[def] else {
            continue;
        };
        let Some(g) = module.functions.get(func) else {
            continue;
        };
        let same = g.attrs.kind == FuncKind::Device
            && g.signature.returns == sig.returns
            && g.signature.params.len() == sig.params.len()
            && g.signature
                .params
                .iter()
                .zip(&sig.params)
                .all(|(p, &t)| p.ty == t && p.attrs.byval.is_none() && p.attrs.sret.is_none());
        if same {
            direct.push((inst, func, args[1..].to_vec()));
        }
    }
    let changed = !direct.is_empty();
    let f = &mut module.functions[caller];
    for (inst, func, args) in direct {
        f.dfg.insts[inst] = InstData::Call { func, args };
    }
    changed
}

fn callees_of(func: &Function) -> Vec<FuncId> {
    func.layout
        .insts()
        .filter_map(|(_, i)| match func.dfg.insts[i] {
            InstData::Call { func, .. } => Some(func),
            _ => None,
        })
        .collect()
}

/// Every function, each after the functions it calls (cycles broken
/// anywhere), by an iterative depth-first walk.
fn callees_first(module: &Module) -> Vec<FuncId> {
    let mut done: FxHashSet<FuncId> = FxHashSet::default();
    let mut order = Vec::new();
    for root in module.functions.keys() {
        if done.contains(&root) {
            continue;
        }
        done.insert(root);
        let mut stack = vec![(root, callees_of(&module.functions[root]), 0usize)];
        while let Some((f, callees, next)) = stack.last_mut() {
            if let Some(&c) = callees.get(*next) {
                *next += 1;
                if module.functions.is_valid(c) && done.insert(c) {
                    let cs = callees_of(&module.functions[c]);
                    stack.push((c, cs, 0));
                }
            } else {
                order.push(*f);
                stack.pop();
            }
        }
    }
    order
}

/// The functions that can reach themselves through calls (Tarjan's
/// strongly connected components, without recursion).
fn on_cycles(module: &Module) -> FxHashSet<FuncId> {
    let graph: FxHashMap<FuncId, Vec<FuncId>> = module
        .functions
        .iter()
        .map(|(id, f)| {
            let cs = callees_of(f)
                .into_iter()
                .filter(|&c| module.functions.is_valid(c))
                .collect();
            (id, cs)
        })
        .collect();
    let mut index: FxHashMap<FuncId, (usize, usize)> = FxHashMap::default();
    let mut on_stack: FxHashSet<FuncId> = FxHashSet::default();
    let mut scc_stack: Vec<FuncId> = Vec::new();
    let mut cyclic = FxHashSet::default();
    let mut counter = 0;
    for root in module.functions.keys() {
        if index.contains_key(&root) {
            continue;
        }
        let mut work: Vec<(FuncId, usize)> = vec![(root, 0)];
        index.insert(root, (counter, counter));
        counter += 1;
        scc_stack.push(root);
        on_stack.insert(root);
        while let Some(&mut (f, ref mut next)) = work.last_mut() {
            if let Some(&c) = graph[&f].get(*next) {
                *next += 1;
                if let Some(&(ci, _)) = index.get(&c) {
                    if on_stack.contains(&c) {
                        let low = index[&f].1.min(ci);
                        index.get_mut(&f).expect("visited").1 = low;
                    }
                } else {
                    index.insert(c, (counter, counter));
                    counter += 1;
                    scc_stack.push(c);
                    on_stack.insert(c);
                    work.push((c, 0));
                }
                continue;
            }
            work.pop();
            let (fi, flow) = index[&f];
            if let Some(&(p, _)) = work.last() {
                let low = index[&p].1.min(flow);
                index.get_mut(&p).expect("visited").1 = low;
            }
            if fi == flow {
                let mut members = Vec::new();
                while let Some(m) = scc_stack.pop() {
                    on_stack.remove(&m);
                    members.push(m);
                    if m == f {
                        break;
                    }
                }
                if members.len() > 1 || graph[&f].contains(&f) {
                    cyclic.extend(members);
                }
            }
        }
    }
    cyclic
}

fn size(func: &Function) -> usize {
    func.layout.insts().count()
}

/// The callee of `call` in `caller`, if the call may be inlined.
fn inlinable(
    module: &Module,
    caller: FuncId,
    call: Inst,
    recursive: &FxHashSet<FuncId>,
) -> Option<FuncId> {
    let f = &module.functions[caller];
    let InstData::Call { func: callee, .. } = f.dfg.insts[call] else {
        return None;
    };
    let g = module.functions.get(callee)?;
    let ok = callee != caller
        && !recursive.contains(&callee)
        && g.attrs.kind == FuncKind::Device
        && !g.attrs.noinline
        && g.attrs.ftz == f.attrs.ftz
        && g.entry_block().is_some()
        && (g.attrs.forceinline || size(g) <= INLINE_BUDGET)
        && byval_args_stay_copies(f, call, g);
    ok.then_some(callee)
}

/// Whether the objects passed by value at `call` (the caller passes their
/// address, the ABI copies them) may be used in place once `g` is inlined
/// there: `g` only reads its by-value parameters, and either each object
/// is the calling thread's own (a stack slot, which no other thread can
/// write) or `g` does nothing that would let another thread's write show
/// through (barriers, fences, atomics, calls, warp collectives).
fn byval_args_stay_copies(f: &Function, call: Inst, g: &Function) -> bool {
    let byval: Vec<Value> = g
        .params()
        .iter()
        .zip(&g.signature.params)
        .filter(|(_, abi)| abi.attrs.byval.is_some())
        .map(|(&v, _)| v)
        .collect();
    if byval.is_empty() {
        return true;
    }
    let InstData::Call { args, .. } = &f.dfg.insts[call] else {
        return false;
    };
    let own = g
        .signature
        .params
        .iter()
        .zip(args)
        .filter(|(abi, _)| abi.attrs.byval.is_some())
        .all(|(_, &a)| is_stack_slot(f, a));
    byval_params_read_only(g, byval, !own)
}

/// Whether `v` is the address of one of `f`'s stack slots (through
/// address-space casts).
fn is_stack_slot(f: &Function, v: Value) -> bool {
    match f.dfg.defining_data(v) {
        Some(InstData::StackAddr { .. }) => true,
        Some(InstData::AddrSpaceCast { arg, .. }) => is_stack_slot(f, *arg),
        _ => false,
    }
}

/// Whether `g` only reads its by-value parameters `byval`, and, when
/// `shared` (an object may be seen by other threads), does nothing that
/// would let another thread's write show through.
fn byval_params_read_only(g: &Function, byval: Vec<Value>, shared: bool) -> bool {
    let synchronizes = shared
        && g.layout.insts().any(|(_, i)| {
            let op = g.dfg.insts[i].opcode();
            op.is_convergent()
                || matches!(
                    op,
                    Opcode::Call
                        | Opcode::Fence
                        | Opcode::AtomicRmw
                        | Opcode::AtomicCas
                        | Opcode::AtomicVec
                )
                || (op.has_side_effects() && !matches!(op, Opcode::Store) && !op.is_terminator())
        });
    if synchronizes {
        return false;
    }
    // Values derived from a by-value parameter by address arithmetic.
    let mut derived: FxHashSet<Value> = byval.into_iter().collect();
    for (_, inst) in g.layout.insts() {
        let data = &g.dfg.insts[inst];
        let reads_derived = |v: Value| derived.contains(&g.dfg.resolve_aliases(v));
        match data {
            InstData::Load { .. } => {}
            InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [p, off],
            } => {
                if reads_derived(*off) {
                    return false;
                }
                if reads_derived(*p) {
                    if let Some(r) = g.dfg.first_result(inst) {
                        derived.insert(r);
                    }
                }
            }
            InstData::AddrSpaceCast { arg, .. } => {
                if reads_derived(*arg) {
                    if let Some(r) = g.dfg.first_result(inst) {
                        derived.insert(r);
                    }
                }
            }
            _ => {
                let mut escapes = false;
                data.for_each_arg(|v| escapes |= reads_derived(v));
                if escapes {
                    return false;
                }
            }
        }
    }
    true
}

/// Inlines `callee` (a copy of the called function) at `call` in `caller`.
fn inline_one(caller: &mut Function, call: Inst, callee: &Function) {
    let InstData::Call { args, .. } = caller.dfg.insts[call].clone() else {
        unreachable!("inlinable accepts only calls");
    };
    let block = caller.layout.inst_block(call).expect("the call is placed");
    // 1. Split the block after the call.
    let after = caller.dfg.make_block();
    let insts = caller.layout.block_insts(block).to_vec();
    let pos = insts.iter().position(|&i| i == call).expect("in its block");
    let tail: Vec<Inst> = insts[pos + 1..].to_vec();
    caller.layout.remove_insts(&tail.iter().copied().collect());
    for &i in &tail {
        caller.layout.append_inst(i, after);
    }
    let results = caller.dfg.inst_results(call).to_vec();
    for r in results {
        let ty = caller.dfg.value_type(r);
        let p = caller.dfg.append_block_param(after, ty);
        caller.dfg.change_to_alias(r, p);
    }
    // The call instruction becomes a jump, which has no results.
    caller.dfg.results[call].clear();
    // 2. Copy the callee.
    let mut blocks: FxHashMap<Block, Block> = FxHashMap::default();
    let mut values: FxHashMap<Value, Value> = FxHashMap::default();
    let entry = callee.entry_block().expect("checked by inlinable");
    for (&p, &a) in callee.dfg.block_params(entry).iter().zip(&args) {
        values.insert(p, a);
    }
    let mut new_blocks = Vec::new();
    for &b in callee.layout.blocks() {
        let nb = caller.dfg.make_block();
        blocks.insert(b, nb);
        new_blocks.push(nb);
        if b != entry {
            for &p in callee.dfg.block_params(b) {
                let np = caller.dfg.append_block_param(nb, callee.dfg.value_type(p));
                values.insert(p, np);
            }
        }
    }
    let slots: FxHashMap<_, _> = callee
        .stack_slots
        .iter()
        .map(|(s, d)| (s, caller.stack_slots.push(*d)))
        .collect();
    let scopes: FxHashMap<_, _> = callee
        .alias_scopes
        .iter()
        .map(|(s, d)| (s, caller.alias_scopes.push(d.clone())))
        .collect();
    let mut made: Vec<Inst> = Vec::new();
    for &b in callee.layout.blocks() {
        for &inst in callee.layout.block_insts(b) {
            let mut data = callee.dfg.insts[inst].clone();
            for dest in data.branch_destinations_mut() {
                dest.block = blocks[&dest.block];
            }
            if let InstData::Return { args } = data {
                data = InstData::Jump {
                    dest: BlockCall::new(after, args),
                };
            }
            match &mut data {
                InstData::StackAddr { slot } => *slot = slots[slot],
                InstData::Load { flags, .. } | InstData::Store { flags, .. } => {
                    for s in flags.scopes.iter_mut().chain(flags.noalias.iter_mut()) {
                        *s = scopes[s];
                    }
                }
                _ => {}
            }
            let types: Vec<Type> = callee
                .dfg
                .inst_results(inst)
                .iter()
                .map(|&r| callee.dfg.value_type(r))
                .collect();
            let ni = caller.dfg.make_inst(data, &types);
            for (&old, &new) in callee
                .dfg
                .inst_results(inst)
                .iter()
                .zip(caller.dfg.inst_results(ni))
            {
                values.insert(old, new);
            }
            caller.spans[ni] = callee.spans[inst];
            caller.layout.append_inst(ni, blocks[&b]);
            made.push(ni);
        }
    }
    // Operands, now that every value of the callee has its copy.
    let map = |v: Value| -> Value {
        let v = callee.dfg.resolve_aliases(v);
        match callee.dfg.value_def(v) {
            ValueDef::Detached => v,
            _ => values.get(&v).copied().unwrap_or(v),
        }
    };
    for ni in made {
        caller.dfg.insts[ni].map_args(map);
    }
    for (b, hint) in &callee.loop_hints {
        if let Some(&nb) = blocks.get(b) {
            caller.loop_hints.insert(nb, *hint);
        }
    }
    // 3. The call jumps into the copy.
    caller.dfg.insts[call] = InstData::Jump {
        dest: BlockCall::new(blocks[&entry], Vec::new()),
    };
    new_blocks.push(after);
    let layout_blocks = caller.layout.blocks();
    let next = layout_blocks
        .iter()
        .position(|&b| b == block)
        .and_then(|i| layout_blocks.get(i + 1).copied());
    match next {
        Some(n) => {
            let groups: FxHashMap<Block, Vec<Block>> = [(n, new_blocks)].into_iter().collect();
            caller.layout.insert_blocks_before(&groups);
        }
        None => {
            for b in new_blocks {
                caller.layout.append_block(b);
            }
        }
    }
}
