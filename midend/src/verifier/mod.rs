//! The IR verifier: checks that a function (or a whole module) is well formed.
//!
//! Every pass must leave a function this verifier accepts. The verifier never
//! stops at the first problem: it collects every error it finds, in a fixed
//! order (phase by phase, and inside a phase in layout order), and each error
//! names the entity it is about ([`CommentAt`]): the function, a block, or an
//! instruction. [`VerifierErrors::annotate`] prints the function with
//! `; error: <message>` lines under those entities.
//!
//! Messages are short, lowercase and stable, so that `; check:` lines of the
//! `test verifier` filetests can match them. Entities are written as in the
//! text format (`v3`, `block2`, `inst5`, `ss0`, `gv1`, `fn2`, `scope0`).
//!
//! # Invariants, by phase
//!
//! A later phase only runs on what the earlier phases found safe: an
//! instruction with a dangling reference, or a block/instruction the layout
//! holds but the data-flow graph does not, is left out of phases 2 to 5, so
//! that no check can panic on a bad index.
//!
//! ## 1. Entity references (`entities.rs`)
//! - Every block in the layout exists in the data-flow graph
//!   (`layout holds invalid block blockN`) and every instruction in a block
//!   exists (`layout holds invalid instruction instN`).
//! - Block parameters and instruction results are valid values
//!   (`invalid parameter value vN`, `invalid result value vN`).
//! - Every operand is a valid value (`invalid value vN`), every branch target a
//!   valid block (`invalid block blockN`), every `stack_addr` slot a valid
//!   stack slot (`invalid stack slot ssN`), every alias scope in memory flags
//!   a valid scope (`invalid alias scope scopeN`). With a module: every
//!   `global_addr` names a valid variable (`invalid global variable gvN`) and
//!   every `call` a valid function (`invalid function fnN`).
//! - Every value's definition refers to valid entities (`vN is defined by
//!   invalid instM`, `vN is a parameter of invalid blockM`, `vN is an alias of
//!   invalid value vM`), reported on the function.
//! - No operand is detached (`use of detached value vN`) or an alias
//!   (`use of alias vN; resolve aliases first`).
//!
//! ## 2. Layout (`entities.rs`)
//! - The function has an entry block (`no entry block`).
//! - The entry block's parameters match the signature's parameter types
//!   (`entry block has N parameters, signature has M`,
//!   `entry parameter vN has type T, signature says U`).
//! - A block appears once in the layout (`blockN appears twice in the layout`)
//!   and an instruction in exactly one block (`instruction is listed in blockA
//!   and blockB`; `layout places instruction in blockA but lists it in blockB`).
//! - Every block is non-empty (`empty block`), ends in a terminator
//!   (`block does not end in a terminator`) and has no terminator before its
//!   end (`terminator jump before the end of the block`).
//! - Every result's definition points back at its instruction and position,
//!   and every block parameter's at its block and position
//!   (`result vN is recorded as <def>`, `parameter vN is recorded as <def>`,
//!   where `<def>` is e.g. `result 0 of inst3`, `parameter 1 of block2`,
//!   `alias of v4` or `detached`).
//!
//! ## 3. SSA and dominance (`ssa.rs`)
//! - Branch targets are in the layout (`branch to blockN, which is not in the
//!   layout`) and are not the entry block (`branch to the entry block blockN`).
//! - A branch passes as many arguments as the target has parameters
//!   (`blockN takes P arguments, got A`).
//! - Every used value is defined by a placed instruction or a block in the
//!   layout (`vN is defined by instM, which is not in the layout`,
//!   `vN is a parameter of blockM, which is not in the layout`) whose
//!   definition record is current (`vN is recorded as <def>, which does not
//!   define it`).
//! - In a reachable block, every use is dominated by its definition
//!   (`use of vN is not dominated by its definition`). A block parameter is
//!   defined at the start of its block; a result right after its instruction.
//!   Dominators come from the Semi-NCA algorithm (`analysis/dominators.rs`)
//!   over the CFG from the entry block.
//! - In an unreachable block the check is lenient: only a definition in the
//!   same block must come before the use. (Passes may leave dead blocks behind
//!   until CFG cleanup; nothing runs them.)
//!
//! ## 4. Types (`types.rs`)
//! - The data's format is the opcode's (`iadd in the wrong instruction
//!   format`); if not, the instruction's other type checks are skipped.
//! - Each instruction has the number of results its opcode (or callee) gives
//!   (`expected N results, got M`); a result type written on the instruction
//!   (`iconst.T`, `fconst.T`, `load.T`, conversions, `addrspacecast.T`) is
//!   the result's (`result type T does not match the instruction type U`).
//! - Integer ops (`ineg iadd isub imul sdiv udiv srem urem ishl ushr sshr smin
//!   smax umin umax`) take integers other than `i1`; bitwise ops (`band bor
//!   bxor bnot`) take any integer including `i1` (PTX has
//!   `and/or/xor/not.pred`; `bnot` is allowed on `i1` like the others); float
//!   ops (`fneg fabs sqrt fadd fsub fmul fdiv fmin fmax fma`) take floats.
//!   Operands have one type, which is the result's: `iadd needs integer
//!   operands, got f32`, `fadd needs float operands, got i32`, `iadd does not
//!   take i1`, `iadd operands differ: i32 and i64`, `result type T does not
//!   match operand type U`. Shift amounts have the shifted value's type.
//! - `icmp` compares two integers or two pointers of one type (`icmp needs
//!   integer or pointer operands, got f32`), `fcmp` two floats (`fcmp needs
//!   float operands, got i32`); operands agree (`icmp operands differ: A and
//!   B`); both give `i1` (`icmp result must be i1, got T`).
//! - `select c, a, b`: `select condition must be i1, got T`, `select arms
//!   differ: A and B`. `brif`: `brif condition must be i1, got T`.
//! - Conversions `op.T v` from `F` to `T`: `sext`/`zext` widen an integer and
//!   `trunc` narrows one (`sext needs integer types, got F to T`, `sext must
//!   widen, got F to T`, `trunc must narrow, got F to T`); `fpext`/`fptrunc`
//!   widen/narrow a float, `f16` and `bf16` being unordered (`fpext needs
//!   float types, got F to T`, `fpext must widen, ...`, `fptrunc must narrow,
//!   ...`); `sitofp`/`uitofp` (`sitofp converts a non-i1 integer to a float,
//!   got F to T`) and `fptosi`/`fptoui` (`fptosi converts a float to a non-i1
//!   integer, got F to T`); `bitcast` keeps the width and takes no pointers
//!   (`bitcast needs types of one width, got F to T`, `bitcast cannot convert
//!   pointers, got F to T`); `ptrtoint` gives `i64`, `i32` for `ptr<tmem>`
//!   (`ptrtoint needs a pointer operand, got F`, `ptrtoint of F must give
//!   i64, got T`); `inttoptr` takes `i64`, `i32` for `ptr<tmem>`
//!   (`inttoptr must give a pointer, got T`, `inttoptr to T needs i64, got F`).
//! - `iconst`'s type is an integer (`iconst type must be an integer, got T`)
//!   and its immediate fits it as a signed or an unsigned number, `i1` taking
//!   0 or 1 (`iconst 300 does not fit in i8`). `fconst`'s type is a float
//!   (`fconst type must be a float, got T`) and its value is exactly a value
//!   of that type (`fconst 0.1 is not exactly representable in f32`; NaNs and
//!   infinities always are).
//! - `ptroffset p, off`: `ptroffset needs a pointer operand, got T`,
//!   `ptroffset offset must be i64 or i32, got T`, `ptroffset result must be
//!   a pointer, got T`.
//! - `load`/`store` addresses are pointers (`load address must be a pointer,
//!   got T`); loads and stores of `i1` are rejected, since PTX has no predicate
//!   memory type and the frontend must widen to `i8` (`load of i1; PTX has no
//!   predicate memory type`, same for `store`).
//! - With a module, `call` passes the callee's parameter types and gets its
//!   return types (`call to @f takes N arguments, got M`, `argument K of call
//!   to @f has type T, expected U`, `result K of call to @f has type T,
//!   expected U`). Without a module calls are not checked at all.
//! - `atomic_rmw` and `atomic_cas` take a pointer (`atomic_rmw address must
//!   be a pointer, got T`) and the types PTX's `atom` has for the operation
//!   (`atomic_rmw inc does not take i64`; `atomic_cas needs i16, i32 or i64,
//!   got T`; `add` takes `f16` and `bf16` too). `atomic_vec` takes a
//!   pointer and two or four `f32` elements, or a pair of `f16` or of
//!   `bf16` (`atomic_vec takes 2 or 4 elements, got N`, `atomic_vec on f16
//!   takes 2 elements (a packed pair), got N`, `atomic_vec element K must
//!   be f32, got T`), only `add` (`atomic_vec exch is not an operation on
//!   vectors; only add is`), and has one result per element of its type.
//! - `return` gives the signature's returns (`return gives N values,
//!   signature returns M`, `return value K has type T, signature says U`).
//! - Branch arguments have the types of the target's parameters
//!   (`argument K to blockN has type T, parameter vP is U`).
//! - `special result must be i32, got T`; `stack_addr result must be
//!   ptr<local>, got T`; `global_addr` gives a pointer (`global_addr result
//!   must be a pointer, got T`), with a module `ptr<S>` for a variable in
//!   space `S` (`global_addr of gvN must give ptr<S>, got T`);
//!   `addrspacecast.ptr<S>` takes a pointer (`addrspacecast needs a pointer
//!   operand, got T`) and gives `ptr<S>`.
//!
//! ## 5. Address spaces and GPU rules (`gpu.rs`)
//! - Signatures, on the function: a kernel returns nothing (`kernel must not
//!   return values`); only kernels have `grid_constant` parameters
//!   (`grid_constant parameter K in a device function`) and launch bounds
//!   (`launch_bounds on a device function`), whose thread count is not 0
//!   (`launch_bounds max threads must be positive`); a `byval` parameter is
//!   `ptr<param>` in a kernel (`byval parameter K of a kernel must be
//!   ptr<param>, got T`) and some pointer in a device function (`byval
//!   parameter K must be a pointer, got T`), with a power-of-two alignment
//!   (`byval parameter K alignment A is not a power of two`); an `sret`
//!   parameter is a pointer of a device function that returns no values
//!   (`sret parameter K in a kernel`, `sret parameter K must be a pointer,
//!   got T`, `parameter K is both byval and sret`, `sret parameter K in a
//!   function that returns values`), with a power-of-two alignment; `restrict` and
//!   `noalias` parameters are pointers (`restrict parameter K is not a
//!   pointer`, `noalias parameter K is not a pointer`).
//! - Stack slots have a power-of-two alignment (`ssN alignment A is not a
//!   power of two`, on the function), and so does a load's or store's
//!   `align(A)` flag when present (`load alignment A is not a power of two`).
//! - `ptroffset` keeps the address space (`ptroffset changes the address
//!   space from A to B`).
//! - `addrspacecast` converts between generic and one specific space: never
//!   to or from `tmem`, which has no generic window (`addrspacecast from A to
//!   B: tmem has no generic form`), not from a space to itself
//!   (`addrspacecast from A to itself`, generic included), not between two
//!   specific spaces (`addrspacecast from A to B: one side must be generic`).
//! - No `load`/`store` through `ptr<tmem>` (`load through ptr<tmem>; tmem has
//!   no ordinary loads and stores`); no `store` through `ptr<const>` or
//!   `ptr<param>` (`store through ptr<const>; const memory is read-only`).
//!   This is strict: a kernel may not write its own parameter space either.
//! - A `ptr<tmem>` is used only by the tcgen05 `accel` forms (and moved
//!   around by selects, block arguments, calls, `ptroffset`, `ptrtoint`):
//!   besides the cast, load and store rules above, atomics, `is_space`
//!   (`is_space of ptr<tmem>; only tcgen05 operations use tensor-memory
//!   addresses`) and every other `accel` form (their operand kinds name no
//!   tmem) reject it.
//! - Atomics go through global, shared or generic pointers (`atomic_rmw
//!   through ptr<local>; atomics need global, shared or generic memory`), a
//!   vector atomic on `f32` through global or generic ones only
//!   (`atomic_vec through ptr<shared>; vector atomics need global (or
//!   generic) memory`); a packed pair of 16-bit floats is an ordinary
//!   atomic.
//! - With a module, calls never target kernels (`call to kernel @k`), and
//!   `func_addr` never takes a kernel's address (`func_addr of kernel @k`).
//! - `call_indirect` has an `i64` callee and the arguments and results its
//!   signature names, which holds no `i1` and at most one result.
//!
//! ## Module checks ([`verify_module`])
//! - Function names are unique: `duplicate function name @f (also fnN)`, on
//!   the later function, before its other errors.
//! - Calls name existing functions and `global_addr` existing variables
//!   (phase 1 with the module).
//! - Variables, reported under [`module_errors_key`] with location
//!   `Function`: unique names (`duplicate variable name @x (gvB and gvA)`);
//!   they live in `global`, `shared` or `const` space (`gvN cannot live in S
//!   space`); power-of-two alignment (`gvN alignment A is not a power of
//!   two`); shared variables have no initializer (`gvN is shared and cannot
//!   have an initializer`), others none larger than their size (`gvN
//!   initializer has B bytes, size is S`); a dynamic variable is shared with
//!   size 0 (`dynamic gvN must be in shared space`, `dynamic gvN must have
//!   size 0`); a managed variable is a global with a size (`managed gvN must
//!   be a sized global`).

mod entities;
mod gpu;
mod ssa;
mod types;

use crate::ir::{Block, FuncId, Function, Inst, Module, Value, ValueDef};
use crate::text::{write_function_with_comments, CommentAt, Comments, PrintOptions};
use core::fmt;
use cranelift_entity::packed_option::ReservedValue;
use rustc_hash::FxHashSet;

/// One problem the verifier found, and the entity it is about.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VerifierError {
    pub location: CommentAt,
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            CommentAt::Function => write!(f, "function: {}", self.message),
            CommentAt::Block(b) => write!(f, "{b}: {}", self.message),
            CommentAt::Inst(i) => write!(f, "{i}: {}", self.message),
        }
    }
}

/// Every problem found in one function, in the order they were found.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
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
            .any(|e| e.location == location && e.message == message)
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
                comments.add(e.location, format!("error: {}", e.message));
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
                    message: format!("duplicate function name @{} (also {first})", func.name),
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

    pub fn report(&mut self, location: CommentAt, message: impl Into<String>) {
        self.errors.push(VerifierError {
            location,
            message: message.into(),
        });
    }

    pub fn at_inst(&mut self, inst: Inst, message: impl Into<String>) {
        self.report(CommentAt::Inst(inst), message);
    }

    pub fn at_block(&mut self, block: Block, message: impl Into<String>) {
        self.report(CommentAt::Block(block), message);
    }

    pub fn at_func(&mut self, message: impl Into<String>) {
        self.report(CommentAt::Function, message);
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

/// A value definition in words, for messages: `result 0 of inst3`,
/// `parameter 1 of block2`, `alias of v4`, `detached`.
pub(crate) fn describe_def(def: ValueDef) -> String {
    match def {
        ValueDef::Result(i, n) => format!("result {n} of {i}"),
        ValueDef::Param(b, n) => format!("parameter {n} of {b}"),
        ValueDef::Alias(v) => format!("alias of {v}"),
        ValueDef::Detached => "detached".to_string(),
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
