//! The rules the verifier checks, one variant each, with the facts of a
//! violation in its fields. `Display` writes the message that `; error:`
//! lines and the `test verifier` filetests show.
//!
//! Variants come phase by phase, in the order the phases run; the doc
//! comment of each states its rule.

use crate::ir::{
    AddrSpace, AliasScope, AtomicOp, Block, FuncId, GlobalVar, Inst, MatchMode, Opcode, ReduxOp,
    StackSlot, TemplateError, Type, Value, ValueDef,
};
use crate::text::write_float;
use core::fmt;

/// A rule the verifier found broken, with what broke it.
#[derive(Clone, PartialEq, Debug)]
pub enum VerifierErrorKind {
    // ---- Phase 1: entity references (`entities.rs`) ----
    /// Every block in the layout exists in the data-flow graph.
    LayoutInvalidBlock { block: Block },
    /// Every instruction a block lists exists.
    LayoutInvalidInst { inst: Inst },
    /// A block's parameters are valid values.
    InvalidParamValue { value: Value },
    /// An instruction's results are valid values.
    InvalidResultValue { value: Value },
    /// Every operand is a valid value.
    InvalidValue { value: Value },
    /// Every branch target is a valid block.
    InvalidBlock { block: Block },
    /// Every `stack_addr` names a valid stack slot.
    InvalidStackSlot { slot: StackSlot },
    /// Every alias scope in memory flags is valid.
    InvalidAliasScope { scope: AliasScope },
    /// With a module, every `global_addr` names a valid variable.
    InvalidGlobal { gv: GlobalVar },
    /// With a module, every `call` and `func_addr` names a valid function.
    InvalidFunction { func: FuncId },
    /// A result's definition names a valid instruction.
    DefinedByInvalidInst { value: Value, inst: Inst },
    /// A parameter's definition names a valid block.
    ParamOfInvalidBlock { value: Value, block: Block },
    /// An alias names a valid value.
    AliasOfInvalidValue { value: Value, to: Value },
    /// No operand is detached.
    DetachedUse { value: Value },
    /// No operand is an alias.
    AliasUse { value: Value },

    // ---- Phase 2: layout (`entities.rs`) ----
    /// The function has an entry block.
    NoEntryBlock,
    /// The entry block has as many parameters as the signature.
    EntryParamCount { params: usize, signature: usize },
    /// Each entry parameter has its signature parameter's type.
    EntryParamType {
        value: Value,
        found: Type,
        expected: Type,
    },
    /// A block appears once in the layout.
    BlockTwice { block: Block },
    /// An instruction is listed in one block.
    InstListedTwice { first: Block, again: Block },
    /// Every block holds an instruction.
    EmptyBlock,
    /// A block parameter's definition points back at its block and position.
    ParamRecord { value: Value, def: ValueDef },
    /// No terminator stands before the end of its block.
    TerminatorBeforeEnd { opcode: Opcode },
    /// The layout places an instruction in the block that lists it.
    InstPlacedElsewhere { placed: Block, listed: Block },
    /// The layout places every instruction a block lists.
    InstNotPlaced { listed: Block },
    /// A result's definition points back at its instruction and position.
    ResultRecord { value: Value, def: ValueDef },
    /// Every block ends in a terminator.
    NoTerminator,

    // ---- Phase 3: SSA and dominance (`ssa.rs`) ----
    /// Branch targets are in the layout.
    BranchOutOfLayout { target: Block },
    /// No branch targets the entry block.
    BranchToEntry { target: Block },
    /// A branch passes as many arguments as its target has parameters.
    BranchArgCount {
        target: Block,
        params: usize,
        args: usize,
    },
    /// A used value's definition record is current.
    StaleDefinition { value: Value, def: ValueDef },
    /// A used result's instruction is in the layout.
    DefiningInstOutOfLayout { value: Value, inst: Inst },
    /// A used parameter's block is in the layout.
    DefiningBlockOutOfLayout { value: Value, block: Block },
    /// In a reachable block, a use is dominated by its definition (in an
    /// unreachable one, a definition in the same block comes first).
    NotDominated { value: Value },

    // ---- Phase 4: types (`types.rs`) ----
    /// The data's format is the opcode's.
    WrongFormat { opcode: Opcode },
    /// An instruction has the number of results its opcode (or callee) gives.
    ResultCount { expected: usize, found: usize },
    /// A type written on the instruction is its result's.
    ResultNotInstType { found: Type, expected: Type },
    /// An arithmetic result has its operands' type.
    ResultNotOperandType { found: Type, expected: Type },
    /// Float ops (`fneg fabs sqrt fadd fsub fmul fdiv fmin fmax fma`, the
    /// `.approx` forms and the explicit roundings) and `fcmp` take floats.
    NeedsFloats { opcode: Opcode, found: Type },
    /// Integer ops (`ineg iadd isub imul sdiv udiv srem urem ishl ushr sshr
    /// smin smax umin umax`, ...) and bitwise ops take integers.
    NeedsIntegers { opcode: Opcode, found: Type },
    /// Integer ops other than the bitwise ones (`band bor bxor bnot`) take
    /// no `i1`; those do, since PTX has `and/or/xor/not.pred`.
    TakesNoI1 { opcode: Opcode },
    /// The `.approx` and `.full` float ops take `f32` only.
    NeedsF32 { opcode: Opcode, found: Type },
    /// Explicitly rounded float ops take `f32` or `f64`.
    NeedsF32OrF64 { opcode: Opcode, found: Type },
    /// `popcnt`, `clz` and `bitrev` take `i32` or `i64`.
    NeedsI32OrI64 { opcode: Opcode, found: Type },
    /// `dp4a` takes `i32` operands.
    NeedsI32Operands { opcode: Opcode, found: Type },
    /// The operands of an arithmetic op (shift amounts included), a
    /// comparison or `atomic_cas` have one type.
    OperandsDiffer { opcode: Opcode, a: Type, b: Type },
    /// `icmp` compares integers or pointers.
    IcmpOperands { found: Type },
    /// A comparison gives `i1`.
    CompareResult { opcode: Opcode, found: Type },
    /// `select`'s condition is `i1`.
    SelectCondition { found: Type },
    /// `select`'s arms have one type.
    SelectArmsDiffer { a: Type, b: Type },
    /// `brif`'s condition is `i1`.
    BrifCondition { found: Type },
    /// `sext`, `zext` and `trunc` convert integers.
    ConvertNeedsIntegers {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `sext`, `zext` and `fpext` widen (`f16` and `bf16` are unordered:
    /// neither widens to the other).
    ConvertMustWiden {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `trunc` and `fptrunc` narrow.
    ConvertMustNarrow {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `fpext` and `fptrunc` convert floats.
    ConvertNeedsFloats {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `sitofp` and `uitofp` convert a non-`i1` integer to a float.
    IntToFloat {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `fptosi` and `fptoui` convert a float to a non-`i1` integer.
    FloatToInt {
        opcode: Opcode,
        from: Type,
        to: Type,
    },
    /// `bitcast` takes no pointers.
    BitcastPointers { from: Type, to: Type },
    /// `bitcast` keeps the width.
    BitcastWidth { from: Type, to: Type },
    /// `ptrtoint` takes a pointer.
    PtrtointOperand { from: Type },
    /// `ptrtoint` gives the integer as wide as the pointer: `i64`, `i32` for
    /// `ptr<tmem>`.
    PtrtointResult {
        from: Type,
        expected: Type,
        to: Type,
    },
    /// `inttoptr` gives a pointer.
    InttoptrResult { to: Type },
    /// `inttoptr` takes the integer as wide as the pointer.
    InttoptrOperand {
        to: Type,
        expected: Type,
        from: Type,
    },
    /// `iconst`'s type is an integer.
    IconstType { ty: Type },
    /// `iconst`'s immediate fits its type as a signed or unsigned number
    /// (`i1`: 0 or 1).
    IconstRange { imm: i64, ty: Type },
    /// `fconst`'s type is a float.
    FconstType { ty: Type },
    /// `fconst`'s value is exactly a value of its type (NaNs and infinities
    /// always are).
    FconstInexact { value: f64, ty: Type },
    /// `ptroffset` takes a pointer.
    PtrOffsetBase { found: Type },
    /// `ptroffset`'s offset is `i64` or `i32`.
    PtrOffsetOffset { found: Type },
    /// `ptroffset` gives a pointer.
    PtrOffsetResult { found: Type },
    /// Loads, stores and atomics take a pointer address.
    AddressNotPointer { opcode: Opcode, found: Type },
    /// No load or store of `i1`: PTX has no predicate memory type, so the
    /// frontend widens to `i8`.
    PredicateMemory { opcode: Opcode },
    /// With a module, a call passes as many arguments as its callee takes.
    CallArgCount {
        callee: String,
        expected: usize,
        found: usize,
    },
    /// With a module, a call's arguments have its callee's parameter types.
    CallArgType {
        callee: String,
        index: usize,
        found: Type,
        expected: Type,
    },
    /// With a module, a call's results have its callee's return types.
    CallResultType {
        callee: String,
        index: usize,
        found: Type,
        expected: Type,
    },
    /// `call_indirect` has a callee operand.
    CallIndirectNoCallee,
    /// `call_indirect`'s callee is `i64`.
    CallIndirectCallee { found: Type },
    /// `call_indirect` passes as many arguments as its signature names.
    CallIndirectArgCount { expected: usize, found: usize },
    /// `call_indirect`'s arguments have its signature's types.
    CallIndirectArgType {
        index: usize,
        found: Type,
        expected: Type,
    },
    /// `call_indirect`'s results have its signature's types.
    CallIndirectResultType {
        index: usize,
        found: Type,
        expected: Type,
    },
    /// `call_indirect`'s signature holds no `i1`.
    CallIndirectPredicate,
    /// `call_indirect` has at most one result.
    CallIndirectResults,
    /// `special` gives its register's type.
    SpecialResult { expected: Type, found: Type },
    /// `atomic_rmw` takes the types PTX's `atom` has for its operation
    /// (`add` takes `f16` and `bf16` too; `inc` and `dec` only `i32`).
    AtomicRmwType { op: AtomicOp, found: Type },
    /// `atomic_cas` takes `i16`, `i32` or `i64`.
    AtomicCasType { found: Type },
    /// `atomic_vec` has an address operand.
    AtomicVecNoAddress,
    /// `atomic_vec` on a 16-bit float takes a packed pair.
    AtomicVecPackedCount { element: Type, count: usize },
    /// `atomic_vec` takes two or four elements.
    AtomicVecCount { count: usize },
    /// `atomic_vec` does `add` only.
    AtomicVecOp { op: AtomicOp },
    /// `atomic_vec`'s elements are all `f32`, or all its pair's type.
    AtomicVecElement {
        index: usize,
        expected: Type,
        found: Type,
    },
    /// `atomic_vec` gives one result per element, of its type.
    AtomicVecResult {
        index: usize,
        found: Type,
        element: Type,
    },
    /// `shfl`'s value is `i32` or `f32`.
    ShflValue { found: Type },
    /// `shfl`'s other operands are `i32`.
    ShflOperand { index: usize, found: Type },
    /// `vote`'s predicate is `i1`.
    VotePredicate { found: Type },
    /// `vote`'s member mask is `i32`.
    VoteMask { found: Type },
    /// `redux`'s value is `i32`.
    ReduxValue { op: ReduxOp, found: Type },
    /// `redux`'s member mask is `i32`.
    ReduxMask { found: Type },
    /// `match`'s value is `i32` or `i64`.
    MatchValue { mode: MatchMode, found: Type },
    /// `match`'s member mask is `i32`.
    MatchMask { found: Type },
    /// `barrier_red`'s predicate is `i1`.
    BarrierRedPredicate { found: Type },
    /// An effect's operand is `i32`.
    EffectOperand { opcode: Opcode, found: Type },
    /// `is_space` takes a pointer.
    IsSpaceOperand { found: Type },
    /// `is_space` asks about a space with a generic window.
    IsSpaceSpace { space: AddrSpace },
    /// Branch arguments have the types of the target's parameters.
    BranchArgType {
        index: usize,
        target: Block,
        found: Type,
        param: Value,
        expected: Type,
    },
    /// `return` gives as many values as the signature returns.
    ReturnCount { found: usize, expected: usize },
    /// `return`'s values have the signature's return types.
    ReturnType {
        index: usize,
        found: Type,
        expected: Type,
    },
    /// `inline_asm` has as many operands as its constraints take.
    InlineAsmOperandCount { expected: usize, found: usize },
    /// `inline_asm`'s operands have its constraints' types.
    InlineAsmOperand {
        index: usize,
        expected: Type,
        found: Type,
    },
    /// `inline_asm`'s results have its constraints' types.
    InlineAsmResult { index: usize, expected: Type },
    /// Every `%N` of an `inline_asm` template names an operand (the reason
    /// is the template reader's).
    InlineAsmTemplate { reason: TemplateError },
    /// An `accel` form's modifiers make sense together (the reason is
    /// `AccelOp::modifier_error`'s).
    AccelModifiers { reason: String },
    /// An `accel` form has as many operands as its kind takes.
    AccelOperandCount {
        opcode: Opcode,
        expected: usize,
        found: usize,
    },
    /// An `accel` operand has the type its kind names.
    AccelOperandType {
        opcode: Opcode,
        index: usize,
        expected: Type,
        found: Type,
    },
    /// An `accel` pointer operand is in one of the spaces its kind names.
    AccelOperandSpace {
        opcode: Opcode,
        index: usize,
        spaces: &'static [AddrSpace],
        found: Type,
    },
    /// An `accel` result has the type its kind gives.
    AccelResult {
        opcode: Opcode,
        index: usize,
        expected: Type,
        found: Type,
    },
    /// `addrspacecast` takes a pointer.
    AddrSpaceCastOperand { found: Type },
    /// `global_addr` gives a pointer.
    GlobalAddrResult { found: Type },
    /// With a module, `global_addr` gives a pointer to its variable's space.
    GlobalAddrSpace {
        gv: GlobalVar,
        expected: Type,
        found: Type,
    },
    /// `stack_addr` gives `ptr<local>`.
    StackAddrResult { found: Type },

    // ---- Phase 5: address spaces and GPU rules (`gpu.rs`) ----
    /// A kernel returns nothing.
    KernelReturns,
    /// Only kernels have `grid_constant` parameters.
    GridConstantInDevice { param: usize },
    /// No kernel has an `sret` parameter.
    SretInKernel { param: usize },
    /// An `sret` parameter is a pointer.
    SretNotPointer { param: usize, found: Type },
    /// No parameter is both `byval` and `sret`.
    ByvalAndSret { param: usize },
    /// An `sret` parameter's alignment is a power of two.
    SretAlign { param: usize, align: u32 },
    /// A function with an `sret` parameter returns no values.
    SretWithReturns { param: usize },
    /// A kernel's `byval` parameter is `ptr<param>`.
    KernelByvalType { param: usize, found: Type },
    /// A device function's `byval` parameter is a pointer.
    ByvalNotPointer { param: usize, found: Type },
    /// A `byval` parameter's alignment is a power of two.
    ByvalAlign { param: usize, align: u32 },
    /// A `restrict` parameter is a pointer.
    RestrictNotPointer { param: usize },
    /// A `noalias` parameter is a pointer.
    NoaliasNotPointer { param: usize },
    /// Only kernels have cluster dimensions.
    ClusterDimsOnDevice,
    /// Cluster dimensions are positive.
    ClusterDimsZero,
    /// Only kernels have launch bounds.
    LaunchBoundsOnDevice,
    /// Launch bounds' thread count is positive.
    LaunchBoundsZero,
    /// A stack slot's alignment is a power of two.
    StackSlotAlign { slot: StackSlot, align: u32 },
    /// `ptroffset` keeps the address space.
    PtrOffsetSpace { from: AddrSpace, to: AddrSpace },
    /// `addrspacecast` never goes to or from `tmem`.
    CastTmem { from: AddrSpace, to: AddrSpace },
    /// `addrspacecast` never goes from a space to itself.
    CastToItself { space: AddrSpace },
    /// `addrspacecast` has generic on one side.
    CastBetweenSpecific { from: AddrSpace, to: AddrSpace },
    /// A load's or store's `align(A)` is a power of two.
    MemAlign { opcode: Opcode, align: u32 },
    /// Loads and stores go through spaces that have them (not `tmem`).
    NoLoadStore { opcode: Opcode, space: AddrSpace },
    /// Stores go through writable spaces (not `const`, not `param`). This is
    /// strict: a kernel may not write its own parameter space either.
    ReadOnlyStore { space: AddrSpace },
    /// Atomics go through global, shared or generic memory (a packed pair of
    /// 16-bit floats is an ordinary atomic here).
    AtomicSpace { opcode: Opcode, space: AddrSpace },
    /// A vector atomic on `f32` goes through global or generic memory.
    VectorAtomicSpace { space: AddrSpace },
    /// `is_space` takes no `ptr<tmem>`: only the tcgen05 `accel` forms use
    /// tensor-memory addresses (and selects, block arguments, calls,
    /// `ptroffset`, `ptrtoint` move them around).
    IsSpaceTmem,
    /// No call targets a kernel.
    CallToKernel { callee: String },
    /// No `func_addr` takes a kernel's address.
    FuncAddrOfKernel { callee: String },

    // ---- Module checks (`mod.rs`, `gpu.rs`) ----
    /// Function names are unique (reported on the later function).
    DuplicateFunction { name: String, first: FuncId },
    /// Variable names are unique.
    DuplicateVariable {
        name: String,
        gv: GlobalVar,
        first: GlobalVar,
    },
    /// Variables live in `global`, `shared` or `const` space.
    VariableSpace { gv: GlobalVar, space: AddrSpace },
    /// A variable's alignment is a power of two.
    VariableAlign { gv: GlobalVar, align: u32 },
    /// Shared variables have no initializer.
    SharedInitializer { gv: GlobalVar },
    /// An initializer is no larger than its variable.
    InitializerSize {
        gv: GlobalVar,
        bytes: usize,
        size: u32,
    },
    /// A relocation's 8 bytes lie outside the initializer, or overlap the
    /// previous relocation's (they are kept in offset order).
    RelocPlacement { gv: GlobalVar, offset: u32 },
    /// A relocation names no variable or function of the module, or one
    /// whose address no initializer can hold (see `gpu::reloc_target_problem`).
    RelocTarget {
        gv: GlobalVar,
        offset: u32,
        why: &'static str,
    },
    /// A managed variable is a global with a size.
    ManagedNotSizedGlobal { gv: GlobalVar },
    /// A dynamic variable is shared.
    DynamicNotShared { gv: GlobalVar },
    /// A dynamic variable has size 0.
    DynamicSize { gv: GlobalVar },
}

/// A value definition in words: `result 0 of inst3`, `parameter 1 of
/// block2`, `alias of v4`, `detached`.
struct Def(ValueDef);

impl fmt::Display for Def {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ValueDef::Result(i, n) => write!(f, "result {n} of {i}"),
            ValueDef::Param(b, n) => write!(f, "parameter {n} of {b}"),
            ValueDef::Alias(v) => write!(f, "alias of {v}"),
            ValueDef::Detached => f.write_str("detached"),
        }
    }
}

/// A list of pointer types: `ptr<shared> or ptr<global>`.
struct PtrList(&'static [AddrSpace]);

impl fmt::Display for PtrList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, s) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(" or ")?;
            }
            write!(f, "ptr<{s}>")?;
        }
        Ok(())
    }
}

impl fmt::Display for VerifierErrorKind {
    // Long: one arm per rule, each its message; a table reads best whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VerifierErrorKind::*;
        match self {
            LayoutInvalidBlock { block } => write!(f, "layout holds invalid block {block}"),
            LayoutInvalidInst { inst } => write!(f, "layout holds invalid instruction {inst}"),
            InvalidParamValue { value } => write!(f, "invalid parameter value {value}"),
            InvalidResultValue { value } => write!(f, "invalid result value {value}"),
            InvalidValue { value } => write!(f, "invalid value {value}"),
            InvalidBlock { block } => write!(f, "invalid block {block}"),
            InvalidStackSlot { slot } => write!(f, "invalid stack slot {slot}"),
            InvalidAliasScope { scope } => write!(f, "invalid alias scope {scope}"),
            InvalidGlobal { gv } => write!(f, "invalid global variable {gv}"),
            InvalidFunction { func } => write!(f, "invalid function {func}"),
            DefinedByInvalidInst { value, inst } => {
                write!(f, "{value} is defined by invalid {inst}")
            }
            ParamOfInvalidBlock { value, block } => {
                write!(f, "{value} is a parameter of invalid {block}")
            }
            AliasOfInvalidValue { value, to } => {
                write!(f, "{value} is an alias of invalid value {to}")
            }
            DetachedUse { value } => write!(f, "use of detached value {value}"),
            AliasUse { value } => write!(f, "use of alias {value}; resolve aliases first"),

            NoEntryBlock => f.write_str("no entry block"),
            EntryParamCount { params, signature } => write!(
                f,
                "entry block has {params} parameters, signature has {signature}"
            ),
            EntryParamType {
                value,
                found,
                expected,
            } => write!(
                f,
                "entry parameter {value} has type {found}, signature says {expected}"
            ),
            BlockTwice { block } => write!(f, "{block} appears twice in the layout"),
            InstListedTwice { first, again } => {
                write!(f, "instruction is listed in {first} and {again}")
            }
            EmptyBlock => f.write_str("empty block"),
            ParamRecord { value, def } => {
                write!(f, "parameter {value} is recorded as {}", Def(*def))
            }
            TerminatorBeforeEnd { opcode } => {
                write!(f, "terminator {opcode} before the end of the block")
            }
            InstPlacedElsewhere { placed, listed } => write!(
                f,
                "layout places instruction in {placed} but lists it in {listed}"
            ),
            InstNotPlaced { listed } => write!(
                f,
                "layout does not place instruction but lists it in {listed}"
            ),
            ResultRecord { value, def } => {
                write!(f, "result {value} is recorded as {}", Def(*def))
            }
            NoTerminator => f.write_str("block does not end in a terminator"),

            BranchOutOfLayout { target } => {
                write!(f, "branch to {target}, which is not in the layout")
            }
            BranchToEntry { target } => write!(f, "branch to the entry block {target}"),
            BranchArgCount {
                target,
                params,
                args,
            } => write!(f, "{target} takes {params} arguments, got {args}"),
            StaleDefinition { value, def } => write!(
                f,
                "{value} is recorded as {}, which does not define it",
                Def(*def)
            ),
            DefiningInstOutOfLayout { value, inst } => {
                write!(
                    f,
                    "{value} is defined by {inst}, which is not in the layout"
                )
            }
            DefiningBlockOutOfLayout { value, block } => write!(
                f,
                "{value} is a parameter of {block}, which is not in the layout"
            ),
            NotDominated { value } => {
                write!(f, "use of {value} is not dominated by its definition")
            }

            WrongFormat { opcode } => write!(f, "{opcode} in the wrong instruction format"),
            ResultCount { expected, found } => {
                write!(f, "expected {expected} results, got {found}")
            }
            ResultNotInstType { found, expected } => write!(
                f,
                "result type {found} does not match the instruction type {expected}"
            ),
            ResultNotOperandType { found, expected } => write!(
                f,
                "result type {found} does not match operand type {expected}"
            ),
            NeedsFloats { opcode, found } => {
                write!(f, "{opcode} needs float operands, got {found}")
            }
            NeedsIntegers { opcode, found } => {
                write!(f, "{opcode} needs integer operands, got {found}")
            }
            TakesNoI1 { opcode } => write!(f, "{opcode} does not take i1"),
            NeedsF32 { opcode, found } => write!(f, "{opcode} needs f32, got {found}"),
            NeedsF32OrF64 { opcode, found } => {
                write!(f, "{opcode} needs f32 or f64, got {found}")
            }
            NeedsI32OrI64 { opcode, found } => {
                write!(f, "{opcode} needs i32 or i64, got {found}")
            }
            NeedsI32Operands { opcode, found } => {
                write!(f, "{opcode} needs i32 operands, got {found}")
            }
            OperandsDiffer { opcode, a, b } => write!(f, "{opcode} operands differ: {a} and {b}"),
            IcmpOperands { found } => {
                write!(f, "icmp needs integer or pointer operands, got {found}")
            }
            CompareResult { opcode, found } => {
                write!(f, "{opcode} result must be i1, got {found}")
            }
            SelectCondition { found } => write!(f, "select condition must be i1, got {found}"),
            SelectArmsDiffer { a, b } => write!(f, "select arms differ: {a} and {b}"),
            BrifCondition { found } => write!(f, "brif condition must be i1, got {found}"),
            ConvertNeedsIntegers { opcode, from, to } => {
                write!(f, "{opcode} needs integer types, got {from} to {to}")
            }
            ConvertMustWiden { opcode, from, to } => {
                write!(f, "{opcode} must widen, got {from} to {to}")
            }
            ConvertMustNarrow { opcode, from, to } => {
                write!(f, "{opcode} must narrow, got {from} to {to}")
            }
            ConvertNeedsFloats { opcode, from, to } => {
                write!(f, "{opcode} needs float types, got {from} to {to}")
            }
            IntToFloat { opcode, from, to } => write!(
                f,
                "{opcode} converts a non-i1 integer to a float, got {from} to {to}"
            ),
            FloatToInt { opcode, from, to } => write!(
                f,
                "{opcode} converts a float to a non-i1 integer, got {from} to {to}"
            ),
            BitcastPointers { from, to } => {
                write!(f, "bitcast cannot convert pointers, got {from} to {to}")
            }
            BitcastWidth { from, to } => {
                write!(f, "bitcast needs types of one width, got {from} to {to}")
            }
            PtrtointOperand { from } => write!(f, "ptrtoint needs a pointer operand, got {from}"),
            PtrtointResult { from, expected, to } => {
                write!(f, "ptrtoint of {from} must give {expected}, got {to}")
            }
            InttoptrResult { to } => write!(f, "inttoptr must give a pointer, got {to}"),
            InttoptrOperand { to, expected, from } => {
                write!(f, "inttoptr to {to} needs {expected}, got {from}")
            }
            IconstType { ty } => write!(f, "iconst type must be an integer, got {ty}"),
            IconstRange { imm, ty } => write!(f, "iconst {imm} does not fit in {ty}"),
            FconstType { ty } => write!(f, "fconst type must be a float, got {ty}"),
            FconstInexact { value, ty } => {
                let mut text = String::new();
                write_float(&mut text, *value)?;
                write!(f, "fconst {text} is not exactly representable in {ty}")
            }
            PtrOffsetBase { found } => write!(f, "ptroffset needs a pointer operand, got {found}"),
            PtrOffsetOffset { found } => {
                write!(f, "ptroffset offset must be i64 or i32, got {found}")
            }
            PtrOffsetResult { found } => {
                write!(f, "ptroffset result must be a pointer, got {found}")
            }
            AddressNotPointer { opcode, found } => {
                write!(f, "{opcode} address must be a pointer, got {found}")
            }
            PredicateMemory { opcode } => {
                write!(f, "{opcode} of i1; PTX has no predicate memory type")
            }
            CallArgCount {
                callee,
                expected,
                found,
            } => write!(
                f,
                "call to @{callee} takes {expected} arguments, got {found}"
            ),
            CallArgType {
                callee,
                index,
                found,
                expected,
            } => write!(
                f,
                "argument {index} of call to @{callee} has type {found}, expected {expected}"
            ),
            CallResultType {
                callee,
                index,
                found,
                expected,
            } => write!(
                f,
                "result {index} of call to @{callee} has type {found}, expected {expected}"
            ),
            CallIndirectNoCallee => f.write_str("call_indirect needs a callee operand"),
            CallIndirectCallee { found } => {
                write!(f, "call_indirect callee must be i64, got {found}")
            }
            CallIndirectArgCount { expected, found } => {
                write!(f, "call_indirect takes {expected} arguments, got {found}")
            }
            CallIndirectArgType {
                index,
                found,
                expected,
            } => write!(
                f,
                "argument {index} of call_indirect has type {found}, expected {expected}"
            ),
            CallIndirectResultType {
                index,
                found,
                expected,
            } => write!(
                f,
                "result {index} of call_indirect has type {found}, expected {expected}"
            ),
            CallIndirectPredicate => {
                f.write_str("call_indirect signature with i1; PTX passes no predicates")
            }
            CallIndirectResults => f.write_str("call_indirect with more than one result"),
            SpecialResult { expected, found } => {
                write!(f, "special result must be {expected}, got {found}")
            }
            AtomicRmwType { op, found } => write!(f, "atomic_rmw {op} does not take {found}"),
            AtomicCasType { found } => {
                write!(f, "atomic_cas needs i16, i32 or i64, got {found}")
            }
            AtomicVecNoAddress => f.write_str("atomic_vec needs an address"),
            AtomicVecPackedCount { element, count } => write!(
                f,
                "atomic_vec on {element} takes 2 elements (a packed pair), got {count}"
            ),
            AtomicVecCount { count } => {
                write!(f, "atomic_vec takes 2 or 4 elements, got {count}")
            }
            AtomicVecOp { op } => write!(
                f,
                "atomic_vec {op} is not an operation on vectors; only add is"
            ),
            AtomicVecElement {
                index,
                expected,
                found,
            } => write!(
                f,
                "atomic_vec element {index} must be {expected}, got {found}"
            ),
            AtomicVecResult {
                index,
                found,
                element,
            } => write!(
                f,
                "atomic_vec result {index} has type {found}, its element is {element}"
            ),
            ShflValue { found } => write!(f, "shfl value must be i32 or f32, got {found}"),
            ShflOperand { index, found } => {
                write!(f, "shfl operand {index} must be i32, got {found}")
            }
            VotePredicate { found } => write!(f, "vote predicate must be i1, got {found}"),
            VoteMask { found } => write!(f, "vote member mask must be i32, got {found}"),
            ReduxValue { op, found } => write!(f, "redux {op} value must be i32, got {found}"),
            ReduxMask { found } => write!(f, "redux member mask must be i32, got {found}"),
            MatchValue { mode, found } => {
                write!(f, "match {mode} value must be i32 or i64, got {found}")
            }
            MatchMask { found } => write!(f, "match member mask must be i32, got {found}"),
            BarrierRedPredicate { found } => {
                write!(f, "barrier_red predicate must be i1, got {found}")
            }
            EffectOperand { opcode, found } => {
                write!(f, "{opcode} operand must be i32, got {found}")
            }
            IsSpaceOperand { found } => write!(f, "is_space needs a pointer operand, got {found}"),
            IsSpaceSpace { space } => write!(
                f,
                "is_space needs a space with a generic window, got {space}"
            ),
            BranchArgType {
                index,
                target,
                found,
                param,
                expected,
            } => write!(
                f,
                "argument {index} to {target} has type {found}, parameter {param} is {expected}"
            ),
            ReturnCount { found, expected } => write!(
                f,
                "return gives {found} values, signature returns {expected}"
            ),
            ReturnType {
                index,
                found,
                expected,
            } => write!(
                f,
                "return value {index} has type {found}, signature says {expected}"
            ),
            InlineAsmOperandCount { expected, found } => write!(
                f,
                "inline_asm's constraints take {expected} operands, got {found}"
            ),
            InlineAsmOperand {
                index,
                expected,
                found,
            } => write!(
                f,
                "inline_asm operand {index} must be {expected}, got {found}"
            ),
            InlineAsmResult { index, expected } => {
                write!(f, "inline_asm result {index} must be {expected}")
            }
            InlineAsmTemplate { reason } => write!(f, "inline_asm template: {reason}"),
            AccelModifiers { reason } => f.write_str(reason),
            AccelOperandCount {
                opcode,
                expected,
                found,
            } => write!(f, "{opcode} takes {expected} operands, got {found}"),
            AccelOperandType {
                opcode,
                index,
                expected,
                found,
            } => write!(
                f,
                "{opcode} operand {index} must be {expected}, got {found}"
            ),
            AccelOperandSpace {
                opcode,
                index,
                spaces,
                found,
            } => write!(
                f,
                "{opcode} operand {index} must be {}, got {found}",
                PtrList(spaces)
            ),
            AccelResult {
                opcode,
                index,
                expected,
                found,
            } => write!(f, "{opcode} result {index} must be {expected}, got {found}"),
            AddrSpaceCastOperand { found } => {
                write!(f, "addrspacecast needs a pointer operand, got {found}")
            }
            GlobalAddrResult { found } => {
                write!(f, "global_addr result must be a pointer, got {found}")
            }
            GlobalAddrSpace {
                gv,
                expected,
                found,
            } => write!(f, "global_addr of {gv} must give {expected}, got {found}"),
            StackAddrResult { found } => {
                write!(f, "stack_addr result must be ptr<local>, got {found}")
            }

            KernelReturns => f.write_str("kernel must not return values"),
            GridConstantInDevice { param } => {
                write!(f, "grid_constant parameter {param} in a device function")
            }
            SretInKernel { param } => write!(f, "sret parameter {param} in a kernel"),
            SretNotPointer { param, found } => {
                write!(f, "sret parameter {param} must be a pointer, got {found}")
            }
            ByvalAndSret { param } => write!(f, "parameter {param} is both byval and sret"),
            SretAlign { param, align } => write!(
                f,
                "sret parameter {param} alignment {align} is not a power of two"
            ),
            SretWithReturns { param } => write!(
                f,
                "sret parameter {param} in a function that returns values"
            ),
            KernelByvalType { param, found } => write!(
                f,
                "byval parameter {param} of a kernel must be ptr<param>, got {found}"
            ),
            ByvalNotPointer { param, found } => {
                write!(f, "byval parameter {param} must be a pointer, got {found}")
            }
            ByvalAlign { param, align } => write!(
                f,
                "byval parameter {param} alignment {align} is not a power of two"
            ),
            RestrictNotPointer { param } => {
                write!(f, "restrict parameter {param} is not a pointer")
            }
            NoaliasNotPointer { param } => write!(f, "noalias parameter {param} is not a pointer"),
            ClusterDimsOnDevice => f.write_str("cluster_dims on a device function"),
            ClusterDimsZero => f.write_str("cluster_dims must be positive"),
            LaunchBoundsOnDevice => f.write_str("launch_bounds on a device function"),
            LaunchBoundsZero => f.write_str("launch_bounds max threads must be positive"),
            StackSlotAlign { slot, align } => {
                write!(f, "{slot} alignment {align} is not a power of two")
            }
            PtrOffsetSpace { from, to } => {
                write!(f, "ptroffset changes the address space from {from} to {to}")
            }
            CastTmem { from, to } => write!(
                f,
                "addrspacecast from {from} to {to}: tmem has no generic form"
            ),
            CastToItself { space } => write!(f, "addrspacecast from {space} to itself"),
            CastBetweenSpecific { from, to } => write!(
                f,
                "addrspacecast from {from} to {to}: one side must be generic"
            ),
            MemAlign { opcode, align } => {
                write!(f, "{opcode} alignment {align} is not a power of two")
            }
            NoLoadStore { opcode, space } => write!(
                f,
                "{opcode} through ptr<{space}>; {space} has no ordinary loads and stores"
            ),
            ReadOnlyStore { space } => {
                write!(f, "store through ptr<{space}>; {space} memory is read-only")
            }
            AtomicSpace { opcode, space } => write!(
                f,
                "{opcode} through ptr<{space}>; atomics need global, shared or generic memory"
            ),
            VectorAtomicSpace { space } => write!(
                f,
                "atomic_vec through ptr<{space}>; vector atomics need global (or generic) memory"
            ),
            IsSpaceTmem => f.write_str(
                "is_space of ptr<tmem>; only tcgen05 operations use tensor-memory addresses",
            ),
            CallToKernel { callee } => write!(f, "call to kernel @{callee}"),
            FuncAddrOfKernel { callee } => write!(f, "func_addr of kernel @{callee}"),

            DuplicateFunction { name, first } => {
                write!(f, "duplicate function name @{name} (also {first})")
            }
            DuplicateVariable { name, gv, first } => {
                write!(f, "duplicate variable name @{name} ({gv} and {first})")
            }
            VariableSpace { gv, space } => write!(f, "{gv} cannot live in {space} space"),
            VariableAlign { gv, align } => {
                write!(f, "{gv} alignment {align} is not a power of two")
            }
            SharedInitializer { gv } => {
                write!(f, "{gv} is shared and cannot have an initializer")
            }
            InitializerSize { gv, bytes, size } => {
                write!(f, "{gv} initializer has {bytes} bytes, size is {size}")
            }
            RelocPlacement { gv, offset } => write!(
                f,
                "relocation at offset {offset} of {gv} is outside its initializer or overlaps another"
            ),
            RelocTarget { gv, offset, why } => {
                write!(f, "relocation at offset {offset} of {gv}: {why}")
            }
            ManagedNotSizedGlobal { gv } => write!(f, "managed {gv} must be a sized global"),
            DynamicNotShared { gv } => write!(f, "dynamic {gv} must be in shared space"),
            DynamicSize { gv } => write!(f, "dynamic {gv} must have size 0"),
        }
    }
}
