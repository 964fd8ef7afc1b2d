//! Dead-code elimination: an instruction whose results nobody uses and that
//! has no effect (no store, call, barrier, volatile load or terminator) goes.

use crate::ir::{Function, Inst, InstData, Value};
use cranelift_entity::SecondaryMap;

/// Whether removing `data` (when its results are unused) keeps the program's meaning.
fn is_removable(data: &InstData) -> bool {
    match data {
        InstData::Load { flags, .. } => !flags.volatile,
        _ => !data.opcode().has_side_effects(),
    }
}

/// Removes dead instructions; returns whether anything was removed.
pub fn eliminate_dead_code(func: &mut Function) -> bool {
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
            return changed;
        }
        func.layout.remove_insts(&removed.into_iter().collect());
        changed = true;
    }
}
