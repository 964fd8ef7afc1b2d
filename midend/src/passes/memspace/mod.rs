//! Memory-space inference: prove which state space each `ptr<generic>`
//! points into, and retype it, so the backend can emit `ld.global` or
//! `ld.shared` instead of a generic access that the hardware must resolve at
//! run time.
//!
//! The pass is module-level and runs in three steps (see `docs/memspace.md`):
//!
//! 1. [`intra`] (phase 1): a lattice walker per function, to a fixed point.
//! 2. [`interproc`]: votes over the call sites of every device function; a
//!    function whose callers agree is specialized in place (internal) or
//!    cloned per argument-space signature (external, or disagreeing
//!    callers); return spaces are published to callers; all of it to a
//!    fixed point over a worklist.
//! 3. [`rewrite`] (phase 2): types change to the proved spaces, casts that
//!    became no-ops fold, `is_space` folds to a constant, and a cast back to
//!    generic is inserted wherever a concrete pointer meets a place that
//!    stays generic. The IR is valid afterwards.

pub mod closed_world;
pub mod guards;
pub mod interproc;
pub mod intra;
pub mod lattice;
pub mod rewrite;

pub use lattice::Space;

use super::{Diagnostic, DiagnosticKind, KnobError, Report};
use crate::analysis::ModuleAnalyses;
use crate::ir::Module;

/// The knobs of the pass (the `kernelc` options of the same names).
#[derive(Clone, Debug)]
pub struct Options {
    /// Treat a merge with an input of unknown space as generic at once, and
    /// never specialize parameters from call sites (`--memspace-conservative`).
    pub conservative: bool,
    /// Clone attempts allowed: -1 unlimited, 0 none (`--clone-budget`).
    pub clone_budget: i64,
    /// Generic pointer parameters of kernels point to global memory
    /// (`--param-always-point-to-global`, true by default as in nvcc).
    pub param_always_point_to_global: bool,
    /// Follow pointers loaded from memory (`--track-indir-load`, on by
    /// default): a pointer loaded from param or const memory (which only
    /// the host writes) is global, and one loaded from global memory is
    /// global when the module stores no other kind of pointer there.
    pub track_indir_load: bool,
    /// Follow `inttoptr` back to a `ptrtoint` through integer additions
    /// (`--track-int2ptr`, on by default).
    pub track_int2ptr: bool,
    /// UNSAFE: treat every access through a pointer of unknown space as a
    /// global access (`--memspace-assume-global`). Wrong for shared or
    /// local memory reached through such a pointer.
    pub assume_global: bool,
    /// Print the worklist transcript (`--dump-ip-msp`).
    pub dump_ip_msp: bool,
    /// Print each pointer value's final space and why (`--explain-memspace`).
    pub explain: bool,
    /// Warn about every generic load, store or atomic left in a kernel (`-Wgeneric`).
    pub warn_generic: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            conservative: false,
            clone_budget: -1,
            param_always_point_to_global: true,
            track_indir_load: true,
            track_int2ptr: true,
            assume_global: false,
            dump_ip_msp: false,
            explain: false,
            warn_generic: false,
        }
    }
}

impl Options {
    /// Sets the knobs written as `name` or `name=value`, separated by `;`
    /// (the spelling of `memspace(...)` in a pass list).
    pub fn apply_knobs(&mut self, text: &str) -> Result<(), KnobError> {
        let o = self;
        for knob in text.split(';').map(str::trim).filter(|k| !k.is_empty()) {
            let (name, value) = match knob.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v.trim())),
                None => (knob, None),
            };
            let flag = || match value {
                None | Some("true") => Ok(true),
                Some("false") => Ok(false),
                Some(v) => Err(KnobError::NotABool {
                    pass: "memspace",
                    knob: name.to_string(),
                    value: v.to_string(),
                }),
            };
            match name {
                "conservative" => o.conservative = flag()?,
                "param-always-point-to-global" => o.param_always_point_to_global = flag()?,
                "track-indir-load" => o.track_indir_load = flag()?,
                "track-int2ptr" => o.track_int2ptr = flag()?,
                "assume-global" => o.assume_global = flag()?,
                "clone-budget" => {
                    o.clone_budget =
                        value
                            .and_then(|v| v.parse().ok())
                            .ok_or_else(|| KnobError::NotANumber {
                                pass: "memspace",
                                knob: "clone-budget",
                                written: knob.to_string(),
                            })?
                }
                _ => {
                    return Err(KnobError::Unknown {
                        pass: "memspace",
                        knob: name.to_string(),
                    })
                }
            }
        }
        Ok(())
    }
}

/// Runs the whole pass over a module with the given knobs (the pass-table
/// entry); what it finds goes to `report`. The dominator trees come from
/// `analyses`; no CFG changes. Returns whether the module changed.
pub fn infer_memory_spaces(
    module: &mut Module,
    opts: &Options,
    report: &mut Report,
    analyses: &mut ModuleAnalyses,
) -> bool {
    let state = interproc::propagate(module, opts, report);
    rewrite::rewrite_module(module, &state, opts, report, analyses)
}

/// The atomic rules of the seeds at every optimization level, also where
/// the pass itself does not run (`-O0`, `--memspace=off`): an atomic whose
/// pointer is proved to point to local memory (`int c; atomicAdd(&c, 1)`)
/// or to const memory is an error, and so is a vector atomic (`atomicAdd`
/// on `float2`/`float4`) whose pointer is proved to point anywhere but
/// global memory, each with its span, exactly as the full pass reports it. Phase 1 and the inter-procedural propagation run on a copy
/// of the module (so a helper called with a local address is seen through
/// its clone); nothing is rewritten.
pub fn check_atomics(module: &Module, opts: &Options) -> Vec<Diagnostic> {
    use crate::ir::{AddrSpace, InstData, Type};
    let mut copy = module.clone();
    let quiet = Options {
        dump_ip_msp: false,
        explain: false,
        warn_generic: false,
        assume_global: false,
        ..opts.clone()
    };
    let state = interproc::propagate(&mut copy, &quiet, &mut Report::default());
    let mut out = Vec::new();
    for (id, func) in copy.functions.iter() {
        let an = &state.analyses[cranelift_entity::EntityRef::index(id)];
        for (_, inst) in func.layout.insts() {
            let (ptr, vector) = match &func.dfg.insts[inst] {
                InstData::AtomicRmw { args, .. } => (args[0], false),
                InstData::AtomicCas { args, .. } => (args[0], false),
                InstData::AtomicVec { args, .. } => (args[0], func.dfg.is_global_only_atomic(inst)),
                _ => continue,
            };
            let space = match func.dfg.value_type(ptr) {
                Type::Ptr(AddrSpace::Generic) => an.get(func, ptr).concrete(),
                Type::Ptr(s) => Some(s),
                _ => None,
            };
            let kind = match space {
                Some(AddrSpace::Global) | None => continue,
                Some(space) if vector => DiagnosticKind::VectorAtomic { space },
                Some(AddrSpace::Local) => DiagnosticKind::AtomicOnLocal,
                Some(AddrSpace::Const) => DiagnosticKind::AtomicOnConst,
                _ => continue,
            };
            out.push(Diagnostic::new(kind, &func.name, func.spans[inst]));
        }
    }
    out
}
