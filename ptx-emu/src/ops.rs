//! What each PTX arithmetic, comparison and conversion instruction computes,
//! on raw bits.
//!
//! Values are `u64` bit patterns: an integer zero-extended from its width, a
//! float as its IEEE bits in the low 32 or 64 bits. The choices where C says
//! "undefined" are PTX's, and they are the IR interpreter's too
//! (`midend/src/interp/eval.rs`), so that the two engines agree bitwise:
//! division by zero gives all ones (remainder: the dividend), `INT_MIN / -1`
//! wraps, shift amounts at least the width clamp, `cvt` from float to
//! integer saturates and maps NaN to 0, and every NaN a float operation
//! produces is the canonical one (`0x7fffffff`). The approximate
//! instructions (`ex2.approx`, `sin.approx`, `rsqrt.approx`, ...) are
//! computed exactly in `f64` and rounded once, as the interpreter does:
//! more accurate than a GPU, which may differ in the last bits.

use crate::program::{Kind, Ty};
use crate::rounding::{self, Dir};

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// An integer of `ty` as an i128 (signed types sign-extend).
fn int_val(ty: Ty, x: u64) -> i128 {
    if ty.is_signed() {
        i128::from(sext(x, ty.bits))
    } else {
        i128::from(x & mask(ty.bits))
    }
}

/// Saturates `v` to the range of `ty`.
fn clamp_to(ty: Ty, v: i128) -> u64 {
    let (lo, hi) = if ty.is_signed() {
        (-(1i128 << (ty.bits - 1)), (1i128 << (ty.bits - 1)) - 1)
    } else {
        (0, (1i128 << ty.bits) - 1)
    };
    (v.clamp(lo, hi) as u64) & mask(ty.bits)
}

/// Integer binary instructions (`add`, `mul.lo`, `div`, `shl`, ...).
/// `variant` is `lo`/`hi`/`wide` for `mul`; `sat` is `.sat`.
pub fn int_binary(op: &str, ty: Ty, a: u64, b: u64, sat: bool) -> Result<u64, String> {
    let bits = ty.bits;
    let m = mask(bits);
    let (a, b) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    let signed = ty.is_signed();
    let r = match op {
        "add" if sat => clamp_to(ty, int_val(ty, a) + int_val(ty, b)),
        "sub" if sat => clamp_to(ty, int_val(ty, a) - int_val(ty, b)),
        "add" => a.wrapping_add(b),
        "sub" => a.wrapping_sub(b),
        "mul.lo" => a.wrapping_mul(b),
        // The full product needs 128 bits; unsigned 64-bit operands would
        // overflow an i128, so they multiply as u128.
        "mul.hi" if signed => ((int_val(ty, a) * int_val(ty, b)) >> bits) as u64 & m,
        "mul.hi" => ((u128::from(a) * u128::from(b)) >> bits) as u64 & m,
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "div" if signed => {
            if sb == 0 {
                u64::MAX
            } else {
                sa.wrapping_div(sb) as u64
            }
        }
        "rem" if signed => {
            if sb == 0 {
                a
            } else {
                sa.wrapping_rem(sb) as u64
            }
        }
        "div" => a.checked_div(b).unwrap_or(u64::MAX),
        "rem" => a.checked_rem(b).unwrap_or(a),
        "min" if signed => sa.min(sb) as u64,
        "max" if signed => sa.max(sb) as u64,
        "min" => a.min(b),
        "max" => a.max(b),
        _ => return Err(format!("integer `{op}` is not supported by the emulator")),
    };
    Ok(r & m)
}

/// `shl`/`shr`: the amount is an unsigned 32-bit number and clamps at the
/// width (`shr.s` then gives the sign fill).
pub fn shift(op: &str, ty: Ty, a: u64, amount: u64) -> u64 {
    let bits = ty.bits;
    let a = a & mask(bits);
    let amount = amount & 0xffff_ffff;
    let r = if amount >= u64::from(bits) {
        if op == "shr" && ty.is_signed() && sext(a, bits) < 0 {
            u64::MAX
        } else {
            0
        }
    } else if op == "shl" {
        a << amount
    } else if ty.is_signed() {
        (sext(a, bits) >> amount) as u64
    } else {
        a >> amount
    };
    r & mask(bits)
}

/// Integer unary instructions.
pub fn int_unary(op: &str, ty: Ty, a: u64) -> Result<u64, String> {
    let bits = ty.bits;
    let a = a & mask(bits);
    Ok(match op {
        "neg" => a.wrapping_neg() & mask(bits),
        "not" => !a & mask(bits),
        "cnot" => u64::from(a == 0),
        "abs" => (sext(a, bits).wrapping_abs() as u64) & mask(bits),
        "popc" => u64::from(a.count_ones()),
        "clz" => u64::from(a.leading_zeros() - (64 - bits)),
        "brev" => a.reverse_bits() >> (64 - bits),
        _ => return Err(format!("integer `{op}` is not supported by the emulator")),
    })
}

/// `bfe`: extract `len` bits at `pos`, sign-extended for `.s` types.
pub fn bfe(ty: Ty, a: u64, pos: u64, len: u64) -> u64 {
    let bits = u64::from(ty.bits);
    let (pos, len) = (pos & 0xff, len & 0xff);
    let a = a & mask(ty.bits);
    let msb = if ty.is_signed() {
        if len == 0 {
            false
        } else {
            let top = (pos + len - 1).min(bits - 1);
            (a >> top) & 1 == 1
        }
    } else {
        false
    };
    let mut r = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i < bits {
            (a >> (pos + i)) & 1 == 1
        } else {
            msb
        };
        if bit {
            r |= 1 << i;
        }
    }
    r
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(ty: Ty, a: u64, b: u64, pos: u64, len: u64) -> u64 {
    let bits = u64::from(ty.bits);
    let (pos, len) = (pos & 0xff, len & 0xff);
    let mut r = b & mask(ty.bits);
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        r = (r & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
    }
    r
}

/// `prmt.b32` in its default mode: pick four bytes of `{b, a}` by the
/// nibbles of `c`, the top bit of each nibble replicating the sign.
pub fn prmt(a: u64, b: u64, c: u64) -> u64 {
    let bytes = (a & 0xffff_ffff) | ((b & 0xffff_ffff) << 32);
    let mut r = 0u64;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (bytes >> (8 * (sel & 7))) & 0xff;
        let v = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= v << (8 * i);
    }
    r
}

/// `dp4a.atype.btype d, a, b, c`: `c` plus the four products of the byte
/// lanes of `a` and `b` (lane 0 in bits 0..8), each lane sign-extended when
/// its operand's type is `.s32` (`a_signed`, `b_signed`) and zero-extended
/// otherwise; all in 32-bit wrapping arithmetic.
pub fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let lane = |x: u64, i: u32, signed: bool| -> u32 {
        let byte = (x >> (8 * i)) & 0xff;
        if signed {
            sext(byte, 8) as u32
        } else {
            byte as u32
        }
    };
    let sum = (0..4).fold(c as u32, |acc, i| {
        acc.wrapping_add(lane(a, i, a_signed).wrapping_mul(lane(b, i, b_signed)))
    });
    u64::from(sum)
}

// ---------------------------------------------------------------------------
// Floats.
// ---------------------------------------------------------------------------

pub fn canonical_nan(bits: u32) -> u64 {
    if bits == 64 {
        0x7fff_ffff_ffff_ffff
    } else {
        0x7fff_ffff
    }
}

pub fn to_f64(ty: Ty, x: u64) -> f64 {
    if ty.bits == 64 {
        f64::from_bits(x)
    } else {
        f64::from(f32::from_bits(x as u32))
    }
}

/// Rounds an f64 to the float type once; NaN becomes the canonical NaN.
pub fn from_f64(ty: Ty, x: f64) -> u64 {
    if x.is_nan() {
        return canonical_nan(ty.bits);
    }
    if ty.bits == 64 {
        x.to_bits()
    } else {
        u64::from((x as f32).to_bits())
    }
}

fn is_subnormal(ty: Ty, x: u64) -> bool {
    to_f64(ty, x) != 0.0 && to_f64(ty, x).abs() < f64::from(f32::MIN_POSITIVE) && ty.bits == 32
}

/// `.ftz`: a subnormal `f32` becomes a zero of the same sign.
pub fn ftz(ty: Ty, x: u64) -> u64 {
    if is_subnormal(ty, x) {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `.sat` on a float: clamp to [0, 1], NaN to 0.
pub fn fsat(ty: Ty, x: u64) -> u64 {
    let v = to_f64(ty, x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        from_f64(ty, 1.0)
    } else {
        x
    }
}

fn canon32(x: f32) -> u64 {
    if x.is_nan() {
        canonical_nan(32)
    } else {
        u64::from(x.to_bits())
    }
}

fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        canonical_nan(64)
    } else {
        x.to_bits()
    }
}

/// `add`, `sub`, `mul`, `div` on floats, round to nearest even.
pub fn float_binary(op: &str, ty: Ty, a: u64, b: u64) -> Result<u64, String> {
    if ty.bits == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        return Ok(canon32(match op {
            "add" => x + y,
            "sub" => x - y,
            "mul" => x * y,
            "div" => x / y,
            _ => return Err(format!("float `{op}` is not supported by the emulator")),
        }));
    }
    if ty.bits == 64 {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        return Ok(canon64(match op {
            "add" => x + y,
            "sub" => x - y,
            "mul" => x * y,
            "div" => x / y,
            _ => return Err(format!("float `{op}` is not supported by the emulator")),
        }));
    }
    Err(format!(
        "{}-bit float arithmetic is not supported by the emulator",
        ty.bits
    ))
}

/// `add`, `sub`, `mul`, `div` on floats with `.rz`, `.rm` or `.rp`.
pub fn float_binary_directed(op: &str, ty: Ty, a: u64, b: u64, dir: Dir) -> Result<u64, String> {
    if !matches!(op, "add" | "sub" | "mul" | "div") {
        return Err(format!("float `{op}` is not supported by the emulator"));
    }
    match ty.bits {
        32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            Ok(canon32(rounding::binary32(op, x, y, dir)))
        }
        64 => Ok(canon64(rounding::binary64(
            op,
            f64::from_bits(a),
            f64::from_bits(b),
            dir,
        ))),
        n => Err(format!(
            "{n}-bit float arithmetic is not supported by the emulator"
        )),
    }
}

/// `fma` with `.rz`, `.rm` or `.rp`.
pub fn fma_directed(ty: Ty, a: u64, b: u64, c: u64, dir: Dir) -> u64 {
    if ty.bits == 32 {
        let f = |x: u64| f32::from_bits(x as u32);
        canon32(rounding::fma32(f(a), f(b), f(c), dir))
    } else {
        let f = f64::from_bits;
        canon64(rounding::fma64(f(a), f(b), f(c), dir))
    }
}

/// `sqrt` and `rcp` with `.rz`, `.rm` or `.rp`.
pub fn float_unary_directed(op: &str, ty: Ty, a: u64, dir: Dir) -> u64 {
    if ty.bits == 32 {
        canon32(rounding::unary32(op, f32::from_bits(a as u32), dir))
    } else {
        canon64(rounding::unary64(op, f64::from_bits(a), dir))
    }
}

/// `min`/`max` on floats: a NaN operand yields the other, `-0 < +0`; with
/// `.NaN`, a NaN operand yields the canonical NaN.
pub fn float_min_max(op: &str, ty: Ty, a: u64, b: u64, nan: bool) -> u64 {
    let (x, y) = (to_f64(ty, a), to_f64(ty, b));
    if x.is_nan() || y.is_nan() {
        if nan || (x.is_nan() && y.is_nan()) {
            return canonical_nan(ty.bits);
        }
        return if x.is_nan() { b } else { a };
    }
    let a_first = if x == y { x.is_sign_negative() } else { x < y };
    match (op, a_first) {
        ("min", true) | ("max", false) => a,
        _ => b,
    }
}

pub fn fma(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    if ty.bits == 32 {
        let f = |x: u64| f32::from_bits(x as u32);
        canon32(f(a).mul_add(f(b), f(c)))
    } else {
        canon64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)))
    }
}

/// Float unary instructions: `neg`/`abs` touch the sign bit only; the
/// others round once.
pub fn float_unary(op: &str, ty: Ty, a: u64) -> Result<u64, String> {
    let sign = if ty.bits == 64 { 1u64 << 63 } else { 1 << 31 };
    Ok(match op {
        "neg" => a ^ sign,
        "abs" => a & !sign,
        "sqrt" if ty.bits == 32 => canon32(f32::from_bits(a as u32).sqrt()),
        "sqrt" => canon64(f64::from_bits(a).sqrt()),
        "rcp" if ty.bits == 32 => canon32(1.0 / f32::from_bits(a as u32)),
        "rcp" => canon64(1.0 / f64::from_bits(a)),
        _ => {
            let x = to_f64(ty, a);
            let r = match op {
                "rsqrt" => 1.0 / x.sqrt(),
                "ex2" => x.exp2(),
                "lg2" => x.log2(),
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tanh" => x.tanh(),
                _ => return Err(format!("float `{op}` is not supported by the emulator")),
            };
            from_f64(ty, r)
        }
    })
}

/// Rounds a float to an integral value by a `cvt` rounding modifier.
fn round_int(x: f64, rnd: &str) -> f64 {
    match rnd {
        ".rmi" | ".rm" => x.floor(),
        ".rpi" | ".rp" => x.ceil(),
        ".rni" | ".rn" => x.round_ties_even(),
        _ => x.trunc(),
    }
}

/// `cvt.RND.DST.SRC`. `rnd` is the rounding modifier or "".
pub fn cvt(dst: Ty, src: Ty, rnd: &str, sat: bool, a: u64) -> Result<u64, String> {
    let unsupported = || {
        Err(format!(
            "cvt{rnd}.{:?}{}.{:?}{} is not supported by the emulator",
            dst.kind, dst.bits, src.kind, src.bits
        )
        .to_lowercase())
    };
    match (dst.is_float(), src.is_float()) {
        (false, false) => {
            let v = int_val(src, a);
            Ok(if sat {
                clamp_to(dst, v)
            } else {
                (v as u64) & mask(dst.bits)
            })
        }
        (true, false) => {
            if dst.kind != Kind::F || dst.bits < 32 {
                return unsupported();
            }
            let v = int_val(src, a);
            Ok(match (rnd, dst.bits) {
                ("" | ".rn", 64) => (v as f64).to_bits(),
                ("" | ".rn", _) => u64::from((v as f32).to_bits()),
                (r, bits) => match rounding::dir_of([&r.to_string()]) {
                    Some(d) if bits == 64 => rounding::int_to_f64(v, d).to_bits(),
                    Some(d) => u64::from(rounding::int_to_f32(v, d).to_bits()),
                    None => return unsupported(),
                },
            })
        }
        (false, true) => {
            if src.kind != Kind::F || src.bits < 32 {
                return unsupported();
            }
            let x = round_int(to_f64(src, a), rnd);
            if x.is_nan() {
                return Ok(0);
            }
            // `as i128` saturates far beyond any result range.
            let sat_ty = Ty {
                kind: if dst.is_signed() { Kind::S } else { Kind::U },
                bits: dst.bits,
            };
            Ok(clamp_to(sat_ty, x as i128))
        }
        (true, true) => {
            if dst.kind != Kind::F || src.kind != Kind::F || dst.bits < 32 || src.bits < 32 {
                return unsupported();
            }
            let x = to_f64(src, a);
            let r = match rnd {
                ".rni" | ".rzi" | ".rmi" | ".rpi" => from_f64(dst, round_int(x, rnd)),
                "" | ".rn" => {
                    if x.is_nan() {
                        canonical_nan(dst.bits)
                    } else {
                        from_f64(dst, x)
                    }
                }
                // Narrowing f64 to f32 with a directed rounding; widening
                // is exact, so any rounding gives the nearest.
                _ if x.is_nan() => canonical_nan(dst.bits),
                _ if dst.bits >= src.bits => from_f64(dst, x),
                r => match rounding::dir_of([&r.to_string()]) {
                    Some(d) => u64::from(rounding::f64_to_f32(x, d).to_bits()),
                    None => return unsupported(),
                },
            };
            Ok(if sat { fsat(dst, r) } else { r })
        }
    }
}

/// `setp.CMP.TYPE`.
pub fn compare(cmp: &str, ty: Ty, a: u64, b: u64) -> Result<bool, String> {
    if ty.is_float() {
        let (x, y) = (to_f64(ty, a), to_f64(ty, b));
        let uno = x.is_nan() || y.is_nan();
        return Ok(match cmp {
            "eq" => x == y,
            "ne" => !uno && x != y,
            "lt" => x < y,
            "le" => x <= y,
            "gt" => x > y,
            "ge" => x >= y,
            "equ" => uno || x == y,
            "neu" => x != y,
            "ltu" => uno || x < y,
            "leu" => uno || x <= y,
            "gtu" => uno || x > y,
            "geu" => uno || x >= y,
            "num" => !uno,
            "nan" => uno,
            _ => return Err(format!("comparison `{cmp}` is not supported")),
        });
    }
    let (x, y) = (int_val(ty, a), int_val(ty, b));
    let (ux, uy) = (a & mask(ty.bits), b & mask(ty.bits));
    Ok(match cmp {
        "eq" => ux == uy,
        "ne" => ux != uy,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "lo" => ux < uy,
        "ls" => ux <= uy,
        "hi" => ux > uy,
        "hs" => ux >= uy,
        _ => return Err(format!("comparison `{cmp}` is not supported")),
    })
}

/// The value an atomic `op` stores, given the `old` value and operand `v`.
pub fn atomic(op: &str, ty: Ty, old: u64, v: u64) -> Result<u64, String> {
    let m = mask(ty.bits);
    Ok(match op {
        "add" if ty.is_float() => float_binary("add", ty, old, v)?,
        "add" => old.wrapping_add(v) & m,
        "exch" => v & m,
        "and" => old & v,
        "or" => old | v,
        "xor" => old ^ v,
        "min" | "max" => int_binary(op, ty, old, v, false)?,
        // CUDA's atomicInc/atomicDec.
        "inc" => {
            if old & m >= v & m {
                0
            } else {
                (old + 1) & m
            }
        }
        "dec" => {
            if old & m == 0 || old & m > v & m {
                v & m
            } else {
                (old & m) - 1
            }
        }
        _ => return Err(format!("atomic `{op}` is not supported by the emulator")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Ty {
        Ty::parse(s).unwrap()
    }

    #[test]
    fn integer_edges_follow_ptx() {
        let s32 = t(".s32");
        let u32t = t(".u32");
        assert_eq!(int_binary("div", s32, 7, 0, false).unwrap(), 0xffff_ffff);
        assert_eq!(int_binary("div", u32t, 7, 0, false).unwrap(), 0xffff_ffff);
        assert_eq!(int_binary("rem", u32t, 7, 0, false).unwrap(), 7);
        let min = 0x8000_0000;
        assert_eq!(
            int_binary("div", s32, min, 0xffff_ffff, false).unwrap(),
            min
        );
        assert_eq!(int_binary("rem", s32, min, 0xffff_ffff, false).unwrap(), 0);
        assert_eq!(
            int_binary("rem", s32, (-7i32) as u32 as u64, 2, false).unwrap(),
            0xffff_ffff
        );
        assert_eq!(
            int_binary("mul.hi", u32t, 0xffff_ffff, 2, false).unwrap(),
            1
        );
        // 64-bit high products: the unsigned one needs all 128 bits.
        let (u64t, s64t) = (t(".u64"), t(".s64"));
        assert_eq!(
            int_binary("mul.hi", u64t, u64::MAX, u64::MAX, false).unwrap(),
            u64::MAX - 1
        );
        assert_eq!(
            int_binary("mul.hi", s64t, (-3i64) as u64, 1 << 62, false).unwrap(),
            ((-3i128 << 62) >> 64) as u64
        );
        assert_eq!(
            int_binary("mul.hi", s32, (-2i32) as u32 as u64, 3, false).unwrap(),
            0xffff_ffff
        );
        assert_eq!(
            int_binary("add", s32, 0x7fff_ffff, 1, true).unwrap(),
            0x7fff_ffff
        );
        assert_eq!(
            int_binary("min", s32, 0xffff_ffff, 1, false).unwrap(),
            0xffff_ffff
        );
        assert_eq!(int_binary("min", u32t, 0xffff_ffff, 1, false).unwrap(), 1);
    }

    #[test]
    fn shifts_clamp() {
        assert_eq!(shift("shl", t(".b32"), 1, 32), 0);
        assert_eq!(shift("shr", t(".u32"), 0x8000_0000, 40), 0);
        assert_eq!(shift("shr", t(".s32"), 0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(shift("shr", t(".s32"), 0x8000_0000, 4), 0xf800_0000);
        assert_eq!(shift("shl", t(".b64"), 1, 63), 1 << 63);
    }

    #[test]
    fn bit_instructions() {
        let b32 = t(".b32");
        assert_eq!(int_unary("popc", b32, 0xf0f0).unwrap(), 8);
        assert_eq!(int_unary("clz", b32, 1).unwrap(), 31);
        assert_eq!(int_unary("clz", t(".b64"), 1).unwrap(), 63);
        assert_eq!(int_unary("brev", b32, 1).unwrap(), 0x8000_0000);
        assert_eq!(int_unary("not", b32, 0).unwrap(), 0xffff_ffff);
        assert_eq!(int_unary("abs", t(".s32"), 0xffff_fffb).unwrap(), 5);
        assert_eq!(bfe(t(".u32"), 0xabcd, 4, 8), 0xbc);
        assert_eq!(bfe(t(".s32"), 0x80, 4, 4), 0xffff_fff8);
        assert_eq!(bfi(b32, 0xf, 0, 4, 4), 0xf0);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x0004), 0x1111_1155);
    }

    #[test]
    fn dp4a_sums_byte_products() {
        // Lanes of 0xff01_807f: 0x7f, 0x80, 0x01, 0xff.
        let a = 0xff01_807f;
        // Signed: 127, -128, 1, -1.
        let s_lanes = [127i32, -128, 1, -1];
        // Unsigned: 127, 128, 1, 255.
        let u_lanes = [127i32, 128, 1, 255];
        let b = 0x02fe_03ff; // signed: -1, 3, -2, 2; unsigned: 255, 3, 254, 2.
        let sb = [-1i32, 3, -2, 2];
        let ub = [255i32, 3, 254, 2];
        let dot = |x: [i32; 4], y: [i32; 4], c: i32| {
            x.iter()
                .zip(y)
                .fold(c, |acc, (p, q)| acc.wrapping_add(p.wrapping_mul(q))) as u32
                as u64
        };
        // .s32.s32: -127 - 384 - 2 - 2 = -515.
        assert_eq!(dp4a(true, true, a, b, 0), (-515i32) as u32 as u64);
        assert_eq!(dp4a(true, true, a, b, 0), dot(s_lanes, sb, 0));
        // .u32.u32: 32385 + 384 + 254 + 510 = 33533.
        assert_eq!(dp4a(false, false, a, b, 0), 33533);
        assert_eq!(dp4a(false, false, a, b, 0), dot(u_lanes, ub, 0));
        // Mixed: .u32.s32 and .s32.u32.
        assert_eq!(dp4a(false, true, a, b, 0), dot(u_lanes, sb, 0));
        assert_eq!(
            dp4a(false, true, a, b, 0),
            (-127i32 + 384 - 2 + 510) as u32 as u64
        );
        assert_eq!(dp4a(true, false, a, b, 0), dot(s_lanes, ub, 0));
        assert_eq!(
            dp4a(true, false, a, b, 0),
            (32385i32 - 384 + 254 - 2) as u32 as u64
        );
        // A nonzero accumulator, negative as well.
        assert_eq!(dp4a(true, true, a, b, 1000), 485);
        assert_eq!(
            dp4a(
                false,
                false,
                0x0403_0201,
                0x0101_0101,
                (-10i32) as u32 as u64
            ),
            0
        );
        // -128 * -128 four times is 65536; all-ones lanes unsigned: 4 * 255^2.
        assert_eq!(dp4a(true, true, 0x8080_8080, 0x8080_8080, 0), 65536);
        assert_eq!(
            dp4a(false, false, u64::from(u32::MAX), u64::from(u32::MAX), 0),
            260_100
        );
        // Wrapping in 32 bits: the sum past u32::MAX, and past i32::MIN.
        assert_eq!(
            dp4a(false, false, 0xff, 0xff, 0xffff_ffff),
            65024 // 0xffff_ffff + 65025 mod 2^32
        );
        assert_eq!(
            dp4a(true, true, 0x7f, 0x80, 0x8000_0000),
            0x7fff_c080 // i32::MIN - 16256 wraps to the top
        );
        // Only the low 32 bits of each operand count.
        assert_eq!(
            dp4a(false, false, 0x1_0000_0001, 0x2_0000_0001, 0x3_0000_0000),
            1
        );
    }

    #[test]
    fn conversions_saturate_and_round() {
        let f = |x: f32| u64::from(x.to_bits());
        let (s32, u32t, f32t, f64t) = (t(".s32"), t(".u32"), t(".f32"), t(".f64"));
        assert_eq!(cvt(s32, f32t, ".rzi", false, f(-2.9)).unwrap(), 0xffff_fffe);
        assert_eq!(cvt(s32, f32t, ".rzi", false, f(3e10)).unwrap(), 0x7fff_ffff);
        assert_eq!(cvt(u32t, f32t, ".rzi", false, f(-5.0)).unwrap(), 0);
        assert_eq!(cvt(s32, f32t, ".rzi", false, f(f32::NAN)).unwrap(), 0);
        assert_eq!(cvt(s32, f32t, ".rmi", false, f(-2.5)).unwrap(), 0xffff_fffd);
        assert_eq!(cvt(s32, f32t, ".rni", false, f(2.5)).unwrap(), 2);
        assert_eq!(cvt(s32, f32t, ".rpi", false, f(2.1)).unwrap(), 3);
        assert_eq!(cvt(f32t, f32t, ".rmi", false, f(-1.5)).unwrap(), f(-2.0));
        assert_eq!(
            cvt(t(".s64"), s32, "", false, 0xffff_fffe).unwrap(),
            u64::MAX - 1
        );
        assert_eq!(
            cvt(t(".u64"), u32t, "", false, 0xffff_fffe).unwrap(),
            0xffff_fffe
        );
        assert_eq!(cvt(t(".u8"), u32t, "", false, 0x1ff).unwrap(), 0xff);
        assert_eq!(
            cvt(t(".s32"), t(".s8"), "", false, 0x80).unwrap(),
            0xffff_ff80
        );
        assert_eq!(cvt(f32t, s32, ".rn", false, 0xffff_ffff).unwrap(), f(-1.0));
        assert_eq!(
            cvt(f32t, f64t, ".rn", false, 0.1f64.to_bits()).unwrap(),
            f(0.1)
        );
        // Directed roundings of int-to-float and narrowing conversions.
        assert_eq!(
            cvt(f32t, s32, ".rz", false, 16_777_217).unwrap(),
            f(16_777_216.0)
        );
        assert_eq!(
            cvt(f32t, s32, ".rp", false, 16_777_217).unwrap(),
            f(16_777_218.0)
        );
        assert_eq!(
            cvt(f32t, f64t, ".rm", false, 0.1f64.to_bits()).unwrap(),
            f(0.1f32.next_down())
        );
        assert!(cvt(t(".f16"), s32, ".rz", false, 1).is_err());
    }

    #[test]
    fn float_edges() {
        let f32t = t(".f32");
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(
            float_binary("div", f32t, f(0.0), f(0.0)).unwrap(),
            0x7fff_ffff
        );
        assert_eq!(
            float_min_max("min", f32t, f(f32::NAN), f(2.0), false),
            f(2.0)
        );
        assert_eq!(float_min_max("min", f32t, f(0.0), f(-0.0), false), f(-0.0));
        assert_eq!(
            float_min_max("max", f32t, f(f32::NAN), f(2.0), true),
            0x7fff_ffff
        );
        assert_eq!(float_unary("neg", f32t, f(1.0)).unwrap(), f(-1.0));
        assert_eq!(float_unary("ex2", f32t, f(3.0)).unwrap(), f(8.0));
        assert_eq!(fma(f32t, f(2.0), f(3.0), f(1.0)), f(7.0));
        assert!(compare("ltu", f32t, f(f32::NAN), f(1.0)).unwrap());
        assert!(!compare("lt", f32t, f(f32::NAN), f(1.0)).unwrap());
        assert!(!compare("ne", f32t, f(f32::NAN), f(1.0)).unwrap());
        assert!(compare("neu", f32t, f(f32::NAN), f(1.0)).unwrap());
        assert!(compare("hi", t(".u32"), 0xffff_ffff, 1).unwrap());
        assert!(!compare("gt", t(".s32"), 0xffff_ffff, 1).unwrap());
        assert_eq!(ftz(f32t, 1), 0);
        assert_eq!(fsat(f32t, f(2.0)), f(1.0));
    }

    #[test]
    fn atomics() {
        let u32t = t(".u32");
        assert_eq!(atomic("inc", u32t, 5, 5).unwrap(), 0);
        assert_eq!(atomic("inc", u32t, 4, 5).unwrap(), 5);
        assert_eq!(atomic("dec", u32t, 0, 5).unwrap(), 5);
        assert_eq!(atomic("dec", u32t, 3, 5).unwrap(), 2);
        assert_eq!(atomic("max", t(".s32"), 0xffff_ffff, 1).unwrap(), 1);
        assert_eq!(
            atomic(
                "add",
                t(".f32"),
                u64::from(1f32.to_bits()),
                u64::from(2f32.to_bits())
            )
            .unwrap(),
            u64::from(3f32.to_bits())
        );
    }
}
