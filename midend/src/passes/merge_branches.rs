//! `merge-branches`: one branch on a combined condition instead of a chain
//! of branches to a common destination.
//!
//! C's `&&` and `||` evaluate their right side only when the left side
//! does not decide the result, so `if (x < w && y < h)` lowers to two
//! branches, and both lead to the same place when a test fails:
//!
//! ```text
//! block0:                               block0:
//!     v5 = icmp slt v1, v3                  v5 = icmp slt v1, v3
//!     brif v5, block1, block3     ==>       v6 = icmp slt v2, v4
//! block1:                                   v7 = band v5, v6
//!     v6 = icmp slt v2, v4                  brif v7, block2, block3
//!     brif v6, block2, block3
//! ```
//!
//! When the second test is cheap and safe to evaluate early (pure
//! arithmetic, see `speculate.rs`; never a load, which could fault), both
//! tests run and one `and`/`or` of the predicates picks the way. On the GPU
//! every branch that threads may take differently costs a reconvergence
//! point besides the branch itself, and predicate logic is free in compares
//! (`ISETP.GE.OR`), so one branch is cheaper than two.
//!
//! The pattern: block `A` ends in `brif c1` with one successor `B` whose
//! only predecessor is `A`, which has no parameters, at most
//! [`MAX_SPECULATED`] cheap instructions (constants not counted) and ends in
//! `brif c2`; `A`'s other successor `O` is one of `B`'s successors, with the
//! same arguments on both edges. Then `B`'s instructions move to `A`, and
//! `A` branches on the combination (four cases, by which sides lead to `O`):
//!
//! | `A` reaches `B` when | `O` is `B`'s | `A` branches on | to |
//! |---|---|---|---|
//! | `c1`  | else | `c1 & c2`  | `B`'s then / else |
//! | `c1`  | then | `c1 & !c2` | `B`'s else / then |
//! | `!c1` | then | `c1 \| c2` | `B`'s then / else |
//! | `!c1` | else | `!c1 & c2` | `B`'s then / else |
//!
//! A negated comparison is written as the opposite comparison (`!(x < y)`
//! is `x >= y`, and for floats `!(x olt y)` is `x uge y`, true on NaN).
//! `B` is then unreachable (`cfg-cleanup` removes it). The merged branch can
//! merge again with the next test, so a chain `a || b || c || d` becomes
//! one branch.

use super::speculate::{is_cheap_speculatable, is_constant};
use super::Changed;
use crate::analysis::{edge_counts, Analyses};
use crate::ir::{
    Block, BlockCall, FloatCC, Function, Inst, InstData, IntCC, Opcode, Type, Value, ValueDef,
};
use cranelift_entity::SecondaryMap;

/// The most non-constant instructions a merged test may bring along (C's
/// `x == width - 1` needs two).
pub const MAX_SPECULATED: usize = 4;

/// The pass-table entry; returns what changed (the CFG, when branches
/// were merged).
pub fn merge_branches(func: &mut Function, analyses: &mut Analyses) -> Changed {
    // Each merge removes edges, so the counts start from the cached
    // predecessors and the loop below keeps them.
    let mut preds = edge_counts(analyses.preds(func));
    let mut changed = false;
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    for a in blocks {
        if !func.layout.is_block_inserted(a) {
            continue;
        }
        // Merge as long as the (new) branch of `a` still fits the pattern.
        while let Some(plan) = plan_merge(func, a, &preds) {
            // `B` loses its edge from `A`; the edges out of `B` now leave
            // `A` (same counts), and `A`'s edge to `O` replaces... nothing:
            // `O` had an edge from `A` and one from `B`, and keeps one.
            preds[plan.b] -= 1;
            preds[plan.other] -= 1;
            apply(func, a, plan);
            changed = true;
        }
    }
    if changed {
        // The bypassed blocks have no predecessors left.
        let dead: rustc_hash::FxHashSet<Block> = func
            .layout
            .blocks()
            .iter()
            .copied()
            .filter(|&b| Some(b) != func.layout.entry_block() && preds[b] == 0)
            .collect();
        func.layout.remove_blocks(&dead);
    }
    Changed::cfg_if(changed)
}

/// One merge: the block `b` folded into its predecessor, and the new branch.
struct Plan {
    b: Block,
    /// The successor that `a` and `b` share.
    other: Block,
    /// `a`'s condition, and whether the new condition reads it negated.
    c1: (Value, bool),
    /// `b`'s condition, and whether it is negated.
    c2: (Value, bool),
    /// `band` or `bor`.
    op: Opcode,
    then_dest: BlockCall,
    else_dest: BlockCall,
}

fn brif_parts(func: &Function, block: Block) -> Option<(Value, BlockCall, BlockCall)> {
    let last = func.layout.last_inst(block)?;
    match &func.dfg.insts[last] {
        InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } => Some((*cond, then_dest.clone(), else_dest.clone())),
        _ => None,
    }
}

fn plan_merge(func: &Function, a: Block, preds: &SecondaryMap<Block, u32>) -> Option<Plan> {
    let (c1, a_then, a_else) = brif_parts(func, a)?;
    if a_then.block == a_else.block {
        return None;
    }
    // Try `B` as A's then side first, then as its else side.
    for b_is_then in [true, false] {
        let (to_b, to_o) = if b_is_then {
            (&a_then, &a_else)
        } else {
            (&a_else, &a_then)
        };
        let b = to_b.block;
        if b == a
            || preds[b] != 1
            || !to_b.args.is_empty()
            || !func.dfg.block_params(b).is_empty()
            || Some(b) == func.layout.entry_block()
        {
            continue;
        }
        let Some((c2, b_then, b_else)) = brif_parts(func, b) else {
            continue;
        };
        if b_then.block == b_else.block || !speculatable_body(func, b) {
            continue;
        }
        let o_is_b_then = if b_then == *to_o {
            true
        } else if b_else == *to_o {
            false
        } else {
            continue;
        };
        let (c1n, c2n, op, then_dest, else_dest) = match (b_is_then, o_is_b_then) {
            // a: c1 ? B : O, B: c2 ? T : O  =>  c1 & c2 ? T : O
            (true, false) => (false, false, Opcode::Band, b_then, b_else),
            // a: c1 ? B : O, B: c2 ? O : F  =>  c1 & !c2 ? F : O
            (true, true) => (false, true, Opcode::Band, b_else, b_then),
            // a: c1 ? O : B, B: c2 ? O : F  =>  c1 | c2 ? O : F
            (false, true) => (false, false, Opcode::Bor, b_then, b_else),
            // a: c1 ? O : B, B: c2 ? T : O  =>  !c1 & c2 ? T : O
            (false, false) => (true, false, Opcode::Band, b_then, b_else),
        };
        return Some(Plan {
            b,
            other: to_o.block,
            c1: (c1, c1n),
            c2: (c2, c2n),
            op,
            then_dest,
            else_dest,
        });
    }
    None
}

/// Whether every instruction of `b` but its branch is cheap and safe to run
/// early, with at most [`MAX_SPECULATED`] that are not constants.
fn speculatable_body(func: &Function, b: Block) -> bool {
    let insts = func.layout.block_insts(b);
    let body = &insts[..insts.len() - 1];
    let mut cost = 0;
    for &inst in body {
        let data = &func.dfg.insts[inst];
        if !is_cheap_speculatable(data) {
            return false;
        }
        if !is_constant(data) {
            cost += 1;
        }
    }
    cost <= MAX_SPECULATED
}

fn apply(func: &mut Function, a: Block, plan: Plan) {
    let term = func.layout.last_inst(a).expect("a ends in its brif");
    let b_insts: Vec<Inst> = func.layout.block_insts(plan.b).to_vec();
    let (b_term, b_body) = b_insts.split_last().expect("b ends in its brif");
    for &inst in b_body {
        func.layout.remove_inst(inst);
        func.layout.insert_inst_before(inst, term);
    }
    func.layout.remove_inst(*b_term);
    let operand = |func: &mut Function, (v, negated): (Value, bool)| {
        if !negated {
            return v;
        }
        // A negated comparison is the opposite comparison; anything else
        // gets a `bnot`.
        let data = match func.dfg.value_def(v) {
            ValueDef::Result(def, 0) => match func.dfg.insts[def] {
                InstData::IntCompare { cond, args } => InstData::IntCompare {
                    cond: int_opposite(cond),
                    args,
                },
                InstData::FloatCompare { cond, args } => InstData::FloatCompare {
                    cond: float_opposite(cond),
                    args,
                },
                _ => InstData::Unary {
                    opcode: Opcode::Bnot,
                    arg: v,
                },
            },
            _ => InstData::Unary {
                opcode: Opcode::Bnot,
                arg: v,
            },
        };
        let not = func.dfg.make_inst(data, &[Type::I1]);
        func.layout.insert_inst_before(not, term);
        func.dfg.first_result(not).expect("bnot has a result")
    };
    let x = operand(func, plan.c1);
    let y = operand(func, plan.c2);
    let combined = func.dfg.make_inst(
        InstData::Binary {
            opcode: plan.op,
            args: [x, y],
        },
        &[Type::I1],
    );
    func.layout.insert_inst_before(combined, term);
    let cond = func.dfg.first_result(combined).expect("band has a result");
    func.dfg.insts[term] = InstData::Brif {
        cond,
        then_dest: plan.then_dest,
        else_dest: plan.else_dest,
    };
}

/// The condition true exactly when `cc` is false.
fn int_opposite(cc: IntCC) -> IntCC {
    use IntCC::*;
    match cc {
        Eq => Ne,
        Ne => Eq,
        Slt => Sge,
        Sge => Slt,
        Sle => Sgt,
        Sgt => Sle,
        Ult => Uge,
        Uge => Ult,
        Ule => Ugt,
        Ugt => Ule,
    }
}

/// The condition true exactly when `cc` is false: an ordered test becomes
/// the unordered opposite (`olt` fails on NaN, so its negation `uge` holds).
fn float_opposite(cc: FloatCC) -> FloatCC {
    use FloatCC::*;
    match cc {
        Oeq => Une,
        Une => Oeq,
        One => Ueq,
        Ueq => One,
        Olt => Uge,
        Uge => Olt,
        Ole => Ugt,
        Ugt => Ole,
        Ogt => Ule,
        Ule => Ogt,
        Oge => Ult,
        Ult => Oge,
        Ord => Uno,
        Uno => Ord,
    }
}
