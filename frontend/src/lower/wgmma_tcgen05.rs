//! Lowering the wgmma, setmaxnreg and tcgen05 built-ins
//! (`sema/wgmma_tcgen05.rs`) to `accel` instructions, and the shared-memory
//! descriptor builders to integer arithmetic.
//!
//! Fragments work as in `tensor.rs`: the elements of the local array are
//! loaded before the instruction and the results stored after it. A
//! tensor-memory address arrives as a C `unsigned` and becomes a
//! `ptr<tmem>` (`inttoptr`) at the call, the one place such pointers are
//! made; memory-space inference never turns it into anything else.

use super::FunctionLowerer;
use crate::sema::fragment_lengths_b;
use crate::typed::{Expr, ExprKind};
use midend::builder::InstBuilder;
use midend::ir::{AccelOp, AddrSpace, MemFlags, Opcode, Type, Value};

impl FunctionLowerer<'_, '_> {
    /// `frag + 4 * i` for each `i < n`.
    fn slots_b(&mut self, frag: Value, n: usize) -> Vec<Value> {
        (0..n)
            .map(|i| {
                let off = self.b.iconst(Type::I64, 4 * i as i64);
                self.b.ptroffset(frag, off)
            })
            .collect()
    }

    /// A C `unsigned` tensor-memory address as a `ptr<tmem>`.
    fn tmem_ptr(&mut self, e: &Expr) -> Value {
        let v = self.expr(e);
        let v = self.coerce(v, Type::I32);
        self.b
            .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Tmem), v)
    }

    /// Lowers a wgmma, setmaxnreg or tcgen05 built-in (none returns a value).
    pub(crate) fn accel_b_intrinsic(&mut self, op: AccelOp, args: &[Expr]) -> Option<Value> {
        let lens = fragment_lengths_b(op);
        let mut operands = Vec::new();
        // The fragment that receives the results, if any.
        let mut out_frag = None;
        match op {
            AccelOp::WgmmaMma { .. } => {
                let d = self.expr(&args[0]);
                operands.push(self.expr(&args[1]));
                operands.push(self.expr(&args[2]));
                operands.push(self.bool_value(&args[3]));
                for slot in self.slots_b(d, lens[0]) {
                    operands.push(self.b.load(Type::F32, slot, MemFlags::default()));
                }
                out_frag = Some(d);
            }
            AccelOp::Tcgen05Ld { .. } => {
                let frag = self.expr(&args[0]);
                operands.push(self.tmem_ptr(&args[1]));
                out_frag = Some(frag);
            }
            AccelOp::Tcgen05St { .. } => {
                operands.push(self.tmem_ptr(&args[0]));
                let frag = self.expr(&args[1]);
                for slot in self.slots_b(frag, lens[1]) {
                    operands.push(self.b.load(Type::I32, slot, MemFlags::default()));
                }
            }
            AccelOp::Tcgen05Dealloc | AccelOp::Tcgen05Cp { .. } => {
                operands.push(self.tmem_ptr(&args[0]));
                operands.push(self.expr(&args[1]));
            }
            AccelOp::Tcgen05Mma { .. } => {
                operands.push(self.tmem_ptr(&args[0]));
                for a in &args[1..4] {
                    operands.push(self.expr(a));
                }
                operands.push(self.bool_value(&args[4]));
            }
            _ => {
                for a in args {
                    operands.push(self.expr(a));
                }
            }
        }
        let results = self.b.accel(op, operands);
        if let Some(frag) = out_frag {
            let slots = self.slots_b(frag, results.len());
            for (r, slot) in results.iter().zip(slots) {
                self.b.store(*r, slot, MemFlags::default());
            }
        }
        None
    }

    /// A 64-bit shared-memory matrix descriptor (bit layout in
    /// docs/tensor-cores.md): the 18-bit shared address and the two byte
    /// offsets, each in 16-byte units in 14-bit fields, and the constant
    /// layout type (plus, for tcgen05, the version bit 46).
    pub(crate) fn smem_desc(&mut self, tcgen05: bool, args: &[Expr]) -> Value {
        let p = self.expr(&args[0]);
        let shared = if self.b.value_type(p) == Type::Ptr(AddrSpace::Shared) {
            p
        } else {
            let g = self.coerce(p, Type::Ptr(AddrSpace::Generic));
            self.b.addrspacecast(AddrSpace::Shared, g)
        };
        let addr = self.b.convert(Opcode::Ptrtoint, Type::I64, shared);
        let field = |this: &mut Self, v: Value, shift: i64| {
            let four = this.b.iconst(Type::I64, 4);
            let units = this.b.binary(Opcode::Ushr, v, four);
            let mask = this.b.iconst(Type::I64, 0x3fff);
            let f = this.b.binary(Opcode::Band, units, mask);
            if shift == 0 {
                f
            } else {
                let s = this.b.iconst(Type::I64, shift);
                this.b.binary(Opcode::Ishl, f, s)
            }
        };
        let start = field(self, addr, 0);
        let lbo = self.expr(&args[1]);
        let lbo = self.b.convert(Opcode::Zext, Type::I64, lbo);
        let lbo = field(self, lbo, 16);
        let sbo = self.expr(&args[2]);
        let sbo = self.b.convert(Opcode::Zext, Type::I64, sbo);
        let sbo = field(self, sbo, 32);
        let code = match args[3].kind {
            ExprKind::IntConst(c) => c as u64,
            _ => 0,
        };
        let fixed = if tcgen05 {
            (1u64 << 46) | (code << 61)
        } else {
            code << 62
        };
        let fixed = self.b.iconst(Type::I64, fixed as i64);
        let d = self.b.binary(Opcode::Bor, start, lbo);
        let d = self.b.binary(Opcode::Bor, d, sbo);
        self.b.binary(Opcode::Bor, d, fixed)
    }
}
