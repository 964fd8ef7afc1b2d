//! The IR verifier: checks that a function (or a whole module) is well formed.
//!
//! Every pass must leave a function this verifier accepts. The verifier never
//! stops at the first problem: it collects every error it finds, in a fixed
//! order (phase by phase, and inside a phase in layout order), and each error
//! names the entity it is about ([`CommentAt`]): the function, a block, or an
//! instruction. [`VerifierErrors::annotate`] prints the function with
//! `; error: <message>` lines under those entities.
//!
//! # The rules
//!
//! Each rule is one variant of [`VerifierErrorKind`] (`rules.rs`), listed
//! phase by phase in the order the phases run, its doc comment stating the
//! rule and its fields the facts of a violation (the entities, the expected
//! and found types, the spaces). Its `Display` writes the message: short,
//! lowercase and stable, so that `; check:` lines of the `test verifier`
//! filetests can match them, with entities written as in the text format
//! (`v3`, `block2`, `inst5`, `ss0`, `gv1`, `fn2`, `scope0`). A new rule is a
//! new variant, checked in the phase that owns it.
//!
//! # Phases
//!
//! A later phase only runs on what the earlier phases found safe: an
//! instruction with a dangling reference, or a block/instruction the layout
//! holds but the data-flow graph does not, is left out of phases 2 to 5, so
//! that no check can panic on a bad index.
//!
//! 1. Entity references (`entities.rs`): every block, instruction, value,
//!    stack slot, alias scope (and with a module, variable and function)
//!    that the function names exists, and no operand is detached or an
//!    alias. A value's broken definition is reported on the function.
//! 2. Layout (`entities.rs`): the entry block and its parameters against
//!    the signature, each block once and non-empty and ending in its only
//!    terminator, each instruction in one block, and every definition
//!    record pointing back at its instruction or block and position.
//! 3. SSA and dominance (`ssa.rs`): branch targets, their argument counts,
//!    and every use dominated by its definition. A block parameter is
//!    defined at the start of its block; a result right after its
//!    instruction. Dominators come from the Semi-NCA algorithm
//!    (`analysis/dominators.rs`) over the CFG from the entry block. In an
//!    unreachable block the check is lenient: only a definition in the same
//!    block must come before the use (passes may leave dead blocks behind
//!    until CFG cleanup; nothing runs them).
//! 4. Types (`types.rs`): operand and result types of every instruction, as
//!    `docs/ir.md` gives them. An instruction whose data has another format
//!    than its opcode gets no other type check. Without a module, calls are
//!    not checked at all.
//! 5. Address spaces and GPU rules (`gpu.rs`): kernel and parameter
//!    attributes on the signature and stack slot alignment (both on the
//!    function), then each instruction's spaces.
//!
//! [`verify_module`] adds the module checks: unique function names (on the
//! later function, before its other errors), and the rules on variables,
//! reported under [`module_errors_key`] with location `Function`.

mod entities;
mod gpu;
mod rules;
mod ssa;
mod types;

pub use rules::VerifierErrorKind;

use crate::ir::{Block, FuncId, Function, Inst, Module, Value, ValueDef};
use crate::text::{write_function_with_comments, CommentAt, Comments, PrintOptions};
use core::fmt;
use cranelift_entity::packed_option::ReservedValue;
use rustc_hash::FxHashSet;

/// One problem the verifier found: the rule broken, with its facts, and
/// the entity it is about.
#[derive(Clone, PartialEq, Debug)]
pub struct VerifierError {
    pub location: CommentAt,
    pub kind: VerifierErrorKind,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            CommentAt::Function => write!(f, "function: {}", self.kind),
            CommentAt::Block(b) => write!(f, "{b}: {}", self.kind),
            CommentAt::Inst(i) => write!(f, "{i}: {}", self.kind),
        }
    }
}

/// Every problem found in one function, in the order they were found.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl VerifierErrors {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether some error has exactly this location and message.
    pub fn has(&self, location: CommentAt, message: &str) -> bool {
        self.0
            .iter()
            .any(|e| e.location == location && e.kind.to_string() == message)
    }

    /// Prints `func` with a `; error: <message>` line under the entity of each
    /// error. Entities the printer cannot show (invalid or unplaced blocks and
    /// instructions) are left out of the listing, and their errors go under
    /// the function header as `; error: instN: <message>`.
    pub fn annotate(&self, func: &Function, module: Option<&Module>) -> String {
        let printable = entities::printable_copy(func);
        let shown_blocks: FxHashSet<Block> = printable.layout.blocks().iter().copied().collect();
        let shown_insts: FxHashSet<Inst> = printable.layout.insts().map(|(_, i)| i).collect();
        let mut comments = Comments::default();
        for e in &self.0 {
            let shown = match e.location {
                CommentAt::Function => true,
                CommentAt::Block(b) => shown_blocks.contains(&b),
                CommentAt::Inst(i) => shown_insts.contains(&i),
            };
            if shown {
                comments.add(e.location, format!("error: {}", e.kind));
            } else {
                comments.add(CommentAt::Function, format!("error: {e}"));
            }
        }
        write_function_with_comments(&printable, module, PrintOptions::default(), &comments)
    }
}

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.0 {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifierErrors {}

/// The key under which [`verify_module`] reports errors that belong to no
/// function (about module variables): `FuncId`'s reserved value.
pub fn module_errors_key() -> FuncId {
    FuncId::reserved_value()
}

/// Verifies one function. With `module`, calls and `global_addr` are checked
/// against the module's functions and variables; without it they are not.
pub fn verify_function(func: &Function, module: Option<&Module>) -> Result<(), VerifierErrors> {
    let mut cx = Ctx::new(func, module);
    entities::check_entities(&mut cx);
    entities::check_layout(&mut cx);
    ssa::check_ssa(&mut cx);
    types::check_types(&mut cx);
    gpu::check_gpu(&mut cx);
    if cx.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(cx.errors))
    }
}

/// Verifies every function of `module` and the module itself. Errors come
/// in function-id order; errors about variables come first, under
/// [`module_errors_key`]; a duplicate function name is reported on the
/// later function.
pub fn verify_module(module: &Module) -> Result<(), Vec<(FuncId, VerifierErrors)>> {
    let mut out = Vec::new();
    let globals = gpu::check_globals(module);
    if !globals.is_empty() {
        out.push((module_errors_key(), globals));
    }
    let mut seen_names = rustc_hash::FxHashMap::default();
    for (id, func) in module.functions.iter() {
        let mut errors = match verify_function(func, Some(module)) {
            Ok(()) => Vec::new(),
            Err(e) => e.0,
        };
        if let Some(first) = seen_names.insert(func.name.as_str(), id) {
            seen_names.insert(func.name.as_str(), first);
            errors.insert(
                0,
                VerifierError {
                    location: CommentAt::Function,
                    kind: VerifierErrorKind::DuplicateFunction {
                        name: func.name.clone(),
                        first,
                    },
                },
            );
        }
        if !errors.is_empty() {
            out.push((id, VerifierErrors(errors)));
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out)
    }
}

/// What the checks share: the function, the errors so far, and the safe view
/// of the layout that phases 1 and 2 build for the later phases.
pub(crate) struct Ctx<'a> {
    pub func: &'a Function,
    pub module: Option<&'a Module>,
    pub errors: Vec<VerifierError>,
    /// The layout with invalid and repeated blocks and instructions left out.
    pub blocks: Vec<(Block, Vec<Inst>)>,
    /// Placed instructions with a dangling reference: later phases skip them.
    pub bad_insts: FxHashSet<Inst>,
    /// Blocks with an invalid parameter value: later phases skip their params.
    pub bad_blocks: FxHashSet<Block>,
    /// Repeats found while building `blocks`, reported by phase 2.
    pub repeated_blocks: Vec<Block>,
    pub repeated_insts: Vec<(Inst, Block, Block)>,
}

impl<'a> Ctx<'a> {
    fn new(func: &'a Function, module: Option<&'a Module>) -> Self {
        Ctx {
            func,
            module,
            errors: Vec::new(),
            blocks: Vec::new(),
            bad_insts: FxHashSet::default(),
            bad_blocks: FxHashSet::default(),
            repeated_blocks: Vec::new(),
            repeated_insts: Vec::new(),
        }
    }

    pub fn report(&mut self, location: CommentAt, kind: VerifierErrorKind) {
        self.errors.push(VerifierError { location, kind });
    }

    pub fn at_inst(&mut self, inst: Inst, kind: VerifierErrorKind) {
        self.report(CommentAt::Inst(inst), kind);
    }

    pub fn at_block(&mut self, block: Block, kind: VerifierErrorKind) {
        self.report(CommentAt::Block(block), kind);
    }

    pub fn at_func(&mut self, kind: VerifierErrorKind) {
        self.report(CommentAt::Function, kind);
    }

    /// The placed instructions later phases may inspect, in layout order.
    pub fn checkable_insts(&self) -> Vec<(Block, Inst)> {
        self.blocks
            .iter()
            .flat_map(|(b, insts)| insts.iter().map(move |&i| (*b, i)))
            .filter(|(_, i)| !self.bad_insts.contains(i))
            .collect()
    }
}

/// Whether `v` may be used as an operand by the later phases (valid, and
/// neither an alias nor detached).
pub(crate) fn is_plain_value(func: &Function, v: Value) -> bool {
    func.dfg
        .values
        .get(v)
        .is_some_and(|d| matches!(d.def, ValueDef::Result(..) | ValueDef::Param(..)))
}

#[cfg(test)]
mod robustness_tests;
