//! What a function keeps in its own memory: the contents of stack slots and
//! of by-value aggregate parameters, as far as they can be followed.
//!
//! The frontend keeps every struct in memory: a local `struct Operands ops`
//! is a stack slot, `ops.x = x` a store into it, `ops.x[i]` a load of the
//! pointer back out of it, and a struct passed by value is the address of
//! the caller's slot (the callee copies it to a slot of its own). Inference
//! passes that follow pointers (memory spaces, restrict scopes) therefore
//! need to see *through* such memory: a pointer loaded from bytes 0..8 of a
//! slot is one of the pointers ever stored to bytes 0..8 of that slot.
//!
//! That is true only while every write to the slot is visible. A slot is
//! followed when its address (and everything derived from it through casts
//! and pointer offsets) is only
//!
//! * loaded from,
//! * stored to at a constant offset from the slot's start,
//! * compared, tested with `is_space`, or passed as a by-value argument (the
//!   callee gets a copy and cannot write the caller's bytes).
//!
//! Anything else — the address stored to memory, passed to a callee that may
//! write through it (a pointer argument, a struct result), turned into an
//! integer, used by an atomic or an accelerator instruction, returned, or
//! written through at an offset that is not a constant — makes the slot
//! *opaque*, and nothing is said about its contents. Local memory belongs to
//! one thread, so no other thread can write it either.
//!
//! A by-value parameter (`byval`) is followed the same way when the function
//! never writes it: its bytes are then exactly what the caller passed, and
//! [`Content::Param`] names them, so that an inter-procedural pass can ask
//! the callers.

use crate::ir::{FuncId, Function, InstData, Opcode, StackSlot, Value, ValueDef};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A piece of memory whose every write is visible in the function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Base {
    /// A stack slot of the function.
    Slot(StackSlot),
    /// The by-value aggregate passed as parameter number `n`.
    Param(u32),
}

/// What a load of some bytes of a followed piece of memory reads.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Content {
    /// Bytes at this offset of the by-value parameter `n`, which the
    /// function never writes: what the caller passed there.
    Param(u32, i64),
    /// One of these values, each stored to exactly these bytes somewhere in
    /// the function (or the bytes were never written, which the program may
    /// not read). Never empty.
    Stored(Vec<Value>),
    /// Nothing is known: the memory is not followed, or the bytes were also
    /// written with something of another size or at an overlapping offset,
    /// or never written at all.
    Unknown,
}

/// The contents of the followed memory of one function.
#[derive(Clone, Debug, Default)]
pub struct LocalCells {
    /// Each pointer into followed memory: its base and the constant byte
    /// offset from the base's start (`None`: an offset not known, after a
    /// select, a block parameter or a variable offset).
    addr: FxHashMap<Value, (Base, Option<i64>)>,
    /// Memory that cannot be followed.
    opaque: BTreeSet<Base>,
    /// Every store to followed memory: (offset, bytes, value stored).
    writes: BTreeMap<Base, Vec<(i64, u32, Value)>>,
}

impl LocalCells {
    /// Follows the slots and by-value parameters of `func`. `byval_arg(f, k)`
    /// says whether argument `k` of a call to `f` is passed by value (a copy
    /// the callee makes), which does not let the callee write the caller's
    /// memory; pass `|_, _| false` when the callees are not known.
    pub fn compute(func: &Function, byval_arg: &dyn Fn(FuncId, usize) -> bool) -> LocalCells {
        let dfg = &func.dfg;
        let mut cells = LocalCells::default();
        if let Some(entry) = func.entry_block() {
            for (n, &p) in dfg.block_params(entry).iter().enumerate() {
                let byval = func
                    .signature
                    .params
                    .get(n)
                    .is_some_and(|a| a.attrs.byval.is_some());
                if byval {
                    cells.addr.insert(p, (Base::Param(n as u32), Some(0)));
                }
            }
        }
        let insts: Vec<_> = func.layout.insts().map(|(_, i)| i).collect();
        for &inst in &insts {
            if let InstData::StackAddr { slot } = dfg.insts[inst] {
                if let Some(r) = dfg.first_result(inst) {
                    cells.addr.insert(r, (Base::Slot(slot), Some(0)));
                }
            }
        }
        // Derived addresses, to a fixed point (a block parameter may be
        // reached from later in the layout). An entry can only lose its
        // offset, and a base can only become opaque, so this ends.
        let mut changed = true;
        while changed {
            changed = false;
            for &inst in &insts {
                let data = &dfg.insts[inst];
                let derived = match data {
                    InstData::AddrSpaceCast { arg, .. } => {
                        cells.get(func, *arg).map(|(b, o)| (b, o, true))
                    }
                    InstData::Binary {
                        opcode: Opcode::PtrOffset,
                        args: [p, k],
                    } => cells.get(func, *p).map(|(b, o)| {
                        let o = match (o, const_of(func, *k)) {
                            (Some(o), Some(k)) => o.checked_add(k),
                            _ => None,
                        };
                        (b, o, true)
                    }),
                    InstData::Ternary {
                        opcode: Opcode::Select,
                        args: [_, x, y],
                    } => {
                        let bases: Vec<Base> = [*x, *y]
                            .iter()
                            .filter_map(|&v| cells.get(func, v).map(|e| e.0))
                            .collect();
                        changed |= cells.join(&bases);
                        bases.first().map(|&b| (b, None, true))
                    }
                    _ => None,
                };
                if let (Some((b, o, _)), Some(r)) = (derived, dfg.first_result(inst)) {
                    changed |= cells.set(r, b, o);
                }
                for dest in data.branch_destinations() {
                    let params = dfg.block_params(dest.block);
                    for (&a, &p) in dest.args.iter().zip(params) {
                        if let Some((b, _)) = cells.get(func, a) {
                            if let Some(&(old, _)) = cells.addr.get(&p) {
                                changed |= cells.join(&[old, b]);
                            }
                            changed |= cells.set(p, b, None);
                        }
                    }
                }
            }
        }
        // The uses: which are reads, which are writes at known offsets, and
        // which let the address escape.
        for &inst in &insts {
            let data = &dfg.insts[inst];
            let base_of = |v: Value| cells.get(func, v);
            let mut escapes: Vec<Base> = Vec::new();
            let mut write: Option<(Base, i64, u32, Value)> = None;
            match data {
                InstData::Load { .. }
                | InstData::AddrSpaceCast { .. }
                | InstData::IntCompare { .. }
                | InstData::IsSpace { .. } => {}
                InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    ..
                } => {}
                InstData::Ternary {
                    opcode: Opcode::Select,
                    ..
                } => {}
                InstData::Jump { .. } | InstData::Brif { .. } => {}
                InstData::Store { value, ptr, .. } => {
                    if let Some((b, _)) = base_of(*value) {
                        escapes.push(b);
                    }
                    match base_of(*ptr) {
                        Some((b, Some(o))) => {
                            let size = dfg.value_type(*value).bytes();
                            write = Some((b, o, size, dfg.resolve_aliases(*value)));
                        }
                        Some((b, None)) => escapes.push(b),
                        None => {}
                    }
                }
                InstData::Call { func: callee, args } => {
                    for (k, &a) in args.iter().enumerate() {
                        if let Some((b, _)) = base_of(a) {
                            if !byval_arg(*callee, k) {
                                escapes.push(b);
                            }
                        }
                    }
                }
                other => other.for_each_arg(|a| {
                    if let Some((b, _)) = base_of(a) {
                        escapes.push(b);
                    }
                }),
            }
            if let Some((b, o, size, v)) = write {
                // A by-value parameter is the caller's copy: followed only
                // while the function never writes it.
                if matches!(b, Base::Param(_)) {
                    escapes.push(b);
                } else {
                    cells.writes.entry(b).or_default().push((o, size, v));
                }
            }
            cells.opaque.extend(escapes);
        }
        cells
    }

    /// Where `v` points, if into followed-or-not memory of this function:
    /// the base and the constant offset (`None` when not constant).
    pub fn location(&self, func: &Function, v: Value) -> Option<(Base, Option<i64>)> {
        self.get(func, v)
    }

    fn get(&self, func: &Function, v: Value) -> Option<(Base, Option<i64>)> {
        self.addr.get(&func.dfg.resolve_aliases(v)).copied()
    }

    /// Records that `v` points into `b` at `o`; a second, different offset
    /// makes it unknown. Returns whether anything changed.
    fn set(&mut self, v: Value, b: Base, o: Option<i64>) -> bool {
        match self.addr.get(&v).copied() {
            None => {
                self.addr.insert(v, (b, o));
                true
            }
            Some((ob, oo)) => {
                let merged = if oo == o { o } else { None };
                if ob != b {
                    // Two bases meet: neither can be followed (the joined
                    // value may write either one).
                    let a = self.opaque.insert(b);
                    let c = self.opaque.insert(ob);
                    return a || c;
                }
                if merged != oo {
                    self.addr.insert(v, (b, merged));
                    return true;
                }
                false
            }
        }
    }

    /// Two or more different bases flow into one value: none of them can be
    /// followed. Returns whether anything changed.
    fn join(&mut self, bases: &[Base]) -> bool {
        let distinct: BTreeSet<Base> = bases.iter().copied().collect();
        if distinct.len() < 2 {
            return false;
        }
        let mut changed = false;
        for b in distinct {
            changed |= self.opaque.insert(b);
        }
        changed
    }

    /// `ptr` as a followed base and a constant offset, if it is one.
    pub fn address(&self, func: &Function, ptr: Value) -> Option<(Base, i64)> {
        match self.get(func, ptr)? {
            (b, Some(o)) => Some((b, o)),
            _ => None,
        }
    }

    /// Whether the memory of `b` is followed.
    pub fn is_followed(&self, b: Base) -> bool {
        !self.opaque.contains(&b)
    }

    /// What a load of `size` bytes at offset `off` of `base` reads.
    pub fn content(&self, base: Base, off: i64, size: u32) -> Content {
        if !self.is_followed(base) {
            return Content::Unknown;
        }
        if let Base::Param(n) = base {
            return Content::Param(n, off);
        }
        let end = off + i64::from(size);
        let mut values = Vec::new();
        for &(o, s, v) in self.writes.get(&base).into_iter().flatten() {
            if o + i64::from(s) <= off || end <= o {
                continue;
            }
            if o != off || s != size {
                return Content::Unknown;
            }
            if !values.contains(&v) {
                values.push(v);
            }
        }
        if values.is_empty() {
            Content::Unknown
        } else {
            Content::Stored(values)
        }
    }

    /// What a load of `size` bytes through `ptr` reads.
    pub fn content_at(&self, func: &Function, ptr: Value, size: u32) -> Content {
        match self.address(func, ptr) {
            Some((b, o)) => self.content(b, o, size),
            None => Content::Unknown,
        }
    }
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
