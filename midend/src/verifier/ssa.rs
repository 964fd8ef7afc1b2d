//! Phase 3: the CFG, dominators, and SSA properties (every use dominated by
//! its definition, branch arguments matching target parameters).

use super::{is_plain_value, Ctx, VerifierErrorKind as K};
use crate::analysis::DominatorTree;
use crate::ir::{Block, Inst, ValueDef};
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

/// Phase 3.
pub(super) fn check_ssa(cx: &mut Ctx) {
    let func = cx.func;
    let dfg = &func.dfg;
    let in_layout: FxHashSet<Block> = cx.blocks.iter().map(|(b, _)| *b).collect();
    // Indexed by instruction, not hashed: every placed instruction gets one.
    let mut position: SecondaryMap<Inst, Option<(Block, usize)>> =
        SecondaryMap::with_capacity(dfg.insts.len());
    for (block, insts) in &cx.blocks {
        for (k, &inst) in insts.iter().enumerate() {
            position[inst] = Some((*block, k));
        }
    }
    let entry = func.layout.entry_block().filter(|b| in_layout.contains(b));
    let checkable = cx.checkable_insts();

    // Branches, and the CFG they make.
    let mut succs: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    for &(block, inst) in &checkable {
        for dest in dfg.insts[inst].branch_destinations() {
            let target = dest.block;
            if !in_layout.contains(&target) {
                cx.at_inst(inst, K::BranchOutOfLayout { target });
                continue;
            }
            if Some(target) == entry {
                cx.at_inst(inst, K::BranchToEntry { target });
            }
            if !cx.bad_blocks.contains(&target) {
                let params = dfg.block_params(target).len();
                if params != dest.args.len() {
                    let args = dest.args.len();
                    cx.at_inst(
                        inst,
                        K::BranchArgCount {
                            target,
                            params,
                            args,
                        },
                    );
                }
            }
            succs.entry(block).or_default().push(target);
        }
    }
    let Some(entry) = entry else {
        return;
    };
    let domtree =
        DominatorTree::with_successors(entry, |b| succs.get(&b).cloned().unwrap_or_default());

    // Every use against its definition.
    for &(block, inst) in &checkable {
        let (_, here) = position[inst].expect("checkable instructions are placed");
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
                        cx.at_inst(inst, K::StaleDefinition { value: v, def });
                        continue;
                    }
                    let Some((def_block, there)) = position[def_inst] else {
                        let kind = K::DefiningInstOutOfLayout {
                            value: v,
                            inst: def_inst,
                        };
                        cx.at_inst(inst, kind);
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
                        cx.at_inst(inst, K::StaleDefinition { value: v, def });
                        continue;
                    }
                    if !in_layout.contains(&def_block) {
                        let kind = K::DefiningBlockOutOfLayout {
                            value: v,
                            block: def_block,
                        };
                        cx.at_inst(inst, kind);
                        continue;
                    }
                    !reachable || domtree.dominates(def_block, block)
                }
                ValueDef::Alias(_) | ValueDef::Detached => true,
            };
            if !ok {
                cx.at_inst(inst, K::NotDominated { value: v });
            }
        }
    }
}
