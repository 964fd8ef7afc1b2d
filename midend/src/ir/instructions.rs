//! Instructions: opcodes, the instruction formats that hold their operands,
//! and the small enums (conditions, special registers, memory flags) they use.
//!
//! An instruction is stored as an [`InstData`]: one variant per *format*
//! (the shape of its operands), each carrying its [`Opcode`]. Result values
//! and their types live in the data-flow graph, not here.

use super::accel::AccelOp;
use super::entities::{AliasScope, Block, FuncId, GlobalVar, StackSlot, Value};
use super::inline_asm::InlineAsm;
use super::types::{AddrSpace, Type};
use core::fmt;
use smallvec::{smallvec, SmallVec};

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
        /// Square root, correctly rounded.
        Sqrt = "sqrt",
        /// Approximate `1/sqrt(x)` (PTX `rsqrt.approx`).
        Rsqrt = "rsqrt",
        /// Approximate `2^x` (PTX `ex2.approx`, f32 only).
        Ex2 = "ex2",
        /// Approximate `log2(x)` (PTX `lg2.approx`, f32 only).
        Lg2 = "lg2",
        /// `ex2`, `lg2` and `rsqrt` with a subnormal operand or result
        /// flushed to a zero of its sign (PTX `.ftz`, f32 only), which
        /// spares ptxas's subnormal handling. The math library uses them
        /// where neither can be subnormal, or where flushing changes no
        /// result (`ex2` of a subnormal is 1 either way).
        Ex2Ftz = "ex2_ftz",
        Lg2Ftz = "lg2_ftz",
        RsqrtFtz = "rsqrt_ftz",
        /// Approximate sine of radians (PTX `sin.approx`, f32 only).
        Sin = "sin",
        /// Approximate cosine of radians (PTX `cos.approx`, f32 only).
        Cos = "cos",
        /// Approximate hyperbolic tangent (PTX `tanh.approx`, f32 only).
        Tanh = "tanh",
        /// Round toward negative infinity, to an integral float.
        Floor = "floor",
        /// Round toward positive infinity, to an integral float.
        Ceil = "ceil",
        /// Round toward zero, to an integral float.
        Ftrunc = "ftrunc",
        /// Round to the nearest integral float, ties to even.
        Nearest = "nearest",
        /// Number of set bits (the result has the operand's type).
        Popcnt = "popcnt",
        /// Number of leading zero bits (the result has the operand's type).
        Clz = "clz",
        /// Bits in reverse order.
        Bitrev = "bitrev",
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
        /// Approximate division (`__fdividef`, `/` under `--use_fast_math`;
        /// PTX `div.approx.f32`): within 2 ulp for a divisor of magnitude
        /// in [2^-126, 2^126], and 0 (NaN for an infinite dividend) for
        /// one in (2^126, 2^128).
        FdivApprox = "fdiv_approx",
        /// Full-range approximate division (`/` on `float` under
        /// `-prec-div=false`; PTX `div.full.f32`): within 2 ulp everywhere.
        FdivFull = "fdiv_full",
        Fmin = "fmin",
        Fmax = "fmax",
        /// Fused multiply-add: `a * b + c` with one rounding.
        Fma = "fma",
        // Float arithmetic with an explicit rounding (CUDA's `__fadd_rz`,
        // `__dmul_ru`, ...; PTX `add.rz.f32`, ...), `f32` and `f64` only.
        // `_rn` is round to nearest even, like `fadd`, but never contracted
        // into an `fma` (`__fadd_rn`, `__fmul_rn`); `_rz` rounds toward
        // zero, `_ru` toward +inf, `_rd` toward -inf.
        FaddRn = "fadd_rn",
        FaddRz = "fadd_rz",
        FaddRu = "fadd_ru",
        FaddRd = "fadd_rd",
        FmulRn = "fmul_rn",
        FmulRz = "fmul_rz",
        FmulRu = "fmul_ru",
        FmulRd = "fmul_rd",
        FdivRz = "fdiv_rz",
        FdivRu = "fdiv_ru",
        FdivRd = "fdiv_rd",
        SqrtRz = "sqrt_rz",
        SqrtRu = "sqrt_ru",
        SqrtRd = "sqrt_rd",
        FmaRz = "fma_rz",
        FmaRu = "fma_ru",
        FmaRd = "fma_rd",
        Icmp = "icmp",
        Fcmp = "fcmp",
        /// `select c, a, b`: `a` if `c` else `b`.
        Select = "select",
        /// `dp4a_s a, b, c` (`i32`): `c` plus the dot product of the four
        /// bytes of `a` and of `b`, each sign-extended (`_u`:
        /// zero-extended), in wrapping arithmetic (CUDA's `__dp4a`, PTX
        /// `dp4a.s32.s32` / `dp4a.u32.u32`).
        Dp4aS = "dp4a_s",
        Dp4aU = "dp4a_u",
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
        /// Call through a function address: `v3 = call_indirect v1(v2) :
        /// (f32) -> f32`. The first operand is the callee's address (an
        /// `i64` that `func_addr` made); the instruction carries the
        /// callee's signature, since no function is named.
        CallIndirect = "call_indirect",
        /// The address of a function (`i64`): `v1 = func_addr @f`. The
        /// function keeps a body of its own (PTX `mov.u64 %rd1, f;`).
        FuncAddr = "func_addr",
        /// Read a special register (`%tid.x`, ...).
        SpecialReg = "special",
        /// CTA-wide barrier (`__syncthreads()`, `bar.sync 0`).
        Barrier = "barrier",
        /// CTA-wide barrier that also reduces a predicate over the block
        /// (`__syncthreads_count/_and/_or`, `bar.red`).
        BarrierRed = "barrier_red",
        /// Grid-wide barrier (`cooperative_groups::grid_group::sync()`):
        /// every thread of every block of the launch waits until all have
        /// reached it, and memory written before it is visible after it
        /// throughout the grid. Only a cooperative launch (every block
        /// resident at once) can reach it.
        GridBarrier = "grid_barrier",
        /// Wait until the warp lanes in the mask reach it (`__syncwarp`).
        WarpSync = "warp_sync",
        /// Memory fence at a scope (`__threadfence*`).
        Fence = "fence",
        /// Atomic read-modify-write; the result is the old value.
        AtomicRmw = "atomic_rmw",
        /// Atomic compare-and-swap; the result is the old value.
        AtomicCas = "atomic_cas",
        /// Atomic read-modify-write of a short vector: `v1, v2 = atomic_vec
        /// add gpu p, a, b`; the results are the old elements. Two or four
        /// `f32` in global memory, one element at a time (`atomicAdd` on
        /// `float2`/`float4`, sm_90), or a pair of `f16` or of `bf16` as
        /// one atomic of its 32-bit word, in any atomic space (`atomicAdd`
        /// on `__half2`/`__nv_bfloat162`; see [`is_packed_pair_element`]).
        AtomicVec = "atomic_vec",
        /// Exchange a value between the lanes of a warp (`__shfl*_sync`).
        Shuffle = "shfl",
        /// A warp vote (`__all_sync`, `__any_sync`, `__ballot_sync`, ...).
        Vote = "vote",
        /// A reduction of an `i32` over the lanes of a warp
        /// (`__reduce_add_sync`, ...; PTX `redux.sync`, sm_80).
        Redux = "redux",
        /// The lanes of a warp whose `i32` or `i64` value equals this
        /// lane's (`__match_any_sync`, `__match_all_sync`; PTX
        /// `match.sync`, sm_70).
        Match = "match",
        /// Whether a pointer points into a given space (`__isShared`, ...).
        IsSpace = "is_space",
        /// Suspend the thread for about the given number of nanoseconds.
        Nanosleep = "nanosleep",
        // Asynchronous copies, mbarriers and tensor cores: the `accel`
        // format, described in `accel.rs`.
        CpAsync = "cp_async",
        CpAsyncCommit = "cp_async_commit",
        CpAsyncWait = "cp_async_wait",
        CpAsyncWaitAll = "cp_async_wait_all",
        MbarrierInit = "mbarrier_init",
        MbarrierArrive = "mbarrier_arrive",
        MbarrierArriveExpectTx = "mbarrier_arrive_expect_tx",
        MbarrierTestWait = "mbarrier_test_wait",
        MbarrierTryWaitParity = "mbarrier_try_wait_parity",
        FenceProxyAsync = "fence_proxy_async",
        WmmaLoad = "wmma_load",
        WmmaMma = "wmma_mma",
        WmmaStore = "wmma_store",
        Mma = "mma",
        Ldmatrix = "ldmatrix",
        Stmatrix = "stmatrix",
        // Hopper: TMA (bulk tensor copies) and thread-block clusters.
        TmaLoad = "tma_load",
        TmaStore = "tma_store",
        CpAsyncBulkCommit = "cp_async_bulk_commit",
        CpAsyncBulkWait = "cp_async_bulk_wait",
        Mapa = "mapa",
        ClusterArrive = "cluster_arrive",
        ClusterWait = "cluster_wait",
        // wgmma (sm_90a) and tcgen05 (sm_100a): also `accel`.
        WgmmaFence = "wgmma_fence",
        WgmmaMma = "wgmma_mma",
        WgmmaCommit = "wgmma_commit",
        WgmmaWait = "wgmma_wait",
        Setmaxnreg = "setmaxnreg",
        Tcgen05Alloc = "tcgen05_alloc",
        Tcgen05Relinquish = "tcgen05_relinquish",
        Tcgen05Dealloc = "tcgen05_dealloc",
        Tcgen05Mma = "tcgen05_mma",
        Tcgen05Commit = "tcgen05_commit",
        Tcgen05Ld = "tcgen05_ld",
        Tcgen05St = "tcgen05_st",
        Tcgen05Wait = "tcgen05_wait",
        Tcgen05Cp = "tcgen05_cp",
        Tcgen05Fence = "tcgen05_fence",
        // The CUDA runtime's device library (also `accel`): device
        // `printf` and a failed `assert`.
        Vprintf = "vprintf",
        AssertFail = "assertfail",
        // Texture fetches and surface accesses (also `accel`; `texture.rs`).
        Tex = "tex",
        Suld = "suld",
        Sust = "sust",
        /// Inline PTX (`inline_asm.rs`).
        InlineAsm = "inline_asm",
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
    CallIndirect,
    FuncAddr,
    SpecialReg,
    Nullary,
    AtomicRmw,
    AtomicCas,
    /// `atomic_vec`: an address and two or four elements.
    AtomicVec,
    Fence,
    Shuffle,
    Vote,
    Redux,
    Match,
    BarrierRed,
    /// One operand, no result, an effect (`warp_sync`, `nanosleep`).
    Effect,
    IsSpace,
    /// Async copies, mbarriers and tensor cores ([`AccelOp`]).
    Accel,
    /// Inline PTX ([`InlineAsm`]).
    InlineAsm,
    Jump,
    Brif,
    Return,
}

impl Opcode {
    /// The opcode an `_ftz` form flushes around (`ex2_ftz` -> `ex2`).
    pub fn flushed(self) -> Option<Opcode> {
        match self {
            Opcode::Ex2Ftz => Some(Opcode::Ex2),
            Opcode::Lg2Ftz => Some(Opcode::Lg2),
            Opcode::RsqrtFtz => Some(Opcode::Rsqrt),
            _ => None,
        }
    }

    pub fn format(self) -> Format {
        use Opcode::*;
        match self {
            Iconst => Format::Iconst,
            Fconst => Format::Fconst,
            Ineg | Bnot | Fneg | Fabs | Sqrt | Rsqrt | Ex2 | Lg2 | Ex2Ftz | Lg2Ftz | RsqrtFtz
            | Sin | Cos | Tanh | Floor | Ceil | Ftrunc | Nearest | Popcnt | Clz | Bitrev
            | SqrtRz | SqrtRu | SqrtRd => Format::Unary,
            Iadd | Isub | Imul | Sdiv | Udiv | Srem | Urem | Band | Bor | Bxor | Ishl | Ushr
            | Sshr | Smin | Smax | Umin | Umax | Fadd | Fsub | Fmul | Fdiv | FdivApprox
            | FdivFull | Fmin | Fmax | PtrOffset | FaddRn | FaddRz | FaddRu | FaddRd | FmulRn
            | FmulRz | FmulRu | FmulRd | FdivRz | FdivRu | FdivRd => Format::Binary,
            Fma | Select | FmaRz | FmaRu | FmaRd | Dp4aS | Dp4aU => Format::Ternary,
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
            CallIndirect => Format::CallIndirect,
            FuncAddr => Format::FuncAddr,
            SpecialReg => Format::SpecialReg,
            Barrier | GridBarrier | Trap => Format::Nullary,
            BarrierRed => Format::BarrierRed,
            WarpSync | Nanosleep => Format::Effect,
            Fence => Format::Fence,
            AtomicRmw => Format::AtomicRmw,
            AtomicCas => Format::AtomicCas,
            AtomicVec => Format::AtomicVec,
            Shuffle => Format::Shuffle,
            Vote => Format::Vote,
            Redux => Format::Redux,
            Match => Format::Match,
            IsSpace => Format::IsSpace,
            CpAsync
            | CpAsyncCommit
            | CpAsyncWait
            | CpAsyncWaitAll
            | MbarrierInit
            | MbarrierArrive
            | MbarrierArriveExpectTx
            | MbarrierTestWait
            | MbarrierTryWaitParity
            | FenceProxyAsync
            | WmmaLoad
            | WmmaMma
            | WmmaStore
            | Mma
            | Ldmatrix
            | Stmatrix
            | TmaLoad
            | TmaStore
            | CpAsyncBulkCommit
            | CpAsyncBulkWait
            | Mapa
            | ClusterArrive
            | ClusterWait => Format::Accel,
            WgmmaFence | WgmmaMma | WgmmaCommit | WgmmaWait | Setmaxnreg | Tcgen05Alloc
            | Tcgen05Relinquish | Tcgen05Dealloc | Tcgen05Mma | Tcgen05Commit | Tcgen05Ld
            | Tcgen05St | Tcgen05Wait | Tcgen05Cp | Tcgen05Fence | Vprintf | AssertFail | Tex
            | Suld | Sust => Format::Accel,
            InlineAsm => Format::InlineAsm,
            Jump => Format::Jump,
            Brif => Format::Brif,
            Return => Format::Return,
        }
    }

    /// The rounding of a float operation with an explicit one (`fadd_rz`,
    /// ...), and the operation it rounds: `Fadd`, `Fmul`, `Fdiv`, `Sqrt`
    /// or `Fma`.
    pub fn explicit_rounding(self) -> Option<(Opcode, Rounding)> {
        use Opcode::*;
        use Rounding::{Down, Up, Zero};
        const NEAREST: Rounding = Rounding::Nearest;
        Some(match self {
            FaddRn => (Fadd, NEAREST),
            FaddRz => (Fadd, Zero),
            FaddRu => (Fadd, Up),
            FaddRd => (Fadd, Down),
            FmulRn => (Fmul, NEAREST),
            FmulRz => (Fmul, Zero),
            FmulRu => (Fmul, Up),
            FmulRd => (Fmul, Down),
            FdivRz => (Fdiv, Zero),
            FdivRu => (Fdiv, Up),
            FdivRd => (Fdiv, Down),
            SqrtRz => (Sqrt, Zero),
            SqrtRu => (Sqrt, Up),
            SqrtRd => (Sqrt, Down),
            FmaRz => (Fma, Zero),
            FmaRu => (Fma, Up),
            FmaRd => (Fma, Down),
            _ => return None,
        })
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
        use Opcode::*;
        matches!(
            self,
            Store
                | Call
                | CallIndirect
                | Barrier
                | GridBarrier
                | BarrierRed
                | WarpSync
                | Fence
                | AtomicRmw
                | AtomicCas
                | AtomicVec
                | Nanosleep
                | Trap
                | InlineAsm
        ) || self.is_terminator()
            || (self.format() == Format::Accel && !matches!(self, WmmaMma | Mma | Mapa))
    }

    /// Whether the result depends on which other threads execute the same
    /// instruction at the same time (warp and block collectives). Such an
    /// instruction must not be merged with another copy of itself or moved
    /// across control flow, even when its operands are equal.
    pub fn is_convergent(self) -> bool {
        matches!(
            self,
            Opcode::Shuffle
                | Opcode::Vote
                | Opcode::Redux
                | Opcode::Match
                | Opcode::BarrierRed
                | Opcode::WarpSync
                | Opcode::Barrier
                | Opcode::GridBarrier
                | Opcode::WmmaLoad
                | Opcode::WmmaMma
                | Opcode::WmmaStore
                | Opcode::Mma
                | Opcode::Ldmatrix
                | Opcode::Stmatrix
                | Opcode::ClusterArrive
                | Opcode::ClusterWait
                | Opcode::InlineAsm
        )
    }
}

named_enum! {
    /// An IEEE rounding direction, with its PTX modifier as the name.
    Rounding {
        /// To nearest, ties to even (`.rn`).
        Nearest = "rn",
        /// Toward zero (`.rz`).
        Zero = "rz",
        /// Toward +inf (`.rp`).
        Up = "rp",
        /// Toward -inf (`.rm`).
        Down = "rm",
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

impl IntCC {
    /// The condition that holds exactly when this one does not.
    pub fn inverse(self) -> IntCC {
        match self {
            IntCC::Eq => IntCC::Ne,
            IntCC::Ne => IntCC::Eq,
            IntCC::Slt => IntCC::Sge,
            IntCC::Sge => IntCC::Slt,
            IntCC::Sgt => IntCC::Sle,
            IntCC::Sle => IntCC::Sgt,
            IntCC::Ult => IntCC::Uge,
            IntCC::Uge => IntCC::Ult,
            IntCC::Ugt => IntCC::Ule,
            IntCC::Ule => IntCC::Ugt,
        }
    }

    /// The condition with its operands swapped: `a < b` is `b > a`.
    pub fn swapped(self) -> IntCC {
        match self {
            IntCC::Slt => IntCC::Sgt,
            IntCC::Sle => IntCC::Sge,
            IntCC::Sgt => IntCC::Slt,
            IntCC::Sge => IntCC::Sle,
            IntCC::Ult => IntCC::Ugt,
            IntCC::Ule => IntCC::Uge,
            IntCC::Ugt => IntCC::Ult,
            IntCC::Uge => IntCC::Ule,
            other => other,
        }
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

impl FloatCC {
    /// Whether `x COND y` holds: the meaning of the condition, which the
    /// interpreter runs and constant folding decides with. Every float type
    /// widens to `f64` exactly, so comparing the widened values is comparing
    /// the originals; NaN is unordered.
    pub fn holds(self, x: f64, y: f64) -> bool {
        let uno = x.is_nan() || y.is_nan();
        match self {
            FloatCC::Oeq => x == y,
            FloatCC::One => !uno && x != y,
            FloatCC::Olt => x < y,
            FloatCC::Ole => x <= y,
            FloatCC::Ogt => x > y,
            FloatCC::Oge => x >= y,
            FloatCC::Ueq => uno || x == y,
            FloatCC::Une => x != y,
            FloatCC::Ult => uno || x < y,
            FloatCC::Ule => uno || x <= y,
            FloatCC::Ugt => uno || x > y,
            FloatCC::Uge => uno || x >= y,
            FloatCC::Ord => !uno,
            FloatCC::Uno => uno,
        }
    }
}

named_enum! {
    /// Special registers that `special` can read. All are `i32` except the clocks, the timer and the grid workspace (`i64`, [`SpecialReg::ty`]).
    SpecialReg {
        TidX = "tid.x", TidY = "tid.y", TidZ = "tid.z",
        NtidX = "ntid.x", NtidY = "ntid.y", NtidZ = "ntid.z",
        CtaidX = "ctaid.x", CtaidY = "ctaid.y", CtaidZ = "ctaid.z",
        NctaidX = "nctaid.x", NctaidY = "nctaid.y", NctaidZ = "nctaid.z",
        LaneId = "laneid", WarpId = "warpid",
        /// Lanes of the warp below this one (`%lanemask_lt`).
        LanemaskLt = "lanemask_lt",
        /// The 32-bit cycle counter.
        Clock = "clock",
        /// The 64-bit cycle counter (`clock64()`).
        Clock64 = "clock64",
        /// The 64-bit nanosecond timer.
        GlobalTimer = "globaltimer",
        /// The lanes of the warp executing this instruction (`__activemask()`;
        /// PTX reads it with the `activemask.b32` instruction).
        ActiveMask = "activemask",
        /// Bytes of dynamic shared memory of the launch.
        DynamicSmemSize = "dynamic_smem_size",
        /// This block's rank in its cluster, and the cluster's block count
        /// (sm_90; a launch without clusters has clusters of one block).
        ClusterCtarank = "cluster_ctarank", ClusterNctarank = "cluster_nctarank",
        /// The cluster's position in the grid of clusters, and that grid's shape.
        ClusteridX = "clusterid.x", ClusteridY = "clusterid.y", ClusteridZ = "clusterid.z",
        NclusteridX = "nclusterid.x", NclusteridY = "nclusterid.y", NclusteridZ = "nclusterid.z",
        /// This block's position in its cluster, and the cluster's shape.
        ClusterCtaidX = "cluster_ctaid.x", ClusterCtaidY = "cluster_ctaid.y", ClusterCtaidZ = "cluster_ctaid.z",
        ClusterNctaidX = "cluster_nctaid.x", ClusterNctaidY = "cluster_nctaid.y", ClusterNctaidZ = "cluster_nctaid.z",
        /// The address of the launch's grid-barrier workspace (`i64`),
        /// zero unless the launch is cooperative (PTX: `%envreg1:%envreg2`, high:low;
        /// `grid_group::is_valid()`).
        GridWorkspace = "grid_workspace",
    }
}

impl SpecialReg {
    /// Whether the register describes thread-block clusters (PTX has them
    /// from sm_90 on).
    pub fn is_cluster(self) -> bool {
        use SpecialReg::*;
        matches!(
            self,
            ClusterCtarank
                | ClusterNctarank
                | ClusteridX
                | ClusteridY
                | ClusteridZ
                | NclusteridX
                | NclusteridY
                | NclusteridZ
                | ClusterCtaidX
                | ClusterCtaidY
                | ClusterCtaidZ
                | ClusterNctaidX
                | ClusterNctaidY
                | ClusterNctaidZ
        )
    }

    /// The type of the value a `special` instruction reads.
    pub fn ty(self) -> Type {
        match self {
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridWorkspace => Type::I64,
            _ => Type::I32,
        }
    }

    /// Whether every thread of a block reads the same value: the block's
    /// position and shape, the grid's, the cluster's and the launch's
    /// dynamic shared memory size (not the thread's own position, its lane
    /// or warp, clocks or the active mask).
    pub fn is_block_uniform(self) -> bool {
        use SpecialReg::*;
        self.is_cluster()
            || matches!(
                self,
                NtidX
                    | NtidY
                    | NtidZ
                    | CtaidX
                    | CtaidY
                    | CtaidZ
                    | NctaidX
                    | NctaidY
                    | NctaidZ
                    | DynamicSmemSize
                    | GridWorkspace
            )
    }

    /// Whether a thread reads the same value every time during a launch
    /// (so two reads can be merged). Clocks, the warp a thread runs on and
    /// the set of active lanes can change.
    pub fn is_invariant(self) -> bool {
        !matches!(
            self,
            SpecialReg::WarpId
                | SpecialReg::Clock
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::ActiveMask
        )
    }
}

named_enum! {
    /// The operation of an `atomic_rmw`. `add` works on integers and floats;
    /// `inc`/`dec` are CUDA's wrapping `atomicInc`/`atomicDec` on `i32`.
    AtomicOp {
        Add = "add", Exch = "exch", And = "and", Or = "or", Xor = "xor",
        Smin = "smin", Smax = "smax", Umin = "umin", Umax = "umax",
        Inc = "inc", Dec = "dec",
    }
}

/// Whether an `atomic_vec` whose elements are of type `ty` works on a
/// packed pair of 16-bit floats (PTX `atom.add.noftz.f16x2`, `.bf16x2`):
/// exactly two elements, added as one atomic of their 32-bit word.
pub fn is_packed_pair_element(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::BF16)
}

named_enum! {
    /// The set of threads an atomic or a fence orders memory for.
    MemScope {
        /// The thread block.
        Cta = "cta",
        /// The whole device (CUDA's default for atomics and `__threadfence`).
        Gpu = "gpu",
        /// The device and the host.
        Sys = "sys",
    }
}

named_enum! {
    /// How `shfl` picks the source lane (PTX `shfl.sync` modes).
    ShuffleMode {
        /// From the lane given by the operand.
        Idx = "idx",
        /// From `lane - delta`.
        Up = "up",
        /// From `lane + delta`.
        Down = "down",
        /// From `lane ^ mask`.
        Bfly = "bfly",
    }
}

named_enum! {
    /// The warp vote of a `vote`. `ballot` gives an `i32` mask; the others an `i1`.
    VoteMode {
        All = "all", Any = "any", Uni = "uni", Ballot = "ballot",
    }
}

named_enum! {
    /// What `redux` computes over the lanes of a warp: the sum (wrapping),
    /// the unsigned or signed minimum or maximum, or a bitwise fold.
    ReduxOp {
        Add = "add", Umin = "umin", Umax = "umax", Smin = "smin", Smax = "smax",
        And = "and", Or = "or", Xor = "xor",
    }
}

named_enum! {
    /// What `match` gives a lane: `any`, the mask of the lanes of its
    /// member mask whose value equals its own; `all`, the member mask when
    /// every one of those lanes has the same value, else 0.
    MatchMode {
        Any = "any", All = "all",
    }
}

named_enum! {
    /// What `barrier_red` computes over the block: the number of threads
    /// whose predicate holds (`i32`), or whether all / any hold (`i1`).
    BarrierRedOp {
        Popc = "popc", And = "and", Or = "or",
    }
}

named_enum! {
    /// A cache hint of a global load or store (CUDA's `__ldcs`, `__stwt`,
    /// ...; PTX's cache operators `ld.global.cs`, `st.global.wt`, ...). It
    /// changes where the data is cached, never the value: the loads take
    /// `ca`, `cg`, `cs`, `lu` and `cv`, the stores `wb`, `cg`, `cs` and `wt`.
    CacheOp {
        Ca = "ca", Cg = "cg", Cs = "cs", Lu = "lu", Cv = "cv", Wb = "wb", Wt = "wt",
    }
}

impl CacheOp {
    /// Whether a load may carry it (else only a store).
    pub fn on_loads(self) -> bool {
        !matches!(self, CacheOp::Wb | CacheOp::Wt)
    }

    /// Whether a store may carry it.
    pub fn on_stores(self) -> bool {
        matches!(self, CacheOp::Wb | CacheOp::Cg | CacheOp::Cs | CacheOp::Wt)
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
    /// A known alignment of the address in bytes (a power of two), or 0 when
    /// only the natural alignment of the accessed type is known. The
    /// frontend sets it on the members of a whole-struct copy (a CUDA vector
    /// type is aligned to its size), and the backend uses it to combine
    /// adjacent accesses into one `ld.v4`/`st.v2`.
    pub align: u32,
    /// A cache hint (`cache(cs)` in the text): global memory only.
    pub cache: Option<CacheOp>,
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

/// The parameter and result types of an indirect call's callee. Only
/// values pass: an indirect call has no by-value aggregates or struct
/// results (the frontend refuses function pointer types with them).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CallSig {
    pub params: Vec<Type>,
    pub returns: Vec<Type>,
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
    /// `args = [callee address, arguments...]`.
    CallIndirect {
        sig: Box<CallSig>,
        args: Vec<Value>,
    },
    FuncAddr {
        func: FuncId,
    },
    SpecialReg {
        reg: SpecialReg,
    },
    Nullary {
        opcode: Opcode,
    },
    /// `args = [ptr, value]`.
    AtomicRmw {
        op: AtomicOp,
        scope: MemScope,
        args: [Value; 2],
    },
    /// `args = [ptr, expected, replacement]`.
    AtomicCas {
        scope: MemScope,
        args: [Value; 3],
    },
    /// `args = [ptr, element0, element1, ...]`: one result per element.
    AtomicVec {
        op: AtomicOp,
        scope: MemScope,
        args: Vec<Value>,
    },
    Fence {
        scope: MemScope,
    },
    /// `args = [value, lane (or delta, or xor mask), clamp, member mask]`,
    /// the operands of PTX `shfl.sync`.
    Shuffle {
        mode: ShuffleMode,
        args: [Value; 4],
    },
    /// `args = [predicate, member mask]`.
    Vote {
        mode: VoteMode,
        args: [Value; 2],
    },
    /// `args = [value, member mask]`.
    Redux {
        op: ReduxOp,
        args: [Value; 2],
    },
    /// `args = [value, member mask]`.
    Match {
        mode: MatchMode,
        args: [Value; 2],
    },
    BarrierRed {
        op: BarrierRedOp,
        arg: Value,
    },
    /// `warp_sync mask` and `nanosleep ns`.
    Effect {
        opcode: Opcode,
        arg: Value,
    },
    IsSpace {
        space: AddrSpace,
        arg: Value,
    },
    /// An async copy, mbarrier or tensor-core operation; `op` fixes how
    /// many operands `args` holds and what they are.
    Accel {
        op: AccelOp,
        args: Vec<Value>,
    },
    /// Inline PTX; `args` are the tied outputs' old values, then the
    /// register inputs (see [`InlineAsm`]).
    InlineAsm {
        asm: Box<InlineAsm>,
        args: Vec<Value>,
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

/// The one description of where each format keeps its value operands:
/// `[run0, run1, run2]`, slices of adjacent operands in order, for
/// `InstData::operand_runs` (`as_slice`, `from_ref`) and `operand_runs_mut`
/// (`as_mut_slice`, `from_mut`).
macro_rules! operand_runs {
    ($data:expr, $as_slice:ident, $one:ident) => {{
        use core::slice::$one;
        match $data {
            InstData::Iconst { .. }
            | InstData::Fconst { .. }
            | InstData::GlobalAddr { .. }
            | InstData::StackAddr { .. }
            | InstData::FuncAddr { .. }
            | InstData::SpecialReg { .. }
            | InstData::Nullary { .. }
            | InstData::Fence { .. } => Default::default(),
            InstData::Unary { arg, .. }
            | InstData::Convert { arg, .. }
            | InstData::AddrSpaceCast { arg, .. }
            | InstData::BarrierRed { arg, .. }
            | InstData::Effect { arg, .. }
            | InstData::IsSpace { arg, .. }
            | InstData::Load { ptr: arg, .. } => {
                [$one(arg), Default::default(), Default::default()]
            }
            InstData::Binary { args, .. }
            | InstData::IntCompare { args, .. }
            | InstData::FloatCompare { args, .. }
            | InstData::AtomicRmw { args, .. }
            | InstData::Vote { args, .. }
            | InstData::Redux { args, .. }
            | InstData::Match { args, .. } => {
                [args.$as_slice(), Default::default(), Default::default()]
            }
            InstData::Ternary { args, .. } | InstData::AtomicCas { args, .. } => {
                [args.$as_slice(), Default::default(), Default::default()]
            }
            InstData::Shuffle { args, .. } => {
                [args.$as_slice(), Default::default(), Default::default()]
            }
            InstData::Store { value, ptr, .. } => [$one(value), $one(ptr), Default::default()],
            InstData::Call { args, .. }
            | InstData::CallIndirect { args, .. }
            | InstData::Return { args }
            | InstData::AtomicVec { args, .. }
            | InstData::Accel { args, .. }
            | InstData::InlineAsm { args, .. } => {
                [args.$as_slice(), Default::default(), Default::default()]
            }
            InstData::Jump { dest } => [
                dest.args.$as_slice(),
                Default::default(),
                Default::default(),
            ],
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => [
                $one(cond),
                then_dest.args.$as_slice(),
                else_dest.args.$as_slice(),
            ],
        }
    }};
}

/// The IEEE bits of an `f32` constant held as an f64 (see
/// [`InstData::Fconst`]). Finite values and infinities are exact; a NaN keeps
/// its sign and the top 23 bits of its payload, with the quiet bit set if
/// nothing else is left, so `0x7fffffff` and `0x7fc00000` stay distinct.
/// Rust's `as` cast leaves a NaN's payload unspecified, hence the bit work.
/// The backend prints this and the interpreter loads it, so both agree.
pub fn f32_const_bits(value: f64) -> u32 {
    if !value.is_nan() {
        return (value as f32).to_bits();
    }
    let bits = value.to_bits();
    let sign = ((bits >> 63) as u32) << 31;
    let mut payload = ((bits >> 29) as u32) & 0x7f_ffff;
    if payload == 0 {
        payload = 0x40_0000;
    }
    sign | 0x7f80_0000 | payload
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
            InstData::CallIndirect { .. } => Opcode::CallIndirect,
            InstData::FuncAddr { .. } => Opcode::FuncAddr,
            InstData::SpecialReg { .. } => Opcode::SpecialReg,
            InstData::AtomicRmw { .. } => Opcode::AtomicRmw,
            InstData::AtomicCas { .. } => Opcode::AtomicCas,
            InstData::AtomicVec { .. } => Opcode::AtomicVec,
            InstData::Fence { .. } => Opcode::Fence,
            InstData::Shuffle { .. } => Opcode::Shuffle,
            InstData::Vote { .. } => Opcode::Vote,
            InstData::Redux { .. } => Opcode::Redux,
            InstData::Match { .. } => Opcode::Match,
            InstData::BarrierRed { .. } => Opcode::BarrierRed,
            InstData::Effect { opcode, .. } => *opcode,
            InstData::IsSpace { .. } => Opcode::IsSpace,
            InstData::Accel { op, .. } => op.opcode(),
            InstData::InlineAsm { .. } => Opcode::InlineAsm,
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

    /// The value operands, in order (branch arguments included), as at most
    /// three runs of adjacent values.
    #[inline]
    fn operand_runs(&self) -> [&[Value]; 3] {
        operand_runs!(self, as_slice, from_ref)
    }

    /// [`Self::operand_runs`], mutable.
    #[inline]
    fn operand_runs_mut(&mut self) -> [&mut [Value]; 3] {
        operand_runs!(self, as_mut_slice, from_mut)
    }

    /// Calls `f` on every value operand, in order, including branch arguments.
    #[inline]
    pub fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        for run in self.operand_runs() {
            run.iter().copied().for_each(&mut f);
        }
    }

    /// Rewrites every value operand (including branch arguments) through `f`.
    #[inline]
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        for run in self.operand_runs_mut() {
            for a in run {
                *a = f(*a);
            }
        }
    }

    /// The branch targets of a terminator (empty for anything else).
    pub fn branch_destinations(&self) -> SmallVec<[&BlockCall; 2]> {
        match self {
            InstData::Jump { dest } => smallvec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => smallvec![then_dest, else_dest],
            _ => SmallVec::new(),
        }
    }

    /// Mutable access to the branch targets of a terminator.
    pub fn branch_destinations_mut(&mut self) -> SmallVec<[&mut BlockCall; 2]> {
        match self {
            InstData::Jump { dest } => smallvec![dest],
            InstData::Brif {
                then_dest,
                else_dest,
                ..
            } => smallvec![then_dest, else_dest],
            _ => SmallVec::new(),
        }
    }

    /// The function a `call` calls or a `func_addr` takes the address of:
    /// what keeps a function alive and where it must be declared first.
    pub fn referenced_function(&self) -> Option<FuncId> {
        match self {
            InstData::Call { func, .. } | InstData::FuncAddr { func } => Some(*func),
            _ => None,
        }
    }

    /// The memory flags of a load or store.
    pub fn mem_flags(&self) -> Option<&MemFlags> {
        match self {
            InstData::Load { flags, .. } | InstData::Store { flags, .. } => Some(flags),
            _ => None,
        }
    }

    /// The pointer operand of an instruction that accesses memory (load,
    /// store, atomics).
    pub fn mem_ptr(&self) -> Option<Value> {
        match self {
            InstData::Load { ptr, .. } | InstData::Store { ptr, .. } => Some(*ptr),
            InstData::AtomicRmw { args, .. } => Some(args[0]),
            InstData::AtomicCas { args, .. } => Some(args[0]),
            InstData::AtomicVec { args, .. } => args.first().copied(),
            InstData::Accel { op, args } if !op.operand_kinds().is_empty() => {
                match op.operand_kinds()[0] {
                    super::accel::OperandKind::Ptr(_) => args.first().copied(),
                    super::accel::OperandKind::Ty(_) => None,
                }
            }
            _ => None,
        }
    }

    /// Replaces the pointer operand of a load, store or atomic (an
    /// accelerator instruction keeps its operands); others are unchanged.
    pub fn set_mem_ptr(&mut self, ptr: Value) {
        match self {
            InstData::Load { ptr: p, .. } | InstData::Store { ptr: p, .. } => *p = ptr,
            InstData::AtomicRmw { args, .. } => args[0] = ptr,
            InstData::AtomicCas { args, .. } => args[0] = ptr,
            InstData::AtomicVec { args, .. } => args[0] = ptr,
            _ => {}
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
        for &o in AtomicOp::ALL {
            assert_eq!(AtomicOp::from_name(o.name()), Some(o));
        }
        for &m in ShuffleMode::ALL {
            assert_eq!(ShuffleMode::from_name(m.name()), Some(m));
        }
        for &o in ReduxOp::ALL {
            assert_eq!(ReduxOp::from_name(o.name()), Some(o));
        }
        for &m in MatchMode::ALL {
            assert_eq!(MatchMode::from_name(m.name()), Some(m));
        }
    }
}
