//! PTX machine instructions: what instruction selection produces and the
//! writer prints.
//!
//! Each [`MInst`] is one PTX instruction (or one line of a call sequence)
//! with typed operands, so the selector cannot spell a register where an
//! address belongs. `Display` gives the PTX text without indentation or
//! trailing newline; the writer adds both.
//!
//! Registers are *virtual*: PTX has unlimited registers and ptxas does the
//! real allocation, so every IR value simply gets a fresh one.

use core::fmt;
use midend::ir::Rounding as FloatRounding;

/// A PTX register class; each has its own name prefix and `.reg` line.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum RegClass {
    /// `.pred %p`: booleans (`i1`).
    Pred,
    /// `.b16 %rs`: `i8`, `i16`, `f16`, `bf16`.
    B16,
    /// `.b32 %r`: `i32`, and 32-bit shared/tmem addresses.
    B32,
    /// `.b64 %rd`: `i64` and 64-bit pointers.
    B64,
    /// `.f32 %f`.
    F32,
    /// `.f64 %fd`.
    F64,
}

impl RegClass {
    /// Every class, in the order the writer declares them.
    pub const ALL: [RegClass; 6] = [
        RegClass::Pred,
        RegClass::B16,
        RegClass::B32,
        RegClass::B64,
        RegClass::F32,
        RegClass::F64,
    ];

    /// The register name prefix (`%r` in `%r12`).
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B16 => "%rs",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
        }
    }

    /// The type in the `.reg` declaration.
    pub fn decl_type(self) -> PtxType {
        match self {
            RegClass::Pred => PtxType::Pred,
            RegClass::B16 => PtxType::B16,
            RegClass::B32 => PtxType::B32,
            RegClass::B64 => PtxType::B64,
            RegClass::F32 => PtxType::F32,
            RegClass::F64 => PtxType::F64,
        }
    }
}

/// An operand of [`MInst::InlineAsm`]: an output register, an input
/// register, a `+` output (read and written), or an `n` immediate.
#[derive(Clone, PartialEq, Debug)]
pub enum AsmOperand {
    Def(Reg),
    Use(Reg),
    Tied(Reg),
    Imm(i64),
}

impl fmt::Display for AsmOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmOperand::Def(r) | AsmOperand::Use(r) | AsmOperand::Tied(r) => write!(f, "{r}"),
            AsmOperand::Imm(n) => write!(f, "{n}"),
        }
    }
}

/// A virtual register: `%r3` is `Reg { class: B32, num: 3 }`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Reg {
    pub class: RegClass,
    pub num: u32,
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.num)
    }
}

/// An instruction type suffix (`.s32` in `add.s32`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum PtxType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    BF16,
    /// Two 16-bit floats packed in a `.b32` register (atomics only).
    F16x2,
    BF16x2,
    F32,
    F64,
    /// `.ftz.f32`: `f32` with the flush-to-zero modifier, which PTX writes
    /// directly before the type in every form kernelc emits (`add.ftz.f32`,
    /// `setp.lt.ftz.f32`, `sqrt.rn.ftz.f32`; `cvt` puts it before both
    /// types). Only the last step of selection makes it, for functions
    /// marked `ftz` ([`crate::ftz`]).
    F32Ftz,
}

impl PtxType {
    pub fn name(self) -> &'static str {
        use PtxType::*;
        match self {
            Pred => ".pred",
            B8 => ".b8",
            B16 => ".b16",
            B32 => ".b32",
            B64 => ".b64",
            U8 => ".u8",
            U16 => ".u16",
            U32 => ".u32",
            U64 => ".u64",
            S8 => ".s8",
            S16 => ".s16",
            S32 => ".s32",
            S64 => ".s64",
            F16 => ".f16",
            BF16 => ".bf16",
            F16x2 => ".f16x2",
            BF16x2 => ".bf16x2",
            F32 => ".f32",
            F64 => ".f64",
            F32Ftz => ".ftz.f32",
        }
    }
}

impl fmt::Display for PtxType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A source operand.
#[derive(Clone, PartialEq, Debug)]
pub enum Operand {
    Reg(Reg),
    /// An integer immediate, printed in decimal.
    Imm(i64),
    /// An `f32` immediate, by its bits: PTX spells it `0f3F800000`.
    F32(u32),
    /// An `f64` immediate, by its bits: `0d3FF0000000000000`.
    F64(u64),
    /// A symbol (module variable or `.local` slot): its address.
    Sym(String),
    /// A special register, named without its `%` (`tid.x` prints `%tid.x`).
    /// Only `mov` and `cvt` may read one.
    Special(&'static str),
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(i) => write!(f, "{i}"),
            Operand::F32(bits) => write!(f, "0f{bits:08X}"),
            Operand::F64(bits) => write!(f, "0d{bits:016X}"),
            Operand::Sym(s) => f.write_str(s),
            Operand::Special(s) => write!(f, "%{s}"),
        }
    }
}

/// The base of a memory address.
#[derive(Clone, PartialEq, Debug)]
pub enum AddrBase {
    Reg(Reg),
    Sym(String),
}

/// A memory operand `[base+offset]`.
#[derive(Clone, PartialEq, Debug)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match &self.base {
            AddrBase::Reg(r) => write!(f, "{r}")?,
            AddrBase::Sym(s) => f.write_str(s)?,
        }
        // ptxas rejects `[%rd1-4]`; a negative offset is written `+-4`.
        if self.offset != 0 {
            write!(f, "+{}", self.offset)?;
        }
        f.write_str("]")
    }
}

/// A state space on `ld`/`st`/`cvta`. `Generic` prints nothing.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Const,
    Local,
    Param,
    /// Shared memory of any block of the cluster (sm_90).
    SharedCluster,
}

impl Space {
    /// The suffix, with its leading dot (empty for generic).
    pub fn suffix(self) -> &'static str {
        match self {
            Space::Generic => "",
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Const => ".const",
            Space::Local => ".local",
            Space::Param => ".param",
            Space::SharedCluster => ".shared::cluster",
        }
    }
}

/// Operations with one source: `op.ty dst, src`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UnaryOp {
    Mov,
    Neg,
    Not,
    Abs,
    /// IEEE square root (`sqrt.approx` would be faster but inexact).
    SqrtRn,
    /// IEEE reciprocal, correctly rounded: exactly `div.rn` of 1 by the
    /// operand, in fewer instructions.
    RcpRn,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Mov => "mov",
            UnaryOp::Neg => "neg",
            UnaryOp::Not => "not",
            UnaryOp::Abs => "abs",
            UnaryOp::SqrtRn => "sqrt.rn",
            UnaryOp::RcpRn => "rcp.rn",
        }
    }
}

/// Operations with two sources: `op.ty dst, a, b`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    /// Integer multiply keeping the low half (`mul.lo`).
    MulLo,
    /// Integer multiply giving the full double-width product (`mul.wide`).
    MulWide,
    /// Integer multiply keeping the high half (`mul.hi`).
    MulHi,
    /// Float multiply.
    Mul,
    /// Integer division (truncating).
    Div,
    /// IEEE float division; plain `div.f32` does not exist without a mode.
    DivRn,
    /// Fast approximate division (`div.approx.f32`, CUDA's `__fdividef`).
    DivApprox,
    /// `div.full.f32`: full-range approximate division.
    DivFull,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Min,
    Max,
    /// Float add, multiply and divide with an explicit rounding
    /// (`add.rz.f32`, `mul.rn.f64`, `div.rp.f32`, ...).
    AddR(FloatRounding),
    MulR(FloatRounding),
    DivR(FloatRounding),
    /// `sub.rn`: a float subtraction ptxas may not fuse (`--fmad=false`).
    SubRn,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        use FloatRounding as R;
        match self {
            AddR(R::Nearest) => "add.rn",
            AddR(R::Zero) => "add.rz",
            AddR(R::Up) => "add.rp",
            AddR(R::Down) => "add.rm",
            MulR(R::Nearest) => "mul.rn",
            MulR(R::Zero) => "mul.rz",
            MulR(R::Up) => "mul.rp",
            MulR(R::Down) => "mul.rm",
            DivR(R::Nearest) => "div.rn",
            DivR(R::Zero) => "div.rz",
            DivR(R::Up) => "div.rp",
            DivR(R::Down) => "div.rm",
            SubRn => "sub.rn",
            Add => "add",
            Sub => "sub",
            MulLo => "mul.lo",
            MulWide => "mul.wide",
            MulHi => "mul.hi",
            Mul => "mul",
            Div => "div",
            DivRn => "div.rn",
            DivApprox => "div.approx",
            DivFull => "div.full",
            Rem => "rem",
            And => "and",
            Or => "or",
            Xor => "xor",
            Shl => "shl",
            Shr => "shr",
            Min => "min",
            Max => "max",
        }
    }
}

/// A `setp` comparison. Integer: `eq ne lt le gt ge` (signed) and `lo ls hi
/// hs` (unsigned). Float: the plain ones are ordered, the `u` ones unordered.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Neither operand is NaN.
    Num,
    /// Either operand is NaN.
    Nan,
}

impl Cmp {
    pub fn name(self) -> &'static str {
        use Cmp::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            Lo => "lo",
            Ls => "ls",
            Hi => "hi",
            Hs => "hs",
            Equ => "equ",
            Neu => "neu",
            Ltu => "ltu",
            Leu => "leu",
            Gtu => "gtu",
            Geu => "geu",
            Num => "num",
            Nan => "nan",
        }
    }
}

/// A `cvt` rounding mode. ptxas *requires* one whenever a conversion can
/// round (float↔int, narrowing float).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Rounding {
    /// Round to nearest even (int→float, f64→f32).
    Rn,
    /// Round toward zero to an integer (float→int, C's truncation).
    Rzi,
    /// Round to the nearest integer, ties to even (`rint` then convert).
    Rni,
    /// Round toward minus infinity to an integer (`floor` then convert).
    Rmi,
    /// Round toward plus infinity to an integer (`ceil` then convert).
    Rpi,
}

impl Rounding {
    pub fn name(self) -> &'static str {
        match self {
            Rounding::Rn => ".rn",
            Rounding::Rzi => ".rzi",
            Rounding::Rni => ".rni",
            Rounding::Rmi => ".rmi",
            Rounding::Rpi => ".rpi",
        }
    }
}

/// Extra qualifiers of a load.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum LoadKind {
    Plain,
    /// `ld.volatile`: never removed or merged.
    Volatile,
    /// `ld.global.nc`: through the read-only (texture) cache; only for memory
    /// that no thread writes during the kernel.
    NonCoherent,
    /// `ld.global.cs` and the other cache operators (`__ldcs`, ...).
    Cached(midend::ir::CacheOp),
}

impl LoadKind {
    /// The modifiers written before and after the space: `ld.volatile.shared`,
    /// `ld.global.nc`, `ld.global.cs`.
    fn modifiers(self) -> (&'static str, String) {
        match self {
            LoadKind::Plain => ("", String::new()),
            LoadKind::Volatile => (".volatile", String::new()),
            LoadKind::NonCoherent => ("", ".nc".into()),
            LoadKind::Cached(c) => ("", format!(".{c}")),
        }
    }
}

/// A branch label, e.g. `$L__BB0_3`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Label(pub String);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One PTX instruction or call-sequence line.
#[derive(Clone, PartialEq, Debug)]
pub enum MInst {
    Unary {
        op: UnaryOp,
        ty: PtxType,
        dst: Reg,
        src: Operand,
    },
    Binary {
        op: BinaryOp,
        ty: PtxType,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `fma.rnd.ty dst, a, b, c`: `a * b + c` rounded once (`.rn` for
    /// C's `fma`; the others for `__fmaf_rz`, ...).
    Fma {
        rnd: FloatRounding,
        ty: PtxType,
        dst: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `setp.cmp.ty dst, a, b`: compare into a predicate.
    Setp {
        cmp: Cmp,
        ty: PtxType,
        dst: Reg,
        a: Operand,
        b: Operand,
    },
    /// `selp.ty dst, a, b, pred`: `pred ? a : b`.
    Selp {
        ty: PtxType,
        dst: Reg,
        a: Operand,
        b: Operand,
        pred: Reg,
    },
    /// `cvt{.rnd}.dst_ty.src_ty dst, src`.
    Cvt {
        round: Option<Rounding>,
        dst_ty: PtxType,
        src_ty: PtxType,
        dst: Reg,
        src: Operand,
    },
    /// `cvta.space.u64 dst, src` (to generic) or `cvta.to.space.u64` (from generic).
    Cvta {
        to_space: bool,
        space: Space,
        dst: Reg,
        src: Operand,
    },
    Ld {
        space: Space,
        kind: LoadKind,
        ty: PtxType,
        dst: Reg,
        addr: Address,
    },
    St {
        space: Space,
        volatile: bool,
        /// A cache operator (`st.global.cs`, ...).
        cache: Option<midend::ir::CacheOp>,
        ty: PtxType,
        addr: Address,
        src: Operand,
    },
    /// `ld.space.v2/.v4.ty {d0, d1, ...}, [addr]`: a vector load (the
    /// address is aligned to the whole vector).
    LdVec {
        space: Space,
        kind: LoadKind,
        ty: PtxType,
        dsts: Vec<Reg>,
        addr: Address,
    },
    /// `st.space.v2/.v4.ty [addr], {s0, s1, ...}`: a vector store.
    StVec {
        space: Space,
        /// A cache operator (`st.global.wt.v4`, ...).
        cache: Option<midend::ir::CacheOp>,
        ty: PtxType,
        addr: Address,
        srcs: Vec<Reg>,
    },
    /// `bar.sync 0`: all threads of the CTA wait here.
    BarSync,
    /// `atom.add.release.gpu.u32 dst, [addr], b`: a block's arrival at the
    /// grid barrier (`isel/grid.rs`), written as nvcc writes it.
    GridArrive {
        dst: Reg,
        addr: Address,
        b: Operand,
    },
    /// `ld.acquire.gpu.u32 dst, [addr]`: one poll of the grid barrier's
    /// word, which orders the loads after it behind the other blocks'
    /// releases.
    GridPoll {
        dst: Reg,
        addr: Address,
    },
    Trap,
    Ret,
    /// `@pred bra target` (or `@!pred`), or plain `bra target`.
    Bra {
        guard: Option<(Reg, bool)>,
        target: Label,
    },
    Label(Label),
    /// `-lineinfo`: the instructions that follow were selected from an IR
    /// instruction at this source span (the writer prints it as `.loc`,
    /// see `lineinfo.rs`; `--emit mir` as a comment).
    Loc(midend::ir::SourceSpan),
    /// `.pragma "nounroll";` at the head of a loop's header block: ptxas
    /// leaves the loop as it is (`#pragma unroll 1`, and the remainder loop
    /// of a loop `unroll-runtime` unrolled).
    NoUnroll,
    /// `{`: opens a scope so a call's `.param` names stay local to it.
    ScopeOpen,
    ScopeClose,
    /// `.param .ty name;` inside a call scope.
    ParamDecl {
        ty: PtxType,
        name: String,
    },
    /// `.param .align A .b8 name[N];` inside a call scope: an aggregate
    /// argument or result.
    ParamArray {
        name: String,
        size: u32,
        align: u32,
    },
    /// Inline PTX between nvcc's `// begin inline asm` and `// end inline
    /// asm` lines: `template` with `%N` written as `operands[N]` and `%%`
    /// as `%`.
    InlineAsm {
        template: String,
        operands: Vec<AsmOperand>,
    },
    /// `call.uni (ret), callee, (args...)`.
    Call {
        callee: String,
        ret: Option<String>,
        args: Vec<String>,
    },
    /// `label: .callprototype (.param .ty _) _ (.param .ty _, ...);` inside
    /// a call scope: the ABI of an indirect call's callee.
    CallPrototype {
        label: String,
        ret: Option<PtxType>,
        params: Vec<PtxType>,
    },
    /// `call (ret), %rd, (args...), prototype;`: a call through the
    /// function address in `callee`.
    CallIndirect {
        callee: Reg,
        ret: Option<String>,
        args: Vec<String>,
        proto: String,
    },
    /// `atom{.scope}{.space}.op.ty dst, [addr], b{, c}`, or `red...` without
    /// a destination when the old value is not used.
    Atom {
        /// `.cta`/`.sys`, or empty for the default (device) scope.
        scope: &'static str,
        space: Space,
        /// `add`, `exch`, `cas`, `min`, ...
        op: &'static str,
        ty: PtxType,
        dst: Option<Reg>,
        addr: Address,
        b: Operand,
        /// The replacement value of `cas`.
        c: Option<Operand>,
    },
    /// `atom{.scope}{.space}.op.vN.ty {d0, ..}, [addr], {s0, ..}`: a vector
    /// atomic, each element on its own (sm_90, PTX 8.1); `red...` without
    /// destinations when no old element is used.
    AtomVec {
        scope: &'static str,
        space: Space,
        op: &'static str,
        ty: PtxType,
        dsts: Option<Vec<Reg>>,
        addr: Address,
        srcs: Vec<Reg>,
    },
    /// `membar.cta`, `membar.gl` or `membar.sys` (CUDA's `__threadfence*`).
    Membar {
        level: &'static str,
    },
    /// `shfl.sync.mode.b32 dst, a, b, c, mask`.
    Shfl {
        mode: &'static str,
        dst: Reg,
        a: Operand,
        b: Operand,
        c: Operand,
        mask: Operand,
    },
    /// `vote.sync.mode.pred dst, pred, mask` (`.b32` for ballot).
    Vote {
        mode: &'static str,
        ballot: bool,
        dst: Reg,
        pred: Operand,
        mask: Operand,
    },
    /// `match.mode.sync.ty dst, src, mask` (`.b32` or `.b64`).
    Match {
        mode: &'static str,
        ty: PtxType,
        dst: Reg,
        src: Operand,
        mask: Operand,
    },
    /// `redux.sync.op.ty dst, src, mask` (`.s32`/`.u32` for `add`, `min`,
    /// `max`; `.b32` for the bitwise ones).
    Redux {
        op: &'static str,
        ty: PtxType,
        dst: Reg,
        src: Operand,
        mask: Operand,
    },
    /// `bar.red.popc.u32 dst, 0, pred` or `bar.red.and|or.pred dst, 0, pred`.
    BarRed {
        op: &'static str,
        dst: Reg,
        pred: Operand,
    },
    /// `bar.warp.sync mask`.
    BarWarpSync {
        mask: Operand,
    },
    /// `nanosleep.u32 ns`.
    Nanosleep {
        ns: Operand,
    },
    /// `isspacep.space dst, src`.
    Isspacep {
        space: Space,
        dst: Reg,
        src: Reg,
    },
    /// `activemask.b32 dst`.
    Activemask {
        dst: Reg,
    },
    /// `op.ty dst, src` where `op` is spelled out with its modifiers
    /// (`ex2.approx.f32`, `cvt.rmi.f32.f32`, `popc.b32`, ...): the unary
    /// forms that need no other treatment.
    UnaryNamed {
        op: &'static str,
        dst: Reg,
        src: Operand,
    },
    /// An async-copy, mbarrier or tensor-core instruction: the full
    /// opcode with its modifiers, then operands in PTX order. These have
    /// many spellings and vector operands, so one generic form serves all.
    Accel {
        op: String,
        args: Vec<AccelArg>,
    },
}

/// An operand of [`MInst::Accel`].
#[derive(Clone, PartialEq, Debug)]
pub enum AccelArg {
    /// A register written.
    Def(Reg),
    /// A vector of registers written: `{%f1, %f2, ...}`.
    DefVec(Vec<Reg>),
    /// A source operand.
    Use(Operand),
    /// A vector of registers read.
    UseVec(Vec<Reg>),
    /// A memory address `[base+offset]`.
    Addr(Address),
    /// A tensor address of TMA: the tensor map and the box coordinates,
    /// `[%rd1, {%r1, %r2}]`.
    TensorAddr { map: Reg, coords: Vec<Reg> },
}

impl fmt::Display for AccelArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vec = |f: &mut fmt::Formatter<'_>, regs: &[Reg]| {
            let names: Vec<String> = regs.iter().map(Reg::to_string).collect();
            write!(f, "{{{}}}", names.join(", "))
        };
        match self {
            AccelArg::Def(r) => write!(f, "{r}"),
            AccelArg::Use(o) => write!(f, "{o}"),
            AccelArg::DefVec(rs) | AccelArg::UseVec(rs) => vec(f, rs),
            AccelArg::Addr(a) => write!(f, "{a}"),
            AccelArg::TensorAddr { map, coords } => {
                write!(f, "[{map}, ")?;
                vec(f, coords)?;
                f.write_str("]")
            }
        }
    }
}

impl fmt::Display for MInst {
    // Long: one arm per machine instruction, its PTX spelling; the
    // printer is the table of what each `MInst` writes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MInst::Unary { op, ty, dst, src } => write!(f, "{}{ty} {dst}, {src};", op.name()),
            MInst::Binary { op, ty, dst, a, b } => {
                write!(f, "{}{ty} {dst}, {a}, {b};", op.name())
            }
            MInst::Fma {
                rnd,
                ty,
                dst,
                a,
                b,
                c,
            } => write!(f, "fma.{rnd}{ty} {dst}, {a}, {b}, {c};"),
            MInst::Setp { cmp, ty, dst, a, b } => {
                write!(f, "setp.{}{ty} {dst}, {a}, {b};", cmp.name())
            }
            MInst::Selp {
                ty,
                dst,
                a,
                b,
                pred,
            } => write!(f, "selp{ty} {dst}, {a}, {b}, {pred};"),
            MInst::Cvt {
                round,
                dst_ty,
                src_ty,
                dst,
                src,
            } => {
                let r = round.map_or("", |r| r.name());
                let plain = |t: &PtxType| match t {
                    PtxType::F32Ftz => PtxType::F32,
                    t => *t,
                };
                let ftz = if *dst_ty == PtxType::F32Ftz || *src_ty == PtxType::F32Ftz {
                    ".ftz"
                } else {
                    ""
                };
                let (d, s) = (plain(dst_ty), plain(src_ty));
                write!(f, "cvt{r}{ftz}{d}{s} {dst}, {src};")
            }
            MInst::Cvta {
                to_space,
                space,
                dst,
                src,
            } => {
                let to = if *to_space { ".to" } else { "" };
                write!(f, "cvta{to}{}.u64 {dst}, {src};", space.suffix())
            }
            MInst::Ld {
                space,
                kind,
                ty,
                dst,
                addr,
            } => {
                let (pre, post) = kind.modifiers();
                write!(f, "ld{pre}{}{post}{ty} {dst}, {addr};", space.suffix())
            }
            MInst::St {
                space,
                volatile,
                cache,
                ty,
                addr,
                src,
            } => {
                let v = if *volatile { ".volatile" } else { "" };
                let c = cache.map_or(String::new(), |c| format!(".{c}"));
                write!(f, "st{v}{}{c}{ty} {addr}, {src};", space.suffix())
            }
            MInst::LdVec {
                space,
                kind,
                ty,
                dsts,
                addr,
            } => {
                let (pre, post) = kind.modifiers();
                let regs: Vec<String> = dsts.iter().map(|r| r.to_string()).collect();
                write!(
                    f,
                    "ld{pre}{}{post}.v{}{ty} {{{}}}, {addr};",
                    space.suffix(),
                    dsts.len(),
                    regs.join(", ")
                )
            }
            MInst::StVec {
                space,
                cache,
                ty,
                addr,
                srcs,
            } => {
                let regs: Vec<String> = srcs.iter().map(|r| r.to_string()).collect();
                let c = cache.map_or(String::new(), |c| format!(".{c}"));
                write!(
                    f,
                    "st{}{c}.v{}{ty} {addr}, {{{}}};",
                    space.suffix(),
                    srcs.len(),
                    regs.join(", ")
                )
            }
            MInst::BarSync => f.write_str("bar.sync 0;"),
            MInst::GridArrive { dst, addr, b } => {
                write!(f, "atom.add.release.gpu.u32 {dst}, {addr}, {b};")
            }
            MInst::GridPoll { dst, addr } => write!(f, "ld.acquire.gpu.u32 {dst}, {addr};"),
            MInst::Trap => f.write_str("trap;"),
            MInst::Ret => f.write_str("ret;"),
            MInst::Bra { guard, target } => {
                if let Some((p, negated)) = guard {
                    let not = if *negated { "!" } else { "" };
                    write!(f, "@{not}{p} ")?;
                }
                write!(f, "bra {target};")
            }
            MInst::Label(l) => write!(f, "{l}:"),
            MInst::Loc(span) => write!(f, "// source {}..{}", span.start, span.end),
            MInst::NoUnroll => f.write_str(".pragma \"nounroll\";"),
            MInst::ScopeOpen => f.write_str("{"),
            MInst::ScopeClose => f.write_str("}"),
            MInst::ParamDecl { ty, name } => write!(f, ".param {ty} {name};"),
            MInst::ParamArray { name, size, align } => {
                write!(f, ".param .align {align} .b8 {name}[{size}];")
            }
            MInst::Atom {
                scope,
                space,
                op,
                ty,
                dst,
                addr,
                b,
                c,
            } => {
                let sp = space.suffix();
                match dst {
                    Some(d) => write!(f, "atom{scope}{sp}.{op}{ty} {d}, {addr}, {b}")?,
                    None => write!(f, "red{scope}{sp}.{op}{ty} {addr}, {b}")?,
                }
                if let Some(c) = c {
                    write!(f, ", {c}")?;
                }
                f.write_str(";")
            }
            MInst::AtomVec {
                scope,
                space,
                op,
                ty,
                dsts,
                addr,
                srcs,
            } => {
                let sp = space.suffix();
                let list = |rs: &[Reg]| {
                    let names: Vec<String> = rs.iter().map(|r| r.to_string()).collect();
                    names.join(", ")
                };
                let n = srcs.len();
                match dsts {
                    Some(ds) => write!(
                        f,
                        "atom{scope}{sp}.{op}.v{n}{ty} {{{}}}, {addr}, {{{}}};",
                        list(ds),
                        list(srcs)
                    ),
                    None => write!(
                        f,
                        "red{scope}{sp}.{op}.v{n}{ty} {addr}, {{{}}};",
                        list(srcs)
                    ),
                }
            }
            MInst::Membar { level } => write!(f, "membar.{level};"),
            MInst::Shfl {
                mode,
                dst,
                a,
                b,
                c,
                mask,
            } => write!(f, "shfl.sync.{mode}.b32 {dst}, {a}, {b}, {c}, {mask};"),
            MInst::Vote {
                mode,
                ballot,
                dst,
                pred,
                mask,
            } => {
                let ty = if *ballot { ".b32" } else { ".pred" };
                write!(f, "vote.sync.{mode}{ty} {dst}, {pred}, {mask};")
            }
            MInst::Match {
                mode,
                ty,
                dst,
                src,
                mask,
            } => write!(f, "match.{mode}.sync{ty} {dst}, {src}, {mask};"),
            MInst::Redux {
                op,
                ty,
                dst,
                src,
                mask,
            } => write!(f, "redux.sync.{op}{ty} {dst}, {src}, {mask};"),
            MInst::BarRed { op, dst, pred } => {
                let ty = if *op == "popc" { ".u32" } else { ".pred" };
                write!(f, "bar.red.{op}{ty} {dst}, 0, {pred};")
            }
            MInst::BarWarpSync { mask } => write!(f, "bar.warp.sync {mask};"),
            MInst::Nanosleep { ns } => write!(f, "nanosleep.u32 {ns};"),
            MInst::Isspacep { space, dst, src } => {
                write!(f, "isspacep{} {dst}, {src};", space.suffix())
            }
            MInst::Activemask { dst } => write!(f, "activemask.b32 {dst};"),
            MInst::UnaryNamed { op, dst, src } => write!(f, "{op} {dst}, {src};"),
            MInst::Accel { op, args } => {
                f.write_str(op)?;
                for (i, a) in args.iter().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{a}")?;
                }
                f.write_str(";")
            }
            MInst::InlineAsm { template, operands } => {
                let n = operands.len();
                let text = midend::ir::asm_substitute(template, n, |k| operands[k].to_string())
                    .unwrap_or_else(|_| template.clone());
                write!(f, "// begin inline asm\n\t{text}\n\t// end inline asm")
            }
            MInst::Call { callee, ret, args } => {
                f.write_str("call.uni ")?;
                if let Some(r) = ret {
                    write!(f, "({r}), ")?;
                }
                write!(f, "{callee}, ({});", args.join(", "))
            }
            MInst::CallPrototype { label, ret, params } => {
                write!(f, "{label} : .callprototype ")?;
                if let Some(ty) = ret {
                    write!(f, "(.param {ty} _) ")?;
                }
                let params: Vec<String> = params.iter().map(|t| format!(".param {t} _")).collect();
                write!(f, "_ ({});", params.join(", "))
            }
            MInst::CallIndirect {
                callee,
                ret,
                args,
                proto,
            } => {
                f.write_str("call ")?;
                if let Some(r) = ret {
                    write!(f, "({r}), ")?;
                }
                write!(f, "{callee}, ({}), {proto};", args.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(class: RegClass, num: u32) -> Reg {
        Reg { class, num }
    }

    #[test]
    fn prints_ptx_spellings() {
        let add = MInst::Binary {
            op: BinaryOp::Add,
            ty: PtxType::F32,
            dst: r(RegClass::F32, 3),
            a: r(RegClass::F32, 1).into(),
            b: Operand::F32(1.0f32.to_bits()),
        };
        assert_eq!(add.to_string(), "add.f32 %f3, %f1, 0f3F800000;");
        let ld = MInst::Ld {
            space: Space::Global,
            kind: LoadKind::NonCoherent,
            ty: PtxType::F32,
            dst: r(RegClass::F32, 1),
            addr: Address {
                base: AddrBase::Reg(r(RegClass::B64, 4)),
                offset: -4,
            },
        };
        assert_eq!(ld.to_string(), "ld.global.nc.f32 %f1, [%rd4+-4];");
        let bra = MInst::Bra {
            guard: Some((r(RegClass::Pred, 1), true)),
            target: Label("$L__BB0_2".into()),
        };
        assert_eq!(bra.to_string(), "@!%p1 bra $L__BB0_2;");
        let cvta = MInst::Cvta {
            to_space: true,
            space: Space::Global,
            dst: r(RegClass::B64, 2),
            src: r(RegClass::B64, 1).into(),
        };
        assert_eq!(cvta.to_string(), "cvta.to.global.u64 %rd2, %rd1;");
        assert_eq!(
            Operand::F64(1.0f64.to_bits()).to_string(),
            "0d3FF0000000000000"
        );
    }
}
