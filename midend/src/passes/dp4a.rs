//! `dp4a`: a sum of the four byte products of two 4-byte words becomes
//! one `dp4a` instruction.
//!
//! `char4 x = a[i], y = b[i]; x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w`
//! lowers to eight byte loads, eight sign extensions, four multiplies and
//! three adds. PTX has one instruction for it, `dp4a.s32.s32 d, a, b, c`
//! (`c` plus the products of the four signed byte lanes of `a` and `b`),
//! which nvcc uses for the same source:
//!
//! ```text
//! v15 = load.i8 v14 align(4)                 v99 = load.i32 v14 align(4)
//! v17 = ptroffset v14, v16     ; +1          v100 = load.i32 v35 align(4)
//! v18 = load.i8 v17                          v101 = iconst.i32 0
//! ...           (b's bytes, from v35)  ==>   v98 = dp4a_s v99, v100, v101
//!                                            (after `dce`)
//! v58 = sext.i32 v15
//! v61 = sext.i32 v36
//! v62 = imul v58, v61
//! ...
//! v98 = iadd v86, v97
//! ```
//!
//! The pass looks at each tree of `iadd`s (inner adds read only by the
//! tree) whose leaves include four products `ext(x_j) * ext(y_j)`, with
//! one extension throughout (`sext`: `dp4a_s`, `zext`: `dp4a_u`), where
//! `x_j` is a byte loaded from `P + j` and `y_j` one from `Q + j` for
//! `j = 0..3`, `P` and `Q` known to be 4-byte aligned (the `align(4)` the
//! frontend puts on the first member of a `char4`). The other leaves are
//! summed into `c`. The byte loads must be in one block, not volatile,
//! with nothing that writes memory between the first and the last of
//! them, and every byte, extension and product read only by the tree;
//! each word is loaded where its lane-0 byte was. The dead byte loads are
//! left for `dce`.

use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{Function, Inst, InstData, MemFlags, Opcode, Type, Value};
use rustc_hash::FxHashMap;

/// The pass-table entry; returns whether any sum was rewritten.
pub fn form_dp4a(func: &mut Function) -> bool {
    // In one walk: how often each value is read, the values 32-bit adds
    // read, and each instruction's position in its block.
    let mut uses: FxHashMap<Value, usize> = FxHashMap::default();
    let mut added: rustc_hash::FxHashSet<Value> = Default::default();
    let mut position: FxHashMap<Inst, usize> = FxHashMap::default();
    for &b in func.layout.blocks() {
        for (n, &inst) in func.layout.block_insts(b).iter().enumerate() {
            position.insert(inst, n);
            let adds = func
                .dfg
                .first_result(inst)
                .is_some_and(|r| is_iadd32(func, r));
            func.dfg.insts[inst].for_each_arg(|v| {
                let v = func.dfg.resolve_aliases(v);
                *uses.entry(v).or_default() += 1;
                if adds {
                    added.insert(v);
                }
            });
        }
    }
    let once = |v: Value| uses.get(&v).copied() == Some(1);
    let mut plans = Vec::new();
    for (_, inst) in func.layout.insts() {
        let Some(root) = func.dfg.first_result(inst) else {
            continue;
        };
        // Only the top of a tree: an add read once, by another add, is
        // part of a bigger one.
        if !is_iadd32(func, root) || (once(root) && added.contains(&root)) {
            continue;
        }
        let mut leaves = Vec::new();
        collect_leaves(func, root, &once, &mut leaves);
        if let Some(plan) = plan_for(func, inst, &leaves, &once, &position) {
            plans.push(plan);
        }
    }
    let changed = !plans.is_empty();
    for plan in plans {
        rewrite(func, plan);
    }
    changed
}

fn is_iadd32(func: &Function, v: Value) -> bool {
    func.dfg.value_type(v) == Type::I32
        && matches!(
            func.dfg.defining_data(v),
            Some(InstData::Binary {
                opcode: Opcode::Iadd,
                ..
            })
        )
}

/// The leaves of the `iadd` tree under `root`, left to right: inner adds
/// are those read only by the tree (the root is always opened). A work
/// list, not recursion: a sum of 100,000 terms is one tree that deep.
fn collect_leaves(
    func: &Function,
    root: Value,
    once: &dyn Fn(Value) -> bool,
    out: &mut Vec<Value>,
) {
    let mut work = vec![(root, true)];
    while let Some((v, is_root)) = work.pop() {
        let v = func.dfg.resolve_aliases(v);
        if is_iadd32(func, v) && (is_root || once(v)) {
            if let Some(&InstData::Binary { args: [a, b], .. }) = func.dfg.defining_data(v) {
                work.push((b, false));
                work.push((a, false));
                continue;
            }
        }
        out.push(v);
    }
}

/// A byte load: its instruction, the base address and the lane (0..3).
struct Byte {
    load: Inst,
    base: Value,
    lane: i64,
}

struct Plan {
    /// The root `iadd`, rewritten into the `dp4a`.
    root: Inst,
    signed: bool,
    /// For each side: the base, the lane-0 byte load (the word load goes
    /// before it) and its flags.
    words: [(Value, Inst, MemFlags); 2],
    /// The leaves that are not products, summed into `c`.
    rest: Vec<Value>,
}

fn plan_for(
    func: &Function,
    root: Inst,
    leaves: &[Value],
    once: &dyn Fn(Value) -> bool,
    position: &FxHashMap<Inst, usize>,
) -> Option<Plan> {
    let mut products = Vec::new();
    let mut rest = Vec::new();
    for &leaf in leaves {
        match product(func, leaf, once) {
            Some(p) if products.len() < 4 => products.push(p),
            _ => rest.push(leaf),
        }
    }
    if products.len() != 4 {
        return None;
    }
    let signed = products[0].0;
    if products.iter().any(|p| p.0 != signed) {
        return None;
    }
    // Pair the sides: every product reads lane j of one base and lane j of
    // the other, the four lanes once each.
    let (pa, pb) = (&products[0].1, &products[0].2);
    let (base_a, base_b) = (pa.base, pb.base);
    let mut seen = [false; 4];
    for (_, x, y) in &products {
        let (x, y) = if x.base == base_a && y.base == base_b {
            (x, y)
        } else if y.base == base_a && x.base == base_b {
            (y, x)
        } else {
            return None;
        };
        if x.lane != y.lane || seen[x.lane as usize] {
            return None;
        }
        seen[x.lane as usize] = true;
    }
    // All eight loads in one block, with nothing that writes memory from
    // the first to the last.
    let loads: Vec<Inst> = products
        .iter()
        .flat_map(|(_, x, y)| [x.load, y.load])
        .collect();
    let block = func.layout.inst_block(loads[0])?;
    if loads
        .iter()
        .any(|&l| func.layout.inst_block(l) != Some(block))
    {
        return None;
    }
    let insts = func.layout.block_insts(block);
    let at = |l: &Inst| position[l];
    let (lo, hi) = (loads.iter().map(at).min()?, loads.iter().map(at).max()?);
    if insts[lo..=hi]
        .iter()
        .any(|&i| func.dfg.insts[i].opcode().has_side_effects())
    {
        return None;
    }
    // Each word is loaded where its lane-0 byte was (its base is defined
    // there; no write between the byte loads, so the word holds the same
    // bytes); the root reads the loads, so they dominate it.
    let word = |base: Value| -> Option<(Value, Inst, MemFlags)> {
        let lane0 = products
            .iter()
            .flat_map(|(_, x, y)| [x, y])
            .find(|b| b.base == base && b.lane == 0)?;
        let InstData::Load { flags, .. } = &func.dfg.insts[lane0.load] else {
            return None;
        };
        if flags.volatile || flags.align < 4 {
            return None;
        }
        Some((base, lane0.load, flags.clone()))
    };
    Some(Plan {
        root,
        signed,
        words: [word(base_a)?, word(base_b)?],
        rest,
    })
}

/// `leaf` as `ext(x) * ext(y)` of two byte loads, each value read once:
/// whether signed, and the two bytes.
fn product(
    func: &Function,
    leaf: Value,
    once: &dyn Fn(Value) -> bool,
) -> Option<(bool, Byte, Byte)> {
    let &InstData::Binary {
        opcode: Opcode::Imul,
        args: [a, b],
    } = func.dfg.defining_data(leaf)?
    else {
        return None;
    };
    let (sa, x) = extended_byte(func, a, once)?;
    let (sb, y) = extended_byte(func, b, once)?;
    (sa == sb).then_some((sa, x, y))
}

fn extended_byte(func: &Function, v: Value, once: &dyn Fn(Value) -> bool) -> Option<(bool, Byte)> {
    let v = func.dfg.resolve_aliases(v);
    let &InstData::Convert {
        opcode: op @ (Opcode::Sext | Opcode::Zext),
        ty: Type::I32,
        arg,
    } = func.dfg.defining_data(v)?
    else {
        return None;
    };
    let arg = func.dfg.resolve_aliases(arg);
    if !once(v) || !once(arg) || func.dfg.value_type(arg) != Type::I8 {
        return None;
    }
    let crate::ir::ValueDef::Result(load, 0) = func.dfg.value_def(arg) else {
        return None;
    };
    let InstData::Load { ptr, flags, .. } = &func.dfg.insts[load] else {
        return None;
    };
    if flags.volatile {
        return None;
    }
    let ptr = func.dfg.resolve_aliases(*ptr);
    let (base, lane) = match func.dfg.defining_data(ptr) {
        Some(&InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [base, off],
        }) => match func.dfg.iconst_value(off) {
            Some(k @ 1..=3) => (func.dfg.resolve_aliases(base), k),
            _ => (ptr, 0),
        },
        _ => (ptr, 0),
    };
    Some((op == Opcode::Sext, Byte { load, base, lane }))
}

fn rewrite(func: &mut Function, plan: Plan) {
    let [(pa, la, fa), (pb, lb, fb)] = plan.words;
    let wa = FuncCursor::before_with_span(func, la).load(Type::I32, pa, fa);
    let wb = FuncCursor::before_with_span(func, lb).load(Type::I32, pb, fb);
    let mut cur = FuncCursor::before_with_span(func, plan.root);
    let mut c = None;
    for v in plan.rest {
        c = Some(match c {
            None => v,
            Some(acc) => cur.iadd(acc, v),
        });
    }
    let c = match c {
        Some(c) => c,
        None => cur.iconst(Type::I32, 0),
    };
    let opcode = if plan.signed {
        Opcode::Dp4aS
    } else {
        Opcode::Dp4aU
    };
    func.dfg.insts[plan.root] = InstData::Ternary {
        opcode,
        args: [wa, wb, c],
    };
}
