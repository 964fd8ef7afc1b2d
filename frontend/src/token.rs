//! Tokens produced by the lexer and consumed by the parser.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::diag::Span;
use crate::types::CType;

/// One token. `text` is the spelling as written (for macro-expanded tokens,
/// the spelling from the macro body; `span` is then the use site).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: TokenText,
    pub span: Span,
}

impl Token {
    /// Whether this is a specifier written before a function's return
    /// type (`__device__`, `static`, `inline`, `constexpr`, ...), which
    /// the scans that find a template's return type step over.
    pub fn is_function_specifier(&self) -> bool {
        matches!(
            self.kind,
            TokenKind::Keyword(
                Keyword::Device
                    | Keyword::Global
                    | Keyword::Host
                    | Keyword::Static
                    | Keyword::Inline
                    | Keyword::Constexpr
                    | Keyword::ForceInline
                    | Keyword::NoInline
            )
        )
    }
}

/// A token's spelling, shared rather than owned: macro expansion, template
/// instantiation, sub-parsers and the host-code searches copy tokens all
/// the time, and a copy of a `TokenText` is a reference count, not a new
/// string. It reads as a `str` (`Deref`), compares with one, and prints and
/// debug-prints exactly as the string does.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TokenText(Arc<str>);

impl TokenText {
    /// The spelling as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for TokenText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for TokenText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for TokenText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for TokenText {
    fn from(s: &str) -> TokenText {
        TokenText(Arc::from(s))
    }
}

impl From<String> for TokenText {
    fn from(s: String) -> TokenText {
        TokenText(Arc::from(s))
    }
}

impl From<&String> for TokenText {
    fn from(s: &String) -> TokenText {
        TokenText(Arc::from(s.as_str()))
    }
}

impl From<TokenText> for String {
    fn from(s: TokenText) -> String {
        s.0.to_string()
    }
}

impl PartialEq<str> for TokenText {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for TokenText {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for TokenText {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<TokenText> for str {
    fn eq(&self, other: &TokenText) -> bool {
        self == &*other.0
    }
}

impl PartialEq<TokenText> for &str {
    fn eq(&self, other: &TokenText) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<TokenText> for String {
    fn eq(&self, other: &TokenText) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for TokenText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for TokenText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// Token categories. Literals carry their already-computed value and C type.
#[derive(Clone, Debug)]
pub enum TokenKind {
    Ident,
    Keyword(Keyword),
    /// Integer literal: value and the C type chosen by the literal rules.
    Int {
        value: u64,
        ty: CType,
    },
    /// Floating literal: value (already rounded to `float` when `ty` is float).
    Float {
        value: f64,
        ty: CType,
    },
    /// Character literal (type `int`, value as a signed `char`).
    Char(i64),
    /// String literal contents after escape processing.
    Str(String),
    Punct(Punct),
    /// Bytes that are valid C++ but not something kernelc can compile (a
    /// literal with a user-defined suffix, a wide string, a `$` or other
    /// character outside kernelc's set), with the error that says so. The
    /// error is reported only if the token reaches device code: host code,
    /// which the split phase skips, may hold any C++ (`crate::split`).
    Invalid(Box<crate::diag::Diagnostic>),
}

/// Equality as derived, with the comparisons every scan over tokens makes
/// (`t.kind == TokenKind::Punct(Punct::Comma)`) inlined: a punctuator, a
/// keyword or an identifier against the same kind.
impl PartialEq for TokenKind {
    #[inline]
    fn eq(&self, other: &TokenKind) -> bool {
        match (self, other) {
            (TokenKind::Punct(a), TokenKind::Punct(b)) => a == b,
            (TokenKind::Keyword(a), TokenKind::Keyword(b)) => a == b,
            (TokenKind::Ident, TokenKind::Ident) => true,
            _ => self.literal_eq(other),
        }
    }
}

impl TokenKind {
    /// [`PartialEq::eq`] for the kinds other than those it inlines.
    fn literal_eq(&self, other: &TokenKind) -> bool {
        use TokenKind::*;
        match (self, other) {
            (Int { value: a, ty: s }, Int { value: b, ty: t }) => a == b && s == t,
            (Float { value: a, ty: s }, Float { value: b, ty: t }) => a == b && s == t,
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Invalid(a), Invalid(b)) => a == b,
            _ => false,
        }
    }
}

macro_rules! keywords {
    ($($variant:ident => $text:literal,)*) => {
        /// Reserved words, including C++/CUDA ones that kernelc rejects with a
        /// specific "not supported" message instead of a generic parse error.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Keyword { $($variant,)* }

        impl Keyword {
            /// Looks up an identifier spelling.
            pub fn lookup(s: &str) -> Option<Keyword> {
                match s { $($text => Some(Keyword::$variant),)* _ => None }
            }

            /// The spelling.
            pub fn as_str(self) -> &'static str {
                match self { $(Keyword::$variant => $text,)* }
            }
        }
    };
}

keywords! {
    Void => "void", Bool => "bool", CBool => "_Bool", Char => "char", Short => "short",
    Int => "int", Long => "long", Float => "float", Double => "double",
    Signed => "signed", Unsigned => "unsigned",
    Const => "const", Volatile => "volatile", Restrict => "__restrict__",
    Restrict2 => "__restrict", CRestrict => "restrict",
    If => "if", Else => "else", For => "for", While => "while", Do => "do",
    Break => "break", Continue => "continue", Return => "return", Sizeof => "sizeof",
    Extern => "extern", Static => "static", Inline => "inline",
    ForceInline => "__forceinline__", NoInline => "__noinline__",
    Global => "__global__", Device => "__device__", Host => "__host__",
    True => "true", False => "false",
    LaunchBounds => "__launch_bounds__",
    ClusterDims => "__cluster_dims__",
    // Made only by the preprocessor around `#pragma unroll`'s argument; the
    // space in the spelling keeps source identifiers from ever matching.
    PragmaUnroll => "#pragma unroll", PragmaEnd => "#pragma end",
    // Recognised only to reject them clearly.
    Shared => "__shared__", Constant => "__constant__", Managed => "__managed__",
    Switch => "switch", Case => "case", Default => "default", Goto => "goto",
    Struct => "struct", Union => "union", Enum => "enum", Typedef => "typedef",
    Class => "class", Template => "template", Typename => "typename", New => "new",
    Delete => "delete", Namespace => "namespace", Using => "using", Auto => "auto",
    Register => "register", Operator => "operator", This => "this", Throw => "throw",
    Try => "try", Catch => "catch", Asm => "asm", Asm2 => "__asm__", Nullptr => "nullptr",
    StaticCast => "static_cast", ReinterpretCast => "reinterpret_cast",
    ConstCast => "const_cast", Constexpr => "constexpr", Decltype => "decltype",
    StaticAssert => "static_assert",
}

impl Keyword {
    /// Whether the keyword can start a type name: a basic type, a
    /// qualifier, or `struct`/`class`/`union`/`enum` before a tag.
    pub fn starts_type(self) -> bool {
        use Keyword::*;
        matches!(
            self,
            Void | Bool
                | CBool
                | Char
                | Short
                | Int
                | Long
                | Float
                | Double
                | Signed
                | Unsigned
                | Const
                | Volatile
                | Enum
                | Struct
                | Class
                | Union
        )
    }
}

macro_rules! puncts {
    ($($variant:ident => $text:literal,)*) => {
        /// Punctuators, listed longest first so the lexer can match greedily.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Punct { $($variant,)* }

        impl Punct {
            /// All punctuators, longest spelling first.
            pub const ALL: &'static [Punct] = &[$(Punct::$variant,)*];

            /// The spelling.
            pub fn as_str(self) -> &'static str {
                match self { $(Punct::$variant => $text,)* }
            }
        }
    };
}

puncts! {
    ShlAssign => "<<=", ShrAssign => ">>=", Ellipsis => "...",
    Arrow => "->", PlusPlus => "++", MinusMinus => "--", Shl => "<<", Shr => ">>",
    Le => "<=", Ge => ">=", EqEq => "==", Ne => "!=", AndAnd => "&&", OrOr => "||",
    PlusAssign => "+=", MinusAssign => "-=", StarAssign => "*=", SlashAssign => "/=",
    PercentAssign => "%=", AndAssign => "&=", OrAssign => "|=", XorAssign => "^=",
    ColonColon => "::", HashHash => "##",
    Plus => "+", Minus => "-", Star => "*", Slash => "/", Percent => "%", Amp => "&",
    Pipe => "|", Caret => "^", Tilde => "~", Bang => "!", Lt => "<", Gt => ">",
    Assign => "=", Question => "?", Colon => ":", Semi => ";", Comma => ",", Dot => ".",
    LParen => "(", RParen => ")", LBracket => "[", RBracket => "]", LBrace => "{",
    RBrace => "}", Hash => "#",
}

/// Formats tokens one per line as `kind 'text' @start..end`.
pub fn dump_tokens(tokens: &[Token]) -> String {
    let mut out = String::new();
    for t in tokens {
        let kind = match &t.kind {
            TokenKind::Ident => "ident".to_string(),
            TokenKind::Keyword(_) => "keyword".to_string(),
            TokenKind::Int { ty, .. } => format!("int-literal({ty})"),
            TokenKind::Float { ty, .. } => format!("float-literal({ty})"),
            TokenKind::Char(_) => "char-literal(int)".to_string(),
            TokenKind::Str(_) => "string-literal".to_string(),
            TokenKind::Punct(_) => "punct".to_string(),
            TokenKind::Invalid(_) => "invalid".to_string(),
        };
        out.push_str(&format!(
            "{kind} '{}' @{}..{}\n",
            t.text, t.span.start, t.span.end
        ));
    }
    out
}

/// A parameter list's tokens (between its parentheses) split into its
/// parameters at the commas outside brackets, each without its default
/// argument: `int n, Pair<int, int> p = {1, 2}` gives `int n` and
/// `Pair<int, int> p`. Host code's declarations are read this way before
/// (or instead of) being parsed.
pub(crate) fn split_params(tokens: &[Token]) -> Vec<&[Token]> {
    let mut params = Vec::new();
    let mut start = 0;
    for i in top_level(tokens) {
        if tokens[i].kind == TokenKind::Punct(Punct::Comma) {
            params.push(&tokens[start..i]);
            start = i + 1;
        }
    }
    if start < tokens.len() {
        params.push(&tokens[start..]);
    }
    params
        .into_iter()
        .map(|p| {
            let default = top_level(p).find(|&i| p[i].kind == TokenKind::Punct(Punct::Assign));
            &p[..default.unwrap_or(p.len())]
        })
        .collect()
}

/// The indices of the tokens outside brackets (`()`, `[]`, `{}` and
/// template angles, `>>` closing two), opening brackets included.
fn top_level(tokens: &[Token]) -> impl Iterator<Item = usize> + '_ {
    let mut depth = 0usize;
    tokens.iter().enumerate().filter_map(move |(i, t)| {
        let outside = depth == 0;
        match t.kind {
            TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace | Punct::Lt) => {
                depth += 1
            }
            TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace | Punct::Gt) => {
                depth = depth.saturating_sub(1)
            }
            TokenKind::Punct(Punct::Shr) => depth = depth.saturating_sub(2),
            _ => {}
        }
        outside.then_some(i)
    })
}

/// What the name before a `<` is known to be, which decides whether the
/// `<` opens a template argument list ([`template_args`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameBefore {
    /// A template, or a place only a template-id fits (`template <`, a
    /// type name in a declaration): the `<` opens a list.
    Template,
    /// A variable or another name that is no template: the `<` compares
    /// (`f(a < b, c > (d))` has two arguments).
    NotTemplate,
    /// Not known (a class template of a header kernelc does not read): a
    /// list only when what follows its close is what follows a template-id
    /// in an expression, `{`, `(` or `::` (`List<A, B>{}`).
    Unknown,
}

/// A template argument list, as [`template_args`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TemplateArgs {
    /// The index of its closing `>`, or of the `>>` that closes it.
    pub close: usize,
    /// The `>>` at `close` closes this list with its first half, leaving a
    /// `>` after it (`k<int>> 2`); otherwise a `>>` closes the last
    /// argument's own list and this one (`k<int, Sum<int>>`).
    pub half_close: bool,
    /// Each argument's token range, split at the commas outside brackets
    /// and inner lists.
    pub args: Vec<(usize, usize)>,
}

/// The template argument list that the `<` at `open` opens, read before
/// `end`, the name before it being `name` (the one reading of a template
/// argument list's tokens for the parser's and the host-code searches'
/// scans). Inner lists nest and `>>` closes two (C++11); inside `()` and
/// `[]` (and braces within them) `<` and `>` are no brackets. A `;`, `{`
/// or `}` outside brackets, or a closing bracket without its opening one,
/// ends the scan: `Err` then holds its index (`end` when the tokens ran
/// out), and `Err(open)` says the `<` opens no list by `name`.
pub(crate) fn template_args(
    tokens: &[Token],
    open: usize,
    end: usize,
    name: NameBefore,
) -> Result<TemplateArgs, usize> {
    let opens = tokens
        .get(open)
        .is_some_and(|t| t.kind == TokenKind::Punct(Punct::Lt));
    if !opens || name == NameBefore::NotTemplate {
        return Err(open);
    }
    let (mut angles, mut depth) = (1usize, 0usize);
    let mut args = Vec::new();
    let mut arg_start = open + 1;
    let end = end.min(tokens.len());
    for i in open + 1..end {
        let TokenKind::Punct(p) = tokens[i].kind else {
            continue;
        };
        match p {
            Punct::LParen | Punct::LBracket => depth += 1,
            Punct::LBrace if depth > 0 => depth += 1,
            Punct::RParen | Punct::RBracket | Punct::RBrace if depth > 0 => depth -= 1,
            Punct::RParen | Punct::RBracket | Punct::RBrace | Punct::LBrace | Punct::Semi => {
                return Err(i)
            }
            _ if depth > 0 => {}
            Punct::Lt => angles += 1,
            Punct::Gt | Punct::Shr => {
                let closes = if p == Punct::Gt { 1 } else { 2 };
                if angles > closes {
                    angles -= closes;
                    continue;
                }
                if arg_start < i {
                    args.push((arg_start, i));
                }
                let follows_id = tokens.get(i + 1).is_some_and(|t| {
                    matches!(
                        t.kind,
                        TokenKind::Punct(Punct::LBrace | Punct::LParen | Punct::ColonColon)
                    )
                });
                if name == NameBefore::Unknown && !follows_id {
                    return Err(open);
                }
                return Ok(TemplateArgs {
                    close: i,
                    half_close: angles < closes,
                    args,
                });
            }
            Punct::Comma if angles == 1 => {
                args.push((arg_start, i));
                arg_start = i + 1;
            }
            _ => {}
        }
    }
    Err(end)
}
