//! Inter-procedural propagation: the worklist of callees.
//!
//! A device function's generic pointer parameter is whatever its callers
//! pass. Each call site *votes* with the lattice element of its argument;
//! the join of the votes is `Bottom` (no caller has a known space yet), one
//! concrete space (all agree) or `Generic` (they disagree: the POISON).
//!
//! * An internal function (all callers visible) whose callers agree is
//!   specialized in place: the parameter's seed becomes the vote, and the
//!   rewrite changes the parameter's type.
//! * An external function (unknown callers may pass anything), or an
//!   internal one whose callers disagree, is cloned once per
//!   argument-space signature seen at its call sites. The clone is internal,
//!   named after the spaces (`helper__shared`), and the matching calls are
//!   retargeted to it. Clones are keyed by (original, signature), so a
//!   recursive call inside a clone finds the clone itself and the process
//!   ends.
//! * A function whose returns all agree publishes its return space, and its
//!   callers are walked again.
//!
//! Every change re-enqueues the functions whose votes it can change (the
//! callees of a re-analysed function), until the worklist is empty. The
//! lattice bounds the changes of seeds and returns, and the clone budget
//! and the clone key bound the clones; a step cap guards against a bug.

use super::intra::{
    analyze, byval_fields, space_in_memory, Analysis, Boundary, FieldSeeds, SeedReason,
};
use super::lattice::Space;
use super::Options;
use crate::analysis::LocalCells;
use crate::ir::{AddrSpace, FuncId, FuncKind, Function, Inst, InstData, Linkage, Module, Type};
use crate::passes::Report;
use cranelift_entity::EntityRef;
use cranelift_entity::SecondaryMap;
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

/// What the propagation found, per function (indexed by `FuncId::index`).
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Per parameter: the element the walker starts from, and why.
    pub seeds: Vec<Vec<(Space, SeedReason)>>,
    /// Per pointer field of a by-value parameter: the same.
    pub fields: Vec<FieldSeeds>,
    /// Per return slot: the space callers may rely on.
    pub returns: Vec<Vec<Space>>,
    /// The final phase-1 result of every function.
    pub analyses: Vec<Analysis>,
    /// For each function, the function it was (eventually) cloned from.
    pub root: Vec<FuncId>,
    /// The functions whose address is taken: an indirect call may reach
    /// them, so their callers are unknown, as an external function's are
    /// (a clone never is: `func_addr` names the original).
    pub address_taken: SecondaryMap<FuncId, bool>,
}

impl State {
    /// Whether every caller of `f` is a call the module shows: an internal
    /// function whose address is not taken.
    pub fn callers_known(&self, f: FuncId, func: &Function) -> bool {
        func.attrs.linkage == Linkage::Internal && !self.address_taken[f]
    }
}

impl State {
    /// The space a call to `f` returns in its first slot (`Bottom`: not known yet).
    pub fn return_space(&self, f: FuncId) -> Space {
        self.returns
            .get(f.index())
            .and_then(|r| r.first().copied())
            .unwrap_or(Space::Bottom)
    }
}

/// The walker's starting point for each parameter of `f` (before any vote);
/// `callers_known` as [`State::callers_known`] says.
fn initial_seeds(f: &Function, callers_known: bool, opts: &Options) -> Vec<(Space, SeedReason)> {
    f.signature
        .params
        .iter()
        .map(|p| match p.ty {
            // A by-value aggregate or a struct result is reached through a
            // pointer the calling convention makes (the callee's `.param`
            // copy, the caller's temporary); what it holds is followed
            // field by field instead.
            Type::Ptr(AddrSpace::Generic) if p.attrs.byval.is_some() || p.attrs.sret.is_some() => (
                Space::Generic,
                SeedReason::new("by-value aggregate (the calling convention's pointer)"),
            ),
            Type::Ptr(AddrSpace::Generic) if f.is_kernel() => {
                if opts.param_always_point_to_global {
                    (
                        Space::Concrete(AddrSpace::Global),
                        SeedReason::assumption("kernel parameter (--param-always-point-to-global)"),
                    )
                } else {
                    (Space::Generic, SeedReason::new("kernel parameter"))
                }
            }
            Type::Ptr(AddrSpace::Generic) if !callers_known => {
                (Space::Generic, SeedReason::new(unknown_callers(f)))
            }
            Type::Ptr(AddrSpace::Generic) if opts.conservative => (
                Space::Generic,
                SeedReason::new("parameter (--memspace-conservative)"),
            ),
            Type::Ptr(AddrSpace::Generic) => (
                Space::Bottom,
                SeedReason::new("parameter, from the votes of its callers"),
            ),
            Type::Ptr(s) => (Space::Concrete(s), SeedReason::new("declared")),
            _ => (Space::Bottom, SeedReason::new("not a pointer")),
        })
        .collect()
}

/// Why a parameter of `f`, whose callers are unknown, starts generic.
fn unknown_callers(f: &Function) -> &'static str {
    match f.attrs.linkage {
        Linkage::External | Linkage::Weak => "parameter of an external function (unknown callers)",
        Linkage::Internal => "parameter of a function whose address is taken (unknown callers)",
    }
}

/// Whether argument `k` of a call to `f` is passed by value.
fn byval_arg(module: &Module, f: FuncId, k: usize) -> bool {
    module
        .functions
        .get(f)
        .and_then(|g| g.signature.params.get(k))
        .is_some_and(|p| p.attrs.byval.is_some())
}

/// The walker's starting point for the pointer fields of `f`'s by-value
/// parameters (before any vote).
fn initial_fields(
    module: &Module,
    f: &Function,
    callers_known: bool,
    opts: &Options,
) -> FieldSeeds {
    let cells = LocalCells::compute(f, &|g, k| byval_arg(module, g, k));
    byval_fields(f, &cells)
        .into_iter()
        .map(|key| {
            let seed = if !callers_known {
                let why = match f.attrs.linkage {
                    Linkage::External | Linkage::Weak => {
                        "field of a by-value parameter of an external function (unknown callers)"
                    }
                    Linkage::Internal => {
                        "field of a by-value parameter of a function whose address is taken (unknown callers)"
                    }
                };
                (Space::Generic, why)
            } else if opts.conservative {
                (
                    Space::Generic,
                    "field of a by-value parameter (--memspace-conservative)",
                )
            } else {
                (
                    Space::Bottom,
                    "field of a by-value parameter, from the votes of its callers",
                )
            };
            (key, seed)
        })
        .collect()
}

/// A clone's key besides its original: the space of every parameter, then
/// of every pointer field of a by-value parameter (in the order of the
/// original's [`FieldSeeds`]).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Signature {
    params: Vec<AddrSpace>,
    fields: Vec<AddrSpace>,
}

/// A call site's vote for one argument: a space the callee can be
/// specialized to, or POISON. Param space is not addressable from a device
/// function, so it poisons.
fn vote_of(s: Space) -> Space {
    match s {
        Space::Concrete(AddrSpace::Param | AddrSpace::Tmem) => Space::Generic,
        s => s,
    }
}

/// The name a clone gets: the original's plus one word per pointer
/// parameter, valid as a PTX identifier.
fn clone_name(
    names: &rustc_hash::FxHashSet<String>,
    root: &Function,
    fields: &FieldSeeds,
    sig: &Signature,
) -> String {
    let word = |s: &AddrSpace| s.name().replace("::", "_");
    let mut words: Vec<String> = Vec::new();
    for (k, (p, s)) in root.signature.params.iter().zip(&sig.params).enumerate() {
        if p.ty != Type::Ptr(AddrSpace::Generic) {
            continue;
        }
        // A by-value aggregate is named by the spaces of its pointer fields.
        let of_param: Vec<String> = fields
            .keys()
            .zip(&sig.fields)
            .filter(|((n, _), _)| *n as usize == k)
            .map(|(_, s)| word(s))
            .collect();
        if of_param.is_empty() {
            words.push(word(s));
        } else {
            words.extend(of_param);
        }
    }
    let base = format!("{}__{}", root.name, words.join("_"));
    let mut name = base.clone();
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// The call sites of every callee, kept in a fixed order (caller,
/// then position in the caller's layout) while clones are added
/// and calls retargeted. Rebuilding the list from every call of the module
/// on every visit made the pass quadratic in the module's size (a 256 KB source
/// spent almost a minute here); the index is updated in place instead.
/// Layouts do not change during phase 1, so positions stay valid.
struct CallIndex {
    /// Per callee: (caller, position of the call in the caller, the call).
    by_callee: Vec<Vec<(FuncId, usize, Inst)>>,
}

impl CallIndex {
    fn build(module: &Module) -> CallIndex {
        let mut index = CallIndex {
            by_callee: Vec::new(),
        };
        for f in module.functions.keys() {
            index.add_function(module, f);
        }
        index
    }

    fn insert(&mut self, callee: FuncId, entry: (FuncId, usize, Inst)) {
        if self.by_callee.len() <= callee.index() {
            self.by_callee.resize_with(callee.index() + 1, Vec::new);
        }
        let list = &mut self.by_callee[callee.index()];
        let key = (entry.0.index(), entry.1);
        let at = list.partition_point(|e| (e.0.index(), e.1) < key);
        list.insert(at, entry);
    }

    /// Adds the calls made by `f` (a function new to the index).
    fn add_function(&mut self, module: &Module, f: FuncId) {
        if self.by_callee.len() <= f.index() {
            self.by_callee.resize_with(f.index() + 1, Vec::new);
        }
        let func = &module.functions[f];
        for (pos, (_, inst)) in func.layout.insts().enumerate() {
            if let InstData::Call { func: callee, .. } = func.dfg.insts[inst] {
                self.insert(callee, (f, pos, inst));
            }
        }
    }

    /// `inst` in `caller` now calls `to` instead of `from`.
    fn retarget(&mut self, caller: FuncId, inst: Inst, from: FuncId, to: FuncId) {
        let list = &mut self.by_callee[from.index()];
        if let Some(k) = list.iter().position(|e| e.0 == caller && e.2 == inst) {
            let entry = list.remove(k);
            self.insert(to, entry);
        }
    }

    /// The sites calling `g`, in the index's order.
    fn sites(&self, g: FuncId) -> Vec<(FuncId, Inst)> {
        self.by_callee
            .get(g.index())
            .map(|l| l.iter().map(|e| (e.0, e.2)).collect())
            .unwrap_or_default()
    }
}

struct Driver<'a> {
    opts: &'a Options,
    calls: CallIndex,
    state: State,
    work: VecDeque<FuncId>,
    queued: Vec<bool>,
    clones: BTreeMap<(FuncId, Signature), FuncId>,
    attempts: i64,
    /// The name of every function of the module, clones included (looking a
    /// new clone's name up in the module was a scan per clone).
    names: rustc_hash::FxHashSet<String>,
    log: String,
    /// The module stores only global pointers to memory that may be global
    /// (see `closed_world::closed_world_holds`).
    closed_world: bool,
}

impl Driver<'_> {
    fn analyze(&self, module: &Module, f: FuncId) -> Analysis {
        let ret = |g: FuncId| self.state.return_space(g);
        let byval = |g: FuncId, k: usize| byval_arg(module, g, k);
        let boundary = Boundary {
            params: &self.state.seeds[f.index()],
            callee_return: &ret,
            fields: &self.state.fields[f.index()],
            byval_arg: &byval,
            closed_world: self.closed_world,
            const_holds_only_global: !module.initializers_hold_non_global(AddrSpace::Const),
        };
        analyze(&module.functions[f], &boundary, self.opts)
    }

    /// Whether votes over `f`'s call sites can change anything for it.
    fn is_candidate(module: &Module, f: FuncId) -> bool {
        let func = &module.functions[f];
        func.attrs.kind == FuncKind::Device
            && func.entry_block().is_some()
            && func
                .signature
                .params
                .iter()
                .any(|p| p.ty == Type::Ptr(AddrSpace::Generic))
    }

    fn enqueue(&mut self, module: &Module, f: FuncId) {
        if self.opts.conservative || !Self::is_candidate(module, f) {
            return;
        }
        if !self.queued[f.index()] {
            self.queued[f.index()] = true;
            self.work.push_back(f);
        }
    }

    /// Walks `f` again; when its return space changes, walks its callers
    /// too. Every walked function's callees are enqueued, since the spaces
    /// of their arguments may have changed. Returns how many were enqueued.
    fn reanalyze(&mut self, module: &Module, f: FuncId) -> usize {
        let mut todo = vec![f];
        let mut affected = 0;
        let mut steps = 0;
        while let Some(h) = todo.pop() {
            steps += 1;
            if steps > 64 * module.functions.len() + 64 {
                let _ = writeln!(
                    self.log,
                    "giving up re-analysis at @{}",
                    module.functions[h].name
                );
                break;
            }
            let a = self.analyze(module, h);
            if a.returns != self.state.returns[h.index()] {
                self.state.returns[h.index()] = a.returns.clone();
                if let Some(Space::Concrete(s)) = a.returns.first() {
                    let _ = writeln!(
                        self.log,
                        "{} : return memory space is resolved : {s}",
                        module.functions[h].name
                    );
                }
                for (caller, _) in self.calls.sites(h) {
                    if !todo.contains(&caller) {
                        todo.push(caller);
                    }
                }
            }
            self.state.analyses[h.index()] = a;
            let callees: Vec<FuncId> = module.functions[h]
                .layout
                .insts()
                .filter_map(|(_, i)| match module.functions[h].dfg.insts[i] {
                    InstData::Call { func, .. } => Some(func),
                    _ => None,
                })
                .collect();
            let mut seen: rustc_hash::FxHashSet<FuncId> = Default::default();
            for g in callees {
                if Self::is_candidate(module, g) && seen.insert(g) {
                    affected += 1;
                }
                self.enqueue(module, g);
            }
        }
        affected
    }

    /// Per parameter of `g`, the join of the votes of `sites`; then per
    /// pointer field of a by-value parameter (in the order of `g`'s field
    /// seeds), the same.
    fn votes(
        &self,
        module: &Module,
        g: FuncId,
        sites: &[(FuncId, Inst)],
    ) -> (Vec<Space>, Vec<Space>) {
        let n = module.functions[g].signature.params.len();
        let keys: Vec<(u32, i64)> = self.state.fields[g.index()].keys().copied().collect();
        let mut votes = vec![Space::Bottom; n];
        let mut field_votes = vec![Space::Bottom; keys.len()];
        for &(caller, inst) in sites {
            let cf = &module.functions[caller];
            if let InstData::Call { args, .. } = &cf.dfg.insts[inst] {
                for (k, &a) in args.iter().enumerate().take(n) {
                    let s = self.state.analyses[caller.index()].get(cf, a);
                    votes[k] = votes[k].join(vote_of(s));
                }
                for (j, &(p, off)) in keys.iter().enumerate() {
                    let s = self.field_vote(cf, caller, args.get(p as usize).copied(), off);
                    field_votes[j] = field_votes[j].join(vote_of(s));
                }
            }
        }
        (votes, field_votes)
    }

    /// What `caller` passes in the pointer field at byte `off` of the
    /// aggregate it passes by value as `arg`: the space of the pointers it
    /// stored there, when its memory can be followed.
    fn field_vote(
        &self,
        cf: &Function,
        caller: FuncId,
        arg: Option<crate::ir::Value>,
        off: i64,
    ) -> Space {
        let a = &self.state.analyses[caller.index()];
        let Some((base, at)) = arg.and_then(|v| a.cells.address(cf, v)) else {
            return Space::Generic;
        };
        space_in_memory(cf, a, base, at + off, self.opts)
    }

    /// One visit of the callee `g`.
    fn process(&mut self, module: &mut Module, g: FuncId) {
        let sites = self.calls.sites(g);
        if sites.is_empty() {
            return;
        }
        let generic: Vec<usize> = module.functions[g]
            .signature
            .params
            .iter()
            .enumerate()
            // A by-value aggregate or a struct result is reached through a
            // pointer the calling convention makes (the callee's `.param`
            // copy, the caller's temporary): it keeps its generic type.
            .filter(|(_, p)| {
                p.ty == Type::Ptr(AddrSpace::Generic)
                    && p.attrs.byval.is_none()
                    && p.attrs.sret.is_none()
            })
            .map(|(k, _)| k)
            .collect();
        let internal = self.state.callers_known(g, &module.functions[g]);
        let (votes, field_votes) = self.votes(module, g, &sites);
        let field_keys: Vec<(u32, i64)> = self.state.fields[g.index()].keys().copied().collect();

        // Which parameters need a clone: for an internal function, those
        // whose callers disagree; for an external one, any with a concrete vote
        // somewhere.
        let clone_params: Vec<usize> = generic
            .iter()
            .copied()
            .filter(|&k| {
                if internal {
                    votes[k] == Space::Generic
                        && self.state.seeds[g.index()][k].0.concrete().is_none()
                } else {
                    true
                }
            })
            .collect();
        let clone_fields: Vec<usize> = (0..field_keys.len())
            .filter(|&j| {
                if internal {
                    field_votes[j] == Space::Generic
                        && self.state.fields[g.index()][&field_keys[j]]
                            .0
                            .concrete()
                            .is_none()
                } else {
                    true
                }
            })
            .collect();
        if !clone_params.is_empty() || !clone_fields.is_empty() {
            self.clone_for_sites(module, g, &sites, &clone_params, &clone_fields);
        }

        if internal {
            // In place: the votes of the call sites that are left.
            let sites = self.calls.sites(g);
            let (votes, field_votes) = self.votes(module, g, &sites);
            let mut changed = 0;
            for (j, key) in field_keys.iter().enumerate() {
                let old = self.state.fields[g.index()][key].0;
                let vote = field_votes[j];
                if vote != Space::Bottom && vote != old {
                    self.state.fields[g.index()].insert(
                        *key,
                        (
                            vote,
                            if vote == Space::Generic {
                                "field of a by-value parameter: its callers disagree"
                            } else {
                                "field of a by-value parameter: all its callers agree"
                            },
                        ),
                    );
                    changed += 1;
                }
            }
            for &k in &generic {
                let old = self.state.seeds[g.index()][k].0;
                if votes[k] != Space::Bottom && votes[k] != old {
                    self.state.seeds[g.index()][k] = (
                        votes[k],
                        SeedReason::new(if votes[k] == Space::Generic {
                            "parameter: its callers disagree"
                        } else {
                            "parameter: all its callers agree"
                        }),
                    );
                    changed += 1;
                }
            }
            if changed > 0 {
                let _ = writeln!(
                    self.log,
                    "{} : changed in argument memory space ({changed} arguments)",
                    module.functions[g].name
                );
                let n = self.reanalyze(module, g);
                if n > 0 {
                    let _ = writeln!(self.log, "{n} callees are affected");
                }
            }
        }
    }

    /// Clones `g` once per signature of `params` seen at `sites` (reusing a
    /// clone made before) and retargets the calls.
    fn clone_for_sites(
        &mut self,
        module: &mut Module,
        g: FuncId,
        sites: &[(FuncId, Inst)],
        params: &[usize],
        fields: &[usize],
    ) {
        let root = self.state.root[g.index()];
        let field_keys: Vec<(u32, i64)> = self.state.fields[g.index()].keys().copied().collect();
        // (caller, the callee it called before, the clone it calls now).
        let mut retargeted: Vec<(FuncId, FuncId, FuncId)> = Vec::new();
        let mut new_clones: Vec<FuncId> = Vec::new();
        for &(caller, inst) in sites {
            let cf = &module.functions[caller];
            let InstData::Call { args, .. } = &cf.dfg.insts[inst] else {
                continue;
            };
            let seeds = &self.state.seeds[g.index()];
            let mut sig = Signature {
                params: seeds.iter().map(|s| s.0.final_space()).collect(),
                fields: self.state.fields[g.index()]
                    .values()
                    .map(|s| s.0.final_space())
                    .collect(),
            };
            let mut any = false;
            for &k in params {
                let s = vote_of(self.state.analyses[caller.index()].get(cf, args[k]));
                sig.params[k] = s.final_space();
                any |= s.concrete().is_some();
            }
            for &j in fields {
                let (p, off) = field_keys[j];
                let s = vote_of(self.field_vote(cf, caller, args.get(p as usize).copied(), off));
                sig.fields[j] = s.final_space();
                any |= s.concrete().is_some();
            }
            if !any {
                continue;
            }
            let key = (root, sig.clone());
            let clone = match self.clones.get(&key) {
                Some(&c) => c,
                None => {
                    let name = &module.functions[g].name;
                    if self.opts.clone_budget >= 0 && self.attempts >= self.opts.clone_budget {
                        let _ = writeln!(self.log, "avoid cloning of {name}");
                        continue;
                    }
                    self.attempts += 1;
                    let c = self.make_clone(module, g, root, &sig);
                    new_clones.push(c);
                    c
                }
            };
            if clone == g {
                continue;
            }
            if let InstData::Call { func, .. } = &mut module.functions[caller].dfg.insts[inst] {
                let from = *func;
                *func = clone;
                self.calls.retarget(caller, inst, from, clone);
                if !retargeted.contains(&(caller, from, clone)) {
                    retargeted.push((caller, from, clone));
                }
            }
        }
        for &c in &new_clones {
            self.reanalyze(module, c);
        }
        // A caller's own walk depends on the call only through the space
        // the callee returns: a caller whose calls now reach a clone that
        // returns what the original returned is walked again at the end
        // (every analysis is), not now. Walking every such caller at once
        // made the pass quadratic: a kernel calling a chain of n helpers was
        // walked once per clone, 2n times. The clones that gained call sites
        // are visited again, since the votes at those sites are new.
        let mut again: Vec<FuncId> = Vec::new();
        for &(caller, from, to) in &retargeted {
            if self.state.returns[from.index()] != self.state.returns[to.index()]
                && !again.contains(&caller)
            {
                again.push(caller);
            }
            self.enqueue(module, to);
        }
        let mut gained: Vec<FuncId> = retargeted.iter().map(|r| r.2).collect();
        gained.sort_unstable();
        gained.dedup();
        let mut affected = gained.len();
        for caller in again {
            affected += self.reanalyze(module, caller);
        }
        if affected > 0 {
            let _ = writeln!(self.log, "{affected} callees are affected");
        }
    }

    fn make_clone(
        &mut self,
        module: &mut Module,
        g: FuncId,
        root: FuncId,
        sig: &Signature,
    ) -> FuncId {
        let mut f = module.functions[g].clone();
        f.name = clone_name(
            &self.names,
            &module.functions[root],
            &self.state.fields[g.index()],
            sig,
        );
        f.attrs.linkage = Linkage::Internal;
        // A clone is internal, and only the calls retargeted to it reach it.
        let mut seeds = initial_seeds(&f, true, self.opts);
        let mut fields = initial_fields(module, &f, true, self.opts);
        for ((key, seed), &s) in fields.iter_mut().zip(&sig.fields) {
            if s != AddrSpace::Generic {
                *seed = (
                    Space::Concrete(s),
                    "field of a by-value parameter of a clone specialized to it",
                );
            } else if let Some(&(prev, why)) = self.state.fields[g.index()].get(key) {
                if prev.concrete().is_some() {
                    *seed = (prev, why);
                }
            }
        }
        for (k, &s) in sig.params.iter().enumerate() {
            if f.signature.params[k].ty == Type::Ptr(AddrSpace::Generic) && s != AddrSpace::Generic
            {
                seeds[k] = (
                    Space::Concrete(s),
                    SeedReason::new("parameter of a clone specialized to it"),
                );
            } else if let Some(&(prev, why)) = self.state.seeds[g.index()].get(k) {
                if prev.concrete().is_some() {
                    seeds[k] = (prev, why);
                }
            }
        }
        let _ = writeln!(self.log, "{} is cloned", f.name);
        self.names.insert(f.name.clone());
        let id = module.push_function(f);
        self.calls.add_function(module, id);
        self.state.seeds.push(seeds);
        self.state.fields.push(fields);
        // Bottom, as every function starts: the clone's walk raises it.
        // (An empty list read as a change of return space, and walked every
        // caller of every new clone.)
        self.state.returns.push(vec![
            Space::Bottom;
            module.functions[id].signature.returns.len()
        ]);
        self.state.analyses.push(Analysis::default());
        self.state.root.push(root);
        self.queued.push(false);
        self.clones.insert((root, sig.clone()), id);
        id
    }
}

/// Runs phase 1 on every function and the inter-procedural worklist to a
/// fixed point. Clones are added to `module`; no type changes yet.
///
/// Pointers loaded from global memory are global when the module never
/// stores any other kind of pointer where global memory may be. That fact
/// depends on the spaces the propagation proves, which depend on it in
/// turn; it is settled the optimistic way: propagate on a copy of the
/// module assuming it, and keep it only if the result confirms it (every
/// pointer stored is then global by induction over the program's stores).
pub fn propagate(module: &mut Module, opts: &Options, report: &mut Report) -> State {
    use super::closed_world::{closed_world_holds, loads_pointers_from_memory};
    let closed_world = opts.track_indir_load && loads_pointers_from_memory(module) && {
        let mut copy = module.clone();
        let state = propagate_with(&mut copy, opts, true, &mut String::new());
        closed_world_holds(&copy, &state)
    };
    let mut log = String::new();
    let state = propagate_with(module, opts, closed_world, &mut log);
    if opts.dump_ip_msp {
        report.transcript.dump_ip_msp.push_str(&log);
    }
    state
}

fn propagate_with(
    module: &mut Module,
    opts: &Options,
    closed_world: bool,
    log: &mut String,
) -> State {
    let n = module.functions.len();
    let address_taken = module.address_taken();
    let known =
        |id: FuncId, f: &Function| f.attrs.linkage == Linkage::Internal && !address_taken[id];
    let mut d = Driver {
        opts,
        calls: CallIndex::build(module),
        state: State {
            seeds: module
                .functions
                .iter()
                .map(|(id, f)| initial_seeds(f, known(id, f), opts))
                .collect(),
            fields: module
                .functions
                .iter()
                .map(|(id, f)| initial_fields(module, f, known(id, f), opts))
                .collect(),
            returns: module
                .functions
                .values()
                .map(|f| vec![Space::Bottom; f.signature.returns.len()])
                .collect(),
            analyses: vec![Analysis::default(); n],
            root: module.functions.keys().collect(),
            address_taken: address_taken.clone(),
        },
        work: VecDeque::new(),
        queued: vec![false; n],
        clones: BTreeMap::new(),
        attempts: 0,
        names: module.functions.values().map(|f| f.name.clone()).collect(),
        log: String::new(),
        closed_world,
    };
    // Return spaces first, callee before caller as far as the order allows;
    // repeated until they settle (each can only rise twice).
    for _ in 0..2 * n + 2 {
        let mut changed = false;
        for f in module.functions.keys() {
            let a = d.analyze(module, f);
            if a.returns != d.state.returns[f.index()] {
                d.state.returns[f.index()] = a.returns.clone();
                changed = true;
            }
            d.state.analyses[f.index()] = a;
        }
        if !changed {
            break;
        }
    }
    for f in module.functions.keys().collect::<Vec<_>>() {
        d.enqueue(module, f);
    }
    let _ = writeln!(d.log, "Initial work list size : {}", d.work.len());
    let mut steps = 0;
    while let Some(g) = d.work.pop_front() {
        d.queued[g.index()] = false;
        steps += 1;
        if steps > 10_000 {
            let _ = writeln!(d.log, "work list did not drain; stopping");
            break;
        }
        d.process(module, g);
    }
    // One last walk of everything, so that every analysis reflects the
    // final seeds, returns and call targets.
    for f in module.functions.keys() {
        d.state.analyses[f.index()] = d.analyze(module, f);
    }
    log.push_str(&d.log);
    d.state
}
