//! Lowering CUDA's half-precision operations (`crate::half`) to IR on
//! `f16` and `bf16` values, computing nvcc's bits.
//!
//! `__half` arithmetic is native (`fadd.f16` is PTX `add.f16`), and never
//! contracted (`passes/contract.rs`). `__nv_bfloat16` addition,
//! subtraction and multiplication are computed in `f32` and rounded once:
//! `f32` carries more than twice bf16's precision plus two bits, so the
//! double rounding is exact, and it needs no sm_90 (`add.bf16`). The fused
//! multiply-add is not exact that way, so both formats use the native
//! `fma`. Division follows CUDA's own sequences (an approximate `f32`
//! quotient, refined or rescaled at the edges) so that the bits are
//! nvcc's; `hsqrt`, `hrsqrt` and `hrcp` are the `f32` function of the
//! exact value, rounded once.

use super::FunctionLowerer;
use crate::half::{HalfFn, HalfOp};
use crate::typed::{CmpOp, Expr, RoundMode};
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{AtomicOp, FloatCC, IntCC, MemFlags, MemScope, Opcode, Type, Value};

/// The IR float condition of a comparison (`unordered`: also true on NaN).
fn float_cc(op: CmpOp, unordered: bool) -> FloatCC {
    match (op, unordered) {
        (CmpOp::Lt, false) => FloatCC::Olt,
        (CmpOp::Le, false) => FloatCC::Ole,
        (CmpOp::Gt, false) => FloatCC::Ogt,
        (CmpOp::Ge, false) => FloatCC::Oge,
        (CmpOp::Eq, false) => FloatCC::Oeq,
        (CmpOp::Ne, false) => FloatCC::One,
        (CmpOp::Lt, true) => FloatCC::Ult,
        (CmpOp::Le, true) => FloatCC::Ule,
        (CmpOp::Gt, true) => FloatCC::Ugt,
        (CmpOp::Ge, true) => FloatCC::Uge,
        (CmpOp::Eq, true) => FloatCC::Ueq,
        (CmpOp::Ne, true) => FloatCC::Une,
    }
}

impl FunctionLowerer<'_, '_> {
    /// Lowers `Intrinsic::Half(op)`; `ty` is the node's C type.
    pub(crate) fn half_intrinsic(&mut self, op: HalfOp, args: &[Expr], ty: &CType) -> Value {
        match op {
            HalfOp::Scalar(f) => {
                let lane = super::value_type(&args[0].ty);
                let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                self.half_fn(f, lane, &vals)
            }
            HalfOp::Lanes(f) => {
                let lane = self.pair_lane_type(&args[0].ty);
                let pairs: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                let mut out = [None, None];
                for (k, slot) in out.iter_mut().enumerate() {
                    let vals: Vec<Value> =
                        pairs.iter().map(|&p| self.load_lane(p, lane, k)).collect();
                    let r = self.half_fn(f, lane, &vals);
                    *slot = Some(if f.is_predicate() {
                        // `__heq2` and friends: 1.0 where it holds, else 0.0.
                        let one = self.b.fconst(lane, 1.0);
                        let zero = self.b.fconst(lane, 0.0);
                        self.b.select(r, one, zero)
                    } else {
                        r
                    });
                }
                let [Some(x), Some(y)] = out else {
                    unreachable!("both lanes are computed")
                };
                self.store_pair(ty, x, y)
            }
            HalfOp::AllLanes(f) | HalfOp::MaskLanes(f) => {
                let lane = self.pair_lane_type(&args[0].ty);
                let pairs: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                let mut holds = Vec::new();
                for k in 0..2 {
                    let vals: Vec<Value> =
                        pairs.iter().map(|&p| self.load_lane(p, lane, k)).collect();
                    holds.push(self.half_fn(f, lane, &vals));
                }
                if matches!(op, HalfOp::AllLanes(_)) {
                    return self.b.binary(Opcode::Band, holds[0], holds[1]);
                }
                let zero = self.b.iconst(Type::I32, 0);
                let low = self.b.iconst(Type::I32, 0xffff);
                let high = self.b.iconst(Type::I32, 0xffff_0000);
                let x = self.b.select(holds[0], low, zero);
                let y = self.b.select(holds[1], high, zero);
                self.b.binary(Opcode::Bor, x, y)
            }
            HalfOp::ToWord => {
                let v = self.expr(&args[0]);
                let lanes = match crate::half::pair_format(&args[0].ty) {
                    Some(_) => {
                        let lane = self.pair_lane_type(&args[0].ty);
                        vec![self.load_lane(v, lane, 0), self.load_lane(v, lane, 1)]
                    }
                    None => vec![v],
                };
                let word = self.half_word(&lanes);
                if self.b.value_type(word) == Type::I16 {
                    self.b.convert(Opcode::Zext, Type::I32, word)
                } else {
                    word
                }
            }
            HalfOp::FromWord => {
                let w = self.expr(&args[0]);
                match crate::half::pair_format(ty) {
                    Some(_) => {
                        let lane = self.pair_lane_type(ty);
                        let lanes = self.half_lanes(w, lane, 2);
                        self.store_pair(ty, lanes[0], lanes[1])
                    }
                    None => {
                        let lane = super::value_type(ty);
                        self.half_lanes(w, lane, 1)[0]
                    }
                }
            }
            HalfOp::IsInf => {
                let v = self.expr(&args[0]);
                let bits = self.b.convert(Opcode::Bitcast, Type::I16, v);
                let inf = if self.b.value_type(v) == Type::F16 {
                    0x7c00
                } else {
                    0x7f80
                };
                let pos = self.b.iconst(Type::I16, inf);
                let neg = self.b.iconst(Type::I16, inf | -0x8000);
                let is_pos = self.b.icmp(IntCC::Eq, bits, pos);
                let is_neg = self.b.icmp(IntCC::Eq, bits, neg);
                let (one, minus_one, zero) = (
                    self.b.iconst(Type::I32, 1),
                    self.b.iconst(Type::I32, -1),
                    self.b.iconst(Type::I32, 0),
                );
                let r = self.b.select(is_neg, minus_one, zero);
                self.b.select(is_pos, one, r)
            }
            HalfOp::FromFloat(mode) => {
                let x = self.exact_float_source(&args[0], mode);
                self.round_to_half(x, super::value_type(ty), mode)
            }
            HalfOp::Splat => {
                let lane = self.pair_lane_type(ty);
                let v = self.expr(&args[0]);
                let v = if self.b.value_type(v) == lane {
                    v
                } else {
                    self.b.convert(Opcode::Fptrunc, lane, v)
                };
                self.store_pair(ty, v, v)
            }
            HalfOp::Swap => {
                let lane = self.pair_lane_type(ty);
                let p = self.expr(&args[0]);
                let x = self.load_lane(p, lane, 0);
                let y = self.load_lane(p, lane, 1);
                self.store_pair(ty, y, x)
            }
            HalfOp::ToFloat2 => {
                let lane = self.pair_lane_type(&args[0].ty);
                let p = self.expr(&args[0]);
                let tmp = self.temp_struct(ty);
                for k in 0..2 {
                    let h = self.load_lane(p, lane, k);
                    let f = self.b.convert(Opcode::Fpext, Type::F32, h);
                    let at = self.offset(tmp, 4 * k as i64);
                    self.b.store(f, at, MemFlags::default());
                }
                tmp
            }
            HalfOp::FromFloat2 => {
                let lane = self.pair_lane_type(ty);
                let p = self.expr(&args[0]);
                let mut lanes = [p, p];
                for (k, l) in lanes.iter_mut().enumerate() {
                    let at = self.offset(p, 4 * k as i64);
                    let f = self.b.load(Type::F32, at, MemFlags::default());
                    *l = self.b.convert(Opcode::Fptrunc, lane, f);
                }
                self.store_pair(ty, lanes[0], lanes[1])
            }
        }
    }

    /// The IR type of a pair's lanes.
    fn pair_lane_type(&self, pair: &CType) -> Type {
        let fmt = crate::half::pair_format(pair).unwrap_or(crate::types::HalfFormat::F16);
        super::value_type(&CType::Half(fmt))
    }

    fn offset(&mut self, p: Value, bytes: i64) -> Value {
        if bytes == 0 {
            return p;
        }
        let k = self.b.iconst(Type::I64, bytes);
        self.b.ptroffset(p, k)
    }

    /// Lane `k` (0: `x`, 1: `y`) of the pair at `p`.
    fn load_lane(&mut self, p: Value, lane: Type, k: usize) -> Value {
        let at = self.offset(p, 2 * k as i64);
        self.b.load(lane, at, MemFlags::default())
    }

    /// A new pair `(x, y)` of type `ty` in a temporary; its address.
    fn store_pair(&mut self, ty: &CType, x: Value, y: Value) -> Value {
        let tmp = self.temp_struct(ty);
        self.b.store(x, tmp, MemFlags::default());
        let at = self.offset(tmp, 2);
        self.b.store(y, at, MemFlags::default());
        tmp
    }

    /// `atomicAdd` on `__half2` or `__nv_bfloat162` through the atomic's
    /// pointer `p`: one `atomic_vec add` of the pair's two lanes, which is
    /// one atomic of the 32-bit word (`atom.add.noftz.f16x2`); the old
    /// pair in a temporary.
    pub(crate) fn half_pair_atomic_add(
        &mut self,
        scope: MemScope,
        p: Value,
        v: &Expr,
        ty: &CType,
    ) -> Value {
        let lane = self.pair_lane_type(ty);
        let src = self.expr(v);
        let (x, y) = (self.load_lane(src, lane, 0), self.load_lane(src, lane, 1));
        let olds = self.b.atomic_vec(AtomicOp::Add, scope, p, &[x, y]);
        self.store_pair(ty, olds[0], olds[1])
    }

    /// `atomicAdd` on `__nv_bfloat16` or `__nv_bfloat162` below sm_90, as
    /// CUDA's header computes it: read the 16- or 32-bit word at `p`, then
    /// swap in the sum of `v` and the word last read (`__hadd(v, old)`,
    /// lane by lane) until the compare-and-swap finds the word unchanged.
    /// The result is the word the swap replaced.
    pub(crate) fn half_atomic_add_by_cas(&mut self, p: Value, v: &Expr, ty: &CType) -> Value {
        let pair = crate::half::pair_format(ty).is_some();
        let word = if pair { Type::I32 } else { Type::I16 };
        let v = self.expr(v);
        let addends = if pair {
            vec![
                self.load_lane(v, Type::BF16, 0),
                self.load_lane(v, Type::BF16, 1),
            ]
        } else {
            vec![v]
        };
        let first = self.b.load(word, p, MemFlags::default());
        let retry = self.b.create_block();
        let assumed = self.b.append_block_param(retry, word);
        let done = self.b.create_block();
        self.b.jump(retry, vec![first]);
        self.b.switch_to_block(retry);
        let lanes = self.half_lanes(assumed, Type::BF16, addends.len());
        let sums: Vec<Value> = addends
            .iter()
            .zip(lanes)
            .map(|(&a, b)| self.half_fn(HalfFn::Add, Type::BF16, &[a, b]))
            .collect();
        let new = self.half_word(&sums);
        let old = self.b.atomic_cas(MemScope::Gpu, p, assumed, new);
        let unchanged = self.b.icmp(IntCC::Eq, old, assumed);
        self.b.brif(unchanged, done, vec![], retry, vec![old]);
        self.b.seal_block(retry);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        let olds = self.half_lanes(assumed, Type::BF16, addends.len());
        if pair {
            self.store_pair(ty, olds[0], olds[1])
        } else {
            olds[0]
        }
    }

    /// The `count` lanes of type `lane` (`f16` or `bf16`) in the low bits
    /// of an integer word: one in the low 16 bits, or two (the low half
    /// first, as a pair lies in memory).
    fn half_lanes(&mut self, word: Value, lane: Type, count: usize) -> Vec<Value> {
        let mut words = vec![word];
        if count == 2 {
            let sixteen = self.b.iconst(self.b.value_type(word), 16);
            words.push(self.b.binary(Opcode::Ushr, word, sixteen));
        }
        words
            .into_iter()
            .map(|w| {
                let bits = if self.b.value_type(w) == Type::I16 {
                    w
                } else {
                    self.b.convert(Opcode::Trunc, Type::I16, w)
                };
                self.b.convert(Opcode::Bitcast, lane, bits)
            })
            .collect()
    }

    /// The word of one 16-bit float lane (`i16`) or of two (`i32`, the
    /// first low).
    fn half_word(&mut self, lanes: &[Value]) -> Value {
        let bits: Vec<Value> = lanes
            .iter()
            .map(|&l| self.b.convert(Opcode::Bitcast, Type::I16, l))
            .collect();
        let [lo, hi] = bits[..] else {
            return bits[0];
        };
        let lo = self.b.convert(Opcode::Zext, Type::I32, lo);
        let hi = self.b.convert(Opcode::Zext, Type::I32, hi);
        let sixteen = self.b.iconst(Type::I32, 16);
        let hi = self.b.binary(Opcode::Ishl, hi, sixteen);
        self.b.binary(Opcode::Bor, lo, hi)
    }

    /// One lane of a half function: `vals` are of type `lane`.
    fn half_fn(&mut self, f: HalfFn, lane: Type, vals: &[Value]) -> Value {
        let wide = |lw: &mut Self, v: Value| lw.b.convert(Opcode::Fpext, Type::F32, v);
        match f {
            HalfFn::Add | HalfFn::Sub | HalfFn::Mul => {
                let op = match f {
                    HalfFn::Add => Opcode::Fadd,
                    HalfFn::Sub => Opcode::Fsub,
                    _ => Opcode::Fmul,
                };
                if lane == Type::F16 {
                    return self.b.binary(op, vals[0], vals[1]);
                }
                let (a, b) = (wide(self, vals[0]), wide(self, vals[1]));
                let r = self.b.binary(op, a, b);
                self.b.convert(Opcode::Fptrunc, lane, r)
            }
            HalfFn::Div if lane == Type::F16 => self.hdiv_f16(vals[0], vals[1]),
            HalfFn::Div => self.hdiv_bf16(vals[0], vals[1]),
            HalfFn::Fma => self.b.fma(vals[0], vals[1], vals[2]),
            HalfFn::Neg => self.b.unary(Opcode::Fneg, vals[0]),
            HalfFn::Abs => self.b.unary(Opcode::Fabs, vals[0]),
            HalfFn::Min => self.b.binary(Opcode::Fmin, vals[0], vals[1]),
            HalfFn::Max => self.b.binary(Opcode::Fmax, vals[0], vals[1]),
            HalfFn::Cmp { op, unordered } => {
                let cc = float_cc(op, unordered);
                if lane == Type::F16 {
                    return self.b.fcmp(cc, vals[0], vals[1]);
                }
                // bf16 compares exactly as its f32 value (`setp.bf16` is sm_90).
                let (a, b) = (wide(self, vals[0]), wide(self, vals[1]));
                self.b.fcmp(cc, a, b)
            }
            HalfFn::Sqrt | HalfFn::Rsqrt | HalfFn::Rcp => {
                let x = wide(self, vals[0]);
                let r = match f {
                    HalfFn::Sqrt => self.b.unary(Opcode::Sqrt, x),
                    HalfFn::Rsqrt => self.b.unary(Opcode::Rsqrt, x),
                    _ => {
                        let one = self.b.fconst(Type::F32, 1.0);
                        self.b.binary(Opcode::Fdiv, one, x)
                    }
                };
                self.b.convert(Opcode::Fptrunc, lane, r)
            }
            HalfFn::Trunc | HalfFn::Ceil | HalfFn::Floor | HalfFn::Rint => {
                let op = match f {
                    HalfFn::Trunc => Opcode::Ftrunc,
                    HalfFn::Ceil => Opcode::Ceil,
                    HalfFn::Floor => Opcode::Floor,
                    _ => Opcode::Nearest,
                };
                let x = wide(self, vals[0]);
                let r = self.b.unary(op, x);
                self.b.convert(Opcode::Fptrunc, lane, r)
            }
            HalfFn::Exp2Approx | HalfFn::TanhApprox => {
                let op = if f == HalfFn::Exp2Approx {
                    Opcode::Ex2
                } else {
                    Opcode::Tanh
                };
                let x = wide(self, vals[0]);
                let r = self.b.unary(op, x);
                self.b.convert(Opcode::Fptrunc, lane, r)
            }
            HalfFn::MinNan => self.min_max_nan(false, lane, vals[0], vals[1]),
            HalfFn::MaxNan => self.min_max_nan(true, lane, vals[0], vals[1]),
            HalfFn::IsNan => {
                let x = wide(self, vals[0]);
                self.b.fcmp(FloatCC::Uno, x, x)
            }
            HalfFn::Saturate => self.half_saturate(lane, vals[0]),
            HalfFn::Relu => self.half_relu(lane, vals[0]),
        }
    }

    /// The canonical NaN of a 16-bit float type (`0x7fff`, as PTX's
    /// `min.NaN` and `fma.relu` give).
    fn half_canonical_nan(&mut self, lane: Type) -> Value {
        let bits = self.b.iconst(Type::I16, 0x7fff);
        self.b.convert(Opcode::Bitcast, lane, bits)
    }

    /// `__hmin_nan`, `__hmax_nan`: a NaN operand gives the canonical NaN.
    fn min_max_nan(&mut self, max: bool, lane: Type, a: Value, b: Value) -> Value {
        let (wa, wb) = (
            self.b.convert(Opcode::Fpext, Type::F32, a),
            self.b.convert(Opcode::Fpext, Type::F32, b),
        );
        let nan = self.b.fcmp(FloatCC::Uno, wa, wb);
        let op = if max { Opcode::Fmax } else { Opcode::Fmin };
        let r = self.b.binary(op, a, b);
        let canonical = self.half_canonical_nan(lane);
        self.b.select(nan, canonical, r)
    }

    /// The `_sat` step: NaN and values up to +0 (-0 included) to +0,
    /// values above 1 to 1.
    fn half_saturate(&mut self, lane: Type, x: Value) -> Value {
        let w = self.b.convert(Opcode::Fpext, Type::F32, x);
        let (zero32, one32) = (self.b.fconst(Type::F32, 0.0), self.b.fconst(Type::F32, 1.0));
        let positive = self.b.fcmp(FloatCC::Ogt, w, zero32);
        let above_one = self.b.fcmp(FloatCC::Ogt, w, one32);
        let (zero, one) = (self.b.fconst(lane, 0.0), self.b.fconst(lane, 1.0));
        let r = self.b.select(positive, x, zero);
        self.b.select(above_one, one, r)
    }

    /// The `_relu` step: a negative value to +0, a NaN to the canonical
    /// NaN.
    fn half_relu(&mut self, lane: Type, x: Value) -> Value {
        let w = self.b.convert(Opcode::Fpext, Type::F32, x);
        let zero32 = self.b.fconst(Type::F32, 0.0);
        let negative = self.b.fcmp(FloatCC::Ole, w, zero32);
        let nan = self.b.fcmp(FloatCC::Uno, w, w);
        let zero = self.b.fconst(lane, 0.0);
        let r = self.b.select(negative, zero, x);
        let canonical = self.half_canonical_nan(lane);
        self.b.select(nan, canonical, r)
    }

    /// `__hdiv` on `__half`, CUDA's way: `a · rcp(b)` in `f32`, rounded;
    /// where that is a nonzero value below `0x008f` (a subnormal that the
    /// approximate reciprocal may leave off by one), one Newton step on
    /// the quotient and a rounding again.
    fn hdiv_f16(&mut self, a: Value, b: Value) -> Value {
        let fa = self.b.convert(Opcode::Fpext, Type::F32, a);
        let fb = self.b.convert(Opcode::Fpext, Type::F32, b);
        // `rcp.approx` of an f16 value is never subnormal or in
        // `div.approx`'s flushed range, so `1 / fb` approximately is it.
        let one = self.b.fconst(Type::F32, 1.0);
        let rcp = self.b.binary(Opcode::FdivApprox, one, fb);
        let q = self.b.binary(Opcode::FmulRn, rcp, fa);
        let v = self.b.convert(Opcode::Fptrunc, Type::F16, q);
        let abs = self.b.unary(Opcode::Fabs, v);
        let tiny_bits = self.b.iconst(Type::I16, 0x008f);
        let tiny = self.b.convert(Opcode::Bitcast, Type::F16, tiny_bits);
        let zero = self.b.fconst(Type::F16, 0.0);
        let below = self.b.fcmp(FloatCC::Olt, abs, tiny);
        let nonzero = self.b.fcmp(FloatCC::Olt, zero, abs);
        let refine = self.b.binary(Opcode::Band, below, nonzero);
        let neg_fb = self.b.unary(Opcode::Fneg, fb);
        let err = self.b.fma(neg_fb, q, fa);
        let q2 = self.b.fma(rcp, err, q);
        let v2 = self.b.convert(Opcode::Fptrunc, Type::F16, q2);
        self.b.select(refine, v2, v)
    }

    /// `__hdiv` on `__nv_bfloat16`, CUDA's way: `div.approx.f32` of the
    /// values, with a divisor of magnitude at least 2^126 scaled by 1/4
    /// first (where `div.approx` would flush) and the quotient scaled back.
    fn hdiv_bf16(&mut self, a: Value, b: Value) -> Value {
        let fa = self.b.convert(Opcode::Fpext, Type::F32, a);
        let fb = self.b.convert(Opcode::Fpext, Type::F32, b);
        let mag = self.b.unary(Opcode::Fabs, fb);
        let limit = self.b.fconst(Type::F32, 2f64.powi(126));
        let big = self.b.fcmp(FloatCC::Oge, mag, limit);
        let quarter = self.b.fconst(Type::F32, 0.25);
        let scaled = self.b.binary(Opcode::FmulRn, fb, quarter);
        let d = self.b.select(big, scaled, fb);
        let q = self.b.binary(Opcode::FdivApprox, fa, d);
        let minus_zero = self.b.fconst(Type::F32, -0.0);
        let back = self.b.fma(q, quarter, minus_zero);
        let q = self.b.select(big, back, q);
        self.b.convert(Opcode::Fptrunc, Type::BF16, q)
    }

    /// The operand of a directed conversion to a half as an exact `f32`
    /// or `f64`: a `float` or `double` as it is, an integer of 32 bits or
    /// fewer as a `double` (exact), a 64-bit one rounded to `double` in the
    /// same direction (two roundings in one direction are one).
    fn exact_float_source(&mut self, arg: &Expr, mode: RoundMode) -> Value {
        let v = self.expr(arg);
        match &arg.ty {
            CType::Int { bits: 64, .. } => self.convert_rounded(v, &arg.ty, Type::F64, mode),
            CType::Int { signed, .. } => {
                let op = if *signed {
                    Opcode::Sitofp
                } else {
                    Opcode::Uitofp
                };
                self.b.convert(op, Type::F64, v)
            }
            _ => v,
        }
    }

    /// `x` (`f32` or `f64`) rounded to the 16-bit float type `to` in the
    /// direction `mode`: rounded to nearest, then stepped one unit toward
    /// `mode` where that went the wrong way (an overflow to infinity
    /// steps back to the largest finite value).
    fn round_to_half(&mut self, x: Value, to: Type, mode: RoundMode) -> Value {
        let r = self.b.convert(Opcode::Fptrunc, to, x);
        if mode == RoundMode::Nearest {
            return r;
        }
        let back = self.b.convert(Opcode::Fpext, self.b.value_type(x), r);
        let above = self.b.fcmp(FloatCC::Ogt, back, x);
        let below = self.b.fcmp(FloatCC::Olt, back, x);
        let bits = self.b.convert(Opcode::Bitcast, Type::I16, r);
        let zero_bits = self.b.iconst(Type::I16, 0);
        let negative = self.b.icmp(IntCC::Slt, bits, zero_bits);
        let one = self.b.iconst(Type::I16, 1);
        let minus_one = self.b.iconst(Type::I16, -1);
        let (step, delta) = match mode {
            RoundMode::Nearest => unreachable!("returned above"),
            // Up: a result below the source moves up (away from zero if
            // positive, toward it if negative).
            RoundMode::Up => (below, self.b.select(negative, minus_one, one)),
            RoundMode::Down => (above, self.b.select(negative, one, minus_one)),
            RoundMode::Zero => {
                // `back` has `r`'s sign, in a type every target compares.
                let zero = self.b.fconst(self.b.value_type(x), 0.0);
                let pos = self.b.fcmp(FloatCC::Ogt, back, zero);
                let neg = self.b.fcmp(FloatCC::Olt, back, zero);
                let out_pos = self.b.binary(Opcode::Band, above, pos);
                let out_neg = self.b.binary(Opcode::Band, below, neg);
                (self.b.binary(Opcode::Bor, out_pos, out_neg), minus_one)
            }
        };
        let adjust = self.b.select(step, delta, zero_bits);
        let bits = self.b.iadd(bits, adjust);
        self.b.convert(Opcode::Bitcast, to, bits)
    }
}
