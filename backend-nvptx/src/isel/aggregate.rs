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

use super::{Isel, IselResult};
use crate::minst::{AddrBase, Address, MInst, PtxType, Reg, RegClass, Space};
use midend::ir::{AddrSpace, InstData, Opcode, Type, Value};

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
                    let what = if byval {
                        "a by-value aggregate parameter is only read"
                    } else {
                        "a struct result is only written"
                    };
                    return Err(format!(
                        "`{name}`: {what} at constant offsets, but {inst} uses it otherwise"
                    ));
                }
            }
        }
        self.param_syms
            .insert(dfg.resolve_aliases(v), name.to_string());
        Ok(())
    }

    /// Declares the `.param` array `name` of a call and fills it with the
    /// `size` bytes at `ptr`.
    pub(super) fn aggregate_arg(
        &mut self,
        ptr: Value,
        name: &str,
        size: u32,
        align: u32,
    ) -> IselResult<()> {
        self.emit(MInst::ParamArray {
            name: name.to_string(),
            size,
            align,
        });
        let (space, from) = self.address(self.through_generic_cast(ptr))?;
        let to = Address {
            base: AddrBase::Sym(name.to_string()),
            offset: 0,
        };
        self.copy_bytes((space, from), (Space::Param, to), size, align);
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
                    ty,
                    addr: at(&to),
                    srcs: regs,
                });
            }
            off += step;
        }
    }
}
