//! Bit and byte instructions: `lop3`, `dp2a`, `fns`, `bmsk`, `szext`, and
//! `prmt`'s six special modes (its default mode is [`super::prmt`]).

use super::sext;

/// `prmt`'s modes other than the default: each picks its four bytes of
/// `{b, a}` (bytes 0..7, `a` low) by the two low bits of `c` alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrmtMode {
    /// `.f4e`, forward 4 extract: bytes `c..c+4`.
    F4e,
    /// `.b4e`, backward 4 extract: bytes `c, c-1, c-2, c-3` (mod 8).
    B4e,
    /// `.rc8`, replicate 8: byte `c` four times.
    Rc8,
    /// `.ecl`, edge clamp left: byte `max(c, i)` for result byte `i`.
    Ecl,
    /// `.ecr`, edge clamp right: byte `min(c, i)`.
    Ecr,
    /// `.rc16`, replicate 16: the half-word `c & 1` twice.
    Rc16,
}

/// `lop3.b32 d, a, b, c, lut`: each result bit is the bit of `lut` that the
/// bits of `a`, `b` and `c` index, `a` the most significant (so that the
/// table of `F` is `F(0xf0, 0xcc, 0xaa)`).
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    (0..32).fold(0, |r, i| {
        let index = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        r | (u64::from(lut >> index) & 1) << i
    })
}

/// `dp2a.{lo,hi}.atype.btype d, a, b, c`: `c` plus the products of the two
/// 16-bit halves of `a` with bytes 0 and 1 (`.lo`) or 2 and 3 (`.hi`) of
/// `b`, each sign-extended when its operand is `.s32`; 32-bit wrapping.
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let field = |x: u64, bits: u32, i: u32, signed: bool| -> u32 {
        let f = (x >> (bits * i)) & ((1 << bits) - 1);
        if signed {
            sext(f, bits) as u32
        } else {
            f as u32
        }
    };
    let first = if hi { 2 } else { 0 };
    let sum = (0..2).fold(c as u32, |acc, i| {
        let p = field(a, 16, i, a_signed).wrapping_mul(field(b, 8, first + i, b_signed));
        acc.wrapping_add(p)
    });
    u64::from(sum)
}

/// `fns.b32 d, mask, base, offset`: the position of the `|offset|`-th set
/// bit of `mask` counting up (`offset > 0`) or down (`offset < 0`) from bit
/// `base` itself, or, for `offset == 0`, `base` if that bit is set;
/// `0xffffffff` if there is none. A `base` above 31 (undefined in PTX)
/// finds nothing.
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    if base > 31 {
        return u32::MAX;
    }
    let set = |pos: i64| mask >> pos & 1 == 1;
    if offset == 0 {
        return if set(i64::from(base)) { base } else { u32::MAX };
    }
    let step = if offset > 0 { 1 } else { -1 };
    let mut left = offset.unsigned_abs();
    let mut pos = i64::from(base);
    while (0..32).contains(&pos) {
        if set(pos) {
            left -= 1;
            if left == 0 {
                return pos as u32;
            }
        }
        pos += step;
    }
    u32::MAX
}

/// `bmsk.{clamp,wrap}.b32 d, a, b`: `b` ones starting at bit `a`. With
/// `.wrap` both are taken mod 32; with `.clamp` a start of 32 or more
/// gives 0 and a width of 32 or more reaches the top. Bits past 31 are
/// cut off, and a width of 0 gives 0.
pub fn bmsk(wrap: bool, a: u32, b: u32) -> u32 {
    let (start, width) = if wrap {
        (a & 31, b & 31)
    } else {
        if a >= 32 {
            return 0;
        }
        (a, b.min(32))
    };
    let end = (start + width).min(32);
    let ones = |n: u32| if n >= 32 { u32::MAX } else { (1 << n) - 1 };
    ones(end) & !ones(start)
}

/// `szext.{clamp,wrap}.{u32,s32} d, a, b`: the low `N` bits of `a`, zero-
/// or (`signed`) sign-extended to 32, where `N` is `b` mod 32 (`.wrap`) or
/// `b` up to 32 (`.clamp`, where 32 or more keeps `a`); `N = 0` gives 0.
pub fn szext(wrap: bool, signed: bool, a: u32, b: u32) -> u32 {
    let n = if wrap { b & 31 } else { b.min(32) };
    match n {
        0 => 0,
        32 => a,
        n if signed => sext(u64::from(a) & ((1 << n) - 1), n) as u32,
        n => a & ((1 << n) - 1),
    }
}

/// `prmt.b32.MODE d, a, b, c`.
pub fn prmt_mode(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let bytes = (a & 0xffff_ffff) | (b & 0xffff_ffff) << 32;
    let sel = (c & 3) as u32;
    (0..4u32).fold(0, |r, i| {
        let from = match mode {
            PrmtMode::F4e => sel + i,
            PrmtMode::B4e => (sel + 8 - i) % 8,
            PrmtMode::Rc8 => sel,
            PrmtMode::Ecl => sel.max(i),
            PrmtMode::Ecr => sel.min(i),
            PrmtMode::Rc16 => 2 * (sel & 1) + i % 2,
        };
        r | ((bytes >> (8 * from)) & 0xff) << (8 * i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The PTX ISA's example tables of `immLut`, computed from `ta = 0xf0`,
    /// `tb = 0xcc`, `tc = 0xaa`.
    #[test]
    fn lop3_follows_its_lookup_table() {
        let (x, y, z) = (0x1234_5678u64, 0xf0f0_ff00u64, 0xaaaa_5555u64);
        type Logic = fn(u64, u64, u64) -> u64;
        let funcs: [(u8, Logic); 6] = [
            (0x80, |a, b, c| a & b & c),
            (0xfe, |a, b, c| a | b | c),
            (0x40, |a, b, c| a & b & !c),
            (0x1a, |a, b, c| (a & b | c) ^ a),
            (0x96, |a, b, c| a ^ b ^ c),
            (0xe8, |a, b, c| (a & b) | (a & c) | (b & c)),
        ];
        for (lut, f) in funcs {
            assert_eq!(lut, f(0xf0, 0xcc, 0xaa) as u8, "table of {lut:#x}");
            assert_eq!(lop3(x, y, z, lut), f(x, y, z) & 0xffff_ffff, "{lut:#x}");
        }
        assert_eq!(lop3(x, y, z, 0), 0);
        assert_eq!(lop3(x, y, z, 0xff), 0xffff_ffff);
        assert_eq!(lop3(x, y, z, 0xf0), x, "the table of a is a");
        assert_eq!(lop3(x, y, z, 0xcc), y);
        assert_eq!(lop3(x, y, z, 0xaa), z);
        // Every table on single bits: bit 0 of the result is lut[4a+2b+c]
        // (and the other bits, all of whose inputs are 0, are lut[0]).
        for lut in 0..=255u8 {
            for idx in 0..8u64 {
                let r = lop3(idx >> 2, (idx >> 1) & 1, idx & 1, lut);
                assert_eq!(r & 1, u64::from(lut >> idx) & 1);
                assert_eq!(r >> 1, if lut & 1 == 1 { 0x7fff_ffff } else { 0 });
            }
        }
    }

    #[test]
    fn dp2a_uses_half_words_of_a_and_bytes_of_b() {
        // a: halves 0x8000 (-32768 signed), 0x0003; b: bytes 0xff (-1),
        // 0x02, 0x80 (-128), 0x7f.
        let (a, b) = (0x0003_8000u64, 0x7f80_02ffu64);
        let dot =
            |x: [i64; 2], y: [i64; 2], c: i64| ((c + x[0] * y[0] + x[1] * y[1]) as u32) as u64;
        assert_eq!(
            dp2a(false, true, true, a, b, 10),
            dot([-32768, 3], [-1, 2], 10)
        );
        assert_eq!(
            dp2a(false, false, false, a, b, 10),
            dot([32768, 3], [255, 2], 10)
        );
        assert_eq!(
            dp2a(true, true, true, a, b, 10),
            dot([-32768, 3], [-128, 127], 10)
        );
        assert_eq!(
            dp2a(true, false, true, a, b, 0),
            dot([32768, 3], [-128, 127], 0)
        );
        assert_eq!(
            dp2a(true, true, false, a, b, 0),
            dot([-32768, 3], [128, 127], 0)
        );
        // 32-bit wrap: (-32768)(-128) * 2 + INT_MAX.
        assert_eq!(
            dp2a(true, true, true, 0x8000_8000, 0x8080_0000, 0x7fff_ffff),
            dot([-32768, -32768], [-128, -128], 0x7fff_ffff)
        );
    }

    #[test]
    fn fns_finds_the_nth_set_bit() {
        // The ISA's examples.
        assert_eq!(fns(0xaaaa_aaaa, 3, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 3, -1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, 1), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, -1), 1);
        // Offset 0 tests the base bit only.
        assert_eq!(fns(0xaaaa_aaaa, 3, 0), 3);
        assert_eq!(fns(0xaaaa_aaaa, 2, 0), u32::MAX);
        // The third set bit up from 2 is 7; down from 31, the 16th is 1.
        assert_eq!(fns(0xaaaa_aaaa, 2, 3), 7);
        assert_eq!(fns(0xaaaa_aaaa, 31, -16), 1);
        assert_eq!(fns(0xaaaa_aaaa, 31, -17), u32::MAX, "only 16 set bits");
        assert_eq!(fns(0, 0, 1), u32::MAX);
        assert_eq!(fns(u32::MAX, 0, 32), 31);
        assert_eq!(fns(u32::MAX, 0, i32::MIN), u32::MAX);
        assert_eq!(fns(1 << 31, 0, 1), 31);
        assert_eq!(fns(1, 31, -1), 0);
        assert_eq!(fns(u32::MAX, 32, 1), u32::MAX, "base above 31");
    }

    #[test]
    fn bmsk_clamps_or_wraps() {
        // The ISA's example.
        assert_eq!(bmsk(true, 1, 2), 0b110);
        assert_eq!(bmsk(false, 1, 2), 0b110);
        assert_eq!(bmsk(false, 0, 32), u32::MAX);
        assert_eq!(bmsk(false, 0, 40), u32::MAX);
        assert_eq!(bmsk(true, 0, 32), 0, "32 wraps to a width of 0");
        assert_eq!(bmsk(false, 32, 4), 0, "a start of 32 clamps to nothing");
        assert_eq!(bmsk(true, 33, 4), 0b11110, "33 wraps to 1");
        assert_eq!(bmsk(false, 28, 8), 0xf000_0000, "cut at bit 31");
        assert_eq!(bmsk(true, 28, 8), 0xf000_0000);
        assert_eq!(bmsk(false, 4, 0), 0);
        assert_eq!(bmsk(false, 31, 1), 0x8000_0000);
        assert_eq!(bmsk(true, 31, 33), 0x8000_0000, "33 wraps to 1");
    }

    #[test]
    fn szext_extends_the_low_bits() {
        // The ISA's example: a width of 0 gives 0.
        assert_eq!(szext(true, false, 0xffff_ffff, 0), 0);
        assert_eq!(szext(false, true, 0x0000_0080, 8), 0xffff_ff80);
        assert_eq!(szext(false, false, 0xffff_ff80, 8), 0x80);
        assert_eq!(szext(false, true, 0x0000_007f, 8), 0x7f);
        assert_eq!(szext(false, true, 0x1234_5678, 32), 0x1234_5678);
        assert_eq!(szext(false, true, 0x1234_5678, 100), 0x1234_5678, "clamped");
        assert_eq!(szext(true, true, 0x1234_5678, 32), 0, "32 wraps to 0");
        assert_eq!(
            szext(true, true, 0x0000_0001, 33),
            0xffff_ffff,
            "33 wraps to 1"
        );
        assert_eq!(szext(true, false, 0x0000_0001, 33), 1);
        assert_eq!(szext(false, true, 0x4000_0000, 31), 0xc000_0000);
        assert_eq!(szext(false, true, 0x2000_0000, 31), 0x2000_0000);
    }

    /// The ISA's table of the special modes: for each selector, the source
    /// byte of result bytes 3, 2, 1, 0.
    #[test]
    fn prmt_modes_follow_the_table() {
        let table: [(PrmtMode, [[u64; 4]; 4]); 6] = [
            (
                PrmtMode::F4e,
                [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
            ),
            (
                PrmtMode::B4e,
                [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
            ),
            (
                PrmtMode::Rc8,
                [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecl,
                [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
            ),
            (
                PrmtMode::Ecr,
                [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
            ),
            (
                PrmtMode::Rc16,
                [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
            ),
        ];
        // Byte k of {b, a} holds 0x10 + k, so each result byte names its source.
        let (a, b) = (0x1312_1110, 0x1716_1514);
        for (mode, rows) in table {
            for (sel, row) in rows.iter().enumerate() {
                let want = row.iter().fold(0, |w, &src| (w << 8) | (0x10 + src));
                // Only the two low bits of c select; the rest is ignored.
                let c = sel as u64 | 0xffff_fff0;
                assert_eq!(prmt_mode(mode, a, b, c), want, "{mode:?} selector {sel}");
            }
        }
    }
}
