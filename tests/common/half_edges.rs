//! Floats at the half-precision roundings' edges, shared by the tests that
//! compare conversions to `__half` and `__nv_bfloat16` across engines.

/// Halfway cases of f16 and bf16 (normal and subnormal), the values next
/// to them, the overflow and underflow limits, infinities and a NaN.
pub const F32_ROUNDING_EDGES: [f32; 23] = [
    0.0,
    -0.0,
    1.0 + 1.0 / 2048.0,
    1.0 + 3.0 / 2048.0,
    -(1.0 + 1.0 / 2048.0),
    65504.0,
    65519.99,
    65520.0,
    -65520.0,
    1e9,
    1.0 / 33_554_432.0,
    3.0 / 33_554_432.0,
    1.0 / 67_108_864.0,
    -1.0 / 33_554_432.0,
    1.0 + 1.0 / 256.0,
    1.0 + 3.0 / 256.0,
    f32::MAX,
    f32::from_bits(0x7f7f_8000),
    f32::from_bits(1),
    f32::from_bits(0x8000_8000),
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
];
