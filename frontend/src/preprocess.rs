//! A small token-level preprocessor: the subset of C's that kernels use.
//!
//! Supported: object- and function-like `#define` (arguments are
//! macro-expanded before substitution, as C requires, except the operands
//! of `#` and `##`), variadic macros (`...`, `__VA_ARGS__`), `#` stringizing
//! and `##` pasting, `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/
//! `#endif` with `defined` and integer constant expressions, `#error`,
//! `#warning`, `-D` options, `__LINE__`/`__FILE__`, the predefined
//! `__CUDA_ARCH__`/`__CUDACC__`/`__NVCC__`, the macros nvcc makes visible
//! without an `#include`, `#include` and `#include_next` of files (found as
//! [`crate::include`] says, read through the caller's loader, lexed and
//! preprocessed in place) and of the headers in [`crate::headers`],
//! `__has_include`, `#pragma unroll [N]` and `#pragma once` (also as the
//! `_Pragma("...")` operator, which macros carry). Other pragmas
//! are ignored with a warning; other directives are rejected with a
//! diagnostic rather than silently misinterpreted.
//!
//! It works on tokens rather than text so spans stay exact. Expanded tokens
//! take the span of the outermost macro *use*, so errors inside an expansion
//! still point at the line the user wrote.
//!
//! `#pragma unroll [N]` becomes the token pair [`Keyword::PragmaUnroll`] ...
//! [`Keyword::PragmaEnd`] around its (expanded) argument, so the parser can
//! attach it to the loop that follows. Their spellings contain a space, so no
//! source identifier can ever lex as them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::headers::{CxxStd, Header, Library};
use crate::include::{self, FileLoader, FoundIn, LoadedFile, Request, MAX_INCLUDE_DEPTH};
use crate::lexer;
use crate::lexer::lex_raw;
use crate::source_map::{FileIndex, SourceMap};
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::Options;

/// Macro expansion nesting limit: a macro whose body uses a macro whose
/// body uses a macro ... (true recursion is already stopped by the
/// active-macro check). nvcc expands a tower of 1,000 such macros at once;
/// kernelc takes 20,000, on a stack that grows as it goes.
const MAX_EXPANSION_DEPTH: usize = 20_000;

/// Recursion limit of the expander itself, which also recurses into each
/// macro argument (`F(F(F(...)))`), on a stack that grows as it goes
/// (`stdx::stack`). Each nesting level of a function-like macro takes two
/// (argument, then body), so this allows 10,000 nested arguments (nvcc
/// expands 1,000 at once and runs for minutes on 10,000).
const MAX_EXPANDER_RECURSION: usize = 20_000;

/// The most tokens macro expansion may work through (bodies and arguments,
/// counted at every level) in one translation unit. Recursion is
/// impossible, but `#define E1 E0 E0`, `#define E2 E1 E1`, ... doubles per
/// level, so 40 lines could ask for 2^40 tokens; real kernels expand far
/// fewer than this.
const MAX_EXPANDED_TOKENS: usize = 1 << 22;

/// `__CUDA_ARCH__` unless [`Options::with_cuda_arch`] (or `-D`) sets it: sm_75, the oldest
/// target kernelc (and CUDA 13) supports, so the guarded code is the most
/// portable variant.
pub const DEFAULT_CUDA_ARCH: u32 = 750;

/// A macro: its parameters (function-like) and its replacement tokens.
/// A variadic macro's last parameter is `__VA_ARGS__`.
#[derive(Clone)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Token>,
}

thread_local! {
    /// The macros that the definitions of kernelc's own tables
    /// (`crate::headers`: the predefined macros, the macro-only headers)
    /// make, by definition text, each with its name. The tables never
    /// change, so each definition is lexed and read once per thread: every
    /// compilation makes about a hundred of them, and lexing them was a
    /// third of a small sample's preprocessing.
    static KNOWN_DEFINITIONS: std::cell::RefCell<FxHashMap<&'static str, (String, Macro)>> =
        std::cell::RefCell::new(FxHashMap::default());
}

/// One level of `#if` nesting.
struct Cond {
    /// Lines in the current branch are compiled.
    active: bool,
    /// Some branch of this `#if` was already taken.
    taken: bool,
    /// The enclosing region is active (else no branch here can be).
    parent: bool,
    /// `#else` was seen (another `#elif`/`#else` is an error).
    seen_else: bool,
    span: Span,
}

struct Pp<'s> {
    /// Every file read so far; included files are added as they are read.
    map: &'s mut SourceMap,
    /// Reads the files `#include` names.
    loader: &'s dyn FileLoader,
    /// The `-I` folders, in order.
    include_dirs: &'s [String],
    /// `Options::system_include_dirs`.
    system_include_dirs: &'s [String],
    /// Per file of `map`: where it was found (for `#include_next`) and its
    /// identity (for `#pragma once`; `None` for the main file).
    found: Vec<(FoundIn, Option<String>)>,
    /// The files being read, the main one first, the current one last.
    stack: Vec<FileIndex>,
    /// The current file's text and global base offset.
    text: Arc<str>,
    base: u32,
    /// Identities of the files that said `#pragma once`.
    once: FxHashSet<String>,
    /// Names a kernelc header declines (`#pragma kernelc unsupported`),
    /// each with what it belongs to: a use in the program is an error.
    unsupported: FxHashMap<String, String>,
    /// The template libraries included, each once.
    libraries: Vec<LibraryInclude>,
    /// What `__FILE__` expands to in the main file.
    file_name: String,
    macros: FxHashMap<String, Macro>,
    conds: Vec<Cond>,
    diags: &'s mut Vec<Diagnostic>,
    /// Current recursion depth of [`Pp::expand_seq`].
    recursion: usize,
    /// Tokens produced by macro expansion so far.
    expanded: usize,
    /// A limit was hit: expansion stops everywhere (one diagnostic, and no
    /// more exponential work).
    runaway: bool,
    /// [`Options::nesting_limit`], for `#if` expressions.
    nesting_limit: usize,
    /// [`Options::error_limit`].
    error_limit: usize,
}

/// A template library (Thrust, CUB) the program includes, whose headers
/// kernelc does not read (`crate::headers::Header::Library`): host code
/// may use it; device code that names its namespace is refused but for the
/// names kernelc's header of its device part provides (`crate::libraries`).
#[derive(Clone)]
pub(crate) struct LibraryInclude {
    pub library: &'static Library,
    /// The first `#include` of one of its headers (`None`: `-include`).
    pub at: Option<Span>,
    /// Whether W0009 was given for it.
    warned: bool,
}

/// What preprocessing gives: the tokens, and the template libraries
/// included.
pub(crate) struct Preprocessed {
    pub tokens: Vec<Token>,
    pub libraries: Vec<LibraryInclude>,
}

/// Runs directives and macro substitution over the raw tokens of the main
/// file of `map`, reading the files it includes through `loader` (and
/// adding them to `map`).
pub(crate) fn preprocess(
    map: &mut SourceMap,
    raw: Vec<Token>,
    opts: &Options,
    loader: &dyn FileLoader,
    diags: &mut Vec<Diagnostic>,
) -> Preprocessed {
    let text = map.main().shared_text();
    let mut pp = Pp {
        map,
        loader,
        include_dirs: &opts.include_dirs,
        system_include_dirs: &opts.system_include_dirs,
        found: vec![(FoundIn::NoSearch, None)],
        stack: vec![0],
        text,
        base: 0,
        once: FxHashSet::default(),
        unsupported: FxHashMap::default(),
        libraries: Vec::new(),
        file_name: opts
            .file_name
            .clone()
            .unwrap_or_else(|| "<input>".to_string()),
        macros: FxHashMap::default(),
        conds: Vec::new(),
        diags,
        recursion: 0,
        expanded: 0,
        runaway: false,
        nesting_limit: opts.nesting_limit,
        error_limit: opts.error_limit,
    };
    pp.predefine(opts);
    let mut out = Vec::with_capacity(raw.len());
    for name in &opts.pre_includes {
        pp.pre_include(name, &mut out);
    }
    pp.run_file(&raw, &mut out);
    Preprocessed {
        tokens: out,
        libraries: pp.libraries,
    }
}

impl Pp<'_> {
    /// The macros every translation unit starts with: nvcc's, then the
    /// `-D`s, then the predefined header macros the program did not define.
    fn predefine(&mut self, opts: &Options) {
        let arch = DEFAULT_CUDA_ARCH.to_string();
        let mut defines: Vec<(String, Option<String>)> = vec![
            ("__CUDA_ARCH__".to_string(), Some(arch)),
            // nvcc lists every target it compiles for; kernelc compiles one.
            (
                "__CUDA_ARCH_LIST__".to_string(),
                Some(opts.cuda_arch().to_string()),
            ),
            ("__CUDACC__".to_string(), None),
            ("__NVCC__".to_string(), None),
            // CUDA's headers spell the GNU `__inline__` (used in many textbook
            // kernels: `__inline__ __device__ float warpReduceSum(...)`) as
            // plain `inline`; so does kernelc.
            ("__inline__".to_string(), Some("inline".to_string())),
        ];
        if let Some(std) = opts.std {
            defines.push(("__cplusplus".to_string(), Some(std.cplusplus().to_string())));
            defines.push(("__STRICT_ANSI__".to_string(), None));
        }
        defines.extend(opts.defines.iter().cloned());
        for (name, value) in &defines {
            if let Err(why) = check_define_name(name) {
                self.diags.push(Diagnostic::error(
                    Span::default(),
                    Code::E0010,
                    format!("invalid `-D` option: {why}"),
                ));
                continue;
            }
            let (tokens, errs) = lex_raw(value.as_deref().unwrap_or("1"));
            if !errs.is_empty() {
                self.diags.push(Diagnostic::error(
                    Span::default(),
                    Code::E0010,
                    format!("invalid value for `-D {name}`: {}", errs[0].message),
                ));
                continue;
            }
            self.macros.insert(
                name.clone(),
                Macro {
                    params: None,
                    variadic: false,
                    body: tokens,
                },
            );
        }
        for def in crate::headers::PREDEFINED {
            let name = def.split(' ').next().unwrap_or_default();
            if opts.std.is_none() || !CxxStd::leaves_out(name) {
                self.builtin_define(def);
            }
        }
    }

    /// Preprocesses the raw tokens of the current file into `out`. A
    /// conditional the file opens must close in it.
    fn run_file(&mut self, raw: &[Token], out: &mut Vec<Token>) {
        let conds_before = self.conds.len();
        let mut i = 0;
        while i < raw.len() {
            if crate::diag::over_error_limit(self.diags, self.error_limit) {
                return;
            }
            if self.is_directive_start(raw, i) {
                // The directive runs to the end of the (logical) line.
                let mut j = i + 1;
                while j < raw.len() && !self.newline_between(raw[j - 1].span.end, raw[j].span.start)
                {
                    j += 1;
                }
                self.directive(&raw[i..j], out);
                i = j;
                continue;
            }
            // A run of ordinary tokens up to the next directive.
            let mut j = i + 1;
            while j < raw.len() && !self.is_directive_start(raw, j) {
                j += 1;
            }
            if self.active() {
                let from = out.len();
                self.expand_seq(&raw[i..j], None, &mut Vec::new(), out);
                if !self.unsupported.is_empty() {
                    self.check_unsupported(&out[from..]);
                }
            }
            i = j;
        }
        if self.conds.len() > conds_before {
            if let Some(c) = self.conds.last() {
                let span = c.span;
                self.diags.push(Diagnostic::error(
                    span,
                    Code::E0010,
                    "unterminated `#if` (missing `#endif`)",
                ));
            }
            self.conds.truncate(conds_before);
        }
    }

    /// Whether a line break separates two global offsets of the current
    /// file (ignoring `\`-continued lines).
    fn newline_between(&self, a: u32, b: u32) -> bool {
        newline_between(
            &self.text,
            a.saturating_sub(self.base),
            b.saturating_sub(self.base),
        )
    }
}

/// Whether a line break separates two byte offsets (ignoring `\`-continued lines).
fn newline_between(source: &str, a: u32, b: u32) -> bool {
    let bytes = source.as_bytes();
    let (a, b) = (a as usize, (b as usize).min(bytes.len()));
    (a..b).any(|k| bytes[k] == b'\n' && !(k > 0 && bytes[k - 1] == b'\\'))
}

fn is_name(t: &Token) -> bool {
    matches!(t.kind, TokenKind::Ident | TokenKind::Keyword(_))
}

fn is_punct(t: &Token, p: Punct) -> bool {
    t.kind == TokenKind::Punct(p)
}

/// The string of `_Pragma ( "..." )` when `toks` starts with one.
fn pragma_operator(toks: &[Token]) -> Option<String> {
    match toks {
        [name, open, words, close, ..]
            if name.text == "_Pragma"
                && is_punct(open, Punct::LParen)
                && is_punct(close, Punct::RParen) =>
        {
            match &words.kind {
                TokenKind::Str(s) => Some(s.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A token made by the preprocessor (`#pragma` markers, `#if` values).
fn synth(kind: TokenKind, text: &str, span: Span) -> Token {
    Token {
        kind,
        text: text.into(),
        span,
    }
}

/// How a string literal holding `s` is spelled (`"` and `\\` escaped).
fn string_spelling(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// What an include search found.
enum Found {
    /// A file (its path as found, and what the loader read), and where.
    File((PathBuf, LoadedFile), FoundIn),
    /// A kernelc header.
    Header(Header),
    /// A file that is there but cannot be read, and why.
    Unreadable(PathBuf, String),
    /// A header of the host's system only (`Options::system_include_dirs`):
    /// nothing for device code.
    System,
    /// Nothing: a note saying where it looked.
    Nothing(String),
}

/// A kernelc header of source ([`Header::Source`]) as the file it stands
/// for: its pseudo path is its name and its identity.
fn source_header(path: &'static str, text: fn() -> &'static str) -> (PathBuf, LoadedFile) {
    let file = LoadedFile {
        text: text().to_string(),
        identity: path.to_string(),
    };
    (PathBuf::from(path), file)
}

/// W0009 at the include of `library`'s header (`None`: `-include`).
fn library_warning(at: Option<Span>, library: &Library) -> Diagnostic {
    let name = library.name;
    let msg = if let Some(part) = &library.device {
        format!(
            "kernelc compiles {name}'s {} only: host code may use the rest, device code may not",
            part.what
        )
    } else {
        format!("kernelc does not compile {name}'s templates: host code may use it, device code may not")
    };
    let note = format!(
        "nvcc's PTX also holds the kernels that {name}'s algorithms instantiate for host code; kernelc's holds this program's own kernels"
    );
    let d = match at {
        Some(span) => Diagnostic::warning(span, Code::W0009, msg),
        None => Diagnostic {
            located: false,
            ..Diagnostic::warning(Span::default(), Code::W0009, msg)
        },
    };
    d.with_note(note)
}

/// `span` (of an included file's own text) moved to the file's `base`.
fn shift(span: Span, base: u32) -> Span {
    Span::new(
        span.start.saturating_add(base),
        span.end.saturating_add(base),
    )
}

/// Whether `name` is one of the `__has_include` operators, which
/// `defined` and `#ifdef` see as defined.
fn is_has_include(name: &str) -> bool {
    name == "__has_include" || name == "__has_include_next"
}

/// `#arg`: the argument's tokens as one string literal, separated by a
/// space where the source had white space between them (C 6.10.3.2).
fn stringize(arg: &[Token], at: Span) -> Token {
    let mut text = String::new();
    for (k, t) in arg.iter().enumerate() {
        if k > 0 {
            let prev = arg[k - 1].span;
            if prev.end < t.span.start || prev == t.span {
                text.push(' ');
            }
        }
        text.push_str(&t.text);
    }
    synth(TokenKind::Str(text.clone()), &string_spelling(&text), at)
}

impl Pp<'_> {
    fn active(&self) -> bool {
        self.conds.last().is_none_or(|c| c.active)
    }

    fn is_directive_start(&self, raw: &[Token], i: usize) -> bool {
        is_punct(&raw[i], Punct::Hash)
            && (i == 0 || self.newline_between(raw[i - 1].span.end, raw[i].span.start))
    }

    fn error(&mut self, span: Span, code: Code, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, code, msg));
    }

    /// Macro expansion passed its nesting limits (E0014, as nesting in the
    /// parser); the rest of the expansion is abandoned.
    fn too_deep(&mut self, at: Span) {
        let d = Diagnostic::error(at, Code::E0014, "macro expansion nests too deeply");
        self.diags.push(d.with_note(format!(
            "macros expanding macros, or macro arguments holding macro calls, nest more than {MAX_EXPANSION_DEPTH} levels"
        )));
        self.runaway = true;
    }

    /// Expands macros in `toks` into `out`. `span` (the outermost use) replaces
    /// every produced token's span; `active` lists the macros being expanded.
    /// Bounded in depth and in output (see [`MAX_EXPANDER_RECURSION`],
    /// [`MAX_EXPANDED_TOKENS`]), so hostile macros end in a diagnostic.
    fn expand_seq(
        &mut self,
        toks: &[Token],
        span: Option<Span>,
        active: &mut Vec<String>,
        out: &mut Vec<Token>,
    ) {
        if self.runaway {
            return;
        }
        let at = span.or(toks.first().map(|t| t.span)).unwrap_or_default();
        if self.recursion >= MAX_EXPANDER_RECURSION {
            self.too_deep(at);
            return;
        }
        if span.is_some() {
            self.expanded += toks.len();
            if self.expanded > MAX_EXPANDED_TOKENS {
                self.error(
                    at,
                    Code::E0010,
                    format!("macro expansion is too large (over {MAX_EXPANDED_TOKENS} tokens)"),
                );
                self.runaway = true;
                return;
            }
        }
        self.recursion += 1;
        stdx::stack::with_stack(|| self.expand_seq_inner(toks, span, active, out));
        self.recursion -= 1;
    }

    fn expand_seq_inner(
        &mut self,
        toks: &[Token],
        span: Option<Span>,
        active: &mut Vec<String>,
        out: &mut Vec<Token>,
    ) {
        let mut i = 0;
        while i < toks.len() {
            let tok = &toks[i];
            let at = span.unwrap_or(tok.span);
            if let Some(words) = pragma_operator(&toks[i..]) {
                self.pragma_operator(&words, at, out);
                i += 4;
                continue;
            }
            let is_macro = is_name(tok) && !active.iter().any(|a| *a == tok.text);
            if is_macro && !self.macros.contains_key(tok.text.as_str()) {
                if let Some(t) = self.dynamic_macro(&tok.text, at) {
                    out.push(t);
                    i += 1;
                    continue;
                }
            }
            let Some(m) = self.macros.get(tok.text.as_str()).filter(|_| is_macro) else {
                out.push(Token {
                    span: at,
                    ..tok.clone()
                });
                i += 1;
                continue;
            };
            if active.len() >= MAX_EXPANSION_DEPTH {
                self.too_deep(at);
                return;
            }
            let Some(params) = m.params.clone() else {
                let body = m.body.clone();
                active.push(tok.text.to_string());
                self.expand_seq(&body, Some(at), active, out);
                active.pop();
                i += 1;
                continue;
            };
            // A function-like macro name not followed by `(` is an ordinary name.
            if !toks.get(i + 1).is_some_and(|t| is_punct(t, Punct::LParen)) {
                out.push(Token {
                    span: at,
                    ..tok.clone()
                });
                i += 1;
                continue;
            }
            let (body, variadic) = (m.body.clone(), m.variadic);
            let Some((args, close)) = self.collect_args(toks, i + 1) else {
                let msg = format!("unterminated call of macro `{}`", tok.text);
                self.error(at, Code::E0010, msg);
                return;
            };
            let call_span = span.unwrap_or(tok.span.to(toks[close].span));
            let mut args = if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                Vec::new()
            } else {
                args
            };
            let named = params.len() - usize::from(variadic);
            if variadic && args.len() >= named {
                // Everything past the named parameters is `__VA_ARGS__`,
                // commas included.
                let rest = args.split_off(named.min(args.len()));
                let mut va = Vec::new();
                for (k, a) in rest.into_iter().enumerate() {
                    if k > 0 {
                        va.push(synth(TokenKind::Punct(Punct::Comma), ",", call_span));
                    }
                    va.extend(a);
                }
                args.push(va);
            }
            if args.len() != params.len() {
                let msg = format!(
                    "macro `{}` takes {}{} argument(s), but {} were given",
                    tok.text,
                    if variadic { "at least " } else { "" },
                    named,
                    args.len()
                );
                self.error(call_span, Code::E0010, msg);
                i = close + 1;
                continue;
            }
            // Arguments are fully expanded first (C 6.10.3.1), then
            // substituted; operands of `#` and `##` are not expanded.
            let mut expanded = Vec::new();
            for a in &args {
                let mut e = Vec::new();
                self.expand_seq(a, Some(call_span), active, &mut e);
                expanded.push(e);
            }
            let Some(substituted) = self.substitute(&body, &params, &args, &expanded, call_span)
            else {
                i = close + 1;
                continue;
            };
            active.push(tok.text.to_string());
            self.expand_seq(&substituted, Some(call_span), active, out);
            active.pop();
            i = close + 1;
        }
    }

    /// `_Pragma("words")` at `at`: the words lexed and read as a
    /// `#pragma` directive's (C 6.10.9), so a macro can carry a pragma.
    fn pragma_operator(&mut self, words: &str, at: Span, out: &mut Vec<Token>) {
        let (mut tokens, errs) = lex_raw(words);
        if !errs.is_empty() {
            self.error(
                at,
                Code::E0010,
                "`_Pragma`'s string is not a pragma's words",
            );
            return;
        }
        for t in &mut tokens {
            t.span = at;
        }
        self.pragma(&tokens, at, out);
    }

    /// `__LINE__` (the line of the outermost macro use, as in C) and
    /// `__FILE__`.
    fn dynamic_macro(&self, name: &str, at: Span) -> Option<Token> {
        match name {
            "__LINE__" => {
                let line = self.map.position(at.start).1 as u64;
                Some(synth(
                    TokenKind::Int {
                        value: line,
                        ty: crate::types::CType::INT,
                    },
                    &line.to_string(),
                    at,
                ))
            }
            "__FILE__" => {
                let name = match self.stack.last() {
                    Some(&file) if file != 0 => self.map.file(file).name(),
                    _ => &self.file_name,
                };
                Some(synth(
                    TokenKind::Str(name.to_string()),
                    &string_spelling(name),
                    at,
                ))
            }
            _ => None,
        }
    }

    /// Defines one predefined or header macro (`NAME body` or
    /// `NAME(params) body`), unless the program or `-D` already did.
    fn builtin_define(&mut self, def: &'static str) {
        let known = KNOWN_DEFINITIONS.with(|known| {
            let known = known.borrow();
            let (name, mac) = known.get(def)?;
            if !self.macros.contains_key(name.as_str()) {
                self.macros.insert(name.clone(), mac.clone());
            }
            Some(())
        });
        if known.is_some() {
            return;
        }
        let (tokens, errs) = lex_raw(def);
        let name = tokens.first().map(|t| t.text.clone());
        let defined = name
            .as_ref()
            .is_some_and(|n| self.macros.contains_key(n.as_str()));
        if !errs.is_empty() || defined {
            return;
        }
        self.define(&tokens, Span::default());
        // `define` adds the macro unless it reported an error.
        let made = name.and_then(|n| Some((n.to_string(), self.macros.get(n.as_str())?.clone())));
        if let Some(entry) = made {
            KNOWN_DEFINITIONS.with(|known| known.borrow_mut().insert(def, entry));
        }
    }

    /// The body of a function-like macro with its arguments in place:
    /// `#p` becomes the string of `p`'s tokens as written, `a ## b` pastes
    /// two tokens into one, and a parameter next to neither is replaced by
    /// its expanded argument. `None` after an error.
    fn substitute(
        &mut self,
        body: &[Token],
        params: &[String],
        raw: &[Vec<Token>],
        expanded: &[Vec<Token>],
        at: Span,
    ) -> Option<Vec<Token>> {
        let param = |t: &Token| {
            if is_name(t) {
                params.iter().position(|p| *p == *t.text)
            } else {
                None
            }
        };
        let mut out: Vec<Token> = Vec::new();
        // The last thing pushed was an empty argument (a "placemarker"): a
        // `##` after it pastes onto nothing.
        let mut placemarker = false;
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            if is_punct(t, Punct::Hash) {
                if let Some(p) = body.get(k + 1).and_then(param) {
                    out.push(stringize(&raw[p], at));
                    placemarker = false;
                    k += 2;
                    continue;
                }
            }
            if is_punct(t, Punct::HashHash) {
                let Some(next) = body.get(k + 1) else {
                    return Some(out); // Rejected at `#define`; be safe.
                };
                k += 2;
                let rhs: Vec<Token> = match param(next) {
                    Some(p) => raw[p].clone(),
                    None => vec![next.clone()],
                };
                // GNU's `, ## __VA_ARGS__`: the comma goes when the variable
                // arguments are empty.
                let va_comma = next.text == "__VA_ARGS__"
                    && !placemarker
                    && out.last().is_some_and(|l| is_punct(l, Punct::Comma));
                if va_comma {
                    if rhs.is_empty() {
                        out.pop();
                    }
                    out.extend(rhs);
                    placemarker = false;
                    continue;
                }
                let Some(first) = rhs.first() else {
                    continue; // `x ## <empty>` is `x`.
                };
                if placemarker || out.is_empty() {
                    out.extend(rhs.iter().cloned());
                    placemarker = false;
                    continue;
                }
                let lhs = out.pop()?;
                let text = format!("{}{}", lhs.text, first.text);
                let (mut pasted, errs) = lex_raw(&text);
                if pasted.len() != 1 || !errs.is_empty() {
                    self.error(
                        at,
                        Code::E0010,
                        format!(
                            "pasting `{}` and `{}` with `##` does not give a valid token",
                            lhs.text, first.text
                        ),
                    );
                    return None;
                }
                let mut tok = pasted.remove(0);
                tok.span = at;
                out.push(tok);
                out.extend(rhs[1..].iter().cloned());
                placemarker = false;
                continue;
            }
            match param(t) {
                Some(p) => {
                    let before_paste = body
                        .get(k + 1)
                        .is_some_and(|n| is_punct(n, Punct::HashHash));
                    let arg = if before_paste { &raw[p] } else { &expanded[p] };
                    out.extend(arg.iter().cloned());
                    placemarker = arg.is_empty();
                }
                None => {
                    out.push(t.clone());
                    placemarker = false;
                }
            }
            k += 1;
        }
        Some(out)
    }

    /// The comma-separated arguments after the `(` at `open`, and the index
    /// of the closing `)`; `None` when it never closes.
    fn collect_args(&self, toks: &[Token], open: usize) -> Option<(Vec<Vec<Token>>, usize)> {
        let mut args = vec![Vec::new()];
        let mut depth = 0usize;
        for (k, t) in toks.iter().enumerate().skip(open + 1) {
            match t.kind {
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) if depth == 0 => return Some((args, k)),
                TokenKind::Punct(Punct::RParen) => depth -= 1,
                TokenKind::Punct(Punct::Comma) if depth == 0 => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = args.last_mut() {
                last.push(t.clone());
            }
        }
        None
    }

    /// Handles one directive line (`line[0]` is the `#`).
    fn directive(&mut self, line: &[Token], out: &mut Vec<Token>) {
        let hash = line[0].span;
        let Some(name_tok) = line.get(1) else {
            return; // The null directive `#` is allowed and does nothing.
        };
        let whole = hash.to(line[line.len() - 1].span);
        let rest = &line[2..];
        let name = name_tok.text.as_str();
        // Conditionals are tracked even inside skipped regions.
        match name {
            "if" | "ifdef" | "ifndef" => {
                let parent = self.active();
                let value = parent && self.condition(name, rest, whole);
                self.conds.push(Cond {
                    active: value,
                    taken: value,
                    parent,
                    seen_else: false,
                    span: whole,
                });
                return;
            }
            "elif" | "else" => {
                let Some(c) = self.conds.last() else {
                    self.error(whole, Code::E0010, format!("`#{name}` without `#if`"));
                    return;
                };
                if c.seen_else {
                    self.error(whole, Code::E0010, format!("`#{name}` after `#else`"));
                    return;
                }
                let go =
                    c.parent && !c.taken && (name == "else" || self.condition(name, rest, whole));
                if let Some(c) = self.conds.last_mut() {
                    c.active = go;
                    c.taken |= go;
                    c.seen_else = name == "else";
                }
                return;
            }
            "endif" => {
                if self.conds.pop().is_none() {
                    self.error(whole, Code::E0010, "`#endif` without `#if`");
                }
                return;
            }
            _ => {}
        }
        if !self.active() {
            return;
        }
        match name {
            "define" => self.define(rest, whole),
            "undef" => match rest.first() {
                Some(name) => {
                    self.macros.remove(name.text.as_str());
                }
                None => self.error(whole, Code::E0010, "macro name missing after `#undef`"),
            },
            "include" | "include_next" => self.include(rest, whole, name == "include_next", out),
            "pragma" => self.pragma(rest, whole, out),
            "warning" => {
                let text = match (rest.first(), rest.last()) {
                    (Some(a), Some(b)) => self.map.slice(a.span.to(b.span)).to_string(),
                    _ => String::new(),
                };
                self.diags.push(Diagnostic::warning(
                    whole,
                    Code::W0004,
                    format!("`#warning` {text}"),
                ));
            }
            "error" => self.error(whole, Code::E0010, "`#error` directive"),
            other => {
                let msg = format!("`#{other}` is not supported by kernelc");
                self.error(hash.to(name_tok.span), Code::E0002, msg);
            }
        }
    }

    /// `#include` (or `#include_next`, `next`): finds the file
    /// ([`crate::include`]) and preprocesses it in place, or applies the
    /// kernelc header of that name; a located error when there is neither.
    fn include(&mut self, rest: &[Token], whole: Span, next: bool, out: &mut Vec<Token>) {
        let Some((name, angled)) = self.include_name(rest) else {
            let kind = if next { "include_next" } else { "include" };
            let msg = format!("`#{kind}` expects \"FILE\" or <FILE>");
            self.error(whole, Code::E0010, msg);
            return;
        };
        let spelling = if angled {
            format!("<{name}>")
        } else {
            format!("\"{name}\"")
        };
        let req = Request {
            name: &name,
            angled,
            next,
        };
        match self.find(req) {
            Found::File(file, found_in) => self.read_included(file, found_in, Some(whole), out),
            Found::Header(Header::Macros(defs)) => {
                for def in defs {
                    self.builtin_define(def);
                }
            }
            Found::Header(Header::Source { path, text }) => self.read_included(
                source_header(path, text),
                FoundIn::NoSearch,
                Some(whole),
                out,
            ),
            Found::Header(Header::Unsupported(what)) => self.diags.push(
                Diagnostic::error(
                    whole,
                    Code::E0002,
                    format!("`#include {spelling}` is not supported by kernelc"),
                )
                .with_note(format!("kernelc does not provide {what}")),
            ),
            Found::Header(Header::Library { library, warns }) => {
                self.library_included(Some(whole), library, warns, out)
            }
            // The host compiler reads it; the device program needs none
            // of it, as with the host headers kernelc knows by name
            // (`crate::headers::KNOWN_EMPTY`).
            Found::System => {}
            Found::Unreadable(path, why) => self.error(
                whole,
                Code::E0016,
                format!("cannot read `{}`: {why}", path.display()),
            ),
            Found::Nothing(searched) => {
                let d = Diagnostic::error(
                    whole,
                    Code::E0016,
                    format!("cannot find the file `#include {spelling}` names"),
                );
                self.diags.push(d.with_note(searched));
            }
        }
    }

    /// Whether the current file is one of kernelc's headers of source
    /// ([`Header::Source`]), whose pseudo paths start `<kernelc>/`.
    fn in_kernelc_header(&self) -> bool {
        let current = self.stack.last().copied().unwrap_or(0);
        self.map
            .file(current)
            .name()
            .starts_with(crate::prune::HEADER_PREFIX)
    }

    /// A `#pragma`'s words (`rest`, after `pragma`), from the directive or
    /// from a `_Pragma("...")` operator.
    fn pragma(&mut self, rest: &[Token], whole: Span, out: &mut Vec<Token>) {
        match rest.first().map(|t| t.text.as_str()) {
            Some("unroll") => {
                out.push(synth(
                    TokenKind::Keyword(Keyword::PragmaUnroll),
                    "#pragma unroll",
                    whole,
                ));
                self.expand_seq(&rest[1..], None, &mut Vec::new(), out);
                out.push(synth(
                    TokenKind::Keyword(Keyword::PragmaEnd),
                    "#pragma end",
                    whole,
                ));
            }
            Some("once") => {
                if let Some(id) = self.stack.last().and_then(|&f| self.found[f].1.clone()) {
                    self.once.insert(id);
                }
            }
            Some("kernelc") if self.in_kernelc_header() => self.kernelc_pragma(&rest[1..], whole),
            _ => self.diags.push(
                Diagnostic::warning(whole, Code::W0006, "unknown `#pragma` ignored")
                    .with_note("kernelc acts on `#pragma unroll` and `#pragma once`"),
            ),
        }
    }

    /// `#pragma kernelc unsupported NAME... "WHAT"` in a kernelc header:
    /// the names belong to WHAT, which kernelc does not provide, and a use
    /// of one in the program is a located error saying so (E0002) rather
    /// than an unknown name.
    fn kernelc_pragma(&mut self, rest: &[Token], whole: Span) {
        match rest {
            [verb, names @ .., what] if verb.text == "unsupported" => {
                let TokenKind::Str(what) = &what.kind else {
                    return self.error(
                        whole,
                        Code::E0010,
                        "`#pragma kernelc unsupported` ends with a string",
                    );
                };
                for name in names.iter().filter(|t| is_name(t)) {
                    self.unsupported.insert(name.text.to_string(), what.clone());
                }
            }
            _ => self.error(whole, Code::E0010, "unknown `#pragma kernelc`"),
        }
    }

    /// A located error for each use of a name a kernelc header declines.
    fn check_unsupported(&mut self, toks: &[Token]) {
        for t in toks {
            if let (TokenKind::Ident, Some(what)) = (&t.kind, self.unsupported.get(t.text.as_str()))
            {
                let msg = format!("`{}` is not supported by kernelc", t.text);
                let note = format!("kernelc does not provide {what}");
                self.diags
                    .push(Diagnostic::error(t.span, Code::E0002, msg).with_note(note));
            }
        }
    }

    /// The name an `#include` line names and whether it is `<name>`: the
    /// line as written (`"a.h"`, `<sys/time.h>`), or its macro expansion.
    fn include_name(&mut self, rest: &[Token]) -> Option<(String, bool)> {
        if let Some(found) = self.header_name(rest) {
            return Some(found);
        }
        let mut expanded = Vec::new();
        self.expand_seq(rest, None, &mut Vec::new(), &mut expanded);
        match expanded.as_slice() {
            [Token {
                kind: TokenKind::Str(s),
                ..
            }] => Some((s.clone(), false)),
            [first, middle @ .., last]
                if is_punct(first, Punct::Lt) && is_punct(last, Punct::Gt) =>
            {
                Some((middle.iter().map(|t| t.text.as_str()).collect(), true))
            }
            _ => None,
        }
    }

    /// `"name"` or `<name>` as written at the start of `toks` (the whole of
    /// them), spelled as in the source.
    fn header_name(&self, toks: &[Token]) -> Option<(String, bool)> {
        let (first, last) = (toks.first()?, toks.last()?);
        let text = self.map.slice(first.span.to(last.span));
        if let Some(name) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
            return Some((name.to_string(), true));
        }
        match &first.kind {
            TokenKind::Str(s) if toks.len() == 1 && text.starts_with('"') => {
                Some((s.clone(), false))
            }
            _ => None,
        }
    }

    /// Where `req` is found from the current file: a file of the include
    /// path (read, not yet added to the map), or a kernelc header.
    fn find(&self, req: Request<'_>) -> Found {
        let current = self.stack.last().copied().unwrap_or(0);
        let includer = self.map.file(current).name();
        let found_in = self.found.get(current).map_or(FoundIn::NoSearch, |f| f.0);
        let candidates = include::candidates(req, includer, found_in, self.include_dirs);
        for c in &candidates {
            match self.loader.load(&c.path) {
                Ok(Some(file)) => return Found::File((c.path.clone(), file), c.found_in),
                Ok(None) => {}
                Err(why) => return Found::Unreadable(c.path.clone(), why),
            }
        }
        if let Some(h) = crate::headers::header(req.name) {
            return Found::Header(h);
        }
        if req.angled && self.is_system_header(req.name) {
            return Found::System;
        }
        let mut searched: Vec<String> = Vec::new();
        for c in &candidates {
            let path = format!("`{}`", c.path.display());
            if !searched.contains(&path) {
                searched.push(path);
            }
        }
        searched.push("kernelc's own headers".to_string());
        if req.angled && !self.system_include_dirs.is_empty() {
            searched.push(format!(
                "the system's ({})",
                self.system_include_dirs.join(", ")
            ));
        }
        let hint = if self.include_dirs.is_empty() {
            " (no `-I` folder was given)"
        } else {
            ""
        };
        Found::Nothing(format!("searched: {}{hint}", searched.join(", ")))
    }

    /// Whether a system header folder holds `name` (the loader reads it:
    /// the frontend does no I/O of its own).
    fn is_system_header(&self, name: &str) -> bool {
        self.system_include_dirs
            .iter()
            .any(|dir| matches!(self.loader.load(&Path::new(dir).join(name)), Ok(Some(_))))
    }

    /// Preprocesses an included file into `out`: adds it to the map
    /// (`at`: the directive, `None` for `-include`), lexes it and runs it,
    /// unless `#pragma once` has read it already or the nesting is too deep.
    fn read_included(
        &mut self,
        (path, file): (PathBuf, LoadedFile),
        found_in: FoundIn,
        at: Option<Span>,
        out: &mut Vec<Token>,
    ) {
        if self.once.contains(&file.identity) || self.runaway {
            return;
        }
        let at_span = at.unwrap_or_default();
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            let d = Diagnostic::error(
                at_span,
                Code::E0014,
                format!("`#include` nests more than {MAX_INCLUDE_DEPTH} files deep"),
            );
            self.diags.push(d.with_note(
                "a file that includes itself, directly or not, needs `#pragma once` or an include guard",
            ));
            self.runaway = true;
            return;
        }
        let name = path.display().to_string();
        let Ok(index) = self.map.add(&name, &file.text, at) else {
            let msg = "the source files are too large together (over 4 GiB)";
            self.error(at_span, Code::E0010, msg);
            return;
        };
        let base = self.map.file(index).base();
        let (mut raw, lex_diags) = lexer::lex_raw_limited(&file.text, self.error_limit);
        for t in &mut raw {
            t.span = shift(t.span, base);
        }
        self.diags.extend(lex_diags.into_iter().map(|mut d| {
            d.span = shift(d.span, base);
            for (s, _) in &mut d.labels {
                *s = shift(*s, base);
            }
            d
        }));
        self.found.push((found_in, Some(file.identity)));
        let outer = (
            std::mem::replace(&mut self.text, self.map.file(index).shared_text()),
            std::mem::replace(&mut self.base, base),
        );
        self.stack.push(index);
        stdx::stack::with_stack(|| self.run_file(&raw, out));
        self.stack.pop();
        (self.text, self.base) = outer;
    }

    /// `-include NAME`: read before the main file, searched first from
    /// where the compilation runs, then in the `-I` folders and kernelc's
    /// headers (as GCC's `-include`).
    fn pre_include(&mut self, name: &str, out: &mut Vec<Token>) {
        let req = Request {
            name,
            angled: false,
            next: false,
        };
        let mut candidates = vec![include::Candidate {
            path: PathBuf::from(name),
            found_in: FoundIn::NoSearch,
        }];
        candidates.extend(include::candidates(
            Request {
                angled: true,
                ..req
            },
            "",
            FoundIn::NoSearch,
            self.include_dirs,
        ));
        for c in candidates {
            match self.loader.load(&c.path) {
                Ok(Some(file)) => return self.read_included((c.path, file), c.found_in, None, out),
                Ok(None) => {}
                Err(why) => {
                    let msg = format!("cannot read `{}` (`-include`): {why}", c.path.display());
                    self.diags.push(Diagnostic::unlocated(Code::E0016, msg));
                    return;
                }
            }
        }
        match crate::headers::header(name) {
            Some(Header::Macros(defs)) => {
                for def in defs {
                    self.builtin_define(def);
                }
            }
            Some(Header::Source { path, text }) => {
                self.read_included(source_header(path, text), FoundIn::NoSearch, None, out)
            }
            Some(Header::Library { library, warns }) => {
                self.library_included(None, library, warns, out)
            }
            Some(Header::Unsupported(what)) => {
                let msg = format!("`-include {name}` is not supported by kernelc");
                let d = Diagnostic::unlocated(Code::E0002, msg);
                self.diags
                    .push(d.with_note(format!("kernelc does not provide {what}")));
            }
            None => {
                let msg = format!("cannot find `{name}`, which `-include` names");
                self.diags.push(Diagnostic::unlocated(Code::E0016, msg));
            }
        }
    }

    /// A header of the template library `library` included at `at`: the
    /// first include reads kernelc's header of its device part, if it has
    /// one; the first that `warns` warns (W0009) that the kernels the
    /// library instantiates for host code are not compiled.
    fn library_included(
        &mut self,
        at: Option<Span>,
        library: &'static Library,
        warns: bool,
        out: &mut Vec<Token>,
    ) {
        let known = self
            .libraries
            .iter()
            .position(|l| std::ptr::eq(l.library, library));
        let k = known.unwrap_or_else(|| {
            self.libraries.push(LibraryInclude {
                library,
                at,
                warned: false,
            });
            self.libraries.len() - 1
        });
        if warns && !self.libraries[k].warned {
            self.libraries[k].warned = true;
            self.diags.push(library_warning(at, library));
        }
        if let (None, Some(part)) = (known, &library.device) {
            let header = source_header(part.path, part.text);
            self.read_included(header, FoundIn::NoSearch, at, out);
        }
    }

    /// `__has_include(...)` (or `__has_include_next`, `next`) at `rest[k]`:
    /// whether the file is found, and the index after the `)`.
    fn has_include(&mut self, rest: &[Token], k: usize, next: bool) -> Option<(bool, usize)> {
        if !rest.get(k + 1).is_some_and(|t| is_punct(t, Punct::LParen)) {
            return None;
        }
        let close = (k + 2..rest.len()).find(|&j| is_punct(&rest[j], Punct::RParen))?;
        let (name, angled) = self.header_name(&rest[k + 2..close])?;
        let req = Request {
            name: &name,
            angled,
            next,
        };
        // A header kernelc declines is not there: code that asks can take
        // its other path.
        let there = matches!(
            self.find(req),
            Found::File(..)
                | Found::Header(Header::Macros(_) | Header::Source { .. })
                | Found::System
        );
        Some((there, close + 1))
    }

    fn define(&mut self, rest: &[Token], whole: Span) {
        let Some(name) = rest.first() else {
            self.error(whole, Code::E0010, "macro name missing after `#define`");
            return;
        };
        if !is_name(name) {
            self.error(name.span, Code::E0010, "macro name must be an identifier");
            return;
        }
        let mut body_start = 1;
        let mut params = None;
        let mut variadic = false;
        if let Some(next) = rest.get(1) {
            if is_punct(next, Punct::LParen) && next.span.start == name.span.end {
                // Function-like: `NAME(a, b)` with no space before `(`.
                let mut ps = Vec::new();
                let mut k = 2;
                let mut ok = false;
                while let Some(t) = rest.get(k) {
                    k += 1;
                    if is_punct(t, Punct::RParen) {
                        ok = true;
                        break;
                    }
                    if is_punct(t, Punct::Ellipsis) {
                        // `...` ends the list; its arguments are `__VA_ARGS__`.
                        if !rest.get(k).is_some_and(|c| is_punct(c, Punct::RParen)) {
                            self.error(
                                t.span,
                                Code::E0010,
                                "`...` must be the last macro parameter",
                            );
                            return;
                        }
                        ps.push("__VA_ARGS__".to_string());
                        variadic = true;
                        k += 1;
                        ok = true;
                        break;
                    }
                    if !is_name(t) || ps.iter().any(|p| *p == t.text) || t.text == "__VA_ARGS__" {
                        self.error(t.span, Code::E0010, "invalid macro parameter");
                        return;
                    }
                    ps.push(t.text.to_string());
                    match rest.get(k) {
                        Some(c) if is_punct(c, Punct::Comma) => k += 1,
                        Some(c) if is_punct(c, Punct::RParen) => {}
                        Some(c) if is_punct(c, Punct::Ellipsis) => {
                            self.error(
                                c.span,
                                Code::E0002,
                                "named variadic macro parameters (`args...`) are not supported by kernelc; use `...` and `__VA_ARGS__`",
                            );
                            return;
                        }
                        _ => {
                            self.error(
                                whole,
                                Code::E0010,
                                "expected `,` or `)` in macro parameter list",
                            );
                            return;
                        }
                    }
                }
                if !ok {
                    self.error(whole, Code::E0010, "unterminated macro parameter list");
                    return;
                }
                body_start = k;
                params = Some(ps);
            }
        }
        let body = rest.get(body_start..).unwrap_or(&[]);
        if let Some(ps) = &params {
            // C 6.10.3.2-3: `#` must name a parameter, and `##` needs an
            // operand on both sides.
            for (k, t) in body.iter().enumerate() {
                let names_param = body
                    .get(k + 1)
                    .is_some_and(|n| is_name(n) && ps.iter().any(|p| *p == n.text));
                if is_punct(t, Punct::Hash) && !names_param {
                    self.error(
                        t.span,
                        Code::E0010,
                        "`#` in a function-like macro must be followed by a parameter name",
                    );
                    return;
                }
            }
        }
        if let Some(t) = [body.first(), body.last()]
            .into_iter()
            .flatten()
            .find(|t| is_punct(t, Punct::HashHash))
        {
            self.error(
                t.span,
                Code::E0010,
                "`##` cannot be at either end of a macro body",
            );
            return;
        }
        if let Some(t) = body.iter().find(|t| t.text == "__VA_OPT__") {
            self.error(
                t.span,
                Code::E0002,
                "`__VA_OPT__` is not supported by kernelc; use GNU's `, ## __VA_ARGS__`",
            );
            return;
        }
        if !variadic {
            if let Some(t) = body.iter().find(|t| t.text == "__VA_ARGS__") {
                self.error(
                    t.span,
                    Code::E0010,
                    "`__VA_ARGS__` can only appear in the body of a variadic macro",
                );
                return;
            }
        }
        self.macros.insert(
            name.text.to_string(),
            Macro {
                params,
                variadic,
                body: body.to_vec(),
            },
        );
    }

    /// Evaluates the condition of `#if`/`#ifdef`/`#ifndef`/`#elif`.
    fn condition(&mut self, kind: &str, rest: &[Token], whole: Span) -> bool {
        if kind == "ifdef" || kind == "ifndef" {
            let Some(name) = rest.first().filter(|t| is_name(t)) else {
                self.error(
                    whole,
                    Code::E0010,
                    format!("macro name missing after `#{kind}`"),
                );
                return false;
            };
            let defined =
                self.macros.contains_key(name.text.as_str()) || is_has_include(&name.text);
            return defined == (kind == "ifdef");
        }
        // `defined X` / `defined(X)` first, before expansion.
        let mut replaced = Vec::new();
        let mut k = 0;
        while k < rest.len() {
            let t = &rest[k];
            if t.text == "defined" && is_name(t) {
                let (name, next) = match rest.get(k + 1) {
                    Some(p) if is_punct(p, Punct::LParen) => {
                        match (rest.get(k + 2), rest.get(k + 3)) {
                            (Some(n), Some(c)) if is_name(n) && is_punct(c, Punct::RParen) => {
                                (n, k + 4)
                            }
                            _ => {
                                self.error(t.span, Code::E0010, "expected `defined(NAME)`");
                                return false;
                            }
                        }
                    }
                    Some(n) if is_name(n) => (n, k + 2),
                    _ => {
                        self.error(t.span, Code::E0010, "expected a macro name after `defined`");
                        return false;
                    }
                };
                let v = u64::from(
                    self.macros.contains_key(name.text.as_str()) || is_has_include(&name.text),
                );
                replaced.push(synth(
                    TokenKind::Int {
                        value: v,
                        ty: crate::types::CType::INT,
                    },
                    if v == 1 { "1" } else { "0" },
                    t.span,
                ));
                k = next;
                continue;
            }
            if is_has_include(&t.text) && is_name(t) {
                let Some((there, next)) = self.has_include(rest, k, t.text.ends_with("next"))
                else {
                    let msg = format!("expected `{}(\"FILE\")` or `{0}(<FILE>)`", t.text);
                    self.error(t.span, Code::E0010, msg);
                    return false;
                };
                replaced.push(synth(
                    TokenKind::Int {
                        value: u64::from(there),
                        ty: crate::types::CType::INT,
                    },
                    if there { "1" } else { "0" },
                    t.span,
                ));
                k = next;
                continue;
            }
            replaced.push(t.clone());
            k += 1;
        }
        let mut expanded = Vec::new();
        self.expand_seq(&replaced, None, &mut Vec::new(), &mut expanded);
        if expanded.is_empty() {
            self.error(whole, Code::E0010, format!("`#{kind}` with no expression"));
            return false;
        }
        let mut ev = CondEval {
            toks: &expanded,
            pos: 0,
            error: None,
            nesting_limit: self.nesting_limit,
        };
        let v = ev.ternary(0);
        if ev.error.is_none() && ev.pos < expanded.len() {
            ev.error = Some(Diagnostic::error(
                expanded[ev.pos].span,
                Code::E0010,
                "unexpected token in `#if` expression",
            ));
        }
        match ev.error {
            Some(d) => {
                self.diags.push(d);
                false
            }
            None => v != 0,
        }
    }
}

/// Evaluates a `#if` expression over expanded tokens, in `i128` (wide enough
/// for every `intmax_t`/`uintmax_t` value). Identifiers left after expansion
/// are 0, as C says.
struct CondEval<'t> {
    toks: &'t [Token],
    pos: usize,
    /// The first error met; the evaluation then only unwinds.
    error: Option<Diagnostic>,
    /// [`Options::nesting_limit`].
    nesting_limit: usize,
}

impl CondEval<'_> {
    fn peek_punct(&self) -> Option<Punct> {
        match self.toks.get(self.pos)?.kind {
            TokenKind::Punct(p) => Some(p),
            _ => None,
        }
    }

    fn fail(&mut self, code: Code, msg: &str) -> i128 {
        self.fail_with(Diagnostic::error(self.here(), code, msg))
    }

    /// The span of the current token (or the last one, at the end).
    fn here(&self) -> Span {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(Span::default(), |t| t.span)
    }

    /// Records `d` unless an error is already recorded (the first one is the
    /// cause; the rest of the evaluation only unwinds), and yields 0.
    fn fail_with(&mut self, d: Diagnostic) -> i128 {
        if self.error.is_none() {
            self.error = Some(d);
        }
        0
    }

    /// The nesting limit is passed: E0014, as in the parser.
    fn fail_too_deep(&mut self) -> i128 {
        let limit = self.nesting_limit;
        let msg = format!("nesting is too deep: more than {limit} levels in an `#if` expression");
        self.fail_with(Diagnostic::error(self.here(), Code::E0014, msg))
    }

    /// `c ? a : b`. Each nesting level (parentheses, unary operators, the
    /// arms of `?:`) runs on a stack that grows as it goes (`stdx::stack`),
    /// up to the parser's limit; a chain of binary operators is a loop.
    fn ternary(&mut self, depth: usize) -> i128 {
        stdx::stack::with_stack(|| self.ternary_level(depth))
    }

    fn ternary_level(&mut self, depth: usize) -> i128 {
        if depth > self.nesting_limit {
            return self.fail_too_deep();
        }
        let c = self.binary(1, depth);
        if self.peek_punct() != Some(Punct::Question) {
            return c;
        }
        self.pos += 1;
        let a = self.ternary(depth + 1);
        if self.peek_punct() != Some(Punct::Colon) {
            return self.fail(Code::E0010, "expected `:` in `#if` expression");
        }
        self.pos += 1;
        let b = self.ternary(depth + 1);
        if c != 0 {
            a
        } else {
            b
        }
    }

    fn binary(&mut self, min: u8, depth: usize) -> i128 {
        let mut l = self.unary(depth);
        while let Some(p) = self.peek_punct() {
            let prec = match p {
                Punct::OrOr => 1,
                Punct::AndAnd => 2,
                Punct::Pipe => 3,
                Punct::Caret => 4,
                Punct::Amp => 5,
                Punct::EqEq | Punct::Ne => 6,
                Punct::Lt | Punct::Le | Punct::Gt | Punct::Ge => 7,
                Punct::Shl | Punct::Shr => 8,
                Punct::Plus | Punct::Minus => 9,
                Punct::Star | Punct::Slash | Punct::Percent => 10,
                _ => break,
            };
            if prec < min {
                break;
            }
            self.pos += 1;
            let r = self.binary(prec + 1, depth);
            l = match p {
                Punct::OrOr => i128::from(l != 0 || r != 0),
                Punct::AndAnd => i128::from(l != 0 && r != 0),
                Punct::Pipe => l | r,
                Punct::Caret => l ^ r,
                Punct::Amp => l & r,
                Punct::EqEq => i128::from(l == r),
                Punct::Ne => i128::from(l != r),
                Punct::Lt => i128::from(l < r),
                Punct::Le => i128::from(l <= r),
                Punct::Gt => i128::from(l > r),
                Punct::Ge => i128::from(l >= r),
                Punct::Shl => l.checked_shl(r.clamp(0, 127) as u32).unwrap_or(0),
                Punct::Shr => l >> r.clamp(0, 127),
                Punct::Plus => l.wrapping_add(r),
                Punct::Minus => l.wrapping_sub(r),
                Punct::Star => l.wrapping_mul(r),
                _ if r == 0 => {
                    return self.fail(Code::E0010, "division by zero in `#if` expression")
                }
                Punct::Slash => l.wrapping_div(r),
                _ => l.wrapping_rem(r),
            };
        }
        l
    }

    fn unary(&mut self, depth: usize) -> i128 {
        stdx::stack::with_stack(|| self.unary_level(depth))
    }

    fn unary_level(&mut self, depth: usize) -> i128 {
        if depth > self.nesting_limit {
            return self.fail_too_deep();
        }
        let Some(t) = self.toks.get(self.pos) else {
            return self.fail(Code::E0010, "`#if` expression ends early");
        };
        self.pos += 1;
        match &t.kind {
            TokenKind::Int { value, .. } => i128::from(*value),
            TokenKind::Char(v) => i128::from(*v),
            TokenKind::Keyword(Keyword::True) => 1,
            TokenKind::Ident | TokenKind::Keyword(_) => 0,
            TokenKind::Punct(Punct::LParen) => {
                let v = self.ternary(depth + 1);
                if self.peek_punct() != Some(Punct::RParen) {
                    return self.fail(Code::E0010, "expected `)` in `#if` expression");
                }
                self.pos += 1;
                v
            }
            TokenKind::Punct(Punct::Minus) => self.unary(depth + 1).wrapping_neg(),
            TokenKind::Punct(Punct::Plus) => self.unary(depth + 1),
            TokenKind::Punct(Punct::Bang) => i128::from(self.unary(depth + 1) == 0),
            TokenKind::Punct(Punct::Tilde) => !self.unary(depth + 1),
            _ => {
                self.pos -= 1;
                self.fail(Code::E0010, "invalid token in `#if` expression")
            }
        }
    }
}

/// Whether `name` can be defined with `-D NAME[=VALUE]`: an identifier (a
/// letter or `_`, then letters, digits and `_`). The one rule for the
/// command line (which checks before reading any source) and for
/// [`Options::defines`](crate::Options::defines) given by a library user.
pub fn check_define_name(name: &str) -> Result<(), String> {
    let starts_well = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if starts_well && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a macro name (a letter or `_`, then letters, digits and `_`)"
        ))
    }
}
