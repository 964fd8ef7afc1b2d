//! Device code that names a template library kernelc does not compile.
//!
//! Thrust's and CUB's headers are known by name but not read
//! (`crate::headers::Header::Library`): host code that uses them is
//! skipped as any host code is. Of CUB, kernelc provides the block and
//! warp collectives as a header of its own (`frontend/headers/cub.cuh`,
//! read at the first include); the rest of CUB and all of Thrust are for
//! host code only. Device code that names one of those (`cub::BlockHistogram`,
//! `thrust::complex<float>`) would otherwise fail with an unknown name and
//! a cascade after it; this check runs on the device tokens before they
//! are parsed and refuses each such name where it is written (E0002),
//! pointing at the include.

use crate::codes::Code;
use crate::diag::Diagnostic;
use crate::preprocess::LibraryInclude;
use crate::token::{Punct, Token, TokenKind};

/// An error for each qualified name (`ns::...`) in `device` whose first
/// part is the namespace of an included library and whose second part is
/// not one kernelc's header of the library provides. A library kernelc
/// provides nothing of is not checked where the program declares a
/// namespace of that name itself.
pub(crate) fn device_uses(device: &[Token], libraries: &[LibraryInclude]) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    for lib in libraries {
        let namespace = lib.library.namespace;
        let provides = lib.library.device.as_ref().map_or(&[][..], |d| d.provides);
        if provides.is_empty() && declares_namespace(device, namespace) {
            continue;
        }
        for (k, t) in device.iter().enumerate() {
            let qualifies = t.kind == TokenKind::Ident
                && t.text == namespace
                && is_punct(device.get(k + 1), Punct::ColonColon)
                && !(k > 0 && is_punct(device.get(k - 1), Punct::ColonColon));
            let provided = device
                .get(k + 2)
                .is_some_and(|n| provides.contains(&n.text.as_str()));
            if qualifies && !provided {
                errors.push(use_error(device, k, lib));
            }
        }
    }
    errors
}

fn is_punct(t: Option<&Token>, p: Punct) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Punct(p))
}

/// Whether the tokens hold `namespace NAME`.
fn declares_namespace(device: &[Token], name: &str) -> bool {
    device.windows(2).any(|w| {
        w[0].kind == TokenKind::Keyword(crate::token::Keyword::Namespace) && w[1].text == name
    })
}

/// E0002 at the qualified name that starts at `device[k]`
/// (`ns::a::b`, its last part included).
fn use_error(device: &[Token], k: usize, lib: &LibraryInclude) -> Diagnostic {
    let mut end = k;
    while is_punct(device.get(end + 1), Punct::ColonColon)
        && device
            .get(end + 2)
            .is_some_and(|t| t.kind == TokenKind::Ident)
    {
        end += 2;
    }
    let name: String = device[k..=end].iter().map(|t| t.text.as_str()).collect();
    let span = device[k].span.to(device[end].span);
    let library = lib.library.name;
    let msg = match &lib.library.device {
        Some(part) => format!(
            "`{name}` is not supported by kernelc, which compiles {library}'s {} only",
            part.what
        ),
        None => format!("`{name}` is from {library}, which kernelc does not compile"),
    };
    let mut d = Diagnostic::error(span, Code::E0002, msg);
    if let Some(at) = lib.at {
        d = d.with_label(at, format!("{library} is included here"));
    }
    let note = match &lib.library.device {
        Some(part) => format!(
            "device code may use {}; host code may use all of {library} (kernelc skips host code)",
            part.provided_list()
        ),
        None => {
            format!("host code may use {library} (kernelc skips host code); device code may not")
        }
    };
    d.with_note(note)
}
