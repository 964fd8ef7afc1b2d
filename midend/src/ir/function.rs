//! A function: its signature and attributes, the data-flow graph, the layout,
//! its stack frame, and side tables (alias scopes, source spans).

use super::dfg::{DataFlowGraph, ValueDef};
use super::entities::{AliasScope, Block, Inst, StackSlot, Value};
use super::instructions::InstData;
use super::layout::Layout;
use super::types::{AddrSpace, Type};
use cranelift_entity::{PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

/// Kernel entry (`__global__`, PTX `.entry`) or device function (`.func`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FuncKind {
    Kernel,
    Device,
}

/// Whether a function is visible outside its module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Linkage {
    /// Visible to the driver / other modules (`.visible`).
    External,
    /// Private to the module (`static`, or a clone made by specialization).
    Internal,
    /// Visible to other modules, which may define it too; the linker keeps
    /// one definition (`.weak`): a C++ inline function or template instance,
    /// and a local static of one, under `-rdc=true`, where each module that
    /// includes a header defines its inline functions.
    Weak,
}

/// Attributes of a function parameter.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ParamAttrs {
    /// Declared `__restrict__` in the source (front-end form).
    pub restrict: bool,
    /// Canonical form, set by restrict processing: no other pointer reaches
    /// the memory this one reaches.
    pub noalias: bool,
    /// `__grid_constant__`: the kernel reads the parameter in place (param space).
    pub grid_constant: bool,
    /// Passed by value as an aggregate of this many bytes and this alignment.
    /// In a device function the parameter points to the callee's own copy
    /// (PTX passes it as `.param .align A .b8 name[N]`).
    pub byval: Option<(u32, u32)>,
    /// The address where a device function writes its aggregate result of
    /// this many bytes and this alignment (C's struct return). The caller
    /// passes the address of its temporary; PTX returns the bytes in
    /// `.param .align A .b8 func_retval0[N]`, which the caller copies there.
    pub sret: Option<(u32, u32)>,
    /// For a by-value aggregate: the byte offsets of its `__restrict__`
    /// pointer fields (the frontend also sets `restrict` then).
    pub restrict_fields: Vec<u32>,
}

/// One parameter of a signature.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AbiParam {
    pub ty: Type,
    pub attrs: ParamAttrs,
}

impl AbiParam {
    pub fn new(ty: Type) -> Self {
        AbiParam {
            ty,
            attrs: ParamAttrs::default(),
        }
    }
}

/// Parameter and return types of a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Signature {
    pub params: Vec<AbiParam>,
    pub returns: Vec<Type>,
}

/// Attributes of a function as a whole.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncAttrs {
    pub kind: FuncKind,
    pub linkage: Linkage,
    /// Never inline (`__noinline__`).
    pub noinline: bool,
    /// Inline whatever the callee's size (`__forceinline__`).
    pub forceinline: bool,
    /// Restrict processing has run on this function (it is idempotent).
    pub restrict_processed: bool,
    /// `__launch_bounds__(max_threads, min_blocks)`.
    pub launch_bounds: Option<(u32, Option<u32>)>,
    /// `__cluster_dims__(x, y, z)`: the kernel runs in thread-block clusters
    /// of this shape (sm_90 and newer).
    pub cluster_dims: Option<[u32; 3]>,
    /// The state space memory-space inference proved for each parameter
    /// (`None` for a parameter that is not a pointer), published after its
    /// rewrite. It can be narrower than the signature's type: a function
    /// whose callers are unknown keeps `ptr<generic>` in its signature, but
    /// its body may have proved more (printed `arg_spaces(global, none)`).
    pub arg_spaces: Option<Vec<Option<AddrSpace>>>,
    /// `ftz`: single-precision arithmetic flushes subnormal inputs and
    /// results to a zero of the same sign (nvcc's `-ftz=true`, LLVM's
    /// `denormal-fp-math-f32=preserve-sign`). It covers the `f32` forms that
    /// have PTX `.ftz` variants (docs/math.md lists them); `f64` never
    /// flushes. The backend emits the `.ftz` forms, and the interpreter
    /// flushes the same operands.
    pub ftz: bool,
}

impl FuncAttrs {
    pub fn new(kind: FuncKind, linkage: Linkage) -> Self {
        FuncAttrs {
            kind,
            linkage,
            noinline: false,
            forceinline: false,
            restrict_processed: false,
            launch_bounds: None,
            cluster_dims: None,
            arg_spaces: None,
            ftz: false,
        }
    }
}

/// A slot of the function's `.local` frame.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct StackSlotData {
    pub size: u32,
    pub align: u32,
}

/// An alias scope, named after what created it (e.g. a restrict parameter).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AliasScopeData {
    pub name: String,
}

/// A half-open range of byte offsets into the source file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SourceSpan {
    pub start: u32,
    pub end: u32,
}

impl SourceSpan {
    pub fn new(start: u32, end: u32) -> Self {
        SourceSpan { start, end }
    }

    /// The "no span" value: what instructions made by passes carry.
    pub fn is_none(self) -> bool {
        self == SourceSpan::default()
    }
}

/// A function of a module.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    pub name: String,
    pub signature: Signature,
    pub attrs: FuncAttrs,
    pub dfg: DataFlowGraph,
    pub layout: Layout,
    pub stack_slots: PrimaryMap<StackSlot, StackSlotData>,
    pub alias_scopes: PrimaryMap<AliasScope, AliasScopeData>,
    /// The source span each instruction came from (default = none).
    pub spans: SecondaryMap<Inst, SourceSpan>,
    /// `#pragma unroll` hints, keyed by the loop's header block (printed
    /// as `unroll block3 full` lines in the preamble).
    pub loop_hints: std::collections::BTreeMap<Block, LoopHint>,
}

/// What `#pragma unroll` asked of a loop.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LoopHint {
    /// `#pragma unroll`: unroll completely when the trip count is known.
    Full,
    /// `#pragma unroll N`: unroll by `N`; `1` forbids unrolling.
    Count(u32),
    /// Already unrolled by kernelc (`unroll-runtime`'s main loop, four
    /// copies of the body): no pass unrolls it again, and the backend
    /// keeps its latch as `copies; @p bra header`, where a loop that
    /// ptxas unrolls by itself gets its copies after the branch
    /// (docs/backend.md §2.3).
    Unrolled,
}

impl Function {
    pub fn new(name: impl Into<String>, signature: Signature, attrs: FuncAttrs) -> Self {
        Function {
            name: name.into(),
            signature,
            attrs,
            dfg: DataFlowGraph::new(),
            layout: Layout::new(),
            stack_slots: PrimaryMap::new(),
            alias_scopes: PrimaryMap::new(),
            spans: SecondaryMap::new(),
            loop_hints: Default::default(),
        }
    }

    pub fn is_kernel(&self) -> bool {
        self.attrs.kind == FuncKind::Kernel
    }

    /// The entry block (the first in the layout).
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// The values of the function's parameters (the entry block's parameters).
    pub fn params(&self) -> &[Value] {
        match self.entry_block() {
            Some(b) => self.dfg.block_params(b),
            None => &[],
        }
    }

    /// Creates an instruction and appends it to `block`.
    pub fn append_inst(&mut self, block: Block, data: InstData, result_types: &[Type]) -> Inst {
        let inst = self.dfg.make_inst(data, result_types);
        self.layout.append_inst(inst, block);
        inst
    }

    /// The block that defines `v`: its instruction's block, or the block
    /// it is a parameter of (`None` for an alias or an unplaced result).
    pub fn def_block(&self, v: Value) -> Option<Block> {
        match self.dfg.value_def(v) {
            ValueDef::Result(inst, _) => self.layout.inst_block(inst),
            ValueDef::Param(b, _) => Some(b),
            _ => None,
        }
    }

    /// The successors of `block` (targets of its terminator), in order, with repeats.
    pub fn successors(&self, block: Block) -> SmallVec<[Block; 2]> {
        match self.layout.last_inst(block) {
            Some(inst) => self.dfg.insts[inst]
                .branch_destinations()
                .iter()
                .map(|d| d.block)
                .collect(),
            None => SmallVec::new(),
        }
    }

    /// The predecessors of every block in the layout, one entry per edge
    /// (a `brif` with both sides on one block counts twice), in layout
    /// order. A block with none (or one not in the layout) reads as empty.
    /// One walk over the terminators: passes that look at many loops or
    /// blocks build this once instead of scanning the layout per block.
    pub fn predecessors(&self) -> SecondaryMap<Block, Vec<Block>> {
        let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        preds.resize(self.dfg.blocks.len());
        for &b in self.layout.blocks() {
            if let Some(term) = self.layout.last_inst(b) {
                for d in self.dfg.insts[term].branch_destinations() {
                    preds[d.block].push(b);
                }
            }
        }
        preds
    }
}
