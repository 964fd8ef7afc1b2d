//! Recursive-descent parser: tokens to [`ast::TranslationUnit`].
//!
//! Errors are recorded and the parser resynchronises at statement or
//! function boundaries, so one run reports many independent mistakes.
//! Recursion is bounded by [`MAX_DEPTH`] so hostile input cannot overflow the
//! stack, here or in later passes that walk the tree recursively.

mod decl;
mod expr;
mod stmt;
mod structs;

use rustc_hash::FxHashMap;

use crate::ast::{EnumDecl, Item, TranslationUnit};
use crate::diag::{Diagnostic, Span};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::types::CType;

/// Maximum nesting of expressions/statements (also bounds tree depth).
pub(crate) const MAX_DEPTH: usize = 256;

/// Marker error: a diagnostic has been recorded; the caller should resync.
#[derive(Debug)]
pub(crate) struct Recorded;

pub(crate) type PResult<T> = Result<T, Recorded>;

/// Parses preprocessed tokens.
pub(crate) fn parse_tokens(
    tokens: &[Token],
    source_len: u32,
) -> (TranslationUnit, Vec<Diagnostic>) {
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        diags: Vec::new(),
        depth: 0,
        typedefs: FxHashMap::default(),
        pending_enums: Vec::new(),
        structs: FxHashMap::default(),
        next_struct_id: crate::types::FIRST_USER_STRUCT_ID,
        eof: Token {
            kind: TokenKind::Punct(Punct::Semi),
            text: String::new(),
            span: Span::new(source_len, source_len),
        },
    };
    let items = p.translation_unit();
    (TranslationUnit { items }, p.diags)
}

pub(crate) struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    diags: Vec<Diagnostic>,
    depth: usize,
    /// `typedef` names seen so far: the type and whether it is `const`.
    /// (C scopes typedefs; kernelc keeps one table, so a typedef declared in
    /// a function stays visible after it.)
    typedefs: FxHashMap<String, (CType, bool)>,
    /// `enum { ... }` bodies met inside declaration specifiers, emitted as
    /// their own item or statement before the declaration that holds them.
    pending_enums: Vec<EnumDecl>,
    /// Struct tags defined so far (one table, like `typedefs`).
    structs: FxHashMap<String, std::sync::Arc<crate::types::StructDef>>,
    /// The id the next struct definition gets.
    next_struct_id: u32,
    /// Returned by `peek` past the end; its empty text marks it as EOF.
    eof: Token,
}

impl Parser<'_> {
    fn at_eof(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn span(&self) -> Span {
        self.peek().span
    }

    /// The span of the previously consumed token.
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some(t) => t.span,
            None => Span::default(),
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if !self.at_eof() {
            self.pos += 1;
        }
        t
    }

    fn is_punct_at(&self, n: usize, p: Punct) -> bool {
        !self.at_eof_at(n) && self.peek_at(n).kind == TokenKind::Punct(p)
    }

    fn at_eof_at(&self, n: usize) -> bool {
        self.pos + n >= self.toks.len()
    }

    fn is_punct(&self, p: Punct) -> bool {
        self.is_punct_at(0, p)
    }

    fn is_kw(&self, k: Keyword) -> bool {
        self.peek().kind == TokenKind::Keyword(k)
    }

    fn eat_punct(&mut self, p: Punct) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn eat_kw(&mut self, k: Keyword) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.pos += 1;
        }
        yes
    }

    fn error<T>(&mut self, span: Span, msg: impl Into<String>) -> PResult<T> {
        self.diags.push(Diagnostic::error(span, msg));
        Err(Recorded)
    }

    /// Describes the current token for "expected X, found Y" messages.
    fn found(&self) -> String {
        if self.at_eof() {
            "end of file".to_string()
        } else {
            format!("`{}`", self.peek().text)
        }
    }

    fn expect_punct(&mut self, p: Punct, context: &str) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            // A missing `;` (or anything at end of input) belongs to the end
            // of the previous token: the next token is often on another line.
            let span = if self.at_eof() || p == Punct::Semi {
                self.prev_span()
            } else {
                self.span()
            };
            let msg = format!(
                "expected `{}` {context}, found {}",
                p.as_str(),
                self.found()
            );
            let help = match p {
                Punct::Semi => {
                    Some("help: C ends every statement and declaration with `;`; add one here")
                }
                Punct::RParen => Some(
                    "help: every `(` needs a matching `)`; check the parentheses before this point",
                ),
                _ => None,
            };
            let mut d = Diagnostic::error(span, msg);
            if let Some(h) = help {
                d = d.with_note(h);
            }
            self.diags.push(d);
            // A `;` missing before something that starts a new statement
            // (a name, a keyword, `}`) was most likely forgotten at the end
            // of a line: go on as if it were there, so the next statement
            // is still checked instead of being skipped by resync.
            let starts_next = !self.at_eof()
                && matches!(
                    self.peek().kind,
                    TokenKind::Ident | TokenKind::Keyword(_) | TokenKind::Punct(Punct::RBrace)
                );
            if p == Punct::Semi && starts_next {
                return Ok(span);
            }
            Err(Recorded)
        }
    }

    /// Enters one nesting level; errors when the input nests too deeply.
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            let span = self.span();
            return self.error(span, "expression nests too deeply");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to a likely statement boundary: past a `;` or a balanced `{}`
    /// group at the current level, or up to (not past) an unmatched `}`.
    fn sync_stmt(&mut self) {
        let start = self.pos;
        let mut parens = 0usize;
        while !self.at_eof() {
            match &self.peek().kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket) => parens += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    parens = parens.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Semi) if parens == 0 => {
                    self.pos += 1;
                    return;
                }
                TokenKind::Punct(Punct::LBrace) => {
                    self.skip_braces();
                    if parens == 0 {
                        // `struct ... { ... };`: the `;` belongs to it.
                        self.eat_punct(Punct::Semi);
                        return;
                    }
                    continue;
                }
                TokenKind::Punct(Punct::RBrace) => {
                    if self.pos == start {
                        self.pos += 1;
                    }
                    return;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips a balanced `{ ... }` group starting at the current `{`.
    fn skip_braces(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            match self.bump().kind {
                TokenKind::Punct(Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// Top level: declarations and `extern "C" { ... }` blocks.
    fn translation_unit(&mut self) -> Vec<Item> {
        let mut out = Vec::new();
        let mut extern_c_blocks = Vec::new();
        while !self.at_eof() {
            if self.is_kw(Keyword::Extern)
                && matches!(&self.peek_at(1).kind, TokenKind::Str(s) if s == "C")
                && self.is_punct_at(2, Punct::LBrace)
            {
                self.pos += 3;
                extern_c_blocks.push(self.prev_span());
                continue;
            }
            if !extern_c_blocks.is_empty() && self.is_punct(Punct::RBrace) {
                self.pos += 1;
                extern_c_blocks.pop();
                continue;
            }
            let start = self.pos;
            if self.is_kw(Keyword::StaticAssert) {
                match self.static_assert() {
                    Ok(sa) => out.push(Item::StaticAssert(sa)),
                    Err(Recorded) => self.sync_stmt(),
                }
                continue;
            }
            let r = self.external_decl(!extern_c_blocks.is_empty());
            out.extend(self.pending_enums.drain(..).map(Item::Enum));
            match r {
                Ok(items) => out.extend(items),
                Err(Recorded) => {
                    self.sync_stmt();
                    if self.pos == start {
                        self.pos += 1;
                    }
                }
            }
        }
        if let Some(open) = extern_c_blocks.pop() {
            self.diags
                .push(Diagnostic::error(open, "unclosed `extern \"C\" {` block"));
        }
        out
    }
}
