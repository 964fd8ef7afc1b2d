//! Instruction selection: one IR function to one [`MFunction`].
//!
//! The selector walks the blocks in layout order and turns each IR
//! instruction into one or a few [`MInst`]s. It is deliberately simple:
//!
//! * **One virtual register per IR value.** PTX registers are unlimited and
//!   ptxas allocates the real ones, so we never reuse or spill. The register
//!   class follows the value's type ([`class_of`]).
//! * **Constants live in operands.** An `iconst`/`fconst` emits nothing where
//!   it is defined; each use either takes it as an immediate (`add.s32 %r2,
//!   %r1, 4`) or, where PTX wants a register, gets a fresh `mov`.
//! * **Block arguments become copies on the edge** ([`crate::copies`]); a
//!   conditional branch whose taken edge needs copies gets a small stub block,
//!   which is how we split critical edges without changing the IR.
//!
//! Anything not handled returns an error that names the opcode and type; the
//! selector never panics on IR the verifier accepts.

mod accel;
mod aggregate;
mod arith;
mod asm;
mod convert;
pub mod error;
mod grid;
mod memory;
pub(crate) mod runtime;
mod sync;
mod texture;
mod vector;
mod wgmma_tcgen05;

use crate::copies::{self, Copy};
use crate::mfunc::{class_index, LocalArray, MFunction, ParamDecl};
use crate::minst::{
    AddrBase, Address, Label, LoadKind, MInst, Operand, PtxType, Reg, RegClass, Rounding, Space,
    UnaryOp,
};
use crate::target::{Features, Target};
use midend::ir::{
    AddrSpace, Block, BlockCall, FuncKind, Function, GlobalVar, Inst, InstData, LoopHint, MemFlags,
    Module, Opcode, SourceSpan, SpecialReg, Type, Value, ValueDef,
};
use rustc_hash::{FxHashMap, FxHashSet};

pub use error::{IselError, IselErrorKind};
use error::{Malformed, NotSelected, PointerUse, TargetLacks};

/// A selection step's result: why it failed, if it did. The function's
/// selection adds the instruction it was at ([`IselError`]).
pub type IselResult<T> = Result<T, IselErrorKind>;

/// The register class that holds a value of type `ty`.
///
/// Shared-memory pointers are kept 32-bit, as nvcc does: the shared window
/// is small, `ld.shared [%r]` is legal, and it saves registers. Tensor-memory
/// addresses are 32-bit by definition.
pub fn class_of(ty: Type) -> RegClass {
    match ty {
        Type::I1 => RegClass::Pred,
        Type::I8 | Type::I16 | Type::F16 | Type::BF16 => RegClass::B16,
        Type::I32 | Type::Ptr(AddrSpace::Shared) | Type::Ptr(AddrSpace::Tmem) => RegClass::B32,
        Type::I64 | Type::Ptr(_) => RegClass::B64,
        Type::F32 => RegClass::F32,
        Type::F64 => RegClass::F64,
    }
}

/// The untyped (`.bN`, or `.pred`/`.fN`) type of a class, for `mov`.
fn mov_ty(class: RegClass) -> PtxType {
    class.decl_type()
}

/// The integer instruction type of `ty`: signed or unsigned. `i8` values sit
/// in 16-bit registers, so they compute as 16-bit.
fn int_ty(ty: Type, signed: bool) -> IselResult<PtxType> {
    Ok(match (class_of(ty), signed) {
        (RegClass::B16, true) => PtxType::S16,
        (RegClass::B16, false) => PtxType::U16,
        (RegClass::B32, true) => PtxType::S32,
        (RegClass::B32, false) => PtxType::U32,
        (RegClass::B64, true) => PtxType::S64,
        (RegClass::B64, false) => PtxType::U64,
        _ => return Err(NotSelected::IntType(ty).into()),
    })
}

/// The bit-type of an integer (`.b32`), for logic ops and shifts.
fn bit_ty(ty: Type) -> IselResult<PtxType> {
    match class_of(ty) {
        RegClass::B16 => Ok(PtxType::B16),
        RegClass::B32 => Ok(PtxType::B32),
        RegClass::B64 => Ok(PtxType::B64),
        _ => Err(NotSelected::BitType(ty).into()),
    }
}

/// The exact-width type used by `cvt`: `i8` is `.s8`/`.u8` even though it
/// sits in a 16-bit register, so `cvt` reads only its low byte.
fn cvt_int_ty(ty: Type, signed: bool) -> IselResult<PtxType> {
    Ok(match (ty, signed) {
        (Type::I8, true) => PtxType::S8,
        (Type::I8, false) => PtxType::U8,
        _ => int_ty(ty, signed)?,
    })
}

/// The float instruction type. bf16 arithmetic needs sm_90, so the selector
/// only converts bf16 (the frontend promotes it to f32 for math).
fn float_ty(ty: Type) -> IselResult<PtxType> {
    match ty {
        Type::F16 => Ok(PtxType::F16),
        Type::F32 => Ok(PtxType::F32),
        Type::F64 => Ok(PtxType::F64),
        _ => Err(NotSelected::FloatType(ty).into()),
    }
}

/// The `cvt` type of a float (including bf16, which `cvt` does handle).
fn cvt_float_ty(ty: Type) -> IselResult<PtxType> {
    match ty {
        Type::BF16 => Ok(PtxType::BF16),
        _ => float_ty(ty),
    }
}

/// The type of a value in memory, for `ld`/`st`. Loads of small integers
/// widen into the 16-bit register; stores truncate.
fn mem_ty(ty: Type) -> IselResult<PtxType> {
    Ok(match ty {
        Type::I8 => PtxType::U8,
        Type::I16 => PtxType::U16,
        Type::I32 => PtxType::U32,
        Type::I64 => PtxType::U64,
        Type::F16 | Type::BF16 => PtxType::B16,
        Type::F32 => PtxType::F32,
        Type::F64 => PtxType::F64,
        Type::Ptr(AddrSpace::Tmem) => PtxType::U32,
        Type::Ptr(_) => PtxType::U64,
        Type::I1 => return Err(NotSelected::MemoryType(ty).into()),
    })
}

/// The PTX state space of a pointer's address space, for `ld`/`st`.
fn space_of(space: AddrSpace) -> IselResult<Space> {
    Ok(match space {
        AddrSpace::Generic => Space::Generic,
        AddrSpace::Global => Space::Global,
        AddrSpace::Shared => Space::Shared,
        AddrSpace::Const => Space::Const,
        AddrSpace::Local => Space::Local,
        AddrSpace::Param => Space::Param,
        AddrSpace::SharedCluster => Space::SharedCluster,
        AddrSpace::Tmem => return Err(NotSelected::MemorySpace(space).into()),
    })
}

/// The `.param` type of a kernel parameter, spelled as nvcc does (`.u64`
/// for pointers, `.u32` for `int`, `.f32` for `float`).
fn kernel_param_ty(ty: Type) -> PtxType {
    match ty {
        Type::I1 | Type::I8 => PtxType::U8,
        Type::I16 => PtxType::U16,
        Type::I32 => PtxType::U32,
        Type::I64 | Type::Ptr(_) => PtxType::U64,
        Type::F16 | Type::BF16 => PtxType::B16,
        Type::F32 => PtxType::F32,
        Type::F64 => PtxType::F64,
    }
}

/// The `.param` type of a device-function parameter or return value: untyped
/// bits of the value's size in memory. Caller and callee both go through
/// [`Isel::load`]/[`Isel::store`], so a value crosses a call exactly as it
/// would cross memory.
fn device_param_ty(ty: Type) -> PtxType {
    match ty.bytes() {
        1 => PtxType::B8,
        2 => PtxType::B16,
        4 => PtxType::B32,
        _ => PtxType::B64,
    }
}

/// The label of a block: `$L__BB<function>_<block>`, as nvcc names them.
fn block_label(func_index: usize, block: Block) -> Label {
    Label(format!("$L__BB{func_index}_{}", block.as_u32()))
}

/// The per-function state of instruction selection.
struct Isel<'a> {
    module: &'a Module,
    func: &'a Function,
    func_index: usize,
    target: Target,
    /// [`crate::Options::contract`]: whether plain float `mul`/`add`/`sub`
    /// may be fused by ptxas (else they are written `.rn`).
    contract: bool,
    /// `-lineinfo`: put a [`MInst::Loc`] before what each IR instruction
    /// with a source span selects.
    locations: bool,
    regs: FxHashMap<Value, Reg>,
    /// The last number handed out, per class.
    next: [u32; 6],
    body: Vec<MInst>,
    features: Features,
    locals: Vec<LocalArray>,
    /// Stub labels made so far (for edge copies), to number them.
    stubs: u32,
    /// `.callprototype` labels made so far (`prototype_N`, one per
    /// indirect call).
    prototypes: u32,
    /// Values whose computation is folded into every address that uses them.
    folded: FxHashSet<Value>,
    /// How many operands of placed instructions read each value (an unread
    /// atomic result makes `red` instead of `atom`).
    uses: FxHashMap<Value, u32>,
    /// `imul.i64` results computed with one `mul.wide` from 32-bit operands:
    /// whether signed, and the two 32-bit operands (the second may be a constant).
    wide_muls: FxHashMap<Value, (bool, Value, Value)>,
    /// `trunc.i32` results computed with one `mul.hi` (the high half of
    /// such a product): whether signed, and the two 32-bit operands.
    high_muls: FxHashMap<Value, (bool, Value, Value)>,
    /// Such products read only as the offset of a 32-bit (shared) address:
    /// the address needs the low 32 bits, one `mul.lo` of the 32-bit
    /// operands at the `ptroffset` (the multiply itself is not emitted).
    narrow_muls: FxHashMap<Value, (bool, Value, Value)>,
    /// Extensions whose only use is such a `mul.wide`, and the multiplies
    /// and shifts a `mul.hi` replaces: not emitted.
    skipped: FxHashSet<Value>,
    /// By-value kernel parameters: their value is the address of the
    /// `.param` aggregate with this name.
    param_syms: FxHashMap<Value, String>,
    /// Vector groups by their leading instruction (see `vector.rs`).
    vec_groups: FxHashMap<Inst, vector::VecGroup>,
    /// Every member of a vector group, with the group's leader.
    vec_member: FxHashMap<Inst, Inst>,
    /// The function's dominator tree (where edge copies may go early).
    domtree: midend::analysis::DominatorTree,
    /// Each block's predecessors, and the blocks that read each block
    /// parameter (for edge copies on back edges).
    preds: cranelift_entity::SecondaryMap<Block, Vec<Block>>,
    param_readers: FxHashMap<Value, Vec<Block>>,
    /// By-value arguments stored field by field into the call's `.param`
    /// array, by (call, argument number): each field's offset and value.
    direct_byval: FxHashMap<(Inst, usize), Vec<(i64, aggregate::ByvalField)>>,
    /// Instructions not emitted: the stores into, and the address of, a
    /// slot that only by-value calls read (see `aggregate.rs`).
    skipped_insts: FxHashSet<Inst>,
}

/// Selects one function. `func_index` numbers its labels. A failure at an
/// instruction carries that instruction's source span. With `locations`,
/// the body marks where each source span's instructions start
/// ([`MInst::Loc`]).
pub fn select_function(
    module: &Module,
    func: &Function,
    func_index: usize,
    target: Target,
    contract: bool,
    locations: bool,
) -> Result<MFunction, IselError> {
    let mut isel = Isel {
        module,
        func,
        func_index,
        target,
        contract,
        locations,
        regs: FxHashMap::default(),
        next: [0; 6],
        body: Vec::new(),
        features: Features::default(),
        locals: Vec::new(),
        stubs: 0,
        prototypes: 0,
        folded: FxHashSet::default(),
        uses: FxHashMap::default(),
        wide_muls: FxHashMap::default(),
        high_muls: FxHashMap::default(),
        narrow_muls: FxHashMap::default(),
        skipped: FxHashSet::default(),
        param_syms: FxHashMap::default(),
        vec_groups: FxHashMap::default(),
        vec_member: FxHashMap::default(),
        domtree: midend::analysis::DominatorTree::compute(func),
        preds: func.predecessors(),
        param_readers: FxHashMap::default(),
        direct_byval: FxHashMap::default(),
        skipped_insts: FxHashSet::default(),
    };
    for (block, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            let v = func.dfg.resolve_aliases(v);
            *isel.uses.entry(v).or_default() += 1;
            if matches!(func.dfg.value_def(v), ValueDef::Param(..)) {
                isel.param_readers.entry(v).or_default().push(block);
            }
        });
    }
    isel.find_wide_multiplies();
    isel.find_high_multiplies();
    isel.find_folded_addresses();
    isel.find_vector_groups();
    isel.find_direct_byval();
    isel.find_fused_roundings();
    let params: Vec<ParamDecl> = isel
        .lower_params()?
        .into_iter()
        .zip(&func.signature.params)
        .filter(|(_, abi)| func.is_kernel() || abi.attrs.sret.is_none())
        .map(|(d, _)| d)
        .collect();
    let ret_bytes = func
        .signature
        .params
        .iter()
        .find_map(|p| p.attrs.sret)
        .filter(|_| !func.is_kernel());
    isel.lower_stack_slots();
    isel.lower_blocks()?;
    isel.drop_unused_labels();
    let ret = match func.signature.returns.as_slice() {
        [] => None,
        [ty] if !func.is_kernel() => Some(device_param_ty(*ty)),
        [_] => return Err(IselErrorKind::from(NotSelected::KernelResult).into()),
        _ => return Err(IselErrorKind::from(NotSelected::Results).into()),
    };
    let (max_threads, min_blocks) = match func.attrs.launch_bounds {
        Some((t, b)) if func.is_kernel() => (Some(t), b),
        _ => (None, None),
    };
    let cluster_dims = func.attrs.cluster_dims.filter(|_| func.is_kernel());
    if cluster_dims.is_some() && target.sm() < 90 {
        return Err(IselErrorKind::from(TargetLacks::Clusters { target }).into());
    }
    Ok(MFunction {
        name: func.name.clone(),
        is_kernel: func.is_kernel(),
        linkage: func.attrs.linkage,
        params,
        ret,
        ret_bytes,
        max_threads,
        min_blocks,
        cluster_dims,
        locals: isel.locals,
        max_reg: isel.next,
        body: isel.body,
        features: isel.features,
    })
}

/// The formal `.param` list and call-site types of a function signature.
/// One per IR parameter; a device function's `sret` parameter is
/// `func_retval0` (it is declared as the return value, not a parameter),
/// and the numbering of the others skips it, as nvcc's does.
pub fn param_decls(func: &Function) -> Vec<ParamDecl> {
    let mut n = 0;
    func.signature
        .params
        .iter()
        .map(|p| {
            if let Some(bytes) = p.attrs.sret.filter(|_| !func.is_kernel()) {
                return ParamDecl {
                    ty: PtxType::B8,
                    name: "func_retval0".into(),
                    bytes: Some(bytes),
                };
            }
            let decl = ParamDecl {
                ty: if func.is_kernel() {
                    kernel_param_ty(p.ty)
                } else {
                    device_param_ty(p.ty)
                },
                name: format!("{}_param_{n}", func.name),
                bytes: p.attrs.byval,
            };
            n += 1;
            decl
        })
        .collect()
}

impl Isel<'_> {
    // ---- registers and operands -------------------------------------------

    fn new_reg(&mut self, class: RegClass) -> Reg {
        let n = &mut self.next[class_index(class)];
        *n += 1;
        Reg { class, num: *n }
    }

    fn is_used(&self, v: Value) -> bool {
        self.use_count(v) > 0
    }

    fn use_count(&self, v: Value) -> u32 {
        let v = self.func.dfg.resolve_aliases(v);
        self.uses.get(&v).copied().unwrap_or(0)
    }

    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(self.func.dfg.resolve_aliases(v))
    }

    fn emit(&mut self, inst: MInst) {
        self.body.push(inst);
    }

    /// The register that holds `v`, made on first sight (a use may come
    /// before its definition in layout order, e.g. around a loop).
    fn def(&mut self, v: Value) -> Reg {
        let v = self.func.dfg.resolve_aliases(v);
        if let Some(&r) = self.regs.get(&v) {
            return r;
        }
        let r = self.new_reg(class_of(self.func.dfg.value_type(v)));
        self.regs.insert(v, r);
        r
    }

    /// The instruction that defines `v`, if it is an instruction result.
    fn def_inst(&self, v: Value) -> Option<&InstData> {
        match self.func.dfg.value_def(self.func.dfg.resolve_aliases(v)) {
            ValueDef::Result(inst, 0) => Some(&self.func.dfg.insts[inst]),
            _ => None,
        }
    }

    /// `v` as an immediate, if it is a constant PTX can take inline.
    /// `i1` and 16-bit floats have no immediate form in most instructions.
    fn immediate(&self, v: Value) -> Option<Operand> {
        match self.def_inst(v)? {
            InstData::Iconst { ty, imm } if *ty != Type::I1 => Some(Operand::Imm(*imm)),
            InstData::Fconst {
                ty: Type::F32,
                value,
            } => Some(Operand::F32(midend::ir::f32_const_bits(*value))),
            InstData::Fconst {
                ty: Type::F64,
                value,
            } => Some(Operand::F64(value.to_bits())),
            _ => None,
        }
    }

    /// `v` as a source operand: an immediate when it is a constant, else its register.
    fn operand(&mut self, v: Value) -> IselResult<Operand> {
        match self.immediate(v) {
            Some(imm) => Ok(imm),
            None => self.reg(v).map(Operand::Reg),
        }
    }

    /// `v` in a register. A constant gets a fresh register and a `mov`.
    fn reg(&mut self, v: Value) -> IselResult<Reg> {
        let konst = match self.def_inst(v) {
            Some(InstData::Iconst { ty, imm }) => Some((*ty, Operand::Imm(*imm))),
            Some(InstData::Fconst { ty, value }) => Some((*ty, float_imm(*ty, *value)?)),
            _ => None,
        };
        match konst {
            Some((ty, imm)) => {
                let dst = self.new_reg(class_of(ty));
                let imm = match (ty, imm) {
                    (Type::I1, Operand::Imm(i)) => Operand::Imm(i & 1),
                    (_, imm) => imm,
                };
                self.emit(MInst::Unary {
                    op: UnaryOp::Mov,
                    ty: mov_ty(dst.class),
                    dst,
                    src: imm,
                });
                Ok(dst)
            }
            None => Ok(self.def(v)),
        }
    }

    /// An `i8` value sign- or zero-extended within its 16-bit register, for
    /// operations that look at the high bits (compare, divide, shift right).
    /// Other types are returned as they are.
    fn widen_i8(&mut self, v: Value, signed: bool) -> IselResult<Operand> {
        if self.ty(v) != Type::I8 {
            return self.operand(v);
        }
        let src = self.reg(v)?;
        let dst = self.new_reg(RegClass::B16);
        let (dst_ty, src_ty) = if signed {
            (PtxType::S16, PtxType::S8)
        } else {
            (PtxType::U16, PtxType::U8)
        };
        self.emit(MInst::Cvt {
            round: None,
            dst_ty,
            src_ty,
            dst,
            src: src.into(),
        });
        Ok(Operand::Reg(dst))
    }

    /// `mov.u32`/`mov.u64` of an address or special register, spelled as
    /// nvcc does (`mov.u32 %r1, %tid.x;`, `mov.u64 %rd1, gvar;`).
    fn mov_address(&mut self, dst: Reg, src: Operand) {
        let ty = match dst.class {
            RegClass::B64 => PtxType::U64,
            _ => PtxType::U32,
        };
        self.emit(MInst::Unary {
            op: UnaryOp::Mov,
            ty,
            dst,
            src,
        });
    }

    fn mov(&mut self, dst: Reg, src: Operand) {
        self.emit(MInst::Unary {
            op: UnaryOp::Mov,
            ty: mov_ty(dst.class),
            dst,
            src,
        });
    }

    fn cvt(
        &mut self,
        round: Option<Rounding>,
        dst_ty: PtxType,
        src_ty: PtxType,
        dst: Reg,
        src: Reg,
    ) {
        self.emit(MInst::Cvt {
            round,
            dst_ty,
            src_ty,
            dst,
            src: src.into(),
        });
    }

    // ---- function structure -----------------------------------------------

    /// Finds the address computations that every user folds into its
    /// `[base+offset]` operand (a `ptroffset` by a constant used only as
    /// the pointer of loads and stores). They need no instruction of their own.
    fn find_folded_addresses(&mut self) {
        let dfg = &self.func.dfg;
        let mut other_use: FxHashSet<Value> = FxHashSet::default();
        for (_, inst) in self.func.layout.insts() {
            let data = &dfg.insts[inst];
            let mut args = data.arguments();
            // The pointer operand of a memory access is the use an address
            // can absorb (the last occurrence: `store p, p` stores a pointer).
            if let Some(ptr) = data.mem_ptr() {
                if let Some(i) = args.iter().rposition(|&a| a == ptr) {
                    args.remove(i);
                }
            }
            other_use.extend(args.into_iter().map(|v| dfg.resolve_aliases(v)));
        }
        for (_, inst) in self.func.layout.insts() {
            let data = &dfg.insts[inst];
            if let InstData::Binary {
                opcode: Opcode::PtrOffset,
                args,
            } = data
            {
                let Some(res) = dfg.first_result(inst) else {
                    continue;
                };
                if !other_use.contains(&res) && self.immediate(args[1]).is_some() {
                    self.folded.insert(res);
                }
            }
        }
    }

    /// Reads every parameter into the register of its entry-block value.
    /// Kernel pointers arrive as generic addresses from the host; a
    /// `ptr<global>` parameter is converted once with `cvta.to.global` so
    /// every access can use `ld.global`/`st.global` (nvcc's idiom).
    fn lower_params(&mut self) -> IselResult<Vec<ParamDecl>> {
        let decls = param_decls(self.func);
        let values = self.func.params().to_vec();
        if values.len() != decls.len() {
            return Err(Malformed::EntryParams.into());
        }
        for ((decl, abi), v) in decls.iter().zip(&self.func.signature.params).zip(values) {
            if !self.func.is_kernel() && (abi.attrs.byval.is_some() || abi.attrs.sret.is_some()) {
                self.aggregate_param(v, &decl.name, abi.attrs.byval.is_some())?;
                continue;
            }
            if abi.attrs.byval.is_some() || abi.attrs.grid_constant {
                // A kernel's aggregate lives in param space and the value is
                // its address: loads fold to `[name+off]` (see `address`),
                // and a register copy serves every other use.
                if !self.func.is_kernel() || abi.ty != Type::Ptr(AddrSpace::Param) {
                    return Err(NotSelected::ByValueParam {
                        param: decl.name.clone(),
                    }
                    .into());
                }
                let dst = self.def(v);
                self.param_syms.insert(v, decl.name.clone());
                self.emit(MInst::Unary {
                    op: UnaryOp::Mov,
                    ty: PtxType::B64,
                    dst,
                    src: Operand::Sym(decl.name.clone()),
                });
                continue;
            }
            let addr = Address {
                base: AddrBase::Sym(decl.name.clone()),
                offset: 0,
            };
            match abi.ty {
                Type::Ptr(space) if self.func.is_kernel() && space != AddrSpace::Generic => {
                    let raw = self.new_reg(RegClass::B64);
                    let dst = self.def(v);
                    self.emit(MInst::Ld {
                        space: Space::Param,
                        kind: LoadKind::Plain,
                        ty: PtxType::U64,
                        dst: raw,
                        addr,
                    });
                    self.cast_from_generic(dst, raw, space)?;
                }
                ty => {
                    let dst = self.def(v);
                    self.load(Space::Param, LoadKind::Plain, ty, dst, addr)?
                }
            }
        }
        Ok(decls)
    }

    /// Declares one `.local` byte array per stack slot that some placed
    /// `stack_addr` still uses (`sroa` leaves split slots unused).
    fn lower_stack_slots(&mut self) {
        let used: FxHashSet<_> = self
            .func
            .layout
            .insts()
            .filter(|(_, i)| !self.skipped_insts.contains(i))
            .filter_map(|(_, i)| match self.func.dfg.insts[i] {
                InstData::StackAddr { slot } => Some(slot),
                _ => None,
            })
            .collect();
        for (slot, data) in self.func.stack_slots.iter() {
            if !used.contains(&slot) {
                continue;
            }
            self.locals.push(LocalArray {
                name: local_symbol(slot.as_u32()),
                size: data.size.max(1),
                align: data.align.max(1),
            });
        }
    }

    /// Selects every block; a failure says at which instruction.
    fn lower_blocks(&mut self) -> Result<(), IselError> {
        let blocks = self.func.layout.blocks().to_vec();
        let targets: FxHashSet<Block> = blocks
            .iter()
            .flat_map(|&b| self.func.successors(b))
            .collect();
        for (i, &block) in blocks.iter().enumerate() {
            if targets.contains(&block) {
                self.emit(MInst::Label(block_label(self.func_index, block)));
            }
            if self.func.loop_hints.get(&block) == Some(&LoopHint::Count(1)) {
                self.emit(MInst::NoUnroll);
            }
            let next = blocks.get(i + 1).copied();
            let insts = self.func.layout.block_insts(block);
            if insts.is_empty() {
                return Err(IselErrorKind::from(Malformed::EmptyBlock(block)).into());
            }
            for &inst in insts {
                let start = self.body.len();
                self.lower_inst(inst, next).map_err(|kind| {
                    let span = self.func.spans[inst];
                    IselError {
                        kind,
                        at: Some(error::At {
                            opcode: self.func.dfg.insts[inst].opcode(),
                            inst,
                            block,
                        }),
                        span: (!span.is_none()).then_some(span),
                    }
                })?;
                self.mark_location(start, self.func.spans[inst]);
            }
        }
        Ok(())
    }

    /// With `-lineinfo`, marks the instructions selected since `start` as
    /// coming from `span`: a [`MInst::Loc`] before the first of them that
    /// is not a label (a label stays at the head of its block, as the
    /// block structure of `cfg.rs` and the register allocator need).
    /// Nothing is marked for an instruction without a span (made by a
    /// pass), or that selected nothing.
    fn mark_location(&mut self, start: usize, span: SourceSpan) {
        if !self.locations || span.is_none() {
            return;
        }
        let first = (start..self.body.len()).find(|&i| !matches!(self.body[i], MInst::Label(_)));
        if let Some(at) = first {
            self.body.insert(at, MInst::Loc(span));
        }
    }

    /// Removes labels no branch names (blocks only reached by falling
    /// through), so the text shows only real jump targets.
    fn drop_unused_labels(&mut self) {
        let used: FxHashSet<Label> = self
            .body
            .iter()
            .filter_map(|i| match i {
                MInst::Bra { target, .. } => Some(target.clone()),
                _ => None,
            })
            .collect();
        self.body
            .retain(|i| !matches!(i, MInst::Label(l) if !used.contains(l)));
    }

    fn lower_inst(&mut self, inst: Inst, next: Option<Block>) -> IselResult<()> {
        let data = &self.func.dfg.insts[inst];
        let results = self.func.dfg.inst_results(inst);
        let result = results.first().copied();
        let res = || result.ok_or(Malformed::NoResult(data.opcode()));
        if self.skipped_insts.contains(&inst) {
            return Ok(());
        }
        match data {
            // Constants are materialized at their uses (see `operand`/`reg`).
            InstData::Iconst { .. } | InstData::Fconst { .. } => Ok(()),
            InstData::Unary { opcode, arg } => self.unary(*opcode, res()?, *arg),
            InstData::Binary { .. }
                if result
                    .is_some_and(|r| self.folded.contains(&r) || self.skipped.contains(&r)) =>
            {
                Ok(())
            }
            InstData::Binary { opcode, args } => self.binary(*opcode, res()?, args[0], args[1]),
            InstData::Ternary { opcode, args } => self.ternary(*opcode, res()?, *args),
            InstData::IntCompare { cond, args } => self.icmp(*cond, res()?, args[0], args[1]),
            InstData::FloatCompare { cond, args } => self.fcmp(*cond, res()?, args[0], args[1]),
            InstData::Convert { .. } if result.is_some_and(|r| self.skipped.contains(&r)) => Ok(()),
            InstData::Convert { opcode, ty, arg } => {
                let (opcode, ty, arg, res) = (*opcode, *ty, *arg, res()?);
                if self.high_multiply(res)? {
                    return Ok(());
                }
                self.convert(opcode, ty, res, arg)
            }
            InstData::AddrSpaceCast { to, arg } => {
                let from = self.ty(*arg);
                let Type::Ptr(from) = from else {
                    return Err(Malformed::NonPointer {
                        used_in: PointerUse::AddrSpaceCast,
                        ty: from,
                    }
                    .into());
                };
                let dst = self.def(res()?);
                let src = self.reg(*arg)?;
                self.addrspacecast(dst, src, from, *to)
            }
            InstData::GlobalAddr { gv } => self.global_addr(*gv, res()?),
            InstData::StackAddr { slot } => {
                let dst = self.def(res()?);
                self.mov_address(dst, Operand::Sym(local_symbol(slot.as_u32())));
                Ok(())
            }
            InstData::Load { .. } | InstData::Store { .. }
                if self.vec_member.contains_key(&inst) =>
            {
                if self.vec_member[&inst] == inst {
                    self.lower_vector_group(inst)?;
                }
                Ok(())
            }
            InstData::Load { ty, ptr, flags } => {
                let (ty, ptr, flags) = (*ty, *ptr, flags.clone());
                self.lower_load(ty, ptr, &flags, res()?)
            }
            InstData::Store { value, ptr, flags } => {
                let (value, ptr, flags) = (*value, *ptr, flags.clone());
                self.lower_store(value, ptr, &flags)
            }
            InstData::Call { func, args } => {
                let (func, args) = (*func, args.clone());
                self.call(inst, func, &args, result)
            }
            InstData::CallIndirect { sig, args } => {
                let (sig, args) = (sig.clone(), args.clone());
                self.call_indirect(&sig, &args, result)
            }
            InstData::FuncAddr { func } => {
                let name = self
                    .module
                    .functions
                    .get(*func)
                    .ok_or(Malformed::AddressOfUnknown(*func))?
                    .name
                    .clone();
                let dst = self.def(res()?);
                self.mov_address(dst, Operand::Sym(name));
                Ok(())
            }
            InstData::SpecialReg { reg } => self.special_reg(*reg, res()?),
            InstData::AtomicRmw { op, scope, args } => {
                self.atomic_rmw(*op, *scope, res()?, args[0], args[1])
            }
            InstData::AtomicCas { scope, args } => self.atomic_cas(*scope, res()?, *args),
            InstData::AtomicVec { op, scope, args } => {
                let (args, results) = (args.clone(), results.to_vec());
                self.atomic_vec(*op, *scope, &args, &results)
            }
            InstData::Fence { scope } => {
                self.fence(*scope);
                Ok(())
            }
            InstData::Shuffle { mode, args } => self.shuffle(*mode, res()?, *args),
            InstData::Vote { mode, args } => self.vote(*mode, res()?, *args),
            InstData::Redux { op, args } => self.redux(*op, res()?, *args),
            InstData::Match { mode, args } => self.match_lanes(*mode, res()?, *args),
            InstData::BarrierRed { op, arg } => self.barrier_red(*op, res()?, *arg),
            InstData::Effect { opcode, arg } => self.effect(*opcode, *arg),
            InstData::IsSpace { space, arg } => self.is_space(*space, res()?, *arg),
            InstData::Accel { op, args } => {
                let (args, results) = (args.clone(), results.to_vec());
                self.accel(*op, &args, &results)
            }
            InstData::InlineAsm { asm, args } => {
                let (asm, args, results) = (asm.clone(), args.clone(), results.to_vec());
                self.inline_asm(&asm, &args, &results)
            }
            InstData::Nullary { opcode } => self.nullary(*opcode),
            InstData::Jump { dest } => {
                let dest = dest.clone();
                self.edge_copies(&dest)?;
                self.branch_to(dest.block, next);
                Ok(())
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let (cond, t, e) = (*cond, then_dest.clone(), else_dest.clone());
                let from = self.func.layout.inst_block(inst).expect("a placed branch");
                self.brif(from, cond, &t, &e, next)
            }
            InstData::Return { args } => {
                let args = args.clone();
                self.ret(&args)
            }
        }
    }

    /// `global_addr`: the variable's symbol in its own space, or converted
    /// to a generic address.
    fn global_addr(&mut self, gv: GlobalVar, r: Value) -> IselResult<()> {
        let g = self
            .module
            .globals
            .get(gv)
            .ok_or(Malformed::UnknownGlobal(gv))?;
        let (name, gspace) = (g.name.clone(), g.space);
        let rspace = self.ty(r).addr_space().unwrap_or(AddrSpace::Generic);
        let dst = self.def(r);
        if rspace == gspace {
            self.mov_address(dst, Operand::Sym(name));
            Ok(())
        } else if rspace == AddrSpace::Generic {
            let space = space_of(gspace)?;
            self.emit(MInst::Cvta {
                to_space: false,
                space,
                dst,
                src: Operand::Sym(name),
            });
            Ok(())
        } else {
            Err(NotSelected::GlobalAddress {
                var: gspace,
                ptr: rspace,
            }
            .into())
        }
    }

    /// A scalar `load` (vector groups are lowered by their first member); a
    /// volatile access to local memory goes through a generic address
    /// (ptxas takes `.volatile.local` only from ISA 9.1).
    fn lower_load(&mut self, ty: Type, ptr: Value, flags: &MemFlags, r: Value) -> IselResult<()> {
        let dst = self.def(r);
        let (space, addr) = self.address(ptr)?;
        let kind = load_kind(flags, space);
        let (space, addr) = if kind == LoadKind::Volatile {
            self.volatile_local_as_generic(space, addr)
        } else {
            (space, addr)
        };
        self.load(space, kind, ty, dst, addr)
    }

    /// A scalar `store`, as [`Isel::lower_load`] for volatile local memory.
    fn lower_store(&mut self, value: Value, ptr: Value, flags: &MemFlags) -> IselResult<()> {
        let (space, addr) = self.address(ptr)?;
        let cache = cache_op(flags, space, false);
        let volatile = cache.is_none() && flags.volatile && volatile_allowed(space);
        let (space, addr) = if volatile {
            self.volatile_local_as_generic(space, addr)
        } else {
            (space, addr)
        };
        self.store_with(space, volatile, cache, value, addr)
    }

    /// A special register read (`%tid.x`, `%clusterid`, ...); the cluster
    /// ones need sm_90.
    fn special_reg(&mut self, reg: SpecialReg, r: Value) -> IselResult<()> {
        if reg.is_cluster() && self.target.sm() < 90 {
            return Err(TargetLacks::ClusterRegister {
                reg,
                target: self.target,
            }
            .into());
        }
        let dst = self.def(r);
        if reg == SpecialReg::ActiveMask {
            self.emit(MInst::Activemask { dst });
        } else if reg == SpecialReg::GridWorkspace {
            self.grid_workspace(dst);
        } else {
            self.mov_address(dst, Operand::Special(reg.name()));
        }
        Ok(())
    }

    // ---- control flow ------------------------------------------------------

    /// `bra` to `target`, unless it is the next block (fall through).
    fn branch_to(&mut self, target: Block, next: Option<Block>) {
        if Some(target) != next {
            self.emit(MInst::Bra {
                guard: None,
                target: block_label(self.func_index, target),
            });
        }
    }

    /// The copies that pass `dest`'s arguments to its block's parameters, in
    /// an order that is safe to run one after another.
    fn parallel_copies(&mut self, dest: &BlockCall) -> IselResult<Vec<Copy>> {
        let params = self.func.dfg.block_params(dest.block).to_vec();
        if params.len() != dest.args.len() {
            return Err(Malformed::BranchArguments(dest.block).into());
        }
        let mut par = Vec::new();
        for (&p, &a) in params.iter().zip(&dest.args) {
            let src = self.operand(a)?;
            par.push(Copy {
                dst: self.def(p),
                src,
            });
        }
        Ok(copies::sequentialize(&par, |like| self.new_reg(like.class)))
    }

    fn edge_copies(&mut self, dest: &BlockCall) -> IselResult<()> {
        for c in self.parallel_copies(dest)? {
            self.mov(c.dst, c.src);
        }
        Ok(())
    }

    /// `brif c, T(..), E(..)`: branch to T when `c`, else fall into E's copies.
    /// When only T's edge needs copies, the branch goes to E when `c` is
    /// false and T's copies follow it. When both need copies, T's go in a
    /// stub after the block, reached only by the taken branch, so they never
    /// run on the E edge.
    fn brif(
        &mut self,
        from: Block,
        cond: Value,
        then_dest: &BlockCall,
        else_dest: &BlockCall,
        next: Option<Block>,
    ) -> IselResult<()> {
        let p = self.reg(cond)?;
        let then_copies = self.parallel_copies(then_dest)?;
        let else_copies = self.parallel_copies(else_dest)?;
        let then_label = block_label(self.func_index, then_dest.block);
        let else_label = block_label(self.func_index, else_dest.block);
        if then_copies.is_empty() && else_copies.is_empty() && Some(then_dest.block) == next {
            // Fall into T; branch to E when `c` is false.
            self.emit(MInst::Bra {
                guard: Some((p, true)),
                target: else_label,
            });
            return Ok(());
        }
        if then_copies.is_empty() {
            // The mirror image of the early copies below: E's copies run
            // before the branch, and T's path overwrites them or never
            // reads them. `v = c ? load : 0` is then `mov v, 0; @!p bra;
            // ld v`, a triangle ptxas predicates, not a diamond of moves.
            let early = !self.domtree.dominates(else_dest.block, then_dest.block)
                && self.copies_fit_before_branch(from, else_dest.block, &else_copies, p);
            if early && Some(then_dest.block) == next {
                for c in else_copies {
                    self.mov(c.dst, c.src);
                }
                self.emit(MInst::Bra {
                    guard: Some((p, true)),
                    target: else_label,
                });
                return Ok(());
            }
            self.emit(MInst::Bra {
                guard: Some((p, false)),
                target: then_label,
            });
            for c in else_copies {
                self.mov(c.dst, c.src);
            }
            self.branch_to(else_dest.block, next);
            return Ok(());
        }
        if else_copies.is_empty() {
            // T's copies may run before the branch when nothing on the way
            // to E reads T's parameters (E is not dominated by T, so no
            // code after E sees them unless it passes T again) and no copy
            // overwrites the predicate. A loop's back edge then reads
            // `copies; @p bra header`, the shape ptxas recognizes.
            let early = self.copies_may_run_early(from, then_dest.block, else_dest.block)
                && self.copies_fit_before_branch(from, then_dest.block, &then_copies, p);
            if early {
                for c in then_copies {
                    self.mov(c.dst, c.src);
                }
                self.two_way_branch(p, (then_dest.block, then_label), else_dest.block, next);
                return Ok(());
            }
            // Else: branch to E when `c` is false, and fall into T's
            // copies (no stub needed).
            self.emit(MInst::Bra {
                guard: Some((p, true)),
                target: else_label,
            });
            for c in then_copies {
                self.mov(c.dst, c.src);
            }
            self.branch_to(then_dest.block, next);
            return Ok(());
        }
        // Both edges have copies. When each side's copies may run early (as
        // above, and neither set reads what the other writes), all run
        // before one branch and no stub is needed: a rotated loop's latch
        // is `exit copies; back-edge copies; @p bra header`.
        let early_then = self.copies_may_run_early(from, then_dest.block, else_dest.block)
            && self.copies_fit_before_branch(from, then_dest.block, &then_copies, p);
        let early_else = self.copies_may_run_early(from, else_dest.block, then_dest.block)
            && self.copies_fit_before_branch(from, else_dest.block, &else_copies, p);
        let writes =
            |cs: &[crate::copies::Copy]| -> FxHashSet<Reg> { cs.iter().map(|c| c.dst).collect() };
        let reads_any = |cs: &[crate::copies::Copy], w: &FxHashSet<Reg>| {
            cs.iter()
                .any(|c| matches!(c.src, Operand::Reg(r) if w.contains(&r)))
        };
        let independent = !reads_any(&then_copies, &writes(&else_copies))
            && !reads_any(&else_copies, &writes(&then_copies))
            && writes(&then_copies).is_disjoint(&writes(&else_copies));
        if early_then && early_else && independent {
            for c in else_copies.into_iter().chain(then_copies) {
                self.mov(c.dst, c.src);
            }
            self.two_way_branch(p, (then_dest.block, then_label), else_dest.block, next);
            return Ok(());
        }
        self.stubs += 1;
        let stub = Label(format!("$L__edge{}_{}", self.func_index, self.stubs));
        self.emit(MInst::Bra {
            guard: Some((p, false)),
            target: stub.clone(),
        });
        for c in else_copies {
            self.mov(c.dst, c.src);
        }
        self.emit(MInst::Bra {
            guard: None,
            target: else_label,
        });
        self.emit(MInst::Label(stub));
        for c in then_copies {
            self.mov(c.dst, c.src);
        }
        self.branch_to(then_dest.block, next);
        Ok(())
    }

    /// Whether the branch in `from` itself allows `copies` (into `dest`'s
    /// parameters) to run before it: none overwrites its predicate `p`,
    /// and `from -> dest` is not a latch that keeps its copies after the
    /// branch ([`Self::copies_after_latch`]). Whether the other path reads
    /// them is the caller's question.
    fn copies_fit_before_branch(
        &self,
        from: Block,
        dest: Block,
        copies: &[crate::copies::Copy],
        p: Reg,
    ) -> bool {
        copies.iter().all(|c| c.dst != p) && !self.copies_after_latch(from, dest)
    }

    /// Whether `from -> dest` is the back edge of a counting loop that
    /// ptxas unrolls by itself: one that steps a counter by 1 and tests it
    /// (`i + 1 < n`), with neither `unroll-runtime`'s `unrolled` mark nor a
    /// `nounroll` hint; `unroll-runtime` left it because its body reads the
    /// counter, or for its size. Its copies then stay after the branch:
    /// `@p bra stub; ...; stub: copies; bra header`, or `@!p bra exit;
    /// copies; bra header`. Given that shape, ptxas peels the first
    /// iteration and loads the parameters from the constant bank once,
    /// before the copies it unrolls; given `copies; @p bra header`, it
    /// loads them in every round. On an H200 the naive matrix product
    /// (`samples/matmul_clamp.cu`) ran in 3.57 ms against 4.13 ms (nvcc's
    /// build: 3.87), while the main loop of `gemv_t`, unrolled by
    /// `unroll-runtime`, ran in 0.285 ms with its copies before the branch
    /// and 0.498 ms after it (docs/performance.md). Grid-stride loops keep
    /// the short form: after the branch, ptxas unrolls them too, and
    /// `saxpy` grew from 25 SASS instructions to 33.
    fn copies_after_latch(&self, from: Block, dest: Block) -> bool {
        self.domtree.dominates(dest, from)
            && !matches!(
                self.func.loop_hints.get(&dest),
                Some(LoopHint::Count(1) | LoopHint::Unrolled)
            )
            && self.func.layout.last_inst(from).is_some_and(|branch| {
                midend::passes::unit_step_counter(self.func, branch, dest)
                    .is_some_and(|(_, _, bound)| self.func.dfg.iconst_value(bound).is_none())
            })
    }

    /// Whether the copies into `dest`'s parameters may run before the
    /// branch in `from`, on the way to `other` too: nothing reached from
    /// `other` reads them before `dest` sets them again. So it is when
    /// `dest` does not dominate `other` (a reader after `other` is dominated
    /// by `dest` and passes it again), and for a back edge `from -> dest`
    /// when `other` is outside that edge's loop (the blocks that reach `from`
    /// without passing `dest`) and every reader of `dest`'s parameters is
    /// inside it: from `other`, a path into the loop enters through `dest`.
    /// (The main loop of `unroll-runtime` leaves to a block it dominates.)
    fn copies_may_run_early(&self, from: Block, dest: Block, other: Block) -> bool {
        if !self.domtree.dominates(dest, other) {
            return true;
        }
        if !self.domtree.dominates(dest, from) {
            return false;
        }
        let mut body: FxHashSet<Block> = [dest, from].into_iter().collect();
        let mut work = vec![from];
        while let Some(b) = work.pop() {
            if b == dest {
                continue;
            }
            for &p in &self.preds[b] {
                if body.insert(p) {
                    work.push(p);
                }
            }
        }
        if body.contains(&other) {
            return false;
        }
        self.func.dfg.block_params(dest).iter().all(|p| {
            self.param_readers
                .get(p)
                .is_none_or(|readers| readers.iter().all(|b| body.contains(b)))
        })
    }

    /// `@p bra T` then on to E (`E` falls through when it comes next), or
    /// `@!p bra E` when T comes next: a branch whose edge copies are done.
    fn two_way_branch(
        &mut self,
        p: Reg,
        (then_block, then_label): (Block, Label),
        else_block: Block,
        next: Option<Block>,
    ) {
        if Some(then_block) == next {
            self.emit(MInst::Bra {
                guard: Some((p, true)),
                target: block_label(self.func_index, else_block),
            });
        } else {
            self.emit(MInst::Bra {
                guard: Some((p, false)),
                target: then_label,
            });
            self.branch_to(else_block, next);
        }
    }

    fn ret(&mut self, args: &[Value]) -> IselResult<()> {
        match args {
            [] => {}
            [v] if !self.func.is_kernel() => {
                let addr = Address {
                    base: AddrBase::Sym("func_retval0".into()),
                    offset: 0,
                };
                self.store(Space::Param, false, *v, addr)?;
            }
            _ => return Err(NotSelected::Return.into()),
        }
        self.emit(MInst::Ret);
        Ok(())
    }

    /// A call to a device function, with nvcc's `.param` sequence:
    /// `{ .param .b64 param0; st.param.b64 [param0], %rd1; .param .b32
    /// retval0; call.uni (retval0), f, (param0); ld.param.f32 %f1, [retval0]; }`.
    /// The braces keep the `param`/`retval` names local to this call.
    fn call(
        &mut self,
        inst: Inst,
        callee: midend::ir::FuncId,
        args: &[Value],
        result: Option<Value>,
    ) -> IselResult<()> {
        let module = self.module;
        let target = module
            .functions
            .get(callee)
            .ok_or(Malformed::CallToUnknown(callee))?;
        if target.attrs.kind == FuncKind::Kernel {
            return Err(NotSelected::CallToKernel {
                callee: target.name.clone(),
            }
            .into());
        }
        if target.signature.params.len() != args.len() {
            return Err(Malformed::CallArguments {
                callee: target.name.clone(),
            }
            .into());
        }
        self.emit(MInst::ScopeOpen);
        let mut names = Vec::new();
        let mut sret = None;
        let mut n = 0;
        for (k, (&a, abi)) in args.iter().zip(&target.signature.params).enumerate() {
            if let Some((size, align)) = abi.attrs.sret {
                sret = Some((a, size, align));
                continue;
            }
            let name = format!("param{n}");
            n += 1;
            if let Some((size, align)) = abi.attrs.byval {
                let direct = self.direct_byval.get(&(inst, k)).cloned();
                self.aggregate_arg(a, direct.as_deref(), &name, (size, align))?;
                names.push(name);
                continue;
            }
            self.emit(MInst::ParamDecl {
                ty: device_param_ty(abi.ty),
                name: name.clone(),
            });
            let addr = Address {
                base: AddrBase::Sym(name.clone()),
                offset: 0,
            };
            self.store(Space::Param, false, a, addr)?;
            names.push(name);
        }
        if let Some((a, size, align)) = sret {
            return self.aggregate_result_call(&target.name, names, a, size, align);
        }
        let ret = match (target.signature.returns.as_slice(), result) {
            ([], _) => None,
            ([ty], Some(r)) => {
                self.emit(MInst::ParamDecl {
                    ty: device_param_ty(*ty),
                    name: "retval0".into(),
                });
                Some((*ty, r))
            }
            _ => {
                return Err(NotSelected::CallResults {
                    callee: target.name.clone(),
                }
                .into())
            }
        };
        self.emit(MInst::Call {
            callee: target.name.clone(),
            ret: ret.map(|_| "retval0".to_string()),
            args: names,
        });
        if let Some((ty, r)) = ret {
            let dst = self.def(r);
            let addr = Address {
                base: AddrBase::Sym("retval0".into()),
                offset: 0,
            };
            self.load(Space::Param, LoadKind::Plain, ty, dst, addr)?;
        }
        self.emit(MInst::ScopeClose);
        Ok(())
    }
}

impl Isel<'_> {
    /// A call through a function address, as nvcc makes it: each argument
    /// and the result in a `.param` of the call's scope, and a
    /// `.callprototype` that gives the callee's ABI (the call reaches an
    /// unknown function, so no `.uni`: lanes may call different ones).
    fn call_indirect(
        &mut self,
        sig: &midend::ir::CallSig,
        args: &[Value],
        result: Option<Value>,
    ) -> IselResult<()> {
        let Some((&callee, args)) = args.split_first() else {
            return Err(Malformed::IndirectCallWithoutCallee.into());
        };
        let callee = self.reg(callee)?;
        self.emit(MInst::ScopeOpen);
        let mut names = Vec::new();
        for (n, (&a, &ty)) in args.iter().zip(&sig.params).enumerate() {
            let name = format!("param{n}");
            self.emit(MInst::ParamDecl {
                ty: device_param_ty(ty),
                name: name.clone(),
            });
            let addr = Address {
                base: AddrBase::Sym(name.clone()),
                offset: 0,
            };
            self.store(Space::Param, false, a, addr)?;
            names.push(name);
        }
        let ret = match (sig.returns.as_slice(), result) {
            ([], _) => None,
            ([ty], r) => {
                self.emit(MInst::ParamDecl {
                    ty: device_param_ty(*ty),
                    name: "retval0".into(),
                });
                Some((*ty, r))
            }
            _ => return Err(NotSelected::IndirectCallResults.into()),
        };
        let proto = format!("prototype_{}", self.prototypes);
        self.prototypes += 1;
        self.emit(MInst::CallPrototype {
            label: proto.clone(),
            ret: ret.map(|(ty, _)| device_param_ty(ty)),
            params: sig.params.iter().map(|&t| device_param_ty(t)).collect(),
        });
        self.emit(MInst::CallIndirect {
            callee,
            ret: ret.map(|_| "retval0".to_string()),
            args: names,
            proto,
        });
        if let Some((ty, Some(r))) = ret {
            let dst = self.def(r);
            let addr = Address {
                base: AddrBase::Sym("retval0".into()),
                offset: 0,
            };
            self.load(Space::Param, LoadKind::Plain, ty, dst, addr)?;
        }
        self.emit(MInst::ScopeClose);
        Ok(())
    }
}

/// The name of the `.local` array of stack slot `n`. `$` cannot appear in a
/// C identifier, so it never clashes with a user's variable.
fn local_symbol(n: u32) -> String {
    format!("$local_ss{n}")
}

/// `volatile` only applies where memory can change under us; ptxas 13.5
/// refuses it on the others on every target and `.version` (`Modifier
/// '.volatile' cannot be applied to '.const' space`, and to `.param`).
fn volatile_allowed(space: Space) -> bool {
    !matches!(space, Space::Const | Space::Param)
}

/// The cache operator of a global access. The frontend marks a
/// cache-hinted access volatile too (CUDA's headers write each as an `asm
/// volatile`, so no pass removes, merges or moves it); the PTX is the
/// hinted form alone (`ld.global.cs`; `ld.volatile` takes no hint).
/// A hint of the other direction (`wb` on a load) is dropped.
fn cache_op(flags: &MemFlags, space: Space, load: bool) -> Option<midend::ir::CacheOp> {
    let fits = |c: &midend::ir::CacheOp| if load { c.on_loads() } else { c.on_stores() };
    flags.cache.filter(|c| space == Space::Global && fits(c))
}

fn load_kind(flags: &MemFlags, space: Space) -> LoadKind {
    if let Some(c) = cache_op(flags, space, true) {
        LoadKind::Cached(c)
    } else if flags.volatile && volatile_allowed(space) {
        LoadKind::Volatile
    } else if flags.invariant && space == Space::Global {
        LoadKind::NonCoherent
    } else {
        LoadKind::Plain
    }
}

/// A float constant as an immediate: f32/f64 by their IEEE bits, f16/bf16 as
/// the 16-bit pattern (only `mov.b16` takes those).
fn float_imm(ty: Type, value: f64) -> IselResult<Operand> {
    Ok(match ty {
        Type::F32 => Operand::F32(midend::ir::f32_const_bits(value)),
        Type::F64 => Operand::F64(value.to_bits()),
        Type::F16 => Operand::Imm(i64::from(f32_to_f16_bits(value as f32))),
        // bf16 is the top half of an f32 (the IR guarantees the value is exact).
        Type::BF16 => Operand::Imm(i64::from((midend::ir::f32_const_bits(value) >> 16) as u16)),
        _ => return Err(NotSelected::FloatConstant(ty).into()),
    })
}

/// IEEE half-precision bits of `x`, which the IR guarantees is exactly
/// representable (so no rounding is needed beyond truncating zero bits).
fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        // Inf or NaN (keep a quiet NaN bit).
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the implicit one in.
        if e < -10 {
            return sign;
        }
        let m = (mant | 0x80_0000) >> (14 - e);
        return sign | m as u16;
    }
    sign | ((e as u16) << 10) | (mant >> 13) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_bits() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(0.0), 0);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
        assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7c00);
        // Smallest subnormal half, 2^-24.
        assert_eq!(f32_to_f16_bits(2f32.powi(-24)), 1);
    }
}
