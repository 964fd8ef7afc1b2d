//! Structs in lowering.
//!
//! The IR has no aggregate values, so the value of a struct-typed
//! expression is the *address* of memory holding it: a local's stack slot,
//! a module variable, the object a pointer points to, or a temporary slot
//! for a call result or a `make_float4(...)`. Assignment, initialization,
//! argument passing and `return` copy the struct member by member
//! ([`FunctionLowerer::copy_struct`]), one load and one store per scalar,
//! so padding is never read.
//!
//! Calls follow PTX's `.param` convention for aggregates:
//! * a struct argument is the address of the caller's object; the
//!   parameter is `byval(N, A)`, so the call copies the bytes into the
//!   callee's `.param .align A .b8 name[N]` array (the interpreter into a
//!   fresh local allocation), and the callee copies that, member by member,
//!   into a local it may change (C's by-value semantics);
//! * a struct result is written by the callee through a hidden first
//!   parameter marked `sret(N, A)`, the address of a temporary the caller
//!   allocates; in PTX the callee's stores go to `func_retval0` and the
//!   call copies the bytes to the temporary.
//!
//! A kernel's struct parameter is a `ptr<param>` aggregate that the kernel
//! copies to a local at entry.

use super::FunctionLowerer;
use crate::codes::Code;
use crate::typed::{Block, Expr, ExprKind, LocalId, Place, Stmt, StmtKind};
use crate::types::{leaf_count, scalar_leaves, CType};

/// The most scalars one struct copy may move, and the most accesses a
/// `memcpy` or `memset` of a constant size is unrolled into: each is a load
/// and a store, and the IR has no block copy, so a huge struct would make
/// huge code.
pub(crate) const MAX_COPY_LEAVES: u64 = 4096;
use midend::builder::InstBuilder;
use midend::ir::{CacheOp, MemFlags, StackSlotData, Type, Value};

/// The memory flags of an access of type `t` at byte `off` from an address
/// known to be aligned to `base_align`: the alignment the address then has
/// when it is more than `t`'s own (a C object of struct type is always
/// aligned to the struct's alignment).
pub(crate) fn offset_flags(base_align: u64, off: u64, t: Type) -> MemFlags {
    let known = if off == 0 {
        base_align
    } else {
        base_align.min(1 << off.trailing_zeros())
    };
    MemFlags {
        align: if known > u64::from(t.bytes()) {
            known as u32
        } else {
            0
        },
        ..MemFlags::default()
    }
}

/// One access of a copy: the bytes at `off` moved as one value of type `ty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) off: u64,
    pub(crate) ty: Type,
}

/// An address and the alignment it is known to have.
#[derive(Clone, Copy)]
pub(crate) struct Aligned {
    pub(crate) addr: Value,
    pub(crate) align: u64,
}

/// What a struct copy's accesses carry besides their alignment.
#[derive(Default)]
pub(crate) struct CopyHints {
    /// The loads read memory that does not change (`ld.global.nc`).
    pub(crate) invariant: bool,
    /// The loads' cache hint (`__ldcs` of a vector type, ...); such
    /// accesses are volatile too (`runtime.rs` says why).
    pub(crate) load_cache: Option<CacheOp>,
    /// The stores' cache hint (`__stcs` of a vector type, ...).
    pub(crate) store_cache: Option<CacheOp>,
}

impl FunctionLowerer<'_, '_> {
    /// Copies the struct of type `ty` at `src` to `dst`, scalar by scalar.
    pub(crate) fn copy_struct(&mut self, dst: Value, src: Value, ty: &CType) {
        self.copy_struct_with(dst, src, ty, &CopyHints::default());
    }

    /// [`Self::copy_struct`], with its loads marked `invariant` (`__ldg` of
    /// a vector type) or its loads or stores given a cache hint (`__ldcs`,
    /// `__stwt`, ... of one) when asked.
    pub(crate) fn copy_struct_with(
        &mut self,
        dst: Value,
        src: Value,
        ty: &CType,
        hints: &CopyHints,
    ) {
        if leaf_count(ty) > MAX_COPY_LEAVES {
            let span = self.typed.body.span;
            self.error(
                span,
                Code::E0002,
                format!("copying `{ty}` ({} scalars) is not supported by kernelc yet (at most {MAX_COPY_LEAVES}); pass a pointer instead", leaf_count(ty)),
            );
            return;
        }
        let mut leaves = Vec::new();
        scalar_leaves(ty, 0, &mut leaves);
        // Raw bytes: a `bool` is copied as its byte, not re-normalized.
        let chunks: Vec<Chunk> = leaves
            .iter()
            .map(|(off, leaf)| Chunk {
                off: *off,
                ty: super::abi_type(leaf),
            })
            .collect();
        let align = ty.align().max(1);
        self.copy_chunks(
            Aligned { addr: dst, align },
            Aligned { addr: src, align },
            &chunks,
            hints,
        );
    }

    /// Copies each of `chunks` (in increasing offsets) from `src` to `dst`.
    /// The chunks of one 16-byte window are loaded together and then stored
    /// together, each access with the alignment its offset has from its
    /// base, so adjacent chunks stay adjacent accesses that the backend
    /// combines into one `ld.v4`/`st.v4` (a `float4` copy is one load and
    /// one store, as in nvcc).
    pub(crate) fn copy_chunks(
        &mut self,
        dst: Aligned,
        src: Aligned,
        chunks: &[Chunk],
        hints: &CopyHints,
    ) {
        for window in chunks.chunk_by(|a, b| a.off / 16 == b.off / 16) {
            let mut loaded = Vec::new();
            for c in window {
                let from = self.member_at(src.addr, c.off);
                let load_flags = MemFlags {
                    invariant: hints.invariant,
                    cache: hints.load_cache,
                    volatile: hints.load_cache.is_some(),
                    ..offset_flags(src.align, c.off, c.ty)
                };
                loaded.push(self.b.load(c.ty, from, load_flags));
            }
            for (v, c) in loaded.into_iter().zip(window) {
                let to = self.member_at(dst.addr, c.off);
                let flags = MemFlags {
                    cache: hints.store_cache,
                    volatile: hints.store_cache.is_some(),
                    ..offset_flags(dst.align, c.off, c.ty)
                };
                self.b.store(v, to, flags);
            }
        }
    }

    /// `base` plus a constant byte offset.
    pub(crate) fn member_at(&mut self, base: Value, off: u64) -> Value {
        if off == 0 {
            return base;
        }
        let k = self.b.iconst(Type::I64, off as i64);
        self.b.ptroffset(base, k)
    }

    /// A fresh stack slot for a temporary of type `ty`, and its address.
    pub(crate) fn temp_struct(&mut self, ty: &CType) -> Value {
        let slot = self.b.func.stack_slots.push(StackSlotData {
            size: u32::try_from(ty.size().unwrap_or(1).max(1)).unwrap_or(u32::MAX),
            align: ty.align() as u32,
        });
        self.b.stack_addr(slot)
    }

    /// The address of the member at `offset` of the struct `base`.
    pub(crate) fn field_address(&mut self, base: &Expr, offset: u64) -> Value {
        let p = self.expr(base);
        if offset == 0 {
            return p;
        }
        let k = self.b.iconst(Type::I64, offset as i64);
        self.b.ptroffset(p, k)
    }

    /// A struct built from its members, in a temporary.
    pub(crate) fn struct_lit(&mut self, fields: &[(u64, Expr)], ty: &CType) -> Value {
        let tmp = self.temp_struct(ty);
        for (off, e) in fields {
            let v = self.expr(e);
            let k = self.b.iconst(Type::I64, *off as i64);
            let p = self.b.ptroffset(tmp, k);
            self.store_value(p, v, &e.ty);
        }
        tmp
    }
}

/// Whether a kernel may read its struct parameter `local` where the host put
/// it (param space) instead of copying it to local memory first: the body
/// never writes the struct or a member of it, never takes its address or a
/// member's (an array member decays to an address, so it counts), and never
/// picks it in a `?:` (whose arms must share one pointer type). Reading a
/// member, copying the whole struct, and passing it by value all read the
/// param space directly.
pub(crate) fn struct_param_read_only(body: &Block, local: LocalId) -> bool {
    let mut ok = true;
    for s in &body.stmts {
        scan_stmt(s, local, &mut ok);
    }
    ok
}

/// Whether `e` designates (part of) the struct `local`: the local itself or
/// a chain of members of it.
fn rooted_at(e: &Expr, local: LocalId) -> bool {
    stdx::stack::with_stack(|| match &e.kind {
        ExprKind::Local(l) => *l == local,
        ExprKind::Field { base, .. } => rooted_at(base, local),
        _ => false,
    })
}

fn place_rooted_at(p: &Place, local: LocalId) -> bool {
    match p {
        Place::Local(l) => *l == local,
        Place::Field { base, .. } => rooted_at(base, local),
        _ => false,
    }
}

fn scan_stmt(s: &Stmt, local: LocalId, ok: &mut bool) {
    stdx::stack::with_stack(|| {
        let ex = |e: &Expr, ok: &mut bool| scan_expr(e, local, ok);
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => ex(e, ok),
            StmtKind::Decl { init, list, .. } => {
                init.iter().for_each(|e| ex(e, ok));
                list.iter().flatten().for_each(|(_, e)| ex(e, ok));
            }
            StmtKind::Block(b) | StmtKind::Switch { body: b, .. } => {
                if let StmtKind::Switch { cond, .. } = &s.kind {
                    ex(cond, ok);
                }
                b.stmts.iter().for_each(|s| scan_stmt(s, local, ok));
            }
            StmtKind::If { cond, then, els } => {
                ex(cond, ok);
                scan_stmt(then, local, ok);
                if let Some(e) = els {
                    scan_stmt(e, local, ok);
                }
            }
            StmtKind::While { cond, body, .. } | StmtKind::DoWhile { body, cond, .. } => {
                ex(cond, ok);
                scan_stmt(body, local, ok);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
                ..
            } => {
                init.iter().for_each(|s| scan_stmt(s, local, ok));
                cond.iter().chain(step.iter()).for_each(|e| ex(e, ok));
                scan_stmt(body, local, ok);
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Empty
            | StmtKind::Label(_)
            | StmtKind::Goto(_)
            | StmtKind::GotoLabel(_) => {}
            StmtKind::Asm(a) => {
                a.operands.iter().for_each(|e| ex(e, ok));
                for (p, _) in &a.outputs {
                    *ok &= !place_rooted_at(p, local);
                    scan_place(p, local, ok);
                }
            }
        }
    })
}

fn scan_place(p: &Place, local: LocalId, ok: &mut bool) {
    match p {
        Place::Local(_) | Place::Global(_) => {}
        Place::Deref(e) | Place::Field { base: e, .. } => scan_expr(e, local, ok),
        Place::Index { base, index, .. } => {
            scan_expr(base, local, ok);
            scan_expr(index, local, ok);
        }
    }
}

fn scan_expr(e: &Expr, local: LocalId, ok: &mut bool) {
    stdx::stack::with_stack(|| {
        if !*ok {
            return;
        }
        let ex = |e: &Expr, ok: &mut bool| scan_expr(e, local, ok);
        match &e.kind {
            ExprKind::Assign { target, value, .. } => {
                if place_rooted_at(target, local) {
                    *ok = false;
                }
                scan_place(target, local, ok);
                ex(value, ok);
            }
            ExprKind::IncDec {
                target, new_value, ..
            } => {
                if place_rooted_at(target, local) {
                    *ok = false;
                }
                scan_place(target, local, ok);
                ex(new_value, ok);
            }
            ExprKind::AddrOf(p) => {
                if place_rooted_at(p, local) {
                    *ok = false;
                }
                scan_place(p, local, ok);
            }
            ExprKind::Ternary { cond, then, els } => {
                if e.ty.is_struct() && (rooted_at(then, local) || rooted_at(els, local)) {
                    *ok = false;
                }
                ex(cond, ok);
                ex(then, ok);
                ex(els, ok);
            }
            ExprKind::Unary { operand: a, .. }
            | ExprKind::Not(a)
            | ExprKind::Cast { expr: a, .. }
            | ExprKind::Deref(a)
            | ExprKind::Field { base: a, .. } => ex(a, ok),
            ExprKind::StructLit(fields) => fields.iter().for_each(|(_, e)| ex(e, ok)),
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::Logical { lhs, rhs, .. }
            | ExprKind::Comma { lhs, rhs }
            | ExprKind::PtrDiff { lhs, rhs, .. } => {
                ex(lhs, ok);
                ex(rhs, ok);
            }
            ExprKind::Index { base, index, .. } => {
                // Reading an element of an array member (`p.coeffs[k]`): the
                // array decays to its address only to be read at once, which
                // param space allows (`ld.param` through a register).
                match &base.kind {
                    ExprKind::AddrOf(place) if place_rooted_at(place, local) => {
                        scan_place(place, local, ok)
                    }
                    _ => ex(base, ok),
                }
                ex(index, ok);
            }
            ExprKind::PtrAdd { ptr, offset, .. } | ExprKind::PtrSub { ptr, offset, .. } => {
                ex(ptr, ok);
                ex(offset, ok);
            }
            ExprKind::Call { args, .. } | ExprKind::Intrinsic { args, .. } => {
                args.iter().for_each(|a| ex(a, ok))
            }
            ExprKind::CallIndirect { callee, args } => {
                ex(callee, ok);
                args.iter().for_each(|a| ex(a, ok))
            }
            ExprKind::IntConst(_)
            | ExprKind::FuncAddr { .. }
            | ExprKind::FloatConst(_)
            | ExprKind::Str(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Builtin(..)
            | ExprKind::TargetValue
            | ExprKind::SyncThreads => {}
        }
    })
}

/// The byte offsets of the `__restrict__` pointers inside a struct (nested
/// structs and arrays of structs included), for restrict processing.
pub(crate) fn restrict_field_offsets(ty: &CType, base: u64, out: &mut Vec<u32>) {
    match ty {
        CType::Struct(def) => {
            for f in &def.fields {
                restrict_field_offsets(&f.ty, base + f.offset, out);
            }
        }
        CType::Array { elem, len: Some(n) } => {
            let size = elem.size().unwrap_or(0);
            for k in 0..(*n).min(64) {
                restrict_field_offsets(elem, base + k * size, out);
            }
        }
        CType::Pointer { restrict: true, .. } => {
            if let Ok(off) = u32::try_from(base) {
                out.push(off);
            }
        }
        _ => {}
    }
}
