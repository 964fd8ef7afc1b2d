//! Vector loads and stores: adjacent scalar accesses combined into one
//! `ld.v2`/`ld.v4`/`st.v2`/`st.v4`.
//!
//! The IR has no vector types. A whole-struct copy (`float4 v = p[i];`) is
//! lowered by the frontend as one load per member, all loads of a 16-byte
//! window first and then all stores, each carrying the alignment the C
//! type guarantees (`align(16)` on the first member of a `float4`). Here,
//! before selection, a group is formed when
//!
//! * the accesses are in one block, have one type (8, 16, 32 or 64 bits,
//!   not `i1`), the same flags apart from the alignment, none volatile;
//! * their addresses are one base value plus constant offsets that follow
//!   each other (`off`, `off + size`, ...), 2 or 4 of them, at most 16
//!   bytes in all;
//! * the first (lowest) address is known to be aligned to the whole
//!   group (PTX requires a vector access to be aligned to its size);
//! * nothing between them could change the answer: loads are all moved up
//!   to the first one, so no instruction with an effect (store, call,
//!   atomic, barrier) may sit between them; stores are all moved down to
//!   the last one, so nothing between them may read or write memory.
//!
//! The first load of a group (the last store) then emits the vector
//! access, and the other members emit nothing.
//!
//! Loads may leave one lane of a `.v4` out: three loads of a 4-element
//! window aligned to the whole window (`p.x`, `p.y`, `p.z` of a `uchar4`
//! or `float4` whose `w` the program never reads) are still one `ld.v4`,
//! with a register nothing reads in the fourth lane. The window lies in
//! one aligned block of its own size, so the extra element is inside the
//! object that the alignment came from.

use super::error::{Malformed, NotSelected};
use super::{mem_ty, Isel, IselResult};
use crate::minst::{MInst, Operand};
use midend::ir::{Block, Inst, InstData, MemFlags, Opcode, Type, Value};

/// How many instructions after an access [`Isel::group_from`] looks through
/// for the other lanes of its vector.
const VECTOR_WINDOW: usize = 512;

/// A group of accesses combined into one vector access.
#[derive(Clone, Debug)]
pub(super) struct VecGroup {
    /// The lanes of the vector access, in address order: the member at
    /// each one, or `None` for a lane no member reads (a `.v4` load of a
    /// `uchar4` whose `w` is never used reads it into a register nothing
    /// uses, as nvcc does).
    pub lanes: Vec<Option<Inst>>,
}

impl VecGroup {
    /// The members, in address order.
    pub fn members(&self) -> impl Iterator<Item = Inst> + '_ {
        self.lanes.iter().flatten().copied()
    }
}

impl Isel<'_> {
    /// `ptr` as a base value and a constant byte offset.
    fn base_and_offset(&self, ptr: Value) -> (Value, i64) {
        let dfg = &self.func.dfg;
        let mut base = dfg.resolve_aliases(ptr);
        let mut off: i64 = 0;
        while let Some(InstData::Binary {
            opcode: Opcode::PtrOffset,
            args,
        }) = self.def_inst(base)
        {
            let Some(Operand::Imm(k)) = self.immediate(args[1]) else {
                break;
            };
            let Some(sum) = off.checked_add(k) else {
                break;
            };
            off = sum;
            base = dfg.resolve_aliases(args[0]);
        }
        (base, off)
    }

    /// What an access is, for grouping: its type, base, offset and flags.
    fn access(&self, inst: Inst) -> Option<(bool, Type, Value, i64, MemFlags)> {
        let dfg = &self.func.dfg;
        let (is_load, ty, ptr, flags) = match &dfg.insts[inst] {
            InstData::Load { ty, ptr, flags } => (true, *ty, *ptr, flags),
            InstData::Store { value, ptr, flags } => (
                false,
                dfg.value_type(dfg.resolve_aliases(*value)),
                *ptr,
                flags,
            ),
            _ => return None,
        };
        // A cache-hinted access is volatile in the IR; its members (a
        // `float4` of `__ldcs`) join as nvcc's `ld.global.cs.v4` does.
        if (flags.volatile && flags.cache.is_none())
            || !matches!(
                ty,
                Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::F32 | Type::F64
            )
        {
            return None;
        }
        let (base, off) = self.base_and_offset(ptr);
        Some((is_load, ty, base, off, flags.clone()))
    }

    /// Finds the vector groups of every block (see the module comment).
    pub(super) fn find_vector_groups(&mut self) {
        let blocks: Vec<Block> = self.func.layout.blocks().to_vec();
        for block in blocks {
            let insts = self.func.layout.block_insts(block).to_vec();
            for i in 0..insts.len() {
                if self.vec_member.contains_key(&insts[i]) {
                    continue;
                }
                if let Some(group) = self.group_from(&insts, i) {
                    let lead = if matches!(self.func.dfg.insts[insts[i]], InstData::Load { .. }) {
                        insts[i]
                    } else {
                        group.members().last().unwrap_or(insts[i])
                    };
                    for m in group.members() {
                        self.vec_member.insert(m, lead);
                    }
                    self.vec_groups.insert(lead, group);
                }
            }
        }
    }

    /// The group that starts at `insts[i]`, if one does.
    fn group_from(&self, insts: &[Inst], i: usize) -> Option<VecGroup> {
        let (is_load, ty, base, off0, flags) = self.access(insts[i])?;
        let size = i64::from(ty.bytes());
        let align = i64::from(flags.align);
        let same = |f: &MemFlags| {
            f.invariant == flags.invariant
                && f.volatile == flags.volatile
                && f.cache == flags.cache
                && f.scopes == flags.scopes
                && f.noalias == flags.noalias
        };
        // The `align` flag is the alignment of this access's own address.
        // Offsets found so far: members[k] is at off0 + k * size.
        let mut members: Vec<Option<Inst>> = vec![Some(insts[i]), None, None, None];
        let most = (16 / size).min(4) as usize;
        // Members are looked for among the next VECTOR_WINDOW instructions:
        // without a bound, a long block of loads from different bases was
        // scanned to its end from every load (quadratic).
        for &inst in insts[i + 1..].iter().take(VECTOR_WINDOW) {
            let data = &self.func.dfg.insts[inst];
            if self.vec_member.contains_key(&inst) {
                break;
            }
            match self.access(inst) {
                Some((l, t, b, off, f)) if l == is_load && t == ty && b == base && same(&f) => {
                    let k = (off - off0) / size;
                    let exact = (off - off0) % size == 0 && k > 0 && (k as usize) < most;
                    if is_load {
                        if exact && members[k as usize].is_none() {
                            members[k as usize] = Some(inst);
                            if members[..most].iter().all(Option::is_some) {
                                break;
                            }
                        }
                        continue;
                    }
                    // Stores: only the next one in address order may follow.
                    let next = members.iter().take_while(|m| m.is_some()).count();
                    if exact && k as usize == next {
                        members[next] = Some(inst);
                        continue;
                    }
                    break;
                }
                _ => {}
            }
            let reads = matches!(data, InstData::Load { .. });
            if data.opcode().has_side_effects() || (!is_load && reads) {
                break;
            }
        }
        let run = members.iter().take_while(|m| m.is_some()).count();
        let present = members.iter().flatten().count();
        if is_load && run < 4 && present == 3 && most >= 4 && align >= 4 * size {
            return Some(VecGroup { lanes: members });
        }
        let n = [4usize, 2]
            .into_iter()
            .find(|&n| n <= run && n <= most && align >= n as i64 * size)?;
        Some(VecGroup {
            lanes: members[..n].to_vec(),
        })
    }

    /// Emits the vector access of the group led by `lead`.
    pub(super) fn lower_vector_group(&mut self, lead: Inst) -> IselResult<()> {
        let group = self.vec_groups[&lead].clone();
        let first = group.lanes[0].ok_or(Malformed::VectorGroupWithoutLead)?;
        let data = self.func.dfg.insts[first].clone();
        match data {
            InstData::Load { ty, ptr, flags } => {
                let (space, addr) = self.address(ptr)?;
                let kind = super::load_kind(&flags, space);
                let mut dsts = Vec::new();
                for lane in &group.lanes {
                    let Some(m) = *lane else {
                        dsts.push(self.new_reg(super::class_of(ty)));
                        continue;
                    };
                    let r = self
                        .func
                        .dfg
                        .first_result(m)
                        .ok_or(Malformed::VectorLoadWithoutResult)?;
                    dsts.push(self.def(r));
                }
                self.emit(MInst::LdVec {
                    space,
                    kind,
                    ty: mem_ty(ty)?,
                    dsts,
                    addr,
                });
            }
            InstData::Store { value, ptr, flags } => {
                let ty = self.ty(value);
                let (space, addr) = self.address(ptr)?;
                if space == crate::minst::Space::Const {
                    return Err(NotSelected::StoreToConst.into());
                }
                let cache = super::cache_op(&flags, space, false);
                let mut srcs = Vec::new();
                for m in group.members() {
                    let InstData::Store { value, .. } = self.func.dfg.insts[m] else {
                        return Err(Malformed::VectorStoreGroup.into());
                    };
                    srcs.push(self.reg(value)?);
                }
                self.emit(MInst::StVec {
                    space,
                    cache,
                    ty: mem_ty(ty)?,
                    addr,
                    srcs,
                });
            }
            _ => return Err(Malformed::VectorGroupKind.into()),
        }
        Ok(())
    }
}
