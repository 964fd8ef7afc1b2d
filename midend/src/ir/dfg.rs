//! The data-flow graph: instructions, values and block parameters, with no
//! notion of order. Where instructions sit is the [`Layout`](super::Layout)'s job.
//!
//! Keeping the two apart means a pass can create an instruction, look at its
//! results, and only then decide where (or whether) to place it.

use super::entities::{Block, Inst, Value};
use super::instructions::{is_packed_pair_element, InstData};
use super::types::Type;
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result number `n` of an instruction.
    Result(Inst, u32),
    /// Parameter number `n` of a block.
    Param(Block, u32),
    /// Another name for a value (left behind when a value is replaced, e.g. by
    /// SSA construction removing a trivial block parameter). Resolved by
    /// [`DataFlowGraph::resolve_aliases`]; the printer never shows an alias.
    Alias(Value),
    /// Belongs to nothing: a number the text format skipped (the parser keeps
    /// entity numbers as written, filling gaps with such values).
    Detached,
}

/// The type and definition of a value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// Per-block data: its parameters.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BlockData {
    pub params: Vec<Value>,
}

/// An instruction's results, in order. Most instructions have one or none,
/// so they are kept inline: an instruction's creation, copy and drop then
/// allocate nothing for them.
pub type InstResults = smallvec::SmallVec<[Value; 4]>;

/// Instructions, values and blocks of one function.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct DataFlowGraph {
    pub insts: PrimaryMap<Inst, InstData>,
    pub results: SecondaryMap<Inst, InstResults>,
    pub values: PrimaryMap<Value, ValueData>,
    pub blocks: PrimaryMap<Block, BlockData>,
}

impl DataFlowGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Creates a block with no parameters (not yet placed in the layout).
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, n),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Removes parameter `index` of `block`, renumbering the later ones. The
    /// caller must also remove the matching argument from every branch to it.
    pub fn remove_block_param(&mut self, block: Block, index: usize) {
        self.blocks[block].params.remove(index);
        for (n, &p) in self.blocks[block].params.iter().enumerate() {
            self.values[p].def = ValueDef::Param(block, n as u32);
        }
    }

    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    /// Creates an instruction with results of the given types (not yet placed).
    pub fn make_inst(&mut self, data: InstData, result_types: &[Type]) -> Inst {
        let inst = self.insts.push(data);
        let results = result_types
            .iter()
            .enumerate()
            .map(|(n, &ty)| {
                self.values.push(ValueData {
                    ty,
                    def: ValueDef::Result(inst, n as u32),
                })
            })
            .collect();
        self.results[inst] = results;
        inst
    }

    /// Whether `inst` is an `atomic_vec` that reaches global memory only:
    /// PTX's vector atomics on `f32` do, while a pair of 16-bit floats is
    /// one atomic of a 32-bit word (`atom.add.noftz.f16x2`, `.bf16x2`),
    /// which every space an atomic may name has. False for any other
    /// instruction.
    pub fn is_global_only_atomic(&self, inst: Inst) -> bool {
        match &self.insts[inst] {
            InstData::AtomicVec { args, .. } => args
                .get(1)
                .is_none_or(|&e| !is_packed_pair_element(self.value_type(e))),
            _ => false,
        }
    }

    pub fn inst_results(&self, inst: Inst) -> &[Value] {
        &self.results[inst]
    }

    /// The single result of an instruction, if it has exactly one.
    pub fn first_result(&self, inst: Inst) -> Option<Value> {
        self.results[inst].first().copied()
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    /// The instruction that computes `v` (through aliases), if an
    /// instruction does (not a block parameter).
    pub fn defining_data(&self, v: Value) -> Option<&InstData> {
        match self.value_def(self.resolve_aliases(v)) {
            ValueDef::Result(inst, _) => Some(&self.insts[inst]),
            _ => None,
        }
    }

    /// The integer constant `v` stands for (through aliases), if an
    /// `iconst` defines it.
    pub fn iconst_value(&self, v: Value) -> Option<i64> {
        match self.defining_data(v)? {
            InstData::Iconst { imm, .. } => Some(*imm),
            _ => None,
        }
    }

    /// Whether `v` is an index this graph has allocated.
    pub fn value_is_valid(&self, v: Value) -> bool {
        self.values.is_valid(v)
    }

    /// Turns `old` into an alias of `new`, so every use of `old` now means `new`.
    pub fn change_to_alias(&mut self, old: Value, new: Value) {
        // Linking to what `new` stands for keeps chains short, so resolving
        // stays cheap when thousands of block parameters fold away in turn.
        let new = self.resolve_aliases(new);
        debug_assert_ne!(new, old, "alias cycle");
        self.values[old].def = ValueDef::Alias(new);
    }

    /// Follows alias links to the value they stand for.
    pub fn resolve_aliases(&self, v: Value) -> Value {
        resolve_in(&self.values, v)
    }

    /// [`Self::resolve_aliases`], and links every alias on the way straight
    /// to the end, so the next walk is one step (path compression: SSA
    /// construction folds chains of thousands of parameters in deep loop
    /// nests and looks them up again and again).
    pub fn resolve_aliases_compressing(&mut self, v: Value) -> Value {
        let end = self.resolve_aliases(v);
        let mut at = v;
        while let Some(ValueDef::Alias(next)) = self.values.get(at).map(|d| d.def) {
            if next == end {
                break;
            }
            self.values[at].def = ValueDef::Alias(end);
            at = next;
        }
        end
    }

    /// Rewrites the operands of `inst` to the values their aliases stand
    /// for, in place.
    pub fn resolve_args(&mut self, inst: Inst) {
        let values = &self.values;
        self.insts[inst].map_args(|v| resolve_in(values, v));
    }

    /// Rewrites every operand of every instruction to its resolved value, so no
    /// instruction refers to an alias any more.
    pub fn resolve_all_aliases(&mut self) {
        let values = &self.values;
        for data in self.insts.values_mut() {
            data.map_args(|v| resolve_in(values, v));
        }
    }
}

/// Follows alias links from `v` to the value they stand for.
fn resolve_in(values: &PrimaryMap<Value, ValueData>, mut v: Value) -> Value {
    // A chain can be at most as long as there are values; the bound keeps a
    // (buggy) cycle from hanging the compiler.
    for _ in 0..=values.len() {
        match values.get(v).map(|d| d.def) {
            Some(ValueDef::Alias(to)) => v = to,
            _ => return v,
        }
    }
    v
}
