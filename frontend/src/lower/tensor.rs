//! Lowering the tensor-core and async-copy built-ins (`sema/tensor.rs`) to
//! `accel` instructions.
//!
//! A fragment argument is a pointer to a local array: its elements are
//! loaded into values before the instruction and the results stored back
//! after it. Until constant-indexed local arrays are promoted to registers,
//! those arrays live in local memory, so each fragment costs a few `ld.local`
//! and `st.local` around the tensor instruction (ptxas removes most of them).

use super::FunctionLowerer;
use crate::sema::fragment_lengths;
use crate::typed::Expr;
use midend::builder::InstBuilder;
use midend::ir::{AccelOp, AddrSpace, MemFlags, Opcode, Type, Value};

impl FunctionLowerer<'_, '_> {
    /// `frag + 4 * i` for each `i < n`: the elements of a fragment array.
    fn fragment_slots(&mut self, frag: Value, n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| {
                let off = self.b.iconst(Type::I64, 4 * i as i64);
                self.b.ptroffset(frag, off)
            })
            .collect()
    }

    /// Lowers a tensor-core or async-copy built-in; the value of the ones
    /// that return one.
    pub(crate) fn accel_intrinsic(&mut self, op: AccelOp, args: &[Expr]) -> Option<Value> {
        if op.is_wgmma() || op.is_tcgen05() || matches!(op, AccelOp::Setmaxnreg { .. }) {
            return self.accel_b_intrinsic(op, args);
        }
        let lens = fragment_lengths(op);
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        // The parameter that receives the results, if any: the first
        // fragment pointer of a load or an mma.
        let out_param = match op {
            AccelOp::WmmaLoad { .. }
            | AccelOp::WmmaMma { .. }
            | AccelOp::Mma { .. }
            | AccelOp::Ldmatrix { .. } => Some(0),
            _ => None,
        };
        let mut operands = Vec::new();
        for (k, &v) in values.iter().enumerate() {
            let n = lens.get(k).copied().unwrap_or(0);
            if Some(k) == out_param {
                continue;
            }
            if n == 0 {
                operands.push(v);
                continue;
            }
            let elem_ty = if matches!(
                (op, k),
                (AccelOp::WmmaMma { .. } | AccelOp::Mma { .. }, 3) | (AccelOp::WmmaStore { .. }, 1)
            ) {
                Type::F32
            } else {
                Type::I32
            };
            for slot in self.fragment_slots(v, n) {
                operands.push(self.b.load(elem_ty, slot, MemFlags::default()));
            }
        }
        // WMMA store writes through its tile pointer (first), then the
        // fragment, then the stride: the operand order of the instruction.
        if let AccelOp::CpAsyncWait { .. } | AccelOp::BulkWait { .. } = op {
            operands.clear();
        }
        // A pointer of a space the operation does not admit (a `__constant__`
        // tile, a local array) goes in as generic: memory-space inference
        // proves its space again and reports it with the seeds' wording
        // (`Cannot do WMMA on local memory`), where lowering cannot.
        for (k, kind) in op.operand_kinds().into_iter().enumerate() {
            let (midend::ir::OperandKind::Ptr(allowed), Some(&v)) = (kind, operands.get(k)) else {
                continue;
            };
            if let Type::Ptr(s) = self.b.func.dfg.value_type(v) {
                if !allowed.contains(&s) {
                    operands[k] = self.b.addrspacecast(midend::ir::AddrSpace::Generic, v);
                }
            }
        }
        let results = self.b.accel(op, operands);
        if let Some(k) = out_param {
            let slots = self.fragment_slots(values[k], results.len());
            for (r, slot) in results.iter().zip(slots) {
                self.b.store(*r, slot, MemFlags::default());
            }
            return None;
        }
        match op {
            AccelOp::MbarArrive | AccelOp::MbarArriveExpectTx => results.first().copied(),
            // C sees a plain (generic) pointer; memory-space inference
            // follows the cast back to `shared::cluster`.
            AccelOp::Mapa => {
                let p = *results.first()?;
                Some(self.b.addrspacecast(AddrSpace::Generic, p))
            }
            AccelOp::MbarTestWait | AccelOp::MbarTryWaitParity => {
                let p = *results.first()?;
                Some(self.b.convert(Opcode::Zext, Type::I32, p))
            }
            _ => None,
        }
    }
}
