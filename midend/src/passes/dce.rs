//! Dead-code elimination: an instruction whose results nobody uses and that
//! has no effect (no store, call, barrier, volatile load or terminator) goes.
//! So does a store into a stack slot that nothing ever reads: when every use
//! of the slot's address (through `ptroffset` and address-space casts) is
//! the address of a non-volatile store, the slot's contents are never
//! observed, and its stores, then its address arithmetic, are dead. (A
//! by-value struct argument's copy in the callee, whose fields were all
//! read from the parameter itself, is such a slot.)

use crate::ir::{Function, Inst, InstData, Opcode, StackSlot, Value, ValueDef};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

/// Whether removing `data` (when its results are unused) keeps the program's meaning.
fn is_removable(data: &InstData) -> bool {
    match data {
        InstData::Load { flags, .. } => !flags.volatile,
        _ => !data.opcode().has_side_effects(),
    }
}

/// The stores into stack slots that nothing reads: for each slot whose
/// address (and every pointer derived from it by `ptroffset` or an address
/// space cast) is used only as the address of non-volatile stores.
fn write_only_slot_stores(func: &Function) -> FxHashSet<Inst> {
    let mut dead = FxHashSet::default();
    // `dce` runs often (inside every `simplify`), and most functions have
    // no slot address left by then: a scan without allocating says so.
    let has_slot_address = func
        .layout
        .insts()
        .any(|(_, i)| matches!(func.dfg.insts[i], InstData::StackAddr { .. }));
    if !has_slot_address {
        return dead;
    }
    let users = users_of_address_values(func);
    let by_slot = slot_addresses(func);
    'slots: for (_, addrs) in by_slot {
        let mut stores = Vec::new();
        let mut work = addrs;
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            for &user in users.get(&p).map_or(&[][..], Vec::as_slice) {
                match &func.dfg.insts[user] {
                    InstData::Store { value, ptr, flags }
                        if *ptr == p && *value != p && !flags.volatile =>
                    {
                        stores.push(user)
                    }
                    InstData::Binary {
                        opcode: Opcode::PtrOffset,
                        args,
                    } if args[0] == p && args[1] != p => {
                        work.extend(func.dfg.inst_results(user).iter().copied())
                    }
                    InstData::AddrSpaceCast { .. } => {
                        work.extend(func.dfg.inst_results(user).iter().copied())
                    }
                    // Read, passed on, compared, stored as a value: live.
                    _ => continue 'slots,
                }
            }
        }
        dead.extend(stores);
    }
    dead
}

/// Each slot's `stack_addr` results (all must qualify for its stores to go).
fn slot_addresses(func: &Function) -> FxHashMap<StackSlot, Vec<Value>> {
    let mut by_slot: FxHashMap<StackSlot, Vec<Value>> = FxHashMap::default();
    for (_, inst) in func.layout.insts() {
        if let InstData::StackAddr { slot } = &func.dfg.insts[inst] {
            by_slot
                .entry(*slot)
                .or_default()
                .extend(func.dfg.inst_results(inst).first().copied());
        }
    }
    by_slot
}

/// Who uses each value that may point into a slot: the walk from a slot's
/// address only ever asks about results of `stack_addr`, `ptroffset` and
/// address space casts, so only those (and aliases, which could name any of
/// them) get a list, not every value of the function.
fn users_of_address_values(func: &Function) -> FxHashMap<Value, Vec<Inst>> {
    let mut users: FxHashMap<Value, Vec<Inst>> = FxHashMap::default();
    for (_, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            if may_be_slot_derived(func, v) {
                users.entry(v).or_default().push(inst);
            }
        });
    }
    users
}

/// Whether `v` is defined by an instruction that can derive a slot pointer
/// (or is an alias, which the walk would see unresolved).
fn may_be_slot_derived(func: &Function, v: Value) -> bool {
    match func.dfg.value_def(v) {
        ValueDef::Result(inst, _) => matches!(
            func.dfg.insts[inst],
            InstData::StackAddr { .. }
                | InstData::AddrSpaceCast { .. }
                | InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    ..
                }
        ),
        ValueDef::Alias(_) => true,
        ValueDef::Param(..) | ValueDef::Detached => false,
    }
}

/// Removes dead instructions; returns whether anything was removed.
pub fn eliminate_dead_code(func: &mut Function) -> bool {
    let dead_stores = write_only_slot_stores(func);
    let had_dead_stores = !dead_stores.is_empty();
    if had_dead_stores {
        func.layout.remove_insts(&dead_stores);
    }
    let dead = dead_insts(func);
    let removed_any = !dead.is_empty();
    if removed_any {
        func.layout.remove_insts(&dead);
    }
    removed_any || had_dead_stores
}

/// The placed instructions that can go: removable ones whose results nobody
/// uses, counting only uses by instructions that stay. A worklist finds
/// them in one walk: removing an instruction can only make the definitions
/// of its operands dead, so those are the only ones to look at again (the
/// set is the same whatever the order, since removing never revives a use).
fn dead_insts(func: &Function) -> FxHashSet<Inst> {
    // Every table is sized once, to the whole data-flow graph: grown one
    // index at a time, as the walk met new values, the resizing cost more
    // than the counting (`dce` runs after every fold, on unrolled bodies).
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    uses.resize(func.dfg.values.len());
    // The placed instruction listing each value among its results (a
    // result later made an alias still names it here).
    let mut defined_by: SecondaryMap<Value, PackedOption<Inst>> = SecondaryMap::new();
    defined_by.resize(func.dfg.values.len());
    let mut work: Vec<Inst> = Vec::with_capacity(func.dfg.insts.len());
    for (_, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| uses[v] += 1);
        for &r in func.dfg.inst_results(inst) {
            defined_by[r] = inst.into();
        }
        work.push(inst);
    }
    let mut is_dead: SecondaryMap<Inst, bool> = SecondaryMap::new();
    is_dead.resize(func.dfg.insts.len());
    let mut dead: Vec<Inst> = Vec::new();
    while let Some(inst) = work.pop() {
        let data = &func.dfg.insts[inst];
        if is_dead[inst]
            || !is_removable(data)
            || func.dfg.inst_results(inst).iter().any(|&r| uses[r] != 0)
        {
            continue;
        }
        is_dead[inst] = true;
        dead.push(inst);
        data.for_each_arg(|v| {
            uses[v] -= 1;
            if uses[v] == 0 {
                work.extend(defined_by[v].expand());
            }
        });
    }
    dead.into_iter().collect()
}
