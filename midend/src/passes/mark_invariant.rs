//! `mark-invariant`: find the global loads of a kernel whose memory nothing
//! writes while the kernel runs, and mark them `invariant`, so the backend
//! reads them through the non-coherent data cache (`ld.global.nc`).
//!
//! The read-only cache is not kept coherent with writes made during the
//! kernel, by this thread or any other. So the pass must prove that no
//! store, atomic or callee anywhere in the kernel may write the bytes, and
//! it only trusts that proof for memory reached from a `__restrict__`
//! parameter: without restrict, another pointer parameter (or the same
//! buffer passed twice) could write it. A load qualifies when
//!
//! 1. it is in a kernel (a device function cannot see what its callers write);
//! 2. it is not volatile;
//! 3. its pointer is `ptr<global>` (a generic load may not be global at all);
//! 4. its pointer is derived only from restricted roots (the access carries
//!    `scopes(...)`, stamped by `restrict`);
//! 5. no store or atomic of the kernel may alias it (by
//!    [`AliasAnalysis`]), and the kernel calls no function that writes memory.
//!
//! With `explain`, every global load gets a line saying which rule decided.

use crate::analysis::{AliasAnalysis, Provenance};
use crate::ir::{AddrSpace, FuncId, Inst, InstData, Module, SourceSpan};
use std::collections::HashSet;

/// Why a global load did or did not become `.nc`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Marked invariant now (or already was).
    NonCoherent,
    Volatile,
    /// The pointer is generic, so the load may not be a global access.
    Generic,
    /// The pointer is not derived from any restricted parameter.
    NoRestrictRoot,
    /// Some roots are restricted, but a join with another pointer lost the scope.
    ScopeLost,
    /// The pointer comes from a `__restrict__` parameter, but restrict
    /// processing did not run (`--process-restrict=0`).
    NotProcessed,
    /// A store or atomic that may alias it (described), at this span.
    WrittenAt(String, SourceSpan),
    /// The kernel calls a function that writes memory.
    CallWrites(String, SourceSpan),
}

/// One line of `--explain-nc`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Note {
    pub function: String,
    pub load: Inst,
    /// `v7 = load v5`, for messages.
    pub what: String,
    pub span: SourceSpan,
    pub verdict: Verdict,
}

impl Note {
    /// The explanation without source positions (the driver adds them).
    pub fn message(&self) -> String {
        match &self.verdict {
            Verdict::NonCoherent => "ld.global.nc".to_string(),
            Verdict::Volatile => "not .nc: the load is volatile".to_string(),
            Verdict::Generic => {
                "not .nc: the pointer is generic (memory-space inference could not prove global)"
                    .to_string()
            }
            Verdict::NoRestrictRoot => {
                "not .nc: the pointer does not come from a __restrict__ parameter".to_string()
            }
            Verdict::ScopeLost => {
                "not .nc: the restrict scope was lost (the pointer joins one that is not restricted)"
                    .to_string()
            }
            Verdict::NotProcessed => {
                "not .nc: restrict processing is off (--process-restrict=0)".to_string()
            }
            Verdict::WrittenAt(inst, _) => {
                format!("not .nc: the memory may be written (by `{inst}`)")
            }
            Verdict::CallWrites(callee, _) => {
                format!("not .nc: the kernel calls @{callee}, which writes memory")
            }
        }
    }

    /// The span of the instruction that prevented `.nc`, if any.
    pub fn culprit_span(&self) -> Option<SourceSpan> {
        match &self.verdict {
            Verdict::WrittenAt(_, s) | Verdict::CallWrites(_, s) => Some(*s),
            _ => None,
        }
    }
}

/// The pass-table entry: marks loads, returns whether anything changed.
pub fn mark_invariant_loads(module: &mut Module) -> bool {
    let mut notes = Vec::new();
    mark_module(module, &mut notes)
}

/// Marks the loads of every kernel; appends one note per global load.
pub fn mark_module(module: &mut Module, notes: &mut Vec<Note>) -> bool {
    let writers = functions_that_write(module);
    let ids: Vec<FuncId> = module.functions.keys().collect();
    let mut changed = false;
    for id in ids {
        if !module.functions[id].is_kernel() {
            continue;
        }
        let decisions = {
            let func = &module.functions[id];
            let aa = AliasAnalysis::with_module(func, module);
            let prov = Provenance::compute(func);
            let mut clobbers: Vec<Inst> = Vec::new();
            let mut bad_call: Option<(String, SourceSpan)> = None;
            for (_, inst) in func.layout.insts() {
                match &func.dfg.insts[inst] {
                    InstData::Store { .. }
                    | InstData::AtomicRmw { .. }
                    | InstData::AtomicCas { .. } => clobbers.push(inst),
                    // The alias analysis knows no access of these, so it
                    // answers "may alias" for every load: conservative.
                    InstData::Accel { op, .. } if op.writes_memory() => clobbers.push(inst),
                    InstData::Call { func: callee, .. }
                        if writers.contains(callee) && bad_call.is_none() =>
                    {
                        bad_call = Some((module.functions[*callee].name.clone(), func.spans[inst]))
                    }
                    _ => {}
                }
            }
            let mut out = Vec::new();
            for (_, inst) in func.layout.insts() {
                let InstData::Load { ptr, flags, .. } = &func.dfg.insts[inst] else {
                    continue;
                };
                let space = func.dfg.value_type(*ptr).addr_space();
                if !matches!(space, Some(AddrSpace::Global | AddrSpace::Generic)) {
                    continue;
                }
                let restricted_root = |canonical: bool| {
                    prov.roots_of(func, *ptr).iter().any(|r| {
                        matches!(r, crate::analysis::Root::Param(n)
                        if { let a = &func.signature.params[*n as usize].attrs;
                             if canonical { a.noalias } else { a.restrict } })
                    })
                };
                let verdict = if flags.volatile {
                    Verdict::Volatile
                } else if space == Some(AddrSpace::Generic) {
                    Verdict::Generic
                } else if flags.invariant {
                    Verdict::NonCoherent
                } else if flags.scopes.is_empty() {
                    if restricted_root(true) {
                        Verdict::ScopeLost
                    } else if restricted_root(false) {
                        Verdict::NotProcessed
                    } else {
                        Verdict::NoRestrictRoot
                    }
                } else if let Some(&w) = clobbers.iter().find(|&&w| aa.may_alias(w, inst)) {
                    Verdict::WrittenAt(describe(func, w), func.spans[w])
                } else if let Some((name, span)) = &bad_call {
                    Verdict::CallWrites(name.clone(), *span)
                } else {
                    Verdict::NonCoherent
                };
                out.push(Note {
                    function: func.name.clone(),
                    load: inst,
                    what: describe(func, inst),
                    span: func.spans[inst],
                    verdict,
                });
            }
            out
        };
        let func = &mut module.functions[id];
        for note in decisions {
            if note.verdict == Verdict::NonCoherent {
                if let InstData::Load { flags, .. } = &mut func.dfg.insts[note.load] {
                    if !flags.invariant {
                        flags.invariant = true;
                        changed = true;
                    }
                }
            }
            notes.push(note);
        }
    }
    changed
}

/// The functions that may write memory: those with a store or an atomic,
/// and, to a fixed point, those that call one.
pub fn functions_that_write(module: &Module) -> HashSet<FuncId> {
    let mut writers: HashSet<FuncId> = HashSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (id, func) in module.functions.iter() {
            if writers.contains(&id) {
                continue;
            }
            let writes = func.layout.insts().any(|(_, i)| match &func.dfg.insts[i] {
                InstData::Store { .. }
                | InstData::AtomicRmw { .. }
                | InstData::AtomicCas { .. } => true,
                InstData::Accel { op, .. } => op.writes_memory(),
                InstData::Call { func: callee, .. } => writers.contains(callee),
                _ => false,
            });
            if writes {
                writers.insert(id);
                changed = true;
            }
        }
    }
    writers
}

/// An access as the IR text writes it, without flags: `v7 = load.f32 v5`.
fn describe(func: &crate::ir::Function, inst: Inst) -> String {
    let dfg = &func.dfg;
    match &dfg.insts[inst] {
        InstData::Load { ty, ptr, .. } => match dfg.first_result(inst) {
            Some(r) => format!("{r} = load.{ty} {ptr}"),
            None => format!("load.{ty} {ptr}"),
        },
        InstData::Store { value, ptr, .. } => format!("store {value}, {ptr}"),
        other => {
            let args: Vec<String> = other.arguments().iter().map(|a| a.to_string()).collect();
            format!("{} {}", other.opcode(), args.join(", "))
        }
    }
}
