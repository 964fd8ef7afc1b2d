//! Phase 5: address-space rules and GPU rules on signatures and stack slots;
//! module checks on variables.

use super::{Ctx, VerifierError, VerifierErrorKind as K, VerifierErrors};
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
            cx.at_inst(inst, K::AtomicSpace { opcode: op, space });
        }
    }
}

/// Phase 5.
pub(super) fn check_gpu(cx: &mut Ctx) {
    check_signature(cx);
    let func = cx.func;
    for (ss, data) in func.stack_slots.iter() {
        if !data.align.is_power_of_two() {
            cx.at_func(K::StackSlotAlign {
                slot: ss,
                align: data.align,
            });
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
                        cx.at_inst(inst, K::PtrOffsetSpace { from, to });
                    }
                }
            }
            InstData::AddrSpaceCast { to, arg } => {
                if let Type::Ptr(from) = ty(*arg) {
                    let to = *to;
                    if from == AddrSpace::Tmem || to == AddrSpace::Tmem {
                        cx.at_inst(inst, K::CastTmem { from, to });
                    } else if from == to {
                        cx.at_inst(inst, K::CastToItself { space: from });
                    } else if from != AddrSpace::Generic && to != AddrSpace::Generic {
                        cx.at_inst(inst, K::CastBetweenSpecific { from, to });
                    }
                }
            }
            InstData::Load { ptr, flags, .. } | InstData::Store { ptr, flags, .. } => {
                let op = data.opcode();
                if flags.align != 0 && !flags.align.is_power_of_two() {
                    let align = flags.align;
                    cx.at_inst(inst, K::MemAlign { opcode: op, align });
                }
                if let Type::Ptr(space) = ty(*ptr) {
                    if !space.allows_load_store() {
                        cx.at_inst(inst, K::NoLoadStore { opcode: op, space });
                    } else if op == Opcode::Store && !space.is_writable() {
                        cx.at_inst(inst, K::ReadOnlyStore { space });
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
                        cx.at_inst(inst, K::VectorAtomicSpace { space });
                    }
                }
            }
            InstData::IsSpace { arg, .. } if ty(*arg) == Type::Ptr(AddrSpace::Tmem) => {
                cx.at_inst(inst, K::IsSpaceTmem);
            }
            InstData::Call { func: callee, .. } => {
                if let Some(callee) = cx.module.and_then(|m| m.functions.get(*callee)) {
                    if callee.attrs.kind == FuncKind::Kernel {
                        let callee = callee.name.clone();
                        cx.at_inst(inst, K::CallToKernel { callee });
                    }
                }
            }
            InstData::FuncAddr { func: callee } => {
                if let Some(callee) = cx.module.and_then(|m| m.functions.get(*callee)) {
                    if callee.attrs.kind == FuncKind::Kernel {
                        let callee = callee.name.clone();
                        cx.at_inst(inst, K::FuncAddrOfKernel { callee });
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
        cx.at_func(K::KernelReturns);
    }
    for (k, p) in func.signature.params.iter().enumerate() {
        let t = p.ty;
        if p.attrs.grid_constant && !kernel {
            cx.at_func(K::GridConstantInDevice { param: k });
        }
        if let Some((_, align)) = p.attrs.sret {
            if kernel {
                cx.at_func(K::SretInKernel { param: k });
            } else if !t.is_ptr() {
                cx.at_func(K::SretNotPointer { param: k, found: t });
            }
            if p.attrs.byval.is_some() {
                cx.at_func(K::ByvalAndSret { param: k });
            }
            if !align.is_power_of_two() {
                cx.at_func(K::SretAlign { param: k, align });
            }
            if !func.signature.returns.is_empty() {
                cx.at_func(K::SretWithReturns { param: k });
            }
        }
        if let Some((_, align)) = p.attrs.byval {
            if kernel && t != Type::Ptr(AddrSpace::Param) {
                cx.at_func(K::KernelByvalType { param: k, found: t });
            } else if !kernel && !t.is_ptr() {
                cx.at_func(K::ByvalNotPointer { param: k, found: t });
            }
            if !align.is_power_of_two() {
                cx.at_func(K::ByvalAlign { param: k, align });
            }
        }
        if p.attrs.restrict && !t.is_ptr() {
            cx.at_func(K::RestrictNotPointer { param: k });
        }
        if p.attrs.noalias && !t.is_ptr() {
            cx.at_func(K::NoaliasNotPointer { param: k });
        }
    }
    match func.attrs.cluster_dims {
        Some(_) if !kernel => cx.at_func(K::ClusterDimsOnDevice),
        Some(dims) if dims.contains(&0) => cx.at_func(K::ClusterDimsZero),
        _ => {}
    }
    match func.attrs.launch_bounds {
        Some(_) if !kernel => cx.at_func(K::LaunchBoundsOnDevice),
        Some((0, _)) => cx.at_func(K::LaunchBoundsZero),
        _ => {}
    }
}

/// Why `r` holds an address no loader can give: a target that is not in
/// the module, a shared variable (whose address differs per block) or a
/// kernel (no device code can call one).
fn reloc_target_problem(module: &Module, r: &crate::ir::Reloc) -> Option<&'static str> {
    match r.target {
        crate::ir::RelocTarget::Global(t) => match module.globals.get(t) {
            None => Some("no such variable"),
            Some(g) if g.space != AddrSpace::Global && g.space != AddrSpace::Const => {
                Some("the target is not in global or constant memory")
            }
            Some(_) => None,
        },
        crate::ir::RelocTarget::Func(f) => match module.functions.get(f) {
            None => Some("no such function"),
            Some(func) if func.is_kernel() => Some("the target is a kernel"),
            Some(_) if r.addend != 0 => Some("a function's address takes no addend"),
            Some(_) => None,
        },
    }
}

/// Module checks on variables, reported on the function location.
pub(super) fn check_globals(module: &Module) -> VerifierErrors {
    let mut errors = Vec::new();
    let mut report = |kind: K| {
        errors.push(VerifierError {
            location: CommentAt::Function,
            kind,
        })
    };
    let mut names = FxHashMap::default();
    for (gv, g) in module.globals.iter() {
        if let Some(&first) = names.get(g.name.as_str()) {
            report(K::DuplicateVariable {
                name: g.name.clone(),
                gv,
                first,
            });
        } else {
            names.insert(g.name.as_str(), gv);
        }
        if !matches!(
            g.space,
            AddrSpace::Global | AddrSpace::Shared | AddrSpace::Const
        ) {
            report(K::VariableSpace { gv, space: g.space });
        }
        if !g.align.is_power_of_two() {
            report(K::VariableAlign { gv, align: g.align });
        }
        if let Some(init) = &g.init {
            if g.space == AddrSpace::Shared {
                report(K::SharedInitializer { gv });
            } else if init.len() as u64 > u64::from(g.size) {
                report(K::InitializerSize {
                    gv,
                    bytes: init.len(),
                    size: g.size,
                });
            }
        }
        let mut end = 0u64;
        for r in &g.relocs {
            let init_len = g.init.as_ref().map_or(0, Vec::len) as u64;
            let at = u64::from(r.offset);
            if at < end || at + 8 > init_len {
                report(K::RelocPlacement {
                    gv,
                    offset: r.offset,
                });
            }
            end = at + 8;
            if let Some(why) = reloc_target_problem(module, r) {
                report(K::RelocTarget {
                    gv,
                    offset: r.offset,
                    why,
                });
            }
        }
        if g.managed && (g.space != AddrSpace::Global || g.dynamic) {
            report(K::ManagedNotSizedGlobal { gv });
        }
        if g.dynamic {
            if g.space != AddrSpace::Shared {
                report(K::DynamicNotShared { gv });
            }
            if g.size != 0 {
                report(K::DynamicSize { gv });
            }
        }
    }
    VerifierErrors(errors)
}
