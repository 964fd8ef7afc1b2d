//! The name of a translation unit's anonymous namespace, as nvcc writes it.
//!
//! The Itanium ABI leaves the `<source-name>` of an unnamed namespace to
//! the compiler (5.1.2; GCC and Clang write `_GLOBAL__N_1`). nvcc makes it
//! unique to the file, so that two files' `namespace { __global__ void
//! k(); }` never share a kernel name in one program:
//!
//! ```text
//! _GLOBAL__N__<crc>_<length>_<file>_<tag>      _GLOBAL__N__52450745_5_an_cu_main
//! ```
//!
//! - `<crc>` is the CRC-32 of the main file's canonical path
//!   (`/tmp/idioms/an.cu`; symbolic links and `..` resolved), as eight
//!   lower-case hex digits;
//! - `<length>_<file>` is the length of the file's name and the name with
//!   every character other than a letter or a digit made `_`;
//! - `<tag>` is the link name of the first definition in the translation
//!   unit, host code's or device code's, of a function or variable with
//!   external linkage (`main`, `_Z4initPfi`, an `extern "C"` function's
//!   name, an initialized global's): written whole when it has at most
//!   eight characters, otherwise as its own CRC-32.
//!
//! A kernel in an anonymous namespace is named with it, so kernelc writes
//! it too: every `.entry` of a file then matches nvcc's. When nvcc's name
//! cannot be reproduced, kernelc keeps the ABI's `_GLOBAL__N_1`: with no
//! path (a source given as text), with no such definition (nvcc's tag is
//! then different on each run), or when the first definition's name cannot
//! be read (an operator, a function-pointer parameter). Parameters of
//! types only host code knows are mangled from their spelling
//! ([`host_signature`]).
//!
//! The checker mangles every name with `_GLOBAL__N_1`
//! (`crate::mangle`); [`rename`] then rewrites it once the whole program
//! is known.

mod host_signature;

use crate::mangle::ParamType;
use crate::templates::Templates;
use crate::token::{Keyword, Punct, Token, TokenKind};

/// The first definition of a function or variable with external linkage
/// in a translation unit (found by `crate::split`).
pub(crate) struct ExternalDefinition {
    /// The namespaces it is declared in, outermost first.
    pub scope: Vec<String>,
    pub defines: Defines,
}

/// What an [`ExternalDefinition`] defines.
pub(crate) enum Defines {
    /// A function with its body. `name` is as written (`["Grid", "step"]`
    /// for `void Grid::step() const {...}`); `params` are its parameter
    /// list's tokens between the parentheses.
    Function {
        name: Vec<String>,
        params: Vec<Token>,
        const_member: bool,
        c_linkage: bool,
    },
    /// A variable with an initializer.
    Variable { name: Vec<String>, c_linkage: bool },
    /// A definition kernelc does not name here (an operator function, a
    /// member of a class template's specialization).
    Unreadable,
}

/// The function defined at `name` (its name's token) in the declaration
/// `tokens[..end]`.
pub(crate) fn function(tokens: &[Token], name: usize, end: usize, c_linkage: bool) -> Defines {
    let Some(written) = qualified_name(tokens, name) else {
        return Defines::Unreadable;
    };
    let open = name + 1;
    let is_open = tokens
        .get(open)
        .is_some_and(|t| t.kind == TokenKind::Punct(Punct::LParen));
    let close = crate::host_lambdas::group_end(tokens, open, end).map(|after| after - 1);
    let (true, Some(close)) = (is_open, close) else {
        return Defines::Unreadable;
    };
    let const_member = tokens
        .get(close + 1)
        .is_some_and(|t| t.kind == TokenKind::Keyword(Keyword::Const));
    Defines::Function {
        name: written,
        params: tokens[open + 1..close].to_vec(),
        const_member,
        c_linkage,
    }
}

/// The variable declared at `name` (its name's token).
pub(crate) fn variable(tokens: &[Token], name: usize, c_linkage: bool) -> Defines {
    match qualified_name(tokens, name) {
        Some(name) => Defines::Variable { name, c_linkage },
        None => Defines::Unreadable,
    }
}

/// The name ending at token `at` with the qualifiers written before it
/// (`Grid::step`), or `None` when a qualifier is not a plain name
/// (`Box<int>::get`).
fn qualified_name(tokens: &[Token], at: usize) -> Option<Vec<String>> {
    let mut parts = vec![tokens[at].text.to_string()];
    let mut i = at;
    while i >= 1 && tokens[i - 1].kind == TokenKind::Punct(Punct::ColonColon) {
        match i.checked_sub(2).map(|q| &tokens[q]) {
            Some(q) if q.kind == TokenKind::Ident => parts.insert(0, q.text.to_string()),
            // `::f`, the global namespace's own.
            Some(q) if !matches!(q.kind, TokenKind::Punct(Punct::Gt | Punct::Shr)) => break,
            None => break,
            Some(_) => return None,
        }
        i -= 2;
    }
    Some(parts)
}

/// The `<source-name>` text of the anonymous namespace of the file at
/// `path` (canonical) whose first external definition is `first`, or
/// `None` when kernelc cannot write nvcc's.
pub(crate) fn name(
    path: &str,
    first: Option<&ExternalDefinition>,
    templates: &Templates,
    opts: &crate::Options,
) -> Option<String> {
    let link = link_name(first?, templates, opts)?;
    let tag = match link.len() {
        0..=8 => link,
        _ => format!("{:08x}", crc32(link.as_bytes())),
    };
    let file = path.rsplit('/').next().unwrap_or(path);
    let spelled: String = file
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Some(format!(
        "_GLOBAL__N__{:08x}_{}_{spelled}_{tag}",
        crc32(path.as_bytes()),
        file.len()
    ))
}

/// The link name of `def`, or `None` when kernelc cannot write it.
fn link_name(
    def: &ExternalDefinition,
    templates: &Templates,
    opts: &crate::Options,
) -> Option<String> {
    let key = |name: &[String]| -> String {
        def.scope
            .iter()
            .chain(name)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("::")
    };
    match &def.defines {
        Defines::Variable { name, c_linkage } => Some(match c_linkage {
            true => name.last()?.clone(),
            false => crate::mangle::variable(&key(name), false),
        }),
        Defines::Function {
            name,
            c_linkage: true,
            ..
        } => name.last().cloned(),
        Defines::Function { name, .. } if def.scope.is_empty() && name == &["main"] => {
            Some("main".to_string())
        }
        Defines::Function {
            name,
            params,
            const_member,
            ..
        } => {
            let typed = Typed {
                templates,
                scope: &def.scope,
                opts,
            };
            let Some(read) = typed.params(params) else {
                return host_signature::link_name(&def.scope, name, params, *const_member, &typed);
            };
            let written: Vec<_> = read.iter().map(crate::sema::written_type).collect();
            let this_const = const_member.then_some(crate::mangle::ThisQuals::CONST);
            Some(crate::mangle::member(
                &key(name),
                this_const,
                &param_types(&read, &written),
                None,
            ))
        }
        Defines::Unreadable => None,
    }
}

/// The device program's view of a host signature: its parameters typed
/// by the parser, when it knows every type they name.
struct Typed<'a> {
    templates: &'a Templates,
    scope: &'a [String],
    opts: &'a crate::Options,
}

impl Typed<'_> {
    fn params(&self, tokens: &[Token]) -> Option<Vec<crate::ast::ParamDecl>> {
        crate::parser::host_params(self.templates, self.scope, tokens, self.opts)
    }
}

impl host_signature::Context for Typed<'_> {
    fn typed(&self, tokens: &[Token]) -> Option<String> {
        let read = self.params(tokens)?;
        let written: Vec<_> = read.iter().map(crate::sema::written_type).collect();
        let mangled = crate::mangle::function("f", &param_types(&read, &written));
        mangled.strip_prefix("_Z1f").map(str::to_string)
    }
}

/// The mangler's view of parameters read by the parser, `written` their
/// types as declared.
fn param_types<'a>(
    read: &'a [crate::ast::ParamDecl],
    written: &'a [crate::types::CType],
) -> Vec<ParamType<'a>> {
    read.iter()
        .zip(written)
        .map(|(p, ty)| ParamType {
            ty,
            spelling: &p.ty.spelling,
            reference: p.by_ref.map(|_| (p.ty.is_const, p.ty.is_volatile)),
            rvalue: p.rvalue,
        })
        .collect()
}

/// Rewrites the checker's placeholders in every link name of `program`:
/// the ABI's anonymous namespace (`12_GLOBAL__N_1`) as nvcc's `name`
/// (`_GLOBAL__N__<crc>_<length>_<file>_<tag>`), and the namespace of names
/// with internal linkage (`crate::mangle`'s `INTERNAL`) as nvcc's, which
/// has the same file-unique part: `_INTERNAL_<crc>_<length>_<file>_<tag>`.
pub(crate) fn rename(program: &mut crate::typed::Program, name: &str) {
    let (anonymous, internal) = crate::mangle::placeholder_source_names();
    let unique = name.strip_prefix("_GLOBAL__N__").unwrap_or(name);
    let nvcc_internal = crate::mangle::source_name(&format!("_INTERNAL_{unique}"));
    let nvcc = crate::mangle::source_name(name);
    let rewrite = |link: &str| renamed(link, &anonymous, &nvcc).replace(&internal, &nvcc_internal);
    for f in &mut program.functions {
        f.link_name = rewrite(&f.link_name);
    }
    for g in &mut program.globals {
        g.name = rewrite(&g.name);
    }
}

/// nvcc's `<source-name>` of an anonymous namespace directly inside
/// another one: only the outer one is named after the file.
const NESTED: &str = "11_GLOBAL__N_";

/// `link` with each anonymous namespace (`abi`, the checker's
/// `<source-name>` for one) named `nvcc`, or [`NESTED`] where it follows
/// another at once (`namespace { namespace { ... } }`).
fn renamed(link: &str, abi: &str, nvcc: &str) -> String {
    let mut out = String::with_capacity(link.len() + nvcc.len());
    let mut rest = link;
    let mut after_anonymous = false;
    while let Some(at) = rest.find(abi) {
        out.push_str(&rest[..at]);
        out.push_str(if after_anonymous && at == 0 {
            NESTED
        } else {
            nvcc
        });
        rest = &rest[at + abi.len()..];
        after_anonymous = true;
    }
    out.push_str(rest);
    out
}

/// CRC-32 (the IEEE polynomial, reflected: zlib's and PNG's).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let carry = crc & 1;
            crc >>= 1;
            if carry != 0 {
                crc ^= 0xEDB8_8320;
            }
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_anonymous_namespaces_are_nvccs() {
        let (abi, nvcc) = ("12_GLOBAL__N_1", "9_GLOBAL__N");
        assert_eq!(
            renamed("_ZN12_GLOBAL__N_112_GLOBAL__N_11kEPi", abi, nvcc),
            "_ZN9_GLOBAL__N11_GLOBAL__N_1kEPi"
        );
        assert_eq!(
            renamed("_Z1kIN12_GLOBAL__N_11PEEvPN12_GLOBAL__N_11QE", abi, nvcc),
            "_Z1kIN9_GLOBAL__N1PEEvPN9_GLOBAL__N1QE"
        );
    }

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"/tmp/idioms/an.cu"), 0x5245_0745);
        assert_eq!(crc32(b"_Z3runPfi"), 0xd1db_b2e0);
    }
}
