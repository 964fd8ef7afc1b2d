//! Run-time space tests as proofs: `if (__isShared(p)) { ... p[i] ... }`.
//!
//! A pointer that stays generic (a shared and a global pointer met, or a
//! parameter whose callers pass both) may still be tested at run time with
//! `is_space`. Where the test is known to have passed, the pointer is in
//! that space: every access through it (or through an offset of it) in the
//! blocks that only the taken edge reaches gets a cast to the space, so the
//! backend emits `ld.shared` / `st.global` there instead of a generic access.
//! nvcc does the same; without it a guarded helper keeps generic accesses.
//!
//! The region is the set of blocks dominated by the edge's target, when that
//! target has the testing block as its only predecessor (otherwise another
//! path could enter it without the test).

use crate::analysis::{DominatorTree, Predecessors};
use crate::ir::{AddrSpace, Block, Function, Inst, InstData, IntCC, Opcode, Type, Value, ValueDef};

const GENERIC: Type = Type::Ptr(AddrSpace::Generic);

/// The `is_space` test a branch condition makes, and whether the branch's
/// `then` edge is taken when the test passes. Sees through the C shape
/// `icmp ne (zext t), 0` (and `eq`, which swaps the edges).
fn space_test(func: &Function, cond: Value) -> Option<(AddrSpace, Value, bool)> {
    let dfg = &func.dfg;
    let mut v = dfg.resolve_aliases(cond);
    let mut then_on_pass = true;
    for _ in 0..8 {
        let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
            return None;
        };
        match &dfg.insts[inst] {
            InstData::IsSpace { space, arg } => {
                return Some((*space, dfg.resolve_aliases(*arg), then_on_pass))
            }
            InstData::Convert {
                opcode: Opcode::Zext,
                arg,
                ..
            } => v = dfg.resolve_aliases(*arg),
            InstData::IntCompare {
                cond: cc @ (IntCC::Ne | IntCC::Eq),
                args: [a, b],
            } => {
                let zero = |x: Value| {
                    matches!(
                        dfg.value_def(dfg.resolve_aliases(x)),
                        ValueDef::Result(i, 0)
                            if matches!(dfg.insts[i], InstData::Iconst { imm: 0, .. })
                    )
                };
                let other = if zero(*b) {
                    *a
                } else if zero(*a) {
                    *b
                } else {
                    return None;
                };
                if *cc == IntCC::Eq {
                    then_on_pass = !then_on_pass;
                }
                v = dfg.resolve_aliases(other);
            }
            _ => return None,
        }
    }
    None
}

/// The value `p` was offset from (through `ptroffset`s), resolved.
fn root(func: &Function, p: Value) -> Value {
    let dfg = &func.dfg;
    let mut v = dfg.resolve_aliases(p);
    for _ in 0..64 {
        match dfg.value_def(v) {
            ValueDef::Result(i, 0) => match dfg.insts[i] {
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    args: [base, _],
                } => v = dfg.resolve_aliases(base),
                _ => break,
            },
            _ => break,
        }
    }
    v
}

/// Whether an access of this kind may go through a pointer of `space`: the
/// verifier refuses stores to constant memory and atomics on local or
/// constant memory, so those keep their generic pointer.
fn admits(data: &InstData, global_only: bool, space: AddrSpace) -> bool {
    // PTX's vector atomics on `f32` reach global memory only.
    if global_only {
        return space == AddrSpace::Global;
    }
    match space {
        AddrSpace::Global | AddrSpace::Shared => true,
        AddrSpace::Local => matches!(data, InstData::Load { .. } | InstData::Store { .. }),
        AddrSpace::Const => matches!(data, InstData::Load { .. }),
        _ => false,
    }
}

/// Applies every guard of `func`, whose dominator tree and predecessors
/// are `dom` and `preds`. Returns whether anything changed.
pub fn refine_guarded_accesses(
    func: &mut Function,
    dom: &DominatorTree,
    preds: &Predecessors,
) -> bool {
    if func.entry_block().is_none() {
        return false;
    }
    let blocks: Vec<Block> = func.layout.blocks().to_vec();
    // (region head, tested pointer, space), in layout order.
    let mut guards: Vec<(Block, Value, AddrSpace)> = Vec::new();
    for &b in &blocks {
        let Some(&last) = func.layout.block_insts(b).last() else {
            continue;
        };
        let InstData::Brif {
            cond,
            then_dest,
            else_dest,
        } = &func.dfg.insts[last]
        else {
            continue;
        };
        let Some((space, p, then_on_pass)) = space_test(func, *cond) else {
            continue;
        };
        if func.dfg.value_type(p) != GENERIC {
            continue;
        }
        let head = if then_on_pass {
            then_dest.block
        } else {
            else_dest.block
        };
        if then_dest.block != else_dest.block && preds[head].len() == 1 {
            guards.push((head, p, space));
        }
    }
    let mut changed = false;
    for (head, p, space) in guards {
        let accesses: Vec<Inst> = func
            .layout
            .blocks()
            .iter()
            .filter(|&&b| dom.dominates(head, b))
            .flat_map(|&b| func.layout.block_insts(b).to_vec())
            .collect();
        for inst in accesses {
            let data = func.dfg.insts[inst].clone();
            let global_only = func.dfg.is_global_only_atomic(inst);
            if matches!(data, InstData::Accel { .. }) || !admits(&data, global_only, space) {
                continue;
            }
            let Some(ptr) = data.mem_ptr() else { continue };
            if func.dfg.value_type(ptr) != GENERIC || root(func, ptr) != p {
                continue;
            }
            let cast = func.dfg.make_inst(
                InstData::AddrSpaceCast {
                    to: space,
                    arg: ptr,
                },
                &[Type::Ptr(space)],
            );
            func.layout.insert_inst_before(cast, inst);
            func.spans[cast] = func.spans[inst];
            let narrowed = func.dfg.inst_results(cast)[0];
            let mut data = data;
            data.set_mem_ptr(narrowed);
            func.dfg.insts[inst] = data;
            changed = true;
        }
    }
    changed
}
