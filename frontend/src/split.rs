//! The device/host split: which top-level declarations of a `.cu` file are
//! device code, compiled, and which are host code, skipped.
//!
//! A real `.cu` file holds both: kernels and `__device__` functions next to
//! `main`, launches (`k<<<g, b>>>(...)`), STL containers, classes with
//! virtual functions, lambdas, exceptions. nvcc's front end parses all of it
//! as C++ and then splits the program in two; kernelc compiles only the
//! device side, so it splits first, between preprocessing and parsing, and
//! never parses host code at all. That is what lets host code use any C++
//! nvcc accepts without kernelc reporting an error in it.
//!
//! The phase works on preprocessed tokens, in three linear steps:
//!
//! 1. **Segment** the tokens into top-level declarations by bracket
//!    structure alone ([`segment`]): a declaration ends at a `;` outside
//!    brackets, or at the `}` closing a function body. `extern "C" { }` and
//!    `namespace N { }` are containers whose contents are segmented in turn.
//! 2. **Classify** each declaration ([`Decl::new`]): device code (a
//!    `__global__`, `__device__`, `__constant__`, `__shared__` or
//!    `__managed__` among its specifiers: kernels, device and
//!    `__host__ __device__` functions, device variables), a type (`struct`,
//!    `class`, `union`, `enum`, `typedef`, `using X = ...`), a host function
//!    or a host variable; and find the names it declares.
//! 3. **Keep** the device declarations, a top-level `static_assert` that
//!    reads no constant or `constexpr` function device code leaves to the
//!    host, and
//!    what they reach through the names they use: types, and constants
//!    (`const`/`constexpr` variables, which device code may read), each
//!    kept declaration's names reaching further ([`Splitter::keep_reachable`]).
//!    Host functions and host variables are never kept; they are listed
//!    ([`HostDecl`]) so that the checker can say, when device code names
//!    one, what it is and where it was declared (E0017).
//!
//! Each token is visited a bounded number of times in each step, so the
//! phase is linear in the file's size. Name lookup here is deliberately
//! coarse (a name reaches every declaration of that name, scopes ignored):
//! keeping a type device code does not use costs nothing but its checking,
//! while the checker, which knows scopes, decides every real use.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::{HostDecl, HostKind};
use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
pub(crate) use crate::host_uses::TemplateUse;
use crate::token::{Keyword, Punct, Token, TokenKind};
use crate::unnamed_namespace::Defines;
pub(crate) use crate::unnamed_namespace::ExternalDefinition;

/// What the split gives the parser and the checker.
pub(crate) struct Split {
    /// The tokens of the kept declarations, in source order, inside their
    /// `extern "C"` and namespace containers.
    pub device: Vec<Token>,
    /// The host functions and variables that were skipped.
    pub host: Vec<HostDecl>,
    /// Errors in skipped code that nvcc would report too (a body that is
    /// never closed).
    pub errors: Vec<Diagnostic>,
    /// The source range of each kept declaration, in order.
    kept: Vec<Span>,
    /// The kernel template instantiations host code asks for
    /// (`crate::host_uses`).
    pub template_uses: Vec<TemplateUse>,
    /// The lambdas of host code (`crate::host_lambdas`).
    pub host_lambdas: crate::host_lambdas::HostLambdas,
    /// The host function templates' declarations, by name
    /// (`crate::host_uses::HostUses`).
    pub host_templates: FxHashMap<String, Vec<std::sync::Arc<[Token]>>>,
    /// The first definition of a function or variable with external
    /// linkage, device or host code, outside kernelc's own headers: nvcc
    /// names the file's anonymous namespace after it
    /// (`crate::unnamed_namespace`).
    pub first_definition: Option<ExternalDefinition>,
    /// The declarators `[[maybe_unused]]` marks
    /// (`crate::std_attributes::maybe_unused`), filled after the split.
    pub maybe_unused: Vec<Span>,
}

impl Split {
    /// Whether `span` starts inside device code (a kept declaration).
    pub fn in_device_code(&self, span: Span) -> bool {
        let at = self.kept.partition_point(|k| k.end < span.start);
        self.kept.get(at).is_some_and(|k| k.start <= span.start)
    }
}

/// Splits preprocessed tokens; `builtin` says which come from kernelc's
/// own headers.
pub(crate) fn split(tokens: &[Token], builtin: &dyn Fn(Span) -> bool) -> Split {
    let mut errors = Vec::new();
    let nodes = segment(tokens, &mut 0, false, &mut errors);
    let mut splitter = Splitter {
        tokens,
        decls: Vec::new(),
        by_name: FxHashMap::default(),
        kept: Vec::new(),
    };
    splitter.index(&nodes);
    splitter.keep_reachable();
    let crate::host_uses::HostUses {
        uses: template_uses,
        templates: host_templates,
    } = splitter.template_uses(&nodes);
    splitter.keep_launch_types(&template_uses, &host_templates);
    splitter.keep_assertions();
    let host_lambdas = splitter.host_lambdas(&nodes);
    let mut device = Vec::new();
    splitter.emit(&nodes, &mut device);
    let host = splitter.host_decls();
    let first_definition = splitter.first_definition(
        &nodes,
        &mut Vec::new(),
        false,
        &mut 0,
        builtin,
        &mut Vec::new(),
    );
    let split = Split {
        device,
        host,
        errors: Vec::new(),
        kept: splitter.kept_spans(),
        template_uses,
        host_lambdas,
        host_templates,
        first_definition,
        maybe_unused: Vec::new(),
    };
    // Unclosed bodies in kept code are the parser's to report.
    errors.retain(|e: &Diagnostic| !split.in_device_code(e.span));
    Split { errors, ..split }
}

/// A top-level declaration, or a container of them.
enum Node {
    /// Token indices `start..end`.
    Decl(usize, usize),
    /// `extern "C" {` or `namespace N {`: the header tokens `head`
    /// (the `{` included), the contents, and the closing `}` if present.
    Container {
        head: (usize, usize),
        body: Vec<Node>,
        close: Option<usize>,
    },
}

impl Drop for Node {
    /// Drops a container's contents a level at a time: containers nest as
    /// deep as the source does.
    fn drop(&mut self) {
        if let Node::Container { body, .. } = self {
            let body = std::mem::take(body);
            stdx::stack::with_stack(|| drop(body));
        }
    }
}

fn is_punct(t: &Token, p: Punct) -> bool {
    t.kind == TokenKind::Punct(p)
}

fn is_kw(t: &Token, k: Keyword) -> bool {
    t.kind == TokenKind::Keyword(k)
}

/// Where a container starts at `i`: the index of its `{`.
fn container_brace(tokens: &[Token], i: usize) -> Option<usize> {
    let t = |n: usize| tokens.get(i + n);
    if t(0).is_some_and(|t| is_kw(t, Keyword::Extern))
        && t(1).is_some_and(|t| matches!(&t.kind, TokenKind::Str(_)))
        && t(2).is_some_and(|t| is_punct(t, Punct::LBrace))
    {
        return Some(i + 2);
    }
    // `namespace {`, `namespace a::b {`, `inline namespace v1 {`; not an
    // alias (`namespace cg = cooperative_groups;`).
    let start = if t(0).is_some_and(|t| is_kw(t, Keyword::Inline)) {
        i + 1
    } else {
        i
    };
    if !tokens
        .get(start)
        .is_some_and(|t| is_kw(t, Keyword::Namespace))
    {
        return None;
    }
    let mut j = start + 1;
    while let Some(t) = tokens.get(j) {
        match &t.kind {
            TokenKind::Ident | TokenKind::Punct(Punct::ColonColon) => j += 1,
            TokenKind::Punct(Punct::LBrace) => return Some(j),
            _ => return None,
        }
    }
    None
}

/// The namespace path a container's head opens (`namespace a::b {`,
/// `inline namespace v1 {`, `namespace {`); none for `extern "C" {`.
fn namespace_path(head: &[Token]) -> Vec<String> {
    let Some(at) = head.iter().position(|t| is_kw(t, Keyword::Namespace)) else {
        return Vec::new();
    };
    let names: Vec<String> = head[at + 1..]
        .iter()
        .filter(|t| t.kind == TokenKind::Ident)
        .map(|t| t.text.to_string())
        .collect();
    if names.is_empty() {
        return vec![crate::parser::ANONYMOUS.to_string()];
    }
    names
}

/// Segments `tokens` from `*pos` into declarations and containers, up to
/// the end or (`in_container`) the `}` that closes the container.
fn segment(
    tokens: &[Token],
    pos: &mut usize,
    in_container: bool,
    errors: &mut Vec<Diagnostic>,
) -> Vec<Node> {
    let mut nodes = Vec::new();
    while *pos < tokens.len() {
        let i = *pos;
        if in_container && is_punct(&tokens[i], Punct::RBrace) {
            return nodes;
        }
        if let Some(brace) = container_brace(tokens, i) {
            *pos = brace + 1;
            // Containers nest as deep as the source does; each level holds
            // at least two tokens, so this recursion is bounded by the
            // nesting limit the parser enforces on what it keeps.
            let body = stdx::stack::with_stack(|| segment(tokens, pos, true, errors));
            let close = (*pos < tokens.len()).then_some(*pos);
            match close {
                Some(_) => *pos += 1,
                None => errors.push(unclosed(&tokens[brace])),
            }
            nodes.push(Node::Container {
                head: (i, brace + 1),
                body,
                close,
            });
            continue;
        }
        let end = declaration_end(tokens, i, errors);
        nodes.push(Node::Decl(i, end));
        *pos = end;
    }
    nodes
}

/// How many declarations `nodes` hold, in containers too.
fn declarations_in(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Decl(..) => 1,
            Node::Container { body, .. } => stdx::stack::with_stack(|| declarations_in(body)),
        })
        .sum()
}

/// The error for a `{` never closed.
fn unclosed(open: &Token) -> Diagnostic {
    Diagnostic::error(open.span, Code::E0003, "this `{` is never closed")
        .with_note("the declaration it opens runs to the end of the file")
}

/// Identifiers and keywords whose parenthesis is not a declarator's:
/// attributes and specifiers that take arguments.
fn is_attribute_word(t: &Token) -> bool {
    match &t.kind {
        TokenKind::Keyword(k) => matches!(
            k,
            Keyword::LaunchBounds
                | Keyword::ClusterDims
                | Keyword::Decltype
                | Keyword::Sizeof
                | Keyword::Throw
                | Keyword::Asm
                | Keyword::Asm2
        ),
        TokenKind::Ident => matches!(
            t.text.as_str(),
            "__attribute__"
                | "__declspec"
                | "alignas"
                | "__align__"
                | "__maxnreg__"
                | "noexcept"
                | "__launch_bounds"
        ),
        _ => false,
    }
}

/// Past the `template <...>` headers the declaration at `start` begins
/// with (`start` when it has none): angle brackets counted outside
/// parentheses, `>>` as two.
fn template_headers_end(tokens: &[Token], start: usize) -> usize {
    let mut i = start;
    while tokens.get(i).is_some_and(|t| is_kw(t, Keyword::Template))
        && tokens.get(i + 1).is_some_and(|t| is_punct(t, Punct::Lt))
    {
        let mut angles = 0usize;
        let mut parens = 0usize;
        i += 1;
        while let Some(t) = tokens.get(i) {
            match t.kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket) => parens += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => {
                    parens = parens.saturating_sub(1)
                }
                TokenKind::Punct(Punct::Lt) if parens == 0 => angles += 1,
                TokenKind::Punct(Punct::Gt) if parens == 0 => angles = angles.saturating_sub(1),
                TokenKind::Punct(Punct::Shr) if parens == 0 => angles = angles.saturating_sub(2),
                // A header is never longer than its declaration.
                TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) => return start,
                _ => {}
            }
            i += 1;
            if angles == 0 {
                break;
            }
        }
    }
    i
}

/// The end (exclusive) of the declaration starting at `start`: after the
/// `;` that ends it outside brackets, or after the `}` closing its
/// function body.
///
/// A `{` opens a function body when a declarator's `(` came before it and
/// no `=` did (`int a[] = {1}` and `auto f = [] { };` are initializers,
/// `struct S { ... };` a class body), except inside a constructor's
/// member-initializer list (`: a(x), b{y} {`), where a brace right after
/// a name is that member's initializer.
fn declaration_end(tokens: &[Token], start: usize, errors: &mut Vec<Diagnostic>) -> usize {
    // A template's parameter list may hold `=` (default arguments), which
    // must not read as an initializer.
    let start = template_headers_end(tokens, start);
    let mut depth = 0usize;
    let mut declarator_paren = false;
    let mut assigned = false;
    let mut member_inits = false;
    let mut body_open: Option<usize> = None;
    let mut opens: Vec<usize> = Vec::new();
    for i in start..tokens.len() {
        let t = &tokens[i];
        let prev = i.checked_sub(1).filter(|&p| p >= start).map(|p| &tokens[p]);
        let TokenKind::Punct(p) = t.kind else {
            continue;
        };
        match p {
            Punct::LParen | Punct::LBracket | Punct::LBrace => {
                if depth == 0 && p == Punct::LParen && !prev.is_some_and(is_attribute_word) {
                    declarator_paren |= !assigned;
                }
                if depth == 0 && p == Punct::LBrace {
                    let names_member =
                        prev.is_some_and(|t| t.kind == TokenKind::Ident || is_punct(t, Punct::Gt));
                    if declarator_paren && !assigned && !(member_inits && names_member) {
                        body_open = Some(i);
                    }
                }
                depth += 1;
                opens.push(i);
            }
            Punct::RParen | Punct::RBracket | Punct::RBrace => {
                // A stray closer at the top level is a declaration of its own.
                if depth == 0 {
                    return i + 1;
                }
                depth -= 1;
                let open = opens.pop();
                if depth == 0 && p == Punct::RBrace && body_open.is_some() && open == body_open {
                    return i + 1;
                }
            }
            Punct::Semi if depth == 0 => return i + 1,
            // `operator=` names a function; it assigns nothing.
            Punct::Assign if depth == 0 && !prev.is_some_and(|t| is_kw(t, Keyword::Operator)) => {
                assigned = true;
            }
            Punct::Colon if depth == 0 && declarator_paren => member_inits = true,
            _ => {}
        }
    }
    if let Some(&open) = opens.first() {
        errors.push(unclosed(&tokens[open]));
    }
    tokens.len()
}

/// What a declaration is, for the split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Device code: always kept.
    Device,
    /// A `static_assert`: checked on both sides, so kept, unless it reads
    /// a file-scope constant device code does not (see
    /// [`Splitter::keep_assertions`]).
    Assertion,
    /// A type: kept when used.
    Shared,
    /// A `const`/`constexpr` variable, which device code may read: kept
    /// when used.
    Constant,
    /// A `constexpr` function without `__device__`: kept when kept code
    /// names it, as a type is. File-scope constant expressions may call it,
    /// and device code under `--expt-relaxed-constexpr`; the checker
    /// reports other calls from device code (E0017), as nvcc does.
    HostConstexpr,
    /// Host code: never kept.
    Host(HostKind),
}

/// One classified top-level declaration.
struct Decl {
    start: usize,
    end: usize,
    role: Role,
    /// The names it declares, with their token index.
    names: Vec<usize>,
}

/// The end of a declaration's head (its specifiers and declarator name):
/// the index of its first `{` or `=` (a body, a class body or an
/// initializer; `operator=` is a name), or `end` when it has neither.
fn head_end(tokens: &[Token], start: usize, end: usize) -> usize {
    (template_headers_end(tokens, start).min(end)..end)
        .find(|&i| {
            is_punct(&tokens[i], Punct::LBrace)
                || is_punct(&tokens[i], Punct::Assign)
                    && !(i > start && is_kw(&tokens[i - 1], Keyword::Operator))
        })
        .unwrap_or(end)
}

impl Role {
    /// Whether a declaration with this role is kept once device code names
    /// it.
    fn kept_when_used(self) -> bool {
        matches!(self, Role::Shared | Role::Constant | Role::HostConstexpr)
    }
}

impl Decl {
    fn new(tokens: &[Token], start: usize, end: usize) -> Decl {
        let head = head_end(tokens, start, end);
        // Specifiers stand outside every bracket; so does a `__global__`
        // after a class body whose `;` is missing, which keeps the error
        // for the parser to report.
        let depth0 = depth0_indices(tokens, start, end);
        let has_kw = |k: Keyword| depth0.iter().any(|&i| is_kw(&tokens[i], k));
        let first = tokens.get(start);
        // A closer with no opener is kept for the parser to report.
        let stray = end == start + 1
            && first.is_some_and(|t| {
                matches!(
                    t.kind,
                    TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace)
                )
            });
        let declares_type = first.is_some_and(|t| {
            is_kw(t, Keyword::Typedef)
                || is_kw(t, Keyword::Using)
                || is_kw(t, Keyword::Template) && has_kw(Keyword::Using)
        }) || class_key_first(tokens, start, head);
        let device = [
            Keyword::Global,
            Keyword::Device,
            Keyword::Constant,
            Keyword::Shared,
            Keyword::Managed,
        ]
        .into_iter()
        .any(has_kw)
            || stray;
        let function = declarator_name(tokens, start, head).is_some();
        let role = if first.is_some_and(|t| is_kw(t, Keyword::StaticAssert))
            || is_scope_directive(tokens, start)
        {
            Role::Assertion
        } else if device {
            Role::Device
        } else if declares_type {
            Role::Shared
        } else if function && has_kw(Keyword::Constexpr) {
            Role::HostConstexpr
        } else if function {
            Role::Host(HostKind::Function)
        } else if has_kw(Keyword::Constexpr) || is_const_object(tokens, start, head) {
            Role::Constant
        } else {
            Role::Host(HostKind::Variable)
        };
        let names = declared_names(tokens, start, end, head, role, function);
        Decl {
            start,
            end,
            role,
            names,
        }
    }
}

/// Whether the declaration at `start` is a using-directive
/// (`using namespace N;`) or a namespace alias (`namespace cg = ...;`):
/// they change how names in the device code after them are found, and
/// declare nothing a use could reach, so they are kept like a
/// `static_assert`.
fn is_scope_directive(tokens: &[Token], start: usize) -> bool {
    let kw = |n: usize, k: Keyword| tokens.get(start + n).is_some_and(|t| is_kw(t, k));
    (kw(0, Keyword::Using) && kw(1, Keyword::Namespace)) || kw(0, Keyword::Namespace)
}

/// The token indices at bracket depth 0 in `start..end`: the brackets
/// opened there and closed back to it included, their contents not.
fn depth0_indices(tokens: &[Token], start: usize, end: usize) -> Vec<usize> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate().take(end).skip(start) {
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                if depth == 0 {
                    out.push(i);
                }
                depth += 1;
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push(i);
                }
            }
            _ if depth == 0 => out.push(i),
            _ => {}
        }
    }
    out
}

/// Whether the declaration is a class-key declaration (`struct S {...};`,
/// `template <class T> class C;`, `enum class E : int {...};`), not a
/// function or variable whose type is spelled with `struct`.
fn class_key_first(tokens: &[Token], start: usize, head: usize) -> bool {
    let mut i = start;
    // Skip `template < ... >` (angle brackets balanced by count).
    if tokens.get(i).is_some_and(|t| is_kw(t, Keyword::Template)) {
        let mut angles = 0i32;
        i += 1;
        while i < head {
            match tokens[i].kind {
                TokenKind::Punct(Punct::Lt) => angles += 1,
                TokenKind::Punct(Punct::Gt) => angles -= 1,
                TokenKind::Punct(Punct::Shr) => angles -= 2,
                _ => {}
            }
            i += 1;
            if angles <= 0 {
                break;
            }
        }
    }
    let class_key = tokens.get(i).is_some_and(|t| {
        [
            Keyword::Struct,
            Keyword::Class,
            Keyword::Union,
            Keyword::Enum,
        ]
        .into_iter()
        .any(|k| is_kw(t, k))
    });
    class_key && declarator_name(tokens, start, head).is_none()
}

/// The name of the function a declaration declares, if it declares one: the
/// identifier before the first declarator `(` at bracket depth 0 (not an
/// attribute's), unless an `=` comes first. `None` for variables.
fn declarator_name(tokens: &[Token], start: usize, head: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in template_headers_end(tokens, start).min(head)..head {
        match tokens[i].kind {
            TokenKind::Punct(Punct::LParen) if depth == 0 => {
                let mut prev = i.checked_sub(1).filter(|&p| p >= start)?;
                // `run<float>(...)`: an explicit instantiation or
                // specialization names the function with its arguments.
                if is_punct(&tokens[prev], Punct::Gt) {
                    prev = template_id_name(tokens, start, prev)?;
                }
                let p = &tokens[prev];
                if is_attribute_word(p) {
                    depth += 1;
                    continue;
                }
                // `T (*fp)(int)` declares a pointer variable, not a function.
                let pointer_declarator = tokens
                    .get(i + 1)
                    .is_some_and(|t| is_punct(t, Punct::Star) || is_punct(t, Punct::Amp));
                return (p.kind == TokenKind::Ident && !pointer_declarator).then_some(prev);
            }
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Assign | Punct::Semi) if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The name before the template argument list that closes at `close`
/// (`run` of `run<float, 4>`), with its `<` no earlier than `start`.
fn template_id_name(tokens: &[Token], start: usize, close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for i in (start..=close).rev() {
        match tokens[i].kind {
            TokenKind::Punct(Punct::Gt) => depth += 1,
            TokenKind::Punct(Punct::Shr) => depth += 2,
            TokenKind::Punct(Punct::Lt) => {
                depth -= 1;
                if depth == 0 {
                    let name = i.checked_sub(1).filter(|&n| n >= start)?;
                    return (tokens[name].kind == TokenKind::Ident).then_some(name);
                }
            }
            TokenKind::Punct(Punct::Semi | Punct::LBrace | Punct::RBrace) => return None,
            _ => {}
        }
    }
    None
}

/// Whether a variable declaration declares a `const` object (`const int N =
/// 4;`, `int const N`, `float *const p`), which device code may read when
/// its value is a constant; not a pointer to `const` (`const char *s`).
fn is_const_object(tokens: &[Token], start: usize, head: usize) -> bool {
    let mut after_pointer = false;
    let mut is_const = false;
    for t in &tokens[start..head] {
        match &t.kind {
            TokenKind::Punct(Punct::Star | Punct::Amp | Punct::AndAnd) => {
                after_pointer = true;
                is_const = false;
            }
            TokenKind::Keyword(Keyword::Const) => is_const = true,
            _ => {}
        }
    }
    is_const && (after_pointer || !tokens[start..head].iter().any(|t| is_punct(t, Punct::Star)))
}

/// The token indices of the names a declaration declares.
fn declared_names(
    tokens: &[Token],
    start: usize,
    end: usize,
    head: usize,
    role: Role,
    function: bool,
) -> Vec<usize> {
    let ident = |i: usize| tokens.get(i).is_some_and(|t| t.kind == TokenKind::Ident);
    let mut names = Vec::new();
    if function {
        names.extend(declarator_name(tokens, start, head).filter(|&i| {
            // `A::f(` defines a member of a class or namespace, not `f`.
            !(i > start && is_punct(&tokens[i - 1], Punct::ColonColon))
        }));
        return names;
    }
    if let Some(alias) = alias_name(tokens, start) {
        names.push(alias);
        return names;
    }
    let depth0 = depth0_indices(tokens, start, end);
    let in_template_args = template_argument_tokens(tokens, start, head, &depth0);
    // A class-key's tag: `struct S`, `enum class E`, `union U`, also past
    // attributes (`struct alignas(16) S`, `struct __align__(8) C<float>`).
    for (k, &at) in depth0.iter().enumerate() {
        let is_key = [
            Keyword::Struct,
            Keyword::Class,
            Keyword::Union,
            Keyword::Enum,
        ]
        .into_iter()
        .any(|key| is_kw(&tokens[at], key));
        if !is_key {
            continue;
        }
        let mut next = k + 1;
        while depth0
            .get(next)
            .is_some_and(|&i| is_attribute_word(&tokens[i]))
            && depth0
                .get(next + 1)
                .is_some_and(|&i| is_punct(&tokens[i], Punct::LParen))
        {
            // The attribute, its `(` and its `)`.
            next += 3;
        }
        if let Some(&tag) = depth0.get(next).filter(|&&i| ident(i)) {
            names.push(tag);
        }
    }
    // Declarators: a name right before `;`, `,`, `=`, `[`, `{`, `:` or
    // `)` (the `(*name)` of a function pointer), and `using X =`.
    for &i in &depth0 {
        let next = tokens.get(i + 1);
        let ends_declarator = next.is_some_and(|t| {
            matches!(
                t.kind,
                TokenKind::Punct(
                    Punct::Semi
                        | Punct::Comma
                        | Punct::Assign
                        | Punct::LBracket
                        | Punct::LBrace
                        | Punct::RParen
                )
            )
        });
        if ident(i) && ends_declarator && !in_template_args.contains(&i) {
            names.push(i);
        }
    }
    // The `(*name)` of a pointer to function (or array).
    for i in start + 2..end {
        let in_pointer_parens = is_punct(&tokens[i - 1], Punct::Star)
            && is_punct(&tokens[i - 2], Punct::LParen)
            && tokens
                .get(i + 1)
                .is_some_and(|t| is_punct(t, Punct::RParen));
        if ident(i) && in_pointer_parens {
            names.push(i);
        }
    }
    // The enumerators of an enum's body: a name after its `{` or a `,`.
    let is_enum = depth0.iter().any(|&i| is_kw(&tokens[i], Keyword::Enum));
    if role == Role::Shared && is_enum {
        let mut depth = 0usize;
        for i in start..end {
            match tokens[i].kind {
                TokenKind::Punct(Punct::LBrace | Punct::LParen | Punct::LBracket) => depth += 1,
                TokenKind::Punct(Punct::RBrace | Punct::RParen | Punct::RBracket) => {
                    depth = depth.saturating_sub(1)
                }
                _ => {}
            }
            let after_separator = i > start
                && (is_punct(&tokens[i - 1], Punct::LBrace)
                    || is_punct(&tokens[i - 1], Punct::Comma));
            if depth == 1 && ident(i) && after_separator {
                names.push(i);
            }
        }
    }
    names.sort_unstable();
    names.dedup();
    names
}

/// The name an alias declaration declares (`using X = ...;`, also after
/// a template header): only `X`; the aliased type after the `=` names,
/// and never declares, what it spells (`std::tuple<Vertex, Vertex>`).
fn alias_name(tokens: &[Token], start: usize) -> Option<usize> {
    let at = template_headers_end(tokens, start);
    let is = |i: usize, p: Punct| tokens.get(i).is_some_and(|t| is_punct(t, p));
    let named = tokens
        .get(at + 1)
        .is_some_and(|t| t.kind == TokenKind::Ident);
    (tokens.get(at).is_some_and(|t| is_kw(t, Keyword::Using)) && named && is(at + 2, Punct::Assign))
        .then_some(at + 1)
}

/// The depth-0 tokens of a declaration's head that stand in a template
/// header or a template argument list (`std::map<Key, Value> table;`): a
/// name before their `,` is an argument, not a declarator. In a head (before
/// any `=` or `{`), a `<` after a name always opens an argument list.
fn template_argument_tokens(
    tokens: &[Token],
    start: usize,
    head: usize,
    depth0: &[usize],
) -> FxHashSet<usize> {
    let header_end = template_headers_end(tokens, start);
    let mut inside: FxHashSet<usize> = depth0.iter().copied().filter(|&i| i < header_end).collect();
    let mut angles = 0usize;
    for &i in depth0.iter().filter(|&&i| i >= header_end && i < head) {
        match tokens[i].kind {
            TokenKind::Punct(Punct::Lt) if i > start && tokens[i - 1].kind == TokenKind::Ident => {
                angles += 1
            }
            TokenKind::Punct(Punct::Gt) => angles = angles.saturating_sub(1),
            TokenKind::Punct(Punct::Shr) => angles = angles.saturating_sub(2),
            _ if angles > 0 => {
                inside.insert(i);
            }
            _ => {}
        }
    }
    inside
}

struct Splitter<'t> {
    tokens: &'t [Token],
    decls: Vec<Decl>,
    /// Each declared name and the declarations that declare it.
    by_name: FxHashMap<&'t str, Vec<usize>>,
    /// Per declaration, whether it is kept.
    kept: Vec<bool>,
}

impl<'t> Splitter<'t> {
    /// Classifies every declaration and indexes the names they declare.
    fn index(&mut self, nodes: &[Node]) {
        for node in nodes {
            match node {
                Node::Decl(start, end) => {
                    let decl = Decl::new(self.tokens, *start, *end);
                    let id = self.decls.len();
                    for &n in &decl.names {
                        self.by_name
                            .entry(&self.tokens[n].text)
                            .or_default()
                            .push(id);
                    }
                    self.decls.push(decl);
                }
                Node::Container { body, .. } => stdx::stack::with_stack(|| self.index(body)),
            }
        }
        self.kept = vec![false; self.decls.len()];
    }

    /// Keeps the device declarations, then every type and constant their
    /// names reach, transitively. Each declaration is scanned once, when
    /// it is kept.
    fn keep_reachable(&mut self) {
        let work: Vec<usize> = (0..self.decls.len())
            .filter(|&d| self.decls[d].role == Role::Device)
            .collect();
        self.keep_from(work);
    }

    /// Keeps the top-level `static_assert`s (and using-directives), and
    /// what they reach, once device code's reach is known: all but those
    /// that name a file-scope constant device code does not read. Such a
    /// constant is host data (`constexpr std::array<const char *, 5>
    /// kNames` that only `main` prints), of any type host C++ has, and an
    /// assertion over it is the host compilation's: keeping it would make
    /// kernelc compile host code, where it must never report an error
    /// nvcc does not. The names are looked up as coarsely as everywhere
    /// here (by spelling).
    fn keep_assertions(&mut self) {
        let assertions: Vec<usize> = (0..self.decls.len())
            .filter(|&d| self.decls[d].role == Role::Assertion)
            .filter(|&d| !self.reads_host_constant(d))
            .collect();
        self.keep_from(assertions);
    }

    /// Whether declaration `d` names a constant, or a `constexpr` function
    /// without `__device__`, that is not kept: one only host code reads
    /// (`constexpr std::array<float, 5> weights() {...}`).
    fn reads_host_constant(&self, d: usize) -> bool {
        let (start, end) = (self.decls[d].start, self.decls[d].end);
        (start..end).any(|i| {
            let t = &self.tokens[i];
            let member = i > 0
                && matches!(
                    self.tokens[i - 1].kind,
                    TokenKind::Punct(Punct::Dot | Punct::Arrow)
                );
            t.kind == TokenKind::Ident
                && !member
                && self.by_name.get(t.text.as_str()).is_some_and(|ds| {
                    ds.iter().any(|&o| {
                        let role = self.decls[o].role;
                        matches!(role, Role::Constant | Role::HostConstexpr) && !self.kept[o]
                    })
                })
        })
    }

    /// Keeps the types and constants that host uses of templates name in
    /// their template arguments, and in their call's arguments when they
    /// are deduced from those (`crate::host_args`), and in the host
    /// template calls they are found through, and what they reach: the
    /// checker reads them.
    fn keep_launch_types(
        &mut self,
        uses: &[TemplateUse],
        host_templates: &FxHashMap<String, Vec<std::sync::Arc<[Token]>>>,
    ) {
        let mut work = Vec::new();
        let written = uses.iter().flat_map(|u| u.args.iter().flatten());
        let call = uses
            .iter()
            .filter(|u| u.deduced || !u.frames.is_empty())
            .flat_map(|u| u.call.iter().flatten())
            .flat_map(|a| a.tokens.iter());
        // What deduced host template calls lead through: their parameters'
        // types and their arguments.
        let frames = uses.iter().flat_map(|u| &u.frames).flat_map(|f| {
            f.header
                .iter()
                .chain(f.args.iter().flat_map(|a| a.tokens.iter()))
                .chain(f.explicit.iter().flatten())
        });
        let mut names: Vec<&Token> = written.chain(call).chain(frames).collect();
        // A host template's call in a stand-in has the type it returns.
        let called: Vec<&Token> = names
            .iter()
            .filter_map(|t| host_templates.get(t.text.as_str()))
            .flatten()
            .flat_map(|header| header.iter())
            .collect();
        names.extend(called);
        for tok in names.into_iter().filter(|t| t.kind == TokenKind::Ident) {
            for &d in self.by_name.get(tok.text.as_str()).into_iter().flatten() {
                if !self.kept[d] && self.decls[d].role.kept_when_used() {
                    self.kept[d] = true;
                    work.push(d);
                }
            }
        }
        self.keep_from(work);
    }

    /// Keeps the declarations `work` and every type and constant their
    /// names reach, transitively.
    fn keep_from(&mut self, mut work: Vec<usize>) {
        for &d in &work {
            self.kept[d] = true;
        }
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        while let Some(d) = work.pop() {
            let (start, end) = (self.decls[d].start, self.decls[d].end);
            for i in start..end {
                let t = &self.tokens[i];
                let member = i > 0
                    && matches!(
                        self.tokens[i - 1].kind,
                        TokenKind::Punct(Punct::Dot | Punct::Arrow)
                    );
                if t.kind != TokenKind::Ident || member || !seen.insert(&t.text) {
                    continue;
                }
                for &other in self.by_name.get(t.text.as_str()).into_iter().flatten() {
                    if !self.kept[other] && self.decls[other].role.kept_when_used() {
                        self.kept[other] = true;
                        work.push(other);
                    }
                }
            }
        }
    }

    /// The source range of each kept declaration, in source order.
    fn kept_spans(&self) -> Vec<Span> {
        self.decls
            .iter()
            .zip(&self.kept)
            .filter(|(d, &kept)| kept && d.start < d.end)
            .map(|(d, _)| self.tokens[d.start].span.to(self.tokens[d.end - 1].span))
            .collect()
    }

    /// Appends the kept declarations' tokens, and the containers that hold
    /// any, in source order.
    fn emit(&self, nodes: &[Node], out: &mut Vec<Token>) {
        let mut next = 0;
        self.emit_from(nodes, &mut next, out);
    }

    /// [`Splitter::emit`] with `next`, the index of the next declaration.
    fn emit_from(&self, nodes: &[Node], next: &mut usize, out: &mut Vec<Token>) -> bool {
        let mut any = false;
        for node in nodes {
            match node {
                Node::Decl(start, end) => {
                    if self.kept[*next] {
                        out.extend_from_slice(&self.tokens[*start..*end]);
                        any = true;
                    }
                    *next += 1;
                }
                Node::Container { head, body, close } => {
                    let mark = out.len();
                    out.extend_from_slice(&self.tokens[head.0..head.1]);
                    if stdx::stack::with_stack(|| self.emit_from(body, next, out)) {
                        out.extend(close.map(|c| self.tokens[c].clone()));
                        any = true;
                    } else {
                        out.truncate(mark);
                    }
                }
            }
        }
        any
    }

    /// The instantiations of device function templates that host code
    /// asks for (`crate::host_uses`).
    fn template_uses(&self, nodes: &[Node]) -> crate::host_uses::HostUses {
        let starts_template = |d: &Decl| {
            self.tokens
                .get(d.start)
                .is_some_and(|t| is_kw(t, Keyword::Template))
        };
        let device_templates: FxHashSet<&str> = self
            .decls
            .iter()
            .filter(|d| d.role == Role::Device && starts_template(d))
            .flat_map(|d| d.names.iter().map(|&n| self.tokens[n].text.as_str()))
            .collect();
        if device_templates.is_empty() {
            return crate::host_uses::HostUses {
                uses: Vec::new(),
                templates: FxHashMap::default(),
            };
        }
        let ranges = |role: &dyn Fn(Role) -> bool| -> Vec<(usize, usize)> {
            self.decls
                .iter()
                .filter(|d| role(d.role))
                .map(|d| (d.start, d.end))
                .collect()
        };
        let mut scoped = Vec::new();
        self.host_functions(nodes, &mut Vec::new(), &mut 0, &mut scoped);
        // A class template whose member functions launch kernels
        // (`Blas<T>::gemv` launching `gemv<T><<<...>>>`) is followed as a
        // host template of the class's name: its uses are found through
        // `Blas<float>::gemv(...)`, `using B = Blas<T>;`.
        let launching = |d: &Decl| {
            d.role == Role::Shared
                && starts_template(d)
                && (d.start..d.end.saturating_sub(1)).any(|i| {
                    self.tokens[i].kind == TokenKind::Punct(Punct::Shl)
                        && self.tokens[i + 1].kind == TokenKind::Punct(Punct::Lt)
                })
        };
        self.scoped_decls(nodes, &mut Vec::new(), &mut 0, &mut scoped, &launching);
        // An explicit instantiation of a class template (`template struct
        // Solver<float>;`) and a static data member of one defined outside
        // the class (`template <class T> const void *Reg<T>::addr =
        // (const void *)k<T>;`) are host variables to the split, but
        // instantiate what they name.
        let class_variable = |d: &Decl| {
            matches!(d.role, Role::Host(HostKind::Variable) | Role::Constant)
                && starts_template(d)
                && (!self
                    .tokens
                    .get(d.start + 1)
                    .is_some_and(|t| is_punct(t, Punct::Lt))
                    || self.tokens[d.start..head_end(self.tokens, d.start, d.end)]
                        .iter()
                        .any(|t| is_punct(t, Punct::ColonColon)))
        };
        self.scoped_decls(nodes, &mut Vec::new(), &mut 0, &mut scoped, &class_variable);
        let host_fns: Vec<(usize, usize, Vec<String>)> = scoped
            .into_iter()
            .map(|f| (f.start, f.end, f.scope))
            .collect();
        let file_consts = ranges(&|r| matches!(r, Role::Shared | Role::Constant));
        let globals = ranges(&|r| {
            matches!(
                r,
                Role::Shared | Role::Constant | Role::Host(HostKind::Variable)
            )
        });
        crate::host_uses::find(
            self.tokens,
            &device_templates,
            &host_fns,
            &file_consts,
            &globals,
        )
    }

    /// The lambdas of the host functions (`crate::host_lambdas`).
    fn host_lambdas(&self, nodes: &[Node]) -> crate::host_lambdas::HostLambdas {
        let mut fns = Vec::new();
        self.host_functions(nodes, &mut Vec::new(), &mut 0, &mut fns);
        crate::host_lambdas::find(self.tokens, &fns)
    }

    /// The host functions among `nodes` (declarations from index `next`),
    /// each with the namespace it is in (`scope`, the path so far).
    fn host_functions(
        &self,
        nodes: &[Node],
        scope: &mut Vec<String>,
        next: &mut usize,
        out: &mut Vec<crate::host_lambdas::HostFunction>,
    ) {
        let is_host_fn =
            |d: &Decl| matches!(d.role, Role::Host(HostKind::Function) | Role::HostConstexpr);
        self.scoped_decls(nodes, scope, next, out, &is_host_fn);
    }

    /// The declarations among `nodes` (from index `next`) that `keep`
    /// takes, each with the namespace it is in (`scope`, the path so far).
    fn scoped_decls(
        &self,
        nodes: &[Node],
        scope: &mut Vec<String>,
        next: &mut usize,
        out: &mut Vec<crate::host_lambdas::HostFunction>,
        keep: &dyn Fn(&Decl) -> bool,
    ) {
        for node in nodes {
            match node {
                Node::Decl(..) => {
                    let d = &self.decls[*next];
                    *next += 1;
                    if keep(d) {
                        out.push(crate::host_lambdas::HostFunction {
                            start: d.start,
                            end: d.end,
                            scope: scope.clone(),
                        });
                    }
                }
                Node::Container { head, body, .. } => {
                    let depth = scope.len();
                    scope.extend(namespace_path(&self.tokens[head.0..head.1]));
                    stdx::stack::with_stack(|| self.scoped_decls(body, scope, next, out, keep));
                    scope.truncate(depth);
                }
            }
        }
    }

    /// The first declaration among `nodes` (from index `next`, in the
    /// namespaces `scope`, inside `extern "C"` when `extern_c`) that
    /// defines a function or variable with external linkage, outside
    /// kernelc's own headers (`builtin`), or `None`. `internal` collects the
    /// functions a `static` prototype declared (qualified names): their
    /// definitions have internal linkage without saying so again.
    fn first_definition(
        &self,
        nodes: &[Node],
        scope: &mut Vec<String>,
        extern_c: bool,
        next: &mut usize,
        builtin: &dyn Fn(Span) -> bool,
        internal: &mut Vec<Vec<String>>,
    ) -> Option<ExternalDefinition> {
        for node in nodes {
            match node {
                Node::Decl(start, _) => {
                    let d = &self.decls[*next];
                    *next += 1;
                    if builtin(self.tokens[*start].span) {
                        continue;
                    }
                    if let Some(name) = self.static_prototype(d) {
                        internal.push(scope.iter().cloned().chain([name]).collect());
                        continue;
                    }
                    let defines = self.external_definition(d, extern_c);
                    let declared_static = |name: &[String]| {
                        internal
                            .iter()
                            .any(|q| q[..] == [&scope[..], name].concat()[..])
                    };
                    match defines {
                        Some(Defines::Function { ref name, .. }) if declared_static(name) => {}
                        Some(defines) => {
                            return Some(ExternalDefinition {
                                scope: scope.clone(),
                                defines,
                            })
                        }
                        None => {}
                    }
                }
                Node::Container { head, body, .. } => {
                    let head = &self.tokens[head.0..head.1];
                    let path = namespace_path(head);
                    if path.iter().any(|p| p == crate::parser::ANONYMOUS) {
                        // Everything in it has internal linkage.
                        *next += declarations_in(body);
                        continue;
                    }
                    let c_linkage =
                        extern_c || head.first().is_some_and(|t| is_kw(t, Keyword::Extern));
                    let depth = scope.len();
                    scope.extend(path);
                    let found = stdx::stack::with_stack(|| {
                        self.first_definition(body, scope, c_linkage, next, builtin, internal)
                    });
                    scope.truncate(depth);
                    if found.is_some() {
                        return found;
                    }
                }
            }
        }
        None
    }

    /// The name of the function `d` declares `static` without defining
    /// it (`static __device__ float f(float);`), if it does.
    fn static_prototype(&self, d: &Decl) -> Option<String> {
        let tokens = self.tokens;
        let is_static = depth0_indices(tokens, d.start, d.end)
            .into_iter()
            .any(|i| is_kw(&tokens[i], Keyword::Static));
        let head = head_end(tokens, d.start, d.end);
        let defined = d.end > d.start && is_punct(&tokens[d.end - 1], Punct::RBrace);
        let name = declarator_name(tokens, d.start, head)?;
        (is_static && !defined).then(|| tokens[name].text.to_string())
    }

    /// What `d` defines with external linkage, if anything: a function
    /// with a body, or a variable with an initializer (nvcc passes over
    /// one without), neither `static`, `inline`, `constexpr`, `extern`
    /// nor a template's.
    fn external_definition(&self, d: &Decl, extern_c: bool) -> Option<Defines> {
        if !matches!(d.role, Role::Device | Role::Host(_)) {
            return None;
        }
        let tokens = self.tokens;
        let mut c_linkage = extern_c;
        for i in depth0_indices(tokens, d.start, d.end) {
            let t = &tokens[i];
            let is_c = is_kw(t, Keyword::Extern)
                && tokens
                    .get(i + 1)
                    .is_some_and(|n| matches!(n.kind, TokenKind::Str(_)));
            if is_c {
                c_linkage = true;
                continue;
            }
            let internal_or_none = matches!(
                t.kind,
                TokenKind::Keyword(
                    Keyword::Static
                        | Keyword::Inline
                        | Keyword::ForceInline
                        | Keyword::Constexpr
                        | Keyword::Extern
                        | Keyword::Template
                        | Keyword::Typedef
                        | Keyword::Shared
                )
            ) || t.kind == TokenKind::Ident && t.text == "friend";
            if internal_or_none {
                return None;
            }
        }
        let head = head_end(tokens, d.start, d.end);
        let body = d.end > d.start && is_punct(&tokens[d.end - 1], Punct::RBrace);
        let operator = (d.start..head).any(|i| is_kw(&tokens[i], Keyword::Operator));
        if operator {
            // `operator+`, a conversion function: defined, but not named
            // here.
            return body.then_some(Defines::Unreadable);
        }
        if let Some(name) = declarator_name(tokens, d.start, head) {
            return body
                .then(|| crate::unnamed_namespace::function(tokens, name, d.end, c_linkage));
        }
        let initialized = head < d.end
            && (is_punct(&tokens[head], Punct::Assign) || is_punct(&tokens[head], Punct::LBrace));
        // `auto f = [](int x) {...};`: a closure type has no linkage, so
        // neither has a variable of it.
        let closure = tokens
            .get(head + 1)
            .is_some_and(|t| is_punct(t, Punct::LBracket));
        if closure {
            return None;
        }
        let name = *d.names.first()?;
        initialized.then(|| crate::unnamed_namespace::variable(tokens, name, c_linkage))
    }

    /// The host functions and variables, by name.
    fn host_decls(&self) -> Vec<HostDecl> {
        let mut out = Vec::new();
        for d in &self.decls {
            let Role::Host(kind) = d.role else { continue };
            for &n in &d.names {
                let t = &self.tokens[n];
                out.push(HostDecl {
                    name: t.text.to_string(),
                    kind,
                    span: t.span,
                });
            }
        }
        out
    }
}
