//! Bytes to tokens. PTX's lexical grammar is small, but a few spellings need
//! care: `0f3F800000`/`0d...` are bit-exact float immediates, modifiers such
//! as `.shared::cluster` or `.L2::128B` are one token, and `%r<5>` must stay
//! three tokens so the parser can see a ranged declaration.
//!
//! The lexer never fails: a byte it does not understand becomes an
//! [`Tok::Unknown`] token, which the parser reports as a syntax error with
//! its position. That keeps "never panic on any input" easy to see.

/// A position in the source: 1-based line and column, and the byte offset.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub offset: usize,
}

/// One token. Identifiers include PTX's `%` and `$` sigils; a dot-word is a
/// directive or modifier spelled with its leading dot (`.reg`, `.f32`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    DotWord(String),
    /// An integer literal, with its value (wrapping at 64 bits, as ptxas does
    /// for bit patterns) and whether it was written negative-free in hex.
    Int(i128),
    /// A float literal: `0f...` (f32 bits), `0d...` (f64 bits) or decimal.
    Float(FloatLit),
    Str(String),
    Punct(char),
    /// `::` outside a dot-word (e.g. after a bare word); kept for errors.
    Unknown(char),
    Eof,
}

/// The three spellings of a float immediate; they differ in which
/// instruction types they may feed (`0d` needs a 64-bit float type).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum FloatLit {
    F32Bits(u32),
    F64Bits(u64),
    Decimal(f64),
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'%' || c == b'$'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Splits `src` into tokens. Comments are dropped; the last token is `Eof`.
pub fn lex(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    // PTX has about one token per three bytes (`ld.global.f32 %f1, [%rd2];`
    // is 27 bytes and 9 tokens). Reserving one per two bytes up front
    // spares the copies of a growing vector on large files; the part never
    // written is never touched, so it costs address space, not memory.
    let mut out = Vec::with_capacity(src.len() / 2 + 1);
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = 0usize;
    let pos_at = |i: usize, line: u32, line_start: usize| Pos {
        line,
        col: (i - line_start) as u32 + 1,
        offset: i,
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            i += 1;
            line += 1;
            line_start = i;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                    line_start = i + 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            continue;
        }
        let pos = pos_at(i, line, line_start);
        let start = i;
        let tok = if c == b'.' && b.get(i + 1).is_some_and(|&n| is_ident_char(n)) {
            i += 1;
            while i < b.len() {
                if is_ident_char(b[i]) {
                    i += 1;
                } else if b[i] == b':'
                    && b.get(i + 1) == Some(&b':')
                    && b.get(i + 2).is_some_and(|&n| is_ident_char(n))
                {
                    i += 2;
                } else {
                    break;
                }
            }
            Tok::DotWord(src[start..i].to_string())
        } else if is_ident_start(c) {
            i += 1;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            Tok::Ident(src[start..i].to_string())
        } else if c.is_ascii_digit() {
            let (tok, end) = lex_number(src, i);
            i = end;
            tok
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            let s = src.get(start + 1..i).unwrap_or("").to_string();
            if i < b.len() && b[i] == b'"' {
                i += 1;
            }
            Tok::Str(s)
        } else if b",;:{}[]()+-@!<>|=*_~^&/?".contains(&c) {
            i += 1;
            Tok::Punct(c as char)
        } else {
            // Step over a whole UTF-8 character so slicing stays on boundaries.
            let ch = src[i..].chars().next().unwrap_or('?');
            i += ch.len_utf8().max(1);
            Tok::Unknown(ch)
        };
        out.push(Token { tok, pos });
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: pos_at(b.len(), line, line_start),
    });
    out
}

/// Lexes a number starting at `i`: `0x1F`, `0f3F800000`, `0d3FF0...`, `42`,
/// `1.5`, `1e3`, with an optional `U` suffix. Returns the token and the end.
fn lex_number(src: &str, start: usize) -> (Tok, usize) {
    let b = src.as_bytes();
    let mut i = start;
    let hex_run = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        j
    };
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'f' | b'F' | b'd' | b'D')) {
        let end = hex_run(i + 2);
        let digits = &src[i + 2..end];
        let double = matches!(b[i + 1], b'd' | b'D');
        let want = if double { 16 } else { 8 };
        if digits.len() == want {
            let v = u64::from_str_radix(digits, 16).unwrap_or(0);
            let lit = if double {
                FloatLit::F64Bits(v)
            } else {
                FloatLit::F32Bits(v as u32)
            };
            return (Tok::Float(lit), end);
        }
        // A malformed float: let the bad characters become their own token.
        return (Tok::Unknown(b[i + 1] as char), i + 2);
    }
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let end = hex_run(i + 2);
        let v = u128::from_str_radix(&src[i + 2..end], 16).unwrap_or(u128::MAX);
        let mut e = end;
        if matches!(b.get(e), Some(b'U' | b'u')) {
            e += 1;
        }
        return (Tok::Int(v.min(i128::MAX as u128) as i128), e);
    }
    // `0b101` is binary and `017` octal (`08` is `0` then `8`, which
    // ptxas's parser refuses).
    let radix = match (b[i], b.get(i + 1)) {
        (b'0', Some(b'b' | b'B')) if b.get(i + 2).is_some_and(|d| matches!(d, b'0' | b'1')) => 2,
        (b'0', Some(d)) if d.is_ascii_digit() => 8,
        _ => 10,
    };
    if radix != 10 {
        let digits_start = if radix == 2 { i + 2 } else { i + 1 };
        let mut end = digits_start;
        while end < b.len() && (b[end] as char).is_digit(radix) {
            end += 1;
        }
        let v = u128::from_str_radix(&src[digits_start..end], radix).unwrap_or(u128::MAX);
        if matches!(b.get(end), Some(b'U' | b'u')) {
            end += 1;
        }
        return (Tok::Int(v.min(i128::MAX as u128) as i128), end);
    }
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut is_float = false;
    // Digits and a dot are a float to ptxas even with nothing after the
    // dot (`5.`), so `.align 2.b8` is a syntax error near `2.`.
    if i < b.len() && b[i] == b'.' {
        is_float = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < b.len() && matches!(b[j], b'+' | b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            is_float = true;
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text = &src[start..i];
    if is_float {
        return (
            Tok::Float(FloatLit::Decimal(text.parse().unwrap_or(0.0))),
            i,
        );
    }
    let v = text.parse::<u128>().unwrap_or(u128::MAX);
    if matches!(b.get(i), Some(b'U' | b'u')) {
        i += 1;
    }
    (Tok::Int(v.min(i128::MAX as u128) as i128), i)
}

/// Whether ptxas refuses the integer literal at the start of `text` with
/// `Constant overflow`. Its reader keeps 64 bits and wraps, but before
/// taking each further digit it checks the value so far: if the top bit
/// (bit 63) is set, the literal overflows. So `0x7FFFFFFFFFFFFFFFF` (the
/// last digit read onto `0x7FF..F`) and `18446744073709551616` (2^64, read
/// onto 1844674407370955161) pass, while `0x80000000000000000` and
/// `92233720368547758080` do not; a value that wraps to a small number
/// (`0x100000000000000000`) passes again. (Measured with ptxas 13.5 on
/// decimal, hex and octal literals around each boundary.)
pub fn int_literal_overflows(text: &str) -> bool {
    let b = text.as_bytes();
    let (base, digits) = match b {
        [b'0', b'x' | b'X', rest @ ..] => (16, rest),
        [b'0', b'b' | b'B', rest @ ..] => (2, rest),
        [b'0', rest @ ..] if rest.first().is_some_and(u8::is_ascii_digit) => (8, rest),
        _ => (10, b),
    };
    let mut value: u64 = 0;
    let mut first = true;
    for &d in digits {
        let Some(digit) = (d as char).to_digit(base) else {
            break;
        };
        if !first && value >> 63 != 0 {
            return true;
        }
        first = false;
        value = value
            .wrapping_mul(u64::from(base))
            .wrapping_add(u64::from(digit));
    }
    false
}

/// Whether ptxas refuses the decimal float literal at the start of `text`
/// with `Constant overflow`: it reads it as a double and refuses what is
/// out of range, too large (`1.8e308`) or too small to be a normal double
/// (`1e-310`, `1e-400`), but not an exact zero (`0e999`).
pub fn float_literal_overflows(text: &str) -> bool {
    let end = text
        .char_indices()
        .find(|&(k, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || matches!(c, 'e' | 'E')
                || (matches!(c, '+' | '-') && k > 0 && matches!(&text[k - 1..k], "e" | "E")))
        })
        .map_or(text.len(), |(k, _)| k);
    let literal = &text[..end];
    let mantissa = literal.split(['e', 'E']).next().unwrap_or("");
    let zero = !mantissa.bytes().any(|d| (b'1'..=b'9').contains(&d));
    let Ok(v) = literal.parse::<f64>() else {
        return false;
    };
    !zero && (v.is_infinite() || v.abs() < f64::MIN_POSITIVE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn modifiers_with_double_colons_are_one_token() {
        let t = toks("ld.shared::cluster.L2::128B.u32");
        assert_eq!(t[1], Tok::DotWord(".shared::cluster".into()));
        assert_eq!(t[2], Tok::DotWord(".L2::128B".into()));
    }

    #[test]
    fn float_immediates_keep_their_bits() {
        assert_eq!(
            toks("0f3F800000")[0],
            Tok::Float(FloatLit::F32Bits(0x3F80_0000))
        );
        assert_eq!(
            toks("0d3FF0000000000000")[0],
            Tok::Float(FloatLit::F64Bits(0x3FF0_0000_0000_0000))
        );
        assert_eq!(toks("1.5")[0], Tok::Float(FloatLit::Decimal(1.5)));
        assert_eq!(toks("0xff")[0], Tok::Int(255));
    }

    #[test]
    fn positions_are_one_based_lines_and_columns() {
        let t = lex("a\n  /* x\n */ %r1");
        assert_eq!(t[1].pos.line, 3);
        assert_eq!(t[1].pos.col, 5);
    }

    #[test]
    fn integer_literals_overflow_where_ptxas_says() {
        for ok in [
            "18446744073709551615",
            "18446744073709551616",
            "73786976294838206464",
            "92233720368547758070",
            "184467440737095516160",
            "0x7FFFFFFFFFFFFFFFF",
            "0x100000000000000001",
            "0x18000000000000000",
            "01777777777777777777777",
            "0000000000000000000000000000001",
        ] {
            assert!(!int_literal_overflows(ok), "{ok}");
        }
        for bad in [
            "92233720368547758080",
            "99999999999999999999",
            "100000000000000000000",
            "184467440737095516150",
            "0x80000000000000000",
            "0xFFFFFFFFFFFFFFFFF",
            "0x800000000000000000",
            "077777777777777777777777",
        ] {
            assert!(int_literal_overflows(bad), "{bad}");
        }
    }

    #[test]
    fn float_literals_overflow_outside_the_normal_doubles() {
        for ok in [
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "0e999",
            "0.0e-999",
            "1e38",
        ] {
            assert!(!float_literal_overflows(ok), "{ok}");
        }
        for bad in ["1.8e308", "1e309", "1e-310", "4.9e-324", "1e-400"] {
            assert!(float_literal_overflows(bad), "{bad}");
        }
    }

    #[test]
    fn odd_bytes_become_unknown_tokens() {
        assert!(toks("é#").iter().any(|t| matches!(t, Tok::Unknown('é'))));
    }
}
