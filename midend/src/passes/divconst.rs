//! `divconst`: integer division and remainder by a constant, as shifts,
//! masks and multiplications.
//!
//! PTX's `div.s32`/`rem.u32` become a full software division in SASS
//! (about 20 instructions with a reciprocal and fix-ups; a 64-bit one is a
//! call of a longer routine). When the divisor is a constant, cheaper
//! instructions give the same bits.
//!
//! # Powers of two
//!
//! - `udiv x, 2^k` is `ushr x, k`; `urem x, 2^k` is `band x, 2^k - 1`.
//! - `sdiv x, 2^k` must round toward zero, and an arithmetic shift rounds
//!   toward minus infinity. Adding `2^k - 1` to a negative dividend first
//!   fixes that: `bias = ushr (sshr x, w-1), w-k` is `2^k - 1` when `x < 0`
//!   and `0` otherwise, and the quotient is `sshr (x + bias), k`. The sum
//!   cannot overflow: a negative `x` plus less than `2^(w-1)` stays in range.
//! - `srem x, 2^k` is `x - ((x + bias) & -2^k)`: the dividend minus the
//!   quotient times `2^k`, so the remainder has the dividend's sign, as C
//!   requires.
//! - By `-2^k`, the quotient is the negated quotient by `2^k`, and the
//!   remainder is the same as by `2^k`. (`INT_MIN / -2` is `2^30`: the
//!   quotient by 2 is `-2^30`, negated.)
//!
//! # Other constants: multiplying by a reciprocal
//!
//! Dividing by `d` is multiplying by `1/d`. In integers, pick `p` bits of
//! fraction and round `2^p / d` *up* to an integer `m` (the "magic"
//! number); then `floor(x * m / 2^p)` equals `floor(x / d)` for every
//! dividend `x` we care about, provided `p` is large enough. Write
//! `m * d = 2^p + e` (`0 < e < d`, the rounding error scaled by `d`). Then
//! `x * m / 2^p = x / d + x * e / (d * 2^p)`: the product overshoots the
//! true quotient by a little, and it is enough that the overshoot never
//! carries it past the next integer. The worst dividend is the largest
//! one, `nc`, whose remainder is `d - 1` (it is closest to the next
//! integer); the condition is `nc * e < 2^p` (Granlund and Montgomery,
//! 1994; Warren, *Hacker's Delight*, chapter 10). We take the smallest
//! `p >= w` that meets it ([`unsigned_plan`], [`signed_plan`]), so that
//! `x * m / 2^p` is the *high* half of the `2w`-bit product `x * m`,
//! shifted right by `s = p - w`:
//!
//! - **Unsigned, `m < 2^w`**: `q = mulhi(x, m) >> s`.
//! - **Unsigned, `m` needs `w + 1` bits**: if `d` is even, `d = d' * 2^z`,
//!   and dividing `x >> z` (a smaller dividend) by the odd `d'` usually
//!   fits: `q = mulhi(x >> z, m') >> s'`. Otherwise multiply by
//!   `m - 2^w` and add the missing `x` back without overflowing:
//!   `t = mulhi(x, m - 2^w)`, `q = (((x - t) >> 1) + t) >> (s - 1)`.
//! - **Unsigned, `d > 2^(w-1)`**: the quotient is 0 or 1, `x >= d`.
//! - **Signed**: `m` is computed for `|d|` (for the dividends from `-2^(w-1)`
//!   to `2^(w-1) - 1`) and is below `2^w`; as a signed `w`-bit number `M`
//!   it may have come out negative, and then `mulhi_signed(x, M) + x` is
//!   the product with the true `m`. For a negative `d`, `M` is `-m`, and
//!   `- x` corrects it when it came out positive. The shifted high product
//!   `q = (mulhi_signed(x, M) [± x]) >> s` (arithmetic) is the quotient
//!   rounded toward minus infinity; C rounds toward zero, so add 1 when it
//!   is negative: `q + (q >>> (w - 1))`.
//!
//! For example, a signed 32-bit `x / 7`: `m = 0x92492493 = ceil(2^34 / 7)`
//! (`s = 2`), which reads as a negative `M`, so
//! `q = (mulhi_signed(x, M) + x) >> 2` and then `q + (q >>> 31)`. With
//! `x = -7`: the high product is 2, `+ x` makes it -5, and `-5 >> 2` is -2,
//! because `x * m / 2^34` is a little *below* -1 (`m` is a little above
//! `2^34 / 7` and `x` is negative); adding the sign bit gives -1.
//!
//! The remainder is `x - q * d` in every case, so it has the dividend's
//! sign. None of these steps can overflow where the exact value would not:
//! the high product is at most `x` in size, and the arithmetic wraps
//! like PTX's anyway.
//!
//! The IR has no multiply-high. For `i32`, `mulhi(x, m)` is the same shape
//! the front end gives `__umulhi`: both sides extended to `i64`, an `imul`,
//! `ushr` by 32 and a `trunc`; the NVPTX backend selects that as one
//! `mul.hi.u32`/`mul.hi.s32` (a `mul.wide` and a shift when the full
//! product has other uses). For `i64`, the 128-bit product's high
//! half is built from four 32 x 32 -> 64-bit `mul.wide` products of the
//! halves, and for a signed `x` corrected by `M` when `x < 0`. `i8` and
//! `i16` divisions are widened to `i32` (the quotient and remainder of the
//! extended values are the same numbers) and truncated back.
//!
//! Division by `0`, `1` and `-1`, and by the most negative value, are left
//! alone (`fold` handles `/ 1`; the others are undefined or rare in C).

use crate::ir::{Function, Inst, InstData, IntCC, LayoutEdits, Opcode, Type, Value};
use stdx::bits::{mask, sext};

/// The pass-table entry; returns whether anything was rewritten.
pub fn expand_const_division(func: &mut Function) -> bool {
    let mut changed = false;
    // The expansions go in at once at the end: placing each instruction
    // on its own costs a scan of its block, quadratic in a long block of
    // divisions.
    let mut edits = LayoutEdits::default();
    let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
    for inst in insts {
        let InstData::Binary { opcode, args } = func.dfg.insts[inst] else {
            continue;
        };
        if !matches!(
            opcode,
            Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem
        ) {
            continue;
        }
        let x = func.dfg.resolve_aliases(args[0]);
        let ty = func.dfg.value_type(x);
        let Some(d) = func.dfg.iconst_value(args[1]) else {
            continue;
        };
        let w = ty.bits();
        if !ty.is_int() || w < 8 {
            continue;
        }
        let result = func.dfg.inst_results(inst)[0];
        let mut b = Emitter {
            func,
            before: inst,
            edits: &mut edits,
        };
        let Some(new) = rewrite(&mut b, opcode, x, ty, d) else {
            continue;
        };
        func.dfg.change_to_alias(result, new);
        edits.remove(inst);
        changed = true;
    }
    func.layout.apply(edits);
    if changed {
        func.dfg.resolve_all_aliases();
    }
    changed
}

/// The replacement of `opcode x, d` at `x`'s type, or `None` (emitting
/// nothing) when the division is left alone.
fn rewrite(b: &mut Emitter, opcode: Opcode, x: Value, ty: Type, d: i64) -> Option<Value> {
    let w = ty.bits();
    let unsigned = (d as u64) & mask(w);
    // The divisor as a signed number of width `w`.
    let signed = sext(unsigned, w);
    let rem = matches!(opcode, Opcode::Urem | Opcode::Srem);
    if matches!(opcode, Opcode::Udiv | Opcode::Urem) {
        if unsigned <= 1 {
            return None;
        }
        if unsigned.is_power_of_two() {
            return Some(unsigned_power_of_two(b, rem, x, ty, unsigned));
        }
        if w < 32 {
            let wide = b.convert(Opcode::Zext, Type::I32, x);
            let r = unsigned_by_constant(b, rem, wide, Type::I32, unsigned);
            return Some(b.convert(Opcode::Trunc, ty, r));
        }
        return Some(unsigned_by_constant(b, rem, x, ty, unsigned));
    }
    let magnitude = signed.unsigned_abs();
    // |d| = 2^(w-1) is the most negative value: left alone.
    if signed == 0 || magnitude == 1 || magnitude == 1u64 << (w - 1) {
        return None;
    }
    if magnitude.is_power_of_two() {
        return Some(signed_power_of_two(b, rem, x, ty, signed));
    }
    if w < 32 {
        let wide = b.convert(Opcode::Sext, Type::I32, x);
        let r = signed_by_constant(b, rem, wide, Type::I32, signed);
        return Some(b.convert(Opcode::Trunc, ty, r));
    }
    Some(signed_by_constant(b, rem, x, ty, signed))
}

fn unsigned_power_of_two(b: &mut Emitter, rem: bool, x: Value, ty: Type, d: u64) -> Value {
    if rem {
        let m = b.iconst(ty, (d - 1) as i64);
        b.binary(Opcode::Band, x, m, ty)
    } else {
        let kv = b.iconst(ty, i64::from(d.trailing_zeros()));
        b.binary(Opcode::Ushr, x, kv, ty)
    }
}

fn signed_power_of_two(b: &mut Emitter, rem: bool, x: Value, ty: Type, d: i64) -> Value {
    let w = ty.bits();
    let k = d.unsigned_abs().trailing_zeros();
    let sign = b.iconst(ty, i64::from(w - 1));
    let bias = if k == 1 {
        // The bias is the sign bit itself: one shift.
        b.binary(Opcode::Ushr, x, sign, ty)
    } else {
        let t = b.binary(Opcode::Sshr, x, sign, ty);
        let wk = b.iconst(ty, i64::from(w - k));
        b.binary(Opcode::Ushr, t, wk, ty)
    };
    let sum = b.binary(Opcode::Iadd, x, bias, ty);
    if rem {
        let low = b.iconst(ty, -(1i64 << k));
        let multiple = b.binary(Opcode::Band, sum, low, ty);
        b.binary(Opcode::Isub, x, multiple, ty)
    } else {
        let kv = b.iconst(ty, i64::from(k));
        let q = b.binary(Opcode::Sshr, sum, kv, ty);
        if d < 0 {
            b.unary(Opcode::Ineg, q, ty)
        } else {
            q
        }
    }
}

/// How an unsigned `w`-bit division by a constant `d` (at least 3, not a
/// power of two) is done; see the module comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsignedPlan {
    /// `d > 2^(w-1)`: the quotient is `x >= d`.
    Compare,
    /// `q = mulhi(x >> pre, m) >> shift`.
    Multiply { pre: u32, m: u64, shift: u32 },
    /// The multiplier is `m + 2^w`:
    /// `t = mulhi(x, m)`, `q = (((x - t) >> 1) + t) >> (shift - 1)`.
    MultiplyAdd { m: u64, shift: u32 },
}

/// How a signed `w`-bit division by a constant `d` (not 0, ±1, the most
/// negative value or ± a power of two) is done:
/// `q = (mulhi_signed(x, m) + fix * x) >> shift` (arithmetic), then
/// `q + (q >>> (w - 1))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedPlan {
    /// The multiplier as a signed `w`-bit number (sign-extended).
    pub m: i64,
    /// `1`: add `x` (the magic number's top bit made `m` negative); `-1`:
    /// subtract `x` (a negative `d` whose negated magic number came out
    /// positive); `0`: neither.
    pub fix: i8,
    pub shift: u32,
}

/// The smallest `p >= w` for which `m = ceil(2^p / d)` divides every
/// dividend up to `max` exactly, as `(m, p - w)`; `m` may need `w + 1` bits.
fn unsigned_magic(d: u64, w: u32, max: u64) -> (u128, u32) {
    assert!(d >= 3 && !d.is_power_of_two() && d <= max);
    let d = u128::from(d);
    let max = u128::from(max);
    // The largest dividend with remainder d - 1.
    let nc = max - (max + 1) % d;
    let mut p = w;
    loop {
        // p stays below w + 64 - 1: at p = w + ceil(log2 d), e < d <= 2^(p-w)
        // and nc < 2^w make nc * e < 2^p.
        let two_p = 1u128 << p;
        // d is not a power of two, so it never divides 2^p.
        let m = two_p / d + 1;
        let e = m * d - two_p;
        if nc * e < two_p {
            return (m, p - w);
        }
        p += 1;
    }
}

/// The plan for an unsigned `w`-bit division by `d`.
pub fn unsigned_plan(d: u64, w: u32) -> UnsignedPlan {
    assert!(d >= 3 && !d.is_power_of_two() && d <= mask(w));
    if d > 1u64 << (w - 1) {
        return UnsignedPlan::Compare;
    }
    let (m, shift) = unsigned_magic(d, w, mask(w));
    if m < 1u128 << w {
        return UnsignedPlan::Multiply {
            pre: 0,
            m: m as u64,
            shift,
        };
    }
    if d.is_multiple_of(2) {
        // Dividing x >> z by the odd part: the dividend has z fewer bits,
        // which leaves room for a w-bit multiplier.
        let z = d.trailing_zeros();
        let (m2, s2) = unsigned_magic(d >> z, w, mask(w) >> z);
        if m2 < 1u128 << w {
            return UnsignedPlan::Multiply {
                pre: z,
                m: m2 as u64,
                shift: s2,
            };
        }
    }
    UnsignedPlan::MultiplyAdd {
        m: (m - (1u128 << w)) as u64,
        shift,
    }
}

/// The plan for a signed `w`-bit division by `d`.
pub fn signed_plan(d: i64, w: u32) -> SignedPlan {
    let ad = d.unsigned_abs();
    assert!(ad >= 3 && !ad.is_power_of_two() && ad < 1u64 << (w - 1));
    let ad = u128::from(ad);
    // The dividends run from -2^(w-1) to 2^(w-1) - 1. The largest with
    // remainder |d| - 1 in magnitude, on the side that matters for the sign
    // of d (one further for a negative d, whose worst case is -2^(w-1)).
    let t = (1u128 << (w - 1)) + u128::from(d < 0);
    let anc = t - 1 - t % ad;
    let mut p = w;
    let (m, shift) = loop {
        let two_p = 1u128 << p;
        let m = two_p / ad + 1;
        let e = m * ad - two_p;
        if anc * e < two_p {
            break (m, p - w);
        }
        p += 1;
    };
    // m < 2^w (Hacker's Delight, 10-4); as a w-bit pattern, negated for d < 0.
    let bits = if d < 0 {
        (m as u64).wrapping_neg()
    } else {
        m as u64
    };
    let m = sext(bits & mask(w), w);
    let fix = if d > 0 && m < 0 {
        1
    } else if d < 0 && m > 0 {
        -1
    } else {
        0
    };
    SignedPlan { m, fix, shift }
}

fn unsigned_by_constant(b: &mut Emitter, rem: bool, x: Value, ty: Type, d: u64) -> Value {
    let w = ty.bits();
    let plan = unsigned_plan(d, w);
    if plan == UnsignedPlan::Compare {
        let dv = b.iconst(ty, d as i64);
        let ge = b.icmp(IntCC::Uge, x, dv);
        return if rem {
            let less = b.binary(Opcode::Isub, x, dv, ty);
            b.select(ge, less, x, ty)
        } else {
            let one = b.iconst(ty, 1);
            let zero = b.iconst(ty, 0);
            b.select(ge, one, zero, ty)
        };
    }
    let q = match plan {
        UnsignedPlan::Compare => unreachable!(),
        UnsignedPlan::Multiply { pre, m, shift } => {
            let xs = b.ushr_const(x, pre, ty);
            let h = b.mulhi_unsigned(xs, m, ty);
            b.ushr_const(h, shift, ty)
        }
        UnsignedPlan::MultiplyAdd { m, shift } => {
            let t = b.mulhi_unsigned(x, m, ty);
            let diff = b.binary(Opcode::Isub, x, t, ty);
            let half = b.ushr_const(diff, 1, ty);
            let sum = b.binary(Opcode::Iadd, half, t, ty);
            b.ushr_const(sum, shift - 1, ty)
        }
    };
    if rem {
        let dv = b.iconst(ty, d as i64);
        let qd = b.binary(Opcode::Imul, q, dv, ty);
        b.binary(Opcode::Isub, x, qd, ty)
    } else {
        q
    }
}

fn signed_by_constant(b: &mut Emitter, rem: bool, x: Value, ty: Type, d: i64) -> Value {
    let w = ty.bits();
    let plan = signed_plan(d, w);
    let h = b.mulhi_signed_fixed(x, plan.m, plan.fix, ty);
    let q = if plan.shift > 0 {
        let s = b.iconst(ty, i64::from(plan.shift));
        b.binary(Opcode::Sshr, h, s, ty)
    } else {
        h
    };
    // Round toward zero: add 1 to a negative quotient.
    let sign = b.ushr_const(q, w - 1, ty);
    let q = b.binary(Opcode::Iadd, q, sign, ty);
    if rem {
        let dv = b.iconst(ty, d);
        let qd = b.binary(Opcode::Imul, q, dv, ty);
        b.binary(Opcode::Isub, x, qd, ty)
    } else {
        q
    }
}

/// Places new instructions before the division, with its source span.
struct Emitter<'f> {
    func: &'f mut Function,
    before: Inst,
    edits: &'f mut LayoutEdits,
}

impl Emitter<'_> {
    fn place(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.func.dfg.make_inst(data, &[ty]);
        self.edits.insert_before(inst, self.before);
        self.func.spans[inst] = self.func.spans[self.before];
        self.func.dfg.inst_results(inst)[0]
    }

    fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        // Constants are stored sign-extended from their width.
        let w = ty.bits();
        let imm = if w == 64 {
            imm
        } else {
            (imm << (64 - w)) >> (64 - w)
        };
        self.place(InstData::Iconst { ty, imm }, ty)
    }

    fn binary(&mut self, opcode: Opcode, a: Value, b: Value, ty: Type) -> Value {
        self.place(
            InstData::Binary {
                opcode,
                args: [a, b],
            },
            ty,
        )
    }

    fn unary(&mut self, opcode: Opcode, arg: Value, ty: Type) -> Value {
        self.place(InstData::Unary { opcode, arg }, ty)
    }

    fn convert(&mut self, opcode: Opcode, ty: Type, arg: Value) -> Value {
        self.place(InstData::Convert { opcode, ty, arg }, ty)
    }

    fn icmp(&mut self, cond: IntCC, a: Value, b: Value) -> Value {
        self.place(InstData::IntCompare { cond, args: [a, b] }, Type::I1)
    }

    fn select(&mut self, c: Value, a: Value, b: Value, ty: Type) -> Value {
        self.place(
            InstData::Ternary {
                opcode: Opcode::Select,
                args: [c, a, b],
            },
            ty,
        )
    }

    /// `x >> k` (logical); `x` itself when `k` is 0.
    fn ushr_const(&mut self, x: Value, k: u32, ty: Type) -> Value {
        if k == 0 {
            return x;
        }
        let kv = self.iconst(ty, i64::from(k));
        self.binary(Opcode::Ushr, x, kv, ty)
    }

    /// The high `w` bits of the `2w`-bit product of `x` and the constant
    /// `m`, both unsigned.
    fn mulhi_unsigned(&mut self, x: Value, m: u64, ty: Type) -> Value {
        if ty == Type::I32 {
            self.mulhi32(x, m as i64, Opcode::Zext)
        } else {
            self.mulhi64_unsigned(x, m)
        }
    }

    /// `mulhi_signed(x, m) + fix * x`, `fix` being -1, 0 or 1.
    fn mulhi_signed_fixed(&mut self, x: Value, m: i64, fix: i8, ty: Type) -> Value {
        if ty == Type::I32 {
            let h = self.mulhi32(x, m, Opcode::Sext);
            return match fix {
                1 => self.binary(Opcode::Iadd, h, x, ty),
                -1 => self.binary(Opcode::Isub, h, x, ty),
                _ => h,
            };
        }
        // With x and m read as unsigned (xu = x + 2^64 [x < 0], likewise
        // mu), x * m = xu * mu - 2^64 ([x < 0] mu + [m < 0] xu) + 2^128 (...),
        // so the signed high half is the unsigned one minus `m` when x < 0
        // and minus `x` when m < 0.
        let hu = self.mulhi64_unsigned(x, m as u64);
        let c63 = self.iconst(ty, 63);
        let neg = self.binary(Opcode::Sshr, x, c63, ty);
        let mv = self.iconst(ty, m);
        let corr = self.binary(Opcode::Band, neg, mv, ty);
        let h = self.binary(Opcode::Isub, hu, corr, ty);
        // The `- x` for m < 0 and the plan's `fix * x` together.
        match i8::from(m < 0) - fix {
            0 => h,
            1 => self.binary(Opcode::Isub, h, x, ty),
            // fix = 1 only when m < 0, and fix = -1 only when m > 0.
            _ => unreachable!("signed plan with fix {fix} for m = {m}"),
        }
    }

    /// `trunc (ushr (imul (ext x), m), 32)`: the shape the front end gives
    /// `__umulhi`/`__mulhi`, which the backend selects as `mul.hi`.
    fn mulhi32(&mut self, x: Value, m: i64, ext: Opcode) -> Value {
        let wide = self.convert(ext, Type::I64, x);
        let mv = self.iconst(Type::I64, m);
        let p = self.binary(Opcode::Imul, wide, mv, Type::I64);
        let c32 = self.iconst(Type::I64, 32);
        let hi = self.binary(Opcode::Ushr, p, c32, Type::I64);
        self.convert(Opcode::Trunc, Type::I32, hi)
    }

    /// The high 64 bits of the unsigned 128-bit product `x * m`, from the
    /// four 32 x 32 -> 64-bit products of the halves (each a `mul.wide.u32`
    /// by an immediate).
    fn mulhi64_unsigned(&mut self, x: Value, m: u64) -> Value {
        let ty = Type::I64;
        let c32 = self.iconst(ty, 32);
        let lo = self.convert(Opcode::Trunc, Type::I32, x);
        let x0 = self.convert(Opcode::Zext, ty, lo);
        let top = self.binary(Opcode::Ushr, x, c32, ty);
        let top = self.convert(Opcode::Trunc, Type::I32, top);
        let x1 = self.convert(Opcode::Zext, ty, top);
        let m0 = self.iconst(ty, (m & 0xffff_ffff) as i64);
        let m1 = self.iconst(ty, (m >> 32) as i64);
        let p00 = self.binary(Opcode::Imul, x0, m0, ty);
        let p01 = self.binary(Opcode::Imul, x0, m1, ty);
        let p10 = self.binary(Opcode::Imul, x1, m0, ty);
        let p11 = self.binary(Opcode::Imul, x1, m1, ty);
        // The middle column: the carry out of p00 plus the low halves of
        // the cross products (below 3 * 2^32, so it cannot overflow).
        let low32 = self.iconst(ty, 0xffff_ffff);
        let carry = self.binary(Opcode::Ushr, p00, c32, ty);
        let a = self.binary(Opcode::Band, p01, low32, ty);
        let b = self.binary(Opcode::Band, p10, low32, ty);
        let mid = self.binary(Opcode::Iadd, carry, a, ty);
        let mid = self.binary(Opcode::Iadd, mid, b, ty);
        let a = self.binary(Opcode::Ushr, p01, c32, ty);
        let b = self.binary(Opcode::Ushr, p10, c32, ty);
        let c = self.binary(Opcode::Ushr, mid, c32, ty);
        let hi = self.binary(Opcode::Iadd, p11, a, ty);
        let hi = self.binary(Opcode::Iadd, hi, b, ty);
        self.binary(Opcode::Iadd, hi, c, ty)
    }
}

#[cfg(test)]
mod tests {
    //! The plans checked in Rust against `/` and `%`: a model of each
    //! emitted sequence, step by step with `w`-bit wrapping, on many
    //! divisors and dividends. (`midend/tests/divconst.rs` runs the emitted
    //! IR itself in the interpreter.)
    use super::*;

    /// The crate's splitmix64, with a draw of every magnitude.
    struct Rng(stdx::rng::SplitMix64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        /// A value with a random number of significant bits, so small and
        /// large magnitudes are both common.
        fn spread(&mut self) -> u64 {
            let bits = self.next() % 64 + 1;
            self.next() >> (64 - bits)
        }
    }

    /// The high `w` bits of the unsigned `2w`-bit product.
    fn mulhu(x: u64, m: u64, w: u32) -> u64 {
        ((u128::from(x) * u128::from(m)) >> w) as u64
    }

    /// The unsigned quotient as the emitted instructions compute it.
    fn unsigned_quotient(plan: UnsignedPlan, d: u64, w: u32, x: u64) -> u64 {
        let x = x & mask(w);
        match plan {
            UnsignedPlan::Compare => u64::from(x >= d),
            UnsignedPlan::Multiply { pre, m, shift } => {
                assert!(m <= mask(w));
                mulhu(x >> pre, m, w) >> shift
            }
            UnsignedPlan::MultiplyAdd { m, shift } => {
                assert!(m <= mask(w) && shift >= 1);
                let t = mulhu(x, m, w);
                let diff = x.wrapping_sub(t) & mask(w);
                (((diff >> 1) + t) & mask(w)) >> (shift - 1)
            }
        }
    }

    /// The signed quotient as the emitted instructions compute it.
    fn signed_quotient(plan: SignedPlan, w: u32, x: i64) -> i64 {
        assert_eq!(plan.m, sext(plan.m as u64 & mask(w), w));
        let wrap = |v: i128| sext(v as u64 & mask(w), w);
        let h = wrap((i128::from(x) * i128::from(plan.m)) >> w);
        let h = wrap(i128::from(h) + i128::from(plan.fix) * i128::from(x));
        let q = h >> plan.shift;
        let sign = (q as u64 & mask(w)) >> (w - 1);
        wrap(i128::from(q) + i128::from(sign))
    }

    fn unsigned_divisor(d: u64, w: u32) -> bool {
        d >= 3 && d <= mask(w) && !d.is_power_of_two()
    }

    fn signed_divisor(d: i64, w: u32) -> bool {
        let a = d.unsigned_abs();
        a >= 3 && a < 1u64 << (w - 1) && !a.is_power_of_two()
    }

    /// Dividends for `d` at width `w`: the edges, the neighbours of
    /// multiples of `d` (the largest ones too), and random values.
    fn dividends(d: u64, w: u32, rng: &mut Rng) -> Vec<u64> {
        let m = mask(w);
        let half = 1u64 << (w - 1);
        let mut v = vec![0, 1, m, m - 1, half, half - 1, half + 1];
        let top = m / d * d;
        let stop = (half - 1) / d * d;
        let sd = d.wrapping_neg();
        for base in [
            d,
            d.wrapping_mul(2),
            d.wrapping_mul(3),
            top,
            stop,
            top.wrapping_sub(d),
            stop.wrapping_neg(),
        ] {
            for delta in [0u64, 1, u64::MAX] {
                v.push(base.wrapping_add(delta));
                v.push(base.wrapping_add(delta).wrapping_neg());
            }
        }
        v.push(d - 1);
        v.push(sd);
        for _ in 0..300 {
            let k = rng.next() % (m / d + 1);
            let off = rng.next() % 3;
            v.push((k * d).wrapping_add(off).wrapping_sub(1));
            v.push(rng.next());
            v.push(rng.spread());
        }
        v.into_iter().map(|x| x & m).collect()
    }

    fn check_unsigned(d: u64, w: u32, rng: &mut Rng) {
        let plan = unsigned_plan(d, w);
        for x in dividends(d, w, rng) {
            let q = unsigned_quotient(plan, d, w, x);
            assert_eq!(q, x / d, "{x} / {d} at u{w}: {plan:?}");
            let r = x.wrapping_sub(q.wrapping_mul(d)) & mask(w);
            assert_eq!(r, x % d, "{x} % {d} at u{w}");
        }
    }

    fn check_signed(d: i64, w: u32, rng: &mut Rng) {
        let plan = signed_plan(d, w);
        for x in dividends(d as u64 & mask(w), w, rng) {
            let x = sext(x, w);
            let q = signed_quotient(plan, w, x);
            assert_eq!(q, x / d, "{x} / {d} at i{w}: {plan:?}");
            let r = sext(x.wrapping_sub(q.wrapping_mul(d)) as u64 & mask(w), w);
            assert_eq!(r, x % d, "{x} % {d} at i{w}");
        }
    }

    /// ±[2, 2000], some famous awkward divisors, and random ones of every
    /// size, as signed `w`-bit numbers.
    fn divisors(w: u32, rng: &mut Rng) -> Vec<i64> {
        let mut v: Vec<i64> = (2..=2000).flat_map(|d| [d, -d]).collect();
        let m = mask(w);
        let fixed: [u64; 12] = [
            641,
            6_700_417,
            274_177,
            67_280_421_310_721,
            1_000_000_007,
            (1 << 31) - 1,
            (1 << 31) + 1,
            (1 << 32) - 1,
            (1 << 32) + 1,
            u64::MAX / 3,
            (1 << 63) - 1,
            (1 << 63) + 1,
        ];
        v.extend(fixed.iter().map(|&d| sext(d & m, w)));
        v.extend([m, m - 1, m - 2, m >> 1, (m >> 1) - 2].map(|d| sext(d, w)));
        for _ in 0..300 {
            v.push(sext(rng.next() & m, w));
            v.push(sext(rng.spread() & m, w));
        }
        v
    }

    #[test]
    fn unsigned_plans_divide_exactly() {
        let mut rng = Rng(stdx::rng::SplitMix64(1));
        for w in [8, 16, 32, 64] {
            for d in divisors(w, &mut rng) {
                let d = d as u64 & mask(w);
                if unsigned_divisor(d, w) {
                    check_unsigned(d, w, &mut rng);
                }
            }
        }
    }

    #[test]
    fn signed_plans_divide_exactly() {
        let mut rng = Rng(stdx::rng::SplitMix64(2));
        for w in [8, 16, 32, 64] {
            for d in divisors(w, &mut rng) {
                if signed_divisor(d, w) {
                    check_signed(d, w, &mut rng);
                }
            }
        }
    }

    #[test]
    fn small_widths_divide_exactly_for_every_dividend_and_divisor() {
        // Every 8-bit divisor on every 8-bit dividend, and every 16-bit
        // dividend for a spread of 16-bit divisors.
        for (w, step) in [(8, 1), (16, 97)] {
            for d in (0..=mask(w)).step_by(step) {
                if unsigned_divisor(d, w) {
                    let plan = unsigned_plan(d, w);
                    for x in 0..=mask(w) {
                        let q = unsigned_quotient(plan, d, w, x);
                        assert_eq!(q, x / d, "{x} / {d} at u{w}");
                    }
                }
                let sd = sext(d, w);
                if signed_divisor(sd, w) {
                    let plan = signed_plan(sd, w);
                    for x in 0..=mask(w) {
                        let sx = sext(x, w);
                        let q = signed_quotient(plan, w, sx);
                        assert_eq!(q, sx / sd, "{sx} / {sd} at i{w}");
                    }
                }
            }
        }
    }

    #[test]
    fn plans_use_each_variant() {
        // Known values (Hacker's Delight's tables and what nvcc emits).
        assert_eq!(
            unsigned_plan(3, 32),
            UnsignedPlan::Multiply {
                pre: 0,
                m: 0xaaaa_aaab,
                shift: 1
            }
        );
        assert_eq!(
            unsigned_plan(7, 32),
            UnsignedPlan::MultiplyAdd {
                m: 0x2492_4925,
                shift: 3
            }
        );
        // 14 = 2 * 7: the pre-shift avoids the add.
        assert!(matches!(
            unsigned_plan(14, 32),
            UnsignedPlan::Multiply { pre: 1, .. }
        ));
        assert_eq!(unsigned_plan(3_000_000_000, 32), UnsignedPlan::Compare);
        assert_eq!(
            signed_plan(7, 32),
            SignedPlan {
                m: 0x9249_2493u32 as i32 as i64,
                fix: 1,
                shift: 2
            }
        );
        assert_eq!(
            signed_plan(3, 32),
            SignedPlan {
                m: 0x5555_5556,
                fix: 0,
                shift: 0
            }
        );
        assert_eq!(
            signed_plan(-7, 32),
            SignedPlan {
                m: 0x6db6_db6d,
                fix: -1,
                shift: 2
            }
        );
    }

    /// Every 32-bit dividend for a few divisors (one of each unsigned
    /// variant): 3 x 2^32 model evaluations, too slow for a debug build, so
    /// run it with `cargo test --release -p midend -- --ignored`.
    #[test]
    #[ignore]
    fn every_u32_dividend_for_small_divisors() {
        for d in [3u64, 7, 10] {
            let plan = unsigned_plan(d, 32);
            for x in 0..=u64::from(u32::MAX) {
                assert_eq!(unsigned_quotient(plan, d, 32, x), x / d, "{x} / {d}");
            }
        }
    }
}
