//! The analyses several passes read (the dominator tree, the natural loops
//! and the predecessors), computed once per function and kept until a
//! pass changes the CFG, as Cranelift's `Context` keeps its control-flow
//! graph, dominator tree and loop analysis between passes.
//!
//! All three depend on the blocks and edges only, not on the instructions
//! inside the blocks: a pass that changes instructions, values or block
//! parameters leaves them true. A pass that adds or removes a block or an
//! edge, retargets a branch, or reorders the blocks (the predecessors are
//! listed in layout order) says so (`passes::Changed::Cfg`), and the pass
//! manager drops them. In debug builds it checks after every pass that
//! what it kept equals what a fresh computation gives
//! ([`Analyses::stale`]), so a pass that changes the CFG without saying so
//! is caught at the pass that did it.

use super::{DominatorTree, LoopAnalysis};
use crate::ir::{Block, FuncId, Function, Module};
use cranelift_entity::{EntityRef, SecondaryMap};

/// The predecessors of every block, one entry per edge, in layout order
/// ([`Function::predecessors`]).
pub type Predecessors = SecondaryMap<Block, Vec<Block>>;

/// The blocks with an edge to a block, each once, from its entry in
/// [`Predecessors`] (where a `brif` with both sides on the block is there
/// twice). A block's edges are listed together, so a repeat is always the
/// entry just before.
pub fn distinct_preds(preds: &[Block]) -> impl Iterator<Item = Block> + '_ {
    preds
        .iter()
        .enumerate()
        .filter(|&(i, b)| i == 0 || preds[i - 1] != *b)
        .map(|(_, &b)| b)
}

/// How many edges enter each block: the start of the counts a pass keeps
/// itself while it removes edges (a cached analysis holds only until the
/// CFG changes, and such a pass changes it at every step).
pub fn edge_counts(preds: &Predecessors) -> SecondaryMap<Block, u32> {
    let mut counts = SecondaryMap::new();
    for (block, from) in preds.iter() {
        counts[block] = from.len() as u32;
    }
    counts
}

/// The cached analyses of one function: each is computed when a pass
/// first asks for it.
#[derive(Clone, Debug, Default)]
pub struct Analyses {
    domtree: Option<DominatorTree>,
    loops: Option<LoopAnalysis>,
    preds: Option<Predecessors>,
}

/// The three analyses of a function at once, for the passes that walk
/// loops.
#[derive(Clone, Copy, Debug)]
pub struct Cfg<'a> {
    pub domtree: &'a DominatorTree,
    pub loops: &'a LoopAnalysis,
    pub preds: &'a Predecessors,
}

impl Analyses {
    /// The dominator tree of `func`.
    pub fn domtree(&mut self, func: &Function) -> &DominatorTree {
        self.domtree
            .get_or_insert_with(|| DominatorTree::compute(func))
    }

    /// The predecessors of `func`'s blocks.
    pub fn preds(&mut self, func: &Function) -> &Predecessors {
        self.preds.get_or_insert_with(|| func.predecessors())
    }

    /// The dominator tree and the predecessors of `func`, for a pass that
    /// needs both but not the loops.
    pub fn domtree_and_preds(&mut self, func: &Function) -> (&DominatorTree, &Predecessors) {
        let preds = self.preds.get_or_insert_with(|| func.predecessors());
        let domtree = self
            .domtree
            .get_or_insert_with(|| DominatorTree::compute(func));
        (domtree, preds)
    }

    /// The dominator tree, the loops and the predecessors of `func`.
    pub fn cfg(&mut self, func: &Function) -> Cfg<'_> {
        let preds = self.preds.get_or_insert_with(|| func.predecessors());
        let domtree = self
            .domtree
            .get_or_insert_with(|| DominatorTree::compute(func));
        let loops = self
            .loops
            .get_or_insert_with(|| LoopAnalysis::with_predecessors(func, domtree, preds));
        Cfg {
            domtree,
            loops,
            preds,
        }
    }

    /// The CFG changed: every analysis is dropped, to be computed again
    /// when asked for.
    pub fn cfg_changed(&mut self) {
        *self = Analyses::default();
    }

    /// The name of a kept analysis that differs from a fresh computation
    /// over `func`, if any: the CFG changed and no one said so.
    pub fn stale(&self, func: &Function) -> Option<&'static str> {
        let domtree = self.domtree.as_ref();
        if domtree.is_some_and(|d| *d != DominatorTree::compute(func)) {
            return Some("dominator tree");
        }
        if self
            .preds
            .as_ref()
            .is_some_and(|p| *p != func.predecessors())
        {
            return Some("predecessors");
        }
        let fresh_loops = || {
            let domtree = DominatorTree::compute(func);
            LoopAnalysis::with_predecessors(func, &domtree, &func.predecessors())
        };
        if self.loops.as_ref().is_some_and(|l| *l != fresh_loops()) {
            return Some("loops");
        }
        None
    }
}

/// The cached analyses of every function of a module.
#[derive(Clone, Debug, Default)]
pub struct ModuleAnalyses {
    funcs: Vec<Analyses>,
}

impl ModuleAnalyses {
    /// The analyses of function `id`.
    pub fn of(&mut self, id: FuncId) -> &mut Analyses {
        if self.funcs.len() <= id.index() {
            self.funcs.resize_with(id.index() + 1, Analyses::default);
        }
        &mut self.funcs[id.index()]
    }

    /// Every function of `module` with its analyses, in order (for running
    /// function passes, one function per job).
    pub fn with_functions<'a>(
        &'a mut self,
        module: &'a mut Module,
    ) -> Vec<(&'a mut Function, &'a mut Analyses)> {
        let n = module.functions.len();
        if self.funcs.len() < n {
            self.funcs.resize_with(n, Analyses::default);
        }
        module
            .functions
            .values_mut()
            .zip(self.funcs.iter_mut())
            .collect()
    }

    /// Some function's CFG changed: every analysis is dropped.
    pub fn cfg_changed(&mut self) {
        self.funcs.clear();
    }

    /// The first function (in order) with a stale analysis, and which.
    pub fn stale<'m>(&self, module: &'m Module) -> Option<(&'m Function, &'static str)> {
        module
            .functions
            .iter()
            .zip(&self.funcs)
            .find_map(|((_, func), an)| an.stale(func).map(|what| (func, what)))
    }
}
