//! Why instruction selection fails. Each reason is a variant with its facts
//! as fields; `Display` writes the message the user reads. The reasons fall
//! in three groups, by whose the failure is: the target's ([`TargetLacks`]:
//! the user asked for a GPU without the instruction), kernelc's
//! ([`NotSelected`]: no selection for that form yet) and a compiler bug's
//! ([`Malformed`]: IR that breaks a rule the verifier checks).

use crate::target::Target;
use core::fmt;
use midend::ir::{
    AddrSpace, AtomicOp, Block, FuncId, GlobalVar, Inst, IntCC, Opcode, SourceSpan, SpecialReg,
    Type,
};
use stdx::codes::Code;

/// A function that could not be selected: why, the instruction being
/// selected (when the failure is at one) and that instruction's source span
/// (when it has one), so the driver can point at the user's code.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct IselError {
    pub kind: IselErrorKind,
    pub at: Option<At>,
    pub span: Option<SourceSpan>,
}

/// The instruction selection failed at.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct At {
    pub opcode: Opcode,
    pub inst: Inst,
    pub block: Block,
}

impl From<IselErrorKind> for IselError {
    /// A failure of the function as a whole (its signature, its
    /// parameters), at no instruction.
    fn from(kind: IselErrorKind) -> IselError {
        IselError {
            kind,
            at: None,
            span: None,
        }
    }
}

impl fmt::Display for IselError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(At {
            opcode,
            inst,
            block,
        }) = self.at
        {
            write!(f, "`{opcode}` ({inst} in {block}): ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for IselError {}

/// Why a function, or one of its instructions, could not be selected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum IselErrorKind {
    TargetLacks(TargetLacks),
    NotSelected(NotSelected),
    Malformed(Malformed),
}

impl IselErrorKind {
    /// The stable code the user sees when the failure is at their code
    /// (`kernelc --explain`): the target's lack, kernelc's gap, or a
    /// compiler bug, each named here so a new group must choose its code.
    pub fn code(&self) -> Code {
        match self {
            IselErrorKind::TargetLacks(_) => Code::E0029,
            IselErrorKind::NotSelected(_) => Code::E0002,
            IselErrorKind::Malformed(_) => Code::E0099,
        }
    }
}

impl fmt::Display for IselErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IselErrorKind::TargetLacks(e) => e.fmt(f),
            IselErrorKind::NotSelected(e) => e.fmt(f),
            IselErrorKind::Malformed(e) => e.fmt(f),
        }
    }
}

impl From<TargetLacks> for IselErrorKind {
    fn from(e: TargetLacks) -> IselErrorKind {
        IselErrorKind::TargetLacks(e)
    }
}

impl From<NotSelected> for IselErrorKind {
    fn from(e: NotSelected) -> IselErrorKind {
        IselErrorKind::NotSelected(e)
    }
}

impl From<Malformed> for IselErrorKind {
    fn from(e: Malformed) -> IselErrorKind {
        IselErrorKind::Malformed(e)
    }
}

/// What the target GPU does not have; a newer `-arch` has it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum TargetLacks {
    /// An instruction family from `sm` on, named as ptxas names it
    /// (`cp.async`, `mbarrier.try_wait.parity`).
    Feature {
        feature: &'static str,
        sm: u32,
        target: Target,
    },
    /// `atomicAdd` on `float2`/`float4` (`atom` with vector types: sm_90).
    VectorAtomic { target: Target },
    /// A cluster special register (`%clusterid`, `%cluster_ctarank`: sm_90).
    ClusterRegister { reg: SpecialReg, target: Target },
    /// An instruction of the architecture-specific targets only (`wgmma`,
    /// `tcgen05`, `setmaxnreg`), with the targets that have it.
    ArchSpecific {
        feature: &'static str,
        targets: &'static [&'static str],
        target: Target,
    },
    /// An opcode (on a type) that needs `sm` or newer: `min`/`max` on
    /// `f16` (sm_80), `nanosleep` (sm_70).
    Opcode {
        op: Opcode,
        ty: Option<Type>,
        sm: u32,
    },
    /// `bf16` arithmetic (sm_80).
    Bf16Arithmetic { target: Target },
    /// Conversions from or to `bf16` (sm_80).
    Bf16Conversions { target: Target },
    /// Thread-block clusters, `__cluster_dims__` (sm_90).
    Clusters { target: Target },
}

impl fmt::Display for TargetLacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetLacks::Feature {
                feature,
                sm,
                target,
            } => write!(
                f,
                "Feature '{feature}' requires .target sm_{sm} or higher (the target is {target})"
            ),
            TargetLacks::VectorAtomic { target } => write!(
                f,
                "Feature '{VECTOR_ATOMIC}' requires .target sm_90 or higher (the target is {target}): `atomicAdd` on `float2`/`float4` needs sm_90 or newer"
            ),
            TargetLacks::ClusterRegister { reg, target } => write!(
                f,
                "Feature '%{}' requires .target sm_90 or higher (the target is {target})",
                reg.name().trim_end_matches(['.', 'x', 'y', 'z'])
            ),
            TargetLacks::ArchSpecific {
                feature,
                targets,
                target,
            } => {
                let list = match targets.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!(".target {} or {last}", rest.join(", "))
                    }
                    _ => format!(".target {}", targets.join(", ")),
                };
                let first = targets.first().copied().unwrap_or_default();
                write!(
                    f,
                    "Feature '{feature}' requires {list} (the target is {target}; compile with -arch={first})"
                )
            }
            TargetLacks::Opcode { op, ty, sm } => {
                write!(f, "`{op}`")?;
                if let Some(ty) = ty {
                    write!(f, " on `{ty}`")?;
                }
                write!(f, " needs sm_{sm} or newer")
            }
            TargetLacks::Bf16Arithmetic { target } => write!(
                f,
                "`bf16` arithmetic needs sm_80 or newer (target is {target})"
            ),
            TargetLacks::Bf16Conversions { target } => write!(
                f,
                "bf16 conversions need sm_80 or newer (target is {target})"
            ),
            TargetLacks::Clusters { target } => write!(
                f,
                "thread-block clusters (`__cluster_dims__`) need sm_90 or newer (target is {target})"
            ),
        }
    }
}

/// ptxas's name for `atom` with vector types, in its message and as the
/// feature that raises the `.version`.
pub(super) const VECTOR_ATOMIC: &str = "atom instruction with vector types";

/// How a value that is not a pointer was used as one.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PointerUse {
    AddrSpaceCast,
    PtrOffset,
    MemoryAccess,
}

/// A form kernelc does not select (yet), on any target.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NotSelected {
    /// An opcode on a type: `fdiv` on `f16`, `atomic_cas` on `i16`.
    OnType { op: Opcode, ty: Type },
    /// An opcode its selector does not know.
    Opcode(Opcode),
    /// An operation without operands that is not `barrier` or `trap`.
    Nullary(Opcode),
    /// An `atomic_rmw` operation on a type.
    AtomicRmw { op: AtomicOp, ty: Type },
    /// An atomic through a pointer of a space without atomics.
    AtomicSpace(Type),
    /// A vector atomic other than `add` on two or four `f32`.
    VectorAtomic {
        op: AtomicOp,
        lanes: usize,
        ty: Type,
    },
    /// A vector atomic through a pointer not into global memory.
    VectorAtomicSpace(Type),
    /// `shfl` of a type other than `i32` and `f32`.
    Shuffle(Type),
    /// `icmp` on `i1` other than `eq` and `ne`.
    IcmpOnBool(IntCC),
    /// A conversion between two types.
    Conversion { op: Opcode, from: Type, to: Type },
    /// `ptroffset` of a pointer by an offset of a type.
    PtrOffset { ptr: Type, offset: Type },
    /// A shift by an amount of a type.
    ShiftAmount(Type),
    /// A type with no integer instruction type.
    IntType(Type),
    /// A type with no bit type (`.bN`).
    BitType(Type),
    /// A type with no float arithmetic.
    FloatType(Type),
    /// A type with no memory type (`i1`).
    MemoryType(Type),
    /// An `fconst` of a type.
    FloatConstant(Type),
    /// Loads and stores through a pointer of a space (`ptr<tmem>`).
    MemorySpace(AddrSpace),
    /// A conversion between a generic address and one of a space.
    GenericConversion(AddrSpace),
    /// An `addrspacecast` between two non-generic spaces.
    CastBetweenSpaces { from: AddrSpace, to: AddrSpace },
    /// An `addrspacecast` from generic to `param`.
    GenericToParam,
    /// A module variable's address taken as a pointer of another space.
    GlobalAddress { var: AddrSpace, ptr: AddrSpace },
    /// A store into `const` memory.
    StoreToConst,
    /// Constant address offsets whose sum overflows 64 bits.
    OffsetOverflow,
    /// A kernel that returns a value.
    KernelResult,
    /// A function with more than one return value.
    Results,
    /// A `return` with values from a kernel, or with more than one.
    Return,
    /// A by-value aggregate or `__grid_constant__` parameter of a device
    /// function, by its `.param` name.
    ByValueParam { param: String },
    /// An aggregate parameter (`byval`: read; else the struct result,
    /// written) used other than at constant offsets, by `inst`.
    AggregateUse {
        param: String,
        byval: bool,
        inst: Inst,
    },
    /// A call to a kernel.
    CallToKernel { callee: String },
    /// A call whose callee returns what a call cannot take.
    CallResults { callee: String },
    /// A `call_indirect` with more than one result.
    IndirectCallResults,
}

impl fmt::Display for NotSelected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use NotSelected::*;
        match self {
            OnType { op, ty } => write!(f, "`{op}` on `{ty}` is not selected"),
            Opcode(op) => write!(f, "`{op}` is not selected"),
            Nullary(op) => write!(f, "opcode `{op}` is not selected"),
            AtomicRmw { op, ty } => write!(f, "`atomic_rmw {op}` on `{ty}` is not selected"),
            AtomicSpace(ty) => write!(f, "atomics through `{ty}` are not selected"),
            VectorAtomic { op, lanes, ty } => write!(
                f,
                "`atomic_vec {op}` on {lanes} elements of `{ty}` is not selected"
            ),
            VectorAtomicSpace(ty) => write!(
                f,
                "vector atomics through `{ty}` are not selected (they need global memory)"
            ),
            Shuffle(ty) => write!(f, "`shfl` of `{ty}` is not selected"),
            IcmpOnBool(cond) => write!(f, "icmp {cond} on `i1` is not selected"),
            Conversion { op, from, to } => {
                write!(f, "`{op}` from `{from}` to `{to}` is not selected")
            }
            PtrOffset { ptr, offset } => {
                write!(f, "ptroffset of `{ptr}` by `{offset}` is not selected")
            }
            ShiftAmount(ty) => write!(f, "shift amount of type `{ty}`"),
            IntType(ty) => write!(f, "no integer instruction type for `{ty}`"),
            BitType(ty) => write!(f, "no bit type for `{ty}`"),
            FloatType(ty) => write!(f, "no float arithmetic for `{ty}`"),
            MemoryType(ty) => write!(f, "no memory type for `{ty}`"),
            FloatConstant(ty) => write!(f, "fconst of type `{ty}`"),
            MemorySpace(space) => {
                write!(f, "memory access to `ptr<{space}>` is not supported yet")
            }
            GenericConversion(space) => write!(
                f,
                "no generic conversion for `ptr<{space}>` (not supported yet)"
            ),
            CastBetweenSpaces { from, to } => write!(
                f,
                "addrspacecast from `{from}` to `{to}` (one side must be generic)"
            ),
            GenericToParam => f.write_str("addrspacecast from generic to `param` is not supported"),
            GlobalAddress { var, ptr } => {
                write!(f, "global_addr of a `{var}` variable as `ptr<{ptr}>`")
            }
            StoreToConst => f.write_str("store to `const` memory"),
            OffsetOverflow => f.write_str("address offset overflows 64 bits"),
            KernelResult => f.write_str("a kernel cannot return a value"),
            Results => f.write_str("more than one return value is not supported"),
            Return => f.write_str("return with values from a kernel, or more than one value"),
            ByValueParam { param } => write!(
                f,
                "by-value aggregate / __grid_constant__ parameter `{param}` of a device function is not supported yet"
            ),
            AggregateUse { param, byval, inst } => {
                let what = if *byval {
                    "a by-value aggregate parameter is only read"
                } else {
                    "a struct result is only written"
                };
                write!(
                    f,
                    "`{param}`: {what} at constant offsets, but {inst} uses it otherwise"
                )
            }
            CallToKernel { callee } => write!(
                f,
                "call to kernel `{callee}` (only device functions can be called)"
            ),
            CallResults { callee } => write!(f, "call to `{callee}`: unsupported return values"),
            IndirectCallResults => f.write_str("call_indirect with more than one result"),
        }
    }
}

/// IR that breaks a rule the verifier checks (the backend takes only
/// verified IR, so each is a compiler bug), or a selector asked for a form
/// another one selects.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Malformed {
    /// A value that is not a pointer, used as one.
    NonPointer { used_in: PointerUse, ty: Type },
    /// The entry block's parameters differ from the signature's.
    EntryParams,
    /// A block without instructions.
    EmptyBlock(Block),
    /// An instruction that needs a result has none.
    NoResult(Opcode),
    /// `func_addr` of a function the module does not have.
    AddressOfUnknown(FuncId),
    /// A call of a function the module does not have.
    CallToUnknown(FuncId),
    /// A module variable the module does not have.
    UnknownGlobal(GlobalVar),
    /// A branch whose arguments do not match the block's parameters.
    BranchArguments(Block),
    /// A call whose arguments do not match the callee's parameters.
    CallArguments { callee: String },
    /// `call_indirect` without its callee operand.
    IndirectCallWithoutCallee,
    /// `atomic_vec` without its address operand.
    VectorAtomicWithoutAddress,
    /// A vector group without its first lane.
    VectorGroupWithoutLead,
    /// A load of a vector group without a result.
    VectorLoadWithoutResult,
    /// A store group with a member that is no store.
    VectorStoreGroup,
    /// A vector group of an instruction that is no load or store.
    VectorGroupKind,
    /// An `accel` operation that its selector does not select.
    SelectedElsewhere(Opcode),
    /// An `accel` operation that is not a runtime call.
    NotARuntimeCall(Opcode),
    /// An `accel` operation that is not a `wgmma` or `tcgen05` form.
    NotArchSpecific(Opcode),
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Malformed::*;
        match self {
            NonPointer { used_in, ty } => {
                let use_ = match used_in {
                    PointerUse::AddrSpaceCast => "addrspacecast of",
                    PointerUse::PtrOffset => "ptroffset on",
                    PointerUse::MemoryAccess => "memory access through",
                };
                write!(f, "{use_} non-pointer `{ty}`")
            }
            EntryParams => f.write_str("the entry block's parameters do not match the signature"),
            EmptyBlock(block) => write!(f, "{block} is empty (it needs a terminator)"),
            NoResult(op) => write!(f, "`{op}` has no result"),
            AddressOfUnknown(func) => write!(f, "address of unknown {func}"),
            CallToUnknown(func) => write!(f, "call to unknown {func}"),
            UnknownGlobal(gv) => write!(f, "unknown {gv}"),
            BranchArguments(block) => {
                write!(f, "branch to {block} passes the wrong argument count")
            }
            CallArguments { callee } => {
                write!(f, "call to `{callee}` with the wrong argument count")
            }
            IndirectCallWithoutCallee => f.write_str("call_indirect without a callee"),
            VectorAtomicWithoutAddress => f.write_str("`atomic_vec` without an address"),
            VectorGroupWithoutLead => f.write_str("a vector group without its first lane"),
            VectorLoadWithoutResult => f.write_str("a load without a result"),
            VectorStoreGroup => f.write_str("a store group holds a non-store"),
            VectorGroupKind => f.write_str("a vector group of a non-memory instruction"),
            SelectedElsewhere(op) => write!(f, "`{op}` is selected elsewhere"),
            NotARuntimeCall(op) => write!(f, "`{op}` is no runtime call"),
            NotArchSpecific(op) => write!(f, "`{op}` is not a wgmma or tcgen05 form"),
        }
    }
}
