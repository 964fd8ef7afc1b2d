//! Register compaction with regalloc2 (`--regalloc=regalloc2`).
//!
//! PTX registers are unlimited and ptxas does the real allocation, so the
//! default mode leaves every value in its own virtual register. This pass
//! instead lets the `regalloc2` crate (the allocator of Cranelift) assign
//! the `.b32`, `.b64` and `.pred` registers from a small file, so values
//! whose lifetimes do not overlap share a name and the `.reg` declarations
//! shrink. The other classes (`.b16`, `.f32`, `.f64`) stay virtual:
//! regalloc2 has only three register classes.
//!
//! | regalloc2 class | PTX class |
//! |-----------------|-----------|
//! | `Int`           | `.b32 %r` |
//! | `Float`         | `.b64 %rd`|
//! | `Vector`        | `.pred %p`|
//!
//! regalloc2 wants SSA input with block parameters, no critical edges and a
//! branch at the end of every block. The selected code is already out of
//! SSA (block arguments became `mov`s on the edges), so [`allocate`] builds
//! a *view* of the function that satisfies those rules without changing it:
//!
//! * blocks come from [`crate::cfg`]; a block that falls through gets a
//!   pseudo-branch, and every critical edge gets a pseudo-block;
//! * a register written more than once (the block parameters) is renamed
//!   into SSA versions, with regalloc2 block parameters where versions
//!   merge (at blocks with several predecessors where it is live);
//! * unreachable code is dropped (it could read registers no path defines).
//!
//! The answer is written back: operands get their physical registers,
//! regalloc2's moves become `mov`s (after the label at a block's start, or
//! in a new stub block for a critical edge's taken side), and the used
//! physical registers are renumbered densely from 1. A spill slot is just
//! another register above the file (PTX has no real limit), so a spill is
//! never an error, only a sign the file was too small.

use crate::cfg::{self, MBlock};
use crate::mfunc::{class_index, MFunction};
use crate::minst::{Label, MInst, Operand as MOperand, Reg, RegClass, UnaryOp};
use crate::operands::RegUse;
use core::fmt;
use regalloc2 as ra;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// Why allocation failed. Each is a compiler bug: machine code that reads
/// a register before writing it, or a view regalloc2 refuses.
#[derive(Clone, Debug)]
pub enum RegallocError {
    /// A branch to a label the function does not have.
    Cfg(cfg::UnknownLabel),
    /// Registers live into the entry block: read on some path before any
    /// write.
    LiveIntoEntry(Vec<Reg>),
    /// A register read where no write reaches (its name, when known).
    Undefined(Option<Reg>),
    /// A block whose only predecessor comes after it in reverse postorder.
    PredecessorAfter,
    /// regalloc2 refused the view.
    Refused(ra::RegAllocError),
    /// regalloc2's checker disproved the allocation.
    Checker(ra::checker::CheckerErrors),
}

impl fmt::Display for RegallocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegallocError::Cfg(e) => e.fmt(f),
            RegallocError::LiveIntoEntry(regs) => {
                let names: Vec<String> = regs.iter().map(Reg::to_string).collect();
                write!(
                    f,
                    "register(s) {} may be read before written",
                    names.join(", ")
                )
            }
            RegallocError::Undefined(reg) => write!(
                f,
                "register {} may be read before it is written",
                reg.map_or("?".into(), |r| r.to_string())
            ),
            RegallocError::PredecessorAfter => {
                f.write_str("a block's only predecessor comes after it")
            }
            RegallocError::Refused(e) => write!(f, "regalloc2: {e}"),
            RegallocError::Checker(e) => write!(f, "regalloc2 checker: {e:?}"),
        }
    }
}

/// The largest register file per allocated class: regalloc2 encodes a
/// register number in 6 bits, so 64 is the most it can have.
pub const REGS_PER_CLASS: usize = 64;

/// The regalloc2 class of a PTX class, or `None` if the class stays virtual.
fn ra_class(class: RegClass) -> Option<ra::RegClass> {
    match class {
        RegClass::B32 => Some(ra::RegClass::Int),
        RegClass::B64 => Some(ra::RegClass::Float),
        RegClass::Pred => Some(ra::RegClass::Vector),
        _ => None,
    }
}

fn ptx_class(class: ra::RegClass) -> RegClass {
    match class {
        ra::RegClass::Int => RegClass::B32,
        ra::RegClass::Float => RegClass::B64,
        ra::RegClass::Vector => RegClass::Pred,
    }
}

/// One instruction of the view.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Item {
    /// `body[i]`.
    Real(usize),
    /// The implicit jump of a block that falls into the next one (or off
    /// the end of the function, when it has no successor).
    Fall,
    /// The only instruction of a pseudo-block on a critical edge. `taken`
    /// is the `bra` (body index) whose taken edge it splits; `None` means
    /// it splits a fall-through edge and its moves can stay in line.
    Stub { taken: Option<usize> },
}

#[derive(Default, Debug)]
struct ViewBlock {
    start: usize,
    end: usize,
    succs: Vec<ra::Block>,
    preds: Vec<ra::Block>,
    params: Vec<ra::VReg>,
    /// Per successor: the versions passed to its parameters.
    args: Vec<Vec<ra::VReg>>,
}

/// The function as regalloc2 sees it.
struct View {
    items: Vec<Item>,
    operands: Vec<Vec<ra::Operand>>,
    blocks: Vec<ViewBlock>,
    /// Per instruction: `Some(true)` for a block's branch, `Some(false)`
    /// for a block's return (no successors), `None` inside a block.
    terminator: Vec<Option<bool>>,
    num_vregs: usize,
}

impl ra::Function for View {
    fn num_insts(&self) -> usize {
        self.items.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> ra::Block {
        ra::Block::new(0)
    }
    fn block_insns(&self, block: ra::Block) -> ra::InstRange {
        let b = &self.blocks[block.index()];
        ra::InstRange::new(ra::Inst::new(b.start), ra::Inst::new(b.end))
    }
    fn block_succs(&self, block: ra::Block) -> &[ra::Block] {
        &self.blocks[block.index()].succs
    }
    fn block_preds(&self, block: ra::Block) -> &[ra::Block] {
        &self.blocks[block.index()].preds
    }
    fn block_params(&self, block: ra::Block) -> &[ra::VReg] {
        &self.blocks[block.index()].params
    }
    fn is_ret(&self, insn: ra::Inst) -> bool {
        self.terminator[insn.index()] == Some(false)
    }
    fn is_branch(&self, insn: ra::Inst) -> bool {
        self.terminator[insn.index()] == Some(true)
    }
    fn branch_blockparams(&self, block: ra::Block, _insn: ra::Inst, succ: usize) -> &[ra::VReg] {
        &self.blocks[block.index()].args[succ]
    }
    fn inst_operands(&self, insn: ra::Inst) -> &[ra::Operand] {
        &self.operands[insn.index()]
    }
    fn inst_clobbers(&self, _insn: ra::Inst) -> ra::PRegSet {
        ra::PRegSet::empty()
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, _class: ra::RegClass) -> usize {
        1
    }
}

/// A register file of `sizes[c]` registers for each regalloc2 class `c`,
/// all equally preferred, with no dedicated scratch (regalloc2 then picks a
/// free register, or a spill slot, for a cycle of moves).
fn machine_env(sizes: [usize; 3]) -> ra::MachineEnv {
    let mut preferred = [ra::PRegSet::empty(); 3];
    for (i, class) in RA_CLASSES.into_iter().enumerate() {
        for n in 0..sizes[i] {
            preferred[i].add(ra::PReg::new(n, class));
        }
    }
    ra::MachineEnv {
        preferred_regs_by_class: preferred,
        non_preferred_regs_by_class: [ra::PRegSet::empty(); 3],
        scratch_by_class: [None; 3],
        fixed_stack_slots: Vec::new(),
    }
}

const RA_CLASSES: [ra::RegClass; 3] =
    [ra::RegClass::Int, ra::RegClass::Float, ra::RegClass::Vector];

/// Which classes regalloc2 spilled: every spill or reload is a move
/// between a stack slot and a register of the spilled class.
fn spilled(out: &ra::Output) -> [bool; 3] {
    let mut s = [false; 3];
    for (_, ra::Edit::Move { from, to }) in &out.edits {
        if from.is_stack() || to.is_stack() {
            if let Some(p) = from.as_reg().or(to.as_reg()) {
                s[p.class() as usize] = true;
            }
        }
    }
    s
}

/// Runs regalloc2 with the smallest register file, per class, that needs
/// no spill. regalloc2 spreads values over the whole file on purpose (it
/// starts each search at a different register), so a large file barely
/// compacts; the file size is what forces reuse. The classes do not
/// interact, so one binary search per class runs in lockstep: each round
/// is one allocation. A class that spills even with [`REGS_PER_CLASS`]
/// registers keeps the spills (they become extra registers).
fn run_smallest(view: &View) -> Result<(ra::Output, ra::MachineEnv), RegallocError> {
    let options = ra::RegallocOptions {
        validate_ssa: true,
        ..Default::default()
    };
    let run = |sizes: [usize; 3]| {
        let env = machine_env(sizes);
        ra::run(view, &env, &options)
            .map(|out| (out, env))
            .map_err(RegallocError::Refused)
    };
    // One instruction needs all its operands of a class in registers at
    // once: fewer than that is `TooManyLiveRegs`, not a spill.
    let mut lo = [1usize; 3];
    for ops in &view.operands {
        let mut n = [0usize; 3];
        for op in ops {
            n[op.class() as usize] += 1;
        }
        for c in 0..3 {
            lo[c] = lo[c].max(n[c]);
        }
    }
    let mut hi = [REGS_PER_CLASS; 3];
    while (0..3).any(|c| lo[c] < hi[c]) {
        let mid: [usize; 3] = std::array::from_fn(|c| (lo[c] + hi[c]) / 2);
        let spills = match ra::run(view, &machine_env(mid), &options) {
            Ok(out) => spilled(&out),
            // Some class was too small, and regalloc2 does not say which:
            // grow them all (this only costs compaction, never correctness).
            Err(ra::RegAllocError::TooManyLiveRegs) => [true; 3],
            Err(e) => return Err(RegallocError::Refused(e)),
        };
        for c in 0..3 {
            if lo[c] < hi[c] {
                if spills[c] {
                    lo[c] = mid[c] + 1;
                } else {
                    hi[c] = mid[c];
                }
            }
        }
    }
    run(hi)
}

/// Where the view's blocks come from.
struct Shape {
    /// `(view block, items)` in view order.
    blocks: Vec<(Vec<usize>, Vec<Item>)>,
}

/// Lays out the view blocks: an optional pseudo-entry (when the first
/// block is a branch target, since regalloc2's entry may have no
/// predecessors), each reachable block, and a pseudo-block for every
/// critical edge right after the block it leaves. Returns the view blocks
/// with their items and successor lists (by view index).
fn shape(body: &[MInst], blocks: &[MBlock]) -> Shape {
    let live = cfg::reachable(blocks);
    let preds = |b: usize| {
        let n = blocks[b].preds.iter().filter(|&&p| live[p]).count();
        n + usize::from(b == 0)
    };
    let needs_entry = !blocks.is_empty() && blocks[0].preds.iter().any(|&p| live[p]);
    let mut next = usize::from(needs_entry);
    // First pass: number every view block.
    let mut index = vec![usize::MAX; blocks.len()];
    let mut stub_index: FxHashMap<(usize, usize), usize> = FxHashMap::default();
    for (b, blk) in blocks.iter().enumerate() {
        if !live[b] {
            continue;
        }
        index[b] = next;
        next += 1;
        if blk.succs.len() > 1 {
            for (k, &s) in blk.succs.iter().enumerate() {
                if preds(s) > 1 {
                    stub_index.insert((b, k), next);
                    next += 1;
                }
            }
        }
    }
    let mut out: Vec<(Vec<usize>, Vec<Item>)> = Vec::with_capacity(next);
    if needs_entry {
        out.push((vec![index[0]], vec![Item::Fall]));
    }
    for (b, blk) in blocks.iter().enumerate() {
        if !live[b] {
            continue;
        }
        let mut items: Vec<Item> = (blk.start..blk.end).map(Item::Real).collect();
        if blk.falls_through(body) {
            items.push(Item::Fall);
        }
        let cond = blk.ends_in_cond_branch(body);
        let mut succs = Vec::new();
        let mut stubs = Vec::new();
        for (k, &s) in blk.succs.iter().enumerate() {
            match stub_index.get(&(b, k)) {
                Some(&st) => {
                    succs.push(st);
                    let taken = (cond && k == 0).then_some(blk.end - 1);
                    stubs.push((vec![index[s]], vec![Item::Stub { taken }]));
                }
                None => succs.push(index[s]),
            }
        }
        out.push((succs, items));
        out.extend(stubs);
    }
    Shape { blocks: out }
}

/// Renumbers the view blocks in reverse postorder, and returns with them
/// the view indices in layout order (how the rewritten body is printed).
///
/// regalloc2's checker needs this: its first pass visits blocks in index
/// order, and a block seen before all its predecessors starts from an
/// empty state that the meet can never refill, so a block laid out after a
/// loop body it jumps back into (common here) would look undefined.
fn in_rpo(shape: Shape) -> (Shape, Vec<usize>) {
    let succs: Vec<Vec<usize>> = shape.blocks.iter().map(|(s, _)| s.clone()).collect();
    let order = reverse_postorder(&succs);
    let mut pos = vec![usize::MAX; succs.len()];
    for (k, &b) in order.iter().enumerate() {
        pos[b] = k;
    }
    let mut old: Vec<Option<(Vec<usize>, Vec<Item>)>> =
        shape.blocks.into_iter().map(Some).collect();
    let blocks = order
        .iter()
        .map(|&b| {
            let (ss, items) = old[b].take().expect("each block once");
            (ss.iter().map(|&s| pos[s]).collect(), items)
        })
        .collect();
    let physical = (0..succs.len()).map(|b| pos[b]).collect();
    (Shape { blocks }, physical)
}

/// Reverse postorder of the view blocks from the entry.
fn reverse_postorder(succs: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; succs.len()];
    let mut order = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (b, ref mut k)) = stack.last_mut() {
        if let Some(&s) = succs[b].get(*k) {
            *k += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// A register of an allocated class, numbered densely for regalloc2.
type Dense = usize;

/// Allocates the `.b32`, `.b64` and `.pred` registers of `mf` with
/// regalloc2 and rewrites its body. Errors are internal (a view regalloc2
/// refuses) and name the reason.
// Long: the stages of building regalloc2's view (dense numbering,
// liveness, SSA renaming, the view) and applying its answer share the
// numbering maps; each stage is a commented paragraph.
pub fn allocate(mf: &mut MFunction, check: bool) -> Result<(), RegallocError> {
    // Inline PTX reads its inputs and writes its outputs in whatever order
    // its text says, and a `+` operand is one register read and written:
    // the view's rule of uses before the def at one point cannot say
    // either, so such a function keeps its virtual registers.
    let has_inline_asm = mf.body.iter().any(|i| matches!(i, MInst::InlineAsm { .. }));
    if mf.body.is_empty() || has_inline_asm {
        return Ok(());
    }
    let blocks = cfg::build(&mf.body).map_err(RegallocError::Cfg)?;
    let (shape, physical) = in_rpo(shape(&mf.body, &blocks));
    let body = &mf.body;

    // Dense numbering of the allocated registers, and how often each is written.
    let mut dense: FxHashMap<Reg, Dense> = FxHashMap::default();
    let mut classes: Vec<ra::RegClass> = Vec::new();
    let mut defs: Vec<u32> = Vec::new();
    let item_regs = |item: Item| -> Vec<(Reg, RegUse)> {
        match item {
            Item::Real(i) => body[i]
                .regs()
                .into_iter()
                .filter(|(r, _)| ra_class(r.class).is_some())
                .collect(),
            _ => Vec::new(),
        }
    };
    for (_, items) in &shape.blocks {
        for &item in items {
            for (r, u) in item_regs(item) {
                let d = *dense.entry(r).or_insert_with(|| {
                    classes.push(ra_class(r.class).expect("filtered"));
                    defs.push(0);
                    classes.len() - 1
                });
                if u == RegUse::Def {
                    defs[d] += 1;
                }
            }
        }
    }
    let multi: Vec<bool> = defs.iter().map(|&n| n > 1).collect();

    // Liveness of the multiply-defined registers over the view blocks.
    let nb = shape.blocks.len();
    let mut upward: Vec<BTreeSet<Dense>> = vec![BTreeSet::new(); nb];
    let mut killed: Vec<BTreeSet<Dense>> = vec![BTreeSet::new(); nb];
    for (b, (_, items)) in shape.blocks.iter().enumerate() {
        for &item in items {
            for (r, u) in item_regs(item) {
                let d = dense[&r];
                if !multi[d] {
                    continue;
                }
                match u {
                    RegUse::Use if !killed[b].contains(&d) => {
                        upward[b].insert(d);
                    }
                    RegUse::Use => {}
                    RegUse::Def => {
                        killed[b].insert(d);
                    }
                }
            }
        }
    }
    let mut live_in = upward.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            let mut set = upward[b].clone();
            for &s in &shape.blocks[b].0 {
                set.extend(live_in[s].iter().filter(|d| !killed[b].contains(d)));
            }
            if set != live_in[b] {
                live_in[b] = set;
                changed = true;
            }
        }
    }
    if !live_in[0].is_empty() {
        let regs: Vec<Reg> = dense
            .iter()
            .filter(|(_, d)| live_in[0].contains(d))
            .map(|(r, _)| *r)
            .collect();
        return Err(RegallocError::LiveIntoEntry(regs));
    }

    // SSA renaming in reverse postorder.
    let succs: Vec<Vec<usize>> = shape.blocks.iter().map(|(s, _)| s.clone()).collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut next_vreg = classes.len();
    let mut fresh = |d: Dense| {
        let v = ra::VReg::new(next_vreg, classes[d]);
        next_vreg += 1;
        v
    };
    let mut params: Vec<Vec<(Dense, ra::VReg)>> = vec![Vec::new(); nb];
    let mut end_state: Vec<Option<BTreeMap<Dense, ra::VReg>>> = vec![None; nb];
    let mut item_operands: Vec<Vec<Vec<ra::Operand>>> = shape
        .blocks
        .iter()
        .map(|(_, items)| vec![Vec::new(); items.len()])
        .collect();
    let undefined =
        |d: Dense| RegallocError::Undefined(dense.iter().find(|(_, &x)| x == d).map(|(r, _)| *r));
    for b in reverse_postorder(&succs) {
        let mut state: BTreeMap<Dense, ra::VReg> = BTreeMap::new();
        if b != 0 {
            if preds[b].len() >= 2 {
                for &d in &live_in[b] {
                    let v = fresh(d);
                    params[b].push((d, v));
                    state.insert(d, v);
                }
            } else {
                state = end_state[preds[b][0]]
                    .clone()
                    .ok_or(RegallocError::PredecessorAfter)?;
            }
        }
        for (k, &item) in shape.blocks[b].1.iter().enumerate() {
            let mut ops = Vec::new();
            for (r, u) in item_regs(item) {
                let d = dense[&r];
                let v = if !multi[d] {
                    ra::VReg::new(d, classes[d])
                } else if u == RegUse::Use {
                    *state.get(&d).ok_or_else(|| undefined(d))?
                } else {
                    let v = fresh(d);
                    state.insert(d, v);
                    v
                };
                ops.push(match u {
                    RegUse::Use => ra::Operand::reg_use(v),
                    RegUse::Def => ra::Operand::reg_def(v),
                });
            }
            item_operands[b][k] = ops;
        }
        end_state[b] = Some(state);
    }

    // The view itself.
    let mut view = View {
        items: Vec::new(),
        operands: Vec::new(),
        blocks: Vec::new(),
        terminator: Vec::new(),
        num_vregs: next_vreg,
    };
    for (b, (ss, items)) in shape.blocks.iter().enumerate() {
        let start = view.items.len();
        view.items.extend(items.iter().copied());
        view.operands.append(&mut item_operands[b]);
        view.terminator.resize(view.items.len(), None);
        view.terminator[view.items.len() - 1] = Some(!ss.is_empty());
        let state = end_state[b].clone().unwrap_or_default();
        let mut args = Vec::new();
        for &s in ss {
            let a: Result<Vec<ra::VReg>, RegallocError> = params[s]
                .iter()
                .map(|(d, _)| state.get(d).copied().ok_or_else(|| undefined(*d)))
                .collect();
            args.push(a?);
        }
        view.blocks.push(ViewBlock {
            start,
            end: view.items.len(),
            succs: ss.iter().map(|&s| ra::Block::new(s)).collect(),
            preds: preds[b].iter().map(|&p| ra::Block::new(p)).collect(),
            params: params[b].iter().map(|(_, v)| *v).collect(),
            args,
        });
    }

    let (output, env) = run_smallest(&view)?;
    if check {
        let mut checker = ra::checker::Checker::new(&view, &env);
        checker.prepare(&output);
        checker.run().map_err(RegallocError::Checker)?;
    }
    rewrite(mf, &view, &physical, &output);
    Ok(())
}

/// A location regalloc2 chose: a physical register or a spill slot (which
/// becomes a register above the file), in one PTX class.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Loc {
    class: RegClass,
    index: usize,
}

fn loc(alloc: ra::Allocation, class: RegClass) -> Loc {
    match (alloc.as_reg(), alloc.as_stack()) {
        (Some(p), _) => Loc {
            class: ptx_class(p.class()),
            index: p.hw_enc(),
        },
        (None, Some(slot)) => Loc {
            class,
            index: REGS_PER_CLASS + slot.index(),
        },
        (None, None) => Loc { class, index: 0 },
    }
}

/// Writes regalloc2's answer back into `mf`.
fn rewrite(mf: &mut MFunction, view: &View, physical: &[usize], out: &ra::Output) {
    // Edits by (instruction, after?).
    let mut edits: FxHashMap<(usize, bool), Vec<(Loc, Loc)>> = FxHashMap::default();
    for (point, edit) in &out.edits {
        let ra::Edit::Move { from, to } = edit;
        let class = from
            .as_reg()
            .or(to.as_reg())
            .map_or(RegClass::B32, |p| ptx_class(p.class()));
        let (from, to) = (loc(*from, class), loc(*to, class));
        if from != to {
            let after = point.pos() == ra::InstPosition::After;
            edits
                .entry((point.inst().index(), after))
                .or_default()
                .push((to, from));
        }
    }

    // Dense renumbering of every location used, per class, in order.
    let mut used: BTreeSet<Loc> = BTreeSet::new();
    for (i, item) in view.items.iter().enumerate() {
        if let Item::Real(b) = item {
            let allocs = out.inst_allocs(ra::Inst::new(i));
            let regs = mf.body[*b].regs();
            let mut k = 0;
            for (r, _) in regs {
                if ra_class(r.class).is_some() {
                    used.insert(loc(allocs[k], r.class));
                    k += 1;
                }
            }
        }
    }
    for moves in edits.values() {
        for &(to, from) in moves {
            used.insert(to);
            used.insert(from);
        }
    }
    let mut number: FxHashMap<Loc, u32> = FxHashMap::default();
    let mut count = [0u32; 6];
    for l in &used {
        let c = &mut count[class_index(l.class)];
        *c += 1;
        number.insert(*l, *c);
    }
    let reg = |l: Loc| Reg {
        class: l.class,
        num: number[&l],
    };
    let mov = |(to, from): (Loc, Loc)| MInst::Unary {
        op: UnaryOp::Mov,
        ty: to.class.decl_type(),
        dst: reg(to),
        src: MOperand::Reg(reg(from)),
    };
    let moves_at = |i: usize, after: bool| -> Vec<MInst> {
        edits
            .get(&(i, after))
            .map(|v| v.iter().map(|&m| mov(m)).collect())
            .unwrap_or_default()
    };

    // Taken edges whose pseudo-block got moves: they need a real stub.
    let mut stub_label: FxHashMap<usize, Label> = FxHashMap::default();
    for (i, item) in view.items.iter().enumerate() {
        if let Item::Stub { taken: Some(bra) } = item {
            if edits.contains_key(&(i, false)) {
                let n = stub_label.len() + 1;
                stub_label.insert(*bra, Label(format!("$L__ra_{}_{n}", mf.name)));
            }
        }
    }

    let mut body = Vec::with_capacity(mf.body.len());
    let mut tail = Vec::new();
    let in_layout = physical
        .iter()
        .flat_map(|&b| view.blocks[b].start..view.blocks[b].end);
    for i in in_layout {
        match view.items[i] {
            Item::Real(b) => {
                let mut inst = mf.body[b].clone();
                let allocs = out.inst_allocs(ra::Inst::new(i));
                let mut k = 0;
                inst.visit_regs_mut(&mut |r, _| {
                    if ra_class(r.class).is_some() {
                        *r = reg(loc(allocs[k], r.class));
                        k += 1;
                    }
                });
                // A copy whose two sides got the same register is gone.
                if matches!(&inst, MInst::Unary { op: UnaryOp::Mov, dst, src: MOperand::Reg(s), .. } if s == dst)
                {
                    body.extend(moves_at(i, false));
                    body.extend(moves_at(i, true));
                    continue;
                }
                if let (MInst::Bra { target, .. }, Some(l)) = (&mut inst, stub_label.get(&b)) {
                    *target = l.clone();
                }
                // Moves at a block's start belong after its label.
                if matches!(inst, MInst::Label(_)) {
                    body.push(inst);
                    body.extend(moves_at(i, false));
                } else {
                    body.extend(moves_at(i, false));
                    body.push(inst);
                }
                body.extend(moves_at(i, true));
            }
            Item::Fall | Item::Stub { taken: None } => body.extend(moves_at(i, false)),
            Item::Stub { taken: Some(bra) } => {
                if let Some(l) = stub_label.get(&bra) {
                    let MInst::Bra { target, .. } = &mf.body[bra] else {
                        unreachable!("a taken stub always follows a bra")
                    };
                    tail.push(MInst::Label(l.clone()));
                    tail.extend(moves_at(i, false));
                    tail.push(MInst::Bra {
                        guard: None,
                        target: target.clone(),
                    });
                }
            }
        }
    }
    if !tail.is_empty() {
        // Falling off the end returns; make that explicit before the stubs.
        if !matches!(
            body.last(),
            Some(MInst::Ret | MInst::Bra { guard: None, .. })
        ) {
            body.push(MInst::Ret);
        }
        body.extend(tail);
    }
    mf.body = body;
    for class in [RegClass::B32, RegClass::B64, RegClass::Pred] {
        mf.max_reg[class_index(class)] = count[class_index(class)];
    }
}
