//! The integer instructions beyond C's operators: `sad`, the 24-bit
//! multiplies (`mul24`, `mad24`), the saturating `mad.hi`, and the
//! extended-precision additions with the carry flag (`add.cc`, `addc`,
//! `sub.cc`, `subc`, `mad.cc`, `madc`).

use super::{clamp_to, int_val, mask, sext};
use crate::decode::IntOp;
use crate::program::Ty;

/// `sad.TYPE d, a, b, c`: `c + |a - b|`, the difference taken exactly (by
/// the type's signedness) and the sum wrapping at the type's width.
pub fn sad(ty: Ty, a: u64, b: u64, c: u64) -> u64 {
    let diff = (int_val(ty, a) - int_val(ty, b)).unsigned_abs() as u64;
    c.wrapping_add(diff) & mask(ty.bits)
}

/// Integer `add`/`min`/`max` on each `lane`-wide part of a 32-bit
/// register (one part for a 32-bit lane); with `relu`, a negative result
/// is 0.
pub fn int_lanes(op: IntOp, lane: Ty, relu: bool, a: u64, b: u64) -> u64 {
    let m = mask(lane.bits);
    (0..32 / lane.bits).fold(0, |d, k| {
        let shift = k * lane.bits;
        let r = super::int_binary(op, lane, a >> shift, b >> shift, false);
        let r = if relu && sext(r, lane.bits) < 0 { 0 } else { r };
        d | (r & m) << shift
    })
}

/// What a SIMD video instruction computes in each lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VideoOp {
    Add,
    Sub,
    AbsDiff,
    Min,
    Max,
}

/// A SIMD video instruction `vop{2,4}.dtype.atype.btype{.sat,.add} d, a,
/// b, c` without lane selectors or mask.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Video {
    pub op: VideoOp,
    /// 16 (`vop2`) or 8 (`vop4`).
    pub lane_bits: u32,
    /// Whether the lanes of `d`, `a` and `b` are signed.
    pub signed: [bool; 3],
    /// Each lane's result clamped to `d`'s lane range.
    pub sat: bool,
    /// `d = c + ` the sum of the lanes' results (`vabsdiff` only).
    pub add: bool,
}

/// The SIMD video instruction `v` on `a`, `b` and `c` (32-bit values):
/// each lane's operands extended by their types' signedness and the
/// result computed exactly, then saturated or wrapped into `d`'s lane;
/// the `.add` form adds the exact results to `c` instead.
pub fn video(v: &Video, a: u64, b: u64, c: u64) -> u64 {
    let w = v.lane_bits;
    let lane = |x: u64, k: u32, signed: bool| {
        let raw = (x >> (k * w)) & mask(w);
        if signed {
            sext(raw, w)
        } else {
            raw as i64
        }
    };
    let (d_lo, d_hi) = if v.signed[0] {
        (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
    } else {
        (0, (1i64 << w) - 1)
    };
    let mut d = 0u64;
    let mut sum = 0i64;
    for k in 0..32 / w {
        let (x, y) = (lane(a, k, v.signed[1]), lane(b, k, v.signed[2]));
        let r = match v.op {
            VideoOp::Add => x + y,
            VideoOp::Sub => x - y,
            VideoOp::AbsDiff => (x - y).abs(),
            VideoOp::Min => x.min(y),
            VideoOp::Max => x.max(y),
        };
        let r = if v.sat { r.clamp(d_lo, d_hi) } else { r };
        sum += r;
        d |= (r as u64 & mask(w)) << (k * w);
    }
    if v.add {
        (c as i64).wrapping_add(sum) as u64 & mask(32)
    } else {
        d
    }
}

/// The 48-bit product of the low 24 bits of `a` and `b` (each taken as a
/// signed 24-bit number when `signed`), as 64-bit two's complement.
fn product24(signed: bool, a: u64, b: u64) -> u64 {
    let low = |x: u64| {
        if signed {
            sext(x & 0xff_ffff, 24)
        } else {
            (x & 0xff_ffff) as i64
        }
    };
    (low(a) * low(b)) as u64
}

/// `mul24.{hi,lo}`: bits 47..16 (`.hi`) or 31..0 of the 48-bit product.
pub fn mul24(hi: bool, signed: bool, a: u64, b: u64) -> u64 {
    let t = product24(signed, a, b);
    (if hi { t >> 16 } else { t }) & 0xffff_ffff
}

/// `mad24.{hi,lo}[.sat]`: [`mul24`] plus `c` in 32 bits; `.sat` (only on
/// `.hi.s32`) clamps the signed sum.
pub fn mad24(hi: bool, signed: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    add32(mul24(hi, signed, a, b), c, sat)
}

/// `x + c` in 32 bits, wrapping or (`sat`) clamped as signed numbers.
pub fn add32(x: u64, c: u64, sat: bool) -> u64 {
    if sat {
        clamp_to(Ty::S32, int_val(Ty::S32, x) + int_val(Ty::S32, c))
    } else {
        x.wrapping_add(c) & 0xffff_ffff
    }
}

/// `a + b + carry_in` in `bits` bits, and the carry out of the top bit.
pub fn add_carry(bits: u32, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let m = mask(bits);
    let sum = u128::from(a & m) + u128::from(b & m) + u128::from(carry_in);
    (sum as u64 & m, sum >> bits != 0)
}

/// `a - (b + borrow_in)` in `bits` bits, and whether it borrowed (the
/// unsigned `a` is less than `b + borrow_in`).
pub fn sub_borrow(bits: u32, a: u64, b: u64, borrow_in: bool) -> (u64, bool) {
    let m = mask(bits);
    let (a, b) = (u128::from(a & m), u128::from(b & m) + u128::from(borrow_in));
    (a.wrapping_sub(b) as u64 & m, a < b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_halves_and_relu() {
        let (s16, u16) = (Ty::parse(".s16").unwrap(), Ty::parse(".u16").unwrap());
        // Each half wraps on its own: 0x7fff + 1 and 0xffff + 1.
        assert_eq!(
            int_lanes(IntOp::Add, s16, false, 0xffff_7fff, 0x0001_0001),
            0x0000_8000
        );
        assert_eq!(
            int_lanes(IntOp::Max, s16, false, 0x8000_0001, 0x0001_ffff),
            0x0001_0001
        );
        assert_eq!(
            int_lanes(IntOp::Max, u16, false, 0x8000_0001, 0x0001_ffff),
            0x8000_ffff
        );
        assert_eq!(
            int_lanes(IntOp::Min, s16, true, 0x8000_0005, 0x0001_0003),
            0x0000_0003
        );
        assert_eq!(
            int_lanes(IntOp::Max, Ty::S32, true, 0x8000_0000, 0xffff_fffe),
            0
        );
    }

    #[test]
    fn video_simd_lanes() {
        let absdiff = Video {
            op: VideoOp::AbsDiff,
            lane_bits: 8,
            signed: [false; 3],
            sat: false,
            add: false,
        };
        assert_eq!(video(&absdiff, 0x00ff_1080, 0xff00_2001, 0), 0xffff_107f);
        let sum = Video {
            add: true,
            ..absdiff
        };
        assert_eq!(
            video(&sum, 0x00ff_1080, 0xff00_2001, 5),
            5 + 255 + 255 + 16 + 127
        );
        let signed = Video {
            signed: [true; 3],
            lane_bits: 16,
            ..absdiff
        };
        // |-32768 - 32767| is 65535, which the 16-bit lane holds as 0xffff.
        assert_eq!(video(&signed, 0x8000_0001, 0x7fff_ffff, 0), 0xffff_0002);
        let sat_add = Video {
            op: VideoOp::Add,
            sat: true,
            ..signed
        };
        assert_eq!(video(&sat_add, 0x7fff_8000, 0x0001_ffff, 0), 0x7fff_8000);
    }
    use crate::program::Kind;

    fn ty(kind: Kind, bits: u32) -> Ty {
        Ty { kind, bits }
    }

    #[test]
    fn sad_takes_the_difference_by_signedness() {
        let (s32, u32t, u16t) = (ty(Kind::S, 32), ty(Kind::U, 32), ty(Kind::U, 16));
        // |3 - 10| + 100.
        assert_eq!(sad(u32t, 3, 10, 100), 107);
        assert_eq!(sad(u32t, 10, 3, 100), 107);
        // -1 against 1: signed they are 2 apart, unsigned 0xfffffffe.
        assert_eq!(sad(s32, 0xffff_ffff, 1, 0), 2);
        assert_eq!(sad(u32t, 0xffff_ffff, 1, 0), 0xffff_fffe);
        // INT_MAX against INT_MIN: 2^32 - 1 apart, which wraps with c = 1.
        assert_eq!(sad(s32, 0x7fff_ffff, 0x8000_0000, 0), 0xffff_ffff);
        assert_eq!(sad(s32, 0x7fff_ffff, 0x8000_0000, 1), 0);
        // 16 bits wrap at 16 bits; only the low 16 bits of each operand count.
        assert_eq!(sad(u16t, 0x1_0000, 0xffff, 2), 1);
        let s64 = ty(Kind::S, 64);
        assert_eq!(sad(s64, i64::MIN as u64, i64::MAX as u64, 0), u64::MAX);
    }

    #[test]
    fn mul24_multiplies_the_low_24_bits() {
        // The top byte of each operand is ignored.
        assert_eq!(mul24(false, false, 0xff00_0003, 0x1200_0005), 15);
        // 0xffffff * 0xffffff = 0xfffffe000001 (48 bits).
        assert_eq!(mul24(false, false, 0xff_ffff, 0xff_ffff), 0xfe00_0001);
        assert_eq!(mul24(true, false, 0xff_ffff, 0xff_ffff), 0xffff_fe00);
        // Signed: 0xffffff is -1, so -1 * -1 = 1 and the high bits are 0.
        assert_eq!(mul24(false, true, 0xff_ffff, 0xff_ffff), 1);
        assert_eq!(mul24(true, true, 0xff_ffff, 0xff_ffff), 0);
        // -2^23 * 2^23 - 1 = -(2^46 - 2^23): bits 47..16 of that 48-bit
        // two's complement number.
        let p = (-(1i64 << 23) * ((1 << 23) - 1)) as u64;
        assert_eq!(
            mul24(true, true, 0x80_0000, 0x7f_ffff),
            (p >> 16) & 0xffff_ffff
        );
        assert_eq!(mul24(false, true, 0x80_0000, 0x7f_ffff), p & 0xffff_ffff);
        // -1 * 3 = -3: the low word, and the high bits all ones.
        assert_eq!(mul24(false, true, 0xff_ffff, 3), 0xffff_fffd);
        assert_eq!(mul24(true, true, 0xff_ffff, 3), 0xffff_ffff);
    }

    #[test]
    fn mad24_adds_and_saturates_the_high_half() {
        assert_eq!(mad24(false, false, false, 7, 6, 0xffff_ffd0), 0xffff_fffa);
        assert_eq!(mad24(false, false, false, 7, 6, 0xffff_ffff), 41);
        // (2^23 - 1)^2 = 2^46 - 2^24 + 1, whose bits 47..16 are
        // 2^30 - 2^8; adding INT_MAX overflows, which .sat clamps.
        let hi = mul24(true, true, 0x7f_ffff, 0x7f_ffff);
        assert_eq!(hi, (1 << 30) - (1 << 8));
        assert_eq!(
            mad24(true, true, true, 0x7f_ffff, 0x7f_ffff, 0x7fff_ffff),
            0x7fff_ffff
        );
        assert_eq!(
            mad24(true, true, false, 0x7f_ffff, 0x7f_ffff, 0x7fff_ffff),
            (hi + 0x7fff_ffff) & 0xffff_ffff
        );
        // The negative side clamps at INT_MIN.
        assert_eq!(
            mad24(true, true, true, 0xff_ffff, 3, 0x8000_0000),
            0x8000_0000
        );
        assert_eq!(add32(0xffff_ffff, 0x8000_0000, true), 0x8000_0000);
        assert_eq!(add32(1, 0x7fff_ffff, true), 0x7fff_ffff);
        assert_eq!(add32(1, 0x7fff_ffff, false), 0x8000_0000);
    }

    #[test]
    fn carries_and_borrows() {
        assert_eq!(add_carry(32, 0xffff_ffff, 1, false), (0, true));
        assert_eq!(add_carry(32, 0xffff_ffff, 0, true), (0, true));
        assert_eq!(add_carry(32, 0xffff_fffe, 0, true), (0xffff_ffff, false));
        assert_eq!(
            add_carry(32, 0xffff_ffff, 0xffff_ffff, true),
            (0xffff_ffff, true)
        );
        assert_eq!(add_carry(64, u64::MAX, 1, false), (0, true));
        assert_eq!(add_carry(64, u64::MAX, u64::MAX, true), (u64::MAX, true));
        assert_eq!(sub_borrow(32, 0, 1, false), (0xffff_ffff, true));
        assert_eq!(sub_borrow(32, 1, 1, false), (0, false));
        assert_eq!(sub_borrow(32, 1, 0, true), (0, false));
        assert_eq!(sub_borrow(32, 1, 1, true), (0xffff_ffff, true));
        // b + borrow overflows the width: still a borrow.
        assert_eq!(
            sub_borrow(32, 0xffff_ffff, 0xffff_ffff, true),
            (0xffff_ffff, true)
        );
        assert_eq!(sub_borrow(64, 0, u64::MAX, true), (0, true));
        // A 96-bit addition done word by word agrees with u128.
        let (x, y) = (
            0x0123_4567_89ab_cdef_ffff_ffffu128,
            0x00ff_ffff_ffff_0000_0000_0001u128,
        );
        let word = |v: u128, i: u32| (v >> (32 * i)) as u64 & 0xffff_ffff;
        let (mut carry, mut sum) = (false, 0u128);
        for i in 0..3 {
            let (w, c) = add_carry(32, word(x, i), word(y, i), carry);
            sum |= u128::from(w) << (32 * i);
            carry = c;
        }
        assert_eq!(sum, (x + y) & ((1 << 96) - 1));
    }
}
