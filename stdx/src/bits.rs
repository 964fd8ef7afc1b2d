//! Integers as bit patterns of a width: what every stage that models
//! registers of 1 to 64 bits (the optimizer's folding, the interpreter,
//! the emulator) needs alike.

/// The mask of the low `bits` bits (all 64 from 64 up).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The low `bits` bits of `x` read as a signed number.
pub fn sext(x: u64, bits: u32) -> i64 {
    if bits >= 64 {
        x as i64
    } else {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_sign_extensions_at_every_width() {
        assert_eq!(mask(1), 1);
        assert_eq!(mask(32), 0xffff_ffff);
        assert_eq!(mask(64), u64::MAX);
        assert_eq!(mask(128), u64::MAX);
        assert_eq!(sext(1, 1), -1);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(sext(0x80, 8), -128);
        assert_eq!(sext(0xffff_ffff, 32), -1);
        assert_eq!(sext(u64::MAX, 64), -1);
        for bits in 1..=64 {
            let top = 1u64 << (bits - 1);
            assert_eq!(sext(top, bits), -(top as i128) as i64, "width {bits}");
            assert_eq!(sext(top - 1, bits), (top - 1) as i64, "width {bits}");
        }
    }
}
