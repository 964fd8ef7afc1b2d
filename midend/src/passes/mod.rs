//! Passes: each is a free function over a function or a module, named as a
//! verb, in its own module. [`PASSES`] is the table of them, one row per
//! pass; [`pipeline`] gives the `-O` pipelines; the pass manager
//! (`manager.rs`: [`Pipeline`], [`Options`]) runs them and verifies the IR.

mod cancel_negations;
mod cfg_cleanup;
pub mod const_pool;
mod contract;
mod dce;
mod divconst;
mod dp4a;
mod fold;
mod fold_offsets;
mod gvn;
mod hoist_loads;
mod if_convert;
mod inline;
mod licm;
mod load_elim;
mod manager;
pub mod mark_invariant;
pub mod memspace;
mod merge_arms;
mod merge_branches;
mod rebase;
mod report;
pub mod restrict;
mod rotate;
mod sink;
mod speculate;
mod sroa;
mod strength_reduce;
mod unroll;
mod unroll_runtime;

pub use cancel_negations::cancel_negations;
pub use cfg_cleanup::cleanup_cfg;
pub use const_pool::pool_constants;
pub use contract::contract_fma;
pub use dce::eliminate_dead_code;
pub use divconst::expand_const_division;
pub use dp4a::form_dp4a;
pub use fold::fold_constants;
pub use fold_offsets::fold_address_offsets;
pub use gvn::number_values;
pub use hoist_loads::hoist_invariant_loads;
pub use if_convert::convert_ifs;
pub use inline::inline_calls;
pub use licm::hoist_loop_invariants;
pub use load_elim::eliminate_loads_module;
pub use manager::{
    Checkpoint, KnobError, ModuleContext, Options, PassError, Pipeline, Step, Verify,
};
pub use mark_invariant::mark_module;
pub use merge_arms::merge_arms;
pub use merge_branches::merge_branches;
pub use rebase::rebase_addresses;
pub use report::{
    Access, Diagnostic, DiagnosticKind, DiagnosticNote, Label, MeetPlace, Report, Severity,
    Transcript,
};
pub use restrict::process_module;
pub use rotate::rotate_loops;
pub use sink::sink_values;
pub use sroa::split_local_arrays;
pub use strength_reduce::reduce_strength;
pub use unroll::unroll_loops;
pub use unroll_runtime::{unit_step_counter, unroll_runtime_loops};

use crate::analysis::Analyses;
use crate::ir::{Function, Module};

/// One pass: the one place that names it and says what it is.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    /// The name in pass lists (`--passes`), `--disable-pass` and
    /// `--print-after-all`.
    pub name: &'static str,
    /// What it does, in one line (for `--help` texts and the docs' list).
    pub summary: &'static str,
    /// Whether it works on one function at a time, and its entry point.
    pub kind: PassKind,
    /// Sets the knobs written after the name in a pass list
    /// (`memspace(clone-budget=0)`), for the passes that take some.
    pub knobs: Option<SetKnobs>,
}

/// What a pass changed, so that the pass manager knows which cached
/// analyses still hold (see [`Analyses`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Changed {
    Nothing,
    /// Instructions, values or block parameters, but no block and no edge:
    /// the dominator tree, the loops and the predecessors still hold.
    Insts,
    /// Blocks, edges or the order of the blocks: the analyses are dropped.
    Cfg,
}

impl Changed {
    /// `Insts` when `changed`: the verdict of a pass that never touches
    /// the CFG.
    pub fn insts_if(changed: bool) -> Changed {
        if changed {
            Changed::Insts
        } else {
            Changed::Nothing
        }
    }

    /// `Cfg` when `changed`: the verdict of a pass whose every change is
    /// one of the CFG.
    pub fn cfg_if(changed: bool) -> Changed {
        if changed {
            Changed::Cfg
        } else {
            Changed::Nothing
        }
    }

    /// Whether anything changed.
    pub fn any(self) -> bool {
        self != Changed::Nothing
    }
}

impl std::ops::BitOr for Changed {
    type Output = Changed;
    /// The larger change of the two.
    fn bitor(self, other: Changed) -> Changed {
        self.max(other)
    }
}

impl std::ops::BitOrAssign for Changed {
    fn bitor_assign(&mut self, other: Changed) {
        *self = *self | other;
    }
}

/// The entry point of a function pass. The analyses it needs come from
/// the cache; it returns what it changed.
pub type FunctionPass = fn(&mut Function, &mut Analyses) -> Changed;

/// The entry point of a module pass: returns what it changed.
pub type ModulePass = fn(&mut Module, &mut ModuleContext) -> Changed;

/// Sets knobs written after a pass's name (`clone-budget=0`) in the
/// options, or says why they are wrong.
pub type SetKnobs = fn(&mut Options, &str) -> Result<(), KnobError>;

/// How a pass is run, with its entry point.
#[derive(Clone, Copy, Debug)]
pub enum PassKind {
    /// Changes one function at a time and reads no other, so the functions
    /// may go through it independently, on several threads (see
    /// [`Pipeline::run`]).
    Function(FunctionPass),
    /// Works on the whole module at once (it clones or inlines functions,
    /// or reads what the callees of a function do); what it finds goes to
    /// the context's report.
    Module(ModulePass),
}

/// Every pass, one row each. The `-O` pipelines ([`pipeline`]),
/// `--passes`, `--disable-pass`, `--print-after-all` and the lists in
/// `docs/passes.md` and the README all come from this table.
pub static PASSES: &[Pass] = &[
    Pass {
        name: "contract",
        summary: "turn a multiply feeding only an add or subtract into one fma (--fmad)",
        kind: PassKind::Function(|func, _| Changed::insts_if(contract_fma(func))),
        knobs: None,
    },
    Pass {
        name: "fold",
        summary: "fold constant arithmetic, comparisons, selects and branches",
        kind: PassKind::Function(|func, _| fold_constants(func)),
        knobs: None,
    },
    Pass {
        name: "cfg-cleanup",
        summary: "remove unreachable blocks and merge straight-line block chains",
        kind: PassKind::Function(|func, _| cleanup_cfg(func)),
        knobs: None,
    },
    Pass {
        name: "dce",
        summary: "remove instructions whose results are unused and that have no effect",
        kind: PassKind::Function(|func, _| Changed::insts_if(eliminate_dead_code(func))),
        knobs: None,
    },
    Pass {
        name: "simplify",
        summary: "fold, cfg-cleanup and dce, repeated until nothing changes",
        kind: PassKind::Function(|func, _| simplify(func)),
        knobs: None,
    },
    Pass {
        name: "gvn",
        summary: "global value numbering: one computation per value, hoisted to a common dominator",
        kind: PassKind::Function(number_values),
        knobs: None,
    },
    Pass {
        name: "inline",
        summary: "replace calls of small device functions by a copy of their body",
        kind: PassKind::Module(|module, _| Changed::cfg_if(inline_calls(module))),
        knobs: None,
    },
    Pass {
        name: "memspace",
        summary: "infer the memory space of generic pointers, specialize and clone callees (docs/memspace.md)",
        kind: PassKind::Module(|module, cx| {
            let changed =
                memspace::infer_memory_spaces(module, &cx.options.memspace, cx.report, cx.analyses);
            Changed::insts_if(changed)
        }),
        knobs: Some(|options, text| options.memspace.apply_knobs(text)),
    },
    Pass {
        name: "restrict",
        summary: "turn __restrict__ parameters into noalias and alias scopes on every access (docs/restrict.md)",
        kind: PassKind::Module(|module, cx| {
            Changed::insts_if(process_module(module, &cx.options.restrict, cx.report))
        }),
        knobs: Some(|options, text| options.restrict.apply_knobs(text)),
    },
    Pass {
        name: "unroll",
        summary: "fully unroll small loops with a constant trip count, and #pragma unroll loops",
        kind: PassKind::Function(unroll_loops),
        knobs: None,
    },
    Pass {
        name: "sroa",
        summary: "split local arrays accessed only at constant offsets into SSA values",
        kind: PassKind::Function(split_local_arrays),
        knobs: None,
    },
    Pass {
        name: "divconst",
        summary: "integer division and remainder by a power of two as shifts and masks",
        kind: PassKind::Function(|func, _| Changed::insts_if(expand_const_division(func))),
        knobs: None,
    },
    Pass {
        name: "fold-offsets",
        summary: "move the constant part of address offsets outward, into the address immediate",
        kind: PassKind::Function(fold_address_offsets),
        knobs: None,
    },
    Pass {
        name: "merge-branches",
        summary: "turn a chain of branches to a common destination (&&, ||) into one branch",
        kind: PassKind::Function(merge_branches),
        knobs: None,
    },
    Pass {
        name: "rotate",
        summary: "turn top-tested loops into a guard and a bottom-tested loop",
        kind: PassKind::Function(rotate_loops),
        knobs: None,
    },
    Pass {
        name: "licm",
        summary: "move pure loop-invariant computations out of loops into a preheader",
        kind: PassKind::Function(hoist_loop_invariants),
        knobs: None,
    },
    Pass {
        name: "strength-reduce",
        summary: "carry addresses and indices linear in a loop counter as counters of their own",
        kind: PassKind::Function(reduce_strength),
        knobs: None,
    },
    Pass {
        name: "unroll-runtime",
        summary: "unroll small rotated loops with a run-time trip count by four, leftovers in the original loop",
        kind: PassKind::Function(unroll_runtime_loops),
        knobs: None,
    },
    Pass {
        name: "rebase",
        summary: "in a loop, address a row's elements from the kernel parameter: p + (row + i) * size",
        kind: PassKind::Function(rebase_addresses),
        knobs: None,
    },
    Pass {
        name: "dp4a",
        summary: "turn a sum of the four byte products of two aligned words into one dp4a",
        kind: PassKind::Function(|func, _| Changed::insts_if(form_dp4a(func))),
        knobs: None,
    },
    Pass {
        name: "merge-arms",
        summary: "hoist loads both arms of a branch make, sink stores both arms end with",
        kind: PassKind::Function(merge_arms),
        knobs: None,
    },
    Pass {
        name: "if-convert",
        summary: "turn a short if without else into straight-line code and selects",
        kind: PassKind::Function(convert_ifs),
        knobs: None,
    },
    Pass {
        name: "mark-invariant",
        summary: "mark global loads of restrict memory that the kernel never writes invariant (ld.global.nc)",
        kind: PassKind::Module(|module, cx| {
            let mut notes = Vec::new();
            let changed = mark_module(module, &mut notes);
            if cx.options.explain_nc {
                cx.report.notes.extend(notes);
            }
            Changed::insts_if(changed)
        }),
        knobs: None,
    },
    Pass {
        name: "load-elim",
        summary: "remove loads of values already loaded or stored, across stores that cannot alias",
        kind: PassKind::Module(|module, cx| {
            Changed::insts_if(eliminate_loads_module(module, cx.analyses))
        }),
        knobs: None,
    },
    Pass {
        name: "hoist-loads",
        summary: "move invariant loads out of loops into a preheader",
        kind: PassKind::Function(hoist_invariant_loads),
        knobs: None,
    },
    Pass {
        name: "sink",
        summary: "move integer and address arithmetic down to the one block that reads it",
        kind: PassKind::Function(sink_values),
        knobs: None,
    },
    Pass {
        name: "const-pool",
        summary: "read double constants that SASS cannot hold as immediates from a .const table",
        kind: PassKind::Module(|module, _| Changed::insts_if(pool_constants(module))),
        knobs: None,
    },
    // The teaching pass of docs/passes.md, in no pipeline.
    Pass {
        name: "cancel-negations",
        summary: "replace a negation of a negation (ineg, bnot, fneg) by the value itself \
                  (the example of docs/passes.md, in no -O pipeline)",
        kind: PassKind::Function(|func, _| Changed::insts_if(cancel_negations(func))),
        knobs: None,
    },
];

/// The row of the pass called `name`.
pub fn find(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// The passes of an `-O` level. With `fmad`, contraction comes first at
/// every level, so every level computes the same floating-point results.
pub fn pipeline(level: u8, fmad: bool) -> Vec<&'static str> {
    let mut passes = Vec::new();
    if fmad {
        passes.push("contract");
    }
    if level > 0 {
        passes.extend([
            "inline",
            "memspace",
            "restrict",
            "simplify",
            "unroll",
            "simplify",
            "sroa",
            "simplify",
            "divconst",
            "fold-offsets",
            "merge-branches",
            "rotate",
            "licm",
            "gvn",
            "strength-reduce",
            "dce",
            "unroll-runtime",
            "rebase",
            "gvn",
            "dp4a",
            "merge-arms",
            "if-convert",
            "mark-invariant",
            "load-elim",
            "hoist-loads",
            "sink",
            "simplify",
            "const-pool",
        ]);
    }
    passes
}

/// Folding, CFG cleanup and dead-code elimination until none of them changes
/// anything. Returns what changed.
pub fn simplify(func: &mut Function) -> Changed {
    let mut changed_any = Changed::Nothing;
    // Each round removes something, so the number of instructions bounds it;
    // the cap only guards against a bug turning this into a hang.
    for _ in 0..1000 {
        let changed =
            fold_constants(func) | cleanup_cfg(func) | Changed::insts_if(eliminate_dead_code(func));
        if !changed.any() {
            break;
        }
        changed_any |= changed;
    }
    changed_any
}
