//! Asynchronous copies, memory barriers, tensor-core operations and the
//! calls into the CUDA runtime's device library (`vprintf`, `__assertfail`):
//! the instructions of the `accel` format.
//!
//! They share one format because they share one shape: a handful of
//! compile-time modifiers (a layout, a size, a fragment kind) and a flat list
//! of value operands whose length the modifiers fix. A matrix fragment lives
//! in registers, so it is simply several values: `wmma_load` has eight
//! results and `wmma_mma` takes twenty-four operands. Everything about an
//! operation's operands and results (how many, which types, which spaces)
//! is answered here, once, so the parser, the verifier, the builder and the
//! back end cannot disagree.

use super::instructions::Opcode;
use super::modifier_error::{ModifierError, ModifierForm, ModifierWord};
use super::texture::{SurfOp, TexOp};
use super::types::{AddrSpace, Type};
use core::fmt;

/// The cache policy of `cp_async`: `ca` caches in L1 and L2 (4, 8 or 16
/// bytes), `cg` only in L2 (16 bytes only).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CpCache {
    Ca,
    Cg,
}

/// Which operand of `D = A * B + C` a `wmma_load` reads.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Frag {
    A,
    B,
    C,
}

/// How a matrix tile is laid out in memory: `row` means element `(r, c)`
/// is at `ptr[r * ldm + c]`, `col` at `ptr[c * ldm + r]`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MatLayout {
    Row,
    Col,
}

/// The element type of a fragment in memory. A and B are `f16` or `bf16`
/// (two per 32-bit register); C and D are `f32` (one per register).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MmaType {
    F16,
    Bf16,
    F32,
}

/// The `kind` of a `tcgen05.mma`: what A and B hold (`f16` covers f16
/// and bf16, which the instruction descriptor tells apart; `tf32` is
/// 32-bit floats read as tf32). D is f32 in tensor memory either way.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TcKind {
    F16,
    Tf32,
}

/// The shape of a `tcgen05.cp` (shared memory to tensor memory): rows
/// (lanes) by bits per row.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TcCpShape {
    S128x256b,
    S128x128b,
    S4x256b,
}

impl TcCpShape {
    /// The PTX spelling without the dot (`128x256b`).
    pub fn name(self) -> &'static str {
        match self {
            TcCpShape::S128x256b => "128x256b",
            TcCpShape::S128x128b => "128x128b",
            TcCpShape::S4x256b => "4x256b",
        }
    }

    pub fn from_name(w: &str) -> Option<TcCpShape> {
        [
            TcCpShape::S128x256b,
            TcCpShape::S128x128b,
            TcCpShape::S4x256b,
        ]
        .into_iter()
        .find(|s| s.name() == w)
    }
}

/// The `N` of the `wgmma.mma_async.m64nNk16` forms kernelc selects. Each
/// thread of the warpgroup holds `N / 2` f32 accumulators.
pub const WGMMA_NS: &[u16] = &[64, 128, 256];

/// The `.32x32b.xN` repeat counts of `tcgen05.ld` / `tcgen05.st` kernelc
/// selects: each thread moves `N` 32-bit registers.
pub const TCGEN05_XS: &[u8] = &[1, 2, 4, 8, 16, 32];

/// An `accel` operation with its compile-time modifiers.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AccelOp {
    /// `cp_async ca 16 dst, src`: copy `size` bytes from global to shared
    /// memory without passing through registers. Completes asynchronously;
    /// see `cp_async_commit` / `cp_async_wait`.
    CpAsync { cache: CpCache, size: u8 },
    /// Closes the current group of this thread's `cp_async`s.
    CpAsyncCommit,
    /// Waits until at most `n` of this thread's committed groups are pending.
    CpAsyncWait { n: u8 },
    /// Waits for every `cp_async` of this thread, committed or not.
    CpAsyncWaitAll,
    /// `mbarrier_init bar, count`: an 8-byte shared barrier expecting `count` arrivals.
    MbarInit,
    /// `v = mbarrier_arrive bar`: one arrival; `v` is the phase token.
    MbarArrive,
    /// `v = mbarrier_arrive_expect_tx bar, bytes`: expect `bytes` of
    /// asynchronous transactions, then arrive (sm_90).
    MbarArriveExpectTx,
    /// `p = mbarrier_test_wait bar, token`: whether the phase of `token` completed.
    MbarTestWait,
    /// `p = mbarrier_try_wait_parity bar, parity`: whether the phase with
    /// this parity completed (sm_90; may wait a little before answering).
    MbarTryWaitParity,
    /// Orders this thread's generic-proxy shared-memory accesses before
    /// later async-proxy ones (sm_90).
    FenceProxyAsync,
    /// `v0..vN = wmma_load a row f16 ptr, ldm`: a 16x16x16 fragment, warp-wide.
    WmmaLoad {
        frag: Frag,
        layout: MatLayout,
        ty: MmaType,
    },
    /// `d0..d7 = wmma_mma row col f16 a.., b.., c..`: `D = A * B + C`, f32 accumulate.
    WmmaMma {
        a: MatLayout,
        b: MatLayout,
        ty: MmaType,
    },
    /// `wmma_store row ptr, d0..d7, ldm`: stores an f32 accumulator tile.
    WmmaStore { layout: MatLayout },
    /// `d0..d3 = mma f16 a0..a3, b0, b1, c0..c3`: `mma.sync.m16n8k16.row.col`, f32 accumulate.
    Mma { ty: MmaType },
    /// `v.. = ldmatrix x4 [trans] ptr`: loads `num` 8x8 b16 matrices from
    /// shared memory, each lane giving one row address.
    Ldmatrix { num: u8, trans: bool },
    /// `stmatrix x4 [trans] ptr, v..`: the inverse of `ldmatrix` (sm_90).
    Stmatrix { num: u8, trans: bool },
    /// `tma_load dim2 dst, tmap, bar, c0, c1`: a TMA copy of the box at the
    /// coordinates of the tensor map `tmap` (a 128-byte `CUtensorMap`) into
    /// shared memory at `dst`; the mbarrier `bar` counts its bytes down
    /// (`cp.async.bulk.tensor...mbarrier::complete_tx::bytes`, sm_90).
    TmaLoad { dims: u8 },
    /// `tma_store dim2 tmap, src, c0, c1`: the inverse, from shared memory to
    /// the tensor in global memory, tracked by bulk groups (sm_90).
    TmaStore { dims: u8 },
    /// Closes this thread's current bulk group (`cp.async.bulk.commit_group`).
    BulkCommit,
    /// `cp_async_bulk_wait [read] n`: waits until at most `n` of this
    /// thread's bulk groups are pending; with `read`, only until their
    /// sources have been read (so the shared buffer may be reused).
    BulkWait { n: u8, read: bool },
    /// `v = mapa p, rank`: the address of the same shared variable in the
    /// block of the cluster with this rank (distributed shared memory, sm_90).
    Mapa,
    /// `cluster_arrive [relaxed]`: this thread arrives at the cluster
    /// barrier; without `relaxed` it releases its earlier memory accesses.
    ClusterArrive { relaxed: bool },
    /// Waits until every thread of the cluster arrived (with acquire).
    ClusterWait,
    /// Orders register accesses to the accumulators before the next
    /// `wgmma_mma` (sm_90a, warpgroup-wide).
    WgmmaFence,
    /// `d.. = wgmma_mma n128 f16 [nega] [negb] [transa] [transb] descA, descB,
    /// scale_d, c..`: `D = A * B + (scale_d ? C : 0)` for a 64xNx16 tile,
    /// A and B read from shared memory through 64-bit descriptors, `N / 2`
    /// f32 accumulators per thread (sm_90a, asynchronous).
    WgmmaMma {
        n: u16,
        ty: MmaType,
        neg_a: bool,
        neg_b: bool,
        trans_a: bool,
        trans_b: bool,
    },
    /// Closes the warpgroup's pending `wgmma_mma`s into a group.
    WgmmaCommit,
    /// Waits until at most `n` wgmma groups are pending.
    WgmmaWait { n: u8 },
    /// `setmaxnreg inc 232`: raises (or `dec` lowers) the registers each
    /// thread of the warpgroup may use (sm_90a, sm_100a).
    Setmaxnreg { inc: bool, regs: u16 },
    /// `tcgen05_alloc slot, ncols`: allocates `ncols` columns of tensor
    /// memory and writes their address to the shared `slot` (sm_100a).
    Tcgen05Alloc,
    /// Gives up the right to allocate tensor memory again.
    Tcgen05Relinquish,
    /// `tcgen05_dealloc taddr, ncols`: frees what `tcgen05_alloc` gave.
    Tcgen05Dealloc,
    /// `tcgen05_mma f16 d, descA, descB, idesc, accumulate`: `D (tmem) =
    /// A * B (+ D)`, shapes and types from the instruction descriptor.
    Tcgen05Mma { kind: TcKind },
    /// `tcgen05_commit bar`: arrive at an mbarrier once this thread's
    /// earlier tcgen05 operations complete.
    Tcgen05Commit,
    /// `v.. = tcgen05_ld x16 taddr`: `.32x32b.xN`, N 32-bit registers from
    /// tensor memory (complete after `tcgen05_wait ld`).
    Tcgen05Ld { num: u8 },
    /// `tcgen05_st x16 taddr, v..`: the inverse of `tcgen05_ld`.
    Tcgen05St { num: u8 },
    /// `tcgen05_wait ld` / `tcgen05_wait st`: waits for this thread's
    /// tensor-memory loads / stores.
    Tcgen05Wait { st: bool },
    /// `tcgen05_cp 128x256b taddr, sdesc`: copies a tile described by a
    /// shared-memory descriptor into tensor memory.
    Tcgen05Cp { shape: TcCpShape },
    /// `tcgen05_fence before` / `after`: orders tcgen05 operations around
    /// a thread synchronization (`before_thread_sync` / `after_thread_sync`).
    Tcgen05Fence { after: bool },
    /// `v = vprintf fmt, buf`: device `printf`, a call of the CUDA
    /// runtime's `vprintf`. `fmt` is the format string, `buf` the argument
    /// buffer (each argument after C's default promotions, at the next
    /// offset aligned to its size; null when there are none); `v` is what
    /// `vprintf` returns. Both are generic addresses, as the runtime takes
    /// them.
    Vprintf,
    /// `assertfail msg, file, line, function, charsize`: a failed `assert`,
    /// a call of the CUDA runtime's `__assertfail` (the condition's text,
    /// the source file, the line, the enclosing function's name and
    /// `sizeof(char)`). The kernel stops with an error.
    AssertFail,
    /// `v0..v3 = tex ... h, coords..`: a texture fetch (`texture.rs`).
    Tex(TexOp),
    /// `v.. = suld ... h, coords..`: a surface read.
    Suld(SurfOp),
    /// `sust ... h, coords.., v..`: a surface write.
    Sust(SurfOp),
}

/// What an operand of an `accel` instruction must be.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OperandKind {
    /// A pointer into one of these spaces.
    Ptr(&'static [AddrSpace]),
    /// A value of exactly this type.
    Ty(Type),
}

const SHARED: &[AddrSpace] = &[AddrSpace::Shared, AddrSpace::Generic];
const GLOBAL: &[AddrSpace] = &[AddrSpace::Global, AddrSpace::Generic];
const TILE: &[AddrSpace] = &[AddrSpace::Global, AddrSpace::Shared, AddrSpace::Generic];
/// A tensor map: a `__grid_constant__` parameter (param space, or its
/// generic address) or one in global memory.
const TENSOR_MAP: &[AddrSpace] = &[AddrSpace::Generic, AddrSpace::Param, AddrSpace::Global];
/// The runtime's functions take generic addresses only: a pointer into any
/// space, converted (memory-space inference leaves them generic).
const GENERIC: &[AddrSpace] = &[AddrSpace::Generic];
/// Tensor memory has no generic window: a tcgen05 address is `ptr<tmem>`.
const TMEM: &[AddrSpace] = &[AddrSpace::Tmem];

impl MmaType {
    fn name(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::F32 => "f32",
        }
    }
}

impl MatLayout {
    fn name(self) -> &'static str {
        match self {
            MatLayout::Row => "row",
            MatLayout::Col => "col",
        }
    }
}

/// Registers of a 16x16x16 WMMA fragment. f16 A and B take eight 32-bit
/// registers (PTX specifies them so; the fragment holds each element
/// twice on some GPUs), bf16 ones four.
pub fn wmma_frag_len(frag: Frag, ty: MmaType) -> usize {
    match (frag, ty) {
        (Frag::C, _) => 8,
        (_, MmaType::Bf16) => 4,
        _ => 8,
    }
}

impl AccelOp {
    /// The opcode this operation is printed with.
    pub fn opcode(self) -> Opcode {
        use AccelOp::*;
        match self {
            CpAsync { .. } => Opcode::CpAsync,
            CpAsyncCommit => Opcode::CpAsyncCommit,
            CpAsyncWait { .. } => Opcode::CpAsyncWait,
            CpAsyncWaitAll => Opcode::CpAsyncWaitAll,
            MbarInit => Opcode::MbarrierInit,
            MbarArrive => Opcode::MbarrierArrive,
            MbarArriveExpectTx => Opcode::MbarrierArriveExpectTx,
            MbarTestWait => Opcode::MbarrierTestWait,
            MbarTryWaitParity => Opcode::MbarrierTryWaitParity,
            FenceProxyAsync => Opcode::FenceProxyAsync,
            WmmaLoad { .. } => Opcode::WmmaLoad,
            WmmaMma { .. } => Opcode::WmmaMma,
            WmmaStore { .. } => Opcode::WmmaStore,
            Mma { .. } => Opcode::Mma,
            Ldmatrix { .. } => Opcode::Ldmatrix,
            Stmatrix { .. } => Opcode::Stmatrix,
            TmaLoad { .. } => Opcode::TmaLoad,
            TmaStore { .. } => Opcode::TmaStore,
            BulkCommit => Opcode::CpAsyncBulkCommit,
            BulkWait { .. } => Opcode::CpAsyncBulkWait,
            Mapa => Opcode::Mapa,
            ClusterArrive { .. } => Opcode::ClusterArrive,
            ClusterWait => Opcode::ClusterWait,
            WgmmaFence => Opcode::WgmmaFence,
            WgmmaMma { .. } => Opcode::WgmmaMma,
            WgmmaCommit => Opcode::WgmmaCommit,
            WgmmaWait { .. } => Opcode::WgmmaWait,
            Setmaxnreg { .. } => Opcode::Setmaxnreg,
            Tcgen05Alloc => Opcode::Tcgen05Alloc,
            Tcgen05Relinquish => Opcode::Tcgen05Relinquish,
            Tcgen05Dealloc => Opcode::Tcgen05Dealloc,
            Tcgen05Mma { .. } => Opcode::Tcgen05Mma,
            Tcgen05Commit => Opcode::Tcgen05Commit,
            Tcgen05Ld { .. } => Opcode::Tcgen05Ld,
            Tcgen05St { .. } => Opcode::Tcgen05St,
            Tcgen05Wait { .. } => Opcode::Tcgen05Wait,
            Tcgen05Cp { .. } => Opcode::Tcgen05Cp,
            Tcgen05Fence { .. } => Opcode::Tcgen05Fence,
            Vprintf => Opcode::Vprintf,
            AssertFail => Opcode::AssertFail,
            Tex(_) => Opcode::Tex,
            Suld(_) => Opcode::Suld,
            Sust(_) => Opcode::Sust,
        }
    }

    /// Whether this is one of the sm_90a warpgroup operations (`wgmma`).
    pub fn is_wgmma(self) -> bool {
        use AccelOp::*;
        matches!(
            self,
            WgmmaFence | WgmmaMma { .. } | WgmmaCommit | WgmmaWait { .. }
        )
    }

    /// Whether this is one of the Blackwell tensor-memory operations
    /// (`tcgen05`, sm_100a and sm_103a).
    pub fn is_tcgen05(self) -> bool {
        use AccelOp::*;
        matches!(
            self,
            Tcgen05Alloc
                | Tcgen05Relinquish
                | Tcgen05Dealloc
                | Tcgen05Mma { .. }
                | Tcgen05Commit
                | Tcgen05Ld { .. }
                | Tcgen05St { .. }
                | Tcgen05Wait { .. }
                | Tcgen05Cp { .. }
                | Tcgen05Fence { .. }
        )
    }

    /// The types of the results, in order.
    pub fn result_types(self) -> Vec<Type> {
        use AccelOp::*;
        match self {
            MbarArrive | MbarArriveExpectTx => vec![Type::I64],
            MbarTestWait | MbarTryWaitParity => vec![Type::I1],
            WmmaLoad { frag, ty, .. } => {
                let t = if frag == Frag::C {
                    Type::F32
                } else {
                    Type::I32
                };
                vec![t; wmma_frag_len(frag, ty)]
            }
            WmmaMma { .. } => vec![Type::F32; 8],
            Mma { .. } => vec![Type::F32; 4],
            Ldmatrix { num, .. } => vec![Type::I32; usize::from(num)],
            Mapa => vec![Type::Ptr(AddrSpace::SharedCluster)],
            WgmmaMma { n, .. } => vec![Type::F32; usize::from(n / 2)],
            Tcgen05Ld { num } => vec![Type::I32; usize::from(num)],
            Vprintf => vec![Type::I32],
            Tex(t) => t.result_types(),
            Suld(s) => vec![s.elem(); usize::from(s.vec)],
            _ => Vec::new(),
        }
    }

    /// What each operand must be, in order.
    pub fn operand_kinds(self) -> Vec<OperandKind> {
        use AccelOp::*;
        use OperandKind::{Ptr, Ty};
        let i32s = |n| vec![Ty(Type::I32); n];
        let f32s = |n| vec![Ty(Type::F32); n];
        match self {
            CpAsync { .. } => vec![Ptr(SHARED), Ptr(GLOBAL)],
            CpAsyncCommit
            | CpAsyncWait { .. }
            | CpAsyncWaitAll
            | FenceProxyAsync
            | BulkCommit
            | BulkWait { .. }
            | ClusterArrive { .. }
            | ClusterWait => Vec::new(),
            MbarInit | MbarArriveExpectTx | MbarTryWaitParity => {
                vec![Ptr(SHARED), Ty(Type::I32)]
            }
            MbarArrive => vec![Ptr(SHARED)],
            MbarTestWait => vec![Ptr(SHARED), Ty(Type::I64)],
            WmmaLoad { .. } => vec![Ptr(TILE), Ty(Type::I32)],
            WmmaMma { ty, .. } => {
                let mut v = i32s(wmma_frag_len(Frag::A, ty));
                v.extend(i32s(wmma_frag_len(Frag::B, ty)));
                v.extend(f32s(8));
                v
            }
            WmmaStore { .. } => {
                let mut v = vec![Ptr(TILE)];
                v.extend(f32s(8));
                v.push(Ty(Type::I32));
                v
            }
            Mma { .. } => {
                let mut v = i32s(6);
                v.extend(f32s(4));
                v
            }
            Ldmatrix { .. } => vec![Ptr(SHARED)],
            Stmatrix { num, .. } => {
                let mut v = vec![Ptr(SHARED)];
                v.extend(i32s(usize::from(num)));
                v
            }
            TmaLoad { dims } => {
                let mut v = vec![Ptr(SHARED), Ptr(TENSOR_MAP), Ptr(SHARED)];
                v.extend(i32s(usize::from(dims)));
                v
            }
            TmaStore { dims } => {
                let mut v = vec![Ptr(TENSOR_MAP), Ptr(SHARED)];
                v.extend(i32s(usize::from(dims)));
                v
            }
            Mapa => vec![Ptr(SHARED), Ty(Type::I32)],
            WgmmaFence | WgmmaCommit | WgmmaWait { .. } | Setmaxnreg { .. } => Vec::new(),
            WgmmaMma { n, .. } => {
                let mut v = vec![Ty(Type::I64), Ty(Type::I64), Ty(Type::I1)];
                v.extend(f32s(usize::from(n / 2)));
                v
            }
            Tcgen05Alloc => vec![Ptr(SHARED), Ty(Type::I32)],
            Tcgen05Relinquish | Tcgen05Wait { .. } | Tcgen05Fence { .. } => Vec::new(),
            Tcgen05Dealloc => vec![Ptr(TMEM), Ty(Type::I32)],
            Tcgen05Mma { .. } => vec![
                Ptr(TMEM),
                Ty(Type::I64),
                Ty(Type::I64),
                Ty(Type::I32),
                Ty(Type::I1),
            ],
            Tcgen05Commit => vec![Ptr(SHARED)],
            Tcgen05Ld { .. } => vec![Ptr(TMEM)],
            Tcgen05St { num } => {
                let mut v = vec![Ptr(TMEM)];
                v.extend(i32s(usize::from(num)));
                v
            }
            Tcgen05Cp { .. } => vec![Ptr(TMEM), Ty(Type::I64)],
            Vprintf => vec![Ptr(GENERIC), Ptr(GENERIC)],
            AssertFail => vec![
                Ptr(GENERIC),
                Ptr(GENERIC),
                Ty(Type::I32),
                Ptr(GENERIC),
                Ty(Type::I64),
            ],
            Tex(t) => t.operand_types().into_iter().map(Ty).collect(),
            Suld(s) => s.address_types().into_iter().map(Ty).collect(),
            Sust(s) => {
                let mut v: Vec<OperandKind> = s.address_types().into_iter().map(Ty).collect();
                v.extend(vec![Ty(s.elem()); usize::from(s.vec)]);
                v
            }
        }
    }

    /// Whether the result depends on the other lanes of the warp (the
    /// operation is `.sync.aligned` in PTX: every lane runs it together).
    pub fn is_warp_collective(self) -> bool {
        use AccelOp::*;
        matches!(
            self,
            WmmaLoad { .. }
                | WmmaMma { .. }
                | WmmaStore { .. }
                | Mma { .. }
                | Ldmatrix { .. }
                | Stmatrix { .. }
        )
    }

    /// Whether the operation only computes its results from its operands
    /// (so an unused one may be deleted). Everything that touches memory,
    /// waits, or orders memory must stay. A texture is read-only while a
    /// kernel runs, so a fetch is pure; a surface read is not, since a
    /// surface write may change what it reads.
    pub fn is_pure(self) -> bool {
        matches!(
            self,
            AccelOp::WmmaMma { .. } | AccelOp::Mma { .. } | AccelOp::Mapa | AccelOp::Tex(_)
        )
    }

    /// Whether the operation reads memory through its first operand (the
    /// runtime calls read strings through their pointers, and `vprintf`
    /// its buffer and the strings its `%s` arguments point to).
    pub fn reads_memory(self) -> bool {
        use AccelOp::*;
        matches!(
            self,
            CpAsync { .. }
                | WmmaLoad { .. }
                | Ldmatrix { .. }
                | MbarArrive
                | MbarArriveExpectTx
                | MbarTestWait
                | MbarTryWaitParity
                | TmaStore { .. }
                | ClusterWait
                | Tcgen05Commit
                | Vprintf
                | AssertFail
        )
    }

    /// Whether the operation writes memory (so a pass must treat it as a
    /// clobber of anything its pointer may reach).
    pub fn writes_memory(self) -> bool {
        use AccelOp::*;
        matches!(
            self,
            CpAsync { .. }
                | MbarInit
                | MbarArrive
                | MbarArriveExpectTx
                | WmmaStore { .. }
                | Stmatrix { .. }
                | TmaLoad { .. }
                | TmaStore { .. }
                | BulkWait { .. }
                | ClusterArrive { .. }
                | ClusterWait
                | Tcgen05Alloc
                | Tcgen05Commit
        )
    }

    /// The modifiers printed between the opcode and the operands.
    pub fn modifiers(self) -> Vec<String> {
        use AccelOp::*;
        let s = |x: &str| x.to_string();
        match self {
            CpAsync { cache, size } => {
                let c = if cache == CpCache::Ca { "ca" } else { "cg" };
                vec![s(c), size.to_string()]
            }
            CpAsyncWait { n } => vec![n.to_string()],
            WmmaLoad { frag, layout, ty } => {
                let f = match frag {
                    Frag::A => "a",
                    Frag::B => "b",
                    Frag::C => "c",
                };
                vec![s(f), s(layout.name()), s(ty.name())]
            }
            WmmaMma { a, b, ty } => vec![s(a.name()), s(b.name()), s(ty.name())],
            WmmaStore { layout } => vec![s(layout.name())],
            Mma { ty } => vec![s(ty.name())],
            Ldmatrix { num, trans } | Stmatrix { num, trans } => {
                let mut v = vec![format!("x{num}")];
                if trans {
                    v.push(s("trans"));
                }
                v
            }
            TmaLoad { dims } | TmaStore { dims } => vec![format!("dim{dims}")],
            BulkWait { n, read } => {
                let mut v = Vec::new();
                if read {
                    v.push(s("read"));
                }
                v.push(n.to_string());
                v
            }
            ClusterArrive { relaxed: true } => vec![s("relaxed")],
            WgmmaMma {
                n,
                ty,
                neg_a,
                neg_b,
                trans_a,
                trans_b,
            } => {
                let mut v = vec![format!("n{n}"), s(ty.name())];
                for (on, w) in [
                    (neg_a, "nega"),
                    (neg_b, "negb"),
                    (trans_a, "transa"),
                    (trans_b, "transb"),
                ] {
                    if on {
                        v.push(s(w));
                    }
                }
                v
            }
            WgmmaWait { n } => vec![n.to_string()],
            Setmaxnreg { inc, regs } => {
                vec![s(if inc { "inc" } else { "dec" }), regs.to_string()]
            }
            Tcgen05Mma { kind } => vec![s(match kind {
                TcKind::F16 => "f16",
                TcKind::Tf32 => "tf32",
            })],
            Tcgen05Ld { num } | Tcgen05St { num } => vec![format!("x{num}")],
            Tcgen05Wait { st } => vec![s(if st { "st" } else { "ld" })],
            // `s128x256b`: the IR lexer would split a word that starts with digits.
            Tcgen05Cp { shape } => vec![format!("s{}", shape.name())],
            Tcgen05Fence { after } => vec![s(if after { "after" } else { "before" })],
            Tex(t) => t.modifiers(),
            Suld(x) | Sust(x) => x.modifiers(),
            _ => Vec::new(),
        }
    }

    /// Parses the modifiers of `op` (the words [`AccelOp::modifiers`] prints).
    // Long: one arm per accelerator opcode, the inverse of `modifiers`
    // above arm for arm, so that the two can be read side by side.
    pub fn from_modifiers(op: Opcode, words: &[&str]) -> Result<AccelOp, ModifierError> {
        use AccelOp::*;
        let word = |expected: ModifierWord, found: &str| ModifierError::Word {
            expected,
            found: found.to_string(),
        };
        let layout = |w: &str| match w {
            "row" => Ok(MatLayout::Row),
            "col" => Ok(MatLayout::Col),
            _ => Err(word(ModifierWord::Layout, w)),
        };
        let ty = |w: &str| match w {
            "f16" => Ok(MmaType::F16),
            "bf16" => Ok(MmaType::Bf16),
            "f32" => Ok(MmaType::F32),
            _ => Err(word(ModifierWord::MmaType, w)),
        };
        let want = |n: usize| {
            if words.len() == n {
                Ok(())
            } else {
                Err(ModifierError::Count {
                    op,
                    expected: n,
                    found: words.len(),
                })
            }
        };
        let x = |w: &str| match w {
            "x1" => Ok(1),
            "x2" => Ok(2),
            "x4" => Ok(4),
            _ => Err(word(ModifierWord::MatrixCount, w)),
        };
        let matrices = |words: &[&str]| -> Result<(u8, bool), ModifierError> {
            match words {
                [n] => Ok((x(n)?, false)),
                [n, "trans"] => Ok((x(n)?, true)),
                _ => Err(ModifierError::Form {
                    op,
                    form: ModifierForm::MatrixCountMaybeTrans,
                }),
            }
        };
        Ok(match op {
            Opcode::CpAsync => {
                want(2)?;
                let cache = match words[0] {
                    "ca" => CpCache::Ca,
                    "cg" => CpCache::Cg,
                    w => return Err(word(ModifierWord::CpCache, w)),
                };
                let size = match words[1] {
                    "4" => 4,
                    "8" => 8,
                    "16" => 16,
                    w => {
                        return Err(ModifierError::CopySize {
                            found: w.to_string(),
                        })
                    }
                };
                CpAsync { cache, size }
            }
            Opcode::CpAsyncWait => {
                want(1)?;
                let n = words[0]
                    .parse::<u8>()
                    .map_err(|_| word(ModifierWord::GroupCount, words[0]))?;
                CpAsyncWait { n }
            }
            Opcode::WmmaLoad => {
                want(3)?;
                let frag = match words[0] {
                    "a" => Frag::A,
                    "b" => Frag::B,
                    "c" => Frag::C,
                    w => return Err(word(ModifierWord::Fragment, w)),
                };
                WmmaLoad {
                    frag,
                    layout: layout(words[1])?,
                    ty: ty(words[2])?,
                }
            }
            Opcode::WmmaMma => {
                want(3)?;
                WmmaMma {
                    a: layout(words[0])?,
                    b: layout(words[1])?,
                    ty: ty(words[2])?,
                }
            }
            Opcode::WmmaStore => {
                want(1)?;
                WmmaStore {
                    layout: layout(words[0])?,
                }
            }
            Opcode::Mma => {
                want(1)?;
                Mma { ty: ty(words[0])? }
            }
            Opcode::Ldmatrix => {
                let (num, trans) = matrices(words)?;
                Ldmatrix { num, trans }
            }
            Opcode::Stmatrix => {
                let (num, trans) = matrices(words)?;
                Stmatrix { num, trans }
            }
            Opcode::TmaLoad | Opcode::TmaStore => {
                want(1)?;
                let dims = match words[0] {
                    "dim1" => 1,
                    "dim2" => 2,
                    "dim3" => 3,
                    "dim4" => 4,
                    "dim5" => 5,
                    w => return Err(word(ModifierWord::Rank, w)),
                };
                if op == Opcode::TmaLoad {
                    TmaLoad { dims }
                } else {
                    TmaStore { dims }
                }
            }
            Opcode::CpAsyncBulkWait => {
                let (read, n) = match words {
                    ["read", n] => (true, *n),
                    [n] => (false, *n),
                    _ => {
                        return Err(ModifierError::Form {
                            op,
                            form: ModifierForm::MaybeReadAndGroupCount,
                        })
                    }
                };
                let n = n
                    .parse::<u8>()
                    .map_err(|_| word(ModifierWord::GroupCount, n))?;
                BulkWait { n, read }
            }
            Opcode::ClusterArrive => match words {
                [] => ClusterArrive { relaxed: false },
                ["relaxed"] => ClusterArrive { relaxed: true },
                _ => {
                    return Err(ModifierError::Form {
                        op,
                        form: ModifierForm::AtMostRelaxed,
                    })
                }
            },
            Opcode::WgmmaMma => {
                let [n, t, flags @ ..] = words else {
                    return Err(ModifierError::Form {
                        op,
                        form: ModifierForm::WgmmaShapeAndType,
                    });
                };
                let n = n
                    .strip_prefix('n')
                    .and_then(|n| n.parse::<u16>().ok())
                    .filter(|n| WGMMA_NS.contains(n))
                    .ok_or_else(|| word(ModifierWord::WgmmaN, n))?;
                let ty = ty(t)?;
                let mut seen = [false; 4];
                let names = ["nega", "negb", "transa", "transb"];
                let mut last = None;
                for w in flags {
                    let k = names
                        .iter()
                        .position(|x| x == w)
                        .filter(|&k| last.is_none_or(|l| k > l))
                        .ok_or_else(|| word(ModifierWord::WgmmaFlag, w))?;
                    seen[k] = true;
                    last = Some(k);
                }
                WgmmaMma {
                    n,
                    ty,
                    neg_a: seen[0],
                    neg_b: seen[1],
                    trans_a: seen[2],
                    trans_b: seen[3],
                }
            }
            Opcode::WgmmaWait => {
                want(1)?;
                let n = words[0]
                    .parse::<u8>()
                    .map_err(|_| word(ModifierWord::GroupCount, words[0]))?;
                WgmmaWait { n }
            }
            Opcode::Setmaxnreg => {
                want(2)?;
                let inc = match words[0] {
                    "inc" => true,
                    "dec" => false,
                    w => return Err(word(ModifierWord::IncDec, w)),
                };
                let regs = words[1]
                    .parse::<u16>()
                    .map_err(|_| word(ModifierWord::RegisterCount, words[1]))?;
                Setmaxnreg { inc, regs }
            }
            Opcode::Tcgen05Mma => {
                want(1)?;
                let kind = match words[0] {
                    "f16" => TcKind::F16,
                    "tf32" => TcKind::Tf32,
                    w => return Err(word(ModifierWord::TcKind, w)),
                };
                Tcgen05Mma { kind }
            }
            Opcode::Tcgen05Ld | Opcode::Tcgen05St => {
                want(1)?;
                let num = words[0]
                    .strip_prefix('x')
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|n| TCGEN05_XS.contains(n))
                    .ok_or_else(|| word(ModifierWord::TcCount, words[0]))?;
                if op == Opcode::Tcgen05Ld {
                    Tcgen05Ld { num }
                } else {
                    Tcgen05St { num }
                }
            }
            Opcode::Tcgen05Wait => {
                want(1)?;
                match words[0] {
                    "ld" => Tcgen05Wait { st: false },
                    "st" => Tcgen05Wait { st: true },
                    w => return Err(word(ModifierWord::TcWait, w)),
                }
            }
            Opcode::Tcgen05Cp => {
                want(1)?;
                let shape = words[0]
                    .strip_prefix('s')
                    .and_then(TcCpShape::from_name)
                    .ok_or_else(|| word(ModifierWord::TcCpShape, words[0]))?;
                Tcgen05Cp { shape }
            }
            Opcode::Tex => Tex(TexOp::from_modifiers(words)?),
            Opcode::Suld => Suld(SurfOp::from_modifiers(op, words)?),
            Opcode::Sust => Sust(SurfOp::from_modifiers(op, words)?),
            Opcode::Tcgen05Fence => {
                want(1)?;
                match words[0] {
                    "before" => Tcgen05Fence { after: false },
                    "after" => Tcgen05Fence { after: true },
                    w => return Err(word(ModifierWord::FenceSide, w)),
                }
            }
            other => {
                want(0)?;
                match other {
                    Opcode::CpAsyncCommit => CpAsyncCommit,
                    Opcode::CpAsyncWaitAll => CpAsyncWaitAll,
                    Opcode::MbarrierInit => MbarInit,
                    Opcode::MbarrierArrive => MbarArrive,
                    Opcode::MbarrierArriveExpectTx => MbarArriveExpectTx,
                    Opcode::MbarrierTestWait => MbarTestWait,
                    Opcode::MbarrierTryWaitParity => MbarTryWaitParity,
                    Opcode::FenceProxyAsync => FenceProxyAsync,
                    Opcode::CpAsyncBulkCommit => BulkCommit,
                    Opcode::Mapa => Mapa,
                    Opcode::ClusterWait => ClusterWait,
                    Opcode::WgmmaFence => WgmmaFence,
                    Opcode::WgmmaCommit => WgmmaCommit,
                    Opcode::Tcgen05Alloc => Tcgen05Alloc,
                    Opcode::Tcgen05Relinquish => Tcgen05Relinquish,
                    Opcode::Tcgen05Dealloc => Tcgen05Dealloc,
                    Opcode::Tcgen05Commit => Tcgen05Commit,
                    Opcode::Vprintf => Vprintf,
                    Opcode::AssertFail => AssertFail,
                    _ => return Err(ModifierError::NotAccel { op: other }),
                }
            }
        })
    }

    /// A problem with the modifiers that the types cannot show, e.g. a
    /// `cg` copy that is not 16 bytes or an f32 A fragment.
    pub fn modifier_error(self) -> Option<String> {
        use AccelOp::*;
        match self {
            CpAsync {
                cache: CpCache::Cg,
                size,
            } if size != 16 => Some(format!("cp_async cg copies 16 bytes, not {size}")),
            WmmaLoad { frag, ty, .. } if (frag == Frag::C) != (ty == MmaType::F32) => {
                Some("wmma_load: A and B are f16 or bf16, C is f32".into())
            }
            WmmaMma {
                ty: MmaType::F32, ..
            }
            | Mma { ty: MmaType::F32 }
            | WgmmaMma {
                ty: MmaType::F32, ..
            } => Some("the A and B of an mma are f16 or bf16".into()),
            WgmmaMma { n, .. } if !WGMMA_NS.contains(&n) => {
                Some(format!("wgmma_mma: N is 64, 128 or 256, not {n}"))
            }
            Setmaxnreg { regs, .. } if !setmaxnreg_ok(regs) => Some(format!(
                "setmaxnreg: the register count is a multiple of 8 from 24 to 256, not {regs}"
            )),
            Tcgen05Ld { num } | Tcgen05St { num } if !TCGEN05_XS.contains(&num) => Some(format!(
                "{}: the repeat count is 1, 2, 4, 8, 16 or 32, not {num}",
                self.opcode()
            )),
            Tex(t) => t.modifier_error(),
            Suld(x) | Sust(x) => x.modifier_error(),
            _ => None,
        }
    }
}

/// Whether `setmaxnreg` accepts this register count: a multiple of 8 from
/// 24 to 256 (ptxas rejects other values).
pub fn setmaxnreg_ok(regs: u16) -> bool {
    regs.is_multiple_of(8) && (24..=256).contains(&regs)
}

impl fmt::Display for AccelOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.opcode().name())?;
        for m in self.modifiers() {
            write!(f, " {m}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::TexModifierError;

    #[test]
    fn modifiers_round_trip() {
        use AccelOp::*;
        let ops = [
            CpAsync {
                cache: CpCache::Ca,
                size: 8,
            },
            CpAsyncCommit,
            CpAsyncWait { n: 1 },
            CpAsyncWaitAll,
            MbarInit,
            MbarArrive,
            MbarArriveExpectTx,
            MbarTestWait,
            MbarTryWaitParity,
            FenceProxyAsync,
            WmmaLoad {
                frag: Frag::B,
                layout: MatLayout::Col,
                ty: MmaType::Bf16,
            },
            WmmaMma {
                a: MatLayout::Row,
                b: MatLayout::Col,
                ty: MmaType::F16,
            },
            WmmaStore {
                layout: MatLayout::Row,
            },
            Mma { ty: MmaType::Bf16 },
            Ldmatrix {
                num: 4,
                trans: true,
            },
            Stmatrix {
                num: 2,
                trans: false,
            },
            TmaLoad { dims: 1 },
            TmaStore { dims: 5 },
            BulkCommit,
            BulkWait { n: 0, read: true },
            BulkWait { n: 3, read: false },
            Mapa,
            ClusterArrive { relaxed: false },
            ClusterArrive { relaxed: true },
            ClusterWait,
            WgmmaFence,
            WgmmaMma {
                n: 128,
                ty: MmaType::Bf16,
                neg_a: false,
                neg_b: true,
                trans_a: false,
                trans_b: true,
            },
            WgmmaMma {
                n: 64,
                ty: MmaType::F16,
                neg_a: false,
                neg_b: false,
                trans_a: false,
                trans_b: false,
            },
            WgmmaCommit,
            WgmmaWait { n: 1 },
            Setmaxnreg {
                inc: true,
                regs: 232,
            },
            Tcgen05Alloc,
            Tcgen05Relinquish,
            Tcgen05Dealloc,
            Tcgen05Mma { kind: TcKind::Tf32 },
            Tcgen05Commit,
            Tcgen05Ld { num: 16 },
            Tcgen05St { num: 4 },
            Tcgen05Wait { st: true },
            Tcgen05Cp {
                shape: TcCpShape::S4x256b,
            },
            Tcgen05Fence { after: true },
            Vprintf,
            AssertFail,
        ];
        for op in ops {
            let words = op.modifiers();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            assert_eq!(AccelOp::from_modifiers(op.opcode(), &words), Ok(op));
        }
    }

    #[test]
    fn bad_modifiers_give_their_kind_and_message() {
        let refused = |op, words: &[&str]| AccelOp::from_modifiers(op, words).unwrap_err();
        let layout = refused(Opcode::WmmaStore, &["diag"]);
        assert_eq!(
            layout,
            ModifierError::Word {
                expected: ModifierWord::Layout,
                found: "diag".into()
            }
        );
        assert_eq!(
            layout.to_string(),
            "expected a layout 'row' or 'col', found 'diag'"
        );
        let count = refused(Opcode::CpAsync, &["ca"]);
        assert_eq!(
            count,
            ModifierError::Count {
                op: Opcode::CpAsync,
                expected: 2,
                found: 1
            }
        );
        assert_eq!(count.to_string(), "'cp_async' takes 2 modifier(s), found 1");
        assert_eq!(
            refused(Opcode::CpAsync, &["ca", "12"]),
            ModifierError::CopySize { found: "12".into() }
        );
        let form = refused(Opcode::Ldmatrix, &["x2", "flip"]);
        assert_eq!(
            form,
            ModifierError::Form {
                op: Opcode::Ldmatrix,
                form: ModifierForm::MatrixCountMaybeTrans
            }
        );
        assert_eq!(
            form.to_string(),
            "'ldmatrix' takes 'x1', 'x2' or 'x4' and maybe 'trans'"
        );
        assert_eq!(
            refused(Opcode::Iadd, &[]),
            ModifierError::NotAccel { op: Opcode::Iadd }
        );
        assert!(matches!(
            refused(Opcode::Tex, &[]),
            ModifierError::Texture(TexModifierError::NoGeometry)
        ));
    }
}
