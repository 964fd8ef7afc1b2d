//! Lowering the SIMD video intrinsics (`simd_video.rs`): each lane is
//! taken out of its word into a 32-bit integer (sign- or zero-extended),
//! computed there exactly, and put back in place; `__vsads4` adds the
//! lanes' results instead. 8- and 16-bit lanes cannot overflow 32 bits,
//! so saturation is a clamp of the exact result; 32-bit lanes only wrap
//! (`__viaddmax_s32`) or compare.
//!
//! nvcc computes the classic forms with bit tricks on the whole word
//! (and `vabsdiff4`), the newer ones with `max.s16x2`-style instructions;
//! lane by lane in plain IR is the same function, runs on the interpreter
//! as it is, and leaves ptxas to schedule it.

use super::FunctionLowerer;
use crate::simd_video::{LaneCmp, SimdFn, SimdOp};
use crate::typed::Expr;
use crate::types::CType;
use midend::builder::InstBuilder;
use midend::ir::{IntCC, Opcode, Type, Value};

impl FunctionLowerer<'_, '_> {
    /// `f(args...)`: the word of lane results (or the sum, for `Sad`),
    /// after storing the per-lane predicates of `__vibmax`/`__vibmin`.
    pub(crate) fn simd_video(&mut self, f: SimdFn, args: &[Expr]) -> Value {
        let vals: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let (words, preds) = vals.split_at(f.operands());
        let mut word = self.b.iconst(Type::I32, 0);
        for lane in 0..f.lanes() {
            let xs: Vec<Value> = words.iter().map(|&w| self.lane(f, w, lane)).collect();
            let r = self.lane_op(f, &xs);
            word = if f.op == SimdOp::Sad {
                self.b.iadd(word, r)
            } else {
                let r = if f.relu { self.relu(r) } else { r };
                self.put_lane(f, word, r, lane)
            };
            if let Some(&ptr) = preds.get(self.pred_index(f, lane)) {
                let cc = if f.op == SimdOp::MaxPred {
                    LaneCmp::Ge
                } else {
                    LaneCmp::Le
                };
                let p = self.lane_cmp(f, cc, xs[0], xs[1]);
                self.store_value(ptr, p, &CType::Bool);
            }
        }
        word
    }

    /// Which `bool *` argument receives lane `lane`'s predicate: CUDA
    /// passes the high lane's first (`pred_hi, pred_lo`). Past the end
    /// for the intrinsics without predicates.
    fn pred_index(&self, f: SimdFn, lane: u32) -> usize {
        if f.predicates() == 0 {
            return usize::MAX;
        }
        (f.lanes() - 1 - lane) as usize
    }

    /// Lane `lane` of `word`, extended to 32 bits by the lanes' signedness.
    fn lane(&mut self, f: SimdFn, word: Value, lane: u32) -> Value {
        let w = f.lane_bits;
        if w == 32 {
            return word;
        }
        if f.signed {
            let up = self.b.iconst(Type::I32, i64::from(32 - w - lane * w));
            let high = self.b.binary(Opcode::Ishl, word, up);
            let down = self.b.iconst(Type::I32, i64::from(32 - w));
            self.b.binary(Opcode::Sshr, high, down)
        } else {
            let shift = self.b.iconst(Type::I32, i64::from(lane * w));
            let low = self.b.binary(Opcode::Ushr, word, shift);
            if lane + 1 == f.lanes() {
                // The shift left only this lane.
                return low;
            }
            self.mask_lane(f, low)
        }
    }

    /// The low `lane_bits` of `v`.
    fn mask_lane(&mut self, f: SimdFn, v: Value) -> Value {
        let mask = self.b.iconst(Type::I32, (1i64 << f.lane_bits) - 1);
        self.b.binary(Opcode::Band, v, mask)
    }

    /// `word` with lane `lane` (zero there) set to the low bits of `r`.
    fn put_lane(&mut self, f: SimdFn, word: Value, r: Value, lane: u32) -> Value {
        if f.lane_bits == 32 {
            return r;
        }
        // The top lane's shift drops the bits above it.
        let low = if lane + 1 == f.lanes() {
            r
        } else {
            self.mask_lane(f, r)
        };
        let shift = self.b.iconst(Type::I32, i64::from(lane * f.lane_bits));
        let placed = self.b.binary(Opcode::Ishl, low, shift);
        self.b.binary(Opcode::Bor, word, placed)
    }

    /// What one lane computes from its (extended) operands.
    fn lane_op(&mut self, f: SimdFn, x: &[Value]) -> Value {
        let (a, b) = (x[0], x.get(1).copied().unwrap_or(x[0]));
        match f.op {
            SimdOp::Add => self.b.iadd(a, b),
            SimdOp::Sub => self.b.isub(a, b),
            SimdOp::Neg => self.b.unary(Opcode::Ineg, a),
            SimdOp::Abs => self.lane_abs(a),
            // Only the bounds a result can pass are checked: an unsigned
            // sum is never negative, an unsigned difference never too
            // large, a negated or absolute signed lane never too small.
            SimdOp::AddSat => {
                let s = self.b.iadd(a, b);
                self.saturate(f, s, f.signed, true)
            }
            SimdOp::SubSat => {
                let d = self.b.isub(a, b);
                self.saturate(f, d, true, f.signed)
            }
            SimdOp::NegSat => {
                let n = self.b.unary(Opcode::Ineg, a);
                self.saturate(f, n, false, true)
            }
            SimdOp::AbsSat => {
                let m = self.lane_abs(a);
                self.saturate(f, m, false, true)
            }
            SimdOp::AbsDiff | SimdOp::Sad => {
                let big = self.lane_minmax(f, true, a, b);
                let small = self.lane_minmax(f, false, a, b);
                self.b.isub(big, small)
            }
            SimdOp::Avg => self.average(f, a, b),
            SimdOp::HalfAdd => {
                let s = self.b.iadd(a, b);
                let one = self.b.iconst(Type::I32, 1);
                self.b.binary(Opcode::Ushr, s, one)
            }
            SimdOp::Max | SimdOp::MaxPred => self.lane_minmax(f, true, a, b),
            SimdOp::Min | SimdOp::MinPred => self.lane_minmax(f, false, a, b),
            SimdOp::Compare { cmp, mask } => {
                let holds = self.lane_cmp(f, cmp, a, b);
                let yes = self.b.iconst(Type::I32, if mask { -1 } else { 1 });
                let no = self.b.iconst(Type::I32, 0);
                self.b.select(holds, yes, no)
            }
            SimdOp::Max3 | SimdOp::Min3 => {
                let max = f.op == SimdOp::Max3;
                let m = self.lane_minmax(f, max, a, b);
                self.lane_minmax(f, max, m, x[2])
            }
            SimdOp::AddMax | SimdOp::AddMin => {
                let s = self.b.iadd(a, b);
                let s = self.wrap(f, s);
                self.lane_minmax(f, f.op == SimdOp::AddMax, s, x[2])
            }
        }
    }

    /// `max(v, -v)`: the most negative lane value stays itself once
    /// wrapped into its lane.
    fn lane_abs(&mut self, v: Value) -> Value {
        let n = self.b.unary(Opcode::Ineg, v);
        self.b.binary(Opcode::Smax, v, n)
    }

    /// `v` (an exact 32-bit result of 8- or 16-bit lanes) clamped to the
    /// lane's range, at the bounds asked for.
    fn saturate(&mut self, f: SimdFn, v: Value, low: bool, high: bool) -> Value {
        let w = f.lane_bits;
        let (lo, hi) = if f.signed {
            (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
        } else {
            (0, (1i64 << w) - 1)
        };
        let v = if low {
            let lo = self.b.iconst(Type::I32, lo);
            self.b.binary(Opcode::Smax, v, lo)
        } else {
            v
        };
        if high {
            let hi = self.b.iconst(Type::I32, hi);
            self.b.binary(Opcode::Smin, v, hi)
        } else {
            v
        }
    }

    /// `v` wrapped into the lane and extended again, as the lane would
    /// hold it.
    fn wrap(&mut self, f: SimdFn, v: Value) -> Value {
        if f.lane_bits == 32 {
            return v;
        }
        if f.signed {
            let k = self.b.iconst(Type::I32, i64::from(32 - f.lane_bits));
            let high = self.b.binary(Opcode::Ishl, v, k);
            self.b.binary(Opcode::Sshr, high, k)
        } else {
            self.mask_lane(f, v)
        }
    }

    /// The signed average rounds half away from zero, the unsigned one
    /// half up: `(a + b + 1) >> 1`, or `(a + b) >> 1` for a negative sum.
    fn average(&mut self, f: SimdFn, a: Value, b: Value) -> Value {
        let s = self.b.iadd(a, b);
        let one = self.b.iconst(Type::I32, 1);
        let up = self.b.iadd(s, one);
        let s = if f.signed {
            let zero = self.b.iconst(Type::I32, 0);
            let negative = self.b.icmp(IntCC::Slt, s, zero);
            self.b.select(negative, s, up)
        } else {
            up
        };
        self.b.binary(Opcode::Sshr, s, one)
    }

    fn lane_minmax(&mut self, f: SimdFn, max: bool, a: Value, b: Value) -> Value {
        let op = match (max, f.signed) {
            (true, true) => Opcode::Smax,
            (true, false) => Opcode::Umax,
            (false, true) => Opcode::Smin,
            (false, false) => Opcode::Umin,
        };
        self.b.binary(op, a, b)
    }

    /// The comparison of two extended lanes, by the lanes' signedness.
    fn lane_cmp(&mut self, f: SimdFn, cmp: LaneCmp, a: Value, b: Value) -> Value {
        let cc = match (cmp, f.signed) {
            (LaneCmp::Eq, _) => IntCC::Eq,
            (LaneCmp::Ne, _) => IntCC::Ne,
            (LaneCmp::Lt, true) => IntCC::Slt,
            (LaneCmp::Le, true) => IntCC::Sle,
            (LaneCmp::Gt, true) => IntCC::Sgt,
            (LaneCmp::Ge, true) => IntCC::Sge,
            (LaneCmp::Lt, false) => IntCC::Ult,
            (LaneCmp::Le, false) => IntCC::Ule,
            (LaneCmp::Gt, false) => IntCC::Ugt,
            (LaneCmp::Ge, false) => IntCC::Uge,
        };
        self.b.icmp(cc, a, b)
    }

    /// `max(v, 0)`, signed (the `_relu` forms).
    fn relu(&mut self, v: Value) -> Value {
        let zero = self.b.iconst(Type::I32, 0);
        self.b.binary(Opcode::Smax, v, zero)
    }
}
