//! The typed program: the checked, fully explicit form that lowering walks.
//!
//! Design rules, so lowering is a plain recursive walk with no C knowledge:
//! * every [`Expr`] carries its final C type in `ty`;
//! * every implicit conversion (promotion, usual arithmetic conversions,
//!   conversions on assignment/argument/return, to-bool in conditions) is an
//!   explicit [`ExprKind::Cast`];
//! * the operands of [`ExprKind::Binary`] already have the operation type,
//!   which is also the result type (shift counts too are converted to it);
//! * operands of [`ExprKind::Compare`] have a common type (arithmetic or
//!   pointer) and the result is `int` 0/1;
//! * pointer offsets are 64-bit integers (sign- or zero-extended from the
//!   source type) and nodes carry the element size in bytes;
//! * variables are [`LocalId`]s into [`Function::locals`], parameters first;
//! * struct-typed expressions are values of their struct type: assignment,
//!   initialization, arguments and `return` copy them (lowering decides how).

use crate::diag::Span;
use crate::types::CType;

/// Index of a local variable or parameter within its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

/// Index of a function within [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// Index of a module variable within [`Program::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// All function definitions of the file, in source order of definition
/// (prototypes are merged into their definitions), and its module variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub functions: Vec<Function>,
    pub globals: Vec<GlobalVar>,
    /// `-ftz=true`: every function flushes `f32` subnormals (the IR's `ftz`
    /// function attribute).
    pub ftz: bool,
    /// `-rdc=true` (`Options::relocatable`): device functions and
    /// variables keep external linkage.
    pub relocatable: bool,
}

/// The memory a module variable lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// `__shared__`: one copy per thread block.
    Shared,
    /// `__constant__`: read-only in device code.
    Constant,
    /// `__device__`: global memory.
    Device,
}

/// A variable with static storage: file-scope `__shared__`/`__constant__`/
/// `__device__` ones, and function-scope `__shared__` ones.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    /// The module-level name: nvcc's, for a function-scope `__shared__`
    /// variable the Itanium name of a local entity (`_ZZ1kPfE4tile`,
    /// `crate::mangle::local_variable`).
    pub name: String,
    pub ty: CType,
    pub space: MemSpace,
    /// Initial bytes, little-endian (`__constant__`/`__device__` only).
    pub init: Option<Vec<u8>>,
    /// The addresses among those bytes (`__device__ float *p = buf;`), in
    /// offset order; the bytes under each are zero.
    pub addrs: Vec<InitAddr>,
    /// `extern __shared__ T buf[]`: sized at launch.
    pub dynamic: bool,
    /// `__managed__`: a `Device` variable in unified memory, which the host
    /// reaches at the same address.
    pub managed: bool,
    /// `__align__(N)`: the least alignment asked for (0 when none).
    pub align: u64,
    /// `static`: not visible outside the module.
    pub is_static: bool,
    /// A local static of an inline function with external linkage: every
    /// module that defines the function has it, and the linker keeps one.
    pub is_inline: bool,
    pub is_const: bool,
    pub span: Span,
}

/// An address in a module variable's initializer: the 8 bytes at
/// `offset` hold the address of `target` plus `addend` bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct InitAddr {
    pub offset: u64,
    pub target: AddrTarget,
    pub addend: i64,
}

/// What an [`InitAddr`] points to.
#[derive(Clone, Debug, PartialEq)]
pub enum AddrTarget {
    /// A module variable in global or constant memory.
    Global(GlobalId),
    /// A device function (`op_t f = add;`).
    Func(FuncId),
    /// A string literal (its bytes, without the NUL), which lowering puts
    /// in a module constant of its own.
    Str(Vec<u8>),
}

/// A checked function definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The name in the source.
    pub name: String,
    /// The name in the PTX: the source name under `extern "C"`, else the
    /// Itanium C++ ABI name nvcc gives it (`crate::mangle`).
    pub link_name: String,
    /// The span of the function's name in the definition.
    pub span: Span,
    /// `__global__`: a kernel entry point (always returns void).
    pub is_kernel: bool,
    pub is_extern_c: bool,
    pub is_static: bool,
    pub is_inline: bool,
    pub noinline: bool,
    pub forceinline: bool,
    pub params: Vec<Param>,
    pub ret: CType,
    pub body: Block,
    /// All variables: `locals[i]` is `LocalId(i)`; the first
    /// `params.len()` entries are the parameters in order.
    pub locals: Vec<LocalVar>,
    /// `__launch_bounds__(max_threads, min_blocks)`, evaluated.
    pub launch_bounds: Option<(u32, Option<u32>)>,
    /// `__cluster_dims__(x, y, z)`, evaluated (missing dimensions are 1).
    pub cluster_dims: Option<[u32; 3]>,
}

/// A function parameter (also present in `Function::locals`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: CType,
    /// The parameter is a `__restrict__` pointer.
    pub restrict: bool,
    /// `__grid_constant__`: a kernel reads it in place, in param space.
    pub grid_constant: bool,
    pub span: Span,
    pub local: LocalId,
}

/// A variable declared in the function (or a parameter).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalVar {
    pub name: String,
    pub ty: CType,
    /// Declared `const` itself (not through a pointer).
    pub is_const: bool,
    pub is_param: bool,
    pub span: Span,
    /// Lives in memory (a `.local` stack slot) rather than in a register:
    /// arrays, and scalars whose address is taken.
    pub in_memory: bool,
    /// The value of a `const` integer initialized by a constant expression,
    /// usable where C++ requires constant expressions (array sizes, `case`).
    pub const_value: Option<i128>,
    /// `alignas(N)`/`__align__(N)` on the declaration: the least alignment
    /// of its stack slot (0 when not written; the type's own is kept when
    /// larger).
    pub align: u64,
}

/// `#pragma unroll` on a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unroll {
    /// `#pragma unroll`: unroll completely.
    Full,
    /// `#pragma unroll N` (`1` means do not unroll).
    Count(u32),
}

/// `{ ... }`; scoping is already resolved into `LocalId`s.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// Statement forms. Conditions are `bool`-typed expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its side effects.
    Expr(Expr),
    /// Declares `local`; `init` (if any) already has the local's type.
    /// A local without initializer has an indeterminate value.
    Decl {
        local: LocalId,
        init: Option<Expr>,
        /// A braced initializer, flattened: every scalar of the object at its
        /// byte offset (elements the list omits are explicit zeros).
        list: Option<Vec<(u64, Expr)>>,
    },
    Block(Block),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
        unroll: Option<Unroll>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
        unroll: Option<Unroll>,
    },
    /// `init` holds zero or more `Decl`/`Expr` statements scoped to the loop.
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
        unroll: Option<Unroll>,
    },
    /// `switch`: `cond` is the promoted controlling value; `cases` maps each
    /// `case` value (converted to `cond`'s type) to its label index, and the
    /// labels appear as [`StmtKind::Label`] directly in `body`.
    Switch {
        cond: Expr,
        cases: Vec<(i128, u32)>,
        default: Option<u32>,
        body: Block,
    },
    /// A `case`/`default` label of the enclosing `switch` (by index).
    Label(u32),
    /// `goto`: a jump to the function's label with this index.
    Goto(u32),
    /// `name:` as a `goto` target (index into the function's labels).
    GotoLabel(u32),
    Break,
    Continue,
    /// The value (if any) already has the function's return type.
    Return(Option<Expr>),
    Empty,
    /// Inline PTX (`asm(...)`).
    Asm(Box<AsmStmt>),
}

/// A checked `asm` statement: the IR instruction it becomes, where its
/// results go, and its operands.
#[derive(Clone, Debug, PartialEq)]
pub struct AsmStmt {
    pub asm: midend::ir::InlineAsm,
    /// Each output's place and C type, in order.
    pub outputs: Vec<(Place, CType)>,
    /// The instruction's operands in its order (the tied outputs' old
    /// values, then the register inputs), each already of the C type of
    /// its constraint's register.
    pub operands: Vec<Expr>,
}

/// A typed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: CType,
    pub span: Span,
}

/// CUDA built-in index variables (`threadIdx.x` etc.), all `unsigned int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinVar {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

/// A component of a built-in index variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    X,
    Y,
    Z,
}

/// Arithmetic and bitwise binary operations. Division and remainder on
/// integers truncate toward zero; `Shr` is arithmetic for signed types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
}

/// Comparisons; signedness comes from the operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Short-circuit operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    And,
    Or,
}

/// Unary arithmetic (operand already promoted to the result type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    BitNot,
}

/// How a [`ExprKind::Cast`] converts; the source is the operand's type and
/// the target is the cast node's `ty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastKind {
    /// Truncate, sign-extend or zero-extend (by source signedness), or no-op.
    IntToInt,
    IntToFloat,
    /// Rounds toward zero.
    FloatToInt,
    FloatToFloat,
    /// Scalar (integer, float, pointer) to `bool`: `x != 0`.
    ToBool,
    /// `bool` to an integer type (zero-extend).
    BoolToInt,
    /// `bool` to a floating type (0.0 or 1.0).
    BoolToFloat,
    /// Changes only the pointee type/qualifiers; a no-op on the address.
    PtrToPtr,
    IntToPtr,
    PtrToInt,
    /// `(void)e`: evaluate and discard.
    ToVoid,
}

/// An assignable location.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A local variable or parameter.
    Local(LocalId),
    /// A module variable.
    Global(GlobalId),
    /// The object a pointer-typed expression points to.
    Deref(Box<Expr>),
    /// `base[index]`: `base` is a pointer, `index` a 64-bit integer.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
        elem_size: u64,
    },
    /// The member at byte `offset` of the struct that `base` (a
    /// struct-typed expression, an lvalue) designates.
    Field { base: Box<Expr>, offset: u64 },
}

/// Expression forms. See the module docs for the invariants.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer (or `bool`: 0/1) constant that fits in `ty`.
    IntConst(i128),
    /// A floating constant (exactly representable in `ty`).
    FloatConst(f64),
    /// A string literal's address (`const char *`): its bytes, without the
    /// NUL, live in a constant module variable.
    Str(Vec<u8>),
    /// Reads a local variable.
    Local(LocalId),
    /// Reads a (scalar) module variable.
    Global(GlobalId),
    /// The address of an object (`&x`, and arrays decaying to a pointer to
    /// their first element). The result type is the C pointer type.
    AddrOf(Box<Place>),
    /// Reads a CUDA built-in index.
    Builtin(BuiltinVar, Dim),
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    /// `!operand` with a `bool` operand; result `int` 0/1.
    Not(Box<Expr>),
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Operands have a common type; result `int` 0/1.
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Short-circuit `&&`/`||` on `bool` operands; result `int` 0/1.
    Logical {
        op: LogicalOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Stores `value` (already of the target's type) into `target`; the
    /// result is the stored value. For compound assignment `op` is set and
    /// `value` contains [`ExprKind::TargetValue`] where the old value goes.
    Assign {
        target: Place,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    /// The value loaded from the enclosing `Assign`/`IncDec` target, whose
    /// address is evaluated only once. Appears only inside their `value`.
    TargetValue,
    /// `++`/`--`: stores `new_value` (written in terms of `TargetValue`) to
    /// `target`; yields the new value if `pre`, else the old value.
    IncDec {
        target: Place,
        pre: bool,
        inc: bool,
        new_value: Box<Expr>,
    },
    /// `cond ? then : els`; `cond` is `bool`, arms have the result type.
    /// Only the chosen arm is evaluated.
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    Cast {
        kind: CastKind,
        expr: Box<Expr>,
    },
    /// Loads `*base[index]` (see [`Place::Index`]).
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
        elem_size: u64,
    },
    /// Loads through a pointer.
    Deref(Box<Expr>),
    /// `ptr + offset * elem_size` (offset is a 64-bit integer).
    PtrAdd {
        ptr: Box<Expr>,
        offset: Box<Expr>,
        elem_size: u64,
    },
    /// `ptr - offset * elem_size`.
    PtrSub {
        ptr: Box<Expr>,
        offset: Box<Expr>,
        elem_size: u64,
    },
    /// `(lhs - rhs) / elem_size` as `long`.
    PtrDiff {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        elem_size: u64,
    },
    /// A call; arguments already have the parameter types.
    Call {
        callee: FuncId,
        name: String,
        args: Vec<Expr>,
    },
    /// The address of a function (`f` or `&f` where a function pointer is
    /// wanted); the node's type is the function pointer type. `callee` is
    /// resolved like a call's.
    FuncAddr {
        callee: FuncId,
        name: String,
    },
    /// A call through a function pointer (`f(x)`, `(*f)(x)`, `s.op(x)`);
    /// arguments already have the pointee's parameter types.
    CallIndirect {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `__syncthreads()` (type void).
    SyncThreads,
    /// A CUDA built-in function other than `__syncthreads` (see
    /// [`Intrinsic`] for what each one's `args` are); the node's `ty` is the
    /// C result type.
    Intrinsic {
        op: Intrinsic,
        args: Vec<Expr>,
    },
    /// Reads the member at byte `offset` of the struct `base` (`s.x`,
    /// `p->x`, `f().x`); the node's `ty` is the member's type.
    Field {
        base: Box<Expr>,
        offset: u64,
    },
    /// A struct value built from its members (`make_float4(...)`): every
    /// scalar member at its byte offset, already of the member's type.
    StructLit(Vec<(u64, Expr)>),
    /// Evaluates `lhs`, discards it, yields `rhs`.
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

/// The set of threads an atomic or a fence orders memory for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `_block` variants and `__threadfence_block`.
    Block,
    /// CUDA's default: the whole device.
    Device,
    /// `_system` variants and `__threadfence_system`.
    System,
}

/// The operation of an `atomicOP` read-modify-write; signedness of `Min`
/// and `Max` comes from the pointee type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    Add,
    /// Lowered as an add of the negated value.
    Sub,
    Exch,
    Min,
    Max,
    /// CUDA's wrapping increment: `old >= v ? 0 : old + 1`.
    Inc,
    /// CUDA's wrapping decrement: `old == 0 || old > v ? v : old - 1`.
    Dec,
    And,
    Or,
    Xor,
}

/// How a warp shuffle picks its source lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflKind {
    Idx,
    Up,
    Down,
    Xor,
}

/// A warp vote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteKind {
    Ballot,
    Any,
    All,
    Uni,
}

/// A warp reduction (`__reduce_OP_sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxKind {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// A block-wide barrier that reduces a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    Count,
    And,
    Or,
}

/// The state space a `__isGlobal`-style test asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpaceKind {
    Global,
    Shared,
    Constant,
    Local,
}

/// Math functions; the float type is the node's `ty`. `Fast*` are CUDA's
/// intrinsics (`__expf`, ...), which trade accuracy for speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tanh,
    Pow,
    Fabs,
    Fmin,
    Fmax,
    Floor,
    Ceil,
    Trunc,
    /// C's `round`: halfway cases away from zero.
    Round,
    Fma,
    FastExp,
    FastLog,
    FastSin,
    FastCos,
    FastPow,
    /// `__fdividef`, and `/` on `float` under `--use_fast_math`.
    FastDiv,
    /// `/` on `float` under `-prec-div=false` without `--use_fast_math`:
    /// the full-range approximate division (nvcc's `div.full.f32`).
    FullDiv,
    /// `rintf`, `nearbyintf`: to the nearest integral value, ties to even.
    Rint,
    /// `__saturatef`: clamped to `[0, 1]`, NaN to `+0`.
    Saturate,
    /// `copysignf(x, y)`: the magnitude of `x` with the sign of `y`.
    Copysign,
    /// `fdimf(x, y)`: `x - y` if `x > y`, else `+0` (NaN stays NaN).
    Fdim,
    /// `fmodf(x, y)`: `x - trunc(x / y)·y`, exact.
    Fmod,
    /// `remainderf(x, y)`: `x - nearest(x / y)·y`, exact.
    Remainder,
    Tan,
    Asin,
    Acos,
    Atan,
    /// `atan2(y, x)`.
    Atan2,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Exp10,
    Expm1,
    Log10,
    Log1p,
    Cbrt,
    /// `1/cbrt(x)`.
    Rcbrt,
    Hypot,
    /// `sin(πx)`, `cos(πx)`.
    Sinpi,
    Cospi,
    /// `__tanf`, `__log2f`, `__log10f`, `__exp10f`: PTX's approximate
    /// instructions.
    FastTan,
    FastLog2,
    FastLog10,
    FastExp10,
    /// `__tanhf`: PTX's `tanh.approx.f32`.
    FastTanh,
    /// `erff`, `erfcf`, `normcdff`, `erfinvf`, `erfcinvf` (`float` only
    /// but `erfc`, which has a `double` form too; docs/math.md).
    Erf,
    Erfc,
    Normcdf,
    Erfinv,
    Erfcinv,
    /// `lgammaf` (`float` only: the `double` form is diagnosed).
    Lgamma,
    /// `tgammaf` (`float` only, as `tgamma` on `float`; the `double` form
    /// is not supported yet).
    Tgamma,
    /// `erfcxf`, `erfcx`: the scaled complementary error function
    /// `e^(x²)·erfc(x)`.
    Erfcx,
    /// `rhypot(x, y) = 1/sqrt(x² + y²)`.
    Rhypot,
    /// `norm3d(a, b, c)`, `norm4d(a, b, c, d)`: the Euclidean length
    /// without overflow or underflow in between; `Rnorm3d`, `Rnorm4d` its
    /// reciprocal.
    Norm3d,
    Rnorm3d,
    Norm4d,
    Rnorm4d,
    /// `normcdfinvf`: the inverse of the standard normal distribution
    /// function (`float` only: the `double` form is diagnosed).
    Normcdfinv,
    /// `cyl_bessel_i0f`, `cyl_bessel_i1f` (and the `double` forms): the
    /// modified Bessel functions of the first kind of order 0 and 1.
    BesselI0,
    BesselI1,
}

/// A rounding direction of the conversion intrinsics (`__int2float_rz`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundMode {
    /// To nearest, ties to even.
    Nearest,
    /// Toward zero.
    Zero,
    /// Toward positive infinity.
    Up,
    /// Toward negative infinity.
    Down,
}

/// The operation of an explicitly rounded arithmetic intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
    /// `1/x`.
    Rcp,
    Sqrt,
    /// `1/sqrt(x)`, correctly rounded (`__frsqrt_rn`).
    Rsqrt,
}

/// A floating-point class test (`isnan`, ...); the result is `int` 0/1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatClass {
    Nan,
    Inf,
    Finite,
    /// The sign bit is set (also for `-0` and negative NaNs).
    Signbit,
}

/// A CUDA built-in function. Arguments are already converted to the types
/// listed here (`T` is the node's result type unless said otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// A half-precision operation (`__hadd`, `+` on `__half`, ...; see
    /// [`crate::half::HalfOp`] for the arguments).
    Half(crate::half::HalfOp),
    /// `__syncthreads_count/_and/_or(pred)`: `[bool]`, result `int`.
    BarrierRed(BarrierKind),
    /// `__syncwarp(mask)`: `[unsigned]`.
    SyncWarp,
    /// `__threadfence*()`.
    Fence(Scope),
    /// `atomicOP(p, v)`: `[T*, T]`, result the old `T`. For `atomicAdd`,
    /// `T` may be `float2` or `float4` (sm_90): each element is added
    /// atomically on its own; or a 16-bit float or pair (a pair is one
    /// atomic of its 32-bit word).
    Atomic {
        op: AtomicKind,
        scope: Scope,
    },
    /// `atomicCAS(p, compare, v)`: `[T*, T, T]`, `T` also `unsigned short`.
    AtomicCas(Scope),
    /// `atomicAdd(p, v)` on `__nv_bfloat16` or `__nv_bfloat162` below
    /// sm_90, which has no `bf16` atomic: `[T*, T]`, result the old `T`,
    /// computed as CUDA's header does, by a loop of `atomicCAS` on the 16-
    /// or 32-bit word until no other thread changed it in between.
    AtomicAddByCas,
    /// `__shfl*_sync(mask, v, lane, width)`: `[unsigned, T, int|unsigned, int]`.
    Shfl(ShflKind),
    /// `__ballot_sync`/`__any_sync`/`__all_sync`/`__uni_sync(mask, pred)`: `[unsigned, bool]`.
    Vote(VoteKind),
    /// `__reduce_add/min/max_sync(mask, v)`: `[unsigned, T]` with `T`
    /// `int` or `unsigned` (the overload, and the signedness of `min` and
    /// `max`); `__reduce_and/or/xor_sync`: `[unsigned, unsigned]`. sm_80.
    Redux(ReduxKind),
    /// `__match_any_sync(mask, v)`: `[unsigned, T]`;
    /// `__match_all_sync(mask, v, pred)`: `[unsigned, T, int *]` (`all`),
    /// `T` one of CUDA's overloads (32- or 64-bit integers, `float`,
    /// `double`); the result is `unsigned`. sm_70.
    Match {
        all: bool,
    },
    /// `__activemask()`: `unsigned`.
    ActiveMask,
    /// `clock()` (`long`) and `clock64()` (`long long`): both read the
    /// 64-bit cycle counter, as nvcc does.
    Clock64,
    /// `__nanosleep(ns)`: `[unsigned]`.
    Nanosleep,
    /// `__kernelc_grid_sync()`: the grid-wide barrier under
    /// `cooperative_groups::grid_group::sync()` (`<cooperative_groups.h>`).
    GridSync,
    /// `__trap()`: aborts the kernel (PTX `trap`); the code after it is
    /// unreachable.
    Trap,
    /// `__popc`/`__popcll`, `__clz`/`__clzll`, `__ffs`/`__ffsll` (result
    /// `int`) and `__brev`/`__brevll`: one 32- or 64-bit integer.
    Popc,
    Clz,
    Ffs,
    Brev,
    /// `__dp4a(a, b, c)`: `[T, T, T]` with `T` `int` (`signed`) or
    /// `unsigned`: `c` plus the products of the four byte lanes of `a`
    /// and `b`.
    Dp4a {
        signed: bool,
    },
    /// `__ldg(p)`: `[const T*]`, a read-only load of global memory.
    Ldg,
    /// `__isGlobal(p)` and friends: `[const void*]`, result `unsigned` 0/1.
    IsSpace(SpaceKind),
    /// `__cvta_generic_to_shared(p)`: `[const void*]`, result `size_t`.
    CvtaGenericToShared,
    /// `__cvta_shared_to_generic(a)`: `[size_t]`, result `void*`.
    CvtaSharedToGeneric,
    /// A math function on `float` or `double` arguments.
    Math(MathFn),
    /// `min`/`max` and their `umin`, `llmax`, ... spellings: `[T, T]`,
    /// `T` an integer or floating type (`fmin`/`fmax` for floats).
    MinMax {
        max: bool,
    },
    /// `abs`, `labs`, `llabs`: `[T]`; the integer forms wrap at the
    /// most negative value, as PTX `abs` does.
    Abs,
    /// `__float_as_int` and friends: `[S]`, the bits of `S` read as `T`
    /// (the same width).
    Reinterpret,
    /// `__double2hiint` (`hi`) / `__double2loint`: `[double]`, result `int`.
    DoubleHalf {
        hi: bool,
    },
    /// `__hiloint2double(hi, lo)`: `[int, int]`, result `double`.
    HiLoToDouble,
    /// An integer or `double` to floating conversion with a directed
    /// rounding (`__int2float_rz`, `__double2float_ru`, ...): `[S]`. The
    /// rounding-to-nearest forms are plain casts.
    ConvertRounded(RoundMode),
    /// `__mul24`/`__umul24`: `[T, T]` (`int` or `unsigned`), the low 32
    /// bits of the product of the low 24 bits of each.
    Mul24,
    /// `__mulhi`, `__umulhi`, `__mul64hi`, `__umul64hi`: `[T, T]`, the high
    /// half of the double-width product (signedness from `T`).
    MulHi,
    /// `__sad`/`__usad(x, y, z)`: `[T, T, unsigned]`, `|x - y| + z`.
    Sad,
    /// `__byte_perm(x, y, s)`: `[unsigned; 3]`.
    BytePerm,
    /// `__nv_bswap16/32/64(x)`: `[T]` (`unsigned short`, `unsigned`,
    /// `unsigned long long`), the bytes of `x` in reverse order.
    ByteSwap,
    /// `nextafter(x, y)`, `nextafterf`: `[T, T]` (`float` or `double`), the
    /// neighbour of `x` toward `y`.
    NextAfter,
    /// A SIMD video intrinsic (`__vaddus4`, `__vimax3_s16x2`,
    /// `__vibmax_s32`): the arguments of [`crate::simd_video::SimdFn::params`].
    SimdVideo(crate::simd_video::SimdFn),
    /// `__funnelshift_l/_lc/_r/_rc(lo, hi, shift)`: `[unsigned; 3]`.
    FunnelShift {
        left: bool,
        clamp: bool,
    },
    /// `__hadd`, `__rhadd`, `__uhadd`, `__urhadd`: `[T, T]`, `(x + y) >> 1`
    /// (plus one before the shift when `round`) without overflow.
    HalfAdd {
        round: bool,
    },
    /// `__fadd_rz(x, y)`, `__dmul_ru`, `__fmaf_rd(x, y, z)`, `__frcp_rn`,
    /// `__dsqrt_rz`, ...: `[T; n]` with `T` the node's type, rounded once
    /// in the given direction and never contracted with other operations.
    RoundedArith {
        op: ArithOp,
        mode: RoundMode,
    },
    /// `__ldcs(p)`, `__ldcg`, `__ldca`, `__ldlu`, `__ldcv`: `[const T *]`,
    /// result `T`, a global load with the cache hint.
    CacheLoad(midend::ir::CacheOp),
    /// `__stcs(p, v)`, `__stcg`, `__stwb`, `__stwt`: `[T *, T]`, a global
    /// store with the cache hint.
    CacheStore(midend::ir::CacheOp),
    /// `printf(format, args...)`: `[const char *, promoted args...]`,
    /// result `int` (the runtime's `vprintf`).
    Printf,
    /// A failed-`assert` check: `[bool cond, text, file, unsigned line,
    /// function]`; when `cond` is false, the runtime's `__assertfail`.
    Assert,
    /// `assert` under `NDEBUG`: no arguments, no effect.
    Nothing,
    /// `sincos(x, s, c)`, `sincospi`, `__sincosf`: `[F, F*, F*]`, stores
    /// `sin` and `cos` of `x` (`πx` for `pi`; the approximate instructions
    /// for `fast`), result `void`.
    SinCos {
        pi: bool,
        fast: bool,
    },
    /// `isnan`, `isinf`, `isfinite`, `signbit`: `[F]`, result `int`.
    Classify(FloatClass),
    /// `ldexpf(x, n)`, `scalbnf(x, n)`: `[F, int]`, `x·2^n` rounded once.
    Ldexp,
    /// `frexpf(x, e)`: `[F, int*]`; stores the exponent, returns the
    /// fraction in `[0.5, 1)`.
    Frexp,
    /// `ilogbf`/`ilogb` (`int: true`: the exponent as an `int`) and
    /// `logbf`/`logb` (as a floating value): `[float|double]`.
    Logb {
        int: bool,
    },
    /// `modff(x, ip)`: `[F, F*]`; stores the integral part, returns the
    /// fractional part (both with the sign of `x`).
    Modf,
    /// `remquof(x, y, q)`, `remquo`: `[F, F, int*]`; `remainder(x, y)`,
    /// storing the low bits of the rounded quotient with its sign.
    Remquo,
    /// `normf(dim, p)`, `norm` (and `rnormf`, `rnorm` with `reciprocal`):
    /// `[int, const F*]`, the Euclidean length of the `dim` elements.
    NormArray {
        reciprocal: bool,
    },
    /// A tensor-core or async-copy built-in (`sema/tensor.rs`).
    Accel(midend::ir::AccelOp),
    /// A texture fetch or surface access (`sema/texture.rs`): `tex`,
    /// `suld` or `sust`, its arguments in the operand order (a gradient
    /// as its `float2`/`float4`, the value written as its element type).
    Texture(midend::ir::AccelOp),
    /// A cluster special register (`kernelc_cluster_ctarank()`, ...):
    /// no arguments, result `unsigned`.
    Special(midend::ir::SpecialReg),
    /// `memcpy(dst, src, n)`: `[void *, const void *, size_t]`, result
    /// `dst`. The pointer arguments keep, under their conversion to `void
    /// *`, the expressions whose types and places tell lowering how the
    /// bytes are aligned and laid out (`lower/memcpy.rs`); a constant `n`
    /// is an `IntConst`.
    Memcpy,
    /// `memset(dst, value, n)`: `[void *, int, size_t]`, result `dst`; a
    /// constant `value` or `n` is an `IntConst`.
    Memset,
    /// `kernelc_wgmma_desc` / `kernelc_tcgen05_smem_desc(p, lbo, sbo,
    /// code)`: `[const void*, unsigned, unsigned, int]`, result `unsigned
    /// long long`; `code` is the constant layout-type field
    /// (`sema/wgmma_tcgen05.rs`).
    SmemDesc {
        tcgen05: bool,
    },
}

impl Expr {
    /// The expression's parts. A type with `Drop` cannot be taken apart by
    /// a pattern, so the parts are moved out here.
    pub fn into_parts(mut self) -> (ExprKind, CType, Span) {
        let kind = std::mem::replace(&mut self.kind, ExprKind::IntConst(0));
        let ty = std::mem::replace(&mut self.ty, CType::Void);
        (kind, ty, self.span)
    }

    /// The same expression at another span.
    pub fn with_span(mut self, span: Span) -> Expr {
        self.span = span;
        self
    }
}

/// Dropping a tree recurses as deep as it nests; an `else if` chain or a
/// long sum is as deep as it is long. Each level runs with enough stack, as
/// the walks that made it did (`stack.rs`).
impl Drop for Expr {
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, ExprKind::IntConst(0));
        stdx::stack::with_stack(move || drop(kind));
    }
}

/// See [`Expr`]'s `Drop`.
impl Drop for Stmt {
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, StmtKind::Empty);
        stdx::stack::with_stack(move || drop(kind));
    }
}
