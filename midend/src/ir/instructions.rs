//! Instructions: opcodes, the instruction formats that hold their operands,
//! and the small enums (conditions, special registers, memory flags) they use.
//!
//! An instruction is stored as an [`InstData`]: one variant per *format*
//! (the shape of its operands), each carrying its [`Opcode`]. Result values
//! and their types live in the data-flow graph, not here.

use super::entities::{AliasScope, Block, FuncId, GlobalVar, StackSlot, Value};
use super::types::{AddrSpace, Type};
use core::fmt;

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $name { $($(#[$vm])* $var,)* }
        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var,)*];
            /// The text-format spelling.
            pub fn name(self) -> &'static str {
                match self { $($name::$var => $text,)* }
            }
            /// Looks a variant up by its text-format spelling.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$var),)* _ => None }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
    };
}

named_enum! {
    /// What an instruction does. The format (operand shape) is given by [`Opcode::format`].
    Opcode {
        /// Integer constant: `v1 = iconst.i32 42`.
        Iconst = "iconst",
        /// Float constant: `v1 = fconst.f32 1.5`.
        Fconst = "fconst",
        // Unary.
        Ineg = "ineg",
        /// Bitwise not.
        Bnot = "bnot",
        Fneg = "fneg",
        Fabs = "fabs",
        Sqrt = "sqrt",
        // Binary integer.
        Iadd = "iadd",
        Isub = "isub",
        Imul = "imul",
        Sdiv = "sdiv",
        Udiv = "udiv",
        Srem = "srem",
        Urem = "urem",
        Band = "band",
        Bor = "bor",
        Bxor = "bxor",
        /// Shift left. The shift amount is taken modulo nothing: C semantics are the frontend's job.
        Ishl = "ishl",
        /// Logical shift right.
        Ushr = "ushr",
        /// Arithmetic shift right.
        Sshr = "sshr",
        Smin = "smin",
        Smax = "smax",
        Umin = "umin",
        Umax = "umax",
        // Binary float.
        Fadd = "fadd",
        Fsub = "fsub",
        Fmul = "fmul",
        Fdiv = "fdiv",
        Fmin = "fmin",
        Fmax = "fmax",
        /// Fused multiply-add: `a * b + c` with one rounding.
        Fma = "fma",
        Icmp = "icmp",
        Fcmp = "fcmp",
        /// `select c, a, b`: `a` if `c` else `b`.
        Select = "select",
        // Conversions: the result type is written on the opcode (`sext.i64 v1`).
        Sext = "sext",
        Zext = "zext",
        Trunc = "trunc",
        Fpext = "fpext",
        Fptrunc = "fptrunc",
        Sitofp = "sitofp",
        Uitofp = "uitofp",
        /// Float to signed integer, rounding toward zero (C's conversion).
        Fptosi = "fptosi",
        Fptoui = "fptoui",
        /// Reinterpret the bits as another type of the same width.
        Bitcast = "bitcast",
        Ptrtoint = "ptrtoint",
        Inttoptr = "inttoptr",
        /// `ptroffset p, off`: `p` plus a signed byte offset. Keeps the address space.
        PtrOffset = "ptroffset",
        /// Change a pointer's address space; one side must be generic.
        AddrSpaceCast = "addrspacecast",
        /// Address of a module variable.
        GlobalAddr = "global_addr",
        /// Address of a stack slot (always `ptr<local>`).
        StackAddr = "stack_addr",
        Load = "load",
        Store = "store",
        Call = "call",
        /// Read a special register (`%tid.x`, ...).
        SpecialReg = "special",
        /// CTA-wide barrier (`__syncthreads()`, `bar.sync 0`).
        Barrier = "barrier",
        Jump = "jump",
        /// Conditional branch on an `i1`.
        Brif = "brif",
        Return = "return",
        /// Abort the kernel (`trap`). Also ends a block.
        Trap = "trap",
    }
}

/// The operand shape of an opcode.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Format {
    Iconst,
    Fconst,
    Unary,
    Binary,
    Ternary,
    IntCompare,
    FloatCompare,
    Convert,
    AddrSpaceCast,
    GlobalAddr,
    StackAddr,
    Load,
    Store,
    Call,
    SpecialReg,
    Nullary,
    Jump,
    Brif,
    Return,
}

impl Opcode {
    pub fn format(self) -> Format {
        use Opcode::*;
        match self {
            Iconst => Format::Iconst,
            Fconst => Format::Fconst,
            Ineg | Bnot | Fneg | Fabs | Sqrt => Format::Unary,
            Iadd | Isub | Imul | Sdiv | Udiv | Srem | Urem | Band | Bor | Bxor | Ishl | Ushr
            | Sshr | Smin | Smax | Umin | Umax | Fadd | Fsub | Fmul | Fdiv | Fmin | Fmax
            | PtrOffset => Format::Binary,
            Fma | Select => Format::Ternary,
            Icmp => Format::IntCompare,
            Fcmp => Format::FloatCompare,
            Sext | Zext | Trunc | Fpext | Fptrunc | Sitofp | Uitofp | Fptosi | Fptoui | Bitcast
            | Ptrtoint | Inttoptr => Format::Convert,
            AddrSpaceCast => Format::AddrSpaceCast,
            GlobalAddr => Format::GlobalAddr,
            StackAddr => Format::StackAddr,
            Load => Format::Load,
            Store => Format::Store,
            Call => Format::Call,
            SpecialReg => Format::SpecialReg,
            Barrier | Trap => Format::Nullary,
            Jump => Format::Jump,
            Brif => Format::Brif,
            Return => Format::Return,
        }
    }

    /// Whether the instruction ends a block.
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Jump | Opcode::Brif | Opcode::Return | Opcode::Trap
        )
    }

    /// Whether the instruction has an effect besides its results (so dead-code
    /// elimination must keep it).
    pub fn has_side_effects(self) -> bool {
        matches!(
            self,
            Opcode::Store | Opcode::Call | Opcode::Barrier | Opcode::Trap
        ) || self.is_terminator()
    }
}

named_enum! {
    /// Integer comparison conditions.
    IntCC {
        Eq = "eq", Ne = "ne",
        Slt = "slt", Sle = "sle", Sgt = "sgt", Sge = "sge",
        Ult = "ult", Ule = "ule", Ugt = "ugt", Uge = "uge",
    }
}

named_enum! {
    /// Float comparison conditions. `o*` are false when either side is NaN
    /// (C's `==`, `<`, ...); `u*` are true then (C's `!=` is `une`).
    FloatCC {
        Oeq = "oeq", One = "one", Olt = "olt", Ole = "ole", Ogt = "ogt", Oge = "oge",
        Ueq = "ueq", Une = "une", Ult = "ult", Ule = "ule", Ugt = "ugt", Uge = "uge",
        /// Neither side is NaN.
        Ord = "ord",
        /// Either side is NaN.
        Uno = "uno",
    }
}

named_enum! {
    /// Special registers that `special` can read. All are `i32`.
    SpecialReg {
        TidX = "tid.x", TidY = "tid.y", TidZ = "tid.z",
        NtidX = "ntid.x", NtidY = "ntid.y", NtidZ = "ntid.z",
        CtaidX = "ctaid.x", CtaidY = "ctaid.y", CtaidZ = "ctaid.z",
        NctaidX = "nctaid.x", NctaidY = "nctaid.y", NctaidZ = "nctaid.z",
        LaneId = "laneid", WarpId = "warpid",
    }
}

impl SpecialReg {
    /// The type of the value a `special` instruction reads.
    pub fn ty(self) -> Type {
        Type::I32
    }
}

/// Flags and alias metadata on a load or store.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct MemFlags {
    /// The access may not be removed, merged or reordered with other volatile accesses.
    pub volatile: bool,
    /// The memory does not change while the kernel runs (lets the backend use `ld.global.nc`).
    pub invariant: bool,
    /// Alias scopes this access belongs to (from `__restrict__` roots).
    pub scopes: Vec<AliasScope>,
    /// Alias scopes this access is known not to alias.
    pub noalias: Vec<AliasScope>,
}

/// A branch target with the arguments passed to the target block's parameters.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Value>,
}

impl BlockCall {
    pub fn new(block: Block, args: Vec<Value>) -> BlockCall {
        BlockCall { block, args }
    }
}

/// An instruction's operands, one variant per [`Format`].
#[derive(Clone, PartialEq, Debug)]
pub enum InstData {
    Iconst {
        ty: Type,
        imm: i64,
    },
    /// `value` is held as an f64; every f16/bf16/f32 value is exactly representable.
    Fconst {
        ty: Type,
        value: f64,
    },
    Unary {
        opcode: Opcode,
        arg: Value,
    },
    Binary {
        opcode: Opcode,
        args: [Value; 2],
    },
    Ternary {
        opcode: Opcode,
        args: [Value; 3],
    },
    IntCompare {
        cond: IntCC,
        args: [Value; 2],
    },
    FloatCompare {
        cond: FloatCC,
        args: [Value; 2],
    },
    Convert {
        opcode: Opcode,
        ty: Type,
        arg: Value,
    },
    AddrSpaceCast {
        to: AddrSpace,
        arg: Value,
    },
    GlobalAddr {
        gv: GlobalVar,
    },
    StackAddr {
        slot: StackSlot,
    },
    Load {
        ty: Type,
        ptr: Value,
        flags: MemFlags,
    },
    Store {
        value: Value,
        ptr: Value,
        flags: MemFlags,
    },
    Call {
        func: FuncId,
        args: Vec<Value>,
    },
    SpecialReg {
        reg: SpecialReg,
    },
    Nullary {
        opcode: Opcode,
    },
    Jump {
        dest: BlockCall,
    },
    Brif {
        cond: Value,
        then_dest: BlockCall,
        else_dest: BlockCall,
    },
    Return {
        args: Vec<Value>,
    },
}

impl InstData {
    pub fn opcode(&self) -> Opcode {
        match self {
            InstData::Iconst { .. } => Opcode::Iconst,
            InstData::Fconst { .. } => Opcode::Fconst,
            InstData::Unary { opcode, .. }
            | InstData::Binary { opcode, .. }
            | InstData::Ternary { opcode, .. }
            | InstData::Convert { opcode, .. }
            | InstData::Nullary { opcode } => *opcode,
            InstData::IntCompare { .. } => Opcode::Icmp,
            InstData::FloatCompare { .. } => Opcode::Fcmp,
            InstData::AddrSpaceCast { .. } => Opcode::AddrSpaceCast,
            InstData::GlobalAddr { .. } => Opcode::GlobalAddr,
            InstData::StackAddr { .. } => Opcode::StackAddr,
            InstData::Load { .. } => Opcode::Load,
            InstData::Store { .. } => Opcode::Store,
            InstData::Call { .. } => Opcode::Call,
            InstData::SpecialReg { .. } => Opcode::SpecialReg,
            InstData::Jump { .. } => Opcode::Jump,
            InstData::Brif { .. } => Opcode::Brif,
            InstData::Return { .. } => Opcode::Return,
        }
    }

    /// All value operands, in order, including branch arguments.
    pub fn arguments(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.for_each_arg(|v| out.push(v));
        out
    }

    /// Calls `f` on every value operand, in order, including branch arguments.
    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        match self {
            InstData::Iconst { .. }
            | InstData::Fconst { .. }
            | InstData::GlobalAddr { .. }
            | InstData::StackAddr { .. }
            | InstData::SpecialReg { .. }
            | InstData::Nullary { .. } => {}
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::AddrSpaceCast { arg, .. } => f(*arg),
            InstData::Binary { args, .. }
            | InstData::IntCompare { args, .. }
            | InstData::FloatCompare { args, .. } => args.iter().copied().for_each(f),
            InstData::Ternary { args, .. } => args.iter().copied().for_each(f),
            InstData::Load { ptr, .. } => f(*ptr),
            InstData::Store { value, ptr, .. } => {
                f(*value);
                f(*ptr)
            }
            InstData::Call { args, .. } | InstData::Return { args } => {
                args.iter().copied().for_each(f)
            }
            InstData::Jump { dest } => dest.args.iter().copied().for_each(f),
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                f(*cond);
                then_dest.args.iter().copied().for_each(&mut f);
                else_dest.args.iter().copied().for_each(f);
            }
        }
    }

    /// Rewrites every value operand (including branch arguments) through `f`.
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            InstData::Iconst { .. }
            | InstData::Fconst { .. }
            | InstData::GlobalAddr { .. }
            | InstData::StackAddr { .. }
            | InstData::SpecialReg { .. }
            | InstData::Nullary { .. } => {}
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::AddrSpaceCast { arg, .. } => *arg = f(*arg),
            InstData::Binary { args, .. }
            | InstData::IntCompare { args, .. }
            | InstData::FloatCompare { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::Ternary { args, .. } => args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::Load { ptr, .. } => *ptr = f(*ptr),
            InstData::Store { value, ptr, .. } => {
                *value = f(*value);
                *ptr = f(*ptr);
            }
            InstData::Call { args, .. } | InstData::Return { args } => {
                args.iter_mut().for_each(|a| *a = f(*a))
            }
            InstData::Jump { dest } => dest.args.iter_mut().for_each(|a| *a = f(*a)),
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                *cond = f(*cond);
                then_dest.args.iter_mut().for_each(|a| *a = f(*a));
                else_dest.args.iter_mut().for_each(|a| *a = f(*a));
            }
        }
    }

    /// The branch targets of a terminator (empty for anything else).
    pub fn branch_destinations(&self) -> Vec<&BlockCall> {
        match self {
            InstData::Jump { dest } => vec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }

    /// Mutable access to the branch targets of a terminator.
    pub fn branch_destinations_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            InstData::Jump { dest } => vec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }

    /// The memory flags of a load or store.
    pub fn mem_flags(&self) -> Option<&MemFlags> {
        match self {
            InstData::Load { flags, .. } | InstData::Store { flags, .. } => Some(flags),
            _ => None,
        }
    }

    /// The pointer operand of a load or store.
    pub fn mem_ptr(&self) -> Option<Value> {
        match self {
            InstData::Load { ptr, .. } | InstData::Store { ptr, .. } => Some(*ptr),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_name_round_trips() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        for &c in IntCC::ALL {
            assert_eq!(IntCC::from_name(c.name()), Some(c));
        }
        for &c in FloatCC::ALL {
            assert_eq!(FloatCC::from_name(c.name()), Some(c));
        }
        for &r in SpecialReg::ALL {
            assert_eq!(SpecialReg::from_name(r.name()), Some(r));
        }
    }
}
