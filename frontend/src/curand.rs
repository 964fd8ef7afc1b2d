//! `<curand_kernel.h>`: cuRAND's device API as CUDA source kernelc compiles.
//!
//! cuRAND's device API is ordinary device code over plain structs, so
//! kernelc provides it as a header of CUDA C (`frontend/headers/curand_kernel.h`,
//! written for kernelc from the documented algorithms) that the
//! preprocessor includes as if it were a file ([`crate::headers::Header::Source`]).
//! The one thing the text does not spell is XORWOW's skip-ahead table, the
//! polynomials `x^(2^i)` modulo the generator's characteristic polynomial:
//! this module derives them (in microseconds, at the first include) and
//! writes them into the text, so the derivation is the table's
//! documentation and no opaque numbers are committed.
//!
//! Why polynomials rather than cuRAND's matrices: a jump by `k` draws is
//! the linear map `A^k` of the 160-bit xorshift state, and `A^k = p(A)` for
//! `p = x^k mod P` (`P` the characteristic polynomial, Cayley-Hamilton), so
//! `A^k v` is a sum of `A^j v` over `p`'s coefficients: 160 xorshift steps
//! and a 5-word table entry instead of a 160x160-bit matrix (800 words) per
//! power. The map is the same, so the state is the same bit for bit.

use std::fmt::Write as _;
use std::sync::OnceLock;

/// The pseudo path the header's text has in diagnostics.
pub(crate) const PATH: &str = "<kernelc>/curand_kernel.h";

/// The header as written, with the placeholder for the generated table.
const TEMPLATE: &str = include_str!("../headers/curand_kernel.h");

/// The line of [`TEMPLATE`] the table replaces (one line, so the lines of
/// diagnostics are those of the file in the repository).
const TABLE_PLACEHOLDER: &str = "__KERNELC_XORWOW_JUMPS__";

/// The most doublings the table holds: subsequences are `2^67` draws apart
/// and counted with 64 bits, so `x^(2^(67+63))` is the last power needed.
const JUMP_POWERS: usize = 67 + 64;

/// The header's text, the generated table in place (built once).
pub(crate) fn source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| TEMPLATE.replacen(TABLE_PLACEHOLDER, &jump_table(), 1))
}

/// A polynomial over GF(2) of degree below 192: bit `j` of word `j / 64`
/// is the coefficient of `x^j`.
type Poly = [u64; 3];

/// The degree of XORWOW's xorshift (its state is 160 bits).
const DEGREE: usize = 160;

/// `__device__` definition of `__kernelc_xorwow_jumps[i]` = `x^(2^i) mod P`
/// as five 32-bit words, on one line.
fn jump_table() -> String {
    let p = characteristic_polynomial();
    let mut x: Poly = [2, 0, 0]; // x^(2^0)
    let mut out = format!(
        "static __device__ const unsigned int __kernelc_xorwow_jumps[{JUMP_POWERS}][5] = {{"
    );
    for _ in 0..JUMP_POWERS {
        out.push('{');
        for w in 0..5 {
            let word = (x[w / 2] >> (32 * (w % 2))) as u32;
            let _ = write!(out, "0x{word:08x}U,");
        }
        out.push_str("},");
        x = mul_mod(x, x, p);
    }
    out.push_str("};");
    out
}

/// One xorshift step of XORWOW's `v` (the Weyl sequence is not linear and
/// is stepped apart).
fn xorshift(v: &mut [u32; 5]) {
    let t = v[0] ^ (v[0] >> 2);
    v.copy_within(1.., 0);
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

/// The characteristic polynomial of the xorshift step, as the minimal
/// polynomial (Berlekamp-Massey) of one output bit: the xorshift has period
/// `2^160 - 1`, so that polynomial is primitive of degree 160 and is the
/// characteristic one.
fn characteristic_polynomial() -> Poly {
    let mut v = [123456789, 362436069, 521288629, 88675123, 5783321];
    let bits: Vec<u8> = (0..2 * DEGREE + 16)
        .map(|_| {
            xorshift(&mut v);
            (v[4] & 1) as u8
        })
        .collect();
    let connection = berlekamp_massey(&bits);
    debug_assert_eq!(connection.len() - 1, DEGREE);
    // The connection polynomial C(x) = 1 + c1 x + ... + cL x^L gives the
    // recurrence; the characteristic polynomial is its reverse.
    let mut p: Poly = [0; 3];
    for (i, &c) in connection.iter().enumerate() {
        if c != 0 {
            let j = DEGREE - i;
            p[j / 64] |= 1 << (j % 64);
        }
    }
    p
}

/// The shortest linear recurrence of `s` over GF(2), as the coefficients
/// of its connection polynomial (index = power of x), trimmed to its length.
fn berlekamp_massey(s: &[u8]) -> Vec<u8> {
    let n = s.len();
    let (mut c, mut b) = (vec![0u8; n + 1], vec![0u8; n + 1]);
    c[0] = 1;
    b[0] = 1;
    let (mut len, mut m) = (0usize, 1usize);
    for i in 0..n {
        let d = (1..=len).fold(s[i], |d, j| d ^ (c[j] & s[i - j]));
        if d == 0 {
            m += 1;
            continue;
        }
        let old = c.clone();
        for j in 0..=n - m {
            c[j + m] ^= b[j];
        }
        if 2 * len <= i {
            len = i + 1 - len;
            b = old;
            m = 1;
        } else {
            m += 1;
        }
    }
    c.truncate(len + 1);
    c
}

/// `a * b mod p` over GF(2), for `a`, `b` of degree below 160 and `p` of
/// degree 160.
fn mul_mod(a: Poly, b: Poly, p: Poly) -> Poly {
    let mut acc: Poly = [0; 3];
    // Horner from b's top coefficient: acc = acc * x + b_j * a.
    for j in (0..DEGREE).rev() {
        acc = times_x_mod(acc, p);
        if b[j / 64] >> (j % 64) & 1 != 0 {
            for w in 0..3 {
                acc[w] ^= a[w];
            }
        }
    }
    acc
}

/// `a * x mod p`, for `a` of degree below 160.
fn times_x_mod(a: Poly, p: Poly) -> Poly {
    let mut r = [
        a[0] << 1,
        (a[1] << 1) | (a[0] >> 63),
        (a[2] << 1) | (a[1] >> 63),
    ];
    if r[DEGREE / 64] >> (DEGREE % 64) & 1 != 0 {
        for w in 0..3 {
            r[w] ^= p[w];
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state after `k` steps, by stepping.
    fn stepped(mut v: [u32; 5], k: usize) -> [u32; 5] {
        for _ in 0..k {
            xorshift(&mut v);
        }
        v
    }

    /// `p(A) v`, as the header computes it.
    fn jumped(v: [u32; 5], p: [u32; 5]) -> [u32; 5] {
        let (mut w, mut acc) = (v, [0u32; 5]);
        for j in 0..DEGREE {
            if p[j / 32] >> (j % 32) & 1 != 0 {
                for i in 0..5 {
                    acc[i] ^= w[i];
                }
            }
            xorshift(&mut w);
        }
        acc
    }

    fn entry(i: usize) -> [u32; 5] {
        let p = characteristic_polynomial();
        let mut x: Poly = [2, 0, 0];
        for _ in 0..i {
            x = mul_mod(x, x, p);
        }
        std::array::from_fn(|w| (x[w / 2] >> (32 * (w % 2))) as u32)
    }

    #[test]
    fn the_characteristic_polynomial_has_degree_160() {
        let p = characteristic_polynomial();
        assert_eq!(p[2] >> 32, 1, "x^160 and nothing above");
        assert_eq!(p[0] & 1, 1, "a nonzero constant term");
    }

    #[test]
    fn jumps_equal_stepping() {
        let v = [0x1234_5678, 0x9abc_def0, 7, 0xdead_beef, 1];
        for i in 0..=10 {
            assert_eq!(jumped(v, entry(i)), stepped(v, 1 << i), "2^{i}");
        }
    }

    #[test]
    fn the_source_holds_the_whole_table() {
        let text = source();
        assert!(!text.contains(TABLE_PLACEHOLDER));
        assert_eq!(text.lines().count(), TEMPLATE.lines().count());
        let table = text
            .lines()
            .find(|l| l.contains("__kernelc_xorwow_jumps["))
            .unwrap();
        assert_eq!(table.matches("U,").count(), 5 * JUMP_POWERS);
    }
}
