//! C++11 attribute specifiers in device code: `[[nodiscard]]`,
//! `[[maybe_unused]]`, `[[likely]]`, `[[fallthrough]]`, `[[noreturn]]`,
//! `[[deprecated("why")]]`, `[[gnu::always_inline]]` and the like. They
//! ask for warnings or hint at optimization and change no meaning, so the
//! device tokens lose them before parsing, wherever they were written (a
//! declaration, a parameter, a statement, a label). C++ reserves two
//! consecutive `[` for attributes, so no expression is lost with them.
//!
//! `[[no_unique_address]]` is the exception: it lets an empty member take
//! no storage, which changes a class's layout, and kernelc would lay the
//! member out as any other. It is an error at the attribute (E0002).
//!
//! `[[maybe_unused]]` (and GNU's `unused`) leaves a mark before it goes:
//! the source range of the declarators it covers ([`maybe_unused`]), in
//! which the checker's unused-variable warning (W0001) is not given.
//!
//! GNU's `__attribute__((...))` goes the same way when kernelc knows every
//! attribute in it: `aligned(N)` becomes CUDA's `__align__(N)` (which is
//! what nvcc's headers define `__align__` as), and hints that change no
//! result (`unused`, `always_inline`, `noinline`, `deprecated`, ...) are
//! dropped. Any other (`packed`, `vector_size`) is E0002 at its name.

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::token::{Punct, Token, TokenKind};

/// The attributes whose meaning kernelc does not give and cannot drop.
const LAYOUT_CHANGING: &[&str] = &["no_unique_address", "msvc::no_unique_address"];

/// `tokens` without their attribute specifiers, and an error for each one
/// that kernelc cannot drop. An unclosed `[[` stays for the parser to
/// report.
pub(crate) fn strip(tokens: Vec<Token>) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut errors = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some(end) = specifier_end(&tokens, i) {
            errors.extend(layout_errors(&tokens[i + 2..end - 1]));
            i = end + 1;
        } else if let Some(end) = gnu_end(&tokens, i) {
            match gnu_replacement(&tokens[i + 3..end - 1]) {
                Ok(replacement) => kept.extend(replacement),
                Err(e) => errors.push(e),
            }
            i = end + 1;
        } else {
            kept.push(tokens[i].clone());
            i += 1;
        }
    }
    (kept, errors)
}

/// The source ranges of the declarators that `[[maybe_unused]]` (also
/// `[[gnu::unused]]`, `__attribute__((unused))`) marks among `tokens`: the
/// name before an attribute written after it (`int x [[maybe_unused]]`),
/// else the declaration after the attribute up to its first `;`, `{` or
/// unbalanced `)` (every declarator of `[[maybe_unused]] int a = 1, b;`,
/// the one of a `for` or `if` initializer).
pub(crate) fn maybe_unused(tokens: &[Token]) -> Vec<Span> {
    let mut marked = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (end, inner) = match (specifier_end(tokens, i), gnu_end(tokens, i)) {
            (Some(end), _) => (end, &tokens[i + 2..end - 1]),
            (None, Some(end)) => (end, &tokens[i + 3..end - 1]),
            (None, None) => {
                i += 1;
                continue;
            }
        };
        if inner
            .iter()
            .any(|t| matches!(t.text.as_str(), "maybe_unused" | "unused" | "__unused__"))
        {
            let after_name = i > 0 && tokens[i - 1].kind == TokenKind::Ident;
            let covered = match after_name {
                true => Some(tokens[i - 1].span),
                false => declaration_after(tokens, end + 1),
            };
            marked.extend(covered);
        }
        i = end + 1;
    }
    marked
}

/// The range from token `from` to the end of the declaration's
/// declarators: before its first `;`, `{` or unbalanced `)` outside
/// brackets.
fn declaration_after(tokens: &[Token], from: usize) -> Option<Span> {
    let mut depth = 0usize;
    let mut last = None;
    for t in tokens.iter().skip(from) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket) if depth > 0 => depth -= 1,
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RParen) if depth == 0 => break,
            _ => {}
        }
        last = Some(t.span);
    }
    Some(tokens.get(from)?.span.to(last?))
}

/// Whether token `i` is `kind`.
fn is(tokens: &[Token], i: usize, p: Punct) -> bool {
    tokens.get(i).is_some_and(|t| t.kind == TokenKind::Punct(p))
}

/// When an attribute specifier `[[ ... ]]` starts at token `i`: the index
/// of its last `]`.
fn specifier_end(tokens: &[Token], i: usize) -> Option<usize> {
    if !is(tokens, i, Punct::LBracket) || !is(tokens, i + 1, Punct::LBracket) {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(i) {
        match t.kind {
            TokenKind::Punct(Punct::LBracket) => depth += 1,
            TokenKind::Punct(Punct::RBracket) => {
                depth -= 1;
                if depth == 0 {
                    // `[[a]]`'s last `]` closes the outer bracket right
                    // after the inner one.
                    return is(tokens, j - 1, Punct::RBracket).then_some(j);
                }
            }
            // An attribute never holds a statement: a `;` or a brace means
            // the `[[` was something else (left to the parser).
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) => return None,
            _ => {}
        }
    }
    None
}

/// The errors for the layout-changing attributes among the tokens inside
/// one specifier's brackets (`gnu::hot, no_unique_address`).
fn layout_errors(inner: &[Token]) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut k = 0;
    while k < inner.len() {
        let mut name = inner[k].text.to_string();
        let start = inner[k].span;
        if is(inner, k + 1, Punct::ColonColon) && k + 2 < inner.len() {
            name = format!("{name}::{}", inner[k + 2].text);
            k += 2;
        }
        if inner[k].kind == TokenKind::Ident && LAYOUT_CHANGING.contains(&name.as_str()) {
            let msg = format!("`[[{name}]]` is not supported by kernelc yet");
            let note =
                "it lets an empty member take no storage; kernelc would lay it out as any member";
            errors.push(Diagnostic::error(start, Code::E0002, msg).with_note(note));
        }
        k += 1;
    }
    errors
}

/// GNU attributes that change no result kernelc computes, spelled without
/// their optional `__` wrapping.
const GNU_HINTS: &[&str] = &[
    "unused",
    "used",
    "maybe_unused",
    "always_inline",
    "noinline",
    "flatten",
    "deprecated",
    "pure",
    "const",
    "hot",
    "cold",
    "nothrow",
    "warn_unused_result",
    "noreturn",
    "visibility",
];

/// When `__attribute__((...))` starts at token `i`: the index of its last
/// `)`.
fn gnu_end(tokens: &[Token], i: usize) -> Option<usize> {
    if tokens[i].kind != TokenKind::Ident
        || tokens[i].text.as_str() != "__attribute__"
        || !is(tokens, i + 1, Punct::LParen)
        || !is(tokens, i + 2, Punct::LParen)
    {
        return None;
    }
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(i + 1) {
        match t.kind {
            TokenKind::Punct(Punct::LParen) => depth += 1,
            TokenKind::Punct(Punct::RParen) => {
                depth -= 1;
                if depth == 0 {
                    return is(tokens, j - 1, Punct::RParen).then_some(j);
                }
            }
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) => return None,
            _ => {}
        }
    }
    None
}

/// What the attributes inside `__attribute__((` ... `))` become: the
/// `__align__(N)` of an `aligned(N)`, nothing for a hint; an error at the
/// first attribute kernelc does not know.
fn gnu_replacement(inner: &[Token]) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    for attr in inner.split(|t| t.kind == TokenKind::Punct(Punct::Comma)) {
        let Some(name) = attr.first() else { continue };
        let bare = name
            .text
            .as_str()
            .trim_start_matches("__")
            .trim_end_matches("__");
        if bare == "aligned" && attr.len() > 3 && is(attr, 1, Punct::LParen) {
            let mut align = name.clone();
            align.text = "__align__".into();
            out.push(align);
            out.extend(attr[1..].iter().cloned());
        } else if !GNU_HINTS.contains(&bare) {
            let msg = format!("`__attribute__(({bare}))` is not supported by kernelc yet");
            return Err(Diagnostic::error(name.span, Code::E0002, msg));
        }
    }
    Ok(out)
}
