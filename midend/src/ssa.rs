//! SSA construction from mutable variables, after Braun et al., "Simple and
//! Efficient Construction of Static Single Assignment Form" (CC 2013), in the
//! block-parameter form that cranelift-frontend uses.
//!
//! The frontend never thinks about SSA: it declares a [`Variable`] per C
//! local, calls [`FunctionBuilder::def_var`] on assignment and
//! [`FunctionBuilder::use_var`] on reads. A read looks for the variable's
//! definition in the current block, then walks up to predecessors. Where
//! several predecessors meet, the block gets a parameter and every branch into
//! it passes the variable's value there as an argument.
//!
//! A block must be *sealed* once all its predecessors are known (for a loop
//! header: after the back edge is built). Reads in an unsealed block add a
//! parameter whose arguments are filled in when the block is sealed.
//! Parameters that turn out to receive one value from everywhere are removed
//! ("trivial phis") and replaced by that value.

use crate::builder::InstBuilder;
use crate::ir::{Block, Function, Inst, InstData, Opcode, Type, Value};
use cranelift_entity::{entity_impl, SecondaryMap};
use rustc_hash::{FxHashMap, FxHashSet};

/// A mutable source-level variable that SSA construction turns into values.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variable(u32);
entity_impl!(Variable, "var");

#[derive(Clone, Default)]
struct BlockState {
    sealed: bool,
    /// Has a terminator: no more instructions may be appended.
    filled: bool,
    /// Branches into this block: (the block they are in, the branch instruction).
    preds: Vec<(Block, Inst)>,
    /// Parameters added for reads before the block was sealed.
    incomplete: Vec<(Variable, Value)>,
}

/// Builds a function's body with variables instead of explicit SSA values.
pub struct FunctionBuilder<'f> {
    pub func: &'f mut Function,
    current: Option<Block>,
    var_types: SecondaryMap<Variable, Option<Type>>,
    defs: FxHashMap<(Variable, Block), Value>,
    blocks: SecondaryMap<Block, BlockState>,
}

impl<'f> FunctionBuilder<'f> {
    pub fn new(func: &'f mut Function) -> Self {
        FunctionBuilder {
            func,
            current: None,
            var_types: SecondaryMap::new(),
            defs: FxHashMap::default(),
            blocks: SecondaryMap::new(),
        }
    }

    /// Creates a new block (placed in the layout when first switched to).
    pub fn create_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    /// Adds an explicit parameter to a block (e.g. the entry block's function
    /// parameters). Call before any variable read in that block.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        self.func.dfg.append_block_param(block, ty)
    }

    /// Gives the entry block one parameter per signature parameter.
    pub fn append_block_params_for_function_params(&mut self, block: Block) {
        let tys: Vec<Type> = self.func.signature.params.iter().map(|p| p.ty).collect();
        for ty in tys {
            self.append_block_param(block, ty);
        }
    }

    /// Makes `block` the one instructions are appended to.
    pub fn switch_to_block(&mut self, block: Block) {
        if !self.func.layout.is_block_inserted(block) {
            self.func.layout.append_block(block);
        }
        self.current = Some(block);
    }

    pub fn current_block(&self) -> Option<Block> {
        self.current
    }

    /// Whether the current block already ends in a terminator.
    pub fn is_filled(&self) -> bool {
        self.current.is_some_and(|b| self.blocks[b].filled)
    }

    /// Whether `block` has any predecessor so far.
    pub fn is_unreachable(&self, block: Block) -> bool {
        Some(block) != self.func.layout.entry_block()
            && self.blocks[block].sealed
            && self.blocks[block].preds.is_empty()
    }

    pub fn declare_var(&mut self, var: Variable, ty: Type) {
        self.var_types[var] = Some(ty);
    }

    /// Assigns `value` to `var` in the current block.
    pub fn def_var(&mut self, var: Variable, value: Value) {
        let block = self.current.expect("def_var outside a block");
        self.defs.insert((var, block), value);
    }

    /// Reads `var` in the current block.
    pub fn use_var(&mut self, var: Variable) -> Value {
        let block = self.current.expect("use_var outside a block");
        self.use_var_in(var, block)
    }

    fn var_type(&self, var: Variable) -> Type {
        self.var_types[var].unwrap_or_else(|| panic!("{var} was never declared"))
    }

    /// The search recurses through predecessors as far back as the
    /// definition, so it runs on a stack that grows with the path
    /// (`stdx::stack`): a chain of thousands of blocks is ordinary code.
    fn use_var_in(&mut self, var: Variable, block: Block) -> Value {
        stdx::stack::with_stack(|| self.use_var_in_level(var, block))
    }

    fn use_var_in_level(&mut self, var: Variable, block: Block) -> Value {
        if let Some(&v) = self.defs.get(&(var, block)) {
            return self.func.dfg.resolve_aliases_compressing(v);
        }
        let ty = self.var_type(var);
        let value = if !self.blocks[block].sealed {
            let param = self.func.dfg.append_block_param(block, ty);
            self.blocks[block].incomplete.push((var, param));
            param
        } else if self.blocks[block].preds.len() == 1 {
            let pred = self.blocks[block].preds[0].0;
            self.use_var_in(var, pred)
        } else if self.blocks[block].preds.is_empty() {
            // Read before any assignment (C leaves it undefined): use zero.
            self.zero_at_start(block, ty)
        } else {
            // Define first, so a loop that reaches back here finds the parameter.
            let param = self.func.dfg.append_block_param(block, ty);
            self.defs.insert((var, block), param);
            self.add_param_args(var, block, param)
        };
        self.defs.insert((var, block), value);
        value
    }

    /// Passes `var`'s value along every edge into `block` for `param`, then
    /// removes the parameter again if it turned out trivial.
    fn add_param_args(&mut self, var: Variable, block: Block, param: Value) -> Value {
        let preds = self.blocks[block].preds.clone();
        for (pred, branch) in preds {
            let v = self.use_var_in(var, pred);
            for dest in self.func.dfg.insts[branch].branch_destinations_mut() {
                if dest.block == block {
                    dest.args.push(v);
                }
            }
        }
        self.try_remove_trivial_param(block, param)
    }

    /// The one value every edge passes for `param`, if there is exactly one
    /// besides `param` itself.
    fn trivial_source(&mut self, block: Block, index: usize, param: Value) -> Option<Value> {
        let mut passed = Vec::with_capacity(self.blocks[block].preds.len());
        for &(_, branch) in &self.blocks[block].preds {
            for dest in self.func.dfg.insts[branch].branch_destinations() {
                if dest.block == block {
                    passed.push(*dest.args.get(index)?);
                }
            }
        }
        let mut same = None;
        for v in passed {
            let v = self.func.dfg.resolve_aliases_compressing(v);
            if v == param || Some(v) == same {
                continue;
            }
            if same.is_some() {
                return None;
            }
            same = Some(v);
        }
        same
    }

    fn try_remove_trivial_param(&mut self, block: Block, param: Value) -> Value {
        self.fold_if_trivial(block, param).unwrap_or(param)
    }

    /// Removes `param` of `block` and makes it an alias of the one value its
    /// edges pass, if it is trivial (and still a parameter); returns that
    /// value.
    fn fold_if_trivial(&mut self, block: Block, param: Value) -> Option<Value> {
        let index = self
            .func
            .dfg
            .block_params(block)
            .iter()
            .position(|&p| p == param)?;
        let same = self.trivial_source(block, index, param)?;
        self.remove_param(block, index);
        self.func.dfg.change_to_alias(param, same);
        Some(same)
    }

    fn remove_param(&mut self, block: Block, index: usize) {
        self.func.dfg.remove_block_param(block, index);
        for &(_, branch) in &self.blocks[block].preds {
            for dest in self.func.dfg.insts[branch].branch_destinations_mut() {
                if dest.block == block {
                    dest.args.remove(index);
                }
            }
        }
    }

    /// Materializes a zero of type `ty` at the top of `block`.
    fn zero_at_start(&mut self, block: Block, ty: Type) -> Value {
        let first = self.func.layout.block_insts(block).first().copied();
        let func = &mut *self.func;
        // Each instruction goes just before the block's old first one, so they
        // stay in the order they are made.
        let mut place = |data: InstData, ty: Type| {
            let inst = func.dfg.make_inst(data, &[ty]);
            match first {
                Some(first) => func.layout.insert_inst_before(inst, first),
                None => func.layout.append_inst(inst, block),
            }
            func.dfg.first_result(inst).unwrap()
        };
        match ty {
            Type::Ptr(_) => {
                let zero = place(
                    InstData::Iconst {
                        ty: Type::I64,
                        imm: 0,
                    },
                    Type::I64,
                );
                let data = InstData::Convert {
                    opcode: Opcode::Inttoptr,
                    ty,
                    arg: zero,
                };
                place(data, ty)
            }
            t if t.is_float() => place(InstData::Fconst { ty, value: 0.0 }, ty),
            _ => place(InstData::Iconst { ty, imm: 0 }, ty),
        }
    }

    /// Declares that every predecessor of `block` has been built.
    pub fn seal_block(&mut self, block: Block) {
        if self.blocks[block].sealed {
            return;
        }
        self.blocks[block].sealed = true;
        let incomplete = std::mem::take(&mut self.blocks[block].incomplete);
        for (var, param) in incomplete {
            self.add_param_args(var, block, param);
        }
    }

    /// Seals every block created so far.
    pub fn seal_all_blocks(&mut self) {
        let blocks: Vec<Block> = self.func.dfg.blocks.keys().collect();
        for b in blocks {
            self.seal_block(b);
        }
    }

    /// Finishes construction: seals what is left, removes parameters that only
    /// ever receive one value, and rewrites operands so no alias remains.
    pub fn finalize(mut self) {
        self.seal_all_blocks();
        self.remove_trivial_params();
        self.func.dfg.resolve_all_aliases();
    }

    /// Removes every parameter whose edges all pass one value (besides the
    /// parameter itself), until none is left. Removing one can make only
    /// the parameters it is passed to trivial, so those are the ones looked
    /// at again: a work list, linear in the parameters, where sweeping every
    /// block until nothing changed took one sweep per level of a loop nest
    /// (cubic in 1,000 nested `do` loops). Trivial is monotone (aliasing a
    /// source never makes a parameter less trivial), so the parameters
    /// removed, and the IR, are those of the sweeps.
    fn remove_trivial_params(&mut self) {
        let entry = self.func.layout.entry_block();
        let blocks: Vec<Block> = self.func.layout.blocks().to_vec();
        let mut passed_to: FxHashMap<Value, Vec<(Block, Value)>> = FxHashMap::default();
        let mut work = std::collections::VecDeque::new();
        for &block in &blocks {
            if Some(block) == entry || self.blocks[block].preds.is_empty() {
                continue;
            }
            let params = self.func.dfg.block_params(block).to_vec();
            for &(_, branch) in &self.blocks[block].preds {
                for dest in self.func.dfg.insts[branch].branch_destinations() {
                    if dest.block != block {
                        continue;
                    }
                    for (&arg, &param) in dest.args.iter().zip(&params) {
                        let arg = self.func.dfg.resolve_aliases(arg);
                        passed_to.entry(arg).or_default().push((block, param));
                    }
                }
            }
            work.extend(params.into_iter().map(|p| (block, p)));
        }
        // A parameter is queued at most once at a time, and the lists of
        // parameters a value is passed to drop the removed ones as they move,
        // so chains of removals do not requeue what they already settled.
        let mut queued: FxHashSet<Value> = work.iter().map(|&(_, p)| p).collect();
        let mut removed: FxHashSet<Value> = FxHashSet::default();
        while let Some((block, param)) = work.pop_front() {
            queued.remove(&param);
            let Some(same) = self.fold_if_trivial(block, param) else {
                continue;
            };
            removed.insert(param);
            let mut users = passed_to.remove(&param).unwrap_or_default();
            users.retain(|(_, p)| !removed.contains(p));
            for &(b, p) in &users {
                if queued.insert(p) {
                    work.push_back((b, p));
                }
            }
            passed_to.entry(same).or_default().extend(users);
        }
    }
}

impl InstBuilder for FunctionBuilder<'_> {
    fn build(&mut self, data: InstData, result_types: &[Type]) -> Inst {
        let block = self.current.expect("no current block");
        assert!(
            !self.blocks[block].filled,
            "{block} already has a terminator"
        );
        let is_terminator = data.opcode().is_terminator();
        let targets: Vec<Block> = data.branch_destinations().iter().map(|d| d.block).collect();
        let inst = self.func.append_inst(block, data, result_types);
        for target in targets {
            assert!(!self.blocks[target].sealed, "branch to sealed {target}");
            // A branch naming the same block twice is one edge. Its
            // entries would be adjacent, so the last one is all to check
            // (a join of an `&&` chain has thousands of predecessors).
            let preds = &mut self.blocks[target].preds;
            if preds.last().is_none_or(|&(_, i)| i != inst) {
                preds.push((block, inst));
            }
        }
        if is_terminator {
            self.blocks[block].filled = true;
        }
        inst
    }
    fn value_type(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }
    fn result(&self, inst: Inst) -> Value {
        self.func.dfg.first_result(inst).expect("no result")
    }
    fn results(&self, inst: Inst) -> Vec<Value> {
        self.func.dfg.inst_results(inst).to_vec()
    }
}
