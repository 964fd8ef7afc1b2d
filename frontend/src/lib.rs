//! kernelc frontend: CUDA-C subset source text to a typed program.
//!
//! Crate invariants:
//! * **Knows nothing of PTX.** The output is a typed C program and its IR;
//!   targets are the backend's business.
//! * **Never panics on user input.** Every user error becomes a
//!   [`Diagnostic`] with a source [`Span`]; nesting is bounded so hostile
//!   input cannot overflow the stack.
//! * **Does no I/O.** Callers pass source text and receive values or
//!   diagnostics; reading files and printing is the driver's job. The
//!   files `#include` names are read through a [`FileLoader`] the caller
//!   gives ([`check_files`]), and kept in its [`SourceMap`], where every
//!   span of every file has its own offsets (see `source_map.rs`).
//!
//! Pipeline: [`lex`] (raw lexing + tiny preprocessor) → split (the device
//! declarations kept, host code skipped: `split.rs`) → [`parse`] (untyped
//! [`ast`]) → [`check`] (semantic analysis into [`typed`]) → [`lower`] (the
//! midend IR, built through its SSA builder).

pub mod access;
pub mod ast;
/// The diagnostic codes, shared with the midend and backend, whose
/// diagnostics name theirs where their kinds are defined.
pub use stdx::codes;
pub mod bases;
mod curand;
mod diag;
mod dump;
pub mod half;
mod headers;
mod host_args;
mod host_lambdas;
mod host_uses;
mod include;
mod lexer;
mod libraries;
mod lower;
pub mod mangle;
mod packs;
mod parser;
mod preprocess;
mod prune;
mod sema;
mod simd_video;
mod snippet;
mod source_map;
mod split;
mod std_attributes;
mod templates;
mod texture;
mod token;
pub mod typed;
pub mod types;
mod unnamed_namespace;

pub use codes::Code;
pub use diag::{render_diagnostics, render_diagnostics_in, Diagnostic, Severity, Span};
pub use dump::{dump_ast, dump_expr};
pub use headers::{provided_headers, CxxStd};
pub use include::{FileLoader, LoadedFile, MemoryFiles, NoFiles, MAX_INCLUDE_DEPTH};
pub use lower::lower;
pub use preprocess::{check_define_name, DEFAULT_CUDA_ARCH};
pub use source_map::{FileIndex, SourceFile, SourceMap, TooLarge};
pub use token::{dump_tokens, Keyword, Punct, Token, TokenKind};
pub use types::{usual_arithmetic, CType};

/// Caller-provided configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `-D NAME` (`None`, defines to `1`) or `-D NAME=VALUE`.
    pub defines: Vec<(String, Option<String>)>,
    /// nvcc's `-ftz`: flush single-precision denormals to zero. Every
    /// function gets the IR's `ftz` attribute, so the backend emits the
    /// `.ftz` forms and the interpreter flushes (see `docs/math.md`).
    pub ftz: bool,
    /// nvcc's `-prec-div`: `false` makes `/` on `float` the full-range
    /// approximate division (`fdiv_full`), or with `fast_math` the
    /// approximate one (`fdiv_approx`, like `__fdividef`), as nvcc does.
    pub prec_div: bool,
    /// nvcc's `-prec-sqrt`. kernelc keeps the correctly rounded `sqrt` either
    /// way (never less accurate than nvcc's choice); recorded for the docs.
    pub prec_sqrt: bool,
    /// nvcc's `--use_fast_math`: `expf`, `logf`, `sinf`, `cosf`, `powf` call
    /// their fast intrinsics (`__expf`, ...). The driver also sets the three
    /// fields above and `--fmad=true`, as nvcc does.
    pub fast_math: bool,
    /// The file name `__FILE__` expands to (`"<input>"` when `None`).
    pub file_name: Option<String>,
    /// The main file's canonical path, which nvcc's name of the file's
    /// anonymous namespace hashes (`unnamed_namespace.rs`); `None`, for a
    /// source given as text, keeps the ABI's `_GLOBAL__N_1`.
    pub unit_path: Option<String>,
    /// Errors reported before the frontend stops reading (`--error-limit`;
    /// `0`: no limit). The diagnostic after the last one is E0015.
    pub error_limit: usize,
    /// The deepest nesting accepted (E0014); [`DEFAULT_NESTING_LIMIT`]
    /// unless a test wants to reach the limit cheaply.
    pub nesting_limit: usize,
    /// The `-I` folders, searched in order for `#include` (how:
    /// `include.rs`). Only paths: the [`FileLoader`] reads.
    pub include_dirs: Vec<String>,
    /// `-include FILE`: files read before the main file, in order.
    pub pre_includes: Vec<String>,
    /// The folders where the host compiler finds its system headers
    /// (`/usr/include`, GCC's own, `$CPATH`'s). An `#include <x.h>` that
    /// neither a `-I` folder nor kernelc's headers hold, but one of these
    /// does, is host code's (zlib's, OpenGL's, a compiler's intrinsics):
    /// device code needs nothing from it, and it is read as empty. Only
    /// paths: the [`FileLoader`] says whether the file is there.
    pub system_include_dirs: Vec<String>,
    /// `-std=c++NN`; `None`: nvcc's default dialect, GNU C++17.
    pub std: Option<CxxStd>,
    /// nvcc's `-rdc=true`: relocatable device code, linked with other
    /// modules, so device functions and variables keep external linkage
    /// (`.visible`). Off (nvcc's default), the module is the whole device
    /// program: only kernels are external. Set with
    /// [`Options::with_relocatable`].
    pub relocatable: bool,
}

/// nvcc stops after 100 errors; so does kernelc, unless told otherwise.
pub const DEFAULT_ERROR_LIMIT: usize = 100;

/// The default of [`Options::nesting_limit`]: 2^20 levels. nvcc parses a
/// million nested parentheses (in 3.5 GB); kernelc accepts as many, in
/// about a third of that (docs/diagnostics.md, E0014).
pub const DEFAULT_NESTING_LIMIT: usize = 1 << 20;

impl Default for Options {
    /// nvcc's defaults: IEEE division and square root, no flushing, no fast math.
    fn default() -> Self {
        Options {
            defines: Vec::new(),
            ftz: false,
            prec_div: true,
            prec_sqrt: true,
            fast_math: false,
            file_name: None,
            unit_path: None,
            error_limit: DEFAULT_ERROR_LIMIT,
            nesting_limit: DEFAULT_NESTING_LIMIT,
            include_dirs: Vec::new(),
            pre_includes: Vec::new(),
            system_include_dirs: Vec::new(),
            std: None,
            relocatable: false,
        }
    }
}

impl Options {
    /// Sets the name `__FILE__` expands to.
    pub fn with_file_name(mut self, name: &str) -> Options {
        self.file_name = Some(name.to_string());
        self
    }

    /// Sets `__CUDA_ARCH__` for target `sm_<sm>` (the SM number times ten:
    /// `with_cuda_arch(90)` defines it as `900`). Without it the value is
    /// [`DEFAULT_CUDA_ARCH`] (750, sm_75). kernelc compiles device code only,
    /// so `__CUDA_ARCH__` is always defined. It is a `-D` entry rather than a
    /// field so that code building `Options { defines }` keeps compiling.
    pub fn with_cuda_arch(mut self, sm: u32) -> Options {
        self.defines.retain(|(n, _)| n != "__CUDA_ARCH__");
        self.defines
            .push(("__CUDA_ARCH__".to_string(), Some((sm * 10).to_string())));
        self
    }

    /// `-rdc=true` (see [`Options::relocatable`]), which also defines
    /// `__CUDACC_RDC__` as nvcc does.
    pub fn with_relocatable(mut self, on: bool) -> Options {
        self.relocatable = on;
        if on {
            self.defines
                .push(("__CUDACC_RDC__".to_string(), Some("1".to_string())));
        }
        self
    }

    /// Whether `--extended-lambda` is on (it defines
    /// `__CUDACC_EXTENDED_LAMBDA__`, as nvcc does): lambdas may be
    /// `__device__` or `__host__ __device__`.
    pub fn extended_lambda(&self) -> bool {
        self.defines
            .iter()
            .any(|(n, _)| n == "__CUDACC_EXTENDED_LAMBDA__")
    }

    /// Whether `--expt-relaxed-constexpr` is on (it defines
    /// `__CUDACC_RELAXED_CONSTEXPR__`, as nvcc does): `constexpr` functions
    /// without `__device__` are then compiled for the device too.
    pub fn relaxed_constexpr(&self) -> bool {
        self.defines
            .iter()
            .any(|(n, _)| n == "__CUDACC_RELAXED_CONSTEXPR__")
    }

    /// The `__CUDA_ARCH__` value these options give.
    pub fn cuda_arch(&self) -> u32 {
        self.defines
            .iter()
            .rev()
            .find(|(n, _)| n == "__CUDA_ARCH__")
            .and_then(|(_, v)| v.as_deref()?.parse().ok())
            .unwrap_or(DEFAULT_CUDA_ARCH)
    }
}

/// Whether any diagnostic is an error (warnings alone do not fail a phase).
fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// The single file `source` as a [`SourceMap`], named as `__FILE__` is.
fn single(source: &str, opts: &Options) -> SourceMap {
    SourceMap::new(opts.file_name.as_deref().unwrap_or("<input>"), source)
}

/// Lexes and preprocesses `source`. Preprocessor warnings (an unknown
/// `#pragma`, `#warning`) are dropped here; [`check_with_warnings`] returns
/// them. Only kernelc's own headers can be included ([`NoFiles`]); see
/// [`lex_files`].
pub fn lex(source: &str, opts: &Options) -> Result<Vec<Token>, Vec<Diagnostic>> {
    lex_files(&mut single(source, opts), opts, &NoFiles)
}

/// Lexes and preprocesses the main file of `map`, reading what it
/// includes through `loader` (each file read is added to `map`, so the
/// caller can render the diagnostics with [`render_diagnostics_in`]).
pub fn lex_files(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<Vec<Token>, Vec<Diagnostic>> {
    let (tokens, _) = lex_with_warnings(map, opts, loader)?;
    // Every token is shown, so every token kernelc cannot compile is an error.
    fail_on_errors(lexer::invalid_token_errors(&tokens), opts)?;
    Ok(tokens)
}

/// `Err(errors)`, sorted and limited, if there are any.
fn fail_on_errors(mut errors: Vec<Diagnostic>, opts: &Options) -> Result<(), Vec<Diagnostic>> {
    if errors.is_empty() {
        return Ok(());
    }
    diag::sort_diagnostics(&mut errors);
    diag::apply_error_limit(&mut errors, opts.error_limit);
    Err(errors)
}

/// Lexes, preprocesses and splits the main file of `map` and what it
/// includes: the device code's tokens, the host declarations skipped, and
/// the preprocessor's warnings. Errors are those of the device code (a
/// token kernelc cannot compile in host code is no error) and of the
/// file's structure.
fn lex_and_split(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<(split::Split, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (preprocessed, mut warnings) = preprocess_with_warnings(map, opts, loader)?;
    // kernelc's own headers are not the user's code: their definitions do
    // not name the file's anonymous namespace.
    let builtin = |span: Span| map.file_of(span.start).name().starts_with("<kernelc>");
    let mut split = split::split(&preprocessed.tokens, &builtin);
    split.maybe_unused = std_attributes::maybe_unused(&split.device);
    let (device, attribute_errors) = std_attributes::strip(std::mem::take(&mut split.device));
    split.device = device;
    // A pragma nobody acts on belongs to the host compiler outside device
    // code; nvcc warns only about those in device code.
    warnings.retain(|w| w.code != Some(Code::W0006) || split.in_device_code(w.span));
    let mut errors = lexer::invalid_token_errors(&split.device);
    errors.extend(attribute_errors);
    errors.extend(split.errors.iter().cloned());
    errors.extend(libraries::device_uses(
        &split.device,
        &preprocessed.libraries,
    ));
    errors.extend(host_lambdas::errors(
        &split.host_lambdas,
        opts.extended_lambda(),
    ));
    fail_on_errors(errors, opts)?;
    Ok((split, warnings))
}

/// Parses the device tokens of `split`, with its host declarations.
fn parse_split(
    split: split::Split,
    map: &SourceMap,
    opts: &Options,
) -> (ast::TranslationUnit, Vec<Diagnostic>) {
    let len = u32::try_from(map.main().text().len()).unwrap_or(u32::MAX);
    let host = parser::HostCode {
        uses: &split.template_uses,
        lambdas: split.host_lambdas.clone(),
        templates: split.host_templates.clone(),
    };
    let (mut tu, diags) = parser::parse_tokens(&split.device, host, len, opts);
    tu.host.extend(split.host);
    (tu, diags)
}

/// Lexes and preprocesses the main file of `map`, also returning the
/// warnings.
fn lex_with_warnings(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<(Vec<Token>, Vec<Diagnostic>), Vec<Diagnostic>> {
    preprocess_with_warnings(map, opts, loader).map(|(p, warnings)| (p.tokens, warnings))
}

/// [`lex_with_warnings`], with the template libraries included.
fn preprocess_with_warnings(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<(preprocess::Preprocessed, Vec<Diagnostic>), Vec<Diagnostic>> {
    let source = map.main().text();
    if u32::try_from(source.len()).is_err() {
        return Err(vec![Diagnostic::error(
            Span::default(),
            Code::E0010,
            "source file is too large (over 4 GiB)",
        )]);
    }
    let (raw, mut diags) = lexer::lex_raw_limited(source, opts.error_limit);
    let preprocessed = if diag::over_error_limit(&diags, opts.error_limit) {
        preprocess::Preprocessed {
            tokens: Vec::new(),
            libraries: Vec::new(),
        }
    } else {
        preprocess::preprocess(map, raw, opts, loader, &mut diags)
    };
    if has_errors(&diags) {
        diag::sort_diagnostics(&mut diags);
        diag::apply_error_limit(&mut diags, opts.error_limit);
        return Err(diags);
    }
    Ok((preprocessed, diags))
}

/// Lexes and parses `source` into a syntax tree: its device code, and the
/// host declarations skipped.
pub fn parse(source: &str, opts: &Options) -> Result<ast::TranslationUnit, Vec<Diagnostic>> {
    parse_files(&mut single(source, opts), opts, &NoFiles)
}

/// [`parse`] for the main file of `map` and the files it includes (see
/// [`lex_files`]).
pub fn parse_files(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<ast::TranslationUnit, Vec<Diagnostic>> {
    let (split, _) = lex_and_split(map, opts, loader)?;
    let (tu, mut diags) = parse_split(split, map, opts);
    if has_errors(&diags) {
        diag::sort_diagnostics(&mut diags);
        diag::apply_error_limit(&mut diags, opts.error_limit);
        return Err(diags);
    }
    Ok(tu)
}

/// Parses and type-checks `source`. Warnings are dropped; see
/// [`check_with_warnings`].
pub fn check(source: &str, opts: &Options) -> Result<typed::Program, Vec<Diagnostic>> {
    check_with_warnings(source, opts).map(|(program, _)| program)
}

/// Parses and type-checks `source`, also returning the warnings (sorted by
/// position, each with its code). On failure the list holds the errors and
/// the warnings together. Only kernelc's own headers can be included; see
/// [`check_files`].
pub fn check_with_warnings(
    source: &str,
    opts: &Options,
) -> Result<(typed::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    check_files(&mut single(source, opts), opts, &NoFiles)
}

/// [`check_with_warnings`] for the main file of `map` and the files it
/// includes, read through `loader` and added to `map` (render the
/// diagnostics with [`render_diagnostics_in`]).
pub fn check_files(
    map: &mut SourceMap,
    opts: &Options,
    loader: &dyn FileLoader,
) -> Result<(typed::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (mut split, pp_warnings) = lex_and_split(map, opts, loader)?;
    let first_definition = split.first_definition.take();
    let maybe_unused = std::mem::take(&mut split.maybe_unused);
    let (tu, mut parse_diags) = parse_split(split, map, opts);
    if diag::over_error_limit(&parse_diags, opts.error_limit) {
        // Checking what was read would only add errors past the limit.
        diag::sort_diagnostics(&mut parse_diags);
        diag::apply_error_limit(&mut parse_diags, opts.error_limit);
        return Err(parse_diags);
    }
    let (mut program, mut diags) = sema::check_program(&tu, opts);
    // `[[maybe_unused]]` asks for no W0001 on the variables it marks.
    diags.retain(|d| {
        d.code != Some(Code::W0001)
            || !maybe_unused
                .iter()
                .any(|m| m.start <= d.span.start && d.span.end <= m.end)
    });
    if let Some(path) = &opts.unit_path {
        let name = unnamed_namespace::name(path, first_definition.as_ref(), &tu.templates, opts);
        if let Some(name) = name {
            unnamed_namespace::rename(&mut program, &name);
        }
    }
    diags.extend(pp_warnings);
    if has_errors(&parse_diags) {
        // The parser recovered, so sema still checks what it read and one
        // run reports more than the first syntax error. Only errors that
        // cannot be echoes of it are kept: none from a function that had a
        // syntax error, and no undeclared names (their declaration may be
        // what failed to parse). Warnings wait for a clean parse.
        let broken: Vec<Span> = tu
            .items
            .iter()
            .filter_map(|i| match i {
                ast::Item::Function(f) => Some(f.span),
                _ => None,
            })
            .filter(|s| {
                parse_diags
                    .iter()
                    .any(|d| d.span.start >= s.start && d.span.start <= s.end)
            })
            .collect();
        parse_diags.extend(diags.into_iter().filter(|d| {
            d.is_error()
                && d.code != Some(Code::E0001)
                && !broken
                    .iter()
                    .any(|s| d.span.start >= s.start && d.span.start <= s.end)
        }));
        diag::sort_diagnostics(&mut parse_diags);
        diag::apply_error_limit(&mut parse_diags, opts.error_limit);
        return Err(parse_diags);
    }
    diag::sort_diagnostics(&mut diags);
    if has_errors(&diags) {
        diag::apply_error_limit(&mut diags, opts.error_limit);
        return Err(diags);
    }
    Ok((prune::drop_unused_header_functions(program, map), diags))
}
