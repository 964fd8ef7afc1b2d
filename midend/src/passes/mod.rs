//! Passes: each is a free function over a function or a module, named as a
//! verb, in its own module. The pass manager here is just a name table and
//! the `-O` pipelines; the driver verifies after every pass.

mod cfg_cleanup;
mod contract;
mod dce;
mod fold;
mod gvn;
pub mod memspace;

pub use cfg_cleanup::cleanup_cfg;
pub use contract::contract_fma;
pub use dce::eliminate_dead_code;
pub use fold::fold_constants;
pub use gvn::number_values;

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
        "simplify",
        "fold, cfg-cleanup and dce, repeated until nothing changes",
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
        passes.extend(["memspace", "simplify", "gvn", "dce"]);
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
    let pass: fn(&mut Function) -> bool = match name {
        "fold" => fold_constants,
        "cfg-cleanup" => cleanup_cfg,
        "dce" => eliminate_dead_code,
        "simplify" => simplify,
        "gvn" => number_values,
        "contract" => contract_fma,
        _ => {
            let known: Vec<&str> = PASSES.iter().map(|(n, _)| *n).collect();
            return Err(format!(
                "unknown pass `{name}`; known passes: {}",
                known.join(", ")
            ));
        }
    };
    for func in module.functions.values_mut() {
        pass(func);
    }
    Ok(())
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
