//! Entity references: small `u32` handles into the tables of a function or module.
//!
//! Every entity is a newtype declared with `entity_impl!`, so it can index a
//! `PrimaryMap` (which owns the data) or a `SecondaryMap` (a side table keyed
//! by the same handle). The second argument of `entity_impl!` is the prefix the
//! text format uses: `v12` is `Value(12)`, `block3` is `Block(3)`.

use cranelift_entity::entity_impl;

/// A basic block. Blocks take parameters instead of phi nodes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An SSA value: an instruction result or a block parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction in the data-flow graph (placed in a block by the layout).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A function of a module. Calls name their callee by `FuncId`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A module-level variable (`__shared__`, `__constant__`, `__device__`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalVar(u32);
entity_impl!(GlobalVar, "gv");

/// A slot in a function's local (`.local`) frame, for address-taken locals and arrays.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackSlot(u32);
entity_impl!(StackSlot, "ss");

/// An alias scope: a set of accesses known not to alias accesses of other scopes
/// (what `__restrict__` turns into).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AliasScope(u32);
entity_impl!(AliasScope, "scope");
