//! Device `printf`: what the CUDA runtime prints for a `vprintf` call.
//!
//! nvcc compiles `printf(fmt, args...)` into `vprintf(fmt, buf)`, where
//! `buf` is a local buffer that holds the arguments after C's default
//! promotions (`float` to `double`, `char` and `short` to `int`), each at
//! the next offset aligned to its own size. The format, not the types the
//! program had, decides how the buffer is read, as it does on a GPU: the
//! conversion and its length modifier give each argument's size. The text
//! is formatted as C's `printf` does (glibc's spelling of `inf`, `nan`,
//! `(null)` and `%p`), and the call returns the number of arguments it
//! read.

use std::fmt;

/// Where the arguments come from: the buffer's bytes and strings in the
/// emulator's memory.
pub trait Args {
    /// Why a read failed (the engine's own fault, which [`format`] hands
    /// back as it is, in [`FormatError::Read`]).
    type Error;
    /// `len` (4 or 8) bytes at `offset` of the argument buffer.
    fn arg(&mut self, offset: u64, len: u64) -> Result<u64, Self::Error>;
    /// The NUL-terminated string at generic address `addr`, without the NUL
    /// (at most `limit` bytes).
    fn string(&mut self, addr: u64, limit: usize) -> Result<Vec<u8>, Self::Error>;
}

/// A conversion specification device `printf` does not format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// A `*` width or precision (taken from the arguments).
    StarWidth,
    /// A conversion it does not know (`%n`, `%q`, a lone `%`); `spec` is the
    /// specification as written, from the `%` through the conversion.
    Conversion { spec: String },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::StarWidth => {
                f.write_str("a `*` width or precision in a device `printf` format")
            }
            SpecError::Conversion { spec } => {
                write!(f, "the conversion `{spec}` in a device `printf` format")
            }
        }
    }
}

impl std::error::Error for SpecError {}

/// Why a `printf` call could not be formatted: its format, or a read of its
/// arguments (`E`, the reader's [`Args::Error`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError<E> {
    Spec(SpecError),
    Read(E),
}

impl<E: fmt::Display> fmt::Display for FormatError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Spec(e) => write!(f, "{e}"),
            FormatError::Read(e) => write!(f, "{e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for FormatError<E> {}

/// The most bytes of device `printf` output a launch keeps (the CUDA
/// runtime's default printf buffer is 1 MiB; what does not fit is lost).
pub const PRINTF_LIMIT: usize = 1 << 20;

/// Appends one call's `text` to a launch's output, keeping at most
/// [`PRINTF_LIMIT`] bytes in all.
pub fn append_bounded(output: &mut Vec<u8>, text: &[u8]) {
    let room = PRINTF_LIMIT.saturating_sub(output.len());
    output.extend_from_slice(&text[..text.len().min(room)]);
}

/// What the CUDA runtime reports for a failed device `assert`: the
/// arguments of `__assertfail` (the condition's text, the file, the line,
/// the function) and the thread, in its words:
/// ``k.cu:5: void k(int *): block: [0,0,0], thread: [3,0,0] Assertion `x > 0` failed.``
pub fn assertion_message(
    condition: &[u8],
    file: &[u8],
    line: u32,
    function: &[u8],
    block: [u32; 3],
    thread: [u32; 3],
) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let [bx, by, bz] = block;
    let [tx, ty, tz] = thread;
    format!(
        "{}:{line}: {}: block: [{bx},{by},{bz}], thread: [{tx},{ty},{tz}] Assertion `{}` failed.",
        text(file),
        text(function),
        text(condition)
    )
}

/// The longest `%s` argument read (a missing NUL ends it here).
const STRING_LIMIT: usize = 1 << 16;

/// One conversion specification: `%[flags][width][.precision][length]conv`.
#[derive(Default, Debug)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// The length modifier: `hh`, `h`, `l`, `ll`, `j`, `z`, `t`, `L`, or "".
    length: &'static str,
    conv: u8,
}

impl Spec {
    /// Bytes the argument takes in the buffer (its alignment too).
    fn size(&self) -> u64 {
        match self.conv {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => match self.length {
                "l" | "ll" | "j" | "z" | "t" => 8,
                _ => 4,
            },
            b'c' => 4,
            _ => 8, // doubles, strings and pointers
        }
    }
}

/// Formats `fmt` with the arguments of `args`; returns the text and the
/// number of arguments read.
pub fn format<A: Args + ?Sized>(
    fmt: &[u8],
    args: &mut A,
) -> Result<(Vec<u8>, u32), FormatError<A::Error>> {
    let mut out = Vec::new();
    let mut offset = 0u64;
    let mut count = 0;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let (spec, next) = parse_spec(fmt, i + 1).map_err(FormatError::Spec)?;
        i = next;
        if spec.conv == b'%' {
            out.push(b'%');
            continue;
        }
        let size = spec.size();
        offset = offset.next_multiple_of(size);
        let raw = args.arg(offset, size).map_err(FormatError::Read)?;
        offset += size;
        count += 1;
        let body = convert(&spec, raw, args).map_err(FormatError::Read)?;
        pad(&mut out, &spec, body);
    }
    Ok((out, count))
}

/// Parses the specification after a `%` at `fmt[start..]`; returns it and
/// the index after it.
fn parse_spec(fmt: &[u8], start: usize) -> Result<(Spec, usize), SpecError> {
    let mut s = Spec::default();
    let mut i = start;
    let at = |i: usize| fmt.get(i).copied().unwrap_or(0);
    loop {
        match at(i) {
            b'-' => s.left = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.alt = true,
            b'0' => s.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| {
        let mut n = 0usize;
        while at(*i).is_ascii_digit() {
            n = n
                .saturating_mul(10)
                .saturating_add(usize::from(at(*i) - b'0'));
            *i += 1;
        }
        n.min(1 << 20)
    };
    if at(i) == b'*' {
        return Err(SpecError::StarWidth);
    }
    s.width = number(&mut i);
    if at(i) == b'.' {
        i += 1;
        if at(i) == b'*' {
            return Err(SpecError::StarWidth);
        }
        s.precision = Some(number(&mut i));
    }
    for m in ["hh", "h", "ll", "l", "j", "z", "t", "L"] {
        if fmt[i.min(fmt.len())..].starts_with(m.as_bytes()) {
            s.length = m;
            i += m.len();
            break;
        }
    }
    s.conv = at(i);
    if !b"diuoxXcspfFeEgGaA%".contains(&s.conv) || s.conv == 0 {
        let written = &fmt[start - 1..(i + 1).min(fmt.len())];
        return Err(SpecError::Conversion {
            spec: String::from_utf8_lossy(written).into_owned(),
        });
    }
    Ok((s, i + 1))
}

/// What a conversion prints before padding: the sign (or prefix) and the
/// digits are kept apart so that `0` pads between them.
struct Body {
    prefix: Vec<u8>,
    digits: Vec<u8>,
    /// Whether the `0` flag pads (numbers without a precision, and
    /// finite floats).
    zero_pads: bool,
}

fn convert<A: Args + ?Sized>(s: &Spec, raw: u64, args: &mut A) -> Result<Body, A::Error> {
    let text = |digits: Vec<u8>| Body {
        prefix: Vec::new(),
        digits,
        zero_pads: false,
    };
    Ok(match s.conv {
        b'd' | b'i' => {
            let v = signed(raw, s);
            let sign = sign_prefix(v < 0, s);
            integer(s, sign, v.unsigned_abs(), 10, false)
        }
        b'u' | b'o' | b'x' | b'X' => {
            let v = unsigned(raw, s);
            let (base, upper) = match s.conv {
                b'o' => (8, false),
                b'x' => (16, false),
                b'X' => (16, true),
                _ => (10, false),
            };
            let prefix = match s.conv {
                b'x' if s.alt && v != 0 => b"0x".to_vec(),
                b'X' if s.alt && v != 0 => b"0X".to_vec(),
                _ => Vec::new(),
            };
            integer(s, prefix, v, base, upper)
        }
        b'c' => text(vec![raw as u8]),
        b's' => {
            let mut bytes = if raw == 0 {
                b"(null)".to_vec()
            } else {
                args.string(raw, STRING_LIMIT)?
            };
            if let Some(p) = s.precision {
                bytes.truncate(p);
            }
            text(bytes)
        }
        b'p' if raw == 0 => text(b"(nil)".to_vec()),
        b'p' => Body {
            prefix: b"0x".to_vec(),
            digits: format!("{raw:x}").into_bytes(),
            zero_pads: false,
        },
        _ => float(s, f64::from_bits(raw)),
    })
}

/// The value of a signed conversion, narrowed as its length says.
fn signed(raw: u64, s: &Spec) -> i64 {
    match s.length {
        "hh" => i64::from(raw as i8),
        "h" => i64::from(raw as i16),
        _ if s.size() == 4 => i64::from(raw as i32),
        _ => raw as i64,
    }
}

/// The value of an unsigned conversion, narrowed as its length says.
fn unsigned(raw: u64, s: &Spec) -> u64 {
    match s.length {
        "hh" => u64::from(raw as u8),
        "h" => u64::from(raw as u16),
        _ if s.size() == 4 => u64::from(raw as u32),
        _ => raw,
    }
}

/// `-`, `+`, ` ` or nothing before a number.
fn sign_prefix(negative: bool, s: &Spec) -> Vec<u8> {
    match (negative, s.plus, s.space) {
        (true, _, _) => b"-".to_vec(),
        (false, true, _) => b"+".to_vec(),
        (false, false, true) => b" ".to_vec(),
        _ => Vec::new(),
    }
}

/// An integer in `base`, with at least `precision` digits (none for a zero
/// with precision 0); `#` with `o` makes the first digit a 0.
fn integer(s: &Spec, prefix: Vec<u8>, v: u64, base: u32, upper: bool) -> Body {
    let mut digits = match base {
        8 => format!("{v:o}"),
        16 if upper => format!("{v:X}"),
        16 => format!("{v:x}"),
        _ => v.to_string(),
    }
    .into_bytes();
    if s.precision == Some(0) && v == 0 {
        digits.clear();
    }
    let min = s.precision.unwrap_or(1);
    if digits.len() < min {
        let mut padded = vec![b'0'; min - digits.len()];
        padded.extend(digits);
        digits = padded;
    }
    if base == 8 && s.alt && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    Body {
        prefix,
        digits,
        zero_pads: s.precision.is_none(),
    }
}

/// A floating conversion (`f F e E g G a A`) of `x`.
fn float(s: &Spec, x: f64) -> Body {
    let upper = s.conv.is_ascii_uppercase();
    let prefix = sign_prefix(x.is_sign_negative(), s);
    if !x.is_finite() {
        let word = if x.is_nan() { "nan" } else { "inf" };
        let word = if upper {
            word.to_uppercase()
        } else {
            word.to_string()
        };
        return Body {
            prefix,
            digits: word.into_bytes(),
            zero_pads: false,
        };
    }
    let x = x.abs();
    let precision = s.precision.unwrap_or(6);
    let text = match s.conv.to_ascii_lowercase() {
        b'f' => fixed(x, precision, s.alt),
        b'e' => scientific(x, precision, s.alt),
        b'g' => general(x, precision, s.alt),
        _ => hex_float(x, s.precision, s.alt),
    };
    let (prefix, text) = if s.conv.eq_ignore_ascii_case(&b'a') {
        let mut p = prefix;
        p.extend_from_slice(b"0x");
        (p, text)
    } else {
        (prefix, text)
    };
    Body {
        prefix: if upper {
            prefix.to_ascii_uppercase()
        } else {
            prefix
        },
        digits: if upper {
            text.to_uppercase().into_bytes()
        } else {
            text.into_bytes()
        },
        zero_pads: true,
    }
}

/// `%f`: `precision` digits after the point (Rust rounds the exact binary
/// value to nearest, ties to even, as glibc does).
fn fixed(x: f64, precision: usize, alt: bool) -> String {
    let mut t = format!("{x:.precision$}");
    if alt && precision == 0 {
        t.push('.');
    }
    t
}

/// `%e`: `d.ddde+XX`, the exponent signed and at least two digits.
fn scientific(x: f64, precision: usize, alt: bool) -> String {
    let t = format!("{x:.precision$e}");
    let (mantissa, exp) = t.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("a decimal exponent");
    let point = if alt && precision == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{point}e{sign}{:02}", exp.unsigned_abs())
}

/// `%g`: `%e` or `%f` by the exponent, trailing zeros dropped (kept with
/// `#`).
fn general(x: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    // The exponent after rounding to p significant digits.
    let exp = if x == 0.0 {
        0
    } else {
        let t = format!("{x:.prec$e}", prec = p - 1);
        t.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let t = if exp < -4 || exp >= p as i64 {
        scientific(x, p - 1, alt)
    } else {
        fixed(x, (p as i64 - 1 - exp) as usize, alt)
    };
    if alt {
        return t;
    }
    let (mantissa, exp) = match t.find('e') {
        Some(at) => t.split_at(at),
        None => (t.as_str(), ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}{exp}")
}

/// `%a` without its `0x`: `h.hhhp+d`, the mantissa's trailing zeros dropped
/// without a precision, rounded to nearest even with one (the expected
/// strings of the tests are glibc's).
fn hex_float(x: f64, precision: Option<usize>, alt: bool) -> String {
    if x == 0.0 {
        let zeros = "0".repeat(precision.unwrap_or(0));
        let point = if !zeros.is_empty() || alt { "." } else { "" };
        return format!("0{point}{zeros}p+0");
    }
    let bits = x.to_bits();
    let (raw_exp, mut frac) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
    // glibc keeps a mantissa rounded up to 2 as `0x2.0p+0`.
    let (mut lead, exp) = if raw_exp == 0 {
        (0u64, -1022)
    } else {
        (1u64, raw_exp - 1023)
    };
    let mut digits = 13;
    if let Some(p) = precision.filter(|&p| p < 13) {
        let drop = 4 * (13 - p) as u32;
        let (kept, rest) = (frac >> drop, frac & ((1 << drop) - 1));
        let half = 1u64 << (drop - 1);
        // Ties go to an even last digit: the leading one when none follow.
        let last = if p == 0 { lead } else { kept };
        let up = rest > half || rest == half && last & 1 == 1;
        frac = kept + u64::from(up);
        if frac >> (4 * p) != 0 {
            frac &= (1 << (4 * p)) - 1;
            lead += 1;
        }
        digits = p;
    }
    let mut hex = if digits == 0 {
        String::new()
    } else {
        format!("{frac:0digits$x}")
    };
    if precision.is_none() {
        hex = hex.trim_end_matches('0').to_string();
    }
    let point = if !hex.is_empty() || alt { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{lead}{point}{hex}p{sign}{}", exp.unsigned_abs())
}

/// Appends `body` to `out`, padded to the width: spaces on the left (or on
/// the right with `-`), or zeros after the sign with `0`.
fn pad(out: &mut Vec<u8>, s: &Spec, body: Body) {
    let len = body.prefix.len() + body.digits.len();
    let fill = s.width.saturating_sub(len);
    if s.left {
        out.extend(body.prefix);
        out.extend(body.digits);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && body.zero_pads {
        out.extend(body.prefix);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend(body.digits);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend(body.prefix);
        out.extend(body.digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments laid out as nvcc lays them: each at its aligned offset.
    struct Buffer {
        bytes: Vec<u8>,
        strings: Vec<(u64, &'static str)>,
    }

    impl Buffer {
        fn new() -> Buffer {
            Buffer {
                bytes: Vec::new(),
                strings: Vec::new(),
            }
        }
        fn push(mut self, v: u64, size: usize) -> Buffer {
            let at = self.bytes.len().next_multiple_of(size);
            self.bytes.resize(at, 0xee);
            self.bytes.extend_from_slice(&v.to_le_bytes()[..size]);
            self
        }
        fn int(self, v: i32) -> Buffer {
            self.push(v as u32 as u64, 4)
        }
        fn long(self, v: i64) -> Buffer {
            self.push(v as u64, 8)
        }
        fn double(self, v: f64) -> Buffer {
            self.push(v.to_bits(), 8)
        }
        fn string(mut self, addr: u64, s: &'static str) -> Buffer {
            self.strings.push((addr, s));
            self.push(addr, 8)
        }
    }

    impl Args for Buffer {
        type Error = &'static str;
        fn arg(&mut self, offset: u64, len: u64) -> Result<u64, &'static str> {
            let at = offset as usize;
            let b = self
                .bytes
                .get(at..at + len as usize)
                .ok_or("past the buffer")?;
            let mut v = [0u8; 8];
            v[..b.len()].copy_from_slice(b);
            Ok(u64::from_le_bytes(v))
        }
        fn string(&mut self, addr: u64, limit: usize) -> Result<Vec<u8>, &'static str> {
            let s = self
                .strings
                .iter()
                .find(|(a, _)| *a == addr)
                .ok_or("no string")?;
            Ok(s.1.bytes().take(limit).collect())
        }
    }

    fn printed(fmt: &str, mut args: Buffer) -> String {
        let (out, _) = format(fmt.as_bytes(), &mut args).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn integers_with_flags_width_and_precision() {
        let b = || Buffer::new().int(42);
        assert_eq!(printed("[%d]", b()), "[42]");
        assert_eq!(printed("[%5d]", b()), "[   42]");
        assert_eq!(printed("[%-5d]", b()), "[42   ]");
        assert_eq!(printed("[%05d]", b()), "[00042]");
        assert_eq!(printed("[%+d]", b()), "[+42]");
        assert_eq!(printed("[% d]", b()), "[ 42]");
        assert_eq!(printed("[%.4d]", b()), "[0042]");
        assert_eq!(
            printed("[%08.4d]", b()),
            "[    0042]",
            "a precision stops 0"
        );
        assert_eq!(
            printed("[%x|%X|%#x|%o|%#o]", b().int(255).int(255).int(8).int(8)),
            "[2a|FF|0xff|10|010]"
        );
        assert_eq!(printed("[%d]", Buffer::new().int(-7)), "[-7]");
        assert_eq!(printed("[%05d]", Buffer::new().int(-7)), "[-0007]");
        assert_eq!(printed("[%u]", Buffer::new().int(-1)), "[4294967295]");
        assert_eq!(printed("[%.0d]", Buffer::new().int(0)), "[]");
        assert_eq!(
            printed("[%hhd|%hu]", Buffer::new().int(0x1ff).int(-1)),
            "[-1|65535]"
        );
    }

    #[test]
    fn long_arguments_are_8_bytes_and_aligned() {
        // An int at 0, a long long at 8 (not 4), an int at 16.
        let b = Buffer::new().int(1).long(-5_000_000_000).int(3);
        assert_eq!(b.bytes.len(), 20);
        assert_eq!(printed("%d %lld %d", b), "1 -5000000000 3");
        let b = Buffer::new().long(u64::MAX as i64);
        assert_eq!(printed("%lu", b), "18446744073709551615");
    }

    #[test]
    fn floats_as_c_prints_them() {
        let b = |x: f64| Buffer::new().double(x);
        assert_eq!(printed("%f", b(1.5)), "1.500000");
        assert_eq!(
            printed("%.2f", b(2.675)),
            "2.67",
            "the binary value is below"
        );
        assert_eq!(printed("%.0f", b(0.5)), "0", "ties to even");
        assert_eq!(printed("%.0f", b(1.5)), "2");
        assert_eq!(printed("%#.0f", b(3.0)), "3.");
        assert_eq!(printed("%e", b(12345.678)), "1.234568e+04");
        assert_eq!(printed("%.2E", b(-0.000123)), "-1.23E-04");
        assert_eq!(printed("%e", b(0.0)), "0.000000e+00");
        assert_eq!(printed("%e", b(1e300)), "1.000000e+300");
        assert_eq!(printed("%g", b(100000.0)), "100000");
        assert_eq!(printed("%g", b(1000000.0)), "1e+06");
        assert_eq!(printed("%g", b(0.0001)), "0.0001");
        assert_eq!(printed("%g", b(0.00001)), "1e-05");
        assert_eq!(printed("%g", b(1.23456789)), "1.23457");
        assert_eq!(
            printed("%.3g", b(99950.0)),
            "1e+05",
            "rounding moves the exponent"
        );
        assert_eq!(printed("%#g", b(1.0)), "1.00000");
        assert_eq!(printed("%G", b(1e-10)), "1E-10");
        assert_eq!(
            printed(
                "%10.3f|%-10.1e|%010.2f",
                b(1.23456).double(2.5).double(-1.25)
            ),
            "     1.235|2.5e+00   |-000001.25"
        );
        assert_eq!(
            printed(
                "%f %F %e",
                b(f64::INFINITY).double(f64::NAN).double(f64::NEG_INFINITY)
            ),
            "inf NAN -inf"
        );
        assert_eq!(
            printed("%05f", b(f64::INFINITY)),
            "  inf",
            "0 does not pad inf"
        );
        assert_eq!(printed("%+.1f", b(0.25)), "+0.2");
        assert_eq!(printed("%f", b(-0.0)), "-0.000000");
    }

    #[test]
    fn hex_floats() {
        let b = |x: f64| Buffer::new().double(x);
        assert_eq!(printed("%a", b(1.0)), "0x1p+0");
        assert_eq!(printed("%a", b(3.0)), "0x1.8p+1");
        assert_eq!(printed("%a", b(-0.1)), "-0x1.999999999999ap-4");
        assert_eq!(printed("%A", b(255.0)), "0X1.FEP+7");
        assert_eq!(printed("%.1a", b(1.96875)), "0x2.0p+0");
        assert_eq!(printed("%.0a", b(1.5)), "0x2p+0");
        assert_eq!(printed("%a", b(0.0)), "0x0p+0");
        assert_eq!(
            printed("%a", b(f64::from_bits(1))),
            "0x0.0000000000001p-1022"
        );
    }

    #[test]
    fn characters_strings_pointers_and_percent() {
        let b = Buffer::new()
            .int(i32::from(b'A'))
            .string(0x1000, "hello")
            .push(0, 8);
        assert_eq!(printed("%c|%s|%s|%%", b), "A|hello|(null)|%");
        let b = Buffer::new().string(0x1000, "hello");
        assert_eq!(printed("[%8.3s]", b), "[     hel]");
        let b = Buffer::new().push(0xdead_beef, 8).push(0, 8);
        assert_eq!(printed("%p %p", b), "0xdeadbeef (nil)");
    }

    #[test]
    fn the_count_is_the_arguments_read() {
        let mut b = Buffer::new().int(1).double(2.0);
        assert_eq!(format(b"%d %f %%\n", &mut b).unwrap().1, 2);
        assert_eq!(format(b"no arguments\n", &mut Buffer::new()).unwrap().1, 0);
    }

    #[test]
    fn unsupported_conversions_are_errors() {
        let conversion = |spec: &str| {
            FormatError::Spec(SpecError::Conversion {
                spec: spec.to_string(),
            })
        };
        let cases = [
            ("%n", conversion("%n")),
            ("%*d", FormatError::Spec(SpecError::StarWidth)),
            ("%.*f", FormatError::Spec(SpecError::StarWidth)),
            ("%q", conversion("%q")),
            ("%", conversion("%")),
        ];
        for (fmt, error) in cases {
            let got = format(fmt.as_bytes(), &mut Buffer::new().int(1).int(1));
            assert_eq!(got, Err(error), "{fmt}");
        }
        assert_eq!(
            conversion("%lq").to_string(),
            "the conversion `%lq` in a device `printf` format"
        );
    }

    #[test]
    fn a_failed_read_is_the_readers_error() {
        let got = format(b"%s", &mut Buffer::new().long(8));
        assert_eq!(got, Err(FormatError::Read("no string")));
    }
}
