//! Structs passed and returned by value between device functions, with
//! PTX's `.param` convention (what nvcc does):
//!
//! ```ptx
//! .func (.param .align 8 .b8 func_retval0[16]) mk(.param .align 4 .b8 mk_param_0[12])
//! ...
//! {
//!     .param .align 4 .b8 param0[12];
//!     st.param.b32 [param0+0], %r1;            // the caller's bytes
//!     ...
//!     .param .align 8 .b8 retval0[16];
//!     call.uni (retval0), mk, (param0);
//!     ld.param.b64 %rd3, [retval0+0];          // into the caller's temporary
//!     ...
//! }
//! ```
//!
//! In the IR a `byval(N, A)` parameter is the address of the caller's
//! object and an `sret(N, A)` parameter the address of the caller's
//! temporary. Inside the callee both are *names*, not registers: every
//! access through them is a load (byval) or a store (sret) at a constant
//! offset, which `Isel::address` turns into `[name+off]` in `.param`
//! space, so the frontend's member-by-member copies become `ld.param.f32`
//! and `st.param.f32` of the fields. At the call site the backend knows
//! only the size and alignment, so it copies in pieces of the alignment
//! (at most 8 bytes, vectors of two or four when the alignment allows).
//!
//! Most by-value arguments are built for the call: the caller stores the
//! fields into a stack slot and passes the slot. Copying that slot through
//! `.local` memory (`st.local` of each field, then `ld.local` + `st.param`
//! of each piece) is what nvcc avoids, and so does [`Isel::find_direct_byval`]:
//! when the value of every field at the call is known (the slot's address
//! never escapes, and each field's last store before the call is found),
//! the call stores those values straight into its `.param` array:
//!
//! ```ptx
//! .param .align 8 .b8 param0[24];
//! st.param.b64 [param0+0], %rd10;      // s.src
//! st.param.b64 [param0+8], %rd11;      // s.dst
//! st.param.b32 [param0+16], %r7;       // s.count
//! ```
//!
//! and when nothing reads the slot otherwise, its stores and the slot itself
//! disappear.

use super::error::NotSelected;
use super::{Isel, IselResult};
use crate::minst::{AddrBase, Address, MInst, PtxType, Reg, RegClass, Space};
use midend::analysis::{Base, LocalCells};
use midend::ir::{AddrSpace, Block, FuncId, Inst, InstData, Opcode, StackSlot, Type, Value};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// One field of a by-value argument stored straight into `.param`.
#[derive(Clone, Copy, Debug)]
pub(super) enum ByvalField {
    /// The value the field holds at the call.
    Known(Value),
    /// Not one known value (set on some paths only): read from the slot,
    /// `bytes` wide.
    FromSlot { slot: StackSlot, bytes: u32 },
}

/// Every use of one stack slot's address, for [`Isel::find_direct_byval`].
#[derive(Default)]
struct SlotUses {
    /// Stores into the slot: (store, its block, offset, bytes, value).
    stores: Vec<(Inst, Block, i64, u32, Value)>,
    /// By-value arguments: (call, its block, argument number).
    calls: Vec<(Inst, Block, usize)>,
    /// The `stack_addr`, casts and offsets that make the slot's pointers.
    derived: Vec<Inst>,
    /// Some other use (a load, a comparison, ...): the slot stays.
    other: bool,
}

impl Isel<'_> {
    /// Checks that the aggregate parameter `v` is only read (`byval`) or
    /// only written (`sret`) at constant offsets, and records its name.
    pub(super) fn aggregate_param(&mut self, v: Value, name: &str, byval: bool) -> IselResult<()> {
        let dfg = &self.func.dfg;
        let mut roots = vec![dfg.resolve_aliases(v)];
        let mut i = 0;
        while i < roots.len() {
            let root = roots[i];
            i += 1;
            for (_, inst) in self.func.layout.insts() {
                let data = &dfg.insts[inst];
                let uses = data
                    .arguments()
                    .iter()
                    .filter(|&&a| dfg.resolve_aliases(a) == root)
                    .count();
                if uses == 0 {
                    continue;
                }
                let ok = match data {
                    InstData::Load { .. } => byval,
                    InstData::Store { value, .. } => {
                        !byval && dfg.resolve_aliases(*value) != root && uses == 1
                    }
                    InstData::Binary {
                        opcode: Opcode::PtrOffset,
                        args,
                    } if self.immediate(args[1]).is_some() => {
                        let r = dfg.first_result(inst);
                        match r {
                            Some(r) if self.folded.contains(&r) => {
                                roots.push(r);
                                true
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    return Err(NotSelected::AggregateUse {
                        param: name.to_string(),
                        byval,
                        inst,
                    }
                    .into());
                }
            }
        }
        self.param_syms
            .insert(dfg.resolve_aliases(v), name.to_string());
        Ok(())
    }

    /// Finds the by-value arguments whose fields can be stored straight into
    /// the call's `.param` array (see the module comment), and the slots
    /// that are then not needed at all.
    pub(super) fn find_direct_byval(&mut self) {
        let (module, func) = (self.module, self.func);
        if func.stack_slots.is_empty() {
            return;
        }
        let byval_arg = |g: FuncId, k: usize| {
            module
                .functions
                .get(g)
                .and_then(|f| f.signature.params.get(k))
                .is_some_and(|p| p.attrs.byval.is_some())
        };
        let cells = LocalCells::compute(func, &byval_arg);
        let slot_of = |v: Value| match cells.location(func, v) {
            Some((Base::Slot(s), o)) => Some((s, o)),
            _ => None,
        };
        let mut slots: BTreeMap<StackSlot, SlotUses> = BTreeMap::new();
        let mut order: FxHashMap<Inst, usize> = FxHashMap::default();
        for (n, (block, inst)) in func.layout.insts().enumerate() {
            order.insert(inst, n);
            let data = &func.dfg.insts[inst];
            let result = func.dfg.first_result(inst);
            match data {
                InstData::StackAddr { .. }
                | InstData::AddrSpaceCast { .. }
                | InstData::Binary {
                    opcode: Opcode::PtrOffset,
                    ..
                } if result.and_then(slot_of).is_some() => {
                    if let Some((s, _)) = result.and_then(slot_of) {
                        slots.entry(s).or_default().derived.push(inst);
                    }
                    // An offset's second operand is an integer, never a slot.
                }
                InstData::Store { value, ptr, .. } => {
                    if let Some((s, _)) = slot_of(*value) {
                        slots.entry(s).or_default().other = true;
                    }
                    match slot_of(*ptr) {
                        Some((s, Some(o))) => {
                            let bytes = func.dfg.value_type(*value).bytes();
                            let v = func.dfg.resolve_aliases(*value);
                            let uses = slots.entry(s).or_default();
                            uses.stores.push((inst, block, o, bytes, v));
                        }
                        Some((s, None)) => slots.entry(s).or_default().other = true,
                        None => {}
                    }
                }
                InstData::Call { func: g, args } => {
                    for (k, &a) in args.iter().enumerate() {
                        match slot_of(a) {
                            Some((s, Some(0))) if byval_arg(*g, k) => {
                                slots.entry(s).or_default().calls.push((inst, block, k))
                            }
                            Some((s, _)) => slots.entry(s).or_default().other = true,
                            None => {}
                        }
                    }
                }
                other => other.for_each_arg(|a| {
                    if let Some((s, _)) = slot_of(a) {
                        slots.entry(s).or_default().other = true;
                    }
                }),
            }
        }
        for (slot, uses) in slots {
            if uses.calls.is_empty() || !cells.is_followed(Base::Slot(slot)) {
                continue;
            }
            let Some(mut plan) = self.byval_fields_at_calls(slot, &uses, &order) else {
                continue;
            };
            // A call whose fields mostly come from the slot anyway is
            // cheaper as the plain copy in pieces of the alignment.
            let mut copied_whole = false;
            plan.retain(|((call, k), fields)| {
                let cost: usize = fields
                    .iter()
                    .map(|(_, f)| match f {
                        ByvalField::Known(_) => 1,
                        ByvalField::FromSlot { .. } => 2,
                    })
                    .sum();
                let pieces = match &func.dfg.insts[*call] {
                    InstData::Call { func: g, .. } => module
                        .functions
                        .get(*g)
                        .and_then(|f| f.signature.params.get(*k))
                        .and_then(|p| p.attrs.byval)
                        .map_or(0, |(size, align)| size.div_ceil(align.clamp(1, 8)) as usize),
                    _ => 0,
                };
                let direct = cost <= 2 * pieces;
                copied_whole |= !direct;
                direct
            });
            // The fields some call still reads from the slot.
            let read: Vec<i64> = plan
                .iter()
                .flat_map(|(_, fields)| fields)
                .filter(|(_, f)| matches!(f, ByvalField::FromSlot { .. }))
                .map(|(off, _)| *off)
                .collect();
            self.direct_byval.extend(plan);
            if uses.other || copied_whole {
                continue;
            }
            // Stores nothing reads go; with them all gone, the slot too.
            let dead = uses.stores.iter().filter(|s| !read.contains(&s.2));
            self.skipped_insts.extend(dead.map(|s| s.0));
            if read.is_empty() {
                self.skipped_insts.extend(uses.derived);
            }
        }
    }

    /// For each by-value use of one slot, the value of every field at the
    /// call: the last store to those bytes before the call in its block,
    /// or else the only store to them in the function, in a block that
    /// dominates the call (then no other value can be there). A field with
    /// no such value is read from the slot at the call. `None` when two
    /// stores overlap partly.
    #[allow(clippy::type_complexity)]
    fn byval_fields_at_calls(
        &self,
        slot: StackSlot,
        uses: &SlotUses,
        order: &FxHashMap<Inst, usize>,
    ) -> Option<Vec<((Inst, usize), Vec<(i64, ByvalField)>)>> {
        let mut ranges: Vec<(i64, u32)> = uses.stores.iter().map(|s| (s.2, s.3)).collect();
        ranges.sort_unstable();
        ranges.dedup();
        let overlap = ranges
            .windows(2)
            .any(|w| w[0].0 + i64::from(w[0].1) > w[1].0);
        if overlap {
            return None;
        }
        let mut plan = Vec::new();
        for &(call, block, k) in &uses.calls {
            let mut fields = Vec::new();
            for &(off, bytes) in &ranges {
                let to_range = || {
                    uses.stores
                        .iter()
                        .filter(move |s| (s.2, s.3) == (off, bytes))
                };
                let before = to_range()
                    .filter(|s| s.1 == block && order[&s.0] < order[&call])
                    .max_by_key(|s| order[&s.0]);
                let from_slot = ByvalField::FromSlot { slot, bytes };
                let value = match before {
                    Some(s) => ByvalField::Known(s.4),
                    None => {
                        let mut all = to_range();
                        match (all.next(), all.next()) {
                            (Some(only), None)
                                if only.1 != block && self.domtree.dominates(only.1, block) =>
                            {
                                ByvalField::Known(only.4)
                            }
                            _ => from_slot,
                        }
                    }
                };
                fields.push((off, value));
            }
            plan.push(((call, k), fields));
        }
        Some(plan)
    }

    /// Declares the `.param` array `name` of a call and fills it: with the
    /// fields [`Isel::find_direct_byval`] found for it (`direct`), or else
    /// with the `size` bytes at `ptr`.
    pub(super) fn aggregate_arg(
        &mut self,
        ptr: Value,
        direct: Option<&[(i64, ByvalField)]>,
        name: &str,
        (size, align): (u32, u32),
    ) -> IselResult<()> {
        self.emit(MInst::ParamArray {
            name: name.to_string(),
            size,
            align,
        });
        let to = |offset| Address {
            base: AddrBase::Sym(name.to_string()),
            offset,
        };
        let Some(fields) = direct else {
            let (space, from) = self.address(self.through_generic_cast(ptr))?;
            self.copy_bytes((space, from), (Space::Param, to(0)), size, align);
            return Ok(());
        };
        for &(offset, field) in fields {
            match field {
                ByvalField::Known(value) => self.store(Space::Param, false, value, to(offset))?,
                ByvalField::FromSlot { slot, bytes } => {
                    let from = Address {
                        base: AddrBase::Sym(super::local_symbol(slot.as_u32())),
                        offset,
                    };
                    // One piece of the field's own width.
                    self.copy_bytes(
                        (Space::Local, from),
                        (Space::Param, to(offset)),
                        bytes,
                        bytes,
                    );
                }
            }
        }
        Ok(())
    }

    /// The pointer to copy an aggregate through: the IR passes by-value
    /// and result aggregates as generic pointers, usually a cast of the
    /// caller's stack slot, so the copy reads (or writes) the concrete
    /// space (`ld.local`) rather than the generic address (`ld`).
    fn through_generic_cast(&self, ptr: Value) -> Value {
        match self.def_inst(ptr) {
            Some(InstData::AddrSpaceCast {
                to: AddrSpace::Generic,
                arg,
            }) if matches!(self.ty(*arg), Type::Ptr(s) if s != AddrSpace::Generic) => *arg,
            _ => ptr,
        }
    }

    /// A call whose callee returns a struct: the result comes back in
    /// `retval0` and is copied to the caller's temporary at `dst`.
    pub(super) fn aggregate_result_call(
        &mut self,
        callee: &str,
        args: Vec<String>,
        dst: Value,
        size: u32,
        align: u32,
    ) -> IselResult<()> {
        self.emit(MInst::ParamArray {
            name: "retval0".into(),
            size,
            align,
        });
        self.emit(MInst::Call {
            callee: callee.to_string(),
            ret: Some("retval0".into()),
            args,
        });
        let (space, to) = self.address(self.through_generic_cast(dst))?;
        let from = Address {
            base: AddrBase::Sym("retval0".into()),
            offset: 0,
        };
        self.copy_bytes((Space::Param, from), (space, to), size, align);
        self.emit(MInst::ScopeClose);
        Ok(())
    }

    /// Copies `size` bytes (a multiple of `align`, as C's struct sizes are)
    /// in pieces of the alignment, at most 8 bytes each, grouped in `.v2`
    /// or `.v4` when the alignment covers the group.
    fn copy_bytes(
        &mut self,
        (from_space, from): (Space, Address),
        (to_space, to): (Space, Address),
        size: u32,
        align: u32,
    ) {
        let piece = align.clamp(1, 8);
        let (class, ty) = match piece {
            8 => (RegClass::B64, PtxType::B64),
            4 => (RegClass::B32, PtxType::B32),
            2 => (RegClass::B16, PtxType::B16),
            _ => (RegClass::B16, PtxType::B8),
        };
        let width = [4u32, 2]
            .into_iter()
            .find(|&w| w * piece <= 16 && w * piece <= align && size.is_multiple_of(w * piece))
            .unwrap_or(1);
        let step = piece * width;
        let mut off = 0;
        while off < size {
            let at = |a: &Address| Address {
                base: a.base.clone(),
                offset: a.offset + i64::from(off),
            };
            let regs: Vec<Reg> = (0..width).map(|_| self.new_reg(class)).collect();
            if width == 1 {
                self.emit(MInst::Ld {
                    space: from_space,
                    kind: crate::minst::LoadKind::Plain,
                    ty,
                    dst: regs[0],
                    addr: at(&from),
                });
                self.emit(MInst::St {
                    space: to_space,
                    volatile: false,
                    cache: None,
                    ty,
                    addr: at(&to),
                    src: regs[0].into(),
                });
            } else {
                self.emit(MInst::LdVec {
                    space: from_space,
                    kind: crate::minst::LoadKind::Plain,
                    ty,
                    dsts: regs.clone(),
                    addr: at(&from),
                });
                self.emit(MInst::StVec {
                    space: to_space,
                    cache: None,
                    ty,
                    addr: at(&to),
                    srcs: regs,
                });
            }
            off += step;
        }
    }
}
