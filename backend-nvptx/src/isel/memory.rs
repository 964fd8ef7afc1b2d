//! Selection of memory accesses: addressing modes, `ld` and `st`.
//!
//! The state space comes from the pointer's type (`ptr<global>` loads with
//! `ld.global`), so address-space inference in the midend directly decides
//! which instruction we emit. A constant `ptroffset` folds into the address
//! (`[%rd1+8]`), and a module variable in its own space is addressed by name
//! (`[tile+16]`), as nvcc writes them.

use super::error::{Malformed, NotSelected, PointerUse};
use super::{mem_ty, space_of, Isel, IselResult};
use crate::minst::{
    AddrBase, Address, Cmp, LoadKind, MInst, Operand, PtxType, Reg, RegClass, Space,
};
use midend::ir::{AddrSpace, InstData, Opcode, Type, Value};

impl Isel<'_> {
    /// The state space and address operand of an access through `ptr`.
    pub(super) fn address(&mut self, ptr: Value) -> IselResult<(Space, Address)> {
        let pty = self.ty(ptr);
        let Type::Ptr(space) = pty else {
            return Err(Malformed::NonPointer {
                used_in: PointerUse::MemoryAccess,
                ty: pty,
            }
            .into());
        };
        let space = space_of(space)?;
        if space == Space::SharedCluster {
            self.require_sm90("::cluster")?;
        }
        // Peel `ptroffset base, const` links into the immediate offset.
        let mut base = ptr;
        let mut offset: i64 = 0;
        while let Some(InstData::Binary {
            opcode: Opcode::PtrOffset,
            args,
        }) = self.def_inst(base)
        {
            let args = *args;
            let Some(Operand::Imm(k)) = self.immediate(args[1]) else {
                break;
            };
            let sum = offset.checked_add(k).ok_or(NotSelected::OffsetOverflow)?;
            offset = sum;
            base = args[0];
        }
        // A by-value aggregate (or the struct result) of a device function
        // lives in its `.param` array, whatever the pointer's type says.
        if let Some(name) = self.param_syms.get(&self.func.dfg.resolve_aliases(base)) {
            let name = name.clone();
            return Ok((
                Space::Param,
                Address {
                    base: AddrBase::Sym(name),
                    offset,
                },
            ));
        }
        let base = match self.def_inst(base) {
            // A variable addressed in its own space: use its name.
            Some(InstData::GlobalAddr { gv }) => {
                let g = self
                    .module
                    .globals
                    .get(*gv)
                    .ok_or(Malformed::UnknownGlobal(*gv))?;
                if Type::Ptr(g.space) == self.ty(base) {
                    AddrBase::Sym(g.name.clone())
                } else {
                    AddrBase::Reg(self.reg(base)?)
                }
            }
            Some(InstData::StackAddr { slot }) => AddrBase::Sym(super::local_symbol(slot.as_u32())),
            // A by-value kernel parameter read in param space: its name.
            _ if space == Space::Param
                && self
                    .param_syms
                    .contains_key(&self.func.dfg.resolve_aliases(base)) =>
            {
                AddrBase::Sym(self.param_syms[&self.func.dfg.resolve_aliases(base)].clone())
            }
            _ => AddrBase::Reg(self.reg(base)?),
        };
        Ok((space, Address { base, offset }))
    }

    /// The space and address of a volatile access. `ld.volatile.local` and
    /// `st.volatile.local` need PTX ISA 9.1 ([`VOLATILE_LOCAL_VERSION`]), so
    /// on a target whose floor is older the access goes through the generic
    /// window: `cvta.local` of the address, then a generic `ld.volatile` of
    /// the same bytes. It stays volatile (ptxas keeps every generic volatile
    /// access; a plain `ld.local` it could merge or drop), and it assembles
    /// under every `.version`, `--ptx-version` included.
    ///
    /// [`VOLATILE_LOCAL_VERSION`]: crate::target::VOLATILE_LOCAL_VERSION
    pub(super) fn volatile_local_as_generic(
        &mut self,
        space: Space,
        addr: Address,
    ) -> (Space, Address) {
        if space != Space::Local || self.target.has_volatile_local() {
            return (space, addr);
        }
        let generic = self.new_reg(RegClass::B64);
        let src = match addr.base {
            AddrBase::Reg(r) => Operand::Reg(r),
            AddrBase::Sym(name) => Operand::Sym(name),
        };
        self.emit(MInst::Cvta {
            to_space: false,
            space: Space::Local,
            dst: generic,
            src,
        });
        let addr = Address {
            base: AddrBase::Reg(generic),
            offset: addr.offset,
        };
        (Space::Generic, addr)
    }

    /// Loads a value of type `ty` into `dst`. Besides plain loads this
    /// handles the types whose register differs from their memory form:
    /// `i1` (a byte in memory, a predicate in registers) and `ptr<shared>`
    /// (8 bytes in memory, 32 bits in registers).
    pub(super) fn load(
        &mut self,
        space: Space,
        kind: LoadKind,
        ty: Type,
        dst: Reg,
        addr: Address,
    ) -> IselResult<()> {
        match ty {
            Type::I1 => {
                let t = self.new_reg(RegClass::B16);
                self.emit(MInst::Ld {
                    space,
                    kind,
                    ty: PtxType::U8,
                    dst: t,
                    addr,
                });
                self.emit(MInst::Setp {
                    cmp: Cmp::Ne,
                    ty: PtxType::B16,
                    dst,
                    a: t.into(),
                    b: Operand::Imm(0),
                });
            }
            Type::Ptr(AddrSpace::Shared) => {
                let t = self.new_reg(RegClass::B64);
                self.emit(MInst::Ld {
                    space,
                    kind,
                    ty: PtxType::U64,
                    dst: t,
                    addr,
                });
                self.cvt(None, PtxType::U32, PtxType::U64, dst, t);
            }
            _ => self.emit(MInst::Ld {
                space,
                kind,
                ty: mem_ty(ty)?,
                dst,
                addr,
            }),
        }
        Ok(())
    }

    /// Stores `value` at `addr`; the mirror image of [`Isel::load`].
    pub(super) fn store(
        &mut self,
        space: Space,
        volatile: bool,
        value: Value,
        addr: Address,
    ) -> IselResult<()> {
        self.store_with(space, volatile, None, value, addr)
    }

    /// [`Isel::store`] with a cache operator (`st.global.cs`, ...).
    pub(super) fn store_with(
        &mut self,
        space: Space,
        volatile: bool,
        cache: Option<midend::ir::CacheOp>,
        value: Value,
        addr: Address,
    ) -> IselResult<()> {
        if space == Space::Const {
            return Err(NotSelected::StoreToConst.into());
        }
        let ty = self.ty(value);
        let (ty, src) = match ty {
            Type::I1 => {
                let p = self.reg(value)?;
                let t = self.new_reg(RegClass::B16);
                self.emit(MInst::Selp {
                    ty: PtxType::U16,
                    dst: t,
                    a: Operand::Imm(1),
                    b: Operand::Imm(0),
                    pred: p,
                });
                (PtxType::U8, t.into())
            }
            Type::Ptr(AddrSpace::Shared) => {
                let r = self.reg(value)?;
                let t = self.new_reg(RegClass::B64);
                self.cvt(None, PtxType::U64, PtxType::U32, t, r);
                (PtxType::U64, t.into())
            }
            _ => (mem_ty(ty)?, self.operand(value)?),
        };
        self.emit(MInst::St {
            space,
            volatile,
            cache,
            ty,
            addr,
            src,
        });
        Ok(())
    }
}
