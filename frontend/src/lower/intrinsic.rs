//! Lowering CUDA built-in functions (everything but the math library, which
//! is in `math.rs`) to the IR's atomic, collective and bit instructions.
//!
//! Sema has already picked the overload, so each argument has its
//! parameter's C type and the node's type is the result type.

use super::FunctionLowerer;
use crate::typed::{
    AtomicKind, BarrierKind, Expr, Intrinsic, ReduxKind, Scope, ShflKind, SpaceKind, VoteKind,
};
use crate::types::{CType, StructDef};
use midend::builder::InstBuilder;
use midend::ir::{
    AddrSpace, AtomicOp, BarrierRedOp, MatchMode, MemFlags, MemScope, Opcode, ReduxOp, ShuffleMode,
    SpecialReg, Type, Value, VoteMode,
};

fn mem_scope(s: Scope) -> MemScope {
    match s {
        Scope::Block => MemScope::Cta,
        Scope::Device => MemScope::Gpu,
        Scope::System => MemScope::Sys,
    }
}

fn is_signed(ty: &CType) -> bool {
    matches!(ty, CType::Int { signed: true, .. })
}

impl FunctionLowerer<'_, '_> {
    /// Lowers a built-in call; `None` for the ones that return `void`.
    // Long: one arm per built-in (CUDA's intrinsics and math functions),
    // each a line or two of IR; the table of what each built-in becomes.
    pub(crate) fn intrinsic(&mut self, op: Intrinsic, args: &[Expr], ty: &CType) -> Option<Value> {
        use Intrinsic as I;
        let v = match op {
            I::BarrierRed(k) => {
                let p = self.bool_value(&args[0]);
                let (rop, count) = match k {
                    BarrierKind::Count => (BarrierRedOp::Popc, true),
                    BarrierKind::And => (BarrierRedOp::And, false),
                    BarrierKind::Or => (BarrierRedOp::Or, false),
                };
                let r = self.b.barrier_red(rop, p);
                if count {
                    r
                } else {
                    self.b.convert(Opcode::Zext, Type::I32, r)
                }
            }
            I::SyncWarp => {
                let mask = self.expr(&args[0]);
                self.b.warp_sync(mask);
                return None;
            }
            I::Fence(s) => {
                self.b.fence(mem_scope(s));
                return None;
            }
            I::GridSync => {
                self.b.grid_barrier();
                return None;
            }
            I::Nanosleep => {
                let ns = self.expr(&args[0]);
                self.b.nanosleep(ns);
                return None;
            }
            I::Trap => {
                self.b.trap();
                // Whatever the expression still emits lands in a block that
                // nothing enters (cleanup removes it); later statements are
                // dead code.
                self.start_unreachable_block();
                return None;
            }
            I::Accel(op) => return self.accel_intrinsic(op, args),
            I::Texture(op) => return self.texture_intrinsic(op, args, ty),
            I::Memcpy => return Some(self.memcpy(args)),
            I::Memset => return Some(self.memset(args)),
            I::Half(op) => self.half_intrinsic(op, args, ty),
            I::Printf => self.printf(args),
            I::Assert => {
                self.assert_check(args);
                return None;
            }
            I::Nothing => return None,
            I::SinCos { pi, fast } => {
                self.sincos(pi, fast, args);
                return None;
            }
            I::SmemDesc { tcgen05 } => self.smem_desc(tcgen05, args),
            I::Atomic { op, scope } => self.atomic(op, scope, args, ty),
            I::AtomicAddByCas => {
                let p = self.atomic_pointer(&args[0]);
                self.half_atomic_add_by_cas(p, &args[1], ty)
            }
            I::AtomicCas(scope) => {
                let p = self.atomic_pointer(&args[0]);
                let e = self.expr(&args[1]);
                let n = self.expr(&args[2]);
                self.b.atomic_cas(mem_scope(scope), p, e, n)
            }
            I::Shfl(k) => self.shuffle(k, args),
            I::Vote(k) => {
                let mask = self.expr(&args[0]);
                let p = self.bool_value(&args[1]);
                let mode = match k {
                    VoteKind::Ballot => VoteMode::Ballot,
                    VoteKind::Any => VoteMode::Any,
                    VoteKind::All => VoteMode::All,
                    VoteKind::Uni => VoteMode::Uni,
                };
                let r = self.b.vote(mode, p, mask);
                if k == VoteKind::Ballot {
                    r
                } else {
                    self.b.convert(Opcode::Zext, Type::I32, r)
                }
            }
            I::Redux(k) => {
                let mask = self.expr(&args[0]);
                let v = self.expr(&args[1]);
                let signed = is_signed(ty);
                let op = match k {
                    ReduxKind::Add => ReduxOp::Add,
                    ReduxKind::Min if signed => ReduxOp::Smin,
                    ReduxKind::Min => ReduxOp::Umin,
                    ReduxKind::Max if signed => ReduxOp::Smax,
                    ReduxKind::Max => ReduxOp::Umax,
                    ReduxKind::And => ReduxOp::And,
                    ReduxKind::Or => ReduxOp::Or,
                    ReduxKind::Xor => ReduxOp::Xor,
                };
                self.b.redux(op, v, mask)
            }
            I::Match { all } => self.match_lanes(all, args),
            I::ActiveMask => self.b.special(SpecialReg::ActiveMask),
            I::Clock64 => self.b.special(SpecialReg::Clock64),
            I::Special(reg) => self.b.special(reg),
            I::Popc | I::Clz => {
                let x = self.expr(&args[0]);
                let opcode = if op == I::Popc {
                    Opcode::Popcnt
                } else {
                    Opcode::Clz
                };
                let n = self.b.unary(opcode, x);
                self.count_as_int(n)
            }
            I::Ffs => {
                // The lowest set bit alone, then its position from the top:
                // `bits - clz(x & -x)`, which is 0 for x == 0 as CUDA wants.
                let x = self.expr(&args[0]);
                let t = self.b.value_type(x);
                let neg = self.b.unary(Opcode::Ineg, x);
                let low = self.b.binary(Opcode::Band, x, neg);
                let lead = self.b.unary(Opcode::Clz, low);
                let bits = self.b.iconst(t, i64::from(t.bits()));
                let pos = self.b.isub(bits, lead);
                self.count_as_int(pos)
            }
            I::Dp4a { signed } => {
                // A `char4`/`uchar4` value is the address of its 4-byte
                // aligned bytes: one word load reads them.
                let [a, b, c] = [0, 1, 2].map(|i| {
                    let v = self.expr(&args[i]);
                    if args[i].ty.is_struct() {
                        let flags = midend::ir::MemFlags {
                            align: 4,
                            ..Default::default()
                        };
                        self.b.load(Type::I32, v, flags)
                    } else {
                        v
                    }
                });
                let opcode = if signed { Opcode::Dp4aS } else { Opcode::Dp4aU };
                let data = midend::ir::InstData::Ternary {
                    opcode,
                    args: [a, b, c],
                };
                self.b.build_value(data, Type::I32)
            }
            I::Brev => {
                let x = self.expr(&args[0]);
                self.b.unary(Opcode::Bitrev, x)
            }
            I::Ldg => {
                // `__ldg` reads global memory through the read-only path;
                // like nvcc, convert the pointer to a global one first.
                let p = self.expr(&args[0]);
                let p = self.pointer_into(AddrSpace::Global, p);
                if ty.is_struct() {
                    // A vector type: its members, read-only, into a temporary.
                    let tmp = self.temp_struct(ty);
                    let hints = super::aggregate::CopyHints {
                        invariant: true,
                        ..Default::default()
                    };
                    self.copy_struct_with(tmp, p, ty, &hints);
                    return Some(tmp);
                }
                let flags = MemFlags {
                    invariant: true,
                    ..MemFlags::default()
                };
                self.load(p, ty, flags)
            }
            I::CacheLoad(c) => return Some(self.cache_load(c, args, ty)),
            I::CacheStore(c) => {
                self.cache_store(c, args);
                return None;
            }
            I::IsSpace(s) => {
                let p = self.expr(&args[0]);
                let space = match s {
                    SpaceKind::Global => AddrSpace::Global,
                    SpaceKind::Shared => AddrSpace::Shared,
                    SpaceKind::Constant => AddrSpace::Const,
                    SpaceKind::Local => AddrSpace::Local,
                };
                let r = self.b.is_space(space, p);
                self.b.convert(Opcode::Zext, Type::I32, r)
            }
            I::CvtaGenericToShared => {
                let p = self.expr(&args[0]);
                let s = self.pointer_into(AddrSpace::Shared, p);
                self.b.convert(Opcode::Ptrtoint, Type::I64, s)
            }
            I::CvtaSharedToGeneric => {
                let a = self.expr(&args[0]);
                let s = self
                    .b
                    .convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Shared), a);
                self.b.addrspacecast(AddrSpace::Generic, s)
            }
            I::Math(f) => self.math(f, args, ty),
            I::Remquo => {
                let v: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                self.remquo(v[0], v[1], v[2])
            }
            I::NormArray { reciprocal } => {
                let dim = self.expr(&args[0]);
                let p = self.expr(&args[1]);
                let t = if *ty == CType::FLOAT {
                    Type::F32
                } else {
                    Type::F64
                };
                self.norm_array(dim, p, t, reciprocal)
            }
            I::MinMax { .. }
            | I::Abs
            | I::Reinterpret
            | I::DoubleHalf { .. }
            | I::HiLoToDouble
            | I::ConvertRounded(_)
            | I::Mul24
            | I::MulHi
            | I::Sad
            | I::BytePerm
            | I::ByteSwap
            | I::NextAfter
            | I::FunnelShift { .. }
            | I::HalfAdd { .. }
            | I::Classify(_)
            | I::Ldexp
            | I::Frexp
            | I::Logb { .. }
            | I::Modf
            | I::RoundedArith { .. } => self.device_fn(op, args, ty),
            I::SimdVideo(f) => self.simd_video(f, args),
        };
        Some(v)
    }

    /// `__match_any_sync` / `__match_all_sync`: the value's bits (a float
    /// as its integer of the same width), and for `all` the predicate,
    /// which holds exactly when the result is nonzero, stored to `pred`.
    fn match_lanes(&mut self, all: bool, args: &[Expr]) -> Value {
        let mask = self.expr(&args[0]);
        let mut v = self.expr(&args[1]);
        let t = self.b.value_type(v);
        if t.is_float() {
            let bits = if t == Type::F64 { Type::I64 } else { Type::I32 };
            v = self.b.convert(Opcode::Bitcast, bits, v);
        }
        let mode = if all { MatchMode::All } else { MatchMode::Any };
        let r = self.b.match_lanes(mode, v, mask);
        if all {
            let pred = self.expr(&args[2]);
            let zero = self.b.iconst(Type::I32, 0);
            let agree = self.b.icmp(midend::ir::IntCC::Ne, r, zero);
            let agree = self.b.convert(Opcode::Zext, Type::I32, agree);
            self.b.store(agree, pred, MemFlags::default());
        }
        r
    }

    /// `p` as a pointer into `space`: unchanged if it already is one, else
    /// through generic (the program promises that it points there).
    pub(super) fn pointer_into(&mut self, space: AddrSpace, p: Value) -> Value {
        if self.b.value_type(p) == Type::Ptr(space) {
            return p;
        }
        let p = self.coerce(p, Type::Ptr(AddrSpace::Generic));
        self.b.addrspacecast(space, p)
    }

    /// A 64-bit count (of `__popcll`, ...) as the `int` CUDA returns.
    fn count_as_int(&mut self, v: Value) -> Value {
        if self.b.value_type(v) == Type::I64 {
            self.b.convert(Opcode::Trunc, Type::I32, v)
        } else {
            v
        }
    }

    /// The address operand of an atomic. PTX atomics work on global, shared
    /// and generic addresses; any other known space goes through generic.
    pub(super) fn atomic_pointer(&mut self, e: &Expr) -> Value {
        let p = self.expr(e);
        match self.b.value_type(p) {
            Type::Ptr(AddrSpace::Global | AddrSpace::Shared | AddrSpace::Generic) => p,
            _ => self.coerce(p, Type::Ptr(AddrSpace::Generic)),
        }
    }

    fn atomic(&mut self, op: AtomicKind, scope: Scope, args: &[Expr], ty: &CType) -> Value {
        if crate::half::pair_format(ty).is_some() {
            let p = self.atomic_pointer(&args[0]);
            return self.half_pair_atomic_add(mem_scope(scope), p, &args[1], ty);
        }
        if let CType::Struct(def) = ty {
            return self.vector_atomic_add(scope, args, def);
        }
        let p = self.atomic_pointer(&args[0]);
        let mut v = self.expr(&args[1]);

        let signed = is_signed(ty);
        let aop = match op {
            AtomicKind::Add => AtomicOp::Add,
            AtomicKind::Sub => {
                v = self.b.unary(Opcode::Ineg, v);
                AtomicOp::Add
            }
            AtomicKind::Exch => AtomicOp::Exch,
            AtomicKind::Min if signed => AtomicOp::Smin,
            AtomicKind::Min => AtomicOp::Umin,
            AtomicKind::Max if signed => AtomicOp::Smax,
            AtomicKind::Max => AtomicOp::Umax,
            AtomicKind::Inc => AtomicOp::Inc,
            AtomicKind::Dec => AtomicOp::Dec,
            AtomicKind::And => AtomicOp::And,
            AtomicKind::Or => AtomicOp::Or,
            AtomicKind::Xor => AtomicOp::Xor,
        };
        self.b.atomic_rmw(aop, mem_scope(scope), p, v)
    }

    /// `atomicAdd` on `float2`/`float4`: one `atomic_vec add` of the
    /// elements (each added atomically on its own, as PTX's vector `atom`
    /// does). Struct values live in memory, so the elements are loaded
    /// from the argument and the old ones stored to a fresh temporary,
    /// which is the result.
    fn vector_atomic_add(&mut self, scope: Scope, args: &[Expr], def: &StructDef) -> Value {
        // Only global memory has vector atomics; a pointer in another known
        // space goes through generic, and memory-space inference (or its
        // check at -O0) reports it.
        let p = self.expr(&args[0]);
        let p = match self.b.value_type(p) {
            Type::Ptr(AddrSpace::Global | AddrSpace::Generic) => p,
            _ => self.coerce(p, Type::Ptr(AddrSpace::Generic)),
        };
        let src = self.expr(&args[1]);
        let align = MemFlags {
            align: def.align as u32,
            ..MemFlags::default()
        };
        let mut elems = Vec::new();
        for f in &def.fields {
            let at = self.field_at(src, f.offset);
            let flags = if f.offset == 0 {
                align.clone()
            } else {
                MemFlags::default()
            };
            elems.push(self.b.load(Type::F32, at, flags));
        }
        let olds = self
            .b
            .atomic_vec(AtomicOp::Add, mem_scope(scope), p, &elems);
        let ty = CType::Struct(std::sync::Arc::new(def.clone()));
        let out = self.temp_struct(&ty);
        for (f, old) in def.fields.iter().zip(olds) {
            let at = self.field_at(out, f.offset);
            self.b.store(old, at, MemFlags::default());
        }
        out
    }

    /// `base` plus a constant byte offset.
    fn field_at(&mut self, base: Value, off: u64) -> Value {
        if off == 0 {
            return base;
        }
        let k = self.b.iconst(Type::I64, off as i64);
        self.b.ptroffset(base, k)
    }

    /// `__shfl*_sync(mask, v, lane, width)`. The `c` operand of PTX
    /// `shfl.sync` packs the segment mask `(32 - width) << 8` with the
    /// clamp lane (31 for idx/down/xor; 0 for up, which clamps at the
    /// segment start), exactly as CUDA's headers compute it. 64-bit values
    /// travel as two 32-bit halves.
    fn shuffle(&mut self, k: ShflKind, args: &[Expr]) -> Value {
        let mask = self.expr(&args[0]);
        let v = self.expr(&args[1]);
        let lane = self.expr(&args[2]);
        let width = self.expr(&args[3]);
        let mode = match k {
            ShflKind::Idx => ShuffleMode::Idx,
            ShflKind::Up => ShuffleMode::Up,
            ShflKind::Down => ShuffleMode::Down,
            ShflKind::Xor => ShuffleMode::Bfly,
        };
        let warp = self.b.iconst(Type::I32, 32);
        let rest = self.b.isub(warp, width);
        let eight = self.b.iconst(Type::I32, 8);
        let seg = self.b.binary(Opcode::Ishl, rest, eight);
        let clamp = if k == ShflKind::Up {
            seg
        } else {
            let last = self.b.iconst(Type::I32, 0x1f);
            self.b.binary(Opcode::Bor, seg, last)
        };
        let ty = self.b.value_type(v);
        if ty.bits() == 32 {
            return self.b.shuffle(mode, v, lane, clamp, mask);
        }
        let bits = if ty == Type::F64 {
            self.b.convert(Opcode::Bitcast, Type::I64, v)
        } else {
            v
        };
        let lo = self.b.convert(Opcode::Trunc, Type::I32, bits);
        let shift = self.b.iconst(Type::I64, 32);
        let high = self.b.binary(Opcode::Ushr, bits, shift);
        let hi = self.b.convert(Opcode::Trunc, Type::I32, high);
        let lo = self.b.shuffle(mode, lo, lane, clamp, mask);
        let hi = self.b.shuffle(mode, hi, lane, clamp, mask);
        let lo = self.b.convert(Opcode::Zext, Type::I64, lo);
        let hi = self.b.convert(Opcode::Zext, Type::I64, hi);
        let hi = self.b.binary(Opcode::Ishl, hi, shift);
        let joined = self.b.binary(Opcode::Bor, hi, lo);
        if ty == Type::F64 {
            self.b.convert(Opcode::Bitcast, Type::F64, joined)
        } else {
            joined
        }
    }
}
