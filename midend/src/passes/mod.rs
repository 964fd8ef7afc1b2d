//! Passes: each is a free function over a function or a module, named as a
//! verb, in its own module. The pass manager here is just a name table and
//! the `-O` pipelines; the driver verifies after every pass.

mod cfg_cleanup;
mod dce;
mod fold;
mod gvn;

pub use cfg_cleanup::cleanup_cfg;
pub use dce::eliminate_dead_code;
pub use fold::fold_constants;
pub use gvn::number_values;

use crate::ir::{Function, Module};

/// Every pass `run_pass` knows, with a one-line description (for `--help`
/// texts and docs).
pub const PASSES: &[(&str, &str)] = &[
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
        "simplify",
        "fold, cfg-cleanup and dce, repeated until nothing changes",
    ),
];

/// The passes of an `-O` level, in order.
pub fn pipeline_for_level(level: u8) -> Vec<&'static str> {
    match level {
        0 => vec![],
        _ => vec!["simplify", "gvn", "dce"],
    }
}

/// Runs the pass called `name` over every function of the module.
pub fn run_pass(module: &mut Module, name: &str) -> Result<(), String> {
    let pass: fn(&mut Function) -> bool = match name {
        "fold" => fold_constants,
        "cfg-cleanup" => cleanup_cfg,
        "dce" => eliminate_dead_code,
        "simplify" => simplify,
        "gvn" => number_values,
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
