//! The closed world: may the module put a pointer that is not global into
//! global memory?
//!
//! Global memory holds what the host put there and what the module's own
//! code writes. The host only has global addresses to give (a shared or
//! local address means nothing outside the launch that made it), so if no
//! instruction of the module can put another kind of pointer there, a
//! pointer loaded from global memory is global. `interproc::propagate`
//! asks [`closed_world_holds`] about the result of a propagation that
//! assumed it (see there).
//!
//! A module variable's initializer may hold one (the address of a
//! variable that is not global). Otherwise, a pointer can reach global
//! memory three ways: stored as a pointer, stored as the bits of an
//! integer (made by `ptrtoint`, or read back as an integer from memory
//! where a pointer was stored), or copied there by an instruction that
//! moves memory (a TMA store). Each is looked for below.

use super::interproc::State;
use super::lattice::Space;
use crate::analysis::{Provenance, Root};
use crate::ir::{AccelOp, AddrSpace, Function, GlobalVar, InstData, Module, Opcode, Type, Value};
use cranelift_entity::EntityRef;
use std::collections::BTreeSet;

/// Whether some function loads a pointer from memory (only then does the
/// closed-world fact matter).
pub fn loads_pointers_from_memory(module: &Module) -> bool {
    module.functions.values().any(|f| {
        f.layout.insts().any(|(_, i)| {
            matches!(
                f.dfg.insts[i],
                InstData::Load {
                    ty: Type::Ptr(_),
                    ..
                }
            )
        })
    })
}

/// Whether, under the final `state`, no initializer and no instruction of
/// `module` can put a pointer that is not global into global memory:
///
/// * no module variable in global memory starts out holding the address
///   of one that is not global;
/// * every store of a pointer whose destination may be global memory (a
///   global or generic destination) stores a pointer proved global;
/// * a pointer not proved global stored to shared or local memory (a
///   *holder*) is only ever read back as a pointer: no integer load reads
///   such memory, and a stack slot holding one is not passed to a call
///   (which could read it as integers); a holder reached through a
///   parameter or a loaded pointer is not followed, and fails the test;
/// * no integer made from a pointer not proved global (`ptrtoint`), or read
///   from a holder, is stored, passed to a call, returned or written by an
///   atomic (its bits could be read back as a pointer); compared, it is
///   harmless;
/// * no TMA store copies shared memory (where any pointer may be) to global
///   memory, and every called function has a body (for an indirect call:
///   every function whose address is taken).
pub fn closed_world_holds(module: &Module, state: &State) -> bool {
    // An initializer may have put one there before any instruction ran.
    if module.initializers_hold_non_global(AddrSpace::Global) {
        return false;
    }
    // Pass 1: every store of a pointer, and the holders.
    let mut shared_holders: BTreeSet<GlobalVar> = BTreeSet::new();
    let mut stack_holders: Vec<BTreeSet<crate::ir::StackSlot>> = Vec::new();
    let mut provs: Vec<Provenance> = Vec::new();
    let taken = module.address_taken();
    let taken_have_bodies = module
        .functions
        .iter()
        .all(|(id, g)| !taken[id] || g.entry_block().is_some());
    for (id, f) in module.functions.iter() {
        let Some(a) = state.analyses.get(id.index()) else {
            return false;
        };
        let prov = Provenance::compute(f);
        let mut slots = BTreeSet::new();
        let space_of = |v| space(f, a, v);
        for (_, inst) in f.layout.insts() {
            match &f.dfg.insts[inst] {
                InstData::Store { value, ptr, .. } if f.dfg.value_type(*value).is_ptr() => {
                    let value_global = f.dfg.value_type(*value) == Type::Ptr(AddrSpace::Generic)
                        && space_of(*value) == Space::Concrete(AddrSpace::Global);
                    if value_global {
                        continue;
                    }
                    let dest_local_or_shared = matches!(
                        space_of(*ptr),
                        Space::Concrete(
                            AddrSpace::Shared
                                | AddrSpace::SharedCluster
                                | AddrSpace::Local
                                | AddrSpace::Tmem
                        )
                    );
                    if !dest_local_or_shared {
                        return false;
                    }
                    let roots = prov.roots_of(f, *ptr);
                    if roots.is_empty() {
                        return false;
                    }
                    for r in roots {
                        match r {
                            Root::Stack(s) => {
                                slots.insert(s);
                            }
                            Root::Global(g) => {
                                shared_holders.insert(g);
                            }
                            _ => return false,
                        }
                    }
                }
                InstData::Accel {
                    op: AccelOp::TmaStore { .. },
                    ..
                } => return false,
                InstData::Call { func, .. }
                    if module
                        .functions
                        .get(*func)
                        .is_none_or(|g| g.entry_block().is_none()) =>
                {
                    return false
                }
                // It may reach any function whose address is taken.
                InstData::CallIndirect { .. } if !taken_have_bodies => return false,
                _ => {}
            }
        }
        stack_holders.push(slots);
        provs.push(prov);
    }
    // Pass 2: integers that may carry a pointer's bits.
    for (id, f) in module.functions.iter() {
        let a = &state.analyses[id.index()];
        let prov = &provs[id.index()];
        let slots = &stack_holders[id.index()];
        let holds = |r: &Root| match r {
            Root::Stack(s) => slots.contains(s),
            Root::Global(g) => shared_holders.contains(g),
            // A shared variable's address may have come in any other way.
            Root::Param(_) | Root::Load(_) | Root::Opaque => !shared_holders.is_empty(),
        };
        let mut sources: Vec<Value> = Vec::new();
        for (_, inst) in f.layout.insts() {
            match &f.dfg.insts[inst] {
                InstData::Convert {
                    opcode: Opcode::Ptrtoint,
                    arg,
                    ..
                } if space(f, a, *arg) != Space::Concrete(AddrSpace::Global) => {
                    sources.extend(f.dfg.inst_results(inst));
                }
                InstData::Load { ty, ptr, .. }
                    if !ty.is_ptr() && prov.roots_of(f, *ptr).iter().any(holds) =>
                {
                    sources.extend(f.dfg.inst_results(inst));
                }
                InstData::Call { args, .. } | InstData::CallIndirect { args, .. } => {
                    let passes_holder = args.iter().any(|&v| {
                        f.dfg.value_type(v).is_ptr()
                            && prov
                                .roots_of(f, v)
                                .iter()
                                .any(|r| matches!(r, Root::Stack(s) if slots.contains(s)))
                    });
                    if passes_holder {
                        return false;
                    }
                }
                _ => {}
            }
        }
        if integers_escape(f, sources) {
            return false;
        }
    }
    true
}

/// The element of a pointer value (its type's space, or the analysis's
/// for a generic one); `Generic` for anything else.
fn space(f: &Function, a: &super::intra::Analysis, v: Value) -> Space {
    match f.dfg.value_type(v) {
        Type::Ptr(AddrSpace::Generic) => a.get(f, v),
        Type::Ptr(s) => Space::Concrete(s),
        _ => Space::Generic,
    }
}

/// Whether an integer computed from `roots` (through integer arithmetic,
/// conversions, selects, block parameters, shuffles and warp reductions)
/// is stored, passed to a call, returned, or written by an atomic or an
/// accelerator instruction: then its bits may reach memory and be read
/// back as a pointer.
fn integers_escape(f: &Function, roots: Vec<Value>) -> bool {
    if roots.is_empty() {
        return false;
    }
    let mut tainted: BTreeSet<Value> = roots.into_iter().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (_, inst) in f.layout.insts() {
            let data = &f.dfg.insts[inst];
            let mut uses_tainted = false;
            data.for_each_arg(|v| uses_tainted |= tainted.contains(&f.dfg.resolve_aliases(v)));
            if !uses_tainted {
                continue;
            }
            match data {
                InstData::Unary { .. }
                | InstData::Binary { .. }
                | InstData::Ternary { .. }
                | InstData::Convert { .. }
                | InstData::Shuffle { .. }
                | InstData::Redux { .. } => {
                    for &r in f.dfg.inst_results(inst) {
                        changed |= tainted.insert(r);
                    }
                }
                InstData::IntCompare { .. } | InstData::Load { .. } | InstData::IsSpace { .. } => {}
                // Through memory only as the address, never as the bits.
                InstData::Store { value, .. }
                | InstData::AtomicRmw {
                    args: [_, value], ..
                } => {
                    if tainted.contains(&f.dfg.resolve_aliases(*value)) {
                        return true;
                    }
                }
                InstData::AtomicCas {
                    args: [_, x, y], ..
                } => {
                    if [x, y]
                        .iter()
                        .any(|v| tainted.contains(&f.dfg.resolve_aliases(**v)))
                    {
                        return true;
                    }
                }
                InstData::AtomicVec { args, .. } => {
                    if args[1..]
                        .iter()
                        .any(|v| tainted.contains(&f.dfg.resolve_aliases(*v)))
                    {
                        return true;
                    }
                }
                InstData::Jump { .. } | InstData::Brif { .. } => {
                    for dest in data.branch_destinations() {
                        let params = f.dfg.block_params(dest.block);
                        for (&arg, &p) in dest.args.iter().zip(params) {
                            if tainted.contains(&f.dfg.resolve_aliases(arg)) {
                                changed |= tainted.insert(p);
                            }
                        }
                    }
                }
                _ => return true,
            }
        }
    }
    false
}
