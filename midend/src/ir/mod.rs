//! The kernelc IR: an SSA form with block parameters, whose pointer types
//! carry their address space.
//!
//! Start with [`Function`] (what a function holds) and [`InstData`] (what an
//! instruction holds); `docs/ir.md` is the reference for the text format.

mod accel;
mod dfg;
mod entities;
mod function;
mod inline_asm;
mod instructions;
mod layout;
mod modifier_error;
mod module;
mod texture;
mod types;

pub use accel::{
    setmaxnreg_ok, wmma_frag_len, AccelOp, CpCache, Frag, MatLayout, MmaType, OperandKind,
    TcCpShape, TcKind, TCGEN05_XS, WGMMA_NS,
};
pub use dfg::{BlockData, DataFlowGraph, InstResults, ValueData, ValueDef};
pub use entities::{AliasScope, Block, FuncId, GlobalVar, Inst, StackSlot, Value};
pub use function::{
    AbiParam, AliasScopeData, FuncAttrs, FuncKind, Function, Linkage, LoopHint, ParamAttrs,
    Signature, SourceSpan, StackSlotData,
};
pub use inline_asm::{
    substitute as asm_substitute, AsmInput, AsmOutput, AsmReg, ConstraintError, InlineAsm,
    TemplateError,
};
pub use instructions::{
    f32_const_bits, is_packed_pair_element, AtomicOp, BarrierRedOp, BlockCall, CacheOp, CallSig,
    FloatCC, Format, InstData, IntCC, MatchMode, MemFlags, MemScope, Opcode, ReduxOp, Rounding,
    ShuffleMode, SpecialReg, VoteMode,
};
pub use layout::{Layout, LayoutEdits};
pub use modifier_error::{ModifierError, ModifierForm, ModifierWord};
pub use module::{GlobalVarData, Module, Reloc, RelocTarget};
pub use texture::{SurfMode, SurfOp, TexGeom, TexLod, TexModifierError, TexOp, TexType, TexWord};
pub use types::{AddrSpace, Type};
