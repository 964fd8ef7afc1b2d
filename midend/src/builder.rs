//! Building instructions: the [`InstBuilder`] trait gives one method per
//! opcode, and [`FuncCursor`] places what it builds at a position in a function.
//!
//! The SSA builder in [`crate::ssa`] implements the same trait, so the
//! frontend and the passes spell instructions the same way.

use crate::ir::{
    AccelOp, AddrSpace, AtomicOp, BarrierRedOp, Block, BlockCall, CallSig, FloatCC, FuncId,
    Function, GlobalVar, InlineAsm, Inst, InstData, IntCC, MatchMode, MemFlags, MemScope, Opcode,
    ReduxOp, ShuffleMode, SourceSpan, SpecialReg, StackSlot, Type, Value, VoteMode,
};

/// One method per opcode. Implementors only say where an instruction goes
/// ([`InstBuilder::build`]) and how to read value types.
pub trait InstBuilder {
    /// Creates the instruction, places it, and returns it.
    fn build(&mut self, data: InstData, result_types: &[Type]) -> Inst;
    /// The type of an existing value (used to infer result types).
    fn value_type(&self, v: Value) -> Type;
    /// The single result of an instruction just built.
    fn result(&self, inst: Inst) -> Value;
    /// Every result of `inst`, in order (for the multi-result `accel` forms).
    fn results(&self, inst: Inst) -> Vec<Value>;

    fn build_value(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.build(data, &[ty]);
        self.result(inst)
    }

    fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        self.build_value(InstData::Iconst { ty, imm }, ty)
    }
    fn fconst(&mut self, ty: Type, value: f64) -> Value {
        self.build_value(InstData::Fconst { ty, value }, ty)
    }
    /// A unary operation; the result has the operand's type.
    fn unary(&mut self, opcode: Opcode, arg: Value) -> Value {
        let ty = self.value_type(arg);
        self.build_value(InstData::Unary { opcode, arg }, ty)
    }
    /// A binary operation; the result has the first operand's type.
    fn binary(&mut self, opcode: Opcode, a: Value, b: Value) -> Value {
        let ty = self.value_type(a);
        self.build_value(
            InstData::Binary {
                opcode,
                args: [a, b],
            },
            ty,
        )
    }
    fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.binary(Opcode::Iadd, a, b)
    }
    fn isub(&mut self, a: Value, b: Value) -> Value {
        self.binary(Opcode::Isub, a, b)
    }
    fn imul(&mut self, a: Value, b: Value) -> Value {
        self.binary(Opcode::Imul, a, b)
    }
    fn fadd(&mut self, a: Value, b: Value) -> Value {
        self.binary(Opcode::Fadd, a, b)
    }
    fn fmul(&mut self, a: Value, b: Value) -> Value {
        self.binary(Opcode::Fmul, a, b)
    }
    /// `a * b + c`, rounded once.
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        let ty = self.value_type(a);
        let data = InstData::Ternary {
            opcode: Opcode::Fma,
            args: [a, b, c],
        };
        self.build_value(data, ty)
    }
    /// `fma` or one of its explicitly rounded forms (`fma_rz`, ...).
    fn fma_op(&mut self, opcode: Opcode, a: Value, b: Value, c: Value) -> Value {
        let ty = self.value_type(a);
        let data = InstData::Ternary {
            opcode,
            args: [a, b, c],
        };
        self.build_value(data, ty)
    }
    /// `if c { a } else { b }`.
    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.value_type(a);
        let data = InstData::Ternary {
            opcode: Opcode::Select,
            args: [c, a, b],
        };
        self.build_value(data, ty)
    }
    fn icmp(&mut self, cond: IntCC, a: Value, b: Value) -> Value {
        self.build_value(InstData::IntCompare { cond, args: [a, b] }, Type::I1)
    }
    fn fcmp(&mut self, cond: FloatCC, a: Value, b: Value) -> Value {
        self.build_value(InstData::FloatCompare { cond, args: [a, b] }, Type::I1)
    }
    /// A conversion (`sext`, `fptosi`, `bitcast`, ...) to `ty`.
    fn convert(&mut self, opcode: Opcode, ty: Type, arg: Value) -> Value {
        self.build_value(InstData::Convert { opcode, ty, arg }, ty)
    }
    /// `ptr + offset` bytes; the result keeps the pointer's type and space.
    fn ptroffset(&mut self, ptr: Value, offset: Value) -> Value {
        self.binary(Opcode::PtrOffset, ptr, offset)
    }
    fn addrspacecast(&mut self, to: AddrSpace, arg: Value) -> Value {
        self.build_value(InstData::AddrSpaceCast { to, arg }, Type::Ptr(to))
    }
    /// The address of a module variable living in `space`.
    fn global_addr(&mut self, space: AddrSpace, gv: GlobalVar) -> Value {
        self.build_value(InstData::GlobalAddr { gv }, Type::Ptr(space))
    }
    fn stack_addr(&mut self, slot: StackSlot) -> Value {
        self.build_value(InstData::StackAddr { slot }, Type::Ptr(AddrSpace::Local))
    }
    fn load(&mut self, ty: Type, ptr: Value, flags: MemFlags) -> Value {
        self.build_value(InstData::Load { ty, ptr, flags }, ty)
    }
    fn store(&mut self, value: Value, ptr: Value, flags: MemFlags) -> Inst {
        self.build(InstData::Store { value, ptr, flags }, &[])
    }
    /// A call; `returns` are the callee's return types.
    fn call(&mut self, func: FuncId, args: Vec<Value>, returns: &[Type]) -> Inst {
        self.build(InstData::Call { func, args }, returns)
    }
    /// A call through the function address `callee` (an `i64`), whose
    /// callee has the signature `sig`.
    fn call_indirect(&mut self, sig: CallSig, callee: Value, args: Vec<Value>) -> Inst {
        let returns = sig.returns.clone();
        let mut operands = Vec::with_capacity(args.len() + 1);
        operands.push(callee);
        operands.extend(args);
        let data = InstData::CallIndirect {
            sig: Box::new(sig),
            args: operands,
        };
        self.build(data, &returns)
    }
    /// The address of `func`, for an indirect call.
    fn func_addr(&mut self, func: FuncId) -> Value {
        self.build_value(InstData::FuncAddr { func }, Type::I64)
    }
    fn special(&mut self, reg: SpecialReg) -> Value {
        self.build_value(InstData::SpecialReg { reg }, reg.ty())
    }
    fn barrier(&mut self) -> Inst {
        let data = InstData::Nullary {
            opcode: Opcode::Barrier,
        };
        self.build(data, &[])
    }
    /// The grid-wide barrier (`grid_group::sync()`).
    fn grid_barrier(&mut self) -> Inst {
        let data = InstData::Nullary {
            opcode: Opcode::GridBarrier,
        };
        self.build(data, &[])
    }
    fn trap(&mut self) -> Inst {
        self.build(
            InstData::Nullary {
                opcode: Opcode::Trap,
            },
            &[],
        )
    }
    /// Atomic read-modify-write of `value` at `ptr`; gives the old value.
    fn atomic_rmw(&mut self, op: AtomicOp, scope: MemScope, ptr: Value, value: Value) -> Value {
        let ty = self.value_type(value);
        let data = InstData::AtomicRmw {
            op,
            scope,
            args: [ptr, value],
        };
        self.build_value(data, ty)
    }
    /// Atomic compare-and-swap at `ptr`; gives the old value.
    fn atomic_cas(&mut self, scope: MemScope, ptr: Value, expected: Value, new: Value) -> Value {
        let ty = self.value_type(expected);
        let data = InstData::AtomicCas {
            scope,
            args: [ptr, expected, new],
        };
        self.build_value(data, ty)
    }
    /// Atomic read-modify-write of the vector `elems` at `ptr`, element by
    /// element; gives the old elements.
    fn atomic_vec(
        &mut self,
        op: AtomicOp,
        scope: MemScope,
        ptr: Value,
        elems: &[Value],
    ) -> Vec<Value> {
        let types: Vec<Type> = elems.iter().map(|&e| self.value_type(e)).collect();
        let mut args = vec![ptr];
        args.extend_from_slice(elems);
        let inst = self.build(InstData::AtomicVec { op, scope, args }, &types);
        self.results(inst)
    }
    fn fence(&mut self, scope: MemScope) -> Inst {
        self.build(InstData::Fence { scope }, &[])
    }
    /// `shfl.sync` of `value`; `lane` is the lane, delta or xor mask by `mode`.
    fn shuffle(
        &mut self,
        mode: ShuffleMode,
        value: Value,
        lane: Value,
        clamp: Value,
        mask: Value,
    ) -> Value {
        let ty = self.value_type(value);
        let data = InstData::Shuffle {
            mode,
            args: [value, lane, clamp, mask],
        };
        self.build_value(data, ty)
    }
    fn vote(&mut self, mode: VoteMode, pred: Value, mask: Value) -> Value {
        let ty = if mode == VoteMode::Ballot {
            Type::I32
        } else {
            Type::I1
        };
        self.build_value(
            InstData::Vote {
                mode,
                args: [pred, mask],
            },
            ty,
        )
    }
    /// `redux.sync`: `op` over the `i32` `value`s of the lanes in `mask`.
    fn redux(&mut self, op: ReduxOp, value: Value, mask: Value) -> Value {
        let data = InstData::Redux {
            op,
            args: [value, mask],
        };
        self.build_value(data, Type::I32)
    }
    /// `match.sync`: the lanes of `mask` whose `i32` or `i64` `value`
    /// matches this lane's, as [`MatchMode`] says.
    fn match_lanes(&mut self, mode: MatchMode, value: Value, mask: Value) -> Value {
        let data = InstData::Match {
            mode,
            args: [value, mask],
        };
        self.build_value(data, Type::I32)
    }
    fn barrier_red(&mut self, op: BarrierRedOp, pred: Value) -> Value {
        let ty = if op == BarrierRedOp::Popc {
            Type::I32
        } else {
            Type::I1
        };
        self.build_value(InstData::BarrierRed { op, arg: pred }, ty)
    }
    fn warp_sync(&mut self, mask: Value) -> Inst {
        let data = InstData::Effect {
            opcode: Opcode::WarpSync,
            arg: mask,
        };
        self.build(data, &[])
    }
    fn nanosleep(&mut self, ns: Value) -> Inst {
        let data = InstData::Effect {
            opcode: Opcode::Nanosleep,
            arg: ns,
        };
        self.build(data, &[])
    }
    /// An async-copy, mbarrier or tensor-core operation; returns its
    /// results (none, one, or a whole fragment).
    fn accel(&mut self, op: AccelOp, args: Vec<Value>) -> Vec<Value> {
        let types = op.result_types();
        let inst = self.build(InstData::Accel { op, args }, &types);
        self.results(inst)
    }
    /// Inline PTX; returns one value per output.
    fn inline_asm(&mut self, asm: InlineAsm, args: Vec<Value>) -> Vec<Value> {
        let types = asm.result_types();
        let asm = Box::new(asm);
        let inst = self.build(InstData::InlineAsm { asm, args }, &types);
        self.results(inst)
    }
    fn is_space(&mut self, space: AddrSpace, ptr: Value) -> Value {
        self.build_value(InstData::IsSpace { space, arg: ptr }, Type::I1)
    }
    fn jump(&mut self, block: Block, args: Vec<Value>) -> Inst {
        let dest = BlockCall::new(block, args);
        self.build(InstData::Jump { dest }, &[])
    }
    fn brif(
        &mut self,
        cond: Value,
        then_block: Block,
        then_args: Vec<Value>,
        else_block: Block,
        else_args: Vec<Value>,
    ) -> Inst {
        let data = InstData::Brif {
            cond,
            then_dest: BlockCall::new(then_block, then_args),
            else_dest: BlockCall::new(else_block, else_args),
        };
        self.build(data, &[])
    }
    fn ret(&mut self, args: Vec<Value>) -> Inst {
        self.build(InstData::Return { args }, &[])
    }
}

/// Where a [`FuncCursor`] puts the next instruction.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CursorPosition {
    /// At the end of a block.
    AtEnd(Block),
    /// Just before an instruction.
    Before(Inst),
}

/// Inserts instructions into a function at a moving position. Passes use it.
pub struct FuncCursor<'f> {
    pub func: &'f mut Function,
    pub pos: CursorPosition,
    /// The source span every new instruction gets (none: the default).
    pub span: Option<SourceSpan>,
}

impl<'f> FuncCursor<'f> {
    pub fn at_end(func: &'f mut Function, block: Block) -> Self {
        FuncCursor {
            func,
            pos: CursorPosition::AtEnd(block),
            span: None,
        }
    }

    pub fn before(func: &'f mut Function, inst: Inst) -> Self {
        FuncCursor {
            func,
            pos: CursorPosition::Before(inst),
            span: None,
        }
    }

    /// Before `inst`, with `inst`'s source span on every new instruction
    /// (what a pass that expands or rewrites `inst` wants).
    pub fn before_with_span(func: &'f mut Function, inst: Inst) -> Self {
        let span = func.spans[inst];
        FuncCursor {
            func,
            pos: CursorPosition::Before(inst),
            span: Some(span),
        }
    }
}

impl InstBuilder for FuncCursor<'_> {
    fn build(&mut self, data: InstData, result_types: &[Type]) -> Inst {
        let inst = self.func.dfg.make_inst(data, result_types);
        match self.pos {
            CursorPosition::AtEnd(block) => self.func.layout.append_inst(inst, block),
            CursorPosition::Before(at) => self.func.layout.insert_inst_before(inst, at),
        }
        if let Some(span) = self.span {
            self.func.spans[inst] = span;
        }
        inst
    }
    fn value_type(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }
    fn result(&self, inst: Inst) -> Value {
        self.func.dfg.first_result(inst).expect("no result")
    }
    fn results(&self, inst: Inst) -> Vec<Value> {
        self.func.dfg.inst_results(inst).to_vec()
    }
}
