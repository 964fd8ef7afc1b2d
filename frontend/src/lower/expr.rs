//! Lowering expressions.
//!
//! Three entry points: [`FunctionLowerer::expr`] computes a value,
//! [`FunctionLowerer::bool_value`] computes a condition as an `i1`, and
//! [`FunctionLowerer::branch_on`] turns a condition straight into branches,
//! so `if (a && b)` needs no 0/1 value at all.

use super::{abi_type, value_type, FunctionLowerer};
use crate::codes::Code;
use crate::typed::{
    BinOp, BuiltinVar, CastKind, CmpOp, Dim, Expr, ExprKind, LocalId, LogicalOp, Place, UnOp,
};
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{
    AddrSpace, Block, FloatCC, FuncId, IntCC, MemFlags, Opcode, SpecialReg, Type, Value,
};

/// Where an assignment or increment stores.
pub(super) enum PlaceRef {
    Var(LocalId),
    /// Memory at `ptr`, holding a value of the C type of the place.
    Mem {
        ptr: Value,
        flags: MemFlags,
    },
}

/// Whether the pointer type `ty` points to `volatile` memory.
fn points_to_volatile(ty: &CType) -> bool {
    matches!(
        ty,
        CType::Pointer {
            pointee_volatile: true,
            ..
        }
    )
}

fn is_signed(ty: &CType) -> bool {
    matches!(ty, CType::Int { signed: true, .. })
}

/// `offset` as the widening of a signed, narrower binary expression:
/// `(inner, op, lhs, rhs)` where `inner` is `lhs op rhs`.
fn widened_signed_binary(offset: &Expr) -> Option<(&Expr, BinOp, &Expr, &Expr)> {
    let ExprKind::Cast {
        kind: CastKind::IntToInt,
        expr: inner,
    } = &offset.kind
    else {
        return None;
    };
    if !is_signed(&inner.ty) || inner.ty.size()? >= offset.ty.size()? {
        return None;
    }
    let ExprKind::Binary { op, lhs, rhs } = &inner.kind else {
        return None;
    };
    Some((inner, *op, lhs, rhs))
}

/// `offset` as a widened signed 32-bit (or narrower) `rest + k` or `rest -
/// k` with a constant `k`: the operand and the constant (negated for `-`).
fn signed_constant_addend(offset: &Expr) -> Option<(&Expr, i64)> {
    let (inner, op, lhs, rhs) = widened_signed_binary(offset)?;
    let constant = |e: &Expr| match e.kind {
        ExprKind::IntConst(k) => i64::try_from(k).ok().filter(|k| k.unsigned_abs() < 1 << 31),
        _ => None,
    };
    match op {
        BinOp::Add => match (constant(lhs), constant(rhs)) {
            (_, Some(k)) => Some((lhs, k)),
            (Some(k), None) => Some((rhs, k)),
            _ => None,
        },
        BinOp::Sub => constant(rhs).map(|k| (lhs, -k)),
        _ => None,
    }
    .filter(|(rest, _)| rest.ty == inner.ty)
}

/// A widened signed index `a + k` (or `k + a`) whose `k` is one of the
/// `for` counters being lowered: `(a, k)`. As with a constant addend, the
/// sum cannot overflow (C leaves that undefined), so its widening is the sum
/// of the widened parts, and `p[a + k]` is `(p + sext(a) * size) + sext(k) *
/// size`. Once `unroll` makes `k` a constant in each copy, every access
/// shares the address `p + sext(a) * size` plus a constant that the memory
/// instruction takes as its displacement (nvcc's `[%rd4+12]`); where the loop
/// stays, `p + sext(a) * size` is loop-invariant and leaves it. Split only
/// for counters: for other variables the one 32-bit add is cheaper.
fn signed_variable_addend<'e>(
    offset: &'e Expr,
    counters: &[LocalId],
) -> Option<(&'e Expr, &'e Expr)> {
    let (inner, op, lhs, rhs) = widened_signed_binary(offset)?;
    if op != BinOp::Add {
        return None;
    }
    let counter_term = |e: &Expr| is_counter(e, counters) || counter_product(e, counters).is_some();
    let (rest, k) = if counter_term(rhs) {
        (lhs, rhs)
    } else if counter_term(lhs) {
        (rhs, lhs)
    } else {
        return None;
    };
    (rest.ty == inner.ty && k.ty == inner.ty).then_some((rest, k))
}

/// `offset` as a widened signed counter product `k * f` (`p[2 * c]`): the
/// product, which `widen_signed_term` widens part by part.
fn widened_counter_product<'e>(offset: &'e Expr, counters: &[LocalId]) -> Option<&'e Expr> {
    let (inner, op, _, _) = widened_signed_binary(offset)?;
    (op == BinOp::Mul && counter_product(inner, counters).is_some()).then_some(inner)
}

/// Whether `e` reads one of the `for` counters being lowered.
fn is_counter(e: &Expr, counters: &[LocalId]) -> bool {
    stdx::stack::with_stack(|| matches!(e.kind, ExprKind::Local(id) if counters.contains(&id)))
}

/// `e` as `k * f` or `f * k` with `k` one of the `for` counters and `f`
/// of the same signed type: `(k, f)`. In an index `a + k * f` (a row
/// `k` of width `f`), the product cannot overflow either, so its widening
/// is `sext(k) * sext(f)`: a multiple of the counter, which
/// `strength-reduce` turns into a pointer stepped by `f * size`.
fn counter_product<'e>(e: &'e Expr, counters: &[LocalId]) -> Option<(&'e Expr, &'e Expr)> {
    let ExprKind::Binary {
        op: BinOp::Mul,
        lhs,
        rhs,
    } = &e.kind
    else {
        return None;
    };
    if !is_signed(&e.ty) {
        return None;
    }
    let (k, f) = if is_counter(lhs, counters) {
        (lhs, rhs)
    } else if is_counter(rhs, counters) {
        (rhs, lhs)
    } else {
        return None;
    };
    (k.ty == e.ty && f.ty == e.ty).then_some((&**k, &**f))
}

/// The right operand of a compound assignment's `value`, written by sema as
/// `TargetValue op r` under conversions; `None` for other shapes (pointer
/// steps), which keep their left-to-right order.
fn compound_operand(value: &Expr) -> Option<&Expr> {
    let mut e = value;
    while let ExprKind::Cast { kind, expr } = &e.kind {
        if *kind == CastKind::ToBool {
            return None;
        }
        e = expr;
    }
    let ExprKind::Binary { lhs, rhs, .. } = &e.kind else {
        return None;
    };
    let mut l = &**lhs;
    while let ExprKind::Cast { expr, .. } = &l.kind {
        l = expr;
    }
    matches!(l.kind, ExprKind::TargetValue).then_some(&**rhs)
}

/// Whether evaluating `e` is cheap and cannot fault or have effects, so both
/// arms of a `?:` may be computed and a `select` used instead of branches.
fn is_speculatable(e: &Expr, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    let ok = |e: &Expr| is_speculatable(e, depth + 1);
    match &e.kind {
        ExprKind::IntConst(_)
        | ExprKind::FloatConst(_)
        | ExprKind::Local(_)
        | ExprKind::Builtin(..) => true,
        ExprKind::Unary { operand, .. } | ExprKind::Not(operand) => ok(operand),
        ExprKind::Cast { kind, expr } => *kind != CastKind::ToVoid && ok(expr),
        ExprKind::Binary { op, lhs, rhs } => {
            !matches!(op, BinOp::Div | BinOp::Rem) && ok(lhs) && ok(rhs)
        }
        ExprKind::Compare { lhs, rhs, .. } => ok(lhs) && ok(rhs),
        ExprKind::Ternary { cond, then, els } => ok(cond) && ok(then) && ok(els),
        _ => false,
    }
}

impl FunctionLowerer<'_, '_> {
    /// The value of a non-void expression.
    pub(crate) fn expr(&mut self, e: &Expr) -> Value {
        match self.eval(e) {
            Some(v) => v,
            None => {
                self.error(e.span, Code::E0099, "a `void` expression has no value");
                self.zero(Type::I32)
            }
        }
    }

    /// Evaluates `e`; `None` for `void` expressions.
    pub(crate) fn eval(&mut self, e: &Expr) -> Option<Value> {
        if let Some(entry) = self.ready.iter_mut().rev().find(|r| std::ptr::eq(r.0, e)) {
            entry.2 = true;
            return Some(entry.1);
        }
        // Every level of an expression passes here, on a stack that grows
        // as deep as the tree nests (`stack.rs`).
        stdx::stack::with_stack(|| self.with_span(e.span, |lw| lw.eval_inner(e)))
    }

    fn eval_inner(&mut self, e: &Expr) -> Option<Value> {
        let v = match &e.kind {
            ExprKind::IntConst(n) => self.b.iconst(value_type(&e.ty), *n as i64),
            ExprKind::FloatConst(x) => self.b.fconst(value_type(&e.ty), *x),
            ExprKind::Str(bytes) => self.string_address(bytes),
            ExprKind::Local(l) => match self.slot(*l) {
                Some(slot) => {
                    let p = self.b.stack_addr(slot);
                    self.load(p, &e.ty, MemFlags::default())
                }
                None => self.b.use_var(Self::var(*l)),
            },
            ExprKind::Global(g) => {
                let p = self.global_address(*g);
                self.load(p, &e.ty, MemFlags::default())
            }
            ExprKind::AddrOf(place) => self.address_of(place),
            ExprKind::Builtin(var, dim) => self.b.special(special_reg(*var, *dim)),
            ExprKind::Unary { op, operand } => {
                let x = self.expr(operand);
                let opcode = match (op, e.ty.is_float()) {
                    (UnOp::Neg, true) => Opcode::Fneg,
                    (UnOp::Neg, false) => Opcode::Ineg,
                    (UnOp::BitNot, _) => Opcode::Bnot,
                };
                self.b.unary(opcode, x)
            }
            ExprKind::Not(_) | ExprKind::Compare { .. } | ExprKind::Logical { .. } => {
                let c = self.bool_value(e);
                self.b.convert(Opcode::Zext, value_type(&e.ty), c)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs), self.expr(rhs));
                self.binary(*op, &e.ty, a, b)
            }
            ExprKind::Assign { target, op, value } => {
                self.assign(target, op.is_some(), value, &e.ty)
            }
            ExprKind::TargetValue => match self.target_values.last() {
                Some(&v) => v,
                None => {
                    self.error(
                        e.span,
                        Code::E0099,
                        "internal: target value outside an assignment",
                    );
                    self.zero(value_type(&e.ty))
                }
            },
            ExprKind::IncDec {
                target,
                pre,
                new_value,
                ..
            } => {
                let place = self.place(target);
                let old = self.read(&place, &e.ty);
                self.target_values.push(old);
                let new = self.expr(new_value);
                self.target_values.pop();
                let new = self.write(&place, new, &e.ty);
                if *pre {
                    new
                } else {
                    old
                }
            }
            ExprKind::Ternary { cond, then, els } => return self.ternary(cond, then, els, &e.ty),
            ExprKind::Cast { kind, expr } => return self.cast(*kind, expr, &e.ty),
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let flags = self.flags_for(base);
                let ptr = self.element_address(base, index, *elem_size);
                self.load(ptr, &e.ty, flags)
            }
            ExprKind::Deref(ptr) => {
                let flags = self.flags_for(ptr);
                let p = self.expr(ptr);
                self.load(p, &e.ty, flags)
            }
            ExprKind::PtrAdd {
                ptr,
                offset,
                elem_size,
            } => self.element_address(ptr, offset, *elem_size),
            ExprKind::PtrSub {
                ptr,
                offset,
                elem_size,
            } => {
                let p = self.expr(ptr);
                let scaled = self.scaled_offset(offset, *elem_size);
                let neg = self.b.unary(Opcode::Ineg, scaled);
                self.b.ptroffset(p, neg)
            }
            ExprKind::PtrDiff {
                lhs,
                rhs,
                elem_size,
            } => {
                let (a, b) = self.common_pointers(lhs, rhs);
                let a = self.b.convert(Opcode::Ptrtoint, Type::I64, a);
                let b = self.b.convert(Opcode::Ptrtoint, Type::I64, b);
                let bytes = self.b.isub(a, b);
                let size = self.b.iconst(Type::I64, *elem_size as i64);
                let v = self.b.binary(Opcode::Sdiv, bytes, size);
                self.int_resize(v, &CType::LONG, &e.ty)
            }
            ExprKind::Call { callee, args, .. } => return self.call(*callee, args, &e.ty),
            ExprKind::FuncAddr { callee, .. } => self.b.func_addr(FuncId::from_u32(callee.0)),
            ExprKind::CallIndirect { callee, args } => {
                return self.call_indirect(callee, args, &e.ty)
            }
            ExprKind::SyncThreads => {
                self.b.barrier();
                return None;
            }
            ExprKind::Intrinsic { op, args } => return self.intrinsic(*op, args, &e.ty),
            ExprKind::Comma { lhs, rhs } => {
                self.eval(lhs);
                return self.eval(rhs);
            }
            ExprKind::Field { base, offset } => {
                let p = self.field_address(base, *offset);
                self.load(p, &e.ty, MemFlags::default())
            }
            ExprKind::StructLit(fields) => self.struct_lit(fields, &e.ty),
        };
        Some(v)
    }

    fn binary(&mut self, op: BinOp, ty: &CType, a: Value, b: Value) -> Value {
        let opcode = if ty.is_float() {
            match op {
                BinOp::Add => Opcode::Fadd,
                BinOp::Sub => Opcode::Fsub,
                BinOp::Mul => Opcode::Fmul,
                // Sema rejects `%`, shifts and bitwise operators on floats.
                _ => Opcode::Fdiv,
            }
        } else {
            let signed = is_signed(ty);
            match op {
                BinOp::Add => Opcode::Iadd,
                BinOp::Sub => Opcode::Isub,
                BinOp::Mul => Opcode::Imul,
                BinOp::Div if signed => Opcode::Sdiv,
                BinOp::Div => Opcode::Udiv,
                BinOp::Rem if signed => Opcode::Srem,
                BinOp::Rem => Opcode::Urem,
                BinOp::Shl => Opcode::Ishl,
                BinOp::Shr if signed => Opcode::Sshr,
                BinOp::Shr => Opcode::Ushr,
                BinOp::BitAnd => Opcode::Band,
                BinOp::BitOr => Opcode::Bor,
                BinOp::BitXor => Opcode::Bxor,
            }
        };
        self.b.binary(opcode, a, b)
    }

    /// `base + index * elem_size`.
    fn element_address(&mut self, base: &Expr, index: &Expr, elem_size: u64) -> Value {
        let p = self.expr(base);
        let off = self.scaled_offset(index, elem_size);
        self.b.ptroffset(p, off)
    }

    /// `offset * elem_size` as an `i64` byte count (the offset is already 64-bit).
    ///
    /// A signed index with a constant addend, `p[8 * i + 3]` (a widened
    /// `int`), is `(sext(8 * i) + 3) * size`: C makes signed overflow
    /// undefined, so `8 * i + 3` does not wrap and its widening is the sum of
    /// the widened parts. Written that way, every `p[8 * i + k]` shares the
    /// address `p + sext(8 * i) * size` and adds a constant, which the
    /// backend puts in the address immediate (`st.global [%rd5+12]`), as
    /// nvcc does. (An `unsigned` index may wrap, so it is left alone.)
    fn scaled_offset(&mut self, offset: &Expr, elem_size: u64) -> Value {
        if let Some((rest, k)) = signed_constant_addend(offset) {
            let wide = self.widen_signed_term(rest);
            let scaled = self.scale(wide, elem_size);
            let bytes = self.b.iconst(Type::I64, k.wrapping_mul(elem_size as i64));
            return self.b.iadd(scaled, bytes);
        }
        if let Some((rest, counter)) = signed_variable_addend(offset, &self.counters) {
            let parts = [rest, counter].map(|e| {
                let wide = self.widen_signed_term(e);
                self.scale(wide, elem_size)
            });
            return self.b.iadd(parts[0], parts[1]);
        }
        if let Some(product) = widened_counter_product(offset, &self.counters) {
            let wide = self.widen_signed_term(product);
            return self.scale(wide, elem_size);
        }
        let off = self.expr(offset);
        let off = self.coerce(off, Type::I64);
        self.scale(off, elem_size)
    }

    /// A signed `int` term of an index, widened to `i64`: `sext(e)`, or
    /// `sext(k) * sext(f)` for a counter product `k * f` (which cannot
    /// overflow, C leaving that undefined).
    fn widen_signed_term(&mut self, e: &Expr) -> Value {
        let Some((k, f)) = counter_product(e, &self.counters) else {
            let v = self.expr(e);
            return self.b.convert(Opcode::Sext, Type::I64, v);
        };
        let k = self.expr(k);
        let f = self.expr(f);
        let k = self.b.convert(Opcode::Sext, Type::I64, k);
        let f = self.b.convert(Opcode::Sext, Type::I64, f);
        self.b.imul(k, f)
    }

    /// `wide * elem_size` (an `i64` count of elements as bytes).
    fn scale(&mut self, wide: Value, elem_size: u64) -> Value {
        if elem_size == 1 {
            return wide;
        }
        let size = self.b.iconst(Type::I64, elem_size as i64);
        self.b.imul(wide, size)
    }

    fn flags_for(&self, pointer: &Expr) -> MemFlags {
        MemFlags {
            volatile: points_to_volatile(&pointer.ty),
            ..MemFlags::default()
        }
    }

    /// Loads a value of C type `ty` (bools are bytes in memory).
    pub(crate) fn load(&mut self, ptr: Value, ty: &CType, flags: MemFlags) -> Value {
        if ty.is_struct() {
            // A struct's value is its address; users copy from there.
            return ptr;
        }
        let v = self.b.load(abi_type(ty), ptr, flags);
        if *ty == CType::Bool {
            self.byte_to_bool(v)
        } else {
            v
        }
    }

    pub(crate) fn byte_to_bool(&mut self, v: Value) -> Value {
        let zero = self.b.iconst(self.b.value_type(v), 0);
        self.b.icmp(IntCC::Ne, v, zero)
    }

    /// The address of a place, in the space the frontend knows it is in.
    fn address_of(&mut self, place: &Place) -> Value {
        match self.place(place) {
            PlaceRef::Mem { ptr, .. } => ptr,
            PlaceRef::Var(l) => {
                // Sema puts every address-taken local in memory.
                let span = self.typed.locals[l.0 as usize].span;
                self.error(
                    span,
                    Code::E0099,
                    "internal: address of a register variable",
                );
                self.zero(Type::Ptr(AddrSpace::Generic))
            }
        }
    }

    pub(super) fn place(&mut self, target: &Place) -> PlaceRef {
        match target {
            Place::Local(l) => match self.slot(*l) {
                Some(slot) => PlaceRef::Mem {
                    ptr: self.b.stack_addr(slot),
                    flags: MemFlags::default(),
                },
                // A struct parameter's variable holds the address of the
                // caller's copy.
                None if self.typed.locals[l.0 as usize].ty.is_struct() => PlaceRef::Mem {
                    ptr: self.b.use_var(Self::var(*l)),
                    flags: MemFlags::default(),
                },
                None => PlaceRef::Var(*l),
            },
            Place::Field { base, offset } => PlaceRef::Mem {
                ptr: self.field_address(base, *offset),
                flags: MemFlags::default(),
            },
            Place::Global(g) => PlaceRef::Mem {
                ptr: self.global_address(*g),
                flags: MemFlags::default(),
            },
            Place::Deref(ptr) => {
                let flags = self.flags_for(ptr);
                PlaceRef::Mem {
                    ptr: self.expr(ptr),
                    flags,
                }
            }
            Place::Index {
                base,
                index,
                elem_size,
            } => {
                let flags = self.flags_for(base);
                PlaceRef::Mem {
                    ptr: self.element_address(base, index, *elem_size),
                    flags,
                }
            }
        }
    }

    fn read(&mut self, place: &PlaceRef, ty: &CType) -> Value {
        match place {
            PlaceRef::Var(l) => self.b.use_var(Self::var(*l)),
            PlaceRef::Mem { ptr, flags } => self.load(*ptr, ty, flags.clone()),
        }
    }

    /// Stores `v` into the place; returns the value as stored (after conversion).
    pub(super) fn write(&mut self, place: &PlaceRef, v: Value, ty: &CType) -> Value {
        match place {
            PlaceRef::Var(l) => {
                let v = self.coerce(v, self.var_type(*l));
                self.b.def_var(Self::var(*l), v);
                v
            }
            PlaceRef::Mem { ptr, .. } if ty.is_struct() => {
                self.copy_struct(*ptr, v, ty);
                *ptr
            }
            PlaceRef::Mem { ptr, flags } => {
                let v = self.coerce(v, value_type(ty));
                let stored = self.coerce(v, abi_type(ty));
                self.b.store(stored, *ptr, flags.clone());
                v
            }
        }
    }

    fn assign(&mut self, target: &Place, compound: bool, value: &Expr, ty: &CType) -> Value {
        if !compound {
            let place = self.place(target);
            let v = self.expr(value);
            return self.write(&place, v, ty);
        }
        // C leaves the order of the two operands open. As clang does, the
        // right operand of `t op= r` is computed first and the target's
        // address and old value after it: a load issued before a long
        // right-hand side (a division, a square root: code with branches
        // that ptxas does not move loads across) would stay live across it.
        let operand = compound_operand(value).filter(|_| *ty != CType::Bool);
        if let Some(r) = operand {
            let v = self.expr(r);
            self.ready.push((r as *const Expr, v, false));
        }
        let place = self.place(target);
        let old = self.read(&place, ty);
        self.target_values.push(old);
        let v = self.expr(value);
        self.target_values.pop();
        if operand.is_some() {
            let (_, _, used) = self.ready.pop().expect("pushed above");
            debug_assert!(used, "a compound assignment's operand was not reused");
        }
        self.write(&place, v, ty)
    }

    fn ternary(&mut self, cond: &Expr, then: &Expr, els: &Expr, ty: &CType) -> Option<Value> {
        let result_ty = value_type(ty);
        if ty.is_struct() {
            return Some(self.struct_ternary(cond, then, els, ty, result_ty));
        }
        if *ty != CType::Void && is_speculatable(then, 0) && is_speculatable(els, 0) {
            let c = self.bool_value(cond);
            let a = self.expr(then);
            let a = self.coerce(a, result_ty);
            let b = self.expr(els);
            let b = self.coerce(b, result_ty);
            return Some(self.b.select(c, a, b));
        }
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        let join = self.b.create_block();
        let result = (*ty != CType::Void).then(|| self.b.append_block_param(join, result_ty));
        self.branch_on(cond, then_block, else_block);
        for (block, arm) in [(then_block, then), (else_block, els)] {
            self.b.seal_block(block);
            self.b.switch_to_block(block);
            let args = match result {
                Some(_) => {
                    let v = self.expr(arm);
                    vec![self.coerce(v, result_ty)]
                }
                None => {
                    self.eval(arm);
                    vec![]
                }
            };
            self.b.jump(join, args);
        }
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        result
    }

    /// A struct-valued `c ? a : b`: each arm copies its struct into one
    /// temporary, whose address is the value. (Choosing between the two
    /// arms' addresses instead would join, say, a global element and a
    /// local one into one pointer, which only a generic access can read.)
    fn struct_ternary(
        &mut self,
        cond: &Expr,
        then: &Expr,
        els: &Expr,
        ty: &CType,
        result_ty: Type,
    ) -> Value {
        let tmp = self.temp_struct(ty);
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        let join = self.b.create_block();
        self.branch_on(cond, then_block, else_block);
        for (block, arm) in [(then_block, then), (else_block, els)] {
            self.b.seal_block(block);
            self.b.switch_to_block(block);
            let v = self.expr(arm);
            self.copy_struct(tmp, v, ty);
            self.b.jump(join, vec![]);
        }
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        self.coerce(tmp, result_ty)
    }

    fn call(&mut self, callee: crate::typed::FuncId, args: &[Expr], ty: &CType) -> Option<Value> {
        let sig = self.signatures[callee.0 as usize].clone();
        let mut values = Vec::with_capacity(args.len() + 1);
        // A struct result is written to a temporary the caller provides.
        let sret = ty.is_struct().then(|| self.temp_struct(ty));
        if let Some(tmp) = sret {
            values.push(self.coerce(tmp, Type::Ptr(AddrSpace::Generic)));
        }
        let params = sig.params.iter().skip(usize::from(sret.is_some()));
        for (arg, param) in args.iter().zip(params) {
            // A struct argument is the address of the caller's object: the
            // call copies its bytes into the callee's `.param` array.
            let v = self.expr(arg);
            values.push(self.coerce(v, param.ty));
        }
        let inst = self
            .b
            .call(FuncId::from_u32(callee.0), values, &sig.returns);
        if sret.is_some() {
            return sret;
        }
        let result = self.b.func.dfg.first_result(inst)?;
        Some(if *ty == CType::Bool {
            self.byte_to_bool(result)
        } else {
            result
        })
    }

    /// A call through the function pointer `callee`: its pointee gives the
    /// signature (values only: sema refuses struct parameters and results
    /// in function pointer types).
    fn call_indirect(&mut self, callee: &Expr, args: &[Expr], ty: &CType) -> Option<Value> {
        let target = self.expr(callee);
        let params: Vec<Type> = match callee.ty.fn_pointee() {
            Some(f) => f.params.iter().map(|p| abi_type(&p.passed_as())).collect(),
            None => args.iter().map(|a| abi_type(&a.ty)).collect(),
        };
        let values: Vec<Value> = args
            .iter()
            .zip(&params)
            .map(|(a, &t)| {
                let v = self.expr(a);
                self.coerce(v, t)
            })
            .collect();
        let returns = if *ty == CType::Void {
            Vec::new()
        } else {
            vec![abi_type(ty)]
        };
        let sig = midend::ir::CallSig { params, returns };
        let inst = self.b.call_indirect(sig, target, values);
        let result = self.b.func.dfg.first_result(inst)?;
        Some(if *ty == CType::Bool {
            self.byte_to_bool(result)
        } else {
            result
        })
    }

    fn cast(&mut self, kind: CastKind, inner: &Expr, to: &CType) -> Option<Value> {
        if kind == CastKind::ToVoid {
            self.eval(inner);
            return None;
        }
        if kind == CastKind::ToBool {
            return Some(self.bool_value_of_cast(inner));
        }
        let v = self.expr(inner);
        let from = &inner.ty;
        let to_ty = value_type(to);
        Some(match kind {
            CastKind::IntToInt => self.int_resize(v, from, to),
            CastKind::BoolToInt => self.b.convert(Opcode::Zext, to_ty, v),
            CastKind::BoolToFloat => {
                let one = self.b.fconst(to_ty, 1.0);
                let zero = self.b.fconst(to_ty, 0.0);
                self.b.select(v, one, zero)
            }
            CastKind::IntToFloat => {
                let op = if is_signed(from) {
                    Opcode::Sitofp
                } else {
                    Opcode::Uitofp
                };
                self.b.convert(op, to_ty, v)
            }
            CastKind::FloatToInt => {
                let op = if is_signed(to) {
                    Opcode::Fptosi
                } else {
                    Opcode::Fptoui
                };
                self.b.convert(op, to_ty, v)
            }
            CastKind::FloatToFloat => {
                let from_ty = self.b.value_type(v);
                match from_ty.bits().cmp(&to_ty.bits()) {
                    std::cmp::Ordering::Less => self.b.convert(Opcode::Fpext, to_ty, v),
                    std::cmp::Ordering::Greater => self.b.convert(Opcode::Fptrunc, to_ty, v),
                    std::cmp::Ordering::Equal => v,
                }
            }
            // A function pointer is an `i64`; the null `void *` that
            // becomes one, or that one becomes, changes representation.
            CastKind::PtrToPtr if to.is_fn_pointer() => self.address_bits(v),
            CastKind::PtrToPtr if from.is_fn_pointer() => {
                self.b
                    .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Generic), v)
            }
            CastKind::PtrToPtr => v,
            CastKind::IntToPtr if to.is_fn_pointer() => self.int_resize(v, from, &CType::LONG),
            CastKind::IntToPtr => {
                let wide = self.int_resize(v, from, &CType::LONG);
                self.b
                    .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Generic), wide)
            }
            CastKind::PtrToInt => {
                let wide = self.address_bits(v);
                self.int_resize(wide, &CType::LONG, to)
            }
            CastKind::ToVoid | CastKind::ToBool => unreachable!("handled above"),
        })
    }

    /// Integer width change with C semantics: the source's signedness decides
    /// between sign and zero extension.
    fn int_resize(&mut self, v: Value, from: &CType, to: &CType) -> Value {
        let (from_ty, to_ty) = (self.b.value_type(v), value_type(to));
        match from_ty.bits().cmp(&to_ty.bits()) {
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Greater => self.b.convert(Opcode::Trunc, to_ty, v),
            std::cmp::Ordering::Less if is_signed(from) => self.b.convert(Opcode::Sext, to_ty, v),
            std::cmp::Ordering::Less => self.b.convert(Opcode::Zext, to_ty, v),
        }
    }

    /// Makes `v` (of some IR type) have IR type `ty`: bool ↔ byte, and a
    /// pointer into a known space ↔ a generic pointer.
    pub(crate) fn coerce(&mut self, v: Value, ty: Type) -> Value {
        let from = self.b.value_type(v);
        match (from, ty) {
            _ if from == ty => v,
            (Type::I1, t) if t.is_int() => self.b.convert(Opcode::Zext, t, v),
            (t, Type::I1) if t.is_int() => self.byte_to_bool(v),
            (Type::Ptr(_), Type::Ptr(to)) => self.b.addrspacecast(to, v),
            (f, t) if f.is_int() && t.is_int() && f.bits() < t.bits() => {
                self.b.convert(Opcode::Sext, t, v)
            }
            (f, t) if f.is_int() && t.is_int() => self.b.convert(Opcode::Trunc, t, v),
            _ => v,
        }
    }

    /// Converts a register value of C type `ty` to its ABI (return) form.
    pub(crate) fn abi_value(&mut self, v: Value, ty: &CType) -> Value {
        self.coerce(v, abi_type(ty))
    }

    /// The 64 bits of an address: a data pointer's as an integer (through
    /// a generic address), a function pointer's as they are.
    fn address_bits(&mut self, v: Value) -> Value {
        if self.b.value_type(v).is_ptr() {
            let generic = self.coerce(v, Type::Ptr(AddrSpace::Generic));
            self.b.convert(Opcode::Ptrtoint, Type::I64, generic)
        } else {
            v
        }
    }

    /// An operand of a comparison with a function pointer as its address
    /// bits: `nullptr` (a null constant cast to pointers) is the zero it is.
    fn address_operand(&mut self, e: &Expr) -> Value {
        let mut inner = e;
        while let ExprKind::Cast {
            kind: CastKind::PtrToPtr | CastKind::IntToPtr,
            expr,
        } = &inner.kind
        {
            inner = expr;
        }
        if matches!(inner.kind, ExprKind::IntConst(0)) {
            return self.b.iconst(Type::I64, 0);
        }
        let v = self.expr(e);
        self.address_bits(v)
    }

    /// Both pointers in one space (generic if they differ).
    fn common_pointers(&mut self, lhs: &Expr, rhs: &Expr) -> (Value, Value) {
        let a = self.expr(lhs);
        let b = self.expr(rhs);
        if self.b.value_type(a) == self.b.value_type(b) {
            return (a, b);
        }
        let g = Type::Ptr(AddrSpace::Generic);
        (self.coerce(a, g), self.coerce(b, g))
    }

    /// A `bool`-typed expression as an `i1`.
    pub(crate) fn bool_value(&mut self, e: &Expr) -> Value {
        stdx::stack::with_stack(|| {
            self.with_span(e.span, |lw| match &e.kind {
                ExprKind::Cast {
                    kind: CastKind::ToBool,
                    expr,
                } => lw.bool_value_of_cast(expr),
                ExprKind::Compare { op, lhs, rhs } => lw.compare(*op, lhs, rhs),
                ExprKind::Not(x) => {
                    let c = lw.bool_value(x);
                    let one = lw.b.iconst(Type::I1, 1);
                    lw.b.binary(Opcode::Bxor, c, one)
                }
                ExprKind::Logical { op, lhs, rhs } => lw.logical(*op, lhs, rhs),
                _ => {
                    let v = lw.expr(e);
                    lw.coerce(v, Type::I1)
                }
            })
        })
    }

    /// `inner != 0` for a scalar `inner`, without materializing 0/1 ints for
    /// comparisons and logical operators.
    fn bool_value_of_cast(&mut self, inner: &Expr) -> Value {
        match &inner.kind {
            ExprKind::Compare { .. } | ExprKind::Logical { .. } | ExprKind::Not(_) => {
                return self.bool_value(inner)
            }
            ExprKind::Cast {
                kind: CastKind::BoolToInt,
                expr,
            } => return self.bool_value(expr),
            _ => {}
        }
        let v = self.expr(inner);
        match self.b.value_type(v) {
            Type::I1 => v,
            t if t.is_float() => {
                let zero = self.b.fconst(t, 0.0);
                self.b.fcmp(FloatCC::Une, v, zero)
            }
            Type::Ptr(_) => {
                let g = self.coerce(v, Type::Ptr(AddrSpace::Generic));
                let bits = self.b.convert(Opcode::Ptrtoint, Type::I64, g);
                let zero = self.b.iconst(Type::I64, 0);
                self.b.icmp(IntCC::Ne, bits, zero)
            }
            t => {
                let zero = self.b.iconst(t, 0);
                self.b.icmp(IntCC::Ne, v, zero)
            }
        }
    }

    fn compare(&mut self, op: CmpOp, lhs: &Expr, rhs: &Expr) -> Value {
        if lhs.ty.is_fn_pointer() || rhs.ty.is_fn_pointer() {
            let (a, b) = (self.address_operand(lhs), self.address_operand(rhs));
            return self.b.icmp(int_cc(op, false), a, b);
        }
        if lhs.ty.is_pointer() {
            let (a, b) = self.common_pointers(lhs, rhs);
            let a = self.b.convert(Opcode::Ptrtoint, Type::I64, a);
            let b = self.b.convert(Opcode::Ptrtoint, Type::I64, b);
            return self.b.icmp(int_cc(op, false), a, b);
        }
        let (a, b) = (self.expr(lhs), self.expr(rhs));
        if lhs.ty.is_float() {
            let cc = match op {
                CmpOp::Lt => FloatCC::Olt,
                CmpOp::Le => FloatCC::Ole,
                CmpOp::Gt => FloatCC::Ogt,
                CmpOp::Ge => FloatCC::Oge,
                CmpOp::Eq => FloatCC::Oeq,
                CmpOp::Ne => FloatCC::Une,
            };
            self.b.fcmp(cc, a, b)
        } else {
            self.b.icmp(int_cc(op, is_signed(&lhs.ty)), a, b)
        }
    }

    /// `lhs && rhs` / `lhs || rhs` as an `i1`, evaluating `rhs` only when needed.
    fn logical(&mut self, op: LogicalOp, lhs: &Expr, rhs: &Expr) -> Value {
        let rhs_block = self.b.create_block();
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, Type::I1);
        let l = self.bool_value(lhs);
        match op {
            LogicalOp::And => self.b.brif(l, rhs_block, vec![], join, vec![l]),
            LogicalOp::Or => self.b.brif(l, join, vec![l], rhs_block, vec![]),
        };
        self.b.seal_block(rhs_block);
        self.b.switch_to_block(rhs_block);
        let r = self.bool_value(rhs);
        self.b.jump(join, vec![r]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        result
    }

    /// Branches to `t` if the `bool`-typed `cond` holds, else to `f`.
    /// Short-circuit operators become branches directly.
    pub(crate) fn branch_on(&mut self, cond: &Expr, t: Block, f: Block) {
        stdx::stack::with_stack(|| {
            self.with_span(cond.span, |lw| {
                let inner = match &cond.kind {
                    ExprKind::Cast {
                        kind: CastKind::ToBool,
                        expr,
                    } if matches!(expr.kind, ExprKind::Logical { .. } | ExprKind::Not(_)) => expr,
                    _ => cond,
                };
                match &inner.kind {
                    ExprKind::Logical { op, lhs, rhs } => {
                        let mid = lw.b.create_block();
                        match op {
                            LogicalOp::And => lw.branch_on(lhs, mid, f),
                            LogicalOp::Or => lw.branch_on(lhs, t, mid),
                        }
                        lw.b.seal_block(mid);
                        lw.b.switch_to_block(mid);
                        lw.branch_on(rhs, t, f);
                    }
                    ExprKind::Not(x) => lw.branch_on(x, f, t),
                    _ => {
                        let c = lw.bool_value(cond);
                        lw.b.brif(c, t, vec![], f, vec![]);
                    }
                }
            })
        })
    }
}

fn int_cc(op: CmpOp, signed: bool) -> IntCC {
    match (op, signed) {
        (CmpOp::Eq, _) => IntCC::Eq,
        (CmpOp::Ne, _) => IntCC::Ne,
        (CmpOp::Lt, true) => IntCC::Slt,
        (CmpOp::Le, true) => IntCC::Sle,
        (CmpOp::Gt, true) => IntCC::Sgt,
        (CmpOp::Ge, true) => IntCC::Sge,
        (CmpOp::Lt, false) => IntCC::Ult,
        (CmpOp::Le, false) => IntCC::Ule,
        (CmpOp::Gt, false) => IntCC::Ugt,
        (CmpOp::Ge, false) => IntCC::Uge,
    }
}

fn special_reg(var: BuiltinVar, dim: Dim) -> SpecialReg {
    use SpecialReg::*;
    match (var, dim) {
        (BuiltinVar::ThreadIdx, Dim::X) => TidX,
        (BuiltinVar::ThreadIdx, Dim::Y) => TidY,
        (BuiltinVar::ThreadIdx, Dim::Z) => TidZ,
        (BuiltinVar::BlockDim, Dim::X) => NtidX,
        (BuiltinVar::BlockDim, Dim::Y) => NtidY,
        (BuiltinVar::BlockDim, Dim::Z) => NtidZ,
        (BuiltinVar::BlockIdx, Dim::X) => CtaidX,
        (BuiltinVar::BlockIdx, Dim::Y) => CtaidY,
        (BuiltinVar::BlockIdx, Dim::Z) => CtaidZ,
        (BuiltinVar::GridDim, Dim::X) => NctaidX,
        (BuiltinVar::GridDim, Dim::Y) => NctaidY,
        (BuiltinVar::GridDim, Dim::Z) => NctaidZ,
    }
}
