//! Passes: each is a free function over a function or a module, named as a
//! verb, in its own module. The pass manager here is just a name table and
//! the `-O` pipelines; the driver verifies after every pass.

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

/// Every pass `run_pass` knows, with a one-line description (for `--help`
/// texts and docs).
pub const PASSES: &[(&str, &str)] = &[
    (
        "contract",
        "turn a multiply feeding only an add or subtract into one fma (--fmad)",
    ),
    (
        "fold",
        "fold constant arithmetic, comparisons, selects and branches",
    ),
    (
        "cfg-cleanup",
        "remove unreachable blocks and merge straight-line block chains",
    ),
    (
        "dce",
        "remove instructions whose results are unused and that have no effect",
    ),
    (
        "memspace",
        "infer the memory space of generic pointers, specialize and clone callees (docs/memspace.md)",
    ),
    (
        "restrict",
        "turn __restrict__ parameters into noalias and alias scopes on every access (docs/restrict.md)",
    ),
    (
        "mark-invariant",
        "mark global loads of restrict memory that the kernel never writes invariant (ld.global.nc)",
    ),
    (
        "load-elim",
        "remove loads of values already loaded or stored, across stores that cannot alias",
    ),
    (
        "hoist-loads",
        "move invariant loads out of loops into a preheader",
    ),
    (
        "simplify",
        "fold, cfg-cleanup and dce, repeated until nothing changes",
    ),
    (
        "unroll",
        "fully unroll small loops with a constant trip count, and #pragma unroll loops",
    ),
    (
        "sroa",
        "split local arrays accessed only at constant offsets into SSA values",
    ),
    (
        "divconst",
        "integer division and remainder by a power of two as shifts and masks",
    ),
    (
        "licm",
        "move pure loop-invariant computations out of loops into a preheader",
    ),
    (
        "inline",
        "replace calls of small device functions by a copy of their body",
    ),
    (
        "fold-offsets",
        "move the constant part of address offsets outward, into the address immediate",
    ),
    (
        "merge-arms",
        "hoist loads both arms of a branch make, sink stores both arms end with",
    ),
    (
        "rotate",
        "turn top-tested loops into a guard and a bottom-tested loop",
    ),
    (
        "strength-reduce",
        "carry addresses and indices linear in a loop counter as counters of their own",
    ),
    (
        "unroll-runtime",
        "unroll small rotated loops with a run-time trip count by four, leftovers in the original loop",
    ),
    (
        "rebase",
        "in a loop, address a row's elements from the kernel parameter: p + (row + i) * size",
    ),
    (
        "dp4a",
        "turn a sum of the four byte products of two aligned words into one dp4a",
    ),
    (
        "sink",
        "move integer and address arithmetic down to the one block that reads it",
    ),
    (
        "if-convert",
        "turn a short if without else into straight-line code and selects",
    ),
    (
        "const-pool",
        "read double constants that SASS cannot hold as immediates from a .const table",
    ),
    (
        "merge-branches",
        "turn a chain of branches to a common destination (&&, ||) into one branch",
    ),
];

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
    // Module-level passes see the whole module at once.
    if name == "memspace" {
        return memspace::memspace(module, &memspace::Options::default()).map(|_| ());
    }
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
    match name {
        "restrict" => return run_restrict(module, &restrict::Options::default()).map(|_| ()),
        "mark-invariant" => {
            mark_invariant_loads(module);
            return Ok(());
        }
        "load-elim" => {
            eliminate_loads_module(module);
            return Ok(());
        }
        "const-pool" => {
            pool_constants(module);
            return Ok(());
        }
        "inline" => {
            inline_calls(module);
            return Ok(());
        }
        _ => {}
    }
    let Some(pass) = function_pass(name) else {
        return Err(unknown_pass(name));
    };
    for func in module.functions.values_mut() {
        pass(func);
    }
    Ok(())
}

fn unknown_pass(name: &str) -> String {
    let known: Vec<&str> = PASSES.iter().map(|(n, _)| *n).collect();
    format!("unknown pass `{name}`; known passes: {}", known.join(", "))
}

/// The function-local pass called `name`, if there is one: it changes one
/// function at a time and reads no other, so functions may be processed
/// independently (see [`run_function_passes`]).
pub fn function_pass(name: &str) -> Option<fn(&mut Function) -> bool> {
    let pass: fn(&mut Function) -> bool = match name {
        "hoist-loads" => hoist_invariant_loads,
        "fold" => fold_constants,
        "cfg-cleanup" => cleanup_cfg,
        "dce" => eliminate_dead_code,
        "simplify" => simplify,
        "gvn" => number_values,
        "contract" => contract_fma,
        "unroll" => unroll_loops,
        "licm" => hoist_loop_invariants,
        "sroa" => split_local_arrays,
        "divconst" => expand_const_division,
        "fold-offsets" => fold_address_offsets,
        "merge-branches" => merge_branches,
        "merge-arms" => merge_arms,
        "if-convert" => convert_ifs,
        "rotate" => rotate_loops,
        "unroll-runtime" => unroll_runtime_loops,
        "strength-reduce" => reduce_strength,
        "rebase" => rebase_addresses,
        "dp4a" => form_dp4a,
        "sink" => sink_values,
        _ => return None,
    };
    Some(pass)
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
