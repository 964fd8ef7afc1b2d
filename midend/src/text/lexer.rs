//! Splits IR text into tokens for the parser.
//!
//! The format is line-oriented (an instruction ends at the end of its line),
//! so newlines are tokens; other whitespace and `;` comments are dropped.
//! A few spellings are lexed as one word because they read as one word in
//! the text: `sext.i64`, `tid.x`, `ptr<shared::cluster>`,
//! `addrspacecast.ptr<generic>` and the bare space name `shared::cluster`.
//! Splitting them is the parser's job, where the context says what the
//! pieces mean.

use super::parse_error::{ParseError, ParseErrorKind};

/// What a token is. Slices borrow from the source text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    /// An identifier-like word: keyword, opcode (with `.suffix`), entity
    /// name, type or condition code.
    Word(&'a str),
    /// A number as written: decimal integer or float, `0x` hex, or `-inf`.
    /// Its meaning depends on where it appears, so it is kept as text.
    Num(&'a str),
    /// A string literal, escapes already decoded.
    Str(String),
    /// `@name`: a function or global name (without the `@`).
    At(&'a str),
    /// One of `= , ( ) [ ] { } : !`.
    Punct(char),
    /// `->`.
    Arrow,
    /// `..` (in spans).
    DotDot,
    Newline,
    Eof,
}

/// A token and where it starts (1-based line and column, in characters).
#[derive(Clone, Debug)]
pub(crate) struct Token<'a> {
    pub tok: Tok<'a>,
    pub line: u32,
    pub col: u32,
}

impl Tok<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("'{w}'"),
            Tok::Num(n) => format!("number '{n}'"),
            Tok::Str(_) => "a string".to_string(),
            Tok::At(n) => format!("'@{n}'"),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Arrow => "'->'".to_string(),
            Tok::DotDot => "'..'".to_string(),
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of input".to_string(),
        }
    }
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Characters allowed in an `@name`: C identifiers plus `.` and `$`, which
/// specialization clones and mangled names may use.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    line: u32,
    /// Column of the next character (1-based, in characters).
    col: u32,
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.pos..].chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn error(&self, line: u32, col: u32, kind: ParseErrorKind) -> ParseError {
        ParseError { line, col, kind }
    }

    fn bump_while(&mut self, pred: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&pred) {
            self.bump();
        }
    }

    fn word(&mut self) -> &'a str {
        let start = self.pos;
        loop {
            match self.peek() {
                Some(c) if is_word_char(c) => {
                    self.bump();
                }
                // `shared::cluster`: a double colon joins two word parts. A
                // single colon (`block0:`, `v0: i32`) does not.
                Some(':')
                    if self.peek_at(1) == Some(':')
                        && self.peek_at(2).is_some_and(is_word_start) =>
                {
                    self.bump();
                    self.bump();
                }
                // `ptr<global>`, also as a suffix (`load.ptr<global>`).
                Some('<') => {
                    let so_far = &self.src[start..self.pos];
                    if !(so_far == "ptr" || so_far.ends_with(".ptr")) {
                        break;
                    }
                    let rest = &self.src[self.pos + 1..];
                    let inner_len = rest
                        .find(|c: char| !(is_word_char(c) || c == ':'))
                        .unwrap_or(rest.len());
                    if !rest[inner_len..].starts_with('>') {
                        break;
                    }
                    for _ in 0..inner_len + 2 {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        &self.src[start..self.pos]
    }

    /// A number: `-`? digits (`.` digits)? (`e` `-`? digits)?, or `0x` hex.
    fn number(&mut self) -> &'a str {
        let start = self.pos;
        if self.peek() == Some('-') {
            self.bump();
        }
        if self.peek() == Some('0') && matches!(self.peek_at(1), Some('x' | 'X')) {
            self.bump();
            self.bump();
            self.bump_while(|c| c.is_ascii_hexdigit());
            return &self.src[start..self.pos];
        }
        self.bump_while(|c| c.is_ascii_digit());
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            self.bump_while(|c| c.is_ascii_digit());
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let digit_at = if matches!(self.peek_at(1), Some('+' | '-')) {
                2
            } else {
                1
            };
            if self.peek_at(digit_at).is_some_and(|c| c.is_ascii_digit()) {
                for _ in 0..digit_at {
                    self.bump();
                }
                self.bump_while(|c| c.is_ascii_digit());
            }
        }
        &self.src[start..self.pos]
    }

    /// A string literal in the escaping Rust's `{:?}` writes.
    fn string(&mut self, line: u32, col: u32) -> Result<String, ParseError> {
        self.bump(); // opening quote
        let mut out = String::new();
        loop {
            let (el, ec) = (self.line, self.col);
            match self.bump() {
                None | Some('\n') => {
                    return Err(self.error(line, col, ParseErrorKind::UnterminatedString))
                }
                Some('"') => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('0') => out.push('\0'),
                    Some(c @ ('\\' | '"' | '\'')) => out.push(c),
                    Some('u') => out.push(self.unicode_escape(el, ec)?),
                    _ => return Err(self.error(el, ec, ParseErrorKind::UnknownEscape)),
                },
                Some(c) => out.push(c),
            }
        }
    }

    /// The `{XXXX}` of a `\u{XXXX}` escape.
    fn unicode_escape(&mut self, line: u32, col: u32) -> Result<char, ParseError> {
        let bad = |lx: &Self| lx.error(line, col, ParseErrorKind::MalformedUnicodeEscape);
        if self.bump() != Some('{') {
            return Err(bad(self));
        }
        let start = self.pos;
        self.bump_while(|c| c.is_ascii_hexdigit());
        let hex = &self.src[start..self.pos];
        if self.bump() != Some('}') || hex.is_empty() || hex.len() > 6 {
            return Err(bad(self));
        }
        u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| bad(self))
    }

    fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => {
                    self.bump();
                }
                Some(';') => self.bump_while(|c| c != '\n'),
                _ => break,
            }
        }
        let (line, col) = (self.line, self.col);
        let tok = |tok| Ok(Token { tok, line, col });
        let Some(c) = self.peek() else {
            return tok(Tok::Eof);
        };
        match c {
            '\n' => {
                self.bump();
                tok(Tok::Newline)
            }
            '=' | ',' | '(' | ')' | '[' | ']' | '{' | '}' | ':' | '!' | '+' => {
                self.bump();
                tok(Tok::Punct(c))
            }
            '"' => {
                let s = self.string(line, col)?;
                tok(Tok::Str(s))
            }
            '@' => {
                self.bump();
                let start = self.pos;
                self.bump_while(is_name_char);
                if start == self.pos {
                    return Err(self.error(line, col, ParseErrorKind::NameExpectedAfterAt));
                }
                tok(Tok::At(&self.src[start..self.pos]))
            }
            '.' if self.peek_at(1) == Some('.') => {
                self.bump();
                self.bump();
                tok(Tok::DotDot)
            }
            '-' if self.peek_at(1) == Some('>') => {
                self.bump();
                self.bump();
                tok(Tok::Arrow)
            }
            '-' if self.src[self.pos + 1..].starts_with("inf")
                && !self.peek_at(4).is_some_and(is_word_char) =>
            {
                let start = self.pos;
                for _ in 0..4 {
                    self.bump();
                }
                tok(Tok::Num(&self.src[start..self.pos]))
            }
            '-' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => {
                let n = self.number();
                tok(Tok::Num(n))
            }
            c if c.is_ascii_digit() => {
                let n = self.number();
                tok(Tok::Num(n))
            }
            c if is_word_start(c) => {
                let w = self.word();
                tok(Tok::Word(w))
            }
            c => Err(self.error(line, col, ParseErrorKind::UnexpectedCharacter(c))),
        }
    }
}

/// Lexes the whole text. The last token is always [`Tok::Eof`].
pub(crate) fn lex(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut lx = Lexer {
        src,
        pos: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        let end = t.tok == Tok::Eof;
        out.push(t);
        if end {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn compound_words_stay_whole() {
        assert_eq!(
            toks("v1 = addrspacecast.ptr<shared::cluster> v0 ; hi\n"),
            vec![
                Tok::Word("v1"),
                Tok::Punct('='),
                Tok::Word("addrspacecast.ptr<shared::cluster>"),
                Tok::Word("v0"),
                Tok::Newline,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("block0(v0: i32):"),
            vec![
                Tok::Word("block0"),
                Tok::Punct('('),
                Tok::Word("v0"),
                Tok::Punct(':'),
                Tok::Word("i32"),
                Tok::Punct(')'),
                Tok::Punct(':'),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn numbers_and_spans() {
        assert_eq!(
            toks("-5 1.5e-7 -inf 0x7ff8 !3..14"),
            vec![
                Tok::Num("-5"),
                Tok::Num("1.5e-7"),
                Tok::Num("-inf"),
                Tok::Num("0x7ff8"),
                Tok::Punct('!'),
                Tok::Num("3"),
                Tok::DotDot,
                Tok::Num("14"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn strings_decode_debug_escapes() {
        assert_eq!(
            toks(r#""a\"b\\c\n\u{301}""#),
            vec![Tok::Str("a\"b\\c\n\u{301}".into()), Tok::Eof]
        );
        assert!(lex("\"abc").is_err());
        assert!(lex("\"\\u{110000}\"").is_err());
    }
}
