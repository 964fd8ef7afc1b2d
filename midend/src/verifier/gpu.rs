//! Phase 5: address-space rules and GPU rules on signatures and stack slots;
//! module checks on variables.

use super::{Ctx, VerifierError, VerifierErrors};
use crate::ir::{AddrSpace, FuncKind, InstData, Module, Opcode, Type};
use crate::text::CommentAt;
use rustc_hash::FxHashMap;

/// An atomic's address must be in global, shared or generic memory.
fn atomic_space(cx: &mut Ctx, inst: crate::ir::Inst, op: Opcode, ptr_ty: Type) {
    if let Type::Ptr(space) = ptr_ty {
        if !matches!(
            space,
            AddrSpace::Global | AddrSpace::Shared | AddrSpace::SharedCluster | AddrSpace::Generic
        ) {
            cx.at_inst(
                inst,
                format!("{op} through ptr<{space}>; atomics need global, shared or generic memory"),
            );
        }
    }
}

/// Phase 5.
pub(super) fn check_gpu(cx: &mut Ctx) {
    check_signature(cx);
    let func = cx.func;
    for (ss, data) in func.stack_slots.iter() {
        if !data.align.is_power_of_two() {
            cx.at_func(format!(
                "{ss} alignment {} is not a power of two",
                data.align
            ));
        }
    }
    let dfg = &func.dfg;
    let ty = |v| dfg.value_type(v);
    for (_, inst) in cx.checkable_insts() {
        let data = &dfg.insts[inst];
        match data {
            InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [p, _],
            } => {
                let result = dfg.results[inst].first().map(|&r| ty(r));
                if let (Type::Ptr(from), Some(Type::Ptr(to))) = (ty(*p), result) {
                    if from != to {
                        cx.at_inst(
                            inst,
                            format!("ptroffset changes the address space from {from} to {to}"),
                        );
                    }
                }
            }
            InstData::AddrSpaceCast { to, arg } => {
                if let Type::Ptr(from) = ty(*arg) {
                    let to = *to;
                    if from == AddrSpace::Tmem || to == AddrSpace::Tmem {
                        cx.at_inst(
                            inst,
                            format!("addrspacecast from {from} to {to}: tmem has no generic form"),
                        );
                    } else if from == to {
                        cx.at_inst(inst, format!("addrspacecast from {from} to itself"));
                    } else if from != AddrSpace::Generic && to != AddrSpace::Generic {
                        cx.at_inst(
                            inst,
                            format!("addrspacecast from {from} to {to}: one side must be generic"),
                        );
                    }
                }
            }
            InstData::Load { ptr, flags, .. } | InstData::Store { ptr, flags, .. } => {
                let op = data.opcode();
                if flags.align != 0 && !flags.align.is_power_of_two() {
                    cx.at_inst(
                        inst,
                        format!("{op} alignment {} is not a power of two", flags.align),
                    );
                }
                if let Type::Ptr(space) = ty(*ptr) {
                    if !space.allows_load_store() {
                        cx.at_inst(
                            inst,
                            format!("{op} through ptr<{space}>; {space} has no ordinary loads and stores"),
                        );
                    } else if op == Opcode::Store && !space.is_writable() {
                        cx.at_inst(
                            inst,
                            format!("store through ptr<{space}>; {space} memory is read-only"),
                        );
                    }
                }
            }
            InstData::AtomicRmw { args: [p, _], .. }
            | InstData::AtomicCas {
                args: [p, _, _], ..
            } => atomic_space(cx, inst, data.opcode(), ty(*p)),
            InstData::AtomicVec { args, .. } if !func.dfg.is_global_only_atomic(inst) => {
                if let Some(&p) = args.first() {
                    atomic_space(cx, inst, data.opcode(), ty(p));
                }
            }
            InstData::AtomicVec { args, .. } => {
                if let Some(Type::Ptr(space)) = args.first().map(|&p| ty(p)) {
                    if !matches!(space, AddrSpace::Global | AddrSpace::Generic) {
                        cx.at_inst(
                            inst,
                            format!("atomic_vec through ptr<{space}>; vector atomics need global (or generic) memory"),
                        );
                    }
                }
            }
            InstData::IsSpace { arg, .. } if ty(*arg) == Type::Ptr(AddrSpace::Tmem) => {
                cx.at_inst(
                    inst,
                    "is_space of ptr<tmem>; only tcgen05 operations use tensor-memory addresses",
                );
            }
            InstData::Call { func: callee, .. } => {
                if let Some(callee) = cx.module.and_then(|m| m.functions.get(*callee)) {
                    if callee.attrs.kind == FuncKind::Kernel {
                        cx.at_inst(inst, format!("call to kernel @{}", callee.name));
                    }
                }
            }
            InstData::FuncAddr { func: callee } => {
                if let Some(callee) = cx.module.and_then(|m| m.functions.get(*callee)) {
                    if callee.attrs.kind == FuncKind::Kernel {
                        cx.at_inst(inst, format!("func_addr of kernel @{}", callee.name));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Kernel and parameter rules on the signature and attributes.
fn check_signature(cx: &mut Ctx) {
    let func = cx.func;
    let kernel = func.is_kernel();
    if kernel && !func.signature.returns.is_empty() {
        cx.at_func("kernel must not return values");
    }
    for (k, p) in func.signature.params.iter().enumerate() {
        let t = p.ty;
        if p.attrs.grid_constant && !kernel {
            cx.at_func(format!("grid_constant parameter {k} in a device function"));
        }
        if let Some((_, align)) = p.attrs.sret {
            if kernel {
                cx.at_func(format!("sret parameter {k} in a kernel"));
            } else if !t.is_ptr() {
                cx.at_func(format!("sret parameter {k} must be a pointer, got {t}"));
            }
            if p.attrs.byval.is_some() {
                cx.at_func(format!("parameter {k} is both byval and sret"));
            }
            if !align.is_power_of_two() {
                cx.at_func(format!(
                    "sret parameter {k} alignment {align} is not a power of two"
                ));
            }
            if !func.signature.returns.is_empty() {
                cx.at_func(format!(
                    "sret parameter {k} in a function that returns values"
                ));
            }
        }
        if let Some((_, align)) = p.attrs.byval {
            if kernel && t != Type::Ptr(AddrSpace::Param) {
                cx.at_func(format!(
                    "byval parameter {k} of a kernel must be ptr<param>, got {t}"
                ));
            } else if !kernel && !t.is_ptr() {
                cx.at_func(format!("byval parameter {k} must be a pointer, got {t}"));
            }
            if !align.is_power_of_two() {
                cx.at_func(format!(
                    "byval parameter {k} alignment {align} is not a power of two"
                ));
            }
        }
        if p.attrs.restrict && !t.is_ptr() {
            cx.at_func(format!("restrict parameter {k} is not a pointer"));
        }
        if p.attrs.noalias && !t.is_ptr() {
            cx.at_func(format!("noalias parameter {k} is not a pointer"));
        }
    }
    match func.attrs.cluster_dims {
        Some(_) if !kernel => cx.at_func("cluster_dims on a device function"),
        Some(dims) if dims.contains(&0) => cx.at_func("cluster_dims must be positive"),
        _ => {}
    }
    match func.attrs.launch_bounds {
        Some(_) if !kernel => cx.at_func("launch_bounds on a device function"),
        Some((0, _)) => cx.at_func("launch_bounds max threads must be positive"),
        _ => {}
    }
}

/// Module checks on variables, reported on the function location.
pub(super) fn check_globals(module: &Module) -> VerifierErrors {
    let mut errors = Vec::new();
    let mut report = |message: String| {
        errors.push(VerifierError {
            location: CommentAt::Function,
            message,
        })
    };
    let mut names = FxHashMap::default();
    for (gv, g) in module.globals.iter() {
        if let Some(&first) = names.get(g.name.as_str()) {
            report(format!(
                "duplicate variable name @{} ({gv} and {first})",
                g.name
            ));
        } else {
            names.insert(g.name.as_str(), gv);
        }
        if !matches!(
            g.space,
            AddrSpace::Global | AddrSpace::Shared | AddrSpace::Const
        ) {
            report(format!("{gv} cannot live in {} space", g.space));
        }
        if !g.align.is_power_of_two() {
            report(format!("{gv} alignment {} is not a power of two", g.align));
        }
        if let Some(init) = &g.init {
            if g.space == AddrSpace::Shared {
                report(format!("{gv} is shared and cannot have an initializer"));
            } else if init.len() as u64 > u64::from(g.size) {
                report(format!(
                    "{gv} initializer has {} bytes, size is {}",
                    init.len(),
                    g.size
                ));
            }
        }
        if g.managed && (g.space != AddrSpace::Global || g.dynamic) {
            report(format!("managed {gv} must be a sized global"));
        }
        if g.dynamic {
            if g.space != AddrSpace::Shared {
                report(format!("dynamic {gv} must be in shared space"));
            }
            if g.size != 0 {
                report(format!("dynamic {gv} must have size 0"));
            }
        }
    }
    VerifierErrors(errors)
}
