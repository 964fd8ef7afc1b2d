//! Phase 3: the CFG, dominators, and SSA properties (every use dominated by
//! its definition, branch arguments matching target parameters).

use super::{describe_def, is_plain_value, Ctx};
use crate::ir::{Block, Inst, ValueDef};
use std::collections::{HashMap, HashSet};

/// Dominators of the blocks reachable from the entry, computed with the
/// iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
/// Dominance Algorithm", 2001) over a reverse postorder.
pub(crate) struct DomTree {
    /// Postorder number of each reachable block.
    po_number: HashMap<Block, usize>,
    /// Immediate dominator of each reachable block (the entry's is itself).
    idom: HashMap<Block, Block>,
}

impl DomTree {
    /// `succs` gives each block's successors; blocks missing from it have none.
    pub(crate) fn compute(entry: Block, succs: &HashMap<Block, Vec<Block>>) -> DomTree {
        // Iterative depth-first search for the postorder.
        let mut postorder = Vec::new();
        let mut visited = HashSet::from([entry]);
        let mut stack = vec![(entry, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (block, next) = *top;
            let out = succs.get(&block).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&s) = out.get(next) {
                top.1 += 1;
                if visited.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                postorder.push(block);
                stack.pop();
            }
        }
        let po_number: HashMap<Block, usize> =
            postorder.iter().enumerate().map(|(n, &b)| (b, n)).collect();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &postorder {
            for &s in succs.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                preds.entry(s).or_default().push(b);
            }
        }
        let mut idom = HashMap::from([(entry, entry)]);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in postorder.iter().rev().skip(1) {
                let mut new_idom: Option<Block> = None;
                for &p in preds.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                    if !idom.contains_key(&p) {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&idom, &po_number, p, cur),
                    });
                }
                if let Some(n) = new_idom {
                    if idom.get(&b) != Some(&n) {
                        idom.insert(b, n);
                        changed = true;
                    }
                }
            }
        }
        DomTree { po_number, idom }
    }

    pub(crate) fn is_reachable(&self, block: Block) -> bool {
        self.po_number.contains_key(&block)
    }

    /// Whether `a` dominates `b` (every block dominates itself). Unreachable
    /// blocks dominate nothing and are dominated by nothing.
    pub(crate) fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let mut cur = b;
        loop {
            if cur == a {
                return true;
            }
            let up = self.idom[&cur];
            if up == cur {
                return false;
            }
            cur = up;
        }
    }
}

fn intersect(
    idom: &HashMap<Block, Block>,
    po: &HashMap<Block, usize>,
    mut a: Block,
    mut b: Block,
) -> Block {
    while a != b {
        while po[&a] < po[&b] {
            a = idom[&a];
        }
        while po[&b] < po[&a] {
            b = idom[&b];
        }
    }
    a
}

/// Phase 3.
pub(super) fn check_ssa(cx: &mut Ctx) {
    let func = cx.func;
    let dfg = &func.dfg;
    let in_layout: HashSet<Block> = cx.blocks.iter().map(|(b, _)| *b).collect();
    let mut position: HashMap<Inst, (Block, usize)> = HashMap::new();
    for (block, insts) in &cx.blocks {
        for (k, &inst) in insts.iter().enumerate() {
            position.insert(inst, (*block, k));
        }
    }
    let entry = func.layout.entry_block().filter(|b| in_layout.contains(b));
    let checkable = cx.checkable_insts();

    // Branches, and the CFG they make.
    let mut succs: HashMap<Block, Vec<Block>> = HashMap::new();
    for &(block, inst) in &checkable {
        for dest in dfg.insts[inst].branch_destinations() {
            let target = dest.block;
            if !in_layout.contains(&target) {
                cx.at_inst(
                    inst,
                    format!("branch to {target}, which is not in the layout"),
                );
                continue;
            }
            if Some(target) == entry {
                cx.at_inst(inst, format!("branch to the entry block {target}"));
            }
            if !cx.bad_blocks.contains(&target) {
                let params = dfg.block_params(target).len();
                if params != dest.args.len() {
                    cx.at_inst(
                        inst,
                        format!("{target} takes {params} arguments, got {}", dest.args.len()),
                    );
                }
            }
            succs.entry(block).or_default().push(target);
        }
    }
    let Some(entry) = entry else {
        return;
    };
    let domtree = DomTree::compute(entry, &succs);

    // Every use against its definition.
    for &(block, inst) in &checkable {
        let (_, here) = position[&inst];
        let mut operands = Vec::new();
        dfg.insts[inst].for_each_arg(|v| {
            if !operands.contains(&v) {
                operands.push(v)
            }
        });
        let reachable = domtree.is_reachable(block);
        for v in operands {
            if !is_plain_value(func, v) {
                continue; // reported by phase 1
            }
            let def = dfg.value_def(v);
            let ok = match def {
                ValueDef::Result(def_inst, n) => {
                    if dfg.results[def_inst].get(n as usize) != Some(&v) {
                        cx.at_inst(
                            inst,
                            format!(
                                "{v} is recorded as {}, which does not define it",
                                describe_def(def)
                            ),
                        );
                        continue;
                    }
                    let Some(&(def_block, there)) = position.get(&def_inst) else {
                        cx.at_inst(
                            inst,
                            format!("{v} is defined by {def_inst}, which is not in the layout"),
                        );
                        continue;
                    };
                    if def_block == block {
                        there < here
                    } else {
                        !reachable || domtree.dominates(def_block, block)
                    }
                }
                ValueDef::Param(def_block, n) => {
                    let defines = dfg
                        .blocks
                        .get(def_block)
                        .is_some_and(|d| d.params.get(n as usize) == Some(&v));
                    if !defines {
                        cx.at_inst(
                            inst,
                            format!(
                                "{v} is recorded as {}, which does not define it",
                                describe_def(def)
                            ),
                        );
                        continue;
                    }
                    if !in_layout.contains(&def_block) {
                        cx.at_inst(
                            inst,
                            format!(
                                "{v} is a parameter of {def_block}, which is not in the layout"
                            ),
                        );
                        continue;
                    }
                    !reachable || domtree.dominates(def_block, block)
                }
                ValueDef::Alias(_) | ValueDef::Detached => true,
            };
            if !ok {
                cx.at_inst(
                    inst,
                    format!("use of {v} is not dominated by its definition"),
                );
            }
        }
    }
}
