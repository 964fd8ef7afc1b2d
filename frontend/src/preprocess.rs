//! A deliberately tiny preprocessor: object-like macros only.
//!
//! It works on tokens rather than text so spans stay exact. Expanded tokens
//! take the span of the macro *use*, so errors inside an expansion still point
//! at the line the user wrote. Anything beyond `#define`/`#undef` of object-like
//! macros, a couple of harmless `#include`s and `#pragma unroll` is rejected
//! with a diagnostic rather than silently misinterpreted.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Span};
use crate::lexer::lex_raw;
use crate::token::{Punct, Token, TokenKind};
use crate::Options;

/// Headers whose declarations kernelc provides itself; including them is a no-op.
const KNOWN_HEADERS: &[&str] = &["<cuda_runtime.h>", "<stdint.h>"];

/// Macro expansion nesting limit (guards against `#define A B` / `#define B A`
/// style cycles that slip past the active-set check, and runaway growth).
const MAX_EXPANSION_DEPTH: usize = 64;

/// Runs directives and macro substitution over raw tokens.
pub(crate) fn preprocess(
    source: &str,
    raw: Vec<Token>,
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Token> {
    let mut macros: HashMap<String, Vec<Token>> = HashMap::new();
    for (name, value) in &opts.defines {
        let valid = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            diags.push(Diagnostic::error(
                Span::default(),
                format!("invalid macro name `{name}` in `-D` option"),
            ));
            continue;
        }
        let (tokens, errs) = lex_raw(value.as_deref().unwrap_or("1"));
        if !errs.is_empty() {
            diags.push(Diagnostic::error(
                Span::default(),
                format!("invalid value for `-D {name}`: {}", errs[0].message),
            ));
            continue;
        }
        macros.insert(name.clone(), tokens);
    }

    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let tok = &raw[i];
        let prev_end = if i == 0 { 0 } else { raw[i - 1].span.end };
        let at_line_start = i == 0 || newline_between(source, prev_end, tok.span.start);
        if tok.kind == TokenKind::Punct(Punct::Hash) && at_line_start {
            // The directive runs to the end of the (logical) line.
            let mut j = i + 1;
            while j < raw.len() && !newline_between(source, raw[j - 1].span.end, raw[j].span.start)
            {
                j += 1;
            }
            directive(source, &raw[i..j], &mut macros, diags);
            i = j;
            continue;
        }
        expand(tok, tok.span, &macros, &mut Vec::new(), &mut out, diags);
        i += 1;
    }
    out
}

/// Whether a line break separates two byte offsets (ignoring `\`-continued lines).
fn newline_between(source: &str, a: u32, b: u32) -> bool {
    let bytes = source.as_bytes();
    let (a, b) = (a as usize, (b as usize).min(bytes.len()));
    (a..b).any(|k| bytes[k] == b'\n' && !(k > 0 && bytes[k - 1] == b'\\'))
}

/// Substitutes macros in one token, recursively, into `out`.
fn expand(
    tok: &Token,
    use_span: Span,
    macros: &HashMap<String, Vec<Token>>,
    active: &mut Vec<String>,
    out: &mut Vec<Token>,
    diags: &mut Vec<Diagnostic>,
) {
    let is_name = matches!(tok.kind, TokenKind::Ident | TokenKind::Keyword(_));
    match macros.get(&tok.text) {
        Some(body) if is_name && !active.contains(&tok.text) => {
            if active.len() >= MAX_EXPANSION_DEPTH {
                diags.push(Diagnostic::error(
                    use_span,
                    "macro expansion nests too deeply",
                ));
                return;
            }
            active.push(tok.text.clone());
            for t in body {
                expand(t, use_span, macros, active, out, diags);
            }
            active.pop();
        }
        _ => out.push(Token {
            span: use_span,
            ..tok.clone()
        }),
    }
}

/// Handles one directive line (`line[0]` is the `#`).
fn directive(
    source: &str,
    line: &[Token],
    macros: &mut HashMap<String, Vec<Token>>,
    diags: &mut Vec<Diagnostic>,
) {
    let hash = line[0].span;
    let Some(name_tok) = line.get(1) else {
        return; // The null directive `#` is allowed and does nothing.
    };
    let whole = hash.to(line[line.len() - 1].span);
    let rest = &line[2..];
    match name_tok.text.as_str() {
        "define" => {
            let Some(name) = rest.first() else {
                diags.push(Diagnostic::error(
                    whole,
                    "macro name missing after `#define`",
                ));
                return;
            };
            if !matches!(name.kind, TokenKind::Ident | TokenKind::Keyword(_)) {
                diags.push(Diagnostic::error(
                    name.span,
                    "macro name must be an identifier",
                ));
                return;
            }
            if let Some(next) = rest.get(1) {
                if next.kind == TokenKind::Punct(Punct::LParen) && next.span.start == name.span.end
                {
                    diags.push(Diagnostic::error(
                        name.span.to(next.span),
                        "function-like macros are not supported by kernelc yet",
                    ));
                    return;
                }
            }
            if let Some(bad) = rest[1..]
                .iter()
                .find(|t| matches!(t.kind, TokenKind::Punct(Punct::Hash | Punct::HashHash)))
            {
                diags.push(Diagnostic::error(
                    bad.span,
                    "`#` and `##` in macros are not supported by kernelc",
                ));
                return;
            }
            macros.insert(name.text.clone(), rest[1..].to_vec());
        }
        "undef" => match rest.first() {
            Some(name) => {
                macros.remove(&name.text);
            }
            None => diags.push(Diagnostic::error(
                whole,
                "macro name missing after `#undef`",
            )),
        },
        "include" => {
            let text = match (rest.first(), rest.last()) {
                (Some(a), Some(b)) => source
                    .get(a.span.start as usize..b.span.end as usize)
                    .unwrap_or("")
                    .to_string(),
                _ => String::new(),
            };
            if !KNOWN_HEADERS.contains(&text.as_str()) {
                diags.push(
                    Diagnostic::error(
                        whole,
                        format!("`#include {text}` is not supported by kernelc"),
                    )
                    .with_note(
                        "only <cuda_runtime.h> and <stdint.h> may be included; they are ignored",
                    ),
                );
            }
        }
        "pragma" => {
            if rest.first().map(|t| t.text.as_str()) != Some("unroll") {
                diags.push(Diagnostic::error(
                    whole,
                    "this `#pragma` is not supported by kernelc (only `#pragma unroll`)",
                ));
            }
        }
        other => {
            diags.push(Diagnostic::error(
                hash.to(name_tok.span),
                format!("`#{other}` is not supported by kernelc"),
            ));
        }
    }
}
