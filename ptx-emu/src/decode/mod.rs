//! Decoding: each instruction's opcode and modifiers, which the syntax tree
//! keeps as the strings the author wrote, become one typed [`Op`] when the
//! module is loaded. Executing an instruction then matches on an enum and
//! never looks at a string.
//!
//! Decoding is also where the emulator says what it cannot run: an
//! instruction, a modifier that changes the meaning, a type or an operand
//! shape it does not implement is an error here, located at its PTX line
//! by [`crate::program`], rather than a fault in the middle of a launch.
//! Modifiers that do not change the result in this model (cache hints,
//! `.volatile`, memory orderings and scopes, `.uni`, `.aligned`, `.approx`
//! on the transcendental functions) are accepted and ignored.
//!
//! The opcode families are decoded by [`arith`] (integer and float
//! arithmetic, comparisons, conversions, bit manipulation), [`memory`]
//! (loads, stores, atomics, address conversions, asynchronous copies and
//! mbarriers) and [`control`] (branches, calls, barriers, warp collectives
//! and the tensor instructions).

mod arith;
mod control;
mod memory;
mod tcgen05;
pub mod texture;

pub use crate::error::DecodeError;
use crate::memory::Space;
use crate::ops::bits::PrmtMode;
use crate::program::{Kind, Operand, Ty};
use crate::rounding::Dir;

/// A decoded instruction: what to do, with every modifier that matters in
/// typed form. Operands stay in [`crate::program::Inst::args`], in the
/// order the PTX wrote them.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `mov d, a`.
    Mov(Ty),
    /// `mov.b64 %rd, {%r1, %r2}`: the sources are the parts, lowest first.
    Pack(Ty),
    /// `mov.b64 {%r1, %r2}, %rd`: the destinations are the parts.
    Unpack(Ty),
    /// `ld`, `ldu` (a vector destination reads consecutive elements).
    Ld {
        ty: Ty,
        space: Option<Space>,
        /// A strong load (`.volatile`, `.relaxed`, `.acquire`): how a
        /// thread polls a flag that other blocks set, so in a cooperative
        /// launch it lets the others run first.
        poll: bool,
    },
    /// `st` (a vector source writes consecutive elements).
    St {
        ty: Ty,
        space: Option<Space>,
    },
    /// Integer `add sub mul.lo mul.hi div rem and or xor min max`.
    Int {
        op: IntOp,
        ty: Ty,
        sat: bool,
    },
    /// Integer `mul.wide`: the full product, twice as wide.
    MulWide(Ty),
    /// Integer `mad.lo/.hi/.wide`; `sat` is `mad.hi.sat.s32`.
    Mad {
        ty: Ty,
        half: Half,
        sat: bool,
    },
    /// `sad d, a, b, c`: `c + |a - b|`.
    Sad(Ty),
    /// Integer `add`/`min`/`max` lane by lane: the two 16-bit halves of a
    /// 32-bit register (`.u16x2`, `.s16x2`, `lane` 16 bits) or one 32-bit
    /// lane; `relu` makes a negative lane 0 (`max.s32.relu`).
    IntLanes {
        op: IntOp,
        lane: Ty,
        relu: bool,
    },
    /// A SIMD video instruction (`vabsdiff4.u32.u32.u32.add d, a, b, c`).
    Video(crate::ops::int::Video),
    /// `mul24.{hi,lo}` and (`add`) `mad24.{hi,lo}[.sat]` on `.u32`/`.s32`.
    Mul24 {
        hi: bool,
        signed: bool,
        add: bool,
        sat: bool,
    },
    /// `add.cc`, `addc[.cc]` and (`sub`) `sub.cc`, `subc[.cc]`: with the
    /// thread's carry flag in (`carry_in`) and out (`carry_out`).
    AddCarry {
        sub: bool,
        carry_in: bool,
        carry_out: bool,
        ty: Ty,
    },
    /// `mad.cc.{lo,hi}` and `madc[.cc].{lo,hi}`.
    MadCarry {
        hi: bool,
        carry_in: bool,
        carry_out: bool,
        ty: Ty,
    },
    /// Float `add sub mul div`.
    Float {
        op: Arith,
        ty: Ty,
        fl: FloatMods,
    },
    /// `div.approx[.ftz].f32` (`div.full.f32` is [`Op::Float`]: see
    /// `ops::div_approx`).
    DivApprox {
        ftz: bool,
    },
    /// Float `min`, `max`.
    FloatMinMax {
        max: bool,
        ty: Ty,
        fl: FloatMods,
    },
    /// Float `fma`, and `mad` on floats (the same instruction).
    Fma {
        ty: Ty,
        fl: FloatMods,
    },
    /// `shl`, `shr`.
    Shift {
        left: bool,
        ty: Ty,
    },
    /// Integer `not cnot neg abs popc clz brev`.
    IntUnary {
        op: IntUnOp,
        ty: Ty,
    },
    /// Float `neg`, `abs`: the sign bit only (after `.ftz` of the input).
    FloatSign {
        neg: bool,
        ty: Ty,
        ftz: bool,
    },
    /// Float `sqrt rsqrt rcp ex2 lg2 sin cos tanh`.
    FloatUnary {
        op: FloatUnOp,
        ty: Ty,
        fl: FloatMods,
    },
    Copysign(Ty),
    Bfe(Ty),
    Bfi(Ty),
    /// `prmt.b32`, in its default mode (`None`) or a special one.
    Prmt(Option<PrmtMode>),
    /// `dp4a.atype.btype`: whether each operand's bytes are signed.
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    /// `dp2a.{lo,hi}.atype.btype`.
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    /// `lop3.b32 d, a, b, c, lut`, and `lop3.OP.b32 d|p, a, b, c, lut, q`
    /// which also sets `p = (d != 0) OP q`.
    Lop3 {
        lut: u8,
        pred: Option<BoolOp>,
    },
    /// `fns.b32 d, mask, base, offset`.
    Fns,
    /// `bmsk.{clamp,wrap}.b32`.
    Bmsk {
        wrap: bool,
    },
    /// `szext.{clamp,wrap}.{u32,s32}`.
    Szext {
        wrap: bool,
        signed: bool,
    },
    /// 16-bit float arithmetic on one value (`.f16`, `.bf16`) or on both
    /// halves of a 32-bit register (`.f16x2`, `.bf16x2`), lane by lane;
    /// `ty` is the element type. `relu` is `fma.rn.relu`.
    Half {
        op: HalfOp,
        ty: Ty,
        packed: bool,
        fl: FloatMods,
        relu: bool,
    },
    /// `setp.CMP[.BOOL][.ftz].f16x2 p|q, a, b[, c]`: `p` compares the low
    /// halves and `q` the high ones, each combined with `c`.
    SetpPacked {
        cmp: Cmp,
        ty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    },
    /// `setp.CMP[.BOOL]`.
    Setp {
        cmp: Cmp,
        ty: Ty,
        ftz: bool,
        combine: Option<BoolOp>,
    },
    Selp(Ty),
    /// `slct.dtype.s32` / `slct[.ftz].dtype.f32 d, a, b, c`: `a` if
    /// `c >= 0`, else `b` (`float`: `c` is an `f32`).
    Slct {
        ty: Ty,
        float: bool,
        ftz: bool,
    },
    Cvt(Cvt),
    /// `cvt.rn[.relu][.satfinite].{f16x2,bf16x2}.f32 d, a, b`: `a` and `b`
    /// converted to 16-bit floats of type `elem` (round to nearest),
    /// `a`'s in the high half of `d` and `b`'s in the low half.
    CvtPack {
        elem: Ty,
        relu: bool,
        satfinite: bool,
    },
    /// `cvta.SPACE` (`to: false`) or `cvta.to.SPACE`.
    Cvta {
        ty: Ty,
        space: Space,
        to: bool,
    },
    Isspacep(Space),
    Atom(Atom),
    /// `atom.add.v2.f32` / `red.add.v4.f32`: `n` elements added one by one.
    VecAtomAdd {
        ty: Ty,
        n: u64,
        space: Option<Space>,
        red: bool,
    },
    /// `bra LABEL`: the instruction index it jumps to.
    Bra(usize),
    /// `call (rets), f, (args)`: the callee, and the caller's frame
    /// variables that become its return and parameter `.param`s.
    Call {
        callee: usize,
        frames: Vec<usize>,
    },
    /// `call (ret), vprintf, (fmt, buf)`: device `printf` (the frame
    /// variables of the result and the two arguments).
    Vprintf {
        frames: Vec<usize>,
    },
    /// `call (rets), %rd, (args), prototype`: the callee is the function
    /// whose address operand `at` holds, which must take `n_rets` results
    /// and `n_params` arguments (checked when it runs).
    CallIndirect {
        at: usize,
        n_rets: usize,
        n_params: usize,
        frames: Vec<usize>,
    },
    Ret,
    Exit,
    Trap,
    /// A call of `__assertfail`, which CUDA's `assert` makes when its
    /// condition is false: the kernel stops, as a `trap` does on the GPU.
    /// (The call is only made when the assertion fails, so a module with
    /// asserts runs as long as they hold.) `frames` holds its five
    /// `.param` arguments: the condition's text, the file, the line, the
    /// function and `sizeof(char)`, which the fault reports.
    AssertFail {
        frames: Vec<usize>,
    },
    /// `bar.sync`, `barrier.sync`, and `bar.red.OP` when `red` is set.
    Barrier {
        red: Option<BarRed>,
    },
    /// `bar.warp.sync`.
    WarpSync,
    /// `barrier.cluster.arrive`: the thread arrives at its cluster's
    /// barrier and goes on.
    ClusterArrive,
    /// `barrier.cluster.wait`: the thread waits until every thread of the
    /// cluster has arrived in the phase of its own arrival.
    ClusterWait,
    /// `mapa[.shared::cluster].{u32,u64} d, a, rank`: the address of the
    /// shared variable at `a` in the block of the cluster with that rank
    /// (`space`: `None` for generic addresses).
    Mapa {
        ty: Ty,
        space: Option<Space>,
    },
    Shfl(ShflMode),
    Vote(VoteMode),
    Activemask,
    /// `redux.sync.OP.TYPE`.
    Redux {
        op: AtomOp,
        ty: Ty,
    },
    /// `match.any.sync.TYPE` and `match.all.sync.TYPE` (`.b32`, `.b64`).
    Match {
        all: bool,
        ty: Ty,
    },
    /// The warp-wide tensor instructions (`exec/tensor.rs`).
    Tensor(Tensor),
    /// The `tcgen05` instructions one thread issues (`exec/tcgen05.rs`).
    Tcgen05(Tcgen05),
    Mbarrier {
        op: Mbar,
        space: Option<Space>,
    },
    /// `cp.async` of `size` bytes from global to shared memory; with
    /// `source_size`, only as many as the fourth operand says are read and
    /// the rest are zeros.
    CpAsync {
        size: u64,
        source_size: bool,
    },
    /// `cp.async.bulk.tensor.2d` through a tensor map (`crate::tma`):
    /// `load`, a box of the global matrix into shared memory, completing
    /// its bytes at an mbarrier; else the inverse, from shared memory.
    BulkTensor {
        load: bool,
    },
    /// `cp.async.bulk` of a byte count (the third operand) from `src` to
    /// `dst`; `mbar`: completing its bytes at the mbarrier of the fourth.
    Bulk {
        dst: Space,
        src: Space,
        mbar: bool,
    },
    /// Instructions with no effect in this model (fences, hints, and the
    /// `cp.async` group bookkeeping, since copies complete when issued).
    Nop,
    /// `shf.{l,r}.{wrap,clamp}.b32`.
    Shf {
        left: bool,
        wrap: bool,
    },
    Bfind {
        ty: Ty,
        shiftamt: bool,
    },
    Testp {
        class: FloatClass,
        ty: Ty,
    },
    /// `tex` on a texture object (`exec/texture.rs`).
    Tex(texture::Tex),
    /// `suld.b` / `sust.b` on a surface object.
    Surf(texture::Surf),
    /// Stands where an instruction failed to decode (with the reason), so
    /// that labels keep their indices; a function holding one never runs
    /// (its error is reported at load time), so this is never executed.
    Invalid(DecodeError),
}

/// Integer binary operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Min,
    Max,
}

/// The IEEE arithmetic operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

/// The 16-bit float operations (each rounds once, to nearest even).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    Fma,
    Min,
    Max,
    Neg,
    Abs,
}

impl HalfOp {
    /// How many source operands it reads.
    pub fn sources(self) -> usize {
        match self {
            HalfOp::Neg | HalfOp::Abs => 1,
            HalfOp::Fma => 3,
            _ => 2,
        }
    }
}

/// Integer unary operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntUnOp {
    Not,
    Cnot,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
}

/// Float unary operations that round (`sqrt`, `rcp`) or approximate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FloatUnOp {
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

/// The modifiers of float arithmetic.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct FloatMods {
    /// `.ftz`: `f32` subnormal inputs and results become signed zeros.
    pub ftz: bool,
    /// `.sat`: the result clamps to [0, 1].
    pub sat: bool,
    /// `.NaN` on `min`/`max`: a NaN operand gives NaN.
    pub nan: bool,
    /// `.rz`, `.rm`, `.rp`; `None` rounds to nearest.
    pub dir: Option<Dir>,
}

/// Which half of the double-width product `mad` adds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Half {
    Lo,
    Hi,
    Wide,
}

/// `setp`'s comparison.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned comparisons (`lo ls hi hs`).
    Lo,
    Ls,
    Hi,
    Hs,
    /// Float comparisons that are true when an operand is NaN.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// The Boolean operation that combines a predicate with a result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

impl BoolOp {
    /// `x OP c`.
    pub fn apply(self, x: bool, c: bool) -> bool {
        match self {
            BoolOp::And => x && c,
            BoolOp::Or => x || c,
            BoolOp::Xor => x ^ c,
        }
    }
}

/// The rounding modifier of a `cvt`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CvtRnd {
    /// None written: exact, or to nearest where it rounds.
    Default,
    /// `.rn`, `.rz`, `.rm`, `.rp`: to a float, in a direction.
    Rn,
    Rz,
    Rm,
    Rp,
    /// `.rni`, `.rzi`, `.rmi`, `.rpi`: to an integral value.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// A `cvt.RND.DST.SRC`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cvt {
    pub dst: Ty,
    pub src: Ty,
    pub rnd: CvtRnd,
    pub ftz: bool,
    pub sat: bool,
    /// `.satfinite` (to `f16`/`bf16`): an infinite result becomes the
    /// largest finite value of its sign.
    pub satfinite: bool,
}

/// `atom` and `red` (`red: true`, no destination) on a scalar, or
/// (`packed`) on both 16-bit floats of type `ty` in a 32-bit word
/// (`atom.add.noftz.f16x2`), each lane on its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    pub op: AtomOp,
    pub ty: Ty,
    pub space: Option<Space>,
    pub red: bool,
    pub packed: bool,
}

impl Atom {
    /// The type of the register operands and of the memory word.
    pub fn word(&self) -> Ty {
        if self.packed {
            Ty::B32
        } else {
            self.ty
        }
    }
}

/// The operation of an atomic or a warp reduction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Exch,
    Cas,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
}

/// What `bar.red` computes over the block's predicates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarRed {
    Popc,
    And,
    Or,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// The mbarrier operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mbar {
    Init,
    Arrive {
        expect_tx: bool,
    },
    /// `test_wait` and `try_wait` (with or without `.parity`).
    Wait,
    /// `expect_tx` (more transaction bytes for the current phase) and
    /// `complete_tx` (`complete`: bytes that have arrived).
    Tx {
        complete: bool,
    },
}

/// `testp`'s classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FloatClass {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

/// A warp-wide tensor instruction, with the shape checks done.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tensor {
    /// `wmma.load.{a,b,c}.sync.aligned.m16n16k16.{row,col}`: elements of
    /// `esize` bytes into `regs` registers.
    WmmaLoad {
        row: bool,
        esize: u64,
        regs: usize,
        space: Option<Space>,
    },
    /// `wmma.store.d...f32`.
    WmmaStore { row: bool, space: Option<Space> },
    /// `wmma.mma.sync.aligned.m16n16k16` with f16 (`bf16: false`) or bf16
    /// inputs and f32 C and D.
    WmmaMma { bf16: bool },
    /// `mma.sync.aligned.m16n8k16.row.col` likewise.
    Mma { bf16: bool },
    /// `wgmma.mma_async` `.m64n{n}k16` with f16 (`bf16: false`) or bf16
    /// A and B read through shared-memory matrix descriptors, f32
    /// accumulators; `neg_a`/`neg_b`: the operand's scale is -1.
    Wgmma {
        n: u32,
        bf16: bool,
        neg_a: bool,
        neg_b: bool,
    },
    /// `ldmatrix`/`stmatrix` `.m8n8.x{num}[.trans].b16`.
    Matrix {
        store: bool,
        num: usize,
        trans: bool,
        space: Option<Space>,
    },
    /// `tcgen05.alloc`: columns of the block's tensor memory, their
    /// address written to shared memory.
    TmemAlloc,
    /// `tcgen05.dealloc`.
    TmemDealloc,
    /// `tcgen05.relinquish_alloc_permit`: the block allocates no more.
    TmemRelinquish,
    /// `tcgen05.ld`/`tcgen05.st` `.32x32b.x{n}`: `n` columns of each
    /// thread's lane.
    TmemLoadStore { store: bool, n: u32 },
}

/// A `tcgen05` instruction one thread issues.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tcgen05 {
    /// `tcgen05.mma.cta_group::1.kind::{f16,tf32}` (`tf32`: the second).
    Mma { tf32: bool },
    /// `tcgen05.commit...mbarrier::arrive::one`: the mbarrier sees one
    /// arrival once the thread's MMAs are done (at once here).
    Commit,
    /// `tcgen05.cp` of `rows` rows (128, or 4 at lanes 0, 32, 64, 96) of
    /// `words` 32-bit columns from shared memory into tensor memory.
    Copy { rows: u32, words: u32 },
}

/// An instruction's modifiers as written, with the questions decoding asks
/// of them.
pub(crate) struct Mods<'a>(pub &'a [String]);

impl Mods<'_> {
    pub fn has(&self, m: &str) -> bool {
        self.0.iter().any(|x| x == m)
    }
    /// The types among the modifiers, in order (`cvt.f32.s32` has two).
    pub fn types(&self) -> Vec<Ty> {
        self.0.iter().filter_map(|m| Ty::parse(m)).collect()
    }
    /// The element type of a pair of 16-bit floats in one 32-bit register
    /// (`.f16x2`, `.bf16x2`) among the modifiers.
    pub fn packed_half(&self) -> Option<Ty> {
        self.0.iter().find_map(|m| {
            let kind = match m.as_str() {
                ".f16x2" => Kind::F,
                ".bf16x2" => Kind::BF,
                _ => return None,
            };
            Some(Ty { kind, bits: 16 })
        })
    }
    /// The last type: the instruction's type for all but `cvt`-like ones.
    pub fn last_type(&self) -> Option<Ty> {
        self.0.iter().rev().find_map(|m| Ty::parse(m))
    }
    /// The first state space among the modifiers.
    pub fn space(&self) -> Option<Space> {
        self.0.iter().find_map(|m| Space::from_mod(m))
    }
    /// The first directed rounding (`.rz`, `.rm`, `.rp`).
    pub fn dir(&self) -> Option<Dir> {
        self.0.iter().find_map(|m| match m.as_str() {
            ".rz" => Some(Dir::Zero),
            ".rm" => Some(Dir::Down),
            ".rp" => Some(Dir::Up),
            _ => None,
        })
    }
    /// The first of `choices` (written without the dot) that is present.
    pub fn first_of<T: Copy>(&self, choices: &[(&str, T)]) -> Option<T> {
        self.0.iter().find_map(|m| {
            let m = m.strip_prefix('.')?;
            choices.iter().find(|(n, _)| *n == m).map(|&(_, v)| v)
        })
    }
}

/// What decoding needs to know about the module's functions (for `call`).
#[derive(Clone, Debug)]
pub(crate) struct Callee {
    pub name: String,
    pub has_body: bool,
    pub n_rets: usize,
    pub n_params: usize,
}

/// One instruction to decode: the spelling and the resolved operands.
pub(crate) struct Parts<'a> {
    pub opcode: &'a str,
    pub mods: Mods<'a>,
    pub args: &'a [Operand],
    /// `opcode.mod1.mod2`, for messages.
    pub name: &'a str,
    pub funcs: &'a [Callee],
}

impl Parts<'_> {
    /// The instruction's type (its last type modifier), which it must have.
    pub fn ty(&self) -> Result<Ty, DecodeError> {
        let ty = self
            .mods
            .last_type()
            .ok_or_else(|| unsupported(format!("`{}` without a type", self.name)))?;
        if ty.bits > 64 {
            // Registers hold at most 64 bits here.
            return Err(unsupported(format!("`{}` (a 128-bit type)", self.name)));
        }
        Ok(ty)
    }
    /// An error naming the whole instruction.
    pub fn unsupported(&self) -> DecodeError {
        unsupported(format!("`{}`", self.name))
    }
    /// Checks the operands against `shapes`, in order (more operands than
    /// shapes are allowed: the extra ones are not read).
    pub fn expect(&self, shapes: &[Shape]) -> Result<(), DecodeError> {
        for (i, &shape) in shapes.iter().enumerate() {
            let Some(arg) = self.args.get(i) else {
                return Err(DecodeError::MissingOperands {
                    inst: self.name.to_string(),
                    got: self.args.len(),
                    reads: shapes.len(),
                });
            };
            if !shape.accepts(arg) {
                return Err(unsupported(format!(
                    "operand {} of `{}` ({})",
                    i + 1,
                    self.name,
                    shape.describe()
                )));
            }
        }
        Ok(())
    }
}

/// The shapes an operand may have where an instruction reads it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A destination: a register, or the sink `_`.
    Dst,
    /// A value: a register, `!%p`, a literal, a special register or the
    /// address of a symbol.
    Src,
    /// `[base+offset]` with a register or symbol base, or none.
    Addr,
    /// A destination, or a `{...}` vector of destinations.
    Dsts,
    /// A value, or a `{...}` vector of values (`_` skips an element).
    Srcs,
    /// A destination, or a `d|p` pair of destinations.
    DstPair,
}

impl Shape {
    fn accepts(self, o: &Operand) -> bool {
        match self {
            Shape::Dst => is_dst(o),
            Shape::Src => is_src(o),
            Shape::Addr => match o {
                Operand::Addr(base, _) => matches!(
                    base.as_deref(),
                    None | Some(Operand::Reg(_) | Operand::Sym(..))
                ),
                _ => false,
            },
            Shape::Dsts => match o {
                Operand::Vector(items) => !items.is_empty() && items.iter().all(is_dst),
                o => is_dst(o),
            },
            Shape::Srcs => match o {
                Operand::Vector(items) => {
                    !items.is_empty()
                        && items
                            .iter()
                            .all(|i| is_src(i) || matches!(i, Operand::Sink))
                }
                o => is_src(o),
            },
            Shape::DstPair => match o {
                Operand::Pair(a, b) => is_dst(a) && is_dst(b),
                o => is_dst(o),
            },
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Shape::Dst => "a destination that is not a register",
            Shape::Src => "a source that is not a register or a constant",
            Shape::Addr => "an address that is not [register+offset] or [symbol+offset]",
            Shape::Dsts => "a destination that is not a register or a vector of them",
            Shape::Srcs => "a source that is not a register, a constant or a vector of them",
            Shape::DstPair => "a destination that is not a register or a pair of them",
        }
    }
}

fn is_dst(o: &Operand) -> bool {
    matches!(o, Operand::Reg(_) | Operand::Sink)
}

fn is_src(o: &Operand) -> bool {
    matches!(
        o,
        Operand::Reg(_)
            | Operand::NotReg(_)
            | Operand::Imm(_)
            | Operand::FImm(_)
            | Operand::Special(_)
            | Operand::Sym(..)
            | Operand::Func(_)
    )
}

/// "`what` is not supported by the emulator".
pub(crate) fn unsupported(what: impl std::fmt::Display) -> DecodeError {
    DecodeError::Unsupported {
        what: what.to_string(),
    }
}

/// Decodes one instruction.
pub(crate) fn decode(p: &Parts) -> Result<Op, DecodeError> {
    if let Some(op) = arith::decode(p)? {
        return Ok(op);
    }
    if let Some(op) = memory::decode(p)? {
        return Ok(op);
    }
    if let Some(op) = control::decode(p)? {
        return Ok(op);
    }
    if let Some(op) = texture::decode(p)? {
        return Ok(op);
    }
    Err(unsupported(format!("the instruction `{}`", p.name)))
}
