//! The link name of a host function whose parameters have types only host
//! code knows (`std::vector<float> &`, `cudaStream_t`, `FILE *`), read
//! from its tokens.
//!
//! kernelc skips host code and reads none of the C++ library, so the
//! checker cannot type such a parameter; but nvcc names a file's anonymous
//! namespace after the first definition's link name (`super`), and a
//! host launcher taking a stream is often that definition. This module
//! mangles a parameter list from its spelling alone: the C++ and CUDA
//! library types a host signature commonly names are written out as the
//! library defines them (`std::vector<T>` is `std::vector<T,
//! std::allocator<T>>`, `cudaStream_t` is `CUstream_st *`; GCC's
//! libstdc++ with its C++11 ABI, which nvcc uses on Linux), a name the
//! device program knows is typed by the parser ([`Context::typed`]), and a
//! name known to neither is taken for a class of the function's namespace
//! (any guess beats the ABI's name, which never equals nvcc's).
//!
//! The mangling is the Itanium ABI's (5.1), with its substitutions
//! (5.1.8) and the `std` abbreviations (5.1.9: `St`, `Sa`, `So`); every
//! form here was compared with g++'s (`tests`) and, through the tag,
//! nvcc's (`tests/namespaces.rs`).

use crate::mangle::{quals, source_name};
use crate::token::{split_params, template_args, NameBefore, Punct, Token, TokenKind};

/// A parameter's type, as far as a link name needs it.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    /// A builtin type's code (`f`, `m`), or a `std` abbreviation that is
    /// one type (`So`): neither is a substitution candidate.
    Builtin(&'static str),
    /// A class or enumeration: its qualified name and template arguments.
    Class {
        path: Vec<String>,
        args: Vec<Arg>,
    },
    /// An array of a bound (`A4_f`), inside a pointer to it.
    Array(Box<Ty>, u64),
    Pointer(Box<Ty>),
    LRef(Box<Ty>),
    RRef(Box<Ty>),
    Qualified {
        konst: bool,
        volatile: bool,
        ty: Box<Ty>,
    },
}

/// A template argument.
#[derive(Clone, Debug, PartialEq)]
enum Arg {
    Type(Ty),
    /// An integer of the builtin type with this code (`std::array`'s
    /// `size_t` bound is `Lm4E`).
    Value(&'static str, i128),
}

/// What the mangling needs from outside: the device program's types.
pub(crate) trait Context {
    /// The mangling of the type named by `tokens` (a type specifier) if
    /// the device program knows it, as a lone parameter's code.
    fn typed(&self, tokens: &[Token]) -> Option<String>;
}

/// `_Z` and the mangling of the function `name` declared in `scope`
/// with `params` (a parameter list's tokens), or `None` when a parameter
/// cannot be read (a function pointer, an expression as a bound).
pub(crate) fn link_name(
    scope: &[String],
    name: &[String],
    params: &[Token],
    const_member: bool,
    cx: &dyn Context,
) -> Option<String> {
    let read = Reader { cx, scope };
    let types: Vec<Ty> = split_params(params)
        .into_iter()
        .map(|p| read.param(p))
        .collect::<Option<_>>()?;
    let path: Vec<String> = scope.iter().chain(name).cloned().collect();
    let mut m = Mangler::default();
    let mut out = String::from("_Z");
    out.push_str(&m.function_name(&path, const_member));
    match types.as_slice() {
        [] | [Ty::Builtin("v")] => out.push('v'),
        _ => {
            for ty in &types {
                out.push_str(&m.ty(ty));
            }
        }
    }
    Some(out)
}

/// Reads parameter declarations' tokens into [`Ty`]s.
struct Reader<'a> {
    cx: &'a dyn Context,
    /// The function's namespaces: an unknown name is guessed to be theirs.
    scope: &'a [String],
}

impl Reader<'_> {
    /// One parameter (`const std::vector<float> &v`, `float a[]`,
    /// `...`): its type with the top-level qualifiers dropped (they are
    /// not part of a signature) and an array decayed to a pointer.
    fn param(&self, tokens: &[Token]) -> Option<Ty> {
        if let [t] = tokens {
            if t.kind == TokenKind::Punct(Punct::Ellipsis) {
                return Some(Ty::Builtin("z"));
            }
        }
        let (ty, mut at) = self.specified(tokens, 0)?;
        let mut ty = ty;
        while let Some(t) = tokens.get(at) {
            ty = match (&t.kind, &*t.text) {
                (TokenKind::Punct(Punct::Star), _) => Ty::Pointer(Box::new(ty)),
                (TokenKind::Punct(Punct::Amp), _) => Ty::LRef(Box::new(ty)),
                (TokenKind::Punct(Punct::AndAnd), _) => Ty::RRef(Box::new(ty)),
                (_, "const" | "volatile") => qualified(ty, &t.text),
                (_, "__restrict__" | "__restrict" | "restrict") => ty,
                (TokenKind::Ident, _) => ty,
                (TokenKind::Punct(Punct::LBracket), _) => return self.array(ty, &tokens[at..]),
                _ => return None,
            };
            at += 1;
        }
        Some(unqualified(ty))
    }

    /// A parameter declared as an array (`float a[]`, `int m[][4]`): a
    /// pointer to its element, the inner bounds kept.
    fn array(&self, elem: Ty, brackets: &[Token]) -> Option<Ty> {
        let mut bounds = Vec::new();
        let mut rest = brackets;
        while let [open, tail @ ..] = rest {
            if open.kind != TokenKind::Punct(Punct::LBracket) {
                return None;
            }
            match tail {
                [close, after @ ..] if close.kind == TokenKind::Punct(Punct::RBracket) => {
                    bounds.push(None);
                    rest = after;
                }
                [n, close, after @ ..] if close.kind == TokenKind::Punct(Punct::RBracket) => {
                    bounds.push(Some(integer(n)?));
                    rest = after;
                }
                _ => return None,
            }
        }
        // The outermost bound decays; only it may be left out.
        let mut ty = elem;
        for bound in bounds.get(1..)?.iter().rev() {
            ty = Ty::Array(Box::new(ty), (*bound)?);
        }
        Some(Ty::Pointer(Box::new(ty)))
    }

    /// The type a declaration's specifiers name, read from `at`, and the
    /// index after them: qualifiers before and after the type
    /// (`const float`, `float const`), the builtin keywords together
    /// (`unsigned long long`), or one named type.
    fn specified(&self, tokens: &[Token], mut at: usize) -> Option<(Ty, usize)> {
        let (mut konst, mut volatile) = (false, false);
        let mut words: Vec<&str> = Vec::new();
        let mut named = None;
        while let Some(t) = tokens.get(at) {
            match &*t.text {
                "const" => konst = true,
                "volatile" => volatile = true,
                "struct" | "class" | "enum" | "union" | "typename" => {}
                w if named.is_none() && builtin_word(w) => words.push(w),
                _ if named.is_some() || !words.is_empty() => break,
                _ if t.kind == TokenKind::Ident
                    || t.kind == TokenKind::Punct(Punct::ColonColon) =>
                {
                    let (ty, next) = self.named(tokens, at)?;
                    named = Some(ty);
                    at = next;
                    continue;
                }
                _ => break,
            }
            at += 1;
        }
        let ty = match named {
            Some(ty) => ty,
            None => Ty::Builtin(builtin(&words)?),
        };
        let ty = if konst { qualified(ty, "const") } else { ty };
        let ty = if volatile {
            qualified(ty, "volatile")
        } else {
            ty
        };
        Some((ty, at))
    }

    /// The named type at `at` (`std::vector<float>`, `cudaStream_t`,
    /// `Grid`) and the index after its name.
    fn named(&self, tokens: &[Token], at: usize) -> Option<(Ty, usize)> {
        let mut path = Vec::new();
        let mut args = Vec::new();
        let mut i = at;
        if tokens[i].kind == TokenKind::Punct(Punct::ColonColon) {
            i += 1;
        }
        loop {
            let t = tokens.get(i).filter(|t| t.kind == TokenKind::Ident)?;
            path.push(t.text.to_string());
            i += 1;
            if let Ok(list) = template_args(tokens, i, tokens.len(), NameBefore::Template) {
                if list.half_close {
                    return None;
                }
                args = list
                    .args
                    .iter()
                    .map(|&(s, e)| self.arg(&arg_tokens(tokens, s, e, list.close)))
                    .collect::<Option<_>>()?;
                i = list.close + 1;
            }
            let more = tokens
                .get(i)
                .is_some_and(|t| t.kind == TokenKind::Punct(Punct::ColonColon));
            if !more {
                break;
            }
            if !args.is_empty() {
                // A member of a class template instance (`Box<int>::Item`).
                return None;
            }
            i += 1;
        }
        Some((self.resolve(&tokens[at..i], path, args)?, i))
    }

    /// The type a name means: a library type as its library defines it,
    /// one of the device program's types, or a guess.
    fn resolve(&self, spelled: &[Token], path: Vec<String>, args: Vec<Arg>) -> Option<Ty> {
        let (std, name) = match path.as_slice() {
            [std, name] if std == "std" => (true, Some(name.as_str())),
            [name] => (false, Some(name.as_str())),
            _ => (false, None),
        };
        if let Some(ty) = name.and_then(|n| library_type(n, std, &args)) {
            return Some(ty);
        }
        if std {
            let guess = Ty::Class {
                path: path.clone(),
                args: args.clone(),
            };
            return std_type(name?, &args).or(Some(guess));
        }
        if let Some(ty) = self.cx.typed(spelled).and_then(|code| decode(&code)) {
            return Some(ty);
        }
        // A library class after `using namespace std;`.
        if let Some(ty) = name.and_then(|n| std_type(n, &args)) {
            return Some(ty);
        }
        let path = match path.as_slice() {
            [name] => self.scope.iter().chain([name]).cloned().collect(),
            _ => path,
        };
        Some(Ty::Class { path, args })
    }

    /// A template argument: a type, or an integer literal.
    fn arg(&self, tokens: &[Token]) -> Option<Arg> {
        if let [n] = tokens {
            if let Some(v) = integer(n) {
                return Some(Arg::Value("i", v.into()));
            }
        }
        let (ty, at) = self.specified(tokens, 0)?;
        let mut ty = ty;
        for t in &tokens[at..] {
            ty = match t.kind {
                TokenKind::Punct(Punct::Star) => Ty::Pointer(Box::new(ty)),
                TokenKind::Punct(Punct::Amp) => Ty::LRef(Box::new(ty)),
                _ if &*t.text == "const" => qualified(ty, "const"),
                _ => return None,
            };
        }
        Some(Arg::Type(ty))
    }
}

/// A template argument's tokens `tokens[start..end]`; when the list
/// closes with a `>>` that also closes this argument's own list
/// (`vector<vector<float>>`), with that list's `>` put back.
fn arg_tokens(tokens: &[Token], start: usize, end: usize, close: usize) -> Vec<Token> {
    let mut arg = tokens[start..end].to_vec();
    let closer = &tokens[close];
    if end == close && closer.kind == TokenKind::Punct(Punct::Shr) {
        arg.push(Token {
            kind: TokenKind::Punct(Punct::Gt),
            text: ">".into(),
            span: closer.span,
        });
    }
    arg
}

/// An integer literal's value (`4`, `256u`).
fn integer(t: &Token) -> Option<u64> {
    match t.kind {
        TokenKind::Int { value, .. } => Some(value),
        _ => None,
    }
}

/// `ty` with a qualifier added.
fn qualified(ty: Ty, word: &str) -> Ty {
    let (konst, volatile) = (word == "const", word == "volatile");
    match ty {
        Ty::Qualified {
            konst: k,
            volatile: v,
            ty,
        } => Ty::Qualified {
            konst: k || konst,
            volatile: v || volatile,
            ty,
        },
        ty => Ty::Qualified {
            konst,
            volatile,
            ty: Box::new(ty),
        },
    }
}

/// `ty` without its top-level qualifiers.
fn unqualified(ty: Ty) -> Ty {
    match ty {
        Ty::Qualified { ty, .. } => *ty,
        ty => ty,
    }
}

/// Whether `w` is one of the keywords a builtin type is spelled with.
fn builtin_word(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "bool"
            | "char"
            | "wchar_t"
            | "char16_t"
            | "char32_t"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "signed"
            | "unsigned"
            | "__int128"
    )
}

/// The code of the builtin type spelled by `words` (5.1.5.2).
fn builtin(words: &[&str]) -> Option<&'static str> {
    let count = |w: &str| words.iter().filter(|&&x| x == w).count();
    let unsigned = count("unsigned") > 0;
    let signed = count("signed") > 0;
    let longs = count("long");
    let base = [
        "void", "bool", "char", "wchar_t", "char16_t", "char32_t", "float", "double",
    ]
    .into_iter()
    .find(|w| count(w) > 0);
    Some(match (base, unsigned, signed, longs, count("short") > 0) {
        (Some("void"), ..) => "v",
        (Some("bool"), ..) => "b",
        (Some("char"), false, false, ..) => "c",
        (Some("char"), true, ..) => "h",
        (Some("char"), _, true, ..) => "a",
        (Some("wchar_t"), ..) => "w",
        (Some("char16_t"), ..) => "Ds",
        (Some("char32_t"), ..) => "Di",
        (Some("float"), ..) => "f",
        (Some("double"), _, _, 0, _) => "d",
        (Some("double"), ..) => "e",
        (Some(_), ..) => return None,
        (None, u, _, 0, true) => pick(u, "s", "t"),
        (None, u, _, 1, _) => pick(u, "l", "m"),
        (None, u, _, 2, _) => pick(u, "x", "y"),
        (None, u, _, 0, false) if count("__int128") > 0 => pick(u, "n", "o"),
        (None, u, _, 0, false) => pick(u, "i", "j"),
        _ => return None,
    })
}

fn pick(unsigned: bool, signed: &'static str, unsigned_code: &'static str) -> &'static str {
    if unsigned {
        unsigned_code
    } else {
        signed
    }
}

/// A class type named `path` without template arguments.
fn class(path: &[&str]) -> Ty {
    Ty::Class {
        path: path.iter().map(|s| s.to_string()).collect(),
        args: Vec::new(),
    }
}

fn pointer_to(path: &[&str]) -> Ty {
    Ty::Pointer(Box::new(class(path)))
}

/// The C library's and CUDA's typedefs a host signature names,
/// as their headers define them (`cudaStream_t` is `struct CUstream_st *`,
/// `int64_t` is `long` on LP64 Linux); the C ones also as `std::`.
fn library_type(name: &str, std: bool, args: &[Arg]) -> Option<Ty> {
    if !args.is_empty() {
        return None;
    }
    let integer = match name {
        "size_t" | "uintptr_t" | "uint64_t" => Some("m"),
        "ptrdiff_t" | "intptr_t" | "int64_t" | "ssize_t" => Some("l"),
        "int32_t" => Some("i"),
        "uint32_t" => Some("j"),
        "int16_t" => Some("s"),
        "uint16_t" => Some("t"),
        "int8_t" => Some("a"),
        "uint8_t" => Some("h"),
        "nullptr_t" if std => Some("Dn"),
        _ => None,
    };
    if let Some(code) = integer {
        return Some(Ty::Builtin(code));
    }
    if std {
        return None;
    }
    Some(match name {
        "uint" => Ty::Builtin("j"),
        "ushort" => Ty::Builtin("t"),
        "ulong" => Ty::Builtin("m"),
        "cudaTextureObject_t" | "cudaSurfaceObject_t" => Ty::Builtin("y"),
        "cudaStream_t" => pointer_to(&["CUstream_st"]),
        "cudaEvent_t" => pointer_to(&["CUevent_st"]),
        "cudaGraph_t" => pointer_to(&["CUgraph_st"]),
        "cudaGraphExec_t" => pointer_to(&["CUgraphExec_st"]),
        "cudaArray_t" => pointer_to(&["cudaArray"]),
        "cublasHandle_t" => pointer_to(&["cublasContext"]),
        "curandGenerator_t" => pointer_to(&["curandGenerator_st"]),
        "cudaError_t" => class(&["cudaError"]),
        "FILE" => class(&["_IO_FILE"]),
        // Device types a host signature may name where no device code
        // does: kernelc's headers declare only what device code uses.
        "half" | "__half" => class(&["__half"]),
        "half2" | "__half2" => class(&["__half2"]),
        "nv_bfloat16" | "__nv_bfloat16" => class(&["__nv_bfloat16"]),
        "curandState" | "curandState_t" | "curandStateXORWOW_t" => class(&["curandStateXORWOW"]),
        "curandStatePhilox4_32_10_t" => class(&["curandStatePhilox4_32_10"]),
        "curandStateMRG32k3a_t" => class(&["curandStateMRG32k3a"]),
        _ => return None,
    })
}

/// A C++ library class template or typedef as libstdc++ declares it,
/// with its default template arguments written out.
fn std_type(name: &str, args: &[Arg]) -> Option<Ty> {
    let ty = |a: &Arg| match a {
        Arg::Type(t) => Some(t.clone()),
        Arg::Value(..) => None,
    };
    let std = |name: &str, args: Vec<Arg>| Ty::Class {
        path: vec!["std".into(), name.into()],
        args,
    };
    let of = |name: &str, t: Ty| std(name, vec![Arg::Type(t)]);
    let string = |c: &'static str| Ty::Class {
        path: vec!["std".into(), "__cxx11".into(), "basic_string".into()],
        args: vec![
            Arg::Type(Ty::Builtin(c)),
            Arg::Type(of("char_traits", Ty::Builtin(c))),
            Arg::Type(of("allocator", Ty::Builtin(c))),
        ],
    };
    let pair_of = |k: &Ty, v: &Ty| {
        std(
            "pair",
            vec![
                Arg::Type(qualified(k.clone(), "const")),
                Arg::Type(v.clone()),
            ],
        )
    };
    Some(match (name, args) {
        ("string", []) => string("c"),
        ("wstring", []) => string("w"),
        ("ostream", []) => Ty::Builtin("So"),
        ("istream", []) => Ty::Builtin("Si"),
        ("iostream", []) => Ty::Builtin("Sd"),
        ("vector" | "list" | "deque", [t]) => {
            let t = ty(t)?;
            std(
                name,
                vec![Arg::Type(t.clone()), Arg::Type(of("allocator", t))],
            )
        }
        ("array", [t, Arg::Value(_, n)]) => {
            std("array", vec![Arg::Type(ty(t)?), Arg::Value("m", *n)])
        }
        ("unique_ptr", [t]) => {
            let t = ty(t)?;
            std(
                name,
                vec![Arg::Type(t.clone()), Arg::Type(of("default_delete", t))],
            )
        }
        ("shared_ptr" | "complex" | "allocator" | "atomic", [t]) => of(name, ty(t)?),
        ("pair" | "vector" | "tuple", _) => std(name, args.to_vec()),
        ("map" | "set" | "unordered_map" | "unordered_set", [k, rest @ ..]) if rest.len() <= 1 => {
            // The key (and value), then the comparison or the hash and
            // equality, then the allocator of the elements.
            let k = ty(k)?;
            let mut full = vec![Arg::Type(k.clone())];
            let element = match rest {
                [v] => {
                    let v = ty(v)?;
                    full.push(Arg::Type(v.clone()));
                    pair_of(&k, &v)
                }
                _ => k.clone(),
            };
            let order: &[&str] = match name.starts_with("unordered") {
                true => &["hash", "equal_to"],
                false => &["less"],
            };
            full.extend(order.iter().map(|o| Arg::Type(of(o, k.clone()))));
            full.push(Arg::Type(of("allocator", element)));
            std(name, full)
        }
        _ => return None,
    })
}

/// A lone parameter's code from the typed mangler (`f`, `PK6float4`,
/// `N2ns4GridE`) read back into a [`Ty`]; `None` for what this module
/// does not write (templates, substitutions, function types).
fn decode(code: &str) -> Option<Ty> {
    let (ty, rest) = decode_one(code)?;
    rest.is_empty().then_some(ty)
}

fn decode_one(code: &str) -> Option<(Ty, &str)> {
    fn wrap(f: fn(Box<Ty>) -> Ty, rest: &str) -> Option<(Ty, &str)> {
        decode_one(rest).map(|(t, r)| (f(Box::new(t)), r))
    }
    match code.as_bytes().first()? {
        b'P' => wrap(Ty::Pointer, &code[1..]),
        b'R' => wrap(Ty::LRef, &code[1..]),
        b'O' => wrap(Ty::RRef, &code[1..]),
        b'K' | b'V' => {
            let word = if code.starts_with('K') {
                "const"
            } else {
                "volatile"
            };
            decode_one(&code[1..]).map(|(t, r)| (qualified(t, word), r))
        }
        b'N' => {
            let mut path = Vec::new();
            let mut rest = &code[1..];
            while !rest.starts_with('E') {
                let (name, r) = read_source_name(rest)?;
                path.push(name.to_string());
                rest = r;
            }
            Some((
                Ty::Class {
                    path,
                    args: Vec::new(),
                },
                &rest[1..],
            ))
        }
        b'0'..=b'9' => {
            let (name, rest) = read_source_name(code)?;
            Some((class(&[name]), rest))
        }
        _ => {
            let codes = [
                "v", "b", "c", "a", "h", "s", "t", "i", "j", "l", "m", "x", "y", "f", "d",
            ];
            let c = codes.into_iter().find(|c| code.starts_with(c))?;
            Some((Ty::Builtin(c), &code[c.len()..]))
        }
    }
}

/// A `<source-name>` at the start of `code`, and the rest.
fn read_source_name(code: &str) -> Option<(&str, &str)> {
    let digits = code.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = code[..digits].parse().ok()?;
    let end = digits.checked_add(len).filter(|&e| e <= code.len())?;
    Some((code.get(digits..end)?, &code[end..]))
}

/// Writes manglings, keeping the substitution candidates (5.1.8) in the
/// order they appear.
#[derive(Default)]
struct Mangler {
    candidates: Vec<String>,
}

impl Mangler {
    /// A function's `<name>`: `3run`, or `N3app3runE` (`NK` for a const
    /// member function), whose prefixes become candidates.
    fn function_name(&mut self, path: &[String], const_member: bool) -> String {
        match path {
            [name] => source_name(name),
            _ => {
                let mut out = String::from(if const_member { "NK" } else { "N" });
                out.push_str(&self.prefix(&path[..path.len() - 1]));
                out.push_str(&source_name(&path[path.len() - 1]));
                out.push('E');
                out
            }
        }
    }

    /// The names of `path`'s components, the longest prefix seen before as
    /// a substitution and each one not seen before made a candidate; `std`
    /// first is `St`, never a candidate.
    fn prefix(&mut self, path: &[String]) -> String {
        let key = |n: usize| path[..n].join("::");
        let std = path.first().is_some_and(|p| p == "std");
        let mut out = String::new();
        let mut start = 0;
        for n in (1..=path.len()).rev() {
            if let Some(sub) = self.substitution(&key(n)) {
                out.push_str(&sub);
                start = n;
                break;
            }
        }
        if start == 0 && std {
            out.push_str("St");
            start = 1;
        }
        for n in start + 1..=path.len() {
            out.push_str(&source_name(&path[n - 1]));
            self.candidates.push(key(n));
        }
        out
    }

    /// A type's mangling, itself a substitution when seen before.
    fn ty(&mut self, ty: &Ty) -> String {
        if let Ty::Builtin(code) = ty {
            return code.to_string();
        }
        let k = key(ty);
        if let Some(sub) = self.substitution(&k) {
            return sub;
        }
        let out = match ty {
            Ty::Builtin(_) => unreachable!("returned above"),
            Ty::Array(t, len) => format!("A{len}_{}", self.ty(t)),
            Ty::Pointer(t) => format!("P{}", self.ty(t)),
            Ty::LRef(t) => format!("R{}", self.ty(t)),
            Ty::RRef(t) => format!("O{}", self.ty(t)),
            Ty::Qualified {
                konst,
                volatile,
                ty,
            } => {
                let q = quals(*konst, *volatile, false).code();
                format!("{q}{}", self.ty(ty))
            }
            Ty::Class { path, args } => self.class(path, args),
        };
        self.candidates.push(k);
        out
    }

    /// A class's mangling: `3Foo`, `St6vectorI...E`, `N3app4GridE`,
    /// `NSt7__cxx1112basic_stringI...EE`; `std::allocator` is `Sa`. A
    /// class template's name is a candidate before its arguments; the
    /// class itself becomes one in [`Mangler::ty`].
    fn class(&mut self, path: &[String], args: &[Arg]) -> String {
        let nested = path.len() > 2 || (path.len() == 2 && path[0] != "std");
        let mut out = String::new();
        if nested {
            out.push('N');
        }
        if path == ["std", "allocator"] {
            out.push_str("Sa");
        } else if args.is_empty() {
            let (name, scope) = path.split_last().expect("a class has a name");
            out.push_str(&self.prefix(scope));
            out.push_str(&source_name(name));
        } else {
            out.push_str(&self.prefix(path));
        }
        if !args.is_empty() {
            out.push('I');
            for a in args {
                out.push_str(&self.arg(a));
            }
            out.push('E');
        }
        if nested {
            out.push('E');
        }
        out
    }

    fn arg(&mut self, arg: &Arg) -> String {
        match arg {
            Arg::Type(t) => self.ty(t),
            Arg::Value(code, v) if *v < 0 => format!("L{code}n{}E", -v),
            Arg::Value(code, v) => format!("L{code}{v}E"),
        }
    }

    fn substitution(&self, key: &str) -> Option<String> {
        let i = self.candidates.iter().position(|c| c == key)?;
        Some(stdx::itanium::substitution(i))
    }
}

/// A type's mangling without substitutions: its identity as a candidate.
fn key(ty: &Ty) -> String {
    match ty {
        Ty::Builtin(c) => c.to_string(),
        Ty::Array(t, len) => format!("A{len}_{}", key(t)),
        Ty::Pointer(t) => format!("P{}", key(t)),
        Ty::LRef(t) => format!("R{}", key(t)),
        Ty::RRef(t) => format!("O{}", key(t)),
        Ty::Qualified {
            konst,
            volatile,
            ty,
        } => {
            format!("{}{}", quals(*konst, *volatile, false).code(), key(ty))
        }
        Ty::Class { path, args } if args.is_empty() => path.join("::"),
        Ty::Class { path, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Type(t) => key(t),
                    Arg::Value(c, v) => format!("L{c}{v}"),
                })
                .collect();
            format!("{}<{}>", path.join("::"), args.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device program that knows no types.
    struct NoDevice;

    impl Context for NoDevice {
        fn typed(&self, _: &[Token]) -> Option<String> {
            None
        }
    }

    fn mangled(scope: &[&str], name: &[&str], params: &str, const_member: bool) -> Option<String> {
        let (tokens, diags) = crate::lexer::lex_raw(params);
        assert!(diags.is_empty(), "{params}");
        let scope: Vec<String> = scope.iter().map(|s| s.to_string()).collect();
        let name: Vec<String> = name.iter().map(|s| s.to_string()).collect();
        link_name(&scope, &name, &tokens, const_member, &NoDevice)
    }

    /// Each name is g++'s (13, libstdc++ with its C++11 ABI) for the same
    /// declaration, given the CUDA runtime's typedefs.
    #[test]
    fn host_signatures_are_mangled_as_gcc_mangles_them() {
        let cases = [
            ("f1", "std::vector<float> &v", "_Z2f1RSt6vectorIfSaIfEE"),
            (
                "f2",
                "const std::string &s, const char *n",
                "_Z2f2RKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEPKc",
            ),
            ("f3", "std::vector<int> a, std::vector<int> b", "_Z2f3St6vectorIiSaIiEES1_"),
            ("f4", "std::vector<std::vector<float>> &v", "_Z2f4RSt6vectorIS_IfSaIfEESaIS1_EE"),
            ("f5", "std::map<int, float> &m", "_Z2f5RSt3mapIifSt4lessIiESaISt4pairIKifEEE"),
            (
                "f6",
                "const std::map<std::string, std::vector<float>> &m",
                "_Z2f6RKSt3mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt6vectorIfSaIfEESt4lessIS5_ESaISt4pairIKS5_S8_EEE",
            ),
            (
                "f7",
                "std::unordered_map<std::string, int> &m",
                "_Z2f7RSt13unordered_mapINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiSt4hashIS5_ESt8equal_toIS5_ESaISt4pairIKS5_iEEE",
            ),
            ("f8", "std::array<float, 4> a, std::ostream &os", "_Z2f8St5arrayIfLm4EERSo"),
            ("f9", "cudaStream_t a, cudaStream_t b, cudaError_t e", "_Z2f9P11CUstream_stS0_9cudaError"),
            (
                "f10",
                "const float *a, const float *b, float a2[][4], volatile int *v",
                "_Z3f10PKfS0_PA4_fPVi",
            ),
            (
                "f11",
                "std::set<unsigned> s, FILE *f, std::unique_ptr<Grid> g",
                "_Z3f11St3setIjSt4lessIjESaIjEEP8_IO_FILESt10unique_ptrI4GridSt14default_deleteIS7_EE",
            ),
            (
                "f12",
                "unsigned long long x, long double y, signed char c, short s, unsigned short t, __int128 i, ...",
                "_Z3f12yeastnz",
            ),
            ("f13", "Grid g, const Grid &h, Grid *const p, Grid &&r", "_Z3f134GridRKS_PS_OS_"),
            (
                "f14",
                "std::vector<float> v, float *p, cudaStream_t s, std::vector<float> w",
                "_Z3f14St6vectorIfSaIfEEPfP11CUstream_stS1_",
            ),
            ("f15", "void", "_Z3f15v"),
            (
                "f16",
                "std::pair<int, float> p, std::pair<int, float> q, std::shared_ptr<float> sp",
                "_Z3f16St4pairIifES0_St10shared_ptrIfE",
            ),
        ];
        for (name, params, gcc) in cases {
            assert_eq!(
                mangled(&[], &[name], params, false).as_deref(),
                Some(gcc),
                "{params}"
            );
        }
    }

    #[test]
    fn namespaces_and_members_are_prefixes() {
        assert_eq!(
            mangled(
                &["app"],
                &["run"],
                "Config c, const Config &d, std::string s",
                false
            )
            .as_deref(),
            Some(
                "_ZN3app3runENS_6ConfigERKS0_NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
            )
        );
        assert_eq!(
            mangled(
                &["app"],
                &["Runner", "go"],
                "const Config &c, std::vector<float> &v",
                true
            )
            .as_deref(),
            Some("_ZNK3app6Runner2goERKNS_6ConfigERSt6vectorIfSaIfEE")
        );
    }

    #[test]
    fn unreadable_parameters_give_none() {
        for params in [
            "void (*cb)(int)",
            "float a[N]",
            "std::function<void()> f",
            "Box<int>::Item i",
        ] {
            assert_eq!(mangled(&[], &["f"], params, false), None, "{params}");
        }
    }

    #[test]
    fn typed_codes_read_back() {
        assert_eq!(
            decode("PK6float4"),
            Some(Ty::Pointer(Box::new(qualified(
                class(&["float4"]),
                "const"
            ))))
        );
        assert_eq!(decode("N2ns4GridE"), Some(class(&["ns", "Grid"])));
        assert_eq!(decode("y"), Some(Ty::Builtin("y")));
        assert_eq!(decode("St6vectorIfSaIfEE"), None);
        assert_eq!(decode("4Gri"), None);
    }
}
