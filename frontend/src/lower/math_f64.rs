//! The double-precision math library: `exp`, `exp2`, `log`, `log2`, `pow`,
//! `sin`, `cos`, `tanh` and `rsqrt` on `double`, built from correctly
//! rounded IR instructions (`fma`, `fmul`, `fdiv`, `nearest`, integer
//! operations on the bits). PTX has no `f64` transcendental instructions.
//!
//! Every function is expanded inline, without branches: special values
//! (NaN, infinities, zeros, subnormals) are handled by `select`s at the end.
//! The one exception is `sin`/`cos` of a huge argument (`|x| >= 2^50`),
//! which branches to a helper function emitted once per module
//! ([`MathHelpers`]).
//! The constants come from `math_f64_consts.rs`, which
//! `scripts/math_f64_constants.py` derives with exact arithmetic. The
//! methods and their measured accuracy are in docs/math.md; the test is
//! `tests/math_f64.rs`.

use super::math_f64_consts::*;
use super::FunctionLowerer;
use midend::builder::InstBuilder;
use midend::ir::{
    AbiParam, AddrSpace, FloatCC, FuncAttrs, FuncId, FuncKind, Function, GlobalVar, GlobalVarData,
    IntCC, Linkage, MemFlags, Module, Opcode, ParamAttrs, Signature, StackSlotData, Type, Value,
};
use midend::ssa::FunctionBuilder;

/// `log`'s operand parts: `x = 2^e · m` with `m` in `[sqrt(1/2), sqrt(2))`.
pub(super) struct LogParts {
    /// The exponent `e`, as a `double`.
    pub(super) e: Value,
    /// `m`.
    pub(super) m: Value,
    /// `f = m - 1`, exact.
    pub(super) f: Value,
}

/// The largest `|x|` (exclusive) for which `sin` and `cos` use the short
/// Cody–Waite reduction; larger arguments go to the Payne–Hanek helper
/// (docs/math.md).
pub(super) const SIN_COS_LIMIT: f64 = 1_125_899_906_842_624.0; // 2^50

/// `exp`'s reduction: `x = k·ln2 + r` with `|r| <= ln2/2` (about).
pub(super) struct ExpParts {
    /// `k` as an `i64`.
    pub(super) k: Value,
    /// `r`.
    pub(super) r: Value,
}

/// The helper functions and constant tables a module needs, emitted once
/// after every function is lowered (their ids follow the program's
/// functions and module variables): the math library's helper and tables,
/// and the string constants (`printf` formats, `assert` messages).
pub(super) struct MathHelpers {
    /// The id the next requested helper gets.
    next: u32,
    /// The id the next requested table gets (tables follow the program's
    /// module variables).
    next_global: u32,
    /// `__kernelc_sin_cos_large`, if some function calls it.
    sin_cos_large: Option<FuncId>,
    /// The tables requested so far, in id order: id, name, space, bytes
    /// (a string's with its NUL), alignment.
    tables: Vec<(GlobalVar, String, AddrSpace, Vec<u8>, u32)>,
    /// The string constants so far: each one's bytes (without the NUL)
    /// and its table.
    strings: Vec<(Vec<u8>, GlobalVar)>,
    /// `__kernelc_two_over_pi`, once requested.
    two_over_pi: Option<GlobalVar>,
    /// `__kernelc_sin_cos_coeffs`, once requested.
    sin_cos_coeffs: Option<GlobalVar>,
}

/// The name of the helper that computes `sin`/`cos` of `|x| >= 2^50`.
const SIN_COS_LARGE: &str = "__kernelc_sin_cos_large";

impl MathHelpers {
    /// `first_free` is the id the first helper will have, `first_global`
    /// the id of the first table.
    pub(super) fn new(first_free: usize, first_global: usize) -> Self {
        MathHelpers {
            next: first_free as u32,
            next_global: first_global as u32,
            sin_cos_large: None,
            tables: Vec::new(),
            two_over_pi: None,
            sin_cos_coeffs: None,
            strings: Vec::new(),
        }
    }

    fn table(&mut self, name: String, space: AddrSpace, bytes: Vec<u8>, align: u32) -> GlobalVar {
        let id = GlobalVar::from_u32(self.next_global);
        self.next_global += 1;
        self.tables.push((id, name, space, bytes, align));
        id
    }

    /// The string constant with these bytes: a `.global` array holding
    /// them and a NUL, named as nvcc names them (`$str`, then `$str$1`,
    /// ...; `$` is no C identifier's, so no user name clashes). Equal
    /// strings share one.
    pub(super) fn string(&mut self, bytes: &[u8]) -> GlobalVar {
        if let Some((_, g)) = self.strings.iter().find(|(b, _)| b == bytes) {
            return *g;
        }
        let name = match self.strings.len() {
            0 => "$str".to_string(),
            n => format!("$str${n}"),
        };
        let mut init = bytes.to_vec();
        init.push(0);
        let g = self.table(name, AddrSpace::Global, init, 1);
        self.strings.push((bytes.to_vec(), g));
        g
    }

    /// `__kernelc_two_over_pi`: 32 zero bits, then the bits of 2/π, in
    /// 32-bit words (the first bits in the high end of the first word).
    pub(super) fn two_over_pi(&mut self) -> GlobalVar {
        if let Some(g) = self.two_over_pi {
            return g;
        }
        let bytes = TWO_OVER_PI_WORDS
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>();
        let g = self.table("__kernelc_two_over_pi".into(), AddrSpace::Const, bytes, 4);
        self.two_over_pi = Some(g);
        g
    }

    /// What `sin`, `cos`, `tan` and `sincos` need: the Payne–Hanek helper
    /// (with its table) and the polynomial table.
    pub(super) fn trig(&mut self) -> Trig {
        self.two_over_pi();
        let large = *self.sin_cos_large.get_or_insert_with(|| {
            let id = FuncId::from_u32(self.next);
            self.next += 1;
            id
        });
        Trig {
            large,
            coeffs: self.sin_cos_coeffs(),
        }
    }

    /// `__kernelc_sin_cos_coeffs`: the sine polynomial's coefficients, then
    /// the cosine's ([`F64Math::sin_cos_poly`]).
    pub(super) fn sin_cos_coeffs(&mut self) -> GlobalVar {
        if let Some(g) = self.sin_cos_coeffs {
            return g;
        }
        let bytes = SIN_TAYLOR
            .iter()
            .chain(&COS_TAYLOR)
            .flat_map(|c| c.to_le_bytes())
            .collect::<Vec<u8>>();
        let g = self.table(
            "__kernelc_sin_cos_coeffs".into(),
            AddrSpace::Const,
            bytes,
            8,
        );
        self.sin_cos_coeffs = Some(g);
        g
    }

    /// Appends the requested tables and helpers to `module`.
    pub(super) fn emit(self, module: &mut Module, ftz: bool) {
        for (id, name, space, init, align) in self.tables {
            let pushed = module.push_global(GlobalVarData {
                name,
                space,
                size: init.len() as u32,
                align,
                init: Some(init),
                linkage: Linkage::Internal,
                dynamic: false,
                managed: false,
                relocs: Vec::new(),
            });
            debug_assert_eq!(pushed, id, "tables are appended in id order");
        }
        let Some(id) = self.sin_cos_large else {
            return;
        };
        let table = self.two_over_pi.expect("requested with the helper");
        // (r, k) come back in a 16-byte `.param` result (`sret`): `r` at
        // offset 0, `k` at 8.
        let out = AbiParam {
            ty: Type::Ptr(AddrSpace::Generic),
            attrs: ParamAttrs {
                sret: Some((16, 8)),
                ..ParamAttrs::default()
            },
        };
        let sig = Signature {
            params: vec![out, AbiParam::new(Type::F64)],
            returns: vec![],
        };
        let mut attrs = FuncAttrs::new(FuncKind::Device, Linkage::Internal);
        attrs.ftz = ftz;
        let pushed = module.push_function(Function::new(SIN_COS_LARGE.to_string(), sig, attrs));
        debug_assert_eq!(pushed, id, "helpers are appended in id order");
        let mut b = FunctionBuilder::new(&mut module.functions[pushed]);
        F64Math { b: &mut b }.sin_cos_large_body(table);
        b.finalize();
    }
}

/// The module-level pieces of `sin` and `cos`.
#[derive(Clone, Copy)]
pub(super) struct Trig {
    /// `__kernelc_sin_cos_large`.
    pub(super) large: FuncId,
    /// `__kernelc_sin_cos_coeffs`.
    pub(super) coeffs: GlobalVar,
}

/// Builds the double-precision functions with an SSA builder: inside a C
/// function being lowered, or into a helper function.
pub(super) struct F64Math<'x, 'f> {
    pub(super) b: &'x mut FunctionBuilder<'f>,
}

impl<'f> FunctionLowerer<'_, 'f> {
    pub(super) fn f64_math(&mut self) -> F64Math<'_, 'f> {
        F64Math { b: &mut self.b }
    }

    pub(super) fn exp_f64(&mut self, x: Value) -> Value {
        self.f64_math().exp_f64(x)
    }

    pub(super) fn exp2_f64(&mut self, x: Value) -> Value {
        self.f64_math().exp2_f64(x)
    }

    pub(super) fn log_f64(&mut self, x: Value) -> Value {
        self.f64_math().log_f64(x)
    }

    pub(super) fn log2_f64(&mut self, x: Value) -> Value {
        self.f64_math().log2_f64(x)
    }

    pub(super) fn pow_f64(&mut self, x: Value, y: Value) -> Value {
        self.f64_math().pow_f64(x, y)
    }

    pub(super) fn tanh_f64(&mut self, x: Value) -> Value {
        self.f64_math().tanh_f64(x)
    }

    pub(super) fn rsqrt_f64(&mut self, x: Value) -> Value {
        self.f64_math().rsqrt_f64(x)
    }

    /// `sin x` or (`cos`) `cos x`; arguments of 2^50 and more call the
    /// module's helper.
    pub(super) fn sin_cos_f64(&mut self, x: Value, cos: bool) -> Value {
        let trig = self.math_helpers.trig();
        self.f64_math().sin_cos_f64(x, cos, trig)
    }
}

impl F64Math<'_, '_> {
    pub(super) fn d(&mut self, v: f64) -> Value {
        self.b.fconst(Type::F64, v)
    }

    pub(super) fn l(&mut self, v: i64) -> Value {
        self.b.iconst(Type::I64, v)
    }

    pub(super) fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.binary(Opcode::Fsub, a, b)
    }

    pub(super) fn neg(&mut self, a: Value) -> Value {
        self.b.unary(Opcode::Fneg, a)
    }

    pub(super) fn cmp(&mut self, cc: FloatCC, a: Value, v: f64) -> Value {
        let c = self.d(v);
        self.b.fcmp(cc, a, c)
    }

    /// `c[0] + x·(c[1] + x·(c[2] + ...))` with `fma`.
    pub(super) fn horner(&mut self, coeffs: &[f64], x: Value) -> Value {
        let (&last, rest) = coeffs.split_last().expect("a polynomial has a coefficient");
        let mut acc = self.d(last);
        for &c in rest.iter().rev() {
            let c = self.d(c);
            acc = self.b.fma(acc, x, c);
        }
        acc
    }

    /// `2^k` for an `i64` `k` in `[-1022, 1023]`, made from its bits.
    pub(super) fn pow2i(&mut self, k: Value) -> Value {
        let bias = self.l(1023);
        let biased = self.b.iadd(k, bias);
        let shift = self.l(52);
        let bits = self.b.binary(Opcode::Ishl, biased, shift);
        self.b.convert(Opcode::Bitcast, Type::F64, bits)
    }

    /// `p · 2^k` for `k` in about `[-1100, 1100]`: two exact scalings by
    /// `2^(k/2)`, so that only the last one rounds (into the subnormals) or
    /// overflows.
    pub(super) fn scale(&mut self, p: Value, k: Value) -> Value {
        let one = self.l(1);
        let k1 = self.b.binary(Opcode::Sshr, k, one);
        let k2 = self.b.isub(k, k1);
        let s1 = self.pow2i(k1);
        let s2 = self.pow2i(k2);
        let p = self.b.fmul(p, s1);
        self.b.fmul(p, s2)
    }

    /// The product of `a = ah (+ al)` and `b = bh + bl` as `hi + lo`: `hi =
    /// ah·bh` rounded, `lo` its rounding error (`fma`, exact) plus the
    /// cross terms `ah·bl` and `al·bh`, in that order. (`al·bl` is dropped.)
    pub(super) fn mul_dd(
        &mut self,
        (ah, al): (Value, Option<Value>),
        (bh, bl): (Value, Value),
    ) -> (Value, Value) {
        let hi = self.b.fmul(ah, bh);
        let nhi = self.neg(hi);
        let lo = self.b.fma(ah, bh, nhi);
        let lo = self.b.fma(ah, bl, lo);
        let lo = match al {
            Some(al) => self.b.fma(al, bh, lo),
            None => lo,
        };
        (hi, lo)
    }

    /// NaN in, NaN out: `select(x is NaN, x, r)`.
    pub(super) fn keep_nan(&mut self, x: Value, r: Value) -> Value {
        let nan = self.b.fcmp(FloatCC::Uno, x, x);
        self.b.select(nan, x, r)
    }

    /// `x = k·ln2 + r` for `x` in `[-746, 710]`, `k` the nearest integer
    /// to `x/ln2` (`|r| <= 0.35`) or, with `down`, the one below (`r` in
    /// `[0, 0.7)`). `k·LN2_HI` is exact (`LN2_HI` has 42 bits) and so is
    /// `x - k·LN2_HI` (both are multiples of 2^-54 and the difference is
    /// below 1), so `r` carries only the rounding of the last step.
    pub(super) fn exp_reduce(&mut self, x: Value, down: bool) -> ExpParts {
        let inv = self.d(INV_LN2);
        let t = self.b.fmul(x, inv);
        let round = if down { Opcode::Floor } else { Opcode::Nearest };
        let kf = self.b.unary(round, t);
        let nk = self.neg(kf);
        let hi = self.d(LN2_HI);
        let lo = self.d(LN2_LO);
        let r = self.b.fma(nk, hi, x);
        let r = self.b.fma(nk, lo, r);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        ExpParts { k, r }
    }

    /// `e^r - 1` for `r` in `[-0.35, 0.7)`: `r + r²·(1/2! + r/3! + ... +
    /// r^14/16!)`. The Taylor remainder is below 2^-57 relative.
    pub(super) fn expm1_poly(&mut self, r: Value) -> Value {
        let h = self.horner(&EXPM1_TAYLOR, r);
        let r2 = self.b.fmul(r, r);
        self.b.fma(h, r2, r)
    }

    /// Clamps `x` into `[lo, hi]` (NaN becomes `hi`; callers restore it).
    pub(super) fn clamp(&mut self, x: Value, lo: f64, hi: f64) -> Value {
        let h = self.d(hi);
        let l = self.d(lo);
        let x = self.b.binary(Opcode::Fmin, x, h);
        self.b.binary(Opcode::Fmax, x, l)
    }

    /// `exp(x) = 2^k · (1 + expm1(r))`.
    pub(super) fn exp_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -746.0, 710.0);
        let ExpParts { k, r } = self.exp_reduce(xc, false);
        let p1 = self.expm1_poly(r);
        let one = self.d(1.0);
        let p = self.b.fadd(one, p1);
        let res = self.scale(p, k);
        self.keep_nan(x, res)
    }

    /// `exp2(x) = 2^k · 2^r` with `k = nearest(x)`, `r = x - k` exact, and
    /// `2^r = 1 + r·(c1 + c2·r + ...)`, `c_n = (ln 2)^n / n!`.
    fn exp2_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp(x, -1080.0, 1030.0);
        let kf = self.b.unary(Opcode::Nearest, xc);
        let r = self.sub(xc, kf);
        let q = self.horner(&EXP2_TAYLOR, r);
        let one = self.d(1.0);
        let p = self.b.fma(q, r, one);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        let res = self.scale(p, k);
        self.keep_nan(x, res)
    }

    /// Splits a positive `x` (subnormals included) into `2^e · m`.
    pub(super) fn log_parts(&mut self, x: Value) -> LogParts {
        let sub = self.cmp(FloatCC::Olt, x, f64::MIN_POSITIVE);
        let two54 = self.d(2f64.powi(54));
        let scaled = self.b.fmul(x, two54);
        let xs = self.b.select(sub, scaled, x);
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, xs);
        let b_plain = self.l(1023);
        let b_sub = self.l(1023 + 54);
        let bias = self.b.select(sub, b_sub, b_plain);
        let shift = self.l(52);
        let ex = self.b.binary(Opcode::Ushr, bits, shift);
        let e = self.b.isub(ex, bias);
        let mask = self.l(0x000f_ffff_ffff_ffff);
        let mant = self.b.binary(Opcode::Band, bits, mask);
        let one_bits = self.l(0x3ff0_0000_0000_0000);
        let mbits = self.b.binary(Opcode::Bor, mant, one_bits);
        let m = self.b.convert(Opcode::Bitcast, Type::F64, mbits);
        let big = self.cmp(FloatCC::Ogt, m, SQRT2);
        let half = self.d(0.5);
        let m_half = self.b.fmul(m, half);
        let m = self.b.select(big, m_half, m);
        let one = self.l(1);
        let e1 = self.b.iadd(e, one);
        let e = self.b.select(big, e1, e);
        let e = self.b.convert(Opcode::Sitofp, Type::F64, e);
        let onef = self.d(1.0);
        let f = self.sub(m, onef);
        LogParts { e, m, f }
    }

    /// `log(1 + f)` for `f = m - 1`, `m` in `[sqrt(1/2), sqrt(2))`: with
    /// `s = f/(2+f)`, `log(1+f) = 2·atanh(s) = f - (f²/2 - s·(f²/2 + R))`,
    /// `R = s²·(2/3 + 2s²/5 + ...)` (the Taylor series of atanh; `s² <=
    /// 0.0295`, eleven terms leave below 2^-60). `f` is exact, so the only
    /// sizeable roundings are those of `f²/2` and of the last subtraction.
    /// `s` comes from [`Self::quotient_near_half`], not a `div.rn.f64`.
    pub(super) fn log1p_core(&mut self, f: Value) -> Value {
        let two = self.d(2.0);
        let d = self.b.fadd(two, f);
        let s = self.quotient_near_half(f, d);
        let z = self.b.fmul(s, s);
        let p = self.horner(&ATANH_TAYLOR, z);
        let big_r = self.b.fmul(z, p);
        let half = self.d(0.5);
        let hf = self.b.fmul(f, half);
        let hfsq = self.b.fmul(hf, f);
        let t = self.b.fadd(hfsq, big_r);
        let st = self.b.fmul(s, t);
        let inner = self.sub(hfsq, st);
        self.sub(f, inner)
    }

    /// `f / d` for `d = 2 + f` (rounded) and `f` in `[sqrt(1/2) - 1,
    /// sqrt(2) - 1]`, without a division: a `div.rn.f64` is a short
    /// sequence on the GPU plus a slow path of about ninety instructions
    /// that ptxas must keep for arguments this code never passes. The
    /// reciprocal `q` of `d` starts as a quadratic in `f` (a minimax fit of
    /// `1/(2 + f)` on the interval, relative error 2^-9.6), and two Newton
    /// steps (`q + q·(1 - d·q)`, each two `fma`) square the error twice, to
    /// 2^-38. Then `s = f·q` is corrected once by its residual: `s + q·(f -
    /// s·d)` (the residual exact in an `fma`), which leaves about 2^-76 on
    /// top of the last rounding, as accurate as the division. Nine
    /// instructions, all exact IEEE operations, so every engine and GPU
    /// gives the same bits.
    pub(super) fn quotient_near_half(&mut self, f: Value, d: Value) -> Value {
        let q = self.horner(&RECIP_TWO_PLUS_F, f);
        let one = self.d(1.0);
        let nd = self.neg(d);
        let mut q = q;
        for _ in 0..2 {
            let e = self.b.fma(nd, q, one);
            q = self.b.fma(q, e, q);
        }
        let s = self.b.fmul(f, q);
        let nf = self.neg(s);
        let r = self.b.fma(nf, d, f);
        self.b.fma(r, q, s)
    }

    /// C's special cases of `log`/`log2`: `log(±0) = -inf`, `log(x < 0) =
    /// NaN`, `log(inf) = inf`, NaN stays NaN.
    pub(super) fn log_specials(&mut self, x: Value, r: Value) -> Value {
        let is_inf = self.cmp(FloatCC::Oeq, x, f64::INFINITY);
        let inf = self.d(f64::INFINITY);
        let r = self.b.select(is_inf, inf, r);
        let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
        let ninf = self.d(f64::NEG_INFINITY);
        let r = self.b.select(is_zero, ninf, r);
        let is_neg = self.cmp(FloatCC::Olt, x, 0.0);
        let nan = self.d(f64::NAN);
        let r = self.b.select(is_neg, nan, r);
        self.keep_nan(x, r)
    }

    /// `log(x) = e·ln2 + log(1+f)`, with `e·LN2_HI` exact and the rest
    /// added in one `fma`.
    fn log_f64(&mut self, x: Value) -> Value {
        let LogParts { e, f, .. } = self.log_parts(x);
        let lf = self.log1p_core(f);
        let lo = self.d(LN2_LO);
        let hi = self.d(LN2_HI);
        let t = self.b.fma(e, lo, lf);
        let r = self.b.fma(e, hi, t);
        self.log_specials(x, r)
    }

    /// `log2(x) = e + log(1+f)·log2(e)`, the product carried with its
    /// rounding error (`fma`) and the low part of `log2(e)`. Exact for
    /// powers of two.
    fn log2_f64(&mut self, x: Value) -> Value {
        let LogParts { e, f, .. } = self.log_parts(x);
        let lf = self.log1p_core(f);
        let hi = self.d(LOG2E_HI);
        let lo = self.d(LOG2E_LO);
        let (p, err) = self.mul_dd((lf, None), (hi, lo));
        let frac = self.b.fadd(p, err);
        let r = self.b.fadd(e, frac);
        self.log_specials(x, r)
    }

    /// `log(x)` for a positive `x` as an unevaluated sum `hi + lo` with
    /// a relative error near 2^-70 (for `pow`). With `s = f/(m+1)` held
    /// as `s_h + s_l`, `log m = 2s + (2/3)s³ + s⁵·Q(s²)`: the first two
    /// terms in double-double arithmetic, the third (below 2^-13 of the
    /// total) in plain double.
    pub(super) fn log_dd(&mut self, x: Value) -> (Value, Value) {
        let LogParts { e, m, f } = self.log_parts(x);
        let one = self.d(1.0);
        // m + 1 = d_h + d_l exactly.
        let d_h = self.b.fadd(m, one);
        let dm1 = self.sub(d_h, one);
        let d_l = self.sub(m, dm1);
        // s = f / (m + 1) = s_h + s_l.
        let s_h = self.b.binary(Opcode::Fdiv, f, d_h);
        let ns = self.neg(s_h);
        let rem = self.b.fma(ns, d_h, f);
        let rem = self.b.fma(ns, d_l, rem);
        let s_l = self.b.binary(Opcode::Fdiv, rem, d_h);
        // s² = z_h + z_l.
        let z_h = self.b.fmul(s_h, s_h);
        let nz = self.neg(z_h);
        let z_l = self.b.fma(s_h, s_h, nz);
        let two_sh = self.b.fadd(s_h, s_h);
        let z_l = self.b.fma(two_sh, s_l, z_l);
        // s³ = c_h + c_l.
        let (c_h, c_l) = self.mul_dd((z_h, Some(z_l)), (s_h, s_l));
        // (2/3)·s³ = t_h + t_l.
        let tt_hi = self.d(TWO_THIRDS_HI);
        let tt_lo = self.d(TWO_THIRDS_LO);
        let (t_h, t_l) = self.mul_dd((tt_hi, Some(tt_lo)), (c_h, c_l));
        // s⁵·Q(s²), Q = 2/5 + 2s²/7 + ...
        let q = self.horner(&ATANH_TAYLOR[1..], z_h);
        let z2 = self.b.fmul(z_h, z_h);
        let s5 = self.b.fmul(z2, s_h);
        let tail = self.b.fmul(s5, q);
        // 2s_h + t_h (|2s_h| > |t_h|: fast two-sum), then the small parts.
        let a = self.b.fadd(two_sh, t_h);
        let a_err = self.sub(two_sh, a);
        let a_err = self.b.fadd(a_err, t_h);
        let two_sl = self.b.fadd(s_l, s_l);
        let small = self.b.fadd(two_sl, t_l);
        let small = self.b.fadd(small, tail);
        let small = self.b.fadd(small, a_err);
        // + e·ln2: e·LN2_HI is exact; a general two-sum with `a`.
        let hi = self.d(LN2_HI);
        let lo = self.d(LN2_LO);
        let eh = self.b.fmul(e, hi);
        let sum = self.b.fadd(eh, a);
        let bb = self.sub(sum, eh);
        let sb = self.sub(sum, bb);
        let e1 = self.sub(eh, sb);
        let e2 = self.sub(a, bb);
        let err = self.b.fadd(e1, e2);
        let small = self.b.fma(e, lo, small);
        let small = self.b.fadd(small, err);
        // Renormalize.
        let r_h = self.b.fadd(sum, small);
        let back = self.sub(r_h, sum);
        let r_l = self.sub(small, back);
        (r_h, r_l)
    }

    /// `pow(x, y) = ±exp(y·log|x|)`: `log|x|` in double-double, the
    /// product `y·log|x|` with its rounding error (`fma`), and the low part
    /// added to `exp`'s reduced argument. Then C's special cases (C11
    /// F.10.4.4).
    fn pow_f64(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.unary(Opcode::Fabs, x);
        let (lh, ll) = self.log_dd(ax);
        // log 0 = -inf and log inf = inf, which `log_dd` does not make.
        let zero = self.d(0.0);
        let is_zero = self.cmp(FloatCC::Oeq, ax, 0.0);
        let is_inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let ninf = self.d(f64::NEG_INFINITY);
        let inf = self.d(f64::INFINITY);
        let lh = self.b.select(is_zero, ninf, lh);
        let lh = self.b.select(is_inf, inf, lh);
        let edge = self.b.binary(Opcode::Bor, is_zero, is_inf);
        let ll = self.b.select(edge, zero, ll);
        let (ph, pl) = self.mul_dd((y, None), (lh, ll));
        // Out of range (or infinite) products: the low part is meaningless.
        let aph = self.b.unary(Opcode::Fabs, ph);
        let in_range = self.cmp(FloatCC::Olt, aph, 746.0);
        let pl = self.b.select(in_range, pl, zero);
        let pc = self.clamp(ph, -746.0, 710.0);
        let ExpParts { k, r } = self.exp_reduce(pc, false);
        let r = self.b.fadd(r, pl);
        let p1 = self.expm1_poly(r);
        let one = self.d(1.0);
        let p = self.b.fadd(one, p1);
        let mag = self.scale(p, k);

        // y an integer, and odd?
        let yt = self.b.unary(Opcode::Ftrunc, y);
        let y_int = self.b.fcmp(FloatCC::Oeq, yt, y);
        let half = self.d(0.5);
        let hy = self.b.fmul(y, half);
        let hyt = self.b.unary(Opcode::Ftrunc, hy);
        let y_even = self.b.fcmp(FloatCC::Oeq, hyt, hy);
        let not_even = self.b.unary(Opcode::Bnot, y_even);
        let y_odd = self.b.binary(Opcode::Band, y_int, not_even);
        // A negative sign bit (-0 included) and an odd y: negative result.
        let xbits = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let zl = self.l(0);
        let x_signed = self.b.icmp(IntCC::Slt, xbits, zl);
        let flip = self.b.binary(Opcode::Band, x_signed, y_odd);
        let nmag = self.neg(mag);
        let r = self.b.select(flip, nmag, mag);
        // A finite negative x and a non-integer y: NaN.
        let x_neg = self.cmp(FloatCC::Olt, x, 0.0);
        let x_fin = self.cmp(FloatCC::Olt, ax, f64::INFINITY);
        let y_frac = self.b.unary(Opcode::Bnot, y_int);
        let bad = self.b.binary(Opcode::Band, x_neg, x_fin);
        let bad = self.b.binary(Opcode::Band, bad, y_frac);
        let nan = self.d(f64::NAN);
        let r = self.b.select(bad, nan, r);
        // NaN operands give NaN, except for the cases below.
        let uno = self.b.fcmp(FloatCC::Uno, x, y);
        let sum = self.b.fadd(x, y);
        let r = self.b.select(uno, sum, r);
        // pow(-1, ±inf) = 1, pow(1, y) = 1, pow(x, ±0) = 1.
        let m1 = self.cmp(FloatCC::Oeq, x, -1.0);
        let ay = self.b.unary(Opcode::Fabs, y);
        let y_inf = self.cmp(FloatCC::Oeq, ay, f64::INFINITY);
        let m1_inf = self.b.binary(Opcode::Band, m1, y_inf);
        let x_one = self.cmp(FloatCC::Oeq, x, 1.0);
        let y_zero = self.cmp(FloatCC::Oeq, y, 0.0);
        let ones = self.b.binary(Opcode::Bor, m1_inf, x_one);
        let ones = self.b.binary(Opcode::Bor, ones, y_zero);
        self.b.select(ones, one, r)
    }

    /// `sin` and `cos` of `x`, reduced by `π/2`: `k = nearest(x·2/π)`,
    /// `r = x - k·π/2` with `π/2` in three parts (Cody–Waite; the first
    /// step is exact with `fma`), then [`Self::sin_cos_poly`]. That
    /// reduction is accurate for `|x| < 2^50`; larger arguments branch to
    /// `large`, the module's helper function (`sin_cos_large_body`), which
    /// reduces them exactly.
    /// `x = k·π/2 + r` for `|x| < 2^50`: `k = nearest(x·2/π)` (an `i64`)
    /// and `r` by three `fma` steps with π/2 in three parts (Cody–Waite).
    pub(super) fn reduce_pio2(&mut self, x: Value) -> (Value, Value) {
        let tp = self.d(TWO_OVER_PI);
        let t = self.b.fmul(x, tp);
        let kf = self.b.unary(Opcode::Nearest, t);
        let nk = self.neg(kf);
        let p1 = self.d(PIO2_1);
        let p2 = self.d(PIO2_2);
        let p3 = self.d(PIO2_3);
        let r = self.b.fma(nk, p1, x);
        let r = self.b.fma(nk, p2, r);
        let r = self.b.fma(nk, p3, r);
        let k = self.b.convert(Opcode::Fptosi, Type::I64, kf);
        (r, k)
    }

    fn sin_cos_f64(&mut self, x: Value, cos: bool, trig: Trig) -> Value {
        // |x| >= 2^50 (infinities too, not NaN): the helper reduces.
        let (r, k) = self.reduce_pio2_any(x, trig.large);
        let shift = self.l(i64::from(cos));
        let k = self.b.iadd(k, shift);
        let res = self.sin_cos_poly(r, k, trig.coeffs);
        let ax = self.b.unary(Opcode::Fabs, x);
        // sin(±inf) = cos(±inf) = NaN; NaN stays NaN.
        let is_inf = self.cmp(FloatCC::Oeq, ax, f64::INFINITY);
        let nan = self.d(f64::NAN);
        let res = self.b.select(is_inf, nan, res);
        let res = self.keep_nan(x, res);
        if cos {
            res
        } else {
            // sin(±0) = ±0 (the reduction gives +0 for -0).
            let is_zero = self.cmp(FloatCC::Oeq, x, 0.0);
            self.b.select(is_zero, x, res)
        }
    }

    /// `sin r` or `cos r` for `|r| <= π/4` (about), picked and signed by
    /// the quadrant `k mod 4` (an `i64`; `cos` passes `k + 1`):
    /// `sin r = r + r³·S(r²)` and `cos r = 1 - r²/2 + r⁴·C(r²)` (Taylor),
    /// the rounding of `1 - r²/2` recovered. Only one of `S` and `C` is evaluated: the
    /// parity of `k` picks its coefficients from the table `coeffs` (`S`
    /// at byte 0, `C` at 64), as nvcc's `sin` does, and both finishing
    /// steps (a few instructions) use that one value, a `select` keeping
    /// the right one. Each result has the bits that evaluating both
    /// polynomials gave.
    pub(super) fn sin_cos_poly(&mut self, r: Value, k: Value, coeffs: GlobalVar) -> Value {
        let z = self.b.fmul(r, r);
        let one_i = self.l(1);
        let odd = self.b.binary(Opcode::Band, k, one_i);
        let stride = self.l(8 * SIN_TAYLOR.len() as i64);
        let at = self.b.imul(odd, stride);
        let base = self.b.global_addr(AddrSpace::Const, coeffs);
        let base = self.b.ptroffset(base, at);
        let c: Vec<Value> = (0..SIN_TAYLOR.len())
            .map(|i| {
                let off = self.l(8 * i as i64);
                let p = self.b.ptroffset(base, off);
                self.b.load(Type::F64, p, MemFlags::default())
            })
            .collect();
        let (&last, rest) = c.split_last().expect("coefficients");
        let mut p = last;
        for &ci in rest.iter().rev() {
            p = self.b.fma(p, z, ci);
        }
        // sin r = r + r³·S(z).
        let r3 = self.b.fmul(r, z);
        let s = self.b.fma(r3, p, r);
        // cos r = 1 - z/2 + z²·C(z), with the rounding of 1 - z/2 recovered.
        let z2 = self.b.fmul(z, z);
        let tail = self.b.fmul(z2, p);
        let half = self.d(0.5);
        let hz = self.b.fmul(z, half);
        let one = self.d(1.0);
        let w = self.sub(one, hz);
        let back = self.sub(one, w);
        let err = self.sub(back, hz);
        let err = self.b.fadd(err, tail);
        let c = self.b.fadd(w, err);
        // Quadrant.
        let two_i = self.l(2);
        let zero_i = self.l(0);
        let use_cos = self.b.icmp(IntCC::Ne, odd, zero_i);
        let second = self.b.binary(Opcode::Band, k, two_i);
        let negate = self.b.icmp(IntCC::Ne, second, zero_i);
        let v = self.b.select(use_cos, c, s);
        let nv = self.neg(v);
        self.b.select(negate, nv, v)
    }

    /// The body of the helper `__kernelc_sin_cos_large(out, x)`: the exact
    /// reduction of `|x| >= 2^50` by [`Self::rem_pio2_large`], `r` stored
    /// at `out` and `k` at `out + 8` (a struct result, so PTX returns both
    /// in `func_retval0`). The caller evaluates the polynomials, once for
    /// both paths.
    fn sin_cos_large_body(&mut self, table: GlobalVar) {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.b.seal_block(entry);
        let params = self.b.func.params().to_vec();
        let (out, x) = (params[0], params[1]);
        let (r, k) = self.rem_pio2_large(x, table);
        self.b.store(r, out, MemFlags::default());
        let eight = self.l(8);
        let at = self.b.ptroffset(out, eight);
        self.b.store(k, at, MemFlags::default());
        self.b.ret(vec![]);
    }

    /// `x = k·π/2 + r` for any finite `x`: [`Self::reduce_pio2`] below
    /// 2^50, the helper `large` above (a branch; infinities go there too
    /// and come back as garbage that the callers replace by NaN).
    pub(super) fn reduce_pio2_any(&mut self, x: Value, large: FuncId) -> (Value, Value) {
        let (r_fast, k_fast) = self.reduce_pio2(x);
        let ax = self.b.unary(Opcode::Fabs, x);
        let big = self.cmp(FloatCC::Oge, ax, SIN_COS_LIMIT);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let r = self.b.append_block_param(join, Type::F64);
        let k = self.b.append_block_param(join, Type::I64);
        self.b.brif(big, slow, vec![], join, vec![r_fast, k_fast]);
        self.b.seal_block(slow);
        self.b.switch_to_block(slow);
        let slot = self
            .b
            .func
            .stack_slots
            .push(StackSlotData { size: 16, align: 8 });
        let tmp = self.b.stack_addr(slot);
        let out = self.b.addrspacecast(AddrSpace::Generic, tmp);
        self.b.call(large, vec![out, x], &[]);
        let r_slow = self.b.load(Type::F64, tmp, MemFlags::default());
        let eight = self.l(8);
        let at = self.b.ptroffset(tmp, eight);
        let k_slow = self.b.load(Type::I64, at, MemFlags::default());
        self.b.jump(join, vec![r_slow, k_slow]);
        self.b.seal_block(join);
        self.b.switch_to_block(join);
        (r, k)
    }

    /// `n` 32-bit words of the bit string that starts `q` bits into word
    /// `word` of `table` (`q` in 0..=31, `q_back = 31 - q`), each widened
    /// to `i64`: `V_k = t_k << q | t_(k+1) >> 1 >> q_back` from `n + 1`
    /// consecutive table words (the second shift in two steps, as a shift
    /// by 32 is not defined). `word`, `q` and `q_back` are `i64` (the
    /// `double` reduction) or `i32` (the `float` one, `math_sin_f32.rs`);
    /// the shifts are done in 32-bit arithmetic either way.
    pub(super) fn table_window(
        &mut self,
        table: GlobalVar,
        word: Value,
        (q, q_back): (Value, Value),
        n: usize,
    ) -> Vec<Value> {
        let base = self.b.global_addr(AddrSpace::Const, table);
        let word = if self.b.value_type(word) == Type::I64 {
            word
        } else {
            self.b.convert(Opcode::Zext, Type::I64, word)
        };
        let c4 = self.l(4);
        let byte = self.b.imul(word, c4);
        let t: Vec<Value> = (0..=n as i64)
            .map(|i| {
                let at = self.l(4 * i);
                let at = self.b.iadd(byte, at);
                let p = self.b.ptroffset(base, at);
                self.b.load(Type::I32, p, MemFlags::default())
            })
            .collect();
        let (q, q_back) = if self.b.value_type(q) == Type::I64 {
            (
                self.b.convert(Opcode::Trunc, Type::I32, q),
                self.b.convert(Opcode::Trunc, Type::I32, q_back),
            )
        } else {
            (q, q_back)
        };
        let one32 = self.b.iconst(Type::I32, 1);
        (0..n)
            .map(|k| {
                let a = self.b.binary(Opcode::Ishl, t[k], q);
                let b = self.b.binary(Opcode::Ushr, t[k + 1], one32);
                let b = self.b.binary(Opcode::Ushr, b, q_back);
                let w = self.b.binary(Opcode::Bor, a, b);
                self.b.convert(Opcode::Zext, Type::I64, w)
            })
            .collect()
    }

    /// Payne–Hanek reduction of a finite `|x| >= 2^50`: `x = (k + f)·π/2`
    /// with an integer `k` and `|f| <= 1/2`; returns `r = f·π/2` (rounded
    /// once) and `k` modulo 4 (an `i64` whose two low bits are right).
    ///
    /// `x = M·2^E` with a 53-bit integer `M`. Only the bits of 2/π after
    /// position `E - 2` matter for `x·(2/π)/4 mod 1` (the earlier ones add
    /// integers), and 192 of them are enough: the next ones add below
    /// `M·2^-192 < 2^-139`, while `|f|` is never below 2^-62 for a double.
    /// These 192 bits, six 32-bit words `V`, are cut from `table` (32 zero
    /// bits, then 2/π) at bit offset `E - 2 + 32`. The product `M·V` is
    /// formed in 32-bit limbs with `i64` arithmetic (`M = m1·2^32 + m0`),
    /// keeping only the limbs below the binary point: `u = frac(x·2/π/4)`
    /// to 192 bits. Its top two bits are the quadrant, and the next 128,
    /// read as a signed number, are `f` (a negative one adds one to `k`).
    /// `f` is normalized with `clz` and converted to a double-double, and
    /// multiplied by π/2 in double-double arithmetic.
    fn rem_pio2_large(&mut self, x: Value, table: GlobalVar) -> (Value, Value) {
        let mask32 = self.l(0xffff_ffff);
        let bits = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let c52 = self.l(52);
        let ex = self.b.binary(Opcode::Ushr, bits, c52);
        let c7ff = self.l(0x7ff);
        let ex = self.b.binary(Opcode::Band, ex, c7ff);
        let mmask = self.l(0x000f_ffff_ffff_ffff);
        let mant = self.b.binary(Opcode::Band, bits, mmask);
        let hidden = self.l(1 << 52);
        let m = self.b.binary(Opcode::Bor, mant, hidden);
        // Bit offset of the window in the table: E - 2 + 32, E = ex - 1075
        // (clamped: infinities and small inputs read some window).
        let bias = self.l(1045);
        let off = self.b.isub(ex, bias);
        let zero = self.l(0);
        let off = self.b.binary(Opcode::Smax, off, zero);
        let max_off = self.l(32 * (TWO_OVER_PI_WORDS.len() as i64 - 8));
        let off = self.b.binary(Opcode::Smin, off, max_off);
        let c5 = self.l(5);
        let word = self.b.binary(Opcode::Ushr, off, c5);
        let c31 = self.l(31);
        let q = self.b.binary(Opcode::Band, off, c31);
        let q_back = self.b.isub(c31, q);
        // V_k, 192 bits from `q` bits into table word `word`.
        let v = self.table_window(table, word, (q, q_back), 6);
        // The products of 32-bit halves, each one `mul.wide.u32`.
        let c32 = self.l(32);
        let m0 = self.b.convert(Opcode::Trunc, Type::I32, m);
        let m0 = self.b.convert(Opcode::Zext, Type::I64, m0);
        let m1 = self.b.binary(Opcode::Ushr, m, c32);
        let m1 = self.b.convert(Opcode::Trunc, Type::I32, m1);
        let m1 = self.b.convert(Opcode::Zext, Type::I64, m1);
        let one = self.l(1);
        let p0: Vec<Value> = v.iter().map(|&vk| self.b.imul(m0, vk)).collect();
        let p1: Vec<Value> = v.iter().map(|&vk| self.b.imul(m1, vk)).collect();
        // Limb t (weight 2^-32t, t = 1..6) sums lo(p0[t-1]), hi(p0[t]),
        // lo(p1[t]) and hi(p1[t+1]), plus the carry from below.
        let mut u = [zero; 7];
        let mut carry = zero;
        for limb in (1..7).rev() {
            let mut s = self.b.binary(Opcode::Band, p0[limb - 1], mask32);
            s = self.b.iadd(s, carry);
            if limb < 6 {
                let h = self.b.binary(Opcode::Ushr, p0[limb], c32);
                s = self.b.iadd(s, h);
                let l = self.b.binary(Opcode::Band, p1[limb], mask32);
                s = self.b.iadd(s, l);
            }
            if limb + 1 < 6 {
                let h = self.b.binary(Opcode::Ushr, p1[limb + 1], c32);
                s = self.b.iadd(s, h);
            }
            u[limb] = self.b.binary(Opcode::Band, s, mask32);
            carry = self.b.binary(Opcode::Ushr, s, c32);
        }
        // 4u = quadrant + f: the fraction's 128 bits after the first two.
        let join = |me: &mut Self, h: Value, l: Value| {
            let h = me.b.binary(Opcode::Ishl, h, c32);
            me.b.binary(Opcode::Bor, h, l)
        };
        let a = join(self, u[1], u[2]);
        let bw = join(self, u[3], u[4]);
        let cw = join(self, u[5], u[6]);
        let two = self.l(2);
        let c62 = self.l(62);
        let c63 = self.l(63);
        let a2 = self.b.binary(Opcode::Ishl, a, two);
        let a_in = self.b.binary(Opcode::Ushr, bw, c62);
        let a2 = self.b.binary(Opcode::Bor, a2, a_in);
        let b2 = self.b.binary(Opcode::Ishl, bw, two);
        let b_in = self.b.binary(Opcode::Ushr, cw, c62);
        let b2 = self.b.binary(Opcode::Bor, b2, b_in);
        let c30 = self.l(30);
        let quad = self.b.binary(Opcode::Ushr, u[1], c30);
        let round_up = self.b.binary(Opcode::Ushr, a2, c63);
        let k = self.b.iadd(quad, round_up);
        // |f| as a 128-bit magnitude: negate (a2, b2) when f < 0.
        let neg = self.b.icmp(IntCC::Slt, a2, zero);
        let nb = self.b.unary(Opcode::Ineg, b2);
        let na = self.b.unary(Opcode::Bnot, a2);
        let b_zero = self.b.icmp(IntCC::Eq, b2, zero);
        let na1 = self.b.iadd(na, one);
        let na = self.b.select(b_zero, na1, na);
        let ha = self.b.select(neg, na, a2);
        let hb = self.b.select(neg, nb, b2);
        // Normalize: top bit of `nh` set, |f| = (nh + nl·2^-64)·2^(-64-s).
        let s = self.b.unary(Opcode::Clz, ha);
        let nh = self.b.binary(Opcode::Ishl, ha, s);
        let s_back = self.b.isub(c63, s);
        let lo_in = self.b.binary(Opcode::Ushr, hb, one);
        let lo_in = self.b.binary(Opcode::Ushr, lo_in, s_back);
        let nh = self.b.binary(Opcode::Bor, nh, lo_in);
        let nl = self.b.binary(Opcode::Ishl, hb, s);
        // Exact conversions: the top 53 bits of `nh`, its low 11 bits.
        let low11 = self.l(0x7ff);
        let top_mask = self.l(!0x7ff);
        let top = self.b.binary(Opcode::Band, nh, top_mask);
        let low = self.b.binary(Opcode::Band, nh, low11);
        let hd = self.b.convert(Opcode::Uitofp, Type::F64, top);
        let ld = self.b.convert(Opcode::Uitofp, Type::F64, low);
        let nld = self.b.convert(Opcode::Uitofp, Type::F64, nl);
        let two_m64 = self.d(2f64.powi(-64));
        let ld = self.b.fma(nld, two_m64, ld);
        let c64 = self.l(64);
        let e = self.b.iadd(s, c64);
        let e = self.b.unary(Opcode::Ineg, e);
        let scale = self.pow2i(e);
        let fh = self.b.fmul(hd, scale);
        let fl = self.b.fmul(ld, scale);
        let nfh = self.neg(fh);
        let nfl = self.neg(fl);
        let fh = self.b.select(neg, nfh, fh);
        let fl = self.b.select(neg, nfl, fl);
        // r = (fh + fl)·π/2, with the product's rounding error kept.
        let p1 = self.d(PIO2_1);
        let p2 = self.d(PIO2_2);
        let (ph, err) = self.mul_dd((fh, Some(fl)), (p1, p2));
        let r = self.b.fadd(ph, err);
        // The above reduced |x|: for a negative x, -k and -r.
        let x_neg = self.b.icmp(IntCC::Slt, bits, zero);
        let nr = self.neg(r);
        let nk = self.b.unary(Opcode::Ineg, k);
        let r = self.b.select(x_neg, nr, r);
        let k = self.b.select(x_neg, nk, k);
        (r, k)
    }

    /// `tanh(x) = sign(x)·E/(E + 2)` with `E = expm1(2|x|) = 2^k·(e^r - 1)
    /// + (2^k - 1)` (one `fma`), which stays accurate as `|x|` goes to 0.
    /// `k` is rounded down, so `r >= 0` and the two terms of `E` never
    /// cancel. The quotient is corrected once for the roundings of `E + 2`
    /// and of the division. Past `|x| = 22` the result is `±1`.
    fn tanh_f64(&mut self, x: Value) -> Value {
        let a = self.b.unary(Opcode::Fabs, x);
        let lim = self.d(22.0);
        let ac = self.b.binary(Opcode::Fmin, a, lim);
        let two_a = self.b.fadd(ac, ac);
        let ExpParts { k, r } = self.exp_reduce(two_a, true);
        let p1 = self.expm1_poly(r);
        let s = self.pow2i(k);
        let one = self.d(1.0);
        let sm1 = self.sub(s, one);
        let em = self.b.fma(s, p1, sm1);
        let two = self.d(2.0);
        let den = self.b.fadd(em, two);
        // The rounding error of `den` (a two-sum, larger operand first).
        let em_big = self.cmp(FloatCC::Ogt, em, 2.0);
        let a1 = self.sub(em, den);
        let a1 = self.b.fadd(a1, two);
        let b1 = self.sub(two, den);
        let b1 = self.b.fadd(b1, em);
        let den_err = self.b.select(em_big, a1, b1);
        // t = em/den, then t += (em - t·den - t·den_err)/den.
        let t = self.b.binary(Opcode::Fdiv, em, den);
        let nt = self.neg(t);
        let res = self.b.fma(nt, den, em);
        let res = self.b.fma(nt, den_err, res);
        let corr = self.b.binary(Opcode::Fdiv, res, den);
        let t = self.b.fadd(t, corr);
        // copysign(t, x)
        let tb = self.b.convert(Opcode::Bitcast, Type::I64, t);
        let xb = self.b.convert(Opcode::Bitcast, Type::I64, x);
        let sign = self.l(i64::MIN);
        let sx = self.b.binary(Opcode::Band, xb, sign);
        let r = self.b.binary(Opcode::Bor, tb, sx);
        let r = self.b.convert(Opcode::Bitcast, Type::F64, r);
        self.keep_nan(x, r)
    }

    /// `rsqrt(x) = 1 / sqrt(x)`: two correctly rounded operations (PTX's
    /// `rsqrt.approx.f64` is far less accurate).
    fn rsqrt_f64(&mut self, x: Value) -> Value {
        let s = self.b.unary(Opcode::Sqrt, x);
        let one = self.d(1.0);
        self.b.binary(Opcode::Fdiv, one, s)
    }
}
