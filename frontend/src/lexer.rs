//! Raw lexing: source text to tokens, before preprocessing.
//!
//! The lexer keeps going after an error (skipping the offending bytes) so one
//! run reports every lexical problem. Literal values and C types are computed
//! here so the parser and checker never re-parse spellings.
//!
//! It lexes all of C++'s token forms, because a `.cu` file's host code may
//! use any of them: digit separators (`1'000`), raw strings (`R"(...)"`),
//! prefixed literals (`u8"..."`, `L'x'`), user-defined literal suffixes
//! (`10ms`). What kernelc cannot compile becomes a
//! [`TokenKind::Invalid`] token that carries its error; the error is
//! reported only if the token reaches device code (`crate::split`). Only
//! what breaks the token structure itself (an unterminated comment or
//! literal) is an error at once.

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// Lexes `source`; returns all tokens that could be formed plus diagnostics.
pub(crate) fn lex_raw(source: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    lex_raw_limited(source, 0)
}

/// [`lex_raw`] that stops once there are more than `error_limit` errors
/// (`0`: never), leaving the rest of the input unread.
pub(crate) fn lex_raw_limited(source: &str, error_limit: usize) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut lx = Lexer {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diags: Vec::new(),
        invalid: 0,
        error_limit,
    };
    if lx.run() == Stop::ErrorLimit {
        // Past the limit nothing is preprocessed or split: every error found
        // so far is reported, as one list in source order.
        lx.diags.extend(invalid_token_errors(&lx.tokens));
        lx.diags.sort_by_key(|d| d.span);
    }
    (lx.tokens, lx.diags)
}

/// The errors the [`TokenKind::Invalid`] tokens among `tokens` carry.
pub(crate) fn invalid_token_errors(tokens: &[Token]) -> Vec<Diagnostic> {
    tokens
        .iter()
        .filter_map(|t| match &t.kind {
            TokenKind::Invalid(d) => Some((**d).clone()),
            _ => None,
        })
        .collect()
}

/// Why [`Lexer::run`] returned.
#[derive(PartialEq, Eq)]
enum Stop {
    EndOfInput,
    ErrorLimit,
}

/// The prefixes of C++'s encoding-prefixed and raw literals (`u8"..."`,
/// `LR"(...)"`): the identifier before a quote, whether the literal is raw,
/// and whether kernelc can compile it (plain `char` contents).
fn literal_prefix(ident: &str) -> Option<(bool, bool)> {
    Some(match ident {
        "u8" => (false, true),
        "L" | "u" | "U" => (false, false),
        "R" | "u8R" => (true, true),
        "LR" | "uR" | "UR" => (true, false),
        _ => return None,
    })
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// The errors that stop compilation whatever code they are in.
    diags: Vec<Diagnostic>,
    /// How many [`TokenKind::Invalid`] tokens were made (they count towards
    /// the error limit as errors).
    invalid: usize,
    error_limit: usize,
}

/// Why a literal is invalid: the code of its error and the message.
type LiteralError = (Code, String);

fn span(start: usize, end: usize) -> Span {
    // Callers guarantee the source fits in u32 (checked in `lib.rs`).
    Span::new(
        u32::try_from(start).unwrap_or(u32::MAX),
        u32::try_from(end).unwrap_or(u32::MAX),
    )
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Lexer<'_> {
    fn peek(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    fn error(&mut self, start: usize, end: usize, code: Code, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(span(start, end), code, msg));
    }

    /// Makes `start..pos` a [`TokenKind::Invalid`] token carrying an error.
    fn invalid(&mut self, start: usize, code: Code, msg: impl Into<String>) {
        let error = Diagnostic::error(span(start, self.pos), code, msg);
        self.invalid += 1;
        self.push(TokenKind::Invalid(Box::new(error)), start);
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            text: self.src[start..self.pos].into(),
            span: span(start, self.pos),
        });
    }

    fn run(&mut self) -> Stop {
        while self.pos < self.bytes.len() {
            if self.error_limit != 0 && self.diags.len() + self.invalid > self.error_limit {
                return Stop::ErrorLimit;
            }
            let b = self.bytes[self.pos];
            let start = self.pos;
            if b.is_ascii_whitespace() || (b == b'\\' && matches!(self.peek(1), b'\n' | b'\r')) {
                self.pos += 1;
            } else if b == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if b == b'/' && self.peek(1) == b'*' {
                self.pos += 2;
                loop {
                    if self.pos >= self.bytes.len() {
                        self.error(
                            start,
                            start + 2,
                            Code::E0010,
                            "unterminated `/* */` comment",
                        );
                        break;
                    }
                    if self.bytes[self.pos] == b'*' && self.peek(1) == b'/' {
                        self.pos += 2;
                        break;
                    }
                    self.pos += 1;
                }
            } else if is_ident_start(b) {
                while self.pos < self.bytes.len() && is_ident_continue(self.bytes[self.pos]) {
                    self.pos += 1;
                }
                let quote = matches!(self.peek(0), b'"' | b'\'');
                match literal_prefix(&self.src[start..self.pos]) {
                    Some((raw, plain)) if quote => self.prefixed_literal(start, raw, plain),
                    _ => {
                        let kind = match Keyword::lookup(&self.src[start..self.pos]) {
                            Some(k) => TokenKind::Keyword(k),
                            None => TokenKind::Ident,
                        };
                        self.push(kind, start);
                    }
                }
            } else if b.is_ascii_digit() || (b == b'.' && self.peek(1).is_ascii_digit()) {
                self.number();
            } else if b == b'\'' {
                self.char_lit();
            } else if b == b'"' {
                self.string_lit();
            } else if let Some(p) = Punct::ALL.iter().find(|p| {
                // The first byte rules out most spellings without a compare.
                p.as_str().as_bytes()[0] == b && self.src[self.pos..].starts_with(p.as_str())
            }) {
                self.pos += p.as_str().len();
                self.push(TokenKind::Punct(*p), start);
            } else {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                self.pos += ch.len_utf8();
                self.invalid(
                    start,
                    Code::E0010,
                    format!("unexpected character `{}`", ch.escape_default()),
                );
            }
        }
        Stop::EndOfInput
    }

    /// Lexes a literal after its encoding or raw prefix (`u8`, `L`, `R`,
    /// `LR`, ...; `pos` is at the quote). `plain`: its characters are
    /// `char`s, which kernelc compiles; the other encodings become an
    /// [`TokenKind::Invalid`] token.
    fn prefixed_literal(&mut self, start: usize, raw: bool, plain: bool) {
        let body = self.pos;
        let token_count = self.tokens.len();
        if raw {
            self.raw_string();
        } else if self.peek(0) == b'"' {
            self.string_lit();
        } else {
            self.char_lit();
        }
        // The literal lexed from the quote; it becomes a token from the prefix.
        let Some(lexed) = self.tokens.get(token_count).map(|t| t.kind.clone()) else {
            return; // An unterminated literal, already an error.
        };
        self.tokens.truncate(token_count);
        if plain || matches!(lexed, TokenKind::Invalid(_)) {
            let kind = match lexed {
                TokenKind::Invalid(mut e) => {
                    e.span = span(start, self.pos);
                    TokenKind::Invalid(e)
                }
                other => other,
            };
            self.push(kind, start);
        } else {
            let what = if self.bytes[body] == b'\'' {
                "character"
            } else {
                "string"
            };
            let prefix = &self.src[start..body];
            self.invalid(
                start,
                Code::E0002,
                format!(
                    "`{prefix}` {what} literals are not supported by kernelc (only `char` ones)"
                ),
            );
        }
    }

    /// Lexes a raw string `"delim( ... )delim"` (`pos` at the quote): its
    /// characters are taken as written, up to the first `)delim"`.
    fn raw_string(&mut self) {
        let start = self.pos;
        let open = self.src[start + 1..]
            .find(|c: char| c == '(' || c == '"' || c == '\n' || c.is_whitespace())
            .map(|i| start + 1 + i);
        let Some(open) = open.filter(|&i| self.bytes[i] == b'(' && i - start - 1 <= 16) else {
            self.pos += 1;
            self.error(start, self.pos, Code::E0010, "invalid raw string delimiter");
            return;
        };
        let closing = format!("){}\"", &self.src[start + 1..open]);
        let Some(end) = self.src[open + 1..].find(&closing).map(|i| open + 1 + i) else {
            self.pos = self.bytes.len();
            self.error(
                start,
                start + 1,
                Code::E0010,
                "unterminated raw string literal",
            );
            return;
        };
        let contents = &self.src[open + 1..end];
        self.pos = end + closing.len();
        if contents.is_ascii() {
            self.push(TokenKind::Str(contents.to_string()), start);
        } else {
            self.invalid(
                start,
                Code::E0002,
                "non-ASCII characters in literals are not supported by kernelc",
            );
        }
    }

    /// Scans a preprocessing number and interprets it as an integer or
    /// floating literal.
    fn number(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            let prev = self.bytes[self.pos - 1].to_ascii_lowercase();
            let exponent_sign = (c == b'+' || c == b'-') && (prev == b'e' || prev == b'p');
            // C++14's digit separator: `1'000'000`, `0xFF'FF`.
            let separator =
                c == b'\'' && prev.is_ascii_alphanumeric() && self.peek(1).is_ascii_alphanumeric();
            if is_ident_continue(c) || c == b'.' || exponent_sign || separator {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = &self.src[start..self.pos];
        let lower = text.replace('\'', "").to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        let is_float = !is_hex && (lower.contains('.') || lower.contains('e'));
        let result = if is_hex && (lower.contains('.') || lower.contains('p')) {
            hex_float_literal(&lower)
        } else if is_float {
            float_literal(&lower)
        } else {
            int_literal(&lower, text)
        };
        match result {
            Ok(kind) => self.push(kind, start),
            Err((code, msg)) => self.invalid(start, code, msg),
        }
    }

    /// Reads one (possibly escaped) character inside a quoted literal.
    /// Returns `None` at end of line/input.
    fn quoted_char(&mut self) -> Option<Result<i64, LiteralError>> {
        let b = *self.bytes.get(self.pos)?;
        if b == b'\n' {
            return None;
        }
        if b != b'\\' {
            let ch = self.src[self.pos..].chars().next()?;
            self.pos += ch.len_utf8();
            return Some(if ch.is_ascii() {
                Ok(ch as i64)
            } else {
                Err((
                    Code::E0002,
                    "non-ASCII characters in literals are not supported by kernelc".into(),
                ))
            });
        }
        self.pos += 1;
        let e = *self.bytes.get(self.pos)?;
        if !e.is_ascii() {
            // Keep `pos` on a character boundary.
            let ch = self.src[self.pos..].chars().next()?;
            self.pos += ch.len_utf8();
            return Some(Err((Code::E0010, "unknown escape sequence".into())));
        }
        self.pos += 1;
        let simple = match e {
            b'n' => Some(10),
            b't' => Some(9),
            b'r' => Some(13),
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'v' => Some(11),
            b'\\' | b'\'' | b'"' | b'?' => Some(i64::from(e)),
            _ => None,
        };
        if let Some(v) = simple {
            return Some(Ok(v));
        }
        if e == b'x' {
            let mut v: i64 = 0;
            let mut n = 0;
            while self.peek(0).is_ascii_hexdigit() {
                v = (v * 16 + i64::from((self.peek(0) as char).to_digit(16).unwrap_or(0))) & 0xffff;
                self.pos += 1;
                n += 1;
            }
            return Some(if n == 0 || v > 0xff {
                Err((
                    Code::E0010,
                    "invalid `\\x` escape (expected 1 or 2 hex digits)".into(),
                ))
            } else {
                Ok(v)
            });
        }
        if (b'0'..=b'7').contains(&e) {
            let mut v = i64::from(e - b'0');
            for _ in 0..2 {
                if (b'0'..=b'7').contains(&self.peek(0)) {
                    v = v * 8 + i64::from(self.peek(0) - b'0');
                    self.pos += 1;
                }
            }
            return Some(if v > 0xff {
                Err((Code::E0010, "octal escape out of range".into()))
            } else {
                Ok(v)
            });
        }
        Some(Err((
            Code::E0010,
            format!(
                "unknown escape sequence `\\{}`",
                (e as char).escape_default()
            ),
        )))
    }

    fn char_lit(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut values = Vec::new();
        let mut err = None;
        loop {
            if self.peek(0) == b'\'' {
                self.pos += 1;
                break;
            }
            match self.quoted_char() {
                None => {
                    self.error(
                        start,
                        self.pos,
                        Code::E0010,
                        "unterminated character literal",
                    );
                    return;
                }
                Some(Ok(v)) => values.push(v),
                Some(Err(e)) => err = Some(e),
            }
        }
        if let Some((code, msg)) = err {
            self.invalid(start, code, msg);
        } else if values.is_empty() {
            self.invalid(start, Code::E0010, "empty character literal");
        } else if values.len() > 1 {
            self.invalid(
                start,
                Code::E0002,
                "multi-character literals are not supported by kernelc",
            );
        } else {
            // `char` is signed: '\xff' is -1.
            let v = i64::from(values[0] as u8 as i8);
            self.push(TokenKind::Char(v), start);
        }
    }

    fn string_lit(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut s = String::new();
        let mut err = None;
        loop {
            if self.peek(0) == b'"' {
                self.pos += 1;
                break;
            }
            match self.quoted_char() {
                None => {
                    self.error(start, self.pos, Code::E0010, "unterminated string literal");
                    return;
                }
                Some(Ok(v)) => s.push(char::from(v as u8)),
                Some(Err(e)) => err = Some(e),
            }
        }
        match err {
            Some((code, msg)) => self.invalid(start, code, msg),
            None => self.push(TokenKind::Str(s), start),
        }
    }
}

/// Parses a floating literal (already lower-cased). `f` suffix means `float`.
fn float_literal(lower: &str) -> Result<TokenKind, LiteralError> {
    let (body, ty) = match lower.strip_suffix('f') {
        Some(b) => (b, CType::FLOAT),
        None => match lower.strip_suffix('l') {
            Some(_) => {
                return Err((
                    Code::E0002,
                    "`long double` literals are not supported by kernelc".into(),
                ))
            }
            None => (lower, CType::DOUBLE),
        },
    };
    let valid = body
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-'));
    match body.parse::<f64>() {
        Ok(v) if valid && v.is_finite() => {
            let value = if ty == CType::FLOAT {
                f64::from(v as f32)
            } else {
                v
            };
            Ok(TokenKind::Float { value, ty })
        }
        Ok(_) if valid => Err((Code::E0010, "floating literal is out of range".into())),
        _ => Err((Code::E0010, format!("invalid floating literal `{lower}`"))),
    }
}

/// Parses a hexadecimal floating literal (already lower-cased), such as
/// `0x1.8p3` or `0x1p-149f`: hex digits with an optional point, a binary
/// exponent (required, as in C), and an optional `f` suffix. The value is
/// rounded once, to nearest-even, straight to the literal's type (rounding to
/// `double` first and then to `float` could round twice).
fn hex_float_literal(lower: &str) -> Result<TokenKind, LiteralError> {
    let invalid = || {
        let msg = format!("invalid hexadecimal floating literal `{lower}`");
        (Code::E0010, msg)
    };
    let body = lower.strip_prefix("0x").ok_or_else(invalid)?;
    let Some(p) = body.find('p') else {
        return Err((
            Code::E0010,
            format!("hexadecimal floating literal `{lower}` needs a binary exponent (`p`)"),
        ));
    };
    let (digits, rest) = body.split_at(p);
    let rest = &rest[1..];
    let (exp_text, ty) = match rest.strip_suffix('f') {
        Some(e) => (e, CType::FLOAT),
        None if rest.ends_with('l') => {
            return Err((
                Code::E0002,
                "`long double` literals are not supported by kernelc".into(),
            ))
        }
        None => (rest, CType::DOUBLE),
    };
    let (int_part, frac_part) = match digits.split_once('.') {
        Some((a, b)) => (a, b),
        None => (digits, ""),
    };
    let all_hex = |s: &str| s.bytes().all(|c| c.is_ascii_hexdigit());
    if (int_part.is_empty() && frac_part.is_empty()) || !all_hex(int_part) || !all_hex(frac_part) {
        return Err(invalid());
    }
    let exp: i64 = match exp_text.parse::<i64>() {
        Ok(e) => e.clamp(-100_000, 100_000),
        Err(_)
            if !exp_text.is_empty()
                && exp_text
                    .trim_start_matches(['+', '-'])
                    .bytes()
                    .all(|c| c.is_ascii_digit()) =>
        {
            // Exponents too long for i64 are far outside any range.
            if exp_text.starts_with('-') {
                -100_000
            } else {
                100_000
            }
        }
        Err(_) => return Err(invalid()),
    };
    // The significand as an integer with a sticky bit for digits beyond
    // 60 bits, and the power of two it is scaled by.
    let mut mant: u64 = 0;
    let mut sticky = false;
    let mut scale = exp;
    for (k, c) in int_part.bytes().chain(frac_part.bytes()).enumerate() {
        let d = u64::from((c as char).to_digit(16).unwrap_or(0));
        if k >= int_part.len() {
            scale -= 4;
        }
        if mant >> 56 != 0 {
            sticky |= d != 0;
            scale += 4;
        } else {
            mant = mant * 16 + d;
        }
    }
    let bits = if ty == CType::FLOAT { 24 } else { 53 };
    let min_exp = if ty == CType::FLOAT { -149 } else { -1074 };
    let value = round_binary(mant, sticky, scale, bits, min_exp);
    let max = if ty == CType::FLOAT {
        f64::from(f32::MAX)
    } else {
        f64::MAX
    };
    if value > max {
        return Err((Code::E0010, "floating literal is out of range".into()));
    }
    Ok(TokenKind::Float { value, ty })
}

/// `mant * 2^scale` (plus a sticky bit below `mant`) rounded to nearest-even
/// with `bits` significant bits, the least bit weighing at least
/// `2^min_exp` (the subnormal range). Overflow gives infinity.
fn round_binary(mant: u64, sticky: bool, scale: i64, bits: u32, min_exp: i64) -> f64 {
    if mant == 0 {
        return 0.0;
    }
    let width = 64 - i64::from(mant.leading_zeros());
    // The weight of the result's least significant bit.
    let lsb = (scale + width - i64::from(bits)).max(min_exp);
    let shift = lsb - scale;
    let (mut q, rem_half, rem_low) = if shift <= 0 {
        (u128::from(mant) << (-shift).min(64), false, sticky)
    } else if shift >= 66 {
        (0, false, true)
    } else {
        let m = u128::from(mant);
        let q = m >> shift;
        let half = (m >> (shift - 1)) & 1 == 1;
        let low = m & ((1u128 << (shift - 1)) - 1) != 0 || sticky;
        (q, half, low)
    };
    if rem_half && (rem_low || q & 1 == 1) {
        q += 1;
    }
    // `q` has at most `bits + 1` bits, so it converts to f64 exactly.
    let e = i32::try_from(lsb.clamp(-2000, 2000)).unwrap_or(0);
    (q as f64) * 2f64.powi(e.max(-1022)) * 2f64.powi((e + 1022).min(0))
}

/// Parses an integer literal and picks its C type (C11 6.4.4.1): the first
/// type in the suffix's list that can represent the value; hex and octal
/// literals may also use the unsigned types.
fn int_literal(lower: &str, text: &str) -> Result<TokenKind, LiteralError> {
    let digits_end = match lower.strip_prefix("0x") {
        Some(h) => h
            .find(|c: char| !c.is_ascii_hexdigit())
            .map_or(lower.len(), |i| i + 2),
        None => lower.find(['u', 'l']).unwrap_or(lower.len()),
    };
    let (digits, suffix) = lower.split_at(digits_end);
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() {
        return Err((Code::E0010, format!("invalid integer literal `{text}`")));
    }
    let value = match u64::from_str_radix(body, radix) {
        Ok(v) => v,
        Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
            return Err((
                Code::E0010,
                format!("integer literal `{text}` is too large"),
            ))
        }
        Err(_) => return Err((Code::E0010, format!("invalid integer literal `{text}`"))),
    };
    let (unsigned, long) = match suffix {
        "" => (false, false),
        "u" => (true, false),
        "l" | "ll" => (false, true),
        "ul" | "lu" | "ull" | "llu" => (true, true),
        _ => {
            return Err((
                Code::E0010,
                format!(
                    "invalid suffix `{}` on integer literal",
                    &text[digits_end..]
                ),
            ))
        }
    };
    let decimal = radix == 10;
    let mut candidates: Vec<CType> = Vec::new();
    if !long {
        if !unsigned {
            candidates.push(CType::INT);
        }
        if unsigned || !decimal {
            candidates.push(CType::UINT);
        }
    }
    if !unsigned {
        candidates.push(CType::LONG);
    }
    if unsigned || !decimal {
        candidates.push(CType::ULONG);
    }
    let fits = |ty: &CType| match ty {
        CType::Int {
            bits: 32,
            signed: true,
        } => value <= i32::MAX as u64,
        CType::Int {
            bits: 32,
            signed: false,
        } => value <= u64::from(u32::MAX),
        CType::Int {
            bits: 64,
            signed: true,
        } => value <= i64::MAX as u64,
        _ => true,
    };
    match candidates.into_iter().find(fits) {
        Some(ty) => Ok(TokenKind::Int { value, ty }),
        None => Err((
            Code::E0010,
            format!("integer literal `{text}` is too large for `long`; add a `u` suffix"),
        )),
    }
}
