//! Phase 1: the intra-procedural walker.
//!
//! Given what is known at the function's boundary (a lattice element per
//! parameter, and the return spaces of its callees), this computes a lattice
//! element for every pointer value of one function by iterating the transfer
//! functions to a fixed point. It changes nothing: the rewrite (phase 2)
//! and the inter-procedural driver read the result.
//!
//! A value whose *type* already names a concrete space needs no inference:
//! the type is the proof. Only `ptr<generic>` values are inferred, from how
//! they were made: a cast of a concrete pointer keeps the source's space, an
//! offset keeps its base's, and every merge (select, block parameter) takes
//! the join of its inputs.

use super::lattice::Space;
use super::Options;
use crate::analysis::{Base, Content, LocalCells};
use crate::ir::{
    AddrSpace, Block, FuncId, Function, Inst, InstData, Opcode, OperandKind, Type, Value, ValueDef,
};
use cranelift_entity::SecondaryMap;
use std::collections::BTreeMap;

/// Why a value ended with its element: the last step that changed it. The
/// chain of `Derived`/`Cast` links read backwards is the value's provenance.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Why {
    /// Not a pointer, or never reached (unreachable code).
    #[default]
    Unknown,
    /// The value's type names the space.
    Declared,
    /// A function parameter, seeded from the boundary (the reason says how).
    Param(SeedReason),
    /// A cast to generic of this value: the space of the source survives.
    Cast(Value),
    /// Offset from, or passed on from, this value (ptroffset, block argument).
    Derived(Value),
    /// Loaded from local memory where this value was stored (every value
    /// stored to those bytes is in the same space).
    Stored(Value),
    /// Two values with different spaces met (at a select or block parameter).
    Met(Value, Space, Value, Space),
    /// Provenance was lost here; the text says how.
    Lost(&'static str),
    /// The result of a call; the callee's return space.
    CallResult(FuncId),
    /// Assumed from a knob; the text says which.
    Assumed(&'static str),
    /// Refined backwards: this instruction admits only one state space for
    /// an operand derived from the value, and it runs whenever the value
    /// is made (see [`Demand`]).
    Demanded(Inst),
}

/// Why a parameter starts the walk with its element: the text the
/// explanations show, and whether the element is taken on trust from a
/// knob (`--param-always-point-to-global`) rather than proved, which
/// [`Analysis::assumed`] follows.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SeedReason {
    pub text: &'static str,
    pub assumed: bool,
}

impl SeedReason {
    /// A reason that rests on no assumption.
    pub const fn new(text: &'static str) -> SeedReason {
        SeedReason {
            text,
            assumed: false,
        }
    }

    /// A reason that is an assumption.
    pub const fn assumption(text: &'static str) -> SeedReason {
        SeedReason {
            text,
            assumed: true,
        }
    }
}

impl std::fmt::Display for SeedReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text)
    }
}

/// A backward refinement: operand `operand` of `inst` admits only `space`
/// (`cp_async`'s source must be global, its destination shared, an
/// mbarrier shared, ...), and `root` is where the operand's generic value
/// came from, through pointer offsets only.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Demand {
    pub inst: Inst,
    pub operand: usize,
    pub space: AddrSpace,
    pub root: Value,
}

/// The result of the walker for one function.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub space: SecondaryMap<Value, Space>,
    pub why: SecondaryMap<Value, Why>,
    /// Per return slot: the join of the spaces of every returned value.
    pub returns: Vec<Space>,
    /// Whether the value's space rests on an assumption (a knob such as
    /// `--param-always-point-to-global`) rather than a proof. Run-time space
    /// tests (`is_space`) are not folded on assumptions.
    pub assumed: SecondaryMap<Value, bool>,
    /// The backward refinements that were applied, in layout order.
    pub demands: Vec<Demand>,
    /// Two instructions that demand different spaces of the same root:
    /// the program is wrong (the first demand was applied, not the second).
    pub conflicts: Vec<(Demand, Demand)>,
    /// The function's own memory (stack slots, by-value parameters), as far
    /// as it can be followed.
    pub cells: LocalCells,
    /// The boundary's elements for the pointer fields of by-value
    /// parameters, as the walk used them.
    pub fields: FieldSeeds,
}

/// Per pointer field of a by-value parameter, (parameter, byte offset): the
/// element a load of it starts from, and why.
pub type FieldSeeds = BTreeMap<(u32, i64), (Space, &'static str)>;

impl Analysis {
    /// The element of `v` (after following aliases).
    pub fn get(&self, func: &Function, v: Value) -> Space {
        self.space[func.dfg.resolve_aliases(v)]
    }
}

/// What the walker knows about the world outside the function.
pub struct Boundary<'a> {
    /// One element (and its reason) per parameter of the signature.
    pub params: &'a [(Space, SeedReason)],
    /// The space a call to a function returns (`Bottom`: not known yet).
    pub callee_return: &'a dyn Fn(FuncId) -> Space,
    /// The pointer fields of by-value parameters, as the callers pass them.
    pub fields: &'a FieldSeeds,
    /// Whether argument `k` of a call to a function is passed by value.
    pub byval_arg: &'a dyn Fn(FuncId, usize) -> bool,
    /// Whether every pointer the module may store to global memory is
    /// global (see `interproc::closed_world_holds`): then a pointer loaded
    /// from global memory was put there by the host or by such a store.
    pub closed_world: bool,
    /// Whether every pointer in constant memory is one the host put there:
    /// false when an initializer holds the address of a variable that is
    /// not global (`__constant__ const float *p = other_constant;`).
    pub const_holds_only_global: bool,
}

/// Walks an `inttoptr` operand back through integer additions to the
/// `ptrtoint` it came from, if any (`--track-int2ptr`).
fn int_source(func: &Function, mut v: Value) -> Option<Value> {
    for _ in 0..16 {
        let ValueDef::Result(inst, 0) = func.dfg.value_def(func.dfg.resolve_aliases(v)) else {
            return None;
        };
        match &func.dfg.insts[inst] {
            InstData::Convert {
                opcode: Opcode::Ptrtoint,
                arg,
                ..
            } => return Some(*arg),
            // An integer added to an address stays in the same window: this
            // is pointer arithmetic done by hand.
            InstData::Binary {
                opcode: Opcode::Iadd | Opcode::Isub,
                args: [a, _],
            } => v = *a,
            _ => return None,
        }
    }
    None
}

/// Runs the walker over `func` to a fixed point, with the backward
/// refinements of the instructions that admit only one space: the forward
/// walk runs, the demands it leaves unmet become seeds of their roots, and
/// the walk runs again until no new demand applies (each round adds at
/// least one root, so this ends).
pub fn analyze(func: &Function, boundary: &Boundary, opts: &Options) -> Analysis {
    let mut refined: BTreeMap<Value, Demand> = BTreeMap::new();
    let mut conflicts = Vec::new();
    let cells = LocalCells::compute(func, boundary.byval_arg);
    loop {
        let mut a = forward(func, boundary, opts, &refined, cells.clone());
        let mut new = false;
        for d in demands(func, &a) {
            match refined.get(&d.root) {
                Some(first) if first.space != d.space => {
                    if !conflicts.contains(&(*first, d)) {
                        conflicts.push((*first, d));
                    }
                }
                Some(_) => {}
                None => {
                    refined.insert(d.root, d);
                    new = true;
                }
            }
        }
        if !new {
            let mut ds: Vec<Demand> = refined.into_values().collect();
            ds.sort_by_key(|d| (d.inst, d.operand));
            a.demands = ds;
            a.conflicts = conflicts;
            return a;
        }
    }
}

/// The only concrete space an accel operand of this kind admits, if there
/// is exactly one.
pub fn single_space(kind: OperandKind) -> Option<AddrSpace> {
    let OperandKind::Ptr(allowed) = kind else {
        return None;
    };
    let mut concrete = allowed.iter().copied().filter(|&s| s != AddrSpace::Generic);
    match (concrete.next(), concrete.next()) {
        (Some(s), None) => Some(s),
        _ => None,
    }
}

/// Whether every path from the start of `from` to the end of the function
/// passes through `through` (a return, a trap or a block without
/// successors ends a path).
fn always_passes(func: &Function, from: Block, through: Block) -> bool {
    let mut seen = vec![from];
    let mut stack = vec![from];
    while let Some(b) = stack.pop() {
        if b == through {
            continue;
        }
        let succs = func.successors(b);
        if succs.is_empty() {
            return false;
        }
        for s in succs {
            if !seen.contains(&s) {
                seen.push(s);
                stack.push(s);
            }
        }
    }
    true
}

/// The unmet demands of `func` under the analysis `a`: generic operands of
/// single-space instructions whose root may be refined. A root may be
/// refined when the instruction runs every time the root is made: a
/// parameter whose function always reaches the instruction, or a value
/// (loaded, made from an integer, returned by a call) made earlier in the
/// instruction's own block. A root whose space is the join of two spaces
/// is not refined: some path may bring the other space.
fn demands(func: &Function, a: &Analysis) -> Vec<Demand> {
    let dfg = &func.dfg;
    let mut out = Vec::new();
    for (block, inst) in func.layout.insts() {
        let InstData::Accel { op, args } = &dfg.insts[inst] else {
            continue;
        };
        for (k, kind) in op.operand_kinds().into_iter().enumerate() {
            let Some(space) = single_space(kind) else {
                continue;
            };
            let Some(&arg) = args.get(k) else { continue };
            let mut v = dfg.resolve_aliases(arg);
            if dfg.value_type(v) != Type::Ptr(AddrSpace::Generic) {
                continue;
            }
            // A space the walker only assumed (a pointer loaded from memory
            // the host fills) gives way to the one the instruction proves.
            if a.space[v].concrete().is_some() && !a.assumed[v] {
                continue;
            }
            // Back through pointer offsets to the root.
            let mut steps = 0;
            while let ValueDef::Result(i, 0) = dfg.value_def(v) {
                match dfg.insts[i] {
                    InstData::Binary {
                        opcode: Opcode::PtrOffset,
                        args: [p, _],
                    } if steps < 64 => {
                        v = dfg.resolve_aliases(p);
                        steps += 1;
                    }
                    _ => break,
                }
            }
            if matches!(a.why[v], Why::Met(..)) {
                continue;
            }
            let applies = match dfg.value_def(v) {
                ValueDef::Param(b, _) => {
                    Some(b) == func.entry_block() && always_passes(func, b, block)
                }
                ValueDef::Result(def, _) => {
                    matches!(
                        dfg.insts[def],
                        InstData::Load { .. }
                            | InstData::Call { .. }
                            | InstData::Convert {
                                opcode: Opcode::Inttoptr,
                                ..
                            }
                    ) && func.layout.inst_block(def) == Some(block)
                        && {
                            let insts = func.layout.block_insts(block);
                            let at = |x: Inst| insts.iter().position(|&i| i == x);
                            at(def) < at(inst)
                        }
                }
                _ => false,
            };
            if applies {
                out.push(Demand {
                    inst,
                    operand: k,
                    space,
                    root: v,
                });
            }
        }
    }
    out
}

/// One forward walk to a fixed point; the roots in `refined` are seeded
/// with the space their demand asks for.
fn forward(
    func: &Function,
    boundary: &Boundary,
    opts: &Options,
    refined: &BTreeMap<Value, Demand>,
    cells: LocalCells,
) -> Analysis {
    let dfg = &func.dfg;
    let mut a = Analysis {
        cells,
        fields: boundary.fields.clone(),
        ..Analysis::default()
    };
    let ptr_space = |v: Value| dfg.value_type(v).addr_space();

    // Seeds: concrete types are facts; the entry parameters come from the boundary.
    for (v, data) in dfg.values.iter() {
        if let Type::Ptr(s) = data.ty {
            if s != AddrSpace::Generic {
                a.space[v] = Space::Concrete(s);
                a.why[v] = Why::Declared;
            }
        }
    }
    for (k, &p) in func.params().iter().enumerate() {
        if ptr_space(p) == Some(AddrSpace::Generic) {
            let (seed, why) = boundary.params.get(k).copied().unwrap_or((
                Space::Generic,
                SeedReason::new("parameter not in the signature"),
            ));
            a.space[p] = seed;
            a.why[p] = Why::Param(why);
            if let Some(d) = refined.get(&p) {
                if seed.concrete().is_none() {
                    a.space[p] = Space::Concrete(d.space);
                    a.why[p] = Why::Demanded(d.inst);
                }
            }
        }
    }

    // The order of the layout visits most definitions before their uses, so
    // few rounds are needed; each round can only move values up the
    // three-level lattice, so the loop ends.
    let insts: Vec<_> = func.layout.insts().map(|(_, i)| i).collect();
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 4 * dfg.values.len() + 4 {
        changed = false;
        rounds += 1;
        for &inst in &insts {
            let data = &dfg.insts[inst];
            let get = |a: &Analysis, v: Value| a.space[dfg.resolve_aliases(v)];
            if let Some(&r) = dfg.inst_results(inst).first() {
                if ptr_space(r) == Some(AddrSpace::Generic) {
                    let (s, why) = match refined.get(&r) {
                        Some(d) => (Space::Concrete(d.space), Why::Demanded(d.inst)),
                        None => transfer(func, &a, data, boundary, opts),
                    };
                    let s = a.space[r].join(s);
                    if s != a.space[r] {
                        a.space[r] = s;
                        a.why[r] = why;
                        changed = true;
                    }
                }
            }
            for dest in data.branch_destinations() {
                let params = dfg.block_params(dest.block);
                for (&arg, &param) in dest.args.iter().zip(params) {
                    if ptr_space(param) != Some(AddrSpace::Generic) {
                        continue;
                    }
                    let mut incoming = get(&a, arg);
                    if opts.conservative && incoming == Space::Bottom {
                        incoming = Space::Generic;
                    }
                    let old = a.space[param];
                    let new = old.join(incoming);
                    if new != old {
                        a.why[param] = match (old, incoming) {
                            (Space::Concrete(_), Space::Concrete(_)) => {
                                let first = match a.why[param] {
                                    Why::Derived(v) => v,
                                    _ => param,
                                };
                                Why::Met(first, old, dfg.resolve_aliases(arg), incoming)
                            }
                            _ => Why::Derived(dfg.resolve_aliases(arg)),
                        };
                        a.space[param] = new;
                        changed = true;
                    }
                }
            }
        }
    }

    mark_assumptions(func, &mut a, &insts);
    a.returns = vec![Space::Bottom; func.signature.returns.len()];
    for &inst in &insts {
        if let InstData::Return { args } = &dfg.insts[inst] {
            for (k, &v) in args.iter().enumerate() {
                if k < a.returns.len() && ptr_space(v).is_some() {
                    a.returns[k] = a.returns[k].join(a.get(func, v));
                }
            }
        }
    }
    a
}

/// Marks the values whose space comes from an assumption: seeds of kernel
/// parameters taken on trust, pointers loaded under `--track-indir-load`,
/// and everything derived from them.
fn mark_assumptions(func: &Function, a: &mut Analysis, insts: &[crate::ir::Inst]) {
    let dfg = &func.dfg;
    for &p in func.params() {
        if matches!(a.why[p], Why::Param(reason) if reason.assumed) {
            a.assumed[p] = true;
        }
    }
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds <= insts.len() + 1 {
        changed = false;
        rounds += 1;
        for &inst in insts {
            let data = &dfg.insts[inst];
            if let Some(&r) = dfg.inst_results(inst).first() {
                let stored_assumed = match (a.why[r], data) {
                    (Why::Stored(_), InstData::Load { ptr, .. }) => {
                        match a.cells.content_at(func, *ptr, 8) {
                            Content::Stored(vs) => {
                                vs.iter().any(|&v| a.assumed[dfg.resolve_aliases(v)])
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                let from = match a.why[r] {
                    Why::Assumed(_) => true,
                    Why::Cast(v) | Why::Derived(v) => a.assumed[v],
                    _ => stored_assumed,
                } || matches!(data, InstData::Ternary { opcode: Opcode::Select, args: [_, x, y] }
                        if a.assumed[dfg.resolve_aliases(*x)] || a.assumed[dfg.resolve_aliases(*y)]);
                if from && !a.assumed[r] {
                    a.assumed[r] = true;
                    changed = true;
                }
            }
            for dest in data.branch_destinations() {
                for (&arg, &param) in dest.args.iter().zip(dfg.block_params(dest.block)) {
                    if a.assumed[dfg.resolve_aliases(arg)] && !a.assumed[param] {
                        a.assumed[param] = true;
                        changed = true;
                    }
                }
            }
        }
    }
}

/// The element of the result of one instruction whose result is `ptr<generic>`.
fn transfer(
    func: &Function,
    a: &Analysis,
    data: &InstData,
    boundary: &Boundary,
    opts: &Options,
) -> (Space, Why) {
    let dfg = &func.dfg;
    let get = |v: Value| a.space[dfg.resolve_aliases(v)];
    let res = |v: Value| dfg.resolve_aliases(v);
    match data {
        InstData::AddrSpaceCast { arg, .. } => (get(*arg), Why::Cast(res(*arg))),
        InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [p, _],
        } => (get(*p), Why::Derived(res(*p))),
        InstData::Ternary {
            opcode: Opcode::Select,
            args: [_, x, y],
        } => {
            let (sx, sy) = (get(*x), get(*y));
            let why = match (sx, sy) {
                (Space::Concrete(p), Space::Concrete(q)) if p != q => {
                    Why::Met(res(*x), sx, res(*y), sy)
                }
                (Space::Bottom, _) => Why::Derived(res(*y)),
                _ => Why::Derived(res(*x)),
            };
            (sx.join(sy), why)
        }
        InstData::Load { ptr, .. } => {
            let content = a.cells.content_at(func, *ptr, 8);
            if let Some(found) = loaded_space(func, a, &content) {
                return found;
            }
            let from = get(*ptr);
            if opts.param_always_point_to_global
                && func.is_kernel()
                && from == Space::Concrete(AddrSpace::Param)
            {
                // The host fills a kernel's parameter buffer, so a pointer in
                // it (a field of a struct passed by value) is a pointer the
                // host passed: global, like a pointer parameter.
                (
                    Space::Concrete(AddrSpace::Global),
                    Why::Assumed("loaded from a kernel parameter (--param-always-point-to-global)"),
                )
            } else if !opts.track_indir_load {
                (
                    Space::Generic,
                    Why::Lost("loaded from memory (--track-indir-load is off)"),
                )
            } else if opts.param_always_point_to_global
                && (from == Space::Concrete(AddrSpace::Param)
                    || (from == Space::Concrete(AddrSpace::Const)
                        && boundary.const_holds_only_global))
            {
                // Only the host writes param and const memory, with the
                // same kind of pointers it passes as parameters.
                (
                    Space::Concrete(AddrSpace::Global),
                    Why::Assumed("loaded from param/const memory, which only the host writes (--track-indir-load, --param-always-point-to-global)"),
                )
            } else if from == Space::Concrete(AddrSpace::Global)
                && opts.param_always_point_to_global
                && boundary.closed_world
            {
                // Global memory holds what the host put there and what the
                // module stores; the module stores only global pointers.
                (
                    Space::Concrete(AddrSpace::Global),
                    Why::Assumed("loaded from global memory, where the module stores only global pointers (--track-indir-load)"),
                )
            } else if from == Space::Concrete(AddrSpace::Global) {
                (
                    Space::Generic,
                    Why::Lost("loaded from global memory, where the module also stores pointers that are not proved global"),
                )
            } else {
                (
                    Space::Generic,
                    Why::Lost("loaded from memory that is not global, param or const"),
                )
            }
        }
        InstData::Convert {
            opcode: Opcode::Inttoptr,
            arg,
            ..
        } => {
            if !opts.track_int2ptr {
                return (
                    Space::Generic,
                    Why::Lost("made from an integer (--track-int2ptr is off)"),
                );
            }
            match int_source(func, *arg) {
                Some(p) => (get(p), Why::Derived(res(p))),
                None => (
                    Space::Generic,
                    Why::Lost("made from an integer that is not an address"),
                ),
            }
        }
        InstData::Call { func: callee, .. } => {
            ((boundary.callee_return)(*callee), Why::CallResult(*callee))
        }
        _ => (
            Space::Generic,
            Why::Lost("made by an instruction the walker does not model"),
        ),
    }
}

/// The element of a generic pointer loaded from `content`, when the
/// function's own memory decides it: the join of every pointer stored to
/// those bytes of a slot, or the boundary's element for a pointer field of
/// a by-value parameter. `None` leaves the decision to the other rules (a
/// kernel's parameter buffer, memory that is not followed).
fn loaded_space(func: &Function, a: &Analysis, content: &Content) -> Option<(Space, Why)> {
    let dfg = &func.dfg;
    match content {
        Content::Stored(values) => {
            let mut acc = Space::Bottom;
            let mut met: Option<Why> = None;
            let mut link: Option<Value> = None;
            for &v in values {
                let v = dfg.resolve_aliases(v);
                if dfg.value_type(v) != Type::Ptr(AddrSpace::Generic) {
                    // Bits of another type (a concrete pointer's own
                    // representation, an integer): not a generic address
                    // the walker can vouch for.
                    return Some((
                        Space::Generic,
                        Why::Lost("loaded from local memory that also holds something other than a generic pointer"),
                    ));
                }
                let s = a.space[v];
                if let (Space::Concrete(p), Space::Concrete(q)) = (acc, s) {
                    if p != q && met.is_none() {
                        let first = link.unwrap_or(v);
                        met = Some(Why::Met(first, acc, v, s));
                    }
                }
                let next = acc.join(s);
                if next != acc || link.is_none() {
                    link = Some(v);
                }
                acc = next;
            }
            let why = met.unwrap_or(Why::Stored(link.unwrap_or(values[0])));
            Some((acc, why))
        }
        Content::Param(n, off) => {
            let param = func.signature.params.get(*n as usize)?;
            if param.ty != Type::Ptr(AddrSpace::Generic) {
                // A kernel's aggregate in param space: the parameter rules.
                return None;
            }
            Some(match a.fields.get(&(*n, *off)) {
                Some(&(s, why)) => (s, Why::Param(SeedReason::new(why))),
                None => (
                    Space::Generic,
                    Why::Lost("a field of a by-value parameter that is not followed"),
                ),
            })
        }
        Content::Unknown => None,
    }
}

/// The element of the generic pointer at byte `off` of `base` in `func`, as
/// a call passing that memory by value shows it to the callee.
pub fn space_in_memory(
    func: &Function,
    a: &Analysis,
    base: Base,
    off: i64,
    opts: &Options,
) -> Space {
    let content = a.cells.content(base, off, 8);
    if let Some((s, _)) = loaded_space(func, a, &content) {
        return s;
    }
    match content {
        // A kernel's struct parameter: filled by the host.
        Content::Param(..) if func.is_kernel() && opts.param_always_point_to_global => {
            Space::Concrete(AddrSpace::Global)
        }
        _ => Space::Generic,
    }
}

/// The pointer fields of the by-value parameters of `func` that it reads:
/// every (parameter, offset) that a load of a generic pointer reads from an
/// unwritten by-value parameter of a device function.
pub fn byval_fields(func: &Function, cells: &LocalCells) -> Vec<(u32, i64)> {
    let mut out = Vec::new();
    if func.is_kernel() {
        return out;
    }
    for (_, inst) in func.layout.insts() {
        if let InstData::Load { ty, ptr, .. } = func.dfg.insts[inst] {
            if ty != Type::Ptr(AddrSpace::Generic) {
                continue;
            }
            if let Content::Param(n, off) = cells.content_at(func, ptr, 8) {
                if !out.contains(&(n, off)) {
                    out.push((n, off));
                }
            }
        }
    }
    out.sort();
    out
}
