//! Lowering `printf` and `assert` to the IR's calls of the CUDA runtime
//! (`vprintf`, `assertfail`), in the form nvcc gives them, and the
//! cache-hinted loads and stores of CUDA's headers (`__ldcs`, `__stwt`, ...).

use super::aggregate::CopyHints;
use super::{value_type, FunctionLowerer};
use crate::typed::Expr;
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{AccelOp, AddrSpace, CacheOp, MemFlags, Opcode, StackSlotData, Type, Value};

/// Where each `printf` argument goes in the runtime's argument buffer:
/// each at the next offset aligned to its own size (4 or 8 bytes), as
/// nvcc lays it out; and the buffer's size.
pub(crate) fn printf_layout(sizes: &[u32]) -> (Vec<u32>, u32) {
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut end = 0u32;
    for &size in sizes {
        let at = end.next_multiple_of(size.max(1));
        offsets.push(at);
        end = at + size;
    }
    (offsets, end)
}

impl FunctionLowerer<'_, '_> {
    /// `printf(format, args...)`: the promoted arguments stored in a local
    /// buffer (8-byte aligned, as nvcc's), then `vprintf(format, buffer)`;
    /// without arguments the buffer is a null pointer, as in nvcc's PTX.
    pub(super) fn printf(&mut self, args: &[Expr]) -> Value {
        let format = self.expr(&args[0]);
        let values: Vec<Value> = args[1..].iter().map(|a| self.expr(a)).collect();
        let types: Vec<Type> = args[1..].iter().map(|a| value_type(&a.ty)).collect();
        let sizes: Vec<u32> = types.iter().map(|t| t.bytes()).collect();
        let (offsets, size) = printf_layout(&sizes);
        let buffer = if values.is_empty() {
            let zero = self.b.iconst(Type::I64, 0);
            self.b
                .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Generic), zero)
        } else {
            let slot = self.b.func.stack_slots.push(StackSlotData {
                size: size.next_multiple_of(8),
                align: 8,
            });
            let base = self.b.stack_addr(slot);
            for (&v, &at) in values.iter().zip(&offsets) {
                let k = self.b.iconst(Type::I64, i64::from(at));
                let p = self.b.ptroffset(base, k);
                self.b.store(v, p, MemFlags::default());
            }
            self.b.addrspacecast(AddrSpace::Generic, base)
        };
        self.b.accel(AccelOp::Vprintf, vec![format, buffer])[0]
    }

    /// `assert`: when the condition is false, `__assertfail(text, file,
    /// line, function, sizeof(char))`, then on as nvcc's code goes on (the
    /// runtime stops the kernel).
    pub(super) fn assert_check(&mut self, args: &[Expr]) {
        let fail = self.b.create_block();
        let join = self.b.create_block();
        self.branch_on(&args[0], join, fail);
        self.b.seal_block(fail);
        self.b.switch_to_block(fail);
        let mut operands: Vec<Value> = args[1..].iter().map(|a| self.expr(a)).collect();
        operands.push(self.b.iconst(Type::I64, 1));
        self.b.accel(AccelOp::AssertFail, operands);
        self.b.jump(join, vec![]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
    }
}

impl FunctionLowerer<'_, '_> {
    /// `__ldcs(p)` and the other cache-hinted loads: a load from global
    /// memory (the pointer converted first, as for `__ldg`) with the hint,
    /// and volatile: CUDA's headers write each as an `asm volatile`, which
    /// nvcc never removes, merges or moves. A vector type is read member by
    /// member into a temporary, which the backend joins into one
    /// `ld.global.cs.v4`.
    pub(super) fn cache_load(&mut self, cache: CacheOp, args: &[Expr], ty: &CType) -> Value {
        let p = self.expr(&args[0]);
        let p = self.pointer_into(AddrSpace::Global, p);
        if ty.is_struct() {
            let tmp = self.temp_struct(ty);
            let hints = CopyHints {
                load_cache: Some(cache),
                ..CopyHints::default()
            };
            self.copy_struct_with(tmp, p, ty, &hints);
            return tmp;
        }
        let flags = MemFlags {
            cache: Some(cache),
            volatile: true,
            ..MemFlags::default()
        };
        self.load(p, ty, flags)
    }

    /// `__stcs(p, v)` and the other cache-hinted stores.
    pub(super) fn cache_store(&mut self, cache: CacheOp, args: &[Expr]) {
        let p = self.expr(&args[0]);
        let p = self.pointer_into(AddrSpace::Global, p);
        let ty = &args[1].ty;
        let v = self.expr(&args[1]);
        if ty.is_struct() {
            let hints = CopyHints {
                store_cache: Some(cache),
                ..CopyHints::default()
            };
            self.copy_struct_with(p, v, ty, &hints);
            return;
        }
        let flags = MemFlags {
            cache: Some(cache),
            volatile: true,
            ..MemFlags::default()
        };
        // CUDA declares no `bool` form: the value's register is its memory.
        self.b.store(v, p, flags);
    }
}
