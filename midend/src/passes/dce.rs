//! Dead-code elimination: an instruction whose results nobody uses and that
//! has no effect (no store, call, barrier, volatile load or terminator) goes.
//! So does a store into a stack slot that nothing ever reads: when every use
//! of the slot's address (through `ptroffset` and address-space casts) is
//! the address of a non-volatile store, the slot's contents are never
//! observed, and its stores, then its address arithmetic, are dead. (A
//! by-value struct argument's copy in the callee, whose fields were all
//! read from the parameter itself, is such a slot.)

use crate::ir::{Function, Inst, InstData, Opcode, StackSlot, Value};
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
    // Who uses each value; each slot's `stack_addr`s (all must qualify).
    let mut users: SecondaryMap<Value, Vec<Inst>> = SecondaryMap::new();
    let mut by_slot: FxHashMap<StackSlot, Vec<Value>> = FxHashMap::default();
    for (_, inst) in func.layout.insts() {
        let data = &func.dfg.insts[inst];
        data.for_each_arg(|v| users[v].push(inst));
        if let InstData::StackAddr { slot } = data {
            by_slot
                .entry(*slot)
                .or_default()
                .extend(func.dfg.inst_results(inst).first().copied());
        }
    }
    'slots: for (_, addrs) in by_slot {
        let mut stores = Vec::new();
        let mut work = addrs;
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            for &user in &users[p] {
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

/// Removes dead instructions; returns whether anything was removed.
pub fn eliminate_dead_code(func: &mut Function) -> bool {
    let dead_stores = write_only_slot_stores(func);
    let had_dead_stores = !dead_stores.is_empty();
    if had_dead_stores {
        func.layout.remove_insts(&dead_stores);
    }
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    for (_, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| uses[v] += 1);
    }
    // Walk backwards so that removing a use can make its definition dead in
    // the same sweep; repeat for chains that cross blocks.
    let mut changed = false;
    loop {
        let mut removed: Vec<Inst> = Vec::new();
        let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
        for &inst in insts.iter().rev() {
            let data = &func.dfg.insts[inst];
            let unused = func.dfg.inst_results(inst).iter().all(|&r| uses[r] == 0);
            if unused && is_removable(data) {
                data.for_each_arg(|v| uses[v] -= 1);
                removed.push(inst);
            }
        }
        if removed.is_empty() {
            return changed || had_dead_stores;
        }
        func.layout.remove_insts(&removed.into_iter().collect());
        changed = true;
    }
}
