//! `sroa`: scalar replacement of local arrays.
//!
//! A C local array (or a struct, or a scalar whose address was taken) lives
//! in a stack slot, which the backend turns into a `.local` array in memory.
//! When every access to the slot is a load or store at a *constant* byte
//! offset, and the address never escapes (never stored, passed to a call,
//! compared, cast, or sent through a block parameter), each accessed piece
//! of the slot is just a variable. This pass turns each piece into SSA
//! values: a store defines the piece, a load reads its current definition.
//! Tensor-core fragments (`unsigned fa[8]`) and accumulators then stay in
//! registers. Indices become constants after `unroll` and `simplify`, which
//! is why this pass runs after them.
//!
//! A slot is split only when its pieces are clean: every access lies inside
//! the slot, accesses at one offset all have one size, and pieces at
//! different offsets do not overlap (no reading an `i32` as two `i16`s).
//! Volatile accesses keep the slot in memory.
//!
//! Accesses at one offset may differ in type: type punning through a union
//! (`u.f = x; return u.i;`) or `memcpy` (a `float[4]` copied into an `int4`
//! as four words) reads the same bits under another type of the same size.
//! The piece takes the type of its first access in the layout; a load of
//! another type becomes a `bitcast` of the piece's value, and a store of
//! another type stores the value's `bitcast`, so the bits stay in a
//! register, as nvcc keeps them (`mov.b32` between a float and an integer
//! register, which costs nothing in SASS).
//!
//! SSA form is built the classic way (Cytron et al.), per piece: block
//! parameters go on the iterated dominance frontier of the blocks that store
//! the piece, pruned to the blocks where the piece is live on entry; then
//! one walk down the dominator tree gives every load the definition that
//! reaches it. The entry block counts as a definition: memory of a fresh
//! slot reads as zero (as the interpreter gives it), so a read before any
//! write reads zero here too. The dead addresses are left to `dce`.

use super::Changed;
use crate::analysis::{distinct_preds, Analyses, DominatorTree, Predecessors};
use crate::ir::{Block, Function, Inst, InstData, LayoutEdits, Opcode, StackSlot, Type, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};

/// The control-flow facts every piece needs, computed once.
struct Cfg<'a> {
    domtree: &'a DominatorTree,
    /// The predecessors, one entry per edge (every block is reachable: the
    /// pass leaves a function with unreachable blocks alone).
    preds: &'a Predecessors,
    /// Dominance frontiers.
    df: FxHashMap<Block, Vec<Block>>,
    /// Each block's index in the dominator tree's preorder.
    preorder: FxHashMap<Block, usize>,
}

/// One access to a slot.
struct Access {
    inst: Inst,
    block: Block,
    /// Position in its block (filled in once all accesses are known).
    pos: usize,
    offset: i64,
    ty: Type,
    is_store: bool,
}

/// The pass-table entry; returns what changed (values and block
/// parameters, never the CFG).
// Long: collecting the derived addresses and their uses, checking that
// none escapes, and rewriting each piece share the per-slot tables; each
// step is a commented paragraph.
pub fn split_local_arrays(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let Some(entry) = func.entry_block() else {
        return Changed::Nothing;
    };
    let domtree = analyses.domtree(func);
    // Addresses derived from a slot at a constant offset, found in an order
    // where definitions come first.
    let mut addr: FxHashMap<Value, (StackSlot, i64)> = FxHashMap::default();
    let mut escaped: FxHashSet<StackSlot> = FxHashSet::default();
    for &b in domtree.reverse_post_order() {
        for &inst in func.layout.block_insts(b) {
            match &func.dfg.insts[inst] {
                InstData::StackAddr { slot } => {
                    addr.insert(func.dfg.inst_results(inst)[0], (*slot, 0));
                }
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    args: [p, off],
                } => {
                    if let Some(&(slot, base)) = addr.get(&func.dfg.resolve_aliases(*p)) {
                        match func
                            .dfg
                            .iconst_value(*off)
                            .and_then(|c| base.checked_add(c))
                        {
                            Some(o) => {
                                addr.insert(func.dfg.inst_results(inst)[0], (slot, o));
                            }
                            None => {
                                escaped.insert(slot);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if addr.is_empty() {
        return Changed::Nothing;
    }
    // Every use of an address: a load or store through it, or an offset
    // from it; anything else lets it escape.
    let mut accesses: BTreeMap<StackSlot, Vec<Access>> = BTreeMap::new();
    for (block, inst) in func.layout.insts() {
        let data = &func.dfg.insts[inst];
        let tracked = |v: Value| addr.get(&func.dfg.resolve_aliases(v)).copied();
        match data {
            InstData::Load { ty, ptr, flags } => {
                if let Some((slot, offset)) = tracked(*ptr) {
                    if flags.volatile || !domtree.is_reachable(block) {
                        escaped.insert(slot);
                    }
                    accesses.entry(slot).or_default().push(Access {
                        inst,
                        block,
                        pos: 0,
                        offset,
                        ty: *ty,
                        is_store: false,
                    });
                }
                continue;
            }
            InstData::Store { value, ptr, flags } => {
                if let Some((slot, _)) = tracked(*value) {
                    escaped.insert(slot);
                }
                if let Some((slot, offset)) = tracked(*ptr) {
                    if flags.volatile || !domtree.is_reachable(block) {
                        escaped.insert(slot);
                    }
                    accesses.entry(slot).or_default().push(Access {
                        inst,
                        block,
                        pos: 0,
                        offset,
                        ty: func.dfg.value_type(*value),
                        is_store: true,
                    });
                }
                continue;
            }
            InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [p, _],
            } if func
                .dfg
                .inst_results(inst)
                .first()
                .is_some_and(|r| addr.contains_key(r)) =>
            {
                let _ = p;
                continue;
            }
            _ => {}
        }
        data.for_each_arg(|v| {
            if let Some((slot, _)) = tracked(v) {
                escaped.insert(slot);
            }
        });
    }
    // Asked for only now: most functions have no slot to split.
    let (domtree, preds) = analyses.domtree_and_preds(func);
    // An entry block with predecessors, or unreachable blocks (which would
    // need arguments for new parameters): leave such a function alone.
    if !preds[entry].is_empty()
        || func
            .layout
            .blocks()
            .iter()
            .any(|&b| !domtree.is_reachable(b))
    {
        return Changed::Nothing;
    }
    let df = frontiers(domtree, preds);
    let preorder: FxHashMap<Block, usize> = domtree
        .preorder()
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    let cfg = Cfg {
        domtree,
        preds,
        df,
        preorder,
    };
    // Each access's position in its block, from one scan of each block
    // that has accesses (not one per piece).
    let mut positions: FxHashMap<Inst, usize> = FxHashMap::default();
    let access_blocks: BTreeSet<Block> = accesses.values().flatten().map(|a| a.block).collect();
    for b in access_blocks {
        for (i, &inst) in func.layout.block_insts(b).iter().enumerate() {
            positions.insert(inst, i);
        }
    }
    let mut changed = false;
    // The accesses promoted away, and the bitcasts of punned ones.
    let mut edits = LayoutEdits::default();
    for (slot, mut list) in accesses {
        if escaped.contains(&slot) {
            continue;
        }
        let Some(pieces) = pieces(func, slot, &list) else {
            continue;
        };
        for a in &mut list {
            a.pos = positions[&a.inst];
        }
        // Each piece's accesses, in dominator-tree preorder of their
        // blocks and in order within a block.
        let mut by_offset: BTreeMap<i64, Vec<&Access>> = BTreeMap::new();
        for a in &list {
            by_offset.entry(a.offset).or_default().push(a);
        }
        for (offset, ty) in pieces {
            let mut mine = by_offset.remove(&offset).unwrap_or_default();
            mine.sort_by_key(|a| (cfg.preorder[&a.block], a.pos));
            promote(func, &cfg, entry, ty, &mine, &mut edits);
        }
        changed = true;
    }
    if changed {
        func.layout.apply(edits);
        func.dfg.resolve_all_aliases();
    }
    Changed::insts_if(changed)
}

/// The pieces (offset, type) of a slot, if its accesses split it cleanly:
/// each piece has the type of its first access (in `list`'s order, the
/// layout's), and every access at its offset has that type's size.
fn pieces(func: &Function, slot: StackSlot, list: &[Access]) -> Option<Vec<(i64, Type)>> {
    let size = i64::from(func.stack_slots[slot].size);
    let mut by_offset: BTreeMap<i64, Type> = BTreeMap::new();
    for a in list {
        if !(a.ty.is_int() || a.ty.is_float()) || a.ty == Type::I1 {
            return None;
        }
        if a.offset < 0 || a.offset + i64::from(a.ty.bytes()) > size {
            return None;
        }
        if by_offset.entry(a.offset).or_insert(a.ty).bytes() != a.ty.bytes() {
            return None;
        }
    }
    let mut end = 0;
    for (&off, ty) in &by_offset {
        if off < end {
            return None;
        }
        end = off + i64::from(ty.bytes());
    }
    Some(by_offset.into_iter().collect())
}

/// Builds SSA values for one piece of type `ty`, given all its loads and
/// stores (in dominator-tree preorder of their blocks, and in order within
/// a block); each access goes into `edits` as removed, and the bitcast of
/// an access of another type as inserted before it.
///
/// The work is proportional to the piece's accesses, its new parameters
/// and the dominator-tree steps between them, not to the function's size,
/// so a slot of many pieces (a 64-float accumulator) costs no pass over
/// the whole function per piece.
fn promote(
    func: &mut Function,
    cfg: &Cfg,
    entry: Block,
    ty: Type,
    accesses: &[&Access],
    edits: &mut LayoutEdits,
) {
    // Per block: whether it stores the piece, and whether it reads it
    // before storing it (upward exposed). Accesses come grouped by block,
    // in order.
    let mut stores: BTreeSet<Block> = BTreeSet::new();
    let mut exposed: FxHashSet<Block> = FxHashSet::default();
    for (i, a) in accesses.iter().enumerate() {
        let first_in_block = i == 0 || accesses[i - 1].block != a.block;
        if first_in_block && !a.is_store {
            exposed.insert(a.block);
        }
        if a.is_store {
            stores.insert(a.block);
        }
    }
    // Live on entry: upward exposed, or live out without a store.
    let mut live_in: FxHashSet<Block> = exposed.clone();
    let mut work: Vec<Block> = exposed.iter().copied().collect();
    work.sort();
    while let Some(b) = work.pop() {
        for &p in &cfg.preds[b] {
            if !stores.contains(&p) && live_in.insert(p) {
                work.push(p);
            }
        }
    }
    // Parameters on the iterated dominance frontier of the stores (and of
    // the entry, whose definition is the zero).
    let mut params: FxHashMap<Block, Value> = FxHashMap::default();
    let mut work: Vec<Block> = stores.iter().copied().chain([entry]).collect();
    work.sort();
    work.dedup();
    let mut queued: FxHashSet<Block> = work.iter().copied().collect();
    while let Some(b) = work.pop() {
        for &f in cfg.df.get(&b).into_iter().flatten() {
            if !live_in.contains(&f) || params.contains_key(&f) {
                continue;
            }
            let p = func.dfg.append_block_param(f, ty);
            params.insert(f, p);
            if queued.insert(f) {
                work.push(f);
            }
        }
    }
    // The zero a fresh slot reads as.
    let zero_data = if ty.is_float() {
        InstData::Fconst { ty, value: 0.0 }
    } else {
        InstData::Iconst { ty, imm: 0 }
    };
    let zero_inst = func.dfg.make_inst(zero_data, &[ty]);
    let zero = func.dfg.inst_results(zero_inst)[0];
    match func.layout.block_insts(entry).first().copied() {
        Some(first) => func.layout.insert_inst_before(zero_inst, first),
        None => func.layout.append_inst(zero_inst, entry),
    }
    // The value of the piece at the end of each block that was asked
    // about: the block's last store, or else its value on entry, which is
    // its parameter, or else the value at the end of its immediate
    // dominator (the zero above the entry). Blocks with accesses are
    // visited in preorder, so their dominators are settled first.
    let mut end: FxHashMap<Block, Value> = FxHashMap::default();
    let mut i = 0;
    while i < accesses.len() {
        let b = accesses[i].block;
        let mut cur = value_at_entry(cfg, &params, &mut end, zero, b);
        while i < accesses.len() && accesses[i].block == b {
            let inst = accesses[i].inst;
            if accesses[i].is_store {
                let InstData::Store { value, .. } = func.dfg.insts[inst] else {
                    unreachable!("a store access");
                };
                cur = bitcast_to(func, ty, func.dfg.resolve_aliases(value), inst, edits);
            } else {
                let r = func.dfg.inst_results(inst)[0];
                let read = bitcast_to(func, accesses[i].ty, cur, inst, edits);
                func.dfg.change_to_alias(r, read);
            }
            edits.remove(inst);
            i += 1;
        }
        end.insert(b, cur);
    }
    // Arguments for the new parameters, on every edge into their blocks.
    let mut param_blocks: Vec<Block> = params.keys().copied().collect();
    param_blocks.sort();
    for f in param_blocks {
        for p in distinct_preds(&cfg.preds[f]) {
            let out = match end.get(&p) {
                Some(&v) => v,
                None => {
                    let v = value_at_entry(cfg, &params, &mut end, zero, p);
                    end.insert(p, v);
                    v
                }
            };
            let term = func
                .layout
                .last_inst(p)
                .expect("a predecessor has a branch");
            let mut data = func.dfg.insts[term].clone();
            for d in data.branch_destinations_mut() {
                if d.block == f {
                    d.args.push(out);
                }
            }
            func.dfg.insts[term] = data;
        }
    }
}

/// `v` as a value of type `ty`: itself, or its `bitcast` (same size)
/// placed before `at`.
fn bitcast_to(func: &mut Function, ty: Type, v: Value, at: Inst, edits: &mut LayoutEdits) -> Value {
    if func.dfg.value_type(v) == ty {
        return v;
    }
    let cast = func.dfg.make_inst(
        InstData::Convert {
            opcode: Opcode::Bitcast,
            ty,
            arg: v,
        },
        &[ty],
    );
    edits.insert_before(cast, at);
    func.dfg.inst_results(cast)[0]
}

/// The value of a piece on entry to `b`: its parameter there, or the value
/// at the end of the nearest dominator that has a parameter or an entry in
/// `end` (blocks without stores pass the value through), or the zero.
/// Iterative, and it remembers every block it walks through.
fn value_at_entry(
    cfg: &Cfg,
    params: &FxHashMap<Block, Value>,
    end: &mut FxHashMap<Block, Value>,
    zero: Value,
    b: Block,
) -> Value {
    if let Some(&p) = params.get(&b) {
        return p;
    }
    // Walk up until a known value; every block on the way (strict
    // dominators of `b`) has no store of the piece, so it passes the same
    // value through.
    let mut path = Vec::new();
    let mut at = cfg.domtree.idom(b);
    let v = loop {
        let Some(d) = at else { break zero };
        if let Some(&v) = end.get(&d) {
            break v;
        }
        if let Some(&p) = params.get(&d) {
            path.push(d);
            break p;
        }
        path.push(d);
        at = cfg.domtree.idom(d);
    };
    for d in path {
        end.insert(d, v);
    }
    v
}

/// Every block's dominance frontier: the blocks where its dominance ends
/// (it dominates a predecessor, not strictly the block itself). Cooper,
/// Harvey and Kennedy's walk up from each predecessor of each join.
fn frontiers(domtree: &DominatorTree, preds: &Predecessors) -> FxHashMap<Block, Vec<Block>> {
    let mut df: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    for &join in domtree.reverse_post_order() {
        // A join of two edges from one block (a `brif` with both sides on
        // it) has that block as its immediate dominator: no walk records
        // anything for it.
        if preds[join].len() < 2 {
            continue;
        }
        let Some(idom) = domtree.idom(join) else {
            continue;
        };
        for p in distinct_preds(&preds[join]) {
            let mut runner = p;
            while runner != idom {
                // Joins are taken one at a time, so one already recorded
                // here is the last entry; and the walk that recorded it went
                // on up to `idom`, so this one can stop (walking on made a
                // join of thousands of predecessors quadratic).
                let list = df.entry(runner).or_default();
                if list.last() == Some(&join) {
                    break;
                }
                list.push(join);
                match domtree.idom(runner) {
                    Some(up) => runner = up,
                    None => break,
                }
            }
        }
    }
    df
}
