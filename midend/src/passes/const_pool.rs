//! `const-pool`: `double` constants that PTX cannot give ptxas cheaply are
//! read from a table in `.const` memory instead.
//!
//! A PTX immediate such as `0d3FC5555555555555` is a full 64-bit value,
//! but SASS instructions hold at most 32 bits of an immediate. ptxas
//! builds every other `double` constant in a uniform register pair with two
//! `UMOV`s, so a polynomial of degree 10 (the `double` `exp`, `log`, `sin`)
//! costs three instructions per coefficient. A constant read from a
//! `.const` variable at a fixed address becomes one `ULDC.64`, and the
//! `double` math of the corpus's `damped` kernel shrinks by about a tenth.
//! Constants whose low 32 bits are zero (`1.0`, `0.5`, `2^50`) fit SASS's
//! immediates and stay.
//!
//! The pass collects, over the whole module, the `f64` `fconst`s with
//! nonzero low bits, puts each distinct value once into the internal
//! `.const` table `__kernelc_f64_pool`, and replaces every use by a load
//! from it placed right before the instruction that reads it (one load per
//! constant and block): a load in the entry block would keep the value in
//! registers across every loop, where an immediate costs nothing while it
//! waits. It is the last pass of the `-O` pipelines, so nothing moves the
//! loads afterwards; the interpreter and the emulator read the table like
//! any `__constant__` variable.

use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{
    AddrSpace, Block, GlobalVarData, Inst, InstData, Linkage, MemFlags, Module, Type, Value,
    ValueDef,
};
use rustc_hash::FxHashMap;

/// The name of the table.
pub const POOL_NAME: &str = "__kernelc_f64_pool";

/// Whether SASS needs two instructions to build `value`.
fn wants_pool(value: f64) -> bool {
    value.to_bits() & 0xffff_ffff != 0
}

/// The pass-table entry; returns whether any constant moved to the table.
pub fn pool_constants(module: &mut Module) -> bool {
    if module.globals.values().any(|g| g.name == POOL_NAME) {
        return false;
    }
    // Byte offset of each constant (by its bits), in order of first use.
    let mut slots: FxHashMap<u64, i64> = FxHashMap::default();
    let mut order: Vec<u64> = Vec::new();
    let mut uses: Vec<Vec<(Inst, Value, u64)>> = Vec::new();
    for func in module.functions.values() {
        let mut found = Vec::new();
        for (_, inst) in func.layout.insts() {
            func.dfg.insts[inst].for_each_arg(|v| {
                let v = func.dfg.resolve_aliases(v);
                let ValueDef::Result(def, _) = func.dfg.value_def(v) else {
                    return;
                };
                if let InstData::Fconst {
                    ty: Type::F64,
                    value,
                } = func.dfg.insts[def]
                {
                    if wants_pool(value) {
                        let bits = value.to_bits();
                        if let std::collections::hash_map::Entry::Vacant(e) = slots.entry(bits) {
                            e.insert(8 * order.len() as i64);
                            order.push(bits);
                        }
                        found.push((inst, v, bits));
                    }
                }
            });
        }
        uses.push(found);
    }
    if order.is_empty() {
        return false;
    }
    let init: Vec<u8> = order.iter().flat_map(|b| b.to_le_bytes()).collect();
    let pool = module.push_global(GlobalVarData {
        name: POOL_NAME.into(),
        space: AddrSpace::Const,
        size: init.len() as u32,
        align: 8,
        init: Some(init),
        linkage: Linkage::Internal,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    });
    for (func, found) in module.functions.values_mut().zip(uses) {
        if found.is_empty() {
            continue;
        }
        // The load of each constant already made in a block.
        let mut loaded: FxHashMap<(Block, u64), Value> = FxHashMap::default();
        let mut consts: Vec<Inst> = Vec::new();
        for (inst, old, bits) in found {
            let block = func.layout.inst_block(inst).expect("placed");
            let new = match loaded.get(&(block, bits)) {
                Some(&v) => v,
                None => {
                    let mut cur = FuncCursor::before_with_span(func, inst);
                    let addr = cur.global_addr(AddrSpace::Const, pool);
                    let off = cur.iconst(Type::I64, slots[&bits]);
                    let at = cur.ptroffset(addr, off);
                    let v = cur.load(Type::F64, at, MemFlags::default());
                    loaded.insert((block, bits), v);
                    v
                }
            };
            let mut data = func.dfg.insts[inst].clone();
            data.map_args(|a| {
                if func.dfg.resolve_aliases(a) == old {
                    new
                } else {
                    a
                }
            });
            func.dfg.insts[inst] = data;
            if let ValueDef::Result(def, _) = func.dfg.value_def(old) {
                if !consts.contains(&def) {
                    consts.push(def);
                }
            }
        }
        // Every use was replaced: the constants go.
        func.layout.remove_insts(&consts.into_iter().collect());
    }
    true
}
