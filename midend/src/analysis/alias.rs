//! Alias analysis: may two memory accesses touch the same bytes?
//!
//! Passes that move or remove loads (`mark-invariant`, `load-elim`,
//! `hoist-loads`) all ask this one question, so the rules live in one place
//! and a rule proved once serves every consumer. The answer is conservative:
//! `may_alias` says `false` only when one of the rules below proves the two
//! accesses disjoint.
//!
//! 1. **Spaces.** Two different concrete state spaces never overlap (global
//!    and shared are separate memories). `shared` and `shared::cluster` do
//!    overlap: the cluster window contains this CTA's shared memory. A
//!    generic pointer may point into every space that has a generic window,
//!    so it may alias anything.
//! 2. **Read-only memory.** `const` and `param` memory is never written by
//!    a kernel, so a write never touches the bytes of a `const` or `param`
//!    access.
//! 3. **Restrict scopes.** An access whose scopes all appear in the other
//!    access's `noalias` list cannot touch its bytes: that is exactly what
//!    restrict processing stamped (see `passes/restrict.rs`).
//! 4. **Distinct objects.** Every pointer is traced back to its roots
//!    ([`Provenance`]). Two distinct stack slots, two distinct (sized)
//!    module variables, a stack slot and anything that is not itself, or a
//!    `noalias` parameter and another identified object never overlap. A
//!    `noalias` parameter that the function never *captures* (stores to
//!    memory, passes to a call, returns or turns into an integer) does not
//!    overlap a pointer loaded from memory or made by a call or from an
//!    integer either: such a pointer cannot be based on the parameter, and
//!    memory reached through a restricted pointer is reached through no
//!    pointer that is not based on it.
//! 5. **Offsets.** Two accesses at constant offsets from the same base value
//!    whose byte ranges do not intersect do not alias.

use crate::ir::{
    AddrSpace, AliasScope, Function, GlobalVar, GlobalVarData, Inst, InstData, MemFlags, Module,
    Opcode, StackSlot, Value, ValueDef,
};
use cranelift_entity::PrimaryMap;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// Where a pointer may come from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Root {
    /// Parameter number `n` of the function.
    Param(u32),
    /// The address of a module variable.
    Global(GlobalVar),
    /// The address of a stack slot of this function.
    Stack(StackSlot),
    /// A pointer loaded from memory by this instruction.
    Load(Inst),
    /// Anything else (a call result, `inttoptr`, ...): unknown.
    Opaque,
}

/// The roots of every pointer value of a function: the values it may be
/// derived from through `ptroffset`, `addrspacecast`, `select` and block
/// parameters. A set, because a join may bring several roots together.
#[derive(Clone, Debug, Default)]
pub struct Provenance {
    roots: FxHashMap<Value, BTreeSet<Root>>,
}

impl Provenance {
    /// Computes the roots to a fixed point (block parameters may depend on
    /// values defined later in the layout, around loops).
    pub fn compute(func: &Function) -> Provenance {
        let mut prov = Provenance::default();
        let params: Vec<Value> = func.params().to_vec();
        let entry = func.entry_block();
        // Incoming branch arguments of every block parameter.
        let mut incoming: FxHashMap<Value, Vec<Value>> = FxHashMap::default();
        for (_, inst) in func.layout.insts() {
            for dest in func.dfg.insts[inst].branch_destinations() {
                let block_params = func.dfg.block_params(dest.block);
                for (&p, &a) in block_params.iter().zip(&dest.args) {
                    incoming.entry(p).or_default().push(a);
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            let mut visit = |prov: &mut Provenance, v: Value, new: BTreeSet<Root>| {
                let slot = prov.roots.entry(v).or_default();
                let before = slot.len();
                slot.extend(new);
                if slot.len() != before {
                    changed = true;
                }
            };
            for &b in func.layout.blocks() {
                for &p in func.dfg.block_params(b) {
                    if !func.dfg.value_type(p).is_ptr() {
                        continue;
                    }
                    let mut set = BTreeSet::new();
                    if Some(b) == entry {
                        let n = params.iter().position(|&q| q == p).unwrap_or(0);
                        set.insert(Root::Param(n as u32));
                    }
                    for &a in incoming.get(&p).into_iter().flatten() {
                        set.extend(prov.roots_of(func, a));
                    }
                    visit(&mut prov, p, set);
                }
                for &inst in func.layout.block_insts(b) {
                    let Some(res) = func.dfg.first_result(inst) else {
                        continue;
                    };
                    if !func.dfg.value_type(res).is_ptr() {
                        continue;
                    }
                    let data = &func.dfg.insts[inst];
                    let set: BTreeSet<Root> = match data {
                        InstData::Binary {
                            opcode: Opcode::PtrOffset,
                            args,
                        } => prov.roots_of(func, args[0]),
                        InstData::AddrSpaceCast { arg, .. } => prov.roots_of(func, *arg),
                        InstData::Ternary {
                            opcode: Opcode::Select,
                            args,
                        } => {
                            let mut s = prov.roots_of(func, args[1]);
                            s.extend(prov.roots_of(func, args[2]));
                            s
                        }
                        InstData::GlobalAddr { gv } => [Root::Global(*gv)].into(),
                        InstData::StackAddr { slot } => [Root::Stack(*slot)].into(),
                        InstData::Load { .. } => [Root::Load(inst)].into(),
                        _ => [Root::Opaque].into(),
                    };
                    visit(&mut prov, res, set);
                }
            }
        }
        prov
    }

    /// The roots of `v` (empty while a fixed point is still being reached;
    /// `Opaque` for a value that is not a pointer the analysis has seen).
    pub fn roots_of(&self, func: &Function, v: Value) -> BTreeSet<Root> {
        let v = func.dfg.resolve_aliases(v);
        match self.roots.get(&v) {
            Some(s) => s.clone(),
            None if func.dfg.value_type(v).is_ptr() => BTreeSet::new(),
            None => [Root::Opaque].into(),
        }
    }
}

/// One memory access as the analysis sees it.
#[derive(Clone, Debug)]
pub struct Access<'a> {
    pub ptr: Value,
    /// Bytes accessed.
    pub size: u32,
    pub space: AddrSpace,
    pub writes: bool,
    /// The instruction's flags (none for an atomic).
    pub flags: &'a MemFlags,
}

/// The flags of an access that has none (atomics).
static NO_FLAGS: MemFlags = MemFlags {
    volatile: false,
    invariant: false,
    scopes: Vec::new(),
    noalias: Vec::new(),
    align: 0,
    cache: None,
};

/// The alias queries over one function. Build it once per pass run; it is
/// a snapshot, so rebuild it after changing pointer computations.
pub struct AliasAnalysis<'a> {
    func: &'a Function,
    prov: Provenance,
    /// Sizes of module variables, when the module is known (a variable of
    /// size 0 is dynamic shared memory, which every other one may overlap).
    global_sizes: Option<FxHashMap<GlobalVar, u32>>,
    /// The parameters whose value (or a pointer derived from it) escapes:
    /// stored, passed to a call, returned or made an integer.
    captured: BTreeSet<u32>,
}

impl<'a> AliasAnalysis<'a> {
    /// The analysis of a function seen alone: distinct module variables are
    /// not assumed disjoint (dynamic shared memory might be any of them).
    pub fn new(func: &'a Function) -> Self {
        let prov = Provenance::compute(func);
        let captured = captured_params(func, &prov);
        AliasAnalysis {
            func,
            prov,
            global_sizes: None,
            captured,
        }
    }

    /// The analysis of a function of `module`, which knows the sizes of
    /// module variables.
    pub fn with_module(func: &'a Function, module: &Module) -> Self {
        Self::with_globals(func, &module.globals)
    }

    /// [`with_module`](Self::with_module) given only the module's variables.
    pub fn with_globals(
        func: &'a Function,
        globals: &PrimaryMap<GlobalVar, GlobalVarData>,
    ) -> Self {
        // Only the variables this function takes the address of can be
        // roots of its pointers: a map of every variable of the module,
        // built for every function, was quadratic in a module of many
        // kernels each with its own `__shared__` array.
        let mut sizes = FxHashMap::default();
        for data in func.dfg.insts.values() {
            if let InstData::GlobalAddr { gv } = *data {
                if let Some(d) = globals.get(gv) {
                    sizes.insert(gv, d.size);
                }
            }
        }
        AliasAnalysis {
            global_sizes: Some(sizes),
            ..Self::new(func)
        }
    }

    pub fn provenance(&self) -> &Provenance {
        &self.prov
    }

    /// The access `inst` makes (loads, stores and atomics), if any.
    pub fn access(&self, inst: Inst) -> Option<Access<'a>> {
        let dfg = &self.func.dfg;
        let data = &dfg.insts[inst];
        let (ptr, size, writes, flags) = match data {
            InstData::Load { ty, ptr, flags } => (*ptr, ty.bytes(), false, flags),
            InstData::Store { value, ptr, flags } => {
                (*ptr, dfg.value_type(*value).bytes(), true, flags)
            }
            InstData::AtomicRmw { args, .. } => {
                (args[0], dfg.value_type(args[1]).bytes(), true, &NO_FLAGS)
            }
            InstData::AtomicCas { args, .. } => {
                (args[0], dfg.value_type(args[1]).bytes(), true, &NO_FLAGS)
            }
            // The whole vector, element after element.
            InstData::AtomicVec { args, .. } => (
                *args.first()?,
                args[1..].iter().map(|&e| dfg.value_type(e).bytes()).sum(),
                true,
                &NO_FLAGS,
            ),
            _ => return None,
        };
        let space = dfg
            .value_type(ptr)
            .addr_space()
            .unwrap_or(AddrSpace::Generic);
        Some(Access {
            ptr,
            size,
            space,
            writes,
            flags,
        })
    }

    /// Whether the accesses of two instructions may touch the same bytes.
    /// An instruction that is not an access may touch anything.
    pub fn may_alias(&self, a: Inst, b: Inst) -> bool {
        match (self.access(a), self.access(b)) {
            (Some(x), Some(y)) => self.may_alias_access(&x, &y),
            _ => true,
        }
    }

    /// Whether two accesses always touch exactly the same bytes: the same
    /// base value at the same constant offset, with the same size.
    pub fn must_alias(&self, a: Inst, b: Inst) -> bool {
        match (self.access(a), self.access(b)) {
            (Some(x), Some(y)) => {
                x.size == y.size && self.base_offset(x.ptr) == self.base_offset(y.ptr)
            }
            _ => false,
        }
    }

    /// [`may_alias`](Self::may_alias) on two access descriptions.
    pub fn may_alias_access(&self, a: &Access, b: &Access) -> bool {
        if !spaces_may_overlap(a.space, b.space) {
            return false;
        }
        if (a.writes && !b.space.is_writable()) || (b.writes && !a.space.is_writable()) {
            return false;
        }
        if scopes_disjoint(&a.flags.scopes, &b.flags.noalias)
            || scopes_disjoint(&b.flags.scopes, &a.flags.noalias)
        {
            return false;
        }
        if self.roots_disjoint(a.ptr, b.ptr) {
            return false;
        }
        let (base_a, off_a) = self.base_offset(a.ptr);
        let (base_b, off_b) = self.base_offset(b.ptr);
        if base_a == base_b {
            let (end_a, end_b) = (off_a + i64::from(a.size), off_b + i64::from(b.size));
            if end_a <= off_b || end_b <= off_a {
                return false;
            }
        }
        true
    }

    /// Whether a write through `ptr` at any offset and of any size (what a
    /// callee may do with a pointer argument) may touch the bytes that
    /// `load` reads. Only the rules that do not need the write's offset or
    /// its restrict stamps apply: spaces, read-only memory, distinct objects.
    pub fn may_write_through(&self, ptr: Value, load: Inst) -> bool {
        let Some(acc) = self.access(load) else {
            return true;
        };
        let space = self
            .func
            .dfg
            .value_type(ptr)
            .addr_space()
            .unwrap_or(AddrSpace::Generic);
        if !spaces_may_overlap(space, acc.space) || !acc.space.is_writable() {
            return false;
        }
        !self.roots_disjoint(ptr, acc.ptr)
    }

    /// Whether a write through `w` (anywhere around it) may touch memory
    /// that `target` points into (anywhere around it): spaces and distinct
    /// objects decide.
    pub fn may_overlap_objects(&self, w: Value, target: Value) -> bool {
        let space = |v: Value| {
            self.func
                .dfg
                .value_type(v)
                .addr_space()
                .unwrap_or(AddrSpace::Generic)
        };
        if !spaces_may_overlap(space(w), space(target)) || !space(target).is_writable() {
            return false;
        }
        !self.roots_disjoint(w, target)
    }

    /// Whether the object `root` may hold memory that `target` points into.
    pub fn object_may_hold(&self, root: Root, target: Value) -> bool {
        let roots = self.prov.roots_of(self.func, target);
        roots.is_empty() || roots.iter().any(|&r| !self.objects_distinct(root, r))
    }

    /// Whether a write anywhere in the object `root` (a module variable a
    /// callee writes) may touch the bytes that `load` reads.
    pub fn may_write_object(&self, root: Root, load: Inst) -> bool {
        let Some(acc) = self.access(load) else {
            return true;
        };
        if !acc.space.is_writable() {
            return false;
        }
        let roots = self.prov.roots_of(self.func, acc.ptr);
        roots.is_empty() || roots.iter().any(|&r| !self.objects_distinct(root, r))
    }

    /// `v` as a base value plus a constant byte offset, looking through
    /// `ptroffset` by a constant and `addrspacecast` (which keeps the
    /// address: the same bytes, seen through another window).
    pub fn base_offset(&self, v: Value) -> (Value, i64) {
        let dfg = &self.func.dfg;
        let mut v = dfg.resolve_aliases(v);
        let mut offset: i64 = 0;
        // The chain is acyclic in SSA; the bound only guards against bugs.
        for _ in 0..dfg.values.len() {
            let ValueDef::Result(inst, 0) = dfg.value_def(v) else {
                break;
            };
            match &dfg.insts[inst] {
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    args,
                } => match const_of(self.func, args[1]) {
                    Some(c) => {
                        offset = offset.wrapping_add(c);
                        v = dfg.resolve_aliases(args[0]);
                    }
                    None => break,
                },
                InstData::AddrSpaceCast { arg, .. } => v = dfg.resolve_aliases(*arg),
                _ => break,
            }
        }
        (v, offset)
    }

    /// Whether every root of `a` is an identified object distinct from every
    /// root of `b`.
    fn roots_disjoint(&self, a: Value, b: Value) -> bool {
        let ra = self.prov.roots_of(self.func, a);
        let rb = self.prov.roots_of(self.func, b);
        if ra.is_empty() || rb.is_empty() {
            return false;
        }
        ra.iter()
            .all(|&x| rb.iter().all(|&y| self.objects_distinct(x, y)))
    }

    fn objects_distinct(&self, x: Root, y: Root) -> bool {
        let noalias = |n: u32| {
            self.func
                .signature
                .params
                .get(n as usize)
                .is_some_and(|p| p.attrs.noalias)
        };
        let sized = |g: GlobalVar| {
            self.global_sizes
                .as_ref()
                .and_then(|m| m.get(&g))
                .is_some_and(|&s| s > 0)
        };
        let kept = |n: u32| noalias(n) && !self.captured.contains(&n);
        match (x, y) {
            // Not based on the parameter: nothing captured it.
            (Root::Param(n), Root::Load(_) | Root::Opaque)
            | (Root::Load(_) | Root::Opaque, Root::Param(n))
                if kept(n) =>
            {
                true
            }
            (Root::Opaque, _) | (_, Root::Opaque) | (Root::Load(_), _) | (_, Root::Load(_)) => {
                false
            }
            // This function's frame is fresh: nothing outside it points there.
            (Root::Stack(s), Root::Stack(t)) => s != t,
            (Root::Stack(_), _) | (_, Root::Stack(_)) => true,
            (Root::Global(g), Root::Global(h)) => g != h && sized(g) && sized(h),
            (Root::Param(m), Root::Param(n)) => m != n && (noalias(m) || noalias(n)),
            (Root::Param(n), Root::Global(_)) | (Root::Global(_), Root::Param(n)) => noalias(n),
        }
    }
}

/// The parameters of `func` that a pointer derived from them escapes
/// through: stored to memory as a value, passed to a call, returned, or
/// turned into an integer (which could be stored, or turned back).
fn captured_params(func: &Function, prov: &Provenance) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let mut escape = |v: Value| {
        if !func.dfg.value_type(v).is_ptr() {
            return;
        }
        for r in prov.roots_of(func, v) {
            if let Root::Param(n) = r {
                out.insert(n);
            }
        }
    };
    for (_, inst) in func.layout.insts() {
        match &func.dfg.insts[inst] {
            InstData::Store { value, .. } => escape(*value),
            InstData::Call { args, .. }
            | InstData::CallIndirect { args, .. }
            | InstData::Return { args } => args.iter().for_each(|&a| escape(a)),
            InstData::Convert {
                opcode: Opcode::Ptrtoint,
                arg,
                ..
            } => escape(*arg),
            InstData::AtomicRmw { args, .. } => escape(args[1]),
            InstData::AtomicCas { args, .. } => {
                escape(args[1]);
                escape(args[2]);
            }
            _ => {}
        }
    }
    out
}

/// Rule 1: whether two state spaces may hold the same bytes.
pub fn spaces_may_overlap(a: AddrSpace, b: AddrSpace) -> bool {
    use AddrSpace::*;
    match (a, b) {
        _ if a == b => true,
        (Generic, other) | (other, Generic) => other.has_generic_form(),
        (Shared, SharedCluster) | (SharedCluster, Shared) => true,
        _ => false,
    }
}

/// Rule 3: every scope of one access is declared `noalias` by the other.
fn scopes_disjoint(scopes: &[AliasScope], noalias: &[AliasScope]) -> bool {
    !scopes.is_empty() && scopes.iter().all(|s| noalias.contains(s))
}

/// The value of an integer constant, if `v` is one.
fn const_of(func: &Function, v: Value) -> Option<i64> {
    let v = func.dfg.resolve_aliases(v);
    match func.dfg.value_def(v) {
        ValueDef::Result(inst, 0) => match func.dfg.insts[inst] {
            InstData::Iconst { imm, .. } => Some(imm),
            _ => None,
        },
        _ => None,
    }
}
