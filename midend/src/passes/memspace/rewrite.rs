//! Phase 2: the rewrite.
//!
//! With the fixed point of phases 1 and the inter-procedural propagation in
//! hand, every `ptr<generic>` value proved to point into one space gets that
//! space in its type (block parameters, signatures and returns included),
//! and then each instruction is made consistent with the new types:
//!
//! * a cast whose source already has the target's type disappears (this
//!   also folds a cast of a cast back to the original pointer);
//! * `is_space S p` with `p` of known space becomes a constant;
//! * wherever a concrete pointer flows into a place that stays generic — a
//!   generic parameter or return, a block parameter that stays generic,
//!   a pointer stored to memory, `ptrtoint` — a cast to generic is inserted;
//! * values whose representation is fixed as generic (loaded from memory,
//!   made by `inttoptr`, returned by a function whose return type stays
//!   generic) keep their generic result and get a `cvta.to` cast after them.
//!
//! `ptrtoint` always sees the generic address: the integer a program makes
//! from a pointer must not change with what the compiler proved.

use super::interproc::State;
use super::intra::{Analysis, Why};
use super::lattice::Space;
use super::Options;
use crate::analysis::{DominatorTree, ModuleAnalyses, Predecessors};
use crate::ir::{
    AccelOp, AddrSpace, FuncId, Function, Inst, InstData, LayoutEdits, Module, Opcode, OperandKind,
    Type, Value, ValueData, ValueDef,
};
use crate::passes::{Access, Diagnostic, DiagnosticKind, DiagnosticNote, Label, MeetPlace, Report};
use cranelift_entity::{EntityRef, SecondaryMap};
use std::fmt::Write as _;

const GENERIC: Type = Type::Ptr(AddrSpace::Generic);

/// The type of every value, as phase 1 saw it.
type Types = SecondaryMap<Value, Type>;

/// The final parameter and return types of every function.
struct Signatures {
    params: Vec<Vec<Type>>,
    returns: Vec<Vec<Type>>,
}

fn final_signatures(module: &Module, state: &State) -> Signatures {
    let mut params = Vec::new();
    let mut returns = Vec::new();
    for (id, f) in module.functions.iter() {
        let seeds = &state.seeds[id.index()];
        params.push(
            f.signature
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| match p.ty {
                    GENERIC => Type::Ptr(seeds[k].0.final_space()),
                    t => t,
                })
                .collect(),
        );
        // Only a function whose callers are all in the module may change
        // what it returns.
        let internal = state.callers_known(id, f) && !f.is_kernel();
        let rets = &state.returns[id.index()];
        returns.push(
            f.signature
                .returns
                .iter()
                .enumerate()
                .map(|(k, &t)| match t {
                    GENERIC if internal => {
                        Type::Ptr(rets.get(k).copied().unwrap_or(Space::Bottom).final_space())
                    }
                    t => t,
                })
                .collect(),
        );
    }
    Signatures { params, returns }
}

/// Rewrites every function of the module; returns whether any changed.
pub fn rewrite_module(
    module: &mut Module,
    state: &State,
    opts: &Options,
    report: &mut Report,
    analyses: &mut ModuleAnalyses,
) -> bool {
    let sigs = final_signatures(module, state);
    let ids: Vec<FuncId> = module.functions.keys().collect();
    if opts.explain {
        for &id in &ids {
            explain(
                &module.functions[id],
                &state.analyses[id.index()],
                module,
                &mut report.transcript.explain_memspace,
            );
        }
    }
    let mut changed = false;
    for id in ids {
        let before = module.functions[id].clone();
        // The rewrite changes types and casts, never the CFG.
        let (domtree, preds) = analyses.of(id).domtree_and_preds(&before);
        let mut rw = Rewriter {
            orig: &before,
            domtree,
            preds,
            func: &mut module.functions[id],
            an: &state.analyses[id.index()],
            sigs: &sigs,
            opts,
            diags: Vec::new(),
            edits: LayoutEdits::default(),
        };
        rw.run(id);
        let diags = rw.diags;
        report.diagnostics.extend(diags);
        changed |= module.functions[id] != before;
    }
    changed
}

/// Whether `is_space asked` is decided by knowing the pointer is in `known`.
fn decide_is_space(asked: AddrSpace, known: AddrSpace) -> Option<bool> {
    use AddrSpace::*;
    match (asked, known) {
        _ if asked == known => Some(true),
        // The CTA's shared window lies inside the cluster's.
        (SharedCluster, Shared) => Some(true),
        (Shared, SharedCluster) => None,
        (Param, _) | (_, Param) => None,
        _ => Some(false),
    }
}

struct Rewriter<'a> {
    /// The function as phase 1 saw it: the analysis's values and reasons
    /// refer to it, so explanations (where a space was proved, where two
    /// met) are read there, not in the IR being rewritten.
    orig: &'a Function,
    /// Its dominator tree and predecessors (the rewrite keeps the CFG).
    domtree: &'a DominatorTree,
    preds: &'a Predecessors,
    func: &'a mut Function,
    an: &'a Analysis,
    sigs: &'a Signatures,
    opts: &'a Options,
    diags: Vec<Diagnostic>,
    /// The casts placed and removed, made at the end of the type rewrite.
    edits: LayoutEdits,
}

impl Rewriter<'_> {
    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    fn diag(&mut self, inst: Inst, kind: DiagnosticKind) {
        self.diag_with(inst, kind, Vec::new());
    }

    fn diag_with(&mut self, inst: Inst, kind: DiagnosticKind, labels: Vec<(Inst, Label)>) {
        let mut diag = Diagnostic::new(kind, &self.func.name, self.func.spans[inst]);
        diag.labels = labels
            .into_iter()
            .map(|(i, label)| (self.func.spans[i], label))
            .collect();
        self.diags.push(diag);
    }

    /// The instruction where the space of `v` was proved: the first step
    /// of its provenance that is an instruction (the cast to generic of a
    /// shared variable's address, of a stack slot, of a kernel parameter).
    fn origin(&self, v: Value) -> Option<Inst> {
        let dfg = &self.orig.dfg;
        let mut v = dfg.resolve_aliases(v);
        let mut found = None;
        for _ in 0..256 {
            if let ValueDef::Result(i, _) = dfg.value_def(v) {
                found = Some(i);
            }
            match self.an.why[v] {
                Why::Cast(src) | Why::Derived(src) | Why::Stored(src) if src != v => {
                    v = dfg.resolve_aliases(src)
                }
                Why::Demanded(i) => return Some(i),
                _ => break,
            }
        }
        found
    }

    /// A label at the place where `v` was proved to be in `space`.
    fn origin_label(&self, v: Value, space: AddrSpace) -> Vec<(Inst, Label)> {
        self.origin(v)
            .map(|i| (i, Label::ProvedHere { space }))
            .into_iter()
            .collect()
    }

    /// Reports demands that contradict each other: one pointer feeding two
    /// operands that admit different spaces. Returns the operands reported.
    fn report_conflicts(&mut self) -> Vec<(Inst, usize)> {
        let mut done = Vec::new();
        for (first, second) in self.an.conflicts.clone() {
            let op = |rw: &Self, i: Inst| rw.func.dfg.insts[i].opcode();
            let kind = DiagnosticKind::ConflictingSpaces {
                op: op(self, second.inst),
                operand: second.operand,
                space: second.space,
                other_op: op(self, first.inst),
                other_space: first.space,
            };
            let label = Label::Demands {
                op: op(self, first.inst),
                space: first.space,
                operand: first.operand,
            };
            self.diag_with(second.inst, kind, vec![(first.inst, label)]);
            done.push((second.inst, second.operand));
        }
        done
    }

    /// Gives the entry parameter `p` (number `n`) a fresh generic value and
    /// turns `p` into a cast of it to `space` at the top of the entry
    /// block: the signature keeps `ptr<generic>`, the body uses the space
    /// a backward refinement proved.
    fn split_param(&mut self, n: usize, p: Value, space: AddrSpace, anchor: Option<Inst>) {
        let Some(entry) = self.func.entry_block() else {
            return;
        };
        let dfg = &mut self.func.dfg;
        let fresh = dfg.values.push(ValueData {
            ty: GENERIC,
            def: ValueDef::Param(entry, n as u32),
        });
        dfg.blocks[entry].params[n] = fresh;
        let cast = dfg.make_inst(
            InstData::AddrSpaceCast {
                to: space,
                arg: fresh,
            },
            &[],
        );
        dfg.results[cast] = smallvec::smallvec![p];
        dfg.values[p] = ValueData {
            ty: Type::Ptr(space),
            def: ValueDef::Result(cast, 0),
        };
        match anchor {
            Some(first) => {
                self.edits.insert_before(cast, first);
                self.func.spans[cast] = self.func.spans[first];
            }
            None => self.func.layout.append_inst(cast, entry),
        }
    }

    /// A new `addrspacecast.<to> v` placed before `at`.
    fn cast_before(&mut self, v: Value, to: AddrSpace, at: Inst) -> Value {
        let inst = self
            .func
            .dfg
            .make_inst(InstData::AddrSpaceCast { to, arg: v }, &[Type::Ptr(to)]);
        self.edits.insert_before(inst, at);
        self.func.spans[inst] = self.func.spans[at];
        self.func.dfg.inst_results(inst)[0]
    }

    /// `v` with the type `want`, through casts inserted before `at` (two,
    /// through generic, between two different concrete spaces).
    fn fit(&mut self, v: Value, want: Type, at: Inst) -> Value {
        let have = self.ty(v);
        match (have, want) {
            (Type::Ptr(h), Type::Ptr(w)) if h != w => {
                if h == AddrSpace::Generic || w == AddrSpace::Generic {
                    self.cast_before(v, w, at)
                } else {
                    let g = self.cast_before(v, AddrSpace::Generic, at);
                    self.cast_before(g, w, at)
                }
            }
            _ => v,
        }
    }

    /// Gives the result `r` of `inst` a fresh generic value and turns `r`
    /// into a cast of it to `space`, placed right after `inst`: `r` keeps
    /// its uses and gets its proved type.
    fn split_result(&mut self, inst: Inst, r: Value, space: AddrSpace) {
        let dfg = &mut self.func.dfg;
        let ValueDef::Result(_, n) = dfg.value_def(r) else {
            return;
        };
        let fresh = dfg.values.push(ValueData {
            ty: GENERIC,
            def: ValueDef::Result(inst, n),
        });
        dfg.results[inst][n as usize] = fresh;
        let cast = dfg.make_inst(
            InstData::AddrSpaceCast {
                to: space,
                arg: fresh,
            },
            &[],
        );
        dfg.results[cast] = smallvec::smallvec![r];
        dfg.values[r] = ValueData {
            ty: Type::Ptr(space),
            def: ValueDef::Result(cast, 0),
        };
        self.edits.insert_after(cast, inst);
        self.func.spans[cast] = self.func.spans[inst];
    }

    /// Rewrites the function in two steps: first every value proved to
    /// point into one space gets that space in its type, then every
    /// instruction is made to agree with the new types (casts fold or are
    /// inserted, `is_space` folds, operands a space does not admit are
    /// errors). Then it publishes what it proved of the parameters, applies
    /// the run-time space tests, and warns of generic accesses left.
    fn run(&mut self, id: FuncId) {
        self.func.dfg.resolve_all_aliases();
        // The types phase 1 saw, which the rewrite changes as it goes.
        let mut before: Types = SecondaryMap::with_default(Type::I1);
        for (v, d) in self.func.dfg.values.iter() {
            before[v] = d.ty;
        }
        let orig_params = self.func.params().to_vec();

        // 1. Types: signature, block parameters, results.
        self.retype_signature_and_params(id, &before);
        let insts: Vec<Inst> = self.func.layout.insts().map(|(_, i)| i).collect();
        for &inst in &insts {
            self.retype_result(inst, &before);
        }

        // 2. Make every instruction agree with the new types.
        let conflicted = self.report_conflicts();
        for &inst in &insts {
            self.fit_operands(inst, &before, &conflicted);
        }
        let edits = std::mem::take(&mut self.edits);
        self.func.layout.apply(edits);
        self.func.dfg.resolve_all_aliases();

        self.publish_param_spaces(&orig_params, &before);
        // Run-time space tests prove the space where they passed.
        super::guards::refine_guarded_accesses(self.func, self.domtree, self.preds);
        if self.func.is_kernel() && self.opts.warn_generic {
            self.warn_generic_accesses();
        }
    }

    /// The space the rewrite gives `v`: the proved one, or generic.
    fn space(&self, v: Value) -> AddrSpace {
        self.an.space[v].final_space()
    }

    /// Whether a generic value proved to be in `s` gets a cast to `s`
    /// after its definition (a space with a generic form, other than
    /// param, which PTX cannot address through a generic pointer).
    fn castable(s: AddrSpace) -> bool {
        s != AddrSpace::Generic && s.has_generic_form() && s != AddrSpace::Param
    }

    /// The final signature, and the proved spaces of the block parameters
    /// that were generic. An entry parameter that the signature keeps
    /// generic (its callers are not all known) is split instead: the body
    /// sees a cast of it to the proved space.
    fn retype_signature_and_params(&mut self, id: FuncId, before: &Types) {
        for (k, p) in self.func.signature.params.iter_mut().enumerate() {
            p.ty = self.sigs.params[id.index()][k];
        }
        self.func.signature.returns = self.sigs.returns[id.index()].clone();
        let blocks: Vec<_> = self.func.layout.blocks().to_vec();
        let entry = self.func.entry_block();
        // The casts of refined parameters go before the entry's first
        // instruction, in parameter order.
        let anchor = entry.and_then(|e| self.func.layout.block_insts(e).first().copied());
        for &b in &blocks {
            for (n, &p) in self.func.dfg.block_params(b).to_vec().iter().enumerate() {
                if before[p] != GENERIC {
                    continue;
                }
                let declared = self.sigs.params[id.index()].get(n).copied();
                if Some(b) == entry && declared == Some(GENERIC) {
                    let s = self.space(p);
                    if Self::castable(s) {
                        self.split_param(n, p, s, anchor);
                    }
                } else {
                    self.func.dfg.values[p].ty = Type::Ptr(self.space(p));
                }
            }
        }
    }

    /// The proved type of `inst`'s pointer result, if it was generic.
    /// Casts, offsets and selects compute in the proved space; a call's
    /// result has its callee's final return type; anything else (a load,
    /// `inttoptr`) yields generic bits, cast to the space after the fact.
    fn retype_result(&mut self, inst: Inst, before: &Types) {
        let Some(&r) = self.func.dfg.inst_results(inst).first() else {
            return;
        };
        if before[r] != GENERIC {
            return;
        }
        let s = self.space(r);
        match self.func.dfg.insts[inst] {
            InstData::AddrSpaceCast { .. }
            | InstData::Binary {
                opcode: Opcode::PtrOffset,
                ..
            }
            | InstData::Ternary {
                opcode: Opcode::Select,
                ..
            } => self.func.dfg.values[r].ty = Type::Ptr(s),
            InstData::Call { func, .. } => {
                let t = self.sigs.returns[func.index()]
                    .first()
                    .copied()
                    .unwrap_or(GENERIC);
                if t != GENERIC {
                    self.func.dfg.values[r].ty = t;
                } else if Self::castable(s) {
                    self.split_result(inst, r, s);
                }
            }
            _ => {
                if Self::castable(s) {
                    self.split_result(inst, r, s);
                }
            }
        }
    }

    /// Makes `inst`'s operands agree with the new types, through casts
    /// placed before it; folds what the types decide. `before` holds the
    /// types phase 1 saw (what memory and integers hold stays generic);
    /// `conflicted` the operands already reported as contradictions.
    fn fit_operands(&mut self, inst: Inst, before: &Types, conflicted: &[(Inst, usize)]) {
        let data = self.func.dfg.insts[inst].clone();
        let new = match data {
            InstData::AddrSpaceCast { arg, .. } => return self.fold_cast(inst, arg),
            InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [p, off],
            } => {
                let want = self.ty(self.func.dfg.inst_results(inst)[0]);
                let p = self.fit(p, want, inst);
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    args: [p, off],
                }
            }
            InstData::Ternary {
                opcode: Opcode::Select,
                args: [c, a, b],
            } => {
                let want = self.ty(self.func.dfg.inst_results(inst)[0]);
                let (a, b) = (self.fit(a, want, inst), self.fit(b, want, inst));
                InstData::Ternary {
                    opcode: Opcode::Select,
                    args: [c, a, b],
                }
            }
            InstData::Jump { .. } | InstData::Brif { .. } => {
                let mut data = data;
                for dest in data.branch_destinations_mut() {
                    let params = self.func.dfg.block_params(dest.block).to_vec();
                    for (a, p) in dest.args.iter_mut().zip(params) {
                        let want = self.ty(p);
                        *a = self.fit(*a, want, inst);
                    }
                }
                data
            }
            InstData::Accel { op, args } => self.fit_accel(inst, op, args, conflicted),
            InstData::Store { value, ptr, flags } => {
                // Memory holds what the program stored: generic addresses.
                let value = self.fit(value, before[value], inst);
                let ptr = match self.ty(ptr) {
                    Type::Ptr(s) if !s.is_writable() => self.fit(ptr, GENERIC, inst),
                    _ => self.assume_global(ptr, inst),
                };
                InstData::Store { value, ptr, flags }
            }
            InstData::Load { ty, ptr, flags } => {
                let ptr = self.assume_global(ptr, inst);
                InstData::Load { ty, ptr, flags }
            }
            InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } => {
                let mut data = data;
                let ptr = data.mem_ptr().expect("atomics access memory");
                let ptr = self.check_atomic(ptr, inst);
                let ptr = self.assume_global(ptr, inst);
                data.set_mem_ptr(ptr);
                data
            }
            InstData::AtomicVec {
                op,
                scope,
                mut args,
            } => {
                let ptr = if self.func.dfg.is_global_only_atomic(inst) {
                    self.check_vector_atomic(args[0], inst)
                } else {
                    self.check_atomic(args[0], inst)
                };
                args[0] = self.assume_global(ptr, inst);
                InstData::AtomicVec { op, scope, args }
            }
            InstData::Call { func, args } => {
                let want = self.sigs.params[func.index()].clone();
                let args = self.fit_all(&args, &want, inst);
                InstData::Call { func, args }
            }
            // The callee is unknown: each argument keeps the type the
            // signature gives it (a pointer stays generic).
            InstData::CallIndirect { sig, args } => {
                let want: Vec<Type> = std::iter::once(Type::I64)
                    .chain(sig.params.iter().copied())
                    .collect();
                let args = self.fit_all(&args, &want, inst);
                InstData::CallIndirect { sig, args }
            }
            InstData::Return { args } => {
                let want = self.func.signature.returns.clone();
                let args = self.fit_all(&args, &want, inst);
                InstData::Return { args }
            }
            InstData::Convert {
                opcode: Opcode::Ptrtoint,
                ty,
                arg,
            } => {
                let arg = self.fit(arg, before[arg], inst);
                InstData::Convert {
                    opcode: Opcode::Ptrtoint,
                    ty,
                    arg,
                }
            }
            InstData::IntCompare { cond, args: [a, b] }
                if self.ty(a).is_ptr() && self.ty(a) != self.ty(b) =>
            {
                let (a, b) = (self.fit(a, before[a], inst), self.fit(b, before[b], inst));
                InstData::IntCompare { cond, args: [a, b] }
            }
            InstData::IsSpace { space, arg } => return self.fold_is_space(inst, space, arg),
            _ => return,
        };
        self.func.dfg.insts[inst] = new;
    }

    /// `args` each fitted to its type in `want` (arguments past it stay).
    fn fit_all(&mut self, args: &[Value], want: &[Type], at: Inst) -> Vec<Value> {
        args.iter()
            .enumerate()
            .map(|(k, &a)| match want.get(k) {
                Some(&t) => self.fit(a, t, at),
                None => a,
            })
            .collect()
    }

    /// A cast whose result and source now have one type goes (its result
    /// becomes the source); a cast between two concrete spaces goes through
    /// generic, as PTX's `cvta` requires.
    fn fold_cast(&mut self, inst: Inst, arg: Value) {
        let r = self.func.dfg.inst_results(inst)[0];
        let (rt, at) = (self.ty(r), self.ty(arg));
        if rt == at {
            self.func.dfg.change_to_alias(r, arg);
            self.edits.remove(inst);
            return;
        }
        let (Type::Ptr(to), Type::Ptr(from)) = (rt, at) else {
            return;
        };
        let arg = if to != AddrSpace::Generic && from != AddrSpace::Generic {
            self.cast_before(arg, AddrSpace::Generic, inst)
        } else {
            arg
        };
        self.func.dfg.insts[inst] = InstData::AddrSpaceCast { to, arg };
    }

    /// An accelerator instruction's operands. One proved to be in a space
    /// the instruction does not admit (a global pointer as an mbarrier, a
    /// local one as a WMMA tile) is an error, with the place where the
    /// space was proved; the operand is cast back to generic so that the IR
    /// stays valid.
    fn fit_accel(
        &mut self,
        inst: Inst,
        op: AccelOp,
        mut args: Vec<Value>,
        conflicted: &[(Inst, usize)],
    ) -> InstData {
        let wmma = matches!(op, AccelOp::WmmaLoad { .. } | AccelOp::WmmaStore { .. });
        for (k, kind) in op.operand_kinds().into_iter().enumerate() {
            let OperandKind::Ptr(allowed) = kind else {
                continue;
            };
            let Type::Ptr(s) = self.ty(args[k]) else {
                continue;
            };
            if allowed.contains(&s) {
                continue;
            }
            // An operand that admits only generic addresses (the runtime
            // calls') takes a pointer into any space, as a generic one.
            let any_space = allowed == [AddrSpace::Generic];
            if !any_space && !conflicted.contains(&(inst, k)) {
                let kind = match s {
                    AddrSpace::Const | AddrSpace::Local if wmma => {
                        DiagnosticKind::Wmma { space: s }
                    }
                    _ => DiagnosticKind::OperandSpace {
                        op: op.opcode(),
                        operand: k,
                        allowed,
                        space: s,
                    },
                };
                let labels = self.origin_label(args[k], s);
                self.diag_with(inst, kind, labels);
            }
            args[k] = self.fit(args[k], GENERIC, inst);
        }
        InstData::Accel { op, args }
    }

    /// `is_space asked p` with `p` of a known space becomes a constant,
    /// unless the space was only assumed (a guard's own test) or does not
    /// decide the question; then it tests the generic address.
    fn fold_is_space(&mut self, inst: Inst, asked: AddrSpace, arg: Value) {
        let Type::Ptr(known) = self.ty(arg) else {
            return;
        };
        if known == AddrSpace::Generic {
            return;
        }
        let decided = if self.an.assumed[arg] {
            None
        } else {
            decide_is_space(asked, known)
        };
        self.func.dfg.insts[inst] = match decided {
            Some(yes) => InstData::Iconst {
                ty: Type::I1,
                imm: yes as i64,
            },
            None => {
                let arg = self.fit(arg, GENERIC, inst);
                InstData::IsSpace { space: asked, arg }
            }
        };
    }

    /// Records the space proved for each pointer parameter (its caller
    /// needs it to pick `ld.global` for what it passes), in the function's
    /// attributes.
    fn publish_param_spaces(&mut self, orig_params: &[Value], before: &Types) {
        let spaces: Vec<Option<AddrSpace>> = self
            .func
            .signature
            .params
            .iter()
            .enumerate()
            .map(|(n, p)| match p.ty {
                Type::Ptr(declared) => Some(match orig_params.get(n) {
                    Some(&v) => match before[v] {
                        GENERIC => self.space(v),
                        Type::Ptr(s) => s,
                        _ => declared,
                    },
                    None => declared,
                }),
                _ => None,
            })
            .collect();
        self.func.attrs.arg_spaces = spaces.iter().any(Option::is_some).then_some(spaces);
    }

    /// `-Wgeneric`: a warning for every load, store or atomic of the kernel
    /// left generic, with why its pointer stayed generic.
    fn warn_generic_accesses(&mut self) {
        let insts: Vec<Inst> = self.func.layout.insts().map(|(_, i)| i).collect();
        for inst in insts {
            let data = &self.func.dfg.insts[inst];
            let Some(p) = data.mem_ptr() else {
                continue;
            };
            if self.ty(p) != GENERIC {
                continue;
            }
            let access = match data.opcode() {
                Opcode::Load => Access::Load,
                Opcode::Store => Access::Store,
                _ => Access::Atomic,
            };
            // The access's pointer as phase 1 saw it (the rewrite may have
            // put a cast in between).
            let p = if inst.index() < self.orig.dfg.insts.len() {
                self.orig.dfg.insts[inst].mem_ptr().unwrap_or(p)
            } else {
                p
            };
            let (labels, notes) = self.why_generic(p);
            self.diag_with(inst, DiagnosticKind::GenericAccess { access }, labels);
            if let Some(d) = self.diags.last_mut() {
                d.notes = notes;
            }
        }
    }

    /// Why `p` stayed generic, for the `-Wgeneric` warning: labels at the
    /// place where two spaces met (a select, or the branch that brought the
    /// second space to a block parameter) and where each of them was
    /// proved, or at the place where provenance was lost (a load, an
    /// `inttoptr`, a call); notes for what has no place in this function.
    fn why_generic(&self, p: Value) -> (Vec<(Inst, Label)>, Vec<DiagnosticNote>) {
        let dfg = &self.orig.dfg;
        let mut v = dfg.resolve_aliases(p);
        let def_inst = |v: Value| match dfg.value_def(v) {
            ValueDef::Result(i, _) => Some(i),
            _ => None,
        };
        for _ in 0..256 {
            match self.an.why[v] {
                Why::Cast(src) | Why::Derived(src) | Why::Stored(src) if src != v => {
                    v = dfg.resolve_aliases(src)
                }
                Why::Met(a, sa, b, sb) => {
                    let merge = def_inst(v).or_else(|| self.branch_passing(v, b));
                    let mut labels = Vec::new();
                    if let Some(i) = merge {
                        let place = match def_inst(v).map(|i| dfg.insts[i].opcode()) {
                            Some(Opcode::Load) => MeetPlace::LocalVariable,
                            Some(_) => MeetPlace::Select,
                            None => MeetPlace::ControlFlowMerge,
                        };
                        labels.push((
                            i,
                            Label::SpacesMeet {
                                a: sa,
                                b: sb,
                                place,
                            },
                        ));
                    }
                    for (x, s) in [(a, sa), (b, sb)] {
                        if let (Some(i), Space::Concrete(space)) = (self.origin(x), s) {
                            if Some(i) != merge {
                                labels.push((i, Label::PointsTo { space }));
                            }
                        }
                    }
                    return (labels, vec![DiagnosticNote::EitherSpace { a: sa, b: sb }]);
                }
                Why::Lost(t) => {
                    let labels = def_inst(v)
                        .map(|i| (i, Label::ProvenanceLostHere { reason: t }))
                        .into_iter()
                        .collect();
                    return (labels, vec![DiagnosticNote::ProvenanceLost { reason: t }]);
                }
                Why::CallResult(_) => {
                    let labels = def_inst(v)
                        .map(|i| (i, Label::MixedCallResult))
                        .into_iter()
                        .collect();
                    return (labels, vec![DiagnosticNote::MixedCallResults]);
                }
                Why::Param(t) => {
                    let note = DiagnosticNote::Parameter { reason: t.text };
                    return (Vec::new(), vec![note]);
                }
                Why::Assumed(t) => {
                    return (Vec::new(), vec![DiagnosticNote::Assumed { reason: t }]);
                }
                _ => break,
            }
        }
        (Vec::new(), Vec::new())
    }

    /// A branch that passes `arg` to the block whose parameter is `param`.
    fn branch_passing(&self, param: Value, arg: Value) -> Option<Inst> {
        let dfg = &self.orig.dfg;
        let ValueDef::Param(block, n) = dfg.value_def(param) else {
            return None;
        };
        self.orig.layout.insts().map(|(_, i)| i).find(|&i| {
            dfg.insts[i].branch_destinations().iter().any(|d| {
                d.block == block
                    && d.args
                        .get(n as usize)
                        .is_some_and(|&x| dfg.resolve_aliases(x) == arg)
            })
        })
    }

    /// The atomic rules of the seeds: local and const memory have no atomics.
    /// The pointer is kept generic so that the IR stays valid.
    fn check_atomic(&mut self, ptr: Value, inst: Inst) -> Value {
        match self.ty(ptr) {
            Type::Ptr(AddrSpace::Local) => {
                self.diag(inst, DiagnosticKind::AtomicOnLocal);
                self.fit(ptr, GENERIC, inst)
            }
            Type::Ptr(AddrSpace::Const) => {
                self.diag(inst, DiagnosticKind::AtomicOnConst);
                self.fit(ptr, GENERIC, inst)
            }
            Type::Ptr(AddrSpace::Param) => self.fit(ptr, GENERIC, inst),
            _ => ptr,
        }
    }

    /// A vector atomic's pointer: PTX has them on global memory only, so a
    /// pointer proved to point anywhere else is an error (and goes back to
    /// generic, to keep the IR valid).
    fn check_vector_atomic(&mut self, ptr: Value, inst: Inst) -> Value {
        match self.ty(ptr) {
            Type::Ptr(AddrSpace::Global | AddrSpace::Generic) => ptr,
            Type::Ptr(s) => {
                self.diag(inst, DiagnosticKind::VectorAtomic { space: s });
                self.fit(ptr, GENERIC, inst)
            }
            _ => ptr,
        }
    }

    /// `--memspace-assume-global` (unsafe): an access through a pointer of
    /// unknown space becomes a global access, with a warning.
    fn assume_global(&mut self, ptr: Value, inst: Inst) -> Value {
        if !self.opts.assume_global || self.ty(ptr) != GENERIC {
            return ptr;
        }
        self.diag(inst, DiagnosticKind::AssumedGlobal);
        self.cast_before(ptr, AddrSpace::Global, inst)
    }
}

/// The `--explain-memspace` text of one function: every `ptr<generic>`
/// value with its final element and the step that decided it.
fn explain(func: &Function, an: &Analysis, module: &Module, out: &mut String) {
    let mut values: Vec<Value> = Vec::new();
    for &b in func.layout.blocks() {
        values.extend(func.dfg.block_params(b));
        for &i in func.layout.block_insts(b) {
            values.extend(func.dfg.inst_results(i));
        }
    }
    values.retain(|&v| func.dfg.value_type(v) == GENERIC);
    let _ = writeln!(out, "@{}:", func.name);
    if values.is_empty() {
        let _ = writeln!(out, "  (no generic pointers)");
    }
    for v in values {
        let s = an.space[v];
        let why = match an.why[v] {
            Why::Unknown => "never reached".to_string(),
            Why::Declared => "declared".to_string(),
            Why::Param(t) => t.to_string(),
            Why::Cast(src) => format!("cast to generic of {src} ({})", an.space[src]),
            Why::Derived(src) => format!("from {src} ({})", an.space[src]),
            Why::Stored(src) => format!(
                "loaded from local memory where {src} ({}) was stored",
                an.space[src]
            ),
            Why::Met(a, sa, b, sb) => format!("{a} ({sa}) met {b} ({sb})"),
            Why::Lost(t) => format!("provenance lost: {t}"),
            Why::CallResult(f) => match module.functions.get(f) {
                Some(f) => format!("returned by @{}", f.name),
                None => "returned by a call".to_string(),
            },
            Why::Assumed(t) => t.to_string(),
            Why::Demanded(i) => format!(
                "refined backwards: `{}` admits only this space, and it always runs after this value is made",
                func.dfg.insts[i].opcode()
            ),
        };
        let shown = if s == Space::Bottom {
            "generic (bottom)".to_string()
        } else {
            s.to_string()
        };
        let _ = writeln!(out, "  {v}: {shown} ← {why}");
    }
}
