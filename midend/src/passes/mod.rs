//! Passes: each is a free function over a function or a module, named as a
//! verb, in its own module. The pass manager here is the table of passes
//! ([`PASSES`], one row per pass) and the `-O` pipelines; the driver
//! verifies after every pass.

mod arms;
mod cfg_cleanup;
pub mod const_pool;
mod contract;
mod dce;
mod divconst;
mod dp4a;
mod fold;
mod gvn;
mod hoist;
mod ifconv;
mod inline;
mod licm;
mod load_elim;
pub mod mark_invariant;
pub mod memspace;
mod merge_branches;
mod offsets;
mod rebase;
pub mod restrict;
mod rotate;
mod sink;
mod speculate;
mod sroa;
mod strength;
mod unroll;
mod unroll_runtime;

pub use arms::merge_arms;
pub use cfg_cleanup::cleanup_cfg;
pub use const_pool::pool_constants;
pub use contract::contract_fma;
pub use dce::eliminate_dead_code;
pub use divconst::expand_const_division;
pub use dp4a::form_dp4a;
pub use fold::fold_constants;
pub use gvn::number_values;
pub use hoist::hoist_invariant_loads;
pub use ifconv::convert_ifs;
pub use inline::inline_calls;
pub use licm::hoist_loop_invariants;
pub use load_elim::{eliminate_loads_module, eliminate_redundant_loads};
pub use mark_invariant::mark_invariant_loads;
pub use merge_branches::merge_branches;
pub use offsets::fold_address_offsets;
pub use rebase::rebase_addresses;
pub use restrict::process_restrict;
pub use rotate::rotate_loops;
pub use sink::sink_values;
pub use sroa::split_local_arrays;
pub use strength::reduce_strength;
pub use unroll::unroll_loops;
pub use unroll_runtime::{unit_step_counter, unroll_runtime_loops};

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
}

/// How a pass is run, with its entry point.
#[derive(Clone, Copy, Debug)]
pub enum PassKind {
    /// Changes one function at a time and reads no other, so the functions
    /// may go through it independently (see [`run_function_passes`]).
    /// Returns whether anything changed.
    Function(fn(&mut Function) -> bool),
    /// Works on the whole module at once (it clones or inlines functions,
    /// or reads what the callees of a function do). Returns whether
    /// anything changed, or the errors it found.
    Module(fn(&mut Module) -> Result<bool, String>),
}

/// Every pass, one row each. The `-O` pipelines ([`pipeline`]),
/// `--passes`, `--disable-pass`, `--print-after-all` and the lists in
/// `docs/passes.md` and the README all come from this table.
pub static PASSES: &[Pass] = &[
    Pass {
        name: "contract",
        summary: "turn a multiply feeding only an add or subtract into one fma (--fmad)",
        kind: PassKind::Function(contract_fma),
    },
    Pass {
        name: "fold",
        summary: "fold constant arithmetic, comparisons, selects and branches",
        kind: PassKind::Function(fold_constants),
    },
    Pass {
        name: "cfg-cleanup",
        summary: "remove unreachable blocks and merge straight-line block chains",
        kind: PassKind::Function(cleanup_cfg),
    },
    Pass {
        name: "dce",
        summary: "remove instructions whose results are unused and that have no effect",
        kind: PassKind::Function(eliminate_dead_code),
    },
    Pass {
        name: "simplify",
        summary: "fold, cfg-cleanup and dce, repeated until nothing changes",
        kind: PassKind::Function(simplify),
    },
    Pass {
        name: "gvn",
        summary: "global value numbering: one computation per value, hoisted to a common dominator",
        kind: PassKind::Function(number_values),
    },
    Pass {
        name: "inline",
        summary: "replace calls of small device functions by a copy of their body",
        kind: PassKind::Module(|module| Ok(inline_calls(module))),
    },
    Pass {
        name: "memspace",
        summary: "infer the memory space of generic pointers, specialize and clone callees (docs/memspace.md)",
        kind: PassKind::Module(|module| memspace::memspace(module, &memspace::Options::default())),
    },
    Pass {
        name: "restrict",
        summary: "turn __restrict__ parameters into noalias and alias scopes on every access (docs/restrict.md)",
        kind: PassKind::Module(|module| run_restrict(module, &restrict::Options::default()).map(|r| r.changed)),
    },
    Pass {
        name: "unroll",
        summary: "fully unroll small loops with a constant trip count, and #pragma unroll loops",
        kind: PassKind::Function(unroll_loops),
    },
    Pass {
        name: "sroa",
        summary: "split local arrays accessed only at constant offsets into SSA values",
        kind: PassKind::Function(split_local_arrays),
    },
    Pass {
        name: "divconst",
        summary: "integer division and remainder by a power of two as shifts and masks",
        kind: PassKind::Function(expand_const_division),
    },
    Pass {
        name: "fold-offsets",
        summary: "move the constant part of address offsets outward, into the address immediate",
        kind: PassKind::Function(fold_address_offsets),
    },
    Pass {
        name: "merge-branches",
        summary: "turn a chain of branches to a common destination (&&, ||) into one branch",
        kind: PassKind::Function(merge_branches),
    },
    Pass {
        name: "rotate",
        summary: "turn top-tested loops into a guard and a bottom-tested loop",
        kind: PassKind::Function(rotate_loops),
    },
    Pass {
        name: "licm",
        summary: "move pure loop-invariant computations out of loops into a preheader",
        kind: PassKind::Function(hoist_loop_invariants),
    },
    Pass {
        name: "strength-reduce",
        summary: "carry addresses and indices linear in a loop counter as counters of their own",
        kind: PassKind::Function(reduce_strength),
    },
    Pass {
        name: "unroll-runtime",
        summary: "unroll small rotated loops with a run-time trip count by four, leftovers in the original loop",
        kind: PassKind::Function(unroll_runtime_loops),
    },
    Pass {
        name: "rebase",
        summary: "in a loop, address a row's elements from the kernel parameter: p + (row + i) * size",
        kind: PassKind::Function(rebase_addresses),
    },
    Pass {
        name: "dp4a",
        summary: "turn a sum of the four byte products of two aligned words into one dp4a",
        kind: PassKind::Function(form_dp4a),
    },
    Pass {
        name: "merge-arms",
        summary: "hoist loads both arms of a branch make, sink stores both arms end with",
        kind: PassKind::Function(merge_arms),
    },
    Pass {
        name: "if-convert",
        summary: "turn a short if without else into straight-line code and selects",
        kind: PassKind::Function(convert_ifs),
    },
    Pass {
        name: "mark-invariant",
        summary: "mark global loads of restrict memory that the kernel never writes invariant (ld.global.nc)",
        kind: PassKind::Module(|module| Ok(mark_invariant_loads(module))),
    },
    Pass {
        name: "load-elim",
        summary: "remove loads of values already loaded or stored, across stores that cannot alias",
        kind: PassKind::Module(|module| Ok(eliminate_loads_module(module))),
    },
    Pass {
        name: "hoist-loads",
        summary: "move invariant loads out of loops into a preheader",
        kind: PassKind::Function(hoist_invariant_loads),
    },
    Pass {
        name: "sink",
        summary: "move integer and address arithmetic down to the one block that reads it",
        kind: PassKind::Function(sink_values),
    },
    Pass {
        name: "const-pool",
        summary: "read double constants that SASS cannot hold as immediates from a .const table",
        kind: PassKind::Module(|module| Ok(pool_constants(module))),
    },
];

/// The row of the pass called `name`.
pub fn find(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// The passes of an `-O` level, in order, with nvcc's default `--fmad=true`.
pub fn pipeline_for_level(level: u8) -> Vec<&'static str> {
    pipeline(level, true)
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

/// Runs the pass called `name` over every function of the module.
pub fn run_pass(module: &mut Module, name: &str) -> Result<(), String> {
    // `memspace(knob;knob=value)`: the same pass with knobs, so that a
    // filetest can set them (`clone-budget=0`, `conservative`, ...).
    if let Some(knobs) = name
        .strip_prefix("memspace(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let opts = memspace::Options::parse_knobs(knobs)?;
        return memspace::memspace(module, &opts).map(|_| ());
    }
    if let Some(knobs) = name
        .strip_prefix("restrict(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let opts = restrict::Options::parse_knobs(knobs)?;
        return run_restrict(module, &opts).map(|_| ());
    }
    match find(name).map(|p| p.kind) {
        Some(PassKind::Module(pass)) => pass(module).map(|_| ()),
        Some(PassKind::Function(pass)) => {
            for func in module.functions.values_mut() {
                pass(func);
            }
            Ok(())
        }
        None => Err(unknown_pass(name)),
    }
}

fn unknown_pass(name: &str) -> String {
    let known: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
    format!("unknown pass `{name}`; known passes: {}", known.join(", "))
}

/// The function-local pass called `name`, if there is one (see
/// [`PassKind::Function`]).
pub fn function_pass(name: &str) -> Option<fn(&mut Function) -> bool> {
    match find(name)?.kind {
        PassKind::Function(pass) => Some(pass),
        PassKind::Module(_) => None,
    }
}

/// Runs function-local passes (each one a [`function_pass`]) over every
/// function: each function goes through all of `names` in order, and the
/// functions are spread over threads (`threads`, or `0` for as many as
/// the work is worth: [`crate::parallel::threads_for`]). The
/// result is the same as running each pass over every function in turn,
/// since no pass of the list reads another function. With `verify_each`,
/// every function is verified after every pass (without the module: calls
/// are checked by the caller's module-level verification), and the first
/// failure, in function order, is returned with the pass named.
pub fn run_function_passes(
    module: &mut Module,
    names: &[&str],
    threads: usize,
    verify_each: bool,
) -> Result<(), String> {
    let passes = names
        .iter()
        .map(|&name| {
            function_pass(name)
                .map(|p| (name, p))
                .ok_or_else(|| unknown_pass(name))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let funcs: Vec<&mut Function> = module.functions.values_mut().collect();
    let outcomes = crate::parallel::map_in_order(
        funcs,
        threads,
        |f| f.dfg.insts.len() * passes.len(),
        |func| {
            for &(name, pass) in &passes {
                pass(func);
                if verify_each {
                    if let Err(errors) = crate::verifier::verify_function(func, None) {
                        return Err(format!(
                            "internal compiler error: invalid IR after pass `{name}`\n{}",
                            errors.annotate(func, None)
                        ));
                    }
                }
            }
            Ok(())
        },
    );
    outcomes.into_iter().collect()
}

/// Restrict processing over every function of a module. Refused shapes
/// (restrict inside an aggregate) are errors, as text without spans.
pub fn run_restrict(
    module: &mut Module,
    opts: &restrict::Options,
) -> Result<restrict::Report, String> {
    let mut report = restrict::Report::default();
    for func in module.functions.values_mut() {
        restrict::process_function(func, opts, &mut report);
    }
    if !report.diagnostics.is_empty() {
        let msgs: Vec<String> = report
            .diagnostics
            .iter()
            .map(|d| format!("{} (in @{})", d.message, d.function))
            .collect();
        return Err(msgs.join("\nerror: "));
    }
    Ok(report)
}

/// Folding, CFG cleanup and dead-code elimination until none of them changes
/// anything. Returns whether anything changed.
pub fn simplify(func: &mut Function) -> bool {
    let mut changed_any = false;
    // Each round removes something, so the number of instructions bounds it;
    // the cap only guards against a bug turning this into a hang.
    for _ in 0..1000 {
        let changed = fold_constants(func) | cleanup_cfg(func) | eliminate_dead_code(func);
        if !changed {
            break;
        }
        changed_any = true;
    }
    changed_any
}
