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
//!    [`AliasAnalysis`]), and no call may write it: each device function
//!    has a summary of what it may write ([`WriteSummary`]: through which
//!    of its parameters, which module variables, or memory it cannot name),
//!    and a call writes through the arguments it passes for those
//!    parameters, which the alias analysis compares with the load.
//!
//! With `explain`, every global load gets a line saying which rule decided.

use crate::analysis::{AliasAnalysis, Provenance, Root};
use crate::ir::{
    AddrSpace, FuncId, Function, GlobalVar, Inst, InstData, Module, SourceSpan, Value,
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// Why a global load did or did not become `.nc`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Marked invariant now (or already was).
    NonCoherent,
    /// In a device function: marked invariant because every call passes
    /// read-only restricted memory.
    NonCoherentFromCallers,
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
    /// The kernel calls a function that may write the load's memory.
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
            Verdict::NonCoherentFromCallers => {
                "ld.global.nc (every call passes read-only restricted memory)".to_string()
            }
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
                format!("not .nc: the kernel calls {callee}, which may write this memory")
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

/// Everything a kernel (or a device function) writes, as its loads see it.
struct Writes {
    /// Its own stores, atomics and memory-writing accelerator instructions.
    clobbers: Vec<Inst>,
    /// The first call to a function that writes what nobody can name.
    bad_call: Option<(String, SourceSpan)>,
    /// The calls that write through their arguments or module variables.
    call_writes: Vec<CallWrite>,
}

fn collect_writes(
    module: &Module,
    func: &Function,
    summaries: &FxHashMap<FuncId, WriteSummary>,
) -> Writes {
    let mut w = Writes {
        clobbers: Vec::new(),
        bad_call: None,
        call_writes: Vec::new(),
    };
    for (_, inst) in func.layout.insts() {
        match &func.dfg.insts[inst] {
            InstData::Store { .. }
            | InstData::AtomicRmw { .. }
            | InstData::AtomicCas { .. }
            | InstData::AtomicVec { .. } => w.clobbers.push(inst),
            // The alias analysis knows no access of these, so it answers
            // "may alias" for every load: conservative.
            InstData::Accel { op, .. } if op.writes_memory() => w.clobbers.push(inst),
            // Inline PTX may store anywhere (its template is not read).
            InstData::InlineAsm { .. } => w.clobbers.push(inst),
            InstData::Call { func: callee, args } => {
                let name = || format!("@{}", module.functions[*callee].name);
                match summaries.get(callee) {
                    Some(s) if s.unknown => {
                        w.bad_call.get_or_insert_with(|| (name(), func.spans[inst]));
                    }
                    Some(s) if s.writes() => w.call_writes.push(CallWrite {
                        callee: name(),
                        span: func.spans[inst],
                        through: s
                            .params
                            .iter()
                            .filter_map(|&k| args.get(k as usize).copied())
                            .collect(),
                        globals: s.globals.iter().copied().collect(),
                        indirect: s.indirect,
                    }),
                    _ => {}
                }
            }
            // The callee is unknown, so what it writes is too.
            InstData::CallIndirect { .. } => {
                let what = || "a function through a pointer".to_string();
                w.bad_call.get_or_insert_with(|| (what(), func.spans[inst]));
            }
            _ => {}
        }
    }
    w
}

impl Writes {
    /// The call that may write the bytes `load` reads, if any.
    fn call_writing(&self, aa: &AliasAnalysis, load: Inst) -> Option<&CallWrite> {
        self.call_writes.iter().find(|c| {
            c.through.iter().any(|&p| aa.may_write_through(p, load))
                || c.globals
                    .iter()
                    .any(|&g| aa.may_write_object(Root::Global(g), load))
                || (c.indirect && aa.may_write_object(Root::Opaque, load))
        })
    }

    /// Whether anything may write the memory `target` points into, at any
    /// offset (what a callee reading through it may read).
    fn may_write_memory_of(&self, func: &Function, aa: &AliasAnalysis, target: Value) -> bool {
        self.bad_call.is_some()
            || self
                .clobbers
                .iter()
                .any(|&w| match func.dfg.insts[w].mem_ptr() {
                    Some(p) if !matches!(func.dfg.insts[w], InstData::Accel { .. }) => {
                        aa.may_overlap_objects(p, target)
                    }
                    _ => true,
                })
            || self.call_writes.iter().any(|c| {
                c.through.iter().any(|&p| aa.may_overlap_objects(p, target))
                    || c.globals
                        .iter()
                        .any(|&g| aa.object_may_hold(Root::Global(g), target))
                    || (c.indirect && aa.object_may_hold(Root::Opaque, target))
            })
    }
}

/// Marks the loads of every kernel; appends one note per global load. Then
/// marks the loads of device functions that read, through a parameter,
/// memory that every call passes read-only and restricted.
pub fn mark_module(module: &mut Module, notes: &mut Vec<Note>) -> bool {
    let summaries = write_summaries(module);
    let ids: Vec<FuncId> = module.functions.keys().collect();
    let mut decisions: Vec<(FuncId, Note)> = Vec::new();
    for &id in &ids {
        let func = &module.functions[id];
        if !func.is_kernel() {
            continue;
        }
        let aa = AliasAnalysis::with_module(func, module);
        let prov = aa.provenance();
        let writes = collect_writes(module, func, &summaries);
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
                    matches!(r, Root::Param(n)
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
            } else if let Some(&w) = writes.clobbers.iter().find(|&&w| aa.may_alias(w, inst)) {
                Verdict::WrittenAt(describe(func, w), func.spans[w])
            } else if let Some((name, span)) = &writes.bad_call {
                Verdict::CallWrites(name.clone(), *span)
            } else if let Some(c) = writes.call_writing(&aa, inst) {
                Verdict::CallWrites(c.callee.clone(), c.span)
            } else {
                Verdict::NonCoherent
            };
            decisions.push((
                id,
                Note {
                    function: func.name.clone(),
                    load: inst,
                    what: describe(func, inst),
                    span: func.spans[inst],
                    verdict,
                },
            ));
        }
    }
    for (id, load) in device_loads(module, &summaries) {
        let func = &module.functions[id];
        decisions.push((
            id,
            Note {
                function: func.name.clone(),
                load,
                what: describe(func, load),
                span: func.spans[load],
                verdict: Verdict::NonCoherentFromCallers,
            },
        ));
    }
    let mut changed = false;
    for (id, note) in decisions {
        if matches!(
            note.verdict,
            Verdict::NonCoherent | Verdict::NonCoherentFromCallers
        ) {
            let func = &mut module.functions[id];
            if let InstData::Load { flags, .. } = &mut func.dfg.insts[note.load] {
                if !flags.invariant {
                    flags.invariant = true;
                    changed = true;
                }
            }
        }
        notes.push(note);
    }
    changed
}

/// The loads of internal device functions that may be `ld.global.nc`: not
/// volatile, `ptr<global>`, and derived only from parameters through which
/// every call passes read-only restricted memory. A call passes such
/// memory when its argument comes only from `noalias` parameters of a
/// kernel that nothing in the kernel (its stores, its callees' writes) may
/// write, or only from such parameters of a calling device function. The
/// set is found from the optimistic side (every parameter qualifies, then
/// the ones a call site refutes drop out until none does), so recursion
/// settles too. All callers of an internal function are in the module.
fn device_loads(
    module: &Module,
    summaries: &FxHashMap<FuncId, WriteSummary>,
) -> Vec<(FuncId, Inst)> {
    // Call sites per callee: (caller, arguments).
    let mut sites: FxHashMap<FuncId, Vec<(FuncId, Vec<Value>)>> = FxHashMap::default();
    for (id, f) in module.functions.iter() {
        for (_, inst) in f.layout.insts() {
            if let InstData::Call { func: callee, args } = &f.dfg.insts[inst] {
                sites.entry(*callee).or_default().push((id, args.clone()));
            }
        }
    }
    let mut candidates: BTreeSet<(FuncId, u32)> = BTreeSet::new();
    // An indirect call may reach a function whose address is taken.
    let taken = module.address_taken();
    for (id, f) in module.functions.iter() {
        let internal = f.attrs.linkage == crate::ir::Linkage::Internal && !taken[id];
        if f.is_kernel() || !internal || f.entry_block().is_none() || !sites.contains_key(&id) {
            continue;
        }
        for (k, p) in f.signature.params.iter().enumerate() {
            if p.ty.is_ptr() && p.attrs.byval.is_none() && p.attrs.sret.is_none() {
                candidates.insert((id, k as u32));
            }
        }
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let analyses: FxHashMap<FuncId, AliasAnalysis> = module
        .functions
        .iter()
        .filter(|(_, f)| f.entry_block().is_some())
        .map(|(id, f)| (id, AliasAnalysis::with_module(f, module)))
        .collect();
    let kernel_writes: FxHashMap<FuncId, Writes> = module
        .functions
        .iter()
        .filter(|(_, f)| f.is_kernel())
        .map(|(id, f)| (id, collect_writes(module, f, summaries)))
        .collect();
    let mut set = candidates;
    loop {
        let refuted: Vec<(FuncId, u32)> = set
            .iter()
            .copied()
            .filter(|&(g, k)| {
                !sites[&g].iter().all(|(caller, args)| {
                    let Some(&arg) = args.get(k as usize) else {
                        return false;
                    };
                    let cf = &module.functions[*caller];
                    let Some(aa) = analyses.get(caller) else {
                        return false;
                    };
                    let roots = aa.provenance().roots_of(cf, arg);
                    if roots.is_empty() {
                        return false;
                    }
                    if cf.is_kernel() {
                        let noalias = |n: u32| {
                            cf.signature
                                .params
                                .get(n as usize)
                                .is_some_and(|p| p.attrs.noalias)
                        };
                        roots
                            .iter()
                            .all(|r| matches!(r, Root::Param(n) if noalias(*n)))
                            && !kernel_writes[caller].may_write_memory_of(cf, aa, arg)
                    } else {
                        roots
                            .iter()
                            .all(|r| matches!(r, Root::Param(n) if set.contains(&(*caller, *n))))
                    }
                })
            })
            .collect();
        if refuted.is_empty() {
            break;
        }
        for r in refuted {
            set.remove(&r);
        }
    }
    let mut out = Vec::new();
    for &id in analyses.keys().collect::<BTreeSet<_>>() {
        if !set.iter().any(|&(g, _)| g == id) {
            continue;
        }
        let f = &module.functions[id];
        let prov = analyses[&id].provenance();
        for (_, inst) in f.layout.insts() {
            let InstData::Load { ptr, flags, .. } = &f.dfg.insts[inst] else {
                continue;
            };
            if flags.volatile
                || flags.invariant
                || f.dfg.value_type(*ptr) != crate::ir::Type::Ptr(AddrSpace::Global)
            {
                continue;
            }
            let roots = prov.roots_of(f, *ptr);
            if !roots.is_empty()
                && roots
                    .iter()
                    .all(|r| matches!(r, Root::Param(n) if set.contains(&(id, *n))))
            {
                out.push((id, inst));
            }
        }
    }
    out
}

/// The writes of one call, as a kernel sees them.
struct CallWrite {
    callee: String,
    span: SourceSpan,
    /// The arguments the callee may write through (anywhere around them).
    through: Vec<Value>,
    /// The module variables it may write.
    globals: Vec<GlobalVar>,
    /// Whether it may write through pointers it got from memory.
    indirect: bool,
}

/// What a function may write to memory that its caller can see (its own
/// stack slots and shared or local memory aside: a kernel's global loads
/// cannot read those).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    /// It may write memory it cannot name at all (an accelerator
    /// instruction, a function without a body).
    pub unknown: bool,
    /// It may write through a pointer loaded from memory, made from an
    /// integer or returned by a call: never memory reached only through a
    /// restricted parameter that the caller does not capture.
    pub indirect: bool,
    /// The parameters through which (at any offset) it may write.
    pub params: BTreeSet<u32>,
    /// The module variables it may write.
    pub globals: BTreeSet<GlobalVar>,
}

impl WriteSummary {
    fn writes(&self) -> bool {
        self.unknown || self.indirect || !self.params.is_empty() || !self.globals.is_empty()
    }
}

/// The write summary of every function, to a fixed point over calls (a
/// summary only grows, and it is bounded, so this ends).
pub fn write_summaries(module: &Module) -> FxHashMap<FuncId, WriteSummary> {
    let mut sums: FxHashMap<FuncId, WriteSummary> = module
        .functions
        .keys()
        .map(|f| (f, WriteSummary::default()))
        .collect();
    let provs: FxHashMap<FuncId, Provenance> = module
        .functions
        .iter()
        .map(|(id, f)| (id, Provenance::compute(f)))
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (id, func) in module.functions.iter() {
            let new = summarize(module, func, &provs[&id], &sums);
            if new != sums[&id] {
                sums.insert(id, new);
                changed = true;
            }
        }
    }
    sums
}

/// One function's summary, given its callees' current summaries.
fn summarize(
    module: &Module,
    func: &Function,
    prov: &Provenance,
    sums: &FxHashMap<FuncId, WriteSummary>,
) -> WriteSummary {
    let mut w = WriteSummary::default();
    if func.entry_block().is_none() {
        w.unknown = true;
        return w;
    }
    // A write through `ptr`: attributed to its roots.
    let through = |w: &mut WriteSummary, ptr: Value| {
        let space = func.dfg.value_type(ptr).addr_space();
        if !matches!(space, None | Some(AddrSpace::Global | AddrSpace::Generic)) {
            return;
        }
        let roots = prov.roots_of(func, ptr);
        if roots.is_empty() {
            w.indirect = true;
        }
        for r in roots {
            match r {
                Root::Param(n) => {
                    w.params.insert(n);
                }
                Root::Global(g) => {
                    let space = module.globals.get(g).map(|d| d.space);
                    if !matches!(space, Some(AddrSpace::Shared | AddrSpace::Local)) {
                        w.globals.insert(g);
                    }
                }
                // This function's own frame.
                Root::Stack(_) => {}
                Root::Load(_) | Root::Opaque => w.indirect = true,
            }
        }
    };
    for (_, inst) in func.layout.insts() {
        match &func.dfg.insts[inst] {
            d @ (InstData::Store { .. }
            | InstData::AtomicRmw { .. }
            | InstData::AtomicCas { .. }
            | InstData::AtomicVec { .. }) => through(&mut w, d.mem_ptr().expect("writes memory")),
            InstData::Accel { op, .. } if op.writes_memory() => w.unknown = true,
            InstData::InlineAsm { .. } => w.unknown = true,
            InstData::Call { func: callee, args } => match sums.get(callee) {
                Some(c) => {
                    w.unknown |= c.unknown;
                    w.indirect |= c.indirect;
                    w.globals.extend(c.globals.iter().copied());
                    for &k in &c.params {
                        match args.get(k as usize) {
                            Some(&a) => through(&mut w, a),
                            None => w.unknown = true,
                        }
                    }
                }
                None => w.unknown = true,
            },
            InstData::CallIndirect { .. } => w.unknown = true,
            _ => {}
        }
    }
    w
}

/// The functions that may write memory a caller can see.
pub fn functions_that_write(module: &Module) -> FxHashSet<FuncId> {
    write_summaries(module)
        .into_iter()
        .filter(|(_, w)| w.writes())
        .map(|(f, _)| f)
        .collect()
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
