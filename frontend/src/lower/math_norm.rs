//! The Euclidean norms of CUDA's library: `rhypot`, `norm3d`, `norm4d`,
//! `rnorm3d`, `rnorm4d` (and their `float` forms), `norm(dim, p)` and
//! `rnorm(dim, p)` over an array, and `normcdfinvf`.
//!
//! The `float` forms sum their squares in `double`, where a square of a
//! `float` is exact and neither overflows nor underflows, and round the
//! root (or its reciprocal) once to `float`. The `double` forms scale every
//! operand by the power of two that brings the largest to `[1, 2)` (as
//! `hypot` does), sum the squares as a double-double and correct the
//! rounded root by the residual, so the result is within about half an ulp
//! plus a rounding. docs/math.md gives the bounds and the measurements.

use super::math_f64::F64Math;
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{FloatCC, IntCC, MemFlags, Opcode, Type, Value};

/// `sqrt(2)` in two `float` parts, for `normcdfinvf`.
const SQRT2_HI: f32 = std::f32::consts::SQRT_2;
const SQRT2_LO: f32 = 2.420_323_3e-8;

impl FunctionLowerer<'_, '_> {
    /// `sqrt(Σ v²)` (or its reciprocal) of `float` operands: the squares
    /// are exact in `double` and their sum is rounded at most three times
    /// there (a relative error near 2^-51), so the result rounded to
    /// `float` is within about half an ulp. An infinite operand gives
    /// `+inf` (reciprocal `+0`) even with a NaN, as `hypot`.
    pub(super) fn norm_f32(&mut self, v: &[Value], reciprocal: bool) -> Value {
        let wide: Vec<Value> = v
            .iter()
            .map(|&a| self.b.convert(Opcode::Fpext, Type::F64, a))
            .collect();
        let mut s = self.b.fmul(wide[0], wide[0]);
        for &a in &wide[1..] {
            s = self.b.fma(a, a, s);
        }
        let root = self.b.unary(Opcode::Sqrt, s);
        let r = if reciprocal {
            let one = self.b.fconst(Type::F64, 1.0);
            self.b.binary(Opcode::Fdiv, one, root)
        } else {
            root
        };
        let r = self.infinite_operand_wins(&wide, r, reciprocal);
        self.b.convert(Opcode::Fptrunc, Type::F32, r)
    }

    /// `sqrt(Σ v²)` (or its reciprocal) of `double` operands
    /// ([`F64Math::norm_scaled`]).
    pub(super) fn norm_f64(&mut self, v: &[Value], reciprocal: bool) -> Value {
        let r = self.f64_math().norm_scaled(v, reciprocal);
        self.infinite_operand_wins(v, r, reciprocal)
    }

    /// `r`, or `+inf` (`+0` for a reciprocal) when an operand is infinite:
    /// C's `hypot` ignores a NaN then, and so do CUDA's norms.
    fn infinite_operand_wins(&mut self, v: &[Value], r: Value, reciprocal: bool) -> Value {
        let t = self.b.value_type(r);
        let inf = self.b.fconst(t, f64::INFINITY);
        let mut any = None;
        for &a in v {
            let m = self.b.unary(Opcode::Fabs, a);
            let is_inf = self.b.fcmp(FloatCC::Oeq, m, inf);
            any = Some(match any {
                None => is_inf,
                Some(p) => self.b.binary(Opcode::Bor, p, is_inf),
            });
        }
        let special = if reciprocal {
            self.b.fconst(t, 0.0)
        } else {
            inf
        };
        self.b.select(any.expect("a norm has operands"), special, r)
    }

    /// `normf(dim, p)`, `norm` (and `rnormf`, `rnorm`): the length of the
    /// `dim` elements at `p` (none for `dim <= 0`: `+0`, or `+inf`). A
    /// `float` array as `norm3df`, in one pass: the squares summed in
    /// `double`. A `double` array in two: the largest magnitude first,
    /// whose exponent `e` gives the scale `2^-e` the squares are summed
    /// at (one `fma` each; CUDA states no bound for these). An infinite
    /// element gives `+inf` (`+0`) even with a NaN, as the other norms.
    pub(super) fn norm_array(&mut self, dim: Value, p: Value, t: Type, reciprocal: bool) -> Value {
        let zero = self.b.fconst(Type::F64, 0.0);
        let (sum, m, e) = if t == Type::F32 {
            let acc = self.fold_array(dim, p, t, vec![zero, zero], |s, v, acc| {
                let w = s.b.convert(Opcode::Fpext, Type::F64, v);
                let a = s.b.unary(Opcode::Fabs, w);
                vec![s.b.fma(w, w, acc[0]), s.b.binary(Opcode::Fmax, acc[1], a)]
            });
            (acc[0], acc[1], None)
        } else {
            let m = self.fold_array(dim, p, t, vec![zero], |s, v, acc| {
                let a = s.b.unary(Opcode::Fabs, v);
                vec![s.b.binary(Opcode::Fmax, acc[0], a)]
            })[0];
            let e = self.f64_math().clamped_exponent(m);
            let ne = self.b.unary(Opcode::Ineg, e);
            let down = self.f64_math().pow2i(ne);
            let sum = self.fold_array(dim, p, t, vec![zero], |s, v, acc| {
                let c = s.b.fmul(v, down);
                vec![s.b.fma(c, c, acc[0])]
            })[0];
            (sum, m, Some((e, ne)))
        };
        let root = self.b.unary(Opcode::Sqrt, sum);
        let r = if reciprocal {
            let one = self.b.fconst(Type::F64, 1.0);
            self.b.binary(Opcode::Fdiv, one, root)
        } else {
            root
        };
        let r = match e {
            Some((e, ne)) => {
                let back = self.f64_math().pow2i(if reciprocal { ne } else { e });
                self.b.fmul(r, back)
            }
            None => r,
        };
        // All zeros (or none) sum to `+0`: `+0` or `+inf` come out as they are.
        let r = self.infinite_operand_wins(&[m], r, reciprocal);
        if t == Type::F32 {
            self.b.convert(Opcode::Fptrunc, Type::F32, r)
        } else {
            r
        }
    }

    /// `for (i = 0; i < dim; ++i) acc = step(p[i], acc)`, the elements of
    /// type `t`; the accumulators after the loop.
    fn fold_array(
        &mut self,
        dim: Value,
        p: Value,
        t: Type,
        init: Vec<Value>,
        step: impl Fn(&mut Self, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let header = self.b.create_block();
        let i = self.b.append_block_param(header, Type::I32);
        let acc: Vec<Value> = init
            .iter()
            .map(|&v| {
                let ty = self.b.value_type(v);
                self.b.append_block_param(header, ty)
            })
            .collect();
        let body = self.b.create_block();
        let exit = self.b.create_block();
        let out: Vec<Value> = init
            .iter()
            .map(|&v| {
                let ty = self.b.value_type(v);
                self.b.append_block_param(exit, ty)
            })
            .collect();
        let zero = self.b.iconst(Type::I32, 0);
        let mut entry = vec![zero];
        entry.extend(&init);
        self.b.jump(header, entry);
        self.b.switch_to_block(header);
        let more = self.b.icmp(IntCC::Slt, i, dim);
        self.b.brif(more, body, vec![], exit, acc.clone());
        self.b.seal_block(body);
        self.b.switch_to_block(body);
        let wide = self.b.convert(Opcode::Sext, Type::I64, i);
        let size = self.b.iconst(Type::I64, if t == Type::F32 { 4 } else { 8 });
        let offset = self.b.binary(Opcode::Imul, wide, size);
        let at = self.b.ptroffset(p, offset);
        let v = self.b.load(t, at, MemFlags::default());
        let mut next = vec![];
        let one = self.b.iconst(Type::I32, 1);
        next.push(self.b.iadd(i, one));
        next.extend(step(self, v, &acc));
        self.b.jump(header, next);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.b.switch_to_block(exit);
        out
    }

    /// `normcdfinvf(x) = -√2·erfcinvf(2x)`: `2x` is exact (and `x` outside
    /// `[0, 1]` stays outside `[0, 2]`, NaN), and the product is rounded
    /// once with `√2` in two parts. Adding `+0` makes `x = 1/2` give `+0`.
    pub(super) fn normcdfinv_f32(&mut self, x: Value) -> Value {
        let twice = self.b.fadd(x, x);
        let e = self.erfcinv_f32(twice);
        let lo = self.c32(-SQRT2_LO);
        let hi = self.c32(-SQRT2_HI);
        let small = self.b.fmul(e, lo);
        let r = self.b.fma(e, hi, small);
        let zero = self.c32(0.0);
        self.b.fadd(r, zero)
    }
}

impl F64Math<'_, '_> {
    /// `2^e·sqrt(Σ (v·2^-e)²)` (or its reciprocal) with `e` the exponent
    /// of the largest `|v|`, clamped to ±1000 as in `hypot` (the scalings
    /// are exact; a square too small to matter may underflow). The sum of
    /// squares is a double-double `hi + lo` (each square exact by `fma`,
    /// the sums by two-sums), and the rounded root `r = sqrt(hi)` is
    /// corrected once by the residual `hi + lo - r²` (exact in `fma`):
    /// `r + res/(2r)`; the reciprocal `y = 1/r` by `y + y·(1 - s·y²)/2`
    /// with `y² = q + ql` exactly. Zeros give `+0` (`+inf`), NaN NaN (unless
    /// an operand is infinite: the caller's select).
    pub(super) fn norm_scaled(&mut self, v: &[Value], reciprocal: bool) -> Value {
        let mags: Vec<Value> = v.iter().map(|&a| self.b.unary(Opcode::Fabs, a)).collect();
        let m = mags[1..]
            .iter()
            .fold(mags[0], |m, &a| self.b.binary(Opcode::Fmax, m, a));
        let e = self.clamped_exponent(m);
        let ne = self.b.unary(Opcode::Ineg, e);
        let down = self.pow2i(ne);
        let (hi, lo) = self.sum_of_squares(&mags, down);
        let r = self.b.unary(Opcode::Sqrt, hi);
        let nr = self.neg(r);
        let res = self.b.fma(nr, r, hi);
        let res = self.b.fadd(res, lo);
        let (r, back) = if reciprocal {
            let one = self.d(1.0);
            let y = self.b.binary(Opcode::Fdiv, one, r);
            let q = self.b.fmul(y, y);
            let nq = self.neg(q);
            let ql = self.b.fma(y, y, nq);
            let nhi = self.neg(hi);
            let err = self.b.fma(nhi, q, one);
            let err = self.b.fma(nhi, ql, err);
            let nlo = self.neg(lo);
            let err = self.b.fma(nlo, q, err);
            let half = self.d(0.5);
            let hy = self.b.fmul(y, half);
            (self.b.fma(hy, err, y), ne)
        } else {
            let twice = self.b.fadd(r, r);
            let c = self.b.binary(Opcode::Fdiv, res, twice);
            (self.b.fadd(r, c), e)
        };
        let scale = self.pow2i(back);
        let r = self.b.fmul(r, scale);
        // All zeros (a NaN leaves `hi` NaN): `r` would be 0/0 or inf·0.
        let zero = self.cmp(FloatCC::Oeq, hi, 0.0);
        let at_zero = self.d(if reciprocal { f64::INFINITY } else { 0.0 });
        self.b.select(zero, at_zero, r)
    }

    /// The unbiased exponent of `m >= 0` (from its bits), clamped to
    /// `[-1000, 1000]` so that `2^-e` and `2^e` are normal.
    pub(super) fn clamped_exponent(&mut self, m: Value) -> Value {
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, m);
        let k52 = self.l(52);
        let field = self.b.binary(Opcode::Ushr, bits, k52);
        let bias = self.l(1023);
        let e = self.b.isub(field, bias);
        let lo = self.l(-1000);
        let hi = self.l(1000);
        let e = self.b.binary(Opcode::Smax, e, lo);
        self.b.binary(Opcode::Smin, e, hi)
    }

    /// `Σ (a·down)²` as `hi + lo`: each square exact (`fma`), added by
    /// two-sums, the rounding errors gathered in `lo`.
    fn sum_of_squares(&mut self, mags: &[Value], down: Value) -> (Value, Value) {
        let mut hi = None;
        let mut lo = None;
        for &a in mags {
            let c = self.b.fmul(a, down);
            let p = self.b.fmul(c, c);
            let np = self.neg(p);
            let pe = self.b.fma(c, c, np);
            let Some(h) = hi else {
                hi = Some(p);
                lo = Some(pe);
                continue;
            };
            let (s, se) = self.exact_sum(h, p);
            let l = lo.expect("set with hi");
            let l = self.b.fadd(l, se);
            lo = Some(self.b.fadd(l, pe));
            hi = Some(s);
        }
        (hi.expect("a norm has operands"), lo.expect("set with hi"))
    }
}
