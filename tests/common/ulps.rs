//! The distance between two floats in representable values, shared by
//! the math tests that measure accuracy.

/// Ulps between two values of a type with `bits` (32 or 64): the number
/// of representable values between them; 0 for two NaNs, infinite if
/// only one is NaN. `-0` and `+0` are 0 apart.
pub fn ulps(got: f64, want: f64, bits: u32) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let ord = |v: f64| -> i128 {
        let b = if bits == 32 {
            i64::from((v as f32).to_bits() as i32)
        } else {
            v.to_bits() as i64
        };
        let magnitude = if bits == 32 {
            b & 0x7fff_ffff
        } else {
            b & i64::MAX
        };
        if b < 0 {
            -i128::from(magnitude)
        } else {
            i128::from(magnitude)
        }
    };
    (ord(got) - ord(want)).unsigned_abs() as f64
}
